"""A blank glossary entry file for editors: every field, both languages, ready to fill in.

The untouched file is deliberately not importable: category, level, trend
and the first source are empty, so `newsroom import` names each of them
(`file:line: field: required; …`) instead of storing a half-written entry.
Once filled in it imports as a draft (`draft: true`): previewed by `build --drafts`
and `serve`, published once the editor deletes that line (or `edit --set draft=false`).
"""

from __future__ import annotations

import datetime as dt

from glossary.models import LEVELS, TRENDS
from glossary.provenance import METHODS, REVIEWS

_HEAD = """\
# A glossary entry. Fill in every field you can; delete the lines you do not need.
# Field by field: docs/content-format.md ("entry"). Then: newsroom import {path}
kind: entry
slug: {slug}
draft: true                       # readers see nothing of it until you delete this line (`build --drafts` shows it)
formerly: []                      # slugs it was published under before: each old address leads here
category:                         # a category slug from site.yaml (categories:)
level:                            # {levels}
trend:                            # {trends}
english_term:                     # shown as "in English: …"
status: {month}                   # month of "Where things stand", YYYY-MM
relations:                        # stated once; the other entry shows the inverse
  broader: []                     # entry slugs, e.g. [ai-chip]
  narrower: []                    # or a concept without an entry, by name: [Tensor Core], [{{{note_langs}}}]
  related: []                     # "On the edge"
  similar: []                     # "Similar, but not the same" (an entry, never a name):
  #  - entry: other-slug
  #    note: {{{note_langs}}}
sources:                          # numbered 1, 2, … in this order; cite as [1]
  - publisher:
    title:
    url:
    date:                         # optional, YYYY-MM-DD
    lang:                         # optional: the language of its title (en, hu, de…), marked on other pages
provenance:
  method: human-written           # {methods}
  review: none                    # {reviews}
  written: {today}
  reviewed:
"""

_LANGUAGE = """\
{lang}:
  headword:
  definition:                     # one sentence (Markdown: a link, a citation [1])
  plain_terms: |                  # "In plain terms" (Markdown)

  analogy: |                      # the comparison, shown after the first paragraph of "In plain terms"

  how_it_works:                   # ordered steps
    -
  example: |                      # "An everyday example"

  affected: []                    # "Who is affected", one line per audience:
  #  - audiences: [developer]     # audience slugs from site.yaml
  #    text: …
  #    section: code              # optional: "→ section" link
  misconception:
    myth:
    reality:
  limits: |                       # "Limits and risks"

  history: |                      # "A brief history"

  current_state: |                # "Where things stand"

  aliases: []                     # "Also known as"
  match_forms: []                 # only for finding mentions in stories (inflected forms, misspellings)
"""


def entry_template(slug: str, languages: tuple[str, ...], today: dt.date, path: str) -> str:
    """The text of a new entry file for `slug`, with one block per language."""
    head = _HEAD.format(
        slug=slug, path=path, levels=" | ".join(LEVELS), trends=" | ".join(TRENDS),
        methods=" | ".join(METHODS), reviews=" | ".join(REVIEWS), month=today.strftime("%Y-%m"),
        today=today.isoformat(), note_langs=", ".join(f"{lang}: …" for lang in languages))
    return head + "".join(_LANGUAGE.format(lang=lang) for lang in languages)
