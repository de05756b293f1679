"""Bad content files: a clear message naming file, line and field; exit 1; nothing stored."""

from __future__ import annotations

import json
from pathlib import Path

import html5lib
import pytest
from sqlalchemy import create_engine, text

from newsroom import SAMPLE_DIR

SITE = """\
kind: site
hu: {name: Hírek, tagline: Hetente}
en: {name: News, tagline: Weekly}
sections:
  - {slug: code, hu: Kód, en: Code}
categories:
  - {slug: infrastructure, hu: Infrastruktúra, en: Infrastructure}
audiences:
  - {slug: developer, hu: fejlesztő, en: developer}
"""

ISSUE = """\
kind: issue
number: 1
week: {start: 2026-11-02, end: 2026-11-08}
status: published
published_at: 2026-11-09T07:00:00+01:00
hu: {title: Első szám}
en: {title: First issue}
"""

STORY = """\
kind: story
slug: a-story
issue: 1
section: code
position: 1
sources:
  - {publisher: Example, title: Example story, url: "https://example.org/a"}
hu:
  headline: Címsor
  summary: Összefoglaló.
en:
  headline: Headline
  summary: Summary.
"""

ENTRY = """\
kind: entry
slug: gpu
category: infrastructure
level: basic
trend: mainstream
status: 2026-11
hu:
  headword: GPU
  definition: Grafikus processzor.
en:
  headword: GPU
  definition: Graphics processor.
"""

PAGE = """\
kind: page
slug: about
hu: {title: Rólunk, body: Szerkesztőség.}
en: {title: About us, body: The newsroom.}
"""

METHOD = PAGE.replace("slug: about", "slug: method")


def listed(field: str) -> str:
    """What a message refusing an unknown section, category or audience says of where their list lives."""
    return f" (the site file's `{field}:` in site.yaml, changed by `newsroom import site.yaml`)"


def _prepend(path: Path, text: str) -> None:
    path.write_text(text + path.read_text(encoding="utf-8"), encoding="utf-8")


def _stored(cli, tmp_path: Path) -> dict[str, bytes]:
    out = tmp_path / f"snapshot-{len(list(tmp_path.iterdir()))}"
    cli("export", str(out))
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.fixture
def base(cli, write_files):
    cli("init")
    cli("import", str(write_files({"site.yaml": SITE, "issues/1.yaml": ISSUE, "stories/a.yaml": STORY,
                                   "entries/gpu.yaml": ENTRY, "pages/method.yaml": METHOD})))
    return cli


CASES = {
    "malformed YAML": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story\nheadline: [unclosed")},
        "stories/b.yaml:4: malformed YAML: while parsing a flow sequence",
    ),
    "unknown field": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story\nauthor: me")},
        "stories/b.yaml:3: author: unknown field for a story; expected one of slug, formerly, issue, section, "
        "position, tags, audiences, terms, suppress_terms, sources, hu, en",
    ),
    "unknown field in a language": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story").replace("  headline: Headline",
                                                                                    "  headlne: Headline")},
        "stories/b.yaml:12: en.headlne: unknown field; expected one of headline, summary, body",
    ),
    "wrong type": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story").replace("position: 1", "position: first")},
        "stories/b.yaml:5: position: expected a whole number from 1 up, got 'first'",
    ),
    "a number too large for the database": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story").replace("position: 1",
                                                                                  "position: 99999999999999999999")},
        "stories/b.yaml:5: position: 99999999999999999999 is too large: expected a whole number from 1 up to "
        "2147483647",
    ),
    "a story's place before the first": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story").replace("position: 1", "position: 0")},
        "stories/b.yaml:5: position: expected a whole number from 1 up, got 0",
    ),
    "an issue numbered below 1": (
        {"issues/0.yaml": ISSUE.replace("number: 1", "number: -3").replace("2026-11-0", "2026-12-0")},
        "issues/0.yaml:2: number: expected a whole number from 1 up, got -3",
    ),
    "date in the wrong format": (
        {"issues/2.yaml": ISSUE.replace("number: 1", "number: 2").replace("start: 2026-11-02", "start: 02.11.2026")},
        "issues/2.yaml:3: week.start: expected a date as YYYY-MM-DD, got '02.11.2026'",
    ),
    # A value YAML reads as a date or time but the calendar or the clock has not: named like any wrong date.
    "a day the month does not have": (
        {"issues/2.yaml": ISSUE.replace("number: 1", "number: 2").replace(
            "week: {start: 2026-11-02, end: 2026-11-08}", "week: {start: 2026-11-31, end: 2026-12-06}")},
        "issues/2.yaml:3: week.start: expected a date as YYYY-MM-DD, got '2026-11-31'",
    ),
    "a month the year does not have": (
        {"issues/2.yaml": ISSUE.replace("number: 1", "number: 2").replace(
            "week: {start: 2026-11-02, end: 2026-11-08}", "week: {start: 2026-13-01, end: 2027-01-06}")},
        "issues/2.yaml:3: week.start: expected a date as YYYY-MM-DD, got '2026-13-01'",
    ),
    "a source dated a day that never was": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story").replace(
            'url: "https://example.org/a"}', 'url: "https://example.org/a", date: 2026-02-30}')},
        "stories/b.yaml:7: sources[0].date: expected a date as YYYY-MM-DD, got '2026-02-30'",
    ),
    "an hour the clock does not have": (
        {"issues/2.yaml": ISSUE.replace("number: 1", "number: 2").replace(
            "published_at: 2026-11-09T07:00:00+01:00", "published_at: 2026-11-16 25:00:00+01:00").replace(
            "2026-11-0", "2026-11-1")},
        "issues/2.yaml:5: published_at: expected a date and time with a UTC offset, as 2026-11-09T07:00:00+01:00, "
        "got '2026-11-16 25:00:00+01:00'",
    ),
    "month in the wrong format": (
        {"entries/tpu.yaml": ENTRY.replace("slug: gpu", "slug: tpu").replace("status: 2026-11", "status: 2026-13")},
        "entries/tpu.yaml:6: status: expected a month as YYYY-MM, got '2026-13'",
    ),
    "unknown language": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story") + "de:\n  headline: Schlagzeile\n"},
        "stories/b.yaml:14: de: unknown language 'de'; this site publishes in hu, en",
    ),
    "unknown section": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story").replace("section: code", "section: sport")},
        "stories/b.yaml:4: section: unknown section 'sport'; known: code" + listed("sections"),
    ),
    "unknown issue": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story").replace("issue: 1", "issue: 9")},
        "stories/b.yaml:3: issue: unknown issue number 9; known: 1",
    ),
    "time without offset": (
        {"issues/2.yaml": ISSUE.replace("number: 1", "number: 2").replace("+01:00", "")},
        "issues/2.yaml:5: published_at: expected a date and time with a UTC offset, as 2026-11-09T07:00:00+01:00:"
        " the UTC offset is missing",
    ),
    "published issue without its time": (
        {"issues/2.yaml": ISSUE.replace("number: 1", "number: 2").replace(
            "published_at: 2026-11-09T07:00:00+01:00\n", "")},
        "issues/2.yaml:4: published_at: a published issue needs its publication time, e.g. published_at: "
        "2026-11-09T07:00:00+01:00 (or status: draft)",
    ),
    "published issue dated ahead": (
        {"issues/2.yaml": ISSUE.replace("number: 1", "number: 2").replace("2026-11-09T07:00", "2099-11-09T07:00")
         .replace("2026-11-02", "2099-11-02").replace("2026-11-08", "2099-11-08")},
        "issues/2.yaml: published_at: 2099-11-09T07:00:00+01:00 is to come (now ",
    ),
    "week ending before it starts": (
        {"issues/2.yaml": ISSUE.replace("number: 1", "number: 2").replace("end: 2026-11-08", "end: 2026-11-01")},
        "issues/2.yaml:3: week.end: the week ends (2026-11-01) before it starts (2026-11-02)",
    ),
    "duplicate slug": (
        {"stories/b.yaml": STORY, "stories/c.yaml": STORY},
        "stories/c.yaml:2: slug: duplicate slug 'a-story': also in ",
    ),
    "duplicate key": (
        {"stories/b.yaml": STORY.replace("position: 1", "position: 1\nposition: 2")},
        "stories/b.yaml:6: position: duplicate key",
    ),
    "not a mapping": (
        {"stories/b.yaml": "- just\n- a list\n"},
        "stories/b.yaml:1: a content file must be a mapping with a `kind` field",
    ),
    "a page slug that is one of the site's own folders": (
        {"pages/archive.yaml": PAGE.replace("slug: about", "slug: archive")},
        "pages/archive.yaml:2: slug: 'archive' is the folder of the site's own archive pages ({lang}/archive/): "
        "give the page another slug (not issues, archive, glossary, reference, feeds, search)",
    ),
    # Aliases of aliases: nine lines that stand for 9**9 values, which took the import minutes and gigabytes.
    "YAML aliases": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story\n" + "\n".join(
            [f"x0: &a0 [{', '.join(['lol'] * 9)}]"] + [f"x{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]"
                                                        for i in range(1, 9)])).replace("  summary: Summary.",
                                                                                        "  summary: *a8")},
        "stories/b.yaml:4: x1[0]: a YAML alias of the value at line 3: content files take no anchors (&name) or "
        "aliases (*name); write the value out",
    ),
    "unknown kind": (
        {"stories/b.yaml": "kind: podcast\n"},
        "stories/b.yaml:1: kind: unknown kind 'podcast'; expected one of site, entry, reference, page, issue, story",
    ),
    # Valid files that would give the content an error every build stops on (as `newsroom check` names it).
    "a link to a missing entry": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story").replace("position: 1", "position: 2")
         .replace("  summary: Összefoglaló.", "  summary: Lásd [ezt](entry:nowhere).")},
        "stories/b.yaml:10: hu.summary: link to a missing entry 'nowhere'",
    ),
    "a citation without its source": (
        {"entries/tpu.yaml": ENTRY.replace("slug: gpu", "slug: tpu").replace("Graphics processor.",
                                                                            "Graphics processor [2].")},
        "entries/tpu.yaml:12: en.definition: citation [2] has no source (0 sources listed)",
    ),
    "a field in one language only": (
        {"entries/tpu.yaml": ENTRY.replace("slug: gpu", "slug: tpu").replace("  definition: Graphics processor.\n",
                                                                            "")},
        "entries/tpu.yaml:10: en.definition: missing translation (present in hu)",
    ),
    "a publication time without its offset, said once": (
        {"issues/2.yaml": ISSUE.replace("number: 1", "number: 2").replace(
            "published_at: 2026-11-09T07:00:00+01:00", "published_at: 2026-11-16T07:00:00").replace(
            "2026-11-0", "2026-11-1")},
        "issues/2.yaml:5: published_at: expected a date and time with a UTC offset",
    ),
    "a time where a date belongs, shown as written": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story").replace(
            'url: "https://example.org/a"}', 'url: "https://example.org/a", date: 2025-12-02T10:00:00Z}')},
        "stories/b.yaml:7: sources[0].date: expected a date as YYYY-MM-DD, got '2025-12-02T10:00:00+00:00'",
    ),
    "a section listed twice": (
        {"site.yaml": SITE.replace("  - {slug: code, hu: Kód, en: Code}\n",
                                   "  - {slug: code, hu: Kód, en: Code}\n  - {slug: code, hu: K2, en: C2}\n")},
        "site.yaml:6: sections[1].slug: 'code' is listed twice (also sections[0]): list each once",
    ),
    "a site with no name in a language": (
        {"site.yaml": SITE.replace("hu: {name: Hírek, tagline: Hetente}\n", "")},
        "site.yaml: hu.name: the publication has no name in this language",
    ),
    "a source URL with a quote pasted from markup": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story").replace(
            'url: "https://example.org/a"', "url: 'https://example.org/a\"onmouseover=\"x'")},
        "stories/b.yaml:7: sources[0].url: a URL holds no '\"' as it is (RFC 3986): write it as %22",
    ),
    "a source URL with no host": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story").replace(
            'url: "https://example.org/a"', 'url: "https:///a"')},
        "stories/b.yaml:7: sources[0].url: 'https:///a' names no host: expected e.g. https://example.org/page",
    ),
    # PostgreSQL stores no more in a slug's column (a traceback), where SQLite stored it all.
    "a slug longer than a slug may be": (
        {"entries/long.yaml": ENTRY.replace("slug: gpu", "slug: " + "-".join(["abcdefghi"] * 13))},
        "entries/long.yaml:2: slug: a slug of 129 characters: a slug has at most 120; shorten it",
    ),
    "a relation to an entry's slug longer than a slug may be": (
        {"entries/tpu.yaml": ENTRY.replace("slug: gpu", "slug: tpu\nrelations: {broader: [" + "a" * 121 + "]}")},
        "entries/tpu.yaml:3: relations.broader[0]: a slug of 121 characters: a slug has at most 120; shorten it",
    ),
    "a section's slug longer than a slug may be": (
        {"site.yaml": SITE.replace("  - {slug: code, hu: Kód, en: Code}\n", "  - {slug: code, hu: Kód, en: Code}\n"
                                   "  - {slug: " + "s" * 121 + ", hu: Hosszú, en: Long}\n")},
        "site.yaml:6: sections[1].slug: a slug of 121 characters: a slug has at most 120; shorten it",
    ),
    # A file's bytes hold no control character (YAML refuses them), but an escape writes one: SQLite stored it and
    # every build then stopped on a traceback at the feeds; PostgreSQL stores no NUL (a traceback at the import).
    "a control character written as a YAML escape": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story").replace("  headline: Címsor",
                                                                                   '  headline: "Cím\\0sor"')},
        "stories/b.yaml:9: hu.headline: holds the character U+0000, which no page, feed or email can hold: take it "
        'out (in a file, a YAML escape such as "\\0" or "\\x01" writes one)',
    ),
    "a form feed in Markdown": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story").replace("  summary: Summary.",
                                                                                   '  summary: "Sum\\fmary."')},
        "stories/b.yaml:13: en.summary: holds the character U+000C",
    ),
    "a source's language written as a word, not a language tag": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story").replace(
            'url: "https://example.org/a"}', 'url: "https://example.org/a", lang: English}')},
        "stories/b.yaml:7: sources[0].lang: expected a language tag, as en, de or pt-BR, got 'English'",
    ),
    "a source's language a tag of no language": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story").replace(
            'url: "https://example.org/a"}', 'url: "https://example.org/a", lang: xx}')},
        "stories/b.yaml:7: sources[0].lang: expected a language tag, as en, de or pt-BR, got 'xx'",
    ),
    "a source's language with the script its language goes without saying": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story").replace(
            'url: "https://example.org/a"}', 'url: "https://example.org/a", lang: hu-Latn}')},
        "stories/b.yaml:7: sources[0].lang: expected a language tag, as en, de or pt-BR, got 'hu-Latn'",
    ),
    "a story naming no entry among its terms": (
        {"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story\nterms: [nowhere]")},
        "stories/b.yaml:3: terms[0]: no glossary entry 'nowhere'",
    ),
}


#: The cases whose PostgreSQL leg runs: one refused while the files are read, one after they were written
#: into the transaction (rolled back); and those PostgreSQL itself refused with a traceback before they were
#: named (a column's length, a NUL). The others take one of the first two paths (suite time).
POSTGRES_CASES = (next(iter(CASES)), "a story naming no entry among its terms", "a slug longer than a slug may be",
                  "a relation to an entry's slug longer than a slug may be",
                  "a section's slug longer than a slug may be",
                  "a control character written as a YAML escape")


@pytest.mark.parametrize("case", [pytest.param(case, marks=() if case in POSTGRES_CASES else pytest.mark.sqlite_only(
    "its refusal takes the path of a case whose PostgreSQL leg runs")) for case in CASES])
def test_bad_input_is_refused_with_its_place_and_nothing_is_stored(base, write_files, tmp_path, case):
    files, expected = CASES[case]
    before = _stored(base, tmp_path)
    good = {"stories/good.yaml": STORY.replace("slug: a-story", "slug: good-story").replace(
        "Headline", "Changed headline")}
    folder = write_files({**good, **files})
    result = base("import", "--correction", "--reason", "corrected", str(folder), expect=1)  # issue 1 is published
    lines = [line.removeprefix(str(folder) + "/") for line in result.stderr.splitlines()]
    assert any(line.startswith(expected) for line in lines), result.stderr
    assert lines[-1].endswith("nothing was changed")
    if case.endswith("said once"):
        assert lines[-1] == "1 error; nothing was changed", result.stderr
    assert "Traceback" not in result.stderr
    assert _stored(base, tmp_path) == before  # the good file in the same run was not stored either


@pytest.mark.sqlite_only("the option is refused before the database is opened")
def test_an_editor_name_longer_than_the_history_records_is_refused(sample_cli):
    """A name longer than the history's column for it stopped the command on a traceback on PostgreSQL (and
    SQLite stored it all): the option is named, the record unchanged."""
    before = sample_cli("history", "entry:gpu").stdout
    refused = sample_cli("edit", "entry:gpu", "--set", "level=advanced", "--editor", "x" * 201, expect=2).stderr
    assert "Invalid value for '--editor': a name of 201 characters: the history records at most 200" in refused
    refused = sample_cli("import", "--editor", "x" * 201, str(SAMPLE_DIR), expect=2).stderr
    assert "Invalid value for '--editor'" in refused
    assert sample_cli("history", "entry:gpu").stdout == before
    sample_cli("edit", "entry:gpu", "--set", "level=advanced", "--editor", "x" * 200)


def test_an_issue_number_larger_than_the_database_holds_is_refused_or_found_nowhere(sample_cli):
    """PostgreSQL's whole numbers end at 2,147,483,647: a larger issue number given on the command line
    stopped the command on a traceback there (SQLite looked for it and found none)."""
    refused = sample_cli("issue", "show", "2147483648", expect=2).stderr
    assert "Invalid value for 'NUMBER': 2147483648 is not in the range x<=2147483647." in refused, refused
    assert sample_cli("history", "issue:99999999999", expect=1).stderr == "Error: no issue '99999999999'\n"
    assert sample_cli("edit", "99999999999", expect=1).stderr == \
        "Error: no entry, story, page or issue '99999999999'\n"


@pytest.mark.sqlite_only("reading a file's values does not depend on the database")
def test_an_impossible_date_is_named_by_a_dry_run_and_by_edit_too(base, write_files, tmp_path):
    """YAML reads 2026-02-30 as a date and the calendar refuses it: every way a file's values are read names
    the field, as a date given as text is named, instead of stopping on a traceback."""
    draft = ISSUE.replace("number: 1", "number: 2").replace(
        "status: published\npublished_at: 2026-11-09T07:00:00+01:00\n", "status: draft\n").replace(
        "2026-11-0", "2026-11-1")
    base("import", str(write_files({"issues/2.yaml": draft})))
    before = _stored(base, tmp_path)
    folder = write_files({"issues/2.yaml": draft.replace("start: 2026-11-12", "start: 2026-02-30")})
    refused = base("import", "--dry-run", str(folder), expect=1).stderr.splitlines()
    assert f"{folder / 'issues' / '2.yaml'}:3: week.start: expected a date as YYYY-MM-DD, got '2026-02-30'" in refused
    refused = base("edit", "2", "--set", "week={start: 2026-11-31, end: 2026-12-06}", expect=1).stderr.splitlines()
    assert "issue:2: week.start: expected a date as YYYY-MM-DD, got '2026-11-31'" in refused
    assert _stored(base, tmp_path) == before


def test_an_import_is_refused_for_the_build_stopping_errors_it_brings_and_no_others(base, write_files, tmp_path):
    """A draft issue's work in progress is free until it is scheduled; an error the content had already
    (stored with --no-check, as a backup is restored) does not stop an import, a new one does; and an error
    at a record the import does not hold is named there."""
    broken = STORY.replace("slug: a-story", "slug: wip").replace("issue: 1", "issue: 2").replace(
        "  summary: Summary.", "  summary: See [this](entry:nowhere).")
    draft = ISSUE.replace("number: 1", "number: 2").replace(
        "status: published\npublished_at: 2026-11-09T07:00:00+01:00\n", "status: draft\n").replace(
        "2026-11-0", "2026-11-1")
    base("import", str(write_files({"issues/2.yaml": draft, "stories/wip.yaml": broken})))
    scheduled = write_files({"issues/2.yaml": draft.replace("status: draft\n", (
        "status: scheduled\npublished_at: 2099-11-16T07:00:00+01:00\n"))})
    refused = base("import", str(scheduled), expect=1).stderr.splitlines()
    assert "story:wip: en.summary: link to a missing entry 'nowhere'" in refused  # not in the files imported
    assert refused[-2].startswith("every build would stop on this error, which the content did not have before")

    before = _stored(base, tmp_path)
    moved = write_files({"stories/a.yaml": STORY.replace("issue: 1", "issue: 2")})
    refused = base("import", "--correction", "--reason", "corrected", str(moved), expect=1).stderr
    assert ("issue:1: stories: a scheduled or published issue needs at least one story: its page, feed entry and "
            "email would be empty (add one with newsroom story add 1)") in refused.splitlines()
    assert _stored(base, tmp_path) == before

    linked = ENTRY.replace("Graphics processor.", "Graphics processor, see [this](entry:gone-one).")
    base("import", "--no-check", str(write_files({"entries/gpu.yaml": linked})))
    base("import", str(write_files({"entries/gpu.yaml": linked.replace("level: basic", "level: advanced")})))
    folder = write_files({"entries/gpu.yaml": linked.replace("[this]", "[that](entry:gone-two) and [this]")})
    refused = base("import", str(folder), expect=1).stderr.splitlines()
    assert f"{folder / 'entries' / 'gpu.yaml'}:12: en.definition: link to a missing entry 'gone-two'" in refused
    assert not any("'gone-one'" in line for line in refused)
    assert "level: advanced" in base("edit", "entry:gpu").stdout


def test_every_problem_of_a_run_is_reported_not_just_the_first(base, write_files):
    folder = write_files({name: files[next(iter(files))] for name, (files, _) in
                          [(f"stories/x{i}.yaml", CASES[c]) for i, c in enumerate(["unknown field", "wrong type"])]})
    result = base("import", str(folder), expect=1)
    assert "author: unknown field" in result.stderr and "position: expected a whole number" in result.stderr
    assert f"{folder / 'stories' / 'x1.yaml'}:2: slug: duplicate slug 'b-story': also in " in result.stderr  # both
    assert "3 errors; nothing was changed" in result.stderr


def test_a_missing_path_is_reported(base, tmp_path):
    result = base("import", str(tmp_path / "nowhere"), expect=1)
    assert f"{tmp_path / 'nowhere'}: no such file or folder" in result.stderr


def test_a_file_too_large_is_refused(base, write_files):
    folder = write_files({"stories/big.yaml": STORY.replace("Summary.", "x" * (3 * 1024 * 1024))})
    result = base("import", str(folder), expect=1)
    assert "file is larger than 2048 KiB" in result.stderr


@pytest.mark.sqlite_only
@pytest.mark.parametrize("damage, where, line, says", [
    (lambda folder: (folder / "entry.html").write_text("{% if %}\n", encoding="utf-8"),
     "entry.html", 1, "template syntax"),
    (lambda folder: (folder / "_macros.html").unlink(), "", None, "'_macros.html' is missing"),
    (lambda folder: (folder / "feeds" / "story.html").unlink(), "", None, "'feeds/story.html' is missing"),
    (lambda folder: (folder / "assets" / "search.js").unlink(), "assets", None, "the asset 'search.js' is missing"),
    # Templates that parse but fail as they render: in a render worker, in a feed entry, in the email.
    (lambda folder: _prepend(folder / "entry.html", "{{ 1 // 0 }}"), "entry.html", 1,
     "template error: ZeroDivisionError: integer division or modulo by zero"),
    (lambda folder: _prepend(folder / "feeds" / "story.html", "{{ '%d' % 'x' }}"), "feeds/story.html", 1,
     "template error: TypeError: %d format: a real number is required, not str"),
    (lambda folder: (_prepend(folder / "email" / "issue.txt", "{{ 1 // 0 }}"),
                     _prepend(folder / "base.html", "<!-- changed -->")),
     "email/issue.txt", 1, "template error: ZeroDivisionError"),
    # Every page changes too: the emails are made after the site, yet the site must stay as it was.
    (lambda folder: ((folder / "email" / "issue.html").write_text("<p>{{ broken( }}</p>\n", encoding="utf-8"),
                     (folder / "base.html").write_text((folder / "base.html").read_text(encoding="utf-8")
                                                       + "<!-- changed -->\n", encoding="utf-8")),
     "email/issue.html", 1, "template syntax"),
], ids=["page syntax", "missing import", "missing feed template", "missing asset", "page runtime",
        "feed runtime", "email runtime", "email syntax"])
def test_a_broken_template_folder_is_named_and_nothing_is_written(sample_cli, tmp_path, damage, where, line, says):
    # A template folder of one's own (--templates) is edited by hand: a template that does not parse
    # or is missing stops the build with its name (and line), before anything is written.
    import shutil

    from newsroom import PROJECT_ROOT

    templates = tmp_path / "templates"
    shutil.copytree(PROJECT_ROOT / "templates", templates)
    site, mail = tmp_path / "site", tmp_path / "mail"
    sample_cli("build", "--out", str(site), "--email-out", str(mail))
    before = {p: p.read_bytes() for p in [*site.rglob("*"), *mail.rglob("*")] if p.is_file()}
    damage(templates)
    # In render workers, as on an editor's machine: a page's error comes back from the worker that rendered it.
    result = sample_cli("build", "--out", str(site), "--email-out", str(mail), "--templates", str(templates),
                        "--jobs", "2", expect=1)
    place = f"{templates / where}:{line}: " if line else f"{(templates / where) if where else templates}: "
    assert place in result.stderr and says in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert {p: p.read_bytes() for p in [*site.rglob("*"), *mail.rglob("*")] if p.is_file()} == before


def test_a_stored_page_whose_slug_is_a_site_folder_is_named_by_check_and_build(sample_cli, write_files, tmp_path):
    """A page stored before its slug was refused (a release that took it, or a database edited by hand) would
    take the address of the site's own pages: `check` and `build` name it and the fix, and the site stays."""
    sample_cli("import", str(write_files({"pages/about.yaml": PAGE})))
    site = tmp_path / "site"
    sample_cli("build", "--out", str(site))
    before = {path: path.read_bytes() for path in site.rglob("*") if path.is_file()}
    engine = create_engine(sample_cli.db_url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE pages SET slug = 'issues', version = version + 1 WHERE slug = 'about'"))
    engine.dispose()
    says = ("page:issues: slug: 'issues' is the folder of the site's own issues pages ({lang}/issues/): "
            "give the page another slug")
    for command in (("check",), ("build", "--out", str(site))):
        result = sample_cli(*command, expect=1)
        assert says in result.stdout + result.stderr, (command, result.stdout, result.stderr)
        assert "Traceback" not in result.stderr
    assert {path: path.read_bytes() for path in site.rglob("*") if path.is_file()} == before


def test_a_reference_page_may_have_a_slug_a_site_page_may_not(sample_cli, tmp_path):
    # A reference page lives under `{lang}/reference/`: `search` is a slug like any other there.
    content = tmp_path / "content"
    sample_cli("export", str(content))
    reference = content / "reference" / "trainium.yaml"
    reference.write_text(reference.read_text(encoding="utf-8").replace("slug: trainium", "slug: search", 1),
                         encoding="utf-8")
    sample_cli("import", str(reference))
    site = tmp_path / "site"
    sample_cli("build", "--out", str(site))
    assert (site / "en" / "reference" / "search" / "index.html").is_file()


@pytest.mark.sqlite_only("which record a slug names is the same on either database")
def test_a_page_file_with_the_slug_of_a_page_of_the_other_kind_is_refused_not_swapped_in(sample_cli, tmp_path):
    """Reference and site pages share their slugs: a site page written as `trainium` turned the Trainium
    reference page, its sections and sources, into it without a word (its address gone, `page:trainium`
    links now leading to the site page); a reference page `method` did the same to the Method page."""
    content = tmp_path / "content"
    sample_cli("export", str(content))
    method = (content / "pages" / "method.yaml").read_text(encoding="utf-8")
    before = _stored(sample_cli, tmp_path)
    for kind, slug, other in (("page", "trainium", "reference"), ("reference", "method", "page")):
        path = tmp_path / f"{slug}.yaml"
        if kind == "page":
            path.write_text(method.replace("slug: method", "slug: trainium", 1), encoding="utf-8")
        else:
            path.write_text((content / "reference" / "trainium.yaml").read_text(encoding="utf-8").replace(
                "slug: trainium", "slug: method", 1), encoding="utf-8")
        refused = sample_cli("import", str(path), expect=1).stderr.splitlines()
        names = {"page": "site page", "reference": "reference page"}
        assert refused[0] == (
            f"{path}: slug: the {names[other]} {slug!r} has this slug (reference and site pages share their slugs), "
            f"and an import does not turn one into the other: give this {names[kind]} a slug of its own, or delete "
            f"that page first (`newsroom delete {other}:{slug}`)"), refused
    assert _stored(sample_cli, tmp_path) == before


#: (a line of newsroom.toml, the field named, what the message says)
BAD_SETTINGS = [
    ('feed_limit = "20"', "feed_limit", "expected a whole number, e.g. 20, not '20'"),
    ("feed_limit = 0", "feed_limit", "1 or more"),
    ("feed_limit = true", "feed_limit", "expected a whole number"),
    ("stale_after_months = -1", "stale_after_months", "0 or more"),
    ("base_url = 5", "base_url", 'expected text in quotes, e.g. "https://<your public host>/", not 5'),
    ('base_url = "news.example.org"', "base_url", "expected an absolute http(s) URL"),
    ('base_url = "https://example.org/a b/"', "base_url", "no spaces"),
    ('base_url = "https://example.org/?lang=hu"', "base_url", "no ?query or #fragment"),
    ('languages = "hu"', "languages", "expected a list of language codes"),
    ('languages = ["hu", "de"]', "languages", "unsupported language 'de': expected hu and/or en"),
    ('languages = ["hu", "hu"]', "languages", "a language is listed twice"),
    ("languages = []", "languages", "at least one language is required"),
    ('timezone = "Europe/Bp"', "timezone", "unknown time zone 'Europe/Bp'"),
    ('missing_translation = "hide"', "missing_translation", "expected fallback or omit"),
    ('email_from = "the newsroom"', "email_from", "expected one email address, e.g. News <news@example.org>"),
    ('email_reply_to = "a@example.org, b@example.org"', "email_reply_to", "expected one email address"),
    ('unsubscribe_mailto = "List <u@example.org>"', "unsubscribe_mailto", "without a name"),
    ('list_id = "weekly"', "list_id", "RFC 2919"),
    (f'list_id = "{"w" * 100}.{"e" * 80}.org"', "list_id", "a list id of 185 characters: each message's Message-ID "
     "is made of it, and a send records one of at most 250; shorten it to 180 at most"),
    ('unsubscribe_secret = ""', "unsubscribe_secret", "expected a secret"),
    ('unsubscribe_url = "ftp://example.org/u"', "unsubscribe_url", "expected an absolute http(s) URL"),
    ('feed_id_date = "2026-02-30"', "feed_id_date", "expected YYYY, YYYY-MM or YYYY-MM-DD"),
    ('templates = "no-such-folder"', "templates", "no folder no-such-folder"),
    ('base_ur = "https://example.org/"', "base_ur", "unknown setting; expected one of "),
]


@pytest.mark.sqlite_only
@pytest.mark.parametrize("line, field, says", BAD_SETTINGS, ids=[case[0] for case in BAD_SETTINGS])
def test_a_bad_setting_is_named_with_its_line_and_nothing_is_built(sample_cli, tmp_path, line, field, says):
    """newsroom.toml is edited by hand: a value of the wrong type or out of range stops every command that
    reads the settings with the file, the line and the setting, never a traceback, before anything is
    written."""
    site = tmp_path / "site"
    sample_cli("build", "--out", str(site))
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    settings = sample_cli.cwd / "newsroom.toml"
    other = 'timezone = "Europe/Budapest"' if field != "timezone" else "feed_limit = 20"
    settings.write_text(f"# the site\n{other}\n\n{line}\n", encoding="utf-8")
    for command in (["build", "--out", str(site)], ["check"]):
        result = sample_cli(*command, expect=1)
        assert f"newsroom.toml:4: {field}: " in result.stderr and says in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before


@pytest.mark.sqlite_only
def test_every_bad_setting_is_reported_at_once_and_an_option_s_by_its_name(sample_cli, tmp_path):
    settings = sample_cli.cwd / "newsroom.toml"
    settings.write_text('feed_limit = "many"\nstale_after_months = "six"\n', encoding="utf-8")
    result = sample_cli("check", expect=1)
    assert "newsroom.toml:1: feed_limit: " in result.stderr and "newsroom.toml:2: stale_after_months: " in result.stderr
    settings.write_text('timezone = "Nowhere/City"\nlist_id = "x"\n', encoding="utf-8")
    result = sample_cli("check", expect=1)
    assert "newsroom.toml:1: timezone: " in result.stderr and "newsroom.toml:2: list_id: " in result.stderr
    settings.write_text("feed_limit = [1\n", encoding="utf-8")
    assert "newsroom.toml: malformed TOML: " in sample_cli("check", expect=1).stderr
    settings.unlink()
    result = sample_cli("build", "--out", str(tmp_path / "site"), "--base-url", "news.example.org", expect=1)
    assert "command line: --base-url: expected an absolute http(s) URL" in result.stderr
    assert not (tmp_path / "site").exists()


def test_a_published_issue_stored_without_its_time_is_named_not_a_crash(sample_cli, tmp_path):
    """One stored before import checked for it (or by hand): `check` and `build` name it, and the
    corrections listing, which dates them from the publication, does not fail on it."""
    engine = create_engine(sample_cli.db_url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE issues SET published_at = NULL WHERE number = 13"))
    engine.dispose()
    says = "issue:13: published_at: a published issue needs its publication time"
    assert says in sample_cli("check", expect=1).stderr
    built = sample_cli("build", "--out", str(tmp_path / "site"), expect=1)
    assert says in built.stderr and "Traceback" not in built.stderr
    sample_cli("issue", "corrections", "13")


def test_an_import_does_not_take_back_a_published_issue_or_move_its_time(sample_cli, tmp_path):
    """`edit` refuses it; a content file did it silently, and the issue left the site and its feeds."""
    exported = tmp_path / "export"
    sample_cli("export", str(exported))
    issue = exported / "issues" / "0013.yaml"
    text = issue.read_text(encoding="utf-8")
    before = _stored(sample_cli, tmp_path)
    says = "issue 13 is published (at 2026-11-09T07:00:00+01:00): its status and publication time stay, as its " \
           "feeds and emails went out with them; this file says status: "
    for edited, said in (
            (text.replace("status: published", "status: draft").replace(
                "published_at: '2026-11-09T06:00:00+00:00'\n", ""), f"{issue}: status: {says}draft"),
            (text.replace("T06:00:00+00:00", "T09:00:00+01:00"),
             f"{issue}: published_at: {says}published, published_at: 2026-11-09T09:00:00+01:00")):
        issue.write_text(edited, encoding="utf-8")
        assert said in sample_cli("import", "--force", str(issue), expect=1).stderr.splitlines()
        assert _stored(sample_cli, tmp_path) == before
    # The same moment in another offset, with a new title: a correction like any other.
    issue.write_text(text.replace("T06:00:00+00:00", "T07:00:00+01:00").replace(
        "a week of custom chips", "the week of custom chips"), encoding="utf-8")
    assert sample_cli("import", "--force", "--correction", "--reason", "corrected", str(issue)
                      ).stdout.startswith("0 created, 1 updated")
    assert "issue:13  en.title" in sample_cli("issue", "corrections", "13").stdout


@pytest.mark.sqlite_only("the wording of a refusal does not depend on the database")
def test_an_import_gives_publication_times_in_the_site_s_time_zone(base, write_files, tmp_path, monkeypatch):
    """As `issue schedule` and `issue publish` do (Europe/Budapest here), whatever offset the file wrote or
    the database stores (UTC): not 06:00+00:00 for a Monday 7 o'clock issue."""
    monkeypatch.setenv("NEWSROOM_NOW", "2026-12-01T08:00:00+00:00")
    before = _stored(base, tmp_path)
    ahead = ISSUE.replace("number: 1", "number: 2").replace("2026-11-09T07:00:00+01:00", "2027-07-05T05:00:00Z") \
        .replace("2026-11-02", "2027-06-28").replace("2026-11-08", "2027-07-04")
    moved = ISSUE.replace("2026-11-09T07:00:00+01:00", "2026-11-09T08:00:00+01:00")
    result = base("import", str(write_files({"issues/2.yaml": ahead, "issues/1.yaml": moved})), expect=1)
    folder = result.stderr.split("issues/")[0]
    assert result.stderr.replace(folder, "").splitlines() == [
        "issues/1.yaml: published_at: issue 1 is published (at 2026-11-09T07:00:00+01:00): its status and "
        "publication time stay, as its feeds and emails went out with them; this file says status: published, "
        "published_at: 2026-11-09T08:00:00+01:00",
        "issues/2.yaml: published_at: 2027-07-05T07:00:00+02:00 is to come (now 2026-12-01T09:00:00+01:00), and a "
        "published issue has gone out: to publish it then, say status: scheduled (the build shows it once its "
        "time has come)",
        "2 errors; nothing was changed"]
    assert _stored(base, tmp_path) == before


@pytest.mark.sqlite_only("what the refusal says is worked out in Python, the same on every database")
def test_the_sample_refused_on_an_empty_database_says_why_not_that_records_stored_here_would_change(
        cli, monkeypatch):
    """Nothing is stored: the clock is before the time the sample's last issue is published."""
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-06T10:00:00+01:00")
    result = cli("init", "--sample", expect=1)
    assert result.stderr.splitlines() == [
        f"{SAMPLE_DIR / 'issues' / '0013.yaml'}: published_at: 2026-11-09T07:00:00+01:00 is to come (now "
        "2026-11-06T10:00:00+01:00), and a published issue has gone out: to publish it then, say status: scheduled "
        "(the build shows it once its time has come)",
        "the sample publication's last issue is published at 2026-11-09T07:00:00+01:00, after the clock "
        "(2026-11-06T10:00:00+01:00, as $NEWSROOM_NOW sets it): load it with a later clock",
        "1 error; nothing was changed"]
    assert cli("issue", "list").stdout == "no issue yet: `newsroom issue new` makes the first\n"


@pytest.mark.sqlite_only("which records differ is worked out in Python, the same on every database")
def test_the_sample_over_another_publication_names_the_records_it_would_change_not_a_traceback(base, tmp_path):
    """Its site file is kept (the stored one differs), so its stories' sections, its entries' categories and
    the audiences of both are not there: named, with the records stored here that the sample would change."""
    before = _stored(base, tmp_path)
    lines = base("init", "--sample", expect=1).stderr.splitlines()
    assert f"{SAMPLE_DIR / 'stories' / 'i13-nvidia-vera-rubin-shipments.yaml'}:4: section: unknown section " \
           "'money': the site stored here is kept, and it has none such; known: code" + listed("sections") in lines
    assert lines[-2:] == [
        "the sample publication would change records stored here (entry:gpu, page:method, site): run `newsroom "
        "init` without --sample to create or upgrade the schema alone",
        "216 errors; nothing was changed"]
    assert _stored(base, tmp_path) == before


def _sample_site(categories: str, audiences: str) -> str:
    """The sample's site file with other lists of categories and audiences (its sections: all there)."""
    site = (SAMPLE_DIR / "site.yaml").read_text("utf-8")
    return site.split("categories:")[0] + f"categories:\n{categories}audiences:\n{audiences}"


@pytest.mark.sqlite_only("which terms are missing is worked out in Python, the same on every database")
def test_the_sample_over_a_site_lacking_its_categories_and_audiences_names_them_and_stores_nothing(
        cli, write_files, tmp_path):
    """The stored site is kept: an entry's category, a story's or an entry's audience it lacks is named at
    its line, as a story's section is, not stored (it named a category page there is none of)."""
    cli("init")
    cli("import", "--no-check", str(write_files({"site.yaml": _sample_site(
        "  - {slug: models, hu: Modellek, en: Models}\n", "  - {slug: developer, hu: fejlesztő, en: developer}\n")})))
    before = _stored(cli, tmp_path)
    lines = cli("init", "--sample", expect=1).stderr.splitlines()
    for line in [
            f"{SAMPLE_DIR / 'entries' / 'gpu.yaml'}:3: category: unknown category 'infrastructure': the site stored "
            "here is kept, and it has none such; known: models" + listed("categories"),
            f"{SAMPLE_DIR / 'stories' / 'i13-nvidia-vera-rubin-shipments.yaml'}:7: audiences[1]: unknown audience "
            "'executive': the site stored here is kept, and it has none such; known: developer" + listed("audiences"),
            f"{SAMPLE_DIR / 'entries' / 'ai-accelerator.yaml'}:77: hu.affected[1].audiences[0]: unknown audience "
            "'entrepreneur': the site stored here is kept, and it has none such; known: developer"
            + listed("audiences")]:
        assert line in lines
    assert lines[-2:] == [
        "the sample publication would change records stored here (site): run `newsroom init` without --sample "
        "to create or upgrade the schema alone",
        "157 errors; nothing was changed"]
    assert _stored(cli, tmp_path) == before


@pytest.mark.sqlite_only("which terms stay is worked out in Python, the same on every database")
def test_the_sample_over_a_site_with_more_terms_keeps_them_all(cli, write_files, tmp_path):
    """The stored site is kept whole: a category the sample's site file does not list is not dropped."""
    sample = (SAMPLE_DIR / "site.yaml").read_text("utf-8")
    cli("init")
    cli("import", "--no-check", str(write_files({"site.yaml": sample.replace(
        "categories:\n", "categories:\n  - {slug: hardware, hu: Hardver, en: Hardware}\n")})))
    cli("init", "--sample")
    assert "slug: hardware" in _stored(cli, tmp_path)["site.yaml"].decode("utf-8")


@pytest.mark.sqlite_only("which terms are missing is worked out in Python, the same on every database")
def test_a_story_in_a_section_of_a_refused_site_file_is_named(base, write_files, tmp_path):
    """The site file is refused (edited while the stored site changed since the export): the stored site
    stays, and a story in a section only the file lists is named at its line, not stored."""
    export = tmp_path / "export"
    base("export", str(export))
    base("import", str(write_files({"site.yaml": SITE.replace("Weekly", "Every week")})))
    site = export / "site.yaml"
    site.write_text(site.read_text("utf-8").replace("  en: Code\n", "  en: Code\n- slug: money\n  hu: Pénz\n"
                                                                      "  en: Money\n"), encoding="utf-8")
    (export / "stories" / "b.yaml").write_text(STORY.replace("slug: a-story", "slug: b-story")
                                               .replace("section: code", "section: money"), encoding="utf-8")
    before = _stored(base, tmp_path)
    refused = base("import", "--correction", "--reason", "Added a story", str(export), expect=1).stderr
    assert refused.splitlines() == [
        f"{site}: the site file changed in the database since this file was exported, and the file was edited "
        "too, so importing it would overwrite that change. Export again and reapply your edit (`--force` stores "
        "this file as it is)",
        f"{export / 'stories' / 'b.yaml'}:4: section: unknown section 'money': the site stored here is kept, and "
        "it has none such; known: code" + listed("sections"),
        "2 errors; nothing was changed"]
    assert _stored(base, tmp_path) == before


def test_an_issue_week_stored_backwards_is_an_error_and_an_overlapping_one_a_warning(sample_cli, tmp_path):
    """`issue new` refuses both; a content file may give an overlapping week (import stores it, `check`
    warns), and one stored backwards before import checked for it is an error of `check` and the build."""
    overlapping = tmp_path / "0014.yaml"
    overlapping.write_text(ISSUE.replace("number: 1", "number: 14").replace("status: published", "status: draft")
                           .replace("2026-11-02", "2026-11-05").replace("2026-11-08", "2026-11-11")
                           .replace("published_at: 2026-11-09T07:00:00+01:00\n", ""), encoding="utf-8")
    sample_cli("import", str(overlapping))
    warned = sample_cli("check").stderr
    assert "issue:14: week: warning: 2026-11-05–2026-11-11 overlaps the week of issue 13 (2026-11-02–2026-11-08)" \
        in warned.splitlines()
    engine = create_engine(sample_cli.db_url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE issues SET week_end = '2026-11-01' WHERE number = 13"))
    engine.dispose()
    says = "issue:13: week.end: the week ends (2026-11-01) before it starts (2026-11-02)"
    assert says in sample_cli("check", expect=1).stderr.splitlines()
    assert says in sample_cli("build", "--out", str(tmp_path / "site"), expect=1).stderr


def test_site_yaml_is_the_whole_list_of_sections_categories_and_audiences(base, write_files, tmp_path):
    """A name dropped from site.yaml is gone (it used to stay, and every import of that file "updated"
    it again); one that a stored record still uses is refused, naming them, unless the same import
    moves them elsewhere."""
    with_models = SITE.replace("categories:\n", "categories:\n  - {slug: models, hu: Modellek, en: Models}\n")
    base("import", str(write_files({"site.yaml": with_models})))
    assert "slug: models" in _stored(base, tmp_path)["site.yaml"].decode()
    base("import", str(write_files({"site.yaml": SITE})))
    assert "slug: models" not in _stored(base, tmp_path)["site.yaml"].decode()
    assert "0 created, 0 updated, 1 unchanged" in base("import", str(write_files({"site.yaml": SITE}))).stdout

    money = SITE.replace("  - {slug: code, hu: Kód, en: Code}", "  - {slug: money, hu: Pénz, en: Money}")
    before = _stored(base, tmp_path)
    refused = base("import", str(write_files({"site.yaml": money})), expect=1)
    assert ("site.yaml: sections: the section 'code' is no longer listed, but story:a-story still uses it: list "
            "it again, or give it another section first") in refused.stderr
    assert _stored(base, tmp_path) == before
    moved = STORY.replace("section: code", "section: money")
    base("import", "--correction", "--reason", "corrected",
         str(write_files({"site.yaml": money, "stories/a.yaml": moved})))
    stored = _stored(base, tmp_path)
    assert "slug: code" not in stored["site.yaml"].decode()
    assert "section: money" in stored["stories/a-story.yaml"].decode()


@pytest.mark.sqlite_only
def test_a_path_through_a_file_or_a_taken_port_is_a_message_not_a_traceback(sample_cli, tmp_path):
    import socket

    from tests.conftest import Cli

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    for command in (["build", "--out", str(blocker / "site")], ["export", str(blocker / "export")],
                    ["email", "13", "--lang", "en", "--out", str(blocker / "mail")],
                    ["glossary", "new", "new-entry", "--out", str(blocker / "new-entry.yaml")]):
        result = sample_cli(*command, expect=1)
        assert f"{blocker}" in result.stderr and result.stderr.rstrip().endswith("the command stopped"), result.stderr
    result = Cli(f"sqlite:///{blocker / 'news.db'}", tmp_path)("init", expect=1)
    assert result.stderr.startswith(f"Error: --db sqlite:///{blocker / 'news.db'}: cannot connect to the database: "
                                    "unable to open database file"), result.stderr
    assert f"{blocker} is a file, not a folder: name a database file elsewhere" in result.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for command in (["unsubscribe-server", "--port", str(port)], ["serve", "--port", str(port)]):
            result = sample_cli(*command, expect=1)
            assert f"cannot listen on 127.0.0.1:{port}: " in result.stderr, result.stderr


@pytest.mark.sqlite_only
def test_a_source_url_stored_before_the_rule_still_exports_and_builds_escaped(sample_cli, tmp_path):
    """A URL with a quote stored before such URLs were refused stays readable (no record is lost to a new
    rule), and a page writes it escaped."""
    engine = create_engine(sample_cli.db_url)
    slug = "i13-aws-trainium3-capacity"
    with engine.begin() as connection:
        stored = connection.execute(text("SELECT sources FROM stories WHERE slug = :slug"), {"slug": slug}).scalar()
        sources = json.loads(stored) if isinstance(stored, str) else stored
        sources[0]["url"] = 'https://example.org/a"b'
        connection.execute(text("UPDATE stories SET sources = :sources WHERE slug = :slug"),
                           {"sources": json.dumps(sources), "slug": slug})
    engine.dispose()
    sample_cli("export", str(tmp_path / "out"))
    assert 'https://example.org/a"b' in (tmp_path / "out/stories" / f"{slug}.yaml").read_text(encoding="utf-8")
    sample_cli("build", "--out", str(tmp_path / "site"))
    page = html5lib.parse((tmp_path / "site/en/issues/13/index.html").read_bytes(), namespaceHTMLElements=False)
    assert "https://example.org/a\"b" in [a.get("href") for a in page.iter("a")]


@pytest.mark.sqlite_only("reading the folder is the same on either database")
def test_a_folder_s_hidden_files_are_no_content_and_a_link_to_nothing_is_named(base, write_files, tmp_path):
    """A content repository's `.git` and `.github` hold YAML of their own: it was read as content (and
    refused as malformed); a `*.yaml` link whose file is gone was passed over without a word."""
    folder = write_files({"stories/b.yaml": STORY.replace("slug: a-story", "slug: b-story"),
                          ".git/c.yaml": "[unclosed", ".github/workflows/ci.yaml": "on: push\n"})
    (folder / "stories" / "gone.yaml").symlink_to(tmp_path / "nowhere.yaml")
    refused = base("import", "--correction", "--reason", "corrected", str(folder), expect=1).stderr.splitlines()
    assert refused == [f"{folder / 'stories' / 'gone.yaml'}: a link to {tmp_path / 'nowhere.yaml'}, which is not "
                       "there: mend or remove the link", "1 error; nothing was changed"], refused
    (folder / "stories" / "gone.yaml").unlink()
    assert base("import", "--correction", "--reason", "corrected", str(folder)).stdout.startswith("1 created")


#: What a story file's unknown field `colour` is told.
UNKNOWN_COLOUR = ("colour: unknown field for a story; expected one of slug, formerly, issue, section, position, tags, "
                  "audiences, terms, suppress_terms, sources, hu, en")


@pytest.mark.sqlite_only("reading a file's values does not depend on the database")
def test_every_duplicate_key_of_a_file_is_named_with_its_other_problems(base, write_files, tmp_path):
    """A file with a key written twice was refused for its first such key alone: the next, and the file's
    other problems, came one import at a time."""
    before = _stored(base, tmp_path)
    story = STORY.replace("slug: a-story", "slug: b-story\nslug: c-story").replace(
        "position: 1", "position: 2\ncolour: red\nposition: 3").replace("  headline: Címsor\n",
                                                                         "  headline: Címsor\n  headline: Más\n")
    folder = write_files({"stories/b.yaml": story})
    refused = base("import", "--correction", "--reason", "r", str(folder), expect=1).stderr.splitlines()
    assert [line.removeprefix(str(folder) + "/") for line in refused] == [
        "stories/b.yaml:3: slug: duplicate key (also at line 2): keep one of them",
        "stories/b.yaml:7: " + UNKNOWN_COLOUR,
        "stories/b.yaml:8: position: duplicate key (also at line 6): keep one of them",
        "stories/b.yaml:13: hu.headline: duplicate key (also at line 12): keep one of them",
        "4 errors; nothing was changed",
    ]
    assert _stored(base, tmp_path) == before


@pytest.mark.sqlite_only("reading a file's values does not depend on the database")
def test_a_text_field_takes_a_plain_value_as_written_and_an_export_gives_it_back(base, write_files, tmp_path):
    """`headline: 2026-11-05` was refused (YAML reads a date) while `headline: 2026-11-31` was taken as text,
    and `1.50` became 1.5: a text field now takes what the file says, whatever YAML would read it as."""
    story = STORY.replace("slug: a-story", "slug: b-story\ntags: [2026-11-05, 1.50, yes, 0x1F, 1:30, 2026-11-31]")\
        .replace("position: 1", "position: 2").replace("  headline: Címsor", "  headline: 2026-11-05")\
        .replace("  headline: Headline", "  headline: 2026-11-31").replace("  summary: Summary.", "  summary: 1.50")
    base("import", "--correction", "--reason", "r", str(write_files({"stories/b.yaml": story})))
    shown = base("edit", "b-story").stdout
    assert "tags:\n- '2026-11-05'\n- '1.50'\n- 'yes'\n- '0x1F'\n- '1:30'\n- '2026-11-31'\n" in shown, shown
    assert "hu:\n  headline: '2026-11-05'\n" in shown and "en:\n  headline: '2026-11-31'\n  summary: '1.50'\n" in shown
    base("export", str(tmp_path / "out"))
    assert base("import", str(tmp_path / "out")).stdout.startswith("0 created, 0 updated, "), "not the same records"


@pytest.mark.sqlite_only("collecting a run's problems does not depend on the database")
def test_an_import_names_every_problem_of_its_files_in_one_run(base, write_files, tmp_path):
    """A story file with an unknown field and a section the site does not list was refused for its field
    alone, and the section came with the next import; a valid file's unknown category came only once no
    file had a problem of its own."""
    before = _stored(base, tmp_path)
    story = STORY.replace("slug: a-story", "slug: b-story\ncolour: red").replace("section: code", "section: nowhere")\
        .replace("position: 1", "position: 2")
    entry = ENTRY.replace("slug: gpu", "slug: tpu").replace("category: infrastructure", "category: chips")
    folder = write_files({"stories/b.yaml": story, "entries/tpu.yaml": entry,
                          "stories/c.yaml": "kind: story\nslug: [c\n"})
    refused = base("import", "--correction", "--reason", "r", str(folder), expect=1).stderr.splitlines()
    assert [line.removeprefix(str(folder) + "/") for line in refused] == [
        "entries/tpu.yaml:3: category: unknown category 'chips'; known: infrastructure" + listed("categories"),
        "stories/b.yaml:3: " + UNKNOWN_COLOUR,
        "stories/b.yaml:5: section: unknown section 'nowhere'; known: code" + listed("sections"),
        "stories/c.yaml:3: malformed YAML: while parsing a flow sequence did not find expected ',' or ']' (the "
        "file's fields are checked once it parses)",
        "4 errors; nothing was changed",
    ]
    # Files that each read well: the unknown category, and a change to a published issue, named together.
    folder = write_files({"stories/a.yaml": STORY.replace("Headline", "New headline"), "entries/tpu.yaml": entry})
    refused = base("import", str(folder), expect=1).stderr.splitlines()
    assert [line.removeprefix(str(folder) + "/") for line in refused] == [
        "entries/tpu.yaml:3: category: unknown category 'chips'; known: infrastructure" + listed("categories"),
        "stories/a.yaml: issue 1 is published, and this file changes its en.headline: that is a correction readers "
        "are shown; import with --correction --reason \"Fixed the chip's name in the headline\" to make it (it is "
        "listed among the issue's corrections with that reason)",
        "2 errors; nothing was changed",
    ]
    assert _stored(base, tmp_path) == before


@pytest.mark.sqlite_only("reading a file's values does not depend on the database")
def test_a_yaml_alias_is_named_at_its_line_with_the_file_s_other_problems(base, write_files):
    """An alias stopped the reading of its file: its other problems came with the next import. It stands for
    no value now (no required field is said to be missing for it), and the value it names is not read again."""
    story = STORY.replace("slug: a-story", "slug: &s b-story\ncolour: red").replace("section: code", "section: *s")
    folder = write_files({"stories/b.yaml": story})
    refused = base("import", "--correction", "--reason", "r", str(folder), expect=1).stderr.splitlines()
    assert [line.removeprefix(str(folder) + "/") for line in refused] == [
        "stories/b.yaml:3: " + UNKNOWN_COLOUR,
        "stories/b.yaml:5: section: a YAML alias of the value at line 2: content files take no anchors (&name) or "
        "aliases (*name); write the value out",
        "2 errors; nothing was changed",
    ]


@pytest.mark.sqlite_only("which records an import goes on to does not depend on the database")
def test_stories_of_an_issue_file_refused_are_not_stored_into_an_issue_that_is_not_there(cli, write_files, tmp_path):
    """An issue file refused in an import (published at a time to come) was left out, and its stories, in the
    same import, then looked for it in the database: a traceback. They wait for their issue, as named."""
    cli("init")
    before = _stored(cli, tmp_path)
    ahead = ISSUE.replace("2026-11-09T07:00:00+01:00", "2099-11-09T07:00:00+01:00")
    folder = write_files({"site.yaml": SITE, "issues/1.yaml": ahead, "stories/a.yaml": STORY})
    refused = cli("import", str(folder), expect=1).stderr.splitlines()
    assert [line.removeprefix(str(folder) + "/").split(" (now ")[0] for line in refused] == [
        "issues/1.yaml: published_at: 2099-11-09T07:00:00+01:00 is to come",
        "1 error; nothing was changed",
    ], refused
    assert _stored(cli, tmp_path) == before
