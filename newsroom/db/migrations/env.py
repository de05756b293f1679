"""Alembic environment: migrates the engine handed over by `newsroom.db.migrate`."""

from collections.abc import Iterator
from contextlib import contextmanager

from alembic import context
from sqlalchemy import Connection, create_engine

from newsroom.db.base import Base
from newsroom.db.errors import UnusableDatabase
from newsroom.db.session import migrating
from newsroom.models import register_all

register_all()
target_metadata = Base.metadata
config = context.config


@contextmanager
def without_foreign_keys(connection: Connection) -> Iterator[None]:
    """SQLite: the migrations run with its foreign keys off, as SQLite asks of a table made again.

    A column SQLite cannot add by ALTER TABLE (0010_drafts' `draft`, whose default is an expression) is
    added by copying the table into a new one and dropping the old one; with foreign keys on, that DROP
    TABLE deleted its rows first, and with them, by their ON DELETE CASCADE, every row that referred to
    them: an upgrade through 0010 left every glossary entry without its texts and relations and every
    page without its texts, and `check` then asked for them to be written. The setting is the
    connection's, taken before its transaction begins (SQLite ignores it inside one) and given back after."""
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
        connection.commit()
    try:
        yield
    finally:
        if sqlite:
            connection.rollback()
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")
            connection.commit()


def dangling_references(connection: Connection) -> None:
    """SQLite: refuse, rolling the migrations back, a schema whose rows (copied with foreign keys off) refer
    to a row that is not there."""
    if connection.dialect.name != "sqlite":
        return
    found = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
    if found:
        tables = ", ".join(sorted({row[0] for row in found}))
        raise UnusableDatabase(f"the upgrade would leave rows of {tables} referring to rows that are not there: "
                               "nothing was changed (the database stays at its schema)")


def run_migrations_online() -> None:
    engine = config.attributes.get("engine") or create_engine(config.get_main_option("sqlalchemy.url"))
    with engine.connect() as connection, without_foreign_keys(connection):
        with connection.begin():
            migrating(connection)  # one migration at a time: two machines may run `newsroom init` at once
            context.configure(
                connection=connection,
                target_metadata=target_metadata,
                render_as_batch=connection.dialect.name == "sqlite",
                compare_type=True,
            )
            context.run_migrations()
            dangling_references(connection)


run_migrations_online()
