"""The content files the preview imports as they are saved (see serve.py), each on its own merit: of files
saved together, a bad one is held back, its problems kept until it goes in or is removed, and those that
need it wait for it, to go in with it once it is fixed and saved. The watcher's own: one thread uses it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from sqlalchemy import Engine

from issues.schedule import publish_due, recorded
from newsroom.content import manifest
from newsroom.content.importer import ImportResult
from newsroom.content.reader import SUFFIXES, LoadedRecord, hidden, read_content
from newsroom.db.session import writing
from newsroom.diagnostics import ContentError, Diagnostic, in_report_order, place_order
from newsroom.editing import import_checked
from newsroom.settings import Settings


class SavedFiles:
    """Imports of saved content files, and the problems of each file that did not go in."""

    def __init__(self, engine: Engine, settings: Settings, content: list[Path], now: Callable[[], dt.datetime],
                 say: Callable[[str], None]) -> None:
        self.engine, self.settings, self.content, self.now, self.say = engine, settings, content, now, say
        self.problems: dict[Path, tuple[str, ...]] = {}  # each file's, until it imports or is removed
        self._waiting: dict[Path, set[Path]] = {}  # files held back, with those they wait for (see _apart)

    def shown(self) -> tuple[str, ...]:
        """The problems of every file held back, by file, each said once."""
        return tuple(dict.fromkeys(said for path in _in_place_order(self.problems) for said in self.problems[path]))

    def take(self, paths: Iterable[Path]) -> tuple[int, bool]:
        """Import the saved `paths`: how many files went in, and whether all did."""
        # A file may come twice: changed twice in one round (added, then modified), or again after a retry.
        paths = [p for p in paths if p.suffix in SUFFIXES and not self._hidden(p)]
        saved = {p for p in paths if p.is_file()}
        removed = sorted({p for p in paths if not p.exists()})
        self._removed(removed)
        for path in removed:  # its problems go with it
            self.problems.pop(path, None)
            self._waiting.pop(path, None)
        # A file held back for want of others goes in with them, when they are saved again.
        files = sorted(saved | {p for p, needed in self._waiting.items() if needed & saved and p.is_file()})
        if not files:
            return 0, True
        reading = read_content(files, self.settings.languages)
        unread = _by_file(files, reading.problems) if reading.problems else {}
        left_out = {path: problems for path, problems in unread.items() if problems}
        loaded = [item for item in reading.loaded if Path(item.location) not in left_out]
        result, published, held, advice = self._apart(loaded, left_out)
        imported = [path for path in files if path not in left_out]
        for path in imported:  # another file's problems stay until that file goes in (or is removed)
            self.problems.pop(path, None)
            self._waiting.pop(path, None)
        for number in published:
            self.say(recorded(number))
        if result is not None:
            self.say(f"imported {len(imported)} file(s): {result.summary()}")
        if left_out:
            self._not_imported(left_out, held, advice)
        return len(imported), not left_out

    def _apart(self, loaded: list[LoadedRecord], left_out: dict[Path, tuple[str, ...]]
               ) -> tuple[ImportResult | None, list[int], dict[Path, tuple[list[Path], bool]], str | None]:
        """Import `loaded` but the files whose problems stop it, one round after another, each round all or
        nothing (nothing stored of a round that fails): what the last round stored, the issues it recorded
        as published, the files held back for want of others left out (`held`: those named, and whether they
        could not even be read), and the import's advice. `left_out` (the files not read) gets theirs."""
        unread = _in_place_order(left_out)
        clean: set[Path] = set()  # tried with every file left out since, without a problem of its own
        held: dict[Path, tuple[list[Path], bool]] = {}
        advice = None
        while loaded:
            try:
                with writing(self.engine) as session:
                    # As every command that changes the content: an issue whose time has come is published,
                    # and a file changing it is a correction.
                    published = publish_due(session, self.now(), self.settings.languages)
                    result = import_checked(session, loaded, self.settings, self.now(), author="serve",
                                            fix="fix and save again (the preview shows the content as it was)",
                                            corrections=False)
                return result, published, held, advice
            except ContentError as error:
                advice = error.advice or advice
                trying = _in_place_order({Path(item.location) for item in loaded})
                found = _by_file(trying, error.diagnostics)
                own = {path for path in trying if any(d.location == str(path) for d in error.diagnostics)}
                bad = own or set(trying)  # problems of no file of the save (a stored record's): all held
                before = _in_place_order(left_out)
                for path in _in_place_order(bad):
                    if path in clean:
                        held[path] = (before, False)
                    elif unread and before == unread:  # tried first without the files not read
                        held[path] = (unread, True)
                    left_out[path] = found[path]
                clean |= set(trying) - bad
                loaded = [item for item in loaded if Path(item.location) not in bad]
        return None, [], held, advice

    def _not_imported(self, left_out: dict[Path, tuple[str, ...]], held: dict[Path, tuple[list[Path], bool]],
                      advice: str | None) -> None:
        """Say and show why each file of `left_out` did not go in, and which wait for others saved with them."""
        notes: dict[Path, str] = {}
        for path, (needed, unread) in held.items():
            named = ", ".join(map(str, needed))
            them = "them" if len(needed) > 1 else "it"
            notes[path] = (f"{path}: not imported: saved with {named}, which could not be read; if it names what "
                           f"{'they hold' if len(needed) > 1 else 'that holds'}, it goes in with {them} once fixed "
                           "and saved" if unread else
                           f"{path}: not imported: it needs {named}, saved with it, which did not go in; it goes "
                           f"in with {them} once fixed and saved")
        for path in _in_place_order(left_out):
            self.problems[path] = (*left_out[path], *([notes[path]] if path in notes else []),
                                           *([advice] if advice else []))
            self._waiting[path] = set(held[path][0]) if path in held else set()
            if not self._waiting[path]:
                del self._waiting[path]
        said = dict.fromkeys(line for path in _in_place_order(left_out) for line in left_out[path])
        for line in (*said, *notes.values(), *([advice] if advice else [])):
            self.say(line)

    def _hidden(self, path: Path) -> bool:
        """Whether `path` is in a hidden folder of a content folder (`.git/…`), as `import` leaves them."""
        folder = next((folder for folder in self.content if path.is_relative_to(folder)), None)
        return folder is not None and hidden(path, folder)

    def _removed(self, paths: list[Path]) -> None:
        """Say that a removed content file leaves its record in the database, and how to delete it (the
        preview imports what changes; it deletes nothing on its own)."""
        if not paths:
            return
        try:
            exported = dict(manifest.missing(self.content))
        except ContentError:
            exported = {}  # a damaged manifest: the import said so
        for path in paths:
            base = exported.get(path)
            if base is not None and base.kind == "site":
                self.say(f"{path}: removed; the site's settings stay in the database as they are")
                continue
            how = (f"`newsroom delete {base.kind}:{base.key}`, or `newsroom import FOLDER --prune`" if base is not None
                   else "`newsroom delete KEY`")
            self.say(f"{path}: removed; its record stays in the database and in the preview ({how} deletes it)")


def _by_file(files: Sequence[Path], diagnostics: list[Diagnostic]) -> dict[Path, tuple[str, ...]]:
    """The problems of a failed import, as said, by the file they stay with: each file's own, and those naming
    no file of the import (a record's key) with every file of it; a file without any has none."""
    named = {str(path) for path in files}
    unplaced = [d for d in diagnostics if d.location not in named]
    by_file = {}
    for path in files:
        found = [d for d in diagnostics if d.location == str(path)] + unplaced
        by_file[path] = tuple(in_order(found))
    return by_file


def _in_place_order(paths: Iterable[Path]) -> list[Path]:
    """`paths` in the order their problems are said (see diagnostics.place_order): `i9.yaml` before `i10.yaml`."""
    return sorted(paths, key=lambda path: place_order(str(path)))


def in_order(diagnostics: list[Diagnostic]) -> list[str]:
    """The problems as said, each once, by place."""
    return [str(diagnostic) for diagnostic in in_report_order(diagnostics)]
