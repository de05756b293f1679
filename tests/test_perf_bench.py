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
    per_language = 3 + shape.issues + shape.entries + shape.references + 1  # home, index, editions; method
    assert result.pages == 2 * per_language
    assert (tmp_path / "site" / "hu" / "glossary" / f"{writer.slug(0)}" / "index.html").is_file()
