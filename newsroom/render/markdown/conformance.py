"""What an editor's raw HTML may hold that the allow-list keeps but HTML5 does not allow, made valid.

nh3 keeps allowed tags and attributes wherever they are written; the page then fails the Nu HTML Checker
(and a browser guesses): `<li>` outside a list, `<summary>` outside `<details>`, a `<details>` without its
`<summary>`, text in a `<ul>` or a `<dl>` that is no list of terms, a list inside a `<span>`, an `<img>`
whose URL the cleaner left out, a `lang` that is no language tag, `colspan="0"`, `start="one"`, a URL
with a space, a <dfn> in a <dfn>, a list in a <summary>, a heading in a <dt>, a table in a <caption>, a
`colspan` past a table's columns (`tables.fit_spans`), a paste nested deeper than browsers keep a tree, the
empty link HTML leaves where a raw link around a paragraph opened.
`attribute_value` (the cleaner's attribute filter, in attributes.py) keeps a value HTML5 allows, mends a URL,
and drops the rest; `conform` rewrites the cleaner's output (read as a tree by html_tree.py) so that each
element sits where it may, keeping every word of it. Markdown's own HTML needs neither: markdown-it writes
only valid structure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from newsroom.render.markdown.html_tree import _VOID, _Element, _serialised, _TreeBuilder
from newsroom.render.markdown.tables import fit_spans

#: Elements whose content is phrasing only (text and inline elements); a list, table or heading in one is not
#: allowed, so the element's tags go and its content stays. `a`, `ins` and `del` take their parent's model.
_PHRASING_ONLY = frozenset("""abbr b cite code dfn em h2 h3 h4 h5 h6 i kbd mark p pre q s samp small span
    strong sub sup var""".split())
_TRANSPARENT = frozenset({"a", "ins", "del"})
#: Elements that are flow content only: not allowed where only phrasing content is.
_FLOW_ONLY = frozenset("""blockquote details dl figure h2 h3 h4 h5 h6 hr ol p pre table ul div""".split())

_SRC = re.compile(r'\ssrc="')
_ALT = re.compile(r'\salt="([^"]*)"')
_GROUPS = re.compile(r"(?:(?:t)+(?:d)+)+\Z")  # a <dl>'s children: groups of terms (t) and descriptions (d)


def _fixed_children(parent: _Element) -> list[_Element | str]:
    """`parent`'s children, each element where it may be: a misplaced one made a block (<div>), a list's
    stray content put in items, an image without a source (its URL was left out) shown as its alt text."""
    children: list[_Element | str] = []
    last = _last(parent)  # once: a <figure> may hold thousands of captions
    for child in parent.children:
        if isinstance(child, _Element) and _misplaced(child, parent, children, last):
            child.name, child.start = "div", "<div>"  # a block of its own, as it was shown
        elif isinstance(child, _Element) and child.name == "img" and not _SRC.search(child.start):
            child = _alt_text(child.start)  # an image of nothing: its text
        children.append(child)
    if parent.name in ("ul", "ol"):
        return _in_items(children)
    return children


def _alt_text(start_tag: str) -> str:
    """An image's alt text as text: the cleaner's serialiser escapes `&` and `"` in a value, not `<` or `>`."""
    alt = _ALT.search(start_tag)
    return alt.group(1).replace("<", "&lt;").replace(">", "&gt;") if alt else ""


def _misplaced(child: _Element, parent: _Element, before: list[_Element | str], last: _Element | str | None) -> bool:
    started = any(isinstance(node, _Element) or node.strip() for node in before)
    if child.name == "li":
        return parent.name not in ("ul", "ol")
    if child.name in ("dt", "dd"):
        return parent.name != "dl"
    if child.name == "summary":
        return parent.name != "details" or started
    if child.name == "figcaption":
        return parent.name != "figure" or (started and child is not last) \
            or any(isinstance(node, _Element) and node.name == "figcaption" for node in before)
    return False


def _last(parent: _Element) -> _Element | str | None:
    meaningful = [node for node in parent.children if isinstance(node, _Element) or node.strip()]
    return meaningful[-1] if meaningful else None


def _in_items(children: list[_Element | str]) -> list[_Element | str]:
    items: list[_Element | str] = []
    for child in children:
        if isinstance(child, _Element) and child.name == "li" or isinstance(child, str) and not child.strip():
            items.append(child)
        elif items and isinstance(items[-1], _Element) and items[-1].name == "li*":
            items[-1].children.append(child)
        else:
            item = _Element("li*", "<li>")  # an item made here, to which the stray content after it goes too
            item.children.append(child)
            items.append(item)
    return items


def _made_block(element: _Element) -> bool:
    """A <dl> that is no list of terms, a <details> whose first child is no <summary>: a <div>, its terms,
    descriptions and summaries too, each word kept."""
    if element.name == "dl":
        kinds = "".join("t" if child.name == "dt" else "d" if child.name == "dd" else "x"
                        for child in element.elements())
        return element.holds_text() or not _GROUPS.match(kinds)
    if element.name == "details":
        first = next((node for node in element.children if isinstance(node, _Element) or node.strip()), None)
        return not (isinstance(first, _Element) and first.name == "summary")
    return False


#: Raw HTML that may put an element where none may be: a list's, a term list's, a fold's, a figure's or a
#: table's parts, or a block an inline element may not hold (`<em><blockquote>`). Inline raw HTML without
#: them (`<abbr>`, `<span lang>`, `<a href>`) cannot: a paragraph holds it whole, but for a <dfn> in a <dfn>
#: and a nesting deeper than `MAX_DEPTH`.
_MAY_MISPLACE = re.compile(r"<(?:li|dt|dd|summary|figcaption|details|ul|ol|dl|table|caption|thead|tbody|tfoot|tr|td"
                           r"|th|blockquote|pre|p|h[2-6]|figure)[\s/>]", re.IGNORECASE)
_IMAGE_WITHOUT_SOURCE = re.compile(r'<img(?![^>]*\ssrc=")')


def needs_conform(html_blocks: list[str], html_inline: list[str], html: str) -> bool:
    """Whether the cleaner's `html` of a text with these raw HTML blocks and inline tags may need `conform`:
    a block (which may open an inline element around the Markdown after it), a part of a list, term list,
    fold, figure or table, a second <dfn>, inline tags enough to nest too deep, or an image whose URL the
    cleaner left out."""
    return bool(html_blocks) or any(_MAY_MISPLACE.search(part) for part in html_inline) \
        or len(html_inline) >= MAX_DEPTH or sum(part[:4].lower() == "<dfn" for part in html_inline) > 1 \
        or "<img" in html and _IMAGE_WITHOUT_SOURCE.search(html) is not None


def conform(html: str) -> str:
    """The cleaner's `html` with every element where HTML5 allows it (see the module's docstring)."""
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    order: list[_Element] = []  # parents before children, without recursion: raw HTML may nest deep
    stack = [builder.root]
    while stack:
        element = stack.pop()
        order.append(element)
        if element.name in ("dl", "details") and _made_block(element):
            element.name, element.start = "div", "<div>"
            for child in element.elements():
                if child.name in ("dt", "dd", "summary"):
                    child.name, child.start = "div", "<div>"
        element.children = _fixed_children(element)
        stack.extend(element.elements())
    _drop_links_left_empty(_unwrap_phrasing_around_blocks(order))
    _fit_contexts(builder.root)
    return _serialised(builder.root)


def _unwrap_phrasing_around_blocks(order: list[_Element]) -> list[_Element]:
    """An inline element (a <span>, <em>, a heading's text) holding a list, table or paragraph loses its tags, so
    that what it held sits in the block around it; the elements left, in `order`'s order, are returned.

    Whether each holds a block is read children first; then each element left takes its children, those of an
    unwrapped child in its place, once: unwrapped level by level, a paste of thousands of nested paragraphs
    (which the cleaner nests in an <object>'s fallback) copied the words of each level into every one above."""
    holds_block: dict[int, bool] = {}
    unwrapped: set[int] = set()
    for element in reversed(order):
        block = False
        for child in element.elements():
            if child.name in _PHRASING_ONLY and holds_block.get(id(child)):
                unwrapped.add(id(child))
                block = True
            else:
                block = block or child.name in _FLOW_ONLY \
                    or child.name in _TRANSPARENT and holds_block.get(id(child), False)
        holds_block[id(element)] = block
    left = [element for element in order if id(element) not in unwrapped]
    for element in left:
        children: list[_Element | str] = []
        pending = list(reversed(element.children))
        while pending:
            child = pending.pop()
            if isinstance(child, _Element) and id(child) in unwrapped:
                pending.extend(reversed(child.children))
            else:
                children.append(child)
        element.children = children
    return left


def _drop_links_left_empty(elements: list[_Element]) -> None:
    """A raw link around a paragraph or a list in a paragraph (`<a href="…"><p>Text</p></a>`, a paste) is split
    by the parser as by a browser: it is left empty where it opened, at the end of the paragraph the block
    closes, and a copy of it holds the block's words. The empty one, which a screen reader reads as a link with
    no name, goes: the words are the link's name, in the copy (as an <em> around a paragraph is the paragraph's)."""
    for element in elements:
        shown = [child for child in element.children if isinstance(child, _Element) or child.strip()]
        for block, after in zip(shown, shown[1:]):
            if not isinstance(block, _Element) or not isinstance(after, _Element):
                continue
            last = _first_shown(reversed(block.children))
            if isinstance(last, _Element) and last.name == "a" and not last.elements() and not last.holds_text() \
                    and _first_link(after) == last.start:
                block.children.remove(last)


def _first_shown(nodes: Iterable[_Element | str]) -> _Element | str | None:
    """The first of `nodes` that is an element or holds more than spaces."""
    return next((node for node in nodes if isinstance(node, _Element) or node.strip()), None)


def _first_link(element: _Element) -> str | None:
    """The start tag of the link `element` begins with, through its first children, if it begins with one."""
    node: _Element | str | None = element
    while isinstance(node, _Element):
        if node.name == "a":
            return node.start
        node = _first_shown(node.children)
    return None


#: How deep a text's elements nest: deeper, an element's content is its text (browsers flatten a page's tree
#: past 513 levels; a page's own take some twenty).
MAX_DEPTH = 64
_HEADINGS = frozenset({"h2", "h3", "h4", "h5", "h6"})
#: Elements that hold only elements of their own kinds, never text: kept below `MAX_DEPTH` with their parts.
_CONTAINERS = frozenset({"table", "thead", "tbody", "tfoot", "tr", "ul", "ol", "dl", "details"})
#: What a <summary> may not hold (it takes phrasing content and headings): its tags go, a space after it.
_NOT_IN_SUMMARY = _FLOW_ONLY - _HEADINGS | frozenset(
    "li li* dt dd summary figcaption caption thead tbody tfoot tr td th".split())
_TABLE_PARTS = frozenset({"table", "thead", "tbody", "tfoot", "tr"})
#: The context an element gives its descendants: what they may not be (see `_replaced`).
_CONTEXTS = {"dfn": "dfn", "summary": "summary", "dt": "no heading", "th": "no heading", "caption": "caption",
             "a": "link"}


def _replaced(element: _Element, context: frozenset[str]) -> list[_Element | str] | None:
    """What stands for `element` where `context` forbids it (its content, each word kept), or None to keep it:
    a <dfn> in a <dfn>, a heading in a term or a header cell, a paragraph, list, table or a heading
    among other content in a summary, a table in a caption (its cells made blocks), a link or a fold in a
    link (a fold's parts made blocks)."""
    if "dfn" in context and element.name == "dfn" or "no heading" in context and element.name in _HEADINGS:
        return element.children
    if "summary" in context and element.name in _NOT_IN_SUMMARY \
            or "phrasing" in context and element.name in _HEADINGS:
        return [*element.children, " "]
    if "caption" in context and element.name in _TABLE_PARTS:
        return element.children
    if "caption" in context and element.name in ("td", "th", "caption") \
            or "link" in context and element.name in ("details", "summary"):
        element.name, element.start = "div", "<div>"
    if "link" in context and element.name == "a":
        return element.children
    return None


def _fit_contexts(root: _Element) -> None:
    """Each element as its ancestors allow (`_replaced`), no deeper than `MAX_DEPTH`, tables' spans fitted to
    their rows and columns; without recursion: raw HTML may nest deep."""
    stack: list[tuple[_Element, int, frozenset[str]]] = [(root, 0, frozenset())]
    while stack:
        element, depth, context = stack.pop()
        if depth >= MAX_DEPTH and element.name not in _CONTAINERS:
            element.children = [_text_of(element)]
            continue
        if element.name in _CONTEXTS:
            context = context | {_CONTEXTS[element.name]}
        elif "summary" in context:
            context = context | {"phrasing"}  # a heading may stand in a summary itself, not deeper
        children = _allowed(element.children, context)
        if element.name == "summary":
            children = _summary_content(children, context)
        stack.extend((child, depth + 1, context) for child in children if isinstance(child, _Element))
        element.children = children
        if element.name == "table":
            fit_spans(element)


def _allowed(nodes: list[_Element | str], context: frozenset[str]) -> list[_Element | str]:
    """`nodes` with each that `context` forbids replaced by its content (`_replaced`), through every level."""
    allowed: list[_Element | str] = []
    pending = list(reversed(nodes))
    while pending:
        node = pending.pop()
        replacement = _replaced(node, context) if isinstance(node, _Element) else None
        if replacement is None:
            allowed.append(node)
        else:
            pending.extend(reversed(replacement))
    return allowed


def _summary_content(children: list[_Element | str], context: frozenset[str]) -> list[_Element | str]:
    """A summary's content: one heading alone, or phrasing content (any headings among it made text)."""
    while children and children[-1] == " ":
        children.pop()  # the space after its last block
    meaningful = [node for node in children if isinstance(node, _Element) or node.strip()]
    if any(isinstance(node, _Element) and node.name in _HEADINGS for node in meaningful) and len(meaningful) > 1:
        children = _allowed(children, context | {"phrasing"})
        while children and children[-1] == " ":
            children.pop()
    return children


def _text_of(element: _Element) -> str:
    """The text of `element`'s content: an image's alt text for it, a space after each block and line break."""
    out: list[str] = []
    stack: list[_Element | str] = list(reversed(element.children))
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out.append(node)
        elif node.name == "img":
            out.append(_alt_text(node.start))
        elif node.name in _VOID:
            out.append(" ")
        else:
            if node.name not in _PHRASING_ONLY or node.name in _HEADINGS or node.name == "p":
                stack.append(" ")
            stack.extend(reversed(node.children))
    return "".join(out)
