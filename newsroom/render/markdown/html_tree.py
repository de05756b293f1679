"""The cleaner's output as a tree of elements and back (see conformance.py, which puts each element where
HTML5 allows it, and tables.py)."""

from __future__ import annotations

from html.parser import HTMLParser

_VOID = frozenset({"br", "hr", "img", "wbr"})


class _Element:
    __slots__ = ("name", "start", "children")

    def __init__(self, name: str, start: str) -> None:
        self.name, self.start, self.children = name, start, []

    def elements(self) -> list[_Element]:
        return [child for child in self.children if isinstance(child, _Element)]

    def holds_text(self) -> bool:
        return any(isinstance(child, str) and child.strip() for child in self.children)


class _TreeBuilder(HTMLParser):
    """The cleaner's output as a tree: every element it writes is closed, so the tree is the document's."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.root = _Element("", "")
        self.open = [self.root]

    def handle_starttag(self, tag: str, attrs: object) -> None:
        element = _Element(tag, self.get_starttag_text() or f"<{tag}>")
        self.open[-1].children.append(element)
        if tag not in _VOID:
            self.open.append(element)

    def handle_endtag(self, tag: str) -> None:
        if len(self.open) > 1 and self.open[-1].name == tag:
            self.open.pop()

    def handle_data(self, data: str) -> None:
        self.open[-1].children.append(data.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))

    def handle_entityref(self, name: str) -> None:
        self.open[-1].children.append(f"&{name};")

    def handle_charref(self, name: str) -> None:
        self.open[-1].children.append(f"&#{name};")


def _serialised(root: _Element) -> str:
    out: list[str] = []
    stack: list[_Element | str] = list(reversed(root.children))
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out.append(node)
            continue
        out.append(node.start)
        if node.name not in _VOID:
            stack.append(f"</{node.name.rstrip('*')}>")
            stack.extend(reversed(node.children))
    return "".join(out)
