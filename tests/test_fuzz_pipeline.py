"""Random sites through import → check → build: success or a content error, never a crash or damage.

Each example is a small site with a random relation graph (cycles, self-links,
links to entries that do not exist, confusables of themselves), Unicode edge cases in
the texts that term matching and collation see, and deeply nested Markdown.
After a refused import the database is exactly as before; after a refused build
the published folder is exactly as before.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from newsroom import SAMPLE_DIR
from newsroom.build.pipeline import build
from newsroom.content.exporter import exported_files
from newsroom.content.importer import import_records
from newsroom.content.reader import read_files
from newsroom.db.migrate import upgrade
from newsroom.db.session import make_engine, session_factory, transaction
from newsroom.diagnostics import ContentError
from newsroom.settings import Settings
from tests.test_fuzz_content import TRICKY

LANGUAGES = ("hu", "en")
SLUGS = ("alfa", "beta", "gamma", "delta", "cs-betu")
NOW = dt.datetime(2026, 11, 30, tzinfo=dt.timezone.utc)
WORDS = st.lists(st.one_of(st.sampled_from([*TRICKY, "Alfa", "béta", "GAMMA", "csőr", "Ű", "dzsungel", " "]),
                           st.text(max_size=4)), min_size=1, max_size=8).map("".join)
NESTED = st.builds(lambda marker, depth, tail: marker * depth + tail,
                   st.sampled_from(["> ", "- ", "* ", "1. ", "[", "*", "_", "`", "<div>", "  - ", "**a "]),
                   st.integers(0, 400), WORDS)
MARKDOWN = st.one_of(WORDS, NESTED, st.builds(lambda a, b: f"{a} [{b}] [x](entry:{b})", WORDS,
                                              st.sampled_from([*SLUGS, "missing", "1", "2", "99"])))


@st.composite
def sites(draw: st.DrawFn) -> dict[str, dict[str, Any]]:
    """{relative path: record} for a small site with a random glossary graph and one story."""
    files: dict[str, dict[str, Any]] = {}
    present = draw(st.lists(st.sampled_from(SLUGS), min_size=1, max_size=len(SLUGS), unique=True))
    targets = st.sampled_from([*SLUGS, "nowhere"])
    for slug in present:
        relations = {kind: draw(st.lists(targets, max_size=3)) for kind in ("broader", "narrower", "related")}
        relations["similar"] = [{"entry": t} for t in draw(st.lists(targets, max_size=2))]
        files[f"entries/{slug}.yaml"] = {
            "kind": "entry", "slug": slug, "category": "infrastructure", "level": "basic", "trend": "emerging",
            "status": "2026-10", "relations": relations,
            "sources": [{"title": draw(WORDS), "url": "https://example.org/"}],
            **{lang: {"headword": draw(WORDS), "definition": draw(MARKDOWN), "plain_terms": draw(MARKDOWN),
                      "aliases": draw(st.lists(WORDS, max_size=2))} for lang in LANGUAGES}}
    files["issues/0001.yaml"] = {
        "kind": "issue", "number": 1, "week": {"start": "2026-11-02", "end": "2026-11-08"},
        "status": "published", "published_at": "2026-11-09T07:00:00+01:00",
        **{lang: {"title": draw(WORDS), "lead": draw(MARKDOWN)} for lang in LANGUAGES}}
    files["stories/story.yaml"] = {
        "kind": "story", "slug": "story", "issue": 1, "section": "code", "position": 1,
        "terms": draw(st.lists(targets, max_size=2, unique=True)),
        "sources": [{"title": "S", "url": "https://example.org/s"}],
        **{lang: {"headline": draw(WORDS), "summary": draw(MARKDOWN)} for lang in LANGUAGES}}
    return files


def _fingerprint(engine: Any) -> list[tuple[str, Any, int | None]]:
    with session_factory(engine)() as session:
        return [(path, record, version) for path, record, version in exported_files(session, LANGUAGES)]


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One SQLite database for all examples: each import upserts over the last, as editors do."""
    folder = tmp_path_factory.mktemp("fuzz-pipeline")
    engine = make_engine(f"sqlite:///{folder / 'fuzz.db'}")
    upgrade(engine)
    with transaction(engine) as session:
        import_records(session, read_files([SAMPLE_DIR / "site.yaml"], LANGUAGES), LANGUAGES, NOW)
    yield engine, folder
    engine.dispose()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(site=sites())
def test_random_sites_import_check_and_build_or_report(store: Any, site: dict[str, dict[str, Any]]) -> None:
    engine, folder = store
    content = folder / "content"
    for old in content.rglob("*.yaml"):
        old.unlink()
    for relative, record in site.items():
        path = content / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(record, allow_unicode=True), encoding="utf-8")
    before = _fingerprint(engine)
    try:
        loaded = read_files([content], LANGUAGES)
        with transaction(engine) as session:
            import_records(session, loaded, LANGUAGES, NOW)
    except ContentError as error:
        event("import refused")
        assert error.diagnostics
        assert _fingerprint(engine) == before
        return
    out = folder / "_site"
    published = _tree(out) if out.exists() else {}
    try:
        build(engine, Settings(), out, dt.date(2026, 11, 30))
    except ContentError as error:
        event("build refused")
        assert error.diagnostics and all(d.severity == "error" for d in error.diagnostics)
        assert (_tree(out) if out.exists() else {}) == published
        return
    event("built")
    assert (out / "hu" / "index.html").is_file()
    with engine.connect() as connection:
        assert connection.execute(text("PRAGMA integrity_check")).scalar() == "ok"
