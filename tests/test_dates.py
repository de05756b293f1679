"""Dates and week ranges in Hungarian and English, as CLDR (through Babel) words them.

The expected strings are CLDR's real output, but for one mark of the house style: a week within one
month closes up its en dash in English as in Hungarian, "Nov 2–8, 2026" as the publication's pages
write it (CLDR spaces it in English); where the ends hold spaces the dash stands between thin spaces
(U+2009). CLDR puts a narrow no-break space (U+202F) before AM/PM.
"""

from __future__ import annotations

import datetime as dt

import pytest

from issues.dates import (
    format_date,
    format_datetime,
    format_month,
    format_status_month,
    format_week,
    iso_week_bounds,
    issue_line,
    week_to_cover,
)

THIN = "\u2009"  # CLDR's space around the interval dash
NNBSP = "\u202f"  # CLDR's space before AM/PM
EN_DASH = "\u2013"
UTC = dt.UTC

SAME_MONTH = (dt.date(2026, 11, 2), dt.date(2026, 11, 8))
CROSS_MONTH = (dt.date(2026, 10, 26), dt.date(2026, 11, 1))
CROSS_YEAR = (dt.date(2026, 12, 28), dt.date(2027, 1, 3))

WEEKS = [
    ("en", SAME_MONTH, "Nov 2–8, 2026"),
    ("en", CROSS_MONTH, f"Oct 26{THIN}–{THIN}Nov 1, 2026"),
    ("en", CROSS_YEAR, f"Dec 28, 2026{THIN}–{THIN}Jan 3, 2027"),
    ("hu", SAME_MONTH, "2026. nov. 2–8."),
    ("hu", CROSS_MONTH, f"2026. okt. 26.{THIN}–{THIN}nov. 1."),
    ("hu", CROSS_YEAR, f"2026. dec. 28.{THIN}–{THIN}2027. jan. 3."),
]


# --- weeks ---------------------------------------------------------------------

@pytest.mark.parametrize(("lang", "week", "expected"), WEEKS)
def test_format_week(lang: str, week: tuple[dt.date, dt.date], expected: str) -> None:
    assert format_week(*week, lang) == expected


@pytest.mark.parametrize(("lang", "week", "expected"), WEEKS)
def test_week_separator_is_one_en_dash_and_no_hyphen(lang: str, week: tuple[dt.date, dt.date], expected: str) -> None:
    text = format_week(*week, lang)
    assert text.count(EN_DASH) == 1
    assert "-" not in text and "\u2014" not in text


@pytest.mark.parametrize(("lang", "week", "expected"), WEEKS)
def test_week_mentions_both_days_and_every_year(lang: str, week: tuple[dt.date, dt.date], expected: str) -> None:
    """Unambiguous: both days appear, and a year appears for each year the week touches."""
    start, end = week
    text = format_week(start, end, lang)
    assert str(start.day) in text and str(end.day) in text
    assert {str(start.year), str(end.year)} <= set(text.replace(".", " ").replace(",", " ").split())


def test_week_is_the_same_for_every_call_order_of_languages() -> None:
    """No locale state leaks between calls (Babel gets the locale each time)."""
    first = [format_week(*SAME_MONTH, lang) for lang in ("hu", "en", "hu", "en")]
    assert first == ["2026. nov. 2–8.", "Nov 2–8, 2026"] * 2


def test_single_day_range() -> None:
    assert format_week(dt.date(2026, 11, 2), dt.date(2026, 11, 2), "en") == "Nov 2, 2026"
    assert format_week(dt.date(2026, 11, 2), dt.date(2026, 11, 2), "hu") == "2026. nov. 2."


def test_week_ending_before_it_starts_is_refused() -> None:
    with pytest.raises(ValueError, match="before it starts"):
        format_week(dt.date(2026, 11, 8), dt.date(2026, 11, 2), "en")


def test_datetimes_are_refused_where_dates_are_expected() -> None:
    moment = dt.datetime(2026, 11, 2, tzinfo=UTC)
    with pytest.raises(TypeError):
        format_week(moment, dt.date(2026, 11, 8), "en")
    with pytest.raises(TypeError):
        format_date(moment, "hu")


# --- issue line ------------------------------------------------------------------

@pytest.mark.parametrize(("lang", "word", "week", "expected"), [
    ("en", "Issue", SAME_MONTH, "Issue 13 · Nov 2–8, 2026"),
    ("hu", "szám", SAME_MONTH, "13. szám · 2026. nov. 2–8."),
    ("en", "Issue", CROSS_YEAR, f"Issue 13 · Dec 28, 2026{THIN}–{THIN}Jan 3, 2027"),
    ("hu", "szám", CROSS_YEAR, f"13. szám · 2026. dec. 28.{THIN}–{THIN}2027. jan. 3."),
])
def test_issue_line(lang: str, word: str, week: tuple[dt.date, dt.date], expected: str) -> None:
    assert issue_line(13, *week, lang, word) == expected


def test_issue_line_uses_the_word_it_is_given() -> None:
    assert issue_line(1, *SAME_MONTH, "en", "No.").startswith("No. 1 · ")
    assert issue_line(100, *SAME_MONTH, "hu", "lapszám").startswith("100. lapszám · ")


def test_issue_line_refuses_an_unknown_language() -> None:
    with pytest.raises(ValueError, match="no issue-label rule"):
        issue_line(13, *SAME_MONTH, "de", "Ausgabe")


# --- months and dates ---------------------------------------------------------------

EN_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
             "September", "October", "November", "December"]
HU_MONTHS = ["január", "február", "március", "április", "május", "június", "július", "augusztus",
             "szeptember", "október", "november", "december"]


@pytest.mark.parametrize("month", range(1, 13))
def test_format_month_every_month(month: int) -> None:
    day = dt.date(2026, month, 15)
    assert format_month(day, "en") == f"{EN_MONTHS[month - 1]} 2026"
    assert format_month(day, "hu") == f"2026. {HU_MONTHS[month - 1]}"


def test_format_month_ignores_the_day() -> None:
    assert format_month(dt.date(2026, 11, 1), "hu") == format_month(dt.date(2026, 11, 30), "hu") == "2026. november"


@pytest.mark.parametrize("month", range(1, 13))
def test_a_status_month_puts_the_year_first_in_both_languages(month: int) -> None:
    """A glossary entry's "Status: 2026 November", as the publication's pages write it (in English too)."""
    day = dt.date(2026, month, 15)
    assert format_status_month(day, "en") == f"2026 {EN_MONTHS[month - 1]}"
    assert format_status_month(day, "hu") == f"2026. {HU_MONTHS[month - 1]}"


@pytest.mark.parametrize(("lang", "form", "expected"), [
    ("en", "long", "November 2, 2026"),
    ("en", "medium", "Nov 2, 2026"),
    ("hu", "long", "2026. november 2."),
    ("hu", "medium", "2026. nov. 2."),
])
def test_format_date(lang: str, form: str, expected: str) -> None:
    assert format_date(dt.date(2026, 11, 2), lang, form) == expected  # type: ignore[arg-type]


def test_format_date_default_is_long_and_other_forms_are_refused() -> None:
    assert format_date(dt.date(2027, 1, 3), "hu") == "2027. január 3."
    with pytest.raises(ValueError, match="form"):
        format_date(dt.date(2027, 1, 3), "en", "short")  # type: ignore[arg-type]


# --- datetimes and DST ---------------------------------------------------------------

def test_format_datetime_converts_to_budapest() -> None:
    published = dt.datetime(2026, 11, 9, 7, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    assert format_datetime(published, "en") == f"November 9, 2026, 7:00{NNBSP}AM CET"
    assert format_datetime(published, "hu") == "2026. november 9. 7:00 CET"
    assert format_datetime(published.astimezone(UTC), "hu") == "2026. november 9. 7:00 CET"


def test_format_datetime_can_cross_midnight_into_the_local_day() -> None:
    assert format_datetime(dt.datetime(2026, 7, 1, 22, 30, tzinfo=UTC), "hu") == "2026. július 2. 0:30 CEST"


@pytest.mark.parametrize(("moment", "en", "hu"), [
    # Spring forward, last Sunday of March 2026 (29th) at 01:00 UTC: 02:00 CET becomes 03:00 CEST.
    (dt.datetime(2026, 3, 29, 0, 59, tzinfo=UTC), f"March 29, 2026, 1:59{NNBSP}AM CET", "2026. március 29. 1:59 CET"),
    (dt.datetime(2026, 3, 29, 1, 0, tzinfo=UTC), f"March 29, 2026, 3:00{NNBSP}AM CEST", "2026. március 29. 3:00 CEST"),
    # Fall back, last Sunday of October 2026 (25th) at 01:00 UTC: 02:30 happens twice.
    (dt.datetime(2026, 10, 25, 0, 30, tzinfo=UTC),
     f"October 25, 2026, 2:30{NNBSP}AM CEST", "2026. október 25. 2:30 CEST"),
    (dt.datetime(2026, 10, 25, 1, 30, tzinfo=UTC),
     f"October 25, 2026, 2:30{NNBSP}AM CET", "2026. október 25. 2:30 CET"),
])
def test_format_datetime_across_dst_changes(moment: dt.datetime, en: str, hu: str) -> None:
    assert format_datetime(moment, "en") == en
    assert format_datetime(moment, "hu") == hu


def test_repeated_autumn_hour_stays_distinguishable() -> None:
    first = format_datetime(dt.datetime(2026, 10, 25, 0, 30, tzinfo=UTC), "hu")
    second = format_datetime(dt.datetime(2026, 10, 25, 1, 30, tzinfo=UTC), "hu")
    assert first != second


def test_format_datetime_other_time_zone() -> None:
    moment = dt.datetime(2026, 11, 9, 6, 0, tzinfo=UTC)
    assert format_datetime(moment, "en", tz="America/New_York") == f"November 9, 2026, 1:00{NNBSP}AM EST"
    assert format_datetime(moment, "hu", tz="America/New_York") == "2026. november 9. 1:00 EST"


@pytest.mark.parametrize(("tz", "zone"), [("Europe/Budapest", "CET"), ("America/Sao_Paulo", "UTC-3"),
                                          ("Asia/Kathmandu", "UTC+5:45"), ("UTC", "UTC")])
def test_both_languages_name_the_time_zone_alike(tz: str, zone: str) -> None:
    # One form in both languages: the zone's abbreviation, or its offset from UTC where it has none
    # ("-03" in the time zone database), never "+0100" in one language and "CET" in the other.
    moment = dt.datetime(2026, 11, 9, 6, 0, tzinfo=UTC)
    for lang in ("en", "hu"):
        assert format_datetime(moment, lang, tz=tz).endswith(f" {zone}"), (lang, format_datetime(moment, lang, tz=tz))


def test_naive_datetime_is_refused() -> None:
    with pytest.raises(ValueError, match="naive"):
        format_datetime(dt.datetime(2026, 11, 9, 7, 0), "en")  # noqa: DTZ001 (the point)


def test_format_datetime_refuses_a_plain_date() -> None:
    with pytest.raises(TypeError):
        format_datetime(dt.date(2026, 11, 9), "en")  # type: ignore[arg-type]


# --- ISO weeks ---------------------------------------------------------------------------

@pytest.mark.parametrize(("year", "week", "monday", "sunday"), [
    (2026, 1, dt.date(2025, 12, 29), dt.date(2026, 1, 4)),  # week 1 starts in the previous year
    (2026, 45, dt.date(2026, 11, 2), dt.date(2026, 11, 8)),
    (2026, 46, dt.date(2026, 11, 9), dt.date(2026, 11, 15)),
    (2026, 53, dt.date(2026, 12, 28), dt.date(2027, 1, 3)),  # 2026 starts on a Thursday: 53 weeks
    (2027, 1, dt.date(2027, 1, 4), dt.date(2027, 1, 10)),
    (2027, 52, dt.date(2027, 12, 27), dt.date(2028, 1, 2)),
    (2020, 53, dt.date(2020, 12, 28), dt.date(2021, 1, 3)),
])
def test_iso_week_bounds(year: int, week: int, monday: dt.date, sunday: dt.date) -> None:
    assert iso_week_bounds(year, week) == (monday, sunday)
    assert monday.weekday() == 0 and sunday.weekday() == 6
    assert monday.isocalendar()[:2] == sunday.isocalendar()[:2] == (year, week)


@pytest.mark.parametrize(("year", "week"), [(2027, 53), (2026, 54), (2026, 0), (2025, 53)])
def test_iso_week_that_does_not_exist(year: int, week: int) -> None:
    with pytest.raises(ValueError, match="not an ISO week"):
        iso_week_bounds(year, week)


@pytest.mark.parametrize(("today", "last_covered", "expected"), [
    (dt.date(2026, 11, 9), dt.date(2026, 11, 8), (dt.date(2026, 11, 9), dt.date(2026, 11, 15))),  # issue day
    (dt.date(2026, 11, 6), dt.date(2026, 11, 8), (dt.date(2026, 11, 9), dt.date(2026, 11, 15))),  # working ahead
    (dt.date(2026, 11, 6), dt.date(2026, 11, 15), (dt.date(2026, 11, 16), dt.date(2026, 11, 22))),
    (dt.date(2026, 11, 6), dt.date(2026, 11, 4), (dt.date(2026, 11, 9), dt.date(2026, 11, 15))),  # ended Wednesday
    (dt.date(2026, 12, 2), dt.date(2026, 11, 8), (dt.date(2026, 11, 30), dt.date(2026, 12, 6))),  # after a break
    (dt.date(2026, 12, 2), None, (dt.date(2026, 11, 30), dt.date(2026, 12, 6))),  # the first issue
    (dt.date(2027, 1, 1), dt.date(2026, 12, 27), (dt.date(2026, 12, 28), dt.date(2027, 1, 3))),  # 2026-W53
])
def test_week_to_cover(today: dt.date, last_covered: dt.date | None, expected: tuple[dt.date, dt.date]) -> None:
    assert week_to_cover(today, last_covered) == expected


def test_the_week_to_cover_is_a_whole_iso_week_after_the_last_day_covered_and_not_past() -> None:
    today = dt.date(2026, 11, 18)
    for offset in range(-60, 30):
        last = today + dt.timedelta(days=offset)
        monday, sunday = week_to_cover(today, last)
        assert (sunday - monday).days == 6 and monday.weekday() == 0
        assert monday > last and (monday - last).days <= 7 or monday == today - dt.timedelta(days=today.weekday())
        assert sunday >= today
