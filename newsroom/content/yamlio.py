"""YAML in and out: parsing that remembers the line of every value, canonical dumping."""

from __future__ import annotations

import re
from typing import Any

import orjson
import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from newsroom.diagnostics import ContentError, Diagnostic, FieldPath, dotted

Path = FieldPath

#: libyaml's parser when PyYAML was built with it (several times faster on large imports), else pure Python.
_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse(text: str, location: str, written: dict[Path, str] | None = None,
          problems: list[Diagnostic] | None = None) -> tuple[Any, dict[Path, int]]:
    """Parse one YAML document; returns the data and the line of every value by path.

    Raises ContentError (with the parser's line) for malformed YAML, after which nothing else of the file
    can be checked. Every duplicate key (which plain YAML loaders silently collapse: the first value is
    kept here), every key that is no plain name and every alias (no value here) is named: in `problems`
    when given, the rest of the file then checked as well; else in the ContentError raised once the whole
    document is read.
    `written` receives the text as written of every plain value YAML reads as something else than text
    (`2026-11-05`, `1.50`, `yes`), by path: a text field takes that (see validator.Validator).
    """
    lines: dict[Path, int] = {}
    found: list[Diagnostic] = [] if problems is None else problems
    try:
        # The reader refuses control characters already here, so this belongs inside the try.
        loader = _LOADER(text)
    except yaml.YAMLError as error:
        raise ContentError([Diagnostic(location, None, "", f"malformed YAML: {error}{_UNCHECKED}")]) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return None, lines
        data = _Builder(loader, location, lines, {} if written is None else written, found).construct(node, ())
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark else None
        problem = " ".join(p for p in (error.context, error.problem) if p)
        raise ContentError([Diagnostic(location, line, "", f"malformed YAML: {problem}{_UNCHECKED}")]) from None
    except yaml.YAMLError as error:
        raise ContentError([Diagnostic(location, None, "", f"malformed YAML: {error}{_UNCHECKED}")]) from None
    finally:
        loader.dispose()
    if problems is None and found:
        raise ContentError(found)
    return data, lines


#: Said after a file's YAML error: its fields cannot be read, so none of them was checked yet.
_UNCHECKED = " (the file's fields are checked once it parses)"


class _Builder:
    """Builds a document's values from its nodes, noting each one's line (and, for a plain value YAML reads
    as no text, its text as written), and each duplicate or non-name key and each alias as a problem."""

    def __init__(self, loader: yaml.SafeLoader, location: str, lines: dict[Path, int], written: dict[Path, str],
                 problems: list[Diagnostic]) -> None:
        self.loader, self.location, self.lines, self.written, self.problems = loader, location, lines, written, problems
        self.seen: set[int] = set()

    def construct(self, node: Node, path: Path, where: int | None = None) -> Any:
        """The value of `node` at `path`; `where` is the line of its key (or its list), for an alias, whose
        node is the one it names, at that one's line."""
        if id(node) in self.seen:
            # An alias (*name) of a value anchored (&name) earlier. Content files have no use for them (an
            # export writes none), and aliases of aliases make a few lines stand for billions of values: it
            # is named, and stands for no value (the one it names is not read again).
            self.problems.append(Diagnostic(self.location, where, dotted(path), (
                f"a YAML alias of the value at line {node.start_mark.line + 1}: content files take no anchors "
                "(&name) or aliases (*name); write the value out")))
            return None
        self.seen.add(id(node))
        self.lines[path] = node.start_mark.line + 1
        if isinstance(node, MappingNode):
            return self._mapping(node, path)
        if isinstance(node, SequenceNode):
            return [self.construct(item, (*path, i), self.lines[path]) for i, item in enumerate(node.value)]
        value = _scalar(self.loader, node)
        if value is not None and not isinstance(value, str):
            self.written[path] = node.value
        return value

    def _mapping(self, node: MappingNode, path: Path) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = _scalar(self.loader, key_node) if isinstance(key_node, ScalarNode) else None
            line = key_node.start_mark.line + 1
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                self.problems.append(Diagnostic(self.location, line, dotted(path), "keys must be plain names"))
                continue
            key = str(key)
            if key in result:
                self.problems.append(Diagnostic(self.location, line, dotted((*path, key)), (
                    f"duplicate key (also at line {self.lines[(*path, key)]}): keep one of them")))
                continue
            result[key] = self.construct(value_node, (*path, key), line)
            self.lines[(*path, key)] = line  # editors look for the key
        return result


_STR = "tag:yaml.org,2002:str"


def _scalar(loader: yaml.SafeLoader, node: ScalarNode) -> Any:
    """A scalar's value: a string's is the node's own (what the constructor returns for it, without its
    round of lookups: most of a file's values are strings), anything else's the constructor's.

    A value of a type's form that the type refuses (`2026-02-30` and `2026-13-01`, which YAML reads as
    dates, `25:00` in a time, `!!int ten`) is its text as written: the field it stands in then names it
    with what it expects (`expected a date as YYYY-MM-DD, got '2026-02-30'`), in every kind of file and
    in `edit --set`, as it names a date written any other wrong way.
    """
    if node.tag == _STR:
        return node.value
    try:
        return loader.construct_object(node, deep=True)
    except (ValueError, TypeError, KeyError, AttributeError, OverflowError):
        return node.value


def plain(text: str) -> Any:
    """What YAML reads `text`, written as a plain value in a file, as: a date, a number, a yes/no, null, or
    else the text itself (never a list or a mapping: `Chips: the week` is text)."""
    tag = yaml.resolver.Resolver().resolve(ScalarNode, text, (True, False))
    loader = yaml.SafeLoader("")
    try:
        return _scalar(loader, ScalarNode(tag, text))
    finally:
        loader.dispose()


class _NoAliases:
    """A dumper that writes every value out: content files take no anchors or aliases (see `_Builder`)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


class _CanonicalDumper(_NoAliases, yaml.SafeDumper):
    """Block scalars for multi-line text, no aliases, keys in the order given."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value + "\n", style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_CanonicalDumper.add_representer(str, _represent_str)

_OPTIONS: dict[str, Any] = {"sort_keys": False, "allow_unicode": True, "width": 100, "default_flow_style": False}

if hasattr(yaml, "CSafeDumper"):
    class _FastDumper(_NoAliases, yaml.CSafeDumper):  # type: ignore[misc,name-defined]
        """`_CanonicalDumper` on libyaml's emitter, which writes the same bytes ten times faster (an export
        of the ten-year benchmark archive: 23 s of emitting in Python, 2.7 s in C) but for what `dump`
        leaves to the Python emitter or mends."""

    _FastDumper.add_representer(str, _represent_str)
else:  # PyYAML built without libyaml
    _FastDumper = None

#: Text the two emitters write differently, left to the Python one: characters beyond the Basic
#: Multilingual Plane (emoji, rare CJK), which libyaml escapes ("\U0001F680") where the Python emitter
#: writes them as they are, for editors to read; and the Unicode line breaks (NEL, LS, PS).
_PYTHON_ONLY = re.compile("[\x85\u2028\u2029\U00010000-\U0010FFFF]")
#: Where a double-quoted scalar starts (after a key or a list's dash, or a line's indent): one too long for a
#: line is folded by libyaml where the Python emitter escapes the break (`\` then `\ ` on the next line).
_DOUBLE_QUOTED = re.compile(r'(?m)(?:: |- |^ *)"')
#: The document end marker libyaml writes after a document holding any block that keeps its final line
#: breaks (`|+`), and the Python emitter only where that block is the document's last scalar.
_DOCUMENT_END = "\n...\n"


def dump(data: Any) -> str:
    """Serialise a record canonically: same record, same bytes. The bytes are those of PyYAML's Python
    emitter (`_CanonicalDumper`), written by libyaml's wherever it writes them alike."""
    if _FastDumper is None or not isinstance(data, dict) or _python_only(data):
        return yaml.dump(data, Dumper=_CanonicalDumper, **_OPTIONS)
    text = yaml.dump(data, Dumper=_FastDumper, **_OPTIONS)
    if _DOUBLE_QUOTED.search(text):  # a line of it may be folded otherwise (a text starting with a BOM)
        return yaml.dump(data, Dumper=_CanonicalDumper, **_OPTIONS)
    if text.endswith(_DOCUMENT_END):
        if _ends_keeping_breaks(data):  # the marker is the Python emitter's too, or not: it alone says
            return yaml.dump(data, Dumper=_CanonicalDumper, **_OPTIONS)
        text = text[:-len(_DOCUMENT_END) + 1]
    return text


def _python_only(data: Any) -> bool:
    """Whether `data` holds text of `_PYTHON_ONLY` (searched in its JSON, which orjson writes as it is)."""
    try:
        return _PYTHON_ONLY.search(orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()) is not None
    except TypeError:  # a value JSON has no form for: as if it held such text
        return True


def _ends_keeping_breaks(data: Any) -> bool:
    """Whether the last scalar `dump` writes is text whose block keeps its final line breaks (`|+`)."""
    while isinstance(data, (dict, list, tuple)) and data:
        data = list(data.values())[-1] if isinstance(data, dict) else data[-1]
    return isinstance(data, str) and "\n" in data and data.endswith("\n")
