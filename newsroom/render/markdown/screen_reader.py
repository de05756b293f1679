"""What a screen reader has nothing to read for in a text as its page shows it: links with no name
(`unnamed_links`) and raw images without alt text (`images_without_alt`), read in one walk of the text's
HTML as the renderer makes it and the cleaner keeps it; and formulas without alt text
(`formulas_without_alttext`)."""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import count
from html.parser import HTMLParser
from typing import Any, NamedTuple

from markdown_it.token import Token

from newsroom.render.markdown.cleaning import DROPPED_WITH_CONTENT
from newsroom.render.markdown.links import SourceAnchors, _classify
from newsroom.render.markdown.mathml import formulas_read_bare
from newsroom.render.markdown.memo import _AHEAD
from newsroom.render.markdown.parsing import DEFAULT_MAX_NESTING, _parse, _parser, _Prose
from newsroom.render.markdown.renderer import MarkdownRenderer

#: What a link with nothing to read needs: brackets (`[…](…)`, `[…][…]`), or a raw `<a …>`, holding only spaces,
#: character references (`&nbsp;`), images without alt text (`![](…)`), citation marks (`[1]`) and tags (`<img …
#: alt="">`, `<span>`): a filter that may let through a text with none, never one with one. A text with an element
#: the pages leave out with its content (`<script>`, `_DROPPED`), with a link or a block that may open in a raw
#: `<a …>`, which HTML then closes (`_nested`), with a raw `<a …>` left open in its paragraph (`_left_open`: HTML
#: opens it again, empty, after the paragraph), or with a raw `<a` whose attributes hold a `<` (`_ODD`), is read all
#: the same. Each pattern stops at the next place another search may start (a filler is no `<a …>` and no `</a>`, no
#: character class crosses a `<`, a `(` or a `)` it does not pair: an image's address may hold one pair of
#: brackets, as `(a_(b))`, or escaped ones), so a text is searched in linear time: a text of thousands of `<a x>`
#: took seconds for each 10 KB more (every opening searched the rest of the text again).
_MAYBE_UNNAMED = re.compile(r"(?:\[|<a\s[^<>]*+>)(?:\s|&#?[a-z0-9]++;"
                            r"|!\[\s*\]\((?:\\.|[^()\\]|\((?:\\.|[^()\\])*+\))*+\)"
                            r"|\[[0-9]{1,9}\]|<(?!a\s|/a\b)[^<>]*+>)*+(?:\][(\[]|</a)", re.IGNORECASE)
_DROPPED = re.compile(rf"<(?:{'|'.join(sorted(DROPPED_WITH_CONTENT))})[\s/>]", re.IGNORECASE)
_OPENS = re.compile(r"<a\s[^<>]*+>", re.IGNORECASE)
_OPENS_OR_CLOSES = re.compile(r"<a\s[^<>]*+>|</a[\s>]|\n[ \t]*+\n", re.IGNORECASE)  # and paragraphs' ends
#: A citation, a link, an autolink, or a block that closes the paragraph a link stands in (HTML then leaves the link
#: empty there, its copy holding the block's words where HTML copies it: see `conformance._drop_links_left_empty`).
_CLOSES_IT = re.compile(r"\[|<a[\s>/]|<[a-z][a-z0-9+.-]*:|<(?:address|article|aside|blockquote|center|details|dialog"
                        r"|dir|div|dl|dd|dt|fieldset|figcaption|figure|footer|form|h[1-6]|header|hgroup|hr|li|listing"
                        r"|main|menu|nav|ol|p|pre|section|summary|table|ul)[\s/>]", re.IGNORECASE)
_ODD = re.compile(r"<a\s[^<>]*+<", re.IGNORECASE)


def unnamed_links(text: str, max_nesting: int = DEFAULT_MAX_NESTING) -> list[str]:
    """The targets of the links `text`'s page shows with nothing for a screen reader to read as their name, each
    once, as written: no text and no image with alt text in them (`[](…)`, `[![](logo.png)](…)`, `<a href="…"></a>`,
    `<a href>`, `<a href="…"><img src="…" alt=""></a>`), in a paragraph or as raw HTML on lines of its own (an HTML
    block, which may open a link that a later block closes), and a raw `<a href="…">` that a link in it (a
    citation `[1]`) closes before its text, as HTML has no link in a link. What the page shows as no link says
    nothing here: a link of a scheme shown as its text (`[](ftp://…)`, `link_problem`'s), a raw `href=` the
    cleaner takes out (`javascript:`, `entry:`, `left_out`'s). Empty for most texts, which hold neither `](` nor
    `<a`."""
    if "](" not in text and "][" not in text and "<a" not in text.lower() or not (
            _MAYBE_UNNAMED.search(text) or _DROPPED.search(text) or _nested(text) or _left_open(text)
            or _ODD.search(text)):
        return []  # most texts: not parsed again (`check` runs on every record of a full build)
    return list(_reading(text, max_nesting).unnamed)


def _nested(text: str) -> bool:
    """Whether a raw `<a …>` of `text` has a citation, a link, an autolink or a block after it, which may close it
    (or the paragraph it stands in): after the first one whenever after any (one search from there, not one from
    each)."""
    opened = _OPENS.search(text)
    return opened is not None and _CLOSES_IT.search(text, opened.end()) is not None


def _left_open(text: str) -> bool:
    """Whether a raw `<a …>` of `text` is not closed by a `</a>` after it in its paragraph (before a blank line).
    Any after a backtick or a backslash may be no tag (`` `</a>` `` is code, `\\</a>` text): then the link may be
    left open, and the parser's copy of it after the paragraph holds nothing."""
    opened = _OPENS.search(text)
    if opened is not None and ("`" in text[opened.end():] or "\\" in text[opened.end():]):
        return True
    open_links = 0
    for tag in _OPENS_OR_CLOSES.finditer(text):
        if tag[0][0] == "\n":
            if open_links:
                return True
        else:
            open_links = open_links + 1 if tag[0][1] != "/" else max(open_links - 1, 0)
    return open_links > 0


def images_without_alt(text: str, max_nesting: int = DEFAULT_MAX_NESTING) -> list[tuple[str, bool]]:
    """(src, whether in a link) of each raw HTML `<img>` of `text` that the pages keep without an `alt`, once
    each in order, its `src` as kept: a screen reader reads its file name for it (in a link, as the link's
    name). A Markdown image always has one (`![](…)` is decoration); an image the cleaner drops, with its `<svg>`
    say, is `left_out`'s. Empty for most texts, which hold no `<img`."""
    if "<img" not in text.lower():
        return []  # most texts: not parsed again (`check` runs on every record of a full build)
    return list(_reading(text, max_nesting).images)


def formulas_without_alttext(text: str, max_nesting: int = DEFAULT_MAX_NESTING) -> list[str]:
    """The text each formula (`<math>`) of `text` without an `alttext` is read as where a formula is read as
    text (the email's text part, feed summaries, search, and a screen reader that reads no MathML): its bare
    text ("x2" for x²), once each, in order. Empty for most texts, which hold no `<math`."""
    if "<math" not in text.lower():
        return []  # most texts: not parsed again (`check` runs on every record of a full build)
    tokens = _parse(_parser(max_nesting), text)
    if isinstance(tokens, _Prose):
        return []
    return list(dict.fromkeys(formulas_read_bare(_page_html(tokens, max_nesting))))


class _Read(NamedTuple):
    """What a screen reader gets wrong of a text: its links with nothing to read (their targets) and its
    images without alt ((src, whether in a link)), each once, in order."""

    unnamed: tuple[str, ...]
    images: tuple[tuple[str, bool], ...]


@lru_cache(maxsize=64)  # `check` asks after a text's links, then after its images
def _reading(text: str, max_nesting: int) -> _Read:
    """`text` read once as its page shows it (see `_page_html` and `_Reader`)."""
    tokens = _parse(_parser(max_nesting), text)
    if isinstance(tokens, _Prose):
        return _Read((), ())
    internal = _internal_links(tokens)
    reader = _Reader()
    reader.feed(_page_html(tokens, max_nesting))
    reader.close()
    written = {_placeholder(index): href for index, href in enumerate(internal)}
    return _Read(tuple(dict.fromkeys(written.get(target, target) for target in reader.unnamed)),
                 tuple(dict.fromkeys(reader.images)))


def _page_html(tokens: list[Token], max_nesting: int) -> str:
    """The HTML a page shows of `tokens`, as the renderer makes it and the cleaner keeps it: a link of a refused
    scheme as its text, an `href=` the cleaner refuses taken out, what it drops with its content gone, a link
    closed where HTML closes it. Every internal link is taken to lead to its record (the n-th has the href
    `_placeholder(n)`): whether it does is `check`'s own question, and its name is the same either way."""
    resolved = count()
    renderer = MarkdownRenderer(resolve=lambda kind, target: _placeholder(next(resolved)),
                                citation_href=SourceAnchors(_AHEAD + "s"), max_nesting=max_nesting)
    return str(renderer._render(tokens, _AHEAD + "c"))


def _placeholder(index: int) -> str:
    return f"{_AHEAD}l{index}"


def _internal_links(tokens: list[Token]) -> list[str]:
    """The hrefs, as written, of the internal links the renderer resolves (a slug or a number for a target), in
    the order it resolves them."""
    hrefs: list[str] = []
    for block in tokens:
        for token in block.children or () if block.type == "inline" else ():
            href = str(token.attrGet("href") or "") if token.type == "link_open" else ""
            link = _classify(href) if href else None
            if link is not None and link.treatment == "internal" and link.target is not None:
                hrefs.append(href)
    return hrefs


class _Reader(HTMLParser):
    """A page's HTML of a text (`_page_html`) as a screen reader reads it: a link is an `<a>` with an `href`,
    even an empty one, and its name is its text and the alt text of its images (a raw `<img>` without `alt`:
    its file name, which is warned of as an image without alt)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[list[Any]] = []  # the links open here: [target (None: an `<a>` without href), named]
        self.unnamed: list[str] = []
        self.images: list[tuple[str, bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.links.append([next((value or "" for name, value in attrs if name == "href"), None), False])
        elif tag == "img":
            self._image(dict(attrs))

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self.links:
            target, named = self.links.pop()
            if target is not None and not named:
                self.unnamed.append(target)

    def handle_data(self, data: str) -> None:
        if data.strip():
            self._named()

    def _image(self, attributes: dict[str, str | None]) -> None:
        """An image names the links around it with its alt text, or without `alt` its file name (`alt=""` marks
        it decoration, nothing to read); one without `alt` is read by its file name, in a link as its name."""
        if "alt" not in attributes:
            self.images.append((attributes.get("src") or "", any(target is not None for target, _ in self.links)))
        if "alt" not in attributes or (attributes["alt"] or "").strip():
            self._named()

    def _named(self) -> None:
        for link in self.links:
            link[1] = True
