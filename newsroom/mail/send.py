"""Sending one issue to a subscriber list over SMTP, once per subscriber, resumable.

The guarantee. For each subscriber the send is recorded in the same database
transaction that is open while the SMTP server takes the message: the `sends`
row is inserted (and, through its unique key on issue + subscriber, claimed)
before the message goes out, and committed the moment the server answers
250. So:

- a crash, kill or SMTP error before the server accepted the message rolls
  the row back, and a rerun sends that message (it was never accepted);
- once the commit is done, no rerun sends that subscriber this issue again;
- two senders running at once cannot both send: the second waits on (or
  fails at) the first one's uncommitted row.

What no client can close is the instant between the server's 250 and our
commit (one local commit long). A crash exactly there means the rerun sends
that one message again; it carries the same Message-ID, which receiving
systems use to discard a duplicate. A failing commit after acceptance is
reported as such, naming the address.
"""

from __future__ import annotations

import datetime as dt
import smtplib
import ssl
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from email.utils import parseaddr
from functools import partial
from urllib.parse import urlsplit

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from tqdm import tqdm

from newsroom.db.session import session_factory, transaction
from newsroom.diagnostics import Diagnostic
from newsroom.mail.models import Send
from newsroom.mail.subscribers import (ListedSubscriber, joined_after_sending, sent_ids, sent_issues,
                                       store_subscribers, unsubscribed_ids)
from newsroom.public_address import AddressUse, public_address_problems, unfit_setting, unreachable_host
from newsroom.render.email import PreparedEmail
from newsroom.render.email_headers import Recipient
from newsroom.settings import DEFAULT_SECRET, Settings

#: SMTP errors that concern one message; the rest of the list can still be sent.
MESSAGE_ERRORS = (smtplib.SMTPRecipientsRefused, smtplib.SMTPDataError, smtplib.SMTPSenderRefused,
                  smtplib.SMTPNotSupportedError)


class SmtpUnavailable(Exception):
    """The SMTP server cannot be reached, refused the session or went away; nothing more is sent."""


#: How the connection is secured: `auto` is TLS from the first byte on port 465, else STARTTLS where the
#: server offers it; `starttls` demands STARTTLS, `tls` TLS from the first byte, `none` never encrypts (a
#: relay on this machine). Certificates are verified against the system's authorities (or the bundle
#: SSL_CERT_FILE names instead) whenever TLS is used.
SECURITY_MODES = ("auto", "starttls", "tls", "none")
#: The port of SMTP submission over TLS from the first byte (RFC 8314).
SMTPS_PORT = 465
#: Where `newsroom send` reads the account's password (never an option: a command line is visible to every
#: user of the machine), and its user when no option gives it.
PASSWORD_ENV = "NEWSROOM_SMTP_PASSWORD"
SMTP_USER_ENV = "NEWSROOM_SMTP_USER"
#: Or the file holding the password, as a secret store hands one over (systemd credentials, container secrets).
PASSWORD_FILE_ENV = "NEWSROOM_SMTP_PASSWORD_FILE"
#: SMTP's answer to a message from a client that has not logged in where the server requires it (RFC 4954).
LOGIN_REQUIRED = 530


@dataclass(frozen=True)
class SmtpServer:
    """Where the messages are submitted, how the connection is secured, and whose account sends them."""

    host: str
    port: int
    security: str = "auto"  # one of SECURITY_MODES
    user: str | None = None
    password: str | None = field(default=None, repr=False)

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


@dataclass
class SendReport:
    """What one run did."""

    sent: int = 0
    already_sent: int = 0
    unsubscribed: int = 0
    other_language: int = 0
    joined_later: int = 0  # first listed after the issue went out (see send_issue's `newcomers`)
    failed: list[str] = field(default_factory=list)  # "address: reason"


class RateLimiter:
    """At most `per_second` messages a second, with an injectable clock for tests."""

    def __init__(self, per_second: float | None, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.interval = 1.0 / per_second if per_second else 0.0
        self.clock, self.sleep, self.next_at = clock, sleep, 0.0

    def wait(self) -> None:
        now = self.clock()
        if now < self.next_at:
            self.sleep(self.next_at - now)
            now = self.next_at
        self.next_at = now + self.interval


def parse_rate(value: str) -> float:
    """"10/s", "10" or "0.5/s" → messages per second."""
    number = value.strip().removesuffix("/s")
    rate = float(number)
    if rate <= 0:
        raise ValueError("the rate must be positive")
    return rate


#: The shortest unsubscribe secret taken for sending: 128 bits as hex digits.
MIN_SECRET_LENGTH = 32


#: What each address setting is for, as a refusal to send from the example one names it.
EXAMPLE_ADDRESSES = {
    "email_from": ("the sender address {address}", "the address the newsletter is sent from, one the SMTP "
                   "server may send as"),
    "email_reply_to": ("the reply address {address}", "the address the editors read replies at"),
    "unsubscribe_mailto": ("the unsubscribe address mailto:{address} (List-Unsubscribe)",
                           "the address where unsubscribe requests are handled"),
}


#: What mail that goes out makes of the base URL, as a refusal of an address no subscriber reaches (this machine,
#: a private network, a name reserved for examples: the preview's default, http://localhost:8000/, among them)
#: or of one that is not HTTPS says it.
SENT_LINKS = AddressUse("every link of the email (the web version, the Method page, each story's page) would lead to",
                        "base_url (or --base-url)", "before sending", audience="subscriber",
                        insecure=("nor is the one-click unsubscribe address made of it (unless unsubscribe_url gives "
                                  "another), and RFC 8058 and the mailbox providers require HTTPS for that one"))


def sending_problems(settings: Settings, given: Collection[str] = ()) -> list[Diagnostic]:
    """What in the settings makes mail unfit to go to subscribers: the unsubscribe secret every copy of the
    engine starts with (anyone could make anyone's unsubscribe link with it) or a short one, a one-click
    unsubscribe address that is not HTTPS (RFC 8058 takes only HTTPS; the big mailbox providers ask bulk
    senders for it), the example addresses and list id the engine ships with, at example.org, where no mail goes
    (RFC 2606), and a base URL (every link of the email) no subscriber reaches or one that is not HTTPS. A sent
    message cannot be taken back. `newsroom email` and `build` make the archive's copies all the same.

    Each is named at its line of newsroom.toml; one an option gave (`given`: `base_url`), as the option."""
    problem = partial(unfit_setting, given=given)
    problems = [*public_address_problems(settings, given, SENT_LINKS, "error"),
                *_unsubscribe_link_problems(settings, problem)]
    for name, (what, wanted) in EXAMPLE_ADDRESSES.items():
        address = getattr(settings, name)
        if address == getattr(Settings, name):
            problems.append(problem(name, (
                f"{what.format(address=address)} is the example every copy of newsroom has, at a domain no mail "
                f"reaches: set {name} to {wanted}, before sending")))
    if settings.list_id == Settings.list_id:
        problems.append(problem("list_id", (
            f"the list id {settings.list_id} is the example every copy of newsroom has, at a domain that is no one's: "
            "mailbox providers and subscribers' filters tell lists apart by it, and each message's Message-ID ends "
            "with it; set list_id to a name under the publication's own domain (weekly.<its domain>), before sending "
            "(and keep it: filters made for the list use it)")))
    secret = settings.unsubscribe_secret
    if secret == DEFAULT_SECRET or len(secret) < MIN_SECRET_LENGTH:
        what = ("is the default every copy of newsroom has" if secret == DEFAULT_SECRET else
                f"is {len(secret)} characters long, few enough to be guessed")
        problems.append(problem("unsubscribe_secret", (
            f"the unsubscribe secret {what}, and with it anyone could make a subscriber's unsubscribe link: set it to "
            f"{MIN_SECRET_LENGTH} or more random characters, e.g. the output of "
            "`python -c \"import secrets; print(secrets.token_hex(32))\"`, here or in $NEWSROOM_UNSUBSCRIBE_SECRET, "
            "before sending (and keep it: links already sent stop working when it changes)")))
    return problems


def _unsubscribe_link_problems(settings: Settings, problem: Callable[[str, str], Diagnostic]) -> list[Diagnostic]:
    """The one-click unsubscribe address's problems for mail that goes out, when unsubscribe_url gives one of its
    own: a host no subscriber reaches or an address that is not HTTPS (the base URL's are `SENT_LINKS`')."""
    endpoint = settings.unsubscribe_url
    unreachable = unreachable_host(endpoint) if endpoint else None
    if unreachable:
        return [problem("unsubscribe_url", (
            f"the one-click unsubscribe address {endpoint} is {unreachable}, which no subscriber "
            "reaches: set unsubscribe_url to the https:// address newsroom unsubscribe-server is served at, or "
            "leave it empty for {base_url}unsubscribe, before sending"))]
    if endpoint and urlsplit(endpoint).scheme != "https":
        return [problem("unsubscribe_url", (
            f"the one-click unsubscribe address {endpoint} is not HTTPS, which RFC 8058 and the mailbox "
            "providers require: set unsubscribe_url to the https:// address it is served at"))]
    return []


def connect(server: SmtpServer, timeout: float = 30.0) -> smtplib.SMTP:
    """An open SMTP session, secured as `server.security` says and logged in when it names a user; or
    SmtpUnavailable saying why not. A password is never sent over a connection that is not encrypted."""
    implicit = server.security == "tls" or (server.security == "auto" and server.port == SMTPS_PORT)
    context = ssl.create_default_context()  # verifies the certificate and the host name
    try:
        smtp = (smtplib.SMTP_SSL(server.host, server.port, timeout=timeout, context=context) if implicit
                else smtplib.SMTP(server.host, server.port, timeout=timeout))
    except ssl.SSLCertVerificationError as error:
        raise SmtpUnavailable(_unverified(server, error)) from None
    except (OSError, smtplib.SMTPException) as error:
        raise SmtpUnavailable(f"cannot reach the SMTP server {server}: {error}") from None
    try:
        _secure_and_log_in(smtp, server, implicit, context)
    except BaseException:
        smtp.close()
        raise
    return smtp


def _secure_and_log_in(smtp: smtplib.SMTP, server: SmtpServer, encrypted: bool, context: ssl.SSLContext) -> None:
    """Greet the server, STARTTLS where `server.security` asks for it, and log in over TLS alone."""
    try:
        smtp.ehlo()
        if not encrypted and server.security != "none" and smtp.has_extn("starttls"):
            smtp.starttls(context=context)
            smtp.ehlo()
            encrypted = True
        if server.security == "starttls" and not encrypted:
            raise SmtpUnavailable(f"the SMTP server {server} does not offer STARTTLS, which --smtp-security "
                                  "starttls requires")
        if server.user is None:
            return
        if not encrypted:
            raise SmtpUnavailable(f"the SMTP server {server} offers no TLS, and the password of {server.user} is "
                                  "not sent unencrypted: use the provider's TLS port (587 with STARTTLS, or 465 "
                                  "with --smtp-security tls)")
        smtp.login(server.user, server.password or "")
    except ssl.SSLCertVerificationError as error:
        raise SmtpUnavailable(_unverified(server, error)) from None
    except smtplib.SMTPAuthenticationError as error:
        raise SmtpUnavailable(f"the SMTP server {server} refused the login of {server.user}: "
                              f"{_answer(error)}") from None
    except smtplib.SMTPNotSupportedError:
        raise SmtpUnavailable(f"the SMTP server {server} takes no login (it offers no AUTH): leave out the "
                              "user") from None
    except (OSError, smtplib.SMTPException) as error:
        raise SmtpUnavailable(f"cannot reach the SMTP server {server}: {error}") from None


def _unverified(server: SmtpServer, error: ssl.SSLCertVerificationError) -> str:
    return (f"the SMTP server {server} gave a certificate that could not be verified ({error.verify_message}): "
            "check the host name; to trust an authority of your own instead of the system's, name its "
            "certificate in SSL_CERT_FILE")


def send_issue(engine: Engine, settings: Settings, emails: dict[str, PreparedEmail],
               listed: Iterable[ListedSubscriber], smtp: smtplib.SMTP, now: Callable[[], dt.datetime], *,
               limiter: RateLimiter | None = None, newcomers: bool = True) -> SendReport:
    """Send the prepared issue (one email per language in `emails`) to every listed subscriber not yet sent.

    Subscribers whose language has no prepared email are left for a run in
    that language; unsubscribed addresses are skipped. Without `newcomers`, so are the subscribers first
    listed after the issue went out (a run of `send latest` after each build mails each issue to the list
    as it was when the issue went out, not the last one to everyone who subscribes later).
    """
    number = next(iter(emails.values())).number
    with transaction(engine) as session:
        report, pending = _plan(session, settings, number, set(emails), listed, now(), newcomers)
    envelope_from = parseaddr(settings.email_from)[1]
    limiter = limiter or RateLimiter(None)
    # disable=None: a progress bar on a terminal, silence in logs and pipes.
    for subscriber_id, address, lang, token in tqdm(pending, unit="msg", disable=None, desc=f"issue {number}"):
        limiter.wait()
        at = now()
        message_id, message = emails[lang].message(settings, Recipient(address, token), sent=at)
        try:
            _send_one(engine, smtp, message, envelope_from, address,
                      Send(issue_number=number, subscriber_id=subscriber_id, lang=lang, message_id=message_id,
                           sent_at=at))
        except MESSAGE_ERRORS as error:
            if isinstance(error, smtplib.SMTPSenderRefused) and error.smtp_code == LOGIN_REQUIRED:
                sent = f"{report.sent} messages were sent before" if report.sent else "nothing was sent"
                raise SmtpUnavailable(f"the SMTP server takes mail only from a logged-in user ({_answer(error)}): "
                                      f"give its account's user (--smtp-user) and password ({PASSWORD_ENV}); "
                                      f"{sent}") from None
            report.failed.append(f"{address}: {_smtp_reason(error)}")
            continue
        except IntegrityError:
            report.already_sent += 1  # another run sent it meanwhile
            continue
        except (smtplib.SMTPServerDisconnected, OSError) as error:
            raise SmtpUnavailable(f"the SMTP server went away after {report.sent} messages: {error}; "
                                  "run the same command again to send the rest") from None
        report.sent += 1
    return report


def plan_issue(engine: Engine, settings: Settings, number: int, languages: Collection[str],
               listed: Iterable[ListedSubscriber], now: dt.datetime, *, newcomers: bool = True) -> SendReport:
    """What `send_issue` would do now, every message it would send counted as sent; nothing is stored
    (the subscribers it would list are listed in a transaction rolled back)."""
    with session_factory(engine)() as session:
        try:
            report, pending = _plan(session, settings, number, languages, listed, now, newcomers)
        finally:
            session.rollback()
    report.sent = len(pending)
    return report


def never_sent(engine: Engine, published: Mapping[int, dt.datetime], sending: int) -> list[int]:
    """The published issues (`published`: {number: publication time}) never sent to anyone that came out
    while the list was being mailed, in number order; `sending` (the issue of this run) counts as sent.

    An issue counts as passed over when it has a higher number, or a later publication time, than the
    first issue ever sent: `send latest` sends one issue a run, so two published between two runs leave
    the earlier one unsent. The issues older in both than the first one sent are the archive from before
    the list was mailed, which nobody expects to be sent."""
    with session_factory(engine)() as session:
        sent = (sent_issues(session) | {sending}) & published.keys()
    if not sent:
        return []
    first_number, first_time = min(sent), min(published[number] for number in sent)
    return sorted(number for number, time in published.items()
                  if number not in sent and (number > first_number or time > first_time))


def _plan(session: Session, settings: Settings, number: int, languages: Collection[str],
          listed: Iterable[ListedSubscriber], now: dt.datetime, newcomers: bool
          ) -> tuple[SendReport, list[tuple[int, str, str, str]]]:
    """The listed subscribers stored, and sorted: those to send to (id, address, language, token) in list
    order, and the others counted by why not (see send_issue)."""
    report = SendReport()
    subscribers = store_subscribers(session, listed, settings.unsubscribe_secret, now)
    done, gone = sent_ids(session, number), unsubscribed_ids(session)
    later = set() if newcomers else joined_after_sending(session, number)
    pending = []
    for subscriber in subscribers:
        if subscriber.id in gone:
            report.unsubscribed += 1
        elif subscriber.id in done:
            report.already_sent += 1
        elif subscriber.id in later:
            report.joined_later += 1
        elif subscriber.lang not in languages:
            report.other_language += 1
        else:
            pending.append((subscriber.id, subscriber.email, subscriber.lang, subscriber.token))
    return report, pending


def _send_one(engine: Engine, smtp: smtplib.SMTP, message: object, envelope_from: str, address: str,
              record: Send) -> None:
    """Claim, send, commit: the row is committed only when the server has accepted the message."""
    with session_factory(engine)() as session:
        with session.begin():
            session.add(record)
            session.flush()  # takes the unique (issue, subscriber) slot before anything leaves
            smtp.send_message(message, from_addr=envelope_from, to_addrs=[address])  # type: ignore[arg-type]
        # leaving the `begin()` block commits: the server's 250 and our record are one step apart


def _smtp_reason(error: Exception) -> str:
    """The server's answer to one message, e.g. "refused by the server (550 no such user)"."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        code, refusal = next(iter(error.recipients.values()))
        return f"refused by the server ({code} {refusal.decode(errors='replace')})"
    if isinstance(error, smtplib.SMTPResponseException):
        return f"refused by the server ({_answer(error)})"
    return f"refused by the server ({error})"


def _answer(error: smtplib.SMTPResponseException) -> str:
    """The server's code and text, e.g. "535 5.7.8 Authentication credentials invalid"."""
    answer: bytes | str = error.smtp_error
    text = answer.decode(errors="replace") if isinstance(answer, bytes) else answer
    return f"{error.smtp_code} {text}"
