"""Atomic output: a build that fails midway leaves the previous site byte-identical, with no leftovers."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from sitebuild import BASE, build_sample

from newsroom.build import pipeline, writer
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


def _build(engine, site: Path) -> pipeline.BuildResult:
    return pipeline.build(engine, Settings(base_url=BASE), site, dt.date(2026, 11, 30))


def _leftovers(site: Path) -> list[str]:
    return sorted(p.name for p in site.parent.iterdir() if p.name.startswith(f".{site.name}."))


def test_a_renderer_failing_midway_leaves_the_old_site(published, monkeypatch):
    site, engine = published
    before = _snapshot(site)
    real_render, calls = pipeline.render, []

    def failing_render(template, lang, context):
        calls.append(template)
        if len(calls) == 20:
            raise RuntimeError("renderer broke")
        return real_render(template, lang, context)

    monkeypatch.setattr(pipeline, "render", failing_render)
    with pytest.raises(RuntimeError, match="renderer broke"):
        _build(engine, site)
    assert _snapshot(site) == before
    assert _leftovers(site) == []


def test_a_write_failing_after_some_files_leaves_the_old_site(published, monkeypatch):
    site, engine = published
    before = _snapshot(site)
    real_place, placed = writer._place, []

    def failing_place(new_root, old_root, relative, data):
        placed.append(relative)
        if len(placed) == 30:
            raise OSError("disk full")
        return real_place(new_root, old_root, relative, data)

    monkeypatch.setattr(writer, "_place", failing_place)
    with pytest.raises(OSError, match="disk full"):
        _build(engine, site)
    assert len(placed) >= 30  # files had been written into the staging tree before the failure
    assert _snapshot(site) == before
    assert _leftovers(site) == []


def test_stale_files_do_not_survive_a_build_and_unchanged_files_are_kept(published):
    site, engine = published
    (site / "hu/old-page").mkdir()
    (site / "hu/old-page/index.html").write_text("stale", encoding="utf-8")
    (site / "assets/site.0000000000.css").write_text("stale", encoding="utf-8")
    before = _snapshot(site)
    result = _build(engine, site)
    after = _snapshot(site)
    assert "hu/old-page/index.html" not in after and "assets/site.0000000000.css" not in after
    assert result.stats.removed == 2 and result.stats.written == 0
    assert {k: v for k, v in before.items() if k in after} == after
    assert _leftovers(site) == []
