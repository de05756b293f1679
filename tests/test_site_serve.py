"""`newsroom serve`: a preview on 127.0.0.1 that imports a changed content file and serves the rebuilt page."""

from __future__ import annotations

import datetime as dt
import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import html5lib
import pytest
from sitebuild import ISSUE_14_STORY, build_sample, parse, text_of
from stopping import SAID_GAP_SECONDS, WITH_WORKERS, bounded, ended, stopped_with_a_stuck_worker

from conftest import Cli

from newsroom import PROJECT_ROOT, SAMPLE_DIR
from newsroom.db.session import make_engine
from newsroom.serve import Preview
from newsroom.settings import Settings

DRAFT_ISSUE = """\
kind: issue
number: 14
week: {start: 2026-11-09, end: 2026-11-15}
status: draft
hu: {title: Készülő szám}
en: {title: Issue in the making}
"""
TIMEOUT = 60  # generous: a bound on waiting, not a timing assertion


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


def _request(server: Preview, path: str, method: str = "GET", headers: dict[str, str] | None = None
             ) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and body of `path` sent as it is (urllib would mend a path an attacker would not)."""
    connection = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        connection.request(method, path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def _wait_for(predicate, what: str, said: list[str] | None = None) -> None:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    pytest.fail(f"gave up waiting for {what}" + (f"; the preview said: {said}" if said is not None else ""))




def _started(work: Path, out: Path, content: list[Path], said: list[str], settings: Settings | None = None
             ) -> Preview:
    """A started preview of the SQLite publication in `work`, watching `content`, on the tests' clock
    (2026-11-30, 12:00 UTC), saying into `said`; stop it and dispose of its engine (`_stopped`)."""
    server = Preview(make_engine(f"sqlite:///{work / 'site.db'}"), settings or Settings(), out,
                     today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc), content=content,
                     database_file=work / "site.db", port=0, say=said.append)
    server.start()
    return server


def _stopped(server: Preview) -> None:
    server.stop()
    server.engine.dispose()


@pytest.fixture(scope="module")
def preview(tmp_path_factory):
    """One preview server for the module (the tests that only read come first)."""
    tmp_path = tmp_path_factory.mktemp("serve")
    work = tmp_path / "work"
    build_sample(work)
    content = tmp_path / "content"
    (content / "entries").mkdir(parents=True)
    shutil.copy(SAMPLE_DIR / "entries" / "trainium.yaml", content / "entries")
    (content / "issues").mkdir()
    (content / "issues" / "0014.yaml").write_text(DRAFT_ISSUE, encoding="utf-8")
    templates = tmp_path / "templates"  # newsroom.toml's `templates`: a copy of the bundled ones
    shutil.copytree(Path(__file__).parents[1] / "templates", templates)
    engine = make_engine(f"sqlite:///{work / 'site.db'}")
    server = Preview(engine, Settings(templates=str(templates)), tmp_path / "preview",
                     today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc), content=[content],
                     database_file=work / "site.db", port=0, say=lambda message: None)
    server.start()
    yield server, content, work, templates
    server.stop()
    engine.dispose()


def test_unknown_paths_get_the_site_404_page(preview):
    server, _, _, _ = preview
    status, body = _get(server.url + "hu/no-such-page/")
    assert status == 404 and "Az oldal nem található" in body


def test_an_unknown_path_of_a_language_gets_that_language_s_404_page(preview):
    """`/en/…` not found is the English 404 page (it was the root's, Hungarian, for every path), its folder
    percent-encoded too, as the file it names is looked up (`/%65n/…` is `/en/…`: it got the root's), and in a
    request naming the whole URL (`GET http://host/en/…`, as a proxy sends it: it got the root's, and a page
    there was not found)."""
    server, _, _, _ = preview
    assert sorted(path.relative_to(server.out).as_posix() for path in server.out.rglob("404.html")) == [
        "404.html", "en/404.html", "hu/404.html"]  # the build's: the root's, and one per language
    absolute = f"http://127.0.0.1:{server.port}"
    for path in ("/en/no-such-page/", "/%65n/no-such-page/", "/en%2Fno-such-page", f"{absolute}/en/no-such-page/",
                 f"HTTP://localhost:{server.port}/%65n/no-such-page?q=1"):
        status, _, body = _request(server, path)
        document = html5lib.parse(body, namespaceHTMLElements=False)
        assert status == 404 and document.get("lang") == "en", path
        assert text_of(document.find(".//h1")) == "Page not found", path
    assert _request(server, "/%65n/")[0] == 200  # the page it names, served as `/en/` is
    status, headers, body = _request(server, f"{absolute}/en/?q=1")
    assert status == 200 and html5lib.parse(body, namespaceHTMLElements=False).get("lang") == "en"
    assert _request(server, f"{absolute}/en/glossary/gpu")[1]["location"] == "/en/glossary/gpu/"
    assert _request(server, f"{absolute}/__build_id")[2] == server.build_id.encode()
    status, _, body = _request(server, absolute)  # the root, with no path at all
    assert status == 200 and body == (server.out / "index.html").read_bytes()
    status, _, body = _request(server, "/hu/no-such-page/?q=1", "HEAD")
    assert status == 404 and body == b""
    status, _, body = _request(server, "/no-such-page")
    assert status == 404 and html5lib.parse(body, namespaceHTMLElements=False).get("lang") == "hu"


def test_files_are_served_with_their_type_and_charset_and_never_sniffed(preview):
    """Each kind of file the build writes goes with its type and charset, whatever the system's tables say
    (HTML went without a charset, and an `.atom` feed as a download where they lack it), and `nosniff`."""
    server, _, _, _ = preview
    for path, expected in [("/hu/", "text/html"), ("/en/feeds/issues.xml", "application/xml"),
                           ("/en/feeds/issues.atom", "application/atom+xml"),
                           ("/en/search/index/meta.json", "application/json"), ("/sitemap.xml", "application/xml")]:
        status, headers, _ = _request(server, path)
        assert status == 200 and headers["content-type"] == f"{expected}; charset=utf-8", path
        assert headers["x-content-type-options"] == "nosniff", path
    assert _request(server, "/no-such-page")[1]["x-content-type-options"] == "nosniff"
    status, headers, body = _request(server, "/__build_id", "HEAD")  # as GET, without the body (it was a 404)
    assert status == 200 and headers["content-type"] == "text/plain; charset=utf-8" and body == b""
    assert headers["content-length"] == str(len(server.build_id))


def test_paths_out_of_the_preview_folder_a_folder_s_listing_and_a_nul_are_not_found(preview):
    """The database beside the preview folder is out of reach however the path is spelt; a folder without an
    index.html is not found, as on the web server (it was a listing of its files); a `%00` in the path is not
    found (the connection was dropped, a traceback printed)."""
    server, _, work, _ = preview
    assert (work / "site.db").is_file() and (work.parent / "preview").is_dir()
    for path in ["/../work/site.db", "/%2e%2e/work/site.db", "/..%2fwork%2fsite.db", "/..\\work\\site.db",
                 f"/{work / 'site.db'}", f"//{work / 'site.db'}", "/assets/", "/en/search/index/", "/en/%00",
                 "/en/glossary/gpu/%00index.html"]:
        status, headers, body = _request(server, path)
        assert status == 404 and b"SQLite" not in body and b"Directory listing" not in body, path
        assert headers["content-type"] == "text/html; charset=utf-8", path
    assert _request(server, "/en/glossary/gpu")[0] == 301


def test_a_request_for_another_site_s_name_is_refused(preview):
    """A page of any site may make its name lead to 127.0.0.1 (DNS rebinding) and then read the preview, drafts
    and all, as its own: a request naming a host other than this machine is refused (it was served)."""
    server, _, _, _ = preview
    for host in ["attacker.example", f"attacker.example:{server.port}", "127.0.0.1.attacker.example"]:
        for path in ["/hu/issues/14/", "/__build_id"]:
            status, _, body = _request(server, path, headers={"Host": host})
            assert status == 403 and "Készülő szám" not in body.decode("utf-8"), (host, path)
            assert server.url.encode() in body
        assert _request(server, "/hu/", "HEAD", headers={"Host": host})[0] == 403
        # Named in the request line, as a proxy does, it stands for the Host header (RFC 9112, 3.2.2).
        assert _request(server, f"http://{host}/hu/issues/14/", headers={"Host": f"127.0.0.1:{server.port}"})[0] \
            == 403, host
    for host in [f"127.0.0.1:{server.port}", f"localhost:{server.port}", "preview.localhost"]:
        assert _request(server, "/hu/issues/14/", headers={"Host": host})[0] == 200, host


def test_a_preview_on_this_machine_s_ipv6_address(tmp_path):
    """`--host ::1` listens on IPv6 (it was refused as an address not this machine's), said nothing of other
    machines, with the address in brackets in the preview's URL."""
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError as error:
        pytest.skip(f"no IPv6 here: {error}")
    said: list[str] = []
    engine = make_engine(f"sqlite:///{tmp_path / 'site.db'}")
    server = Preview(engine, Settings(), tmp_path / "preview", today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc), host="::1", port=0,
                     say=said.append)
    try:
        threading.Thread(target=server.http.serve_forever, daemon=True).start()
        assert server.url == f"http://[::1]:{server.port}/" and said == []
        with urllib.request.urlopen(server.url + "__build_id", timeout=10) as response:
            assert response.read() == b"0"
    finally:
        server.http.shutdown()
        server.http.server_close()
        engine.dispose()


def test_a_connection_that_sends_nothing_is_closed(tmp_path):
    """A client that connects and sends nothing (a browser's spare connection, a stalled one) is dropped once
    idle for the preview's time (it held a thread for good), and the preview answers the next one."""
    engine = make_engine(f"sqlite:///{tmp_path / 'site.db'}")
    server = Preview(engine, Settings(), tmp_path / "preview", today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc), port=0,
                     say=lambda message: None, idle_seconds=0.5)
    try:
        threading.Thread(target=server.http.serve_forever, daemon=True).start()
        with socket.create_connection((server.host, server.port), timeout=10) as idle:
            assert idle.recv(1024) == b""  # closed by the preview (the test's bound raises TimeoutError)
        with socket.create_connection((server.host, server.port), timeout=10) as partial:
            partial.sendall(b"GET /__build_id HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # the request's end never comes
            assert partial.recv(1024) == b""
        assert _request(server, "/__build_id")[2] == b"0"
    finally:
        server.http.shutdown()
        server.http.server_close()
        engine.dispose()


def test_a_preview_open_to_other_machines_says_so(tmp_path):
    """`--host` other than this machine's loopback is said to show the drafts to whoever reaches it. Listening
    on every address (0.0.0.0, ::), the preview's links name this machine, which a colleague's browser opens
    (they were `http://0.0.0.0:8000/`, which opens nothing on another machine)."""
    names = {socket.getfqdn(), socket.gethostname()}
    hosts = ["0.0.0.0"]
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::", 0))
        hosts.append("::")
    except OSError:
        pass  # no IPv6 here
    for host in hosts:
        said: list[str] = []
        engine = make_engine(f"sqlite:///{tmp_path / 'site.db'}")
        server = Preview(engine, Settings(), tmp_path / "preview", today=lambda: dt.date(2026, 11, 30),
                         now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc), host=host, port=0,
                         say=said.append)
        server.http.server_close()
        engine.dispose()
        shown = "[::]" if host == "::" else host
        assert said == [f"listening on {shown}:{server.port}: whoever reaches this machine there sees the preview, "
                        "drafts included (`--host 127.0.0.1` keeps it to this machine)"]
        name = urlsplit(server.url).hostname
        assert name in names and name not in ("0.0.0.0", "::"), server.url
        assert server.url == f"http://{name}:{server.port}/"


def test_drafts_are_visible_and_marked_only_in_the_preview(preview):
    server, _, work, _ = preview
    _, body = _get(server.url + "hu/")
    assert 'class="preview-banner"' in body
    status, draft = _get(server.url + "hu/issues/14/")
    assert status == 200 and "Készülő szám" in draft and 'class="draft"' in draft
    built = (work / "_site" / "hu" / "index.html").read_text(encoding="utf-8")
    assert "__build_id" not in built and "preview-banner" not in built
    assert not (work / "_site" / "hu" / "issues" / "14").exists()


def test_a_changed_content_file_is_imported_rebuilt_and_served(preview):
    server, content, _, _ = preview
    assert server.host == "127.0.0.1" and server.url == f"http://127.0.0.1:{server.port}/"
    page = server.url + "en/glossary/trainium/"
    status, body = _get(page)
    assert status == 200 and "Trainium is Amazon" in body
    assert "/__build_id" in body  # the reload script, in preview output only
    first_id = _get(server.url + "__build_id")[1]

    source = content / "entries" / "trainium.yaml"
    text = source.read_text(encoding="utf-8")
    assert "    Trainium is Amazon's own" in text
    source.write_text(text.replace("    Trainium is Amazon's own", "    Freshly edited: Trainium is Amazon's own"),
                      encoding="utf-8")

    _wait_for(lambda: "Freshly edited" in _get(page)[1], "the edited definition to be served")
    _wait_for(lambda: _get(server.url + "__build_id")[1] != first_id, "a new build id for the reload script")


def test_an_edit_of_the_templates_newsroom_toml_names_is_served(preview):
    """The preview watches the templates folder it renders with, the one of the settings (`templates` in
    newsroom.toml): an edit there is rebuilt and served (the bundled folder was watched, the edit never shown);
    one the build stops on keeps the last good site, the error at the top of its pages."""
    server, _, _, templates = preview
    base = templates / "base.html"
    text = base.read_text(encoding="utf-8")
    marked = '{{ _("Preview: drafts are shown and marked") }}'
    assert marked in text
    base.write_text(text.replace(marked, marked + " (our own templates)"), encoding="utf-8")
    _wait_for(lambda: "(our own templates)" in _get(server.url + "hu/")[1], "the edited template served")
    # A template the build stops on: the last good site, with the error at its top, until it is mended.
    base.write_text(text.replace("{% endif %}", "{% endiff %}", 1), encoding="utf-8")
    _wait_for(lambda: "Encountered unknown tag &#x27;endiff&#x27;" in _get(server.url + "hu/")[1], "the error shown")
    assert "(our own templates)" in _get(server.url + "hu/")[1]
    base.write_text(text, encoding="utf-8")
    _wait_for(lambda: 'role="alert"' not in _get(server.url + "hu/")[1], "the mended template served")


@pytest.mark.sqlite_only("what the build stops on is no matter of the database")
def test_a_first_build_that_fails_is_shown_in_every_page_until_mended(databases, tmp_path):
    """Started with a template the build stops on, the preview has no site to show: every path answers with the
    problems, in its language, and reloads itself (it was a bare "Error response 404"); mended, the site is served.
    That page is valid HTML5 with the landmarks of the site's pages, a main region and a heading, and the problems
    in a list marked as English, as the terminal says them (it was a body of a banner's alert and a <pre>). It is
    sent as unavailable for now, to ask again in a second, never kept (503, Retry-After, no-store): it was a 404,
    which tells a browser, a link checker or a proxy the page is not there. Once built, a missing page is a 404."""
    db_url = databases.new("migrated")
    Cli(db_url, tmp_path)("import", str(SAMPLE_DIR / "site.yaml"), str(SAMPLE_DIR / "pages"))  # a site of few pages
    templates = tmp_path / "templates"
    shutil.copytree(Path(__file__).parents[1] / "templates", templates)
    base = templates / "base.html"
    text = base.read_text(encoding="utf-8")
    base.write_text(text.replace("{% endif %}", "{% endiff %}", 1), encoding="utf-8")
    engine = make_engine(db_url)
    said: list[str] = []
    server = Preview(engine, Settings(templates=str(templates)), tmp_path / "preview",
                     today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc),
                     database_file=Path(db_url.removeprefix("sqlite:///")), port=0, say=said.append)
    server.start()
    try:
        strict = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)  # raises at any parse error
        for path, lang, heading, said in [
                ("hu/", "hu", "Még nincs előnézet: a webhelyet nem sikerült összeállítani",
                 "Javítsd ki az alább felsoroltakat, és mentsd el: ez az oldal magától újratöltődik, amint elkészül "
                 "a webhely."),
                ("en/no-such-page/", "en", "No preview yet: the site could not be built",
                 "Fix what is listed below and save it: this page reloads by itself once the site is built.")]:
            status, headers, body = _request(server, "/" + path)
            document = strict.parse(body)
            assert status == 503 and headers["content-type"] == "text/html; charset=utf-8", path
            assert headers["retry-after"] == "1" and headers["cache-control"] == "no-store", headers
            assert document.get("lang") == lang and text_of(document.find("head/title")) == heading, path
            main = document.find("body/main")
            assert [child.tag for child in main] == ["h1", "p", "h2", "ul"], path
            assert [text_of(child) for child in main[:3]] == [heading, said, "Hibák" if lang == "hu" else "Problems"]
            problems = [text_of(item) for item in main.find("ul")]
            assert main.find("ul").get("lang") == "en" and len(problems) == 1, problems
            assert problems[0].startswith(f"{base.resolve()}:") and "unknown tag 'endiff'" in problems[0], problems
            assert "/__build_id" in text_of(document.find("body/script"))
        base.write_text(text, encoding="utf-8")
        _wait_for(lambda: _request(server, "/hu/")[0] == 200 and b'role="alert"' not in _request(server, "/hu/")[2],
                  "the mended site served", said)
        status, headers, body = _request(server, "/en/no-such-page/")
        assert status == 404 and "retry-after" not in headers, headers
        assert text_of(html5lib.parse(body, namespaceHTMLElements=False).find(".//h1")) == "Page not found", body
    finally:
        _stopped(server)


@pytest.mark.sqlite_only("what the build stops on is no matter of the database")
def test_a_missing_page_of_a_built_site_without_its_404_page_is_a_404_with_the_problems(databases, tmp_path):
    """A site built, then a change the build stops on: a path not found, where the site has no 404 page (removed
    by hand), is missing, 404: http.server's page (English), with the problems at its top as every page has them,
    in its language, and the script that reloads it once they are fixed (it was the page of "no preview yet", 503,
    as though there were no site at all)."""
    db_url = databases.new("migrated")
    Cli(db_url, tmp_path)("import", str(SAMPLE_DIR / "site.yaml"), str(SAMPLE_DIR / "pages"))  # a site of few pages
    templates = tmp_path / "templates"
    shutil.copytree(Path(__file__).parents[1] / "templates", templates)
    out = tmp_path / "preview"
    said: list[str] = []
    server = Preview(make_engine(db_url), Settings(templates=str(templates)), out, today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc),
                     database_file=Path(db_url.removeprefix("sqlite:///")), port=0, say=said.append)
    server.start()
    try:
        base = templates / "base.html"
        base.write_text(base.read_text(encoding="utf-8").replace("{% endif %}", "{% endiff %}", 1), encoding="utf-8")
        _wait_for(lambda: b'role="alert"' in _request(server, "/hu/")[2], "the problems shown", said)
        for page in out.rglob("404.html"):
            page.unlink()
        strict = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)  # raises at any parse error
        for path in ("/hu/no-such-page/", "/no-such-file.css"):
            status, headers, body = _request(server, path)
            document = strict.parse(body)
            assert status == 404 and "retry-after" not in headers, (path, status, headers)
            assert headers["content-type"] == "text/html; charset=utf-8" and headers["cache-control"] == "no-store"
            assert document.get("lang") == "en" and text_of(document.find("body/h1")) == "Error response", path
            banner = document.find("body/div[@role='alert']")
            assert text_of(banner.find("p")) == ("The last change is not shown: the preview shows the site as it was "
                                                 "until this is fixed."), path
            assert banner.find("pre").get("lang") == "en" and "unknown tag 'endiff'" in text_of(banner.find("pre"))
            assert "/__build_id" in text_of(document.find("body/script")), path
            assert "No preview yet" not in text_of(document), path
    finally:
        _stopped(server)


@pytest.mark.sqlite_only("what newsroom.toml says is no matter of the database")
@pytest.mark.parametrize("here", [True, False], ids=["in-the-current-folder", "in-another-folder"])
def test_a_changed_newsroom_toml_is_said_to_need_a_restart(databases, tmp_path, monkeypatch, here):
    """newsroom.toml changed while the preview runs: it goes on with the settings it started with (what they
    name is where it listens, what it watches and builds), and says so in the terminal and at the top of every
    page (it said nothing); a newsroom.toml no command would take is named there with its problem, the preview
    serving on; put back as it was, nothing is said. It is named as at start-up: `newsroom.toml` (with its line)
    in the current folder, as `newsroom serve` started there watches it (it was named in full), another
    folder's in full."""
    if here:
        monkeypatch.chdir(tmp_path)
    db_url = databases.new("migrated")
    Cli(db_url, tmp_path)("import", str(SAMPLE_DIR / "site.yaml"), str(SAMPLE_DIR / "pages"))  # a site of few pages
    toml = tmp_path / "newsroom.toml"
    toml.write_text("feed_limit = 20\n", encoding="utf-8")  # the default: what it started with
    said: list[str] = []
    server = Preview(make_engine(db_url), Settings(), tmp_path / "preview", today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc),
                     database_file=Path(db_url.removeprefix("sqlite:///")), port=0, say=said.append,
                     settings_folder=tmp_path)
    server.start()

    def alert(path: str = "/en/") -> str | None:
        status, _, body = _request(server, path)
        assert status == 200, path
        found = html5lib.parse(body, namespaceHTMLElements=False).find(".//body/div[@role='alert']")
        return None if found is None else found.find("pre").text

    named = "newsroom.toml" if here else str(toml.resolve())
    restart = (f"{named}: changed; the preview goes on with the settings it started with: stop it (Ctrl-C) "
               "and start `newsroom serve` again to preview with the new ones")
    try:
        assert alert() is None and said[-1].startswith("build 1:")
        toml.write_text("feed_limit = 5\n", encoding="utf-8")
        _wait_for(lambda: restart in said, "the change said", said)
        assert alert() == restart and alert("/hu/") == restart
        toml.write_text("feed_limit = 5\nfeed_limt = 6\n", encoding="utf-8")
        _wait_for(lambda: restart + " once they are fixed" in said, "the bad file said", said)
        unknown = f"{named}:2: feed_limt: unknown setting; expected one of "
        assert alert().startswith(unknown) and alert().endswith(restart + " once they are fixed")
        toml.write_text("feed_limit = 20\n", encoding="utf-8")  # as it started
        _wait_for(lambda: alert() is None, "the note gone", said)
        assert server.build_id != "1"  # the open pages reloaded each time
    finally:
        _stopped(server)


def test_a_database_held_by_another_command_delays_the_preview_and_does_not_stop_it(tmp_path, monkeypatch):
    """An import of many files holds the database longer than a command waits: the preview says so,
    keeps serving the last good site, and takes the change in once the database is free (its watcher
    used to die there, and the preview never rebuilt again)."""
    import sqlite3

    from newsroom.db import session as db_session

    monkeypatch.setattr(db_session, "BUSY_TIMEOUT_MS", 200)  # how long a connection made now waits
    work, content = tmp_path / "work", tmp_path / "content"
    build_sample(work)
    (content / "entries").mkdir(parents=True)
    shutil.copy(SAMPLE_DIR / "entries" / "trainium.yaml", content / "entries")
    engine = make_engine(f"sqlite:///{work / 'site.db'}")
    said: list[str] = []
    server = Preview(engine, Settings(), tmp_path / "preview", today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc), content=[content],
                     database_file=work / "site.db", port=0, say=said.append)
    server.start()
    try:
        page = server.url + "en/glossary/trainium/"
        source = content / "entries" / "trainium.yaml"
        holder = sqlite3.connect(work / "site.db")
        holder.execute("BEGIN IMMEDIATE")  # another command's write under way
        try:
            source.write_text(source.read_text(encoding="utf-8").replace(
                "    Trainium is Amazon's own", "    Held back: Trainium is Amazon's own"), encoding="utf-8")
            _wait_for(lambda: any("another command (an import, an edit, a build) is writing" in m for m in said),
                      "the preview to say the database is busy", said)
            assert "Held back" not in _get(page)[1]
        finally:
            holder.rollback()
            holder.close()
        _wait_for(lambda: "Held back" in _get(page)[1], "the held-back edit to be served", said)
        assert sum("is writing to the database" in m for m in said) == 1  # said once, not every retry
    finally:
        server.stop()
        engine.dispose()


def test_another_editor_s_change_to_a_shared_database_is_previewed(sample_cli, databases, tmp_path):
    """A team's PostgreSQL is no file to watch: the preview asks it whether anything changed, and an edit
    another editor makes there (here through the command line) reaches the preview (it used to never)."""
    if databases.backend == "sqlite":
        pytest.skip("a SQLite file is watched: the tests above")
    engine = make_engine(sample_cli.db_url)
    said: list[str] = []
    server = Preview(engine, Settings(), tmp_path / "preview", today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc), port=0, say=said.append)
    server.start()
    try:
        page, first_id = server.url + "en/glossary/gpu/", server.build_id
        assert "Graphics processing unit, shared" not in _get(page)[1]
        sample_cli("edit", "entry:gpu", "--set", "en.headword=Graphics processing unit, shared")
        _wait_for(lambda: "Graphics processing unit, shared" in _get(page)[1], "the other editor's edit", said)
        _wait_for(lambda: server.build_id != first_id, "a new build id for the reload script", said)
        built = server.build_id
        time.sleep(3 * 2.0)  # a few rounds of asking: nothing changed, nothing rebuilt
        assert server.build_id == built, said
    finally:
        server.stop()
        engine.dispose()


def test_an_edit_committed_while_the_preview_builds_is_previewed_next(sample_cli, databases, tmp_path, monkeypatch):
    """Another editor's edit committed on the shared database while the preview builds, after the build read
    the content: the next round of asking sees it and builds again (the state was read after the build, so
    the edit counted as built and was never previewed)."""
    if databases.backend == "sqlite":
        pytest.skip("a SQLite file is watched, not asked: the tests above")
    from newsroom import serve

    engine = make_engine(sample_cli.db_url)
    server = Preview(engine, Settings(), tmp_path / "preview", today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc), port=0, say=lambda _: None)
    real_build = serve.build

    def build_then_a_colleague_edits(*args, **kwargs):
        result = real_build(*args, **kwargs)
        monkeypatch.setattr(serve, "build", real_build)  # once
        sample_cli("edit", "entry:gpu", "--set", "en.headword=Graphics processing unit, shared")
        return result

    monkeypatch.setattr(serve, "build", build_then_a_colleague_edits)
    try:
        server.rebuild()
        page = tmp_path / "preview" / "en" / "glossary" / "gpu" / "index.html"
        assert text_of(parse(page).find(".//h1")) == "GPU"
        server.handle([])  # a round of asking the database
        assert text_of(parse(page).find(".//h1")) == "Graphics processing unit, shared"
    finally:
        server.http.server_close()
        engine.dispose()


def test_a_changed_static_file_is_served_again(tmp_path):
    work, static = tmp_path / "work", tmp_path / "static"
    build_sample(work)
    (static / ".well-known").mkdir(parents=True)
    (static / "robots.txt").write_text("User-agent: *\n", encoding="utf-8")
    engine = make_engine(f"sqlite:///{work / 'site.db'}")
    said: list[str] = []
    server = Preview(engine, Settings(static=str(static)), tmp_path / "preview", today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc),
                     database_file=work / "site.db", port=0, say=said.append)
    server.start()
    try:
        assert _get(server.url + "robots.txt") == (200, "User-agent: *\n")
        (static / "robots.txt").write_text("User-agent: *\nDisallow: /\n", encoding="utf-8")
        (static / ".well-known" / "security.txt").write_text("Contact: mailto:x@example.org\n", encoding="utf-8")
        _wait_for(lambda: _get(server.url + "robots.txt")[1].endswith("Disallow: /\n"), "the new robots.txt", said)
        _wait_for(lambda: _get(server.url + ".well-known/security.txt")[0] == 200, "a new dot-folder's file", said)
    finally:
        server.stop()
        engine.dispose()


def test_stopping_waits_for_the_build_under_way(tmp_path, monkeypatch):
    """Stopped while a rebuild runs, the preview waits for it, saying so, before the caller removes its folder
    (it waited 10 s, and a longer build then wrote into the folder being removed: the site, drafts and all,
    was left in the temporary folder)."""
    from newsroom import serve

    work, content = tmp_path / "work", tmp_path / "content"
    build_sample(work)
    content.mkdir()
    shutil.copy(SAMPLE_DIR / "entries" / "trainium.yaml", content)
    said: list[str] = []
    folder = tmp_path / "temporary"
    server = _started(work, folder / "preview", [content], said)
    real_build, building, release, built = serve.build, threading.Event(), threading.Event(), threading.Event()

    def slow_build(*args, **kwargs):
        building.set()
        release.wait(TIMEOUT)
        result = real_build(*args, **kwargs)
        built.set()
        return result

    monkeypatch.setattr(serve, "build", slow_build)
    try:
        source = content / "trainium.yaml"
        text = source.read_text(encoding="utf-8")
        source.write_text(text.replace("    Trainium is Amazon's own", "    Stopped: Trainium is Amazon's own"),
                          encoding="utf-8")
        _wait_for(building.is_set, "the rebuild to start", said)
        threading.Timer(1.5, release.set).start()
        server.stop()
        assert built.is_set() and not any(thread.is_alive() for thread in server._threads), said
        assert ("stopping: waiting for the build under way to end, which writes into the preview's folder"
                in said), said
        shutil.rmtree(folder)  # as the command's temporary folder is, once stopped
        time.sleep(0.5)
        assert not folder.exists()
    finally:
        release.set()
        server.engine.dispose()


def _watching_trainium(tmp_path: Path, said: list[str]) -> tuple[Preview, Path]:
    """A started preview (`_started`) of the sample, watching a content folder holding the sample's Trainium
    entry file: the preview and that file."""
    work, content = tmp_path / "work", tmp_path / "content"
    build_sample(work)
    content.mkdir()
    entry = content / "trainium.yaml"
    shutil.copy(SAMPLE_DIR / "entries" / "trainium.yaml", entry)
    return _started(work, tmp_path / "preview", [content], said), entry


def _edit_definition(entry: Path) -> None:
    """Save an edit of the Trainium entry file: a word put before one of its texts."""
    entry.write_text(entry.read_text(encoding="utf-8").replace("    Trainium is Amazon's own",
                                                               "    Stopped: Trainium is Amazon's own"),
                     encoding="utf-8")


def test_stopping_between_an_import_and_a_build_says_it_waits_for_the_watch(tmp_path, monkeypatch):
    """Stopped as the watcher looks at what changed (the database asked, before any import), the preview says it
    waits for that, not for a build (it said "waiting for the build under way to end, which writes into the
    preview's folder"), and then neither imports the file saved nor builds."""
    said: list[str] = []
    server, entry = _watching_trainium(tmp_path, said)
    real_state, looking, release = server._database_state, threading.Event(), threading.Event()

    def held_state():
        looking.set()
        release.wait(TIMEOUT)
        return real_state()

    monkeypatch.setattr(server, "_database_state", held_state)
    try:
        _edit_definition(entry)
        _wait_for(looking.is_set, "the watcher to look at the database", said)
        before = len(said)
        threading.Timer(1.5, release.set).start()
        server.stop()
        assert said[before:] == ["stopping: waiting for the preview's watch of the files and the database to end"]
    finally:
        release.set()
        server.engine.dispose()


def test_no_import_begins_once_stopping_has(tmp_path):
    """Once stopping has begun, a saved file is not imported (nor the site built): stopping then waits for
    nothing new, and what it says it waits for stays true (an import begun after it was ended by the process's
    exit, unsaid). The file goes in when the preview starts again."""
    said: list[str] = []
    server, entry = _watching_trainium(tmp_path, said)
    try:
        server.stop()
        _edit_definition(entry)
        before = list(said)
        assert server.import_files([entry]) is False and said == before and server.under_way() is None
    finally:
        server.engine.dispose()


def test_a_removed_content_file_is_said_to_leave_its_record(tmp_path):
    """The preview imports what changes and deletes nothing: a removed file's story stays, and it says so,
    naming the record of an exported file and how to delete it (the site file's settings are no record to delete)."""
    from sitebuild import run

    work, content = tmp_path / "work", tmp_path / "content"
    build_sample(work)
    run(work, "export", str(content))
    loose = tmp_path / "loose"
    loose.mkdir()
    shutil.copy(SAMPLE_DIR / "entries" / "gpu.yaml", loose)
    said: list[str] = []
    server = _started(work, tmp_path / "preview", [content, loose], said)
    try:
        story = content / "stories" / "i13-aws-trainium3-capacity.yaml"
        story.unlink()
        (loose / "gpu.yaml").unlink()
        (content / "site.yaml").unlink()
        _wait_for(lambda: sum("removed; its record stays" in m for m in said) == 2, "the removals said", said)
        _wait_for(lambda: f"{(content / 'site.yaml').resolve()}: removed; the site's settings stay in the database as "
                          "they are" in said, "the site file's removal said", said)
        assert (f"{story.resolve()}: removed; its record stays in the database and in the preview (`newsroom delete "
                "story:i13-aws-trainium3-capacity`, or `newsroom import FOLDER --prune` deletes it)") in said
        assert (f"{(loose / 'gpu.yaml').resolve()}: removed; its record stays in the database and in the preview "
                "(`newsroom delete KEY` deletes it)") in said
        assert _get(server.url + "en/issues/13/")[1].count("Trainium3") > 0
    finally:
        _stopped(server)


def test_a_saved_file_that_would_stop_every_build_is_not_imported(tmp_path):
    """As `newsroom import`: the preview names the error in the file, stores nothing and keeps showing the
    content as it was, with the error at the top of every page, in the page's language (it was said in the
    terminal only, and the page gave no sign the save was not taken); the file saved again, fixed, goes in."""
    from sitebuild import run

    work, content = tmp_path / "work", tmp_path / "content"
    build_sample(work)
    content.mkdir()
    entry = content / "<img src=x onerror=alert(1)>.yaml"  # a file's name is in the problem shown
    shutil.copy(SAMPLE_DIR / "entries" / "gpu.yaml", entry)
    said: list[str] = []
    server = _started(work, tmp_path / "preview", [content], said)
    try:
        text = entry.read_text(encoding="utf-8")
        assert "    A GPU (graphics processing unit)" in text
        before = server.build_id
        entry.write_text(text.replace("    A GPU (graphics processing unit)", "    Cited [9]: a GPU (graphics "
                                      "processing unit)"), encoding="utf-8")
        _wait_for(lambda: any("citation [9] has no source" in m for m in said), "the error said", said)
        assert any(m.startswith(f"{entry.resolve()}:") and m.endswith("en.definition: citation [9] has no source "
                                                                      "(3 sources listed)") for m in said), said
        assert ("every build would stop on this error, which the content did not have before: fix and save again "
                "(the preview shows the content as it was)") in said
        assert run(work, "history", "entry:gpu").startswith("entry gpu: version 1 is current")
        assert server.build_id != before  # the open pages reload, to show it
        for path, lang, shown in [("en/glossary/gpu/", "en", "The last change is not shown"),
                                  ("hu/", "hu", "Az utolsó változtatás nem látszik"),
                                  ("en/no-such-page/", "en", "The last change is not shown")]:
            document = html5lib.parse(_get(server.url + path)[1], namespaceHTMLElements=False)
            alert = document.find(".//body/div[@role='alert']")
            assert alert is not None and text_of(alert.find("p")).startswith(shown), path
            problems = alert.find("pre").text
            assert alert.find("pre").get("lang") == "en", path  # as the terminal says them, on a page of either
            assert f"{entry.resolve()}:" in problems and "citation [9] has no source" in problems, path
            assert document.find(".//img[@onerror]") is None and document.get("lang") == lang
        assert "A GPU (graphics processing unit)" in _get(server.url + "en/glossary/gpu/")[1]
        entry.write_text(text.replace("    A GPU (graphics processing unit)", "    Fixed: a GPU (graphics "
                                      "processing unit)"), encoding="utf-8")
        _wait_for(lambda: "Fixed: a GPU" in _get(server.url + "en/glossary/gpu/")[1], "the fixed entry served", said)
        assert 'role="alert"' not in _get(server.url + "en/glossary/gpu/")[1]
    finally:
        _stopped(server)


def test_a_file_s_problems_stay_until_that_file_goes_in_or_is_removed(databases, tmp_path):
    """The problems of a file saved bad stay at the top of the pages while other files go in (they were cleared
    by the next good import, the bad file unfixed); they go when that file is fixed, or removed."""
    content = tmp_path / "content"
    content.mkdir()
    gpu, trainium = content / "gpu.yaml", content / "trainium.yaml"
    good = (SAMPLE_DIR / "entries" / "gpu.yaml").read_text(encoding="utf-8")
    bad = good.replace("    A GPU (graphics processing unit)", "    Cited [9]: a GPU (graphics processing unit)")
    assert bad != good
    shutil.copy(SAMPLE_DIR / "entries" / "trainium.yaml", trainium)
    engine = make_engine(databases.new("sample"))
    server = Preview(engine, Settings(), tmp_path / "preview", today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc), content=[content], port=0,
                     say=lambda message: None)
    try:
        gpu.write_text(bad, encoding="utf-8")
        assert not server.import_files([gpu])
        shown = server.problems
        assert any(said.startswith(f"{gpu.resolve()}:") and "citation [9] has no source" in said for said in shown)
        assert server.import_files([trainium.resolve()])
        assert server.problems == shown
        gpu.write_text(good, encoding="utf-8")
        assert server.import_files([gpu.resolve()]) and server.problems == ()
        gpu.write_text(bad, encoding="utf-8")
        assert not server.import_files([gpu.resolve()]) and server.problems == shown
        gpu.unlink()
        assert server.import_files([gpu.resolve()]) and server.problems == ()
    finally:
        server.http.server_close()
        engine.dispose()


NEW_ENTRY = """\
kind: entry
slug: tensor-core
category: infrastructure
level: advanced
trend: spreading
status: 2026-11
sources: [{publisher: Nvidia, title: Tensor Cores, url: "https://www.nvidia.com/tensor-cores/"}]
hu: {headword: Tensor mag, definition: "Mátrixszorzó egység [1]."}
en: {headword: Tensor core, definition: "A matrix multiply unit [1]."}
"""


def test_files_saved_together_go_in_each_on_its_own_merit(tmp_path):
    """Of files saved together, the good ones go in and the bad one's problems are shown (all were rolled back,
    the good ones in only when saved again); a file that needs a bad one saved with it (a story naming a new
    entry) waits for it, said so, and goes in with it once it is fixed, unsaved itself."""
    work, content = tmp_path / "work", tmp_path / "content"
    build_sample(work)
    content.mkdir()
    gpu, trainium = content / "gpu.yaml", content / "trainium.yaml"
    shutil.copy(SAMPLE_DIR / "entries" / "gpu.yaml", gpu)
    shutil.copy(SAMPLE_DIR / "entries" / "trainium.yaml", trainium)
    said: list[str] = []
    engine = make_engine(f"sqlite:///{work / 'site.db'}")
    server = Preview(engine, Settings(), tmp_path / "preview", today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc), content=[content],
                     database_file=work / "site.db", port=0, say=said.append)
    threading.Thread(target=server.http.serve_forever, daemon=True).start()

    def shown(path: str) -> tuple[str, str | None]:
        document = html5lib.parse(_request(server, path)[2], namespaceHTMLElements=False)
        alert = document.find(".//body/div[@role='alert']")
        return text_of(document.find(".//main")), None if alert is None else alert.find("pre").text

    try:
        assert server.rebuild()
        good = gpu.read_text(encoding="utf-8")
        gpu.write_text(good.replace("    A GPU (graphics processing unit)", "    Cited [9]: a GPU (graphics processing "
                                    "unit)"), encoding="utf-8")
        text = trainium.read_text(encoding="utf-8")
        trainium.write_text(text.replace("    Trainium is Amazon's own", "    Saved together: Trainium is Amazon's "
                                         "own"), encoding="utf-8")
        server.handle([gpu, trainium])
        page, alert = shown("/en/glossary/trainium/")
        assert "Saved together: Trainium" in page and "citation [9] has no source" in alert
        assert f"{trainium.resolve()}" not in alert and "Cited [9]" not in shown("/en/glossary/gpu/")[0]

        # A scheduled issue (checked, as one going out), its story naming a new entry the build would stop on.
        issue, story, entry = content / "0014.yaml", content / "i14-story.yaml", content / "tensor-core.yaml"
        issue.write_text(DRAFT_ISSUE.replace("status: draft", "status: scheduled\npublished_at: "
                                             "2026-12-07T10:00:00+01:00"), encoding="utf-8")
        story.write_text(ISSUE_14_STORY + "terms: [tensor-core]\n", encoding="utf-8")
        entry.write_text(NEW_ENTRY.replace("[1].", "[2]."), encoding="utf-8")
        server.handle([issue, story, entry])
        status, _, body = _request(server, "/hu/issues/14/")
        alert = shown("/hu/")[1]
        assert status == 404, said  # the story waits for the entry, the issue (which needs a story) for both
        for waiting, needed, them in [(story, f"{entry.resolve()}", "it"),
                                      (issue, f"{story.resolve()}, {entry.resolve()}", "them")]:
            needs = (f"{waiting.resolve()}: not imported: it needs {needed}, saved with it, which did not go in; it "
                     f"goes in with {them} once fixed and saved")
            assert needs in said and needs in alert, "\n".join(said[2:])
            assert f"{waiting.resolve()}:" in alert.replace(needs, "")  # with its own problem: no entry, no story
        assert "citation [2] has no source" in alert
        entry.write_text(NEW_ENTRY, encoding="utf-8")
        server.handle([entry])
        page, alert = shown("/hu/issues/14/")
        assert "Ütemezett hír" in page and f"{gpu.resolve()}:" in alert and str(story.resolve()) not in alert
        gpu.write_text(good, encoding="utf-8")
        server.handle([gpu])
        assert shown("/en/glossary/gpu/")[1] is None and server.problems == ()

        # A story of a new issue whose file cannot be read: it may need what that holds, and is tried with it.
        issue = content / "0015.yaml"
        draft = DRAFT_ISSUE.replace("number: 14", "number: 15").replace("2026-11-09", "2026-11-16").replace(
            "2026-11-15", "2026-11-22")
        issue.write_text(draft.replace("status: draft", "status: [draft"), encoding="utf-8")
        story = content / "i15-story.yaml"
        story.write_text(ISSUE_14_STORY.replace("i14-story", "i15-story").replace("issue: 14", "issue: 15"),
                         encoding="utf-8")
        server.handle([issue, story])
        maybe = (f"{story.resolve()}: not imported: saved with {issue.resolve()}, which could not be read; if it "
                 "names what that holds, it goes in with it once fixed and saved")
        assert maybe in server.problems and any(line.startswith(f"{issue.resolve()}:") for line in server.problems)
        issue.write_text(draft, encoding="utf-8")
        server.handle([issue])
        assert server.problems == () and "Ütemezett hír" in shown("/hu/issues/15/")[0], said
    finally:
        server.http.shutdown()
        server.http.server_close()
        engine.dispose()


def test_a_page_requested_while_a_change_goes_in_shows_the_problems_of_one_moment(tmp_path):
    """Each request sees the problems and the build id of one moment, as they were before a change or after it
    (they were read from the preview's working state as it was being changed: a page asked for as a fixed
    file's problems had gone and those of a file saved bad with it had not yet come showed none, at the id
    whose pages showed the first file's; the open page reloaded to it, and then never again)."""
    work, content = tmp_path / "work", tmp_path / "content"
    build_sample(work)
    content.mkdir()
    gpu, trainium = content / "gpu.yaml", content / "trainium.yaml"
    shutil.copy(SAMPLE_DIR / "entries" / "gpu.yaml", gpu)
    shutil.copy(SAMPLE_DIR / "entries" / "trainium.yaml", trainium)
    seen: dict[str, set[str | None]] = {}  # each build id, and the problems shown by the pages at it

    def look(_said: str = "") -> None:
        """A page and the build id, as the browser asks for them, at each thing the preview says."""
        before = _request(server, "/__build_id")[2].decode()
        alert = html5lib.parse(_request(server, "/en/glossary/gpu/")[2], namespaceHTMLElements=False).find(
            ".//body/div[@role='alert']")
        if _request(server, "/__build_id")[2].decode() == before:  # else a moment between two: not one
            seen.setdefault(before, set()).add(None if alert is None else alert.find("pre").text)

    engine = make_engine(f"sqlite:///{work / 'site.db'}")
    server = Preview(engine, Settings(), tmp_path / "preview", today=lambda: dt.date(2026, 11, 30),
                     now=lambda: dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc), content=[content],
                     database_file=work / "site.db", port=0, say=look)
    threading.Thread(target=server.http.serve_forever, daemon=True).start()
    try:
        assert server.rebuild()
        good_gpu, good_trainium = gpu.read_text(encoding="utf-8"), trainium.read_text(encoding="utf-8")
        gpu.write_text(good_gpu.replace("    A GPU (graphics processing unit)", "    Cited [9]: a GPU (graphics "
                                        "processing unit)"), encoding="utf-8")
        server.handle([gpu])
        look()
        gpu.write_text(good_gpu, encoding="utf-8")  # fixed, and another file saved bad with it
        trainium.write_text(good_trainium.replace("    Trainium is Amazon's own", "    Cited [9]: Trainium is "
                                                  "Amazon's own"), encoding="utf-8")
        server.handle([gpu, trainium])
        look()
        assert len(seen) >= 3, seen  # the bad file's, then the other's before the build and after
        assert {id: len(problems) for id, problems in seen.items()} == dict.fromkeys(seen, 1), seen
        (last,) = seen[server.build_id]
        assert f"{trainium.resolve()}:" in last and f"{gpu.resolve()}:" not in last
    finally:
        server.http.shutdown()
        server.http.server_close()
        engine.dispose()


def test_a_file_changing_an_issue_whose_time_has_come_is_a_correction(tmp_path, monkeypatch):
    """As for every command that changes the content: the preview's import first records a scheduled issue
    whose time has come as published, so a change of it is a correction, which the preview leaves to
    `newsroom import --correction` (listed among the issue's corrections) and says so."""
    from sitebuild import run

    work, content = tmp_path / "work", tmp_path / "content"
    build_sample(work)
    (content / "issues").mkdir(parents=True)
    (content / "stories").mkdir()
    (content / "issues" / "0014.yaml").write_text(DRAFT_ISSUE.replace(
        "status: draft", "status: scheduled\npublished_at: 2026-11-30T10:00:00+01:00"), encoding="utf-8")
    story = content / "stories" / "i14-story.yaml"
    story.write_text(ISSUE_14_STORY, encoding="utf-8")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-30T08:00:00+01:00")
    run(work, "import", str(content))
    said: list[str] = []
    server = _started(work, tmp_path / "preview", [content], said)
    try:
        story.write_text(ISSUE_14_STORY.replace("Out on Monday.", "Out on Monday at seven."), encoding="utf-8")
        _wait_for(lambda: any("issue 14 is published" in m for m in said), "the change refused", said)
    finally:
        _stopped(server)
    assert "issue 14: its scheduled time has come; recorded as published" in said
    assert (f"{story.resolve()}: issue 14 is published, and this file changes its en.summary: that is a correction "
            "readers are shown; import with --correction --reason \"Fixed the chip's name in the headline\" to make "
            "it (it is listed among the issue's corrections with that reason)") in said
    assert "issue 14: no corrections" in run(work, "issue", "corrections", "14")
    monkeypatch.setenv("NEWSROOM_NOW", "2026-11-30T13:00:00+01:00")  # the preview's clock, after 10:00
    run(work, "import", "--correction", "--reason", "corrected", str(story))
    listed = run(work, "issue", "corrections", "14")
    assert "import  story:i14-story  en.summary" in listed, listed


def _serving(db_url: str, tmp_path: Path) -> tuple[subprocess.Popen, Path]:
    """`newsroom serve --port 0` started as a process, its temporary folder (where its preview's goes) with it."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "TMPDIR": str(temporary), **WITH_WORKERS}
    return subprocess.Popen([sys.executable, "-m", "newsroom", "--db", db_url, "serve", "--port", "0"], cwd=tmp_path,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True), temporary


@pytest.mark.sqlite_only("a signal's handling does not depend on the database")
@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no SIGTERM to handle: it ends a process at once")
def test_a_preview_stopped_by_kill_removes_its_folder_and_ends(databases, tmp_path):
    """`kill` ends `newsroom serve` as Ctrl-C does (as the terminal closed, SIGHUP, does): exit 0, the preview's
    folder (the site with its drafts) removed and its port free (the folder was left in the temporary folder)."""
    process, temporary = _serving(databases.new("migrated"), tmp_path)
    try:
        for line in process.stdout:
            if line.startswith("previewing "):
                break
        else:
            pytest.fail("the preview ended before it served")
        port = urlsplit(line.split()[1]).port
        assert len(list(temporary.glob("newsroom-preview-*"))) == 1
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=TIMEOUT) == 0, process.stdout.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
    assert list(temporary.glob("newsroom-preview-*")) == []
    with pytest.raises(ConnectionRefusedError):
        http.client.HTTPConnection("127.0.0.1", port, timeout=10).connect()


@pytest.mark.sqlite_only("a signal's handling does not depend on the database")
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finding a build's workers needs Linux's /proc")
def test_the_preview_s_build_workers_end_at_sigterm_as_any_process(databases, tmp_path):
    """The preview stops at SIGTERM as at Ctrl-C, but its build's workers keep SIGTERM's default, which ends them
    at once when the build stops them (they took the preview's handler, and each printed a traceback)."""
    process, _ = _serving(databases.new("sample"), tmp_path)
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    caught: dict[int, int] = {}
    try:
        deadline = time.monotonic() + TIMEOUT
        while process.poll() is None and time.monotonic() < deadline and not caught:
            for pid in children.read_text().split():
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                except OSError:
                    continue
                mask = int(next(line for line in status.splitlines() if line.startswith("SigCgt:")).split()[1], 16)
                if mask & 1 << (signal.SIGINT - 1) == 0:  # the worker has set its own (Ctrl-C ignored)
                    caught[int(pid)] = mask
            time.sleep(0.002)
        if not caught:
            pytest.skip("the build ended before its workers could be seen")
    finally:
        process.kill()
        process.communicate()
    assert all(mask & 1 << (signal.SIGTERM - 1) == 0 for mask in caught.values())


#: `newsroom serve` with signals sent to itself as its first build forks its first worker and as it then waits
#: for one to end ($STOPS: "fork", "join", or "fork+join", one more at the wait); with "join", each wait's end
#: is said, and the removal of the preview's folder.
SIGNALLED_AT_FORK = """\
import os, runpy, shutil, signal, sys
from multiprocessing import process
stops = os.environ["STOPS"]
def before():
    if "fork" in stops and not os.environ.get("SIGNALLED"):
        os.environ["SIGNALLED"] = "1"
        print("signalled as a worker forks", flush=True)
        os.kill(os.getpid(), signal.SIGTERM)
os.register_at_fork(before=before)
real_join, real_rmtree, joins = process.BaseProcess.join, shutil.rmtree, []
def join(self, timeout=None):
    joins.append(1)
    if len(joins) == 1:
        print(f"stopped {'again' if 'fork' in stops else 'once'} as the build ends its workers", flush=True)
        signal.raise_signal(signal.SIGTERM)
    real_join(self, timeout)
    print("a worker ended", flush=True)
def rmtree(path, *args, **kwargs):
    if os.path.basename(path).startswith("newsroom-preview-"):
        print("the preview's folder removed", flush=True)
    real_rmtree(path, *args, **kwargs)
if "join" in stops:
    process.BaseProcess.join, shutil.rmtree = join, rmtree
sys.argv = ["newsroom", *sys.argv[1:]]
runpy.run_module("newsroom", run_name="__main__")
"""


@pytest.mark.sqlite_only("a signal's handling does not depend on the database")
@pytest.mark.skipif(not hasattr(os, "register_at_fork"), reason="no fork here")
@pytest.mark.parametrize("stops", ["fork", "fork+join", "join"],
                         ids=["as-it-forks", "again-as-it-ends-its-workers", "as-it-ends-its-workers"])
def test_a_signal_as_the_build_forks_its_workers_stops_the_preview(databases, tmp_path, stops):
    """`kill` arriving just as the build forks a worker stops the preview as at any other time (it was lost in
    the fork's own steps, the preview went on, or hung with logging's lock held, until killed). Stopped as the
    first build ends its workers, after a first stop or as the first, it goes on ending them, and removes its
    folder once every one has ended, exit 0 (the stop broke off the build's wait for them, and the folder was
    removed as they could still write into it). A third stop there ends them at once (see the test below)."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "TMPDIR": str(temporary), "STOPS": stops, **WITH_WORKERS}
    process = subprocess.Popen([sys.executable, "-c", SIGNALLED_AT_FORK, "--db", databases.new("sample"), "serve",
                                "--port", "0"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    try:
        try:
            said, _ = process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            said, _ = process.communicate()
            pytest.fail(f"the preview went on after the signal: {said}")
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    if "signalled as a worker forks" not in said and " as the build ends its workers" not in said:
        pytest.skip("the build forked no worker that could be seen before it ended")
    assert process.returncode == 0 and "previewing" not in said and "Exception ignored" not in said, said
    assert list(temporary.glob("newsroom-preview-*")) == []
    if "join" in stops:
        lines = said.splitlines()
        at = lines.index(f"stopped {'again' if 'fork' in stops else 'once'} as the build ends its workers")
        removed = lines.index("the preview's folder removed")
        waits = [line for line in lines if line.startswith("stopping:")]
        assert removed > at + 1 and set(lines[at + 1:removed]) - set(waits) == {"a worker ended"}, said
        # A second stop is answered as it waits for them, if one has not ended by then; the preview's own stopping
        # (its watcher's round) never begins.
        assert waits == [] or (stops == "fork+join" and len(waits) == 1 and waits[0].startswith(
            "stopping: still waiting for the build's render workers to end; ")), said


@pytest.mark.sqlite_only("a signal's handling does not depend on the database")
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="seeing a worker ended needs Linux's /proc")
def test_stopped_a_third_time_as_the_first_build_waits_for_a_stuck_worker_the_preview_ends_at_once(databases,
                                                                                                     tmp_path):
    """A render worker of the first build that does not end at SIGTERM (one stuck at its work) is waited for after
    the first stop and the second; the third (`kill`, Ctrl-C alike) ends it, SIGKILL after a grace, and the
    preview ends at once, exit 1, naming the folder it leaves, the site with its drafts, to remove (the stops were
    held until the worker ended: `kill -9` alone ended the preview). Each stop is answered: the first, after a
    second's wait, with what it waits for; the second with what a third does and leaves (it said nothing)."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    stopped = stopped_with_a_stuck_worker(["--db", databases.new("sample"), "serve", "--port", "0"], tmp_path,
                                          [signal.SIGTERM, signal.SIGINT, signal.SIGTERM], {"TMPDIR": str(temporary)},
                                          gap=SAID_GAP_SECONDS)
    if stopped is None:
        pytest.skip("the build forked no worker that could be seen before it ended")
    code, said, worker = stopped
    (folder,) = temporary.glob("newsroom-preview-*")
    assert code == 1 and said == [
        "stopping: waiting for the build's render workers to end",
        "stopping: still waiting for the build's render workers to end; stopped once more (Ctrl-C, `kill`, its "
        "terminal closing) or by `kill -9`, the preview ends at once, its render workers ended by force, and leaves "
        f"its folder {folder} (the site with its drafts) to remove by hand",
        f"Error: stopped without waiting for the build under way: the preview's folder {folder}, which it was "
        "writing into, is left as it is (the site with its drafts): remove it"], said
    assert ended(worker)


@pytest.mark.sqlite_only("a signal's handling does not depend on the database")
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="seeing a worker ended needs Linux's /proc")
def test_stopped_a_third_time_as_a_rebuild_s_worker_is_stuck_the_preview_ends_at_once(databases, tmp_path):
    """A rebuild's render worker that does not end at SIGTERM (one stuck at its work): stopped, the preview waits
    for the build, says so again at the second stop, and the third ends it at once, exit 1, naming the folder it
    leaves, the worker ended too (it waited for ever at its exit, multiprocessing waiting for the worker)."""
    content, temporary, stuck = tmp_path / "content", tmp_path / "tmp", tmp_path / "stuck"
    content.mkdir()
    temporary.mkdir()
    entry = content / "trainium.yaml"
    shutil.copy(SAMPLE_DIR / "entries" / "trainium.yaml", entry)

    def edited_once_previewing(line: str) -> None:
        if line.startswith("previewing "):
            stuck.touch()
            _edit_definition(entry)

    stopped = stopped_with_a_stuck_worker(["--db", databases.new("sample"), "serve", "--port", "0", "--content",
                                           str(content)], tmp_path, [signal.SIGTERM, signal.SIGINT, signal.SIGTERM],
                                          {"TMPDIR": str(temporary), "STUCK": str(stuck)}, edited_once_previewing)
    if stopped is None:
        pytest.skip("the rebuild forked no worker that could be seen before it ended")
    code, said, worker = stopped
    (folder,) = temporary.glob("newsroom-preview-*")
    assert code == 1 and said[-1] == (f"Error: stopped without waiting for the build under way: the preview's "
                                      f"folder {folder}, which it was writing into, is left as it is (the site "
                                      "with its drafts): remove it"), said
    assert any(line.startswith("stopping: still waiting for the build under way to end") for line in said), said
    assert ended(worker)


#: `newsroom serve` whose watcher's first round waits, as it begins its build ($HOLD=build: the second build, the
#: first rebuild) or its import ($HOLD=import: the second, of the files saved), for the file $RELEASE to be made.
HELD_ROUND = """\
import os, pathlib, runpy, sys, time
from newsroom import serve, serve_imports
def held(real, kind):
    calls = []
    def hold(*args, **kwargs):
        calls.append(1)
        if os.environ["HOLD"] == kind and len(calls) == 2:
            print(f"{kind} held", flush=True)
            while not pathlib.Path(os.environ["RELEASE"]).exists():
                time.sleep(0.05)
        return real(*args, **kwargs)
    return hold
serve.build = held(serve.build, "build")
serve_imports.SavedFiles.take = held(serve_imports.SavedFiles.take, "import")
sys.argv = ["newsroom", *sys.argv[1:]]
runpy.run_module("newsroom", run_name="__main__")
"""


@pytest.mark.sqlite_only("a signal's handling does not depend on the database")
@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no SIGTERM to handle: it ends a process at once")
@pytest.mark.parametrize("third", [False, True], ids=["the-build-ends", "stopped-a-third-time"])
def test_stopped_again_while_a_build_runs_the_preview_says_it_still_waits(databases, tmp_path, third):
    """Stopped again (Ctrl-C, `kill`) while it waits for the build under way, the preview says it still waits
    and what stopping once more does, and waits on: the build over, exit 0, its folder removed (it ended at
    once, its folder removed under the build still writing into it, "Aborted!", exit 1). Stopped a third
    time, it ends at once, exit 1, and names the folder it leaves, the site with its drafts, to remove."""
    code, rest, folder = _stopped_while_held(databases.new("sample"), tmp_path, "build", third, [
        "stopping: waiting for the build under way to end, which writes into the preview's folder",
        "stopping: still waiting for the build under way to end; stopped once more (Ctrl-C, `kill`, its terminal "
        "closing) or by `kill -9`, the preview ends at once and leaves its folder {folder} (the site with its "
        "drafts) to remove by hand"])
    if third:
        assert code == 1 and rest == (f"Error: stopped without waiting for the build under way: the preview's "
                                      f"folder {folder}, which it was writing into, is left as it is (the site "
                                      "with its drafts): remove it\n"), rest
        assert folder.is_dir()
    else:
        assert code == 0 and rest.startswith("build 2: ") and "Aborted" not in rest, rest
        assert not folder.exists()


@pytest.mark.sqlite_only("a signal's handling does not depend on the database")
@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no SIGTERM to handle: it ends a process at once")
@pytest.mark.parametrize("third", [False, True], ids=["the-import-ends", "stopped-a-third-time"])
def test_stopped_again_while_an_import_runs_the_preview_says_it_waits_for_the_import(databases, tmp_path, third):
    """Stopped while it imports a saved file, the preview says it waits for the import, not for a build (it said
    "waiting for the build under way to end, which writes into the preview's folder", and ignored every stop
    after). Stopped again, it says it still waits for the import, and what a third stop does: the import over,
    exit 0, no build begun, its folder removed; stopped a third time, it ends at once, exit 1, saying the files
    may not be stored, its folder removed (nothing writes into it)."""
    code, rest, folder = _stopped_while_held(databases.new("sample"), tmp_path, "import", third, [
        "stopping: waiting for the import under way to end, which stores the saved content files in the database",
        "stopping: still waiting for the import under way to end; stopped once more (Ctrl-C, `kill`, its terminal "
        "closing), the preview ends at once, and the saved files it was importing may not be stored (an import "
        "stores all of its files or none)"])
    if third:
        assert code == 1 and rest == ("Error: stopped without waiting for the import under way: the saved files it "
                                      "was importing may not be stored (an import stores all of its files or none): "
                                      "import them again (`newsroom import`, or `newsroom serve --content` started "
                                      "again)\n"), rest
    else:
        assert code == 0 and rest.startswith("imported 1 file(s): ") and "build 2" not in rest, rest
    assert not folder.exists()


def _stopped_while_held(db_url: str, tmp_path: Path, hold: str, third: bool, stopping: list[str]
                        ) -> tuple[int, str, Path]:
    """`newsroom serve` watching a content folder, its round after a saved edit held as it begins its `hold`
    ("build" or "import", see HELD_ROUND), stopped twice (`kill`), each time saying the line of `stopping`
    (`{folder}` the preview's folder); then stopped a third time, or the round let go: its exit code, what it
    said after, and its folder."""
    content, temporary, release = tmp_path / "content", tmp_path / "tmp", tmp_path / "release"
    content.mkdir()
    temporary.mkdir()
    entry = content / "trainium.yaml"
    shutil.copy(SAMPLE_DIR / "entries" / "trainium.yaml", entry)
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "TMPDIR": str(temporary), "RELEASE": str(release),
           "HOLD": hold}
    process = subprocess.Popen([sys.executable, "-c", HELD_ROUND, "--db", db_url, "serve", "--port", "0",
                                "--content", str(content)], cwd=tmp_path, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    said: list[str] = []

    def until(start: str) -> str:
        for line in process.stdout:
            said.append(line.rstrip("\n"))
            if line.startswith(start):
                return said[-1]
        pytest.fail(f"the preview ended before it said {start!r}: {said}")

    with bounded(process):
        until("previewing ")
        (folder,) = temporary.glob("newsroom-preview-*")
        entry.write_text(entry.read_text(encoding="utf-8").replace("    Trainium is Amazon's own", "    Edited: "
                                                                   "Trainium is Amazon's own"), encoding="utf-8")
        until(f"{hold} held")
        for line in stopping:
            process.send_signal(signal.SIGTERM)
            assert until("stopping: ") == line.format(folder=folder), said
        if third:
            process.send_signal(signal.SIGTERM)
        else:
            release.touch()
        rest = process.stdout.read()
        code = process.wait()
    return code, rest, folder


@pytest.mark.sqlite_only("the port is taken before the database is read")
def test_a_port_in_use_is_named_with_what_to_do(databases, tmp_path):
    """`serve --port N` where N is taken: exit 1, naming the port and the way out (it said only "Address already
    in use"), nothing built."""
    cli = Cli(databases.new("migrated"), tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = cli("serve", "--port", str(port), expect=1)
    assert result.stderr == (f"Error: cannot listen on 127.0.0.1:{port}: port {port} is in use (another preview?): "
                             "stop what listens there, or choose another port with --port (--port 0: any free one)\n")
    result = cli("serve", "--host", "nosuch.invalid", "--port", "0", expect=1)
    assert result.stderr == ("Error: cannot listen on nosuch.invalid:0: no such address on this machine: --host takes "
                             "one of its addresses (127.0.0.1: this machine only)\n")


@pytest.mark.sqlite_only("the port is taken before the database is read")
def test_an_ipv6_address_that_cannot_be_listened_on_is_written_in_brackets(databases, tmp_path):
    """`serve` and `unsubscribe-server` on a taken IPv6 port name it `[::1]:PORT` (it was `::1:PORT`, which
    reads as another address)."""
    cli = Cli(databases.new("migrated"), tmp_path)
    try:
        taken = socket.socket(socket.AF_INET6)
        taken.bind(("::1", 0))
    except OSError as error:
        pytest.skip(f"no IPv6 here: {error}")
    with taken:
        taken.listen()
        port = taken.getsockname()[1]
        for command in ("serve", "unsubscribe-server"):
            result = cli(command, "--host", "::1", "--port", str(port), expect=1)
            assert result.stderr.startswith(f"Error: cannot listen on [::1]:{port}: "), result.stderr
