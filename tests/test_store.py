"""The content store: migrations, import/export round trip, idempotent import."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from click.testing import CliRunner
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect
from sitebuild import OWN_SITE

from newsroom.db.base import Base
from newsroom.cli import main
from newsroom import SAMPLE_DIR
from newsroom.db.migrate import SCHEMA_REVISION, current_revision, head_revision, upgrade
from newsroom.db.session import ENV_VAR
from newsroom.models import register_all


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_init_migrates_an_empty_database_and_is_repeatable(cli):
    cli("init")
    cli("init")
    engine = create_engine(cli.db_url)
    tables = set(inspect(engine).get_table_names())
    assert {"entries", "entry_texts", "relations", "issues", "stories", "story_texts", "pages", "page_texts",
            "vocabulary", "vocabulary_names", "site_texts", "revisions", "alembic_version"} <= tables
    engine.dispose()


def test_init_without_the_sample_says_what_a_new_publication_needs_next(cli, write_files):
    """`init` said "database ready" and nothing more: the next command a new team ran, `build`, made an
    empty site. It now says what to write first, until a site file is stored."""
    next_step = ("no publication here yet: write site.yaml and pages/method.yaml, then `newsroom import site.yaml "
                 "pages/` (README, \"A publication of your own\"); or load the sample: `newsroom init --sample`")
    assert cli("init").stdout.splitlines() == [f"database ready: {cli.db_url}", next_step]
    cli("import", str(write_files(OWN_SITE)))
    assert cli("init").stdout.splitlines() == [f"database ready: {cli.db_url}"]


def test_models_and_migrations_agree(db_url):
    """The schema the migrations build is the schema the models describe."""
    engine = create_engine(db_url)
    upgrade(engine)
    register_all()
    with engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection, opts={"compare_type": True}), Base.metadata)
    engine.dispose()
    assert diff == []


def test_a_database_made_by_the_first_version_upgrades(cli):
    engine = create_engine(cli.db_url)
    upgrade(engine, "0001")
    engine.dispose()
    result = cli("init")
    assert "database ready" in result.stdout
    engine = create_engine(cli.db_url)
    with engine.connect() as connection:
        assert MigrationContext.configure(connection).get_current_revision() == head_revision()
    engine.dispose()


def test_commands_refuse_an_uninitialised_database(cli):
    engine = create_engine(cli.db_url)
    engine.connect().close()  # the database exists (SQLite: an empty file) but holds no schema
    engine.dispose()
    result = cli("check", expect=1)
    assert "run `newsroom init` first" in result.stderr


def test_a_command_where_there_is_no_database_names_it_and_creates_none(tmp_path, monkeypatch):
    """The default database is ./newsroom.db: a command run in the wrong folder says so and leaves no
    empty database file there (which would then be "empty: run `newsroom init`"); `init` creates it."""
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    for command in (["check"], ["build"], ["export", "out"], ["import", str(SAMPLE_DIR)], ["history", "gpu"],
                    ["glossary", "list"], ["issue", "new"], ["issue", "show", "1"], ["edit", "gpu"]):
        result = runner.invoke(main, command)
        assert result.exit_code == 1, (command, result.output)
        assert f"there is no database {tmp_path / 'newsroom.db'}: run `newsroom init`" in result.stderr, command
        assert list(tmp_path.iterdir()) == [], command
    assert runner.invoke(main, ["init", "--sample"]).exit_code == 0
    assert runner.invoke(main, ["check"]).exit_code == 0
    assert (tmp_path / "newsroom.db").stat().st_size > 0


def test_the_schema_the_code_needs_is_the_newest_migration(db_url):
    """Commands check the schema without loading Alembic: the revision they expect is its head."""
    assert SCHEMA_REVISION == head_revision()
    engine = create_engine(db_url)
    assert current_revision(engine) is None
    upgrade(engine)
    assert current_revision(engine) == SCHEMA_REVISION
    engine.dispose()


@pytest.mark.usefixtures("public_address")  # check names the content's problems alone
def test_commands_refuse_a_database_at_an_older_schema_and_init_upgrades_it(cli):
    engine = create_engine(cli.db_url)
    upgrade(engine, "0001")
    engine.dispose()
    result = cli("check", expect=1)
    assert f"is at schema 0001, this version needs {SCHEMA_REVISION}: run `newsroom init`" in result.stderr
    cli("init")
    said = cli("check", expect=1).stderr  # the content's problem now, a database with no site file yet
    assert "schema" not in said and said.startswith("site: no site file is stored")


def test_sample_loads_with_counts(cli):
    result = cli("init", "--sample")
    created = int(result.stdout.split("sample publication: ")[1].split(" created")[0])
    assert created >= 1 + 13 + 2 + 4 + 32  # site, entries, pages, issues, stories


def test_init_sample_again_keeps_what_editors_changed_or_deleted(sample_cli):
    """The README's first command run again over the sample an editor has tried: every record the editor
    changed (a published issue's story corrected, an entry edited, the site file's tagline) or deleted stays so; it reverted them
    without a word (and was refused over a correction). The rest is the sample's."""
    sample_cli("story", "edit", "i13-vllm-trainium-backend", "--headline-en", "vLLM runs on Trainium",
               "--correction", "--reason", "corrected")
    sample_cli("edit", "entry:gpu", "--set", "en.headword=GPU (edited)")
    sample_cli("delete", "story:i13-aws-trainium3-capacity", "--correction", "--reason", "a duplicate")
    site = sample_cli.cwd / "site.yaml"
    site.write_text((SAMPLE_DIR / "site.yaml").read_text(encoding="utf-8").replace(
        "tagline: News of the AI era, curated weekly", "tagline: Weekly, by hand"), encoding="utf-8")
    sample_cli("import", str(site))
    said = sample_cli("init", "--sample").stdout.splitlines()[-1]
    assert said == ("sample publication: 0 created, 0 updated, 55 unchanged, 3 kept (newer in the database), "
                    "1 left out (deleted in the database since the export)")
    assert "vLLM runs on Trainium" in sample_cli("edit", "story:i13-vllm-trainium-backend").stdout
    assert "GPU (edited)" in sample_cli("edit", "entry:gpu").stdout
    sample_cli("export", str(sample_cli.cwd / "now"))
    assert "tagline: Weekly, by hand" in (sample_cli.cwd / "now" / "site.yaml").read_text(encoding="utf-8")
    assert "no story 'i13-aws-trainium3-capacity'" in sample_cli("edit", "story:i13-aws-trainium3-capacity",
                                                                  expect=1).stderr


def test_importing_the_same_files_twice_changes_nothing(sample_cli):
    from newsroom import SAMPLE_DIR

    result = sample_cli("import", str(SAMPLE_DIR))
    assert result.stdout.strip().startswith("0 created, 0 updated, ")
    assert "unchanged" in result.stdout


def test_text_in_decomposed_unicode_is_stored_composed(sample_cli, tmp_path):
    """A file saved in NFD (macOS names, some editors: "ő" as "o" and a combining double acute) holds the
    same text as the sample's NFC file: no change; a new one is stored composed (NFC, as the web wants)."""
    import unicodedata

    source = (SAMPLE_DIR / "entries" / "data-center.yaml").read_text(encoding="utf-8")
    decomposed = tmp_path / "data-center.yaml"
    decomposed.write_text(unicodedata.normalize("NFD", source), encoding="utf-8")
    assert decomposed.read_text(encoding="utf-8") != source
    assert sample_cli("import", str(decomposed)).stdout.strip() == "0 created, 0 updated, 1 unchanged"
    renamed = unicodedata.normalize("NFD", source.replace("slug: data-center", "slug: data-centre"))
    decomposed.write_text(renamed, encoding="utf-8")
    sample_cli("import", str(decomposed))
    shown = sample_cli("edit", "entry:data-centre").stdout
    assert "adatközpont" in shown and unicodedata.is_normalized("NFC", shown)


def test_a_text_field_is_one_line_and_markdown_keeps_its_paragraphs(sample_cli, tmp_path):
    """A title, headline or definition is one paragraph: a line break given on the command line or kept by a
    `|` block would reach a feed's title or an email's Subject as one, so it is stored as a space; a
    Markdown field keeps its lines."""
    import feedparser

    sample_cli("issue", "new")
    sample_cli("story", "add", "14", "--section", "money", "--headline-hu", "Első\n  sor",
               "--headline-en", "First\r\nline\u2028too", "--summary-hu", "Egy.\n\nKettő.", "--summary-en", "S",
               "--slug", "breaks", "--source-url", "https://example.com/a")
    shown = sample_cli("edit", "story:breaks").stdout
    assert "headline: Első sor" in shown and "headline: First line too" in shown
    assert "summary: |\n    Egy.\n\n    Kettő.\n" in shown
    source = (SAMPLE_DIR / "entries" / "data-center.yaml").read_text(encoding="utf-8")
    entry = tmp_path / "data-center.yaml"
    entry.write_text(source.replace("slug: data-center", "slug: data-centre").replace(
        "  headword: Data center\n", "  headword: |\n    Data\n    center\n"), encoding="utf-8")
    sample_cli("import", str(entry))
    assert "headword: Data center\n" in sample_cli("edit", "entry:data-centre").stdout
    sample_cli("issue", "edit", "14", "--title-hu", "Cím", "--title-en", "A\ntitle")
    sample_cli("issue", "publish", "14")
    sample_cli("build", "--out", str(tmp_path / "site"))
    feeds = tmp_path / "site" / "en" / "feeds"
    assert feedparser.parse((feeds / "issues.atom").read_bytes()).entries[0].title == "A title"
    assert feedparser.parse((feeds / "section-money.atom").read_bytes()).entries[0].title == "First line too"


def test_export_import_export_is_byte_identical(sample_cli, tmp_path, databases):
    first, second = tmp_path / "first", tmp_path / "second"
    sample_cli("export", str(first))
    fresh = type(sample_cli)(databases.new(), sample_cli.cwd)
    fresh("init")
    result = fresh("import", str(first))
    assert " 0 updated, 0 unchanged" in result.stdout
    fresh("export", str(second))
    assert _tree(first) == _tree(second)
    again = fresh("import", str(second))
    assert again.stdout.startswith("0 created, 0 updated")


def test_an_export_is_one_state_whatever_is_committed_meanwhile(sample_cli, tmp_path, monkeypatch):
    """A backup made while an editor's edit commits holds the records as they were before it, all of
    them, or after it: never some of each. Here the edit commits once the export has begun writing."""
    from newsroom.content import exporter

    out, edited = tmp_path / "export", []
    canonical = exporter.canonical

    def edit_once_begun(*args, **kwargs):
        if not edited:
            edited.append(sample_cli("story", "edit", "i10-ai-designed-pet-enzymes", "--headline-en",
                                     "Committed meanwhile", "--correction", "--reason", "typo"))
        return canonical(*args, **kwargs)

    monkeypatch.setattr(exporter, "canonical", edit_once_begun)
    sample_cli("export", str(out))
    monkeypatch.undo()
    story = (out / "stories" / "i10-ai-designed-pet-enzymes.yaml").read_text(encoding="utf-8")
    assert edited and "Committed meanwhile" not in story
    sample_cli("export", str(out))
    story = (out / "stories" / "i10-ai-designed-pet-enzymes.yaml").read_text(encoding="utf-8")
    assert "Committed meanwhile" in story


def test_an_edit_updates_one_record_and_keeps_a_revision(sample_cli, tmp_path):
    out = tmp_path / "export"
    sample_cli("export", str(out))
    path = out / "entries" / "trainium.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("level: advanced", "level: intermediate"), encoding="utf-8")
    result = sample_cli("import", str(out))
    assert result.stdout.startswith("0 created, 1 updated")
    engine = create_engine(sample_cli.db_url)
    with engine.connect() as connection:
        rows = connection.exec_driver_sql(
            "SELECT record_key, changed_fields FROM revisions WHERE record_kind = 'entry' AND version > 0").all()
    engine.dispose()
    assert rows[0][0] == "trainium"
    assert "level" in str(rows[0][1])


def test_the_build_reads_the_records_the_export_makes(sample_cli):
    """A build reads the stored rows as plain rows, not ORM objects (newsroom/build/model.py): its records
    are those the export makes from the ORM's objects, field for field and in the same order (texts by
    language, relations by position), whether it reads every row or, knowing the rest, a changed one."""
    from sqlalchemy import text
    from sqlalchemy.orm import Session

    from newsroom.build.model import load_content
    from newsroom.build.memos import Memo
    from newsroom.content.exporter import exported_files

    def exported(session: Session) -> dict[str, str]:
        return {path: repr(record) for path, record, _ in exported_files(session, ("hu", "en")) if path != "site.yaml"}

    def read(session: Session, memo: Memo) -> dict[str, str]:
        content = load_content(session, memo)
        records = [*content.entries.values(), *content.pages.values(), *content.issues.values(),
                   *content.stories.values()]
        folders = {"entry": "entries", "reference": "reference", "page": "pages", "story": "stories"}
        return {f"issues/{int(r.key):04d}.yaml" if r.kind == "issue" else f"{folders[r.kind]}/{r.key}.yaml": repr(r.data)
                for r in records}

    engine = create_engine(sample_cli.db_url)
    memo = Memo()
    with Session(engine) as session:
        assert read(session, memo) == exported(session)
        assert any("relations" in record and "'broader': ['" in record for record in exported(session).values())
    with Session(engine) as session, session.begin():  # changed ones are read by their ids, the rest remembered
        session.execute(text("UPDATE story_texts SET headline = 'Changed' WHERE lang = 'en' AND story_id = "
                             "(SELECT min(id) FROM stories)"))
        session.execute(text("UPDATE stories SET version = version + 1 WHERE id = (SELECT min(id) FROM stories)"))
        # An entry's relations in the reverse order of their rows: the records follow their positions.
        entry = session.execute(text("SELECT entry_id FROM relations GROUP BY entry_id HAVING count(*) > 2 "
                                     "ORDER BY entry_id")).scalars().first()
        session.execute(text("UPDATE relations SET position = -position WHERE entry_id = :entry"), {"entry": entry})
        session.execute(text("UPDATE entries SET version = version + 1 WHERE id = :entry"), {"entry": entry})
    with Session(engine) as session:
        assert read(session, memo) == exported(session)
        assert any("'Changed'" in record for record in exported(session).values())
    with Session(engine) as session:
        assert read(session, Memo()) == exported(session)  # every row read again
    engine.dispose()


def test_an_import_asks_the_database_a_number_of_times_that_does_not_grow_with_its_files(sample_cli, tmp_path):
    """No query per file: an import asks for the stored records' hashes a kind at a time (a re-import of the
    ten-year benchmark archive asked 25,867 times, each record with its texts and relations)."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    out = tmp_path / "out"
    sample_cli("issue", "new")
    story = (out / "stories" / "i13-aws-trainium3-capacity.yaml")
    statements: list[str] = []

    def note(*args: object) -> None:
        statements.append(str(args[2]))

    def queries(*args: str) -> tuple[str, int]:
        statements.clear()
        event.listen(Engine, "before_cursor_execute", note)
        try:
            summary = sample_cli(*args).stdout.strip()
        finally:
            event.remove(Engine, "before_cursor_execute", note)
        return summary, len(statements)

    sample_cli("export", str(out))
    few = queries("import", str(out))
    text = story.read_text(encoding="utf-8").replace("issue: 13", "issue: 14")
    for n in range(1, 41):
        (out / "stories" / f"more-{n}.yaml").write_text(text.replace(
            "slug: i13-aws-trainium3-capacity", f"slug: more-{n}").replace("position: 1", f"position: {n}"),
            encoding="utf-8")
    assert queries("import", str(out))[0] == "40 created, 0 updated, 60 unchanged"
    many = queries("import", str(out))
    assert few[0] == "0 created, 0 updated, 60 unchanged" and many[0] == "0 created, 0 updated, 100 unchanged"
    assert few[1] == many[1] < 60, (few, many)  # fewer than its files
