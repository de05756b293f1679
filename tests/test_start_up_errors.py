"""What a command starts from — the database URL, the database itself, newsroom.toml, a port — is named
with the fix when it is wrong: a message and a non-zero exit, never a traceback, and nothing stored changes."""

from __future__ import annotations

import pytest
from sqlalchemy import text


@pytest.mark.sqlite_only
@pytest.mark.parametrize("content, line", [(b"\xff\xfe", 1), (b'timezone = "Europe/Budapest"\n\n# caf\xe9\n', 3)])
def test_a_settings_file_that_is_not_utf8_is_named_with_its_line(sample_cli, content, line):
    settings = sample_cli.cwd / "newsroom.toml"
    settings.write_bytes(content)
    result = sample_cli("check", expect=1)
    assert f"{settings}:{line}: not UTF-8 text" in result.stderr and "save it as UTF-8" in result.stderr, result.stderr


@pytest.mark.sqlite_only
@pytest.mark.parametrize("command", [["serve", "--port", "99999"], ["serve", "--port", "-1"],
                                     ["unsubscribe-server", "--port", "70000"]])
def test_a_port_out_of_range_is_an_invalid_value(sample_cli, command):
    result = sample_cli(*command, expect=2)
    assert "Invalid value for '--port'" in result.stderr and "0<=x<=65535" in result.stderr, result.stderr
