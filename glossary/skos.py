"""The whole glossary as a SKOS concept scheme (Turtle), for thesaurus tools and linked data.

Labels are per language: the headword is `skos:prefLabel`, aliases (and the
English term) `skos:altLabel`, match-only forms `skos:hiddenLabel`. Relations
are written from both sides, as the pages show them: broader ⇄ narrower;
"on the edge" is `skos:related`. "Similar, but not the same" is
`skos:related` too (SKOS has no more specific standard property), stated
again with the export's own sub-property of it (`<base>glossary/#similar`),
so that a program can tell a confusable from a concept on the edge. Each is
stated from both sides, as the pages show it, and `#similar` is declared an
`owl:SymmetricProperty` as `skos:related` is: two concepts are confusable with
each other, so a tool that reads one side only infers the other; the note
saying how the two differ is a language-tagged `skos:scopeNote` of each, as
both pages show it: the place thesaurus tools show a concept's "not to be
confused with" (a note on the relation itself would need reification, which
none of them shows). SKOS keeps related concepts apart from broader and
narrower ones, so a concept above or below another is not related to it too.

How an entry was written and reviewed is the sentence its page shows, as a
`skos:changeNote` in each language, with `dct:created` (written) and
`dct:dateAccepted` (reviewed); the status month is `dct:modified` at month
precision; each source's URL is a `dct:source`.

A relation to an entry that does not exist is left out (it has no concept to
point to), and so is one to a concept named without an entry: a SKOS relation
holds between two concepts, and a note in words would say nothing a thesaurus
tool reads as a relation; once the entry is written, the relation is exported.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from markupsafe import Markup
from rdflib import DCTERMS, OWL, RDF, RDFS, SKOS, Graph, Literal, Namespace, URIRef
from rdflib.namespace import FOAF, XSD

from glossary.graph import Link, relations_of
from newsroom.build import urls
from newsroom.build.model import Content, Record
from newsroom.i18n import translations
from newsroom.render.markdown import plain_text


def concept_uri(base_url: str, slug: str) -> URIRef:
    """A language-independent identifier for an entry's concept."""
    return URIRef(f"{base_url}glossary/{slug}")


def own_namespace(base_url: str) -> Namespace:
    """The export's own terms, for what SKOS has no property of: next to the scheme, apart from any slug."""
    return Namespace(f"{base_url}glossary/#")


def skos_graph(content: Content, base_url: str, languages: tuple[str, ...]) -> Graph:
    """An RDF graph with one `skos:Concept` per entry, in a scheme named after the site."""
    graph = Graph()
    graph.bind("skos", SKOS)
    graph.bind("dct", DCTERMS)
    graph.bind("foaf", FOAF)
    graph.bind("owl", OWL)
    graph.bind("concept", Namespace(f"{base_url}glossary/"))
    graph.bind("glossary", own_namespace(base_url))
    scheme = URIRef(f"{base_url}glossary/")
    graph.add((scheme, RDF.type, SKOS.ConceptScheme))
    similar = own_namespace(base_url).similar
    graph.add((similar, RDF.type, RDF.Property))
    graph.add((similar, RDF.type, OWL.SymmetricProperty))
    graph.add((similar, RDFS.subPropertyOf, SKOS.related))
    for lang in languages:
        graph.add((similar, RDFS.label, Literal(translations(lang).gettext("Similar, but not the same"), lang=lang)))
    for lang in languages:
        name = (content.site.get(lang) or {}).get("name")
        if name:
            graph.add((scheme, DCTERMS.title, Literal(name, lang=lang)))
    relations = relations_of(content)
    for slug, entry in content.entries.items():
        concept = concept_uri(base_url, slug)
        graph.add((concept, RDF.type, SKOS.Concept))
        graph.add((concept, SKOS.inScheme, scheme))
        graph.add((concept, SKOS.notation, Literal(slug)))
        _record_keeping(graph, concept, entry, languages)
        for lang in languages:
            english = entry.data.get("english_term") if lang == "en" else None
            _labels(graph, concept, entry.text(lang), lang, english)
            graph.add((concept, FOAF.page, URIRef(base_url + urls.entry(lang, slug))))
        if entry.data.get("english_term") and "en" not in languages:
            graph.add((concept, SKOS.altLabel, Literal(entry.data["english_term"], lang="en")))
        groups = relations[slug]
        for group, predicate in (("broader", SKOS.broader), ("narrower", SKOS.narrower),
                                 ("related", SKOS.related), ("similar", SKOS.related)):
            for link in groups[group]:
                if link.exists:
                    graph.add((concept, predicate, concept_uri(base_url, link.slug)))
        for link in groups["similar"]:
            if link.exists:
                graph.add((concept, similar, concept_uri(base_url, link.slug)))
                _confusable_notes(graph, concept, content, link, languages)
        if not groups["broader"] or not any(link.exists for link in groups["broader"]):
            graph.add((concept, SKOS.topConceptOf, scheme))
            graph.add((scheme, SKOS.hasTopConcept, concept))
    _related_apart_from_hierarchy(graph, similar)
    return graph


def _related_apart_from_hierarchy(graph: Graph, similar: URIRef) -> None:
    """SKOS keeps related concepts apart from broader and narrower ones, however far (S27): a concept both on
    the edge of another and above or below it (`check` warns), or a confusable above or below it (a note on
    how a chip differs from chips in general), stays in the hierarchy, its note kept, its related link left
    out."""
    for concept in set(graph.subjects(RDF.type, SKOS.Concept)):
        hierarchy = {*graph.transitive_objects(concept, SKOS.broader),
                     *graph.transitive_objects(concept, SKOS.narrower)}
        for predicate in (SKOS.related, similar):
            for other in [other for other in graph.objects(concept, predicate) if other in hierarchy]:
                graph.remove((concept, predicate, other))


def _labels(graph: Graph, concept: URIRef, text: Mapping[str, Any], lang: str, english: str | None) -> None:
    """A language's labels: each name once, as SKOS wants the preferred, alternative and hidden labels of a
    language disjoint (S13, S14): an alias or the English term that is the headword, or a match form that is
    a name shown, is not said again."""
    headword = text.get("headword")
    said = {headword} if headword else set()
    if headword:
        graph.add((concept, SKOS.prefLabel, Literal(headword, lang=lang)))
    for alias in [*(text.get("aliases") or []), *([english] if english else [])]:
        if alias not in said:
            said.add(alias)
            graph.add((concept, SKOS.altLabel, Literal(alias, lang=lang)))
    for form in text.get("match_forms") or []:
        if form not in said:
            said.add(form)
            graph.add((concept, SKOS.hiddenLabel, Literal(form, lang=lang)))
    if text.get("definition"):
        graph.add((concept, SKOS.definition, Literal(plain_text(text["definition"]), lang=lang)))


def _confusable_notes(graph: Graph, concept: URIRef, content: Content, link: Link,
                      languages: tuple[str, ...]) -> None:
    """How the concept differs from a confusable, in each language the note has, naming the other as its
    page in that language does (the headword of another language where it has none)."""
    other = content.entries[link.slug]
    for lang in languages:
        note = (link.note or {}).get(lang)
        if not note:
            continue
        headword = next((other.text(each)["headword"] for each in (lang, *languages)
                         if other.text(each).get("headword")), link.slug)
        text = translations(lang).gettext("Similar, but not the same — %(headword)s: %(note)s") % {
            "headword": headword, "note": note}
        graph.add((concept, SKOS.scopeNote, Literal(text, lang=lang)))


#: What RFC 3986 does not allow in a URL as it is (a URL stored before its check may hold one).
_URL_UNSAFE = re.compile(r'[\s"<>\\^`{|}]')


def _record_keeping(graph: Graph, concept: URIRef, entry: Record, languages: tuple[str, ...]) -> None:
    """The status month, how the entry was written and reviewed (the page's sentence, and its dates), and its
    sources: a month is said at month precision (`xsd:gYearMonth`), not as its first day."""
    graph.add((concept, DCTERMS.modified, Literal(entry.data["status"], datatype=XSD.gYearMonth)))
    provenance = entry.data.get("provenance") or {}
    if provenance.get("written"):
        graph.add((concept, DCTERMS.created, Literal(str(provenance["written"]), datatype=XSD.date)))
    if provenance.get("reviewed") and provenance.get("review") != "none":
        graph.add((concept, DCTERMS.dateAccepted, Literal(str(provenance["reviewed"]), datatype=XSD.date)))
    if provenance:
        for lang in languages:
            graph.add((concept, SKOS.changeNote, Literal(provenance_sentence(provenance, lang), lang=lang)))
    for source in entry.data.get("sources") or []:
        if source.get("url"):
            url = _URL_UNSAFE.sub(lambda unsafe: f"%{ord(unsafe[0]):02X}", source["url"])
            graph.add((concept, DCTERMS.source, URIRef(url)))


def provenance_sentence(provenance: Mapping[str, Any], lang: str) -> str:
    """The sentence an entry page in `lang` shows about how the entry was written and reviewed, as text:
    made by the page's own template, so the two cannot say different things."""
    from newsroom.render.html import environment

    macro = environment(lang).get_template("_glossary.html").module.provenance_sentence  # type: ignore[attr-defined]
    return Markup(str(macro(provenance))).unescape().strip()


def write_skos(content: Content, base_url: str, languages: tuple[str, ...], path: Path) -> int:
    """Write the glossary as Turtle to `path`; returns the number of concepts written."""
    graph = skos_graph(content, base_url, languages)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(graph.serialize(format="longturtle"), encoding="utf-8")
    return len(content.entries)
