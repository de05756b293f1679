"""The export manifest: which version of each record an exported file was written from.

`newsroom export DIR` writes `DIR/.newsroom-export.json` listing, per file, the
record's kind, key, version and content hash. When those files come back through
`newsroom import`, the manifest is the common ancestor of a three-way comparison
(the file, the record as exported, the record in the database now):

- the file still equals what was exported, but the database moved on: the file is
  merely stale, so the newer database version is kept (counted as "kept");
- the file was edited *and* the record moved on in the database and the two differ:
  both sides changed it — a conflict; the whole import is refused and nothing stored;
- otherwise the file is imported as usual.

This is stricter than "refuse when the database is newer" where it matters (an edit
on both sides) and kinder where it does not (an untouched stale file never reverts a
colleague's edit, and never blocks the rest of the run).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from newsroom.content.reader import FileRecord, LoadedRecord
from newsroom.diagnostics import ContentError, Diagnostic

NAME = ".newsroom-export.json"
FORMAT = 1


@dataclass(frozen=True)
class Base:
    """What an exported file was written from."""

    kind: str
    key: str
    version: int
    content_hash: str


def write(out: Path, bases: dict[str, Base]) -> None:
    """Write the manifest for the files of one export (relative path → base), atomically."""
    data = {"format": FORMAT, "records": {path: {"kind": b.kind, "key": b.key, "version": b.version,
                                                 "content_hash": b.content_hash} for path, b in sorted(bases.items())}}
    text = json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    target = out / NAME
    temporary = out / (NAME + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(target)


def read(folder: Path) -> dict[str, Base]:
    """The manifest of the export in `folder` (relative path → base); empty when there is none.

    A manifest that is there but cannot be read (cut short, a merge's conflict markers, another format) is
    refused (ContentError): importing without it would overwrite a colleague's changes made since the
    export without a word, which is what it is there to prevent.
    """
    path = folder / NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        raise _damaged(path, f"it cannot be read ({error})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise _damaged(path, f"it is not JSON ({error.msg}, column {error.colno})", error.lineno) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("records"), dict):
        raise _damaged(path, f"it is not an export manifest of format {FORMAT} (a mapping with \"format\" and "
                             "\"records\")")
    try:
        return {str(relative): Base(str(b["kind"]), str(b["key"]), int(b["version"]), str(b["content_hash"]))
                for relative, b in data["records"].items()}
    except (KeyError, TypeError, ValueError) as error:
        raise _damaged(path, f"a record in it lacks its kind, key, version or hash ({error!r})") from None


def _damaged(path: Path, why: str, line: int | None = None) -> ContentError:
    return ContentError([Diagnostic(str(path), line, "", (
        f"damaged export manifest: {why}. It says which version each file was exported from, so that an import "
        "keeps changes made in the database since: restore it (from version control or a backup), or export "
        "again and make your edits there; deleting it imports the files as they are, over any such change"))])


def bases_for(loaded: Iterable[LoadedRecord | FileRecord]) -> dict[tuple[str, str], tuple[Base, str]]:
    """(kind, key) → (base, file location) for every loaded file that a manifest above it describes."""
    manifests: dict[Path, dict[str, Base]] = {}
    found: dict[tuple[str, str], tuple[Base, str]] = {}
    for item in loaded:
        path = Path(item.location).resolve()
        for folder in path.parents:
            if folder not in manifests:
                manifests[folder] = read(folder) if (folder / NAME).is_file() else {}
            base = manifests[folder].get(path.relative_to(folder).as_posix())
            if base is not None:
                if (base.kind, base.key) == (item.kind, item.key):
                    found[(item.kind, item.key)] = (base, item.location)
                break
            if manifests[folder]:
                break  # the nearest manifest does not list this file: it is new, no base
    return found


def missing(paths: Iterable[Path]) -> list[tuple[Path, Base]]:
    """The files an export wrote under each folder of `paths` that are no longer there (deleted, or moved
    elsewhere), with what each was exported from, by path. A folder is read against the nearest manifest
    at or above it (an export's `entries/` against the export's); a folder under no manifest has none."""
    found: dict[Path, Base] = {}
    for given in paths:
        if not given.is_dir():
            continue
        folder = given.resolve()
        root = next((candidate for candidate in (folder, *folder.parents) if (candidate / NAME).is_file()), None)
        if root is None:
            continue
        for relative, base in read(root).items():
            path = root / relative
            if path.is_relative_to(folder) and not path.exists():
                found[path] = base
    return sorted(found.items())
