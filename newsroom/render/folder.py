"""The template folder a build uses, and the digest of a folder's files: what a build asks before it
knows whether anything changed, without loading Jinja (see build/pipeline.py)."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from newsroom import project_folder

TEMPLATES = project_folder("templates")


def template_folder(configured: str) -> Path:
    """The templates a build uses: the folder set in the settings (`--templates`), else the bundled ones."""
    return Path(configured) if configured else TEMPLATES


def folder_digest(folder: Path) -> str:
    """A hash of every file under `folder` (names and bytes); re-read only when a file's stat changes."""
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    signature = tuple((p.as_posix(), p.stat().st_mtime_ns, p.stat().st_size) for p in files)
    return _folder_digest(folder, signature)


@lru_cache(maxsize=16)
def _folder_digest(folder: Path, signature: tuple[tuple[str, int, int], ...]) -> str:
    digest = hashlib.sha256()
    for name, _, _ in signature:
        path = Path(name)
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
