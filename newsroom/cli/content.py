"""Commands that move content: init, import, export, check."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import click
from sqlalchemy import select
from sqlalchemy.exc import OperationalError, ProgrammingError
from sqlalchemy.orm import Session

from issues.dates import html_datetime
from newsroom import SAMPLE_DIR, editing
from newsroom.build.model import load_content
from newsroom.checks import changes, check_content, no_site
from newsroom.cli import (NOW_ENV, App, content_errors, editor_name, pass_app, reason_lang_option, reason_language,
                          report, report_warnings)
from newsroom.content import manifest
from newsroom.content.exporter import export_all
from newsroom.content.importer import ImportResult, reference_problems
from newsroom.content.reader import Reading, in_files, read_content
from newsroom.content.stored import stored_otherwise
from newsroom.db.errors import cannot_connect, refused_role, shown
from newsroom.db.migrate import SCHEMA_REVISION, copy_before_upgrade, current_revision, refuse_newer, upgrade
from newsroom.db.session import busy, one_state
from newsroom.diagnostics import ContentError, Diagnostic, first_of, place_order, stored_location
from newsroom.drafts import method_draft_problems, without_drafts
from newsroom.models import SiteText, history_key
from newsroom.public_address import AddressUse, public_address_problems


class _DryRun(Exception):
    """Ends an import's transaction with a rollback once its result is known (`import --dry-run`)."""

    def __init__(self, result: ImportResult) -> None:
        super().__init__("a dry run")
        self.result = result


def _import(app: App, paths: list[Path], force: bool = False, editor: str = "import",
            reason: str | None = None, prune: bool = False, correction: bool = False, checked: bool = True,
            dry_run: bool = False, sample: bool = False, reason_lang: str | None = None) -> ImportResult:
    """Import `paths` as `newsroom import` does; with `dry_run`, all of it and then a rollback. With `sample`
    (the bundled sample's files), a record changed here since the sample made it is kept as it is."""
    try:
        return _import_files(app, paths, force, editor, reason, prune, correction, checked, dry_run, sample,
                             reason_lang)
    except _DryRun as done:
        return done.result


def _import_files(app: App, paths: list[Path], force: bool, editor: str, reason: str | None, prune: bool,
                  correction: bool, checked: bool, dry_run: bool, sample: bool = False,
                  reason_lang: str | None = None) -> ImportResult:
    languages = app.settings.languages
    reason_lang = reason_language(app, reason_lang)
    reading = read_content(paths, languages, keep=False)
    if reading.problems:
        raise ContentError([*reading.problems, *_reference_problems(app, reading)])
    loaded = reading.loaded
    bases = None if force else manifest.bases_for(loaded)
    if sample:
        # Each file as the version the sample makes (1) exported it: a record an editor changed or deleted
        # since is newer in the database, and stays ("kept"); one the sample made, at version 1, follows it.
        bases = {(item.kind, item.key): (manifest.Base(item.kind, item.key, 1, item.content_hash), item.location)
                 for item in loaded}
    present = {history_key(item.kind, item.key) for item in loaded}  # a file moved, not removed
    removed = [(path, base) for path, base in manifest.missing(paths)
               if base.kind != "site" and history_key(base.kind, base.key) not in present]
    now = app.now()
    with app.transaction() as session:
        watched = {*(stored_location(item.kind, item.key) for item in loaded),
                   *(stored_location(base.kind, base.key) for _, base in removed)}
        before = changes.watch(session, watched) if checked else None
        result = editing.import_checked(session, loaded, app.settings, now, editor, bases, reason,
                                        "fix and import again (`--no-check` stores the files as they are)",
                                        corrections=correction, checked=checked, reason_required=True,
                                        reason_lang=reason_lang)
        if not prune:
            if removed:
                shown = first_of([str(path) for path, _ in removed])
                click.echo(f"warning: {len(removed)} exported record{'s have' if len(removed) > 1 else ' has'} no "
                           f"file any more ({shown}): kept; `newsroom import --prune` deletes "
                           f"{'them' if len(removed) > 1 else 'it'}", err=True)
        else:
            records = _removed_records(session, removed, languages)
            result.left = editing.delete_all(session, records, app.settings, now, editor, reason, correction,
                                             reason_lang)
            result.deleted.update(record.kind for record in records)
            result.removed.update(f"{record.kind}:{record.key}" for record in records)
        if before is not None and (result.stored or result.removed):
            said = set(result.left)  # (said as the deletions' already)
            result.elsewhere = in_files([warning for warning in changes.brought(before, session, app.settings, now,
                                                                                result.stored, result.stored)
                                         if warning not in said], loaded)
        if dry_run:
            raise _DryRun(result)  # rolls the transaction back
    return result


def _reference_problems(app: App, reading: Reading) -> list[Diagnostic]:
    """The sections, categories, audiences and issues that files with problems, or the others, name and that
    do not exist: named in the same run as the files' own problems (none when there is no database yet)."""
    try:
        with app.reading() as session:
            found = reference_problems(session, reading.loaded, app.settings.languages, reading.partial)
    except click.ClickException:  # no database, or none `newsroom init` made: the files' problems come first
        return []
    return [problem for problems in found.values() for problem in problems]


def _removed_records(session: Session, removed: list[tuple[Path, manifest.Base]], languages: tuple[str, ...]
                     ) -> list[editing.Loaded]:
    """The records whose exported files were removed, each as it was exported; refused (ContentError) when
    one changed in the database since: the removal was decided on what the file showed."""
    records, conflicts = [], []
    for path, base in removed:
        try:
            current = editing.load(session, base.kind, base.key, languages)
        except editing.NotFound:
            continue  # deleted in the database too
        if current.version != base.version:
            conflicts.append(Diagnostic(str(path), None, "", (
                f"{base.kind} {base.key!r} changed in the database since it was exported (version {base.version}, "
                f"now {current.version}), and its file was removed: export again to see the change, or delete it "
                f"with `newsroom delete {base.kind}:{base.key}`")))
            continue
        records.append(current)
    if conflicts:
        raise ContentError(conflicts)
    return records


@click.command()
@click.option("--sample", is_flag=True, help="Also load the bundled sample publication.")
@pass_app
@content_errors
def init(app: App, sample: bool) -> None:
    """Create or upgrade the database schema (Alembic migrations).

    An upgrade cannot be taken back: the earlier newsroom no longer opens the database. Before upgrading a
    SQLite database, init keeps a copy of it beside it (newsroom.db: newsroom-SCHEMA.db) and says where; keep a
    copy of another first (`pg_dump --format=custom --file=before.dump postgresql://…`): every other command run
    on a database of an older schema says how."""
    try:
        before = current_revision(app.engine)  # the first question asked: a database that does not answer is named
    except (OperationalError, ProgrammingError) as error:
        if refused_role(error):
            raise  # told with the grants the role needs (see newsroom.db.errors.explain)
        raise cannot_connect(error, app.db_url) from None
    kept = None
    if before is not None and before != SCHEMA_REVISION:
        refuse_newer(app.engine, before)  # a newer newsroom's database: neither copied nor changed
        kept = copy_before_upgrade(app.db_url, before)  # an upgrade cannot be taken back
    try:
        upgrade(app.engine)
    except OperationalError as error:
        if busy(error):
            raise
        raise click.ClickException(f"cannot open the database {shown(app.db_url)}: {error.orig}") from None
    after = current_revision(app.engine)
    copy = f"; the database as it was is kept in {kept}, which the earlier newsroom opens" if kept else ""
    upgraded = f" (upgraded from schema {before} to {after}{copy})" if before is not None and before != after else ""
    app.say(f"database ready: {shown(app.db_url)}{upgraded}")
    if not sample and not _has_site(app):
        app.say("no publication here yet: write site.yaml and pages/method.yaml, then `newsroom import site.yaml "
                "pages/` (README, \"A publication of your own\"); or load the sample: `newsroom init --sample`")
    if sample:
        try:
            result = _import(app, [SAMPLE_DIR], sample=True)
        except ContentError as error:
            raise ContentError(error.diagnostics, _sample_refused(app)) from None
        app.say(f"sample publication: {result.summary()}")
        report_warnings(result.warnings, "in what was imported")


def _has_site(app: App) -> bool:
    """Whether a site file is stored: without one, `check` and `build` stop, so `init` says what comes next."""
    with app.reading() as session:
        return session.scalar(select(SiteText.lang).limit(1)) is not None


def _sample_refused(app: App) -> str | None:
    """Why the sample publication was refused, when its files' diagnostics do not say it all: records stored
    here that it would change, or a clock before the time its last issue is published."""
    reading = read_content([SAMPLE_DIR], app.settings.languages, keep=False)
    with app.reading() as session:
        stored = stored_otherwise(session, reading.loaded, app.settings.languages)
    if stored:
        return (f"the sample publication would change records stored here ({first_of(stored)}): run `newsroom "
                "init` without --sample to create or upgrade the schema alone")
    times = [dt.datetime.fromisoformat(str(item.record["published_at"])) for item in reading.loaded
             if item.kind == "issue" and item.record.get("published_at")]
    now = app.now()
    if times and max(times) > now:
        zone = app.settings.zone
        clock = f", as ${NOW_ENV} sets it" if os.environ.get(NOW_ENV) else ""
        return (f"the sample publication's last issue is published at "
                f"{html_datetime(max(times), zone)}, after the clock ({html_datetime(now, zone)}{clock}): load it "
                "with a later clock")
    return None


@click.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--force", is_flag=True,
              help="Ignore the export manifest: store every file even over newer versions in the database.")
@click.option("--editor", default="import", show_default=True, callback=editor_name,
              help="Who is recorded as making the changes (history, an issue's corrections).")
@click.option("--reason", help="Why: recorded with each change, and shown with a published issue's corrections.")
@reason_lang_option
@click.option("--prune", is_flag=True,
              help="Also delete the records whose files were removed from an exported folder (as `delete` would).")
@click.option("--correction", is_flag=True,
              help="Allow changing a published issue or its stories (each change listed among its corrections, "
                   "with --reason, which it needs), and with --prune deleting a story of one.")
@click.option("--no-check", "unchecked", is_flag=True,
              help="Store the files even when the content then has errors that stop every build (a backup restored "
                   "as it was); `newsroom check` lists them.")
@click.option("--dry-run", is_flag=True,
              help="Make and check the import, say which records it would change or delete, then store nothing.")
@pass_app
@content_errors
def import_(app: App, paths: tuple[Path, ...], force: bool, editor: str, reason: str | None,
            reason_lang: str | None, prune: bool, correction: bool, unchecked: bool, dry_run: bool) -> None:
    """Upsert content files (files or folders) in one transaction.

    An import that would give the content an error that stops every build (a missing translation, a
    link to nothing, a citation without its source) is refused, naming each in its file; errors the
    content had already, and a draft issue's work in progress, do not stop it (--no-check: none does).

    Files from `newsroom export` are compared with the versions they were exported
    from: an edit to a record that also changed in the database since is refused.
    A change to a published issue or its stories needs --correction and --reason, and is
    listed among its corrections with that reason.
    A file removed from an exported folder is reported; --prune deletes its record.
    The warnings of the records stored are printed as `newsroom check` words them, in their files at their
    fields' lines (a draft's errors among them), then those the import brought to records it did not store (a
    story linking to an entry made a draft; in its file, if one of the import's), then those --prune's
    deletions left on other records, as `delete` prints them, each with how many; they stop nothing.
    """
    result = _import(app, list(paths), force, editor, reason, prune, correction, not unchecked, dry_run,
                     reason_lang=reason_lang)
    if dry_run:
        for key in sorted(result.stored, key=place_order):
            app.say(f"would change {key}")
        for key in sorted(result.removed, key=place_order):
            app.say(f"would delete {key}")
        app.say(f"{result.summary()} (a dry run: nothing was stored)")
        report_warnings(result.warnings, "in what would be imported")
        report_warnings(result.elsewhere, "the import would leave on records it would not store")
        report_warnings(result.left, f"the {_deletions(result)} would leave on other records")
        return
    app.say(result.summary())
    report_warnings(result.warnings, "in what was imported")
    report_warnings(result.elsewhere, "the import left on records it did not store")
    report_warnings(result.left, f"the {_deletions(result)} left on other records")


def _deletions(result: ImportResult) -> str:
    """"deletion" or "deletions", as --prune deleted one record or more."""
    return "deletion" if sum(result.deleted.values()) == 1 else "deletions"


@click.command()
@click.argument("out", type=click.Path(file_okay=False, path_type=Path), required=False)
@click.option("--skos", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the glossary as a SKOS concept scheme (Turtle) to this file.")
@pass_app
@content_errors
def export(app: App, out: Path | None, skos: Path | None) -> None:
    """Write every record back to content files under OUT (a full backup), and/or the glossary as SKOS."""
    if out is None and skos is None:
        raise click.UsageError("give a folder OUT, --skos FILE, or both")
    with app.reading() as session:
        one_state(session)  # a backup of one state, whatever an import commits meanwhile
        if out is not None:
            exported = export_all(session, out, app.settings.languages)
            removed = (f"; {len(exported.removed)} removed (their records are deleted or renamed)"
                       if exported.removed else "")
            app.say(f"{exported.files} files exported to {out}{removed}")
            for relative in exported.kept:
                now = exported.renamed.get(relative)
                if now is not None:
                    click.echo(f"{out / relative}: warning: its record was renamed to {now}, but the file was edited "
                               f"since the last export, so it stays: make the edit in the file of {now}, then delete "
                               "this one", err=True)
                    continue
                click.echo(f"{out / relative}: warning: its record is deleted, but the file was edited since the "
                           "last export, so it stays: delete it, or import it to bring the record back", err=True)
        content = load_content(session) if skos is not None else None
    if skos is not None and content is not None:
        from glossary.skos import write_skos  # its RDF library: loaded by this export alone, not by every command here

        # The published glossary: a draft is no concept of it yet, and a relation to one is left out.
        concepts = write_skos(without_drafts(content), app.settings.base_url, app.settings.languages, skos)
        app.say(f"{concepts} concepts written to {skos} (SKOS, Turtle)")
        report(public_address_problems(app.settings, uses=AddressUse(
            f"the concepts of {skos} are named by addresses under", "base_url",
            "before publishing the file (its concepts' names are meant to stay)")))


@click.command()
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
@pass_app
@content_errors
def check(app: App, strict: bool) -> None:
    """Report every problem in the stored content; exit 1 on errors.

    A draft issue's problems, and its stories', are reported as warnings: work in progress stops no build
    until the issue is scheduled or published (`issue schedule` and `issue publish` refuse them). So are
    a draft entry's or reference page's, until it is published (`edit --set draft=false` refuses them), and
    a base_url no reader reaches or one that is not HTTPS, as a public build warns of it."""
    with app.reading() as session:
        one_state(session)
        with changes.remembered(session) as (content, memo):
            problems = changes.as_check_words(check_content(content, app.settings, app.today(), memo=memo), content,
                                              app.settings)
            # The address the next public build gives readers, warned of as `build` warns of it.
            problems += [*method_draft_problems(content), *public_address_problems(app.settings)]
            unbuildable = list(no_site(content))
    # No site file stops every build, which says it alone: said first, before the rest (by place).
    said = report([*unbuildable, *problems])
    errors = sum(1 for p in said if p.severity == "error")
    warnings = len(said) - errors
    if said:  # each counted as printed; --strict fails on warnings too, and says so
        failing = ": --strict fails on warnings" if strict and warnings else ""
        click.echo(f"{errors} error(s), {warnings} warning(s){failing}", err=True)
    if errors or (strict and warnings):
        raise SystemExit(1)


COMMANDS = [init, import_, export, check]
