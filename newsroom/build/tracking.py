"""Automatic dependency recording: what each page read while it was planned and rendered.

The planner works on a `Content` and a `Derived` whose mappings and sequences
note every key read (and every whole-collection read, such as iterating the
entries) into the `Reads` set of the page being made. No page author declares
dependencies: a new page type records its own by reading through the views.

A dependency is a string key; `Values` (values.py) turns a key into a short hash
of what it names in the current content, so the next build can tell whether any
input of a page changed. A page whose every recorded input hashes the same,
under the same templates, catalog, settings and code, renders to the same
bytes, because planning and rendering are deterministic functions of what
they read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from newsroom.build.model import Content, Record

SEP = "\x1f"
ALL = "*"  # the key list of a collection: which records exist, in which order
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
        # Each key's dependency key, made once: the same field is read on page after page, and one string
        # object per key is also hashed once wherever the reads go.
        self._keys: dict[Any, str] = {}
        self._exists: dict[Any, str] = {}

    def __getitem__(self, key: Any) -> Any:
        name = self._keys.get(key)
        if name is None:
            name = self._keys[key] = f"{self._name}{SEP}{key}"
        self._tracker.reads.add(name)
        return self._data[key]

    def get(self, key: Any, default: Any = None) -> Any:
        """`Mapping.get`, noting the same read as `self[key]` (missing or not) without its KeyError round
        trip: pages ask for optional fields by the thousand."""
        name = self._keys.get(key)
        if name is None:
            name = self._keys[key] = f"{self._name}{SEP}{key}"
        self._tracker.reads.add(name)
        return self._data.get(key, default)

    def __contains__(self, key: object) -> bool:
        # Existence only: a page that links to an entry does not change when the entry's text does.
        name = self._exists.get(key)
        if name is None:
            name = self._exists[key] = f"{self._name}{SEP}{EXISTS}{key}"
        self._tracker.reads.add(name)
        return key in self._data

    def __iter__(self) -> Iterator[Any]:
        self._tracker.note(f"{self._name}{SEP}{ALL}")
        return iter(self._data)

    def __len__(self) -> int:
        self._tracker.note(f"{self._name}{SEP}{ALL}")
        return len(self._data)

    def member(self, key: Any, item: Any) -> bool:
        """Whether `item` is in the sequence under `key`, depending on that alone (not on the rest of it).
        The sequence is made a set once (each of thousands of stories asks whether its issue is shown)."""
        self._tracker.note(f"{self._name}{SEP}{key}{SEP}{EXISTS}{item}")
        sets: dict[Any, frozenset[Any]] = self.__dict__.setdefault("_sets", {})  # only the few asked this
        found = sets.get(key)
        if found is None:
            found = sets[key] = frozenset(self._data[key])
        return item in found


@dataclasses.dataclass(frozen=True)
class TrackedRecord(Record):
    """A record whose fields note reads one by one, and each language's text field by field.

    A page that shows a story's English headline depends on that headline, not on the
    story's Hungarian text or its body: editing one language of a record leaves the other
    language's pages alone, and editing a body leaves the lists that show headlines alone.
    """

    raw: Mapping[str, Any] = dataclasses.field(default_factory=dict, compare=False, repr=False)
    tracker: Tracker = dataclasses.field(default_factory=Tracker, compare=False, repr=False)
    name: str = ""
    texts: dict[str, TrackedMapping] = dataclasses.field(default_factory=dict, compare=False, repr=False)

    def text(self, lang: str) -> Mapping[str, Any]:
        found = self.texts.get(lang)
        if found is None:
            found = self.texts[lang] = TrackedMapping(f"{self.name}{SEP}{lang}", self.raw.get(lang) or {},
                                                      self.tracker)
        return found

    def has(self, lang: str) -> bool:
        # Whether a language has text depends on its field list only (empty or not), not on the text.
        self.tracker.note(f"{self.name}{SEP}{lang}{SEP}{ALL}")
        return bool(self.raw.get(lang))


def untracked(record: Record) -> Record:
    """The plain record behind a view: for a value kept across pages whose reads already stand for
    every field it will be asked for (see Planner.kept), so reading them again notes nothing."""
    if isinstance(record, TrackedRecord):
        return Record(record.kind, record.key, record.raw, record.content_hash, record.version)
    return record


class TrackedRecords(TrackedMapping):
    """A collection of records: looking one up depends on its existence; its fields note their own reads."""

    def __init__(self, name: str, data: Mapping[Any, Any], tracker: Tracker) -> None:
        super().__init__(name, data, tracker)
        self._views: dict[Any, TrackedRecord] = {}

    def __getitem__(self, key: Any) -> Any:
        """The record's view. A lookup that fails depends on the record's absence; one that succeeds
        notes nothing itself: what the page shows of the record are reads of its fields, and the key
        it looked up came from a read of its own (a list, a relation, a link target), which changes
        when the record goes (or `check` stops the build: a relation or a link to nothing)."""
        view = self._views.get(key)
        if view is None:
            record = self._data.get(key)
            if record is None:
                self._tracker.note(f"{self._name}{SEP}{EXISTS}{key}")
                raise KeyError(key)
            name = f"{self._name}{SEP}{key}"
            view = self._views[key] = TrackedRecord(record.kind, record.key, TrackedMapping(name, record.data,
                                                    self._tracker), record.content_hash, record.version,
                                                    record.data, self._tracker, name)
        return view

    #: The record's view, or `default` after noting its absence: through `__getitem__`, as any mapping's.
    get = Mapping.get


def whole_value(mapping: Mapping[Any, Any]) -> Mapping[Any, Any]:
    """The plain mapping behind a tracked one, depending on all of it (its every key and value): for a
    reader of most of it, such as the search index of a record's text, one read instead of one per
    key, and its keys read without noting anything. An untracked mapping is itself."""
    if isinstance(mapping, TrackedMapping):
        mapping._tracker.note(mapping._name)
        return mapping._data
    return mapping


def unnoted(mapping: Mapping[Any, Any]) -> Mapping[Any, Any]:
    """The plain mapping behind a tracked one, read without noting anything: for a value whose use a
    page notes by another, narrower read (a story's term forms stand for the term matcher). An
    untracked mapping is itself."""
    return mapping._data if isinstance(mapping, TrackedMapping) else mapping


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


#: The fields of Content that hold records.
RECORDS = ("entries", "pages", "issues", "stories")


def track_content(content: Content, tracker: Tracker) -> TrackedContent:
    """A view of `content` that notes reads into `tracker` (every mapping field, by field name; records
    field by field)."""
    fields = {f.name: TrackedRecords(f"content.{f.name}", getattr(content, f.name), tracker) if f.name in RECORDS
              else _wrap(f"content.{f.name}", getattr(content, f.name), tracker)
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
