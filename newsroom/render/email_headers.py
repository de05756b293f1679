"""An issue's email as a message: its Message-ID, its unsubscribe link and its headers (see
newsroom/render/email.py)."""

from __future__ import annotations

import email.policy
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import parseaddr
from typing import Any

from newsroom.settings import Settings


@dataclass(frozen=True)
class Recipient:
    """Whom one sent copy is for: the address and its unsubscribe token."""

    address: str
    token: str


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
