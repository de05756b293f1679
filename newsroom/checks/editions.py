"""Issues as editions go out: a story in each before it does, not before its week, weeks that do not
overlap, each story at a place of its own."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

from issues.dates import before_its_week
from newsroom.build.model import Content, Record
from newsroom.diagnostics import Diagnostic
from newsroom.settings import Settings


def empty_issue_problems(content: Content, number: int) -> list[Diagnostic]:
    """An issue to be published without a story: its page, feed entry and email would say nothing."""
    if content.stories_of(number):
        return []
    return [Diagnostic(f"issue:{number}", None, "stories", (
        "a scheduled or published issue needs at least one story: its page, feed entry and email would be "
        f"empty (add one with newsroom story add {number})"))]


def _early(issue: Record, settings: Settings) -> Iterator[Diagnostic]:
    """A scheduled or published issue going out before its week starts (see issues.dates.before_its_week)."""
    at, week = issue.data.get("published_at"), issue.data.get("week")
    if not at or not week:
        return
    early = before_its_week(dt.datetime.fromisoformat(str(at)), dt.date.fromisoformat(str(week["start"])),
                            dt.date.fromisoformat(str(week["end"])), settings.zone)
    if early:
        yield Diagnostic(issue.location, None, "published_at", early, "warning")


def _shared_places(content: Content) -> Iterator[Diagnostic]:
    """Each story at the place another story of its section and issue has (`story add` and `story move`
    renumber; a content file may still give one): a warning at the later slug, which the pages show second.
    And each stored at a place below 1, which no content file may give any more."""
    taken: dict[tuple[int, str, int], str] = {}
    for story in sorted(content.stories.values(), key=lambda record: record.key):
        place = (story.data["issue"], story.data["section"], story.data["position"])
        if place[2] < 1:  # stored before content files were held to places from 1
            yield Diagnostic(story.location, None, "position", (
                f"{place[2]}: places count from 1, and a content file saying {place[2]} is refused, so an export "
                "of it does not import again: move it (newsroom story move --position N)"), "warning")
        first = taken.setdefault(place, story.key)
        if first != story.key:
            yield Diagnostic(story.location, None, "position", (
                f"{place[2]} is also the place of story {first!r} in section {place[1]!r} of issue {place[0]}: "
                "the pages show them by slug; give each its own place (newsroom story move)"), "warning")


def _overlapping_weeks(content: Content) -> Iterator[Diagnostic]:
    """Each issue whose week shares days with an earlier-starting one's (`issue new` refuses such a week;
    a content file may still give one): a warning at the later issue."""
    latest: tuple[str, str, int] | None = None  # (end, start, number) of the week reaching furthest so far
    for start, end, number in sorted((str(issue.data["week"]["start"]), str(issue.data["week"]["end"]), issue.data[
            "number"]) for issue in content.issues.values() if issue.data.get("week")):
        if latest is not None and start <= latest[0]:
            yield Diagnostic(f"issue:{number}", None, "week", f"{start}–{end} overlaps the week of issue {latest[2]} "
                             f"({latest[1]}–{latest[0]})", "warning")
        if latest is None or end > latest[0]:
            latest = (end, start, number)
