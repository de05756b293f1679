"""What a build computes from the content once, before planning pages: visibility, mentions, relations.

Also the memoised Babel formatters every page uses (the header shows the latest week).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any


from glossary.graph import relations_of
from glossary.matching import TermMatcher
from glossary.mentions import entry_labels, in_the_news, matchers, story_mentions
from issues.dates import format_month as _format_month
from issues.dates import format_week as _format_week
from issues.visibility import visible_numbers
from newsroom.build.model import Content, Record
from newsroom.build.state import Memo
from newsroom.settings import Settings



@lru_cache(maxsize=4096)
def format_week(start: dt.date, end: dt.date, lang: str) -> str:
    """Babel's interval formatting, memoised: every page's header shows the latest week."""
    return _format_week(start, end, lang)


@lru_cache(maxsize=4096)
def format_month(month: dt.date, lang: str) -> str:
    """Babel's month formatting, memoised (entries share a handful of status months)."""
    return _format_month(month, lang)


@dataclass(frozen=True)
class Derived:
    """What the build computes from the content once, before planning pages."""

    visible_issues: tuple[int, ...]  # newest first
    mentions: Mapping[str, tuple[str, ...]]  # story → entries
    news: Mapping[str, list[str]]  # entry → stories, newest first
    relations: Mapping[str, Mapping[str, list[Any]]]
    #: lang → every entry's labels. A page that reads one depends on its labels (TermMatcher's repr), not on
    #: the object, which is new on every build.
    matchers: Mapping[str, TermMatcher] = field(default_factory=dict)
    #: "lang/slug" → the entry's headword in that language (with the language fallback). A page that
    #: shows an entry's name depends on the name, not on the whole entry.
    headwords: Mapping[str, str] = field(default_factory=dict)
    #: story → what places it in the archive (issue, section, position, tags, languages with text). The
    #: archive's lists depend on these of every story, but on the text only of the stories they show.
    story_facts: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    #: Public issues (published, or scheduled and due by the build clock), newest first, even in a
    #: preview: what feeds and emails carry.
    public_issues: tuple[int, ...] = ()


def story_facts(content: Content, languages: tuple[str, ...]) -> dict[str, tuple[Any, ...]]:
    return {slug: (story.data["issue"], story.data["section"], story.data["position"],
                   tuple(story.data.get("tags") or ()), tuple(lang for lang in languages if story.has(lang)))
            for slug, story in content.stories.items()}


def derive(content: Content, settings: Settings, drafts: bool, now: dt.datetime | None = None,
           memo: Memo | None = None) -> Derived:
    """Visibility (see issues.visibility: drafts only in a preview; scheduled ones once `now` passes their
    time), mentions, "in the news", relations and term matchers, computed once per build.

    `memo` remembers story mentions across builds."""
    visible = visible_numbers(content, drafts, now)
    by_lang = matchers(content, settings.languages)
    if memo is None:
        mentions = story_mentions(content, by_lang)
    else:
        mentions = remembered_mentions(content, settings.languages, memo, by_lang)
    public = visible if not drafts else visible_numbers(content, False, now)
    return Derived(visible, mentions, in_the_news(content, mentions, visible), relations_of(content), by_lang,
                   headwords(content, settings.languages), story_facts(content, settings.languages), public)


def headwords(content: Content, languages: tuple[str, ...]) -> dict[str, str]:
    """Every entry's headword per language, falling back to the first language that has the entry."""
    found: dict[str, str] = {}
    for slug, entry in content.entries.items():
        for lang in languages:
            text = next((entry.text(other) for other in (lang, *languages) if entry.has(other)), {})
            found[f"{lang}/{slug}"] = text.get("headword") or slug
    return found


def remembered_mentions(content: Content, languages: tuple[str, ...], memo: Memo,
                        by_lang: Mapping[str, TermMatcher]) -> dict[str, tuple[str, ...]]:
    """`story_mentions`, matching only stories whose text or the glossary's labels changed since it was stored.

    Matching a story against every term is the costliest step of a build; its
    answer depends on the story and on the set of entries with their labels.
    """
    labels = repr([(slug, [entry_labels(entry, lang) for lang in languages])
                   for slug, entry in content.entries.items()])
    glossary = hashlib.sha1(labels.encode("utf-8", "surrogatepass")).hexdigest()
    found: dict[str, tuple[str, ...]] = {}
    missing: dict[str, tuple[Record, str]] = {}
    for slug, story in content.stories.items():
        key = hashlib.sha1(f"{glossary}|{story.content_hash}|{story.version}".encode()).hexdigest()
        known = memo.get(key)
        if known is None:
            missing[slug] = (story, key)
        else:
            found[slug] = tuple(known)
    if missing:
        fresh = story_mentions(dataclasses.replace(content, stories={k: v[0] for k, v in missing.items()}), by_lang)
        for slug, (_, key) in missing.items():
            memo.put(key, list(fresh[slug]))
            found[slug] = fresh[slug]
    return {slug: found[slug] for slug in content.stories}
