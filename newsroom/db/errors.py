"""A database URL, or a database, this engine cannot work with, said so that an editor can act on it.

These are mistakes of where a command is pointed, not bugs: the command line turns them into a message
(see newsroom.cli) and lets every other error surface whole.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError

#: What a database URL looks like, for the messages.
URL_EXAMPLES = "sqlite:///newsroom.db (a file in this folder) or postgresql+psycopg://user@host/db"
#: The packages that install the drivers SQLAlchemy uses unless a URL names another (`mysql://` …).
DRIVER_PACKAGES = {"MySQLdb": "mysqlclient", "pymysql": "PyMySQL", "oracledb": "oracledb", "pyodbc": "pyodbc"}

#: SQLite's primary result codes (an extended code holds one in its low byte).
SQLITE_READONLY = 8
SQLITE_NOTADB = 26
#: PostgreSQL's SQLSTATE for a write in a read-only transaction (a standby, default_transaction_read_only).
READ_ONLY_SQL_TRANSACTION = "25006"
#: PostgreSQL's SQLSTATE for a role refused what it asked (no CREATE on the schema, no rights on a table).
INSUFFICIENT_PRIVILEGE = "42501"


class UnusableDatabase(Exception):
    """A database this version cannot work with; the message names it, says why and what to do."""


class BadDatabaseURL(UnusableDatabase):
    """A URL that names no database this installation can open; the message says why, and the caller
    names where the URL came from (an option, an environment variable)."""


def shown(url: str | URL) -> str:
    """`url` as a message shows it: as given, but never with its password."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        return str(url)
    if parsed.password is None:
        return str(url) if isinstance(url, str) else parsed.render_as_string()
    return parsed.render_as_string(hide_password=True)


def keep_a_copy(url: str, revision: str) -> str:
    """How to keep a copy of the database of `url`, at schema `revision`, to go back to before `newsroom init`
    upgrades it (`export` reads only the schema this version needs): SQLite's backup of a file `init` copies not
    itself (see migrate.upgrade_advice: a URL with `?uri=true`), PostgreSQL's
    pg_dump (the URL without its driver or password: pg_dump asks for that, or reads it from ~/.pgpass); the
    backup tool of another database."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database and not parsed.database.startswith(("file:", ":")):
        file = Path(parsed.database)
        copy = file.with_name(f"{file.stem}-{revision}{file.suffix}")
        return (f"`sqlite3 {shlex.quote(str(file))} \".backup {shlex.quote(str(copy))}\"` (without sqlite3: copy "
                f"{file.name}, and {file.name}-wal if there is one, while no newsroom command runs)")
    if parsed.get_backend_name() == "postgresql":
        plain = URL.create("postgresql", parsed.username, None, parsed.host, parsed.port, parsed.database, parsed.query)
        dump = f"{parsed.database or 'newsroom'}-{revision}.dump"
        return f"`pg_dump --format=custom --file={shlex.quote(dump)} {shlex.quote(plain.render_as_string(False))}`"
    return "your database's own backup"


def parse(url: str) -> URL:
    """`url` parsed; BadDatabaseURL when it is no URL."""
    try:
        return make_url(url)
    except (ArgumentError, ValueError):  # ValueError: a port that is no number
        raise BadDatabaseURL(f"not a database URL: expected one such as {URL_EXAMPLES}") from None


def cannot_connect(error: DBAPIError, url: str) -> BadDatabaseURL:
    """The database of `url` did not answer a command's first question (no server there, a login refused, no
    such database): what the driver said, and what to change, for the caller to name where the URL came from.

    libpq's own words ("connection failed: ... FATAL: database "news" does not exist") said what went wrong
    but not that the URL was the thing to mend, nor how; and the message showed the URL's password."""
    said = str(error.orig).strip()
    first_line = said.splitlines()[0] if said else type(error.orig).__name__
    return BadDatabaseURL(f"cannot connect to the database: {first_line}{_connection_fix(said, make_url(url))}")


#: What libpq says when the server is not where the URL says, or does not answer there.
_UNREACHABLE = re.compile(r"refused|resolve host|translate host name|timeout expired|timed out|no route to host|"
                          r"network is unreachable|no such file or directory", re.IGNORECASE)


def _connection_fix(said: str, url: URL) -> str:
    """What to change when a PostgreSQL server refused a connection in the words `said` (or SQLite could not
    open its file); "" for words not foreseen (the driver's say it all)."""
    if url.get_backend_name() == "sqlite" and "unable to open" in said and url.database:
        folder = os.path.dirname(os.path.abspath(url.database))
        if os.path.isdir(folder):
            return ""
        existing = folder
        while not os.path.exists(existing) and os.path.dirname(existing) != existing:
            existing = os.path.dirname(existing)
        if not os.path.isdir(existing):
            return f"; {existing} is a file, not a folder: name a database file elsewhere"
        return f"; the folder {folder} does not exist, and SQLite makes no folder: make it, or name a file elsewhere"
    if url.get_backend_name() != "postgresql":
        return ""
    if re.search(r'database "[^"]*" does not exist', said):
        host = f" -h {url.host}" if url.host else ""
        user = f" -U {url.username}" if url.username else ""
        return (f"; create it (`createdb{host}{user} {url.database}`, by whoever runs the server), then run "
                "`newsroom init`; or name the database that exists in the URL")
    if re.search(r'password|authentication|role "[^"]*" does not exist', said):
        return ("; check the user name in the URL and its password: give the password in ~/.pgpass or "
                "$PGPASSWORD, not in the URL")
    if "timeout expired" in said:
        return ("; the server did not answer within the connect timeout (`?connect_timeout=SECONDS` in the URL "
                "sets it): check the host and port in the URL, and that the PostgreSQL server there is running "
                "and reachable from here (a firewall or a VPN in between)")
    if _UNREACHABLE.search(said):
        return "; check the host and port in the URL, and that the PostgreSQL server there is running"
    return ""


def unknown_kind(url: URL) -> BadDatabaseURL:
    """`url` names a kind of database (a dialect and driver) SQLAlchemy does not know."""
    return BadDatabaseURL(f"no kind of database is called {url.drivername!r}: expected a URL such as {URL_EXAMPLES}")


def missing_driver(url: URL, error: ImportError) -> BadDatabaseURL:
    """The driver of `url` cannot be imported: which one, and how to install it."""
    module = error.name or str(error)
    missing = f"its driver, the Python module {module}, is not installed"
    if url.get_backend_name() == "postgresql" and url.get_driver_name() != "psycopg":
        return BadDatabaseURL(f"{missing}: name psycopg 3, the driver installed with newsroom: "
                              f"{shown(url.set(drivername='postgresql+psycopg'))}")
    fix = f"pip install {DRIVER_PACKAGES[module]}" if module in DRIVER_PACKAGES else "install the package with it"
    return BadDatabaseURL(f"{missing} ({fix}); newsroom is tested on SQLite and PostgreSQL, e.g. "
                          f"sqlite:///newsroom.db or postgresql+psycopg://user@host/db")


def cannot_write(error: DBAPIError) -> bool:
    """Whether `error` says the database may be read but not written (a read-only file or connection, a
    standby or read-only transaction of PostgreSQL)."""
    code = getattr(error.orig, "sqlite_errorcode", None)
    return (code is not None and code & 0xFF == SQLITE_READONLY) or \
        getattr(error.orig, "sqlstate", None) == READ_ONLY_SQL_TRANSACTION


def explain(error: DBAPIError, url: str) -> str | None:
    """What an editor should know of `error`, raised by the database `url`, when it says the database cannot
    be used as it is (a file that is no SQLite database, a database that cannot be written); None for any
    other error, which is no mistake of the editor's."""
    code = getattr(error.orig, "sqlite_errorcode", None)
    primary = None if code is None else code & 0xFF
    if primary == SQLITE_NOTADB:
        return (f"{make_url(url).database or shown(url)} is not a SQLite database: SQLite says \"{error.orig}\"; "
                f"name the database file, or a new one for `newsroom init` to make, with --db or $NEWSROOM_DB")
    if primary == SQLITE_READONLY:
        return (f"the database {shown(url)} cannot be written ({error.orig}): nothing was stored in it; make "
                f"the file writable, and the folder it is in (SQLite keeps its -wal and -shm files beside it)")
    if cannot_write(error):
        first_line = str(error.orig).splitlines()[0]
        return (f"the database {shown(url)} cannot be written ({first_line}): nothing was stored in it; "
                f"connect to its primary server, with a role that may write to it")
    if refused_role(error):
        return _what_to_grant(error, make_url(url))
    return None


def refused_role(error: DBAPIError) -> bool:
    """Whether PostgreSQL refused the role of the URL what the command asked (a mistake of the server's
    set-up, not a database that does not answer)."""
    return getattr(error.orig, "sqlstate", None) == INSUFFICIENT_PRIVILEGE


def _what_to_grant(error: DBAPIError, url: URL) -> str:
    """The grants a team's database needs for the role of `url`, which PostgreSQL refused.

    A colleague's role followed the README's set-up (the database made by an admin, `newsroom init` run by
    an editor) into a traceback: PostgreSQL 15 and later let only the database's owner create tables in
    its `public` schema, and the tables `init` made belong to the role that ran it."""
    first_line = str(error.orig).splitlines()[0]
    role = url.username or "the role you connect as"
    return (f"the database {shown(url)} refused the role {role} ({first_line}): nothing was stored in it; "
            f"whoever runs the server grants it what newsroom needs: to run `newsroom init` on a new database, "
            f"GRANT CREATE ON SCHEMA public TO {role} (PostgreSQL 15 and later give it to the database's owner "
            f"alone; an upgrade needs the role that owns the tables); to work on the tables another role's "
            f"`init` made, GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role} and "
            f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {role}; "
            f"or every editor connects as the role that ran `newsroom init`")
