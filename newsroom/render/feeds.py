"""RSS 2.0 and Atom feeds per language: issues, one per section, glossary updates.

Every feed is a function of (content, derived data, settings, lang) → bytes.
Nothing reads the clock: feedgen stamps `now()` by default, so every date it
would invent (the feed's updated/lastBuildDate, each entry's updated) is set
from the content, and its generator is pinned. Same database, same bytes.

Ids are tag: URIs (RFC 4151) built from the base URL's host (or the
`feed_id_host` setting, for a site that moved), the fixed `feed_id_date`
setting, the language and the record's stable key (issue number, story
slug, entry slug + status month): rebuilding or correcting an
issue never changes them, nor does renaming an entry or a story (`newsroom
rename`): its id keeps the first slug it had (the first of its `formerly`).

A glossary entry appears when it is new and again when it is *substantially
updated*, which we define as: its status month ("Status: 2026 November")
changed. Editors move the status month when they revise what the entry says
about where things stand; typo fixes leave it alone and so do not reach
subscribers. The entry's id includes the month, so readers see the update as
a new item.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email.utils import parseaddr
from functools import partial
from html import escape as html_escape
from html import unescape as html_unescape
from typing import Any
from urllib.parse import urlsplit

import nh3
from jinja2 import Template

from issues.visibility import publication_time
from newsroom import __version__
from newsroom.build import urls
from newsroom.build.derived import Derived
from newsroom.build.feedlinks import FeedLink, feed_links
from newsroom.build.model import Content, Record
from newsroom.build.pages import Planner
from newsroom.render.folder import template_folder
from newsroom.render.html import environment, template_errors
from newsroom.render.markdown import plain_text
from newsroom.render.markdown.mathml import MATHML_ATTRIBUTES, MATHML_TAGS
from newsroom.settings import Settings

#: Tags and attributes kept in feed HTML; relative URLs are made absolute by the same pass.
FEED_TAGS = set(nh3.ALLOWED_TAGS) | {"section", "article"} | MATHML_TAGS
FEED_ATTRIBUTES = {tag: set(attrs) for tag, attrs in nh3.ALLOWED_ATTRIBUTES.items()} | MATHML_ATTRIBUTES
FEED_ATTRIBUTES["*"] = FEED_ATTRIBUTES.get("*", set()) | {"id", "class", "lang"}
FEED_ATTRIBUTES["a"] = (FEED_ATTRIBUTES.get("a", set()) | {"hreflang"}) - {"rel"}

#: Where HTML would start a tag, a comment or a declaration (a "<" before a space or a digit is text).
MARKUP_START = re.compile(r"<[A-Za-z/!?]")


def rss_html(text: str) -> str:
    """Plain text as RSS's HTML elements hold it (<description>; readers render it as HTML): `&`, `<` and `>`
    escaped once, so a "<svg onload…>" in it shows as typed and never runs, and nothing else, so an
    apostrophe stays one for the readers that show a summary as text."""
    return html_escape(text, quote=False)


def rss_text(text: str) -> str:
    """Plain text as RSS's text elements hold it (<title>). RSS does not say whether they hold HTML, and
    readers differ: most show them as text, some (feedparser among them) take them as HTML when they look
    like it. So the text goes as typed, which both read alike, unless HTML would read it differently (a tag,
    a character reference): then it is escaped as HTML (`rss_html`), so no reader runs or renders it as markup."""
    return rss_html(text) if MARKUP_START.search(text) or html_unescape(text) != text else text


@dataclass(frozen=True)
class FeedItem:
    """One entry of a feed, format-independent."""

    id: str
    title: str
    link: str
    published: dt.datetime
    summary: str
    content: str
    categories: tuple[str, ...] = ()
    twins: tuple[tuple[str, str], ...] = ()  # (lang, absolute url) of the other-language versions
    updated: dt.datetime | None = None  # the last correction readers of this language are shown, if later
    lang: str = ""  # the language of its text, where it is not the feed's (not yet translated: see Planner.text)

    @property
    def modified(self) -> dt.datetime:
        return max(self.published, self.updated) if self.updated is not None else self.published


def _to_the_second(moment: dt.datetime) -> dt.datetime:
    """A feed's time as its pages show it: a time stored with microseconds (an issue published, a correction
    made before times were stored to the second) would say them in Atom's dates."""
    return moment.replace(microsecond=0)


class FeedPlanner(Planner):
    """A planner that renders each story once although the issues and section feeds both show it."""

    def __init__(self, content: Content, derived: Derived, settings: Settings, lang: str) -> None:
        super().__init__(content, derived, settings, lang)
        self._stories: dict[str, dict[str, Any]] = {}

    def story_context(self, story: Record) -> dict[str, Any]:
        if story.key not in self._stories:
            self._stories[story.key] = super().story_context(story)
        return self._stories[story.key]


class LanguageLinks:
    """Atom entry links with `hreflang`: the entry's own page and its other-language twins.

    feedgen 1.0 drops `rel`/`hreflang` from entry links (its loop variable
    shadows the link it reads), so they are written by this entry extension.
    The own link comes last because readers (feedparser among them) take the
    last `alternate` link as the entry's link. An entry shown in another language
    than the feed's (not yet translated) says so with `xml:lang`.
    """

    def __init__(self) -> None:
        self.links: list[tuple[str, str]] = []
        self.lang = ""  # the entry's own language, where it is not the feed's (xml:lang, RFC 4287 §2)

    def extend_ns(self) -> dict[str, str]:
        return {}

    def extend_atom(self, entry: Any) -> Any:
        if self.lang:
            entry.set("{http://www.w3.org/XML/1998/namespace}lang", self.lang)
        for lang, href in self.links:
            element = entry.makeelement("link", {"href": href, "rel": "alternate", "type": "text/html",
                                                 "hreflang": lang})
            entry.append(element)
        return entry


def published_issues(derived: Derived) -> list[int]:
    """Public issues, newest first (the latest publication first, see issues.visibility): drafts and issues
    scheduled for later never reach a feed or an email.

    A scheduled issue whose time the build clock has passed is public on the site, so it is in the feeds too.
    """
    return list(derived.public_issues)


def site_published(planner: Planner) -> dt.datetime:
    """When the site last published: its latest public issue's publication, else the first moment of
    `feed_id_date` (the site's feeds began no earlier). A feed with nothing in it yet (a new section's)
    still needs a date, and this is the one a reader can believe, never the epoch nor the build's clock."""
    content, settings = planner.content, planner.settings
    times = [publication_time(content.issues[number], settings.zone) for number in published_issues(planner.derived)]
    if times:
        return max(times)
    year, month, day = (list(map(int, settings.feed_id_date.split("-"))) + [1, 1])[:3]
    return dt.datetime(year, month, day, tzinfo=settings.zone).astimezone(dt.timezone.utc)


def tag_id(settings: Settings, path: str) -> str:
    """A tag: URI (RFC 4151) that no rebuild or correction changes, nor a move to another host that names the
    old one in `feed_id_host`."""
    host = settings.feed_id_host or urlsplit(settings.base_url).hostname or "localhost"
    return f"tag:{host},{settings.feed_id_date}:{path}"


#: `remember(name, make)`: `make()`, or what it made before from the same reads (see remembered.Remembered);
#: `name` says what else `make` is made from (the language, an issue's number, a story's page).
Remember = Callable[[str, Callable[[], str]], str]


def _made(name: str, make: Callable[[], str]) -> str:
    return make()


#: The templates of feed entries' HTML: an issue's, a story's (a feed is remade when they change).
ISSUE_TEMPLATE, STORY_TEMPLATE, ENTRY_TEMPLATE = FEED_TEMPLATES = ("feeds/issue.html", "feeds/story.html",
                                                                  "feeds/entry.html")


def absolute_html(html: str, page_url: str, tags: set[str] = FEED_TAGS) -> str:
    """Sanitised HTML (of `tags`) whose relative links and images point at absolute URLs under `page_url`."""
    return nh3.clean(html, tags=tags, attributes=FEED_ATTRIBUTES,
                     url_relative=("rewrite_with_base", page_url))


def _entry_template(planner: Planner, name: str) -> Template:
    """A feed entry's template, looked up once per feed (the lookup stats every template file)."""
    return environment(planner.lang, template_folder(planner.settings.templates)).get_template(name)


def issue_html(planner: Planner, number: int, template: Template) -> str:
    """The full issue as an HTML fragment with absolute links, for feeds (`template`: the feed's
    `ISSUE_TEMPLATE`, see `_entry_template`)."""
    context = {**planner.issue_context(number), "lang": planner.lang, "href": planner.href, "urls": urls}
    with template_errors(template.environment):
        html = template.render(**context)
    return absolute_html(html, planner.settings.base_url + urls.issue(planner.lang, number))


def story_html(planner: Planner, story: Record, template: Template, page: str) -> str:
    """A story as an HTML fragment with absolute links under its issue's `page`, for feeds (`template`:
    the feed's `STORY_TEMPLATE`)."""
    with template_errors(template.environment):
        html = template.render(item=planner.story_context(story), lang=planner.lang, href=planner.href)
    return absolute_html(html, page)


def entry_html(planner: Planner, slug: str, template: Template, page: str) -> str:
    """An entry's text, from its definition to its sources, as an HTML fragment with absolute links under its
    `page`, for the glossary feed (`template`: the feed's `ENTRY_TEMPLATE`)."""
    context = {**planner.entry_body(slug), "lang": planner.lang, "href": planner.href, "urls": urls}
    with template_errors(template.environment):
        html = template.render(**context)
    return absolute_html(html, page)


def issue_items(planner: Planner, remember: Remember = _made) -> Iterator[FeedItem]:
    """The newest published issues, each with its full text (remembered by `remember`) and, as its categories,
    the names of its sections, then its stories' tags' (see `Planner.listed_tag_names`), each once."""
    content, settings, lang = planner.content, planner.settings, planner.lang
    section_names = planner.names("sections")
    numbers = published_issues(planner.derived)  # the latest publication first; the number breaks ties
    template = _entry_template(planner, ISSUE_TEMPLATE)
    for number in numbers[: settings.feed_limit]:
        issue = content.issues[number]
        text = planner.text(issue)[0]
        stories = [story for story in content.stories_of(number) if planner.available(story)]  # as its page's
        sections = {story.data["section"] for story in stories}
        names = [name for slug, name in section_names.items() if slug in sections]
        yield FeedItem(
            id=tag_id(settings, f"{lang}/issues/{number}"), title=text.get("title") or str(number),
            link=settings.base_url + urls.issue(lang, number), published=publication_time(issue, settings.zone),
            updated=planner.last_corrected(number), summary=plain_text(text.get("lead") or ""),
            content=remember(f"{lang}/issue/{number}", partial(issue_html, planner, number, template)),
            categories=tuple(dict.fromkeys([*names, *planner.listed_tag_names(stories)])),
            twins=tuple((other, settings.base_url + urls.issue(other, number))
                        for other in settings.languages if other != lang and issue.has(other)))


def section_items(planner: Planner, section: str, remember: Remember = _made) -> Iterator[FeedItem]:
    """The newest published stories of one section, dated by their issue's publication (each one's
    HTML remembered by `remember`), with the section's name and their tags' as their categories, each once."""
    content, settings, lang = planner.content, planner.settings, planner.lang
    name = planner.names("sections").get(section, section)
    # Chosen once per build for every section (`Derived.section_feeds`), so the feed reads its own list and only
    # the stories it shows: an edit to an older story, or to another section's, leaves it alone.
    template = _entry_template(planner, STORY_TEMPLATE)
    for key in planner.derived.section_feeds.get(section, ()):
        story = content.stories[key]
        published = publication_time(content.issues[story.data["issue"]], settings.zone)
        text = planner.text(story)[0]
        page = settings.base_url + urls.issue(lang, story.data["issue"])
        yield FeedItem(
            id=tag_id(settings, f"{lang}/stories/{(story.data.get('formerly') or [story.key])[0]}"),
            title=text.get("headline") or story.key,
            link=f"{page}#story-{story.key}", published=published,
            updated=planner.story_corrected(story),
            summary=plain_text(text.get("summary") or ""),
            content=remember(f"{lang}/story/{story.key}/{page}", partial(story_html, planner, story, template, page)),
            categories=tuple(dict.fromkeys((name, *planner.tag_names(story.data.get("tags") or ())))),
            twins=tuple((other, settings.base_url + urls.issue(other, story.data["issue"]) + f"#story-{story.key}")
                        for other in settings.languages if other != lang and story.has(other)))


def glossary_items(planner: Planner, remember: Remember = _made) -> Iterator[FeedItem]:
    """Entries by status month, newest first: one item per entry and status month (see the module doc), each
    with its whole text (remembered by `remember`)."""
    content, settings, lang = planner.content, planner.settings, planner.lang
    categories = planner.names("categories")

    def status(entry: Record) -> dt.datetime:
        year, month = map(int, entry.data["status"].split("-"))
        return dt.datetime(year, month, 1, tzinfo=settings.zone).astimezone(dt.timezone.utc)

    # The entries with a page in this language: with `missing_translation = "omit"`, not one untranslated.
    entries = sorted((entry for entry in content.entries.values() if planner.available(entry)),
                     key=lambda e: (-status(e).timestamp(), e.key))
    template = _entry_template(planner, ENTRY_TEMPLATE)
    for entry in entries[: settings.feed_limit]:
        text, shown = planner.text(entry)
        page = settings.base_url + urls.entry(lang, entry.key)
        yield FeedItem(
            id=tag_id(settings, f"{lang}/glossary/{(entry.data.get('formerly') or [entry.key])[0]}/"
                                f"{entry.data['status']}"),
            title=text.get("headword") or entry.key, link=page, published=status(entry),
            summary=plain_text(text.get("definition") or ""),
            content=remember(f"{lang}/entry/{entry.key}", partial(entry_html, planner, entry.key, template, page)),
            categories=(categories.get(entry.data["category"], entry.data["category"]),),
            twins=tuple((other, settings.base_url + urls.entry(other, entry.key))
                        for other in settings.languages if other != lang and entry.has(other)),
            lang=shown if shown != lang else "")


def render_feed(link: FeedLink, items: list[FeedItem], settings: Settings, site: dict[str, Any],
                home: str, empty_since: dt.datetime | None = None) -> bytes:
    """One feed document. Entries come newest first; every date is taken from the content: a feed with
    no entries is dated `empty_since` (see `site_published`), and RSS gives it no publication date."""
    from feedgen.feed import FeedGenerator  # here: a rebuild that remakes no feed does not load it (nor lxml)

    fg = FeedGenerator()
    # RSS wants an address with its author; Atom is happy with the name alone but shows both.
    author = {"name": site.get("name") or settings.list_id, "email": parseaddr(settings.email_reply_to)[1]}
    fg.id(tag_id(settings, link.url.rsplit(".", 1)[0]))
    # Atom says its texts are plain (type="text"); RSS says nothing for titles and HTML for descriptions.
    title, description = (rss_text, rss_html) if link.fmt == "rss" else (str, str)
    fg.title(title(link.title))
    fg.subtitle(description(site.get("tagline") or link.title))  # also RSS <description>
    fg.language(link.lang)
    fg.link(href=settings.base_url + link.url, rel="self", type=link.mime)
    fg.link(href=home, rel="alternate", hreflang=link.lang)
    fg.author(author)
    fg.generator("newsroom", version=__version__, uri="https://example.org/newsroom")
    if items:
        newest = _to_the_second(max(item.modified for item in items))  # a correction updates it
        fg.pubDate(_to_the_second(max(item.published for item in items)))
    elif empty_since is not None:
        newest = _to_the_second(empty_since)
    else:
        raise ValueError(f"{link.url}: a feed with no entries needs the date it is empty since")
    fg.updated(newest)  # Atom must have it; feedgen would stamp now()
    fg.lastBuildDate(newest)
    if link.fmt == "rss" and any(item.lang for item in items):  # RSS 2.0 has no item language of its own
        fg.load_extension("dc", atom=False, rss=True)
    for item in items:
        entry = fg.add_entry(order="append")
        entry.id(item.id)
        entry.guid(item.id, permalink=False)
        entry.title(title(item.title))
        if link.fmt == "atom":
            entry.register_extension("language_links", LanguageLinks, atom=True, rss=False)
            entry.language_links.links = [*item.twins, (link.lang, item.link)]
            entry.language_links.lang = item.lang
        else:
            entry.link(href=item.link)
            if item.lang:  # not yet translated: Dublin Core's language, which feed readers take for the item's
                entry.dc.dc_language(item.lang)
        entry.published(_to_the_second(item.published))
        entry.updated(_to_the_second(item.modified))
        entry.author(author)
        for category in item.categories:
            entry.category(term=category)
        # RSS: the summary in <description>, the full text in <content:encoded>; Atom: <summary> + <content>.
        entry.content(item.content, type="CDATA" if link.fmt == "rss" else "html")
        entry.summary(description(item.summary))
    return fg.rss_str(pretty=True) if link.fmt == "rss" else fg.atom_str(pretty=True)


def render_feeds(content: Content, derived: Derived, settings: Settings, lang: str) -> list[tuple[str, bytes]]:
    """Every feed of one language as (path, bytes)."""
    return [output for make in feed_groups(content, derived, settings, lang).values() for output in make()]


def feed_groups(content: Content, derived: Derived, settings: Settings, lang: str,
                remember: Callable[[str], Remember] | None = None) -> dict[str, Callable[[], list[tuple[str, bytes]]]]:
    """Each feed of one language ("issues", "glossary", "section-<slug>") → a function making its
    formats as (path, bytes). Each makes its own planner, so what one reads is its own (the build
    remakes a feed only when something it read changed). `remember(name)`, if given, is what keeps
    the HTML of each issue and story the feed `name` shows, the costly part of a feed, from one build
    to the next (see remembered.Remembered)."""
    links: dict[str, list[FeedLink]] = {}
    for link in feed_links(content, settings, lang):
        links.setdefault(link.name, []).append(link)

    def make(name: str) -> list[tuple[str, bytes]]:
        planner = FeedPlanner(content, derived, settings, lang)
        keep = remember(name) if remember is not None else _made
        if name == "issues":
            items = list(issue_items(planner, keep))
        elif name == "glossary":
            items = list(glossary_items(planner, keep))
        else:
            items = list(section_items(planner, name.removeprefix("section-"), keep))
        site = dict(content.site.get(lang) or {})
        home = settings.base_url + urls.home(lang)
        # Only an empty feed reads when the issues came out, for its date: a new issue remakes no glossary feed.
        since = None if items else site_published(planner)
        return [(link.url, render_feed(link, items, settings, site, home, since)) for link in links[name]]

    return {name: partial(make, name) for name in links}
