"""`MarkdownRenderer`: content Markdown to sanitised HTML, block or inline, with citation marks and
internal links resolved; `DeferredHtml` renders it on first use."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field

import nh3
from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup, escape

from newsroom.render.markdown.cleaning import _html_cleaner, _outside_rel, _unwrapped, embeds_as_links
from newsroom.render.markdown.conformance import conform, needs_conform
from newsroom.render.markdown.links import OUTSIDE_REL, LinkResolver, SourceAnchors, _classify
from newsroom.render.markdown.mathml import mathml_only
from newsroom.render.markdown.memo import _AHEAD, _STORES, PLAIN_AHEAD, text_key
from newsroom.render.markdown.parsing import DEFAULT_MAX_NESTING, _parse, _parser, _Prose, _prose_html

_ANCHOR_PREFIX = re.compile(r"[a-z][a-z0-9-]*\Z")


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
        blocks = [token.content for token in tokens if token.type == "html_block"]
        inline = [child.content for token in tokens if token.type == "inline" and token.children
                  for child in token.children if child.type == "html_inline"]
        raw_html = bool(blocks or inline)
        # With raw HTML about, the citations' ids carry a mark no text can know, so that only they keep theirs.
        mark = _CITATION_MARK if raw_html else ""
        for token in tokens:
            if token.type in ("th_open", "td_open"):
                _alignment_as_class(token)
            elif token.type == "inline" and token.children:
                token.children = self._prepare_inline(token.children, mark + anchor_prefix, counts)
        html = self._md.renderer.render(tokens, self._md.options, {})
        html = embeds_as_links(_unwrapped(html), self._cleaner) if raw_html else self._cleaner.clean(html)
        if raw_html:
            html = _citation_ids_only(html)
        # markdown-it writes valid structure; an editor's raw HTML may put an element where none may be, and
        # an image whose URL the cleaner left out (`data:`) has no source.
        html = conform(html) if needs_conform(blocks, inline, html) else html
        return Markup(_outside_rel(mathml_only(html) if raw_html else html))

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


_ID = re.compile(r' id="([^"]*)"')
_CITATION_MARK = "m" + secrets.token_hex(8) + "-"


def _citation_ids_only(html: str) -> str:
    """The cleaner's `html` with its citations' anchor ids (marked, see `_render`) and no other: a raw
    `<a id="cite-1-1">` would repeat one, or another text's on the page, and a page's ids are unique."""
    return _ID.sub(lambda match: f' id="{match.group(1)[len(_CITATION_MARK):]}"'
                   if match.group(1).startswith(_CITATION_MARK) else "", html)


#: A tag of the cleaner's output: `<name` + ` name="value"`* + `>` (see `_outside_rel`), so a heading tag is never
#: taken for one inside an attribute's value; a text's headings carry no attributes.
_TAG = re.compile(r'<(/?)([a-z][a-z0-9]*)((?:\s+[a-z-]+="[^"]*")*)>')
_TEXT_HEADINGS = frozenset({"h2", "h3", "h4", "h5", "h6"})


def headings_under(html: object, heading: str | int) -> Markup:
    """A rendered text's headings moved below the page's `heading` ("h3" or 3) that the text sits under: its
    top level (`#`, `##`: h2) one below it, the rest after (at most h6). A story's "## Background" under its
    h3 headline is an h4, not an h2 among the issue's sections: screen readers navigate by the outline."""
    level = int(str(heading).removeprefix("h"))
    text = str(escape(html))  # HTML (Markup, DeferredHtml) as it is; anything else is text, escaped as Jinja would
    if level <= 1 or "<h" not in text:
        return Markup(text)

    def moved(match: re.Match[str]) -> str:
        slash, name, attributes = match.groups()
        if name not in _TEXT_HEADINGS or attributes:
            return match.group(0)
        return f"<{slash}h{min(6, int(name[1]) + level - 1)}>"

    return Markup(_TAG.sub(moved, text))


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


#: An href a page may put in for a placeholder (see `MarkdownRenderer._rendered_ahead`): one that rendering
#: and the cleaner write out as it is (nothing they escape) and no scheme (the cleaner checks schemes, and
#: `_outside_rel` marks outside links). The site's own root-relative hrefs are such.
_PLAIN_HREF = re.compile(r"[A-Za-z0-9/._~#?=+%-]*\Z")
