"""Finding glossary terms in story text.

Measured on a synthetic glossary of 1,300 entries × 6 labels (7,800 labels,
a fifth of them acronyms; see `test_many_terms_share_one_matcher`), on a
shared machine: building a `TermMatcher` takes 0.7–1.6 s, and `find` over 500
stories of ~3,300 characters 0.35–0.45 s (≈ 4 s for 5,000 stories per
language). The naive loop of one regex per label took 27–34 s for just 50 of
those stories (~700× slower). No timing is asserted here.
"""

from __future__ import annotations

import html
import marshal
import re
import unicodedata

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from glossary.linking import link_first_mentions
from glossary.folding import is_case_sensitive
from glossary.form_heads import FormHeads, holds_any
from glossary import matching
from glossary.matching import Mention, Term, TermMatcher
from glossary.mentions import markdown_mentions
from newsroom.render.markdown import MarkdownRenderer, code_spans
from newsroom.render.markdown import code as code_module

HU_TERMS = [
    Term("trainium", ("Trainium", "AWS Trainium", "Amazon Trainium")),
    Term("trainium2", ("Trainium2",)),
    Term("gpu", ("GPU", "grafikus processzor")),
    Term("tpu", ("TPU", "Google TPU")),
    Term("inferentia", ("AWS Inferentia", "Inferentia")),
    Term("adatkozpont", ("adatközpont",)),
    Term("modelltanitas", ("modelltanítás",)),
    Term("mi-chip", ("MI-chip",)),
    Term("chip", ("chip",)),
    Term("mi", ("MI", "mesterséges intelligencia")),
    Term("aws", ("AWS",)),
    Term("architektura", ("architektúra",)),
]
EN_TERMS = [
    Term("trainium", ("Trainium", "AWS Trainium")),
    Term("trainium2", ("Trainium2",)),
    Term("gpu", ("GPU", "graphics processing unit")),
    Term("tpu", ("TPU",)),
    Term("inferentia", ("AWS Inferentia",)),
    Term("data-center", ("data center",)),
    Term("chip", ("chip",)),
    Term("ai", ("AI", "artificial intelligence")),
    Term("amazon", ("Amazon",)),
    Term("aws", ("AWS",)),
]
HU = TermMatcher(HU_TERMS, "hu")
EN = TermMatcher(EN_TERMS, "en")


def found(matcher: TermMatcher, text: str) -> list[tuple[str, str]]:
    return [(mention.slug, mention.surface) for mention in matcher.find(text)]


@pytest.mark.parametrize(("text", "expected"), [
    # suffixes attached directly, incl. the assimilated -val/-vel
    ("Az Amazon a Trainiumot bérbe adja.", [("trainium", "Trainiumot")]),
    ("A Trainiummal tanítanak.", [("trainium", "Trainiummal")]),
    ("Az adatközpontokban hűtenek.", [("adatkozpont", "adatközpontokban")]),
    ("Kell egy GPU a modelltanításhoz.", [("gpu", "GPU"), ("modelltanitas", "modelltanításhoz")]),
    ("Olcsóbb a chippel.", [("chip", "chippel")]),
    # a final a/e lengthens before a suffix
    ("Az architektúrában és az architektúrát.", [("architektura", "architektúrában"),
                                                 ("architektura", "architektúrát")]),
    # hyphenated suffixes after acronyms, digits and hyphenated labels
    ("GPU-k, GPU-kat és TPU-val.", [("gpu", "GPU-k"), ("gpu", "GPU-kat"), ("tpu", "TPU-val")]),
    ("Az új Trainium2-vel mérték.", [("trainium2", "Trainium2-vel")]),
    ("Az MI-chipek drágák.", [("mi-chip", "MI-chipek")]),
    ("Az MI-t mindenki használja.", [("mi", "MI-t")]),
    ("Az AWS Inferentia-val futtatják.", [("inferentia", "AWS Inferentia-val")]),
    # digits continue the stem: no match for an unknown generation
    ("A Trainium2 gyorsabb.", [("trainium2", "Trainium2")]),
    ("A Trainium3 még nem elérhető.", []),
    ("Trainium_beta", []),
    # case: ordinary labels ignore it, acronyms do not
    ("Adatközpont épül Győrben.", [("adatkozpont", "Adatközpont")]),
    ("ADATKÖZPONT", [("adatkozpont", "ADATKÖZPONT")]),
    ("trainium", [("trainium", "trainium")]),
    ("https://example.com/gpu-arak és a Gpu", []),
    ("mi-chip, mi és aws", [("chip", "chip")]),
    # accents are significant
    ("Az adatkozpont szó ékezet nélkül.", []),
    ("Az adatközpónt szó rossz ékezettel.", []),
    # multiword labels, any whitespace run
    ("Az AWS Trainium gyors.", [("trainium", "AWS Trainium")]),
    ("Az AWS\u00a0Trainium gyors.", [("trainium", "AWS\u00a0Trainium")]),
    ("Az AWS \n  Trainium gyors.", [("trainium", "AWS \n  Trainium")]),
    ("grafikus  processzorokat", [("gpu", "grafikus  processzorokat")]),
    ("A mesterséges intelligenciáról.", [("mi", "mesterséges intelligenciáról")]),
    ("Google TPU-kat bérel.", [("tpu", "Google TPU-kat")]),
    # a label never matches inside a longer word
    ("STPU és TPUX", []),
    ("MIT és EMI", []),
    ("AWSome", []),
    ("GPUk és Trainium2vel", []),                  # after a capital or digit: hyphen only
    # the longest label wins, then scanning goes on after it
    ("AWS Trainium és AWS és Trainium", [("trainium", "AWS Trainium"), ("aws", "AWS"),
                                         ("trainium", "Trainium")]),
    ("„Trainium”, (GPU) és [TPU].", [("trainium", "Trainium"), ("gpu", "GPU"), ("tpu", "TPU")]),
    # documented limitation: a compound looks like a suffix
    ("A chipset új.", [("chip", "chipset")]),
    ("Nő a GPU-gyártók bevétele.", [("gpu", "GPU-gyártók")]),
])
def test_hungarian(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(HU, text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("GPUs and TPUs", [("gpu", "GPUs"), ("tpu", "TPUs")]),
    ("Amazon's chips", [("amazon", "Amazon's"), ("chip", "chips")]),
    ("AWS’s data centers", [("aws", "AWS’s"), ("data-center", "data centers")]),
    ("the GPUs' memory", [("gpu", "GPUs'")]),
    ("Data Center, data\u00a0center", [("data-center", "Data Center"), ("data-center", "data\u00a0center")]),
    ("Artificial Intelligence", [("ai", "Artificial Intelligence")]),
    ("A GPU-based server", [("gpu", "GPU")]),
    ("Trainium2 and trainium", [("trainium2", "Trainium2"), ("trainium", "trainium")]),
    ("Trainium3", []),
    ("the chipset", []),
    ("AIR and AI", [("ai", "AI")]),
    ("ai and gpu are lowercase", []),
    ("Trainiummal", []),
    ("AWS Trainium, AWS Inferentia", [("trainium", "AWS Trainium"), ("inferentia", "AWS Inferentia")]),
])
def test_english(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(EN, text) == expected


#: A name in a dotted name, a URL or an e-mail address is no mention; at a sentence's end it is.
ADDRESS_CASES = [
    ("trainium.example.com és aws.trainium", []),
    ("a model.gpu és a model.GPU fájl", []),
    ("https://example.com/gpu-guide és https://example.com/GPU-k", []),
    ("www.example.com/Trainium, example.com/trainium", []),
    ("gpu@example.com, <GPU-team@example.com>, mailto:trainium@aws.example", []),
    ("(https://en.wikipedia.org/wiki/Chip_(GPU))", []),
]


@pytest.mark.parametrize(("text", "expected"), [
    *ADDRESS_CASES,
    ("Az Amazon a Trainiumot adja. Ez a Trainium.", [("trainium", "Trainiumot"), ("trainium", "Trainium")]),
    ("A GPU-k. Trainium…", [("gpu", "GPU-k"), ("trainium", "Trainium")]),
    ("A GPU-k.Trainium, trainium-felho.example.com, aws.felho-trainium", []),
    ("Az AWS Trainium.example oldal", [("aws", "AWS")]),  # the longer label refused, the shorter stands
    ("[GPU](https://example.com/gpu) és (GPU), „Trainium”: GPU@otthon", [("gpu", "GPU"), ("gpu", "GPU"),
                                                                      ("trainium", "Trainium"), ("gpu", "GPU")]),
    ("1.5 GPU. 2.GPU", [("gpu", "GPU")]),
])
def test_hungarian_dotted_names_and_addresses(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(HU, text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    *ADDRESS_CASES,
    ("It runs on Trainium. Next is Trainium.", [("trainium", "Trainium"), ("trainium", "Trainium")]),
    ("GPUs.example, AWS’s.x, trainium-guide.example.com, aws.cloud-trainium and GPUs.", [("gpu", "GPUs")]),
    ("gpu-team@example.com wrote about GPUs", [("gpu", "GPUs")]),
])
def test_english_dotted_names_and_addresses(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(EN, text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("A `trainium` és ``a ` GPU`` kód, aztán GPU.", ["GPU"]),
    ("Nem kód: \\`trainium` GPU`", ["trainium"]),
    ("```\nGPU\n```\n\n~~~\ntrainium\n~~~\n\n    GPU-k\n\nA Trainiumot.", ["Trainiumot"]),
    ("- pont\n\n    GPU a listában\n", ["GPU"]),  # an item's second paragraph, not code
    ("> `GPU` és\n> `trainium` idézve", []),
    ("<kbd>GPU</kbd>, <code class=\"x\">trainium</code> és <pre>\nGPU\n</PRE> GPU-k", ["GPU-k"]),
    # Raw elements the cleaner drops with their content: the page shows nothing of them.
    ("<script>GPU</script> és <style>/* trainium */</style>, <svg><text>GPU</text></svg> a Trainiumot",
     ["Trainiumot"]),
    ("A `<style>` után GPU-k, aztán <iframe>trainium", ["GPU-k"]),
    # A backslash-escaped `<` is literal text: the name after it is shown.
    ("Egy \\<code>GPU</code> és \\<script>GPU-k", ["GPU", "GPU-k"]),
])
def test_a_name_in_markdown_code_is_no_mention(text: str, expected: list[str]) -> None:
    assert [mention.surface for mention in markdown_mentions(HU, text)] == expected
    # The story's HTML links the first of them, and nothing in its code.
    html = str(MarkdownRenderer(resolve=lambda kind, target: None).html(text))
    linked = link_first_mentions(html, HU, "/glossary/{}/".format)
    assert [surface for surface in re.findall(r'<a class="term" href="[^"]*">([^<]*)</a>', linked)] == expected[:1]
    assert markdown_mentions(EN, "The `GPU` flag, then GPUs.") == [Mention("gpu", 21, 25, "GPUs")]


@pytest.mark.parametrize(("text", "expected"), [
    ("<script>GPU</script> and <iframe>Trainium</iframe>, <template>AI</template> on GPUs", ["GPUs"]),
    # Elements the pages leave out with their text kept: a name in their text is shown, so a mention.
    ("<noscript>GPU</noscript>, <textarea>Trainium</textarea>, <select><option>AI</option></select>",
     ["GPU", "Trainium", "AI"]),
    ("An unclosed <style>GPU\n\nTrainium", []),
    ("An escaped \\<kbd>GPU\\</kbd> and \\<style>Trainium", ["GPU", "Trainium"]),
    # A tag's attributes and a Markdown link's title are no text of the page: a tooltip, a raw image's alt.
    ('<abbr title="GPU">G</abbr> and <a href="https://e.org" title="Trainium">x</a>, then GPUs', ["GPUs"]),
    ('[x](https://e.org "GPU") <img src="https://e.org/a.png" alt="Trainium"> <!-- GPU --> on Trainium',
     ["Trainium"]),
    ("<span\n data-x=GPU title='Trainium'>a</span> and `<abbr title=\"x` GPU\">", ["GPU"]),
    # A formula is kept as MathML, which holds no link: a name in it is no mention, as in code.
    ('<math alttext="GPU"><mi>GPU</mi><mtext>Trainium</mtext></math> <xmp>GPU</xmp> on Trainium', ["Trainium"]),
])
def test_the_page_and_the_mentions_agree_on_raw_html_in_english(text: str, expected: list[str]) -> None:
    assert [mention.surface for mention in markdown_mentions(EN, text)] == expected
    html = str(MarkdownRenderer(resolve=lambda kind, target: None).html(text))
    linked = link_first_mentions(html, EN, "/glossary/{}/".format)
    assert re.findall(r'<a class="term" href="[^"]*">([^<]*)</a>', linked) == expected


ENTITY_TERMS = [Term("att", ("AT&T",)), Term("gpu", ("GPU",)), Term("amp", ("amp",))]


@pytest.mark.parametrize("lang", ["hu", "en"])
@pytest.mark.parametrize(("text", "expected"), [
    ("AT&amp;T", ["AT&amp;T"]),                # the page shows AT&T
    ("&lt;GPU&gt; x", ["GPU"]),               # and <GPU>
    ("&#71;PU&nbsp;x", ["&#71;PU"]),          # and GPU
    ("R&amp;D, AT&#38;T", ["AT&#38;T"]),      # & alone: no amp is shown
    ("\\&amp; x", ["amp"]),                   # an escaped & is text: &amp; is shown
    ("AT&ampT", []),                          # no reference without its ;: AT&ampT is shown
])
def test_a_name_the_page_shows_through_a_character_reference_is_a_mention(
        lang: str, text: str, expected: list[str]) -> None:
    matcher = TermMatcher(ENTITY_TERMS, lang)
    mentions = markdown_mentions(matcher, text)
    assert [mention.surface for mention in mentions] == expected
    assert all(text[mention.start:mention.end] == mention.surface for mention in mentions)
    html = str(MarkdownRenderer(resolve=lambda kind, target: None).html(text))
    linked = link_first_mentions(html, matcher, "/glossary/{}/".format)
    assert re.findall(r'<a class="term" href="/glossary/([^/]*)/">', linked) == [m.slug for m in mentions]


def test_offsets_and_surface_refer_to_the_given_text() -> None:
    text = "Az AWS Trainiummal és GPU-kat."
    assert HU.find(text) == [Mention("trainium", 3, 18, "AWS Trainiummal"), Mention("gpu", 22, 29, "GPU-kat")]
    for mention in HU.find(text):
        assert text[mention.start:mention.end] == mention.surface


def test_decomposed_accents_still_match_with_offsets_in_the_original_text() -> None:
    text = unicodedata.normalize("NFD", "Az adatközpontban és a modelltanításhoz.")
    mentions = HU.find(text)
    assert [mention.slug for mention in mentions] == ["adatkozpont", "modelltanitas"]
    for mention in mentions:
        assert text[mention.start:mention.end] == mention.surface
    assert unicodedata.normalize("NFC", mentions[0].surface) == "adatközpontban"


def test_decomposed_labels_match_precomposed_text() -> None:
    matcher = TermMatcher([Term("adatkozpont", (unicodedata.normalize("NFD", "adatközpont"),))], "hu")
    assert matcher.slugs("Adatközpont") == {"adatkozpont"}


def test_slugs() -> None:
    assert HU.slugs("GPU-k és TPU-k egy adatközpontban, meg még egy GPU") == {"gpu", "tpu", "adatkozpont"}
    assert HU.slugs("") == set()


def test_longest_label_wins_across_case_modes() -> None:
    matcher = TermMatcher([Term("ai", ("AI",)), Term("ai-chip", ("ai chip",))], "en")
    assert found(matcher, "An AI chip and AI") == [("ai-chip", "AI chip"), ("ai", "AI")]


def test_a_label_claimed_twice_belongs_to_the_first_term() -> None:
    matcher = TermMatcher([Term("first", ("Chip",)), Term("second", ("chip",))], "en")
    assert matcher.slugs("chip") == {"first"}


def test_a_lengthened_stem_never_takes_another_terms_label() -> None:
    matcher = TermMatcher([Term("kora", ("kora",)), Term("korat", ("korát",))], "hu")
    assert found(matcher, "kora, korát, korában") == [("kora", "kora"), ("korat", "korát"),
                                                       ("kora", "korában")]


def test_excluded_words_are_never_mentions() -> None:
    matcher = TermMatcher(HU_TERMS, "hu", exclude=["chipset"])
    assert found(matcher, "A chipset és a chipsetek, de a chipek igen.") == [("chip", "chipek")]


def test_blank_labels_and_empty_glossaries_are_harmless() -> None:
    assert TermMatcher([Term("empty", ("", "  "))], "hu").find("bármi") == []
    assert TermMatcher([], "en").find("anything") == []


def test_unknown_language_is_an_error() -> None:
    with pytest.raises(ValueError, match="de"):
        TermMatcher(HU_TERMS, "de")


@pytest.mark.parametrize(("label", "sensitive"), [
    ("GPU", True), ("AWS Inferentia", True), ("MI-chip", True), ("iPhone", True), ("C", True),
    ("3D", True), ("Trainium", False), ("Trainium2", False), ("Adatközpont", False),
    ("data center", False), ("Data Center", False), ("x", False),
])
def test_which_labels_are_case_sensitive(label: str, sensitive: bool) -> None:
    assert is_case_sensitive(label) is sensitive


def test_many_terms_share_one_matcher() -> None:
    """Benchmark sketch (kept out of the suite's timings): 1,300 terms × 6 labels.

        rng = random.Random(1); letters = "aábcdeéfghiíjklmnoóöőprstuúüűvz"
        labels: 1–3 random words, 20% cut to 2–5 capitals, 30% capitalised
        stories: 500 × 400 words, 3% of them labels with a suffix
        TermMatcher(...)  0.7–1.6 s;  find() over all 500 stories  0.35–0.45 s
    """
    terms = [Term(f"t{index}", (f"szó{index}", f"ACR{index}", f"kifejezés {index}")) for index in range(300)]
    matcher = TermMatcher(terms, "hu")
    assert matcher.slugs("A szó7-tel, az ACR12-t és a kifejezés 299-et.") == {"t7", "t12", "t299"}


# --- properties --------------------------------------------------------------

PIECES = ["Trainium", "AWS", "Trainium2", "GPU", "-k", "-val", "mal", "ot", "2", " ", "\u00a0", "\n",
          "adatközpont", "adatko\u0308zpont", "MI-chip", "MI", "chip", "set", "s", "'s", "’", ".",
          "\u0301", "\u200d", "\u200f", "😀", "AI", "data", "center", "_"]
story_texts = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=4)), max_size=30).map("".join)
label_texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


def assert_well_formed(text: str, mentions: list[Mention]) -> None:
    previous_end = 0
    for mention in mentions:
        assert previous_end <= mention.start < mention.end <= len(text)
        assert text[mention.start:mention.end] == mention.surface
        previous_end = mention.end


@given(story_texts)
def test_find_never_raises_and_mentions_never_overlap(text: str) -> None:
    for matcher in (HU, EN):
        assert_well_formed(text, matcher.find(text))


@given(st.text())
def test_find_on_arbitrary_unicode(text: str) -> None:
    for matcher in (HU, EN):
        assert_well_formed(text, matcher.find(text))


@given(label_texts)
def test_normalisation_form_does_not_change_what_is_found(text: str) -> None:
    nfc = unicodedata.normalize("NFC", text)
    nfd = unicodedata.normalize("NFD", text)
    assert [m.slug for m in HU.find(nfd)] == [m.slug for m in HU.find(nfc)]


@given(label_texts)
def test_every_mention_starts_with_one_of_its_labels(text: str) -> None:
    labels = {term.slug: term.labels for term in HU_TERMS}
    for mention in HU.find(text):
        surface = " ".join(unicodedata.normalize("NFC", mention.surface).split())
        assert any(surface.lower().startswith(label.lower()) for label in labels[mention.slug])


class _CompiledAtOnce(TermMatcher):
    NARROW_SHARE = 0.0


class _AlwaysNarrowed(TermMatcher):
    NARROW_SHARE = 1000.0


TRICKY_TERMS = [*HU_TERMS, Term("irregular", ("ıkon", "ſtar", "Σigma")), Term("spaced", ("nagy  nyelvi modell",))]
TRICKY_PIECES = [*PIECES, ".x", "@", "://", "example.com/", "www.", "ıkon", "IKON", "ikon", "ſtar", "STAR", "star", "σigma", "ΣIGMA", "nagy", "nyelvi",
                 "modell", "modellek", "Nagy\u00a0nyelvi   modellt"]


@given(st.lists(st.one_of(st.sampled_from(TRICKY_PIECES), st.text(max_size=3)), max_size=30).map("".join))
def test_a_matcher_made_from_remembered_forms_finds_what_the_original_finds(text: str) -> None:
    # A build remembers a matcher's forms (marshalled: plain dicts and tuples) and makes it again from them.
    for terms, lang, exclude in ((TRICKY_TERMS, "hu", ["chipset"]), (EN_TERMS, "en", [])):
        original = TermMatcher(terms, lang, exclude=exclude)
        again = TermMatcher.from_forms(lang, *marshal.loads(marshal.dumps(list(original.forms()))))
        assert repr(again) == repr(original)
        assert again.find(text) == original.find(text)
        assert again.find_each([text, text]) == original.find_each([text, text])


class _SearchedEverywhere(TermMatcher):
    NARROW_SHARE = 0.0
    PREFILTER = False


#: Letters whose case mappings are irregular: a capital sigma (lowercased as a final one at a word's end),
#: the Kelvin sign (lowercases to ASCII "k"), a dotted capital I (lowercases to two characters), and terms
#: whose first words hold them.
CASE_PIECES = ["Σ", "ΣIGMA", "σigmaΣ", "ABΣ", "abσ", "\u212a", "\u212aip", "kip", "KIP", "İstanbul", "i\u0307stanbul",
               "ıkonΣ"]
CASE_TERMS = [Term("kip", ("kip",)), Term("sigma", ("σigma", "ΣΣ")), Term("abs", ("abσ",)), Term("ikon", ("ıkon",))]


@given(st.lists(st.one_of(st.sampled_from([*TRICKY_PIECES, *CASE_PIECES]), st.text(max_size=3)), max_size=30)
       .map("".join))
@example("ΣIGMA σigmaΣ ABΣ kip \u212aip İstanbul GPU")
@example("x ABΣ y")  # a capital sigma ending a word lowercases to a final one: "abς", where the form is "abσ"
@example("İ GPU")  # "İ" lowercases to two characters: the lowercased text's places are not the text's
def test_trying_the_patterns_where_first_words_start_finds_what_searching_every_place_finds(text: str) -> None:
    # A search tries the patterns only where a form's first word starts in the lowercased text; searched
    # at every place, the patterns find the same mentions.
    for terms, lang, exclude in ((TRICKY_TERMS, "hu", ["chipset"]), (EN_TERMS, "en", []),
                                 ([*HU_TERMS, *CASE_TERMS], "hu", []), ([Term("istanbul", ("İstanbul",))], "en", [])):
        matcher = _CompiledAtOnce(terms, lang, exclude=exclude)
        everywhere = _SearchedEverywhere(terms, lang, exclude=exclude)
        assert matcher.find(text) == everywhere.find(text)
        assert matcher.find_each([text, text[::-1]]) == everywhere.find_each([text, text[::-1]])


@given(st.lists(st.one_of(st.sampled_from([*TRICKY_PIECES, *CASE_PIECES]), st.text(max_size=3)), max_size=30)
       .map("".join))
@example("ΣIGMA σigmaΣ ABΣ kip \u212aip İstanbul GPU")
@example("x ABΣ y")
@example("İ GPU")
@example("(GPU-t) AWS Trainium2, adatközpontokban")
def test_the_first_searches_find_what_the_whole_matcher_finds(text: str) -> None:
    # A rebuild matching one edited story searches with a matcher narrowed to the forms whose
    # first word occurs in the text (found where the automaton finds first words, or at every word's
    # start); it must find exactly what the compiled whole finds.
    for terms, lang in ((TRICKY_TERMS, "hu"), (EN_TERMS, "en"), ([*HU_TERMS, *CASE_TERMS], "hu"),
                        ([Term("istanbul", ("İstanbul",))], "en")):
        assert _AlwaysNarrowed(terms, lang).find(text) == _CompiledAtOnce(terms, lang).find(text)
        # One matcher's searches of several texts, some with the same forms (a narrowed matcher made once
        # serves them all): each finds what the whole finds.
        narrowed, whole = _AlwaysNarrowed(terms, lang), _CompiledAtOnce(terms, lang)
        texts = [text, text + " " + text, "", text.upper(), text, text[::-1], text.lower()]
        assert [narrowed.find(each) for each in texts] == [whole.find(each) for each in texts]


@pytest.mark.parametrize("text", ["Az IKON, a STAR és a ΣIGMA.", "ıkonok, ſtarral, σigmát", "Nagy\u00a0nyelvi   modellt"])
def test_narrowed_searches_agree_on_letters_whose_case_does_not_fold_back(text: str) -> None:
    # Dotless i, long s, sigma: "IKON" is no mention of "ıkon" ("ikon" ≠ "ıkon"), "ıkonok" is.
    whole = _CompiledAtOnce(TRICKY_TERMS, "hu").find(text)
    assert whole and _AlwaysNarrowed(TRICKY_TERMS, "hu").find(text) == whole


@given(st.lists(st.lists(st.one_of(st.sampled_from([*TRICKY_PIECES, "\u0301", "\x00", "-t", "-ot"]),
                                   st.text(max_size=3)), max_size=12).map("".join), max_size=8))
@example(["adatk\u00f6zpont\u0301", "adatko\u0308zpont"])  # one normalised, one not: searched apart
def test_finding_in_many_texts_at_once_finds_what_each_search_finds(texts: list[str]) -> None:
    # A page's text runs are searched joined: a match may not span two of them, nor see past their ends.
    for terms, lang in ((TRICKY_TERMS, "hu"), (EN_TERMS, "en"), ([*HU_TERMS, Term("nul", ("a\x00b",))], "hu")):
        matcher = _CompiledAtOnce(terms, lang)
        assert matcher.find_each(texts) == [matcher.find(text) for text in texts]


@pytest.mark.parametrize("texts", [["AWS", "Trainium"], ["AWS ", " Trainium"], ["GPU", "-t használ"],
                                   ["Trainium", "ot"], ["nagy", "nyelvi modellt"], ["x", "\u0301GPU"],
                                   ["GPU\x00", "AWS"], ["", "MI", ""]])
def test_texts_searched_at_once_stay_apart(texts: list[str]) -> None:
    for terms, lang in ((TRICKY_TERMS, "hu"), (EN_TERMS, "en")):
        matcher = _CompiledAtOnce(terms, lang)
        assert matcher.find_each(texts) == [matcher.find(text) for text in texts]


def test_ascii_letters_match_their_other_case_only():
    # Unicode case folding would also take the long s for "s": a form's ASCII letters match only
    # themselves and their ASCII other case. (The Kelvin sign is a K once the text is NFC-normalised.)
    # "data ſet" is no mention of "data set", so it is one of "data".
    matcher = TermMatcher([Term("skill", ("skill",)), Term("sink", ("sink",)), Term("data", ("data",)),
                           Term("data-set", ("data set",))], "en")
    text = "\u017fkill s\u212aill skill SKILL Skill \u017fink SINK, data \u017fet, DATA SET"
    expected = ["s\u212aill", "skill", "SKILL", "Skill", "SINK", "data", "DATA SET"]
    assert [mention.surface for mention in matcher.find(text)] == expected  # narrowed to the text's forms
    matcher.compile()
    assert [mention.surface for mention in matcher.find(text)] == expected


# --- which texts an edit of the glossary can change --------------------------------------------

_EDIT_PIECES = [*TRICKY_PIECES, "&amp;", "&eacute;", "caf", "&#71;PU", "Anthropic", "anthropicot", "Claude",
                "_", "*", "<b>", "</b>"]
_LABELS = st.lists(st.sampled_from(["Anthropic", "Claude", "GPU", "gépi tanulás", "café", "Trainium", "ıkon",
                                    "AWS Claude", "adat", "adatközpont"]), min_size=1, max_size=3).map(tuple)


@st.composite
def _edited_glossary(draw) -> list[Term]:
    """TRICKY_TERMS with terms dropped, labels added to some and new terms (an editor's edits)."""
    terms = [term for term in TRICKY_TERMS if draw(st.booleans()) or term.slug == "gpu"]
    terms = [Term(term.slug, term.labels + draw(st.one_of(st.just(()), _LABELS))) for term in terms]
    return terms + [Term(f"new{index}", labels) for index, labels in enumerate(draw(st.lists(_LABELS, max_size=2)))]


@given(st.lists(st.lists(st.one_of(st.sampled_from(_EDIT_PIECES), st.text(max_size=3)), max_size=20).map("".join),
                min_size=1, max_size=3),
       _edited_glossary(), st.sampled_from(["hu", "en"]))
def test_a_text_without_a_changed_form_s_first_word_finds_and_links_the_same(texts, edited, lang) -> None:
    # A build matches again, and makes the pages again of, only the stories whose text holds the first
    # word of a form the glossary's edit added, removed or gave another entry; in any other text both
    # glossaries find the same mentions, link the same terms in its HTML, and give the same token.
    before, after = TermMatcher(TRICKY_TERMS, lang), TermMatcher(edited, lang)
    heads_before, heads_after = FormHeads(before), FormHeads(after)
    # The first words found are every one the texts hold (as `holds_any` looks for each in turn).
    assert heads_after.heads_in(texts) == {head for head in heads_after.by_head if holds_any(texts, [head])}
    if holds_any(texts, heads_after.changed_heads(heads_before)):
        return
    assert heads_after.token(texts) == heads_before.token(texts)
    for text in texts:
        assert after.find(text) == before.find(text)
        fragment = f"<p>{html.escape(html.unescape(text), quote=False)}</p><p>{text}</p>"
        href = "/glossary/{}/".format
        assert link_first_mentions(fragment, after, href) == link_first_mentions(fragment, before, href)


def test_the_forms_changed_by_an_edit_are_known_by_their_first_words() -> None:
    before = FormHeads(TermMatcher(HU_TERMS, "hu"))
    edited = [Term(t.slug, t.labels + (("Anthropic modell",) if t.slug == "gpu" else ())) for t in HU_TERMS
              if t.slug != "tpu"]
    after = FormHeads(TermMatcher(edited, "hu"))
    assert after.changed_heads(before) == {"anthropic", "tpu", "google"}
    assert holds_any(["Az ANTHROPIC-nál"], {"anthropic"}) and not holds_any(["Egy GPU."], {"anthropic"})
    assert after.heads_in(["Egy GPU-t vett az adatközpontokba."]) == {"gpu", "adatközpont"}
    assert after.token(["GPU"]) != after.token(["TPU"]) and after.token(["xyz"]) == after.token([""])
    assert FormHeads(TermMatcher(HU_TERMS, "hu", exclude=["chipset"])).changed_heads(before) is None


_PIECES = ["GPU ", "GPUs, ", "Trainium ", "<code>", "</code>", "<KBD x=1>", "</kbd>", "<pre>", "</PRE>",
           "<style>", "</style>", "<script>", "\\<code>", "`", "``", "<!--", "-->", "<abbr title=\"GPU\">",
           "[x](https://e.org \"GPU\") ", "\n\n", "    GPU\n", "text "]


@given(st.lists(st.sampled_from(_PIECES), max_size=40))
@example(["<code>", "text ", "<abbr title=\"GPU\">", "GPU ", "</code>", "GPUs, "])  # a tag inside an element
def test_mentions_are_the_names_outside_every_code_span(pieces: list[str]) -> None:
    """Whatever mix of code, raw elements left open or closed, tags and comments a text holds, its mentions are
    exactly the names no code span overlaps (found by a bisection over the spans merged: one comparison each)."""
    text = "".join(pieces)
    spans = code_spans(text)
    expected = [mention for mention in EN.find(text)
                if not any(start < mention.end and mention.start < end for start, end in spans)]
    assert markdown_mentions(EN, text) == expected


#: The link title pattern as it was before its destination and spaces were read possessively (a `](` followed
#: by thousands of spaces then tried every split of them): what the new one finds must be what this one found.
_OLD_LINK_TITLE = re.compile(r"\]\(\s*(?:<[^<>\n]*>|[^\s()<]*(?:\([^\s()]*\)[^\s()]*)*)\s+"
                             r"""("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\))\s*\)""", re.DOTALL)
_TITLE_PIECES = ["](", "[x", "]", " ", "  ", "\n", "\t", "\"t\"", "'t'", "(t)", "\"", "'", "(", ")", "<", ">",
                 "<u>", "a", "b.png", "\\", "\\\"", "GPU"]


@given(st.lists(st.sampled_from(_TITLE_PIECES), max_size=30))
@example(["](", " ", "\"t\"", ")"])  # no destination: the spaces before the title are one run
@example(["](", "a", "(", "b", ")", " ", "(t)", ")"])
def test_link_titles_are_found_as_the_plain_pattern_finds_them(pieces: list[str]) -> None:
    """A link's title is found in a text, shown as code, wherever the pattern that tried every split of the
    spaces before it found one, and nowhere else, whatever mix of destinations, spaces and quotes it holds."""
    text = "".join(pieces)
    assert [(found.span(), found.span(1)) for found in code_module._LINK_TITLE.finditer(text)] \
        == [(found.span(), found.span(1)) for found in _OLD_LINK_TITLE.finditer(text)]


@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 12)), max_size=12), st.integers(0, 60))
def test_an_offset_is_in_code_when_some_span_holds_it(spans: list[tuple[int, int]], offset: int) -> None:
    """The spans a tag or title is looked up in (in any order, overlapping, adjacent or empty) hold an offset
    exactly when one of them does, as a comparison with each would say."""
    spans = [(start, start + length) for start, length in spans]
    assert code_module._covered(spans)(offset) is any(start <= offset < end for start, end in spans)


def test_a_text_of_tags_between_code_spans_shows_each_tag_as_code_once() -> None:
    """Thousands of tags between inline code spans: each tag is one span, the code ones too, in order."""
    text = "`x` <b> " * 2000
    spans = code_spans(text)
    assert spans[:4] == [(0, 3), (4, 7), (8, 11), (12, 15)] and len(spans) == 4000


@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 12)), max_size=12),
       st.lists(st.integers(0, 60), max_size=12, unique=True))
def test_the_code_span_a_raw_element_starts_in_is_the_first_that_holds_it(spans: list[tuple[int, int]],
                                                                         offsets: list[int]) -> None:
    """A raw element that starts in code is skipped to the end of the first span (in their order) that holds
    it, overlapping, adjacent, empty or out of order as the spans may be, as a look through them all says."""
    spans = [(start, start + length) for start, length in spans]
    holding = code_module._FirstHolding(spans)
    for offset in sorted(offsets):
        assert holding(offset) == next((end for start, end in spans if start <= offset < end), None)


def test_a_dotted_name_is_looked_for_as_far_after_a_name_as_before_it() -> None:
    """A name joined by a hyphen to a dotted name is part of it (`gpu-guide.example.com`), looked for as far
    as `_ADDRESS_REACH` characters each way: past that a name is a word of its own on either side, so a text
    of thousands of hyphenated names is not read again to its end for each."""
    near = "GPU-guide.example.com and www.example-GPU"
    assert EN.find(near) == []
    run = "-x" * 300  # 600 characters of one hyphenated word
    far_after, far_before = "GPU" + run + ".example.com", "www.example" + run + "-GPU"
    assert [(found.start, found.end) for found in EN.find(far_after)] == [(0, 3)]
    assert [(found.start, found.end) for found in EN.find(far_before)] == [(len(far_before) - 3, len(far_before))]


#: The e-mail pattern as it was, searched from every character (a run of thousands of "+GPU" before an "@" was
#: read again from each): the addresses the new reading finds, run by run, must be the ones this one found.
_OLD_EMAIL = re.compile(r"[\w.%+-]+@[\w-]+(?:\.[\w-]+)+")
_ADDRESS_PIECES = ["a", "GPU", "é", "_", "1", ".", "..", "%", "+", "-", "@", "@@", "x.y", ".com", " ", "/", ":",
                   "\n", "\x00", "<", "\u0301"]


@given(st.lists(st.sampled_from(_ADDRESS_PIECES), max_size=40).map("".join), st.integers(0, 80), st.integers(0, 80))
@example("a@b@c.d", 0, 7)  # the first @'s domain is no domain: the address begins after it
@example("a@b.c@d.e", 0, 9)
@example("x+a@b.c", 2, 7)  # a search that begins inside a run
def test_e_mail_addresses_are_found_as_the_pattern_searched_from_every_character_finds_them(
        text: str, start: int, end: int) -> None:
    """Where a text (or a stretch of it) holds e-mail addresses, they are those the plain pattern finds."""
    found = [match.span() for match in matching._EMAIL.finditer(text, start, end) if match[1] is not None]
    assert found == [match.span() for match in _OLD_EMAIL.finditer(text, start, end)]


def test_a_name_in_thousands_of_names_before_an_at_sign_is_a_mention_unless_in_an_address() -> None:
    """A run of "+GPU" with an "@" and no domain after it holds no address: each name is a mention; the names
    of an address after them are none."""
    text = ("+GPU" * 127 + "+@ ") * 20 + "GPU+GPU@example.com"
    mentions = EN.find(text)
    assert len(mentions) == 127 * 20 and mentions[-1].end == len(text) - len(" GPU+GPU@example.com") - 2
