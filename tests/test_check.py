"""`newsroom check`: silent and zero on clean content; every problem named with its place."""

from __future__ import annotations

import re

import html5lib
import pytest
from sitebuild import OWN_SITE

from glossary.mentions import label_clashes
from newsroom import SAMPLE_DIR
from newsroom.build.model import Content, Record

#: The tests' working folder holds a published site's newsroom.toml: `check` names the content's problems alone
#: (of the preview's default address it warns, as a public build does: see test_addresses).
pytestmark = pytest.mark.usefixtures("public_address")


def test_the_sample_publication_is_clean(sample_cli):
    result = sample_cli("check")
    assert result.stdout == "" and result.stderr == ""


ENTRY = """\
kind: entry
slug: {slug}
category: infrastructure
level: basic
trend: mainstream
status: 2026-11
sources: [{{publisher: X, title: Y, url: "https://example.org/"}}]
relations: {relations}
hu:
  headword: {slug} hu
  definition: "{hu_definition}"
en:
  headword: {slug} en
  definition: "{en_definition}"
"""


def _entry(slug="x-entry", relations="{}", hu_definition="Magyar.", en_definition="English."):
    return ENTRY.format(slug=slug, relations=relations, hu_definition=hu_definition, en_definition=en_definition)


def _entry_with_history(history: str, en_definition: str = "Plain.") -> str:
    """`_entry`'s file with an English history (`history`: its YAML as written after `history: `, line ends
    included) and a plain Hungarian one."""
    entry = _entry(en_definition=en_definition) + "  history: " + history
    return entry.replace("  headword: x-entry hu\n", "  headword: x-entry hu\n  history: Régen.\n")


def _built_entry_page(sample_cli, tmp_path, slug):
    """The English page of entry `slug` in a build of the database into `tmp_path/site`, parsed."""
    site = tmp_path / "site"
    sample_cli("build", "--out", str(site))
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(
        (site / "en" / "glossary" / slug / "index.html").read_bytes())


@pytest.mark.sqlite_only("each finds its problem in content loaded alike from either database; the loading "
                         "is covered on PostgreSQL by the other tests here")
@pytest.mark.parametrize("files, expected", [
    ({"e.yaml": _entry(en_definition="")},
     "entry:x-entry: en.definition: missing translation (present in hu)"),
    ({"e.yaml": _entry(hu_definition="Lásd [ezt](entry:nowhere).")},
     "entry:x-entry: hu.definition: link to a missing entry 'nowhere'"),
    ({"e.yaml": _entry(en_definition="See [issue twelve](issue:twelve).")},
     "entry:x-entry: en.definition: link 'issue:twelve' leads nowhere: issue: takes an issue's number, e.g. issue:13"),
    ({"e.yaml": _entry(en_definition="See [the GPU](entry:GPU).")},
     "entry:x-entry: en.definition: link 'entry:GPU' leads nowhere: entry: takes a slug, e.g. entry:gpu"),
    ({"e.yaml": _entry(en_definition="As shown [3].")},
     "entry:x-entry: en.definition: citation [3] has no source (1 source listed)"),
    ({"e.yaml": _entry(relations="{related: [x-entry]}")},
     "entry:x-entry: relations.related[0]: an entry cannot be related to itself"),
    ({"a.yaml": _entry("a-entry", "{broader: [b-entry]}"), "b.yaml": _entry("b-entry", "{broader: [a-entry]}")},
     "entry:a-entry: relations.broader[0]: broader/narrower cycle: a-entry → b-entry → a-entry"),
    ({"a.yaml": _entry("a-entry", "{similar: [{entry: trainium, note: {en: Different.}}]}")},
     "entry:a-entry: relations.similar[0].note.hu: a confusable needs a note saying how it differs"),
])
def test_check_reports_each_problem_and_exits_1(sample_cli, write_files, files, expected):
    """Each problem stops every build: an import refuses it, naming its file and field; one stored all the
    same (`--no-check`, as a backup is restored) is named by `check`."""
    folder = write_files({f"entries/{k}": v for k, v in files.items()})
    location, said = expected.split(": ", 1)
    file = next(folder / "entries" / name for name, text in files.items() if f"slug: {location[6:]}\n" in text)
    refused = sample_cli("import", str(folder), expect=1).stderr.splitlines()
    assert any(re.fullmatch(rf"{re.escape(str(file))}:\d+: {re.escape(said)}", line) for line in refused), refused
    assert refused[-2].startswith("every build would stop on this error, which the content did not have before")
    assert sample_cli("check").stderr == ""
    sample_cli("import", "--no-check", str(folder))
    result = sample_cli("check", expect=1)
    assert expected in result.stderr.splitlines(), result.stderr


def test_a_link_of_a_scheme_the_site_does_not_link_is_a_warning_naming_the_schemes_it_does(sample_cli, write_files):
    """It is shown as its text, which the page survives (a warning; the import stores it): `reference:` for a
    reference page, an FTP server."""
    text = "See [the profile](reference:trainium) and [the files](ftp://example.org/f)."
    sample_cli("import", str(write_files({"e.yaml": _entry(en_definition=text)})))
    said = ("is shown as its text: links take http(s)://, mailto:, or entry:, page: and issue: for the site's own "
            "pages (a reference page is page:SLUG)")
    assert sample_cli("check").stderr.splitlines() == [
        f"entry:x-entry: en.definition: warning: link 'ftp://example.org/f' {said}",
        f"entry:x-entry: en.definition: warning: link 'reference:trainium' {said}", "0 error(s), 2 warning(s)"]


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_an_image_of_a_scheme_the_site_does_not_show_is_a_warning_naming_the_addresses_it_does(sample_cli, write_files,
                                                                                                 tmp_path):
    """`![chart](ftp://…)` is shown as its alt text, its `src` taken out, as a link of such a scheme is shown as
    its text: a warning at the field, once for each such image (but `data:`, said as left out); one of an address the
    page shows says nothing."""
    text = ("A ![chart](ftp://example.org/c.png), a ![GPU](entry:gpu), a ![plot](data:image/png;base64,AA) and "
            "a ![kept](https://example.org/k.png), in [a link ![x](ftp://example.org/x.png)](https://example.org/).")
    sample_cli("import", str(write_files({"e.yaml": _entry(en_definition=text)})))
    said = "is not shown, only its alt text: images take http(s):// or an address on this site (/img/chart.png)"
    assert sample_cli("check").stderr.splitlines() == [  # `data:` is said once, as HTML the site leaves out
        f"entry:x-entry: en.definition: warning: image 'entry:gpu' {said}",
        f"entry:x-entry: en.definition: warning: image 'ftp://example.org/c.png' {said}",
        f"entry:x-entry: en.definition: warning: image 'ftp://example.org/x.png' {said}",
        "entry:x-entry: en.definition: warning: the site leaves out […](data:…): write it in Markdown (a `\\<` shows "
        "a `<` as it is), or take it out", "0 error(s), 4 warning(s)"]
    page = _built_entry_page(sample_cli, tmp_path, "x-entry")  # what the reader gets: the alt texts, one image
    definition = page.find(".//p[@class='definition']")
    assert "".join(definition.itertext()) == "A chart, a GPU, a plot and a , in a link x."
    assert [img.get("src") for img in definition.iter("img")] == ["https://example.org/k.png"]

@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_a_mail_address_as_an_image_and_a_raw_image_of_a_scheme_not_shown_are_warned_as_images(sample_cli, write_files,
                                                                                                tmp_path):
    """An image cannot be a mail address: `![x](mailto:…)` is shown as its alt text, as `![chart](ftp://…)` is, and
    so is a raw `<img src='ftp://…'>`: each is said once, in the Markdown image's words (not as a `src=` the site
    leaves out). A link to a mail address, Markdown or raw, stays a link."""
    text = ("Write ![to the desk](mailto:desk@example.org), see <img src='ftp://example.org/r.png' alt='the raw chart'>"
            " and <img src='mailto:raw@example.org' alt='a raw desk'>, or [mail us](mailto:desk@example.org) and "
            "<a href='mailto:news@example.org'>the news desk</a>.")
    sample_cli("import", str(write_files({"e.yaml": _entry(en_definition=text)})))
    said = "is not shown, only its alt text: images take http(s):// or an address on this site (/img/chart.png)"
    assert sample_cli("check").stderr.splitlines() == [
        f"entry:x-entry: en.definition: warning: image 'ftp://example.org/r.png' {said}",
        f"entry:x-entry: en.definition: warning: image 'mailto:desk@example.org' {said}",
        f"entry:x-entry: en.definition: warning: image 'mailto:raw@example.org' {said}",
        "0 error(s), 3 warning(s)"]
    page = _built_entry_page(sample_cli, tmp_path, "x-entry")
    definition = page.find(".//p[@class='definition']")
    assert "".join(definition.itertext()) == (
        "Write to the desk, see the raw chart and a raw desk, or mail us and the news desk.")
    assert list(definition.iter("img")) == []
    assert [(a.get("href"), a.text) for a in definition.iter("a")] == [
        ("mailto:desk@example.org", "mail us"), ("mailto:news@example.org", "the news desk")]


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_raw_html_the_site_leaves_out_is_a_warning_naming_what(sample_cli, write_files):
    """Pasted or hostile HTML is sanitised away on every page, feed and email: the editor is told what readers
    will not see, at the field, and an allowed tag says nothing; a headline's `<` is text, shown as written."""
    hostile = ("Lead <img src=x onerror=alert(2)> and [a link](javascript:alert(3)) <script>alert(1)</script> "
               "with <b>bold</b>, <span style='color:red'>red</span> and <iframe src=x></iframe>")
    entry = _entry(en_definition="Plain.").replace("kind: entry", "kind: entry\nenglish_term: <b>kept as text</b>")
    entry += "  history: \"" + hostile.replace('"', '\\"') + "\"\n"
    entry = entry.replace("  headword: x-entry en\n", "  headword: x-entry <en>\n").replace(
        "  headword: x-entry hu\n", "  headword: x-entry hu\n  history: Régen.\n")
    sample_cli("import", str(write_files({"e.yaml": entry})))
    said = ("entry:x-entry: en.history: warning: the site leaves out […](javascript:…), onerror= of <img>, "
            "<script>, style= of <span> and more: write it in Markdown (a `\\<` shows a `<` as it is), or take it out")
    # The image itself is kept, without its onerror=, and without alt text: said too (see below).
    undescribed = ("entry:x-entry: en.history: warning: <img src=\"x\"> has no alt text: a screen reader reads its "
                   "file name instead; say what it shows in alt=\"…\", or write alt=\"\" if it is decoration")
    assert sample_cli("check").stderr.splitlines() == [undescribed, said, "0 error(s), 2 warning(s)"]


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_raw_html_left_out_with_its_text_kept_is_said_as_left_out_and_the_page_shows_the_text(
        sample_cli, write_files, tmp_path):
    """A paste's <noscript>, <textarea> and <select> leave their text on the page (an <iframe> its content, which
    no browser shows, does not: it leaves a link to the page it embeds): `check` names the tags the page leaves
    out, and what it says the reader gets is what the page shows."""
    history = ("Search: <noscript>needs <b>JavaScript</b></noscript>, <textarea>a <i>note</i></textarea>, "
               "<select><option>one</option><option>two</option></select>. <iframe src='https://example.org/v'>a "
               "video</iframe>.")
    sample_cli("import", str(write_files({"e.yaml": _entry_with_history(f'"{history}"\n')})))
    assert sample_cli("check").stderr.splitlines() == [
        "entry:x-entry: en.history: warning: <iframe src='https://example.org/v'> is shown as a link to the page it "
        "embeds, named by its title=\"…\" (else its address): pages, feeds and emails embed no video or chart",
        "entry:x-entry: en.history: warning: the site leaves out <noscript>, <textarea>, <select>, <option>: "
        "write it in Markdown (a `\\<` shows a `<` as it is), or take it out", "0 error(s), 2 warning(s)"]
    page = _built_entry_page(sample_cli, tmp_path, "x-entry")
    [history] = page.findall(".//section[@id='history']/p")
    assert "".join(history.itertext()) == "Search: needs JavaScript, a <i>note</i>, one / two. https://example.org/v."
    assert [child.tag for child in history] == ["b", "a"]


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_an_embed_is_shown_as_a_link_to_the_page_it_embeds_and_check_says_so(sample_cli, write_files, tmp_path):
    """A pasted `<iframe>` (a video, a chart) left nothing on the page: it is a link to the page it embeds, named
    by its title (else its address), its address checked as any link's and its title shown as text; `check`
    warns of each such embed at its field. One of a `srcdoc`, or of no http(s) address, shows nothing, as
    before: said as left out."""
    history = ("A talk: <iframe src='https://www.youtube.com/embed/abc?start=5&amp;rel=0' title='The talk, <b>live</b>'"
               " width='560' allowfullscreen>fallback</iframe>, a chart <iframe src='https://example.org/chart'>"
               "</iframe>, a page <iframe srcdoc='<p>hi'></iframe>, <iframe src='javascript:alert(1)' title='x'>"
               "</iframe>and <iframe src='https://e.org/x&quot; onmouseover=&quot;alert(1)' "
               "title='&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;'></iframe>.")
    sample_cli("import", str(write_files({"e.yaml": _entry_with_history(f'"{history}"\n')})))
    said = ("is shown as a link to the page it embeds, named by its title=\"…\" (else its address): pages, feeds and "
            "emails embed no video or chart")
    assert sample_cli("check").stderr.splitlines() == [
        f"entry:x-entry: en.history: warning: <iframe src='https://e.org/x%22%20onmouseover=%22alert(1)'> {said}",
        f"entry:x-entry: en.history: warning: <iframe src='https://example.org/chart'> {said}",
        f"entry:x-entry: en.history: warning: <iframe src='https://www.youtube.com/embed/abc?start=5&rel=0'> {said}",
        "entry:x-entry: en.history: warning: the site leaves out <iframe>: write it in Markdown (a `\\<` shows a `<` "
        "as it is), or take it out", "0 error(s), 4 warning(s)"]
    page = _built_entry_page(sample_cli, tmp_path, "x-entry")
    [history] = page.findall(".//section[@id='history']/p")
    assert "".join(history.itertext()) == (
        'A talk: The talk, <b>live</b>, a chart https://example.org/chart, a page , and "><script>alert(2)</script>.')
    assert [(a.get("href"), a.text, a.get("rel"), len(a)) for a in history] == [
        ("https://www.youtube.com/embed/abc?start=5&rel=0", "The talk, <b>live</b>", "noopener noreferrer", 0),
        ("https://example.org/chart", "https://example.org/chart", "noopener noreferrer", 0),
        ("https://e.org/x%22%20onmouseover=%22alert(1)", '"><script>alert(2)</script>', "noopener noreferrer", 0)]
    assert not list(page.iter("iframe")) and not [element for element in page.iter() if "onmouseover" in element.attrib]


MATH = "<msup><mi mathvariant='bold' onclick='alert(1)'>x</mi><mn>2</mn></msup>"


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_raw_html_that_lost_its_content_is_shown_and_check_says_what_changed(sample_cli, write_files, tmp_path):
    """An <xmp>, an <applet>, a formula (<math>) and a protocol-relative embed (`//host/…`) left nothing on the
    page: the <xmp>'s text is shown as written, as preformatted text; the applet's fallback, cleaned, as an
    <object>'s; the formula as MathML, without what MathML Core does not have (an onclick=); the embed as a
    link to `https://host/…`. `check` says what the page leaves out, in the words it says it of any tag."""
    history = (f"Code: <xmp><b>x</b> &amp; y</xmp> An <applet code='a.class'><param name='p'>its <i>fallback</i>"
               f"</applet>, a formula <math alttext='x squared' href='https://example.org/m'>{MATH}</math> and a "
               "video <iframe src='//video.example.org/v?a=1&amp;b=2' title='The talk'></iframe>.")
    sample_cli("import", str(write_files({"e.yaml": _entry_with_history(f'"{history}"\n')})))
    assert sample_cli("check").stderr.splitlines() == [
        "entry:x-entry: en.history: warning: <iframe src='https://video.example.org/v?a=1&b=2'> is shown as a link "
        "to the page it embeds, named by its title=\"…\" (else its address): pages, feeds and emails embed no video "
        "or chart",
        "entry:x-entry: en.history: warning: the site leaves out <xmp>, <applet>, <param>, href= of <math> and more: "
        "write it in Markdown (a `\\<` shows a `<` as it is), or take it out", "0 error(s), 2 warning(s)"]
    page = _built_entry_page(sample_cli, tmp_path, "x-entry")
    history = page.find(".//section[@id='history']")
    [pre] = history.iter("pre")
    assert pre.text == "<b>x</b> & y" and len(pre) == 0
    assert "An its fallback, a formula" in " ".join("".join(history.itertext()).split())
    [formula] = history.iter("{http://www.w3.org/1998/Math/MathML}math")
    assert formula.attrib == {"alttext": "x squared"}
    assert [(element.tag.split("}")[1], element.attrib, element.text) for element in formula.iter()][1:] == [
        ("msup", {}, None), ("mi", {"mathvariant": "bold"}, "x"), ("mn", {}, "2")]
    assert [(a.get("href"), a.text) for a in history.iter("a")] == [("https://video.example.org/v?a=1&b=2", "The talk")]
    assert not [element for element in page.iter() if element.tag in ("applet", "xmp", "iframe", "param")]


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_a_formula_without_alttext_is_a_warning_saying_what_it_is_read_as(sample_cli, write_files):
    """A formula is shown as MathML, but where it is read as text (the email's text part, feed summaries, search)
    it reads as its bare text, "x2" for x²: a warning at the field, once per formula read alike; one with an
    `alttext` says nothing."""
    history = (f"Area: <math>{MATH}</math>, again <math>{MATH}</math>, and <math alttext='x squared'>{MATH}</math>."
               .replace(" onclick='alert(1)'", ""))
    sample_cli("import", str(write_files({"e.yaml": _entry_with_history(f'"{history}"\n')})))
    assert sample_cli("check").stderr.splitlines() == [
        "entry:x-entry: en.history: warning: <math> has no alttext: the email's text part, feed summaries, search and "
        "screen readers without MathML read it as 'x2'; say how it reads in alttext=\"…\"", "0 error(s), 1 warning(s)"]


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_a_link_with_nothing_to_read_is_a_warning_saying_how_to_name_it(sample_cli, write_files):
    """`[](…)` and an image link without alt text were links a screen reader could only call "link" (or spell
    out the address of): built without a word. A link with text, or with an image described, says nothing."""
    text = ("A [](https://example.org/empty) link, a logo [![](https://example.org/l.png)](https://example.org/logo), "
            "<a href='https://example.org/raw'></a>, and [named](https://example.org/ok), "
            "[![The logo](https://example.org/l.png)](https://example.org/alt) or <https://example.org/auto>.")
    entry = _entry_with_history('"' + text + '"\n')
    sample_cli("import", str(write_files({"e.yaml": entry})))
    said = ("has no text: screen readers say \"link\" and nothing more; write its text between the brackets "
            "([text](…)), or alt text for its image ([![what it shows](…)](…))")
    assert sample_cli("check").stderr.splitlines() == [
        f"entry:x-entry: en.history: warning: link '{url}' {said}" for url in (
            "https://example.org/empty", "https://example.org/logo", "https://example.org/raw")] + [
        "0 error(s), 3 warning(s)"]


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_a_raw_link_holding_only_an_image_marked_as_decoration_is_a_link_with_nothing_to_read(sample_cli, write_files,
                                                                                              tmp_path):
    """`<a href="…"><img src="…" alt=""></a>`: the image is decoration (`alt=""`), so the link has no name, as
    `[![](logo.png)](…)` has none: a screen reader says "link". Warned as that one is; an image described in a
    link (raw or Markdown) names it, and one without alt is `images_without_alt`'s warning alone."""
    text = ("A logo <a href='https://example.org/raw-logo'> <img src='https://example.org/l.png' alt=''> </a>, "
            "[<img src='https://example.org/l.png' alt=\"\">](https://example.org/md-raw-logo), "
            "<a href='https://example.org/md-image'>![](https://example.org/l.png)</a>, "
            "<a href='https://example.org/described'><img src='https://example.org/l.png' alt='The logo'></a>, "
            "[<img src='https://example.org/l.png' alt='The logo'>](https://example.org/md-described) and "
            "<a href='https://example.org/text'><img src='https://example.org/l.png' alt=''> Home</a>.")
    entry = _entry_with_history("\"" + text.replace('"', '\\"') + "\"\n")
    sample_cli("import", str(write_files({"e.yaml": entry})))
    said = ("has no text: screen readers say \"link\" and nothing more; write its text between the brackets "
            "([text](…)), or alt text for its image ([![what it shows](…)](…))")
    assert sample_cli("check").stderr.splitlines() == [
        f"entry:x-entry: en.history: warning: link '{url}' {said}" for url in (  # sorted, as check sorts them
            "https://example.org/md-image", "https://example.org/md-raw-logo", "https://example.org/raw-logo")] + [
        "0 error(s), 3 warning(s)"]
    # what the reader gets: the link, its only content an image marked as decoration
    page = _built_entry_page(sample_cli, tmp_path, "x-entry")
    link = next(a for a in page.iter("a") if a.get("href") == "https://example.org/raw-logo")
    assert "".join(link.itertext()).strip() == "" and [image.get("alt") for image in link.iter("img")] == [""]


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_a_raw_link_written_as_a_block_of_its_own_is_checked_for_a_name(sample_cli, write_files, tmp_path):
    """`<a href="…">` at the start of a line, with blank lines around, is an HTML block, not part of a
    paragraph: an empty one, or one holding only an image marked as decoration, was built without a word. It
    is warned as the inline ones are; one with text or a described image in it, or around a paragraph of text
    (its `</a>` in a later block), says nothing."""
    blocks = [
        "<a href='https://example.org/block-empty'>\n</a>",
        "<a href='https://example.org/block-logo'>\n<img src='https://example.org/l.png' alt=''>\n</a>",
        "<a href='https://example.org/block-described'>\n<img src='https://example.org/l.png' alt='The logo'>\n</a>",
        "<a href='https://example.org/block-text'>\n<span>Home</span>\n</a>",
        "<a href='https://example.org/block-around'>\n\nA paragraph to read.\n\n</a>",
        "<a href='https://example.org/block-script'>\n<script>alert(1)</script>\n</a>",
    ]
    history = "".join(f"    {line}\n" if line else "\n" for block in blocks for line in ["Between."] + [
        ""] + block.splitlines() + [""])
    entry = _entry_with_history("|\n" + history)
    sample_cli("import", str(write_files({"e.yaml": entry})))
    said = ("has no text: screen readers say \"link\" and nothing more; write its text between the brackets "
            "([text](…)), or alt text for its image ([![what it shows](…)](…))")
    warnings = sample_cli("check").stderr.splitlines()
    assert [line for line in warnings if "has no text" in line] == [
        f"entry:x-entry: en.history: warning: link '{url}' {said}" for url in (  # sorted, as check sorts them
            "https://example.org/block-empty", "https://example.org/block-logo", "https://example.org/block-script")]
    # what the reader gets: the block links with nothing in them to read
    page = _built_entry_page(sample_cli, tmp_path, "x-entry")
    links = {a.get("href"): a for a in page.iter("a")}
    for url in ("block-empty", "block-logo", "block-script"):
        link = links[f"https://example.org/{url}"]
        assert "".join(link.itertext()).strip() == "" and all(not image.get("alt") for image in link.iter("img"))
    assert "".join(links["https://example.org/block-around"].itertext()).strip() == "A paragraph to read."


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_a_raw_link_with_an_href_of_no_value_is_checked_for_a_name_in_a_paragraph_as_in_a_block(sample_cli,
                                                                                              write_files, tmp_path):
    """`<a href>` (no `=`) is a link to the page itself, `href=""` on the page: empty, a screen reader says
    "link". Written as a block of its own it was warned, in a paragraph it was not."""
    entry = _entry_with_history("|\n    Before.\n\n    <a href>\n    </a>\n", en_definition="An <a href></a> link.")
    sample_cli("import", str(write_files({"e.yaml": entry})))
    said = ("link '' has no text: screen readers say \"link\" and nothing more; write its text between the brackets "
            "([text](…)), or alt text for its image ([![what it shows](…)](…))")
    assert sample_cli("check").stderr.splitlines() == [
        f"entry:x-entry: en.{field}: warning: {said}" for field in ("definition", "history")] + [
        "0 error(s), 2 warning(s)"]
    # what the reader gets: a link to the page itself, with nothing to read
    page = _built_entry_page(sample_cli, tmp_path, "x-entry")
    link = next(a for a in page.find(".//p[@class='definition']").iter("a"))
    assert link.get("href") == "" and "".join(link.itertext()) == ""


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_a_raw_link_written_as_self_closing_opens_a_link_as_html_reads_it(sample_cli, write_files, tmp_path):
    """HTML reads `<a href="…"/>` as `<a href="…">`: written as a block of its own, the link it opens was not
    checked for a name (in a paragraph it was)."""
    entry = _entry_with_history("|\n    Before.\n\n    <a href='https://example.org/slash'/>\n    </a>\n")
    sample_cli("import", str(write_files({"e.yaml": entry})))
    assert sample_cli("check").stderr.splitlines() == [
        "entry:x-entry: en.history: warning: link 'https://example.org/slash' has no text: screen readers say "
        "\"link\" and nothing more; write its text between the brackets ([text](…)), or alt text for its image "
        "([![what it shows](…)](…))", "0 error(s), 1 warning(s)"]
    page = _built_entry_page(sample_cli, tmp_path, "x-entry")  # what the reader gets: the link, empty
    link = next(a for a in page.iter("a") if a.get("href") == "https://example.org/slash")
    assert "".join(link.itertext()).strip() == ""


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_a_link_s_name_is_what_its_page_shows_in_it_and_an_anchor_without_href_is_no_link(sample_cli, write_files,
                                                                                         tmp_path):
    """A `<script>` in a raw link in a paragraph named it by its code, which the page leaves out with it (in a
    block it did not); an image in an `<a>` without href was warned as one in a link, whose name its file name
    is, and the page has no link there: the image is read as an image."""
    text = ("A <a href='https://example.org/script'><script>alert(1)</script></a> link and a "
            "<a name='top'><img src='https://example.org/logo.png'></a> logo.")
    entry = _entry_with_history('"' + text + '"\n')
    sample_cli("import", str(write_files({"e.yaml": entry})))
    assert sample_cli("check").stderr.splitlines() == [
        "entry:x-entry: en.history: warning: <img src=\"https://example.org/logo.png\"> has no alt text: a screen "
        "reader reads its file name instead; say what it shows in alt=\"…\", or write alt=\"\" if it is decoration",
        "entry:x-entry: en.history: warning: link 'https://example.org/script' has no text: screen readers say "
        "\"link\" and nothing more; write its text between the brackets ([text](…)), or alt text for its image "
        "([![what it shows](…)](…))",
        "entry:x-entry: en.history: warning: the site leaves out <script>, name= of <a>: write it in Markdown (a "
        "`\\<` shows a `<` as it is), or take it out",
        "0 error(s), 3 warning(s)"]
    # what the reader gets: an empty link, and an image in no link
    page = _built_entry_page(sample_cli, tmp_path, "x-entry")
    links = [a for a in page.iter("a") if a.get("href") == "https://example.org/script"]
    assert len(links) == 1 and "".join(links[0].itertext()) == ""
    image = next(image for image in page.iter("img") if image.get("src") == "https://example.org/logo.png")
    assert all(image not in list(a.iter("img")) for a in page.iter("a") if a.get("href") is not None)


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_a_link_holding_only_empty_markup_a_space_or_a_decorative_image_by_reference_has_nothing_to_read(
        sample_cli, write_files):
    """An empty `<span>`, a no-break space (`&nbsp;`), or an image marked as decoration in a reference link
    (`[…][logo]`): nothing to read, and not warned, as such a text was never read for it."""
    texts = {"definition": "A <a href='https://example.org/span'><span></span></a> link.",
             "history": "A [&nbsp;](https://example.org/space) link.",
             "current_state": "A [<img src='https://example.org/l.png' alt=''>][logo] link.\n\n"
                              "[logo]: https://example.org/logo"}
    entry = _entry(en_definition="Plain.").replace("  definition: \"Plain.\"\n", "".join(
        f"  {field}: |\n" + "".join(f"    {line}\n" if line else "\n" for line in text.splitlines())
        for field, text in texts.items()))
    entry = entry.replace("  headword: x-entry hu\n", "  headword: x-entry hu\n  history: Régen.\n"
                          "  current_state: Most.\n")
    sample_cli("import", str(write_files({"e.yaml": entry})))
    said = ("has no text: screen readers say \"link\" and nothing more; write its text between the brackets "
            "([text](…)), or alt text for its image ([![what it shows](…)](…))")
    assert sample_cli("check").stderr.splitlines() == [
        f"entry:x-entry: en.{field}: warning: link '{url}' {said}" for field, url in (  # sorted, as check sorts them
            ("current_state", "https://example.org/logo"), ("definition", "https://example.org/span"),
            ("history", "https://example.org/space"))] + [
        "0 error(s), 3 warning(s)"]


def _entry_with_texts(texts):
    """An entry whose English definition, history and current state are `texts` (a field each, as written)."""
    entry = _entry(en_definition="Plain.").replace("  definition: \"Plain.\"\n", "".join(
        f"  {field}: |\n" + "".join(f"    {line}\n" if line else "\n" for line in text.splitlines())
        for field, text in texts.items()))
    return entry.replace("  headword: x-entry hu\n", "  headword: x-entry hu\n  history: Régen.\n  current_state: Most.\n")


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_a_link_the_page_shows_as_no_link_is_warned_once_for_what_is_wrong_not_for_its_name(sample_cli, write_files,
                                                                                           tmp_path):
    """`[](ftp://…)` is shown as its text, and the cleaner takes the `href=` out of a raw `<a href="javascript:…">`
    or `<a href="entry:…">`: the page has no link there, yet each was warned as a link with no name besides the
    warning naming the refused address or the HTML left out. That one warning is what is left."""
    texts = {"definition": "A [](ftp://example.org/f) link.",
             "history": "A <a href='javascript:alert(1)'></a> link.",
             "current_state": "A <a href='entry:trainium'></a> link."}
    sample_cli("import", str(write_files({"e.yaml": _entry_with_texts(texts)})))
    left_out = ("warning: the site leaves out href= of <a>: write it in Markdown (a `\\<` shows a `<` as it is), or "
                "take it out")
    assert sample_cli("check").stderr.splitlines() == [
        f"entry:x-entry: en.current_state: {left_out}",
        "entry:x-entry: en.definition: warning: link 'ftp://example.org/f' is shown as its text: links take "
        "http(s)://, mailto:, or entry:, page: and issue: for the site's own pages (a reference page is page:SLUG)",
        f"entry:x-entry: en.history: {left_out}", "0 error(s), 3 warning(s)"]
    page = _built_entry_page(sample_cli, tmp_path, "x-entry")  # what the reader gets: no link in any of them
    assert "".join(page.find(".//p[@class='definition']").itertext()) == "A  link."
    empty = [a for a in page.iter("a") if not "".join(a.itertext()).strip()]
    assert empty and all(a.get("href") is None for a in empty)


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_a_link_with_no_text_to_a_record_not_there_is_named_missing_and_its_name_once_there(sample_cli, write_files):
    """`[](entry:nowhere)`: the page shows a link to a record not there as its text, here none, yet `check` said
    both that it leads to no entry and that it has no text, which no reader meets. The missing record is what is
    said; once it is there, the page links it with nothing to read, and that is said."""
    texts = {"definition": "See [](entry:nowhere), [](page:nowhere) and [](issue:99).", "history": "Then.",
             "current_state": "Now."}
    sample_cli("import", "--no-check", str(write_files({"e.yaml": _entry_with_texts(texts)})))
    missing = [f"entry:x-entry: en.definition: link to a missing {what}" for what in ("entry 'nowhere'",
                                                                                      "issue 99", "page 'nowhere'")]
    assert sample_cli("check", expect=1).stderr.splitlines() == [*missing, "3 error(s), 0 warning(s)"]
    sample_cli("import", str(write_files({"nowhere.yaml": _entry("nowhere")})))
    said = ("has no text: screen readers say \"link\" and nothing more; write its text between the brackets "
            "([text](…)), or alt text for its image ([![what it shows](…)](…))")
    assert sample_cli("check", expect=1).stderr.splitlines() == [
        f"entry:x-entry: en.definition: warning: link 'entry:nowhere' {said}", *missing[1:],
        "2 error(s), 1 warning(s)"]


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_a_citation_in_a_raw_link_written_as_blocks_ends_the_link_where_html_ends_it(sample_cli, write_files,
                                                                                    tmp_path):
    """HTML has no link in a link: a citation `[1]` in a paragraph between a raw `<a href="…">` block and its
    `</a>` is a link of its own, which closes the raw one before it and leaves a copy of it, empty or with the
    text before the mark, in the paragraph; the link's first piece, before the paragraph, holds nothing to
    read. Either way the reader gets a link with no name, now warned. In a paragraph, a raw `<a>` holds no
    citation (markdown-it makes none in a link): `<a href="…">[1]</a>` is a link named "[1]", said nothing of."""
    texts = {"definition": "See <a href='https://example.org/inline'>[1]</a> and "
                           "<a href='https://example.org/inline-text'>the report [1]</a>.",
             "history": "Before.\n\n<a href='https://example.org/block'>\n\n[1]\n\n</a>",
             "current_state": "Before.\n\n<a href='https://example.org/block-text'>\n\nThe report [1]\n\n</a>"}
    sample_cli("import", str(write_files({"e.yaml": _entry_with_texts(texts)})))
    said = ("has no text: screen readers say \"link\" and nothing more; write its text between the brackets "
            "([text](…)), or alt text for its image ([![what it shows](…)](…))")
    assert sample_cli("check").stderr.splitlines() == [
        f"entry:x-entry: en.{field}: warning: link '{url}' {said}" for field, url in (
            ("current_state", "https://example.org/block-text"), ("history", "https://example.org/block"))] + [
        "0 error(s), 2 warning(s)"]
    # what the reader gets: each block link in pieces, one with nothing to read
    page = _built_entry_page(sample_cli, tmp_path, "x-entry")
    names = {}
    for link in page.iter("a"):
        names.setdefault(link.get("href"), []).append("".join(link.itertext()).strip())
    assert names["https://example.org/inline"] == ["[1]"]
    assert names["https://example.org/inline-text"] == ["the report [1]"]
    assert names["https://example.org/block"] == ["", ""]
    assert names["https://example.org/block-text"] == ["", "The report"]


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_a_link_in_a_raw_link_closes_it_and_leaves_it_nothing_to_read(sample_cli, write_files, tmp_path):
    """HTML has no link in a link: a Markdown link or a second raw `<a href>` right inside a raw `<a href="…">`
    closes it, and the reader gets it empty. Text before the inner link names it."""
    texts = {"definition": "A <a href='https://example.org/outer'>[the inner](https://example.org/inner)</a> link.",
             "history": "A <a href='https://example.org/raw-outer'><a href='https://example.org/raw-inner'>inner</a>"
                        "</a> link.",
             "current_state": "A <a href='https://example.org/named'>see [the inner](https://example.org/i)</a>."}
    sample_cli("import", str(write_files({"e.yaml": _entry_with_texts(texts)})))
    said = ("has no text: screen readers say \"link\" and nothing more; write its text between the brackets "
            "([text](…)), or alt text for its image ([![what it shows](…)](…))")
    assert sample_cli("check").stderr.splitlines() == [
        f"entry:x-entry: en.{field}: warning: link '{url}' {said}" for field, url in (
            ("definition", "https://example.org/outer"), ("history", "https://example.org/raw-outer"))] + [
        "0 error(s), 2 warning(s)"]
    # what the reader gets: the outer links empty, or named by the text before the inner
    page = _built_entry_page(sample_cli, tmp_path, "x-entry")
    names = {link.get("href"): "".join(link.itertext()) for link in page.iter("a")}
    assert [names[f"https://example.org/{url}"] for url in ("outer", "inner", "raw-outer", "raw-inner", "named")] == [
        "", "the inner", "", "inner", "see "]


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_a_raw_link_around_a_paragraph_is_named_by_its_words_and_check_agrees(sample_cli, write_files, tmp_path):
    """A paste's link around a paragraph, in a paragraph: HTML ends the paragraph at the <p> and shows the words
    in a copy of the link; the page has no empty link left, and `check` says none. Around a table, whose cells
    no copy reaches, the link is empty on the page, and `check` says so."""
    texts = {"definition": "Plain.",
             "history": "See <a href='https://example.org/pasted'><p>the pasted text</p></a> here.",
             "current_state": "See <a href='https://example.org/table'><table><tr><td>a cell</td></tr></table></a>."}
    sample_cli("import", str(write_files({"e.yaml": _entry_with_texts(texts)})))
    assert sample_cli("check").stderr.splitlines() == [
        "entry:x-entry: en.current_state: warning: link 'https://example.org/table' has no text: screen readers say "
        "\"link\" and nothing more; write its text between the brackets ([text](…)), or alt text for its image "
        "([![what it shows](…)](…))", "0 error(s), 1 warning(s)"]
    page = _built_entry_page(sample_cli, tmp_path, "x-entry")
    names = [(link.get("href"), "".join(link.itertext())) for link in page.iter("a")
             if link.get("href") in ("https://example.org/pasted", "https://example.org/table")]
    assert names == [("https://example.org/pasted", "the pasted text"), ("https://example.org/table", "")]


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_a_definition_is_read_as_markdown_and_what_it_leaves_out_is_said(sample_cli, write_files, tmp_path):
    """A definition is one paragraph of Markdown (links, citations): `<context>` in it was dropped from its
    page, the index, feeds and search without a word; `\\<context>` shows it."""
    entry = _entry(en_definition="The model's <context> window, or \\\\<ctx>.")
    sample_cli("import", str(write_files({"e.yaml": entry})))
    assert sample_cli("check").stderr.splitlines() == [
        "entry:x-entry: en.definition: warning: the site leaves out <context>: write it in Markdown (a `\\<` shows "
        "a `<` as it is), or take it out", "0 error(s), 1 warning(s)"]
    page = _built_entry_page(sample_cli, tmp_path, "x-entry")
    assert page.find(".//p[@class='definition']").text == "The model's  window, or <ctx>."


@pytest.mark.sqlite_only("what check finds in a text is the same on either database")
def test_a_raw_image_without_alt_text_is_a_warning_saying_how_to_describe_it(sample_cli, write_files, tmp_path):
    """A raw `<img src=…>` without `alt` is kept on the page as written, and a screen reader reads its file name
    for it (in a link, as the link's name): built without a word. An image described, one marked as decoration
    (`alt=""`), a Markdown image (its alt text, or decoration) and one in code say nothing."""
    text = ("A chart <img src='https://example.org/chart.png'>, a logo <a href='https://example.org/home'>"
            "<IMG SRC=https://example.org/logo.png></a>, <img src='https://example.org/ok.png' alt='Sales by year'>, "
            "<img src='https://example.org/line.png' alt=''>, ![](https://example.org/md.png) and "
            "`<img src=code.png>`.")
    entry = _entry_with_history('"' + text + '"\n')
    sample_cli("import", str(write_files({"e.yaml": entry})))
    assert sample_cli("check").stderr.splitlines() == [
        "entry:x-entry: en.history: warning: <img src=\"https://example.org/chart.png\"> has no alt text: a screen "
        "reader reads its file name instead; say what it shows in alt=\"…\", or write alt=\"\" if it is decoration",
        "entry:x-entry: en.history: warning: <img src=\"https://example.org/logo.png\"> in a link has no alt text: a "
        "screen reader reads its file name as the link's name; say where the link leads in alt=\"…\" (alt=\"\" if "
        "the link's own text says it)",
        "0 error(s), 2 warning(s)"]
    # what the reader gets: the image as written, without alt text
    page = _built_entry_page(sample_cli, tmp_path, "x-entry")
    images = {image.get("src"): image.get("alt") for image in page.iter("img")}
    assert images["https://example.org/chart.png"] is None and images["https://example.org/ok.png"] == "Sales by year"

def test_a_site_without_the_method_page_its_navigation_links_is_named_and_not_built(cli, tmp_path):
    """Every page's navigation and footer, and every email, link to the Method page."""
    content = tmp_path / "content"
    content.mkdir()
    (content / "site.yaml").write_bytes((SAMPLE_DIR / "site.yaml").read_bytes())
    cli("init")
    expected = ("page:method: every page's navigation and every email link to the Method page, and there is "
                "none: write pages/method.yaml (kind: page, slug: method) and import it")
    assert expected in cli("import", str(content), expect=1).stderr.splitlines()
    cli("import", "--no-check", str(content))
    assert expected in cli("check", expect=1).stderr.splitlines()
    assert expected in cli("build", "--out", str(tmp_path / "site"), expect=1).stderr
    assert not (tmp_path / "site").exists()
    cli("import", str(SAMPLE_DIR / "pages" / "method.yaml"))
    cli("check")


def test_a_database_without_a_site_file_is_named_with_the_fix_and_not_built(cli, write_files, tmp_path):
    """`newsroom init` without the sample, then `check` said nothing and `build` made a site with empty titles,
    no publication name and a Method link to a page never built."""
    cli("init")
    expected = ("site: no site file is stored: every page's title, the feeds and each email take the "
                "publication's name from it, and the navigation its sections and the Method page: write site.yaml "
                "(kind: site; docs/content-format.md, \"site\") and pages/method.yaml (kind: page), then "
                "`newsroom import site.yaml pages/`")
    assert cli("check", expect=1).stderr.splitlines() == [expected, "1 error(s), 0 warning(s)"]
    assert cli("build", "--out", str(tmp_path / "site"), expect=1).stderr.splitlines()[0] == expected
    assert not (tmp_path / "site").exists()
    cli("import", str(write_files(OWN_SITE)))
    assert cli("check").stderr == ""
    cli("build", "--out", str(tmp_path / "site"))
    home = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(
        (tmp_path / "site" / "hu" / "index.html").read_bytes())
    assert home.find(".//title").text == "Gépi Figyelő"


def test_a_database_without_a_site_file_is_said_before_the_warnings(cli):
    """On a database `newsroom init` just made, `check` began with the warning of the preview's address, and the
    error every build stops on, alone (no site file), came after it: that error is said first."""
    (cli.cwd / "newsroom.toml").unlink()  # the preview's default address, of which `check` warns
    cli("init")
    said = cli("check", expect=1).stderr.splitlines()
    assert [line.split(": ")[0] for line in said] == ["site", "newsroom.toml (none here yet)",
                                                      "1 error(s), 1 warning(s)"], said
    assert said[0] == cli("build", "--quiet", expect=1).stderr.splitlines()[0]


def test_a_site_without_a_tagline_is_a_warning_and_its_pages_show_no_empty_one(cli, write_files, tmp_path):
    """A site file without a tagline gave every page an empty masthead line and the glossary index, the archive,
    the editions and the home page an empty meta description, without a word from `check`."""
    cli("init")
    folder = write_files({
        "site.yaml": "kind: site\nhu: {name: Gépi Figyelő, tagline: Hetente}\nen: {name: Machine Watch}\n",
        "pages/method.yaml": "kind: page\nslug: method\nhu: {title: Módszer, body: Kézzel.}\n"
                             "en: {title: Method, body: By hand.}\n"})
    imported = cli("import", str(folder))
    said = ("en.tagline: warning: the publication has no tagline in this language: the masthead shows it under "
            "the name, and the pages with no description of their own (the glossary index, the archive, the editions, "
            "an issue without a lead) give it to search engines and link previews, the name alone without it: "
            "write one")
    assert cli("check").stderr.splitlines() == [f"site: {said}", "0 error(s), 1 warning(s)"]
    # The import said it in the site file, at the line of the field's language (it has no tagline to point at).
    assert imported.stderr.splitlines() == [f"{folder / 'site.yaml'}:3: {said}", "1 warning in what was imported"]
    cli("build", "--out", str(tmp_path / "site"))
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    for lang, name, tagline in (("hu", "Gépi Figyelő", "Hetente"), ("en", "Machine Watch", None)):
        for page in ("", "glossary/", "archive/", "issues/"):
            document = parser.parse((tmp_path / "site" / lang / page / "index.html").read_bytes())
            metas = {m.get("name") or m.get("property"): m.get("content") for m in document.iter("meta")}
            assert (metas["description"], metas["og:description"]) == (tagline or name,) * 2, (lang, page)
            shown = [p.text for p in document.iter("p") if p.get("class") == "tagline"]
            assert shown == ([tagline] if tagline else []), (lang, page)


@pytest.mark.sqlite_only("the words of a problem do not depend on the database")
def test_a_text_no_language_has_yet_is_named_as_required_not_as_a_missing_translation(cli, write_files):
    """`issue new` without a title, then `check` and `issue publish` said "hu.title: missing translation" and
    "en.title: missing translation": a translation of nothing, and no word of how to write it."""
    cli("init")
    cli("import", str(write_files(OWN_SITE)))
    cli("issue", "new", "--week", "2026-W49")
    cli("story", "add", "1", "--section", "research", "--headline-hu", "Hír", "--headline-en", "News",
        "--summary-hu", "Szöveg [1].", "--summary-en", "Text [1].", "--source-url", "https://example.org/a",
        "--publisher", "Example")
    said = "required in every language, and none has it yet: write it"
    later = "(draft issue 1: to fix before it is scheduled or published)"
    assert cli("check").stderr.splitlines() == [
        f"issue:1: en.title: warning: {said} with `newsroom issue edit 1 --title-en …` {later}",
        f"issue:1: hu.title: warning: {said} with `newsroom issue edit 1 --title-hu …` {later}",
        "0 error(s), 2 warning(s)"]
    assert cli("issue", "publish", "1", expect=1).stderr.splitlines() == [
        f"issue:1: en.title: {said} with `newsroom issue edit 1 --title-en …`",
        f"issue:1: hu.title: {said} with `newsroom issue edit 1 --title-hu …`", "2 errors; nothing was changed"]
    # A file names no command: its record may not be stored, and the file is where it is written.
    page = "kind: page\nslug: about\nhu: {body: Szöveg.}\nen: {body: Text.}\n"
    folder = write_files({"about.yaml": page})
    assert cli("import", str(folder), expect=1).stderr.splitlines()[:2] == [
        f"{folder / 'about.yaml'}:3: hu.title: {said}", f"{folder / 'about.yaml'}:4: en.title: {said}"]


def test_a_name_two_entries_share_is_a_warning_at_the_later_one(sample_cli, write_files):
    """Mentions of a shared name link the first entry only (and two headwords alike look the same in the
    A–Z index): `check` says so at the other entry, naming the field, case and spacing as matching has them."""
    twin = _entry(slug="tpu-chip").replace("headword: tpu-chip en", "headword: Google  TPU").replace(
        "headword: tpu-chip hu", "headword: Google TPU\n  aliases: [TPU, tensorchip]")
    result = sample_cli("check", "--strict", expect=None)
    assert result.stderr == ""
    folder = write_files({"e.yaml": twin})
    imported = sample_cli("import", str(folder))
    result = sample_cli("check")
    said = "is also a name of entry 'google-tpu': mentions of it in stories link that entry, not this one; " \
           "give one of them another name"
    assert result.stderr.splitlines() == [
        f"entry:tpu-chip: en.headword: warning: 'Google  TPU' {said}",
        f"entry:tpu-chip: hu.aliases[0]: warning: 'TPU' {said}",
        f"entry:tpu-chip: hu.headword: warning: 'Google TPU' {said}",
        "0 error(s), 3 warning(s)"]
    # The import said them (content-wide ones, found by looking at every entry's names) in the file.
    assert imported.stderr.splitlines() == [
        f"{folder / 'e.yaml'}:10: hu.headword: warning: 'Google TPU' {said}",
        f"{folder / 'e.yaml'}:11: hu.aliases[0]: warning: 'TPU' {said}",
        f"{folder / 'e.yaml'}:14: en.headword: warning: 'Google  TPU' {said}",
        "3 warnings in what was imported"]


@pytest.mark.sqlite_only("what check finds in an entry is the same on either database")
def test_a_name_an_entry_gives_twice_is_a_warning_and_shown_once(sample_cli, write_files, tmp_path):
    """"Also known as" showed the headword and every alias as written: `quantum chip · QC · qc · quantum chip`."""
    entry = _entry(slug="qchip").replace("headword: qchip en", "headword: quantum chip\n  aliases: [QC, qc, "
                                                                "Quantum chip, quantum computer chip]")
    sample_cli("import", str(write_files({"e.yaml": entry})))
    said = "already: \"Also known as\" shows each name once; take it out"
    assert sample_cli("check").stderr.splitlines() == [
        f"entry:qchip: en.aliases[1]: warning: 'qc' is this entry's en.aliases[0] {said}",
        f"entry:qchip: en.aliases[2]: warning: 'Quantum chip' is this entry's en.headword {said}",
        "0 error(s), 2 warning(s)"]
    page = _built_entry_page(sample_cli, tmp_path, "qchip")
    names = page.find(".//section[@id='aliases']/p")
    assert "".join(names.itertext()) == "quantum chip · QC · quantum computer chip · qchip hu"
    assert [(span.get("lang"), span.text) for span in names.iter("span")] == [("hu", "qchip hu")]


@pytest.mark.sqlite_only("what check finds in an entry is the same on either database")
def test_names_told_apart_only_by_spacing_are_one_name(sample_cli, write_files, tmp_path):
    """One space or two between words look the same to a reader (a page shows two as one): "Also known as"
    showed `kávé gép · Kávé  gép · espresso` and `check` said nothing."""
    entry = _entry(slug="coffee").replace("headword: coffee en", "headword: kávé gép\n  aliases: "
                                          '["Kávé  gép", "espresso"]')
    sample_cli("import", str(write_files({"e.yaml": entry})))
    assert sample_cli("check").stderr.splitlines() == [
        "entry:coffee: en.aliases[0]: warning: 'Kávé  gép' is this entry's en.headword already: \"Also known as\" "
        "shows each name once; take it out", "0 error(s), 1 warning(s)"]
    page = _built_entry_page(sample_cli, tmp_path, "coffee")
    names = page.find(".//section[@id='aliases']/p")
    assert "".join(names.itertext()) == "kávé gép · espresso · coffee hu"
    assert [(span.get("lang"), span.text) for span in names.iter("span")] == [("hu", "coffee hu")]


def test_names_told_apart_only_by_how_an_accent_is_typed_are_one_name():
    """"é" stored as one character or as "e" and a combining accent (an import composes it, a record stored
    otherwise may not be) is one name to a reader: warned as a name given twice, as tags' names are."""
    headword, decomposed = "kávé", "ka\u0301ve\u0301"
    entry = Record("entry", "coffee", {"en": {"headword": headword, "aliases": [decomposed, "espresso"]}}, "")
    content = Content(site={}, entries={"coffee": entry}, pages={}, issues={}, stories={})
    assert [str(problem) for problem in label_clashes(content, ("en",))] == [
        f"entry:coffee: en.aliases[0]: warning: {decomposed!r} is this entry's en.headword already: \"Also known "
        "as\" shows each name once; take it out"]


@pytest.mark.sqlite_only("what check finds in a record is the same on either database")
def test_a_title_too_long_to_show_is_a_warning(sample_cli, write_files):
    """A 1,000-character headword went through to every page, feed and index without a word."""
    sample_cli("import", str(write_files({"e.yaml": _entry().replace("headword: x-entry en",
                                                                     "headword: " + "word " * 200)})))
    assert sample_cli("check").stderr.splitlines() == [
        "entry:x-entry: en.headword: warning: 999 characters: email Subjects, feed readers and search results show "
        "it whole; keep it under 200 (the summary says the rest)", "0 error(s), 1 warning(s)"]


def test_two_stories_at_one_place_of_a_section_are_a_warning(sample_cli, write_files):
    """`story add` and `story move` renumber; a content file may give a place another story has."""
    story = (SAMPLE_DIR / "stories" / "i13-vllm-trainium-backend.yaml").read_text(encoding="utf-8")
    assert "\nposition: 1\n" in story and "\nsection: code\n" in story
    twin = story.replace("slug: i13-vllm-trainium-backend", "slug: i13-zz-same-place")
    sample_cli("import", "--correction", "--reason", "corrected", str(write_files({"stories/twin.yaml": twin})))
    assert sample_cli("check").stderr.splitlines() == [
        "story:i13-zz-same-place: position: warning: 1 is also the place of story 'i13-vllm-trainium-backend' in "
        "section 'code' of issue 13: the pages show them by slug; give each its own place (newsroom story move)",
        "0 error(s), 1 warning(s)"]
    sample_cli("story", "move", "i13-zz-same-place", "--position", "3", "--correction", "--reason", "corrected")
    assert sample_cli("check").stderr == ""


def test_warnings_alone_exit_zero_unless_strict(sample_cli, write_files):
    sample_cli("import", str(write_files({"entries/old.yaml": _entry("old-entry").replace("2026-11", "2020-01")})))
    result = sample_cli("check", expect=None)
    assert "entry:old-entry: status: warning: 'Where things stand' is" in result.stderr
    assert result.exit_code == 0
    strict = sample_cli("check", "--strict", expect=1).stderr.splitlines()
    assert strict[:-1] == result.stderr.splitlines()[:-1]  # each a warning, as printed without --strict
    assert strict[-1] == "0 error(s), 1 warning(s): --strict fails on warnings"


UNNAMED_TAG = ("the site file names no tag 'brand-new-tag': its page (archive/tag/brand-new-tag/) and the archive "
               "show it as written here, 'brand-new-tag', in every language; name it under the site file's `tags:` "
               "(slug: brand-new-tag, and its name in each language) and import that (`newsroom import site.yaml`)")


def test_an_import_says_the_warnings_of_what_it_stored_in_its_files_at_their_lines(sample_cli, write_files, tmp_path):
    """An import stored a story with a tag the site file does not name and said nothing: `check` named it later,
    at its record, not in the file. The import names it in the file, at the field's line, and stores the story;
    --quiet keeps it (a warning is a problem), and a file stored with none says nothing."""
    sample_cli("export", str(tmp_path / "out"))
    text = (tmp_path / "out" / "stories" / "i13-vllm-trainium-backend.yaml").read_text(encoding="utf-8")
    assert text.splitlines()[5:7] == ["tags:", "- open-source"]
    file = write_files({"story.yaml": text.replace("\ntags:\n", "\ntags:\n- brand-new-tag\n")}) / "story.yaml"
    correction = ("--correction", "--reason", "tagged")
    warned = [f"{file}:7: tags[0]: warning: {UNNAMED_TAG}"]
    tried = sample_cli("import", "--dry-run", *correction, str(file))
    assert tried.stderr.splitlines() == [*warned, "1 warning in what would be imported"]
    result = sample_cli("--quiet", "import", *correction, str(file))
    assert (result.stdout, result.stderr.splitlines()) == ("", [*warned, "1 warning in what was imported"])
    assert sample_cli("check").stderr.splitlines() == [
        f"story:i13-vllm-trainium-backend: tags[0]: warning: {UNNAMED_TAG}", "0 error(s), 1 warning(s)"]
    again = sample_cli("import", *correction, str(file))  # nothing stored, nothing said
    assert (again.stdout, again.stderr) == ("0 created, 0 updated, 1 unchanged\n", "")
    file.write_text(text.replace("- open-source\n", "- open-source\n- inference\n", 1), encoding="utf-8")
    fixed = sample_cli("import", *correction, str(file))
    assert (fixed.stdout, fixed.stderr) == ("0 created, 1 updated, 0 unchanged\n", "")


def test_an_import_says_the_warnings_of_the_site_file_at_their_lines(sample_cli, tmp_path):
    """A site-file warning was named only by `check`, as `site`, at no line."""
    sample_cli("export", str(tmp_path / "out"))
    file = tmp_path / "out" / "site.yaml"
    lines = file.read_text(encoding="utf-8").splitlines()
    line = lines.index("- slug: aws") + 1
    assert lines[line:line + 2] == ["  hu: AWS", "  en: AWS"]
    file.write_text("\n".join([*lines[:line + 1], *lines[line + 2:]]) + "\n", encoding="utf-8")
    said = "the tag 'aws' has no name in this language: its pages show the hu name 'AWS', marked as hu; write its name here"
    result = sample_cli("import", str(file))
    assert result.stderr.splitlines() == [f"{file}:{line}: tags[4].en: warning: {said}", "1 warning in what was imported"]
    assert sample_cli("check").stderr.splitlines() == [f"site: tags[4].en: warning: {said}", "0 error(s), 1 warning(s)"]


def test_an_import_says_a_drafts_problems_as_check_does(sample_cli, write_files):
    """A draft issue's story and a draft entry stop no build, so their errors stop no import: they are said as
    `check` says them, warnings saying when to fix them, in their files."""
    sample_cli("issue", "new", "--title-hu", "Cím", "--title-en", "Title")
    story = ("kind: story\nslug: i14-draft\nissue: 14\nsection: code\nposition: 1\ntags: [brand-new-tag]\n"
             "sources: [{publisher: X, title: Y, url: 'https://example.org/'}]\n"
             "hu: {headline: Címsor, summary: 'Lásd [ezt](entry:nowhere).'}\n")
    entry = _entry("d-entry", en_definition="See [this](entry:nowhere).").replace("status: 2026-11",
                                                                                     "status: 2026-11\ndraft: true")
    folder = write_files({"story.yaml": story, "entry.yaml": entry})
    result = sample_cli("import", str(folder))
    assert result.stdout == "2 created, 0 updated, 0 unchanged\n"
    later = "draft issue 14: to fix before it is scheduled or published"
    missing = "link to a missing entry 'nowhere'"
    assert result.stderr.splitlines() == [
        f"{folder / 'entry.yaml'}:15: en.definition: warning: {missing} (a draft: to fix before it is published)",
        f"{folder / 'story.yaml'}: en: warning: missing translation of en.headline and en.summary ({later}: "
        "newsroom story edit i14-draft --headline-en … --summary-en …)",
        f"{folder / 'story.yaml'}:6: tags[0]: warning: {UNNAMED_TAG}",
        f"{folder / 'story.yaml'}:8: hu.summary: warning: {missing} ({later})",
        "4 warnings in what was imported"]
    checked = sample_cli("check").stderr.splitlines()
    assert checked[-1] == "0 error(s), 4 warning(s)"
    assert sorted(checked[:-1]) == sorted(re.sub(rf"^{re.escape(str(folder))}/(\w+)\.yaml(:\d+)?", lambda m: {
        "story": "story:i14-draft", "entry": "entry:d-entry"}[m[1]], line) for line in result.stderr.splitlines()[:-1])


def test_an_edit_says_the_warnings_of_the_record_it_saved(sample_cli):
    """`edit` saved an entry's alias that repeats its headword, and a story's tag the site file does not name,
    without a word; it names them at the record and field, as `check` does (there is no file)."""
    result = sample_cli("edit", "entry:gpu", "--set", "en.aliases=[GPU]")
    assert result.stdout == "entry gpu: saved as version 2\n"
    assert result.stderr.splitlines() == [
        "entry:gpu: en.aliases[0]: warning: 'GPU' is this entry's en.headword already: \"Also known as\" shows each "
        "name once; take it out", "1 warning in what was saved"]
    story = sample_cli("-q", "edit", "story:i13-vllm-trainium-backend", "--set", "tags=[brand-new-tag]",
                       "--correction", "--reason", "tagged")
    assert (story.stdout, story.stderr.splitlines()) == ("", [
        f"story:i13-vllm-trainium-backend: tags[0]: warning: {UNNAMED_TAG}", "1 warning in what was saved"])
    unchanged = sample_cli("edit", "entry:gpu", "--set", "en.aliases=[GPU]")
    assert (unchanged.stdout, unchanged.stderr) == ("entry gpu: no change (version 2 stays)\n", "")


def test_check_and_delete_answer_alike_from_the_records_a_build_remembered(sample_cli, write_files, tmp_path):
    """`check`, and the checks of `delete` and `import`, take the records and their problems from what the last
    build remembered where a record is unchanged: they answer as a check of the content read afresh does."""
    linking = _entry("y-entry", en_definition="See [x](entry:x-entry).")
    sample_cli("import", str(write_files({"entries/x.yaml": _entry().replace("2026-11", "2020-01"),
                                          "entries/y.yaml": linking})))
    afresh = sample_cli("check").stderr  # no build yet: nothing remembered
    refused = sample_cli("delete", "entry:x-entry", expect=1).stderr
    assert "entry:y-entry: en.definition: link to a missing entry 'x-entry'" in refused.splitlines()
    assert afresh.splitlines()[0].startswith("entry:x-entry: status: warning: 'Where things stand' is")
    assert afresh.splitlines()[1:] == ["0 error(s), 1 warning(s)"]
    sample_cli("build", "--out", str(tmp_path / "site"))
    assert sample_cli("check").stderr == afresh
    assert sample_cli("delete", "entry:x-entry", expect=1).stderr == refused
    sample_cli("edit", "entry:y-entry", "--set", "en.definition=See nothing.")
    assert sample_cli("check").stderr == afresh
    sample_cli("delete", "entry:x-entry")
    assert sample_cli("check").stderr == ""  # its one warning went with it


def test_remembered_problems_follow_the_records_links_come_and_go(sample_cli):
    # A build remembers each record's problems with the records its links point at; removing or
    # restoring one of those, or adding an unrelated issue, gives what checking afresh gives.
    import dataclasses
    import datetime as dt

    from newsroom.build.model import load_content
    from newsroom.build.memos import Memo
    from newsroom.checks import check_content
    from newsroom.db.session import make_engine, session_factory
    from newsroom.settings import Settings

    engine = make_engine(sample_cli.db_url)
    with session_factory(engine)() as session:
        content = load_content(session)
    engine.dispose()
    linked = next(slug for slug in content.entries
                  if any(f"(entry:{slug})" in str(record.data) for record in content.stories.values()))
    issue = dataclasses.replace(next(iter(content.issues.values())), key="99")
    versions = [content,
                dataclasses.replace(content, entries={k: v for k, v in content.entries.items() if k != linked}),
                content,
                dataclasses.replace(content, issues={**content.issues, 99: issue})]
    settings, today, memo = Settings(), dt.date(2026, 11, 30), Memo()
    for version in versions:
        assert check_content(version, settings, today, memo=memo) == check_content(version, settings, today)
    missing = check_content(versions[1], settings, today, memo=memo)
    assert any(f"link to a missing entry {linked!r}" in problem.message for problem in missing)


def test_other_names_in_one_language_only_are_no_missing_translation(tmp_path):
    # "Also known as" lists names in each language; the English term may have none where the Hungarian
    # has several. Nothing is reported, the build publishes, and each page shows its own names first, then the
    # other language's, marked with it.
    from conftest import PUBLIC_SETTINGS
    from sitebuild import build_sample, parse, run, text_of

    entry = _entry("named-entry").replace('definition: "Magyar."', 'definition: "Magyar."\n  aliases: [MI-név]')
    site = build_sample(tmp_path, {"entries/named.yaml": entry}, PUBLIC_SETTINGS)  # check names the content's problems
    assert run(tmp_path, "check") == ""
    sections = {lang: parse(site / lang / "glossary" / "named-entry" / "index.html").find(".//section[@id='aliases']")
                for lang in ("hu", "en")}
    assert text_of(sections["en"]).endswith("named-entry en · named-entry hu · MI-név")
    assert [span.get("lang") for span in sections["en"].iter("span")] == ["hu", "hu"]
    assert text_of(sections["hu"]).endswith("named-entry hu · MI-név · named-entry en")
    assert [span.get("lang") for span in sections["hu"].iter("span")] == ["en"]


@pytest.mark.sqlite_only("what check finds in stored records is the same on either database")
def test_a_stored_record_naming_what_the_site_lacks_is_reported_and_never_linked(sample_cli, tmp_path):
    """A section, category, audience or level stored without the site listing it (by an earlier release, or by
    hand: import and edit refuse one) passed `check`, and the build linked section and level pages it never
    made. Each is now named at its record's field: an error where the build would link nowhere."""
    import json

    from sqlalchemy import create_engine, text

    engine = create_engine(sample_cli.db_url)
    with engine.begin() as connection:
        # As an earlier release would have stored them: the records' hashes are not those of their files.
        connection.execute(text("UPDATE entries SET content_hash = '' WHERE slug IN ('trainium', 'gpu')"))
        connection.execute(text("UPDATE entries SET level = 'expert' WHERE slug = 'trainium'"))
        connection.execute(text("UPDATE entries SET category = 'gone' WHERE slug = 'google-tpu'"))
        entry_id, affected = connection.execute(text(
            "SELECT entry_id, affected FROM entry_texts JOIN entries ON entries.id = entry_id "
            "WHERE slug = 'gpu' AND lang = 'en'")).one()
        lines = json.loads(affected)
        lines[0]["section"] = "gone"
        connection.execute(text("UPDATE entry_texts SET affected = :lines WHERE entry_id = :id AND lang = 'en'"),
                           {"lines": json.dumps(lines), "id": entry_id})
        story = connection.execute(text("SELECT slug FROM stories ORDER BY slug LIMIT 1")).scalar_one()
        connection.execute(text("UPDATE stories SET audiences = :audiences WHERE slug = :slug"),
                           {"audiences": json.dumps(["nobody"]), "slug": story})
    section = ("entry:gpu: en.affected[0].section: the site lists no section 'gone' (known: code, money, policy, "
               "science, society): its \"→\" would link a section page the build does not make; add it to the site "
               "file's `sections:` in site.yaml and import that (`newsroom import site.yaml`), or name one it lists "
               "(`newsroom edit entry:gpu --set en.affected[0].section=…`)")
    level = ("entry:trainium: level: 'expert' is no level (known: basic, intermediate, advanced): the entry's page "
             "would link a level page the build does not make; give it one (`newsroom edit entry:trainium --set "
             "level=…`)")
    category = ("entry:google-tpu: category: warning: the site lists no category 'gone' (known: business, "
                "infrastructure, methods, models, policy): the build makes its category page under the slug, shown "
                "as its name; add it to the site file's `categories:` in site.yaml and import that (`newsroom "
                "import site.yaml`), or name one it lists (`newsroom edit entry:google-tpu --set category=…`)")
    audience = (f"story:{story}: audiences[0]: warning: the site lists no audience 'nobody' (known: bank-customer, "
                "developer, entrepreneur, everyone, executive, investor, policymaker, researcher, student): a page "
                "that shows it shows the slug as its name; add it to the site file's `audiences:` in site.yaml and "
                f"import that (`newsroom import site.yaml`), or name one it lists (`newsroom edit story:{story} --set "
                "audiences[0]=…`)")
    assert sample_cli("check", expect=1).stderr.splitlines() == [category, section, level, audience,
                                                                  "2 error(s), 2 warning(s)"]
    site = tmp_path / "site"
    refused = sample_cli("build", "--out", str(site), expect=1).stderr.splitlines()
    assert section in refused and level in refused and not site.exists()

    engine.dispose()
    sample_cli("edit", "entry:gpu", "--set", "en.affected[0].section=code")
    sample_cli("edit", "entry:trainium", "--set", "level=basic")  # as the messages say
    assert sample_cli("check").stderr.splitlines() == [category, audience, "0 error(s), 2 warning(s)"]
    sample_cli("build", "--out", str(site))
    # Every page of the site that the entry's page links to is built, its unlisted category's too.
    page = html5lib.parse((site / "en" / "glossary" / "google-tpu" / "index.html").read_bytes(),
                          namespaceHTMLElements=False)
    local = {a.get("href").split("#")[0] for a in page.iter("a") if a.get("href", "").startswith("/en/")}
    assert "/en/glossary/category/gone/" in local
    assert [href for href in sorted(local) if not (site / href.strip("/") / "index.html").exists()
            and not (site / href.strip("/")).is_file()] == []


@pytest.mark.sqlite_only("an earlier release stored such texts on SQLite alone (PostgreSQL takes no NUL, and "
                         "refused the import)")
def test_a_stored_text_holding_a_control_character_is_named_by_check_and_stops_the_build(sample_cli):
    """A control character stored by an earlier release (import and edit refuse one now) stopped every build
    on a traceback at the feeds, and `check` said nothing: each such field is an error naming its fix, and the
    build stops with it, writing nothing; the fix as said lets it through."""
    from sqlalchemy import create_engine, text

    engine = create_engine(sample_cli.db_url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE entry_texts SET definition = definition || char(1) WHERE lang = 'en' "
                                "AND entry_id = (SELECT id FROM entries WHERE slug = 'gpu')"))
        connection.execute(text("UPDATE site_texts SET tagline = tagline || char(27) WHERE lang = 'hu'"))
    engine.dispose()
    named = ["entry:gpu: en.definition: holds the character U+0001, which no page, feed or email can hold (stored "
             "by an earlier release): write the text again without it, `newsroom edit entry:gpu --set "
             "en.definition=…`",
             "site: hu.tagline: holds the character U+001B, which no page, feed or email can hold (stored by an "
             "earlier release): take it out of the site file and import it again (`newsroom export DIR` writes "
             "it, `newsroom import DIR/site.yaml` stores it)"]
    checked = sample_cli("check", expect=1).stderr
    assert all(problem in checked.splitlines() for problem in named), checked
    site = sample_cli.cwd / "site"
    for build in (["build", "--out", str(site)], ["build", "--out", str(site), "--drafts"]):
        stopped = sample_cli(*build, expect=1).stderr
        assert all(problem in stopped.splitlines() for problem in named), stopped
        assert "Traceback" not in stopped and not site.exists()

    sample_cli("edit", "entry:gpu", "--set", "en.definition=A processor made for graphics, now for AI.")
    exported = sample_cli.cwd / "export"
    sample_cli("export", str(exported))
    site_file = exported / "site.yaml"
    site_file.write_text(site_file.read_text(encoding="utf-8").replace("\\e", ""), encoding="utf-8")
    sample_cli("import", str(site_file))
    assert sample_cli("check").stderr == ""
    sample_cli("build", "--out", str(site))
