"""Which feeds a language has, where they live and what they are called.

Pages advertise them (`<link rel="alternate">`, the feeds page) and
`newsroom.render.feeds` renders them, so both read this one list.
"""

from __future__ import annotations

from dataclasses import dataclass

from newsroom.build import urls
from newsroom.build.model import Content
from newsroom.i18n import format_message, translations
from newsroom.settings import Settings

FORMATS = ("rss", "atom")
MIME = {"rss": "application/rss+xml", "atom": "application/atom+xml"}


@dataclass(frozen=True)
class FeedLink:
    """One feed as pages advertise it."""

    lang: str
    name: str  # "issues", "glossary", "section-<slug>"
    fmt: str
    title: str
    url: str  # relative to the site root

    @property
    def mime(self) -> str:
        return MIME[self.fmt]

    @property
    def label(self) -> str:
        """The title with its format, as a page lists it: "… (RSS)", "… (Atom)"."""
        return f"{self.title} ({'RSS' if self.fmt == 'rss' else 'Atom'})"


def feed_links(content: Content, settings: Settings, lang: str, sections: bool = True) -> list[FeedLink]:
    """Every feed of `lang` with its title in `lang`: issues, glossary, then each section."""
    _ = translations(lang).gettext
    site = (content.site.get(lang) or {}).get("name") or ""
    names = [("issues", format_message(_("%(site)s: issues"), {"site": site})),
             ("glossary", format_message(_("%(site)s: glossary updates"), {"site": site}))]
    if sections:
        for slug, item in content.vocabulary("sections").items():
            section = {"site": site, "section": item.get(lang) or slug}
            names.append((f"section-{slug}", format_message(_("%(site)s: %(section)s"), section)))
    return [FeedLink(lang, name, fmt, title, urls.feed(lang, name, fmt)) for name, title in names for fmt in FORMATS]
