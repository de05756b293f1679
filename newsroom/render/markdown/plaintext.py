"""Plain text of Markdown: for meta descriptions, search and feeds (`plain_text`), and wrapped with
links' marks for an email's text part (`reading_text`)."""

from __future__ import annotations

import re
import secrets
import textwrap
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from newsroom.render.markdown.cleaning import raw_html_text
from newsroom.render.markdown.images import alt_text
from newsroom.render.markdown.links import LinkResolver, _classify
from newsroom.render.markdown.memo import _STORES, PLAIN_ON_THE_SPOT, text_key
from newsroom.render.markdown.parsing import (_SPACES, DEFAULT_MAX_NESTING, _link_text_parser, _parse, _parser, _Prose,
                                              _prose, _prose_plain)


def plain_text(text: str, *, max_nesting: int = DEFAULT_MAX_NESTING) -> str:
    """Readable plain text of `text` (memoised: pages ask for the same definitions again and again).

    See `_plain_text`.
    """
    store = _STORES[-1].get("plain") if _STORES and max_nesting == DEFAULT_MAX_NESTING else None
    if store is None or (len(text) < PLAIN_ON_THE_SPOT and _prose(text) is not None):
        return _plain_text(text, max_nesting)
    key = text_key(text)
    known = store.get(key)
    if known is None:
        known = _plain_text(text, max_nesting)
        store.put(key, known)
    return known


@lru_cache(maxsize=1 << 16)
def _plain_text(text: str, max_nesting: int) -> str:
    """Readable plain text of `text` for email text parts, meta descriptions and search.

    No markup; links show their text, images their alt text (one without is decoration, and goes with
    the space before the punctuation after it), citations are dropped, list items start
    with "- " or "n. ", table rows join their cells with " | ", and blocks are
    separated by a blank line. The result is text, not HTML: escape it on output.
    """
    md = _parser(max_nesting)
    return _plain_in(md, _parse(md, text), text)


def _plain_in(md: MarkdownIt, tokens: list[Token] | _Prose, text: str) -> str:
    """The plain text of `text` parsed into `tokens` (it edits text tokens: use them for nothing after)."""
    if isinstance(tokens, _Prose):
        return _prose_plain(tokens)
    if any(child.type == "text" and ("](" in child.content or "]:" in child.content)
           for token in tokens if token.type == "inline" for child in token.children or ()):
        # A link markdown-it refused (`[text](javascript:…)`, `[text]: data:…`) stays Markdown: read its text.
        md = _link_text_parser(md.options["maxNesting"])
        tokens = _parse(md, text, as_prose=False)
    writer = _PlainText(md, raw_html="<" in text)
    for token in tokens:
        writer.feed(token)
    return "\n\n".join(writer.blocks)


@dataclass(frozen=True)
class TextMarks:
    """How `reading_text` shows where a text points: `link(href)` gives the mark read after a link's text,
    from its final href (an internal link resolved by `resolve`), `citation(n)` the mark read in place of
    citation `[n]`; None leaves the link as its text and drops the citation, as `plain_text` does."""

    resolve: LinkResolver
    link: Callable[[str], str | None]
    citation: Callable[[int], str | None] = lambda number: None


def reading_text(text: str, *, width: int, marks: TextMarks | None = None,
                 max_nesting: int = DEFAULT_MAX_NESTING) -> str:
    """Plain text of `text` to be read as it is, as in an email's text part: `plain_text`'s blocks with
    each paragraph wrapped at `width` and each list item under a hanging indent (a long word or URL is
    never broken; code keeps its lines), and each link followed by its mark (see `TextMarks`)."""
    md = _link_text_parser(max_nesting)  # a link the pages show as its Markdown reads as its text (no mark)
    writer = _PlainText(md, width=width, marks=marks, raw_html="<" in text)
    for token in _parse(md, text, as_prose=False):
        writer.feed(token)
    return "\n\n".join(writer.blocks)


#: What stands for a link's mark until its text is read whole (`_PlainText._deferred`): no text holds it.
_PENDING = "\ue000" + secrets.token_hex(6)
_PENDING_MARK = re.compile(re.escape(_PENDING) + "([0-9]+)\ue001")


@dataclass
class _PlainText:
    """Collects the plain-text blocks of a token stream; a whole list or table is one block."""

    md: MarkdownIt
    blocks: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # of the open top-level list or table
    lists: list[bool] = field(default_factory=list)  # per open list: is it ordered?
    marker: str = ""  # of the list item whose first line is still to come
    cells: list[str] | None = None  # of the open table row
    width: int = 0  # wrap text at this width (see `reading_text`); 0 keeps each paragraph on one line
    hangs: list[int] = field(default_factory=list)  # per open list: the width of its open item's marker
    marks: TextMarks | None = None  # what links are followed by (see `reading_text`)
    quotes: list[int | None] = field(default_factory=list)  # per open quote: its first block (None: not marked)
    raw_html: bool = True  # whether the text may hold raw HTML (a `<`), whose tags `_unwrapped` may take out
    pending: list[tuple[Token, list[Token]]] = field(default_factory=list)  # links whose marks wait (`_deferred`)

    def feed(self, token: Token) -> None:
        kind = token.type
        if kind in ("blockquote_open", "blockquote_close"):
            self._quote(kind == "blockquote_open")
        if kind in ("bullet_list_open", "ordered_list_open"):
            self.lists.append(kind == "ordered_list_open")
            self.hangs.append(2)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            self.lists.pop()
            self.hangs.pop()
        elif kind == "list_item_open":
            self.marker = f"{token.info}{token.markup} " if self.lists[-1] else "- "
            self.hangs[-1] = len(self.marker)
        elif kind == "tr_open":
            self.cells = []
        elif kind == "tr_close" and self.cells is not None:
            self.lines.append(" | ".join(self.cells))
            self.cells = None
        elif kind == "inline":
            self._add(self._inline_text(token.children or []))
        elif kind in ("fence", "code_block"):
            self._add(token.content.rstrip("\n"), code=True)
        elif kind == "html_block":
            self._add(self._marked(raw_html_text(token.content, self._raw_link_mark if self.marks else None).strip()))
        if kind in ("bullet_list_close", "ordered_list_close", "table_close") and not self.lists:
            block = "\n".join(line.rstrip() for line in self.lines).strip("\n")
            self.blocks.extend([block] if block else [])
            self.lines = []

    def _quote(self, opening: bool) -> None:
        """Wrapped text (`reading_text`) marks a quote's lines with "> ", as mail does: read as the text around
        it, a quote would be taken for the editor's own words. (A quote in a list item stays unmarked.)"""
        if opening:
            marked = self.width > 20 and not self.lists  # room left to wrap in, however deep the quotes
            self.quotes.append(len(self.blocks) if marked else None)
            self.width -= 2 if marked else 0
            return
        start = self.quotes.pop() if self.quotes else None
        if start is None:
            return
        self.width += 2
        quote = "\n\n".join(self.blocks[start:])
        self.blocks[start:] = ["\n".join(f"> {line}".rstrip() for line in quote.split("\n"))] if quote else []

    def _add(self, text: str, *, code: bool = False) -> None:
        if self.cells is not None:
            self.cells.append(text)
        elif self.lists:
            indent = "  " * (len(self.lists) - 1)
            first, *rest = text.split("\n")
            if self.width and not code:
                hang = indent + " " * self.hangs[-1]
                self.lines.extend(self._wrapped(first, indent + self.marker if self.marker else hang, hang))
                self.lines.extend(wrapped for line in rest for wrapped in self._wrapped(line, hang, hang))
            else:
                self.lines.append(indent + (self.marker or "  ") + first)
                self.lines.extend(indent + "  " + line for line in rest)
            self.marker = ""
        elif text and self.width and not code:
            self.blocks.append("\n".join(wrapped for line in text.split("\n")
                                         for wrapped in self._wrapped(line, "", "")))
        elif text:
            self.blocks.append(text)

    def _wrapped(self, line: str, first: str, hang: str) -> list[str]:
        """`line` wrapped at the width, after `first` and then `hang`; words (URLs too) are never broken."""
        return textwrap.wrap(line, self.width, initial_indent=first, subsequent_indent=hang,
                             break_long_words=False, break_on_hyphens=False) or [first.rstrip()]

    def _inline_text(self, children: list[Token]) -> str:
        """The text of one inline run: citations (and the space before them) dropped, tags stripped; with
        `marks`, each link followed by its mark, each citation read as its mark if it has one, and each image
        read as its alt text and mark."""
        kept: list[Token] = []
        opened: list[tuple[Token, int]] = []  # per open link: its link_open and where its text starts in `kept`
        decoration = -1  # the length of `kept` when a decorative image was dropped
        for token in children:
            mark = self.marks.citation(token.meta["number"]) if self.marks and token.type == "citation" else None
            if mark is not None:
                kept.append(Token("text", "", 0, content=mark))
                continue
            if token.type == "citation":
                if kept and kept[-1].type == "text":
                    kept[-1].content = kept[-1].content.rstrip(" \t")
                continue
            if token.type == "image":
                # Read as its alt text, as a screen reader reads it (plain text, an email, shows no image); with
                # `marks`, followed by the image's mark unless it stands in a link; without alt text it is
                # decoration.
                alt = alt_text(token.children)
                if alt.strip():
                    kept.append(Token("text", "", 0, content=alt))
                    if self.marks is not None and not opened:
                        image = Token("link_open", "a", 1, attrs={"href": str(token.attrGet("src") or "")})
                        kept.append(Token("text", "", 0, content=self._deferred(image, [])))
                else:
                    decoration = len(kept)  # no space left before the punctuation after it
                continue
            if decoration == len(kept) and token.type == "text" and closes_a_word(token.content[:1]) \
                    and kept and kept[-1].type == "text":
                kept[-1].content = kept[-1].content.rstrip(" \t")
            if self.marks is not None and token.type == "link_open":
                opened.append((token, len(kept)))
                continue  # read as its text and its mark: as an <a>, it would be taken for a raw link
            if token.type == "link_close" and opened:
                link, start = opened.pop()
                if any(part.content.strip() for part in kept[start:] if part.type in ("text", "code_inline")):
                    kept.append(Token("text", "", 0, content=self._deferred(link, kept[start:])))
                else:
                    del kept[start:]  # nothing left to read in it (a decorative image's link): no mark alone
                continue
            kept.append(Token("text", "", 0, content=" ") if token.type == "softbreak" else token)
        html = self.md.renderer.render([Token("inline", "", 0, children=kept)], self.md.options, {})
        # Dropped raw HTML (a <script>, say) leaves its surrounding spaces behind.
        text = raw_html_text(html, self._raw_link_mark if self.marks else None, unwrap=self.raw_html)
        return self._marked(_SPACES.sub(" ", text).strip())

    def _deferred(self, link: Token, text: list[Token]) -> str:
        """What stands for the mark after the link `link` opens, whose `text` is read, until the text it is in
        is read whole (`_marked`)."""
        self.pending.append((link, text))
        return f"{_PENDING}{len(self.pending) - 1}\ue001"

    def _raw_link_mark(self, href: str, text: str) -> str:
        """What stands for the mark after a link of raw HTML (an `<a href>`, an embed's link) whose `text` is read:
        the mark after a Markdown link of that text (see `_deferred`)."""
        return self._deferred(Token("link_open", "a", 1, attrs={"href": href}), [Token("text", "", 0, content=text)])

    def _marked(self, text: str) -> str:
        """`text` with each link's mark in its place, each asked for in the order the links are read, raw HTML's
        and Markdown's alike (a mark numbers a link the first time it is asked for one)."""
        if not self.pending:
            return text

        def mark(match: re.Match[str]) -> str:
            link, words = self.pending[int(match.group(1))]
            found = self._link_mark(self.marks, link, words)
            return f" {found}" if found is not None else ""

        marked = _PENDING_MARK.sub(mark, text)
        self.pending.clear()
        return marked

    @staticmethod
    def _link_mark(marks: TextMarks | None, token: Token, text: list[Token]) -> str | None:
        """The mark after the link `token` opens, whose `text` is read; none for a link the HTML shows as text
        only (see `_prepare_link`), nor for one that reads as its own address (`<https://…>`, `[x@y.org](mailto:…)`,
        `[example.org](https://example.org/)`): the address is there to read, and a mark would list it twice."""
        if marks is None:
            return None
        href = str(token.attrGet("href") or "")
        link = _classify(href)
        if link.treatment == "outside":
            shown = "".join(part.content for part in text if part.type in ("text", "code_inline")).strip().rstrip("/")
            bare = re.sub(r"^(?:https?:)?//", "", href.rstrip("/"), flags=re.IGNORECASE)  # "example.org/x"
            if token.markup == "autolink" or shown and shown in (href.rstrip("/"), bare, href.removeprefix("mailto:")):
                return None
        if link.treatment == "internal":
            resolved = marks.resolve(link.kind, link.target) if link.target is not None else None
            return marks.link(resolved) if resolved is not None else None
        return marks.link(href) if link.treatment != "refused" else None


def closes_a_word(character: str) -> bool:
    """Whether `character` is punctuation that follows a word without a space: `.`, `,`, `)`, `”`, …"""
    return bool(character) and unicodedata.category(character) in ("Po", "Pe", "Pf")
