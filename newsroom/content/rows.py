"""Helpers shared by the record ↔ row mappings of every kind."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def apply_texts(
    texts: list[Any],
    cls: type,
    record: dict[str, Any],
    languages: tuple[str, ...],
    columns: tuple[str, ...],
    flatten: Callable[[dict[str, Any]], dict[str, Any]] = lambda block: block,
) -> None:
    """Update per-language rows in place: set the columns, add and drop languages.

    Rows are updated rather than replaced so that an unchanged language keeps
    its row and a re-import of the same content writes nothing.
    """
    existing = {text.lang: text for text in texts}
    for lang in languages:
        block = record.get(lang)
        if block is None:
            if lang in existing:
                texts.remove(existing[lang])
            continue
        values = flatten(block)
        text = existing.get(lang) or cls(lang=lang)
        for name in columns:
            if getattr(text, name, None) != values.get(name):
                setattr(text, name, values.get(name))
        if lang not in existing:
            texts.append(text)
