"""Feeds: valid RSS 2.0 and Atom per language, stable ids, absolute links, no drafts; pages advertise them."""

from __future__ import annotations

import html
from pathlib import Path

import feedparser
import html5lib
import pytest
from conftest import Cli
from sitebuild import BASE, OWN_SITE, parse
from sitebuild import DRAFT_ISSUE as DRAFT

from newsroom import SAMPLE_DIR

FEEDS = ("issues", "glossary", "section-code", "section-money", "section-policy", "section-science",
         "section-society")
DRAFT_STORY = """\
kind: story
slug: i14-draft-story
issue: 14
section: code
position: 1
sources:
  - {publisher: Example, title: Example, url: "https://example.org/draft"}
hu: {headline: Titkos címsor, summary: Még nem jelent meg.}
en: {headline: Secret headline, summary: Not out yet.}
"""


def _build(cli, name: str, *extra: str) -> Path:
    out = cli.cwd / name
    cli("build", "--out", str(out), "--base-url", BASE, *extra)
    return out


def _ids(site: Path) -> dict[str, list[str]]:
    return {r: [e.id for e in feedparser.parse(p.read_bytes()).entries] for r, p in _feeds(site).items()}


def _feeds(site: Path) -> dict[str, Path]:
    return {p.relative_to(site).as_posix(): p for p in sorted(site.glob("*/feeds/*")) if p.suffix in (".xml", ".atom")}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The sample built twice (read-only tests share it; rendering does not depend on the database backend)."""
    folder = tmp_path_factory.mktemp("feeds")
    cli = Cli(f"sqlite:///{folder / 'sample.db'}", folder)
    cli("init", "--sample")
    return _build(cli, "_site"), _build(cli, "_again")


@pytest.fixture
def site(built) -> Path:
    return built[0]


def test_every_feed_parses_without_errors_in_its_language_with_unique_ids_newest_first(site):
    feeds = _feeds(site)
    assert sorted(feeds) == sorted(f"{lang}/feeds/{name}.{ext}" for lang in ("hu", "en") for name in FEEDS
                                   for ext in ("xml", "atom"))
    for relative, path in feeds.items():
        parsed = feedparser.parse(path.read_bytes())
        assert not parsed.bozo, f"{relative}: {parsed.get('bozo_exception')}"
        lang = relative.split("/")[0]
        assert parsed.feed.language == lang, relative
        assert parsed.version == ("rss20" if path.suffix == ".xml" else "atom10"), relative
        ids = [entry.id for entry in parsed.entries]
        assert ids and len(ids) == len(set(ids)), relative
        assert all(i.startswith("tag:news.example.org,2026:") for i in ids), relative
        published = [entry.published_parsed for entry in parsed.entries]
        assert published == sorted(published, reverse=True), f"{relative}: not newest first"
        self_links = [link.href for link in parsed.feed.links if link.rel == "self"]
        assert self_links == [BASE + relative], relative
        assert parsed.feed.link == BASE + f"{lang}/"
        assert parsed.feed.generator == "newsroom"
        for entry in parsed.entries:
            assert entry.link.startswith(BASE + f"{lang}/"), relative
            assert entry.author, relative


def test_the_issues_feeds_carry_summary_full_content_categories_and_twins(site):
    rss = feedparser.parse((site / "hu/feeds/issues.xml").read_bytes())
    assert [e.link for e in rss.entries] == [BASE + f"hu/issues/{n}/" for n in (13, 12, 11, 10)]
    latest = rss.entries[0]
    assert latest.title == "Trainium, TPU, GPU – a saját chipek hete"
    assert latest.summary.startswith("Ezen a héten az Amazon chipjei")  # <description>: the lead as text
    full = latest.content[0].value  # <content:encoded>: the whole issue
    assert "A vLLM hivatalosan is támogatja a Trainiumot" in full and "<h2>Kód</h2>" in full
    assert 'href="/' not in full and 'href="#' not in full and 'src="/' not in full
    assert f'href="{BASE}hu/glossary/trainium/"' in full
    assert {t.term for t in latest.tags} >= {"Kód", "Pénz"}
    assert latest.published_parsed[:5] == (2026, 11, 9, 6, 0)  # 07:00 in Budapest
    atom = feedparser.parse((site / "en/feeds/issues.atom").read_bytes())
    links = {(link.rel, link.get("hreflang")): link.href for link in atom.entries[0].links}
    assert links[("alternate", "en")] == BASE + "en/issues/13/"
    assert links[("alternate", "hu")] == BASE + "hu/issues/13/"
    assert atom.entries[0].summary.startswith("This week Amazon's chips took centre stage")
    assert atom.entries[0].content[0].type == "text/html"
    assert atom.feed.id != feedparser.parse((site / "hu/feeds/issues.atom").read_bytes()).feed.id


def test_glossary_feed_ids_name_the_status_month(site):
    parsed = feedparser.parse((site / "en/feeds/glossary.atom").read_bytes())
    trainium = next(e for e in parsed.entries if e.link == BASE + "en/glossary/trainium/")
    assert trainium.id == "tag:news.example.org,2026:en/glossary/trainium/2026-11"


@pytest.mark.parametrize("ext", ["atom", "xml"])
def test_a_glossary_feed_item_carries_the_entry_s_whole_text(site, ext):
    """Feeds give subscribers the full content: an entry's item held its one-sentence definition only."""
    parsed = feedparser.parse((site / f"hu/feeds/glossary.{ext}").read_bytes())
    trainium = next(e for e in parsed.entries if e.link == BASE + "hu/glossary/trainium/")
    body = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parseFragment(trainium.content[0].value)
    headings = [" ".join("".join(h.itertext()).split()) for h in body.iter("h2")]
    assert headings == ["Egyszerűen", "Hogyan működik?", "Egy hétköznapi példa", "Kiket érint?", "Gyakori tévhit",
                        "Korlátok és kockázatok", "Hasonló, de nem ugyanaz", "Kapcsolódó fogalmak", "Rövid történet",
                        "Hol tartunk most?", "Más néven", "Források"]  # not "A hírekben": it is the page's
    links = [a.get("href") for a in body.iter("a")]
    assert BASE + "hu/glossary/gpu/" in links and all(link.startswith(("http://", "https://")) for link in links)
    assert trainium.summary.startswith("A Trainium az Amazon")


@pytest.mark.parametrize("ext", ["atom", "xml"])
def test_a_glossary_feed_item_lists_every_language_s_names_as_the_page_does(site, ext):
    parsed = feedparser.parse((site / f"en/feeds/glossary.{ext}").read_bytes())
    trainium = next(e for e in parsed.entries if e.link == BASE + "en/glossary/trainium/")
    body = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parseFragment(trainium.content[0].value)
    [names] = [s.find("p") for s in body.iter("section") if s.get("id") == "aliases"]
    assert " ".join("".join(names.itertext()).split()) == \
        "Trainium · AWS Trainium · Amazon Trainium · Trainium chip · Amazon AI chip · Trainium-chip · Amazon MI-chip"
    assert [(span.text, span.get("lang")) for span in names.iter("span")] == \
        [("Trainium-chip", "hu"), ("Amazon MI-chip", "hu")]


@pytest.mark.sqlite_only("an item's date is worked out in Python from the stored entry, whatever the database")
def test_a_glossary_entry_returns_to_the_feed_only_when_its_status_month_moves(sample_cli, write_files, site):
    entries = SAMPLE_DIR / "entries"
    gpu = (entries / "gpu.yaml").read_text(encoding="utf-8").replace("status: 2026-10", "status: 2026-11")
    trainium = (entries / "trainium.yaml").read_text(encoding="utf-8").replace(
        "Trainium is Amazon's own custom-designed chip", "Trainium is Amazon's own custom-built chip")
    sample_cli("import", str(write_files({"entries/gpu.yaml": gpu, "entries/trainium.yaml": trainium})))
    after = _ids(_build(sample_cli, "_updated"))["en/feeds/glossary.atom"]
    before = _ids(site)["en/feeds/glossary.atom"]
    assert "tag:news.example.org,2026:en/glossary/gpu/2026-11" in after  # substantially updated: a new item
    assert "tag:news.example.org,2026:en/glossary/gpu/2026-10" in before
    assert "tag:news.example.org,2026:en/glossary/trainium/2026-11" in before and \
        "tag:news.example.org,2026:en/glossary/trainium/2026-11" in after  # an edit without a new status: same item
    assert "custom-built" in (sample_cli.cwd / "_updated/en/feeds/glossary.atom").read_text(encoding="utf-8")


def test_a_correction_updates_the_entries_it_changes_and_the_feed_not_their_publication(sample_cli, monkeypatch):
    """Atom's `updated` is when an entry last changed in a way readers should see (RFC 4287 4.2.15)."""
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-12T15:30:00+01:00")
    sample_cli("story", "edit", "i13-vllm-trainium-backend", "--headline-en", "vLLM supports Trainium",
               "--correction", "--reason", "shorter")
    site = _build(sample_cli, "_corrected")
    corrected, published = "2026-11-12T14:30:00+00:00", "2026-11-09T06:00:00+00:00"
    for name, key in (("issues", "issues/13"), ("section-code", "stories/i13-vllm-trainium-backend")):
        atom = feedparser.parse((site / f"en/feeds/{name}.atom").read_bytes())
        entry = next(e for e in atom.entries if e.id == f"tag:news.example.org,2026:en/{key}")
        assert (entry.updated, entry.published, atom.feed.updated) == (corrected, published, corrected)
        others = [e for e in atom.entries if e is not entry]
        assert others and all(e.updated == e.published for e in others)
        rss = feedparser.parse((site / f"en/feeds/{name}.xml").read_bytes())
        channel = rss.feed
        assert (channel.get("updated"), channel.get("published")) == (
            "Thu, 12 Nov 2026 14:30:00 +0000", "Mon, 09 Nov 2026 06:00:00 +0000")
    # Another section's feed is not touched by it.
    money = feedparser.parse((site / "en/feeds/section-money.atom").read_bytes())
    assert money.feed.updated == published


def test_two_builds_give_the_same_bytes(built):
    site, again = built
    for relative, path in _feeds(site).items():
        assert (again / relative).read_bytes() == path.read_bytes(), relative


def test_a_correction_keeps_every_id_and_drafts_never_reach_a_feed(sample_cli, write_files, site):
    before = _ids(site)  # the same sample, built before the correction
    corrected = (SAMPLE_DIR / "issues" / "0013.yaml").read_text(encoding="utf-8").replace(
        "a saját chipek hete", "a saját chipek hete (javítva)")
    sample_cli("import", "--correction", "--reason", "corrected",
               str(write_files({"issues/0013.yaml": corrected, "issues/0014.yaml": DRAFT,
                                "stories/s.yaml": DRAFT_STORY})))
    preview = _build(sample_cli, "_preview", "--drafts")
    assert _ids(preview) == before
    assert "(javítva)" in (preview / "hu/feeds/issues.xml").read_text(encoding="utf-8")
    assert (preview / "hu/issues/14/index.html").is_file()  # the preview shows the draft…
    for relative, path in _feeds(preview).items():  # …no feed does
        text = path.read_text(encoding="utf-8")
        assert "issues/14/" not in text and "Titkos" not in text and "Secret headline" not in text, relative


def test_every_page_advertises_its_languages_feeds_and_the_feeds_page_lists_both_languages(site):
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    for path in sorted(site.glob("*/**/index.html")):
        lang = path.relative_to(site).parts[0]
        document = parser.parse(path.read_bytes())
        feeds = {link.get("href"): link.get("type") for link in document.iter("link")
                 if link.get("rel") == "alternate" and link.get("type")}
        assert feeds == {BASE + f"{lang}/feeds/issues.xml": "application/rss+xml",
                         BASE + f"{lang}/feeds/issues.atom": "application/atom+xml",
                         BASE + f"{lang}/feeds/glossary.xml": "application/rss+xml",
                         BASE + f"{lang}/feeds/glossary.atom": "application/atom+xml"}, path
    page = parser.parse((site / "hu/feeds/index.html").read_bytes())
    nav = [a.get("href") for a in page.iter("a") if a.text == "RSS"]
    assert nav == ["/hu/feeds/"]
    listed = {a.get("href") for a in page.iter("a") if a.get("type")}
    assert listed == {BASE + f"{lang}/feeds/{name}.{ext}" for lang in ("hu", "en") for name in FEEDS
                      for ext in ("xml", "atom")}
    sections = {s.get("lang"): s.find("h2").text for s in page.iter("section")}
    assert sections == {"hu": "Magyar", "en": "English"}


@pytest.mark.sqlite_only("the moment is compared in Python; a scheduled issue's publication is stored in "
                         "test_issue_workflow on both databases")
def test_a_scheduled_issue_reaches_the_feeds_when_the_build_clock_passes_its_time(sample_cli, write_files,
                                                                                 monkeypatch):
    """The site shows a scheduled issue once its time has come; its feeds carry it from the same build."""
    scheduled = DRAFT.replace("status: draft", "status: scheduled\npublished_at: 2026-11-16T07:00:00+01:00")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-16T06:00:00+01:00")  # imported before its time
    sample_cli("import", str(write_files({"issues/0014.yaml": scheduled, "stories/s.yaml": DRAFT_STORY})))

    def issue_titles(out: Path) -> list[str]:
        feed = feedparser.parse((out / "en" / "feeds" / "issues.xml").read_bytes())
        assert not feed.bozo
        return [entry.title for entry in feed.entries]

    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-16T06:59:00+01:00")
    before = _build(sample_cli, "before")
    assert not (before / "en" / "issues" / "14").exists()
    assert "Draft issue" not in issue_titles(before)
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-16T07:01:00+01:00")
    after = _build(sample_cli, "after")
    assert (after / "en" / "issues" / "14" / "index.html").is_file()
    assert issue_titles(after)[0] == "Draft issue"


def test_the_hungarian_glossary_feed_is_named_as_the_site_names_the_glossary(site):
    # The navigation, the headings and the search say "Fogalomtár"; the feed and the feeds page say it too.
    for ext in ("xml", "atom"):
        feed = feedparser.parse((site / f"hu/feeds/glossary.{ext}").read_bytes()).feed
        assert feed.title == "Az MI-korszak hírei: a fogalomtár új és frissített szócikkei", ext
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    page = parser.parse((site / "hu/feeds/index.html").read_bytes())
    main = " ".join(" ".join(page.find(".//main").itertext()).split())
    titles = [link.get("title") for link in page.iter("link") if link.get("type")]
    assert "a fogalomtár új és frissített szócikkeit" in main and "glosszárium" not in main + " ".join(titles)


#: Texts as editors type them: apostrophes, quotes, ampersands and text that looks like markup. A plain-text
#: field (headline, title, name) is shown as typed; a Markdown one (summary, lead, definition) as its text.
QUOTING_STORY = """\
kind: story
slug: i13-quoting
issue: 13
section: code
position: 9
sources:
  - {publisher: Example, title: Example, url: "https://example.org/q"}
hu: {headline: "Az AT&T „<b>merész</b>” tétje", summary: "Az Amazon chipjei"}
en:
  headline: AT&T's "<b>bold</b>" bet on R&D
  summary: Amazon's &lt;b&gt;chips&lt;/b&gt; & "Rainier" <b>grow</b>, 1 < 2.
"""
QUOTED = {"headline": 'AT&T\'s "<b>bold</b>" bet on R&D', "summary": 'Amazon\'s <b>chips</b> & "Rainier" grow, 1 < 2.',
          "headword": "Trainium & Tom's <i>chip</i>", "definition": "Amazon's chip & its <b>rival</b>.",
          "issue": 'Chips & "Tom\'s" <b>week</b>', "lead": "Amazon's chips & <i>more</i>.",
          "site": "News & Tom's AI era", "tagline": "News & Tom's <b>weekly</b>", "section": "Code & <i>craft</i>"}


def _quoting_files() -> dict[str, str]:
    site = (SAMPLE_DIR / "site.yaml").read_text(encoding="utf-8")
    site = site.replace("  name: News of the AI era", f"  name: \"{QUOTED['site']}\"").replace(
        "  tagline: News of the AI era, curated weekly", f"  tagline: \"{QUOTED['tagline']}\"").replace(
        "    en: Code", f"    en: \"{QUOTED['section']}\"")
    issue = (SAMPLE_DIR / "issues" / "0013.yaml").read_text(encoding="utf-8").replace(
        "  title: Trainium, TPU, GPU – a week of custom chips", "  title: 'Chips & \"Tom''s\" <b>week</b>'").replace(
        "    This week Amazon's chips took centre stage",
        "    Amazon's chips &amp; &lt;i&gt;more&lt;/i&gt;.\n\n    This week")
    entry = (SAMPLE_DIR / "entries" / "trainium.yaml").read_text(encoding="utf-8").replace(
        "en:\n  headword: Trainium\n", "en:\n  headword: \"Trainium & Tom's <i>chip</i>\"\n").replace(
        "    Trainium is Amazon's own custom-designed chip tailored for artificial\n"
        "    intelligence, which it rents out via its cloud service (AWS) for training\n"
        "    and running AI models.", "    Amazon's chip & its &lt;b&gt;rival&lt;/b&gt;.")
    return {"site.yaml": site, "issues/0013.yaml": issue, "entries/trainium.yaml": entry,
            "stories/i13-quoting.yaml": QUOTING_STORY}


def _escaped(detail, text: str) -> str:
    """`text` escaped once as a parsed feed text holds it: as it is when plain; as HTML, with nothing but `&`,
    `<` and `>` escaped and no markup, when the reader is told (or guesses) it is HTML."""
    return html.escape(text, quote=False) if detail.type == "text/html" else text


def _reads(detail, text: str) -> bool:
    """Whether a reader shown a parsed feed text sees `text`."""
    return detail.value == _escaped(detail, text)


@pytest.mark.sqlite_only("what feeds say of a text does not depend on the database")
def test_every_feed_text_says_what_the_editor_typed_escaped_once(sample_cli, write_files):
    lead = QUOTED["lead"] + "\n\nThis week"
    sample_cli("import", "--correction", "--reason", "quoting", str(write_files(_quoting_files())))
    site = _build(sample_cli, "_quoting")
    for ext in ("xml", "atom"):
        feeds = {name: feedparser.parse((site / f"en/feeds/{name}.{ext}").read_bytes())
                 for name in ("issues", "section-code", "glossary")}
        for name, parsed in feeds.items():
            assert not parsed.bozo, (name, ext)
            assert _reads(parsed.feed.subtitle_detail, QUOTED["tagline"]), (name, ext, parsed.feed.subtitle_detail)
            for entry in parsed.entries:
                assert entry.author_detail.name == QUOTED["site"], (name, ext, entry.author_detail)
        assert _reads(feeds["section-code"].feed.title_detail, f"{QUOTED['site']}: {QUOTED['section']}"), ext
        story = next(e for e in feeds["section-code"].entries if e.id.endswith("/stories/i13-quoting"))
        assert _reads(story.title_detail, QUOTED["headline"]), (ext, story.title_detail)
        assert _reads(story.summary_detail, QUOTED["summary"]), (ext, story.summary_detail)
        assert [t.term for t in story.tags] == [QUOTED["section"]], ext
        assert "<h2>AT&amp;T's \"&lt;b&gt;bold&lt;/b&gt;\" bet on R&amp;D</h2>" in story.content[0].value, ext
        issue = feeds["issues"].entries[0]
        assert _reads(issue.title_detail, QUOTED["issue"]), (ext, issue.title_detail)
        assert issue.summary_detail.value.startswith(_escaped(issue.summary_detail, lead)), (ext, issue.summary_detail)
        assert QUOTED["section"] in [t.term for t in issue.tags], ext
        entry = next(e for e in feeds["glossary"].entries if "/glossary/trainium/" in e.id)
        assert _reads(entry.title_detail, QUOTED["headword"]), (ext, entry.title_detail)
        assert _reads(entry.summary_detail, QUOTED["definition"]), (ext, entry.summary_detail)


HARDWARE = "  - slug: hardware\n    hu: Hardver\n    en: Hardware\n"


def _empty_feeds(site: Path, name: str) -> list[tuple[str, feedparser.FeedParserDict, bytes]]:
    """Each language's and format's feed `name`, parsed: (its path, the parse, its bytes)."""
    found = []
    for lang in ("hu", "en"):
        for ext in ("xml", "atom"):
            data = (site / f"{lang}/feeds/{name}.{ext}").read_bytes()
            found.append((f"{lang}/feeds/{name}.{ext}", feedparser.parse(data), data))
    return found


@pytest.mark.sqlite_only("how a feed is dated does not depend on the database")
def test_a_section_with_no_stories_yet_has_valid_feeds_dated_by_the_sites_latest_publication(sample_cli,
                                                                                           write_files):
    site_file = (SAMPLE_DIR / "site.yaml").read_text(encoding="utf-8").replace("  - slug: society\n",
                                                                              HARDWARE + "  - slug: society\n")
    sample_cli("import", str(write_files({"site.yaml": site_file})))
    site = _build(sample_cli, "_hardware")
    for relative, parsed, data in _empty_feeds(site, "section-hardware"):
        assert not parsed.bozo and parsed.entries == [], relative
        assert b"1970" not in data, relative
        if relative.endswith(".atom"):  # issue 13, the latest, came out at 07:00 in Budapest
            assert parsed.feed.updated == "2026-11-09T06:00:00+00:00", relative
        else:  # nothing in it was published: a build date, no publication date
            assert parsed.feed.updated == "Mon, 09 Nov 2026 06:00:00 +0000", relative
            assert "published" not in parsed.feed, relative
    # The section's page is there for the archive's link to it, says it has nothing yet, and is listed
    # with its feeds, as every section is (see README: "A section's own page is not one of them").
    document = parse(site / "en/archive/section/hardware/index.html")
    page = " ".join(" ".join(document.find(".//main").itertext()).split())
    assert page == "Archive Hardware No stories yet."
    description = next(m.get("content") for m in document.iter("meta") if m.get("name") == "description")
    assert description == "Section: Hardware – no stories yet."  # not "its stories by month"
    assert f"<loc>{BASE}en/archive/section/hardware/</loc>" in (site / "sitemap.xml").read_text(encoding="utf-8")
    assert f'href="{BASE}en/feeds/section-hardware.atom"' in (site / "hu/feeds/index.html").read_text(encoding="utf-8")


@pytest.mark.sqlite_only("how a feed is dated does not depend on the database")
def test_the_feeds_of_a_site_that_published_nothing_yet_are_dated_by_its_feed_id_date(cli, write_files):
    cli("init")
    cli("import", str(write_files(OWN_SITE)))  # a new publication: its site file and Method page, no issue
    site = _build(cli, "_empty")
    for name in ("issues", "glossary"):
        for relative, parsed, data in _empty_feeds(site, name):
            assert not parsed.bozo and parsed.entries == [], relative
            assert b"1970" not in data, relative
            # feed_id_date = "2026": its first moment in Budapest.
            expected = "2025-12-31T23:00:00+00:00" if relative.endswith(".atom") else "Wed, 31 Dec 2025 23:00:00 +0000"
            assert parsed.feed.updated == expected, relative


def _story_in_code_feeds(cli, write_files, slug: str, story: str):
    """Import the story file `story` (slug `slug`, in issue 13's Code section) as a correction and build: for
    each of the English Code section's feeds (RSS, Atom), parsed without error, (its extension, the story's
    entry, the entry's content parsed as an HTML fragment)."""
    cli("import", "--correction", "--reason", "feed test", str(write_files({f"stories/{slug}.yaml": story})))
    site = _build(cli, f"_{slug}")
    for ext in ("xml", "atom"):
        parsed = feedparser.parse((site / f"en/feeds/section-code.{ext}").read_bytes())
        assert not parsed.bozo, ext
        entry = next(e for e in parsed.entries if e.id.endswith(f"/stories/{slug}"))
        yield ext, entry, html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parseFragment(
            entry.content[0].value)


def _quoting_story_as(slug: str, summary: str) -> str:
    """QUOTING_STORY under another slug, with another summary (YAML, as it stands after `  summary: `)."""
    return QUOTING_STORY.replace("i13-quoting", slug).replace(
        "  summary: Amazon's &lt;b&gt;chips&lt;/b&gt; & \"Rainier\" <b>grow</b>, 1 < 2.\n", f"  summary: {summary}")


EMBED_STORY = _quoting_story_as("i13-embed",
    ">-\n    Watch <iframe src=\"https://www.youtube.com/embed/abc?start=5&amp;rel=0\"\n"
    "    title=\"the talk, <b>live</b>\">no frames</iframe> now.\n")


@pytest.mark.sqlite_only("what feeds say of a text does not depend on the database")
def test_an_embed_is_a_link_to_the_page_it_embeds_in_every_feed(sample_cli, write_files):
    """A story's <iframe> (a video) left nothing in a feed reader: its content links the page it embeds, named by
    its title, and its summary reads the title."""
    for ext, story, content in _story_in_code_feeds(sample_cli, write_files, "i13-embed", EMBED_STORY):
        assert not list(content.iter("iframe")), ext
        assert [(a.get("href"), a.text) for a in content.iter("a") if "youtube" in a.get("href")] == [
            ("https://www.youtube.com/embed/abc?start=5&rel=0", "the talk, <b>live</b>")], ext
        assert _reads(story.summary_detail, "Watch the talk, <b>live</b> now."), (ext, story.summary_detail)


LOST_CONTENT_STORY = _quoting_story_as("i13-lost-content",
    ">-\n    Type <xmp><b>bold</b> & more</xmp> in an <applet code=\"a.class\">old <i>applet</i></applet>,\n"
    "    with <math alttext=\"x squared\"><msup><mi>x</mi><mn>2</mn></msup></math> and\n"
    "    <iframe src=\"//video.example.org/v\" title=\"the talk\"></iframe>.\n")


@pytest.mark.sqlite_only("what feeds say of a text does not depend on the database")
def test_raw_html_that_lost_its_content_reaches_every_feed(sample_cli, write_files):
    """An <xmp>, an <applet>, a formula and a protocol-relative embed left nothing in a feed reader: the <xmp>'s
    text is preformatted text, the applet's fallback is shown, the formula is MathML and the embed a link to
    `https://…`; the summary reads them all, the formula as its `alttext`."""
    for ext, story, content in _story_in_code_feeds(sample_cli, write_files, "i13-lost-content", LOST_CONTENT_STORY):
        assert [pre.text for pre in content.iter("pre")] == ["<b>bold</b> & more"], ext
        assert "old applet" in "".join(content.itertext()), ext
        [formula] = content.iter("{http://www.w3.org/1998/Math/MathML}math")
        assert formula.get("alttext") == "x squared" and "".join(formula.itertext()) == "x2", ext
        assert [(a.get("href"), a.text) for a in content.iter("a") if "video" in a.get("href")] == [
            ("https://video.example.org/v", "the talk")], ext
        assert not [element for element in content.iter() if element.tag in ("xmp", "applet", "iframe")], ext
        assert _reads(story.summary_detail, "Type <b>bold</b> & more in an old applet, with x squared and the talk."), (
            ext, story.summary_detail)


ALT_TEXT_STORY = _quoting_story_as("i13-alt-text",
    ">-\n    The chart ![*Energy* per `token` \\* &amp; <b>more</b>]"
    "(https://example.org/chart.png) shows it.\n")


@pytest.mark.sqlite_only("what feeds say of a text does not depend on the database")
def test_an_image_reads_in_a_feed_summary_as_its_alt_attribute_holds_it(sample_cli, write_files):
    """A story's image read as its alt text's Markdown in the feed's summary ("*Energy* per `token` \\* &amp; …"),
    where the content's `alt` attribute holds its text: both read "Energy per token * & more"."""
    alt = "Energy per token * & more"
    for ext, story, content in _story_in_code_feeds(sample_cli, write_files, "i13-alt-text", ALT_TEXT_STORY):
        assert [image.get("alt") for image in content.iter("img")] == [alt], ext
        assert _reads(story.summary_detail, f"The chart {alt} shows it."), (ext, story.summary_detail)


FORMULA_STORY = _quoting_story_as("i13-formula",
    ">-\n    Take <math><mi>x</mi><mo>+</mo><b>y</b><mo>+</mo><abbr title=\"z\">z</abbr></math>\n"
    "    and <mi>w</mi>.\n")


@pytest.mark.sqlite_only("what feeds say of a text does not depend on the database")
def test_html_in_a_formula_and_mathml_outside_one_keep_their_text_in_every_feed(sample_cli, write_files):
    """A <b> in a formula stood after it, an <abbr> in it went with its text, and an <mi> outside a formula too:
    the formula holds the text of both in <mtext>s, the <mi>'s stands in the sentence, and the summary reads all."""
    for ext, story, content in _story_in_code_feeds(sample_cli, write_files, "i13-formula", FORMULA_STORY):
        [formula] = content.iter("{http://www.w3.org/1998/Math/MathML}math")
        assert [(element.tag.split("}")[1], element.text) for element in formula] == [
            ("mi", "x"), ("mo", "+"), ("mtext", "y"), ("mo", "+"), ("mtext", "z")], ext
        assert not [element for element in content.iter() if element.tag in ("b", "abbr", "mi")], ext
        assert "Take x+y+z and w." in " ".join("".join(content.itertext()).split()), ext
        assert _reads(story.summary_detail, "Take x+y+z and w."), (ext, story.summary_detail)
