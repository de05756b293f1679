"""Renaming a record: `newsroom rename` gives an entry, a story, a reference page or a site page a new slug,
keeping its history, and rewrites every reference to it in other records (see newsroom.content.renaming)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from glossary.records import apply_entry
from issues.models import Story
from issues.records import apply_story
from issues.story_slugs import slug_problem
from newsroom.build.model import load_content
from newsroom.checks.changes import buildable
from newsroom.content.importer import import_records
from newsroom.content.reader import LoadedRecord, record_hash
from newsroom.content.records import apply_page
from newsroom.content.renaming import LINK_KINDS, UnrewrittenLink, rewrite_references
from newsroom.content.stored import canonical, changed_fields, record_query
from newsroom.content.validator import Validator
from newsroom.diagnostics import ContentError, Diagnostic
from newsroom.editing import RENAMED_KINDS, Conflict, Loaded, conflict, load, record_problem
from newsroom.models import RENAMED, Revision, last_versions, revision_kinds
from newsroom.settings import Settings


@dataclass(frozen=True)
class Renamed:
    """What `rename` did: the record's new version, where the records whose references it rewrote are, and
    the warnings of those records and of the renamed one, as `newsroom check` words them (see buildable)."""

    version: int
    rewritten: list[str]
    warnings: list[Diagnostic] = field(default_factory=list)


def rename(session: Session, loaded: Loaded, new: str, settings: Settings, now: dt.datetime, author: str,
           reason: str | None = None) -> Renamed:
    """Give the entry, story, reference or site page `loaded` the slug `new`, keeping its history.

    The old slug goes to the record's `formerly` (the build sends readers on from its old address; a story's
    issue pages keep its old anchor); every reference to it in other records — relations, stories' terms,
    `entry:`/`page:` links — names the new one, each such record kept as a revision marked RENAMED (readers see
    the same text: not a correction of a published issue, nor is a story's own renaming). Refused
    (ContentError, nothing stored) when the slug is not one, is taken (or was a deleted record's, or another
    story's), when the record moved on from `loaded.version` (Conflict), or when the renaming gives the
    content an error that stops every build. The warnings of the records it stored come with what it did."""
    location = f"{loaded.kind}:{loaded.key}"
    if loaded.kind not in RENAMED_KINDS:
        raise ContentError([record_problem(loaded, (
            "only an entry, a story, a reference page or a site page can be renamed; an issue keeps its number"))])
    current = load(session, loaded.kind, loaded.key, settings.languages)
    if current.version != loaded.version:
        raise conflict(session, loaded, current, settings.languages)
    formerly = [slug for slug in current.record.get("formerly", []) if slug != new]
    record = {**current.record, "slug": new, "formerly": [*formerly, loaded.key]}
    validator = Validator(location, {}, settings.languages)
    renamed = validator.record(_rewritten(record, loaded.kind, loaded.key, new, settings.languages, location)
                               or record)  # its own links to itself too
    if validator.problems or renamed is None:
        raise ContentError(validator.problems)
    _refuse_taken(session, loaded, new)
    if last_versions(session, loaded.kind, new):
        raise ContentError([record_problem(loaded, (
            f"{new!r} was the slug of a deleted record (newsroom history {loaded.kind}:{new}): its history "
            "would be taken for this one's; choose another slug"))])

    def store() -> Renamed:
        row = session.scalars(record_query(loaded.kind, loaded.key)).one()
        session.execute(update(Revision).where(Revision.record_kind.in_(revision_kinds(loaded.kind)),
                                               Revision.record_key == loaded.key).values(record_key=new))
        # A story's own renaming is marked too: its issue's readers see the same text (no correction).
        marks = [RENAMED] if loaded.kind == "story" else []
        session.add(Revision(record_kind=loaded.kind, record_key=new, version=current.version,
                             snapshot=current.record, changed_fields=[*changed_fields(
                                 current.record, renamed, settings.languages), *marks],
                             changed_by=author, changed_at=now, reason=reason))
        if isinstance(row, Story):
            apply_story(row, renamed, settings.languages, row.issue, row.section)
        else:
            (apply_entry if loaded.kind == "entry" else apply_page)(row, renamed, settings.languages)
        row.content_hash, row.updated_at = record_hash(renamed), now
        try:
            session.flush()
        except StaleDataError:
            raise Conflict(loaded.kind, loaded.key, loaded.version, None, []) from None
        rewritten = _referring(session, loaded.kind, loaded.key, new, settings.languages)
        import_records(session, rewritten, settings.languages, now, author,
                       reason=reason or f"{location} renamed to {loaded.kind}:{new}", marks=(RENAMED,))
        return Renamed(current.version + 1, [item.location for item in rewritten])

    done, warnings = buildable(session, store, lambda done: {f"{loaded.kind}:{new}", *done.rewritten}, settings, now)
    return Renamed(done.version, done.rewritten, warnings)


def _refuse_taken(session: Session, loaded: Loaded, new: str) -> None:
    """ContentError when another record of `loaded`'s kind has the slug `new` (or, for a story, had it: its old
    anchor leads to that story), worded for a story as `story add` words it."""
    if loaded.kind == "story":
        taken = slug_problem(session, new, "NEW-SLUG", renamed=loaded.key)
        if taken is not None:
            raise ContentError([record_problem(loaded, taken)])
        return
    row = session.scalars(record_query(loaded.kind, new, exact_kind=False)).one_or_none()
    if row is not None:
        holder = "entry" if loaded.kind == "entry" else row.kind
        raise ContentError([record_problem(loaded, f"{new!r} is the slug of {holder}:{new} already: choose another")])


def _referring(session: Session, kind: str, old: str, new: str, languages: tuple[str, ...]) -> list[LoadedRecord]:
    """Every other record that names the `kind` record `old`, with its references made to `new` (none names a
    story: no link or field does)."""
    if kind not in LINK_KINDS:
        return []
    content = load_content(session)
    found = []
    for record in (*content.entries.values(), *content.pages.values(), *content.issues.values(),
                   *content.stories.values()):
        if record.kind == kind and record.key == new:
            continue  # the renamed record: its own links were rewritten with it
        if _rewritten(dict(record.data), kind, old, new, languages, record.location) is None:
            continue
        current = load(session, record.kind, record.key, languages)
        rewritten = _rewritten(current.record, kind, old, new, languages, record.location)
        if rewritten is not None:
            found.append(LoadedRecord(record.kind, record.key, canonical(rewritten, languages, record.location),
                                      record.location))
    return found


def _rewritten(record: dict[str, Any], kind: str, old: str, new: str, languages: tuple[str, ...], location: str
               ) -> dict[str, Any] | None:
    """`rewrite_references`, its refusal a ContentError naming the record and the field; None for a kind no
    record links to (a story)."""
    if kind not in LINK_KINDS:
        return None
    try:
        return rewrite_references(record, kind, old, new, languages)
    except UnrewrittenLink as link:
        scheme = LINK_KINDS[kind]
        raise ContentError([Diagnostic(location, None, link.field, (
            f"links to {scheme}:{old} in a way renaming cannot rewrite: write it as [text]({scheme}:{old}) "
            "and rename again"))]) from None
