"""Putting an issue together: a new issue, its texts edited (its stories: issues/stories.py).

Each function works inside the caller's transaction and raises ContentError
(with every problem it found) before changing anything, so the CLI can roll
back and report. Refusals name the place as `issue:N` or `story:slug`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from issues import dates
from issues.corrections import has_reason, reason_missing
from issues.models import Issue
from issues.queries import issue_by_number, next_number, overlapping_issues
from issues.revisions import Change, current_issue_record, write_issue
from newsroom.content.validator import Validator
from newsroom.diagnostics import ContentError, Diagnostic


def refuse(location: str, field: str, message: str) -> ContentError:
    return ContentError([Diagnostic(location, None, field, message)])


@dataclass(frozen=True)
class Week:
    """The days an issue covers."""

    start: dt.date
    end: dt.date


def week_to_cover(session: Session, today: dt.date) -> Week:
    """The week a new issue covers unless told: the one after the last week an issue covers, or this
    week if that one is past (`issues.dates.week_to_cover`)."""
    return Week(*dates.week_to_cover(today, session.scalar(select(func.max(Issue.week_end)))))


def new_issue(session: Session, change: Change, week: Week, number: int | None = None,
              texts: dict[str, dict[str, str | None]] | None = None, problems: Sequence[Diagnostic] = ()) -> Issue:
    """Create a draft issue: the next number unless given; refuses a taken number or an overlapping week.
    `problems` are those the caller found in its options: reported with these, all in one refusal."""
    number = next_number(session) if number is None else number
    location = f"issue:{number}"
    found = list(problems)
    if number < 1:
        found.append(Diagnostic(location, None, "number", "issue numbers start at 1"))
    elif session.scalars(issue_by_number(number)).one_or_none() is not None:
        found.append(Diagnostic(location, None, "number", f"issue {number} already exists; "
                                f"leave out --number to take the next free one ({next_number(session)})"))
    if week.end < week.start:
        found.append(Diagnostic(location, None, "week", f"the week ends ({week.end}) before it starts "
                                f"({week.start})"))
    for other in session.scalars(overlapping_issues(week.start, week.end)):
        found.append(Diagnostic(location, None, "week", f"{week.start}–{week.end} overlaps issue {other.number} "
                                f"({other.week_start}–{other.week_end}); choose another --week"))
    # Its texts checked as they would be written; a number or week named above is not named again.
    record: dict[str, Any] = {"number": max(number, 1), "week": {"start": week.start.isoformat(),
                                                                 "end": max(week.start, week.end).isoformat()},
                              "status": "draft", **(texts or {})}
    found.extend(record_problems("issue", record, location, change.languages))
    if found:
        raise ContentError(found)
    record["number"] = number
    issue = Issue()
    write_issue(session, issue, record, change)
    return issue


def record_problems(kind: str, record: dict[str, Any], location: str, languages: tuple[str, ...]
                    ) -> list[Diagnostic]:
    """What the content validator finds wrong with a record a command built (as in a content file), so that
    they are named with the command's other problems, before anything is written."""
    validator = Validator(location, {}, languages, stored=False)
    validator.record({**record, "kind": kind})
    return list(validator.problems)


def load_issue(session: Session, number: int) -> Issue:
    issue = session.scalars(issue_by_number(number)).one_or_none()
    if issue is None:
        raise refuse(f"issue:{number}", "number", f"no issue {number}")
    return issue


def require_changeable(issue: Issue, correction: bool, reason: str | None) -> None:
    """A published issue changes only as a recorded correction, with the reason readers are shown."""
    problems = changeable_problems(issue, correction, reason)
    if problems:
        raise ContentError(problems)


def changeable_problems(issue: Issue, correction: bool, reason: str | None) -> list[Diagnostic]:
    """Why `issue` cannot change as asked (see `require_changeable`); none when it can."""
    if issue.status != "published":
        return []
    if not correction:
        return [Diagnostic(f"issue:{issue.number}", None, "status", f"issue {issue.number} is published; to "
                           "change it, add --correction and --reason: the change is recorded and shown as a "
                           "correction")]
    if not has_reason(reason):
        return [Diagnostic(f"issue:{issue.number}", None, "", reason_missing(issue.number))]
    return []


def edit_issue(session: Session, change: Change, number: int, texts: dict[str, dict[str, str | None]],
               correction: bool = False) -> bool:
    """Set per-language texts of an issue (title, lead, editor_note); None clears a field. Refuses with
    every problem at once: a published issue changed without a correction, texts that are not valid."""
    issue = load_issue(session, number)
    record = current_issue_record(issue, change.languages)
    _merge_texts(record, texts)
    problems = [*changeable_problems(issue, correction, change.reason),
                *record_problems("issue", record, f"issue:{number}", change.languages)]
    if problems:
        raise ContentError(problems)
    return write_issue(session, issue, record, change)


def _merge_texts(record: dict[str, Any], texts: dict[str, dict[str, str | None]]) -> None:
    for lang, fields in texts.items():
        block = dict(record.get(lang) or {})
        for name, value in fields.items():
            if value is None or value == "":
                block.pop(name, None)
            else:
                block[name] = value
        record[lang] = block
