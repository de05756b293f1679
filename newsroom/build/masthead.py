"""Pages whose only change is the masthead's issue line, made from their published bytes."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jinja2 import meta as jinja_meta

from newsroom.build import state, urls
from newsroom.build.page_specs import PagePlan
from newsroom.build.pages import Planner
from newsroom.build.publishing import Made
from newsroom.build.rendering import PageRenderer
from newsroom.build.tracking import SEP
from newsroom.build.values import MASTHEAD, Values, shown_value
from newsroom.render.html import used_templates

class Masthead:
    """Pages whose only changed read is the masthead's issue line (`derived.masthead`), made by putting
    the new line in place of the old one in their published bytes instead of planning and rendering
    them: publishing an issue changes the masthead of every page, and little else of most.

    The line is the output of one template (`_masthead.html`), which may use only names every page of
    a language gives the same values (`NAMES`); a page is spliced only when no other template it
    renders from names `latest_issue`, and the old line occurs in its bytes exactly once. Its
    template, catalog and settings are those of the last build (its fingerprint is unchanged), so the
    rest of the page would render to the same bytes. The line's value is no read of the page's: it is
    kept in the page's meta (`META`, as `values.SHOWN` stores it), so the old line is rendered from it
    and a spliced page's reads stay as stored — not read, decoded and packed again for each of the
    thousands of pages an issue's publishing splices. A page none of whose templates names
    `latest_issue` keeps its bytes. Otherwise the page is rendered as any other.
    """

    #: The key of a page's meta that holds the masthead values it read: {read: value as stored}.
    META = "masthead"

    TEMPLATE = "_masthead.html"
    NAMES = frozenset({"latest_issue", "href", "urls", "lang", "_", "gettext"})

    def __init__(self, renderer: PageRenderer, values: Values, out: Path) -> None:
        self.renderer, self.values, self.out = renderer, values, out
        self._ways: dict[tuple[str, str], str] = {}
        self._variables: dict[str, set[str]] = {}  # template → the names it reads from its context
        self._lines: dict[tuple[str, str], bytes] = {}

    @staticmethod
    def key(lang: str) -> str:
        """The read of a language's masthead line."""
        return f"{MASTHEAD}{SEP}{lang}"

    def spliced(self, plan: PagePlan, planner: Planner, known: state.Output, moved: Mapping[str, str]
                ) -> tuple[Made, tuple[bytes, bytes] | None] | None:
        """The page made from its published bytes, when no read of it changed but the masthead values
        it shows did (`moved`: {read: value as its meta stored it}): its state, and the (old, new) line
        to put in place in its published bytes (None: they stay); None when it must be rendered. Its
        bytes are not kept: the many pages an issue's publishing splices are spliced again as each is
        written (`respliced`)."""
        key = self.key(plan.lang)
        way = self._way(plan.template, plan.lang) if list(moved) == [key] else ""
        if not way or not isinstance(known, state.StoredOutput):
            return None
        new_value = self.values(key)
        meta = {**(known.meta or {}), self.META: {**(known.meta or {})[self.META], key: new_value}}

        def made(digest: str) -> Made:
            return Made(None, known.with_file(digest, meta))  # its reads as stored

        if way == "same":  # its templates do not show the masthead line: the same bytes
            return made(known.digest), None
        old_line = self._line(plan.lang, moved[key], planner)
        try:
            data = (self.out / plan.output).read_bytes()
        except OSError:
            return None
        if not old_line or data.count(old_line) != 1:
            return None
        new_line = self._line(plan.lang, new_value, planner)
        if new_line == old_line:  # another value, the same line: the same bytes
            return made(known.digest), None
        return made(hashlib.sha256(data.replace(old_line, new_line)).hexdigest()), (old_line, new_line)

    def _way(self, template: str, lang: str) -> str:
        """How a page of `template` is made when only the masthead line changed: "splice" (its masthead
        template shows the line, and nothing else names `latest_issue`), "same" (nothing it renders
        from names it) or "" (rendered)."""
        found = self._ways.get((template, lang))
        if found is None:
            env = self.renderer.envs[lang]
            names = used_templates(env, template, self.renderer.memo)
            if names is None:
                found = ""
            elif not any("latest_issue" in self._names_read(env, name) for name in names):
                found = "same"
            elif self.TEMPLATE in names and all(
                    (variables <= self.NAMES) if name == self.TEMPLATE else "latest_issue" not in variables
                    for name in names for variables in [self._names_read(env, name)]):
                found = "splice"
            else:
                found = ""
            self._ways[template, lang] = found
        return found

    def _names_read(self, env: Any, name: str) -> set[str]:
        """The names a template reads from its context (every language's environment parses it alike)."""
        found = self._variables.get(name)
        if found is None:
            source, filename, _ = env.loader.get_source(env, name)
            found = self._variables[name] = jinja_meta.find_undeclared_variables(env.parse(source, name, filename))
        return found

    def _line(self, lang: str, stored: str, planner: Planner) -> bytes:
        """The masthead line for a stored value of `derived.masthead` (see `values.SHOWN`); empty for
        any other (the value of a read that found nothing)."""
        found = self._lines.get((lang, stored))
        if found is None:
            value = shown_value(stored) if stored.startswith("=") else None
            found = self._lines[lang, stored] = self.renderer.render(
                self.TEMPLATE, lang, {"latest_issue": value, "href": planner.href, "urls": urls, "lang": lang})
        return found


def respliced(path: Path, old_line: bytes, new_line: bytes) -> bytes:
    """A published page with its masthead line replaced (see `Masthead.spliced`, which read it first)."""
    return path.read_bytes().replace(old_line, new_line)
