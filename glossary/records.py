"""Glossary entries between their content-file record and their database rows."""

from __future__ import annotations

import datetime as dt
from typing import Any

from glossary.models import RELATION_KINDS, Entry, EntryText, Relation
from newsroom.content.rows import apply_texts
from newsroom.content.schema import relation_name

TEXT_COLUMNS = ("headword", "definition", "plain_terms", "analogy", "example", "limits", "history", "current_state")
LIST_COLUMNS = ("how_it_works", "affected", "aliases", "match_forms")


def entry_to_record(entry: Entry) -> dict[str, Any]:
    """The content-file record of an entry (not yet canonical: see `validator.Validator`)."""
    relations: dict[str, list[Any]] = {kind: [] for kind in RELATION_KINDS}
    for relation in entry.relations:
        if relation.kind == "similar":
            relations["similar"].append({"entry": relation.target, "note": relation.note})
        else:  # an entry's slug, or the name of a concept without one
            relations[relation.kind].append(relation.target if relation.target is not None else relation.name)
    record: dict[str, Any] = {
        "kind": "entry", "slug": entry.slug, "formerly": entry.formerly, "draft": entry.draft or None,
        "category": entry.category,
        "level": entry.level, "trend": entry.trend, "english_term": entry.english_term,
        "status": entry.status_month.strftime("%Y-%m"), "relations": relations,
        "sources": entry.sources, "provenance": entry.provenance,
    }
    for text in entry.texts:
        block: dict[str, Any] = {name: getattr(text, name) for name in (*TEXT_COLUMNS, *LIST_COLUMNS)}
        block["misconception"] = {"myth": text.myth, "reality": text.reality}
        record[text.lang] = block
    return record


def apply_entry(entry: Entry, record: dict[str, Any], languages: tuple[str, ...]) -> None:
    """Set an entry's rows from a canonical record, keeping rows that did not change."""
    entry.slug = record["slug"]
    entry.formerly = record.get("formerly")
    entry.draft = bool(record.get("draft"))
    entry.category = record["category"]
    entry.level = record["level"]
    entry.trend = record["trend"]
    entry.english_term = record.get("english_term")
    year, month = record["status"].split("-")
    entry.status_month = dt.date(int(year), int(month), 1)
    entry.sources = record.get("sources", [])
    entry.provenance = record.get("provenance")
    _apply_relations(entry, record.get("relations", {}))
    apply_texts(entry.texts, EntryText, record, languages, (*TEXT_COLUMNS, *LIST_COLUMNS, "myth", "reality"),
                _flatten)


def _flatten(block: dict[str, Any]) -> dict[str, Any]:
    misconception = block.get("misconception", {})
    lists = {name: block.get(name, []) for name in LIST_COLUMNS}
    return {**block, **lists, "myth": misconception.get("myth"), "reality": misconception.get("reality")}


def _apply_relations(entry: Entry, relations: dict[str, Any]) -> None:
    wanted = []
    for kind in RELATION_KINDS:
        for item in relations.get(kind, []):
            if kind == "similar":
                wanted.append((kind, item["entry"], None, item.get("note")))
            else:
                name = relation_name(item)
                wanted.append((kind, item if name is None else None, name, None))
    current = [(r.kind, r.target, r.name, r.note) for r in entry.relations]
    if current == wanted:
        return
    entry.relations.clear()
    for position, (kind, target, name, note) in enumerate(wanted):
        entry.relations.append(Relation(kind=kind, target=target, name=name, note=note, position=position))
