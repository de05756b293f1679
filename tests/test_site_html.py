"""Every built page is well-formed HTML5 with the structure readers, browsers and search engines need."""

from __future__ import annotations

import re

import pytest
from sitebuild import BASE, OWN_SITE, build_sample, html_pages, page_url, parse, read_aloud, shown_text, text_of

from newsroom import SAMPLE_DIR

HEADING = re.compile(r"h([1-6])")
OG_LOCALE = {"hu": "hu_HU", "en": "en_GB"}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build_sample(tmp_path_factory.mktemp("html"))


def _meta(document, key: str, attribute: str = "property") -> str | None:
    for meta in document.iter("meta"):
        if meta.get(attribute) == key:
            return meta.get("content")
    return None


def test_every_page_has_language_title_description_and_one_h1_with_headings_in_order(site):
    for path in html_pages(site):
        url = page_url(site, path)
        document = parse(path)
        assert document.get("lang") in ("hu", "en"), url
        assert text_of(document.find("head/title")), url
        assert _meta(document, "description", "name"), url
        levels = [int(HEADING.fullmatch(e.tag).group(1)) for e in document.iter() if isinstance(e.tag, str)
                  and HEADING.fullmatch(e.tag)]
        assert levels.count(1) == 1 and levels[0] == 1, f"{url}: headings {levels}"
        for before, after in zip(levels, levels[1:]):
            assert after <= before + 1, f"{url}: heading level jumps from h{before} to h{after}"


def test_a_text_s_own_headings_come_under_the_heading_it_sits_under(tmp_path):
    """A story body's `# Heading` (or a raw `<h1>`) made a second <h1> on its issue page, the home page and
    the feeds: the page's title is its one h1. Its headings then came out as h2, beside the issue's sections,
    and an entry's example's beside the entry's own sections: a screen reader's outline put them there. A
    text's headings now come under the headline or the section heading above it, in their order."""
    story = (SAMPLE_DIR / "stories" / "i13-aws-trainium3-capacity.yaml").read_text(encoding="utf-8")
    story = story.replace("\n  body: |\n", "\n  body: |\n    # A heading of its own\n\n    <h1>Pasted</h1>\n\n"
                          "    ### Below it\n\n", 2)
    assert story.count("# A heading of its own") == 2
    entry = (SAMPLE_DIR / "entries" / "gpu.yaml").read_text(encoding="utf-8")
    entry = entry.replace("\n  example: |\n", "\n  example: |\n    ## For gamers\n\n", 2)
    site = build_sample(tmp_path, {"stories/i13-aws-trainium3-capacity.yaml": story, "entries/gpu.yaml": entry})
    for path in (site / "hu/issues/13/index.html", site / "en/index.html", site / "en/glossary/gpu/index.html"):
        document = parse(path)
        headings = [(element.tag, text_of(element)) for element in document.find(".//main").iter()
                    if isinstance(element.tag, str) and HEADING.fullmatch(element.tag)]
        levels = [int(tag[1]) for tag, _ in headings]
        assert levels.count(1) == 1 and all(b <= a + 1 for a, b in zip(levels, levels[1:])), headings
        if "glossary" in path.parts:
            at = headings.index(("h2", "An everyday example"))
            assert headings[at + 1] == ("h3", "For gamers"), headings
            continue
        at = [tag for tag, _ in headings].index("h4")
        assert headings[at - 1][0] == "h3" and [tag for tag, _ in headings[at:at + 2]] == ["h4", "h5"], headings
        assert headings[at][1] == "A heading of its own", headings
        assert "Pasted" in text_of(document.find(".//main")), path

def test_every_page_has_landmarks_alt_texts_and_the_hashed_stylesheet(site):
    stylesheets = {p.name for p in (site / "assets").glob("site.*.css")}
    assert len(stylesheets) == 1 and re.fullmatch(r"site\.[0-9a-f]{10}\.css", stylesheets.pop())
    for path in html_pages(site):
        url = page_url(site, path)
        document = parse(path)
        body = document.find("body")
        for landmark in ("header", "nav", "main", "footer"):
            assert body.find(f".//{landmark}") is not None, f"{url}: no <{landmark}>"
        assert len(body.findall(".//main")) == 1, url
        for image in body.iter("img"):
            assert image.get("alt") is not None, f"{url}: image without alt"
        css = [link.get("href") for link in document.iter("link") if link.get("rel") == "stylesheet"]
        assert len(css) == 1 and re.search(r"assets/site\.[0-9a-f]{10}\.css$", css[0]), url
        assert not [s for s in document.iter("script") if s.get("src") and "search" not in s.get("src")], url


def test_indexed_pages_have_canonical_url_and_open_graph_tags(site):
    for path in html_pages(site):
        url = page_url(site, path)
        document = parse(path)
        lang = document.get("lang")
        if path.name == "404.html":
            assert _meta(document, "robots", "name") == "noindex"
            continue
        canonical = [link.get("href") for link in document.iter("link") if link.get("rel") == "canonical"]
        expected = BASE + ("hu/" if url == "" else url)  # the root's canonical page is the default language's home
        assert canonical == [expected], url
        assert _meta(document, "og:title") and _meta(document, "og:description"), url
        assert _meta(document, "og:url") in (expected, BASE), url
        assert _meta(document, "og:locale") == OG_LOCALE[lang], url
        assert _meta(document, "og:type") in ("website", "article"), url
    entry = parse(site / "en/glossary/trainium/index.html")
    assert _meta(entry, "og:type") == "article"
    assert _meta(entry, "og:description") == _meta(entry, "description", "name")
    assert _meta(entry, "og:locale:alternate") == "hu_HU"


def test_a_404_page_in_both_languages_and_at_the_root(site):
    for path, lang, heading in (("404.html", "hu", "Az oldal nem található"), ("hu/404.html", "hu", "Az oldal nem található"),
                                ("en/404.html", "en", "Page not found")):
        document = parse(site / path)
        assert document.get("lang") == lang
        assert text_of(document.find(".//h1")) == heading
        # Links are root-absolute, so the page works at whatever path the server shows it.
        assert all(a.get("href").startswith(("/", "#")) for a in document.iter("a")), path
    switch = [a.get("href") for a in parse(site / "hu/404.html").iter("a") if a.get("rel") == "alternate"]
    assert switch == ["/en/404.html"]
    sitemap = (site / "sitemap.xml").read_text()
    assert "404" not in sitemap


def test_the_stylesheet_has_dark_print_and_focus_rules(site):
    css = next((site / "assets").glob("site.*.css")).read_text()
    assert "prefers-color-scheme: dark" in css
    assert "@media print" in css and "details::details-content" in css
    assert ":focus-visible" in css


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_text_colours_meet_wcag_aa_contrast_in_light_and_dark_schemes(site):
    css = next((site / "assets").glob("site.*.css")).read_text()
    schemes = re.findall(r":root \{([^}]*)\}", css)[:2]  # light, then the dark override
    assert len(schemes) == 2
    for block in schemes:
        colours = dict(re.findall(r"--([a-z-]+): (#[0-9a-f]{6})", block))
        for text in ("ink", "muted", "accent"):
            assert _contrast(colours[text], colours["paper"]) >= 4.5, (text, block)
            assert _contrast(colours[text], colours["panel"]) >= 4.5, (text, "on panel")
        assert _contrast(colours["accent-ink"], colours["accent"]) >= 4.5  # button label
        assert _contrast(colours["ink"], colours["mark"]) >= 4.5  # the "not yet translated" note


#: A story whose slug is another's with its first source link's suffix, as `story-{slug}-source-1` read.
SOURCE_LIKE_SLUG = """\
kind: story
slug: i13-aws-trainium3-capacity-source-1
issue: 13
section: money
position: 9
sources:
  - {publisher: Example, title: Example, url: "https://example.org/a"}
hu: {headline: Forrásnak látszó cím, summary: "Ahogy írták [1]."}
en: {headline: A slug like a source's, summary: "As they wrote [1]."}
"""


def test_no_story_slug_gives_an_id_another_story_s_source_link_has(tmp_path):
    """Story `x-source-1` had the id of story `x`'s first source link: the issue page repeated an id, and a
    citation could lead to the other story. Each id is on the page once, each citation in its own story."""
    site = build_sample(tmp_path, {"stories/extra.yaml": SOURCE_LIKE_SLUG})
    for path in (site / "en/issues/13/index.html", site / "hu/index.html"):
        document = parse(path)
        ids = [element.get("id") for element in document.iter() if isinstance(element.tag, str) and element.get("id")]
        assert sorted(set(ids)) == sorted(ids), sorted({i for i in ids if ids.count(i) > 1})
        for story in document.iter("article"):
            own = {element.get("id") for element in story.iter() if isinstance(element.tag, str)}
            cited = {a.get("href")[1:] for sup in story.iter("sup") if sup.get("class") == "cite"
                     for a in sup.iter("a")}
            assert cited <= own, f"{story.get('id')}: {sorted(cited - own)}"


def test_every_in_page_link_has_its_target(site):
    for path in html_pages(site):
        document = parse(path)
        ids = {element.get("id") for element in document.iter() if isinstance(element.tag, str) and element.get("id")}
        fragments = {a.get("href")[1:] for a in document.iter("a") if (a.get("href") or "").startswith("#")}
        assert fragments <= ids, f"{page_url(site, path)}: no target for {sorted(fragments - ids)}"


def test_the_root_leads_to_hungarian_without_script_or_guessing(site):
    document = parse(site / "index.html")
    assert document.get("lang") == "hu" and not list(document.iter("script"))
    refresh = [m.get("content") for m in document.iter("meta") if m.get("http-equiv") == "refresh"]
    assert refresh == ["0; url=hu/"]
    assert [a.get("href") for a in document.find(".//main").iter("a")] == ["hu/"]


def test_templates_read_dict_keys_and_attributes_as_jinja_does():
    # The site's template environment takes a dict's key without trying the attribute first when
    # dict has no attribute of that name: the same answer as Jinja's own lookup, for every name.
    from jinja2 import Environment, Undefined

    from newsroom.render.html import environment

    env = environment("en")
    data = {"headline": "H", "items": "an item named items", "get": 1, "": 0, "__class__": "x"}
    names = ["headline", "items", "get", "keys", "missing", "", "__class__", "__len__", "copy", "fromkeys"]
    for obj in (data, {}, [1, 2], "text", 3):
        for name in names:
            ours, jinjas = env.getattr(obj, name), Environment.getattr(env, obj, name)
            if isinstance(jinjas, Undefined):
                assert type(ours) is type(jinjas) and ours._undefined_name == name
            else:
                assert ours == jinjas or (callable(ours) and repr(ours) == repr(jinjas)), (obj, name)
    assert env.from_string("{{ d.headline }} {{ d['items'] }} {{ d.items()|length }} {{ d.missing.deeper }}|").render(
        d=data) == "H an item named items 5 |"


@pytest.mark.parametrize("value", ["plain", "", "<script>alert('x')</script>", 'a "quoted" & <tagged> \'one\'',
                                   "&amp; stays escaped again", "ő ű \u2028 \x00", 0, 3.5, None, True])
def test_templates_escape_what_they_show_as_markupsafe_does(value):
    # The site's templates write each shown value through their own escaping (no Markup made for it):
    # the same text as MarkupSafe's, for text, other values, Markup, objects with __html__ and undefined.
    from jinja2 import Environment
    from markupsafe import Markup, escape

    from newsroom.render import html as html_module
    from newsroom.render.html import environment

    class Shown:
        def __html__(self) -> str:
            return "<b>as HTML</b>"

        def __str__(self) -> str:
            return "<as text>"

    env, plain = environment("en"), Environment(autoescape=True)
    source = "{{ v }}|{{ m }}|{{ s }}|{{ missing }}|{{ v ~ '<' }}|{% set x %}{{ v }}{% endset %}{{ x }}|" \
             "{% macro shown(a) %}[{{ a }}]{% endmacro %}{{ shown(v) }}"
    context = {"v": value, "m": Markup("<i>kept</i>"), "s": Shown()}
    assert "environment.escape_output(" in env.compile(source, raw=True)  # ours, not Jinja's `escape`
    assert env.from_string(source).render(context) == plain.from_string(source).render(context)
    assert env.escape_output(value) == str(escape(value))
    # MarkupSafe's own escaper where it has one, and the same in Python where it has not.
    assert html_module._escape_text(str(value)) == html_module.escape_text(str(value)) == str(escape(str(value)))

    class MarkupAsText:  # no __html__, but its text is Markup: escaped as text all the same
        def __str__(self) -> str:
            return Markup(f"<b>{value}</b>")

    assert env.escape_output(MarkupAsText()) == str(escape(MarkupAsText()))


def test_issue_pages_and_the_home_page_are_described_by_their_lead(site):
    # Not by the site's tagline, which every other page of the kind had too: a search result or a shared
    # link says what this issue holds. Plain text, about 160 characters at most, cut between words.
    tagline = {lang: text_of(parse(site / lang / "index.html").find(".//p[@class='tagline']")) for lang in ("hu", "en")}
    for lang in ("hu", "en"):
        descriptions = {}
        for path in sorted(site.glob(f"{lang}/issues/*/index.html")):
            document = parse(path)
            lead = text_of(document.find(".//div[@class='lead']"))
            description = _meta(document, "description", "name")
            assert description == _meta(document, "og:description"), path
            assert description != tagline[lang] and len(description) <= 160, (path, description)
            assert "<" not in description and "*" not in description and "[" not in description, description
            if description.endswith("…"):
                shown = description.removesuffix("…")
                assert lead.startswith(shown) and lead[len(shown)] in " ,.;:", (path, description)
            else:
                assert description == lead, path
            descriptions[path.parent.name] = description
        assert len(set(descriptions.values())) == len(descriptions) >= 4, descriptions
        home = parse(site / lang / "index.html")
        assert _meta(home, "description", "name") == descriptions["13"]  # the latest issue's


def test_archive_and_glossary_list_pages_say_what_they_list(site):
    for page, expected in (("en/archive/tag/chips/", "Tag: chips – every story, newest first."),
                           ("hu/archive/tag/chips/", "Címke: chipek – minden hír, a legújabb elöl."),
                           ("en/archive/section/code/", "Section: Code – its stories by month, newest first."),
                           ("hu/archive/section/code/", "Rovat: Kód – hírei hónapok szerint, a legújabb elöl."),
                           ("en/archive/section/code/2026/",
                            "Section: Code, 2026 – every story of the year's issues, by month."),
                           ("hu/archive/section/code/2026/",
                            "Rovat: Kód, 2026 – az év lapszámainak minden híre, hónapok szerint."),
                           ("en/archive/2026/", "2026 – every story of the year's issues, by month."),
                           ("hu/archive/2026/", "2026 – az év lapszámainak minden híre, hónapok szerint."),
                           ("en/glossary/letter/t/", "T – glossary entries, in dictionary order."),
                           ("hu/glossary/letter/t/", "T – a fogalomtár szócikkei, betűrendben."),
                           ("en/glossary/level/basic/", "Level: basic – glossary entries, in dictionary order."),
                           ("en/glossary/category/infrastructure/",
                            "Infrastructure – glossary entries, in dictionary order.")):
        document = parse(site / page / "index.html")
        assert _meta(document, "description", "name") == expected, page


def _accessible_name(link) -> str:
    """A link's name as a screen reader reads it: its aria-label, else its text and its images' alt texts."""
    if (link.get("aria-label") or "").strip():
        return link.get("aria-label").strip()
    return " ".join([text_of(link), *(image.get("alt") or "" for image in link.iter("img"))]).strip()


def _language(element, parents: dict) -> str | None:
    while element is not None and not element.get("lang"):
        element = parents.get(element)
    return None if element is None else element.get("lang")


def _until(body, main) -> list:
    """The elements before `main` in reading order: a page with links or fields there needs a skip link."""
    elements = []
    for element in body.iter():
        if element is main:
            break
        elements.append(element)
    return elements


def _assistive_technology_problems(document) -> list[str]:
    """What a screen reader's or a keyboard's user meets on one page: ids, references to them, landmarks,
    names of links, tables, fields and buttons, the language of links to another language's pages."""
    elements = [element for element in document.iter() if isinstance(element.tag, str)]
    parents = {child: parent for parent in elements for child in parent}
    ids = [element.get("id") for element in elements if element.get("id")]
    problems = [f"id {i!r} {ids.count(i)} times" for i in sorted(set(ids)) if ids.count(i) > 1]
    for element in elements:
        for attribute in ("aria-labelledby", "aria-describedby", "aria-controls", "for"):
            problems += [f"<{element.tag} {attribute}={target!r}>: no such id"
                         for target in (element.get(attribute) or "").split() if target not in ids]
    body = document.find("body")
    main = body.findall(".//main")
    skip = [a.get("href") for a in body.iter("a") if a.get("class") == "skip-link"]
    before = [element for element in _until(body, main[0] if main else None) if element.tag in ("a", "input")]
    if len(main) != 1 or skip != [f"#{main[0].get('id')}"] * bool(before):
        problems.append(f"skip link {skip} to one <main>, found {len(main)}, after {len(before)} links and fields")
    for landmark, found in (("nav", body.iter("nav")), ("search", (e for e in elements if e.get("role") == "search"))):
        names = [element.get("aria-label") or element.get("aria-labelledby") for element in found]
        if len(names) > 1 and (None in names or len(set(names)) < len(names)):
            problems.append(f"{landmark} landmarks not told apart: {names}")
    for parent in body.iter():
        links = list(parent)
        for link, after in zip(links, links[1:]):
            if link.tag == after.tag == "a" and not (link.tail or "").strip() and link.get("href") == after.get(
                    "href") and _accessible_name(link) == _accessible_name(after):
                problems.append(f"the same link twice in a row: {_accessible_name(link)!r}")
    for link in body.iter("a"):
        if not _accessible_name(link):
            problems.append(f"link to {link.get('href')} without a name")
        if link.get("target"):
            problems.append(f"link to {link.get('href')} opens another window")
        if link.get("hreflang") and link.get("hreflang") != _language(link, parents):
            problems.append(f"link to the {link.get('hreflang')} page {text_of(link)!r} not in its language")
    for table in body.iter("table"):
        if table.find("caption") is None and not table.get("aria-label") and not table.get("aria-labelledby"):
            problems.append("table without a caption or a name")
        if table.find("thead") is None and not all(th.get("scope") for th in table.iter("th")):
            problems.append("table without a header row or scoped headings")
    labelled = {label.get("for") for label in body.iter("label")}
    for field in (*body.iter("input"), *body.iter("select"), *body.iter("textarea")):
        if field.get("type") not in ("hidden", "submit") and field.get("id") not in labelled \
                and not field.get("aria-label"):
            problems.append(f"field {field.get('name')!r} without a label")
    problems += ["button without a name" for button in body.iter("button") if not text_of(button)]
    problems += [f"image {image.get('src')} without alt" for image in body.iter("img") if image.get("alt") is None]
    return problems


def test_every_page_serves_screen_readers_and_keyboards(site):
    """Ids once a page, every reference to one answered, one search landmark and told-apart navigations, the
    skip link to <main>, every link named (and not twice in a row), every table and field named."""
    problems = [f"{page_url(site, path) or '/'}: {problem}" for path in html_pages(site)
                for problem in _assistive_technology_problems(parse(path))]
    assert not problems, "\n".join(problems[:40])


def test_a_reference_table_without_a_caption_is_named_by_its_section_and_layer(site):
    # NVDA's and VoiceOver's list of tables read "table, 2 columns" for each; now "4. Full spec table Deep dive…".
    document = parse(site / "en/reference/trainium/index.html")
    ids = {element.get("id"): text_of(element) for element in document.iter() if element.get("id")}
    names = [" ".join(ids[i] for i in table.get("aria-labelledby").split()) for table in document.iter("table")]
    assert names == ["4. Full spec table Deep dive The technical detail", "7. Official pricing Simple Start here"]


def test_the_search_page_has_one_search_landmark_its_own_form(site):
    for lang in ("hu", "en"):
        document = parse(site / lang / "search/index.html")
        landmarks = [form for form in document.iter("form") if form.get("role") == "search"]
        assert len(landmarks) == 1 and landmarks[0].get("data-search-index"), lang
        assert [f.get("role") for f in parse(site / lang / "index.html").iter("form")] == ["search"], lang


def test_the_language_switch_names_each_language_in_itself(site):
    # "HU" and "ENG" alone were all a screen reader said; each is now followed, for it only, by the language's
    # own name, read in that language ("HU, magyarul" in a Hungarian voice, "ENG, in English" in an English one).
    for path in (site / "hu/glossary/trainium/index.html", site / "en/archive/index.html", site / "en/404.html"):
        switch = next(li for li in parse(path).iter("li") if li.get("class") == "languages")
        names = {item.get("lang"): "".join(item.itertext()) for item in switch if item.tag in ("a", "span")}
        assert names == {"hu": "HU, magyarul", "en": "ENG, in English"}, path
        assert all(a.get("lang") == a.get("hreflang") for a in switch.iter("a")), path


def test_a_correction_s_language_marks_are_read_as_the_language_s_name(tmp_path):
    """"[ENG]" after a corrected field's name was spelled out by screen readers, "left bracket E N G": the mark
    stays as readers see it, and a screen reader reads the language's name in the page's language instead."""
    story = (SAMPLE_DIR / "stories" / "i13-aws-trainium3-capacity.yaml").read_text(encoding="utf-8")
    story = story.replace("headline: Újabb régiókban bérelhető a Trainium3, köztük Európában",
                          "headline: Újabb régiókban is bérelhető a Trainium3, köztük Európában")
    english = re.search(r"\nen:\n  headline: (.*)\n", story)[1]
    story = story.replace(f"\nen:\n  headline: {english}\n", f"\nen:\n  headline: {english}!\n")
    site = build_sample(tmp_path, {"stories/i13-aws-trainium3-capacity.yaml": story})
    for lang, shown, read in (("hu", "(cím [ENG], cím [HU])", "(cím angol, cím magyar)"),
                              ("en", "(headline [ENG], headline [HU])", "(headline English, headline Hungarian)")):
        corrections = parse(site / lang / "issues/13/index.html").find(".//section[@id='corrections']")
        items = corrections.findall(".//li")
        assert len(items) == 1, lang
        seen, heard = shown_text(items[0]), read_aloud(items[0])
        assert shown in seen and read in heard, (seen, heard)


#: The navigation's sections: the pages under each one's address are its own (a year, a tag, a section of the
#: archive; an issue; an entry, a letter, a category, a level of the glossary).
SECTIONS = ("issues/", "glossary/", "archive/")


def _navigation_marks(document) -> dict[str, str]:
    """{link's address: its aria-current} of the site navigation's links (the language switch aside)."""
    nav = next(nav for nav in document.iter("nav") if nav.get("class") == "site-nav")
    return {a.get("href"): a.get("aria-current") for li in nav.iter("li") if li.get("class") != "languages"
            for a in li.iter("a") if a.get("aria-current")}


def test_the_navigation_marks_the_page_shown_and_the_section_that_holds_it(site):
    """No link of the navigation said where the reader was. The link to the page shown is the current page
    (aria-current="page"), the link of the section holding it the current item of the set ("true"), as a
    screen reader says it ("current page", "current"); every other link is plain. The home page, the latest
    issue, marked no link: it marks Editions, as that issue's own page does."""
    shown = {}
    for path in html_pages(site):
        url = page_url(site, path)
        document = parse(path)
        if url in ("", "404.html") or not any(n.get("class") == "site-nav" for n in document.iter("nav")):
            continue
        lang, rest = url.split("/", 1)
        links = {f"/{lang}/{part}" for part in (*SECTIONS, "method/", "feeds/")}
        if f"/{url}" in links:
            expected = {f"/{url}": "page"}
        elif rest == "":  # the home page: the latest issue, under Editions as its own page is
            expected = {f"/{lang}/issues/": "true"}
        else:
            expected = {f"/{lang}/{part}": "true" for part in SECTIONS if rest.startswith(part)}
        marks = _navigation_marks(document)
        assert marks == expected, url
        assert set(marks) <= links, url
        shown[url] = marks
    en = {"Editions": "/en/issues/", "Glossary": "/en/glossary/", "Archive": "/en/archive/", "Method": "/en/method/",
          "RSS": "/en/feeds/"}
    for url, marked in (("en/issues/", {"Editions": "page"}), ("en/issues/13/", {"Editions": "true"}),
                        ("en/glossary/", {"Glossary": "page"}), ("en/glossary/trainium/", {"Glossary": "true"}),
                        ("en/glossary/letter/t/", {"Glossary": "true"}),
                        ("en/glossary/category/infrastructure/", {"Glossary": "true"}),
                        ("en/glossary/level/basic/", {"Glossary": "true"}), ("en/archive/", {"Archive": "page"}),
                        ("en/archive/2026/", {"Archive": "true"}), ("en/archive/tag/chips/", {"Archive": "true"}),
                        ("en/archive/section/code/2026/", {"Archive": "true"}), ("en/method/", {"Method": "page"}),
                        ("en/feeds/", {"RSS": "page"}), ("en/", {"Editions": "true"}), ("en/search/", {}),
                        ("en/reference/", {}),
                        ("en/reference/trainium/", {})):
        assert shown[url] == {en[name]: value for name, value in marked.items()}, url
    assert _navigation_marks(parse(site / "en/404.html")) == {}
    # Seen too, and not by colour alone: the marked link is underlined.
    css = next((site / "assets").glob("site.*.css")).read_text()
    rules = re.findall(r"([^{}]*a\[aria-current[^{}]*)\{([^}]*)\}", css)
    assert rules and all("text-decoration" in body or "border" in body for _, body in rules), rules


@pytest.mark.sqlite_only("the navigation does not depend on the database")
def test_the_home_page_before_the_first_issue_marks_no_section(cli, write_files, tmp_path):
    """Until an issue is published the home page shows none, so no section holds it: Editions stays plain."""
    cli("init")
    cli("import", str(write_files(OWN_SITE)))
    cli("build", "--out", str(tmp_path / "site"))
    for lang, none in (("hu", "Még nem jelent meg lapszám."), ("en", "No issue has been published yet.")):
        document = parse(tmp_path / "site" / lang / "index.html")
        assert none in text_of(document.find(".//main"))
        assert _navigation_marks(document) == {}, lang
