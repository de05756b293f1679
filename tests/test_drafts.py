"""Draft glossary entries and reference pages (`draft: true`): stored, checked and previewed, never published."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import feedparser
import html5lib
import pytest
from alembic import command
from rdflib import RDF, SKOS, Graph
from sqlalchemy import create_engine, text

from newsroom.db.migrate import alembic_config
from sitebuild import BASE, OWN_SITE, html_pages, parse, text_of

#: The sample's much-linked entry (stories' terms, a relation, links in entries' text) and its reference page.
ENTRY, PAGE = "entry:trainium3", "reference:trainium"
ENTRY_PATHS = ("en/glossary/trainium3/", "hu/glossary/trainium3/")
PAGE_PATHS = ("en/reference/trainium/", "hu/reference/trainium/")
PUBLISH = ("shown as text until it is published: remove `draft: true` from its file ({1}) and import it, or run "
           "`newsroom edit {0} --set draft=false`")


def _build(cli, out: Path, *extra: str) -> None:
    cli("build", "--out", str(out), "--base-url", BASE, *extra)


def _links(site: Path) -> set[str]:
    """Every address of this site that a page, a feed or an email links to, as a path of the site (no
    fragment): read with a conforming HTML parser and a feed parser."""
    found: set[str] = set()

    def add(href: str | None) -> None:
        if href and (href.startswith("/") or href.startswith(BASE)):
            found.add(urlsplit(href.removeprefix(BASE.rstrip("/"))).path)

    fragment = html5lib.HTMLParser(namespaceHTMLElements=False)
    for page in html_pages(site):
        for element in parse(page).iter():
            add(element.get("href"))
    for feed in [*site.rglob("*.xml"), *site.rglob("*.atom")]:
        for item in feedparser.parse(feed.read_bytes()).entries:
            add(item.get("link"))
            for part in [*item.get("content", []), *([item.summary_detail] if "summary_detail" in item else [])]:
                for element in fragment.parseFragment(part.value).iter():
                    add(element.get("href") if isinstance(element.tag, str) else None)
    return found


def _exists(site: Path, path: str) -> bool:
    target = site / path.lstrip("/")
    return (target / "index.html").is_file() if path.endswith("/") else target.is_file()


@pytest.mark.sqlite_only("what a build shows does not depend on the database")
def test_a_draft_is_nowhere_in_a_public_build_and_marked_in_a_preview(sample_cli, tmp_path):
    sample_cli("edit", ENTRY, "--set", "formerly=[aws-trainium3]")  # an old address, whose page sends readers on
    for location in (ENTRY, PAGE):
        sample_cli("edit", location, "--set", "draft=true")
    site, emails = tmp_path / "site", tmp_path / "emails"
    _build(sample_cli, site, "--email-out", str(emails))

    # No page, and no link, list, feed, sitemap or search index entry that leads to one.
    for path in (*ENTRY_PATHS, *PAGE_PATHS, "en/glossary/aws-trainium3/"):
        assert not (site / path).exists(), path
    links = _links(site)
    assert not [link for link in links if not _exists(site, link)]
    assert not [link for link in links if "/trainium3/" in link or "/reference/trainium/" in link]
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert "trainium3" not in sitemap and "/reference/trainium/" not in sitemap
    glossary_feed = feedparser.parse((site / "en/feeds/glossary.xml").read_bytes())
    assert "Trainium3" not in {item.title for item in glossary_feed.entries}
    documents = json.dumps([json.loads(p.read_text(encoding="utf-8")) for p in (site / "en/search").rglob("*.json")])
    assert "/en/glossary/trainium3/" not in documents and "/en/reference/trainium/" not in documents
    index = parse(site / "en/glossary/index.html")
    assert "Trainium3" not in {text_of(dt) for dt in index.iter("dt")}
    for email in emails.rglob("*.html"):
        hrefs = {a.get("href") for a in parse(email).iter("a")}
        assert not [href for href in hrefs if href and "/glossary/trainium3/" in href], email

    # A published entry's relation to it names it, as text.
    trainium = parse(site / "en/glossary/trainium/index.html")
    narrower = next(p for p in trainium.iter("p") if p.get("class") == "relations narrower")
    assert "Trainium3" in text_of(narrower)
    assert [a for a in narrower.iter("a") if "Trainium3" in text_of(a)] == []
    # The glossary as SKOS is the published one.
    skos = tmp_path / "glossary.ttl"
    sample_cli("export", "--skos", str(skos))
    concepts = {str(uri) for uri in Graph().parse(skos, format="turtle").subjects(RDF.type, SKOS.Concept)}
    assert len(concepts) == 12 and f"{BASE}glossary/trainium3" not in concepts

    # A preview shows both, marked as a draft issue is.
    preview = tmp_path / "preview"
    _build(sample_cli, preview, "--drafts")
    for path in (*ENTRY_PATHS, *PAGE_PATHS):
        article = next(parse(preview / path / "index.html").iter("article"))
        assert "draft" in article.get("class").split(), path
        banner = next(p for p in article.iter("p") if p.get("class") == "draft-banner")
        assert text_of(banner).startswith("Draft · Preview:" if path.startswith("en") else "Piszkozat · Előnézet:")
    assert (preview / "en/glossary/aws-trainium3/index.html").is_file()
    listed = next(dt for dt in parse(preview / "en/glossary/index.html").iter("dt") if "Trainium3" in text_of(dt))
    assert text_of(listed) == "Trainium3 · Draft"

    # Published again, each is back: a link where there was text.
    for location in (ENTRY, PAGE):
        sample_cli("edit", location, "--set", "draft=false")
    _build(sample_cli, site)
    for path in (*ENTRY_PATHS, *PAGE_PATHS):
        assert (site / path / "index.html").is_file(), path
    narrower = next(p for p in parse(site / "en/glossary/trainium/index.html").iter("p")
                    if p.get("class") == "relations narrower")
    assert [a.get("href") for a in narrower.iter("a") if text_of(a) == "Trainium3"] == ["/en/glossary/trainium3/"]


@pytest.mark.sqlite_only("what check reports does not depend on the database")
def test_check_names_each_published_record_pointing_at_a_draft_and_a_draft_s_errors_wait(sample_cli):
    sample_cli("edit", ENTRY, "--set", "draft=true")
    sample_cli("edit", PAGE, "--set", "draft=true")
    said = sample_cli("check").stderr.splitlines()
    warning = f"warning: {ENTRY} is a draft, {PUBLISH.format(ENTRY, 'entries/trainium3.yaml')}"
    # A relation, a link in an entry's text, a story's `terms`: each named at its record and field.
    for where in ("entry:trainium: relations.narrower[1]", "entry:trainium2: en.current_state",
                  "story:i13-aws-trainium3-capacity: terms[0]"):
        assert f"{where}: {warning}" in said, where
    assert (f"story:i10-aws-capacity-blocks-prices: hu.body: warning: {PAGE} is a draft, "
            f"{PUBLISH.format(PAGE, 'reference/trainium.yaml')}") in said
    assert not [line for line in said if line.startswith(f"{ENTRY}:")]
    # A name a draft shares with a published entry is warned of at the draft: the published one has it.
    sample_cli("edit", "entry:ai-chip", "--set", "draft=true", "--set", "en.aliases=[graphics processor]")
    said = sample_cli("check").stderr.splitlines()
    assert ("entry:ai-chip: en.aliases[0]: warning: 'graphics processor' is also a name of entry 'gpu': mentions "
            "of it in stories link that entry, not this one; give one of them another name") in said
    assert not [line for line in said if line.startswith("entry:gpu:")]

    # Work in progress: a draft's error is a warning, and stops no build; publishing it is refused meanwhile.
    sample_cli("edit", ENTRY, "--set", "en.definition=")
    said = sample_cli("check").stderr.splitlines()
    assert (f"{ENTRY}: en.definition: warning: missing translation (present in hu) (a draft: to fix before it is "
            "published)") in said
    refused = sample_cli("edit", ENTRY, "--set", "draft=false", expect=1).stderr
    assert f"{ENTRY}: en.definition: missing translation (present in hu)" in refused
    assert "draft: not published" in sample_cli("glossary", "show", "trainium3").stdout


@pytest.mark.sqlite_only("the content files do not depend on the database")
def test_export_writes_draft_only_when_set_and_the_files_import_unchanged(sample_cli, tmp_path):
    sample_cli("edit", PAGE, "--set", "draft=true")
    out = tmp_path / "out"
    sample_cli("export", str(out))
    holding = sorted(path.relative_to(out).as_posix() for path in out.rglob("*.yaml")
                     if "\ndraft: true\n" in path.read_text(encoding="utf-8"))
    assert holding == ["reference/trainium.yaml"]
    assert sample_cli("import", str(out)).stdout.startswith("0 created, 0 updated, ")
    written = (out / "reference/trainium.yaml").read_text(encoding="utf-8")
    (out / "reference/trainium.yaml").write_text(written.replace("\ndraft: true\n", "\ndraft: false\n"),
                                                 encoding="utf-8")
    assert sample_cli("import", str(out / "reference/trainium.yaml")).stdout.startswith("0 created, 1 updated")
    assert "(draft)" not in sample_cli("reference", "list").stdout


def test_a_database_from_before_drafts_upgrades_with_every_record_published(sample_cli):
    """The migration's server default: every entry and page stored before it stays published."""
    engine = create_engine(sample_cli.db_url)
    command.downgrade(alembic_config(engine), "0009_story_former_slugs")
    engine.dispose()
    assert "run `newsroom init`" in sample_cli("check", expect=1).stderr
    sample_cli("init")
    engine = create_engine(sample_cli.db_url)
    with engine.connect() as connection:
        for table in ("entries", "pages"):
            assert connection.execute(text(f"SELECT count(*) FROM {table} WHERE draft")).scalar() == 0, table
            assert connection.execute(text(f"SELECT count(*) FROM {table}")).scalar() > 0, table
    engine.dispose()
    assert "draft" not in sample_cli("glossary", "list").stdout


#: A site page besides Method, kept as a draft; a published entry links to it.
ABOUT = """\
kind: page
slug: about
draft: true
hu:
  title: Rólunk
  body: A szerkesztőség.
en:
  title: About us
  body: The editors.
"""


@pytest.mark.sqlite_only("what a build shows does not depend on the database")
def test_a_draft_site_page_is_nowhere_in_a_public_build_and_marked_in_a_preview(sample_cli, tmp_path):
    (sample_cli.cwd / "about.yaml").write_text(ABOUT, encoding="utf-8")
    sample_cli("import", "about.yaml")
    sample_cli("edit", "entry:gpu", "--set", "en.limits=Who writes it: [the editors](page:about).")
    said = sample_cli("check").stderr.splitlines()
    assert (f"entry:gpu: en.limits: warning: page:about is a draft, "
            f"{PUBLISH.format('page:about', 'pages/about.yaml')}") in said
    assert not [line for line in said if ": error:" in line]

    site = tmp_path / "site"
    _build(sample_cli, site)
    assert not (site / "en/about").exists() and not (site / "hu/about").exists()
    assert not [link for link in _links(site) if "/about/" in link]
    assert "/about/" not in (site / "sitemap.xml").read_text(encoding="utf-8")
    documents = json.dumps([json.loads(p.read_text(encoding="utf-8")) for p in (site / "en/search").rglob("*.json")])
    assert "/en/about/" not in documents
    gpu = parse(site / "en/glossary/gpu/index.html")
    assert "the editors" in text_of(gpu.find(".//main"))
    assert [a for a in gpu.iter("a") if text_of(a) == "the editors"] == []

    preview = tmp_path / "preview"
    _build(sample_cli, preview, "--drafts")
    for path in ("en/about/", "hu/about/"):
        article = next(parse(preview / path / "index.html").iter("article"))
        assert "draft" in article.get("class").split(), path
        banner = next(p for p in article.iter("p") if p.get("class") == "draft-banner")
        assert text_of(banner) == ("Draft · Preview: this page is not published." if path.startswith("en") else
                                   "Piszkozat · Előnézet: ez az oldal még nincs közzétéve.")

    out = tmp_path / "out"
    sample_cli("export", str(out))
    assert "\ndraft: true\n" in (out / "pages/about.yaml").read_text(encoding="utf-8")
    assert "\ndraft:" not in (out / "pages/method.yaml").read_text(encoding="utf-8")
    sample_cli("edit", "page:about", "--set", "draft=false")
    _build(sample_cli, site)
    assert (site / "en/about/index.html").is_file() and (site / "hu/about/index.html").is_file()
    gpu = parse(site / "en/glossary/gpu/index.html")
    assert [a.get("href") for a in gpu.iter("a") if text_of(a) == "the editors"] == ["/en/about/"]


#: What check, a public build, `email` and `send` say of a draft Method page.
METHOD_DRAFT = ("page:method: draft: the Method page is a draft: every page's navigation and footer and every "
                "email link to it, and it says how the publication is made (its machine editing too), so nothing "
                "is published without it: remove `draft: true` from its file (pages/method.yaml) and import it, "
                "or run `newsroom edit page:method --set draft=false`")


@pytest.mark.sqlite_only("what check and a build say does not depend on the database")
def test_a_draft_method_page_stops_publishing_and_is_marked_in_a_preview(sample_cli, tmp_path):
    """Every page's navigation and every email's footer link to the Method page: a public build, or an email,
    without it would link to nothing and say nothing of how the newsletter is made."""
    site = tmp_path / "site"
    _build(sample_cli, site)
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    # Stored as a backup is restored: `edit` and a checked import refuse to make a published Method page a draft.
    sample_cli("export", str(tmp_path / "out"))
    method = tmp_path / "out/pages/method.yaml"
    method.write_text("draft: true\n" + method.read_text(encoding="utf-8"), encoding="utf-8")
    sample_cli("import", "--no-check", str(method))
    said = sample_cli("check", expect=1).stderr.splitlines()
    assert METHOD_DRAFT in said
    refused = sample_cli("build", "--out", str(site), "--base-url", BASE, expect=1).stderr
    assert METHOD_DRAFT in refused
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before  # the site as it was
    refused = sample_cli("email", "13", "--lang", "en", "--out", str(tmp_path / "mail"), "--base-url", BASE,
                         expect=1).stderr
    assert METHOD_DRAFT in refused and not (tmp_path / "mail").exists()

    preview = tmp_path / "preview"
    _build(sample_cli, preview, "--drafts")
    article = next(parse(preview / "en/method/index.html").iter("article"))
    assert "draft" in article.get("class").split()


#: What `edit` and `import` say when they would make the published Method page a draft.
METHOD_KEPT = ("draft: the Method page is published, and a draft one would stop `check`, every public build, `email` "
               "and `send`: every page's navigation and footer and every email link to it, and it says how the "
               "publication is made (its machine editing too); keep it published and change its text instead "
               "(`newsroom edit page:method --set en.body=…`, or its file without `draft: true`, imported): the "
               "next build shows the change")


@pytest.mark.usefixtures("public_address")  # check names the content's problems alone
def test_the_published_method_page_is_not_made_a_draft(sample_cli, tmp_path):
    """`edit page:method --set draft=true` was stored without a word, and then `check`, a public build, `email`
    and `send` refused the whole site: refused, as is an import of its file saying `draft: true`; nothing
    stored changes. `--no-check` stores the file as it is (a backup restored), which `check` then names."""
    refused = sample_cli("edit", "page:method", "--set", "draft=true", expect=1).stderr
    assert f"page:method: {METHOD_KEPT}" in refused.splitlines(), refused
    assert "\ndraft:" not in sample_cli("edit", "page:method").stdout
    sample_cli("export", str(tmp_path / "out"))
    method = tmp_path / "out/pages/method.yaml"
    method.write_text("draft: true\n" + method.read_text(encoding="utf-8"), encoding="utf-8")
    refused = sample_cli("import", str(method), expect=1).stderr
    assert f"{method}:1: {METHOD_KEPT}" in refused.splitlines(), refused
    assert "\ndraft:" not in sample_cli("edit", "page:method").stdout and sample_cli("check").stderr == ""


@pytest.mark.usefixtures("public_address")  # check names the content's problems alone
def test_a_new_publication_s_method_page_may_be_a_draft_until_it_is_published(cli, write_files):
    """Before anything is published, the Method page may be written as a draft, as a starter is, and
    previewed: stored, `check` naming it as it names a draft Method page at any time, until it is published."""
    cli("init")
    files = {**OWN_SITE, "pages/method.yaml": "draft: true\n" + OWN_SITE["pages/method.yaml"]}
    cli("import", str(write_files(files)))
    assert cli("check", expect=1).stderr.splitlines() == [METHOD_DRAFT, "1 error(s), 0 warning(s)"]
    cli("edit", "page:method", "--set", "draft=true")  # a draft stays one: no change, no refusal
    cli("edit", "page:method", "--set", "draft=false")
    assert cli("check").stderr == ""
    assert f"page:method: {METHOD_KEPT}" in cli("edit", "page:method", "--set", "draft=true", expect=1).stderr


@pytest.mark.sqlite_only("what a build shows does not depend on the database")
def test_a_draft_whose_headword_is_still_the_starter_s_todo_is_left_out_of_published_pages(sample_cli, tmp_path):
    """A relation to a draft, and a story's term, show the draft's headword as text: never a placeholder."""
    sample_cli("edit", ENTRY, "--set", "draft=true", "--set", "en.headword=TODO", "--set", "hu.headword=TODO: név")
    said = sample_cli("check").stderr.splitlines()
    left_out = (f"warning: {ENTRY} is a draft whose headword is still the starter's TODO, left out of published "
                f"pages in hu and en until it is published: write its headword, then remove `draft: true` from its "
                f"file (entries/trainium3.yaml) and import it, or run `newsroom edit {ENTRY} --set draft=false`")
    for where in ("entry:trainium: relations.narrower[1]", "story:i13-aws-trainium3-capacity: terms[0]"):
        assert f"{where}: {left_out}" in said, where
    # A link's own text is the editor's: that warning stays as it was.
    assert f"entry:trainium2: en.current_state: warning: {ENTRY} is a draft, " \
           f"{PUBLISH.format(ENTRY, 'entries/trainium3.yaml')}" in said

    site = tmp_path / "site"
    _build(sample_cli, site)
    for page in html_pages(site):
        assert "TODO" not in text_of(parse(page).find(".//body")), page
    for feed in [*site.rglob("*.xml"), *site.rglob("*.atom")]:
        assert "TODO" not in feed.read_text(encoding="utf-8"), feed
    trainium = parse(site / "en/glossary/trainium/index.html")
    narrower = next(p for p in trainium.iter("p") if p.get("class") == "relations narrower")
    assert "Trainium2" in text_of(narrower)  # the other relations stay
    story = next(li for li in parse(site / "en/issues/13/index.html").iter("article")
                 if li.get("id") == "story-i13-aws-trainium3-capacity")
    assert "TODO" not in text_of(story)

    # The preview shows the draft as it is, for its editors.
    preview = tmp_path / "preview"
    _build(sample_cli, preview, "--drafts")
    narrower = next(p for p in parse(preview / "en/glossary/trainium/index.html").iter("p")
                    if p.get("class") == "relations narrower")
    assert "TODO" in text_of(narrower)


@pytest.mark.sqlite_only("what a build shows does not depend on the database")
def test_a_draft_whose_headword_is_the_starter_s_todo_in_one_language_is_left_out_of_that_language_s_pages(
        sample_cli, tmp_path):
    """Its Hungarian headword written, its English one not yet: the Hungarian pages show the draft's name as text,
    the English ones leave it out, and `check` says which (it said "published pages", as if both left it out)."""
    sample_cli("edit", ENTRY, "--set", "draft=true", "--set", "en.headword=TODO")
    said = sample_cli("check").stderr.splitlines()
    left_out = (f"warning: {ENTRY} is a draft whose headword in en is still the starter's TODO, left out of "
                "published pages in en until it is published (those in hu show its headword as text): write its "
                "headword in en, then remove `draft: true` from its file (entries/trainium3.yaml) and import it, "
                f"or run `newsroom edit {ENTRY} --set draft=false`")
    for where in ("entry:trainium: relations.narrower[1]", "story:i13-aws-trainium3-capacity: terms[0]"):
        assert f"{where}: {left_out}" in said, (where, said)

    site = tmp_path / "site"
    _build(sample_cli, site)
    shown = {}
    for lang in ("hu", "en"):
        narrower = next(p for p in parse(site / lang / "glossary/trainium/index.html").iter("p")
                        if p.get("class") == "relations narrower")
        shown[lang] = text_of(narrower)
        assert "TODO" not in shown[lang] and not [a for a in narrower.iter("a") if "trainium3" in a.get("href")]
    assert "Trainium3" in shown["hu"] and "Trainium3" not in shown["en"], shown
