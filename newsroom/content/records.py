"""Site texts, vocabularies and pages between their records and their rows."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from newsroom.content.rows import apply_texts
from newsroom.models import Page, PageText, SiteText, VocabularyName, VocabularyTerm

VOCABULARIES = {"sections": "section", "categories": "category", "audiences": "audience", "tags": "tag"}


def where_listed(kind: str) -> str:
    """Where the names a section, category or audience may take live, and what changes them: said with
    every name refused as unknown, since the list is in no record an editor would look at first."""
    field = next(name for name, listed in VOCABULARIES.items() if listed == kind)
    return f"the site file's `{field}:` in site.yaml, changed by `newsroom import site.yaml`"


def site_to_record(session: Session) -> dict[str, Any] | None:
    texts = session.scalars(select(SiteText).order_by(SiteText.lang)).all()
    terms = session.scalars(select(VocabularyTerm).order_by(VocabularyTerm.kind, VocabularyTerm.position)
                            .options(selectinload(VocabularyTerm.names))).all()  # one query, however many tags
    if not texts and not terms:
        return None
    record: dict[str, Any] = {"kind": "site"}
    for field, kind in VOCABULARIES.items():
        listed = [{"slug": term.slug, **{name.lang: name.name for name in term.names}}
                  for term in terms if term.kind == kind]
        if listed or kind != "tag":  # optional: a site file without tag names exports as it was written
            record[field] = listed
    for text in texts:
        record[text.lang] = {"name": text.name, "tagline": text.tagline}
        if text.greeting:  # optional: a site file without one exports as it was written
            record[text.lang]["greeting"] = text.greeting
    return record


def apply_site(session: Session, record: dict[str, Any], languages: tuple[str, ...]) -> None:
    """Make the stored site texts and vocabularies match the record.

    Vocabulary terms are updated in place (stories point at sections), new ones
    added; the importer then removes those no longer listed, or refuses the import
    when something still uses one (`importer._drop_unlisted_terms`).
    """
    texts = {text.lang: text for text in session.scalars(select(SiteText))}
    for lang in languages:
        block = record.get(lang) or {}
        text = texts.get(lang) or SiteText(lang=lang)
        text.name, text.tagline = block.get("name", ""), block.get("tagline", "")
        text.greeting = block.get("greeting", "")
        session.add(text)
    terms = {(t.kind, t.slug): t for t in session.scalars(select(VocabularyTerm))}
    for field, kind in VOCABULARIES.items():
        for position, item in enumerate(record.get(field, [])):
            term = terms.get((kind, item["slug"])) or VocabularyTerm(kind=kind, slug=item["slug"])
            term.position = position
            apply_texts(term.names, VocabularyName, {lang: {"name": item[lang]} for lang in languages if lang in item},
                        languages, ("name",))
            session.add(term)


def page_to_record(page: Page) -> dict[str, Any]:
    record: dict[str, Any] = {"kind": page.kind, "slug": page.slug, "formerly": page.formerly,
                              "draft": page.draft or None}
    if page.kind == "reference":
        if page.updated is not None:
            record["updated"] = page.updated.isoformat()
        record["sources"] = page.sources
    for text in page.texts:
        if page.kind == "reference":
            record[text.lang] = {"title": text.title, "summary": text.summary, "sections": text.sections}
        else:
            record[text.lang] = {"title": text.title, "summary": text.summary, "body": text.body}
    return record


def apply_page(page: Page, record: dict[str, Any], languages: tuple[str, ...]) -> None:
    page.kind = record["kind"]
    page.slug = record["slug"]
    page.formerly = record.get("formerly")
    page.draft = bool(record.get("draft"))
    updated = record.get("updated") if record["kind"] == "reference" else None
    page.updated = dt.date.fromisoformat(updated) if updated else None
    page.sources = record.get("sources", [])
    apply_texts(page.texts, PageText, record, languages, ("title", "summary", "body", "sections"))
