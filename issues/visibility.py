"""Which issues a build shows: published ones, scheduled ones whose time has come, and drafts only in previews.

A scheduled issue whose publication time has passed at build time is public:
a static site has no server to flip it at that moment, so the next build
(e.g. a timer that runs `newsroom build`) publishes it at its scheduled time.
The first command that reads the content from then on records it as published
at that time (see issues.schedule). Without a build clock, scheduled issues stay hidden.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from newsroom.build.model import Content, Record


def is_public(issue: Record, now: dt.datetime | None) -> bool:
    status = issue.data["status"]
    if status == "published":
        return True
    if status == "scheduled" and now is not None and issue.data.get("published_at"):
        return dt.datetime.fromisoformat(issue.data["published_at"]) <= now
    return False


def visible_numbers(content: Content, drafts: bool, now: dt.datetime | None) -> tuple[int, ...]:
    """Issue numbers a build shows, newest first: public ones, or all of them in a preview."""
    return tuple(sorted((n for n, issue in content.issues.items() if drafts or is_public(issue, now)),
                        reverse=True))


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
