"""Former addresses: a record names the slugs it was published under before (`formerly`), and the build
writes a page at each old address that sends readers on to the record's page."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from sitebuild import BASE, parse, text_of

from newsroom import SAMPLE_DIR

SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def _build(cli, out: Path) -> str:
    return cli("build", "--out", str(out), "--base-url", BASE).stdout


def _moved(page: Path) -> dict[str, str]:
    """What a former address's page says: where it sends the reader, its canonical address, robots, title."""
    tree = parse(page)  # strict: raises on any HTML5 parse error
    head = tree.find("head")
    metas = {meta.get("name") or meta.get("http-equiv"): meta.get("content") for meta in head.iter("meta")}
    link = tree.find("body").find(".//a")
    return {"lang": tree.get("lang"), "refresh": metas["refresh"], "robots": metas["robots"],
            "canonical": head.find("link[@rel='canonical']").get("href"), "title": text_of(head.find("title")),
            "heading": text_of(tree.find(".//h1")), "link": link.get("href")}


@pytest.mark.sqlite_only
def test_each_former_address_sends_readers_on_in_each_language_and_stays_out_of_the_sitemap(sample_cli, tmp_path):
    sample_cli("edit", "entry:gpu", "--set", "formerly=[graphics-card, gpu-chip]")
    sample_cli("edit", "reference:trainium", "--set", "formerly=[aws-trainium]")
    sample_cli("edit", "page:method", "--set", "formerly=[how-we-work]")
    site = tmp_path / "site"
    _build(sample_cli, site)
    for lang, headword, name in (("hu", "GPU (grafikus processzor)", "Az MI-korszak hírei"),
                                 ("en", "GPU", "News of the AI era")):
        for former in ("graphics-card", "gpu-chip"):
            assert _moved(site / lang / "glossary" / former / "index.html") == {
                "lang": lang, "refresh": f"0; url=/{lang}/glossary/gpu/", "robots": "noindex",
                "canonical": f"{BASE}{lang}/glossary/gpu/", "title": f"{headword} · {name}", "heading": headword,
                "link": f"/{lang}/glossary/gpu/"}
        reference = _moved(site / lang / "reference" / "aws-trainium" / "index.html")
        assert reference["link"] == f"/{lang}/reference/trainium/"
        assert _moved(site / lang / "how-we-work" / "index.html")["link"] == f"/{lang}/method/"
        assert (site / lang / "glossary" / "gpu" / "index.html").is_file()  # the page itself, where it was
    listed = [loc.text for loc in ET.parse(site / "sitemap.xml").iter(f"{SITEMAP}loc")]
    assert f"{BASE}en/glossary/gpu/" in listed
    assert not [url for url in listed if "graphics-card" in url or "aws-trainium" in url or "how-we-work" in url]


@pytest.mark.sqlite_only
def test_a_former_address_follows_its_record_and_goes_with_its_slug(sample_cli, tmp_path):
    site = tmp_path / "site"
    _build(sample_cli, site)
    page = site / "en" / "glossary" / "graphics-card" / "index.html"
    sample_cli("edit", "entry:gpu", "--set", "formerly=[graphics-card]")
    # The page in each language, and the glossary feeds (an entry's item takes its id from its first slug).
    assert " 6 written, " in _build(sample_cli, site)
    assert _moved(page)["heading"] == "GPU"
    sample_cli("edit", "entry:gpu", "--set", "en.headword=Graphics processor")
    _build(sample_cli, site)
    assert _moved(page)["heading"] == "Graphics processor"
    sample_cli("edit", "entry:gpu", "--set", "formerly=")
    assert " 2 removed " in _build(sample_cli, site)
    assert not page.exists() and not page.parent.exists()


@pytest.mark.sqlite_only
@pytest.mark.parametrize(("key", "formerly", "message"), [
    ("entry:trainium", "[trainium]", "formerly[0]: 'trainium' is the record's slug: a former slug is one it was "
                                     "published under before"),
    ("entry:trainium", "[old-name, old-name]", "formerly[1]: 'old-name' is named twice"),
    ("entry:trainium", "[gpu]", "formerly[0]: 'gpu' is the slug of entry:gpu"),
    ("entry:trainium", "[Old Name]", "formerly[0]: expected a slug"),
    ("page:method", "[search]", "formerly[0]: 'search' is the folder of the site's own search pages"),
])
def test_a_former_slug_that_cannot_be_one_is_refused_and_nothing_is_stored(sample_cli, key, formerly, message):
    before = sample_cli("edit", key).stdout
    result = sample_cli("edit", key, "--set", f"formerly={formerly}", expect=1)
    assert message in result.stderr, result.stderr
    assert "nothing was changed" in result.stderr
    assert sample_cli("edit", key).stdout == before


@pytest.mark.sqlite_only
def test_an_address_is_a_former_one_of_one_record_only(sample_cli, write_files):
    sample_cli("edit", "entry:gpu", "--set", "formerly=[graphics-card]")
    source = (SAMPLE_DIR / "entries" / "trainium.yaml").read_text(encoding="utf-8")
    folder = write_files({"entries/trainium.yaml": source.replace("slug: trainium\n",
                                                                  "slug: trainium\nformerly: [graphics-card]\n")})
    result = sample_cli("import", str(folder), expect=1)
    assert "entries/trainium.yaml" in result.stderr
    assert ("formerly[0]: 'graphics-card' is a former slug of entry:gpu too: its old address can send readers on "
            "to one of them only") in result.stderr
    assert "formerly" not in sample_cli("edit", "entry:trainium").stdout


def test_former_slugs_go_out_with_an_export_and_come_back_with_an_import(sample_cli, databases, tmp_path):
    sample_cli("edit", "entry:gpu", "--set", "formerly=[graphics-card]")
    sample_cli("edit", "reference:trainium", "--set", "formerly=[aws-trainium]")
    sample_cli("rename", "story:i13-vllm-trainium-backend", "i13-vllm-backend")
    exported = tmp_path / "exported"
    sample_cli("export", str(exported))
    assert (exported / "entries" / "gpu.yaml").read_text(encoding="utf-8").startswith(
        "kind: entry\nslug: gpu\nformerly:\n- graphics-card\ncategory: ")
    fresh = type(sample_cli)(databases.new("migrated"), sample_cli.cwd)
    fresh("import", str(exported))
    assert "formerly:\n- aws-trainium\n" in fresh("edit", "reference:trainium").stdout
    assert (exported / "stories" / "i13-vllm-backend.yaml").read_text(encoding="utf-8").startswith(
        "kind: story\nslug: i13-vllm-backend\nformerly:\n- i13-vllm-trainium-backend\nissue: 13\n")
    again = tmp_path / "again"
    fresh("export", str(again))
    for file in ("entries/gpu.yaml", "stories/i13-vllm-backend.yaml"):
        assert (again / file).read_bytes() == (exported / file).read_bytes()


def test_rename_gives_a_record_a_new_address_keeping_its_history_and_every_reference(sample_cli, tmp_path):
    site = tmp_path / "site"
    _build(sample_cli, site)
    result = sample_cli("rename", "gpu", "graphics-processor", "--editor", "ed")
    assert result.stdout.startswith("entry gpu is now entry:graphics-processor (version 2); its references "
                                    "rewritten in entry:ai-accelerator, ")
    assert sample_cli("edit", "gpu", expect=1).stderr.strip() == (
        "Error: no entry, story, page or issue 'gpu'; entry:graphics-processor had that slug before")
    assert sample_cli("history", "entry:gpu", expect=1).stderr.strip() == (
        "Error: no entry 'gpu'; entry:graphics-processor had that slug before")
    assert sample_cli("glossary", "show", "gpu", expect=1).stderr.strip() == (
        "Error: no glossary entry 'gpu'; entry:graphics-processor had that slug before "
        "(newsroom glossary show graphics-processor)")
    assert "\nformerly: gpu (each old address leads here)\n" in sample_cli(
        "glossary", "show", "graphics-processor").stdout
    renamed = sample_cli("edit", "entry:graphics-processor").stdout
    assert renamed.startswith("# entry graphics-processor, version 2\nkind: entry\nslug: graphics-processor\n"
                              "formerly:\n- gpu\n")
    history = sample_cli("history", "entry:graphics-processor").stdout.splitlines()
    assert history[1].endswith("ed  changed: formerly, slug")
    assert history[2].startswith("  version 1  ") and history[2].endswith("import  changed: created")
    # Relations, a published issue's lead, its stories' terms and a page's links name the new slug.
    assert "  narrower:\n  - graphics-processor\n  - google-tpu\n" in sample_cli("edit", "entry:ai-accelerator").stdout
    assert "(entry:graphics-processor)" in sample_cli("edit", "issue:12").stdout
    story = sample_cli("edit", "story:i11-trainium2-gpu-training-cost-study").stdout
    assert "- graphics-processor" in story and "- gpu\n" not in story
    assert "renamed — entry:gpu renamed to entry:graphics-processor" in sample_cli(
        "history", "story:i11-trainium2-gpu-training-cost-study").stdout
    # Readers see the same text: no correction of the published issues, none on their pages.
    for number in ("11", "12", "13"):
        assert sample_cli("issue", "corrections", number).stdout.strip() == f"issue {number}: no corrections"
    sample_cli("check")  # exit 0: no error
    _build(sample_cli, site)
    for lang in ("hu", "en"):
        moved = _moved(site / lang / "glossary" / "gpu" / "index.html")
        assert moved["link"] == f"/{lang}/glossary/graphics-processor/"
        issue = parse(site / lang / "issues" / "12" / "index.html")
        hrefs = {a.get("href") for a in issue.iter("a")}
        assert f"/{lang}/glossary/graphics-processor/" in hrefs and f"/{lang}/glossary/gpu/" not in hrefs
        assert not issue.findall(".//section[@id='corrections']")


@pytest.mark.sqlite_only("which warnings a command prints does not depend on the database")
@pytest.mark.usefixtures("public_address")  # check names the content's problems alone
def test_rename_says_the_warnings_of_the_records_it_stored(sample_cli):
    """`rename` stored the renamed record and every record whose references it rewrote, and said nothing of their
    warnings, which `check` named later: it names them as `edit` does, at each record (the renamed one at its new
    slug) and field, and how many; a renaming of records with none says nothing."""
    story = "story:i11-trainium2-gpu-training-cost-study"
    sample_cli("edit", "entry:gpu", "--set", "en.aliases=[GPU]")
    sample_cli("edit", story, "--set", "tags=[brand-new-tag]", "--correction", "--reason", "tagged")
    result = sample_cli("rename", "gpu", "graphics-processor")
    assert result.stdout.startswith("entry gpu is now entry:graphics-processor (version 3); ")
    unnamed = ("the site file names no tag 'brand-new-tag': its page (archive/tag/brand-new-tag/) and the archive "
               "show it as written here, 'brand-new-tag', in every language; name it under the site file's `tags:` "
               "(slug: brand-new-tag, and its name in each language) and import that (`newsroom import site.yaml`)")
    warned = [
        "entry:graphics-processor: en.aliases[0]: warning: 'GPU' is this entry's en.headword already: \"Also known "
        "as\" shows each name once; take it out", f"{story}: tags[0]: warning: {unnamed}"]
    assert result.stderr.splitlines() == [*warned, "2 warnings in what was saved"]
    assert sample_cli("check").stderr.splitlines() == [*warned, "0 error(s), 2 warning(s)"]
    clean = sample_cli("rename", "reference:trainium", "trainium-profile")
    assert (clean.stdout.startswith("reference trainium is now reference:trainium-profile"), clean.stderr) == (True, "")


@pytest.mark.sqlite_only
def test_renaming_back_takes_the_new_slug_out_of_the_former_ones(sample_cli):
    sample_cli("rename", "reference:trainium", "trainium-profile")
    sample_cli("rename", "reference:trainium-profile", "trainium")
    record = sample_cli("edit", "reference:trainium").stdout
    assert "formerly:\n- trainium-profile\n" in record
    assert "(page:trainium)" in sample_cli("edit", "story:i10-aws-capacity-blocks-prices").stdout


@pytest.mark.sqlite_only
@pytest.mark.parametrize(("args", "message"), [
    (("gpu", "trainium"), "entry:gpu: 'trainium' is the slug of entry:trainium already: choose another"),
    (("gpu", "Graphics"), "entry:gpu: slug: expected a slug: lowercase letters, digits and hyphens, got 'Graphics'"),
    (("page:method", "search"), "page:method: slug: 'search' is the folder of the site's own search pages"),
    (("page:method", "how-we-work"), "every page's navigation and every email link to the Method page"),
    (("issue:13", "thirteen"), "only an entry, a story, a reference page or a site page can be renamed; an issue "
                               "keeps its number"),
    (("gpu", "graphics", "--expect-version", "1"), None),  # the version it is at: renamed
])
def test_a_rename_that_cannot_be_is_refused_and_nothing_is_stored(sample_cli, args, message):
    before = {key: sample_cli("edit", key).stdout for key in ("entry:gpu", "entry:ai-accelerator", "page:method")}
    if message is None:
        sample_cli("edit", "entry:gpu", "--set", "level=intermediate")  # another editor, meanwhile
        result = sample_cli("rename", *args, expect=1)
        assert "you started from version 1, it is now version 2" in result.stderr
        return
    result = sample_cli("rename", *args, expect=1)
    assert message in result.stderr, result.stderr
    assert {key: sample_cli("edit", key).stdout for key in before} == before


@pytest.mark.sqlite_only
def test_a_deleted_record_s_slug_is_not_taken_by_a_rename(sample_cli, write_files):
    trainium = (SAMPLE_DIR / "entries" / "trainium.yaml").read_text(encoding="utf-8")
    folder = write_files({"entries/spare.yaml": trainium.replace("slug: trainium\n", "slug: spare\n").replace(
        "headword: Trainium", "headword: Spare")})
    sample_cli("import", str(folder))
    sample_cli("delete", "entry:spare")
    result = sample_cli("rename", "gpu", "spare", expect=1)
    assert "'spare' was the slug of a deleted record (newsroom history entry:spare)" in result.stderr


def test_references_are_rewritten_in_every_form_of_link_and_a_form_left_is_named():
    from newsroom.content.renaming import UnrewrittenLink, rewrite_references

    story = {"kind": "story", "slug": "s", "terms": ["gpu", "gpu-chip"], "suppress_terms": ["gpu"],
             "en": {"summary": 'A [GPU](entry:gpu), [x](<ENTRY:gpu> "t"), <entry:gpu>, [chip](entry:gpu-chip), '
                               "entry:gpu in prose, [a page](page:gpu).\n\n[g]: entry:gpu\n"}}
    assert rewrite_references(story, "entry", "gpu", "graphics", ("hu", "en")) == {
        **story, "terms": ["graphics", "gpu-chip"], "suppress_terms": ["graphics"],
        "en": {"summary": 'A [GPU](entry:graphics), [x](<ENTRY:graphics> "t"), <entry:graphics>, '
                          "[chip](entry:gpu-chip), entry:gpu in prose, [a page](page:gpu).\n\n[g]: entry:graphics\n"}}
    entry = {"kind": "entry", "slug": "e", "relations": {"broader": ["gpu"], "similar": [{"entry": "gpu"}]}}
    assert rewrite_references(entry, "entry", "gpu", "graphics", ("hu", "en"))["relations"] == {
        "broader": ["graphics"], "similar": [{"entry": "graphics"}]}
    assert rewrite_references(entry, "reference", "gpu", "graphics", ("hu", "en")) is None
    with pytest.raises(UnrewrittenLink) as left:  # a reference definition whose destination is on the next line
        rewrite_references({"kind": "page", "en": {"body": "[g][]\n\n[g]:\n  entry:gpu\n"}}, "entry", "gpu", "x",
                           ("hu", "en"))
    assert left.value.field == "en.body"


@pytest.mark.sqlite_only
def test_a_renamed_entry_keeps_its_feed_item_s_id_and_links_to_its_new_address(sample_cli, tmp_path):
    import feedparser

    site = tmp_path / "site"
    _build(sample_cli, site)

    def items() -> dict[str, str]:
        feed = feedparser.parse((site / "en" / "feeds" / "glossary.atom").read_bytes())
        return {item.id: item.link for item in feed.entries}

    before = items()
    sample_cli("rename", "gpu", "graphics-processor")
    _build(sample_cli, site)
    after = items()
    assert after.keys() == before.keys()
    moved = [item for item, link in after.items() if link != before[item]]
    assert len(moved) == 1 and "/glossary/gpu/" in moved[0]
    assert after[moved[0]] == f"{BASE}en/glossary/graphics-processor/"


def test_an_export_from_before_a_rename_keeps_the_renamed_record_and_an_edit_of_it_is_refused(sample_cli, tmp_path):
    exported = tmp_path / "exported"
    sample_cli("export", str(exported))
    sample_cli("rename", "gpu", "graphics-processor")
    result = sample_cli("import", str(exported))
    assert result.stdout.strip().endswith(" kept (newer in the database)") and result.stdout.startswith("0 created")
    assert "entry:graphics-processor had that slug before" in sample_cli("edit", "gpu", expect=1).stderr
    stale = exported / "entries" / "gpu.yaml"
    stale.write_text(stale.read_text(encoding="utf-8").replace("  headword: GPU\n", "  headword: GPUs\n"),
                     encoding="utf-8")
    refused = sample_cli("import", str(stale), expect=1)
    assert refused.stderr.startswith(
        f"{stale}: slug: entry 'gpu' was renamed to entry:graphics-processor in the database since this "
        "file was exported, and the file was edited: make the edit in the file of entry:graphics-processor "
        "(`newsroom export` writes it)\n1 error; nothing was changed")


def test_a_file_of_a_renamed_record_from_before_its_renaming_is_refused_naming_the_file(sample_cli):
    """A file outside an export (no manifest says which version it was) holding the old slug would make the
    record again: refused at the file's slug, saying why."""
    sample_cli("rename", "gpu", "graphics-processor")
    old = SAMPLE_DIR / "entries" / "gpu.yaml"
    result = sample_cli("import", str(old), expect=1)
    assert (f"{old}:2: slug: 'gpu' is a former slug of entry:graphics-processor, whose old address sends readers on "
            "to it: a file of entry:graphics-processor from before it was renamed makes entry:gpu again; leave that "
            "file out") in result.stderr, result.stderr
    assert sample_cli("edit", "gpu", expect=1).exit_code == 1


@pytest.mark.sqlite_only
def test_an_export_after_a_rename_removes_the_old_file_or_says_where_an_edited_one_s_record_went(sample_cli, tmp_path):
    exported = tmp_path / "exported"
    sample_cli("export", str(exported))
    sample_cli("rename", "reference:trainium", "trainium-profile")
    result = sample_cli("export", str(exported))
    assert result.stdout.strip().endswith("; 1 removed (their records are deleted or renamed)")
    assert not (exported / "reference" / "trainium.yaml").exists()
    assert (exported / "reference" / "trainium-profile.yaml").is_file()
    sample_cli("rename", "entry:gpu", "graphics-processor")
    edited = exported / "entries" / "gpu.yaml"
    edited.write_text(edited.read_text(encoding="utf-8").replace("  headword: GPU\n", "  headword: GPUs\n"),
                      encoding="utf-8")
    result = sample_cli("export", str(exported))
    assert result.stderr == (f"{edited}: warning: its record was renamed to entry:graphics-processor, but the file "
                             "was edited since the last export, so it stays: make the edit in the file of "
                             "entry:graphics-processor, then delete this one\n")
    assert edited.is_file()


STORY, RENAMED_STORY = "i13-vllm-trainium-backend", "i13-vllm-neuron-backend"


def _story_items(site: Path, lang: str) -> dict[str, str]:
    """{id: link} of the items of a language's Code section feed (Atom), which holds the story renamed here."""
    import feedparser

    feed = feedparser.parse((site / lang / "feeds" / "section-code.atom").read_bytes())
    return {item.id: item.link for item in feed.entries}


def _story_search_urls(site: Path, lang: str) -> list[str]:
    from newsroom.render.search_query import search

    return [hit["url"] for hit in search(site / lang / "search" / "index", "vllm") if hit["kind"] == "story"]


@pytest.mark.sqlite_only("what the pages, feeds and index show of a renamed story does not depend on the database")
def test_a_renamed_story_keeps_its_old_anchor_its_feed_ids_and_its_history(sample_cli, tmp_path):
    site = tmp_path / "site"
    _build(sample_cli, site)
    before = {lang: _story_items(site, lang) for lang in ("hu", "en")}
    result = sample_cli("rename", STORY, RENAMED_STORY, "--editor", "ed")
    assert result.stdout == (f"story {STORY} is now story:{RENAMED_STORY} (version 2); its old anchor stays on its "
                             "issue's pages\n")
    assert sample_cli("edit", f"story:{RENAMED_STORY}").stdout.startswith(
        f"# story {RENAMED_STORY}, version 2\nkind: story\nslug: {RENAMED_STORY}\nformerly:\n- {STORY}\nissue: 13\n")
    # The old slug names the story no more, and a command given it says which story had it.
    assert sample_cli("story", "edit", STORY, "--tag", "x", expect=1).stderr == (
        f"story:{STORY}: slug: no story {STORY!r}; story:{RENAMED_STORY} had that slug before\n"
        "1 error; nothing was changed\n")
    assert sample_cli("edit", STORY, expect=1).stderr.strip() == (
        f"Error: no entry, story, page or issue {STORY!r}; story:{RENAMED_STORY} had that slug before")
    history = sample_cli("history", RENAMED_STORY).stdout.splitlines()
    assert history[1].endswith("ed  changed: formerly, slug, renamed")
    assert history[2].startswith("  version 1  ") and history[2].endswith("import  changed: created")
    # Readers see the same text: no correction of the published issue.
    assert sample_cli("issue", "corrections", "13").stdout.strip() == "issue 13: no corrections"
    _build(sample_cli, site)
    for lang in ("hu", "en"):
        page = parse(site / lang / "issues" / "13" / "index.html")  # strict: raises on any HTML5 parse error
        ids = [element.get("id") for element in page.iter() if element.get("id")]
        assert len(ids) == len(set(ids))
        story = page.find(f".//article[@id='story-{RENAMED_STORY}']")
        kept = story.find(f".//span[@id='story-{STORY}']")
        assert kept is not None and list(kept) == [] and not (kept.text or "").strip()  # …/issues/13/#old lands here
        # The feed items keep their ids (no new item for subscribers) and link to the new anchor.
        items = _story_items(site, lang)
        assert items.keys() == before[lang].keys()
        assert items[f"tag:news.example.org,2026:{lang}/stories/{STORY}"] == (
            f"{BASE}{lang}/issues/13/#story-{RENAMED_STORY}")
        assert f"/{lang}/issues/13/#story-{RENAMED_STORY}" in _story_search_urls(site, lang)
        assert not [url for url in _story_search_urls(site, lang) if url.endswith(f"#story-{STORY}")]
    # Renamed back, it takes its old slug again, and keeps the other.
    sample_cli("rename", RENAMED_STORY, STORY)
    assert f"slug: {STORY}\nformerly:\n- {RENAMED_STORY}\n" in sample_cli("edit", f"story:{STORY}").stdout


@pytest.mark.sqlite_only
def test_a_story_slug_another_story_has_or_had_is_refused_and_nothing_is_stored(sample_cli):
    other = "i13-coding-agents-workday-tasks"
    sample_cli("rename", STORY, RENAMED_STORY)
    records = {key: sample_cli("edit", f"story:{key}").stdout for key in (RENAMED_STORY, other)}
    for args, message in (
            ((other, RENAMED_STORY), f"story:{other}: a story {RENAMED_STORY!r} already exists; choose another "
                                     "NEW-SLUG"),
            ((other, STORY), f"story:{other}: {STORY!r} is a former slug of story:{RENAMED_STORY}, whose old anchor "
                             "on the issue pages leads to it; choose another NEW-SLUG"),
            ((other, "Vllm"), f"story:{other}: slug: expected a slug: lowercase letters, digits and hyphens, got "
                              "'Vllm'")):
        result = sample_cli("rename", *args, expect=1)
        assert result.stderr == f"{message}\n1 error; nothing was changed\n", result.stderr
    added = sample_cli("story", "add", "13", "--section", "code", "--slug", STORY, "--headline-hu", "Hír",
                       "--headline-en", "Story", "--correction", "--reason", "added", expect=1)
    assert f"story:{STORY}: slug: {STORY!r} is a former slug of story:{RENAMED_STORY}" in added.stderr
    edited = sample_cli("edit", f"story:{other}", "--set", f"formerly=[{RENAMED_STORY}]", "--correction",
                        "--reason", "an old link", expect=1)
    assert (f"formerly[0]: {RENAMED_STORY!r} is the slug of story:{RENAMED_STORY}, whose anchor on the issue pages "
            "is that address") in edited.stderr
    assert {key: sample_cli("edit", f"story:{key}").stdout for key in records} == records


@pytest.mark.sqlite_only
def test_a_story_s_source_links_keep_the_ids_emails_sent_before_link_to(sample_cli, tmp_path):
    """Source links were `story-SLUG-source-N` before they became `story-SLUG--source-N`: the emails sent then
    link the old ids, which each issue page keeps as an empty anchor at the link (a renamed story's old slug's
    too), where no other id on the page is the same."""
    sample_cli("rename", STORY, RENAMED_STORY)
    site = tmp_path / "site"
    _build(sample_cli, site)
    for lang in ("hu", "en"):
        page = parse(site / lang / "issues" / "13" / "index.html")  # strict: raises on any HTML5 parse error
        ids = [element.get("id") for element in page.iter() if element.get("id")]
        assert len(ids) == len(set(ids))
        checked = 0
        for story in page.iter("article"):
            slug = story.get("id", "").removeprefix("story-")
            links = [a for a in story.iter("a") if (a.get("id") or "").startswith(f"story-{slug}--source-")]
            former = [STORY] if slug == RENAMED_STORY else []
            for n, link in enumerate(links, start=1):
                for old in (slug, *former):
                    anchor = story.find(f".//span[@id='story-{old}-source-{n}']")
                    assert anchor is not None, (lang, old, n)
                    assert list(anchor) == [] and not (anchor.text or "").strip()
                    checked += 1
        assert checked > 3, checked
