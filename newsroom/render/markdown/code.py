"""Where a text shows code (code blocks, inline code spans, raw HTML code elements) or shows nothing (raw
HTML elements the cleaner drops with their content, and every raw HTML tag itself, its attributes included):
a glossary term found there is no mention."""

from __future__ import annotations

import heapq
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable

from newsroom.render.markdown.cleaning import DROPPED_WITH_CONTENT
from newsroom.render.markdown.parsing import _SURROGATE, DEFAULT_MAX_NESTING, _parser


def may_hold_code(text: str, at: Iterable[int]) -> bool:
    """Whether `text` may show code at any of the offsets `at`: it has a backtick or a tilde fence, or the
    line of one of them is indented. Most texts have none, which this tells without parsing them, and
    looking at the line before each offset only (not at every line of the text)."""
    if "`" in text or ("~" in text and "~~~" in text) or ("<" in text and (
            _RAW_TAG.search(text) is not None or "<!--" in text)):
        return True
    if "](" in text or "]:" in text:
        if _LINK_TITLE.search(text) is not None or _DEFINITION_TITLE.search(text) is not None:
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
    `<svg>`, … : the page shows nothing of them), every raw HTML tag (`<abbr title="…">`, `<img alt="…">`:
    the page shows no attribute as text, nor does an email's text part) and a Markdown link's or image's
    title (`[x](https://… "…")`, a tooltip), in order (what a glossary term found there is not a mention of;
    see glossary.mentions). It parses the text: see `may_hold_code`."""
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
        spans = sorted([*spans, *_raw_elements(text, spans), *_raw_tags(text, spans)])
    if "](" in text or "]:" in text:
        spans = sorted([*spans, *_titles(text, spans)])
    return spans


#: The opening tag of a raw HTML code element or formula (the first closing tag of its name ends it), or of an
#: element the cleaner drops with its content (which an unclosed one runs to the text's end). A `<` a backslash
#: escapes is literal text on the page, and starts neither.
_RAW_OPENING = re.compile(
    r"(?<!\\)(?:\\\\)*(<(?:(code|pre|kbd|samp|math)"
    rf"|({'|'.join(sorted(DROPPED_WITH_CONTENT))}))(?=[\s/>])[^<>]*>)",
    re.IGNORECASE)


def _raw_elements(text: str, code: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The (start, end) offsets of the raw HTML elements `_RAW_OPENING` begins in `text`, their closing tags
    included, but for a tag shown as code (in one of the `code` spans, e.g. `` `<style>` ``), which starts none.

    The closing tag is looked for apart, once per name past the last failed look: a text of thousands of
    unclosed `<code>` would otherwise be searched to its end from each (quadratic)."""
    found: list[tuple[int, int]] = []
    unclosed: set[str] = set()  # names no closing tag follows from here on
    position = 0
    holding = _FirstHolding(code)
    while (opening := _RAW_OPENING.search(text, position)) is not None:
        start, name = opening.start(1), (opening.group(2) or opening.group(3)).lower()
        code_end = holding(start)
        if code_end is not None:
            position = code_end
            continue
        closing = None if name in unclosed else _closing_tag(name).search(text, opening.end())
        if closing is None and opening.group(2):  # an unclosed code element is no element: its `<code>` is a tag
            unclosed.add(name)
            position = opening.end(1)
            continue
        end = len(text) if closing is None else closing.end()
        found.append((start, end))
        position = end
    return found


class _FirstHolding:
    """The end of the first of `spans` (in their order) that holds an offset, or None, asked for offsets that
    only grow: the spans that start by then wait in a heap by their place, and those the offsets have passed
    leave it, each once (a text of thousands of raw elements and code spans compared each with each)."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self._spans = sorted((start, end, place) for place, (start, end) in enumerate(spans))
        self._next = 0  # the first of `_spans` not yet in the heap
        self._started: list[tuple[int, int]] = []  # (place, end) of the spans started

    def __call__(self, offset: int) -> int | None:
        while self._next < len(self._spans) and self._spans[self._next][0] <= offset:
            start, end, place = self._spans[self._next]
            heapq.heappush(self._started, (place, end))
            self._next += 1
        while self._started and self._started[0][1] <= offset:
            heapq.heappop(self._started)  # ended before this offset, and so before every later one
        return self._started[0][1] if self._started else None


def _closing_tag(name: str) -> re.Pattern[str]:
    return re.compile(rf"</{name}\s*>", re.IGNORECASE)


#: A raw HTML tag as CommonMark reads one: a start tag with its attributes (a value quoted or not, over lines),
#: or an end tag; a `<` a backslash escapes starts none. The page shows none of it as text: a `title` is a
#: tooltip, a raw `<img>`'s `alt` is read by no text part (a Markdown image's is), the cleaner drops an unknown
#: tag and an attribute it does not know.
_RAW_TAG = re.compile(
    r"(?<!\\)(?:\\\\)*(<(?:[A-Za-z][A-Za-z0-9-]*"
    r"""(?:\s+[A-Za-z_:][A-Za-z0-9_.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)*\s*/?"""
    r"|/[A-Za-z][A-Za-z0-9-]*\s*)>)")
#: A raw HTML comment's opening (the cleaner drops the comment): it runs to the first `-->`.
_COMMENT = re.compile(r"(?<!\\)(?:\\\\)*(<!--)")


def _raw_tags(text: str, code: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The (start, end) offsets of the raw HTML tags and comments in `text`, but for one that starts in one of
    the `code` spans (`` `<abbr title="x` ``), which the page shows as code, and text after it as text."""
    found = [tag.span(1) for tag in _RAW_TAG.finditer(text)]
    position = 0
    while (comment := _COMMENT.search(text, position)) is not None:
        end = text.find("-->", comment.end(1))
        if end < 0:
            break  # unclosed: no later one closes either
        found.append((comment.start(1), end + 3))
        position = end + 3
    shown_as_code = _covered(code)
    return sorted(span for span in found if not shown_as_code(span[0]))


#: A Markdown link's or image's title, as CommonMark reads one after the destination: `"…"`, `'…'` or `(…)`
#: (a backslash escapes the closing mark), inline (`[x](url "title")`) or in a link reference definition
#: (`[x]: url "title"`). The page shows it only as a tooltip, the email's text part not at all.
_TITLE = r"""("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\))"""
#: The destination before it is optional, and possessive, as are the spaces before it: the spaces before the title
#: are then read once, where `\s*` + an empty destination + `\s+` tried every split of them, at every `](` (a
#: `](` and 40 KB of spaces took 10 s).
_LINK_TITLE = re.compile(r"\]\((?:\s*+(?:<[^<>\n]*>|[^\s()<]++(?:\([^\s()]*\)[^\s()]*)*+|(?:\([^\s()]*\)[^\s()]*)++))?"
                         r"\s+" + _TITLE + r"\s*\)", re.DOTALL)
_DEFINITION_TITLE = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]*\n?[ \t]*(?:<[^<>\n]*>|\S+)\s+" + _TITLE + r"[ \t]*$",
                               re.MULTILINE | re.DOTALL)


def _titles(text: str, code: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The (start, end) offsets of the Markdown link and image titles in `text`, but for one whose link
    starts in one of the `code` spans (`` `[x](y "z")` `` is code)."""
    shown_as_code = _covered(code)
    return [found.span(1) for pattern in (_LINK_TITLE, _DEFINITION_TITLE) for found in pattern.finditer(text)
            if not shown_as_code(found.start())]


def _covered(spans: list[tuple[int, int]]) -> Callable[[int], bool]:
    """Whether an offset lies in one of `spans` (in any order, overlapping or not): they are merged into
    disjoint ones and the one an offset may lie in is found by bisection, where a text of thousands of tags and
    code spans compared each tag with each span (80 KB took 4 s)."""
    starts: list[int] = []
    ends: list[int] = []
    for start, end in sorted(span for span in spans if span[0] < span[1]):
        if ends and start <= ends[-1]:
            ends[-1] = max(ends[-1], end)
        else:
            starts.append(start)
            ends.append(end)
    return lambda offset: (at := bisect_right(starts, offset) - 1) >= 0 and offset < ends[at]


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
