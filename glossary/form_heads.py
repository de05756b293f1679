"""Which of a term matcher's forms can match in a text, by their first words: a rebuild matches again
only the texts that hold the first word of a form a glossary edit added, removed or reassigned."""

from __future__ import annotations

import hashlib
import html
from collections.abc import Collection, Iterable
from functools import cached_property

import ahocorasick

from glossary.folding import normalise_text
from glossary.matching import TermMatcher, automaton


def _heads_text(texts: Iterable[str]) -> str:
    """`texts` as `FormHeads` searches them: each as a matcher reads it (normalised) and with its
    character references decoded (as a page's HTML shows it), case folded, joined."""
    variants = []
    for text in texts:
        variants.append(normalise_text(text)[0])
        if "&" in text:
            variants.append(normalise_text(html.unescape(text))[0])
    return "\x00".join(variants).casefold()


class FormHeads:
    """A matcher's forms by their first word, case folded: which forms can match in a text.

    A form can match only where its first word occurs (see `TermMatcher._narrowed`), so the forms
    whose first word occurs anywhere in a text, as written or with its character references decoded,
    are every form that can match in it — or in the HTML made of it, whose text runs are pieces of
    the decoded text. Two matchers with the same such forms for a text find the same mentions in it
    and link the same terms. So what a text holds of them (`token`) changes with an edit to the
    glossary only when an added, removed or reassigned form's first word occurs in the text
    (`changed_heads`), and a build need match again only those texts.
    """

    def __init__(self, matcher: TermMatcher) -> None:
        sensitive, insensitive, self.exclude = matcher.forms()
        self.by_head: dict[str, list[tuple[str, str, str]]] = {}
        for kind, forms in (("=", sensitive), ("~", insensitive)):
            for form, slug in forms.items():
                self.by_head.setdefault(form.split(" ", 1)[0].casefold(), []).append((kind, form, slug))

    def compile(self) -> None:
        """Make the automaton now: before forking processes that will each search many texts."""
        self._found  # noqa: B018 (a cached property: computed here, once)

    @cached_property
    def _found(self) -> ahocorasick.Automaton | None:
        """Every first word in an automaton that finds them all in a text in one pass, wherever they occur
        (made in half a millisecond for a glossary's 1,300 first words: a rebuild's few texts need no other way)."""
        return automaton((head, head) for head in self.by_head)

    def heads_in(self, texts: Iterable[str]) -> set[str]:
        """The first words that occur in `texts` (see `_heads_text`)."""
        if self._found is None:
            return set()
        return {head for _, head in self._found.iter(_heads_text(texts))}

    def token(self, texts: Iterable[str]) -> str:
        """A short hash of the forms that can match in `texts`, with the excluded words."""
        forms = sorted(form for head in self.heads_in(texts) for form in self.by_head[head])
        return hashlib.blake2b(repr((forms, self.exclude)).encode("utf-8", "surrogatepass"),
                               digest_size=8).hexdigest()

    def changed_heads(self, before: FormHeads) -> set[str] | None:
        """The first words of the forms one has and the other does not (or for another term); None when
        the excluded words differ (every text may match otherwise)."""
        if self.exclude != before.exclude:
            return None
        forms = {(head, form) for head, found in self.by_head.items() for form in found}
        earlier = {(head, form) for head, found in before.by_head.items() for form in found}
        return {head for head, _ in forms ^ earlier}


def holds_any(texts: Iterable[str], heads: Collection[str]) -> bool:
    """Whether any of `heads` (see `FormHeads.changed_heads`) occurs in `texts`."""
    if not heads:
        return False
    searched = _heads_text(texts)
    return any(head in searched for head in heads)
