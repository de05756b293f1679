"""What a reference page's spec tables must hold: one cell per column in every row, none blank."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from newsroom.build.model import Record
from newsroom.diagnostics import Diagnostic

LAYERS = ("simple", "deep")


def table_problems(record: Record, lang: str, sources: int) -> Iterator[Diagnostic]:
    """A language's spec-table rows without one cell per column, blank cells (a cell is never blank: a
    value or an explicit "not published"), and cells citing a source that is not listed."""
    for s, section in enumerate(record.text(lang).get("sections") or []):
        for layer in LAYERS:
            table = (section.get(layer) or {}).get("table") or {}
            columns = len(table.get("columns") or [])
            for r, row in enumerate(table.get("rows") or []):
                place = f"{lang}.sections[{s}].{layer}.table.rows[{r}]"
                if columns and len(row) != columns:
                    yield Diagnostic(record.location, None, place, _row_width(len(row), columns))
                for c, cell in enumerate(row):
                    if _blank(cell):
                        yield Diagnostic(record.location, None, f"{place}[{c}]", "blank cell: give a value with its "
                                         "source, or {not_published: …} saying the maker has not published it")
                        continue
                    source = cell.get("source") if isinstance(cell, Mapping) else None
                    if source is not None and not 1 <= source <= sources:
                        yield Diagnostic(record.location, None, f"{place}[{c}].source",
                                         f"cites source {source}, which is not listed")


def _row_width(cells: int, columns: int) -> str:
    said = f"expected {columns} cells, one per column, got {cells}: "
    if cells < columns:  # the page would show the row without the figure, not saying it is unpublished
        return said + "a figure the maker has not published is {not_published: …}, never left out"
    return said + "add a column for the others, or take them out"


def _blank(cell: Any) -> bool:
    if isinstance(cell, Mapping):
        return not any(str(cell.get(key) or "").strip() for key in ("value", "not_published"))
    return cell is None or not str(cell).strip()
