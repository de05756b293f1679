"""How an entry was written and reviewed: the codes editors use, and their check.

Pages turn the codes into a sentence in the reader's language (see
`templates/_glossary.html`) and into machine-readable metadata, because a
machine-edited entry claims no human editorial responsibility and readers
must be told so.
"""

from __future__ import annotations

from collections.abc import Iterator

from newsroom.build.model import Content
from newsroom.diagnostics import Diagnostic

#: How the text came about.
METHODS = ("machine-edited", "machine-assisted", "human-written")
#: Who checked it afterwards.
REVIEWS = ("machine-expert-review", "human-expert-review", "editor-review", "none")


def provenance_problems(content: Content) -> Iterator[Diagnostic]:
    """Unknown method or review codes: the page could not say in words what they mean."""
    for entry in content.entries.values():
        provenance = entry.data.get("provenance") or {}
        for name, allowed in (("method", METHODS), ("review", REVIEWS)):
            value = provenance.get(name)
            if value is not None and value not in allowed:
                yield Diagnostic(entry.location, None, f"provenance.{name}",
                                 f"unknown code {value!r}; expected one of {', '.join(allowed)}")
        if provenance.get("written") and provenance.get("reviewed") and \
                provenance["reviewed"] < provenance["written"]:
            yield Diagnostic(entry.location, None, "provenance.reviewed",
                             f"reviewed ({provenance['reviewed']}) before it was written ({provenance['written']})")
