"""What a command starts from — the database URL, the database itself, newsroom.toml, a port — is named
with the fix when it is wrong: a message and a non-zero exit, never a traceback, and nothing stored changes."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from newsroom import SAMPLE_DIR
from newsroom.cli import main
from newsroom.db.migrate import SCHEMA_REVISION
from sitebuild import DRAFT_ISSUE
from tests.conftest import Cli, Meanwhile, _admin_execute

URL_EXAMPLES = ("sqlite:///newsroom.db", "postgresql+psycopg://user@host/db")


def run(cwd: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    """`newsroom ARGS` from `cwd`, without the --db the `Cli` fixture always passes."""
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner(env=env).invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(previous)


def stored(db_url: str) -> list[tuple]:
    """What the database holds that the commands below would change: the schema's revision, the entries."""
    engine = create_engine(db_url)
    try:
        with engine.connect() as connection:
            revision = connection.execute(text("SELECT version_num FROM alembic_version")).all()
            entries = connection.execute(text("SELECT slug, level, version FROM entries ORDER BY slug")).all()
    finally:
        engine.dispose()
    return [tuple(row) for row in revision + entries]


def test_a_database_url_that_is_no_url_is_named_with_where_it_came_from(tmp_path):
    result = run(tmp_path, "--db", "nonsense", "check")
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("Error: --db nonsense: not a database URL")
    assert all(example in result.stderr for example in URL_EXAMPLES), result.stderr
    result = run(tmp_path, "issue", "list", env={"NEWSROOM_DB": "garbage"})
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("Error: $NEWSROOM_DB=garbage: not a database URL")
    # A command's help needs no database.
    assert run(tmp_path, "--db", "nonsense", "check", "--help").exit_code == 0
    assert list(tmp_path.iterdir()) == []


def test_a_database_that_does_not_answer_is_named_with_what_to_change(tmp_path):
    """A database missing on its server, a server not there: the message names the setting the URL came from
    (never its password) and says what to change, for every command and for init (libpq's words alone, with
    the password, were the message); SQLite's folder that is not there is said so."""
    result = run(tmp_path, "--db", "sqlite:///no-folder/news.db", "init")
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("Error: --db sqlite:///no-folder/news.db: cannot connect to the database: unable "
                                    f"to open database file; the folder {tmp_path / 'no-folder'} does not exist"), \
        result.stderr
    server = os.environ.get("NEWSROOM_TEST_POSTGRES")
    if not server:
        return  # the PostgreSQL part needs a server: NEWSROOM_TEST_POSTGRES
    url = make_url(server).set(database="newsroom_no_such_database", password="secret")
    named = url.render_as_string(hide_password=True)
    for command in ("init", "check"):
        result = run(tmp_path, command, env={"NEWSROOM_DB": url.render_as_string(hide_password=False)})
        assert result.exit_code == 1, result.output
        assert result.stderr.startswith(f"Error: $NEWSROOM_DB={named}: cannot connect to the database: "), result.stderr
        assert 'database "newsroom_no_such_database" does not exist; create it (`createdb' in result.stderr
        assert "then run `newsroom init`" in result.stderr and "secret" not in result.stderr
    nothing_there = make_url(server).set(port=1).render_as_string(hide_password=False)
    result = run(tmp_path, "--db", nothing_there, "issue", "list")
    assert result.exit_code == 1, result.output
    assert "check the host and port in the URL, and that the PostgreSQL server there is running" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_postgresql_connection_waits_for_the_server_only_so_long(monkeypatch):
    """libpq waits for ever for a host that drops packets: the engine gives it a connect timeout, unless the
    URL (or libpq's $PGCONNECT_TIMEOUT) sets one."""
    from newsroom.db.session import connect_args

    monkeypatch.delenv("PGCONNECT_TIMEOUT", raising=False)
    assert connect_args(make_url("postgresql+psycopg://editor@db.example.org/news")) == {"connect_timeout": 10}
    assert connect_args(make_url("postgresql+psycopg://editor@db.example.org/news?connect_timeout=3")) == {}
    assert connect_args(make_url("sqlite:///newsroom.db")) == {}
    assert connect_args(make_url("postgresql+pg8000://editor@db.example.org/news")) == {}  # no libpq: no such option
    monkeypatch.setenv("PGCONNECT_TIMEOUT", "30")
    assert connect_args(make_url("postgresql+psycopg://editor@db.example.org/news")) == {}


def test_a_postgresql_server_that_does_not_answer_is_named_once_the_timeout_expires(tmp_path, monkeypatch):
    """A server that takes the connection and never answers (as a host behind a firewall that drops packets
    does not even take it) stops the command after the connect timeout, with what to check. (A listener that
    never accepts stands in for the host: it answers nothing, reliably.)"""
    from newsroom.db import session as db_session

    monkeypatch.delenv("PGCONNECT_TIMEOUT", raising=False)
    monkeypatch.setattr(db_session, "CONNECT_TIMEOUT_S", 2, raising=False)  # libpq's shortest (10 s would do)
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    url = f"postgresql+psycopg://editor@127.0.0.1:{silent.getsockname()[1]}/news?sslmode=disable"
    try:
        command = Meanwhile(lambda: run(tmp_path, "--db", url, "check"), patience=30)
        assert not command.waiting(), "still connecting after 30 s"
        result = command.outcome()
        assert result.exit_code == 1, result.output
        assert result.stderr.startswith(f"Error: --db {url}: cannot connect to the database: connection timeout "
                                        "expired; the server did not answer within the connect timeout "
                                        "(`?connect_timeout=SECONDS` in the URL sets it)"), result.stderr
    finally:
        silent.close()  # a command still connecting is refused, and ends


def test_a_role_postgresql_refuses_is_told_the_grants_it_needs(databases, tmp_path):
    """A team's database made by its admin, `newsroom init` run by an editor's role (as the README sets one up):
    PostgreSQL 15 and later refuse that role tables in the `public` schema, and another editor's role the
    tables `init` made. Each was a traceback; each is now the grants the role needs, nothing stored."""
    import uuid

    if databases.backend == "sqlite":
        pytest.skip("PostgreSQL's roles and grants")
    role = f"newsroom_test_{uuid.uuid4().hex[:8]}"
    _admin_execute(f'CREATE ROLE "{role}" LOGIN')
    try:
        for content, command in (("empty", "init"), ("migrated", "check")):
            url = make_url(databases.new(content)).set(username=role).render_as_string(hide_password=False)
            result = run(tmp_path, "--db", url, command)
            assert result.exit_code == 1, result.output
            said = result.stderr.removeprefix("Error: ")
            assert said.startswith(f"the database {url} refused the role {role} (permission denied for "), said
            assert f"GRANT CREATE ON SCHEMA public TO {role}" in said, said
            assert f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}" in said
    finally:
        _admin_execute(f'DROP ROLE "{role}"')


def test_a_database_whose_driver_is_missing_is_named_with_how_to_install_it(tmp_path):
    if importlib.util.find_spec("MySQLdb") is None:
        result = run(tmp_path, "--db", "mysql://editor:secret@localhost/news", "check")
        assert result.exit_code == 1, result.output
        assert "--db mysql://editor:***@localhost/news: " in result.stderr, result.stderr
        assert "its driver, the Python module MySQLdb, is not installed" in result.stderr
        assert "pip install mysqlclient" in result.stderr and "tested on SQLite and PostgreSQL" in result.stderr
        assert "secret" not in result.stderr
    if importlib.util.find_spec("psycopg2") is None:
        result = run(tmp_path, "--db", "postgresql+psycopg2://editor@localhost/news", "init")
        assert result.exit_code == 1, result.output
        assert "the Python module psycopg2, is not installed" in result.stderr
        assert "postgresql+psycopg://editor@localhost/news" in result.stderr, result.stderr
    result = run(tmp_path, "--db", "oracel://editor@localhost/news", "check")
    assert result.exit_code == 1, result.output
    assert "--db oracel://editor@localhost/news: no kind of database is called 'oracel'" in result.stderr


@pytest.mark.parametrize("command", [["check"], ["init"], ["issue", "list"]])
def test_a_file_that_is_no_sqlite_database_is_named_and_left_alone(tmp_path, command):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n", encoding="utf-8")
    result = Cli(f"sqlite:///{notes}", tmp_path)(*command, expect=1)
    assert f"{notes} is not a SQLite database: " in result.stderr, result.stderr
    assert notes.read_text(encoding="utf-8") == "not a database\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notes.txt"]


@pytest.fixture
def read_only(sample_cli: Cli, databases) -> Iterator[Cli]:
    """The sample database made read-only: PostgreSQL's transactions read-only by default; SQLite's file
    not writable (its owner's permission taken away, or as root, who ignores them, made immutable)."""
    if databases.backend == "postgresql":
        name = make_url(sample_cli.db_url).database
        _admin_execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
        yield sample_cli
        return
    database = Path(make_url(sample_cli.db_url).database)
    if os.geteuid() != 0:
        database.chmod(0o444)
        try:
            yield sample_cli
        finally:
            database.chmod(0o644)
        return
    if subprocess.run(["chattr", "+i", str(database)], capture_output=True).returncode != 0:
        pytest.skip("root ignores file permissions, and this file system has no immutable files (chattr +i)")
    try:
        yield sample_cli
    finally:
        subprocess.run(["chattr", "-i", str(database)], check=True)


def test_a_database_that_cannot_be_written_is_named_and_left_as_it_was(read_only, tmp_path):
    exported = tmp_path / "exported"
    # Exported before the change: a command that only reads still works.
    read_only("export", str(exported))
    entry = exported / "entries" / "gpu.yaml"
    entry.write_text(entry.read_text(encoding="utf-8").replace("level: basic", "level: advanced"), encoding="utf-8")
    before = stored(read_only.db_url)
    for command in (["edit", "entry:gpu", "--set", "level=advanced"], ["import", "--dry-run", str(entry)],
                    ["import", str(entry)]):
        result = read_only(*command, expect=1)
        assert "cannot be written" in result.stderr and "nothing was stored" in result.stderr, result.stderr
        assert "[SQL:" not in result.stderr
    assert stored(read_only.db_url) == before
    assert "level: basic" in read_only("edit", "entry:gpu").stdout


@pytest.fixture
def due(sample_cli: Cli, write_files, monkeypatch) -> Cli:
    """The sample with issue 14 scheduled for 2026-11-16 7:00, the clock past it: the next command that may
    write records it as published."""
    scheduled = DRAFT_ISSUE.replace("status: draft", "status: scheduled\npublished_at: 2026-11-16T07:00:00+01:00")
    story = (SAMPLE_DIR / "stories" / "i13-vllm-trainium-backend.yaml").read_text(encoding="utf-8")
    story = story.replace("slug: i13-vllm-trainium-backend", "slug: i14-story").replace("issue: 13", "issue: 14")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-16T06:00:00+01:00")
    sample_cli("import", str(write_files({"issues/0014.yaml": scheduled, "stories/s.yaml": story})))
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-16T07:01:00+01:00")
    return sample_cli


def test_a_read_only_database_is_read_with_an_issue_come_due_and_a_build_writes_nothing(due, read_only, tmp_path):
    """Every command began by recording the issues come due, and a reading one failed on a database it may
    only read; a build wrote the site, then failed storing what it wrote (a site the next build did not
    know). Reading commands read (the issue public all the same); a build says so before it writes."""
    before = stored(read_only.db_url)
    assert "\n  14  " in "\n" + read_only("issue", "list").stdout
    read_only("check")
    read_only("export", str(tmp_path / "exported"))
    site = tmp_path / "site"
    refused = read_only("build", "--out", str(site), expect=1).stderr
    assert "cannot be written" in refused and "nothing was stored" in refused, refused
    assert not site.exists()
    assert stored(read_only.db_url) == before


@pytest.mark.sqlite_only
def test_an_unforeseen_database_error_still_surfaces(sample_cli, monkeypatch):
    """Only what the messages above explain becomes a message: any other error is a bug to see whole."""
    from newsroom.cli import App

    def fail(self: App) -> None:
        raise OperationalError("SELECT 1", {}, Exception("disk I/O error"))

    monkeypatch.setattr(App, "require_schema", fail)
    with pytest.raises(OperationalError, match="disk I/O error"):
        sample_cli("issue", "list")


@pytest.mark.sqlite_only
def test_the_program_prints_such_a_message_without_a_traceback(tmp_path, sample_cli):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n", encoding="utf-8")
    for url in ("nonsense", f"sqlite:///{notes}"):
        done = subprocess.run([sys.executable, "-m", "newsroom", "--db", url, "check"], capture_output=True,
                              text=True, cwd=tmp_path)
        assert done.returncode == 1 and done.stderr.startswith("Error: "), done.stderr
        assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr


@pytest.mark.sqlite_only
def test_a_sqlite_database_opened_read_only_is_read_and_not_written(sample_cli, tmp_path):
    """SQLite's own read-only mode (a URI with mode=ro) reads, and every write is refused by name."""
    path = make_url(sample_cli.db_url).database
    reading = Cli(f"sqlite:///file:{path}?mode=ro&uri=true", sample_cli.cwd)
    before = stored(sample_cli.db_url)
    assert "database ready" in reading("init").stdout  # at the newest schema: nothing to write
    assert "Hungry for memory" in reading("issue", "list").stdout
    result = reading("edit", "entry:gpu", "--set", "level=advanced", expect=1)
    assert f"the database {reading.db_url} cannot be written" in result.stderr, result.stderr
    assert stored(sample_cli.db_url) == before


@pytest.fixture
def newer(sample_cli: Cli) -> Cli:
    """The sample database as a newer newsroom would leave it: at a revision this version does not know."""
    engine = create_engine(sample_cli.db_url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '0099_future'"))
    engine.dispose()
    return sample_cli


@pytest.mark.parametrize("command", [["issue", "list"], ["check"], ["build"], ["init"], ["init", "--sample"],
                                     ["edit", "entry:gpu", "--set", "level=advanced"]])
def test_a_database_of_a_newer_newsroom_is_named_and_left_as_it_was(newer, command):
    before = stored(newer.db_url)
    result = newer(*command, expect=1)
    assert "was made or upgraded by a newer newsroom" in result.stderr, result.stderr
    assert f"0099_future, a revision this version does not know (it works on {SCHEMA_REVISION})" in result.stderr
    assert "upgrade newsroom to work with it" in result.stderr and "run `newsroom init`" not in result.stderr
    assert stored(newer.db_url) == before
    assert not (newer.cwd / "_site").exists()


def test_a_database_of_an_older_schema_is_sent_to_init_with_how_to_keep_a_copy_first(sample_cli):
    """`export`, the backup a careful team makes before an upgrade, is refused on an older schema: the refusal
    sends the editor to `newsroom init`, which keeps a SQLite database's copy itself, where the refusal says;
    another database's copy is the editor's to keep first, with a command that works where it is run."""
    engine = create_engine(sample_cli.db_url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '0005_build_output_mtime'"))
    engine.dispose()
    result = sample_cli("export", "out", expect=1)
    assert "is at schema 0005_build_output_mtime, this version needs" in result.stderr
    assert not (sample_cli.cwd / "out").exists()
    url = make_url(sample_cli.db_url)
    if url.get_backend_name() == "sqlite":
        # No sqlite3 command to run first (init's own copy made it one copy too many): tests/test_upgrade.py
        # runs init as said on a database of the first schema, and finds the copy where this names it.
        copy = Path(url.database).with_name(f"{Path(url.database).stem}-0005_build_output_mtime.db")
        assert (f"run `newsroom init` to upgrade it; before upgrading, it keeps a copy of the database as it is, "
                f"{copy}, which the earlier newsroom opens") in result.stderr, result.stderr
        assert "sqlite3" not in result.stderr and not copy.exists()
        return
    assert "run `newsroom init` to upgrade it, after keeping a copy to go back to: `" in result.stderr
    [command] = re.findall(r"`(pg_dump [^`]+)`", result.stderr)
    copy = sample_cli.cwd / f"{url.database}-0005_build_output_mtime.dump"
    assert command.startswith(f"pg_dump --format=custom --file={copy.name} postgresql://") and ":@" not in command
    if shutil.which(command.split()[0]) is None:
        return
    subprocess.run(command, shell=True, cwd=sample_cli.cwd, check=True, capture_output=True)  # noqa: S602
    assert copy.stat().st_size > 0


@pytest.mark.sqlite_only
@pytest.mark.parametrize("content, line", [(b"\xff\xfe", 1), (b'timezone = "Europe/Budapest"\n\n# caf\xe9\n', 3)])
def test_a_settings_file_that_is_not_utf8_is_named_with_its_line(sample_cli, content, line):
    settings = sample_cli.cwd / "newsroom.toml"
    settings.write_bytes(content)
    result = sample_cli("check", expect=1)
    assert f"newsroom.toml:{line}: not UTF-8 text" in result.stderr and "save it as UTF-8" in result.stderr, result.stderr


@pytest.mark.sqlite_only
def test_a_settings_file_saved_with_a_byte_order_mark_is_read(sample_cli):
    """Some editors save UTF-8 with a byte order mark first; TOML called that malformed."""
    (sample_cli.cwd / "newsroom.toml").write_bytes("\ufefffeed_limit = 3\n".encode())
    sample_cli("build", "--out", "site")
    assert (sample_cli.cwd / "site/en/feeds/issues.atom").read_text(encoding="utf-8").count("<entry>") == 3


@pytest.mark.sqlite_only
@pytest.mark.parametrize("command", [["serve", "--port", "99999"], ["serve", "--port", "-1"],
                                     ["unsubscribe-server", "--port", "70000"]])
def test_a_port_out_of_range_is_an_invalid_value(sample_cli, command):
    result = sample_cli(*command, expect=2)
    assert "Invalid value for '--port'" in result.stderr and "0<=x<=65535" in result.stderr, result.stderr
