"""Hungarian and English alphabetical order of glossary headwords."""

from __future__ import annotations

import random
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from glossary.collation import (
    EN_ALPHABET_HEADINGS,
    HU_ALPHABET_HEADINGS,
    OTHER_HEADING,
    letter_heading,
    sort_key,
)


def hu_sorted(words: list[str]) -> list[str]:
    return sorted(words, key=lambda word: sort_key(word, "hu"))


def en_sorted(words: list[str]) -> list[str]:
    return sorted(words, key=lambda word: sort_key(word, "en"))


def primary(text: str, lang: str = "hu") -> object:
    return sort_key(text, lang)[0]


def assert_order(expected: list[str], lang: str = "hu") -> None:
    """Every shuffle of `expected` sorts back to it."""
    for seed in range(5):
        shuffled = expected[:]
        random.Random(seed).shuffle(shuffled)
        assert sorted(shuffled, key=lambda word: sort_key(word, lang)) == expected


# --- Hungarian order -------------------------------------------------------

def test_the_reference_list_comes_out_in_order() -> None:
    assert_order(["ab", "áb", "az", "áz", "comb", "cukor", "csak", "tz", "tty"])


@pytest.mark.parametrize("expected", [
    # c < cs < d
    ["cél", "cukor", "cument", "csak", "csülök", "dal"],
    # d < dz < dzs < e
    ["dal", "dűne", "dzéta", "dzóta", "dzsem", "dzsungel", "egér"],
    # g < gy < h
    ["gumi", "gúzs", "gyár", "gyümölcs", "hal"],
    # l < ly < m
    ["láb", "lúd", "lyuk", "malom"],
    # n < ny < o
    ["nő", "nyak", "nyúl", "olló"],
    # s < sz < t
    ["sas", "süt", "szem", "szűz", "tál"],
    # t < ty < u
    ["tűz", "tyúk", "ujj"],
    # z < zs
    ["zaj", "zümmög", "zsák", "zsűri"],
], ids=["c-cs", "d-dz-dzs", "g-gy", "l-ly", "n-ny", "s-sz", "t-ty", "z-zs"])
def test_digraphs_and_the_trigraph_are_letters_of_their_own(expected: list[str]) -> None:
    assert_order(expected)


@pytest.mark.parametrize("expected", [
    ["ab", "áb", "ac", "ác", "az"],                  # a/á
    ["egér", "éger", "ez", "éz"],                    # e/é
    ["ír", "iroda", "irt", "írt", "iszik"],          # i/í
    ["kor", "kór", "kosár", "kör", "kőr", "köt"],    # o/ó < ö/ő
    ["olló", "óra", "orr", "ozmózis", "öt", "ötven", "őz"],
    ["ugat", "út", "uzsonna", "ül", "űr", "üveg"],   # u/ú < ü/ű
    ["szel", "szél", "szeles", "széles"],
], ids=["a", "e", "i", "o-ö", "ó-ő", "u-ü", "length-is-secondary"])
def test_long_vowels_sort_with_their_short_pair(expected: list[str]) -> None:
    assert_order(expected)


def test_o_and_oe_u_and_ue_are_distinct_primary_letters() -> None:
    assert primary("kór") == primary("kor")
    assert primary("kőr") == primary("kör")
    assert primary("kor") < primary("kör")  # type: ignore[operator]
    assert primary("úr") == primary("ur")
    assert primary("űr") == primary("ür")
    assert primary("ur") < primary("ür")  # type: ignore[operator]


@pytest.mark.parametrize(("written", "spelled_out"), [
    ("ccs", "cscs"), ("ddz", "dzdz"), ("ddzs", "dzsdzs"), ("ggy", "gygy"), ("lly", "lyly"),
    ("nny", "nyny"), ("ssz", "szsz"), ("tty", "tyty"), ("zzs", "zszs"),
])
def test_a_doubled_digraph_counts_as_two_letters(written: str, spelled_out: str) -> None:
    assert primary(f"a{written}a") == primary(f"a{spelled_out}a")
    assert primary(written.upper()) == primary(spelled_out)


@pytest.mark.parametrize("expected", [
    ["Menyhért", "mennybolt"],        # m-e-ny-h < m-e-ny-ny
    ["hosta", "hosszú"],              # h-o-s < h-o-sz-sz
    ["megvan", "megy", "meggy"],      # g < gy; gy < gy-gy
    ["gallér", "gally"],              # l < ly
    ["lecsó", "loccsan"],             # e < o
    ["botty", "bottyán"],
    ["bridzs", "briddzsel"],
    ["rizs", "rizzsel"],
])
def test_doubled_digraphs_sort_as_two_letters(expected: list[str]) -> None:
    assert_order(expected)


def test_hosszu_reads_as_h_o_sz_sz_u() -> None:
    assert primary("hosszú") == primary("hoszszu")
    assert primary("hosszú") == primary("h-o-sz-sz-ú")
    assert sort_key("hosszú", "hu")[1] == (0, 0, 0, 0, 1)


def test_compound_boundaries_take_the_digraph_reading() -> None:
    """Documented limitation: pác+só reads as p-á-cs-ó without a dictionary."""
    assert primary("pácsó") == primary("pá-cs-ó")


def test_a_separator_ends_a_digraph() -> None:
    assert primary("c s") != primary("cs")
    assert hu_sorted(["csak", "c sak"]) == ["c sak", "csak"]


def test_case_spaces_hyphens_and_punctuation_are_ignored_at_primary_level() -> None:
    variants = ["MI-chip", "mi chip", "michip", "Mi Chip!", "„MI-chip”", "MI\u00a0chip"]
    assert len({primary(variant) for variant in variants}) == 1
    assert hu_sorted(["adatközpont", "Adat-központ", "adatkód"]) == [
        "adatkód", "adatközpont", "Adat-központ"]


def test_lowercase_before_uppercase_when_otherwise_equal() -> None:
    assert_order(["alma", "Alma", "ALMA"])
    assert_order(["csiga", "Csiga", "CSIGA"])


def test_the_order_is_total_for_strings_that_differ_only_in_ignorables() -> None:
    words = ["data center", "data-center", "datacenter", "data  center", "data center."]
    assert len({sort_key(word, "hu") for word in words}) == len(words)
    assert_order(hu_sorted(words))


def test_digits_come_before_letters_and_compare_as_numbers() -> None:
    assert_order(["3D nyomtatás", "5G", "42", "Ábra", "Trainium", "Trainium2", "Trainium10"])
    assert_order(["7", "07", "007"])


def test_other_latin_diacritics_fold_to_their_base_letter() -> None:
    assert primary("Škoda") == primary("skoda")
    assert_order(["sas", "Škoda", "szem"])               # š is s, never sz
    assert_order(["Ångström", "anyag"])                   # å is a; a-n-g < a-ny
    assert primary("Dvořák") == primary("dvorak")
    assert primary("Łukasz") == primary("lukasz")
    assert primary("façade") == primary("facade")


def test_decomposed_accents_equal_precomposed_ones() -> None:
    assert sort_key("o\u030bz", "hu")[:3] == sort_key("őz", "hu")[:3]
    assert sort_key("a\u0301bra", "hu")[:3] == sort_key("ábra", "hu")[:3]


def test_alphabet_headings_are_in_dictionary_order() -> None:
    assert hu_sorted(list(HU_ALPHABET_HEADINGS)) == list(HU_ALPHABET_HEADINGS)
    assert len(HU_ALPHABET_HEADINGS) == 37
    assert HU_ALPHABET_HEADINGS[:7] == ("A", "B", "C", "Cs", "D", "Dz", "Dzs")
    assert HU_ALPHABET_HEADINGS[-2:] == ("Z", "Zs")
    assert en_sorted(list(EN_ALPHABET_HEADINGS)) == list(EN_ALPHABET_HEADINGS)
    assert "".join(EN_ALPHABET_HEADINGS) == "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


# --- English order ---------------------------------------------------------

def test_english_is_case_and_accent_insensitive() -> None:
    assert primary("Éclair", "en") == primary("eclair", "en")
    assert primary("Über", "en") == primary("uber", "en")
    assert_order(["eclair", "Eclair", "éclair", "Éclair", "ecru"], "en")
    assert_order(["Äpfel", "apple", "Zebra"], "en")


def test_english_has_no_hungarian_digraphs() -> None:
    assert_order(["crab", "csv", "cube"], "en")
    assert_order(["crab", "cube", "csv"], "hu")
    assert_order(["oak", "öko", "ozone"], "en")


def test_english_digits_first_and_ties_broken_deterministically() -> None:
    assert_order(["3D printing", "ai", "AI", "AI chip", "data center", "datacenter", "Data Center"], "en")


def test_unknown_language_is_an_error() -> None:
    with pytest.raises(ValueError, match="de"):
        sort_key("Wort", "de")
    with pytest.raises(ValueError):
        letter_heading("Wort", "de")


# --- letter headings ---------------------------------------------------------

HU_HEADING_EXAMPLES = {
    "alma": "A", "ábra": "A", "bit": "B", "cég": "C", "csiga": "Cs", "CSIGA": "Cs",
    "dal": "D", "dzéta": "Dz", "dzsungel": "Dzs", "Dzsungel": "Dzs", "egér": "E", "Éva": "E",
    "fa": "F", "GPU (grafikus processzor)": "G", "gyík": "Gy", "hal": "H", "ital": "I",
    "íj": "I", "jel": "J", "kód": "K", "lúd": "L", "lyuk": "Ly", "MI-chip": "M", "nap": "N",
    "nyúl": "Ny", "olló": "O", "óra": "O", "öröm": "Ö", "őz": "Ö", "pénz": "P", "Qubit": "Q",
    "rés": "R", "sas": "S", "Škoda": "S", "szem": "Sz", "tű": "T", "tyúk": "Ty", "ujj": "U",
    "úr": "U", "üveg": "Ü", "űr": "Ü", "vas": "V", "webhely": "W", "xilofon": "X",
    "Yottabájt": "Y", "zaj": "Z", "zsák": "Zs", "„Okos” otthon": "O", "(GPU)": "G",
}


@pytest.mark.parametrize(("word", "heading"), sorted(HU_HEADING_EXAMPLES.items()))
def test_hungarian_letter_heading(word: str, heading: str) -> None:
    assert letter_heading(word, "hu") == heading


def test_every_hungarian_heading_is_exercised() -> None:
    assert set(HU_HEADING_EXAMPLES.values()) == set(HU_ALPHABET_HEADINGS)


@pytest.mark.parametrize("word", ["3D nyomtatás", "42", "", "   ", "…", "αλφα", "😀", "-"])
def test_digits_symbols_and_non_latin_go_under_the_other_heading(word: str) -> None:
    assert letter_heading(word, "hu") == OTHER_HEADING == "#"
    assert letter_heading(word, "en") == OTHER_HEADING


@pytest.mark.parametrize(("word", "heading"), [
    ("Éclair", "E"), ("über", "U"), ("csiga", "C"), ("dzsungel", "D"), ("őz", "O"),
    ("Øresund", "O"), ("straße", "S"), ("AWS Trainium", "A"), ("😀 emoji", "E"),
])
def test_english_letter_heading(word: str, heading: str) -> None:
    assert letter_heading(word, "en") == heading


@pytest.mark.parametrize("heading", EN_ALPHABET_HEADINGS)
def test_every_english_heading(heading: str) -> None:
    assert letter_heading(heading.lower() + "ord", "en") == heading


# --- properties --------------------------------------------------------------

TRICKY = ["\u200d", "\u200c", "\u200f", "\u202e", "\u00ad", "\u0301", "\u030b", "\u0308",
          "😀", "👩\u200d💻", "🇭🇺", "ǅ", "İ", "ß", "ﬁ", "²", "½", "٣", "Ⅻ", "\ufeff",
          "cs", "dzs", "ddzs", "ssz", "nny", "ő", "Ű", " ", "-", "0"]
texts = st.lists(st.one_of(st.characters(), st.sampled_from(TRICKY)), max_size=30).map("".join)
hu_words = st.text(alphabet="aábccsdeéfghiíjklmnoóöőpqrstuúüűvwxyz", min_size=1, max_size=12)
langs = st.sampled_from(["hu", "en"])


@given(texts, langs)
def test_sort_key_never_raises_and_heading_is_known(text: str, lang: str) -> None:
    key = sort_key(text, lang)
    assert key[-1] == text
    headings = HU_ALPHABET_HEADINGS if lang == "hu" else EN_ALPHABET_HEADINGS
    assert letter_heading(text, lang) in (*headings, OTHER_HEADING)


@given(st.lists(texts, max_size=25), langs, st.randoms(use_true_random=False))
def test_sorting_is_total_and_independent_of_input_order(words: list[str], lang: str,
                                                          rnd: random.Random) -> None:
    expected = sorted(words, key=lambda word: sort_key(word, lang))
    shuffled = words[:]
    rnd.shuffle(shuffled)
    assert sorted(shuffled, key=lambda word: sort_key(word, lang)) == expected


@given(texts, texts, langs)
def test_keys_are_equal_only_for_equal_strings(first: str, second: str, lang: str) -> None:
    assert (sort_key(first, lang) == sort_key(second, lang)) == (first == second)


@given(hu_words, hu_words)
def test_case_and_word_separators_do_not_change_the_primary_level(first: str, second: str) -> None:
    base = primary(f"{first} {second}")
    assert primary(f"{first}-{second}") == base
    assert primary(f"{first.upper()}\u00a0{second.title()}") == base
    assert primary(unicodedata.normalize("NFD", f"{first} {second}")) == base


@given(st.lists(hu_words, min_size=2, max_size=20))
def test_headings_follow_the_sort_order(words: list[str]) -> None:
    ordered = [letter_heading(word, "hu") for word in hu_sorted(words)]
    ranks = [HU_ALPHABET_HEADINGS.index(heading) for heading in ordered]
    assert ranks == sorted(ranks)
