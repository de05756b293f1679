"""The graph of a built folder's reads, by root: which outputs read under each root, and its value then."""

from __future__ import annotations

import marshal
import sys
from array import array
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from newsroom.build.blobs import MARSHAL_TAG, pack, tagged, unpack


#: The layout of a stored graph, and the way keys fall under roots (values.Values.root): one stored in
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
    key list; see values.Values.root) the outputs that read a key under it, and its value then.

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
