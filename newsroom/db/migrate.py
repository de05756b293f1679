"""Run the Alembic migrations shipped in the package.

Alembic loads only to migrate (`upgrade`, `head_revision`): every command checks the schema
first, and reading the revision a database is at needs no more than one query.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine, inspect, text

from newsroom.db.errors import UnusableDatabase, shown

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
