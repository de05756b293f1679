"""Automatic dependency recording: what each page read while it was planned and rendered.

The planner works on a `Content` and a `Derived` whose mappings and sequences
note every key read (and every whole-collection read, such as iterating the
entries) into the `Reads` set of the page being made. No page author declares
dependencies: a new page type records its own by reading through the views.

A dependency is a string key; `Values` turns a key into a short hash of what
it names in the current content, so the next build can tell whether any
input of a page changed. A page whose every recorded input hashes the same,
under the same templates, catalog, settings and code, renders to the same
bytes, because planning and rendering are deterministic functions of what
they read.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from newsroom.build.model import Content, Record

SEP = "\x1f"
ALL = "*"  # the key list of a collection: which records exist, in which order
ABSENT = "-"
EXISTS = "?"  # before a key: only whether the key is there was read


class Tracker:
    """Where reads go: the dependency set of the page currently being planned or rendered."""

    def __init__(self) -> None:
        self.reads: set[str] = set()

    def note(self, key: str) -> None:
        self.reads.add(key)

    def take(self) -> set[str]:
        """The reads since the last `take`, and start a new set."""
        reads, self.reads = self.reads, set()
        return reads


class TrackedMapping(Mapping[Any, Any]):
    """A read-only mapping that notes each key looked up, and whole-mapping reads."""

    def __init__(self, name: str, data: Mapping[Any, Any], tracker: Tracker) -> None:
        self._name, self._data, self._tracker = name, data, tracker

    def __getitem__(self, key: Any) -> Any:
        self._tracker.note(f"{self._name}{SEP}{key}")
        return self._data[key]

    def __contains__(self, key: object) -> bool:
        # Existence only: a page that links to an entry does not change when the entry's text does.
        self._tracker.note(f"{self._name}{SEP}{EXISTS}{key}")
        return key in self._data

    def __iter__(self) -> Iterator[Any]:
        self._tracker.note(f"{self._name}{SEP}{ALL}")
        return iter(self._data)

    def __len__(self) -> int:
        self._tracker.note(f"{self._name}{SEP}{ALL}")
        return len(self._data)


class TrackedSequence(Sequence[Any]):
    """A read-only sequence: an index read depends on that position, anything else on the whole."""

    def __init__(self, name: str, data: Sequence[Any], tracker: Tracker) -> None:
        self._name, self._data, self._tracker = name, data, tracker

    def __getitem__(self, index: Any) -> Any:
        position = index if isinstance(index, int) and index >= 0 else ALL
        self._tracker.note(f"{self._name}{SEP}{position}")
        return self._data[index]

    def __len__(self) -> int:
        self._tracker.note(f"{self._name}{SEP}{ALL}")
        return len(self._data)

    def __iter__(self) -> Iterator[Any]:
        self._tracker.note(f"{self._name}{SEP}{ALL}")
        return iter(self._data)

    def __contains__(self, value: object) -> bool:
        self._tracker.note(f"{self._name}{SEP}{ALL}")
        return value in self._data

    def __bool__(self) -> bool:
        self._tracker.note(f"{self._name}{SEP}{ALL}")
        return bool(self._data)

    def index(self, value: Any, *args: Any) -> int:
        self._tracker.note(f"{self._name}{SEP}{ALL}")
        return self._data.index(value, *args)


@dataclasses.dataclass(frozen=True)
class TrackedContent(Content):
    """Content whose collections note reads; `stories_of` depends on one issue's story list only."""

    tracker: Tracker = dataclasses.field(default_factory=Tracker, compare=False)
    by_issue: Mapping[int, tuple[str, ...]] = dataclasses.field(default_factory=dict, compare=False)

    def stories_of(self, number: int) -> list[Record]:
        self.tracker.note(f"stories_of{SEP}{number}")
        return [self.stories[key] for key in self.by_issue.get(number, ())]


def stories_by_issue(content: Content) -> dict[int, tuple[str, ...]]:
    index: dict[int, list[str]] = {}
    for key, story in content.stories.items():
        index.setdefault(story.data["issue"], []).append(key)
    return {number: tuple(keys) for number, keys in index.items()}


def _wrap(name: str, value: Any, tracker: Tracker) -> Any:
    if isinstance(value, Mapping):
        return TrackedMapping(name, value, tracker)
    if isinstance(value, (tuple, list)):
        return TrackedSequence(name, value, tracker)
    return value


def track_content(content: Content, tracker: Tracker) -> TrackedContent:
    """A view of `content` that notes reads into `tracker` (every mapping field, by field name)."""
    fields = {f.name: _wrap(f"content.{f.name}", getattr(content, f.name), tracker)
              for f in dataclasses.fields(Content)}
    return TrackedContent(**fields, tracker=tracker, by_issue=stories_by_issue(content))


def track_derived(derived: Any, tracker: Tracker) -> Any:
    """The same dataclass with its mapping and sequence fields wrapped; other fields are global inputs."""
    return dataclasses.replace(derived, **{
        f.name: _wrap(f"derived.{f.name}", getattr(derived, f.name), tracker)
        for f in dataclasses.fields(derived) if isinstance(getattr(derived, f.name), (Mapping, tuple, list))})


def untracked_fields(derived: Any) -> str:
    """The fields no view can track (scalars): every page depends on them."""
    return repr([(f.name, getattr(derived, f.name)) for f in dataclasses.fields(derived)
                 if not isinstance(getattr(derived, f.name), (Mapping, tuple, list))])


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=10).hexdigest()


def value_hash(value: Any) -> str:
    """A short hash of a value a page read: a record by content hash and version, anything else by repr."""
    if isinstance(value, Record):
        return f"{value.content_hash[:20]}.{value.version}"
    return digest(repr(value))


class Values:
    """The current hash of each dependency key, computed lazily over the fresh content."""

    def __init__(self, content: Content, derived: Any) -> None:
        self._roots = {f"content.{f.name}": getattr(content, f.name) for f in dataclasses.fields(Content)}
        self._roots.update({f"derived.{f.name}": getattr(derived, f.name) for f in dataclasses.fields(derived)})
        self._by_issue = stories_by_issue(content)
        self._stories = content.stories
        self._memo: dict[str, str] = {}
        self._keys: dict[str, str] = {}

    def __call__(self, key: str) -> str:
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._compute(key)
        return found

    def key(self, key: str) -> str:
        """One string object per key: pages' reads arrive from workers as copies of the same keys."""
        return self._keys.setdefault(key, key)

    def _compute(self, key: str) -> str:
        name, _, item = key.partition(SEP)
        if name == "stories_of":
            keys = self._by_issue.get(int(item), ())
            return digest(repr([(k, value_hash(self._stories[k])) for k in keys]))
        root = self._roots.get(name)
        if root is None:
            return ABSENT
        if item == ALL:
            return digest(repr(list(root) if isinstance(root, Mapping) else root))
        if isinstance(root, Mapping):
            if item.startswith(EXISTS):
                return ABSENT if _lookup(root, item[1:]) is _MISSING else "+"
            found = _lookup(root, item)
            return ABSENT if found is _MISSING else value_hash(found)
        position = int(item)
        return value_hash(root[position]) if position < len(root) else ABSENT


_MISSING = object()


def _lookup(mapping: Mapping[Any, Any], item: str) -> Any:
    """The value under `item`, whose key may have been an int (issue numbers) before it became text."""
    if item in mapping:
        return mapping[item]
    if item.lstrip("-").isdigit() and int(item) in mapping:
        return mapping[int(item)]
    return _MISSING
