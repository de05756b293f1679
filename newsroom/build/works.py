"""Making the stale pages and groups over the render workers: each work plans and renders (or makes a
group), hashes its files and works out its reads as stored; a forked worker writes its files itself."""

from __future__ import annotations

import bisect
import hashlib
import os
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

from newsroom.build import state
from newsroom.build.masthead import Masthead
from newsroom.build.memos import Memo
from newsroom.build.page_specs import PagePlan
from newsroom.build.pages import Planner
from newsroom.build.publishing import Made, unchanged
from newsroom.build.rendering import PageRenderer, progress_bar, run_all
from newsroom.build.stale import Candidates, Group, group_language
from newsroom.build.tracking import Tracker
from newsroom.build.values import Values
from newsroom.build.writer import StagedTree

def _page_work(plan: PagePlan, planner: Planner, renderer: PageRenderer, tracker: Tracker,
               before: state.Output | None) -> list[Any]:
    """Plan and render one page: [(path, bytes), reads, sitemap entry, its planner's id, `before`] (make's
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


def make(pages: list[tuple[PagePlan, Planner, str]], groups: list[Group], renderer: PageRenderer,
         tracker: Tracker, values: Values, metas: dict[str, Any], progress: bool, memos: list[Memo],
         previous: state.Previous | None, candidates: Candidates | None,
         spool: Spool | None, run: Callable[..., list[Any]] = run_all) -> tuple[dict[str, Made], dict[str, Made]]:
    """Make the stale groups and pages, over the available cores; returns (pages made, group files made).

    Planning happens where rendering does: a worker plans and renders its pages, so the build never
    holds every page's context. A page depends on what it read and on what the values its planner
    kept as attributes were computed from (Planner.shared_reads), taken when a run of works ends:
    any such value a page used was computed in that process by then. What workers add to and use
    of `memos` comes back with their results, so the next build remembers it. A remade output's
    reads under roots that did not change keep the values stored with it (`previous`). Each file
    made goes to `spool`, if given, and its bytes are let go: a forked worker writes its files into the
    new tree itself (see Spool), and this process takes each file as it arrives. `run` runs the works: run_all,
    as the command stops it and with its render workers (see making.make).
    """
    planners = {id(planner): planner for _, planner, _ in pages}  # a forked worker's are its own copies
    known = previous.outputs if previous is not None and candidates is not None else {}
    works = [*(partial(_group_work, make, tracker, before) for _, make, _, before in groups),
             *(partial(_page_work, plan, planner, renderer, tracker, known.get(plan.output))
               for plan, planner, _ in pages)]
    offset = len(groups)
    changed_roots = candidates.roots if candidates is not None else None
    masthead_keys = frozenset(Masthead.key(lang) for lang in renderer.envs)

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
                result[2][Masthead.META] = {key: values(key) for key in sorted(shown)}
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
    slots = [*(renderer.languages.index(group_language(group)) for group, *_ in groups),
             *(renderer.languages.index(plan.lang) for plan, _, _ in pages)]
    with progress_bar(len(works), progress, desc="making") as bar:
        results = run(works, finish, bar, arrived, slots=slots)
    for result in results:
        if len(result) > 4:
            for memo, (added, used) in zip(memos, result.pop()):
                memo.merge(added, used)
    grouped: dict[str, Made] = {}
    for (group, _, fingerprint, _), (files, reads, extra, roots) in zip(groups, results[:offset]):
        roots = tuple(map(values.key, roots))
        for index, (path, digest, data) in enumerate(files):
            # The group's reads (and what its maker remembers) are stored once, with its first file.
            grouped[path] = Made(data, state.Output(digest, fingerprint,
                                                    state.NO_READS if index else reads,
                                                    {"group": group} if index else {"group": group, **extra},
                                                    roots=() if index else roots))
    made: dict[str, Made] = {}
    for (plan, _, fingerprint), ((digest, data), reads, meta, roots) in zip(pages, results[offset:]):
        metas[plan.output] = meta
        made[plan.output] = Made(data, state.Output(digest, fingerprint, reads, meta,
                                                    roots=tuple(map(values.key, roots))))
    return made, grouped


def _deps(reads: Iterable[str], last: tuple[list[str], dict[str, str]] | None, values: Values,
          changed_roots: set[str] | None) -> tuple[tuple[str, ...], dict[str, str]]:
    """An output's reads as stored: their roots, in order, and {key: value hash} in key order.

    With `last`, its reads as the last build stored them (roots, deps), only a read not read then, or
    under a root that changed (found by bisection: see `stale._changed`), has its value worked out; every
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


class Spool:
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
        return not self.tree.published or not unchanged(self.previous, self.out, path, digest, data)

    def __call__(self, path: str, digest: str, data: bytes) -> None:
        if self._new(path, digest, data):
            self.tree.write(path, data)

    def here(self, path: str, digest: str, data: bytes) -> bool:
        """Write the file into the new tree in this thread if it is new; True when written."""
        if not self._new(path, digest, data):
            return False
        self.tree.write_here(path, data)
        return True
