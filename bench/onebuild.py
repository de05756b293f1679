"""One full build of the benchmark's publication in this process, with no render workers: for a
profiler or an instruction counter, whose figures then cover the build's work and nothing else.

    python bench/onebuild.py --scale 0.1 --work /tmp/newsroom-one
    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/tmp/newsroom-one/callgrind.out \\
        "$(python -c 'import sys; print(sys.executable)')" bench/onebuild.py --scale 0.1 --work /tmp/newsroom-one

The publication is generated into WORK/bench.db when it is not there (so run it once without the
counter first: that run also compiles the templates to the bytecode kept between builds), and each run
builds it with `--full` into WORK/site, emptied first. The second command counts the instructions of
the process: repeatable for the same code, publication and hash seed, where wall time on a shared
machine moves by more than most changes gain. valgrind must start the interpreter itself (a launcher
script such as pyenv's shim would be what it counts), hence `sys.executable`. A change's before and
after: the `summary:` line of each `callgrind.out`, run with each version in turn.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from generate import generate  # noqa: E402
from measure import BUILD_CLOCK  # noqa: E402

import newsroom.cli.build  # noqa: E402,F401 (what the command loads)
from newsroom.build import rendering  # noqa: E402
from newsroom.build.pipeline import BuildResult, build  # noqa: E402
from newsroom.db.session import make_engine  # noqa: E402
from newsroom.settings import Settings  # noqa: E402
from sqlalchemy.engine import Engine  # noqa: E402


def build_here(engine: Engine, work: Path, full: bool = True, in_process: bool = True
               ) -> tuple[BuildResult, float, float]:
    """A build of the benchmark's publication in `engine` into WORK/site (its emails into WORK/email) at
    the benchmark's clock: (its result, wall seconds, this process's CPU seconds). `in_process`: with
    every work in this process, render workers off for this process from then on; else as a build runs
    them."""
    if in_process:
        rendering.workers = lambda: 1  # every work in this process, where a timer, profiler or counter sees it
    started, cpu = time.perf_counter(), time.process_time()
    result = build(engine, Settings(), work / "site", BUILD_CLOCK.date(), email_out=work / "email",
                   now=BUILD_CLOCK, full=full)
    return result, time.perf_counter() - started, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=0.1, help="1.0 = ten years (520 issues, 1,300 entries)")
    parser.add_argument("--work", type=Path, required=True,
                        help="the folder of the generated database (made if missing) and the built site")
    args = parser.parse_args()
    database = args.work / "bench.db"
    if not database.exists():
        args.work.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        engine = make_engine(f"sqlite:///{database}")
        generate(engine, args.scale)
        engine.dispose()
        print(f"generated the publication at scale {args.scale} in {time.perf_counter() - started:.1f} s: {database}")
    for folder in ("site", "email"):
        shutil.rmtree(args.work / folder, ignore_errors=True)
    result, wall, cpu = build_here(make_engine(f"sqlite:///{database}"), args.work)
    print(f"built {result.pages:,} pages ({result.files:,} files) in one process: {wall:.2f} s, {cpu:.2f} s of CPU")


if __name__ == "__main__":
    main()
