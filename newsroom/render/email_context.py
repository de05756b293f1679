"""What an issue's email shows: the context of its paired templates, every link absolute and numbered for the
plain-text part, and the two parts rendered (see newsroom/render/email.py)."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import css_inline

from newsroom.build import urls
from newsroom.build.pages import Planner
from newsroom.i18n import format_message, text_direction, translations
from newsroom.render.email_headers import Recipient, _one_line, _sender, unsubscribe_url
from newsroom.render.email_images import images_as_links
from newsroom.render.feeds import FEED_TAGS, absolute_html
from newsroom.render.folder import TEMPLATES
from newsroom.render.html import environment, template_errors
from newsroom.render.markdown import TextMarks, plain_text, reading_text

#: Tags kept in story text inside an email: as in feeds, minus images (their size is unknown).
EMAIL_TAGS = FEED_TAGS - {"img"}
WRAP = 72
#: Hidden after the preheader: inboxes show the first 100–200 characters of a message under its Subject, and a
#: short preheader would be followed there by "View in browser" and the masthead. Invisible characters that no
#: client collapses (a combining grapheme joiner, a zero-width non-joiner, a no-break space) fill the rest.
PREHEADER_FILLER = "\u034f\u200c\u00a0" * 60
#: The templates of an issue's email: its HTML part and its plain-text part.
EMAIL_TEMPLATES = ("email/issue.html", "email/issue.txt")

INLINER = css_inline.CSSInliner(keep_at_rules=True, load_remote_stylesheets=False)


class Links:
    """The numbered links of an email's plain-text part: each absolute URL once, numbered as first read."""

    def __init__(self, page_url: str) -> None:
        self.page_url = page_url
        self.urls: list[str] = []
        self._numbers: dict[str, int] = {}  # each of `urls` with its number: looked up, not searched for

    def ref(self, url: str) -> int:
        """The number of `url` (relative to the email's page, `page_url`), the next one if it is new."""
        url = urljoin(self.page_url, url)
        if url not in self._numbers:
            self.urls.append(url)
            self._numbers[url] = len(self.urls)
        return self._numbers[url]

    def mark(self, href: str) -> str:
        """What the text part reads after a link's text: `[n]`."""
        return f"[{self.ref(href)}]"


def _story(item: Mapping[str, Any], links: Links, marks: TextMarks) -> dict[str, Any]:
    """A story of the issue's context (`Planner.story_context`) as the email shows it. The summary's HTML
    is the one the feeds show, its citations linking the story's sources on the issue's page; in the text
    part a citation `[n]` reads as the number of the n-th source's link."""
    url = f"{links.page_url}#story-{item['slug']}"
    ref = links.ref(url)
    sources = [{"label": s.get("publisher") or s.get("title") or s["url"], "url": s["url"],
                "ref": links.ref(s["url"]), "lang": s.get("lang")} for s in item["data"].get("sources", [])]

    def citation(number: int) -> str | None:
        return f"[{sources[number - 1]['ref']}]" if 0 < number <= len(sources) else None

    summary = item["text"].get("summary") or ""
    return {"headline": item["text"].get("headline"), "url": url, "ref": ref,
            "summary_html": absolute_html(images_as_links(str(item["summary"])), links.page_url, EMAIL_TAGS),
            "summary_text": reading_text(summary, width=WRAP, marks=replace(marks, citation=citation)),
            "sources": sources}


def email_context(planner: Planner, number: int, recipient: Recipient | None = None) -> dict[str, Any]:
    """What both templates show. Every link is absolute and numbered, in reading order, for the plain-text
    part; the links of the lead, the note and the summaries too."""
    settings, lang = planner.settings, planner.lang
    _ = translations(lang).gettext
    issue_context = planner.issue_context(number)
    issue, text = issue_context["issue"], issue_context["text"]
    view_url = settings.base_url + urls.issue(lang, number)
    links = Links(view_url)
    marks = TextMarks(planner.resolve, links.mark)

    def html(markdown: str) -> str:
        return absolute_html(images_as_links(planner.markdown().html(markdown)), view_url, EMAIL_TAGS)

    lead_text = reading_text(text.get("lead") or "", width=WRAP, marks=marks)
    note_text = reading_text(text.get("editor_note") or "", width=WRAP, marks=marks)
    sections = [{"name": section["name"], "stories": [_story(item, links, marks) for item in section["stories"]]}
                for section in issue_context["sections"]]
    site = planner.content.site.get(lang) or {}
    label = format_message(_("Issue %(number)s"), {"number": number})
    subject = f"{label}: {text.get('title')}"
    if _sender(settings.email_from, _one_line(site.get("name"))).display_name != _one_line(site.get("name")):
        subject = f"{site.get('name')} · {subject}"  # the From names someone else: the Subject names the newsletter
    if issue["status"] != "published":
        subject = f"[{_('Scheduled') if issue['status'] == 'scheduled' else _('Draft')}] {subject}"
    return {
        "lang": lang, "dir": text_direction(lang),
        "site": site, "subject": subject, "issue_label": label, "week": issue_context["week"],
        "title": text.get("title"), "lead_html": html(text.get("lead") or ""),
        "lead_text": lead_text, "note_html": html(text.get("editor_note") or ""), "note_text": note_text,
        "preheader": _preheader(text, sections), "preheader_filler": PREHEADER_FILLER, "sections": sections,
        "view_url": view_url, "view_ref": links.ref(view_url),
        "method_url": settings.base_url + urls.page(lang, urls.METHOD),
        "method_ref": links.ref(settings.base_url + urls.page(lang, urls.METHOD)),
        "unsubscribe_url": unsubscribe_url(settings, recipient),
        "unsubscribe_ref": links.ref(unsubscribe_url(settings, recipient)),
        "refs": links.urls, "wrap": lambda value, indent="": textwrap.fill(  # a long word or URL stays whole
            value, WRAP, initial_indent=indent, subsequent_indent=indent, break_long_words=False,
            break_on_hyphens=False),
    }


def _preheader(text: Mapping[str, Any], sections: list[dict[str, Any]]) -> str:
    """The line an inbox shows after the Subject: the lead's start, else the editor's note's, else the headlines.
    Empty, the inbox would show the first words of the message instead ("View in browser")."""
    shown = plain_text(text.get("lead") or text.get("editor_note") or "") or " · ".join(
        " ".join(str(story["headline"]).split()) for section in sections for story in section["stories"])
    return textwrap.shorten(shown, 140, placeholder="…")


def render_parts(context: Mapping[str, Any], templates: Path = TEMPLATES) -> tuple[bytes, bytes]:
    """The HTML part (CSS inlined) and the plain-text part of one email, from the `templates` folder."""
    env = environment(context["lang"], templates)
    with template_errors(env):
        html = INLINER.inline(env.get_template(EMAIL_TEMPLATES[0]).render(**context))
        text = env.get_template(EMAIL_TEMPLATES[1]).render(**context).strip() + "\n"
    return html.encode("utf-8"), text.encode("utf-8")
