"""The build: load → check → list pages → plan and render the stale ones → write.

Incremental by default: the build state in the database (build/state.py)
says what each output was made from, so a rebuild renders only the pages
whose inputs changed — any record, collection or derived value a page read
while it was planned or rendered (build/tracking.py), or its templates,
catalog, settings or the code. A page whose inputs did not change is not even
planned: the pages are listed first (cheap), and only the stale ones are
planned and rendered, in forked workers when there are enough (see
build/stale.py and build/works.py). Each feed and each language's search index is a group of files
made together, kept or remade by the same rule. Assets are remade on every
build that changed anything and written only when their bytes differ; the
sitemap (made from every page's remembered sitemap entry) when any entry
changed. `full=True` ignores the state.

The latest issue's emails go to their own folder, written whole and
atomically after the site (they are not pages of the site), and left alone
when it holds them as the last build wrote them.

This module takes a build as far as its first question: did anything change
since the last build of the folder? A build with nothing to do answers it
after a handful of queries and stops; any other goes on in build/making.py,
imported only then (Jinja, Markdown, feeds and the search index are most of
what a build imports).
"""

from __future__ import annotations

import datetime as dt
import gc
import hashlib
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

# The content's models, every one: the store's snapshot covers the tables the models in use define (see
# state.snapshot), and this module is all a build with nothing to do imports of the content's code.
import glossary.models  # noqa: F401
import newsroom.models  # noqa: F401
from issues.models import Issue
from newsroom import PROJECT_ROOT
from newsroom.build import locks, state
from newsroom.build.stopped import Stopping, answered_once_written
from newsroom.build.urls import SITE_NAMES, SITEMAP
from newsroom.build.writer import WriteStats, changed_since, clear_leftovers, existing_files
from newsroom.db.session import one_state, session_factory
from newsroom.diagnostics import ContentError, Diagnostic, first_of
from newsroom.i18n import catalog_digest
from newsroom.render.folder import folder_digest, pinned_digests, template_folder
from newsroom.render.static import static_folder, static_paths
from newsroom.settings import SUPPORTED_LANGUAGES, Settings

try:
    import fcntl
except ImportError:  # Windows: no advisory locks
    fcntl = None  # type: ignore[assignment]


@dataclass(frozen=True)
class BuildResult:
    pages: int
    files: int
    stats: WriteStats
    warnings: list[Diagnostic]
    rendered: int = 0  # pages rendered by this build (the rest were known to be unchanged)


#: The distributions whose code shapes the outputs' bytes (templates, dates and plurals, Markdown,
#: sanitising, feeds, the emails' inlined CSS, JSON, time zones): a new release of one may render
#: differently, as new code of ours may.
RENDERING = frozenset({"jinja2", "markupsafe", "babel", "markdown_it_py", "mdit_py_plugins", "nh3", "feedgen",
                       "lxml", "css_inline", "orjson", "tzdata"})


@lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of the engine's source, the Python it runs on and the versions of the distributions that
    render with it (`RENDERING`): new code may render differently, so it invalidates every output."""
    digest = hashlib.sha256()
    for package in ("newsroom", "glossary", "issues"):
        for path in sorted((PROJECT_ROOT / package).rglob("*.py")):
            digest.update(path.read_bytes())
    digest.update(f"{sys.version}|{rendering_versions()}".encode())
    return digest.hexdigest()


def rendering_versions() -> list[tuple[str, str]]:
    """The installed version of each `RENDERING` distribution (the first found on the path, as Python
    imports it), read from its `.dist-info` folder's name: importlib.metadata alone takes longer to
    import than a rebuild with nothing to do takes to answer."""
    found: dict[str, str] = {}
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:  # a zip file, or a folder that is gone
            continue
        for name in names:
            if name.endswith(".dist-info"):
                project, _, version = name[: -len(".dist-info")].partition("-")
                key = re.sub(r"[-_.]+", "_", project).lower()
                if key in RENDERING:
                    found.setdefault(key, version)
    return sorted(found.items())


def build_inputs(settings: Settings, drafts: bool, templates: Path) -> str:
    """Everything outside the database that every output depends on: the code, the settings, the
    templates, each language's catalog and the static files."""
    catalogs = [catalog_digest(lang) for lang in settings.languages]
    static = static_folder(settings.static)
    return (f"{code_version()}|{settings!r}|drafts={drafts}|templates={folder_digest(templates)}|catalogs={catalogs}"
            f"|static={folder_digest(static) if static is not None else ''}")


def scheduled_public(session: Session, now: dt.datetime | None) -> tuple[int, ...]:
    """Scheduled issues the build clock has made public (see issues.visibility), in one query.

    The clock itself is no input (it changes on every build); which issues it
    makes public is: a scheduled issue appears when its time passes, with
    nothing else changed.
    """
    if now is None:
        return ()
    rows = session.execute(select(Issue.number, Issue.published_at).where(Issue.status == "scheduled"))
    return tuple(sorted(number for number, published in rows if published is not None and published <= now))


@contextmanager
def _no_collections() -> Iterator[None]:
    """A build makes millions of small objects that live until it ends (records, memos, plans);
    with the cyclic collector's default thresholds it would walk them over and over, a quarter of
    an incremental build's time, and even a collection every 50,000 new objects took 50 ms of a
    one-edit build. The cyclic garbage a build leaves (a few frames and contexts per page) is
    small beside what it holds anyway (peak memory is unchanged), so the collector is off while
    building; it collects that garbage later in a process that goes on (`newsroom serve`).

    What the build made is then counted as old (the oldest generation, as a forked pool leaves it):
    re-enabled with all of it still young, the collector's next pass walked every object the build
    made (0.18 s after a one-edit build whose few pages rendered in this process)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()  # the permanent generation goes back into the oldest: nothing is walked now
        if enabled:
            gc.enable()


def build(engine: Engine, settings: Settings, out: Path, today: dt.date, drafts: bool = False,
          email_out: Path | None = None, now: dt.datetime | None = None, preview: bool = False, *,
          full: bool = False, progress: bool = False, keep: list[Any] | None = None,
          stopping: Stopping | None = None, jobs: int | None = None) -> BuildResult:
    """Build the site into `out` (and the latest issue's emails into `email_out`), rendering and writing
    only what changed; nothing is written on error.

    `now` is the build clock: scheduled issues whose time has passed are public (see issues.visibility).
    `preview` (the `serve` command) marks the pages as a preview and adds its reload script.
    `keep`, for a caller whose process ends soon after (the build command): it gets what the build
    held (records, state, memos) in place of its contents, instead of the build freeing it as it
    returns — object by object, a tenth of a second after a one-edit build of a large site.
    `stopping`: what the command's stops do and say as the build waits for its render workers (see run_all).
    `jobs`: how many render workers it forks (default: one per core this process may use; 1: it renders in
    this process).
    """
    folders = [out.resolve(), *([email_out.resolve()] if email_out is not None else [])]
    _refuse_long_path(out, "--out")
    if email_out is not None:
        _refuse_long_path(email_out, "--email-out")
    if len(folders) > 1 and (folders[0] == folders[1] or folders[0] in folders[1].parents
                             or folders[1] in folders[0].parents):
        # The email folder is replaced whole on every build, the site's files are the build's own.
        raise ContentError([Diagnostic(str(email_out), None, "--email-out", f"the email folder and the site folder "
                                       f"({out}) must not hold one another: give the emails a folder of their own")])
    static = static_paths(static_folder(settings.static), SITE_NAMES)  # a clash with the build's own is named
    _refuse_foreign(out, "--out", SITE_NAMES | {path.split("/")[0] for path in static},
                    lambda: _made_there(engine, out))
    if email_out is not None:
        _refuse_foreign(email_out, "--email-out", frozenset(SUPPORTED_LANGUAGES))
    built: list[BuildResult] = []  # a stop as the build lets go of its folders is that of a build that wrote them
    with answered_once_written(built), _no_collections(), _only_build_of(folders), pinned_digests():
        built.append(_build(engine, settings, out, today, drafts, email_out, now, preview, full, progress, keep,
                            stopping, jobs))
    return built[0]


def _refuse_long_path(folder: Path, option: str) -> None:
    """Refuse a folder (the site's, the emails') whose full path is longer than the build's state records:
    the site was written, then PostgreSQL refused the record of it ("value too long"), and the command
    stopped on a traceback."""
    length = len(str(folder.resolve()))
    if length > state.SITE_LENGTH:
        raise ContentError([Diagnostic(str(folder), None, option, (
            f"the folder's full path is {length:,} characters long, and a build records at most "
            f"{state.SITE_LENGTH} of it: build into a folder with a shorter path"))])


def _refuse_foreign(folder: Path, option: str, names: frozenset[str],
                    made_before: Callable[[], set[str]] = set) -> None:
    """Refuse a folder that holds what no build makes: a build replaces the folder's contents with what it
    makes, and `--out .` in the working folder took the database and the content files with it. What
    the last build made there (`made_before`: a static file since taken out of the static folder) is
    the build's own, to remove."""
    try:
        there = sorted(os.listdir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return
    foreign = [name for name in there if name not in names]
    if foreign:  # asked only then: one query
        made = made_before()
        foreign = [name for name in foreign if name not in made]
    if foreign:
        shown = first_of(foreign, 4)
        # A deploy repository (GitHub Pages and the like) works from beside the site as well as from in it.
        repository = (f"; to deploy with git, keep the repository beside the folder (`mv {folder}/.git "
                      f"{folder}.git`) and run git as `git --git-dir={folder}.git --work-tree={folder} …`, whose "
                      "`add -A` then takes in each build's changes") if ".git" in foreign else ""
        raise ContentError([Diagnostic(str(folder.resolve()), None, option, (
            f"the folder holds {shown}, which no build makes: a build replaces the folder's contents, so it "
            "would delete them; give the build a folder of its own (a new or an empty one), or move them out"
            f"{repository}"))])


def _made_there(engine: Engine, out: Path) -> set[str]:
    """The top-level names of the files the last build of `out` made there."""
    with session_factory(engine)() as session:
        return {path.split("/")[0] for path in state.last_files(session, str(out.resolve())).stamps}


def _as_written(session: Session, folder: str, snapshot: str) -> bool:
    """Whether the email folder is as the last build wrote it from this snapshot: every file there,
    none changed since (else the build writes it again, as it makes a site's file changed by hand)."""
    made_from, last, _ = state.last_folder(session, folder)
    return made_from == snapshot and folder_as_left(Path(folder), last)


def folder_as_left(folder: Path, last: state.LastFiles) -> bool:
    """Whether a folder the last build wrote whole (the emails, a few files) still holds its files as that
    build left them: every one there, none modified since (see writer.changed_since), and no other."""
    return folder.is_dir() and not changed_since(folder, last.stamps, last.written_ns) \
        and existing_files(folder) == set(last.stamps)


@contextmanager
def _only_build_of(folders: list[Path]) -> Iterator[None]:
    """Hold each folder's lock (`.NAME.lock` beside it) while it is built: the site's, and the email
    folder's when the build writes one.

    Two builds of one folder at once (a preview server's and a command's, say) would each discard the
    other's new tree and record a state that matches neither; the second one stops instead, saying
    why, before it reads anything. A lock ends with its process, so a killed build leaves none; what
    else a killed build left beside a folder, the next one to hold it removes.
    """
    if fcntl is None:  # no advisory locks here (Windows): builds are not guarded against each other
        for folder in folders:
            clear_leftovers(folder)
        yield
        return
    with ExitStack() as held:
        for folder in folders:
            folder.parent.mkdir(parents=True, exist_ok=True)
            lock = held.enter_context(open(folder.parent / f".{folder.name}.lock", "ab"))
            try:
                fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                # The email folder is shared by default (_email): two sites built at once need one each.
                other = "" if folder == folders[0] else ", or give this build an email folder of its own (--email-out)"
                raise ContentError([Diagnostic(str(folder), None, "", "another build of this folder is running: run "
                                                                      f"this one again when it has finished{other}")
                                    ]) from None
            held.callback(fcntl.flock, lock.fileno(), fcntl.LOCK_UN)
            locks.HELD.add(lock.fileno())
            held.callback(locks.HELD.discard, lock.fileno())
        for folder in folders:
            clear_leftovers(folder)  # of builds killed midway: no other build is using them now
        yield


def _build(engine: Engine, settings: Settings, out: Path, today: dt.date, drafts: bool,
           email_out: Path | None, now: dt.datetime | None, preview: bool, full: bool,
           progress: bool, keep: list[Any] | None, stopping: Stopping | None, jobs: int | None) -> BuildResult:
    out = out.resolve()
    templates = template_folder(settings.templates)
    inputs = build_inputs(settings, drafts, templates)
    # First gather every record, so all pages see one consistent state of the content: one state read
    # throughout, whatever an editor commits meanwhile (the next build sees it).
    with session_factory(engine)() as session, session.begin():
        one_state(session)
        public = scheduled_public(session, now)
        email_folder = str(email_out.resolve()) if email_out is not None else ""
        # The day is no input of any output: only check's warnings read it, and only its month (an entry's
        # age, glossary/staleness.py), so the first build of a new day changes nothing, one of a new month checks.
        snapshot = state.snapshot(session, f"{inputs}|month={today:%Y-%m}|preview={preview}|"
                                           f"public={public}|email={email_folder}")
        by_hand: set[str] | None = None  # the last build's files changed or removed since (made again)
        if not full and out.is_dir() and state.last_snapshot(session, str(out)) == snapshot:
            last = state.last_files(session, str(out))
            by_hand = changed_since(out, last.stamps, last.written_ns)
            if not by_hand and (email_out is None or _as_written(session, email_folder, snapshot)):
                return BuildResult(last.pages, len(last.stamps), WriteStats(0, len(last.stamps), 0), [])
        # Something changed: the rest of the build, and what only it needs (templates, Markdown, feeds, the
        # search index), imported now — a build with nothing to do never loads them (a third of its command).
        from newsroom.build import making
        state.refuse_read_only(engine)  # before a file is written: its state is stored after them
        loaded = making.load(session, out, full, by_hand)
    return making.make(engine, settings, out, today, drafts, email_out, now, preview, progress, keep, templates,
                       public, snapshot, loaded, stopping, jobs)
