"""The build state: what each output file was made from, kept in the database.

One `BuildOutput` row per file of a built folder: the hash of its bytes, the
fingerprint of the code, settings, templates and catalog it was rendered
with, and its dependencies — every content key it read while it was planned
and rendered, with the hash of what that key named then — and the file's
modification time as the build left it (another one: changed by hand). One `BuildRun` row
per folder holds a snapshot of the whole store, so a rebuild with nothing
changed stops after a handful of cheap queries.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import marshal
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (JSON, BigInteger, Engine, LargeBinary, String, UniqueConstraint, bindparam, delete, insert,
                        select, update)
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Mapped, Session, mapped_column

from newsroom.build.blobs import MARSHAL_TAG, pack, tagged, unpack
from newsroom.build.graph import Graph
from newsroom.db.base import Base, IntPK
from newsroom.db.session import busy

#: Tables whose rows never reach an output (the build state itself).
NOT_CONTENT = frozenset({"build_outputs", "build_runs", "build_memos", "alembic_version"})
#: Append-only tables: which rows exist says everything (revisions become corrections on issue pages).
APPEND_ONLY = {"revisions": ("id",)}


#: The most characters of a built folder's full path the state records (`newsroom build --out` and
#: `--email-out`, refused when longer: see pipeline.build).
SITE_LENGTH = 500
#: The most characters of an output's path in its folder the state records: the build's own stay far below
#: it (slugs are bounded), a file of the static folder longer is refused (see render/static.py).
PATH_LENGTH = 500


class BuildOutput(Base):
    """One output file of a built folder and what it was made from."""

    __tablename__ = "build_outputs"
    __table_args__ = (UniqueConstraint("site", "path"),)

    id: Mapped[IntPK]
    site: Mapped[str] = mapped_column(String(SITE_LENGTH), index=True)  # the output folder, resolved
    path: Mapped[str] = mapped_column(String(PATH_LENGTH))  # relative to the folder, with /
    digest: Mapped[str] = mapped_column(String(64))  # of the bytes written
    fingerprint: Mapped[str] = mapped_column(String(64))  # code, settings, templates, catalog
    reads: Mapped[bytes] = mapped_column(LargeBinary)  # see Output.reads
    meta: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)  # see Output.meta
    # The file's modification time as the build left it (ns since the epoch): any other one, later or
    # earlier (a copy restored from a backup keeps its own), means it was changed by hand. None in a
    # state recorded before builds kept it: then only a time later than the run's `written_ns` counts.
    mtime_ns: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class BuildRun(Base):
    """The last successful build of a folder: the store snapshot it saw."""

    __tablename__ = "build_runs"

    site: Mapped[str] = mapped_column(String(SITE_LENGTH), primary_key=True)
    snapshot: Mapped[str] = mapped_column(String(64))
    finished_at: Mapped[dt.datetime]
    graph: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)  # see Graph
    # When its files were all in place (ns since the epoch): one changed later was changed by hand (for the
    # files recorded without a time of their own, see BuildOutput.mtime_ns).
    written_ns: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


#: The marshal format of stored reads: version 2 writes equal strings alike, interned or not (3 and
#: later mark interned ones and refer back to repeats), so the same reads are the same bytes.
READS_FORMAT = 2


def encode_reads(deps: Mapping[str, str], roots: Iterable[str] = ()) -> bytes:
    """An output's reads as stored: [their roots, {key: value hash}] packed, keys in order (the same
    reads, the same bytes: a row is rewritten only when its reads or bytes changed). Marshal, not
    JSON: a page's reads are decoded and encoded again when it is remade, and an archive page has
    tens of thousands (marshal does both several times faster)."""
    return pack(MARSHAL_TAG + b"\n" + marshal.dumps([sorted(roots), dict(deps)], READS_FORMAT))


#: Stands for the reads of an output whose stored reads cannot be read.
UNREADABLE = "\x00unreadable"
#: The reads of an output made from nothing the graph tracks.
NO_READS = encode_reads({})


@dataclass(frozen=True, eq=False)
class Output:
    """An output as the state remembers it."""

    digest: str
    fingerprint: str
    #: Every dependency key it read, with the hash of what the key named then (see encode_reads);
    #: decoded only for outputs under a changed root (see Graph).
    reads: bytes = NO_READS
    #: What the build needs of an output it does not remake: a page's sitemap entry, the group of
    #: files made together (see build/stale.py).
    meta: Mapping[str, Any] | None = None
    #: The roots of the reads (see Graph), when the build that made the output worked them out.
    roots: tuple[str, ...] | None = field(default=None, repr=False)

    def __eq__(self, other: object) -> bool:
        """The same bytes, fingerprint, meta and reads (the reads last: a stored output reads them when asked)."""
        if not isinstance(other, Output):
            return NotImplemented
        return (self.digest == other.digest and self.fingerprint == other.fingerprint and self.meta == other.meta
                and self.reads == other.reads)

    __hash__ = None  # type: ignore[assignment]  (compared, never hashed: its meta is a dict)

    def stored_roots(self) -> list[str]:
        """The roots of the reads, as stored with them."""
        return self.decoded()[0]

    def decoded(self) -> tuple[list[str], dict[str, str]]:
        """(the roots, {key: value hash}) of the reads, decoded now (not kept: ask once)."""
        try:
            tag, payload = tagged(unpack(self.reads))
            if tag != MARSHAL_TAG:
                raise ValueError("reads stored by another Python")
            roots, deps = marshal.loads(payload)
        except (RuntimeError, ValueError, TypeError, EOFError):  # unreadable: a read no key matches, so remade
            return [UNREADABLE], {UNREADABLE: ""}
        return roots, deps


class StoredReads:
    """The stored reads of a built folder's outputs, read from the database when first asked for.

    A build needs the reads of the outputs under a changed root and of those it remakes or removes: a
    one-edit build a few dozen of the thousands stored (30 MB of them at the benchmark's scale, most of
    the state it would read). `fetch` reads many in one query per 500; an output's reads asked for
    alone are read alone. Only builds, each holding its folder's lock, write these rows, so they are
    what they were when the build read the rest of the state. A process forked from the build (a render
    worker) reads them over a connection of its own.
    """

    CHUNK = 500

    def __init__(self, engine: Engine, site: str) -> None:
        self._engine, self._site = engine, site
        self._found: dict[str, bytes] = {}
        self._all = False  # every output's read: nothing more to ask the database
        self._pid = os.getpid()

    def fetch(self, paths: Iterable[str] | None = None) -> None:
        """Read the reads of `paths` (None: of every output) not read yet."""
        if self._all:
            return
        missing = None if paths is None else sorted({path for path in paths if path not in self._found})
        if missing == []:
            return
        if self._pid != os.getpid():  # a forked worker: the build's connections are not its own
            self._engine.dispose(close=False)
            self._pid = os.getpid()
        query = select(BuildOutput.path, BuildOutput.reads).where(BuildOutput.site == self._site)
        with Session(self._engine) as session:
            if missing is None:
                self._found.update(session.execute(query).all())
                self._all = True
                return
            for start in range(0, len(missing), self.CHUNK):
                chunk = missing[start:start + self.CHUNK]
                self._found.update(session.execute(query.where(BuildOutput.path.in_(chunk))).all())
        for path in missing:
            self._found.setdefault(path, b"")  # no row now: unreadable, so remade (see Output.decoded)

    def __call__(self, path: str) -> bytes:
        found = self._found.get(path)
        if found is None:
            self.fetch([path])
            found = self._found[path]
        return found


class StoredOutput(Output):
    """An output as the last build stored it: its reads are read when first asked for (see StoredReads)."""

    def __init__(self, source: StoredReads, path: str, digest: str, fingerprint: str,
                 meta: Mapping[str, Any] | None) -> None:
        # Set past the frozen class's __setattr__, in one step: a build makes one per output (thousands).
        self.__dict__.update(digest=digest, fingerprint=fingerprint, meta=meta, roots=None, _source=source,
                             _path=path)

    @property  # type: ignore[override]
    def reads(self) -> bytes:
        return self._source(self._path)

    def with_file(self, digest: str, meta: Mapping[str, Any] | None) -> StoredOutput:
        """The output made anew with these bytes and meta but the same reads, which stay as stored (`save`
        updates its row without them)."""
        return StoredOutput(self._source, self._path, digest, self.fingerprint, meta)



@dataclass(frozen=True)
class Previous:
    """The state of the last build of one folder."""

    snapshot: str
    outputs: Mapping[str, Output]
    graph: Graph | None = None
    written_ns: int | None = None  # see BuildRun
    #: Each output's file's modification time as the last build left it (see BuildOutput.mtime_ns).
    stamps: Mapping[str, int | None] = field(default_factory=dict, compare=False, repr=False)
    changed: frozenset[str] = frozenset()  # its files since changed or removed by hand (set by the build)
    #: The outputs' reads, read when asked for (see StoredReads): `reads.fetch(paths)` reads many at once.
    reads: StoredReads | None = field(default=None, compare=False, repr=False)

    def fetch_reads(self, paths: Iterable[str] | None = None) -> None:
        """Read the stored reads of these outputs (None: all) in a few queries, before they are asked for
        one by one."""
        if self.reads is None:
            return
        wanted = None if paths is None else {path for path in paths if path in self.outputs}
        # Most of them: one query for all, not one per 500.
        self.reads.fetch(None if wanted is None or len(wanted) > len(self.outputs) // 2 else wanted)


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


def last_snapshot(session: Session, site: str) -> str | None:
    """The store snapshot the last build of `site` saw (None: never built)."""
    return session.scalar(select(BuildRun.snapshot).where(BuildRun.site == site))


@dataclass(frozen=True)
class LastFiles:
    """What the last build of a folder left there: its files with the modification time each had then
    (see BuildOutput.mtime_ns), how many are pages in the sitemap, and when they were all in place (see
    BuildRun)."""

    stamps: dict[str, int | None]
    pages: int
    written_ns: int | None


def last_files(session: Session, site: str) -> LastFiles:
    rows = session.execute(select(BuildOutput.path, BuildOutput.meta, BuildOutput.mtime_ns)
                           .where(BuildOutput.site == site)).all()
    return LastFiles({path: stamp for path, _, stamp in rows}, sum(1 for _, meta, _ in rows
                                                                   if (meta or {}).get("sitemap")),
                     session.scalar(select(BuildRun.written_ns).where(BuildRun.site == site)))


#: The fingerprint of the files of a folder a build writes whole (see save_folder).
WHOLE = "whole"


def last_folder(session: Session, folder: str) -> tuple[str | None, LastFiles, dict[str, str]]:
    """The snapshot the last build that wrote `folder` whole saw (None: none did), its files, and the hash
    of each file's bytes."""
    run = session.execute(select(BuildRun.snapshot, BuildRun.written_ns).where(BuildRun.site == folder)).first()
    if run is None:
        return None, LastFiles({}, 0, None), {}
    rows = session.execute(select(BuildOutput.path, BuildOutput.digest, BuildOutput.mtime_ns)
                           .where(BuildOutput.site == folder)).all()
    return (run.snapshot, LastFiles({path: stamp for path, _, stamp in rows}, 0, run.written_ns),
            {path: digest for path, digest, _ in rows})


def save_folder(session: Session, folder: str, snapshot_hash: str, now: dt.datetime, written_ns: int,
                digests: Mapping[str, str] | None, stamps: Mapping[str, int | None] | None = None) -> None:
    """Record a folder the build writes whole (the latest issue's emails): its files with the hash of
    their bytes and the modification time each has (`stamps`), the store snapshot they were made from,
    and when they were all in place, so the next build can tell whether it is as written (see
    last_folder). `digests` None: the files recorded are still there as written (the build left the
    folder alone), only the snapshot is new."""
    if digests is not None:
        session.execute(delete(BuildOutput).where(BuildOutput.site == folder))
    if digests:
        stamps = stamps or {}
        session.execute(insert(BuildOutput), [{"site": folder, "path": path, "digest": digest, "fingerprint": WHOLE,
                                               "reads": NO_READS, "meta": None, "mtime_ns": stamps.get(path)}
                                              for path, digest in sorted(digests.items())])
    run = session.get(BuildRun, folder)
    if run is None:
        session.add(BuildRun(site=folder, snapshot=snapshot_hash, finished_at=now, graph=None, written_ns=written_ns))
    else:
        run.snapshot, run.finished_at, run.graph, run.written_ns = snapshot_hash, now, None, written_ns


def load(session: Session, site: str) -> Previous | None:
    """The recorded state of the folder `site`, or None when it was never built."""
    run = session.get(BuildRun, site)
    if run is None:
        return None
    rows = session.execute(select(BuildOutput.path, BuildOutput.digest, BuildOutput.fingerprint,
                                  BuildOutput.meta, BuildOutput.mtime_ns).where(BuildOutput.site == site)).all()
    reads = StoredReads(session.get_bind().engine, site)
    return Previous(run.snapshot, {path: StoredOutput(reads, path, digest, fingerprint, meta)
                                   for path, digest, fingerprint, meta, _ in rows}, Graph.decode(run.graph),
                    run.written_ns, {row.path: row.mtime_ns for row in rows}, reads=reads)


def refuse_read_only(engine: Engine) -> None:
    """Raise the database's own error (sqlalchemy's DBAPIError) when it may not be written: a build asks
    before it writes a file, as it records what it wrote after them (a site written and then no state
    stored would be one the next build does not know). An update of no row: nothing changes. Another
    command writing meanwhile is no reason to wait here: the database is writable (the state is stored
    after the files, waiting then)."""
    with engine.connect() as connection:
        raw = connection.connection.dbapi_connection if engine.dialect.name == "sqlite" else None
        waited = raw.execute("PRAGMA busy_timeout").fetchone()[0] if raw is not None else None
        if raw is not None:
            raw.execute("PRAGMA busy_timeout=0")
        try:
            with connection.begin():
                connection.execute(update(BuildRun).where(BuildRun.site == bindparam("none"))
                                   .values(snapshot=BuildRun.snapshot), {"none": None})
        except OperationalError as error:
            if not busy(error):
                raise
        finally:
            if raw is not None:
                raw.execute(f"PRAGMA busy_timeout={int(waited)}")


def save(session: Session, site: str, snapshot_hash: str, changed: Mapping[str, Output],
         removed: Iterable[str], now: dt.datetime, graph: Graph, *, replace_all: bool = False,
         written_ns: int | None = None, stamps: Mapping[str, int | None] | None = None) -> None:
    """Record a finished build: rows for changed outputs, none for removed ones, the graph, and when
    the files were in place. `stamps` holds the modification time of each changed output's file and of
    every other file the build wrote (see BuildOutput.mtime_ns); the other rows keep theirs."""
    stamps = stamps or {}
    # Outputs made anew with their reads as stored (StoredOutput.with_file) keep their rows: updated
    # without the reads, which are not read for them.
    kept = {} if replace_all else {path: output for path, output in changed.items()
                                   if isinstance(output, StoredOutput)}
    changed = {path: output for path, output in changed.items() if path not in kept}
    if replace_all:
        session.execute(delete(BuildOutput).where(BuildOutput.site == site))
    else:
        stale = sorted({*changed, *removed})
        for start in range(0, len(stale), 500):
            session.execute(delete(BuildOutput).where(BuildOutput.site == site,
                                                      BuildOutput.path.in_(stale[start:start + 500])))
    if kept:
        session.connection().execute(
            update(BuildOutput).where(BuildOutput.site == site, BuildOutput.path == bindparam("kept_path"))
            .values(digest=bindparam("kept_digest"), fingerprint=bindparam("kept_fingerprint"),
                    meta=bindparam("kept_meta", type_=BuildOutput.__table__.c.meta.type),
                    mtime_ns=bindparam("kept_mtime_ns")),
            [{"kept_path": path, "kept_digest": output.digest, "kept_fingerprint": output.fingerprint,
              "kept_meta": output.meta, "kept_mtime_ns": stamps.get(path)} for path, output in sorted(kept.items())])
    rows = [{"site": site, "path": path, "digest": output.digest, "fingerprint": output.fingerprint,
             "reads": output.reads, "meta": output.meta, "mtime_ns": stamps.get(path)}
            for path, output in sorted(changed.items())]
    for start in range(0, len(rows), 2000):
        session.execute(insert(BuildOutput), rows[start:start + 2000])
    # Files written again with their rows as they were (made again after a change by hand): their new times.
    touched = [{"touched_path": path, "touched_mtime_ns": stamp} for path, stamp in sorted(stamps.items())
               if path not in changed and path not in kept]
    if touched and not replace_all:
        session.connection().execute(
            update(BuildOutput).where(BuildOutput.site == site, BuildOutput.path == bindparam("touched_path"))
            .values(mtime_ns=bindparam("touched_mtime_ns")), touched)
    run = session.get(BuildRun, site)
    if run is None:
        session.add(BuildRun(site=site, snapshot=snapshot_hash, finished_at=now, graph=graph.encode(),
                             written_ns=written_ns))
    else:
        run.snapshot, run.finished_at, run.graph, run.written_ns = snapshot_hash, now, graph.encode(), written_ns
