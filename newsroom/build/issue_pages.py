"""The weekly-issue pages of a language: each issue with its stories and corrections, and the editions list.

A mixin of `newsroom.build.pages.Planner`: the methods use its helpers (text, spec, href, kept…), and the
archive's tag names (see archive_pages.py).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from babel import Locale
from markupsafe import Markup

from glossary.jsonld import script_json
from glossary.linking import linked_first_mentions
from issues.dates import format_datetime, format_week, html_datetime, issue_line
from issues.jsonld import issue_jsonld
from issues.visibility import is_public
from newsroom.build import urls
from newsroom.build.derived import pages_in
from newsroom.build.descriptions import shortened
from newsroom.build.model import Record
from newsroom.build.page_specs import PageSpec
from newsroom.build.tracking import unnoted
from newsroom.i18n import text_direction
from newsroom.render.markdown import DeferredHtml, MarkdownRenderer, SourceAnchors, plain_text


class IssuePages:
    """Issue and editions pages (mixed into Planner)."""

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

    def last_corrected(self, number: int) -> dt.datetime | None:
        """When issue `number` was last corrected, as this language shows it."""
        return max((c.changed_at for c in self.content.corrections.get(number, ()) if self.correction_shown(number, c)),
                   default=None)

    def story_corrected(self, story: Record) -> dt.datetime | None:
        """When `story` was last corrected in its issue, as this language shows it (where the story appears, see
        correction_shown): read as its own value (`Derived.story_corrected`), not from every correction of its issue."""
        return self.derived.story_corrected.get(story.key) if self.available(story) else None

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

    def unpublished(self, issue: Record) -> str | None:
        """What a preview says an issue not out yet is: "scheduled" (its time is set and to come) or "draft";
        None for one that is out."""
        if is_public(issue, self.now):
            return None
        return "scheduled" if issue.data["status"] == "scheduled" else "draft"


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
