"""Diagnostics: a problem with a place (`file:line` or `kind:key`), a field and a message.

Every stage collects diagnostics instead of stopping at the first one; the
CLI reports them in one order (`in_report_order`), each once, and errors make it exit non-zero.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning"]


def first_of(names: Sequence[str], shown: int = 3) -> str:
    """A message's list of names: the first `shown`, then how many more ("a, b, c and 4 more")."""
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


#: Where a value is in a record: its keys and list indexes from the top ("hu", "affected", 1, "section").
FieldPath = tuple[str | int, ...]


def dotted(path: FieldPath) -> str:
    """A value's place as a diagnostic names its field: "hu.affected[1].section"."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def stored_location(kind: str, key: str) -> str:
    """Where `newsroom check` places a stored record's problems: `entry:gpu`, or `site` for the site file."""
    return "site" if kind == "site" else f"{kind}:{key}"


@dataclass(frozen=True, order=True)
class Diagnostic:
    location: str  # "entries/trainium.yaml" or "entry:trainium"
    line: int | None
    field: str  # dotted path: "hu.affected[1].section"; "" for the whole record
    message: str
    severity: Severity = "error"
    #: What problem it is, for a command that tells one finding of it from another's without reading their
    #: words (see checks.changes.with_own); "" for most. Neither said nor part of what a diagnostic equals.
    code: str = field(default="", compare=False)

    def __str__(self) -> str:
        place = f"{self.location}:{self.line}" if self.line else self.location
        label = "" if self.severity == "error" else f"{self.severity}: "
        if self.field:
            return f"{place}: {self.field}: {label}{self.message}"
        return f"{place}: {label}{self.message}"


#: The code of the one problem said before all others (see checks.site.no_site): with no site file stored, every
#: build stops on it alone, whatever else the content has.
NO_SITE = "no-site"


#: A run of digits in a place: counted as a number when places are ordered.
_DIGITS = re.compile(r"(\d+)")


def place_order(place: str) -> tuple[tuple[str | int, ...], str]:
    """The key that orders places (`issue:9`, `stories/i10-x.yaml`) as a reader counts: each run of digits
    compared as a number, the rest as text (`issue:9` before `issue:10`; `0013.yaml` with `13.yaml`, then by
    its text, so that no two places tie)."""
    parts = _DIGITS.split(place)  # text, digits, text, …: the same kind at the same index in every place
    return tuple(int(part) if index % 2 else part for index, part in enumerate(parts)), place


def in_report_order(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """`diagnostics` as every command says them: each once, by place (file or record, then line, field and
    message; errors and warnings of one place together; places and fields in `place_order`: `terms[2]` before
    `terms[10]`), the missing site file first. The one order of `check`, of a refused change and of the warnings
    a change leaves (see newsroom.cli.report)."""
    return sorted(set(diagnostics), key=lambda d: (d.code != NO_SITE, place_order(d.location), d.line or 0,
                                                  place_order(d.field), d.message, d.severity))


def unknown_term(location: str, index: int, term: str, severity: Severity = "error") -> Diagnostic:
    """A story's `terms[index]` naming no glossary entry: as `check` finds it, and as the options of `story add`
    and `story edit` do (a draft's story may name one still to be written: a warning)."""
    return Diagnostic(location, None, f"terms[{index}]", f"no glossary entry {term!r}", severity, "unknown-term")


class ContentError(Exception):
    """Raised when content cannot be accepted; carries every diagnostic found."""

    def __init__(self, diagnostics: list[Diagnostic], advice: str | None = None) -> None:
        self.diagnostics = in_report_order(diagnostics)
        self.advice = advice  # what to do about them all, said after them
        super().__init__("\n".join([*(str(d) for d in self.diagnostics), *([advice] if advice else [])]))

    def __reduce__(self) -> tuple[type[ContentError], tuple[list[Diagnostic], str | None]]:
        # As it was made (a render worker sends one to the build's process), not from its message.
        return type(self), (self.diagnostics, self.advice)
