"""Run the Alembic migrations shipped in the package.

Alembic loads only to migrate (`upgrade`, `head_revision`): every command checks the schema
first, and reading the revision a database is at needs no more than one query.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine, inspect, text

from newsroom.db.errors import UnusableDatabase, keep_a_copy, shown

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: The schema revision this code works on: the newest migration's (a test holds it to Alembic's head).
SCHEMA_REVISION = "0013_lost_texts"
#: Where Alembic records the revision a database is at.
VERSION_TABLE = "alembic_version"


def alembic_config(engine: Engine | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if engine is not None:
        config.attributes["engine"] = engine
        # The option is read through configparser's interpolation: a `%` of the URL (`file%3A`, a quoted
        # password) is written as `%%`.
        config.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False).replace("%", "%%"))
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the database schema up to `revision` (the latest by default); refuse a database a newer
    version migrated (NewerSchema), whose tables this version's migrations do not know."""
    from alembic import command

    refuse_newer(engine, current_revision(engine))
    command.upgrade(alembic_config(engine), revision)


def copy_before_upgrade(url: str, revision: str) -> Path | None:
    """A copy of the SQLite database file of `url`, at schema `revision`, kept beside it before an upgrade
    (`newsroom.db` → `newsroom-<revision>.db`, numbered past a file of that name): the earlier newsroom opens
    it, and an upgrade cannot be taken back. SQLite's backup copies the database whole, its write-ahead log's
    pages with it. None for another database, which its own tools copy (see errors.keep_a_copy)."""
    from newsroom.db.session import sqlite_path  # the session's module: not every migration's import

    file = sqlite_path(url)
    if file is None:
        return None
    copy = _copy_of(file, revision)
    source = sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True)
    try:
        target = sqlite3.connect(copy)
        try:
            source.backup(target)
        finally:
            target.close()
    except sqlite3.Error as error:
        copy.unlink(missing_ok=True)
        raise UnusableDatabase(f"cannot keep a copy of the database as {copy} before upgrading it: {error}; nothing "
                               "was changed: make room for it there, then run `newsroom init` "
                               "again") from None
    finally:
        source.close()
    return copy


def _copy_of(file: Path, revision: str) -> Path:
    """Where `copy_before_upgrade` keeps the copy of the SQLite database `file` at `revision`: beside it, as
    `newsroom-<revision>.db`, numbered past a file of that name."""
    copy, number = file.with_name(f"{file.stem}-{revision}{file.suffix}"), 1
    while copy.exists():
        number += 1
        copy = file.with_name(f"{file.stem}-{revision}-{number}{file.suffix}")
    return copy


def upgrade_advice(url: str, revision: str) -> str:
    """What a command refusing the database of `url`, at the older schema `revision`, says to do: run `newsroom
    init`, which keeps a copy of a SQLite database file itself (said, and where: no copy of the editor's is
    needed); another database's copy is the editor's to keep first, by its own tools (see errors.keep_a_copy)."""
    from newsroom.db.session import sqlite_path  # the session's module: not every migration's import

    file = sqlite_path(url)
    if file is not None:
        return (f"run `newsroom init` to upgrade it; before upgrading, it keeps a copy of the database as it is, "
                f"{_copy_of(file, revision)}, which the earlier newsroom opens")
    return f"run `newsroom init` to upgrade it, after keeping a copy to go back to: {keep_a_copy(url, revision)}"


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at, as Alembic recorded it; None for a database never migrated."""
    with engine.connect() as connection:
        if not inspect(connection).has_table(VERSION_TABLE):
            return None
        return connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar()


def head_revision() -> str | None:
    """The newest revision of the migrations, as Alembic finds it."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


class NewerSchema(UnusableDatabase):
    """A database at a schema revision this version does not know: a newer version made or upgraded it."""


def refuse_newer(engine: Engine, revision: str | None) -> None:
    """Raise NewerSchema when `revision`, the one `engine`'s database is at, is none of this version's."""
    if revision is None or revision == SCHEMA_REVISION or revision in known_revisions():
        return
    raise NewerSchema(f"the database {shown(engine.url)} was made or upgraded by a newer newsroom: its schema is at "
                      f"{revision}, a revision this version does not know (it works on {SCHEMA_REVISION}); "
                      f"upgrade newsroom to work with it")


def known_revisions() -> set[str]:
    """Every revision of the migrations shipped with this version."""
    from alembic.script import ScriptDirectory

    return {script.revision for script in ScriptDirectory.from_config(alembic_config()).walk_revisions()}
