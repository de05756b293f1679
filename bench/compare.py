"""The before and after of a change: two versions' full builds of the benchmark's publication, in turn.

    python bench/compare.py REV [--against REV] [--scale 1.0] [--runs 8] [--edit STEP] [--json out.json]

On a shared machine one full build differs from the next by several per cent, minutes apart, and
from hour to hour by more: more than most changes gain. So a change is measured against the code
before it by building with each in turn, on the same machine in the same minutes: the code of the
git revision REV (the before) and the working tree as it is, uncommitted changes included (the
after), or the revision given with --against.

Each version is taken from git (`git archive`) into a temporary folder, its modules compiled to
bytecode (as bench/run.py does), and generates the publication with its own bench/generate.py — the
same seed and scale make the same publication, at that version's schema — and builds it once
untimed (its templates compiled, its files read from disk). Each run then builds it
once with each version, in alternating order (before first in odd runs, after first in even ones),
each build in a fresh process (that version's bench/measure.py, two or more workers as the machine
has) into a fresh folder. It prints each build's wall time (the build call) and CPU time (user and
system time of the build's process and its workers), then the medians and ranges of both and the
change, and writes them as JSON with --json.

With `--edit STEP` (one of the benchmark's edits: "edit one story", …) it compares the rebuild after
that edit instead. Each version's untimed full build is then the state every run starts from, kept
as a copy: a run puts that copy back in the build's folder (the database, the site and the emails,
with their files' times; the recorded state belongs to the folder's path), applies the edit with that
version's bench/run.py, and times the rebuild (not `--full`) in a fresh process. Its wall time is
the build call; the whole command's time is printed beside it. Putting a site back deletes and
copies thousands of files just before the rebuild writes its own: on a disk slow to create files
soon after a deletion (see docs/build-performance.md) that weighs on the rebuilds that write many
(adding an issue rewrites every page's masthead), and on one side more than the other. Run it with
its folders on a memory file system (`TMPDIR=/dev/shm python bench/compare.py …`) there. A rebuild
takes about a second, and the medians of a few runs of the same code differ by up to 8 %: a
change smaller than that shows better in one process (`bench/breakdown.py --edit STEP`).
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

from run import STEPS, compile_engine, engine_environment, measure  # noqa: E402

#: The benchmark's edits, whose rebuilds `--edit` compares.
EDITS = STEPS[2:]

#: What each version generates its database with (in a process of its own, on that version's modules). Not
#: bench/generate.py's own command line, which (in the versions so far) leaves the engine to the interpreter's
#: exit: this disposes of it, so SQLite merges its write-ahead log into the file that each build copies.
GENERATE = ("import sys; from pathlib import Path; sys.path[:0] = [sys.argv[1], str(Path(sys.argv[1]) / 'bench')]; "
            "from generate import generate; from newsroom.db.session import make_engine; "
            "engine = make_engine('sqlite:///' + sys.argv[2]); generate(engine, float(sys.argv[3])); engine.dispose()")

#: How a version applies one of the benchmark's edits to a database (bench/run.py's `edits`), in a process of its own.
EDIT = ("import sys; from pathlib import Path; sys.path[:0] = [sys.argv[1], str(Path(sys.argv[1]) / 'bench')]; "
        "from generate import Shape, Writer; from run import edits; "
        "edits(Writer(Shape.at(float(sys.argv[3]))), Path(sys.argv[2]))[sys.argv[4]]()")


def checkout(revision: str, folder: Path) -> Path:
    """The files of `revision` (as git has them committed) in `folder`."""
    done = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", revision], capture_output=True)
    if done.returncode:
        raise SystemExit(f"bench/compare.py: git cannot give revision {revision!r}: "
                         f"{done.stderr.decode(errors='replace').strip()}\n"
                         "Give a commit, a branch or a tag of this repository (e.g. HEAD~1).")
    folder.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
        # Only plain files and folders inside `folder` (a Python without extraction filters trusts git's archive).
        archive.extractall(folder, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    if not (folder / "bench" / "measure.py").is_file():
        raise SystemExit(f"bench/compare.py: revision {revision!r} has no bench/measure.py to build with; "
                         "give a later one.")
    return folder


def prepare(tree: Path, database: Path, scale: float) -> None:
    """Compile `tree`'s modules and generate its publication in `database`."""
    compile_engine(tree)
    done = subprocess.run([sys.executable, "-c", GENERATE, str(tree), str(database), str(scale)],
                          capture_output=True, text=True, env=engine_environment(tree))
    if done.returncode:
        raise SystemExit(f"bench/compare.py: generating the publication with {tree} failed:\n{done.stderr}")


def build(tree: Path, database: Path, folder: Path) -> dict[str, Any]:
    """One full build with `tree`'s engine of a copy of `database` in a fresh folder (bench/run.py's
    `measure`), with `cpu`: user and system seconds of its process and its workers."""
    folder.mkdir(parents=True)
    copy = folder / "bench.db"
    shutil.copyfile(database, copy)
    return measure(copy, folder / "site", full=True, tree=tree)


def rebuild(tree: Path, kept: Path, folder: Path, scale: float, step: str) -> dict[str, Any]:
    """The rebuild after the edit `step` with `tree`'s engine in `folder`, where `build` made a full
    build, put back as it was then from its copy `kept` (copied with its files' times)."""
    shutil.rmtree(folder)
    shutil.copytree(kept, folder)
    done = subprocess.run([sys.executable, "-c", EDIT, str(tree), str(folder / "bench.db"), str(scale), step],
                          capture_output=True, text=True, env=engine_environment(tree))
    if done.returncode:
        raise SystemExit(f"bench/compare.py: applying the edit {step!r} with {tree} failed:\n{done.stderr}")
    return measure(folder / "bench.db", folder / "site", tree=tree)


def summary(builds: list[dict[str, Any]]) -> dict[str, Any]:
    walls, cpus = [b["wall"] for b in builds], [b["cpu"] for b in builds]
    wall = statistics.median(walls)
    commands = [b["command"] for b in builds]
    return {"wall": wall, "wall_range": [min(walls), max(walls)], "cpu": statistics.median(cpus),
            "cpu_range": [min(cpus), max(cpus)], "command": statistics.median(commands),
            "command_range": [min(commands), max(commands)], "pages": builds[0]["pages"],
            "pages_per_s": builds[0]["pages"] / wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revision", help="the code before: a git revision (a commit, branch or tag)")
    parser.add_argument("--against", metavar="REV", help="the code after (default: the working tree as it is)")
    parser.add_argument("--scale", type=float, default=1.0, help="1.0 = ten years (520 issues, 1,300 entries)")
    parser.add_argument("--runs", type=int, default=8,
                        help="full builds (with --edit, rebuilds) with each version (default 8)")
    parser.add_argument("--edit", metavar="STEP", choices=EDITS,
                        help=f"compare the rebuild after this edit instead (one of: {', '.join(EDITS)})")
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be 1 or more")
    what = f"rebuild{'s' if args.runs != 1 else ''} after \"{args.edit}\"" if args.edit else \
        f"full build{'s' if args.runs != 1 else ''}"
    with tempfile.TemporaryDirectory(prefix="newsroom-compare-") as folder:
        work = Path(folder)
        trees = {"before": checkout(args.revision, work / "before"),
                 "after": checkout(args.against, work / "after") if args.against else ROOT}
        databases = {side: work / f"{side}.db" for side in trees}
        for side, tree in trees.items():
            prepare(tree, databases[side], args.scale)
            # One build untimed: the first build of a version compiles its templates (kept between
            # processes) and reads its files from disk, which would count against whichever goes first.
            build(tree, databases[side], work / f"{side}-warm-up")
            if args.edit:  # what each run's rebuild starts from
                shutil.copytree(work / f"{side}-warm-up", work / f"{side}-kept")
        builds: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
        for run in range(1, args.runs + 1):
            for side in ("before", "after") if run % 2 else ("after", "before"):
                figures = (rebuild(trees[side], work / f"{side}-kept", work / f"{side}-warm-up", args.scale, args.edit)
                           if args.edit else build(trees[side], databases[side], work / f"{side}-{run}"))
                builds[side].append(figures)
                rendered = figures.get("rendered", "?")  # (a version's measure.py before it reported them)
                print(f"run {run} {side:6} {figures['wall']:7.2f} s  {figures['cpu']:7.2f} CPU-s  "
                      f"(command {figures['command']:.2f} s)  {figures['pages']} pages, {rendered} rendered",
                      flush=True)
    found = {side: summary(side_builds) for side, side_builds in builds.items()}
    before, after = found["before"], found["after"]
    if before["pages"] != after["pages"]:
        print(f"note: the two versions build {before['pages']} and {after['pages']} pages of the same publication")
    print(f"\nscale {args.scale}, {args.runs} {what} each, medians (ranges):")
    for side in ("before", "after"):
        f = found[side]
        rate = "" if args.edit else f", {f['pages_per_s']:.0f} pages/s"
        print(f"{side:6} {f['wall']:7.2f} s ({f['wall_range'][0]:.2f}–{f['wall_range'][1]:.2f}){rate}; "
              f"{f['cpu']:.2f} CPU-s ({f['cpu_range'][0]:.2f}–{f['cpu_range'][1]:.2f}); "
              f"command {f['command']:.2f} s ({f['command_range'][0]:.2f}–{f['command_range'][1]:.2f})")
    wall, cpu = after["wall"] - before["wall"], after["cpu"] - before["cpu"]
    print(f"change: wall {wall:+.2f} s ({wall / before['wall'] * 100:+.1f} %), "
          f"CPU {cpu:+.2f} s ({cpu / before['cpu'] * 100:+.1f} %)")
    if args.json:
        report = {"revisions": {"before": args.revision, "after": args.against or "working tree"},
                  "scale": args.scale, "runs": args.runs, "edit": args.edit, "builds": builds, **found}
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
