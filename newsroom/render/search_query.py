"""A query run against the built search index as the browser's script (templates/assets/search.js) runs it,
so that tests exercise the real index: the words matched, the hits ranked (see newsroom/render/search.py)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import partial
from pathlib import Path

from newsroom.render.search import NAME_MARK, same_words, shards_for, tokens

#: Hits the script shows at once: it puts a whole name's hits among them in order of accents, as `search` does.
PAGE = 50


def search(index: Path | Mapping[str, bytes], query: str) -> list[dict[str, str]]:
    """Run `query` against a built index as the browser does: every word must match a token prefix.

    `index` is the index folder on disk or the mapping `index_files` returns. Hits come ranked as the
    module's docstring says (a whole name's hit whose title is the query with its accents first), and in a
    rank entries and reference pages first, in the order meta.json's "entries" lists them, then tags, then
    stories and issues, newest first (an issue before its stories).
    """
    read = (lambda rel: (index / rel).read_bytes() if (index / rel).exists() else None) if isinstance(index, Path) \
        else (lambda rel: index.get(rel))
    meta = json.loads(read("meta.json"))
    words = tokens(query)
    tables: list[dict[str, list[int]]] = [{} for _ in words]
    for table, word in zip(tables, words):
        for key in shards_for(word, meta["shards"]):
            table.update(json.loads(read(f"shards/{key}.json")))
    entries = {number: place for place, number in enumerate(meta["entries"])}
    ranked = sorted(_ranks(words, tables).items(), key=partial(_order, entries, set(meta["tags"])))
    results = []
    for number, rank in ranked:
        chunk = json.loads(read(f"docs/{number // meta['chunk']}.json"))
        kind, title, url, snippet, *text_lang = chunk[number % meta["chunk"]]
        results.append({"kind": kind, "title": title, "url": url, "snippet": snippet,
                        "lang": text_lang[0] if text_lang else "", "rank": rank})
    # The script orders the whole names' hits it shows (those of the first page) by their titles' accents.
    whole = [hit for hit in results[:PAGE] if hit["rank"] == 0]
    whole.sort(key=lambda hit: not same_words(hit["title"], query))
    return [{key: value for key, value in hit.items() if key != "rank"} for hit in whole + results[len(whole):]]


def _order(entries: Mapping[int, int], tags: set[int], hit: tuple[int, int]) -> tuple[int, int, int]:
    """A hit's place, (id, rank), as the script's `rank` sorts: by rank, then entries and reference pages
    (`entries`: id → place) in their places, tags (ids in `tags`) in order, stories and issues (the others) the
    last first."""
    number, rank = hit
    if number in entries:
        return rank, 0, entries[number]
    return (rank, 1, number) if number in tags else (rank, 2, -number)


def _ranks(words: list[str], tables: list[dict[str, list[int]]]) -> dict[int, int]:
    """Each hit's rank (0 first) from each word's shard tables, as the script's `rank`: every word must begin
    a token; 0 if the words are one of its names, 1 if each is a word of its names, 2 if each begins one."""
    if not words:
        return {}
    hits: set[int] | None = None
    exact: set[int] | None = None
    begun: set[int] | None = None
    for word, table in zip(words, tables):
        found: set[int] = set()
        named: set[int] = set()
        for token, ids in table.items():
            if token.startswith(word):
                if not token.endswith(NAME_MARK):
                    found.update(ids)
                elif " " not in token:
                    named.update(ids)
        hits = found if hits is None else hits & found
        begun = named if begun is None else begun & named
        marked = set(table.get(word + NAME_MARK, ()))
        exact = marked if exact is None else exact & marked
    whole = set(tables[0].get(" ".join(words) + " " + NAME_MARK, ()))
    return {number: 0 if number in whole else 1 if number in exact else 2 if number in begun else 3
            for number in hits}
