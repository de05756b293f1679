"""Upgrading a publication an earlier release stored: its database, at the first schema with its content,
upgraded by `newsroom init`, then checked, built and mailed as the same content stored by this version."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, make_url
from conftest import Cli
from sitebuild import parse, text_of

from newsroom.cli import NOW_ENV
from newsroom.db.migrate import SCHEMA_REVISION, current_revision, upgrade

#: The rows the first schema (0001) held for the publication of `FILES`, as that release stored them.
OLD_PUBLICATION = Path(__file__).parent / "upgrade" / "publication-0001.sql"
#: Its tables with a generated id: PostgreSQL's counters are set past the rows given (as they stood).
WITH_IDS = ("vocabulary", "entries", "relations", "pages", "issues", "stories", "revisions")

#: The same publication as content files (the site file with the greeting the emails then had).
FILES = {
    "site.yaml": "kind: site\nhu: {name: Gépi Figyelő, tagline: Hetente, greeting: Kedves Olvasó!}\n"
                 "en: {name: Machine Watch, tagline: Weekly, greeting: 'Dear Reader,'}\n"
                 "sections: [{slug: research, hu: Kutatás, en: Research}]\n"
                 "categories: [{slug: models, hu: Modellek, en: Models}]\n",
    "pages/method.yaml": "kind: page\nslug: method\nhu: {title: Módszer, body: Kézzel írjuk.}\n"
                         "en: {title: Method, body: Written by hand.}\n",
    "entries/token.yaml": "kind: entry\nslug: token\ncategory: models\nlevel: basic\ntrend: mainstream\n"
                          "status: 2026-10\n"
                          "relations: {related: [context-window]}\n"
                          "sources: [{publisher: Example, title: Tokens, url: 'https://example.org/token'}]\n"
                          "hu: {headword: Token, definition: 'A szöveg egy darabja [1].'}\n"
                          "en: {headword: Token, definition: 'A piece of text [1].'}\n",
    "entries/context-window.yaml": "kind: entry\nslug: context-window\ncategory: models\nlevel: basic\n"
                                   "trend: mainstream\nstatus: 2026-10\n"
                                   "sources: [{publisher: Example, title: Windows, url: 'https://example.org/cw'}]\n"
                                   "hu: {headword: Kontextusablak, definition: 'Ennyi tokent lát a modell [1].'}\n"
                                   "en: {headword: Context window, definition: 'How many tokens a model sees [1].'}\n",
    "issues/0001.yaml": "kind: issue\nnumber: 1\nweek: {start: 2026-11-02, end: 2026-11-08}\nstatus: published\n"
                        "published_at: 2026-11-09T07:00:00+01:00\n"
                        "hu: {title: Az első szám, lead: Az első heti válogatás.}\n"
                        "en: {title: The first issue, lead: The first week's picks.}\n",
    "stories/i1-longer-context.yaml": "kind: story\nslug: i1-longer-context\nissue: 1\nsection: research\nposition: 1\n"
                                      "terms: [context-window]\n"
                                      "sources: [{publisher: Wire, title: Longer, url: 'https://example.com/1'}]\n"
                                      "hu: {headline: Hosszabb kontextus, summary: 'Több token fér el [1].'}\n"
                                      "en: {headline: Longer context, summary: 'More tokens fit [1].'}\n",
}
#: When the publication was stored, and when its published story was corrected (`story edit` below).
STORED, CORRECTED = "2026-11-10T09:00:00+01:00", "2026-11-11T09:00:00+01:00"


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _old_database(url: str) -> None:
    """A database as the first release left it: its schema (0001), its publication's rows."""
    engine = create_engine(url)
    upgrade(engine, "0001")
    with engine.begin() as connection:
        for statement in OLD_PUBLICATION.read_text(encoding="utf-8").splitlines():
            if not statement.startswith("--"):
                connection.exec_driver_sql(statement)
        if connection.dialect.name == "postgresql":
            for table in WITH_IDS:
                connection.exec_driver_sql(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), max(id)) "
                                           f"FROM {table}")
    engine.dispose()


@pytest.fixture
def upgraded(databases, tmp_path, monkeypatch):
    """The first release's publication upgraded by `newsroom init`; what `init` said as `upgraded.said`."""
    work = tmp_path / "upgraded"
    work.mkdir()
    old = Cli(databases.new(), work)
    _old_database(old.db_url)
    monkeypatch.setenv(NOW_ENV, CORRECTED)
    old.said = old("init").stdout
    return old


def test_init_upgrades_the_first_schema_and_says_so(upgraded):
    """`init` said "database ready" alike for a new database, one at the newest schema and one it upgraded:
    it now says from which schema to which (and, on SQLite, where the copy it kept first is)."""
    kept = _kept(upgraded.db_url, "0001")
    copy = f"; the database as it was is kept in {kept}, which the earlier newsroom opens" if kept else ""
    assert upgraded.said.splitlines() == [f"database ready: {upgraded.db_url} (upgraded from schema 0001 to "
                                          f"{SCHEMA_REVISION}{copy})"]
    engine = create_engine(upgraded.db_url)
    assert current_revision(engine) == SCHEMA_REVISION
    engine.dispose()
    assert upgraded("init").stdout.splitlines() == [f"database ready: {upgraded.db_url}"]


def _kept(url: str, revision: str, number: str = "") -> Path | None:
    """Where `init` keeps a copy of the SQLite database of `url` at `revision` before upgrading it; None for
    another database."""
    database = make_url(url).database
    if make_url(url).get_backend_name() != "sqlite" or not database:
        return None
    return Path(database).with_name(f"{Path(database).stem}-{revision}{number}.db")


@pytest.mark.sqlite_only("the copy is SQLite's: another database is copied by its own tools (init --help)")
def test_init_keeps_a_copy_of_a_sqlite_database_before_upgrading_it(databases, tmp_path):
    """An upgrade cannot be taken back, and the earlier newsroom no longer opens the database: `init` upgraded
    it without a copy, which every other command's refusal of an older schema told the editor to keep. It keeps
    one beside the database before changing anything, the earlier newsroom's to open, never over a file there."""
    cli = Cli(databases.new(), tmp_path)
    _old_database(cli.db_url)
    engine = create_engine(cli.db_url)
    before = _rows(engine)
    engine.dispose()
    taken = _kept(cli.db_url, "0001")
    taken.write_bytes(b"an editor's own copy")
    said = cli("init").stdout
    kept = _kept(cli.db_url, "0001", "-2")
    assert f"(upgraded from schema 0001 to {SCHEMA_REVISION}; the database as it was is kept in {kept}, which the " \
           "earlier newsroom opens)" in said, said
    assert taken.read_bytes() == b"an editor's own copy"
    engine = create_engine(f"sqlite:///{kept}")
    assert current_revision(engine) == "0001" and _rows(engine) == before
    engine.dispose()
    assert cli("init").stdout.splitlines() == [f"database ready: {cli.db_url}"]  # nothing to upgrade: no copy
    assert {path.name for path in tmp_path.glob("*-0001*")} == {taken.name, kept.name}


@pytest.mark.sqlite_only("init keeps a SQLite database's copy: another's is kept by its own tools, the refusal "
                         "saying how (tests/test_start_up_errors.py runs that command)")
def test_a_command_refusing_an_older_schema_says_where_init_keeps_the_copy_and_init_keeps_it_there(databases,
                                                                                                   tmp_path):
    """The refusal told a SQLite editor to copy the database with sqlite3 first, although `init` keeps a copy
    itself: it says so, and where; the command it suggests, run, leaves the copy there."""
    cli = Cli(databases.new(), tmp_path)
    _old_database(cli.db_url)
    engine = create_engine(cli.db_url)
    before = _rows(engine)
    engine.dispose()
    refused = cli("export", "out", expect=1).stderr
    kept = _kept(cli.db_url, "0001")
    [command] = re.findall(r"run `(newsroom [^`]+)` to upgrade it", refused)
    assert f"; before upgrading, it keeps a copy of the database as it is, {kept}, which the earlier newsroom " \
           "opens" in refused, refused
    assert "sqlite3" not in refused and not kept.exists()
    cli(*shlex.split(command)[1:])
    engine = create_engine(f"sqlite:///{kept}")
    assert current_revision(engine) == "0001" and _rows(engine) == before
    engine.dispose()


def test_init_help_says_to_keep_a_copy_before_an_upgrade(cli):
    said = " ".join(cli("init", "--help").stdout.split())
    assert "An upgrade cannot be taken back: the earlier newsroom no longer opens the database." in said, said
    assert "keep a copy of another first (`pg_dump --format=custom --file=before.dump postgresql://…`)" in said


def test_an_upgraded_publication_builds_the_site_and_emails_a_fresh_one_of_its_content_builds(upgraded, databases,
                                                                                               tmp_path, write_files,
                                                                                               monkeypatch):
    """Every record keeps its texts through the migrations (SQLite copied `entries` and `pages` into new
    tables for 0010_drafts, and dropping the old ones deleted every entry's texts and relations and every
    page's texts with them), and the emails keep the greeting they had before it was the site file's."""
    assert upgraded("check").stdout == ""
    upgraded("build", "--quiet")
    fresh = Cli(databases.new("migrated"), tmp_path / "fresh")
    fresh.cwd.mkdir()
    monkeypatch.setenv(NOW_ENV, STORED)
    fresh("import", str(write_files(FILES)))
    monkeypatch.setenv(NOW_ENV, CORRECTED)
    fresh("story", "edit", "i1-longer-context", "--headline-en", "A longer context", "--correction", "--reason",
          "pontosabb cím", "--editor", "anna")
    fresh("build", "--quiet")

    page = text_of(parse(upgraded.cwd / "_site" / "en" / "glossary" / "token" / "index.html"))
    assert "A piece of text" in page and "Context window" in page, page
    assert "Written by hand." in text_of(parse(upgraded.cwd / "_site" / "en" / "method" / "index.html"))
    assert "Kedves Olvasó!" in (upgraded.cwd / "_email" / "hu" / "issue-1.txt").read_text(encoding="utf-8")
    for folder in ("_site", "_email"):
        assert _tree(upgraded.cwd / folder) == _tree(fresh.cwd / folder), folder
    upgraded("export", "out")
    assert "greeting: Dear Reader," in (upgraded.cwd / "out" / "site.yaml").read_text(encoding="utf-8")


def test_an_upgrade_stopped_midway_leaves_the_database_as_it_was_and_init_then_upgrades_it(databases, tmp_path):
    """The migrations run in one transaction: one of them failing after the others ran (as a process killed
    there) leaves the first schema with every row, and the next `init` upgrades it."""
    cli = Cli(databases.new(), tmp_path)
    _old_database(cli.db_url)
    engine = create_engine(cli.db_url)
    with engine.begin() as connection:  # in the way of 0010_drafts, the ninth migration
        connection.exec_driver_sql("ALTER TABLE entries ADD COLUMN draft INTEGER")
    before = _rows(engine)
    with pytest.raises(Exception):  # PostgreSQL: the column exists; SQLite: a copy of the table would have it twice
        upgrade(engine)
    assert current_revision(engine) == "0001"
    assert _rows(engine) == before
    assert "formerly" not in {column["name"] for column in inspect(engine).get_columns("stories")}  # 0009's
    with engine.begin() as connection:
        connection.exec_driver_sql("ALTER TABLE entries DROP COLUMN draft")
    engine.dispose()
    assert "(upgraded from schema 0001 to" in cli("init").stdout
    assert cli("check").stdout == ""


def _rows(engine) -> dict[str, int]:
    with engine.connect() as connection:
        return {table: connection.exec_driver_sql(f"SELECT count(*) FROM {table}").scalar()
                for table in ("entry_texts", "relations", "page_texts", "story_texts", "revisions")}


def test_texts_an_earlier_upgrade_lost_are_stored_again_by_importing_their_files(databases, tmp_path, write_files,
                                                                                  monkeypatch):
    """A SQLite database an earlier release upgraded through 0010_drafts lost every entry's texts and relations
    and every page's texts; importing the export made before the upgrade found each file "unchanged" (the
    record kept the hash of what it held) and stored nothing, `--force` too. After `init` it stores them."""
    cli = Cli(databases.new(), tmp_path)
    _old_database(cli.db_url)
    engine = create_engine(cli.db_url)
    upgrade(engine, "0012_reason_lang")
    with engine.begin() as connection:  # what dropping the old tables deleted with them
        for table in ("entry_texts", "relations", "page_texts"):
            connection.exec_driver_sql(f"DELETE FROM {table}")
    engine.dispose()
    monkeypatch.setenv(NOW_ENV, CORRECTED)
    cli("init")
    said = cli("check", expect=1).stderr
    # Said alike on PostgreSQL, whose upgrade lost nothing: "this SQLite database" named no database of its own.
    assert ("entry:token: its texts in every language are missing from the database (an earlier newsroom's "
            "upgrade of a SQLite database through schema 0010 deleted them, an entry's relations too): import its "
            "file from an export made while it had them (`newsroom import DIR`), which stores it again"
            ) in said.splitlines(), said
    assert "page:method: its texts in every language are missing" in said and "required in every" not in said
    export = {**FILES, "stories/i1-longer-context.yaml": FILES["stories/i1-longer-context.yaml"].replace(
        "headline: Longer context", "headline: A longer context")}  # as corrected
    assert cli("import", str(write_files(export))).stdout.startswith("0 created, 3 updated")  # 2 entries, a page
    assert cli("check").stdout == ""
    cli("build", "--quiet")
    page = text_of(parse(cli.cwd / "_site" / "en" / "glossary" / "token" / "index.html"))
    assert "A piece of text" in page and "Context window" in page, page
    assert "Written by hand." in text_of(parse(cli.cwd / "_site" / "en" / "method" / "index.html"))
