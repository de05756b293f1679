"""Interface strings: the catalog template is current and Hungarian is complete."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "locale"
UPDATE_HINT = ("run: pybabel extract -F babel.cfg -o locale/messages.pot --no-location --sort-output --omit-header . "
               "&& pybabel update -i locale/messages.pot -d locale -D messages --no-location")


def _ids(path: Path, lang: str | None = None) -> dict[str, object]:
    """Each message of a catalog by its id, and by its context where it has one (`pgettext`): "Issue" in a search
    hit is another message than "Issue" in "12. szám", and each must be in every catalog."""
    with path.open("rb") as handle:
        return {_key(m): m for m in read_po(handle, locale=lang) if m.id}


def _key(message) -> str:
    msgid = message.id if isinstance(message.id, str) else message.id[0]
    return f"{message.context}\x04{msgid}" if message.context else msgid


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


def test_no_hungarian_string_guesses_the_article_or_a_suffix_of_a_value():
    """A value's sound decides its article and its suffixes: "a %(n)s." is wrong for 1, 5, 50, 1000 ("az"), and
    "%(site)s-ban" for half the names. "a(z)" before a value is chosen as it is put in (README, "Interface
    strings"); a suffix is never attached to a value: the sentence is turned so the value stands alone."""
    import re

    guessed = re.compile(r"(?<![\w(])(?:[Aa]z?) %\(\w+\)[sd]|%\(\w+\)[sd]-?[a-záéíóöőúüű]")
    messages = _ids(LOCALE / "hu" / "LC_MESSAGES" / "messages.po", "hu")
    strings = {mid: text for mid, m in messages.items()
               for text in ([m.string] if isinstance(m.string, str) else m.string)}
    assert [(mid, text) for mid, text in strings.items() if guessed.search(text)] == []


@pytest.mark.sqlite_only
def test_a_translation_whose_placeholders_are_not_its_message_s_is_named_before_anything_is_built(
        sample_cli, tmp_path, monkeypatch):
    """A translator's "%(cnt)s" for "%(count)s" made every page that shows it fail with a KeyError traceback."""
    import shutil

    from newsroom import i18n

    locale = tmp_path / "locale"
    shutil.copytree(i18n.LOCALE_DIR, locale)
    monkeypatch.setattr(i18n, "catalog_path", lambda lang, locale_dir=locale: locale / lang / "LC_MESSAGES" /
                        f"{i18n.DOMAIN}.po")
    site = tmp_path / "site"
    sample_cli("build", "--out", str(site))
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    catalog = locale / "hu" / "LC_MESSAGES" / "messages.po"
    text = catalog.read_text(encoding="utf-8")
    assert 'msgstr[1] "%(count)s szócikk"' in text
    catalog.write_text(text.replace('msgstr[1] "%(count)s szócikk"', 'msgstr[1] "%(cnt)s szócikk"'), encoding="utf-8")
    line = text[:text.index('msgid "%(count)s glossary entry"')].count("\n") + 1
    result = sample_cli("build", "--out", str(site), expect=1)
    assert f"{catalog}:{line}: msgid '%(count)s glossary entry': unknown named placeholder 'cnt'" in result.stderr
    assert "Traceback" not in result.stderr
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before


def test_a_compiled_catalog_is_kept_for_the_next_command_until_the_catalog_changes(tmp_path):
    """Each command compiled the catalogs anew (Babel's reader and checks: a tenth of a second of imports and
    work, of a command that renders); the compiled catalog is kept in the user's temporary folder under a hash of
    the `.po` file, and read back. A changed catalog is compiled (and checked) again, and a kept file that cannot
    be read back as a catalog is compiled again too."""
    import shutil

    from newsroom import i18n

    locale, temporary = tmp_path / "locale", tmp_path / "tmp"
    shutil.copytree(i18n.LOCALE_DIR, locale)
    temporary.mkdir()
    script = ("import json, sys\nfrom pathlib import Path\nfrom newsroom.i18n import translations\n"
              "found = translations('hu', Path(sys.argv[1])).gettext('Issue')\n"
              "print(json.dumps([found, 'babel.messages.pofile' in sys.modules]))\n")

    def command() -> list:
        done = subprocess.run([sys.executable, "-c", script, str(locale)], capture_output=True, text=True,
                              check=True, env={**os.environ, "TMPDIR": str(temporary)})
        return json.loads(done.stdout)

    def kept() -> list[Path]:
        return sorted(temporary.rglob("__newsroom_catalog_*.mo"))

    assert command() == ["szám", True]  # compiled
    assert len(kept()) == 1
    assert command() == ["szám", False]  # read back: Babel's catalog reader not even imported
    catalog = locale / "hu" / "LC_MESSAGES" / "messages.po"
    catalog.write_text(catalog.read_text(encoding="utf-8").replace('msgid "Issue"\nmsgstr "szám"',
                                                                   'msgid "Issue"\nmsgstr "lapszám"'),
                       encoding="utf-8")
    assert command() == ["lapszám", True]
    assert command() == ["lapszám", False]
    assert len(kept()) == 2
    newest = max(kept(), key=lambda path: path.stat().st_mtime_ns)
    newest.write_bytes(b"not a catalog")
    assert command() == ["lapszám", True]  # compiled again, and kept
    assert command() == ["lapszám", False]
