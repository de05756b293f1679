"""The reference pages as `newsroom reference list` shows them: one line each, by title in a language's
dictionary order."""

from __future__ import annotations

from collections.abc import Iterator

from glossary.views import by_headword
from newsroom.build.model import Content
from newsroom.drafts import is_draft


def list_lines(content: Content, lang: str, languages: tuple[str, ...]) -> Iterator[str]:
    """`slug  updated  title` of each reference page, by its title in `lang` (a page without text in `lang`
    by the first of `languages` it has, marked); "-" for a page without a date of last update; "(draft)" after a
    draft's (see newsroom.drafts)."""
    rows = []
    for slug, page in content.pages.items():
        if page.kind != "reference":
            continue
        title, marked = page.text(lang).get("title"), ""
        if not title:
            title = next((page.text(other)["title"] for other in languages if page.text(other).get("title")), slug)
            marked = f"  (no {lang} text)"
        rows.append((slug, page.data.get("updated") or "-", title, marked + ("  (draft)" if is_draft(page) else "")))
    for slug, updated, title, marked in by_headword(rows, lang, lambda row: row[2]):
        yield f"{slug}  {updated}  {title}{marked}"
