"""The serve command: a local preview of the site with drafts, rebuilt on every change."""

from __future__ import annotations

import errno
import functools
import shutil
import signal
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from newsroom.build.rendering import end_workers_at_once
from newsroom.build.stopped import StoppedAtOnce
from newsroom.cli import App, content_errors, jobs_option, pass_app
from newsroom.db.session import sqlite_path
from newsroom.listening import netloc
from newsroom.serve import Preview


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Interface to listen on; other than 127.0.0.1 only when you mean to share the preview.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port (0: any free port).")
@click.option("--content", "content", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Content folder to import and watch (repeatable).")
@jobs_option
@pass_app
@content_errors
def serve(app: App, host: str, port: int, content: tuple[Path, ...], jobs: int | None) -> None:
    """Preview the site with drafts at http://HOST:PORT/, rebuilding and reloading on every change.

    Changed content files are imported each on its own merit: of files saved together, a bad one is held
    back, its problems shown at the top of every page, and the files that need it wait for it. A change to
    newsroom.toml is said to need a restart (the preview keeps the settings it started with). A connection
    that sends nothing for 30 s is closed. Ctrl-C waits for a build or an import under way, then removes the
    preview's folder; pressed a third time, it stops at once (a build's render workers ended by force), leaving
    the folder a build writes into.
    """
    app.open_content()
    database_file = sqlite_path(app.db_url)
    with _stopped_as_by_ctrl_c() as stopping:
        folder = Path(tempfile.mkdtemp(prefix="newsroom-preview-"))
        broken_off: str | None = None  # what was under way when stopped without waiting for it (see _previewed)
        try:
            try:
                preview = Preview(app.engine, app.settings, folder / "site", today=app.today, now=app.now,
                                  content=content, database_file=database_file, host=host, port=port,
                                  say=click.echo, settings_folder=Path.cwd(), folder=folder, jobs=jobs)
            except OSError as error:  # the port taken, or not ours to take
                raise click.ClickException(f"cannot listen on {netloc(host, port)}: {_why(error, port)}") from None
            stopping.append(functools.partial(preview.stopped_again, folder))
            broken_off = _previewed(preview, content)
        finally:
            if broken_off != "build":  # nothing writes into the folder, and no build begins once stopping has
                shutil.rmtree(folder, ignore_errors=True)
    if broken_off == "build":
        end_workers_at_once()  # of the build under way in the watcher's thread: the exit would wait for them
        raise click.ClickException(f"stopped without waiting for the build under way: the preview's folder {folder}, "
                                   "which it was writing into, is left as it is (the site with its drafts): remove it")
    if broken_off == "import":
        raise click.ClickException("stopped without waiting for the import under way: the saved files it was "
                                   "importing may not be stored (an import stores all of its files or none): import "
                                   "them again (`newsroom import`, or `newsroom serve --content` started again)")


def _previewed(preview: Preview, content: tuple[Path, ...]) -> str | None:
    """Serve until stopped, at any time, during the first build too. What was still under way when stopped at
    once (a third Ctrl-C, see Preview.stopped_again; during the first build, as it waits for its render workers
    to end, see StoppedAtOnce): "build", whose folder is then not to be removed (the build could make it again
    as it is), or "import", which may store nothing; None when nothing was broken off."""
    try:
        preview.start()
        click.echo(f"previewing {preview.url} (drafts shown); watching templates, catalogs, newsroom.toml, the "
                   f"database{' and ' + ', '.join(map(str, content)) if content else ''}; Ctrl-C stops")
        preview.wait()
    except KeyboardInterrupt:
        pass
    except StoppedAtOnce:  # a third stop as the first build waited for its render workers, which it then ended
        preview.stop()
        return "build"
    except BaseException:
        preview.stop()  # an error as it started
        raise
    try:
        preview.stop()
    except KeyboardInterrupt:
        return preview.under_way()
    return None


def _why(error: OSError, port: int) -> str:
    """Why the preview cannot listen, with what to do about it."""
    if error.errno == errno.EADDRINUSE:
        return (f"port {port} is in use (another preview?): stop what listens there, or choose another port "
                "with --port (--port 0: any free one)")
    if error.errno == errno.EACCES:
        return f"not allowed to listen on port {port}: choose one from 1024 up with --port (--port 0: any free one)"
    if isinstance(error, socket.gaierror) or error.errno == errno.EADDRNOTAVAIL:
        return "no such address on this machine: --host takes one of its addresses (127.0.0.1: this machine only)"
    return error.strerror or str(error)


@contextmanager
def _stopped_as_by_ctrl_c() -> Iterator[list[Callable[[], None]]]:
    """`kill`, or the terminal closed (SIGTERM, SIGHUP), stops the preview as Ctrl-C does: its folder, the site
    with its drafts, is removed (it was left in the temporary folder, one more at every preview so ended).

    The first of them raises KeyboardInterrupt; each one after is answered by what is appended to the list
    given (the preview's stopped_again), else raises it too: a second Ctrl-C no longer breaks off the wait for
    a build under way, nor the removal of the folder. A signal ignored (`nohup`) stays ignored."""
    again: list[Callable[[], None]] = []
    asked = 0

    def interrupt(signum: int, frame: object) -> None:
        nonlocal asked
        asked += 1
        if asked == 1 or not again:
            raise KeyboardInterrupt
        again[0]()

    signals = [getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)]
    main = threading.current_thread() is threading.main_thread()  # only the main thread may set a handler
    signals = [number for number in signals if main and signal.getsignal(number) is not signal.SIG_IGN]
    previous = {number: signal.signal(number, interrupt) for number in signals}
    try:
        yield again
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


COMMANDS = [serve]
