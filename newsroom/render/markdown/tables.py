"""A raw HTML table's parts in HTML5's order and its cells' spans fitted to its rows and columns.

An editor's table (pasted, or cut down by hand) may have a cell whose `colspan` runs past every other row's
columns, a `rowspan` past the end of its row group, an empty row, a second caption, head or foot: the Nu
HTML Checker rejects each, and browsers clip the spans anyway. `fit_spans` makes the table as browsers show
it: a column no cell begins in and a row with no cell are taken out, a span clipped to where they end. A row
short of the table's columns (which the checker warns of) ends in an empty cell, where browsers show a gap.
"""

from __future__ import annotations

import bisect
import heapq
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from newsroom.render.markdown.html_tree import _Element

_SPAN = {"colspan": re.compile(r'\scolspan="([0-9]+)"'), "rowspan": re.compile(r'\srowspan="([0-9]+)"')}
_GROUPS = ("thead", "tbody", "tfoot")
_RANKS = {"caption": 0, "thead": 1, "tbody": 2, "tfoot": 3}  # HTML5's order of a table's parts


def fit_spans(table: _Element) -> None:
    """`table` (the cleaner's: its rows in row groups) with its parts in order, every span fitted and every row
    as wide as the table."""
    _in_order(table)
    cells: list[tuple[_Element, int, int]] = []  # each cell, the column it begins in, its colspan
    ends: list[tuple[_Element, int]] = []  # each row, the column after the last it covers
    for group in table.elements():
        if group.name in _GROUPS:
            group.children = [child for child in group.children
                              if isinstance(child, str) or child.name != "tr" or _cells(child)]
            cells.extend(_group_cells(group, ends))
    starts = sorted({column for _, column, _ in cells})  # looked up by bisection: a paste may have thousands
    for cell, column, colspan in cells:
        kept = bisect.bisect_left(starts, column + colspan) - bisect.bisect_left(starts, column)
        if kept != colspan:
            _set_span(cell, "colspan", kept)
    for row, end in ends:  # a row short of the table's columns (a span over it clipped) ends in an empty cell
        short = len(starts) - bisect.bisect_left(starts, end)
        if short:
            start = f'<td colspan="{short}">' if short > 1 else "<td>"
            row.children.append(type(row)("td", start))  # conformance's _Element (which imports this module)


def _in_order(table: _Element) -> None:
    """One caption first (a second one's words in it), one head, the bodies, one foot last (a second head or
    foot is a body): HTML5's order, which browsers show whatever the source's."""
    ranks = [_RANKS.get(child.name, 2) for child in table.elements()]
    if ranks == sorted(ranks) and all(ranks.count(rank) <= 1 for rank in (0, 1, 3)):
        return  # as a table nearly always is: left as written
    captions = [child for child in table.elements() if child.name == "caption"]
    for extra in captions[1:]:
        captions[0].children.extend([" ", *extra.children])
    heads = [child for child in table.elements() if child.name == "thead"]
    feet = [child for child in table.elements() if child.name == "tfoot"]
    for extra in heads[1:] + feet[1:]:
        extra.name, extra.start = "tbody", "<tbody>"
    bodies = [child for child in table.elements() if child.name == "tbody"]
    table.children = [*captions[:1], *heads[:1], *bodies, *feet[:1]]


def _cells(row: _Element) -> list[_Element]:
    return [child for child in row.elements() if child.name in ("td", "th")]


def _group_cells(group: _Element, ends: list[tuple[_Element, int]]) -> list[tuple[_Element, int, int]]:
    """The cells of a row group with the column each begins in (as HTML's table model places them) and its
    colspan; a colspan over a cell spanning down from a row above, and a rowspan past the group's last row,
    are clipped. Each row is added to `ends` with the column after the last it covers.

    Each column keeps only the last cell placed over it (the row it spans down to, the column after it), and
    the cells over a row wait in a heap by their last column: a cell spanning many rows and columns is not
    written into each, where a paste of thousands of rows spanning to the group's end took seconds."""
    rows = [child for child in group.elements() if child.name == "tr"]
    covered: dict[int, tuple[int, int]] = {}  # a column's last cell: the row after it, the column after it
    skips: dict[int, tuple[int, int]] = {}  # from a column, past cells spanning down: until which row, to which column
    over: list[tuple[int, int]] = []  # the cells over this row or one above: (-the column after it, the row after)
    placed: list[tuple[_Element, int, int]] = []
    for y, row in enumerate(rows):
        x = 0
        for cell in _cells(row):
            x = _first_free(x, y, covered, skips)
            colspan = _span(cell, "colspan") or 1
            free = next((width for width in range(1, colspan) if covered.get(x + width, (0, 0))[0] > y), colspan)
            if free != colspan:  # it would overlap a cell above that spans down: it ends where that begins
                _set_span(cell, "colspan", free)
                colspan = free
            rowspan = _span(cell, "rowspan")
            if rowspan is None:
                rowspan = 1
            elif rowspan == 0 or rowspan > len(rows) - y:  # 0: to the group's end
                if rowspan > len(rows) - y:
                    _set_span(cell, "rowspan", len(rows) - y)
                rowspan = len(rows) - y
            covered.update((column, (y + rowspan, x + colspan)) for column in range(x, x + colspan))
            heapq.heappush(over, (-(x + colspan), y + rowspan))
            placed.append((cell, x, colspan))
            x += colspan
        while over[0][1] <= y:
            heapq.heappop(over)  # a cell that ends above this row
        ends.append((row, -over[0][0]))
    return placed


def _first_free(x: int, y: int, covered: dict[int, tuple[int, int]], skips: dict[int, tuple[int, int]]) -> int:
    """The first column from `x` on that no cell spanning down from above covers in row `y`; remembered as a skip
    from `x` while each cell passed covers its columns, so that a row of cells spanning down from every row above
    is passed at once, not cell by cell."""
    start, until = x, None
    while True:
        if skips.get(x, (0, 0))[0] > y:
            row_after, x_after = skips[x]
        elif covered.get(x, (0, 0))[0] > y:
            row_after, x_after = covered[x]
        else:
            break
        until, x = row_after if until is None else min(until, row_after), x_after
    if until is not None:
        skips[start] = (until, x)
    return x


def _span(cell: _Element, attribute: str) -> int | None:
    found = _SPAN[attribute].search(cell.start)
    return int(found.group(1)) if found else None


def _set_span(cell: _Element, attribute: str, value: int) -> None:
    """`cell`'s start tag with `attribute` set to `value` (left out at 1, the default)."""
    written = f' {attribute}="{value}"' if value != 1 else ""
    cell.start = _SPAN[attribute].sub(written, cell.start, count=1)
