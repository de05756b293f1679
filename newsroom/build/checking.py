"""Checking the content before rendering, and the parse ahead that reads every new text over the cores first."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from issues.visibility import unpublished_locations, visible_numbers
from newsroom.build.memos import Memo
from newsroom.build.model import Content, Record
from newsroom.build.rendering import progress_bar, run_all
from newsroom.checks import check_content, markdown_texts, no_site, record_problems
from newsroom.diagnostics import ContentError, Diagnostic
from newsroom.drafts import draft_locations, method_draft_problems
from newsroom.render.markdown import find_references, text_key
from newsroom.settings import Settings

#: Fewer unknown texts than this are parsed by `check` itself, without forking.
PARSE_AHEAD_MIN = 2000
#: More Markdown texts than a record of the sample or the benchmark has (a story: ~10 per language).
MAX_TEXTS = 50


def parse_ahead(records: list[Record], content: Content, settings: Settings, memos: list[Memo],
                checks: Memo, meanwhile: Callable[[], Any] | None = None, progress: bool = False,
                run: Callable[..., list[Any]] = run_all) -> None:
    """Find the references (plain text, HTML ahead) of every text of `records` (those new since the last
    build) the memos do not know, and check those records (their own problems, remembered in `checks`),
    over the available cores: a first or full build parses every text once and checks every record
    there, and `check`, the pages and the search index then look the answers up. `meanwhile()` runs
    once workers have started, if they do (see run_all's `started`). With `progress`, a bar counts the
    texts read (a first or full build of a large site spends seconds here before any page is made). `run`
    runs the works: run_all, as the command stops it and with its render workers (see making.make)."""
    if len(records) * MAX_TEXTS < PARSE_AHEAD_MIN:
        return  # too few to be worth it, and not worth hashing every text to count them
    # A memo that knows nothing has no text: no need to hash every one to ask (the workers hash them).
    known = None if memos[0].empty else memos[0]
    seen: set[str] = set()
    parts: list[tuple[Record, list[str]]] = []  # each record with its texts to parse (a text once)
    for record in records:
        texts = [text for text in dict.fromkeys(markdown_texts(record, settings.languages)) if text not in seen
                 and (known is None or known.get(text_key(text)) is None)]
        seen.update(texts)
        parts.append((record, texts))
    if len(seen) < PARSE_AHEAD_MIN:
        return  # check parses them itself
    memos = [*memos, checks]
    for memo in memos:
        memo.drain()  # what a forked worker inherits, it does not send back
    chunks: list[list[tuple[Record, list[str]]]] = [[]]
    size = 0
    for part in parts:  # about 256 texts a work
        if size >= 256:
            chunks.append([])
            size = 0
        chunks[-1].append(part)
        size += len(part[1])

    def finish(results: list[Any]) -> list[Any]:
        return [*results[:-1], [memo.drain() for memo in memos]]

    texts = [sum(len(part[1]) for part in chunk) for chunk in chunks]
    with progress_bar(len(seen), progress, "text", "reading") as bar:
        def counted(index: int, result: Any) -> Any:
            bar.update(texts[index])
            return result

        for result in run([partial(_parse_and_check, chunk, content, settings, checks) for chunk in chunks],
                          finish, each=counted, started=meanwhile):
            if result is not None:
                for memo, drained in zip(memos, result):
                    memo.merge(*drained)


def _parse_and_check(parts: list[tuple[Record, list[str]]], content: Content, settings: Settings,
                     checks: Memo) -> None:
    for record, texts in parts:
        for text in texts:
            find_references(text)
        record_problems(record, content, settings, checks)


def checked(content: Content, settings: Settings, today: dt.date, drafts: bool,
            now: dt.datetime | None, memo: Memo | None = None) -> list[Diagnostic]:
    """Check before rendering: a broken link must stop the build, not ship.

    Unpublished issues, draft entries, reference pages and site pages are work in progress: their problems are
    checked when they are scheduled or published, and in a preview they are only warnings.
    A database with no site file builds no site: its pages would have no publication name and a Method
    link to nothing; nor does a public build with a draft Method page.
    """
    unpublished = (unpublished_locations(content, visible_numbers(content, False, now, settings.zone))
                   | draft_locations(content))
    problems = [p if p.location not in unpublished or p.severity == "warning" else replace(p, severity="warning")
                for p in check_content(content, settings, today, memo=memo) if drafts or p.location not in unpublished]
    errors = [p for p in problems if p.severity == "error"] + list(no_site(content))
    errors += [] if drafts else method_draft_problems(content)
    if errors:
        raise ContentError(errors)
    return problems
