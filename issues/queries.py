"""Queries about issues and stories: each returns a `select()` or takes the session explicitly."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session, selectinload

from issues.models import Issue, Story
from newsroom.models import DELETED, Revision, VocabularyTerm


def issue_by_number(number: int) -> Select[Issue]:
    return select(Issue).where(Issue.number == number).options(
        selectinload(Issue.texts), selectinload(Issue.stories).selectinload(Story.texts),
        selectinload(Issue.stories).selectinload(Story.section))


def overlapping_issues(start: dt.date, end: dt.date) -> Select[Issue]:
    """Issues whose week shares at least one day with start–end."""
    return select(Issue).where(Issue.week_start <= end, Issue.week_end >= start).order_by(Issue.number)


def next_number(session: Session) -> int:
    return (session.scalar(select(func.max(Issue.number))) or 0) + 1


def story_by_slug(slug: str) -> Select[Story]:
    return select(Story).where(Story.slug == slug).options(
        selectinload(Story.texts), selectinload(Story.issue), selectinload(Story.section))


def sections() -> Select[VocabularyTerm]:
    """The site's sections in their configured order."""
    return select(VocabularyTerm).where(VocabularyTerm.kind == "section").order_by(VocabularyTerm.position).options(
        selectinload(VocabularyTerm.names))


def slug_taken(session: Session, slug: str) -> bool:
    return (session.scalar(select(func.count()).select_from(Story).where(Story.slug == slug)) or 0) > 0


@dataclass(frozen=True)
class Correction:
    """A recorded change to a published issue or one of its stories."""

    record_kind: str  # "issue" | "story"
    record_key: str
    changed_at: dt.datetime
    changed_by: str
    changed_fields: tuple[str, ...]
    reason: str | None
    #: A story removed from the published issue: its headline in each language, as readers last saw it.
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
    """
    query = select(Issue).where(Issue.status == "published").order_by(Issue.number)
    if number is not None:
        query = query.where(Issue.number == number)
    issues = {issue.id: issue for issue in session.scalars(query)}
    if not issues:
        return {}
    slugs = dict(session.execute(select(Story.slug, Story.issue_id).where(Story.issue_id.in_(list(issues)))).all())
    revisions = session.scalars(select(Revision).where(Revision.record_kind.in_(("issue", "story"))).order_by(
        Revision.id)).all()
    by_number = {str(issue.number): issue for issue in issues.values()}
    for revision in revisions:  # a story deleted from a published issue: its corrections stay the issue's
        if revision.record_kind == "story" and DELETED in revision.changed_fields and revision.record_key not in slugs:
            issue = by_number.get(str(revision.snapshot.get("issue")))
            if issue is not None:
                slugs[revision.record_key] = issue.id
    issue_revisions: dict[int, list[Revision]] = {}
    story_revisions: dict[int, list[Revision]] = {}
    for revision in revisions:
        if revision.record_kind == "issue" and revision.record_key in by_number:
            issue_revisions.setdefault(by_number[revision.record_key].number, []).append(revision)
        elif revision.record_kind == "story" and revision.record_key in slugs:
            story_revisions.setdefault(issues[slugs[revision.record_key]].number, []).append(revision)
    found: dict[int, list[Correction]] = {}
    for issue in issues.values():
        items = _after_publication(issue, issue_revisions.get(issue.number, []),
                                   story_revisions.get(issue.number, []))
        if items:
            found[issue.number] = items
    return dict(sorted(found.items()))


def _after_publication(issue: Issue, issue_revisions: list[Revision], story_revisions: list[Revision]
                       ) -> list[Correction]:
    # An issue stored as published without its time (before the content files were checked for it;
    # `check` names it): published, as far as corrections go, when a revision last made it so.
    published_from = issue.published_at or dt.datetime.min.replace(tzinfo=dt.timezone.utc)
    for revision in issue_revisions:
        if revision.snapshot.get("status") != "published":
            published_from = max(published_from, revision.changed_at)
    kept = [r for r in issue_revisions if r.snapshot.get("status") == "published"]
    kept += [r for r in story_revisions if r.changed_at > published_from]
    items = [Correction(r.record_kind, r.record_key, r.changed_at, r.changed_by, tuple(r.changed_fields), r.reason,
                        _headlines(r.snapshot) if DELETED in r.changed_fields else None) for r in kept]
    return sorted(items, key=lambda c: (c.changed_at, c.record_kind, c.record_key))


def _headlines(snapshot: Mapping[str, object]) -> dict[str, str]:
    """{language: headline} of a story record."""
    return {lang: str(block["headline"]) for lang, block in snapshot.items()
            if isinstance(block, dict) and block.get("headline")}
