"""Sanitising: the allow-list nh3 cleaners of HTML and plain text, outside links' rel, and what of a text's
raw HTML the pages leave out (`left_out`)."""

from __future__ import annotations

import re
from functools import lru_cache
from html.parser import HTMLParser

import nh3

from newsroom.render.markdown.conformance import attribute_value
from newsroom.render.markdown.links import NEVER_LINKED, OUTSIDE_REL, OUTSIDE_SCHEMES
from newsroom.render.markdown.parsing import DEFAULT_MAX_NESTING, _parse, _parser, _Prose

#: The prose and table set, plus sup, details/summary, abbr and span (with lang).
ALLOWED_TAGS = frozenset("""a abbr b blockquote br caption cite code dd del details dfn dl dt em
    figcaption figure h2 h3 h4 h5 h6 hr i img ins kbd li mark ol p pre q s samp small span strong
    sub summary sup table tbody td tfoot th thead tr ul var wbr""".split())
#: Dropped together with their content: code, styling, embedded documents and frames (an <iframe>'s content is
#: raw text no browser shows: it shows the document its `src` or `srcdoc` holds, which a page does not embed).
#: Any other element the cleaner drops leaves its text: a <textarea>'s as written, tags and all (as the field
#: shows it), an <object>'s fallback content cleaned, and a <noscript>'s and a <select>'s (see `_unwrapped`).
DROPPED_WITH_CONTENT = frozenset("""applet embed frame frameset iframe math noembed noframes script style svg
    template title xmp""".split())
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


_UNWRAPPED_TAG = re.compile(r"<(/?)(noscript|select|option|optgroup)(?=[\s/>])[^>]*>", re.IGNORECASE)


def _unwrapped(html: str) -> str:
    """`html` without the tags of its <noscript>, <select>, <option> and <optgroup> elements, their content
    read as the text around it: a noscript's (the text a reader without scripts gets) is HTML, cleaned as the
    rest, where the cleaner, which parses as a browser running scripts does, takes it for text, tags and all;
    a select's options are its text, " / " between them (the cleaner runs them together: "OneTwo")."""
    if _UNWRAPPED_TAG.search(html) is None:
        return html  # nearly every text: it holds none of them
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

    return _UNWRAPPED_TAG.sub(replaced, html)


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
    # The raw pieces on their own, not the page's HTML that `screen_reader` reads: they are compared by tag and
    # attribute, so there a Markdown link's href= would hide one the cleaner takes from a raw <a>, and markup the
    # Markdown makes and the cleaner trims (a fence's class="language-…", an image's ftp: src=) would be said.
    raw = [token.content for block in tokens for token in (
        [block] if block.type == "html_block" else block.children or [] if block.type == "inline" else [])
        if token.type in ("html_block", "html_inline")]
    if not raw:
        return found
    fragment = "".join(raw)
    kept = _Markup.of(_html_cleaner().clean(_unwrapped(fragment)))
    kept_tags, kept_attributes = kept.tags, kept.attributes  # each made once: a paste may hold thousands of tags
    for tag, attributes in _Markup.of(fragment).elements:
        if tag not in kept_tags:
            found.append(f"<{tag}>")
        else:
            found.extend(f"{name}= of <{tag}>" for name in attributes if (tag, name) not in kept_attributes)
    return list(dict.fromkeys(found))


class _Markup(HTMLParser):
    """The elements of an HTML fragment: (tag, attribute names), in order; none in a <textarea>, whose content
    is text, tags and all, to the cleaner as to a browser."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, tuple[str, ...]]] = []
        self.in_textarea = False

    @classmethod
    def of(cls, fragment: str) -> _Markup:
        parser = cls()
        parser.feed(fragment)
        parser.close()
        return parser

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self.in_textarea:
            self.elements.append((tag, tuple(name for name, _ in attrs)))
            self.in_textarea = tag == "textarea"

    def handle_endtag(self, tag: str) -> None:
        if tag == "textarea":
            self.in_textarea = False

    @property
    def tags(self) -> set[str]:
        return {tag for tag, _ in self.elements}

    @property
    def attributes(self) -> set[tuple[str, str]]:
        return {(tag, name) for tag, names in self.elements for name in names}
