"""The build: load → check → plan → render → write. Each stage hands the next a value."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from issues.visibility import unpublished_locations, visible_numbers
from newsroom.build import urls
from newsroom.build.model import Content, load_content
from newsroom.build.pages import Derived, PageSpec, Planner, derive
from newsroom.build.urls import file_path
from newsroom.build.writer import WriteStats, collect, write_site
from newsroom.checks import check_content
from newsroom.db.session import session_factory
from newsroom.diagnostics import ContentError, Diagnostic
from newsroom.render import search
from newsroom.render.assets import asset_urls, load_assets
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
          email_out: Path | None = None, now: dt.datetime | None = None, preview: bool = False) -> BuildResult:
    """Build the whole site into `out` (and the latest issue's emails into `email_out`), atomically.

    Emails go to their own folder: they are not pages of the site (and must not be served as such).
    `now` is the build clock: scheduled issues whose time has passed are public (see issues.visibility).
    `preview` (the `serve` command) marks the pages as a preview and adds its reload script.
    Nothing is written on error.
    """
    # First gather every record, so all pages see one consistent state of the content.
    with session_factory(engine)() as session:
        content = load_content(session)
    problems = checked(content, settings, today, drafts, now)
    derived = derive(content, settings, drafts, now)
    planners = [Planner(content, derived, settings, lang, now) for lang in settings.languages]
    pages = [spec for planner in planners for spec in planner.pages()]
    files = collect(outputs(pages, planners, content, derived, settings, preview))
    stats = write_site(out, files)
    if email_out is not None:
        # Feeds and the latest issue's email leave drafts out whatever `drafts` says.
        emails = [item for lang in settings.languages for item in latest_email(content, derived, settings, lang)]
        write_site(email_out, collect(emails))
    return BuildResult(len(pages), len(files), stats, [p for p in problems if p.severity == "warning"])


def checked(content: Content, settings: Settings, today: dt.date, drafts: bool,
            now: dt.datetime | None) -> list[Diagnostic]:
    """Check before rendering: a broken link must stop the build, not ship.

    Unpublished issues are work in progress: their problems are checked when they are
    scheduled or published, and in a preview they are only warnings.
    """
    unpublished = unpublished_locations(content, visible_numbers(content, False, now))
    problems = [p if p.location not in unpublished or p.severity == "warning" else replace(p, severity="warning")
                for p in check_content(content, settings, today) if drafts or p.location not in unpublished]
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise ContentError(errors)
    return problems


def outputs(pages: list[PageSpec], planners: list[Planner], content: Content, derived: Derived,
            settings: Settings, preview: bool) -> Iterator[tuple[str, bytes]]:
    """Every file of the site: pages, assets, feeds, search indexes, 404s, sitemap, root."""
    assets = load_assets()
    shared: Mapping[str, Any] = {"assets": asset_urls(assets), "preview": preview}
    for asset in assets:
        yield asset.path, asset.data
    for page in pages:
        yield file_path(page.url), render(page.template, page.lang, {**page.context, **shared})
    for planner in planners:
        yield from render_feeds(content, derived, settings, planner.lang)
        folder = urls.search_index(planner.lang)
        for relative, data in search.index_files(search.documents(planner)).items():
            yield folder + relative, data
        missing = planner.not_found()
        yield file_path(missing.url), render(missing.template, missing.lang, {**missing.context, **shared})
    default = planners[0]
    # The root 404 page answers for every unknown path; the default language's page, linking its twin.
    yield "404.html", render("404.html", default.lang, {**default.not_found().context, **shared})
    yield "sitemap.xml", render_sitemap(pages, settings.base_url, settings.default_language)
    root = {**default.chrome("", {}), **shared}
    yield "index.html", render("root.html", default.lang, root)
