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

The templates' context and the two parts are made in `email_context`, the
message and its headers in `email_headers`, the images shown as links in
`email_images`.
"""

from __future__ import annotations

import datetime as dt
import email.policy
from collections.abc import Mapping
from dataclasses import dataclass, replace
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any

from issues.visibility import publication_time
from newsroom.build.derived import Derived
from newsroom.build.model import Content
from newsroom.build.pages import Planner
from newsroom.diagnostics import ContentError, Diagnostic
from newsroom.render.email_context import email_context, render_parts
from newsroom.render.email_headers import Recipient, build_message, message_id, unsubscribe_url
from newsroom.render.feeds import published_issues
from newsroom.render.folder import template_folder
from newsroom.render.html import TemplateFailure
from newsroom.settings import Settings

#: Gmail clips a message whose HTML part is larger than this as sent: encoded for transfer (quoted-printable here:
#: each `=` and each byte of an accented letter take three bytes, and each line of 76 three more), not as the
#: decoded HTML, which for the sample's Hungarian issue is 15 % smaller (a third, in a text dense in accents).
GMAIL_CLIP_BYTES = 102 * 1024
#: Stands for the subscriber's token in a prepared email; replaced per copy.
PLACEHOLDER = b"SUBSCRIBER-TOKEN"


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
