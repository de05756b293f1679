"""Commands on one record: edit it under optimistic locking, and show its history."""

from __future__ import annotations

from typing import Any

import click

from issues.assembly import load_issue, require_changeable
from issues.stories import move_story
from issues.revisions import Change
from issues.workflow import recheck_after_change, status_advice
from newsroom import editing
from newsroom.checks import changes
from newsroom.cli import (App, content_errors, editor_option, editor_options, pass_app, reason_label,
                          reason_language, report_warnings)
from newsroom.content.yamlio import dump
from newsroom.diagnostics import ContentError, Diagnostic, first_of
from newsroom.models import CREATED, DELETED, UNPUBLISHED
from newsroom.rename import rename as rename_record

KIND = click.Choice(editing.KINDS)


def _parse_assignment(text: str, kind: str, languages: tuple[str, ...]) -> tuple[str, Any]:
    """`field=value`, its value read as a content file's (see editing.typed_value): `[a, b]` and `{…}` as
    YAML, a text field's value as typed, another's as YAML reads it (a number, a date).

    `field=` removes the field. Plain text is never read as a YAML mapping, so `en.headline=Chips: the week`
    stays a headline.
    """
    if "=" not in text:
        raise click.BadParameter(f"{text!r}: expected FIELD=VALUE, e.g. en.headline='A new headline'")
    path, raw = text.split("=", 1)
    try:
        return path.strip(), editing.typed_value(kind, path.strip(), raw, languages)
    except ContentError as error:
        problems = "; ".join(f"{d.field}: {d.message}" if d.field else d.message for d in error.diagnostics)
        raise click.BadParameter(f"{text!r}: not a valid YAML list or mapping ({problems})") from None
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--set") from None


def _named(key: str, kind: str | None) -> tuple[str | None, str]:
    """(kind, key) of `kind:key`, or of a bare key and --kind."""
    prefix, _, rest = key.partition(":")
    return (prefix, rest) if rest and prefix in editing.KINDS else (kind, key)


def _open(app: App, session: Any, key: str, kind: str | None) -> editing.Loaded:
    """The record KEY names: `slug`, an issue number, or `kind:key` as in Markdown links (`entry:trainium`)."""
    kind, key = _named(key, kind)
    try:
        return editing.load(session, kind or editing.find_kind(session, key), key, app.settings.languages)
    except editing.NotFound as error:
        raise click.ClickException(str(error)) from None


@click.command()
@click.argument("key")
@click.option("--kind", type=KIND, help="The record's kind, when the key alone is ambiguous.")
@click.option("--set", "assignments", multiple=True, metavar="FIELD=VALUE",
              help="Set a field (dotted for texts: en.headline=…; an item of a list: sources[0].url=…; FIELD= removes "
                   "it); repeatable. Without it, print the record.")
@click.option("--expect-version", type=int, help="The version you started from; refuse to save if it moved on.")
@editor_options
@pass_app
@content_errors
def edit(app: App, key: str, kind: str | None, assignments: tuple[str, ...], expect_version: int | None,
         editor: str, correction: bool, reason: str | None, reason_lang: str | None) -> None:
    """Show or change one record (entry, story, page, issue); never overwrites a newer version.

    A change that would give the record an error that stops every build (a missing translation, a
    link to nothing) is refused, as is one that leaves a scheduled or published issue unpublishable,
    or makes the published Method page a draft (every page and email links to it: change its text
    instead); a published issue or its story changes only with --correction and a --reason, which
    readers are shown. The record's warnings are printed as `newsroom check` words them, then those the edit
    left on other records (a link to an entry made a draft); they stop nothing."""
    change = Change(editor, app.now(), app.settings.languages, reason, reason_language(app, reason_lang))
    with app.transaction() as session:
        loaded = _open(app, session, key, kind)
        if not assignments:
            click.echo(f"# {loaded.kind} {loaded.key}, version {loaded.version}")
            click.echo(dump(loaded.record), nl=False)
            return
        if expect_version is not None:
            loaded = editing.Loaded(loaded.kind, loaded.key, expect_version, loaded.record)
        record, paths = loaded.record, set()
        for assignment in assignments:
            path, value = _parse_assignment(assignment, loaded.kind, app.settings.languages)
            try:
                record = editing.assign(record, path, value)
            except ValueError as error:
                raise click.BadParameter(str(error), param_hint="--set") from None
            paths.add(path)
        if loaded.kind == "issue":
            _workflow_fields_unchanged(session, app, loaded, record)
        issues = _issues_of(loaded, record)
        before = changes.watch(session, {f"{loaded.kind}:{loaded.key}", *(f"issue:{number}" for number in issues)})
        for number in issues:
            require_changeable(load_issue(session, number), correction, change.reason)
        place = _new_place(loaded, record, "position" in paths)
        try:
            if place is not None:  # it moves as `story move` moves it, the rest of the edit saved with it
                version, warnings = _move(session, loaded, record, change, place, correction), None
            elif issues:  # an issue and its stories are checked as the workflow checks them (below)
                version, warnings = editing.save(session, loaded, record, change.languages, change.now,
                                                 change.editor, change.reason, change.reason_lang), None
            else:
                version, warnings = _save_buildable(session, app, loaded, record, change)
        except editing.Conflict as conflict:
            session.rollback()
            raise click.ClickException(str(conflict)) from None
        for number in issues:
            recheck_after_change(session, app.settings, change, number)
        if warnings is None and version != loaded.version:
            warnings = changes.stored_warnings(session, app.settings, change.now, {f"{loaded.kind}:{loaded.key}"})
        elsewhere = [] if version == loaded.version else \
            changes.brought(before, session, app.settings, change.now, {f"{loaded.kind}:{loaded.key}"})
    if version == loaded.version:  # the fields set already held those values
        app.say(f"{loaded.kind} {loaded.key}: no change (version {version} stays)")
    else:
        app.say(f"{loaded.kind} {loaded.key}: saved as version {version}")
    report_warnings(warnings or [], "in what was saved")
    report_warnings(elsewhere, "the edit left on other records")


def _move(session: Any, loaded: editing.Loaded, record: dict[str, Any], change: Change,
          place: tuple[int, str, int | None], correction: bool) -> int:
    """Move the story `loaded` to `place` as `story move` does (the stories around it renumbered), saving the
    rest of the edit with it in one revision (one correction of a published issue); returns its version."""
    saved: list[int] = []

    def save_at(story: Any, issue: Any, section: Any, position: int) -> None:
        placed = {**record, "issue": issue.number, "section": section.slug, "position": position}
        saved.append(editing.save(session, loaded, placed, change.languages, change.now, change.editor,
                                  change.reason, change.reason_lang))

    number, section, position = place
    move_story(session, change, loaded.key, section, position, correction, number, save_at)
    session.flush()
    return saved[-1]


def _save_buildable(session: Any, app: App, loaded: editing.Loaded, record: dict[str, Any], change: Change
                    ) -> tuple[int, list[Diagnostic]]:
    """Save the edit of an entry or a page unless it gives the content an error that stops every build (one
    it had already may stay: an edit may fix one problem of several; see `changes.buildable`): its version,
    and the record's warnings."""
    return changes.buildable(session, lambda: editing.save(session, loaded, record, change.languages, change.now,
                                                           change.editor, change.reason, change.reason_lang),
                             lambda version: {f"{loaded.kind}:{loaded.key}"} if version != loaded.version else set(),
                             app.settings, change.now)


def _workflow_fields_unchanged(session: Any, app: App, loaded: editing.Loaded, record: dict[str, Any]) -> None:
    """An issue's status and publication time change through the workflow, which checks each step (an
    issue is never unpublished: its feeds and emails have gone out with that time)."""
    changed = [name for name in ("status", "published_at") if record.get(name) != loaded.record.get(name)]
    if changed:  # one refusal for both fields: the advice is the same
        advice = status_advice(session, app.settings, int(loaded.key))
        raise ContentError([Diagnostic(f"issue:{loaded.key}", None, ", ".join(changed), advice)])


#: A story's place: what `story move` changes.
PLACE = ("issue", "section", "position")


def _new_place(loaded: editing.Loaded, record: dict[str, Any], position_given: bool
               ) -> tuple[int, str, int | None] | None:
    """(issue, section, position) when an edit moves a story to another issue or section, or to another place
    in its section; position None unless the edit gives one (`position_given`): the story then goes last
    there, as with `story add`. None otherwise, and for values of the wrong type, which saving the record
    names."""
    if loaded.kind != "story" or all(record.get(name) == loaded.record.get(name) for name in PLACE):
        return None
    number, section, position = (record.get(name) for name in PLACE)
    if not isinstance(number, int) or not isinstance(section, str) or not section \
            or not isinstance(position, int) or isinstance(position, bool) or position < 1:
        return None
    return number, section, position if position_given else None


def _issues_of(loaded: editing.Loaded, record: dict[str, Any]) -> list[int]:
    """The issues an edit changes: an issue's own number; a story's issue, and the one it moves to."""
    if loaded.kind == "issue":
        return [int(loaded.key)]
    if loaded.kind == "story":
        numbers = {loaded.record.get("issue"), record.get("issue")}
        return sorted(number for number in numbers if isinstance(number, int))
    return []


@click.command()
@click.argument("key")
@click.option("--kind", type=KIND, help="The record's kind, when the key alone is ambiguous.")
@click.option("--expect-version", type=int, help="The version you started from; refuse to delete if it moved on.")
@editor_options
@pass_app
@content_errors
def delete(app: App, key: str, kind: str | None, expect_version: int | None, editor: str, correction: bool,
           reason: str | None, reason_lang: str | None) -> None:
    """Delete one record (entry, story, page, an empty draft issue); its last version is kept.

    Refused when another record would then have an error (a story naming a deleted entry among its
    terms, a text linking to it: change those first). A story of a published issue goes only with
    --correction and a --reason (the issue page lists it as removed, with that reason). `newsroom history
    KEY --show N` prints the deleted version back as a content file, for `newsroom import`. The warnings it
    leaves on other records (a relation to it, shown as plain text) are printed, and how many."""
    with app.transaction() as session:
        loaded = _open(app, session, key, kind)
        if expect_version is not None:
            loaded = editing.Loaded(loaded.kind, loaded.key, expect_version, loaded.record)
        try:
            warnings = editing.delete(session, loaded, app.settings, app.now(), editor, reason, correction,
                                      reason_language(app, reason_lang))
        except editing.Conflict as conflict:
            session.rollback()
            raise click.ClickException(str(conflict)) from None
    app.say(f"{loaded.kind} {loaded.key}: deleted (version {loaded.version} is kept: "
            f"newsroom history {loaded.kind}:{loaded.key} --show {loaded.version})")
    report_warnings(warnings, "the deletion left on other records")


@click.command()
@click.argument("key")
@click.argument("new_slug", metavar="NEW-SLUG")
@click.option("--kind", type=click.Choice(editing.RENAMED_KINDS), help="The record's kind, when the key alone is "
              "ambiguous.")
@click.option("--expect-version", type=int, help="The version you started from; refuse to rename if it moved on.")
@click.option("--reason", help="Why: kept with the revisions (default: what was renamed).")
@editor_option
@pass_app
@content_errors
def rename(app: App, key: str, new_slug: str, kind: str | None, expect_version: int | None, reason: str | None,
           editor: str) -> None:
    """Give an entry, a story, a reference page or a site page a new slug (and address), keeping its history.

    The old slug goes to the record's `formerly`: its old address sends readers on to the new one (a story's
    old anchor stays on its issue's pages). Every reference to it — relations, stories' terms,
    `entry:`/`page:` links in any text — is rewritten, each record kept as a revision; readers see the same
    text, so a published issue's story changes without --correction and is not listed among its corrections.
    The warnings of the records it stored are printed as `newsroom check` words them, then those it left on
    other records; they stop nothing."""
    now = app.now()
    with app.transaction() as session:
        loaded = _open(app, session, key, kind)
        if expect_version is not None:
            loaded = editing.Loaded(loaded.kind, loaded.key, expect_version, loaded.record)
        before = changes.watch(session, {f"{loaded.kind}:{loaded.key}"})
        try:
            done = rename_record(session, loaded, new_slug, app.settings, now, editor, reason)
        except editing.Conflict as conflict:
            session.rollback()
            raise click.ClickException(str(conflict)) from None
        renamed = f"{loaded.kind}:{new_slug}"
        elsewhere = changes.brought(before, session, app.settings, now, {renamed, *done.rewritten}, {renamed})
    rewritten = f"; its references rewritten in {first_of(done.rewritten)}" if done.rewritten else ""
    kept = "its old anchor stays on its issue's pages" if loaded.kind == "story" else \
        "its old address sends readers on"
    app.say(f"{loaded.kind} {loaded.key} is now {loaded.kind}:{new_slug} (version {done.version}){rewritten}; {kept}")
    report_warnings(done.warnings, "in what was saved")
    report_warnings(elsewhere, "the renaming left on other records")


@click.command()
@click.argument("key")
@click.option("--kind", type=KIND, help="The record's kind, when the key alone is ambiguous.")
@click.option("--show", "show", type=int, metavar="N", help="Print version N of the record as YAML.")
@pass_app
@content_errors
def history(app: App, key: str, kind: str | None, show: int | None) -> None:
    """List the versions of one record: version, when, who, which fields changed."""
    kind, key = _named(key, kind)
    with app.reading() as session:
        current: editing.Loaded | None
        try:
            current = editing.load(session, kind or editing.find_kind(session, key), key, app.settings.languages)
            kind, revisions = current.kind, editing.history(session, current.kind, current.key)
        except editing.NotFound as error:
            gone = None if isinstance(error, editing.Ambiguous) else editing.deleted(session, key, kind)
            if gone is None:
                raise click.ClickException(str(error)) from None
            current, (kind, revisions) = None, gone
    kept = [r for r in revisions if r.version > 0]  # version 0: "created" marks, no earlier content
    if show is not None:
        snapshots = {r.version: r.snapshot for r in kept}
        if current is not None:
            snapshots[current.version] = current.record
        if show not in snapshots:
            raise click.ClickException(f"{kind} {key!r} has no version {show}; "
                                       f"kept: {', '.join(map(str, sorted(snapshots)))}")
        click.echo(dump(snapshots[show]), nl=False)
        return
    if current is None:
        last = revisions[-1]
        click.echo(f"{kind} {key}: deleted {last.changed_at.isoformat(timespec='seconds')} by {last.changed_by}"
                   f"{f' ({_reason(app, last)})' if last.reason else ''}; `--show {last.version}` prints its last "
                   "version, which `newsroom import` brings back")
        revisions = revisions[:-1]
    else:
        click.echo(f"{kind} {key}: version {current.version} is current")
    newest = max([r.version for r in revisions] + [current.version if current is not None else 0])
    # In the order they happened: a record made again under a deleted one's key is marked "created" (as
    # version 0) after that deletion.
    revisions = sorted(revisions, key=lambda r: (r.changed_at, r.version))
    for index, revision in reversed(list(enumerate(revisions))):
        when = revision.changed_at.isoformat(timespec="seconds")
        if DELETED in revision.changed_fields:  # an earlier record under this key, or this one
            why = f"  ({_reason(app, revision)})" if revision.reason else ""
            later = newest > revision.version  # a record made again under its key
            again = f", version {revision.version + 1} was made again under its key" if later else ""
            click.echo(f"  deleted    {when}  {revision.changed_by}{why}; it was version {revision.version}{again}")
            continue
        fields = ", ".join(field for field in revision.changed_fields if field != UNPUBLISHED) or "-"
        why = f" — {_reason(app, revision)}" if revision.reason else ""  # as `issue corrections` words it
        made = revision.version + 1
        if revision.version == 0:  # a "created" mark: the version after the last deletion before it, if any
            made = next((r.version + 1 for r in reversed(revisions[:index]) if DELETED in r.changed_fields), 1)
        click.echo(f"  version {made}  {when}  {revision.changed_by}  changed: {fields}{why}")
    origin = _undated_origin(revisions, kept, current)
    if origin:
        click.echo(origin)


def _reason(app: App, revision: Any) -> str:
    """A revision's reason with its language where that is not the site's first (as `issue corrections`)."""
    return reason_label(revision.reason, revision.reason_lang, app.settings.languages)


def _undated_origin(revisions: list[Any], kept: list[Any], current: editing.Loaded | None) -> str | None:
    """The line of a record's first version when no creation mark dates it (one made before creations were
    recorded): when it was stored, if it never changed since; else only that it is the oldest kept."""
    if revisions and CREATED in revisions[0].changed_fields:
        return None  # listed, with when and by whom
    if kept:
        return (f"  version {kept[0].version}  (the oldest kept; when and by whom it was created was not recorded: "
                "before this release, only a story added to a published issue was)")
    if current is not None and current.stored_at is not None:
        return (f"  version {current.version}  {current.stored_at.isoformat(timespec='seconds')}  created (by whom "
                "was not recorded: before this release, only a story added to a published issue was)")
    return None


COMMANDS = [edit, delete, rename, history]
