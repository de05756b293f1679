"""Term matching through the build: "In the news", explicit and suppressed terms, first-mention links."""

from __future__ import annotations

import email
import email.policy
import itertools
from pathlib import Path

import html5lib
import pytest
from conftest import Cli

STORY = """\
kind: story
slug: {slug}
issue: 13
section: code
position: {position}
{extra}
sources: [{{publisher: X, title: Y, url: "https://example.org/"}}]
hu:
  headline: {hu_headline}
  summary: "{hu}"
en:
  headline: {en_headline}
  summary: "{en}"
"""


#: A story whose summary names Trainium in inline code only and whose body has it in a fenced and an
#: indented code block, then maybe in prose.
CODE_STORY = """\
kind: story
slug: {slug}
issue: 13
section: code
position: {position}
sources: [{{publisher: X, title: Y, url: "https://example.org/"}}]
hu:
  headline: Cím {slug}
  summary: "A `trainium` kulcs."
  body: "```\\ntrainium --gyors\\n```\\n\\n    trainium kód{hu}"
en:
  headline: Headline {slug}
  summary: "The `trainium` key."
  body: "```\\ntrainium --fast\\n```\\n\\n    trainium code{en}"
"""


def story(slug: str, position: int, hu: str, en: str, extra: str = "") -> str:
    return STORY.format(slug=slug, position=position, extra=extra, hu=hu, en=en,
                        hu_headline=f"Cím {slug}", en_headline=f"Headline {slug}")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample plus a few test stories, built once for this module."""
    folder = tmp_path_factory.mktemp("matching-site")
    twice = story("t-twice", 94, "A Trainium olcsó.", "Trainium is cheap.")
    for lang, body in (("hu", "A Trainium ritka is."), ("en", "Trainium is also rare.")):
        summary = twice.split(f"{lang}:\n", 1)[1].split("\n", 2)[1]
        twice = twice.replace(summary, f'{summary}\n  body: "{body}"')
    stories = {
        "stories/e.yaml": twice,
        # Hungarian suffix only; the English text names no term at all
        "stories/a.yaml": story("t-suffixed", 90, "Az Amazon a Trainiumot bérbe adja. A Trainiumot sokan bérlik.",
                                "Amazon rents it out."),
        "stories/b.yaml": story("t-suppressed", 91, "A Trainiumot itt csak hasonlatként említjük.",
                                "Trainium is only a figure of speech here.", "suppress_terms: [trainium]"),
        "stories/c.yaml": story("t-generation", 92, "A Trainium2 gyorsabb.", "Trainium2 is faster."),
        "stories/d.yaml": story("t-explicit", 93, "Egy chip, név nélkül.", "A chip, unnamed.", "terms: [trainium]"),
        # A name inside a dotted name, an address or code is no mention; one at a sentence's end is
        "stories/f.yaml": story("t-dotted", 95, "Lásd: trainium.example.com és aws.trainium.",
                                "See trainium.example.com and aws.trainium."),
        "stories/g.yaml": story("t-address", 96, "Írjon: trainium@example.com, https://example.com/trainium-guide",
                                "Write to trainium@example.com, or read https://example.com/trainium-guide"),
        "stories/h.yaml": CODE_STORY.format(slug="t-code", position=97, hu="", en=""),
        "stories/i.yaml": CODE_STORY.format(slug="t-code-then", position=98, hu="\\n\\nA Trainiumon fut.",
                                            en="\\n\\nIt runs on Trainium."),
        "stories/j.yaml": story("t-sentence-end", 99, "Az AWS Trainiumot ad. Ez a Trainium.",
                                "It runs on Trainium. Next is Trainium."),
        # What the page shows decides: nothing of a <script> or <style>, an escaped <code> as text, and a
        # character reference as its character
        "stories/k.yaml": story("t-hidden", 100, "<script>Trainium</script>Szöveg.<style>/* Trainium */</style>",
                                "<script>Trainium</script>Text.<style>/* Trainium */</style>"),
        "stories/l.yaml": story("t-escaped", 101, "Egy \\\\<code>Trainium</code> szöveg.",
                                "An \\\\<code>Trainium</code> text."),
        "stories/m.yaml": story("t-reference", 102, "A &#84;rainiumon &amp; másutt.",
                                "It runs on &#84;rainium &amp; more."),
        # Nothing of a raw tag is shown as text (a title is a tooltip, a raw image's alt no text part reads),
        # nor a Markdown link's title; a Markdown image's alt is read in place of the image by the email's
        # text part
        "stories/n.yaml": story("t-attribute", 103, *(
            f'<abbr title=\\"Trainium\\">T</abbr> <img src=\\"https://example.org/c.png\\" alt=\\"Trainium\\"> '
            f'<a href=\\"https://example.org/\\" title=\\"Trainium\\">{word}</a> '
            f'[{word}](https://example.org/d \\"Trainium\\")' for word in ("lapka", "chip"))),
        "stories/o.yaml": story("t-image-alt", 104, "![Trainium lapka](https://example.org/c.png)",
                                "![Trainium chip](https://example.org/c.png)").replace(
            "\nen:", '\n  body: "A Trainiumot bérlik."\nen:') + '  body: "Trainium is rented."\n',
    }
    for relative, text in stories.items():
        (folder / "content" / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / "content" / relative).write_text(text, encoding="utf-8")
    cli = Cli(f"sqlite:///{folder / 'site.db'}", folder)
    cli("init", "--sample")
    cli("import", "--correction", "--reason", "corrected", str(folder / "content"))
    cli("build", "--out", str(folder / "_site"))
    return folder / "_site"


def parse(path):
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(path.read_bytes())


def news_stories(site, lang: str, slug: str) -> list[str]:
    document = parse(site / lang / "glossary" / slug / "index.html")
    news = next((s for s in document.iter("section") if s.get("id") == "news"), None)
    if news is None:
        return []
    return [a.get("href").split("#story-")[1] for a in news.iter("a")]


def test_in_the_news_follows_matches_explicit_terms_and_suppressions(site):
    for lang in ("hu", "en"):
        trainium = news_stories(site, lang, "trainium")
        assert "t-suffixed" in trainium          # "Trainiumot" is Trainium with a suffix
        assert "t-explicit" in trainium          # tagged by hand, not named in the text
        assert "t-suppressed" not in trainium    # a false match the editor dropped
        assert "t-generation" not in trainium    # "Trainium2" is another entry
        assert "t-generation" in news_stories(site, lang, "trainium2")


def _story(site, lang: str, slug: str):
    document = parse(site / lang / "issues" / "13" / "index.html")
    return next(a for a in document.iter("article") if a.get("id") == f"story-{slug}")


def test_the_first_mention_of_a_term_is_linked_once(site):
    article = _story(site, "hu", "t-suffixed")
    links = [(a.get("href"), "".join(a.itertext())) for a in article.iter("a") if a.get("class") == "term"]
    assert links == [("/hu/glossary/trainium/", "Trainiumot")]


def test_a_suppressed_term_is_not_linked(site):
    for lang in ("hu", "en"):
        article = _story(site, lang, "t-suppressed")
        assert [a for a in article.iter("a") if a.get("class") == "term"] == []


def test_a_term_linked_in_the_summary_is_not_linked_again_in_the_body(site):
    for lang in ("hu", "en"):
        article = _story(site, lang, "t-twice")
        assert len([a for a in article.iter("a") if a.get("class") == "term"]) == 1


def test_mentions_spread_over_processes_are_the_mentions_matched_in_one(sample_cli: Cli,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # A build with many stories to match spreads them over forked workers, a few stories per work.
    from newsroom.build import derived
    from newsroom.build.model import load_content
    from newsroom.build.rendering import run_all
    from newsroom.build.memos import Memo
    from newsroom.db.session import make_engine, session_factory
    from newsroom.settings import Settings

    engine = make_engine(sample_cli.db_url)
    with session_factory(engine)() as session:
        content = load_content(session)
    engine.dispose()
    alone = derived.derive(content, Settings(), False).mentions
    monkeypatch.setattr(derived, "SPREAD_STORIES", 2)
    monkeypatch.setattr(derived, "STORIES_PER_WORK", 3)
    spread = derived.derive(content, Settings(), False, run=run_all).mentions
    remembered = derived.derive(content, Settings(), False, memo=Memo(), run=run_all).mentions
    assert list(spread.items()) == list(alone.items()) == list(remembered.items())
    assert sum(map(len, alone.values())) > len(alone)  # the sample's stories mention terms


def _term_links(site, lang: str, slug: str) -> list[tuple[str, str]]:
    return [(a.get("href"), "".join(a.itertext())) for a in _story(site, lang, slug).iter("a")
            if a.get("class") == "term"]


def test_a_name_in_a_dotted_name_an_address_or_code_is_no_mention(site):
    # Neither linked on the story's page nor counted in *In the news*, in either language.
    for lang in ("hu", "en"):
        trainium = news_stories(site, lang, "trainium")
        for slug in ("t-dotted", "t-address", "t-code"):
            assert slug not in trainium, (lang, slug)
            assert _term_links(site, lang, slug) == [], (lang, slug)
        assert "t-code-then" in trainium and "t-sentence-end" in trainium


def test_a_name_at_a_sentence_s_end_or_after_code_is_linked(site):
    assert _term_links(site, "hu", "t-sentence-end") == [("/hu/glossary/trainium/", "AWS Trainiumot")]
    assert _term_links(site, "en", "t-sentence-end") == [("/en/glossary/trainium/", "Trainium")]
    # The summary's `trainium` is code: the body's first mention in prose is the one linked.
    assert _term_links(site, "hu", "t-code-then") == [("/hu/glossary/trainium/", "Trainiumon")]
    assert _term_links(site, "en", "t-code-then") == [("/en/glossary/trainium/", "Trainium")]


def test_a_name_the_page_shows_is_a_mention_and_one_it_hides_is_not(site):
    for lang in ("hu", "en"):
        trainium = news_stories(site, lang, "trainium")
        assert "t-hidden" not in trainium and _term_links(site, lang, "t-hidden") == []
        for slug in ("t-escaped", "t-reference"):
            assert slug in trainium, (lang, slug)
    assert _term_links(site, "hu", "t-escaped") == [("/hu/glossary/trainium/", "Trainium")]
    assert _term_links(site, "en", "t-escaped") == [("/en/glossary/trainium/", "Trainium")]
    assert _term_links(site, "hu", "t-reference") == [("/hu/glossary/trainium/", "Trainiumon")]
    assert _term_links(site, "en", "t-reference") == [("/en/glossary/trainium/", "Trainium")]


def test_a_name_in_a_raw_tag_is_no_mention_and_an_image_s_alt_is(site):
    """A name only in a raw tag's attribute was counted (In the news, the story's terms) though the page shows
    it nowhere as text and links it nowhere; a Markdown image's alt is read in the email's text part."""
    for lang in ("hu", "en"):
        trainium = news_stories(site, lang, "trainium")
        assert "t-attribute" not in trainium and "t-image-alt" in trainium
        hrefs = {a.get("href") for a in _story(site, lang, "t-attribute").iter("a")}
        assert f"/{lang}/glossary/trainium/" not in hrefs
        terms = [a.get("href") for p in _story(site, lang, "t-image-alt").iter("p") if p.get("class") == "story-terms"
                 for a in p.iter("a")]
        assert terms == [f"/{lang}/glossary/trainium/"]
        raw = (site.parent / "_email" / lang / "issue-13.eml").read_bytes()
        text = email.message_from_bytes(raw, policy=email.policy.default).get_body(("plain",)).get_content()
        assert {"hu": "Trainium lapka", "en": "Trainium chip"}[lang] in text
    # No link can stand in the summary's alt text: the body's first mention is the one linked.
    assert _term_links(site, "hu", "t-image-alt") == [("/hu/glossary/trainium/", "Trainiumot")]
    assert _term_links(site, "en", "t-image-alt") == [("/en/glossary/trainium/", "Trainium")]


def _email_term_links(site, lang: str, slug: str) -> list[str]:
    """The glossary links of a story's summary in the latest issue's email (the build's email folder)."""
    raw = (site.parent / "_email" / lang / "issue-13.eml").read_bytes()
    html = email.message_from_bytes(raw, policy=email.policy.default).get_body(("html",)).get_content()
    for parent in html5lib.parse(html, namespaceHTMLElements=False).iter():
        children = list(parent)
        for index, child in enumerate(children):
            if child.tag == "h3" and any(a.get("href", "").endswith(f"#story-{slug}") for a in child.iter("a")):
                block = itertools.takewhile(lambda element: element.tag != "h3", children[index + 1:])
                return ["".join(a.itertext()) for element in block for a in element.iter("a")
                        if "/glossary/" in a.get("href", "")]
    raise AssertionError(f"no story {slug} in the {lang} email")


def test_the_email_links_no_name_in_a_dotted_name_an_address_or_code(site):
    for lang in ("hu", "en"):
        for slug in ("t-dotted", "t-address", "t-code"):
            assert _email_term_links(site, lang, slug) == [], (lang, slug)
    assert _email_term_links(site, "hu", "t-sentence-end") == ["AWS Trainiumot"]
    assert _email_term_links(site, "en", "t-sentence-end") == ["Trainium"]
