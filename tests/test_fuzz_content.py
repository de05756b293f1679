"""Fuzzed content files: random and malformed YAML, right and wrong types, Unicode edge cases.

The contract: reading a content file either yields a valid, canonical record or
raises ContentError with `place: field: message` diagnostics — never another
exception and never a hang. A valid record is a fixed point: dumping it and
reading it back gives the same record (what export and import rely on).
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from glossary.matching import Term, TermMatcher
from newsroom.content.reader import validate_text
from newsroom.content.schema import Field, kinds
from newsroom.content.field_values import _one_line
from newsroom.content.yamlio import dump
from newsroom.diagnostics import ContentError

LANGUAGES = ("hu", "en")

#: Characters that break naive text handling: combining accents, bidi controls, joiners, BOM, controls.
TRICKY = ["e\u0301", "o\u0308\u0301", "\u200f", "\u202e", "\u2066", "\u200d", "\u200b", "\ufeff", "\u00a0",
          "\u2028", "\x85", "\x00", "\x1b", "\t", "\r\n", "👩\u200d💻", "ﬁ", "İ", "ß", "ő", "Ő", "dzs", "ǅ",
          "\U0001f1ed\U0001f1fa", "\\", "'", '"', ":", "#", "- ", "? ", "&a", "*a", "!!str", "{", "[", "%", "@"]
TEXT = st.lists(st.one_of(st.sampled_from(TRICKY), st.text(max_size=8)), max_size=12).map("".join)
SCALAR = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), TEXT,
                   st.dates().map(str), st.just("2026-13-45"), st.just("1e400"))
JSONISH = st.recursive(SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(TEXT, inner, max_size=4)), max_leaves=12)
SLUG = st.from_regex(r"\A[a-z0-9]{1,6}(-[a-z0-9]{1,4}){0,2}\Z")


def _right(spec: Field, depth: int = 0) -> st.SearchStrategy[Any]:
    """Values of the right type for a field spec (and sometimes near misses)."""
    simple = {
        "text": TEXT, "md": TEXT, "slug": SLUG, "int": st.integers(-5, 10**12),
        "date": st.dates().map(lambda d: d.isoformat()), "month": st.from_regex(r"\A20[0-9]{2}-(0[1-9]|1[0-2])\Z"),
        "datetime": st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat()),
        "url": st.sampled_from(["https://example.org/a", "http://x.y/?q=<b>", "mailto:a@b.c", "ftp://no"]),
        "enum": st.sampled_from([*spec.choices, "nope"]),
        "language": st.sampled_from(["en", "hu", "pt-BR", "no", "English", "en_US"]),
        "langmap": st.dictionaries(st.sampled_from([*LANGUAGES, "de"]), TEXT, max_size=3),
        "cell": st.one_of(TEXT, st.fixed_dictionaries({"value": TEXT}),
                          st.fixed_dictionaries({"not_published": TEXT})),
    }
    if spec.type in simple:
        return simple[spec.type]
    if depth > 3:
        return st.none()
    if spec.type == "list":
        assert spec.of is not None
        return st.lists(_value(spec.of, depth + 1), max_size=3)
    fields = {name: _value(sub, depth + 1) for name, sub in spec.fields.items()}
    extra = {lang: TEXT for lang in LANGUAGES} if spec.named else {}
    return st.fixed_dictionaries({}, optional={**fields, **extra})


def _value(spec: Field, depth: int = 0) -> st.SearchStrategy[Any]:
    """Mostly right, sometimes any JSON-like value: wrong types must be reported, not crash."""
    return st.one_of(_right(spec, depth), _right(spec, depth), JSONISH)


@st.composite
def content_mappings(draw: st.DrawFn) -> dict[str, Any]:
    kind_name = draw(st.sampled_from(sorted(kinds())))
    kind = kinds()[kind_name]
    record: dict[str, Any] = {"kind": kind_name}
    for name, spec in kind.fields.items():
        if spec.required or draw(st.booleans()):
            record[name] = draw(_value(spec))
    for lang in draw(st.lists(st.sampled_from([*LANGUAGES, "de", "xx-YY"]), max_size=3, unique=True)):
        record[lang] = draw(st.one_of(_right(Field("map", fields=kind.texts)), JSONISH))
    if draw(st.integers(0, 9)) == 0:
        record[draw(TEXT)] = draw(JSONISH)  # an unknown field
    return record


def _read(text: str) -> Any:
    try:
        return validate_text(text, "fuzz.yaml", LANGUAGES)
    except ContentError as error:
        assert error.diagnostics
        assert all(str(d).startswith("fuzz.yaml") for d in error.diagnostics)
        return None


FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.one_of(TEXT, st.lists(st.sampled_from(
    ["kind: ", "story", "entry", "\n", "  ", "- ", ": ", "hu:", "en:", "slug: a", "&x ", "*x", "<<: *x", "{", "}",
     "[", "]", "!!python/object:os.system", "!!binary", "|", ">", "'", '"', "%YAML 1.1\n", "---\n", "...\n",
     "? ", "\t", "#", "\ufeff", "é"]), max_size=40).map("".join)))
def test_random_text_is_read_or_refused(text: str) -> None:
    _read(text)


@FUZZ
@given(content_mappings())
@example({"kind": "site", "categories": [{"hu": "é"}, {"slug": None, "en": "é"}]})  # no slug twice: named, no crash
def test_random_mappings_are_validated_and_valid_ones_are_fixed_points(record: dict[str, Any]) -> None:
    loaded = _read(dump(record))
    if loaded is not None:
        again = validate_text(dump(loaded.record), "again.yaml", LANGUAGES)
        assert again.record == loaded.record
        assert dump(again.record) == dump(loaded.record)


#: Plain values YAML reads as no text: numbers in every form it knows, yes/no, dates and times, and values
#: of those forms that are none (`2026-11-31`), which it reads as text.
PLAIN = st.one_of(st.integers().map(str), st.floats(allow_nan=False).map(str), st.dates().map(str),
                  st.sampled_from(["007", "0x1F", "0o17", "+12", "1_000", "1:30", "1.50", ".5", "-.inf", ".NaN",
                                   "yes", "No", "ON", "off", "true", "False", "2026-11-31", "2026-02-30",
                                   "2026-11-05 10:00:00", "2026-11-05T07:00:00+01:00", "1e400"]))


@FUZZ
@given(PLAIN, PLAIN)
@example("2026-11-05", "2026-11-31")
def test_a_plain_value_in_a_text_field_is_its_text_as_written_and_exports_back(headline: str, tag: str) -> None:
    story = (f"kind: story\nslug: s\nissue: 1\nsection: code\nposition: 1\ntags: [{tag}]\n"
             f"hu:\n  headline: {headline}\n  summary: {tag}\n")
    loaded = validate_text(story, "fuzz.yaml", LANGUAGES)
    assert (loaded.record["hu"]["headline"], loaded.record["hu"]["summary"], loaded.record["tags"]) == \
        (headline, tag, [tag])
    assert validate_text(dump(loaded.record), "again.yaml", LANGUAGES).record == loaded.record


@settings(max_examples=8, deadline=None)
@given(st.sampled_from(["\u0301", "\u200d", "\u202e", "a", "ő", "👩\u200d💻", "[1]", "*"]))
def test_long_fields_are_read_or_refused(piece: str) -> None:
    body = piece * (65536 // len(piece.encode("utf-8")))
    _read(f"kind: page\nslug: long\nen:\n  title: T\n  body: {dump(body)}")


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(SLUG, st.lists(TEXT, min_size=1, max_size=3)), max_size=6),
       st.sampled_from(LANGUAGES), TEXT)
def test_term_matching_never_fails_on_odd_labels_and_texts(terms: list[tuple[str, list[str]]], lang: str,
                                                           text: str) -> None:
    matcher = TermMatcher([Term(slug, tuple(labels)) for slug, labels in terms], lang)
    for mention in matcher.find(text + " " + " ".join(label for _, labels in terms for label in labels)):
        assert 0 <= mention.start < mention.end


#: Text that puts either YAML emitter to its choices: block scalars (with trailing breaks, indented first
#: lines, trailing spaces), quoting, long lines folded at the width, and what libyaml writes otherwise.
EMITTED = st.lists(st.one_of(st.sampled_from([*TRICKY, "\n", "\n\n", "  ", " ", "- x", "a: b", "# c", "…",
                                              "word " * 30, "\u2029", "🚀"]),
                             st.text(max_size=12)), max_size=16).map("".join)
EMITTED_VALUES = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                                        EMITTED),
                              lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                      st.dictionaries(st.text("abz_", min_size=1, max_size=5), inner,
                                                                      max_size=4)), max_leaves=16)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.text("abz_", min_size=1, max_size=5), EMITTED_VALUES, min_size=1, max_size=5))
@example({"hu": {"plain_terms": "One.\n\nTwo.\n", "aliases": ["Trainium chip"]}})  # libyaml ends with "..."
@example({"a": ["one\ntwo\n"]})  # the last text keeps its final break: "..." bounds it in both
@example({"a": "Bővül a Project Rainier 🚀"})  # libyaml escapes what lies beyond the BMP
@example({"_": "\ufeff" + "word " * 30})  # double-quoted and too long for a line: the two fold it otherwise
@example({"_": [["\n" + "word " * 30]]})  # the same in a list of lists
def test_a_record_is_dumped_as_the_python_emitter_writes_it(record: dict[str, Any]) -> None:
    """`dump` writes with libyaml where it writes the same bytes as PyYAML's Python emitter, the canonical
    form every export so far was written in (an export then says the same of an unchanged record)."""
    import yaml

    from newsroom.content import yamlio

    assert dump(record) == yaml.dump(record, Dumper=yamlio._CanonicalDumper, **yamlio._OPTIONS)


#: How a one-line field was made one line before each run of white space was read once (a run without a line
#: break was tried from each of its characters): what the field holds now must be what this made.
_OLD_LINE_BREAK = re.compile(r"\s*[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]\s*")
_LINE_PIECES = [" ", "  ", "\t", "\n", "\r\n", "\v", "\f", "\x1c", "\x1f", "\x85", "\u2028", "\u2029", "\u00a0",
                "\u3000", "a", "GPU", ".", "\x00"]


@given(st.lists(st.sampled_from(_LINE_PIECES), max_size=30))
@example(["\t", "a", "\t", "\n", " ", "b", "\t"])
def test_a_one_line_field_joins_its_lines_as_a_search_around_each_break_did(pieces: list[str]) -> None:
    """Whatever white space, line breaks and other characters a one-line text holds, each line break with the
    white space around it is one space, and the rest is kept, as a search from every character made it."""
    text = "".join(pieces)
    expected = _OLD_LINE_BREAK.sub(" ", text) if not text.isprintable() else text
    assert _one_line(text) == expected
