"""Records as the database stores them: their canonical form, the fields two versions differ in, the
query of one by its stable key, the content hashes stored for an import's files, and former slugs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import false, select
from sqlalchemy.orm import Session, selectinload

from glossary.models import Entry
from glossary.records import entry_to_record
from issues.models import Issue, Story
from issues.records import issue_to_record, story_to_record
from newsroom.content.reader import FileRecord, LoadedRecord, record_hash
from newsroom.content.records import page_to_record, site_to_record
from newsroom.content.schema import MAX_INT
from newsroom.content.validator import Validator
from newsroom.diagnostics import ContentError, stored_location
from newsroom.models import Page


def canonical(record: dict[str, Any], languages: tuple[str, ...], location: str, stored: bool = True
              ) -> dict[str, Any]:
    """Pass a record built from rows through the validator, so export is canonical; `stored` False for
    one an editor wrote (see Validator.stored)."""
    validator = Validator(location, {}, languages, stored=stored)
    result = validator.record(record)
    if result is None or validator.problems:
        raise ContentError(validator.problems)
    return result


def changed_fields(before: dict[str, Any], after: dict[str, Any], languages: tuple[str, ...]) -> list[str]:
    """The fields that differ between two canonical records; per-language fields as `hu.headline`."""
    changed: list[str] = []
    for name in sorted({*before, *after}):
        old, new = before.get(name), after.get(name)
        if old == new:
            continue
        if name in languages and isinstance(old or {}, dict) and isinstance(new or {}, dict):
            old, new = old or {}, new or {}  # a language added or dropped: name its fields
            changed.extend(f"{name}.{field}" for field in sorted({*old, *new}) if old.get(field) != new.get(field))
        else:
            changed.append(name)
    return changed


def former_slugs(session: Session, kind: str) -> dict[str, str]:
    """{former slug: slug} of the entries, the stories, or the reference or site pages, that have former slugs."""
    if kind not in ("entry", "story", "reference", "page"):
        return {}
    query = select(Entry.slug, Entry.formerly) if kind == "entry" else \
        select(Story.slug, Story.formerly) if kind == "story" else \
        select(Page.slug, Page.formerly).where(Page.kind == kind)
    return {former: slug for slug, formerly in session.execute(query) for former in formerly or ()}


#: Per kind of record: its row class and the function that turns a row back into a content record.
MODELS: dict[str, tuple[type, Any]] = {
    "entry": (Entry, entry_to_record), "reference": (Page, page_to_record), "page": (Page, page_to_record),
    "issue": (Issue, issue_to_record), "story": (Story, story_to_record),
}


#: Per kind of record: the column that is its stable key in its table, for `stored_hashes`.
_KEYS: dict[str, Any] = {"entry": Entry.slug, "reference": Page.slug, "page": Page.slug, "issue": Issue.number,
                         "story": Story.slug}


#: Keys asked for in one query (SQLite took at most 999 bound parameters before 3.32).
_KEYS_PER_QUERY = 900


def table_key(kind: str, key: str) -> tuple[str, str]:
    """A record's key in its table: reference and site pages share one (and one slug space)."""
    return ("page" if kind == "reference" else kind, key)


def stored_hashes(session: Session, loaded: Sequence[LoadedRecord | FileRecord]) -> dict[tuple[str, str], str]:
    """The content hash stored for each record `loaded` names that the database holds, by `table_key`:
    a few queries per kind, where asking for each record (with its texts and relations) took most of an
    unchanged import's time (a ten-year archive re-imported: 7,072 records, 25,867 queries)."""
    wanted: dict[str, set[str]] = {}
    for item in loaded:
        if item.kind in _KEYS:
            wanted.setdefault(table_key(item.kind, item.key)[0], set()).add(item.key)
    hashes: dict[tuple[str, str], str] = {}
    for kind, keys in wanted.items():
        column, ordered = _KEYS[kind], sorted(keys)
        model = column.class_
        for start in range(0, len(ordered), _KEYS_PER_QUERY):
            chunk = ordered[start:start + _KEYS_PER_QUERY]
            values = [int(key) for key in chunk] if kind == "issue" else chunk
            for key, digest in session.execute(select(column, model.content_hash).where(column.in_(values))):
                hashes[(kind, str(key))] = digest
    return hashes


def stored_otherwise(session: Session, loaded: Sequence[LoadedRecord | FileRecord], languages: tuple[str, ...]
                     ) -> list[str]:
    """The records of `loaded` that the database holds with other content, as `kind:key` (`site` for the
    site file): what importing them would change."""
    hashes = stored_hashes(session, loaded)
    differing = []
    for item in loaded:
        if item.kind == "site":
            current = site_to_record(session)
            if current is not None and record_hash(canonical(current, languages, "site")) != item.content_hash:
                differing.append("site")
        elif hashes.get(table_key(item.kind, item.key), item.content_hash) != item.content_hash:
            differing.append(stored_location(item.kind, item.key))
    return differing


def record_query(kind: str, key: str, exact_kind: bool = True) -> Any:
    """The select() of one record by stable key, with what its content record needs loaded eagerly.

    Reference and site pages share one table and one slug space: with `exact_kind` False a
    page of either kind is found (an import refuses a file of the other kind's slug).
    """
    if kind == "entry":
        return select(Entry).where(Entry.slug == key).options(selectinload(Entry.texts),
                                                              selectinload(Entry.relations))
    if kind in ("reference", "page"):
        query = select(Page).where(Page.slug == key).options(selectinload(Page.texts))
        return query.where(Page.kind == kind) if exact_kind else query
    if kind == "issue":  # a number no issue can have (none is above MAX_INT) is asked for as none, not sent
        number = int(key)
        return select(Issue).where(Issue.number == number if number <= MAX_INT else false()).options(
            selectinload(Issue.texts))
    return select(Story).where(Story.slug == key).options(
        selectinload(Story.texts), selectinload(Story.issue), selectinload(Story.section))
