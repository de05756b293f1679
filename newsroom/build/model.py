"""The read-only content model a build works from, loaded in a bounded number of queries.

Records are the same plain data the content files hold (see
`docs/content-format.md`), so templates, checks and exports agree on one
shape. Nothing here touches the database after `load_content` returns.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, FromClause, Text, cast, inspect, or_, select
from sqlalchemy.orm import Session

from glossary.models import Entry
from glossary.records import entry_to_record
from issues.models import Issue, Story
from issues.queries import Correction, all_corrections
from issues.records import issue_to_record, story_to_record
from newsroom.content.records import page_to_record, site_to_record
from newsroom.models import Page

if TYPE_CHECKING:
    from newsroom.build.memos import Memo


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
    #: Changes made to published issues and their stories, by issue number, oldest first.
    corrections: Mapping[int, tuple[Correction, ...]] = field(default_factory=dict)

    def vocabulary(self, field: str) -> dict[str, Mapping[str, str]]:
        """{slug: {lang: name}} for "sections", "categories" or "audiences", in configured order."""
        return {item["slug"]: item for item in self.site.get(field, [])}

    def stories_of(self, number: int) -> list[Record]:
        """The stories of issue `number`, in key order (an index, not a scan: pages ask once per issue)."""
        if "_by_issue" not in self.__dict__:
            index: dict[int, list[Record]] = {}
            for story in self.stories.values():
                index.setdefault(story.data["issue"], []).append(story)
            object.__setattr__(self, "_by_issue", index)
        return list(self.__dict__["_by_issue"].get(number, ()))


def load_content(session: Session, memo: Memo | None = None) -> Content:
    """Load every record with a fixed number of queries (no lazy loading later).

    With a `memo` (the build's, kept in the database) only records whose
    version or content hash changed since the memo was written are read
    through the ORM; the rest come back as the plain data they were.
    """
    site = site_to_record(session) or {}
    if memo is None:
        loaded = {kind: {r.key: r for r in _load(session, kind, None).values()} for kind in _LOADERS}
    else:
        loaded = {kind: _remembered(session, kind, memo, _digest(repr(site))[:16]) for kind in _LOADERS}
    return Content(
        site=site,
        entries=dict(sorted(loaded["entry"].items())),
        pages=dict(sorted(loaded["page"].items())),
        issues={int(key): record for key, record in sorted(loaded["issue"].items(), key=lambda kv: int(kv[0]))},
        stories=dict(sorted(loaded["story"].items())),
        corrections={number: tuple(items) for number, items in all_corrections(session).items()},
    )


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


#: kind → (model, the relationships its record is made with, row → Record)
_LOADERS: dict[str, tuple[Any, tuple[str, ...], Callable[[Any], Record]]] = {
    "entry": (Entry, ("texts", "relations"),
              lambda e: Record("entry", e.slug, entry_to_record(e), e.content_hash, e.version)),
    "page": (Page, ("texts",),
             lambda p: Record(p.kind, p.slug, page_to_record(p), p.content_hash, p.version)),
    "issue": (Issue, ("texts",),
              lambda i: Record("issue", str(i.number), issue_to_record(i), i.content_hash, i.version)),
    "story": (Story, ("texts", "issue", "section"),
              lambda s: Record("story", s.slug, story_to_record(s), s.content_hash, s.version)),
}

#: Ids per query when loading given rows.
_IDS_PER_QUERY = 500


def _load(session: Session, kind: str, ids: list[int] | None) -> dict[int, Record]:
    """Records of one kind by row id: all of them, or those with the given ids (500 per query).

    The rows are read as plain rows, not ORM objects, and given the attributes the model's
    relationships would (in their order): the records are made by the same functions as from
    the ORM's objects, and a build that reads every row (a first or full one) spends half the time.
    """
    model, related, to_record = _LOADERS[kind]
    mapper = inspect(model)
    rows = {row.id: row for row in _plain_rows(session, mapper.local_table, mapper.local_table.c.id, ids)}
    for name in related:
        relationship = mapper.relationships[name]
        ((local, remote),) = relationship.local_remote_pairs
        target = relationship.mapper.local_table
        if relationship.uselist:  # its rows that refer to these, in the relationship's order
            grouped: dict[Any, list[SimpleNamespace]] = {key: [] for key in rows}
            order = (remote, *(relationship.order_by or ()))
            for child in _plain_rows(session, target, remote, ids, order):
                grouped[getattr(child, remote.key)].append(child)
            for key, row in rows.items():
                setattr(row, name, grouped[key])
        else:  # the row each refers to
            wanted = sorted({getattr(row, local.key) for row in rows.values()})
            referred = {getattr(item, remote.key): item for item in _plain_rows(session, target, remote, wanted)}
            for row in rows.values():
                setattr(row, name, referred.get(getattr(row, local.key)))
    return {key: to_record(row) for key, row in rows.items()}


def _plain_rows(session: Session, table: FromClause, column: ColumnElement[Any], values: list[Any] | None,
                order: tuple[ColumnElement[Any], ...] = ()) -> list[SimpleNamespace]:
    """The rows of `table` (all, or those whose `column` is one of `values`), each with an attribute per
    column (the models name their attributes as their columns)."""
    query = select(table).order_by(*order)
    parts = [query] if values is None else [query.where(column.in_(values[start:start + _IDS_PER_QUERY]))
                                            for start in range(0, len(values), _IDS_PER_QUERY)]
    found: list[SimpleNamespace] = []
    for part in parts:
        result = session.execute(part)
        names = list(result.keys())
        found += [SimpleNamespace(**dict(zip(names, row))) for row in result]
    if order and len(parts) > 1:  # in order across the parts too
        found.sort(key=lambda row: tuple(getattr(row, by.key) for by in order))
    return found


def _remembered(session: Session, kind: str, memo: Memo, site: str) -> dict[str, Record]:
    """Records of one kind, from the memo where their version and hash are unchanged."""
    model = _LOADERS[kind][0]
    # The content hash (hex) comes first, so keys spread over the memo's shards as digests do; a record's
    # kind, row, version and the site settings it was read under complete it (no hashing per row).
    keys = {row_id: f"{content_hash}|{kind}|{row_id}|{version}|{site}" for row_id, version, content_hash
            in session.execute(select(model.id, model.version, model.content_hash))}
    records: dict[int, Record] = {}
    missing: list[int] = []
    for row_id, key in keys.items():
        known = memo.get(key)
        if known is None:
            missing.append(row_id)
        else:
            records[row_id] = Record(*known)
    if missing:
        # Most rows new (a first build): one plain load beats many id lists.
        fresh = _load(session, kind, None if len(missing) > len(keys) // 2 else missing)
        for row_id in missing:
            record = fresh.get(row_id)
            if record is not None:
                records[row_id] = record
                memo.put(keys[row_id], [record.kind, record.key, record.data, record.content_hash, record.version])
    return {record.key: record for record in records.values()}


def load_records(session: Session, locations: Collection[str]) -> dict[str, Record]:
    """The records at `locations` (`entry:gpu`, `reference:x`, `issue:13`, `story:slug`), as `load_content`
    makes them, by location; those not stored are left out. An issue's location brings its stories too: what
    a change of its stories' places and tags may move between them. A few queries for a few records, not
    the whole content's."""
    wanted: dict[str, set[str]] = {"entry": set(), "page": set(), "issue": set(), "story": set()}
    for location in locations:
        kind, _, key = location.partition(":")
        if kind in ("page", "reference"):
            wanted["page"].add(key)
        elif kind in wanted:
            wanted[kind].add(key)
    numbers = [int(key) for key in wanted["issue"] if key.isdigit()]
    by_key = {"entry": Entry.slug, "page": Page.slug, "issue": Issue.number, "story": Story.slug}
    found: dict[str, Record] = {}
    for kind, column in by_key.items():
        keys: list[Any] = numbers if kind == "issue" else sorted(wanted[kind])
        query = select(column.class_.id).where(column.in_(keys))
        if kind == "story" and numbers:  # and the stories of the issues
            query = query.union(select(Story.id).join(Issue, Story.issue_id == Issue.id)
                                .where(Issue.number.in_(numbers)))
        ids = sorted(session.scalars(query)) if keys or (kind == "story" and numbers) else []
        for record in _load(session, kind, ids).values() if ids else ():
            found[record.location] = record
    return found


def locations_naming(session: Session, text: str) -> set[str]:
    """The locations of the records whose texts, in any language, hold `text` (`issue:14`) in any case of its
    ASCII letters (a link's kind is read in any case: `Issue:14` leads there too), found by the database, not in
    the whole content loaded: a query a kind of record, and the few records found read."""
    pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    # SQLite's LIKE ignores the case of ASCII letters already (ILIKE, `lower()` on both sides there, took a third
    # longer at the benchmark's scale 1.0); PostgreSQL's does not.
    sqlite = session.get_bind().dialect.name == "sqlite"

    def holds(column: ColumnElement[Any]) -> ColumnElement[bool]:
        value = cast(column, Text)
        return value.like(pattern, escape="\\") if sqlite else value.ilike(pattern, escape="\\")

    found: set[str] = set()
    for kind, (model, _, _) in _LOADERS.items():
        relationship = inspect(model).relationships["texts"]
        ((_, remote),) = relationship.local_remote_pairs
        columns = [column for column in relationship.mapper.local_table.columns
                   if not column.primary_key and not column.foreign_keys]
        ids = sorted(set(session.scalars(select(remote).where(
            or_(*map(holds, columns))))))
        found.update(record.location for record in (_load(session, kind, ids).values() if ids else ()))
    return found
