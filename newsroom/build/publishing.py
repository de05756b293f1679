"""Publishing what a build made: which files differ from the published tree, writing them, and recording
the new state (the files' hashes and times, the dependency graph, the memos)."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine

from newsroom.build import state
from newsroom.build.graph import Graph, Readers
from newsroom.build.memos import Memo, save_memos
from newsroom.build.pipeline import code_version, folder_as_left
from newsroom.build.values import Values
from newsroom.build.writer import (StagedTree, WriteStats, apply_changes, existing_files, stamps_of,
                                   unchanged_on_disk, write_site)
from newsroom.db.session import quick_commit, session_factory

#: An incremental build writing at most 1/IN_PLACE_SHARE of the files replaces them in place.
IN_PLACE_SHARE = 10


@dataclass(frozen=True)
class Made:
    """A file this build made: its bytes and its state row."""

    data: bytes | None  # None: handed to the build's StagedTree as it was made
    output: state.Output


def published(previous: state.Previous | None, out: Path, path: str) -> bool:
    """Whether the published file is there as the last build left it."""
    if previous is not None and path in previous.outputs:
        return path not in previous.changed  # the build looked at each of them as it started
    return os.path.isfile(os.path.join(out, path))  # os.path: a path object per file costs more than this


def unchanged(previous: state.Previous | None, out: Path, path: str, digest: str, data: bytes) -> bool:
    """Whether the published file already holds these bytes: as recorded, else as read from disk."""
    known = previous.outputs.get(path) if previous is not None else None
    if known is not None:
        return known.digest == digest and published(previous, out, path)
    return unchanged_on_disk(out, path, data)


def publish(engine: Engine, out: Path, made: dict[str, Made], previous: state.Previous | None,
            claimed: set[str], snapshot: str, memos: Mapping[str, Memo], values: Values,
            tree: StagedTree | None, emails: tuple[Path, dict[str, bytes]] | None = None) -> WriteStats:
    """Write what changed, remove what nothing makes, then record the new state (after the files).

    `claimed` is every output of this build, `made` those it made (the rest are known unchanged);
    it is emptied once the files are written, so their bytes are not held while the state is saved.
    With a `tree`, the made files went there as they were made (their bytes are None here); what
    else changed joins them and the tree is swapped in. `emails` (their folder and files) are written
    whole after the site, and recorded with it: the next build makes them again if they are not as
    written (see pipeline._build). A folder that holds them as the last build recorded and left them
    is not touched, except by a first or full build (which ignores the state).
    """
    if previous is not None:  # what the made outputs are compared with
        previous.fetch_reads(made)
    writes, outputs, removed = _changes(made, previous, out, claimed)
    made.clear()
    if tree is not None:
        tree.finish(writes, set(removed))
        new = tree.written
    else:
        new = set(writes)
        # A small change replaces its files one by one; a large one (a template, a new issue in every
        # masthead) swaps in a whole new tree, where the links cost little beside the writes.
        in_place = previous is not None and len(new) + len(removed) <= len(claimed) // IN_PLACE_SHARE
        apply_changes(out, writes, removed, in_place=in_place)
    del writes
    # The rows recorded anew, and those recorded without a time (by an older release): they get one now.
    timeless = [path for path, stamp in previous.stamps.items() if stamp is None and path in claimed] \
        if previous is not None else []
    stamps, written_ns = _in_place(out, new, [*outputs, *timeless], previous)
    emails_made: dict[str, str] | None = None  # the email files' hashes, when the folder is written
    email_stamps: dict[str, int | None] = {}
    if emails is not None:
        emails_made = {path: hashlib.sha256(data).hexdigest() for path, data in emails[1].items()}
        emails_at = _as_recorded(engine, emails[0], emails_made) if previous is not None else None
        if emails_at is None:
            write_site(*emails)
            email_stamps, emails_at = _in_place(emails[0], emails[1])
        else:  # it holds these very files as the last build wrote them: left alone, not swapped for a copy
            emails_made = None
    graph = _graph(previous, outputs, removed, values)
    now = dt.datetime.now(dt.timezone.utc)
    with quick_commit(engine) as session:
        state.save(session, str(out), snapshot, outputs, removed, now, graph,
                   replace_all=previous is None, written_ns=written_ns, stamps=stamps)
        if emails is not None:
            state.save_folder(session, str(emails[0].resolve()), snapshot, now, emails_at, emails_made,
                              email_stamps)
        save_memos(session, memos, code_version())
    return WriteStats(len(new), len(claimed) - len(new), len(removed))


def _as_recorded(engine: Engine, folder: Path, digests: Mapping[str, str]) -> int | None:
    """When the last build put its files in `folder` (ns since the epoch), if the folder holds exactly the
    files of `digests`, recorded with those hashes and unchanged since; else None (it is written again)."""
    with session_factory(engine)() as session:
        _, last, recorded = state.last_folder(session, str(folder.resolve()))
    return last.written_ns if recorded == digests and folder_as_left(folder, last) else None


def _in_place(out: Path, written: Iterable[str], rows: Iterable[str] = (), previous: state.Previous | None = None
              ) -> tuple[dict[str, int | None], int]:
    """The modification times to record (see state.BuildOutput.mtime_ns), and when the files are all in
    place (ns since the epoch: now, or the latest time this build's files got if later, as a file system
    may round its times up).

    The times are those of the files `written`, and of each other file whose row is recorded anew
    (`rows`): the time the last build recorded, the file being as it left it, or the time it has now
    (none was recorded, or the build found the file as it is and linked it)."""
    now = time.time_ns()
    found = stamps_of(out, written)
    latest = max(now, max(found.values(), default=now))
    stamps: dict[str, int | None] = dict(found)
    known = previous.stamps if previous is not None else {}
    carried = {path: known.get(path) for path in rows if path not in stamps}
    stamps.update(carried)
    stamps.update(stamps_of(out, [path for path, stamp in carried.items() if stamp is None]))
    return stamps, latest


def _changes(made: Mapping[str, Made], previous: state.Previous | None, out: Path,
             claimed: set[str]) -> tuple[dict[str, bytes], dict[str, state.Output], list[str]]:
    """Which made files differ from what is published, which state rows change, what goes away."""
    writes: dict[str, bytes] = {}
    outputs: dict[str, state.Output] = {}
    for path, item in made.items():
        known = previous.outputs.get(path) if previous is not None else None
        if known != item.output:
            outputs[path] = item.output
        if item.data is not None and not unchanged(previous, out, path, item.output.digest, item.data):
            writes[path] = item.data
    before = set(previous.outputs) if previous is not None else existing_files(out)
    return writes, outputs, sorted(before - claimed)


def _graph(previous: state.Previous | None, changed: Mapping[str, state.Output], removed: list[str],
           values: Values) -> Graph:
    """The graph after this build: the last one with the changed and removed outputs' reads taken
    out and the changed ones' put in; every root's value now."""
    known = previous.outputs if previous is not None else {}
    # An output remade with its reads as stored (a spliced page, see Masthead) reads under the same roots.
    changed = {path: output for path, output in changed.items() if not isinstance(output, state.StoredOutput)}
    redone = [path for path in (*changed, *removed) if path in known]
    whole = previous is None or previous.graph is None or len(redone) > len(known) // 2 \
        or len(previous.graph.readers.paths) > 2 * len(known)  # its table holds many paths gone since
    if previous is not None:
        previous.fetch_reads(None if whole else redone)
    if whole:
        # From the reads of every output: those kept decoded from the state, the rest as made; numbered
        # in path order, so each root's readers come in order.
        reads = {path: output for path, output in known.items() if path not in changed and path not in removed}
        reads.update(changed)
        paths = sorted(reads)
        found: dict[str, list[int]] = {}
        for position, path in enumerate(paths):
            for root in _roots(reads[path]):
                found.setdefault(root, []).append(position)
        readers = Readers.numbered(paths, found)
    else:
        graph = previous.graph
        touched: dict[str, set[str]] = {}
        for path in {*changed, *removed}:
            before = set(_roots(known[path])) if path in known else set()
            after = set(_roots(changed[path])) if path in changed else set()
            for root in before - after:
                touched.setdefault(root, set(graph.readers.get(root))).discard(path)
            for root in after - before:
                touched.setdefault(root, set(graph.readers.get(root))).add(path)
        if not touched:  # no output reads under other roots than it did (most edits): stored as it was read
            return Graph(values.hashes(graph.readers), graph.readers, graph.stored)
        readers = graph.readers.replaced(touched)
    return Graph(values.hashes(readers), readers)


def _roots(output: state.Output) -> Iterable[str]:
    """The roots an output read under: as its work found them, or from its stored reads."""
    return output.roots if output.roots is not None else output.stored_roots()
