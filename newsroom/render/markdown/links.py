"""Where a Markdown text's links lead: internal (`entry:`, `page:`, `issue:`), outside or refused, and what
a text points at (`References`). Nothing here parses Markdown."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple, Protocol

INTERNAL_KINDS = frozenset({"entry", "page", "issue"})
OUTSIDE_SCHEMES = frozenset({"http", "https", "mailto"})
#: The schemes of the images a page shows (and of an address on this site, which has none): not `mailto:`.
IMAGE_SCHEMES = frozenset({"http", "https"})
#: Schemes markdown-it never makes a link of (`[x](javascript:…)` stays as its text, brackets and all): `check`
#: says the site leaves them out (see cleaning.left_out), for images too.
NEVER_LINKED = ("data", "file", "javascript", "vbscript")
OUTSIDE_REL = "noopener noreferrer"

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
_ISSUE_NUMBER = re.compile(r"[0-9]{1,9}\Z")


class References(NamedTuple):
    """What a Markdown text points at, for `newsroom check`; repeats are kept, in order of appearance.
    (A named tuple: a build looks up the references of every text it renders or checks.)"""

    entries: tuple[str, ...] = ()  # slugs from [x](entry:slug)
    pages: tuple[str, ...] = ()  # slugs from [x](page:slug)
    issues: tuple[int, ...] = ()  # numbers from [x](issue:13)
    citations: tuple[int, ...] = ()  # n from [n]
    # Links that lead nowhere, shown as their text: internal ones whose target is no slug/number
    # ("issue:abc") and ones of a scheme the site does not link ("reference:x", "ftp://…"); see link_problem.
    malformed: tuple[str, ...] = ()
    # Images the page shows as their alt text, their src taken out: of a scheme the site does not show, or an
    # internal one ("ftp://…", "mailto:…", "entry:gpu"), but those `cleaning.left_out` names (NEVER_LINKED); the
    # Markdown ones, then the raw <img>s (`cleaning.refused_raw_images`); see image_problem.
    refused_images: tuple[str, ...] = ()
    # The src of each raw <iframe> the page shows as a link to the page it embeds (`cleaning.embeds_as_links`).
    embeds: tuple[str, ...] = ()


@dataclass(frozen=True)
class SourceAnchors:
    """Citation hrefs into a source list whose items have the ids `{anchor}-{n}`: n → `#{anchor}-{n}`."""

    anchor: str

    def __call__(self, number: int) -> str:
        return f"#{self.anchor}-{number}"


@dataclass(frozen=True)
class SourceUrls:
    """Citation hrefs straight to each source's own address (a reference page: "click one to open the original
    document"): n → the n-th URL; a number past them (which `check` refuses) → the source list's `#source-{n}`."""

    urls: tuple[str, ...]

    def __call__(self, number: int) -> str:
        return self.urls[number - 1] if 1 <= number <= len(self.urls) else f"#source-{number}"


class LinkResolver(Protocol):
    """Maps an internal link (kind in {"entry", "page", "issue"}) to an href, or None if it doesn't exist."""

    def __call__(self, kind: str, target: str) -> str | None: ...


@dataclass(frozen=True)
class _Link:
    """How a Markdown link's href is treated: internal (kind, target), outside, relative or refused."""

    treatment: str
    kind: str = ""
    target: str | None = None  # None for an internal link whose target is malformed


def _classify(href: str) -> _Link:
    match = _SCHEME.match(href)
    if match is None:
        # Protocol-relative "//host/…" leaves the site just like "https://host/…".
        return _Link("outside" if href.startswith("//") else "relative")
    scheme = match.group(1).lower()
    if scheme in OUTSIDE_SCHEMES:
        return _Link("outside")
    if scheme not in INTERNAL_KINDS:
        return _Link("refused")
    target = href[match.end():]
    if scheme == "issue":
        return _Link("internal", scheme, str(int(target)) if _ISSUE_NUMBER.match(target) else None)
    return _Link("internal", scheme, target if _SLUG.match(target) else None)


def internal_target(href: str) -> tuple[str, str] | None:
    """The site's record a link leads to, as the renderer resolves it: (kind, slug), or ("issue", its number
    without leading zeros); None for a link elsewhere, or an internal one whose target is malformed."""
    link = _classify(href)
    return (link.kind, link.target) if link.treatment == "internal" and link.target is not None else None


def link_problem(href: str) -> tuple[str, str]:
    """The severity and message `check` gives a link of `References.malformed`."""
    link = _classify(href)
    if link.treatment == "internal":
        example = "issue:13" if link.kind == "issue" else f"{link.kind}:gpu"
        what = "an issue's number" if link.kind == "issue" else "a slug"
        return "error", f"link {href!r} leads nowhere: {link.kind}: takes {what}, e.g. {example}"
    return "warning", (f"link {href!r} is shown as its text: links take http(s)://, mailto:, or entry:, page: "
                       "and issue: for the site's own pages (a reference page is page:SLUG)")


def shown_image(src: str) -> bool:
    """Whether a page shows an image of this `src`: one of IMAGE_SCHEMES, or an address on this site."""
    match = _SCHEME.match(src.strip())
    return match is None or match[1].lower() in IMAGE_SCHEMES


def refused_image(src: str) -> bool:
    """Whether the page shows an image of this `src` as its alt text (the cleaner takes the `src` out), and
    `check` has not said so already (a scheme of NEVER_LINKED)."""
    return not shown_image(src) and _SCHEME.match(src.strip())[1].lower() not in NEVER_LINKED


def image_problem(src: str) -> str:
    """The message `check` gives (a warning) an image of `References.refused_images`."""
    return (f"image {src!r} is not shown, only its alt text: images take http(s):// or an address on this site "
            "(/img/chart.png)")


def embed_problem(src: str) -> str:
    """The message `check` gives (a warning) an embed of `References.embeds`."""
    return (f"<iframe src={src!r}> is shown as a link to the page it embeds, named by its title=\"…\" (else its "
            "address): pages, feeds and emails embed no video or chart")
