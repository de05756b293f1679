"""Sanitising: the allow-list nh3 cleaners of HTML and plain text, outside links' rel, what of a text's raw
HTML the pages leave out (`left_out`), and what of the rest a screen reader has nothing to read for: links
(`unnamed_links`) and images (`images_without_alt`), read in one walk."""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape
from html.parser import HTMLParser
from typing import Any, NamedTuple

import nh3
from markdown_it.token import Token

from newsroom.render.markdown.conformance import attribute_value
from newsroom.render.markdown.links import OUTSIDE_REL, OUTSIDE_SCHEMES
from newsroom.render.markdown.parsing import DEFAULT_MAX_NESTING, _parse, _parser, _Prose

#: The prose and table set, plus sup, details/summary, abbr and span (with lang).
ALLOWED_TAGS = frozenset("""a abbr b blockquote br caption cite code dd del details dfn dl dt em
    figcaption figure h2 h3 h4 h5 h6 hr i img ins kbd li mark ol p pre q s samp small span strong
    sub summary sup table tbody td tfoot th thead tr ul var wbr""".split())
#: Dropped together with their content: code, styling, embedded documents and forms.
DROPPED_WITH_CONTENT = frozenset("""applet embed frame frameset iframe math noembed noframes noscript
    object script select style svg template textarea title xmp""".split())
_ALIGN_CLASSES = {"align-left", "align-center", "align-right"}
_ANCHOR_ID = re.compile(r"[a-z][a-z0-9-]*-[0-9]+-[0-9]+\Z")


def _keep_id(tag: str, attribute: str, value: str) -> str | None:
    """nh3 attribute filter: only citation-like anchor ids survive (of which the renderer keeps its citations'
    own, `_citation_ids_only`, so raw HTML cannot plant ids); other values as HTML5 allows them
    (`attribute_value`)."""
    if attribute == "id":
        return value if tag == "a" and _ANCHOR_ID.match(value) else None
    return attribute_value(tag, attribute, value)


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


@lru_cache(maxsize=1)
def _text_cleaner() -> nh3.Cleaner:
    return nh3.Cleaner(tags=set(), clean_content_tags=set(DROPPED_WITH_CONTENT))


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


#: What a link with nothing to read needs: brackets (`[…](…)`, `[…][…]`), or a raw `<a …>`, holding only spaces,
#: character references (`&nbsp;`), images without alt text (`![](…)`) and tags (`<img … alt="">`, `<span>`): a
#: filter that may let through a text with none, never one with one. A text with an element the pages leave out
#: with its content (`<script>`) is read all the same (`_DROPPED`).
_MAYBE_UNNAMED = re.compile(r"(?:\[|<a\s[^>]*>)(?:\s|&#?[a-z0-9]+;|!\[\s*\]\([^)]*\)|<[^<>]*>)*(?:\][(\[]|</a)",
                            re.IGNORECASE)
_DROPPED = re.compile(rf"<(?:{'|'.join(sorted(DROPPED_WITH_CONTENT))})[\s/>]", re.IGNORECASE)


def unnamed_links(text: str, max_nesting: int = DEFAULT_MAX_NESTING) -> list[str]:
    """The targets of `text`'s links with nothing for a screen reader to read as their name, each once: no
    text and no image with alt text in them (`[](…)`, `[![](logo.png)](…)`, `<a href="…"></a>`, `<a href>`, `<a
    href="…"><img src="…" alt=""></a>`), in a paragraph or as raw HTML on lines of its own (an HTML block, which
    may open a link that a later block closes). Empty for most texts, which hold neither `](` nor `<a`."""
    if "](" not in text and "][" not in text and "<a" not in text.lower() or not (
            _MAYBE_UNNAMED.search(text) or _DROPPED.search(text)):
        return []  # most texts: not parsed again (`check` runs on every record of a full build)
    return list(_reading(text, max_nesting).unnamed)


def images_without_alt(text: str, max_nesting: int = DEFAULT_MAX_NESTING) -> list[tuple[str, bool]]:
    """(src, whether in a link) of each raw HTML `<img>` of `text` that the pages keep without an `alt`, once
    each in order: a screen reader reads its file name for it (in a link, as the link's name). A Markdown
    image always has one (`![](…)` is decoration); an image the cleaner drops, with its `<svg>` say, is
    `left_out`'s. Empty for most texts, which hold no `<img`."""
    if "<img" not in text.lower():
        return []  # most texts: not parsed again (`check` runs on every record of a full build)
    return list(_reading(text, max_nesting).images)


class _Read(NamedTuple):
    """What a screen reader gets wrong of a text: its links with nothing to read (their targets) and its
    images without alt ((src, whether in a link)), each once, in order."""

    unnamed: tuple[str, ...]
    images: tuple[tuple[str, bool], ...]


@lru_cache(maxsize=64)  # `check` asks after a text's links, then after its images
def _reading(text: str, max_nesting: int) -> _Read:
    """`text` read once as the pages show it (see `_as_html` and `_Reader`)."""
    tokens = _parse(_parser(max_nesting), text)
    if isinstance(tokens, _Prose):
        return _Read((), ())
    reader = _Reader()
    reader.feed(_as_html(tokens))
    reader.close()
    return _Read(tuple(dict.fromkeys(reader.unnamed)), tuple(dict.fromkeys(reader.images)))


def _as_html(tokens: list[Token]) -> str:
    """A text's links and images (Markdown and raw alike), its text, code and raw HTML (inline and blocks), as
    one piece of HTML in document order: a link may open in one raw piece and close in a later one. What the
    rest of the Markdown makes (paragraphs, emphasis, lists) names nothing and is left out."""
    parts: list[str] = []
    for block in tokens:
        if block.type == "html_block":
            parts.append(block.content)
        elif block.type in ("fence", "code_block"):
            parts.append(escape(block.content))
        elif block.type == "inline":
            parts.extend(_inline_html(token) for token in block.children or [])
    return "".join(parts)


def _inline_html(token: Token) -> str:
    """One inline token as HTML, for `_as_html` (a citation mark names nothing: the pages make it a link of its
    own, which an `<a>` around it cannot hold)."""
    if token.type == "html_inline":
        return token.content
    if token.type in ("text", "code_inline"):
        return escape(token.content)
    if token.type == "link_open":
        return f'<a href="{escape(str(token.attrGet("href") or ""))}">'
    if token.type == "link_close":
        return "</a>"
    if token.type == "image":  # its alt text is its content (`![alt](…)`); `![](…)` is decoration
        return f'<img src="{escape(str(token.attrGet("src") or ""))}" alt="{escape(token.content)}">'
    return ""


#: Elements without an end tag: dropped, they hold nothing (`<embed>`).
_VOID = frozenset({"embed", "frame"})


class _Reader(HTMLParser):
    """A text as a screen reader reads it (`_as_html`'s HTML): a link is an `<a>` with an `href`, even an empty
    one, and its name is its text and the alt text of its images (a raw `<img>` without `alt`: its file name,
    which is warned of as an image without alt); what the cleaner drops with its content (a `<script>`, an
    `<svg>`) names nothing and holds no link or image."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[list[Any]] = []  # the links open here: [target (None: an `<a>` without href), named]
        self.dropped: list[str] = []  # the elements open here that the pages leave out with their content
        self.unnamed: list[str] = []
        self.images: list[tuple[str, bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in DROPPED_WITH_CONTENT:
            if tag not in _VOID:
                self.dropped.append(tag)
        elif self.dropped:
            return
        elif tag == "a":
            self.links.append([next((value or "" for name, value in attrs if name == "href"), None), False])
        elif tag == "img":
            self._image(dict(attrs))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ("svg", "math"):  # HTML reads `<a …/>` as `<a …>`; only SVG and MathML close an element so
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.dropped:
            del self.dropped[len(self.dropped) - 1 - self.dropped[::-1].index(tag):]
        elif tag == "a" and not self.dropped and self.links:
            target, named = self.links.pop()
            if target is not None and not named:
                self.unnamed.append(target)

    def handle_data(self, data: str) -> None:
        if data.strip() and not self.dropped:
            self._named()

    def _image(self, attributes: dict[str, str | None]) -> None:
        """An image names the links around it with its alt text, or without `alt` its file name (`alt=""` marks
        it decoration, nothing to read); one without `alt` is read by its file name, in a link as its name."""
        if "alt" not in attributes:
            self.images.append((_shown_src(attributes.get("src") or ""), any(
                target is not None for target, _ in self.links)))
        if "alt" not in attributes or (attributes["alt"] or "").strip():
            self._named()

    def _named(self) -> None:
        for link in self.links:
            link[1] = True


def _shown_src(src: str) -> str:
    """An image's `src` as the pages keep it: none of a scheme the cleaner refuses (`javascript:`)."""
    image = _Markup.of(_html_cleaner().clean(f'<img src="{escape(src)}">'))
    return next((value or "" for name, value in image.values[0] if name == "src"), "") if image.values else ""


class _Markup(HTMLParser):
    """The elements of an HTML fragment: (tag, attribute names), in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, tuple[str, ...]]] = []
        self.values: list[list[tuple[str, str | None]]] = []  # each element's attributes with their values

    @classmethod
    def of(cls, fragment: str) -> _Markup:
        parser = cls()
        parser.feed(fragment)
        parser.close()
        return parser

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, tuple(name for name, _ in attrs)))
        self.values.append(attrs)

    @property
    def tags(self) -> set[str]:
        return {tag for tag, _ in self.elements}

    @property
    def attributes(self) -> set[tuple[str, str]]:
        return {(tag, name) for tag, names in self.elements for name in names}
