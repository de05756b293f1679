"""Both languages: the switch lands on the twin, hreflang both ways, plurals, the missing-translation policy."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from sitebuild import BASE, build_sample, html_pages, language_switch, page_url, parse, text_of

from newsroom.render import html
from newsroom.render.html import environment
from newsroom.render.search_query import search

SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"

#: An entry and a story written only in Hungarian, to exercise the missing-translation policy.
HU_ONLY = {
    "entries/csak-magyar.yaml": """\
kind: entry
slug: csak-magyar
category: infrastructure
level: basic
trend: emerging
status: 2026-11
hu:
  headword: Hűtőkör
  definition: A hűtőkör az adatközpont gépeiből elvezeti a hőt.
""",
    "stories/i13-csak-magyar.yaml": """\
kind: story
slug: i13-csak-magyar
issue: 13
section: science
position: 99
tags: [folyadékhűtés]
terms: [csak-magyar]
sources: [{publisher: MTI, title: Hűtés, url: "https://example.org/hutes"}]
hu:
  headline: Folyadékhűtésre áll át egy magyar adatközpont
  summary: Egy budapesti adatközpont folyadékhűtésre vált.
""",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build_sample(tmp_path_factory.mktemp("i18n"))


def _alternates(document) -> dict[str, str]:
    return {link.get("hreflang"): link.get("href") for link in document.iter("link")
            if link.get("rel") == "alternate" and link.get("hreflang")}


def _file(site: Path, href: str) -> Path:
    relative = href.removeprefix(BASE).lstrip("/")
    return site / (relative + "index.html" if relative.endswith("/") or not relative else relative)


def test_the_switch_on_every_page_lands_on_its_twin_and_back(site):
    pages = [p for p in html_pages(site) if p != site / "index.html"]
    kinds = set()
    for path in pages:
        url = page_url(site, path)
        rest = url.partition("/")[2] if "/" in url else url
        kinds.add(rest.split("/")[0] if rest else "home")
        document = parse(path)
        lang = document.get("lang")
        # The root 404 page is the default language's; its twin switches back to hu/404.html.
        own_page = site / "hu/404.html" if url == "404.html" else path
        alternates = _alternates(document)
        for other, href in language_switch(document).items():
            twin = _file(site, href)
            assert twin.is_file(), f"{url}: switch to {href} leads nowhere"
            twin_document = parse(twin)
            assert twin_document.get("lang") == other
            if "/glossary/letter/" in url and "/glossary/letter/" not in href:
                # A letter of one language's index that the other's has no entries under ("Sz", or an English
                # "C"): its twin is that language's index, which switches back to this language's index.
                assert page_url(site, twin) == f"{other}/glossary/", f"{url} → {href}"
                assert _file(site, language_switch(twin_document)[lang]) == site / lang / "glossary/index.html"
                assert alternates == {}, f"{url}: the other language's index is no alternate of it"
                continue
            assert _file(site, language_switch(twin_document)[lang]) == own_page, f"{url}: {href} does not switch back"
            # The same page, not the other language's home page (unless this is the home page).
            assert (page_url(site, twin).partition("/")[2] == "") == (rest == ""), f"{url} → {href}"
        if not alternates:
            continue
        assert set(alternates) == {"hu", "en", "x-default"}, url
        assert alternates[lang] == BASE + page_url(site, own_page)
        assert alternates["x-default"] == alternates["hu"]
    # Every kind of page the sample produces took part.
    assert {"home", "issues", "glossary", "reference", "method", "search", "404.html"} <= kinds


def _source_links(document) -> dict[str, str | None]:
    """{a source link's title (or text): its lang}, of the page's source lists and its stories' source lines."""
    return {link.get("title") or text_of(link): link.get("lang") for element in document.iter()
            if element.get("class") in ("sources", "story-sources") for link in element.iter("a")
            if link.get("class") != "backref"}


def test_a_source_s_title_in_another_language_says_its_language(site):
    """Most sources of a Hungarian page are English, and a Hungarian one is shown on English pages: its
    `lang` marks the title where the page's language is another (a screen reader read "AWS Trainium
    Architecture" with the Hungarian voice), and nowhere else."""
    for page in ("glossary/trainium", "reference/trainium"):
        hu, en = (_source_links(parse(site / lang / page / "index.html")) for lang in ("hu", "en"))
        assert set(hu.values()) == {"en"} and set(en.values()) == {None}, page
        assert len(hu) > 5 and hu.keys() == en.keys()
    hu, en = (_source_links(parse(site / lang / "issues/10/index.html")) for lang in ("hu", "en"))
    hungarian = "Közzétettük a nagyfogyasztói csatlakozási kapacitások térképét"  # MAVIR's
    assert (hu[hungarian], en[hungarian]) == (None, "hu")
    assert hu["Native PyTorch on AWS Trainium: what changes with the new Neuron release"] == "en"
    assert {lang for title, lang in en.items() if lang} == {"hu"} and list(en.values()).count("hu") == 2
    article = json.loads(next(script.text for script in parse(site / "hu/reference/trainium/index.html").iter("script")
                              if script.get("type") == "application/ld+json"))
    assert {citation.get("inLanguage") for citation in article["citation"]} == {"en"}


def test_plural_forms_come_from_the_catalog():
    for lang, one, many in (("en", "1 story", "8 stories"), ("hu", "1 hír", "8 hír")):
        template = environment(lang).from_string(
            "{% trans count=n %}{{ count }} story{% pluralize %}{{ count }} stories{% endtrans %}")
        assert template.render(n=1) == one and template.render(n=8) == many


def test_counts_are_written_as_the_language_writes_numbers():
    """A glossary of 13000 entries said "13000 szócikk" and "13000 entries": Hungarian groups the thousands of a
    number of five digits or more with a no-break space ("1300", "13 000"), English those of any with a comma.
    An issue's number is no count: unchanged."""
    counts = ('{% trans count=n %}{{ count }} story{% pluralize %}{{ count }} stories{% endtrans %}|'
              '{{ ngettext("%(num)s entry", "%(num)s entries", n) }}|{{ _("Issue %(number)s", number=n) }}')
    shown = {lang: [environment(lang).from_string(counts).render(n=n) for n in (1, 8, 1300, 13000)]
             for lang in ("hu", "en")}
    assert shown == {"hu": ["1 hír|1 szócikk|1. szám", "8 hír|8 szócikk|8. szám",
                            "1300 hír|1300 szócikk|1300. szám",
                            "13\u00a0000 hír|13\u00a0000 szócikk|13000. szám"],
                     "en": ["1 story|1 entry|Issue 1", "8 stories|8 entries|Issue 8",
                            "1,300 stories|1,300 entries|Issue 1300", "13,000 stories|13,000 entries|Issue 13000"]}


def test_hungarian_labels_take_the_article_their_value_is_said_with(site):
    """A source's way back to its citations read "Vissza a(z) 1. hivatkozáshoz" on every Hungarian page: the
    article before a number is "az" where the number is said with a vowel (egy, öt, ötven, ezer)."""
    labels = {link.get("aria-label") for page in html_pages(site / "hu") for link in parse(page).iter("a")
              if link.get("class") == "backref"}
    assert {"Vissza az 1. hivatkozáshoz", "Vissza a 2. hivatkozáshoz", "Vissza az 5. hivatkozáshoz"} <= labels
    assert not any("a(z)" in path.read_text(encoding="utf-8") for path in html_pages(site))
    label = environment("hu").from_string('{{ _("Back to citation %(n)s", n=n) }}')
    said = {n: label.render(n=n).split()[1] for n in (3, 10, 15, 50, 55, 100, 150, 500, 1000, 1300, 2000, 5000,
                                                      10000, 50000, 100000, 1000000, 2000000)}
    assert said == {3: "a", 10: "a", 15: "a", 50: "az", 55: "az", 100: "a", 150: "a", 500: "az", 1000: "az",
                    1300: "az", 2000: "a", 5000: "az", 10000: "a", 50000: "az", 100000: "a", 1000000: "az",
                    2000000: "a"}
    # Any message may say "a(z)" before a count or a word; a value's own text is left as it was written.
    words = environment("hu").from_string(
        '{% trans count=n %}a(z) {{ count }}. szám{% pluralize %}a(z) {{ count }}. szám{% endtrans %}|'
        '{{ _("A(z) GPU") }}|{% trans %}A(z) MI{% endtrans %}|{{ _("Tag: %(tag)s", tag=tag) }}')
    assert words.render(n=1, tag="a(z) MI") == "az 1. szám|A GPU|Az MI|Címke: a(z) MI"
    assert words.render(n=2, tag="<a(z)>") == "a 2. szám|A GPU|Az MI|Címke: &lt;a(z)&gt;"


def test_each_language_renders_its_own_labels_from_compiled_templates_kept_between_builds(tmp_path):
    # Labels are translated as a template compiles, and compiled templates are kept between processes:
    # each language must find its own, whichever compiled first, and a name the template binds itself
    # is called, not translated.
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "labels.html").write_text(
        '{{ _("Glossary") }}|{% trans %}Search{% endtrans %}|{{ _("Issue %(number)s", number=7) }}|'
        '{% macro spelt(_) %}{{ _("Glossary") }}{% endmacro %}{{ spelt("-".join) }}|{{ _("<b>") }}',
        encoding="utf-8")
    expected = {"hu": "Fogalomtár|Keresés|7. szám|G-l-o-s-s-a-r-y|<b>",
                "en": "Glossary|Search|Issue 7|G-l-o-s-s-a-r-y|<b>"}
    for order in (("hu", "en"), ("en", "hu")):
        for lang in order:
            html._environment.cache_clear()  # as a new process: the compiled code comes from the files
            assert environment(lang, folder).get_template("labels.html").render() == expected[lang]


def test_editions_and_search_pages_count_with_plurals(site):
    editions = text_of(parse(site / "en/issues/index.html").find(".//main"))
    assert "stories)" in editions
    scope = text_of(parse(site / "hu/search/index.html").find(".//main"))
    assert "13 szócikk" in scope and "39 hír" in scope
    assert "13 glossary entries" in text_of(parse(site / "en/search/index.html").find(".//main"))


# A published issue's story without English is stored only as it is (`--no-check`: a backup restored, a
# database from before imports refused it); an entry without it is imported as any file.
@pytest.fixture(scope="module")
def fallback_site(tmp_path_factory):
    return build_sample(tmp_path_factory.mktemp("fallback"), HU_ONLY, 'missing_translation = "fallback"\n',
                        "--no-check")


@pytest.fixture(scope="module")
def omit_site(tmp_path_factory):
    return build_sample(tmp_path_factory.mktemp("omit"), HU_ONLY, 'missing_translation = "omit"\n', "--no-check")


def test_omit_switches_only_to_pages_that_exist(omit_site):
    # A tag only a Hungarian-only story carries has no English page: its Hungarian page offers none.
    site = omit_site
    assert (site / "hu/archive/tag/folyadekhutes/index.html").is_file()
    assert not (site / "en/archive/tag/folyadekhutes").exists()
    for path in html_pages(site):
        document = parse(path)
        for href in [*language_switch(document).values(), *_alternates(document).values()]:
            assert _file(site, href).is_file(), f"{page_url(site, path)}: {href} leads nowhere"


def test_fallback_shows_the_other_language_marked_and_noted(fallback_site):
    site = fallback_site
    entry = parse(site / "en/glossary/csak-magyar/index.html")
    article = entry.find(".//article")
    assert entry.get("lang") == "en" and _language(entry, article.find(".//h1")) == "hu"
    assert "Not yet translated" in text_of(article.find(".//p[@class='untranslated']"))
    assert text_of(article.find(".//h1")) == "Hűtőkör"
    assert language_switch(entry) == {"hu": "/hu/glossary/csak-magyar/"}
    index = parse(site / "en/glossary/index.html")
    marked = [text_of(element) for element in index.iter() if element.get("lang") == "hu"]
    assert "Hűtőkör" in marked  # the headword, in its own language
    notes = [text_of(small) for small in index.iter("small") if small.get("class") == "untranslated-mark"]
    assert notes == ["not yet translated"]  # and a visible note on its row
    story = next(a for a in parse(site / "en/issues/13/index.html").iter("article")
                 if a.get("id") == "story-i13-csak-magyar")
    assert _language(parse(site / "en/issues/13/index.html"), story.find("h3")) == "hu"
    assert story.find(".//p[@class='untranslated']") is not None
    hits = search(site / "en/search/index", "hutokor")
    assert [(hit["title"], hit["lang"]) for hit in hits] == [("Hűtőkör", "hu")]
    assert all(hit["lang"] == "" for hit in search(site / "en/search/index", "trainium"))


def _language(document, element) -> str:
    """The language an element is in: its own `lang`, or its nearest ancestor's."""
    parents = {child: parent for parent in document.iter() for child in parent}
    while element is not None and element.get("lang") is None:
        element = parents.get(element)
    return element.get("lang") if element is not None else ""


def test_fallback_marks_only_the_text_as_the_other_language_not_the_interface_around_it(fallback_site):
    """English labels, notes and headings around Hungarian text are English: `lang` goes on the text alone."""
    entry = parse(fallback_site / "en/glossary/csak-magyar/index.html")
    article = entry.find(".//main/article")
    assert _language(entry, article.find(".//h1")) == "hu"
    assert _language(entry, article.find(".//p[@class='definition']")) == "hu"
    interface = [article.find(".//p[@class='untranslated']"), article.find(".//nav[@class='breadcrumb']"),
                 article.find(".//p[@class='badges']"), *article.iter("h2")]
    for element in interface:
        assert element is not None and _language(entry, element) == "en", text_of(element)
    issue = parse(fallback_site / "en/issues/13/index.html")
    story = next(a for a in issue.iter("article") if a.get("id") == "story-i13-csak-magyar")
    assert _language(issue, story.find("h3")) == "hu"
    for element in (story.find(".//p[@class='untranslated']"), story.find(".//p[@class='story-sources']")):
        assert element is not None and _language(issue, element) == "en", text_of(element)
    assert any(_language(issue, p) == "hu" for p in story.iter("p") if p.get("class") is None)


def test_omit_leaves_the_page_out_of_that_language_everywhere(omit_site):
    site = omit_site
    assert (site / "hu/glossary/csak-magyar/index.html").is_file()
    assert not (site / "en/glossary/csak-magyar").exists()
    hu_entry = parse(site / "hu/glossary/csak-magyar/index.html")
    assert language_switch(hu_entry) == {} and _alternates(hu_entry) == {}  # no twin, no alternates
    for path in html_pages(site / "en"):
        body = path.read_text(encoding="utf-8")
        assert "csak-magyar" not in body and "Hűtőkör" not in body, page_url(site, path)
    sitemap = [loc.text for loc in ET.parse(site / "sitemap.xml").getroot().iter(f"{SITEMAP}loc")]
    assert BASE + "hu/glossary/csak-magyar/" in sitemap and BASE + "en/glossary/csak-magyar/" not in sitemap
    english_index = b"".join(p.read_bytes() for p in (site / "en/search/index").rglob("*.json"))
    assert "csak-magyar".encode() not in english_index and "Hűtőkör".encode() not in english_index
    assert "csak-magyar".encode() in b"".join(p.read_bytes() for p in (site / "hu/search/index").rglob("*.json"))


def _declared(site: Path) -> dict[str, dict[str, str]]:
    """{page URL: its hreflang alternates (language → URL)}, of every page of the built site."""
    declared = {}
    for path in html_pages(site):
        alternates = {**_alternates(parse(path))}
        declared[BASE + page_url(site, path)] = alternates
    return declared


def _not_reciprocal(declared: dict[str, dict[str, str]]) -> list[str]:
    """What breaks reciprocity: each page that names an alternate which does not name it back, names no
    other language, or names another page as itself; and an x-default other than the default language's."""
    wrong = []
    for url, alternates in declared.items():
        if not alternates:
            continue
        own = {lang for lang, href in alternates.items() if href == url and lang != "x-default"}
        if len(own) != 1:
            wrong.append(f"{url}: does not name itself once among {alternates}")
            continue
        lang = own.pop()
        others = {other: href for other, href in alternates.items() if other not in (lang, "x-default")}
        if not others:
            wrong.append(f"{url}: declares itself alone, with no twin")
        for other, href in others.items():
            back = declared.get(href)
            if back is None:
                wrong.append(f"{url}: {other} → {href}, no such page")
            elif back.get(lang) != url:
                wrong.append(f"{url}: {other} → {href}, which says {lang} → {back.get(lang)}")
        if alternates.get("x-default", alternates.get("hu")) != alternates.get("hu"):
            wrong.append(f"{url}: x-default {alternates['x-default']} is not the Hungarian page")
    return wrong


@pytest.mark.parametrize("which", ["site", "omit_site"])
def test_hreflang_alternates_are_reciprocal_on_every_page_and_in_the_sitemap(which, request):
    # A page names as its alternate only its twin, the same page in the other language, and the twin names it
    # back; a page without a twin (an English "C" of the A–Z index: Hungarian headwords under it are under
    # "Cs") names none, though its language switch may still lead to the other language's index.
    site = request.getfixturevalue(which)
    declared = _declared(site)
    assert _not_reciprocal(declared) == []
    assert declared[BASE + "404.html"] == declared[BASE + "hu/404.html"] == {}  # not to be indexed: no alternates
    assert declared[BASE] == {}  # the root leads to the Hungarian home page, its canonical address
    english_c = declared[BASE + "en/glossary/letter/c/"]
    assert english_c == {} and not (site / "hu/glossary/letter/c").exists()
    assert language_switch(parse(site / "en/glossary/letter/c/index.html")) == {"hu": "/hu/glossary/"}
    in_sitemap = {}
    for url in ET.parse(site / "sitemap.xml").getroot():
        links = url.findall("{http://www.w3.org/1999/xhtml}link")
        in_sitemap[url.find(f"{SITEMAP}loc").text] = {link.get("hreflang"): link.get("href") for link in links}
    assert _not_reciprocal(in_sitemap) == []
    assert in_sitemap == {url: declared[url] for url in in_sitemap}  # as the pages say


def test_a_glossary_feed_marks_an_untranslated_entry_s_language_or_leaves_it_out(fallback_site, omit_site):
    """Under "fallback" the English glossary feed carries the Hungarian-only entry, as the site shows it: its
    Atom entry says its language (xml:lang) and its RSS item too (dc:language: RSS 2.0 has none of its own),
    which feedparser reads; under "omit", which gives it no English page, the feed leaves it out (its item
    linked to a page that is not there)."""
    import feedparser

    def entries(site, ext="atom"):
        return {entry.link: entry for entry in feedparser.parse((site / f"en/feeds/glossary.{ext}").read_bytes()).entries}

    page = BASE + "en/glossary/csak-magyar/"
    shown = entries(fallback_site)
    assert shown[page].title_detail.language == "hu"
    assert {entry.title_detail.language for link, entry in shown.items() if link != page} == {"en"}
    items = entries(fallback_site, "xml")
    assert items[page].language == "hu"
    assert [link for link, item in items.items() if "language" in item] == [page]  # the others are the feed's
    assert page not in entries(omit_site)
    assert page not in entries(omit_site, "xml")
    assert not (omit_site / "en/glossary/csak-magyar").exists()


@pytest.mark.sqlite_only("numbers are written by the language's rules, whatever the database")
def test_the_archive_counts_a_year_s_stories_as_the_language_writes_numbers(databases):
    """The archive's and a section's list of years said "2016 (1040)" on the English pages: a year's stories are
    counted as the other counts are ("1,040"; Hungarian groups from five digits, "1040"). Planned through the
    build's planner: a build of a thousand stories would take the suite's seconds."""
    import datetime as dt
    import sys

    from newsroom import PROJECT_ROOT, SAMPLE_DIR
    from newsroom.build.derived import derive
    from newsroom.build.model import load_content
    from newsroom.build.pages import Planner
    from newsroom.content.importer import import_records
    from newsroom.content.reader import read_files
    from newsroom.db.session import make_engine, session_factory, transaction
    from newsroom.settings import Settings

    sys.path.insert(0, str(PROJECT_ROOT / "bench"))
    from generate import LANGS, NOW, Shape, Writer, store

    engine = make_engine(databases.new("migrated"))
    with transaction(engine) as session:
        import_records(session, [item for item in read_files([SAMPLE_DIR], LANGS) if item.kind in ("site", "page")],
                       LANGS, NOW)
    stories = [{"kind": "story", "slug": f"s{position}", "issue": 1, "section": "code", "position": position,
                "sources": [{"publisher": "Wire", "title": "Report", "url": f"https://example.org/{position}"}],
                "hu": {"headline": f"Hír {position}", "summary": "Röviden."},
                "en": {"headline": f"Story {position}", "summary": "In short."}} for position in range(1, 1041)]
    store(engine, [Writer(Shape(1, 1, 0)).issue(1), *stories])  # issue 1 came out in 2016
    with session_factory(engine)() as session:
        content = load_content(session)
    engine.dispose()
    settings = Settings()
    derived = derive(content, settings, False, NOW)
    for lang, count in (("en", "1,040"), ("hu", "1040")):
        planner = Planner(content, derived, settings, lang, NOW)
        for spec in (planner.archive(), planner.archive_section("code")):  # the pages write it as it is: "(1,040)"
            assert [(year["year"], year["count"]) for year in spec.context["years"]] == [(2016, count)], spec.url
