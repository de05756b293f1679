"""The benchmark's synthetic publication stays valid: it passes `check` and builds."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

from newsroom import PROJECT_ROOT
from newsroom.build.pipeline import build
from newsroom.db.session import make_engine
from newsroom.settings import Settings

sys.path.insert(0, str(PROJECT_ROOT / "bench"))

from generate import generate  # noqa: E402


def test_a_small_generated_publication_checks_clean_and_builds(tmp_path: Path):
    engine = make_engine(f"sqlite:///{tmp_path / 'bench.db'}")
    writer = generate(engine, 0.01)  # raises when `check` finds an error
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
