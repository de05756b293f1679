"""sitemap.xml with hreflang alternates for every page and its twins."""

from __future__ import annotations

from collections.abc import Iterable
from xml.etree import ElementTree as ET

from newsroom.build.pages import PageSpec

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"


def render_sitemap(pages: Iterable[PageSpec], base_url: str, default_lang: str) -> bytes:
    ET.register_namespace("", SITEMAP_NS)
    ET.register_namespace("xhtml", XHTML_NS)
    urlset = ET.Element(f"{{{SITEMAP_NS}}}urlset")
    for page in sorted(pages, key=lambda p: p.url):
        url = ET.SubElement(urlset, f"{{{SITEMAP_NS}}}url")
        ET.SubElement(url, f"{{{SITEMAP_NS}}}loc").text = base_url + page.url
        if page.lastmod:
            ET.SubElement(url, f"{{{SITEMAP_NS}}}lastmod").text = page.lastmod.isoformat()
        for lang, twin in sorted(page.twins.items()):
            ET.SubElement(url, f"{{{XHTML_NS}}}link", rel="alternate", hreflang=lang, href=base_url + twin)
        if default_lang in page.twins:
            ET.SubElement(url, f"{{{XHTML_NS}}}link", rel="alternate", hreflang="x-default",
                          href=base_url + page.twins[default_lang])
    ET.indent(urlset)
    return ET.tostring(urlset, encoding="utf-8", xml_declaration=True) + b"\n"
