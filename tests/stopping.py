"""A command whose build's render worker does not end, stopped by signals (Ctrl-C, `kill`) as it waits for it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from newsroom import PROJECT_ROOT

#: The environment of a command whose build is to fork its render workers, as on an editor's machine of two cores
#: or more: the suite's commands render in their own process (see conftest).
WITH_WORKERS = {"NEWSROOM_JOBS": "2"}
#: A bound on waiting for the command: killed after it, its output ends (not a timing assertion).
TIMEOUT = 60
#: Between two stops: each is handled before the next comes (two of one signal pending at once are one).
STOP_GAP_SECONDS = 0.5
#: Between two stops, for a test of what a stop says after a moment's wait (a second, see rendering's
#: STOP_SAID_SECONDS): said before the next stop comes.
SAID_GAP_SECONDS = 2.0

#: `newsroom ARGS` whose build's first render worker of each run (once the file $STUCK is made, if it is named)
#: holds SIGTERM back and works on while the command runs: only SIGKILL ends it. It says so, with its process id,
#: once it is stuck.
STUCK_WORKER = """\
import os, runpy, signal, sys, time
from newsroom.build import rendering
real = rendering._work_through
def stuck(job, slot, results, inherited):
    if slot != 0 or not os.path.exists(os.environ.get("STUCK", os.curdir)):
        return real(job, slot, results, inherited)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    command = os.getppid()
    os.write(1, f"a render worker is stuck: {os.getpid()}\\n".encode())  # one write: whole, whoever else writes
    while os.getppid() == command:  # ends with the command, however the command ends
        time.sleep(0.05)
rendering._work_through = stuck
sys.argv = ["newsroom", *sys.argv[1:]]
runpy.run_module("newsroom", run_name="__main__")
"""


def stopped_with_a_stuck_worker(args: Sequence[str], cwd: Path, stops: Sequence[int], env: dict[str, str] | None = None,
                                said: Callable[[str], None] = lambda line: None, gap: float = STOP_GAP_SECONDS
                                ) -> tuple[int, list[str], int] | None:
    """`newsroom ARGS` (see STUCK_WORKER) sent each signal of `stops` once its worker is stuck, `gap` seconds
    apart: its exit code, the lines it said after the worker was stuck, and the worker's process id; None when
    its build forked no worker (one core). `said` is given each line it says until then. Its output ends once
    every process holding it has ended."""
    process = subprocess.Popen([sys.executable, "-c", STUCK_WORKER, *args], cwd=cwd,
                               env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT), **WITH_WORKERS, **(env or {})},
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with bounded(process):
        worker = None
        for line in process.stdout:
            if line.startswith("a render worker is stuck: "):
                worker = int(line.rsplit(" ", 1)[1])
                break
            said(line)
        if worker is not None:
            for number in stops:
                time.sleep(gap)
                process.send_signal(number)
        rest = [line for line in process.stdout.read().splitlines()
                if not line.startswith("a render worker is stuck: ")]  # another worker's
        code = process.wait()
    return (code, rest, worker) if worker is not None else None


@contextmanager
def bounded(process: subprocess.Popen[str]) -> Iterator[None]:
    """Waiting for `process` (its output read through a pipe) bounded by TIMEOUT: killed after it, its output
    ends. On leaving, a process still running is killed and its output closed."""
    watchdog = threading.Timer(TIMEOUT, process.kill)
    watchdog.start()
    try:
        yield
    finally:
        watchdog.cancel()
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()


def ended(pid: int) -> bool:
    """Whether the process `pid` has ended (a zombie, ended but not yet waited for, counts)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "zombie" in next((line for line in status.splitlines() if line.startswith("State")), "")
