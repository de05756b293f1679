"""A Markdown image's alt text (`alt_text`): what the page's `alt` attribute holds (`render_image`) and what
every text made from Markdown reads the image as (descriptions, search, feed summaries, the email's text part)."""

from __future__ import annotations

import html as html_lib
from collections.abc import Callable, Sequence

from markdown_it.token import Token


def alt_text(description: Sequence[Token] | None) -> str:
    """The alt text of an image whose description (what stands between `![` and `]`) parsed to `description`:
    its text as a reader is shown it, not as it is written. Emphasis, links and code spans read as their text
    (`*bold* alt` as "bold alt"), escapes and character references as the characters they stand for (`\\*` as
    "*", `&amp;` as "&"), an image in it as its own alt text, a line break as a space; a citation goes with the
    space before it, as plain text drops one; raw HTML reads as plain text reads it anywhere (its tags go, a
    `<script>` with its content)."""
    if not _holds_raw_html(description):
        return "".join(_read(description, str))
    # `cleaning` imports the parser, which renders images with this module: read raw HTML only when there is some.
    from newsroom.render.markdown.cleaning import raw_html_text

    return raw_html_text("".join(_read(description, lambda text: html_lib.escape(text, quote=False))))


def _holds_raw_html(description: Sequence[Token] | None) -> bool:
    return any(token.type == "html_inline" or token.type == "image" and _holds_raw_html(token.children)
               for token in description or ())


def _read(description: Sequence[Token] | None, escape: Callable[[str], str]) -> list[str]:
    """The pieces of `description`'s text, each text `escape`d, raw HTML as written."""
    pieces: list[str] = []
    for token in description or ():
        if token.type in ("text", "code_inline"):
            pieces.append(escape(token.content))
        elif token.type == "image":
            pieces.extend(_read(token.children, escape))
        elif token.type in ("softbreak", "hardbreak"):
            pieces.append(" ")
        elif token.type == "html_inline":
            pieces.append(token.content)
        elif token.type == "citation" and pieces:
            pieces[-1] = pieces[-1].rstrip(" \t")
    return pieces


def render_image(self: object, tokens: Sequence[Token], idx: int, options: object, env: object) -> str:
    """markdown-it's image, its `alt` the image's `alt_text` (markdown-it's own writes raw HTML's tags into it,
    and leaves a citation's space behind)."""
    token = tokens[idx]
    token.attrSet("alt", alt_text(token.children))
    return self.renderToken(tokens, idx, options, env)  # type: ignore[attr-defined]
