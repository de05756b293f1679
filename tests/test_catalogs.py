"""Interface strings: the catalog template is current and Hungarian is complete."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "locale"
UPDATE_HINT = ("run: pybabel extract -F babel.cfg -o locale/messages.pot --no-location --sort-output --omit-header . "
               "&& pybabel update -i locale/messages.pot -d locale -D messages --no-location")


def _ids(path: Path, lang: str | None = None) -> dict[str, object]:
    with path.open("rb") as handle:
        return {m.id if isinstance(m.id, str) else m.id[0]: m for m in read_po(handle, locale=lang) if m.id}


def test_catalog_template_matches_the_templates_and_code(tmp_path):
    fresh = tmp_path / "messages.pot"
    subprocess.run([sys.executable, "-m", "babel.messages.frontend", "extract", "-F", "babel.cfg", "-o", str(fresh),
                    "--no-location", "--sort-output", "--omit-header", "."], cwd=ROOT, check=True,
                   capture_output=True)
    extracted, committed = set(_ids(fresh)), set(_ids(LOCALE / "messages.pot"))
    assert extracted == committed, f"stale catalog; new: {sorted(extracted - committed)}, " \
                                   f"gone: {sorted(committed - extracted)}; {UPDATE_HINT}"


def test_every_language_catalog_has_every_message():
    template = set(_ids(LOCALE / "messages.pot"))
    for lang in ("hu", "en"):
        catalog = set(_ids(LOCALE / lang / "LC_MESSAGES" / "messages.po", lang))
        assert catalog == template, f"{lang}: missing {sorted(template - catalog)}, extra {sorted(catalog - template)}"


def test_every_hungarian_string_is_translated():
    messages = _ids(LOCALE / "hu" / "LC_MESSAGES" / "messages.po", "hu")
    untranslated = [mid for mid, m in messages.items()
                    if not (m.string if isinstance(m.string, str) else all(m.string)) or m.fuzzy]
    assert untranslated == [], f"Hungarian translation missing or fuzzy for: {untranslated}"
