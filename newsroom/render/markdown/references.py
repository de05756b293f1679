"""What a text points at (`find_references`), remembered across builds, with its plain text and HTML
worked out ahead from the same parse; the citation marks' ids for links back."""

from __future__ import annotations

from functools import lru_cache, partial

from markdown_it.token import Token

from newsroom.render.markdown.cleaning import embeds, raw_html, refused_raw_images
from newsroom.render.markdown.links import References, SourceAnchors, _classify, refused_image
from newsroom.render.markdown.memo import _AHEAD, _STORES, PLAIN_AHEAD, PLAIN_ON_THE_SPOT, text_key
from newsroom.render.markdown.parsing import DEFAULT_MAX_NESTING, _parse, _parser, _Prose, _scanner
from newsroom.render.markdown.plaintext import _plain_in
from newsroom.render.markdown.renderer import MarkdownRenderer


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
            plain.put(key, _plain_in(_parser(max_nesting), tokens, text))
    else:
        found = _references(text, max_nesting)
    # Most texts point at nothing: 0 stores (and reads back) much faster than five empty lists.
    store.put(key, [list(part) for part in found] if found != _NONE else 0)
    return found


_NONE = References()


@lru_cache(maxsize=1)
def _ahead_renderer() -> MarkdownRenderer:
    """Renders texts ahead, with placeholder citation anchors (it resolves no internal link: it gets
    texts without one)."""
    return MarkdownRenderer(resolve=lambda kind, target: None, citation_href=SourceAnchors(_AHEAD + "s"))


def _placeholder_href(links: list[list[str]], kind: str, target: str) -> str:
    """The placeholder href of an internal link rendered ahead: its place in `links`, where it is added."""
    links.append([kind, target])
    return f"{_AHEAD}l{len(links) - 1}"


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
    images: list[str] = []
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
            elif token.type == "image" and refused_image(src := str(token.attrGet("src") or "")):
                images.append(src)
    fragment = raw_html(tokens)
    images.extend(refused_raw_images(fragment))
    return References(
        entries=tuple(found["entry"]), pages=tuple(found["page"]),
        issues=tuple(int(n) for n in found["issue"]), citations=tuple(citations),
        malformed=tuple(malformed), refused_images=tuple(images), embeds=tuple(embeds(fragment)),
    )


def citation_backrefs(text: str, *, anchor_prefix: str = "cite",
                      max_nesting: int = DEFAULT_MAX_NESTING) -> dict[int, tuple[str, ...]]:
    """For each cited source number, the ids of its citation marks in `text`, for links back."""
    ids: dict[int, list[str]] = {}
    for number in find_references(text, max_nesting=max_nesting).citations:
        ids.setdefault(number, []).append(f"{anchor_prefix}-{number}-{len(ids.get(number, [])) + 1}")
    return {number: tuple(anchors) for number, anchors in sorted(ids.items())}
