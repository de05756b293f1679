"""The build: load → check → plan → render → write. Each stage hands the next a value."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from newsroom.build import urls
from newsroom.build.model import load_content
from newsroom.build.pages import PageSpec, Planner, derive
from newsroom.build.urls import file_path
from newsroom.build.writer import WriteStats, collect, write_site
from newsroom.checks import check_content
from newsroom.db.session import session_factory
from newsroom.diagnostics import ContentError, Diagnostic
from newsroom.render import search
from newsroom.render.assets import asset_urls, load_assets
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
          preview: bool = False) -> BuildResult:
    """Build the whole site into `out`, replacing it atomically; nothing is written on error.

    `preview` (the `serve` command) marks the pages as a preview and adds its reload script.
    """
    # First gather every record, so all pages see one consistent state of the content.
    with session_factory(engine)() as session:
        content = load_content(session)
    # Check before rendering: a broken link must stop the build, not ship.
    problems = check_content(content, settings, today)
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise ContentError(errors)
    derived = derive(content, settings, drafts)
    planners = [Planner(content, derived, settings, lang) for lang in settings.languages]
    pages = [spec for planner in planners for spec in planner.pages()]
    files = collect(outputs(pages, planners, settings, preview))
    stats = write_site(out, files)
    return BuildResult(len(pages), len(files), stats, [p for p in problems if p.severity == "warning"])


def outputs(pages: list[PageSpec], planners: list[Planner], settings: Settings,
            preview: bool) -> Iterator[tuple[str, bytes]]:
    """Every file of the site as (relative path, bytes): pages, assets, search indexes, 404s, sitemap, root."""
    assets = load_assets()
    shared: Mapping[str, Any] = {"assets": asset_urls(assets), "preview": preview}
    for asset in assets:
        yield asset.path, asset.data
    for page in pages:
        yield file_path(page.url), render(page.template, page.lang, {**page.context, **shared})
    for planner in planners:
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
