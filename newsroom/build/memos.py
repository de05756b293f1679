"""Remembered results of the build's pure work, kept in the database in shards (see BuildMemo)."""

from __future__ import annotations

import itertools
import marshal
import operator
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import LargeBinary, String, delete, func, insert, or_, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from newsroom.build.blobs import MARSHAL_TAG, pack, tagged, unpack
from newsroom.db.base import Base


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
