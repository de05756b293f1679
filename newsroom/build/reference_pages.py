"""The reference pages of a language: each page, and the index that lists them.

A mixin of `newsroom.build.pages.Planner`: the methods use its helpers (text, spec, href, markdown…).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from glossary.jsonld import script_json
from glossary.views import by_headword
from issues.dates import format_date, format_source_dates
from newsroom.build import urls
from newsroom.build.descriptions import shortened
from newsroom.build.page_specs import PageSpec
from newsroom.build.reference import article, collection_page, reference_sections
from newsroom.render.markdown import plain_text


def _first_simple_text(sections: list[Any]) -> str:
    """A page without a summary is described by its first Simple text, as plain text cut to a description's
    length (it had an empty description, what search engines and link previews show of it)."""
    simple = (sections[0].get("simple") if sections and isinstance(sections[0], dict) else None) or {}
    return shortened(plain_text(simple["text"])) if isinstance(simple, dict) and simple.get("text") else ""


class ReferencePages:
    """Reference pages and their index (mixed into Planner)."""

    def reference_page(self, slug: str) -> PageSpec:
        """One reference page: its numbered sections, its sources, its date of last update (shown, the
        sitemap's lastmod, the JSON-LD's dateModified) when its editors gave one."""
        page = self.content.pages[slug]
        text, text_lang = self.text(page)
        url = urls.reference(self.lang, slug)
        md = self.markdown(page, originals=True)  # "click one to open the original document"
        sections, backrefs = reference_sections(list(text.get("sections") or []), md)
        updated = page.data.get("updated")
        day = dt.date.fromisoformat(updated) if updated else None
        site = self.content.site.get(self.lang) or {}
        sources = list(page.data.get("sources") or [])
        description = text.get("summary") or _first_simple_text(text.get("sections") or [])
        jsonld = article(headline=text.get("title") or slug, description=description,
                         url=self.settings.base_url + url, lang=text_lang, date_modified=updated,
                         sources=sources, publisher=site.get("name") or "")
        context = {"page": page.data, "text": text, "text_lang": text_lang, "md": md,
                   "description": description, "sections": sections, "backrefs": backrefs,
                   "updated": format_date(day, self.lang) if day else None, "updated_iso": updated,
                   # As the page's language writes a date; the ISO date stays in <time datetime>.
                   "source_dates": format_source_dates(sources, self.lang),
                   "jsonld": script_json(jsonld)}
        return self.spec(url, "reference.html", context, lambda lang: urls.reference(lang, slug), day, record=page)

    def reference_slugs(self) -> list[str]:
        """The reference pages this language shows (its own, and others' under the fallback policy)."""
        # `available` first: it reads the page's kind and languages (a site page turned reference page).
        return [slug for slug, page in self.content.pages.items() if self.available(page) and page.kind == "reference"]

    def reference_index(self) -> PageSpec:
        """Every reference page of this language, by title in the language's dictionary order, with its
        summary and date of last update, and the list as JSON-LD (a CollectionPage). It reads their titles,
        summaries and dates only: a page edited elsewhere leaves it alone."""
        rows: list[dict[str, Any]] = []
        for slug in self.reference_slugs():
            page = self.content.pages[slug]
            text, text_lang = self.text(page)
            updated = page.data.get("updated")
            rows.append({"title": text.get("title") or slug, "summary": text.get("summary") or "",
                         "lang": text_lang, "href": self.href(urls.reference(self.lang, slug)),
                         "draft": bool(page.data.get("draft")),  # only a preview has one to mark
                         "url": self.settings.base_url + urls.reference(self.lang, slug), "updated_iso": updated,
                         "updated": format_date(dt.date.fromisoformat(updated), self.lang) if updated else None})
        rows = by_headword(rows, self.lang, lambda row: row["title"])
        url = urls.reference_index(self.lang)
        jsonld = collection_page(
            name=self.gettext("Reference pages"), url=self.settings.base_url + url, lang=self.lang,
            description=self.gettext("Reference pages: profiles with a Simple and a Deep dive layer and numbered "
                                     "sources, by title."),
            pages=[{"title": row["title"], "url": row["url"], "lang": row["lang"], "updated": row["updated_iso"]}
                   for row in rows])
        context = {"pages": rows, "jsonld": script_json(jsonld)}
        dates = [dt.date.fromisoformat(row["updated_iso"]) for row in rows if row["updated_iso"]]
        # The sitemap's lastmod: the latest update of a page it lists (none for an index of undated pages).
        return self.spec(url, "reference_index.html", context, urls.reference_index, max(dates, default=None))
