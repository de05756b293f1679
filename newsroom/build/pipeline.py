"""The build: load → check → plan → render → write. Each stage hands the next a value."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from pathlib import Path

from sqlalchemy import Engine

from issues.visibility import unpublished_locations, visible_numbers
from newsroom.build.model import load_content
from newsroom.build.pages import derive, plan
from newsroom.build.urls import file_path
from newsroom.build.writer import WriteStats, collect, write_site
from newsroom.checks import check_content
from newsroom.db.session import session_factory
from newsroom.diagnostics import ContentError, Diagnostic
from newsroom.render.email import latest_email
from newsroom.render.feeds import render_feeds
from newsroom.render.html import render
from newsroom.render.sitemap import render_sitemap
from newsroom.settings import Settings


@dataclass(frozen=True)
class BuildResult:
    pages: int
    files: int
    stats: WriteStats
    warnings: list[Diagnostic]


def build(engine: Engine, settings: Settings, out: Path, today: dt.date, drafts: bool = False,
          email_out: Path | None = None, now: dt.datetime | None = None) -> BuildResult:
    """Build the whole site into `out` (and the latest issue's emails into `email_out`), atomically.

    Emails go to their own folder: they are not pages of the site (and must not be served as such).
    `now` is the build clock: scheduled issues whose time has passed are public (see issues.visibility).
    Nothing is written on error.
    """
    # First gather every record, so all pages see one consistent state of the content.
    with session_factory(engine)() as session:
        content = load_content(session)
    # Check before rendering: a broken link must stop the build, not ship.
    # Unpublished issues are work in progress: their problems are checked when they are
    # scheduled or published, and in a preview they are only warnings.
    unpublished = unpublished_locations(content, visible_numbers(content, False, now))
    problems = [p if p.location not in unpublished or p.severity == "warning" else replace(p, severity="warning")
                for p in check_content(content, settings, today) if drafts or p.location not in unpublished]
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise ContentError(errors)
    derived = derive(content, settings, drafts, now)
    pages = plan(content, settings, derived, now)
    outputs = [(file_path(page.url), render(page.template, page.lang, page.context)) for page in pages]
    # Feeds and the latest issue's email leave drafts out whatever `drafts` says.
    emails: list[tuple[str, bytes]] = []
    for lang in settings.languages:
        outputs += render_feeds(content, derived, settings, lang)
        emails += latest_email(content, derived, settings, lang)
    outputs.append(("sitemap.xml", render_sitemap(pages, settings.base_url, settings.default_language)))
    outputs.append(("index.html", render("root.html", settings.default_language, {
        "lang": settings.default_language, "languages": settings.languages, "href": lambda u: u})))
    files = collect(outputs)
    stats = write_site(out, files)
    if email_out is not None:
        write_site(email_out, collect(emails))
    return BuildResult(len(pages), len(files), stats, [p for p in problems if p.severity == "warning"])
