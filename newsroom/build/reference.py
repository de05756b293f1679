"""A reference page's sections as the template needs them: numbered, both layers, citations with links back.

Every text of the page (each section's Simple and Deep dive text, table and
text after the table) is rendered with its own anchor prefix, so each
citation mark has a unique id; the numbered source list links back to each.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from newsroom.render.markdown import MarkdownRenderer, citation_backrefs

LAYERS = ("simple", "deep")


@dataclass
class Backrefs:
    """The ids of every citation of each source, in page order."""

    ids: dict[int, list[str]] = field(default_factory=dict)

    def add(self, number: int, anchor: str) -> None:
        self.ids.setdefault(number, []).append(anchor)


def _cell(value: Any, anchor: str, backrefs: Backrefs) -> dict[str, Any]:
    """One spec-table cell: plain text, a value with its cited source, or an explicit Not published."""
    if isinstance(value, Mapping) and "not_published" in value:
        return {"not_published": value["not_published"]}
    if isinstance(value, Mapping):
        cell: dict[str, Any] = {"value": value.get("value")}
        if value.get("source"):
            cell.update(source=value["source"], id=anchor)
            backrefs.add(value["source"], anchor)
        return cell
    return {"value": value}


def _layer(part: Mapping[str, Any], prefix: str, md: MarkdownRenderer, backrefs: Backrefs) -> dict[str, Any]:
    """One layer's text, table and text after the table, in page order (the order of the links back)."""
    out: dict[str, Any] = {}
    _text(part, "text", prefix, md, backrefs, out)
    table = part.get("table")
    if table:
        counts: dict[int, int] = {}
        rows = []
        for r, row in enumerate(table.get("rows") or []):
            cells = []
            for c, value in enumerate(row):
                source = value.get("source") if isinstance(value, Mapping) else None
                if source:
                    counts[source] = counts.get(source, 0) + 1
                anchor = f"{prefix}-table-{source}-{counts.get(source, 0)}" if source else f"{prefix}-r{r}c{c}"
                cells.append(_cell(value, anchor, backrefs))
            rows.append(cells)
        out["table"] = {"caption": table.get("caption"), "columns": table.get("columns") or [], "rows": rows}
    _text(part, "after", prefix, md, backrefs, out)
    return out


def _text(part: Mapping[str, Any], name: str, prefix: str, md: MarkdownRenderer, backrefs: Backrefs,
          out: dict[str, Any]) -> None:
    if part.get(name):
        anchor_prefix = f"{prefix}-{name}"
        out[name] = md.html(part[name], anchor_prefix=anchor_prefix)
        for number, anchors in citation_backrefs(part[name], anchor_prefix=anchor_prefix).items():
            for anchor in anchors:
                backrefs.add(number, anchor)


def reference_sections(sections: list[Mapping[str, Any]], md: MarkdownRenderer
                       ) -> tuple[list[dict[str, Any]], dict[int, list[str]]]:
    """(numbered sections with rendered layers, {source number: citation ids}) of one language's text."""
    backrefs = Backrefs()
    out = []
    for number, section in enumerate(sections, start=1):
        item: dict[str, Any] = {"number": number, "title": section.get("title"), "id": f"section-{number}"}
        for layer in LAYERS:
            if section.get(layer):
                item[layer] = _layer(section[layer], f"cite-s{number}-{layer}", md, backrefs)
        out.append(item)
    return out, backrefs.ids


def article(*, headline: str, description: str, url: str, lang: str, date_modified: str | None,
            sources: list[Mapping[str, Any]], publisher: str) -> dict[str, Any]:
    """A reference page as a schema.org Article (embed it with `glossary.jsonld.script_json`, which escapes
    it): its title, summary, address, language, date of last update and its numbered sources as citations."""
    data: dict[str, Any] = {
        "@context": "https://schema.org", "@type": "Article", "@id": url, "url": url, "mainEntityOfPage": url,
        "headline": headline, "name": headline, "description": description, "inLanguage": lang,
    }
    if date_modified:
        data["dateModified"] = date_modified
    if publisher:
        data["publisher"] = {"@type": "Organization", "name": publisher}
    citations = []
    for source in sources:
        citation: dict[str, Any] = {"@type": "CreativeWork", "name": source.get("title") or "", "url": source["url"]}
        if source.get("publisher"):
            citation["publisher"] = {"@type": "Organization", "name": source["publisher"]}
        if source.get("date"):
            citation["datePublished"] = source["date"]
        if source.get("lang"):
            citation["inLanguage"] = source["lang"]
        citations.append(citation)
    if citations:
        data["citation"] = citations
    return data


def collection_page(*, name: str, description: str, url: str, lang: str,
                    pages: list[Mapping[str, Any]]) -> dict[str, Any]:
    """The reference index as a schema.org CollectionPage (embed it with `glossary.jsonld.script_json`): an
    ItemList of its pages in the index's order, each an Article with its title, address, language and date
    of last update (`pages`: {"title", "url", "lang", "updated"}, `updated` ISO or None)."""
    items = []
    for position, page in enumerate(pages, start=1):
        item: dict[str, Any] = {"@type": "Article", "@id": page["url"], "url": page["url"], "headline": page["title"],
                                "name": page["title"], "inLanguage": page["lang"]}
        if page.get("updated"):
            item["dateModified"] = page["updated"]
        items.append({"@type": "ListItem", "position": position, "item": item})
    return {
        "@context": "https://schema.org", "@type": "CollectionPage", "@id": url, "url": url, "name": name,
        "description": description, "inLanguage": lang,
        "mainEntity": {"@type": "ItemList", "numberOfItems": len(items), "itemListElement": items},
    }
