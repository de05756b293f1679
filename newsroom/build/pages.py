"""The site model: every page of the build, its language twin and its context.

Planning is pure: (content, settings, derived data) → page specs. Rendering
and writing come after, so the same plan serves a full build, a preview and
the sitemap. `Planner` holds what every page needs (language policy, links,
the frame) and lists the pages; the pages themselves are its mixins in
`site_pages.py`, `issue_pages.py`, `archive_pages.py`, `glossary_pages.py` and
`reference_pages.py`, each page's Markdown renderer is in `page_markdown.py`,
what is derived once per build is in `derived.py`, a page before and after it
is planned (`PagePlan`, `PageSpec`) in `page_specs.py`, and planning every
language's pages in `planning.py`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar

from markupsafe import Markup

from newsroom.build import urls
from newsroom.build.archive_pages import ArchivePages
from newsroom.build.derived import Derived, pages_in, text_language, texts_of
from newsroom.build.feedlinks import feed_links
from newsroom.build.glossary_pages import GlossaryPages
from newsroom.build.issue_pages import IssuePages
from newsroom.build.model import Content, Record
from newsroom.build.page_markdown import PageMarkdown
from newsroom.build.page_specs import PagePlan, PageSpec
from newsroom.build.reference_pages import ReferencePages
from newsroom.build.site_pages import MOVED_URLS, SitePages
from newsroom.build.tracking import Tracker
from newsroom.i18n import translations
from newsroom.render.markdown import MarkdownRenderer, SourceAnchors, SourceUrls
from newsroom.settings import Settings

T = TypeVar("T")


#: Templates whose pages are articles for Open Graph (og:type); the rest are "website".
ARTICLE_TEMPLATES = frozenset({"issue.html", "entry.html", "reference.html", "page.html"})


class ShownIssues(Sequence[int]):
    """The issues a language shows, newest first (`Derived.shown`), read when used: whether one number
    is among them depends on that alone, anything else on the whole list. A page that only asks
    whether the issue a story belongs to is shown (an entry's *In the news*, a link to an issue) does
    not change when another issue is published."""

    def __init__(self, shown: Mapping[str, tuple[int, ...]], lang: str) -> None:
        self._shown, self._lang = shown, lang

    def __contains__(self, number: object) -> bool:
        member = getattr(self._shown, "member", None)
        return member(self._lang, number) if member is not None else number in self._shown[self._lang]

    def __getitem__(self, index: Any) -> Any:
        return self._shown[self._lang][index]

    def __len__(self) -> int:
        return len(self._shown[self._lang])

    def __iter__(self) -> Iterator[int]:
        return iter(self._shown[self._lang])


class Planner(IssuePages, ArchivePages, GlossaryPages, ReferencePages, SitePages):
    """Builds the page specs of one language.

    Page methods read content only through `self.content` and `self.derived`
    and end with `self.spec(...)`: when the build tracks dependencies, those
    are views that note every read, and `spec` hands the reads made since the
    page was begun to the page it makes. What __init__ reads, and what any
    value kept on the planner as an attribute was computed from, is an input of
    every page of the language; a value computed through `kept` makes its reads
    inputs of the pages that use it. Pages can be planned in any order, or only
    some of them (an incremental build).
    """

    def __init__(self, content: Content, derived: Derived, settings: Settings, lang: str,
                 now: dt.datetime | None = None, tracker: Tracker | None = None) -> None:
        self.content, self.derived, self.settings, self.lang = content, derived, settings, lang
        self.now = now
        self.tracker = tracker
        self._shared_reads: set[str] = set()
        self._kept: dict[str, tuple[Any, frozenset[str]]] = {}  # see kept()
        self.base_path = "/" + settings.base_url.split("://", 1)[1].partition("/")[2]
        self.gettext = translations(lang).gettext
        #: The issues this build shows in this language, newest first; and in each language.
        self.shown_in = {other: ShownIssues(derived.shown, other) for other in settings.languages}
        self.issues = self.shown_in[lang]

    def __setattr__(self, name: str, value: Any) -> None:
        """An attribute set while pages are planned is a value kept across pages (a memo):
        the reads that computed it become inputs of every page planned, not only of the page that made it."""
        tracker = self.__dict__.get("tracker")
        if tracker is not None and "_shared_reads" in self.__dict__:
            self.__dict__["_shared_reads"].update(tracker.reads)
        object.__setattr__(self, name, value)

    def shared_reads(self) -> frozenset[str]:
        """What every page of this planner depends on: what it read to set itself up, and what any
        value it kept across pages as an attribute was computed from (ask after planning)."""
        return frozenset(self._shared_reads)

    def kept(self, name: str, compute: Callable[[], T],
             reads_as: Callable[[set[str]], set[str]] | None = None) -> T:
        """`compute()` once per planner; every page that uses the value depends on what computing it read
        (as `reads_as` turns those reads, if given), as if the page had computed it.

        Its reads are inputs only of the pages that use it: the archive's story list is no input of
        an entry page. The value may be a list's row that many pages show (a story's line in the
        archive's lists and in the *In the news* of each entry it mentions): the page's reads so far
        are set aside while it is computed, not copied, for a list page asks for a thousand of them.
        """
        found = self._kept.get(name)
        tracker = self.tracker
        if found is None:
            if tracker is None:
                found = self._kept[name] = (compute(), frozenset())
                return found[0]
            page, tracker.reads = tracker.reads, set()
            try:
                value = compute()
            finally:
                made, tracker.reads = tracker.reads, page
            found = self._kept[name] = (value, frozenset(reads_as(made) if reads_as is not None else made))
        if tracker is not None:
            tracker.reads |= found[1]
        return found[0]

    # -- the missing-translation policy ----------------------------------------------
    def languages_of(self, record: Record) -> tuple[str, ...]:
        """The languages `record` has a page in: all of them under "fallback", its own under "omit"."""
        return pages_in(self.texts(record), self.settings)

    def texts(self, record: Record) -> tuple[str, ...]:
        """The languages `record` has text in: from the derived facts where the build keeps them (a
        page that asks depends on that list, not on the record's text), else from the record."""
        found: tuple[str, ...] | None = None
        if record.kind == "entry":
            found = self.derived.entry_langs.get(record.key)
        elif record.kind == "story":
            facts = self.derived.story_facts.get(record.key)
            found = facts[4] if facts is not None else None
        elif record.kind != "issue":
            page = self.derived.page_langs.get(record.key)
            found = page[1] if page is not None else None
        return texts_of(record, self.settings) if found is None else found

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
        """Shown issues that are public (not drafts), newest first: what the home page names (the masthead
        names the first through `Derived.masthead`)."""
        return list(self.derived.shown_public[self.lang])

    # -- helpers used by templates -------------------------------------------------
    def href(self, url: str) -> str:
        return self.base_path + url

    def resolve(self, kind: str, target: str) -> str | None:
        # Through the derived languages, not the records: a link does not change with the target's text.
        if kind == "entry":
            texts = self.derived.entry_langs.get(target)
            if texts is not None and self.lang in pages_in(texts, self.settings):
                return self.href(urls.entry(self.lang, target))
        if kind == "page":
            found = self.derived.page_langs.get(target)
            if found is not None and self.lang in pages_in(found[1], self.settings):
                make = urls.reference if found[0] == "reference" else urls.page
                return self.href(make(self.lang, target))
        if kind == "issue" and target.isdigit() and int(target) in self.issues:
            return self.href(urls.issue(self.lang, int(target)))
        return None

    def markdown(self, record: Record | None = None, originals: bool = False) -> PageMarkdown:
        """The renderer of a record's texts: citations link to its source list (`#source-n`), or with
        `originals` (a reference page) to each source's own address."""
        sources = (record.data.get("sources") or []) if record is not None else []
        href = (SourceUrls(tuple(source["url"] for source in sources)) if originals else SourceAnchors("source")) \
            if sources else None
        return PageMarkdown(MarkdownRenderer(resolve=self.resolve, citation_href=href))

    def text(self, record: Record) -> tuple[Mapping[str, Any], str]:
        """The record's text in this language, or the fallback language's, and which it is."""
        texts = self.texts(record)
        lang = text_language(texts, self.lang, self.settings.languages)
        return (record.text(lang) if lang in texts else {}), lang

    def names(self, field: str) -> dict[str, str]:
        return {slug: item.get(self.lang) or slug for slug, item in self.content.vocabulary(field).items()}

    def headword(self, slug: str) -> str:
        found = self.derived.headwords.get(f"{self.lang}/{slug}")
        return slug.replace("-", " ") if found is None else found

    def unwritten(self, slug: str) -> bool:
        """Whether the draft `slug`, which a public build leaves out, has no headword to show in this language
        but the starter's TODO: a relation or a story's term naming it is left out (see newsroom.drafts)."""
        return self.derived.headwords.get(f"{self.lang}/{slug}") == ""

    def headword_label(self, slug: str) -> str | Markup:
        """The headword for a link or list, marked when it is another language's."""
        texts = self.derived.entry_langs.get(slug)
        if texts is None:
            return self.headword(slug)
        return self.marked(self.headword(slug), text_language(texts, self.lang, self.settings.languages)) or slug

    def chrome(self, url: str, twins: Mapping[str, str], template: str = "",
               switch: Mapping[str, str] | None = None) -> dict[str, Any]:
        """What base.html needs on every page: language, twins, canonical URL, the current issue line.

        `twins` are the page itself and the same page in other languages: its hreflang alternates, which
        the twins declare back. `switch` is where the language switch leads: the twins, and for a language
        without one, maybe another page of it (its A–Z index), which is no alternate."""
        site = self.content.site.get(self.lang) or {}
        # The masthead names the latest published issue, even in a preview; a page's frame alone reads it.
        issue_line = self.derived.masthead.get(self.lang)
        return {
            "lang": self.lang, "languages": self.settings.languages, "site": site, "url": url,
            "canonical": self.settings.base_url + url, "href": self.href, "twins": twins,
            "switch": twins if switch is None else switch,
            "latest_issue": issue_line, "urls": urls, "base_url": self.settings.base_url,
            # Made once per planner: every page links the same feeds (finding the catalog each time cost
            # two file-system calls a page).
            "feed_links": self.kept("feed_links", lambda: feed_links(self.content, self.settings, self.lang,
                                                                     sections=False)),
            "og_type": "article" if template in ARTICLE_TEMPLATES else "website", "noindex": False,
        }

    def spec(self, url: str, template: str, context: dict[str, Any], make_url: Callable[[str], str],
             lastmod: dt.date | None = None, record: Record | None = None,
             languages: Iterable[str] | None = None, elsewhere: Callable[[str], str] | None = None) -> PageSpec:
        """One page; its twins are the languages the record has a page in, or those `languages` (a list
        page that exists only where it lists something), else every language. In a language without a
        twin the language switch leads to `elsewhere(lang)`, if given."""
        if record is not None:
            languages = self.languages_of(record)
        elif languages is None:
            languages = self.settings.languages
        twins = {lang: make_url(lang) for lang in languages}
        switch = None
        if elsewhere is not None:
            switch = {lang: twins[lang] if lang in twins else elsewhere(lang) for lang in self.settings.languages}
        context = {**self.chrome(url, twins, template, switch), **context}
        reads = frozenset(self.tracker.take()) if self.tracker is not None else frozenset()
        return PageSpec(url, self.lang, template, context, twins, lastmod, reads)

    # -- pages ---------------------------------------------------------------------
    def plans(self) -> list[PagePlan]:
        """Every page of this language before it is planned: its place, its template, how to plan it.

        Listing is cheap; planning a page (its context) is not, so an incremental build
        plans only the pages whose recorded inputs changed (build/pipeline.py and build/stale.py).
        """
        lang = self.lang

        def plan(url: str, template: str, make: Callable[[], PageSpec]) -> PagePlan:
            return PagePlan(url, lang, template, make)

        plans = [plan(urls.home(lang), "home.html", self.home),
                 plan(urls.glossary_index(lang), "glossary_index.html", self.glossary_index),
                 plan(urls.editions(lang), "editions.html", self.editions),
                 plan(urls.archive(lang), "archive.html", self.archive),
                 plan(urls.feeds(lang), "feeds.html", self.feeds), plan(urls.search(lang), "search.html", self.search),
                 plan(urls.reference_index(lang), "reference_index.html", self.reference_index)]
        plans += [plan(urls.issue(lang, number), "issue.html", partial(self.issue, number)) for number in self.issues]
        plans += [plan(urls.archive_year(lang, year), "archive_list.html", partial(self.archive_year, year))
                  for year in self.year_list()]
        plans += [plan(urls.section(lang, slug), "archive_list.html", partial(self.archive_section, slug))
                  for slug in self.content.vocabulary("sections")]
        plans += [plan(urls.section_year(lang, slug, year), "archive_list.html",
                       partial(self.archive_section_year, slug, year)) for slug, year in self.section_years()]
        plans += [plan(urls.tag(lang, slug), "archive_list.html", partial(self.archive_tag, slug))
                  for slug in self.tag_slugs()]
        plans += [plan(urls.entry(lang, slug), "entry.html", partial(self.entry, slug))
                  for slug, entry in self.content.entries.items() if self.available(entry)]
        plans += [plan(urls.letter(lang, letter), "glossary_letter.html", partial(self.glossary_letter, letter))
                  for letter in self.derived.letters[lang]]
        plans += [plan(urls.category(lang, slug), "glossary_list.html", partial(self.glossary_list, "category", slug))
                  for slug in self.categories()]
        plans += [plan(urls.level(lang, level), "glossary_list.html", partial(self.glossary_list, "level", level))
                  for level in self.levels()]
        for slug, page in self.content.pages.items():
            if self.available(page):
                if page.kind == "reference":
                    plans.append(plan(urls.reference(lang, slug), "reference.html", partial(self.reference_page, slug)))
                else:
                    plans.append(plan(urls.page(lang, slug), "page.html", partial(self.page, slug)))
        return plans

    def extra_plans(self, default: bool) -> list[PagePlan]:
        """The pages outside the sitemap: this language's 404 page, and a page at each former address of a
        renamed entry, reference or site page; with `default`, the root 404 page (it answers for every
        unknown path, linking its twin) and the root page."""
        lang = self.lang
        plans = [PagePlan(urls.not_found(lang), lang, "404.html", self.not_found, in_sitemap=False)]
        plans += [PagePlan(MOVED_URLS[record.kind](lang, former), lang, "moved.html",
                           partial(self.moved, record, former), in_sitemap=False)
                  for record in (*self.content.entries.values(), *self.content.pages.values())
                  if record.data.get("formerly") and self.available(record) for former in record.data["formerly"]]
        if default:
            plans += [PagePlan(urls.not_found(lang), lang, "404.html", self.not_found, in_sitemap=False,
                               path="404.html"),
                      PagePlan("", lang, "root.html", self.root, in_sitemap=False, path="index.html")]
        return plans

    def pages(self) -> list[PageSpec]:
        return [plan.make() for plan in self.plans()]
