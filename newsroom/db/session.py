"""Engines and sessions for any SQLAlchemy URL; SQLite gets foreign keys and WAL."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError, NoSuchModuleError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from newsroom.db.errors import missing_driver, parse, unknown_kind

DEFAULT_URL = "sqlite:///newsroom.db"
ENV_VAR = "NEWSROOM_DB"


def database_url(explicit: str | None = None) -> str:
    """The URL to use: the explicit one, else $NEWSROOM_DB, else ./newsroom.db."""
    return explicit or os.environ.get(ENV_VAR) or DEFAULT_URL


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite database URL; None for another database, an in-memory one or a `file:` URI
    (SQLite creates a missing file when it first connects)."""
    parsed = make_url(url)
    database = parsed.database
    if parsed.get_backend_name() != "sqlite" or not database or database == ":memory:" \
            or database.startswith("file:") or parsed.query.get("uri"):
        return None
    return Path(database)


#: SQLite copies the pages its WAL holds into the database file when a commit leaves more than this many
#: there (its default, 1,000 pages of 4 KiB, is less than a one-edit build writes: every build's commit
#: paid for the copy and its fsync). A build copies what the WAL holds while it works (`WalCopy`).
WAL_AUTOCHECKPOINT = 8192
#: The WAL file is cut back to this size once copied (SQLite keeps it at its largest otherwise: a full
#: build's state, some 100 MB).
JOURNAL_SIZE_LIMIT = 32 * 1024 * 1024


#: How long a command waits for another one's write to finish before it gives up (SQLite).
BUSY_TIMEOUT_MS = 5000
#: How long a build waits to store its state: its files are in place by then, and giving up would leave
#: them without their record (an import of thousands of files holds the database for longer than
#: `BUSY_TIMEOUT_MS`).
STATE_BUSY_TIMEOUT_MS = 300_000


#: The engine's execution option holding how long its commands wait for another's write (`make_engine`).
WAIT_OPTION = "newsroom_wait_ms"


def _sqlite_pragmas(wait_ms: int) -> Callable[[Any, Any], None]:
    """The settings of each new SQLite connection, as a `connect` event listener."""

    def set_pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={wait_ms}")
        cursor.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT}")
        cursor.execute(f"PRAGMA journal_size_limit={JOURNAL_SIZE_LIMIT}")
        cursor.close()

    return set_pragmas


def make_engine(url: str, wait_ms: int | None = None) -> Engine:
    """An engine for `url`; SQLite connections enforce foreign keys and use WAL. Its commands wait
    `wait_ms` for another command's write (`BUSY_TIMEOUT_MS` by default) before they give up. A URL that is
    none, or names a database whose driver is not installed, is a BadDatabaseURL.

    JSON columns are read by orjson, which parses at C speed what the standard library's decoder
    parses partly in Python: a build reads thousands (each output's sitemap entry, records' lists).
    """
    wait = BUSY_TIMEOUT_MS if wait_ms is None else int(wait_ms)
    parsed = parse(url)
    try:
        engine = create_engine(parsed, future=True, json_deserializer=orjson.loads, connect_args=connect_args(parsed),
                               execution_options={WAIT_OPTION: wait})
    except NoSuchModuleError:
        raise unknown_kind(parsed) from None
    except ImportError as error:
        raise missing_driver(parsed, error) from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas(wait))
    return engine


#: How long a connection to a PostgreSQL server may take, in seconds, unless the URL's `connect_timeout` (or
#: $PGCONNECT_TIMEOUT) says.
CONNECT_TIMEOUT_S = 10


#: The PostgreSQL drivers built on libpq, which take its `connect_timeout` (pg8000 knows no such argument).
LIBPQ_DRIVERS = ("psycopg", "psycopg2", "psycopg2cffi")


def connect_args(url: URL) -> dict[str, Any]:
    """What the driver is given beside `url`: for PostgreSQL through libpq, a connect timeout unless the URL
    or libpq's environment sets one. libpq waits for ever by default: a host that drops packets (a firewall,
    a VPN down) held a command without a word, where it now says it cannot connect (errors.cannot_connect)."""
    if url.get_backend_name() != "postgresql" or url.get_driver_name() not in LIBPQ_DRIVERS \
            or "connect_timeout" in url.query or os.environ.get("PGCONNECT_TIMEOUT"):
        return {}
    return {"connect_timeout": CONNECT_TIMEOUT_S}


def write_wait_ms(engine: Engine) -> int:
    """How long the commands of `engine` wait for another command's write, in milliseconds."""
    return int(engine.get_execution_options().get(WAIT_OPTION, BUSY_TIMEOUT_MS))


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


def one_state(session: Session) -> None:
    """Have the session's transaction read one state of the database from its first query to its last,
    whatever others commit meanwhile. Call it before the transaction's first query.

    PostgreSQL's default (READ COMMITTED) shows each statement what was committed before it: the
    transaction reads at REPEATABLE READ. Python's sqlite3 begins a transaction only before a write, so
    each read would be one of its own: the transaction is begun at once (SQLite then reads the snapshot
    its first read found, in WAL mode beside any writer)."""
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
    elif dialect == "sqlite":
        session.execute(text("BEGIN"))


@contextmanager
def transaction(engine: Engine) -> Iterator[Session]:
    """One unit of work: commit on success, roll back everything on any error."""
    with session_factory(engine)() as session:
        with session.begin():
            yield session


#: The PostgreSQL advisory lock a command holds while it changes the content (one for all of them).
CONTENT_LOCK = 0x6E657773726F6F6D  # "newsroom"


@contextmanager
def writing(engine: Engine) -> Iterator[Session]:
    """`transaction(engine)` for a command that changes the content: one such command at a time.

    A change is checked against the rest of the content before it is written (a deleted entry's uses, a
    story's terms and links). Another command committing in between made the check stale: an entry
    deleted while a story's new term named it, each checked against the other's absence, were both stored,
    and the next build stopped at the dangling term. So the transaction takes the database's write lock
    as it begins, before it reads (SQLite: BEGIN IMMEDIATE, waiting as for any write; PostgreSQL: an
    advisory lock held to its end); commands that only read are not held up. Either waits for the command
    under way as long as SQLite waits for any write (`write_wait_ms`), then gives up (see `busy`)."""
    with session_factory(engine)() as session:
        with session.begin():
            dialect = engine.dialect.name
            if dialect == "sqlite":
                session.execute(text("BEGIN IMMEDIATE"))
            elif dialect == "postgresql":
                # 0 would be no limit at all: a wait of 0 is the shortest there is.
                session.execute(text(f"SET LOCAL lock_timeout = {max(1, write_wait_ms(engine))}"))
                session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": CONTENT_LOCK})
                session.execute(text("SET LOCAL lock_timeout TO DEFAULT"))
            yield session


def writing_if_free(session: Session) -> bool:
    """Whether `session`'s transaction may change the content now, as `writing` would let it, without
    waiting: on PostgreSQL, the content's lock taken if no command holds it (held to the transaction's end);
    False when one does. SQLite: True (its write lock is waited for as for any write).

    For a change a command makes on the side of its work (`newsroom.cli.App.open_content`: an issue whose
    time has come recorded as published): made outside the content's lock, it collided with the same
    record made by a command changing the content, which then stopped. The command holding the lock
    records it itself."""
    if session.get_bind().dialect.name != "postgresql":
        return True
    return bool(session.scalar(text("SELECT pg_try_advisory_xact_lock(:key)"), {"key": CONTENT_LOCK}))


#: The PostgreSQL advisory lock a migration holds (`newsroom init` upgrading the schema), apart from the
#: content's: an `init` with nothing to do must not wait behind a colleague's long import.
MIGRATION_LOCK = 0x6E657773696E6974  # "newsinit"


def migrating(connection: Connection) -> None:
    """Make the migration about to run in `connection`'s transaction the only one under way.

    Two machines running `newsroom init` on one new database at once both found it empty and both
    created its tables: one stopped on a traceback of a duplicate key (PostgreSQL) or on "table entries
    already exists" (SQLite, where each table was committed alone). So the migration takes a lock first and
    reads the revision the database is at only once it has it: the second `init` waits for the first to
    commit, then finds the schema at its revision and has nothing to do. The wait is a command's
    (`write_wait_ms`); a lock not had by then is `busy`, and `init` may simply be run again."""
    engine = connection.engine
    wait = max(1, write_wait_ms(engine))  # 0 would be no limit at all on PostgreSQL
    if engine.dialect.name == "sqlite":
        # Python's sqlite3 begins no transaction before DDL (each CREATE TABLE was committed alone): begin
        # one that holds the write lock, waited for as for any write.
        connection.exec_driver_sql("BEGIN IMMEDIATE")
    elif engine.dialect.name == "postgresql":
        connection.exec_driver_sql(f"SET LOCAL lock_timeout = {wait}")
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        connection.exec_driver_sql("SET LOCAL lock_timeout TO DEFAULT")


#: PostgreSQL's SQLSTATE for a lock not taken within `lock_timeout`.
LOCK_NOT_AVAILABLE = "55P03"
#: PostgreSQL's SQLSTATEs for a transaction another one stood in the way of, which the server rolled back
#: whole: a lock not taken in time, a deadlock (the server ends one of the two), a serialization failure
#: (a REPEATABLE READ transaction writing what another changed since its snapshot).
CONTENDED_SQLSTATES = frozenset({LOCK_NOT_AVAILABLE, "40P01", "40001"})
#: SQLite's primary result codes for a database another connection holds: SQLITE_BUSY ("database is
#: locked", and a read snapshot another writer moved past) and SQLITE_LOCKED ("database table is locked").
SQLITE_CONTENDED = frozenset({5, 6})


def busy(error: OperationalError) -> bool:
    """Whether `error` says another command held the database past our wait, or stood in the way of this
    one's transaction: such a command stored nothing, and may simply be run again.

    Decided by the driver's code, not its words: looking for "locked" in the text took a PostgreSQL
    deadlock ("... blocked by process ...") by accident, and missed a serialization failure."""
    sqlstate = getattr(error.orig, "sqlstate", None)
    if sqlstate is not None:
        return sqlstate in CONTENDED_SQLSTATES
    code = getattr(error.orig, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in SQLITE_CONTENDED
    # A driver that gives neither code: SQLite's own words.
    said = str(error.orig)
    return "database is locked" in said or "database table is locked" in said


def _sqlite_file(engine: Engine) -> bool:
    """Whether `engine` is SQLite on a file (one with a WAL); not an in-memory database."""
    return engine.dialect.name == "sqlite" and engine.url.database not in (None, "", ":memory:") \
        and not str(engine.url.database).startswith("file::memory:")


@contextmanager
def quick_commit(engine: Engine) -> Iterator[Session]:
    """`transaction(engine)` for the build's state, whose commit on SQLite neither waits for the disk
    (synchronous=NORMAL) nor copies the WAL into the database (a build copies it while it works the next
    time, see `WalCopy`): 0.6 s of a full build's, 50 ms of a one-edit build's on the README's machine.

    The state is the build's record of what it wrote, written after the files: a commit lost to a power
    cut (what NORMAL risks in WAL mode; it never corrupts the database) leaves the last state, whose
    files then differ from those in the folder, and the next build remakes them (see writer.changed_since).
    """
    _wait_for_copies()
    if not _sqlite_file(engine):
        with transaction(engine) as session:
            yield session
        return
    with engine.connect() as connection:
        raw = connection.connection.dbapi_connection
        assert raw is not None
        # The connection goes back to the pool as it came: its settings are restored after the commit.
        synchronous = raw.execute("PRAGMA synchronous").fetchone()[0]
        autocheckpoint = raw.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
        busy = raw.execute("PRAGMA busy_timeout").fetchone()[0]
        raw.execute("PRAGMA synchronous=NORMAL")
        raw.execute("PRAGMA wal_autocheckpoint=0")
        # Another command's write is waited for (as long as the command was told to wait, if longer).
        raw.execute(f"PRAGMA busy_timeout={max(STATE_BUSY_TIMEOUT_MS, write_wait_ms(engine))}")
        try:
            with Session(bind=connection, expire_on_commit=False) as session, session.begin():
                yield session
        finally:
            raw.execute(f"PRAGMA synchronous={int(synchronous)}")
            raw.execute(f"PRAGMA wal_autocheckpoint={int(autocheckpoint)}")
            raw.execute(f"PRAGMA busy_timeout={int(busy)}")


class WalCopy:
    """SQLite: what the WAL holds copied into the database file in a thread (a passive checkpoint, which
    waits for no other connection) while the build works.

    The copy and its fsync spend their time in SQLite's C code, without the interpreter's lock, so the
    build goes on meanwhile. It is waited for before the process forks (a forked worker must not inherit
    SQLite's locks held mid-copy) and before a `quick_commit`. Nothing is done for another database,
    or an in-memory one.
    """

    def __init__(self, engine: Engine) -> None:
        self._thread: threading.Thread | None = None
        if _sqlite_file(engine):
            self._thread = threading.Thread(target=_checkpoint, args=(engine,), name="wal-copy", daemon=True)
            _copies.add(self)
            self._thread.start()

    def wait(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        _copies.discard(self)


#: The copies under way.
_copies: set[WalCopy] = set()


def _checkpoint(engine: Engine) -> None:
    try:
        with engine.connect() as connection:
            raw = connection.connection.dbapi_connection
            assert raw is not None
            raw.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
    except DBAPIError:  # the database busy or gone: a later copy (or a commit past WAL_AUTOCHECKPOINT) makes it
        pass


def _wait_for_copies() -> None:
    for copy in list(_copies):
        copy.wait()


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(before=_wait_for_copies)
