"""Sanitising: the allow-list nh3 cleaners of HTML and plain text, outside links' rel, and what of a
text's raw HTML the pages leave out (`left_out`)."""

from __future__ import annotations

import re
from functools import lru_cache
from html.parser import HTMLParser
from typing import Any

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


#: What a link with nothing to read needs: brackets, or a raw `<a …>`, holding only spaces and images without alt
#: text (`![](…)`, `<img … alt="">`): a filter that may let through a text with none, never one with one.
_MAYBE_UNNAMED = re.compile(r"(?:\[|<a\s[^>]*>)(?:\s|!\[\s*\]\([^)]*\)|<img\s[^>]*>)*(?:\]\(|</a)", re.IGNORECASE)
_RAW_LINK = re.compile(r"<a\s[^>]*?href\s*=\s*[\"']?([^\"'\s>]*)", re.IGNORECASE)
_RAW_OPEN = re.compile(r"<a[\s>]", re.IGNORECASE)
_RAW_CLOSE = re.compile(r"</a\s*>", re.IGNORECASE)
_RAW_IMAGE = re.compile(r"<img[\s/>]", re.IGNORECASE)


def unnamed_links(text: str, max_nesting: int = DEFAULT_MAX_NESTING) -> list[str]:
    """The targets of `text`'s links with nothing for a screen reader to read as their name, each once: no
    text and no image with alt text in them (`[](…)`, `[![](logo.png)](…)`, `<a href="…"></a>`, `<a href="…">
    <img src="…" alt=""></a>`), in a paragraph or as raw HTML on lines of its own (an HTML block, which may open
    a link that a later block closes). Empty for most texts, which hold neither `](` nor `<a`."""
    if "](" not in text and "<a" not in text.lower() or not _MAYBE_UNNAMED.search(text):
        return []  # most texts: not parsed again (`check` runs on every record of a full build)
    tokens = _parse(_parser(max_nesting), text)
    if isinstance(tokens, _Prose):
        return []
    links = _OpenLinks()
    for block in tokens:
        if block.type == "html_block":
            _BlockLinks(links).read(block.content)
        elif block.type == "inline":
            _inline_links(block.children or [], links)
    return list(dict.fromkeys(links.unnamed))


class _OpenLinks:
    """The links open at a point of a text's walk, each [target (None: an `<a>` without href, no link), named],
    and the targets of those closed with nothing in them to read."""

    def __init__(self) -> None:
        self.open: list[list[Any]] = []
        self.unnamed: list[str] = []

    def opened(self, target: str | None) -> None:
        self.open.append([target, False])

    def closed(self) -> None:
        target, named = self.open.pop() if self.open else (None, True)
        if target is not None and not named:
            self.unnamed.append(target)

    def named(self) -> None:
        for link in self.open:
            link[1] = True


def _inline_links(children: list[Token], links: _OpenLinks) -> None:
    """Walk one paragraph's inline tokens, Markdown links and raw `<a href>` alike: text, code and an image with
    alt text name the links open around them (a raw `<img>` without `alt` is named by its file name, which
    `images_without_alt` warns of)."""
    for token in children:
        if token.type == "link_open":
            links.opened(str(token.attrGet("href") or ""))
        elif token.type == "html_inline" and _RAW_OPEN.match(token.content):
            raw = _RAW_LINK.match(token.content)
            links.opened(raw[1] if raw else None)
        elif token.type == "link_close" or token.type == "html_inline" and _RAW_CLOSE.match(token.content):
            links.closed()
        elif token.type in ("text", "code_inline", "image") and token.content.strip() or (
                token.type == "html_inline" and _RAW_IMAGE.match(token.content) and _image_named(token.content)):
            links.named()


class _BlockLinks(HTMLParser):
    """Walk an HTML block (raw HTML on lines of its own) as `_inline_links` walks a paragraph: its text and its
    images with alt text name the links open around them; what the cleaner drops with its content (a
    `<script>`) names nothing."""

    def __init__(self, links: _OpenLinks) -> None:
        super().__init__(convert_charrefs=True)
        self.links = links
        self.dropped = 0  # how deep inside elements the pages leave out with their content

    def read(self, html: str) -> None:
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in DROPPED_WITH_CONTENT:
            self.dropped += 1
        elif self.dropped:
            return
        elif tag == "a":
            self.links.opened(next((value or "" for name, value in attrs if name == "href"), None))
        elif tag == "img" and _alt_named(attrs):
            self.links.named()

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img" and not self.dropped and _alt_named(attrs):  # `<img …/>`: no element opens with it
            self.links.named()

    def handle_endtag(self, tag: str) -> None:
        if tag in DROPPED_WITH_CONTENT:
            self.dropped = max(0, self.dropped - 1)
        elif tag == "a" and not self.dropped:
            self.links.closed()

    def handle_data(self, data: str) -> None:
        if data.strip() and not self.dropped:
            self.links.named()


def _alt_named(attrs: list[tuple[str, str | None]]) -> bool:
    """Whether an `<img>` of these attributes gives a link a name: alt text, or no `alt` at all (a screen reader
    then reads the file name); `alt=""` marks it decoration, nothing to read."""
    attributes = dict(attrs)
    return "alt" not in attributes or bool((attributes["alt"] or "").strip())


def _image_named(tag: str) -> bool:
    """Whether the raw `<img …>` start tag `tag` gives a link a name: alt text, or no `alt` at all (a screen
    reader then reads the file name); `alt=""` marks it decoration, nothing to read."""
    image = _Markup.of(tag)
    return _alt_named(image.values[0] if image.values else [])


def images_without_alt(text: str, max_nesting: int = DEFAULT_MAX_NESTING) -> list[tuple[str, bool]]:
    """(src, whether in a link) of each raw HTML `<img>` of `text` that the pages keep without an `alt`, once
    each in order: a screen reader reads its file name for it (in a link, as the link's name). A Markdown
    image always has one (`![](…)` is decoration); an image the cleaner drops, with its `<svg>` say, is
    `left_out`'s. Empty for most texts, which hold no `<img`."""
    if "<img" not in text.lower():
        return []  # most texts: not parsed again (`check` runs on every record of a full build)
    tokens = _parse(_parser(max_nesting), text)
    if isinstance(tokens, _Prose):
        return []
    parts: list[str] = []  # the raw HTML, with each Markdown link as an `<a>` around what it holds
    for block in tokens:
        if block.type == "html_block":
            parts.append(block.content)
        for token in block.children or [] if block.type == "inline" else []:
            if token.type == "html_inline":
                parts.append(token.content)
            elif token.type in ("link_open", "link_close"):
                parts.append("<a>" if token.type == "link_open" else "</a>")
    if not parts:
        return []
    images = _Images()
    images.feed(_html_cleaner().clean("".join(parts)))
    images.close()
    return list(dict.fromkeys(images.found))


class _Images(HTMLParser):
    """The `<img>` elements of an HTML fragment that have no `alt`: (src, whether in a link)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links = 0
        self.found: list[tuple[str, bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.links += 1
        elif tag == "img" and all(name != "alt" for name, _ in attrs):
            self.found.append((next((value or "" for name, value in attrs if name == "src"), ""), self.links > 0))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":  # `<img …/>`: no link opens with it
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self.links:
            self.links -= 1

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
