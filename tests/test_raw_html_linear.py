"""What raw HTML pasted by the thousand of tags is read as: the same as a straightforward reading would.

The code these tests compare was rewritten so that a paste of tens of KB is read in linear time (its before and
after timings are in the commit messages; performance is shown by measurements, not by timing tests)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from newsroom.render.markdown import left_out
from newsroom.render.markdown.cleaning import _NO_LINK, _html_cleaner, _Markup, _unwrapped
from newsroom.render.markdown.parsing import DEFAULT_MAX_NESTING, _parse, _parser, _Prose

RAW_PIECES = st.sampled_from([
    "<span>", "</span>", "<p>", "</p>", "<em>", "<a href=\"/x\">", "<a href=\"javascript:x\">", "</a>", "<a>",
    "<img src=\"a.png\" onerror=\"x\">", "<img alt=\"\">", "<script>", "</script>", "<dl>", "<dt>", "<dd>",
    "</dl>", "<table>", "<tr>", "</tr>", "<td rowspan=\"0\">", "<td colspan=\"3\">", "<th rowspan=\"2\">", "<td>",
    "</td>", "</table>", "<details>", "<summary>", "<figure>", "<figcaption>", "<li>", "<ul>", "</ul>",
    "<object>", "<param>", "<select>", "<option>", "<noscript>", "<textarea>", "</textarea>", "<dfn>",
    "<blockquote>", "x", "y z", " ", "\n", "\n\n", "[1]", "](javascript:x)", "[a](/b)"])
RAW_HTML = st.lists(RAW_PIECES, max_size=60).map("".join)


def _left_out_reading_each_time(text: str) -> list[str]:
    """`left_out` as it was, reading the cleaner's kept tags and attributes again for each element."""
    found = [f"[…]({match[1].lower()}:…)" for match in _NO_LINK.finditer(text)] if "](" in text else []
    if "<" not in text:
        return found
    tokens = _parse(_parser(DEFAULT_MAX_NESTING), text)
    if isinstance(tokens, _Prose):
        return found
    raw = [token.content for block in tokens for token in (
        [block] if block.type == "html_block" else block.children or [] if block.type == "inline" else [])
        if token.type in ("html_block", "html_inline")]
    if not raw:
        return found
    fragment = "".join(raw)
    kept = _Markup.of(_html_cleaner().clean(_unwrapped(fragment)))
    for tag, attributes in _Markup.of(fragment).elements:
        if tag not in kept.tags:
            found.append(f"<{tag}>")
        else:
            found.extend(f"{name}= of <{tag}>" for name in attributes if (tag, name) not in kept.attributes)
    return list(dict.fromkeys(found))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=RAW_HTML)
def test_what_the_pages_leave_out_is_what_a_reading_of_each_element_finds(text: str) -> None:
    """The tags and attributes `check` says the pages leave out of a paste are those found by looking up each
    of its elements among what the cleaner keeps, however many tags it holds."""
    assert left_out(text) == _left_out_reading_each_time(text)


def test_a_paste_of_thousands_of_nested_spans_and_scripts_names_each_left_out_once() -> None:
    """Thousands of elements, most kept, some left out: each left out once, in order."""
    assert left_out("<span>" * 3000 + "<script>x</script>" + "<b onclick=\"y\">z</b>" * 500) \
        == ["<script>", "onclick= of <b>"]
