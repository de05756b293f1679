"""Which stories mention which entries: explicit terms plus matches, minus suppressions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from glossary.matching import Term, TermMatcher
from newsroom.build.model import Content, Record

STORY_FIELDS = ("headline", "summary", "body")


def entry_labels(entry: Record, lang: str) -> tuple[str, ...]:
    """The labels matched in story text: headword, aliases and match-only forms."""
    text = entry.text(lang)
    labels = [text.get("headword"), *(text.get("aliases") or []), *(text.get("match_forms") or [])]
    return tuple(dict.fromkeys(label for label in labels if label))


def matchers(content: Content, languages: Iterable[str]) -> dict[str, TermMatcher]:
    """One matcher per language over every entry's labels in that language."""
    return {
        lang: TermMatcher([Term(slug, entry_labels(entry, lang)) for slug, entry in content.entries.items()
                           if entry_labels(entry, lang)], lang)
        for lang in languages
    }


def story_mentions(content: Content, by_lang: Mapping[str, TermMatcher]) -> dict[str, tuple[str, ...]]:
    """{story slug: entry slugs it mentions, in first-mention order}."""
    result: dict[str, tuple[str, ...]] = {}
    for slug, story in content.stories.items():
        found: dict[str, None] = {term: None for term in story.data.get("terms") or []}
        for lang, matcher in by_lang.items():
            text = story.text(lang)
            for field in STORY_FIELDS:
                for mention in matcher.find(text.get(field) or ""):
                    found.setdefault(mention.slug)
        suppressed = set(story.data.get("suppress_terms") or [])
        result[slug] = tuple(s for s in found if s in content.entries and s not in suppressed)
    return result


def in_the_news(content: Content, mentions: Mapping[str, tuple[str, ...]],
                visible_issues: Iterable[int]) -> dict[str, list[str]]:
    """{entry slug: story slugs mentioning it, newest issue first} over the visible issues."""
    visible = set(visible_issues)
    news: dict[str, list[str]] = {slug: [] for slug in content.entries}
    ordered = sorted((s for s in content.stories.values() if s.data["issue"] in visible),
                     key=lambda s: (-s.data["issue"], s.data["section"], s.data["position"], s.key))
    for story in ordered:
        for entry in mentions.get(story.key, ()):
            news[entry].append(story.key)
    return news
