"""Tags: each has a page of its own at an address of its own, in any script; two tags sharing one are reported."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlsplit
from xml.etree import ElementTree as ET

import feedparser
import pytest
from conftest import PUBLIC_SETTINGS
from sitebuild import BASE, OWN_SITE, build_sample, parse, run, text_of

from issues.archive import tag_slug

SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
ATOM = "{http://www.w3.org/2005/Atom}"


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


SAMPLE_SITE = (Path(__file__).parent.parent / "newsroom/sample/site.yaml").read_text(encoding="utf-8")
#: The sample's site file with one tag named in English alone (its Hungarian pages show the English name).
ENGLISH_ONLY = "  - slug: open-weights\n    hu: nyílt súlyok\n    en: open weights\n"
#: Stories tagged in Arabic, Hebrew and Japanese (and Cyrillic, Greek, and Hindi with its vowel signs), which
#: the site file does not name.
SCRIPTS = {
    "stories/arabic.yaml": _story("arabic", 90, ["مرحبا"]),
    "stories/hebrew-japanese.yaml": _story("hebrew-japanese", 91, ["שלום", "日本"]),
    "stories/others.yaml": _story("others", 92, ["Москва", "Αθήνα", "हिन्दी", "ひらがな"]),
    "site.yaml": SAMPLE_SITE.replace(ENGLISH_ONLY, "  - slug: open-weights\n    en: open weights\n"),
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


def _categories(feed: Path, link: str) -> list[str]:
    """The categories of the item of `feed` (RSS 2.0 or Atom) whose link ends with `link`, every one as the XML
    has it (feedparser keeps each term once, so it cannot show one written twice)."""
    root = ET.parse(feed).getroot()
    if feed.suffix == ".xml":
        item = next(i for i in root.iter("item") if i.findtext("link").endswith(link))
        return [category.text for category in item.iter("category")]
    entry = next(e for e in root.iter(f"{ATOM}entry") if any(
        a.get("href").endswith(link) for a in e.iter(f"{ATOM}link")))
    return [category.get("term") for category in entry.iter(f"{ATOM}category")]


def _tag_links(page) -> dict[str, object]:
    """The archive's links to tag pages, by the tag's address (the last part of the path)."""
    return {unquote(a.get("href")).rstrip("/").rpartition("/")[2]: a for a in page.iter("a")
            if "/archive/tag/" in (a.get("href") or "")}


def _keywords(page) -> list[list[str]]:
    """The keywords of each story in an issue page's JSON-LD."""
    data = json.loads(next(s.text for s in page.iter("script") if s.get("type") == "application/ld+json"))
    found = []
    for node in (data.get("@graph") or [data]):
        for part in node.get("hasPart") or []:
            found.append(part.get("keywords") or [])
    return found


def test_a_tag_is_named_in_the_page_s_language_at_one_address(site):
    # The site file names the sample's tags in each language: a Hungarian reader sees "MI-rendelet", not the
    # slug "ai-act", in the archive's list, the tag page's title, heading and description, and the issue's
    # keywords; the page stays at archive/tag/ai-act/ in both languages.
    for lang, name, heading, title in (("hu", "MI-rendelet", "Címke: MI-rendelet", "MI-rendelet · Archívum · "),
                                       ("en", "AI Act", "Tag: AI Act", "AI Act · Archive · ")):
        link = _tag_links(parse(site / lang / "archive/index.html"))["ai-act"]
        assert text_of(link) == name and link.get("href") == f"/{lang}/archive/tag/ai-act/", lang
        page = parse(site / lang / "archive/tag/ai-act/index.html")
        assert text_of(page.find(".//h1")) == heading and page.find(".//h1").find(".//*[@lang]") is None
        assert text_of(page.find(".//title")).startswith(title), lang
        description = next(m.get("content") for m in page.iter("meta") if m.get("name") == "description")
        assert description.startswith(heading), lang
        assert any(name in keywords and "ai-act" not in keywords for keywords in _keywords(
            parse(site / lang / "issues/13/index.html"))), lang


def test_the_sample_tags_its_stories_on_the_ai_act_with_one_tag(site):
    # One law, one tag: the Commission's threshold consultation (issue 10) carries the tag of the other two
    # AI Act stories, and no second page names the law otherwise.
    for lang in ("hu", "en"):
        assert not (site / lang / "archive/tag/eu-ai-act").exists(), lang
        page = parse(site / lang / "archive/tag/ai-act/index.html")
        listed = {a.get("href").rpartition("#story-")[2] for a in page.find(".//main").iter("a")
                  if "#story-" in (a.get("href") or "")}
        assert listed == {"i10-ai-act-compute-threshold-consultation", "i12-ai-office-training-data-summaries",
                          "i13-eu-ai-act-text-labelling-guidance"}, (lang, listed)


def test_the_archive_lists_tags_in_the_order_of_their_names(site):
    names = [text_of(a) for a in _tag_links(parse(site / "hu/archive/index.html")).values()]
    assert names.index("adatközpontok") < names.index("általános célú MI") < names.index("Anthropic") \
        < names.index("MI-rendelet") < names.index("Nvidia"), names


def test_a_tag_named_in_another_language_alone_is_marked_as_that_language_s(site):
    link = _tag_links(parse(site / "hu/archive/index.html"))["open-weights"]
    assert [(e.get("lang"), text_of(e)) for e in link.iter() if e.get("lang")] == [("en", "open weights")]
    heading = parse(site / "hu/archive/tag/open-weights/index.html").find(".//h1")
    assert text_of(heading) == "Címke: open weights"
    assert [(e.get("lang"), text_of(e)) for e in heading.iter() if e.get("lang")] == [("en", "open weights")]
    # Its English page is in its own language: nothing marked.
    heading = parse(site / "en/archive/tag/open-weights/index.html").find(".//h1")
    assert text_of(heading) == "Tag: open weights" and not [e for e in heading.iter() if e.get("lang")]


def test_check_warns_of_a_tag_the_site_names_not_or_not_in_every_language(site):
    checked = run(site.parent, "check")
    index = [line for line in SAMPLE_SITE.split("tags:\n", 1)[1].splitlines() if "- slug:" in line].index(
        "  - slug: open-weights")
    assert (f"site: tags[{index}].hu: warning: the tag 'open-weights' has no name in this language: its pages "
            "show the en name 'open weights', marked as en; write its name here") in checked, checked
    assert ("story:arabic: tags[0]: warning: the site file names no tag 'مرحبا': its page (archive/tag/مرحبا/) "
            "and the archive show it as written here, 'مرحبا', in every language; name it under the site file's "
            "`tags:` (slug: مرحبا, and its name in each language) and import that (`newsroom import site.yaml`)"
            ) in checked, checked
    assert checked.count("the site file names no tag") == 7, checked  # once a tag, at its first story


def test_check_warns_of_a_tag_the_site_file_lists_with_no_name(tmp_path, write_files):
    # A slug alone, or with its names left empty, names the tag in no language: its pages show it as the
    # stories write it, as if the list left it out. A warning at the item, as for a name missing in one language.
    tags = ("tags:\n  - slug: ai-act\n    hu: MI-rendelet\n    en: AI Act\n  - slug: chips\n"
            "  - slug: robots\n    hu: ''\n    en:\n")
    (tmp_path / "newsroom.toml").write_text(PUBLIC_SETTINGS, encoding="utf-8")  # check names the content's problems
    run(tmp_path, "init")
    run(tmp_path, "import", str(write_files({**OWN_SITE, "site.yaml": OWN_SITE["site.yaml"] + tags})))
    checked = run(tmp_path, "check")
    for index, slug in ((1, "chips"), (2, "robots")):
        assert (f"site: tags[{index}]: warning: the tag {slug!r} has no name in any language: its pages show it "
                "as the stories write it; write its name in each language under its slug (hu: …, en: …)"
                ) in checked, checked
    assert "tags[0]" not in checked and "0 error(s), 2 warning(s)" in checked, checked


def test_check_warns_of_two_tags_the_site_file_names_alike_in_a_language(tmp_path, write_files):
    # Two tag pages with one heading ("Címke: MI-rendelet") in the archive's list are two tags a reader cannot
    # tell apart: a warning at the second item, naming the first. Names are compared as a reader reads them:
    # case aside, and a letter written precomposed (é) or as a letter and its accent (e + ◌́) alike.
    tags = ("tags:\n  - slug: ai-act\n    hu: MI-rendelet\n    en: AI Act\n"
            "  - slug: eu-ai-act\n    hu: mi-rendelet\n    en: EU AI Act\n"
            "  - slug: chips\n    hu: Csipek\n    en: Chips\n"
            "  - slug: cafe\n    hu: Kávé\n    en: Cafe\n  - slug: kave\n    hu: Ka\u0301ve\u0301\n    en: Coffee\n")
    (tmp_path / "newsroom.toml").write_text(PUBLIC_SETTINGS, encoding="utf-8")  # check names the content's problems
    run(tmp_path, "init")
    run(tmp_path, "import", str(write_files({**OWN_SITE, "site.yaml": OWN_SITE["site.yaml"] + tags})))
    checked = run(tmp_path, "check")
    assert ("site: tags[1].hu: warning: the tag 'eu-ai-act' has the name of the tag 'ai-act' in this language, "
            "'MI-rendelet': their two pages (archive/tag/ai-act/, archive/tag/eu-ai-act/) have one heading and "
            "the archive lists the name twice; give each its own name, or tag their stories with one of them"
            ) in checked, checked
    assert ("site: tags[4].hu: warning: the tag 'kave' has the name of the tag 'cafe' in this language, 'Kávé': "
            "their two pages (archive/tag/cafe/, archive/tag/kave/) have one heading and the archive lists the "
            "name twice; give each its own name, or tag their stories with one of them") in checked, checked
    assert "tags[0]" not in checked and "tags[2]" not in checked and ".en:" not in checked, checked
    assert "0 error(s), 2 warning(s)" in checked, checked


def test_check_warns_of_a_tag_whose_other_language_name_shows_as_another_tag_s_name(tmp_path, write_files):
    # A tag with no name in a language shows its name in another (marked as that language's) on that language's
    # pages: "Címke: open weights" on its Hungarian page, the heading the Hungarian page of a tag named "Open
    # weights" there has. A warning at the later item, the fallback's language said; two tags that fall back to
    # one name are the other language's clash, warned there once.
    tags = ("tags:\n  - slug: nyilt-sulyok\n    hu: Open weights\n    en: Open-weight models\n"
            "  - slug: open-weights\n    en: open weights\n"
            "  - slug: chips\n    en: Chips\n  - slug: csipek\n    hu: chips\n    en: Chip makers\n"
            "  - slug: robots\n    en: Robots\n  - slug: robotics\n    en: robots\n")
    run(tmp_path, "init")
    run(tmp_path, "import", str(write_files({**OWN_SITE, "site.yaml": OWN_SITE["site.yaml"] + tags})))
    checked = run(tmp_path, "check")
    said = "have one heading and the archive lists the name twice"
    assert ("site: tags[1].hu: warning: the tag 'open-weights' has no name in this language, and the en name its "
            "pages show here, 'open weights', is the name of the tag 'nyilt-sulyok' in this language: their two "
            f"pages (archive/tag/nyilt-sulyok/, archive/tag/open-weights/) {said}; write its name here") in checked, \
        checked
    assert ("site: tags[3].hu: warning: the tag 'csipek' has the name the tag 'chips' shows in this language, "
            "'Chips', its en name (it has none here): their two pages (archive/tag/chips/, archive/tag/csipek/) "
            f"{said}; write the tag 'chips' a name in this language, or give this one another") in checked, checked
    assert ("site: tags[5].en: warning: the tag 'robotics' has the name of the tag 'robots' in this language, "
            "'Robots'") in checked, checked
    assert checked.count(said) == 3, checked  # not also at tags[5].hu, where both show their English name


def test_the_site_file_refuses_a_tag_slug_that_is_no_page_s_name(tmp_path):
    folder = tmp_path
    run(folder, "init")
    (folder / "site.yaml").write_text(SAMPLE_SITE.replace("  - slug: ai-act\n", "  - slug: AI Act\n"),
                                      encoding="utf-8")
    output = run(folder, "import", str(folder / "site.yaml"), expect=1)
    assert "tags[0].slug: expected a tag's page name, as archive/tag/…/ writes it: lowercase words joined by " \
           "hyphens (ai-act for AI Act), got 'AI Act'" in output, output


def test_the_sample_s_hungarian_texts_name_the_glossary_as_its_pages_do(site):
    # The interface says "Fogalomtár"; the editor's notes and the Method page say it too.
    for path in (site / "hu").rglob("*.html"):
        assert "glosszárium" not in path.read_text(encoding="utf-8").lower(), path


def test_a_section_feed_s_stories_carry_their_tags_named_in_the_feed_s_language(site):
    for lang, section, tag in (("hu", "Szabályozás", "MI-rendelet"), ("en", "Policy", "AI Act")):
        for ext in ("xml", "atom"):
            feed = feedparser.parse((site / lang / f"feeds/section-policy.{ext}").read_bytes())
            item = next(e for e in feed.entries if e.link.endswith("#story-i13-eu-ai-act-text-labelling-guidance"))
            terms = [category.term for category in item.tags]
            assert terms[0] == section and tag in terms and "ai-act" not in terms, (lang, ext, terms)


def test_an_issues_feed_s_items_carry_their_stories_tags_named_in_the_feed_s_language(site):
    # Each issue's categories are its sections' names, then its stories' tags as the feed's language names
    # them (one written in no language as the stories write it), each once, in the order of the archive's
    # list of tags; RSS and Atom alike.
    for lang, sections, tag, unnamed in (("hu", ["Kód", "Pénz", "Szabályozás", "Tudomány", "Társadalom"],
                                          "MI-rendelet", "مرحبا"),
                                         ("en", ["Code", "Money", "Policy", "Science", "Society"], "AI Act", "日本")):
        keywords = {name for names in _keywords(parse(site / lang / "issues/13/index.html")) for name in names}
        listed = [text_of(a) for a in _tag_links(parse(site / lang / "archive/index.html")).values()]
        expected = [*sections, *(name for name in listed if name in keywords)]
        assert tag in expected and unnamed in expected, expected
        for ext in ("xml", "atom"):
            feed = feedparser.parse((site / lang / f"feeds/issues.{ext}").read_bytes())
            assert not feed.bozo, feed.get("bozo_exception")
            item = next(e for e in feed.entries if e.link == f"{BASE}{lang}/issues/13/")
            terms = [category.term for category in item.tags]
            assert terms == expected == _categories(site / lang / f"feeds/issues.{ext}", f"/{lang}/issues/13/"), (
                lang, ext, terms)
            assert "ai-act" not in terms and len(terms) == len(set(terms)), (lang, ext, terms)


def test_a_tag_named_as_its_story_s_section_is_one_category_of_it(tmp_path):
    # A story of the Code section tagged "Kód", the section's Hungarian name: its Hungarian items name it once.
    site = build_sample(tmp_path, {"stories/code-tag.yaml": _story("code-tag", 90, ["Kód"])})
    for ext in ("xml", "atom"):
        assert _categories(site / f"hu/feeds/section-code.{ext}", "#story-code-tag") == ["Kód"], ext
        terms = _categories(site / f"hu/feeds/issues.{ext}", "/hu/issues/13/")
        assert terms.count("Kód") == 1 and "Pénz" in terms, (ext, terms)
