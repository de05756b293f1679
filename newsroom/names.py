"""Names as a reader tells them apart: a tag's name, an entry's headword and aliases. Two names a reader
cannot tell apart are one name, shown once and warned of when given twice."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable


def reader_name(name: str) -> str:
    """`name` as a reader tells names apart: case aside (casefold), a letter with its accent alike whether written
    as one character or two (NFC), runs of spaces as one."""
    return " ".join(unicodedata.normalize("NFC", name).casefold().split())


def distinct_names(names: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """`names`, each (name, its language), without those a reader tells apart from none before them (see
    `reader_name`), as first written; a blank name is none."""
    first: dict[str, tuple[str, str]] = {}
    for name, lang in names:
        told = reader_name(name)
        if told:
            first.setdefault(told, (name, lang))
    return list(first.values())
