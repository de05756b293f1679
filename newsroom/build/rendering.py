"""Rendering planned pages to bytes, noting what each page reads while it renders.

Templates compile once per language. Rendering is CPU-bound Python, so on a
machine with several cores a large batch is split over forked worker
processes: the plan is inherited by the fork (shipped once, never pickled),
each task is a range of page indices, and each answer is the page's bytes
with the dependency keys its rendering read (Markdown links resolved against
the content, for instance). Small batches stay in-process, where a fork
would cost more than it saves.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from newsroom.build.pages import PageSpec
from newsroom.build.tracking import Tracker
from newsroom.render.html import catalog_digest, environment, render, template_fingerprint, used_templates

#: Below this many pages a process pool costs more than it saves.
PARALLEL_MIN = 400
CHUNK = 64


class PageRenderer:
    """Compiled environments per language and the fingerprint of each (template, language).

    `shared` is what every page's context gets besides its own (the hashed asset
    names, whether this is a preview); it is part of every page's fingerprint.
    """

    def __init__(self, templates: Path, languages: Iterable[str], shared: Mapping[str, Any] | None = None) -> None:
        self.templates = templates
        self.envs = {lang: environment(lang, templates) for lang in languages}
        self.shared: Mapping[str, Any] = dict(shared or {})
        self._shared_repr = repr(sorted(self.shared.items()))
        self._fingerprints: dict[tuple[str, str], str] = {}

    def render(self, template: str, lang: str, context: Mapping[str, Any]) -> bytes:
        return render(template, lang, {**context, **self.shared} if self.shared else context, env=self.envs[lang])

    def fingerprint(self, template: str, lang: str) -> str:
        """What a page's bytes depend on besides its content: its template sources, catalog and shared values."""
        key = (template, lang)
        if key not in self._fingerprints:
            sources = template_fingerprint(self.envs[lang], template, self.templates)
            self._fingerprints[key] = hashlib.sha256(
                f"{sources}:{catalog_digest(lang)}:{self._shared_repr}".encode()).hexdigest()
        return self._fingerprints[key]

    def compile(self, pages: Iterable[PageSpec]) -> None:
        """Compile every template the pages use (and what they include), before any fork."""
        for template, lang in sorted({(page.template, page.lang) for page in pages}):
            for name in used_templates(self.envs[lang], template) or [template]:
                self.envs[lang].get_template(name)


@dataclass(frozen=True)
class _Job:
    pages: Sequence[PageSpec]
    renderer: PageRenderer
    tracker: Tracker


_WORKER_JOB: list[_Job] = []  # the job a forked worker inherited; one per worker process


def _render_one(job: _Job, index: int) -> tuple[bytes, frozenset[str]]:
    page = job.pages[index]
    job.tracker.take()
    data = job.renderer.render(page.template, page.lang, page.context)
    return data, frozenset(job.tracker.take())


def _adopt(job: _Job) -> None:
    _WORKER_JOB[:] = [job]


def _render_range(indices: range) -> list[tuple[bytes, frozenset[str]]]:
    return [_render_one(_WORKER_JOB[0], index) for index in indices]


def workers() -> int:
    """Cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def progress_bar(total: int, shown: bool) -> tqdm:
    """The build's progress bar (pages rendered), on stderr; hidden unless `shown`."""
    return tqdm(total=total, unit="page", disable=not shown, file=sys.stderr, leave=False)


def render_pages(pages: Sequence[PageSpec], renderer: PageRenderer, tracker: Tracker,
                 progress: bool = False, bar: tqdm | None = None) -> list[tuple[bytes, frozenset[str]]]:
    """(bytes, reads) per page, in order; in forked workers when it pays. `bar` counts the pages done."""
    job = _Job(pages, renderer, tracker)
    renderer.compile(pages)
    count = workers()
    own = bar is None
    bar = progress_bar(len(pages), progress) if bar is None else bar
    try:
        if count < 2 or len(pages) < PARALLEL_MIN or "fork" not in multiprocessing.get_all_start_methods():
            results = []
            for index in range(len(pages)):
                results.append(_render_one(job, index))
                bar.update()
            return results
        results = []
        chunks = [range(start, min(start + CHUNK, len(pages))) for start in range(0, len(pages), CHUNK)]
        with multiprocessing.get_context("fork").Pool(count, initializer=_adopt, initargs=(job,)) as pool:
            for part in pool.imap(_render_range, chunks):
                results.extend(part)
                bar.update(len(part))
        return results
    finally:
        if own:
            bar.close()
