"""The editorial workflow: draft → scheduled (with a time) → published, guarded by `check`.

Scheduling and publishing run the same checks as `newsroom check` over the
issue, its stories and the site's sections, and refuse with every problem
found. A published issue keeps the publication time it got (feeds and
emails use it); later changes to it are corrections (see `issues.queries`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import replace

from sqlalchemy.orm import Session

from issues.assembly import load_issue, refuse
from issues.revisions import Change, current_issue_record, write_issue
from issues.dates import before_its_week, format_datetime, html_datetime
from issues.models import Issue
from issues.schedule import is_due, went_out_on_schedule
from newsroom.build.model import Content, load_content
from newsroom.checks import UNWRITTEN, check_content, empty_issue_problems, translation_problems
from newsroom.diagnostics import ContentError, Diagnostic, in_report_order
from newsroom.settings import Settings


def publication_problems(session: Session, settings: Settings, number: int, today: dt.date) -> list[Diagnostic]:
    """The errors that keep issue `number` from being published, as `newsroom check` words them.

    Those of the issue itself, of its stories (translations, sources, terms,
    links) and of the site's sections (a name missing in a language).
    """
    session.flush()
    content = load_content(session)
    mine = {f"issue:{number}"} | {story.location for story in content.stories_of(number)}
    problems = check_content(content, settings, today, complete_translations=True)
    if content.issues[number].data.get("status") == "draft":  # else check_content names it
        problems += empty_issue_problems(content, number)
    return in_report_order(with_command(p) for p in problems if p.severity == "error" and (
        p.location in mine or (p.location == "site" and p.field.startswith("sections"))))


def with_command(problem: Diagnostic) -> Diagnostic:
    """`problem`, and if it is a required text that no language of a stored issue or story has yet, the
    command that writes it (`issue edit`, `story edit`: their texts have options of their own)."""
    kind, _, key = problem.location.partition(":")
    lang, _, field = (problem.field or "").partition(".")
    if problem.message != UNWRITTEN or kind not in ("issue", "story") or not field.isidentifier():
        return problem
    return replace(problem, message=f"{problem.message} with `newsroom {kind} edit {key} "
                                    f"--{field.replace('_', '-')}-{lang} …`")


def public_issues_of(content: Content, locations: Iterable[str]) -> set[int]:
    """The scheduled and published issues among `locations` (`issue:13`, `story:slug`: its issue)."""
    numbers = set()
    for location in locations:
        kind, _, key = location.partition(":")
        if kind == "issue" and int(key) in content.issues:
            numbers.add(int(key))
        elif kind == "story" and key in content.stories:
            numbers.add(int(content.stories[key].data["issue"]))
    return {number for number in numbers if content.issues[number].data.get("status") != "draft"}


def untranslated(content: Content, settings: Settings, numbers: Iterable[int]) -> set[Diagnostic]:
    """The parts missing in a language of the issues `numbers` and their stories, each an error: what
    publishing asks beyond what every build does (a record with no text at all in a language is only a
    warning for the build, which shows the other language; see publication_problems)."""
    return {problem for number in numbers if number in content.issues  # (not yet, before a change makes it)
            for record in (content.issues[number], *content.stories_of(number))
            for problem in translation_problems(record, settings, complete=True) if problem.severity == "error"}


def as_draft_work(problem: Diagnostic, content: Content, settings: Settings, draft: int | None) -> Diagnostic:
    """`problem`, of the draft issue `draft` or one of its stories (None: of no draft), as `newsroom check`
    words it: a warning (a draft stops no build) that says it is to fix before the issue is scheduled or
    published. A language missing whole, which a preview shows in another, is named by the fields scheduling
    asks for (see `untranslated`), with the command that fills them in."""
    if draft is None:
        return problem
    later = f"draft issue {draft}: to fix before it is scheduled or published"
    if problem.severity == "error":
        return replace(problem, severity="warning", message=f"{with_command(problem).message} ({later})")
    lang = problem.field
    kind, _, key = problem.location.partition(":")
    record = content.issues.get(int(key)) if kind == "issue" else content.stories.get(key)
    if lang not in settings.languages or record is None:
        return problem
    lacking = [p.field for p in translation_problems(record, settings, complete=True)
               if p.severity == "error" and p.field.startswith(f"{lang}.")]
    if not lacking:
        return problem
    command = f"newsroom {kind} edit {key} " + " ".join(
        f"--{path.split('.', 1)[1].replace('_', '-')}-{lang} …" for path in lacking)
    named = lacking[0] if len(lacking) == 1 else f"{', '.join(lacking[:-1])} and {lacking[-1]}"
    return replace(problem, message=f"missing translation of {named} ({later}: {command})")


def _require_publishable(session: Session, settings: Settings, number: int, today: dt.date) -> None:
    problems = publication_problems(session, settings, number, today)
    if problems:
        raise ContentError(problems)


def schedule(session: Session, settings: Settings, change: Change, number: int, at: dt.datetime) -> None:
    """Draft (or scheduled) → scheduled at `at`, which must be in the future."""
    issue = load_issue(session, number)
    if issue.status == "published":
        raise refuse(f"issue:{number}", "status", f"issue {number} is already published "
                     f"(at {_local(settings, issue.published_at) if issue.published_at else '?'})")
    if at <= change.now:
        raise refuse(f"issue:{number}", "published_at", f"{_local(settings, at)} is in the past (now "
                     f"{_local(settings, change.now)}); schedule a time to come, or `issue publish` now")
    _require_publishable(session, settings, number, change.now.astimezone(settings.zone).date())
    record = current_issue_record(issue, change.languages)
    at = at.replace(microsecond=0)  # to the second, as pages and feeds show it
    write_issue(session, issue, {**record, "status": "scheduled", "published_at": at.isoformat()}, change)


def unschedule(session: Session, settings: Settings, change: Change, number: int) -> None:
    """Scheduled → draft: the issue leaves the queue and loses its publication time; not once that time
    has come (a build since shows it, its feed entry may have gone out: taking it back would unpublish it)."""
    issue = load_issue(session, number)
    if issue.status == "draft":
        raise refuse(f"issue:{number}", "status", f"issue {number} is a draft, not scheduled")
    if issue.status == "published" or is_due(issue, change.now):
        raise refuse(f"issue:{number}", "status", _published(session, settings, issue, is_due(issue, change.now)))
    record = current_issue_record(issue, change.languages)
    record.pop("published_at", None)
    write_issue(session, issue, {**record, "status": "draft"}, change)


def _local(settings: Settings, moment: dt.datetime) -> str:
    """`moment` as an editor gives times: in the site's zone, to the second (a message echoed UTC)."""
    return html_datetime(moment, settings.zone)


def _corrections(number: int) -> str:
    """What can still change in the published issue `number`, and how."""
    return (f"its texts and stories can still change as corrections readers are shown (newsroom issue edit {number} "
            "… --correction --reason …, newsroom story edit SLUG … --correction --reason …)")


def _published(session: Session, settings: Settings, issue: Issue, due: bool = False) -> str:
    """Why the published issue `issue` (or a scheduled one whose time has come: `due`) is not taken back to
    draft, and what can still change."""
    assert issue.published_at is not None
    when = format_datetime(issue.published_at, "en", settings.timezone)
    if due or went_out_on_schedule(session, issue.number):
        return (f"issue {issue.number}'s scheduled time, {when}, has passed: it counts as published since then "
                "(builds from that time on show it, its feed entry and email may have gone out), and a published "
                f"issue is not taken back; {_corrections(issue.number)}")
    return (f"issue {issue.number} was published at {when}, not scheduled: a published issue is not taken back; "
            f"{_corrections(issue.number)}")


def status_advice(session: Session, settings: Settings, number: int) -> str:
    """How issue `number`'s status and publication time change from where they are: the workflow's commands,
    which check each step (an edit of those fields is refused); for a published issue, that they stay."""
    issue = load_issue(session, number)
    if issue.status == "draft":
        return (f"issue {number} is a draft: `newsroom issue schedule {number} --at TIME` schedules it and "
                f"`newsroom issue publish {number}` publishes it now, each checking it first")
    assert issue.published_at is not None
    when = format_datetime(issue.published_at, "en", settings.timezone)
    if issue.status == "scheduled":
        return (f"issue {number} is scheduled for {when}: `newsroom issue unschedule {number}` makes it a draft "
                f"again, `newsroom issue schedule {number} --at TIME` moves its time and `newsroom issue publish "
                f"{number}` publishes it now")
    return (f"issue {number} was published at {when}: its status and publication time stay, as its feeds and "
            f"emails went out with them; {_corrections(number)}")


def publish(session: Session, settings: Settings, change: Change, number: int,
            at: dt.datetime | None = None) -> dt.datetime:
    """Draft or scheduled → published; returns the publication time.

    The time is `at` (not in the future: that is scheduling), else a scheduled
    issue's time once it has passed (the build may already show it), else now.
    """
    issue = load_issue(session, number)
    if issue.status == "published":
        assert issue.published_at is not None
        raise refuse(f"issue:{number}", "status", f"issue {number} is already published at "
                     f"{_local(settings, issue.published_at)}; its publication time stays")
    if at is not None and at > change.now:
        raise refuse(f"issue:{number}", "published_at", f"{_local(settings, at)} is in the future; use "
                     "`newsroom issue schedule` to publish later")
    if at is None:
        at = issue.published_at if is_due(issue, change.now) and issue.published_at is not None else change.now
    at = at.replace(microsecond=0)  # to the second, as pages and feeds show it
    _require_publishable(session, settings, number, change.now.astimezone(settings.zone).date())
    record = current_issue_record(issue, change.languages)
    write_issue(session, issue, {**record, "status": "published", "published_at": at.isoformat()}, change)
    return at


def timing_warnings(session: Session, settings: Settings, number: int) -> list[Diagnostic]:
    """A warning when scheduled or published issue `number` goes out before its week starts (allowed: a
    special issue may, but mostly the time or the week is mistyped); as `newsroom check` words it."""
    issue = load_issue(session, number)
    early = before_its_week(issue.published_at, issue.week_start, issue.week_end, settings.zone) \
        if issue.published_at is not None else None
    return [Diagnostic(f"issue:{number}", None, "published_at", early, "warning")] if early else []


def recheck_after_change(session: Session, settings: Settings, change: Change, number: int) -> None:
    """A change to a scheduled or published issue must leave it publishable; else it is refused."""
    issue = load_issue(session, number)
    if issue.status != "draft":
        _require_publishable(session, settings, number, change.now.astimezone(settings.zone).date())
