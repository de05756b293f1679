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
import itertools
import marshal
import operator
import os
import sys
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import lz4.frame
from sqlalchemy import (JSON, BigInteger, Engine, LargeBinary, String, UniqueConstraint, bindparam, delete, func,
                        insert, or_, select, update)
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Mapped, Session, mapped_column

from newsroom.db.base import Base, IntPK
from newsroom.db.session import busy

MARSHAL_TAG = f"marshal:{marshal.version}:{sys.version_info[0]}.{sys.version_info[1]}".encode()
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


def pack(data: bytes) -> bytes:
    """Compressed as the build state keeps its blobs: LZ4 frames (a build reads tens of megabytes
    of them; zlib took five times as long to unpack)."""
    return lz4.frame.compress(data)


def unpack(data: bytes) -> bytes:
    """The bytes `pack` was given; RuntimeError when `data` is no LZ4 frame."""
    return lz4.frame.decompress(data)


def tagged(data: bytes) -> tuple[bytes, memoryview]:
    """A stored blob's tag (the line before its payload) and its payload, not copied: a shard of the
    records memo is megabytes, and marshal reads from a view."""
    end = data.index(b"\n")
    return data[:end], memoryview(data)[end + 1:]


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


#: The layout of a stored graph, and the way keys fall under roots (tracking.Values.root): one stored in
#: another is not read (the build then works without it, and works out the roots of what it remakes).
#: 4: whether one item is in a derived sequence is a root of its own.
GRAPH_FORMAT = 4


class Readers:
    """Each root's readers (see Graph): every output path once, in a table (`paths`), and for each root
    the positions of its readers in that table, packed as little-endian 32-bit numbers (`numbers`).

    A build reads the whole graph but asks for the readers of the few roots whose value changed. A
    list of paths per root would unmarshal as one object reference per reader — hundreds of
    thousands at scale, most of a one-edit build's state read — where these are one bytes object per
    root, read as paths only when asked for.
    """

    def __init__(self, paths: list[str], numbers: dict[str, bytes]) -> None:
        self.paths = paths
        self.numbers = numbers

    @classmethod
    def numbered(cls, paths: list[str], positions: Mapping[str, list[int]]) -> Readers:
        """From the path table and {root: its readers' positions in it, in order}."""
        return cls(paths, {root: _positions(found) for root, found in positions.items()})

    def __len__(self) -> int:
        return len(self.numbers)

    def __iter__(self) -> Iterator[str]:
        """The roots."""
        return iter(self.numbers)

    def get(self, root: str) -> list[str]:
        """The paths of the outputs that read under `root`, in order (none for a root no output read under)."""
        found = self.numbers.get(root)
        if not found:
            return []
        positions = array("I", found)
        if sys.byteorder == "big":
            positions.byteswap()
        return [self.paths[position] for position in positions]

    def replaced(self, changes: Mapping[str, Iterable[str]]) -> Readers:
        """These readers with the readers of some roots replaced (none: the root goes); paths new to the
        table join its end. Paths no root reads any more stay in the table until the graph is made whole
        again (build/publishing.py, `_graph`: when the table holds twice as many paths as the folder has files)."""
        table = {path: position for position, path in enumerate(self.paths)}
        numbers = dict(self.numbers)
        for root, paths in changes.items():
            found = [table.setdefault(path, len(table)) for path in sorted(paths)]
            if found:
                numbers[root] = _positions(found)
            else:
                numbers.pop(root, None)
        return Readers(list(table), numbers)

    def encode(self) -> bytes:
        return _packed([self.paths, self.numbers])

    @classmethod
    def decode(cls, data: bytes) -> Readers:
        paths, numbers = marshal.loads(unpack(data))
        if not isinstance(paths, list) or not isinstance(numbers, dict):
            raise TypeError("not a readers table")
        return cls(paths, numbers)


def _positions(numbers: list[int]) -> bytes:
    packed = array("I", numbers)
    if sys.byteorder == "big":
        packed.byteswap()
    return packed.tobytes()


@dataclass
class Graph:
    """Who read what, by root: for each root (a record, one value of a derived mapping, a collection's
    key list; see tracking.Values.root) the outputs that read a key under it, and its value then.

    Every key's value is a function of its root's value, so an output none of whose roots changed
    has no changed read: a build compares the roots (tens of thousands) and decodes and compares the
    reads only of the outputs under a changed one, not every output's (a million reads at scale).

    The readers (see Readers) are stored apart from the values, and a graph whose readers are those
    it was read with (`stored`: their stored bytes) stores those bytes again rather than encoding them
    anew: an edit that changes no page's list of roots.
    """

    values: dict[str, str]
    readers: Readers
    stored: bytes | None = field(default=None, compare=False, repr=False)

    def encode(self) -> bytes:
        readers = self.stored if self.stored is not None else self.readers.encode()
        return MARSHAL_TAG + b"\n" + marshal.dumps([GRAPH_FORMAT, _packed(self.values), readers])

    @staticmethod
    def decode(data: bytes | None) -> Graph | None:
        """The stored graph; None when there is none, or another Python or layout wrote it."""
        if not data:
            return None
        try:
            version, payload = tagged(data)
            if version != MARSHAL_TAG:
                return None
            layout, values, readers = marshal.loads(payload)
            if layout != GRAPH_FORMAT:
                return None
            return Graph(marshal.loads(unpack(values)), Readers.decode(readers), readers)
        except (ValueError, EOFError, TypeError, RuntimeError):
            return None


def _packed(value: Any) -> bytes:
    return pack(marshal.dumps(value))


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


class BuildMemo(Base):
    """Remembered results of pure work: one namespace in SHARDS rows, each a compressed object.

    Few rows, not one per result: reading 90,000 small values row by row costs
    seconds, a handful of decompress-and-parse steps a tenth of that. A
    namespace is split by the first character of its keys (hex digests), so a
    build that adds a few results rewrites only their shards. The payload is
    `marshal` (plain dicts, lists and strings; several times faster to read
    than JSON), tagged with the Python version that wrote it. It only ever
    holds what the build computed from the database itself.
    """

    __tablename__ = "build_memos"

    namespace: Mapped[str] = mapped_column(String(40), primary_key=True)  # "<namespace>/<shard>"
    data: Mapped[bytes] = mapped_column(LargeBinary)  # packed (see `pack`), tagged marshal: {key: value}


#: The shards of a namespace: the first character of a key (keys are hex digests; others go to "_").
SHARDS = "0123456789abcdef"


def shard_names(width: int) -> list[str]:
    return [*("".join(chars) for chars in itertools.product(SHARDS, repeat=width)), "_"]


#: The hex shard names of each width, looked up for every key a build uses (tens of thousands).
_HEX_NAMES = {width: frozenset(shard_names(width)[:-1]) for width in (1, 2)}


def shard_of(key: str, width: int = 1) -> str:
    """The shard of a key: its first `width` characters when they are hex digits, else "_"."""
    first = key[:width]
    return first if first in _HEX_NAMES[width] else "_"


class Memo:
    """One namespace of remembered results: what the last build knew, what this build used and added.

    Stored shards are decoded when a key of theirs is first asked for: a build
    that looks up a few results of a large namespace decodes a few shards.
    A build looks up everything it will ever need again of most namespaces
    (records, mentions, checks: every record each build); the results it did
    not use are dropped when their shard is rewritten (`collect`), so the memo
    tracks the content's size. A `partial` namespace, read only in part
    (Markdown references of the texts a build renders), keeps what it is not
    told to `forget` until a full build, and has 256 small shards instead of 16.
    """

    def __init__(self, known: Mapping[str, Any] | None = None, *, replace: bool = False,
                 stored: Mapping[str, bytes] | None = None, partial: bool = False) -> None:
        self.width = 2 if partial else 1  # of a shard's name
        self.known = dict(known or {})
        self.replace = replace  # a full build: what is stored is not read, and is replaced
        self.collect = not partial
        self.used: set[str] = set()
        self.added: dict[str, Any] = {}
        self._stored = dict(stored or {})  # shard → its stored bytes, until decoded
        self._head = operator.itemgetter(slice(0, self.width))  # a key's would-be shard name
        self._sizes: Counter[str] = self._count(self.known)  # results per decoded shard
        self._undrained: list[str] = []  # used since the last drain
        self._new: dict[str, Any] = {}  # added since the last drain
        self._forgotten: set[str] = set()  # the shards that had a result forgotten: stored again

    def _shard(self, key: str) -> str:
        return shard_of(key, self.width)

    def _count(self, keys: Iterable[str]) -> Counter[str]:
        """How many of `keys` each shard holds: counted by their first characters at C speed (a build
        counts the tens of thousands it used), then those of no hex shard together."""
        counts: Counter[str] = Counter()
        hexes = _HEX_NAMES[self.width]
        for head, count in Counter(map(self._head, keys)).items():
            counts[head if head in hexes else "_"] += count
        return counts

    @property
    def empty(self) -> bool:
        """Whether it knows nothing at all (a first or full build's, before any result came in)."""
        return not (self.known or self._stored or self.added)

    def _decode(self, shard: str) -> None:
        data = self._stored.pop(shard, None)
        if data is not None:
            found = _decode(data)
            self.known.update(found)
            self._sizes[shard] = len(found)

    def get(self, key: str) -> Any:
        if key in self.added:
            return self.added[key]
        if self._stored:
            self._decode(self._shard(key))
        found = self.known.get(key)
        if found is not None and key not in self.used:
            self.used.add(key)
            self._undrained.append(key)
        return found

    def put(self, key: str, value: Any) -> None:
        self.added[key] = value
        self._new[key] = value

    def unused(self, prefix: str = "") -> dict[str, Any]:
        """What the last build knew under keys starting with `prefix` and this one did not use (nor add),
        their shards decoded: of a namespace the build reads in full, the results nothing needs any more."""
        for shard in [self._shard(prefix)] if len(prefix) >= self.width else list(self._stored):
            self._decode(shard)
        return {key: value for key, value in self.known.items()
                if key.startswith(prefix) and key not in self.used and key not in self.added}

    def forget(self, keys: Iterable[str]) -> None:
        """Drop these known results (those this build added stay): their shards are stored again without them."""
        for key in keys:
            if key in self.added:
                continue
            shard = self._shard(key)
            self._decode(shard)
            if self.known.pop(key, None) is not None:
                self.used.discard(key)
                self._sizes[shard] -= 1
                self._forgotten.add(shard)

    def drain(self) -> tuple[list[tuple[str, Any]], list[str]]:
        """What was added and used since the last drain: a forked worker sends it to the build."""
        added, used = list(self._new.items()), self._undrained
        self._new, self._undrained = {}, []
        return added, used

    def merge(self, added: list[tuple[str, Any]], used: list[str]) -> None:
        """Take in what a worker drained (see drain)."""
        self.added.update(added)  # not to be sent on: this is where it goes
        if not self.collect:
            # Noted as used, not looked up: a partial one's workers use keys of most of its many shards,
            # which decoding here only to check them would cost a tenth of a second after a one-story edit.
            self.used.update(used)
            return
        for key in used:
            if self._stored:
                self._decode(self._shard(key))
            if key in self.known:
                self.used.add(key)

    def shards(self) -> dict[str, dict[str, Any]]:
        """The shards worth storing again, each with what to keep. A shard is rewritten when it got
        something new or forgot something, or (collecting) when a quarter of it went unused; a full
        build rewrites all.
        Collecting, a rewritten shard keeps what this build used or added; else all it held."""
        if self.collect:
            for shard in list(self._stored):
                self._decode(shard)
        used = self._count(self.used)
        fresh = {self._shard(key) for key in self.added}
        known = self._sizes
        chosen: dict[str, dict[str, Any]] = {
            shard: {} for shard in sorted({*known, *self._stored, *fresh})
            if self.replace or shard in fresh or shard in self._forgotten
            or (self.collect and known[shard] - used[shard] > known[shard] // 4)}
        for shard in chosen:
            self._decode(shard)
        kept = self.used if self.collect else self.known
        if chosen:
            hexes = _HEX_NAMES[self.width]
            for key, head in zip(kept, map(self._head, kept)):
                shard = head if head in hexes else "_"
                if shard in chosen:
                    chosen[shard][key] = self.known[key]
        for key, value in self.added.items():
            chosen[self._shard(key)][key] = value
        return chosen


def fresh_memos(namespaces: Iterable[str], partial: Iterable[str] = ()) -> dict[str, Memo]:
    """Empty memos that replace what is stored (a full build), sharded as `load_memos` reads them."""
    partial = set(partial)
    return {name: Memo(replace=True, partial=name in partial) for name in namespaces}


#: The row that names the code the stored memos were computed by (see `load_memos`).
MEMO_CODE = "code"


def load_memos(session: Session, namespaces: Iterable[str], partial: Iterable[str] = (),
               code: str | None = None) -> dict[str, Memo]:
    """The stored shards of `namespaces`, in one query (decoded on use); those in `partial` are
    read only in part by a build, so kept whole (see Memo).

    With `code` (the engine's `code_version`), memos another code computed are not read: fresh ones
    replace them, as in a full build. Each is the result of the engine's own work (a text's Markdown
    rendered, a record's problems, its mentions), which new code, or a new version of a library it
    renders with, may do otherwise; a page made again from an old result would differ from the same
    page in a full build."""
    names, partial = list(namespaces), set(partial)
    shards = [f"{name}/{shard}" for name in names for shard in shard_names(2 if name in partial else 1)]
    stored: dict[str, dict[str, bytes]] = {name: {} for name in names}
    made_by: bytes | None = None
    for namespace, data in session.execute(select(BuildMemo.namespace, BuildMemo.data).where(
            BuildMemo.namespace.in_([*shards, *([MEMO_CODE] if code is not None else [])]))):
        if namespace == MEMO_CODE:
            made_by = data
            continue
        name, _, shard = namespace.partition("/")
        stored[name][shard] = data
    if code is not None and made_by != code.encode():
        return fresh_memos(names, partial)
    return {name: Memo(stored=stored[name], partial=name in partial) for name in names}


def _decode(data: bytes) -> dict[str, Any]:
    """A stored shard; empty when it was written by another Python (marshal's format may differ)."""
    try:
        version, payload = tagged(unpack(data))
        if version != MARSHAL_TAG:
            return {}
        found = marshal.loads(payload)
    except (ValueError, EOFError, TypeError, RuntimeError):
        return {}
    return found if isinstance(found, dict) else {}


#: The PostgreSQL advisory lock a build holds while it stores the memos (an arbitrary 64-bit key).
MEMO_LOCK = 0x6E65_7773_6D65_6D6F


def save_memos(session: Session, memos: Mapping[str, Memo], code: str | None = None) -> None:
    """Store the shards of each namespace that changed (see Memo.shards), in a few statements; with
    `code`, the code that computed them, once fresh memos replace the stored ones (see `load_memos`).

    The memos are the database's, not one folder's: builds of two folders at once (the site, and an
    editor's preview, on a team's shared database) each store the shards they changed, often the same
    ones after the same edit. Each stores its own in turn, so the last stored is whole and no two
    inserts of one shard meet: on PostgreSQL the build takes a lock held until its commit (on SQLite
    the database's own write lock serialises the two). Either build's shard is right: each result is
    keyed by the hash of what it was made from."""
    writes = {namespace: {f"{namespace}/{shard}": kept for shard, kept in memo.shards().items()}
              for namespace, memo in memos.items()}
    fresh = any(memo.replace for memo in memos.values())
    if not fresh and not any(writes.values()):
        return
    if session.get_bind().dialect.name == "postgresql":
        session.execute(select(func.pg_advisory_xact_lock(MEMO_LOCK)))
    if code is not None and fresh:
        session.execute(delete(BuildMemo).where(BuildMemo.namespace == MEMO_CODE))
        session.execute(insert(BuildMemo), [{"namespace": MEMO_CODE, "data": code.encode()}])
    for namespace, memo in memos.items():
        shards = writes[namespace]
        if memo.replace:  # also the rows of an earlier layout (one per namespace)
            session.execute(delete(BuildMemo).where(or_(BuildMemo.namespace == namespace,
                                                        BuildMemo.namespace.startswith(f"{namespace}/"))))
        elif shards:
            session.execute(delete(BuildMemo).where(BuildMemo.namespace.in_(sorted(shards))))
        rows = [{"namespace": name, "data": pack(MARSHAL_TAG + b"\n" + marshal.dumps(kept))}
                for name, kept in sorted(shards.items()) if kept]
        if rows:
            session.execute(insert(BuildMemo), rows)
