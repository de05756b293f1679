"""The build benchmark: a synthetic publication at two scales, full and incremental builds.

    python bench/run.py [--scale 1.0] [--runs 3] [--json out.json]

For each scale (the given one and a tenth of it) it generates the publication
once (bench/generate.py); each run copies that database into a folder of its own
and measures, each build in a fresh process (bench/measure.py): a full build, a
rebuild with no change, a rebuild after editing one story, after editing the
most-mentioned glossary entry, after editing a story of the latest issue, after
giving the most-mentioned entry a new alias, and after adding a new published
issue of ten stories. Every run's full build comes before any run's rebuilds
(see `bench_scales`).
Figures are medians over the runs. It prints a table, the time ratio of the
two scales' full builds, and writes everything as JSON.

The engine's modules are compiled to bytecode first, as the command finds them
from its second run on; a machine that writes no bytecode
(PYTHONDONTWRITEBYTECODE) would otherwise compile them from source in every
build, which is no part of the build (0.1 s of each command here).
"""

from __future__ import annotations

import argparse
import compileall
import copy
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from collections.abc import Callable
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

from generate import Writer, generate, store  # noqa: E402

from newsroom.build.model import load_content  # noqa: E402
from newsroom.db.session import make_engine, session_factory  # noqa: E402

STEPS = ("full build", "no-change rebuild", "edit one story", "edit a much-mentioned entry", "edit a latest story",
         "alias a much-mentioned entry", "add an issue")


def compile_engine(tree: Path = ROOT) -> None:
    """Compile the engine's modules in `tree` to bytecode, as the command finds them from its second run on."""
    for package in ("newsroom", "glossary", "issues"):
        compileall.compile_dir(tree / package, quiet=1)


def engine_environment(tree: Path = ROOT) -> dict[str, str]:
    """A process environment whose imports find `tree`'s engine before any installed one."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")])}


def measure(db: Path, out: Path, full: bool = False, tree: Path = ROOT) -> dict[str, Any]:
    """Run one build with `tree`'s engine in a fresh interpreter and return its figures: `wall` is the
    build call, `command` the whole process (the interpreter's start-up, imports, the build, its exit),
    `cpu` the user and system seconds of that process and its render workers."""
    command = [sys.executable, str(tree / "bench" / "measure.py"), str(db), str(out), *(["--full"] if full else [])]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=engine_environment(tree))
    command_s = time.perf_counter() - started  # as a person times `newsroom build`: start-up and exit too
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the process and its workers, all waited for
    if done.returncode:
        raise SystemExit(f"build failed:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {**json.loads(done.stdout), "command": command_s, "cpu": cpu}


def edits(writer: Writer, db: Path) -> dict[str, Any]:
    """The edits of one run, applied through the import API before the build after them.

    An edit changes one field of the stored record, as an editor would: the English
    headline of a story halfway through the archive, the English definition of the most
    mentioned entry, a sentence added to the English body of a story of the latest issue
    (the edit editors make most: its issue's pages, the search index and the feeds that
    show it change), a new English alias of the most mentioned entry (a name no story uses
    yet: the glossary's matcher changes for every story). Adding an issue stores a new
    published issue of ten stories.
    """
    engine = make_engine(f"sqlite:///{db}")
    shape = writer.shape
    number = shape.issues + 1
    issue = [writer.issue(number)] + [writer.story(number, p) for p in range(1, shape.stories_per_issue + 1)]

    def edited(kind: str, key: str, lang: str, field: str, value: str | Callable[[str], str]) -> list[dict[str, Any]]:
        with session_factory(engine)() as session:
            content = load_content(session)
        record = copy.deepcopy(dict(getattr(content, kind)[key].data))
        record[lang][field] = value(record[lang][field]) if callable(value) else value
        return [record]

    def apply(records: Callable[[], list[dict[str, Any]]]) -> None:
        store(engine, records())
        engine.dispose()

    story = Writer(shape).story(shape.issues // 2, 3)["slug"]
    entry = Writer(shape).entry(0)["slug"]  # entry 0 carries the largest Zipf weight: the most mentioned
    latest = Writer(shape).story(shape.issues, 3)["slug"]
    return {"edit one story": lambda: apply(lambda: edited("stories", story, "en", "headline",
                                                           "An edited headline")),
            "edit a much-mentioned entry": lambda: apply(lambda: edited(
                "entries", entry, "en", "definition", "An edited definition of the most mentioned entry.")),
            "edit a latest story": lambda: apply(lambda: edited(
                "stories", latest, "en", "body", lambda body: body + " A sentence added after publication.")),
            "alias a much-mentioned entry": lambda: apply(lambda: edited(
                "entries", entry, "en", "aliases", lambda aliases: [*aliases, "Quixbrand"])),
            "add an issue": lambda: apply(lambda: issue)}


def full_build(template: Path, work: Path) -> dict[str, Any]:
    """A run's first build, of a copy of the generated database, in a folder of its own (`work` is new)."""
    work.mkdir()
    shutil.copyfile(template, work / "bench.db")
    return measure(work / "bench.db", work / "site", full=True)


def rebuilds(writer: Writer, work: Path) -> dict[str, dict[str, Any]]:
    """A run's rebuilds, in the folder of its full build: with no change, then after each edit."""
    db, out = work / "bench.db", work / "site"
    figures = {"no-change rebuild": measure(db, out)}
    for step, apply in edits(writer, db).items():
        apply()
        figures[step] = measure(db, out)
    return figures


def generated(scale: float, work: Path) -> tuple[Path, Writer, float]:
    """The publication at `scale`, generated once into a database each run copies: (its file, its writer,
    the seconds generating took)."""
    template = work / f"scale-{scale}.db"
    started = time.perf_counter()
    engine = make_engine(f"sqlite:///{template}")
    writer = generate(engine, scale)
    engine.dispose()  # checkpoints the WAL, so a plain copy of the file is the whole database
    return template, writer, time.perf_counter() - started


def bench_scales(scales: tuple[float, ...], runs: int, work: Path) -> list[dict[str, Any]]:
    """Each scale's figures, medians over `runs` runs.

    Every run's full build comes first, then every run's rebuilds; no site is deleted until the benchmark
    ends. On a file system that skips recently freed inodes (ext4 without a journal, as on the machine of
    the figures in the README: for a minute after they are freed, and five more while their inode table
    is not yet written back) creating a file or folder searches past every one freed nearby: a full build
    made within a minute of the tree an earlier run's "add an issue" swapped out and removed (8,700 files
    and folders at scale 1.0) took 2 to 7 s of system time more, varying from run to run — which says
    nothing of the build. A rebuild after adding an issue of a run after the first still follows the
    previous run's: it is measured as a publisher making such rebuilds in a row sees it.
    """
    made = {scale: generated(scale, work) for scale in scales}
    folders = {scale: [work / f"scale-{scale}-run-{run}" for run in range(runs)] for scale in scales}
    fulls = {scale: [full_build(made[scale][0], folder) for folder in folders[scale]] for scale in scales}
    results = []
    for scale in scales:
        _, writer, generate_s = made[scale]
        runs_figures = [{"full build": full, **rebuilds(Writer(writer.shape), folder)}
                        for folder, full in zip(folders[scale], fulls[scale])]
        steps = {}
        for step in STEPS:
            samples = [run[step] for run in runs_figures]
            steps[step] = {key: statistics.median(s[key] for s in samples) for key in samples[0]}
            steps[step]["pages_per_s"] = steps[step]["pages"] / steps[step]["wall"] if step == "full build" else None
        shape = writer.shape
        results.append({"scale": scale, "issues": shape.issues, "stories": shape.issues * shape.stories_per_issue,
                        "entries": shape.entries, "references": shape.references, "generate_s": generate_s,
                        "steps": steps})
    return results


def machine() -> dict[str, Any]:
    model = ""
    try:
        model = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                     if line.startswith("model name"))
    except (OSError, StopIteration):
        model = platform.processor()
    return {"nproc": os.cpu_count(), "cpu": model, "python": platform.python_version(), "system": platform.system()}


def table(result: dict[str, Any]) -> str:
    lines = [f"scale {result['scale']}: {result['issues']} issues, {result['stories']} stories, "
             f"{result['entries']} entries, {result['references']} reference pages "
             f"(generated in {result['generate_s']:.1f}s)",
             f"{'step':30} {'wall s':>8} {'command s':>9} {'CPU s':>6} {'pages':>6} {'rendered':>8} {'written':>8} "
             f"{'pages/s':>8} {'queries':>7} {'peak MiB':>8}"]
    for step, f in result["steps"].items():
        rate = f"{f['pages_per_s']:.0f}" if f["pages_per_s"] else ""
        lines.append(f"{step:30} {f['wall']:8.2f} {f['command']:9.2f} {f['cpu']:6.2f} {f['pages']:6.0f} "
                     f"{f['rendered']:8.0f} {f['written']:8.0f} {rate:>8} {f['queries']:7.0f} {f['peak_mib']:8.0f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="1.0 = ten years (520 issues, 1,300 entries)")
    parser.add_argument("--runs", type=int, default=3, help="runs per scale; figures are medians")
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    compile_engine()
    with tempfile.TemporaryDirectory(prefix="newsroom-bench-") as folder:
        results = bench_scales((args.scale / 10, args.scale), args.runs, Path(folder))
    for result in results:
        print(table(result), end="\n\n")
    small, large = (r["steps"]["full build"]["wall"] for r in results)
    print(f"full build time ratio, scale {args.scale} / {args.scale / 10}: {large / small:.1f} "
          f"(10 = linear)")
    report = {"machine": machine(), "results": results, "full_build_ratio": large / small}
    print(f"machine: {report['machine']['nproc']} cores, {report['machine']['cpu']}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
