"""Writing a built site: only the files whose bytes changed, each replaced atomically.

The first build of a folder is written beside it and renamed into place, so
a reader sees no folder or a whole one. Later builds touch only what
changed: every changed file is written to a temporary name next to it and
`os.replace`d, so a reader sees either the old or the new bytes of a file,
never a half-written one; files that no output claims any more are removed
last, after the pages that linked to them have been replaced. A build with
nothing changed writes nothing. Rendering happens before any of this, so a
failed build leaves the published folder as it was.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
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


def unchanged_on_disk(out: Path, relative: str, data: bytes) -> bool:
    """True when the file already holds exactly `data` (a size check first, then the bytes)."""
    path = out / relative
    try:
        return path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


def _replace(root: Path, relative: str, data: bytes) -> None:
    target = root / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, target)


def _write_all(root: Path, files: Mapping[str, bytes]) -> None:
    with ThreadPoolExecutor(max_workers=WRITE_THREADS) as pool:
        list(pool.map(lambda item: _replace(root, *item), sorted(files.items())))


def apply_changes(out: Path, writes: Mapping[str, bytes], removals: Iterable[str]) -> None:
    """Make `out` hold `writes` (changed files only) and lose `removals`; see the module docstring."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists():
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
        try:
            _write_all(staging, writes)
            os.replace(staging, out)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return
    _write_all(out, writes)
    folders: set[Path] = set()
    for relative in sorted(removals):
        path = out / relative
        path.unlink(missing_ok=True)
        folders.update(parent for parent in path.parents if out in parent.parents)
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        try:
            folder.rmdir()  # only when empty
        except OSError:
            pass


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
        retired = None
        if out.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            os.replace(out, retired / "site")
        os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)
    return WriteStats(written=sum(changed), unchanged=len(changed) - sum(changed),
                      removed=len(old_files - set(files)))
