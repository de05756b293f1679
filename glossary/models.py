"""Glossary entries, their per-language texts and their relations."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, Boolean, Date, ForeignKey, Integer, String, false
from sqlalchemy.orm import Mapped, mapped_column, relationship

from newsroom.db.base import SLUG_LENGTH, Base, IntPK

LEVELS = ("basic", "intermediate", "advanced")
TRENDS = ("emerging", "spreading", "mainstream", "fading")
RELATION_KINDS = ("broader", "narrower", "related", "similar")


class Entry(Base):
    """One concept of the glossary; language-independent fields."""

    __tablename__ = "entries"

    id: Mapped[IntPK]
    slug: Mapped[str] = mapped_column(String(SLUG_LENGTH), unique=True)
    category: Mapped[str] = mapped_column(String(SLUG_LENGTH))
    level: Mapped[str] = mapped_column(String(20))
    trend: Mapped[str] = mapped_column(String(20))
    english_term: Mapped[str | None]
    #: The slugs it was published under before, oldest first: each old address sends readers on.
    formerly: Mapped[list[Any] | None]
    #: Work in progress (`draft: true`): kept, checked and previewed, but no public build shows it
    #: (see newsroom.drafts). Rows stored before it existed are published.
    draft: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    status_month: Mapped[dt.date] = mapped_column(Date)  # day is always 1
    sources: Mapped[list[Any]]
    provenance: Mapped[dict[str, Any] | None]
    version: Mapped[int] = mapped_column(Integer, default=1)
    content_hash: Mapped[str] = mapped_column(String(64))
    updated_at: Mapped[dt.datetime]
    texts: Mapped[list[EntryText]] = relationship(
        back_populates="entry", cascade="all, delete-orphan", order_by="EntryText.lang"
    )
    relations: Mapped[list[Relation]] = relationship(
        back_populates="entry", cascade="all, delete-orphan", order_by="Relation.position"
    )

    __mapper_args__ = {"version_id_col": version}


class EntryText(Base):
    """An entry's texts in one language."""

    __tablename__ = "entry_texts"

    entry_id: Mapped[int] = mapped_column(ForeignKey("entries.id", ondelete="CASCADE"), primary_key=True)
    lang: Mapped[str] = mapped_column(String(8), primary_key=True)
    headword: Mapped[str | None]
    definition: Mapped[str | None]
    plain_terms: Mapped[str | None]
    analogy: Mapped[str | None]
    how_it_works: Mapped[list[Any]]
    example: Mapped[str | None]
    affected: Mapped[list[Any]]  # [{audiences: [...], text, section}]
    myth: Mapped[str | None]
    reality: Mapped[str | None]
    limits: Mapped[str | None]
    history: Mapped[str | None]
    current_state: Mapped[str | None]
    aliases: Mapped[list[Any]]
    match_forms: Mapped[list[Any]]
    entry: Mapped[Entry] = relationship(back_populates="texts")


class Relation(Base):
    """A relation stated once, in the file of `entry`; its inverse is derived.

    `target` is a slug that need not exist: a missing target is shown as text
    and reported by `check`, never rendered as a dead link. A relation to a
    concept without an entry has a `name` instead (a text, or {lang: name});
    it is shown as text, has no inverse, and is never taken for a slug.
    """

    __tablename__ = "relations"

    id: Mapped[IntPK]
    entry_id: Mapped[int] = mapped_column(ForeignKey("entries.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(20))
    target: Mapped[str | None] = mapped_column(String(SLUG_LENGTH), index=True)  # None: `name` says what it is
    name: Mapped[Any] = mapped_column(JSON, nullable=True)  # str | {lang: name} | None
    position: Mapped[int]
    note: Mapped[dict[str, Any] | None]  # similar: {lang: how it differs}
    entry: Mapped[Entry] = relationship(back_populates="relations")
