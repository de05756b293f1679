"""What the editor commands show: filtered entry lists and one entry in full, as plain text lines."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from glossary.graph import relations_of
from glossary.mentions import in_the_news, matchers, story_mentions
from glossary.staleness import age_in_months
from glossary.views import by_headword
from issues.visibility import latest_first
from newsroom.build.model import Content, Record
from newsroom.drafts import is_draft


@dataclass(frozen=True)
class EntryFilter:
    """Which entries `glossary list` shows; None means any."""

    category: str | None = None
    level: str | None = None
    stale_after: int | None = None  # months: only entries older than this

    def accepts(self, entry: Record, today: dt.date) -> bool:
        data = entry.data
        return ((self.category is None or data["category"] == self.category)
                and (self.level is None or data["level"] == self.level)
                and (self.stale_after is None or age_in_months(entry, today) > self.stale_after))


def headword(entry: Record, lang: str) -> str:
    return entry.text(lang).get("headword") or entry.key


def list_lines(content: Content, lang: str, selection: EntryFilter, today: dt.date) -> list[str]:
    """One line per entry in the dictionary order of `lang`: slug, headword, category, level, trend, status,
    and "draft" after a draft's (see newsroom.drafts)."""
    entries = by_headword((e for e in content.entries.values() if selection.accepts(e, today)), lang,
                          lambda entry: headword(entry, lang))
    rows = [(e.key, headword(e, lang), e.data["category"], e.data["level"], e.data["trend"],
             e.data["status"] + ("  draft" if is_draft(e) else "")) for e in entries]
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    return ["  ".join([*(value.ljust(width) for value, width in zip(row[:5], widths)), row[5]]).rstrip()
            for row in rows]


def show_lines(content: Content, slug: str, languages: tuple[str, ...], today: dt.date,
               stale_after: int, zone: ZoneInfo) -> Iterator[str]:
    """Everything an editor needs to review one entry, relations seen from both sides."""
    entry = content.entries[slug]
    data = entry.data
    age = age_in_months(entry, today)
    yield f"{slug}: " + " / ".join(f"{lang}: {headword(entry, lang)}" for lang in languages)
    how_old = (f"{-age} month{'s' if age < -1 else ''} in the future" if age < 0 else
               f"{age} month{'s' if age != 1 else ''} old{', STALE' if age > stale_after else ''}")
    yield (f"category: {data['category']} · level: {data['level']} · trend: {data['trend']} · "
           f"status: {data['status']} ({how_old})")
    if is_draft(entry):
        yield (f"draft: not published (build --drafts shows it; newsroom edit entry:{slug} --set draft=false "
               "publishes it)")
    if data.get("english_term"):
        yield f"in English: {data['english_term']}"
    if data.get("formerly"):
        yield f"formerly: {', '.join(data['formerly'])} (each old address leads here)"
    for lang in languages:
        text = entry.text(lang)
        yield f"{lang}: {text.get('definition') or '(no definition)'}"
        if text.get("aliases"):
            yield f"  also known as: {' · '.join(text['aliases'])}"
        if text.get("match_forms"):
            yield f"  matched also as: {' · '.join(text['match_forms'])}"
    groups = relations_of(content)[slug]
    for group, label in (("broader", "broader"), ("narrower", "narrower"), ("related", "on the edge"),
                         ("similar", "similar, but not the same")):
        if groups[group]:
            names = [link.slug if link.exists else f"{link.slug} (no entry)" if link.slug is not None
                     else f"{_name(link.name, languages)} (a name, no entry)" for link in groups[group]]
            yield f"{label}: {', '.join(names)}"
    yield f"sources: {len(data.get('sources') or [])}"
    provenance = data.get("provenance") or {}
    if provenance:
        dates = ", ".join(f"{key} {provenance[key]}" for key in ("written", "reviewed") if provenance.get(key))
        yield f"provenance: {provenance.get('method')}, {provenance.get('review') or 'no review'}" + \
            (f" ({dates})" if dates else "")
    yield from _news_lines(content, slug, languages, zone)


def _name(name: str | Mapping[str, str], languages: tuple[str, ...]) -> str:
    return name if isinstance(name, str) else " / ".join(f"{lang}: {name[lang]}" for lang in languages if lang in name)


def _news_lines(content: Content, slug: str, languages: tuple[str, ...], zone: ZoneInfo) -> Iterator[str]:
    published = latest_first(content, (n for n, issue in content.issues.items()
                                       if issue.data["status"] == "published"), zone)
    mentions = story_mentions(content, matchers(content, languages))
    stories = in_the_news(content, mentions, published)[slug]
    yield f"in the news: {len(stories)} stor{'y' if len(stories) == 1 else 'ies'}"
    for key in stories:
        story = content.stories[key]
        yield f"  issue {story.data['issue']}: {story.text(languages[0]).get('headline') or key} ({key})"
