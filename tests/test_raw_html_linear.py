"""What raw HTML pasted by the thousand of tags is read as: the same as a straightforward reading would.

The code these tests compare was rewritten so that a paste of tens of KB is read in linear time (its before and
after timings are in the commit messages; performance is shown by measurements, not by timing tests)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from newsroom.render.markdown import MarkdownRenderer, conformance, html_tree, left_out, tables
from newsroom.render.markdown.cleaning import _NO_LINK, _html_cleaner, _Markup, _unwrapped
from newsroom.render.markdown.mathml import mathml_only
from newsroom.render.markdown.parsing import DEFAULT_MAX_NESTING, _parse, _parser, _Prose

RAW_PIECES = st.sampled_from([
    "<span>", "</span>", "<p>", "</p>", "<em>", "<a href=\"/x\">", "<a href=\"javascript:x\">", "</a>", "<a>",
    "<img src=\"a.png\" onerror=\"x\">", "<img alt=\"\">", "<script>", "</script>", "<dl>", "<dt>", "<dd>",
    "</dl>", "<table>", "<tr>", "</tr>", "<td rowspan=\"0\">", "<td colspan=\"3\">", "<th rowspan=\"2\">", "<td>",
    "</td>", "</table>", "<details>", "<summary>", "<figure>", "<figcaption>", "<li>", "<ul>", "</ul>",
    "<object>", "<param>", "<select>", "<option>", "<noscript>", "<textarea>", "</textarea>", "<dfn>",
    "<blockquote>", "x", "y z", " ", "\n", "\n\n", "[1]", "](javascript:x)", "[a](/b)", "<math>", "</math>",
    "<mrow>", "</mrow>", "<mi onclick=\"x\">", "<maction>", "<xmp>", "</xmp>", "<applet>"])
RAW_HTML = st.lists(RAW_PIECES, max_size=60).map("".join)


def _left_out_reading_each_time(text: str) -> list[str]:
    """`left_out` as it was, reading the cleaner's kept tags and attributes again for each element."""
    found = [f"[…]({match[1].lower()}:…)" for match in _NO_LINK.finditer(text)] if "](" in text else []
    if "<" not in text:
        return found
    tokens = _parse(_parser(DEFAULT_MAX_NESTING), text)
    if isinstance(tokens, _Prose):
        return found
    raw = [token.content for block in tokens for token in (
        [block] if block.type == "html_block" else block.children or [] if block.type == "inline" else [])
        if token.type in ("html_block", "html_inline")]
    if not raw:
        return found
    fragment = "".join(raw)
    kept = _Markup.of(mathml_only(_html_cleaner().clean(_unwrapped(fragment))))
    for tag, attributes in _Markup.of(fragment).elements:
        if tag not in kept.tags:
            found.append(f"<{tag}>")
        else:
            found.extend(f"{name}= of <{tag}>" for name in attributes if (tag, name) not in kept.attributes)
    return list(dict.fromkeys(found))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=RAW_HTML)
def test_what_the_pages_leave_out_is_what_a_reading_of_each_element_finds(text: str) -> None:
    """The tags and attributes `check` says the pages leave out of a paste are those found by looking up each
    of its elements among what the cleaner keeps, however many tags it holds."""
    assert left_out(text) == _left_out_reading_each_time(text)


def test_a_paste_of_thousands_of_nested_spans_and_scripts_names_each_left_out_once() -> None:
    """Thousands of elements, most kept, some left out: each left out once, in order."""
    assert left_out("<span>" * 3000 + "<script>x</script>" + "<b onclick=\"y\">z</b>" * 500) \
        == ["<script>", "onclick= of <b>"]


def test_a_paste_of_thousands_of_formulas_and_xmps_is_shown_whole() -> None:
    """Thousands of formula rows, each with HTML in it, thousands nested, and thousands of <xmp>s: every word kept,
    the rows' stray text in an <mtext> (nested as deep as a page nests), each <xmp> a <pre> of its text; `check`
    names each left out once."""
    renderer = MarkdownRenderer(resolve=lambda kind, target: f"/{target}/")
    formula = "<math>" + "<mrow>x <mi>y<abbr>z</abbr></mi></mrow>" * 3000 + "<mrow>" * 3000 + "deep" \
        + "</mrow>" * 3000 + "</math>"
    html = str(renderer.html(formula))
    assert html.count("<mrow><mtext>x </mtext><mi>yz</mi></mrow>") == 3000 and "<abbr>" not in html
    assert "<mrow><mtext>deep " in html and html.endswith("</mtext></mrow>" + "</mrow>" * 61 + "</math></p>\n")
    assert left_out(formula) == ["<abbr>"]
    xmps = "<xmp><b>a</b></xmp>" * 3000
    assert str(renderer.html(xmps)).count("<pre>&lt;b&gt;a&lt;/b&gt;</pre>") == 3000
    assert left_out(xmps) == ["<xmp>"]


def _group_cells_cell_by_cell(group, ends):  # type: ignore[no-untyped-def]
    """`tables._group_cells` as it was: every (column, row) a cell covers written into a set, which a cell
    spanning a thousand columns down to the group's end filled with a thousand entries for each row."""
    rows = [child for child in group.elements() if child.name == "tr"]
    taken: set[tuple[int, int]] = set()
    reach: dict[int, int] = {}
    placed = []
    for y, row in enumerate(rows):
        x = 0
        for cell in tables._cells(row):
            while (x, y) in taken:
                x += 1
            colspan = tables._span(cell, "colspan") or 1
            free = next((width for width in range(1, colspan) if (x + width, y) in taken), colspan)
            if free != colspan:
                tables._set_span(cell, "colspan", free)
                colspan = free
            rowspan = tables._span(cell, "rowspan")
            if rowspan is None:
                rowspan = 1
            elif rowspan == 0 or rowspan > len(rows) - y:
                if rowspan > len(rows) - y:
                    tables._set_span(cell, "rowspan", len(rows) - y)
                rowspan = len(rows) - y
            taken.update((column, line) for column in range(x, x + colspan) for line in range(y, y + rowspan))
            for line in range(y, y + rowspan):
                reach[line] = max(reach.get(line, 0), x + colspan)
            placed.append((cell, x, colspan))
            x += colspan
        ends.append((row, reach[y]))
    return placed


def _fit_spans_column_by_column(table) -> None:  # type: ignore[no-untyped-def]
    """`tables.fit_spans` as it was: each column a cell spans and each column after a row looked up in turn."""
    tables._in_order(table)
    cells, ends = [], []
    for group in table.elements():
        if group.name in ("thead", "tbody", "tfoot"):
            group.children = [child for child in group.children
                              if isinstance(child, str) or child.name != "tr" or tables._cells(child)]
            cells.extend(_group_cells_cell_by_cell(group, ends))
    starts = {column for _, column, _ in cells}
    for cell, column, colspan in cells:
        kept = sum(1 for spanned in range(column, column + colspan) if spanned in starts)
        if kept != colspan:
            tables._set_span(cell, "colspan", kept)
    for row, end in ends:
        short = sum(1 for column in starts if column >= end)
        if short:
            row.children.append(type(row)("td", f'<td colspan="{short}">' if short > 1 else "<td>"))


def _tables_of(html: str) -> tuple[html_tree._Element, list[html_tree._Element]]:
    builder = html_tree._TreeBuilder()
    builder.feed(_html_cleaner().clean(html))
    builder.close()
    found, pending = [], [builder.root]
    while pending:
        element = pending.pop()
        found.extend(child for child in element.elements() if child.name == "table")
        pending.extend(element.elements())
    return builder.root, found


SPANS = st.sampled_from(["", ' colspan="2"', ' colspan="3"', ' colspan="1000"', ' rowspan="0"', ' rowspan="2"',
                         ' rowspan="5"', ' colspan="2" rowspan="0"', ' colspan="4" rowspan="3"', ' colspan="0"'])
CELL = st.builds(lambda tag, spans: f"<{tag}{spans}>x</{tag}>", st.sampled_from(["td", "th"]), SPANS)
ROW = st.lists(CELL, max_size=5).map(lambda cells: "<tr>" + "".join(cells) + "</tr>")
GROUP = st.builds(lambda tag, rows: f"<{tag}>" + "".join(rows) + f"</{tag}>",
                  st.sampled_from(["thead", "tbody", "tfoot", "tbody"]), st.lists(ROW, max_size=6))
TABLE = st.builds(lambda caption, groups: "<table>" + caption + "".join(groups) + "</table>",
                  st.sampled_from(["", "<caption>c</caption>"]), st.lists(GROUP, min_size=1, max_size=4))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(html=TABLE)
def test_a_table_s_spans_are_fitted_as_a_reading_of_each_row_and_column_fits_them(html: str) -> None:
    """A pasted table's cells are placed, their spans clipped and its short rows filled as the table model
    read cell by cell and column by column does it, whatever its spans (down to the group's end, past it,
    over a cell spanning down from above, past every column)."""
    new_root, new_tables = _tables_of(html)
    old_root, old_tables = _tables_of(html)
    for table in new_tables:
        tables.fit_spans(table)
    for table in old_tables:
        _fit_spans_column_by_column(table)
    assert html_tree._serialised(new_root) == html_tree._serialised(old_root)


def test_a_table_of_thousands_of_rows_each_spanning_to_its_end_is_shown_whole() -> None:
    """Each row's cell spans a thousand columns down to the group's end: each begins after those above it, its
    colspan clipped to the one column it begins, and each row but the last ends in an empty cell under the
    columns of the rows below."""
    renderer = MarkdownRenderer(resolve=lambda kind, target: f"/{target}/")
    html = str(renderer.html("<table>" + '<tr><td colspan="1000" rowspan="0">x</td></tr>' * 2000 + "</table>"))
    assert html.startswith('<table><tbody><tr><td rowspan="0">x</td><td colspan="1999"></td></tr>'
                           '<tr><td rowspan="0">x</td><td colspan="1998"></td></tr>')
    assert html.endswith('<tr><td rowspan="0">x</td><td></td></tr><tr><td rowspan="0">x</td></tr></tbody></table>')
    assert html.count("<td") == 3999


def _unwrap_level_by_level(order: list[html_tree._Element]) -> None:
    """`conformance._unwrap_phrasing_around_blocks` as it was: each element unwrapped into its parent, children
    first, so that the words of thousands of nested paragraphs were copied into every level above."""
    holds_block: dict[int, bool] = {}
    for element in reversed(order):
        children: list[html_tree._Element | str] = []
        block = False
        for child in element.children:
            if isinstance(child, html_tree._Element) and child.name in conformance._PHRASING_ONLY \
                    and holds_block.get(id(child)):
                children.extend(child.children)
                block = True
                continue
            children.append(child)
            if isinstance(child, html_tree._Element):
                block = block or child.name in conformance._FLOW_ONLY \
                    or child.name in conformance._TRANSPARENT and holds_block.get(id(child), False)
        element.children = children
        holds_block[id(element)] = block


def _conform_level_by_level(html: str) -> str:
    """`conformance.conform` with its inline elements around blocks unwrapped level by level, and the links left
    empty dropped from the elements left in the page."""
    builder = html_tree._TreeBuilder()
    builder.feed(html)
    builder.close()
    order, stack = [], [builder.root]
    while stack:
        element = stack.pop()
        order.append(element)
        if element.name in ("dl", "details") and conformance._made_block(element):
            element.name, element.start = "div", "<div>"
            for child in element.elements():
                if child.name in ("dt", "dd", "summary"):
                    child.name, child.start = "div", "<div>"
        element.children = conformance._fixed_children(element)
        stack.extend(element.elements())
    _unwrap_level_by_level(order)
    in_page, pending = set(), [builder.root]
    while pending:
        element = pending.pop()
        in_page.add(id(element))
        pending.extend(element.elements())
    conformance._drop_links_left_empty([element for element in order if id(element) in in_page])
    conformance._fit_contexts(builder.root)
    return html_tree._serialised(builder.root)


NESTING = st.lists(st.sampled_from([
    "<span>", "</span>", "<em>", "</em>", "<b>", "<p>", "</p>", "<object>", "<ul>", "<li>", "</ul>", "<div>",
    "</div>", "<h3>", "<a href=\"/x\">", "<a href=\"/y\">", "</a>", "<a href=\"/x\"></a>", "<ins>", "</ins>",
    "<blockquote>", "<table><tr><td>", "<dl><dt>", "<details>", "<summary>", "x", " ", "y z"]), max_size=50)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=NESTING)
def test_inline_elements_around_blocks_are_unwrapped_as_level_by_level(pieces: list[str]) -> None:
    """A paste whose inline elements hold paragraphs, lists or links around them is made valid as unwrapping
    each level into the one above makes it, however deep the nesting."""
    html = _html_cleaner().clean("".join(pieces))
    assert conformance.conform(html) == _conform_level_by_level(html)


def test_an_empty_link_a_paragraph_leaves_goes_alike_with_or_without_a_span_around() -> None:
    """Of two empty links before a paragraph that a copy of them opens, the one HTML left goes and the one the
    editor wrote stays (for `check` to warn of), whether or not a <span> holds the paragraphs."""
    renderer = MarkdownRenderer(resolve=lambda kind, target: f"/{target}/")
    paragraphs = '<p>a<a href="/x"></a><a href="/x"></a></p><p><a href="/x">b</a></p>'
    shown = '<p>a<a href="/x"></a></p><p><a href="/x">b</a></p>'
    assert str(renderer.html(f"<div>{paragraphs}</div>")) == shown
    assert str(renderer.html(f"<div><span>{paragraphs}</span></div>")) == shown
    assert str(renderer.html(f"<div><span><span>{paragraphs}</span></span></div>")) == shown


def _fixed_children_looking_up_last_each_time(parent: html_tree._Element) -> list[html_tree._Element | str]:
    """`conformance._fixed_children` as it was: a figure's last child looked up again for each caption in it."""
    children: list[html_tree._Element | str] = []
    for child in parent.children:
        if isinstance(child, html_tree._Element) \
                and conformance._misplaced(child, parent, children, conformance._last(parent)):
            child.name, child.start = "div", "<div>"
        elif isinstance(child, html_tree._Element) and child.name == "img" \
                and not conformance._SRC.search(child.start):
            child = conformance._alt_text(child.start)
        children.append(child)
    return conformance._in_items(children) if parent.name in ("ul", "ol") else children


FIGURE = st.lists(st.sampled_from(["<figcaption>c</figcaption>", "<figcaption></figcaption>", "<img src=\"a.png\">",
                                   "<img alt=\"x\">", "<p>x</p>", "x", " ", "\n", "<li>i</li>",
                                   "<summary>s</summary>"]),
                  max_size=12).map(lambda pieces: "<figure>" + "".join(pieces) + "</figure>")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(html=FIGURE)
def test_a_figure_s_captions_are_placed_as_when_its_last_child_is_looked_up_for_each(html: str) -> None:
    """A figure's captions stay where HTML5 allows one (first or last, one only) and become blocks elsewhere,
    as a look for its last child at each caption finds, however many it holds."""
    new_root, old_root = (_tables_of(html)[0] for _ in range(2))
    new_figure, old_figure = new_root.elements()[0], old_root.elements()[0]
    new_figure.children = conformance._fixed_children(new_figure)
    old_figure.children = _fixed_children_looking_up_last_each_time(old_figure)
    assert html_tree._serialised(new_root) == html_tree._serialised(old_root)
