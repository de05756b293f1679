"""Weekly issues and their stories."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Date, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from newsroom.db.base import SLUG_LENGTH, Base, IntPK
from newsroom.models import VocabularyTerm

STATUSES = ("draft", "scheduled", "published")


class Issue(Base):
    """A weekly edition: its number, the week it covers and its workflow state."""

    __tablename__ = "issues"

    id: Mapped[IntPK]
    number: Mapped[int] = mapped_column(Integer, unique=True)
    week_start: Mapped[dt.date] = mapped_column(Date)
    week_end: Mapped[dt.date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(20))
    published_at: Mapped[dt.datetime | None]
    version: Mapped[int] = mapped_column(Integer, default=1)
    content_hash: Mapped[str] = mapped_column(String(64))
    updated_at: Mapped[dt.datetime]
    texts: Mapped[list[IssueText]] = relationship(
        back_populates="issue", cascade="all, delete-orphan", order_by="IssueText.lang"
    )
    stories: Mapped[list[Story]] = relationship(back_populates="issue", order_by="Story.position")

    __mapper_args__ = {"version_id_col": version}


class IssueText(Base):
    __tablename__ = "issue_texts"

    issue_id: Mapped[int] = mapped_column(ForeignKey("issues.id", ondelete="CASCADE"), primary_key=True)
    lang: Mapped[str] = mapped_column(String(8), primary_key=True)
    title: Mapped[str | None]
    lead: Mapped[str | None]
    editor_note: Mapped[str | None]
    issue: Mapped[Issue] = relationship(back_populates="texts")


class Story(Base):
    """A curated story in one section of one issue."""

    __tablename__ = "stories"

    id: Mapped[IntPK]
    slug: Mapped[str] = mapped_column(String(SLUG_LENGTH), unique=True)
    #: The slugs it was published under before, oldest first: each old anchor on its issue's pages stays.
    formerly: Mapped[list[Any] | None]
    issue_id: Mapped[int] = mapped_column(ForeignKey("issues.id"), index=True)
    section_id: Mapped[int] = mapped_column(ForeignKey("vocabulary.id"))
    position: Mapped[int]
    tags: Mapped[list[Any]]
    audiences: Mapped[list[Any]]
    terms: Mapped[list[Any]]
    suppress_terms: Mapped[list[Any]]
    sources: Mapped[list[Any]]
    version: Mapped[int] = mapped_column(Integer, default=1)
    content_hash: Mapped[str] = mapped_column(String(64))
    updated_at: Mapped[dt.datetime]
    issue: Mapped[Issue] = relationship(back_populates="stories")
    section: Mapped[VocabularyTerm] = relationship()
    texts: Mapped[list[StoryText]] = relationship(
        back_populates="story", cascade="all, delete-orphan", order_by="StoryText.lang"
    )

    __mapper_args__ = {"version_id_col": version}


class StoryText(Base):
    __tablename__ = "story_texts"

    story_id: Mapped[int] = mapped_column(ForeignKey("stories.id", ondelete="CASCADE"), primary_key=True)
    lang: Mapped[str] = mapped_column(String(8), primary_key=True)
    headline: Mapped[str | None]
    summary: Mapped[str | None]
    body: Mapped[str | None]
    story: Mapped[Story] = relationship(back_populates="texts")
