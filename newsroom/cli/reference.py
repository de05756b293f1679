"""Editor commands for reference pages: list, new."""

from __future__ import annotations

from pathlib import Path

import click
from sqlalchemy import select

from newsroom.build.model import load_content
from newsroom.cli import App, content_errors, pass_app, slug_stored, starter_slug, write_starter
from newsroom.models import Page
from newsroom.reference_listing import list_lines
from newsroom.reference_starter import reference_starter


@click.group()
def reference() -> None:
    """Reference pages: list them, start a new one."""


@reference.command("list")
@click.option("--lang", help="Language of the titles and of the sort order (default: the first language).")
@pass_app
@content_errors
def list_(app: App, lang: str | None) -> None:
    """List reference pages by title: slug, date of last update, title (and "(draft)" for one not published)."""
    settings = app.settings
    lang = lang or settings.default_language
    if lang not in settings.languages:
        raise click.BadParameter(f"expected one of {', '.join(settings.languages)}", param_hint="--lang")
    with app.reading() as session:
        content = load_content(session)
    for line in list_lines(content, lang, settings.languages):
        click.echo(line)


@reference.command()
@click.argument("slug")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the file (default: reference/SLUG.yaml).")
@pass_app
@content_errors
def new(app: App, slug: str, out: Path | None) -> None:
    """Write a starter file for a new reference page in every language: one section (Simple and Deep
    dive), one spec table, one source. It imports as it is; `check` lists the TODOs left to write."""
    starter_slug(slug, "trainium2")
    with app.reading() as session:
        stored = session.execute(select(Page.kind, Page.version).where(Page.slug == slug)).first()
    if stored is not None:  # reference and site pages share one slug space
        what = "a reference page" if stored.kind == "reference" else "a site page"
        raise slug_stored(what, slug, stored.version, f"{stored.kind}:{slug}")
    path = out or Path("reference") / f"{slug}.yaml"
    write_starter(app, path, reference_starter(slug, app.settings.languages, app.today(), str(path)),
                  f"write it wherever it says TODO, then run `newsroom import {path}`: a draft, shown by `newsroom "
                  "build --drafts` and `newsroom serve` until you delete its `draft: true` line and import it again")


COMMANDS = [reference]
