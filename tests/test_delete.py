"""Deleting records: `newsroom delete`, what it refuses, what the site and the history show afterwards, and
how an export and a later import of an older export treat a deleted record."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from conftest import Meanwhile
from sitebuild import parse

#: Two new entries: `tensor-core` names `matrix-unit` as related; nothing else uses either.
ENTRIES = {
    "tensor-core.yaml": """\
kind: entry
slug: tensor-core
category: infrastructure
level: advanced
trend: spreading
status: 2026-11
sources: [{publisher: Nvidia, title: Tensor Cores, url: "https://www.nvidia.com/tensor-cores/"}]
relations: {related: [matrix-unit]}
hu: {headword: Tensor mag, definition: Mátrixszorzásra épített számolóegység a GPU-ban.}
en: {headword: Tensor core, definition: A unit of a GPU built for matrix multiplication.}
""",
    "matrix-unit.yaml": """\
kind: entry
slug: matrix-unit
category: infrastructure
level: advanced
trend: spreading
status: 2026-11
sources: [{publisher: Google, title: TPU architecture, url: "https://cloud.google.com/tpu/docs/system-architecture"}]
hu: {headword: Mátrixegység, definition: A TPU mátrixszorzó egysége.}
en: {headword: Matrix unit, definition: The matrix multiplication unit of a TPU.}
""",
}


def _texts(element) -> str:
    return " ".join("".join(element.itertext()).split())


def _index_headwords(site: Path, lang: str) -> set[str]:
    page = parse(site / lang / "glossary" / "index.html")
    return {_texts(link) for link in page.iter("a") if "/glossary/" in (link.get("href") or "")}


def test_a_record_others_use_is_not_deleted_and_the_message_names_each_use(sample_cli):
    before = sample_cli("edit", "entry:trainium3").stdout
    refused = sample_cli("delete", "entry:trainium3", expect=1)
    errors = refused.stderr
    assert "entry:trainium3: not deleted: it is used by entry:trainium, entry:trainium2, reference:trainium" in errors
    assert "story:i13-aws-trainium3-capacity: terms[0]: no glossary entry 'trainium3'" in errors
    assert "reference:trainium: en.sections[0].deep.text: link to a missing entry 'trainium3'" in errors
    assert errors.rstrip().endswith("nothing was changed")
    assert sample_cli("edit", "entry:trainium3").stdout == before  # still there, the same version
    assert "version 1 is current" in sample_cli("history", "entry:trainium3").stdout
    # The Method page: every page's navigation links it, so `check` names its absence and it stays.
    refused = sample_cli("delete", "page:method", expect=1).stderr
    assert "issue:13: en.editor_note: link to a missing page 'method'" in refused
    assert "page:method: every page's navigation and every email link to the Method page, and there is none" \
        in refused


def test_a_deleted_entry_leaves_every_page_and_comes_back_from_its_history(sample_cli, tmp_path):
    folder = tmp_path / "entries"
    folder.mkdir()
    for name, text in ENTRIES.items():
        (folder / name).write_text(text, encoding="utf-8")
    sample_cli("import", str(folder))
    site = tmp_path / "site"
    sample_cli("build", "--out", str(site))
    assert {"Matrix unit", "Tensor core"} <= _index_headwords(site, "en")
    assert (site / "en" / "glossary" / "matrix-unit" / "index.html").is_file()

    deleted = sample_cli("--quiet", "delete", "matrix-unit", "--editor", "anna", "--reason", "merged into tpu")
    # The relation to it stays in tensor-core's record, shown as plain text: a warning, not a refusal.
    assert deleted.stderr.splitlines() == [
        "entry:tensor-core: relations.related[0]: warning: no entry 'matrix-unit': shown as plain text until it is "
        "written", "1 warning the deletion left on other records"]
    assert sample_cli("edit", "matrix-unit", expect=1).stderr.strip().endswith("no entry, story, page or issue "
                                                                                 "'matrix-unit'")
    built = sample_cli("build", "--out", str(site)).stdout
    assert "removed" in built and not (site / "en" / "glossary" / "matrix-unit").exists()
    assert "Matrix unit" not in _index_headwords(site, "en") and "Tensor core" in _index_headwords(site, "en")
    entry = parse(site / "en" / "glossary" / "tensor-core" / "index.html")
    assert not [link for link in entry.iter("a") if "matrix-unit" in (link.get("href") or "")]

    history = sample_cli("history", "entry:matrix-unit").stdout
    assert history.startswith("entry matrix-unit: deleted ") and "by anna (merged into tpu)" in history
    kept = sample_cli("history", "entry:matrix-unit", "--show", "1").stdout
    assert yaml.safe_load(kept)["en"]["headword"] == "Matrix unit"
    restored = tmp_path / "matrix-unit.yaml"
    restored.write_text(kept, encoding="utf-8")
    assert sample_cli("import", str(restored)).stdout.startswith("1 created")
    # A deletion that leaves no warning on other records says none.
    again = sample_cli("delete", "tensor-core")
    assert (again.stdout.startswith("entry tensor-core: deleted"), again.stderr) == (True, "")
    assert sample_cli("import", str(folder / "tensor-core.yaml")).stdout.startswith("1 created")
    sample_cli("build", "--out", str(site))
    assert "Matrix unit" in _index_headwords(site, "en")


def test_an_older_version_is_not_deleted(sample_cli):
    sample_cli("edit", "entry:data-center", "--set", "level=intermediate")
    refused = sample_cli("delete", "entry:data-center", "--expect-version", "1", expect=1).stderr
    assert "you started from version 1, it is now version 2" in refused and "changed since: level" in refused
    assert "version 2 is current" in sample_cli("history", "entry:data-center").stdout


def test_a_story_of_a_draft_goes_and_the_others_close_up(sample_cli, tmp_path):
    sample_cli("issue", "new", "--week", "2026-W46", "--title-hu", "Piszkozat", "--title-en", "Draft")
    for headline in ("First", "Second", "Third"):
        sample_cli("story", "add", "14", "--section", "code", "--headline-en", headline, "--headline-hu", headline,
                   "--source-url", "https://example.org/")
    shown = sample_cli("issue", "show", "14").stdout
    assert "2. i14-second" in shown and "3. i14-third" in shown
    sample_cli("delete", "story:i14-first")
    shown = sample_cli("issue", "show", "14").stdout
    assert "1. i14-second" in shown and "2. i14-third" in shown and "i14-first" not in shown
    assert "i14-first" not in sample_cli("issue", "corrections", "14").stdout  # a draft: no correction

    # An issue goes only as an empty draft.
    refused = sample_cli("delete", "14", expect=1).stderr
    assert "issue:14: stories: issue 14 holds 2 stories (i14-second, i14-third): delete them first" in refused
    refused = sample_cli("delete", "13", expect=1).stderr
    assert "issue:13: status: issue 13 is published; a published issue stays" in refused
    sample_cli("delete", "story:i14-second")
    sample_cli("delete", "story:i14-third")
    assert sample_cli("delete", "14").stdout.startswith("issue 14: deleted")
    assert "no issue 14" in sample_cli("issue", "show", "14", expect=1).stderr
    assert "issue 14: deleted " in sample_cli("history", "issue:14").stdout
    sample_cli("build", "--out", str(tmp_path / "site"), "--drafts")
    assert not (tmp_path / "site" / "en" / "issues" / "14").exists()


def test_a_story_leaves_a_published_issue_only_as_a_correction_readers_see(sample_cli, tmp_path):
    slug = "i13-vllm-trainium-backend"
    refused = sample_cli("delete", slug, expect=1).stderr
    assert f"story:{slug}: issue: its issue 13 is published; to remove the story add --correction" in refused
    sample_cli("delete", slug, "--correction", "--reason", "The announcement was withdrawn", "--editor", "anna")
    listed = sample_cli("issue", "corrections", "13").stdout
    assert f"anna  story:{slug}  deleted — The announcement was withdrawn" in listed
    # The others keep their places: renumbering them would read as corrections.
    assert "2. i13-coding-agents-workday-tasks" in sample_cli("issue", "show", "13").stdout

    site = tmp_path / "site"
    sample_cli("build", "--out", str(site))
    for lang, headline, label in (("en", "vLLM officially supports Trainium", "story removed"),
                                  ("hu", "A vLLM hivatalosan is támogatja a Trainiumot", "hír visszavonva")):
        page = parse(site / lang / "issues" / "13" / "index.html")
        assert not [element for element in page.iter() if element.get("id") == f"story-{slug}"]
        corrections = next(element for element in page.iter("section") if element.get("id") == "corrections")
        items = [_texts(item) for item in corrections.iter("li")]
        assert [item.split(": ", 1)[1] for item in items] == [
            f"{headline} ({label}) – The announcement was withdrawn"]
        assert not [link for link in corrections.iter("a")]  # nothing left on the page to point at


def test_an_export_removes_the_files_of_deleted_records_and_an_older_one_does_not_bring_them_back(
        sample_cli, tmp_path):
    exported, older = tmp_path / "export", tmp_path / "older"
    sample_cli("export", str(exported))
    shutil.copytree(exported, older)
    sample_cli("delete", "i13-data-center-power-bills", "--correction", "--reason", "a duplicate")
    assert sample_cli("export", str(exported)).stdout.strip() == (
        f"58 files exported to {exported}; 1 removed (their records are deleted or renamed)")
    assert not (exported / "stories" / "i13-data-center-power-bills.yaml").exists()

    assert sample_cli("import", str(older)).stdout.strip() == (
        "0 created, 0 updated, 58 unchanged, 1 left out (deleted in the database since the export)")
    assert "no story" in sample_cli("edit", "story:i13-data-center-power-bills", expect=1).stderr

    edited = older / "stories" / "i13-data-center-power-bills.yaml"
    edited.write_text(edited.read_text(encoding="utf-8").replace("position: 1", "position: 9"), encoding="utf-8")
    refused = sample_cli("import", str(older), expect=1).stderr
    assert (f"{edited}: story 'i13-data-center-power-bills' was deleted in the database since this file was "
            "exported (by ") in refused and "import this file with --force" in refused
    assert sample_cli("import", "--force", "--correction", "--reason", "corrected", str(edited)
                      ).stdout.startswith("1 created")

    # An exported file edited after its record was deleted stays, with a warning.
    sample_cli("export", str(exported))
    sample_cli("delete", "i13-data-center-power-bills", "--correction", "--reason", "corrected")
    changed = exported / "stories" / "i13-data-center-power-bills.yaml"
    changed.write_text(changed.read_text(encoding="utf-8") + "# a note\ntags: [energy]\n", encoding="utf-8")
    result = sample_cli("export", str(exported))
    assert changed.exists() and "its record is deleted, but the file was edited since the last export" in result.stderr


def test_an_entry_deleted_while_another_editor_adds_a_term_naming_it_is_not_left_dangling(sample_cli, tmp_path):
    """Two editors of a shared database: one gives a story the term `tensor-core` (checked: the entry is
    there), the other deletes the entry (checked: nothing uses it yet). Each check passed against the other's
    absence; both were stored, and the next build stopped at the dangling term. A command that changes the
    content now waits for the other's commit and checks against it."""
    import datetime as dt

    from issues.stories import edit_story
    from issues.revisions import Change
    from newsroom.db.session import make_engine, writing

    folder = tmp_path / "entries"
    folder.mkdir()
    (folder / "tensor-core.yaml").write_text(ENTRIES["tensor-core.yaml"].replace(
        "relations: {related: [matrix-unit]}\n", ""), encoding="utf-8")
    sample_cli("import", str(folder))
    slug = "i13-aws-trainium3-capacity"
    engine = make_engine(sample_cli.db_url)
    with writing(engine) as session:  # the first editor's command, not yet committed
        change = Change("anna", dt.datetime.now(dt.timezone.utc), ("hu", "en"), "a term was missing")
        edit_story(session, change, slug, {"terms": ["trainium3", "tensor-core"]}, {}, correction=True)
        session.flush()
        deleting = Meanwhile(lambda: sample_cli("delete", "entry:tensor-core", expect=None))
        assert deleting.waiting(), "the deletion waits for the change under way"
    refused = deleting.outcome()
    engine.dispose()
    assert refused.exit_code == 1, refused.stdout
    assert f"story:{slug}: terms[1]: no glossary entry 'tensor-core'" in refused.stderr
    assert "tensor-core" in sample_cli("edit", f"story:{slug}").stdout
    sample_cli("check")  # no error: the term names an entry


def test_a_record_made_again_under_a_deleted_one_s_key_goes_on_from_its_versions(sample_cli, tmp_path):
    """Its history and `history --show N` stay one line of versions, instead of two records' 1, 2, …"""
    folder = tmp_path / "entries"
    folder.mkdir()
    (folder / "tensor-core.yaml").write_text(ENTRIES["tensor-core.yaml"].replace(
        "relations: {related: [matrix-unit]}\n", ""), encoding="utf-8")
    sample_cli("import", str(folder))
    sample_cli("edit", "entry:tensor-core", "--set", "en.definition=The first record, edited.")
    sample_cli("delete", "entry:tensor-core")
    assert sample_cli("import", str(folder)).stdout.startswith("1 created")
    assert sample_cli("edit", "entry:tensor-core", "--set", "en.definition=The second record, edited.").stdout \
        .strip() == "entry tensor-core: saved as version 4"
    lines = sample_cli("history", "entry:tensor-core").stdout.splitlines()
    assert lines[0] == "entry tensor-core: version 4 is current"
    assert lines[2].startswith("  version 3  ") and lines[2].endswith("changed: created")
    assert lines[3].endswith("; it was version 2, version 3 was made again under its key")
    shown = {n: yaml.safe_load(sample_cli("history", "entry:tensor-core", "--show", str(n)).stdout)["en"]["definition"]
             for n in (1, 2, 3, 4)}
    assert shown == {1: "A unit of a GPU built for matrix multiplication.", 2: "The first record, edited.",
                     3: "A unit of a GPU built for matrix multiplication.", 4: "The second record, edited."}
    # The same for a record a command makes: a story added again under the slug of a deleted one.
    sample_cli("issue", "new", "--title-hu", "Teszt", "--title-en", "Test")
    add = ["story", "add", "14", "--section", "code", "--slug", "again", "--headline-hu", "Hír", "--headline-en",
           "Story", "--summary-hu", "Ö.", "--summary-en", "S.", "--source-url", "https://example.org/a",
           "--publisher", "Example"]
    sample_cli(*add)
    sample_cli("delete", "story:again")
    sample_cli(*add)
    lines = sample_cli("history", "story:again").stdout.splitlines()
    assert lines[0] == "story again: version 2 is current"
    assert lines[1].startswith("  version 2  ") and lines[1].endswith("changed: created")
    assert lines[2].endswith("; it was version 1, version 2 was made again under its key")
    assert lines[3].startswith("  version 1  ") and lines[3].endswith("changed: created")


def test_an_import_with_prune_deletes_the_records_whose_exported_files_were_removed(sample_cli, tmp_path):
    """An export kept in version control: removing a file and importing the folder with --prune deletes
    its record, with `delete`'s checks, in the import's transaction; without --prune it is reported."""
    (tmp_path / "tc.yaml").write_text(ENTRIES["tensor-core.yaml"].replace("relations: {related: [matrix-unit]}\n", ""),
                                      encoding="utf-8")
    sample_cli("import", str(tmp_path / "tc.yaml"))
    sample_cli("issue", "new", "--title-hu", "Teszt", "--title-en", "Test")
    for n in (1, 2):
        sample_cli("story", "add", "14", "--section", "code", "--slug", f"s{n}", "--headline-hu", "Hír",
                   "--headline-en", "Story", "--summary-hu", "Ö.", "--summary-en", "S.", "--source-url",
                   f"https://example.org/{n}", "--publisher", "Example", *(["--term", "tensor-core"] if n == 1 else []))
    export = tmp_path / "export"
    sample_cli("export", str(export))
    (export / "entries" / "tensor-core.yaml").unlink()
    # Still named by story s1: refused as `delete` refuses it, nothing changed (not even s2's edit).
    s2 = export / "stories" / "s2.yaml"
    s2.write_text(s2.read_text(encoding="utf-8").replace("headline: Story", "headline: Story two"), encoding="utf-8")
    refused = sample_cli("import", str(export), "--prune", expect=1).stderr
    assert "entry:tensor-core: not deleted: it is used by story:s1" in refused
    assert "story:s1: terms[0]: no glossary entry 'tensor-core'" in refused
    assert "Story two" not in sample_cli("edit", "story:s2").stdout
    # Without --prune the removed file is reported and its record kept.
    for name in ("s1.yaml", "s2.yaml"):
        (export / "stories" / name).unlink()
    (export / "issues" / "0014.yaml").unlink()
    kept = sample_cli("import", str(export))
    assert kept.stdout.strip() == "0 created, 0 updated, 59 unchanged"
    assert "warning: 4 exported records have no file any more" in kept.stderr and "--prune" in kept.stderr
    # A record changed in the database since the export is not deleted on what its file showed.
    sample_cli("edit", "story:s2", "--set", "en.headline=Changed meanwhile")
    refused = sample_cli("import", str(export), "--prune", expect=1).stderr
    assert (f"{export / 'stories' / 's2.yaml'}: story 's2' changed in the database since it was exported "
            "(version 1, now 2), and its file was removed") in refused
    sample_cli("export", str(export))  # every file back, s2 as it is now
    for name in ("stories/s1.yaml", "stories/s2.yaml", "issues/0014.yaml", "entries/tensor-core.yaml"):
        (export / name).unlink()
    done = sample_cli("import", str(export), "--prune", "--editor", "anna").stdout
    assert done.strip() == "0 created, 0 updated, 59 unchanged, 4 deleted (their files were removed)"
    for key in ("entry:tensor-core", "issue:14", "story:s1", "story:s2"):
        assert "deleted" in sample_cli("history", key).stdout.splitlines()[0]
    # A story of a published issue goes only as a correction, listed on its issue.
    sample_cli("export", str(export))
    (export / "stories" / "i13-aws-trainium3-capacity.yaml").unlink()
    refused = sample_cli("import", str(export), "--prune", expect=1).stderr
    assert "its issue 13 is published; to remove the story add --correction" in refused
    sample_cli("import", str(export), "--prune", "--correction", "--reason", "a duplicate")
    assert "a duplicate" in sample_cli("issue", "corrections", "13").stdout


def test_an_import_with_prune_says_the_warnings_its_deletions_leave_and_how_many(sample_cli, tmp_path):
    """`import --prune` printed the warnings its deletions left on other records before its summary and did not
    count them: it says them after it, then how many, as `delete` does (a dry run, what they would leave)."""
    for name, text in ENTRIES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    sample_cli("import", str(tmp_path / "tensor-core.yaml"), str(tmp_path / "matrix-unit.yaml"))
    export = tmp_path / "export"
    sample_cli("export", str(export))
    (export / "entries" / "matrix-unit.yaml").unlink()
    warned = ("entry:tensor-core: relations.related[0]: warning: no entry 'matrix-unit': shown as plain text until it "
              "is written")
    dry = sample_cli("import", str(export), "--prune", "--dry-run")
    assert dry.stdout.splitlines()[-1] == ("0 created, 0 updated, 60 unchanged, 1 deleted (their files were removed) "
                                           "(a dry run: nothing was stored)")
    assert dry.stderr.splitlines() == [warned, "1 warning the deletion would leave on other records"]
    done = sample_cli("import", str(export), "--prune")
    assert done.stdout == "0 created, 0 updated, 60 unchanged, 1 deleted (their files were removed)\n"
    assert done.stderr.splitlines() == [warned, "1 warning the deletion left on other records"]
    assert sample_cli("check").stderr.splitlines()[:1] == [warned]
    # Two records deleted, one leaving a warning: said of the deletions.
    lone = ENTRIES["matrix-unit.yaml"].replace("slug: matrix-unit", "slug: lone-unit")
    (tmp_path / "lone-unit.yaml").write_text(lone, encoding="utf-8")
    sample_cli("import", str(tmp_path / "matrix-unit.yaml"), str(tmp_path / "lone-unit.yaml"))
    sample_cli("export", str(export))
    for name in ("matrix-unit.yaml", "lone-unit.yaml"):
        (export / "entries" / name).unlink()
    two = sample_cli("import", str(export), "--prune")
    assert two.stdout == "0 created, 0 updated, 60 unchanged, 2 deleted (their files were removed)\n"
    assert two.stderr.splitlines() == [warned, "1 warning the deletions left on other records"]
    # A relation to a record deleted with it is no warning: none is said.
    sample_cli("import", str(tmp_path / "matrix-unit.yaml"))
    sample_cli("export", str(export))
    for name in ("matrix-unit.yaml", "tensor-core.yaml"):
        (export / "entries" / name).unlink()
    both = sample_cli("import", str(export), "--prune")
    assert (both.stdout, both.stderr) == ("0 created, 0 updated, 59 unchanged, 2 deleted (their files were removed)\n",
                                          "")


def test_an_import_dry_run_says_what_it_would_store_and_delete_and_stores_nothing(sample_cli, tmp_path):
    """`import --dry-run`: the import made and checked as it would be, its summary and the records it would
    change said, then rolled back — before importing a colleague's folder."""
    (tmp_path / "tc.yaml").write_text(ENTRIES["tensor-core.yaml"].replace("relations: {related: [matrix-unit]}\n", ""),
                                      encoding="utf-8")
    sample_cli("import", str(tmp_path / "tc.yaml"))
    export = tmp_path / "export"
    sample_cli("export", str(export))
    gpu = export / "entries" / "gpu.yaml"
    gpu.write_text(gpu.read_text(encoding="utf-8").replace("originally built to compute", "first built to draw"),
                   encoding="utf-8")
    (export / "entries" / "tensor-core.yaml").unlink()
    before = sample_cli("edit", "entry:gpu").stdout
    dry = sample_cli("import", str(export), "--prune", "--dry-run")
    assert dry.stdout.splitlines() == [
        "would change entry:gpu", "would delete entry:tensor-core",
        "0 created, 1 updated, 58 unchanged, 1 deleted (their files were removed) (a dry run: nothing was stored)"]
    assert sample_cli("edit", "entry:gpu").stdout == before
    assert "deleted" not in sample_cli("history", "entry:tensor-core").stdout
    gpu_history = sample_cli("history", "entry:gpu").stdout.splitlines()
    assert len(gpu_history) == 2 and gpu_history[1].endswith("  import  changed: created")
    # What the import would refuse, a dry run refuses alike.
    gpu.write_text(gpu.read_text(encoding="utf-8").replace("first built to draw", "first built to draw [9]"),
                   encoding="utf-8")
    refused = sample_cli("import", str(gpu), "--dry-run", expect=1).stderr
    assert "citation [9] has no source" in refused
