"""`newsroom check`: every problem in the stored content, found before publishing. Each module here finds
the problems of one subject; this one runs them all, over the whole content or some records of it."""

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
from issues.archive import tag_clashes, unnamed_tags
from newsroom.build import urls
from newsroom.build.model import Content, Record
from newsroom.character_rules import record_unshowable, site_unshowable
from newsroom.checks.editions import _early, _overlapping_weeks, _shared_places, empty_issue_problems
from newsroom.checks.links import _link_targets, _references, _texts, _uncited_sources, markdown_texts
from newsroom.checks.readability import (TITLE_LIMIT, TITLES, _formulas_without_alttext, _images_without_alt,
                                         _left_out, _long_titles, _unnamed_links)
from newsroom.checks.site import _former_slug_clashes, _site_names, _stale, _update_date, no_site
from newsroom.checks.translations import (LANGUAGE_OWN, LOST, LOST_TEXTS, REQUIRED_TEXTS, UNWRITTEN, _translations,
                                          translation_problems)
from newsroom.content.schema import page_slug_problem, publication_time_problem, week_problem
from newsroom.diagnostics import Diagnostic, in_report_order, unknown_term
from newsroom.drafts import draft_link_problem, is_draft
from newsroom.reference_rules import structure_problems
from newsroom.reference_starter import placeholder_problems
from newsroom.render.markdown import References
from newsroom.settings import Settings
from newsroom.vocabulary_rules import vocabulary_problems

if TYPE_CHECKING:
    from newsroom.build.memos import Memo

__all__ = [
    "LANGUAGE_OWN", "LOST", "LOST_TEXTS", "REQUIRED_TEXTS", "TITLE_LIMIT", "TITLES", "UNWRITTEN", "check_content",
    "empty_issue_problems", "markdown_texts", "no_site", "record_problems", "translation_problems",
]


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
    records = _checked_records(content, only, recheck)
    problems = [*_own_problems(records, content, settings, complete_translations, memo),
                *_issue_problems(content, settings), *_content_wide_problems(content, settings, today, memo),
                *_story_problems(content, settings)]
    if only is not None:
        problems = [problem for problem in problems if problem.location in only]
    return in_report_order(problems)


def _checked_records(content: Content, only: Collection[str] | None,
                     recheck: Collection[str] | None) -> list[Record]:
    """The records whose own problems are looked for: every record, or those `only` and `recheck` name."""
    records = [*content.entries.values(), *content.pages.values(), *content.issues.values(),
               *content.stories.values()]
    if only is None and recheck is None:
        return records
    return [record for record in records
            if (only is None or record.location in only) and (recheck is None or record.location in recheck)]


def _own_problems(records: list[Record], content: Content, settings: Settings, complete_translations: bool,
                  memo: Memo | None) -> Iterator[Diagnostic]:
    """Each record's own problems (its texts and fields), looked up in `memo` when there is one."""
    for record in records:
        if memo is None:
            yield from _record_problems(record, content, settings, complete_translations)
        else:
            yield from record_problems(record, content, settings, memo, complete_translations)


def _issue_problems(content: Content, settings: Settings) -> Iterator[Diagnostic]:
    """An issue's number, publication time and week, and what a scheduled or published one lacks."""
    for issue in content.issues.values():  # one stored before the content files were checked for these
        number = issue.data["number"]
        if number < 1:
            yield Diagnostic(issue.location, None, "number", (
                f"{number}: issue numbers count from 1, and a content file saying {number} is refused, so an "
                "export of it does not import again"), "warning")
        late = publication_time_problem({**issue.data, "kind": "issue"})
        if late:
            yield Diagnostic(issue.location, None, "published_at", late)
        backwards = week_problem({**issue.data, "kind": "issue"})
        if backwards:
            yield Diagnostic(issue.location, None, "week.end", backwards)
        if issue.data.get("status") in ("scheduled", "published"):
            yield from empty_issue_problems(content, issue.data["number"])
            yield from _early(issue, settings)


def _content_wide_problems(content: Content, settings: Settings, today: dt.date,
                           memo: Memo | None = None) -> Iterator[Diagnostic]:
    """What no record has alone: shared weeks and places, clashing names and slugs, pages, the site's own
    needs, the glossary's graph and staleness (those of the glossary alone looked up in `memo` if given)."""
    yield from _overlapping_weeks(content)
    yield from _shared_places(content)
    yield from tag_clashes(content)
    yield from unnamed_tags(content)
    yield from _former_slug_clashes(content)
    yield from _page_problems(content, today)
    yield from _site_names(content, settings.languages)
    yield from site_unshowable(content)
    yield from vocabulary_problems(content, settings.languages)
    yield from _glossary_problems(content, settings.languages, memo)
    yield from _stale(content, settings, today)
    yield from provenance_problems(content)


def _glossary_problems(content: Content, languages: tuple[str, ...], memo: Memo | None) -> list[Diagnostic]:
    """The relation graph's problems and the names two entries share: they read the entries alone (and the
    languages), so a build looks them up in its `memo` while no entry changed — an edit of a story or an issue
    does not check the glossary's thousands of names again."""
    if memo is None:
        return [*graph_problems(content, languages), *label_clashes(content, languages)]
    # An entry's record is made under the site's settings (see model.load_content): they are part of the key.
    entries = [(slug, entry.content_hash, entry.version) for slug, entry in content.entries.items()]
    key = hashlib.sha1(repr(("glossary-wide", languages, content.site, entries))
                       .encode("utf-8", "surrogatepass")).hexdigest()
    known = memo.get(key)
    if known is not None:
        return [Diagnostic(*problem) for problem in known]
    found = [*graph_problems(content, languages), *label_clashes(content, languages)]
    memo.put(key, [astuple(problem) for problem in found])
    return found


def _page_problems(content: Content, today: dt.date) -> Iterator[Diagnostic]:
    """A page's slug and update date, and a site without the Method page every navigation links to."""
    for page in content.pages.values():
        problem = page_slug_problem(page.key) if page.kind == "page" else None  # not a reference page's
        if problem is not None:
            yield Diagnostic(page.location, None, "slug", problem)
        yield from _update_date(page, today)
    method = content.pages.get(urls.METHOD)
    if content.site and (method is None or method.kind != "page"):  # a site's, not some records' of one
        yield Diagnostic(f"page:{urls.METHOD}", None, "", (
            "every page's navigation and every email link to the Method page, and there is none: "
            f"write pages/{urls.METHOD}.yaml (kind: page, slug: {urls.METHOD}) and import it"))


def _story_problems(content: Content, settings: Settings) -> Iterator[Diagnostic]:
    """A story without sources, and its `terms:` naming no entry or a draft one."""
    for story in content.stories.values():
        if not story.data.get("sources"):
            yield Diagnostic(story.location, None, "sources", "a story needs at least one source")
        for i, term in enumerate(story.data.get("terms") or []):
            if term not in content.entries:
                yield unknown_term(story.location, i, term)
            elif is_draft(content.entries[term]):
                yield draft_link_problem(story.location, f"terms[{i}]", content.entries[term],
                                         settings.languages, named=True)


def record_problems(record: Record, content: Content, settings: Settings, memo: Memo,
                    complete_translations: bool = False) -> list[Diagnostic]:
    """The problems of one record that depend only on it and on which records exist, remembered in `memo`.

    They depend on the record, these settings and whether the records it links to exist: they are
    remembered with those links, and looked up while each exists or not as it did then (adding an
    issue or an entry re-checks the records that link to it, not every record). A build asks ahead,
    over the cores, for the records it parses ahead (build/checking.py); `check_content` then looks
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
    yield from _unnamed_links(record, content, languages)
    yield from _images_without_alt(record, languages)
    yield from _formulas_without_alttext(record, languages)
    yield from _long_titles(record, languages)
    yield from record_unshowable(record)
