"""The concept graph: relations stated once, shown from both sides, and its checks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from newsroom.build.model import Content
from newsroom.content.schema import relation_name
from newsroom.diagnostics import Diagnostic, stored_location
from newsroom.drafts import draft_link_problem, is_draft

#: Display groups of an entry page, in page order.
GROUPS = ("broader", "narrower", "related", "similar")
INVERSE = {"broader": "narrower", "narrower": "broader", "related": "related", "similar": "similar"}


class Link(NamedTuple):
    """One related concept as an entry page shows it. A named tuple: a build makes and hashes some
    26,000 of them at scale 1.0, quicker than frozen dataclasses, and its repr is theirs."""

    slug: str | None  # None: a concept without an entry, by its `name`
    exists: bool
    note: Mapping[str, str] | None = None  # similar: how it differs, per language
    name: str | Mapping[str, str] | None = None  # as written in every language, or per language


def name_label(name: str | Mapping[str, str], lang: str) -> tuple[str, str | None]:
    """What a page in `lang` shows for a concept's name, and the language it is in when it is another's
    (a name missing `lang`: the first the relation gives); a text's language is not known (None)."""
    if isinstance(name, str):
        return name, None
    if name.get(lang):
        return name[lang], None
    other = next(iter(name))
    return name[other], other


def relations_of(content: Content) -> dict[str, dict[str, list[Link]]]:
    """Every entry's related concepts by group, each relation seen from both of its ends."""
    graph: dict[str, dict[str, list[Link]]] = {slug: {g: [] for g in GROUPS} for slug in content.entries}
    # (owner, group, target) → (its place in the list, whether the owner states it): each shown once, where
    # first stated, with the owner's own note (how a confusable differs, said from its side) over the other's.
    linked: dict[tuple[str, str, Any], tuple[int, bool]] = {}  # (a name's target: `_name_key`)

    def add(owner: str, group: str, link: Link, own: bool) -> None:
        key = (owner, group, link.slug if link.slug is not None else _name_key(link.name))
        if link.slug == owner:
            return
        if key not in linked:
            linked[key] = (len(graph[owner][group]), own)
            graph[owner][group].append(link)
        elif own and not linked[key][1]:
            place = linked[key][0]
            linked[key] = (place, True)
            graph[owner][group][place] = link

    for slug, entry in content.entries.items():
        relations = entry.data.get("relations") or {}
        for group in GROUPS:
            for item in relations.get(group) or []:
                target = item["entry"] if group == "similar" else item
                name = None if group == "similar" else relation_name(target)
                if name is not None:  # shown by its owner only: a name has no page to show the other side
                    add(slug, group, Link(None, False, None, name), True)
                    continue
                note = item.get("note") if group == "similar" else None
                add(slug, group, Link(target, target in content.entries, note), True)
                if target in content.entries:
                    add(target, INVERSE[group], Link(slug, True, note), False)
    return graph


def _name_key(name: Any) -> Any:
    """A name as a key: two relations giving one name are one concept."""
    return ("name", name) if isinstance(name, str) else ("name", *sorted(name.items()))


def graph_problems(content: Content, languages: tuple[str, ...]) -> list[Diagnostic]:
    """Missing targets, names (concepts without an entry), self-relations, notes missing a language,
    broader/narrower cycles."""
    problems: list[Diagnostic] = []
    parents: dict[str, set[str]] = {slug: set() for slug in content.entries}
    stated: dict[tuple[str, str], list[tuple[str, str]]] = {}  # (child, parent) → [(entry, field) saying so]
    # {the two entries: [(group as the first sees it, entry stating it, field)]}: one relation each, not two.
    kinds: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
    for slug, entry in content.entries.items():
        relations = entry.data.get("relations") or {}
        for group in GROUPS:
            for i, item in enumerate(relations.get(group) or []):
                target = item["entry"] if group == "similar" else item
                field = f"relations.{group}[{i}]"
                name = None if group == "similar" else relation_name(target)
                if name is not None:
                    problems.extend(_name_problems(entry.location, field, name, languages))
                elif target == slug:
                    problems.append(Diagnostic(entry.location, None, field, "an entry cannot be related to itself"))
                elif target not in content.entries:
                    problems.append(Diagnostic(entry.location, None, field,
                                               f"no entry {target!r}: shown as plain text until it is written",
                                               "warning"))
                else:
                    if is_draft(content.entries[target]) and not is_draft(entry):
                        problems.append(draft_link_problem(entry.location, field, content.entries[target], languages,
                                                           named=True))
                    pair = (slug, target) if slug < target else (target, slug)
                    kinds.setdefault(pair, []).append((group if slug == pair[0] else INVERSE[group], slug, field))
                    if group == "broader":
                        parents[slug].add(target)
                        stated.setdefault((slug, target), []).append((slug, field))
                    elif group == "narrower":
                        parents[target].add(slug)
                        stated.setdefault((target, slug), []).append((slug, field))
                if group == "similar":
                    note = item.get("note") or {}
                    for lang in languages:
                        if not note.get(lang):
                            problems.append(Diagnostic(entry.location, None, f"{field}.note.{lang}",
                                                       "a confusable needs a note saying how it differs"))
    problems.extend(_cycles(content, parents, stated))
    problems.extend(_two_kinds(content, kinds))
    return problems


#: A group as `check` names it (the page's heading for it).
GROUP_NAMES = {"broader": "broader", "narrower": "narrower", "related": "on the edge", "similar": "similar"}


def _two_kinds(content: Content, kinds: Mapping[tuple[str, str], list[tuple[str, str, str]]]) -> list[Diagnostic]:
    """Two entries on the edge of each other and one broader too: the page lists the other under both
    headings, and SKOS holds broader and related concepts apart. A warning at the later statement."""
    problems = []
    for (first, second), said in kinds.items():
        problems += _similar_in_hierarchy(content, first, second, said)
        # A confusable may be on the edge too (the seed's GPU is both to Trainium); each broader than the other is
        # a cycle, named as such: what is left is on the edge and above or below at once.
        said = [item for item in said if item[0] != "similar"]
        if not ({group for group, _, _ in said} > {"related"}):
            continue
        group, slug, field = next(item for item in said if item[0] != said[0][0])
        other, here = (second, group) if slug == first else (first, INVERSE[group])
        before = said[0][0] if slug == first else INVERSE[said[0][0]]
        problems.append(Diagnostic(content.entries[slug].location, None, field, (
            f"{other!r} is {GROUP_NAMES[here]} here and {GROUP_NAMES[before]} by {said[0][2]} of entry "
            f"{said[0][1]!r}: an entry is broader, narrower or on the edge of another, not two of them; keep one"),
            "warning"))
    return problems


def _similar_in_hierarchy(content: Content, first: str, second: str, said: list[tuple[str, str, str]]
                          ) -> list[Diagnostic]:
    """A confusable that is also broader or narrower than the entry: the page lists it under both headings, and
    SKOS keeps it in the hierarchy only (its related link left out). A warning at the later statement. Similar and
    on the edge at once is silent (the seed's GPU is both to Trainium); each broader than the other is a cycle."""
    said = [item for item in said if item[0] != "related"]
    if "similar" not in {group for group, _, _ in said} or len({group for group, _, _ in said} - {"similar"}) != 1:
        return []
    first_said = said[0]
    group, slug, field = next(item for item in said if (item[0] == "similar") != (first_said[0] == "similar"))
    other, here = (second, group) if slug == first else (first, INVERSE[group])
    before = first_said[0] if slug == first else INVERSE[first_said[0]]
    return [Diagnostic(content.entries[slug].location, None, field, (
        f"{other!r} is {GROUP_NAMES[here]} here and {GROUP_NAMES[before]} by {first_said[2]} of entry "
        f"{first_said[1]!r}: an entry broader or narrower than another is not also similar to it (its page lists it "
        "under both headings); keep one"), "warning")]


def _name_problems(location: str, field: str, name: str | Mapping[str, str],
                   languages: tuple[str, ...]) -> list[Diagnostic]:
    """A name is shown as text (a warning), and a page whose language it lacks shows another's."""
    shown = name if isinstance(name, str) else next(iter(name.values()))
    problems = [Diagnostic(location, None, field, f"{shown!r} is a name, not an entry: shown as plain text until "
                                                  "an entry is written for it", "warning")]
    if not isinstance(name, str):
        problems += [Diagnostic(location, None, f"{field}.{lang}",
                                f"no {lang} name: the {lang} page shows the {next(iter(name))} one", "warning")
                     for lang in languages if not name.get(lang)]
    return problems


def _cycles(content: Content, parents: dict[str, set[str]],
            stated: Mapping[tuple[str, str], list[tuple[str, str]]]) -> list[Diagnostic]:
    """One diagnostic per broader/narrower cycle, named by its members in order, at a relation that makes
    it: one in a file being read where there is one (the file an import brings the cycle in), else the first.

    Iterative depth-first search with an explicit stack: a broader chain of
    thousands of entries must not hit Python's recursion limit.
    """
    problems: list[Diagnostic] = []
    state: dict[str, str] = {}
    reported: set[frozenset[str]] = set()
    for root in sorted(parents):
        if root in state:
            continue
        state[root] = "open"
        trail = [root]
        stack = [iter(sorted(parents[root]))]
        while stack:
            parent = next(stack[-1], None)
            if parent is None:
                state[trail.pop()] = "done"
                stack.pop()
            elif state.get(parent) == "open":
                cycle = trail[trail.index(parent):] + [parent]
                if frozenset(cycle) not in reported:
                    reported.add(frozenset(cycle))
                    problems.append(_cycle_at(content, cycle, stated))
            elif parent not in state:
                state[parent] = "open"
                trail.append(parent)
                stack.append(iter(sorted(parents[parent])))
    return problems


def _cycle_at(content: Content, cycle: list[str],
              stated: Mapping[tuple[str, str], list[tuple[str, str]]]) -> Diagnostic:
    """The diagnostic of `cycle` (each member's broader concept next, the first again last), at the first
    relation of it stated in a file, else at its first relation; the cycle named from that entry."""
    making = [said for child, parent in zip(cycle, cycle[1:]) for said in stated[(child, parent)]]
    slug, field = next(((slug, field) for slug, field in making
                        if content.entries[slug].location != stored_location("entry", slug)), making[0])
    start = cycle.index(slug)
    members = cycle[start:-1] + cycle[:start + 1]
    return Diagnostic(content.entries[slug].location, None, field, "broader/narrower cycle: " + " → ".join(members))
