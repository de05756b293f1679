"""schema.org JSON-LD for issue pages: the issue as a PublicationIssue (a CreativeWork), its stories as NewsArticles."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup


def script_json(data: Mapping[str, Any]) -> Markup:
    """JSON safe inside <script>: `<`, `>` and `&` escaped, so content can never close the element."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=False, indent=None, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


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
