"""The command line loads only what the command run needs."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import text

from newsroom.cli import COMMAND_MODULES, main
from newsroom.db.session import make_engine


def test_every_command_is_listed_with_its_module():
    modules = {module: importlib.import_module(f"newsroom.cli.{module}") for module in set(COMMAND_MODULES.values())}
    defined = {command.name: name for name, module in modules.items() for command in module.COMMANDS}
    assert defined == COMMAND_MODULES
    listed = CliRunner().invoke(main, ["--help"]).output
    for name in COMMAND_MODULES:
        assert f"  {name} " in listed
    assert CliRunner().invoke(main, ["no-such-command"]).exit_code == 2


def modules_of_a_build(db_url: str, site: Path, email: Path) -> list[str]:
    """The modules `newsroom build` loaded, run in a fresh interpreter as the command runs."""
    return modules_of(db_url, site.parent, "build", "--out", str(site), "--email-out", str(email))


def modules_of(db_url: str, cwd: Path, *command: str) -> list[str]:
    """The modules a command loaded, run in a fresh interpreter as the command runs."""
    args = ["--db", db_url, "-q", *command]
    script = ("import json, sys\n"
              "from newsroom.cli import main\n"
              "try:\n"
              f"    main({args!r})\n"
              "except SystemExit as done:\n"
              "    assert not done.code, done.code\n"
              "print(json.dumps(sorted(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=cwd, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def test_a_build_loads_no_migration_machinery_nor_other_commands(tmp_path, sample_cli):
    """`newsroom build` is run after every edit: it does not pay for Alembic or the mail, export or
    preview code, nor for reading content files (its content comes from the database; PyYAML alone took
    15 ms of a one-edit rebuild): a fresh interpreter, as the command runs."""
    loaded = modules_of_a_build(sample_cli.db_url, tmp_path / "site", tmp_path / "email")
    assert (tmp_path / "site" / "hu" / "index.html").is_file()
    assert "newsroom.cli.build" in loaded
    unwanted = ("alembic", "rdflib", "newsroom.cli.content", "newsroom.cli.mail", "newsroom.cli.serve",
                "newsroom.mail", "newsroom.serve", "newsroom.content.exporter", "yaml", "newsroom.content.yamlio",
                "newsroom.content.reader", "newsroom.content.validator")
    assert [name for name in loaded if name.startswith(unwanted)] == []


@pytest.mark.sqlite_only("which modules a command loads for SKOS does not depend on the database")
def test_the_content_commands_load_the_skos_export_only_to_write_it(tmp_path, sample_cli):
    """`import` and `check` (run by the preview and after every edit) share a module with `export --skos`,
    whose RDF library took 0.15-0.2 s to load: it is loaded only by the export that writes SKOS."""
    exported = tmp_path / "exported"
    sample_cli("export", str(exported))
    for command in (["check"], ["import", str(exported / "entries" / "gpu.yaml")], ["export", str(tmp_path / "again")]):
        assert [name for name in modules_of(sample_cli.db_url, tmp_path, *command) if name.startswith("rdflib")] == []
    skos = modules_of(sample_cli.db_url, tmp_path, "export", "--skos", str(tmp_path / "glossary.ttl"))
    assert "rdflib" in skos and (tmp_path / "glossary.ttl").stat().st_size > 0


@pytest.mark.sqlite_only
def test_a_build_with_nothing_to_do_loads_no_templates_nor_markdown(tmp_path, sample_cli):
    """A rebuild with nothing changed stops after comparing the store's snapshot: it does not import
    Jinja, Markdown, the feeds or the search index (most of what a build imports); one after an edit does."""
    site, email = tmp_path / "site", tmp_path / "email"

    def loaded() -> list[str]:
        return modules_of_a_build(sample_cli.db_url, site, email)

    rendering = ("jinja2", "markdown_it", "newsroom.build.making", "newsroom.render.feeds", "newsroom.render.search")
    first = loaded()
    assert (site / "hu" / "index.html").is_file() and "newsroom.build.making" in first
    written = {path: path.stat().st_mtime_ns for path in site.rglob("*") if path.is_file()}
    again = loaded()
    assert [name for name in again if name.startswith(rendering)] == []
    # Nor what writing a record takes (asking whether a scheduled issue is due does not need it).
    assert [name for name in again if name.startswith(("issues.revisions", "newsroom.content.importer",
                                                       "newsroom.content.stored", "newsroom.content.upsert"))] == []
    assert {path: path.stat().st_mtime_ns for path in site.rglob("*") if path.is_file()} == written
    # The store's snapshot still covers every table pages are made from: an entry changed in the database
    # (here without the revision an edit command records, which the snapshot covers too) is a change.
    engine = make_engine(sample_cli.db_url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE entry_texts SET definition = 'A chip for training models, edited.' "
                                "WHERE lang = 'en' AND entry_id = (SELECT id FROM entries WHERE slug = 'trainium')"))
        connection.execute(text("UPDATE entries SET version = version + 1 WHERE slug = 'trainium'"))
    engine.dispose()
    loaded()
    page = (site / "en" / "glossary" / "trainium" / "index.html").read_text(encoding="utf-8")
    assert "A chip for training models, edited." in page


@pytest.mark.sqlite_only
def test_the_program_ends_with_its_command_s_status_and_all_its_output(tmp_path, sample_cli):
    """`python -m newsroom` (as the console script) skips the interpreter's teardown: what a command
    printed still arrives whole through a pipe, an `atexit` function still runs, and the exit status
    is the command's."""
    def program(*args: str, script: str = "") -> subprocess.CompletedProcess[str]:
        code = (f"{script}\nimport sys\nsys.argv = ['newsroom', *{list(args)!r}]\n"
                "from newsroom.cli import run\nrun()\n")
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)

    built = program("--db", sample_cli.db_url, "build", "--out", str(tmp_path / "site"),
                    "--email-out", str(tmp_path / "email"),
                    script="import atexit, pathlib\n"
                           "atexit.register(pathlib.Path('atexit-ran').write_text, 'yes')")
    assert built.returncode == 0, built.stderr
    summary = built.stdout.splitlines()[-1]
    assert " written, " in summary and summary.endswith(str(tmp_path / "site"))
    assert (tmp_path / "atexit-ran").read_text() == "yes"

    empty = program("--db", f"sqlite:///{tmp_path / 'empty.db'}", "build")
    assert empty.returncode == 1
    assert "run `newsroom init`" in empty.stderr
    assert program("no-such-command").returncode == 2
    version = program("--version")
    assert version.returncode == 0 and version.stdout.startswith("newsroom, version ")


@pytest.mark.sqlite_only
def test_a_reader_that_stops_reading_ends_the_command_quietly(sample_cli):
    """`newsroom issue list | head -1`: once the reader is gone, the command stops without a word."""
    import os

    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line
    try:
        done = subprocess.run([sys.executable, "-m", "newsroom", "--db", sample_cli.db_url, "glossary", "list"],
                              stdout=write, stderr=subprocess.PIPE, text=True, cwd=sample_cli.cwd)
    finally:
        os.close(write)
    assert done.returncode != 0
    assert done.stderr == ""
