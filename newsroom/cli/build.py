"""The build command."""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from newsroom.build.pipeline import BuildResult
from newsroom.build.pipeline import build as build_site
from newsroom.build.stopped import StoppedAtOnce, StoppedOnceWritten, Stopping, WorkerLost, answered_once_written
from newsroom.cli import App, content_errors, jobs_option, pass_app, report
from newsroom.public_address import public_address_problems

#: The signals that end a build at once (see _ended_at_once_by_signals), each as a message names it.
ENDED_AT_ONCE = {signal.SIGTERM: "`kill` (SIGTERM)",
                 **({signal.SIGHUP: "its terminal closing (SIGHUP)"} if hasattr(signal, "SIGHUP") else {})}

#: What the last build held, kept until the process ends: the command ends it without freeing objects
#: (see newsroom.cli.exit_now), so the build need not free them either.
_HELD: list[object] = []


@click.command()
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("_site"), show_default=True)
@click.option("--base-url", help="Absolute URL the site is served from.")
@click.option("--drafts", is_flag=True, help="Preview: include draft and scheduled issues, and draft entries, "
              "reference pages and site pages, each marked.")
@click.option("--email-out", type=click.Path(file_okay=False, path_type=Path), default=Path("_email"),
              show_default=True, help="Folder for the latest published issue's emails (.html, .txt, .eml).")
@click.option("--full", is_flag=True, help="Ignore the recorded build state: render and compare every page.")
@click.option("--templates", type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="Template folder to use instead of the configured one.")
@click.option("--quiet", "-q", is_flag=True,
              help="No progress bar and no summary: print only problems (as `newsroom --quiet build`).")
@jobs_option
@pass_app
@content_errors
def build(app: App, out: Path, base_url: str | None, drafts: bool, email_out: Path, full: bool,
          templates: Path | None, quiet: bool, jobs: int | None) -> None:
    """Build the static site in both languages into OUT, redoing only what changed.

    On a terminal a progress bar counts the pages and files made; the build ends with one line:
    files written, unchanged and removed, and the time it took. Ctrl-C stops it once its render workers have
    ended (said after a second, and again at the second, with what a third does); pressed a third time, it ends
    them at once. `kill` (SIGTERM, as a scheduler stops it) or its terminal closed (SIGHUP) ends it at once, OUT
    left as it was before it; one of them or Ctrl-C as the files go in is answered once they all have, OUT then
    this build's, whole."""
    app.quiet = app.quiet or quiet
    app.open_content()
    settings = app.settings.replace(base_url=base_url, templates=str(templates.resolve()) if templates else None)
    started = time.perf_counter()
    # A progress bar only for a person watching: on a terminal, and not with --quiet.
    progress = not app.quiet and sys.stderr.isatty()
    stopping = Stopping(click.echo, f"stopped once more (Ctrl-C), by `kill` or by its terminal closing, the build "
                                    f"ends at once, its render workers ended by force, and {out} is left as it was "
                                    "before this build",
                        frozenset(ENDED_AT_ONCE))
    built: list[BuildResult] = []  # a stop as the command lets go of the signals is that of a build that wrote OUT
    try:
        with answered_once_written(built), _ended_at_once_by_signals():
            built.append(build_site(app.engine, settings, out, app.today(), drafts=drafts, email_out=email_out,
                                    now=app.now(), full=full, progress=progress, keep=_HELD, stopping=stopping,
                                    jobs=jobs))
    except StoppedAtOnce as stop:
        raise click.ClickException(_stopped(stop, out)) from None
    except StoppedOnceWritten:  # click would say "Aborted!" of a folder this build wrote whole
        raise click.ClickException(_written_whole("Ctrl-C", out)) from None
    except KeyboardInterrupt:  # before the build wrote OUT: click would say "Aborted!"
        raise click.ClickException(f"stopped by Ctrl-C: the build ended, and {out} is left as it was before this "
                                   "build: build again to bring it up to date") from None
    except WorkerLost as lost:  # not a traceback: nothing in the content or the code is at fault
        raise click.ClickException(f"{lost}: {out} is left as it was before this build: build again (if memory ran "
                                   "short, with fewer render workers: `newsroom build --jobs 1 …`)") from None
    result = built[0]
    # A public build at an address no reader reaches: said, for the preview's is a build's default too.
    report(result.warnings + ([] if drafts else public_address_problems(settings, ("base_url",) if base_url else ())))
    stats = result.stats
    app.say(f"{result.files} files ({result.pages} pages, {result.rendered} rendered): {stats.written} written, "
            f"{stats.unchanged} unchanged, {stats.removed} removed in {time.perf_counter() - started:.2f}s → {out}")


def _stopped(stop: StoppedAtOnce, out: Path) -> str:
    """What a build stopped at once says of its folder, and what to do."""
    named = ENDED_AT_ONCE.get(stop.by_signal, "`kill` (SIGTERM)")  # None: a third Ctrl-C, not published
    if stop.published:
        return _written_whole(named, out)
    if stop.by_signal is not None:
        return (f"stopped by {named}: the build ended at once, and {out} is left as it was before this build: "
                "build again to bring it up to date")
    return (f"stopped without waiting for the build's render workers to end: they were ended at once, and {out} "
            "is left as it was before this build: build again to bring it up to date")


def _written_whole(named: str, out: Path) -> str:
    """What a build stopped by `named` as it wrote its folder, which it finished first, says of it."""
    return f"stopped by {named} as this build wrote {out}, which it finished first: {out} is this build's, whole " \
           "and up to date"


@contextmanager
def _ended_at_once_by_signals() -> Iterator[None]:
    """`kill` (SIGTERM: a scheduler's stop, systemd's before its SIGKILL) or the terminal closed (SIGHUP: an ssh
    connection dropped) ends the build at once, as a third Ctrl-C does, rather than by the signal's default
    (nothing said, its new tree left beside the folder, and an incremental build's files could be left some new,
    some old): raised as StoppedAtOnce, the build's new tree is dropped, its render workers ended by force, and
    its files written whole or not at all (see making's publish). One ignored (`nohup`) stays so."""
    def end(signum: int, frame: object) -> None:
        raise StoppedAtOnce(f"stopped by {ENDED_AT_ONCE[signum]}", by_signal=signum)

    main = threading.current_thread() is threading.main_thread()  # only the main thread may set a handler
    handled = [number for number in ENDED_AT_ONCE if main and signal.getsignal(number) is not signal.SIG_IGN]
    previous = {number: signal.signal(number, end) for number in handled}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


COMMANDS = [build]
