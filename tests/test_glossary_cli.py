"""Editor commands: glossary list/show/stale/new, staleness limits, and the SKOS export."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from conftest import Cli
from rdflib import DCTERMS, OWL, RDF, RDFS, SKOS, XSD, Graph, Literal, URIRef
from skos_integrity import skos_problems

from glossary.staleness import stale_entries
from newsroom.build.model import Content, Record
from newsroom.checks import check_content
from newsroom.settings import Settings

OLD = """\
kind: entry
slug: {slug}
category: methods
level: basic
trend: fading
status: {status}
hu: {{headword: {slug}, definition: Régi.}}
en: {{headword: {slug}, definition: Old.}}
"""


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Cli:
    """The sample publication in SQLite, for commands that only read (one database for the module)."""
    folder = tmp_path_factory.mktemp("glossary-cli")
    cli = Cli(f"sqlite:///{folder / 'sample.db'}", folder)
    cli("init", "--sample")
    return cli


def _content(statuses: dict[str, str]) -> Content:
    entries = {slug: Record("entry", slug, {"slug": slug, "status": status}, "") for slug, status in statuses.items()}
    return Content(site={}, entries=entries, pages={}, issues={}, stories={})


def test_staleness_counts_calendar_months_against_an_injected_date():
    content = _content({"fresh": "2026-05", "edge": "2026-04", "old": "2025-12", "older": "2025-01"})
    today = dt.date(2026, 10, 31)
    assert [(s.slug, s.age_months) for s in stale_entries(content, today, 6)] == [("older", 21), ("old", 10)]
    assert [s.slug for s in stale_entries(content, today, 5)] == ["older", "old", "edge"]
    assert stale_entries(content, dt.date(2025, 2, 1), 6) == []


def test_check_takes_the_limit_from_settings():
    content = _content({"a-entry": "2026-01"})
    today = dt.date(2026, 11, 1)

    def stale(limit: int) -> list[str]:
        return [str(p) for p in check_content(content, Settings(stale_after_months=limit), today)
                if p.field == "status"]

    assert stale(12) == []
    assert stale(6) == ["entry:a-entry: status: warning: 'Where things stand' is 10 months old (limit 6); "
                        "re-review it"]
    assert stale(9) == [stale(6)[0].replace("limit 6", "limit 9")]


def test_the_limit_is_read_from_newsroom_toml(sample_cli, write_files):
    sample_cli("import", str(write_files({"entries/old.yaml": OLD.format(slug="old-entry", status="2000-01")})))
    (sample_cli.cwd / "newsroom.toml").write_text("stale_after_months = 3\n", encoding="utf-8")
    result = sample_cli("check", expect=0)
    assert re.search(r"entry:old-entry: status: warning: 'Where things stand' is \d+ months old \(limit 3\)",
                     result.stderr)


def test_glossary_stale_lists_oldest_first(sample_cli, write_files):
    sample_cli("import", str(write_files({
        "entries/a.yaml": OLD.format(slug="newer-old", status="2000-01"),
        "entries/b.yaml": OLD.format(slug="oldest", status="1999-05"),
    })))
    lines = sample_cli("glossary", "stale").stdout.splitlines()
    assert lines[0].startswith("1999-05  oldest  oldest  (")
    assert lines[1].startswith("2000-01  newer-old  newer-old  (")
    listed = [line.split()[0] for line in sample_cli("glossary", "list", "--stale").stdout.splitlines()]
    assert {"oldest", "newer-old"} <= set(listed)
    # A draft is listed too (its status is due as well), said to be one, as `glossary list` says it.
    sample_cli("edit", "entry:oldest", "--set", "draft=true")
    lines = sample_cli("glossary", "stale").stdout.splitlines()
    assert lines[0].endswith("months)  draft") and not lines[1].endswith("draft")


def test_glossary_list_filters_and_sorts_by_language(sample):
    def slugs(*args: str) -> list[str]:
        return [line.split()[0] for line in sample("glossary", "list", *args).stdout.splitlines()]

    assert slugs("--level", "advanced") == ["aws-inferentia", "trainium", "trainium2", "trainium3"]
    assert slugs("--category", "business") == ["cloud-service", "project-rainier"]  # felhőszolgáltatás < Rainier
    assert slugs("--lang", "en", "--category", "business") == ["cloud-service", "project-rainier"]
    everything = slugs()
    assert len(everything) == 13 and everything[:2] == ["data-center", "aws-inferentia"]  # adatközpont < AWS
    assert slugs("--lang", "en")[:2] == ["ai-accelerator", "ai-chip"]
    assert "--lang" in sample("glossary", "list", "--lang", "de", expect=2).stderr
    unknown = sample("glossary", "list", "--category", "robots", expect=2).stderr  # not an empty list
    assert ("no category 'robots'; known: infrastructure, models, methods, business, policy (the site file's "
            "`categories:` in site.yaml, changed by `newsroom import site.yaml`)") in " ".join(unknown.split())


def test_glossary_show_gives_relations_from_both_sides(sample):
    out = sample("glossary", "show", "trainium2").stdout.splitlines()
    assert out[0] == "trainium2: hu: Trainium2 / en: Trainium2"
    assert "broader: trainium" in out
    assert any(line.startswith("in the news: ") for line in out)
    assert "no glossary entry 'nope'" in sample("glossary", "show", "nope", expect=1).stderr


def test_show_gives_the_status_month_s_age_and_one_to_come_as_such(sample_cli, monkeypatch):
    monkeypatch.setenv("NEWSROOM_NOW", "2026-12-06T10:00:00+01:00")
    assert "status: 2026-10 (2 months old)" in sample_cli("glossary", "show", "gpu").stdout
    sample_cli("edit", "entry:gpu", "--set", "status=2027-01")
    assert "status: 2027-01 (1 month in the future)" in sample_cli("glossary", "show", "gpu").stdout


@pytest.mark.usefixtures("public_address")  # check names the content's problems alone
def test_new_writes_a_template_that_must_be_filled_before_it_imports(sample_cli):
    sample_cli("glossary", "new", "new-term")
    path = sample_cli.cwd / "entries" / "new-term.yaml"
    template = path.read_text(encoding="utf-8")
    for field in ("formerly:", "category:", "level:", "trend:", "english_term:", "status:", "broader:", "narrower:", "related:",
                  "similar:", "sources:", "provenance:", "headword:", "definition:", "plain_terms:", "analogy:",
                  "how_it_works:", "example:", "affected:", "misconception:", "myth:", "reality:", "limits:",
                  "history:", "current_state:", "aliases:", "match_forms:"):
        assert field in template, field
    assert template.count("  headword:") == 2  # both languages
    assert "exists already" in sample_cli("glossary", "new", "new-term", expect=1).stderr
    assert sample_cli("glossary", "new", "trainium", expect=1).stderr.strip() == (
        "Error: there is an entry 'trainium' already (version 1): change it with `newsroom edit entry:trainium`, "
        "or `newsroom export` its file; or choose another slug")
    assert not (sample_cli.cwd / "entries" / "trainium.yaml").exists()

    result = sample_cli("import", "entries/new-term.yaml", expect=1)
    assert result.stderr.splitlines() == [
        "entries/new-term.yaml:7: category: required; expected a slug: lowercase letters, digits and hyphens",
        "entries/new-term.yaml:8: level: required; expected one of basic, intermediate, advanced",
        "entries/new-term.yaml:9: trend: required; expected one of emerging, spreading, mainstream, fading",
        "entries/new-term.yaml:21: sources[0].title: required; expected text",
        "entries/new-term.yaml:22: sources[0].url: required; expected an http(s) or mailto URL",
        "5 errors; nothing was changed",
    ]

    filled = template
    for pattern, value in ((r"^category:", "category: methods"), (r"^level:", "level: basic"),
                           (r"^trend:", "trend: emerging"), (r"^    title:", "    title: A source"),
                           (r"^    url:", "    url: https://example.org/"),
                           (r"^  headword:", "  headword: Új fogalom"), (r"^  definition:", "  definition: Egy mondat.")):
        filled = re.sub(pattern + r".*$", value, filled, flags=re.MULTILINE)
    path.write_text(filled, encoding="utf-8")
    assert "1 created" in sample_cli("import", "entries/new-term.yaml").stdout
    assert sample_cli("check").stderr == ""
    # The starter is a draft until its `draft: true` line goes: listed and shown as one.
    assert "draft: not published" in sample_cli("glossary", "show", "new-term").stdout
    listed = {line.split()[0]: line for line in sample_cli("glossary", "list").stdout.splitlines()}
    assert listed["new-term"].endswith("  draft") and not listed["gpu"].endswith("draft")


def test_new_refuses_a_bad_slug(sample):
    assert "SLUG" in sample("glossary", "new", "Not A Slug", expect=2).stderr


def test_export_skos_parses_and_has_one_concept_per_entry(sample):
    entries = len(sample("glossary", "list").stdout.splitlines())
    target = sample.cwd / "glossary.ttl"
    assert f"{entries} concepts written" in sample("export", "--skos", str(target)).stdout
    graph = Graph().parse(target, format="turtle")
    concepts = set(graph.subjects(RDF.type, SKOS.Concept))
    assert len(concepts) == entries == 13
    base = "http://localhost:8000/glossary/"
    trainium, trainium2 = URIRef(base + "trainium"), URIRef(base + "trainium2")
    assert set(graph.objects(trainium, SKOS.prefLabel)) == {Literal("Trainium", lang="hu"),
                                                            Literal("Trainium", lang="en")}
    assert Literal("AWS Trainium", lang="en") in set(graph.objects(trainium, SKOS.altLabel))
    assert Literal("Tranium", lang="en") in set(graph.objects(trainium, SKOS.hiddenLabel))
    assert {lit.language for lit in graph.objects(trainium, SKOS.definition)} == {"hu", "en"}
    assert (trainium2, SKOS.broader, trainium) in graph and (trainium, SKOS.narrower, trainium2) in graph
    assert (trainium, SKOS.related, URIRef(base + "google-tpu")) in graph
    assert (URIRef(base + "google-tpu"), SKOS.related, trainium) in graph
    # SKOS S13/S14: a concept's preferred, alternative and hidden labels are disjoint ("AI accelerator" is
    # both the English headword and the English term of its entry: said once, as the preferred label).
    assert skos_problems(graph) == []
    accelerator = URIRef(base + "ai-accelerator")
    assert Literal("AI accelerator", lang="en") in set(graph.objects(accelerator, SKOS.prefLabel))


@pytest.fixture(scope="module")
def sample_skos(sample: Cli) -> Graph:
    """The sample glossary exported as SKOS and read back."""
    target = sample.cwd / "sample-glossary.ttl"
    sample("export", "--skos", str(target))
    return Graph().parse(target, format="turtle")


SKOS_BASE = "http://localhost:8000/glossary/"
TRAINIUM, GPU = URIRef(SKOS_BASE + "trainium"), URIRef(SKOS_BASE + "gpu")


def test_export_skos_tells_a_confusable_from_a_concept_on_the_edge(sample_skos):
    """"Similar, but not the same" was plain `skos:related`, its note lost: a reader of the export could not
    tell GPU (a confusable of Trainium, and on its edge) from Google TPU (only on its edge)."""
    graph, similar = sample_skos, URIRef(SKOS_BASE + "#similar")
    assert set(graph.objects(similar, RDFS.subPropertyOf)) == {SKOS.related}
    # Stated once in a content file, shown from both sides: symmetric, as skos:related is.
    assert (similar, RDF.type, OWL.SymmetricProperty) in graph
    assert all((other, similar, concept) in graph for concept, other in graph.subject_objects(similar))
    assert skos_problems(graph) == []
    assert set(graph.objects(similar, RDFS.label)) == {Literal("Similar, but not the same", lang="en"),
                                                       Literal("Hasonló, de nem ugyanaz", lang="hu")}
    tpu, inferentia = URIRef(SKOS_BASE + "google-tpu"), URIRef(SKOS_BASE + "aws-inferentia")
    assert set(graph.objects(TRAINIUM, similar)) == {GPU, inferentia}
    assert (GPU, similar, TRAINIUM) in graph and (TRAINIUM, similar, tpu) not in graph
    assert {GPU, inferentia, tpu} <= set(graph.objects(TRAINIUM, SKOS.related))  # for tools that infer nothing
    notes = {note for note in graph.objects(TRAINIUM, SKOS.scopeNote) if "GPU" in note}
    assert notes == {
        Literal("Similar, but not the same — GPU: A GPU is a general-purpose parallel processor that Nvidia, AMD "
                "and others sell to anyone, and almost every AI framework runs on it out of the box. Trainium is "
                "built for AI computations only, works only in Amazon's data centers and is programmed through "
                "Amazon's own Neuron software.", lang="en"),
        Literal("Hasonló, de nem ugyanaz — GPU (grafikus processzor): A GPU általános célú párhuzamos processzor, "
                "amelyet az Nvidia, az AMD és mások bárkinek eladnak, és szinte minden MI-keretrendszer azonnal "
                "fut rajta. A Trainium csak MI-számításokra készült, kizárólag az Amazon adatközpontjaiban "
                "működik, és az Amazon saját Neuron szoftverével lehet programozni.", lang="hu"),
    }
    # The other side shows it as its page does: GPU's note on Trainium is the one Trainium's entry states.
    assert {str(note).split(":")[0] for note in graph.objects(GPU, SKOS.scopeNote) if "Trainium" in note} == {
        "Similar, but not the same — Trainium", "Hasonló, de nem ugyanaz — Trainium"}


def test_export_skos_says_how_each_entry_was_written_reviewed_and_sourced(sample_skos):
    """Provenance, the status month and the sources were not in the export: a machine-edited entry read
    there claimed what the page disclaims."""
    graph = sample_skos
    assert set(graph.objects(TRAINIUM, DCTERMS.created)) == {Literal("2026-11-03", datatype=XSD.date)}
    assert set(graph.objects(TRAINIUM, DCTERMS.dateAccepted)) == {Literal("2026-11-05", datatype=XSD.date)}
    # "Status: 2026 November", a month: not its first day, which came before the entry was written.
    assert set(graph.objects(TRAINIUM, DCTERMS.modified)) == {Literal("2026-11", datatype=XSD.gYearMonth)}
    assert set(graph.objects(TRAINIUM, SKOS.changeNote)) == {
        Literal("This entry was machine-edited and has undergone machine expert review; the “In the news” "
                "section updates automatically from the newsletter's stories.", lang="en"),
        Literal("Ezt a szócikket gép szerkesztette, és gépi szakértői ellenőrzésen esett át; az „A hírekben” "
                "rész automatikusan frissül a hírlevél cikkei alapján.", lang="hu"),
    }
    assert set(graph.objects(TRAINIUM, DCTERMS.source)) == {URIRef(url) for url in (
        "https://aws.amazon.com/machine-learning/trainium/",
        "https://www.zdnet.com/article/aws-custom-chip-family-expands-launches-trainium-for-machine-learning-models/",
        "https://aws.amazon.com/about-aws/whats-new/2022/10/ec2-trn1-instances-high-performance-cost-effective-"
        "deep-learning-training/",
        "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/general/arch/neuron-hardware/trainium.html",
        "https://www.anthropic.com/news/anthropic-amazon-trainium",
        "https://www.aboutamazon.com/news/aws/aws-project-rainier-ai-trainium-chips-compute-cluster")}
    assert skos_problems(graph) == []


def test_skos_says_no_acceptance_without_a_review_and_writes_every_stored_url_as_a_valid_iri():
    """`review: none` with a date accepts nothing; a URL stored before URLs were checked (a space, a quote)
    would have broken the Turtle file."""
    from glossary.skos import skos_graph

    url = 'https://example.org/a b"<c>'
    entry = {"slug": "p-entry", "status": "2026-10", "sources": [{"title": "T", "url": url}],
             "provenance": {"method": "human-written", "review": "none", "written": "2026-10-01",
                            "reviewed": "2026-10-02"},
             "hu": {"headword": 'P "<b>"', "definition": "Magyar."}, "en": {"headword": "P", "definition": "English."}}
    content = Content(site={}, entries={"p-entry": Record("entry", "p-entry", entry, "")}, pages={}, issues={},
                      stories={})
    graph = Graph().parse(data=skos_graph(content, "https://example.org/", ("hu", "en")).serialize(format="turtle"),
                          format="turtle")
    concept = URIRef("https://example.org/glossary/p-entry")
    assert set(graph.objects(concept, DCTERMS.dateAccepted)) == set()
    assert set(graph.objects(concept, DCTERMS.created)) == {Literal("2026-10-01", datatype=XSD.date)}
    assert set(graph.objects(concept, DCTERMS.source)) == {URIRef("https://example.org/a%20b%22%3Cc%3E")}
    assert set(graph.objects(concept, SKOS.changeNote)) == {
        Literal("This entry was written by a human editor and has not been reviewed; the “In the news” section "
                "updates automatically from the newsletter's stories.", lang="en"),
        Literal("Ezt a szócikket emberi szerkesztő írta, és senki sem ellenőrizte; az „A hírekben” rész automatikusan "
                "frissül a hírlevél cikkei alapján.", lang="hu")}
    assert Literal('P "<b>"', lang="hu") in set(graph.objects(concept, SKOS.prefLabel))


def test_export_needs_a_folder_or_skos(sample):
    assert "give a folder OUT, --skos FILE, or both" in sample("export", expect=2).stderr


@pytest.mark.parametrize("code, message", [
    ("method: typed-by-hand", "provenance.method: unknown code 'typed-by-hand'; expected one of machine-edited, "
                              "machine-assisted, human-written"),
])
def test_check_names_unknown_provenance_codes(sample_cli, write_files, code, message):
    text = OLD.format(slug="p-entry", status="2026-11") + f"provenance: {{{code}}}\n"
    sample_cli("import", "--no-check", str(write_files({"entries/p.yaml": text})))
    assert f"entry:p-entry: {message}" in sample_cli("check", expect=1).stderr.splitlines()
