"""Generated content sets of any size: the large round trip, the kill tests and the by-hand limit runs.

Run `python tests/sitegen.py DIR N` to write a site with about N content files
(used to measure an import of 100,000 files by hand; see the README).
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

from newsroom import SAMPLE_DIR
from newsroom.i18n import format_message

SECTIONS = ("code", "money", "policy", "science", "society")


def _entry(i: int, entries: int) -> str:
    related = f"g-{(i + 1) % entries:05d}"
    return f"""kind: entry
slug: g-{i:05d}
category: infrastructure
level: basic
trend: emerging
status: 2026-10
relations:
  related: [{related}]
sources:
  - publisher: Example
    title: Source {i}
    url: https://example.org/{i}
hu:
  headword: Fogalom {i}
  definition: {format_message('A(z) %(i)s.', {'i': i})} fogalom egy mondatos meghatározása [1].
  aliases: [fogalom-{i}]
en:
  headword: Concept {i}
  definition: The one-sentence definition of concept {i} [1].
  aliases: [concept-{i}]
"""


def _issue(number: int) -> str:
    start = dt.date(2020, 1, 6) + dt.timedelta(weeks=number - 1)
    return f"""kind: issue
number: {number}
week: {{start: {start.isoformat()}, end: {(start + dt.timedelta(days=6)).isoformat()}}}
status: published
published_at: {(start + dt.timedelta(days=7)).isoformat()}T07:00:00+01:00
hu:
  title: {format_message('A(z) %(n)s.', {'n': number})} szám
  lead: Bevezető {format_message('a(z) %(n)s.', {'n': number})} számhoz.
en:
  title: Issue {number}
  lead: The lead of issue {number}.
"""


def _story(i: int, issue: int, entries: int) -> str:
    term = f"g-{i % entries:05d}" if entries else ""
    return f"""kind: story
slug: s-{i:06d}
issue: {issue}
section: {SECTIONS[i % len(SECTIONS)]}
position: {i + 1}
tags: [t{i % 7}]
terms: [{term}]
sources:
  - publisher: Wire
    title: Story source {i}
    url: https://example.com/s/{i}
hu:
  headline: Hír {i}
  summary: Összefoglaló a(z) {i}. hírről, ami a Fogalom {i % max(entries, 1)} kapcsán érdekes [1].
en:
  headline: Story {i}
  summary: A summary of story {i}, which matters for Concept {i % max(entries, 1)} [1].
"""


def write_site(folder: Path, files: int, first_issue: int = 1) -> Path:
    """Write site.yaml, the Method page, plus about `files` entries, issues and stories (a fifth entries, a
    tenth issues, numbered from `first_issue`)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "site.yaml").write_bytes((SAMPLE_DIR / "site.yaml").read_bytes())
    (folder / "pages").mkdir(exist_ok=True)  # the Method page every page's navigation links
    (folder / "pages" / "method.yaml").write_bytes((SAMPLE_DIR / "pages" / "method.yaml").read_bytes())
    entries, issues = max(files // 5, 1), max(files // 10, 1)
    stories = max(files - entries - issues, 1)
    for kind in ("entries", "issues", "stories"):
        (folder / kind).mkdir(exist_ok=True)
    for i in range(entries):
        (folder / "entries" / f"g-{i:05d}.yaml").write_text(_entry(i, entries), encoding="utf-8")
    for number in range(first_issue, first_issue + issues):
        (folder / "issues" / f"{number:04d}.yaml").write_text(_issue(number), encoding="utf-8")
    for i in range(stories):
        (folder / "stories" / f"s-{i:06d}.yaml").write_text(_story(i, i % issues + first_issue, entries),
                                                            encoding="utf-8")
    return folder


if __name__ == "__main__":
    write_site(Path(sys.argv[1]), int(sys.argv[2]))
