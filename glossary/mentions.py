"""Which stories mention which entries: explicit terms plus matches, minus suppressions."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping
from html import unescape
from html.entities import html5

from glossary.folding import label_key
from glossary.matching import Mention, Term, TermMatcher
from newsroom.build.model import Content, Record
from newsroom.diagnostics import Diagnostic
from newsroom.drafts import is_draft
from newsroom.names import reader_name
from newsroom.render.markdown import code_spans, may_hold_code

STORY_FIELDS = ("headline", "summary", "body")
#: The story fields written in Markdown (the headline is plain text).
MARKDOWN_FIELDS = frozenset({"summary", "body"})


def entry_labels(entry: Record, lang: str) -> tuple[str, ...]:
    """The labels matched in story text: headword, aliases and match-only forms."""
    text = entry.text(lang)
    labels = [text.get("headword"), *(text.get("aliases") or []), *(text.get("match_forms") or [])]
    return tuple(dict.fromkeys(label for label in labels if label))


def label_clashes(content: Content, languages: Iterable[str]) -> Iterator[Diagnostic]:
    """A name (headword, alias, match form) that two entries share in one language: mentions of it in
    stories link the first of them only, in the order the matcher is given them (and two headwords alike
    cannot be told apart in the A–Z index). A warning at each later entry."""
    for lang in languages:
        owners: dict[tuple[bool, str], str] = {}
        # The order `matchers` gives them, drafts last: a public build matches no draft's names, so a name a
        # draft shares is warned of at the draft, whichever slug comes first.
        for slug, entry in sorted(content.entries.items(), key=lambda item: is_draft(item[1])):
            text = entry.text(lang)
            named = [(f"{lang}.headword", text.get("headword"))]
            named += [(f"{lang}.{field}[{i}]", label) for field in ("aliases", "match_forms")
                      for i, label in enumerate(text.get(field) or [])]
            shown: dict[str, str] = {}  # the names the page shows (headword, aliases): each once (`distinct_names`)
            for field, label in named:
                if not label or not label.strip():
                    continue
                if not field.endswith("]") or ".aliases[" in field:
                    first = shown.setdefault(reader_name(label), field)
                    if first != field:
                        yield Diagnostic(entry.location, None, field, (
                            f"{label!r} is this entry's {first} already: \"Also known as\" shows each name "
                            "once; take it out"), "warning")
                        continue
                owner = owners.setdefault(label_key(label), slug)
                if owner != slug:
                    yield Diagnostic(entry.location, None, field, (
                        f"{label!r} is also a name of entry {owner!r}: mentions of it in stories link that entry, "
                        "not this one; give one of them another name"), "warning")


def matchers(content: Content, languages: Iterable[str]) -> dict[str, TermMatcher]:
    """One matcher per language over every entry's labels in that language."""
    return {
        lang: TermMatcher([Term(slug, entry_labels(entry, lang)) for slug, entry in content.entries.items()
                           if entry_labels(entry, lang)], lang)
        for lang in languages
    }


def story_texts(story: Record, lang: str) -> list[str]:
    """The fields of a story's text in `lang` that are searched for mentions."""
    text = story.text(lang)
    return [text.get(field) or "" for field in STORY_FIELDS]


def matched_terms(story: Record, by_lang: Mapping[str, TermMatcher]) -> list[str]:
    """The entries whose labels a story's text holds, in first-mention order (language by language,
    field by field), before its own `terms:` and `suppress_terms:` (see `mentions_of`)."""
    found: dict[str, None] = {}
    for lang, matcher in by_lang.items():
        for name, text in zip(STORY_FIELDS, story_texts(story, lang)):
            for mention in (markdown_mentions(matcher, text) if name in MARKDOWN_FIELDS else matcher.find(text)):
                found.setdefault(mention.slug)
    return list(found)


def markdown_mentions(matcher: TermMatcher, text: str) -> list[Mention]:
    """The mentions in a Markdown text: what `matcher` finds outside its code (inline code, code blocks),
    as the story's HTML links none there, and where it shows a name through a character reference
    (`AT&amp;T`, `&lt;GPU&gt;`), not in one (`&amp;`). The text is parsed only when it has a mention where it
    may hold code."""
    found = matcher.find(text) if "&" not in text else _shown_mentions(matcher, text)
    if not found or not may_hold_code(text, (mention.start for mention in found)):
        return found
    starts, ends = _disjoint(sorted(code_spans(text)))
    return [mention for mention in found
            if (at := bisect_left(starts, mention.end) - 1) < 0 or ends[at] <= mention.start]


def _disjoint(spans: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """`spans` (sorted by start, nested or overlapping ones too: a raw tag inside a code element) merged into
    disjoint ones, as their starts and their ends: the last span starting before a mention's end is then the
    only one it may overlap (a bisection, where a text of thousands of code spans and mentions compared every
    mention with every span)."""
    starts: list[int] = []
    ends: list[int] = []
    for start, end in spans:
        if ends and start <= ends[-1]:
            ends[-1] = max(ends[-1], end)
        else:
            starts.append(start)
            ends.append(end)
    return starts, ends


#: A character reference as Markdown reads one (a named one of HTML's, or a number), `;` included.
_CHARACTER_REFERENCE = re.compile(r"&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def _shown_mentions(matcher: TermMatcher, text: str) -> list[Mention]:
    """What `matcher` finds in `text` as the page shows its character references (decoded, but for one a
    backslash escapes), each mention with its offsets and surface in `text`; a mention beginning or ending
    inside a reference is none. Only texts with an `&` come here: most have none."""
    decoded: list[str] = []
    literals: list[tuple[int, int, int]] = []  # the text between references: (decoded start, raw start, length)
    length = position = 0
    for reference in _CHARACTER_REFERENCE.finditer(text):
        start = reference.start()
        name = reference.group(1)
        slashes = 0
        while slashes < start and text[start - slashes - 1] == "\\":
            slashes += 1
        if (not name.startswith("#") and f"{name};" not in html5) or slashes % 2:
            continue
        shown = unescape(reference.group())
        literals.append((length, position, start - position))
        decoded += [text[position:start], shown]
        length += start - position + len(shown)
        position = reference.end()
    if not literals:
        return matcher.find(text)
    literals.append((length, position, len(text) - position))
    decoded.append(text[position:])
    starts = [literal[0] for literal in literals]

    def raw_offset(offset: int) -> int | None:
        """The offset in `text` of a decoded offset; None inside a reference."""
        decoded_start, raw_start, size = literals[bisect_right(starts, offset) - 1]
        return raw_start + offset - decoded_start if offset - decoded_start <= size else None

    mentions: list[Mention] = []
    for mention in matcher.find("".join(decoded)):
        start, end = raw_offset(mention.start), raw_offset(mention.end)
        if start is not None and end is not None:
            mentions.append(Mention(mention.slug, start, end, text[start:end]))
    return mentions


def mentions_of(story: Record, matched: Iterable[str], entries: Mapping[str, object]) -> tuple[str, ...]:
    """The entries a story mentions: its `terms:`, then those `matched` in its text (see `matched_terms`),
    each once, of the existing `entries`, without its `suppress_terms:`."""
    terms, suppressed = story.data.get("terms"), story.data.get("suppress_terms")
    if not terms and not suppressed:  # most stories: what matched, each once already
        return tuple(slug for slug in matched if slug in entries)
    dropped = set(suppressed or [])
    return tuple(slug for slug in dict.fromkeys([*(terms or []), *matched]) if slug in entries and slug not in dropped)


def story_mentions(content: Content, by_lang: Mapping[str, TermMatcher]) -> dict[str, tuple[str, ...]]:
    """{story slug: entry slugs it mentions, in first-mention order}."""
    return {slug: mentions_of(story, matched_terms(story, by_lang), content.entries)
            for slug, story in content.stories.items()}


def in_the_news(content: Content, mentions: Mapping[str, tuple[str, ...]],
                visible_issues: Iterable[int]) -> dict[str, list[str]]:
    """{entry slug: story slugs mentioning it, newest issue first} over the visible issues, given newest
    first (see issues.visibility.latest_first)."""
    rank = {number: index for index, number in enumerate(visible_issues)}
    news: dict[str, list[str]] = {slug: [] for slug in content.entries}
    ordered = sorted((s for s in content.stories.values() if s.data["issue"] in rank),
                     key=lambda s: (rank[s.data["issue"]], s.data["section"], s.data["position"], s.key))
    for story in ordered:
        for entry in mentions.get(story.key, ()):
            news[entry].append(story.key)
    return news
