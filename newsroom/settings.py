"""One typed settings object, validated once: defaults, then newsroom.toml, then the CLI."""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from newsroom.diagnostics import ContentError, Diagnostic

SETTINGS_FILE = "newsroom.toml"


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
    #: Email sender and reply address, list id and unsubscribe address.
    email_from: str = "Az MI-korszak hírei <hirlevel@example.org>"
    email_reply_to: str = "szerkesztoseg@example.org"
    list_id: str = "weekly.example.org"
    unsubscribe_mailto: str = "unsubscribe@example.org"
    #: Secret for subscribers' unsubscribe tokens (HMAC); set a real one in production.
    unsubscribe_secret: str = "change-me"
    #: Public URL of `newsroom unsubscribe-server`; empty means `{base_url}unsubscribe`.
    unsubscribe_url: str = ""
    #: Date part of the tag: URIs (RFC 4151) that identify feeds and entries; never change it once public.
    feed_id_date: str = "2026"
    #: How many of the newest issues, stories and glossary updates each feed carries.
    feed_limit: int = 20
    #: Template folder; empty means the bundled `templates/`. Pages that use an edited template are rebuilt.
    templates: str = ""
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
        return validate(dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None}))


def validate(settings: Settings, location: str = SETTINGS_FILE) -> Settings:
    problems: list[Diagnostic] = []
    if not settings.languages:
        problems.append(Diagnostic(location, None, "languages", "at least one language is required"))
    if not settings.base_url.startswith(("http://", "https://")):
        problems.append(Diagnostic(location, None, "base_url", "expected an absolute http(s) URL"))
    try:
        ZoneInfo(settings.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        problems.append(Diagnostic(location, None, "timezone", f"unknown time zone {settings.timezone!r}"))
    if settings.missing_translation not in ("fallback", "omit"):
        problems.append(Diagnostic(location, None, "missing_translation", "expected fallback or omit"))
    if problems:
        raise ContentError(problems)
    if not settings.base_url.endswith("/"):
        settings = dataclasses.replace(settings, base_url=settings.base_url + "/")
    return settings


def load(folder: Path | None = None) -> Settings:
    """Settings from `newsroom.toml` in `folder` (the current folder by default), if present."""
    path = (folder or Path.cwd()) / SETTINGS_FILE
    if not path.exists():
        return Settings()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ContentError([Diagnostic(str(path), None, "", f"malformed TOML: {error}")]) from None
    known = {f.name for f in dataclasses.fields(Settings)} - {"extra"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ContentError(
            [Diagnostic(str(path), None, key, f"unknown setting; expected one of {', '.join(sorted(known))}")
             for key in unknown]
        )
    if "languages" in data:
        data["languages"] = tuple(data["languages"])
    return validate(Settings(**data), str(path))
