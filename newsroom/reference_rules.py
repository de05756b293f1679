"""What a reference page's sections must hold, in each language and between its languages.

A section has a Simple part; a layer's text after a table has the table before it; a spec table's row
has one cell per column, none blank, its first a plain label (no source, not "not published"); every language
has the same sections, layers, texts and tables (their captions, columns and rows), so a reader
switching language finds the same page. A part one language has and another lacks is reported as a
missing translation, as a field is; a language with no text at all is the `missing_translation`
policy's case (see checks.translations._translations).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from newsroom.diagnostics import Diagnostic

if TYPE_CHECKING:  # (the file reader uses these rules too, before any record is built)
    from newsroom.build.model import Record

LAYERS = ("simple", "deep")
PARTS = ("text", "table", "after")
SIMPLE_REQUIRED = "required: every section has a Simple part, with its text or a table"
AFTER_WITHOUT_TABLE = ("text after a table, but the part has no table: write it as the part's `text:`, or give "
                       "the `table:` it follows")
BLANK_LABEL = "blank label: a row's first cell names what the row gives (plain text, shown as the row's heading)"
BLANK_CELL = "blank cell: give a value with its source, or {not_published: …} saying the maker has not published it"
LABEL_CELL = ("a row's first cell is its label, plain text (shown as the row's heading): write the label as it is, "
              "and give a source, or {not_published: …}, in the figure's own cell")


def table_problems(record: Record, lang: str, sources: int) -> Iterator[Diagnostic]:
    """A language's spec-table rows without one cell per column, blank cells (a cell is never blank: a
    value or an explicit "not published"), labels with a source or "not published" (a label is the row's
    heading), and cells citing a source that is not listed."""
    for s, section in enumerate(record.text(lang).get("sections") or []):
        for layer in LAYERS:
            table = (section.get(layer) or {}).get("table") or {}
            columns = len(table.get("columns") or [])
            for r, row in enumerate(table.get("rows") or []):
                place = f"{lang}.sections[{s}].{layer}.table.rows[{r}]"
                for where, message in row_problems(row, columns, sources):
                    yield Diagnostic(record.location, None, place + where, message)


def row_problems(row: Sequence[Any], columns: int, sources: int | None = None) -> Iterator[tuple[str, str]]:
    """A spec-table row's mistakes under `columns` columns, each once, as (where in the row: "" for the row
    itself, "[1]" for a cell; message): its width, its blank cells, a label with a source or "not
    published", and (unless `sources` is None) a cell citing a source past the `sources` listed."""
    if columns and len(row) != columns:
        yield "", _row_width(len(row), columns)
    # A cell past the last column is named by the row's width only: it is to be taken out, not filled.
    for c, cell in enumerate(row[:columns] if columns else row):
        if c == 0 and isinstance(cell, Mapping) and ("source" in cell or "not_published" in cell) \
                and not blank(cell):
            yield "[0]", LABEL_CELL
            continue
        if blank(cell):
            yield f"[{c}]", BLANK_LABEL if c == 0 else BLANK_CELL
            continue
        source = cell.get("source") if isinstance(cell, Mapping) else None
        if sources is not None and source is not None and not 1 <= source <= sources:
            yield f"[{c}].source", f"cites source {source}, which is not listed"


def _row_width(cells: int, columns: int) -> str:
    said = f"expected {columns} cells, one per column, got {cells}: "
    if cells < columns:  # the page would show the row without the figure, not saying it is unpublished
        return said + "a figure the maker has not published is {not_published: …}, never left out"
    return said + "add a column for the others, or take them out"


def blank(cell: Any) -> bool:
    """Whether a spec-table cell gives nothing: no value, no "not published" text."""
    if isinstance(cell, Mapping):
        return not any(str(cell.get(key) or "").strip() for key in ("value", "not_published"))
    return cell is None or not str(cell).strip()


def structure_problems(record: Record, languages: Sequence[str]) -> Iterator[Diagnostic]:
    """A reference page's section without its Simple part, and each section, layer, text, table, column
    or row that one of its languages with sections has and another lacks."""
    if record.kind != "reference":
        return
    sections = {lang: list(record.text(lang).get("sections") or []) for lang in languages}
    # A table one language has and another lacks is named as a missing translation, its text after it not.
    tabled = {(s, layer) for items in sections.values() for s, section in enumerate(items) for layer in LAYERS
              if _filled((section.get(layer) or {}).get("table"))}
    for lang, items in sections.items():
        for s, section in enumerate(items):
            for layer in LAYERS:
                part = section.get(layer) or {}
                if _filled(part.get("after")) and not _filled(part.get("table")):
                    if (s, layer) not in tabled:
                        yield Diagnostic(record.location, None, f"{lang}.sections[{s}].{layer}.after",
                                         AFTER_WITHOUT_TABLE)
                elif layer == "simple" and not (_filled(part.get("text")) or _filled(part.get("table"))):
                    yield Diagnostic(record.location, None, f"{lang}.sections[{s}].simple", SIMPLE_REQUIRED)
    # A language with no sections is named by the rule of translated fields already (`en.sections`).
    present = {lang: items for lang, items in sections.items() if items}
    if len(present) > 1:
        shared, unmatched = _shared_items(record.location, present, "sections")
        yield from unmatched
        for s in range(shared):
            yield from _section_parts(record.location, {lang: items[s] for lang, items in present.items()},
                                      f"sections[{s}]")


def _section_parts(location: str, section: Mapping[str, Mapping[str, Any]], path: str) -> Iterator[Diagnostic]:
    """One section's layers and their parts, and its tables' columns and rows, in every language that has it
    (the Simple part's absence is named as required, not as a missing translation)."""
    for layer in LAYERS:
        having = {lang: part[layer] for lang, part in section.items() if _filled(part.get(layer))}
        if layer != "simple":
            yield from _missing(location, section, having, f"{path}.{layer}")
        # A layer with text after no table (named as such when no language has the table) is left out of the
        # comparison: writing its text as `text:` is the one fix, not a translation of each part.
        if not any(_filled(part.get("table")) for part in having.values()):
            having = {lang: part for lang, part in having.items() if not _filled(part.get("after"))}
        for name in PARTS if len(having) > 1 else ():
            holding = {lang: part[name] for lang, part in having.items() if _filled(part.get(name))}
            yield from _missing(location, having, holding, f"{path}.{layer}.{name}")
            if name == "table" and len(holding) > 1:
                yield from _table_parts(location, holding, f"{path}.{layer}.table")


def _table_parts(location: str, tables: Mapping[str, Mapping[str, Any]], path: str) -> Iterator[Diagnostic]:
    """One table's caption, columns and rows in every language that has the table: a caption is optional,
    but given in one language it is a missing translation in another, as a column or a row is."""
    yield from _missing(location, tables, {lang: table["caption"] for lang, table in tables.items()
                                           if _filled(table.get("caption"))}, f"{path}.caption")
    for field in ("columns", "rows"):
        yield from _shared_items(location, {lang: table.get(field) or [] for lang, table in tables.items()},
                                 f"{path}.{field}")[1]


def _shared_items(location: str, lists: Mapping[str, Sequence[Any]], path: str) -> tuple[int, list[Diagnostic]]:
    """(how many items every language's list has, a missing translation in each language lacking an item
    another has)."""
    shortest = min(map(len, lists.values()))
    unmatched = [Diagnostic(location, None, f"{lang}.{path}[{index}]", "missing translation (present in "
                            f"{', '.join(other for other, items in lists.items() if index < len(items))})")
                 for lang, items in lists.items() for index in range(len(items), max(map(len, lists.values())))]
    return shortest, unmatched


def _missing(location: str, everyone: Mapping[str, Any], having: Mapping[str, Any], path: str
             ) -> Iterator[Diagnostic]:
    """A missing translation of `path` in each language of `everyone` not among those `having` it."""
    if having:
        for lang in everyone:
            if lang not in having:
                yield Diagnostic(location, None, f"{lang}.{path}",
                                 f"missing translation (present in {', '.join(having)})")


def _filled(value: Any) -> bool:
    return value not in (None, "", [], {})
