"""The values of raw HTML's attributes that HTML5 allows: `attribute_value` (the cleaner's attribute filter)
keeps such a value, mends a URL (`mended_url`) and drops the rest (see conformance.py)."""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

from newsroom.i18n import is_language_tag
from newsroom.render.markdown.links import shown_image

_CELL_SPAN = {"colspan": (1, 1000), "rowspan": (0, 65534)}
_SCOPES = frozenset({"row", "col", "rowgroup", "colgroup"})
#: What a URL's path, query and fragment keep as written; other characters are percent-encoded.
_URL_SAFE = "/:@!$&'()*+,;=-._~%?"
_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
#: A URL `mended_url` would give back as it is: an http(s) host name, or no scheme, or mailto:, then only
#: characters a URL may hold (no `%`) and at most one `#`.
_URL_CHARACTERS = r"[A-Za-z0-9/._~!$&'()*+,;=:@?-]*"
_PLAIN_URL = re.compile(rf"(?:https?://[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::[0-9]{{1,5}})?(?=[/?#]|\Z)"
                        rf"|(?![A-Za-z][A-Za-z0-9+.-]*:)|mailto:){_URL_CHARACTERS}(?:#{_URL_CHARACTERS})?\Z")
_HOST = re.compile(r"(?:(?:[\w-]+\.)*[\w-]+\.?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?\Z")  # bücher.example too


def mended_url(url: str) -> str | None:
    """`url` as HTML5 takes it: characters a URL may not hold percent-encoded (a space as `%20`, a `%` not
    followed by two hex digits as `%25`), a backslash read as the browser reads it (`/`); None for one whose
    host is no host name (`https:///x`, `https://a..b/`)."""
    if _PLAIN_URL.match(url):  # most are: the site's own links, citations, a source's address
        return url
    url = url.strip()
    parts = urlsplit(url.replace("\\", "/")) if url.lower().startswith(("http:", "https:")) else urlsplit(url)
    if parts.scheme.lower() in ("http", "https") and not _HOST.match(parts.netloc.rsplit("@", 1)[-1]):
        return None

    def encoded(text: str, safe: str = _URL_SAFE) -> str:
        return quote(_PERCENT.sub("%25", text), safe=safe)

    mended = f"{parts.scheme}:" if parts.scheme else ""
    if parts.netloc or url[len(parts.scheme) + 1 if parts.scheme else 0:].startswith("//") \
            or parts.scheme.lower() in ("http", "https"):
        web = parts.scheme.lower() in ("http", "https")  # its host checked above, an IDN's letters kept
        mended += "//" + (parts.netloc if web else encoded(parts.netloc, safe=_URL_SAFE + "[]"))
    mended += encoded(parts.path)
    if "?" in url.split("#", 1)[0]:
        mended += "?" + encoded(parts.query)
    if "#" in url:
        mended += "#" + encoded(parts.fragment, safe=_URL_SAFE.replace("?", "") + "?")
    return mended


def attribute_value(tag: str, attribute: str, value: str) -> str | None:
    """The value kept for `attribute` of a raw `tag` (mended where it can be), or None to leave it out."""
    if attribute in ("href", "src"):
        # The cleaner allows mailto: on every URL, where only a link may lead to an address.
        return mended_url(value) if attribute == "href" or shown_image(value) else None
    if attribute == "lang":
        return value if value == "" or is_language_tag(value) else None
    if attribute == "start":
        return value if re.fullmatch(r"-?[0-9]+", value) else None
    if attribute in _CELL_SPAN:
        low, high = _CELL_SPAN[attribute]
        return value if re.fullmatch(r"[0-9]+", value) and low <= int(value) <= high else None
    if attribute == "scope":
        return value if value.lower() in _SCOPES else None
    return value
