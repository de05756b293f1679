"""Shared fixtures: a fresh database per test (SQLite, and PostgreSQL when configured) and the CLI."""

from __future__ import annotations

import functools
import os
import queue
import shutil
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import hypothesis
import pytest
from click.testing import CliRunner, Result
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from newsroom.build.rendering import workers
from newsroom.cli import main

# Property-based tests: reproducible in CI (CI=1 or HYPOTHESIS_PROFILE=ci), exploring anew on a workstation.
# Example counts stay in the tests themselves, small enough to keep the suite fast.
hypothesis.settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
hypothesis.settings.register_profile("dev", deadline=None)
hypothesis.settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))

#: Server URL for the PostgreSQL leg, e.g. postgresql+psycopg://postgres@127.0.0.1:5432/postgres
POSTGRES_ENV = "NEWSROOM_TEST_POSTGRES"

# The suite runs a test process on every core (pyproject's `-n auto`): a build forking render workers of its own
# besides would have the cores take turns, for a third more CPU (a sample build 0.69 → 0.91 CPU-s). The commands
# the tests run render in their own process; the tests of the render workers ask for two (--jobs 2).
os.environ["NEWSROOM_JOBS"] = "1"


def _backends() -> list:
    params = [pytest.param("sqlite", id="sqlite")]
    reason = f"PostgreSQL leg: set {POSTGRES_ENV} to a server URL to run it"
    marks = [] if os.environ.get(POSTGRES_ENV) else [pytest.mark.skip(reason=reason)]
    params.append(pytest.param("postgresql", id="postgresql", marks=marks))
    return params


#: A folder of the machine's memory (tmpfs), where the suite's temporary folders go when --basetemp does not say: the
#: builds write thousands of files, and one costs ~5 times the CPU on a disk's file system (0.24 ms against 0.04 ms
#: on two cores with ext4).
MEMORY_FOLDER = Path("/dev/shm")
#: The run's temporary folder, when it is the suite's own (see pytest_configure), and whether the run failed (see
#: pytest_sessionfinish), in the run's config.
OURS = pytest.StashKey[str]()
FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(tryfirst=True)  # before pytest's own makes the temporary folders' factory from the option
def pytest_configure(config: pytest.Config) -> None:
    if config.option.basetemp is None and not hasattr(config, "workerinput") and MEMORY_FOLDER.is_dir() \
            and os.access(MEMORY_FOLDER, os.W_OK | os.X_OK):
        # The suite's own, removed when it ends (the test processes each get a folder inside it).
        config.option.basetemp = config.stash[OURS] = tempfile.mkdtemp(prefix="newsroom-tests-", dir=MEMORY_FOLDER)
        config.add_cleanup(functools.partial(_removed_unless_failed, config))
    config.addinivalue_line("markers", "sqlite_only(why): its PostgreSQL leg is not run (suite time); by default "
                                       "because what it checks does not depend on the database")
    config.addinivalue_line("markers", "long: runs for minutes of the suite's time; started before the others, so "
                                       "that no core is left running it alone at the end")


def _removed_unless_failed(config: pytest.Config) -> None:
    """The suite's own temporary folders (see pytest_configure) removed as the run ends, unless a test failed:
    then kept for a look at what its commands made (pytest_terminal_summary says where)."""
    if not config.stash.get(FAILED, False):
        shutil.rmtree(config.stash[OURS], ignore_errors=True)


@pytest.hookimpl(tryfirst=True)  # before the terminal's summary, which asks
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config.stash[FAILED] = exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED)


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    kept = config.stash.get(OURS, None)
    if kept is not None and config.stash.get(FAILED, False):
        terminalreporter.write_line(f"the failed run's temporary folders are kept in {kept} (in memory): "
                                    f"remove it when done, `rm -r {kept}`")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: a test process more than the cores this one may use. Many tests wait (for a subprocess, a
    timer, PostgreSQL, a preview's next poll) while their builds render in their own process (NEWSROOM_JOBS
    above): with one process a core, a core idled through each wait (three files of the suite: 152 s with two
    processes, 119 s with three, 128 s with four, on two cores)."""
    return workers() + 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A `sqlite_only` test's PostgreSQL leg is skipped before any database is made for it (suite time): the
    storage it goes through is covered on PostgreSQL by the tests of the store and the build's state.

    The `long` tests go first (the rest keep their order): the suite's workers take the tests in order and
    take over each other's queued ones when idle (`--dist worksteal`), so a test of several minutes started
    late would keep one core busy alone while the others have finished."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)  # stable: False (long) first
    for item in items:
        marker, spec = item.get_closest_marker("sqlite_only"), getattr(item, "callspec", None)
        if marker is not None and spec is not None and spec.params.get("databases") == "postgresql":
            why = marker.args[0] if marker.args else "nothing it checks depends on the database"
            item.add_marker(pytest.mark.skip(reason=f"SQLite only: {why} (suite time)"))


class Templates:
    """Databases prepared once per test session, copied for each test that needs one.

    `migrated` is an empty schema, `sample` holds the sample publication. PostgreSQL
    copies them with CREATE DATABASE … TEMPLATE (a file copy on the server, far
    cheaper than migrating and importing again); SQLite copies the file.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.made: dict[tuple[str, str], str] = {}  # (backend, content) -> database name or file
        self.dropper = Dropper()

    def get(self, backend: str, content: str) -> str:
        if (backend, content) not in self.made:
            name = f"newsroom_tpl_{content}_{uuid.uuid4().hex[:8]}"
            url = f"sqlite:///{self.folder / (name + '.db')}" if backend == "sqlite" else _create(name)
            Cli(url, self.folder)("init", *(["--sample"] if content == "sample" else []))
            self.made[(backend, content)] = name
        return self.made[(backend, content)]

    def drop_all(self) -> None:
        self.dropper.finish()
        names = [name for (backend, _), name in self.made.items() if backend == "postgresql"]
        if names:
            _drop(names)


def _create(name: str, template: str | None = None) -> str:
    """A new PostgreSQL database (a copy of `template`, if given) and its URL.

    Its sessions commit without waiting for the write-ahead log to reach the disk (`synchronous_commit`
    off, a setting of this database alone): a test's commands commit hundreds of times, 6 ms each on a
    busy machine otherwise. What every other session sees is the same: only a server crash could lose the
    last commits, and a test's database does not outlive the suite."""
    _admin_execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""),
                   f'ALTER DATABASE "{name}" SET synchronous_commit = off')
    return make_url(os.environ[POSTGRES_ENV]).set(database=name).render_as_string(hide_password=False)


def _admin_execute(*statements: str) -> None:
    admin = create_engine(make_url(os.environ[POSTGRES_ENV]), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        for statement in statements:
            connection.execute(text(statement))
    admin.dispose()


def _drop(names: list[str]) -> None:
    """Drop the databases `names`, through the driver itself: a drop runs while tests run (see Dropper), and a
    test counting the statements every SQLAlchemy engine of its process executes must not count these."""
    import psycopg

    with psycopg.connect(make_url(os.environ[POSTGRES_ENV]).set(drivername="postgresql").render_as_string(
            hide_password=False), autocommit=True) as connection:
        for name in names:
            connection.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
            connection.execute(f'DROP DATABASE IF EXISTS "{name}"')


class Dropper:
    """Drops finished tests' PostgreSQL databases in a thread of its own while the next tests run: a DROP
    DATABASE waits for a checkpoint of the server (0.05 s on a quiet machine, over a second on a busy one)
    that no test needs to wait for. `finish` waits for every drop and fails if one did."""

    def __init__(self) -> None:
        self._names: queue.SimpleQueue[list[str] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._failures: list[BaseException] = []

    def drop(self, names: list[str]) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="dropping test databases", daemon=True)
            self._thread.start()
        self._names.put(names)

    def _run(self) -> None:
        while (names := self._names.get()) is not None:
            try:
                _drop(names)
            except Exception as failure:  # noqa: BLE001 — reported by finish(), at the session's end
                self._failures.append(failure)

    def finish(self) -> None:
        if self._thread is not None:
            self._names.put(None)
            self._thread.join()
            self._thread = None
        if self._failures:
            raise RuntimeError(f"test databases left undropped: {self._failures!r}")


class Databases:
    """Makes fresh databases on one backend and drops them afterwards.

    `new()` is empty; `new("migrated")` has the schema; `new("sample")` holds the sample publication.
    """

    def __init__(self, backend: str, folder: Path, templates: Templates) -> None:
        self.backend, self.folder, self.templates, self.made = backend, folder, templates, []

    def new(self, content: str = "empty") -> str:
        name = f"newsroom_test_{uuid.uuid4().hex[:12]}"
        template = None if content == "empty" else self.templates.get(self.backend, content)
        if self.backend == "sqlite":
            target = self.folder / (name + ".db")
            if template is not None:
                shutil.copyfile(self.templates.folder / (template + ".db"), target)
            return f"sqlite:///{target}"
        self.made.append(name)
        return _create(name, template)

    def drop_all(self) -> None:
        """Drop the databases made, in the background (see Dropper)."""
        if self.made:
            self.templates.dropper.drop(self.made)


@pytest.fixture(scope="session")
def _templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Templates]:
    made = Templates(tmp_path_factory.mktemp("templates"))
    try:
        yield made
    finally:
        made.drop_all()


@pytest.fixture(params=_backends())
def databases(request: pytest.FixtureRequest, tmp_path: Path, _templates: Templates) -> Iterator[Databases]:
    """Fresh databases on each configured backend (SQLite always; PostgreSQL when configured)."""
    made = Databases(request.param, tmp_path, _templates)
    try:
        yield made
    finally:
        made.drop_all()


@pytest.fixture
def db_url(databases: Databases) -> str:
    """The URL of a fresh, empty database."""
    return databases.new()


class Meanwhile:
    """A command started in a thread while the test holds a transaction the command must wait for (another
    editor's command under way): `waiting()` says whether it still waits; `outcome()` its result once the
    test has let go."""

    def __init__(self, call: Callable[[], Result], patience: float = 2.0) -> None:
        self._results: list[Result] = []
        self._thread = threading.Thread(target=lambda: self._results.append(call()))
        self._thread.start()
        self._thread.join(patience)

    def waiting(self) -> bool:
        return self._thread.is_alive()

    def outcome(self, timeout: float = 60.0) -> Result:
        self._thread.join(timeout)
        return self._results[0]


@dataclass
class Cli:
    """Runs `newsroom` against one database, from a working folder."""

    db_url: str
    cwd: Path

    def __call__(self, *args: str, expect: int | None = 0) -> Result:
        runner = CliRunner()
        previous = Path.cwd()
        os.chdir(self.cwd)
        try:
            result = runner.invoke(main, ["--db", self.db_url, *args], catch_exceptions=False)
        finally:
            os.chdir(previous)
        if expect is not None:
            assert result.exit_code == expect, f"exit {result.exit_code}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        return result


@pytest.fixture
def cli(db_url: str, tmp_path: Path) -> Cli:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return Cli(db_url, work)


#: newsroom.toml of a published site: an https:// address the public reaches, of which `check` says nothing.
PUBLIC_SETTINGS = 'base_url = "https://hirek.aikorszak.hu/"\n'


@pytest.fixture
def public_address(tmp_path: Path) -> None:
    """The CLI's working folder (see `cli`, `sample_cli`) with the newsroom.toml of a published site, for the
    tests of what `check` says of the content: of the preview's default address it warns, as a public build
    does (see test_addresses)."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "newsroom.toml").write_text(PUBLIC_SETTINGS, encoding="utf-8")


@pytest.fixture
def sample_cli(databases: Databases, tmp_path: Path) -> Cli:
    """The CLI on a fresh database holding the sample publication (a copy of one made per session)."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return Cli(databases.new("sample"), work)


@pytest.fixture
def write_files(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    """Write a small content folder from {relative path: text}; returns the folder."""

    def write(files: dict[str, str]) -> Path:
        folder = tmp_path / f"content-{uuid.uuid4().hex[:6]}"
        for relative, body in files.items():
            path = folder / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body, encoding="utf-8")
        return folder

    return write
