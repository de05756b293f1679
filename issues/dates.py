"""Dates, months and week ranges as readers see them, in Hungarian and English.

Every function takes the language explicitly and hands it to Babel as
`locale=`; nothing reads the process locale or the clock. The wording comes
from CLDR (via Babel), not from our own patterns, so the two languages stay
idiomatic. Its interval separator is an en dash, set between thin spaces
(U+2009) where the ends hold spaces ("Oct 26 – Nov 1, 2026", "2026. okt. 26. –
nov. 1."); between the days of one month it is closed up in both languages,
as the publication writes a week: "Nov 2–8, 2026", "2026. nov. 2–8." (CLDR
closes it up in Hungarian, and spaces it in English).
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from typing import Any, Literal
from zoneinfo import ZoneInfo

import babel.dates
from babel import Locale

SITE_TIME_ZONE = "Europe/Budapest"

#: CLDR skeleton of a week range: year, abbreviated month, day.
WEEK_SKELETON = "yMMMd"
#: CLDR skeleton of a month as a heading: year and full month name.
MONTH_SKELETON = "yMMMM"
#: A glossary entry's status month where the house style departs from CLDR: the year first in English
#: as in Hungarian, "Status: 2026 November" as the publication's pages write it. Other languages: CLDR's.
STATUS_MONTH_PATTERNS = {"en": "y MMMM"}
#: Between an issue's number and its week.
ISSUE_LINE_SEPARATOR = " · "
#: Where the (already translated) word for "issue" goes relative to the number, per language.
ISSUE_LABELS = {
    "en": "{word} {number}",  # Issue 13
    "hu": "{number}. {word}",  # 13. szám
}

DateForm = Literal["long", "medium"]


def format_week(start: dt.date, end: dt.date, lang: str) -> str:
    """The week (or any span of days) an issue covers, e.g. "2026. nov. 2–8.".

    CLDR's interval formats drop what the two ends share, so the year and
    month appear only once when they can.
    """
    _require_plain_date(start, "start")
    _require_plain_date(end, "end")
    if end < start:
        raise ValueError(f"a week cannot end ({end}) before it starts ({start})")
    return _format_week(start, end, lang)


@lru_cache(maxsize=8192)
def _format_week(start: dt.date, end: dt.date, lang: str) -> str:
    """Babel's interval formatting, memoised: every page's header and every archive row shows a week."""
    text = babel.dates.format_interval(start, end, WEEK_SKELETON, locale=Locale.parse(lang))
    if (start.year, start.month) == (end.year, end.month):  # two days of one month: "Nov 2–8, 2026"
        text = text.replace(SPACED_DASH, "\u2013")
    return text


#: CLDR's interval separator between thin spaces, as its English sets it between two days of a month too.
SPACED_DASH = "\u2009\u2013\u2009"


def format_month(d: dt.date, lang: str) -> str:
    """A month as a heading: "November 2026", "2026. november"; the day of `d` is ignored."""
    _require_plain_date(d, "d")
    return _format_month(d.replace(day=1), lang)


@lru_cache(maxsize=4096)
def _format_month(d: dt.date, lang: str) -> str:
    return babel.dates.format_skeleton(MONTH_SKELETON, d, locale=Locale.parse(lang))


def format_status_month(d: dt.date, lang: str) -> str:
    """A glossary entry's status month, year first: "2026 November", "2026. november"; the day is ignored."""
    _require_plain_date(d, "d")
    return _format_status_month(d.replace(day=1), lang)


@lru_cache(maxsize=4096)
def _format_status_month(d: dt.date, lang: str) -> str:
    pattern = STATUS_MONTH_PATTERNS.get(lang)
    if pattern is None:
        return _format_month(d, lang)
    return babel.dates.format_date(d, format=pattern, locale=Locale.parse(lang))


def format_date(d: dt.date, lang: str, form: DateForm = "long") -> str:
    """A calendar date: long "November 2, 2026" / "2026. november 2.", medium "Nov 2, 2026" / "2026. nov. 2."."""
    _require_plain_date(d, "d")
    if form not in ("long", "medium"):
        raise ValueError(f"form must be 'long' or 'medium', not {form!r}")
    return _format_date(d, lang, form)


def format_source_dates(sources: list[dict[str, Any]], lang: str) -> list[str | None]:
    """Each numbered source's date (`date: YYYY-MM-DD`, optional) as `lang` writes a date, None where it has
    none: a source list shows these, with the ISO date kept for machines in <time datetime>."""
    return [format_date(dt.date.fromisoformat(str(source["date"])), lang) if source.get("date") else None
            for source in sources]


@lru_cache(maxsize=16384)
def _format_date(d: dt.date, lang: str, form: str) -> str:
    return babel.dates.format_date(d, format=form, locale=Locale.parse(lang))


def format_datetime(moment: dt.datetime, lang: str, tz: str = SITE_TIME_ZONE) -> str:
    """A moment in the site's time zone: long date, short time and the zone's short name.

    For example "November 9, 2026, 7:00 AM CET" and "2026. november 9. 7:00 CET":
    the zone is named alike in every language (see `zone_abbreviation`; CLDR
    names Central European Time in Hungarian, and only by its offset, "+0100",
    in English). The zone name keeps the hour unambiguous around the autumn DST
    change, when the same wall-clock hour happens twice. Naive datetimes are
    refused: their meaning would depend on the machine that builds the site.
    """
    if not isinstance(moment, dt.datetime):
        raise TypeError(f"expected a datetime, not {type(moment).__name__}")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"naive datetime {moment.isoformat()}: give it a time zone or an offset")
    zone = ZoneInfo(tz)
    local = moment.astimezone(zone)
    locale = Locale.parse(lang)
    # Compose the pattern from CLDR's own parts: the locale's long-date and
    # short-time patterns, glued the way the locale glues long date-times;
    # the zone as a quoted literal.
    name = zone_abbreviation(local).replace("'", "''")
    pattern = (
        str(babel.dates.get_datetime_format("long", locale=locale))
        .replace("{1}", babel.dates.get_date_format("long", locale=locale).pattern)
        .replace("{0}", babel.dates.get_time_format("short", locale=locale).pattern + f" '{name}'")
    )
    return babel.dates.format_datetime(local, pattern, tzinfo=zone, locale=locale)


def zone_abbreviation(local: dt.datetime) -> str:
    """The time zone of an aware moment as readers of any language know it: the time zone database's
    abbreviation ("CET", "CEST", "EST"), or the offset from UTC for a zone that has none ("-03" there:
    "UTC-3", "UTC+5:45"; "UTC" itself)."""
    name = local.tzname() or ""
    if name.isalpha():
        return name
    offset = local.utcoffset() or dt.timedelta(0)
    minutes = int(offset.total_seconds()) // 60
    if minutes == 0:
        return "UTC"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{'-' if minutes < 0 else '+'}{hours}" + (f":{rest:02d}" if rest else "")


def html_datetime(moment: dt.datetime, zone: dt.tzinfo) -> str:
    """A moment in `zone` as a `datetime` attribute takes it ("2026-11-09T07:00:00+01:00"): to the second,
    as HTML's date-time strings hold three fractional digits at most (a time stored with microseconds).
    Messages give times so too: as editors write them, in the site's zone."""
    return moment.astimezone(zone).isoformat(timespec="seconds")


def issue_line(number: int, start: dt.date, end: dt.date, lang: str, issue_word: str) -> str:
    """An issue's byline: "Issue 13 · Nov 2–8, 2026", "13. szám · 2026. nov. 2–8.".

    `issue_word` comes translated from the gettext catalog; only the order of
    word and number (and Hungarian's ordinal period) is decided here. A number below 1 is shown as it is:
    none is taken any more, but one stored before is published (`check` warns of it).
    """
    if lang not in ISSUE_LABELS:
        raise ValueError(f"no issue-label rule for language {lang!r} (known: {', '.join(ISSUE_LABELS)})")
    label = ISSUE_LABELS[lang].format(word=issue_word, number=number)
    return f"{label}{ISSUE_LINE_SEPARATOR}{format_week(start, end, lang)}"


def iso_week_bounds(year: int, week: int) -> tuple[dt.date, dt.date]:
    """Monday and Sunday of ISO week `week` of `year` (2026-W53 exists; 2027-W53 does not)."""
    try:
        monday = dt.date.fromisocalendar(year, week, 1)
    except ValueError as error:
        raise ValueError(f"{year}-W{week:02d} is not an ISO week: {error}") from None
    return monday, monday + dt.timedelta(days=6)


def week_to_cover(today: dt.date, last_covered: dt.date | None) -> tuple[dt.date, dt.date]:
    """Monday and Sunday of the week a new issue covers by default: the first after the last day an issue
    covers (an issue covers a week's news and comes out the Monday after, so the next one is the week under
    way), but never a week already past — after a break, or with no issue yet, the current week."""
    _require_plain_date(today, "today")
    monday = today - dt.timedelta(days=today.weekday())
    if last_covered is not None:
        _require_plain_date(last_covered, "last_covered")
        monday = max(monday, last_covered + dt.timedelta(days=7 - last_covered.weekday()))
    return monday, monday + dt.timedelta(days=6)


def _require_plain_date(value: object, name: str) -> None:
    """Dates only: a datetime here would silently drop its time zone (and maybe change day)."""
    if isinstance(value, dt.datetime) or not isinstance(value, dt.date):
        raise TypeError(f"{name} must be a date, not {type(value).__name__}")


def before_its_week(published_at: dt.datetime, week_start: dt.date, week_end: dt.date, zone: dt.tzinfo
                    ) -> str | None:
    """Why an issue going out at `published_at` is early for the week it covers (`week_start`–`week_end`):
    it would go out before that week starts, in the site's time zone `zone` (the time given there, as
    editors write it). None when it goes out in or after its week."""
    local = published_at.astimezone(zone)
    if local.date() >= week_start:
        return None
    return (f"{local.isoformat(timespec='seconds')} is before its week ({week_start} – {week_end}) starts: "
            "check the publication time and the week the issue covers")
