"""The address family a server of ours listens in (the preview, the unsubscribe links): the host's own."""

from __future__ import annotations

import ipaddress
import socket


def address_family(host: str, port: int) -> socket.AddressFamily:
    """IPv6 for `--host ::1` (or a name only IPv6 has), else IPv4, as the standard servers assume; a host
    that does not resolve is left to binding, which says so."""
    try:
        return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0][0]
    except (socket.gaierror, UnicodeError):
        return socket.AF_INET


def netloc(host: str, port: int) -> str:
    """`host:port` as a URL and a message write it: an IPv6 address in brackets (`[::1]:8000`, not `::1:8000`)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def reachable(host: str) -> str:
    """The name a browser opens a server listening on `host` by: for every address (`0.0.0.0`, `::`), which no
    browser of another machine can open, this machine's name (its full one when the system knows it)."""
    try:
        everywhere = ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return host
    if not everywhere:
        return host
    full = socket.getfqdn()
    return full if "." in full and not full.startswith("localhost") else socket.gethostname()
