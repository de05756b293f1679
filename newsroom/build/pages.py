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

from babel import Locale
from markupsafe import Markup

from glossary.graph import GROUPS, relations_of
from glossary.jsonld import defined_term, defined_term_set, script_json, term_set_ref
from glossary.linking import link_first_mentions
from glossary.matching import TermMatcher
from glossary.mentions import entry_labels, in_the_news, matchers, story_mentions
from glossary.models import LEVELS
from glossary.staleness import status_month
from glossary.views import by_headword, index_letters
from issues import archive
from issues.dates import format_date, format_datetime, issue_line
from issues.dates import format_month as _format_month
from issues.dates import format_week as _format_week
from issues.jsonld import issue_jsonld
from issues.visibility import is_public, visible_numbers
from newsroom.build import urls
from newsroom.build.feedlinks import feed_links
from newsroom.build.model import Content, Record
from newsroom.build.reference import reference_sections
from newsroom.build.state import Memo
from newsroom.build.tracking import SEP, Tracker
from newsroom.i18n import translations
from newsroom.render.markdown import DeferredHtml, MarkdownRenderer, plain_text
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

    def issue(self, number: int) -> PageSpec:
        context = self.issue_context(number)
        return self.spec(urls.issue(self.lang, number), "issue.html", context,
                         lambda lang: urls.issue(lang, number), context["modified_date"],
                         record=self.content.issues[number])

    def issue_line(self, number: int) -> str:
        """"Issue 13 · Nov 2 – 8, 2026" / "13. szám · 2026. nov. 2–8."."""
        week = self.content.issues[number].data["week"]
        return issue_line(number, dt.date.fromisoformat(week["start"]), dt.date.fromisoformat(week["end"]),
                          self.lang, translations(self.lang).gettext("Issue"))

    def issue_context(self, number: int) -> dict[str, Any]:
        issue = self.content.issues[number]
        text, text_lang = self.text(issue)
        week = issue.data["week"]
        stories = [s for s in self.content.stories_of(number) if self.available(s)]
        section_names = self.names("sections")
        sections = []
        for slug in section_names:  # the site's fixed order
            in_section = sorted((s for s in stories if s.data["section"] == slug), key=lambda s: s.data["position"])
            if in_section:
                sections.append({"slug": slug, "name": section_names[slug], "href": self.href(urls.section(
                    self.lang, slug)), "stories": [self.story_context(s) for s in in_section]})
        visible = self.issues
        index = visible.index(number)
        corrections = self.content.corrections.get(number, ())
        published = issue.data.get("published_at")
        modified = max([published, *(c.changed_at.isoformat() for c in corrections)]) if published else None
        zone = self.settings.zone
        return {
            "issue": issue.data, "text": text, "text_lang": text_lang, "md": self.markdown(issue),
            "week": format_week(dt.date.fromisoformat(week["start"]), dt.date.fromisoformat(week["end"]), self.lang),
            "issue_line": self.issue_line(number), "sections": sections,
            "draft": not is_public(issue, self.now),
            "published": format_datetime(dt.datetime.fromisoformat(published), self.lang, self.settings.timezone)
            if published else None,
            "published_iso": dt.datetime.fromisoformat(published).astimezone(zone).isoformat() if published else None,
            "corrections": [self.correction_context(c) for c in corrections],
            "newer": visible[index - 1] if index > 0 else None,
            "older": visible[index + 1] if index + 1 < len(visible) else None,
            "jsonld": script_json(self.issue_jsonld(number, text, sections, published, modified)),
            "modified_date": dt.datetime.fromisoformat(modified).astimezone(zone).date() if modified else None,
        }

    def correction_context(self, correction: Any) -> dict[str, Any]:
        """A correction as readers see it: when, what (issue or story headline, fields), why."""
        what = None
        if correction.record_kind == "story" and correction.record_key in self.content.stories:
            what = self.text(self.content.stories[correction.record_key])[0].get("headline")
        fields = []
        for name in correction.changed_fields:  # "en.headline" → ("headline", "en")
            lang, _, field_name = name.rpartition(".") if name.split(".")[0] in self.settings.languages \
                else ("", "", name)
            fields.append({"field": field_name, "lang": lang})
        return {"when": format_datetime(correction.changed_at, self.lang, self.settings.timezone),
                "iso": correction.changed_at.astimezone(self.settings.zone).isoformat(),
                "what": what, "anchor": f"story-{correction.record_key}" if what else None,
                "fields": fields, "reason": correction.reason}

    def issue_jsonld(self, number: int, text: Mapping[str, Any], sections: list[dict[str, Any]],
                     published: str | None, modified: str | None) -> dict[str, Any]:
        url = self.settings.base_url + urls.issue(self.lang, number)
        zone = self.settings.zone
        local = lambda moment: dt.datetime.fromisoformat(moment).astimezone(zone).isoformat()  # noqa: E731
        changed: dict[str, str] = {}
        for correction in self.content.corrections.get(number, ()):
            if correction.record_kind == "story":
                changed[correction.record_key] = correction.changed_at.isoformat()
        stories = []
        for section in sections:
            for item in section["stories"]:
                story: dict[str, Any] = {
                    "headline": item["text"].get("headline"), "inLanguage": item["text_lang"],
                    "url": f"{url}#story-{item['slug']}", "articleSection": section["name"],
                    "isBasedOn": [source["url"] for source in item["data"].get("sources") or []],
                }
                if item["data"].get("tags"):
                    story["keywords"] = list(item["data"]["tags"])
                if published:
                    story["datePublished"] = local(published)
                    story["dateModified"] = local(max(published, changed.get(item["slug"], published)))
                stories.append(story)
        site = self.content.site.get(self.lang) or {}
        return issue_jsonld(number=number, name=text.get("title"), lang=self.lang, url=url,
                            published=local(published) if published else None,
                            modified=local(modified) if modified else None,
                            periodical={"name": site.get("name", ""),
                                        "url": self.settings.base_url + urls.home(self.lang)},
                            stories=stories)

    def story_context(self, story: Record) -> dict[str, Any]:
        """A story with its own source list: citations [n] point at its n-th source link."""
        text, text_lang = self.text(story)
        anchor = f"story-{story.key}-source"
        md = MarkdownRenderer(resolve=self.resolve, citation_href=(lambda n: f"#{anchor}-{n}")
                              if story.data.get("sources") else None)
        prefix = f"cite-{story.key}"
        terms = [{"slug": slug, "headword": self.headword_label(slug), "href": self.resolve("entry", slug)}
                 for slug in self.derived.mentions.get(story.key, ())]
        # Rendered when a template first shows them, not while every page is planned: a build plans
        # every page but renders only the changed ones. Each field names its own anchor prefix, so
        # the anchors do not depend on the order things are rendered in.
        linked: list[list[Markup]] = []

        def field_html(index: int) -> Markup:
            if not linked:
                linked.append(self.link_terms(story, text_lang, text.get("summary") or "", text.get("body") or "",
                                              md=md, prefixes=(f"{prefix}-summary", f"{prefix}-body")))
            return linked[0][index]

        summary, body = DeferredHtml(lambda: field_html(0)), DeferredHtml(lambda: field_html(1))
        return {"slug": story.key, "data": story.data, "text": text, "text_lang": text_lang,
                "source_anchor": anchor, "summary": summary, "body": body, "terms": terms}

    def link_terms(self, story: Record, text_lang: str, *fields: str, md: MarkdownRenderer | None = None,
                   prefixes: tuple[str, ...] = ()) -> list[Markup]:
        """Each Markdown field as HTML, the first mention of each glossary term in the story linked.

        A term linked in an earlier field is not linked again; suppressed terms stay text. `prefixes`
        gives each field's citation anchor prefix (unique ids when several stories share a page).
        """
        md = md or self.markdown(story)
        rendered = [md.html(text, anchor_prefix=prefix)
                    for text, prefix in zip(fields, prefixes or ("cite",) * len(fields))]
        matcher = self.derived.matchers.get(text_lang)
        if matcher is None:
            return rendered
        suppressed = set(story.data.get("suppress_terms") or [])

        def href_for(slug: str) -> str | None:
            return None if slug in suppressed else self.resolve("entry", slug)

        linked: list[Markup] = []
        done: set[str] = set()
        for text, html in zip(fields, rendered):
            linked.append(Markup(link_first_mentions(str(html), matcher, href_for, skip=done)))
            done |= {mention.slug for mention in matcher.find(plain_text(text))}
        return linked

    # -- glossary ------------------------------------------------------------------
    def entry(self, slug: str) -> PageSpec:
        entry = self.content.entries[slug]
        text, text_lang = self.text(entry)
        status = status_month(entry)
        url = urls.entry(self.lang, slug)
        definition = plain_text(text.get("definition") or "")
        jsonld = defined_term(
            name=text.get("headword") or slug, description=definition, url=self.settings.base_url + url,
            alternate_names=[*(text.get("aliases") or []), entry.data.get("english_term") or ""],
            lang=text_lang, date_modified=status.isoformat(), term_set=self.term_set(), code=slug)
        context = {
            "entry": entry.data, "text": text, "text_lang": text_lang, "md": self.markdown(entry),
            "groups": self.relation_groups(slug), "news": self.news(slug), "affected": self.affected(text),
            "status_month": format_month(status, self.lang), "status_date": status.isoformat(),
            "category_name": self.names("categories").get(entry.data["category"], entry.data["category"]),
            "category_href": self.href(urls.category(self.lang, entry.data["category"])),
            "level_href": self.href(urls.level(self.lang, entry.data["level"])),
            "description": definition, "jsonld": script_json(jsonld),
        }
        return self.spec(url, "entry.html", context, lambda lang: urls.entry(lang, slug), status, record=entry)

    def relation_groups(self, slug: str) -> dict[str, list[dict[str, Any]]]:
        """Related concepts by group; a missing target has no href and is shown as text."""
        groups: dict[str, list[dict[str, Any]]] = {}
        for group in GROUPS:
            groups[group] = []
            for link in self.derived.relations[slug][group]:
                notes = link.note or {}
                note_lang = self.lang if notes.get(self.lang) else next(iter(notes), self.lang)
                groups[group].append({"label": self.headword_label(link.slug),
                                      "href": self.resolve("entry", link.slug),
                                      "note": notes.get(note_lang), "note_lang": note_lang})
        return groups

    def news(self, slug: str) -> list[dict[str, Any]]:
        """The stories mentioning an entry, newest issue first, with issue number and date."""
        items = []
        for story_slug in self.derived.news.get(slug, []):
            story = self.content.stories[story_slug]
            number = story.data["issue"]
            if not self.available(story) or number not in self.issues:
                continue
            issue = self.content.issues[number].data
            published = issue.get("published_at")
            day = (dt.datetime.fromisoformat(published).astimezone(self.settings.zone).date() if published
                   else dt.date.fromisoformat(issue["week"]["start"]))
            headline, headline_lang = self.text(story)
            items.append({"headline": self.marked(headline.get("headline"), headline_lang), "lang": headline_lang,
                          "issue": number,
                          "date": format_date(day, self.lang), "iso_date": day.isoformat(),
                          "href": self.href(urls.issue(self.lang, number)) + f"#story-{story_slug}"})
        return items

    def affected(self, text: Mapping[str, Any]) -> list[dict[str, Any]]:
        """"Who is affected" lines: audience names and the newsletter section they point to."""
        audiences, sections = self.names("audiences"), self.names("sections")
        lines = []
        for line in text.get("affected") or []:
            section = line.get("section")
            lines.append({"audiences": [audiences.get(a, a) for a in line.get("audiences") or []],
                          "text": line.get("text"), "section": sections.get(section, section) if section else None,
                          "section_href": self.href(urls.section(self.lang, section)) if section else None})
        return lines

    def term_set(self) -> dict[str, Any]:
        site = self.content.site.get(self.lang) or {}
        return term_set_ref(self.settings.base_url + urls.glossary_index(self.lang),
                            site.get("name") or "", self.lang)

    def entry_rows(self, slugs: list[str]) -> list[dict[str, Any]]:
        """Entries for a list page, in the dictionary order of this language."""
        rows = []
        for slug in slugs:
            entry = self.content.entries[slug]
            text, text_lang = self.text(entry)
            rows.append({"slug": slug, "headword": text.get("headword") or slug, "lang": text_lang,
                         "href": self.href(urls.entry(self.lang, slug)), "level": entry.data["level"],
                         # The definition carries the "not yet translated" note; the headword stays plain for sorting.
                         "definition": self.marked(plain_text(text.get("definition") or ""), text_lang)})
        return by_headword(rows, self.lang, lambda row: row["headword"])

    def categories(self) -> list[str]:
        """Categories with at least one entry: configured ones in order, then any others."""
        used = {entry.data["category"] for entry in self.content.entries.values() if self.available(entry)}
        named = [slug for slug in self.content.vocabulary("categories") if slug in used]
        return named + sorted(used - set(named))

    def levels(self) -> list[str]:
        used = {entry.data["level"] for entry in self.content.entries.values() if self.available(entry)}
        return [level for level in LEVELS if level in used]

    def glossary_index(self) -> PageSpec:
        rows = self.entry_rows([slug for slug, entry in self.content.entries.items() if self.available(entry)])
        url = urls.glossary_index(self.lang)
        terms = [{"name": row["headword"], "url": self.settings.base_url + urls.entry(self.lang, row["slug"])}
                 for row in rows]
        jsonld = defined_term_set(name=self.term_set()["name"], url=self.settings.base_url + url,
                                  lang=self.lang, terms=terms)
        context = {"letters": index_letters(rows, self.lang), "jsonld": script_json(jsonld),
                   "categories": [(self.names("categories").get(slug, slug), self.href(urls.category(self.lang, slug)))
                                  for slug in self.categories()],
                   "levels": [(level, self.href(urls.level(self.lang, level))) for level in self.levels()]}
        return self.spec(url, "glossary_index.html", context, urls.glossary_index)

    def glossary_list(self, kind: str, slug: str) -> PageSpec:
        """The entries of one category or one level ("kind"), in dictionary order."""
        field_name = "category" if kind == "category" else "level"
        make = urls.category if kind == "category" else urls.level
        rows = self.entry_rows([key for key, entry in self.content.entries.items()
                                if entry.data[field_name] == slug and self.available(entry)])
        context = {"kind": kind, "slug": slug, "entries": rows,
                   "name": self.names("categories").get(slug, slug) if kind == "category" else slug}
        return self.spec(make(self.lang, slug), "glossary_list.html", context, lambda lang: make(lang, slug))

    def editions(self) -> PageSpec:
        """Every issue this build shows, newest first (drafts only in a preview, marked)."""
        editions = []
        for number in self.issues:
            issue = self.content.issues[number]
            text, text_lang = self.text(issue)
            editions.append({"number": number, "title": self.marked(text.get("title"), text_lang),
                             "stories": sum(1 for s in self.content.stories_of(number) if self.available(s)),
                             "href": self.href(urls.issue(self.lang, number)), "line": self.issue_line(number),
                             "draft": not is_public(issue, self.now)})
        return self.spec(urls.editions(self.lang), "editions.html", {"editions": editions}, urls.editions)

    def feeds(self) -> PageSpec:
        """The page the navigation's RSS item leads to: every feed, in every language."""
        languages = [{"lang": other, "name": (Locale.parse(other).get_display_name(other) or other).capitalize(),
                      "feeds": feed_links(self.content, self.settings, other)} for other in self.settings.languages]
        return self.spec(urls.feeds(self.lang), "feeds.html", {"feed_languages": languages}, urls.feeds)

    def archive_stories(self) -> list[Record]:
        """Every visible story, newest issue first (computed once per planner).

        Which stories, in which order, depends on each story's facts (`Derived.story_facts`), not its
        text: a page that shows a story reads its record itself (see story_links).
        """
        stories = f"content.stories{SEP}"

        def as_facts(reads: set[str]) -> set[str]:
            return {f"derived.story_facts{SEP}{key[len(stories):]}" if key.startswith(stories) else key
                    for key in reads}

        return self.kept("archive", lambda: [story for story in archive.archive_stories(self.content, self.issues)
                                             if self.available(story)], as_facts)

    def tagged(self) -> dict[str, list[Record]]:
        """{tag slug: its stories}, computed once per planner."""
        return self.kept("tagged", lambda: archive.by_tag(self.archive_stories()))

    def story_links(self, stories: list[Record]) -> list[dict[str, Any]]:
        """Archive rows grouped by month: headline linking into its issue, the issue line, the section."""
        sections = self.names("sections")
        months = []
        for month, items in archive.by_month(stories, self.content, self.settings.zone):
            rows = []
            for listed in items:
                story = self.content.stories[listed.key]  # this page shows the story's text: a read of it
                number = story.data["issue"]
                text, text_lang = self.text(story)
                rows.append({"headline": self.marked(text.get("headline"), text_lang), "text_lang": text_lang,
                             "href": self.href(urls.issue(self.lang, number)) + f"#story-{story.key}",
                             "issue_line": self.issue_line(number), "section": sections.get(story.data["section"]),
                             "section_href": self.href(urls.section(self.lang, story.data["section"])),
                             "draft": not is_public(self.content.issues[number], self.now)})
            months.append({"name": format_month(month, self.lang), "id": f"month-{month:%Y-%m}", "stories": rows})
        return months

    def archive(self) -> PageSpec:
        """All stories by month, with links to every section's and tag's own listing."""
        stories = self.archive_stories()
        context = {"months": self.story_links(stories), "heading": None,
                   "sections": [{"name": name, "href": self.href(urls.section(self.lang, slug))}
                                for slug, name in self.names("sections").items()],
                   "tags": [{"name": name, "href": self.href(urls.tag(self.lang, slug))}
                            for slug, name in archive.tags(stories).items()]}
        return self.spec(urls.archive(self.lang), "archive.html", context, urls.archive)

    def archive_section(self, slug: str) -> PageSpec:
        stories = archive.in_section(self.archive_stories(), slug)
        context = {"months": self.story_links(stories), "heading": self.names("sections")[slug], "kind": "section"}
        return self.spec(urls.section(self.lang, slug), "archive_list.html", context,
                         lambda lang: urls.section(lang, slug))

    def archive_tag(self, slug: str) -> PageSpec:
        stories = self.tagged()[slug]
        context = {"months": self.story_links(stories), "heading": archive.tags(stories)[slug], "kind": "tag"}
        return self.spec(urls.tag(self.lang, slug), "archive_list.html", context, lambda lang: urls.tag(lang, slug))

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
