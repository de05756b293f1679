"""Sending to a list against a real SMTP server (aiosmtpd): resuming after a kill, logging in over verified TLS,
and unsubscribing."""

from __future__ import annotations

import email
import email.policy
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

import html5lib
import pytest
import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from sitebuild import ISSUE_14_STORY, ISSUE_15_STORY, SCHEDULED_ISSUE, SPECIAL_ISSUE_15
from sqlalchemy import create_engine, text

from newsroom.db.session import make_engine
from newsroom.mail.send import RateLimiter
from newsroom.mail.unsubscribe import make_unsubscribe_server

ROOT = Path(__file__).resolve().parent.parent
BASE = "https://news.aikorszak.hu/"  # a host the public reaches: send refuses example.org's
#: The publication's own addresses, in place of the example ones every copy of the engine has.
ADDRESSES = ('email_from = "newsletter@news.example.org"\nemail_reply_to = "desk@news.example.org"\n'
             'unsubscribe_mailto = "leave@news.example.org"\n')
#: The list's own id, in place of the example one.
LIST_ID = 'list_id = "weekly.news.aikorszak.hu"\n'
SENDING = f'unsubscribe_secret = "{"5e" * 32}"\nbase_url = "{BASE}"\n' + ADDRESSES + LIST_ID
SUBSCRIBERS = """\
email,lang
anna@example.org,hu
Bela@Example.org,en
not-an-address,hu
cecil@example.org,
dora@example.org,en
eva@example.org,hu
ferenc@example.org,de
"""
VALID = {"anna@example.org": "hu", "bela@example.org": "en", "cecil@example.org": "hu", "dora@example.org": "en",
         "eva@example.org": "hu"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Mailbox:
    """An aiosmtpd handler that keeps every accepted message; it can kill the sender during a DATA."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, email.message.EmailMessage]] = []
        self.kill: tuple[int, subprocess.Popen] | None = None  # (after how many messages, the sender)
        self.refuse: set[str] = set()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):  # noqa: ANN001
        if address in self.refuse:
            return "550 5.1.1 No such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: ANN001 - aiosmtpd's hook signature
        if self.kill and len(self.messages) >= self.kill[0]:
            os.kill(self.kill[1].pid, signal.SIGKILL)  # the sender dies before this message is accepted
            return "451 4.3.0 Try again later"
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        for recipient in envelope.rcpt_tos:
            self.messages.append((recipient, message))
        return "250 OK"

    def count(self) -> Counter:
        return Counter(recipient for recipient, _ in self.messages)


@pytest.fixture
def smtp():
    mailbox = Mailbox()
    controller = Controller(mailbox, hostname="127.0.0.1", port=_free_port())
    controller.start()
    try:
        yield mailbox, f"127.0.0.1:{controller.port}"
    finally:
        controller.stop()


@pytest.fixture
def subscribers(sample_cli) -> Path:
    path = sample_cli.cwd / "list.csv"
    path.write_text(SUBSCRIBERS, encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def sending(request: pytest.FixtureRequest) -> None:
    """Mail goes to subscribers only with an unsubscribe secret of one's own and an HTTPS unsubscribe
    address: the working folder of every test with the sample has them in its newsroom.toml."""
    if "sample_cli" in request.fixturenames:
        (request.getfixturevalue("sample_cli").cwd / "newsroom.toml").write_text(SENDING, encoding="utf-8")


def _texts(page, *tags: str) -> list[str]:
    """The whole text of the first element of each tag name in a parsed page."""
    return ["".join(page.find(f".//{tag}").itertext()) for tag in tags]


def _scalar(db_url: str, sql: str) -> int:
    engine = create_engine(db_url)
    with engine.connect() as connection:
        value = connection.execute(text(sql)).scalar_one()
    engine.dispose()
    return value


def test_each_subscriber_gets_one_message_in_their_language_with_their_own_unsubscribe_link(sample_cli, smtp,
                                                                                           subscribers):
    mailbox, server = smtp
    result = sample_cli("send", "13", "--lang", "hu", "--to", str(subscribers), "--smtp", server,
                        "--rate", "200/s", "--base-url", BASE, expect=1)
    assert f"{subscribers}:4: email: malformed address 'not-an-address'; not sent" in result.stderr
    assert f"{subscribers}:8: lang: unknown language 'de'; expected one of hu, en" in result.stderr
    assert "3 sent, 0 already sent, 0 unsubscribed, 2 in another language" in result.stdout
    sample_cli("send", "13", "--to", str(subscribers), "--smtp", server, "--base-url", BASE, expect=1)
    assert mailbox.count() == Counter(list(VALID))
    tokens = set()
    for recipient, message in mailbox.messages:
        lang = VALID[recipient]
        assert message["To"] == recipient and message["Content-Language"] == lang
        assert message["Subject"].endswith("a saját chipek hete" if lang == "hu" else "a week of custom chips")
        html = message.get_body(("html",)).get_content()
        assert f'<html lang="{lang}" dir="ltr">' in html
        url = str(message["List-Unsubscribe"]).split(",")[0].strip(" <>")
        token = re.fullmatch(rf"{re.escape(BASE)}unsubscribe\?t=([0-9a-f]{{32}})", url).group(1)
        assert token in html and token in message.get_body(("plain",)).get_content()
        assert token in message["Message-ID"] or token[:16] in message["Message-ID"]
        tokens.add(token)
    assert len(tokens) == len(VALID)
    rerun = sample_cli("send", "13", "--to", str(subscribers), "--smtp", server, "--base-url", BASE, expect=1)
    assert "0 sent, 5 already sent" in rerun.stdout
    assert len(mailbox.messages) == len(VALID)
    assert _scalar(sample_cli.db_url, "SELECT count(*) FROM sends") == len(VALID)


def test_a_dry_run_says_whom_a_send_would_reach_and_stores_nor_sends_anything(sample_cli, smtp, subscribers):
    """`send --dry-run` checks the list and counts, before a real run, without a server or any trace."""
    mailbox, server = smtp
    sample_cli("send", "13", "--lang", "hu", "--to", str(subscribers), "--smtp", server, "--base-url", BASE,
               expect=1)  # three Hungarian subscribers mailed (the list has two invalid lines)
    listed = _scalar(sample_cli.db_url, "SELECT count(*) FROM subscribers")
    (sample_cli.cwd / "more.csv").write_text(SUBSCRIBERS + "gabor@example.org,en\n", encoding="utf-8")
    dry = sample_cli("send", "13", "--to", str(sample_cli.cwd / "more.csv"), "--dry-run", expect=1)
    assert f"{sample_cli.cwd / 'more.csv'}:4: email: malformed address 'not-an-address'; not sent" in dry.stderr
    assert ("issue 13: would send 3, 3 already sent, 0 unsubscribed, 0 in another language, 0 refused, "
            "2 invalid lines (a dry run: nothing was sent or stored)") in dry.stdout
    latest = sample_cli("send", "latest", "--to", str(sample_cli.cwd / "more.csv"), "--dry-run", expect=1)
    assert "would send 2, 3 already sent" in latest.stdout and "1 subscribed after it went out" in latest.stdout
    assert len(mailbox.messages) == 3
    assert _scalar(sample_cli.db_url, "SELECT count(*) FROM subscribers") == listed
    assert _scalar(sample_cli.db_url, "SELECT count(*) FROM sends") == 3
    refused = sample_cli("send", "13", "--to", str(subscribers), expect=2).stderr
    assert "--smtp is required (or --dry-run)" in refused


@pytest.mark.sqlite_only
def test_mail_never_goes_out_with_the_default_secret_or_an_unsubscribe_address_that_is_not_https(sample_cli,
                                                                                                  subscribers):
    """The secret every copy of the engine starts with is public: with it anyone could unsubscribe anyone. And
    one-click unsubscribing (RFC 8058) takes an HTTPS address. Both are refused before any connection, in a
    dry run too, naming the setting; nothing is stored. So is the list id every copy starts with, which mail
    filters tell lists apart by."""
    port = _free_port()  # nothing listens: a connection attempt would be reported instead
    settings = sample_cli.cwd / "newsroom.toml"
    settings.unlink()
    for options in (["--smtp", f"127.0.0.1:{port}"], ["--dry-run"]):
        refused = sample_cli("send", "13", "--to", str(subscribers), *options, expect=1).stderr.splitlines()
        none = "newsroom.toml (none here yet)"
        fields = ["base_url", "email_from", "email_reply_to", "list_id", "unsubscribe_mailto", "unsubscribe_secret"]
        assert [line.split(": ", 2)[:2] for line in refused[:-1]] == [[none, name] for name in fields]
        assert "would lead to http://localhost:8000/ (the preview's default), this machine's own name" in refused[0]
        assert "is the default every copy of newsroom has" in refused[5]
        assert refused[3].endswith(": list_id: the list id weekly.example.org is the example every copy of newsroom "
                                   "has, at a domain that is no one's: mailbox providers and subscribers' filters tell "
                                   "lists apart by it, and each message's Message-ID ends with it; set list_id to a "
                                   "name under the publication's own domain (weekly.<its domain>), before sending (and "
                                   "keep it: filters made for the list use it)"), refused[3]
    settings.write_text(f'unsubscribe_secret = "s3cret"\nunsubscribe_url = "http://{BASE[8:]}u"\n' + ADDRESSES,
                        encoding="utf-8")
    refused = sample_cli("send", "13", "--to", str(subscribers), "--dry-run", expect=1).stderr
    assert (f"newsroom.toml:2: unsubscribe_url: the one-click unsubscribe address http://{BASE[8:]}u is not HTTPS"
            in refused)
    assert "newsroom.toml:1: unsubscribe_secret: the unsubscribe secret is 6 characters long" in refused
    assert _scalar(sample_cli.db_url, "SELECT count(*) FROM subscribers") == 0
    assert _scalar(sample_cli.db_url, "SELECT count(*) FROM sends") == 0


@pytest.mark.sqlite_only
def test_mail_never_links_subscribers_to_an_address_they_cannot_reach(sample_cli, smtp, subscribers):
    """An unsubscribe address of its own let an issue go out with every link at the preview's default,
    http://localhost:8000/, or at a private or example host: a sent message cannot be taken back. Refused before
    any connection, at base_url's line (or as the option that gave it), and so is a base URL that is not HTTPS."""
    mailbox, server = smtp
    settings = sample_cli.cwd / "newsroom.toml"
    own = SENDING.replace(f'base_url = "{BASE}"\n', "") + f'unsubscribe_url = "{BASE}unsubscribe"\n'
    for base, why in ((None, "http://localhost:8000/ (the preview's default), this machine's own name"),
                      ("https://127.0.0.1:8000/", "https://127.0.0.1:8000/, this machine's own address"),
                      ("https://[::1]/", "https://[::1]/, this machine's own address"),
                      ("https://10.0.0.7/", "https://10.0.0.7/, an address of a private network"),
                      ("https://newsroom.local/", "https://newsroom.local/, a name only the local network answers"),
                      ("https://hirlevel.test/", "https://hirlevel.test/, a name reserved for tests (RFC 6761)"),
                      ("https://news.example.org/", "https://news.example.org/, a name reserved for examples")):
        settings.write_text(own + (f'base_url = "{base}"\n' if base else ""), encoding="utf-8")
        refused = sample_cli("send", "13", "--to", str(subscribers), "--smtp", server, expect=1).stderr
        line = "newsroom.toml:7: base_url: " if base else "newsroom.toml: base_url: "
        assert refused.startswith(f"{line}every link of the email (the web version, the Method page, each story's "
                                  f"page) would lead to {why}"), refused
        assert ("which no subscriber reaches: set base_url (or --base-url) to the address the site is served at "
                "before sending") in refused, refused
        assert refused.endswith("\n1 error; nothing was changed\n"), refused
    refused = sample_cli("send", "13", "--to", str(subscribers), "--dry-run", "--base-url", "https://newsroom/",
                         expect=1).stderr
    assert refused.startswith("command line: --base-url: every link of the email (the web version, the Method "
                              "page, each story's page) would lead to https://newsroom/, a name only the local "
                              "network answers for"), refused
    settings.write_text(own + f'base_url = "http://{BASE[8:]}"\n', encoding="utf-8")
    refused = sample_cli("send", "13", "--to", str(subscribers), "--smtp", server, expect=1).stderr
    assert refused.startswith(f"newsroom.toml:7: base_url: every link of the email (the web version, the Method "
                              f"page, each story's page) would lead to http://{BASE[8:]}, which is not HTTPS: nor is "
                              "the one-click unsubscribe address made of it (unless unsubscribe_url gives another), "
                              "and RFC 8058 and the mailbox providers require HTTPS for that one; set base_url (or "
                              "--base-url) to the https:// address the site is served at before sending"), refused
    settings.write_text(own.replace(f"{BASE}unsubscribe", "https://localhost/u") + f'base_url = "{BASE}"\n',
                        encoding="utf-8")
    refused = sample_cli("send", "13", "--to", str(subscribers), "--smtp", server, expect=1).stderr
    assert refused.startswith("newsroom.toml:6: unsubscribe_url: the one-click unsubscribe address "
                              "https://localhost/u is this machine's own name, which no subscriber reaches"), refused
    assert mailbox.messages == []
    assert _scalar(sample_cli.db_url, "SELECT count(*) FROM subscribers") == 0
    settings.write_text(own, encoding="utf-8")
    sample_cli("send", "13", "--to", str(subscribers), "--smtp", server, "--base-url", BASE, expect=1)
    assert mailbox.count() == Counter(list(VALID))
    for _, message in mailbox.messages:
        html = html5lib.parse(message.get_body(("html",)).get_content(), namespaceHTMLElements=False)
        own_links = [a.get("href") for a in html.iter("a") if "aikorszak" in a.get("href", "")]
        assert own_links and all(href.startswith(BASE) for href in own_links), own_links


@pytest.mark.sqlite_only
def test_mail_never_goes_out_from_the_example_addresses_the_engine_ships_with(sample_cli, subscribers):
    """hirlevel@example.org sent every subscriber a message from a domain that sends no mail (mailbox providers
    refuse it as forged), with replies and mailto unsubscribes going nowhere. Each is named with what to set."""
    settings = sample_cli.cwd / "newsroom.toml"
    settings.write_text(SENDING.replace(ADDRESSES, 'email_from = "Desk <desk@news.example.org>"\n'), encoding="utf-8")
    refused = sample_cli("send", "13", "--to", str(subscribers), "--dry-run", expect=1).stderr.splitlines()
    assert refused[:-1] == [
        "newsroom.toml: email_reply_to: the reply address szerkesztoseg@example.org is the example every copy of "
        "newsroom has, at a domain no mail reaches: set email_reply_to to the address the editors read replies at, "
        "before sending",
        "newsroom.toml: unsubscribe_mailto: the unsubscribe address mailto:unsubscribe@example.org (List-Unsubscribe) "
        "is the example every copy of newsroom has, at a domain no mail reaches: set unsubscribe_mailto to the "
        "address where unsubscribe requests are handled, before sending"], refused
    settings.write_text(SENDING.replace(ADDRESSES, ""), encoding="utf-8")
    refused = sample_cli("send", "13", "--to", str(subscribers), "--dry-run", expect=1).stderr
    assert ("newsroom.toml: email_from: the sender address hirlevel@example.org is the example every copy of newsroom "
            "has, at a domain no mail reaches: set email_from to the address the newsletter is sent from, one the "
            "SMTP server may send as, before sending") in refused
    assert _scalar(sample_cli.db_url, "SELECT count(*) FROM subscribers") == 0
    settings.write_text(SENDING, encoding="utf-8")
    assert "would send 5" in sample_cli("send", "13", "--to", str(subscribers), "--dry-run", expect=1).stdout


@pytest.mark.sqlite_only
def test_the_unsubscribe_secret_may_come_from_the_environment(sample_cli, smtp, subscribers, monkeypatch):
    """A secret is better kept out of a newsroom.toml under version control: $NEWSROOM_UNSUBSCRIBE_SECRET gives
    it, and the links it signs are the ones the settings file's secret would sign."""
    from newsroom.mail.tokens import make_token

    mailbox, server = smtp
    secret = "7f" * 32
    (sample_cli.cwd / "newsroom.toml").write_text(f'base_url = "{BASE}"\n' + ADDRESSES + LIST_ID, encoding="utf-8")
    assert "unsubscribe_secret" in sample_cli("send", "13", "--to", str(subscribers), "--dry-run", expect=1).stderr
    monkeypatch.setenv("NEWSROOM_UNSUBSCRIBE_SECRET", secret)
    sample_cli("send", "13", "--lang", "en", "--to", str(subscribers), "--smtp", server, expect=1)
    recipient, message = mailbox.messages[0]
    assert f"?t={make_token(secret, recipient)}>" in str(message["List-Unsubscribe"])
    from newsroom.settings import Settings

    assert secret not in repr(Settings(unsubscribe_secret=secret))  # nor in a build's fingerprint, nor a message


@pytest.mark.sqlite_only
def test_a_sent_message_is_dated_when_it_is_sent_the_archive_s_when_the_issue_went_out(sample_cli, smtp,
                                                                                       subscribers, monkeypatch):
    mailbox, server = smtp
    monkeypatch.setenv("NEWSROOM_NOW", "2026-12-06T13:30:00+01:00")
    sample_cli("send", "13", "--to", str(subscribers), "--smtp", server, expect=1)  # 1: the list's bad lines
    assert {message["Date"].datetime.isoformat() for _, message in mailbox.messages} == {"2026-12-06T12:30:00+00:00"}
    sample_cli("email", "13", "--lang", "en", "--out", "mail")
    archived = email.message_from_bytes((sample_cli.cwd / "mail/en/issue-13.eml").read_bytes(),
                                        policy=email.policy.default)
    assert archived["Date"].datetime.isoformat() == "2026-11-09T06:00:00+00:00"


def test_a_sender_killed_midway_resumes_and_nobody_gets_two(sample_cli, smtp, subscribers):
    mailbox, server = smtp
    command = [sys.executable, "-m", "newsroom", "--db", sample_cli.db_url, "send", "13", "--to", str(subscribers),
               "--smtp", server, "--rate", "100/s", "--base-url", BASE]
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    sender = subprocess.Popen(command, cwd=sample_cli.cwd, env=environment, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    mailbox.kill = (2, sender)  # two messages accepted, then the sender dies in the middle of the third
    sender.communicate(timeout=60)
    assert sender.returncode == -signal.SIGKILL
    assert len(mailbox.messages) == 2
    assert _scalar(sample_cli.db_url, "SELECT count(*) FROM sends") == 2
    mailbox.kill = None
    rerun = subprocess.run(command, cwd=sample_cli.cwd, env=environment, capture_output=True, text=True, timeout=60)
    assert rerun.returncode == 1, rerun.stderr  # 1: the two bad lines of the list are still reported
    assert "3 sent, 2 already sent" in rerun.stdout
    assert mailbox.count() == Counter(list(VALID))  # every subscriber exactly once
    assert _scalar(sample_cli.db_url, "SELECT count(*) FROM sends") == len(VALID)


def test_two_sends_listing_the_same_new_subscribers_at_once_both_go_on(sample_cli, smtp, subscribers, databases):
    """Two runs of `send` at once on a team's database (a timer's and an editor's), both listing subscribers
    new to it: the second waits for the first's list and sends to whom it has not (it stopped on a traceback
    of a duplicate address). Here the first run's listing is held open while the second starts."""
    import datetime as dt

    from conftest import Meanwhile

    from newsroom.db.session import session_factory
    from newsroom.mail.subscribers import parse_subscribers, store_subscribers

    if databases.backend == "sqlite":
        pytest.skip("SQLite: one writer at a time, the list stored whole by one run before the other reads it")
    mailbox, server = smtp
    listed, _ = parse_subscribers(subscribers.read_text(encoding="utf-8"), str(subscribers), ("hu", "en"))
    engine = make_engine(sample_cli.db_url)
    with session_factory(engine)() as session, session.begin():
        store_subscribers(session, listed, "5e" * 32, dt.datetime(2026, 11, 30, tzinfo=dt.timezone.utc))
        second = Meanwhile(lambda: sample_cli("send", "13", "--to", str(subscribers), "--smtp", server, "--rate",
                                              "200/s", "--base-url", BASE, expect=None))
        assert second.waiting()  # for the first run's list
    sent = second.outcome()
    engine.dispose()
    assert sent.exit_code == 1, sent.stderr  # 1: the two bad lines of the list
    assert "5 sent, 0 already sent" in sent.stdout, sent.stdout
    assert mailbox.count() == Counter(list(VALID))
    assert _scalar(sample_cli.db_url, "SELECT count(*) FROM subscribers") == len(VALID)


def test_a_list_longer_than_one_postgresql_statement_takes_is_read(sample_cli, databases):
    """PostgreSQL's driver takes at most 65,535 values a statement: a list one longer stopped `send` on a
    traceback, as its addresses were looked up in one query. (A dry run: the list is read and stored alike.)"""
    if databases.backend == "sqlite":
        pytest.skip("SQLite takes 250,000 values a statement")
    listed = sample_cli.cwd / "list.csv"
    rows = "".join(f"reader{n}@example.org,hu\n" for n in range(65536))
    listed.write_text("email,lang\n" + rows, encoding="utf-8")
    planned = sample_cli("send", "13", "--to", str(listed), "--smtp", "127.0.0.1:1", "--dry-run")
    assert planned.stdout.startswith("issue 13: would send 65536, 0 already sent"), planned.stdout


def test_a_list_stores_its_new_subscribers_and_the_language_each_known_one_is_listed_in_now(sample_cli):
    """The subscribers of a list come back in its order, each in the language it lists them in: a known one keeps
    its row and token and takes the new language, a new one is added (through the domain API: a list file names
    an address once, `parse_subscribers` says so of a second line)."""
    import datetime as dt

    from newsroom.db.session import session_factory
    from newsroom.mail.subscribers import ListedSubscriber, store_subscribers

    engine = make_engine(sample_cli.db_url)
    now = dt.datetime(2026, 11, 30, tzinfo=dt.timezone.utc)

    def listed(*items: tuple[str, str]) -> list:
        with session_factory(engine)() as session, session.begin():
            return store_subscribers(session, [ListedSubscriber(line, address, lang)
                                               for line, (address, lang) in enumerate(items, 2)], "5e" * 32, now)

    first = listed(("anna@example.org", "hu"), ("bela@example.org", "en"))
    again = listed(("bela@example.org", "hu"), ("cili@example.org", "en"), ("anna@example.org", "hu"))
    twice = listed(("cili@example.org", "hu"), ("dora@example.org", "hu"), ("cili@example.org", "en"))
    engine.dispose()
    assert [(row.email, row.lang) for row in twice] == [  # an address listed twice: its last line's language
        ("cili@example.org", "en"), ("dora@example.org", "hu"), ("cili@example.org", "en")]
    assert [(row.email, row.lang) for row in again] == [
        ("bela@example.org", "hu"), ("cili@example.org", "en"), ("anna@example.org", "hu")]
    assert {row.email: (row.id, row.token) for row in again}.items() >= {
        row.email: (row.id, row.token) for row in first}.items()
    assert len({row.id for row in again}) == 3
    assert _scalar(sample_cli.db_url, "SELECT lang FROM subscribers WHERE email = 'bela@example.org'") == "hu"
    assert _scalar(sample_cli.db_url, "SELECT lang FROM subscribers WHERE email = 'cili@example.org'") == "en"


def test_a_refused_recipient_is_reported_not_recorded_and_sent_on_the_next_run(sample_cli, smtp, subscribers):
    mailbox, server = smtp
    mailbox.refuse = {"eva@example.org"}
    result = sample_cli("send", "13", "--to", str(subscribers), "--smtp", server, expect=1)
    assert f"{subscribers}: eva@example.org: refused by the server (550 5.1.1 No such mailbox)" in result.stderr
    assert "4 sent" in result.stdout and "1 refused" in result.stdout
    mailbox.refuse = set()
    result = sample_cli("send", "13", "--to", str(subscribers), "--smtp", server, expect=1)
    assert "1 sent, 4 already sent" in result.stdout
    assert mailbox.count() == Counter(list(VALID))


def test_an_unreachable_smtp_server_is_reported_and_nothing_is_recorded(sample_cli, subscribers):
    port = _free_port()
    result = sample_cli("send", "13", "--to", str(subscribers), "--smtp", f"127.0.0.1:{port}", expect=1)
    assert f"cannot reach the SMTP server 127.0.0.1:{port}" in result.stderr
    assert "nothing was sent" in result.stderr
    assert _scalar(sample_cli.db_url, "SELECT count(*) FROM sends") == 0


class Account(Mailbox):
    """A mail provider's submission server: a certificate from a CA of its own, and one login."""

    def __init__(self) -> None:
        super().__init__()
        self.logins: list[str] = []  # each login the server accepted

    def authenticate(self, server, session, envelope, mechanism, secret):  # noqa: ANN001 - aiosmtpd's signature
        if isinstance(secret, LoginPassword) and (secret.login, secret.password) == (b"editor", b"s3cret pass"):
            self.logins.append(secret.login.decode())
            return AuthResult(success=True)
        return AuthResult(success=False, handled=False)


@pytest.fixture
def authority() -> trustme.CA:
    return trustme.CA()


def _provider(authority: trustme.CA, implicit: bool = False, tls: bool = True):
    """A started SMTP server that takes mail only from a logged-in user: STARTTLS on a submission port, or
    TLS from the first byte (`implicit`, as port 465)."""
    account = Account()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(context)
    options = {"ssl_context": context, "auth_require_tls": False} if implicit else \
        {"tls_context": context, "require_starttls": True} if tls else {"auth_require_tls": False}
    controller = Controller(account, hostname="127.0.0.1", port=_free_port(), authenticator=account.authenticate,
                            auth_required=True, **options)
    controller.start()
    return account, controller


@pytest.fixture
def provider(authority):
    account, controller = _provider(authority)
    yield account, f"127.0.0.1:{controller.port}"
    controller.stop()


@pytest.fixture
def trusted(authority, tmp_path, monkeypatch) -> None:
    """The provider's CA trusted as the system's certificates are (SSL_CERT_FILE), the password in the
    environment."""
    bundle = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    monkeypatch.setenv("NEWSROOM_SMTP_PASSWORD", "s3cret pass")


def test_send_logs_in_over_starttls_after_verifying_the_server_s_certificate(sample_cli, provider, subscribers,
                                                                              trusted):
    account, server = provider
    sample_cli("send", "13", "--to", str(subscribers), "--smtp", server, "--smtp-user", "editor",
               "--base-url", BASE, expect=1)  # 1: the list's two invalid lines
    assert account.count() == Counter(list(VALID)) and account.logins == ["editor"]
    assert _scalar(sample_cli.db_url, "SELECT count(*) FROM sends") == len(VALID)


def test_the_password_may_come_from_a_file_as_a_secret_store_gives_it(sample_cli, provider, subscribers, trusted,
                                                                      monkeypatch, tmp_path):
    """$NEWSROOM_SMTP_PASSWORD_FILE names a file holding the password (systemd credentials, container
    secrets), its final line break not part of it; a file that cannot be read is named."""
    account, server = provider
    monkeypatch.delenv("NEWSROOM_SMTP_PASSWORD")
    secret = tmp_path / "smtp-password"
    secret.write_text("s3cret pass\n", encoding="utf-8")
    monkeypatch.setenv("NEWSROOM_SMTP_PASSWORD_FILE", str(secret))
    sample_cli("send", "13", "--lang", "en", "--to", str(subscribers), "--smtp", server, "--smtp-user", "editor",
               "--base-url", BASE, expect=1)
    assert account.logins == ["editor"] and len(account.messages) == 2
    monkeypatch.setenv("NEWSROOM_SMTP_PASSWORD_FILE", str(tmp_path / "missing"))
    missing = sample_cli("send", "13", "--to", str(subscribers), "--smtp", server, "--smtp-user", "editor",
                         expect=2).stderr
    assert f"NEWSROOM_SMTP_PASSWORD_FILE names {tmp_path / 'missing'}, which cannot be read" in missing
    monkeypatch.setenv("NEWSROOM_SMTP_PASSWORD", "s3cret pass")
    both = sample_cli("send", "13", "--to", str(subscribers), "--smtp", server, "--smtp-user", "editor",
                      expect=2).stderr
    assert "give the password in NEWSROOM_SMTP_PASSWORD or in a file NEWSROOM_SMTP_PASSWORD_FILE names, not both" in both


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")  # the test server's, not ours
def test_send_logs_in_over_tls_from_the_first_byte(sample_cli, authority, subscribers, trusted):
    account, controller = _provider(authority, implicit=True)
    try:
        result = sample_cli("send", "13", "--lang", "en", "--to", str(subscribers), "--smtp",
                            f"127.0.0.1:{controller.port}", "--smtp-security", "tls", "--smtp-user", "editor",
                            "--base-url", BASE, expect=1)
    finally:
        controller.stop()
    assert "2 sent" in result.stdout and account.logins == ["editor"]


@pytest.mark.parametrize(("case", "options", "environment", "said"), [
    ("wrong password", ["--smtp-user", "editor"], {"NEWSROOM_SMTP_PASSWORD": "guess"},
     "the SMTP server 127.0.0.1:{port} refused the login of editor: 535"),
    ("unknown certificate", ["--smtp-user", "editor"], {"SSL_CERT_FILE": None},
     "the SMTP server 127.0.0.1:{port} gave a certificate that could not be verified"),
    ("no login", [], {}, "the SMTP server takes mail only from a logged-in user (530 5.7.0 Authentication "
                         "required): give its account's user (--smtp-user) and password (NEWSROOM_SMTP_PASSWORD)"),
    ("no password", ["--smtp-user", "editor"], {"NEWSROOM_SMTP_PASSWORD": None},
     "--smtp-user needs the password in the environment variable NEWSROOM_SMTP_PASSWORD"),
])
def test_a_send_the_provider_would_refuse_stops_before_any_message(sample_cli, provider, subscribers, trusted,
                                                                    monkeypatch, case, options, environment, said):
    account, server = provider
    for name, value in environment.items():
        if value is None:
            monkeypatch.delenv(name)
        else:
            monkeypatch.setenv(name, value)
    result = sample_cli("send", "13", "--to", str(subscribers), "--smtp", server, *options, "--base-url", BASE,
                        expect=None)
    assert result.exit_code != 0, result.stdout
    assert said.format(port=server.rpartition(":")[2]) in result.stderr
    assert account.messages == [] and account.logins == []
    assert _scalar(sample_cli.db_url, "SELECT count(*) FROM sends") == 0


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
def test_a_password_is_never_sent_unencrypted(sample_cli, authority, subscribers, trusted):
    """A server that offers no TLS gets no password (it could be read on the way), nor does a STARTTLS
    that `--smtp-security starttls` demands and the server lacks go unnoticed."""
    account, controller = _provider(authority, tls=False)
    server = f"127.0.0.1:{controller.port}"
    try:
        login = sample_cli("send", "13", "--to", str(subscribers), "--smtp", server, "--smtp-user", "editor",
                           "--base-url", BASE, expect=1)
        required = sample_cli("send", "13", "--to", str(subscribers), "--smtp", server,
                              "--smtp-security", "starttls", "--base-url", BASE, expect=1)
    finally:
        controller.stop()
    assert (f"the SMTP server {server} offers no TLS, and the password of editor is not sent unencrypted: "
            "use the provider's TLS port (587 with STARTTLS, or 465 with --smtp-security tls); nothing was sent"
            in login.stderr)
    assert f"the SMTP server {server} does not offer STARTTLS, which --smtp-security starttls requires" \
        in required.stderr
    assert account.messages == [] and account.logins == []


def test_a_list_exported_from_a_mailing_service_is_read_by_its_header_names(sample_cli, smtp):
    """Its columns in its own order, with others beside them: the address and the language are found by
    name; a header naming no address column is said so (it used to be taken as a malformed address)."""
    mailbox, server = smtp
    exported = sample_cli.cwd / "export.csv"
    exported.write_text("First Name,Language,Email Address,Tags\nAnna,hu,anna@example.org,vip\n"
                        "Béla,en,bela@example.org,\nCecil,,cecil@example.org,\n", encoding="utf-8")
    assert "3 sent" in sample_cli("send", "13", "--to", str(exported), "--smtp", server, "--base-url", BASE).stdout
    assert {recipient: message["Content-Language"] for recipient, message in mailbox.messages} == {
        "anna@example.org": "hu", "bela@example.org": "en", "cecil@example.org": "hu"}
    nameless = sample_cli.cwd / "nameless.csv"
    nameless.write_text("name,language\nAnna,hu\n", encoding="utf-8")
    result = sample_cli("send", "13", "--to", str(nameless), "--smtp", server, expect=1)
    assert f"{nameless}:1: email: the header row names no address column (name, language): name it email (and " \
           "the language's lang), e.g. email,lang" in result.stderr.splitlines()


def test_a_list_with_no_one_to_send_to_is_refused_before_connecting(sample_cli):
    """An empty file (or the wrong one) is a mistake to say so, not "0 sent"; no server is needed to say it."""
    port = _free_port()  # nothing listens: a connection attempt would be reported instead
    for name, listing in (("empty.csv", ""), ("header.csv", "email,lang\n"), ("wrong.csv", "name\nAnna\n")):
        path = sample_cli.cwd / name
        path.write_text(listing, encoding="utf-8")
        result = sample_cli("send", "13", "--to", str(path), "--smtp", f"127.0.0.1:{port}", expect=1)
        assert f"{path}: no subscriber to send to: expected a header row email,lang" in result.stderr, result.stderr
        assert "cannot reach the SMTP server" not in result.stderr
    assert _scalar(sample_cli.db_url, "SELECT count(*) FROM sends") == 0


def test_an_unpublished_issue_is_never_sent(sample_cli, smtp, subscribers, write_files, monkeypatch):
    mailbox, server = smtp
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-16T06:59:00+01:00")
    sample_cli("import", str(write_files({"issues/0014.yaml": SCHEDULED_ISSUE, "stories/s.yaml": ISSUE_14_STORY})))
    result = sample_cli("send", "14", "--to", str(subscribers), "--smtp", server, expect=1)
    assert "issue:14: status: the issue is scheduled, not published" in result.stderr
    assert mailbox.messages == []


def test_a_scheduled_issue_is_sent_once_its_time_has_come(sample_cli, smtp, subscribers, write_files, monkeypatch):
    """As the build shows it from then on: a timer that builds and sends puts it out at its time."""
    mailbox, server = smtp
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-16T06:00:00+01:00")
    sample_cli("import", str(write_files({"issues/0014.yaml": SCHEDULED_ISSUE, "stories/s.yaml": ISSUE_14_STORY})))
    assert "en/issue-13.eml" in sample_cli("email", "latest", "--lang", "en", "--out", "mail").stdout  # 14 not yet
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-16T07:00:00+01:00")
    refused = sample_cli("send", "first", "--to", str(subscribers), "--smtp", server, expect=2).stderr
    assert "expected an issue number or latest, got 'first'" in refused
    # As a timer would: `send latest` after the issue's time, with the list's bad lines reported (exit 1).
    result = sample_cli("send", "latest", "--to", str(subscribers), "--smtp", server, expect=1)
    assert "issue 14: its scheduled time has come; recorded as published" in result.stderr
    assert "issue 14: 5 sent," in result.stdout
    subjects = {message["Subject"] for _, message in mailbox.messages}
    assert len(mailbox.messages) == 5 and all("Scheduled" in s or "Ütemezett" in s for s in subjects), subjects


def test_send_latest_mails_an_issue_to_the_list_as_it_was_when_the_issue_went_out(sample_cli, smtp, write_files,
                                                                                   monkeypatch):
    """A timer runs `send latest` after every build: a reader who subscribes on Wednesday gets the next issue,
    not Monday's at the timer's next run; `send N` sends an issue to them all the same."""
    mailbox, server = smtp
    listing = sample_cli.cwd / "list.csv"
    listing.write_text("email,lang\nanna@example.org,hu\nbela@example.org,en\n", encoding="utf-8")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-10T08:00:00+01:00")
    first = sample_cli("send", "latest", "--to", str(listing), "--smtp", server, "--base-url", BASE)
    assert "issue 13: 2 sent, 0 already sent" in first.stdout
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-11T08:00:00+01:00")
    listing.write_text(listing.read_text(encoding="utf-8") + "cecil@example.org,en\n", encoding="utf-8")
    again = sample_cli("send", "latest", "--to", str(listing), "--smtp", server, "--base-url", BASE)
    assert ("issue 13: 0 sent, 2 already sent, 0 unsubscribed, 0 in another language, 1 subscribed after it went "
            "out (`newsroom send 13` sends it to them), 0 refused, 0 invalid lines") in again.stdout
    assert mailbox.count() == Counter(["anna@example.org", "bela@example.org"])

    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-16T06:00:00+01:00")
    sample_cli("import", str(write_files({"issues/0014.yaml": SCHEDULED_ISSUE, "stories/s.yaml": ISSUE_14_STORY})))
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-16T07:05:00+01:00")
    assert "issue 14: 3 sent" in sample_cli("send", "latest", "--to", str(listing), "--smtp", server,
                                            "--base-url", BASE).stdout
    assert "issue 13: 1 sent, 2 already sent" in sample_cli("send", "13", "--to", str(listing), "--smtp", server,
                                                            "--base-url", BASE).stdout
    assert mailbox.count() == Counter({"anna@example.org": 2, "bela@example.org": 2, "cecil@example.org": 2})


@pytest.mark.sqlite_only("which issue is the latest is decided from the content, whatever the database")
def test_send_latest_sends_the_issue_published_last_not_the_highest_numbered(sample_cli, smtp, write_files,
                                                                               monkeypatch):
    """A special issue 15 goes out on Friday; the regular issue 14 comes out at its scheduled time on Monday.
    The timer's `send latest` on Monday mails 14, the issue published last (as the feeds and the home page
    have it), not 15 again, and `email latest` writes 14's email."""
    mailbox, server = smtp
    listing = sample_cli.cwd / "list.csv"
    listing.write_text("email,lang\nanna@example.org,hu\nbela@example.org,en\n", encoding="utf-8")
    send = ("send", "latest", "--to", str(listing), "--smtp", server, "--base-url", BASE)
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-13T10:30:00+01:00")
    sample_cli("import", str(write_files({"issues/0014.yaml": SCHEDULED_ISSUE, "stories/s14.yaml": ISSUE_14_STORY,
                                          "issues/0015.yaml": SPECIAL_ISSUE_15, "stories/s15.yaml": ISSUE_15_STORY})))
    assert "issue 15: 2 sent, 0 already sent" in sample_cli(*send).stdout
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-16T07:30:00+01:00")
    monday = sample_cli(*send)
    assert "issue 14: 2 sent, 0 already sent" in monday.stdout, monday.stdout
    assert "issue 14: 0 sent, 2 already sent" in sample_cli(*send).stdout
    subjects = [message["Subject"] for _, message in mailbox.messages]
    assert len(subjects) == 4 and sum("Special issue" in s or "Különszám" in s for s in subjects) == 2, subjects
    assert sum("Scheduled" in s or "Ütemezett" in s for s in subjects) == 2, subjects
    written = sample_cli("email", "latest", "--lang", "en", "--out", "mail").stdout
    assert "en/issue-14.eml" in written, written


@pytest.mark.sqlite_only("which issues went out is decided from the sends recorded, whatever the database")
def test_send_latest_names_a_published_issue_it_passed_over_and_the_command_that_sends_it(sample_cli, smtp,
                                                                                          write_files, monkeypatch):
    """Issue 14 comes out at 07:00 on Monday, a special issue 15 at 07:10, and the timer runs at 07:30: it sends
    15, the issue published last, and says 14 never went out and how to send it, until it has. The issues
    from before the list was first mailed (10–12) are no such issue."""
    mailbox, server = smtp
    listing = sample_cli.cwd / "list.csv"
    listing.write_text("email,lang\nanna@example.org,hu\n", encoding="utf-8")
    send = ("send", "latest", "--to", str(listing), "--smtp", server, "--base-url", BASE)
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-10T08:00:00+01:00")
    first = sample_cli(*send)
    assert "issue 13: 1 sent" in first.stdout and first.stderr == ""
    special = SPECIAL_ISSUE_15.replace("2026-11-13T10:00:00", "2026-11-16T07:10:00")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-16T06:00:00+01:00")
    sample_cli("import", str(write_files({"issues/0014.yaml": SCHEDULED_ISSUE, "stories/s14.yaml": ISSUE_14_STORY})))
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-16T07:10:00+01:00")
    sample_cli("import", str(write_files({"issues/0015.yaml": special, "stories/s15.yaml": ISSUE_15_STORY})))
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-16T07:30:00+01:00")
    warning = (f"issue:14: warning: published, but never sent to the list: `send latest` sends the issue published "
               f"last, 15; `newsroom send 14 --to {listing}` (and this run's other options) sends this one")
    timer = sample_cli(*send)
    assert "issue 15: 1 sent" in timer.stdout
    assert timer.stderr.splitlines() == [warning], timer.stderr
    assert sample_cli(*send).stderr.splitlines() == [warning], "said on every run until it is sent"
    dry = sample_cli("send", "latest", "--to", str(listing), "--dry-run")
    assert dry.stderr.splitlines() == [warning]
    assert "issue 14: 1 sent" in sample_cli("send", "14", "--to", str(listing), "--smtp", server,
                                            "--base-url", BASE).stdout
    assert sample_cli(*send).stderr == ""
    assert [message["Subject"].rsplit(": ", 1)[-1] for _, message in mailbox.messages] == [
        "Trainium, TPU, GPU – a saját chipek hete", "Különszám", "Ütemezett"]


def test_the_rate_limit_spaces_messages_out():
    moments: list[float] = []
    clock = [100.0]
    limiter = RateLimiter(4, clock=lambda: clock[0], sleep=lambda seconds: clock.__setitem__(0, clock[0] + seconds))
    for _ in range(5):
        limiter.wait()
        moments.append(clock[0])
    assert moments == [100.0, 100.25, 100.5, 100.75, 101.0]


@pytest.fixture
def unsubscribe_server(sample_cli, smtp, subscribers):
    """The unsubscribe server on a free port, over a database whose subscribers got issue 12."""
    mailbox, server = smtp
    sample_cli("send", "12", "--to", str(subscribers), "--smtp", server, "--base-url", BASE, expect=1)
    engine = make_engine(sample_cli.db_url)
    from newsroom.settings import Settings
    import datetime as dt
    clock = lambda: dt.datetime(2026, 11, 12, 9, 0, tzinfo=dt.timezone.utc)  # noqa: E731
    httpd = make_unsubscribe_server(engine, Settings(base_url=BASE), clock, "127.0.0.1", 0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    links = {recipient: str(message["List-Unsubscribe"]).split(",")[0].strip(" <>") for recipient, message
             in mailbox.messages}
    local = {recipient: url.replace(f"{BASE}unsubscribe", f"http://127.0.0.1:{httpd.server_port}/unsubscribe")
             for recipient, url in links.items()}
    try:
        yield local, f"http://127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        engine.dispose()


def test_get_only_confirms_and_one_click_post_unsubscribes(sample_cli, smtp, subscribers, unsubscribe_server):
    links, root = unsubscribe_server
    mailbox, server = smtp
    with urllib.request.urlopen(links["bela@example.org"]) as response:  # a link scanner would do this
        assert response.status == 200
        page = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(response.read())
    assert page.get("lang") == "en"
    # A reader subscribed to several newsletters is told which one, in the page's language.
    assert _texts(page, "title", "h1") == ["News of the AI era · Unsubscribe", "Unsubscribe from News of the AI era?"]
    form = page.find(".//form")
    assert form.get("method") == "post" and form.find(".//button").text == "Unsubscribe"
    assert _scalar(sample_cli.db_url, "SELECT count(*) FROM unsubscribes") == 0
    with urllib.request.urlopen(links["anna@example.org"]) as response:
        assert response.status == 200
        page = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(response.read())
    assert page.get("lang") == "hu"
    assert _texts(page, "title", "h1") == ["Az MI-korszak hírei · Leiratkozás",
                                           "Leiratkozol erről a hírlevélről: Az MI-korszak hírei?"]
    request = urllib.request.Request(links["bela@example.org"], data=b"List-Unsubscribe=One-Click", method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request) as response:
        assert response.status == 200 and response.url == links["bela@example.org"]  # no redirect
        page = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(response.read())
    assert _texts(page, "title", "h1") == ["News of the AI era · You have unsubscribed",
                                           "You have unsubscribed from News of the AI era"]
    assert _scalar(sample_cli.db_url, "SELECT count(*) FROM unsubscribes WHERE method = 'one-click'") == 1
    with urllib.request.urlopen(urllib.request.Request(links["bela@example.org"], data=b"", method="POST")) as again:
        assert again.status == 200  # unsubscribing twice is harmless
    with pytest.raises(urllib.error.HTTPError) as unknown:
        urllib.request.urlopen(urllib.request.Request(f"{root}/unsubscribe?t={'0' * 32}", data=b"", method="POST"))
    assert unknown.value.code == 404
    with pytest.raises(urllib.error.HTTPError) as too_long:  # answered, not dropped with a traceback
        urllib.request.urlopen(f"{root}/unsubscribe?t={'0' * 70_000}")
    assert too_long.value.code == 414
    result = sample_cli("send", "13", "--to", str(subscribers), "--smtp", server, "--base-url", BASE, expect=1)
    assert "4 sent, 0 already sent, 1 unsubscribed" in result.stdout
    assert "bela@example.org" not in [r for r, m in mailbox.messages if "13" in m["Message-ID"]]


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.parametrize("host, shown", [
    ("127.0.0.1", "127.0.0.1"),
    # It said "cannot listen on ::1:8025: Address family for hostname not supported".
    pytest.param("::1", "[::1]", marks=pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback here"))])
def test_the_unsubscribe_server_command_serves_a_confirmation_page(sample_cli, host, shown):
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen([sys.executable, "-m", "newsroom", "--db", sample_cli.db_url, "unsubscribe-server",
                               "--host", host, "--port", "0"], cwd=ROOT, env=environment, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        announced = server.stdout.readline()
        assert announced, server.communicate(timeout=10)[1]
        url = re.search(rf"http://{re.escape(shown)}:\d+/", announced).group(0)
        with pytest.raises(urllib.error.HTTPError) as unknown:
            urllib.request.urlopen(f"{url}unsubscribe?t={'f' * 32}", timeout=10)
        assert unknown.value.code == 404
        page = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(unknown.value.read())
        assert _texts(page, "title", "h1") == ["Az MI-korszak hírei · Ismeretlen leiratkozási hivatkozás",
                                               "Ismeretlen leiratkozási hivatkozás"]
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_unsubscribe_server_on_every_address_names_this_machine(sample_cli):
    """On every address (`--host 0.0.0.0`) the unsubscribe server said it served at http://0.0.0.0:PORT/, which
    no browser of another machine opens; it names this machine, as the preview does, and serves there."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen([sys.executable, "-m", "newsroom", "--db", sample_cli.db_url, "unsubscribe-server",
                               "--host", "0.0.0.0", "--port", "0"], cwd=ROOT, env=environment,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        announced = server.stdout.readline()
        assert announced, server.communicate(timeout=10)[1]
        said = re.fullmatch(r"unsubscribe server on http://([^:/]+):(\d+)/ \(Ctrl\+C to stop\)\n", announced)
        assert said and said[1] in {socket.getfqdn(), socket.gethostname()}, announced
        with pytest.raises(urllib.error.HTTPError) as unknown:  # this very server, on every address
            urllib.request.urlopen(f"http://127.0.0.1:{said[2]}/unsubscribe?t={'f' * 32}", timeout=10)
        assert unknown.value.code == 404
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_an_address_longer_than_mail_servers_take_is_refused_at_its_line(sample_cli, smtp):
    """RFC 5321 limits an address to 254 characters and the part before its @ to 64: a longer one (the
    subscriber table holds 320) stopped `send` on a traceback on PostgreSQL. It is refused at its line, neither
    sent nor stored; the rest of the list is sent."""
    mailbox, server = smtp
    long_domain = ".".join(["d" * 63] * 5) + ".org"  # each label a valid one: more than the table's 320 in all
    listed = sample_cli.cwd / "long.csv"
    listed.write_text(f"email,lang\nanna@example.org,hu\nreader@{long_domain},hu\n{'l' * 65}@example.org,hu\n",
                      encoding="utf-8")
    result = sample_cli("send", "13", "--to", str(listed), "--smtp", server, "--base-url", BASE, expect=1)
    assert f"{listed}:3: email: 'reader@{'d' * 50}...': an address of 330 characters; one has at most 254 " \
           "(RFC 5321), correct it in the list; not sent" in result.stderr, result.stderr
    assert f"{listed}:4: email: '{'l' * 57}...': the part before the @ has 65 characters; it has at most 64 " \
           "(RFC 5321), correct it in the list; not sent" in result.stderr
    assert "Traceback" not in result.stderr
    assert mailbox.count() == Counter(["anna@example.org"])
    assert _scalar(sample_cli.db_url, "SELECT count(*) FROM subscribers") == 1


def test_an_issue_is_not_sent_while_the_method_page_is_a_draft(sample_cli, smtp, subscribers):
    """Every email's footer links to the Method page, which says how the newsletter is made: a draft one would
    be a link to nothing in every inbox."""
    mailbox, server = smtp
    # A published Method page is not made a draft by `edit` or a checked import: stored as a backup is restored.
    sample_cli("export", "out")
    method = sample_cli.cwd / "out/pages/method.yaml"
    method.write_text("draft: true\n" + method.read_text(encoding="utf-8"), encoding="utf-8")
    sample_cli("import", "--no-check", str(method))
    refused = sample_cli("send", "13", "--to", str(subscribers), "--smtp", server, "--base-url", BASE,
                         expect=1).stderr
    assert refused.startswith("page:method: draft: the Method page is a draft: every page's navigation and footer "
                              "and every email link to it"), refused
    assert mailbox.messages == [] and _scalar(sample_cli.db_url, "SELECT count(*) FROM subscribers") == 0
    sample_cli("edit", "page:method", "--set", "draft=false")
    sample_cli("send", "13", "--lang", "hu", "--to", str(subscribers), "--smtp", server, "--base-url", BASE,
               expect=1)  # three Hungarian subscribers mailed (the list has two invalid lines)
    assert len(mailbox.messages) == 3
