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


def test_a_former_address_follows_its_record_and_goes_with_its_slug(sample_cli, tmp_path):
    site = tmp_path / "site"
    _build(sample_cli, site)
    page = site / "en" / "glossary" / "graphics-card" / "index.html"
    sample_cli("edit", "entry:gpu", "--set", "formerly=[graphics-card]")
    assert " 2 written, " in _build(sample_cli, site)  # the page in each language, nothing else
    assert _moved(page)["heading"] == "GPU"
    sample_cli("edit", "entry:gpu", "--set", "en.headword=Graphics processor")
    _build(sample_cli, site)
    assert _moved(page)["heading"] == "Graphics processor"
    sample_cli("edit", "entry:gpu", "--set", "formerly=")
    assert " 2 removed " in _build(sample_cli, site)
    assert not page.exists() and not page.parent.exists()


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
    exported = tmp_path / "exported"
    sample_cli("export", str(exported))
    assert (exported / "entries" / "gpu.yaml").read_text(encoding="utf-8").startswith(
        "kind: entry\nslug: gpu\nformerly:\n- graphics-card\ncategory: ")
    fresh = type(sample_cli)(databases.new("migrated"), sample_cli.cwd)
    fresh("import", str(exported))
    assert "formerly:\n- aws-trainium\n" in fresh("edit", "reference:trainium").stdout
    again = tmp_path / "again"
    fresh("export", str(again))
    assert (again / "entries" / "gpu.yaml").read_bytes() == (exported / "entries" / "gpu.yaml").read_bytes()
