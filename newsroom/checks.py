"""`newsroom check`: every problem in the stored content, found before publishing."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Collection, Iterator, Mapping
from dataclasses import astuple
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from glossary.graph import graph_problems
from glossary.mentions import label_clashes
from glossary.provenance import provenance_problems
from glossary.staleness import stale_problems
from issues.archive import tag_clashes, tag_name_clashes, unnamed_tags
from issues.dates import before_its_week
from newsroom.build import urls
from newsroom.build.model import Content, Record
from newsroom.character_rules import record_unshowable, site_unshowable
from newsroom.content.schema import Field, kinds, page_slug_problem, publication_time_problem, week_problem
from newsroom.diagnostics import Diagnostic, first_of
from newsroom.drafts import draft_link_problem, is_draft
from newsroom.reference_rules import structure_problems, table_problems
from newsroom.reference_starter import placeholder_problems
from newsroom.render.markdown import (References, find_references, images_without_alt, left_out, link_problem,
                                     unnamed_links)
from newsroom.settings import Settings
from newsroom.vocabulary_rules import vocabulary_problems

if TYPE_CHECKING:
    from newsroom.build.state import Memo

#: Per-language fields every record of a kind must have in every language.
REQUIRED_TEXTS = {
    "entry": ("headword", "definition"),
    "issue": ("title",),
    "story": ("headline", "summary"),
    "reference": ("title", "sections"),
    "page": ("title", "body"),
}


def check_content(content: Content, settings: Settings, today: dt.date, *,
                  complete_translations: bool = False, memo: Memo | None = None,
                  only: Collection[str] | None = None, recheck: Collection[str] | None = None
                  ) -> list[Diagnostic]:
    """All problems, sorted: errors block publishing, warnings are for editors to review.

    `complete_translations` (publishing an issue) makes every missing translated field an
    error, even of a record whose whole language the missing-translation policy would cover.
    With a `memo` (the build's), a record's own problems are looked up while the record and
    what its links may point at (which entries, pages and issues exist) are unchanged. With `only`
    (locations such as `entry:gpu`), the problems of those records alone, each record's texts read
    for those alone. With `recheck` (locations), the problems of those records' own texts and fields (links,
    translations, citations) and the content-wide ones of every record (relations, places, weeks, names):
    every problem a change of those records alone may have brought (another record's own problems depend
    on it only through whether it exists).
    """
    problems: list[Diagnostic] = []
    records = [*content.entries.values(), *content.pages.values(), *content.issues.values(),
               *content.stories.values()]
    if only is not None or recheck is not None:
        records = [record for record in records
                   if (only is None or record.location in only) and (recheck is None or record.location in recheck)]
    if memo is None:
        for record in records:
            problems.extend(_record_problems(record, content, settings, complete_translations))
    else:
        for record in records:
            problems.extend(record_problems(record, content, settings, memo, complete_translations))
    for issue in content.issues.values():  # one stored before the content files were checked for these
        number = issue.data["number"]
        if number < 1:
            problems.append(Diagnostic(issue.location, None, "number", (
                f"{number}: issue numbers count from 1, and a content file saying {number} is refused, so an "
                "export of it does not import again"), "warning"))
        late = publication_time_problem({**issue.data, "kind": "issue"})
        if late:
            problems.append(Diagnostic(issue.location, None, "published_at", late))
        backwards = week_problem({**issue.data, "kind": "issue"})
        if backwards:
            problems.append(Diagnostic(issue.location, None, "week.end", backwards))
        if issue.data.get("status") in ("scheduled", "published"):
            problems.extend(empty_issue_problems(content, issue.data["number"]))
            problems.extend(_early(issue, settings))
    problems.extend(_overlapping_weeks(content))
    problems.extend(_shared_places(content))
    problems.extend(tag_clashes(content))
    problems.extend(unnamed_tags(content))
    problems.extend(_former_slug_clashes(content))
    for page in content.pages.values():
        problem = page_slug_problem(page.key) if page.kind == "page" else None  # not a reference page's
        if problem is not None:
            problems.append(Diagnostic(page.location, None, "slug", problem))
        problems.extend(_update_date(page, today))
    method = content.pages.get(urls.METHOD)
    if content.site and (method is None or method.kind != "page"):  # a site's, not some records' of one
        problems.append(Diagnostic(f"page:{urls.METHOD}", None, "", (
            "every page's navigation and every email link to the Method page, and there is none: "
            f"write pages/{urls.METHOD}.yaml (kind: page, slug: {urls.METHOD}) and import it")))
    problems.extend(_site_names(content, settings.languages))
    problems.extend(site_unshowable(content))
    problems.extend(vocabulary_problems(content, settings.languages))
    problems.extend(graph_problems(content, settings.languages))
    problems.extend(label_clashes(content, settings.languages))
    problems.extend(_stale(content, settings, today))
    problems.extend(provenance_problems(content))
    for story in content.stories.values():
        if not story.data.get("sources"):
            problems.append(Diagnostic(story.location, None, "sources", "a story needs at least one source"))
        for i, term in enumerate(story.data.get("terms") or []):
            if term not in content.entries:
                problems.append(Diagnostic(story.location, None, f"terms[{i}]", f"no glossary entry {term!r}"))
            elif is_draft(content.entries[term]):
                problems.append(draft_link_problem(story.location, f"terms[{i}]", content.entries[term],
                                                   settings.languages, named=True))
    if only is not None:
        problems = [problem for problem in problems if problem.location in only]
    return sorted(set(problems), key=lambda d: (d.location, d.field, d.message))


def record_problems(record: Record, content: Content, settings: Settings, memo: Memo,
                    complete_translations: bool = False) -> list[Diagnostic]:
    """The problems of one record that depend only on it and on which records exist, remembered in `memo`.

    They depend on the record, these settings and whether the records it links to exist: they are
    remembered with those links, and looked up while each exists or not as it did then (adding an
    issue or an entry re-checks the records that link to it, not every record). A build asks ahead,
    over the cores, for the records it parses ahead (build/making.py); `check_content` then looks
    them up."""
    flags = _flags(settings.languages, settings.missing_translation, complete_translations)
    pools: dict[str, Any] = {"entry": content.entries, "page": content.pages, "issue": content.issues}
    key = hashlib.sha1(f"{flags}|{record.location}|{record.content_hash}|"
                       f"{record.version}".encode("utf-8", "surrogatepass")).hexdigest()
    known = memo.get(key)
    if known is not None and all(_presence(pools[kind], target) == there for kind, target, there in known[1]):
        return [Diagnostic(*problem) for problem in known[0]]
    texts = _texts(record, settings.languages)
    found = list(_record_problems(record, content, settings, complete_translations, texts))
    memo.put(key, [[astuple(problem) for problem in found],
                   [[kind, target, _presence(pools[kind], target)] for kind, target in _link_targets(texts)]])
    return found


def _presence(records: Mapping[Any, Record], key: Any) -> int:
    """What a link's problems depend on of its target: 0 not there, 1 there, 2 there as a draft."""
    record = records.get(key)
    return 0 if record is None else 2 if is_draft(record) else 1


@lru_cache(maxsize=8)
def _flags(languages: tuple[str, ...], policy: str, complete_translations: bool) -> str:
    return hashlib.sha1(repr(("links", languages, policy, complete_translations)).encode()).hexdigest()


def _record_problems(record: Record, content: Content, settings: Settings, complete_translations: bool,
                     texts: list[tuple[str, str, References]] | None = None) -> Iterator[Diagnostic]:
    """The problems of one record that depend only on it and on which records exist (`texts`: its
    `_texts`, if found already)."""
    languages = settings.languages
    texts = texts if texts is not None else _texts(record, languages)
    yield from _translations(record, languages, settings.missing_translation, complete_translations)
    yield from _references(record, content, languages, texts)
    yield from _uncited_sources(record, languages, texts)
    yield from structure_problems(record, languages)
    yield from placeholder_problems(record, languages)
    yield from _left_out(record, languages)
    yield from _unnamed_links(record, languages)
    yield from _images_without_alt(record, languages)
    yield from _long_titles(record, languages)
    yield from record_unshowable(record)


#: A required text no language has: none to translate from, the text is still to be written.
UNWRITTEN = "required in every language, and none has it yet: write it"
#: The content hash migration 0013_lost_texts gives a record whose texts an earlier upgrade deleted.
LOST_TEXTS = ""
#: What `check` says of such a record, instead of asking for each text to be written.
LOST = ("its texts in every language are missing from the database (an earlier newsroom's upgrade of a SQLite "
        "database through schema 0010 deleted them, an entry's relations too): import its file from an export made "
        "while it had them (`newsroom import DIR`), which stores it again")
#: The most characters a title shows well in (an email's Subject, a feed reader's list, search results).
TITLE_LIMIT = 200
#: A record's title in its texts, per kind.
TITLES = {"entry": "headword", "issue": "title", "story": "headline", "reference": "title", "page": "title"}


def _long_titles(record: Record, languages: tuple[str, ...]) -> Iterator[Diagnostic]:
    """A title longer than TITLE_LIMIT: shown whole in an email's Subject, a feed's list and the pages' own
    title, where a few words are read."""
    field = TITLES.get(record.kind)
    for lang in languages:
        title = record.text(lang).get(field) if field else None
        if isinstance(title, str) and len(title) > TITLE_LIMIT:
            yield Diagnostic(record.location, None, f"{lang}.{field}", (
                f"{len(title):,} characters: email Subjects, feed readers and search results show it whole; "
                f"keep it under {TITLE_LIMIT} (the summary says the rest)"), "warning")


def _left_out(record: Record, languages: tuple[str, ...]) -> Iterator[Diagnostic]:
    """Raw HTML in a Markdown text that the pages, feeds and emails leave out (a <script>, an onerror=, a
    javascript: link), and links of a scheme shown as their text: a warning saying what, so an editor knows
    readers do not see it (nothing of it runs, whatever it is)."""
    spec = Field("map", fields=kinds()[record.kind].texts)
    for lang in languages:
        for path, text in _markdown_in(record.text(lang), spec, lang):
            gone = left_out(text)
            if gone:
                yield Diagnostic(record.location, None, path, (
                    f"the site leaves out {', '.join(gone[:4])}{' and more' if len(gone) > 4 else ''}: "
                    "write it in Markdown (a `\\<` shows a `<` as it is), or take it out"), "warning")


def _unnamed_links(record: Record, languages: tuple[str, ...]) -> Iterator[Diagnostic]:
    """A link with no text and no image alt text in it (`[](…)`, `[![](logo.png)](…)`): a screen reader says
    "link" and nothing else, or spells out its address; a warning at the field, saying how to name it."""
    spec = Field("map", fields=kinds()[record.kind].texts)
    for lang in languages:
        for path, text in _markdown_in(record.text(lang), spec, lang):
            for target in unnamed_links(text):
                yield Diagnostic(record.location, None, path, (
                    f"link {target!r} has no text: screen readers say \"link\" and nothing more; write its text "
                    "between the brackets ([text](…)), or alt text for its image ([![what it shows](…)](…))"),
                    "warning")


def _images_without_alt(record: Record, languages: tuple[str, ...]) -> Iterator[Diagnostic]:
    """A raw `<img src=…>` with no `alt`, which the pages keep as written: a screen reader reads its file name
    (in a link, as the link's name); a warning at the field, saying how to describe it or mark it decoration."""
    spec = Field("map", fields=kinds()[record.kind].texts)
    for lang in languages:
        for path, text in _markdown_in(record.text(lang), spec, lang):
            for source, in_link in images_without_alt(text):
                image = f'<img src="{source}">' if source else "<img>"
                yield Diagnostic(record.location, None, path, (
                    f"{image} in a link has no alt text: a screen reader reads its file name as the link's name; "
                    "say where the link leads in alt=\"…\" (alt=\"\" if the link's own text says it)") if in_link else (
                    f"{image} has no alt text: a screen reader reads its file name instead; say what it shows in "
                    "alt=\"…\", or write alt=\"\" if it is decoration"), "warning")

def _markdown_in(value: Any, spec: Field, path: str) -> Iterator[tuple[str, str]]:
    """(path, text) of each Markdown text in `value`, a record's language block or a part of it, by the
    content schema's `spec` (a title or a headline is text: its `<` is shown as it is)."""
    if spec.type in ("md", "line_md") and isinstance(value, str):
        yield path, value
    elif spec.type == "map" and isinstance(value, Mapping):
        for name, item in value.items():
            if name in spec.fields:
                yield from _markdown_in(item, spec.fields[name], f"{path}.{name}")
    elif spec.type == "list" and spec.of is not None and isinstance(value, list):
        for index, item in enumerate(value):
            yield from _markdown_in(item, spec.of, f"{path}[{index}]")


#: Per-language fields that belong to one language only, so need no translation: an entry's other names
#: ("Also known as") are names in that language, not a translation of the other's (an English term may
#: have none where the Hungarian has several), and match-only forms are that language's inflections.
LANGUAGE_OWN = {"aliases", "match_forms"}


def _translations(record: Record, languages: tuple[str, ...], policy: str = "fallback",
                  complete: bool = False) -> Iterator[Diagnostic]:
    """A required field missing in a language, or a field present in one language only.

    A record with no text at all in a language is a warning: the `missing_translation`
    policy decides what readers see (the other language, marked; or no page), and the
    warning says which. A partly translated record stays an error: that would be a silent mix.
    """
    present = {lang: _filled_paths(record.text(lang)) - LANGUAGE_OWN for lang in languages}
    if record.content_hash == LOST_TEXTS and not any(present.values()):
        yield Diagnostic(record.location, None, "", LOST)
        return
    required = set(REQUIRED_TEXTS.get(record.kind, ()))
    everywhere = set().union(*present.values()) | required
    for lang in languages:
        if not present[lang] and any(present.values()) and not complete:
            effect = f"left out of {lang}" if policy == "omit" else f"shown in {lang} in another language, marked"
            yield Diagnostic(record.location, None, lang, f"missing translation ({effect})", "warning")
            continue
        for path in sorted(everywhere - present[lang]):
            others = [other for other in languages if path in present[other]]
            message = f"missing translation (present in {', '.join(others)})" if others else UNWRITTEN
            yield Diagnostic(record.location, None, f"{lang}.{path}", message)


def translation_problems(record: Record, settings: Settings, complete: bool = False) -> list[Diagnostic]:
    """`_translations` of one record under the settings' languages and policy."""
    return list(_translations(record, settings.languages, settings.missing_translation, complete))


def _filled_paths(block: Mapping[str, Any]) -> set[str]:
    return {name for name, value in block.items() if value not in (None, "", [], {})}


def _markdown_fields(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """(path, text) for every string inside a record's language block."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _markdown_fields(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _markdown_fields(item, f"{path}[{i}]")


def markdown_texts(record: Record, languages: tuple[str, ...]) -> Iterator[str]:
    """Every text of a record that `check` reads as Markdown."""
    for lang in languages:
        for _, text in _markdown_fields(record.text(lang), lang):
            yield text


def _texts(record: Record, languages: tuple[str, ...]) -> list[tuple[str, str, References]]:
    """(language, path, references) of each text of a record, language by language: what both its
    problems and its links' targets are found from."""
    return [(lang, path, find_references(text)) for lang in languages
            for path, text in _markdown_fields(record.text(lang), lang)]


def _link_targets(texts: list[tuple[str, str, References]]) -> list[tuple[str, Any]]:
    """The entries, pages and issues a record's texts (see `_texts`) link to (whose existence its problems
    depend on)."""
    found: set[tuple[str, Any]] = set()
    for _, _, refs in texts:
        if refs.entries or refs.pages or refs.issues:
            found.update([*(("entry", slug) for slug in refs.entries), *(("page", slug) for slug in refs.pages),
                          *(("issue", number) for number in refs.issues)])
    return sorted(found, key=repr)


def _references(record: Record, content: Content, languages: tuple[str, ...],
                texts: list[tuple[str, str, References]]) -> Iterator[Diagnostic]:
    """Citations without a source, links to entries, pages or issues that do not exist, in a record's
    texts (see `_texts`)."""
    sources = len(record.data.get("sources") or [])
    targets = {"entry": content.entries, "page": content.pages}
    for lang in languages:
        for text_lang, path, refs in texts:
            if text_lang != lang:
                continue
            for n in refs.citations:
                if not 1 <= n <= sources:
                    yield Diagnostic(record.location, None, path, f"citation [{n}] has no source "
                                     f"({sources} source{'s' if sources != 1 else ''} listed)")
            if refs.citations and ".table." in path:  # a table's text is shown as it is: `[2]` a reader sees
                yield Diagnostic(record.location, None, path, (
                    f"a spec table's text shows [{refs.citations[0]}] as it is, not as a link to the source: give "
                    f"the cell its source as {{value: …, source: {refs.citations[0]}}}"), "warning")
            for kind, slugs in (("entry", refs.entries), ("page", refs.pages)):
                for slug in slugs:
                    if slug not in targets[kind]:
                        yield Diagnostic(record.location, None, path, f"link to a missing {kind} {slug!r}")
                    elif is_draft(targets[kind][slug]) and not is_draft(record):
                        yield draft_link_problem(record.location, path, targets[kind][slug], languages)
            for number in refs.issues:
                if number not in content.issues:
                    yield Diagnostic(record.location, None, path, f"link to a missing issue {number}")
            for href in refs.malformed:
                severity, message = link_problem(href)
                yield Diagnostic(record.location, None, path, message, severity)
        yield from table_problems(record, lang, sources)


def _cited(record: Record, lang: str, texts: list[tuple[str, str, References]]) -> set[int]:
    """Source numbers a language's text cites: `[n]` in its Markdown (its `texts`, see `_texts`) and
    spec-table cells."""
    cited = {n for text_lang, _, refs in texts if text_lang == lang for n in refs.citations}
    for section in record.text(lang).get("sections") or []:
        for layer in ("simple", "deep"):
            for row in ((section.get(layer) or {}).get("table") or {}).get("rows") or []:
                cited |= {cell["source"] for cell in row if isinstance(cell, Mapping) and cell.get("source")}
    return cited


def _uncited_sources(record: Record, languages: tuple[str, ...],
                     texts: list[tuple[str, str, References]]) -> Iterator[Diagnostic]:
    """A reference page's source that no citation in a language points at (a warning: readers
    cannot tell what it supports)."""
    if record.kind != "reference":
        return
    for lang in languages:
        if not record.has(lang):
            continue
        cited = _cited(record, lang, texts)
        for i, _source in enumerate(record.data.get("sources") or []):
            if i + 1 not in cited:
                yield Diagnostic(record.location, None, f"sources[{i}]",
                                 f"source {i + 1} is never cited in the {lang} text", "warning")


def _update_date(record: Record, today: dt.date) -> Iterator[Diagnostic]:
    """A reference page with no date of last update (its page, the sitemap and its JSON-LD then give
    none), or with one in the future (a typo, most likely): warnings."""
    if record.kind != "reference":
        return
    updated = record.data.get("updated")
    if not updated:
        yield Diagnostic(record.location, None, "updated", (
            "no date of its last update: give `updated: YYYY-MM-DD` (the page shows it, and the sitemap and "
            "search engines read it)"), "warning")
    elif updated > today.isoformat():
        yield Diagnostic(record.location, None, "updated",
                         f"{updated} is in the future (today is {today.isoformat()})", "warning")


def empty_issue_problems(content: Content, number: int) -> list[Diagnostic]:
    """An issue to be published without a story: its page, feed entry and email would say nothing."""
    if content.stories_of(number):
        return []
    return [Diagnostic(f"issue:{number}", None, "stories", (
        "a scheduled or published issue needs at least one story: its page, feed entry and email would be "
        f"empty (add one with newsroom story add {number})"))]


def _early(issue: Record, settings: Settings) -> Iterator[Diagnostic]:
    """A scheduled or published issue going out before its week starts (see issues.dates.before_its_week)."""
    at, week = issue.data.get("published_at"), issue.data.get("week")
    if not at or not week:
        return
    early = before_its_week(dt.datetime.fromisoformat(str(at)), dt.date.fromisoformat(str(week["start"])),
                            dt.date.fromisoformat(str(week["end"])), settings.zone)
    if early:
        yield Diagnostic(issue.location, None, "published_at", early, "warning")


def _shared_places(content: Content) -> Iterator[Diagnostic]:
    """Each story at the place another story of its section and issue has (`story add` and `story move`
    renumber; a content file may still give one): a warning at the later slug, which the pages show second.
    And each stored at a place below 1, which no content file may give any more."""
    taken: dict[tuple[int, str, int], str] = {}
    for story in sorted(content.stories.values(), key=lambda record: record.key):
        place = (story.data["issue"], story.data["section"], story.data["position"])
        if place[2] < 1:  # stored before content files were held to places from 1
            yield Diagnostic(story.location, None, "position", (
                f"{place[2]}: places count from 1, and a content file saying {place[2]} is refused, so an export "
                "of it does not import again: move it (newsroom story move --position N)"), "warning")
        first = taken.setdefault(place, story.key)
        if first != story.key:
            yield Diagnostic(story.location, None, "position", (
                f"{place[2]} is also the place of story {first!r} in section {place[1]!r} of issue {place[0]}: "
                "the pages show them by slug; give each its own place (newsroom story move)"), "warning")


def _former_slug_clashes(content: Content) -> Iterator[Diagnostic]:
    """Each former slug (`formerly`) whose address another record of its kind has, as its slug or as a former
    one: the build writes a page there that sends readers on (a story keeps its old anchor on its issue's
    pages), so an address is never given out twice. Named at each record concerned, so an import names the file
    that brought the clash (as a file of a renamed record from before its renaming does)."""
    for kind, records in (("entry", content.entries.values()), ("story", content.stories.values()),
                          ("reference", content.pages.values()), ("page", content.pages.values())):
        current = {record.key for record in records if record.kind == kind}
        place = "anchor on the issue pages is" if kind == "story" else "page is at"
        claims: dict[str, list[tuple[Record, int]]] = {}
        for record in sorted((record for record in records if record.kind == kind), key=lambda r: r.key):
            for index, slug in enumerate(record.data.get("formerly") or ()):
                claims.setdefault(slug, []).append((record, index))
        for slug, holders in sorted(claims.items()):
            if slug in current:
                for record, index in holders:
                    yield Diagnostic(record.location, None, f"formerly[{index}]", (
                        f"{slug!r} is the slug of {kind}:{slug}, whose {place} that address: take it out of "
                        f"`formerly` here, or give {kind}:{slug} another slug"))
                named = first_of([record.location for record, _ in holders])
                yield Diagnostic(f"{kind}:{slug}", None, "slug", (
                    f"{slug!r} is a former slug of {named}, whose old address sends readers on to it: a file of "
                    f"{named} from before it was renamed makes {kind}:{slug} again; leave that file out (`newsroom "
                    "export` writes the record's file under its slug), or take the slug out of the other's `formerly`"))
            elif len(holders) > 1:
                for record, index in holders:
                    others = first_of([other.location for other, _ in holders if other is not record])
                    yield Diagnostic(record.location, None, f"formerly[{index}]", (
                        f"{slug!r} is a former slug of {others} too: its old address can send readers on to one of "
                        "them only; take it out of one"))


def _overlapping_weeks(content: Content) -> Iterator[Diagnostic]:
    """Each issue whose week shares days with an earlier-starting one's (`issue new` refuses such a week;
    a content file may still give one): a warning at the later issue."""
    latest: tuple[str, str, int] | None = None  # (end, start, number) of the week reaching furthest so far
    for start, end, number in sorted((str(issue.data["week"]["start"]), str(issue.data["week"]["end"]), issue.data[
            "number"]) for issue in content.issues.values() if issue.data.get("week")):
        if latest is not None and start <= latest[0]:
            yield Diagnostic(f"issue:{number}", None, "week", f"{start}–{end} overlaps the week of issue {latest[2]} "
                             f"({latest[1]}–{latest[0]})", "warning")
        if latest is None or end > latest[0]:
            latest = (end, start, number)


def no_site(content: Content) -> Iterator[Diagnostic]:
    """No site file stored (a database `newsroom init` made without `--sample`): its pages would be built
    with no publication name, no sections and a Method link to nothing, a site that only looks built.

    Asked by `check` and the build, not by `check_content`: an import or an edit of some records into a
    database with no site file yet is no new problem of theirs."""
    if not content.site:
        yield Diagnostic("site", None, "", (
            "no site file is stored: every page's title, the feeds and each email take the publication's name "
            "from it, and the navigation its sections and the Method page: write site.yaml (kind: site; "
            f"docs/content-format.md, \"site\") and pages/{urls.METHOD}.yaml (kind: page), then "
            "`newsroom import site.yaml pages/`"))


def _site_names(content: Content, languages: tuple[str, ...]) -> Iterator[Diagnostic]:
    for lang in languages if content.site else ():
        if not (content.site.get(lang) or {}).get("name"):
            yield Diagnostic("site", None, f"{lang}.name", "the publication has no name in this language: every "
                             "page's title, the feeds and each email's sender show it")
        elif not (content.site.get(lang) or {}).get("tagline"):
            yield Diagnostic("site", None, f"{lang}.tagline", (
                "the publication has no tagline in this language: the masthead shows it under the name, and the "
                "pages with no description of their own (the glossary index, the archive, the editions, an issue "
                "without a lead) give it to search engines and link previews, the name alone without it: "
                "write one"), "warning")
    for field in ("sections", "categories", "audiences"):
        for i, item in enumerate(content.site.get(field, [])):
            for lang in languages:
                if not item.get(lang):
                    yield Diagnostic("site", None, f"{field}[{i}].{lang}",
                                     f"{item['slug']!r} has no name in this language")
    for i, item in enumerate(content.site.get("tags", [])):
        named = [lang for lang in languages if item.get(lang)]
        if not named:  # as if the list left it out, but then `check` would say so at its first story
            yield Diagnostic("site", None, f"tags[{i}]", (
                f"the tag {item['slug']!r} has no name in any language: its pages show it as the stories write it; "
                f"write its name in each language under its slug ({', '.join(f'{lang}: …' for lang in languages)})"
            ), "warning")
        for lang in languages if named else ():
            if not item.get(lang):
                yield Diagnostic("site", None, f"tags[{i}].{lang}", (
                    f"the tag {item['slug']!r} has no name in this language: its pages show the {named[0]} name "
                    f"{item[named[0]]!r}, marked as {named[0]}; write its name here"), "warning")
    yield from tag_name_clashes(content, languages)


def _stale(content: Content, settings: Settings, today: dt.date) -> Iterator[Diagnostic]:
    yield from stale_problems(content, today, settings.stale_after_months)
