"""The build once something changed: load, check, list pages, plan and render the stale ones, write.

`newsroom.build.pipeline` runs a build up to its first question — did anything change since the last
one? — and imports this module only when something did (see there): what it needs (templates,
Markdown, feeds, the search index, the glossary's matchers) is most of what a build imports.

Its steps live beside it: the check and the parse ahead (checking.py), finding what is stale (stale.py,
masthead.py), making it over the render workers (works.py), writing and recording it (publishing.py).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

from jinja2 import TemplateNotFound, TemplateSyntaxError
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from newsroom.build import stale, state, works
from newsroom.build.checking import checked, parse_ahead
from newsroom.build.derived import derive, term_matchers
from newsroom.build.masthead import respliced
from newsroom.build.memos import Memo, fresh_memos, load_memos
from newsroom.build.model import Content, Record, load_content
from newsroom.build.page_specs import PageSpec
from newsroom.build.pipeline import BuildResult, code_version
from newsroom.build.planning import list_pages
from newsroom.build.publishing import IN_PLACE_SHARE, Made, publish, published
from newsroom.build.remembered import Remembered
from newsroom.build.rendering import PageRenderer, run_all, signals_held
from newsroom.build.stale import AGGREGATE, largest_first, stale_groups, stale_pages
from newsroom.build.stopped import Stopping, answered_once_written
from newsroom.build.tracking import Tracker, track_content, track_derived, untracked_fields
from newsroom.build.urls import SITE_NAMES, SITEMAP
from newsroom.build.values import Values
from newsroom.build.works import Spool
from newsroom.build.writer import StagedTree, WriteStats, changed_since, collect
from newsroom.checks import markdown_texts
from newsroom.db.session import WalCopy
from newsroom.diagnostics import ContentError, Diagnostic
from newsroom.drafts import drafts_in, without_drafts
from newsroom.render.assets import asset_urls, load_assets
from newsroom.render.email import latest_email
from newsroom.render.email_context import EMAIL_TEMPLATES
from newsroom.render.folder import TEMPLATES
from newsroom.render.html import environment
from newsroom.render.markdown import remembered_references, text_key
from newsroom.render.sitemap import render_sitemap
from newsroom.render.static import static_folder, static_paths
from newsroom.settings import Settings

#: Namespaces of remembered results (memos.BuildMemo).
MEMOS = ("records", "references", "mentions", "plain", "checks", "templates", "feeds")
#: Those a build reads only in part: the texts it renders, the records that changed, the feeds it remakes.
PARTIAL_MEMOS = ("references", "plain", "feeds")


class Loaded(NamedTuple):
    """What `load` read: the last build's state, the remembered results, the content."""

    previous: state.Previous | None
    memos: dict[str, Memo]
    content: Content


def load(session: Session, out: Path, full: bool, by_hand: set[str] | None) -> Loaded:
    """What the build makes the site from, read in the front's transaction (see pipeline._build): the last
    build's state (none for a full build), the remembered results and the content. `by_hand` are the last
    build's files changed or removed since, if the front found them."""
    previous = None if full or not out.is_dir() else state.load(session, str(out))
    if previous is not None:
        if by_hand is None:
            by_hand = changed_since(out, previous.stamps, previous.written_ns)
        previous = replace(previous, changed=frozenset(by_hand))
    # Remembered pure results (records, Markdown references, mentions) of this code; a full build starts empty.
    memos = (fresh_memos(MEMOS, PARTIAL_MEMOS) if full
             else load_memos(session, MEMOS, PARTIAL_MEMOS, code_version()))
    content = load_content(session, memos["records"])
    return Loaded(previous, memos, content)


def make(engine: Engine, settings: Settings, out: Path, today: dt.date, drafts: bool, email_out: Path | None,
         now: dt.datetime | None, preview: bool, progress: bool, keep: list[Any] | None, templates: Path,
         public: tuple[int, ...], snapshot: str, loaded: Loaded, stopping: Stopping | None = None,
         jobs: int | None = None) -> BuildResult:
    """Check, list, plan and render what is stale, and write it (see pipeline.build), in `jobs` render workers
    (see run_all), which `stopping` stops.

    A new tree the build opens (`staged`) is dropped if the build fails or is stopped before it is swapped in:
    the folder stays as it was. A stop once the folder is written (`written`) says so (see answered_once_written)."""
    wal_copy = WalCopy(engine)  # what earlier commits left in SQLite's WAL, copied while this build works
    staged: list[StagedTree] = []
    written: list[WriteStats] = []
    try:
        with answered_once_written(written), _template_errors(templates):
            try:
                return _make_site(engine, settings, out, today, drafts, email_out, now, preview, progress, keep,
                                  templates, public, snapshot, partial(run_all, stopping=stopping, jobs=jobs),
                                  staged, written, *loaded)
            except BaseException:
                for tree in staged if not written else ():
                    tree.discard()
                raise
    finally:
        wal_copy.wait()


def _make_site(engine: Engine, settings: Settings, out: Path, today: dt.date, drafts: bool,
               email_out: Path | None, now: dt.datetime | None, preview: bool, progress: bool,
               keep: list[Any] | None, templates: Path, public: tuple[int, ...], snapshot: str,
               run: Callable[..., list[Any]], staged: list[StagedTree], written: list[WriteStats],
               previous: state.Previous | None, memos: dict[str, Memo], content: Content) -> BuildResult:
    assets = load_assets(templates / "assets")
    # What every page's context gets besides its own: part of every page's fingerprint.
    shared: Mapping[str, Any] = {"assets": asset_urls(assets), "preview": preview}
    if email_out is not None:  # the emails are made after the site is written: their templates must load first
        for lang in settings.languages:
            for name in EMAIL_TEMPLATES:
                environment(lang, templates).get_template(name)
    # HTML of texts rendered ahead by the parse that finds their references (see find_references);
    # kept for this build only.
    ahead = Memo()
    # The term matchers, compiled while the workers parse ahead if they do (a first or full build, which
    # then matches every story): compiling the glossary's patterns takes this process a few tenths of
    # a second, while one core would idle after the parse ahead.
    # What readers see: a public build leaves draft entries and reference pages out (see newsroom.drafts);
    # `check` reads everything, a draft's own problems being work in progress (see `checked`).
    full, content = content, content if drafts else without_drafts(content)
    matching = term_matchers(content, settings.languages, memos["mentions"])  # (glossary digest, matchers)

    def compile_matchers() -> None:
        for matcher in matching[1].values():
            matcher.compile()

    with remembered_references(memos["references"], memos["plain"], ahead), ThreadPoolExecutor(1) as side:
        fresh = [Record(*values) for values in memos["records"].added.values()]  # read from the database
        compiled: list[Future[None]] = []  # the executor starts its thread on the first submit: after the fork
        parse_ahead(fresh, full, settings, [memos["references"], memos["plain"], ahead], memos["checks"],
                    lambda: compiled.append(side.submit(compile_matchers)), progress, run)
        for done in compiled:
            done.result()
        problems = checked(full, settings, today, drafts, now, memos["checks"])
    derived = derive(content, settings, drafts, now, memos["mentions"], run,
                     matching, drafts_in(full.entries) if content is not full else None)
    tracker = Tracker()
    tracked = (track_content(content, tracker), track_derived(derived, tracker))
    values = Values(content, derived)
    # The template folder is no input of a page here: its fingerprint names the templates it used.
    page_inputs = f"{code_version()}|{settings!r}|drafts={drafts}|public={public}|{untracked_fields(derived)}"
    with remembered_references(memos["references"], memos["plain"], ahead):
        renderer = PageRenderer(templates, settings.languages, shared, memos["templates"])
        listed = list_pages(*tracked, settings, tracker, now, extra=True)
        candidates = stale.candidates(previous, values)
        if previous is not None:  # the reads of the outputs whose reads may have changed: every one's without a graph
            previous.fetch_reads(candidates.paths if candidates is not None else None)
        pages, metas, spliced = stale_pages(listed, renderer, values, page_inputs, previous, out, candidates)
        groups, kept_groups = stale_groups(tracked, settings, now, values, page_inputs, renderer, previous, out,
                                           {plan.output for plan, _ in listed}, candidates, memos["feeds"])
        if previous is not None:  # those of the stale pages, which their works compare with (see works.make)
            previous.fetch_reads(plan.output for plan, _, _ in pages)
            pages = largest_first(pages, previous)
        # A build that remakes much of the site assembles a new tree, written while it renders.
        remade = len(pages) + len(spliced)
        tree = StagedTree(out) if previous is None or remade > len(listed) // IN_PLACE_SHARE else None
        staged.extend([tree] if tree is not None else [])
        for path, (item, lines) in spliced.items():
            if lines is None:  # the same bytes
                continue
            if tree is not None:  # spliced pages join it now, spliced again and written while the others render
                tree.write_made(path, partial(respliced, out / path, *lines))
            else:
                spliced[path] = (Made(respliced(out / path, *lines), item.output), None)
        made, grouped = works.make(pages, groups, renderer, tracker, values, metas, progress,
                                   [memos["references"], memos["plain"], memos["feeds"]], previous, candidates,
                                   Spool(tree, previous, out) if tree is not None else None, run)
        rendered = sum(1 for plan, _, _ in pages if plan.in_sitemap)
    made.update(grouped)
    made.update({path: item for path, (item, _) in spliced.items()})
    group_files = list(grouped)
    del grouped  # `made` holds the bytes now, and lets them go once written (see publish)
    # Each page's sitemap entry: (URL, language, twins, lastmod as ISO date or None).
    sitemap = [(plan.url, plan.lang, meta["twins"], meta["lastmod"])
               for plan, _ in listed if plan.in_sitemap for meta in (metas[plan.output],)]
    made.update({asset.path: Made(asset.data, state.Output(hashlib.sha256(asset.data).hexdigest(), AGGREGATE))
                 for asset in assets})
    static = {path: source.read_bytes() for path, source in static_paths(static_folder(settings.static),
                                                                          SITE_NAMES).items()}
    made.update({path: Made(data, state.Output(hashlib.sha256(data).hexdigest(), AGGREGATE))
                 for path, data in static.items()})
    # The sitemap is made from every page's entry: remade when any entry (or the list) changed.
    entries = hashlib.sha256(repr((settings.base_url, settings.default_language, code_version(), sitemap)).encode())
    known_map = previous.outputs.get(SITEMAP) if previous is not None else None
    if known_map is None or known_map.fingerprint != entries.hexdigest() or not published(previous, out, SITEMAP):
        entry_specs = [PageSpec(url, lang, "", {}, twins, _date(lastmod)) for url, lang, twins, lastmod in sitemap]
        data = render_sitemap(entry_specs, settings.base_url, settings.default_language)
        made[SITEMAP] = Made(data, state.Output(hashlib.sha256(data).hexdigest(), entries.hexdigest()))
    claimed = [plan.output for plan, _ in listed] + kept_groups + group_files + [asset.path for asset in assets] \
        + list(static) + [SITEMAP]
    collect((path, b"") for path in claimed)  # refuses two outputs for one path
    # Feeds and the latest issue's email leave drafts out whatever `drafts` says.
    emails = None
    if email_out is not None:
        latest = [latest_email(content, derived, settings, lang) for lang in settings.languages]
        problems += [problem for _, unmade in latest for problem in unmade]
        emails = (email_out, collect([item for files, _ in latest for item in files]))
    _forget_superseded(memos, settings.languages)
    _forget_unshown_parts(memos["feeds"], [group for group, *_ in groups])
    stats = _written_whole(partial(publish, engine, out, made, previous, set(claimed), snapshot, memos, values,
                                   tree, emails), written)
    if tree is not None:
        tree.wait()  # the old tree's removal, which ran meanwhile
    if keep is not None:
        keep[:] = [{name: value for name, value in locals().items() if name != "keep"}]
    return BuildResult(len(sitemap), len(claimed), stats, [p for p in problems if p.severity == "warning"],
                       rendered)



def _written_whole(write: Callable[[], WriteStats], written: list[WriteStats]) -> WriteStats:
    """`write()` (the files put in place and their state recorded), whole, its stats added to `written`: a stop
    that comes meanwhile is held until it has returned (a `kill` of `build` ended it at once, and an incremental
    build left some files new, some old), and is then that of a build that wrote its folder (`make` answers it,
    see answered_once_written); after a write that failed, it is raised as it came."""
    with signals_held():
        written.append(write())
    return written[-1]


@contextmanager
def _template_errors(folder: Path) -> Iterator[None]:
    """A template that is missing or does not parse stops the build with a message naming it (and its
    line), not a traceback: a template folder of one's own (`--templates`) is edited by hand."""
    try:
        yield
    except TemplateSyntaxError as error:
        where = error.filename or (str(folder / error.name) if error.name else str(folder))
        raise ContentError([Diagnostic(where, error.lineno, "", f"template syntax: {error.message}")]) from None
    except TemplateNotFound as error:
        raise ContentError([Diagnostic(str(folder), None, "", f"the template {error.name!r} is missing: copy it "
                                                              f"from the bundled templates ({TEMPLATES})")]) from None


def _forget_superseded(memos: Mapping[str, Memo], languages: tuple[str, ...]) -> None:
    """Forget the Markdown results of the texts that only records edited or removed since the last build
    held, so the memos that keep what a build does not read (see memos.Memo) track the content, not
    its history. Those records are the ones the records memo knew and this build did not read again
    (their version changed, or they are gone); once forgotten, they are not looked at again.

    A text that another record holds too is kept if this build used it, else only parsed again when a
    page asks for it.
    """
    records = memos["records"]
    if records.replace:  # a full build: it stores only what it made
        return
    superseded = records.unused()
    if not superseded:
        return
    current = {text_key(text) for values in records.added.values()
               for text in markdown_texts(Record(*values), languages)}
    gone = {key for values in superseded.values() for text in markdown_texts(Record(*values), languages)
            if (key := text_key(text)) not in current}
    for name in ("references", "plain"):
        memo = memos[name]
        memo.forget(key for key in gone if key not in memo.used)  # used: a text another record holds too
    records.forget(superseded)


def _forget_unshown_parts(parts: Memo, remade: Iterable[str]) -> None:
    """Forget the parts of each feed made again that it neither took nor made (see remembered.Remembered):
    a feed asks for every part it shows, so those are an issue's or a story's that left it (a newer one
    came, or it was unpublished, moved or removed). The feeds not made again keep theirs."""
    if parts.replace:  # a full build: it stores only what it made
        return
    for group in remade:
        if group.startswith("feeds/"):
            parts.forget(parts.unused(Remembered.prefix(group)))


def _date(value: str | None) -> dt.date | None:
    return dt.date.fromisoformat(value) if value else None
