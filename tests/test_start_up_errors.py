"""What a command starts from — the database URL, the database itself, newsroom.toml, a port — is named
with the fix when it is wrong: a message and a non-zero exit, never a traceback, and nothing stored changes."""

from __future__ import annotations

import pytest


@pytest.mark.sqlite_only
@pytest.mark.parametrize("command", [["serve", "--port", "99999"], ["serve", "--port", "-1"],
                                     ["unsubscribe-server", "--port", "70000"]])
def test_a_port_out_of_range_is_an_invalid_value(sample_cli, command):
    result = sample_cli(*command, expect=2)
    assert "Invalid value for '--port'" in result.stderr and "0<=x<=65535" in result.stderr, result.stderr
