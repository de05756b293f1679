"""The regular expression a term matcher compiles its forms into: one trie of them, so a text is
scanned once, not once per form (see glossary.matching)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass
class _Node:
    """A trie node; keys are characters, or " " for a whitespace run."""

    children: dict[str, _Node] = field(default_factory=dict)
    terminal: bool = False


def _atom(key: str, case_sensitive: bool) -> str:
    """The regex for one trie edge."""
    if key == " ":
        return r"\s+"
    if case_sensitive:
        return re.escape(key)
    variants = sorted({v for v in (key, key.lower(), key.upper(), key.title()) if len(v) == 1})
    if len(variants) == 1:
        return re.escape(key)
    return "[" + "".join(re.escape(v) for v in variants) + "]"


def _render(node: _Node, atoms: dict[str, str], fold: bool = False) -> str:
    """The regex of a trie: longer continuations are tried before stopping here.

    `atoms` maps each edge key to its regex, memoised across the trie. With `fold` (a trie of
    folded keys, matched ignoring case), a run of two or more ASCII letters is one group matched
    ignoring ASCII case only, `(?ai:data)` — the same strings as `[dD][aA][tT][aA]` (an ASCII
    letter's other case is its only variant), parsed, compiled and searched faster.
    """
    branches = []
    for key, child in sorted(node.children.items()):
        chain = [key]
        while len(child.children) == 1 and not child.terminal:  # a run of one-way nodes
            ((key, child),) = child.children.items()
            chain.append(key)
        branches.append(_chain(chain, atoms, fold) + _render(child, atoms, fold))
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return "(?:" + body + ")?" if node.terminal else body


def _chain(keys: list[str], atoms: dict[str, str], fold: bool) -> str:
    """The regex of a run of trie edges (see `_render`)."""
    if not fold:
        return "".join(atoms[key] for key in keys)
    parts: list[str] = []
    letters: list[str] = []  # the current run of ASCII letters
    for key in [*keys, ""]:
        if key and key.isascii() and key.isalpha():
            letters.append(key)
            continue
        if len(letters) > 1:
            parts.append("(?ai:" + "".join(letters) + ")")
        elif letters:
            parts.append(atoms[letters[0]])
        letters = []
        if key:
            parts.append(atoms[key])
    return "".join(parts)


def _trie(keys: Iterable[str]) -> _Node:
    root = _Node()
    for key in keys:
        node = root
        for char in key:
            node = node.children.setdefault(char, _Node())
        node.terminal = True
    return root


def compile(keys: Iterable[str], case_sensitive: bool, suffix: str) -> re.Pattern[str] | None:
    """The pattern that finds any of `keys`, then `suffix`, with no word or dotted name going on at either
    side; None for no key."""
    root = _trie(keys)
    if not root.children:
        return None
    keys_used: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        keys_used.update(node.children)
        stack.extend(node.children.values())
    trie = _render(root, {key: _atom(key, case_sensitive) for key in keys_used}, fold=not case_sensitive)
    firsts = set(root.children)
    if not case_sensitive:  # each first key as its atom matches it: in either case (see _atom, _render)
        firsts = {variant for key in firsts
                  for variant in (key, key.lower(), key.upper(), key.title(), key.swapcase()) if len(variant) == 1}
    # Neither a word character nor a dotted name's next part on either side (see the module's docstring):
    # in the pattern, so that a longer label refused there leaves a shorter one to match.
    return re.compile(rf"(?<!\w)(?<!\w\.){_starts(firsts)}(?P<stem>{trie})(?P<suffix>{suffix})(?!\w|\.\w)")


def _starts(chars: set[str]) -> str:
    """A lookahead for a character of `chars`, put before a trie whose every branch starts with one: the
    regex engine tries a trie's branches one after the other at each position, and most positions start
    none. Nothing when one of them is a whitespace run's key."""
    if " " in chars:
        return ""
    return "(?=[" + "".join(re.escape(char) for char in sorted(chars)) + "])"
