"""A page's meta description: its text as plain text on one line, cut to what search results show of one.

The issue, site and reference pages describe themselves with it (see their `description`).
"""

from __future__ import annotations

#: The longest meta description, in characters: what search results show of one.
DESCRIPTION_LENGTH = 160


def shortened(text: str, limit: int = DESCRIPTION_LENGTH) -> str:
    """Plain `text` on one line, cut between words to `limit` characters at most with an ellipsis."""
    words = " ".join(text.split())
    if len(words) <= limit:
        return words
    cut = words[:limit]  # one character beyond the limit's last: whether the cut falls between words
    kept = cut[:-1].rstrip() if cut.endswith(" ") else (cut.rsplit(" ", 1)[0] if " " in cut else cut[:-1])
    return kept.rstrip(" ,;:–-") + "…"
