"""Alphabetical order of glossary headwords in Hungarian and English.

No maintained ICU wheel is available, so this module builds a small
multi-level collation key by hand, the way dictionaries order words:

1. **primary** – the letters of the alphabet, ignoring case, spaces, hyphens
   and punctuation. Runs of digits come before letters and compare as numbers
   ("Trainium2" < "Trainium10"). Hungarian letters are those of *A magyar
   helyesírás szabályai* (MSZ): the digraphs cs dz gy ly ny sz ty zs and the
   trigraph dzs are single letters; á é í ó ú sort with a e i o u, ő with ö
   and ű with ü, while o/ö and u/ü are distinct letters. Latin letters with
   other diacritics fold to their base letter (ç → c, ř → r, ø → o).
2. **secondary** – short before long vowel (kor < kór), then other accents.
3. **tertiary** – lowercase before uppercase.
4. the original string, so the order is total and deterministic.

Known limitation: compound boundaries cannot be seen without a dictionary.
"pácsó" (pác + só) reads as p-á-cs-ó and "kisszék" (kis + szék) as
k-i-sz-sz-é-k; the digraph reading is always chosen, and a doubled digraph
(ccs, ddz, ddzs, ggy, lly, nny, ssz, tty, zzs) always counts as two letters.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

HU_ALPHABET_HEADINGS: tuple[str, ...] = (
    "A", "B", "C", "Cs", "D", "Dz", "Dzs", "E", "F", "G", "Gy", "H", "I", "J",
    "K", "L", "Ly", "M", "N", "Ny", "O", "Ö", "P", "Q", "R", "S", "Sz", "T",
    "Ty", "U", "Ü", "V", "W", "X", "Y", "Z", "Zs",
)
"""The Hungarian index letters in dictionary order."""

EN_ALPHABET_HEADINGS: tuple[str, ...] = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
"""The English index letters in order."""

OTHER_HEADING = "#"
"""The index group of words that start with a digit, a symbol or a non-Latin letter."""

# One unit of the primary level: (0, digit count, digits) for a number,
# (1, rank) for a letter of the alphabet, (2, char) for any other letter.
Unit = tuple[int, int, str] | tuple[int, int] | tuple[int, str]

_PLAIN, _LONG, _FOLDED = 0, 1, 2  # secondary weights of one letter
_SEPARATOR = None  # a space or punctuation: ignorable, but it ends a digraph

# Letters that Unicode does not decompose but readers see as accented Latin.
_UNDECOMPOSABLE = {"æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d",
                   "ı": "i", "þ": "th", "ħ": "h", "ŧ": "t", "ŀ": "l"}


@dataclass(frozen=True, eq=False)
class _Alphabet:
    """The letters of one language and how its spelling maps onto them."""

    ranks: dict[str, int]             # lowercase letter (multigraphs too) -> position
    long_vowels: dict[str, str]       # kept accented vowel -> base at primary level
    kept: frozenset[str]              # accented letters that must not be folded
    multigraphs: tuple[str, ...]      # longest first
    doubled: dict[str, str]           # "ssz" -> "sz": written once, counts twice


_HU_LONG = {"á": "a", "é": "e", "í": "i", "ó": "o", "ő": "ö", "ú": "u", "ű": "ü"}
_HU = _Alphabet(
    ranks={heading.lower(): rank for rank, heading in enumerate(HU_ALPHABET_HEADINGS)},
    long_vowels=_HU_LONG,
    kept=frozenset("áéíóöőúüű"),
    multigraphs=("dzs", "cs", "dz", "gy", "ly", "ny", "sz", "ty", "zs"),
    doubled={"ddzs": "dzs", "ccs": "cs", "ddz": "dz", "ggy": "gy", "lly": "ly",
             "nny": "ny", "ssz": "sz", "tty": "ty", "zzs": "zs"},
)
_EN = _Alphabet(
    ranks={heading.lower(): rank for rank, heading in enumerate(EN_ALPHABET_HEADINGS)},
    long_vowels={}, kept=frozenset(),
    multigraphs=(), doubled={},
)


@dataclass(frozen=True)
class _Atom:
    """One folded character: a lowercase letter or a decimal digit."""

    char: str
    secondary: int
    upper: bool


def _alphabet(lang: str) -> _Alphabet:
    if lang == "hu":
        return _HU
    if lang == "en":
        return _EN
    raise ValueError(f"unsupported collation language: {lang!r} (expected 'hu' or 'en')")


@lru_cache(maxsize=1 << 12)  # a glossary's headwords use a few dozen characters, folded once each
def _fold_char(char: str, alphabet: _Alphabet) -> tuple[_Atom | None, ...]:
    """Fold one character to atoms; None marks a separator."""
    upper = char.isupper() or char.istitle()
    lower = char.lower()
    if lower in alphabet.kept:
        base = alphabet.long_vowels.get(lower, lower)
        return (_Atom(base, _LONG if base != lower else _PLAIN, upper),)
    if unicodedata.category(char) == "Cf":
        return ()  # zero-width joiners, direction marks, soft hyphens: invisible
    decomposed = unicodedata.normalize("NFKD", char)
    accented = any(unicodedata.combining(mark) for mark in decomposed)
    atoms: list[_Atom | None] = []
    for part in decomposed:
        if unicodedata.combining(part):
            continue
        for folded in part.casefold():
            for plain in _UNDECOMPOSABLE.get(folded, folded):
                if plain.isdecimal():
                    atoms.append(_Atom(str(unicodedata.decimal(plain)), _PLAIN, False))
                elif plain.isalpha():
                    weight = _FOLDED if accented or plain != folded else _PLAIN
                    atoms.append(_Atom(plain, weight, upper))
                else:
                    atoms.append(_SEPARATOR)
    return tuple(atoms)


def _atoms(text: str, alphabet: _Alphabet) -> list[_Atom | None]:
    """The folded characters of `text`, NFC-normalised first so ő == o + U+030B."""
    atoms: list[_Atom | None] = []
    for char in unicodedata.normalize("NFC", text):
        atoms.extend(_fold_char(char, alphabet))
    return atoms


def _letter_run(atoms: list[_Atom | None], start: int, limit: int) -> str:
    """Up to `limit` unaccented letters from `start`; a separator or digit ends it."""
    run = ""
    for atom in atoms[start:start + limit]:
        if atom is None or atom.char.isdecimal() or atom.secondary != _PLAIN:
            break
        run += atom.char
    return run


def _units(text: str, alphabet: _Alphabet) -> list[tuple[Unit, int]]:
    """The primary units of `text`, each with its secondary weight."""
    atoms = _atoms(text, alphabet)
    units: list[tuple[Unit, int]] = []
    index = 0
    while index < len(atoms):
        atom = atoms[index]
        if atom is None:
            index += 1
        elif atom.char.isdecimal():
            end = index
            while end < len(atoms) and (nxt := atoms[end]) is not None and nxt.char.isdecimal():
                end += 1
            digits = "".join(a.char for a in atoms[index:end] if a is not None)
            number = digits.lstrip("0") or "0"
            units.append(((0, len(number), number), len(digits) - len(number)))
            index = end
        else:
            index = _letter_units(atoms, index, alphabet, units)
    return units


def _letter_units(atoms: list[_Atom | None], index: int, alphabet: _Alphabet,
                  units: list[tuple[Unit, int]]) -> int:
    """Append the letter (or doubled digraph) starting at `index`; return the next index."""
    atom = atoms[index]
    assert atom is not None
    run = _letter_run(atoms, index, 4) if atom.secondary == _PLAIN else atom.char
    for written, letter in alphabet.doubled.items():
        if run.startswith(written):
            units.extend([(_letter_unit(letter, alphabet), _PLAIN)] * 2)
            return index + len(written)
    for letter in alphabet.multigraphs:
        if run.startswith(letter):
            units.append((_letter_unit(letter, alphabet), _PLAIN))
            return index + len(letter)
    units.append((_letter_unit(atom.char, alphabet), atom.secondary))
    return index + 1


def _letter_unit(letter: str, alphabet: _Alphabet) -> Unit:
    rank = alphabet.ranks.get(letter)
    return (2, letter) if rank is None else (1, rank)


@lru_cache(maxsize=1 << 16)  # the index, letter and category pages sort the same headwords again and again
def sort_key(text: str, lang: str) -> tuple[object, ...]:
    """A key that orders words as a `lang` ("hu" or "en") dictionary does.

    Use with ``sorted(words, key=lambda w: sort_key(w, "hu"))``. Two keys are
    equal only for equal strings, so sorting is total and deterministic.
    """
    alphabet = _alphabet(lang)
    units = _units(text, alphabet)
    primary = tuple(unit for unit, _ in units)
    secondary = tuple(weight for _, weight in units)
    tertiary = tuple(int(atom.upper) for atom in _atoms(text, alphabet) if atom is not None)
    return (primary, secondary, tertiary, text)


def alphabet_headings(lang: str) -> tuple[str, ...]:
    """Every index letter of `lang` in order, for an A–Z bar that shows the whole alphabet."""
    _alphabet(lang)  # refuses an unsupported language
    return HU_ALPHABET_HEADINGS if lang == "hu" else EN_ALPHABET_HEADINGS


@lru_cache(maxsize=1 << 16)
def letter_heading(text: str, lang: str) -> str:
    """The A–Z index group of `text`: its first letter at the primary level.

    Hungarian: "ábra" → "A", "őz" → "Ö", "csiga" → "Cs", "dzsungel" → "Dzs".
    Leading punctuation is skipped as in `sort_key` ("„Okos”" → "O"), so a
    word's group agrees with its place in the sorted index; a word that starts
    with a digit or a non-Latin letter, or has no letters, gives `OTHER_HEADING`.
    """
    headings = HU_ALPHABET_HEADINGS if lang == "hu" else EN_ALPHABET_HEADINGS
    primary = sort_key(text, lang)[0]  # the index sorts by it first: its units are worked out once
    if not primary:
        return OTHER_HEADING
    first = primary[0]
    assert isinstance(first, tuple)
    if first[0] != 1:
        return OTHER_HEADING
    rank = first[1]
    assert isinstance(rank, int)
    return headings[rank]
