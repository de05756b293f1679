"""Publication-wide records: the site's own texts, its vocabularies, pages and revisions.

Domain records live with their domain (`glossary.models`, `issues.models`);
this module holds what belongs to the publication as a whole. Importing it
registers every model on `Base.metadata`, which is what Alembic compares.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Boolean, Date, ForeignKey, Integer, String, UniqueConstraint, false, func, select, update
from sqlalchemy.orm import Mapped, Session, mapped_column, relationship
from sqlalchemy.orm.attributes import set_committed_value

from newsroom.db.base import EDITOR_LENGTH, SLUG_LENGTH, Base, IntPK, Lang, Slug


class SiteText(Base):
    """The publication's name, tagline and email greeting in one language."""

    __tablename__ = "site_texts"

    lang: Mapped[str] = mapped_column(String(8), primary_key=True)
    name: Mapped[str]
    tagline: Mapped[str]
    #: The line an email opens with ("Kedves Olvasó!"): the publication's voice, not the engine's; "" for none.
    greeting: Mapped[str] = mapped_column(default="", server_default="")


class VocabularyTerm(Base):
    """A named slug of a fixed list: a section (rubric), a category or an audience.

    `position` is the order the site's configuration gives (sections appear
    in every issue in this order).
    """

    __tablename__ = "vocabulary"
    __table_args__ = (UniqueConstraint("kind", "slug", name="uq_vocabulary_kind_slug"),)

    id: Mapped[IntPK]
    kind: Mapped[str] = mapped_column(String(20))
    slug: Mapped[Slug]
    position: Mapped[int]
    names: Mapped[list[VocabularyName]] = relationship(
        back_populates="term", cascade="all, delete-orphan", order_by="VocabularyName.lang"
    )


class VocabularyName(Base):
    __tablename__ = "vocabulary_names"

    term_id: Mapped[int] = mapped_column(ForeignKey("vocabulary.id", ondelete="CASCADE"), primary_key=True)
    lang: Mapped[str] = mapped_column(String(8), primary_key=True)
    name: Mapped[str]
    term: Mapped[VocabularyTerm] = relationship(back_populates="names")


class Page(Base):
    """A reference page (Simple / Deep dive sections, sources) or a site page (Method)."""

    __tablename__ = "pages"

    id: Mapped[IntPK]
    slug: Mapped[str] = mapped_column(String(SLUG_LENGTH), unique=True)
    kind: Mapped[str] = mapped_column(String(20))  # "reference" | "page"
    #: The slugs it was published under before, oldest first: each old address sends readers on.
    formerly: Mapped[list[Any] | None]
    #: A reference page in progress (`draft: true`): kept, checked and previewed, but no public build shows
    #: it (see newsroom.drafts). A site page is never one. Rows stored before it existed are published.
    draft: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: A reference page's date of last update as its editors give it (`updated:`): shown on the page, the
    #: sitemap's lastmod. Content, not the time the row was stored, so an export imported anew builds alike.
    updated: Mapped[dt.date | None] = mapped_column(Date)
    sources: Mapped[list[Any]]
    version: Mapped[int] = mapped_column(Integer, default=1)
    content_hash: Mapped[str] = mapped_column(String(64))
    updated_at: Mapped[dt.datetime]
    texts: Mapped[list[PageText]] = relationship(
        back_populates="page", cascade="all, delete-orphan", order_by="PageText.lang"
    )

    __mapper_args__ = {"version_id_col": version}


class PageText(Base):
    __tablename__ = "page_texts"

    page_id: Mapped[int] = mapped_column(ForeignKey("pages.id", ondelete="CASCADE"), primary_key=True)
    lang: Mapped[str] = mapped_column(String(8), primary_key=True)
    title: Mapped[str | None]
    summary: Mapped[str | None]
    body: Mapped[str | None]  # site pages: Markdown
    sections: Mapped[list[Any] | None]  # reference pages: [{title, simple, deep}]
    page: Mapped[Page] = relationship(back_populates="texts")


#: `Revision.changed_fields` of the revision that keeps a deleted record's last version.
DELETED = "deleted"
#: `Revision.changed_fields` of the revision (version 0, nothing came before) kept when a record is created: when
#: and by whom. A story's added to an issue already published is a correction of it.
CREATED = "created"
#: With CREATED, of a story added to an issue not yet published (or published by the same import): no correction.
UNPUBLISHED = "unpublished"


def created_fields(kind: str, in_published_issue: bool) -> list[str]:
    """The `changed_fields` of a record's creation mark: a story's says whether readers saw its issue before."""
    return [CREATED, UNPUBLISHED] if kind == "story" and not in_published_issue else [CREATED]
#: Among `Revision.changed_fields` of a revision kept when `newsroom rename` rewrote the record's references to a
#: renamed one: readers see the same text, so it is no correction of a published issue.
RENAMED = "renamed"


class Revision(Base):
    """A previous version of a record, kept on every change (history, corrections)."""

    __tablename__ = "revisions"

    id: Mapped[IntPK]
    record_kind: Mapped[str] = mapped_column(String(20), index=True)
    record_key: Mapped[str] = mapped_column(String(SLUG_LENGTH), index=True)
    version: Mapped[int]
    snapshot: Mapped[dict[str, Any]]
    changed_fields: Mapped[list[Any]]
    changed_by: Mapped[str] = mapped_column(String(EDITOR_LENGTH))
    changed_at: Mapped[dt.datetime]
    reason: Mapped[str | None]
    #: The language `reason` is written in (None: the site's first language, as before it was recorded): an
    #: issue page of another language marks it so.
    reason_lang: Mapped[str | None] = mapped_column(String(8))


def revision_kinds(kind: str) -> tuple[str, ...]:
    """The kinds a record's revisions may be kept under: reference and site pages share one slug space,
    and an import may turn one into the other."""
    return ("reference", "page") if kind in ("reference", "page") else (kind,)


def history_key(kind: str, key: str) -> tuple[str, str]:
    """The (kind, key) one record's history is counted under: a reference or site page's under one kind,
    whichever of the two it was kept as (see `revision_kinds`)."""
    return revision_kinds(kind)[-1], key


def last_versions(session: Session, kind: str | None = None, key: str | None = None) -> dict[tuple[str, str], int]:
    """{history_key: the highest version kept in a revision}, of every record or of one."""
    query = select(Revision.record_kind, Revision.record_key, func.max(Revision.version)).group_by(
        Revision.record_kind, Revision.record_key)
    if kind is not None:
        query = query.where(Revision.record_kind.in_(revision_kinds(kind)), Revision.record_key == key)
    found: dict[tuple[str, str], int] = {}
    for record_kind, record_key, version in session.execute(query):
        shared = history_key(record_kind, record_key)
        found[shared] = max(version, found.get(shared, 0))
    return found


def continue_versions(session: Session, row: Any, kind: str, key: str, last: int | None) -> None:
    """Give a record just created under the key of a deleted one (whose revisions go up to version `last`)
    the version after it: its history goes on from the deleted record's instead of starting again at 1,
    where two records' versions 1, 2, … would share one history and `history --show N`.

    The row is inserted first (the ORM numbers a new row 1, whatever it was given), then renumbered."""
    if not last:
        return
    session.flush()
    table = type(row).__table__
    session.execute(update(table).where(table.c.id == row.id).values(version=last + 1))
    set_committed_value(row, "version", last + 1)


def register_all() -> None:
    """Import every model module so that `Base.metadata` knows every table."""
    import glossary.models  # noqa: F401
    import issues.models  # noqa: F401
    import newsroom.build.memos  # noqa: F401
    import newsroom.build.state  # noqa: F401
    import newsroom.mail.models  # noqa: F401
