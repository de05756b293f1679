"""The preview server: build with drafts, serve on 127.0.0.1, rebuild on change, reload the browser.

Three threads: the HTTP server (stdlib), the watcher (watchfiles) and the
caller's. The watcher imports changed content files into the database,
rebuilds the whole site into the preview folder (atomically, so the server
never shows half a site) and bumps the build id; preview pages poll
`/__build_id` and reload when it changes. A SQLite file is watched like the
folders; another database (a team's PostgreSQL, which other editors change)
is asked every two seconds for the hash of what it holds. A failed import or build keeps the
last good site and prints the problems; changes it could not take in (the
database held by another command, say) are tried again until it can.
"""

from __future__ import annotations

import datetime as dt
import functools
import threading
import time
from collections.abc import Callable, Iterable
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import watchfiles
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError

from issues.schedule import publish_due, recorded
from newsroom.build.pipeline import build
from newsroom.build.state import snapshot
from newsroom.content import manifest
from newsroom.content.reader import SUFFIXES, hidden, read_files
from newsroom.db.session import busy, session_factory, writing
from newsroom.diagnostics import ContentError, Diagnostic
from newsroom.editing import import_checked
from newsroom.i18n import LOCALE_DIR
from newsroom.listening import address_family
from newsroom.render.html import TEMPLATES
from newsroom.render.static import static_folder
from newsroom.settings import Settings

BUILD_ID_PATH = "/__build_id"
#: How often a database that is no file is asked whether anything changed (a SQLite file is watched).
POLL_SECONDS = 2.0


class _Handler(SimpleHTTPRequestHandler):
    """Static files from the preview folder, the build id, and the site's own 404 page."""

    server: _PreviewHTTPServer

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        if self.path.split("?", 1)[0] == BUILD_ID_PATH:
            body = self.server.preview.build_id.encode()
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")  # a preview must never show yesterday's page
        super().end_headers()

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code != HTTPStatus.NOT_FOUND or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(code)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass  # requests are not news; build results are printed instead


class _PreviewHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    preview: Preview

    def __init__(self, address: tuple[str, int], handler: Callable[..., _Handler]) -> None:
        self.address_family = address_family(*address)  # `--host ::1` is no IPv4 address
        super().__init__(address, handler)


class Preview:
    """A running preview: bind first (so port 0 gets a real port for the base URL), then build and watch."""

    def __init__(self, engine: Engine, settings: Settings, out: Path, *, today: Callable[[], dt.date],
                 now: Callable[[], dt.datetime], content: Iterable[Path] = (), database_file: Path | None = None,
                 host: str = "127.0.0.1", port: int = 8000, say: Callable[[str], None] = print,
                 templates: Path = TEMPLATES, locale: Path = LOCALE_DIR) -> None:
        self.engine, self.out, self.today, self.now, self.say = engine, out.resolve(), today, now, say
        self.content = [Path(folder).resolve() for folder in content]
        self.database_file = database_file.resolve() if database_file else None
        self.templates, self.locale = templates.resolve(), locale.resolve()
        static = static_folder(settings.static)
        self.static = static.resolve() if static is not None else None
        self.out.mkdir(parents=True, exist_ok=True)
        handler = functools.partial(_Handler, directory=str(self.out))
        self.http = _PreviewHTTPServer((host, port), handler)
        self.http.preview = self
        self.host, self.port = self.http.server_address[0], self.http.server_address[1]
        named = f"[{host}]" if ":" in host else host  # an IPv6 address, as a URL writes it
        self.settings = settings.replace(base_url=f"http://{named}:{self.port}/")
        self.build_id = "0"
        self._builds = 0
        self._database_seen: tuple[object, ...] = ()
        self._polled = 0.0  # when a database that is no file was last asked for its state
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._stalled: str | None = None  # what stopped the last round of the watcher, once said
        self._watching = threading.Event()  # set once the watcher sees changes

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
        self._stop.set()
        self.http.shutdown()
        self.http.server_close()
        for thread in self._threads:
            thread.join(timeout=10)

    # -- one round of work ---------------------------------------------------------------
    def import_files(self, paths: Iterable[Path]) -> bool:
        """Import changed content files; False (and the problems printed) when any is bad."""
        # A file may come twice: changed twice in one round (added, then modified), or again after a retry.
        paths = [p for p in paths if p.suffix in SUFFIXES and not self._hidden(p)]
        files = sorted({p for p in paths if p.is_file()})
        self._removed(sorted({p for p in paths if not p.exists()}))
        if not files:
            return True
        try:
            loaded = read_files(files, self.settings.languages)
            with writing(self.engine) as session:
                # As every command that changes the content: an issue whose time has come is published, and
                # a file changing it is a correction.
                published = publish_due(session, self.now(), self.settings.languages)
                result = import_checked(session, loaded, self.settings, self.now(), author="serve",
                                        fix="fix and save again (the preview shows the content as it was)",
                                        corrections=False)
        except ContentError as error:
            self._report(error.diagnostics)
            if error.advice:
                self.say(error.advice)
            return False
        for number in published:
            self.say(recorded(number))
        self.say(f"imported {len(files)} file(s): {result.summary()}")
        return True

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

    def rebuild(self) -> bool:
        """Build the whole site with drafts into the preview folder; keep the last good one on error."""
        # No cache to clear: environments are kept per template-folder and catalog digest (render/html.py).
        # A database that is no file is asked before the build reads it: a colleague's edit committed while
        # the build works is then seen as a change at the next poll (asked after, it was taken as built and
        # never previewed). An edit committed between the two makes one build more, no build less. A SQLite
        # file is looked at after: the build's own record of what it wrote changes the file.
        seen = self._database_state() if self.database_file is None else None
        try:
            result = build(self.engine, self.settings, self.out, self.today(), drafts=True, preview=True)
        except ContentError as error:
            self._report(error.diagnostics)
            return False
        finally:
            self._database_seen = seen if seen is not None else self._database_state()
        self._report(result.warnings)
        self._builds += 1
        self.build_id = str(self._builds)
        self.say(f"build {self.build_id}: {result.pages} pages, {result.stats.written} written → {self.url}")
        return True

    def handle(self, changed: Iterable[Path]) -> None:
        """React to changed paths: import content, then rebuild when anything that feeds the site moved."""
        changed = [p.resolve() for p in changed]
        content = [p for p in changed if any(p.is_relative_to(folder) for folder in self.content)]
        interface = any(p.is_relative_to(self.templates) or p.is_relative_to(self.locale) or self._static(p)
                        for p in changed)
        database = self._database_state() != self._database_seen
        if content and not self.import_files(content):
            return
        if content or interface or database:
            self.rebuild()

    # -- internals -------------------------------------------------------------------------
    def _watch(self) -> None:
        roots = [self.templates, self.locale, *self.content, *([self.static] if self.static else [])]
        if self.database_file is not None:
            roots.append(self.database_file.parent)
        pending: list[Path] = []  # changes a round could not take in, tried again until it can
        for changes in watchfiles.watch(*[r for r in roots if r.exists()], watch_filter=self._relevant,
                                        stop_event=self._stop, debounce=300, rust_timeout=500,
                                        yield_on_timeout=True, raise_interrupt=False):
            self._watching.set()
            if not changes and not pending and not self._poll_due():
                continue
            paths, pending = [*pending, *(Path(path) for _, path in changes)], []
            try:
                self.handle(paths)
                self._stalled = None
            except Exception as error:  # noqa: BLE001 - the preview outlives any one round
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
        for diagnostic in sorted(set(diagnostics), key=lambda d: (d.location, d.line or 0, d.field, d.message)):
            self.say(str(diagnostic))
