"""Exporting every record to content files: the editors' format and the backup format."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from glossary.models import Entry
from glossary.records import entry_to_record
from issues.models import Issue, Story
from issues.records import issue_to_record, story_to_record
from newsroom.content import manifest
from newsroom.content.reader import read_text, record_hash, record_key, validate_text
from newsroom.content.records import page_to_record, site_to_record
from newsroom.content.stored import canonical, former_slugs
from newsroom.content.yamlio import dump
from newsroom.diagnostics import ContentError
from newsroom.models import Page


def exported_files(
    session: Session, languages: tuple[str, ...],
) -> Iterator[tuple[str, dict[str, Any], int | None]]:
    """(relative path, record, version) for every stored record, in a stable order (site: no version)."""
    site = site_to_record(session)
    if site is not None:
        yield "site.yaml", site, None
    entries = session.scalars(select(Entry).order_by(Entry.slug).options(
        selectinload(Entry.texts), selectinload(Entry.relations)))
    for entry in entries:
        yield f"entries/{entry.slug}.yaml", entry_to_record(entry), entry.version
    for page in session.scalars(select(Page).order_by(Page.slug).options(selectinload(Page.texts))):
        folder = "reference" if page.kind == "reference" else "pages"
        yield f"{folder}/{page.slug}.yaml", page_to_record(page), page.version
    for issue in session.scalars(select(Issue).order_by(Issue.number).options(selectinload(Issue.texts))):
        yield f"issues/{issue.number:04d}.yaml", issue_to_record(issue), issue.version
    stories = session.scalars(select(Story).order_by(Story.slug).options(
        selectinload(Story.texts), selectinload(Story.issue), selectinload(Story.section)))
    for story in stories:
        yield f"stories/{story.slug}.yaml", story_to_record(story), story.version


@dataclass
class Exported:
    """What an export did: the files it wrote (or found up to date), and the files of an earlier export
    whose records are gone since (deleted, or renamed)."""

    files: int = 0
    removed: list[str] = field(default_factory=list)  # unchanged since that export: deleted with their record
    kept: list[str] = field(default_factory=list)  # edited since: left for you to look at
    renamed: dict[str, str] = field(default_factory=dict)  # of those kept, each renamed record's location now


def export_all(session: Session, out: Path, languages: tuple[str, ...]) -> Exported:
    """Write every record under `out`, and the manifest of their versions.

    A file an earlier export wrote (its manifest says so) whose record is gone is removed when it is
    still as exported, so importing the folder does not bring the record back; an edited one is kept.
    """
    result = Exported()
    try:
        earlier = manifest.read(out)
    except ContentError:
        earlier = {}  # written anew below; the files of records deleted since stay, as with no manifest
    bases: dict[str, manifest.Base] = {}
    for relative, record, version in exported_files(session, languages):
        path = out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        valid = canonical(record, languages, relative)
        text = dump(valid)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        # The site file has no versions: its base is its hash alone (version 0), which is all the import's
        # three-way comparison of it needs.
        bases[relative] = manifest.Base(valid["kind"], record_key(valid["kind"], valid), version or 0,
                                        record_hash(valid))
        result.files += 1
    out.mkdir(parents=True, exist_ok=True)
    renamed: dict[str, dict[str, str]] = {}  # per kind, {former slug: slug}, asked once a kept file needs it
    for relative, base in sorted(earlier.items()):
        path = out / relative
        if relative in bases or not path.is_file():
            continue
        if _as_exported(path, base, languages):
            path.unlink()
            result.removed.append(relative)
        else:
            result.kept.append(relative)
            if base.kind not in renamed:
                renamed[base.kind] = former_slugs(session, base.kind)
            now = renamed[base.kind].get(base.key)
            if now is not None:
                result.renamed[relative] = f"{base.kind}:{now}"
    manifest.write(out, bases)
    return result


def _as_exported(path: Path, base: manifest.Base, languages: tuple[str, ...]) -> bool:
    """Whether the file still holds the record `base` describes (a file that no longer reads is not)."""
    try:
        return validate_text(read_text(path, str(path)), str(path), languages).content_hash == base.content_hash
    except ContentError:
        return False
