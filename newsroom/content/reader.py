"""Reading content files from disk into validated records."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from newsroom.content.schema import kinds
from newsroom.content.validator import Validator
from newsroom.content.yamlio import dotted, parse
from newsroom.diagnostics import ContentError, Diagnostic, stored_location

SUFFIXES = (".yaml", ".yml")
#: A content file larger than this is refused rather than read into memory.
MAX_FILE_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True)
class LoadedRecord:
    """One validated content file."""

    kind: str
    key: str  # the stable id: slug, issue number, or "site"
    record: dict[str, Any]
    location: str

    @property
    def content_hash(self) -> str:
        return record_hash(self.record)

    @property
    def references(self) -> dict[str, Any]:
        """The fields the importer checks against the database before writing (here: the whole record)."""
        return self.record


#: The fields `references` keeps per kind; everything else is read again when the record is stored.
_REFERENCE_FIELDS = {"story": ("issue", "section", "audiences"), "entry": ("category",), "issue": ("number",)}


#: How much content-file text an import keeps in memory as validated records (about three times as many
#: bytes); the files past it are read again when they are stored (see FileRecord). A ten-year archive's
#: export, some 30 MB, is kept whole: reading each file twice was a fifth of its import.
KEEP_TEXT_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class FileRecord:
    """A validated content file that keeps its identity, hash and references in memory, and its record
    while the import's budget lasts (`KEEP_TEXT_BYTES`).

    A large import validates every file first (all problems reported before any
    write); a record it did not keep is read again from its file when it is stored, so
    memory stays bounded by the budget and one record, not by the run.
    """

    kind: str
    key: str
    location: str
    content_hash: str
    references: dict[str, Any]
    languages: tuple[str, ...]
    validated: dict[str, Any] | None = field(default=None, repr=False, compare=False)  # the record, if kept

    @classmethod
    def of(cls, item: LoadedRecord, languages: tuple[str, ...], keep: bool = False) -> FileRecord:
        record = item.record
        if item.kind == "site":
            references = record
        else:
            references = {name: record[name] for name in _REFERENCE_FIELDS.get(item.kind, ()) if name in record}
            if item.kind == "entry":
                for lang in languages:
                    affected = record.get(lang, {}).get("affected")
                    if affected:
                        references[lang] = {"affected": affected}
        return cls(item.kind, item.key, item.location, item.content_hash, references, languages,
                   record if keep else None)

    @property
    def record(self) -> dict[str, Any]:
        """The full record: the one validated if kept, else read again (refused if the file changed since
        it was validated)."""
        if self.validated is not None:
            return self.validated
        item = validate_text(read_text(Path(self.location), self.location), self.location, self.languages)
        if item.content_hash != self.content_hash:
            raise ContentError([Diagnostic(self.location, None, "", "the file changed while it was being "
                                           "imported; nothing was stored: run the import again")])
        return item.record


def record_hash(record: dict[str, Any]) -> str:
    """A hash of the canonical record: equal content, equal hash."""
    encoded = json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


def record_key(kind: str, record: dict[str, Any]) -> str:
    key_field = kinds()[kind].key
    return str(record.get(key_field)) if key_field else kind


def hidden(path: Path, folder: Path) -> bool:
    """Whether `path`, in `folder`, is in a hidden folder or hidden itself (`.git/…`): no content."""
    return any(part.startswith(".") for part in path.relative_to(folder).parts)


def find_files(paths: Iterable[Path]) -> tuple[list[Path], list[Diagnostic]]:
    """Content files under `paths` (files or folders), in a stable order. In a folder, hidden files and
    folders (`.git`, `.github`: a content repository's own) are no content; a link to nothing is named."""
    found: list[Path] = []
    problems: list[Diagnostic] = []
    for path in paths:
        if path.is_dir():
            for candidate in sorted(path.rglob("*")):
                if candidate.suffix not in SUFFIXES or hidden(candidate, path):
                    continue
                if candidate.is_file():
                    found.append(candidate)
                elif candidate.is_symlink() and not candidate.exists():
                    problems.append(Diagnostic(str(candidate), None, "", (
                        f"a link to {candidate.readlink()}, which is not there: mend or remove the link")))
        elif path.is_file():
            found.append(path)
        else:
            problems.append(Diagnostic(str(path), None, "", "no such file or folder"))
    return found, problems


def read_text(path: Path, location: str) -> str:
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ContentError([Diagnostic(location, None, "", f"file is larger than {MAX_FILE_BYTES // 1024} KiB; "
                                       "split it or shorten its fields")])
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ContentError([Diagnostic(location, None, "", f"not UTF-8 text (byte {error.start})")]) from None


def validate_text(text: str, location: str, languages: tuple[str, ...]) -> LoadedRecord:
    """Parse and validate one file's text; raises ContentError with every problem found."""
    item, problems, _ = _validated(text, location, languages)
    if problems or item is None:
        raise ContentError(problems)
    return item


def _validated(text: str, location: str, languages: tuple[str, ...]
               ) -> tuple[LoadedRecord | None, list[Diagnostic], dict[Any, int]]:
    """One file's record, as far as its fields are valid (None when it is no record of a known kind), every
    problem of it, and the line of each of its values. Raises ContentError for YAML that does not parse:
    nothing else of it can be read."""
    problems: list[Diagnostic] = []  # the YAML's (a key written twice), then the fields'
    written: dict[Any, str] = {}
    data, lines = parse(text, location, written, problems)
    validator = Validator(location, lines, languages, problems, written=written)
    record = validator.record(data)
    if record is None:
        return None, problems, lines
    return LoadedRecord(record["kind"], record_key(record["kind"], record), record, location), problems, lines


@dataclass
class Reading:
    """What reading content files gives: the valid records, every problem found, and the records of the
    files with problems as far as their fields are valid (`partial`), which later checks (a section the
    site does not list) still look at, so that one run names all the problems of a file."""

    loaded: list[Any] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)
    partial: list[LoadedRecord] = field(default_factory=list)


def read_files(
    paths: Iterable[Path], languages: tuple[str, ...], *, keep: bool = True,
) -> list[LoadedRecord] | list[FileRecord]:
    """Read and validate every content file; raises ContentError listing all problems.

    With `keep=False` each file's identity, hash and references stay in memory, and its record while
    the files read stay within `KEEP_TEXT_BYTES` (`FileRecord`): what a large import needs.
    """
    reading = read_content(paths, languages, keep=keep)
    if reading.problems:
        raise ContentError(reading.problems)
    return reading.loaded


def read_content(paths: Iterable[Path], languages: tuple[str, ...], *, keep: bool = True) -> Reading:
    """Read and validate every content file (see `read_files`), collecting every problem of every file."""
    files, problems = find_files(paths)
    reading = Reading(problems=problems)
    seen: dict[tuple[str, str], str] = {}
    budget = KEEP_TEXT_BYTES
    for path in files:
        location = str(path)
        try:
            text = read_text(path, location)
            item, found, lines = _validated(text, location, languages)
        except ContentError as error:
            problems.extend(error.diagnostics)
            continue
        problems.extend(found)
        if item is None:
            continue
        key_field = kinds()[item.kind].key
        if not key_field or key_field in item.record:  # (one that is not valid is named already)
            identity = (_table(item.kind), item.key)
            if identity in seen:
                problems.append(Diagnostic(location, lines.get((key_field or "kind",)), key_field or "kind",
                                           f"duplicate {key_field or 'kind'} {item.key!r}: also in {seen[identity]}"))
                found = [*found, problems[-1]]
            seen.setdefault(identity, location)
        if found:
            reading.partial.append(item)
        elif keep:
            reading.loaded.append(item)
        else:
            held = len(text) <= budget
            budget -= len(text) if held else 0
            reading.loaded.append(FileRecord.of(item, languages, held))
    if not files and not problems:
        problems.append(Diagnostic(", ".join(str(p) for p in paths) or ".", None, "", "no content files found"))
    return reading


def _table(kind: str) -> str:
    return "page" if kind == "reference" else kind


def in_files(diagnostics: Iterable[Diagnostic], loaded: Iterable[LoadedRecord | FileRecord]) -> list[Diagnostic]:
    """`diagnostics` of stored records (`entry:gpu`), each of a record read from one of `loaded`'s files
    placed in that file, at the line of its field (or of the nearest field holding it that the file has);
    the others as they are."""
    files = {stored_location(item.kind, item.key): item.location for item in loaded}
    lines: dict[str, dict[str, int]] = {}
    placed = []
    for diagnostic in diagnostics:
        location = files.get(diagnostic.location)
        if location is None:
            placed.append(diagnostic)
            continue
        if location not in lines:
            try:
                text = Path(location).read_text("utf-8")  # (its YAML's problems are named already)
                lines[location] = {dotted(path): line for path, line in parse(text, location, problems=[])[1].items()}
            except (OSError, UnicodeDecodeError, ContentError):  # changed or gone since it was read
                lines[location] = {}
        field = diagnostic.field
        while field and field not in lines[location]:
            field = field[:max(field.rfind("."), field.rfind("["), 0)]
        placed.append(replace(diagnostic, location=location, line=lines[location].get(field) if field else None))
    return placed
