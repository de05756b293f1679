"""`newsroom serve`: a preview on 127.0.0.1 that imports a changed content file and serves the rebuilt page."""

from __future__ import annotations

import datetime as dt
import shutil
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path

import html5lib
import pytest
from sitebuild import ISSUE_14_STORY, build_sample, parse, text_of

from newsroom import SAMPLE_DIR
from newsroom.db.session import make_engine
from newsroom.serve import Preview
from newsroom.settings import Settings

DRAFT_ISSUE = """\
kind: issue
number: 14
week: {start: 2026-11-09, end: 2026-11-15}
status: draft
hu: {title: Készülő szám}
en: {title: Issue in the making}
"""
TIMEOUT = 60  # generous: a bound on waiting, not a timing assertion


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


def _wait_for(predicate, what: str, said: list[str] | None = None) -> None:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    pytest.fail(f"gave up waiting for {what}" + (f"; the preview said: {said}" if said is not None else ""))




def _started(work: Path, out: Path, content: list[Path], said: list[str], settings: Settings | None = None
             ) -> Preview:
    """A started preview of the SQLite publication in `work`, watching `content`, on the tests' clock
    (2026-11-30, 12:00 UTC), saying into `said`; stop it and dispose of its engine (`_stopped`)."""
    server = Preview(make_engine(f"sqlite:///{work / 'site.db'}"), settings or Settings(), out,
                     today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc), content=content,
                     database_file=work / "site.db", port=0, say=said.append)
    server.start()
    return server


def _stopped(server: Preview) -> None:
    server.stop()
    server.engine.dispose()


@pytest.fixture(scope="module")
def preview(tmp_path_factory):
    """One preview server for the module (the tests that only read come first)."""
    tmp_path = tmp_path_factory.mktemp("serve")
    work = tmp_path / "work"
    build_sample(work)
    content = tmp_path / "content"
    (content / "entries").mkdir(parents=True)
    shutil.copy(SAMPLE_DIR / "entries" / "trainium.yaml", content / "entries")
    (content / "issues").mkdir()
    (content / "issues" / "0014.yaml").write_text(DRAFT_ISSUE, encoding="utf-8")
    engine = make_engine(f"sqlite:///{work / 'site.db'}")
    server = Preview(engine, Settings(), tmp_path / "preview", today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc), content=[content],
                     database_file=work / "site.db", port=0, say=lambda message: None)
    server.start()
    yield server, content, work
    server.stop()
    engine.dispose()


def test_unknown_paths_get_the_site_404_page(preview):
    server, _, _ = preview
    status, body = _get(server.url + "hu/no-such-page/")
    assert status == 404 and "Az oldal nem található" in body


def test_drafts_are_visible_and_marked_only_in_the_preview(preview):
    server, _, work = preview
    _, body = _get(server.url + "hu/")
    assert 'class="preview-banner"' in body
    status, draft = _get(server.url + "hu/issues/14/")
    assert status == 200 and "Készülő szám" in draft and 'class="draft"' in draft
    built = (work / "_site" / "hu" / "index.html").read_text(encoding="utf-8")
    assert "__build_id" not in built and "preview-banner" not in built
    assert not (work / "_site" / "hu" / "issues" / "14").exists()


def test_a_changed_content_file_is_imported_rebuilt_and_served(preview):
    server, content, _ = preview
    assert server.host == "127.0.0.1" and server.url == f"http://127.0.0.1:{server.port}/"
    page = server.url + "en/glossary/trainium/"
    status, body = _get(page)
    assert status == 200 and "Trainium is Amazon" in body
    assert "/__build_id" in body  # the reload script, in preview output only
    first_id = _get(server.url + "__build_id")[1]

    source = content / "entries" / "trainium.yaml"
    text = source.read_text(encoding="utf-8")
    assert "    Trainium is Amazon's own" in text
    source.write_text(text.replace("    Trainium is Amazon's own", "    Freshly edited: Trainium is Amazon's own"),
                      encoding="utf-8")

    _wait_for(lambda: "Freshly edited" in _get(page)[1], "the edited definition to be served")
    _wait_for(lambda: _get(server.url + "__build_id")[1] != first_id, "a new build id for the reload script")


def test_a_database_held_by_another_command_delays_the_preview_and_does_not_stop_it(tmp_path, monkeypatch):
    """An import of many files holds the database longer than a command waits: the preview says so,
    keeps serving the last good site, and takes the change in once the database is free (its watcher
    used to die there, and the preview never rebuilt again)."""
    import sqlite3

    from newsroom.db import session as db_session

    monkeypatch.setattr(db_session, "BUSY_TIMEOUT_MS", 200)  # how long a connection made now waits
    work, content = tmp_path / "work", tmp_path / "content"
    build_sample(work)
    (content / "entries").mkdir(parents=True)
    shutil.copy(SAMPLE_DIR / "entries" / "trainium.yaml", content / "entries")
    engine = make_engine(f"sqlite:///{work / 'site.db'}")
    said: list[str] = []
    server = Preview(engine, Settings(), tmp_path / "preview", today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc), content=[content],
                     database_file=work / "site.db", port=0, say=said.append)
    server.start()
    try:
        page = server.url + "en/glossary/trainium/"
        source = content / "entries" / "trainium.yaml"
        holder = sqlite3.connect(work / "site.db")
        holder.execute("BEGIN IMMEDIATE")  # another command's write under way
        try:
            source.write_text(source.read_text(encoding="utf-8").replace(
                "    Trainium is Amazon's own", "    Held back: Trainium is Amazon's own"), encoding="utf-8")
            _wait_for(lambda: any("another command (an import, an edit, a build) is writing" in m for m in said),
                      "the preview to say the database is busy", said)
            assert "Held back" not in _get(page)[1]
        finally:
            holder.rollback()
            holder.close()
        _wait_for(lambda: "Held back" in _get(page)[1], "the held-back edit to be served", said)
        assert sum("is writing to the database" in m for m in said) == 1  # said once, not every retry
    finally:
        server.stop()
        engine.dispose()


def test_another_editor_s_change_to_a_shared_database_is_previewed(sample_cli, databases, tmp_path):
    """A team's PostgreSQL is no file to watch: the preview asks it whether anything changed, and an edit
    another editor makes there (here through the command line) reaches the preview (it used to never)."""
    if databases.backend == "sqlite":
        pytest.skip("a SQLite file is watched: the tests above")
    engine = make_engine(sample_cli.db_url)
    said: list[str] = []
    server = Preview(engine, Settings(), tmp_path / "preview", today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc), port=0, say=said.append)
    server.start()
    try:
        page, first_id = server.url + "en/glossary/gpu/", server.build_id
        assert "Graphics processing unit, shared" not in _get(page)[1]
        sample_cli("edit", "entry:gpu", "--set", "en.headword=Graphics processing unit, shared")
        _wait_for(lambda: "Graphics processing unit, shared" in _get(page)[1], "the other editor's edit", said)
        _wait_for(lambda: server.build_id != first_id, "a new build id for the reload script", said)
        built = server.build_id
        time.sleep(3 * 2.0)  # a few rounds of asking: nothing changed, nothing rebuilt
        assert server.build_id == built, said
    finally:
        server.stop()
        engine.dispose()


def test_an_edit_committed_while_the_preview_builds_is_previewed_next(sample_cli, databases, tmp_path, monkeypatch):
    """Another editor's edit committed on the shared database while the preview builds, after the build read
    the content: the next round of asking sees it and builds again (the state was read after the build, so
    the edit counted as built and was never previewed)."""
    if databases.backend == "sqlite":
        pytest.skip("a SQLite file is watched, not asked: the tests above")
    from newsroom import serve

    engine = make_engine(sample_cli.db_url)
    server = Preview(engine, Settings(), tmp_path / "preview", today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc), port=0, say=lambda _: None)
    real_build = serve.build

    def build_then_a_colleague_edits(*args, **kwargs):
        result = real_build(*args, **kwargs)
        monkeypatch.setattr(serve, "build", real_build)  # once
        sample_cli("edit", "entry:gpu", "--set", "en.headword=Graphics processing unit, shared")
        return result

    monkeypatch.setattr(serve, "build", build_then_a_colleague_edits)
    try:
        server.rebuild()
        page = tmp_path / "preview" / "en" / "glossary" / "gpu" / "index.html"
        assert text_of(parse(page).find(".//h1")) == "GPU"
        server.handle([])  # a round of asking the database
        assert text_of(parse(page).find(".//h1")) == "Graphics processing unit, shared"
    finally:
        server.http.server_close()
        engine.dispose()


def test_a_changed_static_file_is_served_again(tmp_path):
    work, static = tmp_path / "work", tmp_path / "static"
    build_sample(work)
    (static / ".well-known").mkdir(parents=True)
    (static / "robots.txt").write_text("User-agent: *\n", encoding="utf-8")
    engine = make_engine(f"sqlite:///{work / 'site.db'}")
    said: list[str] = []
    server = Preview(engine, Settings(static=str(static)), tmp_path / "preview", today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc),
                     database_file=work / "site.db", port=0, say=said.append)
    server.start()
    try:
        assert _get(server.url + "robots.txt") == (200, "User-agent: *\n")
        (static / "robots.txt").write_text("User-agent: *\nDisallow: /\n", encoding="utf-8")
        (static / ".well-known" / "security.txt").write_text("Contact: mailto:x@example.org\n", encoding="utf-8")
        _wait_for(lambda: _get(server.url + "robots.txt")[1].endswith("Disallow: /\n"), "the new robots.txt", said)
        _wait_for(lambda: _get(server.url + ".well-known/security.txt")[0] == 200, "a new dot-folder's file", said)
    finally:
        server.stop()
        engine.dispose()


def test_a_removed_content_file_is_said_to_leave_its_record(tmp_path):
    """The preview imports what changes and deletes nothing: a removed file's story stays, and it says so,
    naming the record of an exported file and how to delete it (the site file's settings are no record to delete)."""
    from sitebuild import run

    work, content = tmp_path / "work", tmp_path / "content"
    build_sample(work)
    run(work, "export", str(content))
    loose = tmp_path / "loose"
    loose.mkdir()
    shutil.copy(SAMPLE_DIR / "entries" / "gpu.yaml", loose)
    said: list[str] = []
    server = _started(work, tmp_path / "preview", [content, loose], said)
    try:
        story = content / "stories" / "i13-aws-trainium3-capacity.yaml"
        story.unlink()
        (loose / "gpu.yaml").unlink()
        (content / "site.yaml").unlink()
        _wait_for(lambda: sum("removed; its record stays" in m for m in said) == 2, "the removals said", said)
        _wait_for(lambda: f"{(content / 'site.yaml').resolve()}: removed; the site's settings stay in the database as "
                          "they are" in said, "the site file's removal said", said)
        assert (f"{story.resolve()}: removed; its record stays in the database and in the preview (`newsroom delete "
                "story:i13-aws-trainium3-capacity`, or `newsroom import FOLDER --prune` deletes it)") in said
        assert (f"{(loose / 'gpu.yaml').resolve()}: removed; its record stays in the database and in the preview "
                "(`newsroom delete KEY` deletes it)") in said
        assert _get(server.url + "en/issues/13/")[1].count("Trainium3") > 0
    finally:
        _stopped(server)


def test_a_saved_file_that_would_stop_every_build_is_not_imported(tmp_path):
    """As `newsroom import`: the preview names the error in the file, stores nothing and keeps showing the
    content as it was; the file saved again, fixed, goes in."""
    from sitebuild import run

    work, content = tmp_path / "work", tmp_path / "content"
    build_sample(work)
    content.mkdir()
    entry = content / "gpu.yaml"
    shutil.copy(SAMPLE_DIR / "entries" / "gpu.yaml", entry)
    said: list[str] = []
    server = _started(work, tmp_path / "preview", [content], said)
    try:
        text = entry.read_text(encoding="utf-8")
        assert "    A GPU (graphics processing unit)" in text
        entry.write_text(text.replace("    A GPU (graphics processing unit)", "    Cited [9]: a GPU (graphics "
                                      "processing unit)"), encoding="utf-8")
        _wait_for(lambda: any("citation [9] has no source" in m for m in said), "the error said", said)
        assert any(m.startswith(f"{entry.resolve()}:") and m.endswith("en.definition: citation [9] has no source "
                                                                      "(3 sources listed)") for m in said), said
        assert ("every build would stop on this error, which the content did not have before: fix and save again "
                "(the preview shows the content as it was)") in said
        assert run(work, "history", "entry:gpu").startswith("entry gpu: version 1 is current")
        entry.write_text(text.replace("    A GPU (graphics processing unit)", "    Fixed: a GPU (graphics "
                                      "processing unit)"), encoding="utf-8")
        _wait_for(lambda: "Fixed: a GPU" in _get(server.url + "en/glossary/gpu/")[1], "the fixed entry served", said)
    finally:
        _stopped(server)


def test_a_file_changing_an_issue_whose_time_has_come_is_a_correction(tmp_path, monkeypatch):
    """As for every command that changes the content: the preview's import first records a scheduled issue
    whose time has come as published, so a change of it is a correction, which the preview leaves to
    `newsroom import --correction` (listed among the issue's corrections) and says so."""
    from sitebuild import run

    work, content = tmp_path / "work", tmp_path / "content"
    build_sample(work)
    (content / "issues").mkdir(parents=True)
    (content / "stories").mkdir()
    (content / "issues" / "0014.yaml").write_text(DRAFT_ISSUE.replace(
        "status: draft", "status: scheduled\npublished_at: 2026-11-30T10:00:00+01:00"), encoding="utf-8")
    story = content / "stories" / "i14-story.yaml"
    story.write_text(ISSUE_14_STORY, encoding="utf-8")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-30T08:00:00+01:00")
    run(work, "import", str(content))
    said: list[str] = []
    server = _started(work, tmp_path / "preview", [content], said)
    try:
        story.write_text(ISSUE_14_STORY.replace("Out on Monday.", "Out on Monday at seven."), encoding="utf-8")
        _wait_for(lambda: any("issue 14 is published" in m for m in said), "the change refused", said)
    finally:
        _stopped(server)
    assert "issue 14: its scheduled time has come; recorded as published" in said
    assert (f"{story.resolve()}: issue 14 is published, and this file changes its en.summary: that is a correction "
            "readers are shown; import with --correction --reason \"Fixed the chip's name in the headline\" to make "
            "it (it is listed among the issue's corrections with that reason)") in said
    assert "issue 14: no corrections" in run(work, "issue", "corrections", "14")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-30T13:00:00+01:00")  # the preview's clock, after 10:00
    run(work, "import", "--correction", "--reason", "corrected", str(story))
    listed = run(work, "issue", "corrections", "14")
    assert "import  story:i14-story  en.summary" in listed, listed


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback(), reason="this machine has no IPv6 loopback")
def test_an_ipv6_host_is_listened_on_and_linked_in_brackets(tmp_path):
    """`serve --host ::1` said "cannot listen on ::1:8000: Address family for hostname not supported"."""
    from sitebuild import OWN_SITE, run

    work = tmp_path / "work"
    for relative, text in OWN_SITE.items():
        (work / "content" / relative).parent.mkdir(parents=True, exist_ok=True)
        (work / "content" / relative).write_text(text, encoding="utf-8")
    run(work, "init")
    run(work, "import", str(work / "content"))
    engine = make_engine(f"sqlite:///{work / 'site.db'}")
    server = Preview(engine, Settings(), tmp_path / "preview", today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc),
                     database_file=work / "site.db", host="::1", port=0, say=lambda message: None)
    server.start()
    try:
        assert server.url == f"http://[::1]:{server.port}/"
        status, body = _get(server.url + "hu/method/")
        assert status == 200
        [canonical] = [link.get("href") for link in html5lib.parse(body, namespaceHTMLElements=False).iter("link") if link.get("rel") == "canonical"]
        assert canonical == f"http://[::1]:{server.port}/hu/method/"
    finally:
        server.stop()
        engine.dispose()
