"""One typed settings object, validated once: defaults, then newsroom.toml, then the CLI."""

from __future__ import annotations

import dataclasses
import datetime as dt
import email.policy
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import idna

from newsroom.diagnostics import ContentError, Diagnostic

SETTINGS_FILE = "newsroom.toml"
#: The unsubscribe secret every copy of the engine starts with: public, so never one to send mail with.
DEFAULT_SECRET = "change-me"
#: Where the unsubscribe secret may come from instead of newsroom.toml.
SECRET_ENV = "NEWSROOM_UNSUBSCRIBE_SECRET"


@dataclass(frozen=True)
class Settings:
    """How the publication is built. Every field can be set in `newsroom.toml`."""

    #: Publishing languages, first is the default (the root `/` leads there).
    languages: tuple[str, ...] = ("hu", "en")
    #: Absolute URL the site is served from; feeds, sitemap and emails need it.
    base_url: str = "http://localhost:8000/"
    #: Time zone for publication times and dates shown to readers.
    timezone: str = "Europe/Budapest"
    #: `check` warns when an entry's "Where things stand" is older than this.
    stale_after_months: int = 6
    #: Missing translation: "fallback" shows the other language marked as such; "omit" leaves the page out.
    missing_translation: str = "fallback"
    #: Email sender and reply address, list id and unsubscribe address. A sender without a name
    #: ("News <news@example.org>" has one) is named by the site's name in each email's language.
    email_from: str = "hirlevel@example.org"
    email_reply_to: str = "szerkesztoseg@example.org"
    list_id: str = "weekly.example.org"  # at most LIST_ID_LENGTH characters: Message-IDs are made of it
    unsubscribe_mailto: str = "unsubscribe@example.org"
    #: Secret for subscribers' unsubscribe tokens (HMAC); `newsroom send` refuses this default.
    #: $NEWSROOM_UNSUBSCRIBE_SECRET gives it instead (a secret kept out of a file under version control). No
    #: page shows it: it is out of the settings' repr, which the build's fingerprint and messages take.
    unsubscribe_secret: str = field(default=DEFAULT_SECRET, repr=False)
    #: Public URL of `newsroom unsubscribe-server`; empty means `{base_url}unsubscribe`.
    unsubscribe_url: str = ""
    #: Date part of the tag: URIs (RFC 4151) that identify feeds and entries; never change it once public.
    feed_id_date: str = "2026"
    #: Host part of those tag: URIs; empty means base_url's host. A site that moves to another host sets it to
    #: the one its feeds were published from, so that no item of theirs becomes new to their readers.
    feed_id_host: str = ""
    #: How many of the newest issues, stories and glossary updates each feed carries.
    feed_limit: int = 20
    #: Template folder; empty means the bundled `templates/`. Pages that use an edited template are rebuilt.
    templates: str = ""
    #: A folder whose files are copied as they are into the site's root (robots.txt, CNAME, favicon.ico,
    #: .well-known/…); empty means none.
    static: str = ""
    #: Extra settings kept for extensions; unknown keys in newsroom.toml are errors.
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def default_language(self) -> str:
        return self.languages[0]

    @property
    def unsubscribe_endpoint(self) -> str:
        return self.unsubscribe_url or f"{self.base_url}unsubscribe"

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def replace(self, **changes: Any) -> Settings:
        """These settings with some replaced by the command's options (`--base-url`, …), checked."""
        given = {name: value for name, value in changes.items() if value is not None}
        try:
            return validate(dataclasses.replace(self, **given))
        except ContentError as error:
            # A problem of a value an option gave is the option's to name.
            raise ContentError([Diagnostic("command line", None, "--" + d.field.replace("_", "-"), d.message)
                                if d.field in given else d for d in error.diagnostics]) from None


#: The languages the engine can publish in: its catalogs (locale/), collation and term matching.
SUPPORTED_LANGUAGES = ("hu", "en")
#: Characters of an atom (RFC 5322), of which a list id's dot-separated parts are made (RFC 2919).
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
#: The address a message gives as the example of the publication's: a placeholder, for a name reserved for
#: examples (news.example.org) or the preview's default is one `send` refuses (see
#: public_address.unreachable_host).
EXAMPLE_HOST = "<your public host>"
EXAMPLE_URL = f"https://{EXAMPLE_HOST}/"
#: The example a message gives of a setting whose default is none to follow (see _type_problems).
_EXAMPLES = {"base_url": EXAMPLE_URL, "unsubscribe_url": f"{EXAMPLE_URL}unsubscribe", "feed_id_host": EXAMPLE_HOST}
#: The longest list id: every Message-ID is made of it (render/email_headers.py `message_id`: at most 70
#: characters besides) and recorded with each send in a column of 250 (`sends.message_id`), which PostgreSQL holds to.
LIST_ID_LENGTH = 180


def _url_problem(value: str) -> str | None:
    """Why `value` is not an absolute http(s) URL a page, a feed or an email can give as it is."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"expected an absolute http(s) URL, e.g. {EXAMPLE_URL}"
    if re.search(r"[\s<>\"]", value):
        return "a URL has no spaces, quotes or angle brackets: percent-encode them (%20)"
    if "@" in parts.netloc:
        return "no user name or password before the host: every page, feed and email would show it to readers"
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0 and parts.netloc.rpartition("]")[2].count(":"):
        return f"a port is a number from 1 to 65535, e.g. {EXAMPLE_URL.removesuffix('/')}:8443/"
    try:
        _ascii_host(parts.hostname)
    except UnicodeError as error:
        return (f"{parts.hostname!r} is no host name browsers open (IDNA 2008): {_host_refusal(error)}; write the "
                "host as its registrar gives it (its xn-- form will do)")
    return None


def _ascii_host(host: str) -> str:
    """`host` as links, feed ids and mail headers take it: an international name in its ASCII form by IDNA 2008
    with UTS #46's mapping, as browsers make it (`hírlevél.hu` → `xn--hrlevl-fva1a.hu`, `straße.de` →
    `xn--strae-oqa.de`, which IDNA 2003 made `strasse.de`, another domain), lowercase; UnicodeError (an
    `idna.IDNAError`) when browsers open no such name: a label empty or too long, a symbol or an emoji in it."""
    return host if host.isascii() else idna.encode(host, uts46=True, transitional=False).decode("ascii")


def _host_refusal(error: UnicodeError) -> str:
    """What `idna` refused in a host name, in the words of the settings' messages."""
    character = re.search(r"U\+([0-9A-F]{4,6})", str(error))
    if character:
        return f"the character {chr(int(character[1], 16))!r} (U+{character[1]}) is not allowed in a host name"
    if re.search(r"empty|too long", str(error), re.IGNORECASE):
        return "a host name's dot-separated labels have 1 to 63 characters each, none empty"
    return str(error)[:1].lower() + str(error)[1:]


def _host_name(value: str) -> str | None:
    """`value` as a tag: URI's host takes it (a DNS name: ASCII, lowercase), or None when it is no host name."""
    try:
        host = _ascii_host(value.lower().rstrip("."))
    except UnicodeError:
        return None
    label = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
    return host if re.fullmatch(rf"{label}(?:\.{label})*", host) else None


def _normal_url(value: str, folder: bool) -> str:
    """An absolute URL (`_url_problem` found none) as every link, feed id and mail header gives it: scheme and
    host in lowercase, an international host in its ASCII form, a path's other characters percent-encoded;
    a `folder` (the base URL) ends in one slash."""
    parts = urlsplit(value)
    host = _ascii_host(parts.hostname or "")
    netloc = (f"[{host}]" if ":" in host else host) + (f":{parts.port}" if parts.port else "")
    path = quote(parts.path, safe="/%!$&'()*+,;=:@-._~")
    return urlunsplit((parts.scheme, netloc, path.rstrip("/") + "/" if folder else path or "/", "", ""))


def _address_problem(value: str, named: bool) -> str | None:
    """Why `value` is not one email address (with a display name, when `named`)."""
    header = email.policy.default.header_factory("To", value)
    if header.defects or len(header.addresses) != 1 or not header.addresses[0].domain \
            or (not named and header.addresses[0].display_name):
        return ("expected one email address, e.g. News <news@example.org>" if named else
                "expected one email address without a name, e.g. news@example.org")
    return None


def _date_problem(value: str) -> str | None:
    """Why `value` is not a tag URI's date (RFC 4151: a year, a year and month, or a whole date)."""
    if re.fullmatch(r"\d{4}(-\d{2}(-\d{2})?)?", value):
        try:
            dt.date.fromisoformat(value + "-01-01"[len(value) - 4:])
            return None
        except ValueError:
            pass
    return "expected YYYY, YYYY-MM or YYYY-MM-DD, a date when the site's domain was yours (RFC 4151)"


def validate(settings: Settings, location: str = SETTINGS_FILE, lines: dict[str, int] | None = None) -> Settings:
    """`settings` checked field by field; every problem is reported, with its line when `lines` has it."""
    found: dict[str, str] = {}
    languages = settings.languages
    unknown = [lang for lang in languages if lang not in SUPPORTED_LANGUAGES]
    if not languages:
        found["languages"] = f"at least one language is required, from {', '.join(SUPPORTED_LANGUAGES)}"
    elif unknown:
        found["languages"] = (f"unsupported language {', '.join(map(repr, unknown))}: expected "
                              f"{' and/or '.join(SUPPORTED_LANGUAGES)} (the first is the default)")
    elif len(set(languages)) != len(languages):
        found["languages"] = "a language is listed twice"
    url = _url_problem(settings.base_url)
    if url:
        found["base_url"] = url
    elif urlsplit(settings.base_url).query or urlsplit(settings.base_url).fragment:
        found["base_url"] = "the base URL is a folder every page's path is added to: no ?query or #fragment"
    elif re.search(r"\.(?:html?|php|aspx?|xml)$", urlsplit(settings.base_url).path, re.IGNORECASE):
        found["base_url"] = ("the base URL is the folder every page's path is added to, not a page in it: leave out "
                             f"{urlsplit(settings.base_url).path.rpartition('/')[2]}")
    try:
        ZoneInfo(settings.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        found["timezone"] = f"unknown time zone {settings.timezone!r}: expected an IANA name such as Europe/Budapest"
    if settings.stale_after_months < 0:
        found["stale_after_months"] = "expected a number of months, 0 or more"
    if settings.missing_translation not in ("fallback", "omit"):
        found["missing_translation"] = "expected fallback or omit"
    for name, named in (("email_from", True), ("email_reply_to", True), ("unsubscribe_mailto", False)):
        address = _address_problem(getattr(settings, name), named)
        if address:
            found[name] = address
    if not re.fullmatch(rf"{_ATOM}(\.{_ATOM})+", settings.list_id):
        found["list_id"] = "expected a list id made of dot-separated words, e.g. weekly.example.org (RFC 2919)"
    elif len(settings.list_id) > LIST_ID_LENGTH:
        found["list_id"] = (f"a list id of {len(settings.list_id)} characters: each message's Message-ID is made "
                            f"of it, and a send records one of at most 250; shorten it to {LIST_ID_LENGTH} at most")
    if not settings.unsubscribe_secret:
        found["unsubscribe_secret"] = "expected a secret (a long random string)"
    if settings.unsubscribe_url and _url_problem(settings.unsubscribe_url):
        found["unsubscribe_url"] = f"{_url_problem(settings.unsubscribe_url)}; empty means {{base_url}}unsubscribe"
    elif urlsplit(settings.unsubscribe_url).query or urlsplit(settings.unsubscribe_url).fragment:
        found["unsubscribe_url"] = "each subscriber's link adds its own ?t=…: no ?query or #fragment"
    if settings.feed_id_host and not _host_name(settings.feed_id_host):
        found["feed_id_host"] = (f"expected a host name alone, e.g. {EXAMPLE_HOST} (no scheme, port or path): "
                                 "the host the feeds were first published from")
    date = _date_problem(settings.feed_id_date)
    if date:
        found["feed_id_date"] = date
    if settings.feed_limit < 1:
        found["feed_limit"] = "expected a number of items, 1 or more"
    if settings.static and not Path(settings.static).is_dir():
        found["static"] = f"no folder {settings.static}: make it, or leave the setting empty for no static files"
    if settings.templates and not Path(settings.templates).is_dir():
        found["templates"] = (f"no folder {settings.templates}: copy the bundled templates there, or leave it "
                              "empty to use them")
    if found:
        raise ContentError([Diagnostic(location, (lines or {}).get(name), name, message)
                            for name, message in found.items()])
    return dataclasses.replace(settings, base_url=_normal_url(settings.base_url, folder=True),
                               feed_id_host=settings.feed_id_host and _host_name(settings.feed_id_host) or "",
                               unsubscribe_url=settings.unsubscribe_url and _normal_url(settings.unsubscribe_url,
                                                                                        folder=False))


def _type_problems(data: dict[str, Any], location: str, lines: dict[str, int]) -> list[Diagnostic]:
    """Each value of newsroom.toml whose TOML type is not its setting's: a number where text belongs, …"""
    problems = []
    for name, value in data.items():
        default = _DEFAULTS[name]
        if isinstance(default, tuple):
            fits = isinstance(value, list) and all(isinstance(item, str) for item in value)
            wanted = f"a list of language codes, e.g. {list(default)}".replace("'", '"')
        elif isinstance(default, int):
            fits, wanted = isinstance(value, int) and not isinstance(value, bool), f"a whole number, e.g. {default}"
        else:
            fits, wanted = isinstance(value, str), f'text in quotes, e.g. "{_EXAMPLES.get(name, default) or "…"}"'
        if not fits:
            problems.append(Diagnostic(location, lines.get(name), name, f"expected {wanted}, not {value!r}"))
    return problems


#: Each setting newsroom.toml may set, with its default (whose type is the one it takes).
_DEFAULTS: dict[str, Any] = {f.name: f.default for f in dataclasses.fields(Settings) if f.name != "extra"}


def load(folder: Path | None = None) -> Settings:
    """Settings from `newsroom.toml` in `folder` (the current folder by default), if present; the unsubscribe
    secret from $NEWSROOM_UNSUBSCRIBE_SECRET when that is set."""
    settings = _load(folder)
    secret = os.environ.get(SECRET_ENV)
    return dataclasses.replace(settings, unsubscribe_secret=secret) if secret else settings


def _lines(text: str) -> dict[str, int]:
    """Where each setting is set: its line, for the messages (a setting is a top-level key, one a line)."""
    return {match[1]: text.count("\n", 0, match.start()) + 1
            for match in re.finditer(r"^[ \t]*([A-Za-z_]+)[ \t]*=", text, re.MULTILINE)}


def setting_lines(folder: Path | None = None) -> dict[str, int]:
    """The line each setting is set at in `newsroom.toml` of `folder` (the current folder by default), for a
    message about a value that is valid but unfit for what a command does with it; none without the file."""
    path = (folder or Path.cwd()) / SETTINGS_FILE
    try:
        return _lines(path.read_bytes().decode("utf-8", errors="replace"))
    except OSError:
        return {}


def _load(folder: Path | None) -> Settings:
    # Named as the other files a command reads are, as given: `newsroom.toml` of the current folder as
    # unfit_setting names it, another folder's in full.
    path = (folder or Path()) / SETTINGS_FILE
    if not path.exists():
        return Settings()
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")  # a byte order mark, as some editors save UTF-8
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise ContentError([Diagnostic(str(path), line, "", f"not UTF-8 text (byte 0x{raw[error.start]:02x}): "
                                                            "save it as UTF-8")]) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ContentError([Diagnostic(str(path), None, "", f"malformed TOML: {error}")]) from None
    lines = _lines(text)
    unknown = sorted(set(data) - set(_DEFAULTS))
    if unknown:
        raise ContentError(
            [Diagnostic(str(path), lines.get(key), key,
                        f"unknown setting; expected one of {', '.join(sorted(_DEFAULTS))}")
             for key in unknown]
        )
    problems = _type_problems(data, str(path), lines)
    if problems:
        raise ContentError(problems)
    if "languages" in data:
        data["languages"] = tuple(data["languages"])
    return validate(Settings(**data), str(path), lines)
