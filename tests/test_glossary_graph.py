"""The concept graph: inverse relations, and the checks on cycles, missing targets, self-relations and notes."""

from __future__ import annotations

from typing import Any

import pytest

from glossary.graph import graph_problems, relations_of
from newsroom.build.model import Content, Record

LANGUAGES = ("hu", "en")


def _content(relations: dict[str, dict[str, Any]]) -> Content:
    entries = {slug: Record("entry", slug, {"slug": slug, "relations": rel, "status": "2026-11",
                                            "hu": {"headword": slug}, "en": {"headword": slug}}, "")
               for slug, rel in relations.items()}
    return Content(site={}, entries=entries, pages={}, issues={}, stories={})


def _slugs(graph, slug: str, group: str) -> list[str]:
    return [link.slug for link in graph[slug][group]]


def test_a_relation_stated_once_is_shown_from_both_sides():
    content = _content({
        "trainium": {"narrower": ["trainium2"], "related": ["gpu"],
                     "similar": [{"entry": "inferentia", "note": {"hu": "Más.", "en": "Different."}}]},
        "trainium2": {},
        "ai-chip": {"narrower": ["trainium"]},
        "gpu": {}, "inferentia": {},
    })
    graph = relations_of(content)
    assert _slugs(graph, "trainium2", "broader") == ["trainium"]
    assert _slugs(graph, "trainium", "broader") == ["ai-chip"]
    assert _slugs(graph, "ai-chip", "narrower") == ["trainium"]
    assert _slugs(graph, "gpu", "related") == ["trainium"]
    assert _slugs(graph, "inferentia", "similar") == ["trainium"]
    assert graph["inferentia"]["similar"][0].note == {"hu": "Más.", "en": "Different."}
    assert graph_problems(content, LANGUAGES) == []


def test_a_relation_stated_from_both_sides_is_shown_once():
    content = _content({"a": {"narrower": ["b"]}, "b": {"broader": ["a"]}})
    graph = relations_of(content)
    assert _slugs(graph, "a", "narrower") == ["b"] and _slugs(graph, "b", "broader") == ["a"]


def test_a_confusable_stated_from_both_sides_shows_each_entry_s_own_note():
    """Each side says how the other differs from it: the first stated (in slug order) took both pages, and
    the other entry's own note was shown nowhere."""
    content = _content({"gpu": {"similar": [{"entry": "trainium", "note": {"hu": "GPU-oldal.", "en": "GPU side."}}]},
                        "trainium": {"related": ["x"], "similar": [
                            {"entry": "gpu", "note": {"hu": "Trainium-oldal.", "en": "Trainium side."}}]},
                        "x": {"similar": [{"entry": "trainium", "note": {"hu": "X.", "en": "X."}}]}})
    graph = relations_of(content)
    assert [(link.slug, link.note["en"]) for link in graph["trainium"]["similar"]] == [
        ("gpu", "Trainium side."), ("x", "X.")]  # where first stated; its own note where it states one
    assert [(link.slug, link.note["en"]) for link in graph["gpu"]["similar"]] == [("trainium", "GPU side.")]


def test_a_missing_target_is_text_and_a_warning():
    content = _content({"a": {"related": ["nowhere"]}})
    link = relations_of(content)["a"]["related"][0]
    assert (link.slug, link.exists) == ("nowhere", False)
    [problem] = graph_problems(content, LANGUAGES)
    assert str(problem) == ("entry:a: relations.related[0]: warning: no entry 'nowhere': "
                            "shown as plain text until it is written")


def test_self_relation_and_similar_without_both_notes_are_errors():
    content = _content({"a": {"broader": ["a"], "similar": [{"entry": "b", "note": {"hu": "Más."}}]}, "b": {}})
    assert [str(p) for p in graph_problems(content, LANGUAGES)] == [
        "entry:a: relations.broader[0]: an entry cannot be related to itself",
        "entry:a: relations.similar[0].note.en: a confusable needs a note saying how it differs",
    ]


@pytest.mark.parametrize("relations, expected", [
    ({"a": {"broader": ["b"]}, "b": {"broader": ["a"]}}, "entry:a: relations.broader[0]: … a → b → a"),
    ({"a": {"broader": ["b"]}, "b": {"broader": ["c"]}, "c": {"broader": ["a"]}},
     "entry:a: relations.broader[0]: … a → b → c → a"),
    # a narrower stated on the other side closes the loop too
    ({"a": {"broader": ["b"]}, "b": {}, "c": {"narrower": ["b"], "broader": ["a"]}},
     "entry:a: relations.broader[0]: … a → b → c → a"),
    ({"a": {"narrower": ["b"]}, "b": {"narrower": ["a"]}}, "entry:b: relations.narrower[0]: … b → a → b"),
])
def test_broader_narrower_cycles_are_reported_once_at_a_relation_making_them(relations, expected):
    problems = [str(p) for p in graph_problems(_content(relations), LANGUAGES)]
    assert problems == [expected.replace("…", "broader/narrower cycle:")]


@pytest.mark.parametrize("relations, expected", [
    ({"a": {"broader": ["b"], "related": ["b"]}, "b": {}},
     "entry:a: relations.related[0]: warning: 'b' is on the edge here and broader by relations.broader[0] of entry "
     "'a'"),
    # stated from the other side: b says a is narrower than it, a says b is on its edge
    ({"a": {"related": ["b"]}, "b": {"narrower": ["a"]}},
     "entry:b: relations.narrower[0]: warning: 'a' is narrower here and on the edge by relations.related[0] of "
     "entry 'a'"),
])
def test_two_entries_related_in_two_ways_is_a_warning(relations, expected):
    """The page listed the other entry under two headings (broader and on the edge), which SKOS keeps apart."""
    problems = [str(p) for p in graph_problems(_content(relations), LANGUAGES)]
    assert problems == [expected + ": an entry is broader, narrower or on the edge of another, not two of them; "
                                   "keep one"]
    # one way stated from both sides is one relation; a confusable may be on the edge too (as in the seed)
    assert graph_problems(_content({"a": {"broader": ["b"]}, "b": {"narrower": ["a"]}}), LANGUAGES) == []
    assert graph_problems(_content({"a": {"related": ["b"], "similar": [
        {"entry": "b", "note": {"hu": "Más.", "en": "Other."}}]}, "b": {}}), LANGUAGES) == []


SIMILAR = {"note": {"hu": "Más.", "en": "Other."}}


@pytest.mark.parametrize("relations, expected", [
    ({"a": {"broader": ["b"], "similar": [{"entry": "b", **SIMILAR}]}, "b": {}},
     "entry:a: relations.similar[0]: warning: 'b' is similar here and broader by relations.broader[0] of entry 'a'"),
    # stated from the other side: b says a is narrower than it, a says b is similar
    ({"a": {"similar": [{"entry": "b", **SIMILAR}]}, "b": {"narrower": ["a"]}},
     "entry:b: relations.narrower[0]: warning: 'a' is narrower here and similar by relations.similar[0] of entry "
     "'a'"),
])
def test_a_confusable_broader_or_narrower_too_is_a_warning(relations, expected):
    """The page listed the other entry under two headings (broader and similar), and the SKOS export keeps
    it in the hierarchy only."""
    problems = [str(p) for p in graph_problems(_content(relations), LANGUAGES)]
    assert problems == [expected + ": an entry broader or narrower than another is not also similar to it (its "
                                   "page lists it under both headings); keep one"]
    # a confusable on the edge too stays silent (the seed's GPU is both to Trainium)
    assert graph_problems(_content({"a": {"related": ["b"], "similar": [{"entry": "b", **SIMILAR}]}, "b": {}}),
                          LANGUAGES) == []


def test_a_diamond_is_not_a_cycle():
    content = _content({"a": {"broader": ["b", "c"]}, "b": {"broader": ["d"]}, "c": {"broader": ["d"]}, "d": {}})
    assert graph_problems(content, LANGUAGES) == []


def test_a_long_chain_does_not_hit_the_recursion_limit():
    length = 2000
    chain = {f"e{i:04d}": {"broader": [f"e{i + 1:04d}"]} for i in range(length)}
    chain[f"e{length:04d}"] = {}
    assert graph_problems(_content(chain), LANGUAGES) == []
    chain[f"e{length:04d}"] = {"broader": ["e0000"]}
    [problem] = graph_problems(_content(chain), LANGUAGES)
    assert problem.message.startswith("broader/narrower cycle: e0000 → e0001 → ")
    assert problem.message.endswith(f"e{length:04d} → e0000")


def test_check_reports_a_missing_target_as_a_warning(sample_cli, write_files):
    sample_cli("import", str(write_files({"entries/x.yaml": """\
kind: entry
slug: x-entry
category: infrastructure
level: basic
trend: mainstream
status: 2026-11
relations: {broader: [nowhere]}
hu: {headword: X, definition: Magyar.}
en: {headword: X, definition: English.}
"""})))
    result = sample_cli("check", expect=0)
    assert ("entry:x-entry: relations.broader[0]: warning: no entry 'nowhere': shown as plain text until it is "
            "written") in result.stderr.splitlines()


@pytest.mark.sqlite_only("where the cycle is named is the same on either database")
def test_an_import_closing_a_cycle_names_the_file_and_line_that_close_it(sample_cli, tmp_path):
    """It named the other member, stored (`entry:ai-chip: relations.broader`), not the file being imported."""
    path = tmp_path / "google-tpu.yaml"
    path.write_text(sample_cli("edit", "entry:google-tpu").stdout.replace(
        "relations:\n", "relations:\n  narrower:\n  - ai-chip\n", 1), encoding="utf-8")
    refused = sample_cli("import", str(path), expect=1).stderr.splitlines()
    line = path.read_text(encoding="utf-8").splitlines().index("  - ai-chip") + 1
    assert refused[0] == (f"{path}:{line}: relations.narrower[0]: broader/narrower cycle: google-tpu → ai-chip → "
                          "google-tpu")
    assert refused[-1] == "1 error; nothing was changed"


# -- Relations to plain names: a concept the glossary has no entry for, shown as text ------------------------------

def test_a_name_is_shown_by_its_owner_only_and_has_no_inverse():
    content = _content({"a": {"broader": [{"hu": "Gyorsító", "en": "Accelerator"}], "related": ["GPU (grafikus processzor)"]},
                        "b": {}})
    graph = relations_of(content)
    [broader] = graph["a"]["broader"]
    assert (broader.slug, broader.exists, broader.name) == (None, False, {"hu": "Gyorsító", "en": "Accelerator"})
    [related] = graph["a"]["related"]
    assert (related.slug, related.name) == (None, "GPU (grafikus processzor)")
    assert all(links == [] for links in graph["b"].values())


def test_a_name_spelt_like_an_entry_s_slug_is_never_that_entry():
    content = _content({"a": {"broader": [{"hu": "b", "en": "b"}]}, "b": {"broader": ["a"]}})
    graph = relations_of(content)
    assert [link.name for link in graph["a"]["broader"]] == [{"hu": "b", "en": "b"}]
    assert _slugs(graph, "a", "narrower") == ["b"] and graph["b"]["narrower"] == []
    # no cycle a → b → a: the name is not entry b
    assert [str(p) for p in graph_problems(content, LANGUAGES)] == [
        "entry:a: relations.broader[0]: warning: 'b' is a name, not an entry: shown as plain text until an entry "
        "is written for it"]


def test_a_name_is_a_warning_and_a_name_missing_a_language_says_which_is_shown():
    content = _content({"a": {"related": ["GPU (grafikus processzor)", {"hu": "Csak magyarul"}]}})
    assert [str(p) for p in graph_problems(content, LANGUAGES)] == [
        "entry:a: relations.related[0]: warning: 'GPU (grafikus processzor)' is a name, not an entry: shown as "
        "plain text until an entry is written for it",
        "entry:a: relations.related[1]: warning: 'Csak magyarul' is a name, not an entry: shown as plain text "
        "until an entry is written for it",
        "entry:a: relations.related[1].en: warning: no en name: the en page shows the hu one",
    ]


NAMED = """\
kind: entry
slug: x-entry
category: infrastructure
level: basic
trend: mainstream
status: 2026-11
relations:
  broader: [gpu, {hu: Gyorsító, en: Accelerator}]
  related:
  - GPU (grafikus processzor)
  - quantum-supremacy
  - {hu: Csak magyarul}
  - {en: trainium, hu: trainium}
hu: {headword: X, definition: Magyar.}
en: {headword: X, definition: English.}
"""


@pytest.mark.sqlite_only("how names are read, checked and shown does not depend on the database")
def test_check_reports_each_name_with_its_field(sample_cli, write_files):
    sample_cli("import", str(write_files({"entries/x.yaml": NAMED})))
    result = sample_cli("check", expect=0)
    assert [line for line in result.stderr.splitlines() if line.startswith("entry:x-entry:")] == [
        "entry:x-entry: relations.broader[1]: warning: 'Gyorsító' is a name, not an entry: shown as plain text "
        "until an entry is written for it",
        "entry:x-entry: relations.related[0]: warning: 'GPU (grafikus processzor)' is a name, not an entry: shown "
        "as plain text until an entry is written for it",
        "entry:x-entry: relations.related[1]: warning: no entry 'quantum-supremacy': shown as plain text until it "
        "is written",
        "entry:x-entry: relations.related[2]: warning: 'Csak magyarul' is a name, not an entry: shown as plain "
        "text until an entry is written for it",
        "entry:x-entry: relations.related[2].en: warning: no en name: the en page shows the hu one",
        "entry:x-entry: relations.related[3]: warning: 'trainium' is a name, not an entry: shown as plain text "
        "until an entry is written for it",
    ]


def _relation_groups(page) -> dict[str, list[tuple[str, str | None]]]:
    """{group: [(words shown, href or None)]} of an entry page's "Related concepts"."""
    import html5lib

    document = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(page.read_bytes())
    related = next(s for s in document.iter("section") if s.get("id") == "related")
    return {p.get("class").split()[1]: [(" ".join(" ".join(child.itertext()).split()), child.get("href"))
                                        for child in p if child.tag in ("a", "span")]
            for p in related.iter("p")}


@pytest.mark.sqlite_only("how names are shown does not depend on the database")
def test_a_name_is_shown_as_text_in_each_page_s_language_and_never_linked(sample_cli, write_files, tmp_path):
    sample_cli("import", str(write_files({"entries/x.yaml": NAMED})))
    site = tmp_path / "site"
    sample_cli("build", "--out", str(site))
    en = _relation_groups(site / "en" / "glossary" / "x-entry" / "index.html")
    assert en["broader"] == [("GPU", "/en/glossary/gpu/"), ("Accelerator", None)]
    assert en["related"] == [("GPU (grafikus processzor)", None), ("quantum supremacy", None),
                             ("Csak magyarul not yet translated", None), ("trainium", None)]
    hu = _relation_groups(site / "hu" / "glossary" / "x-entry" / "index.html")
    assert hu["broader"] == [("GPU (grafikus processzor)", "/hu/glossary/gpu/"), ("Gyorsító", None)]
    assert hu["related"] == [("GPU (grafikus processzor)", None), ("quantum supremacy", None),
                             ("Csak magyarul", None), ("trainium", None)]
    page = (site / "en" / "glossary" / "x-entry" / "index.html").read_text(encoding="utf-8")
    assert '<span class="no-entry"><span lang="hu">Csak magyarul</span>' in page
    # a name has no other side: the entry whose slug it spells does not list this one
    assert "x-entry" not in (site / "en" / "glossary" / "trainium" / "index.html").read_text(encoding="utf-8")
    assert "/en/glossary/x-entry/" in (site / "en" / "glossary" / "gpu" / "index.html").read_text(encoding="utf-8")


def test_names_go_through_export_and_import_unchanged(sample_cli, write_files, tmp_path):
    sample_cli("import", str(write_files({"entries/x.yaml": NAMED})))
    first, second = tmp_path / "first", tmp_path / "second"
    sample_cli("export", str(first))
    assert "0 created, 0 updated" in sample_cli("import", str(first)).stdout
    sample_cli("export", str(second))
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    assert all((first / p).read_bytes() == (second / p).read_bytes() for p in files)
    shown = sample_cli("edit", "entry:x-entry").stdout
    assert ("  related:\n  - GPU (grafikus processzor)\n  - quantum-supremacy\n  - hu: Csak magyarul\n"
            "  - hu: trainium\n    en: trainium\n") in shown  # each name's languages in the site's order


@pytest.mark.sqlite_only("what --set accepts does not depend on the database")
def test_edit_sets_a_name_and_names_what_a_relation_cannot_be(sample_cli):
    sample_cli("edit", "entry:gpu", "--set", 'relations.related=["Tensor Processing Unit", {hu: Gyorsító, en: Accelerator}]')
    assert ("on the edge: Tensor Processing Unit (a name, no entry), hu: Gyorsító / en: Accelerator (a name, no "
            "entry), trainium") in sample_cli("glossary", "show", "gpu").stdout.splitlines()
    refused = sample_cli("edit", "entry:gpu", "--set", "relations.related[0]=[a, b]", expect=1).stderr.splitlines()
    assert refused[0] == ("entry:gpu: relations.related[0]: expected an entry's slug, a name, or one name per "
                          "language as {hu: …, en: …}, got ['a', 'b']")
    refused = sample_cli("edit", "entry:gpu", "--set", "relations.related[0]={hu: Gyorsító, de: Beschleuniger}",
                         expect=1).stderr.splitlines()
    assert refused[0] == "entry:gpu: relations.related[0].de: unknown language 'de'; expected hu, en"


@pytest.mark.sqlite_only("what an import accepts does not depend on the database")
def test_a_confusable_is_an_entry_never_a_name(sample_cli, write_files):
    folder = write_files({"entries/x.yaml": NAMED.replace(
        "hu: {headword", "  similar:\n  - entry: GPU (grafikus processzor)\n    note: {hu: Más., en: Other.}\n"
                         "hu: {headword", 1)})
    refused = sample_cli("import", str(folder), expect=1).stderr.splitlines()
    assert refused[0] == (f"{folder / 'entries' / 'x.yaml'}:15: relations.similar[0].entry: expected an entry's slug "
                          "(a confusable is another entry: name a concept without one under related), got "
                          "'GPU (grafikus processzor)'")


@pytest.mark.sqlite_only("what a renaming rewrites does not depend on the database")
def test_a_renaming_leaves_names_alone(sample_cli, write_files):
    sample_cli("import", str(write_files({"entries/x.yaml": NAMED.replace(
        "{en: trainium, hu: trainium}", "{hu: gpu, en: gpu}")})))
    sample_cli("rename", "entry:gpu", "graphics-processor")
    shown = sample_cli("edit", "entry:x-entry").stdout
    assert "  broader:\n  - graphics-processor\n  - hu: Gyorsító\n    en: Accelerator\n" in shown
    assert "  - hu: gpu\n    en: gpu\n" in shown


@pytest.mark.sqlite_only("what a deletion reports does not depend on the database")
def test_deleting_an_entry_reports_the_relations_to_it_not_the_names(sample_cli, write_files):
    other = NAMED.split("relations:")[0].replace("slug: x-entry", "slug: y-entry") + \
        "hu: {headword: Y, definition: Magyar.}\nen: {headword: Y, definition: English.}\n"
    named = NAMED.replace("- quantum-supremacy", "- y-entry\n  - {hu: y-entry, en: Y}")
    sample_cli("import", str(write_files({"entries/x.yaml": named, "entries/y.yaml": other})))
    deleted = sample_cli("delete", "entry:y-entry")
    assert deleted.stderr.splitlines() == [
        "entry:x-entry: relations.related[1]: warning: no entry 'y-entry': shown as plain text until it is written",
        "1 warning the deletion left on other records"]


#: Below x-entry (so below GPU), on the edge of GPU and confusable with it.
BELOW = """\
kind: entry
slug: y-entry
category: infrastructure
level: basic
trend: mainstream
status: 2026-11
relations:
  broader: [x-entry]
  related: [gpu]
  similar:
  - entry: gpu
    note: {hu: Nem minden GPU., en: Not every GPU.}
hu: {headword: Y, definition: Magyar.}
en: {headword: Y, definition: English.}
"""


@pytest.mark.sqlite_only("the SKOS export does not depend on the database")
def test_the_skos_export_leaves_names_out(sample_cli, write_files):
    """A name has no concept; and the export stays valid SKOS: a concept above another is not also related to it
    (S27), be it on the edge of it (check warns) or a confusable, whose note stays."""
    from rdflib import SKOS, Graph, Literal, URIRef
    from skos_integrity import skos_problems

    sample_cli("import", str(write_files({"entries/x.yaml": NAMED, "entries/y.yaml": BELOW})))
    target = sample_cli.cwd / "glossary.ttl"
    sample_cli("export", "--skos", str(target))
    graph = Graph().parse(target, format="turtle")
    base = "http://localhost:8000/glossary/"
    concept = URIRef(base + "x-entry")
    assert set(graph.objects(concept, SKOS.broader)) == {URIRef(base + "gpu")}
    assert set(graph.objects(concept, SKOS.related)) == set()
    assert not any("Gyorsító" in str(term) or "grafikus processzor)" == str(term) for term in graph.all_nodes())
    below, gpu = URIRef(base + "y-entry"), URIRef(base + "gpu")
    assert (below, SKOS.related, gpu) not in graph and (gpu, SKOS.related, below) not in graph
    assert (below, URIRef(base + "#similar"), gpu) not in graph
    assert set(graph.objects(below, SKOS.scopeNote)) == {
        Literal("Similar, but not the same — GPU: Not every GPU.", lang="en"),
        Literal("Hasonló, de nem ugyanaz — GPU (grafikus processzor): Nem minden GPU.", lang="hu")}
    assert skos_problems(graph) == []
