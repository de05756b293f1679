"""The archive of all stories: months, sections and tags (pure functions over the build model)."""

from __future__ import annotations

import datetime as dt
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

from newsroom.build.model import Content, Record
from newsroom.diagnostics import Diagnostic, first_of
from newsroom.names import reader_name


#: The longest tag slug, in bytes of UTF-8: it names a folder, and a file name holds 255 at most.
TAG_SLUG_BYTES = 200


@lru_cache(maxsize=4096)
def tag_slug(tag: str) -> str:
    """A tag as a URL part: its lowercase words joined by hyphens, in any script ("AI Act" → "ai-act",
    "日本" → "日本"). A Latin letter loses its accents ("Folyadékhűtés" → "folyadekhutes"); the marks of
    other scripts stay, as they spell the word (Hindi vowel signs, Japanese voicing marks). The page is
    written under this name (UTF-8) and linked to percent-encoded (see newsroom.build.urls.tag). Tags
    that come to one slug share a page, which `newsroom check` reports (see `tag_clashes`)."""
    kept: list[str] = []
    for char in unicodedata.normalize("NFKD", tag):
        if unicodedata.combining(char) and kept and kept[-1].isascii():
            continue  # an accent of a Latin letter
        kept.append(char)
    folded = unicodedata.normalize("NFC", "".join(kept).casefold())
    words = "".join(char if unicodedata.category(char)[0] in "LNM" else " " for char in folded).split()
    slug = "-".join(words)
    if not slug:  # symbols alone ("🚀"): their code points, so two such tags have two pages
        slug = "-".join(f"u{ord(char):x}" for char in unicodedata.normalize("NFC", tag) if not char.isspace())
    while len(slug.encode("utf-8")) > TAG_SLUG_BYTES:
        slug = slug[:-1]
    return slug.strip("-") or "tag"


def issue_date(issue: Record, zone: ZoneInfo) -> dt.date:
    """The day an issue came out in the site's time zone; a draft's is the last day of its week."""
    published = issue.data.get("published_at")
    if published:
        return dt.datetime.fromisoformat(published).astimezone(zone).date()
    return dt.date.fromisoformat(issue.data["week"]["end"])


def archive_stories(content: Content, numbers: Iterable[int]) -> list[Record]:
    """Stories of the given issues, newest issue first, then in section order and position."""
    wanted = set(numbers)
    return in_archive_order(content, (s for s in content.stories.values() if s.data["issue"] in wanted))


def in_archive_order(content: Content, stories: Iterable[Record]) -> list[Record]:
    """`stories` as the archive lists them: newest issue first, then in section order and position."""
    order = {slug: i for i, slug in enumerate(content.vocabulary("sections"))}
    return sorted(stories, key=lambda s: (-s.data["issue"], order.get(s.data["section"], len(order)),
                                          s.data["position"], s.key))


def by_month(stories: Iterable[Record], content: Content, zone: ZoneInfo) -> list[tuple[dt.date, list[Record]]]:
    """Stories grouped under the first day of the month their issue came out, newest month first."""
    groups: dict[dt.date, list[Record]] = {}
    months: dict[int, dt.date] = {}  # by issue number: its stories share it
    for story in stories:
        number = story.data["issue"]
        month = months.get(number)
        if month is None:
            month = months[number] = issue_date(content.issues[number], zone).replace(day=1)
        groups.setdefault(month, []).append(story)
    return sorted(groups.items(), key=lambda item: item[0], reverse=True)


def tags(stories: Iterable[Record]) -> dict[str, str]:
    """{tag slug: the tag as first written}, sorted by slug; tags differing only in case or a Latin letter's
    accents merge (`newsroom check` reports them: see `tag_clashes`)."""
    found: dict[str, str] = {}
    for story in stories:
        for tag in story.data.get("tags") or []:
            found.setdefault(tag_slug(tag), tag)
    return dict(sorted(found.items()))


class TagListing(NamedTuple):
    """What a tag's page lists, as the archive's order finds it (see `tag_listings`)."""

    #: The tag as the first story listed writes it (as `tags` of the page's stories finds it).
    written: str
    #: How many stories the page lists.
    stories: int
    #: The oldest issue among theirs.
    oldest: int


def tag_listings(stories: Iterable[tuple[int, Iterable[str]]]) -> dict[str, TagListing]:
    """{tag slug: its page's listing} of every tag the `stories` carry, sorted by slug: `stories` are each
    story's (issue number, tags as written), in archive order (see `in_archive_order`). One pass for every
    tag's page, where `tags` of each page's stories goes over those stories alone."""
    written: dict[str, str] = {}
    counts: dict[str, int] = {}
    oldest: dict[str, int] = {}
    for number, tags in stories:
        carried: set[str] = set()  # a story listed once, under the first of its spellings of a tag
        for tag in tags:
            slug = tag_slug(tag)
            if slug in carried:
                continue
            carried.add(slug)
            written.setdefault(slug, tag)
            counts[slug] = counts.get(slug, 0) + 1
            oldest[slug] = min(oldest.get(slug, number), number)
    return {slug: TagListing(written[slug], counts[slug], oldest[slug]) for slug in sorted(written)}


def tag_clashes(content: Content) -> Iterator[Diagnostic]:
    """Two tags written differently that come to one slug (see `tag_slug`: "AI Act" and "ai act", "kör" and
    "kor"): one page would list the stories of both under one name. The spelling most stories carry (of those
    alike, the one the archive shows first) is the tag's; a warning at each other spelling, naming that one
    (a page for both is no broken page, as where tags are one in any case, but seldom meant)."""
    spellings: dict[str, dict[str, list[tuple[Record, int]]]] = {}  # slug → spelling → (story, index)
    for story in in_archive_order(content, content.stories.values()):
        for index, tag in enumerate(story.data.get("tags") or ()):
            spellings.setdefault(tag_slug(tag), {}).setdefault(tag, []).append((story, index))
    for slug, found in sorted(spellings.items()):
        if len(found) < 2:
            continue
        chosen = max(found, key=lambda tag: len(found[tag]))  # the first of the most carried: max keeps the first
        holders = first_of(list(dict.fromkeys(story.location for story, _ in found[chosen])))
        for tag, places in found.items():
            for story, index in places if tag != chosen else ():
                yield Diagnostic(story.location, None, f"tags[{index}]", (
                    f"{tag!r} would share one page with the tag {chosen!r} ({holders}), at archive/tag/{slug}/: "
                    f"write it {chosen!r}, or give it a tag of its own"), "warning")


def unnamed_tags(content: Content) -> Iterator[Diagnostic]:
    """Tags the site file names none of, once it names some (its `tags:`): each page in every language shows
    such a tag as the stories write it. A warning at the first story carrying it (in archive order)."""
    named = set(content.vocabulary("tags"))
    if not named:
        return  # a publication that names no tag shows every tag as written, as before the list was there
    seen: set[str] = set()
    for story in in_archive_order(content, content.stories.values()):
        for index, tag in enumerate(story.data.get("tags") or ()):
            slug = tag_slug(tag)
            if slug in named or slug in seen:
                continue
            seen.add(slug)
            yield Diagnostic(story.location, None, f"tags[{index}]", (
                f"the site file names no tag {slug!r}: its page (archive/tag/{slug}/) and the archive show it as "
                f"written here, {tag!r}, in every language; name it under the site file's `tags:` (slug: {slug}, "
                "and its name in each language) and import that (`newsroom import site.yaml`)"), "warning")


def shown_tag_name(names: Mapping[str, Any], lang: str, languages: tuple[str, ...]) -> tuple[str, str] | None:
    """A tag's name on `lang`'s pages and the language it is in, from its item of the site file's `tags:`
    (`names`, {lang: name}): its name in `lang`, else in the first of `languages` that has one (a fallback,
    marked as that language's); None when it names it in none (the pages show it as the stories write it)."""
    shown = next((other for other in (lang, *languages) if names.get(other)), None)
    return None if shown is None else (names[shown], shown)


def tag_name_clashes(content: Content, languages: tuple[str, ...]) -> Iterator[Diagnostic]:
    """Tags whose pages show one name in a language (`ai-act` and `eu-ai-act` both "MI-rendelet"), their own
    or, for a tag with none there, another language's (see `shown_tag_name`): two pages with one heading, and
    one name twice in the archive's list, that no reader tells apart. A warning at the later item's name,
    naming the earlier tag; two tags that both fall back are their own language's clash, warned there."""
    items = content.site.get("tags", []) if content.site else []
    for lang in languages:
        first: dict[str, tuple[str, str, str]] = {}  # the name as a reader reads it → (slug, name, its language)
        for index, item in enumerate(items):
            shown = shown_tag_name(item, lang, languages)
            if shown is None or not isinstance(shown[0], str) or not shown[0].strip():
                continue
            slug, (name, named_in) = item["slug"], shown
            other, written, other_in = first.setdefault(reader_name(name), (slug, name, named_in))
            if other == slug or named_in != lang and other_in != lang:
                continue
            pages = f"their two pages (archive/tag/{other}/, archive/tag/{slug}/) have one heading and the " \
                    "archive lists the name twice"
            yield Diagnostic("site", None, f"tags[{index}].{lang}", (
                f"the tag {slug!r} has the name of the tag {other!r} in this language, {written!r}: {pages}; give "
                "each its own name, or tag their stories with one of them") if named_in == other_in else (
                f"the tag {slug!r} has no name in this language, and the {named_in} name its pages show here, "
                f"{name!r}, is the name of the tag {other!r} in this language: {pages}; write its name here"
            ) if named_in != lang else (
                f"the tag {slug!r} has the name the tag {other!r} shows in this language, {written!r}, its "
                f"{other_in} name (it has none here): {pages}; write the tag {other!r} a name in this language, "
                "or give this one another"), "warning")
