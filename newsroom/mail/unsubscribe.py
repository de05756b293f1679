"""The unsubscribe endpoint: a small WSGI app (served by wsgiref) behind `List-Unsubscribe`.

- POST (RFC 8058 one-click, `List-Unsubscribe=One-Click`, or the button of
  the confirmation page) unsubscribes at once: 200, no redirect, no login.
- GET never unsubscribes: link scanners and previews fetch URLs. It shows a
  confirmation page in the subscriber's language with a button that POSTs.

The subscriber is found by the token in the query (`?t=…`); an unknown token
gets a 404 page and changes nothing. Every page names the publication in its
language: a reader subscribed to several newsletters must tell which one a
page unsubscribes from.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qs
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from newsroom.db.session import transaction
from newsroom.listening import address_family
from newsroom.mail.subscribers import subscriber_by_token, unsubscribe
from newsroom.mail.tokens import looks_like_token
from newsroom.models import SiteText
from newsroom.render.html import render
from newsroom.settings import Settings

#: A one-click body is 26 bytes; anything much longer is not ours to read.
MAX_BODY = 4096
StartResponse = Callable[..., Any]


def make_app(engine: Engine, settings: Settings, now: Callable[[], dt.datetime]) -> Callable[..., Iterable[bytes]]:
    """The WSGI application: GET confirms, POST unsubscribes."""

    def app(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        method = environ.get("REQUEST_METHOD", "GET")
        token = (parse_qs(environ.get("QUERY_STRING", "")).get("t") or [""])[0]
        if method == "POST":
            # RFC 8058 clients post List-Unsubscribe=One-Click; the confirmation page's button posts confirm=yes.
            one_click = b"List-Unsubscribe=One-Click" in _read_body(environ)
            return _post(token, start_response, "one-click" if one_click else "form")
        if method in ("GET", "HEAD"):
            return _get(token, start_response, head=method == "HEAD")
        return _respond(start_response, "405 Method Not Allowed", b"", [("Allow", "GET, HEAD, POST")])

    def _post(token: str, start_response: StartResponse, how: str) -> Iterable[bytes]:
        with transaction(engine) as session:
            subscriber = subscriber_by_token(session, token) if looks_like_token(token) else None
            if subscriber is None:
                lang = settings.default_language
                return _page(start_response, "404 Not Found", lang, "unknown", token, site_name(session, lang))
            unsubscribe(session, subscriber, how, now())
            lang = subscriber.lang
            name = site_name(session, lang)
        return _page(start_response, "200 OK", lang, "done", token, name)

    def _get(token: str, start_response: StartResponse, head: bool) -> Iterable[bytes]:
        with transaction(engine) as session:
            subscriber = subscriber_by_token(session, token) if looks_like_token(token) else None
            state, lang = ("unknown", settings.default_language) if subscriber is None else ("confirm", subscriber.lang)
            name = site_name(session, lang)
        status = "404 Not Found" if subscriber is None else "200 OK"
        return _page(start_response, status, lang, state, token, name, head=head)

    def _page(start_response: StartResponse, status: str, lang: str, state: str, token: str, name: str,
              head: bool = False) -> Iterable[bytes]:
        body = render("unsubscribe.html", lang, {"lang": lang, "state": state, "token": token,
                                                  "action": f"?t={token}", "site_name": name})
        return _respond(start_response, status, b"" if head else body,
                        [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")])

    return app


def site_name(session: Session, lang: str) -> str:
    """The publication's name in `lang` ("" before a site file was imported: the pages then say "the newsletter")."""
    return session.scalar(select(SiteText.name).where(SiteText.lang == lang)) or ""


def _read_body(environ: dict[str, Any]) -> bytes:
    try:
        length = min(int(environ.get("CONTENT_LENGTH") or 0), MAX_BODY)
    except ValueError:
        length = 0
    return environ["wsgi.input"].read(length) if length > 0 else b""


def _respond(start_response: StartResponse, status: str, body: bytes,
             headers: list[tuple[str, str]]) -> Iterable[bytes]:
    start_response(status, [*headers, ("Content-Length", str(len(body)))])
    return [body]


class QuietHandler(WSGIRequestHandler):
    """wsgiref logs every request with the client's address; the log line is kept without the query (the token)."""

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        # A request refused before it was read whole (a request line over 64 KiB: 414) has no path yet.
        path = getattr(self, "path", "") or ""
        self.log_message('"%s %s" %s', getattr(self, "command", None) or "-", path.split("?", 1)[0] or "-", str(code))


class _Server(WSGIServer):
    def __init__(self, address: tuple[str, int], handler: type[WSGIRequestHandler]) -> None:
        self.address_family = address_family(*address)  # `--host ::1` is no IPv4 address
        super().__init__(address, handler)


def make_unsubscribe_server(engine: Engine, settings: Settings, now: Callable[[], dt.datetime],
                            host: str = "127.0.0.1", port: int = 8025) -> WSGIServer:
    """A wsgiref server for the app; port 0 picks a free port (see `server.server_port`)."""
    return make_server(host, port, make_app(engine, settings, now), server_class=_Server, handler_class=QuietHandler)
