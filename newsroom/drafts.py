"""Draft glossary entries, reference pages and site pages (`draft: true`): kept, checked and previewed, never
published.

One place decides what readers see of them: a public build makes its site from `without_drafts(content)`,
so a draft has no page, is in no list, index, feed, sitemap or search index, and is linked and counted
nowhere — every part of the build already treats a record that is not there so. `build --drafts` and
`serve` make theirs from the whole content and mark each draft's page. A draft's own problems stop
no build until it is published (see `draft_locations`); a published record that points at one is shown
with that name as text, and `check` says so (`draft_link_problem`). The Method page is the exception:
every page and email links to it, so a draft one stops publishing (`method_draft_problems`), and a published
one is not made a draft again (`method_kept_published`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from newsroom.build import urls
from newsroom.build.model import Content, Record
from newsroom.diagnostics import Diagnostic
from newsroom.reference_starter import PLACEHOLDER, PLACEHOLDER_RE

#: Where `newsroom export` writes a record's file, by kind.
FOLDERS = {"entry": "entries", "reference": "reference", "page": "pages"}


def is_draft(record: Record | None) -> bool:
    """Whether `record` is a draft entry, reference page or site page (None, a record that is not there, is
    none)."""
    return record is not None and bool(record.data.get("draft"))


def without_drafts(content: Content) -> Content:
    """`content` as readers see it: every draft entry, reference page and site page left out (the same object
    when there is none, as in most builds)."""
    if not any(map(is_draft, content.entries.values())) and not any(map(is_draft, content.pages.values())):
        return content
    return dataclasses.replace(
        content, entries={slug: entry for slug, entry in content.entries.items() if not is_draft(entry)},
        pages={slug: page for slug, page in content.pages.items() if not is_draft(page)})


def drafts_in(records: Mapping[str, Record]) -> dict[str, Record]:
    """The drafts among `records` (entries or pages), by key."""
    return {key: record for key, record in records.items() if is_draft(record)}


def draft_locations(content: Content) -> set[str]:
    """`entry:slug`, `reference:slug` and `page:slug` of every draft: work in progress, whose own problems stop
    no build, import or edit until it is published (`edit --set draft=false` is then refused while it has
    errors); `check` reports them as warnings."""
    return {record.location for records in (content.entries, content.pages)
            for record in records.values() if is_draft(record)}


def as_draft_problem(problem: Diagnostic) -> Diagnostic:
    """`problem` of a draft as `check` reports it: an error becomes a warning saying it is to fix before the
    draft is published (a warning stays as it is)."""
    if problem.severity != "error":
        return problem
    return dataclasses.replace(problem, severity="warning", message=(
        f"{problem.message} (a draft: to fix before it is published)"))


def draft_link_problem(location: str, field: str, target: Record, languages: tuple[str, ...],
                       named: bool = False) -> Diagnostic:
    """The warning at `field` of the published record at `location` that points at the draft `target`: the
    public site shows the name there as text, without a link, until the draft is published. Where that name
    is the draft's own (`named`: a relation, a story's term) and still the starter's TODO in a language, the
    public pages of that language leave it out instead (see `unwritten_names`), and the warning names them."""
    folder = FOLDERS[target.kind]
    publish = (f"remove `draft: true` from its file ({folder}/{target.key}.yaml) and import it, or run "
               f"`newsroom edit {target.location} --set draft=false`")
    unwritten = starter_languages(target, languages) if named else []
    if unwritten and len(unwritten) == len(languages):
        return Diagnostic(location, None, field, (
            f"{target.location} is a draft whose headword is still the starter's {PLACEHOLDER}, left out of "
            f"published pages in {_and(unwritten)} until it is published: write its headword, then {publish}"),
            "warning")
    if unwritten:
        written = [lang for lang in languages if lang not in unwritten]
        return Diagnostic(location, None, field, (
            f"{target.location} is a draft whose headword in {_and(unwritten)} is still the starter's "
            f"{PLACEHOLDER}, left out of published pages in {_and(unwritten)} until it is published (those in "
            f"{_and(written)} show its headword as text): write its headword in {_and(unwritten)}, then {publish}"),
            "warning")
    return Diagnostic(location, None, field, f"{target.location} is a draft, shown as text until it is published: "
                      f"{publish}", "warning")


def _and(languages: list[str]) -> str:
    """"hu", "hu and en", "de, hu and en"."""
    return " and ".join(filter(None, (", ".join(languages[:-1]), languages[-1])))


def starter_languages(draft: Record, languages: tuple[str, ...]) -> list[str]:
    """The languages whose published pages leave out the name of the draft entry `draft` (see
    `unwritten_names`): those where the headword a page shows, the language's own (else that of the first
    language with the entry's texts, as the build's headwords fall back), still holds the starter's TODO."""
    texts = [lang for lang in languages if draft.has(lang)]
    found = []
    for lang in languages:
        headword = draft.text(lang if lang in texts else next(iter(texts), lang)).get("headword")
        if isinstance(headword, str) and PLACEHOLDER_RE.search(headword):
            found.append(lang)
    return found


def unwritten_names(drafts: Mapping[str, Record], names: dict[str, str], languages: tuple[str, ...]) -> None:
    """Make "" the name in `names` ({"lang/slug": headword}, the build's) of each of the `drafts` (those a
    public build leaves out) whose headword shown in a language still holds the starter's TODO (see
    `starter_languages`, which `check`'s warning names): a published page shows a draft's headword as text
    where a relation or a story's term names it, and "" leaves that out, so no reader sees a placeholder (a
    preview shows it: its drafts are no hidden ones)."""
    for slug, draft in drafts.items():
        for lang in starter_languages(draft, languages):
            if f"{lang}/{slug}" in names:
                names[f"{lang}/{slug}"] = ""


def method_draft_problems(content: Content) -> list[Diagnostic]:
    """The error of a draft Method page, which stops a public build, `send` and `email` (not a preview):
    every page's navigation and footer and every email's footer link to it, and it is where readers learn
    how the publication is made, its machine editing included. Leaving those links out would publish the
    site without that disclosure; linking to nothing would break them. Asked besides `check_content`, as
    `checks.no_site` is, since a draft's own problems are only warnings."""
    method = content.pages.get(urls.METHOD)
    if method is None or method.kind != "page" or not is_draft(method):
        return []
    return [Diagnostic(method.location, None, "draft", (
        "the Method page is a draft: every page's navigation and footer and every email link to it, and it says "
        "how the publication is made (its machine editing too), so nothing is published without it: remove "
        f"`draft: true` from its file ({FOLDERS['page']}/{urls.METHOD}.yaml) and import it, or run "
        f"`newsroom edit {method.location} --set draft=false`"))]


def method_kept_published() -> Diagnostic:
    """The refusal of a change that would make the published Method page a draft (`edit --set draft=true`, an
    import of its file saying `draft: true`): the error `method_draft_problems` names would then stop the
    whole site. A Method page not yet published (none stored, or a draft, as a new publication writes its
    first) may be stored as a draft, which `check` names until it is published."""
    return Diagnostic(f"page:{urls.METHOD}", None, "draft", (
        "the Method page is published, and a draft one would stop `check`, every public build, `email` and "
        "`send`: every page's navigation and footer and every email link to it, and it says how the publication "
        "is made (its machine editing too); keep it published and change its text instead (`newsroom edit "
        f"page:{urls.METHOD} --set en.body=…`, or its file without `draft: true`, imported): the next build "
        "shows the change"))
