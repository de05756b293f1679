"""The build command."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from newsroom.build.pipeline import build as build_site
from newsroom.build.stopped import StoppedAtOnce
from newsroom.cli import App, content_errors, pass_app, report
from newsroom.settings import public_address_problems

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
@pass_app
@content_errors
def build(app: App, out: Path, base_url: str | None, drafts: bool, email_out: Path, full: bool,
          templates: Path | None, quiet: bool) -> None:
    """Build the static site in both languages into OUT, redoing only what changed.

    On a terminal a progress bar counts the pages and files made; the build ends with one line:
    files written, unchanged and removed, and the time it took. Ctrl-C stops it once its render workers have
    ended; pressed a third time, it ends them at once."""
    app.quiet = app.quiet or quiet
    app.open_content()
    settings = app.settings.replace(base_url=base_url, templates=str(templates.resolve()) if templates else None)
    started = time.perf_counter()
    # A progress bar only for a person watching: on a terminal, and not with --quiet.
    progress = not app.quiet and sys.stderr.isatty()
    try:
        result = build_site(app.engine, settings, out, app.today(), drafts=drafts, email_out=email_out,
                            now=app.now(), full=full, progress=progress, keep=_HELD)
    except StoppedAtOnce:
        raise click.ClickException(f"stopped without waiting for the build's render workers to end: they were "
                                   f"ended at once, and {out} is left as it was before this build: build again to "
                                   "bring it up to date") from None
    # A public build at an address no reader reaches: said, for the preview's is a build's default too.
    report(result.warnings + ([] if drafts else public_address_problems(settings, ("base_url",) if base_url else ())))
    stats = result.stats
    app.say(f"{result.files} files ({result.pages} pages, {result.rendered} rendered): {stats.written} written, "
            f"{stats.unchanged} unchanged, {stats.removed} removed in {time.perf_counter() - started:.2f}s → {out}")


COMMANDS = [build]
