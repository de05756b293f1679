"""How the build state keeps its blobs (an output's reads, the graph, the memos' shards): compressed,
and tagged with the marshal format and Python version that wrote them."""

from __future__ import annotations

import marshal
import sys

import lz4.frame

MARSHAL_TAG = f"marshal:{marshal.version}:{sys.version_info[0]}.{sys.version_info[1]}".encode()


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
