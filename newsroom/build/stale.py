"""What a build must make again: the pages and groups of files (feeds, search indexes) whose recorded
inputs changed, found from the last build's state and its dependency graph."""

from __future__ import annotations

import bisect
import datetime as dt
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from newsroom.build import state, urls
from newsroom.build.masthead import Masthead
from newsroom.build.derived import Derived
from newsroom.build.memos import Memo
from newsroom.build.page_specs import PagePlan
from newsroom.build.pages import Planner
from newsroom.build.publishing import Made, published
from newsroom.build.remembered import Remembered
from newsroom.build.rendering import PageRenderer
from newsroom.build.tracking import TrackedContent
from newsroom.build.values import Values
from newsroom.i18n import catalog_digest
from newsroom.render import search, search_documents
from newsroom.render.feeds import FEED_TEMPLATES, feed_groups
from newsroom.settings import Settings

#: The fingerprint of outputs remade on every build (their bytes decide whether they are written).
AGGREGATE = "aggregate"


def stale_pages(listed: list[tuple[PagePlan, Planner]], renderer: PageRenderer, values: Values, inputs: str,
                previous: state.Previous | None, out: Path, candidates: Candidates | None
                ) -> tuple[list[tuple[PagePlan, Planner, str]], dict[str, Any],
                            dict[str, tuple[Made, tuple[bytes, bytes] | None]]]:
    """The pages whose recorded inputs changed (all of them without a previous state), each with its
    fingerprint; the remembered sitemap entry (`meta`) of every other page; and the pages whose only
    changed input is the masthead's issue line, made from their last bytes (see `Masthead`): each
    with its state and the (old, new) line to put in its published bytes (None: the same bytes).

    A page whose template, catalog and settings are the same and whose every
    recorded read still has the same value would be planned and rendered to the
    same bytes: it is not planned at all. Only the reads of `candidates` (see
    candidates) can have changed; None: any page's.
    """
    stale: list[tuple[PagePlan, Planner, str]] = []
    metas: dict[str, Any] = {}
    spliced: dict[str, tuple[Made, tuple[bytes, bytes] | None]] = {}
    masthead = Masthead(renderer, values, out) if previous is not None else None
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
        if meta is None or not published(previous, out, path):
            stale.append((plan, planner, fingerprint))
            continue
        if _changed(path, known, values, candidates):
            stale.append((plan, planner, fingerprint))
            continue
        moved = {key: value for key, value in (meta.get(Masthead.META) or {}).items() if values(key) != value}
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


def stale_groups(tracked: tuple[TrackedContent, Derived], settings: Settings, now: dt.datetime | None, values: Values,
                 inputs: str, renderer: PageRenderer, previous: state.Previous | None, out: Path, pages: set[str],
                 candidates: Candidates | None, parts: Memo) -> tuple[list[Group], list[str]]:
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
        # The search index first: the longest of a language's groups to make, it is started first (see
        # largest_first), while the other worker makes the feeds.
        groups = {
            index: partial(_search_index, partial(Planner, content, derived, settings, lang, now), folder, out,
                           last if len(last) == len(members.get(index, [])) else []),
            # a feed's parts are kept as its group's (see making._forget_unshown_parts)
            **{f"{remember.scope}/{name}": make  # the group its parts are kept under (Remembered.within)
               for name, make in feed_groups(content, derived, settings, lang, remember.within).items()},
        }
        for group, make in groups.items():
            fingerprint = _group_fingerprint(f"{inputs}|{feed_templates}" if group != index else inputs, group, lang)
            known = members.get(group, [])
            if known and all(output.fingerprint == fingerprint for _, output in known) \
                    and not any(_changed(path, output, values, candidates) for path, output in known) \
                    and all(published(previous, out, path) for path, _ in known):
                kept += [path for path, _ in known]
            else:
                stale.append((group, make, fingerprint, known))
    if previous is not None:  # the stale groups' files' reads, in one query
        previous.fetch_reads(path for *_, known in stale for path, _ in known)
    # Each with the file its reads are stored with (see works.make).
    return [(group, make, fingerprint, next((output for _, output in known if output.reads != state.NO_READS), None))
            for group, make, fingerprint, known in stale], kept


def group_language(group: str) -> str:
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
Group = tuple[str, Callable[[], Any], str, "state.Output | None"]


@dataclass(frozen=True)
class Candidates:
    """The outputs under a root whose value changed (see graph.Graph), and those roots: only reads
    under them can have changed."""

    paths: set[str]
    roots: set[str]


def candidates(previous: state.Previous | None, values: Values) -> Candidates | None:
    """Which outputs' reads can have changed; None (any output's, any read) without a graph."""
    if previous is None or previous.graph is None:
        return None
    graph = previous.graph
    roots = values.changed(graph.values)
    return Candidates({path for root in roots for path in graph.readers.get(root)}, roots)


def _changed(path: str, output: state.Output, values: Values, candidates: Candidates | None) -> bool:
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


def largest_first(pages: list[tuple[PagePlan, Planner, str]], previous: state.Previous
                  ) -> list[tuple[PagePlan, Planner, str]]:
    """The stale pages, those that read the most last time first (a new page last): a page takes about as
    long to make as it reads, and the workers end together when the longest start first. A one-edit
    build remakes a handful, of which one (an entry mentioned in hundreds of stories) may take as long
    as the rest; listed last, it would be made alone after them."""
    def size(page: tuple[PagePlan, Planner, str]) -> int:
        known = previous.outputs.get(page[0].output)
        return len(known.reads) if known is not None else 0
    return sorted(pages, key=size, reverse=True)
