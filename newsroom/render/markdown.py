"""Markdown to safe HTML and plain text, with `[n]` citations and internal links.

Content is untrusted: editors paste text, and Markdown may carry raw HTML. So
markdown-it-py parses (CommonMark + tables + strikethrough), an inline rule turns
`[n]` into citation tokens, a token walk resolves `entry:`/`page:`/`issue:`
links and marks outside links, markdown-it renders, and nh3 (ammonia) cleans
the result against an allow-list. Plain prose — paragraphs of text and
citations, no other syntax — is tokenised, rendered and read as plain text
here, as markdown-it would (a property test holds them equal), at a fraction of
its cost. Nothing here touches a file or a database.

Citation marks render as
`<sup class="cite"><a href="{citation_href(n)}" id="{prefix}-{n}-{k}">n</a></sup>`,
where k counts the occurrences of source n in one rendered text, from 1, in
document order; `citation_backrefs()` lists the same ids for a source list.
Pages that render several texts against one source list pass a distinct
`anchor_prefix` per text so the ids stay unique.
"""

from __future__ import annotations

import hashlib
import html as html_lib
import re
import secrets
import textwrap
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache, partial
from html.parser import HTMLParser
from typing import Any, NamedTuple, Protocol

import nh3
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markupsafe import Markup

DEFAULT_MAX_NESTING = 20
INTERNAL_KINDS = frozenset({"entry", "page", "issue"})
OUTSIDE_SCHEMES = frozenset({"http", "https", "mailto"})
OUTSIDE_REL = "noopener noreferrer"

#: The prose and table set, plus sup, details/summary, abbr and span (with lang).
ALLOWED_TAGS = frozenset("""a abbr b blockquote br caption cite code dd del details dfn dl dt em
    figcaption figure h2 h3 h4 h5 h6 hr i img ins kbd li mark ol p pre q s samp small span strong
    sub summary sup table tbody td tfoot th thead tr ul var wbr""".split())
#: Dropped together with their content: code, styling, embedded documents and forms.
DROPPED_WITH_CONTENT = frozenset("""applet embed frame frameset iframe math noembed noframes noscript
    object script select style svg template textarea title xmp""".split())
_ALIGN_CLASSES = {"align-left", "align-center", "align-right"}

_CITATION = re.compile(r"\[([0-9]{1,9})\]")  # at most 9 digits: int() of any length is a DoS
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
_ISSUE_NUMBER = re.compile(r"[0-9]{1,9}\Z")
_ANCHOR_PREFIX = re.compile(r"[a-z][a-z0-9-]*\Z")
_ANCHOR_ID = re.compile(r"[a-z][a-z0-9-]*-[0-9]+-[0-9]+\Z")
_SURROGATE = re.compile("[\ud800-\udfff]")
_SPACES = re.compile(r"[ \t]{2,}")


class References(NamedTuple):
    """What a Markdown text points at, for `newsroom check`; repeats are kept, in order of appearance.
    (A named tuple: a build looks up the references of every text it renders or checks.)"""

    entries: tuple[str, ...] = ()  # slugs from [x](entry:slug)
    pages: tuple[str, ...] = ()  # slugs from [x](page:slug)
    issues: tuple[int, ...] = ()  # numbers from [x](issue:13)
    citations: tuple[int, ...] = ()  # n from [n]
    # Links that lead nowhere, shown as their text: internal ones whose target is no slug/number
    # ("issue:abc") and ones of a scheme the site does not link ("reference:x", "ftp://…"); see link_problem.
    malformed: tuple[str, ...] = ()


@dataclass(frozen=True)
class SourceAnchors:
    """Citation hrefs into a source list whose items have the ids `{anchor}-{n}`: n → `#{anchor}-{n}`."""

    anchor: str

    def __call__(self, number: int) -> str:
        return f"#{self.anchor}-{number}"


@dataclass(frozen=True)
class SourceUrls:
    """Citation hrefs straight to each source's own address (a reference page: "click one to open the original
    document"): n → the n-th URL; a number past them (which `check` refuses) → the source list's `#source-{n}`."""

    urls: tuple[str, ...]

    def __call__(self, number: int) -> str:
        return self.urls[number - 1] if 1 <= number <= len(self.urls) else f"#source-{number}"


class LinkResolver(Protocol):
    """Maps an internal link (kind in {"entry", "page", "issue"}) to an href, or None if it doesn't exist."""

    def __call__(self, kind: str, target: str) -> str | None: ...


@dataclass(frozen=True)
class _Link:
    """How a Markdown link's href is treated: internal (kind, target), outside, relative or refused."""

    treatment: str
    kind: str = ""
    target: str | None = None  # None for an internal link whose target is malformed


def _classify(href: str) -> _Link:
    match = _SCHEME.match(href)
    if match is None:
        # Protocol-relative "//host/…" leaves the site just like "https://host/…".
        return _Link("outside" if href.startswith("//") else "relative")
    scheme = match.group(1).lower()
    if scheme in OUTSIDE_SCHEMES:
        return _Link("outside")
    if scheme not in INTERNAL_KINDS:
        return _Link("refused")
    target = href[match.end():]
    if scheme == "issue":
        return _Link("internal", scheme, str(int(target)) if _ISSUE_NUMBER.match(target) else None)
    return _Link("internal", scheme, target if _SLUG.match(target) else None)


def link_problem(href: str) -> tuple[str, str]:
    """The severity and message `check` gives a link of `References.malformed`."""
    link = _classify(href)
    if link.treatment == "internal":
        example = "issue:13" if link.kind == "issue" else f"{link.kind}:gpu"
        what = "an issue's number" if link.kind == "issue" else "a slug"
        return "error", f"link {href!r} leads nowhere: {link.kind}: takes {what}, e.g. {example}"
    return "warning", (f"link {href!r} is shown as its text: links take http(s)://, mailto:, or entry:, page: "
                       "and issue: for the site's own pages (a reference page is page:SLUG)")


#: A Markdown link to a scheme markdown-it never makes a link of: it stays as its text, brackets and all.
_NO_LINK = re.compile(r"\]\(\s*<?\s*(javascript|vbscript|data|file):", re.IGNORECASE)


def left_out(text: str, max_nesting: int = DEFAULT_MAX_NESTING) -> list[str]:
    """What of `text`'s raw HTML the pages leave out (an element, an attribute, a link's scheme), and links
    of a scheme shown as text, each once in order: `<script>`, `onerror= of <img>`, `[…](javascript:…)`.
    Empty for most texts, which hold neither `<` nor `](`."""
    found = [f"[…]({match[1].lower()}:…)" for match in _NO_LINK.finditer(text)] if "](" in text else []
    if "<" not in text:
        return found
    tokens = _parse(_parser(max_nesting), text)
    if isinstance(tokens, _Prose):
        return found
    raw = [token.content for block in tokens for token in (
        [block] if block.type == "html_block" else block.children or [] if block.type == "inline" else [])
        if token.type in ("html_block", "html_inline")]
    if not raw:
        return found
    fragment = "".join(raw)
    kept = _Markup.of(_html_cleaner().clean(fragment))
    for tag, attributes in _Markup.of(fragment).elements:
        if tag not in kept.tags:
            found.append(f"<{tag}>")
        else:
            found.extend(f"{name}= of <{tag}>" for name in attributes if (tag, name) not in kept.attributes)
    return list(dict.fromkeys(found))


class _Markup(HTMLParser):
    """The elements of an HTML fragment: (tag, attribute names), in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, tuple[str, ...]]] = []

    @classmethod
    def of(cls, fragment: str) -> _Markup:
        parser = cls()
        parser.feed(fragment)
        parser.close()
        return parser

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, tuple(name for name, _ in attrs)))

    @property
    def tags(self) -> set[str]:
        return {tag for tag, _ in self.elements}

    @property
    def attributes(self) -> set[tuple[str, str]]:
        return {(tag, name) for tag, names in self.elements for name in names}


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
    md.core.ruler.push("headings_below_the_title", _headings_below_the_title)
    return md


def _headings_below_the_title(state: StateCore) -> None:
    """A text's `# Heading` is an <h2>: every page has its own <h1> (its title), and a second one would
    break the page's outline (screen readers navigate by it). Raw HTML's <h1> the cleaner drops."""
    for token in state.tokens:
        if token.tag == "h1" and token.type in ("heading_open", "heading_close"):
            token.tag = "h2"


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


def _keep_id(tag: str, attribute: str, value: str) -> str | None:
    """nh3 attribute filter: only citation anchor ids survive, so raw HTML cannot plant ids."""
    if attribute == "id":
        return value if tag == "a" and _ANCHOR_ID.match(value) else None
    return value


_A_START = re.compile(r'<a((?:\s+[a-z-]+="[^"]*")*)>')
_OUTSIDE_HREF = re.compile(r'\shref="(?:https?|mailto):')


def _outside_rel(html: str) -> str:
    """Give raw-HTML outside links the rel the token walk gives Markdown ones.

    Runs on nh3's output, whose serialiser always double-quotes attribute values
    and escapes `"` inside them, so a start tag is exactly `<a` + ` name="value"`*.
    """
    def mark(match: re.Match[str]) -> str:
        attributes = match.group(1)
        if not _OUTSIDE_HREF.search(attributes) or ' rel="' in attributes:
            return match.group(0)
        return f'<a{attributes} rel="{OUTSIDE_REL}">'

    return _A_START.sub(mark, html)


@lru_cache(maxsize=1)
def _html_cleaner() -> nh3.Cleaner:
    """The allow-list cleaner, built once (an nh3 Cleaner is immutable once made)."""
    return nh3.Cleaner(
        tags=set(ALLOWED_TAGS),
        clean_content_tags=set(DROPPED_WITH_CONTENT),
        attributes={
            "a": {"href", "title", "id"}, "abbr": {"title"}, "span": {"lang"},
            "img": {"src", "alt", "title"}, "ol": {"start"}, "details": {"open"},
            "td": {"colspan", "rowspan"}, "th": {"colspan", "rowspan", "scope"},
        },
        attribute_filter=_keep_id,
        link_rel=None,  # set by the token walk on outside links only
        tag_attribute_values={"a": {"rel": {OUTSIDE_REL}}},
        url_schemes=set(OUTSIDE_SCHEMES),
        allowed_classes={"sup": {"cite"}, "th": _ALIGN_CLASSES, "td": _ALIGN_CLASSES},
        strip_comments=True,
    )


@dataclass(frozen=True)
class MarkdownRenderer:
    """Renders content Markdown to sanitized HTML; internal links go through `resolve`.

    `citation_href` gives the target of citation n (e.g. `lambda n: f"#source-{n}"`);
    None shows citations as plain "[n]". Nesting deeper than `max_nesting` is not
    rendered (markdown-it's maxNesting) instead of recursing.
    """

    resolve: LinkResolver
    citation_href: Callable[[int], str] | None = None
    max_nesting: int = DEFAULT_MAX_NESTING
    _md: MarkdownIt = field(init=False, repr=False, compare=False)
    _cleaner: nh3.Cleaner = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_md", _parser(self.max_nesting))
        object.__setattr__(self, "_cleaner", _html_cleaner())

    def html(self, text: str, *, anchor_prefix: str = "cite") -> Markup:
        """Block HTML of `text`, safe to insert into a page as is."""
        ahead = self._rendered_ahead(text, anchor_prefix)
        if ahead is not None:
            return ahead
        return self._render(_parse(self._md, text), anchor_prefix)

    def _rendered_ahead(self, text: str, prefix: str, inline: bool = False) -> Markup | None:
        """`text`'s HTML as `find_references` rendered it ahead (see there), with this page's anchors.

        Inline, a text that is one paragraph (and nothing else) is that paragraph's content."""
        store = _STORES[-1].get("html") if _STORES and len(text) >= PLAIN_AHEAD else None
        if store is None or self.max_nesting != DEFAULT_MAX_NESTING or not _ANCHOR_PREFIX.match(prefix):
            return None
        known = store.get(text_key(text))
        if known is None or (inline and not known[1]):
            return None
        html = known[0][len("<p>"):-len("</p>\n")] if inline else known[0]
        for index, (kind, target) in enumerate(known[2] if len(known) > 2 else ()):  # its internal links
            href = self.resolve(kind, target)
            if href is None or not _PLAIN_HREF.match(href):
                return None  # shown as text on this page, or an href written otherwise: render it here
            html = html.replace(f'href="{_AHEAD}l{index}"', f'href="{href}"', 1)
        if _AHEAD in html:  # it cites sources
            anchor = self.citation_href.anchor if isinstance(self.citation_href, SourceAnchors) else ""
            if not _ANCHOR_PREFIX.match(anchor):
                return None  # citations shown otherwise: render it here
            html = html.replace(f'href="#{_AHEAD}s-', f'href="#{anchor}-').replace(f'id="{_AHEAD}c-', f'id="{prefix}-')
            if _AHEAD in html:
                return None
        return Markup(html)

    def deferred(self, text: str, *, anchor_prefix: str = "cite") -> DeferredHtml:
        """`html(text)` rendered when a template (or `str`) first uses it, not when a page is planned.

        A build plans every page but renders only the changed ones; deferring
        keeps Markdown work out of planning for the pages that are not rendered.
        """
        return DeferredHtml(lambda: self.html(text, anchor_prefix=anchor_prefix))

    def inline(self, text: str, *, anchor_prefix: str = "cite") -> Markup:
        """Inline HTML of one paragraph (headlines, one-liners): no <p>, block syntax stays text."""
        ahead = self._rendered_ahead(text, anchor_prefix, inline=True)
        if ahead is not None:
            return ahead
        return self._render(_parse(self._md, text, inline=True), anchor_prefix)

    def _render(self, tokens: list[Token] | _Prose, anchor_prefix: str) -> Markup:
        if not _ANCHOR_PREFIX.match(anchor_prefix):
            raise ValueError(f"anchor_prefix must be lowercase letters, digits and hyphens: {anchor_prefix!r}")
        if isinstance(tokens, _Prose):
            href = self.citation_href
            if href is None or isinstance(href, SourceAnchors) and _ANCHOR_PREFIX.match(href.anchor):
                # Prose has no `&`, `<`, `>`, no-break space or control character, and these citations
                # only a fragment href and an anchor id: the cleaner would give back this HTML with
                # `"` unescaped (its serialiser escapes no quote in text). A property test holds them equal.
                return Markup(_prose_html(tokens, anchor_prefix, href, escape=str))
            return Markup(_outside_rel(self._cleaner.clean(_prose_html(tokens, anchor_prefix, href))))
        counts: dict[int, int] = {}
        for token in tokens:
            if token.type in ("th_open", "td_open"):
                _alignment_as_class(token)
            elif token.type == "inline" and token.children:
                token.children = self._prepare_inline(token.children, anchor_prefix, counts)
        html = self._md.renderer.render(tokens, self._md.options, {})
        return Markup(_outside_rel(self._cleaner.clean(html)))

    def _prepare_inline(self, children: list[Token], prefix: str, counts: dict[int, int]) -> list[Token]:
        """Number citations, resolve internal links, unwrap links that must not be links."""
        kept: list[Token] = []
        unwrapped: list[bool] = []  # per open link: was its <a> dropped?
        for token in children:
            if token.type == "citation":
                number = token.meta["number"]
                counts[number] = counts.get(number, 0) + 1
                token.meta["id"] = f"{prefix}-{number}-{counts[number]}"
                token.meta["href"] = self.citation_href(number) if self.citation_href else None
            elif token.type == "link_open":
                unwrapped.append(not self._prepare_link(token))
                if unwrapped[-1]:
                    continue
            elif token.type == "link_close" and unwrapped and unwrapped.pop():
                continue
            kept.append(token)
        return kept

    def _prepare_link(self, token: Token) -> bool:
        """Set the link's final href and rel; False when it should show as text only."""
        link = _classify(str(token.attrGet("href") or ""))
        if link.treatment == "refused":
            return False
        if link.treatment == "outside":
            token.attrSet("rel", OUTSIDE_REL)
        elif link.treatment == "internal":
            href = self.resolve(link.kind, link.target) if link.target is not None else None
            if href is None:
                return False
            token.attrSet("href", href)
        return True


class DeferredHtml:
    """Safe HTML made on first use: Jinja2 and MarkupSafe call `__html__`; `str()` works too."""

    __slots__ = ("_make", "_html")

    def __init__(self, make: Callable[[], Markup]) -> None:
        self._make: Callable[[], Markup] | None = make
        self._html: Markup | None = None

    def __html__(self) -> Markup:
        if self._html is None:
            assert self._make is not None
            self._html, self._make = self._make(), None
        return self._html

    def __str__(self) -> str:
        return str(self.__html__())

    def __bool__(self) -> bool:
        return bool(self.__html__())


def _alignment_as_class(token: Token) -> None:
    """markdown-it aligns table cells with style="text-align:…"; styles are not allowed, classes are."""
    style = token.attrs.pop("style", None)
    if isinstance(style, str) and style.startswith("text-align:"):
        token.attrSet("class", "align-" + style.removeprefix("text-align:"))


class ReferenceStore(Protocol):
    """Somewhere to remember `find_references` answers across processes, keyed by a hash of the text."""

    def get(self, key: str) -> Any: ...

    def put(self, key: str, value: Any) -> None: ...


#: The stores of the build in progress, if any: "references", "plain" (text) and "html".
#: `check` and the planner ask about every text of every record on every build;
#: a build lends its database-backed memos here so an unchanged text is never
#: parsed again (see build/making.py).
_STORES: list[dict[str, ReferenceStore]] = []

#: The placeholder anchors of HTML rendered ahead (see find_references): new in each process that
#: imports this (a build's workers are forks of it), so no content can know and contain them.
_AHEAD = "x" + secrets.token_hex(8)


@contextmanager
def remembered_references(store: ReferenceStore, plain: ReferenceStore | None = None,
                          html: ReferenceStore | None = None) -> Iterator[None]:
    """While the block runs, `find_references` (and `plain_text`) answer from the stores and add to them.

    With an `html` store, `find_references` also renders ahead the HTML of each long text (see
    there), and `MarkdownRenderer.html` takes it from there.
    """
    stores = {"references": store, **({"plain": plain} if plain is not None else {}),
              **({"html": html} if html is not None else {})}
    _STORES.append(stores)
    try:
        yield
    finally:
        _STORES.remove(stores)


@lru_cache(maxsize=1 << 17)  # a page asks after one text's references, HTML ahead and plain text in turn
def text_key(text: str) -> str:
    """The key a text's remembered results are stored under."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def find_references(text: str, *, max_nesting: int = DEFAULT_MAX_NESTING) -> References:
    """Internal links and citations in `text`, parsed the way the renderer parses it.

    Memoised by text: `check` and the renderer's cache ask about the same
    texts on every build, and the answer depends on nothing else.
    """
    if not _STORES or max_nesting != DEFAULT_MAX_NESTING:
        return _references(text, max_nesting)
    store, key = _STORES[-1]["references"], text_key(text)
    known = store.get(key)
    if known is not None:
        return References(*(tuple(part) for part in known)) if known else _NONE
    plain = _STORES[-1].get("plain")
    if plain is not None and len(text) >= PLAIN_AHEAD and plain.get(key) is None:
        # A build asks for the plain text of most long texts too (term links, search, descriptions):
        # one parse answers both. Short ones (headlines, names) it rarely needs as plain text.
        tokens = _parse(_scanner(max_nesting), text)
        found = _references_in(tokens)
        ahead = _STORES[-1].get("html")
        if ahead is not None:
            # Its HTML is then the same on every page but for the citations' anchors and the internal
            # links' hrefs: render it from this parse, with placeholder anchors and hrefs a page swaps
            # for its own (before `_plain_in`, which edits the tokens; rendering edits none that
            # `_plain_in` reads). A text that is exactly one paragraph parses inline to the same run,
            # so its inline HTML is the paragraph's content (unless raw HTML in it might be read
            # otherwise outside a paragraph).
            paragraph = (tokens.one_paragraph(text) if isinstance(tokens, _Prose) else
                         len(tokens) == 3 and tokens[0].type == "paragraph_open" and tokens[1].content == text
                         and not any(child.type == "html_inline" for child in tokens[1].children or ()))
            links: list[list[str]] = []  # each internal link's [kind, target], in the order they render
            renderer = _ahead_renderer() if not (found.entries or found.pages or found.issues) else \
                MarkdownRenderer(resolve=partial(_placeholder_href, links), citation_href=SourceAnchors(_AHEAD + "s"))
            html = str(renderer._render(tokens, _AHEAD + "c"))
            ahead.put(key, [html, paragraph and html.startswith("<p>") and html.endswith("</p>\n"),
                            *([links] if links else [])])
        if len(text) >= PLAIN_ON_THE_SPOT or not isinstance(tokens, _Prose):  # see plain_text
            plain.put(key, _plain_in(_parser(max_nesting), tokens))
    else:
        found = _references(text, max_nesting)
    # Most texts point at nothing: 0 stores (and reads back) much faster than five empty lists.
    store.put(key, [list(found.entries), list(found.pages), list(found.issues), list(found.citations),
                    list(found.malformed)] if found != _NONE else 0)
    return found


_NONE = References()
#: Texts at least this long get their plain text with their references (see find_references).
PLAIN_AHEAD = 120
#: Plain prose shorter than this gets its plain text made when asked (a few microseconds), not
#: remembered: looking it up decodes the remembered texts' shard, and a list of the glossary's
#: definitions would decode every shard (tens of milliseconds).
PLAIN_ON_THE_SPOT = 400


@lru_cache(maxsize=1)
def _ahead_renderer() -> MarkdownRenderer:
    """Renders texts ahead, with placeholder citation anchors (it resolves no internal link: it gets
    texts without one)."""
    return MarkdownRenderer(resolve=lambda kind, target: None, citation_href=SourceAnchors(_AHEAD + "s"))


def _placeholder_href(links: list[list[str]], kind: str, target: str) -> str:
    """The placeholder href of an internal link rendered ahead: its place in `links`, where it is added."""
    links.append([kind, target])
    return f"{_AHEAD}l{len(links) - 1}"


#: An href a page may put in for a placeholder (see `MarkdownRenderer._rendered_ahead`): one that rendering
#: and the cleaner write out as it is (nothing they escape) and no scheme (the cleaner checks schemes, and
#: `_outside_rel` marks outside links). The site's own root-relative hrefs are such.
_PLAIN_HREF = re.compile(r"[A-Za-z0-9/._~#?=+%-]*\Z")


@lru_cache(maxsize=1 << 17)
def _references(text: str, max_nesting: int) -> References:
    if "[" not in text and "<" not in text:
        return _NONE  # every link, citation and autolink starts with one of them: nothing to parse
    return _references_in(_parse(_scanner(max_nesting), text))


def _references_in(tokens: list[Token] | _Prose) -> References:
    if isinstance(tokens, _Prose):
        citations = tokens.citations()
        return References(citations=citations) if citations else _NONE
    found: dict[str, list[str]] = {"entry": [], "page": [], "issue": []}
    citations: list[int] = []
    malformed: list[str] = []
    for block in tokens:
        # Only an inline run's own children: image alt text renders as text, never as marks.
        for token in block.children if block.type == "inline" and block.children else ():
            if token.type == "citation":
                citations.append(token.meta["number"])
            elif token.type == "link_open":
                href = str(token.attrGet("href") or "")
                link = _classify(href)
                if link.treatment == "internal" and link.target is not None:
                    found[link.kind].append(link.target)
                elif link.treatment in ("internal", "refused"):
                    malformed.append(href)
    return References(
        entries=tuple(found["entry"]), pages=tuple(found["page"]),
        issues=tuple(int(n) for n in found["issue"]), citations=tuple(citations),
        malformed=tuple(malformed),
    )


def citation_backrefs(text: str, *, anchor_prefix: str = "cite",
                      max_nesting: int = DEFAULT_MAX_NESTING) -> dict[int, tuple[str, ...]]:
    """For each cited source number, the ids of its citation marks in `text`, for links back."""
    ids: dict[int, list[str]] = {}
    for number in find_references(text, max_nesting=max_nesting).citations:
        ids.setdefault(number, []).append(f"{anchor_prefix}-{number}-{len(ids.get(number, [])) + 1}")
    return {number: tuple(anchors) for number, anchors in sorted(ids.items())}


def may_hold_code(text: str, at: Iterable[int]) -> bool:
    """Whether `text` may show code at any of the offsets `at`: it has a backtick or a tilde fence, or the
    line of one of them is indented. Most texts have none, which this tells without parsing them, and
    looking at the line before each offset only (not at every line of the text)."""
    if "`" in text or ("~" in text and "~~~" in text) or ("<" in text and _RAW_CODE.search(text) is not None):
        return True
    for offset in at:
        line = text.rfind("\n", 0, offset) + 1
        if "    " in text[line:offset] or "\t" in text[line:offset]:
            return True
    return False


def code_spans(text: str, *, max_nesting: int = DEFAULT_MAX_NESTING) -> list[tuple[int, int]]:
    """The (start, end) offsets of what `text` shows as code: its code blocks, fenced or indented, line
    by line, its inline code spans with their backticks, and raw HTML's code elements (`<code>`, `<pre>`,
    `<kbd>`, `<samp>`, which the cleaner keeps), in order (what a glossary term found there is not a
    mention of; see glossary.mentions). It parses the text: see `may_hold_code`."""
    line_starts = [0, *(found.end() for found in re.finditer("\n", text))]
    line_starts.append(len(text))
    spans: list[tuple[int, int]] = []
    for token in _parser(max_nesting).parse(_SURROGATE.sub("\ufffd", text), {}):
        if token.map is None or token.type not in ("fence", "code_block", "inline"):
            continue
        start, end = (line_starts[min(line, len(line_starts) - 1)] for line in token.map)
        if token.type != "inline":
            spans.append((start, end))
        elif "`" in text[start:end]:
            spans.extend(_code_in_line_run(text, start, end))
    if "<" in text:
        spans = sorted([*spans, *(found.span() for found in _RAW_CODE.finditer(text))])
    return spans


#: A raw HTML code element, its tags included (the first closing tag of its name ends it).
_RAW_CODE = re.compile(r"<(code|pre|kbd|samp)(?=[\s/>])[^<>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)


_BACKTICKS = re.compile(r"`+")


def _code_in_line_run(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The inline code spans of one block's lines `text[start:end]`, as CommonMark finds them: a run of
    backticks (the first of which a backslash may escape) up to the next run of as many."""
    spans: list[tuple[int, int]] = []
    runs = [(found.start(), found.end()) for found in _BACKTICKS.finditer(text, start, end)]
    index = 0
    while index < len(runs):
        opening, opening_end = runs[index]
        index += 1
        slashes = opening - len(text[start:opening].rstrip("\\")) - start
        opening += slashes % 2  # an escaped backtick is a literal one
        length = opening_end - opening
        if not length:
            continue
        closing = next((at for at in range(index, len(runs)) if runs[at][1] - runs[at][0] == length), None)
        if closing is not None:
            spans.append((opening, runs[closing][1]))
            index = closing + 1
    return spans


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

    No markup; links show their text, citations are dropped, list items start
    with "- " or "n. ", table rows join their cells with " | ", and blocks are
    separated by a blank line. The result is text, not HTML: escape it on output.
    """
    md = _parser(max_nesting)
    return _plain_in(md, _parse(md, text))


def _plain_in(md: MarkdownIt, tokens: list[Token] | _Prose) -> str:
    """The plain text of parsed `tokens` (it edits text tokens: use them for nothing after)."""
    if isinstance(tokens, _Prose):
        return _prose_plain(tokens)
    writer = _PlainText(md, _text_cleaner())
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
    md = _parser(max_nesting)
    writer = _PlainText(md, _text_cleaner(), width=width, marks=marks)
    for token in _parse(md, text, as_prose=False):
        writer.feed(token)
    return "\n\n".join(writer.blocks)


@lru_cache(maxsize=1)
def _text_cleaner() -> nh3.Cleaner:
    return nh3.Cleaner(tags=set(), clean_content_tags=set(DROPPED_WITH_CONTENT))


@dataclass
class _PlainText:
    """Collects the plain-text blocks of a token stream; a whole list or table is one block."""

    md: MarkdownIt
    cleaner: nh3.Cleaner
    blocks: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # of the open top-level list or table
    lists: list[bool] = field(default_factory=list)  # per open list: is it ordered?
    marker: str = ""  # of the list item whose first line is still to come
    cells: list[str] | None = None  # of the open table row
    width: int = 0  # wrap text at this width (see `reading_text`); 0 keeps each paragraph on one line
    hangs: list[int] = field(default_factory=list)  # per open list: the width of its open item's marker
    marks: TextMarks | None = None  # what links are followed by (see `reading_text`)
    quotes: list[int | None] = field(default_factory=list)  # per open quote: its first block (None: not marked)

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
            self._add(html_lib.unescape(self.cleaner.clean(token.content)).strip())
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
        for token in children:
            mark = self.marks.citation(token.meta["number"]) if self.marks and token.type == "citation" else None
            if mark is not None:
                kept.append(Token("text", "", 0, content=mark))
                continue
            if token.type == "citation":
                if kept and kept[-1].type == "text":
                    kept[-1].content = kept[-1].content.rstrip(" \t")
                continue
            if self.marks is not None and token.type == "image":
                # Read as its alt text (an email shows no image), followed by the image's mark unless it
                # stands in a link; without alt text it is decoration.
                if token.content:
                    kept.append(Token("text", "", 0, content=token.content))
                    image = Token("link_open", "a", 1, attrs={"href": str(token.attrGet("src") or "")})
                    if not opened and (mark := self._link_mark(self.marks, image, [])) is not None:
                        kept.append(Token("text", "", 0, content=f" {mark}"))
                continue
            if self.marks is not None and token.type == "link_open":
                opened.append((token, len(kept) + 1))
            elif token.type == "link_close" and opened:
                link, start = opened.pop()
                if not any(part.content.strip() for part in kept[start:] if part.type in ("text", "code_inline")):
                    del kept[start - 1:]  # nothing left to read in it (a decorative image's link): no mark alone
                    continue
                # Asked at the link's end, in reading order still: a link holds no other link or citation.
                if (mark := self._link_mark(self.marks, link, kept[start:])) is not None:
                    kept.extend([token, Token("text", "", 0, content=f" {mark}")])
                    continue
            kept.append(Token("text", "", 0, content=" ") if token.type == "softbreak" else token)
        html = self.md.renderer.render([Token("inline", "", 0, children=kept)], self.md.options, {})
        # Dropped raw HTML (a <script>, say) leaves its surrounding spaces behind.
        return _SPACES.sub(" ", html_lib.unescape(self.cleaner.clean(html))).strip()

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
