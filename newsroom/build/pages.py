"""The site model: every page of the build, its language twin and its context.

Planning is pure: (content, settings, derived data) → page specs. Rendering
and writing come after, so the same plan serves a full build, a preview and
the sitemap. `Planner` holds what every page needs (language policy, links,
the frame) and the site pages; the issue and glossary pages are its mixins in
`issue_pages.py` and `glossary_pages.py`, what is derived once per build is in
`derived.py`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from babel import Locale
from markupsafe import Markup

from issues.visibility import is_public
from newsroom.build import urls
from newsroom.build.derived import Derived, derive, format_week  # noqa: F401 (Derived, derive re-exported)
from newsroom.build.feedlinks import feed_links
from newsroom.build.glossary_pages import GlossaryPages
from newsroom.build.issue_pages import IssuePages
from newsroom.build.model import Content, Record
from newsroom.build.reference import reference_sections
from newsroom.build.tracking import Tracker
from newsroom.i18n import translations
from newsroom.render.markdown import MarkdownRenderer
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
    #: Dependency keys read while planning this page (see build/tracking.py); empty when untracked.
    reads: frozenset[str] = frozenset()


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


class Planner(IssuePages, GlossaryPages):
    """Builds the page specs of one language.

    Page methods read content only through `self.content` and `self.derived`
    and end with `self.spec(...)`: when the build tracks dependencies, those
    are views that note every read, and `spec` hands the reads made since the
    previous page to the page it makes. Values kept on the planner across pages
    (attributes set after __init__) make their reads inputs of every page.
    """

    def __init__(self, content: Content, derived: Derived, settings: Settings, lang: str,
                 now: dt.datetime | None = None, tracker: Tracker | None = None) -> None:
        self.content, self.derived, self.settings, self.lang = content, derived, settings, lang
        self.now = now
        self.tracker = tracker
        self._shared_reads: set[str] = set()
        self._kept: dict[str, tuple[Any, frozenset[str]]] = {}  # see kept()
        self.base_path = "/" + settings.base_url.split("://", 1)[1].partition("/")[2]
        self.omit = settings.missing_translation == "omit"
        self.gettext = translations(lang).gettext
        #: The issues this build shows in this language, newest first.
        self.issues = tuple(n for n in derived.visible_issues if self.available(content.issues[n]))

    def __setattr__(self, name: str, value: Any) -> None:
        """An attribute set while pages are planned is a value kept across pages (a memo):
        the reads that computed it become inputs of every page, not only of the page that made it."""
        tracker = self.__dict__.get("tracker")
        if tracker is not None and "_shared_reads" in self.__dict__:
            self.__dict__["_shared_reads"].update(tracker.reads)
        object.__setattr__(self, name, value)

    def kept(self, name: str, compute: Callable[[], Any],
             reads_as: Callable[[set[str]], set[str]] | None = None) -> Any:
        """`compute()` once per planner; every page that uses the value depends on what computing it read.

        Unlike an attribute set while planning (see __setattr__), a value kept here makes its reads
        inputs only of the pages that use it: the archive's story list is no input of an entry page.
        """
        found = self._kept.get(name)
        if found is None:
            tracker = self.tracker
            earlier = tracker.take() if tracker is not None else set()
            value = compute()
            made = tracker.take() if tracker is not None else set()
            reads = frozenset(reads_as(made) if reads_as is not None else made)
            if tracker is not None:
                tracker.reads |= earlier
            found = self._kept[name] = (value, reads)
        if self.tracker is not None:
            self.tracker.reads |= found[1]
        return found[0]

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
        return Markup('<span lang="{}">{}</span> <small class="untranslated-mark" lang="{}">{}</small>').format(
            text_lang, value, self.lang, self.gettext("not yet translated"))

    def public_issues(self) -> list[int]:
        """Shown issues that are public (not drafts), newest first: what the home page and masthead name."""
        return [n for n in self.issues if is_public(self.content.issues[n], self.now)]

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
        found = self.derived.headwords.get(f"{self.lang}/{slug}")
        return slug.replace("-", " ") if found is None else found

    def headword_label(self, slug: str) -> str | Markup:
        """The headword for a link or list, marked when it is another language's."""
        entry = self.content.entries.get(slug)
        if entry is None:
            return self.headword(slug)
        return self.marked(self.headword(slug), self.text(entry)[1]) or slug

    def chrome(self, url: str, twins: Mapping[str, str], template: str = "") -> dict[str, Any]:
        """What base.html needs on every page: language, twins, canonical URL, the current issue line."""
        site = self.content.site.get(self.lang) or {}
        public = self.public_issues()
        latest = public[0] if public else None  # the masthead names the latest published issue, even in a preview
        issue_line = None
        if latest is not None:
            week = self.content.issues[latest].data["week"]
            issue_line = (latest, format_week(dt.date.fromisoformat(week["start"]),
                                              dt.date.fromisoformat(week["end"]), self.lang))
        return {
            "lang": self.lang, "languages": self.settings.languages, "site": site, "url": url,
            "canonical": self.settings.base_url + url, "href": self.href, "twins": twins,
            "latest_issue": issue_line, "urls": urls, "base_url": self.settings.base_url,
            "feed_links": feed_links(self.content, self.settings, self.lang, sections=False),
            "og_type": "article" if template in ARTICLE_TEMPLATES else "website", "noindex": False,
        }

    def spec(self, url: str, template: str, context: dict[str, Any], make_url: Callable[[str], str],
             lastmod: dt.date | None = None, record: Record | None = None) -> PageSpec:
        """One page; its twins are the languages the record has a page in (every language without one)."""
        languages = self.languages_of(record) if record is not None else self.settings.languages
        twins = {lang: make_url(lang) for lang in languages}
        context = {**self.chrome(url, twins, template), **context}
        reads = frozenset(self.tracker.take()) if self.tracker is not None else frozenset()
        return PageSpec(url, self.lang, template, context, twins, lastmod, reads)

    # -- pages ---------------------------------------------------------------------
    def pages(self) -> list[PageSpec]:
        specs = [self.home(), self.glossary_index(), self.editions(), self.archive(), self.feeds(), self.search()]
        specs += [self.issue(number) for number in self.issues]
        specs += [self.archive_section(slug) for slug in self.content.vocabulary("sections")]
        specs += [self.archive_tag(slug) for slug in self.tagged()]
        specs += [self.entry(slug) for slug, entry in self.content.entries.items() if self.available(entry)]
        specs += [self.glossary_list("category", slug) for slug in self.categories()]
        specs += [self.glossary_list("level", level) for level in self.levels()]
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
        """The latest public issue; a preview build never puts a draft on the home page."""
        public = self.public_issues()
        context = self.issue_context(public[0]) if public else {"issue": None}
        return self.spec(urls.home(self.lang), "home.html", context, urls.home)

    def feeds(self) -> PageSpec:
        """The page the navigation's RSS item leads to: every feed, in every language."""
        languages = [{"lang": other, "name": (Locale.parse(other).get_display_name(other) or other).capitalize(),
                      "feeds": feed_links(self.content, self.settings, other)} for other in self.settings.languages]
        return self.spec(urls.feeds(self.lang), "feeds.html", {"feed_languages": languages}, urls.feeds)

    def page(self, slug: str) -> PageSpec:
        page = self.content.pages[slug]
        text, text_lang = self.text(page)
        context = {"page": page.data, "text": text, "text_lang": text_lang, "md": self.markdown(page),
                   "description": text.get("summary") or ""}
        if page.kind == "reference":
            sections, backrefs = reference_sections(list(text.get("sections") or []), self.markdown(page))
            context.update(sections=sections, backrefs=backrefs)
            return self.spec(urls.reference(self.lang, slug), "reference.html", context,
                             lambda lang: urls.reference(lang, slug), record=page)
        return self.spec(urls.page(self.lang, slug), "page.html", context, lambda lang: urls.page(lang, slug),
                         record=page)


def plan(content: Content, settings: Settings, derived: Derived, now: dt.datetime | None = None
         ) -> list[PageSpec]:
    """Every page of the site in every language, in a stable order."""
    return plan_pages(content, derived, settings, now=now)


def plan_pages(content: Content, derived: Derived, settings: Settings, tracker: Tracker | None = None,
               now: dt.datetime | None = None) -> list[PageSpec]:
    """Every page in every language; with a tracker, each spec carries the reads that made it.

    With a tracker, pass the tracked views of `content` and `derived`
    (`tracking.track_content` / `track_derived`) that note into it.
    """
    if tracker is None:
        return [spec for lang in settings.languages
                for spec in Planner(content, derived, settings, lang, now).pages()]
    specs: list[PageSpec] = []
    for lang in settings.languages:
        tracker.take()  # reads made before this planner belong to no page
        planner = Planner(content, derived, settings, lang, now, tracker)
        # What the planner read to set itself up, and what any value it kept across pages was
        # computed from (see Planner.__setattr__), is an input of every page it makes.
        shared = tracker.take()
        made = planner.pages()
        shared |= planner.__dict__.get("_shared_reads", set())
        specs += [dataclasses.replace(spec, reads=spec.reads | shared) for spec in made]
    return specs
