"""The search index's documents, as a language's pages show its records: what each is found by and what its
hit shows (see newsroom/render/search.py, which indexes them)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from glossary.collation import sort_key
from issues import archive
from issues.visibility import publication_time
from newsroom.build import urls
from newsroom.build.model import Record
from newsroom.build.pages import Planner
from newsroom.build.reference import LAYERS
from newsroom.build.tracking import whole_value
from newsroom.i18n import format_count, format_message, translations
from newsroom.render.search import DocumentSource

if TYPE_CHECKING:
    from babel.support import NullTranslations


def _fields(text: Mapping[str, Any], *names: str) -> tuple[str, ...]:
    return tuple(text.get(name) or "" for name in names)


def sources(planner: Planner) -> list[DocumentSource]:
    """By issue, oldest first, its stories, its page (number, title, lead) and the tags' pages its stories are the
    first to carry, and before each issue the glossary entries (headword, aliases, definition) and reference
    pages (title, summary, sections) dated on or before the day it came out (see `_dated`), of the planner's
    language; hits show the entries and reference pages first, each kind in the language's dictionary order of
    its headwords or titles (see `_hit_order`), then the tags, then the stories and issues (see `index_files`).

    A document's id is its place: publishing an issue appends its stories, its page and its new tags, and an entry
    or reference page dated after the latest issue goes in after them; neither moves a document already there (a
    tag whose count of stories changes is updated where it is).

    Each document depends on its record's text in the language it shows, all of it (see
    tracking.whole_value), and its Markdown is read only if it is made: an update of a large index
    reads a few long texts, not every one, and an edit of one language leaves the other's index alone.
    """
    found: list[DocumentSource] = []
    dated = _dated(planner)
    # Each issue's page after its stories (shown newest first, it comes before them), then its new tags.
    listings = planner.tag_listings()
    tags = _tags_by_first_issue(listings)
    catalogs = [translations(lang) for lang in planner.settings.languages]  # once: each looks for its file
    catalog = catalogs[planner.settings.languages.index(planner.lang)]
    zone = planner.settings.zone
    for number in sorted(planner.issues):
        came_out = publication_time(planner.content.issues[number], zone).astimezone(zone).date()
        while dated and dated[-1][0] <= came_out:
            found.append(dated.pop()[1])
        for story in planner.content.stories_of(number):
            if planner.available(story):
                found.append(_story_source(planner, story, number))
        found.append(_issue_source(planner, number, catalogs))
        found += [_tag_source(planner, slug, listings[slug], catalog) for slug in tags.get(number, ())]
    found += [source for _, source in reversed(dated)]
    return found


#: The day of an undated reference page: before every issue.
UNDATED = dt.date.min


def _dated(planner: Planner) -> list[tuple[dt.date, DocumentSource]]:
    """The language's glossary entries and reference pages, each with the day it is indexed at, the latest
    first: an entry's day is the one it was written (its provenance's `written`), else the
    first of its status month; a reference page's the day it was updated, else `UNDATED`. A day, not a row's id
    or the time it was stored: a full build of the same content, exported and imported anew, puts them in the
    same places; an entry written today goes in after every issue out before today. The same day: entries
    first, each kind in order of slug."""
    found: list[tuple[dt.date, int, str, DocumentSource]] = []
    for slug, entry in planner.content.entries.items():
        if planner.available(entry):
            found.append((_entry_day(entry), 0, slug, _entry_source(planner, slug)))
    for slug in planner.reference_slugs():
        updated = planner.content.pages[slug].data.get("updated")
        found.append((dt.date.fromisoformat(str(updated)) if updated else UNDATED, 1, slug,
                      _reference_source(planner, slug)))
    found.sort(key=lambda item: item[:3], reverse=True)
    return [(day, source) for day, _, _, source in found]


def _entry_day(entry: Record) -> dt.date:
    """The day an entry was written, as its provenance says; else the first of its status month."""
    written = (entry.data.get("provenance") or {}).get("written")
    if written:
        return dt.date.fromisoformat(str(written))
    year, month = str(entry.data["status"]).split("-")[:2]
    return dt.date(int(year), int(month), 1)


def _entry_source(planner: Planner, slug: str) -> DocumentSource:
    entry = planner.content.entries[slug]
    tracked, text_lang = planner.text(entry)
    text = whole_value(tracked)
    names = _entry_names(planner, entry, text, text_lang)
    headword = text.get("headword") or slug
    return DocumentSource("entry", headword, planner.href(urls.entry(planner.lang, slug)),
                          names, f"{entry.content_hash}.{entry.version}", partial(_fields, text, "definition"),
                          "\n".join(names), "" if text_lang == planner.lang else text_lang,
                          hit_order=partial(_hit_order, 0, headword, slug, planner.lang))


def _hit_order(kind: int, shown: str, slug: str, lang: str) -> tuple[object, ...]:
    """Where an entry (`kind` 0) or a reference page (1) comes among the others of its rank: by the headword or
    title its hit shows, in the dictionary order of the page's language, as the glossary's A–Z index lists them
    (Hungarian: "Cukor" before "Csip"); the same ones by slug."""
    return kind, sort_key(shown, lang), slug


def _tags_by_first_issue(listings: Mapping[str, archive.TagListing]) -> dict[int, list[str]]:
    """The tags of the language's pages (`Planner.tag_listings`) under the oldest shown issue one of whose shown
    stories carries them, in order of slug."""
    found: dict[int, list[str]] = {}
    for slug, listing in listings.items():  # in order of slug
        found.setdefault(listing.oldest, []).append(slug)
    return found


def _entry_names(planner: Planner, entry: Record, text: Mapping[str, Any], text_lang: str) -> tuple[str, ...]:
    """An entry's headword and aliases, then its English term and its names in the other languages: a reader
    types "machine learning" or "data center" on the Hungarian search page too."""
    names = [text.get("headword") or entry.key, *(text.get("aliases") or [])]
    names.append(entry.data.get("english_term") or "")
    for lang in planner.settings.languages:
        if lang != text_lang:
            other = entry.text(lang)
            names += [other.get("headword") or "", *(other.get("aliases") or [])]
    return tuple(dict.fromkeys(name for name in names if name.strip()))


def _story_source(planner: Planner, story: Record, number: int) -> DocumentSource:
    tracked, text_lang = planner.text(story)
    text = whole_value(tracked)
    slug = story.key
    return DocumentSource("story", text.get("headline") or slug,
                          planner.href(urls.issue(planner.lang, number)) + f"#story-{slug}",
                          (text.get("headline") or "",), f"{story.content_hash}.{story.version}",
                          partial(_fields, text, "summary", "body"), "", "" if text_lang == planner.lang else text_lang)


def _issue_source(planner: Planner, number: int, catalogs: Sequence[NullTranslations]) -> DocumentSource:
    """An issue's page: found by its number ("12", "#12", and as each of the site's languages writes it,
    "12. szám", "Issue 12": a reader of a bilingual newsletter types either on either page), its title and its
    lead; its hit says the number and the week as the page's language writes them ("12. szám · 2026. okt. 26. –
    nov. 1."); `catalogs` are the site's languages' translations."""
    issue = planner.content.issues[number]
    tracked, text_lang = planner.text(issue)
    text = whole_value(tracked)
    # Its hit's snippet, the number and week as the language writes them, is worked out only if the document is made
    # (see DocumentSource.made_snippet): the week is read here, so an update that keeps the document depends on it.
    issue.data["week"]
    label = format_message(planner.gettext("Issue %(number)s"), {"number": number})
    labels = [format_message(catalog.gettext("Issue %(number)s"), {"number": number}) for catalog in catalogs]
    title = text.get("title") or label
    names = tuple(dict.fromkeys(name for name in (str(number), label, *labels, text.get("title") or "")
                                if name.strip()))
    return DocumentSource("issue", title, planner.href(urls.issue(planner.lang, number)), names,
                          f"{issue.content_hash}.{issue.version}", partial(_fields, text, "lead"), "\n".join(names),
                          "" if text_lang == planner.lang else text_lang,
                          made_snippet=partial(planner.issue_line, number))


def _tag_source(planner: Planner, slug: str, listing: archive.TagListing,
                catalog: NullTranslations) -> DocumentSource:
    """A tag's page (`listing`: what it lists): found by the tag's name as the page shows it (the site file's
    name in the planner's language, else in another language, marked as a fallback; an unnamed tag as its
    stories write it) and by its slug, a name no hit shows ("ai-act" finds "MI-rendelet"); its snippet counts
    the page's stories."""
    name, name_lang = planner.tag_name(slug, listing.written)
    count = listing.stories
    snippet = catalog.ngettext("%(count)s story", "%(count)s stories", count) \
        % {"count": format_count(count, planner.lang)}
    names = tuple(dict.fromkeys((name, slug)))
    return DocumentSource("tag", name, planner.href(urls.tag(planner.lang, slug)), names, "", _no_texts,
                          "\n".join(names), "" if name_lang == planner.lang else name_lang, snippet)


def _no_texts() -> tuple[str, ...]:
    """A tag's Markdown texts: none (its page lists stories, each found by its own)."""
    return ()


def _reference_source(planner: Planner, slug: str) -> DocumentSource:
    """A reference page: found by its title (its word endings too, as a headword's), its summary (the
    snippet), its sections' titles and spec tables (plain text), and their Simple and Deep dive texts. A
    page is long, but a publication has few of them, and a document keeps each of its tokens once."""
    page = planner.content.pages[slug]
    tracked, text_lang = planner.text(page)
    text = whole_value(tracked)
    title = text.get("title") or slug
    sections = list(text.get("sections") or [])
    summary = text.get("summary") or ""
    words = [title, summary]
    for section in sections:
        words.append(section.get("title") or "")
        words += [cell for layer in LAYERS for cell in _table_words((section.get(layer) or {}).get("table"))]
    return DocumentSource("reference", title, planner.href(urls.reference(planner.lang, slug)), tuple(words),
                          f"{page.content_hash}.{page.version}", partial(_reference_texts, sections), title,
                          "" if text_lang == planner.lang else text_lang, summary,
                          hit_order=partial(_hit_order, 1, title, slug, planner.lang))


def _table_words(table: Mapping[str, Any] | None) -> list[str]:
    """A spec table's caption, columns, labels and values: not its "Not published" notes, alike on every
    page."""
    if not table:
        return []
    cells = [*([table["caption"]] if table.get("caption") else []), *(table.get("columns") or [])]
    for row in table.get("rows") or []:
        cells += [cell if isinstance(cell, str) else str(cell.get("value") or "")
                  for cell in row if isinstance(cell, str) or isinstance(cell, Mapping) and "value" in cell]
    return cells


def _reference_texts(sections: list[Mapping[str, Any]]) -> tuple[str, ...]:
    """A reference page's Markdown texts: each section's layers'."""
    parts = [section.get(layer) or {} for section in sections for layer in LAYERS]
    return tuple(part[name] for part in parts for name in ("text", "after") if part.get(name))
