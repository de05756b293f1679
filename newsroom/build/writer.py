"""Writing a built site atomically, rewriting only the files whose bytes changed.

A build that starts from nothing (the first, or `--full`) assembles a new
tree beside the published one: unchanged files are hard-linked from it (their
bytes are not written again), changed files are written, files no output
claims any more are left out, and the two folders are exchanged in one step
(Linux renameat2), so a reader, or a build killed at any point, sees the old
site or the new one, never a mix. An incremental build that changes few
files replaces only those, each in one step (see `apply_changes`). A build with nothing
changed writes nothing. Rendering happens before any of this, so a failed
build leaves the published folder as it was.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

#: File writes release the GIL; a few threads overlap the waits of creating files.
WRITE_THREADS = 4


@dataclass(frozen=True)
class WriteStats:
    written: int
    unchanged: int
    removed: int


class OutputClash(Exception):
    """Two outputs claim the same path."""


def collect(outputs: Iterable[tuple[str, bytes]]) -> dict[str, bytes]:
    """{relative path: bytes}, refusing two outputs for one path."""
    files: dict[str, bytes] = {}
    for path, data in outputs:
        if path in files:
            raise OutputClash(f"two outputs claim {path}")
        files[path] = data
    return files


def existing_files(out: Path) -> set[str]:
    """Every file under `out`, relative, with `/`."""
    if not out.is_dir():
        return set()
    return {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() or p.is_symlink()}


def changed_since(out: Path, stamps: Mapping[str, int | None], written_ns: int | None) -> set[str]:
    """The files of `stamps` ({relative path: its modification time as a build left it}) that are no longer
    in `out` as that build left them: gone, no longer a file, or with another modification time — changed
    by hand, or put back from a copy (which keeps the copy's time, earlier than the build's). A file with
    no time recorded counts as changed when modified after `written_ns`, when the build had its files in
    place (ns since the epoch); without that time either, only when gone.

    Not the change time (ctime): linking a file into a new tree, or `chmod`, sets it without changing a byte.
    """
    changed: set[str] = set()
    for path, stamp in stamps.items():
        try:
            found = os.stat(os.path.join(out, path))
        except OSError:
            changed.add(path)
            continue
        if not stat.S_ISREG(found.st_mode) or (
                not _same_time(found.st_mtime_ns, stamp) if stamp is not None
                else written_ns is not None and found.st_mtime_ns > written_ns):
            changed.add(path)
    return changed


#: The units a file system may keep a file's time in (ns): the microsecond, the millisecond, the second, two.
_TIME_UNITS = (1_000, 1_000_000, 1_000_000_000, 2_000_000_000)


def _same_time(found: int, recorded: int) -> bool:
    """Whether a file's modification time is the one recorded, or that time as a file system that keeps
    coarser times gives it back later (a network file system, a FAT disk): truncated to its unit."""
    return found == recorded or (found < recorded and any(found == recorded - recorded % unit for unit in _TIME_UNITS))


def stamps_of(out: Path, relative: Iterable[str]) -> dict[str, int]:
    """The modification time of each of these files in `out` (ns since the epoch; one that is gone is left out)."""
    found: dict[str, int] = {}
    for path in relative:
        try:
            found[path] = os.stat(os.path.join(out, path)).st_mtime_ns
        except OSError:
            continue
    return found


def unchanged_on_disk(out: Path, relative: str, data: bytes) -> bool:
    """True when the file already holds exactly `data` (a size check first, then the bytes)."""
    path = out / relative
    try:
        return path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


def _replace(root: Path, relative: str, data: bytes, scratch: Path | None = None) -> None:
    """Write one file; with `scratch` (a folder outside `root`, same file system) it is written
    there first and renamed into place, so a reader never sees it half-written."""
    target = root / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    if scratch is None:
        target.write_bytes(data)
        return
    temporary = scratch / hashlib.sha1(relative.encode("utf-8", "surrogatepass")).hexdigest()
    temporary.write_bytes(data)
    os.replace(temporary, target)


def _write_all(root: Path, files: Mapping[str, bytes], scratch: Path | None = None) -> None:
    with ThreadPoolExecutor(max_workers=WRITE_THREADS) as pool:
        list(pool.map(lambda item: _replace(root, *item, scratch), sorted(files.items())))


#: The folders a build of NAME makes beside it while writing: its new tree, the tree it retires, the
#: scratch folder of in-place writes (`.NAME.new-…` and so on). A killed build leaves them behind.
WORK_FOLDERS = ("new", "old", "write")


def clear_leftovers(out: Path) -> None:
    """Remove what builds of `out` killed midway left beside it. For the build that holds the folder (see
    the build's lock), as it starts: another build's work folders would be in use."""
    if not out.parent.is_dir():
        return
    prefixes = tuple(f".{out.name}.{kind}-" for kind in WORK_FOLDERS)
    for leftover in out.parent.iterdir():
        if leftover.name.startswith(prefixes):
            shutil.rmtree(leftover, ignore_errors=True)


def apply_changes(out: Path, writes: Mapping[str, bytes], removals: Iterable[str], *,
                  in_place: bool = False) -> None:
    """Make `out` hold `writes` (changed files only) and lose `removals`; see the module docstring.

    By default the new tree is assembled beside `out`: unchanged files are hard-linked from
    the published tree (no bytes rewritten), changed files written, and the two folders are
    exchanged in one step, so a build killed at any point leaves the old site or the new one.
    That costs a link per file, so an incremental build passes `in_place`: each changed file
    replaces its old self in one step (written beside it, then renamed over it) and removed
    files are deleted; a build killed midway leaves each file old or new, and the next build,
    which still sees the state recorded before it, finishes the change.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    removed = set(removals)
    if out.exists() and not writes and not removed:
        return
    if in_place and out.is_dir():
        scratch = Path(tempfile.mkdtemp(prefix=f".{out.name}.write-", dir=out.parent))
        try:
            _write_all(out, writes, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        for relative in sorted(removed):
            (out / relative).unlink(missing_ok=True)
            _prune_empty(out, (out / relative).parent)
        return
    tree = StagedTree(out)
    with discarded_on_error(tree):
        tree.finish(writes, removed)


class StagedTree:
    """A new tree assembled beside `out`, swapped in whole (see the module docstring).

    A build that remakes much of the site opens one before it renders and `write`s each file as
    it is made (threads write while the workers render, and the build need not hold every file's
    bytes); `finish` writes the rest, hard-links every published file neither written nor removed,
    and swaps the tree in, leaving the old one to a thread to remove while the build records its
    state (`wait` for it). `discard` drops it, leaving `out` as it was.
    """

    def __init__(self, out: Path) -> None:
        out.parent.mkdir(parents=True, exist_ok=True)
        self.out = out
        self.published = out.is_dir()  # else every file is new
        self.staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
        self.written: set[str] = set()
        self._pool = ThreadPoolExecutor(max_workers=WRITE_THREADS)
        self._pending: list[Future[None]] = []
        self._removal: threading.Thread | None = None

    def write(self, relative: str, data: bytes) -> None:
        """Write one file of the new tree, in a thread (its errors are raised by `finish`)."""
        self.written.add(relative)
        self._pending.append(self._pool.submit(_replace, self.staging, relative, data))

    def write_here(self, relative: str, data: bytes) -> None:
        """Write one file of the new tree now, in the calling thread: for a forked render worker, which
        has none of this tree's threads (the build process then `adopt`s the file)."""
        _replace(self.staging, relative, data)

    def adopt(self, relative: str) -> None:
        """Count a file another process wrote into the new tree (see `write_here`) as written."""
        self.written.add(relative)

    def write_made(self, relative: str, make: Callable[[], bytes]) -> None:
        """Write one file of the new tree whose bytes `make()` gives, called in the writing thread: many
        such files queued at once hold no bytes until each is written."""
        self.written.add(relative)
        self._pending.append(self._pool.submit(lambda: _replace(self.staging, relative, make())))

    def finish(self, writes: Mapping[str, bytes], removed: set[str]) -> None:
        """Write `writes` too, link what is unchanged, and put the new tree at `out`."""
        for relative, data in sorted(writes.items()):
            self.write(relative, data)
        self._pool.shutdown(wait=True)
        for future in self._pending:
            future.result()
        if not self.written and not removed and self.out.exists():
            self.discard()  # nothing changed: the published tree stays
            return
        for relative in sorted(existing_files(self.out) - removed - self.written):
            target = self.staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            os.link(self.out / relative, target)
        retired = _swap_in(self.staging, self.out, remove=False)
        if retired is not None:  # removed by a thread while the build records its state (see `wait`)
            self._removal = threading.Thread(target=shutil.rmtree, args=(retired, True))
            self._removal.start()

    def wait(self) -> None:
        """Wait until the old tree `finish` swapped out is removed."""
        if self._removal is not None:
            self._removal.join()

    def discard(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        shutil.rmtree(self.staging, ignore_errors=True)


@contextmanager
def discarded_on_error(tree: StagedTree | None) -> Iterator[None]:
    """The new tree is dropped if what runs here fails: the published folder stays as it was."""
    try:
        yield
    except BaseException:
        if tree is not None:
            tree.discard()
        raise


def _prune_empty(root: Path, folder: Path) -> None:
    """Remove `folder` and its parents up to `root` while they are empty."""
    while folder != root and root in folder.parents:
        try:
            folder.rmdir()
        except OSError:  # not empty, or already gone
            return
        folder = folder.parent


def _swap_in(staging: Path, out: Path, *, remove: bool = True) -> Path | None:
    """Put the finished tree `staging` at `out`, atomically where the system can exchange folders.

    The old tree is removed, or (`remove=False`) its folder returned for the caller to remove."""
    if not out.exists():
        os.replace(staging, out)
        return None
    if _exchange(staging, out):
        retired = staging  # now holds the old tree
    else:
        retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        os.replace(out, retired / "site")  # no atomic exchange here: `out` is briefly absent
        os.replace(staging, out)
    if not remove:
        return retired
    shutil.rmtree(retired, ignore_errors=True)
    return None


def _place(new_root: Path, old_root: Path, relative: str, data: bytes) -> bool:
    """Write one file into the new tree (hard-linked from the old one when unchanged); True when new."""
    target = new_root / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    previous = old_root / relative
    try:
        if previous.stat().st_size == len(data) and previous.read_bytes() == data:
            os.link(previous, target)
            return False
    except OSError:
        pass
    target.write_bytes(data)
    return True


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(first: Path, second: Path) -> bool:
    """Swap two directories in one step (Linux renameat2 RENAME_EXCHANGE); False where unsupported.

    With two plain renames a process killed between them leaves no published
    folder at all; the exchange leaves either the old tree or the new one.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    return renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0


def write_site(out: Path, files: dict[str, bytes]) -> WriteStats:
    """Replace the folder `out` by exactly `files`, atomically from a reader's view (a new tree, swapped in).

    For small folders written whole on every build (the email folder); the site itself
    goes through `apply_changes`.
    """
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    try:
        with ThreadPoolExecutor(max_workers=WRITE_THREADS) as pool:
            changed = list(pool.map(lambda item: _place(staging, out, *item), sorted(files.items())))
        old_files = existing_files(out)
        _swap_in(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return WriteStats(written=sum(changed), unchanged=len(changed) - sum(changed),
                      removed=len(old_files - set(files)))
