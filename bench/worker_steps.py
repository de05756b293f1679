"""`python bench/breakdown.py --workers`: the steps of a full build with its render workers, each with its wall
time, the build process's CPU time and its workers', and how busy they kept the cores (see breakdown.py,
which puts bench/ and the project on the import path)."""

from __future__ import annotations

import functools
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from generate import generate
from onebuild import build_here

from newsroom.build import making, publishing, rendering, state, works, writer
from newsroom.db.session import make_engine

#: The steps the build's own process runs in a full build with render workers (see `--workers`), in order.
WORKER_STEPS: list[tuple[Any, str, str]] = [
    (making, "load", "load the content and memos"),
    (making, "parse_ahead", "parse every text ahead, check each record"),
    (making, "checked", "check the content"),
    (making, "derive", "derive (mentions, lists, letters)"),
    (making, "list_pages", "list every page"),
    (making, "stale_pages", "find the stale pages"),
    (making, "stale_groups", "find the stale groups"),
    (works, "make", "make the pages and groups"),
    (making, "publish", "write the state, swap the tree in"),
    (publishing, "_graph", "  the dependency graph"),
    (state, "save", "  store the outputs' rows"),
    (publishing, "save_memos", "  store the remembered results"),
    (writer.StagedTree, "wait", "wait for the old tree's removal"),
]


class Phases:
    """Per wrapped callable of the build's process: wall seconds, this process's CPU seconds (its threads
    included) and its reaped child processes' (the render workers), and calls."""

    def __init__(self) -> None:
        self.rows: dict[str, list[float]] = {}

    def wrap(self, owner: Any, name: str, label: str) -> None:
        inner = getattr(owner, name)

        @functools.wraps(inner)
        def timed(*args: Any, **kwargs: Any) -> Any:
            started, own, children = time.perf_counter(), time.process_time(), _children_cpu()
            try:
                return inner(*args, **kwargs)
            finally:
                row = self.rows.setdefault(label, [0.0, 0.0, 0.0, 0])
                row[0] += time.perf_counter() - started
                row[1] += time.process_time() - own
                row[2] += _children_cpu() - children
                row[3] += 1

        setattr(owner, name, timed)


def _children_cpu() -> float:
    """The user and system time of this process's child processes that have ended and been waited for."""
    times = os.times()
    return times.children_user + times.children_system


def with_workers(scale: float) -> None:
    """Time the steps of a full build with its render workers (see the module doc)."""
    with tempfile.TemporaryDirectory(prefix="newsroom-breakdown-") as folder:
        work = Path(folder)
        engine = make_engine(f"sqlite:///{work / 'bench.db'}")
        generate(engine, scale)
        phases = Phases()
        for owner, name, label in WORKER_STEPS:
            phases.wrap(owner, name, label)
        cores = rendering.workers()
        children = _children_cpu()
        result, total, own = build_here(engine, work, in_process=False)
        children = _children_cpu() - children
    print(f"scale {scale}: a full build of {result.pages:,} pages ({result.files:,} files) on {cores} cores: "
          f"{total:.2f} s, {own + children:.2f} s of CPU (the build's process {own:.2f}, its workers {children:.2f})")
    print(f"{'step (inclusive)':46} {'wall s':>7} {'process CPU s':>14} {'workers CPU s':>14} {'cores busy':>11}")
    rows = [(label, phases.rows[label]) for _, _, label in WORKER_STEPS if label in phases.rows]
    for label, (wall, process_cpu, workers_cpu, _) in rows:
        busy = _busy(wall, process_cpu + workers_cpu, cores)
        print(f"{label:46} {wall:7.2f} {process_cpu:14.2f} {workers_cpu:14.2f} {busy}")
    top = [row for label, row in rows if not label.startswith(" ")]
    rest = [total - sum(row[0] for row in top), own - sum(row[1] for row in top),
            children - sum(row[2] for row in top)]
    print(f"{'the rest (the front, the sitemap, the emails)':46} {rest[0]:7.2f} {rest[1]:14.2f} {rest[2]:14.2f} "
          f"{_busy(rest[0], rest[1] + rest[2], cores)}")
    alone = sum(row[0] for row in top if row[2] == 0) + rest[0] * (rest[2] == 0)
    print(f"{'the whole build':46} {total:7.2f} {own:14.2f} {children:14.2f} {_busy(total, own + children, cores)}")
    print(f"the build's process alone (no workers running): {alone:.2f} s, {alone / total:.0%} of the build")


def _busy(wall: float, cpu: float, cores: int) -> str:
    """How busy `cpu` seconds over `wall` kept the cores, as a share of all of them."""
    return f"{cpu / (wall * cores):11.0%}" if wall >= 0.01 else f"{'':11}"
