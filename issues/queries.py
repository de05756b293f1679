"""Queries about issues and stories: each returns a `select()` or takes the session explicitly."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row, Select, func, select
from sqlalchemy.orm import Session, selectinload

from issues.models import Issue, Story
from newsroom.models import CREATED, DELETED, RENAMED, UNPUBLISHED, Revision, VocabularyTerm


def issue_by_number(number: int) -> Select[Issue]:
    return select(Issue).where(Issue.number == number).options(
        selectinload(Issue.texts), selectinload(Issue.stories).selectinload(Story.texts),
        selectinload(Issue.stories).selectinload(Story.section))


def overlapping_issues(start: dt.date, end: dt.date) -> Select[Issue]:
    """Issues whose week shares at least one day with start–end."""
    return select(Issue).where(Issue.week_start <= end, Issue.week_end >= start).order_by(Issue.number)


def next_number(session: Session) -> int:
    return (session.scalar(select(func.max(Issue.number))) or 0) + 1


@dataclass(frozen=True)
class IssueLine:
    """One issue as `issue list` shows it."""

    number: int
    week_start: dt.date
    week_end: dt.date
    status: str
    published_at: dt.datetime | None
    titles: Mapping[str, str]  # {language: title}, the languages that have one
    stories: int
    corrections: int


def issue_lines(session: Session, status: str | None = None) -> list[IssueLine]:
    """Every issue (or those of one `status`), newest first, in four queries whatever their number."""
    query = select(Issue).options(selectinload(Issue.texts)).order_by(Issue.number.desc())
    if status is not None:
        query = query.where(Issue.status == status)
    issues = session.scalars(query).all()
    stories = dict(session.execute(select(Story.issue_id, func.count()).group_by(Story.issue_id)).all())
    corrected = all_corrections(session) if any(issue.status == "published" for issue in issues) else {}
    return [IssueLine(issue.number, issue.week_start, issue.week_end, issue.status, issue.published_at,
                      {text.lang: text.title for text in issue.texts if text.title}, stories.get(issue.id, 0),
                      len(corrected.get(issue.number, ()))) for issue in issues]


def story_by_slug(slug: str) -> Select[Story]:
    return select(Story).where(Story.slug == slug).options(
        selectinload(Story.texts), selectinload(Story.issue), selectinload(Story.section))


def sections() -> Select[VocabularyTerm]:
    """The site's sections in their configured order."""
    return select(VocabularyTerm).where(VocabularyTerm.kind == "section").order_by(VocabularyTerm.position).options(
        selectinload(VocabularyTerm.names))


def slug_taken(session: Session, slug: str) -> bool:
    return (session.scalar(select(func.count()).select_from(Story).where(Story.slug == slug)) or 0) > 0


#: `changed_fields` of a published issue's correction that moved one of its stories to another issue.
MOVED = "moved"
#: … and of the published issue a story was moved into from another issue.
MOVED_IN = "moved in"


@dataclass(frozen=True)
class Correction:
    """A recorded change to a published issue or one of its stories."""

    record_kind: str  # "issue" | "story"
    record_key: str
    changed_at: dt.datetime
    changed_by: str
    changed_fields: tuple[str, ...]
    reason: str | None
    #: The language `reason` is written in (None: the site's first, as for a reason recorded before it was said).
    reason_lang: str | None = None
    #: A story deleted from the published issue or moved out of it: its headline in each language, as
    #: readers last saw it there.
    removed: Mapping[str, str] | None = None


def corrections(session: Session, number: int) -> list[Correction]:
    """Changes made to issue `number` or its stories after it was published, oldest first."""
    return all_corrections(session, number).get(number, [])


def all_corrections(session: Session, number: int | None = None) -> dict[int, list[Correction]]:
    """{issue number: corrections} for published issues that have any, in three queries.

    The publication moment is when the revision that made an issue "published"
    was written (so a back-dated publication time does not turn the publishing
    itself into a correction); issues imported as published use their
    publication time. Any change to the issue record once it is published counts.
    A change to a story counts for the issue it was in (its revision's snapshot says which) and for the
    one it moved to or was added to: a story moved out of a published issue, or deleted, is listed there.
    """
    # Plain rows, not ORM objects: a build reads every revision of every issue and story (thousands), and
    # making objects of them, kept in the session's identity map, cost it more than the rest of this.
    query = select(Issue.number, Issue.published_at).where(Issue.status == "published").order_by(Issue.number)
    if number is not None:
        query = query.where(Issue.number == number)
    issues = {issue.number: issue for issue in session.execute(query)}
    if not issues:
        return {}
    current = dict(session.execute(select(Story.slug, Issue.number).join(Issue, Story.issue_id == Issue.id)).all())
    revisions = session.execute(select(*_REVISION_COLUMNS).where(Revision.record_kind.in_(("issue", "story")))
                                .order_by(Revision.id)).all()
    issue_revisions: dict[int, list[Row[Any]]] = {}
    of_story: dict[str, list[Row[Any]]] = {}
    for revision in revisions:
        if UNPUBLISHED in revision.changed_fields:
            continue  # a story's creation before readers saw its issue
        if revision.record_kind == "story":
            of_story.setdefault(revision.record_key, []).append(revision)
        elif revision.record_key.isdigit() and int(revision.record_key) in issues:
            issue_revisions.setdefault(int(revision.record_key), []).append(revision)
    story_revisions: dict[int, list[tuple[Row[Any], str | None]]] = {}  # (revision, MOVED/MOVED_IN or None)
    for slug, kept in of_story.items():
        for i, revision in enumerate(kept):
            before = revision.snapshot.get("issue")  # None for a "created" mark
            after = None if DELETED in revision.changed_fields else (
                kept[i + 1].snapshot.get("issue") if i + 1 < len(kept) else current.get(slug))
            moved = after is not None and before is not None and after != before
            if before in issues:
                story_revisions.setdefault(before, []).append((revision, MOVED if moved else None))
            if after != before and after in issues:
                story_revisions.setdefault(after, []).append((revision, MOVED_IN if moved else None))
    found: dict[int, list[Correction]] = {}
    for issue in issues.values():
        items = _after_publication(issue, issue_revisions.get(issue.number, []),
                                   story_revisions.get(issue.number, []))
        if items:
            found[issue.number] = items
    return dict(sorted(found.items()))


#: What `all_corrections` reads of a revision.
_REVISION_COLUMNS = (Revision.record_kind, Revision.record_key, Revision.snapshot, Revision.changed_fields,
                     Revision.changed_at, Revision.changed_by, Revision.reason, Revision.reason_lang)


def _after_publication(issue: Row[Any], issue_revisions: list[Row[Any]],
                       story_revisions: list[tuple[Row[Any], str | None]]) -> list[Correction]:
    """The corrections of `issue` (its number and publication time) from the revisions of it and its stories."""
    # An issue stored as published without its time (before the content files were checked for it;
    # `check` names it): published, as far as corrections go, when a revision last made it so.
    published_from = issue.published_at or dt.datetime.min.replace(tzinfo=dt.timezone.utc)
    for revision in issue_revisions:
        if CREATED not in revision.changed_fields and revision.snapshot.get("status") != "published":
            published_from = max(published_from, revision.changed_at)
    items = [Correction(r.record_kind, r.record_key, r.changed_at, r.changed_by, tuple(r.changed_fields), r.reason,
                        r.reason_lang)
             for r in issue_revisions if r.snapshot.get("status") == "published" and RENAMED not in r.changed_fields]
    for r, moved in story_revisions:
        if r.changed_at > published_from and (moved or RENAMED not in r.changed_fields):
            gone = moved == MOVED or DELETED in r.changed_fields
            items.append(Correction(r.record_kind, r.record_key, r.changed_at, r.changed_by,
                                    (moved,) if moved else tuple(r.changed_fields), r.reason, r.reason_lang,
                                    _headlines(r.snapshot) if gone else None))
    return sorted(items, key=lambda c: (c.changed_at, c.record_kind, c.record_key))


def _headlines(snapshot: Mapping[str, object]) -> dict[str, str]:
    """{language: headline} of a story record."""
    return {lang: str(block["headline"]) for lang, block in snapshot.items()
            if isinstance(block, dict) and block.get("headline")}
