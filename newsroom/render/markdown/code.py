"""Where a text shows code (code blocks, inline code spans, raw HTML code elements) or shows nothing (raw
HTML elements the cleaner drops with their content): a glossary term found there is no mention."""

from __future__ import annotations

import re
from collections.abc import Iterable

from newsroom.render.markdown.cleaning import DROPPED_WITH_CONTENT
from newsroom.render.markdown.parsing import _SURROGATE, DEFAULT_MAX_NESTING, _parser


def may_hold_code(text: str, at: Iterable[int]) -> bool:
    """Whether `text` may show code at any of the offsets `at`: it has a backtick or a tilde fence, or the
    line of one of them is indented. Most texts have none, which this tells without parsing them, and
    looking at the line before each offset only (not at every line of the text)."""
    if "`" in text or ("~" in text and "~~~" in text) or ("<" in text and _RAW_ELEMENT.search(text) is not None):
        return True
    for offset in at:
        line = text.rfind("\n", 0, offset) + 1
        if "    " in text[line:offset] or "\t" in text[line:offset]:
            return True
    return False


def code_spans(text: str, *, max_nesting: int = DEFAULT_MAX_NESTING) -> list[tuple[int, int]]:
    """The (start, end) offsets of what `text` shows as code: its code blocks, fenced or indented, line
    by line, its inline code spans with their backticks, and raw HTML's code elements (`<code>`, `<pre>`,
    `<kbd>`, `<samp>`, which the cleaner keeps) and those it drops with their content (`<script>`, `<style>`,
    `<svg>`, … : the page shows nothing of them), in order (what a glossary term found there is not a
    mention of; see glossary.mentions). It parses the text: see `may_hold_code`."""
    line_starts = [0, *(found.end() for found in re.finditer("\n", text))]
    line_starts.append(len(text))
    spans: list[tuple[int, int]] = []
    for token in _parser(max_nesting).parse(_SURROGATE.sub("\ufffd", text), {}):
        if token.map is None or token.type not in ("fence", "code_block", "inline"):
            continue
        start, end = (line_starts[min(line, len(line_starts) - 1)] for line in token.map)
        if token.type != "inline":
            spans.append((start, end))
        elif "`" in text[start:end]:
            spans.extend(_code_in_line_run(text, start, end))
    if "<" in text:
        spans = sorted([*spans, *_raw_elements(text, spans)])
    return spans


#: A raw HTML code element, its tags included (the first closing tag of its name ends it), or an element
#: the cleaner drops with its content (which an unclosed one runs to the text's end). A `<` a backslash
#: escapes is literal text on the page, and starts neither.
_RAW_ELEMENT = re.compile(
    r"(?<!\\)(?:\\\\)*(<(?:(code|pre|kbd|samp)(?=[\s/>])[^<>]*>.*?</\2\s*>"
    rf"|({'|'.join(sorted(DROPPED_WITH_CONTENT))})(?=[\s/>])[^<>]*>.*?(?:</\3\s*>|\Z)))",
    re.IGNORECASE | re.DOTALL)


def _raw_elements(text: str, code: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The (start, end) offsets of the raw HTML elements of `_RAW_ELEMENT` in `text`, but for a tag shown
    as code (in one of the `code` spans, e.g. `` `<style>` ``), which starts none."""
    found: list[tuple[int, int]] = []
    position = 0
    while (element := _RAW_ELEMENT.search(text, position)) is not None:
        start = element.start(1)
        code_end = next((end for code_start, end in code if code_start <= start < end), None)
        if code_end is None:
            found.append((start, element.end()))
        position = element.end() if code_end is None else code_end
    return found


_BACKTICKS = re.compile(r"`+")


def _code_in_line_run(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The inline code spans of one block's lines `text[start:end]`, as CommonMark finds them: a run of
    backticks (the first of which a backslash may escape) up to the next run of as many."""
    spans: list[tuple[int, int]] = []
    runs = [(found.start(), found.end()) for found in _BACKTICKS.finditer(text, start, end)]
    index = 0
    while index < len(runs):
        opening, opening_end = runs[index]
        index += 1
        slashes = opening - len(text[start:opening].rstrip("\\")) - start
        opening += slashes % 2  # an escaped backtick is a literal one
        length = opening_end - opening
        if not length:
            continue
        closing = next((at for at in range(index, len(runs)) if runs[at][1] - runs[at][0] == length), None)
        if closing is not None:
            spans.append((opening, runs[closing][1]))
            index = closing + 1
    return spans
