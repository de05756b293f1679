"""The benchmark's synthetic publication stays valid: it passes `check` and builds."""

from __future__ import annotations

import copy
import datetime as dt
import re
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

from issues.models import Story
from newsroom import PROJECT_ROOT
from newsroom.build import making
from newsroom.build.memos import load_memos
from newsroom.build.pipeline import build
from newsroom.build.model import load_content
from newsroom.checks import markdown_texts
from newsroom.db.session import make_engine, session_factory, transaction
from newsroom.diagnostics import ContentError
from newsroom.render.markdown import text_key
from newsroom.settings import Settings

sys.path.insert(0, str(PROJECT_ROOT / "bench"))

from generate import generate, store  # noqa: E402


def test_a_small_generated_publication_checks_clean_and_builds(tmp_path: Path):
    engine = make_engine(f"sqlite:///{tmp_path / 'bench.db'}")
    writer = generate(engine, 0.01)  # raises when `check` finds a problem, a warning too
    result = build(engine, Settings(), tmp_path / "site", dt.date(2026, 11, 30))
    engine.dispose()
    shape = writer.shape
    # home, glossary index, editions, archive, feeds, search; issues, entries, references; the method page
    # (and the archive's section and tag pages and the glossary's category and level pages besides).
    per_language = 6 + shape.issues + shape.entries + shape.references + 1
    assert result.pages > 2 * per_language
    for number in range(1, shape.issues + 1):
        assert (tmp_path / "site" / "en" / "issues" / str(number) / "index.html").is_file()
    assert (tmp_path / "site" / "hu" / "glossary" / f"{writer.slug(0)}" / "index.html").is_file()


def test_a_build_that_parses_and_matches_over_the_cores_makes_the_same_site(tmp_path: Path, monkeypatch):
    # A first build of a large publication parses its Markdown ahead and matches its stories' terms
    # over the cores; a small one does both in one process. Forced to take the first way on a small
    # publication, the site is the same, byte for byte.
    engine = make_engine(f"sqlite:///{tmp_path / 'bench.db'}")
    generate(engine, 0.01)
    engine.dispose()
    today = dt.date(2026, 11, 30)
    (tmp_path / "other.db").write_bytes((tmp_path / "bench.db").read_bytes())
    build(make_engine(f"sqlite:///{tmp_path / 'bench.db'}"), Settings(), tmp_path / "one", today)

    ran = over_the_cores(monkeypatch)
    build(make_engine(f"sqlite:///{tmp_path / 'other.db'}"), Settings(), tmp_path / "many", today)
    assert {"_parse_and_check", "match_stories", "_page_work"} <= ran  # parsed ahead, matched and rendered in parts

    def tree(folder: Path) -> dict[str, bytes]:
        return {path.relative_to(folder).as_posix(): path.read_bytes() for path in folder.rglob("*") if path.is_file()}

    one, many = tree(tmp_path / "one"), tree(tmp_path / "many")
    assert sorted(one) == sorted(many)
    assert [path for path in one if one[path] != many[path]] == []
    # What the workers parsed came back: the next build knows every text's references, as after one process.
    parallel, serial = remembered(tmp_path / "other.db"), remembered(tmp_path / "bench.db")
    assert parallel == serial
    assert None not in parallel["references"].values()


def over_the_cores(monkeypatch) -> set[str]:
    """Make even a small publication's first build parse ahead, match its stories and render in forked
    workers, as a large one's does; returns the names of the works run over the cores (as they run)."""
    from newsroom.build import checking, derived, rendering, works

    run_all, ran = making.run_all, set()

    def spy(works, *args, **kwargs):
        ran.update(work.func.__name__ for work in works)
        return run_all(works, *args, **kwargs)

    for module in (making, checking, works):  # each passes works to run_all
        monkeypatch.setattr(module, "run_all", spy)
    monkeypatch.setattr(checking, "PARSE_AHEAD_MIN", 1)
    monkeypatch.setattr(derived, "SPREAD_STORIES", 1)
    monkeypatch.setattr(derived, "STORIES_PER_WORK", 8)
    monkeypatch.setattr(rendering, "PARALLEL_MIN", 1)
    return ran


def remembered(db: Path) -> dict[str, dict[str, object]]:
    """What the stored memos of Markdown texts answer for each text of the publication."""
    with session_factory(make_engine(f"sqlite:///{db}"))() as session:
        content = load_content(session)
        memos = load_memos(session, making.PARTIAL_MEMOS, making.PARTIAL_MEMOS)
    records = [*content.entries.values(), *content.pages.values(), *content.issues.values(),
               *content.stories.values()]
    keys = {text_key(text) for record in records for text in markdown_texts(record, Settings().languages)}
    return {name: {key: memo.get(key) for key in sorted(keys)} for name, memo in memos.items()}


def test_a_broken_link_the_workers_check_stops_the_build(tmp_path: Path, monkeypatch):
    # A first build of a large publication checks its records where it parses them ahead, over the
    # cores: a story linking to no entry stops it there as it would stop a one-process build.
    engine = make_engine(f"sqlite:///{tmp_path / 'bench.db'}")
    writer = generate(engine, 0.01)
    story = writer.story(1, 1)
    story["en"]["body"] += "\n\nSee [nothing](entry:no-such-entry)."
    store(engine, [story])
    engine.dispose()
    ran = over_the_cores(monkeypatch)
    with pytest.raises(ContentError) as stopped:
        build(make_engine(f"sqlite:///{tmp_path / 'bench.db'}"), Settings(), tmp_path / "site", dt.date(2026, 11, 30))
    assert "_parse_and_check" in ran
    assert [(d.location, d.field) for d in stopped.value.diagnostics if d.severity == "error"] == [
        ("story:i1-story-1", "en.body")], stopped.value
    assert "no-such-entry" in str(stopped.value)
    assert not (tmp_path / "site").exists()


def test_a_first_build_shows_the_texts_it_reads_ahead_then_the_pages_it_makes(tmp_path: Path, monkeypatch, capsys):
    # A first build of a large publication spends seconds reading its texts ahead before any page is
    # made: with a progress bar (on a terminal) it counts them, then the pages and files made.
    engine = make_engine(f"sqlite:///{tmp_path / 'bench.db'}")
    generate(engine, 0.01)
    with session_factory(engine)() as session:
        content = load_content(session)
    records = [*content.entries.values(), *content.pages.values(), *content.issues.values(),
               *content.stories.values()]
    texts = {text for record in records for text in markdown_texts(record, Settings().languages)}
    over_the_cores(monkeypatch)
    result = build(engine, Settings(), tmp_path / "site", dt.date(2026, 11, 30), progress=True)
    engine.dispose()
    shown = capsys.readouterr().err
    reading = re.findall(r"reading: +\d+%\|[^|]*\| (\d+)/(\d+) \[[^\]]*text/s\]", shown)
    made = re.findall(r"making: +\d+%\|[^|]*\| (\d+)/(\d+) \[[^\]]*page/s\]", shown)
    assert reading and made, shown
    assert {int(total) for _, total in reading} == {len(texts)}
    assert all(int(done) <= len(texts) for done, _ in reading)
    assert shown.index("reading:") < shown.index("making:")
    # Every page, and each language's feeds and search index.
    assert {int(total) for _, total in made} == {result.pages + 4 + 2 * 8}


def _breakdown(*args: str) -> tuple[str, float, dict[str, tuple[float, int]]]:
    """Run bench/breakdown.py at a small scale: what it printed, the build's time, each step's (seconds, calls)."""
    import subprocess

    done = subprocess.run([sys.executable, str(PROJECT_ROOT / "bench" / "breakdown.py"), "--scale", "0.02", *args],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    total = float(re.search(r"in one process: ([\d.]+) s", done.stdout).group(1))
    rows = {m.group(1).strip(): (float(m.group(2)), int(m.group(3).replace(",", "")))
            for line in done.stdout.splitlines()[2:] if (m := re.fullmatch(r"(.+?)\s+([\d.]+)\s+([\d,]+)", line))}
    return done.stdout, total, rows


def test_the_breakdown_times_every_step_it_names_and_the_floor_beneath_them():
    """bench/breakdown.py wraps engine functions by name: a renamed one would go untimed, or stop it."""
    import breakdown

    printed, total, rows = _breakdown()
    assert {label.strip() for _, _, label in breakdown.STEPS} <= set(rows)  # every step ran and was timed
    assert all(calls > 0 for _, calls in rows.values())
    assert rows["plan and render each page"][0] < total
    floor = re.search(r"templates alone ([\d.]+) s .* ([\d.]+) s in all", printed)
    assert floor is not None and 0 < float(floor.group(1)) < float(floor.group(2)) < total
    assert int(re.search(r"full build of ([\d,]+) pages", printed).group(1).replace(",", "")) > 0
    assert re.search(r"at most [\d,]+ pages/s", printed)
    # Each page counted under its template once, its planning and first rendering within the step's time.
    table = printed.split("pages by template", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    by_template = {m.group(1): (int(m.group(2).replace(",", "")), *map(float, m.group(3, 4, 5)))
                   for m in (re.fullmatch(r"(\S+(?: \S+)?)\s+([\d,]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", line)
                             for line in table) if m}
    assert len(by_template) == len(table) and {"issue.html", "entry.html", "archive_list.html"} < set(by_template)
    everything = by_template.pop("all pages")
    assert everything[0] == sum(row[0] for row in by_template.values()) == rows["plan and render each page"][1]
    assert all(row[0] > 0 for row in by_template.values())
    assert everything[1] + everything[2] <= rows["plan and render each page"][0] + 0.01  # timed within it (rounding)


def test_the_breakdown_of_a_rebuild_times_each_of_its_steps():
    import breakdown

    printed, total, rows = _breakdown("--edit", "add an issue")  # a new tree: every step runs
    assert {label.strip() for _, _, label in breakdown.REBUILD_STEPS} <= set(rows)
    rendered = int(re.search(r"(\d+) pages rendered", printed).group(1))
    assert rows["plan and render a page"][1] == rendered > 0
    assert sum(rows[label.strip()][0] for _, _, label in breakdown.REBUILD_STEPS if not label.startswith(" ")) < total


def test_the_breakdown_with_workers_times_each_step_of_the_build_process_and_its_workers_cpu():
    import subprocess

    import worker_steps

    done = subprocess.run([sys.executable, str(PROJECT_ROOT / "bench" / "breakdown.py"), "--scale", "0.02",
                           "--workers"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    head = re.search(r"on (\d+) cores: ([\d.]+) s, ([\d.]+) s of CPU "
                     r"\(the build's process ([\d.]+), its workers ([\d.]+)\)", done.stdout)
    assert head is not None, done.stdout
    cores, total, cpu, process_cpu, workers_cpu = int(head.group(1)), *map(float, head.group(2, 3, 4, 5))
    rows = {m.group(1).strip(): tuple(map(float, m.group(2, 3, 4))) for line in done.stdout.splitlines()[2:]
            if (m := re.fullmatch(r"(.+?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*(?:\d+%)?", line))}
    # Every step the build's process runs was timed (a renamed one would go untimed), and the rest.
    assert {label.strip() for _, _, label in worker_steps.WORKER_STEPS} <= set(rows)
    assert rows["the whole build"] == (total, process_cpu, workers_cpu)
    assert abs(cpu - process_cpu - workers_cpu) <= 0.011  # rounding
    top = [rows[label] for _, _, label in worker_steps.WORKER_STEPS if not label.startswith(" ")]
    top.append(rows["the rest (the front, the sitemap, the emails)"])
    for column, whole in enumerate((total, process_cpu, workers_cpu)):
        assert abs(sum(row[column] for row in top) - whole) <= 0.01 * len(top)  # the steps and the rest add up
    # Render workers work only in the steps that fork them: the pages' making does on two cores or more.
    assert rows["load the content and memos"][2] == rows["write the state, swap the tree in"][2] == 0
    if cores >= 2:
        assert rows["make the pages and groups"][2] > 0
    alone = float(re.search(r"the build's process alone \(no workers running\): ([\d.]+) s", done.stdout).group(1))
    assert 0 < alone <= total


@pytest.mark.long
def test_the_benchmark_prints_and_writes_every_step_at_two_scales(tmp_path: Path):
    import json
    import subprocess

    report = tmp_path / "bench.json"
    done = subprocess.run([sys.executable, str(PROJECT_ROOT / "bench" / "run.py"), "--scale", "0.02", "--runs", "1",
                           "--json", str(report)], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    import run

    found = json.loads(report.read_text(encoding="utf-8"))
    small, large = found["results"]
    assert (small["scale"], large["scale"]) == (0.002, 0.02) and large["issues"] > small["issues"]
    for result in (small, large):
        steps = result["steps"]
        assert list(steps) == list(run.STEPS)
        full = steps["full build"]
        assert full["rendered"] == full["pages"] > 0 and full["pages_per_s"] == full["pages"] / full["wall"]
        assert steps["no-change rebuild"]["written"] == steps["no-change rebuild"]["rendered"] == 0
        assert all(0 < steps[step]["rendered"] < full["pages"] for step in run.STEPS[2:])
        assert steps["add an issue"]["pages"] > full["pages"]
        assert all(0 < steps[step]["queries"] and steps[step]["peak_mib"] > 0 for step in run.STEPS)
        # The CPU time of the command and its workers: at least the build's own start-up, imports and work.
        assert all(0 < steps[step]["cpu"] for step in run.STEPS) and full["cpu"] > steps["no-change rebuild"]["cpu"]
    assert found["full_build_ratio"] == large["steps"]["full build"]["wall"] / small["steps"]["full build"]["wall"]
    # The printed table holds the same figures.
    rows = [line for line in done.stdout.splitlines() if re.match(r"full build +[\d.]+ ", line)]
    assert [(float(row.split()[2]), float(row.split()[4])) for row in rows] == [
        (round(r["steps"]["full build"]["wall"], 2), round(r["steps"]["full build"]["cpu"], 2)) for r in found["results"]]
    assert re.search(r"^full build time ratio, scale 0.02 / 0.002: [\d.]+", done.stdout, re.M)


def test_the_generator_asks_for_a_new_database_file_and_leaves_an_existing_one_alone(tmp_path: Path):
    """`bench/generate.py --help` made a database named `--help`, and a file that existed got the publication
    mixed into it: it says how to run it, and refuses a file that exists, naming it, leaving it as it was."""
    import subprocess

    def generate(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(PROJECT_ROOT / "bench" / "generate.py"), *args],
                              capture_output=True, text=True, timeout=120, cwd=tmp_path)

    helped = generate("--help")
    assert helped.returncode == 0 and helped.stdout.startswith("usage: generate.py [-h] database [scale]")
    assert list(tmp_path.iterdir()) == []
    taken = tmp_path / "taken.db"
    taken.write_bytes(b"kept")
    refused = generate(str(taken), "0.01")
    assert refused.returncode != 0 and f"{taken} exists" in refused.stderr.splitlines()[-1], refused.stderr
    assert taken.read_bytes() == b"kept" and sorted(tmp_path.iterdir()) == [taken]


def test_one_build_for_a_counter_generates_the_publication_once_and_builds_it_afresh_each_time(tmp_path: Path):
    import subprocess

    def one_build() -> str:
        done = subprocess.run([sys.executable, str(PROJECT_ROOT / "bench" / "onebuild.py"), "--scale", "0.01",
                               "--work", str(tmp_path / "work")], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return done.stdout

    first, second = one_build(), one_build()
    assert first.startswith("generated the publication at scale 0.01") and "generated" not in second
    built = [re.search(r"^built ([\d,]+) pages \(([\d,]+) files\) in one process", out, re.M) for out in (first, second)]
    assert all(built) and built[0].groups() == built[1].groups()  # the same publication, built in full each time
    site = tmp_path / "work" / "site"
    assert (site / "index.html").is_file() and (site / "en" / "issues" / "1" / "index.html").is_file()


def test_the_benchmark_makes_every_full_build_before_any_rebuild(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # A rebuild after adding an issue swaps in a new tree and removes the old one; a full build made within
    # a minute after would pay for searching past the freed inodes (see bench/run.py): none follows one.
    import run

    made: list[tuple[str, bool]] = []

    def measure(db: Path, out: Path, full: bool = False, tree: Path = PROJECT_ROOT) -> dict[str, float]:
        made.append((out.parent.name, full))
        return {"wall": 1.0, "pages": 10, "command": 1.5}

    monkeypatch.setattr(run, "measure", measure)
    results = run.bench_scales((0.005, 0.01), 2, tmp_path)
    fulls = [(folder, full) for folder, full in made if full]
    assert fulls == made[:4] and {folder for folder, _ in fulls} == {
        f"scale-{scale}-run-{run_}" for scale in (0.005, 0.01) for run_ in (0, 1)}
    assert len(made) == 4 * len(run.STEPS)  # and each run's rebuilds after, in its own folder
    assert [folder for folder, _ in made[4:]] == [folder for folder, _ in fulls for _ in run.STEPS[1:]]
    assert [result["scale"] for result in results] == [0.005, 0.01]
    assert all(result["steps"]["full build"]["pages_per_s"] == 10.0 for result in results)


def _compare(tmp_path: Path, *args: str):
    import subprocess

    if not (PROJECT_ROOT / ".git").exists():
        pytest.skip("bench/compare.py takes its before from git: this copy of the project is no git checkout")
    return subprocess.run([sys.executable, str(PROJECT_ROOT / "bench" / "compare.py"), *args],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)


@pytest.mark.long
def test_the_comparison_builds_each_version_in_turn_and_reports_their_medians(tmp_path: Path):
    import json
    import statistics

    report = tmp_path / "compare.json"
    done = _compare(tmp_path, "HEAD", "--scale", "0.01", "--runs", "2", "--json", str(report))
    assert done.returncode == 0, done.stderr
    order = [tuple(line.split()[1:3]) for line in done.stdout.splitlines() if line.startswith("run ")]
    assert order == [("1", "before"), ("1", "after"), ("2", "after"), ("2", "before")]  # alternating
    found = json.loads(report.read_text(encoding="utf-8"))
    assert found["revisions"] == {"before": "HEAD", "after": "working tree"}
    for side in ("before", "after"):
        builds = found["builds"][side]
        assert len(builds) == 2 and all(b["pages"] > 0 and b["wall"] > 0 and b["cpu"] > 0 for b in builds)
        assert found[side]["wall"] == statistics.median(b["wall"] for b in builds)
        assert found[side]["cpu"] == statistics.median(b["cpu"] for b in builds)
    assert found["before"]["pages"] == found["after"]["pages"]  # the same publication, generated by each
    assert re.search(r"^change: wall [+-][\d.]+ s \([+-][\d.]+ %\), CPU [+-][\d.]+ s", done.stdout, re.M)


@pytest.mark.long
def test_the_comparison_of_a_rebuild_starts_each_run_from_the_full_build(tmp_path: Path):
    import json

    report = tmp_path / "compare.json"
    done = _compare(tmp_path, "HEAD", "--scale", "0.01", "--runs", "2", "--edit", "edit a latest story",
                    "--json", str(report))
    assert done.returncode == 0, done.stderr
    found = json.loads(report.read_text(encoding="utf-8"))
    assert found["edit"] == "edit a latest story"
    for side in ("before", "after"):
        builds = found["builds"][side]
        # Each run's rebuild finds the full build's recorded state (it belongs to the folder's path: a copy
        # built elsewhere would remake every page) and remakes the edited story's issue pages alone.
        assert [(b["rendered"], b["pages"]) for b in builds] == [(4, found[side]["pages"])] * 2
        assert all(0 < b["written"] < 20 and b["removed"] == 0 for b in builds)
        assert all(b["command"] > b["wall"] for b in builds)
    assert 'rebuilds after "edit a latest story" each' in done.stdout


def test_the_comparison_names_a_revision_git_does_not_know():
    done = _compare(Path.cwd(), "no-such-revision", "--scale", "0.01", "--runs", "1")
    assert done.returncode == 1
    assert "git cannot give revision 'no-such-revision'" in done.stderr and "HEAD~1" in done.stderr


def test_the_remembered_markdown_results_follow_the_content_not_its_history(tmp_path: Path):
    # Incremental builds forget what they remembered of texts edited away and of records removed: after
    # edits and a removal the memos hold what a full build of the same content holds, and no more.
    db = tmp_path / "bench.db"
    engine = make_engine(f"sqlite:///{db}")
    generate(engine, 0.01)
    site, today = tmp_path / "site", dt.date(2026, 11, 30)
    build(engine, Settings(), site, today)
    with session_factory(engine)() as session:
        story, removed = (copy.deepcopy(dict(record.data)) for record in list(load_content(session).stories.values())[:2])
    first_body = story["en"]["body"]
    first = stored(db)
    assert {text_key(first_body), text_key(removed["en"]["body"])} <= first["references"] & first["plain"]
    for number in range(3):
        story["en"]["body"] = f"{first_body} Sentence {number} added."
        store(engine, [story])
        build(engine, Settings(), site, today)
    with transaction(engine) as session:
        session.delete(session.scalars(select(Story).where(Story.slug == removed["slug"])).one())
    build(engine, Settings(), site, today)
    after = stored(db)
    gone = {text_key(first_body), *(text_key(f"{first_body} Sentence {n} added.") for n in range(2)),
            text_key(removed["en"]["body"])}
    assert not gone & (after["references"] | after["plain"])
    assert text_key(story["en"]["body"]) in after["references"] & after["plain"]
    assert len(after["records"]) == len(first["records"]) - 1
    build(engine, Settings(), site, today, full=True)
    assert stored(db) == after


def stored(db: Path, *names: str) -> dict[str, set[str]]:
    """The keys each memo of `names` (by default those of records and Markdown texts) holds in the
    database (a memo just loaded has used nothing: what it has not used is all it holds)."""
    names = names or ("records", "references", "plain")
    with session_factory(make_engine(f"sqlite:///{db}"))() as session:
        memos = load_memos(session, names, making.PARTIAL_MEMOS)
    return {name: set(memo.unused()) for name, memo in memos.items()}


def test_a_feed_made_again_forgets_the_parts_it_no_longer_shows(tmp_path: Path):
    # The feeds keep each issue's and story's HTML between builds; an issue or story that left a feed
    # (newer ones came) is forgotten when the feed is made again: published issue after issue, the
    # memo holds what a full build of the same content holds, the parts the feeds show.
    db = tmp_path / "bench.db"
    engine = make_engine(f"sqlite:///{db}")
    writer = generate(engine, 0.01)
    settings, site, today = Settings(feed_limit=3), tmp_path / "site", dt.date(2026, 11, 30)
    build(engine, settings, site, today)
    first = stored(db, "feeds")["feeds"]
    shape = writer.shape
    for number in range(shape.issues + 1, shape.issues + 4):
        store(engine, [writer.issue(number)] + [writer.story(number, p) for p in range(1, shape.stories_per_issue + 1)])
        result = build(engine, settings, site, today)
        assert result.rendered > 0
    after = stored(db, "feeds")["feeds"]
    # Three new issues: every issue's and story's part another; the glossary feeds' entries (three a language)
    # are the same, new issues leave them alone.
    assert len(after) == len(first) and len(after & first) == 2 * settings.feed_limit
    build(engine, settings, site, today, full=True)
    assert stored(db, "feeds")["feeds"] == after
