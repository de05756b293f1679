"""Alembic environment: migrates the engine handed over by `newsroom.db.migrate`."""

from alembic import context
from sqlalchemy import create_engine

from newsroom.db.base import Base
from newsroom.db.session import migrating
from newsroom.models import register_all

register_all()
target_metadata = Base.metadata
config = context.config


def run_migrations_online() -> None:
    engine = config.attributes.get("engine") or create_engine(config.get_main_option("sqlalchemy.url"))
    with engine.begin() as connection:
        migrating(connection)  # one migration at a time: two machines may run `newsroom init` at once
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            compare_type=True,
        )
        context.run_migrations()


run_migrations_online()
