"""Stored records naming a section, category, audience or level the site does not have.

An import refuses a file naming one, and a site file that drops one still in use; `edit` refuses one
too. A record stored otherwise (by an earlier release, or by hand in the database) is reported here,
each at its field: an error where the build would link a page it does not make (a "Who is affected"
line's section, a level), a warning where it shows the slug as the name (a category, whose page the
build makes under its slug; an audience).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from glossary.models import LEVELS
from newsroom.build.model import Content, Record
from newsroom.diagnostics import Diagnostic, Severity


def vocabulary_problems(content: Content, languages: Iterable[str]) -> Iterator[Diagnostic]:
    """Every entry and story naming a section, category, audience or level that is not listed (the site's
    lists; the levels of the content format). Nothing without a site: an empty database has no lists."""
    if not content.site:
        return
    listed = {field: set(content.vocabulary(field)) for field in ("sections", "categories", "audiences")}
    for entry in content.entries.values():
        yield from _entry_problems(entry, listed, tuple(languages))
    for story in content.stories.values():
        for i, audience in enumerate(story.data.get("audiences") or []):
            if audience not in listed["audiences"]:
                yield _unlisted(story, f"audiences[{i}]", "audience", audience, listed["audiences"])


def _entry_problems(entry: Record, listed: dict[str, set[str]], languages: tuple[str, ...]) -> Iterator[Diagnostic]:
    category, level = entry.data.get("category"), entry.data.get("level")
    if category not in listed["categories"]:
        yield _unlisted(entry, "category", "category", category, listed["categories"])
    if level not in LEVELS:
        yield Diagnostic(entry.location, None, "level", (
            f"{level!r} is no level (known: {', '.join(LEVELS)}): the entry's page would link a level page the "
            f"build does not make; give it one (`newsroom edit {entry.location} --set level=…`)"))
    for lang in languages:
        for i, line in enumerate(entry.text(lang).get("affected") or []):
            for j, audience in enumerate(line.get("audiences") or []):
                if audience not in listed["audiences"]:
                    yield _unlisted(entry, f"{lang}.affected[{i}].audiences[{j}]", "audience", audience,
                                    listed["audiences"])
            section = line.get("section")
            if section and section not in listed["sections"]:
                yield _unlisted(entry, f"{lang}.affected[{i}].section", "section", section, listed["sections"])


#: What the build does with a name the site does not list, by kind: an error where it would link nowhere.
_SHOWN: dict[str, tuple[Severity, str]] = {
    "section": ("error", 'its "→" would link a section page the build does not make'),
    "category": ("warning", "the build makes its category page under the slug, shown as its name"),
    "audience": ("warning", "a page that shows it shows the slug as its name"),
}
#: The site file's list of each kind.
_LIST = {"section": "sections", "category": "categories", "audience": "audiences"}


def _unlisted(record: Record, field: str, kind: str, slug: object, known: set[str]) -> Diagnostic:
    severity, shown = _SHOWN[kind]
    return Diagnostic(record.location, None, field, (
        f"the site lists no {kind} {slug!r} (known: {', '.join(sorted(known)) or 'none'}): {shown}; add it to "
        f"the site file's `{_LIST[kind]}:` in site.yaml and import that (`newsroom import site.yaml`), or name one "
        f"it lists (`newsroom edit {record.location} --set {field}=…`)"), severity)
