"""The floor beneath a full build, for bench/breakdown.py: each page rendered a second time to time its
templates alone, markdown-it's parses timed, the pages by template, and the built site written again (see
breakdown.py, which puts bench/ and the project on the import path)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from newsroom.build import rendering, works
from newsroom.render import markdown

if TYPE_CHECKING:
    from breakdown import Timers


def watch_parses(timers: Timers) -> dict[str, float]:
    """Time markdown-it's parses: each text's first, and the repeats (a text parsed again)."""
    parse = markdown.parsing._parse
    seen: set[str] = set()
    spent = {"first": 0.0, "again": 0.0, "first_calls": 0, "again_calls": 0}

    def timed(md: Any, text: str, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return parse(md, text, **kwargs)
        finally:
            took = time.perf_counter() - started
            if timers.aside:
                timers.aside_s += took
            else:
                kind = "again" if text in seen else "first"
                seen.add(text)
                spent[kind] += took
                spent[f"{kind}_calls"] += 1

    for module in (markdown.cleaning, markdown.plaintext, markdown.references, markdown.renderer):
        module._parse = timed  # each module of the package calls it by its own name
    return spent


def second_renders(timers: Timers, by_template: dict[str, list[float]]) -> dict[str, float]:
    """Render each page a second time (its Markdown and term links then made), timing the templates;
    each page's first rendering and its templates alone are added to its template's row of `by_template`
    ([pages, planned and rendered, first rendering, templates alone], seconds; see `plans_and_renders`)."""
    render = rendering.PageRenderer.render
    spent = {"seconds": 0.0, "pages": 0, "again": 0.0}  # "again": every second rendering's whole time

    def twice(self: rendering.PageRenderer, template: str, lang: str, context: Any) -> bytes:
        started = time.perf_counter()
        data = render(self, template, lang, context)
        first = time.perf_counter() - started
        timers.aside, before = True, timers.aside_s
        started = time.perf_counter()
        try:
            render(self, template, lang, context)
        finally:
            took = time.perf_counter() - started
            timers.aside = False
            alone = took - (timers.aside_s - before)  # what Markdown and links took again
            spent["seconds"] += alone
            spent["pages"] += 1
            spent["again"] += took
            by_template[template][2] += first
            by_template[template][3] += alone
        return data

    rendering.PageRenderer.render = twice  # type: ignore[method-assign]
    return spent


def plans_and_renders(templates: dict[str, float], by_template: dict[str, list[float]]) -> None:
    """Count each page in its template's row of `by_template`, with the time it took to plan and
    render it once (its second rendering, see `second_renders`, taken off)."""
    work = works._page_work

    def timed(plan: Any, *args: Any, **kwargs: Any) -> Any:
        again, started = templates["again"], time.perf_counter()
        try:
            return work(plan, *args, **kwargs)
        finally:
            row = by_template[plan.template]
            row[0] += 1
            row[1] += time.perf_counter() - started - (templates["again"] - again)

    works._page_work = timed


def write_again(site: Path, into: Path) -> tuple[float, int, int]:
    """Write every file of `site` into the empty folder `into`, one thread: (seconds, files, bytes)."""
    files = [(path.relative_to(site), path.read_bytes()) for path in site.rglob("*") if path.is_file()]
    started = time.perf_counter()
    for relative, data in files:
        target = into / relative
        os.makedirs(target.parent, exist_ok=True)
        with open(target, "wb") as file:
            file.write(data)
    return time.perf_counter() - started, len(files), sum(len(data) for _, data in files)


def print_by_template(by_template: dict[str, list[float]]) -> None:
    """The pages by template, most time first: planning (the page's context made) and the first
    rendering (with the Markdown and term links a template shows), and of it the templates alone."""
    print(f"{'pages by template':24} {'pages':>7} {'plan s':>8} {'render s':>9} {'templates alone s':>18}")
    rows = sorted(by_template.items(), key=lambda item: -item[1][1])
    for template, (pages, both, first, alone) in [*rows, ("all pages", [sum(row[i] for _, row in rows)
                                                                           for i in range(4)])]:
        print(f"{template:24} {pages:7,.0f} {both - first:8.2f} {first:9.2f} {alone:18.2f}")
