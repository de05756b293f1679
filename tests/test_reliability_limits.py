"""Limits and backups: oversized files, deep Markdown, a large generated site's full round trip."""

from __future__ import annotations

from pathlib import Path

import html5lib
import pytest

from newsroom.content.reader import validate_text
from newsroom.diagnostics import ContentError
from tests.conftest import Cli
from tests.sitegen import write_site

LANGUAGES = ("hu", "en")


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_export_is_a_full_backup_of_a_large_site(cli, databases, tmp_path):
    """A few hundred generated records: export → import into an empty database → export is identical."""
    cli("init")
    cli("import", str(write_site(tmp_path / "content", 200)))
    first, second = tmp_path / "first", tmp_path / "second"
    cli("edit", "entry:g-00003", "--set", "en.definition=A changed definition.")  # versions above 1 travel too
    cli("export", str(first))
    restored = Cli(databases.new("migrated"), cli.cwd)
    assert restored("import", str(first)).stdout.startswith("202 created, 0 updated, 0 unchanged")
    restored("export", str(second))
    yaml_files = lambda tree: {k: v for k, v in tree.items() if k.endswith(".yaml")}  # noqa: E731
    assert yaml_files(_tree(first)) == yaml_files(_tree(second)) and len(yaml_files(_tree(first))) == 202
    assert restored("import", str(second)).stdout.startswith("0 created, 0 updated, 202 unchanged")


@pytest.fixture
def sqlite_cli(tmp_path: Path) -> Cli:
    """Size and depth limits act before the database is touched: one backend is enough."""
    work = tmp_path / "work"
    work.mkdir()
    cli = Cli(f"sqlite:///{tmp_path / 'limits.db'}", work)
    cli("init", "--sample")
    return cli


@pytest.mark.parametrize("megabytes", [3, 10])
def test_a_file_over_the_size_limit_is_refused_and_nothing_is_stored(sqlite_cli, write_files, megabytes):
    body = "Hosszú szöveg. " * (megabytes * 1024 * 1024 // 16)
    folder = write_files({"pages/long.yaml": f"kind: page\nslug: long\nen:\n  title: Long\n  body: {body}\n",
                          "pages/short.yaml": "kind: page\nslug: short\nen:\n  title: Short\n"})
    result = sqlite_cli("import", str(folder), expect=1)
    assert result.stderr == (f"{folder / 'pages' / 'long.yaml'}: file is larger than 2048 KiB; split it or shorten "
                             "its fields\n1 error; nothing was changed\n")
    assert "no page 'short'" in sqlite_cli("edit", "page:short", expect=1).stderr


def test_markdown_nested_beyond_the_depth_limit_builds_without_recursing(sqlite_cli, write_files, tmp_path):
    deep = {"quotes": "> " * 3000 + "deep", "lists": "".join("  " * i + "- x\n" for i in range(400)),
            "brackets": "[" * 5000 + "x" + "]" * 5000, "emphasis": "*a " * 5000}
    block = lambda text: "  title: T\n  body: |\n" + "".join(f"    {line}\n" for line in text.splitlines())  # noqa: E731
    files = {f"pages/{name}.yaml": f"kind: page\nslug: {name}\nhu:\n{block(text)}en:\n{block(text)}"
             for name, text in deep.items()}
    sqlite_cli("import", str(write_files(files)))
    out = tmp_path / "_site"
    sqlite_cli("build", "--out", str(out))
    for name in deep:
        page = (out / "en" / name / "index.html").read_bytes()
        html5lib.HTMLParser(strict=False).parse(page)
        assert len(page) < 2_000_000


@pytest.mark.parametrize(("text", "message"), [
    ("\x1f", "fuzz.yaml: malformed YAML"),
    ("kind: issue\nnumber: 3\nweek: {start: 2026-11-02, end: 2026-11-08}\n",
     "fuzz.yaml:1: status: required; expected one of draft, scheduled, published"),
])
def test_what_the_fuzzers_found_is_reported(text, message):
    with pytest.raises(ContentError) as caught:
        validate_text(text, "fuzz.yaml", LANGUAGES)
    assert any(str(d).startswith(message) for d in caught.value.diagnostics), caught.value.diagnostics


def test_a_file_changed_between_validation_and_storing_is_refused(write_files, monkeypatch):
    """A large import keeps records up to a budget of text, and past it only hashes, reading each such file
    again to store it: it must be the same file. A kept record is stored as it was validated."""
    from newsroom.content import reader

    folder = write_files({"pages/p.yaml": "kind: page\nslug: p\nen:\n  title: First\n"})
    (kept,) = reader.read_files([folder], LANGUAGES, keep=False)
    monkeypatch.setattr(reader, "KEEP_TEXT_BYTES", 10)  # the file is past it
    (item,) = reader.read_files([folder], LANGUAGES, keep=False)
    assert item.record["en"]["title"] == "First"
    (folder / "pages" / "p.yaml").write_text("kind: page\nslug: p\nen:\n  title: Second\n", encoding="utf-8")
    with pytest.raises(ContentError) as caught:
        item.record
    assert [str(d) for d in caught.value.diagnostics] == [
        f"{folder / 'pages' / 'p.yaml'}: the file changed while it was being imported; nothing was stored: "
        "run the import again"]
    assert kept.record["en"]["title"] == "First"
