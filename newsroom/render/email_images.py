"""Story HTML for an email: each image given as its alt text, linked to the image (see newsroom/render/email.py)."""

from __future__ import annotations

import html as html_lib
import re

from newsroom.render.markdown.plaintext import closes_a_word

#: A start or end tag of a link or an image in the Markdown renderer's (nh3's) output, whose serialiser always
#: double-quotes attribute values and escapes `"` inside them: a start tag is exactly `<tag` + ` name="value"`*.
_LINK_OR_IMAGE = re.compile(r'<(/?)(a|img)((?:\s+[a-z-]+="[^"]*")*)\s*/?>')
_ATTRIBUTE = re.compile(r'([a-z-]+)="([^"]*)"')
_EMPTY_LINK = re.compile(r'<a(?:\s+[a-z-]+="[^"]*")*>[\s\x00]*</a>')
_EMPTY_PARAGRAPH = re.compile(r"<p>\s*</p>\n?")
#: What a decorative image leaves for a moment (the sanitised HTML holds no NUL), and its spaces before.
_DECORATION = "\x00"
_GAP = " \t\n"


def images_as_links(html: str) -> str:
    """`html` with each image given as its alt text, linked to the image unless it stands in a link already.
    An email shows no image (its size is not known, and mail clients need it): dropped, it left an empty
    link, or a gap in a sentence. An image without alt text is decoration, and goes."""
    depth = 0  # of links open around the tag at hand

    def replace(match: re.Match[str]) -> str:
        nonlocal depth
        closing, tag, attributes = match.groups()
        if tag == "a":
            depth = max(depth - 1, 0) if closing else depth + 1
            return match.group(0)
        found = dict(_ATTRIBUTE.findall(attributes))
        alt = html_lib.escape(html_lib.unescape(found.get("alt", "")), quote=False)
        if not alt:
            return _DECORATION
        if depth > 0 or "src" not in found:
            return alt
        return f'<a href="{html_lib.escape(html_lib.unescape(found["src"]))}">{alt}</a>'

    if "<img" not in html:
        return html
    # A paragraph or a link that held only decoration is left empty: it goes too (an empty paragraph is a gap,
    # an empty link nothing to see or click).
    # Decoration in a sentence leaves no space before the punctuation after it ("Two ![](x.png).").
    # A link left empty is decoration as a whole.
    html = _EMPTY_LINK.sub(_DECORATION, _LINK_OR_IMAGE.sub(replace, html))
    return _EMPTY_PARAGRAPH.sub("", _gaps_closed(html))


def _gaps_closed(html: str) -> str:
    """`html` with each dropped decorative image taken out with the spaces before it (back to the last one
    taken out), unless punctuation that closes (`.`, `,`, `)`) or a space follows it, which is then kept alone.
    The spaces are walked back from each image, not searched for from every space of the text (a pattern
    doing that took 6 s for a paragraph of 40 KB of spaces)."""
    pieces: list[str] = []
    position = 0
    while (image := html.find(_DECORATION, position)) >= 0:
        start = image
        while start > position and html[start - 1] in _GAP:
            start -= 1
        following = html[image + 1:image + 2]
        kept = following if closes_a_word(following) or following.isspace() else html[start:image] + following
        pieces += [html[position:start], kept]
        position = image + 1 + len(following)
    pieces.append(html[position:])
    return "".join(pieces)
