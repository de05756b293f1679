"""The publication's address, `base_url`: every link a reader gets (pages, feeds, the sitemap, the search index,
emails) is made of it, kept under its path, in the form links, feed ids and mail headers take."""

from __future__ import annotations

import email
import email.policy
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import feedparser
import html5lib
import pytest
from sitebuild import OWN_SITE

from newsroom.settings import load

#: A site served under a path, its address written as a person might: capitals, an international name, no
#: final slash.
WRITTEN = "HTTPS://Hírlevél.Example.NET/hirlevel"
#: The same address as every link gives it.
BASE = "https://xn--hrlevl-fva1a.example.net/hirlevel/"
#: One page of each kind, and the root's.
PAGES = ("index.html", "404.html", "hu/index.html", "hu/404.html", "en/issues/13/index.html", "hu/issues/index.html",
         "hu/glossary/index.html", "en/glossary/trainium/index.html", "hu/reference/trainium/index.html",
         "en/archive/index.html", "hu/search/index.html", "en/feeds/index.html", "hu/method/index.html")


def _outside(url: str, page: str) -> bool:
    """Whether `url`, a link on the page at `page`, leads off the site's path on its host."""
    parts = urlsplit(urljoin(page, url))
    return parts.netloc == urlsplit(BASE).netloc and not (parts.path + "/").startswith(urlsplit(BASE).path)


def _strings(value: object) -> list[str]:
    """Every text in a JSON-LD value."""
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return [value] if isinstance(value, str) else []


@pytest.mark.sqlite_only
def test_a_site_under_a_path_keeps_every_link_under_it_in_the_form_links_and_headers_take(sample_cli, tmp_path):
    """A base URL with capitals or an international host name reached feeds, the sitemap and the
    List-Unsubscribe header as typed: a tag: id and a sitemap URL take ASCII alone, and the header became an
    encoded word no mail client reads as an address. Each is written as links take it, under the site's path."""
    (sample_cli.cwd / "newsroom.toml").write_text(f'base_url = "{WRITTEN}"\n', encoding="utf-8")
    site, mail = tmp_path / "site", tmp_path / "mail"
    built = sample_cli("build", "--quiet", "--out", str(site), "--email-out", str(mail)).stderr
    assert built == ("newsroom.toml:1: base_url: warning: the canonical links, feeds, sitemap and emails of a public "
                     f"build lead to {BASE}, a name reserved for examples (RFC 2606), which no reader reaches: set "
                     "base_url (or --base-url) to the address the site is served at before publishing it (`build "
                     "--drafts` and `newsroom serve` are the previews)\n"), built
    outside = []
    for name in PAGES:
        page = BASE + name.removesuffix("index.html")
        tree = html5lib.parse((site / name).read_bytes(), namespaceHTMLElements=False)
        links = [value for element in tree.iter() for attribute, value in element.attrib.items()
                 if attribute in ("href", "src", "action", "data-search-index")
                 or (attribute == "content" and value.startswith("http"))]
        links += [text for script in tree.iter("script") if script.get("type") == "application/ld+json"
                  for text in _strings(json.loads(script.text)) if text.startswith(("http", "/"))]
        outside += [(name, link) for link in links if _outside(link, page)]
        assert any(link.startswith(BASE) for link in links), name
    for path in sorted(site.glob("*/feeds/*.*")):
        if path.suffix == ".html":
            continue
        feed = feedparser.parse(path.read_bytes())
        assert not feed.bozo and feed.feed.link.startswith(BASE), path
        links = [link.href for link in feed.feed.links] + [link.href for item in feed.entries for link in item.links]
        outside += [(path.name, link) for link in links if not link.startswith(BASE)]
        ids = [item.id for item in feed.entries] + ([feed.feed.id] if "id" in feed.feed else [])  # RSS: items'
        outside += [(path.name, id) for id in ids if not id.startswith("tag:xn--hrlevl-fva1a.example.net,2026:")]
    sitemap = ET.parse(site / "sitemap.xml").getroot()
    addresses = [element.get("href") or element.text for element in sitemap.iter()
                 if element.tag.endswith(("}loc", "}link"))]
    assert addresses and not [address for address in addresses if not address.startswith(BASE)]
    for lang in ("hu", "en"):
        for shard in (site / lang / "search/index/docs").glob("*.json"):
            outside += [(shard.name, doc[2]) for doc in json.loads(shard.read_bytes()) if _outside(doc[2], BASE)]
        message = email.message_from_bytes((mail / lang / "issue-13.eml").read_bytes(), policy=email.policy.default)
        unsubscribe = str(message["List-Unsubscribe"]).split(",")[0].strip(" <>")
        assert unsubscribe == f"{BASE}unsubscribe", unsubscribe
        body = html5lib.parse(message.get_body(("html",)).get_content(), namespaceHTMLElements=False)
        links = [a.get("href") for a in body.iter("a")]
        links += re.findall(r"https?://\S+", message.get_body(("plain",)).get_content())
        assert f"{BASE}{lang}/issues/13/" in links
        outside += [(f"{lang} email", link) for link in links if _outside(link, BASE) or "Hírlevél" in link]
    assert outside == []


@pytest.mark.sqlite_only
def test_an_address_no_link_can_give_is_named_at_its_line(sample_cli):
    """A user name and password would be published in every link, a port past 65535 makes no link at all, a home
    page's address (…/index.html) put every page under …/index.html/, and each subscriber's unsubscribe link adds
    its own query to unsubscribe_url's."""
    settings = sample_cli.cwd / "newsroom.toml"
    for line, says in (('base_url = "https://desk:s3cret@news.aikorszak.hu/"', "base_url: no user name or password "
                        "before the host: every page, feed and email would show it to readers"),
                       ('base_url = "https://news.aikorszak.hu:84430/"', "base_url: a port is a number from 1 to "
                        "65535, e.g. https://<your public host>:8443/"),
                       ('base_url = "https://news.aikorszak.hu/hirlevel/index.html"', "base_url: the base URL is "
                        "the folder every page's path is added to, not a page in it: leave out index.html"),
                       ('unsubscribe_url = "https://news.aikorszak.hu/leave?list=weekly"', "unsubscribe_url: each "
                        "subscriber's link adds its own ?t=…: no ?query or #fragment")):
        settings.write_text(f'timezone = "Europe/Budapest"\n{line}\n', encoding="utf-8")
        assert sample_cli("check", expect=1).stderr == f"newsroom.toml:2: {says}\n1 error; nothing was changed\n"


@pytest.mark.sqlite_only
def test_the_example_address_of_a_message_is_no_address_send_refuses(sample_cli):
    """The messages about an address gave `https://news.example.org/` (and the preview's own default) as the
    example to follow, a name reserved for examples that `send` refuses: they name a placeholder instead."""
    settings = sample_cli.cwd / "newsroom.toml"
    for line, says in (('base_url = "news.aikorszak.hu"', "base_url: expected an absolute http(s) URL, e.g. "
                        "https://<your public host>/"),
                       ("base_url = 443", 'base_url: expected text in quotes, e.g. "https://<your public host>/", '
                        "not 443"),
                       ('unsubscribe_url = "leave"', "unsubscribe_url: expected an absolute http(s) URL, e.g. "
                        "https://<your public host>/; empty means {base_url}unsubscribe"),
                       ("unsubscribe_url = 1", 'unsubscribe_url: expected text in quotes, e.g. '
                        '"https://<your public host>/unsubscribe", not 1'),
                       ("feed_id_host = 1", 'feed_id_host: expected text in quotes, e.g. "<your public host>", not 1')):
        settings.write_text(f'timezone = "Europe/Budapest"\n{line}\n', encoding="utf-8")
        assert sample_cli("check", expect=1).stderr == f"newsroom.toml:2: {says}\n1 error; nothing was changed\n"


@pytest.mark.sqlite_only
def test_a_public_build_says_when_its_address_is_the_preview_s(sample_cli, tmp_path):
    """The preview's default address, http://localhost:8000/, went into a public build's canonical links, feeds,
    sitemap and emails, an issue's email file and the SKOS export's concept names, without a word. A preview
    (`build --drafts`, `email --draft`) is made for this machine and says nothing."""
    site = ["--quiet", "--out", str(tmp_path / "site"), "--email-out", str(tmp_path / "mail")]
    assert sample_cli("build", "--drafts", *site).stderr == ""
    warned = sample_cli("build", *site).stderr
    assert warned.startswith("newsroom.toml (none here yet): base_url: warning: the canonical links, feeds, sitemap "
                             "and emails of a public build lead to http://localhost:8000/ (the preview's default), "
                             "this machine's own name, which no reader reaches"), warned
    # A public address says nothing: see test_build's terminal test, whose builds print nothing but the summary.
    mailed = sample_cli("email", "13", "--lang", "en", "--out", str(tmp_path / "one"), "--base-url", "http://10.1.2.3/")
    assert mailed.stderr == ("command line: --base-url: warning: every link of this email leads to http://10.1.2.3/, "
                             "an address of a private network, which no reader reaches: set base_url (or --base-url) "
                             "to the address the site is served at before mailing it (`send` refuses it)\n"), mailed
    assert sample_cli("email", "13", "--lang", "en", "--out", str(tmp_path / "one"), "--draft").stderr == ""
    skos = sample_cli("export", "--skos", str(tmp_path / "glossary.ttl")).stderr
    assert skos == (f"newsroom.toml (none here yet): base_url: warning: the concepts of {tmp_path / 'glossary.ttl'} "
                    "are named by addresses under http://localhost:8000/ (the preview's default), this machine's own "
                    "name, which no reader reaches: set base_url to the address the site is served at before "
                    "publishing the file (its concepts' names are meant to stay)\n"), skos


@pytest.mark.sqlite_only
def test_a_public_build_at_an_http_address_says_it_is_not_https(sample_cli, tmp_path):
    """`send` refuses a base URL that is not HTTPS, while a public build, an issue's email file and the SKOS
    export at `http://` said nothing: their links and concepts' names were published at an address browsers mark
    "Not secure", and changed when the site moved to https://. Each warns at newsroom.toml's line; a preview
    says nothing, and an https:// address nothing either."""
    settings = sample_cli.cwd / "newsroom.toml"
    settings.write_text('timezone = "Europe/Budapest"\nbase_url = "http://hirek.aikorszak.hu/"\n', encoding="utf-8")
    site = ["--quiet", "--out", str(tmp_path / "site"), "--email-out", str(tmp_path / "mail")]
    assert sample_cli("build", "--drafts", *site).stderr == ""
    insecure = ("http://hirek.aikorszak.hu/, which is not HTTPS: browsers mark its pages \"Not secure\", and "
                "changing it later changes every address already published; set base_url")
    assert sample_cli("build", *site).stderr == (
        f"newsroom.toml:2: base_url: warning: the canonical links, feeds, sitemap and emails of a public build lead "
        f"to {insecure} (or --base-url) to the https:// address the site is served at before publishing it (`build "
        "--drafts` and `newsroom serve` are the previews)\n")
    mail = ["13", "--lang", "en", "--out", str(tmp_path / "one")]
    assert sample_cli("email", *mail).stderr == (
        f"newsroom.toml:2: base_url: warning: every link of this email leads to {insecure} (or --base-url) to the "
        "https:// address the site is served at before mailing it (`send` refuses it)\n")
    assert sample_cli("email", *mail, "--draft").stderr == ""
    skos = tmp_path / "glossary.ttl"
    assert sample_cli("export", "--skos", str(skos)).stderr == (
        f"newsroom.toml:2: base_url: warning: the concepts of {skos} are named by addresses under {insecure} to the "
        "https:// address the site is served at before publishing the file (its concepts' names are meant to "
        "stay)\n")
    assert sample_cli("build", *site, "--base-url", "https://hirek.aikorszak.hu/").stderr == ""


#: How a public build and `check` begin their warning of the base URL, and how they end one of an address no
#: reader reaches.
PUBLIC_BUILD = "base_url: warning: the canonical links, feeds, sitemap and emails of a public build lead to"
UNREACHED = ("which no reader reaches: set base_url (or --base-url) to the address the site is served at before "
             "publishing it (`build --drafts` and `newsroom serve` are the previews)")


@pytest.mark.sqlite_only
@pytest.mark.parametrize("written, base, why", [
    (None, "http://localhost:8000/", "(the preview's default), this machine's own name"),
    ("http://LocalHost:8080", "http://localhost:8080/", "this machine's own name"),
    ("https://127.0.0.1:8443/", "https://127.0.0.1:8443/", "this machine's own address"),
    ("https://[::1]/hirek", "https://[::1]/hirek/", "this machine's own address"),
    ("https://[::ffff:127.0.0.1]/", "https://[::ffff:127.0.0.1]/", "this machine's own address"),
    ("http://0.0.0.0:8000/", "http://0.0.0.0:8000/",
     "no one machine's address (it stands for every address of a machine listening)"),
    ("https://169.254.10.20/", "https://169.254.10.20/", "a link-local address, one network segment's alone"),
    ("https://[fe80::1]/", "https://[fe80::1]/", "a link-local address, one network segment's alone"),
    ("https://192.168.1.20/hirlevel/", "https://192.168.1.20/hirlevel/", "an address of a private network"),
    ("https://hirek.local/", "https://hirek.local/", "a name only the local network answers for"),
    ("https://intranet/", "https://intranet/", "a name only the local network answers for"),
])
def test_check_says_of_an_address_no_reader_reaches_what_a_public_build_says(sample_cli, tmp_path, written, base,
                                                                             why):
    """`check`, which editors run before publishing, said nothing of a base URL on this machine or a private
    network, and the public build after it warned. It warns as that build does, in the same words (one function
    words both), at the line of newsroom.toml (or where to write one), and counts it; a preview says nothing."""
    settings = sample_cli.cwd / "newsroom.toml"
    if written:
        settings.write_text(f'timezone = "Europe/Budapest"\nbase_url = "{written}"\n', encoding="utf-8")
    warned = f"{'newsroom.toml:2' if written else 'newsroom.toml (none here yet)'}: {PUBLIC_BUILD} {base}, {why}, " \
             f"{UNREACHED}".replace(f"{base}, (", f"{base} (")
    assert sample_cli("check").stderr.splitlines() == [warned, "0 error(s), 1 warning(s)"]
    assert sample_cli("check", "--strict", expect=1).stderr.splitlines() == [
        warned, "0 error(s), 1 warning(s): --strict fails on warnings"]
    if written is None:  # a build for one address: the others are worded by the same function
        site = ["--quiet", "--out", str(tmp_path / "site"), "--email-out", str(tmp_path / "mail")]
        assert sample_cli("build", *site).stderr.splitlines() == [warned]
        assert sample_cli("build", "--drafts", *site).stderr == ""


@pytest.mark.sqlite_only
def test_check_names_newsroom_toml_alike_in_a_warning_and_in_an_error(sample_cli):
    """`check` named the file `newsroom.toml:2` in its warning of the base URL, and by its full path when the file
    held an error: one file, two names. Both name it as an import names a content file, as it was given: the
    current folder's is `newsroom.toml`."""
    settings = sample_cli.cwd / "newsroom.toml"
    settings.write_text('timezone = "Europe/Budapest"\nbase_url = "http://hirek.aikorszak.hu/"\n', encoding="utf-8")
    assert sample_cli("check").stderr.splitlines()[0].startswith(f"newsroom.toml:2: {PUBLIC_BUILD} ")
    settings.write_text(settings.read_text(encoding="utf-8") + "feed_limit = 0\n", encoding="utf-8")
    assert sample_cli("check", expect=1).stderr.splitlines() == [
        "newsroom.toml:3: feed_limit: expected a number of items, 1 or more", "1 error; nothing was changed"]


@pytest.mark.sqlite_only
def test_check_says_of_an_http_address_what_a_public_build_says_and_of_an_https_one_nothing(sample_cli, tmp_path):
    """A public address that is not HTTPS: `check` warns as a public build does; an https:// one the public
    reaches, which a published site has, leaves `check` silent on clean content."""
    settings = sample_cli.cwd / "newsroom.toml"
    settings.write_text('timezone = "Europe/Budapest"\nbase_url = "http://hirek.aikorszak.hu/"\n', encoding="utf-8")
    warned = (f"newsroom.toml:2: {PUBLIC_BUILD} http://hirek.aikorszak.hu/, which is not HTTPS: browsers mark its "
              "pages \"Not secure\", and changing it later changes every address already published; set base_url "
              "(or --base-url) to the https:// address the site is served at before publishing it (`build --drafts` "
              "and `newsroom serve` are the previews)")
    assert sample_cli("check").stderr.splitlines() == [warned, "0 error(s), 1 warning(s)"]
    assert sample_cli("build", "--quiet", "--out", str(tmp_path / "site")).stderr.splitlines() == [warned]
    settings.write_text('timezone = "Europe/Budapest"\nbase_url = "https://hirek.aikorszak.hu/"\n', encoding="utf-8")
    assert sample_cli("check").stderr == ""


#: A publication of its own with one glossary entry, for its feeds' ids.
MOVING = {**OWN_SITE, "site.yaml": OWN_SITE["site.yaml"] + "categories: [{slug: infra, hu: Infra, en: Infra}]\n",
          "entries/chip.yaml": "kind: entry\nslug: chip\ncategory: infra\nlevel: basic\ntrend: mainstream\n"
                               "status: 2026-11\nsources: [{publisher: X, title: Y, url: 'https://x.hu/'}]\n"
                               "hu: {headword: Chip, definition: Egy chip.}\n"
                               "en: {headword: Chip, definition: A chip.}\n"}


@pytest.mark.sqlite_only("feed ids are made of the settings and the content, whatever the database")
def test_a_site_that_moves_to_another_host_keeps_its_feed_ids_with_feed_id_host(cli, write_files):
    """A feed item's id is a tag: URI of the base URL's host: a move to another host made every item of every feed
    new to its readers. `feed_id_host` keeps the host the feeds were published from; a change of scheme or of
    the path the site is served under never changed an id."""
    cli("init")
    cli("import", str(write_files(MOVING)))

    def ids(base: str, settings: str = "") -> list[str]:
        (cli.cwd / "newsroom.toml").write_text(f'base_url = "{base}"\n{settings}', encoding="utf-8")
        cli("build", "--out", "site")
        feeds = [feedparser.parse((cli.cwd / "site" / lang / "feeds" / name).read_bytes())
                 for lang in ("hu", "en") for name in ("glossary.atom", "glossary.xml", "issues.atom")]
        return [feed.feed.get("id", "") for feed in feeds] + [item.id for feed in feeds for item in feed.entries]

    first = ids("https://hirek.aikorszak.hu/")
    assert "tag:hirek.aikorszak.hu,2026:hu/glossary/chip/2026-11" in first
    assert ids("http://hirek.aikorszak.hu/gepi-figyelo/") == first
    assert ids("https://gepifigyelo.hu/") != first
    assert ids("https://gepifigyelo.hu/", 'feed_id_host = "Hirek.Aikorszak.hu"\n') == first
    (cli.cwd / "newsroom.toml").write_text('feed_id_host = "https://hirek.aikorszak.hu/"\n', encoding="utf-8")
    assert cli("check", expect=1).stderr.startswith("newsroom.toml:1: feed_id_host: expected a host "
                                                    "name alone, e.g. <your public host> (no scheme, port or path)")


@pytest.mark.parametrize("written, ascii_host", [
    ("https://Straße.de/", "xn--strae-oqa.de"),  # IDNA 2003 made it strasse.de, another domain (someone else's)
    ("https://hírlevél.hu/hirlevel", "xn--hrlevl-fva1a.hu"),
    ("https://ＡＩ-Hírek.hu/", "xn--ai-hrek-bza.hu"),  # full-width letters, as an input method types them
])
def test_an_international_host_is_written_as_browsers_write_it(tmp_path, written, ascii_host):
    """A host name is turned into its ASCII form by IDNA 2008 with UTS #46's mapping, as browsers do: Python's
    own codec (IDNA 2003) made `straße.de` `strasse.de`, a link, a feed id and a List-Unsubscribe header to
    another domain than the one readers type."""
    (tmp_path / "newsroom.toml").write_text(f'base_url = "{written}"\nfeed_id_host = "{written.split("/")[2]}"\n',
                                            encoding="utf-8")
    settings = load(tmp_path)
    assert urlsplit(settings.base_url).hostname == ascii_host, settings.base_url
    assert settings.feed_id_host == ascii_host


@pytest.mark.sqlite_only
def test_a_host_name_browsers_refuse_is_named_at_its_line(sample_cli):
    """IDNA 2008 takes no symbol or emoji in a host name (IDNA 2003 made `☕.hu` `xn--53h.hu`, which no browser
    opens now): such a base URL is refused at its line, saying which character, as is an empty label."""
    settings = sample_cli.cwd / "newsroom.toml"
    for host, says in (("kávé☕.hu", "the character '☕' (U+2615) is not allowed in a host name"),
                       ("hírek..hu", "a host name's dot-separated labels have 1 to 63 characters each, none empty")):
        settings.write_text(f'timezone = "Europe/Budapest"\nbase_url = "https://{host}/"\n', encoding="utf-8")
        assert sample_cli("check", expect=1).stderr == (
            f"newsroom.toml:2: base_url: {host!r} is no host name browsers open (IDNA 2008): {says}; write the "
            "host as its registrar gives it (its xn-- form will do)\n1 error; nothing was changed\n")
