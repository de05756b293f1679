"""Email-ready issues: an HTML part for mail clients, a plain-text part for reading, an `.eml`.

One context feeds the paired templates `templates/email/issue.html` and
`issue.txt`. The HTML is a table layout, fluid up to 600 px, whose CSS is
inlined by css-inline (only the dark-mode `@media` rule stays in a `<style>`,
as an enhancement: the look never depends on it). Content images are shown as
their alt text, linked to the image, because their width and height are not
known and mail clients need both. Nothing reads the clock: the archived `.eml`'s
Date header is the issue's publication time (a sent copy's is the time it is sent),
and the Message-ID is derived from the issue, the language and (when sending)
the subscriber's token, so a rebuild writes the same bytes and a resend is
recognisable as the same message.
"""

from __future__ import annotations

import datetime as dt
import email.policy
import hashlib
import html as html_lib
import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, replace
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, parseaddr
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import css_inline

from issues.visibility import publication_time
from newsroom.build import urls
from newsroom.build.derived import Derived
from newsroom.build.model import Content
from newsroom.build.pages import Planner
from newsroom.diagnostics import ContentError, Diagnostic
from newsroom.i18n import format_message, text_direction, translations
from newsroom.render.feeds import FEED_TAGS, absolute_html, published_issues
from newsroom.render.folder import TEMPLATES, template_folder
from newsroom.render.html import TemplateFailure, environment, template_errors
from newsroom.render.markdown import TextMarks, plain_text, reading_text
from newsroom.render.markdown.plaintext import closes_a_word
from newsroom.settings import Settings

#: Gmail clips a message whose HTML part is larger than this as sent: encoded for transfer (quoted-printable here:
#: each `=` and each byte of an accented letter take three bytes, and each line of 76 three more), not as the
#: decoded HTML, which for the sample's Hungarian issue is 15 % smaller (a third, in a text dense in accents).
GMAIL_CLIP_BYTES = 102 * 1024
#: Tags kept in story text inside an email: as in feeds, minus images (their size is unknown).
EMAIL_TAGS = FEED_TAGS - {"img"}
WRAP = 72
#: Hidden after the preheader: inboxes show the first 100–200 characters of a message under its Subject, and a
#: short preheader would be followed there by "View in browser" and the masthead. Invisible characters that no
#: client collapses (a combining grapheme joiner, a zero-width non-joiner, a no-break space) fill the rest.
PREHEADER_FILLER = "\u034f\u200c\u00a0" * 60
#: The templates of an issue's email: its HTML part and its plain-text part.
EMAIL_TEMPLATES = ("email/issue.html", "email/issue.txt")
#: Stands for the subscriber's token in a prepared email; replaced per copy.
PLACEHOLDER = b"SUBSCRIBER-TOKEN"
INLINER = css_inline.CSSInliner(keep_at_rules=True, load_remote_stylesheets=False)


@dataclass(frozen=True)
class Recipient:
    """Whom one sent copy is for: the address and its unsubscribe token."""

    address: str
    token: str


@dataclass(frozen=True)
class IssueEmail:
    """The three artifacts of one issue in one language."""

    number: int
    lang: str
    subject: str
    message_id: str
    html: bytes
    text: bytes
    eml: bytes

    def files(self) -> list[tuple[str, bytes]]:
        """(path, bytes) of the three files, e.g. `hu/issue-13.eml`, as `email` and `build` write them."""
        stem = f"{self.lang}/issue-{self.number}"
        return [(f"{stem}.html", self.html), (f"{stem}.txt", self.text), (f"{stem}.eml", self.eml)]


def check_email(content: Content, settings: Settings, number: int, lang: str, draft: bool) -> None:
    """Refuse an issue that is missing, unpublished (unless `draft`) or untranslated."""
    place = f"issue:{number}"
    issue = content.issues.get(number)
    if issue is None:
        raise ContentError([Diagnostic(place, None, "number", "no such issue")])
    problems = []
    if issue.data["status"] != "published" and not draft:
        problems.append(Diagnostic(place, None, "status", f"the issue is {issue.data['status']}, not published; "
                                   "emails are only made of published issues (use --draft for a preview)"))
    if lang not in settings.languages:
        problems.append(Diagnostic(place, None, "lang", f"unknown language {lang!r}"))
    if not issue.has(lang) or not issue.text(lang).get("title"):
        problems.append(Diagnostic(place, None, lang, "missing translation: the issue has no title in this language"))
    for story in content.stories_of(number):
        if not story.has(lang) or not story.text(lang).get("headline"):
            problems.append(Diagnostic(f"story:{story.key}", None, lang,
                                       "missing translation: an email is never sent half translated"))
    if problems:
        raise ContentError(problems)


def message_id(settings: Settings, number: int, lang: str, recipient: Recipient | None,
               preview_of: bytes | None = None) -> str:
    """The issue's Message-ID in `lang` (a subscriber's own with `recipient`). A preview of an issue not yet
    published (`preview_of`: its parts) has one of its own, made from what it shows: a receiving system
    that has seen a Message-ID drops a later message carrying it as a duplicate, which the real issue
    would be if a preview had been mailed first."""
    domain = settings.list_id.split("<")[-1].strip(">") or "localhost"
    personal = f".{recipient.token[:16]}" if recipient else ""
    preview = f".preview-{hashlib.sha256(preview_of).hexdigest()[:16]}" if preview_of is not None else ""
    return f"<issue-{number}.{lang}{personal}{preview}@{domain}>"


def unsubscribe_url(settings: Settings, recipient: Recipient | None) -> str:
    return f"{settings.unsubscribe_endpoint}?t={recipient.token}" if recipient else settings.unsubscribe_endpoint


#: A start or end tag of a link or an image in the Markdown renderer's (nh3's) output, whose serialiser always
#: double-quotes attribute values and escapes `"` inside them: a start tag is exactly `<tag` + ` name="value"`*.
_LINK_OR_IMAGE = re.compile(r'<(/?)(a|img)((?:\s+[a-z-]+="[^"]*")*)\s*/?>')
_ATTRIBUTE = re.compile(r'([a-z-]+)="([^"]*)"')
_EMPTY_LINK = re.compile(r'<a(?:\s+[a-z-]+="[^"]*")*>[\s\x00]*</a>')
_EMPTY_PARAGRAPH = re.compile(r"<p>\s*</p>\n?")
#: What a decorative image leaves for a moment (the sanitised HTML holds no NUL), and its spaces before.
_DECORATION = "\x00"
_GAP = " \t\n"


def images_as_links(html: str) -> str:
    """`html` with each image given as its alt text, linked to the image unless it stands in a link already.
    An email shows no image (its size is not known, and mail clients need it): dropped, it left an empty
    link, or a gap in a sentence. An image without alt text is decoration, and goes."""
    depth = 0  # of links open around the tag at hand

    def replace(match: re.Match[str]) -> str:
        nonlocal depth
        closing, tag, attributes = match.groups()
        if tag == "a":
            depth = max(depth - 1, 0) if closing else depth + 1
            return match.group(0)
        found = dict(_ATTRIBUTE.findall(attributes))
        alt = html_lib.escape(html_lib.unescape(found.get("alt", "")), quote=False)
        if not alt:
            return _DECORATION
        if depth > 0 or "src" not in found:
            return alt
        return f'<a href="{html_lib.escape(html_lib.unescape(found["src"]))}">{alt}</a>'

    if "<img" not in html:
        return html
    # A paragraph or a link that held only decoration is left empty: it goes too (an empty paragraph is a gap,
    # an empty link nothing to see or click).
    # Decoration in a sentence leaves no space before the punctuation after it ("Two ![](x.png).").
    # A link left empty is decoration as a whole.
    html = _EMPTY_LINK.sub(_DECORATION, _LINK_OR_IMAGE.sub(replace, html))
    return _EMPTY_PARAGRAPH.sub("", _gaps_closed(html))


def _gaps_closed(html: str) -> str:
    """`html` with each dropped decorative image taken out with the spaces before it (back to the last one
    taken out), unless punctuation that closes (`.`, `,`, `)`) or a space follows it, which is then kept alone.
    The spaces are walked back from each image, not searched for from every space of the text (a pattern
    doing that took 6 s for a paragraph of 40 KB of spaces)."""
    pieces: list[str] = []
    position = 0
    while (image := html.find(_DECORATION, position)) >= 0:
        start = image
        while start > position and html[start - 1] in _GAP:
            start -= 1
        following = html[image + 1:image + 2]
        kept = following if closes_a_word(following) or following.isspace() else html[start:image] + following
        pieces += [html[position:start], kept]
        position = image + 1 + len(following)
    pieces.append(html[position:])
    return "".join(pieces)


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


def _one_line(value: Any) -> str:
    """Header text from content: every run of whitespace (line breaks included) becomes one space.

    A title may hold a line break; in a header it would be refused by the email
    package (a crash) or, with a laxer library, start a forged header.
    """
    return " ".join(str(value).split())


#: The characters RFC 5322 calls specials: outside quotes a phrase (List-Id's) may not hold them.
_SPECIALS = re.compile(r'[()<>\[\]:;@\\,."]')


def _phrase(name: str) -> str:
    """`name` as the phrase of a header (RFC 5322): as it is when it can be, in quotes when it holds a
    special (a comma, quotes, angle brackets); a name that also holds non-ASCII letters, which are encoded
    word by word (RFC 2047) and may not stand in quotes, keeps its words without the specials."""
    if not _SPECIALS.search(name):
        return name
    if name.isascii():
        return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return " ".join(_SPECIALS.sub(" ", name).split())


def _sender(email_from: str, site_name: str) -> Address:
    """The From of an email: `email_from` as written when it names the sender, else its address under the
    site's name in the email's language (an English reader is not written to by "Az MI-korszak hírei")."""
    name, address = parseaddr(email_from)
    user, _, domain = address.rpartition("@")
    return Address(display_name=name or site_name, username=user, domain=domain)


def build_message(settings: Settings, context: Mapping[str, Any], html: bytes, text: bytes, *,
                  date: str, message_id: str, recipient: Recipient | None) -> EmailMessage:
    """multipart/alternative with list headers (RFC 2369, RFC 8058); non-ASCII headers are RFC 2047 encoded."""
    message = EmailMessage(policy=email.policy.SMTP)
    message["Subject"] = _one_line(context["subject"])
    message["From"] = _sender(settings.email_from, _one_line(context["site"].get("name")))
    message["Reply-To"] = settings.email_reply_to
    if recipient:
        message["To"] = recipient.address
    message["Date"] = date
    message["Message-ID"] = message_id
    message["List-Id"] = f"{_phrase(_one_line(context['site'].get('name')))} <{settings.list_id}>"
    message["List-Unsubscribe"] = (f"<{context['unsubscribe_url']}>, "
                                   f"<mailto:{settings.unsubscribe_mailto}?subject=unsubscribe>")
    message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    # Exchange and Outlook answer a list's mail with out-of-office notes unless told not to (others heed the
    # List-Id, RFC 3834): sent to hundreds, each issue would fill the reply address with them.
    message["X-Auto-Response-Suppress"] = "OOF, AutoReply"
    message.set_content(text.decode("utf-8"), subtype="plain", charset="utf-8", cte="quoted-printable")
    message.add_alternative(html.decode("utf-8"), subtype="html", charset="utf-8", cte="quoted-printable")
    message["Content-Language"] = context["lang"]  # after the parts: set_content clears Content-* headers
    # A boundary from the content instead of a random one: the same issue gives the same bytes.
    message.set_boundary("=_" + hashlib.sha256(html + text + message_id.encode()).hexdigest()[:40])
    return message


@dataclass(frozen=True)
class PreparedEmail:
    """An issue's email in one language, rendered once; personalised copies differ only in the token."""

    number: int
    lang: str
    context: Mapping[str, Any]
    html: bytes
    text: bytes
    date: str
    preview: bool = False  # of an issue not published yet

    @property
    def subject(self) -> str:
        return str(self.context["subject"])

    def message(self, settings: Settings, recipient: Recipient | None = None, sent: dt.datetime | None = None
                ) -> tuple[str, EmailMessage]:
        """The Message-ID and the message itself, for `recipient` or (None) for the archive. Its Date is the
        time it is `sent`, as RFC 5322 has it (a subscriber mailed weeks after the issue went out, or a rerun,
        gets a message of that day, which mail filters and inboxes sort as such); the archive's is the
        issue's publication time."""
        html, text, context = self.html, self.text, dict(self.context)
        if recipient is not None:
            token = recipient.token.encode("ascii")
            html, text = html.replace(PLACEHOLDER, token), text.replace(PLACEHOLDER, token)
            context["unsubscribe_url"] = unsubscribe_url(settings, recipient)
        mid = message_id(settings, self.number, self.lang, recipient, html + text if self.preview else None)
        date = format_datetime(sent.astimezone(dt.timezone.utc)) if sent is not None else self.date
        return mid, build_message(settings, context, html, text, date=date, message_id=mid, recipient=recipient)


def prepare_email(content: Content, derived: Derived, settings: Settings, lang: str, number: int, *,
                  draft: bool = False, personal: bool = False) -> PreparedEmail:
    """Render issue `number` in `lang` once; `personal` leaves a token placeholder in the unsubscribe link."""
    check_email(content, settings, number, lang, draft)
    planner = Planner(content, derived, settings, lang)
    placeholder = Recipient("", PLACEHOLDER.decode("ascii")) if personal else None
    context = email_context(planner, number, placeholder)
    html, text = render_parts(context, template_folder(settings.templates))
    date = format_datetime(publication_time(content.issues[number], settings.zone))
    prepared = PreparedEmail(number, lang, context, html, text, date,
                             content.issues[number].data["status"] != "published")
    # Measured on a message as it goes out: a subscriber's copy (whose token is longer than the placeholder)
    # or the archive's.
    sample = None
    if personal:  # (only `send` asks for it: a build loads none of the mail code)
        from newsroom.mail.tokens import TOKEN_LENGTH
        sample = Recipient("reader@example.invalid", "0" * TOKEN_LENGTH)
    sent = sent_html_bytes(prepared.message(settings, sample)[1])
    if sent > GMAIL_CLIP_BYTES:
        raise ContentError([Diagnostic(f"issue:{number}", None, lang, (
            f"the email's HTML is {sent / 1024:.1f} KB as sent (quoted-printable encoded; {len(html) / 1024:.1f} KB "
            f"decoded), and Gmail clips a message whose HTML is over {GMAIL_CLIP_BYTES // 1024} KB: shorten the "
            "lead, the editor's note or the stories' summaries"))])
    return prepared


def sent_html_bytes(message: EmailMessage) -> int:
    """The size of `message`'s HTML part as it is sent: its body encoded for transfer, lines ending in CRLF."""
    part = next(part for part in message.walk() if part.get_content_type() == "text/html")
    return len(part.as_bytes(policy=email.policy.SMTP).split(b"\r\n\r\n", 1)[1])


def render_email(content: Content, derived: Derived, settings: Settings, lang: str, number: int, *,
                 draft: bool = False) -> IssueEmail:
    """The HTML, text and `.eml` of issue `number` in `lang` as archived (no subscriber's token)."""
    prepared = prepare_email(content, derived, settings, lang, number, draft=draft)
    mid, message = prepared.message(settings)
    return IssueEmail(number, lang, prepared.subject, mid, prepared.html, prepared.text, message.as_bytes())


def latest_email(content: Content, derived: Derived, settings: Settings, lang: str
                 ) -> tuple[list[tuple[str, bytes]], list[Diagnostic]]:
    """The latest published issue's email files for `build`, and warnings: none when that issue is not
    translated (`check` reports that), a warning when the email cannot be made as it is (too long)."""
    published = published_issues(derived)
    if not published:
        return [], []
    try:
        check_email(content, settings, published[0], lang, False)
    except ContentError:
        return [], []  # `check` reports the missing translation; a half-translated email is never made
    try:
        made = render_email(content, derived, settings, lang, published[0])
    except TemplateFailure:
        raise  # a template of one's own that fails: the build stops naming it, as a page's would
    except ContentError as error:
        return [], [replace(problem, severity="warning", message=f"its email is not made: {problem.message}")
                    for problem in error.diagnostics]
    return made.files(), []
