"""What a build computes from the content once, before planning pages: visibility, mentions, relations."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any


from glossary.graph import relations_of
from glossary.form_heads import FormHeads, holds_any
from glossary.matching import TermMatcher
from glossary.mentions import entry_labels, in_the_news, matched_terms, matchers, mentions_of, story_texts
from glossary.views import letter_groups
from issues.archive import issue_date, tag_slug
from issues.dates import format_week
from issues.visibility import is_public, publication_time, visible_numbers
from newsroom.build.memos import Memo
from newsroom.build.model import Content, Record
from newsroom.drafts import unwritten_names
from newsroom.settings import Settings



@dataclass(frozen=True)
class Derived:
    """What the build computes from the content once, before planning pages."""

    visible_issues: tuple[int, ...]  # newest first: the latest publication first (issues.visibility.latest_first)
    mentions: Mapping[str, tuple[str, ...]]  # story → entries
    news: Mapping[str, list[str]]  # entry → stories, newest first
    relations: Mapping[str, Mapping[str, list[Any]]]
    #: lang → every entry's labels. A page that links a story's terms reads the story's `term_forms`, not
    #: these; one that read a matcher would depend on its labels (TermMatcher's repr), not on the object.
    matchers: Mapping[str, TermMatcher] = field(default_factory=dict)
    #: "lang/slug" → the entry's headword in that language (with the language fallback). A page that
    #: shows an entry's name depends on the name, not on the whole entry.
    headwords: Mapping[str, str] = field(default_factory=dict)
    #: story → what places it in the archive (issue, section, position, tags, languages with text). The
    #: archive's lists depend on these of every story, but on the text only of the stories they show.
    story_facts: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    #: Public issues (published, or scheduled and due by the build clock), newest first, even in a
    #: preview: what feeds and emails carry.
    public_issues: tuple[int, ...] = ()
    #: lang → the visible issues that appear in that language, newest first. Every page's frame
    #: depends on these numbers (and the next field's), not on every issue record.
    shown: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    #: lang → the shown issues that are public (the home page and the masthead name the first).
    shown_public: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    #: entry → the languages it has text in. A link to an entry, or its name in a list, depends on
    #: these (and the headword), not on the entry's definition.
    entry_langs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: page → (its kind, the languages it has text in): what a link to it depends on.
    page_langs: Mapping[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    #: lang → the masthead's issue line: (number, week) of the first of `shown_public`, or None. Every
    #: page shows it, and only pages' frames read it, so a page whose only changed read is this one
    #: changed only there (see build/masthead.py).
    masthead: Mapping[str, tuple[int, str] | None] = field(default_factory=dict)
    #: "lang/number" → the (newer, older) issues next to a shown one in that language: what its
    #: page's links to them depend on, not the whole list.
    neighbours: Mapping[str, tuple[int | None, int | None]] = field(default_factory=dict)
    #: tag slug → the stories carrying it, of any issue, by key. A tag's page depends on its own list
    #: (and on those stories), not on every story's tags: a story tagged otherwise leaves it alone.
    tagged: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: year → the stories of the issues that came out that year, by key. A year's archive page depends on
    #: its own list (and on those stories): an issue published this year leaves earlier years' pages alone.
    years: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    #: "section/year" → the stories of that section of the issues that came out that year, by key. A
    #: section's page for a year depends on its own list, the way a year's page does.
    section_years: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: lang → the letters of its A–Z index that have entries, in the index's order. The letter bar of the
    #: glossary's pages depends on these, not on every headword.
    letters: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: "lang/letter" → the entries under that letter, in dictionary order. A letter's page depends on its
    #: own list (and those entries' names and definitions): an entry renamed within its letter, or
    #: another letter's entry added, leaves the other letters' pages alone.
    lettered: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: "lang/story" → a token of the glossary's forms that can match in the story's text in that language
    #: (see glossary.form_heads.FormHeads). Linking a story's terms depends on it, not on every form: a
    #: new alias changes the pages of the stories that hold its first word, not every story's.
    term_forms: Mapping[str, str] = field(default_factory=dict)
    #: tag slug → its names in the site file ({lang: name}). A page that shows a tag depends on its names, not
    #: on the whole list: a tag renamed remakes the pages that show it.
    tag_names: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    #: story → when a correction last named it in its issue (absent: never). A feed's item for a story depends on
    #: this, not on every correction of its issue: an edit to one story of the latest issue remakes the feeds
    #: that show it, not every section's.
    story_corrected: Mapping[str, dt.datetime] = field(default_factory=dict)
    #: section → the stories its feeds show, newest first (see `section_feeds`). A section's feed depends on its
    #: own list (and those stories), not on every story's facts: a story of another section, or one retagged in
    #: the archive, leaves it alone.
    section_feeds: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def languages_of(record: Record, settings: Settings) -> tuple[str, ...]:
    """The languages `record` has a page in: all of them under "fallback", its own under "omit"."""
    return pages_in(texts_of(record, settings), settings)


def texts_of(record: Record, settings: Settings) -> tuple[str, ...]:
    """The languages `record` has text in, in the site's order."""
    return tuple(lang for lang in settings.languages if record.has(lang))


def text_language(texts: tuple[str, ...], lang: str, languages: tuple[str, ...]) -> str:
    """Which language's text a page in `lang` shows of a record with text in `texts`: its own, else the
    first of `languages` the record has (else `lang`, with no text at all)."""
    return lang if lang in texts else next((other for other in languages if other in texts), lang)


def pages_in(texts: tuple[str, ...], settings: Settings) -> tuple[str, ...]:
    """The languages a record with text in `texts` has a page in (see `languages_of`)."""
    return texts if settings.missing_translation == "omit" else (settings.languages if texts else ())


def tagged(facts: Mapping[str, tuple[Any, ...]]) -> dict[str, tuple[str, ...]]:
    """{tag slug: the stories carrying it, in key order}, from the stories' facts (see `story_facts`);
    tags differing only in case or a Latin letter's accents are one (see issues.archive.tag_slug)."""
    found: dict[str, list[str]] = {}
    for slug, (_, _, _, tags, _) in sorted(facts.items()):
        for tag in dict.fromkeys(map(tag_slug, tags)):
            found.setdefault(tag, []).append(slug)
    return {tag: tuple(slugs) for tag, slugs in sorted(found.items())}


def stories_by_year(content: Content, settings: Settings) -> dict[int, tuple[str, ...]]:
    """{year: the stories of the issues that came out that year (see issues.archive.issue_date), in key order}."""
    year_of = {number: issue_date(issue, settings.zone).year for number, issue in content.issues.items()}
    found: dict[int, list[str]] = {}
    for slug, story in sorted(content.stories.items()):
        found.setdefault(year_of[story.data["issue"]], []).append(slug)
    return {year: tuple(slugs) for year, slugs in sorted(found.items())}


def sections_by_year(content: Content, years: Mapping[int, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """{"section/year": its stories of the issues that came out that year, in key order} (see
    stories_by_year), newest year first within each section."""
    found: dict[tuple[str, int], list[str]] = {}
    for year, slugs in sorted(years.items(), reverse=True):
        for slug in slugs:
            found.setdefault((content.stories[slug].data["section"], year), []).append(slug)
    ordered = sorted(found.items(), key=lambda item: item[0][0])  # by section; each one's years stay newest first
    return {f"{section}/{year}": tuple(slugs) for (section, year), slugs in ordered}


def story_facts(content: Content, languages: tuple[str, ...]) -> dict[str, tuple[Any, ...]]:
    return {slug: (story.data["issue"], story.data["section"], story.data["position"],
                   tuple(story.data.get("tags") or ()), tuple(lang for lang in languages if story.has(lang)))
            for slug, story in content.stories.items()}


#: Runs works (no-argument callables), maybe over several processes, and returns their results in order.
Runner = Callable[[Sequence[Callable[[], Any]]], list[Any]]
#: From this many stories to match, a `Runner` spreads the matching over the cores.
SPREAD_STORIES = 500
#: Stories per work when spread.
STORIES_PER_WORK = 250


def derive(content: Content, settings: Settings, drafts: bool, now: dt.datetime | None = None,
           memo: Memo | None = None, run: Runner | None = None,
           made: tuple[str, Mapping[str, TermMatcher]] | None = None,
           hidden: Mapping[str, Record] | None = None) -> Derived:
    """Visibility (see issues.visibility: drafts only in a preview; scheduled ones once `now` passes their
    time), mentions, "in the news", relations and term matchers, computed once per build.

    `memo` remembers story mentions across builds; `run` spreads matching many stories over the cores;
    `made` is what `term_matchers` gives for this content and memo, if the caller made it already.
    `hidden` are the draft entries a public build leaves out of `content` (see newsroom.drafts): only
    their headwords are kept, the text a published entry's relation to one shows without a link ("" for
    one still the starter's TODO, which is left out)."""
    visible = visible_numbers(content, drafts, now, settings.zone)
    glossary, by_lang = made if made is not None else term_matchers(content, settings.languages, memo)
    matched = (spread_matches(content, by_lang, {lang: FormHeads(m) for lang, m in by_lang.items()}, run)
               if memo is None else remembered_matches(content, memo, by_lang, glossary, run))
    mentions = {slug: mentions_of(story, matched[slug][0], content.entries) for slug, story in content.stories.items()}
    public = visible if not drafts else visible_numbers(content, False, now, settings.zone)
    shown = {lang: tuple(n for n in visible if lang in languages_of(content.issues[n], settings))
             for lang in settings.languages}
    shown_public = {lang: tuple(n for n in numbers if is_public(content.issues[n], now))
                    for lang, numbers in shown.items()}
    facts = story_facts(content, settings.languages)
    years = stories_by_year(content, settings)
    names = headwords({**(hidden or {}), **content.entries}, settings.languages)
    unwritten_names(hidden or {}, names, settings.languages)  # a starter's TODO is shown on no published page
    entry_langs = {slug: texts_of(entry, settings) for slug, entry in content.entries.items()}
    lettered = letter_lists(entry_langs, names, settings, memo)
    return Derived(visible, mentions, in_the_news(content, mentions, visible), relations_of(content), by_lang,
                   names, facts, public,
                   shown, shown_public,
                   entry_langs,
                   {slug: (page.kind, texts_of(page, settings)) for slug, page in content.pages.items()},
                   {lang: issue_line(content, numbers[0], lang) if numbers else None
                    for lang, numbers in shown_public.items()},
                   {f"{lang}/{number}": (numbers[index - 1] if index > 0 else None,
                                         numbers[index + 1] if index + 1 < len(numbers) else None)
                    for lang, numbers in shown.items() for index, number in enumerate(numbers)},
                   tagged(facts), years, sections_by_year(content, years),
                   {lang: tuple(key.partition("/")[2] for key in lettered if key.partition("/")[0] == lang)
                    for lang in settings.languages},
                   lettered,
                   {f"{lang}/{slug}": token for slug, (_, tokens) in matched.items() for lang, token in tokens.items()},
                   content.vocabulary("tags"), story_corrected(content), section_feeds(content, public, settings))


def story_corrected(content: Content) -> dict[str, dt.datetime]:
    """{story: the time of the last correction naming it in the issue it is in} (see `Derived.story_corrected`)."""
    found: dict[str, dt.datetime] = {}
    for number, corrections in content.corrections.items():
        for correction in corrections:
            story = content.stories.get(correction.record_key) if correction.record_kind == "story" else None
            if story is not None and story.data["issue"] == number:
                slug = correction.record_key
                found[slug] = max(found[slug], correction.changed_at) if slug in found else correction.changed_at
    return found


def section_feeds(content: Content, public: Sequence[int], settings: Settings) -> dict[str, tuple[str, ...]]:
    """{section: the stories of the public issues (`public`, newest first) in it, at most `feed_limit`, newest
    first: by their issue's publication, then their place in it, then the issues' order, then key}."""
    rank = {number: index for index, number in enumerate(public)}
    times = {number: publication_time(content.issues[number], settings.zone).timestamp() for number in rank}
    found: dict[str, list[tuple[float, int, int, str]]] = {}
    for slug, story in content.stories.items():
        number = story.data["issue"]
        if number in rank:
            found.setdefault(story.data["section"], []).append((-times[number], story.data["position"], rank[number],
                                                                slug))
    return {section: tuple(row[3] for row in sorted(rows)[:settings.feed_limit])
            for section, rows in sorted(found.items())}


def issue_line(content: Content, number: int, lang: str) -> tuple[int, str]:
    """An issue's number and week as the masthead names them."""
    week = content.issues[number].data["week"]
    return number, format_week(dt.date.fromisoformat(week["start"]), dt.date.fromisoformat(week["end"]), lang)


def headwords(entries: Mapping[str, Record], languages: tuple[str, ...]) -> dict[str, str]:
    """Every entry's headword per language, falling back to the first language that has the entry."""
    found: dict[str, str] = {}
    for slug, entry in entries.items():
        texts = tuple(other for other in languages if entry.has(other))
        for lang in languages:
            shown = text_language(texts, lang, languages)
            found[f"{lang}/{slug}"] = (entry.text(shown) if shown in texts else {}).get("headword") or slug
    return found


def letter_lists(entry_langs: Mapping[str, tuple[str, ...]], names: Mapping[str, str], settings: Settings,
                 memo: Memo | None = None) -> dict[str, tuple[str, ...]]:
    """{"lang/letter": the entries under that letter of the language's A–Z index}, letters in the
    index's order (see glossary.views.letter_groups): every entry with a page in the language, by its
    headword there (`names`, see `headwords`). `memo` keeps the answer for the same headwords:
    collating the glossary's thousands of them anew takes a tenth of a second."""
    listed = {lang: [(names[f"{lang}/{slug}"], slug) for slug, texts in entry_langs.items()
                     if lang in pages_in(texts, settings)] for lang in settings.languages}
    key = hashlib.sha1(f"letters|{listed!r}".encode("utf-8", "surrogatepass")).hexdigest()
    known = memo.get(key) if memo is not None else None
    if known is None:
        known = [[f"{lang}/{letter}", slugs] for lang, items in listed.items()
                 for letter, slugs in letter_groups(items, lang).items()]
        if memo is not None:
            memo.put(key, known)
    return {name: tuple(slugs) for name, slugs in known}


def match_stories(content: Content, by_lang: Mapping[str, TermMatcher],
                  heads: Mapping[str, FormHeads]) -> dict[str, list[Any]]:
    """{story: [the entries matched in its text (see glossary.mentions.matched_terms), {language it has
    text in: the token of the forms that can match there (see FormHeads.token)}]}."""
    return {slug: [matched_terms(story, by_lang),
                   {lang: found.token(story_texts(story, lang)) for lang, found in heads.items() if story.has(lang)}]
            for slug, story in content.stories.items()}


def spread_matches(content: Content, by_lang: Mapping[str, TermMatcher], heads: Mapping[str, FormHeads],
                   run: Runner | None = None) -> dict[str, list[Any]]:
    """`match_stories`, by `run` in parts when there are many stories (each matcher and trie compiled
    first, once, not in every process)."""
    if run is None or len(content.stories) < SPREAD_STORIES:
        return match_stories(content, by_lang, heads)
    for compiled in (*by_lang.values(), *heads.values()):
        compiled.compile()
    slugs = list(content.stories)
    parts = [dataclasses.replace(content, stories={slug: content.stories[slug]
                                                   for slug in slugs[start:start + STORIES_PER_WORK]})
             for start in range(0, len(slugs), STORIES_PER_WORK)]
    found: dict[str, list[Any]] = {}
    for result in run([partial(match_stories, part, by_lang, heads) for part in parts]):
        found.update(result)
    return found


def glossary_digest(content: Content, languages: tuple[str, ...]) -> str:
    """A hash of every entry's labels in each language: what the term matchers are made of."""
    labels = repr([(slug, [entry_labels(entry, lang) for lang in languages])
                   for slug, entry in content.entries.items()])
    return hashlib.sha1(labels.encode("utf-8", "surrogatepass")).hexdigest()


def term_matchers(content: Content, languages: tuple[str, ...],
                  memo: Memo | None = None) -> tuple[str, dict[str, TermMatcher]]:
    """The glossary's digest (see `glossary_digest`) and its term matchers, made from the forms `memo`
    remembers for the same labels if given (see `remembered_matchers`)."""
    glossary = glossary_digest(content, languages)
    return glossary, (matchers(content, languages) if memo is None
                      else remembered_matchers(content, languages, memo, glossary))


def _matchers_key(glossary: str, languages: tuple[str, ...]) -> str:
    return hashlib.sha1(f"matchers|{glossary}|{languages}".encode()).hexdigest()


def remembered_matchers(content: Content, languages: tuple[str, ...], memo: Memo,
                        glossary: str) -> dict[str, TermMatcher]:
    """`matchers`, made from the forms remembered for the same labels (`glossary`, see glossary_digest):
    making them anew normalises and classifies each of the glossary's thousands of labels."""
    key = _matchers_key(glossary, languages)
    known = memo.get(key)
    if known is not None:
        return {lang: TermMatcher.from_forms(lang, *known[lang]) for lang in languages}
    made = matchers(content, languages)
    memo.put(key, {lang: list(matcher.forms()) for lang, matcher in made.items()})
    return made


#: The memo's key of the glossary the stories were last matched against.
LAST_GLOSSARY = "glossary|last"


def _story_key(glossary: str, story: Record) -> str:
    return hashlib.sha1(f"matched|{glossary}|{story.content_hash}|{story.version}".encode()).hexdigest()


def remembered_matches(content: Content, memo: Memo, by_lang: Mapping[str, TermMatcher], glossary: str,
                       run: Runner | None = None) -> dict[str, list[Any]]:
    """`match_stories`, matching only stories whose text changed, or that hold a form the glossary's
    edit added, removed or gave another entry (see FormHeads), since the last build stored them.

    Matching a story against every term is the costliest step of a build; its answer depends on
    the story and on the forms that can match in it. An edit to an entry's labels (a headword,
    an alias) changes the glossary (`glossary`, see glossary_digest) for every story, but what
    matches only in the stories that hold a changed form's first word: the others' answers, and
    their tokens, are the last build's.
    """
    languages = tuple(by_lang)
    heads: dict[str, FormHeads] = {}  # made when needed: most builds match no story

    def heads_of(lang: str) -> FormHeads:
        found = heads.get(lang)
        if found is None:
            found = heads[lang] = FormHeads(by_lang[lang])
        return found

    last = memo.get(LAST_GLOSSARY)
    changed: dict[str, set[str] | None] | None = None  # language → the first words of the forms it changed
    if last is not None and last != glossary:
        forms = memo.get(_matchers_key(last, languages))
        if forms is not None and set(forms) == set(languages):
            changed = {lang: heads_of(lang).changed_heads(FormHeads(TermMatcher.from_forms(lang, *forms[lang])))
                       for lang in languages}
    found: dict[str, list[Any]] = {}
    missing: dict[str, tuple[Record, str]] = {}
    for slug, story in content.stories.items():
        key = _story_key(glossary, story)
        known = memo.get(key)
        if known is None and changed is not None and last is not None:
            known = memo.get(_story_key(last, story))
            if known is not None and any(words is None or holds_any(story_texts(story, lang), words)
                                         for lang, words in changed.items()):
                known = None  # it may match otherwise now
            if known is not None:
                memo.put(key, known)
        if known is None:
            missing[slug] = (story, key)
        else:
            found[slug] = known
    if missing:
        fresh = spread_matches(dataclasses.replace(content, stories={k: v[0] for k, v in missing.items()}),
                               by_lang, {lang: heads_of(lang) for lang in languages}, run)
        for slug, (_, key) in missing.items():
            memo.put(key, fresh[slug])
            found[slug] = fresh[slug]
    if last != glossary:
        memo.put(LAST_GLOSSARY, glossary)
    return {slug: found[slug] for slug in content.stories}
