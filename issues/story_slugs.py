"""A story's slug: made once from its headline's words in ASCII, and whether a slug is free (no story has it
or had it)."""

from __future__ import annotations

import re
import unicodedata

from anyascii import anyascii
from sqlalchemy.orm import Session

from issues.queries import slug_taken
from newsroom.content.stored import former_slugs

#: Longest generated story slug (the column holds 120).
SLUG_LENGTH = 60


def ascii_spelling(text: str) -> str:
    """`text` in ASCII letters: a Latin letter loses its accents ("Ünnepi hűtés" → "Unnepi hutes"), any other
    letter is transliterated ("Καλημέρα" → "Kalimera", "Привет" → "Privet", "中文" → " Zhong  Wen ": each Han
    character, a word or part of one, apart, as no space separates Chinese words); symbols are left out."""
    spelled = []
    for char in unicodedata.normalize("NFC", text):
        folded = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
        if folded:
            spelled.append(folded)
        elif unicodedata.category(char)[0] not in "LN":
            continue  # a symbol (an emoji) is no word of the headline: dropped, as before
        elif unicodedata.name(char, "").startswith("CJK UNIFIED IDEOGRAPH"):
            spelled.append(f" {anyascii(char)} ")
        else:
            spelled.append(anyascii(char))
    return "".join(spelled)


def story_slug(session: Session, number: int, headline: str) -> str:
    """A free slug from the headline: "i14-" + its words in ASCII (see `ascii_spelling`), shortened, "-2"
    etc. when taken. Made once, when the story is added: its address stays whatever its headline becomes."""
    words = re.sub(r"[^a-z0-9]+", "-", ascii_spelling(headline).lower()).strip("-") or "story"
    base = f"i{number}-{words}"
    if len(base) > SLUG_LENGTH:  # cut at the end of a word, unless the first word alone is longer
        cut = base[:SLUG_LENGTH + 1].rfind("-")
        base = base[:cut] if cut > len(f"i{number}") else base[:SLUG_LENGTH].rstrip("-")
    slug, counter = base, 2
    while slug_problem(session, slug, "") is not None:
        slug, counter = f"{base}-{counter}", counter + 1
    return slug


def slug_problem(session: Session, slug: str, option: str, renamed: str | None = None) -> str | None:
    """Why no story can take `slug` (`story add`, `rename`; `option` names where the editor gives another), or
    None: another story has it, or had it (a renamed story keeps its old anchor on its issue's pages). The story
    `renamed` may take back a slug it had."""
    if slug_taken(session, slug):
        return f"a story {slug!r} already exists; choose another {option}"
    holder = former_slugs(session, "story").get(slug)
    if holder is not None and holder != renamed:
        return (f"{slug!r} is a former slug of story:{holder}, whose old anchor on the issue pages leads to it; "
                f"choose another {option}")
    return None


def no_story(session: Session, slug: str) -> str:
    """That no story has `slug`, and which one had it, if one was renamed from it."""
    now = former_slugs(session, "story").get(slug)
    return f"no story {slug!r}" + (f"; story:{now} had that slug before" if now is not None else "")
