"""The preview server: build with drafts, serve on 127.0.0.1, rebuild on change, reload the browser.

Three threads: the HTTP server (stdlib), the watcher (watchfiles) and the
caller's. The watcher imports changed content files into the database, each
on its own merit (of files saved together, a bad one is held back, and those
that need it wait for it), rebuilds the whole site into the preview folder (atomically, so the server
never shows half a site) and bumps the build id; preview pages poll
`/__build_id` and reload when it changes. A SQLite file is watched like the
folders; another database (a team's PostgreSQL, which other editors change)
is asked every two seconds for the hash of what it holds. A failed import or build keeps the
last good site and prints the problems, which every page then shows at its top (its id changes
too, so the open page reloads); changes it could not take in (the
database held by another command, say) are tried again until it can.
What the pages show of the watcher's work, the build id and the problems, is
one immutable snapshot it swaps in whole (serve_http.Shown), so that no
request sees it half changed.
"""

from __future__ import annotations

import datetime as dt
import functools
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import watchfiles
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError

from newsroom.build.pipeline import build
from newsroom.build.state import snapshot
from newsroom.build.stopped import Stopping
from newsroom.db.session import busy, session_factory
from newsroom.diagnostics import ContentError, Diagnostic
from newsroom.i18n import LOCALE_DIR
from newsroom.listening import netloc, reachable
from newsroom.render.folder import template_folder
from newsroom.render.static import static_folder
from newsroom.serve_http import PreviewHTTPServer, RequestHandler, Shown, loopback
from newsroom.serve_imports import SavedFiles, in_order
from newsroom.settings import SETTINGS_FILE, Settings, load

#: How often a database that is no file is asked whether anything changed (a SQLite file is watched).
POLL_SECONDS = 2.0
#: How long a connection may send nothing (no request, or the rest of one) before it is closed: each holds a
#: thread, and a client that connects and waits (a browser's spare connection, a stalled one) held it for good.
IDLE_SECONDS = 30.0
#: How long stopping waits for a round under way before it says what it waits for.
STOP_SAID_SECONDS = 1.0
#: What stopping says it waits for, by what is under way (see Preview.under_way): a build writes into the
#: preview's folder, an import the saved content files into the database; between them, the watcher looks.
WAITED_FOR = {"build": "the build under way to end, which writes into the preview's folder",
              "import": "the import under way to end, which stores the saved content files in the database",
              None: "the preview's watch of the files and the database to end"}
#: How the preview's lines name a stop that comes while it is stopping: any of its stops (see cli/serve.py).
STOPPED_AGAIN = "stopped once more (Ctrl-C, `kill`, its terminal closing)"


class Preview:
    """A running preview: bind first (so port 0 gets a real port for the base URL), then build and watch."""

    def __init__(self, engine: Engine, settings: Settings, out: Path, *, today: Callable[[], dt.date],
                 now: Callable[[], dt.datetime], content: Iterable[Path] = (), database_file: Path | None = None,
                 host: str = "127.0.0.1", port: int = 8000, say: Callable[[str], None] = print,
                 locale: Path = LOCALE_DIR, idle_seconds: float = IDLE_SECONDS,
                 settings_folder: Path | None = None, folder: Path | None = None, jobs: int | None = None) -> None:
        self.idle_seconds = idle_seconds
        self.jobs = jobs  # render workers of each build (see pipeline.build)
        # newsroom.toml, the settings started with: a change is said (and shown), not taken in (see _settings_round).
        self.settings_file = settings_folder.resolve() / SETTINGS_FILE if settings_folder is not None else None
        # Named as at start-up: `newsroom.toml` (`newsroom.toml:LINE`) of the current folder, another folder's in full.
        self._settings_folder = (None if settings_folder is None or settings_folder.resolve() == Path.cwd().resolve()
                                 else settings_folder.resolve())
        self._settings_named = str(self._settings_folder / SETTINGS_FILE if self._settings_folder else SETTINGS_FILE)
        self._settings_given, self._settings_seen = settings, self._settings_state()
        self._settings_problems: tuple[str, ...] = ()
        self.engine, self.out, self.today, self.now, self.say = engine, out.resolve(), today, now, say
        # The preview's folder (`out`, or one that holds it), which a stop at once leaves, named (see stopped_again).
        self.folder = folder if folder is not None else self.out
        # What stops do as the first build, in the caller's thread, waits for its render workers (see run_all).
        self.stopping = Stopping(say, f"{STOPPED_AGAIN} or by `kill -9`, the preview ends at once, its render workers "
                                      f"ended by force, and leaves its folder {self.folder} (the site with its drafts) "
                                      "to remove by hand")
        self.content = [Path(folder).resolve() for folder in content]
        self.database_file = database_file.resolve() if database_file else None
        # The folder the build renders with: newsroom.toml's `templates`, else the bundled one.
        self.templates = template_folder(settings.templates).resolve()
        self.locale = locale.resolve()
        static = static_folder(settings.static)
        self.static = static.resolve() if static is not None else None
        self.out.mkdir(parents=True, exist_ok=True)
        handler = functools.partial(RequestHandler, directory=str(self.out))
        self.http = PreviewHTTPServer((host, port), handler)
        self.http.preview = self
        self.host, self.port = self.http.server_address[0], self.http.server_address[1]
        self.local = loopback(host)
        if not self.local:
            say(f"listening on {netloc(host, self.port)}: whoever reaches this machine there sees the preview, drafts "
                "included (`--host 127.0.0.1` keeps it to this machine)")
        # Listening on every address (0.0.0.0, ::), the links name this machine: a colleague's browser opens that.
        self.settings = settings.replace(base_url=f"http://{netloc(reachable(host), self.port)}/")
        # What the pages show, swapped whole (see Shown): the state below is the watcher's own, as it works.
        self.shown = Shown("0")
        self._builds = 0
        self._failures = 0  # rounds that failed: each changes the build id, so the browser shows its problems
        self._saved = SavedFiles(engine, self.settings, self.content, now, say)  # the files' problems with them
        self._build_problems: tuple[str, ...] = ()  # of the last build, until one succeeds
        self._database_seen: tuple[object, ...] = ()
        self._polled = 0.0  # when a database that is no file was last asked for its state
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._stalled: str | None = None  # what stopped the last round of the watcher, once said
        self._watching = threading.Event()  # set once the watcher sees changes
        self._waiting_said = False  # stopping: that it waits for the round under way
        self._stopped_again = False  # stopping: asked again while a build or an import was under way
        self._watch_ended = threading.Event()  # set as the watcher's thread ends
        self._building = threading.Event()  # set while a build writes into the preview's folder
        self._importing = threading.Event()  # set while saved content files go into the database
        self._gate = threading.Lock()  # a build or an import begins, or stopping does: one after the other

    @property
    def url(self) -> str:
        return self.settings.base_url

    def start(self) -> None:
        """Import the content folders, build once, then serve and watch in background threads."""
        self.import_files(path for folder in self.content for path in folder.rglob("*") if path.is_file())
        self.rebuild()
        self._threads = [threading.Thread(target=self.http.serve_forever, name="preview-http", daemon=True),
                         threading.Thread(target=self._watch, name="preview-watch", daemon=True)]
        for thread in self._threads:
            thread.start()
        # A change made from now on is seen: the watcher is registered once its first round has come.
        self._watching.wait(timeout=10)

    def wait(self) -> None:
        """Block until the server stops (Ctrl-C raises KeyboardInterrupt here)."""
        while not self._stop.wait(0.5):
            pass

    def stop(self) -> None:
        """Stop serving and watching; also when stopped while starting (Ctrl-C during the first build).

        A round under way (an import, a build) is waited for, however long it takes: the caller removes the
        preview's folder next, and a build still writing made it again, the site with its drafts left in the
        temporary folder (it was waited for 10 s). Stopped again meanwhile, see stopped_again."""
        with self._gate:  # no build begins from now on (see rebuild)
            self._stop.set()
        self._stop_threads()

    def stopped_again(self, folder: Path | None = None) -> None:
        """Answer a stop asked for again while stopping (a second Ctrl-C or `kill`, from its signal's handler).

        While the watcher builds or imports, the second is said to wait on for that, with what a third does;
        the third raises KeyboardInterrupt, which ends the wait (the caller asks `under_way` what it broke
        off). A build writes into the preview's folder (`folder`, the preview's own by default), which the
        caller then leaves (at the second, it was removed under the build); an import stores its files all or
        none. With neither under way, nothing: nothing writes into the folder, none begins once stopping has,
        and the stop ends in a moment (interrupted, it left the folder half removed). Nor during the first
        build, which the first stop breaks off in this thread: it ends as soon as its workers have, and only
        then is the folder removed (a third stop broke off its wait for them, and removed the folder as they
        wrote into it); a third stop as it waits for them ends them at once, and the folder is left (see
        run_all's StoppedAtOnce)."""
        under_way = self.under_way()
        if under_way is None or not self._threads:
            return
        if self._stopped_again:
            raise KeyboardInterrupt
        self._stopped_again = self._waiting_said = True
        if under_way == "build":
            self.say(f"stopping: still waiting for the build under way to end; {STOPPED_AGAIN} or by `kill -9`, the "
                     f"preview ends at once and leaves its folder {folder or self.folder} (the site with its drafts) "
                     "to remove by hand")
        else:
            self.say(f"stopping: still waiting for the import under way to end; {STOPPED_AGAIN}, the preview ends at "
                     "once, and the saved files it was importing may not be stored (an import stores all of its files "
                     "or none)")

    def _stop_threads(self) -> None:
        """Shut the server down and wait for the watcher's round, saying after a second what is waited for. The
        watcher's end is waited for as an Event it sets: a join a signal's handler breaks into takes the thread
        for ended, still running (CPython gh-90882)."""
        if self._threads and self._threads[0].ident is not None:  # shutdown() waits for a loop that ran
            self.http.shutdown()  # once the loop has ended, at once
        self.http.server_close()
        if len(self._threads) > 1 and self._threads[1].ident is not None:
            if not self._watch_ended.wait(STOP_SAID_SECONDS) and not self._waiting_said:
                self._waiting_said = True
                self.say(f"stopping: waiting for {WAITED_FOR[self.under_way()]}")
            self._watch_ended.wait()
        for thread in self._threads:
            thread.join()  # ending, if not ended

    # -- one round of work ---------------------------------------------------------------
    def import_files(self, paths: Iterable[Path]) -> bool:
        """Import changed content files, each on its own merit: the good ones go in, each bad one's problems
        are printed and shown until it goes in; False when any did not go in."""
        return self._import(paths)[1]

    def _import(self, paths: Iterable[Path]) -> tuple[int, bool]:
        """`import_files`: how many files went in, and whether all did. Problems come or gone are shown once
        the round is over, under a new build id (a file removed: the open pages reload without its problems).
        None begins once stopping has (none went in): the files are imported when the preview starts again."""
        with self._gate:  # as in rebuild: stopping waits for an import begun before, none begins after
            if self._stop.is_set():
                return 0, False
            self._importing.set()
        try:
            counts = self._saved.take(paths)
        finally:
            self._importing.clear()
        if self._problems_now() != self.shown.problems:
            self._reload()
        return counts

    @property
    def building(self) -> bool:
        """Whether a build writes into the preview's folder now. Once stop() has begun, it can only end."""
        return self._building.is_set()

    def under_way(self) -> str | None:
        """What the preview is doing that stopping waits for: "build" (which writes into the preview's folder),
        "import" (saved content files going into the database), else None. Once stop() has begun, neither
        begins: None then stays None."""
        return "build" if self.building else "import" if self._importing.is_set() else None

    def rebuild(self) -> bool:
        """Build the whole site with drafts into the preview folder; keep the last good one on error. None
        begins once stopping has (False)."""
        with self._gate:  # as stop() sets _stop: a build begun before is `building`, none begins after
            if self._stop.is_set():
                return False
            self._building.set()
        try:
            return self._rebuild()
        finally:
            self._building.clear()

    def _rebuild(self) -> bool:
        # No cache to clear: environments are kept per template-folder and catalog digest (render/html.py).
        # A database that is no file is asked before the build reads it: a colleague's edit committed while
        # the build works is then seen as a change at the next poll (asked after, it was taken as built and
        # never previewed). An edit committed between the two makes one build more, no build less. A SQLite
        # file is looked at after: the build's own record of what it wrote changes the file.
        seen = self._database_state() if self.database_file is None else None
        try:
            result = build(self.engine, self.settings, self.out, self.today(), drafts=True, preview=True,
                           stopping=self.stopping, jobs=self.jobs)
        except ContentError as error:
            self._report(error.diagnostics)
            self._build_problems = tuple(in_order(error.diagnostics))
            self._reload()  # the open pages reload, to show them
            return False
        finally:
            self._database_seen = seen if seen is not None else self._database_state()
        self._report(result.warnings)
        self._builds += 1
        self._build_problems = ()
        self.shown = Shown(str(self._builds), self._problems_now(), built=True)
        self.say(f"build {self.build_id}: {result.pages} pages, {result.stats.written} written → {self.url}")
        return True

    def handle(self, changed: Iterable[Path]) -> None:
        """React to changed paths: import content, then rebuild when anything that feeds the site moved."""
        changed = [p.resolve() for p in changed]
        content = [p for p in changed if any(p.is_relative_to(folder) for folder in self.content)]
        interface = any(p.is_relative_to(self.templates) or p.is_relative_to(self.locale) or self._static(p)
                        for p in changed)
        database = self._database_state() != self._database_seen
        imported = self._import(content)[0] if content else 0
        if imported or interface or database:
            self.rebuild()

    @property
    def build_id(self) -> str:
        """The id the preview's pages poll: a new one reloads them (a build, or problems come or gone)."""
        return self.shown.build_id

    @property
    def problems(self) -> tuple[str, ...]:
        """What stopped the import of each file not yet fixed, or the last build, shown at the top of every page
        until fixed: the problems of a file saved bad stay while other files go in."""
        return self.shown.problems

    def _problems_now(self) -> tuple[str, ...]:
        """`problems` as the watcher's own record of them now has them, shown once it swaps them in."""
        return (*self._settings_problems, *self._saved.shown(), *self._build_problems)

    # -- internals -------------------------------------------------------------------------
    def _reload(self) -> None:
        """Show the problems as they now are, under a new build id without a build: the open pages reload."""
        self._failures += 1
        self.shown = Shown(f"{self._builds}.{self._failures}", self._problems_now(), built=self._builds > 0)

    def _watch(self) -> None:
        """The watcher's thread: rounds until stopped, its end said to stop() (see _stop_threads)."""
        try:
            self._rounds()
        finally:
            self._watch_ended.set()

    def _rounds(self) -> None:
        roots = [self.templates, self.locale, *self.content, *([self.static] if self.static else [])]
        if self.database_file is not None:
            roots.append(self.database_file.parent)
        pending: list[Path] = []  # changes a round could not take in, tried again until it can
        for changes in watchfiles.watch(*[r for r in roots if r.exists()], watch_filter=self._relevant,
                                        stop_event=self._stop, debounce=300, rust_timeout=500,
                                        yield_on_timeout=True, raise_interrupt=False):
            self._watching.set()
            self._settings_round()
            if not changes and not pending and not self._poll_due():
                continue
            paths, pending = [*pending, *(Path(path) for _, path in changes)], []
            try:
                self.handle(paths)
                self._stalled = None
            except Exception as error:  # noqa: BLE001 - the preview outlives any one round
                if self._stop.is_set():  # stopped at once (see stop), the build's workers ended as the process
                    return
                # Another command holding the database past the wait (an import of many files), a full
                # disk…: this round's changes are tried again every half second, said once.
                pending = paths
                held = isinstance(error, OperationalError) and busy(error)
                problem = ("another command (an import, an edit, a build) is writing to the database" if held
                           else f"{type(error).__name__}: {error}".splitlines()[0])
                if problem != self._stalled:
                    self.say(f"the preview could not take in the last changes: {problem}; it keeps serving the "
                             "last good site and tries again")
                    self._stalled = problem

    def _settings_round(self) -> None:
        """Say (and show at the top of every page) that newsroom.toml changed: the preview goes on with the
        settings it started with, since what they name is where it listens, what it watches (the templates
        and static folders) and what it builds (the languages), until it is started again; a newsroom.toml
        that no command would take is named with its problems. Back as it was, nothing is said."""
        state = self._settings_state()
        if state == self._settings_seen:
            return
        self._settings_seen = state
        try:
            changed = load(self._settings_folder) != self._settings_given if self.settings_file else False
            problems: tuple[str, ...] = ()
        except ContentError as error:
            changed, problems = True, tuple(in_order(error.diagnostics))
        except OSError as error:
            changed, problems = True, (f"{self._settings_named}: {error.strerror or error}",)
        said = (*problems, f"{self._settings_named}: changed; the preview goes on with the settings it started with: "
                           "stop it (Ctrl-C) and start `newsroom serve` again to preview with the new ones"
                           + (" once they are fixed" if problems else "")) if changed else ()
        if said == self._settings_problems:
            return
        self._settings_problems = said
        for line in said:
            self.say(line)
        self._reload()  # to show it (or no more)

    def _settings_state(self) -> tuple[int, int] | None:
        """Size and mtime of newsroom.toml, None while there is none (or it is not watched)."""
        try:
            stat = self.settings_file.stat() if self.settings_file is not None else None
        except OSError:
            return None
        return (stat.st_size, stat.st_mtime_ns) if stat is not None else None

    def _relevant(self, change: watchfiles.Change, path: str) -> bool:
        candidate = Path(path)
        if candidate.is_relative_to(self.out):
            return False
        if self.database_file is not None and candidate.parent == self.database_file.parent \
                and candidate.name in (self.database_file.name, self.database_file.name + "-wal"):
            return True
        inside = [self.templates, self.locale, *self.content]
        return self._static(candidate) or (any(candidate.is_relative_to(root) for root in inside)
                                           and not candidate.name.startswith("."))

    def _static(self, path: Path) -> bool:
        """Whether `path` is in the static folder (its dotfiles too: .nojekyll, .well-known/)."""
        return self.static is not None and path.is_relative_to(self.static)

    def _poll_due(self) -> bool:
        """Whether to ask a database that is no file (PostgreSQL: a team's, other editors change it) whether
        anything changed: every POLL_SECONDS. A SQLite file's changes are watched instead."""
        if self.database_file is not None or time.monotonic() < self._polled + POLL_SECONDS:
            return False
        self._polled = time.monotonic()
        return True

    def _database_state(self) -> tuple[object, ...]:
        """Size and mtime of the SQLite file and its WAL (our own reads must not look like edits); of
        another database, the hash of everything stored that reaches a page (the build's own snapshot:
        a few queries)."""
        if self.database_file is None:
            with session_factory(self.engine)() as session:
                return (snapshot(session, ""),)
        state = []
        for path in (self.database_file, self.database_file.with_name(self.database_file.name + "-wal")):
            try:
                stat = path.stat()
                state.append((stat.st_size, stat.st_mtime_ns))
            except OSError:
                state.append((0, 0))
        return tuple(state)

    def _report(self, diagnostics: list[Diagnostic]) -> None:
        for said in in_order(diagnostics):
            self.say(said)
