"""Shared fixtures: a fresh database per test (SQLite, and PostgreSQL when configured) and the CLI."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from newsroom.cli import main

#: Server URL for the PostgreSQL leg, e.g. postgresql+psycopg://postgres@127.0.0.1:5432/postgres
POSTGRES_ENV = "NEWSROOM_TEST_POSTGRES"


def _backends() -> list:
    params = [pytest.param("sqlite", id="sqlite")]
    reason = f"PostgreSQL leg: set {POSTGRES_ENV} to a server URL to run it"
    marks = [] if os.environ.get(POSTGRES_ENV) else [pytest.mark.skip(reason=reason)]
    params.append(pytest.param("postgresql", id="postgresql", marks=marks))
    return params


class Databases:
    """Makes fresh, empty databases on one backend and drops them afterwards."""

    def __init__(self, backend: str, folder: Path) -> None:
        self.backend, self.folder, self.made = backend, folder, []

    def new(self) -> str:
        name = f"newsroom_test_{uuid.uuid4().hex[:12]}"
        if self.backend == "sqlite":
            return f"sqlite:///{self.folder / (name + '.db')}"
        server = make_url(os.environ[POSTGRES_ENV])
        admin = create_engine(server, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        admin.dispose()
        self.made.append(name)
        return server.set(database=name).render_as_string(hide_password=False)

    def drop_all(self) -> None:
        if not self.made:
            return
        admin = create_engine(make_url(os.environ[POSTGRES_ENV]), isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            for name in self.made:
                connection.execute(text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :name"), {"name": name})
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        admin.dispose()


@pytest.fixture(params=_backends())
def databases(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Databases]:
    """Fresh databases on each configured backend (SQLite always; PostgreSQL when configured)."""
    made = Databases(request.param, tmp_path)
    try:
        yield made
    finally:
        made.drop_all()


@pytest.fixture
def db_url(databases: Databases) -> str:
    """The URL of a fresh, empty database."""
    return databases.new()


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
    work.mkdir()
    return Cli(db_url, work)


_SAMPLE_TEMPLATE: dict[str, Path] = {}


@pytest.fixture
def sample_cli(cli: Cli, tmp_path_factory: pytest.TempPathFactory) -> Cli:
    """The CLI on a database holding the sample publication (SQLite: copied from one made per session)."""
    if not cli.db_url.startswith("sqlite"):
        cli("init", "--sample")
        return cli
    if "db" not in _SAMPLE_TEMPLATE:
        folder = tmp_path_factory.mktemp("sample-template")
        Cli(f"sqlite:///{folder / 'sample.db'}", folder)("init", "--sample")
        _SAMPLE_TEMPLATE["db"] = folder / "sample.db"
    target = Path(make_url(cli.db_url).database)
    shutil.copyfile(_SAMPLE_TEMPLATE["db"], target)
    return cli


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
