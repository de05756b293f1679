"""How a term matcher reads a label and a text: NFC-normalised, whitespace made one space, and folded
(lowercased) unless the label is written like an acronym (see glossary.matching for the rules)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence


def is_case_sensitive(label: str) -> bool:
    """Whether `label` is written like an acronym and so must match as written.

    "GPU", "AWS Inferentia", "MI-chip", "iPhone" and "C" are; "Trainium",
    "Adatközpont" and "data center" are not.
    """
    for word in re.split(r"[\s\-]+", label):
        if any(char.isupper() for char in word[1:]):
            return True
        if word[:1].isupper() and not any(char.islower() for char in word):
            return True
    return False


def normalise_label(label: str) -> str:
    """`label` NFC-normalised, each run of whitespace in it one space, none at its ends."""
    return " ".join(unicodedata.normalize("NFC", label).split())


def label_key(label: str) -> tuple[bool, str]:
    """What a matcher looks `label` up by: (matched as written, the form), as two terms' labels with the
    same key are one label, the first term's (see `TermMatcher`)."""
    form = normalise_label(label)
    return (True, form) if is_case_sensitive(form) else (False, fold(form))


def lengthened_stem(label: str, lang: str) -> str | None:
    """The Hungarian stem of `label` with its final a/e lengthened before a
    suffix ("intelligencia" → "intelligenciát", "szoftvere" → "szoftverét")."""
    if lang == "hu" and label[-1:] in ("a", "e"):
        return label[:-1] + {"a": "á", "e": "é"}[label[-1]]
    return None


def fold(text: str) -> str:
    """The lookup key of a case-insensitive label or stem: each character lowercased where that is one
    character, else kept."""
    lowered = text.lower()
    # Lowercased whole, a text is the same as character by character unless a character lowercases to
    # more than one (the lengths then differ) or a capital sigma ends a word (lowercased as a final one).
    if len(lowered) == len(text) and "Σ" not in text:
        return lowered
    return "".join(char.lower() if len(char.lower()) == 1 else char for char in text)


def normalise_text(text: str) -> tuple[str, Sequence[int], Sequence[int]]:
    """NFC-normalise `text` per base character plus its combining marks.

    Returns the normalised text and, for each of its characters, the start
    and end offset in `text` of the cluster it came from, so mentions can be
    reported in the caller's offsets.
    """
    if unicodedata.is_normalized("NFC", text):  # the usual case: every offset is its own
        return text, range(len(text)), range(1, len(text) + 1)
    parts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    cluster_start = 0
    for index in range(1, len(text) + 1):
        if index < len(text) and unicodedata.combining(text[index]):
            continue
        cluster = unicodedata.normalize("NFC", text[cluster_start:index])
        parts.append(cluster)
        starts.extend([cluster_start] * len(cluster))
        ends.extend([index] * len(cluster))
        cluster_start = index
    return "".join(parts), starts, ends
