"""Atomic output: a build that fails while rendering leaves the previous site byte-identical; one that
fails while writing leaves every file whole (old or new bytes), no leftovers, and the next build repairs it."""

from __future__ import annotations

import datetime as dt
import fcntl
import shutil
import subprocess
from pathlib import Path

import pytest
from sitebuild import BASE, build_sample

from newsroom import PROJECT_ROOT
from newsroom.build import pipeline, rendering, writer
from newsroom.db.session import make_engine
from newsroom.settings import Settings


@pytest.fixture
def published(tmp_path):
    """A built sample site and the engine of its database."""
    site = build_sample(tmp_path / "work")
    engine = make_engine(f"sqlite:///{tmp_path / 'work' / 'site.db'}")
    yield site, engine
    engine.dispose()


def _snapshot(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def _build(engine, site: Path, base_url: str = BASE, full: bool = False) -> pipeline.BuildResult:
    return pipeline.build(engine, Settings(base_url=base_url), site, dt.date(2026, 11, 30), full=full)


def _leftovers(site: Path) -> list[str]:
    """What a build left beside the site, but the folder's lock file (kept: see pipeline._only_build_of)."""
    return sorted(p.name for p in site.parent.iterdir()
                  if p.name.startswith(f".{site.name}.") and p.name != f".{site.name}.lock")


class _Placed:
    """The files given to the writer, in whichever process wrote them (render workers write their own
    pages): one line each in a log file."""

    def __init__(self, log: Path) -> None:
        self.log = log

    def add(self, relative: str) -> int:
        """Log one file; returns its place in the log (from 1). The log is locked while the line is added
        and counted: threads that each appended first and counted after would all count the others'
        lines as before their own, and every one of them fail."""
        with self.log.open("a+", encoding="utf-8") as file:
            fcntl.flock(file, fcntl.LOCK_EX)  # released as the file closes
            file.write(relative + "\n")
            file.flush()
            file.seek(0)
            return len(file.read().splitlines())

    def __len__(self) -> int:
        return len(self.log.read_text(encoding="utf-8").splitlines()) if self.log.exists() else 0


def _fail_writes_at(monkeypatch, count: int, log: Path) -> _Placed:
    """Make the writer fail with "disk full" from its `count`-th file on (the files reach it from several
    threads or processes at once: each sees how many were logged by then); returns the files it was given."""
    real_replace, placed = writer._replace, _Placed(log)

    def failing_replace(root, relative, data, *scratch):
        if placed.add(relative) >= count:
            raise OSError("disk full")
        return real_replace(root, relative, data, *scratch)

    monkeypatch.setattr(writer, "_replace", failing_replace)
    return placed


def test_a_renderer_failing_midway_leaves_the_old_site(published, monkeypatch):
    site, engine = published
    before = _snapshot(site)
    real_render, calls = rendering.render, []

    def failing_render(template, lang, context, **kwargs):
        calls.append(template)
        if len(calls) == 20:
            raise RuntimeError("renderer broke")
        return real_render(template, lang, context, **kwargs)

    monkeypatch.setattr(rendering, "render", failing_render)
    with pytest.raises(RuntimeError, match="renderer broke"):
        _build(engine, site, full=True)  # renders every page
    assert _snapshot(site) == before
    assert _leftovers(site) == []


def test_a_write_failing_after_some_files_leaves_the_old_site_and_the_next_build_repairs(published, monkeypatch,
                                                                                        tmp_path):
    site, engine = published
    other = "https://other.example.org/news/"  # changes every page
    _build(engine, tmp_path / "expected", base_url=other)
    expected = _snapshot(tmp_path / "expected")
    before = _snapshot(site)
    real_replace, placed = writer._replace, _fail_writes_at(monkeypatch, 30, tmp_path / "placed.log")
    with pytest.raises(OSError, match="disk full"):
        _build(engine, site, base_url=other)
    assert len(placed) >= 30  # files had been written before the failure
    assert _snapshot(site) == before  # the new tree never replaced the published one
    assert _leftovers(site) == []
    monkeypatch.setattr(writer, "_replace", real_replace)
    _build(engine, site, base_url=other)
    assert _snapshot(site) == expected


def test_stale_files_do_not_survive_a_build_and_unchanged_files_are_kept(published):
    site, engine = published
    (site / "hu/old-page").mkdir()
    (site / "hu/old-page/index.html").write_text("stale", encoding="utf-8")
    (site / "assets/site.0000000000.css").write_text("stale", encoding="utf-8")
    before = _snapshot(site)
    result = _build(engine, site, full=True)  # files no build recorded: only a full build looks at the disk
    after = _snapshot(site)
    assert "hu/old-page/index.html" not in after and "assets/site.0000000000.css" not in after
    assert result.stats.removed == 2 and result.stats.written == 0
    assert {k: v for k, v in before.items() if k in after} == after
    assert _leftovers(site) == []


def test_a_small_change_failing_midway_leaves_every_file_whole_and_the_next_build_repairs(published, monkeypatch,
                                                                                         tmp_path):
    """A change of a few files replaces them in place, one by one: a failure leaves each one old or new."""
    import yaml
    from sitebuild import run

    site, engine = published
    before = _snapshot(site)
    record = yaml.safe_load((PROJECT_ROOT / "newsroom/sample/entries/ai-accelerator.yaml").read_text("utf-8"))
    record["en"]["definition"] = "A chip built to run neural networks fast (revised)."
    edited = tmp_path / "edited"
    edited.mkdir()
    (edited / "ai-accelerator.yaml").write_text(yaml.safe_dump(record, allow_unicode=True), encoding="utf-8")
    run(tmp_path / "work", "import", str(edited))
    _build(engine, tmp_path / "expected")
    expected = _snapshot(tmp_path / "expected")
    real_replace = writer._replace
    _fail_writes_at(monkeypatch, 3, tmp_path / "placed.log")
    with pytest.raises(OSError, match="disk full"):
        _build(engine, site)
    now = _snapshot(site)
    assert now.keys() == before.keys()
    assert all(data in (before[path], expected[path]) for path, data in now.items())
    assert now != before and now != expected  # some files were replaced, not all
    assert _leftovers(site) == []
    monkeypatch.setattr(writer, "_replace", real_replace)
    _build(engine, site)
    assert _snapshot(site) == expected


def test_the_next_build_removes_what_killed_builds_left_beside_the_site(published):
    # A build killed midway leaves its new tree, a retired tree or its scratch folder beside the site;
    # the next build of the folder (even one with nothing to do) removes them, and only them.
    site, engine = published
    before = _snapshot(site)
    for name in (f".{site.name}.new-k1", f".{site.name}.old-k2", f".{site.name}.write-k3"):
        (site.parent / name / "en").mkdir(parents=True)
        (site.parent / name / "en" / "index.html").write_text("<p>half</p>", encoding="utf-8")
    neighbour = site.parent / f".{site.name}-notes"
    neighbour.mkdir()
    result = _build(engine, site)
    assert result.stats.written == 0
    assert _leftovers(site) == [] and neighbour.is_dir()
    assert _snapshot(site) == before


@pytest.mark.sqlite_only
def test_a_deploy_repository_in_the_site_folder_is_named_with_the_way_to_keep_it_beside(sample_cli, tmp_path):
    """A site folder that is a git checkout (a GitHub Pages deploy) is refused, and the message says how to
    keep the repository beside it; run that way, git takes in each build's changes, a full one too."""
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    site = tmp_path / "_site"
    sample_cli("build", "--out", str(site))

    def run(*args: str) -> str:
        return subprocess.run([git, "-c", "user.name=Desk", "-c", "user.email=desk@example.org", *args],
                              cwd=tmp_path, check=True, capture_output=True, text=True).stdout

    run("init", "-q", str(site))
    refused = sample_cli("build", "--out", str(site), expect=1).stderr
    assert (f"to deploy with git, keep the repository beside the folder (`mv {site}/.git {site}.git`) and run "
            f"git as `git --git-dir={site}.git --work-tree={site} …`") in refused
    (site / ".git").rename(tmp_path / "_site.git")
    beside = ["--git-dir", str(tmp_path / "_site.git"), "--work-tree", str(site)]
    run(*beside, "add", "-A")
    run(*beside, "commit", "-q", "-m", "the site")
    sample_cli("story", "edit", "i13-vllm-trainium-backend", "--headline-en", "vLLM runs on Trainium",
               "--correction", "--reason", "corrected")
    sample_cli("build", "--out", str(site), "--full")  # a new tree swapped in
    changed = run(*beside, "status", "--porcelain").splitlines()
    assert " M en/issues/13/index.html" in changed and not any(line.startswith(" D") for line in changed)


@pytest.mark.sqlite_only
def test_a_folder_holding_what_no_build_makes_is_refused_and_kept(sample_cli, tmp_path):
    """A build replaces its folder's contents: `newsroom build --out .` in the working folder deleted the
    database and the content files with it (\"4 removed\"), and an email folder holding a note lost it
    too. Such a folder is refused, naming what it holds, and nothing in it is touched."""
    from sqlalchemy.engine import make_url

    database = Path(make_url(sample_cli.db_url).database)
    (database.parent / "content").mkdir()
    (database.parent / "content" / "story.yaml").write_text("kind: story\n", encoding="utf-8")
    before = _snapshot(database.parent)
    mail = database.parent.parent / f"{database.parent.name}-mail"  # beside it: not the case here
    result = sample_cli("build", "--out", str(database.parent), "--email-out", str(mail), expect=1)
    assert f"{database.parent}: --out: the folder holds content, " in result.stderr
    assert "which no build makes: a build replaces the folder's contents, so it would delete them" in result.stderr
    assert _snapshot(database.parent) == before
    sample_cli("check")  # the database is whole

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("keep me", encoding="utf-8")
    result = sample_cli("build", "--out", str(tmp_path / "site"), "--email-out", str(notes), expect=1)
    assert f"{notes}: --email-out: the folder holds todo.txt, which no build makes" in result.stderr
    assert (notes / "todo.txt").read_text(encoding="utf-8") == "keep me" and not (tmp_path / "site").exists()

    # What a build makes, even of another database or with other languages, is the build's to replace.
    sample_cli("build", "--out", str(tmp_path / "site"), "--email-out", str(tmp_path / "mail"))
    (tmp_path / "site" / "en" / "stray.html").write_text("<p>left by hand</p>", encoding="utf-8")
    sample_cli("build", "--out", str(tmp_path / "site"), "--email-out", str(tmp_path / "mail"), "--full")
    assert not (tmp_path / "site" / "en" / "stray.html").exists()


@pytest.mark.sqlite_only
def test_static_files_of_one_s_own_are_copied_kept_up_to_date_and_removed(sample_cli):
    """robots.txt, CNAME, .nojekyll, .well-known/…: a site folder may hold nothing the build does not make,
    so the build makes these from the `static` folder, writing only what changed and removing what left."""
    work = sample_cli.cwd
    static = work / "static"
    files = {"robots.txt": b"User-agent: *\n", "CNAME": b"news.example.org\n", ".nojekyll": b"",
             ".well-known/security.txt": b"Contact: mailto:security@example.org\n"}
    for name, data in files.items():
        (static / name).parent.mkdir(parents=True, exist_ok=True)
        (static / name).write_bytes(data)
    (static / ".git").mkdir()
    (static / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (work / "newsroom.toml").write_text('static = "static"\n', encoding="utf-8")
    site = work / "_site"

    assert " 374 written, 0 unchanged, 0 removed " in sample_cli("build").stdout
    assert {name: (site / name).read_bytes() for name in files} == files
    assert not (site / ".git").exists()
    assert " 0 written, 374 unchanged, 0 removed " in sample_cli("build").stdout
    (static / "robots.txt").write_bytes(b"User-agent: *\nDisallow: /hu/search/\n")
    assert " 1 written, 373 unchanged, 0 removed " in sample_cli("build").stdout
    assert (site / "robots.txt").read_bytes() == b"User-agent: *\nDisallow: /hu/search/\n"
    (static / "CNAME").unlink()
    assert " 0 written, 373 unchanged, 1 removed " in sample_cli("build").stdout
    assert not (site / "CNAME").exists()

    # A file of one's own may not take the place of one the build makes; a folder that is not there is named.
    before = _snapshot(site)
    (static / "en").mkdir()
    (static / "en" / "index.html").write_text("<p>mine</p>", encoding="utf-8")
    refused = sample_cli("build", expect=1).stderr
    assert "static/en/index.html: static: the build makes 'en' in the site itself: rename or move this file" \
        in refused.splitlines()
    assert _snapshot(site) == before
    (work / "newsroom.toml").write_text('static = "nowhere"\n', encoding="utf-8")
    assert "newsroom.toml:1: static: no folder nowhere: make it, or leave the setting empty for no static files" \
        in sample_cli("build", expect=1).stderr


def test_a_site_folder_whose_path_the_state_cannot_record_is_refused_before_building(sample_cli, tmp_path):
    """The build records its folder's full path (at most `state.SITE_LENGTH` characters): a longer `--out`
    had the site written, then stopped on PostgreSQL's "value too long" as the build's record was saved.
    It is refused before anything is written, naming --out and the limit; so is a long --email-out."""
    out = tmp_path / ("a" * 200) / ("b" * 200) / ("c" * 100)
    assert len(str(out)) > 500  # the state's limit
    result = sample_cli("build", "--out", str(out), expect=1)
    assert f"{out}: --out: the folder's full path is {len(str(out)):,} characters long, and a build records at " \
           "most 500 of it: build into a folder with a shorter path" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / ("a" * 200)).exists()
    result = sample_cli("build", "--out", str(tmp_path / "site"), "--email-out", str(out), expect=1)  # its record too
    assert f"{out}: --email-out: the folder's full path is {len(str(out)):,} characters long" in result.stderr
    assert not (tmp_path / "site").exists()


def test_a_static_file_whose_path_the_state_cannot_record_is_refused_before_building(sample_cli):
    """The build records each output's path in its folder (at most `state.PATH_LENGTH` characters): a file of
    the static folder nested deeper had the site written, then stopped on PostgreSQL's "value too long". It
    is named with the limit before anything is written."""
    work = sample_cli.cwd
    deep = work / "static" / ("a" * 200) / ("b" * 200) / ("c" * 100 + ".txt")
    deep.parent.mkdir(parents=True)
    deep.write_text("mine\n", encoding="utf-8")
    (work / "newsroom.toml").write_text('static = "static"\n', encoding="utf-8")
    result = sample_cli("build", expect=1)
    assert f"static/{deep.relative_to(work / 'static')}: static: the file's path in the site is 506 characters " \
           "long, and a build records at most 500 of it: shorten its name or its folders' names" \
        in result.stderr.splitlines(), result.stderr
    assert "Traceback" not in result.stderr and not (work / "_site").exists()
