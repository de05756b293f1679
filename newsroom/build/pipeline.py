"""The build: load → check → plan → render → write. Each stage hands the next a value.

Incremental by default: the build state in the database (build/state.py)
says what each output was made from, so a rebuild renders only the pages
whose inputs changed — any record, collection or derived value a page read
while it was planned or rendered (build/tracking.py), or its templates,
catalog, settings or the code. Aggregate outputs that are made from the
whole plan or the whole content (assets, feeds, search indexes, 404 pages,
the sitemap, the root page) are remade on every build that changed anything
and written only when their bytes differ. `full=True` ignores the state.

The latest issue's emails go to their own folder, written whole and
atomically after the site (they are not pages of the site).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from issues.models import Issue
from issues.visibility import unpublished_locations, visible_numbers
from newsroom import PROJECT_ROOT
from newsroom.build import state, urls
from newsroom.build.model import Content, load_content
from newsroom.build.pages import Derived, PageSpec, Planner, derive, plan_pages
from newsroom.build.rendering import PageRenderer, render_pages
from newsroom.build.tracking import Tracker, Values, track_content, track_derived, untracked_fields
from newsroom.build.urls import file_path
from newsroom.build.writer import (WriteStats, apply_changes, collect, existing_files, unchanged_on_disk,
                                   write_site)
from newsroom.checks import check_content
from newsroom.db.session import session_factory, transaction
from newsroom.diagnostics import ContentError, Diagnostic
from newsroom.render import search
from newsroom.render.assets import Asset, asset_urls, load_assets
from newsroom.render.email import latest_email
from newsroom.render.feeds import render_feeds
from newsroom.render.html import TEMPLATES, folder_digest
from newsroom.render.markdown import remembered_references
from newsroom.render.sitemap import render_sitemap
from newsroom.settings import Settings

#: Namespaces of remembered results (state.BuildMemo).
MEMOS = ("records", "references", "mentions", "plain")
#: The fingerprint of outputs remade on every build (their bytes decide whether they are written).
AGGREGATE = "aggregate"


@dataclass(frozen=True)
class BuildResult:
    pages: int
    files: int
    stats: WriteStats
    warnings: list[Diagnostic]
    rendered: int = 0  # pages rendered by this build (the rest were known to be unchanged)


@lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of the engine's source: new code may render differently, so it invalidates every output."""
    digest = hashlib.sha256()
    for package in ("newsroom", "glossary", "issues"):
        for path in sorted((PROJECT_ROOT / package).rglob("*.py")):
            digest.update(path.read_bytes())
    return digest.hexdigest()


def build_inputs(settings: Settings, drafts: bool, templates: Path) -> str:
    """Everything outside the database that every output depends on."""
    return f"{code_version()}|{settings!r}|drafts={drafts}|templates={folder_digest(templates)}"


def scheduled_public(session: Session, now: dt.datetime | None) -> tuple[int, ...]:
    """Scheduled issues the build clock has made public (see issues.visibility), in one query.

    The clock itself is no input (it changes on every build); which issues it
    makes public is: a scheduled issue appears when its time passes, with
    nothing else changed.
    """
    if now is None:
        return ()
    rows = session.execute(select(Issue.number, Issue.published_at).where(Issue.status == "scheduled"))
    return tuple(sorted(number for number, published in rows if published is not None and published <= now))


def build(engine: Engine, settings: Settings, out: Path, today: dt.date, drafts: bool = False,
          email_out: Path | None = None, now: dt.datetime | None = None, preview: bool = False, *,
          full: bool = False, progress: bool = False) -> BuildResult:
    """Build the site into `out` (and the latest issue's emails into `email_out`), rendering and writing
    only what changed; nothing is written on error.

    `now` is the build clock: scheduled issues whose time has passed are public (see issues.visibility).
    `preview` (the `serve` command) marks the pages as a preview and adds its reload script.
    """
    out = out.resolve()
    templates = Path(settings.templates) if settings.templates else TEMPLATES
    inputs = build_inputs(settings, drafts, templates)
    assets = load_assets(templates / "assets")
    # What every page's context gets besides its own: part of every page's fingerprint.
    shared: Mapping[str, Any] = {"assets": asset_urls(assets), "preview": preview}
    # First gather every record, so all pages see one consistent state of the content.
    with session_factory(engine)() as session, session.begin():
        public = scheduled_public(session, now)
        email_folder = str(email_out.resolve()) if email_out is not None else ""
        snapshot = state.snapshot(session, f"{inputs}|today={today.isoformat()}|preview={preview}|"
                                           f"public={public}|email={email_folder}")
        previous = None if full or not out.is_dir() else state.load(session, str(out))
        if previous is not None and previous.snapshot == snapshot:
            files = len(previous.outputs)
            return BuildResult(files - sum(o.fingerprint == AGGREGATE for o in previous.outputs.values()),
                               files, WriteStats(0, files, 0), [])
        # Remembered pure results (records, Markdown references, mentions); a full build starts empty.
        memos = {name: state.Memo({}, replace=True) for name in MEMOS} if full else state.load_memos(session, MEMOS)
        content = load_content(session, memos["records"])
    with remembered_references(memos["references"]):
        problems = checked(content, settings, today, drafts, now)
    derived = derive(content, settings, drafts, now, memos["mentions"])
    tracker = Tracker()
    with remembered_references(memos["references"], memos["plain"]):
        pages = plan_pages(track_content(content, tracker), track_derived(derived, tracker), settings, tracker,
                           now=now)
        renderer = PageRenderer(templates, settings.languages, shared)
        # The template folder is no input of a page here: its fingerprint names the templates it used.
        page_inputs = f"{code_version()}|{settings!r}|drafts={drafts}|public={public}|{untracked_fields(derived)}"
        made = _render_changed(pages, renderer, tracker, Values(content, derived), page_inputs, previous, out,
                               progress)
        rendered = len(made)
        aggregates = _aggregates(content, derived, pages, renderer, settings, now, assets)
    page_paths = [file_path(page.url) for page in pages]
    collect((path, b"") for path in [*page_paths, *aggregates])  # refuses two outputs for one path
    made.update(aggregates)
    stats = _publish(engine, out, made, previous, set(page_paths), snapshot, memos)
    if email_out is not None:
        # Feeds and the latest issue's email leave drafts out whatever `drafts` says.
        emails = [item for lang in settings.languages for item in latest_email(content, derived, settings, lang)]
        write_site(email_out, collect(emails))
    return BuildResult(len(pages), len(made) + len(page_paths) - rendered, stats,
                       [p for p in problems if p.severity == "warning"], rendered)


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


def _publish(engine: Engine, out: Path, made: Mapping[str, _Made], previous: state.Previous | None,
             page_paths: set[str], snapshot: str, memos: Mapping[str, state.Memo]) -> WriteStats:
    """Write what changed, remove what nothing makes, then record the new state (after the files)."""
    writes, outputs, removed = _changes(made, previous, out, page_paths)
    apply_changes(out, writes, removed)
    with transaction(engine) as session:
        state.save(session, str(out), snapshot, outputs, removed, dt.datetime.now(dt.timezone.utc),
                   replace_all=previous is None)
        state.save_memos(session, memos)
    files = len(page_paths | set(made))
    return WriteStats(len(writes), files - len(writes), len(removed))


@dataclass(frozen=True)
class _Made:
    data: bytes
    output: state.Output


def _render_changed(pages: list[PageSpec], renderer: PageRenderer, tracker: Tracker, values: Values,
                    inputs: str, previous: state.Previous | None, out: Path, progress: bool) -> dict[str, _Made]:
    """Render the pages whose recorded inputs changed (all of them without a previous state)."""
    stale: list[tuple[PageSpec, str]] = []
    for page in pages:
        path = file_path(page.url)
        fingerprint = hashlib.sha256(f"{inputs}|{renderer.fingerprint(page.template, page.lang)}".encode()).hexdigest()
        known = previous.outputs.get(path) if previous is not None else None
        if (known is None or known.fingerprint != fingerprint or not (out / path).is_file()
                or any(values(key) != value for key, value in known.deps.items())):
            stale.append((page, fingerprint))
    made: dict[str, _Made] = {}
    rendered = render_pages([page for page, _ in stale], renderer, tracker, progress)
    for (page, fingerprint), (data, reads) in zip(stale, rendered):
        deps = {key: values(key) for key in sorted(page.reads | reads)}
        made[file_path(page.url)] = _Made(data, state.Output(hashlib.sha256(data).hexdigest(), fingerprint, deps))
    return made


def _aggregates(content: Content, derived: Derived, pages: list[PageSpec], renderer: PageRenderer,
                settings: Settings, now: dt.datetime | None, assets: list[Asset]) -> dict[str, _Made]:
    """Outputs made from the whole plan or the whole content, not from one page's reads.

    Remade on every build that changed anything, and written only when their
    bytes differ: correct without dependency records, at the cost of making
    them each time. Add site-wide files here.
    """
    planners = [Planner(content, derived, settings, lang, now) for lang in settings.languages]  # untracked
    outputs = collect(site_wide(pages, planners, content, derived, settings, renderer, assets))
    return {path: _Made(data, state.Output(hashlib.sha256(data).hexdigest(), AGGREGATE, {}))
            for path, data in outputs.items()}


def site_wide(pages: list[PageSpec], planners: list[Planner], content: Content, derived: Derived,
              settings: Settings, renderer: PageRenderer, assets: list[Asset]) -> Iterator[tuple[str, bytes]]:
    """Assets, feeds, search indexes, 404 pages, the sitemap and the root page."""
    for asset in assets:
        yield asset.path, asset.data
    for planner in planners:
        yield from render_feeds(content, derived, settings, planner.lang)
        folder = urls.search_index(planner.lang)
        for relative, data in search.index_files(search.documents(planner)).items():
            yield folder + relative, data
        missing = planner.not_found()
        yield file_path(missing.url), renderer.render(missing.template, missing.lang, missing.context)
    default = planners[0]
    # The root 404 page answers for every unknown path; the default language's page, linking its twin.
    yield "404.html", renderer.render("404.html", default.lang, default.not_found().context)
    yield "sitemap.xml", render_sitemap(pages, settings.base_url, settings.default_language)
    yield "index.html", renderer.render("root.html", default.lang, default.chrome("", {}))


def _changes(made: Mapping[str, _Made], previous: state.Previous | None, out: Path,
             page_paths: set[str]) -> tuple[dict[str, bytes], dict[str, state.Output], list[str]]:
    """Which made files differ from what is published, which state rows change, what goes away."""
    writes: dict[str, bytes] = {}
    outputs: dict[str, state.Output] = {}
    for path, item in made.items():
        known = previous.outputs.get(path) if previous is not None else None
        if known != item.output:
            outputs[path] = item.output
        if known is not None and known.digest == item.output.digest and (out / path).is_file():
            continue
        if known is None and unchanged_on_disk(out, path, item.data):
            continue
        writes[path] = item.data
    before = set(previous.outputs) if previous is not None else existing_files(out)
    return writes, outputs, sorted(before - page_paths - set(made))
