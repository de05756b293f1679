"""Writing a built site atomically: a new tree beside the old one, swapped in at the end.

A failed or interrupted build never touches the published folder; files no
output claims any more disappear with the old tree. Unchanged files are
hard-linked from the previous tree instead of rewritten.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import tempfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path


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


def _place(new_root: Path, old_root: Path, relative: str, data: bytes) -> bool:
    """Write one file into the new tree; returns True when its bytes are new."""
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
    """Replace the folder `out` by exactly `files`, atomically from a reader's view."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    try:
        # File writes release the GIL, so a few threads overlap the disk waits.
        with ThreadPoolExecutor(max_workers=4) as pool:
            changed = list(pool.map(lambda item: _place(staging, out, *item), sorted(files.items())))
        old_files = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()} if out.exists() else set()
        retired = None
        if out.exists() and _exchange(staging, out):
            retired = staging  # now holds the old tree
        elif out.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            os.replace(out, retired / "site")  # no atomic exchange here: `out` is briefly absent
            os.replace(staging, out)
        else:
            os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)
    return WriteStats(written=sum(changed), unchanged=len(changed) - sum(changed),
                      removed=len(old_files - set(files)))
