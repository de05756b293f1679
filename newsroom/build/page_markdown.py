"""A page's Markdown renderer: every field it renders gets anchors of its own, and the source list links back to them.

`newsroom.build.pages.Planner.markdown` makes one for each page it plans.
"""

from __future__ import annotations

from markupsafe import Markup

from newsroom.render.markdown import MarkdownRenderer, citation_backrefs


class PageMarkdown:
    """One page's Markdown renderer: each field it renders gets its own citation-anchor prefix.

    A page renders many fields that cite the same sources; with one prefix their
    anchors (`cite-1-1`) would repeat, which is invalid HTML. The first field keeps
    `cite`, later ones get `cite2`, `cite3`, … in template order, so output stays deterministic.
    `backrefs` gives the ids of the citation marks rendered so far, for the source list's links back.
    """

    def __init__(self, renderer: MarkdownRenderer) -> None:
        self.renderer, self.fields = renderer, 0
        self._cited: list[tuple[str, str]] = []  # (text, its anchor prefix), read only if `backrefs` is

    def _prefix(self, text: str, given: str | None) -> str:
        if given is None:
            self.fields += 1
            given = "cite" if self.fields == 1 else f"cite{self.fields}"
        if self.renderer.citation_href is not None:  # else citations are shown as "[n]", with no id
            self._cited.append((text, given))
        return given

    def html(self, text: str, *, anchor_prefix: str | None = None) -> Markup:
        return self.renderer.html(text, anchor_prefix=self._prefix(text, anchor_prefix))

    def inline(self, text: str, *, anchor_prefix: str | None = None) -> Markup:
        return self.renderer.inline(text, anchor_prefix=self._prefix(text, anchor_prefix))

    @property
    def backrefs(self) -> dict[int, list[str]]:
        """{source number: the ids of its citation marks}, in the order the texts were rendered (page order)."""
        ids: dict[int, list[str]] = {}
        for text, prefix in self._cited:
            for number, anchors in citation_backrefs(text, anchor_prefix=prefix).items():
                ids.setdefault(number, []).extend(anchors)
        return ids

    def html_split(self, text: str) -> tuple[Markup, Markup]:
        """`html(text)` cut after its first paragraph, so that something can stand between it and the rest
        (an entry's analogy, second in *In plain terms* as the seed page has it); a text that does not open
        with a paragraph is all first."""
        html = self.html(text)
        # The cleaner writes a parsed tree back, so the first `</p>` closes the opening <p>: a
        # paragraph holds no paragraph, and a `</p>` written in the text is escaped.
        end = html.find("</p>") + len("</p>") if html.startswith("<p>") else len(html)
        return Markup(html[:end]), Markup(html[end:].lstrip("\n"))
