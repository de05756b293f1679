"""Run the Alembic migrations shipped in the package.

Alembic loads only to migrate (`upgrade`, `head_revision`): every command checks the schema
first, and reading the revision a database is at needs no more than one query.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine, inspect, text

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: The schema revision this code works on: the newest migration's (a test holds it to Alembic's head).
SCHEMA_REVISION = "0006_former_slugs"
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
    """Bring the database schema up to `revision` (the latest by default)."""
    from alembic import command

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
