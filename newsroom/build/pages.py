"""The site model: every page of the build, its language twin and its context.

Planning is pure: (content, settings, derived data) → page specs. Rendering
and writing come after, so the same plan serves a full build, a preview and
the sitemap.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from glossary.collation import letter_heading, sort_key
from glossary.graph import GROUPS, relations_of
from glossary.mentions import in_the_news, matchers, story_mentions
from issues.dates import format_month, format_week
from newsroom.build import urls
from newsroom.build.model import Content, Record
from newsroom.i18n import translations
from newsroom.render.markdown import MarkdownRenderer, plain_text
from newsroom.settings import Settings


@dataclass(frozen=True)
class PageSpec:
    """One output page: where it goes, how it is rendered, and its twin in each language."""

    url: str
    lang: str
    template: str
    context: Mapping[str, Any]
    twins: Mapping[str, str] = field(default_factory=dict)  # lang → url of the same page
    lastmod: dt.date | None = None


@dataclass(frozen=True)
class Derived:
    """What the build computes from the content once, before planning pages."""

    visible_issues: tuple[int, ...]  # newest first
    mentions: Mapping[str, tuple[str, ...]]  # story → entries
    news: Mapping[str, list[str]]  # entry → stories, newest first
    relations: Mapping[str, Mapping[str, list[Any]]]


def derive(content: Content, settings: Settings, drafts: bool) -> Derived:
    visible = tuple(sorted((n for n, issue in content.issues.items()
                            if drafts or issue.data["status"] == "published"), reverse=True))
    mentions = story_mentions(content, matchers(content, settings.languages))
    return Derived(visible, mentions, in_the_news(content, mentions, visible), relations_of(content))


class PageMarkdown:
    """One page's Markdown renderer: each field it renders gets its own citation-anchor prefix.

    A page renders many fields that cite the same sources; with one prefix their
    anchors (`cite-1-1`) would repeat, which is invalid HTML. The first field keeps
    `cite`, later ones get `cite2`, `cite3`, … in template order, so output stays deterministic.
    """

    def __init__(self, renderer: MarkdownRenderer) -> None:
        self.renderer, self.fields = renderer, 0

    def _prefix(self) -> str:
        self.fields += 1
        return "cite" if self.fields == 1 else f"cite{self.fields}"

    def html(self, text: str, *, anchor_prefix: str | None = None) -> Markup:
        return self.renderer.html(text, anchor_prefix=anchor_prefix or self._prefix())

    def inline(self, text: str, *, anchor_prefix: str | None = None) -> Markup:
        return self.renderer.inline(text, anchor_prefix=anchor_prefix or self._prefix())


#: Templates whose pages are articles for Open Graph (og:type); the rest are "website".
ARTICLE_TEMPLATES = frozenset({"issue.html", "entry.html", "reference.html", "page.html"})


class Planner:
    """Builds the page specs of one language."""

    def __init__(self, content: Content, derived: Derived, settings: Settings, lang: str) -> None:
        self.content, self.derived, self.settings, self.lang = content, derived, settings, lang
        self.base_path = "/" + settings.base_url.split("://", 1)[1].partition("/")[2]
        self.omit = settings.missing_translation == "omit"
        self.gettext = translations(lang).gettext
        #: The issues published in this language, newest first.
        self.issues = tuple(n for n in derived.visible_issues if self.available(content.issues[n]))

    # -- the missing-translation policy ----------------------------------------------
    def languages_of(self, record: Record) -> tuple[str, ...]:
        """The languages `record` has a page in: all of them under "fallback", its own under "omit"."""
        own = tuple(lang for lang in self.settings.languages if record.has(lang))
        return own if self.omit else (self.settings.languages if own else ())

    def available(self, record: Record) -> bool:
        """Whether `record` appears in this language (its page, index rows, links, feeds, sitemap)."""
        return self.lang in self.languages_of(record)

    def marked(self, value: str | None, text_lang: str) -> str | Markup | None:
        """A short text for a list or link; fallback text carries its `lang` and a visible note."""
        if not value or text_lang == self.lang:
            return value
        return Markup('<span lang="{}">{}</span> <small class="untranslated-mark">{}</small>').format(
            text_lang, value, self.gettext("not yet translated"))

    # -- helpers used by templates -------------------------------------------------
    def href(self, url: str) -> str:
        return self.base_path + url

    def resolve(self, kind: str, target: str) -> str | None:
        if kind == "entry" and target in self.content.entries and self.available(self.content.entries[target]):
            return self.href(urls.entry(self.lang, target))
        if kind == "page" and target in self.content.pages and self.available(self.content.pages[target]):
            page = self.content.pages[target]
            make = urls.reference if page.kind == "reference" else urls.page
            return self.href(make(self.lang, target))
        if kind == "issue" and target.isdigit() and int(target) in self.issues:
            return self.href(urls.issue(self.lang, int(target)))
        return None

    def markdown(self, record: Record | None = None) -> PageMarkdown:
        cites = bool(record and record.data.get("sources"))
        return PageMarkdown(MarkdownRenderer(resolve=self.resolve,
                                             citation_href=(lambda n: f"#source-{n}") if cites else None))

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
        entry = self.content.entries.get(slug)
        if entry is None:
            return slug.replace("-", " ")
        return self.text(entry)[0].get("headword") or slug

    def headword_label(self, slug: str) -> str | Markup:
        """The headword for a link or list, marked when it is another language's."""
        entry = self.content.entries.get(slug)
        if entry is None:
            return self.headword(slug)
        return self.marked(self.headword(slug), self.text(entry)[1]) or slug

    def chrome(self, url: str, twins: Mapping[str, str], template: str = "") -> dict[str, Any]:
        """What base.html needs on every page: language, twins, canonical URL, the current issue line."""
        site = self.content.site.get(self.lang) or {}
        latest = self.issues[0] if self.issues else None
        issue_line = None
        if latest is not None:
            week = self.content.issues[latest].data["week"]
            issue_line = (latest, format_week(dt.date.fromisoformat(week["start"]),
                                              dt.date.fromisoformat(week["end"]), self.lang))
        return {
            "lang": self.lang, "languages": self.settings.languages, "site": site, "url": url,
            "canonical": self.settings.base_url + url, "href": self.href, "twins": twins,
            "latest_issue": issue_line, "urls": urls, "base_url": self.settings.base_url,
            "og_type": "article" if template in ARTICLE_TEMPLATES else "website", "noindex": False,
        }

    def spec(self, url: str, template: str, context: dict[str, Any], make_url: Callable[[str], str],
             lastmod: dt.date | None = None, record: Record | None = None) -> PageSpec:
        """One page; its twins are the languages the record has a page in (every language without one)."""
        languages = self.languages_of(record) if record is not None else self.settings.languages
        twins = {lang: make_url(lang) for lang in languages}
        return PageSpec(url, self.lang, template, {**self.chrome(url, twins, template), **context}, twins, lastmod)

    # -- pages ---------------------------------------------------------------------
    def pages(self) -> list[PageSpec]:
        specs = [self.home(), self.glossary_index(), self.editions(), self.search()]
        specs += [self.issue(number) for number in self.issues]
        specs += [self.entry(slug) for slug, entry in self.content.entries.items() if self.available(entry)]
        specs += [self.page(slug) for slug, page in self.content.pages.items() if self.available(page)]
        return specs

    def search(self) -> PageSpec:
        """The search page; its script reads the static index at urls.search_index()."""
        entries = sum(1 for entry in self.content.entries.values() if self.available(entry))
        stories = sum(1 for story in self.content.stories.values()
                      if story.data["issue"] in self.issues and self.available(story))
        context = {"index_href": self.href(urls.search_index(self.lang)), "entry_count": entries,
                   "story_count": stories}
        return self.spec(urls.search(self.lang), "search.html", context, urls.search)

    def not_found(self) -> PageSpec:
        """The 404 page of this language (not in the sitemap, not indexed)."""
        spec = self.spec(urls.not_found(self.lang), "404.html", {}, urls.not_found)
        return PageSpec(spec.url, spec.lang, spec.template, {**spec.context, "noindex": True}, spec.twins)

    def home(self) -> PageSpec:
        latest = self.issues[0] if self.issues else None
        context = self.issue_context(latest) if latest is not None else {"issue": None}
        return self.spec(urls.home(self.lang), "home.html", context, urls.home)

    def issue(self, number: int) -> PageSpec:
        return self.spec(urls.issue(self.lang, number), "issue.html", self.issue_context(number),
                         lambda lang: urls.issue(lang, number), record=self.content.issues[number])

    def issue_context(self, number: int) -> dict[str, Any]:
        issue = self.content.issues[number]
        text, text_lang = self.text(issue)
        week = issue.data["week"]
        sections = []
        stories = [s for s in self.content.stories_of(number) if self.available(s)]
        section_names = self.names("sections")
        for slug in section_names:
            in_section = sorted((s for s in stories if s.data["section"] == slug), key=lambda s: s.data["position"])
            if in_section:
                sections.append({"slug": slug, "name": section_names[slug],
                                 "stories": [self.story_context(s) for s in in_section]})
        visible = self.issues
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
        # On an issue page a story's [n] points at its own n-th source link, not the page's.
        md = PageMarkdown(MarkdownRenderer(resolve=self.resolve,
                                           citation_href=lambda n: f"#story-{story.key}-source-{n}"))
        terms = [{"slug": slug, "headword": self.headword_label(slug), "href": self.resolve("entry", slug)}
                 for slug in self.derived.mentions.get(story.key, ())]
        return {"slug": story.key, "data": story.data, "text": text, "text_lang": text_lang,
                # Many stories share one issue page: anchors carry the story, or their ids would clash.
                "summary": Markup(md.html(text.get("summary") or "", anchor_prefix=f"cite-{story.key}-summary")),
                "body": Markup(md.html(text.get("body") or "", anchor_prefix=f"cite-{story.key}-body")),
                "terms": terms}

    def entry(self, slug: str) -> PageSpec:
        entry = self.content.entries[slug]
        text, text_lang = self.text(entry)
        groups = {group: [{"label": self.headword_label(link.slug), "href": self.resolve("entry", link.slug),
                           "note": (link.note or {}).get(self.lang)}
                          for link in self.derived.relations[slug][group]] for group in GROUPS}
        news = []
        for story_slug in self.derived.news.get(slug, []):
            story = self.content.stories[story_slug]
            if not self.available(story) or story.data["issue"] not in self.issues:
                continue
            headline, headline_lang = self.text(story)[0].get("headline"), self.text(story)[1]
            news.append({"headline": self.marked(headline, headline_lang), "issue": story.data["issue"],
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
                         dt.date(year, month, 1), record=entry)

    def glossary_index(self) -> PageSpec:
        rows = sorted(((self.headword(slug), slug) for slug, entry in self.content.entries.items()
                       if self.available(entry)), key=lambda row: sort_key(row[0], self.lang))
        letters: dict[str, list[dict[str, Any]]] = {}
        for headword, slug in rows:
            text, text_lang = self.text(self.content.entries[slug])
            letters.setdefault(letter_heading(headword, self.lang), []).append(
                {"headword": self.marked(headword, text_lang), "href": self.href(urls.entry(self.lang, slug)),
                 "definition": self.marked(plain_text(text.get("definition") or ""), text_lang)})
        return self.spec(urls.glossary_index(self.lang), "glossary_index.html", {"letters": letters},
                         urls.glossary_index)

    def editions(self) -> PageSpec:
        editions = []
        for number in self.issues:
            issue = self.content.issues[number]
            week = issue.data["week"]
            text, text_lang = self.text(issue)
            editions.append({"number": number, "title": self.marked(text.get("title"), text_lang),
                             "stories": sum(1 for s in self.content.stories_of(number) if self.available(s)),
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
                             lambda lang: urls.reference(lang, slug), record=page)
        return self.spec(urls.page(self.lang, slug), "page.html", context, lambda lang: urls.page(lang, slug),
                         record=page)


def plan(content: Content, settings: Settings, drafts: bool = False) -> list[PageSpec]:
    """Every page of the site in every language, in a stable order."""
    derived = derive(content, settings, drafts)
    return [spec for lang in settings.languages for spec in Planner(content, derived, settings, lang).pages()]
