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
