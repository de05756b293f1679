"""Whether a new story, a new issue or stories' new places can bring another record a finding at all, read from
a few rows: `changes.brought` checks the content again only where one can.

What other records' findings read of a story's place is the order of the stories carrying one tag (which of
them a tag's warning is at, and which spelling of it is the tag's), the stories sharing a place, and, of its
issue, how `check` words its own problems (a draft's); of a new story, also its slug (another story's former
slug); of a new issue, its week (another's overlapping) and its existence (a text linking to it). A story's
other findings (its texts, sources, terms, audiences) are its own. `story add` and `story move` renumber a
section rather than give two stories one place; a content file may give one, and then the content is checked.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Mapping

from sqlalchemy import select
from sqlalchemy.orm import Session

from issues.archive import tag_slug
from issues.models import Story
from issues.queries import overlapping_issues
from newsroom.build.model import Record, locations_naming
from newsroom.models import VocabularyTerm

#: What a story's move changes of it: the rest of its record stays as it was.
PLACE = ("issue", "section", "position")


def may_reach(session: Session, before: Mapping[str, Record], after: Mapping[str, Record], watched: Collection[str],
              changed: Collection[str], said: Collection[str]) -> bool:
    """Whether the change of the records at `changed` (as `before` and `after` hold them; `watched`: the
    locations `before` was read for, an issue's with all its stories) may bring a record other than those at
    `said` a finding: False only where none can come, when it added stories or issues or moved stories and
    changed nothing else of them. Anything else may (True), and is checked as before."""
    stories: list[Record] = []
    added: list[Record] = []
    for location in changed:
        was, now = before.get(location), after.get(location)
        if now is None:
            return True
        if now.kind == "issue" and was is None:
            if _issue_reaches(session, now):
                return True
        elif now.kind == "story" and (was is None or _moved_only(was, now)):
            if location not in said and (was is None or was.data["issue"] != now.data["issue"]):
                return True  # its own problems, worded as its issue's status says, are not said with the change
            stories.append(now)
            if was is None:
                added.append(now)
        else:
            return True
    return bool(stories) and (_places_shared(after, watched, stories) or _tags_ordered(session, stories)
                              or _slugs_claimed(session, added))


def _moved_only(was: Record, now: Record) -> bool:
    """Whether a story changed its place (issue, section, position) and nothing else."""
    return ({key: value for key, value in was.data.items() if key not in PLACE}
            == {key: value for key, value in now.data.items() if key not in PLACE})


def _issue_reaches(session: Session, issue: Record) -> bool:
    """Whether a new issue shares days with another's week (whose warning may then be at the other), or some
    record's text names it (a link to it: its error of a missing issue goes, a warning of a link without text
    may come), also with its number written with leading zeros. An issue's own problems, and its stories', are
    its own."""
    week, number = issue.data["week"], issue.data["number"]
    start, end = (dt.date.fromisoformat(str(week[day])) for day in ("start", "end"))
    if any(other.number != number for other in session.scalars(overlapping_issues(start, end))):
        return True
    named = locations_naming(session, issue.location) - {issue.location}
    # A number written with leading zeros (`issue:015`) is rare: any such link has the content checked.
    return bool(named) or bool(locations_naming(session, "issue:0"))


def _places_shared(after: Mapping[str, Record], watched: Collection[str], stories: Iterable[Record]) -> bool:
    """Whether a story of an issue that `stories` are in shares its place with another or has one below 1 (a
    warning then at one of them), or such an issue's stories were not all read (not watched)."""
    issues = {story.data["issue"] for story in stories}
    if any(f"issue:{number}" not in watched for number in issues):
        return True
    places = [(record.data["issue"], record.data["section"], record.data["position"]) for record in after.values()
              if record.kind == "story" and record.data["issue"] in issues]
    return len(set(places)) < len(places) or any(position < 1 for _, _, position in places)


def _tags_ordered(session: Session, stories: Iterable[Record]) -> bool:
    """Whether a tag of `stories` is carried by another story too, and then is written in more than one way
    (a clash, warned at the spellings that are not the tag's, which depends on their order and counts) or is
    one the site file does not name while it names some (warned at its first story in archive order)."""
    slugs = {tag_slug(tag) for story in stories for tag in story.data.get("tags") or ()}
    if not slugs:
        return False
    carriers: dict[str, set[str]] = {}
    spellings: dict[str, set[str]] = {}
    for slug, tags in session.execute(select(Story.slug, Story.tags)):
        for tag in tags or ():
            if tag_slug(tag) in slugs:
                carriers.setdefault(tag_slug(tag), set()).add(slug)
                spellings.setdefault(tag_slug(tag), set()).add(tag)
    named = set(session.scalars(select(VocabularyTerm.slug).where(VocabularyTerm.kind == "tag")))
    return any(len(carriers[slug]) > 1 and (len(spellings[slug]) > 1 or (named and slug not in named))
               for slug in carriers)


def _slugs_claimed(session: Session, added: Iterable[Record]) -> bool:
    """Whether a new story's slug is another story's former one, or it has former slugs of its own (an address
    given out twice is named at each story claiming it)."""
    slugs = set()
    for story in added:
        if story.data.get("formerly"):
            return True
        slugs.add(story.key)
    if not slugs:
        return False
    return any(slugs & set(formerly or ()) for formerly in session.scalars(select(Story.formerly)))
