"""The SKOS integrity conditions an exported glossary must keep, checked on the graph read back."""

from __future__ import annotations

from collections import Counter

from rdflib import OWL, RDF, RDFS, SKOS, Graph, Literal

NOTES = (SKOS.note, SKOS.scopeNote, SKOS.changeNote, SKOS.definition, SKOS.editorialNote, SKOS.historyNote)


def skos_problems(graph: Graph) -> list[str]:
    """What breaks S13 (a concept's preferred, alternative and hidden labels are disjoint), S14 (one preferred
    label per language), S27 (related concepts are not broader or narrower ones, a sub-property of
    `skos:related` included), a relation of a symmetric property (`skos:related`, and one declared an
    `owl:SymmetricProperty`) stated from one side only, and a note without a language."""
    problems = []
    related_kinds = {SKOS.related, *graph.subjects(RDFS.subPropertyOf, SKOS.related)}
    for kind in {SKOS.related, *graph.subjects(RDF.type, OWL.SymmetricProperty)}:
        for concept, other in graph.subject_objects(kind):
            if (other, kind, concept) not in graph:
                problems.append(f"symmetric {kind}: {concept} to {other}, not back")
    for concept in graph.subjects(RDF.type, SKOS.Concept):
        pref, alt, hidden = (set(graph.objects(concept, kind)) for kind in (SKOS.prefLabel, SKOS.altLabel,
                                                                             SKOS.hiddenLabel))
        if pref & alt or pref & hidden or alt & hidden:
            problems.append(f"S13: {concept}: {sorted(pref & alt | pref & hidden | alt & hidden)}")
        twice = [lang for lang, count in Counter(label.language for label in pref).items() if count > 1]
        if twice:
            problems.append(f"S14: {concept}: two preferred labels in {twice}")
        above = set(graph.transitive_objects(concept, SKOS.broader)) - {concept}
        below = set(graph.transitive_objects(concept, SKOS.narrower)) - {concept}
        related = {other for kind in related_kinds for other in graph.objects(concept, kind)}
        if related & (above | below):
            problems.append(f"S27: {concept}: related and broader or narrower: {sorted(related & (above | below))}")
        for kind in NOTES:
            for note in graph.objects(concept, kind):
                if not isinstance(note, Literal) or not note.language:
                    problems.append(f"{concept}: {kind} without a language: {note!r}")
    return problems

