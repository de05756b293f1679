"""What each kind of content file may contain: its fields, the shape of each value and what an editor
is told it expects, and the rules a whole record keeps (an issue's week and publication time, a
record's former slugs). newsroom.content.validator holds each file to them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from newsroom.build.urls import SITE_FOLDERS
from newsroom.diagnostics import FieldPath as Path

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MONTH_RE = re.compile(r"^(\d{4})-(\d{2})$")
LANGUAGE_RE = re.compile(r"^[a-z]{2,3}(?:-[A-Za-z]{2,4})?$")
#: The largest whole number a record holds (an issue's number, a story's position): the database's INTEGER.
MAX_INT = 2**31 - 1


@dataclass(frozen=True)
class Field:
    """The expected shape of one value."""

    # text | md | line_md | slug | page_slug | relation | int | date | month | datetime | enum | url | list | map
    # | langmap | cell | flag | language
    type: str
    required: bool = False
    choices: tuple[str, ...] = ()
    of: Field | None = None
    fields: Mapping[str, Field] = field(default_factory=dict)
    expects: str = ""  # what to tell an editor who got it wrong
    named: bool = False  # a map that also carries one name per language ({slug, hu, en})
    #: An enum whose stored value outside the choices passes when read back (see Validator.stored): `check`
    #: names it, and the record can still be shown, exported and mended.
    stored_any: bool = False


TEXT = Field("text")
MD = Field("md")
#: One paragraph, as a text field is, read as inline Markdown (a link, *emphasis*, a citation [1]): a definition.
LINE_MD = Field("line_md")
SLUG = Field("slug")
SLUGS = Field("list", of=SLUG)
TEXTS = Field("list", of=TEXT)
#: The slugs a record was published under before (see `former_slug_problem`); a site page's, as its slug.
FORMERLY = SLUGS
FORMER_PAGE_SLUGS = Field("list", of=Field("page_slug"))
#: `draft: true`: a record kept and previewed but not published (see newsroom.drafts); false is no flag at all.
DRAFT = Field("flag", expects="true (a draft, not published) or false (published)")
#: Broader, narrower or related concepts: each an entry's slug, or the name of a concept without an entry
#: (see `relation_name`).
RELATIONS = Field("list", of=Field("relation"))


def relation_name(item: str | Mapping[str, str]) -> str | Mapping[str, str] | None:
    """The name a relation gives a concept without an entry — a text that is no slug, or one name per
    language — or None when the relation names an entry by its slug."""
    return item if isinstance(item, Mapping) or not SLUG_RE.match(item) else None


def mapping(required: tuple[str, ...] = (), **fields: Field) -> Field:
    return Field("map", fields={k: (Field(**{**v.__dict__, "required": True}) if k in required else v)
                                for k, v in fields.items()})


#: A source's `lang` is the language its title is written in: a page in another marks the title with it.
SOURCE = mapping(("title", "url"), publisher=TEXT, title=TEXT, url=Field("url"), date=Field("date"),
                 lang=Field("language"))
SOURCES = Field("list", of=SOURCE)
#: A spec table: its optional caption (a `<caption>`), its column headings and its rows.
TABLE = mapping(("columns", "rows"), caption=TEXT, columns=TEXTS,
                rows=Field("list", of=Field("list", of=Field("cell"))))  # (blank cells: see Validator._rows)
LAYER = mapping(text=MD, table=TABLE, after=MD)


@dataclass(frozen=True)
class Kind:
    """A kind of content file: its language-independent and per-language fields."""

    name: str
    key: str  # the stable id field: "slug" or "number"
    fields: Mapping[str, Field]
    texts: Mapping[str, Field]


def _kinds() -> dict[str, Kind]:
    from glossary.models import LEVELS, TRENDS
    from issues.models import STATUSES

    vocabulary = Field("list", of=Field("map", fields={"slug": Field("slug", True)}, named=True))
    # A confusable is another entry, each side's note saying how it differs from the other: a name has no
    # page to compare, nor a side to state it from.
    confusable = Field("slug", expects="an entry's slug (a confusable is another entry: name a concept without "
                                       "one under related)")
    relation_similar = mapping(("entry",), entry=confusable, note=Field("langmap"))
    return {
        "site": Kind(
            "site", "", {"sections": vocabulary, "categories": vocabulary, "audiences": vocabulary,
                         "tags": Field("list", of=Field("map", fields={"slug": Field("tag_slug", True)}, named=True))},
            {"name": TEXT, "tagline": TEXT, "greeting": TEXT},
        ),
        "entry": Kind(
            "entry", "slug",
            {
                "slug": Field("slug", True), "formerly": FORMERLY, "draft": DRAFT, "category": Field("slug", True),
                "level": Field("enum", True, LEVELS, stored_any=True), "trend": Field("enum", True, TRENDS),
                "english_term": TEXT, "status": Field("month", True),
                "relations": mapping(
                    broader=RELATIONS, narrower=RELATIONS, related=RELATIONS,
                    similar=Field("list", of=relation_similar)
                ),
                "sources": SOURCES,
                "provenance": mapping(
                    ("method",), method=TEXT, review=TEXT, written=Field("date"), reviewed=Field("date")
                ),
            },
            {
                "headword": TEXT, "definition": LINE_MD, "plain_terms": MD, "analogy": MD,
                "how_it_works": Field("list", of=MD), "example": MD,
                "affected": Field("list", of=mapping(("text",), audiences=SLUGS, text=TEXT, section=SLUG)),
                "misconception": mapping(myth=TEXT, reality=TEXT),
                "limits": MD, "history": MD, "current_state": MD, "aliases": TEXTS, "match_forms": TEXTS,
            },
        ),
        "reference": Kind(
            "reference", "slug", {"slug": Field("slug", True), "formerly": FORMERLY, "draft": DRAFT,
                                   "updated": Field("date"), "sources": SOURCES},
            {
                "title": TEXT, "summary": TEXT,
                "sections": Field("list", of=mapping(("title",), title=TEXT, simple=LAYER, deep=LAYER)),
            },
        ),
        "page": Kind("page", "slug",
                     {"slug": Field("page_slug", True), "formerly": FORMER_PAGE_SLUGS, "draft": DRAFT},
                     {"title": TEXT, "summary": TEXT, "body": MD}),
        "issue": Kind(
            "issue", "number",
            {
                "number": Field("int", True),
                "week": mapping(("start", "end"), start=Field("date"), end=Field("date")),
                "status": Field("enum", True, STATUSES), "published_at": Field("datetime"),
            },
            {"title": TEXT, "lead": MD, "editor_note": MD},
        ),
        "story": Kind(
            "story", "slug",
            {
                "slug": Field("slug", True), "formerly": FORMERLY, "issue": Field("int", True),
                "section": Field("slug", True),
                "position": Field("int", True), "tags": TEXTS, "audiences": SLUGS, "terms": SLUGS,
                "suppress_terms": SLUGS, "sources": SOURCES,
            },
            {"headline": TEXT, "summary": MD, "body": MD},
        ),
    }


KINDS: dict[str, Kind] = {}


def page_slug_problem(slug: str) -> str | None:
    """Why a site page cannot have this slug (it is published at `{lang}/{slug}/`), or None."""
    if slug in SITE_FOLDERS:
        return (f"{slug!r} is the folder of the site's own {slug} pages ({{lang}}/{slug}/): give the "
                f"page another slug (not {', '.join(SITE_FOLDERS)})")
    return None


def publication_time_problem(issue: dict[str, Any]) -> str | None:
    """Why an issue record lacks the publication time its status needs (feeds, emails and the archive
    date it by that time), or None; None for other records."""
    status = issue.get("status")
    if issue.get("kind") == "issue" and status in ("scheduled", "published") and not issue.get("published_at"):
        return (f"a {status} issue needs its publication time, e.g. published_at: 2026-11-09T07:00:00+01:00 "
                "(or status: draft)")
    return None


def week_problem(issue: dict[str, Any]) -> str | None:
    """Why an issue record's week is not a span of days (it ends before it starts), or None."""
    week = issue.get("week") if issue.get("kind") == "issue" else None
    if isinstance(week, dict) and week.get("start") and week.get("end") and str(week["end"]) < str(week["start"]):
        return f"the week ends ({week['end']}) before it starts ({week['start']})"
    return None


def former_slug_problem(record: dict[str, Any]) -> tuple[int, str] | None:
    """Why a record's former slugs (`formerly`) cannot be: (the index of the first wrong one, why), or None."""
    seen: set[str] = set()
    for index, slug in enumerate(record.get("formerly") or ()):
        if slug == record.get("slug"):
            return index, f"{slug!r} is the record's slug: a former slug is one it was published under before"
        if slug in seen:
            return index, f"{slug!r} is named twice"
        seen.add(slug)
    return None


def kinds() -> dict[str, Kind]:
    if not KINDS:
        KINDS.update(_kinds())
    return KINDS


EXPECTS = {
    "text": "text", "md": "Markdown text", "line_md": "text (one paragraph of Markdown)",
    "slug": "a slug: lowercase letters, digits and hyphens",
    "page_slug": "a slug: lowercase letters, digits and hyphens",
    "tag_slug": "a tag's page name, as archive/tag/…/ writes it: lowercase words joined by hyphens (ai-act for AI Act)",
    "relation": "an entry's slug, a name, or one name per language as {hu: …, en: …}",
    "int": "a whole number from 1 up", "date": "a date as YYYY-MM-DD", "month": "a month as YYYY-MM",
    "datetime": "a date and time with a UTC offset, as 2026-11-09T07:00:00+01:00",
    "url": "an http(s) or mailto URL", "list": "a list", "map": "a mapping of fields",
    "langmap": "one text per language, as {hu: …, en: …}",
    "cell": "text, {value: …, source: n} or {not_published: …}", "flag": "true or false",
    "language": "a language tag, as en, de or pt-BR",
}


#: The kinds of field whose value is text: each takes a plain value as written (see Validator.written).
TEXTUAL = frozenset({"text", "md", "line_md", "slug", "page_slug", "tag_slug", "relation", "enum", "url", "month",
                     "cell", "language"})


def field_at(kind_name: str, path: Path, languages: tuple[str, ...]) -> Field | None:
    """The field a record of kind `kind_name` has at `path` (`("en", "headline")`, `("sources", 0)`), or
    None when it has none there."""
    kind = kinds().get(kind_name)
    if kind is None or not path:
        return None
    name = path[0]
    spec = Field("map", fields=kind.texts) if name in languages else kind.fields.get(str(name))
    for step in path[1:]:
        spec = _inner(spec, step, languages) if spec is not None else None
    return spec


def _inner(spec: Field, step: str | int, languages: tuple[str, ...]) -> Field | None:
    """The field inside `spec` at `step`: an item of a list, a field of a mapping, one language's text."""
    if spec.type == "list":
        return spec.of if isinstance(step, int) else None
    if isinstance(step, int):
        return None
    if spec.type == "map":
        return spec.fields.get(step) or (TEXT if spec.named and step in languages else None)
    if spec.type in ("langmap", "relation"):
        return TEXT if step in languages else None
    if spec.type == "cell":
        return {"value": TEXT, "not_published": TEXT, "source": Field("int")}.get(step)
    return None


def as_written(value: Any, spec: Field | None, written: Mapping[Path, str], languages: tuple[str, ...],
               path: Path = ()) -> Any:
    """`value`, read from YAML, with the plain values of its text fields as `written` has them (by path
    within it): what a content file's text field holds (see Validator.written)."""
    if spec is None:
        return value
    if isinstance(value, list):
        return [as_written(item, _inner(spec, i, languages), written, languages, (*path, i))
                for i, item in enumerate(value)]
    if isinstance(value, dict):
        return {name: as_written(item, _inner(spec, name, languages), written, languages, (*path, name))
                for name, item in value.items()}
    return written.get(path, value) if spec.type in TEXTUAL else value
