"""The command line loads only what the command run needs."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

from click.testing import CliRunner

from newsroom.cli import COMMAND_MODULES, main


def test_every_command_is_listed_with_its_module():
    modules = {module: importlib.import_module(f"newsroom.cli.{module}") for module in set(COMMAND_MODULES.values())}
    defined = {command.name: name for name, module in modules.items() for command in module.COMMANDS}
    assert defined == COMMAND_MODULES
    listed = CliRunner().invoke(main, ["--help"]).output
    for name in COMMAND_MODULES:
        assert f"  {name} " in listed
    assert CliRunner().invoke(main, ["no-such-command"]).exit_code == 2


def test_a_build_loads_no_migration_machinery_nor_other_commands(tmp_path, sample_cli):
    """`newsroom build` is run after every edit: it does not pay for Alembic or the mail, export or
    preview code (a fresh interpreter, as the command runs)."""
    args = ["--db", sample_cli.db_url, "-q", "build", "--out", str(tmp_path / "site"),
            "--email-out", str(tmp_path / "email")]
    script = ("import json, sys\n"
              "from newsroom.cli import main\n"
              "try:\n"
              f"    main({args!r})\n"
              "except SystemExit as done:\n"
              "    assert not done.code, done.code\n"
              "print(json.dumps(sorted(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=True)
    loaded = json.loads(done.stdout.splitlines()[-1])
    assert (tmp_path / "site" / "hu" / "index.html").is_file()
    assert "newsroom.cli.build" in loaded
    unwanted = ("alembic", "rdflib", "newsroom.cli.content", "newsroom.cli.mail", "newsroom.cli.serve",
                "newsroom.mail", "newsroom.serve", "newsroom.content.exporter")
    assert [name for name in loaded if name.startswith(unwanted)] == []
