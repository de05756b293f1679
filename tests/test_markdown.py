"""Markdown rendering: citations, internal links, sanitizing, plain text, nesting limits."""

from __future__ import annotations

import re
import time
from xml.etree.ElementTree import Element

import html5lib
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from jinja2 import Environment
from markdown_it import MarkdownIt
from markupsafe import Markup

from newsroom.render.markdown import (
    DEFAULT_MAX_NESTING,
    PLAIN_AHEAD,
    MarkdownRenderer,
    References,
    SourceAnchors,
    TextMarks,
    citation_backrefs,
    find_references,
    left_out,
    plain_text,
    prose_tokens,
    reading_text,
    remembered_references,
    unnamed_links,
)
from newsroom.render.markdown.screen_reader import _reading

KNOWN = {("entry", "gpu"): "/en/glossary/gpu/", ("entry", "trainium"): "/en/glossary/trainium/",
         ("page", "method"): "/en/method/", ("issue", "13"): "/en/issues/13/"}


def resolve(kind: str, target: str) -> str | None:
    return KNOWN.get((kind, target))


def source_href(n: int) -> str:
    return f"#source-{n}"


@pytest.fixture
def renderer() -> MarkdownRenderer:
    return MarkdownRenderer(resolve=resolve, citation_href=source_href)


def fragment(html: str) -> Element:
    """Parse rendered HTML the way a browser would."""
    root: Element = html5lib.parseFragment(html, treebuilder="etree", namespaceHTMLElements=False)
    return root


def elements(html: str, tag: str | None = None) -> list[Element]:
    root = fragment(html)
    return [el for el in root.iter() if el is not root and (tag is None or el.tag == tag)]


def text_of(html: str) -> str:
    return "".join(fragment(html).itertext())


def cite(n: int, k: int, prefix: str = "cite") -> str:
    return f'<sup class="cite"><a href="#source-{n}" id="{prefix}-{n}-{k}">{n}</a></sup>'


# --- citations ---------------------------------------------------------------

def test_single_citation_markup(renderer: MarkdownRenderer) -> None:
    assert renderer.html("Trainium is fast [4].") == f"<p>Trainium is fast {cite(4, 1)}.</p>\n"


def test_several_and_repeated_citations_get_unique_ids(renderer: MarkdownRenderer) -> None:
    html = renderer.html("A [1], B [2], A again [1] and [1].")
    assert html == f"<p>A {cite(1, 1)}, B {cite(2, 1)}, A again {cite(1, 2)} and {cite(1, 3)}.</p>\n"
    ids = [a.get("id") for a in elements(html, "a")]
    assert len(ids) == len(set(ids))


def test_adjacent_citations_are_each_a_citation_kept_apart(renderer: MarkdownRenderer) -> None:
    # Side by side, two marks read as one number ("56"): a space keeps them apart, as the seed shows "6 7".
    assert renderer.inline("cheap [5][6]") == f"cheap {cite(5, 1)} {cite(6, 1)}"
    assert renderer.html("cheap [5][6].") == f"<p>cheap {cite(5, 1)} {cite(6, 1)}.</p>\n"  # plain prose too
    assert renderer.html("*cheap* [5][6][7]") == f"<p><em>cheap</em> {cite(5, 1)} {cite(6, 1)} {cite(7, 1)}</p>\n"


def test_citations_in_lists_and_tables(renderer: MarkdownRenderer) -> None:
    html = renderer.html("- one [1]\n- two [2]\n  1. nested [1]\n\n| Spec | Value |\n|---|---|\n| Node | 5 nm [3] |\n")
    assert cite(1, 1) in html and cite(2, 1) in html and cite(1, 2) in html and cite(3, 1) in html
    (cell,) = [td for td in elements(html, "td") if td.find("sup") is not None]
    anchor = cell.find("sup/a")
    assert anchor is not None and anchor.get("href") == "#source-3"


def test_number_in_brackets_followed_by_parenthesis_is_a_link(renderer: MarkdownRenderer) -> None:
    html = renderer.inline("[4](http://x.example)")
    assert html == '<a href="http://x.example" rel="noopener noreferrer">4</a>'


def test_refused_link_with_a_number_is_not_a_citation(renderer: MarkdownRenderer) -> None:
    html = renderer.inline("[4](javascript:alert(1))")
    assert elements(html, "sup") == [] and elements(html, "a") == []
    assert text_of(html) == "[4](javascript:alert(1))"


def test_reference_definition_makes_number_a_link(renderer: MarkdownRenderer) -> None:
    html = renderer.html("See [4].\n\n[4]: https://example.com/four\n")
    assert elements(html, "sup") == []
    assert [a.get("href") for a in elements(html, "a")] == ["https://example.com/four"]


def test_citation_inside_link_text_stays_text(renderer: MarkdownRenderer) -> None:
    html = renderer.inline("[see [4]](entry:gpu)")
    assert html == '<a href="/en/glossary/gpu/">see [4]</a>'
    assert find_references("[see [4]](entry:gpu)").citations == ()


@pytest.mark.parametrize("text", [r"\[4]", "`[4]`", "[a4]", "[4a]", "[ 4]", "[-4]", "[1234567890]", "[\uff14]"])
def test_not_citations(renderer: MarkdownRenderer, text: str) -> None:
    assert elements(renderer.inline(text), "sup") == []
    assert find_references(text).citations == ()


def test_citations_without_href_show_as_plain_brackets() -> None:
    plain = MarkdownRenderer(resolve=resolve)
    assert plain.html("Fast [4] and [5].") == "<p>Fast [4] and [5].</p>\n"


def test_anchor_prefix_and_backrefs_agree(renderer: MarkdownRenderer) -> None:
    text = "A [2], B [1], C [2]."
    html = renderer.html(text, anchor_prefix="s3-simple")
    assert html == f"<p>A {cite(2, 1, 's3-simple')}, B {cite(1, 1, 's3-simple')}, C {cite(2, 2, 's3-simple')}.</p>\n"
    assert citation_backrefs(text, anchor_prefix="s3-simple") == {
        1: ("s3-simple-1-1",), 2: ("s3-simple-2-1", "s3-simple-2-2")}
    rendered_ids = sorted(str(a.get("id")) for a in elements(html, "a"))
    assert rendered_ids == sorted(i for ids in citation_backrefs(text, anchor_prefix="s3-simple").values() for i in ids)


@pytest.mark.parametrize("prefix", ["", "Cite", "1cite", 'x" onclick="y', "cite_"])
def test_bad_anchor_prefix_is_refused(renderer: MarkdownRenderer, prefix: str) -> None:
    with pytest.raises(ValueError, match="anchor_prefix"):
        renderer.html("[1]", anchor_prefix=prefix)


def test_citation_href_is_escaped() -> None:
    odd = MarkdownRenderer(resolve=resolve, citation_href=lambda n: f'#s{n}"><script>x</script>')
    html = odd.html("[1]")
    assert elements(html, "script") == []
    # Percent-encoded, as a URL holds a quote or an angle bracket (and as the browser would request it).
    assert elements(html, "a")[0].get("href") == "#s1%22%3E%3Cscript%3Ex%3C/script%3E"


# --- internal and outside links -----------------------------------------------

def test_internal_links_resolved(renderer: MarkdownRenderer) -> None:
    html = renderer.inline("[GPU](entry:gpu), [Method](page:method), [13](issue:13)")
    assert html == ('<a href="/en/glossary/gpu/">GPU</a>, <a href="/en/method/">Method</a>, '
                    '<a href="/en/issues/13/">13</a>')


def test_resolver_sees_kind_and_target() -> None:
    calls: list[tuple[str, str]] = []

    def recording(kind: str, target: str) -> str | None:
        calls.append((kind, target))
        return None

    MarkdownRenderer(resolve=recording).html(
        "[a](entry:gpu) [b](page:method) [c](issue:013) [d](issue:x) [e](entry:Bad_Slug)")
    assert calls == [("entry", "gpu"), ("page", "method"), ("issue", "13")]


def test_unresolved_links_become_escaped_text(renderer: MarkdownRenderer) -> None:
    html = renderer.inline("[1 < 2 & *c*](entry:missing), [x](page:nope), [14](issue:14), [bad](issue:abc)")
    assert html == "1 &lt; 2 &amp; <em>c</em>, x, 14, bad"
    assert elements(html, "a") == []


@pytest.mark.parametrize("markdown", ["[x](https://example.com)", "[x](http://example.com/a?b=1)",
                                      "[x](mailto:desk@example.com)", "<https://example.com>",
                                      "<desk@example.com>", "[x](//example.com/path)"])
def test_outside_links_get_rel(renderer: MarkdownRenderer, markdown: str) -> None:
    (link,) = elements(renderer.html(markdown), "a")
    assert link.get("rel") == "noopener noreferrer"
    assert link.get("href")


@pytest.mark.parametrize("markdown", ["[x](/about/)", "[x](#history)", "[x](../trainium/)"])
def test_relative_links_kept_without_rel(renderer: MarkdownRenderer, markdown: str) -> None:
    (link,) = elements(renderer.html(markdown), "a")
    assert link.get("rel") is None and link.get("href")


@pytest.mark.parametrize("markdown", ["[x](ftp://example.com)", "[x](tel:+3612345)", "[x](file:///etc/passwd)"])
def test_other_schemes_are_not_links(renderer: MarkdownRenderer, markdown: str) -> None:
    html = renderer.html(markdown)
    assert [a for a in elements(html, "a") if a.get("href")] == []
    assert "x" in text_of(html)


def test_rel_cannot_be_forged_in_raw_html(renderer: MarkdownRenderer) -> None:
    (link,) = elements(renderer.html('<a href="https://example.com" rel="opener" target="_blank">x</a>'), "a")
    assert link.get("rel") == "noopener noreferrer" and link.get("target") is None


# --- find_references ------------------------------------------------------------

def test_find_references_in_order_with_repeats() -> None:
    text = ("See [GPU](entry:gpu) [2], then [Method](page:method) and [last week](issue:12).\n\n"
            "- [Trainium](entry:trainium) [1]\n- [GPU again](entry:gpu) [2]\n\n"
            "`[9]` and [x](https://example.com) and [bad](issue:twelve)\n")
    assert find_references(text) == References(
        entries=("gpu", "trainium", "gpu"), pages=("method",), issues=(12,), citations=(2, 1, 2),
        malformed=("issue:twelve",))


def test_find_references_of_plain_text_is_empty() -> None:
    assert find_references("Nothing to see here.") == References()


def test_autolinks_to_the_site_are_references() -> None:
    assert find_references("See <entry:gpu> and <https://example.org>.").entries == ("gpu",)


@settings(max_examples=200, deadline=None)
@given(text=st.lists(st.sampled_from([*"()!*_`#>-|:\\/&;=\"' \n\t0123456789abc", "entry:gpu", "issue:13",
                                      "page:method", "(entry:gpu)", "&#91;1&#93;", "&lt;entry:gpu&gt;", "é"]),
                     max_size=80).map("".join))
def test_text_without_brackets_or_angle_brackets_refers_to_nothing(text: str) -> None:
    # Links, citations and autolinks all start with "[" or "<": such a text is not parsed for them.
    asked: list[tuple[str, str]] = []
    html = MarkdownRenderer(resolve=lambda kind, target: asked.append((kind, target)) or "/x/",
                            citation_href=source_href).html(text)
    assert find_references(text) == References()
    assert not asked and 'class="cite"' not in html


def test_find_references_in_tables_and_headings() -> None:
    text = "# Title [1]\n\n| a | b |\n|---|---|\n| [x](entry:gpu) | [3] |\n"
    refs = find_references(text)
    assert refs.citations == (1, 3) and refs.entries == ("gpu",)


# --- sanitizing -----------------------------------------------------------------

XSS_PAYLOADS = [
    "<script>alert(1)</script>",
    "text <script>alert(1)</script> more",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    "<img src=x onerror=alert(1)>",
    "<img src=\"javascript:alert(1)\">",
    "<IMG SRC=JaVaScRiPt:alert(1)>",
    "[x](javascript:alert(1))",
    "[x](JAVASCRIPT:alert(1))",
    "[x](  javascript:alert(1) )",
    "[x](<javascript:alert(1)>)",
    "[x](java\tscript:alert(1))",
    "[x]: javascript:alert(1)\n\n[x]",
    "<javascript:alert(1)>",
    "![x](javascript:alert(1))",
    '<a href="JaVaScRiPt:alert(1)">x</a>',
    '<a href="  javascript:alert(1)">x</a>',
    '<a href="jav&#x09;ascript:alert(1)">x</a>',
    '<a href="javascript&#58;alert(1)">x</a>',
    '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>',
    "[x](javascript&#58;alert(1))",
    "[x](&#106;avascript:alert(1))",
    '<a href="vbscript:msgbox(1)">x</a>',
    "[x](vbscript:msgbox(1))",
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![x](data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=)",
    "![x](data:image/png;base64,iVBORw0KGgo=)",
    "<svg onload=alert(1)>",
    "<svg><script>alert(1)</script></svg>",
    "<math><mtext><script>alert(1)</script></mtext></math>",
    "<iframe src=\"https://evil.example\"></iframe>",
    "<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>",
    '<iframe src="https://ok.example/v" title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>',
    '<iframe src="https://ok.example/v&quot; onclick=&quot;alert(1)" title="x"></iframe>',
    '<iframe src=" javascript:alert(1)" title="x"></iframe>',
    '<abbr title="<iframe src=https://ok.example/>">AI</abbr> <iframe src="https://ok.example/v"></iframe>',
    "<style>body{background:url(javascript:alert(1))}</style>",
    '<p style="background:url(javascript:alert(1))">x</p>',
    '<span style="position:fixed;top:0">x</span>',
    "<details open ontoggle=alert(1)><summary>x</summary>y</details>",
    '<body onload="alert(1)">',
    '<div onmouseover="alert(1)">hover</div>',
    "<object data=\"javascript:alert(1)\"></object>",
    "<embed src=\"javascript:alert(1)\">",
    "<form action=\"javascript:alert(1)\"><button>go</button></form>",
    "<input onfocus=alert(1) autofocus>",
    "<base href=\"javascript:alert(1)//\">",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
    "<link rel=stylesheet href=\"javascript:alert(1)\">",
    "<a href=\"https://ok.example\" onclick=\"alert(1)\">x</a>",
    "<img src=\"x\" alt=\"\" onerror=\"alert(1)\"/>",
    "<<script>script>alert(1)<</script>/script>",
    "<scr<script>ipt>alert(1)</script>",
    "<!--<script>alert(1)</script>-->",
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
    "<template><script>alert(1)</script></template>",
    "<textarea><script>alert(1)</script></textarea>",
    "<table><tr><td background=\"javascript:alert(1)\">x</td></tr></table>",
    "[x [4]](javascript:alert(1))",
    "[x](entry:gpu\"onmouseover=\"alert(1))",
    "<abbr title=\"x\" onmouseover=alert(1)>AI</abbr>",
    "<span lang=\"en\" onclick=\"alert(1)\">x</span>",
    "<sup class=\"cite\" onclick=\"alert(1)\">1</sup>",
    "<a id=\"cite-1-1\" name=\"location\" href=\"#\">clobber</a>",
    "```\n<script>alert(1)</script>\n```",
    "`<script>alert(1)</script>`",
]

DANGEROUS_ELEMENTS = {"script", "style", "iframe", "svg", "math", "object", "embed", "form", "input",
                      "button", "base", "meta", "link", "body", "template", "textarea", "noscript", "frame"}
#: A URL scheme as browsers parse it; anything else before a colon makes the URL relative.
URL_SCHEME = re.compile(r"^([a-z][a-z0-9+.-]*):", re.IGNORECASE)
SAFE_SCHEMES = {"http", "https", "mailto"}


def assert_safe(html: str) -> None:
    for el in elements(html):
        assert el.tag not in DANGEROUS_ELEMENTS, html
        for name, value in el.attrib.items():
            assert not name.lower().startswith("on"), html
            assert name.lower() not in {"style", "srcdoc", "formaction", "action", "background", "target"}, html
            if name.lower() in {"href", "src"}:
                cleaned = re.sub(r"[\x00-\x20]", "", value)
                scheme = URL_SCHEME.match(cleaned)
                assert scheme is None or scheme.group(1).lower() in SAFE_SCHEMES, (name, value, html)
            if name == "id":
                assert re.fullmatch(r"[a-z][a-z0-9-]*-\d+-\d+", value), html


@pytest.mark.parametrize("payload", XSS_PAYLOADS)
def test_xss_payloads_are_neutralised(renderer: MarkdownRenderer, payload: str) -> None:
    assert_safe(renderer.html(payload))
    assert_safe(renderer.inline(payload))
    assert_safe(renderer.html(f"- item\n\n  > {payload}\n"))


def test_xss_payloads_are_neutralised_all_at_once(renderer: MarkdownRenderer) -> None:
    assert_safe(renderer.html("\n\n".join(XSS_PAYLOADS)))
    assert_safe(renderer.html(" ".join(XSS_PAYLOADS)))


def test_script_content_is_dropped_not_shown(renderer: MarkdownRenderer) -> None:
    assert "alert" not in text_of(renderer.html("Hello <script>alert(1)</script> world"))


@pytest.mark.parametrize(("raw", "html", "plain", "said"), [
    ("Enable scripts: <noscript>the <b>search</b> needs JavaScript</noscript>.",
     "<p>Enable scripts: the <b>search</b> needs JavaScript.</p>\n",
     "Enable scripts: the search needs JavaScript.", ["<noscript>"]),
    ("<noscript>\n<p>Turn on <em>JavaScript</em> <script>alert(1)</script></p>\n</noscript>",
     "\n<p>Turn on <em>JavaScript</em> </p>\n", "Turn on JavaScript", ["<noscript>", "<script>"]),
    ('<object data="https://e.org/chart.svg"><param name="x" value="y"><a href="https://e.org/c.png">the chart</a>'
     "</object>", '<p><a href="https://e.org/c.png" rel="noopener noreferrer">the chart</a></p>\n', "the chart",
     ["<object>", "<param>"]),
    ('<applet code="Chart.class"><param name="x" value="y"><a href="https://e.org/c.png">the chart</a>'
     "</applet>", '<p><a href="https://e.org/c.png" rel="noopener noreferrer">the chart</a></p>\n', "the chart",
     ["<applet>", "<param>"]),
    ('A field: <textarea rows="3">a < b & <i>c</i></textarea>.',
     "<p>A field: a &lt; b &amp; &lt;i&gt;c&lt;/i&gt;.</p>\n", "A field: a < b & <i>c</i>.", ["<textarea>"]),
    ('Pick <select name="s"><option value="1">small</option><optgroup label="big"><option selected>large'
     "<option>huge</optgroup></select> now.", "<p>Pick small / large / huge now.</p>\n",
     "Pick small / large / huge now.", ["<select>", "<option>", "<optgroup>"]),
    ('An <iframe src="https://e.org/v" srcdoc="&lt;p&gt;x">fallback</iframe> embed.', "<p>An  embed.</p>\n",
     "An embed.", ["<iframe>"]),
])
def test_an_element_the_pages_leave_out_leaves_its_text_but_code_and_embedded_documents(
        renderer: MarkdownRenderer, raw: str, html: str, plain: str, said: list[str]) -> None:
    """A paste's fallback for readers without scripts or plugins (<noscript>, <object>, <applet>) is shown, cleaned; a
    form's text field its text as written, tags and all (as the field showed it); a drop-down list its choices,
    " / " between them (in the sentence it stands in, where a list would break the paragraph). An <iframe>'s
    content is raw text that no browser shows (it shows the document of its `src` or `srcdoc`): it goes, as a
    script's does. The email's text part reads the same words, and `check` names the tags left out."""
    assert str(renderer.html(raw)) == html
    assert plain_text(raw) == plain
    assert left_out(raw) == said


@pytest.mark.parametrize(("raw", "html", "plain"), [
    ('A <iframe src="https://www.youtube.com/embed/a?b=1&amp;c=2" title="The <b>talk</b>" width="560">no frames'
     "</iframe>.", '<p>A <a href="https://www.youtube.com/embed/a?b=1&amp;c=2" rel="noopener noreferrer">The '
     "&lt;b&gt;talk&lt;/b&gt;</a>.</p>\n", "A The <b>talk</b>."),
    ('<iframe src="https://e.org/chart"></iframe>\n',
     '<a href="https://e.org/chart" rel="noopener noreferrer">https://e.org/chart</a>\n', "https://e.org/chart"),
    ('A <iframe src="https://e.org/v" title="x&quot; onclick=&quot;alert(1)"></iframe> and <iframe src="mailto:a@e.org"'
     ' title="m"></iframe><iframe src="/v" title="r"></iframe>.',
     '<p>A <a href="https://e.org/v" rel="noopener noreferrer">x" onclick="alert(1)</a> and .</p>\n',
     'A x" onclick="alert(1) and .'),
    ('A <iframe src="//e.org/v?a=1&amp;b=2" title="V"></iframe> and <iframe src="//e.org/chart"></iframe>.',
     '<p>A <a href="https://e.org/v?a=1&amp;b=2" rel="noopener noreferrer">V</a> and <a href="https://e.org/chart" '
     'rel="noopener noreferrer">https://e.org/chart</a>.</p>\n', "A V and https://e.org/chart."),
    ('<textarea><iframe src="https://e.org/t"></textarea> <abbr title="<iframe src=https://e.org/a>">AI</abbr>',
     '&lt;iframe src="https://e.org/t"&gt; <abbr title="&lt;iframe src=https://e.org/a&gt;">AI</abbr>',
     '<iframe src="https://e.org/t"> AI'),
])
def test_an_embed_of_a_web_address_is_a_link_to_it_named_by_its_title(
        renderer: MarkdownRenderer, raw: str, html: str, plain: str) -> None:
    """An <iframe> of an http(s) `src` is a link to the page it embeds, its title (else its address) as text, a
    protocol-relative one (`//host/…`) a link to `https://host/…`; one of another address shows nothing, as a
    `srcdoc` one; an `<iframe` that is text (in a <textarea>, in a title) stays text."""
    assert str(renderer.html(raw)) == html
    assert plain_text(raw) == plain


@pytest.mark.parametrize(("raw", "html", "plain"), [
    ("Type <xmp><b>bold</b> & a < b</xmp> to see.", "<p>Type </p><pre>&lt;b&gt;bold&lt;/b&gt; &amp; a &lt; b</pre>"
     " to see.<p></p>\n", "Type <b>bold</b> & a < b to see."),
    ("<xmp>\n<p>a &amp; b</p>\n  <script>alert(1)</script>\n</xmp>\n",
     "<pre>&lt;p&gt;a &amp; b&lt;/p&gt;\n  &lt;script&gt;alert(1)&lt;/script&gt;\n</pre>\n",
     "<p>a & b</p>\n  <script>alert(1)</script>"),
    ("<textarea><xmp>x</xmp></textarea>", "&lt;xmp&gt;x&lt;/xmp&gt;", "<xmp>x</xmp>"),
])
def test_an_xmp_shows_its_text_as_written_as_preformatted_text(renderer: MarkdownRenderer, raw: str, html: str,
                                                                plain: str) -> None:
    """An <xmp> (obsolete: a <pre> whose tags are text) went with its content: its text is shown as written, in a
    <pre>, tags and all, its character references read as in a <textarea> (a paragraph's `&` and `<` reach it as
    Markdown writes them, `&amp;` and `&lt;`); `check` names the <xmp> alone, not the tags it shows."""
    assert str(renderer.html(raw)) == html
    assert plain_text(raw) == plain
    assert left_out(raw) == (["<textarea>"] if raw.startswith("<textarea") else ["<xmp>"])


MATHML = "http://www.w3.org/1998/Math/MathML"


@pytest.mark.parametrize(("raw", "tree", "plain", "said"), [
    ('E = <math alttext="m c squared" display="inline"><mi>m</mi><msup><mi>c</mi><mn>2</mn></msup></math>.',
     [("math", {"alttext": "m c squared", "display": "inline"}), ("mi", {}), ("msup", {}), ("mi", {}), ("mn", {})],
     "E = m c squared.", []),
    ('<math display="block" href="https://e.org" style="color:red"><mfrac linethickness="0"><mi mathvariant="bold" '
     'onclick="alert(1)"><b>a</b></mi><mtext><a href="https://e.org/b">b</a></mtext></mfrac><annotation '
     'encoding="TeX">\\frac{a}{b}</annotation><math><mn>1</mn></math></math>\n',
     [("math", {"display": "block"}), ("mfrac", {"linethickness": "0"}), ("mi", {"mathvariant": "bold"}),
      ("mtext", {}), ("annotation", {"encoding": "TeX"}), ("mn", {})],
     "ab1", ["href= of <math>", "style= of <math>", "onclick= of <mi>", "<b>", "<a>"]),
    ('<math display="sideways"><mo stretchy="maybe" form="infix">+</mo><maction actiontype="toggle"><mi>x</mi>'
     "</maction><annotation-xml><mi>y</mi></annotation-xml></math>",
     [("math", {}), ("mo", {"form": "infix"}), ("mi", {}), ("mi", {})], "+xy",
     ["display= of <math>", "stretchy= of <mo>", "<maction>", "<annotation-xml>"]),
])
def test_a_formula_is_kept_as_mathml_core(renderer: MarkdownRenderer, raw: str, tree: list, plain: str,
                                          said: list[str]) -> None:
    """A <math> went with its content: it is kept as MathML Core, which browsers render, its elements and
    attributes of an allow-list (no link, style or script), nothing but MathML inside it (an HTML element's
    text kept), enumerated values as MathML has them; its plain text is its `alttext`, else its text (not its
    annotation's); `check` names what is left out."""
    for html in (renderer.html(raw), renderer.inline(raw)):
        formula = fragment(str(html)).find(f".//{{{MATHML}}}math")
        assert [(element.tag.removeprefix(f"{{{MATHML}}}"), element.attrib) for element in formula.iter()] == tree
        assert_safe(str(html))
    assert plain_text(raw) == plain
    assert left_out(raw) == said


@pytest.mark.parametrize(("raw", "formula", "plain", "said"), [
    ("a <math><mi>x</mi><b>y</b></math> z", "<mi>x</mi><mtext>y</mtext>", "a xy z", ["<b>"]),
    ("a <math><mi>x</mi><mo>+</mo><span lang=\"en\">y</span></math> z", "<mi>x</mi><mo>+</mo><mtext>y</mtext>",
     "a x+y z", ["<span>"]),
    ("a <math><mrow><abbr title=\"t\">GPU</abbr><mo>+</mo><a href=\"https://e.org\">link</a></mrow></math> z",
     "<mrow><mtext>GPU</mtext><mo>+</mo><mtext>link</mtext></mrow>", "a GPU+link z", ["<abbr>", "<a>"]),
    ("a <math><mi>x</mi><unknown>u</unknown><p>para</p><img src=\"x.png\" alt=\"pic\"></math> z",
     "<mi>x</mi><mtext>uparapic</mtext>", "a xuparapic z", ["<unknown>", "<p>", "<img>"]),
    ("<math><mi>x</mi>\n*y* <code>c</code></math>\n", "<mi>x</mi><mtext>\ny c</mtext>", "x y c", ["<code>"]),
])
def test_html_in_a_formula_s_layout_keeps_its_text_in_the_formula(renderer: MarkdownRenderer, raw: str, formula: str,
                                                                  plain: str, said: list[str]) -> None:
    """An HTML element written right in a formula's layout left it with its text (a <b>, a <span>: HTML ends the
    formula there) or went with its text (an <abbr>, a link): its tags go, its text stays in the formula, in an
    <mtext>, and `check` names it."""
    for html in (renderer.html(raw), renderer.inline(raw)):
        [math] = re.findall(r"<math>(.*?)</math>", str(html), re.DOTALL)
        assert math == formula, html
        tree = fragment(str(html)).find(f".//{{{MATHML}}}math")
        assert {element.tag.split("}")[0] + "}" for element in tree.iter()} == {f"{{{MATHML}}}"}, html
        assert_safe(str(html))
    assert plain_text(raw) == plain
    assert left_out(raw) == said


def test_a_citation_in_a_formula_keeps_its_anchor(renderer: MarkdownRenderer) -> None:
    """A citation's mark ends a formula, as HTML ends it there, and keeps the anchor its source links back to."""
    text = "Energy <math><mi>x</mi><b>y</b> [1]</math> here [1]."
    html = str(renderer.html(text))
    assert html == ("<p>Energy <math><mi>x</mi><mtext>y </mtext></math>" + cite(1, 1) + " here " + cite(1, 2)
                    + ".</p>\n")
    assert [a.get("id") for a in elements(html, "a")] == list(citation_backrefs(text)[1])


@pytest.mark.parametrize(("raw", "html", "plain", "said"), [
    ("a <mi>x</mi> b", "<p>a x b</p>\n", "a x b", ["<mi>"]),
    ("Sum <mrow><mi>x</mi><mo>+</mo><mn>1</mn></mrow> and <mtext>words</mtext>.",
     "<p>Sum x+1 and words.</p>\n", "Sum x+1 and words.", ["<mrow>", "<mi>", "<mo>", "<mn>", "<mtext>"]),
    ("<mfrac><mi>a</mi><mi>b</mi></mfrac> </math> <b>c</b>\n", "<p>ab  <b>c</b></p>\n", "ab c",
     ["<mfrac>", "<mi>"]),
])
def test_mathml_outside_a_formula_keeps_its_text(renderer: MarkdownRenderer, raw: str, html: str, plain: str,
                                                 said: list[str]) -> None:
    """A MathML element outside a <math> (which HTML reads as an unknown element) went with its text: its tags go,
    its text stays in the sentence, and `check` names it."""
    assert str(renderer.html(raw)) == html
    assert plain_text(raw) == plain
    assert left_out(raw) == said


@pytest.mark.parametrize("raw", [
    '<math><mi>x</mi><a href="javascript:alert(1)" onclick="alert(1)">y</a><img src=x onerror=alert(1) '
    'alt="<script>alert(1)</script>"></math>',
    "<math><mrow><b><style><img src=x onerror=alert(1)></style></b><script>alert(1)</script></mrow></math>",
    '<mi><img src=x onerror=alert(1)></mi><mtext><iframe srcdoc="<script>alert(1)</script>"></iframe></mtext>',
    "<math><mtext></math><textarea><mi></textarea><img src=x onerror=alert(1)><math><xmp><script></xmp>",
    "<math><svg><mi><b><img src=x onerror=alert(1)></b></mi></svg><mi>x</mi></math>",
])
def test_text_kept_in_or_out_of_a_formula_lets_no_markup_through(renderer: MarkdownRenderer, raw: str) -> None:
    """Taking an HTML element's tags out of a formula, or a MathML element's out of a sentence, keeps its text
    (an image's alt text is text, tags and all) and nothing the allow-list leaves out."""
    for html in (renderer.html(raw), renderer.inline(raw)):
        assert_safe(str(html))


@pytest.mark.parametrize(("raw", "alt"), [
    ("![*bold* alt](https://e.org/i.png)", "bold alt"),
    ("![a \\* b &amp; c &copy; `code`](https://e.org/i.png)", "a * b & c © code"),
    ("![[a link](https://e.org) and ~~struck~~ __strong__](https://e.org/i.png)", "a link and struck strong"),
    ("![![inner *i*](https://e.org/j.png) outer](https://e.org/i.png)", "inner i outer"),
    ("![line\none](https://e.org/i.png)", "line one"),
    ("![cited [1] here](https://e.org/i.png)", "cited here"),
    ("![<b>raw</b> <script>alert(1)</script>tags &lt;kept&gt;](https://e.org/i.png)", "raw tags <kept>"),
    ("![<math alttext=\"x squared\"><msup><mi>x</mi><mn>2</mn></msup></math>](https://e.org/i.png)", "x squared"),
])
def test_an_image_reads_as_its_alt_attribute_holds_it_in_every_text(renderer: MarkdownRenderer, raw: str,
                                                                     alt: str) -> None:
    """An image's alt text was read as its Markdown in plain text and the email's text part (`*bold* alt`), and
    its `alt` attribute held raw HTML's tags as written: both read it as a browser shows the description's text."""
    text = f"See {raw} now."
    [image] = elements(str(renderer.html(text)), "img")
    assert image.get("alt") == alt
    assert plain_text(text) == f"See {alt} now."
    marks = TextMarks(resolve, lambda href: f"<{href}>")
    assert reading_text(text, width=200, marks=marks) == f"See {alt} <https://e.org/i.png> now."


def test_allowed_raw_html_survives(renderer: MarkdownRenderer) -> None:
    html = renderer.html('<details><summary>More</summary>\n\nHidden [2]\n\n</details>\n\n'
                         'An <abbr title="artificial intelligence">AI</abbr> said '
                         '<span lang="en" style="color:red" class="x">hello</span>.')
    assert [el.tag for el in elements(html) if el.tag in {"details", "summary", "abbr", "span", "sup"}] == [
        "details", "summary", "sup", "abbr", "span"]
    (span,) = elements(html, "span")
    assert span.attrib == {"lang": "en"}
    assert elements(html, "abbr")[0].attrib == {"title": "artificial intelligence"}


def test_comments_are_stripped(renderer: MarkdownRenderer) -> None:
    assert "secret" not in renderer.html("a <!-- secret --> b\n\n<!-- secret block -->\n")


def test_table_alignment_uses_classes_not_styles(renderer: MarkdownRenderer) -> None:
    html = renderer.html("| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n")
    assert [th.get("class") for th in elements(html, "th")] == ["align-left", "align-center", "align-right"]
    assert all("style" not in el.attrib for el in elements(html))


def test_output_is_markup_safe_for_templates(renderer: MarkdownRenderer) -> None:
    html = renderer.html("Fast & cheap [1] <script>x</script>")
    assert isinstance(html, Markup)
    template = Environment(autoescape=True).from_string("<div>{{ body }}</div><div>{{ raw|safe }}</div>")
    page = template.render(body=html, raw=str(html))
    assert page == f"<div>{html}</div><div>{html}</div>"
    assert "&amp;amp;" not in page


def test_inline_has_no_paragraph_and_ignores_block_syntax(renderer: MarkdownRenderer) -> None:
    assert renderer.inline("# Not a heading, *em* [3]") == f"# Not a heading, <em>em</em> {cite(3, 1)}"


def test_rendering_is_deterministic(renderer: MarkdownRenderer) -> None:
    text = "\n\n".join(["# T [1]", "[GPU](entry:gpu) [2] [1]", "| a |\n|---|\n| [3] |", *XSS_PAYLOADS[:10]])
    assert renderer.html(text) == renderer.html(text) == MarkdownRenderer(resolve, source_href).html(text)


# --- plain text ------------------------------------------------------------------

def test_plain_text_of_representative_input() -> None:
    text = """# Trainium [1]

Trainium is **Amazon's** chip [4], cheap [5][6].
It runs [large models](https://example.com) and [GPU](entry:gpu) work.\\
Hard break.

- one
- two [2]
  1. nested
  2. more

> Quoted &amp; <b>bold</b> <script>evil()</script> `code [7]`

| Spec | Value |
|---|---|
| Node | 5 nm [3] |

```
code block
```

<details><summary>More</summary>

Hidden.

</details>
"""
    assert plain_text(text) == (
        "Trainium\n\n"
        "Trainium is Amazon's chip, cheap. It runs large models and GPU work.\nHard break.\n\n"
        "- one\n- two\n  1. nested\n  2. more\n\n"
        "Quoted & bold code [7]\n\n"
        "Spec | Value\nNode | 5 nm\n\n"
        "code block\n\n"
        "More\n\n"
        "Hidden."
    )


def test_plain_text_has_no_markup_and_keeps_entities_as_characters() -> None:
    assert plain_text("A &lt;tag&gt; &amp; <em>x</em> *y* [z](entry:missing) [1]") == "A <tag> & x y z"


def test_plain_text_reads_a_link_the_pages_refuse_as_its_text() -> None:
    """Search snippets, feed summaries and meta descriptions read `[x](javascript:…)` as "x", as `[x](ftp://…)`."""
    text = "A [link](javascript:alert(1)), [a file](<file:///etc/x>), [4](data:text/html,x) [1] and [ftp](ftp://x)."
    assert plain_text(text) == "A link, a file, 4 and ftp."
    assert plain_text("[click][r]\n\n[r]: javascript:alert(1)\n\nAfter.") == "click\n\nAfter."
    assert reading_text(text, width=200, marks=TextMarks(lambda kind, target: None, lambda href: "[9]")) == \
        "A link, a file, 4 and ftp."


def test_plain_text_of_empty_input() -> None:
    assert plain_text("") == "" and plain_text("\n\n  \n") == ""


def test_reading_text_keeps_paragraphs_and_list_items_apart_and_wraps_each() -> None:
    assert reading_text("P1.\n\nP2.\n\n- item one\n- item two", width=72) == "P1.\n\nP2.\n\n- item one\n- item two"
    text = "Lorem ipsum dolor sit amet. " * 3 + "\n\n1. " + "consectetur adipiscing " * 3 + "\n   - " + "elit " * 6
    assert reading_text(text, width=30) == (
        "Lorem ipsum dolor sit amet.\nLorem ipsum dolor sit amet.\nLorem ipsum dolor sit amet.\n\n"
        "1. consectetur adipiscing\n   consectetur adipiscing\n   consectetur adipiscing\n"
        "  - elit elit elit elit elit\n    elit")
    long_word = "x" * 50
    assert reading_text(f"a {long_word} b https://example.org/{long_word}", width=20).split("\n") == [
        "a", long_word, "b", f"https://example.org/{long_word}"]
    assert reading_text("```\n" + "code " * 20 + "\n```", width=20) == "code " * 20  # code keeps its lines


def test_reading_text_marks_the_links_the_html_shows_as_links() -> None:
    marks = TextMarks(resolve, lambda href: f"<{href}>")
    text = "[a](entry:gpu), [b](entry:missing), [c](ftp://example.org/c), [d](https://example.org/d) [1], [e](../e)"
    assert reading_text(text, width=200, marks=marks) == (
        "a </en/glossary/gpu/>, b, c, d <https://example.org/d>, e <../e>")
    assert reading_text(text, width=200) == plain_text(text)
    cited = TextMarks(resolve, lambda href: None, citation=lambda number: f"({number})" if number == 1 else None)
    assert reading_text("One [1], two [2]; a [link](https://example.org/) [1].", width=200, marks=cited) == (
        "One (1), two; a link (1).")


# --- nesting and robustness --------------------------------------------------------

@pytest.mark.parametrize("text", [
    ">" * 10_000 + " deep [1]",
    "\n".join(">" * i + " x" for i in range(1, 2_000)),
    "- " * 10_000 + "x",
    "1. " * 10_000 + "x",
    "[" * 10_000 + "x" + "]" * 10_000,
    "*" * 10_000 + "x" + "*" * 10_000,
    "<div>" * 5_000 + "x",
    "[x](entry:gpu)" * 5_000,
])
def test_deep_nesting_degrades_without_recursion_error(renderer: MarkdownRenderer, text: str) -> None:
    start = time.monotonic()
    html = renderer.html(text)
    plain_text(text)
    find_references(text)
    assert time.monotonic() - start < 20
    assert len(elements(html, "blockquote")) <= renderer.max_nesting
    assert len(elements(html, "li")) <= renderer.max_nesting


def test_max_nesting_is_configurable() -> None:
    shallow = MarkdownRenderer(resolve=resolve, max_nesting=5)
    html = shallow.html(">" * 50 + " x")
    assert 1 <= len(elements(html, "blockquote")) <= 5
    with pytest.raises(ValueError):
        MarkdownRenderer(resolve=resolve, max_nesting=0)


def test_lone_surrogates_do_not_raise(renderer: MarkdownRenderer) -> None:
    assert "\ufffd" in renderer.html("broken \ud800 text")
    assert plain_text("broken \udfff text") == "broken \ufffd text"


MARKDOWN_PIECES = st.sampled_from([*"[]()<>!*_`#>-|:\\/&;=\"' \n\t0123456789abcjsvxy",
                                   "entry:", "page:", "issue:", "javascript:", "http://", "<script>",
                                   "<a href=", "onerror=", "&#58;", "\x00", "\ud800", "é", "ő"])
MARKDOWNISH = st.lists(MARKDOWN_PIECES, max_size=120).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(st.text(max_size=300), MARKDOWNISH))
def test_never_raises_and_stays_safe(text: str) -> None:
    renderer = MarkdownRenderer(resolve=resolve, citation_href=source_href)
    html = renderer.html(text)
    assert html == renderer.html(text)
    assert_safe(html)
    assert_safe(renderer.inline(text))
    plain_text(text)
    refs = find_references(text)
    assert sum(len(ids) for ids in citation_backrefs(text).values()) == len(refs.citations)


# --- HTML rendered ahead ----------------------------------------------------------

class Store(dict):
    def put(self, key: str, value: object) -> None:
        self[key] = value


CITATIONS = ["[1]", "[2]", " [3].", "[12]", "| a | b [1] |\n|---|---|\n", "![alt [1]](x.png)",
             "[see [2]](https://x.org)"]
#: Links inside the site: known targets, one no page knows, one that is malformed, one in a table and in
#: a list, one around a citation, an image that looks like one.
INTERNAL_LINKS = ["[GPU](entry:gpu)", " [Trainium](entry:trainium).", "[the method](page:method)",
                  "[issue 13](issue:13)", "[gone](entry:gone)", "[bad](entry:Bad_Slug)", "[twice](entry:gpu)",
                  "| [GPU](entry:gpu) | b |\n|---|---|\n", "\n- [x](issue:13)\n", "[see [2]](entry:gpu)",
                  "![gpu](entry:gpu)", "[odd](entry:odd)", '[q](page:method "a title")']
CITING = st.lists(st.one_of(MARKDOWN_PIECES, st.sampled_from(CITATIONS), st.sampled_from(INTERNAL_LINKS)),
                  max_size=120).map("".join)

#: What pages resolve links to: the site's root-relative hrefs, and (in feeds and emails) absolute ones;
#: one that would be escaped, and none for a target the page does not show.
HREFS = {**KNOWN, ("entry", "odd"): "/en/glossary/odd?x=1&y=\"2\"/"}


def absolute(kind: str, target: str) -> str | None:
    found = HREFS.get((kind, target))
    return None if found is None else "https://example.org" + found


def shown_in_part(kind: str, target: str) -> str | None:
    return None if kind == "issue" else HREFS.get((kind, target))


@pytest.mark.long
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(CITING, st.sampled_from(XSS_PAYLOADS)),
       padding=st.sampled_from(["", "Padding text. " * 12, "Padding *text* [4]. " * 8]))
def test_html_rendered_ahead_is_the_html_rendered_when_asked(text: str, padding: str) -> None:
    # A build's parse for references renders long texts ahead; a page then only puts its own citation
    # anchors and link targets in. Same bytes as rendering on the spot.
    text = padding + text
    renderers = [MarkdownRenderer(resolve=resolve, citation_href=SourceAnchors("story-a-source")),
                 MarkdownRenderer(resolve=resolve, citation_href=SourceAnchors("source")),
                 MarkdownRenderer(resolve=resolve, citation_href=source_href),
                 MarkdownRenderer(resolve=resolve),
                 MarkdownRenderer(resolve=lambda kind, target: HREFS.get((kind, target)),
                                  citation_href=SourceAnchors("source")),
                 MarkdownRenderer(resolve=absolute, citation_href=SourceAnchors("source")),
                 MarkdownRenderer(resolve=shown_in_part)]
    prefixes = ["cite", "cite-a-body"]
    expected = [(renderer.html(text, anchor_prefix=prefix), renderer.inline(text, anchor_prefix=prefix))
                for renderer in renderers for prefix in prefixes]
    expected_plain = plain_text(text)
    html = Store()
    with remembered_references(Store(), Store(), html):
        found = find_references(text)
        assert [(renderer.html(text, anchor_prefix=prefix), renderer.inline(text, anchor_prefix=prefix))
                for renderer in renderers for prefix in prefixes] == expected
        assert plain_text(text) == expected_plain
    assert len(html) == (1 if len(text) >= PLAIN_AHEAD else 0)
    if html:  # each link inside the site has a placeholder
        (ahead,) = html.values()
        assert sorted(tuple(link) for link in (ahead[2] if len(ahead) > 2 else [])) == sorted(
            [("entry", slug) for slug in found.entries] + [("page", slug) for slug in found.pages]
            + [("issue", str(number)) for number in found.issues])


# --- Plain prose without markdown-it -------------------------------------------------

# Prose pieces, and the syntax around them that must send a text to markdown-it.
PROSE_PIECES = st.sampled_from([*"ab é1290 \n.,;:?!()#>+=-[]{}$%@^'\"/\u00ad\u200b\ufeff\uffff\u0300\u05d0\u2066",
                                "word ", "Szó, ", "\n\n", "\n\n\n", "  ", "[1]", "[12]", "[007]", "[0]", " [3].",
                                " [2] [2]", "[1234567890]", "1.", "1)", "2024. ", "[1](x)", "[1][2]", "![1]", "\u00a0",
                                "\t", "\r", "\x00", "\ud800", "*", "_", "`", "~", "|", "&amp;", "<b>", "\\", "\u2028"])
PROSE = st.lists(PROSE_PIECES, max_size=40).map("".join)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(PROSE, st.text(alphabet="ab [1]\n.-#", max_size=40)))
def test_plain_prose_renders_as_markdown_it_renders_it(text: str) -> None:
    # Plain prose (paragraphs, citations) is tokenised, rendered and read without markdown-it; a
    # parser with another nesting limit always takes markdown-it's way, and must agree.
    by_markdown_it = MarkdownRenderer(resolve=resolve, citation_href=SourceAnchors("src"), max_nesting=19)
    renderer = MarkdownRenderer(resolve=resolve, citation_href=SourceAnchors("src"))
    for prefix in ("cite", "cite-a-body"):
        assert renderer.html(text, anchor_prefix=prefix) == by_markdown_it.html(text, anchor_prefix=prefix)
    assert MarkdownRenderer(resolve=resolve).html(text) == MarkdownRenderer(resolve=resolve, max_nesting=19).html(text)
    assert plain_text(text) == plain_text(text, max_nesting=19)
    assert find_references(text) == find_references(text, max_nesting=19)
    tokens = prose_tokens(text)
    if tokens is not None and "[" not in text:  # no citations: markdown-it's own tokens, line maps and all
        assert tokens == MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).parse(text)


def test_plain_prose_is_recognised_and_syntax_is_not() -> None:
    prose = 'Első sor "idézet" [1] és [23].\nMásodik sor [2]\n\n\nHarmadik, 2024-ben.\n'
    tokens = prose_tokens(prose)
    assert tokens is not None
    assert [token.type for token in tokens] == ["paragraph_open", "inline", "paragraph_close"] * 2
    assert [child.type for child in tokens[1].children or ()] == [
        "text", "citation", "text", "citation", "text", "softbreak", "text", "citation"]
    assert tokens[4].map == [4, 5]
    assert prose_tokens("a ] [1]]") is not None  # a `]` alone is text to markdown-it too
    for syntax in ["a *b*", "a_b", "[x](https://e.org)", "[1](x)", "[1][2]", "![1]", "a  \nb", "# h", "- item",
                   "2024. január", "a\n---", "a | b", "a\tb", "a\u00a0", "\ufeffa", "a &amp; b", "a <b>", "a\\b",
                   "[1234567890]", "a [", "1) x", "a\r\nb", " a", "a\n b"]:
        assert prose_tokens(syntax) is None, syntax


# --- raw HTML made valid HTML5 (tests/test_html_conformance.py checks the built pages with vnu) -----------

@pytest.mark.parametrize(("raw", "html"), [
    ('<span lang="english">a</span> <span lang="hu_HU">b</span> <span lang="hu-Latn">c</span>',
     "<p><span>a</span> <span>b</span> <span>c</span></p>\n"),
    ('<span lang="pt-BR">a</span> <span lang="sr-Latn">b</span> <span lang="es-419">c</span>',
     '<p><span lang="pt-BR">a</span> <span lang="sr-Latn">b</span> <span lang="es-419">c</span></p>\n'),
    ('<ol start="one"><li>a</li></ol><ol start="-2"><li>b</li></ol>',
     '<ol><li>a</li></ol><ol start="-2"><li>b</li></ol>'),
    ('<table><tr><td colspan="0" rowspan="x">a</td><td colspan="2">b</td><th scope="everything">c</th></tr>'
     '<tr><td>d</td><td>e</td><td>f</td><td>g</td></tr></table>',
     '<table><tbody><tr><td>a</td><td colspan="2">b</td><th>c</th></tr>'
     '<tr><td>d</td><td>e</td><td>f</td><td>g</td></tr></tbody></table>'),
    ('<a href="https://example.org/a b?q=c d#e#f">a</a> <a href="https://example.org/%zz">b</a>',
     '<p><a href="https://example.org/a%20b?q=c%20d#e%23f" rel="noopener noreferrer">a</a> '
     '<a href="https://example.org/%25zz" rel="noopener noreferrer">b</a></p>\n'),
    ('<a href="https://example.org/a b#c?d">a</a> <a href="mailto:x y">b</a>',
     '<p><a href="https://example.org/a%20b#c?d" rel="noopener noreferrer">a</a> '
     '<a href="mailto:x%20y" rel="noopener noreferrer">b</a></p>\n'),
    ('<a href="https://a..b/">a</a> <a href="https:///x">b</a> <img src="https://example.org/a b.png" alt="c">',
     '<p><a>a</a> <a>b</a> <img src="https://example.org/a%20b.png" alt="c"></p>\n'),
])
def test_raw_html_attribute_values_are_kept_as_html5_allows_them_mended_or_left_out(
        renderer: MarkdownRenderer, raw: str, html: str) -> None:
    assert str(renderer.html(raw)) == html


@pytest.mark.parametrize(("raw", "html"), [
    ("<li>an item</li> <dt>a term</dt><dd>its text</dd>", "<div>an item</div> <div>a term</div><div>its text</div>"),
    ("Text <summary>a summary</summary> and <figcaption>a caption</figcaption>.",
     "<p>Text </p><div>a summary</div> and <div>a caption</div>.<p></p>\n"),
    ("<ul>text<li>an item</li><p>a paragraph</p></ul>",
     "<ul><li>text</li><li>an item</li><li><p>a paragraph</p></li></ul>"),
    ("<dl><dd>before its term</dd><dt>a term</dt></dl><dl><dt>a</dt><dd>b</dd></dl>",
     "<div><div>before its term</div><div>a term</div></div><dl><dt>a</dt><dd>b</dd></dl>"),
    ("<details>no summary</details><details><summary>one</summary><summary>two</summary>x</details>",
     "<div>no summary</div><details><summary>one</summary><div>two</div>x</details>"),
    ('<figure><figcaption>a</figcaption><img src="https://e.org/i.png" alt="i"><figcaption>b</figcaption></figure>',
     '<figure><figcaption>a</figcaption><img src="https://e.org/i.png" alt="i"><div>b</div></figure>'),
    ("<span>\n\n- a list in a span\n\n</span>", "\n<ul>\n<li>a list in a span</li>\n</ul>\n"),
    ('<img alt="no source"> ![a data image](data:image/png;base64,iVBORw0KGgo=)',
     "<p>no source a data image</p>\n"),
    ('<img alt="<script>alert(1)</script> &amp; &quot;"> <img src="javascript:alert(1)" alt="<b>">',
     "<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot; &lt;b&gt;</p>\n"),
])
def test_raw_html_elements_stand_where_html5_allows_them_each_word_kept(renderer: MarkdownRenderer, raw: str,
                                                                        html: str) -> None:
    assert str(renderer.html(raw)) == html


def test_an_id_written_in_raw_html_never_repeats_a_citation_s(renderer: MarkdownRenderer) -> None:
    """A raw `<a id="cite-1-1">` (pasted, or another text's anchor on the same page) made a duplicate id."""
    html = str(renderer.html('<a id="cite-1-1" href="#x">a</a> <a id="story-x-1-1" href="#y">b</a> [1]'))
    assert html == ('<p><a href="#x">a</a> <a href="#y">b</a> '
                    '<sup class="cite"><a href="#source-1" id="cite-1-1">1</a></sup></p>\n')


@pytest.mark.parametrize(("raw", "html"), [
    ("<dfn>a <dfn>b</dfn> c</dfn>, <dfn>d</dfn> <abbr><dfn>e</dfn></abbr>",
     "<p><dfn>a b c</dfn>, <dfn>d</dfn> <abbr><dfn>e</dfn></abbr></p>\n"),
    ("<details><summary><p>a paragraph</p><ul><li>a list</li></ul></summary>x</details>",
     "<details><summary>a paragraph a list</summary>x</details>"),
    ("<details><summary><h3>a heading</h3></summary>x</details><details><summary><h3>a heading</h3>"
     "<p>and a paragraph</p></summary>y</details>",
     "<details><summary><h3>a heading</h3></summary>x</details><details><summary>a heading and a paragraph"
     "</summary>y</details>"),
    ("<details><summary><details><summary>in</summary>a fold</details></summary>x</details>",
     "<details><summary>in a fold</summary>x</details>"),
    ("<details><summary>a <ins><h2>heading</h2></ins> in an insertion</summary>y</details>",
     "<details><summary>a <ins>heading </ins> in an insertion</summary>y</details>"),
    ("| a |\n|---|\n| b</td></tr></tbody><thead><tr><td>c |",
     "<table><thead>\n<tr>\n<th>a</th>\n</tr>\n</thead><tbody>\n<tr>\n<td>b</td></tr></tbody>"
     "<tbody><tr><td>c</td>\n</tr>\n\n</tbody></table>\n"),
    ("<details><summary><ul>a list's text<b>x</b></ul></summary>y</details>",
     "<details><summary>a list's text<b>x</b></summary>y</details>"),
    ("Text <em><blockquote>quoted</blockquote></em> and <b><p>a paragraph</p></b>",
     "<p>Text <em></em></p><blockquote><em>quoted</em></blockquote> and <p>a paragraph</p><p></p>\n"),
    ('<table><tr><td colspan="3">a</td></tr><tr><td>b</td><td>c</td></tr></table>'
     '<table><tr><td>1</td><td rowspan="0">2</td></tr><tr><td>3</td></tr></table>',
     '<table><tbody><tr><td colspan="2">a</td></tr><tr><td>b</td><td>c</td></tr></tbody></table>'
     '<table><tbody><tr><td>1</td><td rowspan="0">2</td></tr><tr><td>3</td></tr></tbody></table>'),
    ('<table><tr><td colspan="3">a</td></tr><tr><td colspan="2">b</td><td>c</td></tr></table>',
     '<table><tbody><tr><td colspan="2">a</td></tr><tr><td>b</td><td>c</td></tr></tbody></table>'),
    ('<table><thead><tr><th rowspan="2">a</th></tr></thead><tr><td rowspan="3">b</td><td>c</td></tr>'
     '<tr><td>d</td></tr><tr></tr></table>',
     '<table><thead><tr><th>a</th><td></td></tr></thead><tbody><tr><td rowspan="2">b</td><td>c</td></tr>'
     '<tr><td>d</td></tr></tbody></table>'),
    ("<table><caption>a</caption><caption>b</caption><tfoot><tr><td>f</td></tr></tfoot><thead><tr><td>h</td>"
     "</tr></thead><thead><tr><td>i</td></tr></thead><tr><td>j</td></tr><tfoot><tr><td>g</td></tr></tfoot></table>",
     "<table><caption>a b</caption><thead><tr><td>h</td></tr></thead><tbody><tr><td>i</td></tr></tbody>"
     "<tbody><tr><td>j</td></tr></tbody><tbody><tr><td>g</td></tr></tbody><tfoot><tr><td>f</td></tr></tfoot>"
     "</table>"),
    ("<table><caption><table><tr><td>x</td><td>y</td></tr></table></caption><tr><td>z</td></tr></table>",
     "<table><caption><div>x</div><div>y</div></caption><tbody><tr><td>z</td></tr></tbody></table>"),
    ('<table><tr><td>a</td><td rowspan="2">b</td><td>c</td></tr><tr><td colspan="3">d</td></tr></table>',
     '<table><tbody><tr><td>a</td><td rowspan="2">b</td><td>c</td></tr><tr><td>d</td><td></td></tr></tbody>'
     '</table>'),
    ('<table><tr><td>a</td><td>b</td><td>c</td></tr><tr><td>d</td></tr><tr><td colspan="2">e</td></tr></table>'
     '<table><tr><td>f</td></tr><tr><td>g</td><td>h</td></tr></table>',
     '<table><tbody><tr><td>a</td><td>b</td><td>c</td></tr><tr><td>d</td><td colspan="2"></td></tr>'
     '<tr><td colspan="2">e</td><td></td></tr></tbody></table>'
     '<table><tbody><tr><td>f</td><td></td></tr><tr><td>g</td><td>h</td></tr></tbody></table>'),
    ('<blockquote><a href="https://e.org/a">a <table><tr><td><a href="https://e.org/b">b</a></td></tr></table></a>'
     '<a href="https://e.org/c"><details><summary>s</summary>x</details></a></blockquote>',
     '<blockquote><a href="https://e.org/a" rel="noopener noreferrer">a <table><tbody><tr><td>b</td></tr></tbody>'
     '</table></a><a href="https://e.org/c" rel="noopener noreferrer"><div><div>s</div>x</div></a></blockquote>'),
    ("<dl><dt><h3>a term</h3></dt><dd><h3>its text</h3></dd></dl><table><tr><th><h3>a head</h3></th></tr></table>",
     "<dl><dt>a term</dt><dd><h3>its text</h3></dd></dl><table><tbody><tr><th>a head</th></tr></tbody></table>"),
])
def test_raw_html_descendants_and_table_spans_are_as_html5_allows_each_word_kept(
        renderer: MarkdownRenderer, raw: str, html: str) -> None:
    """A <dfn> in a <dfn>, blocks in a summary, a heading in a term or a header cell, a table in a caption, a
    span past a table's columns or its row group's rows or over a cell spanning down, a row short of the table's
    columns (which the Nu HTML Checker warns of: each ends in an empty cell), a second caption, head or foot, a
    link or a fold in a link: what a word processor's or a web page's paste holds."""
    assert str(renderer.html(raw)) == html


@pytest.mark.parametrize(("raw", "html", "unnamed"), [
    ('Before <a href="https://e.org/a"><p>Text</p></a> after',
     '<p>Before </p><p><a href="https://e.org/a" rel="noopener noreferrer">Text</a></p> after<p></p>', []),
    ('<a href="https://e.org/a"> <p>One</p><p>Two</p></a>',
     '<p></p><p><a href="https://e.org/a" rel="noopener noreferrer">One</a></p>'
     '<p><a href="https://e.org/a" rel="noopener noreferrer">Two</a></p><p></p>', []),
    ('x <a href="https://e.org/a"><ul><li>an item</li></ul></a>',
     '<p>x </p><ul><li><a href="https://e.org/a" rel="noopener noreferrer">an item</a></li></ul><p></p>', []),
    # No copy holds the words (a table cell starts afresh), or nothing is in it: the link is empty, and said.
    ('x <a href="https://e.org/a"><table><tr><td>a cell</td></tr></table></a>',
     '<p>x <a href="https://e.org/a" rel="noopener noreferrer"></a></p><table><tbody><tr><td>a cell</td></tr>'
     '</tbody></table><p></p>', ["https://e.org/a"]),
    ('x <a href="https://e.org/a"><p><img src="https://e.org/i.png" alt=""></p></a>',
     '<p>x </p><p><a href="https://e.org/a" rel="noopener noreferrer"><img src="https://e.org/i.png" alt=""></a></p>'
     '<p></p>', ["https://e.org/a"]),
])
def test_a_raw_link_around_a_paragraph_is_named_by_its_words_not_left_empty(
        renderer: MarkdownRenderer, raw: str, html: str, unnamed: list[str]) -> None:
    """A paste's `<a href="…"><p>Text</p></a>` in a paragraph: HTML closes the paragraph, and the link with it,
    at the <p> and holds the words in a copy of the link; the empty link it left was a link with no name to a
    screen reader. It goes, as the words name the copy; `check` reads the page's links and agrees."""
    assert str(renderer.html(raw)) == html + "\n"
    assert unnamed_links(raw) == unnamed


@pytest.mark.parametrize(("raw", "words"), [
    ("<span>" * 600 + "deep" + "</span>" * 600, ["deep"]),
    ("<table><tr><td>" * 300 + "deep" + "</td></tr></table>" * 300, ["deep"]),
    ("<ul><li>" * 300 + "deep" + "</li></ul>" * 300, ["deep"]),
    ("<blockquote><p>" * 300 + "deep" + "</p></blockquote>" * 300, ["deep"]),
    ("x <b>" * 600 + "deep" + "</b>" * 600, ["x"] * 600 + ["deep"]),
])
def test_raw_html_nested_past_a_sane_depth_is_flattened_its_text_kept(renderer: MarkdownRenderer, raw: str,
                                                                    words: list[str]) -> None:
    """Browsers flatten a tree deeper than 513 levels (and the checker rejects it): past 64 of a text's own
    levels its content is its text, with no recursion on the way."""
    root = fragment(str(renderer.html(raw)))
    deepest, stack = 0, [(root, 0)]
    while stack:
        element, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in element)
    assert deepest <= 64 + 4  # a table's cells below the last level kept whole
    assert " ".join(root.itertext()).split() == words


_LINK_PIECES = ["[", "]", "](", "](https://e.org/a)", "][", "[1]", "[12]", "![](", "![](x.png)", "![](a_(b).png)",
                "![](a\\(b.png)", ")", "(", " ", "\n", "\n\n", "&nbsp;", "&#160;", "&amp",
                "<a href=\"https://e.org/b\">", "<a name=x>", "<A\thref=y>", "<a title=\"a<b\" href=\"z\">", "</a>",
                "<a ", "<span>", "</span>",
                "<img src=\"i.png\" alt=\"\">", "<b", ">", "<script>", "</script>", "text", "`", "\\",
                "<https://e.org/c>"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_LINK_PIECES), max_size=24))
@example(["<a href=\"https://e.org/b\">", "`", "</a>", "`"])  # the `</a>` is code: the link's copy holds nothing
@example(["<a href=\"https://e.org/b\">", "\\", "</a>"])  # the `</a>` is text, alike
def test_the_quick_filter_never_hides_a_link_with_no_name(pieces: list[str]) -> None:
    """Most texts are not parsed for links with no name (`check` looks in every text): a filter passes over
    them. Whatever mix of brackets, raw links, images, citations, references and tags a text holds, the links
    with no name found are those a reading of the whole text finds (the filter's patterns stop where another
    search may start, so a text of thousands of `<a x>` is searched in linear time; each opening searched the
    rest of the text again)."""
    text = "".join(pieces)
    assert unnamed_links(text) == list(_reading(text, DEFAULT_MAX_NESTING).unnamed)
