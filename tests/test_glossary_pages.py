"""The built glossary: entry pages section by section, A–Z index, category and level lists, JSON-LD."""

from __future__ import annotations

import json
from pathlib import Path

import html5lib
import pytest
from conftest import Cli
from sitebuild import language_switch

from glossary.collation import HU_ALPHABET_HEADINGS
from glossary.views import index_letters, letter_groups, letter_slug

BASE = "https://news.example.org/"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample publication built once for this module's read-only checks."""
    folder = tmp_path_factory.mktemp("glossary-site")
    cli = Cli(f"sqlite:///{folder / 'sample.db'}", folder)
    cli("init", "--sample")
    cli("build", "--out", str(folder / "_site"), "--base-url", BASE)
    return folder / "_site"


EXTRA = {
    "entries/bare.yaml": """\
kind: entry
slug: bare-entry
category: methods
level: basic
trend: emerging
status: 2026-11
hu: {headword: Csupasz, definition: Egy mondat.}
en: {headword: Bare, definition: One sentence.}
""",
}
EVIL = "Evil</script><script>alert(1)</script><!--"
EXTRA["entries/evil.yaml"] = f"""\
kind: entry
slug: evil
category: methods
level: basic
trend: emerging
status: 2026-11
hu: {{headword: "{EVIL}", definition: Egy mondat., aliases: ["a</SCRIPT >b"]}}
en: {{headword: "{EVIL}", definition: One sentence., aliases: ["a</SCRIPT >b"]}}
"""
# Names of each language: one told from another's only by case and spacing, a blank alias, an entry whose
# headwords are one name and nothing else, and an entry written in Hungarian alone (English pages fall back).
EXTRA["entries/npu.yaml"] = """\
kind: entry
slug: npu
category: methods
level: basic
trend: emerging
status: 2026-11
english_term: Neural Processing Unit
hu: {headword: neurális motor, definition: Egy mondat., aliases: [npu, Neural  Engine, MI-motor]}
en: {headword: Neural engine, definition: One sentence., aliases: [NPU, "  "]}
"""
EXTRA["entries/transformer.yaml"] = """\
kind: entry
slug: transformer
category: methods
level: basic
trend: emerging
status: 2026-11
hu: {headword: Transformer, definition: Egy mondat.}
en: {headword: transformer, definition: One sentence.}
"""
EXTRA["entries/hu-only.yaml"] = """\
kind: entry
slug: hu-only
category: methods
level: basic
trend: emerging
status: 2026-11
hu: {headword: Kizárólag magyar, definition: Egy mondat., aliases: [Magyar név]}
"""
DIGRAPH_WORDS = ["ab", "áb", "az", "áz", "comb", "cukor", "csak", "dzsem", "egér", "éger", "gyár", "lyuk",
                 "Menyhért", "mennybolt", "nyár", "ó", "ön", "sző", "tz", "tty", "ügy", "zsák"]
EXTRA["entries/digits.yaml"] = """\
kind: entry
slug: printing-3d
category: methods
level: basic
trend: emerging
status: 2026-11
hu: {headword: 3D-nyomtatás, definition: Egy mondat.}
en: {headword: 3D printing, definition: One sentence.}
"""
EXTRA["entries/list-first.yaml"] = """\
kind: entry
slug: list-first
category: methods
level: basic
trend: emerging
status: 2026-11
hu:
  headword: Xilofon
  definition: Egy mondat.
  plain_terms: "- egy\\n- kettő\\n\\nUtána egy bekezdés."
  analogy: Olyan, mint egy hangszer.
en:
  headword: Xylophone
  definition: One sentence.
  plain_terms: "- one\\n- two\\n\\nThen a paragraph."
  analogy: It is like an instrument.
"""
for i, word in enumerate(reversed(DIGRAPH_WORDS)):
    EXTRA[f"entries/w{i}.yaml"] = (f"kind: entry\nslug: w{i}\ncategory: methods\nlevel: basic\n"
                                   f"trend: emerging\nstatus: 2026-11\nhu: {{headword: {word}, definition: X.}}\n"
                                   f"en: {{headword: {word}, definition: X.}}\n")


@pytest.fixture(scope="module")
def extra_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample plus a bare entry, an entry with hostile text and words for every digraph, built once."""
    folder = tmp_path_factory.mktemp("glossary-extra")
    for relative, text in EXTRA.items():
        (folder / "content" / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / "content" / relative).write_text(text, encoding="utf-8")
    cli = Cli(f"sqlite:///{folder / 'extra.db'}", folder)
    cli("init", "--sample")
    cli("import", str(folder / "content"))
    cli("build", "--out", str(folder / "_site"))
    return folder / "_site"


def parse(path: Path):
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(path.read_bytes())


def words(element) -> str:
    return " ".join(" ".join(element.itertext()).split())


def section(document, ident: str):
    return next(s for s in document.iter("section") if s.get("id") == ident)


def headings(document) -> list[str]:
    return [words(h) for h in document.find(".//main").iter("h2")]


SEED_ORDER_EN = ["In plain terms", "How it works", "An everyday example", "Who is affected", "A common misconception",
                 "Limits and risks", "Similar, but not the same", "Related concepts", "A brief history",
                 "Where things stand", "Also known as", "Sources", "In the news"]
SEED_ORDER_HU = ["Egyszerűen", "Hogyan működik?", "Egy hétköznapi példa", "Kiket érint?", "Gyakori tévhit",
                 "Korlátok és kockázatok", "Hasonló, de nem ugyanaz", "Kapcsolódó fogalmak", "Rövid történet",
                 "Hol tartunk most?", "Más néven", "Források", "A hírekben"]


@pytest.mark.parametrize("lang, order", [("en", SEED_ORDER_EN), ("hu", SEED_ORDER_HU)])
def test_the_entry_page_shows_every_section_of_the_seed_in_order(site, lang, order):
    document = parse(site / lang / "glossary" / "trainium" / "index.html")
    assert headings(document) == order
    main = document.find(".//main")
    assert words(main.find(".//h1")) == "Trainium"
    text = words(main)
    for earlier, later in zip(order, order[1:]):
        assert text.index(earlier) < text.index(later)


def test_the_english_term_is_not_said_again_under_a_headword_that_is_it(site):
    """The English page of "AI chip" said "in English: AI chip" under its heading, as every entry whose
    English headword is its English term did; the Hungarian page ("MI-chip") needs it."""
    lines = {}
    for lang, slug in (("en", "ai-chip"), ("en", "model-training"), ("hu", "ai-chip"), ("en", "trainium")):
        main = parse(site / lang / "glossary" / slug / "index.html").find(".//main")
        lines[lang, slug] = [words(p) for p in main.iter("p") if p.get("class") == "english-term"]
    assert lines == {("en", "ai-chip"): [], ("en", "model-training"): [], ("hu", "ai-chip"): ["angolul: AI chip"],
                     ("en", "trainium"): ["in English: AWS Trainium"]}


def test_the_english_page_matches_the_seed_content(site):
    document = parse(site / "en" / "glossary" / "trainium" / "index.html")
    text = words(document.find(".//main"))
    assert "Glossary › Infrastructure" in text
    assert "in English: AWS Trainium" in text
    assert "Level: advanced" in text and "Trend: spreading" in text
    assert "Trainium is Amazon's own custom-designed chip" in text
    assert "It is like a large bakery chain" in words(section(document, "plain-terms"))
    steps = section(document, "how-it-works").findall(".//ol/li")
    assert len(steps) == 5 and words(steps[0]).startswith("The chip is designed by engineers at Annapurna Labs")
    affected = section(document, "affected")
    assert [words(dt) for dt in affected.iter("dt")] == [
        "developer", "entrepreneur, executive", "bank customer, investor", "everyone"]
    links = {words(a): a.get("href") for a in affected.iter("a")}
    assert links == {"→ Code": "/en/archive/section/code/", "→ Money": "/en/archive/section/money/"}
    misconception = section(document, "misconception")
    assert [words(dt) for dt in misconception.iter("dt")] == ["Myth", "In reality"]
    assert "Status: 2026 November" in words(section(document, "current-state"))
    # The headword first, then the aliases, then the Hungarian names not given already, as the seed lists them.
    assert words(section(document, "aliases")) == ("Also known as Trainium · AWS Trainium · Amazon Trainium · "
                                                   "Trainium chip · Amazon AI chip · Trainium-chip · Amazon MI-chip")
    sources = section(document, "sources").findall(".//ol/li")
    assert len(sources) == 6 and sources[0].get("id") == "source-1"
    assert sources[0].find("a").get("href") == "https://aws.amazon.com/machine-learning/trainium/"
    assert "Tranium" not in words(document)  # a match-only form, never shown to readers
    provenance = next(p for p in document.iter("p") if p.get("class") == "provenance")
    assert words(provenance) == ("This entry was machine-edited and has undergone machine expert review; the "
                                 "“In the news” section updates automatically from the newsletter's stories.")


def _names(path: Path) -> tuple[list[tuple[str, str | None]], str | None] | None:
    """*Also known as* of a page: (each name, the language it is marked with), and its paragraph's language;
    None without the section."""
    found = [s for s in parse(path).iter("section") if s.get("id") == "aliases"]
    if not found:
        return None
    [paragraph] = found[0].findall("p")
    names = [(words(span), span.get("lang")) for span in paragraph.findall("span")]
    marked = {name for name, _ in names}
    own = [(name, None) for name in words(paragraph).split(" · ") if name not in marked]
    assert words(paragraph).split(" · ") == [name for name, _ in own + names]  # marked ones after the page's own
    return own + names, paragraph.get("lang")


@pytest.mark.parametrize("lang, names", [
    ("en", [("Trainium", None), ("AWS Trainium", None), ("Amazon Trainium", None), ("Trainium chip", None),
            ("Amazon AI chip", None), ("Trainium-chip", "hu"), ("Amazon MI-chip", "hu")]),
    ("hu", [("Trainium", None), ("AWS Trainium", None), ("Amazon Trainium", None), ("Trainium-chip", None),
            ("Amazon MI-chip", None), ("Trainium chip", "en"), ("Amazon AI chip", "en")]),
])
def test_also_known_as_lists_the_other_language_s_names_after_the_page_s_marked_with_their_language(
        site, lang, names):
    """The seed's English page ends its list with the Hungarian alias "Amazon MI-chip", after the English
    names; ours listed the page language's alone. A screen reader reads each in its own language."""
    assert _names(site / lang / "glossary" / "trainium" / "index.html") == (names, None)


@pytest.mark.parametrize("lang, slug, names", [
    # A name told from one before it only by case or spacing is shown once, as first written; a blank one never.
    ("en", "npu", [("Neural engine", None), ("NPU", None), ("neurális motor", "hu"), ("MI-motor", "hu")]),
    ("hu", "npu", [("neurális motor", None), ("npu", None), ("Neural Engine", None), ("MI-motor", None)]),
    # The other language's headword is another name where it differs.
    ("hu", "bare-entry", [("Csupasz", None), ("Bare", "en")]),
    # The page's text a fallback from Hungarian: every name is marked Hungarian, the paragraph with nothing.
    ("en", "hu-only", [("Kizárólag magyar", "hu"), ("Magyar név", "hu")]),
])
def test_names_a_reader_cannot_tell_apart_are_listed_once(extra_site, lang, slug, names):
    assert _names(extra_site / lang / "glossary" / slug / "index.html") == (names, None)


@pytest.mark.parametrize("lang", ["hu", "en"])
def test_an_entry_with_no_name_beyond_its_headword_has_no_also_known_as(extra_site, lang):
    # One headword in both languages ("transformer" is "Transformer" to a reader), no aliases.
    for slug in ("transformer", "w0"):
        assert _names(extra_site / lang / "glossary" / slug / "index.html") is None, slug


def _plain_terms(path: Path) -> list[tuple[str, str]]:
    """(element, its first three words) of *In plain terms*, in page order, its heading left out."""
    return [(child.get("class") or child.tag, " ".join(words(child).split()[:3]))
            for child in section(parse(path), "plain-terms") if child.tag != "h2"]


@pytest.mark.parametrize("lang, shown", [
    ("en", ["Training large AI", "It is like", "You cannot buy", "Its significance goes"]),
    ("hu", ["A nagy MI-modellek", "Olyan ez, mint", "A Trainiumot nem", "A jelentősége túlmutat"]),
])
def test_the_analogy_follows_the_first_paragraph_of_in_plain_terms(site, lang, shown):
    """As on the seed page: the explanation's first paragraph, the analogy, then the rest of it (the analogy
    closed the section before, after the paragraphs it is there to make easier)."""
    assert _plain_terms(site / lang / "glossary" / "trainium" / "index.html") == \
        list(zip(["p", "analogy", "p", "p"], shown))


def test_a_text_opening_with_no_paragraph_is_kept_whole_before_the_analogy(extra_site):
    shown = _plain_terms(extra_site / "en" / "glossary" / "list-first" / "index.html")
    assert shown == [("ul", "one two"), ("p", "Then a paragraph."), ("analogy", "It is like")]


def test_the_hungarian_twin_is_in_hungarian(site):
    document = parse(site / "hu" / "glossary" / "trainium" / "index.html")
    text = words(document.find(".//main"))
    assert "Fogalomtár › Infrastruktúra" in text
    assert "Szint: haladó" in text and "Trend: terjedő" in text
    assert "Állapot: 2026. november" in words(section(document, "current-state"))
    english = next(span for span in document.iter("span") if span.get("lang") == "en")
    assert words(english) == "AWS Trainium"
    links = {words(a): a.get("href") for a in section(document, "affected").iter("a")}
    assert links == {"→ Kód": "/hu/archive/section/code/", "→ Pénz": "/hu/archive/section/money/"}
    provenance = next(p for p in document.iter("p") if p.get("class") == "provenance")
    assert words(provenance).startswith("Ezt a szócikket gép szerkesztette, és gépi szakértői ellenőrzésen esett át")
    breadcrumb = next(n for n in document.iter("nav") if n.get("class") == "breadcrumb")
    assert [a.get("href") for a in breadcrumb.iter("a")] == ["/hu/glossary/", "/hu/glossary/category/infrastructure/"]


def test_provenance_is_also_machine_readable(site):
    document = parse(site / "en" / "glossary" / "trainium" / "index.html")
    meta = {m.get("name"): m.get("content") for m in document.iter("meta") if m.get("name", "").startswith("provenance:")}
    assert meta == {"provenance:method": "machine-edited", "provenance:review": "machine-expert-review",
                    "provenance:written": "2026-11-03", "provenance:reviewed": "2026-11-05"}


def test_related_concepts_from_both_sides_and_similar_notes(site):
    document = parse(site / "en" / "glossary" / "trainium2" / "index.html")
    related = section(document, "related")
    groups = {p.get("class").split()[1]: [words(a) for a in p.iter("a")] for p in related.iter("p")}
    assert groups["broader"] == ["Trainium"]  # stated only in trainium.yaml, as narrower
    trainium = parse(site / "en" / "glossary" / "trainium" / "index.html")
    similar = section(trainium, "similar")
    assert [words(dt) for dt in similar.iter("dt")] == ["GPU", "AWS Inferentia"]
    assert words(similar.find(".//dd")).startswith("A GPU is a general-purpose parallel processor")


def test_in_the_news_is_newest_first_with_issue_number_and_date(site):
    document = parse(site / "en" / "glossary" / "trainium" / "index.html")
    items = section(document, "news").findall(".//li")
    numbers = [int(words(li).split(" · Issue ")[1].split(" ")[0]) for li in items]
    assert numbers == sorted(numbers, reverse=True) and numbers[0] == 13 and numbers[-1] == 10
    first = items[0]
    assert first.find("time").get("datetime") == "2026-11-09"
    assert words(first).endswith("Issue 13 · November 9, 2026")
    assert first.find("a").get("href").startswith("/en/issues/13/#story-")


def test_empty_sections_are_left_out(extra_site):
    document = parse(extra_site / "en" / "glossary" / "bare-entry" / "index.html")
    assert headings(document) == ["Also known as"]  # its Hungarian headword, the one other name it has
    assert not any(p.get("class") == "provenance" for p in document.iter("p"))
    # The status month is the entry's, not its "Where things stand" section's: it stays without one.
    [status] = [p for p in document.iter("p") if p.get("class") == "status"]
    assert words(status) == "Status: 2026 November" and status.find("time").get("datetime") == "2026-11"


def _jsonld(document) -> dict:
    [script] = [s for s in document.iter("script") if s.get("type") == "application/ld+json"]
    return json.loads(script.text)


def test_entry_pages_carry_a_defined_term(site):
    for lang in ("hu", "en"):
        term = _jsonld(parse(site / lang / "glossary" / "trainium" / "index.html"))
        assert term["@type"] == "DefinedTerm"
        assert term["name"] == "Trainium"
        assert "AWS Trainium" in term["alternateName"]
        assert term["description"].startswith("Trainium is Amazon" if lang == "en" else "A Trainium az Amazon")
        assert term["inLanguage"] == lang
        assert term["url"] == f"{BASE}{lang}/glossary/trainium/"
        assert term["dateModified"] == "2026-11-01"
        assert term["inDefinedTermSet"]["@type"] == "DefinedTermSet"
        assert term["inDefinedTermSet"]["url"] == f"{BASE}{lang}/glossary/"


def test_the_index_carries_a_defined_term_set(site):
    term_set = _jsonld(parse(site / "en" / "glossary" / "index.html"))
    assert term_set["@type"] == "DefinedTermSet"
    assert len(term_set["hasDefinedTerm"]) == 13
    assert {"@type": "DefinedTerm", "@id": f"{BASE}en/glossary/trainium/", "name": "Trainium",
            "url": f"{BASE}en/glossary/trainium/"} in term_set["hasDefinedTerm"]


def test_json_ld_cannot_be_closed_by_content(extra_site):
    raw = (extra_site / "en" / "glossary" / "evil" / "index.html").read_text(encoding="utf-8")
    assert "<script>alert" not in raw
    document = parse(extra_site / "en" / "glossary" / "evil" / "index.html")
    assert [s.get("type") for s in document.iter("script")] == ["application/ld+json"]
    term = _jsonld(document)
    assert term["name"] == EVIL and term["alternateName"] == ["a</SCRIPT >b"]


@pytest.mark.parametrize("lang, other, names", [
    ("en", "hu", ["AWS Trainium", "Amazon Trainium", "Trainium chip", "Amazon AI chip", "Trainium-chip",
                  "Amazon MI-chip"]),
    ("hu", "en", ["AWS Trainium", "Amazon Trainium", "Trainium-chip", "Amazon MI-chip", "Trainium chip",
                  "Amazon AI chip"]),
])
def test_a_defined_term_s_alternate_names_are_every_language_s_each_tagged_with_its_own(site, lang, other, names):
    term = _jsonld(parse(site / lang / "glossary" / "trainium" / "index.html"))
    assert term["alternateName"] == [*names[:4], *({"@value": name, "@language": other} for name in names[4:])]


@pytest.mark.parametrize("lang, alternates", [
    ("hu", ["npu", "Neural  Engine", "MI-motor", {"@value": "Neural Processing Unit", "@language": "en"}]),
    ("en", ["NPU", {"@value": "neurális motor", "@language": "hu"}, {"@value": "MI-motor", "@language": "hu"},
            "Neural Processing Unit"]),
])
def test_the_english_term_is_an_english_alternate_name_after_the_names_the_page_lists(extra_site, lang, alternates):
    # Each name once (a reader's way), none blank; the English term, which no name gives, English on either page.
    term = _jsonld(parse(extra_site / lang / "glossary" / "npu" / "index.html"))
    assert term["alternateName"] == alternates


HU_SAMPLE_ORDER = ["adatközpont", "AWS Inferentia", "felhőszolgáltatás", "Google TPU", "GPU (grafikus processzor)",
                   "MI-chip", "MI-gyorsító", "modelltanítás", "Rainier-projekt", "számítási kapacitás", "Trainium",
                   "Trainium2", "Trainium3"]


def _index(path: Path) -> tuple[list[tuple[str, bool]], dict[str, list[str]]]:
    """(letter, active) of the letter bar, and {heading: headwords} of the groups, in page order."""
    document = parse(path)
    bar = next(n for n in document.iter("nav") if n.get("class") == "letters")
    letters = [(words(li), li.find("a") is not None) for li in bar.iter("li")]
    groups = {words(s.find("h2")): [words(dt) for dt in s.iter("dt")]
              for s in document.iter("section") if s.get("class") == "letter"}
    return letters, groups


def test_the_hungarian_index_is_in_hungarian_order_with_every_letter(site):
    letters, groups = _index(site / "hu" / "glossary" / "index.html")
    assert [letter for letter, _ in letters] == list(HU_ALPHABET_HEADINGS)
    assert [letter for letter, active in letters if active] == ["A", "F", "G", "M", "R", "Sz", "T"]
    assert list(groups) == ["A", "F", "G", "M", "R", "Sz", "T"]
    assert [word for group in groups.values() for word in group] == HU_SAMPLE_ORDER


def test_the_english_index_is_in_english_order(site):
    letters, groups = _index(site / "en" / "glossary" / "index.html")
    assert [letter for letter, _ in letters] == list("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    headwords = [word for group in groups.values() for word in group]
    assert headwords == sorted(headwords, key=str.casefold)
    assert list(groups)[0] == "A" and groups["T"] == ["Trainium", "Trainium2", "Trainium3"]


def test_a_built_index_follows_hungarian_collation_on_every_digraph(extra_site):
    _, groups = _index(extra_site / "hu" / "glossary" / "index.html")
    built = [word for group in groups.values() for word in group if word in DIGRAPH_WORDS]
    assert built == DIGRAPH_WORDS
    assert groups["Cs"] == ["csak", "Csupasz"] and groups["Dzs"] == ["dzsem"] and groups["Ny"] == ["nyár"]
    assert groups["O"][-1] == "ó" and groups["Ö"][0] == "ön" and groups["Ty"] == ["tty"]
    assert groups["M"][:2] == ["Menyhért", "mennybolt"]


def test_index_groups_keep_every_letter_and_put_digits_first():
    groups = index_letters([{"headword": word} for word in ("zsák", "3D-nyomtatás", "cukor", "csak", "Ábra")], "hu")
    assert [g["letter"] for g in groups] == ["#", *HU_ALPHABET_HEADINGS]
    filled = {g["letter"]: [item["headword"] for item in g["items"]] for g in groups if g["items"]}
    assert filled == {"#": ["3D-nyomtatás"], "A": ["Ábra"], "C": ["cukor"], "Cs": ["csak"], "Zs": ["zsák"]}
    assert [g["anchor"] for g in groups][:3] == ["letter-other", "letter-A", "letter-B"]


def test_letters_have_ascii_url_parts_and_groups_only_where_headwords_start():
    assert [letter_slug(letter) for letter in ("A", "Cs", "Dzs", "Ö", "Ü", "Zs", "#")] == \
        ["a", "cs", "dzs", "oe", "ue", "zs", "other"]
    items = [(word, i) for i, word in enumerate(("zsák", "3D-nyomtatás", "cukor", "csak", "Ábra", "abroncs", "ő"))]
    assert letter_groups(items, "hu") == {"#": [1], "A": [4, 5], "C": [2], "Cs": [3], "Ö": [6], "Zs": [0]}
    assert letter_groups(items, "en") == {"#": [1], "A": [4, 5], "C": [3, 2], "O": [6], "Z": [0]}


def _letter_page(path: Path) -> tuple[list[tuple[str, str | None, bool]], str, list[str]]:
    """The letter bar as (letter, link, current), the heading, and the headwords listed, in page order."""
    document = parse(path)
    bar = next(n for n in document.iter("nav") if n.get("class") == "letters")
    letters = [(words(li), li.find("a").get("href") if li.find("a") is not None else None,
                any(e.get("aria-current") == "page" for e in li.iter())) for li in bar.iter("li")]
    main = document.find(".//main")
    return letters, words(main.find(".//h1")), [words(dt) for dt in main.iter("dt")]


@pytest.mark.parametrize("lang", ["hu", "en"])
def test_each_letter_of_the_index_has_a_page_of_its_entries(site, lang):
    """The index's letter bar leads to a page per letter with entries; each lists that letter's group of the
    index in the same order, and its bar marks its own letter and links the others that have entries."""
    index_bar, groups = _index(site / lang / "glossary" / "index.html")
    folder = site / lang / "glossary" / "letter"
    assert sorted(p.name for p in folder.iterdir()) == sorted(letter_slug(letter) for letter in groups)
    index_links = {words(a): a.get("href") for nav in parse(site / lang / "glossary" / "index.html").iter("nav")
                   if nav.get("class") == "letters" for a in nav.iter("a")}
    assert index_links == {letter: f"/{lang}/glossary/letter/{letter_slug(letter)}/" for letter in groups}
    for letter, headwords in groups.items():
        bar, heading, listed = _letter_page(folder / letter_slug(letter) / "index.html")
        # The heading says whose letter it is, for a reader who lands on the page from a search or a link.
        assert heading == {"hu": f"Fogalomtár: {letter}", "en": f"Glossary: {letter}"}[lang] and listed == headwords
        assert [name for name, _, _ in bar] == [name for name, _ in index_bar]
        assert [name for name, _, current in bar if current] == [letter]
        assert {name: href for name, href, _ in bar if href} == {k: v for k, v in index_links.items() if k != letter}


def test_a_letter_page_s_twin_is_the_same_letter_or_the_other_language_s_index(site):
    # "A" has entries in both languages; Hungarian "Sz" is no English letter, and no English headword
    # starts with "F".
    assert language_switch(parse(site / "hu/glossary/letter/a/index.html")) == {"en": "/en/glossary/letter/a/"}
    assert language_switch(parse(site / "hu/glossary/letter/sz/index.html")) == {"en": "/en/glossary/"}
    assert language_switch(parse(site / "hu/glossary/letter/f/index.html")) == {"en": "/en/glossary/"}
    assert language_switch(parse(site / "en/glossary/letter/c/index.html")) == {"hu": "/hu/glossary/"}


def test_hungarian_letters_and_digits_have_pages_under_ascii_paths(extra_site):
    letters = extra_site / "hu" / "glossary" / "letter"
    for slug, heading, first in (("oe", "Ö", "ön"), ("ue", "Ü", "ügy"), ("dzs", "Dzs", "dzsem"), ("cs", "Cs", "csak"),
                                 ("other", "számok és jelek", "3D-nyomtatás")):
        _, shown, listed = _letter_page(letters / slug / "index.html")
        assert shown == f"Fogalomtár: {heading}" and listed[0] == first, slug
    bar, _, _ = _letter_page(letters / "other" / "index.html")
    assert bar[0] == ("#", None, True) and bar[1] == ("A", "/hu/glossary/letter/a/", False)
    _, heading, listed = _letter_page(extra_site / "en" / "glossary" / "letter" / "other" / "index.html")
    assert heading == "Glossary: digits and symbols" and listed == ["3D printing"]


def test_every_entry_is_listed_under_its_category_and_its_level(site):
    for lang in ("hu", "en"):
        listed_by_category, listed_by_level = [], []
        for folder, listed in (("category", listed_by_category), ("level", listed_by_level)):
            for page in sorted((site / lang / "glossary" / folder).glob("*/index.html")):
                document = parse(page)
                listed += [a.get("href") for a in document.find(".//main").iter("a")
                           if a.get("href").count("/") == 4 and "/glossary/" in a.get("href")]
        entries = sorted(f"/{lang}/glossary/{p.parent.name}/" for p in (site / lang / "glossary").glob("*/index.html")
                         if p.parent.name not in ("category", "level"))
        assert sorted(listed_by_category) == entries
        assert sorted(listed_by_level) == entries
    document = parse(site / "hu" / "glossary" / "level" / "advanced" / "index.html")
    assert words(document.find(".//h1")) == "Szint: haladó"
    assert [words(dt) for dt in document.iter("dt")] == ["AWS Inferentia", "Trainium", "Trainium2", "Trainium3"]


@pytest.mark.parametrize("lang", ["en", "hu"])
def test_each_source_of_an_entry_links_back_to_its_citations(site, lang):
    """As a reference page's: a reader who followed a citation mark to the source list gets back to where they
    were reading (the list had no link back, so a citation in *How it works* left them at the page's end)."""
    pages = sorted((site / lang / "glossary").glob("*/index.html"))
    cited = 0
    for path in pages:
        main = parse(path).find(".//main")
        if main.find("article") is None or main.find("article").get("class") != "entry":
            continue
        citations = [a for sup in main.iter("sup") if sup.get("class") == "cite" for a in sup.iter("a")]
        for number, source in enumerate(main.findall(".//ol[@class='sources']/li"), start=1):
            backrefs = [a.get("href") for a in source.iter("a") if a.get("class") == "backref"]
            # Every mark of the source, in the order of the page, and nothing else.
            assert backrefs == [f"#{a.get('id')}" for a in citations if a.get("href") == f"#source-{number}"], \
                (path, number)
            cited += bool(backrefs)
    assert cited > 10
    sources = parse(site / lang / "glossary" / "trainium" / "index.html").findall(".//ol[@class='sources']/li")
    labels = [[a.get("aria-label") for a in source.iter("a") if a.get("class") == "backref"] for source in sources]
    assert labels[0] == (["Back to citation 1"] if lang == "en" else ["Vissza az 1. hivatkozáshoz"])
    assert [len(shown) for shown in labels] == [1, 1, 2, 3, 2, 3]


@pytest.mark.parametrize("lang, shown", [("hu", "2023. november 15."), ("en", "November 15, 2023")])
def test_an_entry_s_source_dates_are_written_as_its_language_writes_a_date(site, lang, shown):
    """As a reference page's: the source list gives a date as the page's language writes one, and keeps the ISO
    date for machines in <time datetime>; a source without a date shows none."""
    sources = parse(site / f"{lang}/glossary/ai-accelerator/index.html").findall(".//ol[@class='sources']/li")
    dated = [(time.get("datetime"), time.text) for source in sources for time in source.iter("time")]
    assert dated == [("2023-11-15", shown)]
    assert "".join(sources[-1].itertext()).split(" ↩")[0].endswith(f"({shown})")  # then its links back
    assert len(sources) > 1 and not list(sources[0].iter("time"))
