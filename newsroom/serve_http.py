"""The preview server's HTTP side: the preview folder's files as the web server the site goes to serves them,
the build id the preview's pages poll to reload, and the problems of a change the preview could not take in,
at the top of every page (serve.py runs it)."""

from __future__ import annotations

import html
import ipaddress
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO
from urllib.parse import unquote, urlsplit

from newsroom.i18n import translations
from newsroom.listening import address_family

if TYPE_CHECKING:
    from newsroom.serve import Preview

BUILD_ID_PATH = "/__build_id"
#: When a client may ask again for a page while there is no site to show (`Retry-After`): as often as the
#: preview's own pages ask for the build id (templates/_reload.js polls it every second).
RETRY_SECONDS = 1
#: The language of http.server's own error pages (`<html lang="en">`).
ERROR_PAGE_LANGUAGE = "en"


@dataclass(frozen=True)
class Shown:
    """What the preview shows at one moment: the id its pages poll to reload, and the problems at their top.

    The watcher changes its own record of the problems step by step (a file's go, another's come), then swaps a
    new `Shown` in with one assignment; a request takes the one of its start and answers from it alone. A
    snapshot rather than a lock: one thread writes (the caller's as the preview starts, then the watcher's), a
    request never waits for it, and a page at an id always shows that id's problems (read apart, a page could
    show a moment between two changes, at the id of the one before, and the open page, reloaded to it, stayed
    so)."""

    build_id: str
    problems: tuple[str, ...] = ()
    built: bool = False  # whether a build has made a site to show (the first failed: none)


#: What each kind of file a build writes is served as, with its charset, the same on every system (the
#: guesses of `mimetypes` come from the system's tables: where they lack `.atom`, a feed was a download).
CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".xml": "application/xml; charset=utf-8",
                 ".atom": "application/atom+xml; charset=utf-8", ".json": "application/json; charset=utf-8",
                 ".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                 ".txt": "text/plain; charset=utf-8"}


class RequestHandler(SimpleHTTPRequestHandler):
    """Static files from the preview folder, the build id, and the site's own 404 page."""

    server: PreviewHTTPServer
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **CONTENT_TYPES}

    shown: Shown  # taken as the request is read: what the whole answer shows
    #: The host an absolute-form request names (`GET http://HOST/en/ HTTP/1.1`, as proxies send), which stands
    #: for its Host header (RFC 9112, 3.2.2); None for one naming its path alone.
    named_host: str | None = None

    @property
    def timeout(self) -> float:  # type: ignore[override]  # read as the connection is set up (socketserver)
        return self.server.preview.idle_seconds

    def parse_request(self) -> bool:
        self.shown = self.server.preview.shown  # one moment for the whole answer, errors included (see Shown)
        self.named_host = None
        if not super().parse_request():
            return False
        # Its path from here on, however the request names it: an absolute-form request's, looked up as a path
        # (`http:/host/en/…` under the folder), was not found, and its 404 page the root's, whatever its language.
        self.path, self.named_host = origin_form(self.path)
        return True

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        if self._elsewhere() or self._build_id():
            return
        page = self._html_file() if self.shown.problems else None
        if page is not None:
            self._send_page(HTTPStatus.OK, page)
            return
        super().do_GET()

    def do_HEAD(self) -> None:  # noqa: N802
        if not (self._elsewhere() or self._build_id()):
            super().do_HEAD()

    def _build_id(self) -> bool:
        """Answer a request for the build id (the reload script's); False for any other path."""
        if self.path.split("?", 1)[0] != BUILD_ID_PATH:
            return False
        body = self.shown.build_id.encode()
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        return True

    def _html_file(self) -> Path | None:
        """The HTML file a GET of a page is answered with, if any (a folder's: its index.html)."""
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        file = Path(self.translate_path(path))
        file = file / "index.html" if path.endswith("/") else file
        return file if file.suffix == ".html" and file.is_file() else None

    def _send_page(self, code: int, page: Path) -> None:
        """A page of the site, with the last round's problems at its top when it failed."""
        body = page.read_bytes()
        if self.shown.problems:
            body = with_problems(body, self.shown.problems, self._language())
        self._send_body(code, body)

    def _send_body(self, code: int, body: bytes, retry_after: int | None = None) -> None:
        self.send_response(code)
        if retry_after is not None:
            self.send_header("Retry-After", str(retry_after))
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _language(self) -> str:
        """The language of the requested path (its first folder, percent-decoded as the file it names is looked
        up: `/%65n/…` is `/en/…`, whose 404 page was the root's), else the site's first."""
        first = unquote(self.path.split("?", 1)[0].split("#", 1)[0]).lstrip("/").split("/", 1)[0]
        languages = self.server.preview.settings.languages
        return first if first in languages else languages[0]

    def _elsewhere(self) -> bool:
        """Refuse a request for another site's name while the preview listens on this machine alone: a page
        of any site can make its name lead here (DNS rebinding) and read the preview, drafts included. A
        browser of this machine names it (127.0.0.1, localhost) or its address; the site's name never."""
        host = self.named_host if self.named_host is not None else self.headers.get("Host")
        if not self.server.preview.local or host is None or _this_machine(host):
            return False
        self.send_error(HTTPStatus.FORBIDDEN, "Not this host", f"The preview answers at {self.server.preview.url}")
        return True

    def send_head(self) -> BinaryIO | None:
        try:
            return super().send_head()
        except ValueError:  # a NUL in the path (`%00`), which no file's name holds: it was a traceback
            self.send_error(HTTPStatus.NOT_FOUND)
            return None

    def list_directory(self, path: str) -> None:
        """A folder without an index.html is not found, as on the web server the site goes to (nginx's
        default), not a listing of its files."""
        self.send_error(HTTPStatus.NOT_FOUND)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")  # a preview must never show yesterday's page
        self.send_header("X-Content-Type-Options", "nosniff")  # a file is what its type says, never a guess
        super().end_headers()

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Not found: the 404 page of the path's language (`/en/…`: the English one), else the root's. With no
        site yet (the first build failed), the page of its problems, as unavailable for now (503, to ask again
        in a moment), not as missing: a 404 tells a browser, a link checker or a proxy the page is not there.
        A built site without its 404 pages (removed by hand) answers with http.server's own, the problems at
        its top as on every page."""
        page = self._not_found_page() if code == HTTPStatus.NOT_FOUND else None
        if page is not None:
            self._send_page(code, page)
        elif code == HTTPStatus.NOT_FOUND and self.shown.problems and not self.shown.built:  # the first build failed
            self._send_body(HTTPStatus.SERVICE_UNAVAILABLE,
                            failure_page(self._language(), self.shown.problems, self._reload_script()),
                            retry_after=RETRY_SECONDS)
        elif code == HTTPStatus.NOT_FOUND and self.shown.problems:  # a built site without its 404 pages
            self._send_body(code, with_reload(with_problems(self._error_page(code), self.shown.problems,
                                                            ERROR_PAGE_LANGUAGE), self._reload_script()))
        else:
            super().send_error(code, message, explain)

    def _error_page(self, code: int) -> bytes:
        """The page http.server answers `code` with (see send_error), in ERROR_PAGE_LANGUAGE."""
        short, long = self.responses[code]
        return (self.error_message_format % {"code": code, "message": html.escape(short, quote=False),
                                             "explain": html.escape(long, quote=False)}).encode()

    def _reload_script(self) -> str:
        """The script that reloads a preview page at a new build id, from the templates the site is built with."""
        script = self.server.preview.templates / "_reload.js"
        return script.read_text(encoding="utf-8") if script.is_file() else ""

    def _not_found_page(self) -> Path | None:
        root = Path(self.directory)
        return next((page for page in (root / self._language() / "404.html", root / "404.html") if page.is_file()),
                    None)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass  # requests are not news; build results are printed instead


def _not_shown(lang: str) -> str:
    """What heads the problems of a change the preview could not take in, in `lang`."""
    _ = translations(lang).gettext
    return _("The last change is not shown: the preview shows the site as it was until this is fixed.")


def with_problems(page: bytes, problems: Sequence[str], lang: str) -> bytes:
    """`page` with the problems of the preview's last round set first in its body: the editor sees there, not
    only in the terminal, why the change saved is not shown (the preview keeps the last good site). The problems
    are in English, as the terminal says them, and marked so (a Hungarian page's screen reader reads them so)."""
    said = _not_shown(lang)
    note = (f'<div class="preview-banner" role="alert" style="text-align: start"><p>{html.escape(said)}</p>'
            f'<pre lang="en" dir="ltr" style="white-space: pre-wrap">{html.escape(chr(10).join(problems))}</pre></div>')
    body = re.search(rb"<body[^>]*>", page)
    at = body.end() if body else 0
    return page[:at] + note.encode() + page[at:]


def with_reload(page: bytes, script: str) -> bytes:
    """`page` with `script`, which reloads it at a new build id, last in its body, as the site's pages have it
    (templates/_reload.js): a page of the preview's own shows the site once the problems at its top are fixed."""
    end = page.rfind(b"</body>")
    at = end if end >= 0 else len(page)
    return page[:at] + f"<script>{script}</script>\n".encode() + page[at:] if script else page


def failure_page(lang: str, problems: Sequence[str], script: str) -> bytes:
    """What every path answers while the preview has no site to show (its first build failed): a page in
    `lang` with the landmarks and headings of the site's own, the problems listed (in English, as the
    terminal says them), and `script`, which reloads it once the site is built."""
    _ = translations(lang).gettext
    heading = html.escape(_("No preview yet: the site could not be built"))
    what = html.escape(_("Fix what is listed below and save it: this page reloads by itself once the site is built."))
    named = html.escape(_("Problems"))
    listed = "".join(f"<li>{html.escape(problem)}</li>\n" for problem in problems)
    return (f'<!DOCTYPE html>\n<html lang="{html.escape(lang)}">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<title>{heading}</title>\n</head>\n<body>\n<main>\n<h1>{heading}</h1>\n<p>{what}</p>\n'
            f'<h2>{named}</h2>\n<ul lang="en" style="white-space: pre-wrap">\n{listed}</ul>\n'
            f'</main>\n{f"<script>{script}</script>" if script else ""}\n</body>\n</html>\n').encode()


def origin_form(target: str) -> tuple[str, str | None]:
    """A request's target as its path (with its query), and the host it names in absolute form (`http://HOST/…`),
    else None: one that is no http(s) URL (a path, `*`, one that does not parse) is left as it is."""
    if target.startswith("/"):
        return target, None
    try:
        parts = urlsplit(target)
    except ValueError:  # `http://[::1/`: not found, as any path that names no file
        return target, None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return target, None
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else ""), parts.netloc


def _this_machine(host: str) -> bool:
    """Whether a Host header names this machine, or an address (which no other site's page can name as its own)."""
    try:
        name = (urlsplit(f"//{host}").hostname or "").rstrip(".")
    except ValueError:
        return False
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def loopback(host: str) -> bool:
    """Whether listening on `host` keeps the preview to this machine."""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class PreviewHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    preview: Preview

    def __init__(self, address: tuple[str, int], handler: Callable[..., RequestHandler]) -> None:
        self.address_family = address_family(*address)  # `--host ::1` (this machine), `--host ::` (every address)
        super().__init__(address, handler)
