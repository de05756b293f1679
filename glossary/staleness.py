"""Which entries' "Where things stand" is due for re-review.

An entry's status is a month; its age is counted in whole calendar months
from that month to the month of `today`, so the answer does not depend on
the day of the month the check runs.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass

from newsroom.build.model import Content, Record
from newsroom.diagnostics import Diagnostic


@dataclass(frozen=True)
class StaleEntry:
    """An entry whose status month is older than the limit."""

    slug: str
    status: str  # "2026-05"
    age_months: int


def status_month(entry: Record) -> dt.date:
    """The entry's status month as the first day of that month."""
    year, month = map(int, entry.data["status"].split("-"))
    return dt.date(year, month, 1)


def age_in_months(entry: Record, today: dt.date) -> int:
    status = status_month(entry)
    return (today.year - status.year) * 12 + today.month - status.month


def stale_entries(content: Content, today: dt.date, limit_months: int) -> list[StaleEntry]:
    """Entries older than `limit_months`, oldest first (then by slug), for editors to re-review."""
    stale = [StaleEntry(slug, entry.data["status"], age_in_months(entry, today))
             for slug, entry in content.entries.items() if age_in_months(entry, today) > limit_months]
    return sorted(stale, key=lambda item: (item.status, item.slug))


def stale_problems(content: Content, today: dt.date, limit_months: int) -> Iterator[Diagnostic]:
    """A warning per stale entry, and per status month in the future (a typo, most likely)."""
    for item in stale_entries(content, today, limit_months):
        yield Diagnostic(f"entry:{item.slug}", None, "status",
                         f"'Where things stand' is {item.age_months} months old (limit {limit_months}); "
                         "re-review it", "warning")
    for slug, entry in content.entries.items():
        if age_in_months(entry, today) < 0:
            yield Diagnostic(entry.location, None, "status",
                             f"status month {entry.data['status']} is in the future (today is {today.isoformat()})",
                             "warning")
