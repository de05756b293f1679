"""Editor commands for the glossary: list, show, stale, new."""

from __future__ import annotations

from pathlib import Path

import click
from sqlalchemy import select

from glossary.listing import EntryFilter, list_lines, show_lines
from glossary.models import LEVELS, Entry
from glossary.staleness import stale_entries
from glossary.template import entry_template
from newsroom.build.model import Content, load_content
from newsroom.cli import App, content_errors, pass_app, slug_stored, starter_slug, write_starter
from newsroom.drafts import is_draft
from newsroom.content.records import where_listed
from newsroom.content.stored import former_slugs


def _content(app: App) -> Content:
    with app.reading() as session:
        return load_content(session)


@click.group()
def glossary() -> None:
    """Glossary entries: list, show, find stale ones, start a new one."""


@glossary.command("list")
@click.option("--lang", help="Language of headwords and of the sort order (default: the first language).")
@click.option("--category", help="Only entries of this category slug.")
@click.option("--level", type=click.Choice(LEVELS), help="Only entries of this level.")
@click.option("--stale", is_flag=True, help="Only entries whose 'Where things stand' is older than the limit.")
@pass_app
@content_errors
def list_(app: App, lang: str | None, category: str | None, level: str | None, stale: bool) -> None:
    """List entries in dictionary order: slug, headword, category, level, trend, status (and "draft" for one
    not published)."""
    settings = app.settings
    lang = lang or settings.default_language
    if lang not in settings.languages:
        raise click.BadParameter(f"expected one of {', '.join(settings.languages)}", param_hint="--lang")
    content = _content(app)
    categories = content.vocabulary("categories")
    if category is not None and category not in categories:
        raise click.BadParameter(f"no category {category!r}; known: {', '.join(categories) or 'none defined'} "
                                 f"({where_listed('category')})",
                                 param_hint="--category")
    selection = EntryFilter(category, level, settings.stale_after_months if stale else None)
    for line in list_lines(content, lang, selection, app.today()):
        click.echo(line)


@glossary.command()
@click.argument("slug")
@pass_app
@content_errors
def show(app: App, slug: str) -> None:
    """Show one entry: texts, relations from both sides, provenance, stories that mention it."""
    content = _content(app)
    if slug not in content.entries:
        with app.reading() as session:
            now = former_slugs(session, "entry").get(slug)
        raise click.ClickException(f"no glossary entry {slug!r}" + (
            f"; entry:{now} had that slug before (newsroom glossary show {now})" if now else ""))
    settings = app.settings
    for line in show_lines(content, slug, settings.languages, app.today(), settings.stale_after_months,
                           settings.zone):
        click.echo(line)


@glossary.command()
@pass_app
@content_errors
def stale(app: App) -> None:
    """List entries whose 'Where things stand' is older than the limit, oldest first ("draft" after a draft's)."""
    content = _content(app)
    limit = app.settings.stale_after_months
    stale_ones = stale_entries(content, app.today(), limit)
    if not stale_ones:
        app.say(f"no entry is older than {limit} months")
    for item in stale_ones:
        headword = content.entries[item.slug].text(app.settings.default_language).get("headword") or item.slug
        draft = "  draft" if is_draft(content.entries[item.slug]) else ""
        click.echo(f"{item.status}  {item.slug}  {headword}  ({item.age_months} months){draft}")


@glossary.command()
@click.argument("slug")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the file (default: entries/SLUG.yaml).")
@pass_app
@content_errors
def new(app: App, slug: str, out: Path | None) -> None:
    """Write a content-file template for a new entry, every field in every language."""
    starter_slug(slug, "aws-trainium")
    with app.reading() as session:
        stored = session.scalar(select(Entry.version).where(Entry.slug == slug))
    if stored is not None:
        raise slug_stored("an entry", slug, stored, f"entry:{slug}")
    path = out or Path("entries") / f"{slug}.yaml"
    write_starter(app, path, entry_template(slug, app.settings.languages, app.today(), str(path)),
                  f"fill it in, then run `newsroom import {path}`: a draft, shown by `newsroom build --drafts` and "
                  "`newsroom serve` until you delete its `draft: true` line and import it again")


COMMANDS = [glossary]
