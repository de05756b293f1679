"""The build: both languages, valid pages that know their language and twin, a sitemap."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from xml.etree import ElementTree as ET

import html5lib
import pytest

from newsroom.build.pages import PageSpec
from newsroom.render.sitemap import render_sitemap

SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
XHTML = "{http://www.w3.org/1999/xhtml}"
BASE = "https://news.example.org/"


@pytest.fixture
def site(sample_cli) -> Path:
    out = sample_cli.cwd / "_site"
    result = sample_cli("build", "--out", str(out), "--base-url", BASE)
    assert "pages" in result.stdout
    return out


def _parse(path: Path):
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    return parser.parse(path.read_bytes())


def _pages(site: Path) -> list[Path]:
    """The indexed pages: not the root redirect, not the 404 pages (tests/test_site_html.py covers those)."""
    return sorted(p for p in site.rglob("*.html") if p != site / "index.html" and p.name != "404.html")


def test_both_languages_have_every_page_type(site):
    for lang in ("hu", "en"):
        for page in ("index.html", "issues/13/index.html", "issues/index.html", "glossary/index.html",
                     "glossary/trainium/index.html", "reference/trainium/index.html", "method/index.html"):
            assert (site / lang / page).is_file(), f"{lang}/{page}"


def test_every_page_is_well_formed_html5_with_its_language_and_twin(site):
    for path in _pages(site):
        relative = path.relative_to(site).as_posix()
        lang = relative.split("/")[0]
        document = _parse(path)  # strict: raises on any parse error
        assert document.get("lang") == lang, relative
        alternates = {link.get("hreflang"): link.get("href") for link in document.iter("link")
                      if link.get("rel") == "alternate" and link.get("hreflang")}
        for other in ("hu", "en"):
            twin = alternates[other]
            assert twin.startswith(BASE)
            target = site / twin.removeprefix(BASE) / "index.html"
            assert target.is_file(), f"{relative}: twin {twin} missing"
        assert alternates["x-default"] == alternates["hu"]
        switch = [a for a in document.iter("a") if a.get("rel") == "alternate" and a.get("hreflang")]
        assert switch, f"{relative}: no language switch"
        other_lang = "en" if lang == "hu" else "hu"
        twin_path = relative.replace(f"{lang}/", f"{other_lang}/", 1)
        assert switch[0].get("href") == "/" + twin_path.removesuffix("index.html")


def test_sitemap_lists_every_page_with_hreflang_alternates(site):
    tree = ET.parse(site / "sitemap.xml")
    entries = {url.find(f"{SITEMAP}loc").text: url for url in tree.getroot()}
    pages = {BASE + p.relative_to(site).as_posix().removesuffix("index.html") for p in _pages(site)}
    assert set(entries) == pages
    trainium = entries[BASE + "hu/glossary/trainium/"]
    links = {link.get("hreflang"): link.get("href") for link in trainium.findall(f"{XHTML}link")}
    assert links == {"hu": BASE + "hu/glossary/trainium/", "en": BASE + "en/glossary/trainium/",
                     "x-default": BASE + "hu/glossary/trainium/"}


def test_sitemap_escapes_what_urls_may_carry():
    # The sitemap is written directly, not through ElementTree: a parser must read back every URL.
    odd = 'hu/a&b"c<d>/'
    pages = [PageSpec(odd, "hu", "page.html", {}, {"hu": odd, "en": "en/e\tf\ng/"}, dt.date(2026, 11, 30)),
             PageSpec("en/only/", "en", "page.html", {}, {}, None)]
    root = ET.fromstring(render_sitemap(pages, BASE, "hu"))
    entries = {url.find(f"{SITEMAP}loc").text: url for url in root}
    assert set(entries) == {BASE + odd, BASE + "en/only/"}
    links = {link.get("hreflang"): link.get("href") for link in entries[BASE + odd].findall(f"{XHTML}link")}
    assert links == {"hu": BASE + odd, "en": BASE + "en/e\tf\ng/", "x-default": BASE + odd}
    assert entries[BASE + odd].find(f"{SITEMAP}lastmod").text == "2026-11-30"


def test_the_root_leads_to_the_default_language(site):
    document = _parse(site / "index.html")
    assert document.get("lang") == "hu"
    assert any(a.get("href") == "hu/" for a in document.iter("a"))


def test_entry_page_shows_relations_from_both_sides(site):
    document = _parse(site / "en" / "glossary" / "trainium2" / "index.html")
    text = " ".join(" ".join(document.itertext()).split())
    assert "Broader" in text
    broader_section = text.split("Broader", 1)[1]
    assert broader_section.lstrip().startswith("Trainium") or "Trainium ," in broader_section[:200]


def test_a_failed_build_leaves_the_previous_site_untouched(sample_cli, site, write_files):
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    broken = write_files({"stories/broken.yaml": """\
kind: story
slug: broken-link
issue: 13
section: code
position: 99
sources: [{publisher: X, title: Y, url: "https://example.org/"}]
hu: {headline: Törött, summary: "Lásd [ezt](entry:no-such-entry)."}
en: {headline: Broken, summary: "See [this](entry:no-such-entry)."}
"""})
    sample_cli("import", str(broken))
    result = sample_cli("build", "--out", str(site), "--base-url", BASE, expect=1)
    assert "story:broken-link: en.summary: link to a missing entry 'no-such-entry'" in result.stderr
    after = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    assert after == before
