"""Stories of an issue: `newsroom story add`, `story edit` and `story move`.

Each command parses its arguments, runs one transaction through the domain
(`issues.stories`, `issues.workflow`) and reports. Any refusal prints
`place: field: message`, exits 1 and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from issues import stories, workflow
from issues.models import Story
from issues.queries import story_by_slug
from newsroom.checks import changes
from newsroom.cli import App, content_errors, editor_options, pass_app, report_warnings
from newsroom.cli.issue import NUMBER, PLACE, change_by, option_texts, saved_warnings, text_options
from newsroom.content.reader import LoadedRecord, in_files, read_text
from newsroom.content.validator import Validator
from newsroom.content.yamlio import parse
from newsroom.diagnostics import ContentError, Diagnostic


@click.group()
def story() -> None:
    """Stories: add, edit, move."""


STORY_TEXTS = ("headline", "summary", "body")


def _sources(urls: tuple[str, ...], publishers: tuple[str, ...], titles: tuple[str, ...],
             langs: tuple[str, ...] = ()) -> tuple[list[dict[str, str]], list[Diagnostic]]:
    """The sources the options give, and the problem with them (named with the command's others)."""
    problems = []
    if max(len(publishers), len(titles), len(langs)) > len(urls):
        problems.append(Diagnostic("--source-url", None, "", "each --publisher/--source-title/--source-lang needs "
                                   "its --source-url (they pair up in order)"))
    sources = []
    for i, url in enumerate(urls):
        publisher = publishers[i] if i < len(publishers) else None
        title = titles[i] if i < len(titles) else (publisher or url)
        lang = langs[i] if i < len(langs) else None
        sources.append({k: v for k, v in (("publisher", publisher), ("title", title), ("url", url),
                                          ("lang", lang)) if v})
    return sources, problems


def _story_file(path: Path, number: int, languages: tuple[str, ...]) -> dict[str, Any]:
    """A story file's fields, checked with file:line places; issue, slug, section and position may be left
    out (the command and the issue supply them)."""
    location = str(path)
    written: dict[Any, str] = {}  # a plain value's text as written, for a text field (see Validator.written)
    try:
        data, lines = parse(read_text(path, location), location, written)
    except OSError as error:
        raise ContentError([Diagnostic(location, None, "", f"cannot read: {error.strerror}")]) from None
    if not isinstance(data, dict):
        raise ContentError([Diagnostic(location, None, "", "a story file must be a mapping of fields")])
    if data.get("kind", "story") != "story":
        raise ContentError([Diagnostic(location, None, "kind", f"expected a story, got {data.get('kind')!r}")])
    defaults = {"slug": "story", "issue": number, "section": "section", "position": 1}
    validator = Validator(location, lines, languages, written=written)
    record = validator.record({**defaults, **data, "kind": "story"})
    if validator.problems or record is None:
        raise ContentError(validator.problems)
    return {key: value for key, value in record.items() if key in data and key != "kind"}


def story_fields(func: Callable[..., Any]) -> Callable[..., Any]:
    """The options `story add` and `story edit` share."""
    decorators: list[Callable[[Callable[..., Any]], Callable[..., Any]]] = [
        click.option("--section", help="Section slug (from site.yaml)."),
        text_options(*STORY_TEXTS),
        click.option("--source-url", multiple=True, help="Source URL (repeatable)."),
        click.option("--publisher", multiple=True, help="Publisher of the matching --source-url."),
        click.option("--source-title", multiple=True, help="Title of the matching --source-url."),
        click.option("--source-lang", multiple=True, metavar="LANG",
                     help="Language the matching --source-url's title is written in (e.g. en), when a page in "
                          "another language should mark it."),
        click.option("--tag", "tags", multiple=True, help="Tag (repeatable)."),
        click.option("--term", "terms", multiple=True, help="Glossary entry slug it mentions (repeatable)."),
        click.option("--audience", "audiences", multiple=True, help="Audience slug (repeatable)."),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


@story.command("add")
@click.argument("number", metavar="ISSUE", type=NUMBER)
@story_fields
@click.option("--slug", help="Story slug (default: from the headline).")
@click.option("--position", type=PLACE, help="Place in its section, 1 = first (default: last).")
@click.option("--file", "file", type=click.Path(dir_okay=False, path_type=Path), help="A story content file.")
@editor_options
@pass_app
@content_errors
def add(app: App, number: int, section: str | None, source_url: tuple[str, ...], publisher: tuple[str, ...],
        source_title: tuple[str, ...], source_lang: tuple[str, ...], tags: tuple[str, ...], terms: tuple[str, ...],
        audiences: tuple[str, ...], slug: str | None, position: int | None, file: Path | None, editor: str,
        correction: bool, reason: str | None, reason_lang: str | None, **options: Any) -> None:
    """Add a story to issue ISSUE, from options or from --file (options override the file); the warnings of the
    story are printed as `newsroom check` words them (in the file at its field's line, where the file gave the
    field), then those it left on other records; they stop nothing."""
    record = _story_file(file, number, app.settings.languages) if file else {}
    texts = option_texts(STORY_TEXTS, options)
    for lang, fields in texts.items():
        record[lang] = {**(record.get(lang) or {}), **fields}
    sources, problems = _sources(source_url, publisher, source_title, source_lang)
    given = {"section": section, "slug": slug, "position": position, "tags": list(tags) or None,
             "terms": list(terms) or None, "audiences": list(audiences) or None, "sources": sources or None}
    given = {key: value for key, value in given.items() if value is not None}
    record.update(given)
    change = change_by(app, editor, reason, reason_lang)
    with app.transaction() as session:
        before = changes.watch(session, {f"issue:{number}"})  # its stories may be renumbered
        added, warnings = stories.add_story(session, change, number, record, correction, problems)
        workflow.recheck_after_change(session, app.settings, change, number)
        warnings = saved_warnings(session, app, change, f"story:{added.slug}", warnings)
        elsewhere = changes.brought(before, session, app.settings, change.now, {f"story:{added.slug}"},
                                    {f"story:{added.slug}"})
        app.say(f"story {added.slug} added to issue {number}, {added.section.slug} #{added.position}")
    if file:
        optioned = [*given, *(f"{lang}.{name}" for lang, fields in texts.items() for name in fields)]
        warnings = _in_file(warnings, file, added.slug, optioned)
    report_warnings(warnings, "in what was saved")
    report_warnings(elsewhere, "the new story left on other records")


def _in_file(warnings: list[Diagnostic], file: Path, slug: str, optioned: list[str]) -> list[Diagnostic]:
    """`warnings` of the story `slug` added from `file`, each at its field's line in the file (see
    content.reader.in_files), but for those of a field an option gave (`optioned`: `tags`, `en.headline`),
    which has no line: those stay at `story:SLUG`."""
    def from_option(warning: Diagnostic) -> bool:
        return any(warning.field == name or warning.field.startswith((f"{name}.", f"{name}["))
                   for name in optioned)

    in_story_file = in_files([warning for warning in warnings if not from_option(warning)],
                             [LoadedRecord("story", slug, {}, str(file))])
    return [*in_story_file, *(warning for warning in warnings if from_option(warning))]


@story.command("edit")
@click.argument("slug")
@story_fields
@editor_options
@pass_app
@content_errors
def edit_story(app: App, slug: str, section: str | None, source_url: tuple[str, ...], publisher: tuple[str, ...],
               source_title: tuple[str, ...], source_lang: tuple[str, ...], tags: tuple[str, ...],
               terms: tuple[str, ...], audiences: tuple[str, ...], editor: str, correction: bool, reason: str | None,
               reason_lang: str | None, **options: Any) -> None:
    """Change a story's texts, sources, tags, terms or audiences (use `story move` for its place); the warnings
    of the story are printed as `newsroom check` words them, then those the edit left on other records; they
    stop nothing."""
    sources, problems = _sources(source_url, publisher, source_title, source_lang)
    if section:
        problems.append(Diagnostic(f"story:{slug}", None, "section", "use `newsroom story move` to change "
                                   "a story's section"))
    fields = {"tags": list(tags) or None, "terms": list(terms) or None, "audiences": list(audiences) or None,
              "sources": sources or None}
    change = change_by(app, editor, reason, reason_lang)
    with app.transaction() as session:
        before = changes.watch(session, {f"story:{slug}"})
        changed, warnings = stories.edit_story(session, change, slug, fields, option_texts(STORY_TEXTS, options),
                                                correction, problems)
        number = stories.load_story_issue(session, slug)
        workflow.recheck_after_change(session, app.settings, change, number)
        # An edit that stores nothing says no warning, as an unchanged `edit` or `issue edit`: `check` names them.
        warnings = saved_warnings(session, app, change, f"story:{slug}", warnings) if changed else []
        elsewhere = changes.brought(before, session, app.settings, change.now, {f"story:{slug}"}) if changed else []
    app.say(f"story {slug} {'updated' if changed else 'unchanged'}")
    report_warnings(warnings, "in what was saved")
    report_warnings(elsewhere, "the edit left on other records")


@story.command("move")
@click.argument("slug")
@click.option("--issue", "number", type=NUMBER, help="Move to this issue (last in its section unless --position).")
@click.option("--section", help="Move to this section.")
@click.option("--position", type=PLACE, help="Place in the section, 1 = first (default: last).")
@editor_options
@pass_app
@content_errors
def move(app: App, slug: str, number: int | None, section: str | None, position: int | None, editor: str,
         correction: bool, reason: str | None, reason_lang: str | None) -> None:
    """Move a story to another issue, section and/or position; the section it leaves closes up (unless its
    issue is published: the others keep their places there). The warnings of the story are printed as
    `newsroom check` words them (in its new issue: a link to a draft once it is published), then those the move
    left on other records (a tag's warning, said at the first story carrying it, passed on to another); they
    stop nothing."""
    if number is None and section is None and position is None:
        raise ContentError([Diagnostic(f"story:{slug}", None, "", "give --issue, --section, --position or more "
                                       "than one")])
    change = change_by(app, editor, reason, reason_lang)
    with app.transaction() as session:
        left = stories.load_story_issue(session, slug)
        was = _place(session.scalars(story_by_slug(slug)).one())
        before = changes.watch(session, {f"story:{slug}", f"issue:{left}", *([f"issue:{number}"] if number else [])})
        moved = stories.move_story(session, change, slug, section, position, correction, number)
        for touched in sorted({left, moved.issue.number}):
            workflow.recheck_after_change(session, app.settings, change, touched)
        # A story left where it was stores nothing, and says nothing more, as an unchanged `story edit`.
        warnings, elsewhere = [], []
        if _place(moved) != was:
            warnings = saved_warnings(session, app, change, f"story:{slug}")
            elsewhere = changes.brought(before, session, app.settings, change.now, {f"story:{slug}"})
        where = f"in issue {moved.issue.number}, " if moved.issue.number != left else ""
        app.say(f"story {slug} is now {where}{moved.section.slug} #{moved.position}")
    report_warnings(warnings, "in what was saved")
    report_warnings(elsewhere, "the move left on other records")


def _place(story: Story) -> tuple[int, str, int]:
    """Where a story is: its issue's number, its section's slug, its place there."""
    return story.issue.number, story.section.slug, story.position


COMMANDS = [story]
