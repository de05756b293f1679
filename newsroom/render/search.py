"""The static search index: accent-folded tokens → document ids, one set of small files per language.

Readers search with JavaScript in the browser (templates/assets/search.js), so
the index must be cheap to fetch: tokens are sharded by their first folded
character (a query for "kozpont" downloads only the "k" shard) and the
documents (title, link, snippet) are split into numbered chunks fetched only
for the hits shown. `fold` and `tokens` here define the rules; the script
repeats them, and `search` (newsroom/render/search_query.py) runs a query
against the built files the same way the script does, so tests exercise the
real index.

Hits are ranked by where the query's words are: a document one of whose names (an entry's headword,
aliases and English term, a reference page's title, a tag's name and slug, an issue's number and title) is the
query comes first, then one whose names or title (a story's headline) hold every word, then one whose names'
or title's words begin with every word, then the others. The shards say so with marked keys beside the
tokens: "gepi=" lists the documents with the word "gepi" in a name or title, "gepi tanulas =" those with the
name "gépi tanulás" (no token holds "=" or a space).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import orjson

from newsroom.render.markdown import plain_text

#: Documents per chunk file: a query's hits fetch few chunks, and each chunk stays a few kilobytes.
CHUNK = 64
#: A letter's shard bigger than this is split by the first two characters (a large archive's
#: common letters); the sample's shards stay whole.
SPLIT_BYTES = 48_000
#: Characters that start a shard of their own; every other token goes to the "_" shard.
SHARD_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789"
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
SNIPPET_CHARS = 180
#: Shortest word ending of a name that is indexed (Hungarian compounds: adat|központ).
MIN_SUFFIX = 4
#: Ends a marked key of the shards: "gepi=" a word of a name, "gepi tanulas =" a whole name.
NAME_MARK = "="
#: The index's format, meta.json's "version", for a reader of the files other than templates/assets/search.js
#: (made with them, it reads each): 1, shards mapping tokens to ids and chunks of rows [kind, title, url,
#: snippet]; 2, also marked keys among a shard's tokens (NAME_MARK: a name's word, a whole name), where the
#: stories start (meta.json's "stories") and a fallback row's language (its fifth column); 3, also the tags'
#: pages (rows of kind "tag"), after the stories, from meta.json's "tags" on: a reader of 2 took them for the
#: newest stories; 4, also the issues' pages (rows of kind "issue"), each after its stories, among them from
#: meta.json's "stories" on: a reader of 3 showed them with no word for what they are; 5, the tags' pages among
#: the stories and issues, each after the issue whose stories first carry it, and meta.json's "tags" the list of
#: their ids, not the first one's: a reader of 4 took every document from the first tag on for a tag; 6, the entries
#: and reference pages among the stories, issues and tags too, each before the first issue out on or after its day,
#: and meta.json's "entries" the list of their ids in the order hits show them, in place of its "stories": a reader
#: of 5 took every document after the first issue's for a story.
INDEX_FORMAT = 6
#: The kinds of document shown first in a rank, in the order meta.json's "entries" gives.
GLOSSARY_KINDS = ("entry", "reference")


class _FoldTable(dict[int, str]):
    """Each character's NFKD decomposition without marks, worked out on first use (a `str.translate` table)."""

    def __missing__(self, code: int) -> str:
        folded = "".join(ch for ch in unicodedata.normalize("NFKD", chr(code))
                         if not unicodedata.category(ch).startswith("M"))
        self[code] = folded
        return folded


_FOLD = _FoldTable()


def fold(text: str) -> str:
    """Lowercase without accents: "Központ" → "kozpont", "Őrült" → "orult" (NFKD, drop marks).

    The script does the same: `toLowerCase().normalize("NFKD").replace(/\\p{M}/gu, "")`.
    Folding character by character after lowercasing the whole text is the same: canonical
    reordering only moves characters with a combining class, and every one of them is a mark.
    """
    return text.lower().translate(_FOLD)


def tokens(text: str) -> list[str]:
    """The folded words of `text`, in order (letters and digits; hyphens and punctuation split).

    Worked out per run of non-space characters, each run's once per process (an index tokenises every
    document, and a publication's texts use the same words again and again): the same words as folding
    the whole text, since lowercasing and folding go character by character (a final sigma looks no
    further than the spaces around its word) and fold no space into a letter or digit.
    """
    found: list[str] = []
    known = _RUN_WORDS.get
    for run in text.split():
        words = known(run)
        if words is None:
            if len(_RUN_WORDS) >= RUNS_KEPT:
                _RUN_WORDS.clear()
            words = _RUN_WORDS[run] = _WORD.findall(fold(run))
        found += words
    return found


#: The words of each run of non-space characters seen (see `tokens`), up to this many runs.
RUNS_KEPT = 200_000
_RUN_WORDS: dict[str, list[str]] = {}


def shard_of(token: str) -> str:
    """The one-character shard key of a token ("_" for tokens that start outside a–z, 0–9)."""
    first = token[:1]
    return first if first and first in SHARD_CHARS else "_"


def split_key(token: str) -> str:
    """The two-character key used once a letter's shard is split: "ko", "k_" for "k" or "kø…"."""
    second = token[1:2]
    return shard_of(token) + (second if second and second in SHARD_CHARS else "_")


def shards_for(word: str, keys: Iterable[str]) -> list[str]:
    """The shard files a query word needs: its letter's shard, or after a split its two-letter one
    (a one-letter word then needs every shard of the letter)."""
    keys = set(keys)
    first = shard_of(word)
    if first in keys:
        return [first]
    if len(word) < 2:
        return sorted(key for key in keys if len(key) == 2 and key[0] == first)
    return [split_key(word)] if split_key(word) in keys else []


@dataclass(frozen=True)
class SearchDocument:
    """One searchable page or story: what is shown for a hit and the text that finds it."""

    kind: str  # "entry", "reference", "story", "issue" or "tag"
    title: str
    url: str
    snippet: str
    text: str
    #: Headword, aliases and other names, one a line: their word endings are indexed too, so "kozpont" finds
    #: "adatközpont", and a query that is one of them ranks the document first.
    names: str = ""
    #: The language of title and snippet when it is not the index's (a fallback), else "".
    text_lang: str = ""
    #: Where an entry's or a reference page's hits come among the entries' and reference pages' of their rank
    #: (see `index_files`): keys of one shape compared as tuples (kind, then headword); () for the others, and for
    #: those shown in the order of their ids.
    hit_order: tuple[object, ...] = ()


@dataclass(frozen=True)
class DocumentSource:
    """A document as its record gives it, before its Markdown is read and made plain: what decides the
    document, cheap to hash, so an index update reads and makes plain only the documents that changed."""

    kind: str
    title: str
    url: str
    #: Plain words (headline; headword and aliases).
    words: tuple[str, ...]
    #: The record's content hash and version: with the rest, what decides its Markdown texts.
    identity: str
    #: The Markdown texts (definition; summary and body), read when the document is made: the first
    #: is also the snippet's.
    markdown: Callable[[], tuple[str, ...]] = field(compare=False, repr=False)
    names: str = ""
    text_lang: str = ""
    #: Plain text shown for a hit (a reference page's summary), when it is not the first Markdown text's.
    snippet: str = ""
    #: Makes that text when the document is made, for a snippet decided by what makes the rest: by the record
    #: (`identity`) and what the index is made with (the code, settings and catalog; a change of any of them
    #: makes the index anew). An issue's week as its language writes it: worked out for the few documents made,
    #: not for every issue on every update (Babel formats a week in a tenth of a millisecond).
    made_snippet: Callable[[], str] | None = field(default=None, compare=False, repr=False)
    #: As SearchDocument's, asked for when the order of the glossary's hits is made again (see `index_files`):
    #: no part of the document's tokens or row (meta.json lists it), so not of its digest.
    hit_order: Callable[[], tuple[object, ...]] = field(default=tuple, compare=False, repr=False)

    def digest(self) -> str:
        """The same digest, the same document (tokens and chunk row); computed once (an index update
        compares every document's, then stores them)."""
        found = self.__dict__.get("_digest")
        if found is None:
            fields = "\x1f".join((self.kind, self.title, self.url, *self.words, "\x1e", self.identity, "\x1e",
                                  self.names, self.text_lang, "\x1e", self.snippet))
            found = hashlib.blake2b(fields.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
            object.__setattr__(self, "_digest", found)  # frozen: not a field, so not in eq or repr
        return found

    def document(self) -> SearchDocument:
        plain = [plain_text(text) for text in self.markdown()]
        shown = self.snippet or (self.made_snippet() if self.made_snippet is not None else "")
        snippet = _snippet(shown or (plain[0] if plain else ""))
        return SearchDocument(self.kind, self.title, self.url, snippet, " ".join([*self.words, *plain]),
                              self.names, self.text_lang, self.hit_order())


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[:SNIPPET_CHARS].rsplit(" ", 1)[0] + "…"


def name_suffixes(names: str) -> set[str]:
    """Word endings of a headword or alias, so a compound is found by its last part."""
    return {token[start:] for token in tokens(names) for start in range(1, len(token) - MIN_SUFFIX + 1)}


def name_keys(doc: SearchDocument) -> set[str]:
    """The marked keys of a document's names (see the module's docstring): each word of its title and
    names, and each of its names whole."""
    words = {token + NAME_MARK for token in tokens(doc.title + "\n" + doc.names)}
    return words | {" ".join(found) + " " + NAME_MARK for name in doc.names.split("\n") if (found := tokens(name))}


def _doc_tokens(doc: SearchDocument) -> set[str]:
    return set(tokens(doc.text)) | name_suffixes(doc.names) | name_keys(doc)


def _row(doc: SearchDocument) -> list[str]:
    """A document's row in its chunk file."""
    return [doc.kind, doc.title, doc.url, doc.snippet, *([doc.text_lang] if doc.text_lang else [])]


@dataclass(frozen=True)
class LastIndex:
    """An index as the last build made it: its documents' digests, its shard and chunk files, and the ids of
    its entries and reference pages in the order of their hits (None if its meta.json does not say)."""

    digests: list[str]
    shards: list[bytes]
    chunks: dict[int, bytes]
    entries: list[int] | None = None

    @classmethod
    def of(cls, digests: list[str], files: Mapping[str, bytes], folder: str = "") -> LastIndex:
        """The index whose files (as `index_files` made them, under `folder`) are `files`."""
        shards = [data for path, data in sorted(files.items()) if path.startswith(folder + "shards/")]
        chunks = {int(path[len(folder + "docs/"):-len(".json")]): data for path, data in files.items()
                  if path.startswith(folder + "docs/")}
        meta = files.get(folder + "meta.json")
        entries = orjson.loads(meta).get("entries") if meta is not None else None
        return cls(digests, shards, chunks, entries if isinstance(entries, list) else None)


def index_files(docs: Iterable[SearchDocument | DocumentSource], last: LastIndex | None = None) -> dict[str, bytes]:
    """{path relative to the index folder: bytes}: meta.json, shards/<c>.json and docs/<n>.json.

    A shard maps each token to the sorted ids of the documents containing it;
    document `i` lives in chunk `i // CHUNK` as `[kind, title, url, snippet]`, plus the text's
    language when it is a fallback (the page shows it marked as not yet translated).

    With the `last` index (ids are positions), the index is updated: only documents whose digest
    changed, or that are new at the end, are made plain and tokenised; their ids (and those of
    documents no longer there) leave every token, and they join their new ones; their chunk rows
    are replaced. A new issue's stories, page and new tags come last, and so does an entry or reference page
    dated after the latest issue (see `search_documents.sources`), so publishing one, or adding one, updates
    the index too. The bytes are those of an index made anew.
    """
    docs = list(docs)
    made: dict[int, SearchDocument] = {}

    def doc(number: int) -> SearchDocument:
        found = made.get(number)
        if found is None:
            item = docs[number]
            found = made[number] = item.document() if isinstance(item, DocumentSource) else item
        return found

    changed: set[int] | None = None
    gone: set[int] = set()
    old = len(last.digests) if last is not None else 0
    if last is not None and all(isinstance(d, DocumentSource) for d in docs):
        changed = {number for number, (item, known) in enumerate(zip(docs, last.digests))
                   if item.digest() != known}  # type: ignore[union-attr]
        changed.update(range(old, len(docs)))  # new at the end
        gone = set(range(len(docs), old))  # the last ones, no longer there
        if len(changed) + len(gone) > len(docs) // 2:
            changed = None  # mostly new: made anew
    table: dict[str, list[int]] = {}
    if changed is None:
        for number in range(len(docs)):
            for token in _doc_tokens(doc(number)):
                table.setdefault(token, []).append(number)  # ids ascend: documents in order
    else:
        for data in last.shards:  # type: ignore[union-attr]
            table.update(orjson.loads(data))
        stale = changed | gone
        if stale:
            for token, ids in list(table.items()):
                if not stale.isdisjoint(ids):
                    kept = [number for number in ids if number not in stale]
                    if kept:
                        table[token] = kept
                    else:
                        del table[token]
            added: dict[str, list[int]] = {}
            for number in sorted(changed):
                for token in _doc_tokens(doc(number)):
                    added.setdefault(token, []).append(number)
            for token, ids in added.items():
                table[token] = sorted([*table.get(token, ()), *ids])
    postings: dict[str, dict[str, list[int]]] = {}
    for token, ids in table.items():
        postings.setdefault(shard_of(token), {})[token] = ids
    shards: dict[str, bytes] = {}
    for key, part in postings.items():
        data = _json(dict(sorted(part.items())))
        if len(data) <= SPLIT_BYTES or key == "_":
            shards[key] = data
            continue
        halves: dict[str, dict[str, list[int]]] = {}
        for token, ids in part.items():
            halves.setdefault(split_key(token), {})[token] = ids
        for half, tokens_ in halves.items():
            shards[half] = _json(dict(sorted(tokens_.items())))
    # Hits are shown entries and reference pages first, in their `hit_order`, then tags, then stories and issues
    # newest first: the ids of the entries and reference pages in that order, and the tags' ids.
    entries = _hit_ordered(docs, last, changed, gone)
    tags = [number for number, item in enumerate(docs) if item.kind == "tag"]
    files = {"meta.json": _json({"version": INDEX_FORMAT, "documents": len(docs), "chunk": CHUNK,
                                 "shards": sorted(shards), "entries": entries, "tags": tags})}
    files.update({f"shards/{key}.json": data for key, data in sorted(shards.items())})
    chunks = last.chunks if last is not None and changed is not None else {}
    fresh = changed or set()
    for start in range(0, len(docs), CHUNK):
        numbers = range(start, min(start + CHUNK, len(docs)))
        name = f"docs/{start // CHUNK}.json"
        known = chunks.get(start // CHUNK)
        if known is not None and fresh.isdisjoint(numbers) and min(start + CHUNK, old) == numbers.stop:
            files[name] = known  # the same rows, and as many
            continue
        rows = orjson.loads(known) if known is not None else []  # no last chunk: every row is made
        files[name] = _json([_row(doc(number)) if number in fresh or number - start >= len(rows)
                             else rows[number - start] for number in numbers])
    return files


def _hit_ordered(docs: list[SearchDocument | DocumentSource], last: LastIndex | None, changed: set[int] | None,
                 gone: set[int]) -> list[int]:
    """The ids of the entries and reference pages in the order of their hits (see `index_files`). An update in
    which none of them changed, came or went keeps the last index's: the same documents at the same ids, each
    with its title and address, so in the same order (its headwords' dictionary keys are not made again)."""
    glossary = [number for number, item in enumerate(docs) if item.kind in GLOSSARY_KINDS]
    if changed is not None and last is not None and last.entries is not None \
            and (changed | gone).isdisjoint(last.entries) and changed.isdisjoint(glossary):
        return last.entries
    return sorted(glossary, key=lambda number: (_hit_order_of(docs[number]), number))


def _hit_order_of(item: SearchDocument | DocumentSource) -> tuple[object, ...]:
    """A document's `hit_order`: a source's asked for (see DocumentSource.hit_order)."""
    return item.hit_order() if isinstance(item, DocumentSource) else item.hit_order


def _json(value: object) -> bytes:
    """Compact UTF-8 JSON, keys in the given order: the bytes of `json.dumps(value, ensure_ascii=False,
    separators=(",", ":"))`, made (and read back by an update) several times faster, which an index
    update does for every shard of the index (2 MB of them at scale 1.0)."""
    return orjson.dumps(value)


def same_words(title: str, query: str) -> bool:
    """Whether `title` has the words of `query`, accents and all (case aside): "kör" is not "kor"."""
    return _exact_words(title) == _exact_words(query)


def _exact_words(text: str) -> list[str]:
    return _WORD.findall(unicodedata.normalize("NFC", text.lower()))
