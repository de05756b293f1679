"""A starter reference page for editors: one section (Simple and Deep dive), one spec table, one source.

Unlike the glossary's blank entry, the starter imports as it is: it is the
smallest page the rules accept, in every language, so an editor sees it built
while writing — as a draft (`draft: true`): in a preview (`build --drafts`,
`serve`), in no public build until the editor deletes that line. Each text the
editor must write holds `TODO`, and `newsroom check` warns at each one still
there (`PLACEHOLDER`, see `placeholder_problems`), so none reaches readers
unnoticed (`check --strict` fails on them).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Mapping
from typing import Any

from newsroom.build.model import Record
from newsroom.diagnostics import Diagnostic

#: What marks a starter's text still to be written.
PLACEHOLDER = "TODO"
PLACEHOLDER_RE = re.compile(rf"\b{PLACEHOLDER}\b")
PLACEHOLDER_MESSAGE = f"still the starter's {PLACEHOLDER}: write the page's own text here"

_HEAD = """\
# A reference page. Write its own text wherever it says TODO (`newsroom check` lists those left), in
# every language alike: the same sections, parts and table. Field by field: docs/content-format.md
# ("reference"). Then: newsroom import {path}
kind: {kind}
slug: {slug}
draft: true                       # readers see nothing of it until you delete this line (`build --drafts` shows it)
updated: {today}               # the date of the last update readers should know of: change it with the page
sources:                          # numbered 1, 2, … in this order; cite as [1], or as a table cell's source: 1
  - publisher: TODO
    title: TODO
    url: https://example.com/TODO
    date:                         # optional: the document's date, YYYY-MM-DD
    lang:                         # optional: the language of its title (en, hu, de…), marked on other pages
"""

_LANGUAGE = """\
{lang}:
  title: TODO
  summary: TODO                   # one sentence, for lists and the page's description
  sections:                       # numbered 1, 2, … in this order; add more of the same shape
    - title: TODO
      simple:                     # "Simple": every section has one, with its text or a table
        text: |
          TODO: what a reader needs first, citing its source [1].
      deep:                       # "Deep dive" (optional): the technical detail
        text: |
          TODO: the technical detail [1].
        table:                    # a spec table (optional; in a Simple part too)
          # caption: …            # optional: the table's title, then in every language
          columns: [{spec}, TODO]
          rows:                   # one cell per column, the first its label; a value with its source, or not published
            - [TODO, {{value: TODO, source: 1}}]
            - [TODO, {{not_published: {not_published}}}]
        # after: |                # optional: text after the table
"""

#: The starter's table words that are no placeholder, per language (others get the English ones).
_WORDS = {"hu": {"spec": "Jellemző", "not_published": "Nem tették közzé"},
          "en": {"spec": "Spec", "not_published": "Not published"}}


def reference_starter(slug: str, languages: tuple[str, ...], today: dt.date, path: str) -> str:
    """The text of a new reference page file for `slug`, with one block per language."""
    head = _HEAD.format(kind="reference", slug=slug, today=today.isoformat(), path=path)
    return head + "".join(_LANGUAGE.format(lang=lang, **_WORDS.get(lang, _WORDS["en"])) for lang in languages)


def placeholder_problems(record: Record, languages: tuple[str, ...]) -> Iterator[Diagnostic]:
    """A warning at each text of a reference page that still holds the starter's TODO."""
    if record.kind != "reference":
        return
    for index, source in enumerate(record.data.get("sources") or []):
        yield from _in(record, source, f"sources[{index}]")
    for lang in languages:
        yield from _in(record, record.text(lang), lang)


def _in(record: Record, value: Any, path: str) -> Iterator[Diagnostic]:
    if isinstance(value, str):
        if PLACEHOLDER_RE.search(value):
            yield Diagnostic(record.location, None, path, PLACEHOLDER_MESSAGE, "warning")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _in(record, item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _in(record, item, f"{path}[{index}]")
