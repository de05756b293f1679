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
from newsroom.content.importer import canonical
from newsroom.content.records import page_to_record, site_to_record
from newsroom.content.yamlio import dump
from newsroom.models import Page


def exported_files(session: Session, languages: tuple[str, ...]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(relative path, canonical record) for every stored record, in a stable order."""
    site = site_to_record(session)
    if site is not None:
        yield "site.yaml", site
    entries = session.scalars(select(Entry).order_by(Entry.slug).options(
        selectinload(Entry.texts), selectinload(Entry.relations)))
    for entry in entries:
        yield f"entries/{entry.slug}.yaml", entry_to_record(entry)
    for page in session.scalars(select(Page).order_by(Page.slug).options(selectinload(Page.texts))):
        folder = "reference" if page.kind == "reference" else "pages"
        yield f"{folder}/{page.slug}.yaml", page_to_record(page)
    for issue in session.scalars(select(Issue).order_by(Issue.number).options(selectinload(Issue.texts))):
        yield f"issues/{issue.number:04d}.yaml", issue_to_record(issue)
    stories = session.scalars(select(Story).order_by(Story.slug).options(
        selectinload(Story.texts), selectinload(Story.issue), selectinload(Story.section)))
    for story in stories:
        yield f"stories/{story.slug}.yaml", story_to_record(story)


def export_all(session: Session, out: Path, languages: tuple[str, ...]) -> int:
    """Write every record under `out`; returns the number of files written."""
    count = 0
    for relative, record in exported_files(session, languages):
        path = out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        text = dump(canonical(record, languages, relative))
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        count += 1
    return count
