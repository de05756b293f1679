"""Where every page lives. One function per page type; twins differ only by language.

Paths are relative to the site root, without a leading slash, and end in
`/` for pages written as `index.html` in their folder. A part in another
script than ASCII (a tag's) is percent-encoded as UTF-8, as links and the
sitemap need it; the file is written under the decoded name, which is the one
a web server looks up (see `file_path`).
"""

from __future__ import annotations

from urllib.parse import quote, unquote

from glossary.views import letter_slug
from newsroom.settings import SUPPORTED_LANGUAGES

#: The sitemap, at the top of the site.
SITEMAP = "sitemap.xml"

#: What a site folder holds at its top: a folder per language (one the settings named once included),
#: the hashed assets, the root page that leads to a language, the 404 page and the sitemap; and the
#: static files of one's own (see render/static.py), which may take none of these names.
SITE_NAMES = frozenset({*SUPPORTED_LANGUAGES, "assets", "index.html", "404.html", SITEMAP})

#: The folders of each language's own pages (`{lang}/NAME/`), which no site page may take as its slug:
#: a page is published at `{lang}/{slug}/` (see `page`).
SITE_FOLDERS = ("issues", "archive", "glossary", "reference", "feeds", "search")


def home(lang: str) -> str:
    return f"{lang}/"


def issue(lang: str, number: int) -> str:
    return f"{lang}/issues/{number}/"


def editions(lang: str) -> str:
    return f"{lang}/issues/"


def archive(lang: str) -> str:
    return f"{lang}/archive/"


def archive_year(lang: str, year: int) -> str:
    """The stories of the issues that came out in one year."""
    return f"{lang}/archive/{year}/"


def glossary_index(lang: str) -> str:
    return f"{lang}/glossary/"


def entry(lang: str, slug: str) -> str:
    return f"{lang}/glossary/{slug}/"


def letter(lang: str, heading: str) -> str:
    """The entries under one letter of the A–Z index (see glossary.views.letter_slug)."""
    return f"{lang}/glossary/letter/{letter_slug(heading)}/"


def category(lang: str, slug: str) -> str:
    return f"{lang}/glossary/category/{slug}/"


def reference_index(lang: str) -> str:
    """Every reference page of a language, by title."""
    return f"{lang}/reference/"


def reference(lang: str, slug: str) -> str:
    return f"{lang}/reference/{slug}/"


#: The site page every page's navigation and footer, and every email, link to.
METHOD = "method"


def page(lang: str, slug: str) -> str:
    return f"{lang}/{slug}/"


def feeds(lang: str) -> str:
    return f"{lang}/feeds/"


def feed(lang: str, name: str, fmt: str) -> str:
    """A feed file: `name` is "issues", "glossary" or "section-<slug>"; `fmt` is "rss" or "atom"."""
    return f"{lang}/feeds/{name}.{'xml' if fmt == 'rss' else 'atom'}"
def search(lang: str) -> str:
    return f"{lang}/search/"


def search_index(lang: str) -> str:
    """The folder of the language's static search index (see newsroom/render/search.py)."""
    return f"{lang}/search/index/"


def not_found(lang: str) -> str:
    return f"{lang}/404.html"


def file_path(url: str) -> str:
    """The file a URL path is written to: its name percent-decoded, as a web server looks it up."""
    path = unquote(url) if "%" in url else url
    return path + "index.html" if path.endswith("/") or not path else path


def level(lang: str, slug: str) -> str:
    return f"{lang}/glossary/level/{slug}/"


def section(lang: str, slug: str) -> str:
    """One newsletter section's archive: its latest year's stories, and a link to each year's page."""
    return f"{lang}/archive/section/{slug}/"


def section_year(lang: str, slug: str, year: int) -> str:
    """The stories filed under one section of the issues that came out in one year."""
    return f"{lang}/archive/section/{slug}/{year}/"


def tag(lang: str, slug: str) -> str:
    """The archive of one tag's stories; `slug` (issues.archive.tag_slug) may hold letters of any script."""
    return f"{lang}/archive/tag/{quote(slug, safe='')}/"
