"""Subscribers, the sends made to them and their unsubscribes."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from newsroom.db.base import Base, IntPK


class Subscriber(Base):
    """One address on the list and the language it chose.

    `email` is stored lower-cased, so one mailbox is one subscriber; `token`
    is the HMAC of the address (see `newsroom.mail.tokens`) that its
    unsubscribe link carries.
    """

    __tablename__ = "subscribers"

    id: Mapped[IntPK]
    email: Mapped[str] = mapped_column(String(320), unique=True)
    lang: Mapped[str] = mapped_column(String(8))
    token: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[dt.datetime]


class Unsubscribe(Base):
    """A subscriber's unsubscribe; once recorded, no issue is sent to the address again."""

    __tablename__ = "unsubscribes"

    id: Mapped[IntPK]
    subscriber_id: Mapped[int] = mapped_column(ForeignKey("subscribers.id", ondelete="CASCADE"), unique=True)
    method: Mapped[str] = mapped_column(String(20))  # "one-click" (RFC 8058) | "form"
    unsubscribed_at: Mapped[dt.datetime]


class Send(Base):
    """One issue accepted by the SMTP server for one subscriber: the record that prevents a second send."""

    __tablename__ = "sends"
    __table_args__ = (UniqueConstraint("issue_number", "subscriber_id", name="uq_sends_issue_subscriber"),)

    id: Mapped[IntPK]
    issue_number: Mapped[int]
    subscriber_id: Mapped[int] = mapped_column(ForeignKey("subscribers.id", ondelete="CASCADE"), index=True)
    lang: Mapped[str] = mapped_column(String(8))
    message_id: Mapped[str] = mapped_column(String(250))
    sent_at: Mapped[dt.datetime]
