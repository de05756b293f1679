"""Tags: each has a page of its own at an address of its own, in any script; two tags sharing one are reported."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit
from xml.etree import ElementTree as ET

import pytest
from sitebuild import BASE, build_sample, parse, run, text_of

from issues.archive import tag_slug

SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def _story(slug: str, position: int, tags: list[str]) -> str:
    listed = ", ".join(f'"{tag}"' for tag in tags)
    return f"""\
kind: story
slug: {slug}
issue: 13
section: code
position: {position}
tags: [{listed}]
sources: [{{publisher: Example, title: Example, url: "https://example.org/{slug}"}}]
hu: {{headline: Hír {slug}, summary: Összefoglaló.}}
en: {{headline: Story {slug}, summary: Summary.}}
"""


#: Stories tagged in Arabic, Hebrew and Japanese (and Cyrillic, Greek, and Hindi with its vowel signs).
SCRIPTS = {
    "stories/arabic.yaml": _story("arabic", 90, ["مرحبا"]),
    "stories/hebrew-japanese.yaml": _story("hebrew-japanese", 91, ["שלום", "日本"]),
    "stories/others.yaml": _story("others", 92, ["Москва", "Αθήνα", "हिन्दी", "ひらがな"]),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return build_sample(tmp_path_factory.mktemp("tags"), SCRIPTS)


def _file(site: Path, href: str) -> Path:
    """The file a link leads to, as a web server finds it: the path percent-decoded."""
    path = unquote(urlsplit(href).path).lstrip("/")
    return site / (path + "index.html" if path.endswith("/") or not path else path)


def test_tags_in_other_scripts_have_pages_of_their_own(site):
    for lang in ("hu", "en"):
        tags = {}
        for a in parse(site / lang / "archive/index.html").iter("a"):
            if "/archive/tag/" in (a.get("href") or ""):
                tags[text_of(a)] = a.get("href")
        for tag, story in (("مرحبا", "arabic"), ("שלום", "hebrew-japanese"), ("日本", "hebrew-japanese"),
                           ("Москва", "others"), ("Αθήνα", "others"), ("हिन्दी", "others"), ("ひらがな", "others")):
            href = tags[tag]
            assert href.isascii(), href  # percent-encoded
            page = parse(_file(site, href))
            assert text_of(page.find(".//h1")).endswith(tag), (lang, tag)
            listed = {a.get("href").rstrip("/").rpartition("#story-")[2] for a in page.find(".//main").iter("a")
                      if "#story-" in (a.get("href") or "")}
            assert listed == {story}, (lang, tag, listed)
        assert len(set(tags.values())) == len(tags), lang  # no two tags share an address


def test_a_tag_s_page_keeps_its_letters_and_marks():
    assert tag_slug("日本") == "日本" and tag_slug("שלום") == "שלום"
    assert tag_slug("हिन्दी") == "हिन्दी"  # vowel signs are combining marks, and stay
    assert tag_slug("が") == "が" != tag_slug("か")
    assert tag_slug("Москва") == "москва"
    # Latin letters lose their accents, as before: the addresses of existing tags stay where they were.
    assert tag_slug("Folyadékhűtés") == "folyadekhutes" and tag_slug("AI Act") == "ai-act"
    assert tag_slug("🚀") != tag_slug("🛰") and tag_slug("🚀")


def test_the_sitemap_lists_the_tag_pages_at_addresses_that_resolve(site):
    root = ET.parse(site / "sitemap.xml").getroot()
    locs = [url.find(f"{SITEMAP}loc").text for url in root]
    tag_locs = [loc for loc in locs if "/archive/tag/" in loc]
    assert all(loc.isascii() for loc in locs)
    for loc in tag_locs:
        assert _file(site, loc.removeprefix(BASE.rstrip("/"))).is_file(), loc
    on_disk = {path.parent.name for path in site.glob("hu/archive/tag/*/index.html")}
    assert {"مرحبا", "שלום", "日本", "москва"} <= on_disk
    assert len([loc for loc in tag_locs if "/hu/" in loc]) == len(on_disk)


TAG_VARIANTS = {
    "stories/upper.yaml": _story("upper", 90, ["Model Card"]),
    "stories/lower.yaml": _story("lower", 91, ["model card"]),
}


def test_check_names_two_tags_that_would_share_one_page(tmp_path):
    folder = tmp_path / "variants"
    build_sample(folder, {})
    content = folder / "variants"
    for relative, text in TAG_VARIANTS.items():
        (content / relative).parent.mkdir(parents=True, exist_ok=True)
        (content / relative).write_text(text, encoding="utf-8")
    run(folder, "import", "--correction", "--reason", "corrected", str(content))  # a warning: the import stores it
    message = ("tags[0]: warning: 'model card' would share one page with the tag 'Model Card' (story:upper), at "
               "archive/tag/model-card/: write it 'Model Card', or give it a tag of its own")
    checked = run(folder, "check")
    assert f"story:lower: {message}" in checked, checked
