"""Linking the first mention of each glossary term in rendered HTML.

The fragment is tokenised with `html.parser.HTMLParser`, never with a regex
over raw HTML. Tags, attributes, comments and untouched text are copied byte
for byte; only a text run that gets a link is cut, and it is cut at offsets
of its own raw source, so entities such as ``&amp;`` stay as written and no
markup can appear inside a link.

Text inside ``<a>``, ``<code>``, ``<pre>``, ``<kbd>``, ``<samp>``, headings,
``<script>``, ``<style>``, ``<textarea>`` and ``<math>`` is never linked; the first
mention counted is the first one outside them. A term split across elements
("<em>AWS</em> Trainium") is not found.

Most fragments are a sanitizer's output, serialised one way only: lowercase tags,
attributes double-quoted and separated by one space, every `<` of text escaped.
Such a fragment is split by one regular expression into the very tokens the
parser would give (about five times faster); anything else about it — a comment,
a bare `<`, a raw-text element like ``<script>``, another quoting — goes to the
parser.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from html import escape, unescape
from html.parser import HTMLParser
from typing import NamedTuple

from glossary.matching import TermMatcher

NO_LINK_TAGS = frozenset({"a", "code", "pre", "kbd", "samp", "script", "style", "textarea",
                          "h1", "h2", "h3", "h4", "h5", "h6", "math"})
"""Elements whose text is never linked (a formula's: MathML holds no link)."""

# The character references `html.unescape` decodes, matched the same way; used
# only on the raw source of one text run, to map decoded offsets back to it.
_CHARREF = re.compile(r"&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)")

# A start or end tag as a serialiser writes it; attributes in `_ATTRIBUTE`'s form only.
_PLAIN_TAG = re.compile(r'<(/?)([a-z][a-z0-9]*)((?: [a-z][a-z0-9-]*="[^"]*")*)>')
_ATTRIBUTE = re.compile(r' ([a-z][a-z0-9-]*)="([^"]*)"')
# Elements whose content the parser reads as raw text (or, in some Python versions, may):
# a fragment with one goes to the parser.
_RAW_TEXT = frozenset({"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes",
                       "noscript", "plaintext"})


class _Token(NamedTuple):
    """A piece of the fragment: its raw span and, for text, its decoded text (a named tuple: quicker
    to make than a frozen dataclass, and linking makes one per tag and text run of every story)."""

    start: int
    end: int
    text: str | None     # decoded text; None for markup
    linkable: bool       # text outside every NO_LINK_TAGS element


class _Tokeniser(HTMLParser):
    """Splits a fragment into raw spans and tells which text runs may be linked."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=True)
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", source)]
        self._depth = dict.fromkeys(NO_LINK_TAGS, 0)
        self.marks: list[tuple[int, str | None, bool]] = []  # (offset, text, linkable)
        self.hrefs: set[str] = set()  # targets of the links already in the fragment

    def _offset(self) -> int:
        line, column = self.getpos()
        return self._line_starts[line - 1] + column

    def _markup(self) -> None:
        self.marks.append((self._offset(), None, False))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._markup()
        if tag in self._depth:
            self._depth[tag] += 1
        if tag == "a":
            self.hrefs.update(value for name, value in attrs if name == "href" and value)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._markup()

    def handle_endtag(self, tag: str) -> None:
        self._markup()
        if self._depth.get(tag, 0) > 0:
            self._depth[tag] -= 1

    def handle_data(self, data: str) -> None:
        linkable = not any(self._depth.values())
        self.marks.append((self._offset(), data, linkable))

    def handle_comment(self, data: str) -> None:
        self._markup()

    def handle_decl(self, decl: str) -> None:
        self._markup()

    def handle_pi(self, data: str) -> None:
        self._markup()

    def unknown_decl(self, data: str) -> None:
        self._markup()


#: A piece of a fragment serialised the plain way: a tag in `_PLAIN_TAG`'s form, a text run, or a `<`
#: that starts no such tag (a fragment with one goes to the parser).
_PLAIN_PIECE = re.compile(r'<(/?)([a-z][a-z0-9]*)((?: [a-z][a-z0-9-]*="[^"]*")*)>|([^<]+)|<')


def _plain_runs(source: str) -> tuple[list[tuple[int, int, str]], set[str]] | None:
    """The linkable text runs (start, end, decoded text) of a fragment serialised the plain way, as the
    parser would find them, and its link targets; None for any other fragment."""
    runs: list[tuple[int, int, str]] = []
    hrefs: set[str] = set()
    depth = dict.fromkeys(NO_LINK_TAGS, 0)
    blocked = 0  # open elements whose text is not linked
    for piece in _PLAIN_PIECE.finditer(source):
        closing, name, attributes, text = piece.groups()
        if text is not None:
            if not blocked:
                runs.append((piece.start(), piece.end(), unescape(text) if "&" in text else text))
            continue
        if name is None or name in _RAW_TEXT or (closing and attributes):
            return None
        if name in depth:
            if not closing:
                depth[name] += 1
                blocked += 1
            elif depth[name]:
                depth[name] -= 1
                blocked -= 1
        if name == "a" and not closing:
            hrefs.update(unescape(value) for key, value in _ATTRIBUTE.findall(attributes) if key == "href" and value)
    return runs, hrefs


def _parsed_runs(source: str) -> tuple[list[tuple[int, int, str]], set[str]]:
    """The linkable text runs (start, end, decoded text) of any fragment, adjacent text merged, and its
    link targets, as `_Tokeniser` finds them."""
    parser = _Tokeniser(source)
    parser.feed(source)
    parser.close()
    marks = parser.marks + [(len(source), None, False)]
    tokens: list[_Token] = []
    for (start, text, linkable), (end, _, _) in zip(marks, marks[1:]):
        previous = tokens[-1] if tokens else None
        if text is not None and previous is not None and previous.text is not None \
                and previous.linkable == linkable:
            tokens[-1] = _Token(previous.start, end, previous.text + text, linkable)
        else:
            tokens.append(_Token(start, end, text, linkable))
    return [(token.start, token.end, token.text) for token in tokens
            if token.text is not None and token.linkable], parser.hrefs


class _Same:
    """The offset map of a text without character references: every offset maps to itself."""

    def __init__(self, length: int) -> None:
        self.length = length

    def get(self, offset: int) -> int | None:
        return offset if 0 <= offset <= self.length else None


def _decoded_offsets(raw: str) -> tuple[str, dict[int, int] | _Same]:
    """Decode `raw` text; map each decoded offset that starts a raw piece to it."""
    if "&" not in raw:
        return raw, _Same(len(raw))
    decoded: list[str] = []
    offsets: dict[int, int] = {}
    length = 0
    position = 0
    for match in [*_CHARREF.finditer(raw), None]:
        literal_end = match.start() if match else len(raw)
        for index in range(position, literal_end):
            offsets[length] = index
            decoded.append(raw[index])
            length += 1
        if match:
            offsets[length] = match.start()
            piece = unescape(match.group())
            decoded.append(piece)
            length += len(piece)
            position = match.end()
    offsets[length] = len(raw)
    return "".join(decoded), offsets


def _link_text(raw: str, links: list[tuple[int, int, str]]) -> str:
    """`raw` with each raw span (start, end, href) wrapped in a term link."""
    parts: list[str] = []
    position = 0
    for start, end, href in links:
        parts.append(raw[position:start])
        parts.append(f'<a class="term" href="{escape(href, quote=True)}">{raw[start:end]}</a>')
        position = end
    parts.append(raw[position:])
    return "".join(parts)


def link_first_mentions(html: str, matcher: TermMatcher,
                        href_for: Callable[[str], str | None], *,
                        skip: Collection[str] = ()) -> str:
    """Wrap the first mention of each term in ``<a class="term" href="…">``.

    `href_for(slug)` gives the link target, or None to leave the term as
    text; slugs in `skip` (e.g. the entry's own page) are never linked, nor
    is a term the fragment already links to by hand (same href), which also
    makes linking idempotent. Returns the new fragment; everything else is
    copied unchanged.
    """
    return linked_first_mentions(html, matcher, href_for, skip=skip)[0]


def linked_first_mentions(html: str, matcher: TermMatcher,
                          href_for: Callable[[str], str | None], *,
                          skip: Collection[str] = ()) -> tuple[str, set[str]]:
    """`link_first_mentions`, with the terms the fragment links (here or by hand). Given as `skip` to a later
    fragment of the same story (its body after its summary), they leave it to link its first mention of
    every other term: of one the summary names only where no link can stand (a link's text, an image's alt
    text) too."""
    done: set[str] = set(skip)
    linked: set[str] = set()
    hrefs: dict[str, str | None] = {}
    output: list[str] = []
    candidates, existing = _plain_runs(html) or _parsed_runs(html)
    # The linkable text runs (start, end, decoded text and its offsets in the raw run), searched at once.
    runs: list[tuple[int, int, str, dict[int, int] | _Same]] = []
    for start, end, text in candidates:
        raw = html[start:end]
        decoded, offsets = _decoded_offsets(raw)
        if decoded == text and "<" not in raw:  # else the parser read it otherwise
            runs.append((start, end, decoded, offsets))
    found = zip(runs, matcher.find_each([run[2] for run in runs]))
    position = 0  # what is copied so far: the runs with no link are copied with what lies between
    for (run_start, run_end, _, offsets), mentions in found:
        links: list[tuple[int, int, str]] = []
        for mention in mentions:
            start, end = offsets.get(mention.start), offsets.get(mention.end)
            if mention.slug in done or start is None or end is None:
                continue  # already linked, or cut inside a character reference
            if mention.slug not in hrefs:
                hrefs[mention.slug] = href_for(mention.slug)
            href = hrefs[mention.slug]
            if href is not None and href in existing:
                linked.add(mention.slug)  # by hand
            elif href is not None:
                links.append((start, end, href))
                done.add(mention.slug)
                linked.add(mention.slug)
        if links:
            output += [html[position:run_start], _link_text(html[run_start:run_end], links)]
            position = run_end
    return "".join([*output, html[position:]]) if output else html, linked
