"""Planning every page of the site: a `Planner` per language lists its pages, then each is planned.

With a tracker (an incremental build), each page's spec carries the reads that made it, so that
build/stale.py can tell which pages an edit changes.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

from newsroom.build.derived import Derived
from newsroom.build.model import Content
from newsroom.build.page_specs import PagePlan, PageSpec
from newsroom.build.pages import Planner
from newsroom.build.tracking import Tracker
from newsroom.settings import Settings


def plan_pages(content: Content, derived: Derived, settings: Settings, tracker: Tracker | None = None,
               now: dt.datetime | None = None) -> list[PageSpec]:
    """Every page in every language; with a tracker, each spec carries the reads that made it.

    With a tracker, pass the tracked views of `content` and `derived`
    (`tracking.track_content` / `track_derived`) that note into it.
    """
    if tracker is None:
        return [spec for lang in settings.languages
                for spec in Planner(content, derived, settings, lang, now).pages()]
    return plan_listed(list_pages(content, derived, settings, tracker, now), tracker)


def list_pages(content: Content, derived: Derived, settings: Settings, tracker: Tracker,
               now: dt.datetime | None = None, *, extra: bool = False) -> list[tuple[PagePlan, Planner]]:
    """Every page in every language, unplanned, with the planner that plans it. `extra` adds the
    pages outside the sitemap.

    Pass the tracked views of `content` and `derived` that note into `tracker`.
    """
    listed: list[tuple[PagePlan, Planner]] = []
    for index, lang in enumerate(settings.languages):
        tracker.take()  # reads made before this planner belong to no page
        planner = Planner(content, derived, settings, lang, now, tracker)
        tracker.take()  # what __init__ read, its shared reads hold
        plans = planner.plans() + (planner.extra_plans(default=index == 0) if extra else [])
        tracker.take()  # which pages exist is no input of any one page
        listed += [(plan, planner) for plan in plans]
    return listed


def plan_listed(listed: list[tuple[PagePlan, Planner]], tracker: Tracker) -> list[PageSpec]:
    """Plan listed pages: their specs, each carrying every read that made it (see Planner)."""
    specs = []
    for plan, planner in listed:
        tracker.take()
        spec = plan.make()
        assert spec.url == plan.url and spec.template == plan.template, (plan, spec.url, spec.template)
        specs.append(spec)
    # After planning: a value one page kept on its planner may have been used by an earlier one.
    return [dataclasses.replace(spec, reads=spec.reads | planner.shared_reads())
            for spec, (_, planner) in zip(specs, listed)]
