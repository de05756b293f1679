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

import ast
import copy
import dataclasses
import hashlib
import marshal
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from newsroom.build.memos import Memo
from newsroom.build.model import Content, Record
from newsroom.build.state import READS_FORMAT

T = TypeVar("T")

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


class Remembered:
    """Parts of an output remembered across builds with what they read: a part whose every read has
    the value it had is not made again, and its reads are noted as if it were.

    A feed shows the full text of the latest issues: an edit to one of them remakes the feed, and
    with it each issue's HTML (Jinja, Markdown, the glossary's terms linked in every story) — where
    that issue's alone is new. A part is a pure function of what it reads through the tracked views
    and of what `inputs` names (the code, settings and templates it is made with), as a page is
    (see the module doc); so the same reads, with the same values, give the same part. Each part is
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


def _lookup(mapping: Mapping[Any, Any], item: str) -> Any:
    """The value under `item`, whose key may have been an int (issue numbers) before it became text."""
    if item in mapping:
        return mapping[item]
    if item.lstrip("-").isdigit() and int(item) in mapping:
        return mapping[int(item)]
    return _MISSING
