"""The stores a build lends to remember each text's references, plain text and HTML rendered ahead,
and the keys they are stored under."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Protocol


class ReferenceStore(Protocol):
    """Somewhere to remember `find_references` answers across processes, keyed by a hash of the text."""

    def get(self, key: str) -> Any: ...

    def put(self, key: str, value: Any) -> None: ...


#: The stores of the build in progress, if any: "references", "plain" (text) and "html".
#: `check` and the planner ask about every text of every record on every build;
#: a build lends its database-backed memos here so an unchanged text is never
#: parsed again (see build/making.py and build/checking.py).
_STORES: list[dict[str, ReferenceStore]] = []

#: The placeholder anchors of HTML rendered ahead (see find_references): new in each process that
#: imports this (a build's workers are forks of it), so no content can know and contain them.
_AHEAD = "x" + secrets.token_hex(8)


@contextmanager
def remembered_references(store: ReferenceStore, plain: ReferenceStore | None = None,
                          html: ReferenceStore | None = None) -> Iterator[None]:
    """While the block runs, `find_references` (and `plain_text`) answer from the stores and add to them.

    With an `html` store, `find_references` also renders ahead the HTML of each long text (see
    there), and `MarkdownRenderer.html` takes it from there.
    """
    stores = {"references": store, **({"plain": plain} if plain is not None else {}),
              **({"html": html} if html is not None else {})}
    _STORES.append(stores)
    try:
        yield
    finally:
        _STORES.remove(stores)


@lru_cache(maxsize=1 << 17)  # a page asks after one text's references, HTML ahead and plain text in turn
def text_key(text: str) -> str:
    """The key a text's remembered results are stored under."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


#: Texts at least this long get their plain text with their references (see find_references).
PLAIN_AHEAD = 120
#: Plain prose shorter than this gets its plain text made when asked (a few microseconds), not
#: remembered: looking it up decodes the remembered texts' shard, and a list of the glossary's
#: definitions would decode every shard (tens of milliseconds).
PLAIN_ON_THE_SPOT = 400
