"""An issue's stories: added, edited, moved between issues, sections and places, and the places closed up
after one leaves (see issues/assembly.py, which puts the issue together).

Each function works inside the caller's transaction and raises ContentError
(with every problem it found) before changing anything, so the CLI can roll
back and report. Refusals name the place as `issue:N` or `story:slug`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from functools import partial
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from glossary.models import Entry
from issues.assembly import (_merge_texts, changeable_problems, load_issue, record_problems, refuse,
                             require_changeable)
from issues.corrections import has_reason, reason_missing
from issues.models import Issue, Story
from issues.queries import issue_by_number, sections, story_by_slug
from issues.revisions import Change, current_story_record, write_story
from issues.story_slugs import no_story, slug_problem, story_slug
from newsroom.content.records import where_listed
from newsroom.diagnostics import ContentError, Diagnostic, first_of, unknown_term
from newsroom.models import VocabularyTerm


def section_by_slug(session: Session, slug: str, location: str) -> VocabularyTerm:
    section, problems = _section(session, slug, location)
    if section is None:
        raise ContentError(problems)
    return section


def _section(session: Session, slug: str, location: str) -> tuple[VocabularyTerm | None, list[Diagnostic]]:
    """The section `slug`, or None and why."""
    known = list(session.scalars(sections()))
    for term in known:
        if term.slug == slug:
            return term, []
    listed = ", ".join(term.slug for term in known) or "none defined"
    if not slug:
        return None, [Diagnostic(location, None, "section", f"required; give --section (known: {listed}; "
                                 f"{where_listed('section')})")]
    return None, [Diagnostic(location, None, "section", f"unknown section {slug!r}; known: {listed} "
                             f"({where_listed('section')})")]


def _audience_problems(session: Session, audiences: list[str], location: str) -> list[Diagnostic]:
    known = set(session.scalars(select(VocabularyTerm.slug).where(VocabularyTerm.kind == "audience")))
    return [Diagnostic(location, None, f"audiences[{i}]", f"unknown audience {audience!r}; known: "
                       f"{', '.join(sorted(known)) or 'none defined'} ({where_listed('audience')})")
            for i, audience in enumerate(audiences) if audience not in known]


def _term_problems(session: Session, terms: list[str], location: str, issue: Issue | None) -> list[Diagnostic]:
    """The named terms no glossary entry has: an error for a scheduled or published issue (its recheck would
    refuse the change), a warning for a draft one (the entry may be written later). Named with the command's
    other problems, so that one run says everything that is wrong."""
    known = set(session.scalars(select(Entry.slug).where(Entry.slug.in_(terms)))) if terms else set()
    severity = "warning" if issue is None or issue.status == "draft" else "error"
    return [unknown_term(location, i, term, severity) for i, term in enumerate(terms) if term not in known]


def _refused(found: Sequence[Diagnostic]) -> bool:
    """Whether the problems refuse the change: a warning alone (an unknown term of a draft) does not."""
    return any(problem.severity == "error" for problem in found)


def add_story(session: Session, change: Change, number: int, record: dict[str, Any],
              correction: bool = False, problems: Sequence[Diagnostic] = ()) -> tuple[Story, list[Diagnostic]]:
    """Add a story (a story record without issue/position, or with them) to issue `number`.

    The story goes last in its section unless `position` says where; stories
    after it move down one. Adding to a published issue needs `correction`.
    Every problem is named in one refusal, with the `problems` the caller found in its options; the
    warnings that do not refuse it (an unknown term of a draft) are returned with the story, for the editor
    to see them now rather than at the next `check`.
    """
    found = list(problems)
    issue = session.scalars(issue_by_number(number)).one_or_none()
    if issue is None:
        found.append(Diagnostic(f"issue:{number}", None, "number", f"no issue {number}"))
    else:
        found.extend(changeable_problems(issue, correction, change.reason))
    languages = change.languages
    headline = next((record.get(lang, {}).get("headline") for lang in ("en", *languages)
                     if record.get(lang, {}).get("headline")), None) or "story"
    slug = record.get("slug") or story_slug(session, number, str(headline))
    location = f"story:{slug}"
    taken = slug_problem(session, slug, "--slug")
    if taken is not None:
        found.append(Diagnostic(location, None, "slug", taken))
    if record.get("issue") not in (None, number):
        found.append(Diagnostic(location, None, "issue", f"the file says issue {record['issue']}, the command "
                                f"issue {number}"))
    section, missing = _section(session, str(record.get("section") or ""), location)
    found.extend(missing)
    found.extend(_audience_problems(session, list(record.get("audiences") or []), location))
    found.extend(_term_problems(session, list(record.get("terms") or []), location, issue))
    # Checked as it would be written (a section named above is not named again).
    found.extend(record_problems("story", {**record, "slug": slug, "issue": number, "position": 1,
                                           "section": section.slug if section else "section"},
                                 location, languages))
    if _refused(found) or issue is None or section is None:
        raise ContentError(found)
    siblings = _section_stories(issue, section.slug)
    position = record.get("position")
    position = len(siblings) + 1 if position is None else min(max(int(position), 1), len(siblings) + 1)
    story = Story()
    write_story(session, story, {**record, "slug": slug, "issue": number, "section": section.slug,
                                 "position": position}, change, issue, section)
    siblings.insert(position - 1, story)
    _renumber(session, change, issue, section, siblings)
    return story, found


def _section_stories(issue: Issue, section: str, leave_out: Story | None = None) -> list[Story]:
    return sorted((s for s in issue.stories if s.section.slug == section and s is not leave_out),
                  key=lambda s: (s.position, s.slug))


#: Writes a story at a place: (story, issue, section, position).
Placer = Callable[[Story, Issue, VocabularyTerm, int], None]


def _renumber(session: Session, change: Change, issue: Issue, section: VocabularyTerm, stories: list[Story],
              moved: Story | None = None, place: Placer | None = None) -> None:
    """Positions 1, 2, … in the given order, in `section` of `issue`; only stories whose place changes are
    rewritten, and the story `moved`, which `place` writes (see `move_story`)."""
    for position, story in enumerate(stories, start=1):
        if story is moved and place is not None:
            place(story, issue, section, position)  # written whether or not its place changes
        elif story.position != position or story.section is not section or story.issue is not issue:
            _place(session, change, story, issue, section, position)


def _place(session: Session, change: Change, story: Story, issue: Issue, section: VocabularyTerm,
           position: int) -> None:
    record = current_story_record(story, change.languages)
    write_story(session, story, {**record, "issue": issue.number, "section": section.slug, "position": position},
                change, issue, section)


def move_story(session: Session, change: Change, slug: str, section_slug: str | None = None,
               position: int | None = None, correction: bool = False, number: int | None = None,
               place: Placer | None = None) -> Story:
    """Move a story to another section and/or position (1 = first), or to issue `number`.

    Without `position` it goes last in its section, after the last place taken there (so no other story of
    a published issue is rewritten: each would be listed as a correction); with it, the stories from there
    on move down one. The section it leaves closes up, unless its issue is published (see `close_up`).
    An issue it leaves or joins that is published changes only with `correction`. `place` writes the story
    at its new place, once (default: its stored record there; `newsroom edit` saves its other changes with
    it, so that one edit is one revision)."""
    story = session.scalars(story_by_slug(slug)).one_or_none()
    if story is None:
        raise refuse(f"story:{slug}", "slug", no_story(session, slug))
    issue = story.issue
    require_changeable(issue, correction, change.reason)
    target_issue = issue if number is None or number == issue.number else load_issue(session, number)
    require_changeable(target_issue, correction, change.reason)
    old_section = story.section
    target = section_by_slug(session, section_slug, f"story:{slug}") if section_slug else old_section
    moving = target is not old_section or target_issue is not issue
    put: Placer = place if place is not None else partial(_place, session, change)
    if moving:
        close_up(session, change, story)
    siblings = _section_stories(target_issue, target.slug, story)
    if position is None and moving:
        put(story, target_issue, target, max((s.position for s in siblings), default=0) + 1)
        return story
    index = len(siblings) if position is None else min(max(position, 1), len(siblings) + 1) - 1
    siblings.insert(index, story)
    _renumber(session, change, target_issue, target, siblings, story, put)
    return story


def edit_story(session: Session, change: Change, slug: str, fields: dict[str, Any],
               texts: dict[str, dict[str, str | None]], correction: bool = False,
               problems: Sequence[Diagnostic] = ()) -> tuple[bool, list[Diagnostic]]:
    """Change a story's language-independent fields (tags, terms, sources…) and texts: whether it changed,
    and the warnings that do not refuse it (an unknown term of a draft), as `add_story` returns them. Every
    problem is named in one refusal, with the `problems` the caller found in its options."""
    story = session.scalars(story_by_slug(slug)).one_or_none()
    if story is None:
        raise ContentError([*problems, Diagnostic(f"story:{slug}", None, "slug", no_story(session, slug))])
    record = current_story_record(story, change.languages)
    record.update({name: value for name, value in fields.items() if value is not None})
    _merge_texts(record, texts)
    found = [*problems, *changeable_problems(story.issue, correction, change.reason),
             *_audience_problems(session, list(fields.get("audiences") or []), f"story:{slug}"),
             *_term_problems(session, list(fields.get("terms") or []), f"story:{slug}", story.issue),
             *record_problems("story", record, f"story:{slug}", change.languages)]
    if _refused(found):
        raise ContentError(found)
    return write_story(session, story, record, change, story.issue, story.section), found


def removal_problems(row: Any, location: str, correction: bool, going: Collection[str] = (),
                     reason: str | None = None) -> list[Diagnostic]:
    """Why the workflow keeps the record `row` from being deleted (none for entries and pages).

    A story of a published issue goes only as a recorded correction, with its `reason` (readers see it listed
    as removed, and why);
    an issue goes only while it is an empty draft: a scheduled one is unscheduled first, a published one
    stays (its feeds and emails went out under its number), and its stories go or move first (or with it:
    `going` names the stories deleted at the same time).
    """
    if isinstance(row, Story):
        if row.issue.status == "published" and not correction:
            return [Diagnostic(location, None, "issue", (
                f"its issue {row.issue.number} is published; to remove the story add --correction and say why "
                "with --reason: the issue page lists it as removed"))]
        if row.issue.status == "published" and not has_reason(reason):
            return [Diagnostic(location, None, "", reason_missing(row.issue.number))]
        return []
    if not isinstance(row, Issue):
        return []
    if row.status != "draft":
        how = ("unschedule it first (newsroom issue unschedule)" if row.status == "scheduled" else
               "a published issue stays: its feeds and emails went out under its number")
        return [Diagnostic(location, None, "status", f"issue {row.number} is {row.status}; {how}")]
    slugs = [story.slug for story in row.stories if story.slug not in going]
    if slugs:
        shown = first_of(slugs)
        return [Diagnostic(location, None, "stories", (
            f"issue {row.number} holds {len(slugs)} stor{'ies' if len(slugs) > 1 else 'y'} ({shown}): delete "
            "them first, or move them to another issue (newsroom story move SLUG --issue N)"))]
    return []


def close_up(session: Session, change: Change, story: Story) -> None:
    """When `story` leaves its section of an unpublished issue (deleted, or moved to another section or
    issue), the stories after it there move up one (a published issue keeps its stories' places: a
    renumbering would read as corrections)."""
    issue = story.issue
    if issue.status != "published":
        _renumber(session, change, issue, story.section, _section_stories(issue, story.section.slug, story))


def load_story_issue(session: Session, slug: str) -> int:
    """The number of the issue a story belongs to."""
    story = session.scalars(story_by_slug(slug)).one_or_none()
    if story is None:
        raise refuse(f"story:{slug}", "slug", no_story(session, slug))
    return story.issue.number
