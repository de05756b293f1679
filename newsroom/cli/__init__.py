"""The `newsroom` command line: it parses arguments and calls the domain, nothing more."""

from __future__ import annotations

import atexit
import datetime as dt
import getpass
import importlib
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import wraps
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click
from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError, ProgrammingError
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from newsroom import settings as settings_module
from newsroom.db.base import EDITOR_LENGTH, SLUG_LENGTH
from newsroom.db.errors import (BadDatabaseURL, UnusableDatabase, cannot_connect, cannot_write, explain, refused_role,
                                shown)
from newsroom.db.migrate import SCHEMA_REVISION, current_revision, refuse_newer, upgrade_advice
from newsroom.db.session import (BUSY_TIMEOUT_MS, ENV_VAR, busy, database_url, make_engine, sqlite_path, transaction,
                                 writing, writing_if_free)
from newsroom.diagnostics import ContentError, Diagnostic, in_report_order
from newsroom.startup import imports

F = TypeVar("F", bound=Callable[..., Any])

#: Environment variable that fixes the clock (ISO 8601 with an offset), e.g. 2026-11-06T10:00:00+01:00.
NOW_ENV = "NEWSROOM_NOW"


@dataclass
class App:
    """What every command gets: the database URL, the settings and the clock."""

    db_url: str
    quiet: bool = False
    wait: float | None = None  # seconds a command waits for another's write (`--wait`); None: the default
    _engine: Engine | None = field(default=None, repr=False)

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            self._engine = make_engine(self.db_url, None if self.wait is None else round(self.wait * 1000))
        return self._engine

    @property
    def settings(self) -> settings_module.Settings:
        return settings_module.load()

    def now(self) -> dt.datetime:
        """The clock: the real time, or $NEWSROOM_NOW (ISO 8601 with an offset) for tests and replays. (Kept
        to the microsecond: which of two steps in one second came first matters, e.g. a subscriber listed
        after an issue went out; pages and feeds show times to the second.)"""
        fixed = os.environ.get(NOW_ENV)
        if not fixed:
            return dt.datetime.now(dt.timezone.utc)
        try:
            moment = dt.datetime.fromisoformat(fixed)
        except ValueError:
            raise click.ClickException(f"{NOW_ENV}={fixed!r}: expected an ISO 8601 time with an offset") from None
        if moment.tzinfo is None:
            raise click.ClickException(f"{NOW_ENV}={fixed!r}: the UTC offset is missing")
        return moment.astimezone(dt.timezone.utc)

    def today(self) -> dt.date:
        return self.now().astimezone(self.settings.zone).date()

    def require_schema(self) -> None:
        """Refuse to work on a database that `newsroom init` has not migrated; never create one."""
        engine = self.engine  # a URL that is none, or a driver not installed, is said first
        path = sqlite_path(self.db_url)
        if path is not None and not path.exists():  # connecting would leave an empty file behind
            raise click.ClickException(f"there is no database {Path.cwd() / path}: run `newsroom init` to create "
                                       f"it, or name the database with --db or ${ENV_VAR}")
        try:
            current = current_revision(engine)
        except (OperationalError, ProgrammingError) as error:  # the first question asked of the database
            if refused_role(error):
                raise  # it answered: a role without its rights, told with the grants it needs (see `explain`)
            raise cannot_connect(error, self.db_url) from None
        if current is None:
            raise click.ClickException(f"the database {shown(self.db_url)} is empty: run `newsroom init` first")
        if current != SCHEMA_REVISION:
            refuse_newer(engine, current)
            raise click.ClickException(f"the database {shown(self.db_url)} is at schema {current}, this version needs "
                                       f"{SCHEMA_REVISION}: {upgrade_advice(self.db_url, current)}")

    def open_content(self) -> None:
        """What every command that reads the content does first: refuse a database `newsroom init` has not
        migrated, then record each scheduled issue whose time has come as published (see issues.schedule).

        That is a transaction of its own, committed before the command reads: two commands doing it at
        once are no error (the second finds the issue published, or its change collides with the first's
        and is dropped), nor is a database another command is writing to (it is left to the next command;
        one that changes the content does it in its own transaction, see `transaction`, and on PostgreSQL
        this one then leaves it to that one: `writing_if_free`), nor one that may only be read (a command
        that reads it works; one that writes says it cannot)."""
        self.require_schema()
        try:
            with transaction(self.engine) as session:
                if not writing_if_free(session):  # a command changing the content records it in turn
                    return
                published = self._publish_due(session)
        except (StaleDataError, IntegrityError):
            return
        except DBAPIError as error:
            # A database that may only be read (a PostgreSQL standby, say): what has come due is public all
            # the same (issues.visibility); the next command that may write records it.
            if not (isinstance(error, OperationalError) and busy(error)) and not cannot_write(error):
                raise
            return
        self._said_published(published)

    def _publish_due(self, session: Session) -> list[int]:
        from issues.schedule import publish_due  # the ORM's models: not every command's imports (`--help`)
        return publish_due(session, self.now(), self.settings.languages)

    def _said_published(self, numbers: list[int]) -> None:
        from issues.schedule import recorded
        for number in numbers:
            if not self.quiet:
                click.echo(recorded(number), err=True)

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """The one transaction of a command that changes the content: one such command at a time (see
        newsroom.db.session.writing), which first records the scheduled issues whose time has come as
        published, so that it changes them as published issues."""
        self.require_schema()
        with writing(self.engine) as session:
            published = self._publish_due(session)
            yield session
        self._said_published(published)

    @contextmanager
    def reading(self) -> Iterator[Session]:
        """The transaction of a command that only reads the content."""
        self.open_content()
        with transaction(self.engine) as session:
            yield session

    def close(self) -> None:
        """Release connections (SQLite checkpoints its WAL when the last one closes)."""
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    def say(self, message: str) -> None:
        if not self.quiet:
            click.echo(message)


def starter_slug(slug: str, example: str) -> None:
    """Refuse a malformed slug for a new starter file (`glossary new`, `reference new`)."""
    from newsroom.content.schema import SLUG_RE  # (only these commands need it)

    if not SLUG_RE.match(slug):
        raise click.BadParameter(f"lowercase letters, digits and hyphens, e.g. {example}", param_hint="SLUG")
    if len(slug) > SLUG_LENGTH:
        raise click.BadParameter(f"{len(slug)} characters long: a slug has at most {SLUG_LENGTH}", param_hint="SLUG")


def slug_stored(what: str, slug: str, version: int, key: str) -> click.ClickException:
    """The refusal of a starter for a slug a stored record has (`what`: "an entry", "a reference page"):
    the starter imported over it would replace every field."""
    return click.ClickException(f"there is {what} {slug!r} already (version {version}): change it with "
                                f"`newsroom edit {key}`, or `newsroom export` its file; or choose another slug")


def write_starter(app: App, path: Path, text: str, then: str) -> None:
    """Write a new content file for an editor to fill in (`glossary new`, `reference new`), never over one
    already there, and say what to do next (`then`, after the path)."""
    if path.exists():
        raise click.ClickException(f"{path} exists already; choose another --out")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    app.say(f"{path}: {then}")


def report(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Print `diagnostics` on stderr in the one order every command uses (see diagnostics.in_report_order), each
    once; returns those printed, which are what a count after them counts."""
    said = in_report_order(diagnostics)
    for diagnostic in said:
        click.echo(str(diagnostic), err=True)
    return said


def report_warnings(warnings: list[Diagnostic], where: str) -> None:
    """The warnings of the records a command stored, as `check` prints them, then how many were printed and
    `where` ("in what was imported"); with --quiet too, which keeps problems."""
    if warnings:
        said = len(report(warnings))
        click.echo(f"{said} warning{'s' if said != 1 else ''} {where}", err=True)


def content_errors(func: F) -> F:
    """Turn a ContentError into its diagnostics on stderr and exit status 1, never a traceback."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except ContentError as error:
            said = report(error.diagnostics)
            if error.advice:
                click.echo(error.advice, err=True)
            errors = sum(1 for d in said if d.severity == "error")
            click.echo(f"{errors} error{'s' if errors != 1 else ''}; nothing was changed", err=True)
            sys.exit(1)
        except StaleDataError:
            # Optimistic locking: another editor saved the same record between our read and our write.
            click.echo("another editor saved this record while you were editing it; nothing was changed: "
                       "look at it again (`newsroom history KEY`) and repeat your edit", err=True)
            sys.exit(1)
        except OperationalError as error:
            if not busy(error):
                raise
            # Another command held the database past the wait, or overtook this one's snapshot (SQLite).
            click.echo("another command (an import, an edit, a build) was writing to the database; nothing "
                       "was stored: run this one again (`newsroom --wait 60 …` waits up to a minute for it)",
                       err=True)
            sys.exit(1)
        except BrokenPipeError:
            raise  # the reader of our output is gone (`| head`): click ends quietly, as other tools do
        except OSError as error:
            # A folder or file the command cannot make or write: a path through a file, no permission, a
            # full disk. Each write is atomic (a build's new tree, an export's or an email's files).
            where = f"{error.filename}: " if error.filename else ""
            click.echo(f"{where}{error.strerror or error}: the command stopped", err=True)
            sys.exit(1)

    return wrapper  # type: ignore[return-value]


pass_app = click.make_pass_decorator(App)

#: Who makes a change, when --editor does not say (else the OS user).
EDITOR_ENV = "NEWSROOM_EDITOR"
WAIT_ENV = "NEWSROOM_WAIT"
#: How many render workers a build forks, when --jobs does not say (else one per core it may use).
JOBS_ENV = "NEWSROOM_JOBS"


def default_editor() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name in some containers
        return "unknown"


def editor_name(_ctx: click.Context, _param: click.Parameter, name: str) -> str:
    """An editor's name as given (--editor, $NEWSROOM_EDITOR), refused when longer than the history records:
    PostgreSQL stopped the command on a traceback when it came to store it."""
    if len(name) > EDITOR_LENGTH:
        raise click.BadParameter(f"a name of {len(name)} characters: the history records at most {EDITOR_LENGTH}")
    return name


def editor_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """--editor: who is recorded as making the change."""
    return click.option("--editor", envvar=EDITOR_ENV, default=default_editor, show_default="the OS user",
                        callback=editor_name, help=f"Who makes the change (or ${EDITOR_ENV}).")(func)


def render_jobs(_ctx: click.Context, _param: click.Parameter, jobs: str | None) -> int | None:
    """--jobs, else $NEWSROOM_JOBS (read here, so that an error names it): a whole number of render workers, 1 or
    more; None when neither says."""
    given = "--jobs"
    if jobs is None:
        jobs, given = os.environ.get(JOBS_ENV) or None, f"${JOBS_ENV}"
        if jobs is None:
            return None
    try:
        count = int(jobs)
    except ValueError:
        count = 0
    if count < 1:
        raise click.BadParameter(f"{jobs!r} is no number of render workers: give a whole number, 1 or more (1 "
                                 "renders in the command's own process)", param_hint=given)
    return count


def jobs_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """--jobs: how many render workers a build forks (see rendering.run_all)."""
    return click.option("--jobs", "-j", metavar="N", callback=render_jobs,
                        help=f"Render in N worker processes (default: one per core this process may use; 1: in "
                             f"its own process; or ${JOBS_ENV}).")(func)


def reason_lang_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """--reason-lang: the language --reason is written in (every language's issue page shows it)."""
    return click.option("--reason-lang", metavar="LANG", help="The language --reason is written in (default: the "
                        "site's first); the issue pages of the other languages mark it so.")(func)


def reason_language(app: App, reason_lang: str | None) -> str:
    """The language a change's reason is written in: `--reason-lang`, one of the site's languages, else the
    site's first (the one editors write in first)."""
    languages = app.settings.languages
    if reason_lang is None:
        return languages[0]
    if reason_lang not in languages:
        raise click.BadParameter(f"{reason_lang!r} is not a language of the site: give the one the --reason is "
                                 f"written in, one of {', '.join(languages)}", param_hint="--reason-lang")
    return reason_lang


def reason_label(reason: str, reason_lang: str | None, languages: tuple[str, ...]) -> str:
    """A change's reason as listings print it: `[en] …` when it is written in another language than the site's
    first (the default of --reason-lang), as the issue pages of the other languages mark it."""
    return f"[{reason_lang}] {reason}" if reason_lang and reason_lang != languages[0] else reason


def editor_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--editor, --correction, --reason and --reason-lang, shared by the commands that change issues, stories and
    records."""
    func = reason_lang_option(func)
    func = click.option("--reason", help="Why: shown with a correction, which needs one.")(func)
    func = click.option("--correction", is_flag=True, help="Allow changing a published issue (recorded, with "
                        "--reason).")(func)
    return editor_option(func)


#: Which module holds each command. A command's module is imported when the command runs (or a
#: help lists it): `newsroom build` does not load the code of export, mail or the preview server.
COMMAND_MODULES = {
    "init": "content", "import": "content", "export": "content", "check": "content",
    "build": "build",
    "edit": "edit", "delete": "edit", "rename": "edit", "history": "edit",
    "glossary": "glossary",
    "reference": "reference",
    "issue": "issue", "story": "story",
    "email": "mail", "send": "mail", "unsubscribe-server": "mail",
    "serve": "serve",
}


class _Commands(click.Group):
    """The command group, its commands imported on first use (see COMMAND_MODULES); a database it is
    pointed at that cannot be used as it is becomes a message (see newsroom.db.errors)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BadDatabaseURL as error:
            raise click.ClickException(f"{_named_url(ctx)}: {error}") from None
        except UnusableDatabase as error:
            raise click.ClickException(str(error)) from None
        except DBAPIError as error:
            message = explain(error, ctx.obj.db_url) if isinstance(ctx.obj, App) else None
            if message is None:
                raise  # no mistake of the editor's: a bug to see whole
            raise click.ClickException(message) from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMAND_MODULES)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMAND_MODULES.get(cmd_name)
        if module is None:
            return None
        with imports():
            commands = importlib.import_module(f"newsroom.cli.{module}").COMMANDS
        return next(command for command in commands if command.name == cmd_name)


def _named_url(ctx: click.Context) -> str:
    """The database URL as the editor gave it: `--db URL` or `$NEWSROOM_DB=URL`."""
    url = shown(ctx.obj.db_url)
    if ctx.get_parameter_source("db_url") == click.core.ParameterSource.ENVIRONMENT:
        return f"${ENV_VAR}={url}"
    return f"--db {url}"


@click.group(cls=_Commands)
@click.option("--db", "db_url", envvar="NEWSROOM_DB", help="SQLAlchemy database URL (default: sqlite:///newsroom.db).")
@click.option("--quiet", "-q", is_flag=True, help="Print only problems.")
@click.option("--wait", envvar=WAIT_ENV, type=click.FloatRange(min=0), metavar="SECONDS",
              help=f"How long a command waits for another one's change to the database before it gives up "
                   f"(default {BUSY_TIMEOUT_MS // 1000}; or ${WAIT_ENV}).")
@click.version_option(package_name="newsroom")
@click.pass_context
def main(ctx: click.Context, db_url: str | None, quiet: bool, wait: float | None) -> None:
    """Publish a bilingual weekly newsletter, its glossary and reference pages."""
    ctx.obj = App(database_url(db_url), quiet, wait)
    ctx.call_on_close(ctx.obj.close)


def run() -> NoReturn:
    """The `newsroom` program (its console script and `python -m newsroom`): `main`, then `exit_now`."""
    try:
        main()
    except SystemExit as done:
        exit_now(done.code)
    exit_now(0)


def exit_now(code: object = 0) -> NoReturn:
    """End the process as `sys.exit(code)` does, but without the interpreter freeing its objects one
    by one: after a build that held a few hundred MiB of records and pages, that alone took 0.2 s.

    What an exit must still do is done: the `atexit` functions run (temporary folders, logging) and
    output is flushed. While a thread of our own is still at work (not a daemon), the usual exit
    waits for it instead.
    """
    status = 0 if code is None else code if isinstance(code, int) else 1
    if not isinstance(code, (int, type(None))):
        print(code, file=sys.stderr)  # as sys.exit prints a message it is given
    if any(thread.is_alive() and not thread.daemon for thread in threading.enumerate()
           if thread is not threading.main_thread()):
        sys.exit(status)
    atexit._run_exitfuncs()  # what the interpreter runs at exit (CPython's, unchanged since 3.0)
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # no console at all (pythonw)
            continue
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed stream or a reader gone: nothing more can be said there
            pass
    os._exit(status)
