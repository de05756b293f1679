"""Writing an issue or story record the way `newsroom import` does: canonical, hashed, with history.

Every write from the command line goes through `write_issue` / `write_story`:
the new record is validated into canonical form (the same validator as
content files), its `content_hash` is the hash of that record, and a change
to an existing record stores the previous version as a `Revision` naming who
changed which fields and why. So export → import after any CLI edit finds
nothing to change.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from issues.models import Issue, Story
from issues.records import apply_issue, apply_story, issue_to_record, story_to_record
from newsroom.content.reader import record_hash
from newsroom.content.stored import canonical, changed_fields
from newsroom.models import (Revision, VocabularyTerm, continue_versions, created_fields, history_key,
                             last_versions)


@dataclass(frozen=True)
class Change:
    """Who makes a change, when, and (for corrections) why."""

    editor: str
    now: dt.datetime
    languages: tuple[str, ...]
    reason: str | None = None
    reason_lang: str | None = None  # the language `reason` is written in (None: the site's first)


def _write(session: Session, row: Any, kind: str, key: str, record: dict[str, Any], change: Change,
           to_record: Callable[[Any], dict[str, Any]], apply: Callable[[dict[str, Any]], None],
           in_published_issue: bool = False) -> bool:
    """Validate, compare, keep history (a new record's creation too: `in_published_issue` for a story added to
    a published issue, a correction of it), apply; returns True when something changed."""
    location = f"{kind}:{key}"
    record = canonical(record, change.languages, location, stored=False)
    digest = record_hash(record)
    created = row.id is None
    if not created:
        if row.content_hash == digest:
            return False
        previous = canonical(to_record(row), change.languages, location)
        session.add(Revision(record_kind=kind, record_key=key, version=row.version, snapshot=previous,
                             changed_fields=changed_fields(previous, record, change.languages),
                             changed_by=change.editor, changed_at=change.now, reason=change.reason,
                             reason_lang=change.reason_lang))
    else:  # when and by whom it was made: `history` dates version 1 by it
        session.add(Revision(record_kind=kind, record_key=key, version=0, snapshot={},
                             changed_fields=created_fields(kind, in_published_issue), changed_by=change.editor,
                             changed_at=change.now, reason=change.reason, reason_lang=change.reason_lang))
    apply(record)
    row.content_hash = digest
    row.updated_at = change.now
    session.add(row)
    session.flush()
    if created:
        continue_versions(session, row, kind, key, last_versions(session, kind, key).get(history_key(kind, key)))
    return True


def write_issue(session: Session, issue: Issue, record: dict[str, Any], change: Change) -> bool:
    """Store `record` (an issue record, as in a content file) into `issue`."""
    return _write(session, issue, "issue", str(record.get("number")), {**record, "kind": "issue"}, change,
                  issue_to_record, lambda canonical_record: apply_issue(issue, canonical_record, change.languages))


def write_story(session: Session, story: Story, record: dict[str, Any], change: Change, issue: Issue,
                section: VocabularyTerm) -> bool:
    """Store `record` (a story record) into `story`."""
    return _write(session, story, "story", str(record.get("slug")), {**record, "kind": "story"}, change,
                  story_to_record,
                  lambda canonical_record: apply_story(story, canonical_record, change.languages, issue, section),
                  issue.status == "published")


def current_issue_record(issue: Issue, languages: tuple[str, ...]) -> dict[str, Any]:
    return canonical(issue_to_record(issue), languages, f"issue:{issue.number}")


def current_story_record(story: Story, languages: tuple[str, ...]) -> dict[str, Any]:
    return canonical(story_to_record(story), languages, f"story:{story.slug}")
