"""The template folder a build uses, and the digest of a folder's files: what a build asks before it
knows whether anything changed, without loading Jinja (see build/pipeline.py)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from newsroom import project_folder

TEMPLATES = project_folder("templates")


def template_folder(configured: str) -> Path:
    """The templates a build uses: the folder set in the settings (`--templates`), else the bundled ones."""
    return Path(configured) if configured else TEMPLATES


#: Each folder's digest as worked out once in the build that runs (see `pinned_digests`).
_PINNED: list[dict[Path, str]] = []


@contextmanager
def pinned_digests() -> Iterator[None]:
    """While the block runs (a build), each folder's digest is worked out once: the build asks after its
    templates' for every template and language (seventy times for the bundled ones), each a walk of the
    folder. A template edited meanwhile is the next build's change."""
    _PINNED.append({})
    try:
        yield
    finally:
        _PINNED.pop()


def folder_digest(folder: Path) -> str:
    """A hash of every file under `folder` (names and bytes); re-read only when a file's stat changes."""
    if _PINNED:
        known = _PINNED[-1].get(folder)
        if known is None:
            known = _PINNED[-1][folder] = _digest_now(folder)
        return known
    return _digest_now(folder)


def _digest_now(folder: Path) -> str:
    stats = sorted((p.as_posix(), p.stat()) for p in folder.rglob("*") if p.is_file())
    return _folder_digest(folder, tuple((name, found.st_mtime_ns, found.st_size) for name, found in stats))


@lru_cache(maxsize=16)
def _folder_digest(folder: Path, signature: tuple[tuple[str, int, int], ...]) -> str:
    digest = hashlib.sha256()
    for name, _, _ in signature:
        path = Path(name)
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
