"""What each language of a record has: a required text missing, or one given in one language only (the
missing-translation policy decides what readers see); a record whose texts an earlier upgrade lost."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from newsroom.build.model import Record
from newsroom.diagnostics import Diagnostic
from newsroom.settings import Settings


#: Per-language fields every record of a kind must have in every language.
REQUIRED_TEXTS = {
    "entry": ("headword", "definition"),
    "issue": ("title",),
    "story": ("headline", "summary"),
    "reference": ("title", "sections"),
    "page": ("title", "body"),
}


#: A required text no language has: none to translate from, the text is still to be written.
UNWRITTEN = "required in every language, and none has it yet: write it"


#: The content hash migration 0013_lost_texts gives a record whose texts an earlier upgrade deleted.
LOST_TEXTS = ""


#: What `check` says of such a record, instead of asking for each text to be written.
LOST = ("its texts in every language are missing from the database (an earlier newsroom's upgrade of a SQLite "
        "database through schema 0010 deleted them, an entry's relations too): import its file from an export made "
        "while it had them (`newsroom import DIR`), which stores it again")


#: Per-language fields that belong to one language only, so need no translation: an entry's other names
#: ("Also known as") are names in that language, not a translation of the other's (an English term may
#: have none where the Hungarian has several), and match-only forms are that language's inflections.
LANGUAGE_OWN = {"aliases", "match_forms"}


def _translations(record: Record, languages: tuple[str, ...], policy: str = "fallback",
                  complete: bool = False) -> Iterator[Diagnostic]:
    """A required field missing in a language, or a field present in one language only.

    A record with no text at all in a language is a warning: the `missing_translation`
    policy decides what readers see (the other language, marked; or no page), and the
    warning says which. A partly translated record stays an error: that would be a silent mix.
    """
    present = {lang: _filled_paths(record.text(lang)) - LANGUAGE_OWN for lang in languages}
    if record.content_hash == LOST_TEXTS and not any(present.values()):
        yield Diagnostic(record.location, None, "", LOST)
        return
    required = set(REQUIRED_TEXTS.get(record.kind, ()))
    everywhere = set().union(*present.values()) | required
    for lang in languages:
        if not present[lang] and any(present.values()) and not complete:
            effect = f"left out of {lang}" if policy == "omit" else f"shown in {lang} in another language, marked"
            yield Diagnostic(record.location, None, lang, f"missing translation ({effect})", "warning")
            continue
        for path in sorted(everywhere - present[lang]):
            others = [other for other in languages if path in present[other]]
            message = f"missing translation (present in {', '.join(others)})" if others else UNWRITTEN
            yield Diagnostic(record.location, None, f"{lang}.{path}", message)


def translation_problems(record: Record, settings: Settings, complete: bool = False) -> list[Diagnostic]:
    """`_translations` of one record under the settings' languages and policy."""
    return list(_translations(record, settings.languages, settings.missing_translation, complete))


def _filled_paths(block: Mapping[str, Any]) -> set[str]:
    return {name for name, value in block.items() if value not in (None, "", [], {})}
