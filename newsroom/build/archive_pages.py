"""The archive of a language: its latest year's stories, each year's, section's, section year's and
tag's list, and what those lists share: which stories a language shows, in archive order, and the tags' names.

A mixin of `newsroom.build.pages.Planner`: the methods use its helpers (text, spec, href, kept…), and the
issue pages' issue line (see issue_pages.py).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Mapping
from functools import partial
from typing import Any

from markupsafe import Markup

from glossary.collation import sort_key
from issues import archive
from issues.dates import format_month
from newsroom.build import urls
from newsroom.build.derived import pages_in
from newsroom.build.model import Record
from newsroom.build.page_specs import PageSpec
from newsroom.build.tracking import EXISTS, SEP, unnoted, untracked
from newsroom.i18n import format_count

_STORIES = f"content.stories{SEP}"


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


class ArchivePages:
    """The archive's pages and the story lists they share (mixed into Planner)."""

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
