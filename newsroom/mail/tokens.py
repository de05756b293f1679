"""Unsubscribe tokens: an opaque, unguessable HMAC of the address.

The token reveals nothing about the address and cannot be made without the
secret (`unsubscribe_secret` in the settings), so a link cannot be forged to
unsubscribe someone else. It is stable for an address, which keeps a
subscriber's Message-IDs and links the same across reruns.
"""

from __future__ import annotations

import hashlib
import hmac

#: 32 hex digits = 128 bits of the HMAC-SHA256: unguessable, and short enough for a URL.
TOKEN_LENGTH = 32


def normalise(address: str) -> str:
    """One mailbox, one spelling: addresses are compared and stored lower-cased."""
    return address.strip().lower()


def make_token(secret: str, address: str) -> str:
    """The unsubscribe token of `address` under `secret`."""
    digest = hmac.new(secret.encode("utf-8"), normalise(address).encode("utf-8"), hashlib.sha256)
    return digest.hexdigest()[:TOKEN_LENGTH]


def looks_like_token(value: str) -> bool:
    """A cheap syntactic check before any database lookup."""
    return len(value) == TOKEN_LENGTH and all(c in "0123456789abcdef" for c in value)
