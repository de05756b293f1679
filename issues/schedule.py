"""The schedule: a scheduled issue is recorded as published once its time has come.

A build shows a scheduled issue from its time on (see issues.visibility): readers may have it, its feed
entry may have gone out. Left "scheduled", its record could still be changed, its stories moved or
deleted, as work in progress, without a correction, and `send` would refuse it. So every command that
reads or changes the content first records each issue whose time has come as published at that time
(`publish_due`), in a revision by the editor "schedule"; from then on a change to it is a correction.
Its reason is written in the site's first language, as an editor's `--reason` is by default (`--reason-lang`).
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select
from sqlalchemy.orm import Session

from issues.models import Issue

#: The editor named in the revision that records a scheduled issue as published.
EDITOR = "schedule"
#: That revision's reason as the message catalogs know it, and as it was recorded before it was translated.
REASON = "published at its scheduled time"


def reason(lang: str) -> str:
    """That revision's reason in `lang` (the site's first language: no listing marks it as foreign)."""
    from newsroom.i18n import translations

    return translations(lang).gettext("published at its scheduled time")  # REASON, written out for extraction


def _reasons() -> set[str]:
    """Every language's wording of that reason, and the English one every such revision was recorded with
    before."""
    from newsroom.i18n import LOCALE_DIR

    return {REASON, *(reason(folder.name) for folder in LOCALE_DIR.iterdir() if folder.is_dir())}


def is_due(issue: Issue, now: dt.datetime) -> bool:
    """Whether `issue` is scheduled and its time has come by `now` (what `publish_due` asks the database)."""
    return issue.status == "scheduled" and issue.published_at is not None and issue.published_at <= now


def went_out_on_schedule(session: Session, number: int) -> bool:
    """Whether issue `number` was recorded as published at its scheduled time (see `publish_due`), rather
    than published by an editor's `issue publish`."""
    from newsroom.models import Revision

    return session.scalar(select(Revision.id).where(
        Revision.record_kind == "issue", Revision.record_key == str(number), Revision.changed_by == EDITOR,
        Revision.reason.in_(sorted(_reasons()))).limit(1)) is not None


def recorded(number: int) -> str:
    """What a command says when it has recorded issue `number` as published at its time."""
    return f"issue {number}: its scheduled time has come; recorded as published"


def publish_due(session: Session, now: dt.datetime, languages: tuple[str, ...]) -> list[int]:
    """Record every scheduled issue whose time is `now` or before as published at that time; returns
    their numbers. Nothing is checked: the issue was checked when it was scheduled, and every change
    to it since was checked against it (issues.workflow.recheck_after_change).

    The revision is dated at the issue's time, when it became public, not when a command noticed: a
    change made after that time is a correction, even one made in the same instant as the command
    that records it (a fixed clock, $NEWSROOM_NOW) and no change was made in between (every command
    records it first)."""
    due = session.scalars(select(Issue).where(Issue.status == "scheduled", Issue.published_at.is_not(None),
                                              Issue.published_at <= now).order_by(Issue.number)).all()
    if not due:
        return []
    # Writing records loads their validation (the content files' schema, YAML): 20 ms every command
    # would pay, a rebuild with nothing to do among them, for the rare one that finds an issue due.
    from issues.revisions import Change, current_issue_record, write_issue

    first = languages[0]
    for issue in due:
        assert issue.published_at is not None
        change = Change(editor=EDITOR, now=issue.published_at, languages=languages, reason=reason(first),
                        reason_lang=first)
        write_issue(session, issue, {**current_issue_record(issue, languages), "status": "published"}, change)
    return [issue.number for issue in due]
