"""The declarative base every model derives from, and the column kinds we reuse."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from sqlalchemy import JSON, DateTime, Integer, MetaData, String, Text, TypeDecorator
from sqlalchemy.orm import DeclarativeBase, mapped_column

# Predictable constraint names, so Alembic migrations can refer to them.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class TZDateTime(TypeDecorator[dt.datetime]):
    """A timezone-aware datetime stored as UTC; naive values are refused.

    SQLite has no timezone type, so values are normalised to UTC on the way in
    and marked UTC on the way out.
    """

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: Any) -> dt.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: a timezone is required")
        return value.astimezone(dt.timezone.utc).replace(tzinfo=None)

    def process_result_value(self, value: dt.datetime | None, dialect: Any) -> dt.datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=dt.timezone.utc)


#: The longest slug a record may have (the content's schema refuses a longer one): PostgreSQL refuses to store
#: more in a slug's column, where SQLite stores anything.
SLUG_LENGTH = 120
#: The longest name of an editor a change is recorded under (`--editor`, `Revision.changed_by`).
EDITOR_LENGTH = 200

Slug = Annotated[str, mapped_column(String(SLUG_LENGTH), index=True)]
Lang = Annotated[str, mapped_column(String(8))]
IntPK = Annotated[int, mapped_column(Integer, primary_key=True)]


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {
        dt.datetime: TZDateTime(),
        str: Text(),
        dict[str, Any]: JSON(),
        list[Any]: JSON(),
    }
