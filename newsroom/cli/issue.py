"""Issue assembly and the editorial workflow: `newsroom issue …` (stories: newsroom.cli.story).

Each command parses its arguments, runs one transaction through the domain
(`issues.assembly`, `issues.workflow`) and reports. Any refusal prints
`place: field: message`, exits 1 and changes nothing.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable
from typing import Any

import click

from issues import assembly, workflow
from issues.dates import format_datetime, iso_week_bounds
from issues.outline import outline
from issues.models import STATUSES
from issues.queries import corrections as list_corrections
from issues.queries import issue_lines
from issues.revisions import Change
from newsroom.checks import changes
from newsroom.cli import (App, content_errors, editor_option, editor_options, pass_app, reason_label,
                          reason_language, report, report_warnings)
from newsroom.content.schema import MAX_INT
from newsroom.diagnostics import ContentError, Diagnostic

#: Languages that get per-language options (`--title-hu`, `--headline-en`, …).
OPTION_LANGUAGES = ("hu", "en")
WEEK_RE = re.compile(r"^(\d{4})-W(\d{1,2})$")

#: An issue's number, a story's place: the database's whole numbers hold no more than MAX_INT (PostgreSQL
#: stopped on a traceback at a larger one, SQLite looked it up); a number of no issue is said so further on.
NUMBER = click.IntRange(max=MAX_INT)
PLACE = click.IntRange(min=1, max=MAX_INT)


def text_options(*fields: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--FIELD-LANG` options for each field and language, e.g. --headline-hu."""
    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for field in reversed(fields):
            for lang in reversed(OPTION_LANGUAGES):
                func = click.option(f"--{field.replace('_', '-')}-{lang}", f"{field}_{lang}",
                                    help=f"{field.replace('_', ' ').capitalize()} ({lang}).")(func)
        return func
    return decorate


def option_texts(fields: tuple[str, ...], options: dict[str, Any]) -> dict[str, dict[str, str | None]]:
    """The texts `text_options` gave, by language and field ({"en": {"headline": …}}), taken out of `options`."""
    texts: dict[str, dict[str, str | None]] = {}
    for lang in OPTION_LANGUAGES:
        for field in fields:
            value = options.pop(f"{field}_{lang}", None)
            if value is not None:
                texts.setdefault(lang, {})[field] = value
    return texts


def _moment(value: str, option: str, app: App) -> dt.datetime:
    """An ISO time; without an offset it is read in the site's time zone."""
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        raise ContentError([Diagnostic(option, None, "", f"expected a time as 2026-11-09T07:00 (site time zone) "
                                       f"or with an offset, got {value!r}")]) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=app.settings.zone)
    return moment.astimezone(dt.timezone.utc)


def change_by(app: App, editor: str, reason: str | None = None, reason_lang: str | None = None) -> Change:
    """The change a command makes, by `editor`, now, and why (see issues.revisions.Change)."""
    return Change(editor=editor, now=app.now(), languages=app.settings.languages, reason=reason,
                  reason_lang=reason_language(app, reason_lang))


def _week(app: App, week: str | None, start: str | None, end: str | None) -> assembly.Week | None:
    """The week the options give; None for the default (`week_to_cover`, which reads the issues stored). A
    wrong one is a ContentError, as every other wrong value of these commands (exit 1), not a usage error."""
    if week and (start or end):
        raise ContentError([Diagnostic("--week", None, "", "give --week or --from/--to, not both")])
    if week:
        match = WEEK_RE.match(week)
        if not match:
            raise ContentError([Diagnostic("--week", None, "", f"expected an ISO week as 2026-W46, got {week!r}")])
        try:
            return assembly.Week(*iso_week_bounds(int(match.group(1)), int(match.group(2))))
        except ValueError as error:
            raise ContentError([Diagnostic("--week", None, "", str(error))]) from None
    if start or end:
        if not (start and end):
            raise ContentError([Diagnostic("--from/--to", None, "", "give both --from and --to")])
        return assembly.Week(_date("--from", start), _date("--to", end))
    return None


def saved_warnings(session: Any, app: App, change: Change, location: str, own: Iterable[Diagnostic] = ()
                     ) -> list[Diagnostic]:
    """The warnings of the record at `location` the command stored, as `newsroom check` words them, and those
    of its own options (`own`: an unknown term of a draft's story) that the check did not find too."""
    return changes.with_own(own, changes.stored_warnings(session, app.settings, change.now, {location}))


def _date(option: str, value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise ContentError([Diagnostic(option, None, "", f"expected a date as 2026-11-09, got {value!r}")]) from None


@click.group()
def issue() -> None:
    """Weekly issues: create, list, show, schedule, publish, corrections."""


@issue.command("new")
@click.option("--week", help="ISO week, e.g. 2026-W46 (default: the Monday–Sunday after the last issue's week, "
                             "or this week if that one is past).")
@click.option("--from", "start", help="First day covered (with --to).")
@click.option("--to", "end", help="Last day covered (with --from).")
@click.option("--number", type=NUMBER, help="Issue number (default: the next one).")
@text_options("title", "lead", "editor_note")
@editor_option
@pass_app
@content_errors
def new(app: App, week: str | None, start: str | None, end: str | None, number: int | None, editor: str,
        **options: Any) -> None:
    """Create the next issue as a draft; the warnings of what it stored are printed as `newsroom check` words
    them (a text missing in a language), then those it left on other records; they stop nothing."""
    problems: list[Diagnostic] = []
    try:
        span = _week(app, week, start, end)
    except ContentError as error:  # named with the others; they are checked as for the default week
        span, problems = None, error.diagnostics
    change = change_by(app, editor)
    with app.transaction() as session:
        span = span or assembly.week_to_cover(session, app.today())
        before = changes.watch(session, set())
        created = assembly.new_issue(session, change, span, number,
                                     option_texts(("title", "lead", "editor_note"), options), problems)
        warnings = saved_warnings(session, app, change, f"issue:{created.number}")
        elsewhere = changes.brought(before, session, app.settings, change.now, {f"issue:{created.number}"},
                                    {f"issue:{created.number}"})
        app.say(f"issue {created.number} created (draft): {created.week_start} – {created.week_end}")
    report_warnings(warnings, "in what was saved")
    report_warnings(elsewhere, "the new issue left on other records")


@issue.command("edit")
@click.argument("number", type=NUMBER)
@text_options("title", "lead", "editor_note")
@editor_options
@pass_app
@content_errors
def edit(app: App, number: int, editor: str, correction: bool, reason: str | None, reason_lang: str | None,
         **options: Any) -> None:
    """Set an issue's title, lead or editor's note (an empty value clears it); the warnings of what it stored
    are printed as `newsroom check` words them, then those the edit left on other records; they stop nothing."""
    change = change_by(app, editor, reason, reason_lang)
    with app.transaction() as session:
        before = changes.watch(session, {f"issue:{number}"})
        changed = assembly.edit_issue(session, change, number, option_texts(("title", "lead", "editor_note"), options),
                                      correction)
        workflow.recheck_after_change(session, app.settings, change, number)
        warnings = saved_warnings(session, app, change, f"issue:{number}") if changed else []
        elsewhere = changes.brought(before, session, app.settings, change.now, {f"issue:{number}"}) if changed else []
    app.say(f"issue {number} {'updated' if changed else 'unchanged'}")
    report_warnings(warnings, "in what was saved")
    report_warnings(elsewhere, "the edit left on other records")


@issue.command("show")
@click.argument("number", type=NUMBER)
@pass_app
@content_errors
def show(app: App, number: int) -> None:
    """Print the issue: sections in order, stories in order, what is missing."""
    with app.reading() as session:
        lines = outline(session, app.settings, number, app.today())
    click.echo("\n".join(lines))


@issue.command("list")
@click.option("--status", type=click.Choice(STATUSES), help="Only issues in this state.")
@pass_app
@content_errors
def list_(app: App, status: str | None) -> None:
    """List the issues, newest first: number, week, state and time, stories, corrections, titles."""
    with app.reading() as session:
        lines = issue_lines(session, status)
    if not lines:
        app.say(f"no {status} issue" if status else "no issue yet: `newsroom issue new` makes the first")
    zone = app.settings.timezone
    for line in lines:
        when = f" {format_datetime(line.published_at, 'en', zone)}" if line.published_at else ""
        stories = f"{line.stories} stor{'y' if line.stories == 1 else 'ies'}"
        corrections = f", {line.corrections} correction{'s' if line.corrections != 1 else ''}" \
            if line.corrections else ""
        titles = " / ".join(line.titles[lang] for lang in app.settings.languages if lang in line.titles)
        click.echo(f"{line.number:>4}  {line.week_start} – {line.week_end}  {line.status}{when}  "
                   f"{stories}{corrections}  {titles}")


@issue.command("schedule")
@click.argument("number", type=NUMBER)
@click.option("--at", "at", required=True, help="Publication time, e.g. 2026-11-16T07:00 (site time zone).")
@editor_option
@pass_app
@content_errors
def schedule(app: App, number: int, at: str, editor: str) -> None:
    """Schedule a checked issue for publication at a future time."""
    moment = _moment(at, "--at", app)
    with app.transaction() as session:
        workflow.schedule(session, app.settings, change_by(app, editor), number, moment)
        warnings = workflow.timing_warnings(session, app.settings, number)
    report(warnings)
    app.say(f"issue {number} scheduled for {format_datetime(moment, 'en', app.settings.timezone)}")


@issue.command("unschedule")
@click.argument("number", type=NUMBER)
@editor_option
@pass_app
@content_errors
def unschedule(app: App, number: int, editor: str) -> None:
    """Take a scheduled issue back to draft."""
    with app.transaction() as session:
        workflow.unschedule(session, app.settings, change_by(app, editor), number)
    app.say(f"issue {number} is a draft again")


@issue.command("publish")
@click.argument("number", type=NUMBER)
@click.option("--at", "at", help="Publication time (not in the future; default: now).")
@editor_option
@pass_app
@content_errors
def publish(app: App, number: int, at: str | None, editor: str) -> None:
    """Check and publish an issue; it gets a fixed publication time."""
    moment = _moment(at, "--at", app) if at else None
    with app.transaction() as session:
        published = workflow.publish(session, app.settings, change_by(app, editor), number, moment)
        warnings = workflow.timing_warnings(session, app.settings, number)
    report(warnings)
    app.say(f"issue {number} published at {format_datetime(published, 'en', app.settings.timezone)}")


@issue.command("corrections")
@click.argument("number", type=NUMBER)
@pass_app
@content_errors
def corrections(app: App, number: int) -> None:
    """List the changes made to a published issue and its stories."""
    with app.reading() as session:
        assembly.load_issue(session, number)
        items = list_corrections(session, number)
    for item in items:
        when = format_datetime(item.changed_at, "en", app.settings.timezone)
        reason = f" — {reason_label(item.reason, item.reason_lang, app.settings.languages)}" if item.reason else ""
        click.echo(f"{when}  {item.changed_by}  {item.record_kind}:{item.record_key}  "
                   f"{', '.join(item.changed_fields)}{reason}")
    if not items:
        app.say(f"issue {number}: no corrections")


COMMANDS = [issue]
