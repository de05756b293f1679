"""Issues and stories between their content-file records and their database rows."""

from __future__ import annotations

import datetime as dt
from typing import Any

from issues.models import Issue, IssueText, Story, StoryText
from newsroom.content.rows import apply_texts
from newsroom.models import VocabularyTerm


def issue_to_record(issue: Issue) -> dict[str, Any]:
    record: dict[str, Any] = {
        "kind": "issue", "number": issue.number,
        "week": {"start": issue.week_start.isoformat(), "end": issue.week_end.isoformat()},
        "status": issue.status,
        "published_at": issue.published_at.isoformat() if issue.published_at else None,
    }
    for text in issue.texts:
        record[text.lang] = {"title": text.title, "lead": text.lead, "editor_note": text.editor_note}
    return record


def apply_issue(issue: Issue, record: dict[str, Any], languages: tuple[str, ...]) -> None:
    issue.number = record["number"]
    week = record.get("week", {})
    issue.week_start = dt.date.fromisoformat(week["start"])
    issue.week_end = dt.date.fromisoformat(week["end"])
    issue.status = record["status"]
    published = record.get("published_at")
    issue.published_at = dt.datetime.fromisoformat(published) if published else None
    apply_texts(issue.texts, IssueText, record, languages, ("title", "lead", "editor_note"))


def story_to_record(story: Story) -> dict[str, Any]:
    record: dict[str, Any] = {
        "kind": "story", "slug": story.slug, "formerly": story.formerly, "issue": story.issue.number,
        "section": story.section.slug,
        "position": story.position, "tags": story.tags, "audiences": story.audiences, "terms": story.terms,
        "suppress_terms": story.suppress_terms, "sources": story.sources,
    }
    for text in story.texts:
        record[text.lang] = {"headline": text.headline, "summary": text.summary, "body": text.body}
    return record


def apply_story(
    story: Story, record: dict[str, Any], languages: tuple[str, ...], issue: Issue, section: VocabularyTerm
) -> None:
    story.slug = record["slug"]
    story.formerly = record.get("formerly")
    story.issue = issue
    story.section = section
    story.position = record["position"]
    for name in ("tags", "audiences", "terms", "suppress_terms", "sources"):
        setattr(story, name, record.get(name, []))
    apply_texts(story.texts, StoryText, record, languages, ("headline", "summary", "body"))
