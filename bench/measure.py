"""One build in a fresh process, as `newsroom build` runs it; prints its figures as JSON.

Run by bench/run.py so every build pays its own start-up and memory, like
the command line does: it loads what `newsroom build` loads, and like the
command it keeps what the build held until the process ends (`keep`), which
then ends without freeing it. Wall time is the build call (bench/run.py times
the whole process as the command's time); peak memory is the largest resident
set of this process and of its render workers.
"""

from __future__ import annotations

import datetime as dt
import json
import resource
import sys
import time
from pathlib import Path

from sqlalchemy import event

import newsroom.cli.build  # noqa: F401 (the command's modules: the process starts up as the command does)
from newsroom.cli import exit_now
from newsroom.build.pipeline import build
from newsroom.db.session import make_engine
from newsroom.settings import Settings


#: The benchmark's build clock: every build of it runs at this moment, after the generated issues came out.
BUILD_CLOCK = dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.timezone.utc)

#: What the build held, kept until the process ends, as newsroom/cli/build.py keeps it.
HELD: list[object] = []


def own_peak_kib() -> int:
    """This process's largest resident set since it started this program.

    Linux carries `ru_maxrss` over `exec`: a child of the benchmark (which holds the generated
    publication) would report the benchmark's size. /proc's VmHWM belongs to this program alone.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main(db: str, out: str, full: bool) -> None:
    engine = make_engine(f"sqlite:///{db}")
    queries = [0]

    def count(*_args: object) -> None:
        queries[0] += 1

    event.listen(engine, "before_cursor_execute", count)
    started = time.perf_counter()
    # As the command runs it: a build clock, and the latest issue's emails in a folder beside the site.
    now = BUILD_CLOCK
    result = build(engine, Settings(), Path(out), now.date(), email_out=Path(out).parent / "email", now=now,
                   full=full, keep=HELD)
    wall = time.perf_counter() - started
    peak_kib = max(own_peak_kib(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    print(json.dumps({"wall": wall, "pages": result.pages, "files": result.files, "rendered": result.rendered,
                      "written": result.stats.written, "removed": result.stats.removed, "queries": queries[0],
                      "peak_mib": peak_kib / 1024}))
    exit_now(0)  # and ends as the command does


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], "--full" in sys.argv[3:])
