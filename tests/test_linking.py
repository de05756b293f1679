"""Linking the first mention of each glossary term in rendered HTML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Collection
from unittest.mock import patch

import html5lib
from hypothesis import given
from hypothesis import strategies as st

from glossary.linking import link_first_mentions
from glossary.matching import Term, TermMatcher

MATCHER = TermMatcher([
    Term("trainium", ("Trainium", "AWS Trainium")),
    Term("gpu", ("GPU",)),
    Term("att", ("AT&T",)),
    Term("data-center", ("data center",)),
    Term("script", ("script",)),
], "en")
HU_MATCHER = TermMatcher([Term("gpu", ("GPU",)), Term("adatkozpont", ("adatközpont",))], "hu")


def href(slug: str) -> str:
    return f"/en/glossary/{slug}/"


def link(fragment: str, skip: Collection[str] = ()) -> str:
    return link_first_mentions(fragment, MATCHER, href, skip=skip)


def parse(fragment: str) -> ET.Element:
    return html5lib.parseFragment(fragment, treebuilder="etree", namespaceHTMLElements=False)


def term_links(fragment: str) -> list[tuple[str, str]]:
    """(href, text) of every term link, as a conforming parser sees them."""
    return [(a.get("href", ""), "".join(a.itertext()))
            for a in parse(fragment).iter("a") if a.get("class") == "term"]


def text_of(fragment: str) -> str:
    return "".join(parse(fragment).itertext())


def ancestors_of_term_links(fragment: str) -> list[set[str]]:
    root = parse(fragment)
    parents = {child: parent for parent in root.iter() for child in parent}
    result = []
    for a in root.iter("a"):
        if a.get("class") == "term":
            tags, node = set(), a
            while node in parents:
                node = parents[node]
                tags.add(str(node.tag))
            result.append(tags)
    return result


def test_links_the_first_mention_of_each_slug_only() -> None:
    out = link("<p>A GPU and a GPU.</p><p>Trainium, GPU, Trainium.</p>")
    assert out == ('<p>A <a class="term" href="/en/glossary/gpu/">GPU</a> and a GPU.</p>'
                   '<p><a class="term" href="/en/glossary/trainium/">Trainium</a>, GPU, Trainium.</p>')
    assert term_links(out) == [("/en/glossary/gpu/", "GPU"), ("/en/glossary/trainium/", "Trainium")]


def test_the_surface_keeps_its_suffix() -> None:
    out = link_first_mentions("<p>Az adatközpontokban GPU-kat.</p>", HU_MATCHER, href)
    assert term_links(out) == [("/en/glossary/adatkozpont/", "adatközpontokban"),
                               ("/en/glossary/gpu/", "GPU-kat")]


def test_never_inside_links_code_pre_or_headings() -> None:
    fragment = ('<h2>GPU</h2><p><a href="/x">about <em>GPU</em></a> <code>GPU</code></p>'
                '<pre><code>GPU</code></pre><h6>Trainium</h6><kbd>GPU</kbd>'
                '<p>Then GPU and Trainium.</p>')
    out = link(fragment)
    assert term_links(out) == [("/en/glossary/gpu/", "GPU"), ("/en/glossary/trainium/", "Trainium")]
    assert out.startswith('<h2>GPU</h2><p><a href="/x">about <em>GPU</em></a> <code>GPU</code></p>')
    for tags in ancestors_of_term_links(out):
        assert not tags & {"a", "code", "pre", "h1", "h2", "h3", "h4", "h5", "h6"}


def test_never_inside_a_dotted_name_or_an_address_written_as_text() -> None:
    fragment = ("<p>See trainium.example.com, aws.trainium, model.GPU, https://example.com/gpu-guide and "
                "GPU@example.com; then Trainium.</p><p>GPU.</p>")
    assert link(fragment) == fragment.replace("Trainium.<", '<a class="term" href="/en/glossary/trainium/">'
                                              "Trainium</a>.<").replace(
        "<p>GPU.", '<p><a class="term" href="/en/glossary/gpu/">GPU</a>.')
    out = link_first_mentions("<p>Az adatközpont.hu és a GPU-k@example.com címen, majd az adatközpontban "
                              "GPU-kat.</p>", HU_MATCHER, href)
    assert term_links(out) == [("/en/glossary/adatkozpont/", "adatközpontban"), ("/en/glossary/gpu/", "GPU-kat")]


def test_text_after_a_closed_exclusion_is_linked_again() -> None:
    out = link("<p><code>x</code> GPU</p>")
    assert out == '<p><code>x</code> <a class="term" href="/en/glossary/gpu/">GPU</a></p>'


def test_entities_stay_escaped() -> None:
    fragment = "<p>AT&amp;T &lt;b&gt;GPU&lt;/b&gt; &amp; Trainium &#169; &copy;</p>"
    out = link(fragment)
    assert out == ('<p><a class="term" href="/en/glossary/att/">AT&amp;T</a> &lt;b&gt;'
                   '<a class="term" href="/en/glossary/gpu/">GPU</a>&lt;/b&gt; &amp; '
                   '<a class="term" href="/en/glossary/trainium/">Trainium</a> &#169; &copy;</p>')
    assert text_of(out) == text_of(fragment)
    assert [a.tag for a in parse(out).iter() if a.tag != "DOCUMENT_FRAGMENT"] == ["p", "a", "a", "a"]


def test_a_mention_across_a_no_break_space_entity() -> None:
    out = link("<p>A data&nbsp;center.</p>")
    assert out == '<p>A <a class="term" href="/en/glossary/data-center/">data&nbsp;center</a>.</p>'


def test_attributes_comments_and_odd_markup_are_copied_byte_for_byte() -> None:
    fragment = ('<p title="GPU Trainium" data-x=\'a&amp;b GPU\' CLASS=lead>\n'
                '<img alt="GPU" src="/gpu.png"/><br>\r\n<!-- GPU -->'
                '<SPAN lang="hu">no term</SPAN></p >')
    assert link("<div>" + fragment + "</div>") == "<div>" + fragment + "</div>"
    out = link(fragment + "<p>\nline\n\nGPU</p>")
    assert out == fragment + '<p>\nline\n\n<a class="term" href="/en/glossary/gpu/">GPU</a></p>'
    img = next(parse(out).iter("img"))
    assert img.attrib == {"alt": "GPU", "src": "/gpu.png"}


def test_xss_looking_text_stays_inert() -> None:
    fragment = "<p>&lt;script&gt;alert('GPU')&lt;/script&gt; script &lt;img src=x onerror=alert(1)&gt;</p>"
    out = link(fragment)
    root = parse(out)
    assert not list(root.iter("script")) and not list(root.iter("img"))
    assert text_of(out) == text_of(fragment)
    assert term_links(out) == [("/en/glossary/script/", "script"), ("/en/glossary/gpu/", "GPU")]
    assert out.startswith('<p>&lt;<a class="term" href="/en/glossary/script/">script</a>&gt;')
    assert "&lt;/script&gt;" in out and "&lt;img src=x onerror=alert(1)&gt;" in out


def test_the_href_is_escaped_as_an_attribute() -> None:
    target = '/g?a=1&b="x" onmouseover="alert(1)'
    out = link_first_mentions("<p>GPU</p>", MATCHER, lambda slug: target)
    (a,) = parse(out).iter("a")
    assert a.attrib == {"class": "term", "href": target}


def test_no_href_leaves_the_term_as_text() -> None:
    out = link_first_mentions("<p>GPU and Trainium</p>", MATCHER,
                              lambda slug: None if slug == "gpu" else href(slug))
    assert term_links(out) == [("/en/glossary/trainium/", "Trainium")]


def test_skipped_slugs_are_not_linked() -> None:
    out = link("<p>Trainium runs beside a GPU; Trainium again.</p>", skip={"trainium"})
    assert term_links(out) == [("/en/glossary/gpu/", "GPU")]


def test_href_for_is_asked_once_per_slug() -> None:
    asked: list[str] = []

    def recording_href(slug: str) -> str:
        asked.append(slug)
        return href(slug)

    link_first_mentions("<p>GPU GPU</p><p>GPU Trainium</p>", MATCHER, recording_href)
    assert asked == ["gpu", "trainium"]


def test_a_fragment_without_mentions_is_unchanged() -> None:
    for fragment in ["", "plain text", "<p>no terms, just a gpu</p>", "1 < 2 &amp; 3 > 2", "<p>unclosed",
                     "<script>var GPU = 1;</script>", "<style>.GPU{}</style>", "<textarea>GPU</textarea>"]:
        assert link(fragment) == fragment


def test_a_term_linked_by_hand_is_not_linked_again() -> None:
    fragment = '<p>A GPU, then <a href="/en/glossary/gpu/">graphics chips</a>, Trainium.</p>'
    out = link(fragment)
    assert term_links(out) == [("/en/glossary/trainium/", "Trainium")]
    assert link(out) == out


def test_code_like_bare_markup_is_left_alone() -> None:
    assert link("<p>a < b GPU</p>") == "<p>a < b GPU</p>"


def test_a_term_split_by_markup_is_not_joined() -> None:
    out = link("<p><em>AWS</em> Trainium</p>")
    assert term_links(out) == [("/en/glossary/trainium/", "Trainium")]


# --- properties --------------------------------------------------------------

TAGS = ["p", "em", "a", "code", "pre", "h2", "span", "strong"]
WORDS = ["GPU", "Trainium", "AWS Trainium", "AT&amp;T", "data center", "&lt;", "&amp;", "&nbsp;",
         " ", "x", "GPUs", "\n", "é", "script"]


@st.composite
def fragments(draw: st.DrawFn, depth: int = 0) -> str:
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        if depth < 3 and draw(st.booleans()):
            tag = draw(st.sampled_from(TAGS))
            attrs = ' href="/x"' if tag == "a" else ' title="GPU &amp; co"' if tag == "span" else ""
            parts.append(f"<{tag}{attrs}>{draw(fragments(depth + 1))}</{tag}>")
        else:
            parts.append(draw(st.sampled_from(WORDS)))
    return "".join(parts)


@given(fragments())
def test_linking_preserves_text_and_structure(fragment: str) -> None:
    out = link(fragment)
    assert text_of(out) == text_of(fragment)
    hrefs = [target for target, _ in term_links(out)]
    assert len(hrefs) == len(set(hrefs))
    for tags in ancestors_of_term_links(out):
        assert not tags & {"a", "code", "pre", "h2"}
    unlinked = out
    for target in hrefs:
        unlinked = unlinked.replace(f'<a class="term" href="{target}">', "", 1)
    assert unlinked.replace("</a>", "") == fragment.replace("</a>", "")


@given(fragments())
def test_linking_twice_changes_nothing_more(fragment: str) -> None:
    once = link(fragment)
    assert link(once) == once


ODD_SERIALISATIONS = ["<P>GPU</P>", "<a href='/x'>GPU</a> GPU", "<br/>GPU", "<!-- GPU --> GPU",
                      '<a  href="/x">x</a>GPU', "<code >GPU</code> GPU", '</p x="1">GPU',
                      '<span title="a>b">GPU</span>', '<a href="/en/glossary/gpu/">x</a> GPU']


@given(fragments(), st.sampled_from(ODD_SERIALISATIONS))
def test_the_plain_serialisation_shortcut_links_as_the_parser_does(fragment: str, odd: str) -> None:
    # Fragments serialised the plain way are split without the parser; everything else goes to it.
    for case in (fragment, fragment + odd, odd + fragment):
        with patch("glossary.linking._plain_runs", return_value=None):
            parsed = link(case)
        assert link(case) == parsed
