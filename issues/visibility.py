"""Which issues a build shows: published ones, scheduled ones whose time has come, and drafts only in previews.

A scheduled issue whose publication time has passed at build time is public:
a static site has no server to flip it at that moment, so the next build
(e.g. a timer that runs `newsroom build`) publishes it at its scheduled time.
The first command that reads the content from then on records it as published
at that time (see issues.schedule). Without a build clock, scheduled issues stay hidden.

Issues are ordered as readers meet them: the latest publication first, the
higher number first at the same time. "The latest issue" — the home page's,
the masthead's, the email `build` writes, `send latest`'s — is the first
public one in that order, which is also the feeds' and the editions list's:
a special issue numbered 15 out on Friday comes before the regular issue 14
once 14 comes out on Monday.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from zoneinfo import ZoneInfo

from newsroom.build.model import Content, Record


def is_public(issue: Record, now: dt.datetime | None) -> bool:
    status = issue.data["status"]
    if status == "published":
        return True
    if status == "scheduled" and now is not None and issue.data.get("published_at"):
        return dt.datetime.fromisoformat(issue.data["published_at"]) <= now
    return False


def publication_time(issue: Record, zone: ZoneInfo) -> dt.datetime:
    """When an issue comes out, in UTC; for one without a time (a draft) the morning after its week
    (07:00 in `zone`), when it would come out."""
    if issue.data.get("published_at"):
        return dt.datetime.fromisoformat(issue.data["published_at"]).astimezone(dt.timezone.utc)
    end = dt.date.fromisoformat(issue.data["week"]["end"]) + dt.timedelta(days=1)
    return dt.datetime.combine(end, dt.time(7), zone).astimezone(dt.timezone.utc)


def latest_first(content: Content, numbers: Iterable[int], zone: ZoneInfo) -> tuple[int, ...]:
    """`numbers` newest first: by publication time, the higher number first at the same time."""
    return tuple(sorted(numbers, key=lambda n: (publication_time(content.issues[n], zone), n), reverse=True))


def visible_numbers(content: Content, drafts: bool, now: dt.datetime | None, zone: ZoneInfo) -> tuple[int, ...]:
    """Issue numbers a build shows, newest first (see `latest_first`): public ones, or all of them in a
    preview."""
    return latest_first(content, (n for n, issue in content.issues.items() if drafts or is_public(issue, now)), zone)


def unpublished_locations(content: Content, public: Iterable[int]) -> set[str]:
    """`issue:N` and `story:slug` of every issue not public (and its stories), whose problems
    do not block a build: work in progress is checked when it is scheduled or published."""
    shown = set(public)
    hidden = {number for number in content.issues if number not in shown}
    return {f"issue:{n}" for n in hidden} | {s.location for s in content.stories.values() if s.data["issue"] in hidden}


def drafts_of(content: Content) -> dict[str, int]:
    """`issue:N` and `story:slug` of every draft issue and its stories, each with the issue's number: work in
    progress, whose problems stop no build (nor an import or an edit) until the issue is scheduled or
    published, which check it. A scheduled issue's problems count: the builds from its time on show it."""
    drafts = {number for number, issue in content.issues.items() if issue.data["status"] == "draft"}
    return {**{f"issue:{number}": number for number in drafts},
            **{story.location: story.data["issue"] for story in content.stories.values()
               if story.data["issue"] in drafts}}
