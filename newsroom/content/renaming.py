"""A record's references to another one, rewritten when that one is renamed (`newsroom rename`).

A glossary entry is named by slug in other entries' relations, in stories' `terms` and `suppress_terms`, and
in `[text](entry:slug)` links of any text; a reference or site page in `[text](page:slug)` links. Links are
rewritten in the Markdown source, inline (`](entry:gpu)`, `](<entry:gpu> "title")`), in reference
definitions (`[gpu]: entry:gpu`) and as autolinks (`<entry:gpu>`); the parser then says whether every one
was found. A relation to a concept without an entry gives its name, not a slug (see
`schema.relation_name`): a name, even one spelt like the old slug, is text and is never rewritten.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from newsroom.render.markdown import find_references

#: The link scheme each kind of record is named by in Markdown.
LINK_KINDS = {"entry": "entry", "reference": "page", "page": "page"}


class UnrewrittenLink(ValueError):
    """A text links to the old slug in a way the rewriting does not know: `field` (dotted) says where."""

    def __init__(self, field: str) -> None:
        super().__init__(field)
        self.field = field


def _link_pattern(scheme: str, slug: str) -> re.Pattern[str]:
    # A link destination starts after "](" (inline) or "]:" (a reference definition), maybe in <…>, or is an
    # autolink (<entry:gpu>); the slug ends where the destination does (a space before a title, ")", ">" or
    # the line's end).
    prefix = r"\]\(\s*<?|^[ ]{0,3}\[[^\]\n]+\]:[ \t]*<?|<"
    return re.compile(rf"({prefix})({re.escape(scheme)}):{re.escape(slug)}(?=[\s)>]|$)", re.IGNORECASE | re.MULTILINE)


def _targets(text: str, scheme: str) -> tuple[str, ...]:
    found = find_references(text)
    return found.entries if scheme == "entry" else found.pages


def rewrite_references(record: dict[str, Any], kind: str, old: str, new: str,
                       languages: tuple[str, ...]) -> dict[str, Any] | None:
    """`record` with its references to the `kind` record `old` made to `new`, or None when it has none.

    Raises UnrewrittenLink when a text still links to `old` after its links were rewritten."""
    scheme = LINK_KINDS[kind]
    pattern = _link_pattern(scheme, old)
    out = copy.deepcopy(record)
    changed = False

    def text(value: str, field: str) -> str:
        nonlocal changed
        if old not in value or old not in _targets(value, scheme):
            return value
        rewritten = pattern.sub(lambda m: f"{m.group(1)}{m.group(2)}:{new}", value)
        if old in _targets(rewritten, scheme):
            raise UnrewrittenLink(field)
        changed = True
        return rewritten

    def walk(value: Any, field: str) -> Any:
        if isinstance(value, str):
            return text(value, field)
        if isinstance(value, list):
            return [walk(item, f"{field}[{i}]") for i, item in enumerate(value)]
        if isinstance(value, dict):
            return {key: walk(item, f"{field}.{key}" if field else key) for key, item in value.items()}
        return value

    for lang in languages:
        if isinstance(out.get(lang), dict):
            out[lang] = walk(out[lang], lang)
    if kind == "entry":
        relations = out.get("relations") or {}
        for name, targets in relations.items():
            for i, target in enumerate(targets):
                if name == "similar" and isinstance(target, dict) and target.get("entry") == old:
                    target["entry"], changed = new, True
                elif target == old:  # (a name — a text that is no slug, or {lang: name} — never is)
                    targets[i], changed = new, True
        for name in ("terms", "suppress_terms"):
            slugs = out.get(name)
            if record.get("kind") == "story" and isinstance(slugs, list) and old in slugs:
                out[name], changed = [new if slug == old else slug for slug in slugs], True
    return out if changed else None
