"""Parts of an output (an issue's HTML in a feed) remembered across builds with what they read."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from typing import TypeVar

from newsroom.build.memos import Memo
from newsroom.build.tracking import Tracker
from newsroom.build.values import Values

T = TypeVar("T")


class Remembered:
    """Parts of an output remembered across builds with what they read: a part whose every read has
    the value it had is not made again, and its reads are noted as if it were.

    A feed shows the full text of the latest issues: an edit to one of them remakes the feed, and
    with it each issue's HTML (Jinja, Markdown, the glossary's terms linked in every story) — where
    that issue's alone is new. A part is a pure function of what it reads through the tracked views
    and of what `inputs` names (the code, settings and templates it is made with), as a page is
    (see tracking.py); so the same reads, with the same values, give the same part. Each part is
    kept under its group (`within`: the feed that shows it) and its name, with the inputs it was made
    with: a part made anew replaces the one before it, and a group made again asks for every part it
    shows, so the build forgets the group's other parts (an issue or a story that left the feed; see
    making._forget_unshown_parts): what is kept is what the feeds show.
    """

    def __init__(self, memo: Memo, values: Values, tracker: Tracker, inputs: str, scope: str = "") -> None:
        self.memo, self.values, self.tracker = memo, values, tracker
        self.inputs = hashlib.sha1(inputs.encode()).hexdigest()
        self.scope, self._prefix = scope, self.prefix(scope)

    @staticmethod
    def prefix(group: str) -> str:
        """The start of the keys of a group's parts: they share a shard of the memo, where a build that
        makes the group again finds them all."""
        return hashlib.sha1(group.encode()).hexdigest()[:8]

    def within(self, name: str) -> Remembered:
        """The same, keeping its parts as those of the group `<scope>/<name>`."""
        found = copy.copy(self)
        found.scope = f"{self.scope}/{name}"
        found._prefix = self.prefix(found.scope)
        return found

    def __call__(self, name: str, make: Callable[[], T]) -> T:
        """`make()`, or what it gave when its reads last had these values."""
        key = self._prefix + hashlib.sha1(name.encode()).hexdigest()[len(self._prefix):]
        known = self.memo.get(key)
        if known is not None:
            inputs, reads, value = known
            if inputs == self.inputs and all(self.values(read) == before for read, before in reads.items()):
                self.tracker.reads.update(reads)
                return value  # type: ignore[no-any-return]
        earlier = self.tracker.take()
        try:
            value = make()
        finally:
            reads = self.tracker.take()
            self.tracker.reads = earlier | reads
        self.memo.put(key, [self.inputs, self.values.hashes(sorted(reads)), value])
        return value
