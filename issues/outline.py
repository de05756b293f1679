"""`newsroom issue show`: an issue as editors think of it, as plain text lines."""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import Session

from issues.assembly import load_issue
from issues.dates import format_datetime, issue_line
from issues.queries import sections
from issues.workflow import publication_problems
from newsroom.i18n import translations
from newsroom.settings import Settings


def issue_word(lang: str) -> str:
    """The translated word for "issue" that `issue_line` puts beside the number."""
    return translations(lang).gettext("Issue")


def outline(session: Session, settings: Settings, number: int, today: dt.date) -> list[str]:
    """The issue line in each language, its status, then sections in order with their stories in order,
    then what still keeps it from being published (missing translations, sources, links)."""
    issue = load_issue(session, number)
    languages = settings.languages
    lines = [issue_line(number, issue.week_start, issue.week_end, lang, issue_word(lang)) for lang in languages]
    status = issue.status
    if issue.published_at is not None:
        status += " " + format_datetime(issue.published_at, "en", settings.timezone)
    lines.append(f"status: {status}")
    titles = {text.lang: text.title for text in issue.texts}
    lines += [f"title ({lang}): {titles.get(lang) or '—'}" for lang in languages]
    for section in session.scalars(sections()):
        names = {name.lang: name.name for name in section.names}
        stories = sorted((s for s in issue.stories if s.section_id == section.id), key=lambda s: (s.position, s.slug))
        lines.append("")
        lines.append(" / ".join(names.get(lang) or f"({section.slug}: no {lang} name)" for lang in languages)
                     + f" [{section.slug}]")
        if not stories:
            lines.append("  (no stories)")
        for story in stories:
            headlines = {text.lang: text.headline for text in story.texts}
            lines.append(f"  {story.position}. {story.slug}")
            lines += [f"     {lang}: {headlines.get(lang) or '— missing —'}" for lang in languages]
    problems = publication_problems(session, settings, number, today)
    lines.append("")
    if problems:
        lines.append(f"to fix before publishing ({len(problems)}):")
        lines += [f"  {problem}" for problem in problems]
    else:
        lines.append("ready to publish: no problems found")
    return lines
