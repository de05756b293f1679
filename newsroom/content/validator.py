"""The validator that holds a content file to its kind (see newsroom.content.schema).

A file is validated into a *record*: plain JSON-like data (str, int, list,
dict) in canonical form — dates as ISO strings, text stripped, empty optional
values left out — so that the same content always hashes and exports to the
same bytes. Unknown fields are errors; they are never silently dropped.
Each field's value is checked and made canonical in field_values.py
(`FieldValues`, which `Validator` is).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from newsroom.content.field_values import FieldValues, _empty
from newsroom.content.schema import (
    LANGUAGE_RE,
    Field,
    Kind,
    former_slug_problem,
    kinds,
    publication_time_problem,
    week_problem,
)
from newsroom.diagnostics import Diagnostic
from newsroom.diagnostics import FieldPath as Path


@dataclass
class Validator(FieldValues):
    """Validates one parsed file against its kind, collecting every problem."""

    location: str
    lines: dict[Path, int]
    languages: tuple[str, ...]
    problems: list[Diagnostic] = field(default_factory=list)
    #: A record read back from the database, not written by an editor: a whole number below 1 (stored
    #: before files were held to numbers from 1) passes, so the record can still be shown, exported and
    #: mended; what an editor writes is held to the rule (`check` warns about such a record).
    stored: bool = False
    #: The text as written of each plain value YAML reads as no text (`2026-11-05`, `1.50`, `yes`), by path
    #: (see yamlio.parse): a field that holds text takes that, so a value is the same text whether YAML
    #: could read it as a date or a number or not (`2026-11-31`, `1.5.0`).
    written: Mapping[Path, str] = field(default_factory=dict)

    def record(self, data: Any) -> dict[str, Any] | None:
        """`data`, a parsed file, as the record of its kind in canonical form (see the module's docstring), or
        None when it names no kind; every problem found is added to `problems`."""
        kind = self._kind(data)
        if kind is None:
            return None
        self._unknown_fields(data, kind)
        out: dict[str, Any] = {"kind": kind.name, **self._field_values(data, kind)}
        self._rules_across_fields(out, data)
        if kind.name == "site":
            self._slugs_listed_twice(out)
        out.update(self._language_texts(data, kind))
        return out

    def _kind(self, data: Any) -> Kind | None:
        """The kind `data` names, or None (named as a problem) when it is no mapping or names no kind."""
        if not isinstance(data, dict):
            self.fail((), "a content file must be a mapping with a `kind` field")
            return None
        kind_name = data.get("kind")
        if kind_name not in kinds():
            self.fail(("kind",), f"unknown kind {kind_name!r}; expected one of {', '.join(kinds())}")
            return None
        return kinds()[kind_name]

    def _unknown_fields(self, data: dict[str, Any], kind: Kind) -> None:
        """Name each top-level key that is neither a field of `kind` nor one of the site's languages; a
        language's texts that are no mapping."""
        for name, value in data.items():
            if name == "kind" or name in kind.fields:
                continue
            if name in self.languages:
                if value is not None and not isinstance(value, dict):
                    self.fail((name,), f"expected the {name} texts as a mapping of fields")
            elif LANGUAGE_RE.match(name) and name not in kind.texts:
                self.fail((name,), f"unknown language {name!r}; this site publishes in {', '.join(self.languages)}")
            else:
                article = "an" if kind.name[0] in "aeiou" else "a"
                self.fail((name,), f"unknown field for {article} {kind.name}; expected one of "
                          f"{', '.join([*kind.fields, *self.languages])}")

    def _field_values(self, data: dict[str, Any], kind: Kind) -> dict[str, Any]:
        """The language-independent fields of `kind`, each checked, in the kind's order; empty ones left out."""
        values: dict[str, Any] = {}
        for name, spec in kind.fields.items():
            value = self.value((name,), data.get(name), spec)
            if not _empty(value):
                values[name] = value
        return values

    def _rules_across_fields(self, out: dict[str, Any], data: dict[str, Any]) -> None:
        """The rules no one field decides: an issue's publication time that its status needs (unless
        `published_at` is written: then its own problem is named), a week that does not end before it starts,
        former slugs that are not the slug and not named twice."""
        problem = publication_time_problem(out) if data.get("published_at") is None else None
        if problem:
            self.problems.append(Diagnostic(self.location, self.lines.get(("status",)), "published_at", problem))
        problem = week_problem(out)
        if problem:
            self.problems.append(Diagnostic(self.location, self.lines.get(("week", "end")) or
                                            self.lines.get(("week",)), "week.end", problem))
        former = former_slug_problem(out)
        if former is not None:
            self.fail(("formerly", former[0]), former[1])

    def _slugs_listed_twice(self, site: dict[str, Any]) -> None:
        """Name a slug the site file lists twice among its sections, categories, audiences or tags: the second
        would take the first's place, name and order."""
        for name in ("sections", "categories", "audiences", "tags"):
            listed: dict[str, int] = {}
            for index, item in enumerate(site.get(name) or ()):
                slug = item.get("slug")
                if slug is None:
                    continue  # named as required already
                if slug in listed:
                    self.fail((name, index, "slug"), f"{slug!r} is listed twice (also {name}[{listed[slug]}]): "
                                                     "list each once")
                listed.setdefault(slug, index)

    def _language_texts(self, data: dict[str, Any], kind: Kind) -> dict[str, Any]:
        """Each of the site's languages' texts of `kind`, checked, by language; a language without any left out."""
        texts: dict[str, Any] = {}
        for lang in self.languages:
            block = data.get(lang)
            if isinstance(block, dict):
                checked = self.value((lang,), block, Field("map", fields=kind.texts))
                if checked:
                    texts[lang] = checked
        return texts
