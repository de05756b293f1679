"""Engines and sessions for any SQLAlchemy URL; SQLite gets foreign keys and WAL."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import orjson
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

DEFAULT_URL = "sqlite:///newsroom.db"
ENV_VAR = "NEWSROOM_DB"


def database_url(explicit: str | None = None) -> str:
    """The URL to use: the explicit one, else $NEWSROOM_DB, else ./newsroom.db."""
    return explicit or os.environ.get(ENV_VAR) or DEFAULT_URL


def _sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def make_engine(url: str) -> Engine:
    """An engine for `url`; SQLite connections enforce foreign keys and use WAL.

    JSON columns are read by orjson, which parses at C speed what the standard library's decoder
    parses partly in Python: a build reads thousands (each output's sitemap entry, records' lists).
    """
    engine = create_engine(url, future=True, json_deserializer=orjson.loads)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(engine: Engine) -> Iterator[Session]:
    """One unit of work: commit on success, roll back everything on any error."""
    with session_factory(engine)() as session:
        with session.begin():
            yield session
