"""The site as a whole: its site file (stored at all, its names, its tags' names), an address given out twice
(former slugs), and the dates pages show (a reference page's last update, entries gone stale)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

from glossary.staleness import stale_problems
from issues.archive import tag_name_clashes
from newsroom.build import urls
from newsroom.build.model import Content, Record
from newsroom.diagnostics import NO_SITE, Diagnostic, first_of
from newsroom.settings import Settings


def _update_date(record: Record, today: dt.date) -> Iterator[Diagnostic]:
    """A reference page with no date of last update (its page, the sitemap and its JSON-LD then give
    none), or with one in the future (a typo, most likely): warnings."""
    if record.kind != "reference":
        return
    updated = record.data.get("updated")
    if not updated:
        yield Diagnostic(record.location, None, "updated", (
            "no date of its last update: give `updated: YYYY-MM-DD` (the page shows it, and the sitemap and "
            "search engines read it)"), "warning")
    elif updated > today.isoformat():
        yield Diagnostic(record.location, None, "updated",
                         f"{updated} is in the future (today is {today.isoformat()})", "warning")


def _former_slug_clashes(content: Content) -> Iterator[Diagnostic]:
    """Each former slug (`formerly`) whose address another record of its kind has, as its slug or as a former
    one: the build writes a page there that sends readers on (a story keeps its old anchor on its issue's
    pages), so an address is never given out twice. Named at each record concerned, so an import names the file
    that brought the clash (as a file of a renamed record from before its renaming does)."""
    for kind, records in (("entry", content.entries.values()), ("story", content.stories.values()),
                          ("reference", content.pages.values()), ("page", content.pages.values())):
        current = {record.key for record in records if record.kind == kind}
        place = "anchor on the issue pages is" if kind == "story" else "page is at"
        claims: dict[str, list[tuple[Record, int]]] = {}
        for record in sorted((record for record in records if record.kind == kind), key=lambda r: r.key):
            for index, slug in enumerate(record.data.get("formerly") or ()):
                claims.setdefault(slug, []).append((record, index))
        for slug, holders in sorted(claims.items()):
            if slug in current:
                for record, index in holders:
                    yield Diagnostic(record.location, None, f"formerly[{index}]", (
                        f"{slug!r} is the slug of {kind}:{slug}, whose {place} that address: take it out of "
                        f"`formerly` here, or give {kind}:{slug} another slug"))
                named = first_of([record.location for record, _ in holders])
                yield Diagnostic(f"{kind}:{slug}", None, "slug", (
                    f"{slug!r} is a former slug of {named}, whose old address sends readers on to it: a file of "
                    f"{named} from before it was renamed makes {kind}:{slug} again; leave that file out (`newsroom "
                    "export` writes the record's file under its slug), or take the slug out of the other's `formerly`"))
            elif len(holders) > 1:
                for record, index in holders:
                    others = first_of([other.location for other, _ in holders if other is not record])
                    yield Diagnostic(record.location, None, f"formerly[{index}]", (
                        f"{slug!r} is a former slug of {others} too: its old address can send readers on to one of "
                        "them only; take it out of one"))


def no_site(content: Content) -> Iterator[Diagnostic]:
    """No site file stored (a database `newsroom init` made without `--sample`): its pages would be built
    with no publication name, no sections and a Method link to nothing, a site that only looks built.

    Asked by `check` and the build, not by `check_content`: an import or an edit of some records into a
    database with no site file yet is no new problem of theirs."""
    if not content.site:
        yield Diagnostic("site", None, "", (
            "no site file is stored: every page's title, the feeds and each email take the publication's name "
            "from it, and the navigation its sections and the Method page: write site.yaml (kind: site; "
            f"docs/content-format.md, \"site\") and pages/{urls.METHOD}.yaml (kind: page), then "
            "`newsroom import site.yaml pages/`"), code=NO_SITE)


def _site_names(content: Content, languages: tuple[str, ...]) -> Iterator[Diagnostic]:
    for lang in languages if content.site else ():
        if not (content.site.get(lang) or {}).get("name"):
            yield Diagnostic("site", None, f"{lang}.name", "the publication has no name in this language: every "
                             "page's title, the feeds and each email's sender show it")
        elif not (content.site.get(lang) or {}).get("tagline"):
            yield Diagnostic("site", None, f"{lang}.tagline", (
                "the publication has no tagline in this language: the masthead shows it under the name, and the "
                "pages with no description of their own (the glossary index, the archive, the editions, an issue "
                "without a lead) give it to search engines and link previews, the name alone without it: "
                "write one"), "warning")
    for field in ("sections", "categories", "audiences"):
        for i, item in enumerate(content.site.get(field, [])):
            for lang in languages:
                if not item.get(lang):
                    yield Diagnostic("site", None, f"{field}[{i}].{lang}",
                                     f"{item['slug']!r} has no name in this language")
    for i, item in enumerate(content.site.get("tags", [])):
        named = [lang for lang in languages if item.get(lang)]
        if not named:  # as if the list left it out, but then `check` would say so at its first story
            yield Diagnostic("site", None, f"tags[{i}]", (
                f"the tag {item['slug']!r} has no name in any language: its pages show it as the stories write it; "
                f"write its name in each language under its slug ({', '.join(f'{lang}: …' for lang in languages)})"
            ), "warning")
        for lang in languages if named else ():
            if not item.get(lang):
                yield Diagnostic("site", None, f"tags[{i}].{lang}", (
                    f"the tag {item['slug']!r} has no name in this language: its pages show the {named[0]} name "
                    f"{item[named[0]]!r}, marked as {named[0]}; write its name here"), "warning")
    yield from tag_name_clashes(content, languages)


def _stale(content: Content, settings: Settings, today: dt.date) -> Iterator[Diagnostic]:
    yield from stale_problems(content, today, settings.stale_after_months)
