"""Concurrent editors: optimistic locking on `version`, import conflicts, and kept revisions.

Two editors are two real connections (two engines) to the same database,
interleaved step by step, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import yaml
from psycopg import errors as pg_errors
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError

from newsroom import editing
from newsroom.db.session import busy, make_engine, transaction

LANGUAGES = ("hu", "en")
NOW = dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.timezone.utc)


@pytest.fixture
def editors(sample_cli) -> tuple[Engine, Engine]:
    """Two independent connections to one database holding the sample."""
    first, second = make_engine(sample_cli.db_url), make_engine(sample_cli.db_url)
    yield first, second
    first.dispose()
    second.dispose()


def _load(engine: Engine, kind: str, key: str) -> editing.Loaded:
    with transaction(engine) as session:
        return editing.load(session, kind, key, LANGUAGES)


def _save(engine: Engine, loaded: editing.Loaded, field: str, value: object, author: str) -> int:
    with transaction(engine) as session:
        return editing.save(session, loaded, editing.assign(loaded.record, field, value), LANGUAGES, NOW, author)


def test_the_second_of_two_editors_gets_a_conflict_naming_the_changed_fields(editors):
    anna, bela = editors
    annas = _load(anna, "entry", "trainium")
    belas = _load(bela, "entry", "trainium")
    assert annas.version == belas.version == 1
    assert _save(bela, belas, "level", "basic", "bela") == 2
    with pytest.raises(editing.Conflict) as caught:
        _save(anna, annas, "en.headword", "Trainium (Anna)", "anna")
    conflict = caught.value
    assert (conflict.expected, conflict.current, conflict.changed, conflict.changed_by) == (1, 2, ["level"], "bela")
    assert "you started from version 1, it is now version 2 (last change by bela); changed since: level" in str(conflict)
    stored = _load(anna, "entry", "trainium")
    assert stored.version == 2 and stored.record["level"] == "basic"
    assert stored.record["en"]["headword"] != "Trainium (Anna)"


def test_a_change_committed_inside_the_other_editors_open_transaction_is_not_overwritten(editors):
    """The database's own check (UPDATE … WHERE version = n) catches what the version comparison cannot."""
    anna, bela = editors
    with transaction(anna) as annas_session:
        annas = editing.load(annas_session, "story", "i13-anthropic-rainier-expansion", LANGUAGES)
        belas = _load(bela, "story", "i13-anthropic-rainier-expansion")
        _save(bela, belas, "en.headline", "Bela's headline", "bela")
        with pytest.raises(editing.Conflict):
            editing.save(annas_session, annas, editing.assign(annas.record, "en.headline", "Anna's headline"),
                         LANGUAGES, NOW, "anna")
        annas_session.rollback()
    stored = _load(bela, "story", "i13-anthropic-rainier-expansion")
    assert stored.record["en"]["headline"] == "Bela's headline" and stored.version == 2


@pytest.mark.parametrize(("kind", "key", "field", "value"), [
    ("entry", "gpu", "trend", "fading"),
    ("story", "i13-anthropic-rainier-expansion", "tags", ["chips"]),
    ("reference", "trainium", "hu.title", "Trainium – új cím"),
    ("page", "method", "en.title", "How we work"),
    ("issue", "13", "en.title", "A new title"),
])
def test_every_kind_saves_a_new_version_and_keeps_the_previous_one(editors, kind, key, field, value):
    anna, _ = editors
    before = _load(anna, kind, key)
    assert _save(anna, before, field, value, "anna") == before.version + 1
    with transaction(anna) as session:
        kept = editing.history(session, kind, key)
    assert [(r.version, r.snapshot, r.changed_by, r.changed_fields) for r in kept if r.version > 0] == [
        (before.version, before.record, "anna", [field])]


def test_an_invalid_edit_is_refused_and_stores_nothing(editors):
    from newsroom.diagnostics import ContentError

    anna, _ = editors
    loaded = _load(anna, "entry", "trainium")
    with pytest.raises(ContentError) as caught:
        _save(anna, loaded, "level", "weird", "anna")
    assert [str(d) for d in caught.value.diagnostics] == [
        "entry:trainium: level: expected one of basic, intermediate, advanced, got 'weird'"]
    assert _load(anna, "entry", "trainium") == loaded


def test_cli_edit_refuses_a_stale_expected_version(sample_cli):
    shown = sample_cli("edit", "entry:trainium")
    assert shown.stdout.startswith("# entry trainium, version 1\nkind: entry\n")
    assert sample_cli("edit", "entry:trainium", "--set", "level=basic", "--expect-version", "1").stdout == (
        "entry trainium: saved as version 2\n")
    result = sample_cli("edit", "entry:trainium", "--set", "en.headword=Mine", "--expect-version", "1", expect=1)
    assert "entry 'trainium': you started from version 1, it is now version 2" in result.stderr
    assert "changed since: level" in result.stderr
    result = sample_cli("edit", "trainium", "--set", "level=basic", expect=1)
    assert "'trainium' names an entry and a reference: say which, as entry:trainium or with --kind" in result.stderr


def test_history_lists_versions_and_shows_an_old_one(sample_cli, tmp_path):
    out = tmp_path / "export"
    sample_cli("export", str(out))
    original = (out / "issues" / "0013.yaml").read_text(encoding="utf-8")
    # Issue 13 is published:
    sample_cli("edit", "13", "--set", "en.title=Second title", "--correction", "--reason", "a better title")
    sample_cli("edit", "issue:13", "--set", "en.title=Third title", "--set", "hu.title=Harmadik cím", "--correction",
               "--reason", "better still")
    listing = sample_cli("history", "13").stdout.splitlines()
    assert listing[0] == "issue 13: version 3 is current"
    assert listing[1].startswith("  version 3  ") and listing[1].endswith("changed: en.title, hu.title — better still")
    assert listing[2].startswith("  version 2  ") and listing[2].endswith("changed: en.title — a better title")
    assert listing[3].startswith("  version 1  ") and listing[3].endswith("  import  changed: created")
    assert len(listing) == 4
    assert sample_cli("history", "13", "--show", "1").stdout == original
    assert yaml.safe_load(sample_cli("history", "13", "--show", "3").stdout)["en"]["title"] == "Third title"
    assert "has no version 9; kept: 1, 2, 3" in sample_cli("history", "13", "--show", "9", expect=1).stderr


@pytest.mark.sqlite_only("the listing is the same on either database")
def test_history_lists_a_record_made_again_after_its_deletion_at_the_version_it_got(sample_cli, tmp_path):
    """A published issue's story deleted and brought back: the "created" line said version 1 and came before
    the deletion; it is version 2, after it, and `--show 1` still prints the deleted record."""
    slug = "i13-coding-agents-workday-tasks"
    sample_cli("delete", f"story:{slug}", "--correction", "--reason", "dup")
    (tmp_path / "r.yaml").write_text(sample_cli("history", f"story:{slug}", "--show", "1").stdout, encoding="utf-8")
    sample_cli("import", str(tmp_path / "r.yaml"), "--correction", "--reason", "back")
    listing = sample_cli("history", f"story:{slug}").stdout.splitlines()
    assert listing[0] == f"story {slug}: version 2 is current"
    assert listing[1].startswith("  version 2  ") and listing[1].endswith("import  changed: created — back")
    assert listing[2].startswith("  deleted    ") and listing[2].endswith(
        "(dup); it was version 1, version 2 was made again under its key")
    assert listing[3].startswith("  version 1  ") and listing[3].endswith("  import  changed: created")
    assert len(listing) == 4
    assert yaml.safe_load(sample_cli("history", f"story:{slug}", "--show", "1").stdout)["slug"] == slug


def _edit_file(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_import_refuses_a_file_whose_record_changed_since_export_and_stores_nothing(sample_cli, tmp_path):
    out = tmp_path / "export"
    sample_cli("export", str(out))
    sample_cli("edit", "entry:trainium", "--set", "level=basic")  # a colleague, after the export
    _edit_file(out / "entries" / "trainium.yaml", "trend: spreading", "trend: fading")  # and an editor, offline
    _edit_file(out / "entries" / "gpu.yaml", "level: basic", "level: intermediate")  # unrelated, fine alone
    result = sample_cli("import", str(out), expect=1)
    path = out / "entries" / "trainium.yaml"
    assert result.stderr == (
        f"{path}: entry 'trainium' changed in the database since this file was exported (version 1, now 2): level; "
        "the file was edited too, so importing it would overwrite that change. Export again and reapply your edit "
        "(see `newsroom history entry:trainium`)\n1 error; nothing was changed\n")
    assert "level: basic" in sample_cli("edit", "entry:gpu").stdout  # the rest of the run was not stored either
    forced = sample_cli("import", "--force", str(out))
    assert forced.stdout.startswith("0 created, 2 updated")


def test_an_untouched_stale_file_keeps_the_newer_database_version(sample_cli, tmp_path):
    out = tmp_path / "export"
    sample_cli("export", str(out))
    sample_cli("edit", "entry:trainium", "--set", "level=basic")
    _edit_file(out / "entries" / "gpu.yaml", "level: basic", "level: intermediate")
    result = sample_cli("import", str(out))
    assert result.stdout.startswith("0 created, 1 updated, ") and result.stdout.endswith(
        ", 1 kept (newer in the database)\n")
    assert "level: basic" in sample_cli("edit", "entry:trainium").stdout
    assert "level: intermediate" in sample_cli("edit", "entry:gpu").stdout


@pytest.mark.sqlite_only("comparing the site file's hashes is the same on either database")
def test_the_site_file_of_an_export_does_not_revert_a_colleague_s_change_to_it(sample_cli, tmp_path):
    """The site file has no versions, and an export's was imported over whatever the database held since: a
    colleague's new tagline went back without a word. Its hash in the manifest is the common ancestor."""
    out, theirs = tmp_path / "export", tmp_path / "theirs"
    sample_cli("export", str(out))
    sample_cli("export", str(theirs))
    _edit_file(theirs / "site.yaml", "tagline: News of the AI era, curated weekly", "tagline: Weekly, by hand")
    sample_cli("import", str(theirs / "site.yaml"))  # a colleague, after the export
    _edit_file(out / "entries" / "gpu.yaml", "level: basic", "level: intermediate")
    assert sample_cli("import", str(out)).stdout.startswith("0 created, 1 updated, ")
    sample_cli("export", str(tmp_path / "now"))
    assert "tagline: Weekly, by hand" in (tmp_path / "now" / "site.yaml").read_text(encoding="utf-8")

    _edit_file(out / "site.yaml", "name: News of the AI era", "name: AI era news")  # and an editor, offline
    refused = sample_cli("import", str(out), expect=1).stderr
    assert refused == (
        f"{out / 'site.yaml'}: the site file changed in the database since this file was exported, and the file "
        "was edited too, so importing it would overwrite that change. Export again and reapply your edit "
        "(`--force` stores this file as it is)\n1 error; nothing was changed\n")
    sample_cli("import", "--force", str(out / "site.yaml"))
    sample_cli("export", str(tmp_path / "now"))
    assert "name: AI era news" in (tmp_path / "now" / "site.yaml").read_text(encoding="utf-8")


@pytest.mark.sqlite_only("reading the manifest is the same on either database")
@pytest.mark.parametrize("damage, says", [
    ("<<<<<<< HEAD\n", ":1: damaged export manifest: it is not JSON (Expecting value, column 1)"),
    ('{"format": 1, "records": {"entries/gpu.yaml": {"kind": "entry"', ":1: damaged export manifest: it is not JSON"),
    ("[]", ": damaged export manifest: it is not an export manifest of format 1"),
    ('{"format": 1, "records": {"entries/gpu.yaml": {"kind": "entry"}}}',
     ": damaged export manifest: a record in it lacks its kind, key, version or hash"),
])
def test_a_damaged_manifest_is_refused_not_taken_for_none(sample_cli, tmp_path, damage, says):
    """Cut short, a merge's conflict markers, another shape: importing as if there were no manifest overwrote a
    colleague's change made since the export without a word. The import stops, saying so; an export writes a
    new one."""
    out = tmp_path / "export"
    sample_cli("export", str(out))
    sample_cli("edit", "entry:ai-chip", "--set", "en.headword=AI chip (colleague)")
    (out / ".newsroom-export.json").write_text(damage, encoding="utf-8")
    refused = sample_cli("import", str(out), expect=1).stderr.splitlines()
    assert refused[0].startswith(f"{out / '.newsroom-export.json'}{says}"), refused
    assert "export again and make your edits there" in refused[0] and refused[1] == "1 error; nothing was changed"
    assert "AI chip (colleague)" in sample_cli("edit", "entry:ai-chip").stdout
    sample_cli("export", str(out))
    assert sample_cli("import", str(out)).stdout.startswith("0 created, 0 updated")


@pytest.mark.sqlite_only("what edit says is the same on either database")
def test_an_edit_that_changes_nothing_says_so_and_a_kind_change_is_one_error(sample_cli):
    level = yaml.safe_load(sample_cli("edit", "entry:trainium").stdout)["level"]
    said = sample_cli("edit", "entry:trainium", "--set", f"level={level}").stdout
    assert said == "entry trainium: no change (version 1 stays)\n"
    refused = sample_cli("edit", "entry:trainium", "--set", "kind=story", expect=1).stderr
    assert refused == "entry:trainium: an edit cannot change a record's kind or key\n1 error; nothing was changed\n"


@pytest.mark.sqlite_only("what edit makes of a path is the same on either database")
def test_edit_sets_and_removes_an_item_of_a_list_by_its_index(sample_cli):
    """`sources[0].url=…` was taken for a field named "sources[0]" (unknown for an entry)."""
    sample_cli("edit", "entry:trainium", "--set", "sources[0].url=https://example.org/datasheet")
    record = yaml.safe_load(sample_cli("edit", "entry:trainium").stdout)
    assert record["sources"][0]["url"] == "https://example.org/datasheet"
    aliases = record["en"]["aliases"]
    sample_cli("edit", "entry:trainium", "--set", "en.aliases[0]=")
    assert yaml.safe_load(sample_cli("edit", "entry:trainium").stdout)["en"]["aliases"] == aliases[1:]
    count = len(record["sources"])
    refused = sample_cli("edit", "entry:trainium", "--set", "sources[9].url=https://example.org/", expect=2).stderr
    assert f"sources has {count} items (counted from 0): 'sources[9].url' names none of them" in refused
    refused = sample_cli("edit", "entry:trainium", "--set", "level[0]=basic", expect=2).stderr
    assert "level is no list here: 'level[0]' names an item of it" in refused


def test_cli_edit_reads_lists_and_numbers_but_keeps_text_as_typed(sample_cli):
    sample_cli("edit", "i13-anthropic-rainier-expansion", "--set", "en.headline=Chips: the week",
               "--set", "tags=[a, b]", "--set", "position=2", "--correction", "--reason", "corrected")
    record = yaml.safe_load(sample_cli("edit", "story:i13-anthropic-rainier-expansion").stdout)
    assert (record["en"]["headline"], record["tags"], record["position"]) == ("Chips: the week", ["a", "b"], 2)
    for value, says in (("tags=[a, b", "malformed YAML"), ("tags=[&x a, *x]", "no anchors"),
                        ("tags={a: 1, a: 2}", "duplicate key")):
        refused = sample_cli("edit", "i13-anthropic-rainier-expansion", "--set", value, "--correction", "--reason",
                             "corrected", expect=2)
        assert "not a valid YAML list or mapping" in refused.stderr and says in refused.stderr, refused.stderr


@pytest.mark.sqlite_only("reading a --set value does not depend on the database")
def test_cli_edit_reads_a_value_as_a_content_file_does(sample_cli):
    """`--set en.headline=007` stored '7', a tag `[2026-11-05]` was refused as a date and `[1.50]` stored '1.5',
    where a file gives the text as written; and of a mapping's keys written twice only the first was named."""
    story = "i13-anthropic-rainier-expansion"
    sample_cli("edit", story, "--set", "en.headline=007", "--set", "hu.headline=2026-11-05", "--set",
               "tags=[2026-11-05, 1.50, yes]", "--set", "sources[0].title=1.50", "--set", "position=0x02",
               "--correction", "--reason", "r")
    record = yaml.safe_load(sample_cli("edit", f"story:{story}").stdout)
    assert (record["en"]["headline"], record["hu"]["headline"], record["tags"], record["sources"][0]["title"],
            record["position"]) == ("007", "2026-11-05", ["2026-11-05", "1.50", "yes"], "1.50", 2)
    refused = sample_cli("edit", story, "--set", "tags={a: 1, a: 2, b: 1, b: 3}", "--correction", "--reason", "r",
                          expect=2).stderr
    assert ("'tags={a: 1, a: 2, b: 1, b: 3}': not a valid YAML list or mapping (a: duplicate key (also at line 1): "
            "keep one of them; b: duplicate key (also at line 1): keep one of them)") in " ".join(refused.split())


@pytest.mark.sqlite_only("what edit names is the same on either database")
def test_an_edit_names_what_it_sets_that_does_not_exist_with_its_other_problems(sample_cli):
    """An unknown category was named only once the edit's other values were right, as an import's was."""
    refused = sample_cli("edit", "entry:trainium", "--set", "category=nowhere", "--set", "level=expert", expect=1)
    assert refused.stderr.splitlines() == [
        "entry:trainium: category: unknown category 'nowhere'; known: business, infrastructure, methods, models, "
        "policy (the site file's `categories:` in site.yaml, changed by `newsroom import site.yaml`)",
        "entry:trainium: level: expected one of basic, intermediate, advanced, got 'expert'",
        "2 errors; nothing was changed",
    ]


def test_a_cli_edit_overtaken_by_another_editor_is_refused_cleanly(sample_cli, databases, monkeypatch):
    """`story edit` loses the race to a writer that does not take turns (an older release, a script): a
    clear message, exit 1, the other editor's change kept. Commands of this release take turns (see
    test_an_entry_deleted_while_another_editor_adds_a_term_naming_it_is_not_left_dangling)."""
    from sqlalchemy import text

    if databases.backend == "sqlite":
        pytest.skip("SQLite lets no other write in while a command changes the content: the command holds "
                    "the write lock from its start")

    import issues.stories

    real_write = issues.stories.write_story
    other = make_engine(sample_cli.db_url)

    def overtaken(session, story, record, *args, **kwargs):
        with other.begin() as connection:  # the other editor saves first
            connection.execute(text("UPDATE stories SET version = version + 1 WHERE slug = :slug"),
                               {"slug": story.slug})
        return real_write(session, story, record, *args, **kwargs)

    monkeypatch.setattr(issues.stories, "write_story", overtaken)
    slug = "i13-vllm-trainium-backend"
    result = sample_cli("story", "edit", slug, "--headline-en", "Mine", "--correction", "--reason", "typo",
                        expect=1)
    other.dispose()
    assert "another editor" in result.stderr and "nothing was changed" in result.stderr
    assert "Traceback" not in result.stderr
    with make_engine(sample_cli.db_url).connect() as connection:
        headline = connection.execute(text(
            "SELECT t.headline FROM story_texts t JOIN stories s ON s.id = t.story_id "
            "WHERE s.slug = :slug AND t.lang = 'en'"), {"slug": slug}).scalar_one()
    assert headline != "Mine"


def test_an_edit_that_would_stop_every_build_is_refused_and_one_that_fixes_some_is_not(sample_cli, write_files,
                                                                                      tmp_path):
    """`edit` stores no error that would stop every build of the site (a missing translation, a link to
    nothing): the record stays as it was. A record that has such errors already (imported so, with
    --no-check) may be edited to fix one of them, but not given another."""
    site = tmp_path / "site"
    refused = sample_cli("edit", "entry:gpu", "--set", "en.headword=", expect=1)
    assert "entry:gpu: en.headword: missing translation (present in hu)" in refused.stderr
    refused = sample_cli("edit", "entry:gpu", "--set", "en.definition=See [this](entry:no-such-entry).", expect=1)
    assert "entry:gpu: en.definition: link to a missing entry 'no-such-entry'" in refused.stderr
    assert sample_cli("history", "entry:gpu").stdout.startswith("entry gpu: version 1 is current")
    sample_cli("build", "--out", str(site))

    exported = tmp_path / "export"
    sample_cli("export", str(exported))
    record = yaml.safe_load((exported / "entries" / "gpu.yaml").read_text(encoding="utf-8"))
    record["en"]["definition"] = "See [one](entry:gone-one) and [two](entry:gone-two)."
    sample_cli("import", "--force", "--no-check", str(write_files({"gpu.yaml": yaml.safe_dump(record,
                                                                                           allow_unicode=True)})))
    assert sample_cli("build", "--out", str(site), expect=1).stderr.count("link to a missing entry") == 2
    refused = sample_cli("edit", "entry:gpu", "--set", "en.definition=See [three](entry:gone-three).", expect=1)
    assert "'gone-three'" in refused.stderr and "'gone-one'" not in refused.stderr
    sample_cli("edit", "entry:gpu", "--set", "en.definition=See [one](entry:gone-one) and [GPU](entry:gpu).")
    sample_cli("edit", "entry:gpu", "--set", "level=advanced")  # the error it still has is not this edit's
    sample_cli("edit", "entry:gpu", "--set", "en.definition=Graphics processor.")
    sample_cli("build", "--out", str(site))


def test_an_edit_of_a_published_issue_or_story_is_a_correction_that_keeps_it_publishable(sample_cli, monkeypatch):
    """As with `story edit` and `issue edit`: a published issue and its stories change only with
    --correction, listed with --editor and --reason among the issue's corrections; a draft changes freely."""
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-20T10:00:00+01:00")
    story = "story:i13-anthropic-rainier-expansion"
    refused = sample_cli("edit", story, "--set", "en.headline=Chips: the week", expect=1)
    assert "issue 13 is published; to change it, add --correction" in refused.stderr
    refused = sample_cli("edit", "13", "--set", "en.lead=A new lead.", expect=1)
    assert "issue 13 is published; to change it, add --correction" in refused.stderr
    assert sample_cli("issue", "corrections", "13").stdout.strip() == "issue 13: no corrections"
    # A story moved out of a published issue changes that issue too.
    refused = sample_cli("edit", "story:i12-aws-q3-trainium-growth", "--set", "issue=13", expect=1)
    assert "issue 12 is published" in refused.stderr or "issue 13 is published" in refused.stderr

    sample_cli("edit", story, "--set", "en.headline=Chips: the week", "--correction", "--reason", "a clearer headline",
               "--editor", "bela")
    listed = sample_cli("issue", "corrections", "13").stdout.strip().splitlines()
    assert listed[-1].endswith("bela  story:i13-anthropic-rainier-expansion  en.headline — a clearer headline")
    refused = sample_cli("edit", story, "--set", "en.summary=", "--correction", "--reason", "corrected", expect=1)
    assert f"{story}: en.summary: missing translation" in refused.stderr
    assert len(sample_cli("issue", "corrections", "13").stdout.strip().splitlines()) == len(listed)

    # Status and publication time change through the workflow only: an issue is never unpublished so.
    for assignment in ("status=draft", "published_at=2026-11-20T07:00:00+01:00"):
        refused = sample_cli("edit", "13", "--set", assignment, "--correction", "--reason", "corrected", expect=1)
        assert ("issue 13 was published at November 9, 2026, 7:00\u202fAM CET: its status and publication time stay, "
                "as its feeds and emails went out with them") in refused.stderr

    created = sample_cli("issue", "new", "--title-hu", "Tesztszám", "--title-en", "Test issue").stdout
    number = created.split()[1]  # "issue 14 created (draft): …"
    sample_cli("edit", number, "--set", "en.title=", "--set", "hu.lead=Csak magyarul.")  # a draft: work in progress
    refused = sample_cli("edit", number, "--set", "status=published", expect=1).stderr
    assert f"status: issue {number} is a draft: `newsroom issue schedule {number} --at TIME` schedules it" in refused


def test_a_command_that_changes_the_content_waits_its_turn_then_gives_up_cleanly(sample_cli, monkeypatch):
    """While another command changes the content, a second one waits as long as a command waits for any
    write, then stops with a message and stores nothing, on either database (PostgreSQL's advisory lock
    waited for ever)."""
    from newsroom.db import session as db_session

    monkeypatch.setattr(db_session, "BUSY_TIMEOUT_MS", 300)  # how long a command started now waits
    engine = make_engine(sample_cli.db_url)
    before = sample_cli("edit", "entry:gpu").stdout
    with db_session.writing(engine):  # another command's change under way
        refused = sample_cli("edit", "entry:gpu", "--set", "en.definition=Mine.", expect=1).stderr
    engine.dispose()
    assert "another command (an import, an edit, a build) was writing to the database; nothing was stored" \
        in refused, refused
    assert "Traceback" not in refused
    assert sample_cli("edit", "entry:gpu").stdout == before


def test_wait_lets_a_command_wait_longer_for_its_turn(sample_cli):
    """`newsroom --wait SECONDS` (or $NEWSROOM_WAIT) sets how long a command waits for another's change: a
    long import or build need not make a colleague's edit fail after the default 5 s."""
    import threading

    from newsroom.db import session as db_session

    engine = make_engine(sample_cli.db_url)
    held, release = threading.Event(), threading.Event()

    def another_command() -> None:
        with db_session.writing(engine):
            held.set()
            release.wait(30)

    holder = threading.Thread(target=another_command)
    holder.start()
    try:
        held.wait(30)
        refused = sample_cli("--wait", "0.2", "edit", "entry:gpu", "--set", "en.definition=Mine.", expect=1).stderr
        assert ("another command (an import, an edit, a build) was writing to the database; nothing was stored: "
                "run this one again (`newsroom --wait 60 …` waits up to a minute for it)") in refused
        threading.Timer(1.0, release.set).start()  # the other command ends while this one waits
        sample_cli("--wait", "30", "edit", "entry:gpu", "--set", "en.definition=Mine.")
    finally:
        release.set()
        holder.join()
        engine.dispose()
    assert "Mine." in sample_cli("edit", "entry:gpu").stdout
    bad = sample_cli("--wait", "soon", "check", expect=2).stderr
    assert "Invalid value for '--wait'" in bad


def test_two_inits_of_one_new_database_at_once_take_turns(cli):
    """Two machines running `newsroom init` on one new database at once: the second waits for the first's
    schema, then finds nothing to do (both created every table before: a duplicate key, a traceback on
    PostgreSQL; "table entries already exists" on SQLite). The first is held after its first table; the
    second is a process of its own, as Alembic runs one migration at a time in a process."""
    import os
    import subprocess
    import sys
    import threading

    from sqlalchemy import event

    from newsroom.db.migrate import SCHEMA_REVISION, current_revision, upgrade

    first = make_engine(cli.db_url)
    created, release = threading.Event(), threading.Event()

    @event.listens_for(first, "after_cursor_execute")
    def pause_after_first_table(_conn, _cursor, statement, *_args) -> None:
        if statement.lstrip().upper().startswith("CREATE TABLE") and not created.is_set():
            created.set()
            release.wait(30)

    failed: list[BaseException] = []

    def first_init() -> None:
        try:
            upgrade(first)
        except Exception as error:  # noqa: BLE001 (said by the test, not lost in a thread)
            failed.append(error)

    migration = threading.Thread(target=first_init)
    migration.start()
    assert created.wait(30)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    second = subprocess.Popen([sys.executable, "-m", "newsroom", "--db", cli.db_url, "--wait", "30", "init"],
                              cwd=cli.cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        second.wait(3)  # it waits for the first init's schema
    except subprocess.TimeoutExpired:
        pass
    release.set()
    migration.join(30)
    out, err = second.communicate(timeout=60)
    first.dispose()
    assert not failed, failed
    assert second.returncode == 0, err
    assert "database ready" in out
    migrated = make_engine(cli.db_url)
    assert current_revision(migrated) == SCHEMA_REVISION
    migrated.dispose()


def _contended(db_url: str) -> list[OperationalError]:
    """The errors two connections standing in each other's way really raise: on SQLite, a write lock held
    while another asks for it; on PostgreSQL, a serialization failure (a REPEATABLE READ transaction updating
    a row another committed since its snapshot) and a deadlock (two advisory locks taken crosswise, in an
    order set by the test)."""
    import threading
    import time

    first, second = make_engine(db_url, wait_ms=0), make_engine(db_url, wait_ms=0)
    raised: list[OperationalError] = []
    try:
        with first.connect() as one, second.connect() as other:
            if first.dialect.name == "sqlite":
                one.exec_driver_sql("BEGIN IMMEDIATE")
                with pytest.raises(OperationalError) as refused:
                    other.exec_driver_sql("BEGIN IMMEDIATE")
                return [refused.value]
            with one.begin():
                one.exec_driver_sql("CREATE TABLE counter (n integer)")
                one.exec_driver_sql("INSERT INTO counter VALUES (0)")
            one.execution_options(isolation_level="REPEATABLE READ")
            with pytest.raises(OperationalError) as serialization, one.begin():
                one.exec_driver_sql("SELECT n FROM counter").all()
                with other.begin():
                    other.exec_driver_sql("UPDATE counter SET n = 1")
                one.exec_driver_sql("UPDATE counter SET n = 2")
            raised.append(serialization.value)
            one.execution_options(isolation_level="READ COMMITTED")

            def take(connection: object, key: int) -> None:
                try:
                    connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({key})")  # type: ignore[attr-defined]
                except OperationalError as error:
                    raised.append(error)
                    connection.rollback()  # type: ignore[attr-defined]

            with one.begin(), other.begin():
                take(one, 1)
                take(other, 2)
                crosswise = threading.Thread(target=take, args=(one, 2))  # waits for `other`
                crosswise.start()
                time.sleep(0.3)
                take(other, 1)  # waits for `one`: the server ends one of the two (after deadlock_timeout, 1 s)
                crosswise.join(30)
            assert len(raised) == 2, raised
            return raised
    finally:
        first.dispose()
        second.dispose()


def test_the_errors_of_two_commands_in_each_others_way_are_told_as_such(db_url):
    """A command stopped by another's lock, a deadlock or a serialization failure stored nothing and may simply
    be run again: each is told so (see `busy`), decided by the driver's code, not its words."""
    errors = _contended(db_url)
    assert [busy(error) for error in errors] == [True] * len(errors), [str(error.orig) for error in errors]


@pytest.mark.parametrize(("orig", "contended"), [
    (pg_errors.DeadlockDetected("deadlock detected"), True),
    (pg_errors.SerializationFailure("could not serialize access due to concurrent update"), True),
    (pg_errors.LockNotAvailable("canceling statement due to lock timeout"), True),
    (pg_errors.UniqueViolation('duplicate key value violates unique constraint "uq_locked_terms"'), False),
    (pg_errors.QueryCanceled("canceling statement due to statement timeout"), False),
])
def test_a_postgresql_error_is_busy_by_its_sqlstate(orig: Exception, contended: bool):
    """PostgreSQL's errors as psycopg raises them: the words "locked" or "blocked" say nothing."""
    assert busy(OperationalError("UPDATE …", {}, orig)) is contended


@pytest.mark.sqlite_only("what history and edit say of the site file is decided before the database is read")
def test_history_and_edit_of_site_say_it_changes_by_import_and_keeps_no_history(sample_cli):
    """`site` was called no record at all; it is the site file, which only an import changes."""
    for command in ("history", "edit"):
        message = " ".join(sample_cli(command, "site", expect=1).stderr.split())
        assert message == (
            "Error: 'site' is the site file (site.yaml: the publication's name, tagline, sections, categories, "
            "audiences and tag names), which changes only by `newsroom import site.yaml` (`newsroom export OUT` writes the stored "
            "one to edit); its earlier versions are not kept, so it has no history here: keep site.yaml under "
            "version control to have one"), command


@pytest.mark.sqlite_only("the history listing is made in Python, the same on either database")
def test_history_says_when_and_by_whom_a_record_was_created(sample_cli, monkeypatch):
    """Version 1 was "(the oldest kept)", undated, for every record not added to a published issue: an
    issue made by `issue new`, a story by `story add` to a draft, an entry by `import` say who made them
    and when; a record made before creations were recorded says when, if it never changed since."""
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-20T09:30:00+00:00")
    sample_cli("issue", "new", "--editor", "anna")
    sample_cli("story", "add", "14", "--section", "code", "--slug", "new-story", "--headline-hu", "Hír",
               "--headline-en", "Story", "--editor", "bea")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-21T10:00:00+00:00")
    sample_cli("story", "edit", "new-story", "--summary-en", "Summary.", "--editor", "cecil")
    assert sample_cli("history", "14").stdout.splitlines() == [
        "issue 14: version 1 is current", "  version 1  2026-11-20T09:30:00+00:00  anna  changed: created"]
    assert sample_cli("history", "story:new-story").stdout.splitlines() == [
        "story new-story: version 2 is current", "  version 2  2026-11-21T10:00:00+00:00  cecil  changed: en.summary",
        "  version 1  2026-11-20T09:30:00+00:00  bea  changed: created"]
    assert sample_cli("issue", "corrections", "13").stdout.strip() == "issue 13: no corrections"
    # As a database of an earlier release holds it: no creation kept, the record at its first version.
    with make_engine(sample_cli.db_url).begin() as connection:
        connection.exec_driver_sql("DELETE FROM revisions WHERE record_key = 'gpu'")
        stored = connection.exec_driver_sql("SELECT updated_at FROM entries WHERE slug = 'gpu'").scalar_one()
    when = dt.datetime.fromisoformat(str(stored)).replace(tzinfo=dt.timezone.utc).isoformat(timespec="seconds")
    assert sample_cli("history", "entry:gpu").stdout.splitlines() == [
        "entry gpu: version 1 is current", f"  version 1  {when}  created (by whom was not recorded: before this "
        "release, only a story added to a published issue was)"]
