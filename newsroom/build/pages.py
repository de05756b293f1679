"""The site model: every page of the build, its language twin and its context.

Planning is pure: (content, settings, derived data) → page specs. Rendering
and writing come after, so the same plan serves a full build, a preview and
the sitemap.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any


from glossary.collation import letter_heading, sort_key
from glossary.graph import GROUPS, relations_of
from glossary.mentions import entry_labels, in_the_news, matchers, story_mentions
from issues.dates import format_month as _format_month
from issues.dates import format_week as _format_week
from newsroom.build import urls
from newsroom.build.model import Content, Record
from newsroom.build.state import Memo
from newsroom.build.tracking import Tracker
from newsroom.render.markdown import MarkdownRenderer, plain_text
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
class PageSpec:
    """One output page: where it goes, how it is rendered, and its twin in each language."""

    url: str
    lang: str
    template: str
    context: Mapping[str, Any]
    twins: Mapping[str, str] = field(default_factory=dict)  # lang → url of the same page
    lastmod: dt.date | None = None
    #: Dependency keys read while planning this page (see build/tracking.py); empty when untracked.
    reads: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Derived:
    """What the build computes from the content once, before planning pages."""

    visible_issues: tuple[int, ...]  # newest first
    mentions: Mapping[str, tuple[str, ...]]  # story → entries
    news: Mapping[str, list[str]]  # entry → stories, newest first
    relations: Mapping[str, Mapping[str, list[Any]]]
    #: "lang/slug" → the entry's headword in that language (with the language fallback). A page that
    #: shows an entry's name depends on the name, not on the whole entry.
    headwords: Mapping[str, str] = field(default_factory=dict)


def derive(content: Content, settings: Settings, drafts: bool, memo: Memo | None = None) -> Derived:
    """What every page may need, computed once; `memo` remembers story mentions across builds."""
    visible = tuple(sorted((n for n, issue in content.issues.items()
                            if drafts or issue.data["status"] == "published"), reverse=True))
    if memo is None:
        mentions = story_mentions(content, matchers(content, settings.languages))
    else:
        mentions = remembered_mentions(content, settings.languages, memo)
    return Derived(visible, mentions, in_the_news(content, mentions, visible), relations_of(content),
                   headwords(content, settings.languages))


def headwords(content: Content, languages: tuple[str, ...]) -> dict[str, str]:
    """Every entry's headword per language, falling back to the first language that has the entry."""
    found: dict[str, str] = {}
    for slug, entry in content.entries.items():
        for lang in languages:
            text = next((entry.text(other) for other in (lang, *languages) if entry.has(other)), {})
            found[f"{lang}/{slug}"] = text.get("headword") or slug
    return found


def remembered_mentions(content: Content, languages: tuple[str, ...], memo: Memo) -> dict[str, tuple[str, ...]]:
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
        fresh = story_mentions(dataclasses.replace(content, stories={k: v[0] for k, v in missing.items()}),
                               matchers(content, languages))
        for slug, (_, key) in missing.items():
            memo.put(key, list(fresh[slug]))
            found[slug] = fresh[slug]
    return {slug: found[slug] for slug in content.stories}


class Planner:
    """Builds the page specs of one language.

    Page methods read content only through `self.content` and `self.derived`
    and end with `self.spec(...)`: when the build tracks dependencies, those
    are views that note every read, and `spec` hands the reads made since the
    previous page to the page it makes. So helpers must not memoise content
    across pages (a page served from such a cache would not record its read).
    """

    def __init__(self, content: Content, derived: Derived, settings: Settings, lang: str,
                 tracker: Tracker | None = None) -> None:
        self.content, self.derived, self.settings, self.lang = content, derived, settings, lang
        self.tracker = tracker
        self._shared_reads: set[str] = set()
        self.base_path = "/" + settings.base_url.split("://", 1)[1].partition("/")[2]

    def __setattr__(self, name: str, value: Any) -> None:
        """An attribute set while pages are planned is a value kept across pages (a memo):
        the reads that computed it become inputs of every page, not only of the page that made it."""
        tracker = self.__dict__.get("tracker")
        if tracker is not None and "_shared_reads" in self.__dict__:
            self.__dict__["_shared_reads"].update(tracker.reads)
        object.__setattr__(self, name, value)

    # -- helpers used by templates -------------------------------------------------
    def href(self, url: str) -> str:
        return self.base_path + url

    def resolve(self, kind: str, target: str) -> str | None:
        if kind == "entry" and target in self.content.entries:
            return self.href(urls.entry(self.lang, target))
        if kind == "page" and target in self.content.pages:
            page = self.content.pages[target]
            make = urls.reference if page.kind == "reference" else urls.page
            return self.href(make(self.lang, target))
        if kind == "issue" and target.isdigit() and int(target) in self.derived.visible_issues:
            return self.href(urls.issue(self.lang, int(target)))
        return None

    def markdown(self, record: Record | None = None) -> MarkdownRenderer:
        cites = bool(record and record.data.get("sources"))
        return MarkdownRenderer(resolve=self.resolve, citation_href=(lambda n: f"#source-{n}") if cites else None)

    def text(self, record: Record) -> tuple[Mapping[str, Any], str]:
        """The record's text in this language, or the fallback language's, and which it is."""
        if record.has(self.lang):
            return record.text(self.lang), self.lang
        for other in self.settings.languages:
            if record.has(other):
                return record.text(other), other
        return {}, self.lang

    def names(self, field: str) -> dict[str, str]:
        return {slug: item.get(self.lang) or slug for slug, item in self.content.vocabulary(field).items()}

    def headword(self, slug: str) -> str:
        found = self.derived.headwords.get(f"{self.lang}/{slug}")
        return slug.replace("-", " ") if found is None else found

    def chrome(self, url: str, twins: Mapping[str, str]) -> dict[str, Any]:
        site = self.content.site.get(self.lang) or {}
        latest = self.derived.visible_issues[0] if self.derived.visible_issues else None
        issue_line = None
        if latest is not None:
            week = self.content.issues[latest].data["week"]
            issue_line = (latest, format_week(dt.date.fromisoformat(week["start"]),
                                              dt.date.fromisoformat(week["end"]), self.lang))
        return {
            "lang": self.lang, "languages": self.settings.languages, "site": site, "url": url,
            "canonical": self.settings.base_url + url, "href": self.href, "twins": twins,
            "latest_issue": issue_line, "urls": urls, "base_url": self.settings.base_url,
        }

    def spec(self, url: str, template: str, context: dict[str, Any], make_url: Callable[[str], str],
             lastmod: dt.date | None = None) -> PageSpec:
        twins = {lang: make_url(lang) for lang in self.settings.languages}
        context = {**self.chrome(url, twins), **context}
        reads = frozenset(self.tracker.take()) if self.tracker is not None else frozenset()
        return PageSpec(url, self.lang, template, context, twins, lastmod, reads)

    # -- pages ---------------------------------------------------------------------
    def pages(self) -> list[PageSpec]:
        specs = [self.home(), self.glossary_index(), self.editions()]
        specs += [self.issue(number) for number in self.derived.visible_issues]
        specs += [self.entry(slug) for slug in self.content.entries]
        specs += [self.page(slug) for slug in self.content.pages]
        return specs

    def home(self) -> PageSpec:
        latest = self.derived.visible_issues[0] if self.derived.visible_issues else None
        context = self.issue_context(latest) if latest is not None else {"issue": None}
        return self.spec(urls.home(self.lang), "home.html", context, urls.home)

    def issue(self, number: int) -> PageSpec:
        return self.spec(urls.issue(self.lang, number), "issue.html", self.issue_context(number),
                         lambda lang: urls.issue(lang, number))

    def issue_context(self, number: int) -> dict[str, Any]:
        issue = self.content.issues[number]
        text, text_lang = self.text(issue)
        week = issue.data["week"]
        sections = []
        stories = self.content.stories_of(number)
        section_names = self.names("sections")
        for slug in section_names:
            in_section = sorted((s for s in stories if s.data["section"] == slug), key=lambda s: s.data["position"])
            if in_section:
                sections.append({"slug": slug, "name": section_names[slug],
                                 "stories": [self.story_context(s) for s in in_section]})
        visible = self.derived.visible_issues
        index = visible.index(number)
        return {
            "issue": issue.data, "text": text, "text_lang": text_lang, "md": self.markdown(issue),
            "week": format_week(dt.date.fromisoformat(week["start"]), dt.date.fromisoformat(week["end"]), self.lang),
            "sections": sections,
            "newer": visible[index - 1] if index > 0 else None,
            "older": visible[index + 1] if index + 1 < len(visible) else None,
        }

    def story_context(self, story: Record) -> dict[str, Any]:
        text, text_lang = self.text(story)
        md = self.markdown(story)
        terms = [{"slug": slug, "headword": self.headword(slug), "href": self.resolve("entry", slug)}
                 for slug in self.derived.mentions.get(story.key, ())]
        return {"slug": story.key, "data": story.data, "text": text, "text_lang": text_lang,
                "summary": md.deferred(text.get("summary") or ""),
                "body": md.deferred(text.get("body") or ""), "terms": terms}

    def entry(self, slug: str) -> PageSpec:
        entry = self.content.entries[slug]
        text, text_lang = self.text(entry)
        groups = {group: [{"label": self.headword(link.slug), "href": self.resolve("entry", link.slug),
                           "note": (link.note or {}).get(self.lang)}
                          for link in self.derived.relations[slug][group]] for group in GROUPS}
        news = []
        for story_slug in self.derived.news.get(slug, []):
            story = self.content.stories[story_slug]
            news.append({"headline": self.text(story)[0].get("headline"), "issue": story.data["issue"],
                         "href": self.href(urls.issue(self.lang, story.data["issue"])) + f"#story-{story_slug}"})
        year, month = map(int, entry.data["status"].split("-"))
        context = {
            "entry": entry.data, "text": text, "text_lang": text_lang, "md": self.markdown(entry),
            "groups": groups, "news": news, "status_month": format_month(dt.date(year, month, 1), self.lang),
            "category_name": self.names("categories").get(entry.data["category"], entry.data["category"]),
            "audience_names": self.names("audiences"), "section_names": self.names("sections"),
            "description": plain_text(text.get("definition") or ""),
        }
        return self.spec(urls.entry(self.lang, slug), "entry.html", context, lambda lang: urls.entry(lang, slug),
                         dt.date(year, month, 1))

    def glossary_index(self) -> PageSpec:
        rows = sorted(((self.headword(slug), slug) for slug in self.content.entries),
                      key=lambda row: sort_key(row[0], self.lang))
        letters: dict[str, list[dict[str, str]]] = {}
        for headword, slug in rows:
            letters.setdefault(letter_heading(headword, self.lang), []).append(
                {"headword": headword, "href": self.href(urls.entry(self.lang, slug)),
                 "definition": plain_text(self.text(self.content.entries[slug])[0].get("definition") or "")})
        return self.spec(urls.glossary_index(self.lang), "glossary_index.html", {"letters": letters},
                         urls.glossary_index)

    def editions(self) -> PageSpec:
        editions = []
        for number in self.derived.visible_issues:
            issue = self.content.issues[number]
            week = issue.data["week"]
            editions.append({"number": number, "title": self.text(issue)[0].get("title"),
                             "href": self.href(urls.issue(self.lang, number)),
                             "week": format_week(dt.date.fromisoformat(week["start"]),
                                                 dt.date.fromisoformat(week["end"]), self.lang)})
        return self.spec(urls.editions(self.lang), "editions.html", {"editions": editions}, urls.editions)

    def page(self, slug: str) -> PageSpec:
        page = self.content.pages[slug]
        text, text_lang = self.text(page)
        context = {"page": page.data, "text": text, "text_lang": text_lang, "md": self.markdown(page),
                   "description": text.get("summary") or ""}
        if page.kind == "reference":
            return self.spec(urls.reference(self.lang, slug), "reference.html", context,
                             lambda lang: urls.reference(lang, slug))
        return self.spec(urls.page(self.lang, slug), "page.html", context, lambda lang: urls.page(lang, slug))


def plan(content: Content, settings: Settings, drafts: bool = False) -> list[PageSpec]:
    """Every page of the site in every language, in a stable order."""
    return plan_pages(content, derive(content, settings, drafts), settings)


def plan_pages(content: Content, derived: Derived, settings: Settings,
               tracker: Tracker | None = None) -> list[PageSpec]:
    """Every page in every language; with a tracker, each spec carries the reads that made it.

    With a tracker, pass the tracked views of `content` and `derived`
    (`tracking.track_content` / `track_derived`) that note into it.
    """
    if tracker is None:
        return [spec for lang in settings.languages for spec in Planner(content, derived, settings, lang).pages()]
    specs: list[PageSpec] = []
    for lang in settings.languages:
        tracker.take()  # reads made before this planner belong to no page
        planner = Planner(content, derived, settings, lang, tracker)
        # What the planner read to set itself up, and what any value it kept across pages was
        # computed from (see Planner.__setattr__), is an input of every page it makes.
        shared = tracker.take()
        made = planner.pages()
        shared |= planner.__dict__.get("_shared_reads", set())
        specs += [dataclasses.replace(spec, reads=spec.reads | shared) for spec in made]
    return specs
