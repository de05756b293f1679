"""The build: both languages, valid pages that know their language and twin, a sitemap."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path
from xml.etree import ElementTree as ET

import html5lib
import pytest
from conftest import POSTGRES_ENV, Cli, Databases, Templates
from sitebuild import OWN_SITE
from stopping import SAID_GAP_SECONDS, STUCK_WORKER, TIMEOUT, WITH_WORKERS, ended, stopped_with_a_stuck_worker

from newsroom.build import rendering
from newsroom.build.page_specs import PageSpec
from newsroom.render.search_query import search
from newsroom.render.sitemap import render_sitemap

SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
XHTML = "{http://www.w3.org/1999/xhtml}"
BASE = "https://news.example.org/"


@pytest.fixture
def site(sample_cli) -> Path:
    out = sample_cli.cwd / "_site"
    result = sample_cli("build", "--out", str(out), "--base-url", BASE)
    assert "pages" in result.stdout
    return out


#: Why the tests of what the pages say run on SQLite alone: the site is made from the content the store loads,
#: and the sample's site is the same, byte for byte, from either database (see the test that builds it on both).
SAME_SITE = "the site is the same from either database (test_the_sample_builds_the_same_site_from_either_database)"


def _parse(path: Path):
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    return parser.parse(path.read_bytes())


def _pages(site: Path) -> list[Path]:
    """The indexed pages: not the root redirect, not the 404 pages (tests/test_site_html.py covers those)."""
    return sorted(p for p in site.rglob("*.html") if p != site / "index.html" and p.name != "404.html")


@pytest.mark.skipif(not os.environ.get(POSTGRES_ENV), reason=f"set {POSTGRES_ENV} to a PostgreSQL server URL to run it")
def test_the_sample_builds_the_same_site_from_either_database(tmp_path: Path, _templates: Templates):
    """Every page, feed, email and index file of the sample, built from PostgreSQL and from SQLite at one moment:
    the same files, byte for byte (no order left to the database, no type read back differently)."""
    built = {}
    for backend in ("sqlite", "postgresql"):
        databases = Databases(backend, tmp_path, _templates)
        try:
            work = tmp_path / backend
            work.mkdir()
            Cli(databases.new("sample"), work)("build", "--out", str(work / "_site"), "--base-url", BASE)
        finally:
            databases.drop_all()
        site = work / "_site"
        built[backend] = {path.relative_to(site).as_posix(): path.read_bytes() for path in site.rglob("*")
                          if path.is_file()}
    assert len(built["sqlite"]) > 300
    assert sorted(built["postgresql"]) == sorted(built["sqlite"])
    assert [path for path in sorted(built["sqlite"]) if built["sqlite"][path] != built["postgresql"][path]] == []


@pytest.mark.sqlite_only(SAME_SITE)
def test_both_languages_have_every_page_type(site):
    for lang in ("hu", "en"):
        for page in ("index.html", "issues/13/index.html", "issues/index.html", "glossary/index.html",
                     "glossary/trainium/index.html", "reference/trainium/index.html", "method/index.html"):
            assert (site / lang / page).is_file(), f"{lang}/{page}"


@pytest.mark.sqlite_only(SAME_SITE)
def test_a_language_s_folders_are_its_own_pages_and_the_site_pages(site):
    # What a site page's slug may not be (newsroom.build.urls.SITE_FOLDERS) is every folder the build makes
    # for each language beside the site pages' own (the sample's one: `method`).
    from newsroom.build.urls import SITE_FOLDERS

    for lang in ("hu", "en"):
        folders = {path.name for path in (site / lang).iterdir() if path.is_dir()}
        assert folders - {"method"} == set(SITE_FOLDERS), lang


@pytest.mark.sqlite_only(SAME_SITE)
def test_every_page_is_well_formed_html5_with_its_language_and_twin(site):
    for path in _pages(site):
        relative = path.relative_to(site).as_posix()
        lang = relative.split("/")[0]
        document = _parse(path)  # strict: raises on any parse error
        assert document.get("lang") == lang, relative
        alternates = {link.get("hreflang"): link.get("href") for link in document.iter("link")
                      if link.get("rel") == "alternate" and link.get("hreflang")}
        other_lang = "en" if lang == "hu" else "hu"
        twin_path = relative.replace(f"{lang}/", f"{other_lang}/", 1)
        if "/glossary/letter/" in relative and not (site / twin_path).is_file():
            # A letter the other alphabet lacks or no headword starts with: no twin, so no alternates; the
            # language switch leads to the other language's index.
            assert alternates == {}, relative
            twin_path = f"{other_lang}/glossary/index.html"
            switch = [a for li in document.iter("li") if li.get("class") == "languages" for a in li.iter("a")]
            assert [a.get("href") for a in switch] == ["/" + twin_path.removesuffix("index.html")], relative
            assert switch[0].get("rel") is None, relative
            continue
        for other in ("hu", "en"):
            twin = alternates[other]
            assert twin.startswith(BASE)
            target = site / twin.removeprefix(BASE) / "index.html"
            assert target.is_file(), f"{relative}: twin {twin} missing"
        assert alternates["x-default"] == alternates["hu"]
        switch = [a for a in document.iter("a") if a.get("rel") == "alternate" and a.get("hreflang")]
        assert switch, f"{relative}: no language switch"
        assert switch[0].get("href") == "/" + twin_path.removesuffix("index.html")


@pytest.mark.sqlite_only(SAME_SITE)
def test_sitemap_lists_every_page_with_hreflang_alternates(site):
    tree = ET.parse(site / "sitemap.xml")
    entries = {url.find(f"{SITEMAP}loc").text: url for url in tree.getroot()}
    pages = {BASE + p.relative_to(site).as_posix().removesuffix("index.html") for p in _pages(site)}
    assert set(entries) == pages
    trainium = entries[BASE + "hu/glossary/trainium/"]
    links = {link.get("hreflang"): link.get("href") for link in trainium.findall(f"{XHTML}link")}
    assert links == {"hu": BASE + "hu/glossary/trainium/", "en": BASE + "en/glossary/trainium/",
                     "x-default": BASE + "hu/glossary/trainium/"}


def test_sitemap_escapes_what_urls_may_carry():
    # The sitemap is written directly, not through ElementTree: a parser must read back every URL.
    odd = 'hu/a&b"c<d>/'
    pages = [PageSpec(odd, "hu", "page.html", {}, {"hu": odd, "en": "en/e\tf\ng/"}, dt.date(2026, 11, 30)),
             PageSpec("en/only/", "en", "page.html", {}, {}, None)]
    root = ET.fromstring(render_sitemap(pages, BASE, "hu"))
    entries = {url.find(f"{SITEMAP}loc").text: url for url in root}
    assert set(entries) == {BASE + odd, BASE + "en/only/"}
    links = {link.get("hreflang"): link.get("href") for link in entries[BASE + odd].findall(f"{XHTML}link")}
    assert links == {"hu": BASE + odd, "en": BASE + "en/e\tf\ng/", "x-default": BASE + odd}
    assert entries[BASE + odd].find(f"{SITEMAP}lastmod").text == "2026-11-30"


@pytest.mark.sqlite_only(SAME_SITE)
def test_the_root_leads_to_the_default_language(site):
    document = _parse(site / "index.html")
    assert document.get("lang") == "hu"
    assert any(a.get("href") == "hu/" for a in document.iter("a"))


@pytest.mark.sqlite_only(SAME_SITE)
def test_entry_page_shows_relations_from_both_sides(site):
    document = _parse(site / "en" / "glossary" / "trainium2" / "index.html")
    text = " ".join(" ".join(document.itertext()).split())
    assert "Broader" in text
    broader_section = text.split("Broader", 1)[1]
    assert broader_section.lstrip().startswith("Trainium") or "Trainium ," in broader_section[:200]


def test_a_failed_build_leaves_the_previous_site_untouched(sample_cli, site, write_files):
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    broken = write_files({"stories/broken.yaml": """\
kind: story
slug: broken-link
issue: 13
section: code
position: 99
sources: [{publisher: X, title: Y, url: "https://example.org/"}]
hu: {headline: Törött, summary: "Lásd [ezt](entry:no-such-entry)."}
en: {headline: Broken, summary: "See [this](entry:no-such-entry)."}
"""})
    # As a backup restored as it was:
    sample_cli("import", "--no-check", "--correction", "--reason", "corrected", str(broken))
    result = sample_cli("build", "--out", str(site), "--base-url", BASE, expect=1)
    assert "story:broken-link: en.summary: link to a missing entry 'no-such-entry'" in result.stderr
    after = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    assert after == before


def _built_on_a_terminal(db_url: str, cwd: Path, *args: str, columns: int = 100) -> tuple[int, str, str]:
    """`newsroom build` run as the console script with its stderr on a pseudo-terminal of `columns`, as a
    person runs it: (exit status, stdout, what the terminal showed)."""
    pty = pytest.importorskip("pty")
    fcntl, termios = pytest.importorskip("fcntl"), pytest.importorskip("termios")
    code = ("import sys\nsys.argv = ['newsroom', *sys.argv[1:]]\nfrom newsroom.cli import run\nrun()\n")
    master, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 30 if columns else 0, columns, 0, 0))
    process = subprocess.Popen([sys.executable, "-c", code, "--db", db_url, "build", *args], cwd=cwd,
                               stdout=subprocess.PIPE, stderr=terminal)
    os.close(terminal)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal's last writer has closed it
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    stdout = process.communicate()[0]
    return process.returncode, stdout.decode(), shown.decode(errors="replace")


@pytest.mark.sqlite_only
def test_a_build_on_a_terminal_shows_its_progress_and_ends_with_one_summary_line(sample_cli, tmp_path):
    """On a terminal a bar counts the pages and files made; with `--quiet` (after `build` or before it)
    nothing but problems is printed; not on a terminal there is no bar. Every build that prints ends
    with one line: files written, unchanged, removed, and the time."""
    # At an address readers reach: a build at one they do not (the preview's, an example's) says so.
    site = ["--out", str(tmp_path / "site"), "--email-out", str(tmp_path / "email"), "--base-url",
            "https://news.aikorszak.hu/"]
    status, out, shown = _built_on_a_terminal(sample_cli.db_url, tmp_path, *site)
    assert status == 0, shown
    counts = re.findall(r"(\d+)/(\d+) \[", shown)  # tqdm: "…| 120/276 [00:00<00:00, 300.2page/s]"
    assert counts and "page/s" in shown, shown
    # Its works: the 260 pages (256 in the sitemap, the root and three 404 pages), 7 feeds and a search
    # index in each language.
    assert {int(total) for _, total in counts} == {276}, counts
    assert max(int(done) for done, _ in counts) <= 276
    summary = out.splitlines()
    assert len(summary) == 1 and re.fullmatch(
        rf"370 files \(256 pages, 256 rendered\): 370 written, 0 unchanged, 0 removed in \d+\.\d\ds → "
        rf"{re.escape(str(tmp_path / 'site'))}", summary[0]), out

    # A terminal that reports no width (a new pseudo-terminal, some containers') gets a bar all the same.
    status, out, shown = _built_on_a_terminal(sample_cli.db_url, tmp_path, "--full", *site, columns=0)
    assert status == 0 and re.search(r"making: +\d+%\|[^|]*\| \d+/276 \[", shown), shown

    for quiet in (["--quiet"], ["-q"]):
        status, out, shown = _built_on_a_terminal(sample_cli.db_url, tmp_path, "--full", *quiet, *site)
        assert (status, out, shown) == (0, "", "")
    quiet_first = sample_cli("--quiet", "build", "--full", *site)
    assert quiet_first.stdout == "" and quiet_first.stderr == ""
    piped = sample_cli("build", "--full", *site)  # not on a terminal: the summary, no bar
    assert piped.stderr == "" and re.fullmatch(r"370 files \(256 pages, 256 rendered\): 0 written, 370 unchanged, "
                                               r"0 removed in \d+\.\d\ds → .*\n", piped.stdout), piped.stdout


@pytest.mark.sqlite_only("a signal's handling does not depend on the database")
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="seeing a worker ended needs Linux's /proc")
def test_a_build_stopped_a_third_time_as_it_waits_for_a_stuck_worker_ends_at_once(sample_cli, site):
    """Ctrl-C stops a build, which waits for its render workers to end; one that does not end at SIGTERM (stuck
    at its work) is waited for after the first Ctrl-C and the second, and the third ends it (SIGKILL after a
    grace): the build ends at once, exit 1, saying the folder is as before it and to build again (the stops were
    held until the worker ended: `kill -9` alone ended the build). Each stop is answered: the first, after a
    second's wait, with what it waits for; the second with what a third does and leaves (it said nothing, as if
    not heard). The folder is as before it, byte for byte."""
    before = _tree(site)
    stopped = stopped_with_a_stuck_worker(["--db", sample_cli.db_url, "build", "--full", "--out", str(site),
                                           "--base-url", BASE], sample_cli.cwd, [signal.SIGINT] * 3,
                                          gap=SAID_GAP_SECONDS)
    if stopped is None:
        pytest.skip("the build forked no worker that could be seen before it ended")
    code, said, worker = stopped
    assert code == 1 and said == [
        "stopping: waiting for the build's render workers to end",
        "stopping: still waiting for the build's render workers to end; stopped once more (Ctrl-C), by `kill` or by "
        f"its terminal closing, the build ends at once, its render workers ended by force, and {site} is left as it "
        "was before this build",
        f"Error: stopped without waiting for the build's render workers to end: they were ended at once, and {site} "
        "is left as it was before this build: build again to bring it up to date"], said
    assert ended(worker)
    assert _tree(site) == before


@pytest.mark.sqlite_only("a signal's handling does not depend on the database")
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="seeing a worker ended needs Linux's /proc")
@pytest.mark.parametrize(("stops", "named"), [
    ([signal.SIGTERM], "`kill` (SIGTERM)"), ([signal.SIGINT, signal.SIGTERM], "`kill` (SIGTERM)"),
    ([getattr(signal, "SIGHUP", signal.SIGTERM)], "its terminal closing (SIGHUP)")],
    ids=["kill", "ctrl-c-then-kill", "terminal-closed"])
def test_a_build_stopped_by_kill_ends_at_once_and_leaves_its_folder_as_it_was(sample_cli, site, stops, named):
    """`kill` (SIGTERM, as a scheduler stops a command: systemd sends SIGKILL after it) or the terminal closed
    (SIGHUP: an ssh connection dropped) ends a build at once, also as it waits for its render workers after a
    Ctrl-C: its workers ended (one stuck at its work too), exit 1, saying so and naming the signal and the folder,
    left as it was before the build, byte for byte, with nothing of the build's beside it (the signal's default
    ended it saying nothing, and left its work folder beside the site)."""
    before, beside = _tree(site), sorted(site.parent.iterdir())
    stopped = stopped_with_a_stuck_worker(["--db", sample_cli.db_url, "build", "--full", "--out", str(site),
                                           "--base-url", BASE], sample_cli.cwd, stops)
    if stopped is None:
        pytest.skip("the build forked no worker that could be seen before it ended")
    code, said, worker = stopped
    assert code == 1 and said == [f"Error: stopped by {named}: the build ended at once, and {site} is left as it was "
                                  "before this build: build again to bring it up to date"], said
    assert ended(worker)
    assert _tree(site) == before
    assert sorted(site.parent.iterdir()) == beside  # its new tree too (a `.NAME.new-…` folder) is gone


@pytest.mark.sqlite_only("a signal's handling does not depend on the database")
@pytest.mark.skipif(not hasattr(os, "openpty") or not Path("/proc/self/task").is_dir(),
                    reason="a real hang-up needs a pseudo-terminal, and seeing a worker ended Linux's /proc")
def test_a_build_whose_terminal_hangs_up_ends_at_once_and_leaves_its_folder_as_it_was(sample_cli, site):
    """A real hang-up, as when an ssh connection drops: `newsroom build` runs in a session of its own whose
    controlling terminal (its input, output and errors) is a pseudo-terminal, and the terminal's other end is
    closed as the build waits for its render workers, one stuck at its work: the kernel sends SIGHUP to the
    terminal's processes. The build ends at once, with its workers, exit 1, though what it would say can no longer
    be written anywhere; the folder is as before it, byte for byte, with nothing of the build's beside it."""
    import fcntl
    import select
    import termios

    before, beside = _tree(site), sorted(site.parent.iterdir())
    controller, terminal = os.openpty()

    def controlled_by_the_terminal() -> None:  # in the child, a session's leader: its input's terminal becomes its own
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    process = subprocess.Popen([sys.executable, "-c", STUCK_WORKER, "--db", sample_cli.db_url, "build", "--full",
                                "--out", str(site), "--base-url", BASE], cwd=sample_cli.cwd,
                               env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1]), **WITH_WORKERS},
                               stdin=terminal, stdout=terminal, stderr=terminal, start_new_session=True,
                               preexec_fn=controlled_by_the_terminal)
    os.close(terminal)
    try:
        shown, deadline, worker = b"", time.monotonic() + TIMEOUT, None
        while worker is None and time.monotonic() < deadline:
            if select.select([controller], [], [], 0.1)[0]:
                try:
                    shown += os.read(controller, 65536)
                except OSError:  # the command ended, and with it the terminal's last user
                    break
            found = re.search(rb"a render worker is stuck: (\d+)", shown)
            worker = int(found.group(1)) if found else None
        if worker is None:
            pytest.skip(f"the build forked no worker that could be seen before it ended: {shown[-500:]!r}")
        os.close(controller)  # the terminal hangs up
        controller = -1
        code = process.wait(timeout=TIMEOUT)
    finally:
        if controller >= 0:
            os.close(controller)
        if process.poll() is None:
            process.kill()
            process.wait()
    assert code == 1
    deadline = time.monotonic() + TIMEOUT
    while not ended(worker) and time.monotonic() < deadline:  # reaped by the build, or by init once it is gone
        time.sleep(0.05)
    assert ended(worker)
    assert _tree(site) == before
    assert sorted(site.parent.iterdir()) == beside


#: `newsroom ARGS` sent the signal $STOP (`kill`'s SIGTERM by default) by itself once its build has replaced the
#: first of the files it changes in place (an incremental build's few, see writer.apply_changes; a render worker
#: writing into a new tree passes no scratch folder, and is not the process signalled).
KILLED_AS_IT_WRITES = """\
import os, runpy, signal, sys
from newsroom.build import writer
real, replaced, command = writer._replace, [], os.getpid()
stop = signal.Signals[os.environ.get("STOP", "SIGTERM")]
def replace(root, relative, data, scratch=None):
    real(root, relative, data, scratch)
    if scratch is not None and os.getpid() == command:
        replaced.append(relative)
        if len(replaced) == 1:
            os.kill(command, stop)
writer._replace = replace
sys.argv = ["newsroom", *sys.argv[1:]]
runpy.run_module("newsroom", run_name="__main__")
"""


@pytest.mark.sqlite_only("a signal's handling does not depend on the database")
@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no SIGTERM to handle: it ends a process at once")
@pytest.mark.parametrize(("stop", "named"), [("SIGTERM", "`kill` (SIGTERM)"),
                                             ("SIGHUP", "its terminal closing (SIGHUP)"), ("SIGINT", "Ctrl-C")])
def test_a_build_stopped_by_kill_as_it_replaces_its_files_writes_them_all_first(sample_cli, site, tmp_path, stop,
                                                                                 named):
    """`kill`, the terminal closed or Ctrl-C as an incremental build replaces the files an edit changed, one by one:
    they are all written first, and the build says it was stopped, by what, and that the folder is its own, whole;
    it is the site a full build makes (SIGTERM's and SIGHUP's default ended it with some files new and some old,
    saying nothing; Ctrl-C's said "Aborted!")."""
    sample_cli("story", "edit", "i10-ai-designed-pet-enzymes", "--headline-en", "Edited", "--correction",
               "--reason", "typo")
    process = subprocess.run([sys.executable, "-c", KILLED_AS_IT_WRITES, "--db", sample_cli.db_url, "build", "--out",
                              str(site), "--base-url", BASE], cwd=sample_cli.cwd, capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1]), "STOP": stop},
                             timeout=120)
    assert process.returncode == 1 and process.stderr == (
        f"Error: stopped by {named} as this build wrote {site}, which it finished first: {site} is this build's, "
        "whole and up to date\n"), (process.returncode, process.stdout, process.stderr)
    fresh = tmp_path / "fresh"
    sample_cli("build", "--out", str(fresh), "--base-url", BASE, "--full")
    assert _tree(site) == _tree(fresh)


#: `newsroom ARGS` started as `nohup` starts it (SIGHUP ignored), whose terminal closes (SIGHUP to every process of
#: its group, $HUNG_UP made once sent) as soon as its build has forked its render workers, each of which waits for
#: it before taking its first chunk.
HUNG_UP_AS_IT_RENDERS = """\
import os, runpy, signal, sys, time
from newsroom.build import rendering
signal.signal(signal.SIGHUP, signal.SIG_IGN)
command, hung_up = os.getpid(), os.environ["HUNG_UP"]
real_wait, real_next = rendering.wait, rendering._next_chunk
def wait(*args, **kwargs):
    if os.getpid() == command and not os.path.exists(hung_up):
        os.killpg(0, signal.SIGHUP)
        open(hung_up, "w").close()
    return real_wait(*args, **kwargs)
def next_chunk(job, slot):
    while not os.path.exists(hung_up):
        time.sleep(0.01)
    return real_next(job, slot)
rendering.wait, rendering._next_chunk = wait, next_chunk
sys.argv = ["newsroom", *sys.argv[1:]]
runpy.run_module("newsroom", run_name="__main__")
"""


@pytest.mark.sqlite_only("a signal's handling does not depend on the database")
@pytest.mark.skipif(not hasattr(os, "killpg"), reason="no process groups (Windows)")
def test_a_build_started_with_nohup_goes_on_when_its_terminal_closes(sample_cli, site, tmp_path):
    """`nohup newsroom build`: the terminal closed (SIGHUP to every process of the command) as its render workers
    work is ignored by them too, and the build ends as it would have, its folder whole (each worker ended at the
    signal's default, and the build failed: "a render worker ended before its works did")."""
    before, hung_up = _tree(site), tmp_path / "hung-up"
    process = subprocess.run([sys.executable, "-c", HUNG_UP_AS_IT_RENDERS, "--db", sample_cli.db_url, "build",
                              "--full", "--out", str(site), "--base-url", BASE], cwd=sample_cli.cwd,
                             capture_output=True, text=True, start_new_session=True, timeout=120,
                             env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1]), **WITH_WORKERS,
                                  "HUNG_UP": str(hung_up)})
    if not hung_up.exists():
        pytest.skip("the build forked no worker that could be seen before it ended")
    assert process.returncode == 0 and "Error" not in process.stderr, (process.returncode, process.stdout,
                                                                       process.stderr)
    assert re.fullmatch(r"370 files \(256 pages, 256 rendered\): 0 written, 370 unchanged, 0 removed in \d+\.\d\ds → "
                        rf"{re.escape(str(site))}\n", process.stdout), process.stdout
    assert _tree(site) == before


#: `newsroom ARGS` whose build's first render worker is killed (SIGKILL, as the out-of-memory killer does) as it
#: begins its work.
WORKER_KILLED = """\
import os, runpy, signal, sys
from newsroom.build import rendering
real = rendering._work_through
def killed(job, slot, results, inherited):
    if slot == 0:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(job, slot, results, inherited)
rendering._work_through = killed
sys.argv = ["newsroom", *sys.argv[1:]]
runpy.run_module("newsroom", run_name="__main__")
"""


@pytest.mark.sqlite_only("a worker's end does not depend on the database")
def test_a_build_whose_render_worker_is_killed_says_so_and_leaves_its_folder_as_it_was(sample_cli, site):
    """A render worker killed from outside (out of memory): the build ends with one line saying so, what it leaves
    and what to do, not a traceback; its folder is as it was (a full build assembles a new tree, thrown away)."""
    before, beside = _tree(site), sorted(site.parent.iterdir())
    process = subprocess.run([sys.executable, "-c", WORKER_KILLED, "--db", sample_cli.db_url, "build", "--full",
                              "--out", str(site), "--base-url", BASE], cwd=sample_cli.cwd, capture_output=True,
                             text=True, timeout=120,
                             env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1]), **WITH_WORKERS})
    if process.returncode == 0:
        pytest.skip("the build forked no worker that could be seen before it ended")
    assert process.returncode == 1 and process.stderr == (
        f"Error: a render worker ended before its works did (killed, or out of memory?): {site} is left as it was "
        "before this build: build again (if memory ran short, with fewer render workers: `newsroom build --jobs 1 …`)\n"
    ), process.stderr
    assert _tree(site) == before
    assert sorted(site.parent.iterdir()) == beside


@pytest.mark.sqlite_only("how many processes render does not depend on the database")
def test_jobs_says_how_many_render_workers_a_build_forks_and_any_number_builds_the_same_site(sample_cli, tmp_path,
                                                                                          monkeypatch):
    """`build --jobs N` (or $NEWSROOM_JOBS) forks N render workers; with 1 the build renders in its own process
    (a machine shared with other work, or short of memory). Each number builds the same site, byte for byte. A
    number that is none is refused, naming where it was given, and nothing is built."""
    forks: list[int] = []
    fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or fork())
    built = {}
    for jobs in ("1", "2", "3"):
        forks.clear()
        out = tmp_path / f"site-{jobs}"
        if jobs == "3":
            monkeypatch.setenv("NEWSROOM_JOBS", jobs)
            sample_cli("build", "--out", str(out), "--base-url", BASE, "--quiet")
        else:
            sample_cli("build", "--out", str(out), "--base-url", BASE, "--quiet", "--jobs", jobs)
        # The sample's pages rendered by N workers (its texts are too few to be parsed ahead by workers too).
        assert len(forks) == (0 if jobs == "1" else int(jobs)), (jobs, len(forks))
        built[jobs] = _tree(out)
    assert built["1"] == built["2"] == built["3"] and len(built["1"]) > 300
    refused = sample_cli("build", "--out", str(tmp_path / "none"), "--jobs", "0", expect=2).stderr
    assert "Invalid value for --jobs: '0' is no number of render workers: give a whole number, 1 or more" in refused
    monkeypatch.setenv("NEWSROOM_JOBS", "many")
    refused = sample_cli("build", "--out", str(tmp_path / "none"), expect=2).stderr
    assert "Invalid value for $NEWSROOM_JOBS: 'many' is no number of render workers" in refused
    assert "Invalid value for $NEWSROOM_JOBS: 'many'" in sample_cli("serve", "--port", "0", expect=2).stderr
    assert not (tmp_path / "none").exists()


#: `newsroom ARGS` that stops itself by Ctrl-C (SIGINT to its own process) at the moment $STOP_AT names: as it
#: waits for its render workers ("waiting"), as it makes the sitemap once they are done, its new tree not yet
#: swapped in ("sitemap"), or as it waits for the old tree's removal, once it has written its folder ("written").
CTRL_C_AT = """\
import os, runpy, signal, sys
from newsroom.build import making, rendering, writer
command, at = os.getpid(), os.environ["STOP_AT"]
def stopping_first(real):
    def stopped(*args, **kwargs):
        if os.getpid() == command:
            os.kill(command, signal.SIGINT)
        return real(*args, **kwargs)
    return stopped
if at == "waiting":
    rendering.wait = stopping_first(rendering.wait)
elif at == "sitemap":
    making.render_sitemap = stopping_first(making.render_sitemap)
else:
    writer.StagedTree.wait = stopping_first(writer.StagedTree.wait)
sys.argv = ["newsroom", *sys.argv[1:]]
runpy.run_module("newsroom", run_name="__main__")
"""


@pytest.mark.sqlite_only("a signal's handling does not depend on the database")
@pytest.mark.parametrize("at", ["waiting", "sitemap", "written"])
def test_a_build_stopped_once_by_ctrl_c_says_what_it_left(sample_cli, site, tmp_path, at):
    """One Ctrl-C ends a build with a line saying what its folder is and what to do, not click's "Aborted!":
    before the build wrote its folder (as it waits for its render workers, or after them), the folder is as it
    was, with nothing of the build's beside it (a stop as it made the sitemap left its new tree there); once
    written, the folder is this build's, whole."""
    if at == "waiting" and rendering.workers() < 2:
        pytest.skip("a build on one core forks no render worker to wait for")
    before, beside = _tree(site), sorted(site.parent.iterdir())
    process = subprocess.run([sys.executable, "-c", CTRL_C_AT, "--db", sample_cli.db_url, "build", "--full",
                              "--out", str(site), "--base-url", BASE], cwd=sample_cli.cwd, capture_output=True,
                             text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1]),
                                                          **WITH_WORKERS, "STOP_AT": at})
    said = process.stderr.splitlines()
    assert process.returncode == 1 and said and said[-1] == (
        f"Error: stopped by Ctrl-C as this build wrote {site}, which it finished first: {site} is this build's, "
        "whole and up to date" if at == "written" else
        f"Error: stopped by Ctrl-C: the build ended, and {site} is left as it was before this build: build again "
        "to bring it up to date"), (process.returncode, process.stdout, process.stderr)
    assert _tree(site) == before  # the same content: the folder a full build of it makes
    assert sorted(site.parent.iterdir()) == beside


def _tree(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in sorted(folder.rglob("*"))
            if path.is_file()}


@pytest.mark.sqlite_only("a page's description does not depend on the database")
def test_a_site_page_without_a_summary_is_described_by_the_start_of_its_body(cli, write_files, tmp_path):
    """The Method page of a new site, written without the optional summary, had an empty meta and Open Graph
    description: what search engines and link previews show of it."""
    cli("init")
    body = "## How we work\n\nEditors pick the week's [stories](https://example.org/) by hand. " + "More. " * 40
    cli("import", str(write_files({**OWN_SITE, "pages/method.yaml": OWN_SITE["pages/method.yaml"].replace(
        "body: By hand.}", f"body: {json.dumps(body)}}}")})))
    cli("build", "--out", str(tmp_path / "site"))
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    for lang, description in (("hu", "Kézzel."), ("en", "How we work Editors pick the week's stories by hand.")):
        page = parser.parse((tmp_path / "site" / lang / "method" / "index.html").read_bytes())
        metas = {m.get("name") or m.get("property"): m.get("content") for m in page.iter("meta")}
        assert metas["description"] == metas["og:description"]
        assert metas["description"].startswith(description) and len(metas["description"]) <= 160, metas


@pytest.mark.sqlite_only("a page's description does not depend on the database")
def test_a_reference_page_without_a_summary_is_described_by_its_first_simple_text(cli, write_files, tmp_path):
    """A reference page written without the optional summary had an empty meta, Open Graph and JSON-LD
    description."""
    cli("init")
    section = ("  sections:\n    - title: {title}\n      simple:\n        text: \"{text}\"\n")
    page = ("kind: reference\nslug: gpt-5\nupdated: 2026-12-01\n"
            "sources: [{publisher: OpenAI, title: System card, url: 'https://example.org/card'}]\n"
            "hu:\n  title: GPT-5\n" + section.format(title="Áttekintés", text="A GPT-5 az *OpenAI* modellje [1].")
            + "en:\n  title: GPT-5\n" + section.format(title="Overview", text="GPT-5 is *OpenAI*'s model [1]."))
    cli("import", str(write_files({**OWN_SITE, "reference/gpt-5.yaml": page})))
    cli("build", "--out", str(tmp_path / "site"))
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    for lang, description in (("hu", "A GPT-5 az OpenAI modellje."), ("en", "GPT-5 is OpenAI's model.")):
        document = parser.parse((tmp_path / "site" / lang / "reference" / "gpt-5" / "index.html").read_bytes())
        metas = {m.get("name") or m.get("property"): m.get("content") for m in document.iter("meta")}
        jsonld = [json.loads(s.text) for s in document.iter("script") if s.get("type") == "application/ld+json"]
        assert (metas["description"], metas["og:description"], jsonld[0]["description"]) == (description,) * 3


@pytest.mark.sqlite_only("a page's description and its search hit do not depend on the database")
def test_an_image_reads_as_its_alt_text_in_a_page_s_description_and_its_search_hit(cli, write_files, tmp_path):
    """"The chart ![energy per token](…) shows it" read "The chart shows it" in a page's description and its search
    hit's snippet, and the image's words found nothing: an image reads as its alt text, as the email's text part
    and a screen reader read it; one without alt text is decoration, and goes ("Two ![](…)." reads "Two.")."""
    site = _reference_page_built(cli, write_files, tmp_path, "The chart ![energy per token](https://example.org/"
                                 "chart.png) shows it [1]. Two ![](https://example.org/dot.png). Then three.")
    read = "The chart energy per token shows it. Two. Then three."
    for lang, document in site.items():
        metas = {m.get("name") or m.get("property"): m.get("content") for m in document.iter("meta")}
        assert (metas["description"], metas["og:description"]) == (read,) * 2
        hits = search(tmp_path / "site" / lang / "search" / "index", "energy per token")
        assert [(hit["title"], hit["snippet"]) for hit in hits] == [("GPT-5", read)]


def _reference_page_built(cli, write_files, tmp_path: Path, text: str) -> dict[str, object]:
    """A new site's reference page gpt-5 whose one section's simple text is `text`, built into tmp_path/site:
    the page parsed, by language."""
    cli("init")
    section = f"  sections:\n    - title: Overview\n      simple:\n        text: {json.dumps(text)}\n"
    page = ("kind: reference\nslug: gpt-5\nupdated: 2026-12-01\n"
            "sources: [{publisher: OpenAI, title: System card, url: 'https://example.org/card'}]\n"
            f"hu:\n  title: GPT-5\n{section}en:\n  title: GPT-5\n{section}")
    cli("import", str(write_files({**OWN_SITE, "reference/gpt-5.yaml": page})))
    cli("build", "--out", str(tmp_path / "site"))
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    return {lang: parser.parse((tmp_path / "site" / lang / "reference" / "gpt-5" / "index.html").read_bytes())
            for lang in ("hu", "en")}



@pytest.mark.sqlite_only("a page's alt text, description and search hit do not depend on the database")
def test_an_image_reads_as_its_alt_attribute_holds_it_in_a_page_s_description_and_its_search_hit(cli, write_files,
                                                                                                 tmp_path):
    """"![*Energy* per `token` …](…)" was described, and found in search, as its Markdown ("*Energy* per `token`"),
    where the page's `alt` attribute reads its text: both read "Energy per token …", raw HTML's tags out of both."""
    site = _reference_page_built(cli, write_files, tmp_path, "The chart ![*Energy* per `token` \\* [by chip]"
                                 "(https://example.org/c) &amp; <b>more</b>](https://example.org/chart.png) shows it.")
    alt = "Energy per token * by chip & more"
    for lang, document in site.items():
        assert [image.get("alt") for image in document.iter("img")] == [alt]
        metas = {m.get("name") or m.get("property"): m.get("content") for m in document.iter("meta")}
        assert (metas["description"], metas["og:description"]) == (f"The chart {alt} shows it.",) * 2
        hits = search(tmp_path / "site" / lang / "search" / "index", "token chip")
        assert [(hit["title"], hit["snippet"]) for hit in hits] == [("GPT-5", f"The chart {alt} shows it.")]
