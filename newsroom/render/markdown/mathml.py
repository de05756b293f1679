"""MathML kept as browsers render it (MathML Core): the elements and attributes the cleaner keeps of a
`<math>`, their values as the Nu HTML Checker takes them (`mathml_value`), and nothing but MathML inside
one (`mathml_only`). nh3 keeps a MathML element only inside a `<math>` and drops an HTML element that would
break out of one, so no script, style or link runs from it; no MathML element kept takes a URL (`href` is not
kept). Before it cleans, the tags of an HTML element in a formula's layout and of a MathML element outside one
go, their text kept (`formula_text_kept`): the cleaner would move the first out of the formula or drop it with
its text, and drop the second with its text."""

from __future__ import annotations

import html as html_lib
import re
from collections import Counter
from collections.abc import Set
from html.parser import HTMLParser

#: MathML Core's elements but <annotation-xml>, whose HTML content would be an HTML page's inside a formula,
#: and <maction>, which MathML Core shows as its first child only.
MATHML_TAGS = frozenset("""math annotation merror mfrac mi mmultiscripts mn mo mover mpadded mphantom
    mprescripts mroot mrow ms mspace msqrt mstyle msub msubsup msup mtable mtd mtext mtr munder munderover
    semantics""".split())
_TOKENS = ("mi", "mn", "mo", "ms", "mtext")
_HOLD_TEXT = frozenset({*_TOKENS, "annotation"})
#: The attributes kept, per element: what a formula means or how it is laid out, never a colour or a style.
MATHML_ATTRIBUTES = {
    "math": {"display", "alttext"}, "annotation": {"encoding"}, "mstyle": {"displaystyle", "scriptlevel"},
    "mfrac": {"linethickness"}, "mover": {"accent"}, "munder": {"accentunder"},
    "munderover": {"accent", "accentunder"},
    **{token: {"mathvariant"} for token in _TOKENS if token != "mo"},
    "mo": {"mathvariant", "form", "fence", "separator", "stretchy", "symmetric", "largeop", "movablelimits"},
}
_TRUE_OR_FALSE = "true|false"
_LENGTH = r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:em|ex|px|in|cm|mm|pt|pc|%)?"
#: The values a kept attribute may have; any for one not named here (`alttext`, `encoding`).
_VALUES = {
    "display": re.compile("block|inline"),
    "mathvariant": re.compile("normal|bold|italic|bold-italic|double-struck|bold-fraktur|script|bold-script"
                              "|fraktur|sans-serif|bold-sans-serif|sans-serif-italic|sans-serif-bold-italic"
                              "|monospace|initial|tailed|looped|stretched"),
    "form": re.compile("prefix|infix|postfix"),
    "scriptlevel": re.compile(r"[+-]?[0-9]{1,2}"),
    "linethickness": re.compile(f"{_LENGTH}|thin|medium|thick"),
    **{name: re.compile(_TRUE_OR_FALSE) for name in ("displaystyle", "fence", "separator", "stretchy", "symmetric",
                                                     "largeop", "movablelimits", "accent", "accentunder")},
}


def mathml_value(attribute: str, value: str) -> str | None:
    """The value kept for a MathML element's `attribute`, or None to leave it out (one HTML5 does not allow)."""
    allowed = _VALUES.get(attribute)
    return value if allowed is None or allowed.fullmatch(value) else None


#: A tag of the cleaner's output (see `cleaning._outside_rel`): `<name` + ` name="value"`* + `>`, or an end tag.
_TAG = re.compile(r'<(/?)([a-z][a-z0-9-]*)(?:\s+[a-z-]+="[^"]*")*>')


def mathml_only(html: str) -> str:
    """The cleaner's `html` with only MathML inside each <math>: the tags of an HTML element in one (a <b> in
    an <mi>, a link in an <mtext>), and of a <math> in one, go, their text kept (MathML allows neither), and
    text standing outside a token element (`<mrow>x + 1</mrow>`) is put in an <mtext>, which MathML holds text in."""
    if "<math" not in html:
        return html  # nearly every text
    pieces: list[str] = []
    open_elements: list[tuple[str, bool]] = []  # the MathML elements open here, each with whether its tags stay
    position = 0
    for tag in _TAG.finditer(html):
        text = html[position:tag.start()]
        stray = text.strip() and open_elements and open_elements[-1][0] not in _HOLD_TEXT
        pieces.append(f"<mtext>{text}</mtext>" if stray else text)
        position = tag.end()
        closing, name = tag.group(1), tag.group(2)
        if not open_elements and (closing or name != "math"):
            pieces.append(tag.group(0))  # outside a formula
            continue
        if name not in MATHML_TAGS:
            continue  # an HTML element in a formula
        if closing:
            kept = open_elements.pop()[1]
        else:
            kept = name != "math" or not open_elements  # a formula in a formula is part of it
            open_elements.append((name, kept))
        pieces.append(tag.group(0) if kept else "")
    pieces.append(html[position:])
    return "".join(pieces)


_MATH = re.compile(r'<math((?:\s+[a-z-]+="[^"]*")*)>(.*?)</math>', re.DOTALL)
_ALTTEXT = re.compile(r'\salttext="([^"]*)"')
_ANNOTATION = re.compile(r"<annotation(?:\s+[a-z-]+=\"[^\"]*\")*>.*?</annotation>", re.DOTALL)


def mathml_as_text(html: str) -> str:
    """`mathml_only`'s `html` with each <math> as the text it reads as: its `alttext`, else its text (its
    annotation, a TeX source say, which no page shows, left out). A cleaner of plain text drops a MathML element
    with its content, as any foreign element."""
    def text(match: re.Match[str]) -> str:
        alttext = _ALTTEXT.search(match.group(1))
        if alttext is not None and alttext.group(1).strip():
            return alttext.group(1)
        return _TAG.sub("", _ANNOTATION.sub("", match.group(2)))

    return _MATH.sub(text, html) if "<math" in html else html


def formulas_read_bare(html: str) -> list[str]:
    """The text each formula of a page's `html` without an `alttext` is read as (see `mathml_as_text`)."""
    return [" ".join(html_lib.unescape(mathml_as_text(formula.group(0))).split()) for formula in _MATH.finditer(html)
            if not (alttext := _ALTTEXT.search(formula.group(1))) or not alttext.group(1).strip()]


#: MathML's element names: those kept (`MATHML_TAGS`) and those whose content stays (see `formula_text_kept`).
_MATHML_NAMES = MATHML_TAGS | {"maction", "annotation-xml", "mglyph", "malignmark"}
#: A tag whose name may be MathML's (a `<mark>` too: the name is looked up), found faster than by naming each.
_MAYBE_MATHML_TAG = re.compile(r"</?((?:m|semantics|annotation)[a-z-]*)(?=[\s/>])", re.IGNORECASE)
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
#: Elements whose content is text to an HTML parser outside a formula (not inside one, where it reads tags).
_RAW_TEXT = frozenset("iframe noembed noframes noscript plaintext script style textarea title xmp".split())


def formula_text_kept(html: str, dropped_with_content: Set[str]) -> str:
    """`html` (raw, before the cleaner) with the tags of each HTML element written in a formula (`<b>` in a `<math>`,
    `<abbr>` in an `<mrow>`) and of each MathML element outside one (`<mi>x</mi>` without a `<math>`) taken out,
    their text kept: the cleaner's HTML parser moves the first out of the formula (a `<b>`, a `<span>`) or drops
    it with its text (an `<a>`, an `<abbr>`), and drops the second with its text. The text then stands in the
    formula, where `mathml_only` puts it in an `<mtext>`, or in the sentence. An image in a formula leaves its alt
    text; elements of `dropped_with_content` (a `<script>`) are left to the cleaner, which drops them whole."""
    if not any(tag.group(1).lower() in _MATHML_NAMES for tag in _MAYBE_MATHML_TAG.finditer(html)):
        return html  # nearly every text
    reader = _FormulaReader(dropped_with_content)
    reader.feed(html)
    reader.read_from = len(html) - len(reader.rawdata)  # what `close` reads is what `feed` left
    reader.close()
    pieces: list[str] = []
    position = 0
    for start, end, replacement in reader.edits:
        pieces.extend((html[position:start], replacement))
        position = end
    pieces.append(html[position:])
    return "".join(pieces)


class _FormulaReader(HTMLParser):
    """Finds the tags `formula_text_kept` takes out: `edits` holds (start, end, what stands for it), in order."""

    def __init__(self, dropped_with_content: Set[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.dropped_with_content = dropped_with_content
        self.edits: list[tuple[int, int, str]] = []
        self.read_from = 0  # where `rawdata` starts in the text (not `offset`: HTMLParser counts columns in it)
        self.formula: list[tuple[str, bool]] = []  # the elements open in a formula, each with whether its tags stay
        self.in_formula: Counter[str] = Counter()  # how many of each name `formula` holds
        self.outside: Counter[str] = Counter()  # the elements open outside a formula, by name
        self.replacement: str | None = None  # what stands for the tag just read (None: it stays)

    def parse_starttag(self, i: int) -> int:
        self.replacement = None
        end = super().parse_starttag(i)
        if end < 0:
            return end
        if self.lasttag in ("script", "style") and self.formula:
            self.clear_cdata_mode()  # in a formula, tags are read in them too, as the cleaner's parser does
        elif self.lasttag in _RAW_TEXT and not self.formula:
            self.set_cdata_mode(self.lasttag)
        self._edit(i, end)
        return end

    def parse_endtag(self, i: int) -> int:
        self.replacement = None
        end = super().parse_endtag(i)
        self._edit(i, end)
        return end

    def _edit(self, start: int, end: int) -> None:
        if end >= 0 and self.replacement is not None:
            self.edits.append((self.read_from + start, self.read_from + end, self.replacement))
        self.replacement = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, closed=tag in _VOID)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, closed=True)

    def _start(self, tag: str, attrs: list[tuple[str, str | None]], closed: bool) -> None:
        if not self.formula:
            if tag == "math":
                if not closed:
                    self.formula.append(("math", True))
                    self.in_formula["math"] += 1
            elif tag in _MATHML_NAMES:
                self.replacement = ""
            elif not closed:
                self.outside[tag] += 1
            return
        if tag == "sup" and ("class", "cite") in attrs:
            # A citation's mark ends the formula, as HTML ends it there: its anchor, which the source links back
            # to, stays (no MathML element holds an id).
            self.formula.clear()
            self.in_formula.clear()
            self.outside[tag] += 1
            return
        kept = tag in MATHML_TAGS or tag in self.dropped_with_content
        if not kept:
            self.replacement = html_lib.escape(dict(attrs).get("alt") or "", quote=False) if tag == "img" else \
                " " if tag == "br" else ""
        if not closed:
            self.formula.append((tag, kept))
            self.in_formula[tag] += 1

    def handle_endtag(self, tag: str) -> None:
        if self.formula and self.in_formula[tag]:
            while True:  # the elements opened after it end with it
                name, kept = self.formula.pop()
                self.in_formula[name] -= 1
                if name == tag:
                    break
            self.replacement = None if kept else ""
            return
        if self.formula and not (tag in ("p", "br") or self.outside[tag]):
            self.replacement = ""  # an end tag of nothing open: the cleaner's parser ignores it
            return
        if self.formula:  # it ends an element the formula is in, and the formula with it
            self.formula.clear()
            self.in_formula.clear()
        if tag in _MATHML_NAMES:
            self.replacement = ""
        elif self.outside[tag]:
            self.outside[tag] -= 1
