"""schema.org JSON-LD for glossary pages, safe to embed in a `<script>` element.

An entry page carries a `DefinedTerm`, the A–Z index a `DefinedTermSet`
(https://schema.org/DefinedTerm). Content is untrusted: `script_json`
escapes `<`, `>` and `&` as JSON unicode escapes, so no text can close the
script element ("</script>") or open a comment, and the JSON stays valid.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from markupsafe import Markup

_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(data: Mapping[str, Any]) -> Markup:
    """`data` as JSON text that can be placed verbatim inside `<script type="application/ld+json">`."""
    # Compact, keys sorted: the standard library's `json.dumps(data, ensure_ascii=False, sort_keys=True,
    # separators=(",", ":"))`, made some fifty times faster (every page carries some; the A–Z index
    # lists every entry).
    text = orjson.dumps(data, option=orjson.OPT_SORT_KEYS).decode("utf-8")
    for char, escaped in _UNSAFE.items():
        text = text.replace(char, escaped)
    return Markup(text)


def term_set_ref(url: str, name: str, lang: str) -> dict[str, Any]:
    return {"@type": "DefinedTermSet", "@id": url, "name": name, "url": url, "inLanguage": lang}


def defined_term(*, name: str, alternate_names: Sequence[tuple[str, str]], description: str, url: str, lang: str,
                 date_modified: str, term_set: Mapping[str, Any], code: str) -> dict[str, Any]:
    """One entry as a schema.org DefinedTerm; `date_modified` is the status date (ISO). `alternate_names` are
    its other names, each (name, its language), none twice: one in another language than `lang` is a
    language-tagged JSON-LD value."""
    term: dict[str, Any] = {
        "@context": "https://schema.org", "@type": "DefinedTerm", "@id": url, "url": url,
        "name": name, "description": description, "inLanguage": lang, "termCode": code,
        "dateModified": date_modified, "inDefinedTermSet": dict(term_set),
    }
    alternates = [alias if alias_lang == lang else {"@value": alias, "@language": alias_lang}
                  for alias, alias_lang in alternate_names]
    if alternates:
        term["alternateName"] = alternates
    return term


def defined_term_set(*, name: str, url: str, lang: str, terms: Sequence[Mapping[str, str]]) -> dict[str, Any]:
    """The glossary of one language as a DefinedTermSet listing every term by name and url."""
    return {
        "@context": "https://schema.org", **term_set_ref(url, name, lang),
        "hasDefinedTerm": [{"@type": "DefinedTerm", "@id": term["url"], "name": term["name"], "url": term["url"]}
                           for term in terms],
    }
