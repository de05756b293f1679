"""Importing validated records: upsert by stable id, in one transaction, with counts."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from glossary.models import Entry, EntryText
from issues.models import Issue, Story
from newsroom.content.manifest import Base
from newsroom.content.reader import FileRecord, LoadedRecord, in_files
from newsroom.content.records import VOCABULARIES, where_listed
from newsroom.content.stored import stored_hashes
from newsroom.content.upsert import upsert
from newsroom.diagnostics import ContentError, Diagnostic, first_of, stored_location
from newsroom.models import VocabularyTerm, last_versions

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
    #: The other warnings the import brought to records it did not store (those of its files that changed
    #: nothing, in their files), as `newsroom check` newly finds them: a story linking to an entry made a draft.
    elsewhere: list[Diagnostic] = field(default_factory=list)

    def summary(self) -> str:
        total = lambda c: sum(c.values())  # noqa: E731
        kept = f", {total(self.kept)} kept (newer in the database)" if self.kept else ""
        gone = f", {total(self.gone)} left out (deleted in the database since the export)" if self.gone else ""
        deleted = f", {total(self.deleted)} deleted (their files were removed)" if self.deleted else ""
        return (f"{total(self.created)} created, {total(self.updated)} updated, {total(self.unchanged)} unchanged"
                f"{kept}{gone}{deleted}")


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
        # query of upsert: none of its queries concerns them (each key is in one file, and the issues and
        # the site are flushed as they are written, as later kinds look them up).
        with session.no_autoflush:
            status = upsert(session, item, languages, now, author, base[0] if base else None, reason, published,
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
