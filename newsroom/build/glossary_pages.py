"""The glossary pages of a language: entries, the A–Z index, category and level lists.

A mixin of `newsroom.build.pages.Planner`: the methods use its helpers (text, spec, href, resolve…).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from functools import partial
from typing import Any

from glossary.graph import GROUPS, name_label
from glossary.jsonld import defined_term, defined_term_set, script_json, term_set_ref
from glossary.models import LEVELS
from glossary.staleness import status_month
from glossary.views import by_headword, index_headings, index_letters
from issues.dates import format_date, format_source_dates, format_status_month
from newsroom.build import urls
from newsroom.build.page_specs import PageSpec
from newsroom.build.tracking import SEP
from newsroom.i18n import format_message
from newsroom.names import distinct_names
from newsroom.render.markdown import plain_text


class GlossaryPages:
    """Entry, index, category and level pages (mixed into Planner)."""

    def entry(self, slug: str) -> PageSpec:
        entry = self.content.entries[slug]
        text, text_lang = self.text(entry)
        status = status_month(entry)
        url = urls.entry(self.lang, slug)
        definition = plain_text(text.get("definition") or "")
        body = self.entry_body(slug)
        # The names *Also known as* lists, then the English term (English whatever the page's language).
        names = distinct_names([*body["also_known_as"], (entry.data.get("english_term") or "", "en")])
        jsonld = defined_term(
            name=text.get("headword") or slug, description=definition, url=self.settings.base_url + url,
            alternate_names=names[1:], lang=text_lang, date_modified=status.isoformat(),
            term_set=self.term_set(), code=slug)
        context = {
            **body, "news": self.news(slug),
            "category_name": self.names("categories").get(entry.data["category"], entry.data["category"]),
            "category_href": self.href(urls.category(self.lang, entry.data["category"])),
            # Only a level of the content format has a page (`check` reports another as an error).
            "level_href": self.href(urls.level(self.lang, entry.data["level"])) if entry.data["level"] in LEVELS
            else None,
            "description": definition, "jsonld": script_json(jsonld),
        }
        return self.spec(url, "entry.html", context, lambda lang: urls.entry(lang, slug), status, record=entry)

    def entry_body(self, slug: str) -> dict[str, Any]:
        """What an entry's text needs (`_entry_body.html`: its page's, and its glossary feed item's), without
        what the page alone shows: *In the news* changes with every story that mentions the entry."""
        entry = self.content.entries[slug]
        text, text_lang = self.text(entry)
        status = status_month(entry)
        return {"entry": entry.data, "text": text, "text_lang": text_lang, "md": self.markdown(entry),
                "groups": self.relation_groups(slug), "affected": self.affected(text),
                "also_known_as": self.also_known_as(slug),
                "status_month": format_status_month(status, self.lang), "status_date": status.isoformat(),
                "source_dates": format_source_dates(list(entry.data.get("sources") or []), self.lang)}

    def also_known_as(self, slug: str) -> list[tuple[str, str]]:
        """The entry's names, each (name, its language), as *Also known as* lists them: the headword and aliases
        of the text the page shows, then those of each other language with text, in the site's order, but for
        names a reader cannot tell from one before them (`distinct_names`). The first is the headword shown."""
        entry = self.content.entries[slug]
        text, text_lang = self.text(entry)
        names = [(text.get("headword") or slug, text_lang)]
        names += [(alias, text_lang) for alias in text.get("aliases") or []]
        for lang in self.texts(entry):
            if lang != text_lang:
                other = entry.text(lang)
                names += [(other.get("headword") or "", lang)]
                names += [(alias, lang) for alias in other.get("aliases") or []]
        return distinct_names(names)

    def relation_groups(self, slug: str) -> dict[str, list[dict[str, Any]]]:
        """Related concepts by group; a missing target, or a concept named without an entry, has no href and
        is shown as text; a draft still named by the starter's TODO is left out."""
        groups: dict[str, list[dict[str, Any]]] = {}
        for group in GROUPS:
            groups[group] = []
            for link in self.derived.relations[slug][group]:
                if link.slug is None:
                    name, name_lang = name_label(link.name, self.lang)
                    groups[group].append({"label": self.marked(name, name_lang or self.lang), "href": None,
                                          "note": None, "note_lang": self.lang})
                    continue
                if self.unwritten(link.slug):
                    continue
                notes = link.note or {}
                note_lang = self.lang if notes.get(self.lang) else next(iter(notes), self.lang)
                groups[group].append({"label": self.headword_label(link.slug),
                                      "href": self.resolve("entry", link.slug),
                                      "note": notes.get(note_lang), "note_lang": note_lang})
        return groups

    def news(self, slug: str) -> list[dict[str, Any]]:
        """The stories mentioning an entry, newest issue first, with issue number, label and date."""
        rows = [self.kept(f"row{SEP}news{SEP}{story}", partial(self._news_row, story))
                for story in self.derived.news.get(slug, [])]
        return [row for row in rows if row is not None]

    def _news_row(self, key: str) -> dict[str, Any] | None:
        """A story's line in *In the news* (one per planner, see `kept`: a story mentions several
        entries), or None where this language does not show it."""
        story = self.content.stories[key]
        number = story.data["issue"]
        if not self.available(story) or number not in self.issues:
            return None
        date, iso_date, href, label = self.kept(f"row{SEP}news-issue{SEP}{number}",
                                                partial(self._news_issue, number))
        headline, headline_lang = self.text(story)
        return {"headline": self.marked(headline.get("headline"), headline_lang), "lang": headline_lang,
                "issue": number, "issue_label": label, "date": date, "iso_date": iso_date,
                "href": f"{href}#story-{key}"}

    def _news_issue(self, number: int) -> tuple[str, str, str, str]:
        """What an issue's lines in *In the news* share: its date, as shown and ISO, its page's address
        and its label."""
        issue = self.content.issues[number].data
        published = issue.get("published_at")
        day = (dt.datetime.fromisoformat(published).astimezone(self.settings.zone).date() if published
               else dt.date.fromisoformat(issue["week"]["start"]))
        return (format_date(day, self.lang), day.isoformat(), self.href(urls.issue(self.lang, number)),
                format_message(self.gettext("Issue %(number)s"), {"number": number}))

    def affected(self, text: Mapping[str, Any]) -> list[dict[str, Any]]:
        """"Who is affected" lines: audience names and the newsletter section they point to."""
        audiences, sections = self.names("audiences"), self.names("sections")
        lines = []
        for line in text.get("affected") or []:
            section = line.get("section")
            lines.append({"audiences": [audiences.get(a, a) for a in line.get("audiences") or []],
                          "text": line.get("text"), "section": sections.get(section, section) if section else None,
                          # Only a section the site lists has a page (`check` reports another as an error).
                          "section_href": self.href(urls.section(self.lang, section)) if section in sections else None})
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
                         "draft": bool(entry.data.get("draft")),  # only a preview has one to mark
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
        context = {"letters": index_letters(rows, self.lang), "letter_bar": self.letter_bar(),
                   "jsonld": script_json(jsonld),
                   "categories": [(self.names("categories").get(slug, slug), self.href(urls.category(self.lang, slug)))
                                  for slug in self.categories()],
                   "levels": [(level, self.href(urls.level(self.lang, level))) for level in self.levels()]}
        return self.spec(url, "glossary_index.html", context, urls.glossary_index)

    def letter_bar(self, current: str | None = None) -> list[dict[str, Any]]:
        """The A–Z bar: every letter of the alphabet (and "#" when digits or symbols lead some headword),
        each linked to its page if it has entries; `current` is the page's own letter."""
        having = self.derived.letters[self.lang]
        return [{"letter": letter, "current": letter == current,
                 "href": self.href(urls.letter(self.lang, letter)) if letter in having else None}
                for letter in index_headings(having, self.lang)]

    def glossary_letter(self, letter: str) -> PageSpec:
        """The entries under one letter of the A–Z index, in dictionary order. It has a twin only in a
        language with entries under that letter; in one without (Hungarian "Cs", an English "C" no
        Hungarian headword starts with) its language switch leads to that language's A–Z index, which
        is no alternate of it."""
        rows = self.entry_rows(list(self.derived.lettered[f"{self.lang}/{letter}"]))
        context = {"letter": letter, "entries": rows, "letter_bar": self.letter_bar(letter)}
        return self.spec(urls.letter(self.lang, letter), "glossary_letter.html", context,
                         lambda lang: urls.letter(lang, letter),
                         languages=[lang for lang in self.settings.languages
                                    if lang == self.lang or letter in self.derived.letters[lang]],
                         elsewhere=urls.glossary_index)

    def glossary_list(self, kind: str, slug: str) -> PageSpec:
        """The entries of one category or one level ("kind"), in dictionary order."""
        field_name = "category" if kind == "category" else "level"
        make = urls.category if kind == "category" else urls.level
        listed = [entry for entry in self.content.entries.values() if entry.data[field_name] == slug]
        rows = self.entry_rows([entry.key for entry in listed if self.available(entry)])
        context = {"kind": kind, "slug": slug, "entries": rows,
                   "name": self.names("categories").get(slug, slug) if kind == "category" else slug}
        # Its twins: the languages any of its entries has a page in (under "omit", not every one).
        languages = {lang for entry in listed for lang in self.languages_of(entry)}
        return self.spec(make(self.lang, slug), "glossary_list.html", context, lambda lang: make(lang, slug),
                         languages=[lang for lang in self.settings.languages if lang in languages])
