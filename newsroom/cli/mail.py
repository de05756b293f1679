"""Email commands: write an issue's email files, send them to a list, serve unsubscribes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from issues.visibility import publication_time
from newsroom import write_whole
from newsroom.build.derived import Derived, derive
from newsroom.build.model import Content, load_content
from newsroom.cli import App, content_errors, pass_app, report
from newsroom.db.session import session_factory
from newsroom.diagnostics import ContentError, Diagnostic
from newsroom.mail.send import (PASSWORD_ENV, PASSWORD_FILE_ENV, SECURITY_MODES, SMTP_USER_ENV, RateLimiter,
                                SendReport, SmtpServer, SmtpUnavailable, connect, never_sent, parse_rate, plan_issue,
                                send_issue, sending_problems)
from newsroom.drafts import method_draft_problems, without_drafts
from newsroom.listening import netloc, reachable
from newsroom.mail.subscribers import read_subscriber_file
from newsroom.mail.unsubscribe import make_unsubscribe_server
from newsroom.public_address import AddressUse, public_address_problems
from newsroom.render.email import prepare_email, render_email
from newsroom.settings import Settings


def _content(app: App, settings: Settings, drafts: bool) -> tuple[Content, Derived]:
    """Everything stored, and what the build derives from it on the command's clock (draft issues only for a
    preview). Never a draft entry, reference page or site page: an email's links lead to the public site,
    whose Method page its footer links to (a draft one is refused but in a preview)."""
    app.open_content()
    with session_factory(app.engine)() as session:
        stored = load_content(session)
    unpublished = [] if drafts else method_draft_problems(stored)
    if unpublished:
        raise ContentError(unpublished)
    content = without_drafts(stored)
    return content, derive(content, settings, drafts, app.now())


#: What `send` and `email` take for the latest issue: the one published last, as the build's home page and
#: email folder have it (see issues.visibility).
LATEST = "latest"


class IssueNumber(click.ParamType):
    """An issue's number, or `latest`: the issue published last (for a timer that builds and sends)."""

    name = "NUMBER|latest"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> int | str:
        if isinstance(value, int):
            return value
        if value == LATEST:
            return LATEST
        try:
            return int(str(value))
        except ValueError:
            self.fail(f"expected an issue number or {LATEST}, got {value!r}", param, ctx)


def _number(derived: Derived, wanted: int | str) -> int:
    """The issue `wanted` names: itself, or for `latest` the public issue published last (the higher number
    at the same time), the build's latest issue."""
    if wanted != LATEST:
        return int(wanted)
    if not derived.public_issues:
        raise click.ClickException("no issue is published yet, so there is no latest one")
    return derived.public_issues[0]


def _published_in(settings: Settings, languages: tuple[str, ...]) -> None:
    """Refuse a --lang the site does not publish in (before anything is read or rendered)."""
    for lang in languages:
        if lang not in settings.languages:
            raise click.BadParameter(f"{lang!r}: the site publishes in {', '.join(settings.languages)} "
                                     f"(`languages` in newsroom.toml)", param_hint="--lang")


@click.command("email")
@click.argument("wanted", metavar="NUMBER|latest", type=IssueNumber())
@click.option("--lang", required=True, help="Language of the email (hu, en).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("_email"), show_default=True)
@click.option("--base-url", help="Absolute URL the site is served from (for every link).")
@click.option("--draft", is_flag=True, help="Allow an issue that is not published yet (a preview; never sent).")
@pass_app
@content_errors
def email_command(app: App, wanted: int | str, lang: str, out: Path, base_url: str | None, draft: bool) -> None:
    """Write issue NUMBER's email (`latest`: the issue published last) as OUT/LANG/issue-NUMBER.html,
    .txt and .eml."""
    settings = app.settings.replace(base_url=base_url)
    _published_in(settings, (lang,))
    content, derived = _content(app, settings, draft)
    number = _number(derived, wanted)
    made = render_email(content, derived, settings, lang, number, draft=draft)
    for relative, data in made.files():
        write_whole(out / relative, data)  # a reader never sees half an email
        app.say(str(out / relative))
    if not draft:  # a preview is for the editors, at whatever address they preview the site
        report(public_address_problems(settings, ("base_url",) if base_url else (), uses=AddressUse(
            "every link of this email leads to", "base_url (or --base-url)", "before mailing it (`send` refuses it)")))


@click.command()
@click.argument("wanted", metavar="NUMBER|latest", type=IssueNumber())
@click.option("--to", "subscriber_file", required=True, type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="CSV with a header row email,lang (lang may be empty: the default language).")
@click.option("--smtp", metavar="HOST:PORT",
              help="SMTP server, e.g. smtp.example.org:587 (a provider's submission port) or 127.0.0.1:25.")
@click.option("--smtp-security", type=click.Choice(SECURITY_MODES), default="auto", show_default=True,
              help="auto: TLS from the first byte on port 465, else STARTTLS where the server offers it; starttls: "
                   "require it; tls: TLS from the first byte on any port; none: never (a relay on this machine). "
                   "Certificates are verified against the system's authorities (or the bundle $SSL_CERT_FILE names).")
@click.option("--smtp-user", envvar=SMTP_USER_ENV, metavar="NAME",
              help=f"Log in as NAME (or ${SMTP_USER_ENV}), with the password from ${PASSWORD_ENV} (or the file "
                   f"${PASSWORD_FILE_ENV} names); only over an encrypted connection.")
@click.option("--lang", "languages", multiple=True,
              help="Only subscribers of this language (repeatable); default: everyone, each in their language.")
@click.option("--rate", default=None, metavar="N/s", help="At most N messages a second, e.g. 10/s.")
@click.option("--base-url", help="Absolute URL the site is served from (for every link).")
@click.option("--dry-run", is_flag=True,
              help="Check the list and say whom this run would send to, without a server; nothing is stored.")
@pass_app
@content_errors
def send(app: App, wanted: int | str, subscriber_file: Path, smtp: str | None, smtp_security: str,
         smtp_user: str | None, languages: tuple[str, ...], rate: str | None, base_url: str | None,
         dry_run: bool) -> None:
    """Send issue NUMBER (`latest`: the issue published last) to every subscriber who has not received
    it yet; safe to rerun, so a timer may run `newsroom send latest` after each build.

    `latest` sends the issue to the list as it was when the issue went out: a subscriber first listed after
    that gets the next issue, not this one (`send NUMBER` sends it to them too)."""
    settings = app.settings.replace(base_url=base_url)
    if smtp is None and not dry_run:
        raise click.UsageError("--smtp is required (or --dry-run)")
    server = _smtp_server(smtp, smtp_security, smtp_user) if smtp is not None else None
    try:
        per_second = parse_rate(rate) if rate else None
    except ValueError:
        raise click.BadParameter("expected a positive number of messages a second, e.g. 10/s",
                                 param_hint="--rate") from None
    _published_in(settings, languages)
    unfit = sending_problems(settings, given=("base_url",) if base_url else ())
    if unfit:
        raise ContentError(unfit)
    content, derived = _content(app, settings, False)
    number = _number(derived, wanted)
    emails = {lang: prepare_email(content, derived, settings, lang, number, personal=True)
              for lang in languages or settings.languages}
    listed, problems = read_subscriber_file(subscriber_file, settings.languages)
    if any(p.severity == "error" and p.line is None for p in problems):
        raise ContentError(problems)
    if wanted == LATEST:
        problems += _passed_over(app, settings, content, derived, number, subscriber_file)
    if dry_run:
        planned = plan_issue(app.engine, settings, number, set(emails), listed, app.now(),
                             newcomers=wanted != LATEST)
        _summary(app, subscriber_file, number, planned, problems, dry_run=True)
        return
    assert server is not None
    try:
        session = connect(server)
    except SmtpUnavailable as error:
        raise click.ClickException(f"{error}; nothing was sent") from None
    try:
        result = send_issue(app.engine, settings, emails, listed, session, app.now,
                            limiter=RateLimiter(per_second), newcomers=wanted != LATEST)
    except SmtpUnavailable as error:
        raise click.ClickException(str(error)) from None
    finally:
        try:
            session.quit()
        except Exception:  # noqa: BLE001 - the server may already be gone; nothing to save
            pass
    _summary(app, subscriber_file, number, result, problems)


def _passed_over(app: App, settings: Settings, content: Content, derived: Derived, number: int,
                 subscriber_file: Path) -> list[Diagnostic]:
    """A warning for each published issue `send latest` has passed over (see mail.send.never_sent): it sends
    the issue published last, and an earlier one that never went out is said, with the command that sends it."""
    published = {n: publication_time(content.issues[n], settings.zone) for n in derived.public_issues
                 if content.issues[n].data["status"] == "published"}
    return [Diagnostic(f"issue:{missed}", None, "", f"published, but never sent to the list: `send latest` sends "
                       f"the issue published last, {number}; `newsroom send {missed} --to {subscriber_file}` (and "
                       "this run's other options) sends this one", "warning")
            for missed in never_sent(app.engine, published, number)]


def _smtp_server(smtp: str, security: str, user: str | None) -> SmtpServer:
    host, _, port = smtp.rpartition(":")
    if not host or not port.isdigit():
        raise click.BadParameter("expected HOST:PORT", param_hint="--smtp")
    password = _password() if user else None
    if user and password is None:
        raise click.UsageError(f"--smtp-user needs the password in the environment variable {PASSWORD_ENV}, or "
                               f"in a file {PASSWORD_FILE_ENV} names (never on the command line, where other users "
                               "of the machine can read it)")
    return SmtpServer(host.strip("[]"), int(port), security, user or None, password)


def _password() -> str | None:
    """The SMTP password from the environment, or from the file it names; its final line break is not
    part of it."""
    given, file = os.environ.get(PASSWORD_ENV), os.environ.get(PASSWORD_FILE_ENV)
    if given is not None and file:
        raise click.UsageError(f"give the password in {PASSWORD_ENV} or in a file {PASSWORD_FILE_ENV} names, "
                               "not both")
    if not file:
        return given
    try:
        return Path(file).read_text(encoding="utf-8").removesuffix("\n").removesuffix("\r")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise click.UsageError(f"{PASSWORD_FILE_ENV} names {file}, which cannot be read: {reason}") from None


def _summary(app: App, subscriber_file: Path, number: int, result: SendReport, problems: list[Diagnostic],
             dry_run: bool = False) -> None:
    """The list's problems, each refusal, then one line of counts; exit 1 if any address was not taken."""
    report(problems)
    for failure in result.failed:
        click.echo(f"{subscriber_file}: {failure}", err=True)
    later = (f", {result.joined_later} subscribed after it went out (`newsroom send {number}` sends it to them)"
             if result.joined_later else "")
    counts = f"would send {result.sent}" if dry_run else f"{result.sent} sent"
    aside = " (a dry run: nothing was sent or stored)" if dry_run else ""
    app.say(f"issue {number}: {counts}, {result.already_sent} already sent, "
            f"{result.unsubscribed} unsubscribed, {result.other_language} in another language{later}, "
            f"{len(result.failed)} refused, {sum(p.severity == 'error' for p in problems)} invalid lines{aside}")
    if result.failed or any(p.severity == "error" for p in problems):
        sys.exit(1)


@click.command("unsubscribe-server")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8025, type=click.IntRange(0, 65535), show_default=True)
@pass_app
@content_errors
def unsubscribe_server(app: App, host: str, port: int) -> None:
    """Serve the unsubscribe links: one-click POST (RFC 8058) and a confirmation page for GET."""
    app.require_schema()
    try:
        server = make_unsubscribe_server(app.engine, app.settings, app.now, host, port)
    except OSError as error:
        raise click.ClickException(f"cannot listen on {netloc(host, port)}: {error.strerror or error}") from None
    # On every address (0.0.0.0, ::) it names this machine, as the preview does: a browser elsewhere opens that.
    app.say(f"unsubscribe server on http://{netloc(reachable(host), server.server_port)}/ (Ctrl+C to stop)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


COMMANDS = [email_command, send, unsubscribe_server]
