"""What a record's texts cite and link to: a citation with no source, a link to a missing or draft entry,
page or issue, a malformed link; a reference page's source that no text cites."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from newsroom.build.model import Content, Record
from newsroom.diagnostics import Diagnostic
from newsroom.drafts import draft_link_problem, is_draft
from newsroom.reference_rules import table_problems
from newsroom.render.markdown import References, find_references, link_problem
from newsroom.render.markdown.links import embed_problem, image_problem


def _markdown_fields(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """(path, text) for every string inside a record's language block."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _markdown_fields(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _markdown_fields(item, f"{path}[{i}]")


def markdown_texts(record: Record, languages: tuple[str, ...]) -> Iterator[str]:
    """Every text of a record that `check` reads as Markdown."""
    for lang in languages:
        for _, text in _markdown_fields(record.text(lang), lang):
            yield text


def _texts(record: Record, languages: tuple[str, ...]) -> list[tuple[str, str, References]]:
    """(language, path, references) of each text of a record, language by language: what both its
    problems and its links' targets are found from."""
    return [(lang, path, find_references(text)) for lang in languages
            for path, text in _markdown_fields(record.text(lang), lang)]


def _link_targets(texts: list[tuple[str, str, References]]) -> list[tuple[str, Any]]:
    """The entries, pages and issues a record's texts (see `_texts`) link to (whose existence its problems
    depend on)."""
    found: set[tuple[str, Any]] = set()
    for _, _, refs in texts:
        if refs.entries or refs.pages or refs.issues:
            found.update([*(("entry", slug) for slug in refs.entries), *(("page", slug) for slug in refs.pages),
                          *(("issue", number) for number in refs.issues)])
    return sorted(found, key=repr)


def _references(record: Record, content: Content, languages: tuple[str, ...],
                texts: list[tuple[str, str, References]]) -> Iterator[Diagnostic]:
    """Citations without a source, links to entries, pages or issues that do not exist, in a record's
    texts (see `_texts`)."""
    sources = len(record.data.get("sources") or [])
    targets = {"entry": content.entries, "page": content.pages}
    for lang in languages:
        for text_lang, path, refs in texts:
            if text_lang != lang:
                continue
            for n in refs.citations:
                if not 1 <= n <= sources:
                    yield Diagnostic(record.location, None, path, f"citation [{n}] has no source "
                                     f"({sources} source{'s' if sources != 1 else ''} listed)")
            if refs.citations and ".table." in path:  # a table's text is shown as it is: `[2]` a reader sees
                yield Diagnostic(record.location, None, path, (
                    f"a spec table's text shows [{refs.citations[0]}] as it is, not as a link to the source: give "
                    f"the cell its source as {{value: …, source: {refs.citations[0]}}}"), "warning")
            for kind, slugs in (("entry", refs.entries), ("page", refs.pages)):
                for slug in slugs:
                    if slug not in targets[kind]:
                        yield Diagnostic(record.location, None, path, f"link to a missing {kind} {slug!r}")
                    elif is_draft(targets[kind][slug]) and not is_draft(record):
                        yield draft_link_problem(record.location, path, targets[kind][slug], languages)
            for number in refs.issues:
                if number not in content.issues:
                    yield Diagnostic(record.location, None, path, f"link to a missing issue {number}")
            for href in refs.malformed:
                severity, message = link_problem(href)
                yield Diagnostic(record.location, None, path, message, severity)
            for src in refs.refused_images:
                yield Diagnostic(record.location, None, path, image_problem(src), "warning")
            for src in refs.embeds:
                yield Diagnostic(record.location, None, path, embed_problem(src), "warning")
        yield from table_problems(record, lang, sources)


def _cited(record: Record, lang: str, texts: list[tuple[str, str, References]]) -> set[int]:
    """Source numbers a language's text cites: `[n]` in its Markdown (its `texts`, see `_texts`) and
    spec-table cells."""
    cited = {n for text_lang, _, refs in texts if text_lang == lang for n in refs.citations}
    for section in record.text(lang).get("sections") or []:
        for layer in ("simple", "deep"):
            for row in ((section.get(layer) or {}).get("table") or {}).get("rows") or []:
                cited |= {cell["source"] for cell in row if isinstance(cell, Mapping) and cell.get("source")}
    return cited


def _uncited_sources(record: Record, languages: tuple[str, ...],
                     texts: list[tuple[str, str, References]]) -> Iterator[Diagnostic]:
    """A reference page's source that no citation in a language points at (a warning: readers
    cannot tell what it supports)."""
    if record.kind != "reference":
        return
    for lang in languages:
        if not record.has(lang):
            continue
        cited = _cited(record, lang, texts)
        for i, _source in enumerate(record.data.get("sources") or []):
            if i + 1 not in cited:
                yield Diagnostic(record.location, None, f"sources[{i}]",
                                 f"source {i + 1} is never cited in the {lang} text", "warning")
