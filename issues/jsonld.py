"""schema.org JSON-LD for issue pages: the issue as a PublicationIssue (a CreativeWork), its stories as NewsArticles.

Pages embed it with `glossary.jsonld.script_json`, which escapes `<`, `>` and `&`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def issue_jsonld(*, number: int, name: str | None, lang: str, url: str, published: str | None, modified: str | None,
                 periodical: Mapping[str, str], stories: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The issue page's structured data; dates are ISO 8601 with an offset."""
    data: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": ["CreativeWork", "PublicationIssue"],
        "issueNumber": str(number),
        "inLanguage": lang,
        "url": url,
        "isPartOf": {"@type": "Periodical", **periodical},
    }
    if name:
        data["name"] = name
    if published:
        data["datePublished"] = published
        data["dateModified"] = modified or published
    data["hasPart"] = [{"@type": "NewsArticle", **story} for story in stories]
    return data
