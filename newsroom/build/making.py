"""The build once something changed: load, check, list pages, plan and render the stale ones, write.

`newsroom.build.pipeline` runs a build up to its first question — did anything change since the last
one? — and imports this module only when something did (see there): what it needs (templates,
Markdown, feeds, the search index, the glossary's matchers) is most of what a build imports.
"""

from __future__ import annotations

import bisect
import datetime as dt
import hashlib
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

from jinja2 import TemplateNotFound, TemplateSyntaxError
from jinja2 import meta as jinja_meta
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from issues.visibility import unpublished_locations, visible_numbers
from newsroom.build import state, urls
from newsroom.build.derived import term_matchers
from newsroom.build.model import Content, Record, load_content
from newsroom.build.pages import Derived, PagePlan, PageSpec, Planner, derive, list_pages
from newsroom.build.pipeline import BuildResult, code_version, folder_as_left
from newsroom.build.urls import SITE_NAMES, SITEMAP
from newsroom.build.rendering import PageRenderer, progress_bar, run_all
from newsroom.build.tracking import (MASTHEAD, SEP, Remembered, TrackedContent, Tracker, Values, shown_value,
                                     track_content, track_derived, untracked_fields)
from newsroom.build.writer import (StagedTree, WriteStats, apply_changes, changed_since, collect,
                                   discarded_on_error, existing_files, stamps_of, unchanged_on_disk, write_site)
from newsroom.checks import check_content, markdown_texts, no_site, record_problems
from newsroom.db.session import WalCopy, quick_commit, session_factory
from newsroom.diagnostics import ContentError, Diagnostic
from newsroom.drafts import draft_locations, drafts_in, method_draft_problems, without_drafts
from newsroom.i18n import catalog_digest
from newsroom.render import search, search_documents
from newsroom.render.assets import asset_urls, load_assets
from newsroom.render.static import static_folder, static_paths
from newsroom.render.email import EMAIL_TEMPLATES, latest_email
from newsroom.render.feeds import FEED_TEMPLATES, feed_groups
from newsroom.render.folder import TEMPLATES
from newsroom.render.html import environment, used_templates
from newsroom.render.markdown import find_references, remembered_references, text_key
from newsroom.render.sitemap import render_sitemap
from newsroom.settings import Settings

#: Namespaces of remembered results (state.BuildMemo).
MEMOS = ("records", "references", "mentions", "plain", "checks", "templates", "feeds")
#: Those a build reads only in part: the texts it renders, the records that changed, the feeds it remakes.
PARTIAL_MEMOS = ("references", "plain", "feeds")
#: Fewer unknown texts than this are parsed by `check` itself, without forking.
PARSE_AHEAD_MIN = 2000
#: More Markdown texts than a record of the sample or the benchmark has (a story: ~10 per language).
MAX_TEXTS = 50
#: An incremental build writing at most 1/IN_PLACE_SHARE of the files replaces them in place.
IN_PLACE_SHARE = 10
#: The fingerprint of outputs remade on every build (their bytes decide whether they are written).
AGGREGATE = "aggregate"


class Loaded(NamedTuple):
    """What `load` read: the last build's state, the remembered results, the content."""

    previous: state.Previous | None
    memos: dict[str, state.Memo]
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
    memos = (state.fresh_memos(MEMOS, PARTIAL_MEMOS) if full
             else state.load_memos(session, MEMOS, PARTIAL_MEMOS, code_version()))
    content = load_content(session, memos["records"])
    return Loaded(previous, memos, content)


def make(engine: Engine, settings: Settings, out: Path, today: dt.date, drafts: bool, email_out: Path | None,
         now: dt.datetime | None, preview: bool, progress: bool, keep: list[Any] | None, templates: Path,
         public: tuple[int, ...], snapshot: str, loaded: Loaded) -> BuildResult:
    """Check, list, plan and render what is stale, and write it (see pipeline.build)."""
    wal_copy = WalCopy(engine)  # what earlier commits left in SQLite's WAL, copied while this build works
    try:
        with _template_errors(templates):
            return _make_site(engine, settings, out, today, drafts, email_out, now, preview, progress, keep,
                              templates, public, snapshot, *loaded)
    finally:
        wal_copy.wait()


def _make_site(engine: Engine, settings: Settings, out: Path, today: dt.date, drafts: bool,
               email_out: Path | None, now: dt.datetime | None, preview: bool, progress: bool,
               keep: list[Any] | None, templates: Path, public: tuple[int, ...], snapshot: str,
               previous: state.Previous | None, memos: dict[str, state.Memo], content: Content) -> BuildResult:
    assets = load_assets(templates / "assets")
    # What every page's context gets besides its own: part of every page's fingerprint.
    shared: Mapping[str, Any] = {"assets": asset_urls(assets), "preview": preview}
    if email_out is not None:  # the emails are made after the site is written: their templates must load first
        for lang in settings.languages:
            for name in EMAIL_TEMPLATES:
                environment(lang, templates).get_template(name)
    # HTML of texts rendered ahead by the parse that finds their references (see find_references);
    # kept for this build only.
    ahead = state.Memo()
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
        _parse_ahead(fresh, full, settings, [memos["references"], memos["plain"], ahead], memos["checks"],
                     lambda: compiled.append(side.submit(compile_matchers)), progress)
        for done in compiled:
            done.result()
        problems = checked(full, settings, today, drafts, now, memos["checks"])
    derived = derive(content, settings, drafts, now, memos["mentions"], run_all, matching,
                     drafts_in(full.entries) if content is not full else None)
    tracker = Tracker()
    tracked = (track_content(content, tracker), track_derived(derived, tracker))
    values = Values(content, derived)
    # The template folder is no input of a page here: its fingerprint names the templates it used.
    page_inputs = f"{code_version()}|{settings!r}|drafts={drafts}|public={public}|{untracked_fields(derived)}"
    with remembered_references(memos["references"], memos["plain"], ahead):
        renderer = PageRenderer(templates, settings.languages, shared, memos["templates"])
        listed = list_pages(*tracked, settings, tracker, now, extra=True)
        candidates = _candidates(previous, values)
        if previous is not None:  # the reads of the outputs whose reads may have changed: every one's without a graph
            previous.fetch_reads(candidates.paths if candidates is not None else None)
        pages, metas, spliced = _stale_pages(listed, renderer, values, page_inputs, previous, out, candidates)
        groups, kept_groups = _stale_groups(tracked, settings, now, values, page_inputs, renderer, previous, out,
                                            {plan.output for plan, _ in listed}, candidates, memos["feeds"])
        if previous is not None:  # those of the stale pages, which their works compare with (see _make)
            previous.fetch_reads(plan.output for plan, _, _ in pages)
            pages = _largest_first(pages, previous)
        # A build that remakes much of the site assembles a new tree, written while it renders.
        remade = len(pages) + len(spliced)
        tree = StagedTree(out) if previous is None or remade > len(listed) // IN_PLACE_SHARE else None
        with discarded_on_error(tree):
            for path, (item, lines) in spliced.items():
                if lines is None:  # the same bytes
                    continue
                if tree is not None:  # spliced pages join it now, spliced again and written while the others render
                    tree.write_made(path, partial(_respliced, out / path, *lines))
                else:
                    spliced[path] = (_Made(_respliced(out / path, *lines), item.output), None)
            made, grouped = _make(pages, groups, renderer, tracker, values, metas, progress,
                                  [memos["references"], memos["plain"], memos["feeds"]], previous, candidates,
                                  _Spool(tree, previous, out) if tree is not None else None)
        rendered = sum(1 for plan, _, _ in pages if plan.in_sitemap)
    made.update(grouped)
    made.update({path: item for path, (item, _) in spliced.items()})
    group_files = list(grouped)
    del grouped  # `made` holds the bytes now, and lets them go once written (see _publish)
    # Each page's sitemap entry: (URL, language, twins, lastmod as ISO date or None).
    sitemap = [(plan.url, plan.lang, meta["twins"], meta["lastmod"])
               for plan, _ in listed if plan.in_sitemap for meta in (metas[plan.output],)]
    made.update({asset.path: _Made(asset.data, state.Output(hashlib.sha256(asset.data).hexdigest(), AGGREGATE))
                 for asset in assets})
    static = {path: source.read_bytes() for path, source in static_paths(static_folder(settings.static),
                                                                          SITE_NAMES).items()}
    made.update({path: _Made(data, state.Output(hashlib.sha256(data).hexdigest(), AGGREGATE))
                 for path, data in static.items()})
    # The sitemap is made from every page's entry: remade when any entry (or the list) changed.
    entries = hashlib.sha256(repr((settings.base_url, settings.default_language, code_version(), sitemap)).encode())
    known_map = previous.outputs.get(SITEMAP) if previous is not None else None
    if known_map is None or known_map.fingerprint != entries.hexdigest() or not _published(previous, out, SITEMAP):
        entry_specs = [PageSpec(url, lang, "", {}, twins, _date(lastmod)) for url, lang, twins, lastmod in sitemap]
        data = render_sitemap(entry_specs, settings.base_url, settings.default_language)
        made[SITEMAP] = _Made(data, state.Output(hashlib.sha256(data).hexdigest(), entries.hexdigest()))
    claimed = [plan.output for plan, _ in listed] + kept_groups + group_files + [asset.path for asset in assets] \
        + list(static) + [SITEMAP]
    with discarded_on_error(tree):
        collect((path, b"") for path in claimed)  # refuses two outputs for one path
        # Feeds and the latest issue's email leave drafts out whatever `drafts` says.
        emails = None
        if email_out is not None:
            latest = [latest_email(content, derived, settings, lang) for lang in settings.languages]
            problems += [problem for _, unmade in latest for problem in unmade]
            emails = (email_out, collect([item for files, _ in latest for item in files]))
        _forget_superseded(memos, settings.languages)
        _forget_unshown_parts(memos["feeds"], [group for group, *_ in groups])
        stats = _publish(engine, out, made, previous, set(claimed), snapshot, memos, values, tree, emails)
    if tree is not None:
        tree.wait()  # the old tree's removal, which ran meanwhile
    if keep is not None:
        keep[:] = [{name: value for name, value in locals().items() if name != "keep"}]
    return BuildResult(len(sitemap), len(claimed), stats, [p for p in problems if p.severity == "warning"],
                       rendered)



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


def _parse_ahead(records: list[Record], content: Content, settings: Settings, memos: list[state.Memo],
                 checks: state.Memo, meanwhile: Callable[[], Any] | None = None, progress: bool = False) -> None:
    """Find the references (plain text, HTML ahead) of every text of `records` (those new since the last
    build) the memos do not know, and check those records (their own problems, remembered in `checks`),
    over the available cores: a first or full build parses every text once and checks every record
    there, and `check`, the pages and the search index then look the answers up. `meanwhile()` runs
    once workers have started, if they do (see run_all's `started`). With `progress`, a bar counts the
    texts read (a first or full build of a large site spends seconds here before any page is made)."""
    if len(records) * MAX_TEXTS < PARSE_AHEAD_MIN:
        return  # too few to be worth it, and not worth hashing every text to count them
    # A memo that knows nothing has no text: no need to hash every one to ask (the workers hash them).
    known = None if memos[0].empty else memos[0]
    seen: set[str] = set()
    parts: list[tuple[Record, list[str]]] = []  # each record with its texts to parse (a text once)
    for record in records:
        texts = [text for text in dict.fromkeys(markdown_texts(record, settings.languages)) if text not in seen
                 and (known is None or known.get(text_key(text)) is None)]
        seen.update(texts)
        parts.append((record, texts))
    if len(seen) < PARSE_AHEAD_MIN:
        return  # check parses them itself
    memos = [*memos, checks]
    for memo in memos:
        memo.drain()  # what a forked worker inherits, it does not send back
    chunks: list[list[tuple[Record, list[str]]]] = [[]]
    size = 0
    for part in parts:  # about 256 texts a work
        if size >= 256:
            chunks.append([])
            size = 0
        chunks[-1].append(part)
        size += len(part[1])

    def finish(results: list[Any]) -> list[Any]:
        return [*results[:-1], [memo.drain() for memo in memos]]

    texts = [sum(len(part[1]) for part in chunk) for chunk in chunks]
    with progress_bar(len(seen), progress, "text", "reading") as bar:
        def counted(index: int, result: Any) -> Any:
            bar.update(texts[index])
            return result

        for result in run_all([partial(_parse_and_check, chunk, content, settings, checks) for chunk in chunks],
                              finish, each=counted, started=meanwhile):
            if result is not None:
                for memo, drained in zip(memos, result):
                    memo.merge(*drained)


def _parse_and_check(parts: list[tuple[Record, list[str]]], content: Content, settings: Settings,
                     checks: state.Memo) -> None:
    for record, texts in parts:
        for text in texts:
            find_references(text)
        record_problems(record, content, settings, checks)


def checked(content: Content, settings: Settings, today: dt.date, drafts: bool,
            now: dt.datetime | None, memo: state.Memo | None = None) -> list[Diagnostic]:
    """Check before rendering: a broken link must stop the build, not ship.

    Unpublished issues, draft entries, reference pages and site pages are work in progress: their problems are
    checked when they are scheduled or published, and in a preview they are only warnings.
    A database with no site file builds no site: its pages would have no publication name and a Method
    link to nothing; nor does a public build with a draft Method page.
    """
    unpublished = (unpublished_locations(content, visible_numbers(content, False, now, settings.zone))
                   | draft_locations(content))
    problems = [p if p.location not in unpublished or p.severity == "warning" else replace(p, severity="warning")
                for p in check_content(content, settings, today, memo=memo) if drafts or p.location not in unpublished]
    errors = [p for p in problems if p.severity == "error"] + list(no_site(content))
    errors += [] if drafts else method_draft_problems(content)
    if errors:
        raise ContentError(errors)
    return problems


def _forget_superseded(memos: Mapping[str, state.Memo], languages: tuple[str, ...]) -> None:
    """Forget the Markdown results of the texts that only records edited or removed since the last build
    held, so the memos that keep what a build does not read (see state.Memo) track the content, not
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


def _forget_unshown_parts(parts: state.Memo, remade: Iterable[str]) -> None:
    """Forget the parts of each feed made again that it neither took nor made (see tracking.Remembered):
    a feed asks for every part it shows, so those are an issue's or a story's that left it (a newer one
    came, or it was unpublished, moved or removed). The feeds not made again keep theirs."""
    if parts.replace:  # a full build: it stores only what it made
        return
    for group in remade:
        if group.startswith("feeds/"):
            parts.forget(parts.unused(Remembered.prefix(group)))


def _publish(engine: Engine, out: Path, made: dict[str, _Made], previous: state.Previous | None,
             claimed: set[str], snapshot: str, memos: Mapping[str, state.Memo], values: Values,
             tree: StagedTree | None, emails: tuple[Path, dict[str, bytes]] | None = None) -> WriteStats:
    """Write what changed, remove what nothing makes, then record the new state (after the files).

    `claimed` is every output of this build, `made` those it made (the rest are known unchanged);
    it is emptied once the files are written, so their bytes are not held while the state is saved.
    With a `tree`, the made files went there as they were made (their bytes are None here); what
    else changed joins them and the tree is swapped in. `emails` (their folder and files) are written
    whole after the site, and recorded with it: the next build makes them again if they are not as
    written (see pipeline._build). A folder that holds them as the last build recorded and left them
    is not touched, except by a first or full build (which ignores the state).
    """
    if previous is not None:  # what the made outputs are compared with
        previous.fetch_reads(made)
    writes, outputs, removed = _changes(made, previous, out, claimed)
    made.clear()
    if tree is not None:
        tree.finish(writes, set(removed))
        new = tree.written
    else:
        new = set(writes)
        # A small change replaces its files one by one; a large one (a template, a new issue in every
        # masthead) swaps in a whole new tree, where the links cost little beside the writes.
        in_place = previous is not None and len(new) + len(removed) <= len(claimed) // IN_PLACE_SHARE
        apply_changes(out, writes, removed, in_place=in_place)
    del writes
    # The rows recorded anew, and those recorded without a time (by an older release): they get one now.
    timeless = [path for path, stamp in previous.stamps.items() if stamp is None and path in claimed] \
        if previous is not None else []
    stamps, written_ns = _in_place(out, new, [*outputs, *timeless], previous)
    emails_made: dict[str, str] | None = None  # the email files' hashes, when the folder is written
    email_stamps: dict[str, int | None] = {}
    if emails is not None:
        emails_made = {path: hashlib.sha256(data).hexdigest() for path, data in emails[1].items()}
        emails_at = _as_recorded(engine, emails[0], emails_made) if previous is not None else None
        if emails_at is None:
            write_site(*emails)
            email_stamps, emails_at = _in_place(emails[0], emails[1])
        else:  # it holds these very files as the last build wrote them: left alone, not swapped for a copy
            emails_made = None
    graph = _graph(previous, outputs, removed, values)
    now = dt.datetime.now(dt.timezone.utc)
    with quick_commit(engine) as session:
        state.save(session, str(out), snapshot, outputs, removed, now, graph,
                   replace_all=previous is None, written_ns=written_ns, stamps=stamps)
        if emails is not None:
            state.save_folder(session, str(emails[0].resolve()), snapshot, now, emails_at, emails_made,
                              email_stamps)
        state.save_memos(session, memos, code_version())
    return WriteStats(len(new), len(claimed) - len(new), len(removed))


def _as_recorded(engine: Engine, folder: Path, digests: Mapping[str, str]) -> int | None:
    """When the last build put its files in `folder` (ns since the epoch), if the folder holds exactly the
    files of `digests`, recorded with those hashes and unchanged since; else None (it is written again)."""
    with session_factory(engine)() as session:
        _, last, recorded = state.last_folder(session, str(folder.resolve()))
    return last.written_ns if recorded == digests and folder_as_left(folder, last) else None


def _in_place(out: Path, written: Iterable[str], rows: Iterable[str] = (), previous: state.Previous | None = None
              ) -> tuple[dict[str, int | None], int]:
    """The modification times to record (see state.BuildOutput.mtime_ns), and when the files are all in
    place (ns since the epoch: now, or the latest time this build's files got if later, as a file system
    may round its times up).

    The times are those of the files `written`, and of each other file whose row is recorded anew
    (`rows`): the time the last build recorded, the file being as it left it, or the time it has now
    (none was recorded, or the build found the file as it is and linked it)."""
    now = time.time_ns()
    found = stamps_of(out, written)
    latest = max(now, max(found.values(), default=now))
    stamps: dict[str, int | None] = dict(found)
    known = previous.stamps if previous is not None else {}
    carried = {path: known.get(path) for path in rows if path not in stamps}
    stamps.update(carried)
    stamps.update(stamps_of(out, [path for path, stamp in carried.items() if stamp is None]))
    return stamps, latest


@dataclass(frozen=True)
class _Made:
    data: bytes | None  # None: handed to the build's StagedTree as it was made
    output: state.Output


def _stale_pages(listed: list[tuple[PagePlan, Planner]], renderer: PageRenderer, values: Values, inputs: str,
                 previous: state.Previous | None, out: Path, candidates: _Candidates | None
                 ) -> tuple[list[tuple[PagePlan, Planner, str]], dict[str, Any],
                            dict[str, tuple[_Made, tuple[bytes, bytes] | None]]]:
    """The pages whose recorded inputs changed (all of them without a previous state), each with its
    fingerprint; the remembered sitemap entry (`meta`) of every other page; and the pages whose only
    changed input is the masthead's issue line, made from their last bytes (see `_Masthead`): each
    with its state and the (old, new) line to put in its published bytes (None: the same bytes).

    A page whose template, catalog and settings are the same and whose every
    recorded read still has the same value would be planned and rendered to the
    same bytes: it is not planned at all. Only the reads of `candidates` (see
    _candidates) can have changed; None: any page's.
    """
    stale: list[tuple[PagePlan, Planner, str]] = []
    metas: dict[str, Any] = {}
    spliced: dict[str, tuple[_Made, tuple[bytes, bytes] | None]] = {}
    masthead = _Masthead(renderer, values, out) if previous is not None else None
    fingerprints: dict[tuple[str, str], str] = {}
    for plan, planner in listed:
        path = plan.output
        fingerprint = fingerprints.get((plan.template, plan.lang))
        if fingerprint is None:
            fingerprint = fingerprints[plan.template, plan.lang] = hashlib.sha256(
                f"{inputs}|{renderer.fingerprint(plan.template, plan.lang)}".encode()).hexdigest()
        known = previous.outputs.get(path) if previous is not None else None
        if known is None or known.fingerprint != fingerprint:
            stale.append((plan, planner, fingerprint))
            continue
        meta = known.meta
        if meta is None or not _published(previous, out, path):
            stale.append((plan, planner, fingerprint))
            continue
        if _changed(path, known, values, candidates):
            stale.append((plan, planner, fingerprint))
            continue
        moved = {key: value for key, value in (meta.get(_Masthead.META) or {}).items() if values(key) != value}
        if not moved:
            metas[path] = meta
            continue
        splice = masthead.spliced(plan, planner, known, moved) if masthead is not None else None
        if splice is None:
            stale.append((plan, planner, fingerprint))
        else:
            spliced[path] = splice
            metas[path] = meta
    return stale, metas, spliced


class _Masthead:
    """Pages whose only changed read is the masthead's issue line (`derived.masthead`), made by putting
    the new line in place of the old one in their published bytes instead of planning and rendering
    them: publishing an issue changes the masthead of every page, and little else of most.

    The line is the output of one template (`_masthead.html`), which may use only names every page of
    a language gives the same values (`NAMES`); a page is spliced only when no other template it
    renders from names `latest_issue`, and the old line occurs in its bytes exactly once. Its
    template, catalog and settings are those of the last build (its fingerprint is unchanged), so the
    rest of the page would render to the same bytes. The line's value is no read of the page's: it is
    kept in the page's meta (`META`, as `tracking.SHOWN` stores it), so the old line is rendered from it
    and a spliced page's reads stay as stored — not read, decoded and packed again for each of the
    thousands of pages an issue's publishing splices. A page none of whose templates names
    `latest_issue` keeps its bytes. Otherwise the page is rendered as any other.
    """

    #: The key of a page's meta that holds the masthead values it read: {read: value as stored}.
    META = "masthead"

    TEMPLATE = "_masthead.html"
    NAMES = frozenset({"latest_issue", "href", "urls", "lang", "_", "gettext"})

    def __init__(self, renderer: PageRenderer, values: Values, out: Path) -> None:
        self.renderer, self.values, self.out = renderer, values, out
        self._ways: dict[tuple[str, str], str] = {}
        self._variables: dict[str, set[str]] = {}  # template → the names it reads from its context
        self._lines: dict[tuple[str, str], bytes] = {}

    @staticmethod
    def key(lang: str) -> str:
        """The read of a language's masthead line."""
        return f"{MASTHEAD}{SEP}{lang}"

    def spliced(self, plan: PagePlan, planner: Planner, known: state.Output, moved: Mapping[str, str]
                ) -> tuple[_Made, tuple[bytes, bytes] | None] | None:
        """The page made from its published bytes, when no read of it changed but the masthead values
        it shows did (`moved`: {read: value as its meta stored it}): its state, and the (old, new) line
        to put in place in its published bytes (None: they stay); None when it must be rendered. Its
        bytes are not kept: the many pages an issue's publishing splices are spliced again as each is
        written (`_respliced`)."""
        key = self.key(plan.lang)
        way = self._way(plan.template, plan.lang) if list(moved) == [key] else ""
        if not way or not isinstance(known, state.StoredOutput):
            return None
        new_value = self.values(key)
        meta = {**(known.meta or {}), self.META: {**(known.meta or {})[self.META], key: new_value}}

        def made(digest: str) -> _Made:
            return _Made(None, known.with_file(digest, meta))  # its reads as stored

        if way == "same":  # its templates do not show the masthead line: the same bytes
            return made(known.digest), None
        old_line = self._line(plan.lang, moved[key], planner)
        try:
            data = (self.out / plan.output).read_bytes()
        except OSError:
            return None
        if not old_line or data.count(old_line) != 1:
            return None
        new_line = self._line(plan.lang, new_value, planner)
        if new_line == old_line:  # another value, the same line: the same bytes
            return made(known.digest), None
        return made(hashlib.sha256(data.replace(old_line, new_line)).hexdigest()), (old_line, new_line)

    def _way(self, template: str, lang: str) -> str:
        """How a page of `template` is made when only the masthead line changed: "splice" (its masthead
        template shows the line, and nothing else names `latest_issue`), "same" (nothing it renders
        from names it) or "" (rendered)."""
        found = self._ways.get((template, lang))
        if found is None:
            env = self.renderer.envs[lang]
            names = used_templates(env, template, self.renderer.memo)
            if names is None:
                found = ""
            elif not any("latest_issue" in self._names_read(env, name) for name in names):
                found = "same"
            elif self.TEMPLATE in names and all(
                    (variables <= self.NAMES) if name == self.TEMPLATE else "latest_issue" not in variables
                    for name in names for variables in [self._names_read(env, name)]):
                found = "splice"
            else:
                found = ""
            self._ways[template, lang] = found
        return found

    def _names_read(self, env: Any, name: str) -> set[str]:
        """The names a template reads from its context (every language's environment parses it alike)."""
        found = self._variables.get(name)
        if found is None:
            source, filename, _ = env.loader.get_source(env, name)
            found = self._variables[name] = jinja_meta.find_undeclared_variables(env.parse(source, name, filename))
        return found

    def _line(self, lang: str, stored: str, planner: Planner) -> bytes:
        """The masthead line for a stored value of `derived.masthead` (see `tracking.SHOWN`); empty for
        any other (the value of a read that found nothing)."""
        found = self._lines.get((lang, stored))
        if found is None:
            value = shown_value(stored) if stored.startswith("=") else None
            found = self._lines[lang, stored] = self.renderer.render(
                self.TEMPLATE, lang, {"latest_issue": value, "href": planner.href, "urls": urls, "lang": lang})
        return found


def _stale_groups(tracked: tuple[TrackedContent, Derived], settings: Settings, now: dt.datetime | None, values: Values,
                  inputs: str, renderer: PageRenderer, previous: state.Previous | None, out: Path, pages: set[str],
                  candidates: _Candidates | None, parts: state.Memo) -> tuple[list[_Group], list[str]]:
    """The groups of files made together from much of the content — each feed, each language's
    search index — that must be remade, and the paths of those kept.

    A group is remade when any input it read changed (any of its files: they share their reads), or
    the templates a feed is made with, else its files are kept as they are. A feed remade takes
    the HTML of each issue and story whose reads did not change from `parts` (see Remembered).
    """
    content, derived = tracked
    members: dict[str, list[tuple[str, state.Output]]] = {}  # group → its files
    for path, output in (previous.outputs.items() if previous is not None else ()):
        if path in pages or output.fingerprint == AGGREGATE:
            continue
        meta = output.meta
        if meta is not None and "group" in meta:
            members.setdefault(meta["group"], []).append((path, output))
    stale: list[tuple[str, Callable[[], Any], str, list[tuple[str, state.Output]]]] = []
    kept: list[str] = []
    for lang in settings.languages:
        folder, index = urls.search_index(lang), f"search/{lang}"
        # The last index is updated only if made by the same code and settings (its tokens' rules).
        last = [(path, output) for path, output in members.get(index, [])
                if output.fingerprint == _group_fingerprint(inputs, index, lang)]
        feed_templates = "|".join(renderer.fingerprint(name, lang) for name in FEED_TEMPLATES)
        remember = Remembered(parts, values, content.tracker, f"{inputs}|{feed_templates}", f"feeds/{lang}")
        groups = {  # a feed's parts are kept as its group's (see _forget_unshown_parts)
            **{f"{remember.scope}/{name}": make  # the group its parts are kept under (Remembered.within)
               for name, make in feed_groups(content, derived, settings, lang, remember.within).items()},
            index: partial(_search_index, partial(Planner, content, derived, settings, lang, now), folder, out,
                           last if len(last) == len(members.get(index, [])) else []),
        }
        for group, make in groups.items():
            fingerprint = _group_fingerprint(f"{inputs}|{feed_templates}" if group != index else inputs, group, lang)
            known = members.get(group, [])
            if known and all(output.fingerprint == fingerprint for _, output in known) \
                    and not any(_changed(path, output, values, candidates) for path, output in known) \
                    and all(_published(previous, out, path) for path, _ in known):
                kept += [path for path, _ in known]
            else:
                stale.append((group, make, fingerprint, known))
    if previous is not None:  # the stale groups' files' reads, in one query
        previous.fetch_reads(path for *_, known in stale for path, _ in known)
    # Each with the file its reads are stored with (see _make).
    return [(group, make, fingerprint, next((output for _, output in known if output.reads != state.NO_READS), None))
            for group, make, fingerprint, known in stale], kept


def _group_language(group: str) -> str:
    """The language of a group's files: its name is "search/<lang>" or "feeds/<lang>/…" (see above)."""
    return group.split("/")[1]


def _group_fingerprint(inputs: str, group: str, lang: str) -> str:
    return hashlib.sha256(f"{inputs}|{group}|{catalog_digest(lang)}".encode()).hexdigest()


def _search_index(planner: Callable[[], Planner], folder: str, out: Path,
                  known: list[tuple[str, state.Output]]) -> tuple[list[tuple[str, bytes]], dict[str, Any]]:
    """One language's search index, and the digests of its documents (kept in its first file's
    meta): the next build updates the last index, read back from the published files, when
    every one of them is as this state recorded it. The planner is made here, where the group's
    reads are noted."""
    docs = search_documents.sources(planner())
    files = {path: output for path, output in known}
    remembered = next((output.meta["docs"] for output in files.values() if output.meta and "docs" in output.meta),
                      None)
    last = None
    if remembered is not None:
        try:
            data = {path: (out / path).read_bytes() for path in files}
        except OSError:
            data = {}
        if data and all(hashlib.sha256(item).hexdigest() == files[path].digest for path, item in data.items()):
            last = search.LastIndex.of(remembered, data, folder)
    made = search.index_files(docs, last)
    return [(folder + relative, data) for relative, data in made.items()], {"docs": [doc.digest() for doc in docs]}


#: A group of files to remake: its name, its maker, its fingerprint, and the file its last reads
#: are stored with (if any).
_Group = tuple[str, Callable[[], Any], str, "state.Output | None"]


@dataclass(frozen=True)
class _Candidates:
    """The outputs under a root whose value changed (see state.Graph), and those roots: only reads
    under them can have changed."""

    paths: set[str]
    roots: set[str]


def _candidates(previous: state.Previous | None, values: Values) -> _Candidates | None:
    """Which outputs' reads can have changed; None (any output's, any read) without a graph."""
    if previous is None or previous.graph is None:
        return None
    graph = previous.graph
    roots = values.changed(graph.values)
    return _Candidates({path for root in roots for path in graph.readers.get(root)}, roots)


def _changed(path: str, output: state.Output, values: Values, candidates: _Candidates | None) -> bool:
    """Whether any read of `output` now has another value (unreadable reads count as changed)."""
    if candidates is not None and path not in candidates.paths:
        return False
    roots, deps = output.decoded()
    if state.UNREADABLE in deps:
        return True
    keys: Iterable[str]
    if candidates is None:
        keys = deps
    else:
        # Only reads under the output's own roots that changed: each root's keys are found by bisection
        # (the keys are in order), not by working out the root of each of its hundreds of reads.
        hit = [root for root in roots if root in candidates.roots]
        if not hit:
            return False
        ordered = list(deps)
        keys = dict.fromkeys(key for root in hit for low, high in values.ranges(root)
                             for key in ordered[bisect.bisect_left(ordered, low):bisect.bisect_left(ordered, high)])
    return any(values(key) != deps[key] for key in keys)


def _graph(previous: state.Previous | None, changed: Mapping[str, state.Output], removed: list[str],
           values: Values) -> state.Graph:
    """The graph after this build: the last one with the changed and removed outputs' reads taken
    out and the changed ones' put in; every root's value now."""
    known = previous.outputs if previous is not None else {}
    # An output remade with its reads as stored (a spliced page, see _Masthead) reads under the same roots.
    changed = {path: output for path, output in changed.items() if not isinstance(output, state.StoredOutput)}
    redone = [path for path in (*changed, *removed) if path in known]
    whole = previous is None or previous.graph is None or len(redone) > len(known) // 2 \
        or len(previous.graph.readers.paths) > 2 * len(known)  # its table holds many paths gone since
    if previous is not None:
        previous.fetch_reads(None if whole else redone)
    if whole:
        # From the reads of every output: those kept decoded from the state, the rest as made; numbered
        # in path order, so each root's readers come in order.
        reads = {path: output for path, output in known.items() if path not in changed and path not in removed}
        reads.update(changed)
        paths = sorted(reads)
        found: dict[str, list[int]] = {}
        for position, path in enumerate(paths):
            for root in _roots(reads[path]):
                found.setdefault(root, []).append(position)
        readers = state.Readers.numbered(paths, found)
    else:
        graph = previous.graph
        touched: dict[str, set[str]] = {}
        for path in {*changed, *removed}:
            before = set(_roots(known[path])) if path in known else set()
            after = set(_roots(changed[path])) if path in changed else set()
            for root in before - after:
                touched.setdefault(root, set(graph.readers.get(root))).discard(path)
            for root in after - before:
                touched.setdefault(root, set(graph.readers.get(root))).add(path)
        if not touched:  # no output reads under other roots than it did (most edits): stored as it was read
            return state.Graph(values.hashes(graph.readers), graph.readers, graph.stored)
        readers = graph.readers.replaced(touched)
    return state.Graph(values.hashes(readers), readers)


def _roots(output: state.Output) -> Iterable[str]:
    """The roots an output read under: as its work found them, or from its stored reads."""
    return output.roots if output.roots is not None else output.stored_roots()


def _page_work(plan: PagePlan, planner: Planner, renderer: PageRenderer, tracker: Tracker,
               before: state.Output | None) -> list[Any]:
    """Plan and render one page: [(path, bytes), reads, sitemap entry, its planner's id, `before`] (_make's
    `finish` pairs the bytes with their hash, turns the reads into deps, with `before`, what the page
    was last made from, and the id into the deps' roots)."""
    tracker.take()
    spec = plan.make()
    assert spec.url == plan.url and spec.template == plan.template, (plan, spec.url, spec.template)
    data = renderer.render(spec.template, spec.lang, spec.context)
    meta = {"twins": dict(spec.twins), "sitemap": plan.in_sitemap,
            "lastmod": spec.lastmod.isoformat() if spec.lastmod else None}
    return [(plan.output, data), spec.reads | tracker.take(), meta, id(planner), before]


def _group_work(make: Callable[[], Any], tracker: Tracker, before: state.Output | None) -> list[Any]:
    """Make one group of files: [sorted (path, bytes), reads, what its first file's meta adds, None,
    `before`] (see _page_work). `make` returns the files, or the files and that meta."""
    tracker.take()
    made = make()
    files, extra = made if isinstance(made, tuple) else (made, {})
    return [sorted(files), frozenset(tracker.take()), extra, None, before]


def _make(pages: list[tuple[PagePlan, Planner, str]], groups: list[_Group], renderer: PageRenderer,
          tracker: Tracker, values: Values, metas: dict[str, Any], progress: bool, memos: list[state.Memo],
          previous: state.Previous | None, candidates: _Candidates | None,
          spool: _Spool | None) -> tuple[dict[str, _Made], dict[str, _Made]]:
    """Make the stale groups and pages, over the available cores; returns (pages made, group files made).

    Planning happens where rendering does: a worker plans and renders its pages, so the build never
    holds every page's context. A page depends on what it read and on what the values its planner
    kept as attributes were computed from (Planner.shared_reads), taken when a run of works ends:
    any such value a page used was computed in that process by then. What workers add to and use
    of `memos` comes back with their results, so the next build remembers it. A remade output's
    reads under roots that did not change keep the values stored with it (`previous`). Each file
    made goes to `spool`, if given, and its bytes are let go: a forked worker writes its files into the
    new tree itself (see _Spool), and this process takes each file as it arrives.
    """
    planners = {id(planner): planner for _, planner, _ in pages}  # a forked worker's are its own copies
    known = previous.outputs if previous is not None and candidates is not None else {}
    works = [*(partial(_group_work, make, tracker, before) for _, make, _, before in groups),
             *(partial(_page_work, plan, planner, renderer, tracker, known.get(plan.output))
               for plan, planner, _ in pages)]
    offset = len(groups)
    changed_roots = candidates.roots if candidates is not None else None
    masthead_keys = frozenset(_Masthead.key(lang) for lang in renderer.envs)

    def finish(results: list[Any]) -> list[Any]:
        shared = {key: planner.shared_reads() for key, planner in planners.items()}
        for result in results:
            # Files are hashed (and in a worker written), and a page's reads (with its planner's shared
            # reads) get their values and roots, here where the work ran (in a worker: in parallel, and
            # sent back once).
            files = [(path, hashlib.sha256(data).hexdigest(), data)
                     for path, data in (result[0] if result[3] is None else [result[0]])]
            if spool is not None and spool.forked():  # the bytes stay here: whether they were written goes back
                files = [(path, digest, spool.here(path, digest, data)) for path, digest, data in files]
            result[0] = files if result[3] is None else files[0][1:]
            reads = result[1] | shared[result[3]] if result[3] is not None else result[1]
            if result[3] is not None and not masthead_keys.isdisjoint(reads):  # a page's frame read them
                shown = masthead_keys.intersection(reads)
                result[2][_Masthead.META] = {key: values(key) for key in sorted(shown)}
                reads = reads - shown
            before = result.pop()
            result[3], deps = _deps(reads, before.decoded() if before is not None and changed_roots is not None
                                    else None, values, changed_roots)
            result[1] = state.encode_reads(deps, result[3])
        if results:
            results[-1].append([memo.drain() for memo in memos])
        return results

    def kept(path: str, digest: str, data: bytes | bool) -> tuple[str, bytes | bool | None]:
        """A file as it arrives: its bytes, or from a forked worker whether it wrote them into the new tree."""
        if spool is None:
            return digest, data
        if data is True:
            spool.tree.adopt(path)
        elif data is not False:
            spool(path, digest, data)
        return digest, None

    def arrived(index: int, result: list[Any]) -> list[Any]:
        if index < offset:
            result[0] = [(path, *kept(path, digest, data)) for path, digest, data in result[0]]
        else:
            result[0] = kept(pages[index - offset][0].output, *result[0])
        return result

    renderer.compile(plan for plan, _, _ in pages)
    for memo in memos:
        memo.drain()  # what a forked worker inherits, it does not send back
    # Each language's works in a slot of their own (see run_all).
    slots = [*(renderer.languages.index(_group_language(group)) for group, *_ in groups),
             *(renderer.languages.index(plan.lang) for plan, _, _ in pages)]
    with progress_bar(len(works), progress, desc="making") as bar:
        results = run_all(works, finish, bar, arrived, slots=slots)
    for result in results:
        if len(result) > 4:
            for memo, (added, used) in zip(memos, result.pop()):
                memo.merge(added, used)
    grouped: dict[str, _Made] = {}
    for (group, _, fingerprint, _), (files, reads, extra, roots) in zip(groups, results[:offset]):
        roots = tuple(map(values.key, roots))
        for index, (path, digest, data) in enumerate(files):
            # The group's reads (and what its maker remembers) are stored once, with its first file.
            grouped[path] = _Made(data, state.Output(digest, fingerprint,
                                                     state.NO_READS if index else reads,
                                                     {"group": group} if index else {"group": group, **extra},
                                                     roots=() if index else roots))
    made: dict[str, _Made] = {}
    for (plan, _, fingerprint), ((digest, data), reads, meta, roots) in zip(pages, results[offset:]):
        metas[plan.output] = meta
        made[plan.output] = _Made(data, state.Output(digest, fingerprint, reads, meta,
                                                     roots=tuple(map(values.key, roots))))
    return made, grouped


def _deps(reads: Iterable[str], last: tuple[list[str], dict[str, str]] | None, values: Values,
          changed_roots: set[str] | None) -> tuple[tuple[str, ...], dict[str, str]]:
    """An output's reads as stored: their roots, in order, and {key: value hash} in key order.

    With `last`, its reads as the last build stored them (roots, deps), only a read not read then, or
    under a root that changed (found by bisection: see `_changed`), has its value worked out; every
    other has the value it had. The roots of the same reads as then are the roots stored then. An archive
    page reads tens of thousands of keys, of which an edit changes a few.
    """
    keys = sorted(reads)
    if last is None or changed_roots is None:
        return tuple(sorted(values.roots(keys))), values.hashes(keys)
    last_roots, last_deps = last
    deps = dict(zip(keys, map(last_deps.get, keys)))
    new_keys = len(keys) != len(last_deps) or None in deps.values()  # else the keys read then
    fresh = [key for key in keys if key not in last_deps] if new_keys else []
    fresh += [key for root in last_roots if root in changed_roots for low, high in values.ranges(root)
              for key in keys[bisect.bisect_left(keys, low):bisect.bisect_left(keys, high)]]
    deps.update(values.hashes(fresh))
    return tuple(sorted(values.roots(keys))) if new_keys else tuple(last_roots), deps


def _respliced(path: Path, old_line: bytes, new_line: bytes) -> bytes:
    """A published page with its masthead line replaced (see `_Masthead.spliced`, which read it first)."""
    return path.read_bytes().replace(old_line, new_line)


def _unchanged(previous: state.Previous | None, out: Path, path: str, digest: str, data: bytes) -> bool:
    """Whether the published file already holds these bytes: as recorded, else as read from disk."""
    known = previous.outputs.get(path) if previous is not None else None
    if known is not None:
        return known.digest == digest and _published(previous, out, path)
    return unchanged_on_disk(out, path, data)


class _Spool:
    """Where a build that assembles a new tree puts each file made: written there, or linked from the
    published tree (when the tree finishes) if unchanged.

    This process hands its writes to the tree's threads. A forked render worker, which has none of them,
    writes its own files (`here`) and sends back only whether it did: the build process then neither
    takes a site's bytes through a pipe nor writes them while the workers need both cores.
    """

    def __init__(self, tree: StagedTree, previous: state.Previous | None, out: Path) -> None:
        self.tree, self.previous, self.out = tree, previous, out
        self.pid = os.getpid()

    def forked(self) -> bool:
        """Whether this runs in a forked worker."""
        return os.getpid() != self.pid

    def _new(self, path: str, digest: str, data: bytes) -> bool:
        return not self.tree.published or not _unchanged(self.previous, self.out, path, digest, data)

    def __call__(self, path: str, digest: str, data: bytes) -> None:
        if self._new(path, digest, data):
            self.tree.write(path, data)

    def here(self, path: str, digest: str, data: bytes) -> bool:
        """Write the file into the new tree in this thread if it is new; True when written."""
        if not self._new(path, digest, data):
            return False
        self.tree.write_here(path, data)
        return True


def _published(previous: state.Previous | None, out: Path, path: str) -> bool:
    """Whether the published file is there as the last build left it."""
    if previous is not None and path in previous.outputs:
        return path not in previous.changed  # the build looked at each of them as it started
    return os.path.isfile(os.path.join(out, path))  # os.path: a path object per file costs more than this


def _largest_first(pages: list[tuple[PagePlan, Planner, str]], previous: state.Previous
                   ) -> list[tuple[PagePlan, Planner, str]]:
    """The stale pages, those that read the most last time first (a new page last): a page takes about as
    long to make as it reads, and the workers end together when the longest start first. A one-edit
    build remakes a handful, of which one (an entry mentioned in hundreds of stories) may take as long
    as the rest; listed last, it would be made alone after them."""
    def size(page: tuple[PagePlan, Planner, str]) -> int:
        known = previous.outputs.get(page[0].output)
        return len(known.reads) if known is not None else 0
    return sorted(pages, key=size, reverse=True)


def _date(value: str | None) -> dt.date | None:
    return dt.date.fromisoformat(value) if value else None


def _changes(made: Mapping[str, _Made], previous: state.Previous | None, out: Path,
             claimed: set[str]) -> tuple[dict[str, bytes], dict[str, state.Output], list[str]]:
    """Which made files differ from what is published, which state rows change, what goes away."""
    writes: dict[str, bytes] = {}
    outputs: dict[str, state.Output] = {}
    for path, item in made.items():
        known = previous.outputs.get(path) if previous is not None else None
        if known != item.output:
            outputs[path] = item.output
        if item.data is not None and not _unchanged(previous, out, path, item.output.digest, item.data):
            writes[path] = item.data
    before = set(previous.outputs) if previous is not None else existing_files(out)
    return writes, outputs, sorted(before - claimed)
