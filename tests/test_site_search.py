"""The static search index: accent-folded queries find glossary entries and stories in each language."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sitebuild import build_sample, parse

from newsroom.render.search import (DocumentSource, LastIndex, SearchDocument, fold, index_files, search, shard_of,
                                    split_key, tokens)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build_sample(tmp_path_factory.mktemp("search"))


def test_folding_drops_accents_and_case():
    assert fold("Központ ŐRÜLT Ütő") == "kozpont orult uto"
    assert tokens("Az MI-korszak hírei, 2026-ban!") == ["az", "mi", "korszak", "hirei", "2026", "ban"]
    assert shard_of(fold("ütő")) == "u" and shard_of("日本") == "_"


_TRICKY = "aAzZéÉőŐ09 \u00a0\u2003\u3000\u1680\n\t\x1cΣσςﬁ½²_-.,\u0301\u0308¨İ"


@given(st.text(alphabet=st.sampled_from(_TRICKY), max_size=20) | st.text(max_size=20))
def test_tokens_are_the_words_of_the_whole_folded_text(text):
    # Tokens are worked out word by word (and remembered): the same as folding the whole text at once, final
    # sigmas, combining marks, ligatures, fractions and every kind of space included.
    assert tokens(text) == re.findall(r"[^\W_]+", fold(text))
    assert tokens(text) == tokens(text)


def test_an_unaccented_query_finds_the_accented_word():
    docs = [SearchDocument("entry", "Adatközpont", "/hu/glossary/data-center/", "", "adatközpont központ"),
            SearchDocument("story", "Más", "/hu/issues/1/#story-x", "", "semmi köze")]
    files = index_files(docs)
    assert [hit["title"] for hit in search(files, "kozpont")] == ["Adatközpont"]
    assert [hit["title"] for hit in search(files, "KÖZP")] == ["Adatközpont"]  # a word's beginning is enough
    assert search(files, "kozpont semmi") == []  # every word must match


def test_the_built_index_finds_entries_by_headword_alias_and_definition_and_stories(site):
    hu = site / "hu/search/index"
    titles = [hit["title"] for hit in search(hu, "adatkozpont")]
    assert "adatközpont" in titles  # headword, typed without accents
    assert any(hit["kind"] == "story" for hit in search(hu, "adatkozpont"))
    assert "Trainium" in [hit["title"] for hit in search(hu, "amazon trainium chip")]  # alias
    en = site / "en/search/index"
    hits = search(en, "trainium")
    assert {hit["kind"] for hit in hits} == {"entry", "reference", "story"}
    assert all(hit["url"].startswith("/en/") for hit in hits)
    story = next(hit for hit in hits if hit["kind"] == "story")
    assert "#story-" in story["url"] and (site / story["url"].split("#")[0].lstrip("/") / "index.html").is_file()


def test_hits_show_entries_first_then_reference_pages_then_the_newest_stories_first(site):
    hits = search(site / "en/search/index", "trainium")
    kinds = [hit["kind"] for hit in hits]
    assert kinds == sorted(kinds) and "reference" in kinds  # "entry" before "reference" before "story"
    issues = [int(re.search(r"/issues/(\d+)/", hit["url"]).group(1)) for hit in hits if hit["kind"] == "story"]
    assert len(set(issues)) > 2 and issues == sorted(issues, reverse=True)
    # The index says where its stories start (the script shows them from the last one back).
    folder = site / "en/search/index"
    meta = json.loads((folder / "meta.json").read_bytes())
    rows = [row for chunk in range(-(-meta["documents"] // meta["chunk"]))
            for row in json.loads((folder / f"docs/{chunk}.json").read_bytes())]
    entries = sum(1 for row in rows if row[0] == "entry")
    assert [row[0] for row in rows] == ["entry"] * entries + ["reference"] * (meta["stories"] - entries) \
        + ["story"] * (len(rows) - meta["stories"])
    assert 0 < meta["stories"] < meta["documents"]


def test_the_first_query_downloads_little(site):
    for lang in ("hu", "en"):
        folder = site / lang / "search/index"
        meta = json.loads((folder / "meta.json").read_bytes())
        assert meta["documents"] > 40
        shards = list((folder / "shards").glob("*.json"))
        assert len(shards) > 10 and max(p.stat().st_size for p in shards) < 16_000
        assert max(p.stat().st_size for p in (folder / "docs").glob("*.json")) < 24_000


def test_the_search_page_points_its_script_at_the_index(site):
    document = parse(site / "hu/search/index.html")
    form = next(f for f in document.iter("form") if f.get("data-search-index"))
    assert form.get("data-search-index") == "/hu/search/index/"
    assert form.get("data-one") == "%(num)s találat" and form.get("data-none")
    scripts = [s.get("src") for s in document.iter("script") if s.get("src")]
    assert len(scripts) == 1 and (site / scripts[0].lstrip("/")).is_file()
    # The box says what it searches: reference pages too, since they are in the index.
    [box] = [i for i in document.iter("input") if i.get("id") == "site-search"]
    assert box.get("placeholder") == "Fogalomtár, referenciaoldalak és hírek"


def test_a_headword_compound_is_found_by_its_last_part(site):
    assert "adatközpont" in [hit["title"] for hit in search(site / "hu/search/index", "kozpont")]


def test_a_large_letter_is_split_into_two_letter_shards_and_still_found(monkeypatch):
    from newsroom.render import search as search_module

    monkeypatch.setattr(search_module, "SPLIT_BYTES", 200)
    words = [f"kozpont{i}" for i in range(40)] + ["kar", "k"]
    docs = [SearchDocument("story", word, f"/s/{word}", "", word) for word in words]
    files = index_files(docs)
    keys = json.loads(files["meta.json"])["shards"]
    assert "k" not in keys and {"ko", "ka", "k_"} <= set(keys)
    assert len(search(files, "központ1")) == 11  # központ1, központ10…19
    assert [hit["title"] for hit in search(files, "kar")] == ["kar"]
    assert len(search(files, "k")) == len(words)  # a one-letter word reads every "k" shard


@given(st.lists(st.text(st.characters(exclude_categories=["Cs"])), min_size=1, max_size=5))
def test_index_files_are_the_standard_library_s_compact_json_of_any_text(texts):
    # Quotes, backslashes, control characters, non-BMP letters: every file is the bytes of
    # json.dumps(…, ensure_ascii=False, separators=(",", ":")), which the browser's JSON.parse reads.
    docs = [SearchDocument("story", text, f"/s/{number}", text, text, text) for number, text in enumerate(texts)]
    for data in index_files(docs).values():
        value = json.loads(data)
        assert data == json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the browser script's functions")
def test_the_browser_script_folds_and_shards_like_the_index_builder():
    source = (ROOT / "templates/assets/search.js").read_text(encoding="utf-8")
    functions = "\n".join(re.findall(r"^  function (?:fold|tokens|shardOf|splitKey)\(.*$", source, re.MULTILINE))
    samples = ["Központ ŐRÜLT Ütő", "Az MI-korszak hírei, 2026-ban!", "Crème brûlée – naïve café", "kø ß 日本語"]
    script = functions + "\nconst s = JSON.parse(process.argv[1]);\n" \
        "console.log(JSON.stringify(s.map(t => tokens(t).map(w => [w, shardOf(w), splitKey(w)]))));"
    output = subprocess.run(["node", "-e", script, json.dumps(samples)], capture_output=True, text=True, check=True)
    expected = [[[w, shard_of(w), split_key(w)] for w in tokens(text)] for text in samples]
    assert json.loads(output.stdout) == expected


def _sources(items):
    """Story documents from (id, text) pairs: the text decides the digest (identity) and the tokens."""
    return [DocumentSource("story", f"t{ident}", f"/s/{ident}", (f"w{ident}",), text, (lambda text=text: (text,)))
            for ident, text in items]


_WORDS = st.sampled_from(["alma", "körte", "szilva", "barack", "meggy", "dió", "mogyoró", "eper"])


@given(st.lists(st.tuples(st.integers(0, 300), st.lists(_WORDS, min_size=1, max_size=4).map(" ".join)),
                min_size=1, max_size=150),
       st.lists(st.tuples(st.sampled_from(["edit", "append", "drop last", "insert"]), st.integers(0, 10_000), _WORDS),
                max_size=12))
def test_an_index_updated_from_the_last_one_has_the_bytes_of_one_made_anew(first, edits):
    # Ids are positions: edited documents, documents new at the end (a new issue's stories) and
    # documents gone from the end are updated in place; anything else is made anew. Every chunk
    # (64 documents) and shard must come out as a fresh index has them.
    items = list(first)
    before = _sources(items)
    files = index_files(before)
    for kind, where, word in edits:
        if kind == "edit":
            ident, text = items[where % len(items)]
            items[where % len(items)] = (ident, f"{text} {word}")
        elif kind == "append":
            items.append((1000 + where, word))
        elif kind == "drop last" and len(items) > 1:
            items.pop()
        elif kind == "insert":
            items.insert(where % len(items), (2000 + where, word))
    after = _sources(items)
    assert index_files(after, LastIndex.of([doc.digest() for doc in before], files)) == index_files(after)


def test_an_entry_is_found_by_its_english_term_and_its_names_in_the_other_language(site):
    # "in English: data center" on the Hungarian page, and the Hungarian headword and aliases on the English one.
    hu, en = site / "hu/search/index", site / "en/search/index"
    assert search(hu, "data center")[0]["title"] == "adatközpont"
    assert search(hu, "machine learning accelerator")[0]["title"] == "MI-gyorsító"  # an English alias
    assert search(en, "adatközpont")[0]["title"] == "Data center"
    assert search(en, "szerverpark")[0]["title"] == "Data center"
