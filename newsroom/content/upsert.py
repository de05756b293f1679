"""Importing one record: stored (created or updated), unchanged, kept (the database's is newer), left
out (deleted since its export), or refused with the reason and its fix."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from glossary.records import apply_entry
from issues.corrections import EXAMPLE, has_reason, reason_missing
from issues.dates import html_datetime
from issues.models import Issue
from issues.records import apply_issue, apply_story
from newsroom.content.manifest import Base
from newsroom.content.reader import FileRecord, LoadedRecord, record_hash
from newsroom.content.records import apply_page, apply_site, site_to_record
from newsroom.content.stored import MODELS, canonical, changed_fields, former_slugs, record_query, table_key
from newsroom.diagnostics import Diagnostic
from newsroom.models import (DELETED, Revision, VocabularyTerm, continue_versions, created_fields, history_key,
                             revision_kinds)


def _conflict(
    session: Session, item: LoadedRecord | FileRecord, row: Any, base: Base, previous: dict[str, Any],
    languages: tuple[str, ...],
) -> Diagnostic:
    """The message for a file edited while its record also changed in the database."""
    kinds = revision_kinds(item.kind)
    snapshot = session.scalars(select(Revision.snapshot).where(
        Revision.record_kind.in_(kinds), Revision.record_key == item.key, Revision.version == base.version)).first()
    since = f": {', '.join(changed_fields(snapshot, previous, languages))}" if snapshot is not None else ""
    return Diagnostic(item.location, None, "", (
        f"{item.kind} {item.key!r} changed in the database since this file was exported (version {base.version}, "
        f"now {row.version}){since}; the file was edited too, so importing it would overwrite that change. "
        f"Export again and reapply your edit (see `newsroom history {item.kind}:{item.key}`)"))


def _other_kind(item: LoadedRecord | FileRecord, stored: str) -> Diagnostic:
    """The refusal of a page file whose slug a page of the other kind has: it would have turned that page
    into this one, its address gone and its links pointing elsewhere, without a word."""
    names = {"reference": "reference page", "page": "site page"}
    return Diagnostic(item.location, None, "slug", (
        f"the {names[stored]} {item.key!r} has this slug (reference and site pages share their slugs), and an "
        f"import does not turn one into the other: give this {names[item.kind]} a slug of its own, or delete "
        f"that page first (`newsroom delete {stored}:{item.key}`)"))


def _deletion(session: Session, item: LoadedRecord | FileRecord, base: Base) -> Revision | None:
    """The revision that deleted the record `item` names after it was exported as `base`, if one did."""
    kinds = revision_kinds(item.kind)
    revisions = session.scalars(select(Revision).where(
        Revision.record_kind.in_(kinds), Revision.record_key == item.key, Revision.version >= base.version))
    return next((r for r in revisions if DELETED in r.changed_fields), None)


def _published_when_due(record: dict[str, Any], digest: str, now: dt.datetime) -> tuple[dict[str, Any], str]:
    """An issue file that schedules the issue at a time that has come says what the database says of it
    from that time (see issues.schedule): published at that time. The file written before its time, as it
    was, is then no change (and no attempt to take the issue back)."""
    if record.get("status") != "scheduled" or not record.get("published_at"):
        return record, digest
    if dt.datetime.fromisoformat(str(record["published_at"])) > now:
        return record, digest
    published = {**record, "status": "published"}
    return published, record_hash(published)


def _local(moment: Any, zone: dt.tzinfo) -> str:
    """A stored or written time as an editor gives times: in the site's zone, to the second."""
    try:
        at = moment if isinstance(moment, dt.datetime) else dt.datetime.fromisoformat(str(moment))
    except ValueError:
        return str(moment)
    return html_datetime(at, zone) if at.tzinfo else str(moment)


def _published_ahead(item: LoadedRecord | FileRecord, record: dict[str, Any], now: dt.datetime,
                     zone: dt.tzinfo = dt.timezone.utc) -> Diagnostic | None:
    """The refusal of an issue file that says it is published at a time to come: it would be on the site
    and in the feeds at once, dated ahead (`newsroom issue publish --at` refuses the same)."""
    if item.kind != "issue" or record.get("status") != "published" or not record.get("published_at"):
        return None
    at = dt.datetime.fromisoformat(str(record["published_at"]))
    if at <= now:
        return None
    return Diagnostic(item.location, None, "published_at", (
        f"{_local(at, zone)} is to come (now {_local(now, zone)}), and a published issue has gone "
        "out: to publish it then, say status: scheduled (the build shows it once its time has come)"))


def _unpublishing(item: LoadedRecord | FileRecord, stored: dict[str, Any], record: dict[str, Any],
                  zone: dt.tzinfo = dt.timezone.utc) -> Diagnostic | None:
    """The refusal of a file that would take a published issue back, or move its publication time: its
    feeds and emails went out with that time (`newsroom edit` refuses the same)."""
    if item.kind != "issue" or stored.get("status") != "published":
        return None
    changed = [name for name in ("status", "published_at") if record.get(name) != stored.get(name)]
    if not changed:
        return None
    return Diagnostic(item.location, None, changed[0], (
        f"issue {item.key} is published (at {_local(stored.get('published_at'), zone)}): its status and "
        "publication time stay, as its feeds and emails went out with them; this file says status: "
        f"{record.get('status')}"
        f"{', published_at: ' + _local(record['published_at'], zone) if record.get('published_at') else ''}"))


def upsert(
    session: Session, item: LoadedRecord | FileRecord, languages: tuple[str, ...], now: dt.datetime, author: str,
    base: Base | None = None, reason: str | None = None, published: Collection[int] = (),
    kept: Mapping[tuple[str, str], int] | None = None, corrections: bool = True,
    lookups: dict[tuple[str, Any], Any] | None = None, marks: Sequence[str] = (),
    hashes: Mapping[tuple[str, str], str] | None = None, reason_required: bool = False,
    zone: dt.tzinfo = dt.timezone.utc, reason_lang: str | None = None,
) -> str | Diagnostic:
    record, digest = item.record, item.content_hash
    lookups = {} if lookups is None else lookups
    if item.kind == "issue":
        record, digest = _published_when_due(record, digest, now)
    if item.kind == "site":
        current = site_to_record(session)
        stored = None if current is None else record_hash(canonical(current, languages, item.location))
        if stored == digest:
            return "unchanged"
        if base is not None and stored is not None and stored != base.content_hash:
            # No versions here: the hashes alone say who changed the site file since it was exported.
            if digest == base.content_hash:
                return "kept"
            return Diagnostic(item.location, None, "", (
                "the site file changed in the database since this file was exported, and the file was edited "
                "too, so importing it would overwrite that change. Export again and reapply your edit "
                "(`--force` stores this file as it is)"))
        apply_site(session, record, languages)
        return "created" if current is None else "updated"
    model, to_record = MODELS[item.kind]
    if hashes is not None and hashes.get(table_key(item.kind, item.key)) == digest:
        return "unchanged"  # (a page's kind is in its hash)
    if hashes is not None and table_key(item.kind, item.key) not in hashes:
        row = None
    else:
        row = session.scalars(record_query(item.kind, item.key, exact_kind=False)).one_or_none()
        if row is not None and row.content_hash == digest:
            return "unchanged"
        if row is not None and item.kind in ("reference", "page") and row.kind != item.kind:
            return _other_kind(item, row.kind)
    early = _published_ahead(item, record, now, zone)
    if early is not None:
        return early
    if row is not None and base is not None and row.version > base.version:
        if digest == base.content_hash:
            return "kept"
        return _conflict(session, item, row, base, canonical(to_record(row), languages, item.location), languages)
    if row is None and base is not None:
        # Only a record with revisions since its export can have been deleted since: most have none (a
        # backup restored into an empty database), and asking the database for each took a tenth of that.
        last = (kept or {}).get(history_key(item.kind, item.key))
        deletion = _deletion(session, item, base) if last is not None and last >= base.version else None
        if deletion is not None and digest == base.content_hash:
            return "gone"
        if deletion is not None:
            return Diagnostic(item.location, None, "", (
                f"{item.kind} {item.key!r} was deleted in the database since this file was exported (by "
                f"{deletion.changed_by}, {deletion.changed_at.date().isoformat()}), and the file was edited: "
                "to bring the record back with your edit, import this file with --force"))
        renamed = _renamed(session, lookups, item.kind).get(item.key) if deletion is None else None
        if renamed is not None and digest == base.content_hash:
            return "kept"  # renamed since the export: the record, newer, goes on under its new slug
        if renamed is not None:
            return Diagnostic(item.location, None, "slug", (
                f"{item.kind} {item.key!r} was renamed to {item.kind}:{renamed} in the database since this file was "
                f"exported, and the file was edited: make the edit in the file of {item.kind}:{renamed} "
                "(`newsroom export` writes it)"))
    if row is not None:
        previous = canonical(to_record(row), languages, item.location)
        changed = changed_fields(previous, record, languages)
        unpublished = _unpublishing(item, previous, record, zone)
        if unpublished is not None:
            return unpublished
    correcting = _published_issue(item, record, row, published, corrections, reason, reason_required,
                                  changed if row is not None else None)
    if correcting is not None:
        return correcting
    if row is not None:
        session.add(Revision(record_kind=item.kind, record_key=item.key, version=row.version, snapshot=previous,
                             changed_fields=[*changed, *marks], changed_by=author, changed_at=now, reason=reason,
                             reason_lang=reason_lang if reason else None))
    else:  # when and by whom it was made: `history` dates version 1 by it
        row = model()
        session.add(Revision(record_kind=item.kind, record_key=item.key, version=0, snapshot={},
                             changed_fields=created_fields(item.kind, record.get("issue") in published),
                             changed_by=author, changed_at=now, reason=reason,
                             reason_lang=reason_lang if reason else None))
    if item.kind == "story":
        issue = _one(session, lookups, ("issue", record["issue"]),
                     lambda: select(Issue).where(Issue.number == record["issue"]))
        section = _one(session, lookups, ("section", record["section"]), lambda: select(VocabularyTerm).where(
            VocabularyTerm.kind == "section", VocabularyTerm.slug == record["section"]))
        apply_story(row, record, languages, issue, section)
    elif item.kind == "entry":
        apply_entry(row, record, languages)
    elif item.kind == "issue":
        apply_issue(row, record, languages)
    else:
        apply_page(row, record, languages)
    row.content_hash = digest
    row.updated_at = now
    session.add(row)
    if row.id:
        return "updated"
    continue_versions(session, row, item.kind, item.key, (kept or {}).get(history_key(item.kind, item.key)))
    return "created"


def _renamed(session: Session, lookups: dict[tuple[str, Any], Any], kind: str) -> dict[str, str]:
    """{former slug: slug} of the records of `kind` that have former slugs (see `newsroom rename`), asked once
    while `lookups` holds it."""
    if ("renamed", kind) not in lookups:
        lookups[("renamed", kind)] = former_slugs(session, kind)
    return lookups[("renamed", kind)]


def _one(session: Session, lookups: dict[tuple[str, Any], Any], key: tuple[str, Any], query: Callable[[], Any]
         ) -> Any:
    """The one row `query()` selects (None for none), asked once per `key` while `lookups` holds it (a story
    of each issue asked the database for its issue and its section: two queries, and a flush before each; and
    building the statement took as long as asking for it)."""
    if key not in lookups:
        lookups[key] = session.scalars(query()).one_or_none()
    return lookups[key]


def _published_issue(item: LoadedRecord | FileRecord, record: dict[str, Any], row: Any, published: Collection[int],
                     corrections: bool, reason: str | None, reason_required: bool, changed: list[str] | None
                     ) -> Diagnostic | None:
    """The refusal of a file that changes a published issue or one of its stories, made without
    --correction (`corrections`), or (`reason_required`) without the `reason` readers are shown with it: as
    `story edit` and `edit` refuse it. `changed` names the fields the file changes (None: a new record)."""
    if corrections and (has_reason(reason) or not reason_required):
        return None
    if item.kind == "issue":
        numbers = {int(item.key)}
    elif item.kind == "story":
        numbers = {record["issue"], *([row.issue.number] if row is not None else [])}
    else:
        return None
    issues = sorted(numbers.intersection(published))
    if not issues:
        return None
    if corrections:
        return Diagnostic(item.location, None, "", reason_missing(issues[0], "import with"))
    number = issues[0]
    if changed is None:
        what = f"adds the story {item.key!r} to it"
    else:
        what = "changes its " + (" and ".join([", ".join(changed[:-1]), changed[-1]]) if len(changed) > 1
                                 else changed[0])
    return Diagnostic(item.location, None, "", (
        f"issue {number} is published, and this file {what}: that is a correction readers are shown; import with "
        f"{EXAMPLE} to make it (it is listed among the issue's corrections with that reason)"))
