"""Issue assembly and the workflow through the CLI: each transition, each refusal, the weekly scenario."""

from __future__ import annotations

import dataclasses
import datetime as dt
import email
import email.policy
import json
import re
from pathlib import Path

import feedparser
import html5lib
import pytest
from sqlalchemy import create_engine, text
from conftest import Cli, Meanwhile
from sitebuild import BASE, ISSUE_14_STORY, ISSUE_15_STORY, SCHEDULED_ISSUE, SPECIAL_ISSUE_15, shown_text

from newsroom.checks.changes import with_own
from newsroom.diagnostics import unknown_term

#: Build-heavy tests whose database work the other tests already cover on every backend.
sqlite_only = pytest.mark.parametrize("databases", ["sqlite"], indirect=True)

#: The tests' working folder holds a published site's newsroom.toml: `check` names the content's problems alone
#: (of the preview's default address it warns, as a public build does: see test_addresses).
pytestmark = pytest.mark.usefixtures("public_address")

#: Friday of the week of Issue 13 (Nov 2–8, 2026): the coming week is Nov 9–15.
FRIDAY = "2026-11-06T10:00:00+01:00"
MONDAY_MORNING = "2026-11-16T08:00:00+01:00"


@pytest.fixture
def desk(sample_cli, monkeypatch):
    """The sample publication, an editor's name and a fixed clock."""
    monkeypatch.setenv("NEWSROOM_NOW", FRIDAY)
    monkeypatch.setenv("NEWSROOM_EDITOR", "anna")
    return sample_cli


def story_args(n: int, section: str = "code", **extra: str) -> list[str]:
    args = ["--section", section, "--headline-hu", f"Hír {n}", "--headline-en", f"Story {n}",
            "--summary-hu", f"Összefoglaló {n} [1].", "--summary-en", f"Summary {n} [1].",
            "--source-url", f"https://example.org/{n}", "--publisher", "Example", "--tag", "chips"]
    for key, value in extra.items():
        args += [f"--{key.replace('_', '-')}", value]
    return args


def new_issue(cli, *args: str) -> None:
    cli("issue", "new", "--title-hu", "Tesztszám", "--title-en", "Test issue", *args)


def snapshot(cli, tmp: Path) -> dict[str, str]:
    """Every stored record as exported text: equal snapshots, nothing changed."""
    out = tmp / f"export-{len(list(tmp.glob('export-*')))}"
    cli("export", str(out))
    return {p.relative_to(out).as_posix(): p.read_text(encoding="utf-8") for p in out.rglob("*.yaml")}


def parse(path: Path):
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(path.read_bytes())


def text_of(document) -> str:
    """The main element's text with runs of ASCII whitespace collapsed (thin spaces stay)."""
    return re.sub(r"[ \t\n]+", " ", " ".join(document.find(".//main").itertext()))


def build(cli, *args: str) -> Path:
    out = cli.cwd / "_site"
    cli("build", "--out", str(out), *args)
    return out


def _same_files(left: Path, right: Path) -> list[str]:
    """Paths missing on one side or holding other bytes."""
    ours, theirs = ({p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}
                    for root in (left, right))
    return sorted(path for path in ours.keys() | theirs.keys() if ours.get(path) != theirs.get(path))


@pytest.mark.sqlite_only("which issue the site names the latest is decided from the content, whatever the database")
def test_the_issue_published_last_is_the_latest_one_wherever_the_site_names_one(desk, write_files, monkeypatch):
    """A special issue 15 comes out on Friday, the regular issue 14 at its scheduled time on Monday. From then
    on the home page, every page's masthead, the editions list, the feeds and the build's email folder agree
    that 14 is the latest issue, in the build that follows Friday's as in a full one."""
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-13T10:30:00+01:00")
    desk("import", str(write_files({"issues/0014.yaml": SCHEDULED_ISSUE, "stories/s14.yaml": ISSUE_14_STORY,
                                    "issues/0015.yaml": SPECIAL_ISSUE_15, "stories/s15.yaml": ISSUE_15_STORY})))
    site, email = build(desk, "--base-url", BASE), desk.cwd / "_email"
    assert "Issue 15 · " in text_of(parse(site / "en" / "index.html")) and (email / "en" / "issue-15.eml").is_file()
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-16T07:30:00+01:00")
    site = build(desk, "--base-url", BASE)
    full, full_email = desk.cwd / "_full", desk.cwd / "_full_email"
    desk("build", "--full", "--out", str(full), "--email-out", str(full_email), "--base-url", BASE)
    assert _same_files(site, full) == [] and _same_files(email, full_email) == []

    for lang, line, title in (("en", "Issue 14 · Nov 9–15, 2026", "Scheduled"),
                              ("hu", "14. szám · 2026. nov. 9–15.", "Ütemezett")):
        home = parse(site / lang / "index.html")
        assert line in text_of(home) and title in text_of(home), f"{lang} home page"
        for page in (site / lang / "index.html", site / lang / "issues" / "15" / "index.html",
                     site / lang / "glossary" / "trainium" / "index.html"):
            masthead = next(p for p in parse(page).iter("p") if p.get("class") == "issue-line")
            assert "".join(masthead.itertext()) == line and masthead.find("a").get("href") == f"/{lang}/issues/14/"
        editions = [a.get("href") for a in parse(site / lang / "issues" / "index.html").find(".//main").iter("a")
                    if re.fullmatch(rf"/{lang}/issues/\d+/", a.get("href") or "")]
        assert editions[:3] == [f"/{lang}/issues/{n}/" for n in (14, 15, 13)], editions
        feed = feedparser.parse((site / lang / "feeds" / "issues.xml").read_bytes())
        assert [entry.link for entry in feed.entries[:3]] == [f"{BASE}{lang}/issues/{n}/" for n in (14, 15, 13)]
        links = {a.get("rel"): a.get("href") for a in parse(site / lang / "issues" / "14" / "index.html").iter("a")
                 if a.get("rel") in ("prev", "next")}
        assert links == {"prev": f"/{lang}/issues/15/"}, "the latest issue has no newer one"
        assert sorted(p.name for p in (email / lang).iterdir()) == [f"issue-14.{s}" for s in ("eml", "html", "txt")]


@sqlite_only
def test_weekly_scenario_new_issue_eight_stories_publish(desk, monkeypatch):
    new_issue(desk)
    sections = ["code", "code", "money", "money", "policy", "science", "society", "society"]
    for n, section in enumerate(sections, start=1):
        desk("story", "add", "14", *story_args(n, section), *(["--term", "trainium"] if n == 3 else []))
    site = build(desk)
    assert not (site / "en" / "issues" / "14").exists(), "a draft must never appear in a normal build"
    assert "Test issue" not in (site / "en" / "issues" / "index.html").read_text(encoding="utf-8")

    # On the Monday after its week, as issue 13 came out on the 9th: published before 13, it would not be the latest.
    monkeypatch.setenv("NEWSROOM_NOW", MONDAY_MORNING)
    desk("issue", "publish", "14")
    site = build(desk)
    en, hu = (parse(site / lang / "issues" / "14" / "index.html") for lang in ("en", "hu"))
    assert "Issue 14 · Nov 9–15, 2026" in text_of(en)
    assert "14. szám · 2026. nov. 9–15." in text_of(hu)
    headlines = [h.text for h in en.iter("h3")]
    assert headlines == [f"Story {n}" for n in range(1, 9)]  # sections in the site's order, stories in order
    assert "Published: November 16, 2026, 8:00\u202fAM CET" in text_of(en)
    home = parse(site / "hu" / "index.html")
    assert "14. szám · 2026. nov. 9–15." in text_of(home), "home shows the latest published issue"
    editions = [a.text for a in parse(site / "en" / "issues" / "index.html").find(".//main").iter("a")
                if (a.get("href") or "").startswith("/en/issues/1")]
    assert editions[0].startswith("Issue 14") and editions[1].startswith("Issue 13"), "newest first"
    data = json.loads(next(s.text for s in en.iter("script") if s.get("type") == "application/ld+json"))
    assert "CreativeWork" in data["@type"] and data["inLanguage"] == "en"
    assert data["datePublished"] == data["dateModified"] == "2026-11-16T08:00:00+01:00"
    assert [part["headline"] for part in data["hasPart"]] == [f"Story {n}" for n in range(1, 9)]
    assert all(part["@type"] == "NewsArticle" for part in data["hasPart"])
    links = {a.get("rel") or a.text: a.get("href") for a in en.iter("a")}
    assert links["prev"] == "/en/issues/13/" and "next" not in links
    assert links["Trainium"] == "/en/glossary/trainium/", "terms a story mentions link to the glossary"
    assert links["Code"] == "/en/archive/section/code/"
    assert (site / "en" / "archive" / "section" / "code" / "index.html").is_file()
    tag_page = parse(site / "en" / "archive" / "tag" / "chips" / "index.html")
    assert "Story 1" in text_of(tag_page)
    older = {a.get("rel"): a.get("href") for a in parse(site / "en" / "issues" / "13" / "index.html").iter("a")}
    assert older["next"] == "/en/issues/14/"
    citation = next(sup.find("a") for sup in en.iter("sup") if sup.get("class") == "cite")
    assert citation.get("href") == "#story-i14-story-1--source-1"
    assert any(a.get("id") == "story-i14-story-1--source-1" for a in en.iter("a"))


@pytest.mark.parametrize(("now", "expected"), [
    ("2026-11-09T08:00:00+01:00", "2026-11-09 – 2026-11-15"),  # Monday morning, issue 13 just out
    ("2026-11-12T10:00:00+01:00", "2026-11-09 – 2026-11-15"),  # the week the stories are being collected
    ("2026-11-15T23:00:00+01:00", "2026-11-09 – 2026-11-15"),
    ("2026-12-02T10:00:00+01:00", "2026-11-30 – 2026-12-06"),  # after a break: this week, not the missed ones
])
def test_a_new_issue_covers_the_week_after_the_last_one_or_else_this_week(desk, monkeypatch, now, expected):
    """An issue covers a week's news and comes out the Monday after (issue 13: Nov 2–8, out Nov 9): the next
    one covers the week after, the one under way; the coming week's default skipped it from Monday on."""
    monkeypatch.setenv("NEWSROOM_NOW", now)
    assert desk("issue", "new").stdout.strip() == f"issue 14 created (draft): {expected}"
    following = desk("issue", "new").stdout.strip()  # working ahead: the week after that
    start = dt.date.fromisoformat(expected[:10]) + dt.timedelta(weeks=1)
    assert following == f"issue 15 created (draft): {start} – {start + dt.timedelta(days=6)}"


@sqlite_only
def test_new_issue_defaults_to_next_number_and_coming_week(desk):
    result = desk("issue", "new")
    assert result.stdout.strip() == "issue 14 created (draft): 2026-11-09 – 2026-11-15"
    desk("issue", "new", "--week", "2026-W53")
    shown = desk("issue", "show", "15").stdout
    assert shown.splitlines()[:3] == ["15. szám · 2026. dec. 28.\u2009–\u20092027. jan. 3.",
                                      "Issue 15 · Dec 28, 2026\u2009–\u2009Jan 3, 2027", "status: draft"]


def test_issue_show_lists_sections_in_order_and_missing_translations(desk):
    new_issue(desk)
    desk("story", "add", "14", "--section", "money", "--headline-hu", "Csak magyarul", "--summary-hu", "Szöveg.",
         "--source-url", "https://example.org/a", "--slug", "only-hu")
    desk("story", "add", "14", *story_args(1, "code"), "--slug", "first")
    lines = desk("issue", "show", "14").stdout.splitlines()
    assert lines.index("Kód / Code [code]") < lines.index("Pénz / Money [money]")
    assert "  1. first" in lines and "     en: — missing —" in lines
    assert "  story:only-hu: en.headline: missing translation (present in hu)" in lines
    assert "  story:only-hu: en.summary: missing translation (present in hu)" in lines


@sqlite_only
def test_a_slug_made_from_a_long_headline_ends_at_the_end_of_a_word(desk):
    """It was cut at 60 characters, mid-word: `…-hyperscale-data-c`."""
    new_issue(desk)
    said = desk("story", "add", "14", *story_args(1), "--headline-en", "An extraordinarily long headline about "
                "hyperscale data centres and their electricity").stdout
    assert said.startswith("story i14-an-extraordinarily-long-headline-about-hyperscale-data added to issue 14")


@pytest.mark.sqlite_only("a slug is made in Python, the same on every database")
def test_a_slug_made_from_a_headline_in_any_script_spells_its_words(desk):
    """A Greek, Cyrillic or Chinese headline gave no ASCII words, so `i14-story`; Hungarian letters lose their
    accents as before. A slug made stays when the headline changes."""
    new_issue(desk)
    for headline, slug in (("Őszi ülés: új szabályok a hűtésről", "i14-oszi-ules-uj-szabalyok-a-hutesrol"),
                           ("Νέα τσιπ για τα κέντρα δεδομένων", "i14-nea-tsip-gia-ta-kentra-dedomenon"),
                           ("Новые чипы Nvidia 🚀", "i14-novye-chipy-nvidia"),
                           ("英伟达发布新芯片", "i14-ying-wei-da-fa-bu-xin-xin-pian")):
        said = desk("story", "add", "14", *story_args(1), "--headline-en", headline).stdout
        assert said.startswith(f"story {slug} added to issue 14"), said
    assert desk("story", "edit", "i14-nea-tsip-gia-ta-kentra-dedomenon", "--headline-en", "Другой заголовок") \
        .stdout.strip() == "story i14-nea-tsip-gia-ta-kentra-dedomenon updated"
    assert "i14-nea-tsip-gia-ta-kentra-dedomenon" in desk("issue", "show", "14").stdout

@sqlite_only
def test_story_add_from_a_file(desk, write_files):
    new_issue(desk)
    folder = write_files({"story.yaml": """\
section: science
tags: [research]
sources: [{publisher: Nature, title: A paper, url: "https://example.org/paper"}]
hu: {headline: Fájlból, summary: Magyar szöveg.}
en: {headline: From a file, summary: English text.}
"""})
    result = desk("story", "add", "14", "--file", str(folder / "story.yaml"))
    assert result.stdout.strip() == "story i14-from-a-file added to issue 14, science #1"
    bad = write_files({"story.yaml": "section: science\nsources:\n  - {title: T, url: not-a-url}\n"})
    result = desk("story", "add", "14", "--file", str(bad / "story.yaml"), expect=1)
    assert f"{bad / 'story.yaml'}:3: sources[0].url: expected an http(s) or mailto URL, got 'not-a-url'" \
        in result.stderr.splitlines()
    # A text field takes a plain value as written, as an import does (YAML reads a date and a number here).
    dated = write_files({"story.yaml": """\
section: science
tags: [2026-11-05]
sources: [{publisher: Nature, title: A paper, url: "https://example.org/paper"}]
hu: {headline: 2026-11-05, summary: Magyar szöveg.}
en: {headline: 1.50, summary: English text.}
"""})
    desk("story", "add", "14", "--file", str(dated / "story.yaml"), "--slug", "dated")
    shown = desk("edit", "dated").stdout
    assert "tags:\n- '2026-11-05'\n" in shown and "headline: '2026-11-05'" in shown and "headline: '1.50'" in shown


@pytest.mark.sqlite_only("a source's fields are one JSON value on either database; its round trip is tested in test_store")
def test_story_add_and_edit_give_a_source_s_language(desk):
    """--source-lang pairs with its --source-url as --publisher does: the source's `lang`, which a page in
    another language marks its title with (as a content file's `lang:`)."""
    new_issue(desk)
    desk("story", "add", "14", *story_args(1), "--slug", "s1", "--source-lang", "en")
    assert "  url: https://example.org/1\n  lang: en\n" in desk("edit", "s1").stdout
    link = next(a for a in parse(build(desk, "--drafts") / "hu/issues/14/index.html").iter("a")
                if a.get("href") == "https://example.org/1")
    assert (link.get("lang"), link.text) == ("en", "Example")
    desk("story", "edit", "s1", "--source-url", "https://example.org/hu", "--source-title", "Magyar cím",
         "--source-lang", "hu")
    assert "- title: Magyar cím\n  url: https://example.org/hu\n  lang: hu\n" in desk("edit", "s1").stdout
    result = desk("story", "edit", "s1", "--source-url", "https://example.org/x", "--source-lang", "english!",
                  expect=1)
    assert "story:s1: sources[0].lang: expected a language tag, as en, de or pt-BR, got 'english!'" \
        in result.stderr.splitlines()


def test_stories_move_between_sections_and_positions(desk):
    new_issue(desk)
    for n in (1, 2, 3):
        desk("story", "add", "14", *story_args(n, "code"), "--slug", f"s{n}")
    desk("story", "move", "s3", "--position", "1")
    desk("story", "move", "s1", "--section", "money")
    lines = desk("issue", "show", "14").stdout.splitlines()
    code = lines.index("Kód / Code [code]")
    assert lines[code + 1:code + 6:3] == ["  1. s3", "  2. s2"]
    money = lines.index("Pénz / Money [money]")
    assert lines[money + 1] == "  1. s1"
    for command in (["story", "move", "s2", "--position", "0"], ["story", "add", "14", *story_args(4), "--position", "-1"]):
        assert "'--position': " in desk(*command, expect=2).stderr  # places start at 1
    assert desk("issue", "show", "14").stdout.splitlines() == lines


def places(cli, number: int) -> dict[str, list[str]]:
    """Each section of issue `number` that holds stories, with them in order as `issue show` lists them."""
    found: dict[str, list[str]] = {}
    section = None
    for line in cli("issue", "show", str(number)).stdout.splitlines():
        if re.fullmatch(r".* \[[a-z-]+\]", line):
            section = line.rsplit("[", 1)[1][:-1]
        elif section and re.fullmatch(r"  [0-9]+\. \S+", line):
            found.setdefault(section, []).append(line.strip())
    return found


@pytest.mark.sqlite_only("the places are worked out in Python, the same on every database")
def test_a_story_edited_into_another_issue_or_section_goes_last_there_and_its_draft_closes_up(desk):
    """As `story add` places a story and `delete` closes up a draft's section: no gap left behind, no place
    shared with a story already there (which `check` would warn about), unless the edit gives the place."""
    new_issue(desk)
    new_issue(desk)
    for number, prefix in ((14, "a"), (15, "b")):
        for n in (1, 2):
            desk("story", "add", str(number), *story_args(n), "--slug", f"{prefix}{n}")
    desk("edit", "story:a1", "--set", "issue=15")
    assert places(desk, 14) == {"code": ["1. a2"]}
    assert places(desk, 15) == {"code": ["1. b1", "2. b2", "3. a1"]}
    desk("edit", "story:a2", "--set", "issue=15", "--set", "position=1")  # a place given: the others move down
    assert places(desk, 14) == {}
    assert places(desk, 15) == {"code": ["1. a2", "2. b1", "3. b2", "4. a1"]}
    desk("edit", "story:b1", "--set", "section=money")
    assert places(desk, 15) == {"code": ["1. a2", "2. b2", "3. a1"], "money": ["1. b1"]}
    assert desk("check").stderr == ""


@pytest.mark.sqlite_only("the places are worked out in Python, the same on every database")
def test_a_story_edited_to_another_place_in_its_section_moves_there_and_the_others_renumber(desk):
    """As `story move --position` does: places stay 1..n, none shared (which `check` would warn about), none
    left empty; the rest of the edit is saved with the move, as one version."""
    new_issue(desk)
    for n in (1, 2, 3):
        desk("story", "add", "14", *story_args(n), "--slug", f"s{n}")
    said = desk("edit", "story:s3", "--set", "position=1", "--set", "en.headline=Story three").stdout.strip()
    assert said == "story s3: saved as version 2"
    assert places(desk, 14) == {"code": ["1. s3", "2. s1", "3. s2"]}
    desk("edit", "s3", "--set", "position=9")  # past the last place: last, as with `story move`
    assert places(desk, 14) == {"code": ["1. s1", "2. s2", "3. s3"]}
    assert desk("check").stderr == ""
    history = desk("history", "story:s3").stdout.splitlines()
    assert [line.split("changed: ")[-1] for line in history[1:3]] == ["position", "en.headline, position"]


def test_an_edit_that_moves_a_published_story_and_changes_it_is_one_correction(desk, monkeypatch):
    """One edit is one revision: one correction line readers are shown, with its reason."""
    new_issue(desk)
    for n in (1, 2):
        desk("story", "add", "14", *story_args(n), "--slug", f"s{n}")
    desk("issue", "publish", "14")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-07T11:00:00+01:00")
    desk("edit", "story:s1", "--set", "section=money", "--set", "en.headline=Story one", "--correction",
         "--reason", "the wrong section")
    assert desk("issue", "corrections", "14").stdout.splitlines() == [
        "November 7, 2026, 11:00\u202fAM CET  anna  story:s1  en.headline, section — the wrong section"]
    assert places(desk, 14) == {"code": ["2. s2"], "money": ["1. s1"]}
    history = desk("history", "story:s1").stdout.splitlines()
    assert history[0] == "story s1: version 2 is current" and len(history) == 3, history


@pytest.mark.sqlite_only("the places are worked out in Python, the same on every database")
def test_story_move_takes_a_story_to_another_issue(desk):
    new_issue(desk)
    new_issue(desk)
    for number, prefix in ((14, "a"), (15, "b")):
        for n in (1, 2, 3):
            desk("story", "add", str(number), *story_args(n), "--slug", f"{prefix}{n}")
    assert desk("story", "move", "a2", "--issue", "15").stdout.strip() == "story a2 is now in issue 15, code #4"
    assert places(desk, 14) == {"code": ["1. a1", "2. a3"]}
    assert places(desk, 15) == {"code": ["1. b1", "2. b2", "3. b3", "4. a2"]}
    moved = desk("story", "move", "a3", "--issue", "15", "--section", "money", "--position", "1").stdout.strip()
    assert moved == "story a3 is now in issue 15, money #1"
    desk("story", "move", "a1", "--issue", "15", "--position", "2")
    assert places(desk, 15) == {"code": ["1. b1", "2. a1", "3. b2", "4. b3", "5. a2"], "money": ["1. a3"]}
    assert desk("story", "move", "b1", "--issue", "15").stdout.strip() == "story b1 is now code #5"
    assert "issue:99: number: no issue 99" in desk("story", "move", "b2", "--issue", "99", expect=1).stderr
    assert desk("check").stderr == ""


def test_a_story_moved_out_of_a_published_issue_leaves_the_others_in_their_places(desk, monkeypatch):
    """As `delete` leaves them: renumbering them would list each as a correction readers are shown."""
    new_issue(desk)
    for n in (1, 2, 3):
        desk("story", "add", "14", *story_args(n), "--slug", f"s{n}")
    desk("issue", "publish", "14")
    new_issue(desk)
    desk("story", "add", "15", *story_args(4), "--slug", "b1")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-07T11:00:00+01:00")
    refused = desk("story", "move", "s1", "--issue", "15", expect=1).stderr
    assert "issue 14 is published; to change it, add --correction" in refused
    desk("edit", "story:s1", "--set", "issue=15", "--correction", "--reason", "next week's")
    assert places(desk, 14) == {"code": ["2. s2", "3. s3"]}
    assert places(desk, 15) == {"code": ["1. b1", "2. s1"]}
    desk("story", "move", "s2", "--issue", "15", "--correction", "--reason", "next week's")
    assert places(desk, 14) == {"code": ["3. s3"]}
    assert places(desk, 15) == {"code": ["1. b1", "2. s1", "3. s2"]}
    assert [line.split("  ", 2)[2] for line in desk("issue", "corrections", "14").stdout.splitlines()] == [
        "story:s1  moved — next week's", "story:s2  moved — next week's"]


@pytest.mark.sqlite_only("the places are stored as the files give them, the same on every database")
def test_a_file_moving_a_story_to_another_issue_is_imported_as_written(desk, tmp_path):
    """An import stores what its files say, places included (an exported folder is put back as it was, and
    a renumbered record would differ from its file): a place two stories then share is a `check` warning."""
    new_issue(desk)
    new_issue(desk)
    for number, slug in ((14, "a1"), (14, "a2"), (15, "b1")):
        desk("story", "add", str(number), *story_args(int(slug[1])), "--slug", slug)
    story = tmp_path / "a1.yaml"
    story.write_text(desk("edit", "story:a1").stdout.split("\n", 1)[1].replace("issue: 14", "issue: 15"),
                     encoding="utf-8")
    desk("import", str(story))
    assert places(desk, 14) == {"code": ["2. a2"]}
    assert places(desk, 15) == {"code": ["1. a1", "1. b1"]}
    assert desk("check").stderr.splitlines() == [
        "story:b1: position: warning: 1 is also the place of story 'a1' in section 'code' of issue 15: the pages "
        "show them by slug; give each its own place (newsroom story move)", "0 error(s), 1 warning(s)"]


def test_every_cli_write_keeps_export_and_import_consistent(desk, tmp_path):
    new_issue(desk)
    for n in (1, 2):
        desk("story", "add", "14", *story_args(n), "--slug", f"s{n}")
    desk("story", "move", "s2", "--position", "1")
    desk("issue", "publish", "14")
    out = tmp_path / "backup"
    desk("export", str(out))
    result = desk("import", str(out))
    assert result.stdout.strip().startswith("0 created, 0 updated,")


def test_schedule_then_publish_keeps_the_scheduled_time(desk, monkeypatch):
    new_issue(desk)
    desk("story", "add", "14", *story_args(1))
    desk("issue", "schedule", "14", "--at", "2026-11-09T07:00")
    assert "status: scheduled" in desk("issue", "show", "14").stdout
    site = build(desk)
    assert not (site / "en" / "issues" / "14").exists(), "not before its time"
    monkeypatch.setenv("NEWSROOM_NOW", MONDAY_MORNING)
    site = build(desk)
    assert (site / "en" / "issues" / "14" / "index.html").is_file(), "a scheduled issue appears once its time passed"
    assert "status: published November 9, 2026, 7:00\u202fAM CET" in desk("issue", "show", "14").stdout
    refused = desk("issue", "publish", "14", expect=1)
    assert "issue:14: status: issue 14 is already published at 2026-11-09T07:00:00+01:00" in refused.stderr


def test_unschedule_returns_to_draft(desk):
    new_issue(desk)
    desk("story", "add", "14", *story_args(1))
    desk("issue", "schedule", "14", "--at", "2026-11-09T07:00+01:00")
    desk("issue", "unschedule", "14")
    assert "status: draft" in desk("issue", "show", "14").stdout


def test_an_issue_whose_time_has_come_is_not_unscheduled(desk):
    """Builds show a scheduled issue once its time has come: taking it back then would unpublish it. The
    commands record it as published first (see below); the workflow refuses it even when nothing has."""
    import datetime as dt

    from issues import workflow
    from issues.revisions import Change
    from newsroom.db.session import make_engine, transaction
    from newsroom.diagnostics import ContentError
    from newsroom.settings import Settings

    new_issue(desk)
    desk("story", "add", "14", *story_args(1))
    desk("issue", "schedule", "14", "--at", "2026-11-09T07:00+01:00")
    engine = make_engine(desk.db_url)
    later = Change("anna", dt.datetime(2026, 11, 9, 6, 5, tzinfo=dt.timezone.utc), ("hu", "en"))
    with pytest.raises(ContentError) as refused, transaction(engine) as session:
        workflow.unschedule(session, Settings(), later, 14)
    engine.dispose()
    assert ("issue:14: status: issue 14's scheduled time, November 9, 2026, 7:00\u202fAM CET, has passed: it counts "
            "as published since then") in str(refused.value)
    assert "status: scheduled" in desk("issue", "show", "14").stdout


@pytest.mark.sqlite_only("the wording of a refusal does not depend on the database")
def test_unschedule_just_after_the_time_says_the_issue_went_out_then_and_what_can_still_change(desk, monkeypatch):
    """`issue list` said "scheduled" a minute before; no command has recorded it as published yet."""
    new_issue(desk)
    desk("story", "add", "14", *story_args(1), "--slug", "s1")
    desk("issue", "schedule", "14", "--at", "2026-11-16T07:00")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-16T07:05:00+01:00")
    refused = desk("issue", "unschedule", "14", expect=1).stderr.splitlines()
    assert refused == [
        "issue:14: status: issue 14's scheduled time, November 16, 2026, 7:00\u202fAM CET, has passed: it counts as "
        "published since then (builds from that time on show it, its feed entry and email may have gone out), "
        "and a published issue is not taken back; its texts and stories can still change as corrections readers "
        "are shown (newsroom issue edit 14 … --correction --reason …, newsroom story edit SLUG … --correction "
        "--reason …)", "1 error; nothing was changed"]
    assert "status: published November 16, 2026, 7:00\u202fAM CET" in desk("issue", "show", "14").stdout


@pytest.mark.sqlite_only("the wording of a refusal does not depend on the database")
def test_an_edit_of_an_issue_s_status_names_only_the_commands_that_can_change_it(desk):
    new_issue(desk)
    desk("story", "add", "14", *story_args(1), "--slug", "s1")
    refused = desk("edit", "14", "--set", "status=published", expect=1).stderr.splitlines()[0]
    assert refused == ("issue:14: status: issue 14 is a draft: `newsroom issue schedule 14 --at TIME` schedules it "
                       "and `newsroom issue publish 14` publishes it now, each checking it first")
    # Both fields at once: the refusal is said once, naming both.
    refused = desk("edit", "14", "--set", "status=published", "--set", "published_at=2026-11-06T09:00:00+01:00",
                   expect=1).stderr.splitlines()
    assert refused == ["issue:14: status, published_at: issue 14 is a draft: `newsroom issue schedule 14 --at TIME` "
                       "schedules it and `newsroom issue publish 14` publishes it now, each checking it first",
                       "1 error; nothing was changed"]
    desk("issue", "schedule", "14", "--at", "2026-11-16T07:00")
    refused = desk("edit", "14", "--set", "status=draft", expect=1).stderr.splitlines()[0]
    assert refused == ("issue:14: status: issue 14 is scheduled for November 16, 2026, 7:00\u202fAM CET: `newsroom "
                       "issue unschedule 14` makes it a draft again, `newsroom issue schedule 14 --at TIME` moves its "
                       "time and `newsroom issue publish 14` publishes it now")
    desk("issue", "unschedule", "14")
    desk("issue", "publish", "14")
    refused = desk("edit", "14", "--set", "status=draft", "--correction", "--reason", "corrected",
                   expect=1).stderr.splitlines()[0]
    assert refused == ("issue:14: status: issue 14 was published at November 6, 2026, 10:00\u202fAM CET: its status "
                       "and publication time stay, as its feeds and emails went out with them; its texts and stories "
                       "can still change as corrections readers are shown (newsroom issue edit 14 … --correction "
                       "--reason …, newsroom story edit SLUG … --correction --reason …)")


def test_a_scheduled_issue_is_recorded_as_published_when_its_time_comes(desk, monkeypatch):
    """From its time on, builds show a scheduled issue and its feed entry goes out: the next command records
    it as published at that time, so a change to it is a correction readers see, as for any published issue."""
    new_issue(desk)
    for n in (1, 2):
        desk("story", "add", "14", *story_args(n), "--slug", f"s{n}")
    desk("issue", "schedule", "14", "--at", "2026-11-09T07:00+01:00")
    desk("story", "edit", "s1", "--headline-en", "Story one")  # before its time: work in progress
    assert desk("issue", "corrections", "14").stdout.strip() == "issue 14: no corrections"
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-09T07:05:00+01:00")
    assert (build(desk) / "en" / "issues" / "14" / "index.html").is_file()
    shown = desk("issue", "show", "14")
    assert "status: published November 9, 2026, 7:00\u202fAM CET" in shown.stdout
    assert "issue 14: its scheduled time has come; recorded as published" not in shown.stderr  # the build did
    # The reason is in the site's first language, as an editor's --reason is by default: no "[en]" mark.
    history = desk("history", "issue:14").stdout
    assert "  schedule  changed: status — megjelent az ütemezett időpontjában" in history, history
    refused = desk("issue", "unschedule", "14", expect=1).stderr
    assert "issue:14: status: issue 14's scheduled time, November 9, 2026, 7:00\u202fAM CET, has passed" in refused
    with create_engine(desk.db_url).begin() as connection:  # as recorded before: in English, whatever the site's
        connection.execute(text("UPDATE revisions SET reason = 'published at its scheduled time', reason_lang = 'en' "
                                "WHERE changed_by = 'schedule'"))
    refused = desk("issue", "unschedule", "14", expect=1).stderr
    assert "issue:14: status: issue 14's scheduled time, November 9, 2026, 7:00\u202fAM CET, has passed" in refused
    refused = desk("story", "edit", "s1", "--headline-en", "Story 1", expect=1).stderr
    assert "issue 14 is published; to change it, add --correction" in refused
    refused = desk("delete", "story:s2", expect=1).stderr
    assert "its issue 14 is published; to remove the story add --correction" in refused
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-09T07:30:00+01:00")
    desk("story", "edit", "s1", "--headline-en", "Story 1", "--correction", "--reason", "typo", "--editor", "bela")
    assert desk("issue", "corrections", "14").stdout.strip() == (
        "November 9, 2026, 7:30\u202fAM CET  bela  story:s1  en.headline — typo")
    refused = desk("issue", "publish", "14", expect=1).stderr
    assert "issue 14 is already published at 2026-11-09T07:00:00+01:00; its publication time stays" in refused


def test_an_issue_file_written_while_scheduled_is_no_change_once_published_at_its_time(desk, monkeypatch, tmp_path):
    """Content files kept beside the database still say `status: scheduled` after the issue's time; that is
    what the database says (published at that time), not an attempt to take it back."""
    import shutil

    new_issue(desk)
    desk("story", "add", "14", *story_args(1), "--slug", "s1")
    desk("issue", "schedule", "14", "--at", "2026-11-09T07:00+01:00")
    desk("export", str(tmp_path / "export"))
    plain = tmp_path / "plain"  # the same file without the export's manifest
    plain.mkdir()
    shutil.copy(tmp_path / "export" / "issues" / "0014.yaml", plain)
    assert "status: scheduled" in (plain / "0014.yaml").read_text(encoding="utf-8")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-10T09:00:00+01:00")
    assert desk("import", str(plain)).stdout.strip() == "0 created, 0 updated, 1 unchanged"
    assert "status: published" in desk("issue", "show", "14").stdout
    assert desk("import", str(tmp_path / "export")).stdout.strip().startswith("0 created, 0 updated,")
    edited = (plain / "0014.yaml").read_text(encoding="utf-8").replace("status: scheduled", "status: draft")
    (plain / "0014.yaml").write_text(edited, encoding="utf-8")
    refused = desk("import", str(plain), expect=1).stderr
    assert "issue 14 is published (at 2026-11-09T07:00:00+01:00): its status and publication time stay" in refused


def test_any_command_records_a_scheduled_issue_whose_time_has_come(desk, monkeypatch):
    """Not only a build: the first command that reads the content after that time, and says so."""
    new_issue(desk)
    desk("story", "add", "14", *story_args(1))
    desk("issue", "schedule", "14", "--at", "2026-11-09T07:00+01:00")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-09T06:59:00+01:00")
    assert "status: scheduled" in desk("issue", "show", "14").stdout
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-10T09:00:00+01:00")
    checked = desk("check")
    assert "issue 14: its scheduled time has come; recorded as published" in checked.stderr
    again = desk("issue", "show", "14")
    assert "status: published November 9, 2026, 7:00" in again.stdout and "recorded as published" not in again.stderr
    refused = desk("issue", "unschedule", "14", expect=1).stderr
    assert "issue:14: status: issue 14's scheduled time, November 9, 2026, 7:00\u202fAM CET, has passed" in refused


def test_two_commands_that_find_an_issue_due_at_once_both_go_on(desk, monkeypatch):
    """Editors of a shared database run commands at the same moment: one records the issue as published,
    the other, which found it scheduled and waited for that change to be committed, goes on without error."""
    import datetime as dt

    from issues.schedule import publish_due
    from newsroom.db.session import make_engine, transaction

    new_issue(desk)
    desk("story", "add", "14", *story_args(1))
    desk("issue", "schedule", "14", "--at", "2026-11-09T07:00+01:00")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-09T07:05:00+01:00")
    engine = make_engine(desk.db_url)
    with transaction(engine) as session:
        assert publish_due(session, dt.datetime(2026, 11, 9, 6, 4, tzinfo=dt.timezone.utc), ("hu", "en")) == [14]
        session.flush()  # the row is changed (and locked) here, not yet committed
        other = Meanwhile(lambda: desk("issue", "show", "14", expect=None))
        assert other.waiting(), "the other command waits for this transaction"
    shown = other.outcome()
    engine.dispose()
    assert shown.exit_code == 0, shown.stderr
    assert "status: published November 9, 2026, 7:00" in shown.stdout
    history = desk("history", "issue:14").stdout
    assert history.count("megjelent az ütemezett időpontjában") == 1, history


def test_an_edit_goes_on_while_a_reading_command_records_an_issue_due(desk, databases, monkeypatch):
    """A build (any command) records an issue whose time has come while an editor's correction of it starts:
    the edit waits for that record and goes on as a correction. On PostgreSQL the edit found the issue still
    scheduled, recorded it too, collided with the build's record and stopped on "another editor saved this
    record" (SQLite's write lock made them take turns already)."""
    import threading

    import issues.schedule as schedule
    from newsroom.cli import App

    if databases.backend == "sqlite":
        pytest.skip("SQLite: a command's write lock makes the two take turns")
    new_issue(desk)
    desk("story", "add", "14", *story_args(1), "--slug", "s1")
    desk("issue", "schedule", "14", "--at", "2026-11-09T07:00+01:00")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-09T07:05:00+01:00")
    recorded, release, real = threading.Event(), threading.Event(), schedule.publish_due

    def record_then_hold(session, now, languages):  # the reading command's transaction, held open
        published = real(session, now, languages)
        if threading.current_thread().name == "reading":
            session.flush()
            recorded.set()
            release.wait(30)
        return published

    monkeypatch.setattr(schedule, "publish_due", record_then_hold)
    app = App(desk.db_url)
    reading = threading.Thread(target=app.open_content, name="reading")
    reading.start()
    assert recorded.wait(30)
    edit = Meanwhile(lambda: desk("story", "edit", "s1", "--headline-en", "Story one", "--correction", "--reason",
                                  "typo", expect=None))
    release.set()
    reading.join(30)
    app.close()
    edited = edit.outcome()
    assert edited.exit_code == 0, edited.stderr
    assert desk("issue", "corrections", "14").stdout.strip().endswith("anna  story:s1  en.headline — typo")
    assert desk("history", "issue:14").stdout.count("megjelent az ütemezett időpontjában") == 1


@sqlite_only
def test_a_reading_command_goes_on_while_another_command_writes(desk, monkeypatch):
    """Recording a due issue is a write; a command that only reads does not fail for it while an import
    holds the database: it shows the issue as stored and leaves the record to the next command."""
    import sqlite3

    from sqlalchemy.engine import make_url

    from newsroom.db import session as db_session

    new_issue(desk)
    desk("story", "add", "14", *story_args(1))
    desk("issue", "schedule", "14", "--at", "2026-11-09T07:00+01:00")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-09T08:00:00+01:00")
    monkeypatch.setattr(db_session, "BUSY_TIMEOUT_MS", 200)  # how long a connection made now waits
    holder = sqlite3.connect(make_url(desk.db_url).database)
    holder.execute("BEGIN IMMEDIATE")  # another command's write under way
    try:
        shown = desk("issue", "show", "14")
        assert "status: scheduled" in shown.stdout and "recorded as published" not in shown.stderr
        refused = desk("story", "edit", "i14-story-1", "--headline-en", "New", expect=1).stderr
        assert "another command (an import, an edit, a build) was writing to the database" in refused
    finally:
        holder.rollback()
        holder.close()
    assert "status: published" in desk("issue", "show", "14").stdout


def test_issue_list_shows_every_issue_newest_first_with_its_state(desk, monkeypatch):
    new_issue(desk)
    desk("story", "add", "14", *story_args(1), "--slug", "s1")
    lines = desk("issue", "list").stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["14", "13", "12", "11", "10"]
    assert lines[0] == "  14  2026-11-09 – 2026-11-15  draft  1 story  Tesztszám / Test issue"
    assert lines[1].startswith("  13  2026-11-02 – 2026-11-08  published November 9, 2026, 7:00\u202fAM CET  "
                               "11 stories  Trainium, TPU, GPU")
    assert desk("issue", "list", "--status", "scheduled").stdout == "no scheduled issue\n"
    desk("issue", "schedule", "14", "--at", "2026-11-09T07:00")
    assert desk("issue", "list", "--status", "scheduled").stdout.splitlines() == [
        "  14  2026-11-09 – 2026-11-15  scheduled November 9, 2026, 7:00\u202fAM CET  1 story  "
        "Tesztszám / Test issue"]
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-10T09:00:00+01:00")
    desk("story", "edit", "s1", "--headline-en", "Story one", "--correction", "--reason", "typo")
    listed = desk("issue", "list", "--status", "published").stdout.splitlines()
    assert listed[0] == ("  14  2026-11-09 – 2026-11-15  published November 9, 2026, 7:00\u202fAM CET  "
                         "1 story, 1 correction  Tesztszám / Test issue")
    assert len(listed) == 5
    refused = desk("issue", "list", "--status", "sent", expect=2).stderr
    assert "'sent' is not one of 'draft', 'scheduled', 'published'" in refused


def test_a_place_below_1_stored_before_the_rule_is_shown_exported_warned_about_and_mended(desk, tmp_path):
    """Content files are held to places from 1; a story stored at 0 before that still shows and exports
    (a backup never fails on it), `check` warns, and `story move` mends it."""
    from sqlalchemy import text

    from newsroom.db.session import make_engine

    slug = "i13-aws-trainium3-capacity"
    engine = make_engine(desk.db_url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE stories SET position = 0 WHERE slug = :slug"), {"slug": slug})
    engine.dispose()
    assert "\nposition: 0\n" in desk("edit", f"story:{slug}").stdout
    desk("export", str(tmp_path / "backup"))
    warned = desk("check").stderr
    assert f"story:{slug}: position: warning: 0: places count from 1" in warned
    refused = desk("edit", f"story:{slug}", "--set", "en.headline=New", "--correction", "--reason", "corrected",
                   expect=1).stderr
    assert f"story:{slug}: position: expected a whole number from 1 up, got 0" in refused
    desk("story", "move", slug, "--position", "1", "--correction", "--reason", "corrected")
    assert "places count from 1" not in desk("check").stderr


def test_an_issue_numbered_below_1_stored_before_the_rule_is_built_exported_and_warned_about(desk, tmp_path,
                                                                                           monkeypatch):
    """As a place below 1: an issue stored at number 0 before content files were held to numbers from 1 is
    published, so its pages are made (the build stopped on a traceback, "issue numbers start at 1") and
    it exports; `check` warns."""
    from sqlalchemy import text

    from newsroom.db.session import make_engine

    new_issue(desk)
    desk("story", "add", "14", *story_args(1))
    monkeypatch.setenv("NEWSROOM_NOW", MONDAY_MORNING)  # once its week has begun: no warning of that
    desk("issue", "publish", "14")
    engine = make_engine(desk.db_url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE issues SET number = 0 WHERE number = 14"))
    engine.dispose()
    assert desk("check").stderr.splitlines() == [
        "issue:0: number: warning: 0: issue numbers count from 1, and a content file saying 0 is refused, so an "
        "export of it does not import again", "0 error(s), 1 warning(s)"]
    page = parse(build(desk) / "en" / "issues" / "0" / "index.html")
    assert "Issue 0 · Nov 9–15, 2026" in text_of(page)
    desk("export", str(tmp_path / "backup"))
    assert "\nnumber: 0\n" in (tmp_path / "backup" / "issues" / "0000.yaml").read_text(encoding="utf-8")


@sqlite_only
def test_preview_build_shows_drafts_marked(desk):
    new_issue(desk)
    desk("story", "add", "14", "--section", "code", "--headline-hu", "Félkész", "--summary-hu", "Még nincs kész.")
    site = build(desk, "--drafts")
    page = parse(site / "en" / "issues" / "14" / "index.html")
    assert "Draft" in [strong.text for strong in page.iter("strong")]
    home = text_of(parse(site / "en" / "index.html"))
    assert "Issue 13" in home and "Test issue" not in home, "home never shows a draft"


@sqlite_only
def test_a_scheduled_issue_is_previewed_as_scheduled_with_the_time_it_comes_out(desk):
    """It was marked "Draft", with "Published:" and a time to come."""
    new_issue(desk)
    desk("story", "add", "14", *story_args(1))
    desk("issue", "schedule", "14", "--at", "2026-11-16T07:00+01:00")
    site = build(desk, "--drafts")
    for lang, state, when in (("en", "Scheduled", "To be published: November 16, 2026, 7:00\u202fAM CET"),
                              ("hu", "Időzítve", "Megjelenik: 2026. november 16. 7:00 CET")):
        page = parse(site / lang / "issues" / "14" / "index.html")
        assert [strong.text for strong in page.iter("strong")][:2] == [state, state]
        assert when in text_of(page)
        for listing in ("issues", "archive"):  # the editions list and the archive's rows say so too
            marks = [s.text for s in parse(site / lang / listing / "index.html").iter("strong")
                     if s.get("class") == "draft"]
            assert marks and set(marks) == {state}, (listing, marks)
    desk("email", "14", "--lang", "en", "--draft", "--out", str(desk.cwd / "mail"))
    message = email.message_from_bytes((desk.cwd / "mail" / "en" / "issue-14.eml").read_bytes(),
                                       policy=email.policy.default)
    assert message["Subject"].startswith("[Scheduled] ")


#: The refusal of a correction of issue 13 made without --reason.
NO_REASON = ("issue 13 is published: readers are shown each correction with its reason; add --reason, e.g. "
             "--correction --reason \"Fixed the chip's name in the headline\"")

AUDIENCES = ("known: bank-customer, developer, entrepreneur, everyone, executive, investor, policymaker, "
             "researcher, student (the site file's `audiences:` in site.yaml, changed by `newsroom import site.yaml`)")
SECTIONS = ("known: code, money, policy, science, society (the site file's `sections:` in site.yaml, changed by "
            "`newsroom import site.yaml`)")

BAD_INPUT = [
    (["issue", "new", "--number", "13"], "issue:13: number: issue 13 already exists; leave out --number to take "
     "the next free one (14)"),
    (["issue", "new", "--week", "2026-W45"], "issue:14: week: 2026-11-02–2026-11-08 overlaps issue 13 "
     "(2026-11-02–2026-11-08); choose another --week"),
    (["issue", "new", "--from", "2026-11-08", "--to", "2026-11-10"], "issue:14: week: 2026-11-08–2026-11-10 "
     "overlaps issue 13 (2026-11-02–2026-11-08); choose another --week"),
    (["story", "add", "13", *story_args(1)], "issue:13: status: issue 13 is published; to change it, add "
     "--correction and --reason: the change is recorded and shown as a correction"),
    # A correction without a reason (or a blank one): readers would see a correction and not why.
    (["story", "add", "13", *story_args(1), "--correction"], f"issue:13: {NO_REASON}"),
    (["story", "edit", "i13-vllm-trainium-backend", "--headline-en", "X", "--correction"], f"issue:13: {NO_REASON}"),
    (["story", "move", "i13-vllm-trainium-backend", "--position", "2", "--correction", "--reason", " "],
     f"issue:13: {NO_REASON}"),
    (["issue", "edit", "13", "--title-en", "X", "--correction"], f"issue:13: {NO_REASON}"),
    (["edit", "story:i13-vllm-trainium-backend", "--set", "en.headline=X", "--correction"], f"issue:13: {NO_REASON}"),
    (["edit", "13", "--set", "en.title=X", "--correction"], f"issue:13: {NO_REASON}"),
    (["delete", "i13-vllm-trainium-backend", "--correction"], f"story:i13-vllm-trainium-backend: {NO_REASON}"),
    (["story", "add", "12", *story_args(1, "weather"), "--correction", "--reason", "corrected"],
     f"story:i12-story-1: section: unknown section 'weather'; {SECTIONS}"),
    (["issue", "schedule", "12", "--at", "2026-11-01T07:00+01:00"], "issue:12: status: issue 12 is already "
     "published (at 2026-11-02T07:00:00+01:00)"),
    (["issue", "publish", "99"], "issue:99: number: no issue 99"),
    (["story", "add", "12", "--headline-hu", "x", "--correction", "--reason", "corrected"],
     "story:i12-x: section: required; give --section (known: code, money, policy, science, society; the site "
     "file's `sections:` in site.yaml, changed by `newsroom import site.yaml`)"),
    (["story", "add", "12", *story_args(1), "--audience", "robots", "--correction", "--reason", "corrected"],
     "story:i12-story-1: "
     f"audiences[0]: unknown audience 'robots'; {AUDIENCES}"),
    (["story", "move", "i13-vllm-trainium-backend", "--position", "2"], "issue:13: status: issue 13 is "
     "published; to change it, add --correction and --reason: the change is recorded and shown as a correction"),
    (["issue", "new", "--week", "2026-W60"], "--week: 2026-W60 is not an ISO week: Invalid week: 60"),
    # a message and exit 1 as for every other wrong value (it was click's usage error, exit 2)
    (["issue", "new", "--from", "2026-02-30", "--to", "2026-03-05"], "--from: expected a date as 2026-11-09, got "
     "'2026-02-30'"),
]


def test_bad_input_is_refused_and_changes_nothing(desk, tmp_path):
    """One database for every case (loading the sample dominates); each case must leave it as it was."""
    before = snapshot(desk, tmp_path)
    for args, expected in BAD_INPUT:
        result = desk(*args, expect=1)
        assert expected in result.stderr.splitlines(), result.stderr
        assert result.stderr.splitlines()[-1].endswith("nothing was changed")
        assert snapshot(desk, tmp_path) == before, args


PUBLISHED_13 = ("issue:13: status: issue 13 is published; to change it, add --correction and --reason: the change "
                "is recorded and shown as a correction")

#: Commands with several wrong options: each problem is named in the same run, sorted by place and field.
EVERY_PROBLEM_AT_ONCE = [
    (["story", "add", "13", "--section", "nowhere", "--audience", "nobody", "--headline-en", "Chips",
      "--source-url", "javascript:alert(1)", "--term", "trainium", "--term", "nosuch"],
     [PUBLISHED_13,
      f"story:i13-chips: audiences[0]: unknown audience 'nobody'; {AUDIENCES}",
      f"story:i13-chips: section: unknown section 'nowhere'; {SECTIONS}",
      "story:i13-chips: sources[0].url: expected an http(s) or mailto URL, got 'javascript:alert(1)'",
      "story:i13-chips: terms[1]: no glossary entry 'nosuch'",
      "5 errors; nothing was changed"]),
    (["story", "add", "99", "--slug", "Chips!", "--publisher", "Example", "--term", "nosuch"],
     ["--source-url: each --publisher/--source-title/--source-lang needs its --source-url (they pair up in order)",
      "issue:99: number: no issue 99",
      "story:Chips!: section: required; give --section (known: code, money, policy, science, society; the site "
      "file's `sections:` in site.yaml, changed by `newsroom import site.yaml`)",
      "story:Chips!: slug: expected a slug: lowercase letters, digits and hyphens, got 'Chips!'",
      # no issue to say whether it is a draft: named, as for a draft, as a warning
      "story:Chips!: terms[0]: warning: no glossary entry 'nosuch'",
      "4 errors; nothing was changed"]),
    (["story", "edit", "i13-vllm-trainium-backend", "--section", "money", "--audience", "robots",
      "--source-url", "javascript:alert(1)", "--term", "nosuch"],
     [PUBLISHED_13,
      f"story:i13-vllm-trainium-backend: audiences[0]: unknown audience 'robots'; {AUDIENCES}",
      "story:i13-vllm-trainium-backend: section: use `newsroom story move` to change a story's section",
      "story:i13-vllm-trainium-backend: sources[0].url: expected an http(s) or mailto URL, got "
      "'javascript:alert(1)'",
      "story:i13-vllm-trainium-backend: terms[0]: no glossary entry 'nosuch'",
      "5 errors; nothing was changed"]),
    (["issue", "new", "--number", "13", "--week", "2026-W60"],
     ["--week: 2026-W60 is not an ISO week: Invalid week: 60",
      "issue:13: number: issue 13 already exists; leave out --number to take the next free one (14)",
      "2 errors; nothing was changed"]),
    (["issue", "new", "--number", "0", "--from", "2026-11-05", "--to", "2026-11-01"],
     ["issue:0: number: issue numbers start at 1",
      "issue:0: week: the week ends (2026-11-01) before it starts (2026-11-05)",
      "2 errors; nothing was changed"]),
]


@pytest.mark.sqlite_only("the problems are collected in Python, the same on every database")
def test_a_story_or_issue_command_names_every_problem_of_its_options_in_one_run(desk, tmp_path):
    """Not one per run, each named only once the one before is mended; and nothing is stored."""
    before = snapshot(desk, tmp_path)
    for args, expected in EVERY_PROBLEM_AT_ONCE:
        assert desk(*args, expect=1).stderr.splitlines() == expected, args
    assert snapshot(desk, tmp_path) == before


@pytest.mark.sqlite_only("the warning is worked out in Python, the same on every database")
def test_an_issue_going_out_before_its_week_starts_is_warned_about_not_refused(desk):
    """Mostly a mistyped time or week; a special issue may mean it. In the site's time zone: 23:30 UTC on the
    Sunday before is Monday 00:30 in Budapest, in the week."""
    new_issue(desk)  # Nov 9–15
    desk("story", "add", "14", *story_args(1), "--slug", "s1")
    early = ("issue:14: published_at: warning: {} is before its week (2026-11-09 – 2026-11-15) starts: check the "
             "publication time and the week the issue covers")
    scheduled = desk("issue", "schedule", "14", "--at", "2026-11-07T23:30:00+00:00")
    assert scheduled.stderr.splitlines() == [early.format("2026-11-08T00:30:00+01:00")]
    assert scheduled.stdout.strip() == "issue 14 scheduled for November 8, 2026, 12:30\u202fAM CET"
    assert early.format("2026-11-08T00:30:00+01:00") in desk("check").stderr.splitlines()
    scheduled = desk("issue", "schedule", "14", "--at", "2026-11-08T23:30:00+00:00")
    assert scheduled.stderr == "" and "published_at" not in desk("check").stderr
    desk("issue", "unschedule", "14")
    published = desk("issue", "publish", "14")  # Friday, Nov 6
    assert published.stderr.splitlines() == [early.format("2026-11-06T10:00:00+01:00")]
    assert early.format("2026-11-06T10:00:00+01:00") in desk("check").stderr.splitlines()


def test_scheduling_in_the_past_is_refused(desk, tmp_path):
    new_issue(desk)
    desk("story", "add", "14", *story_args(1))
    before = snapshot(desk, tmp_path)
    result = desk("issue", "schedule", "14", "--at", "2026-11-05T07:00+01:00", expect=1)
    assert ("issue:14: published_at: 2026-11-05T07:00:00+01:00 is in the past (now 2026-11-06T10:00:00+01:00); "
            "schedule a time to come, or `issue publish` now") in result.stderr
    assert snapshot(desk, tmp_path) == before


def test_publishing_in_the_future_is_refused(desk):
    new_issue(desk)
    desk("story", "add", "14", *story_args(1))
    result = desk("issue", "publish", "14", "--at", "2026-12-01T07:00", expect=1)
    assert "use `newsroom issue schedule` to publish later" in result.stderr


def test_an_issue_without_a_story_is_neither_scheduled_nor_published(desk, tmp_path):
    """Its page, feed entry and email would be empty; a content file publishing one is refused, and one
    stored published without stories (so imported with --no-check, or its last story deleted by hand) is an
    error of `check` and the build."""
    new_issue(desk)
    before = snapshot(desk, tmp_path)
    says = ("issue:14: stories: a scheduled or published issue needs at least one story: its page, feed entry "
            "and email would be empty (add one with newsroom story add 14)")
    assert says in desk("issue", "publish", "14", expect=1).stderr.splitlines()
    assert says in desk("issue", "schedule", "14", "--at", "2026-11-09T07:00+01:00", expect=1).stderr.splitlines()
    assert snapshot(desk, tmp_path) == before
    desk("story", "add", "14", *story_args(1))
    desk("issue", "publish", "14")
    # The last story of a published issue does not go, even as a correction.
    refused = desk("delete", "story:i14-story-1", "--correction", "--reason", "corrected", expect=1).stderr
    assert says in refused.splitlines()
    empty = tmp_path / "issue.yaml"
    empty.write_text(desk("edit", "14").stdout.split("\n", 1)[1].replace("number: 14", "number: 15").replace(
        "2026-11-09", "2026-11-16").replace("2026-11-15", "2026-11-22"), encoding="utf-8")
    refused = desk("import", str(empty), expect=1).stderr.splitlines()
    assert says.replace("14", "15").replace("issue:15", str(empty)) in refused  # named in the file
    desk("import", "--no-check", str(empty))  # stored as it is, as a backup may restore it
    assert says.replace("14", "15") in desk("check", expect=1).stderr.splitlines()
    assert says.replace("14", "15") in desk("build", "--out", str(tmp_path / "site"), expect=1).stderr


@pytest.mark.sqlite_only("which warnings a command prints does not depend on the database")
def test_story_add_to_a_draft_says_an_unknown_term_is_a_warning(desk):
    """A draft's story may name an entry still to be written: it is added (or edited), and the editor told so
    at once, once, as `check` words it (the option's own finding and the check's are one warning)."""
    new_issue(desk)
    later = "(draft issue 14: to fix before it is scheduled or published)"
    result = desk("story", "add", "14", *story_args(1), "--slug", "termed", "--term", "nosuch")
    assert result.stdout.splitlines() == ["story termed added to issue 14, code #1"]
    assert result.stderr.splitlines() == [f"story:termed: terms[0]: warning: no glossary entry 'nosuch' {later}",
                                          "1 warning in what was saved"]
    # And so is an edit naming one.
    result = desk("story", "edit", "termed", "--term", "gpu", "--term", "elsewhere")
    assert result.stdout.splitlines() == ["story termed updated"]
    assert result.stderr.splitlines() == [f"story:termed: terms[1]: warning: no glossary entry 'elsewhere' {later}",
                                          "1 warning in what was saved"]
    # An edit that stores nothing says so and no warning, as an unchanged `edit` or `issue edit` (it named the
    # option's own words, without the count line the others end with): `check` names the story's.
    result = desk("story", "edit", "termed", "--term", "gpu", "--term", "elsewhere")
    assert (result.stdout, result.stderr) == ("story termed unchanged\n", "")
    unchanged = desk("edit", "story:termed", "--set", "terms=[gpu, elsewhere]")
    assert (unchanged.stdout, unchanged.stderr) == ("story termed: no change (version 2 stays)\n", "")
    assert desk("check").stderr.splitlines() == [f"story:termed: terms[1]: warning: no glossary entry 'elsewhere' "
                                                 f"{later}", "0 error(s), 1 warning(s)"]


def test_an_option_s_warning_the_check_finds_too_is_one_warning_however_either_words_it():
    """`story add` and `story edit` find an unknown term of a draft's story among their options, and the check finds
    it in the story they stored: one warning, the check's. They were told to be one by their words (the check's
    began with the option's), so a rewording of either made it two; now by the record, the field and the
    problem, whatever each says."""
    own = unknown_term("story:termed", 1, "elsewhere", "warning")
    checked = dataclasses.replace(own, message="the glossary has no entry 'elsewhere' yet (draft issue 14)")
    assert with_own([own], [checked]) == [checked]
    assert with_own([own], []) == [own]  # one the check did not find is said all the same


NO_LINK_TEXT = ("link 'https://example.org/x' has no text: screen readers say \"link\" and nothing more; write its "
                "text between the brackets ([text](…)), or alt text for its image ([![what it shows](…)](…))")


@pytest.mark.sqlite_only("which warnings a command prints does not depend on the database")
def test_story_add_and_edit_say_the_warnings_of_the_story_they_stored(desk):
    """`story add` and `story edit` stored a story with a link that has no text and a tag the site file does not
    name, and said nothing: `check` named them later. They name them as `edit` does, at the story and field, and
    how many; --quiet keeps them (they are problems), and a story with none says nothing."""
    new_issue(desk)
    unnamed = ("the site file names no tag 'brand-new-tag': its page (archive/tag/brand-new-tag/) and the archive "
               "show it as written here, 'brand-new-tag', in every language; name it under the site file's `tags:` "
               "(slug: brand-new-tag, and its name in each language) and import that (`newsroom import site.yaml`)")
    warned = [f"story:s1: en.summary: warning: {NO_LINK_TEXT}", f"story:s1: tags[0]: warning: {unnamed}"]
    result = desk("--quiet", "story", "add", "14", *story_args(1)[:-2], "--tag", "brand-new-tag",  # not chips
                  "--summary-en", "See [](https://example.org/x) [1].", "--slug", "s1")
    assert (result.stdout, result.stderr.splitlines()) == ("", [*warned, "2 warnings in what was saved"])
    assert desk("check").stderr.splitlines() == [*warned, "0 error(s), 2 warning(s)"]
    result = desk("story", "edit", "s1", "--summary-en", "See [this](https://example.org/x) [1].")
    assert (result.stdout, result.stderr.splitlines()) == ("story s1 updated\n",
                                                          [warned[1], "1 warning in what was saved"])
    clean = desk("story", "edit", "s1", "--tag", "chips")
    assert (clean.stdout, clean.stderr) == ("story s1 updated\n", "")
    added = desk("story", "add", "14", *story_args(2), "--slug", "s2")
    assert (added.stdout, added.stderr) == ("story s2 added to issue 14, code #2\n", "")


@pytest.mark.sqlite_only("which warnings a command prints does not depend on the database")
def test_story_add_from_a_file_says_its_warnings_at_the_file_s_lines(desk, write_files):
    """`story add --file` said the stored story's warnings at `story:SLUG`, where `import` of the same file says
    them at its lines: a field the file gave is named at its line there, one an option gave (which overrides the
    file's) at `story:SLUG`, as it has no line."""
    new_issue(desk)
    folder = write_files({"story.yaml": """\
section: science
tags: [brand-new-tag]
sources: [{publisher: Nature, title: A paper, url: "https://example.org/paper"}]
hu:
  headline: Fájlból
  summary: Lásd [ezt](https://example.org/x) [1].
en:
  headline: From a file
  summary: See [](https://example.org/x) [1].
"""})
    story = folder / "story.yaml"
    unnamed = ("the site file names no tag '{0}': its page (archive/tag/{0}/) and the archive show it as written "
               "here, '{0}', in every language; name it under the site file's `tags:` (slug: {0}, and its name in "
               "each language) and import that (`newsroom import site.yaml`)")
    result = desk("story", "add", "14", "--file", str(story), "--slug", "s1")
    assert (result.stdout, result.stderr.splitlines()) == ("story s1 added to issue 14, science #1\n", [
        f"{story}:2: tags[0]: warning: {unnamed.format('brand-new-tag')}",
        f"{story}:9: en.summary: warning: {NO_LINK_TEXT}", "2 warnings in what was saved"])
    # Options override the file: their values' warnings are the story's, the file's others at their lines.
    result = desk("story", "add", "14", "--file", str(story), "--slug", "s2", "--tag", "other-new-tag",
                  "--headline-en", "From options", "--headline-hu", "Opciókból")
    assert result.stderr.splitlines() == [
        f"{story}:9: en.summary: warning: {NO_LINK_TEXT}",
        f"story:s2: tags[0]: warning: {unnamed.format('other-new-tag')}", "2 warnings in what was saved"]
    result = desk("story", "add", "14", "--file", str(story), "--slug", "s3", "--tag", "chips",
                  "--summary-en", "See [](https://example.org/x) [1].")
    assert result.stderr.splitlines() == [f"story:s3: en.summary: warning: {NO_LINK_TEXT}",
                                          "1 warning in what was saved"]
    # A draft's unknown term the file names: said once, at its line, with when to fix it.
    termed = write_files({"story.yaml": story.read_text(encoding="utf-8").replace("tags: [brand-new-tag]", (
        "tags: [chips]\nterms: [nosuch]")).replace("See []", "See [this]")}) / "story.yaml"
    result = desk("story", "add", "14", "--file", str(termed), "--slug", "s4")
    assert result.stderr.splitlines() == [
        f"{termed}:3: terms[0]: warning: no glossary entry 'nosuch' (draft issue 14: to fix before it is scheduled or "
        "published)", "1 warning in what was saved"]


#: A draft entry: stored and previewed, shown as text where a published record names it.
DRAFT_ENTRY = """\
kind: entry
slug: tensor-core
draft: true
category: infrastructure
level: advanced
trend: spreading
status: 2026-11
sources: [{publisher: Nvidia, title: Tensor Cores, url: "https://www.nvidia.com/tensor-cores/"}]
hu: {headword: Tensor mag, definition: Mátrixszorzásra épített számolóegység a GPU-ban.}
en: {headword: Tensor core, definition: A unit of a GPU built for matrix multiplication.}
"""


@pytest.mark.sqlite_only("which warnings a command prints does not depend on the database")
def test_story_move_says_the_warnings_of_the_story_where_it_now_is(desk, tmp_path):
    """`story move` stored a story's place and issue and said nothing of it: moved into another section, or into
    a published issue as a correction, it names the story's warnings as `story edit` does, at the story and field
    as `check` words them where the story now is, and how many; a story with none says nothing."""
    entry = tmp_path / "tensor-core.yaml"
    entry.write_text(DRAFT_ENTRY, encoding="utf-8")
    desk("import", str(entry))
    new_issue(desk)
    desk("story", "add", "14", *story_args(1), "--slug", "s1", "--term", "tensor-core")
    desk("story", "add", "14", *story_args(2), "--slug", "s2", "--term", "nosuch")
    draft = ("story:s1: terms[0]: warning: entry:tensor-core is a draft, shown as text until it is published: remove "
             "`draft: true` from its file (entries/tensor-core.yaml) and import it, or run `newsroom edit "
             "entry:tensor-core --set draft=false`")
    moved = desk("story", "move", "s2", "--section", "money")
    assert (moved.stdout, moved.stderr.splitlines()) == ("story s2 is now money #1\n", [
        "story:s2: terms[0]: warning: no glossary entry 'nosuch' (draft issue 14: to fix before it is scheduled or "
        "published)", "1 warning in what was saved"])
    moved = desk("story", "move", "s1", "--issue", "13", "--section", "money", "--correction", "--reason", "its week")
    assert (moved.stdout, moved.stderr.splitlines()) == ("story s1 is now in issue 13, money #6\n", [
        draft, "1 warning in what was saved"])
    assert desk("check").stderr.splitlines()[:1] == [draft]
    # Left where it is, it stores nothing and says nothing more.
    same = desk("story", "move", "s1", "--section", "money", "--position", "6", "--correction", "--reason", "same")
    assert (same.stdout, same.stderr) == ("story s1 is now money #6\n", "")
    desk("edit", "entry:tensor-core", "--set", "draft=false")
    clean = desk("story", "move", "s1", "--position", "1", "--correction", "--reason", "first")
    assert (clean.stdout, clean.stderr) == ("story s1 is now money #1\n", "")


@pytest.mark.sqlite_only("which warnings a command prints does not depend on the database")
def test_issue_new_and_edit_say_the_warnings_of_the_issue_they_stored(desk):
    """`issue new` and `issue edit` store an issue's texts: a title in one language only, a lead's link with no
    text were named by `check` alone. They name them as `edit` does, and how many; an issue with none says nothing."""
    result = desk("issue", "new", "--title-hu", "Tizennegyedik")
    assert result.stdout == "issue 14 created (draft): 2026-11-09 – 2026-11-15\n"
    assert result.stderr.splitlines() == [
        "issue:14: en: warning: missing translation of en.title (draft issue 14: to fix before it is scheduled or "
        "published: newsroom issue edit 14 --title-en …)", "1 warning in what was saved"]
    result = desk("issue", "edit", "14", "--title-en", "Fourteen", "--lead-en", "See [](https://example.org/x).",
                  "--lead-hu", "Lásd [ezt](https://example.org/x).")
    assert (result.stdout, result.stderr.splitlines()) == ("issue 14 updated\n", [
        f"issue:14: en.lead: warning: {NO_LINK_TEXT}", "1 warning in what was saved"])
    clean = desk("issue", "edit", "14", "--lead-en", "See [this](https://example.org/x).")
    assert (clean.stdout, clean.stderr) == ("issue 14 updated\n", "")
    unchanged = desk("issue", "edit", "14", "--lead-en", "See [this](https://example.org/x).")
    assert (unchanged.stdout, unchanged.stderr) == ("issue 14 unchanged\n", "")
    following = desk("issue", "new", "--title-hu", "Tizenötödik", "--title-en", "Fifteen")
    assert (following.stdout, following.stderr) == ("issue 15 created (draft): 2026-11-16 – 2026-11-22\n", "")


@pytest.mark.sqlite_only("a problem's severity is worked out in Python from the issue's state, whatever the database")
def test_check_gives_a_draft_s_problems_as_warnings_and_a_scheduled_issue_s_as_errors(desk, tmp_path):
    """A draft is work in progress: `check` names its problems (warnings, exit 0 unless --strict) as the build
    passes; once the issue is scheduled they are errors, since the builds from its time on would stop."""
    new_issue(desk)
    desk("story", "add", "14", *story_args(1, summary_en="See [this](entry:nowhere) [1]."), "--slug", "wip")
    result = desk("check")
    assert result.stderr.splitlines() == [
        "story:wip: en.summary: warning: link to a missing entry 'nowhere' (draft issue 14: to fix before it is "
        "scheduled or published)", "0 error(s), 1 warning(s)"]
    assert desk("check", "--strict", expect=1).exit_code == 1
    desk("build", "--out", str(tmp_path / "site"))
    refused = desk("issue", "schedule", "14", "--at", "2026-11-16T07:00+01:00", expect=1).stderr
    assert "story:wip: en.summary: link to a missing entry 'nowhere'" in refused.splitlines()
    desk("story", "edit", "wip", "--summary-en", "Summary 1 [1].")
    desk("issue", "schedule", "14", "--at", "2026-11-16T07:00+01:00")
    story = tmp_path / "wip.yaml"
    story.write_text(desk("edit", "story:wip").stdout.split("\n", 1)[1].replace(
        "Summary 1 [1].", "See [this](entry:nowhere) [1]."), encoding="utf-8")
    refused = desk("import", str(story), expect=1).stderr.splitlines()  # a scheduled issue's stories count
    assert any(line.startswith(f"{story}:") and line.endswith(": en.summary: link to a missing entry 'nowhere'")
               for line in refused), refused
    desk("import", "--no-check", str(story))
    assert desk("check", expect=1).stderr.splitlines() == [
        "story:wip: en.summary: link to a missing entry 'nowhere'", "1 error(s), 0 warning(s)"]


@pytest.mark.sqlite_only("the wording of check's report does not depend on the database")
def test_check_names_the_fields_a_draft_lacks_in_a_language_and_the_command_that_adds_them(desk):
    """A draft's story without an English text is shown in Hungarian by a preview, but `issue schedule` asks
    for each field: `check` names them, as draft work, with the command that fills them in."""
    desk("issue", "new", "--title-hu", "Tizennegyedik")
    desk("story", "add", "14", "--section", "science", "--slug", "hu-only", "--headline-hu", "Csak magyarul",
         "--summary-hu", "Csak magyarul van meg [1].", "--source-url", "https://example.org/mta", "--publisher", "MTA")
    draft = "(draft issue 14: to fix before it is scheduled or published"
    said = [f"issue:14: en: warning: missing translation of en.title {draft}: newsroom issue edit 14 --title-en …)",
            f"story:hu-only: en: warning: missing translation of en.headline and en.summary {draft}: "
            "newsroom story edit hu-only --headline-en … --summary-en …)"]
    assert desk("check").stderr.splitlines() == [*said, "0 error(s), 2 warning(s)"]
    assert desk("check", "--strict", expect=1).stderr.splitlines() == [
        *said, "0 error(s), 2 warning(s): --strict fails on warnings"]
    desk("issue", "edit", "14", "--title-en", "Fourteen")
    desk("story", "edit", "hu-only", "--headline-en", "In Hungarian only", "--summary-en", "Only in Hungarian [1].")
    assert desk("check", "--strict").stderr == ""


def test_publish_refuses_untranslated_unsourced_unnamed_and_broken(desk, write_files, tmp_path):
    new_issue(desk)
    desk("story", "add", "14", "--section", "code", "--slug", "half", "--headline-hu", "Csak magyar",
         "--summary-hu", "Lásd [ezt](entry:no-such-entry).")
    desk("story", "add", "14", *story_args(2), "--term", "nowhere", "--slug", "termed")
    site = (Path(__file__).resolve().parent.parent / "newsroom" / "sample" / "site.yaml").read_text(encoding="utf-8")
    desk("import", "--no-check", str(write_files({"site.yaml": site.replace("    en: Society\n", "")})))
    before = snapshot(desk, tmp_path)
    result = desk("issue", "publish", "14", expect=1)
    for line in ["site: sections[4].en: 'society' has no name in this language",
                 "story:half: en.headline: missing translation (present in hu)",
                 "story:half: hu.summary: link to a missing entry 'no-such-entry'",
                 "story:half: sources: a story needs at least one source",
                 "story:termed: terms[0]: no glossary entry 'nowhere'"]:
        assert line in result.stderr.splitlines(), result.stderr
    assert snapshot(desk, tmp_path) == before


def test_a_correction_is_recorded_listed_and_shown(desk, monkeypatch):
    new_issue(desk)
    desk("story", "add", "14", *story_args(1), "--slug", "s1")
    desk("issue", "publish", "14")
    assert desk("issue", "corrections", "14").stdout.strip() == "issue 14: no corrections"
    refused = desk("story", "edit", "s1", "--headline-en", "Story one", expect=1)
    assert "issue 14 is published; to change it, add --correction" in refused.stderr
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-07T12:30:00+01:00")
    refused = desk("story", "edit", "s1", "--headline-en", "Story one", "--correction", "--reason", "typo",
                   "--reason-lang", "de", expect=2).stderr
    assert refused.splitlines()[-1] == ("Error: Invalid value for --reason-lang: 'de' is not a language of the site: "
                                        "give the one the --reason is written in, one of hu, en")
    assert desk("issue", "corrections", "14").stdout.strip() == "issue 14: no corrections"
    desk("story", "edit", "s1", "--headline-en", "Story one", "--correction", "--reason", "typo in headline",
         "--reason-lang", "en", "--editor", "bela")
    listed = desk("issue", "corrections", "14").stdout.strip()
    # A reason not in the site's first language is listed with its language, as the pages mark it.
    assert listed == "November 7, 2026, 12:30\u202fPM CET  bela  story:s1  en.headline — [en] typo in headline"
    # Without --reason-lang the reason is in the site's first language.
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-07T12:40:00+01:00")
    desk("story", "edit", "s1", "--headline-hu", "Első hír", "--correction", "--reason", "elírás a címben")
    assert desk("issue", "corrections", "14").stdout.splitlines()[-1].endswith("hu.headline — elírás a címben")
    versions = desk("history", "s1").stdout.splitlines()
    assert [line.split("  changed: ")[-1] for line in versions[1:3]] == [
        "hu.headline — elírás a címben", "en.headline — [en] typo in headline"]
    site = build(desk)
    page = parse(site / "en" / "issues" / "14" / "index.html")
    corrections = page.find(".//section[@id='corrections']")
    assert "Story one (headline [ENG]) – typo in headline" in shown_text(corrections)
    # Each page marks the reason written in the other language with that language (and its direction).
    for lang, foreign, native in (("en", ("hu", "elírás a címben"), "typo in headline"),
                                  ("hu", ("en", "typo in headline"), "elírás a címben")):
        items = parse(site / lang / "issues" / "14" / "index.html").findall(".//section[@id='corrections']//li")
        marked = [(span.get("lang"), span.get("dir"), span.text) for item in items for span in item.iter("span")
                  if span.get("lang")]
        assert marked == [(foreign[0], "ltr", foreign[1])], lang
        assert any("".join(item.itertext()).endswith(f"– {native}") and item.find(".//span[@lang]") is None
                   for item in items), lang
    data = json.loads(next(s.text for s in page.iter("script") if s.get("type") == "application/ld+json"))
    assert data["datePublished"] == "2026-11-06T10:00:00+01:00"
    assert data["dateModified"] == "2026-11-07T12:40:00+01:00"  # the last correction


@pytest.mark.sqlite_only("which language a page marks does not depend on the database")
def test_a_removed_story_s_headline_in_another_language_is_marked_so(desk, tmp_path, monkeypatch):
    """A story deleted from a published issue is listed by the headline it had; on the page of a language it had
    none in, that is another language's, marked with it as a reason in another language is."""
    new_issue(desk)
    desk("story", "add", "14", *story_args(1), "--slug", "s1")
    desk("story", "add", "14", *story_args(2), "--slug", "hu-only")
    desk("issue", "publish", "14")
    story = tmp_path / "hu-only.yaml"  # restored from a backup with its English text lost: stored as it is
    story.write_text(desk("edit", "story:hu-only").stdout.split("\n", 1)[1].split("\nen:")[0] + "\n",
                     encoding="utf-8")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-07T12:30:00+01:00")
    desk("import", "--no-check", "--correction", "--reason", "visszaállítás", str(story))
    page = parse(build(desk) / "en" / "issues" / "14" / "index.html")  # the story's own headline, a link to it
    assert [(link.get("lang"), link.get("dir"), link.text) for link in page.iterfind(
        ".//section[@id='corrections']//a")] == [("hu", "ltr", "Hír 2")]
    desk("delete", "hu-only", "--correction", "--reason", "elavult hír")
    site = build(desk)
    for lang, marked, removed in (("en", ["Hír 2", "visszaállítás", "Hír 2", "elavult hír"], "story removed"),
                                  ("hu", [], "hír visszavonva")):
        items = parse(site / lang / "issues" / "14" / "index.html").findall(".//section[@id='corrections']//li")
        assert [(span.get("lang"), span.get("dir"), span.text) for item in items for span in item.iter("span")
                if span.get("lang")] == [("hu", "ltr", text) for text in marked], lang
        assert "".join(items[-1].itertext()).split(": ", 1)[1] == f"Hír 2 ({removed}) – elavult hír", lang


def test_a_story_imported_into_a_published_issue_is_listed_as_added(desk, databases, tmp_path, monkeypatch):
    """With --correction, as `story add --correction` lists it; the stories of an issue the same import
    publishes are not."""
    exported = tmp_path / "export"
    desk("export", str(exported))
    late = tmp_path / "late.yaml"
    late.write_text((exported / "stories" / "i13-data-center-power-bills.yaml").read_text(encoding="utf-8")
                    .replace("slug: i13-data-center-power-bills", "slug: i13-late").replace("position: 1",
                                                                                            "position: 9"),
                    encoding="utf-8")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-10T12:00:00+01:00")
    refused = desk("import", str(late), expect=1).stderr  # a correction, as with `story add`: said so
    assert refused.splitlines() == [
        f"{late}: issue 13 is published, and this file adds the story 'i13-late' to it: that is a correction readers "
        "are shown; import with --correction --reason \"Fixed the chip's name in the headline\" to make it (it is "
        "listed among the issue's corrections with that reason)", "1 error; nothing was changed"]
    assert desk("issue", "corrections", "13").stdout.strip() == "issue 13: no corrections"
    refused = desk("import", "--correction", str(late), expect=1).stderr  # and why, which readers are shown
    assert refused.splitlines() == [
        f"{late}: issue 13 is published: readers are shown each correction with its reason; import with --reason, "
        "e.g. --correction --reason \"Fixed the chip's name in the headline\"", "1 error; nothing was changed"]
    assert desk("issue", "corrections", "13").stdout.strip() == "issue 13: no corrections"
    desk("import", "--correction", "--reason", "a story came in late", "--reason-lang", "en", str(late))
    assert desk("issue", "corrections", "13").stdout.strip() == (
        "November 10, 2026, 12:00\u202fPM CET  import  story:i13-late  created — [en] a story came in late")
    site = build(desk)
    page = parse(site / "en" / "issues" / "13" / "index.html")
    corrections = " ".join(" ".join(page.find(".//section[@id='corrections']").itertext()).split())
    assert "(story added) – a story came in late" in corrections
    assert page.find(".//section[@id='corrections']//span") is None
    page = parse(site / "hu" / "issues" / "13" / "index.html")  # the English reason, marked as English
    assert [(span.get("lang"), span.text) for span in page.iterfind(".//section[@id='corrections']//span")] == [
        ("en", "a story came in late")]
    # Who made a change through a file, and why, as the other commands record them.
    late.write_text(late.read_text(encoding="utf-8").replace("position: 9", "position: 8"), encoding="utf-8")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-10T13:00:00+01:00")
    refused = desk("import", str(late), expect=1).stderr  # the refusal names what the file changes
    assert refused.splitlines()[0] == (
        f"{late}: issue 13 is published, and this file changes its position: that is a correction readers are shown; "
        "import with --correction --reason \"Fixed the chip's name in the headline\" to make it (it is listed among "
        "the issue's corrections with that reason)")
    desk("import", str(late), "--correction", "--editor", "bela", "--reason", "a better place")
    assert desk("issue", "corrections", "13").stdout.splitlines()[-1] == (
        "November 10, 2026, 1:00\u202fPM CET  bela  story:i13-late  position — a better place")
    restored = Cli(databases.new("migrated"), desk.cwd)
    restored("import", str(exported))
    assert restored("issue", "corrections", "13").stdout.strip() == "issue 13: no corrections"


def test_a_story_moved_out_of_a_published_issue_stays_listed_there(desk, monkeypatch):
    """Its corrections made while it was there stay that issue's, and the move is one; the issue it
    moves to lists nothing it had before it was published."""
    new_issue(desk)
    desk("story", "add", "14", *story_args(1), "--slug", "s1")
    desk("story", "add", "14", *story_args(2), "--slug", "s2")
    desk("issue", "publish", "14")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-07T10:00:00+01:00")
    desk("story", "edit", "s1", "--headline-en", "Story one", "--correction", "--reason", "typo")
    new_issue(desk, "--week", "2026-W47")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-07T11:00:00+01:00")
    desk("edit", "story:s1", "--set", "issue=15", "--correction", "--reason", "belongs to next week")
    assert desk("issue", "corrections", "14").stdout.splitlines() == [
        "November 7, 2026, 10:00\u202fAM CET  anna  story:s1  en.headline — typo",
        "November 7, 2026, 11:00\u202fAM CET  anna  story:s1  moved — belongs to next week"]
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-20T09:00:00+01:00")
    desk("issue", "publish", "15")
    assert desk("issue", "corrections", "15").stdout.strip() == "issue 15: no corrections"
    site = build(desk)
    for lang, headline, field, moved in (("en", "Story one", "headline", "story moved to another issue"),
                                         ("hu", "Hír 1", "cím", "hír áthelyezve egy másik számba")):
        page = parse(site / lang / "issues" / "14" / "index.html")
        corrections = page.find(".//section[@id='corrections']")
        assert [shown_text(item).split(": ", 1)[1] for item in corrections.iter("li")] \
            == [f"{headline} ({field} [ENG]) – typo", f"{headline} ({moved}) – belongs to next week"]
        assert not list(corrections.iter("a"))  # it is not on this page any more


def test_a_story_moved_into_a_published_issue_is_listed_there_as_moved_in(desk, monkeypatch):
    """Not as a change of its "issue, section, order": readers of the issue it joins see it arrived."""
    new_issue(desk)
    desk("story", "add", "14", *story_args(1), "--slug", "s1")
    desk("story", "add", "14", *story_args(2), "--slug", "s2")
    desk("issue", "publish", "14")
    new_issue(desk, "--week", "2026-W47")
    desk("story", "add", "15", *story_args(3), "--slug", "s3")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-20T09:00:00+01:00")
    desk("issue", "publish", "15")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-21T10:00:00+01:00")
    desk("edit", "story:s1", "--set", "issue=15", "--correction", "--reason", "belongs to this week")
    assert desk("issue", "corrections", "15").stdout.splitlines() == [
        "November 21, 2026, 10:00\u202fAM CET  anna  story:s1  moved in — belongs to this week"]
    assert desk("issue", "corrections", "14").stdout.splitlines()[-1].endswith("story:s1  moved — belongs to this week")
    site = build(desk)
    for lang, headline, moved in (("en", "Story 1", "story moved here from another issue"),
                                  ("hu", "Hír 1", "hír áthelyezve ide egy másik számból")):
        page = parse(site / lang / "issues" / "15" / "index.html")
        corrections = page.find(".//section[@id='corrections']")
        assert [" ".join("".join(item.itertext()).split()).split(": ", 1)[1] for item in corrections.iter("li")] \
            == [f"{headline} ({moved}) – belongs to this week"]
        assert [a.get("href") for a in corrections.iter("a")] == ["#story-s1"]


def test_a_correction_must_keep_the_issue_publishable(desk, tmp_path, monkeypatch):
    new_issue(desk)
    desk("story", "add", "14", *story_args(1), "--slug", "s1")
    desk("issue", "publish", "14")
    before = snapshot(desk, tmp_path)
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-07T12:30:00+01:00")
    result = desk("story", "add", "14", "--section", "code", "--headline-hu", "Fél", "--summary-hu", "Fél.",
                  "--source-url", "https://example.org/x", "--correction", "--reason", "corrected", expect=1)
    assert "story:i14-fel: en.headline: missing translation (present in hu)" in result.stderr
    assert snapshot(desk, tmp_path) == before


@sqlite_only
def test_jsonld_escapes_script_end_tags(desk):
    new_issue(desk)
    desk("issue", "edit", "14", "--title-en", "Break </script><script>alert(1)</script>")
    desk("story", "add", "14", *story_args(1))
    desk("issue", "publish", "14")
    raw = (build(desk) / "en" / "issues" / "14" / "index.html").read_text(encoding="utf-8")
    script = raw.split('<script type="application/ld+json">', 1)[1].split("</script>", 1)[0]
    assert "<" not in script
    assert json.loads(script)["name"] == "Break </script><script>alert(1)</script>"


@pytest.mark.sqlite_only("the editor's name is taken in Python; a correction's round trip is tested on both "
                         "(test_a_correction_is_recorded_listed_and_shown)")
def test_the_editor_defaults_to_the_os_user(desk, monkeypatch):
    import getpass

    monkeypatch.delenv("NEWSROOM_EDITOR")
    new_issue(desk)
    desk("story", "add", "14", *story_args(1), "--slug", "s1")
    desk("issue", "publish", "14")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-08T09:00:00+01:00")
    desk("issue", "edit", "14", "--title-en", "Better title", "--correction", "--reason", "corrected")
    listed = desk("issue", "corrections", "14").stdout.strip()
    assert listed == f"November 8, 2026, 9:00\u202fAM CET  {getpass.getuser()}  issue:14  en.title — corrected"


def test_an_import_cannot_leave_a_published_issue_half_translated(sample_cli, tmp_path, write_files):
    """A story without its English block is a warning while its issue is a draft (the site shows the other
    language, marked); a published issue goes out in every language, whole, as `issue publish` asked: an
    import (even with --correction) that takes a language from one of its stories was stored, and then every
    change to the issue, its English email and `send` stopped on that story. It is refused, naming the file
    and fields; nothing is stored. An import that leaves the same problem where it already was goes on."""
    sample_cli("export", str(tmp_path / "out"))
    exported = (tmp_path / "out/stories/i13-aws-trainium3-capacity.yaml").read_text(encoding="utf-8")
    hungarian_only = exported[:exported.index("\nen:\n")] + "\n"
    story = hungarian_only.replace("slug: i13-aws-trainium3-capacity", "slug: only-hu").replace(
        "position: 2", "position: 9")
    folder = write_files({"stories/only-hu.yaml": story})
    refused = sample_cli("import", "--correction", "--reason", "r", str(folder), expect=1).stderr.splitlines()
    path = folder / "stories/only-hu.yaml"
    assert refused[:3] == [f"{path}: en.{field}: missing translation (present in hu)"
                           for field in ("body", "headline", "summary")], refused
    assert refused[3].startswith("with these errors, issue 13, scheduled or published, would go out with a part "
                                "missing in a language"), refused
    assert "only-hu" not in sample_cli("issue", "show", "13").stdout
    sample_cli("issue", "new")  # 14, a draft: work in progress
    sample_cli("import", str(write_files({"stories/only-hu.yaml": story.replace("issue: 13", "issue: 14")})))
    assert "story:only-hu: en: warning: missing translation" in sample_cli("check").stderr
    # Stored all the same (--no-check, as a backup is restored): a later import leaves it where it was.
    sample_cli("import", "--no-check", "--correction", "--reason", "r", str(folder))
    edited = exported.replace("  headline: ", "  headline: Now, ", 1)
    assert sample_cli("import", "--correction", "--reason", "r", str(write_files({"stories/s.yaml": edited}))
                      ).stdout.startswith("0 created, 1 updated")
    # A new story of the issue leaves that problem where it was too.
    added = exported.replace("slug: i13-aws-trainium3-capacity", "slug: one-more").replace("position: 2",
                                                                                          "position: 8")
    assert sample_cli("import", "--correction", "--reason", "r", str(write_files({"stories/s.yaml": added}))
                      ).stdout.startswith("1 created")
