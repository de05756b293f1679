"""Sanitising: the allow-list nh3 cleaners of HTML and plain text, outside links' rel, embeds as links and
<xmp> as preformatted text (`embeds_as_links`), and what of a text's raw HTML the pages leave out (`left_out`)."""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Callable
from functools import lru_cache
from html.parser import HTMLParser
from typing import Protocol

import nh3
from markdown_it.token import Token

from newsroom.render.markdown.attributes import attribute_value
from newsroom.render.markdown.links import NEVER_LINKED, OUTSIDE_REL, OUTSIDE_SCHEMES, refused_image
from newsroom.render.markdown.mathml import (MATHML_ATTRIBUTES, MATHML_TAGS, formula_text_kept, mathml_as_text,
                                             mathml_only, mathml_value)
from newsroom.render.markdown.parsing import DEFAULT_MAX_NESTING, _parse, _parser, _Prose

#: The prose and table set, plus sup, details/summary, abbr and span (with lang); and MathML (see `mathml`).
ALLOWED_TAGS = frozenset("""a abbr b blockquote br caption cite code dd del details dfn dl dt em
    figcaption figure h2 h3 h4 h5 h6 hr i img ins kbd li mark ol p pre q s samp small span strong
    sub summary sup table tbody td tfoot th thead tr ul var wbr""".split())
#: Dropped together with their content: code, styling, embedded documents and frames (an <iframe>'s content is
#: raw text no browser shows: it shows the document its `src` or `srcdoc` holds, which a page does not embed;
#: one of a web `src` leaves a link to that document, and an <xmp> its text as preformatted text: see
#: `embeds_as_links`).
#: Any other element the cleaner drops leaves its text: a <textarea>'s as written, tags and all (as the field
#: shows it), an <object>'s and an <applet>'s fallback content cleaned, and a <noscript>'s and a <select>'s (see
#: `_unwrapped`).
DROPPED_WITH_CONTENT = frozenset("""embed frame frameset iframe noembed noframes script style svg template title
    xmp""".split())
#: Elements whose content is text, tags and all, to the cleaner as to a browser.
_TEXT_ONLY = frozenset({"textarea", "xmp"})
_DROPPED_CONTAINERS = DROPPED_WITH_CONTENT - {"embed", "frame"}  # not void: they hold what they drop
_ALIGN_CLASSES = {"align-left", "align-center", "align-right"}
_ANCHOR_ID = re.compile(r"[a-z][a-z0-9-]*-[0-9]+-[0-9]+\Z")


def _keep_id(tag: str, attribute: str, value: str) -> str | None:
    """nh3 attribute filter: only citation-like anchor ids survive (of which the renderer keeps its citations'
    own, `_citation_ids_only`, so raw HTML cannot plant ids); other values as HTML5 allows them
    (`attribute_value`)."""
    if attribute == "id":
        return value if tag == "a" and _ANCHOR_ID.match(value) else None
    return mathml_value(attribute, value) if tag in MATHML_TAGS else attribute_value(tag, attribute, value)


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


_UNWRAPPED_TAG = re.compile(r"<(/?)(noscript|select|option|optgroup)(?=[\s/>])[^>]*>", re.IGNORECASE)


def _unwrapped(html: str) -> str:
    """`html` without the tags of its <noscript>, <select>, <option> and <optgroup> elements, their content
    read as the text around it: a noscript's (the text a reader without scripts gets) is HTML, cleaned as the
    rest, where the cleaner, which parses as a browser running scripts does, takes it for text, tags and all;
    a select's options are its text, " / " between them (the cleaner runs them together: "OneTwo"). The tags of an
    HTML element in a formula and of a MathML element outside one go too, their text kept (`formula_text_kept`)."""
    if _UNWRAPPED_TAG.search(html) is None:
        return formula_text_kept(html, DROPPED_WITH_CONTENT)  # nearly every text: it holds none of them
    first = True  # no option yet in the open select: nothing goes before it

    def replaced(match: re.Match[str]) -> str:
        nonlocal first
        name = match.group(2).lower()
        if name == "select":
            first = True
        elif name == "option" and not match.group(1):
            shown, first = ("" if first else " / "), False
            return shown
        return ""

    return formula_text_kept(_UNWRAPPED_TAG.sub(replaced, html), DROPPED_WITH_CONTENT)


@lru_cache(maxsize=1)
def _html_cleaner() -> nh3.Cleaner:
    """The allow-list cleaner, built once (an nh3 Cleaner is immutable once made)."""
    return _cleaner(embeds=False)


@lru_cache(maxsize=1)
def _embed_cleaner() -> nh3.Cleaner:
    """`_html_cleaner` keeping each <iframe> with its `src`, `title` and `srcdoc`, and each <xmp> (see
    `embeds_as_links`)."""
    return _cleaner(embeds=True)


_SHOWN_OTHERWISE = frozenset({"iframe", "xmp"})  # kept by `_embed_cleaner` for `embeds_as_links` to rewrite


def _cleaner(embeds: bool) -> nh3.Cleaner:
    return nh3.Cleaner(
        tags=set(ALLOWED_TAGS | MATHML_TAGS) | (_SHOWN_OTHERWISE if embeds else set()),
        clean_content_tags=set(DROPPED_WITH_CONTENT) - (_SHOWN_OTHERWISE if embeds else set()),
        attributes={
            "a": {"href", "title", "id"}, "abbr": {"title"}, "span": {"lang"},
            "img": {"src", "alt", "title"}, "ol": {"start"}, "details": {"open"},
            "td": {"colspan", "rowspan"}, "th": {"colspan", "rowspan", "scope"},
            **({"iframe": {"src", "title", "srcdoc"}} if embeds else {}), **MATHML_ATTRIBUTES,
        },
        attribute_filter=_keep_id,
        link_rel=None,  # set by the token walk on outside links only
        tag_attribute_values={"a": {"rel": {OUTSIDE_REL}}},
        url_schemes=set(OUTSIDE_SCHEMES),
        allowed_classes={"sup": {"cite"}, "th": _ALIGN_CLASSES, "td": _ALIGN_CLASSES},
        strip_comments=True,
    )


_IFRAME_TAG = re.compile(r"<(?:iframe|xmp)[\s/>]", re.IGNORECASE)
#: In `_embed_cleaner`'s output (see `_outside_rel`), an <iframe> with its content, or an <xmp> with its content
#: (raw text, written as it is, which ends at the first `</iframe>`, `</xmp>`), or any other start tag, matched
#: whole so that no attribute's value is searched.
_IFRAME_OR_TAG = re.compile(r'<iframe((?:\s+[a-z-]+="[^"]*")*)>.*?</iframe>|<xmp>(.*?)</xmp>'
                            r'|<[a-z][a-z0-9]*(?:\s+[a-z-]+="[^"]*")*>', re.DOTALL)
_ATTRIBUTE = re.compile(r'\s+([a-z-]+)="([^"]*)"')
_WEB = re.compile(r"(?:https?:)?//", re.IGNORECASE)


def _embedded(attributes: str) -> tuple[str, str] | None:
    """(href, text) of the link an <iframe> of these attributes (as the cleaner writes them) is shown as: its
    http(s) `src` (a protocol-relative `//host/…` one as `https://host/…`: a page may be read from a file or an
    email, where it would lead nowhere), named by its `title` or else the address; None for one of a `srcdoc`
    or of no such `src`."""
    values = {name: html_lib.unescape(value) for name, value in _ATTRIBUTE.findall(attributes)}
    src = values.get("src", "")
    if "srcdoc" in values or not _WEB.match(src):
        return None
    href = "https:" + src if src.startswith("//") else src
    return href, " ".join(values.get("title", "").split()) or href


def embeds_as_links(html: str, cleaner: Cleaning, mark: Callable[[str, str], str] | None = None) -> str:
    """`html` cleaned by `cleaner`, each <iframe> of a web `src` as a link to the page it embeds (a video, a
    chart), which no page, feed or email shows embedded, and each <xmp> as a <pre> of its text as written, tags
    and all, its character references read as in a <textarea> (in a paragraph, Markdown writes a `&` or a `<` as
    one). With `mark`, each link (a raw `<a href>` or an embed's) is followed by `mark(href, text)`, its text
    read (see `plaintext.TextMarks`), in the order they stand. The link is made of the attributes the cleaner
    keeps and cleaned again."""
    if _IFRAME_TAG.search(html) is None and (mark is None or "<a" not in html.lower()):
        return cleaner.clean(html)  # nearly every text

    def link(match: re.Match[str]) -> str:
        if match.group(2) is not None:
            return f"<pre>{html_lib.escape(html_lib.unescape(match.group(2)), quote=False)}</pre>"
        if match.group(1) is None:
            return match.group(0)
        embedded = _embedded(match.group(1))
        if embedded is None:
            return ""
        href, text = embedded
        return f'<a href="{html_lib.escape(href)}">{html_lib.escape(text)}</a>'

    shown = _IFRAME_OR_TAG.sub(link, _embed_cleaner().clean(html))
    return cleaner.clean(_marked_links(shown, mark) if mark is not None else shown)


#: In `embeds_as_links`'s HTML (see `_outside_rel`), a link with its content, which ends at its `</a>`.
_LINK = re.compile(r'<a((?:\s+[a-z-]+="[^"]*")*)>(.*?)</a>', re.DOTALL)
_ANY_TAG = re.compile(r'</?[a-z][a-z0-9-]*(?:\s+[a-z-]+="[^"]*")*>')


def _marked_links(html: str, mark: Callable[[str, str], str]) -> str:
    """`html` with each link that has an `href` and words to read followed by `mark(href, text)`, in order."""
    def marked(match: re.Match[str]) -> str:
        href = dict(_ATTRIBUTE.findall(match.group(1))).get("href")
        text = " ".join(html_lib.unescape(_ANY_TAG.sub("", match.group(2))).split())
        if href is None or not text:
            return match.group(0)
        return match.group(0) + html_lib.escape(mark(html_lib.unescape(href), text), quote=False)

    return _LINK.sub(marked, html)


def embeds(fragment: str) -> list[str]:
    """The `src` of each <iframe> of a text's raw HTML (see `raw_html`) that its page shows as a link, in order."""
    if _IFRAME_TAG.search(fragment) is None:
        return []
    return [embedded[0] for match in _IFRAME_OR_TAG.finditer(_embed_cleaner().clean(_unwrapped(fragment)))
            if match.group(1) is not None and (embedded := _embedded(match.group(1))) is not None]


class Cleaning(Protocol):
    """What cleans HTML: an nh3 Cleaner, or `_TextCleaner`."""

    def clean(self, html: str) -> str: ...


class _TextCleaner:
    """Plain text of HTML, as the allow-list cleaner keeps it; a formula (<math>) as its text (`mathml_as_text`)."""

    def __init__(self) -> None:
        self.text = nh3.Cleaner(tags=set(), clean_content_tags=set(DROPPED_WITH_CONTENT))

    def clean(self, html: str) -> str:
        if "<math" in html.lower():  # kept as the pages keep it first: the text cleaner drops it whole
            html = mathml_as_text(mathml_only(_html_cleaner().clean(html)))
        return self.text.clean(html)


@lru_cache(maxsize=1)
def _text_cleaner() -> _TextCleaner:
    return _TextCleaner()


def raw_html_text(html: str, mark: Callable[[str, str], str] | None = None, unwrap: bool = True) -> str:
    """The text a reader is shown of `html` (raw HTML, or Markdown rendered with some in it): the tags `_unwrapped`
    takes out gone (unless not `unwrap`), cleaned to its text, each web embed read as its link (`embeds_as_links`,
    given to `mark` when one is given), its character references read."""
    return html_lib.unescape(embeds_as_links(_unwrapped(html) if unwrap else html, _text_cleaner(), mark))


#: A Markdown link to a scheme markdown-it never makes a link of: it stays as its text, brackets and all.
_NO_LINK = re.compile(rf"\]\(\s*<?\s*({'|'.join(NEVER_LINKED)}):", re.IGNORECASE)


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
    fragment = raw_html(tokens)
    if not fragment:
        return found
    kept, written = _Markup.of(mathml_only(_html_cleaner().clean(_unwrapped(fragment)))), _Markup.of(fragment)
    kept_tags, kept_attributes = kept.tags, kept.attributes  # each made once: a paste may hold thousands of tags
    linked = len(embeds(fragment)) == sum(tag == "iframe" for tag, _ in written.elements)  # `check` says so
    for tag, attributes in written.elements:
        if tag == "iframe" and linked:
            continue
        if tag not in kept_tags:
            found.append(f"<{tag}>")
        else:
            found.extend(f"{name}= of <{tag}>" for name in attributes if (tag, name) not in kept_attributes)
    return list(dict.fromkeys(found))


def raw_html(tokens: list[Token]) -> str:
    """The raw HTML pieces of a text's `tokens` on their own, joined in order."""
    # Not the page's HTML that `screen_reader` reads: `left_out` compares them by tag and attribute, so there a
    # Markdown link's href= would hide one the cleaner takes from a raw <a>, and markup the Markdown makes and
    # the cleaner trims (a fence's class="language-…", an image's ftp: src=) would be said.
    return "".join(token.content for block in tokens for token in (
        [block] if block.type == "html_block" else block.children or [] if block.type == "inline" else [])
        if token.type in ("html_block", "html_inline"))


def refused_raw_images(fragment: str) -> list[str]:
    """The `src` of each raw `<img>` of `fragment` (see `raw_html`) that a page shows as its alt text for its
    scheme (`refused_image`: `ftp:`, `mailto:`, `entry:`), in order; `check` says so as of a Markdown image."""
    return _Markup.of(fragment).refused_images if "<img" in fragment.lower() else []


class _Markup(HTMLParser):
    """The elements of an HTML fragment: (tag, attribute names), in order; none in a <textarea> or an <xmp>, whose
    content is text, tags and all, to the cleaner as to a browser. An `<img>` shown as its alt text for its scheme has
    its `src` in `refused_images` instead (unless in an element dropped with its content)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, tuple[str, ...]]] = []
        self.refused_images: list[str] = []
        self.in_text: str | None = None  # the element of `_TEXT_ONLY` open here
        self.dropped = 0  # elements dropped with their content open here

    @classmethod
    def of(cls, fragment: str) -> _Markup:
        parser = cls()
        parser.feed(fragment)
        parser.close()
        return parser

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.in_text is not None:
            return
        src = dict(attrs).get("src") if tag == "img" and not self.dropped else None
        if src is not None and refused_image(src):
            self.refused_images.append(src)
            attrs = [(name, value) for name, value in attrs if name != "src"]
        self.elements.append((tag, tuple(name for name, _ in attrs)))
        self.in_text = tag if tag in _TEXT_ONLY else None
        self.dropped += tag in _DROPPED_CONTAINERS

    def handle_endtag(self, tag: str) -> None:
        if self.in_text is not None and tag != self.in_text:
            return  # text, as the tags before it
        self.in_text = None
        if tag in _DROPPED_CONTAINERS and self.dropped:
            self.dropped -= 1

    @property
    def tags(self) -> set[str]:
        return {tag for tag, _ in self.elements}

    @property
    def attributes(self) -> set[tuple[str, str]]:
        return {(tag, name) for tag, names in self.elements for name in names}
