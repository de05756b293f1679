"""Stored texts holding a character no page, feed or email can hold (a control character, a lone surrogate).

An import and `edit` refuse such a text (see content.field_values.UNSHOWABLE_RE), but an older release stored
some on SQLite, from a YAML escape such as "\\x01": every build then stopped on a traceback at the feeds,
and `check` said nothing. Each is reported here at its field, as an error that stops the build (a
draft's, as any of its problems, is a warning in a `--drafts` preview), with the command that mends it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from newsroom.build.model import Content, Record
from newsroom.content.field_values import UNSHOWABLE_RE
from newsroom.diagnostics import Diagnostic, dotted
from newsroom.diagnostics import FieldPath as Path


def record_unshowable(record: Record) -> Iterator[Diagnostic]:
    """Each field of `record` holding an unshowable character, with the `edit` that replaces it."""
    for path, character in _found(record.data, ()):
        field = dotted(path)
        yield Diagnostic(record.location, None, field, (
            f"{_said(character)}: write the text again without it, "
            f"`newsroom edit {record.location} --set {field}=…`"))


def site_unshowable(content: Content) -> Iterator[Diagnostic]:
    """Each field of the site's texts and lists (names, tagline, sections…) holding an unshowable character."""
    for path, character in _found(content.site, ()):
        yield Diagnostic("site", None, dotted(path), (
            f"{_said(character)}: take it out of the site file and import it again (`newsroom export DIR` "
            "writes it, `newsroom import DIR/site.yaml` stores it)"))


def _said(character: str) -> str:
    return (f"holds the character U+{ord(character):04X}, which no page, feed or email can hold "
            "(stored by an earlier release)")


def _found(value: Any, path: Path) -> Iterator[tuple[Path, str]]:
    """(path, the first unshowable character) of each text in `value`, in order."""
    if isinstance(value, str):
        match = UNSHOWABLE_RE.search(value)
        if match is not None:
            yield path, match.group()
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _found(item, (*path, key))
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _found(item, (*path, index))
