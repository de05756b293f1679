"""Where a full build's time goes, and the floor beneath it: what no build of these pages with
Jinja2 and markdown-it-py can skip.

    python bench/breakdown.py [--scale 1.0] [--edit STEP | --workers]

It generates the benchmark's publication (bench/generate.py) in a temporary folder and makes one full
build of it with every work in this process (no render workers: each step's time is its CPU time),
timing named steps of the engine as they run — inclusive timers, no profiler (a few microseconds a
call). Then the floor, the three parts of rendering these pages that any engine written on the same
libraries pays:

- the templates alone: each page rendered a second time, once its Markdown and term links are made
  (Markdown a template renders again, and term linking, are taken off);
- the Markdown: each text's first parse, and rendering tokens to sanitised HTML;
- writing the files: the built site written again into an empty folder, in one thread.

Their sum, spread perfectly over the cores, is the fastest full build such an engine could make of
this publication on this machine, and so the highest page rate it could reach.

Between the steps and the floor, the pages by template: how many, the time spent planning them (their
contexts made), rendering them the first time (with the Markdown and term links their templates show)
and, of that, rendering the templates alone. The step "plan and render each page" holds all three and
the second renderings.

With `--edit STEP` (one of the benchmark's edits: "edit one story", …) it times a rebuild after that
edit instead, step by step, after a full build of the publication: where a one-edit rebuild's time
goes. Its imports are not counted (this program loaded them already); `newsroom build` pays them too.

With `--workers` it makes the full build as the benchmark does, with its render workers, and times the
steps the build's own process runs: each one's wall time, the build process's CPU time in it (its
threads included) and its workers' (the CPU of the child processes reaped meanwhile: a step that forks
workers waits for them before it returns), and how busy that kept the cores. What the build's process
does alone (the steps whose workers' CPU is nil) keeps all but one core idle; a step whose cores are
less than fully busy leaves them waiting on each other. On a disk that is slow to create files soon
after a deletion (see docs/build-performance.md), run it after `sync; sleep 65`.
"""

from __future__ import annotations

import argparse
import functools
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

from floor import plans_and_renders, print_by_template, second_renders, watch_parses, write_again  # noqa: E402
from generate import generate  # noqa: E402
from measure import BUILD_CLOCK  # noqa: E402
from onebuild import build_here  # noqa: E402
from run import STEPS as BENCHMARK_STEPS, compile_engine, edits  # noqa: E402
from worker_steps import with_workers  # noqa: E402

import newsroom.cli.build  # noqa: E402,F401 (what the command loads)
from glossary import matching  # noqa: E402
from newsroom.build import issue_pages, making, publishing, rendering, stale, state, works, writer  # noqa: E402
from newsroom.build.pipeline import build  # noqa: E402
from newsroom.db.session import make_engine  # noqa: E402
from newsroom.render import markdown  # noqa: E402
from newsroom.settings import Settings  # noqa: E402

#: (owner, attribute, label) of the steps timed, in the order they are printed.
STEPS: list[tuple[Any, str, str]] = [
    (making, "load", "load the content and memos"),
    (making, "parse_ahead", "parse every text ahead, check each record"),
    (making, "checked", "check the content"),
    (making, "derive", "derive (mentions, lists, letters)"),
    (works, "_page_work", "plan and render each page"),
    (issue_pages.IssuePages, "link_terms", "  stories' Markdown with term links"),
    (issue_pages, "linked_first_mentions", "  link their first mentions"),
    (matching.TermMatcher, "find", "term matching (derive and links)"),
    (works, "_group_work", "feeds, search index, other groups"),
    (works, "_deps", "each output's reads and their hashes"),
    (state, "encode_reads", "encode the reads"),
    (making, "publish", "write the state, swap the tree in"),
    (markdown.MarkdownRenderer, "_render", "Markdown tokens to sanitised HTML"),
]

#: The steps of a rebuild (see `--edit`), in the order they run.
REBUILD_STEPS: list[tuple[Any, str, str]] = [
    (making, "load", "load (the state, the memos, the content)"),
    (state, "load", "  the last build's state"),
    (making, "load_memos", "  the remembered results"),
    (making, "load_content", "  the content"),
    (making, "parse_ahead", "parse the new texts ahead"),
    (making, "checked", "check the content"),
    (making, "derive", "derive (mentions, lists, letters)"),
    (making, "list_pages", "list every page"),
    (stale, "candidates", "compare the graph's roots"),
    (making, "stale_pages", "find the stale pages"),
    (making, "stale_groups", "find the stale groups"),
    (works, "make", "make them"),
    (works, "_page_work", "  plan and render a page"),
    (works, "_group_work", "  make a group (feeds, search index)"),
    (making, "_forget_superseded", "forget the edited texts' results"),
    (making, "_forget_unshown_parts", "forget the parts feeds no longer show"),
    (making, "publish", "write, store the state and memos"),
    (writer.StagedTree, "finish", "  finish a new tree, swap it in"),
    (publishing, "_graph", "  the dependency graph"),
    (state, "save", "  store the outputs' rows"),
    (publishing, "save_memos", "  store the remembered results"),
    (writer.StagedTree, "wait", "wait for the old tree's removal"),
]


class Timers:
    """Inclusive times of wrapped callables (a call within a call of the same one counts once). While
    `aside` is set (a page's second rendering), what they take goes to `aside_s` instead."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self.aside = False
        self.aside_s = 0.0

    def wrap(self, owner: Any, name: str, label: str) -> None:
        inner = getattr(owner, name)
        running = [False]

        @functools.wraps(inner)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if running[0]:
                return inner(*args, **kwargs)
            running[0] = True
            started = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                spent = time.perf_counter() - started
                running[0] = False
                if self.aside:
                    self.aside_s += spent
                else:
                    self.seconds[label] = self.seconds.get(label, 0.0) + spent
                    self.calls[label] = self.calls.get(label, 0) + 1

        setattr(owner, name, timed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="1.0 = ten years (520 issues, 1,300 entries)")
    steps = parser.add_mutually_exclusive_group()
    steps.add_argument("--edit", choices=BENCHMARK_STEPS[2:], help="time the rebuild after this edit instead")
    steps.add_argument("--workers", action="store_true",
                       help="time the steps of a full build with its render workers instead (wall, CPU, cores busy)")
    args = parser.parse_args()
    compile_engine()
    if args.edit:
        rebuild(args.scale, args.edit)
        return
    if args.workers:
        with_workers(args.scale)
        return
    with tempfile.TemporaryDirectory(prefix="newsroom-breakdown-") as folder:
        work = Path(folder)
        engine = make_engine(f"sqlite:///{work / 'bench.db'}")
        generate(engine, args.scale)  # before the timers: storing the content parses its texts too
        timers = Timers()
        for owner, name, label in STEPS:
            timers.wrap(owner, name, label)
        parses = watch_parses(timers)
        by_template: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0.0])
        templates = second_renders(timers, by_template)
        plans_and_renders(templates, by_template)
        cores = rendering.workers()
        result, total, total_cpu = build_here(engine, work)
        second = templates["seconds"]
        (work / "again").mkdir()
        written_s, files, size = write_again(work / "site", work / "again")
    print(f"scale {args.scale}: a full build of {result.pages:,} pages ({result.files:,} files) in one process: "
          f"{total:.2f} s ({total_cpu:.2f} s of CPU), of which the second renderings {second:.2f} s")
    print(f"{'step (inclusive)':46} {'s':>7} {'calls':>8}")
    for _, _, label in STEPS:
        if label in timers.seconds:
            print(f"{label:46} {timers.seconds[label]:7.2f} {timers.calls[label]:8,}")
    print(f"{'markdown-it: first parse of each text':46} {parses['first']:7.2f} {parses['first_calls']:8,.0f}")
    print(f"{'markdown-it: a text parsed again':46} {parses['again']:7.2f} {parses['again_calls']:8,.0f}")
    print()
    print_by_template(by_template)
    markdown_html = timers.seconds.get("Markdown tokens to sanitised HTML", 0.0)
    floor = second + parses["first"] + markdown_html + written_s
    best = floor / cores
    print()
    print(f"the floor: templates alone {second:.2f} s ({second / max(templates['pages'], 1) * 1000:.2f} ms a page), "
          f"Markdown {parses['first'] + markdown_html:.2f} s (parse {parses['first']:.2f}, HTML {markdown_html:.2f}), "
          f"writing {files:,} files ({size / 2 ** 20:.0f} MiB) {written_s:.2f} s: {floor:.2f} s in all")
    print(f"over {cores} cores at best {best:.2f} s: at most {result.pages / best:,.0f} pages/s "
          f"(the build: {result.pages / total * cores:,.0f} pages/s were it spread perfectly)")


def rebuild(scale: float, step: str) -> None:
    """Time the rebuild after the benchmark's edit `step`, step by step (see the module doc)."""
    with tempfile.TemporaryDirectory(prefix="newsroom-breakdown-") as folder:
        work = Path(folder)
        db = work / "bench.db"
        engine = make_engine(f"sqlite:///{db}")
        writer = generate(engine, scale)
        now = BUILD_CLOCK
        site, email = work / "site", work / "email"
        build(engine, Settings(), site, now.date(), email_out=email, now=now)
        engine.dispose()
        edits(writer, db)[step]()
        timers = Timers()
        for owner, name, label in REBUILD_STEPS:
            timers.wrap(owner, name, label)
        result, total, total_cpu = build_here(make_engine(f"sqlite:///{db}"), work, full=False)
    print(f"scale {scale}: the rebuild after \"{step}\" in one process: {total:.2f} s ({total_cpu:.2f} s of CPU); "
          f"{result.rendered} pages rendered, {result.stats.written} files written")
    print(f"{'step (inclusive)':46} {'s':>7} {'calls':>8}")
    for _, _, label in REBUILD_STEPS:
        if label in timers.seconds:
            print(f"{label:46} {timers.seconds[label]:7.2f} {timers.calls[label]:8,}")
    timed = sum(timers.seconds.get(label, 0.0) for _, _, label in REBUILD_STEPS if not label.startswith(" "))
    print(f"{'the rest (the front, the sitemap, the emails)':46} {total - timed:7.2f}")


if __name__ == "__main__":
    main()
