"""The site's own pages of a language: the home page, the site pages (Method), search, feeds, the 404
page, the root page, and the pages at renamed records' former addresses.

A mixin of `newsroom.build.pages.Planner`: the methods use its helpers (text, spec, href, chrome…).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from functools import partial

from babel import Locale

from newsroom.build import urls
from newsroom.build.descriptions import shortened
from newsroom.build.feedlinks import feed_links
from newsroom.build.model import Record
from newsroom.build.page_specs import PageSpec
from newsroom.render.markdown import plain_text

#: Where each kind of record that can be renamed has its page (see `Planner.moved`).
MOVED_URLS: Mapping[str, Callable[..., str]] = {"entry": urls.entry, "reference": urls.reference, "page": urls.page}


class SitePages:
    """The site's own pages (mixed into Planner)."""

    def root(self) -> PageSpec:
        """The site's root page: the language choice."""
        reads = frozenset(self.tracker.take()) if self.tracker is not None else frozenset()
        return PageSpec("", self.lang, "root.html", self.chrome("", {}), reads=reads)

    def search(self) -> PageSpec:
        """The search page; its script reads the static index at urls.search_index()."""
        entries = sum(1 for entry in self.content.entries.values() if self.available(entry))
        shown = set(self.issues)
        stories = sum(1 for story in self.content.stories.values()
                      if story.data["issue"] in shown and self.available(story))
        context = {"index_href": self.href(urls.search_index(self.lang)), "entry_count": entries,
                   "reference_count": len(self.reference_slugs()), "story_count": stories,
                   "tag_count": len(self.tag_slugs()), "issue_count": len(shown)}
        return self.spec(urls.search(self.lang), "search.html", context, urls.search)

    def moved(self, record: Record, former: str) -> PageSpec:
        """The page at a renamed record's former address: it sends the reader on to the record's page (links
        in emails already sent, in feeds and on other sites keep working), and is not indexed."""
        url, make_url = MOVED_URLS[record.kind](self.lang, former), partial(MOVED_URLS[record.kind], slug=former)
        text, _ = self.text(record)
        target = MOVED_URLS[record.kind](self.lang, record.key)
        context = {"title": text.get("headword" if record.kind == "entry" else "title") or record.key,
                   "target": self.href(target), "target_url": self.settings.base_url + target}
        return self.spec(url, "moved.html", context, make_url, record=record)

    def not_found(self) -> PageSpec:
        """The 404 page of this language (not in the sitemap, not indexed)."""
        spec = self.spec(urls.not_found(self.lang), "404.html", {}, urls.not_found)
        return dataclasses.replace(spec, context={**spec.context, "noindex": True})

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
        """A site page (Method); reference pages are `reference_page`'s."""
        page = self.content.pages[slug]
        if page.kind == "reference":
            return self.reference_page(slug)
        text, text_lang = self.text(page)
        # Its description: the summary, else the start of its body (a page without a summary had none).
        description = text.get("summary") or (shortened(plain_text(text["body"])) if text.get("body") else "")
        context = {"page": page.data, "text": text, "text_lang": text_lang, "md": self.markdown(page),
                   "description": description}
        return self.spec(urls.page(self.lang, slug), "page.html", context, lambda lang: urls.page(lang, slug),
                         record=page)
