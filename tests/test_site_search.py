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
from sitebuild import BASE, DRAFT_ISSUE, ISSUE_14_STORY, build_sample, parse, run

from glossary.collation import sort_key
from newsroom import SAMPLE_DIR
from newsroom.render.search import (DocumentSource, LastIndex, SearchDocument, fold, index_files, shard_of, split_key,
                                    tokens)
from newsroom.render.search_query import search

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
    assert {hit["kind"] for hit in hits} == {"entry", "reference", "story", "tag", "issue"}
    assert all(hit["url"].startswith("/en/") for hit in hits)
    story = next(hit for hit in hits if hit["kind"] == "story")
    assert "#story-" in story["url"] and (site / story["url"].split("#")[0].lstrip("/") / "index.html").is_file()


KINDS = ("entry", "reference", "tag", "story")


def _rows(folder):
    """Every row of an index's chunks, in id order."""
    meta = json.loads((folder / "meta.json").read_bytes())
    return [row for chunk in range(-(-meta["documents"] // meta["chunk"]))
            for row in json.loads((folder / f"docs/{chunk}.json").read_bytes())]


def test_hits_show_entries_first_then_reference_pages_then_tags_then_the_newest_stories_first(site):
    # No title holds "software": every hit has the same rank, and they come in the order of their kinds.
    hits = search(site / "en/search/index", "software")
    kinds = [hit["kind"] for hit in hits]
    assert kinds == sorted(kinds, key=KINDS.index) and {"entry", "reference", "story"} <= set(kinds)  # in this order
    issues = [int(re.search(r"/issues/(\d+)/", hit["url"]).group(1)) for hit in hits if hit["kind"] == "story"]
    assert len(set(issues)) > 2 and issues == sorted(issues, reverse=True)
    # The index lists its entries and reference pages in the order hits show them (entries, then reference pages,
    # each kind in the dictionary order of its headwords or titles), and which documents are tags. By issue, oldest first, come its stories, its page, then the
    # tags its stories are the first to carry: a new issue's documents go in after every other, which stays where
    # it was. Before each issue come the entries and reference pages dated on or before the day it came out.
    folder = site / "en/search/index"
    meta = json.loads((folder / "meta.json").read_bytes())
    rows = _rows(folder)
    listed = [(rows[number][0], rows[number][1]) for number in meta["entries"]]
    assert sorted(meta["entries"]) == [number for number, row in enumerate(rows) if row[0] in ("entry", "reference")]
    assert listed == sorted(listed, key=lambda kind_title: (KINDS.index(kind_title[0]),
                                                              sort_key(kind_title[1], "en")))
    assert len(listed) == len(list(SAMPLE_DIR.glob("entries/*.yaml"))) + 1
    assert meta["tags"] == [number for number, row in enumerate(rows) if row[0] == "tag"]
    days = _sample_days()
    numbers = []
    for row in rows:
        if row[0] in ("entry", "reference"):
            # After the issues out before its day, before the next one.
            day = days[row[0], row[2].split("/")[-2]]
            assert all(days["issue", str(number)] < day for number in numbers), row
            later = [number for number in (10, 11, 12, 13) if number not in numbers]
            assert not later or days["issue", str(later[0])] >= day, row
            continue
        if row[0] == "tag":
            # The oldest issue its page lists a story of is the last one before it.
            page = (site / row[2].lstrip("/") / "index.html").read_text(encoding="utf-8")
            assert min(int(n) for n in re.findall(r'href="/en/issues/(\d+)/#story-', page)) == numbers[-1], row
            continue
        number = int(re.search(r"/issues/(\d+)/", row[2]).group(1))
        if row[0] == "issue":
            numbers.append(number)
        else:
            assert row[0] == "story" and number not in numbers and number >= max(numbers, default=0), row
    assert numbers == [10, 11, 12, 13]
    # The sample's entries were written between its issues: some go in among them.
    assert rows[0][0] in ("entry", "reference") and {row[0] for row in rows[meta["tags"][0]:]} == \
        {"entry", "story", "issue", "tag"}


def _sample_days() -> dict[tuple[str, str], str]:
    """{(kind, slug or issue number): ISO day} of the sample: each entry's written, the reference pages'
    updated, each issue's day out."""
    days = {}
    for folder, kind in (("entries", "entry"), ("reference", "reference"), ("issues", "issue")):
        for path in SAMPLE_DIR.glob(f"{folder}/*.yaml"):
            text = path.read_text(encoding="utf-8")
            slug = re.search(r"^(?:slug|number): (\S+)", text, re.M).group(1)
            days[kind, slug] = re.search(r"^(?:  written|updated|published_at): (\d{4}-\d\d-\d\d)", text, re.M).group(1)
    return days


def test_a_tag_is_found_by_its_name_in_the_page_s_language_and_by_its_slug(site):
    """The search found entries, reference pages and stories, not tags: "MI-rendelet" on the Hungarian page did
    not offer the tag's page. A tag's page is found by the tag's name in the page's language, first when the query
    is that name, and by its slug, a name no result shows ("ai-act", "chips" on the Hungarian page); its hit says
    how many stories the page lists."""
    hu, en = site / "hu/search/index", site / "en/search/index"
    first = search(hu, "MI-rendelet")[0]
    assert first == {"kind": "tag", "title": "MI-rendelet", "url": "/hu/archive/tag/ai-act/", "snippet": "3 hír",
                     "lang": ""}
    assert (site / "hu/archive/tag/ai-act/index.html").is_file()
    assert search(hu, "mi rendelet")[0] == first  # accents, case and the hyphen aside
    assert search(hu, "ai-act")[0] == first  # the slug
    assert search(en, "AI Act")[0] == {"kind": "tag", "title": "AI Act", "url": "/en/archive/tag/ai-act/",
                                       "snippet": "3 stories", "lang": ""}
    assert [hit["title"] for hit in search(hu, "chips") if hit["kind"] == "tag"] == ["chipek"]
    # Each language's own name: the Hungarian one finds nothing on the English page.
    assert [hit for hit in search(en, "MI-rendelet") if hit["kind"] == "tag"] == []
    # Every tag page of a language is in its index, once.
    for lang in ("hu", "en"):
        pages = {f"/{lang}/archive/tag/{page.parent.name}/"
                 for page in (site / lang / "archive/tag").glob("*/index.html")}
        folder = site / lang / "search/index"
        meta = json.loads((folder / "meta.json").read_bytes())
        rows = [row for chunk in range(-(-meta["documents"] // meta["chunk"]))
                for row in json.loads((folder / f"docs/{chunk}.json").read_bytes())]
        tags = [row[2] for row in rows if row[0] == "tag"]
        assert len(pages) > 60 and sorted(tags) == sorted(pages), lang


@pytest.fixture(scope="module")
def tagged_site(tmp_path_factory):
    """The sample with two more tags on a story: "Kvantumgépek", which the site file does not name, and "edge",
    which it names in English alone ("Edge AI")."""
    story = (SAMPLE_DIR / "stories" / "i13-aws-trainium3-capacity.yaml").read_text(encoding="utf-8")
    story = story.replace("tags: [chips, cloud, aws, europe]", "tags: [chips, cloud, aws, europe, Kvantumgépek, edge]")
    site_file = (SAMPLE_DIR / "site.yaml").read_text(encoding="utf-8") + "  - slug: edge\n    en: Edge AI\n"
    return build_sample(tmp_path_factory.mktemp("tagged"), {"stories/i13-aws-trainium3-capacity.yaml": story,
                                                           "site.yaml": site_file})


def test_a_tag_without_a_name_in_the_page_s_language_is_found_as_its_page_shows_it(tagged_site):
    """A tag the site file does not name is found, and shown, as its stories write it, and by its slug; one named
    in the other language alone by that name, marked as that language's (as its page shows it)."""
    site = tagged_site
    hu, en = site / "hu/search/index", site / "en/search/index"
    for folder, lang in ((hu, "hu"), (en, "en")):
        unnamed = {"kind": "tag", "title": "Kvantumgépek", "url": f"/{lang}/archive/tag/kvantumgepek/",
                   "snippet": "1 hír" if lang == "hu" else "1 story", "lang": ""}
        assert search(folder, "kvantumgépek")[0] == unnamed
        assert search(folder, "kvantumgep")[0] == unnamed
    assert search(hu, "Edge AI")[0] == {"kind": "tag", "title": "Edge AI", "url": "/hu/archive/tag/edge/",
                                        "snippet": "1 hír", "lang": "en"}
    assert search(hu, "edge")[0]["url"] == "/hu/archive/tag/edge/"
    assert search(en, "Edge AI")[0]["lang"] == ""
    # As the pages head them.
    for page, heading in (("hu/archive/tag/kvantumgepek", "Címke: Kvantumgépek"),
                          ("hu/archive/tag/edge", "Címke: Edge AI")):
        [h1] = parse(site / page / "index.html").iter("h1")
        assert " ".join("".join(h1.itertext()).split()) == heading


def test_a_tag_s_hit_names_and_counts_its_page_s_stories_as_the_page_lists_them(tmp_path):
    """A tag written two ways (one slug) on stories of two issues, twice on the newer one: its hit shows the
    spelling the page's first story gives and counts each story once, as the page heads and lists them, and
    comes after the older issue, the first whose stories carry it."""
    stories = SAMPLE_DIR / "stories"
    newer = (stories / "i13-aws-trainium3-capacity.yaml").read_text(encoding="utf-8")
    older = (stories / "i12-aws-q3-trainium-growth.yaml").read_text(encoding="utf-8")
    site = build_sample(tmp_path, {
        "stories/i13-aws-trainium3-capacity.yaml": newer.replace(
            "tags: [chips, cloud, aws, europe]", "tags: [chips, cloud, aws, europe, KVANTUMGÉPEK, Kvantumgépek]"),
        "stories/i12-aws-q3-trainium-growth.yaml": older.replace(
            "tags: [earnings, chips, cloud]", "tags: [earnings, chips, cloud, Kvantumgépek]")})
    for lang, snippet in (("hu", "2 hír"), ("en", "2 stories")):
        assert search(site / lang / "search/index", "kvantumgépek")[0] == {
            "kind": "tag", "title": "KVANTUMGÉPEK", "url": f"/{lang}/archive/tag/kvantumgepek/", "snippet": snippet,
            "lang": ""}
        page = parse(site / lang / "archive/tag/kvantumgepek/index.html")
        [h1] = page.iter("h1")
        assert "".join(h1.itertext()).endswith(": KVANTUMGÉPEK")
        listed = {link.get("href").partition("#")[2] for link in page.iter("a") if "#story-" in link.get("href", "")}
        assert listed == {"story-i13-aws-trainium3-capacity", "story-i12-aws-q3-trainium-growth"}
        rows = _rows(site / lang / "search/index")
        tag = next(number for number, row in enumerate(rows) if row[2] == f"/{lang}/archive/tag/kvantumgepek/")
        issue = max(number for number, row in enumerate(rows[:tag]) if row[0] == "issue")
        assert rows[issue][2] == f"/{lang}/issues/12/"


TWELVE = {"hu": {"kind": "issue", "title": "Rekordköltés adatközpontokra, ágensek a kódban", "url": "/hu/issues/12/",
                 "snippet": "12. szám · 2026. okt. 26. – nov. 1.", "lang": ""},
          "en": {"kind": "issue", "title": "Record data center spending, agents in the codebase",
                 "url": "/en/issues/12/", "snippet": "Issue 12 · Oct 26 – Nov 1, 2026", "lang": ""}}


def test_an_issue_is_found_by_its_number_its_title_and_its_lead_first_for_its_number(site):
    """A reader who remembered "it was in issue 12", or an edition's title, found nothing: the search knew the
    glossary, reference pages, tags and stories. An issue's page is found by its number (as the page's language
    writes it too), its title and its lead, first when the query is its number; its hit gives the number and the
    week as the issue's page does."""
    hu, en = site / "hu/search/index", site / "en/search/index"
    for query in ("12", "#12", "12. szám", "12. SZAM", "rekordkoltes", "ágensek a kódban", "negyedéves"):
        assert search(hu, query)[0] == TWELVE["hu"], query
    for query in ("12", "#12", "Issue 12", "issue 12", "codebase", "record spending"):
        assert search(en, query)[0] == TWELVE["en"], query
    # Its hit says what the issue's page says: the number and week over the title.
    for lang, hit in TWELVE.items():
        document = parse(site / lang / "issues/12/index.html")
        [line] = [p for p in document.iter("p") if p.get("class") == "issue-meta"]
        [h1] = document.iter("h1")
        assert (" ".join("".join(line.itertext()).split()), "".join(h1.itertext())) == \
            (" ".join(hit["snippet"].split()), hit["title"])
    # The beginning of a number finds the issues it begins, newest first; every issue is in each index once.
    assert [hit["url"] for hit in search(en, "1") if hit["kind"] == "issue"] == \
        ["/en/issues/13/", "/en/issues/12/", "/en/issues/11/", "/en/issues/10/"]
    for lang in ("hu", "en"):
        pages = sorted(f"/{lang}/issues/{page.parent.name}/" for page in (site / lang / "issues").glob("*/index.html"))
        assert sorted(row[2] for row in _rows(site / lang / "search/index") if row[0] == "issue") == pages


def test_an_issue_is_found_by_its_number_as_every_language_of_the_site_writes_it(site):
    """A reader of the bilingual newsletter typed "issue 12" on the Hungarian page and found no issue there, nor
    "12. szám" on the English one: an issue is found first by its number as each language writes it, and its
    hit still gives the number and week as the page's language writes them."""
    for lang in ("hu", "en"):
        for query in ("Issue 12", "issue 12", "12. szám", "12. SZAM", "12 szam"):
            assert search(site / lang / "search/index", query)[0] == TWELVE[lang], (lang, query)


def test_a_draft_issue_is_found_in_the_preview_and_never_in_a_public_build(tmp_path):
    site = build_sample(tmp_path, {"issues/0014.yaml": DRAFT_ISSUE, "stories/i14-story.yaml": ISSUE_14_STORY})
    preview = tmp_path / "preview"
    run(tmp_path, "build", "--drafts", "--out", str(preview), "--base-url", BASE)
    for lang, title in (("hu", "Piszkozat szám"), ("en", "Draft issue")):
        public, drafts = site / lang / "search/index", preview / lang / "search/index"
        assert [row for row in _rows(public) if "/issues/14/" in row[2]] == []
        assert [hit for hit in search(public, title) if "/issues/14/" in hit["url"]] == []
        assert search(drafts, "14")[0] == {"kind": "issue", "title": title, "url": f"/{lang}/issues/14/",
                                           "snippet": search(drafts, "14")[0]["snippet"], "lang": ""}
        assert search(drafts, "14")[0]["snippet"].startswith("14. szám · " if lang == "hu" else "Issue 14 · ")


def test_meta_json_names_the_format_of_shards_with_marked_keys(site):
    """meta.json said version 1, the first index's, after its shards took marked keys for names ("gepi=", a word
    of a name; "gepi tanulas =", a whole name), where stories start ("stories") and a fallback row's language:
    a reader of version 1 took a marked key for a word. It said version 2 then, 3 since the tags' pages follow
    the stories (from "tags" on), which a reader of version 2 took for the newest stories, and says 4 since each
    issue's page is among the stories, a kind of row a reader of version 3 had no word for; it says 5 since the
    tags are among the stories too, "tags" listing their ids, where a reader of version 4 took every document from
    the first tag on for a tag; it says 6 since the entries and reference pages are among them too, "entries"
    listing their ids in the order hits show them, where a reader of version 5 took every document after the first
    issue's for a story."""
    for lang in ("hu", "en"):
        folder = site / lang / "search/index"
        meta = json.loads((folder / "meta.json").read_bytes())
        marked = [key for shard in (folder / "shards").glob("*.json") for key in json.loads(shard.read_bytes())
                  if key.endswith("=")]
        assert marked and isinstance(meta["entries"], list) and isinstance(meta["tags"], list)
        assert "stories" not in meta and meta["version"] == 6, meta


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
    # The page says what the search covers, tags and issues too.
    [scope] = [p for p in document.iter("p") if p.get("class") == "search-scope"]
    tags = len(list((site / "hu/archive/tag").glob("*/index.html")))
    assert re.fullmatch(r"A keresés kiterjed: \d+ szócikk · \d+ referenciaoldal · \d+ hír · (\d+) címke · "
                        r"(\d+) lapszám\.", " ".join("".join(scope.itertext()).split())).groups() == (str(tags), "4")


def test_the_search_page_and_every_search_box_say_what_is_searched(site):
    """The search page's description and the masthead's box said the glossary, the reference pages and the
    stories are searched: tags and issues are found too."""
    said = {"hu": ("Keresés a fogalomtárban, a referenciaoldalakon, a címkék között, valamint a hírlevél minden "
                   "lapszámában és hírében.", "Fogalomtár, referenciaoldalak, címkék, lapszámok és hírek"),
            "en": ("Search the glossary, the reference pages, the tags and every issue and story of the newsletter.",
                   "Glossary, reference pages, tags, issues and stories")}
    for lang, (description, placeholder) in said.items():
        document = parse(site / lang / "search/index.html")
        assert [m.get("content") for m in document.iter("meta") if m.get("name") == "description"] == [description]
        for page in (f"{lang}/search/index.html", f"{lang}/index.html", f"{lang}/issues/12/index.html"):
            [box] = [i for i in parse(site / page).iter("input") if i.get("id") == "site-search"]
            assert box.get("placeholder") == placeholder, page


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


NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="needs node to run the browser script")


def _node(script: str, *args: str) -> object:
    """What `script` (run by node with `args`) prints, read as JSON."""
    output = subprocess.run([NODE, "-e", script, *args], capture_output=True, text=True, cwd=ROOT)
    assert output.returncode == 0, output.stderr
    return json.loads(output.stdout)


@needs_node
def test_the_browser_script_folds_and_shards_like_the_index_builder():
    samples = ["Központ ŐRÜLT Ütő", "Az MI-korszak hírei, 2026-ban!", "Crème brûlée – naïve café", "kø ß 日本語"]
    script = "const c = require('./templates/assets/search.js'); const s = JSON.parse(process.argv[1]);\n" \
        "console.log(JSON.stringify(s.map(t => c.tokens(t).map(w => [w, c.shardOf(w), c.splitKey(w)]))));"
    expected = [[[w, shard_of(w), split_key(w)] for w in tokens(text)] for text in samples]
    assert _node(script, json.dumps(samples)) == expected


@needs_node
def test_the_browser_script_counts_hits_as_the_page_s_language_writes_a_number(site):
    """A search of 13000 hits said "13000 találat" and "13000 results": the status is a count, its thousands
    grouped as the page's language groups them ("1300", "13 000" in Hungarian), as the built counts are."""
    attributes = {lang: next(dict(f.attrib) for f in parse(site / lang / "search/index.html").iter("form")
                             if f.get("data-search-index")) for lang in ("hu", "en")}
    script = "const c = require('./templates/assets/search.js');\n" \
        "const [forms, counts] = JSON.parse(process.argv[1]);\n" \
        "console.log(JSON.stringify(Object.keys(forms).map(lang => counts.map(n => " \
        "c.counted(forms[lang][n === 1 ? 'data-one' : 'data-many'], n, lang)))));"
    assert _node(script, json.dumps([attributes, [1, 8, 1300, 13000]])) == [
        ["1 találat", "8 találat", "1300 találat", "13\u00a0000 találat"],
        ["1 result", "8 results", "1,300 results", "13,000 results"]]


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


@given(st.lists(st.tuples(st.sampled_from(["entry", "story"]), _WORDS, _WORDS), min_size=20, max_size=80),
       st.lists(st.tuples(st.sampled_from(["retitle", "edit", "append", "drop last"]), st.integers(0, 10_000),
                          _WORDS), max_size=8))
def test_an_update_orders_the_glossary_s_hits_as_an_index_made_anew_and_reorders_them_only_when_they_changed(
        first, edits):
    # Entries' hits come in the order of their headwords (`hit_order`): an update in which an entry was renamed,
    # edited, added or dropped orders them again; one in which only stories changed keeps the last index's order,
    # without asking any entry for its place (at least 20 documents, at most 8 edits: an update, not an index
    # made anew, which a change of more than half the documents is).
    asked: list[int] = []

    def sources(items):
        return [DocumentSource(kind, title, f"/{kind}/{number}", (title,), f"{title}|{text}",
                               (lambda text=text: (text,)),
                               hit_order=(lambda title=title, number=number: asked.append(number) or (title,))
                               if kind == "entry" else tuple)
                for number, (kind, title, text) in enumerate(items)]

    items = list(first)
    before = sources(items)
    files = index_files(before)
    glossary_changed = False
    for kind, where, word in edits:
        at = where % len(items)
        if kind == "append":
            items.append(("entry" if where % 2 else "story", word, word))
            touched = items[-1][0] == "entry"
        elif kind == "drop last":
            touched = len(items) > 1 and items.pop()[0] == "entry"
        else:
            touched = items[at][0] == "entry"
            items[at] = ((items[at][0], word, items[at][2]) if kind == "retitle"
                         else (*items[at][:2], f"{items[at][2]} {word}"))
        glossary_changed |= touched
    after = sources(items)
    asked.clear()
    updated = index_files(after, LastIndex.of([doc.digest() for doc in before], files))
    assert asked == [] or glossary_changed
    assert updated == index_files(after)


def test_an_entry_is_found_by_its_english_term_and_its_names_in_the_other_language(site):
    # "in English: data center" on the Hungarian page, and the Hungarian headword and aliases on the English one.
    hu, en = site / "hu/search/index", site / "en/search/index"
    assert search(hu, "data center")[0]["title"] == "adatközpont"
    assert search(hu, "machine learning accelerator")[0]["title"] == "MI-gyorsító"  # an English alias
    assert search(en, "adatközpont")[0]["title"] == "Data center"
    assert search(en, "szerverpark")[0]["title"] == "Data center"
    # The seed's English page lists "Amazon MI-chip" among Trainium's names: a reader may type it, or part of it.
    assert search(en, "Amazon MI-chip")[0]["title"] == "Trainium"
    assert [hit["title"] for hit in search(en, "MI-chip")][:2] == ["AI chip", "Trainium"]  # "MI-chip" is AI chip's


def _ranked(query):
    docs = [SearchDocument("entry", "mélytanulás", "/e/deep", "", "mélytanulás a gépi tanulás egy ága",
                           "mélytanulás\ndeep learning"),
            SearchDocument("entry", "gépi tanulási modell", "/e/model", "", "gépi tanulási modell",
                           "gépi tanulási modell"),
            SearchDocument("entry", "kor", "/e/kor", "", "kor", "kor"),
            SearchDocument("entry", "kör", "/e/kör", "", "kör", "kör"),
            SearchDocument("entry", "gépi tanulás", "/e/ml", "", "gépi tanulás machine learning",
                           "gépi tanulás\nmachine learning"),
            SearchDocument("story", "Tanulás gépi módon", "/s/1", "", "Tanulás gépi módon")]
    return [hit["url"] for hit in search(index_files(docs), query)]


def test_in_a_rank_tags_come_after_the_reference_pages_and_before_the_newest_stories():
    # Tags are indexed among the stories (meta.json's "tags" says which) and shown before them.
    docs = [SearchDocument("entry", "Chipgyártás", "/e/1", "", "Chipgyártás szilícium"),
            SearchDocument("reference", "Chipek", "/r/1", "", "Chipek szilícium"),
            SearchDocument("story", "Régi", "/s/1", "", "szilícium"),
            SearchDocument("tag", "félvezetők", "/t/1", "", "félvezetők chips szilícium", "félvezetők\nchips"),
            SearchDocument("story", "Új", "/s/2", "", "szilícium"),
            SearchDocument("tag", "gyártás", "/t/2", "", "gyártás chip-manufacturing szilícium",
                           "gyártás\nchip-manufacturing")]
    files = index_files(docs)
    assert {key: json.loads(files["meta.json"])[key] for key in ("entries", "tags")} == \
        {"entries": [0, 1], "tags": [3, 5]}
    assert [hit["url"] for hit in search(files, "szilicium")] == ["/e/1", "/r/1", "/t/1", "/t/2", "/s/2", "/s/1"]
    assert [hit["url"] for hit in search(files, "chips")] == ["/t/1"]  # a hidden name finds it
    assert [hit["url"] for hit in search(files, "chip")] == ["/t/2", "/e/1", "/r/1", "/t/1"]  # a name's word first
    assert [hit["url"] for hit in search(files, "chip manufacturing")] == ["/t/2"]
    # Without stories, the tags follow the entries.
    files = index_files([docs[0], docs[3], docs[5]])
    assert {key: json.loads(files["meta.json"])[key] for key in ("entries", "tags")} == {"entries": [0], "tags": [1, 2]}
    assert [hit["url"] for hit in search(files, "szilicium")] == ["/e/1", "/t/1", "/t/2"]


def test_in_a_rank_entries_and_reference_pages_among_the_stories_come_first_in_their_hit_order():
    # An entry or reference page is indexed among the issues' documents, at its day (a new one goes in last), and
    # shown before them in the order meta.json's "entries" lists: entries, then reference pages, each in its
    # `hit_order` (the build gives the dictionary order of their headwords and titles; here, plain words).
    docs = [SearchDocument("story", "Régi", "/s/1", "", "szilícium"),
            SearchDocument("entry", "Wafer", "/e/wafer", "", "Wafer szilícium", hit_order=(0, "wafer")),
            SearchDocument("issue", "1. szám", "/i/1", "", "szilícium"),
            SearchDocument("reference", "Chipek", "/r/chips", "", "Chipek szilícium", hit_order=(1, "chips")),
            SearchDocument("story", "Új", "/s/2", "", "szilícium"),
            SearchDocument("entry", "Chipgyártás", "/e/chipmaking", "", "Chipgyártás szilícium",
                           hit_order=(0, "chipmaking"))]
    files = index_files(docs)
    assert json.loads(files["meta.json"])["entries"] == [5, 1, 3]
    assert [hit["url"] for hit in search(files, "szilicium")] == ["/e/chipmaking", "/e/wafer", "/r/chips", "/s/2",
                                                                  "/i/1", "/s/1"]


def _lettered_entry(slug: str, hu_headword: str, en_headword: str) -> str:
    return (f"kind: entry\nslug: {slug}\ncategory: methods\nlevel: basic\ntrend: emerging\nstatus: 2026-11\n"
            f"hu: {{headword: {hu_headword}, definition: Egy kvarcóra alkatrésze.}}\n"
            f"en: {{headword: {en_headword}, definition: A part of a quartzclock.}}\n")


def _lettered_reference(slug: str, hu_title: str, en_title: str) -> str:
    return (f"kind: reference\nslug: {slug}\n"
            "sources: [{publisher: Maker, title: Datasheet, url: 'https://example.com/ds'}]\n"
            f"hu:\n  title: {hu_title}\n  summary: Kvarcórák.\n"
            "  sections: [{title: Röviden, simple: {text: 'Egy kvarcóra része [1].'}}]\n"
            f"en:\n  title: {en_title}\n  summary: Quartzclocks.\n"
            "  sections: [{title: In short, simple: {text: 'A part of a quartzclock [1].'}}]\n")


#: Two entries and two reference pages whose slugs come in the other order than their Hungarian headwords and
#: titles ("c" before "cs" in Hungarian: "Cukor" before "Csip"), all found by one word of their texts alone.
LETTERED = {"entries/chirp.yaml": _lettered_entry("chirp", "Csip", "Chirp"),
            "entries/sugar.yaml": _lettered_entry("sugar", "Cukor", "Sugar"),
            "reference/chirps.yaml": _lettered_reference("chirps", "Csipek", "Chirps"),
            "reference/sugars.yaml": _lettered_reference("sugars", "Cukrok", "Sugars")}


@pytest.fixture(scope="module")
def lettered_site(tmp_path_factory):
    return build_sample(tmp_path_factory.mktemp("lettered"), LETTERED)


def _index_titles(folder: Path) -> list[str]:
    """The titles of the entries and reference pages in the order meta.json gives the script."""
    rows = _rows(folder)
    return [rows[number][1] for number in json.loads((folder / "meta.json").read_bytes())["entries"]]


def test_in_a_rank_entries_and_reference_pages_come_in_the_dictionary_order_of_their_headwords(lettered_site):
    """Among hits of one rank, entries and then reference pages came in the order of their slugs, which a reader
    does not see: "Csip" before "Cukor" on the Hungarian page. They come as the glossary's A–Z index lists
    headwords, in the page's language's dictionary order (Hungarian: c, then cs)."""
    hu, en = lettered_site / "hu/search/index", lettered_site / "en/search/index"
    assert [hit["title"] for hit in search(hu, "kvarcora")] == ["Cukor", "Csip", "Cukrok", "Csipek"]
    assert [hit["title"] for hit in search(en, "quartzclock")] == ["Chirp", "Sugar", "Chirps", "Sugars"]
    listed = _index_titles(hu)
    assert listed.index("Cukor") < listed.index("Csip") and listed.index("Cukrok") < listed.index("Csipek")
    assert listed.index("adatközpont") < listed.index("Cukor") < listed.index("MI-chip")
    index = parse(lettered_site / "hu/glossary/index.html")
    shown = [" ".join("".join(link.itertext()).split()) for link in index.iter("a")]
    assert shown.index("Cukor") < shown.index("Csip")


@needs_node
def test_the_search_page_shows_entries_of_a_rank_in_the_dictionary_order_of_their_headwords(lettered_site):
    [hungarian] = _page(lettered_site, "hu", ["open", "?q=kvarcora"])
    assert [hit["title"] for hit in hungarian["results"]] == ["Cukor", "Csip", "Cukrok", "Csipek"]
    [english] = _page(lettered_site, "en", ["open", "?q=quartzclock"])
    assert [hit["title"] for hit in english["results"]] == ["Chirp", "Sugar", "Chirps", "Sugars"]


def test_a_query_that_is_a_name_ranks_it_first_then_titles_holding_its_words():
    # The name itself; then a title with the words (a story's headline too); then one whose words begin with
    # them; then a text that mentions them. Before, hits came in the documents' order only.
    assert _ranked("gepi tanulas") == ["/e/ml", "/s/1", "/e/model", "/e/deep"]
    assert _ranked("Tanulás GÉPI") == ["/e/ml", "/s/1", "/e/model", "/e/deep"]  # words in any order
    assert _ranked("tanul") == ["/e/model", "/e/ml", "/s/1", "/e/deep"]
    assert _ranked("machine learning") == ["/e/ml"]  # another name of it
    # Typed with its accents, the accented one first; without, the one without.
    assert _ranked("kör") == ["/e/kör", "/e/kor"] and _ranked("KÖR") == ["/e/kör", "/e/kor"]
    assert _ranked("kor") == ["/e/kor", "/e/kör"]


def test_the_headword_ranks_first_on_the_built_site(site):
    # "adatközpont" came third, after two entries whose definitions mention data centres.
    assert search(site / "hu/search/index", "adatkozpont")[0]["title"] == "adatközpont"
    assert search(site / "hu/search/index", "Rainier")[0]["title"] == "Rainier-projekt"
    assert [(hit["kind"], hit["title"]) for hit in search(site / "en/search/index", "trainium")][:4] == \
        [("entry", "Trainium"), ("tag", "Trainium"), ("entry", "Trainium2"), ("entry", "Trainium3")]


#: Queries a reader types: accents or none, any case and order, prefixes, names in the other language, and
#: what holds no word or only punctuation.
QUERIES = ["gepi tanulas", "GÉPI", "tanul", "machine learning", "data center", "adatkozpont", "trainium", "gpu",
           "chip", "a", "Project Rainier", "kozpont", "tpu google", "ő", "ö", "u", "ű", "(", "", "  ", "[", "\\",
           "*", ".+", "<img src=x onerror=alert(1)>", "trainium " * 25, "MI-rendelet", "ai act", "AI Act", "chips",
           "open", "adatközpontok", "export controls", "12", "#12", "12. szám", "Issue 12", "1", "13", "rekordköltés",
           "codebase", "custom chips", "saját chipek"]


#: The script's functions run on a built index, as its page runs them (first page, then the rest): each query's links.
_RANK = """
const fs = require("fs");
const c = require("./templates/assets/search.js");
const [folder, queries] = [process.argv[1], JSON.parse(process.argv[2])];
const read = (rel) => fs.existsSync(folder + rel) ? JSON.parse(fs.readFileSync(folder + rel)) : null;
const meta = read("meta.json");
const row = (hit) => read("docs/" + Math.floor(hit.id / meta.chunk) + ".json")[hit.id % meta.chunk];
console.log(JSON.stringify(queries.map((query) => {
  const words = c.tokens(query);
  const tables = words.map((w) => c.shardsFor(w, meta.shards).map((k) => read("shards/" + k + ".json")));
  const hits = c.rank(words, tables, meta.entries, meta.tags), first = hits.slice(0, c.PAGE);
  return c.byAccents(first, first.map((hit) => row(hit)[1]), query).concat(hits.slice(c.PAGE)).map((h) => row(h)[2]);
})));
"""


@needs_node
def test_the_browser_script_finds_and_ranks_as_the_index_builder(site):
    for lang in ("hu", "en"):
        folder = site / lang / "search/index"
        expected = [[hit["url"] for hit in search(folder, query)] for query in QUERIES]
        assert _node(_RANK, f"{folder}/", json.dumps(QUERIES)) == expected


@needs_node
def test_the_browser_script_finds_an_issue_by_its_number_and_title_first(site):
    for lang, queries in (("hu", ["12", "#12", "12. szám", "rekordköltés", "issue 12"]),
                          ("en", ["12", "#12", "Issue 12", "codebase", "12. szám"])):
        found = _node(_RANK, f"{site / lang / 'search/index'}/", json.dumps(queries))
        assert [urls[0] for urls in found] == [f"/{lang}/issues/12/"] * len(queries)


def _page(site, lang, *steps):
    """What a reader sees on the search page after each step (see tests/search_page.js)."""
    document = parse(site / lang / "search/index.html")
    form = next(f for f in document.iter("form") if f.get("data-search-index"))
    [script] = [s.get("src") for s in document.iter("script") if s.get("src")]
    [title] = document.iter("title")
    output = subprocess.run([NODE, str(ROOT / "tests/search_page.js"), str(site / script.lstrip("/")), str(site),
                             json.dumps(dict(form.attrib)), json.dumps(steps), document.get("lang"), title.text],
                            capture_output=True, text=True)
    assert output.returncode == 0, output.stderr
    return json.loads(output.stdout)


def _titles(site, lang, query):
    return [hit["title"] for hit in search(site / lang / "search/index", query)]


@needs_node
def test_the_address_s_query_is_searched_and_back_returns_to_the_search_before(site):
    opened, data_center, trainium, back, back_again = _page(
        site, "hu", ["open", "?q=adatkozpont"], ["submit", "data center"], ["submit", "trainium"], ["back"], ["back"])
    found = _titles(site, "hu", "adatkozpont")
    assert opened["query"] == "adatkozpont" and opened["status"] == f"{len(found)} találat"
    assert [hit["title"] for hit in opened["results"]] == found
    # The entry "adatközpont" and the tag "adatközpontok", found by its slug (data-centers).
    assert data_center["address"] == "?q=data%20center" and data_center["status"] == "2 találat"
    assert trainium["address"] == "?q=trainium"
    # Back shows the search before, its words in the box (each search was a step of the history).
    assert (back["query"], back["status"], back["results"]) == ("data center", "2 találat", data_center["results"])
    assert (back_again["query"], back_again["results"]) == ("adatkozpont", opened["results"])
    # The masthead's form sends "+" for a space; English says "1 result", "19 results".
    one, many = _page(site, "en", ["open", "?q=data+center+datacenter"], ["submit", "data center"])
    assert one["query"] == "data center datacenter" and one["status"] == "1 result"
    assert many["status"] == f"{len(_titles(site, 'en', 'data center'))} results"


@needs_node
def test_a_tag_s_hit_is_shown_as_a_tag_with_its_count_of_stories(site):
    [hungarian] = _page(site, "hu", ["open", "?q=MI-rendelet"])
    assert hungarian["results"][0] == {"href": "/hu/archive/tag/ai-act/", "title": "MI-rendelet", "kind": "Címke",
                                       "snippet": "3 hír", "lang": "", "marked": "", "snippet_lang": ""}
    [english] = _page(site, "en", ["open", "?q=ai-act"])
    assert english["results"][0] == {"href": "/en/archive/tag/ai-act/", "title": "AI Act", "kind": "Tag",
                                     "snippet": "3 stories", "lang": "", "marked": "",
                                     "snippet_lang": ""}


@needs_node
def test_a_tag_named_in_another_language_alone_is_shown_as_its_page_shows_it(tagged_site):
    """A tag the site file names in English alone showed "not yet translated" on the Hungarian search page, its
    count of stories marked English: its page heads it "Címke: Edge AI", the name marked English and nothing
    more, and so does its hit now; the count is Hungarian."""
    [hungarian] = _page(tagged_site, "hu", ["open", "?q=Edge+AI"])
    assert hungarian["results"][0] == {"href": "/hu/archive/tag/edge/", "title": "Edge AI", "kind": "Címke",
                                       "snippet": "1 hír", "lang": "en", "marked": "", "snippet_lang": ""}
    [h1] = parse(tagged_site / "hu/archive/tag/edge/index.html").iter("h1")
    assert [(span.get("lang"), span.text) for span in h1.iter("span")] == [("en", "Edge AI")]
    assert [small for small in h1.iter("small")] == []
    [english] = _page(tagged_site, "en", ["open", "?q=Edge+AI"])  # its own language's name
    assert english["results"][0] == {"href": "/en/archive/tag/edge/", "title": "Edge AI", "kind": "Tag",
                                     "snippet": "1 story", "lang": "", "marked": "", "snippet_lang": ""}


@needs_node
def test_an_issue_s_hit_is_shown_as_an_issue_with_its_number_and_week(site):
    for lang, query, kind in (("hu", "?q=12.+sz%C3%A1m", "Lapszám"), ("en", "?q=Issue+12", "Issue")):
        [seen] = _page(site, lang, ["open", query])
        hit = TWELVE[lang]
        assert seen["results"][0] == {"href": hit["url"], "title": hit["title"], "kind": kind,
                                      "snippet": hit["snippet"], "lang": "", "marked": "", "snippet_lang": ""}


@needs_node
def test_the_masthead_s_box_holds_the_query_and_the_title_names_it(site):
    opened, submitted, back, cleared = _page(
        site, "hu", ["open", "?q=g%C3%A9pi+tanul%C3%A1s"], ["submit", "  $& GPU "], ["back"], ["submit", " "])
    assert (opened["query"], opened["masthead"]) == ("gépi tanulás", "gépi tanulás")
    assert opened["title"] == "Keresés: „gépi tanulás” · Az MI-korszak hírei"
    # What the reader typed, as typed ("$&" is no pattern of the script's); Back brings the search before back.
    assert submitted["masthead"] == "  $& GPU " and submitted["title"] == "Keresés: „$& GPU” · Az MI-korszak hírei"
    assert (back["masthead"], back["title"]) == ("gépi tanulás", opened["title"])
    assert (cleared["masthead"], cleared["title"]) == (" ", "Keresés · Az MI-korszak hírei")  # the page's own
    [english] = _page(site, "en", ["open", "?q=GPU"])
    assert (english["masthead"], english["title"]) == ("GPU", "Search for “GPU” · News of the AI era")


@needs_node
def test_a_search_overtaken_by_the_next_shows_only_the_next_one_s_hits(site):
    # The first search's shard comes late, after the second search has shown its hits: they stay alone.
    *_, last = _page(site, "en", ["open", ""], ["slow", "shards/g.json", 40], ["submit", "gpu"], ["submit", "trainium"])
    assert [hit["title"] for hit in last["results"]] == _titles(site, "en", "trainium")
    assert last["status"] == f"{len(last['results'])} results"


@needs_node
def test_more_results_than_a_page_are_offered_and_shown_in_their_order(site):
    found = _titles(site, "en", "a")
    assert len(found) > 50
    first, rest, moved = _page(site, "en", ["open", "?q=a"], ["more"], ["fragment"])
    assert first["status"] == f"{len(found)} results"
    assert [hit["title"] for hit in first["results"]] == found[:50] and first["more"]
    assert [hit["title"] for hit in rest["results"]] == found and not rest["more"]
    assert first["focus"] is None and rest["focus"] == found[50]  # the keyboard goes on from the first new hit
    assert moved["results"] == rest["results"]  # the skip link (#main) searches nothing again


@needs_node
def test_a_query_of_no_words_says_nothing_was_found_and_markup_stays_text(site):
    none = "Nincs találat. Az ékezetek nem számítanak; próbálj rövidebb szót."
    steps = [["submit", query] for query in ("(", "[", "\\", "*", ".+", "  ", "<img src=x onerror=alert(1)>")]
    seen = _page(site, "hu", ["open", "?q=%3C%2F%3E%26"], *steps)
    assert seen[0]["query"] == "</>&" and seen[0]["status"] == none  # the box holds it as typed
    assert [step["status"] for step in seen[1:]] == [none] * 5 + ["", none]
    assert not any(step["results"] for step in seen)  # (the page's stand-in refuses innerHTML)


def test_without_javascript_the_search_page_links_the_glossary_and_the_editions(site):
    document = parse(site / "hu/search/index.html")
    [noscript] = document.iter("noscript")
    assert [(a.get("href"), a.text) for a in noscript.iter("a")] == \
        [("/hu/glossary/", "Fogalomtár"), ("/hu/issues/", "Lapszámok"), ("/hu/archive/", "Archívum")]
