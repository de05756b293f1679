"""The value of each dependency key in the current content, as a short hash: what the next build
compares with the hash each output's reads had (see tracking.py for the keys a page reads)."""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import marshal
from collections.abc import Iterable, Mapping
from typing import Any

from newsroom.build.model import Content, Record
from newsroom.build.state import READS_FORMAT
from newsroom.build.tracking import ALL, EXISTS, SEP, stories_by_issue

ABSENT = "-"

#: Roots whose values are stored as themselves (their repr), not as a hash: a build reads the last one
#: back. The masthead's issue line, which a page whose only change it is gets spliced in (see
#: build/masthead.py).
MASTHEAD = "derived.masthead"
SHOWN = frozenset({MASTHEAD})


def shown_value(stored: str) -> Any:
    """The value a read of a `SHOWN` root stored (see Values)."""
    return ast.literal_eval(stored[1:])


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=10).hexdigest()


def value_hash(value: Any) -> str:
    """A short hash of a value a page read: a record by content hash and version, text by itself (most values a
    build hashes are record fields: the escaping copy `repr` makes of a long text costs more than its hash),
    anything else by repr. Text is hashed apart from reprs (`person`): the text "1" and the number 1 differ."""
    if type(value) is str:
        return hashlib.blake2b(value.encode("utf-8", "surrogatepass"), digest_size=10, person=b"text").hexdigest()
    if type(value) in _MARSHALLED:  # a text's fields, a list of tags: marshalled at C speed, escaped by no repr
        try:
            data = marshal.dumps(value, READS_FORMAT)
        except ValueError:  # something inside marshal cannot write (a named tuple, a date)
            pass
        else:
            return hashlib.blake2b(data, digest_size=10, person=b"marshal").hexdigest()
    if isinstance(value, Record):
        return _record_hash(value)
    return digest(repr(value))


def _record_hash(record: Record) -> str:
    return f"{record.content_hash[:20]}.{record.version}"


#: Values `value_hash` hashes by their marshal bytes, in the format that writes equal values alike (see
#: state.READS_FORMAT): containers of exactly these types; anything else inside them is refused and hashed by repr.
_MARSHALLED = frozenset({dict, list, tuple, int, float, bool, type(None)})


class Values:
    """The current hash of each dependency key, computed lazily over the fresh content."""

    def __init__(self, content: Content, derived: Any) -> None:
        self._roots = {f"content.{f.name}": getattr(content, f.name) for f in dataclasses.fields(Content)}
        self._roots.update({f"derived.{f.name}": getattr(derived, f.name) for f in dataclasses.fields(derived)})
        self._by_issue = stories_by_issue(content)
        self._memo: dict[str, str] = {}
        self._keys: dict[str, str] = {}
        self._root_of: dict[str, str] = {}
        self._member_sets: dict[int, tuple[Any, frozenset[str]]] = {}

    def __call__(self, key: str) -> str:
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._compute(key)
        return found

    def hashes(self, keys: Iterable[str]) -> dict[str, str]:
        """`{key: self(key)}` for `keys` in their order (a page's hundreds of reads: the known ones
        looked up without a Python step each, a million of them in a full build)."""
        memo, compute = self._memo, self._compute
        keys = list(keys)
        for key in set(keys).difference(memo):
            memo[key] = compute(key)
        return dict(zip(keys, map(memo.__getitem__, keys)))

    def changed(self, stored: Mapping[str, str]) -> set[str]:
        """The keys of `stored` ({key: value hash then}) whose value hash is another now.

        A build asks it of every root of the graph (tens of thousands), most of them one record or one
        value of a derived mapping: those are hashed here directly, the rest as `self(key)` hashes them.
        """
        memo, roots, compute = self._memo, self._roots, self._compute
        found: set[str] = set()
        for key, before in stored.items():
            now = memo.get(key)
            if now is None:
                name, _, item = key.partition(SEP)
                mapping = roots.get(name)
                value = mapping.get(item, _MISSING) if type(mapping) is dict and name not in SHOWN else _MISSING
                if value is _MISSING or SEP in item or item == ALL or item[:1] == EXISTS:
                    now = compute(key)
                elif type(value) is Record:
                    now = _record_hash(value)
                else:
                    now = value_hash(value)
                memo[key] = now
            if now != before:
                found.add(key)
        return found

    def roots(self, keys: Iterable[str]) -> set[str]:
        """`{self.root(key)}` for `keys`."""
        known = self._root_of
        keys = list(keys)
        found = set(map(known.get, keys))
        if None in found:
            found.discard(None)
            found.update([self.root(key) for key in keys if key not in known])
        return found

    def key(self, key: str) -> str:
        """One string object per key: pages' reads arrive from workers as copies of the same keys."""
        return self._keys.setdefault(key, key)

    def root(self, key: str) -> str:
        """The root a key reads under — one record, one value of a derived mapping, a collection's key
        list, a whole sequence, whether one item is in a derived sequence — itself a key, whose value
        determines the value of every key under it (see graph.Graph)."""
        found = self._root_of.get(key)
        if found is None:
            name, _, item = key.partition(SEP)
            root = self._roots.get(name)
            first = item.partition(SEP)[0]
            if name == "stories_of" or root is None:
                found = key
            elif first == ALL or not isinstance(root, Mapping):
                found = f"{name}{SEP}{ALL}"
            elif name[:8] == "derived." and item.count(SEP) == 1 and item.partition(SEP)[2][:1] == EXISTS:
                # Whether one item is in a derived sequence (TrackedMapping.member): its own root. Each entry
                # page asks it of the issues its stories came out in; an issue published changes the whole
                # list, none of those answers, and no such page need be looked at.
                found = key
            else:
                found = f"{name}{SEP}{first[1:] if first.startswith(EXISTS) else first}"
            self._root_of[key] = found
        return found

    def _members(self, items: tuple[Any, ...] | list[Any]) -> frozenset[str]:
        """The items of a sequence as text, made once per sequence: each issue page asks whether its
        issue is among the hundreds shown."""
        found = self._member_sets.get(id(items))
        if found is None or found[0] is not items:
            found = self._member_sets[id(items)] = (items, frozenset(map(str, items)))
        return found[1]

    def ranges(self, root: str) -> list[tuple[str, str]]:
        """The key ranges [low, high) that hold every key under `root` (see `root`), in string order."""
        name, _, item = root.partition(SEP)
        if item == ALL and name in self._roots and not isinstance(self._roots[name], Mapping):
            return [(f"{name}{SEP}", f"{name}{SEP}\U0010ffff")]  # a sequence: every position
        if item == ALL or name == "stories_of" or name not in self._roots or SEP in item:
            return [(root, root + "\0")]  # a root that is one key (see `root`)
        return [(root, root + "\0"), (f"{root}{SEP}", f"{root}{SEP}\U0010ffff"),
                (f"{name}{SEP}{EXISTS}{item}", f"{name}{SEP}{EXISTS}{item}\0")]

    def _compute(self, key: str) -> str:
        name, _, item = key.partition(SEP)
        if name[:8] == "content.":  # a record's field, or one language's field: most keys
            parts = item.split(SEP)
            records = self._roots.get(name)
            record = records.get(parts[0]) if type(records) is dict and 2 <= len(parts) <= 3 else None
            if type(record) is Record and type(record.data) is dict and parts[1][:1] not in (ALL, EXISTS):
                value = record.data.get(parts[1], _MISSING)
                if len(parts) == 3:
                    last = parts[2]
                    if type(value) is not dict or last[:1] in (ALL, EXISTS):
                        value = _MISSING  # not a plain field of a text: the general way below
                    else:
                        value = value.get(last, _MISSING)
                if value is not _MISSING:  # else absent, or a key of another type: the general way below
                    return value_hash(value)
        if name == "stories_of":  # which stories, in order: their fields are read (and noted) one by one
            return digest(repr(self._by_issue.get(int(item), ())))
        value = self._roots.get(name)
        if value is None:
            return ABSENT
        if type(value) is dict and SEP not in item and item in value and item != ALL and item[:1] != EXISTS:
            value = value[item]  # a root (one record, one value of a derived mapping): most keys a build hashes
            return "=" + repr(value) if name in SHOWN else value_hash(value)
        parts = item.split(SEP)
        last = len(parts) - 1
        for depth, part in enumerate(parts):  # a collection, then a record's fields, then a text's fields
            if isinstance(value, Record):
                value = value.data
            if part == ALL and depth == last:
                return digest(repr(list(value) if isinstance(value, Mapping) else value))
            if isinstance(value, Mapping):
                if part.startswith(EXISTS) and depth == last:
                    return ABSENT if _lookup(value, part[1:]) is _MISSING else "+"
                value = _lookup(value, part)
            elif isinstance(value, (tuple, list)) and part.startswith(EXISTS) and depth == last:
                return "+" if part[1:] in self._members(value) else ABSENT  # see TrackedMapping.member
            elif isinstance(value, (tuple, list)) and part.isdigit():
                value = value[int(part)] if int(part) < len(value) else _MISSING
            else:
                value = _MISSING
            if value is _MISSING:
                return ABSENT
        return "=" + repr(value) if name in SHOWN else value_hash(value)


_MISSING = object()


def _lookup(mapping: Mapping[Any, Any], item: str) -> Any:
    """The value under `item`, whose key may have been an int (issue numbers) before it became text."""
    if item in mapping:
        return mapping[item]
    if item.lstrip("-").isdigit() and int(item) in mapping:
        return mapping[int(item)]
    return _MISSING
