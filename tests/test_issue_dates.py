"""Issue lines and publication times on built pages, in both languages, across month and year ends."""

from __future__ import annotations

import datetime as dt
import re

import html5lib
import pytest

from issues.dates import format_datetime, issue_line

THIN = "\u2009"


@pytest.mark.parametrize("start, end, en, hu", [
    (dt.date(2026, 11, 2), dt.date(2026, 11, 8), "Issue 13 · Nov 2–8, 2026", "13. szám · 2026. nov. 2–8."),
    (dt.date(2026, 11, 30), dt.date(2026, 12, 6), f"Issue 13 · Nov 30{THIN}–{THIN}Dec 6, 2026",
     f"13. szám · 2026. nov. 30.{THIN}–{THIN}dec. 6."),
    (dt.date(2026, 12, 28), dt.date(2027, 1, 3), f"Issue 13 · Dec 28, 2026{THIN}–{THIN}Jan 3, 2027",
     f"13. szám · 2026. dec. 28.{THIN}–{THIN}2027. jan. 3."),
])
def test_issue_line_within_and_across_months_and_years(start, end, en, hu):
    assert issue_line(13, start, end, "en", "Issue") == en
    assert issue_line(13, start, end, "hu", "szám") == hu


def test_publication_times_are_shown_in_the_site_time_zone():
    moment = dt.datetime(2026, 11, 9, 6, 0, tzinfo=dt.timezone.utc)
    assert format_datetime(moment, "hu") == "2026. november 9. 7:00 CET"
    assert format_datetime(moment, "en") == "November 9, 2026, 7:00\u202fAM CET"


@pytest.mark.parametrize("databases", ["sqlite"], indirect=True)
def test_built_pages_use_the_translated_issue_line(sample_cli, monkeypatch):
    monkeypatch.setenv("NEWSROOM_NOW", "2027-01-04T09:00:00+01:00")
    for week, title in (("2026-W49", "Month"), ("2026-W53", "Year")):
        sample_cli("issue", "new", "--week", week, "--title-hu", title, "--title-en", title)
    for number in (14, 15):
        sample_cli("story", "add", str(number), "--section", "code", "--headline-hu", "Hír", "--headline-en", "Story",
                   "--summary-hu", "Szöveg.", "--summary-en", "Text.", "--source-url", "https://example.org/")
        sample_cli("issue", "publish", str(number), "--at", f"2027-01-0{number - 12}T07:00")
    out = sample_cli.cwd / "_site"
    sample_cli("build", "--out", str(out))
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)

    def lines(lang: str) -> list[str]:
        page = parser.parse((out / lang / "issues" / "index.html").read_bytes())
        return [re.sub(r"[ \n]+", " ", a.text) for a in page.find(".//main").iter("a")]

    assert lines("en")[:3] == [f"Issue 15 · Dec 28, 2026{THIN}–{THIN}Jan 3, 2027",
                               f"Issue 14 · Nov 30{THIN}–{THIN}Dec 6, 2026", "Issue 13 · Nov 2–8, 2026"]
    assert lines("hu")[:3] == [f"15. szám · 2026. dec. 28.{THIN}–{THIN}2027. jan. 3.",
                               f"14. szám · 2026. nov. 30.{THIN}–{THIN}dec. 6.", "13. szám · 2026. nov. 2–8."]
    page = parser.parse((out / "hu" / "issues" / "15" / "index.html").read_bytes())
    published = next(p for p in page.iter("p") if p.get("class") == "published")
    assert "".join(published.itertext()) == "Megjelent: 2027. január 3. 7:00 CET"
    assert published.find("time").get("datetime") == "2027-01-03T07:00:00+01:00"
    # The archive by the month each issue came out, on a page per year, newest first.
    archive = parser.parse((out / "en" / "archive" / "index.html").read_bytes())
    years = [(a.text, a.get("href")) for a in archive.find(".//ul[@class='years']").iter("a")]
    assert years == [("2027", "/en/archive/2027/"), ("2026", "/en/archive/2026/")]

    def months(year: int) -> list[str]:
        page = parser.parse((out / "en" / "archive" / str(year) / "index.html").read_bytes())
        return [h.text for h in page.find(".//main").iter("h2")]

    assert months(2027) == ["January 2027"]
    assert months(2026)[0] == "November 2026"


#: HTML's valid date string, month string, and global date and time string (at most three digits of a
#: fraction of a second; a time zone offset or Z).
HTML_DATETIME = re.compile(r"\d{4,}-\d\d(-\d\d([T ]\d\d:\d\d(:\d\d(\.\d{1,3})?)?(Z|[+-]\d\d:?\d\d))?)?")


@pytest.mark.parametrize("databases", ["sqlite"], indirect=True)
def test_publication_and_correction_times_are_stored_and_shown_to_the_second(sample_cli, monkeypatch,
                                                                            write_files):
    # The clock has microseconds; a page's `datetime` takes three fractional digits at most, and the times
    # are stored as a reader sees them: to the second. One a content file gives finer is shown to the second.
    monkeypatch.setenv("NEWSROOM_NOW", "2026-12-06T13:46:23.678163+01:00")
    sample_cli("issue", "new", "--title-hu", "Próba", "--title-en", "Trial")
    sample_cli("story", "add", "14", "--section", "code", "--headline-hu", "Hír", "--headline-en", "Story",
               "--summary-hu", "Szöveg.", "--summary-en", "Text.", "--source-url", "https://example.org/",
               "--slug", "i14-story")
    sample_cli("issue", "publish", "14")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-12-07T09:15:42.123456+01:00")
    sample_cli("story", "edit", "i14-story", "--headline-en", "Story, corrected", "--correction", "--reason", "typo")
    assert "published_at: '2026-12-06T12:46:23+00:00'" in sample_cli("edit", "14").stdout
    sample_cli("import", str(write_files({"issues/15.yaml": """\
kind: issue
number: 15
week: {start: 2026-12-07, end: 2026-12-13}
status: published
published_at: 2026-12-07T07:00:00.987654+01:00
hu: {title: Tört másodperc}
en: {title: A fraction of a second}
""", "stories/i15.yaml": """\
kind: story
slug: i15-story
issue: 15
section: code
position: 1
sources: [{publisher: Example, title: Example, url: "https://example.org/15"}]
hu: {headline: Hír, summary: Szöveg.}
en: {headline: Story, summary: Text.}
"""})))
    out = sample_cli.cwd / "_site"
    sample_cli("build", "--out", str(out))
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    found = {}
    for path in sorted(out.rglob("*.html")):
        for element in parser.parse(path.read_bytes()).iter():
            if element.get("datetime") is not None:
                found.setdefault(element.get("datetime"), path.relative_to(out).as_posix())
    wrong = {value: page for value, page in found.items() if not HTML_DATETIME.fullmatch(value)}
    assert wrong == {}
    assert {"2026-12-06T13:46:23+01:00", "2026-12-07T09:15:42+01:00", "2026-12-07T07:00:00+01:00"} <= set(found)
    for feed in sorted((out / "en" / "feeds").glob("*.atom")):
        dates = re.findall(r"<(?:published|updated)>([^<]*)<", feed.read_text(encoding="utf-8"))
        assert dates and not [date for date in dates if "." in date], feed.name
