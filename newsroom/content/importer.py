"""Importing validated records: upsert by stable id, in one transaction, with counts."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import false, select
from sqlalchemy.orm import Session, selectinload

from glossary.models import Entry, EntryText
from glossary.records import apply_entry, entry_to_record
from issues.corrections import EXAMPLE, has_reason, reason_missing
from issues.dates import html_datetime
from issues.models import Issue, Story
from issues.records import apply_issue, apply_story, issue_to_record, story_to_record
from newsroom.content.manifest import Base
from newsroom.content.reader import FileRecord, LoadedRecord, in_files, record_hash, stored_location
from newsroom.content.records import (VOCABULARIES, apply_page, apply_site, page_to_record, site_to_record,
                                      where_listed)
from newsroom.content.schema import MAX_INT
from newsroom.content.validator import Validator
from newsroom.diagnostics import ContentError, Diagnostic, first_of
from newsroom.models import (DELETED, Page, Revision, VocabularyTerm, continue_versions, created_fields,
                             history_key, last_versions, revision_kinds)

ORDER = ("site", "entry", "reference", "page", "issue", "story")
#: Records written between two flushes that also empty the session (bounds memory on large imports).
FLUSH_EVERY = 500


@dataclass
class ImportResult:
    created: Counter[str] = field(default_factory=Counter)
    updated: Counter[str] = field(default_factory=Counter)
    unchanged: Counter[str] = field(default_factory=Counter)
    kept: Counter[str] = field(default_factory=Counter)  # stale exported files: the newer stored version stays
    gone: Counter[str] = field(default_factory=Counter)  # exported files of records deleted since: they stay so
    deleted: Counter[str] = field(default_factory=Counter)  # records whose exported files were removed (--prune)
    stored: set[str] = field(default_factory=set)  # where the records created or updated are: `entry:gpu`, `site`
    removed: set[str] = field(default_factory=set)  # where the records deleted (--prune) were: `entry:gpu`
    #: The warnings of the records stored, each in its file at its field's line (see editing.import_checked).
    warnings: list[Diagnostic] = field(default_factory=list)
    #: The warnings the deletions (--prune) left on other records (a relation to a deleted entry), as `delete`
    #: gives them.
    left: list[Diagnostic] = field(default_factory=list)

    def summary(self) -> str:
        total = lambda c: sum(c.values())  # noqa: E731
        kept = f", {total(self.kept)} kept (newer in the database)" if self.kept else ""
        gone = f", {total(self.gone)} left out (deleted in the database since the export)" if self.gone else ""
        deleted = f", {total(self.deleted)} deleted (their files were removed)" if self.deleted else ""
        return (f"{total(self.created)} created, {total(self.updated)} updated, {total(self.unchanged)} unchanged"
                f"{kept}{gone}{deleted}")


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


def import_records(
    session: Session, loaded: Sequence[LoadedRecord | FileRecord], languages: tuple[str, ...], now: dt.datetime,
    author: str = "import", bases: Mapping[tuple[str, str], tuple[Base, str]] | None = None,
    reason: str | None = None, corrections: bool = True, marks: Sequence[str] = (), reason_required: bool = False,
    zone: dt.tzinfo = dt.timezone.utc, reason_lang: str | None = None,
) -> ImportResult:
    """Upsert every record into the session; raises ContentError and changes nothing on bad input.

    `bases` (from the export manifest) says which version each file was exported
    from: a file edited while its record also changed in the database is a conflict
    (ContentError), an unedited stale file keeps the newer stored version (see
    `newsroom.content.manifest`). Without `corrections`, a file that changes an issue published before
    this import, or one of its stories (a story added, moved in or out, edited), is refused as well: such
    a change is a correction readers are shown; with `reason_required` (`newsroom import`), so is one made
    without a `reason`, which readers are shown with it. `marks` go with the fields each revision kept says
    changed (see models.RENAMED); `reason_lang` is the language the reason is written in. Publication times
    in refusals are given in `zone` (the site's), as the workflow gives them. The caller owns the
    transaction: on ContentError it rolls back.
    """
    by_kind = sorted(loaded, key=lambda item: ORDER.index(item.kind))
    unknown = reference_problems(session, by_kind, languages)
    conflicts: list[Diagnostic] = [problem for problems in unknown.values() for problem in problems]
    # A story added to an issue published before this import is a correction readers are shown, as with
    # `story add --correction`; not one whose issue this import itself publishes (or restores).
    published = set(session.scalars(select(Issue.number).where(Issue.status == "published")))
    kept = last_versions(session)  # a record created under a deleted one's key goes on from its versions
    hashes = stored_hashes(session, by_kind)
    result = ImportResult()
    lookups: dict[tuple[str, Any], Any] = {}  # the issues and sections stories are put in, while in the session
    refused: set[str] = set()  # the issues of this import refused (named): their stories wait for them
    for done, item in enumerate(by_kind, 1):
        if (item.kind, item.key, item.location) in unknown:
            continue  # its problems are named: the others' are looked for too (and nothing is kept)
        if item.kind == "story" and str(item.record.get("issue")) in refused:
            continue  # its issue is not stored: the refusal named it, and nothing is kept
        base = (bases or {}).get((item.kind, item.key))
        # The records before it are flushed together every FLUSH_EVERY (below), not one by one before each
        # query of _upsert: none of its queries concerns them (each key is in one file, and the issues and
        # the site are flushed as they are written, as later kinds look them up).
        with session.no_autoflush:
            status = _upsert(session, item, languages, now, author, base[0] if base else None, reason, published,
                             kept, corrections, lookups, marks, hashes, reason_required, zone, reason_lang)
        if item.kind == "site" and (status == "kept" or isinstance(status, Diagnostic)):
            # The stored site stays (init --sample over another publication, or a refused site file): what the
            # others name is looked up in its lists, not in the file's, and each record naming a term it lacks is
            # left out, named.
            lacking = reference_problems(session, [other for other in by_kind if other.kind != "site"], languages,
                                         kept_site=True)
            conflicts += [problem for place, problems in lacking.items() if place not in unknown
                          for problem in problems]
            unknown = {**lacking, **unknown}
        if isinstance(status, Diagnostic):
            conflicts.append(status)
            if item.kind == "issue":
                refused.add(str(item.key))
            continue
        getattr(result, status)[item.kind] += 1
        if status in ("created", "updated"):
            result.stored.add(stored_location(item.kind, item.key))
        if item.kind in ("site", "issue"):
            session.flush()  # later kinds look these up
        if done % FLUSH_EVERY == 0:
            # Written rows stay in the transaction; dropping them from the session keeps memory and
            # each autoflush bounded, so a 100,000-file import does not slow down as it goes.
            session.flush()
            session.expunge_all()
            lookups.clear()
    site = next((item for item in by_kind if item.kind == "site"), None)
    # Not when the stored site was kept: its lists stay whole. (Records left out may use a term.)
    if site is not None and (result.created["site"] or result.updated["site"]) and not unknown:
        conflicts += _drop_unlisted_terms(session, site)
    if conflicts:
        raise ContentError(conflicts)
    return result


def _drop_unlisted_terms(session: Session, site: LoadedRecord | FileRecord) -> list[Diagnostic]:
    """Remove the sections, categories and audiences site.yaml no longer lists (it is the whole list);
    one that a stored record still uses is an error naming them. Run once every record of the import
    is written: the same import may move those records elsewhere."""
    session.flush()
    listed = {(kind, term["slug"]) for field, kind in VOCABULARIES.items() for term in site.references.get(field, [])}
    unlisted = [term for term in session.scalars(select(VocabularyTerm)) if (term.kind, term.slug) not in listed]
    if not unlisted:
        return []
    users: dict[tuple[str, str], set[str]] = {}
    for slug, section, audiences in session.execute(
            select(Story.slug, VocabularyTerm.slug, Story.audiences).join(VocabularyTerm, Story.section_id ==
                                                                         VocabularyTerm.id)):
        for used in [("section", section), *(("audience", audience) for audience in audiences or [])]:
            users.setdefault(used, set()).add(f"story:{slug}")
    for slug, category, affected in session.execute(
            select(Entry.slug, Entry.category, EntryText.affected).join(EntryText, EntryText.entry_id == Entry.id)):
        lines = affected or []
        for used in [("category", category), *(("audience", a) for line in lines for a in line.get("audiences", [])),
                     *(("section", line["section"]) for line in lines if line.get("section"))]:
            users.setdefault(used, set()).add(f"entry:{slug}")
    problems = []
    field = {kind: name for name, kind in VOCABULARIES.items()}
    for term in unlisted:
        using = sorted(users.get((term.kind, term.slug), ()))
        if not using:
            session.delete(term)
            continue
        verb, them = ("uses", "it") if len(using) == 1 else ("use", "them")
        problems.append(Diagnostic(site.location, None, field[term.kind], (
            f"the {term.kind} {term.slug!r} is no longer listed, but {first_of(using)} still {verb} it: list it "
            f"again, or give {them} another {term.kind} first (in the same import if you like)")))
    return problems


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


def _upsert(
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
    if hashes is not None and hashes.get(_table_key(item.kind, item.key)) == digest:
        return "unchanged"  # (a page's kind is in its hash)
    if hashes is not None and _table_key(item.kind, item.key) not in hashes:
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


def former_slugs(session: Session, kind: str) -> dict[str, str]:
    """{former slug: slug} of the entries, the stories, or the reference or site pages, that have former slugs."""
    if kind not in ("entry", "story", "reference", "page"):
        return {}
    query = select(Entry.slug, Entry.formerly) if kind == "entry" else \
        select(Story.slug, Story.formerly) if kind == "story" else \
        select(Page.slug, Page.formerly).where(Page.kind == kind)
    return {former: slug for slug, formerly in session.execute(query) for former in formerly or ()}



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


def _table_key(kind: str, key: str) -> tuple[str, str]:
    """A record's key in its table: reference and site pages share one (and one slug space)."""
    return ("page" if kind == "reference" else kind, key)


def stored_hashes(session: Session, loaded: Sequence[LoadedRecord | FileRecord]) -> dict[tuple[str, str], str]:
    """The content hash stored for each record `loaded` names that the database holds, by `_table_key`:
    a few queries per kind, where asking for each record (with its texts and relations) took most of an
    unchanged import's time (a ten-year archive re-imported: 7,072 records, 25,867 queries)."""
    wanted: dict[str, set[str]] = {}
    for item in loaded:
        if item.kind in _KEYS:
            wanted.setdefault(_table_key(item.kind, item.key)[0], set()).add(item.key)
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
        elif hashes.get(_table_key(item.kind, item.key), item.content_hash) != item.content_hash:
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


def _vocabulary(session: Session, loaded: Sequence[LoadedRecord | FileRecord], partial: Sequence[LoadedRecord]
                ) -> dict[str, set[str] | None]:
    """The slugs of each kind of vocabulary term: the site file's, if among the records, else the stored
    ones; None for every kind when the site file has problems (what it lists is then not known)."""
    if any(item.kind == "site" for item in partial):
        return {"section": None, "category": None, "audience": None}
    site = next((item.references for item in loaded if item.kind == "site"), None)
    if site is not None:
        return {kind: {t["slug"] for t in site.get(field, [])}
                for field, kind in (("sections", "section"), ("categories", "category"), ("audiences", "audience"))}
    vocabulary: dict[str, set[str] | None] = {"section": set(), "category": set(), "audience": set()}
    for term in session.scalars(select(VocabularyTerm).where(VocabularyTerm.kind.in_(vocabulary))):
        vocabulary[term.kind].add(term.slug)  # type: ignore[union-attr]
    return vocabulary


def reference_problems(session: Session, loaded: Sequence[LoadedRecord | FileRecord], languages: tuple[str, ...],
                       partial: Sequence[LoadedRecord] = (), kept_site: bool = False
                       ) -> dict[tuple[str, str, str], list[Diagnostic]]:
    """The records that point at a section, category, audience or issue that does not exist, each with
    those problems placed in its file, at its field's line; by (kind, key, location). `partial` are records
    of files with problems of their own, as far as their fields are valid: checked too, and what they
    leave unknown (the site's lists, an issue's number) is not held against the others. With `kept_site`,
    the stored site was kept instead of the site file of the import, and the messages say so."""
    every = [*loaded, *partial]
    vocabulary = _vocabulary(session, loaded, partial)
    numbers = {item.references.get("number") for item in every if item.kind == "issue"}
    # An issue file whose number is not valid (named already) may be that of any story.
    issues = None if None in numbers else numbers | set(session.scalars(select(Issue.number)))
    found: dict[tuple[str, str, str], list[Diagnostic]] = {}

    def need(item: LoadedRecord | FileRecord, field: str, value: Any, known: set[Any] | None, what: str) -> None:
        if value is not None and known is not None and value not in known:
            listed = ", ".join(sorted(map(str, known))) or "none defined"
            if what != "issue number":
                listed += f" ({where_listed(what)})"
            kept = ": the site stored here is kept, and it has none such" if kept_site and what != "issue number" \
                else ""
            found.setdefault((item.kind, item.key, item.location), []).append(Diagnostic(
                stored_location(item.kind, item.key), None, field, f"unknown {what} {value!r}{kept}; known: {listed}"))

    for item in every:
        record = item.references
        if item.kind == "story":
            need(item, "section", record.get("section"), vocabulary["section"], "section")
            need(item, "issue", record.get("issue"), issues, "issue number")
            for i, audience in enumerate(record.get("audiences", [])):
                need(item, f"audiences[{i}]", audience, vocabulary["audience"], "audience")
        elif item.kind == "entry":
            need(item, "category", record.get("category"), vocabulary["category"], "category")
            for lang in languages:
                for i, line in enumerate(record.get(lang, {}).get("affected", [])):
                    for j, audience in enumerate(line.get("audiences", [])):
                        need(item, f"{lang}.affected[{i}].audiences[{j}]", audience, vocabulary["audience"],
                             "audience")
                    if "section" in line:
                        need(item, f"{lang}.affected[{i}].section", line["section"], vocabulary["section"],
                             "section")
    # Each in its file, at its field's line (placed per record: those of partial files may share a key).
    return {place: in_files(problems, [item]) for item in every
            if (problems := found.get(place := (item.kind, item.key, item.location)))}
