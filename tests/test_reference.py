"""Reference pages: both layers per section, every citation resolves and links back, spec-table checks."""

from __future__ import annotations

import copy
import datetime as dt
import json
from pathlib import Path
from xml.etree import ElementTree as ET

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


@pytest.mark.parametrize("lang, shown", [("hu", ["2020. december 1.", "2022. október 10."]),
                                         ("en", ["December 1, 2020", "October 10, 2022"])])
def test_source_dates_are_written_as_the_page_s_language_writes_a_date(site, lang, shown):
    """The source list gives each date as the page's language writes one (as "Last updated" does), and
    keeps the ISO date for machines in <time datetime>."""
    sources = _page(site, lang).findall(".//ol[@class='sources']/li")
    dated = [(time.get("datetime"), time.text) for source in sources for time in source.iter("time")]
    assert dated == [("2020-12-01", shown[0]), ("2022-10-10", shown[1])]
    assert f"({shown[0]})" in "".join(sources[0].itertext())
    assert not any("2020-12-01" in "".join(source.itertext()) for source in sources)


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
    """As `check` names it (not as a required field with the shapes of a cell); in both languages here."""
    text = SAMPLE_REFERENCE.read_text(encoding="utf-8").replace("{value: 820 GB/s, source: 4}", '""')
    cli("init")
    folder = write_files({"reference/trainium.yaml": text})
    path = folder / "reference" / "trainium.yaml"
    assert cli("import", str(folder), expect=1).stderr.splitlines() == [
        f"{path}:100: hu.sections[3].deep.table.rows[2][1]: {BLANK_CELL}",
        f"{path}:278: en.sections[3].deep.table.rows[2][1]: {BLANK_CELL}",
        "2 errors; nothing was changed"]


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
         f"280: {EN_TABLE}.rows[4]: {SHORT_ROW.format(got=1)}"),
        ("- [Memory, {value: 32 GiB HBM per chip, source: 4}]", "- [Memory, {value: 32 GiB, source: 4}, per chip]",
         f"277: {EN_TABLE}.rows[1]: {LONG_ROW.format(got=3)}"),
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


@pytest.mark.sqlite_only("what a file may hold does not depend on the database")
def test_text_after_no_table_is_refused_by_import_and_edit(sample_cli, write_files):
    """The Simple layer would start with text meant to follow a table that is not there."""
    text = SAMPLE_REFERENCE.read_text(encoding="utf-8")
    en_simple = "      simple:\n        text: |\n          Before Trainium"
    folder = write_files({"reference/trainium.yaml": text.replace(en_simple, en_simple.replace("text:", "after:"))})
    refused = sample_cli("import", str(folder), expect=1).stderr.splitlines()
    path = folder / "reference" / "trainium.yaml"
    assert refused[0] == f"{path}:240: en.sections[1].simple.after: {AFTER_WITHOUT_TABLE}"
    assert refused[-1] == "1 error; nothing was changed"
    refused = sample_cli("edit", "reference:trainium", "--set", "hu.sections[0].deep.after=Később.",
                         "--set", "en.sections[0].deep.after=Later.", expect=1).stderr.splitlines()
    assert refused[:2] == [f"reference:trainium: en.sections[0].deep.after: {AFTER_WITHOUT_TABLE}",
                           f"reference:trainium: hu.sections[0].deep.after: {AFTER_WITHOUT_TABLE}"]
    assert refused[-1] == "2 errors; nothing was changed"


# -- a row's label, and one message for one mistake ----------------------------------------

LABEL_CELL = ("a row's first cell is its label, plain text (shown as the row's heading): write the label as it is, "
              "and give a source, or {not_published: …}, in the figure's own cell")
BLANK_CELL = "blank cell: give a value with its source, or {not_published: …} saying the maker has not published it"
BLANK_LABEL = "blank label: a row's first cell names what the row gives (plain text, shown as the row's heading)"


def _row(lang: str, row: list, index: int = 0):
    def change(data):
        _deep(data, lang)["table"]["rows"][index] = row
    return change


ROWS = {
    # The label is the row's heading (<th scope="row">): a source or "not published" belongs to a figure.
    "a label with a source": ([{"value": "AI compute", "source": 5}, "3.4 PFLOPS"],
                              [f"{EN_TABLE}.rows[0][0]: {LABEL_CELL}"]),
    "a label citing a source not listed": ([{"value": "AI compute", "source": 9}, "3.4 PFLOPS"],
                                           [f"{EN_TABLE}.rows[0][0]: {LABEL_CELL}"]),
    "a label not published": ([{"not_published": "AI compute"}, "3.4 PFLOPS"],
                              [f"{EN_TABLE}.rows[0][0]: {LABEL_CELL}"]),
    "a label as a value without a source": ([{"value": "AI compute"}, "3.4 PFLOPS"], []),
    # A blank cell past the last column is to be taken out, not filled: the row's width says so.
    "an extra blank cell": (["AI compute", "3.4 PFLOPS", ""], [f"{EN_TABLE}.rows[0]: {LONG_ROW.format(got=3)}"]),
    "an extra empty cell": (["AI compute", "3.4 PFLOPS", {}], [f"{EN_TABLE}.rows[0]: {LONG_ROW.format(got=3)}"]),
    "a missing cell": (["AI compute"], [f"{EN_TABLE}.rows[0]: {SHORT_ROW.format(got=1)}"]),
    "no cells": ([], [f"{EN_TABLE}.rows[0]: {SHORT_ROW.format(got=0)}"]),
    "a blank cell": (["AI compute", {}], [f"{EN_TABLE}.rows[0][1]: {BLANK_CELL}"]),
    # A label is never given a source: a blank one is asked for its name only.
    "a blank label": ([{"value": " "}, "3.4 PFLOPS"], [f"{EN_TABLE}.rows[0][0]: {BLANK_LABEL}"]),
    # Two mistakes in one row: each named.
    "a blank label and a missing cell": ([""], [f"{EN_TABLE}.rows[0]: {SHORT_ROW.format(got=1)}",
                                                f"{EN_TABLE}.rows[0][0]: {BLANK_LABEL}"]),
    "a label with a source and an extra cell": ([{"value": "AI compute", "source": 5}, "3.4 PFLOPS", "x"],
                                                [f"{EN_TABLE}.rows[0]: {LONG_ROW.format(got=3)}",
                                                 f"{EN_TABLE}.rows[0][0]: {LABEL_CELL}"]),
}


@pytest.mark.parametrize("case", ROWS)
def test_one_mistake_in_a_row_is_one_message_and_each_mistake_is_named(tmp_path, case):
    row, expected = ROWS[case]
    record = _reference(tmp_path)
    found = [problem.removeprefix("reference:trainium: ") for problem in _check(_changed(record, _row("en", row)))
             if "is never cited" not in problem]
    assert found == expected
    # The same mistake in both languages: once in each.
    both = _changed(_changed(record, _row("en", row)), _row("hu", copy.deepcopy(row)))
    found = [problem.removeprefix("reference:trainium: ") for problem in _check(both)
             if "is never cited" not in problem]
    assert found == sorted(expected + [problem.replace("en.", "hu.", 1) for problem in expected])


@pytest.mark.sqlite_only("what a file may hold does not depend on the database")
def test_a_label_with_a_source_is_refused_by_import(sample_cli, write_files):
    text = SAMPLE_REFERENCE.read_text(encoding="utf-8").replace(
        "- [AI compute, {value: 3.4 PFLOPS", "- [{value: AI compute, source: 5}, {value: 3.4 PFLOPS")
    folder = write_files({"reference/trainium.yaml": text})
    refused = sample_cli("import", str(folder), expect=1).stderr.splitlines()
    assert refused[0] == f"{folder / 'reference' / 'trainium.yaml'}:276: {EN_TABLE}.rows[0][0]: {LABEL_CELL}"
    assert refused[-1] == "1 error; nothing was changed"


@pytest.mark.sqlite_only("what a file may hold does not depend on the database")
def test_import_names_a_row_with_a_blank_cell_as_check_does_each_mistake_once(sample_cli, write_files):
    """A blank cell past the last column is to be taken out: the row's width says so, not "required"; a
    blank label alone in a row is named, and so is the row's missing cell."""
    text = SAMPLE_REFERENCE.read_text(encoding="utf-8")
    row = "- [AI compute, {value: 3.4 PFLOPS BF16 per 16-chip server, source: 5}]"
    for written, expected in [
            (row.replace("source: 5}]", 'source: 5}, ""]'), [f"rows[0]: {LONG_ROW.format(got=3)}"]),
            ('- [""]', [f"rows[0]: {SHORT_ROW.format(got=1)}", f"rows[0][0]: {BLANK_LABEL}"])]:
        folder = write_files({"reference/trainium.yaml": text.replace(row, written)})
        refused = sample_cli("import", str(folder), expect=1).stderr.splitlines()
        path = folder / "reference" / "trainium.yaml"
        assert refused == [*(f"{path}:276: {EN_TABLE}.{problem}" for problem in expected),
                           f"{len(expected)} error{'s' if len(expected) > 1 else ''}; nothing was changed"]


# -- the two languages' structure ----------------------------------------------------------

SIMPLE_REQUIRED = "required: every section has a Simple part, with its text or a table"
AFTER_WITHOUT_TABLE = ("text after a table, but the part has no table: write it as the part's `text:`, or give "
                       "the `table:` it follows")


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
    "a caption in hu only": (lambda data: _deep(data, "hu")["table"].update(caption="Az AWS adatai"),
                             ["en.sections[3].deep.table.caption: missing translation (present in hu)"]),
    "a caption in en only": (lambda data: _deep(data, "en")["table"].update(caption="AWS's figures"),
                             ["hu.sections[3].deep.table.caption: missing translation (present in en)"]),
    "a caption in both": (lambda data: [_deep(data, lang)["table"].update(caption="x") for lang in ("hu", "en")],
                          []),
    "a section without a Simple part": (lambda data: data["en"]["sections"][1].pop("simple"),
                                        [f"en.sections[1].simple: {SIMPLE_REQUIRED}"]),
    "a Simple part of text after a table only": (
        lambda data: data["en"]["sections"][1].update(simple={"after": "x"}),
        [f"en.sections[1].simple.after: {AFTER_WITHOUT_TABLE}"]),
    "a Simple part of text after a table only, in both": (
        lambda data: [data[lang]["sections"][1].update(simple={"after": "x"}) for lang in ("hu", "en")],
        [f"en.sections[1].simple.after: {AFTER_WITHOUT_TABLE}", f"hu.sections[1].simple.after: {AFTER_WITHOUT_TABLE}"]),
    "a Simple text and text after it, no table, in both": (
        lambda data: [data[lang]["sections"][1]["simple"].update(after="x") for lang in ("hu", "en")],
        [f"en.sections[1].simple.after: {AFTER_WITHOUT_TABLE}", f"hu.sections[1].simple.after: {AFTER_WITHOUT_TABLE}"]),
    "a Deep dive of text after a table only, in both": (
        lambda data: [data[lang]["sections"][1].update(deep={"after": "x"}) for lang in ("hu", "en")],
        [f"en.sections[1].deep.after: {AFTER_WITHOUT_TABLE}", f"hu.sections[1].deep.after: {AFTER_WITHOUT_TABLE}"]),
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
    assert refused[:2] == [f"{path}:222: en.sections[0].deep: missing translation (present in hu)",
                           f"{path}:230: en.sections[1].simple: {SIMPLE_REQUIRED}"]
    assert refused[-1] == "2 errors; nothing was changed"


# -- finding reference pages: the index, search, dates (through the built site) ----------------------

def _minimal_reference(slug: str, hu_title: str, en_title: str | None, updated: str | None = None,
                       captions: tuple[str, str] | None = None) -> str:
    """A small reference page; no `en:` block when `en_title` is None (shown in English under the fallback
    policy); with `captions` (hu, en), its Deep dive is a spec table with those captions."""
    text = f"kind: reference\nslug: {slug}\n"
    if updated:
        text += f"updated: {updated}\n"
    text += ("sources:\n  - {publisher: Maker, title: Datasheet, url: 'https://example.com/ds'}\n"
             f"hu:\n  title: {hu_title!r}\n  summary: Összefoglaló {slug}.\n  sections:\n"
             "    - title: Röviden\n      simple: {text: 'Egyszerű NeuronCore szöveg [1].'}\n"
             + (_captioned_table(captions[0], "Adat", "Csomópont", "Nem közzétett") if captions else
                "      deep: {text: 'Mély szöveg [1].'}\n"))
    if en_title is not None:
        text += (f"en:\n  title: {en_title!r}\n  summary: Summary of {slug}.\n  sections:\n"
                 "    - title: In short\n      simple: {text: 'Simple text [1].'}\n"
                 + (_captioned_table(captions[1], "Spec", "Node", "Not published") if captions else
                    "      deep: {text: 'Deep text [1].'}\n"))
    return text


def _captioned_table(caption: str, spec: str, node: str, unpublished: str) -> str:
    return (f"      deep:\n        table:\n          caption: {caption!r}\n          columns: [{spec}, Csip]\n"
            f"          rows:\n            - [{node}, {{value: 3 nm, source: 1}}]\n"
            f"            - [Die, {{not_published: {unpublished}}}]\n")


#: Hungarian collation puts "Cs" after every other "C…" word; English does not.
EXTRA_REFERENCES = {
    "reference/csip.yaml": _minimal_reference("csip", "Csipgyártás", "Chipmaking", "2026-10-01",
                                              ("A <b>gyártó</b> adatai", "The <b>maker's</b> figures")),
    "reference/cukor.yaml": _minimal_reference("cukor", "Cukorlapka", "Sugar wafer", "2026-09-30"),
    "reference/only-hu.yaml": _minimal_reference("only-hu", "Zárt <b>lapka</b> </script><!--", None, "2026-08-01"),
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> Path:
    """The sample with three more reference pages (one only in Hungarian), built."""
    from sitebuild import build_sample

    return build_sample(tmp_path_factory.mktemp("reference-index"), EXTRA_REFERENCES)


def _parse(path: Path):
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(path.read_bytes())


def _index_rows(site: Path, lang: str) -> list[tuple[str, str, str]]:
    main = _parse(site / lang / "reference" / "index.html").find(".//main")
    return [(_text(item.find(".//a")), item.find(".//a").get("href"), _text(item.find(".//p")))
            for item in main.iter("li") if item.find(".//a") is not None]


@pytest.mark.sqlite_only("the built site; the store's PostgreSQL leg is covered elsewhere")
def test_the_reference_index_lists_every_page_in_the_languages_order(indexed):
    hu = _index_rows(indexed, "hu")
    assert [title for title, _, _ in hu] == ["Amazon Trainium (Trn1)", "Cukorlapka", "Csipgyártás",
                                             "Zárt <b>lapka</b> </script><!--"]
    assert hu[0][1] == "/hu/reference/trainium/" and hu[0][2].startswith("Az Amazon első")
    en = _index_rows(indexed, "en")
    # The page with no English text is listed (fallback policy), marked; its title is still Hungarian.
    assert [title.split(" not yet translated")[0] for title, _, _ in en] == [
        "Amazon Trainium (Trn1)", "Chipmaking", "Sugar wafer", "Zárt <b>lapka</b> </script><!--"]
    assert en[1] == ("Chipmaking", "/en/reference/csip/", "Summary of csip.")
    for title, href, _ in hu + en:
        assert (indexed / href.strip("/") / "index.html").is_file(), href


@pytest.mark.sqlite_only("the built site; the store's PostgreSQL leg is covered elsewhere")
@pytest.mark.parametrize("lang, caption", [("hu", "A <b>gyártó</b> adatai"), ("en", "The <b>maker's</b> figures")])
def test_a_spec_table_shows_its_caption_in_the_page_s_language_and_one_without_shows_none(indexed, lang, caption):
    table = _parse(indexed / lang / "reference" / "csip" / "index.html").find(".//table[@class='spec']")
    assert [child.tag for child in table][:2] == ["caption", "thead"]
    assert table.find("caption").text == caption and len(table.find("caption")) == 0  # escaped, as text
    for table in _parse(indexed / lang / "reference" / "trainium" / "index.html").iter("table"):
        assert table.find("caption") is None


@pytest.mark.sqlite_only("the built site; the store's PostgreSQL leg is covered elsewhere")
@pytest.mark.parametrize("lang, dates", [
    ("hu", ["2026. október 19.", "2026. szeptember 30.", "2026. október 1.", "2026. augusztus 1."]),
    ("en", ["October 19, 2026", "October 1, 2026", "September 30, 2026", "August 1, 2026"])])
def test_the_reference_index_gives_each_page_s_last_update_and_lists_them_as_json_ld(indexed, lang, dates):
    from sitebuild import BASE

    label = {"hu": "Utolsó frissítés:", "en": "Last updated:"}[lang]
    page = _parse(indexed / lang / "reference" / "index.html")
    items = [item for item in page.find(".//main").iter("li") if item.find(".//a") is not None]
    updated = [item.find("p[@class='updated']") for item in items]
    assert [_text(p) for p in updated] == [f"{label} {date}" for date in dates]
    isos = [p.find("time").get("datetime") for p in updated]
    scripts = [s.text for s in page.iter("script") if s.get("type") == "application/ld+json"]
    assert len(scripts) == 1
    data = json.loads(scripts[0])
    assert (data["@context"], data["@type"], data["url"], data["inLanguage"]) == (
        "https://schema.org", "CollectionPage", f"{BASE}{lang}/reference/", lang)
    listed = data["mainEntity"]
    assert listed["@type"] == "ItemList" and listed["numberOfItems"] == 4
    assert [(element["position"], element["item"]["url"], element["item"]["headline"], element["item"]["dateModified"])
            for element in listed["itemListElement"]] == [
        (position, BASE + item.find(".//a").get("href").lstrip("/"), _text(item.find(".//a")).split(" not yet")[0], iso)
        for position, (item, iso) in enumerate(zip(items, isos), start=1)]
    raw = (indexed / lang / "reference" / "index.html").read_text(encoding="utf-8")
    assert "</script><!--" not in raw.split('<script type="application/ld+json">', 1)[1].split("</script>", 1)[0]


@pytest.mark.sqlite_only("the built site; the store's PostgreSQL leg is covered elsewhere")
@pytest.mark.parametrize("lang", ["hu", "en"])
def test_the_reference_index_is_linked_from_every_page_and_from_each_reference_page(indexed, lang):
    for page in (f"{lang}/index.html", f"{lang}/glossary/index.html", f"{lang}/reference/trainium/index.html"):
        links = [a.get("href") for a in _parse(indexed / page).iter("a")]
        assert f"/{lang}/reference/" in links, page
    # The seed's navigation stays as it is.
    nav = _parse(indexed / f"{lang}/index.html").find(".//nav[@class='site-nav']")
    assert len(nav.findall(".//li")) == 6


@pytest.mark.sqlite_only("the built site; the store's PostgreSQL leg is covered elsewhere")
def test_the_sitemap_has_the_index_with_alternates_and_each_page_its_last_update(indexed):
    """The index's lastmod is its latest page's update: a crawler comes back when a page it lists changed."""
    from sitebuild import BASE

    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    urls = {url.find("s:loc", ns).text: url for url in ET.parse(indexed / "sitemap.xml").getroot()}
    for lang in ("hu", "en"):
        index = urls[f"{BASE}{lang}/reference/"]
        alternates = {link.get("hreflang"): link.get("href") for link in index.findall("x:link", ns)}
        assert alternates == {"hu": f"{BASE}hu/reference/", "en": f"{BASE}en/reference/",
                              "x-default": f"{BASE}hu/reference/"}
        assert index.find("s:lastmod", ns).text == "2026-10-19"  # the latest of its pages' updates
        assert urls[f"{BASE}{lang}/reference/csip/"].find("s:lastmod", ns).text == "2026-10-01"
        assert urls[f"{BASE}{lang}/reference/trainium/"].find("s:lastmod", ns).text == "2026-10-19"


@pytest.mark.sqlite_only("the built site; the store's PostgreSQL leg is covered elsewhere")
@pytest.mark.parametrize("lang, shown", [("en", "Last updated: October 19, 2026"),
                                         ("hu", "Utolsó frissítés: 2026. október 19.")])
def test_a_reference_page_says_when_it_was_last_updated(indexed, lang, shown):
    page = _parse(indexed / lang / "reference" / "trainium" / "index.html")
    updated = page.find(".//p[@class='updated']")
    assert _text(updated) == shown
    assert updated.find("time").get("datetime") == "2026-10-19"


@pytest.mark.sqlite_only("the built site; the store's PostgreSQL leg is covered elsewhere")
@pytest.mark.parametrize("lang, slug, before", [("hu", "trainium", ["header"]), ("en", "trainium", ["header"]),
                                                ("en", "only-hu", ["header", "p.untranslated"])])
def test_last_updated_is_a_line_of_its_own_under_the_title(indexed, lang, slug, before):
    """The seed shows no date: it goes where a reader looks for one, under the title (after the note that
    the page is not yet translated, if it is not), a line of its own: not run into the how-to-read note
    that follows, and with it into its sentence on sources, as the page's text read before."""
    main = _parse(indexed / lang / "reference" / slug / "index.html").find(".//main/article")
    names = [child.tag + (f".{child.get('class')}" if child.tag == "p" else "") for child in main]
    assert names[:len(before) + 2] == [*before, "p.updated", "p.how-to-read"]
    assert [child.tag for child in main.find("header")] == ["nav", "h1"]  # the breadcrumb, then the title
    updated = main.find("p[@class='updated']")
    assert (updated.tail or "").startswith("\n"), "the date runs on into the next paragraph"


@pytest.mark.sqlite_only("the built site; the store's PostgreSQL leg is covered elsewhere")
def test_a_reference_page_carries_article_json_ld_that_no_text_can_break_out_of(indexed):
    from sitebuild import BASE

    page = _parse(indexed / "en" / "reference" / "trainium" / "index.html")
    scripts = [s.text for s in page.iter("script") if s.get("type") == "application/ld+json"]
    assert len(scripts) == 1
    data = json.loads(scripts[0])
    assert data["@type"] == "Article" and data["@context"] == "https://schema.org"
    assert data["headline"] == "Amazon Trainium (Trn1)" and data["inLanguage"] == "en"
    assert data["url"] == f"{BASE}en/reference/trainium/" and data["dateModified"] == "2026-10-19"
    assert data["description"].startswith("Amazon's first chip")
    assert data["citation"][0]["url"].startswith("https://aws.amazon.com/")
    raw = (indexed / "en" / "reference" / "only-hu" / "index.html").read_text(encoding="utf-8")
    script = raw.split('<script type="application/ld+json">', 1)[1].split("</script>", 1)[0]
    assert "<" not in script
    data = json.loads(script)
    assert data["headline"] == "Zárt <b>lapka</b> </script><!--" and data["inLanguage"] == "hu"


@pytest.mark.sqlite_only("the built site; the store's PostgreSQL leg is covered elsewhere")
def test_the_search_finds_reference_pages_by_title_summary_and_section_text(indexed):
    from newsroom.render.search_query import search

    en = indexed / "en" / "search" / "index"
    hits = search(en, "NeuronCore")
    # Entries first, then reference pages, in the dictionary order of the titles the hits show ("Amazon Trainium
    # (Trn1)", then the Hungarian "Zárt lapka" shown in its stead), as the reference pages' index lists them, then
    # stories.
    assert [hit["url"] for hit in hits if hit["kind"] == "reference"] == ["/en/reference/trainium/",
                                                                          "/en/reference/only-hu/"]
    kinds = [hit["kind"] for hit in hits]
    assert kinds == sorted(kinds, key=("entry", "reference", "story").index)
    trainium = next(hit for hit in hits if hit["url"] == "/en/reference/trainium/")
    assert trainium["title"] == "Amazon Trainium (Trn1)" and trainium["snippet"].startswith("Amazon's first chip")
    only_hu = next(hit for hit in hits if hit["url"] == "/en/reference/only-hu/")
    assert only_hu["lang"] == "hu"  # shown marked as not yet translated
    assert [hit["url"] for hit in search(en, "sugar wafer")] == ["/en/reference/cukor/"]  # title
    assert "/en/reference/csip/" in [hit["url"] for hit in search(en, "summary csip")]  # summary
    assert "/en/reference/trainium/" in [hit["url"] for hit in search(en, "at a glance")]  # a section's title
    hu = search(indexed / "hu" / "search" / "index", "csipgyartas")
    assert [hit["url"] for hit in hu] == ["/hu/reference/csip/"]
    scope = _text(_parse(indexed / "en" / "search" / "index.html").find(".//p[@class='search-scope']"))
    assert "4 reference pages" in scope


@pytest.mark.sqlite_only("the built site; the store's PostgreSQL leg is covered elsewhere")
def test_english_interface_text_on_an_untranslated_page_is_not_marked_hungarian(indexed):
    """Under the fallback policy a page without English text shows the Hungarian text in English pages:
    the text carries lang="hu", the interface around it (notes, headings, labels) stays English."""
    page = _parse(indexed / "en" / "reference" / "only-hu" / "index.html")
    parents = {child: parent for parent in page.iter() for child in parent}

    def language(element) -> str:
        while element is not None and element.get("lang") is None:
            element = parents.get(element)
        return element.get("lang") if element is not None else ""

    main = page.find(".//main")
    assert language(main.find(".//h1")) == "hu"
    for element in main.iter():
        if element.get("class") in ("untranslated", "how-to-read", "simple", "sources") \
                or element.tag in ("summary", "h3") or element.get("aria-label"):
            assert language(element) == "en", (element.tag, element.get("class"), _text(element))
    simple = main.find(".//div[@class='simple']")
    assert any(language(p) == "hu" and "NeuronCore" in _text(p) for p in simple.iter("p"))


def _export_import_build(sample_cli, databases, tmp_path: Path) -> tuple[Path, Path]:
    first, second = tmp_path / "first", tmp_path / "second"
    sample_cli("build", "--out", str(first))
    sample_cli("export", str(tmp_path / "export"))
    fresh = type(sample_cli)(databases.new(), sample_cli.cwd)
    fresh("init")
    fresh("import", str(tmp_path / "export"))
    fresh("build", "--out", str(second))
    return first, second


@pytest.mark.sqlite_only("two databases and two builds; the store's round trip on PostgreSQL is tested elsewhere")
def test_export_import_and_build_give_the_same_site(sample_cli, databases, tmp_path):
    """A reference page's date is the content's (`updated:`), not the time a record was stored."""
    first, second = _export_import_build(sample_cli, databases, tmp_path)
    files = sorted(path.relative_to(first).as_posix() for path in first.rglob("*") if path.is_file())
    assert files == sorted(path.relative_to(second).as_posix() for path in second.rglob("*") if path.is_file())
    assert [name for name in files if (first / name).read_bytes() != (second / name).read_bytes()] == []
    assert "2026-10-19" in (first / "en/reference/trainium/index.html").read_text(encoding="utf-8")


def test_a_reference_page_without_a_date_of_last_update_is_a_warning(tmp_path):
    record = _reference(tmp_path, lambda text: text.replace("updated: 2026-10-19\n", ""))
    assert _check(record) == ["reference:trainium: updated: warning: no date of its last update: give "
                              "`updated: YYYY-MM-DD` (the page shows it, and the sitemap and search engines "
                              "read it)"]
    record = _reference(tmp_path, lambda text: text.replace("updated: 2026-10-19", "updated: 2026-12-24"))
    assert _check(record) == ["reference:trainium: updated: warning: 2026-12-24 is in the future "
                              "(today is 2026-11-30)"]


# -- starting a reference page: `newsroom reference new`, `reference list` -------------------------

STARTER_TODO = "warning: still the starter's TODO: write the page's own text here"
#: Each text of the starter an editor writes, per language; the rest (a column's heading, "not published"
#: in the language's words, the citations, the date) is a starter's own.
STARTER_FIELDS = ["sections[0].deep.table.columns[1]", "sections[0].deep.table.rows[0][0]",
                  "sections[0].deep.table.rows[0][1].value", "sections[0].deep.table.rows[1][0]",
                  "sections[0].deep.text", "sections[0].simple.text", "sections[0].title", "summary", "title"]


@pytest.mark.sqlite_only("what a file may hold does not depend on the database")
@pytest.mark.usefixtures("public_address")  # check names the content's problems alone
def test_a_new_reference_page_s_starter_imports_and_check_lists_only_its_todos(sample_cli, monkeypatch):
    """The starter is the smallest page the rules accept, in both languages: it imports, and `check` names
    each text still to write (a warning; `--strict` fails on them), nothing else."""
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-20T10:00:00+01:00")
    said = sample_cli("reference", "new", "gpu-profile")
    path = sample_cli.cwd / "reference" / "gpu-profile.yaml"
    assert said.stdout.strip() == ("reference/gpu-profile.yaml: write it wherever it says TODO, then run "
                                   "`newsroom import reference/gpu-profile.yaml`: a draft, shown by `newsroom build "
                                   "--drafts` and `newsroom serve` until you delete its `draft: true` line and import "
                                   "it again")
    starter = path.read_text(encoding="utf-8")
    assert starter.count("\n    - title: TODO\n") == 2  # one section in each language
    assert "{not_published: Nem tették közzé}" in starter and "{not_published: Not published}" in starter
    assert "\nupdated: 2026-11-20 " in starter
    assert "\ndraft: true " in starter  # readers see none of its TODOs

    sample_cli("import", "reference/gpu-profile.yaml")
    checked = sample_cli("check")
    expected = sorted([f"reference:gpu-profile: {lang}.{field}: {STARTER_TODO}" for lang in ("en", "hu")
                       for field in STARTER_FIELDS]
                      + [f"reference:gpu-profile: sources[0].{field}: {STARTER_TODO}"
                         for field in ("publisher", "title", "url")])
    assert checked.stderr.splitlines() == [*expected, "0 error(s), 21 warning(s)"]
    assert "--strict fails on warnings" in sample_cli("check", "--strict", expect=1).stderr

    # Listed by title in the language's order, with its date of last update.
    listed = sample_cli("reference", "list").stdout.splitlines()
    assert listed[0] == "trainium  2026-10-19  Amazon Trainium (Trn1)"
    assert listed[1] == "gpu-profile  2026-11-20  TODO  (draft)"


@pytest.mark.sqlite_only("what a command refuses does not depend on the database")
def test_a_new_reference_page_never_takes_a_slug_or_a_file_already_there(sample_cli):
    for slug, what, kind in (("trainium", "reference page", "reference"), ("method", "site page", "page")):
        refused = sample_cli("reference", "new", slug, expect=1).stderr.strip()
        assert refused == (f"Error: there is a {what} '{slug}' already (version 1): change it with `newsroom edit "
                           f"{kind}:{slug}`, or `newsroom export` its file; or choose another slug")
    assert not (sample_cli.cwd / "reference").exists()
    sample_cli("reference", "new", "gpu-profile", "--out", "drafts/gpu.yaml")
    before = (sample_cli.cwd / "drafts" / "gpu.yaml").read_bytes()
    refused = sample_cli("reference", "new", "other", "--out", "drafts/gpu.yaml", expect=1).stderr.strip()
    assert refused == "Error: drafts/gpu.yaml exists already; choose another --out"
    assert (sample_cli.cwd / "drafts" / "gpu.yaml").read_bytes() == before
    assert "Invalid value for SLUG" in sample_cli("reference", "new", "Not A Slug", expect=2).stderr
