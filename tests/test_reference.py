"""Reference pages: both layers per section, every citation resolves and links back, spec-table checks."""

from __future__ import annotations

import copy
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
    sources = page.findall(".//ol[@class='sources']/li")
    # "The small numbers are sources: click one to open the original document" (the page says, as the seed).
    originals = {str(number): source.find("a").get("href") for number, source in enumerate(sources, start=1)}
    for citation in citations:
        assert citation.get("href") == originals[citation.text], citation.get("href")
        assert citation.get("rel") == "noopener noreferrer"
        assert citation.get("id") in ids
    citation_ids = {a.get("id") for a in citations}
    assert len(citation_ids) == len(citations), "citation ids are unique"
    assert len(sources) == 7
    for number, source in enumerate(sources, start=1):
        backrefs = [a.get("href")[1:] for a in source.iter("a") if a.get("class") == "backref"]
        assert backrefs, f"source {number} links back to no citation"
        assert all(ref in citation_ids for ref in backrefs)
        # In the order of the page: a table's citations before those of the text after it.
        assert backrefs == [a.get("id") for a in citations if a.text == str(number)], number


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


def test_a_citation_written_in_a_table_s_text_is_a_warning(tmp_path):
    """A table's text is shown as it is: `820 GB/s [4]` showed readers "[4]" and linked nothing."""
    record = _reference(tmp_path, lambda text: text.replace("{value: 820 GB/s, source: 4}", '"820 GB/s [4]"'))
    problems = _check(record)
    assert ("reference:trainium: hu.sections[3].deep.table.rows[2][1]: warning: a spec table's text shows [4] as it "
            "is, not as a link to the source: give the cell its source as {value: …, source: 4}") in problems


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


# -- a spec table's rows: one cell per column ---------------------------------------------

ROW_CELLS = "expected 2 cells, one per column, got {got}: "
SHORT_ROW = ROW_CELLS + "a figure the maker has not published is {{not_published: …}}, never left out"
LONG_ROW = ROW_CELLS + "add a column for the others, or take them out"
EN_TABLE = "en.sections[3].deep.table"


def test_a_row_with_a_cell_too_few_or_too_many_is_reported(tmp_path):
    short = _reference(tmp_path, lambda text: text.replace(
        "- [Process node, {not_published: Not published by AWS}]", "- [Process node]"))
    assert f"reference:trainium: {EN_TABLE}.rows[4]: {SHORT_ROW.format(got=1)}" in _check(short)
    long = _reference(tmp_path, lambda text: text.replace(
        "- [Memory, {value: 32 GiB HBM per chip, source: 4}]",
        "- [Memory, {value: 32 GiB HBM per chip, source: 4}, per chip]"))
    assert f"reference:trainium: {EN_TABLE}.rows[1]: {LONG_ROW.format(got=3)}" in _check(long)
    wide = _reference(tmp_path, lambda text: text.replace(
        "columns: [Spec, Amazon Trainium (Trn1)]", "columns: [Spec, Amazon Trainium (Trn1), Trainium2]"))
    problems = _check(wide)
    for row in range(5):
        assert (f"reference:trainium: {EN_TABLE}.rows[{row}]: expected 3 cells, one per column, got 2: a figure "
                "the maker has not published is {not_published: …}, never left out") in problems


@pytest.mark.sqlite_only("what a file may hold does not depend on the database")
def test_a_row_without_a_cell_for_each_column_is_refused_by_import_edit_and_check(sample_cli, write_files,
                                                                                  tmp_path):
    text = SAMPLE_REFERENCE.read_text(encoding="utf-8")
    export = tmp_path / "before"
    sample_cli("export", str(export))
    for old, new, place in [
        ("- [Process node, {not_published: Not published by AWS}]", "- [Process node]",
         f"272: {EN_TABLE}.rows[4]: {SHORT_ROW.format(got=1)}"),
        ("- [Memory, {value: 32 GiB HBM per chip, source: 4}]", "- [Memory, {value: 32 GiB, source: 4}, per chip]",
         f"269: {EN_TABLE}.rows[1]: {LONG_ROW.format(got=3)}"),
    ]:
        folder = write_files({"reference/trainium.yaml": text.replace(old, new)})
        refused = sample_cli("import", str(folder), expect=1).stderr.splitlines()
        assert f"{folder / 'reference' / 'trainium.yaml'}:{place}" in refused
        assert refused[-1] == "1 error; nothing was changed"
    refused = sample_cli("edit", "reference:trainium", "--set", f"{EN_TABLE}.rows[4][1]=", expect=1).stderr
    assert f"reference:trainium: {EN_TABLE}.rows[4]: {SHORT_ROW.format(got=1)}" in refused.splitlines()
    after = tmp_path / "after"
    sample_cli("export", str(after))
    assert (after / "reference" / "trainium.yaml").read_bytes() == (export / "reference" / "trainium.yaml").read_bytes()

    sample_cli("import", "--no-check", str(write_files({"reference/trainium.yaml": text.replace(
        "- [Process node, {not_published: Not published by AWS}]", "- [Process node]")})))
    found = sample_cli("check", expect=1).stdout + sample_cli("check", expect=1).stderr
    assert f"reference:trainium: {EN_TABLE}.rows[4]: {SHORT_ROW.format(got=1)}" in found.splitlines()



# -- the two languages' structure ----------------------------------------------------------

SIMPLE_REQUIRED = "required: every section has a Simple part, with its text or a table"


def _changed(record: Record, change) -> Record:
    """`record` with `change` made to a copy of its data."""
    data = copy.deepcopy(dict(record.data))
    change(data)
    return Record(record.kind, record.key, data, record.content_hash)


def _deep(data, lang):
    return data[lang]["sections"][3]["deep"]


def _add_column(data):
    table = _deep(data, "en")["table"]
    table["columns"].append("Trainium2")
    for row in table["rows"]:
        row.append({"not_published": "No"})


STRUCTURE = {
    "a section more in en": (lambda data: data["en"]["sections"].append({"title": "Extra", "simple": {"text": "x"}}),
                             ["hu.sections[10]: missing translation (present in en)"]),
    "a section more in hu": (lambda data: data["hu"]["sections"].append({"title": "Több", "simple": {"text": "x"}}),
                             ["en.sections[10]: missing translation (present in hu)"]),
    "a table in hu only": (lambda data: _deep(data, "en").update(table=None, text="The figures [4]."), [
        "en.sections[3].deep.table: missing translation (present in hu)",
        "hu.sections[3].deep.text: missing translation (present in en)"]),
    "a Deep dive in hu only": (lambda data: data["en"]["sections"][0].pop("deep"),
                               ["en.sections[0].deep: missing translation (present in hu)"]),
    "a row more in en": (lambda data: _deep(data, "en")["table"]["rows"].append(["Power", {"not_published": "No"}]),
                         ["hu.sections[3].deep.table.rows[5]: missing translation (present in en)"]),
    "a column more in en": (_add_column, ["hu.sections[3].deep.table.columns[2]: missing translation (present in en)"]),
    "a section without a Simple part": (lambda data: data["en"]["sections"][1].pop("simple"),
                                        [f"en.sections[1].simple: {SIMPLE_REQUIRED}"]),
    "a Simple part of text after a table only": (
        lambda data: data["en"]["sections"][1].update(simple={"after": "x"}),
        [f"en.sections[1].simple: {SIMPLE_REQUIRED}", "en.sections[1].simple.text: missing translation (present in hu)",
         "hu.sections[1].simple.after: missing translation (present in en)"]),
}


@pytest.mark.parametrize("case", STRUCTURE)
def test_the_two_languages_have_the_same_sections_layers_and_tables(tmp_path, case):
    change, expected = STRUCTURE[case]
    problems = _check(_changed(_reference(tmp_path), change))
    found = [problem.removeprefix("reference:trainium: ") for problem in problems
             if "is never cited" not in problem]
    assert found == expected


def test_a_language_with_no_text_at_all_is_the_fallback_not_a_structure_error(tmp_path):
    record = _changed(_reference(tmp_path), lambda data: data.pop("en"))
    assert _check(record) == ["reference:trainium: en: warning: missing translation (shown in en in another "
                              "language, marked)"]


@pytest.mark.sqlite_only("what a file may hold does not depend on the database")
def test_a_structure_the_languages_do_not_share_is_refused_at_import(sample_cli, write_files):
    text = SAMPLE_REFERENCE.read_text(encoding="utf-8")
    en_deep = text[text.index("      deep:\n        text: |\n          Amazon’s own claim"):
                   text.index("    - title: Launch and history")]
    en_simple = text[text.index("      simple:\n        text: |\n          Before Trainium"):
                     text.index("      deep:\n        text: |\n          Trainium was designed")]
    edited = text.replace(en_deep, "").replace(en_simple, "      simple: {}\n")
    folder = write_files({"reference/trainium.yaml": edited})
    refused = sample_cli("import", str(folder), expect=1).stderr.splitlines()
    path = folder / "reference" / "trainium.yaml"
    assert refused[:2] == [f"{path}:214: en.sections[0].deep: missing translation (present in hu)",
                           f"{path}:222: en.sections[1].simple: {SIMPLE_REQUIRED}"]
    assert refused[-1] == "2 errors; nothing was changed"
