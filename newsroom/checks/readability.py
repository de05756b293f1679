"""What readers, and screen readers, get of a record's texts: a title too long to show whole, raw HTML the
pages leave out, a link with nothing to read, an image without alt text."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from newsroom.build.model import Content, Record
from newsroom.content.schema import Field, kinds
from newsroom.diagnostics import Diagnostic
from newsroom.render.markdown import (formulas_without_alttext, images_without_alt, internal_target, left_out,
                                      unnamed_links)


#: The most characters a title shows well in (an email's Subject, a feed reader's list, search results).
TITLE_LIMIT = 200


#: A record's title in its texts, per kind.
TITLES = {"entry": "headword", "issue": "title", "story": "headline", "reference": "title", "page": "title"}


def _long_titles(record: Record, languages: tuple[str, ...]) -> Iterator[Diagnostic]:
    """A title longer than TITLE_LIMIT: shown whole in an email's Subject, a feed's list and the pages' own
    title, where a few words are read."""
    field = TITLES.get(record.kind)
    for lang in languages:
        title = record.text(lang).get(field) if field else None
        if isinstance(title, str) and len(title) > TITLE_LIMIT:
            yield Diagnostic(record.location, None, f"{lang}.{field}", (
                f"{len(title):,} characters: email Subjects, feed readers and search results show it whole; "
                f"keep it under {TITLE_LIMIT} (the summary says the rest)"), "warning")


def _left_out(record: Record, languages: tuple[str, ...]) -> Iterator[Diagnostic]:
    """Raw HTML in a Markdown text that the pages, feeds and emails leave out (a <script>, an onerror=, a
    javascript: link), and links of a scheme shown as their text: a warning saying what, so an editor knows
    readers do not see it (nothing of it runs, whatever it is)."""
    spec = Field("map", fields=kinds()[record.kind].texts)
    for lang in languages:
        for path, text in _markdown_in(record.text(lang), spec, lang):
            gone = left_out(text)
            if gone:
                yield Diagnostic(record.location, None, path, (
                    f"the site leaves out {', '.join(gone[:4])}{' and more' if len(gone) > 4 else ''}: "
                    "write it in Markdown (a `\\<` shows a `<` as it is), or take it out"), "warning")


def _unnamed_links(record: Record, content: Content, languages: tuple[str, ...]) -> Iterator[Diagnostic]:
    """A link with no text and no image alt text in it (`[](…)`, `[![](logo.png)](…)`): a screen reader says
    "link" and nothing else, or spells out its address; a warning at the field, saying how to name it. Not one
    to a record that is not there, which the page shows as its text (none) and `check` names as missing."""
    spec = Field("map", fields=kinds()[record.kind].texts)
    for lang in languages:
        for path, text in _markdown_in(record.text(lang), spec, lang):
            for target in unnamed_links(text):
                if _leads_nowhere(target, content):
                    continue
                yield Diagnostic(record.location, None, path, (
                    f"link {target!r} has no text: screen readers say \"link\" and nothing more; write its text "
                    "between the brackets ([text](…)), or alt text for its image ([![what it shows](…)](…))"),
                    "warning")


def _leads_nowhere(href: str, content: Content) -> bool:
    """Whether `href` is a link to an entry, a page or an issue the content does not hold (see
    checks.links._references, which names it)."""
    target = internal_target(href)
    if target is None:
        return False
    kind, key = target
    if kind == "issue":
        return int(key) not in content.issues
    return key not in (content.entries if kind == "entry" else content.pages)


def _images_without_alt(record: Record, languages: tuple[str, ...]) -> Iterator[Diagnostic]:
    """A raw `<img src=…>` with no `alt`, which the pages keep as written: a screen reader reads its file name
    (in a link, as the link's name); a warning at the field, saying how to describe it or mark it decoration."""
    spec = Field("map", fields=kinds()[record.kind].texts)
    for lang in languages:
        for path, text in _markdown_in(record.text(lang), spec, lang):
            for source, in_link in images_without_alt(text):
                image = f'<img src="{source}">' if source else "<img>"
                yield Diagnostic(record.location, None, path, (
                    f"{image} in a link has no alt text: a screen reader reads its file name as the link's name; "
                    "say where the link leads in alt=\"…\" (alt=\"\" if the link's own text says it)") if in_link else (
                    f"{image} has no alt text: a screen reader reads its file name instead; say what it shows in "
                    "alt=\"…\", or write alt=\"\" if it is decoration"), "warning")


def _formulas_without_alttext(record: Record, languages: tuple[str, ...]) -> Iterator[Diagnostic]:
    """A raw `<math>` without `alttext`, which the pages show as MathML: where a formula is read as text it reads
    as its bare text ("x2" for x²); a warning at the field, saying how to give it words."""
    spec = Field("map", fields=kinds()[record.kind].texts)
    for lang in languages:
        for path, text in _markdown_in(record.text(lang), spec, lang):
            for bare in formulas_without_alttext(text):
                yield Diagnostic(record.location, None, path, (
                    f"<math> has no alttext: the email's text part, feed summaries, search and screen readers without "
                    f"MathML read it as {bare!r}; say how it reads in alttext=\"…\""), "warning")


def _markdown_in(value: Any, spec: Field, path: str) -> Iterator[tuple[str, str]]:
    """(path, text) of each Markdown text in `value`, a record's language block or a part of it, by the
    content schema's `spec` (a title or a headline is text: its `<` is shown as it is)."""
    if spec.type in ("md", "line_md") and isinstance(value, str):
        yield path, value
    elif spec.type == "map" and isinstance(value, Mapping):
        for name, item in value.items():
            if name in spec.fields:
                yield from _markdown_in(item, spec.fields[name], f"{path}.{name}")
    elif spec.type == "list" and spec.of is not None and isinstance(value, list):
        for index, item in enumerate(value):
            yield from _markdown_in(item, spec.of, f"{path}[{index}]")
