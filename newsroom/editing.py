"""Edit sessions on one record, safe against a second editor: optimistic locking on `version`.

An editor loads a record with its version, changes it, and saves it with the
version they started from. If the record changed in between, the save raises
`Conflict` naming the fields the other change touched, and stores nothing: two
editors never silently overwrite each other. The check is made twice: once by
comparing versions before writing (which yields the clear message), and once by
the database itself, because every UPDATE of a versioned row carries
`WHERE version = <expected>` (SQLAlchemy's `version_id_col`), so a change that
commits between the check and the write still cannot be overwritten.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from issues.models import Story
from issues.revisions import Change
from issues.stories import close_up, removal_problems
from newsroom.checks.changes import all_problems, buildable
from newsroom.content.importer import ImportResult, import_records, reference_problems
from newsroom.content.manifest import Base
from newsroom.content.reader import FileRecord, LoadedRecord, in_files, record_hash, record_key
from newsroom.content.renaming import LINK_KINDS
from newsroom.content.schema import TEXTUAL, as_written, field_at
from newsroom.content.stored import MODELS, canonical, changed_fields, former_slugs, record_query
from newsroom.content.validator import Validator
from newsroom.content.yamlio import dotted, parse, plain
from newsroom.db.session import busy
from newsroom.diagnostics import ContentError, Diagnostic, first_of, in_report_order, place_order
from newsroom.models import DELETED, Revision, revision_kinds
from newsroom.settings import Settings

#: Kinds an edit session can open, in the order a bare key is looked up.
KINDS = ("entry", "story", "reference", "page", "issue")

#: What `edit`, `history`, `delete` and `rename` say of `site`: the site file is no record they open, and an
#: editor looking for its history should learn that none is kept rather than that it does not exist.
SITE_FILE = ("'site' is the site file (site.yaml: the publication's name, tagline, sections, categories, "
             "audiences and tag names), which changes only by `newsroom import site.yaml` (`newsroom export OUT` "
             "writes the stored one to edit); its earlier versions are not kept, so it has no history here: keep "
             "site.yaml under version control to have one")


@dataclass(frozen=True)
class Loaded:
    """A record as an editor starts from it: its canonical content and the version it had."""

    kind: str
    key: str
    version: int
    record: dict[str, Any]
    #: When the current version was stored (for a record never changed, and made before creations were
    #: recorded, the one trace of when it was made).
    stored_at: dt.datetime | None = None


class NotFound(LookupError):
    """No record (or more than one, across kinds) answers to the key."""


class Ambiguous(NotFound):
    """Records of several kinds answer to the key."""


class Conflict(Exception):
    """The record changed since the version the editor started from; nothing was stored."""

    def __init__(self, kind: str, key: str, expected: int, current: int | None, changed: list[str],
                 changed_by: str | None = None) -> None:
        self.kind, self.key, self.expected, self.current = kind, key, expected, current
        self.changed, self.changed_by = changed, changed_by
        now = f"it is now version {current}" if current is not None else "it changed while saving"
        who = f" (last change by {changed_by})" if changed_by else ""
        fields = f"; changed since: {', '.join(changed)}" if changed else ""
        super().__init__(f"{kind} {key!r}: you started from version {expected}, {now}{who}{fields}. "
                         "Nothing was saved: load it again and reapply your change.")


def find_kind(session: Session, key: str) -> str:
    """The one kind that has a record with this key; NotFound when none or several do."""
    found = [kind for kind in KINDS if (kind != "issue" or key.isdigit())
             and session.scalars(record_query(kind, key)).one_or_none() is not None]
    if not found and key == "site":
        raise NotFound(SITE_FILE)
    if not found:
        raise NotFound(f"no entry, story, page or issue {key!r}{_renamed_hint(session, key)}")
    if len(found) > 1:
        named = " and ".join(f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}" for kind in found)
        raise Ambiguous(f"{key!r} names {named}: say which, as {found[0]}:{key} or with --kind")
    return found[0]


def _renamed_hint(session: Session, key: str, kind: str | None = None) -> str:
    """"; entry:graphics-processor had that slug before", when a record (of `kind`) was renamed from `key`."""
    kinds = [kind] if kind in RENAMED_KINDS else list(RENAMED_KINDS) if kind is None else []
    found = [f"{kind}:{slug}" for kind in kinds if (slug := former_slugs(session, kind).get(key)) is not None]
    return f"; {' and '.join(found)} had that slug before" if found else ""


def load(session: Session, kind: str, key: str, languages: tuple[str, ...]) -> Loaded:
    """The record `kind`/`key` with its current version, as read from the database now."""
    if kind == "issue" and not key.isdigit():
        raise NotFound(f"an issue is named by its number, not {key!r}")
    row = session.scalars(record_query(kind, key).execution_options(populate_existing=True)).one_or_none()
    if row is None:
        raise NotFound(f"no {kind} {key!r}{_renamed_hint(session, key, kind)}")
    return Loaded(kind, key, row.version, canonical(MODELS[kind][1](row), languages, f"{kind}:{key}"),
                  row.updated_at)


def save(session: Session, loaded: Loaded, record: dict[str, Any], languages: tuple[str, ...],
         now: dt.datetime, author: str, reason: str | None = None, reason_lang: str | None = None) -> int:
    """Store `record` as the next version of `loaded`; returns the new version.

    Raises Conflict when the record is no longer at `loaded.version`, ContentError
    when `record` is not valid; in both cases nothing is stored (the caller rolls back).
    """
    if record.get("kind") != loaded.kind:  # said first: as another kind, every field would be unknown
        raise ContentError([record_problem(loaded, "an edit cannot change a record's kind or key")])
    location = f"{loaded.kind}:{loaded.key}"
    validator = Validator(location, {}, languages)
    valid = validator.record(record)
    if validator.problems or valid is None:
        # With what it names that does not exist (a section, a category), as far as its fields are valid:
        # an import names them together too.
        partial = [LoadedRecord(loaded.kind, loaded.key, valid, location)] if valid is not None else []
        unknown = reference_problems(session, [], languages, partial)
        raise ContentError([*validator.problems, *(problem for found in unknown.values() for problem in found)])
    if valid["kind"] != loaded.kind or record_key(loaded.kind, valid) != loaded.key:
        raise ContentError([record_problem(loaded, "an edit cannot change a record's kind or key")])
    current = load(session, loaded.kind, loaded.key, languages)
    if current.version != loaded.version:
        raise conflict(session, loaded, current, languages)
    if record_hash(valid) == record_hash(current.record):
        return current.version
    item = LoadedRecord(loaded.kind, loaded.key, valid, f"{loaded.kind}:{loaded.key}")
    try:
        import_records(session, [item], languages, now, author, reason=reason, reason_lang=reason_lang)
        session.flush()
    except StaleDataError:
        raise Conflict(loaded.kind, loaded.key, loaded.version, None, []) from None
    except OperationalError as error:
        # SQLite refuses to upgrade a read snapshot that another writer has moved past.
        if not busy(error):
            raise
        raise Conflict(loaded.kind, loaded.key, loaded.version, None, []) from None
    return loaded.version + 1


def import_checked(session: Session, loaded: Sequence[LoadedRecord | FileRecord], settings: Settings,
                   now: dt.datetime, author: str = "import",
                   bases: Mapping[tuple[str, str], tuple[Base, str]] | None = None, reason: str | None = None,
                   fix: str = "fix and import again", corrections: bool = True, checked: bool = True,
                   reason_required: bool = False, reason_lang: str | None = None) -> ImportResult:
    """Import `loaded` (see import_records) unless that gives the content an error that stops every build
    (see `buildable`): then ContentError naming each error in its file, at its field's line; nothing stored.
    The warnings of the records it stored are the result's `warnings`, placed so too. Not `checked`:
    imported as it is (a backup restored as it was), with no warnings."""
    def store() -> ImportResult:
        return import_records(session, loaded, settings.languages, now, author, bases=bases, reason=reason,
                              corrections=corrections, reason_required=reason_required, zone=settings.zone,
                              reason_lang=reason_lang)

    if not checked:
        return store()
    try:
        result, warnings = buildable(session, store, lambda result: result.stored, settings, now, fix,
                                     publishable=True)
    except ContentError as error:
        raise ContentError(in_files(error.diagnostics, loaded), error.advice) from None
    result.warnings = in_files(warnings, loaded)
    return result


def delete(session: Session, loaded: Loaded, settings: Settings, now: dt.datetime, author: str,
           reason: str | None = None, correction: bool = False, reason_lang: str | None = None) -> list[Diagnostic]:
    """Delete the record `loaded` names; returns the warnings the deletion gives other records.

    Its last version is kept as a revision marked "deleted": `newsroom history` lists it and prints it
    back as a content file, which `newsroom import` brings back. Refused (ContentError, nothing changed)
    when the record is no longer at `loaded.version` (Conflict), when the workflow keeps it (a story of a
    published issue goes only as a correction; an issue only as an empty draft), and when the deletion
    would give any record an error `newsroom check` reports: a story naming a deleted entry among its
    terms, a text linking to it. A relation to a deleted entry is shown as plain text: a warning.
    """
    return delete_all(session, [loaded], settings, now, author, reason, correction, reason_lang)


def delete_all(session: Session, records: list[Loaded], settings: Settings, now: dt.datetime, author: str,
               reason: str | None = None, correction: bool = False, reason_lang: str | None = None
               ) -> list[Diagnostic]:
    """Delete every record of `records` at once, as `delete` deletes one (the content is checked once
    before and once after, whatever their number); all or none."""
    rows = []
    going = {loaded.key for loaded in records if loaded.kind == "story"}
    for loaded in sorted(records, key=lambda r: r.kind == "issue"):  # an issue after its stories
        current = load(session, loaded.kind, loaded.key, settings.languages)
        if current.version != loaded.version:
            raise conflict(session, loaded, current, settings.languages)
        row = session.scalars(record_query(loaded.kind, loaded.key)).one()
        refusals = removal_problems(row, f"{loaded.kind}:{loaded.key}", correction, going, reason)
        if refusals:
            raise ContentError(refusals)
        rows.append((current, row))
    if not rows:
        return []
    today = now.astimezone(settings.zone).date()
    before = all_problems(session, settings, today)
    deletion = session.begin_nested()
    for current, row in rows:
        session.add(Revision(record_kind=current.kind, record_key=current.key, version=current.version,
                             snapshot=current.record, changed_fields=[DELETED], changed_by=author, changed_at=now,
                             reason=reason, reason_lang=reason_lang if reason else None))
        session.delete(row)
        if isinstance(row, Story):
            session.flush()
            close_up(session, Change(author, now, settings.languages, reason, reason_lang), row)
    added = all_problems(session, settings, today) - before
    errors = in_report_order(problem for problem in added if problem.severity == "error")
    if errors:
        deletion.rollback()
        names = sorted({problem.location for problem in errors}, key=place_order)
        shown = first_of(names)
        first, *others = [f"{current.kind}:{current.key}" for current, _ in rows]
        they = f"with {first_of(others)}, they are" if others else "it is"
        raise ContentError([Diagnostic(first, None, "", (
            f"not deleted: {they} used by {shown}, which would then have the error{'s' if len(errors) > 1 else ''} "
            f"named here; change {'those' if len(names) > 1 else 'that'} first")), *errors])
    deletion.commit()
    return in_report_order(problem for problem in added if problem.severity == "warning")


#: The kinds of record `rename` renames: those with a page of their own at an address made of the slug, and
#: stories, whose slug is their anchor on their issue's pages.
RENAMED_KINDS = (*LINK_KINDS, "story")


def deleted(session: Session, key: str, kind: str | None = None) -> tuple[str, list[Revision]] | None:
    """(kind, kept versions) of a record deleted under `key` (of `kind`, or any kind), the latest
    deletion's; None when no record by that key was deleted."""
    query = select(Revision).where(Revision.record_key == key).order_by(Revision.id)
    if kind is not None:
        query = query.where(Revision.record_kind == kind)
    revisions = list(session.scalars(query))
    last = next((r for r in reversed(revisions) if DELETED in r.changed_fields), None)
    if last is None:
        return None
    return last.record_kind, history(session, last.record_kind, key)


def record_problem(loaded: Loaded, message: str) -> Diagnostic:
    """A refusal of a change to the record `loaded`, at the record (`entry:gpu: message`)."""
    return Diagnostic(f"{loaded.kind}:{loaded.key}", None, "", message)


def conflict(session: Session, loaded: Loaded, current: Loaded, languages: tuple[str, ...]) -> Conflict:
    """A Conflict naming what changed between the editor's version and the stored one."""
    revisions = history(session, loaded.kind, loaded.key)
    base = next((r for r in revisions if r.version == loaded.version), None)
    changed = changed_fields(base.snapshot, current.record, languages) if base is not None else []
    latest = revisions[-1].changed_by if revisions else None
    return Conflict(loaded.kind, loaded.key, loaded.version, current.version, changed, latest)


def history(session: Session, kind: str, key: str) -> list[Revision]:
    """The kept previous versions of a record, oldest first."""
    kinds = revision_kinds(kind)
    return list(session.scalars(select(Revision).where(
        Revision.record_kind.in_(kinds), Revision.record_key == key).order_by(Revision.version, Revision.id)))


def assign(record: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of `record` with the dotted field `path` (e.g. `en.headline`, `level`, `sources[0].url`) set to
    `value`; an index names an item of a list there is (ValueError, saying how many, when there is none).

    `None` removes the field (or the item). Validation happens when the record is saved.
    """
    out = _copy(record)
    steps = field_path(path)
    target: Any = out
    for done, (step, following) in enumerate(zip(steps, steps[1:]), 1):
        child = _item(target, step, steps[:done - 1], path) if isinstance(step, int) else target.get(step)
        if isinstance(following, int) and not isinstance(child, list):
            raise ValueError(f"{dotted(tuple(steps[:done]))} is no list here: {path!r} names an item of it")
        if not isinstance(child, (dict, list)):
            child = {}
            target[step] = child
        target = child
    last = steps[-1]
    if isinstance(last, int):
        _item(target, last, steps[:-1], path)
        if value is None:
            del target[last]
        else:
            target[last] = value
    elif value is None:
        target.pop(last, None)
    else:
        target[last] = value
    return out


def field_path(path: str) -> list[str | int]:
    """The steps of the dotted field `path`: `sources[0].url` is ["sources", 0, "url"]; ValueError if none."""
    steps: list[str | int] = []
    for part in path.split("."):
        match = re.fullmatch(r"([^\[\]]+)((?:\[[0-9]+\])*)", part)
        if match is None:
            raise ValueError(f"{path!r}: expected a field's dotted name, e.g. en.headline or sources[0].url")
        steps += [match[1], *(int(index) for index in re.findall(r"[0-9]+", match[2]))]
    return steps


def typed_value(kind: str, path: str, text: str, languages: tuple[str, ...]) -> Any:
    """The value `edit --set path=text` gives the field `path` of a record of `kind`, read as a content file's
    value is: a list or a mapping (`[…]`, `{…}`) as YAML (ContentError when it is not valid YAML), any other
    text as one plain value. A text field takes it as written (`2026-11-05`, `1.50`, `yes`; see
    Validator.written), another field as YAML reads it (`3`, `2026-11-05`); empty, `~` or `null` is None,
    which removes the field. ValueError for a path that names no field."""
    steps = tuple(field_path(path))
    stripped = text.strip()
    if not stripped:
        return None
    spec = field_at(kind, steps, languages)
    if stripped[0] in "[{":
        written: dict[Any, str] = {}
        value, _ = parse(stripped, "--set", written)  # as content files are read (no aliases, no duplicate keys)
        return as_written(value, spec, written, languages)
    value = plain(stripped)
    return text if value is not None and spec is not None and spec.type in TEXTUAL else value


def _item(items: list[Any], index: int, where: list[str | int], path: str) -> Any:
    """Item `index` of the list at `where`; ValueError saying how many there are when there is none."""
    if index >= len(items):
        raise ValueError(f"{dotted(tuple(where))} has {len(items)} item{'s' if len(items) != 1 else ''} (counted from "
                         f"0): {path!r} names none of them")
    return items[index]



def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value
