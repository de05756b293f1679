"""Whether what a command makes for readers leads to an address they reach: the base URL's host (this
machine's, a private network's, one reserved for examples) and its scheme, named as the setting (at its line
of newsroom.toml) or the option that gave it (see newsroom/settings.py)."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Collection
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit

from newsroom.diagnostics import Diagnostic, Severity
from newsroom.settings import SECRET_ENV, SETTINGS_FILE, Settings, setting_lines

#: Top-level domains no reader's resolver answers for (RFC 2606, 6761, 6762, 8375; ICANN's `.internal`), and
#: the names networks use for themselves without owning them.
_LOCAL_DOMAINS = {"localhost": "this machine's own name", "local": "a name only the local network answers for",
                  "test": "a name reserved for tests (RFC 6761)", "invalid": "a name reserved as invalid (RFC 6761)",
                  "example": "a name reserved for examples (RFC 2606)", "internal": "a private network's name",
                  "lan": "a private network's name", "home": "a private network's name",
                  "corp": "a private network's name", "localdomain": "this machine's own name",
                  "home.arpa": "a home network's name (RFC 8375)"}
#: The second-level domains reserved for examples (RFC 2606): no publication is served there.
_EXAMPLE_DOMAINS = ("example.com", "example.net", "example.org")


def unreachable_host(url: str) -> str | None:
    """Why readers elsewhere could not reach `url` (its host this machine, a private network's or a name
    reserved for examples), as a phrase to follow the URL; None for a host the public may reach."""
    host = (urlsplit(url).hostname or "").rstrip(".")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is not None:
        address = getattr(address, "ipv4_mapped", None) or address  # ::ffff:127.0.0.1 is 127.0.0.1
        if address.is_loopback:
            return "this machine's own address"
        if address.is_unspecified:
            return "no one machine's address (it stands for every address of a machine listening)"
        if address.is_link_local:
            return "a link-local address, one network segment's alone"
        return None if address.is_global else "an address of a private network"
    for domain, what in _LOCAL_DOMAINS.items():
        if host == domain or host.endswith("." + domain):
            return what
    if any(host == domain or host.endswith("." + domain) for domain in _EXAMPLE_DOMAINS):
        return "a name reserved for examples (RFC 2606)"
    if "." not in host:
        return "a name only the local network answers for"
    return None


def unfit_setting(name: str, message: str, given: Collection[str] = (), severity: Severity = "error") -> Diagnostic:
    """A valid setting unfit for what a command does with it (`send`'s addresses, a public build's base URL),
    named at its line of newsroom.toml in the current folder, or as the command's option when `given` holds its
    name (`--base-url`)."""
    if name in given:
        return Diagnostic("command line", None, "--" + name.replace("_", "-"), message, severity)
    # Where to set it: the settings file of this folder, which may not be there yet.
    where = SETTINGS_FILE if Path(SETTINGS_FILE).is_file() else f"{SETTINGS_FILE} (none here yet)"
    line = None if name == "unsubscribe_secret" and os.environ.get(SECRET_ENV) else setting_lines().get(name)
    return Diagnostic(where, line, name, message, severity)


#: What a base URL that is not HTTPS costs a site's readers, as the problems of such an address say it.
NOT_SECURE_PAGES = ('browsers mark its pages "Not secure", and changing it later changes every address already '
                    "published")


class AddressUse(NamedTuple):
    """What a command makes of the base URL for readers, as its problems with that address say it."""

    #: What leads to the base URL, to be followed by it ("every link of this email leads to").
    what: str
    #: How the address is set for this command ("base_url (or --base-url)").
    setting: str
    #: When to set it, and why ("before mailing it (`send` refuses it)").
    before: str
    #: Who an address of this machine or a private network leaves out ("no reader reaches").
    audience: str = "reader"
    #: What an address that is not HTTPS costs them, said after "which is not HTTPS: ".
    insecure: str = NOT_SECURE_PAGES


#: What a public build makes of the base URL, and what a preview of it is (see public_address_problems): `build`
#: says it of the build it made, and `check` of the next one, in the same words.
BUILD_LINKS = AddressUse("the canonical links, feeds, sitemap and emails of a public build lead to",
                         "base_url (or --base-url)", "before publishing it (`build --drafts` and `newsroom serve` "
                         "are the previews)")


def public_address_problems(settings: Settings, given: Collection[str] = (), uses: AddressUse = BUILD_LINKS,
                            severity: Severity = "warning") -> list[Diagnostic]:
    """A warning for what is made for readers (a public build, not a preview, and `check` before one; an issue's
    email file; the SKOS export) at a base URL no reader reaches, or at one that is not HTTPS; an error for mail
    that goes out (see mail.send.sending_problems), which cannot be taken back: `uses` says what leads there and
    how to mend it."""
    base = settings.base_url
    unreachable = unreachable_host(base)
    if unreachable:
        default = " (the preview's default)" if base == Settings.base_url else ""
        return [unfit_setting("base_url", f"{uses.what} {base}{default}, {unreachable}, which no {uses.audience} "
                                          f"reaches: set {uses.setting} to the address the site is served at "
                                          f"{uses.before}", given, severity)]
    if urlsplit(base).scheme != "https":
        return [unfit_setting("base_url", f"{uses.what} {base}, which is not HTTPS: {uses.insecure}; set "
                                          f"{uses.setting} to the https:// address the site is served at "
                                          f"{uses.before}", given, severity)]
    return []
