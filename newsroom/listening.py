"""The address family a server of ours listens in (the preview, the unsubscribe links): the host's own."""

from __future__ import annotations

import socket


def address_family(host: str, port: int) -> socket.AddressFamily:
    """IPv6 for `--host ::1` (or a name only IPv6 has), else IPv4, as the standard servers assume; a host
    that does not resolve is left to binding, which says so."""
    try:
        return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0][0]
    except (socket.gaierror, UnicodeError):
        return socket.AF_INET
