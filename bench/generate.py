"""A synthetic publication at a chosen scale, written into a fresh database through the import API.

Scale 1.0 is ten years of the newsletter: 520 weekly issues of 10 stories,
1,300 glossary entries (relations, aliases, sources, every text field), 50
reference pages and the Method page, in Hungarian and English. Text lengths
follow the sample publication; stories mention glossary terms with a skewed
(Zipf-like) frequency so a few entries are mentioned by hundreds of stories,
as real ones are. Everything is seeded: the same scale gives the same bytes.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from newsroom import SAMPLE_DIR
from newsroom.build.model import load_content
from newsroom.checks import check_content
from newsroom.content.importer import import_records
from newsroom.content.reader import LoadedRecord, read_files, record_key
from newsroom.content.stored import canonical
from newsroom.db.migrate import upgrade
from newsroom.db.session import session_factory, transaction
from newsroom.settings import Settings

LANGS = ("hu", "en")
NOW = dt.datetime(2026, 11, 30, 8, 0, tzinfo=dt.timezone.utc)
FIRST_WEEK = dt.date(2016, 11, 7)
SECTIONS = ("code", "money", "policy", "science", "society")
CATEGORIES = ("infrastructure", "models", "methods", "business", "policy")
AUDIENCES = ("developer", "entrepreneur", "executive", "investor", "researcher", "student", "everyone")
SYLLABLES = ("ka", "ve", "ro", "mi", "zu", "tal", "nor", "bex", "qui", "sol", "dra", "fen", "lum", "pax",
             "tor", "vin", "yas", "gol", "hep", "jor", "kel", "mab", "nex", "ost", "pru", "rix", "sen")
#: The archive's tags: a few common ones, a long tail (see Writer.tags).
TAGS = ("chips", "cloud", *(f"{a}{b}" for a in SYLLABLES[:15] for b in SYLLABLES[15:]))
#: Their names in the site file, as a publication names its tags: the common ones translated, the rest names.
TAG_NAMES = {"chips": {"hu": "chipek", "en": "chips"}, "cloud": {"hu": "felhő", "en": "cloud"}}
WORDS = {
    "hu": ("a", "modell", "adat", "chip", "hálózat", "cég", "kutatók", "szerint", "új", "rendszer", "gyorsabb",
           "olcsóbb", "tanítás", "futtatás", "piac", "szabály", "felhő", "energia", "kapacitás", "és", "hogy",
           "egy", "több", "mint", "amely", "ezért", "közben", "nagy", "kis", "európai", "amerikai", "év"),
    "en": ("the", "model", "data", "chip", "network", "company", "researchers", "say", "new", "system", "faster",
           "cheaper", "training", "inference", "market", "rule", "cloud", "energy", "capacity", "and", "that",
           "a", "more", "than", "which", "so", "meanwhile", "large", "small", "European", "American", "year"),
}


@dataclass(frozen=True)
class Shape:
    """How many records of each kind a scale means."""

    issues: int
    entries: int
    references: int
    stories_per_issue: int = 10

    @classmethod
    def at(cls, scale: float) -> Shape:
        return cls(max(2, round(520 * scale)), max(10, round(1300 * scale)), max(1, round(50 * scale)))


class Writer:
    """Seeded text and records; `rng` is the only source of variety."""

    def __init__(self, shape: Shape, seed: int = 8) -> None:
        self.shape, self.rng = shape, random.Random(seed)
        self.headwords = [self._word(i) for i in range(shape.entries)]
        # Zipf-like weights: entry 0 is mentioned most, the tail rarely.
        self.weights = [1 / (rank + 1) for rank in range(shape.entries)]
        # Tags drawn apart from the text, so the texts and mentions are the same whatever the tags.
        # Flattened Zipf: the commonest tag is on about one story in seven, as a topic like "chips" is.
        self.tag_rng = random.Random(seed + 1)
        self.tag_weights = [1 / (rank + 5) for rank in range(len(TAGS))]

    def _word(self, index: int) -> str:
        parts, n = [], index + 1
        while n:
            n, digit = divmod(n, len(SYLLABLES))
            parts.append(SYLLABLES[digit])
        return ("".join(parts) + "on").capitalize()

    def slug(self, index: int) -> str:
        return f"{self.headwords[index].lower()}-{index}"

    def sentence(self, lang: str, words: int, mention: list[int] | None = None) -> str:
        picked = [self.rng.choice(WORDS[lang]) for _ in range(words)]
        for index in mention or []:
            picked.insert(self.rng.randrange(len(picked) + 1), self.headwords[index])
        return " ".join(picked).capitalize() + "."

    def paragraph(self, lang: str, sentences: int, mention: list[int] | None = None, cite: int = 0) -> str:
        lines = [self.sentence(lang, self.rng.randint(8, 16)) for _ in range(sentences)]
        if mention:
            lines[0] = self.sentence(lang, 10, mention)
        if cite:
            lines[-1] = lines[-1][:-1] + f" [{self.rng.randint(1, cite)}]."
        return " ".join(lines)

    def tags(self) -> list[str]:
        """Two to four tags for a story, in the order drawn."""
        drawn = self.tag_rng.choices(TAGS, self.tag_weights, k=self.tag_rng.randint(2, 4))
        return list(dict.fromkeys(drawn))

    def mentioned(self, count: int) -> list[int]:
        return sorted(set(self.rng.choices(range(self.shape.entries), self.weights, k=count)))

    def entry(self, index: int) -> dict[str, Any]:
        rng = self.rng
        below = list(range(max(0, index - 40), index))
        relations: dict[str, Any] = {}
        if below:
            broader = sorted(set(rng.sample(below, min(2, len(below)))))
            relations["broader"] = [self.slug(i) for i in broader]
            # On the edge, never also broader (check warns of that); drawn as before, so the rest stays the same.
            related = [i for i in sorted(set(rng.sample(below, min(3, len(below))))) if i not in broader]
            if related:
                relations["related"] = [self.slug(i) for i in related]
            # A confusable, never also broader (check warns of that): the earliest entry below that is not.
            similar = next((i for i in below if i not in broader), None)
            if index % 10 == 0 and similar is not None:
                relations["similar"] = [{"entry": self.slug(similar), "note": {
                    lang: self.paragraph(lang, 2) for lang in LANGS}}]
        record: dict[str, Any] = {
            "kind": "entry", "slug": self.slug(index), "category": CATEGORIES[index % len(CATEGORIES)],
            "level": ("basic", "intermediate", "advanced")[index % 3],
            "trend": ("emerging", "spreading", "mainstream")[index % 3],
            "english_term": self.headwords[index] + " system", "status": "2026-11",
            "relations": relations,
            "sources": [{"publisher": "Example Press", "title": f"Source {n} on {self.headwords[index]}",
                         "url": f"https://example.org/{self.slug(index)}/{n}"} for n in (1, 2, 3)],
            "provenance": {"method": "machine-edited", "review": "machine-expert-review",
                           "written": self.week_day(index, self.shape.entries), "reviewed": "2026-11-05"},
        }
        for lang in LANGS:
            link = f" [{self.headwords[below[-1]]}](entry:{self.slug(below[-1])})" if below else ""
            record[lang] = {
                "headword": self.headwords[index],
                "definition": self.sentence(lang, 24),
                "plain_terms": "\n\n".join(self.paragraph(lang, 4, self.mentioned(2), cite=3) for _ in range(3)),
                "analogy": self.paragraph(lang, 3),
                "how_it_works": [self.paragraph(lang, 2, cite=3) for _ in range(4)],
                "example": self.paragraph(lang, 3, self.mentioned(1)),
                "affected": [{"audiences": [AUDIENCES[index % len(AUDIENCES)]], "text": self.sentence(lang, 20),
                              "section": SECTIONS[index % len(SECTIONS)]}],
                "misconception": {"myth": self.sentence(lang, 12), "reality": self.sentence(lang, 25)},
                "limits": "\n".join(f"- **{self.sentence(lang, 2)[:-1]}.** {self.sentence(lang, 20)}"
                                    for _ in range(3)),
                "history": self.paragraph(lang, 4, cite=3) + link,
                "current_state": self.paragraph(lang, 3),
                "aliases": [f"{self.headwords[index]} {('rendszer', 'system')[lang == 'en']}"],
            }
        return record

    def reference(self, index: int) -> dict[str, Any]:
        slug = f"profile-{index}"
        record: dict[str, Any] = {"kind": "reference", "slug": slug,
                                  "updated": self.week_day(index, self.shape.references), "sources": [
            {"publisher": "Example Labs", "title": f"Datasheet {n}", "url": f"https://example.org/{slug}/{n}"}
            for n in (1, 2, 3, 4)]}
        for lang in LANGS:
            record[lang] = {
                "title": f"{self.headwords[index % self.shape.entries]} {index}",
                "summary": self.sentence(lang, 20),
                "sections": [{"title": self.sentence(lang, 3)[:-1],
                              "simple": {"text": self.paragraph(lang, 5, self.mentioned(1), cite=4)},
                              "deep": {"text": self.paragraph(lang, 8, cite=4),
                                       "table": {"columns": ["Spec", "Value"],
                                                 "rows": [["Memory", {"value": "96 GB", "source": 1}],
                                                          ["Power", "Not published"]]}}}
                             for _ in range(5)],
            }
            # Every source cited in each language, as `check` wants (its last paragraph cites what the
            # random citations left out; no draw of the generator's, so the rest stays as it was).
            sections = record[lang]["sections"]
            cited = {int(n) for section in sections for part in ("simple", "deep")
                     for n in re.findall(r"\[(\d+)\]", section[part]["text"])}
            missing = " ".join(f"[{n}]" for n in (1, 2, 3, 4) if n not in cited)
            if missing:
                deep = sections[-1]["deep"]
                deep["text"] = deep["text"][:-1] + f" {missing}."
        return record

    def week_day(self, index: int, count: int) -> str:
        """The Wednesday of an issue's week, the `index`-th of `count` records spread over the archive's issues: the
        day an entry was written or a reference page updated, before that issue came out, as a real archive's are
        (and so placed among its issues in the search index)."""
        week = index * self.shape.issues // count
        return (FIRST_WEEK + dt.timedelta(weeks=week, days=2)).isoformat()

    def issue(self, number: int, status: str = "published") -> dict[str, Any]:
        start = FIRST_WEEK + dt.timedelta(weeks=number - 1)
        record: dict[str, Any] = {
            "kind": "issue", "number": number,
            "week": {"start": start.isoformat(), "end": (start + dt.timedelta(days=6)).isoformat()},
            "status": status,
        }
        if status == "published":
            record["published_at"] = dt.datetime.combine(start + dt.timedelta(days=7), dt.time(7),
                                                         dt.timezone.utc).isoformat()
        for lang in LANGS:
            record[lang] = {"title": self.sentence(lang, 6)[:-1], "lead": self.paragraph(lang, 5, self.mentioned(2)),
                            "editor_note": self.paragraph(lang, 2)}
        return record

    def story(self, number: int, position: int) -> dict[str, Any]:
        terms = self.mentioned(4)
        record: dict[str, Any] = {
            "kind": "story", "slug": f"i{number}-story-{position}", "issue": number,
            "section": SECTIONS[position % len(SECTIONS)], "position": position,
            "tags": self.tags(), "audiences": [AUDIENCES[position % len(AUDIENCES)]],
            "terms": [self.slug(terms[0])],
            "sources": [{"publisher": "Wire", "title": f"Report {n}",
                         "url": f"https://example.org/{number}/{position}/{n}"} for n in (1, 2)],
        }
        for lang in LANGS:
            record[lang] = {"headline": self.sentence(lang, 9)[:-1],
                            "summary": self.paragraph(lang, 3, terms[:2], cite=2),
                            "body": "\n\n".join(self.paragraph(lang, 4, terms[2:] if i == 0 else None, cite=2)
                                                for i in range(3))}
        return record

    def records(self) -> list[dict[str, Any]]:
        shape = self.shape
        records = [self.entry(i) for i in range(shape.entries)]
        records += [self.reference(i) for i in range(shape.references)]
        for number in range(1, shape.issues + 1):
            records.append(self.issue(number))
            records += [self.story(number, p) for p in range(1, shape.stories_per_issue + 1)]
        return records


def loaded(record: dict[str, Any]) -> LoadedRecord:
    """A record as if read from its content file (canonical, validated)."""
    location = f"bench:{record['kind']}"
    clean = canonical(record, LANGS, location)
    return LoadedRecord(clean["kind"], record_key(clean["kind"], clean), clean, location)


def store(engine: Engine, records: list[dict[str, Any]], now: dt.datetime = NOW) -> None:
    """Upsert records through the import API in one transaction."""
    with transaction(engine) as session:
        import_records(session, [loaded(r) for r in records], LANGS, now)


def _with_tags(site: LoadedRecord) -> LoadedRecord:
    """The sample's site file naming the generated stories' tags (and no other) in each language."""
    tags = [{"slug": tag, **TAG_NAMES.get(tag, {lang: tag.capitalize() for lang in LANGS})} for tag in TAGS]
    return dataclasses.replace(site, record={**site.record, "tags": tags})


def generate(engine: Engine, scale: float) -> Writer:
    """Migrate a fresh database and fill it with the publication of `scale`; it passes `newsroom check`."""
    upgrade(engine)
    sample = [_with_tags(item) if item.kind == "site" else item
              for item in read_files([SAMPLE_DIR], LANGS) if item.kind in ("site", "page")]
    with transaction(engine) as session:
        import_records(session, sample, LANGS, NOW)
    writer = Writer(Shape.at(scale))
    store(engine, writer.records())
    with session_factory(engine)() as session:
        content = load_content(session)
    problems = check_content(content, Settings(), NOW.date())  # warnings too: a publication kept clean
    if problems:
        raise SystemExit("generated content fails check:\n" + "\n".join(map(str, problems[:20])))
    return writer


if __name__ == "__main__":
    import argparse

    from newsroom.db.session import make_engine

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("database", type=Path, help="the SQLite file to make (it must not exist yet)")
    parser.add_argument("scale", type=float, nargs="?", default=1.0,
                        help="1.0 = ten years (520 issues, 1,300 entries); default 1.0")
    args = parser.parse_args()
    if args.database.exists():
        parser.error(f"{args.database} exists: the publication is generated into a fresh database; "
                     "give the name of a file to make")
    engine = make_engine(f"sqlite:///{args.database}")
    generate(engine, args.scale)
    engine.dispose()  # SQLite merges its write-ahead log into the file
