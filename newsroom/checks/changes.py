"""Whether a change may be stored, and what `newsroom check` says of what it stored.

The commands that store content check it with the change made, as `newsroom check` would: `import`, `edit`
and `rename` refuse a change that gives it an error which stops every build, and that it did not have
(`buildable`; the `issue` and `story` commands leave that to the workflow, and `delete` compares the whole
content before and after: `all_problems`). Each then says the warnings of the records it stored as `check`
words them (`stored_warnings`, `as_check_words`, `with_own`), then those its change left on other records
(`watch` before it, `brought` after it: checked again only when it changed what other records' findings read
of it, and then only at the records that may read it). The content checked is read from what the last build
remembered wherever a record is unchanged (`remembered`), so each check reads only what changed since.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from issues.visibility import drafts_of
from issues.workflow import as_draft_work, public_issues_of, untranslated
from newsroom.build import urls
from newsroom.build.model import Content, Record, load_content, load_records
from newsroom.checks import check_content, markdown_texts
from newsroom.checks.reaching import may_reach
from newsroom.content.records import site_to_record
from newsroom.diagnostics import ContentError, Diagnostic, in_report_order
from newsroom.drafts import as_draft_problem, draft_locations, method_kept_published
from newsroom.models import Page
from newsroom.settings import Settings

if TYPE_CHECKING:
    from newsroom.build.memos import Memo

T = TypeVar("T")


def blocking_problems(session: Session, settings: Settings, now: dt.datetime, recheck: Collection[str]
                      ) -> set[Diagnostic]:
    """The errors that stop every build which a change of the records at `recheck` (locations such as
    `entry:gpu`) may have brought, as `newsroom check` words them: those records' own, and the
    content-wide ones of every record (see check_content's `recheck`). None of a draft issue or its stories
    (see issues.visibility.drafts_of), nor of a draft entry or reference page (see newsroom.drafts). An
    issue's stories are rechecked with it, which may have made them public."""
    return _problems(session, settings, now, recheck, publishable=False).blocking


@dataclass(frozen=True)
class _Found:
    """What `_problems` finds: the errors that stop every build; the warnings of the records it was asked
    about, as `newsroom check` words them; with `publishable`, the errors that keep the scheduled or published
    issues it looked at (`public`) from going out as they are, and which issues those are in."""

    blocking: set[Diagnostic]
    warnings: list[Diagnostic] = field(default_factory=list)
    held: set[Diagnostic] = field(default_factory=set)
    public: frozenset[int] = frozenset()
    held_issues: tuple[int, ...] = ()


def _problems(session: Session, settings: Settings, now: dt.datetime, recheck: Collection[str], publishable: bool,
              public: Collection[int] | None = None) -> _Found:
    """`blocking_problems`, the warnings of the records at `recheck` (their own and the content-wide ones
    placed at them; a draft's errors among them, see `as_check_words`), and with `publishable` the parts
    missing in a language of a scheduled or published issue among those `recheck` names (its own record, or
    its stories') — or of the issues `public`, when given —, which keep it from going out as it is (see
    issues.workflow.untranslated)."""
    session.flush()
    with remembered(session) as (content, memo):
        asked = set(recheck)
        issues = {location.partition(":")[2] for location in recheck if location.startswith("issue:")}
        recheck = {*recheck, *(story.location for story in content.stories.values()
                               if str(story.data["issue"]) in issues)}
        drafts, unpublished = drafts_of(content), draft_locations(content)
        hidden = {*drafts, *unpublished}
        today = now.astimezone(settings.zone).date()
        found = check_content(content, settings, today, memo=memo, recheck=recheck)
        blocking = {problem for problem in found if problem.severity == "error" and problem.location not in hidden}
        warnings = _as_check_words([problem for problem in found if problem.location in asked and (
            problem.severity == "warning" or problem.location in hidden)], content, settings, drafts, unpublished)
        if not publishable:
            return _Found(blocking, warnings)
        public = frozenset(public_issues_of(content, recheck) if public is None else public)
        held = untranslated(content, settings, public) - blocking
        return _Found(blocking, warnings, held, public,
                      tuple(sorted(public_issues_of(content, [p.location for p in held]))))


def as_check_words(problems: Iterable[Diagnostic], content: Content, settings: Settings) -> list[Diagnostic]:
    """`problems` as `newsroom check` reports them: an error of a draft entry or page, or of a draft issue or
    its stories, is a warning saying when it is to be fixed (work in progress stops no build; see
    newsroom.drafts.as_draft_problem and issues.workflow.as_draft_work)."""
    return _as_check_words(problems, content, settings, drafts_of(content), draft_locations(content))


def _as_check_words(problems: Iterable[Diagnostic], content: Content, settings: Settings, drafts: Mapping[str, int],
                    unpublished: Collection[str]) -> list[Diagnostic]:
    """`as_check_words`, with the content's draft issues' records (`drafts`: their issue, by location) and its
    draft entries' and pages' locations (`unpublished`) found already."""
    return [as_draft_problem(problem) if problem.location in unpublished
            else as_draft_work(problem, content, settings, drafts.get(problem.location)) for problem in problems]


def stored_warnings(session: Session, settings: Settings, now: dt.datetime, stored: Collection[str]
                    ) -> list[Diagnostic]:
    """The warnings of the records at `stored` (locations) once a change has stored them, as `buildable`
    returns them: for a change the workflow checks instead (`edit` of an issue or a story, the `issue` and
    `story` commands)."""
    return _problems(session, settings, now, stored, publishable=False).warnings


def with_own(own: Iterable[Diagnostic], stored: Sequence[Diagnostic]) -> list[Diagnostic]:
    """The warnings `stored` (of the records a command stored: see stored_warnings), and those a command found
    in its own options (`own`) that the check did not find too: each said once, in `newsroom check`'s words
    where both found it (an unknown term of a draft issue's story is one warning, saying when to fix it). Both
    found it when the check has a warning of its code at its record and field: however either words it."""
    found = {(said.location, said.field, said.code) for said in stored if said.code}
    return [*stored, *(warning for warning in own if (warning.location, warning.field, warning.code) not in found)]


#: Where `remembered` keeps the memos it read in the session's `info`, for the command's next check.
_MEMOS = "newsroom.check_memos"


@contextmanager
def remembered(session: Session) -> Iterator[tuple[Content, Memo | None]]:
    """The content as `session` sees it, and the memo of its records' problems for `check_content`: both
    from what the last build of this code remembered (the records, their problems and the references of
    their texts) wherever a record is unchanged, so checking the whole content reads and parses only what
    changed since. Nothing is stored back. Without such a build (none yet, or one of other code), the
    content read afresh, and memos of its records and their problems that the session's first check fills for
    its next ones (a command saying the warnings its change left on other records checks it again: about 0.1 s
    a check after the first, not 1.3, at the benchmark's scale 1.0, and the records read again only where the
    change stored them)."""
    from newsroom.build.pipeline import code_version  # the build's code: loaded only by a command that checks
    from newsroom.build.memos import fresh_memos, load_memos
    from newsroom.render.markdown import remembered_references

    memos, built = session.info.get(_MEMOS, (None, False))
    if memos is None:  # read once a session, for each of its checks
        memos = load_memos(session, ["records", "checks", "references"], code=code_version())
        built = not memos["records"].empty
        if not built:
            memos.update(fresh_memos(["records", "checks"]))
        session.info[_MEMOS] = (memos, built)
    if not built:
        yield load_content(session, memos["records"]), memos["checks"]
        return
    with remembered_references(memos["references"]):
        yield load_content(session, memos["records"]), memos["checks"]


def buildable(session: Session, store: Callable[[], T], touched: Callable[[T], Collection[str]], settings: Settings,
              now: dt.datetime, fix: str | None = None, publishable: bool = False) -> tuple[T, list[Diagnostic]]:
    """What `store()` returns once it has written a change into `session`, and the warnings of the records it
    stored, unless the change gives the content an error that stops every build and that it did not have (one
    it had already may stay: a change may fix one problem of several): then ContentError naming those, ending
    with `fix`; nothing stored. With `publishable`, nor may it give a scheduled or published issue it touches
    an error that keeps it from going out as it is (`newsroom issue publish` refuses them; see `_problems`).

    `touched(result)` names the records the change created or changed (see blocking_problems). The errors
    are worked out after the change, and before it only when there are some (a savepoint holds the change
    meanwhile; it is then made again). The warnings are those the same check finds at those records, every
    one of them (their own and the content-wide ones placed there, as `newsroom check` words them), not only
    those the change brought: telling those apart would check the content a second time before each change.
    Nor may it make the published Method page a draft (see newsroom.drafts.method_kept_published), which
    would stop every public build, `email` and `send`."""
    published = _method_state(session) is False
    change = session.begin_nested()
    result = store()
    rechecked = touched(result)
    if not rechecked:
        change.commit()
        return result, []  # nothing changed
    if published and f"page:{urls.METHOD}" in rechecked and _method_state(session):
        change.rollback()
        raise ContentError([method_kept_published()], fix)
    after = _problems(session, settings, now, rechecked, publishable)
    if not after.blocking and not after.held:
        change.commit()
        return result, after.warnings
    change.rollback()
    before = _problems(session, settings, now, rechecked, publishable, after.public)
    blocking, held = after.blocking - before.blocking, after.held - before.held
    if blocking or held:
        raise ContentError(sorted(blocking | held), _refusal(blocking, held, after.held_issues) +
                           (f": {fix}" if fix else ""))
    return store(), after.warnings


def _method_state(session: Session) -> bool | None:
    """Whether the stored Method page is a draft (None: there is none)."""
    session.flush()
    return session.scalar(select(Page.draft).where(Page.kind == "page", Page.slug == urls.METHOD))


def _refusal(blocking: set[Diagnostic], held: set[Diagnostic], issues: Sequence[int]) -> str:
    """Why `buildable` refuses a change that brings the errors `blocking` and `held` (see _Found)."""
    these = "this error" if len(blocking | held) == 1 else "these errors"
    if not held:
        return f"every build would stop on {these}, which the content did not have before"
    going = (f"{'issues' if len(issues) > 1 else 'issue'} {', '.join(map(str, issues))}, scheduled or published, "
             "would go out with a part missing in a language (`newsroom issue publish` refuses that)")
    if not blocking:
        return f"with {these}, {going}"
    return f"with {these}, every build would stop, and {going}"


@dataclass(frozen=True)
class Watched:
    """The records a change may store (`locations`), as they were before it (`records`, by location; an issue's
    stories with it), and the site file when it is among them: what `brought` compares the change with."""

    locations: frozenset[str]
    records: Mapping[str, Record]
    site: Mapping[str, Any] | None = None


def watch(session: Session, locations: Collection[str]) -> Watched:
    """The records at `locations` (`entry:gpu`, `issue:13`: with its stories, `site`) before a change that may
    store them: a few rows read, not the whole content (see `brought`)."""
    session.flush()
    site = (site_to_record(session) or {}) if "site" in locations else None
    return Watched(frozenset(locations), load_records(session, locations), site)


def brought(before: Watched, session: Session, settings: Settings, now: dt.datetime, said: Collection[str],
            stored: Collection[str] = ()) -> list[Diagnostic]:
    """The warnings a change brought to records other than those at `said` (whose warnings the command says
    already): those `newsroom check` finds now and did not find before it, as it says them. `stored` names the
    records the change made that `before` could not watch (a new story, an entry's new slug).

    Only what other records' findings read of a record can bring them one (see `_bearing`: an entry's
    existence, slug, draft state and names, an issue's status and week, a story's place and tags): a change
    of none of that (a definition's text, a headline) brings none, and nothing more is read; nor do stories
    added or moved, or an issue added, that no other record's findings can read (see reaching.may_reach: a few
    rows read). Otherwise the content is checked as it is and as it was (the records changed put back as
    `before` holds them), each time the records' own problems only of those that may have changed with it:
    the changed records, an issue's stories, and the records whose texts link to a changed one; what depends
    on the whole content (places, tags, relations, names, weeks) is found over all of it, as `check` finds
    it."""
    session.flush()
    after = load_records(session, {*before.locations, *stored})
    site = (site_to_record(session) or {}) if before.site is not None else None
    changed = {location for location in {*before.records, *after}
               if _bearing(before.records.get(location), settings) != _bearing(after.get(location), settings)}
    if not changed and site == before.site:
        return []
    if site == before.site and not may_reach(session, before.records, after, before.locations, changed, said):
        return []  # stories added or moved, or an issue added, that no other record's findings read
    with remembered(session) as (content, memo):
        earlier = _as_before(content, before, changed)
        rechecked = _linking(content, settings, changed) | _with_stories((earlier, content), changed)
        today = now.astimezone(settings.zone).date()
        found = [set(as_check_words(check_content(version, settings, today, memo=memo, recheck=rechecked),
                                    version, settings)) for version in (earlier, content)]
    return in_report_order(problem for problem in found[1] - found[0]
                           if problem.severity == "warning" and problem.location not in said)


def _bearing(record: Record | None, settings: Settings) -> tuple[Any, ...] | None:
    """What the findings of other records read of `record` (None: not stored): whether it is there at all,
    and of an entry its draft state, former slugs, relations and names (a link or term naming it, the graph,
    names two entries share), of a page its kind, draft state and former slugs, of an issue its status, week
    and publication (a story's words of a draft issue, overlapping weeks, archive order), of a story its
    issue, section, place, tags and former slugs (shared places, a tag's warning at its first story)."""
    if record is None:
        return None
    data = record.data
    if record.kind == "entry":
        names = [(record.text(lang).get("headword"), record.text(lang).get("aliases"),
                  record.text(lang).get("match_forms")) for lang in settings.languages]
        return record.location, bool(data.get("draft")), data.get("formerly"), repr(data.get("relations")), names
    if record.kind == "issue":
        return record.location, data.get("status"), repr(data.get("week")), str(data.get("published_at"))
    if record.kind == "story":
        return (record.location, data.get("issue"), data.get("section"), data.get("position"), data.get("tags"),
                data.get("formerly"))
    return record.location, bool(data.get("draft")), data.get("formerly")


def _as_before(content: Content, before: Watched, changed: Collection[str]) -> Content:
    """`content` with the records at `changed` as `before` holds them (left out where it holds none)."""
    pools: dict[str, dict[Any, Record]] = {"entry": dict(content.entries), "page": dict(content.pages),
                                           "issue": dict(content.issues), "story": dict(content.stories)}
    for location in changed:
        kind, _, key = location.partition(":")
        pool, found = pools["page" if kind == "reference" else kind], int(key) if kind == "issue" else key
        pool.pop(found, None)
        if location in before.records:
            pool[found] = before.records[location]
    return replace(content, site=content.site if before.site is None else before.site,
                   entries=dict(sorted(pools["entry"].items())), pages=dict(sorted(pools["page"].items())),
                   issues=dict(sorted(pools["issue"].items())), stories=dict(sorted(pools["story"].items())))


def _linking(content: Content, settings: Settings, changed: Collection[str]) -> set[str]:
    """The changed records, and those whose texts link to one of the entries, pages or issues among them
    (`entry:gpu`, `page:x` for a reference page too, `issue:13`): whose own problems may change with them. A
    text naming the address at all counts (a few more rechecked, none missed)."""
    addresses = {f"{'page' if kind == 'reference' else kind}:{key}" for kind, _, key in
                 (location.partition(":") for location in changed) if kind in ("entry", "page", "reference", "issue")}
    found = set(changed)
    if not addresses:
        return found
    # An issue's number may be written with leading zeros (`issue:015`, as its file is named): the same issue; and a
    # link's kind in any case (`Issue:15`, see links._classify).
    naming = re.compile("|".join(re.escape(address).replace("issue:", "issue:0*") for address in sorted(addresses)),
                        re.IGNORECASE)
    for records in (content.entries, content.pages, content.issues, content.stories):
        for record in records.values():
            if any(naming.search(text) for text in markdown_texts(record, settings.languages)):
                found.add(record.location)
    return found


def _with_stories(versions: Iterable[Content], changed: Collection[str]) -> set[str]:
    """The stories of the issues among `changed`, in each version of the content: how `check` words their
    problems depends on their issue's status."""
    numbers = {int(location.partition(":")[2]) for location in changed if location.startswith("issue:")}
    return {story.location for content in versions for story in content.stories.values()
            if story.data["issue"] in numbers}


def all_problems(session: Session, settings: Settings, today: dt.date) -> set[Diagnostic]:
    """Every problem `newsroom check` finds in the content as `session` sees it (raw: a draft's errors as
    errors), read as `remembered` reads it."""
    session.flush()
    with remembered(session) as (content, memo):
        return set(check_content(content, settings, today, memo=memo))
