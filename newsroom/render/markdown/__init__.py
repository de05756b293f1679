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

from newsroom.render.markdown.cleaning import ALLOWED_TAGS, DROPPED_WITH_CONTENT, left_out
from newsroom.render.markdown.code import code_spans, may_hold_code
from newsroom.render.markdown.links import (
    INTERNAL_KINDS,
    OUTSIDE_REL,
    OUTSIDE_SCHEMES,
    LinkResolver,
    References,
    SourceAnchors,
    SourceUrls,
    internal_target,
    link_problem,
)
from newsroom.render.markdown.memo import (PLAIN_AHEAD, PLAIN_ON_THE_SPOT, ReferenceStore, remembered_references,
                                           text_key)
from newsroom.render.markdown.parsing import DEFAULT_MAX_NESTING, prose_tokens
from newsroom.render.markdown.plaintext import TextMarks, plain_text, reading_text
from newsroom.render.markdown.references import citation_backrefs, find_references
from newsroom.render.markdown.renderer import DeferredHtml, MarkdownRenderer, headings_under
from newsroom.render.markdown.screen_reader import formulas_without_alttext, images_without_alt, unnamed_links

__all__ = [
    "ALLOWED_TAGS", "DEFAULT_MAX_NESTING", "DROPPED_WITH_CONTENT", "INTERNAL_KINDS", "OUTSIDE_REL", "OUTSIDE_SCHEMES",
    "PLAIN_AHEAD", "PLAIN_ON_THE_SPOT", "DeferredHtml", "LinkResolver", "MarkdownRenderer", "ReferenceStore",
    "References", "SourceAnchors", "SourceUrls", "TextMarks", "citation_backrefs", "code_spans", "find_references",
    "formulas_without_alttext", "headings_under", "images_without_alt", "internal_target", "left_out", "link_problem",
    "may_hold_code", "plain_text", "prose_tokens", "reading_text",
    "remembered_references", "text_key", "unnamed_links",
]
