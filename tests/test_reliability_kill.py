"""Nothing lost: SIGKILL `import` and `build` at random points, then check nothing is half-done.

The database must export exactly as before the import or exactly as after it;
the published folder must be byte-identical to the old site or to the new one.
Kill times come from seeded generators, so a failure names a reproducible point.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from newsroom import PROJECT_ROOT
from tests.conftest import Cli
from tests.stopping import WITH_WORKERS, bounded
from tests.sitegen import write_site

#: Kill points per test; raise NEWSROOM_KILL_SEEDS for a longer hunt by hand.
SEEDS = tuple(range(1, 1 + int(os.environ.get("NEWSROOM_KILL_SEEDS", "2"))))


def _run_killed(cli: Cli, seed: int | None, span: float, *args: str) -> float:
    """Run `newsroom ARGS` as a process and SIGKILL it at a seeded random moment within `span` seconds.

    With `seed` None it runs to the end; returns how long it ran, so the kill
    points of later runs spread over a whole run on any machine.
    """
    delay = random.Random(seed).uniform(0, span) if seed is not None else float("inf")
    started = time.monotonic()
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "newsroom", "--db", cli.db_url, *args], cwd=cli.cwd, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while process.poll() is None and time.monotonic() < started + delay:
        time.sleep(0.005)
    if process.poll() is None:
        process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=120) in (0, -signal.SIGKILL)
    return time.monotonic() - started


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _export(cli: Cli, folder: Path) -> dict[str, bytes]:
    cli("export", str(folder))
    return _tree(folder)


def test_a_killed_import_leaves_the_database_as_before_or_fully_imported(sample_cli, databases, tmp_path):
    incoming = write_site(tmp_path / "incoming", 100, first_issue=101)  # after the sample's, which are published
    before = _export(sample_cli, tmp_path / "before")
    finished = Cli(databases.new("sample"), sample_cli.cwd)
    span = _run_killed(finished, None, 0, "import", str(incoming))
    after = _export(finished, tmp_path / "after")
    assert before != after
    for seed in SEEDS:
        _run_killed(sample_cli, seed, span, "import", str(incoming))
        state = _export(sample_cli, tmp_path / f"killed-{seed}")
        assert state in (before, after), f"seed {seed}: the database holds a half-done import"
        if state == after:  # restore the starting point for the next kill
            sample_cli.db_url = databases.new("sample")


@pytest.fixture
def sqlite_sample(tmp_path: Path) -> Cli:
    """Building reads the database only: one backend shows what the writer does with a killed build."""
    work = tmp_path / "work"
    work.mkdir()
    cli = Cli(f"sqlite:///{tmp_path / 'site.db'}", work)
    cli("init")
    cli("import", str(write_site(tmp_path / "content", 120)))
    return cli


def test_a_killed_build_leaves_the_old_site_or_the_new_one(sqlite_sample, tmp_path):
    out = tmp_path / "_site"
    span = _run_killed(sqlite_sample, None, 0, "build", "--out", str(out))
    published = _tree(out)
    for seed in SEEDS:
        sqlite_sample("edit", "entry:g-00001", "--set", f"en.headword=Concept one, take {seed}")
        _run_killed(sqlite_sample, seed, span, "build", "--out", str(out))
        state = _tree(out)
        sqlite_sample("build", "--out", str(tmp_path / f"complete-{seed}"))
        assert state in (published, _tree(tmp_path / f"complete-{seed}")), \
            f"seed {seed}: the site is neither the old nor the new one"
        published = state
    for seed in SEEDS[:1]:
        sqlite_sample("build", "--out", str(out))
        published = _tree(out)
        _run_killed(sqlite_sample, seed + 10, span, "build", "--out", str(out))
        assert _tree(out) == published  # nothing changed, so a killed rebuild must leave exactly this tree
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith("._site")]
    # Besides the folders a killed build leaves (removed by the next large build), the folder's lock file.
    assert all(name.startswith(("._site.new-", "._site.old-")) or name == "._site.lock" for name in leftovers)


def _children(pid: int) -> list[int]:
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finding a build's workers needs Linux's /proc")
def test_a_build_killed_while_its_workers_work_leaves_its_folder_free(sqlite_sample, tmp_path):
    """The workers a killed build leaves behind keep none of its folder locks, and stop: the next build of the
    folder goes on at once (it was refused as "another build of this folder is running" until they finished)."""
    out = tmp_path / "_site"
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), **WITH_WORKERS}
    process = subprocess.Popen([sys.executable, "-m", "newsroom", "--db", sqlite_sample.db_url, "build", "--out",
                                str(out)], cwd=sqlite_sample.cwd, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not (workers := _children(process.pid)) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    if not workers:
        process.wait(timeout=120)
        pytest.skip("the build ended before its workers could be seen")
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=120)
    assert " written, " in sqlite_sample("build", "--out", str(out)).stdout
    for worker in workers:  # and the orphans stopped at their next chunk, working no more
        deadline = time.monotonic() + 60
        while Path(f"/proc/{worker}").exists() and "zombie" not in _state(worker) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not Path(f"/proc/{worker}").exists() or "zombie" in _state(worker)


def _state(pid: int) -> str:
    try:
        return next((line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("State")),
                    "")
    except OSError:
        return ""


#: `newsroom ARGS` whose build's render workers, once forked, wait for the command to end before they begin
#: any work of their own (as on a machine too busy to start them), each saying so with its process id.
SLOW_TO_START = """\
import os, runpy, sys, time
from newsroom.build import rendering
real = rendering._work_through
def slow(job, slot, results, inherited):
    command = os.getppid()
    os.write(1, f"a render worker is starting: {os.getpid()}\\n".encode())
    while os.getppid() == command:
        time.sleep(0.05)
rendering._work_through = slow
sys.argv = ["newsroom", *sys.argv[1:]]
runpy.run_module("newsroom", run_name="__main__")
"""


def test_a_build_killed_before_its_workers_began_leaves_its_folder_free(sqlite_sample, tmp_path):
    """A worker forked the moment before its build is killed holds none of the build's folder locks, even before
    it begins its work: the next build of the folder goes on at once."""
    out = tmp_path / "_site"
    process = subprocess.Popen([sys.executable, "-c", SLOW_TO_START, "--db", sqlite_sample.db_url, "build", "--out",
                                str(out)], cwd=sqlite_sample.cwd,
                               env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT), **WITH_WORKERS},
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    with bounded(process):
        line = process.stdout.readline()
        if not line.startswith("a render worker is starting: "):
            pytest.skip("the build forked no render worker that could be seen before it ended")
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert " written, " in sqlite_sample("build", "--out", str(out)).stdout
