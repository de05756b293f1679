"""The read-only content model a build works from, loaded in a bounded number of queries.

Records are the same plain data the content files hold (see
`docs/content-format.md`), so templates, checks and exports agree on one
shape. Nothing here touches the database after `load_content` returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from glossary.models import Entry
from glossary.records import entry_to_record
from issues.models import Issue, Story
from issues.records import issue_to_record, story_to_record
from newsroom.content.records import page_to_record, site_to_record
from newsroom.models import Page


@dataclass(frozen=True)
class Record:
    """One record as the build sees it: its kind, stable key, data and content hash."""

    kind: str
    key: str
    data: Mapping[str, Any]
    content_hash: str
    version: int = 0  # bumped on every stored change, even one that forgot the content hash

    def text(self, lang: str) -> Mapping[str, Any]:
        return self.data.get(lang) or {}

    def has(self, lang: str) -> bool:
        return bool(self.data.get(lang))

    @property
    def location(self) -> str:
        return f"{self.kind}:{self.key}"


@dataclass(frozen=True)
class Content:
    """Everything stored, keyed by stable id, in stable order."""

    site: Mapping[str, Any]
    entries: Mapping[str, Record]
    pages: Mapping[str, Record]
    issues: Mapping[int, Record]
    stories: Mapping[str, Record]

    def vocabulary(self, field: str) -> dict[str, Mapping[str, str]]:
        """{slug: {lang: name}} for "sections", "categories" or "audiences", in configured order."""
        return {item["slug"]: item for item in self.site.get(field, [])}

    def stories_of(self, number: int) -> list[Record]:
        return [s for s in self.stories.values() if s.data["issue"] == number]


def load_content(session: Session) -> Content:
    """Load every record with a fixed number of queries (no lazy loading later)."""
    entries = session.scalars(select(Entry).order_by(Entry.slug).options(
        selectinload(Entry.texts), selectinload(Entry.relations))).all()
    pages = session.scalars(select(Page).order_by(Page.slug).options(selectinload(Page.texts))).all()
    issues = session.scalars(select(Issue).order_by(Issue.number).options(selectinload(Issue.texts))).all()
    stories = session.scalars(select(Story).order_by(Story.slug).options(
        selectinload(Story.texts), selectinload(Story.issue), selectinload(Story.section))).all()
    return Content(
        site=site_to_record(session) or {},
        entries={e.slug: Record("entry", e.slug, entry_to_record(e), e.content_hash, e.version) for e in entries},
        pages={p.slug: Record(p.kind, p.slug, page_to_record(p), p.content_hash, p.version) for p in pages},
        issues={i.number: Record("issue", str(i.number), issue_to_record(i), i.content_hash, i.version)
                for i in issues},
        stories={s.slug: Record("story", s.slug, story_to_record(s), s.content_hash, s.version) for s in stories},
    )
