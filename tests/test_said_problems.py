"""What the commands say of problems: one order everywhere, each problem once, counted as said, and the warnings a
change leaves on records it did not store said with those of the records it stored."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner
from sqlalchemy import event
from sqlalchemy.engine import Engine

from newsroom.cli import report_warnings
from newsroom.diagnostics import Diagnostic

#: The tests' working folder holds a published site's newsroom.toml: `check` names the content's problems alone.
pytestmark = pytest.mark.usefixtures("public_address")

FRIDAY = "2026-11-06T10:00:00+01:00"

UNNAMED_TAG = ("the site file names no tag 'brand-new-tag': its page (archive/tag/brand-new-tag/) and the archive "
               "show it as written here, 'brand-new-tag', in every language; name it under the site file's `tags:` "
               "(slug: brand-new-tag, and its name in each language) and import that (`newsroom import site.yaml`)")

GPU_DRAFT = ("warning: entry:gpu is a draft, shown as text until it is published: remove `draft: true` from its file "
             "(entries/gpu.yaml) and import it, or run `newsroom edit entry:gpu --set draft=false`")

UNNAMED_LINK = ("link 'https://example.org/gpu' has no text: screen readers say \"link\" and nothing more; write its "
                "text between the brackets ([text](…)), or alt text for its image ([![what it shows](…)](…))")


def test_a_count_counts_the_warnings_said_each_once():
    """A warning found twice (by two checks of one change) was said once and counted twice."""
    warning = Diagnostic("entry:gpu", None, "en.aliases[0]", "said once", "warning")

    @click.command()
    def saving() -> None:
        report_warnings([warning, Diagnostic("entry:gpu", None, "en.aliases[0]", "said once", "warning")],
                        "in what was saved")

    result = CliRunner().invoke(saving)
    assert result.stderr.splitlines() == ["entry:gpu: en.aliases[0]: warning: said once", "1 warning in what was saved"]


@pytest.mark.sqlite_only("the order of what is said does not depend on the database")
def test_check_says_the_errors_and_warnings_of_one_place_together_by_field(sample_cli, write_files):
    """One order for every command: by place, then field, errors and warnings of one place together (not the
    errors first), and the count says the lines above it."""
    entry = ("kind: entry\nslug: x-entry\ncategory: infrastructure\nlevel: basic\ntrend: mainstream\nstatus: 2026-11\n"
             "sources: [{publisher: X, title: Y, url: 'https://example.org/'}]\n"
             "hu: {headword: x hu, definition: 'Lásd [](https://example.org/a).'}\n"
             "en: {headword: x en, definition: 'See [this](entry:nowhere).', aliases: [x en]}\n")
    sample_cli("import", "--no-check", str(write_files({"e.yaml": entry})))
    said = sample_cli("check", expect=1).stderr.splitlines()
    assert [line.split(": ")[1:3] for line in said[:-1]] == [
        ["en.aliases[0]", "warning"], ["en.definition", "link to a missing entry 'nowhere'"],
        ["hu.definition", "warning"]], said
    assert said[-1] == "1 error(s), 2 warning(s)"


@pytest.mark.sqlite_only("the order is worked out in Python, whatever the database")
def test_check_counts_the_numbers_in_places_as_numbers(sample_cli, monkeypatch):
    """Places were ordered as text: issue 10's problems before issue 9's, and story:i10-… before story:i9-x.
    The digits of a place are counted as numbers, as a reader counts."""
    monkeypatch.setenv("NEWSROOM_NOW", FRIDAY)
    unnamed, correction = "See [](https://example.org/{}).", ("--correction", "--reason", "A link added")
    sample_cli("issue", "new", "--number", "9", "--title-hu", "Kilenc")  # no English title: a warning
    sample_cli("story", "add", "9", "--slug", "i9-x", "--section", "code", "--headline-hu", "Hír", "--headline-en",
               "News", "--summary-hu", "Össz.", "--summary-en", unnamed.format("i9"), "--source-url",
               "https://example.org/s", "--publisher", "P")
    sample_cli("edit", "issue:10", "--set", "en.lead=" + unnamed.format("10"), *correction)
    sample_cli("edit", "story:i10-ai-designed-pet-enzymes", "--set", "en.summary=" + unnamed.format("i10"),
               *correction)
    said = sample_cli("check").stderr.splitlines()
    assert said[-1] == "0 error(s), 4 warning(s)", said
    assert [line.split(": ")[:2] for line in said[:-1]] == [
        ["issue:9", "en"], ["issue:10", "en.lead"], ["story:i9-x", "en.summary"],
        ["story:i10-ai-designed-pet-enzymes", "en.summary"]], said


@pytest.mark.sqlite_only("the order is worked out in Python, whatever the database")
def test_check_counts_the_numbers_in_fields_as_numbers(sample_cli, monkeypatch):
    """Within a place, fields were ordered as text too: `terms[10]` before `terms[2]`."""
    monkeypatch.setenv("NEWSROOM_NOW", FRIDAY)
    sample_cli("issue", "new", "--title-hu", "Tizennegyedik", "--title-en", "Fourteenth")
    terms = [option for n in range(11) for option in ("--term", f"to-write-{n}")]  # a draft's: warnings
    sample_cli("story", "add", "14", "--slug", "i14-a", "--section", "code", "--headline-hu", "Hír", "--headline-en",
               "News", "--summary-hu", "Össz.", "--summary-en", "Sum.", "--source-url", "https://example.org/a",
               "--publisher", "P", *terms)
    said = sample_cli("check").stderr.splitlines()
    assert said[-1] == "0 error(s), 11 warning(s)", said
    assert [line.split(": ")[:2] for line in said[:-1]] == [["story:i14-a", f"terms[{n}]"] for n in range(11)], said


@pytest.mark.sqlite_only("which warnings a command prints does not depend on the database")
def test_story_move_says_the_warning_it_passes_to_another_story(sample_cli, monkeypatch):
    """A tag the site file does not name is warned at the first story carrying it: moving that story below the
    next one passed the warning to that one, which `check` then named and the move never said."""
    monkeypatch.setenv("NEWSROOM_NOW", FRIDAY)
    sample_cli("issue", "new", "--title-hu", "Tizennegyedik", "--title-en", "Fourteenth")
    for slug in ("i14-a", "i14-b"):
        sample_cli("story", "add", "14", "--slug", slug, "--section", "code", "--headline-hu", "Hír",
                   "--headline-en", "News", "--summary-hu", "Össz.", "--summary-en", "Sum.", "--source-url",
                   f"https://example.org/{slug}", "--publisher", "P", "--tag", "brand-new-tag")
    moved = sample_cli("story", "move", "i14-a", "--position", "2")
    assert (moved.stdout, moved.stderr.splitlines()) == ("story i14-a is now code #2\n", [
        f"story:i14-b: tags[0]: warning: {UNNAMED_TAG}", "1 warning the move left on other records"])
    assert sample_cli("check").stderr.splitlines() == [f"story:i14-b: tags[0]: warning: {UNNAMED_TAG}",
                                                       "0 error(s), 1 warning(s)"]
    back = sample_cli("story", "move", "i14-a", "--position", "1")  # its own again, said as the story's
    assert back.stderr.splitlines() == [f"story:i14-a: tags[0]: warning: {UNNAMED_TAG}", "1 warning in what was saved"]


def test_an_edit_making_an_entry_a_draft_says_the_warnings_of_the_records_linking_to_it(sample_cli):
    """`edit entry:gpu --set draft=true` gave every record linking to it a warning, and said none of them: it says
    each, after the entry's own, as `check` says them, and how many."""
    edited = sample_cli("edit", "entry:gpu", "--set", "draft=true")
    checked = sample_cli("check").stderr.splitlines()
    assert checked[-1] == "0 error(s), 40 warning(s)"
    assert edited.stdout == "entry gpu: saved as version 2\n"
    assert edited.stderr.splitlines() == [*checked[:-1], "40 warnings the edit left on other records"]
    assert "story:i13-vllm-trainium-backend: terms[4]: " + GPU_DRAFT in checked
    back = sample_cli("edit", "entry:gpu", "--set", "draft=false")  # warnings gone: nothing to say
    assert (back.stdout, back.stderr) == ("entry gpu: saved as version 3\n", "")


@pytest.mark.sqlite_only("which warnings a command prints does not depend on the database")
def test_an_import_says_the_warnings_it_brings_to_a_file_that_changed_nothing_in_that_file(sample_cli, tmp_path):
    """An import of an entry made a draft, with a story linking to it unchanged: the story's new warning was left
    to `check`. It is said in the story's file, at the field's line, after those of what was stored."""
    out = tmp_path / "out"
    sample_cli("export", str(out))
    entry = out / "entries" / "gpu.yaml"
    entry.write_text(entry.read_text(encoding="utf-8").replace("slug: gpu\n", "slug: gpu\ndraft: true\n"),
                     encoding="utf-8")
    story = out / "stories" / "i13-vllm-trainium-backend.yaml"
    line = story.read_text(encoding="utf-8").splitlines().index("- gpu") + 1
    result = sample_cli("import", str(entry), str(story))
    assert result.stdout == "0 created, 1 updated, 1 unchanged\n"
    said = result.stderr.splitlines()
    assert f"{story}:{line}: terms[4]: {GPU_DRAFT}" in said
    assert said[-1] == "40 warnings the import left on records it did not store"
    assert len(said) == 41 and all(": warning: " in line for line in said[:-1])


def test_an_edit_of_a_definition_says_its_own_warnings_and_none_elsewhere(sample_cli):
    """An edit of an entry's text that other records read nothing of (its definition) says the entry's own
    warnings, as `check` says them, and nothing of the records linking to it."""
    edited = sample_cli("edit", "entry:gpu", "--set", "en.definition=A chip for [](https://example.org/gpu) maths.")
    assert edited.stdout == "entry gpu: saved as version 2\n"
    assert edited.stderr.splitlines() == [f"entry:gpu: en.definition: warning: {UNNAMED_LINK}",
                                          "1 warning in what was saved"]
    assert sample_cli("check").stderr.splitlines() == [f"entry:gpu: en.definition: warning: {UNNAMED_LINK}",
                                                       "0 error(s), 1 warning(s)"]


@pytest.mark.sqlite_only("what an edit reads does not depend on the database")
def test_an_edit_reads_every_entry_once_whether_or_not_it_leaves_warnings_on_other_records(sample_cli):
    """Telling the warnings a change leaves on other records from those the content had read the whole content
    before and after every edit. An edit of what no other record reads (a definition) reads it once, to check
    the entry as `check` would; one making the entry a draft, whose links then have a warning, reads again only
    the rows it changed."""
    reads: list[str] = []

    def every_entry(conn, cursor, statement, parameters, context, executemany) -> None:
        said = " ".join(statement.split())
        if said.startswith("SELECT entries.id, entries.slug,") and "WHERE" not in said:
            reads.append(said)

    event.listen(Engine, "before_cursor_execute", every_entry)
    try:
        sample_cli("edit", "entry:gpu", "--set", "en.definition=A chip for maths.")
        ordinary = len(reads)
        assert sample_cli("edit", "entry:gpu", "--set", "draft=true").stderr.endswith(
            "40 warnings the edit left on other records\n")
    finally:
        event.remove(Engine, "before_cursor_execute", every_entry)
    assert (ordinary, len(reads) - ordinary) == (1, 1), reads


def _add_story(sample_cli, slug: str, *options: str, summary: str = "Sum.") -> list[str]:
    """`story add 14 --slug SLUG` (section code) with `options`: what it says on stderr, by line."""
    return sample_cli("story", "add", "14", "--slug", slug, "--section", "code", "--headline-hu", "Hír",
                      "--headline-en", "News", "--summary-hu", "Össz.", "--summary-en", summary, "--source-url",
                      f"https://example.org/{slug}", "--publisher", "P", *options).stderr.splitlines()


CLASH = ("'chip-act-x' would share one page with the tag 'Chip-Act-X' (story:i14-b, story:i14-c), at "
         "archive/tag/chip-act-x/: write it 'Chip-Act-X', or give it a tag of its own")


@pytest.mark.sqlite_only("which warnings a command prints does not depend on the database")
def test_story_add_says_the_tag_clash_it_brings_to_another_story(sample_cli, monkeypatch):
    """A tag written two ways is the spelling most stories carry: a third story tagged as the second made the
    first story's spelling the odd one, a warning there that the addition says."""
    monkeypatch.setenv("NEWSROOM_NOW", FRIDAY)
    sample_cli("issue", "new", "--title-hu", "Tizennegyedik", "--title-en", "Fourteenth")
    _add_story(sample_cli, "i14-a", "--tag", "chip-act-x")
    _add_story(sample_cli, "i14-b", "--tag", "Chip-Act-X")
    assert _add_story(sample_cli, "i14-c", "--tag", "Chip-Act-X") == [
        f"story:i14-a: tags[0]: warning: {CLASH}", "1 warning the new story left on other records"]
    assert f"story:i14-a: tags[0]: warning: {CLASH}" in sample_cli("check").stderr.splitlines()


#: Why the links written in lower case are tested on SQLite alone: their search is the same on either database.
LOWER_CASE = "which warnings a command prints does not depend on the database"


@pytest.mark.parametrize("address", [pytest.param("issue:15", marks=pytest.mark.sqlite_only(LOWER_CASE)),
                                     pytest.param("issue:015", marks=pytest.mark.sqlite_only(LOWER_CASE)),
                                     "Issue:15"])
def test_issue_new_says_the_warning_it_brings_to_a_story_linking_to_it(sample_cli, monkeypatch, address):
    """A link without text to an issue still to come is named as a link to a missing issue; once `issue new`
    makes that issue, it is a link without text, which the new issue's command says; also when the link writes
    the number with leading zeros (as the issue's file name does), which leads to the same issue, and when it
    writes the kind in capitals (`Issue:15`, a link to it too), on PostgreSQL as on SQLite (whose LIKE, which
    finds the texts naming it, ignores case where PostgreSQL's does not)."""
    monkeypatch.setenv("NEWSROOM_NOW", FRIDAY)
    sample_cli("issue", "new", "--title-hu", "Tizennegyedik", "--title-en", "Fourteenth")
    _add_story(sample_cli, "i14-a", summary=f"See []({address}).")
    created = sample_cli("issue", "new", "--title-hu", "Tizenötödik", "--title-en", "Fifteenth")
    assert created.stderr.splitlines() == [
        "story:i14-a: en.summary: warning: " + UNNAMED_LINK.replace("https://example.org/gpu", address),
        "1 warning the new issue left on other records"]


@pytest.mark.sqlite_only("what a command reads does not depend on the database")
def test_a_new_story_a_moved_one_and_a_new_issue_that_no_other_record_reads_check_the_content_once(
        sample_cli, monkeypatch):
    """`story add`, `story move` and `issue new` checked the whole content a second time for the warnings they
    left on other records, though a story whose tag no other story carries, or an issue no text links to and
    whose week is its own, can leave none: each reads the content once, to check what it stored."""
    monkeypatch.setenv("NEWSROOM_NOW", FRIDAY)
    sample_cli("issue", "new", "--title-hu", "Tizennegyedik", "--title-en", "Fourteenth")
    _add_story(sample_cli, "i14-a", "--tag", "chips")
    loads: list[str] = []

    def content_load(conn, cursor, statement, parameters, context, executemany) -> None:
        if " ".join(statement.split()) == "SELECT entries.id, entries.version, entries.content_hash FROM entries":
            loads.append(statement)

    said: list[tuple[str, int]] = []  # (stderr, content loads) of each command
    event.listen(Engine, "before_cursor_execute", content_load)
    try:
        for command in (["story", "add", "14", "--slug", "i14-b", "--section", "code", "--headline-hu", "Hír",
                         "--headline-en", "News", "--summary-hu", "Össz.", "--summary-en", "Sum.", "--source-url",
                         "https://example.org/b", "--publisher", "P", "--tag", "own-tag-of-b"],
                        ["story", "move", "i14-b", "--position", "1"],
                        ["issue", "new", "--title-hu", "Tizenötödik", "--title-en", "Fifteenth"]):
            del loads[:]
            result = sample_cli(*command)
            said.append((result.stderr, len(loads)))
    finally:
        event.remove(Engine, "before_cursor_execute", content_load)
    assert [loaded for _, loaded in said] == [1, 1, 1], said
    assert [stderr.splitlines()[-1:] for stderr, _ in said] == [
        ["1 warning in what was saved"], ["1 warning in what was saved"], []], said  # the tag's own warning


@pytest.mark.sqlite_only("which warnings a command prints does not depend on the database")
def test_an_import_of_a_new_issue_says_the_overlap_it_brings_to_a_later_issue(sample_cli, write_files):
    """A new issue's week that shares days with a later-starting issue's is warned of at that later one: the
    import of the new issue alone says it, as one it left on a record it did not store."""
    issue = ("kind: issue\nnumber: 9\nweek: {start: 2026-10-10, end: 2026-10-16}\nstatus: draft\n"
             "hu: {title: Kilenc}\nen: {title: Nine}\n")
    imported = sample_cli("import", str(write_files({"issues/0009.yaml": issue}) / "issues" / "0009.yaml"))
    assert imported.stderr.splitlines() == [
        "issue:10: week: warning: 2026-10-12–2026-10-18 overlaps the week of issue 9 (2026-10-10–2026-10-16)",
        "1 warning the import left on records it did not store"]


@pytest.mark.sqlite_only("which warnings a command prints does not depend on the database")
def test_an_import_of_a_new_story_says_the_shared_place_it_brings_to_another_story(sample_cli, write_files,
                                                                                    monkeypatch):
    """A story file may give a place another story has: the warning is at the later slug, here the story
    already stored, which the import of the new one says."""
    monkeypatch.setenv("NEWSROOM_NOW", FRIDAY)
    sample_cli("issue", "new", "--title-hu", "Tizennegyedik", "--title-en", "Fourteenth")
    _add_story(sample_cli, "i14-b")
    story = ("kind: story\nslug: i14-a\nissue: 14\nsection: code\nposition: 1\n"
             "sources: [{publisher: P, title: T, url: 'https://example.org/a'}]\n"
             "hu: {headline: Hír, summary: Össz.}\nen: {headline: News, summary: Sum.}\n")
    imported = sample_cli("import", str(write_files({"stories/i14-a.yaml": story})))
    assert imported.stderr.splitlines() == [
        "story:i14-b: position: warning: 1 is also the place of story 'i14-a' in section 'code' of issue 14: the "
        "pages show them by slug; give each its own place (newsroom story move)",
        "1 warning the import left on records it did not store"]
