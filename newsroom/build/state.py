"""The build state: what each output file was made from, kept in the database.

One `BuildOutput` row per file of a built folder: the hash of its bytes, the
fingerprint of the code, settings, templates and catalog it was rendered
with, and its dependencies — every content key it read while it was planned
and rendered, with the hash of what that key named then. One `BuildRun` row
per folder holds a snapshot of the whole store, so a rebuild with nothing
changed stops after a handful of cheap queries.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import marshal
import sys
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import JSON, LargeBinary, String, UniqueConstraint, delete, insert, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from newsroom.db.base import Base, IntPK

MARSHAL_TAG = f"marshal:{marshal.version}:{sys.version_info[0]}.{sys.version_info[1]}".encode()
#: Tables whose rows never reach an output (the build state itself).
NOT_CONTENT = frozenset({"build_outputs", "build_runs", "build_memos", "alembic_version"})
#: Append-only tables: which rows exist says everything (revisions become corrections on issue pages).
APPEND_ONLY = {"revisions": ("id",)}
#: The key of an output's meta among its deps (no dependency key starts with "@").
META = "@meta"


class BuildOutput(Base):
    """One output file of a built folder and what it was made from."""

    __tablename__ = "build_outputs"
    __table_args__ = (UniqueConstraint("site", "path"),)

    id: Mapped[IntPK]
    site: Mapped[str] = mapped_column(String(500), index=True)  # the output folder, resolved
    path: Mapped[str] = mapped_column(String(500))  # relative to the folder, with /
    digest: Mapped[str] = mapped_column(String(64))  # of the bytes written
    fingerprint: Mapped[str] = mapped_column(String(64))  # code, settings, templates, catalog
    deps: Mapped[dict[str, Any]] = mapped_column(JSON)  # dependency key → value hash when built


class BuildRun(Base):
    """The last successful build of a folder: the store snapshot it saw."""

    __tablename__ = "build_runs"

    site: Mapped[str] = mapped_column(String(500), primary_key=True)
    snapshot: Mapped[str] = mapped_column(String(64))
    finished_at: Mapped[dt.datetime]


@dataclass(frozen=True)
class Output:
    """An output as the state remembers it."""

    digest: str
    fingerprint: str
    deps: Mapping[str, str]
    #: What the build needs of an output it does not remake: a page's sitemap entry, the group of
    #: files made together (see build/pipeline.py). Stored with the deps, under META.
    meta: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Previous:
    """The state of the last build of one folder."""

    snapshot: str
    outputs: Mapping[str, Output]


def snapshot(session: Session, inputs: str) -> str:
    """A hash of everything stored that can reach an output, plus `inputs` (code, settings, clock).

    Tables with a `content_hash` contribute (key, version, hash) per row — their
    child rows (texts, relations) are covered by the parent's hash and version;
    any other table contributes its rows whole. A handful of queries, no ORM.
    """
    digest = hashlib.sha256(inputs.encode())
    hashed = {t.name for t in Base.metadata.sorted_tables if "content_hash" in t.c}
    for table in Base.metadata.sorted_tables:
        if table.name in NOT_CONTENT:
            continue
        if table.name in APPEND_ONLY:
            columns = [table.c[name] for name in APPEND_ONLY[table.name]]
        elif table.name in hashed:
            columns = [table.c[name] for name in ("id", "version", "content_hash") if name in table.c]
        elif any(fk.column.table.name in hashed for fk in table.foreign_keys):
            continue
        else:
            columns = list(table.c)
        order = list(table.primary_key.columns) or columns
        digest.update(table.name.encode())
        for row in session.execute(select(*columns).order_by(*order)):
            digest.update(repr(tuple(row)).encode())
    return digest.hexdigest()


def load(session: Session, site: str) -> Previous | None:
    """The recorded state of the folder `site`, or None when it was never built."""
    run = session.get(BuildRun, site)
    if run is None:
        return None
    rows = session.execute(select(BuildOutput.path, BuildOutput.digest, BuildOutput.fingerprint,
                                  BuildOutput.deps).where(BuildOutput.site == site))
    return Previous(run.snapshot, {path: Output(digest, fingerprint, deps, deps.pop(META, None))
                                   for path, digest, fingerprint, deps in rows})


def save(session: Session, site: str, snapshot_hash: str, changed: Mapping[str, Output],
         removed: Iterable[str], now: dt.datetime, *, replace_all: bool = False) -> None:
    """Record a finished build: rows for changed outputs, none for removed ones."""
    if replace_all:
        session.execute(delete(BuildOutput).where(BuildOutput.site == site))
    else:
        stale = sorted({*changed, *removed})
        for start in range(0, len(stale), 500):
            session.execute(delete(BuildOutput).where(BuildOutput.site == site,
                                                      BuildOutput.path.in_(stale[start:start + 500])))
    rows = [{"site": site, "path": path, "digest": output.digest, "fingerprint": output.fingerprint,
             "deps": {**output.deps, **({META: output.meta} if output.meta is not None else {})}}
            for path, output in sorted(changed.items())]
    for start in range(0, len(rows), 2000):
        session.execute(insert(BuildOutput), rows[start:start + 2000])
    run = session.get(BuildRun, site)
    if run is None:
        session.add(BuildRun(site=site, snapshot=snapshot_hash, finished_at=now))
    else:
        run.snapshot, run.finished_at = snapshot_hash, now


class BuildMemo(Base):
    """Remembered results of pure work, one compressed JSON object per namespace.

    One row per namespace, not one per result: reading 90,000 small JSON
    values row by row costs seconds, one decompress and parse a tenth of that.
    The payload is `marshal` (plain dicts, lists and strings; several times
    faster to read than JSON), tagged with the Python version that wrote it.
    It only ever holds what the build computed from the database itself.
    """

    __tablename__ = "build_memos"

    namespace: Mapped[str] = mapped_column(String(40), primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)  # zlib-compressed, tagged marshal: {key: value}


class Memo:
    """One namespace of remembered results: what the last build knew, what this build used and added."""

    def __init__(self, known: Mapping[str, Any], *, replace: bool = False) -> None:
        self.known = dict(known)
        self.replace = replace  # a full build: what is stored is not read, and is replaced
        self.used: set[str] = set()
        self.added: dict[str, Any] = {}

    def get(self, key: str) -> Any:
        if key in self.added:
            return self.added[key]
        found = self.known.get(key)
        if found is not None:
            self.used.add(key)
        return found

    def put(self, key: str, value: Any) -> None:
        self.added[key] = value

    def kept(self) -> dict[str, Any]:
        """What to store: the results this build used or added (so the memo tracks the content's size)."""
        return {**{key: self.known[key] for key in self.used}, **self.added}

    @property
    def changed(self) -> bool:
        """Worth storing again: something new, or a quarter of it no longer used."""
        return self.replace or bool(self.added) or len(self.known) - len(self.used) > len(self.known) // 4


def load_memos(session: Session, namespaces: Iterable[str]) -> dict[str, Memo]:
    """Every remembered result of `namespaces`, in one query."""
    names = list(namespaces)
    rows = {name: data for name, data in session.execute(
        select(BuildMemo.namespace, BuildMemo.data).where(BuildMemo.namespace.in_(names)))}
    return {name: Memo(_decode(rows[name]) if name in rows else {}) for name in names}


def _decode(data: bytes) -> dict[str, Any]:
    """A stored namespace; empty when it was written by another Python (marshal's format may differ)."""
    try:
        version, payload = zlib.decompress(data).split(b"\n", 1)
        if version != MARSHAL_TAG:
            return {}
        found = marshal.loads(payload)
    except (ValueError, EOFError, TypeError, zlib.error):
        return {}
    return found if isinstance(found, dict) else {}


def save_memos(session: Session, memos: Mapping[str, Memo]) -> None:
    """Store each changed namespace whole."""
    for namespace, memo in memos.items():
        if not memo.changed:
            continue
        data = zlib.compress(MARSHAL_TAG + b"\n" + marshal.dumps(memo.kept()), 1)
        session.execute(delete(BuildMemo).where(BuildMemo.namespace == namespace))
        session.add(BuildMemo(namespace=namespace, data=data))
