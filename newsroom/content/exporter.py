"""Exporting every record to content files: the editors' format and the backup format."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from glossary.models import Entry
from glossary.records import entry_to_record
from issues.models import Issue, Story
from issues.records import issue_to_record, story_to_record
from newsroom.content import manifest
from newsroom.content.importer import canonical
from newsroom.content.reader import record_hash, record_key
from newsroom.content.records import page_to_record, site_to_record
from newsroom.content.yamlio import dump
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


def export_all(session: Session, out: Path, languages: tuple[str, ...]) -> int:
    """Write every record under `out`, and the manifest of their versions; returns the number of files."""
    count = 0
    bases: dict[str, manifest.Base] = {}
    for relative, record, version in exported_files(session, languages):
        path = out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        valid = canonical(record, languages, relative)
        text = dump(valid)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        if version is not None:
            bases[relative] = manifest.Base(valid["kind"], record_key(valid["kind"], valid), version,
                                            record_hash(valid))
        count += 1
    out.mkdir(parents=True, exist_ok=True)
    manifest.write(out, bases)
    return count
