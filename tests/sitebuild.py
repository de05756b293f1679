"""Helpers for the site tests: build the sample (plus extra content files) through the CLI, parse pages."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import html5lib
from conftest import Cli

BASE = "https://news.example.org/"
#: A draft issue 14 (after the sample's latest, 13), for tests of what drafts never reach.
DRAFT_ISSUE = """\
kind: issue
number: 14
week: {start: 2026-11-09, end: 2026-11-15}
status: draft
hu: {title: Piszkozat szám}
en: {title: Draft issue}
"""
#: Issue 14, scheduled for Monday 16 November, 7:00.
SCHEDULED_ISSUE = """\
kind: issue
number: 14
week: {start: 2026-11-09, end: 2026-11-15}
status: scheduled
published_at: 2026-11-16T07:00:00+01:00
hu: {title: Ütemezett}
en: {title: Scheduled}
"""
#: A story of issue 14, for the tests of an issue scheduled or published after the sample's.
ISSUE_14_STORY = """\
kind: story
slug: i14-story
issue: 14
section: code
position: 1
sources:
  - {publisher: Example, title: Example, url: "https://example.org/14"}
hu: {headline: Ütemezett hír, summary: Hétfőn jelenik meg.}
en: {headline: Scheduled story, summary: Out on Monday.}
"""
#: A special issue 15, out on Friday 13 November, before issue 14 comes out on Monday (`import` warns of the
#: week they share, and stores it): the highest number, but not the issue published last from Monday on.
SPECIAL_ISSUE_15 = """\
kind: issue
number: 15
week: {start: 2026-11-09, end: 2026-11-15}
status: published
published_at: 2026-11-13T10:00:00+01:00
hu: {title: Különszám}
en: {title: Special issue}
"""
ISSUE_15_STORY = """\
kind: story
slug: i15-story
issue: 15
section: policy
position: 1
sources:
  - {publisher: Example, title: Example, url: "https://example.org/15"}
hu: {headline: Rendkívüli hír, summary: Pénteken jelent meg.}
en: {headline: Breaking story, summary: Out on Friday.}
"""
_SAMPLE_DB: list[Path] = []  # the sample database, loaded once per test session and copied


#: A publication of one's own, as a new team starts it (not the sample): the site file and the Method page.
OWN_SITE = {
    "site.yaml": "kind: site\nhu: {name: Gépi Figyelő, tagline: Hetente}\nen: {name: Machine Watch, tagline: Weekly}\n"
                 "sections: [{slug: research, hu: Kutatás, en: Research}]\n",
    "pages/method.yaml": "kind: page\nslug: method\nhu: {title: Módszer, body: Kézzel.}\n"
                         "en: {title: Method, body: By hand.}\n",
}


def run(folder: Path, *args: str, expect: int = 0) -> str:
    """Run `newsroom` with its database and newsroom.toml in `folder`; returns stdout + stderr."""
    result = Cli(f"sqlite:///{folder / 'site.db'}", folder)(*args, expect=expect)
    return result.stdout + result.stderr


def build_sample(folder: Path, files: dict[str, str] | None = None, settings: str = "", *import_options: str
                 ) -> Path:
    """The sample publication plus `files` ({relative path: YAML}, imported with `import_options`) built into
    folder/_site."""
    folder.mkdir(parents=True, exist_ok=True)
    if settings:
        (folder / "newsroom.toml").write_text(settings, encoding="utf-8")
    if not _SAMPLE_DB:
        template = Path(tempfile.mkdtemp(prefix="newsroom-sample-"))
        atexit.register(shutil.rmtree, template, True)
        run(template, "init", "--sample")
        _SAMPLE_DB.append(template / "site.db")
    shutil.copyfile(_SAMPLE_DB[0], folder / "site.db")
    if files:
        content = folder / "extra"
        for relative, text in files.items():
            (content / relative).parent.mkdir(parents=True, exist_ok=True)
            (content / relative).write_text(text, encoding="utf-8")
        run(folder, "import", "--correction", "--reason", "corrected", *import_options, str(content))
    run(folder, "build", "--out", str(folder / "_site"), "--base-url", BASE)
    return folder / "_site"


def parse(path: Path):
    """The page as an element tree; html5lib in strict mode raises on any parse error."""
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(path.read_bytes())


def html_pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def page_url(site: Path, path: Path) -> str:
    """The site-relative URL a page file answers at (folders end in "/")."""
    return path.relative_to(site).as_posix().removesuffix("index.html")


def text_of(element) -> str:
    return " ".join(" ".join(element.itertext()).split())


def _text_without(element, hidden) -> str:
    return "".join([element.text or "", *(("" if hidden(child) else _text_without(child, hidden)) + (child.tail or "")
                                          for child in element)])


def shown_text(element) -> str:
    """An element's text as the page shows it: without what only a screen reader reads (visually hidden)."""
    hidden = lambda child: "visually-hidden" in (child.get("class") or "").split()  # noqa: E731
    return " ".join(_text_without(element, hidden).split())


def read_aloud(element) -> str:
    """An element's text as a screen reader reads it: without what is hidden from it (aria-hidden)."""
    return " ".join(_text_without(element, lambda child: child.get("aria-hidden") == "true").split())


def language_switch(document) -> dict[str, str]:
    """Where a page's language switch leads, by language (to its twin, or to no alternate of it: an A–Z
    index letter without a twin leads to the other language's index)."""
    return {a.get("hreflang"): a.get("href") for li in document.iter("li") if li.get("class") == "languages"
            for a in li.iter("a") if a.get("hreflang")}
