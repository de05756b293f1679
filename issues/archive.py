"""The archive of all stories: months, sections and tags (pure functions over the build model)."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from zoneinfo import ZoneInfo

from newsroom.build.model import Content, Record


@lru_cache(maxsize=4096)
def tag_slug(tag: str) -> str:
    """A tag as a URL part: ASCII lowercase words joined by hyphens ("AI Act" → "ai-act")."""
    folded = unicodedata.normalize("NFKD", tag).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", folded).strip("-") or "tag"


def issue_date(issue: Record, zone: ZoneInfo) -> dt.date:
    """The day an issue came out in the site's time zone; a draft's is the last day of its week."""
    published = issue.data.get("published_at")
    if published:
        return dt.datetime.fromisoformat(published).astimezone(zone).date()
    return dt.date.fromisoformat(issue.data["week"]["end"])


def archive_stories(content: Content, numbers: Iterable[int]) -> list[Record]:
    """Stories of the given issues, newest issue first, then in section order and position."""
    wanted = set(numbers)
    return in_archive_order(content, (s for s in content.stories.values() if s.data["issue"] in wanted))


def in_archive_order(content: Content, stories: Iterable[Record]) -> list[Record]:
    """`stories` as the archive lists them: newest issue first, then in section order and position."""
    order = {slug: i for i, slug in enumerate(content.vocabulary("sections"))}
    return sorted(stories, key=lambda s: (-s.data["issue"], order.get(s.data["section"], len(order)),
                                          s.data["position"], s.key))


def by_month(stories: Iterable[Record], content: Content, zone: ZoneInfo) -> list[tuple[dt.date, list[Record]]]:
    """Stories grouped under the first day of the month their issue came out, newest month first."""
    groups: dict[dt.date, list[Record]] = {}
    months: dict[int, dt.date] = {}  # by issue number: its stories share it
    for story in stories:
        number = story.data["issue"]
        month = months.get(number)
        if month is None:
            month = months[number] = issue_date(content.issues[number], zone).replace(day=1)
        groups.setdefault(month, []).append(story)
    return sorted(groups.items(), key=lambda item: item[0], reverse=True)


def tags(stories: Iterable[Record]) -> dict[str, str]:
    """{tag slug: the tag as first written}, sorted by slug; tags differing only in case or accents merge."""
    found: dict[str, str] = {}
    for story in stories:
        for tag in story.data.get("tags") or []:
            found.setdefault(tag_slug(tag), tag)
    return dict(sorted(found.items()))
