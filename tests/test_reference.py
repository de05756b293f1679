"""Reference pages: both layers per section, every citation resolves and links back, spec-table checks."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import html5lib
import pytest

from newsroom.build.model import Content, Record
from newsroom.checks import check_content
from newsroom.content.reader import read_files
from newsroom.settings import Settings

SAMPLE_REFERENCE = Path(__file__).resolve().parent.parent / "newsroom" / "sample" / "reference" / "trainium.yaml"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The sample built once for this module (SQLite; the PostgreSQL leg is covered by the store tests)."""
    from tests.conftest import Cli

    folder = tmp_path_factory.mktemp("reference")
    cli = Cli(f"sqlite:///{folder / 'sample.db'}", folder)
    cli("init", "--sample")
    cli("build", "--out", str(folder / "_site"))
    return folder / "_site"


def _page(site: Path, lang: str):
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    return parser.parse((site / lang / "reference" / "trainium" / "index.html").read_bytes())


def _text(element) -> str:
    return " ".join(" ".join(element.itertext()).split())


@pytest.mark.parametrize("lang, how_to, simple, deep", [
    ("en", "How to read this page.", "Simple", "Deep dive"),
    ("hu", "Hogyan olvasd ezt az oldalt?", "Egyszerűen", "Mélyebben"),
])
def test_every_section_has_a_simple_part_and_a_folded_deep_dive(site, lang, how_to, simple, deep):
    page = _page(site, lang)
    main = page.find(".//main")
    assert _text(main.find(".//p[@class='how-to-read']")).startswith(how_to)
    sections = main.findall(".//section[@class='reference-section']")
    assert len(sections) == 10
    for number, section in enumerate(sections, start=1):
        assert section.get("id") == f"section-{number}"
        assert _text(section.find("h2")).startswith(f"{number}.")
        layer = section.find("div[@class='simple']")
        assert layer is not None and _text(layer.find("h3")).startswith(simple)
        details = section.find("details[@class='deep']")
        assert details is not None, f"section {number} has no Deep dive"
        assert details.get("open") is None, "the Deep dive starts folded"
        assert _text(details.find("summary")).startswith(deep)


@pytest.mark.parametrize("lang", ["en", "hu"])
def test_every_citation_resolves_and_every_source_links_back(site, lang):
    page = _page(site, lang)
    ids = {element.get("id") for element in page.iter() if element.get("id")}
    citations = [a for sup in page.iter("sup") if sup.get("class") == "cite" for a in sup.iter("a")]
    assert len(citations) > 20
    for citation in citations:
        href = citation.get("href")
        assert href.startswith("#source-") and href[1:] in ids, href
        assert href == f"#source-{citation.text}"
        assert citation.get("id") in ids
    citation_ids = {a.get("id") for a in citations}
    assert len(citation_ids) == len(citations), "citation ids are unique"
    sources = page.findall(".//ol[@class='sources']/li")
    assert len(sources) == 7
    for number, source in enumerate(sources, start=1):
        backrefs = [a.get("href")[1:] for a in source.iter("a") if a.get("class") == "backref"]
        assert backrefs, f"source {number} links back to no citation"
        assert all(ref in citation_ids for ref in backrefs)
        assert {ref for ref in backrefs} == {a.get("id") for a in citations if a.text == str(number)}


def test_spec_table_says_not_published_in_words(site):
    page = _page(site, "en")
    cells = [_text(td) for td in page.iter("td")]
    assert "Not published by AWS" in cells
    assert any(cell.startswith("32 GiB HBM per chip") and cell.endswith("4") for cell in cells)
    hu = [_text(td) for td in _page(site, "hu").iter("td")]
    assert "Az AWS nem tette közzé" in hu


def test_links_to_other_pages_on_this_site_resolve(site):
    page = _page(site, "en")
    internal = [a.get("href") for a in page.find(".//main").iter("a") if (a.get("href") or "").startswith("/en/")]
    assert "/en/glossary/trainium2/" in internal
    for href in internal:
        assert (site / href.strip("/").split("#")[0] / "index.html").is_file(), href


# -- check, through the domain API --------------------------------------------------------

def _reference(tmp_path: Path, edit=lambda text: text) -> Record:
    path = tmp_path / "trainium.yaml"
    path.write_text(edit(SAMPLE_REFERENCE.read_text(encoding="utf-8")), encoding="utf-8")
    loaded = read_files([path], ("hu", "en"))[0]
    return Record(loaded.kind, loaded.key, loaded.record, loaded.content_hash)


def _check(record: Record) -> list[str]:
    content = Content(site={}, entries={}, pages={record.key: record}, issues={}, stories={})
    return [str(d) for d in check_content(content, Settings(), dt.date(2026, 11, 30))
            if "link to a missing entry" not in d.message]


def test_the_sample_reference_page_is_clean(tmp_path):
    assert _check(_reference(tmp_path)) == []


def test_a_citation_without_a_source_and_a_source_never_cited(tmp_path):
    record = _reference(tmp_path, lambda text: text.replace("2022. október 10-én váltak általánosan elérhetővé [2]",
                                                            "2022. október 10-én váltak általánosan elérhetővé [9]"))
    problems = _check(record)
    assert "reference:trainium: hu.sections[0].simple.text: citation [9] has no source (7 sources listed)" in problems
    record = _reference(tmp_path, lambda text: text.replace(" [3]", ""))
    problems = _check(record)
    assert "reference:trainium: sources[2]: warning: source 3 is never cited in the hu text" in problems
    assert "reference:trainium: sources[2]: warning: source 3 is never cited in the en text" in problems


def test_a_blank_spec_cell_is_reported(tmp_path):
    record = _reference(tmp_path)
    data = dict(record.data)
    en = dict(data["en"])
    sections = [dict(section) for section in en["sections"]]
    deep = dict(sections[3]["deep"])
    table = dict(deep["table"])
    table["rows"] = [list(row) for row in table["rows"]]
    table["rows"][1][1] = {"value": "  "}
    table["rows"][2][1] = ""
    deep["table"], sections[3] = table, {**sections[3], "deep": deep}
    en["sections"], data["en"] = sections, en
    problems = _check(Record(record.kind, record.key, data, record.content_hash))
    message = "blank cell: give a value with its source, or {not_published: …} saying the maker has not published it"
    assert f"reference:trainium: en.sections[3].deep.table.rows[1][1]: {message}" in problems
    assert f"reference:trainium: en.sections[3].deep.table.rows[2][1]: {message}" in problems


def test_a_blank_spec_cell_is_refused_at_import(cli, write_files):
    text = SAMPLE_REFERENCE.read_text(encoding="utf-8").replace("{value: 820 GB/s, source: 4}", '""')
    cli("init")
    result = cli("import", str(write_files({"reference/trainium.yaml": text})), expect=1)
    assert "required; expected text, {value: …, source: n} or {not_published: …}" in result.stderr


def test_a_reference_page_without_a_date_of_last_update_is_a_warning(tmp_path):
    record = _reference(tmp_path, lambda text: text.replace("updated: 2026-11-12\n", ""))
    assert _check(record) == ["reference:trainium: updated: warning: no date of its last update: give "
                              "`updated: YYYY-MM-DD` (the page shows it, and the sitemap and search engines "
                              "read it)"]
    record = _reference(tmp_path, lambda text: text.replace("updated: 2026-11-12", "updated: 2026-12-24"))
    assert _check(record) == ["reference:trainium: updated: warning: 2026-12-24 is in the future "
                              "(today is 2026-11-30)"]
