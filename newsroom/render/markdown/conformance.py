"""What an editor's raw HTML may hold that the allow-list keeps but HTML5 does not allow, made valid.

nh3 keeps allowed attributes whatever their values; the page then fails the Nu HTML Checker (and a browser
guesses): a `lang` that is no language tag, `colspan="0"`, `start="one"`, `scope="all"`, a URL with a
space or a lone `%`. `attribute_value` (the cleaner's attribute filter) keeps a value HTML5 allows, mends a
URL, and drops the rest. Markdown's own HTML needs none of it: markdown-it writes valid values.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import quote, urlsplit

from babel import Locale
from babel.core import get_global

_CELL_SPAN = {"colspan": (1, 1000), "rowspan": (0, 65534)}
_SCOPES = frozenset({"row", "col", "rowgroup", "colgroup"})
_LANGUAGE_TAG = re.compile(r"([a-z]{2,3})(?:-([A-Z][a-z]{3}))?(?:-([A-Z]{2}|[0-9]{3}))?\Z")
#: What a URL's path, query and fragment keep as written; other characters are percent-encoded.
_URL_SAFE = "/:@!$&'()*+,;=-._~%?"
_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_HOST = re.compile(r"(?:(?:[\w-]+\.)*[\w-]+\.?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?\Z")  # bücher.example too


@lru_cache(maxsize=1)
def _languages() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    english = Locale("en")
    return (frozenset(code for code in english.languages if "_" not in code), frozenset(english.scripts),
            frozenset(english.territories))


@lru_cache(maxsize=256)
def is_language_tag(tag: str) -> bool:
    """A language tag HTML's `lang` takes: a known language, an optional script other than its usual one
    (`sr-Latn`, not `hu-Latn`) and an optional region (`pt-BR`, `es-419`), with the usual letter case."""
    match = _LANGUAGE_TAG.match(tag)
    if match is None:
        return False
    language, script, region = match.groups()
    languages, scripts, regions = _languages()
    usual_script = (get_global("likely_subtags").get(language) or "").split("_")[1:2]
    return (language in languages and (script is None or script in scripts and [script] != usual_script)
            and (region is None or region in regions))


def mended_url(url: str) -> str | None:
    """`url` as HTML5 takes it: characters a URL may not hold percent-encoded (a space as `%20`, a `%` not
    followed by two hex digits as `%25`), a backslash read as the browser reads it (`/`); None for one whose
    host is no host name (`https:///x`, `https://a..b/`)."""
    url = url.strip()
    parts = urlsplit(url.replace("\\", "/")) if url.lower().startswith(("http:", "https:")) else urlsplit(url)
    if parts.scheme.lower() in ("http", "https") and not _HOST.match(parts.netloc.rsplit("@", 1)[-1]):
        return None

    def encoded(text: str, safe: str = _URL_SAFE) -> str:
        return quote(_PERCENT.sub("%25", text), safe=safe)

    mended = f"{parts.scheme}:" if parts.scheme else ""
    if parts.netloc or url.startswith("//") or parts.scheme.lower() in ("http", "https"):
        mended += "//" + parts.netloc
    mended += encoded(parts.path)
    if "?" in url:
        mended += "?" + encoded(parts.query)
    if "#" in url:
        mended += "#" + encoded(parts.fragment, safe=_URL_SAFE.replace("?", "") + "?")
    return mended


def attribute_value(tag: str, attribute: str, value: str) -> str | None:
    """The value kept for `attribute` of a raw `tag` (mended where it can be), or None to leave it out."""
    if attribute in ("href", "src"):
        return mended_url(value)
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
