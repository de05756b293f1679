"""Finding mentions of glossary terms in story text.

A `TermMatcher` compiles every label of one language into two trie-shaped
regular expressions – one for labels matched case-sensitively, one for the
rest – so a story is scanned once, not once per term (the naive loop over
~8,000 labels per story would be thousands of times slower).

Rules, in the editors' terms:

- whole words only: a letter, digit or underscore on either side blocks the
  match ("Trainium2" is not "Trainium", "STPU" is not "TPU");
- a label with a capital after its first letter, or a lone capital ("GPU",
  "AWS Inferentia", "MI-chip", "iPhone", "C"), matches only as written;
  other labels ignore case ("Adatközpont" matches "adatközpont");
- accents are significant, after NFC normalisation of both sides;
- whitespace in a label matches any run of whitespace (incl. no-break space);
- Hungarian allows a suffix of lowercase letters after a label ending in a
  lowercase letter ("Trainiummal", "adatközpontokban", with a final a/e
  lengthened: "intelligenciát"), or a hyphen and lowercase letters after any
  label ("GPU-kat", "Trainium2-vel", "Shakespeare-rel"); "GPUk" and "AWSome"
  are not mentions. Other stem changes (kő → követ, bokor → bokrot) are not
  recognised: list such forms as match-only labels; nor is an all-capitals
  inflected form ("ADATKÖZPONTBAN"). English allows only
  plural and possessive endings ("GPUs", "data centers", "AWS’s");
- mentions never overlap; scanning left to right, the longest label wins;
- a name in a dotted name is no mention: a letter, digit or underscore right after a "." that
  follows it, or right before a "." that precedes it, blocks the match ("trainium.example.com",
  "aws.trainium", "model.gpu"); a sentence's full stop does not ("on Trainium. Next", "Trainium.");
- nor is a name inside an address written as text: a URL ("https://example.com/gpu-guide",
  "www.example.com/gpu", "example.com/gpu") or an e-mail address ("gpu@example.com"). Code is
  Markdown's to tell (see glossary.mentions), and the HTML linker's (see glossary.linking).

The patterns are tried only where a label's first word starts (lowercased):
an Aho–Corasick automaton over those words finds the places in one pass at C
speed, where the regular expression engine would try every position of the
text (most of a build's matching time, see `TermMatcher._starts_at`).

Known limitation: without a dictionary a Hungarian suffix cannot be told from
a compound, so "chipset" is a mention of "chip", "korszak" of "kor", and
"GPU-gyártó" of "GPU" (the surface spans the whole hyphenated word). Words
known to be false friends can be listed in ``exclude``.
"""

from __future__ import annotations

import bisect
import itertools
import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

import ahocorasick

from glossary import folding, term_patterns
from glossary.folding import is_case_sensitive, lengthened_stem, normalise_label, normalise_text

_HU_LOWER = "a-záéíóöőúüűàâãäåæçèêëìîïðñòôõøùûýþÿß"
_NOT_WORD = re.compile(r"\W")
_SUFFIX = {
    # Letters attach directly only to a stem ending in a lowercase letter
    # ("Trainiumot"); after a capital or digit Hungarian needs a hyphen ("GPU-t").
    "hu": rf"(?:(?<=[{_HU_LOWER}])[{_HU_LOWER}]+|-[{_HU_LOWER}]+)?",
    "en": r"(?:es['’]|s['’]|['’]s|es|s)?",
}


@dataclass(frozen=True)
class Term:
    """One glossary entry as the matcher sees it."""

    slug: str                 # the glossary entry
    labels: tuple[str, ...]   # headword, aliases and match-only forms in ONE language


#: Joins the texts `TermMatcher.find_each` searches at once.
_SEPARATOR = "\x00"


class Mention(NamedTuple):
    """Where a term occurs in a text; offsets index the text given to `find` (a named tuple: quicker
    to make than a frozen dataclass, and a build makes one per mention in every story it matches)."""

    slug: str
    start: int
    end: int
    surface: str   # the text as found, suffix included


class TermMatcher:
    """Finds mentions of glossary terms in texts of one language ("hu" or "en").

    Build it once per language and reuse it: compiling (on the first search) is the expensive part.
    A label claimed by two terms belongs to the first one given. The first searches (a rebuild
    matching one edited story) skip that: each uses a matcher of only the forms whose first word
    occurs in the text — no other form can match there — compiled in a moment. Once the narrowed
    matchers have compiled a share of all the forms, the whole one is compiled instead.
    """

    #: The share of all forms narrowed matchers may compile before the whole matcher is.
    NARROW_SHARE = 0.25
    #: Whether a search tries the patterns only where a form's first word starts (see `_starts_at`);
    #: else at every position of the text, as the patterns alone would (the same mentions, slower).
    PREFILTER = True

    def __init__(self, terms: Iterable[Term], lang: str, *, exclude: Collection[str] = ()) -> None:
        """`exclude` lists words (lowercase) that are never mentions, e.g. "chipset"."""
        if lang not in _SUFFIX:
            raise ValueError(f"unsupported matching language: {lang!r} (expected 'hu' or 'en')")
        self.lang = lang
        self._exclude = tuple(sorted({folding.fold(word) for word in exclude if word}))
        self._sensitive: dict[str, str] = {}
        self._insensitive: dict[str, str] = {}
        labels = [(label, term.slug) for term in terms
                  for label in map(normalise_label, term.labels) if label]
        stems = [(stem, slug) for label, slug in labels if (stem := lengthened_stem(label, lang))]
        # Labels as written come first, so a lengthened stem never takes another term's label.
        for form, slug in [*labels, *stems]:
            if is_case_sensitive(form):
                self._sensitive.setdefault(form, slug)
            else:
                self._insensitive.setdefault(folding.fold(form), slug)
        self._narrow_left = int((len(self._sensitive) + len(self._insensitive)) * self.NARROW_SHARE)

    def forms(self) -> tuple[dict[str, str], dict[str, str], tuple[str, ...]]:
        """What it matches: {form matched as written: slug}, {folded form: slug} and the excluded words
        (plain values: a build remembers them, and `from_forms` makes the same matcher again without
        normalising and classifying every label)."""
        return dict(self._sensitive), dict(self._insensitive), self._exclude

    @classmethod
    def from_forms(cls, lang: str, sensitive: Mapping[str, str], insensitive: Mapping[str, str],
                   exclude: Iterable[str] = ()) -> TermMatcher:
        """The matcher whose `forms()` these are."""
        if lang not in _SUFFIX:
            raise ValueError(f"unsupported matching language: {lang!r} (expected 'hu' or 'en')")
        matcher = cls.__new__(cls)
        matcher.lang, matcher._exclude = lang, tuple(exclude)
        matcher._sensitive, matcher._insensitive = dict(sensitive), dict(insensitive)
        matcher._narrow_left = int((len(matcher._sensitive) + len(matcher._insensitive)) * cls.NARROW_SHARE)
        return matcher

    def compile(self) -> None:
        """Compile the whole matcher now: before forking processes that will each search many texts."""
        self._narrow_left = 0
        self._patterns  # noqa: B018 (a cached property: computed here, once)
        self._first_words_found  # noqa: B018 (the same)

    @cached_property
    def _first_words(self) -> tuple[dict[str, list[str]], dict[str, list[str]], list[int]]:
        """The forms by their first word (of the folded key, for forms that ignore case), and the
        lengths of those words."""
        sensitive: dict[str, list[str]] = {}
        insensitive: dict[str, list[str]] = {}
        for forms, index in ((self._sensitive, sensitive), (self._insensitive, insensitive)):
            for form in forms:
                index.setdefault(form.split(" ", 1)[0], []).append(form)
        return sensitive, insensitive, sorted({len(first) for first in (*sensitive, *insensitive)})

    def _narrowed(self, text: str) -> TermMatcher:
        """A matcher of the forms that can occur in `text` (see the class docstring).

        A match starts where no word character precedes it, and stands only when the matched
        text, folded, is the form's key (see `_next`); folding works character by character. So a
        form can match only where its key's first word is the folded text at such a start.

        The starts looked at are those where a first word starts in the lowercased text, found by the
        automaton (see `_starts_at`): a few dozen in a story, where a word starts at hundreds; every
        word's start when the automaton is not used for the text.
        """
        normal = normalise_text(text)[0]
        folded = folding.fold(normal)
        sensitive, insensitive, lengths = self._first_words
        places = self._starts_at(normal)
        if places is None:
            starts = [0, *(match.end() for match in _NOT_WORD.finditer(normal))]
        else:
            starts = [start for start in places if not start or _NOT_WORD.match(normal, start - 1)]
        forms: set[str] = set()
        keys: set[str] = set()
        for start in starts:
            for length in lengths:
                forms.update(sensitive.get(normal[start:start + length], ()))
                keys.update(insensitive.get(folded[start:start + length], ()))
        # One per set of forms: a story's source, its page's text runs and its plain text hold the same
        # first words, and many texts none.
        made = self.__dict__.setdefault("_narrow_made", {})
        found = (tuple(sorted(forms)), tuple(sorted(keys)))
        narrow = made.get(found)
        if narrow is None:
            narrow = made[found] = TermMatcher.__new__(TermMatcher)
            narrow.lang, narrow._exclude, narrow._narrow_left = self.lang, self._exclude, 0
            # Made from the few forms found, not by going through all of them (the matcher's regex sorts them).
            narrow._sensitive = {form: self._sensitive[form] for form in found[0]}
            narrow._insensitive = {key: self._insensitive[key] for key in found[1]}
        return narrow

    @cached_property
    def _first_words_found(self) -> ahocorasick.Automaton | None:
        """Every form's first word, lowercased, in an automaton that finds them all in a text at once
        (each with its length); None when there is no form."""
        sensitive, insensitive, _ = self._first_words
        return automaton((word, len(word)) for word in {word.lower() for word in (*sensitive, *insensitive)})

    def _starts_at(self, text: str) -> list[int] | None:
        """The places in `text` (normalised) where a form can match, in order: where one's first word
        starts in the text lowercased. None: every place (see PREFILTER).

        A form matches only where the text, folded, is its key (`_next` looks the matched text up):
        folding lowercases character by character, so the key's first word is then the lowercased
        text there, whatever the patterns accept before that lookup. Lowercasing a whole text is the
        same character by character unless a character lowercases to several (the lengths then
        differ) or a capital sigma ends a word (lowercased as a final one): such texts are searched
        at every place. (A form with a character that lowercases to several matches only where the
        text has that character: folding keeps it, and the pattern accepts no other.)
        """
        first_words = self._first_words_found if self.PREFILTER else None
        if first_words is None:
            return None
        lowered = text.lower()
        if len(lowered) != len(text) or "Σ" in text:
            return None
        return sorted({end - length + 1 for end, length in first_words.iter(lowered)})

    @cached_property
    def _patterns(self) -> list[tuple[re.Pattern[str], dict[str, str], bool]]:
        """The compiled tries, made on the first search: a build that matches no text never pays for them."""
        suffix = _SUFFIX[self.lang]
        return [
            (pattern, lookup, fold)
            for pattern, lookup, fold in (
                (term_patterns.compile(self._sensitive, True, suffix), self._sensitive, False),
                (term_patterns.compile(self._insensitive, False, suffix), self._insensitive, True),
            )
            if pattern is not None
        ]

    def __repr__(self) -> str:
        """Every form it matches, in a stable order: two matchers with one repr find the same mentions.

        The build's dependency records hash a matcher by its repr (see newsroom/build/values.py).
        """
        return (f"TermMatcher({self.lang!r}, {sorted(self._sensitive.items())!r}, "
                f"{sorted(self._insensitive.items())!r}, {self._exclude!r})")

    def find(self, text: str) -> list[Mention]:
        """Mentions in `text`, left to right, non-overlapping, longest label first."""
        if self._narrow_left > 0 and "_patterns" not in self.__dict__:
            narrow = self._narrowed(text)
            if "_patterns" in narrow.__dict__:  # made and compiled for an earlier text
                return narrow.find(text)
            forms = len(narrow._sensitive) + len(narrow._insensitive)
            if forms <= self._narrow_left:
                self._narrow_left -= forms
                return narrow.find(text)
            self._narrow_left = 0
            self.__dict__.pop("_narrow_made", None)  # the whole matcher from now on
        normal, starts, ends = normalise_text(text)
        places = self._starts_at(normal) if self._patterns else None
        pending: list[tuple[re.Match[str], str] | None] = [
            self._next(normal, 0, index, places) for index in range(len(self._patterns))]
        mentions: list[Mention] = []
        while found := [hit for hit in pending if hit is not None]:
            match, slug = min(found, key=lambda hit: (hit[0].start(), -hit[0].end("stem")))
            start, end = starts[match.start()], ends[match.end() - 1]
            if not mentions or start >= mentions[-1].end:
                mentions.append(Mention(slug, start, end, text[start:end]))
            # Only a pattern whose next match overlaps this one searches again.
            pending = [self._next(normal, match.end(), index, places)
                       if hit is not None and hit[0].start() < match.end() else hit
                       for index, hit in enumerate(pending)]
        return mentions

    def find_each(self, texts: Sequence[str]) -> list[list[Mention]]:
        """`[self.find(text) for text in texts]`, searched at once (a page's many short text runs).

        The texts are joined by a character no form contains, which is neither a word character
        nor a space: no match can span it, and at either side of it a match starts or ends as at
        a text's start or end. Texts that contain the separator, or start with a combining mark
        (it would join the separator when normalised), are searched one by one; so are texts of
        which one is not NFC-normalised: `find` ends a mention before a combining mark that follows
        it in a normalised text, but with it in one it normalises, so each is searched as it is.
        """
        if len(texts) < 2 or self._separator_in_forms or any(
                _SEPARATOR in text or (text and unicodedata.combining(text[0])) for text in texts):
            return [self.find(text) for text in texts]
        joined = _SEPARATOR.join(texts)
        if not unicodedata.is_normalized("NFC", joined):
            return [self.find(text) for text in texts]
        starts: list[int] = []
        position = 0
        for text in texts:
            starts.append(position)
            position += len(text) + len(_SEPARATOR)
        found: list[list[Mention]] = [[] for _ in texts]
        for mention in self.find(joined):
            index = bisect.bisect_right(starts, mention.start) - 1
            offset = starts[index]
            found[index].append(Mention(mention.slug, mention.start - offset, mention.end - offset, mention.surface))
        return found

    @cached_property
    def _separator_in_forms(self) -> bool:
        return any(_SEPARATOR in form for forms in (self._sensitive, self._insensitive) for form in forms)

    def slugs(self, text: str) -> set[str]:
        """The slugs of every term mentioned in `text`."""
        return {mention.slug for mention in self.find(text)}

    def _next(self, text: str, position: int, index: int, places: list[int] | None
              ) -> tuple[re.Match[str], str] | None:
        """The next acceptable match of pattern `index` at or after `position`: tried at each of
        `places` (see `_starts_at`) from there on, or searched for at every place."""
        pattern, lookup, fold = self._patterns[index]
        if places is None:
            while (match := pattern.search(text, position)) is not None:
                found = self._accepted(match, lookup, fold)
                if found is not None:
                    return match, found
                position = match.start() + 1
            return None
        for place in itertools.islice(places, bisect.bisect_left(places, position), None):
            match = pattern.match(text, place)
            if match is not None:
                found = self._accepted(match, lookup, fold)
                if found is not None:
                    return match, found
        return None

    def _accepted(self, match: re.Match[str], lookup: Mapping[str, str], fold: bool) -> str | None:
        """The slug of the form a match is, or None (the matched text folded is no form's key, or an
        excluded word)."""
        stem = " ".join(match["stem"].split())
        slug = lookup.get(folding.fold(stem) if fold else stem)
        if slug is None or self._excluded(match.group()) or in_address(match.string, match.start(), match.end()):
            return None
        return slug

    def _excluded(self, surface: str) -> bool:
        return bool(self._exclude) and folding.fold(surface).startswith(self._exclude)


#: How far from a match `in_address` looks for the rest of a name or an address (an address is one run of
#: characters without a space; a longer one is cut there, a bound on the work per match: a dotted name after
#: one was looked for to the run's end, and 80 KB of "-GPU" took 5.5 s).
_ADDRESS_REACH = 512
#: A character that ends an address written as text: a space, a bracket or quote around it, or the
#: separator of texts searched at once.
_ADDRESS_RUN = re.compile(r"[^\s<>\"`\[\]{}|\\^\x00]*")
#: What follows a name that is a word of prose: nothing, a space, or one closing mark and then a space.
_PROSE_AFTER = re.compile(r"[.,;:!?)\]'\"’”»]?(?:[\s\x00]|\Z)")
#: A dotted name's next part after a hyphenated word or an apostrophe ("trainium-guide.example.com",
#: "AWS’s.x"; read backwards, the same before a match: "aws.cloud-trainium").
_DOTTED_ON = re.compile(r"[\w'’-]*\.\w")
#: Before a name in a URL: a scheme, a "www." host or a host name and a slash ("example.com/").
_URL_BEFORE = re.compile(r"://|(?<![\w.-])www\.|\w\.[^\W\d_]{2,}/", re.IGNORECASE)
#: An e-mail address (group 1: `[\w.%+-]+@[\w-]+(?:\.[\w-]+)+`), else the rest of a run of an address's first
#: characters with no address after it, else one character: read run by run, as an address searched for from
#: every character read the run to its `@` again from each (1 ms a mention in a run of 512 "+GPU" and an "@").
_EMAIL = re.compile(r"([\w.%+-]++@[\w-]++(?:\.[\w-]++)++)|[\w.%+-]++@?|.", re.DOTALL)


def in_address(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` lies inside a dotted name through a hyphen or an apostrophe (the patterns
    refuse the others), a URL or an e-mail address written as text (see the module's docstring).

    Only the characters around it are looked at: the run without a space it stands in (at most
    `_ADDRESS_REACH` characters each way), and only when it is not a word of prose on its own (a
    space before it, and a space after it or after one closing mark).
    """
    if (not start or text[start - 1].isspace() or text[start - 1] == _SEPARATOR) \
            and _PROSE_AFTER.match(text, end) is not None:
        return False
    reach = max(0, start - _ADDRESS_REACH)
    backwards = text[start - 1:reach - 1 if reach else None:-1] if start else ""
    if _DOTTED_ON.match(text, end, end + _ADDRESS_REACH) is not None or _DOTTED_ON.match(backwards) is not None:
        return True
    before = _ADDRESS_RUN.match(backwards).end()
    after = _ADDRESS_RUN.match(text, end, end + _ADDRESS_REACH).end()
    if before and _URL_BEFORE.search(text, start - before, start) is not None:
        return True
    if "@" not in text[start - before:after]:
        return False
    return any(found[1] is not None and found.start() <= start and end <= found.end()
               for found in _EMAIL.finditer(text, start - before, after))


def automaton(words: Iterable[tuple[str, Any]]) -> ahocorasick.Automaton | None:
    """An Aho–Corasick automaton of these (word, what a hit gives with its end), or None for no word."""
    finder = ahocorasick.Automaton()
    for word, value in words:
        finder.add_word(word, value)
    if not len(finder):
        return None
    finder.make_automaton()
    return finder

