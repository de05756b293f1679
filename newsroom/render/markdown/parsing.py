"""markdown-it's parser with the `[n]` citation rule and headings below the title, and the plain-prose
path that stands in for it (tokens, HTML and plain text of prose without markdown-it)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from newsroom.render.markdown.images import render_image

DEFAULT_MAX_NESTING = 20

_CITATION = re.compile(r"\[([0-9]{1,9})\]")  # at most 9 digits: int() of any length is a DoS
_SURROGATE = re.compile("[\ud800-\udfff]")
_SPACES = re.compile(r"[ \t]{2,}")


def _citation_rule(state: StateInline, silent: bool) -> bool:
    """`[n]` that is not a link: runs after markdown-it's `link` rule, so real links win.

    Silent (validation) mode is only used to scan link labels; matching there
    would make "[see [4]](url)" look like a nested link and break it.
    """
    if silent or state.linkLevel > 0 or state.src[state.pos] != "[":
        return False  # inside link text a citation mark would nest <a> in <a>
    match = _CITATION.match(state.src, state.pos, state.posMax)
    if match is None:
        return False
    end = match.end()
    if end < state.posMax and state.src[end] == "(":
        return False  # "[4](…)" that failed as a link (e.g. a refused URL) is not a citation either
    token = state.push("citation", "", 0)
    token.content = match.group(0)
    token.meta = {"number": int(match.group(1))}
    state.pos = end
    return True


def _render_citation(self: object, tokens: list[Token], idx: int, options: object, env: object) -> str:
    token = tokens[idx]
    html = _citation_html(token.content, token.meta["number"], token.meta.get("href"), token.meta.get("id", ""))
    # `[1][2]`: two marks side by side read as "12"; a space keeps them apart ("1 2"), as the seed shows them.
    apart = idx > 0 and tokens[idx - 1].type == "citation" and token.meta.get("href") is not None
    return " " + html if apart else html


def _citation_html(content: str, number: int, href: str | None, anchor: str) -> str:
    if href is None:
        return escapeHtml(content)
    return f'<sup class="cite"><a href="{escapeHtml(href)}" id="{anchor}">{number}</a></sup>'


@lru_cache(maxsize=8)
def _parser(max_nesting: int) -> MarkdownIt:
    """CommonMark with raw HTML (cleaned later by nh3), tables, strikethrough and citations.

    Built once per nesting limit: building one costs about a millisecond (rule
    introspection), more than parsing a typical text. A parser keeps no state
    between `parse` calls, so sharing it is safe.
    """
    return _new_parser(max_nesting)


def _new_parser(max_nesting: int) -> MarkdownIt:
    """CommonMark with raw HTML (cleaned later by nh3), tables, strikethrough and citations."""
    if max_nesting < 1:
        raise ValueError(f"max_nesting must be at least 1, not {max_nesting}")
    md = MarkdownIt("commonmark", {"html": True, "maxNesting": max_nesting})
    md.enable(["table", "strikethrough"])
    md.inline.ruler.after("link", "citation", _citation_rule)
    md.add_render_rule("citation", _render_citation)
    md.add_render_rule("image", render_image)
    md.core.ruler.push("headings_below_the_title", _headings_below_the_title)
    return md


def _headings_below_the_title(state: StateCore) -> None:
    """A text's `# Heading` is an <h2>: every page has its own <h1> (its title), and a second one would
    break the page's outline (screen readers navigate by it). Raw HTML's <h1> the cleaner drops."""
    for token in state.tokens:
        if token.tag == "h1" and token.type in ("heading_open", "heading_close"):
            token.tag = "h2"


@lru_cache(maxsize=4)
def _link_text_parser(max_nesting: int) -> MarkdownIt:
    """`_parser` that takes a link of any scheme for a link, for plain text, which writes no href: markdown-it
    leaves `[text](javascript:…)` as its Markdown, brackets and all, where plain text reads its text only."""
    md = _new_parser(max_nesting)
    md.validateLink = lambda url: True
    return md


@lru_cache(maxsize=4)
def _scanner(max_nesting: int) -> MarkdownIt:
    """A shared parser for `find_references` (parsing keeps no state in it; building one is slow)."""
    return _parser(max_nesting)


def _parse(md: MarkdownIt, text: str, *, inline: bool = False, as_prose: bool = True) -> list[Token] | _Prose:
    """`text`'s tokens, or (if `as_prose`) its paragraphs when it is plain prose (see `prose_tokens`)."""
    if as_prose and not inline and md is _parser(DEFAULT_MAX_NESTING):
        prose = _prose(text)
        if prose is not None:
            return prose
    text = _SURROGATE.sub("\ufffd", text)  # lone surrogates cannot cross into nh3 (Rust strings)
    return md.parseInline(text, {}) if inline else md.parse(text, {})


#: What makes a text more than plain prose for `prose_tokens`, in searches that each scan fast: a
#: character of Markdown or HTML syntax, or one that `\s` knows but space and newline (tabs, other
#: line breaks; Python's `strip` would take no-break spaces too), a control character, a surrogate or
#: a byte order mark (the sanitiser's HTML parser drops one that starts a text); a line that could
#: start a block other than a paragraph (or continue one with a table's delimiter row); a `[` that
#: starts no citation, or one followed by `(` or `[` (the link rule tries those first); `![`; a space
#: at the end of a line.
_NOT_PROSE_CHAR = re.compile("[\\\\&<>`~*_|\x00-\x09\x0b-\x1f\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
                             "\ud800-\udfff\ufeff]")
_NOT_PROSE_LINE = re.compile(r"\n(?:[ #>+=:\-\[]|[0-9]+[.)])")
_NOT_CITATION = re.compile(r"\[(?![0-9]{1,9}\](?![(\[]))")


def prose_tokens(text: str) -> list[Token] | None:
    """The tokens markdown-it (with the citation rule) makes of `text` if it is plain prose, else None.

    Plain prose is paragraphs of text and `[n]` citations, lines joined by single newlines, with no
    character of Markdown or HTML syntax (see `_NOT_PROSE_CHAR`). Many story and entry texts are just
    that, and markdown-it-py spends far more on finding it out (each block and inline rule tries each
    line and terminator) than this does; anything else goes to markdown-it. The build itself works on
    the prose's lines (`_prose`), without token objects; a property test holds the two to the same
    HTML, plain text and references, and these tokens to markdown-it's own.
    """
    prose = _prose(text)
    if prose is None:
        return None
    return [token for first, end, lines in prose.paragraphs
            for token in _prose_paragraph([line if isinstance(line, str) else _joined(line) for line in lines],
                                          first, end)]


@dataclass(frozen=True)
class _Prose:
    """Plain prose (see `prose_tokens`) as its paragraphs: (first line, end line, the lines). A line with
    citations is split once, as `_CITATIONS.split` splits it: text, then `[n]`, n and text again."""

    paragraphs: list[tuple[int, int, list[str | list[str]]]]

    def citations(self) -> tuple[int, ...]:
        return tuple(int(line[index]) for _, _, lines in self.paragraphs for line in lines if isinstance(line, list)
                     for index in range(2, len(line), 3))

    def one_paragraph(self, text: str) -> bool:
        """Whether `text` is exactly one paragraph (its inline parse is then that paragraph's content)."""
        return len(self.paragraphs) == 1 and self.paragraphs[0][:2] == (0, text.count("\n") + 1)


def _joined(pieces: list[str]) -> str:
    """A split line (see `_Prose`) as it was."""
    return "".join(piece for index, piece in enumerate(pieces) if index % 3 != 2)


#: Splits a line of prose at its citations, keeping each (`[n]`) and its number.
_CITATIONS = re.compile(r"(\[([0-9]{1,9})\])")


def _prose(text: str) -> _Prose | None:
    """`text` as plain prose, or None when it is anything else (see `prose_tokens`)."""
    if (_NOT_PROSE_CHAR.search(text) is not None or " \n" in text or text.endswith(" ") or "![" in text
            or _NOT_PROSE_LINE.search("\n" + text) is not None
            or ("[" in text and _NOT_CITATION.search(text) is not None)):
        return None
    paragraphs: list[tuple[int, int, list[str | list[str]]]] = []
    lines: list[str | list[str]] = [line if "[" not in line else _CITATIONS.split(line) for line in text.split("\n")]
    first = -1  # the open paragraph's first line
    for index, line in enumerate([*lines, ""]):
        if line and first < 0:
            first = index
        elif not line and first >= 0:
            paragraphs.append((first, index, lines[first:index]))
            first = -1
    return _Prose(paragraphs)


def _prose_html(prose: _Prose, prefix: str, citation_href: Callable[[int], str] | None,
                escape: Callable[[str], str] = escapeHtml) -> str:
    """What markdown-it's renderer makes of the prose's tokens, once `_prepare_inline` numbered the
    citations (with `escape=str`, what the cleaner then makes of it: see `MarkdownRenderer._render`)."""
    counts: dict[int, int] = {}
    parts: list[str] = []
    for _, _, lines in prose.paragraphs:
        parts.append("<p>")
        for index, line in enumerate(lines):
            if index:
                parts.append("\n")  # a softbreak
            if isinstance(line, str):
                parts.append(escape(line))
                continue
            for at in range(0, len(line), 3):
                if line[at]:
                    parts.append(escape(line[at]))
                elif at and at + 1 < len(line) and citation_href:
                    parts.append(" ")  # two marks side by side kept apart (see `_render_citation`)
                if at + 1 < len(line):
                    number = int(line[at + 2])
                    counts[number] = counts.get(number, 0) + 1
                    parts.append(_citation_html(line[at + 1], number, citation_href(number) if citation_href else None,
                                                f"{prefix}-{number}-{counts[number]}"))
        parts.append("</p>\n")
    return "".join(parts)


def _prose_plain(prose: _Prose) -> str:
    """What `_PlainText` makes of the prose's tokens: its `_inline_text` without the markup round trip,
    which changes nothing in prose (no `&`, `<`, `>`, no-break space or control character in it)."""
    blocks: list[str] = []
    for _, _, lines in prose.paragraphs:
        kept: list[str] = []
        for index, line in enumerate(lines):
            if index:
                kept.append(" ")  # a softbreak
            if isinstance(line, str):
                kept.append(line)
                continue
            for at in range(0, len(line), 3):
                if line[at]:
                    kept.append(line[at])
                if at + 1 < len(line) and kept:  # citations (and the space before them) are dropped
                    kept[-1] = kept[-1].rstrip(" \t")
        text = "".join(kept)
        text = (_SPACES.sub(" ", text) if "  " in text else text).strip()  # prose has no tab
        if text:
            blocks.append(text)
    return "\n\n".join(blocks)


def _prose_paragraph(lines: list[str], first: int, end: int) -> list[Token]:
    """A paragraph's three tokens, as markdown-it makes them (see `prose_tokens`)."""
    children: list[Token] = []
    for index, line in enumerate(lines):
        if index:
            children.append(Token("softbreak", "br", 0))
        done = 0
        for match in _CITATION.finditer(line):
            if match.start() > done:
                children.append(Token("text", "", 0, content=line[done:match.start()]))
            children.append(Token("citation", "", 0, content=match.group(0), meta={"number": int(match.group(1))}))
            done = match.end()
        if done < len(line):
            children.append(Token("text", "", 0, content=line[done:]))
    return [Token("paragraph_open", "p", 1, map=[first, end], block=True),
            Token("inline", "", 0, map=[first, end], level=1, children=children, content="\n".join(lines),
                  block=True),
            Token("paragraph_close", "p", -1, block=True)]
