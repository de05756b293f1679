"""The weekly-issue pages of a language: issues, editions, the archive and its section and tag lists.

A mixin of `newsroom.build.pages.Planner`: the methods use its helpers (text, spec, href, kept…).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Container, Iterable, Mapping
from functools import partial
from typing import Any

from babel import Locale
from markupsafe import Markup

from glossary.collation import sort_key
from glossary.jsonld import script_json
from glossary.linking import linked_first_mentions
from issues import archive
from issues.dates import format_datetime, format_month, format_week, html_datetime, issue_line
from issues.jsonld import issue_jsonld
from issues.visibility import is_public
from newsroom.build import urls
from newsroom.build.derived import pages_in
from newsroom.build.model import Record
from newsroom.build.page_specs import PageSpec
from newsroom.build.tracking import EXISTS, SEP, unnoted, untracked
from newsroom.i18n import format_count, text_direction
from newsroom.render.markdown import DeferredHtml, MarkdownRenderer, SourceAnchors, plain_text




_STORIES = f"content.stories{SEP}"

#: The longest meta description, in characters: what search results show of one.
DESCRIPTION_LENGTH = 160


def shortened(text: str, limit: int = DESCRIPTION_LENGTH) -> str:
    """Plain `text` on one line, cut between words to `limit` characters at most with an ellipsis."""
    words = " ".join(text.split())
    if len(words) <= limit:
        return words
    cut = words[:limit]  # one character beyond the limit's last: whether the cut falls between words
    kept = cut[:-1].rstrip() if cut.endswith(" ") else (cut.rsplit(" ", 1)[0] if " " in cut else cut[:-1])
    return kept.rstrip(" ,;:–-") + "…"


def _as_facts(reads: set[str]) -> set[str]:
    """The reads of an archive list: a read of a story's field is one of the story's facts (see
    `Derived.story_facts`), which is all such a list uses of a story."""
    return {f"derived.story_facts{SEP}{key[len(_STORIES):].partition(SEP)[0].lstrip(EXISTS)}"
            if key.startswith(_STORIES) else key for key in reads}


def _archive_place(key: str, facts: tuple[Any, ...], sections: Mapping[str, int]) -> tuple[Any, ...]:
    """Where the story `key` with these facts (`Derived.story_facts`) comes in the archive's lists (see
    issues.archive.in_archive_order): newest issue first, then by section (`sections`: each one's place in the
    site's order), position and key."""
    return (-facts[0], sections.get(facts[1], len(sections)), facts[2], key)


class IssuePages:
    """Issue, editions and archive pages (mixed into Planner)."""

    def issue(self, number: int) -> PageSpec:
        context = self.issue_context(number)
        return self.spec(urls.issue(self.lang, number), "issue.html", context,
                         lambda lang: urls.issue(lang, number), context["modified_date"],
                         record=self.content.issues[number])

    def issue_line(self, number: int) -> str:
        """"Issue 13 · Nov 2 – 8, 2026" / "13. szám · 2026. nov. 2–8."."""
        week = self.content.issues[number].data["week"]
        return issue_line(number, dt.date.fromisoformat(week["start"]), dt.date.fromisoformat(week["end"]),
                          self.lang, self.gettext("Issue"))

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
        old_sources = _old_source_ids(stories)
        newer, older = self.derived.neighbours[f"{self.lang}/{number}"]
        corrections = [c for c in self.content.corrections.get(number, ()) if self.correction_shown(number, c)]
        published = issue.data.get("published_at")
        modified = max([published, *(c.changed_at.isoformat() for c in corrections)]) if published else None
        zone = self.settings.zone
        return {
            "issue": issue.data, "text": text, "text_lang": text_lang, "md": self.markdown(issue),
            # The page's meta description: the lead (the site's tagline, in the template, without one).
            "description": shortened(plain_text(text["lead"])) if text.get("lead") else None,
            "week": format_week(dt.date.fromisoformat(week["start"]), dt.date.fromisoformat(week["end"]), self.lang),
            "issue_line": self.issue_line(number), "sections": sections, "old_sources": old_sources,
            "draft": self.unpublished(issue) is not None, "scheduled": self.unpublished(issue) == "scheduled",
            "published": format_datetime(dt.datetime.fromisoformat(published), self.lang, self.settings.timezone)
            if published else None,
            "published_iso": html_datetime(dt.datetime.fromisoformat(published), zone) if published else None,
            "corrections": [self.correction_context(number, c) for c in corrections],
            "newer": newer, "older": older,
            "jsonld": script_json(self.issue_jsonld(number, text, sections, published, modified)),
            "modified_date": dt.datetime.fromisoformat(modified).astimezone(zone).date() if modified else None,
        }

    def last_corrected(self, number: int, story: str | None = None) -> dt.datetime | None:
        """When issue `number` (or its story `story`) was last corrected, as this language shows it."""
        return max((c.changed_at for c in self.content.corrections.get(number, ())
                    if (story is None or (c.record_kind == "story" and c.record_key == story))
                    and self.correction_shown(number, c)), default=None)

    def removed_headlines(self, number: int, story: str) -> Mapping[str, str] | None:
        """The headlines a story deleted from issue `number`, or moved out of it, had there."""
        return next((c.removed for c in self.content.corrections.get(number, ())
                     if c.record_key == story and c.removed), None)

    def correction_shown(self, number: int, correction: Any) -> bool:
        """Whether a correction is one of this language's: a story's, where the story appears in it."""
        if correction.record_kind != "story":
            return True
        story = self.content.stories.get(correction.record_key)
        if story is not None and story.data["issue"] == number:
            return self.available(story)
        removed = self.removed_headlines(number, correction.record_key)
        if removed:  # deleted or moved out: the languages it had a headline in then
            return self.lang in pages_in(tuple(lang for lang in self.settings.languages if lang in removed),
                                         self.settings)
        return story is None or self.available(story)

    def correction_context(self, number: int, correction: Any) -> dict[str, Any]:
        """A correction as readers see it: when, what (issue or story headline, fields), why."""
        what, what_lang, anchor = None, self.lang, None
        story = self.content.stories.get(correction.record_key) if correction.record_kind == "story" else None
        if story is not None and story.data["issue"] == number:
            text, what_lang = self.text(story)
            what, anchor = text.get("headline"), f"story-{correction.record_key}"
        elif correction.record_kind == "story":  # deleted or moved out since: its headline as readers saw it
            removed = self.removed_headlines(number, correction.record_key) or {}
            what_lang = next((lang for lang in (self.lang, *self.settings.languages) if lang in removed), self.lang)
            what = removed.get(what_lang)
            if what is None and story is not None:
                text, what_lang = self.text(story)
                what = text.get("headline")
        fields = []
        for name in correction.changed_fields:  # "en.headline" → ("headline", "en")
            lang, _, field_name = name.rpartition(".") if name.split(".")[0] in self.settings.languages \
                else ("", "", name)
            # The language's name in the page's language, for screen readers: they spell out the "[ENG]" mark.
            fields.append({"field": field_name, "lang": lang,
                           "language_name": Locale.parse(lang).get_display_name(self.lang) if lang else ""})
        # The reason is typed once, in one language, and shown on every language's page: marked where foreign,
        # as is a headline that falls back to another language's (a story with no headline in this one).
        reason_lang = correction.reason_lang or self.settings.languages[0]
        return {"when": format_datetime(correction.changed_at, self.lang, self.settings.timezone),
                "iso": html_datetime(correction.changed_at, self.settings.zone),
                "what": what, "anchor": anchor,
                "what_lang": what_lang if what_lang != self.lang else None, "what_dir": text_direction(what_lang),
                "fields": fields, "reason": correction.reason,
                "reason_lang": reason_lang if reason_lang != self.lang else None,
                "reason_dir": text_direction(reason_lang)}

    def issue_jsonld(self, number: int, text: Mapping[str, Any], sections: list[dict[str, Any]],
                     published: str | None, modified: str | None) -> dict[str, Any]:
        url = self.settings.base_url + urls.issue(self.lang, number)
        zone = self.settings.zone
        local = lambda moment: html_datetime(dt.datetime.fromisoformat(moment), zone)  # noqa: E731
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
                    story["keywords"] = self.tag_names(item["data"]["tags"])
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
        # "--": no slug has two hyphens in a row, so no story's `story-{slug}` (nor a former slug's) can be
        # another story's source link id, as `story-x-source-1` was both story x's first source and a story's.
        anchor = f"story-{story.key}--source"
        md = MarkdownRenderer(resolve=self.resolve, citation_href=SourceAnchors(anchor)
                              if story.data.get("sources") else None)
        prefix = f"cite-{story.key}"
        terms = [{"slug": slug, "headword": self.headword_label(slug), "href": self.resolve("entry", slug)}
                 for slug in self.derived.mentions.get(story.key, ()) if not self.unwritten(slug)]
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
        # What it depends on of the glossary: the forms that can match in the story's text (a token of them),
        # not the matcher, which changes with every label.
        self.derived.term_forms.get(f"{text_lang}/{story.key}")
        matcher = unnoted(self.derived.matchers).get(text_lang)
        if matcher is None:
            return rendered
        suppressed = set(story.data.get("suppress_terms") or [])

        def href_for(slug: str) -> str | None:
            return None if slug in suppressed else self.resolve("entry", slug)

        linked: list[Markup] = []
        done: set[str] = set()
        for html in rendered:
            fragment, terms = linked_first_mentions(str(html), matcher, href_for, skip=done)
            linked.append(Markup(fragment))
            done |= terms
        return linked

    # -- glossary ------------------------------------------------------------------

    def editions(self) -> PageSpec:
        """Every issue this build shows, newest first (drafts only in a preview, marked)."""
        editions = []
        for number in self.issues:
            issue = self.content.issues[number]
            text, text_lang = self.text(issue)
            editions.append({"number": number, "title": self.marked(text.get("title"), text_lang),
                             "stories": sum(1 for s in self.content.stories_of(number) if self.available(s)),
                             "href": self.href(urls.issue(self.lang, number)), "line": self.issue_line(number),
                             "draft": self.unpublished(issue)})
        return self.spec(urls.editions(self.lang), "editions.html", {"editions": editions}, urls.editions)

    def archive_stories(self) -> list[Record]:
        """Every visible story, newest issue first (computed once per planner).

        Which stories, in which order, depends on each story's facts (`Derived.story_facts`: issue,
        section, position, tags, languages), not its text. The records come back plain: the lists
        made from them read only those facts, and a page that shows a story's text reads the story
        itself (see story_links).
        """
        return self.kept("archive", lambda: [untracked(story) for story in archive.archive_stories(
            self.content, self.issues) if self.available(story)], _as_facts)

    def shown_facts(self) -> dict[str, tuple[Any, ...]]:
        """The facts (`Derived.story_facts`) of the stories this language's archive shows, by key: what
        lists its tag and year pages without sorting the archive."""
        shown = set(self.issues)
        return {key: facts for key, facts in self.derived.story_facts.items() if self.shows(facts, self.lang, shown)}

    def shows(self, facts: tuple[Any, ...], lang: str, issues: Container[int]) -> bool:
        """Whether `lang` shows a story with these facts: its issue is among `issues` shown there, and the
        story has a page there (see `languages_of`)."""
        return facts[0] in issues and lang in pages_in(facts[4], self.settings)

    def tag_slugs(self) -> list[str]:
        """The tags of the shown stories (see `shown_facts`)."""
        return sorted({archive.tag_slug(tag) for _, _, _, tags, _ in self.shown_facts().values() for tag in tags})

    def tag_name(self, slug: str, written: str) -> tuple[str, str]:
        """A tag's name on this language's pages and the language it is in: the site file's name in this
        language, else in the first other language that has one, else the tag as the stories write it."""
        shown = archive.shown_tag_name(self.derived.tag_names.get(slug) or {}, self.lang, self.settings.languages)
        return (written, self.lang) if shown is None else shown

    def tag_names(self, tags: Iterable[str]) -> list[str]:
        """A story's tags (as written) by their names on this language's pages (see `tag_name`), each once."""
        return list(dict.fromkeys(self.tag_name(archive.tag_slug(tag), tag)[0] for tag in tags))

    def listed_tag_names(self, stories: Iterable[Record]) -> list[str]:
        """The tags `stories` carry by their names on this language's pages, each once, in the order of the
        archive's list of tags (see `tags_by_name`): an issue's, whatever the order of its stories."""
        return list(dict.fromkeys(self.tag_name(slug, written)[0]
                                  for slug, written in self.tags_by_name(archive.tags(stories))))

    def tag_label(self, slug: str, written: str) -> str | Markup:
        """A tag's name for a link or heading, marked (`lang`) when it is another language's."""
        name, lang = self.tag_name(slug, written)
        return name if lang == self.lang else Markup('<span lang="{}">{}</span>').format(lang, name)

    def tags_by_name(self, tags: dict[str, str]) -> list[tuple[str, str]]:
        """`tags` ({slug: the tag as written}) in the order of their names in this language's dictionary."""
        return sorted(tags.items(), key=lambda item: (sort_key(self.tag_name(*item)[0], self.lang), item[0]))

    def tagged(self, slug: str) -> list[Record]:
        """The visible stories tagged `slug` (see `stories_among`): a story tagged otherwise, or another issue
        published, leaves them be."""
        return self.stories_among(f"tagged{SEP}{slug}", lambda: self.derived.tagged.get(slug, ()))

    def tag_listings(self) -> dict[str, archive.TagListing]:
        """What each tag's page lists (see `archive.tag_listings`), by slug: what the search index says of the
        pages. One pass over the shown stories' facts (see `shown_facts`) in archive order, where each tag's
        `tagged` stories went over its own (a millisecond a tag at scale 1.0); computed once per planner."""

        def compute() -> dict[str, archive.TagListing]:
            sections = self.section_places()
            shown = sorted(self.shown_facts().items(), key=lambda item: _archive_place(*item, sections))
            return archive.tag_listings((facts[0], facts[3]) for _, facts in shown)

        return self.kept("tag_listings", compute)

    def section_places(self) -> dict[str, int]:
        """{section slug: its place in the site's order}: what orders the archive's lists (see `_archive_place`)."""
        return {slug: index for index, slug in enumerate(self.content.vocabulary("sections"))}

    def stories_among(self, name: str, keys: Callable[[], Iterable[str]]) -> list[Record]:
        """The visible stories among `keys()` (a story list the build derives, such as a tag's), in archive
        order, as plain records (see `archive_stories`); computed once per planner. They depend on that
        list and on those stories' facts and issues alone."""

        def compute() -> list[Record]:
            # From the stories' facts alone (issue, section, position, languages), in archive order (see
            # issues.archive.in_archive_order), and only then their records.
            facts, issues, lang, settings = self.derived.story_facts, self.issues, self.lang, self.settings
            sections = self.section_places()
            shown = []
            for key in keys():
                found = facts[key]
                if found[0] in issues and lang in pages_in(found[4], settings):
                    shown.append(_archive_place(key, found, sections))
            shown.sort()
            stories = unnoted(self.content.stories)
            return [untracked(stories[key]) for *_, key in shown]

        return self.kept(name, compute)

    def story_links(self, stories: list[Record]) -> list[dict[str, Any]]:
        """Archive rows grouped by month: headline linking into its issue, the issue line, the section."""
        sections = self.names("sections")
        months = []
        for month, items in archive.by_month(stories, self.content, self.settings.zone):
            rows = [self.kept(f"row{SEP}archive{SEP}{listed.key}",
                              partial(self._archive_row, listed.key, sections)) for listed in items]
            months.append({"name": format_month(month, self.lang), "id": f"month-{month:%Y-%m}", "stories": rows})
        return months

    def _archive_row(self, key: str, sections: Mapping[str, str]) -> dict[str, Any]:
        """A story's row in the archive's lists (one per planner, see `kept`): the same in each list
        that shows it. `sections` are this language's section names, which the page reads itself."""
        story = self.content.stories[key]  # the row shows the story's headline: a read of it
        number, section = self.derived.story_facts[key][:2]
        text, text_lang = self.text(story)
        href, line, draft = self.kept(f"row{SEP}issue{SEP}{number}", partial(self._issue_row, number))
        return {"headline": self.marked(text.get("headline"), text_lang), "text_lang": text_lang,
                "href": f"{href}#story-{key}", "issue_line": line, "section": sections.get(section),
                "section_href": self.href(urls.section(self.lang, section)), "draft": draft}

    def _issue_row(self, number: int) -> tuple[str, str, str | None]:
        """What the archive's rows of one issue share: its page's address, its line, and what it is if it is
        not out yet (see `unpublished`)."""
        return (self.href(urls.issue(self.lang, number)), self.issue_line(number),
                self.unpublished(self.content.issues[number]))

    def unpublished(self, issue: Record) -> str | None:
        """What a preview says an issue not out yet is: "scheduled" (its time is set and to come) or "draft";
        None for one that is out."""
        if is_public(issue, self.now):
            return None
        return "scheduled" if issue.data["status"] == "scheduled" else "draft"

    def showing(self, keys: Iterable[str]) -> list[str]:
        """The languages that show any of the stories `keys`: those a list of them has a page in (under
        "omit", a year, section year or tag of untranslated stories alone has none in the other language).
        Asked story by story: a page depends on those stories' facts and issues, not the whole archive."""
        keys = list(keys)
        return [lang for lang in self.settings.languages
                if any(self.shows(self.derived.story_facts[key], lang, self.shown_in[lang]) for key in keys)]

    def year_stories(self, year: int) -> list[Record]:
        """The visible stories of the issues that came out in `year` (see `stories_among`)."""
        return self.stories_among(f"year{SEP}{year}", lambda: self.derived.years.get(year, ()))

    def year_list(self) -> list[int]:
        """The years with a shown story in this language, newest first (see `shown_facts`)."""
        shown = self.shown_facts()
        return sorted((year for year, keys in self.derived.years.items() if any(key in shown for key in keys)),
                      reverse=True)

    def archive(self) -> PageSpec:
        """The latest year's stories by month, with links to every year's page and to every section's
        and tag's own listing.

        Older stories are listed on their year's page: a ten-year archive on one page was a megabyte,
        and every edited headline made it again."""
        stories = self.archive_stories()
        years = {year: self.year_stories(year) for year in self.year_list()}
        context = {"months": self.story_links(years[max(years)]) if years else [],
                   "years": [{"year": year, "count": format_count(len(items), self.lang),
                              "href": self.href(urls.archive_year(self.lang, year))}
                             for year, items in years.items()],
                   "sections": [{"name": name, "href": self.href(urls.section(self.lang, slug))}
                                for slug, name in self.names("sections").items()],
                   "tags": [{"name": self.tag_label(slug, written), "href": self.href(urls.tag(self.lang, slug))}
                            for slug, written in self.tags_by_name(archive.tags(stories))]}
        return self.spec(urls.archive(self.lang), "archive.html", context, urls.archive)

    def archive_year(self, year: int) -> PageSpec:
        context = {"months": self.story_links(self.year_stories(year)), "heading": str(year), "kind": "year"}
        return self.spec(urls.archive_year(self.lang, year), "archive_list.html", context,
                         lambda lang: urls.archive_year(lang, year),
                         languages=self.showing(self.derived.years.get(year, ())))

    def section_stories(self, slug: str, year: int) -> list[Record]:
        """The visible stories filed under section `slug` of the issues that came out in `year` (see
        `stories_among`): a story of another section or year leaves them be."""
        return self.stories_among(f"section{SEP}{slug}{SEP}{year}",
                                  lambda: self.derived.section_years.get(f"{slug}/{year}", ()))

    def section_years(self) -> list[tuple[str, int]]:
        """(section, year) of each section's page per year: those with a shown story (see `shown_facts`)."""
        shown = self.shown_facts()
        found = []
        for key, keys in self.derived.section_years.items():
            if any(story in shown for story in keys):
                slug, _, year = key.rpartition("/")
                found.append((slug, int(year)))
        return found

    def archive_section(self, slug: str) -> PageSpec:
        """A section's latest year of stories by month, with a link to its page for each year: at ten
        years a section's one page listed a thousand stories, made again for any edited headline."""
        years = {year: stories for year in self.year_list() if (stories := self.section_stories(slug, year))}
        context = {"months": self.story_links(next(iter(years.values()))) if years else [],
                   "years": [{"year": year, "count": format_count(len(stories), self.lang),
                              "href": self.href(urls.section_year(self.lang, slug, year))}
                             for year, stories in years.items()],
                   "heading": self.names("sections")[slug], "kind": "section"}
        return self.spec(urls.section(self.lang, slug), "archive_list.html", context,
                         lambda lang: urls.section(lang, slug))

    def archive_section_year(self, slug: str, year: int) -> PageSpec:
        name = self.names("sections")[slug]
        context = {"months": self.story_links(self.section_stories(slug, year)), "heading": name, "year": year,
                   "kind": "section", "parent": {"name": name, "href": self.href(urls.section(self.lang, slug))}}
        return self.spec(urls.section_year(self.lang, slug, year), "archive_list.html", context,
                         lambda lang: urls.section_year(lang, slug, year),
                         languages=self.showing(self.derived.section_years.get(f"{slug}/{year}", ())))

    def archive_tag(self, slug: str) -> PageSpec:
        stories = self.tagged(slug)
        written = archive.tags(stories)[slug]
        context = {"months": self.story_links(stories), "heading": self.tag_name(slug, written)[0],
                   "heading_label": self.tag_label(slug, written), "kind": "tag"}
        return self.spec(urls.tag(self.lang, slug), "archive_list.html", context, lambda lang: urls.tag(lang, slug),
                         languages=self.showing(self.derived.tagged.get(slug, ())))


def _old_source_ids(stories: list[Record]) -> dict[str, dict[int, list[str]]]:
    """{story slug: {n: the ids its n-th source link had before it was `story-SLUG--source-N`}}: the
    `story-SLUG-source-N` of its slug and of each former one, which emails sent then link to. The issue page
    keeps each as an empty anchor at the link, but one that is another id of the page: a story's
    `story-SLUG` (a story slugged `x-source-1`) or its former slug's. (Two old ids are never the same, nor
    is one a new id: a slug has no "--".)"""
    taken = {f"story-{slug}" for story in stories for slug in (story.key, *(story.data.get("formerly") or ()))}
    found: dict[str, dict[int, list[str]]] = {}
    for story in stories:
        for n in range(1, len(story.data.get("sources") or ()) + 1):
            ids = [f"story-{slug}-source-{n}" for slug in (story.key, *(story.data.get("formerly") or ()))]
            ids = [old for old in ids if old not in taken]
            if ids:
                found.setdefault(story.key, {})[n] = ids
    return found
