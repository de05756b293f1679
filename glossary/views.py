"""Pure helpers that shape glossary data for pages: A–Z groups and sorted entry lists."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from glossary.collation import OTHER_HEADING, alphabet_headings, letter_heading, sort_key

T = TypeVar("T")


def by_headword(items: Iterable[T], lang: str, headword: Callable[[T], str]) -> list[T]:
    """`items` in the dictionary order of `lang` by their headword."""
    return sorted(items, key=lambda item: sort_key(headword(item), lang))


def letter_anchor(letter: str) -> str:
    """A fragment id for an index letter ("letter-Cs"; digits and symbols: "letter-other")."""
    return "letter-other" if letter == OTHER_HEADING else f"letter-{letter}"


#: Letters whose URL part is not the letter in lower case: the Hungarian ö and ü (ASCII paths travel
#: anywhere unescaped) and the group of digits and symbols.
_LETTER_SLUGS = {"Ö": "oe", "Ü": "ue", OTHER_HEADING: "other"}


def letter_slug(letter: str) -> str:
    """The URL part of an index letter's page ("Cs" → "cs", "Ö" → "oe", "#" → "other")."""
    return _LETTER_SLUGS.get(letter) or letter.lower()


def index_headings(present: Iterable[str], lang: str) -> list[str]:
    """The letters an A–Z bar shows: "#" first when `present` (the letters with entries) has it, because
    digits sort before letters, then the whole alphabet of `lang`."""
    return ([OTHER_HEADING] if OTHER_HEADING in present else []) + list(alphabet_headings(lang))


def letter_groups(items: Iterable[tuple[str, T]], lang: str) -> dict[str, list[T]]:
    """{letter heading: the items under it in dictionary order}, for the letters that have any,
    in the index's order ("#" first). `items` are (headword, item); equal headwords keep their order."""
    groups: dict[str, list[T]] = {}
    for headword, item in sorted(items, key=lambda pair: sort_key(pair[0], lang)):
        groups.setdefault(letter_heading(headword, lang), []).append(item)
    return {letter: groups[letter] for letter in index_headings(groups, lang) if letter in groups}


def index_letters(items: Iterable[Mapping[str, Any]], lang: str) -> list[dict[str, Any]]:
    """Every letter heading of the alphabet in order, each with its entries (maybe none).

    `items` are mappings with a "headword". Entries starting with a digit or
    a symbol form a leading "#" group, because digits sort before letters.
    The result keeps empty letters so the index can show them as inactive.
    """
    groups = letter_groups(((item["headword"], item) for item in items), lang)
    return [{"letter": letter, "anchor": letter_anchor(letter), "items": groups.get(letter, [])}
            for letter in index_headings(groups, lang)]
