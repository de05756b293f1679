"""Incremental builds: after any sequence of edits, the site is byte for byte what a full build makes.

Edits go through the public surface: content files imported with the CLI,
a deletion with `newsroom delete`, a template folder given to `build
--templates`. After each edit the incremental folder is rebuilt and compared
with a from-scratch build of the same database.
"""

from __future__ import annotations

import datetime as dt
import filecmp
import json
import os
import random
import re
import shutil
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import feedparser
import html5lib
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from sitebuild import ISSUE_15_STORY, SPECIAL_ISSUE_15, language_switch, parse
from sqlalchemy import select

from issues.models import Story
from newsroom import PROJECT_ROOT, checks
from newsroom.build import rendering
from newsroom.db.session import make_engine, transaction
from newsroom.render import feeds
from newsroom.render.search_query import search

BASE = "https://news.example.org/"
NOW_ENV = "NEWSROOM_NOW"
#: The content files are read with libyaml where it is installed (as the engine reads them): the random-edit
#: tests look for files of a kind among them at each edit, thousands of reads.
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Publication:
    """The sample publication as content files an editor changes and imports."""

    def __init__(self, cli, root: Path) -> None:
        self.cli, self.root = cli, root
        self.content = root / "content"
        cli("export", str(self.content))
        self.templates = root / "templates"
        shutil.copytree(PROJECT_ROOT / "templates", self.templates)
        self.rng = random.Random(8)
        self.site: Path | None = None  # the incrementally built folder, for edits that build in between
        self.clock = dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))

    def files(self, kind: str) -> list[Path]:
        return sorted(path for path in self.content.rglob("*.yaml") if self.load(path)["kind"] == kind)

    def load(self, path: Path) -> dict:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=YAML_LOADER)

    def save(self, path: Path, record: dict, *options: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(record, allow_unicode=True, sort_keys=False), encoding="utf-8")
        # Deliberate edits: no stale-file guard.
        self.run("import", "--force", "--correction", "--reason", "corrected", *options, str(path))

    def run(self, *args: str, said: str = "stdout") -> str:
        """A command on the publication's clock: scheduled issues appear, and are recorded as published,
        when it passes their time (not when the real one does); returns its output (`said="stderr"`: its
        warnings and errors)."""
        before = os.environ.get(NOW_ENV)
        os.environ[NOW_ENV] = self.clock.isoformat()
        try:
            return getattr(self.cli(*args), said)
        finally:
            if before is None:
                os.environ.pop(NOW_ENV, None)
            else:
                os.environ[NOW_ENV] = before

    def build(self, out: Path, *extra: str, said: str = "stdout") -> str:
        return self.run("build", "--out", str(out), "--base-url", BASE, "--templates", str(self.templates),
                        "--email-out", str(self.root / "email"), *extra, said=said)

    # -- edits -----------------------------------------------------------------
    def edit_story(self) -> str:
        path = self.rng.choice(self.files("story"))
        record = self.load(path)
        record["en"]["headline"] += " (updated)"
        record["hu"]["summary"] = record["hu"]["summary"] + "\n\nTovábbi részletek a Trainium kapcsán."
        self.save(path, record)
        return f"edit story {path.stem}"

    def edit_story_body(self) -> str:
        # One field of one language: the lists that show headlines stay, the story's pages change.
        path = self.rng.choice(self.files("story"))
        record = self.load(path)
        record["en"]["body"] = (record["en"].get("body") or "") + "\n\nA later paragraph on Trainium and GPU costs."
        self.save(path, record)
        return f"edit the English body of story {path.stem}"

    def retitle_story_in_hungarian(self) -> str:
        path = self.rng.choice(self.files("story"))
        record = self.load(path)
        record["hu"]["headline"] = "Új cím: " + record["hu"]["headline"]
        self.save(path, record)
        return f"retitle story {path.stem} in Hungarian only"

    def untranslate_story(self) -> str:
        # A whole language goes: English pages show the Hungarian text, marked. A story of a published issue
        # is stored so only as it is (a backup restored, a database from before an import refused it).
        path = self.rng.choice(self.files("story"))
        record = self.load(path)
        record.pop("en", None)
        self.save(path, record, "--no-check")
        return f"drop the English text of story {path.stem}"

    def retag_story(self) -> str:
        path = self.rng.choice(self.files("story"))
        record = self.load(path)
        # A tag in another script too: its page is written under its own name, percent-encoded in links.
        record["tags"] = [*(record.get("tags") or [])[1:], "retagged", "再タグ"]
        self.save(path, record)
        return f"retag story {path.stem}"

    def edit_entry_definition(self) -> str:
        path = self.rng.choice(self.files("entry"))
        record = self.load(path)
        record["en"]["definition"] = "A rewritten definition that mentions GPU and Trainium."
        self.save(path, record)
        return f"edit the English definition of entry {path.stem}"

    def add_story(self) -> str:
        record = self.load(self.files("story")[0])
        record["slug"] = f"added-story-{self.rng.randrange(10**6)}"
        record["position"] = 99
        record["en"]["headline"] = "An added story about Google TPU chips"
        self.save(self.content / "stories" / f"{record['slug']}.yaml", record)
        return f"add story {record['slug']}"

    def delete(self, kind: str, path: Path) -> str:
        """Delete a record as an editor does (`newsroom delete`, a correction where the issue is published);
        the export that follows brings the other files up to date (a draft's stories close up) and removes
        its file if an export wrote it (one an edit here added, it leaves)."""
        slug = self.load(path)["slug"]
        self.run("delete", f"{kind}:{slug}", "--correction", "--reason", "a random edit")
        self.run("export", str(self.content))
        path.unlink(missing_ok=True)
        return slug

    def delete_story(self) -> str:
        """A story whose issue keeps another (an issue to be published needs one: `delete` refuses the last)."""
        stories = self.files("story")
        issues = [self.load(path)["issue"] for path in stories]
        path = self.rng.choice([path for path, issue in zip(stories, issues) if issues.count(issue) > 1])
        return f"delete story {self.delete('story', path)}"

    def edit_entry(self) -> str:
        path = self.rng.choice(self.files("entry"))
        record = self.load(path)
        record["en"]["headword"] = record["en"]["headword"] + " X"
        record["hu"]["definition"] = "Átírt meghatározás."
        self.save(path, record)
        return f"edit entry {path.stem}"

    def add_entry(self) -> str:
        slug = f"added-entry-{self.rng.randrange(10**6)}"
        record = {"kind": "entry", "slug": slug, "category": "infrastructure", "level": "basic",
                  "trend": "emerging", "status": "2026-11",
                  "sources": [{"publisher": "X", "title": "Y", "url": "https://example.org/"}],
                  "relations": {"broader": ["gpu"]},
                  "hu": {"headword": "Anthropic", "definition": "Egy MI-cég.", "aliases": ["Claude készítője"]},
                  "en": {"headword": "Anthropic", "definition": "An AI company.", "aliases": ["Claude maker"]}}
        self.save(self.content / "entries" / f"{slug}.yaml", record)
        return f"add entry {slug}"

    def add_relation(self) -> str:
        entries = self.files("entry")
        path, other = self.rng.sample(entries, 2)
        record = self.load(path)
        related = record.setdefault("relations", {}).setdefault("related", [])
        target = self.load(other)["slug"]
        if target not in related and target != record["slug"]:
            related.append(target)
        self.save(path, record)
        return f"relate {record['slug']} to {target}"

    def name_relation(self) -> str:
        """A concept without an entry, by name: one per language on the edge, one text as broader. Only the
        entry's own pages show them."""
        path = self.rng.choice(self.files("entry"))
        record = self.load(path)
        relations = record.setdefault("relations", {})
        relations.setdefault("related", []).append({"hu": "Kvantumfölény", "en": "Quantum supremacy"})
        relations.setdefault("broader", []).append("GPU (grafikus processzor)")
        self.save(path, record)
        return f"name concepts without an entry for {record['slug']}"

    def add_alias(self) -> str:
        path = self.rng.choice(self.files("entry"))
        record = self.load(path)
        record["en"].setdefault("aliases", []).append("Anthropic")
        record["hu"].setdefault("aliases", []).append("Anthropic")
        self.save(path, record)
        return f"alias Anthropic for {path.stem}"

    def delete_entry(self) -> str:
        """An entry no text links to, deleted as an editor would: first taken off the stories that list it
        by hand, then gone. The relations to it turn to plain text (a warning), the stories that mentioned
        it no longer do, its pages go."""
        texts = {path: path.read_text(encoding="utf-8") for path in self.content.rglob("*.yaml")}
        free = [path for path in self.files("entry")
                if not any(f"entry:{self.load(path)['slug']}" in text for text in texts.values())]
        path = self.rng.choice(free)
        slug = self.load(path)["slug"]
        for story in self.files("story"):
            record = self.load(story)
            lists = [name for name in ("terms", "suppress_terms") if slug in (record.get(name) or [])]
            for name in lists:
                record[name] = [item for item in record[name] if item != slug]
            if lists:
                self.save(story, record)
        return f"delete entry {self.delete('entry', path)}"

    def remove_relation(self) -> str:
        path = self.rng.choice([path for path in self.files("entry")
                                if any((self.load(path).get("relations") or {}).get(kind) for kind in
                                       ("broader", "narrower", "related"))])
        record = self.load(path)
        kind = next(kind for kind in ("narrower", "related", "broader") if record["relations"].get(kind))
        gone = record["relations"][kind].pop(0)
        self.save(path, record)
        return f"unrelate {record['slug']} from {gone} ({kind})"

    def edit_relation(self) -> str:
        """The note of a "similar, but not the same" relation, shown on both entries' pages."""
        path = self.rng.choice([path for path in self.files("entry")
                                if (self.load(path).get("relations") or {}).get("similar")])
        record = self.load(path)
        similar = record["relations"]["similar"][0]
        similar["note"] = {"hu": "Átírt megjegyzés a különbségről.", "en": "A rewritten note on the difference."}
        self.save(path, record)
        return f"edit the note of {record['slug']} similar to {similar['entry']}"

    def edit_alias(self) -> str:
        path = self.rng.choice([path for path in self.files("entry") if self.load(path).get("en", {}).get("aliases")])
        record = self.load(path)
        before = record["en"]["aliases"][0]
        record["en"]["aliases"][0] = "Renamed chip"
        self.save(path, record)
        return f"rename the alias {before!r} of {record['slug']}"

    def remove_alias(self) -> str:
        path = self.rng.choice([path for path in self.files("entry")
                                if any(self.load(path).get(lang, {}).get("aliases") for lang in ("hu", "en"))])
        record = self.load(path)
        lang = next(lang for lang in ("en", "hu") if record.get(lang, {}).get("aliases"))
        gone = record[lang]["aliases"].pop(0)
        self.save(path, record)
        return f"drop the {lang} alias {gone!r} of {record['slug']}"

    def publish_issue(self, tags: list[str] | None = None) -> str:
        number = self._publish_new_issue(self.load(self.files("issue")[-1]), 1, "first", "2026-11-16T07:00:00+01:00",
                                         tags)
        return f"publish issue {number}"

    def _publish_new_issue(self, beside: dict[str, Any], step: int, name: str, published_at: str,
                           tags: list[str] | None = None) -> int:
        """An issue `step` numbers and weeks from `beside`, saved as a draft, given one story (`i{N}-{name}`, a
        copy of the first story, with `tags` if given), then published at `published_at`; its number."""
        record = dict(beside)
        number = record["number"] + step
        week_start = dt.date.fromisoformat(str(record["week"]["start"])) + dt.timedelta(weeks=step)
        record.update(number=number, status="draft", week={"start": week_start.isoformat(),
                                                           "end": (week_start + dt.timedelta(days=6)).isoformat()})
        record.pop("published_at", None)
        path = self.content / "issues" / f"{number:04d}.yaml"
        self.save(path, record)
        story = self.load(self.files("story")[0])
        story.update(slug=f"i{number}-{name}", issue=number, position=1, **({"tags": tags} if tags else {}))
        self.save(self.content / "stories" / f"i{number}-{name}.yaml", story)
        record.update(status="published", published_at=published_at)
        self.save(path, record)
        return number

    def schedule_issue(self) -> str:
        """A scheduled issue, built while hidden; then only the clock moves past its time."""
        record = self.load(self.files("issue")[-1])
        number = record["number"] + 1
        week_start = dt.date.fromisoformat(str(record["week"]["start"])) + dt.timedelta(weeks=1)
        record.update(number=number, status="draft",
                      week={"start": week_start.isoformat(), "end": (week_start + dt.timedelta(days=6)).isoformat()})
        record.pop("published_at", None)
        path = self.content / "issues" / f"{number:04d}.yaml"
        self.save(path, record)  # a draft first: an issue is scheduled with its stories
        story = self.load(self.files("story")[-1])
        story.update(slug=f"i{number}-scheduled", issue=number, position=1, tags=["scheduled-only"])
        self.save(self.content / "stories" / f"i{number}-scheduled.yaml", story)
        record.update(status="scheduled", published_at=(self.clock + dt.timedelta(hours=1)).isoformat())
        self.save(path, record)
        assert self.site is not None
        self.build(self.site)
        assert not (self.site / "en" / "issues" / str(number)).exists()
        self.clock += dt.timedelta(hours=2)
        return f"schedule issue {number}, then pass its time"

    def recategorise_entry(self) -> str:
        path = self.rng.choice(self.files("entry"))
        record = self.load(path)
        record["category"] = self.rng.choice(["models", "policy", "business"])
        record["level"] = self.rng.choice(["basic", "intermediate", "advanced"])
        self.save(path, record)
        return f"recategorise {path.stem}"

    def edit_stylesheet(self) -> str:
        path = self.templates / "assets" / "site.css"
        path.write_text(path.read_text(encoding="utf-8") + f"\n/* edited {self.rng.random()} */\n", encoding="utf-8")
        return "edit the stylesheet (a new hashed asset name on every page)"

    # -- edits of the reference and site pages, the site's names, issues' texts, stories' places ----------
    def add_reference(self) -> str:
        record = self.load(self.files("reference")[0])
        record["slug"] = f"added-reference-{self.rng.randrange(10**6)}"
        record.pop("formerly", None)  # a copy's: the former addresses stay the original's
        record["en"]["title"], record["hu"]["title"] = "A GPU profile", "Egy GPU-profil"
        self.save(self.content / "reference" / f"{record['slug']}.yaml", record)
        return f"add reference page {record['slug']}"

    def edit_reference(self) -> str:
        path = self.rng.choice(self.files("reference"))
        record = self.load(path)
        section = self.rng.choice(record["en"]["sections"])
        section["simple"]["text"] += "\n\nMore on [GPU](entry:gpu) and Trainium costs [1].\n"
        record["hu"]["title"] += " (frissítve)"
        self.save(path, record)
        return f"edit reference page {path.stem}"

    def delete_reference(self) -> str:
        """A reference page added, built, then deleted: its pages and its places in the lists go."""
        added = self.add_reference()
        assert self.site is not None
        self.build(self.site)
        path = self.content / "reference" / f"{added.rsplit(' ', 1)[1]}.yaml"
        return f"{added}, build, then delete it ({self.delete('reference', path)})"

    def date_reference(self) -> str:
        """A reference page's date of last update given or changed: its page, its sitemap entry."""
        path = self.rng.choice(self.files("reference"))
        record = self.load(path)
        record["updated"] = f"2026-{self.rng.randint(1, 12):02d}-{self.rng.randint(1, 28):02d}"
        self.save(path, record)
        return f"date reference page {path.stem} {record['updated']}"

    def caption_reference(self) -> str:
        """A spec table's caption given or changed in both languages, and a source's date: the page shows
        both (the date as its language writes one); the index and other pages show neither."""
        path = self.rng.choice(self.files("reference"))
        record = self.load(path)
        mark = self.rng.randrange(10**6)
        for lang in ("hu", "en"):
            table = next(part["table"] for section in record[lang]["sections"] for part in section.values()
                         if isinstance(part, dict) and part.get("table"))
            table["caption"] = f"{lang} figures {mark}"
        record["sources"][0]["date"] = f"2020-{self.rng.randint(1, 12):02d}-{self.rng.randint(1, 28):02d}"
        self.save(path, record)
        return f"caption reference page {path.stem} {mark}, source 1 dated {record['sources'][0]['date']}"

    def link_reference_from_story(self) -> str:
        path = self.rng.choice(self.files("story"))
        target = self.load(self.rng.choice(self.files("reference")))["slug"]
        record = self.load(path)
        record["en"]["summary"] += f" See [the profile](page:{target})."
        self.save(path, record)
        return f"link reference page {target} from story {path.stem}"

    def edit_site_page(self) -> str:
        path = self.rng.choice(self.files("page"))
        record = self.load(path)
        record["en"]["body"] += "\n\nAn added paragraph on how [GPU](entry:gpu) entries are reviewed.\n"
        record["hu"]["title"] += " – frissítve"
        self.save(path, record)
        return f"edit site page {path.stem}"

    def give_former_addresses(self) -> str:
        """An entry and a reference page given the slugs they were published under before: a page at each old
        address sends readers on."""
        changed = []
        for kind in ("entry", "reference"):
            path = self.rng.choice(self.files(kind))
            record = self.load(path)
            record["formerly"] = [f"{record['slug']}-old-{self.rng.randrange(10**6)}"]
            self.save(path, record)
            changed.append(f"{kind} {record['slug']}")
        return f"give former addresses to {' and '.join(changed)}"

    def flip_drafts(self) -> str:
        """`draft: true` both ways: a much-linked entry (stories' terms, relations, links) and a reference page
        made drafts, built incrementally, then published again while another entry, found in stories' text, is
        made a draft: each leaves its pages, lists, feeds and links, or comes back to them."""
        def flip(path: Path, draft: bool) -> None:
            record = self.load(path)
            record.pop("draft", None)
            self.save(path, {**record, "draft": True} if draft else record)

        entries = {path.stem: path for path in self.files("entry")}
        first = entries.get("trainium3") or entries["trainium"]
        second = entries[self.rng.choice(sorted(set(entries) - {first.stem, "gpu"}))]  # gpu: the other edits link it
        page = self.rng.choice(self.files("reference"))
        flip(first, True)
        flip(page, True)
        assert self.site is not None
        self.build(self.site)
        flip(first, False)
        flip(page, False)
        flip(second, True)
        return (f"draft entry {first.stem} and reference page {page.stem}, build, publish them, draft entry "
                f"{second.stem}")

    def rename_records(self) -> str:
        """`newsroom rename` of a much-linked entry (relations, stories' terms, links in published issues) and a
        reference page, built incrementally, then renamed back (the other edits link to them by these slugs);
        the content files are exported again, as an editor would after it."""
        renamed = {key: f"{key.partition(':')[2]}-{self.rng.randrange(10**6)}"
                   for key in ("entry:gpu", "reference:trainium")}
        for key, new in renamed.items():
            self.run("rename", key, new)
        assert self.site is not None
        self.build(self.site)
        for key, new in renamed.items():
            self.run("rename", f"{key.partition(':')[0]}:{new}", key.partition(":")[2])
        shutil.rmtree(self.content)
        self.cli("export", str(self.content))
        return f"rename {', '.join(renamed)} and back"

    def rename_story(self) -> str:
        """`newsroom rename` of a story: its anchor on the issue pages, the archive, the entries' "In the news",
        the feeds and the search index move to the new slug; the issue pages keep the old one as well."""
        slug = self.load(self.rng.choice(self.files("story")))["slug"]
        new = f"{slug}-{self.rng.randrange(10**6)}"
        self.run("rename", f"story:{slug}", new)
        shutil.rmtree(self.content)
        self.cli("export", str(self.content))
        return f"rename story {slug} to {new}"

    def rename_in_site(self) -> str:
        """A section's, a category's, an audience's or a tag's name, the tagline (shown on many pages), or the emails'
        greeting (shown in the email alone)."""
        path = self.content / "site.yaml"
        record = self.load(path)
        kind = self.rng.choice(["sections", "categories", "audiences", "tags", "tagline", "greeting"])
        if kind in ("tagline", "greeting"):
            record["en"][kind] = record["en"].get(kind, "") + " (weekly)"
        else:
            named = self.rng.choice(record[kind])
            named[self.rng.choice(["hu", "en"])] += " (renamed)"
            kind = f"{kind[:-1]} {named['slug']}"
        self.save(path, record)
        return f"rename the site's {kind}"

    def add_section(self) -> str:
        """A section with no stories yet: its pages, and its feeds dated by the site's latest publication."""
        path = self.content / "site.yaml"
        record = self.load(path)
        slug = f"new-{len(record['sections'])}"
        record["sections"].append({"slug": slug, "hu": "Új rovat", "en": "New section"})
        self.save(path, record)
        return f"add section {slug}"

    def edit_issue_text(self) -> str:
        path = self.rng.choice(self.files("issue"))
        record = self.load(path)
        lang, field = self.rng.choice(["hu", "en"]), self.rng.choice(["title", "lead", "editor_note"])
        texts = record.setdefault(lang, {})
        texts[field] = (texts.get(field) or "") + (" and Trainium" if field == "title" else
                                                   "\n\nMore on [GPU](entry:gpu) and Trainium.")
        self.save(path, record)
        return f"edit {lang}.{field} of issue {record['number']}"

    def publish_late_issue(self) -> str:
        """An issue numbered before every other, published after every other (it came out late): the latest
        issue though the others have higher numbers, on the home page, in every masthead, the editions list,
        the feeds, the email folder."""
        number = self._publish_new_issue(self.load(self.files("issue")[0]), -1, "late",
                                         (self.clock - dt.timedelta(hours=1)).isoformat())
        return f"publish issue {number} after every other"

    def move_story(self) -> str:
        path = self.rng.choice(self.files("story"))
        record = self.load(path)
        record["issue"] = self.load(self.rng.choice(self.files("issue")))["number"]
        record["section"] = self.rng.choice(["code", "money", "policy", "science", "society"])
        record["position"] = self.rng.randint(1, 12)
        self.save(path, record)
        return f"move story {path.stem} to issue {record['issue']}, {record['section']} #{record['position']}"

    def date_entry_status(self) -> str:
        path = self.rng.choice(self.files("entry"))
        record = self.load(path)
        record["status"] = self.rng.choice(["2024-06", "2025-01", "2026-09"])
        self.save(path, record)
        return f"date the status of entry {path.stem} {record['status']}"

    def edit_story_terms(self) -> str:
        """An entry the story lists, or one whose mentions in it are not to be linked."""
        path = self.rng.choice(self.files("story"))
        record = self.load(path)
        slug = self.load(self.rng.choice(self.files("entry")))["slug"]
        if self.rng.random() < 0.5:
            record["terms"] = list(dict.fromkeys([*(record.get("terms") or []), slug]))
            self.save(path, record)
            return f"list entry {slug} on story {path.stem}"
        record["suppress_terms"] = list(dict.fromkeys([*(record.get("suppress_terms") or []), slug]))
        record["terms"] = [term for term in record.get("terms") or [] if term != slug]
        self.save(path, record)
        return f"suppress entry {slug} on story {path.stem}"

    def edit_source(self) -> str:
        path = self.rng.choice(self.files(self.rng.choice(["story", "entry"])))
        record = self.load(path)
        record["sources"][0]["title"] += " (updated)"
        self.save(path, record)
        return f"retitle the first source of {path.stem}"

    def edit_english_term(self) -> str:
        path = self.rng.choice(self.files("entry"))
        record = self.load(path)
        record["english_term"] = f"renamed term {self.rng.randrange(100)}"
        self.save(path, record)
        return f"edit the English term of entry {path.stem}"


    def edit_template(self) -> str:
        name = self.rng.choice(["entry.html", "_macros.html", "issue.html"])
        path = self.templates / name
        path.write_text(path.read_text(encoding="utf-8") + f"\n{{# edited {self.rng.random()} #}}<!-- x -->\n",
                        encoding="utf-8")
        return f"edit template {name}"


EDITS = ("edit_story", "add_story", "delete_story", "edit_entry", "add_entry", "delete_entry", "add_relation",
         "edit_relation", "remove_relation", "name_relation", "add_alias", "edit_alias", "remove_alias", "publish_issue",
         "edit_template", "schedule_issue", "recategorise_entry", "edit_stylesheet", "edit_story_body",
         "retitle_story_in_hungarian", "untranslate_story", "retag_story", "edit_entry_definition", "add_section",
         "rename_story")
#: Edits of what the first sequence leaves alone: reference and site pages, the site's names, issues' texts,
#: stories' places and terms, sources, entries' status months and English terms, drafts.
MORE_EDITS = ("add_reference", "edit_reference", "delete_reference", "date_reference", "caption_reference",
              "link_reference_from_story", "edit_site_page", "rename_in_site", "edit_issue_text", "publish_late_issue",
              "move_story", "date_entry_status", "edit_story_terms", "edit_source", "edit_english_term",
              "give_former_addresses", "rename_records", "flip_drafts")


#: Why a test of what a build finds in its output folder, or works out from the state it stored, runs on SQLite
#: alone: the state's round trip through PostgreSQL is covered by the other tests here (suite time).
FOLDER_READ = "what changed in the output folder is read from its files; the state's round trip is tested on both"
WORKED_OUT = "what to remake is worked out in Python from the stored state, whose round trip is tested on both"


def _same_tree(left: Path, right: Path) -> list[str]:
    """Paths that differ between two folders (missing on one side, or different bytes)."""
    def files(root: Path) -> set[str]:
        return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    ours, theirs = files(left), files(right)
    differ = sorted(ours ^ theirs)
    differ += [p for p in sorted(ours & theirs) if not filecmp.cmp(left / p, right / p, shallow=False)]
    return differ


@pytest.mark.long
@pytest.mark.sqlite_only("two builds an edit; the state's round trip on PostgreSQL is covered by the other tests here")
@pytest.mark.parametrize("edits, rebuilt, fresh_built", [(EDITS, "2", "1"), (MORE_EDITS, "1", "2")],
                         ids=["stories-entries-templates", "pages-site-issues"])
def test_random_edits_rebuild_exactly_what_a_full_build_makes(sample_cli, tmp_path, monkeypatch, edits, rebuilt,
                                                               fresh_built):
    """Each edit's rebuild and a full build from scratch make the same files and store the same state; one of the
    two renders in two workers (`--jobs`), the other in the command's process, so that either way of rendering
    is compared with the other at every edit."""
    monkeypatch.setenv("NEWSROOM_JOBS", rebuilt)  # the site's builds, the edits' own included
    publication = Publication(sample_cli, tmp_path)
    site = publication.site = tmp_path / "site"
    publication.build(site)
    order = random.Random(13).sample(edits, len(edits))
    engine = make_engine(sample_cli.db_url)
    for edit in order:
        done = getattr(publication, edit)()
        publication.build(site)
        fresh = tmp_path / f"fresh-{edit}"
        publication.build(fresh, "--full", "--jobs", fresh_built)
        assert _same_tree(site, fresh) == [], done
        # What the next build starts from, too: each output's reads (kept or worked out anew) and the graph.
        assert _state(engine, site) == _state(engine, fresh), done
        shutil.rmtree(fresh)
    engine.dispose()


GLOSSARYLESS = {
    "site.yaml": "kind: site\nhu: {name: Hírek}\nen: {name: News}\nsections:\n  - {slug: code, hu: Kód, en: Code}\n",
    **{f"issues/{n:04d}.yaml": f"kind: issue\nnumber: {n}\nweek: {{start: 2026-11-{n * 7 - 5:02d}, "
                               f"end: 2026-11-{n * 7 + 1:02d}}}\nstatus: published\n"
                               f"published_at: 2026-11-{n * 7 + 2:02d}T07:00:00+01:00\n"
                               f"hu: {{title: Szám {n}}}\nen: {{title: Issue {n}}}\n" for n in (1, 2)},
    **{f"stories/i{n}.yaml": f"kind: story\nslug: i{n}\nissue: {n}\nsection: code\nposition: 1\nsources:\n"
                             f"  - {{publisher: Example, title: Example, url: 'https://example.org/{n}'}}\n"
                             f"hu: {{headline: Hír {n}, summary: Szöveg.}}\n"
                             f"en: {{headline: Story {n}, summary: Text.}}\n"
       for n in (1, 2)},
    "pages/method.yaml": "kind: page\nslug: method\nhu: {title: Módszer, body: Így.}\nen: {title: Method, body: So.}\n",
}


@pytest.mark.sqlite_only("what a feed reads for its date does not depend on the database")
def test_a_feed_with_nothing_in_it_is_remade_when_the_site_publishes(cli, write_files, tmp_path):
    """An empty feed is dated by the site's latest publication (see feeds.site_published), which a
    glossary feed reads only while it is empty: a new issue moves its date, in a rebuild as in a full build."""
    cli("init")
    cli("import", str(write_files({k: v for k, v in GLOSSARYLESS.items() if not k.endswith("2.yaml")})))
    site, fresh = tmp_path / "site", tmp_path / "fresh"
    cli("build", "--out", str(site), "--base-url", BASE)

    def updated(folder: Path) -> list[str]:
        return [feedparser.parse((folder / f"{lang}/feeds/glossary.atom").read_bytes()).feed.updated
                for lang in ("hu", "en")]

    assert updated(site) == ["2026-11-09T06:00:00+00:00"] * 2
    cli("import", str(write_files({k: v for k, v in GLOSSARYLESS.items() if k.endswith("2.yaml")})))
    cli("build", "--out", str(site), "--base-url", BASE)
    assert updated(site) == ["2026-11-16T06:00:00+00:00"] * 2
    cli("build", "--out", str(fresh), "--base-url", BASE, "--full")
    assert _same_tree(site, fresh) == []


def _state(engine, site: Path) -> tuple[dict, dict, dict]:
    """A built folder's state: {path: (digest, meta, decoded reads)}, the graph's root values and readers."""
    from newsroom.build.graph import Graph
    from newsroom.build.state import BuildOutput, BuildRun, Output

    folder = str(site.resolve())
    with transaction(engine) as session:
        # A search index kept as it was keeps its documents' digests as they were made ("docs": each names
        # its record's version, which an edit the index does not show changes); its next update makes
        # those documents again, to the same bytes. The rest of each output's meta must agree.
        outputs = {path: (digest, {key: value for key, value in (meta or {}).items() if key != "docs"},
                          Output(digest, "", reads).decoded()) for path, digest, meta, reads in
                   session.execute(select(BuildOutput.path, BuildOutput.digest, BuildOutput.meta, BuildOutput.reads)
                                   .where(BuildOutput.site == folder))}
        graph = Graph.decode(session.scalar(select(BuildRun.graph).where(BuildRun.site == folder)))
    assert graph is not None
    return outputs, graph.values, {root: graph.readers.get(root) for root in graph.readers}


def test_a_second_build_with_no_change_writes_nothing(sample_cli, tmp_path):
    site = tmp_path / "site"
    sample_cli("build", "--out", str(site))
    before = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in site.rglob("*")}
    result = sample_cli("build", "--out", str(site))
    assert " 0 written, " in result.stdout and " 0 removed " in result.stdout
    assert {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in site.rglob("*")} == before


@pytest.mark.sqlite_only(FOLDER_READ)
def test_files_changed_or_removed_by_hand_are_made_again(sample_cli, tmp_path):
    site = tmp_path / "site"
    sample_cli("build", "--out", str(site))
    fresh = tmp_path / "fresh"
    sample_cli("build", "--out", str(fresh), "--full")
    page, feed = site / "hu" / "index.html", site / "en" / "feeds" / "issues.xml"
    sitemap, entry = site / "sitemap.xml", next((site / "en" / "glossary").glob("*/index.html"))
    assert page.is_file() and feed.is_file() and sitemap.is_file()
    page.write_text("<p>defaced</p>", encoding="utf-8")
    feed.unlink()
    sitemap.write_bytes(sitemap.read_bytes().replace(b"<loc>", b"<loc>x"))
    shutil.rmtree(entry.parent)
    before = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in site.rglob("*") if p.is_file()}
    result = sample_cli("build", "--out", str(site))
    assert _same_tree(site, fresh) == []
    assert " 4 written, " in result.stdout, result.stdout  # those four, and nothing else
    untouched = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in site.rglob("*") if p.is_file()}
    assert {p for p in before if before[p] != untouched[p]} == {page, sitemap}
    # And with nothing changed since, a build writes nothing again.
    assert " 0 written, " in sample_cli("build", "--out", str(site)).stdout


@pytest.mark.sqlite_only(FOLDER_READ)
def test_files_put_back_from_an_older_copy_are_made_again_and_a_chmod_remakes_nothing(sample_cli, tmp_path):
    # A copy restored from a backup keeps its own, earlier modification time: the files are still not as the
    # last build left them. A change of mode (a deploy's `chmod -R`) changes no byte and no such time.
    publication = Publication(sample_cli, tmp_path)
    site, backup = tmp_path / "site", tmp_path / "backup"
    publication.build(site)
    shutil.copytree(site, backup)  # with the files' times
    publication.edit_story_body()
    publication.build(site)
    older = [path for path in backup.rglob("*") if path.is_file() and (site / path.relative_to(backup)).is_file()
             and path.read_bytes() != (site / path.relative_to(backup)).read_bytes()]
    assert older
    for path in older:
        shutil.copy2(path, site / path.relative_to(backup))
    for path in site.rglob("*"):
        os.chmod(path, path.stat().st_mode)
    result = publication.build(site)
    assert f" {len(older)} written, " in result, (result, older)
    fresh = tmp_path / "fresh"
    publication.build(fresh, "--full")
    assert _same_tree(site, fresh) == []
    assert " 0 written, " in publication.build(site)


@pytest.mark.sqlite_only
def test_a_time_given_back_coarser_is_no_change_and_an_earlier_one_is_a_change(sample_cli, tmp_path):
    # A network file system or a FAT disk may give back a file's time to the second (or two) that it first
    # reported to the nanosecond: the file is as the build left it. Three seconds earlier is another file.
    site = tmp_path / "site"
    sample_cli("build", "--out", str(site))
    pages = sorted(site.rglob("*.html"))
    for unit, page in zip((1_000, 1_000_000, 1_000_000_000, 2_000_000_000), pages):
        recorded = page.stat().st_mtime_ns
        os.utime(page, ns=(recorded - recorded % unit,) * 2)
    assert " 0 written, " in sample_cli("build", "--out", str(site)).stdout
    earlier = pages[-1].stat().st_mtime_ns
    os.utime(pages[-1], ns=(earlier - 3_000_000_000,) * 2)  # no truncation of the recorded time
    assert " 1 written, " in sample_cli("build", "--out", str(site)).stdout


@pytest.mark.sqlite_only
def test_feeds_and_emails_are_made_from_the_chosen_templates_and_remade_when_they_change(sample_cli, tmp_path):
    import email
    import email.policy

    import feedparser

    templates = tmp_path / "templates"
    shutil.copytree(PROJECT_ROOT / "templates", templates)
    feed_template, email_template = templates / "feeds" / "issue.html", templates / "email" / "issue.html"
    feed_template.write_text(feed_template.read_text(encoding="utf-8") + "<p>Own feed words</p>\n", encoding="utf-8")
    email_template.write_text(email_template.read_text(encoding="utf-8").replace(
        "<body>", "<body><p>Own email words</p>"), encoding="utf-8")
    site, mail = tmp_path / "site", tmp_path / "mail"

    def build(out: Path, *extra: str) -> str:
        return sample_cli("build", "--out", str(out), "--email-out", str(mail), "--templates", str(templates),
                          *extra).stdout

    def feed_text() -> str:
        entries = feedparser.parse((site / "en" / "feeds" / "issues.xml").read_bytes()).entries
        return " ".join(entry.content[0].value for entry in entries)

    build(site)
    assert "Own feed words" in feed_text()
    message = email.message_from_bytes(next((mail / "en").glob("*.eml")).read_bytes(), policy=email.policy.default)
    assert "Own email words" in message.get_body(("html",)).get_content()
    # Editing only the feed template remakes the feeds, as a full build would make them.
    feed_template.write_text(feed_template.read_text(encoding="utf-8").replace("Own feed words", "Edited feed words"),
                             encoding="utf-8")
    build(site)
    assert "Edited feed words" in feed_text() and "Own feed words" not in feed_text()
    fresh = tmp_path / "fresh"
    build(fresh, "--full")
    assert _same_tree(site, fresh) == []


@pytest.mark.sqlite_only(FOLDER_READ)
def test_a_search_index_is_updated_from_its_last_files_only_when_they_are_as_built(sample_cli, tmp_path):
    # An edit updates the search index from its last published files; a file of it changed by hand
    # since is not built upon: the index is made again whole, as a full build makes it.
    publication = Publication(sample_cli, tmp_path)
    site = tmp_path / "site"
    publication.build(site)
    shards = sorted((site / "en" / "search" / "index" / "shards").glob("*.json"))
    assert shards
    shards[0].write_text('{"defaced": [0]}', encoding="utf-8")  # valid, and wrong
    # The second time, the index is as built: updated, not remade, to the same bytes.
    for attempt in ("defaced", "as built"):
        done = publication.edit_story_body()
        publication.build(site)
        fresh = tmp_path / f"fresh-{attempt}"
        publication.build(fresh, "--full")
        assert _same_tree(site, fresh) == [], (attempt, done)


def _rendered(output: str) -> int:
    """The pages a build rendered, from its summary line ("… (230 pages, 12 rendered): …")."""
    return int(output.split(" rendered)")[0].rsplit(", ", 1)[1])


@pytest.mark.sqlite_only(WORKED_OUT)
def test_publishing_an_issue_renders_only_the_pages_it_changes_beyond_the_masthead(sample_cli, tmp_path):
    # Every page's masthead names the latest issue; a page whose only change that is gets the new line
    # put in place of the old one, and the folder is what a full build makes, byte for byte.
    publication = Publication(sample_cli, tmp_path)
    site = tmp_path / "site"
    pages = _rendered(publication.build(site))
    publication.publish_issue()
    output = publication.build(site)
    # The issue's own pages, the lists and the entries its story mentions are rendered; of the other
    # entry pages (and reference pages, the method page...) none is.
    entries = len(list(site.glob("*/glossary/*/index.html")))
    assert pages - _rendered(output) >= entries // 2, output
    fresh = tmp_path / "fresh"
    publication.build(fresh, "--full")
    assert _same_tree(site, fresh) == []
    page = (site / "en" / "method" / "index.html").read_text(encoding="utf-8")
    assert page.count('class="issue-line"') == 1 and "/en/issues/14/" in page


@pytest.mark.parametrize("databases", ["sqlite"], indirect=True)  # suite time: the store is no part of it
def test_a_new_alias_renders_the_pages_of_the_stories_that_hold_it_alone(sample_cli, tmp_path):
    # Every story's terms are linked through the glossary's matcher, which an alias changes; a story's
    # page depends on the forms that can match in its text, so the issue pages of the stories that do
    # not hold the new alias are not rendered again, and the folder is what a full build makes.
    publication = Publication(sample_cli, tmp_path)
    site = tmp_path / "site"
    publication.build(site)
    publication.add_alias()  # "Anthropic", which three stories of issues 12 and 13 name
    output = publication.build(site)
    # In each language: the entry's page, issues 12 and 13, and the home page, which shows issue 13 —
    # not issues 10 and 11 (every issue page, before a story's page depended on its own forms).
    assert len(list(site.glob("*/issues/*/index.html"))) == 8 and _rendered(output) == 8, output
    fresh = tmp_path / "fresh"
    publication.build(fresh, "--full")
    assert _same_tree(site, fresh) == []


def _also_known_as(page: Path) -> list[tuple[str, str | None]]:
    """*Also known as* of an entry page: each name with the language it is marked with (None: the page's)."""
    [section] = [s for s in parse(page).iter("section") if s.get("id") == "aliases"]
    paragraph = section.find("p")
    marked = {span.text: span.get("lang") for span in paragraph.iter("span")}
    return [(name, marked.get(name)) for name in "".join(paragraph.itertext()).split(" · ")]


@pytest.mark.parametrize("databases", ["sqlite"], indirect=True)  # the store is no part of it
def test_a_hungarian_alias_added_or_removed_remakes_the_english_page_of_its_entry(sample_cli, tmp_path):
    # The English page lists the Hungarian names too: it reads them, and an incremental build after an edit
    # of one remakes it (and what else shows them, as the glossary feed) as a full build makes it.
    publication = Publication(sample_cli, tmp_path)
    site = tmp_path / "site"
    publication.build(site)
    path = next(path for path in publication.files("entry") if publication.load(path)["slug"] == "trainium")
    page = site / "en" / "glossary" / "trainium" / "index.html"
    for edit, name in (("add", "Amazon gyorsítócsip"), ("remove", "Amazon MI-chip")):
        record = publication.load(path)
        if edit == "add":
            record["hu"]["aliases"].append(name)
        else:
            record["hu"]["aliases"].remove(name)
        publication.save(path, record)
        before = {p: p.stat().st_mtime_ns for p in site.rglob("*.html")}
        publication.build(site)
        assert ((name, "hu") in _also_known_as(page)) == (edit == "add")
        assert _written(site, before, "en/**/*.html") == ["en/glossary/trainium/index.html"], edit
        fresh = tmp_path / f"fresh-{edit}"
        publication.build(fresh, "--full")
        assert _same_tree(site, fresh) == [], edit
    assert _also_known_as(page)[-2:] == [("Trainium-chip", "hu"), ("Amazon gyorsítócsip", "hu")]


@pytest.mark.sqlite_only
def test_retagging_a_story_renders_only_the_pages_of_its_tags(sample_cli, tmp_path):
    # A tag's page depends on the stories carrying that tag, not on every story's tags: of the
    # sample's many tag pages, the retagged story's old and new tags' are rendered, and the folder
    # is what a full build makes.
    publication = Publication(sample_cli, tmp_path)
    site = tmp_path / "site"
    publication.build(site)
    tag_pages = len(list(site.glob("*/archive/tag/*/index.html")))
    path = publication.files("story")[0]
    record = publication.load(path)
    dropped = record["tags"][0]
    record["tags"] = [*record["tags"][1:], "retagged"]
    publication.save(path, record)
    output = publication.build(site)
    assert tag_pages > 60 and _rendered(output) < tag_pages // 4, output
    assert (site / "en" / "archive" / "tag" / "retagged" / "index.html").is_file()
    # The search index, updated, finds the new tag's page (made anew, it would too: the trees are alike).
    assert [hit["url"] for hit in search(site / "en" / "search" / "index", "retagged")][:1] == \
        ["/en/archive/tag/retagged/"]
    fresh = tmp_path / "fresh"
    publication.build(fresh, "--full")
    assert _same_tree(site, fresh) == [], dropped


@pytest.mark.sqlite_only
def test_a_tag_renamed_remakes_the_pages_that_show_its_name_alone(sample_cli, tmp_path):
    # A tag's name in one language is shown by the archive's list of tags, the tag's own page, the issue
    # pages of its stories (their keywords), their section's feeds and the issues feeds (their issues'
    # categories) in that language: those are made again, and no other page.
    publication = Publication(sample_cli, tmp_path)
    site = tmp_path / "site"
    publication.build(site)
    path = publication.content / "site.yaml"
    record = publication.load(path)
    next(tag for tag in record["tags"] if tag["slug"] == "ai-act")["hu"] = "uniós MI-törvény"
    publication.save(path, record)
    before = {p: p.stat().st_mtime_ns for p in site.rglob("*")}
    output = publication.build(site)
    assert _written(site, before, "**/*.html") == [
        "hu/archive/index.html", "hu/archive/tag/ai-act/index.html", "hu/issues/10/index.html",
        "hu/issues/12/index.html", "hu/issues/13/index.html"], output
    assert _written(site, before, "*/feeds/*") == ["hu/feeds/issues.atom", "hu/feeds/issues.xml",
                                                   "hu/feeds/section-policy.atom", "hu/feeds/section-policy.xml"]
    # The Hungarian search index finds the tag's page by its new name (updated: a few of its files written);
    # the English one is left alone.
    written = _written(site, before, "*/search/index/**/*.json")
    assert written and all(path.startswith("hu/") for path in written), written
    hu = site / "hu" / "search" / "index"
    assert search(hu, "uniós MI-törvény")[0]["url"] == "/hu/archive/tag/ai-act/"
    assert search(hu, "uniós MI-törvény")[0]["title"] == "uniós MI-törvény"
    assert "Címke: uniós MI-törvény" in (site / "hu/archive/tag/ai-act/index.html").read_text(encoding="utf-8")
    for ext in ("xml", "atom"):
        feed = feedparser.parse((site / f"hu/feeds/issues.{ext}").read_bytes())
        terms = {entry.link.rstrip("/").rpartition("/")[2]: [tag.term for tag in entry.tags] for entry in feed.entries}
        assert "uniós MI-törvény" in terms["13"] and "MI-rendelet" not in terms["13"], terms
    fresh = tmp_path / "fresh"
    publication.build(fresh, "--full")
    assert _same_tree(site, fresh) == []


@pytest.mark.sqlite_only
def test_under_omit_a_tag_s_twin_appears_when_its_story_is_translated(sample_cli, tmp_path):
    # Under "omit" a tag that only an untranslated story carries has no page in the other language,
    # and its page offers no switch there; translating the story adds both, as a full build makes them.
    (sample_cli.cwd / "newsroom.toml").write_text('missing_translation = "omit"\n', encoding="utf-8")
    publication = Publication(sample_cli, tmp_path)
    path = publication.files("story")[0]
    record = publication.load(path)
    english = record.pop("en")
    record["tags"] = [*record["tags"], "csak magyarul"]
    publication.save(path, record, "--no-check")  # a published issue's story: stored so only as it is
    site = tmp_path / "site"
    publication.build(site)
    hu_page, en_page = (site / lang / "archive" / "tag" / "csak-magyarul" / "index.html" for lang in ("hu", "en"))
    assert hu_page.is_file() and not en_page.exists()
    assert language_switch(parse(hu_page)) == {}
    record["en"] = english
    publication.save(path, record)
    publication.build(site)
    assert language_switch(parse(hu_page)) == {"en": "/en/archive/tag/csak-magyarul/"} and en_page.is_file()
    fresh = tmp_path / "fresh"
    publication.build(fresh, "--full")
    assert _same_tree(site, fresh) == []


@pytest.mark.sqlite_only
def test_a_template_that_names_the_latest_issue_elsewhere_has_its_pages_rendered(sample_cli, tmp_path):
    # The masthead line is spliced only where nothing else a page renders from names `latest_issue`.
    publication = Publication(sample_cli, tmp_path)
    page = publication.templates / "page.html"
    page.write_text(page.read_text(encoding="utf-8").replace(
        "{% block main %}", "{% block main %}<p class=\"latest\">{{ latest_issue[0] }}</p>", 1), encoding="utf-8")
    site = tmp_path / "site"
    publication.build(site)
    publication.publish_issue()
    publication.build(site)
    fresh = tmp_path / "fresh"
    publication.build(fresh, "--full")
    assert _same_tree(site, fresh) == []
    assert '<p class="latest">14</p>' in (site / "en" / "method" / "index.html").read_text(encoding="utf-8")


@pytest.mark.sqlite_only(WORKED_OUT)
def test_pages_whose_stored_reads_cannot_be_read_are_remade_when_they_may_have_changed(sample_cli, tmp_path):
    # Reads written by another format (an older release, another Python) or damaged: a page whose
    # reads fall under a changed root is remade, since nothing says which of its reads changed.
    from sqlalchemy import update

    from newsroom.build.state import BuildOutput

    publication = Publication(sample_cli, tmp_path)
    site = tmp_path / "site"
    publication.build(site)
    with transaction(make_engine(sample_cli.db_url)) as session:
        session.execute(update(BuildOutput).values(reads=b"not what a build writes"))
    done = publication.edit_story_body()
    publication.build(site)
    fresh = tmp_path / "fresh"
    publication.build(fresh, "--full")
    assert _same_tree(site, fresh) == [], done


@pytest.mark.sqlite_only("the graph is one blob column on either database")
@pytest.mark.parametrize("stored", [b"not what a build writes", "the layout before"])
def test_a_build_graph_that_cannot_be_read_is_made_again_from_the_outputs_reads(sample_cli, tmp_path, stored):
    # A graph another release stored (its readers and values in one packed blob) or a damaged one:
    # the build compares every output's reads instead, and stores a graph the next build reads.
    import marshal

    from sqlalchemy import update

    from newsroom.build.blobs import MARSHAL_TAG, pack
    from newsroom.build.graph import Graph
    from newsroom.build.state import BuildRun

    publication = Publication(sample_cli, tmp_path)
    site = tmp_path / "site"
    publication.build(site)
    engine = make_engine(sample_cli.db_url)
    with transaction(engine) as session:
        graph = Graph.decode(session.scalar(select(BuildRun.graph)))
        assert graph is not None and graph.readers
        if stored == "the layout before":
            readers = {root: graph.readers.get(root) for root in graph.readers}
            stored = pack(MARSHAL_TAG + b"\n" + marshal.dumps([graph.values, readers]))
        session.execute(update(BuildRun).values(graph=stored))
    for edit in (publication.edit_story_body, publication.edit_story):
        done = edit()
        publication.build(site)
        with transaction(engine) as session:
            assert Graph.decode(session.scalar(select(BuildRun.graph))) is not None
        fresh = tmp_path / "fresh"
        publication.build(fresh, "--full")
        assert _same_tree(site, fresh) == [], done


@pytest.mark.sqlite_only
def test_a_second_build_of_a_folder_being_built_stops_and_says_why(sample_cli, tmp_path):
    import fcntl

    site = tmp_path / "site"
    sample_cli("build", "--out", str(site))
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    moved = ("build", "--out", str(site), "--base-url", "https://elsewhere.example/")  # changes every page
    # Another build holds the folder (its lock beside the folder, as a running build does).
    with open(tmp_path / ".site.lock", "ab") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        result = sample_cli(*moved, expect=1)
        assert "another build of this folder is running" in result.stderr and str(site) in result.stderr
        assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before
        assert not list(tmp_path.glob(".site.new-*"))
        fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
    assert " 0 written, " not in sample_cli(*moved).stdout  # the folder is free again: it builds


def test_a_build_reads_one_state_of_the_content_whatever_is_committed_meanwhile(sample_cli, tmp_path, monkeypatch):
    """An editor's edit committed while a build reads the content (on a team's shared database) is not
    half seen: the build makes its pages from the state it began with, and the next build shows the
    edit. On PostgreSQL each of the build's queries used to see what was committed before it."""
    from newsroom.build import making

    site = tmp_path / "site"
    engine = make_engine(sample_cli.db_url)
    with transaction(engine) as session:
        story = session.scalars(select(Story).order_by(Story.id)).first()
        slug, headline = story.slug, next(text.headline for text in story.texts if text.lang == "en")
    real_load = making.load

    def load_after_an_edit(*args, **kwargs):
        # The build has begun reading (the state's snapshot); another editor's edit commits now.
        sample_cli("story", "edit", slug, "--headline-en", "Committed meanwhile", "--correction", "--reason", "typo")
        return real_load(*args, **kwargs)

    def showing(text: str) -> set[Path]:
        return {page for page in (site / "en").rglob("*.html") if text in " ".join(parse(page).itertext())}

    monkeypatch.setattr(making, "load", load_after_an_edit)
    sample_cli("build", "--out", str(site))
    monkeypatch.undo()
    shown = showing(headline)
    assert shown and not showing("Committed meanwhile")  # the state the build began with, whole
    sample_cli("build", "--out", str(site))
    assert showing("Committed meanwhile") == shown and not showing(headline)
    engine.dispose()


@pytest.mark.sqlite_only("SQLite's write lock and its wait")
def test_a_build_waits_for_another_command_s_write_to_store_its_state(sample_cli, tmp_path, monkeypatch):
    """A build's files are in place when it stores its state: an import or an edit writing meanwhile is
    waited for, longer than a command waits otherwise, not given up on (the build used to fail there,
    its files written and their record lost, saying that nothing was changed)."""
    import sqlite3
    import threading

    from newsroom.db import session as db_session

    site, fresh = tmp_path / "site", tmp_path / "fresh"
    sample_cli("build", "--out", str(site))
    sample_cli("story", "edit", "i10-ai-designed-pet-enzymes", "--headline-en", "Edited", "--correction",
               "--reason", "typo")
    monkeypatch.setattr(db_session, "BUSY_TIMEOUT_MS", 100)  # a command gives up after 0.1 s
    holder = sqlite3.connect(sample_cli.db_url.removeprefix("sqlite:///"), isolation_level=None,
                             check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")  # another command's write, for 1.5 s
    released = threading.Timer(1.5, holder.execute, ["COMMIT"])
    released.start()
    try:
        result = sample_cli("build", "--out", str(site))
    finally:
        released.join()
        holder.close()
    assert " 0 written, " not in result.stdout
    assert " 0 written, " in sample_cli("build", "--out", str(site)).stdout  # its state was stored
    sample_cli("build", "--out", str(fresh), "--full")
    assert _same_tree(site, fresh) == []


def test_builds_of_two_folders_on_one_database_store_what_they_remembered_in_turn(sample_cli):
    """The site and an editor's preview, built at once on a team's database after the same edit, remember
    the same new results: the second build stores its memos once the first has committed (on PostgreSQL
    the two inserts of one shard met, and the second build failed with a duplicate key)."""
    import threading

    from newsroom.build import memos

    engine = make_engine(sample_cli.db_url)
    key = "0a" * 20  # a result's key: the hash of what it was made from

    def remembered(value: str) -> dict[str, memos.Memo]:
        memo = memos.Memo()
        memo.put(key, value)
        return {"checks": memo}

    failed: list[Exception] = []

    def second() -> None:
        try:
            with transaction(engine) as session:
                memos.save_memos(session, remembered("the second build's"))
        except Exception as error:  # noqa: BLE001 (what the test reports)
            failed.append(error)

    with transaction(engine) as session:
        memos.save_memos(session, remembered("the first build's"))
        waiting = threading.Thread(target=second)
        waiting.start()
        waiting.join(0.5)
        assert waiting.is_alive()  # it waits for the first build's commit
    waiting.join()
    assert failed == []
    with transaction(engine) as session:
        assert memos.load_memos(session, ["checks"])["checks"].get(key) == "the second build's"
    engine.dispose()


@pytest.mark.sqlite_only
def test_the_email_folder_is_held_like_the_site_and_its_leftovers_removed(sample_cli, tmp_path):
    import fcntl

    site, emails = tmp_path / "site", tmp_path / "emails"
    build = ("build", "--out", str(site), "--email-out", str(emails))
    sample_cli(*build)
    before = {p: p.read_bytes() for p in emails.rglob("*") if p.is_file()}
    assert before
    # What a build killed while writing the emails leaves beside their folder goes with the next build.
    (tmp_path / ".emails.new-killed").mkdir()
    (tmp_path / ".emails.new-killed" / "half.eml").write_text("half", encoding="utf-8")
    sample_cli(*build)
    assert not list(tmp_path.glob(".emails.new-*"))
    assert {p: p.read_bytes() for p in emails.rglob("*") if p.is_file()} == before
    # Another build writing that email folder (for another site) meanwhile: this one stops, changing nothing.
    with open(tmp_path / ".emails.lock", "ab") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        result = sample_cli(*build, "--base-url", "https://elsewhere.example/", expect=1)
        assert "another build of this folder is running" in result.stderr and str(emails) in result.stderr
        assert "or give this build an email folder of its own (--email-out)" in result.stderr
        fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
    assert {p: p.read_bytes() for p in emails.rglob("*") if p.is_file()} == before


@pytest.mark.sqlite_only
@pytest.mark.parametrize("where", ["site", "site/emails", "."])
def test_an_email_folder_that_holds_or_is_the_site_is_refused(sample_cli, tmp_path, where):
    site = tmp_path / "site"
    sample_cli("build", "--out", str(site))
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and "work" not in p.parts}
    result = sample_cli("build", "--out", str(site), "--email-out", str(tmp_path / where), expect=1)
    assert "--email-out" in result.stderr and "must not hold one another" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and "work" not in p.parts} == before


@pytest.mark.sqlite_only(WORKED_OUT)
def test_an_edit_redoes_only_the_pages_that_read_it(sample_cli, tmp_path):
    publication = Publication(sample_cli, tmp_path)
    site = tmp_path / "site"
    publication.build(site)
    path = publication.content / "pages" / "method.yaml"
    record = publication.load(path)
    record["en"]["summary"] = "How the newsletter is made, revised."
    publication.save(path, record)
    before = {p: p.stat().st_mtime_ns for p in site.rglob("*.html")}
    output = publication.build(site)
    changed = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                     if p.stat().st_mtime_ns != before.get(p))
    assert changed == ["en/method/index.html"], output


def _written(site: Path, before: dict[Path, int], pattern: str) -> list[str]:
    """The files matching `pattern` written (or made) since `before` ({path: mtime}) was taken."""
    return sorted(p.relative_to(site).as_posix() for p in site.glob(pattern) if p.stat().st_mtime_ns != before.get(p))


@pytest.mark.parametrize("databases", ["sqlite"], indirect=True)  # suite time: the store is no part of it
def test_an_entry_renamed_into_another_letter_remakes_those_letters_pages_alone(sample_cli, tmp_path):
    """Each letter of the A–Z index has a page. A new headword moves its entry from one letter's page to
    another's and leaves the other letters' pages alone; a letter left without entries loses its page, and
    then every page of that language shows it inactive in its letter bar, and the other language's page of
    the same letter switches to the new one. Each time the folder is what a full build makes."""
    publication = Publication(sample_cli, tmp_path)
    site = tmp_path / "site"
    publication.build(site)
    letters = "*/glossary/letter/*/index.html"

    def rename(slug: str, headword: str) -> dict[Path, int]:
        path = publication.content / "entries" / f"{slug}.yaml"
        record = publication.load(path)
        record["en"]["headword"] = headword
        before = {p: p.stat().st_mtime_ns for p in site.rglob("*.html")}
        publication.save(path, record)
        publication.build(site)
        return before

    before = rename("trainium", "Annapurna Trainium")
    assert _written(site, before, letters) == ["en/glossary/letter/a/index.html", "en/glossary/letter/t/index.html"]
    page = html5lib.parse((site / "en/glossary/letter/a/index.html").read_bytes(), namespaceHTMLElements=False)
    listed = [link.text for term in page.iter("dt") for link in term.iter("a")]
    assert listed == ["AI accelerator", "AI chip", "Annapurna Trainium", "AWS Inferentia"]

    before = rename("project-rainier", "Rainier")  # the only English "P"; Hungarian has an "R", "Rainier-projekt"
    assert not (site / "en/glossary/letter/p").exists()
    assert _written(site, before, "hu/glossary/letter/*/index.html") == ["hu/glossary/letter/r/index.html"]
    assert _written(site, before, "en/glossary/letter/*/index.html") == [
        f"en/glossary/letter/{letter}/index.html" for letter in ("a", "c", "d", "g", "m", "r", "t")]
    assert language_switch(parse(site / "hu/glossary/letter/r/index.html")) == {"en": "/en/glossary/letter/r/"}
    fresh = tmp_path / "fresh"
    publication.build(fresh, "--full")
    assert _same_tree(site, fresh) == []


@pytest.mark.sqlite_only(WORKED_OUT)
def test_outputs_nothing_produces_any_more_are_removed(sample_cli, tmp_path):
    """A draft issue in a preview build (`--drafts`) has pages; deleted, its pages go (a published issue
    stays for good, and a scheduled one once its time has come)."""
    publication = Publication(sample_cli, tmp_path)
    issue = publication.load(publication.files("issue")[-1])
    issue.update(number=14, week={"start": "2026-11-09", "end": "2026-11-15"}, status="draft")
    issue.pop("published_at", None)
    publication.save(publication.content / "issues" / "0014.yaml", issue)
    story = publication.load(publication.files("story")[0])
    story.update(slug="i14-only", issue=14, position=1, tags=["only-in-14"])
    publication.save(publication.content / "stories" / "i14-only.yaml", story)
    site = tmp_path / "site"
    publication.build(site, "--drafts")
    assert (site / "hu" / "issues" / "14" / "index.html").is_file()
    before = {p for p in site.rglob("*") if p.is_file()}
    sample_cli("delete", "story:i14-only")
    sample_cli("delete", "issue:14")
    output = publication.build(site, "--drafts")
    assert not (site / "hu" / "issues" / "14").exists() and not (site / "en" / "issues" / "14").exists()
    gone = before - {p for p in site.rglob("*") if p.is_file()}
    assert site / "hu" / "issues" / "14" / "index.html" in gone
    assert f" {len(gone)} removed " in output


def test_the_number_of_queries_per_build_is_bounded(sample_cli, tmp_path):
    """No N+1: a build loads everything in a fixed number of queries, whatever the content size."""
    from sqlalchemy import event

    from newsroom.build.pipeline import build
    from newsroom.settings import Settings

    engine = make_engine(sample_cli.db_url)
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    build(engine, Settings(), tmp_path / "site", dt.date(2026, 11, 30))
    full = len(statements)
    statements.clear()
    build(engine, Settings(), tmp_path / "site", dt.date(2026, 11, 30))
    engine.dispose()
    assert full <= 75, statements
    assert len(statements) <= 15, statements


def test_values_a_planner_keeps_across_pages_are_inputs_of_every_page(sample_cli, tmp_path):
    """A page type that memoises on the planner still gets correct dependencies on every page."""
    from newsroom.build import pages as pages_module
    from newsroom.build import planning
    from newsroom.build.derived import derive
    from newsroom.build.model import load_content
    from newsroom.build.tracking import Tracker, track_content, track_derived
    from newsroom.db.session import session_factory
    from newsroom.settings import Settings

    class Memoising(pages_module.Planner):
        def editions(self):
            if not hasattr(self, "_first"):
                self._first = self.headword("trainium")  # computed on one page, reused by the next
            return super().editions()

    engine = make_engine(sample_cli.db_url)
    with session_factory(engine)() as session:
        content = load_content(session)
    engine.dispose()
    settings = Settings()
    derived = derive(content, settings, False)
    tracker = Tracker()
    original = planning.Planner
    planning.Planner = Memoising
    try:
        planned = planning.plan_pages(track_content(content, tracker), track_derived(derived, tracker),
                                      settings, tracker)
    finally:
        planning.Planner = original
    for spec in planned:
        assert f"derived.headwords\x1f{spec.lang}/trainium" in spec.reads, spec.url


def test_a_language_s_search_index_depends_on_the_texts_it_shows_alone(sample_cli):
    """An English edit remakes the English search index only: each document depends on its record's
    text in the language it shows, as one read, and on nothing of the other language's but an entry's
    headword and aliases (names it is found by in both languages, with its English term); an issue's page
    also on its week, which its hit shows. An entry and a reference page also depend on the day that places
    them in the index (an entry's provenance, else its status; a reference page's date of update), and so on
    the issues' times out."""
    from newsroom.build.derived import derive
    from newsroom.build.model import load_content
    from newsroom.build.pages import Planner
    from newsroom.build.tracking import SEP, Tracker, track_content, track_derived
    from newsroom.db.session import session_factory
    from newsroom.render import search_documents
    from newsroom.settings import Settings

    engine = make_engine(sample_cli.db_url)
    with session_factory(engine)() as session:
        content = load_content(session)
    engine.dispose()
    settings = Settings()
    tracker = Tracker()
    tracked = track_content(content, tracker), track_derived(derive(content, settings, False), tracker)
    docs = search_documents.sources(Planner(*tracked, settings, "en", None))
    reads = tracker.take()
    assert {doc.kind for doc in docs} == {"entry", "reference", "story", "tag", "issue"}
    whole = 0
    references = {slug: page for slug, page in content.pages.items() if page.kind == "reference"}
    issues = {str(number): issue for number, issue in content.issues.items()}
    for kind, records in (("entries", content.entries), ("pages", references), ("stories", content.stories),
                          ("issues", issues)):
        for slug, record in records.items():
            shown = "en" if record.has("en") else "hu"  # the fallback of a record not yet translated
            texts = {read for read in reads if read.startswith(f"content.{kind}{SEP}{slug}{SEP}")}
            names = {f"content.{kind}{SEP}{slug}{SEP}{field}" for field in
                     ("english_term", f"hu{SEP}headword", f"hu{SEP}aliases", "provenance", "status")} \
                if kind == "entries" else set()
            day = {f"content.{kind}{SEP}{slug}{SEP}{field}" for field in {"pages": ("updated",),
                                                                          "issues": ("published_at",)}.get(kind, ())}
            # An issue's languages are read from its texts' fields (its pages do so too), not from derived facts.
            fields = {f"content.issues{SEP}{slug}{SEP}{lang}{SEP}*" for lang in ("hu", "en")} \
                if kind == "issues" else set()
            assert texts <= {f"content.{kind}{SEP}{slug}{SEP}{shown}", f"content.{kind}{SEP}{slug}{SEP}issue",
                             f"content.{kind}{SEP}{slug}{SEP}week", *names, *fields, *day}, texts
            whole += f"content.{kind}{SEP}{slug}{SEP}{shown}" in texts
    assert whole == sum(1 for doc in docs if doc.kind != "tag")  # every document depends on the text it was made from
    # A tag's page depends on the tag's names and on its list of stories, not on the other tags'.
    tags = [doc for doc in docs if doc.kind == "tag"]
    assert len(tags) > 60
    assert {read for read in reads if read.startswith("derived.tag_names")} == \
        {f"derived.tag_names{SEP}{doc.url.split('/')[-2]}" for doc in tags}


@pytest.mark.parametrize("databases", ["sqlite"], indirect=True)  # the store is no part of it
def test_a_new_issue_goes_into_the_search_index_after_every_document_there(sample_cli, tmp_path):
    """An issue's page is a document of the index, after its stories, and so are the tags its stories are the first
    to carry: publishing one appends its stories and its page and moves no document (a document's id is its
    place), so the index is updated; the files are those of an index made anew."""
    from newsroom.build.derived import derive
    from newsroom.build.model import load_content
    from newsroom.build.pages import Planner
    from newsroom.db.session import session_factory
    from newsroom.render import search as search_module
    from newsroom.render import search_documents
    from newsroom.settings import Settings

    def documents(lang):
        engine = make_engine(sample_cli.db_url)
        with session_factory(engine)() as session:
            content = load_content(session)
        engine.dispose()
        settings = Settings()
        return search_documents.sources(Planner(content, derive(content, settings, False), settings, lang, None))

    before = {lang: documents(lang) for lang in ("hu", "en")}
    folder = tmp_path / "content"
    for name, text in (("issues/0015.yaml", SPECIAL_ISSUE_15), ("stories/i15-story.yaml", ISSUE_15_STORY)):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    sample_cli("import", str(folder))
    for lang in ("hu", "en"):
        old, new = before[lang], documents(lang)
        # Everything stays where it was, as it was; the new issue's story (it carries no tag) and page follow.
        assert [doc.digest() for doc in new[:len(old)]] == [doc.digest() for doc in old]
        assert [(doc.kind, doc.url) for doc in new[len(old):]] == [
            ("story", f"/{lang}/issues/15/#story-i15-story"), ("issue", f"/{lang}/issues/15/")]
        last = search_module.LastIndex.of([doc.digest() for doc in old], search_module.index_files(old))
        assert search_module.index_files(new, last) == search_module.index_files(new)


@pytest.mark.parametrize("databases", ["sqlite"], indirect=True)  # the store is no part of it
def test_publishing_an_issue_writes_only_the_search_index_files_its_documents_are_in(sample_cli, tmp_path):
    """Publishing an issue rewrote most of the search index: the tags came after every story, a new issue's
    stories moved all of them, and an index more than half of whose documents moved (the sample's 78 tags) was
    made anew: 63 of its 79 files were written. The issue's stories, page and new tags now go in after every other
    document, which stays where it was, and the tags its story carries are updated where they are (their count of
    stories): of the index, meta.json, the chunks of those documents and the shards of the new documents' words
    are written, and they are what a full build makes."""
    publication = Publication(sample_cli, tmp_path)
    site = tmp_path / "site"
    index, old, written, _ = _index_updated(publication, site, lambda: publication.publish_issue(
        ["ai-act", "Kvantumgépek"]))  # a tag of three stories, and a new one
    for lang, folder in index.items():
        new = _index_files(folder)
        meta, rows, old_rows = json.loads(new["meta.json"]), _index_rows(new), _index_rows(old[lang])
        tag = f"/{lang}/archive/tag/"
        assert [row[:3] for row in rows[len(old_rows):]] == [
            ["story", rows[-3][1], f"/{lang}/issues/14/#story-i14-first"],
            ["issue", rows[-2][1], f"/{lang}/issues/14/"],
            ["tag", "Kvantumgépek", tag + "kvantumgepek/"]]
        changed = [number for number, (row, was) in enumerate(zip(rows, old_rows)) if row != was]
        assert [rows[number][2:] for number in changed] == \
            [[tag + "ai-act/", "4 hír" if lang == "hu" else "4 stories"]]
        # No document moved: a shard differs by the new documents' ids alone.
        new_ids = set(range(len(old_rows), len(rows)))
        shards = {path for path in new if path.startswith("shards/")}
        for path in shards:
            kept = {token: [number for number in ids if number not in new_ids]
                    for token, ids in json.loads(new[path]).items()}
            assert {token: ids for token, ids in kept.items() if ids} == json.loads(old[lang].get(path, b"{}")), path
        chunks = sorted({f"docs/{number // meta['chunk']}.json" for number in [*changed, *new_ids]})
        made = sorted(path for path in shards if new[path] != old[lang].get(path))
        assert [path for path in written if path.startswith(lang + "/")] == \
            sorted(f"{lang}/search/index/{path}" for path in [*chunks, "meta.json", *made])
        assert len(made) < len(shards) * 2 // 3, made
    fresh = tmp_path / "fresh"
    publication.build(fresh, "--full")
    assert _same_tree(site, fresh) == []


def _dated_entry(publication: Publication) -> str:
    """A new entry written on the publication's day, as an editor adds one between two issues."""
    slug = "added-dated-entry"
    record = {"kind": "entry", "slug": slug, "category": "infrastructure", "level": "basic", "trend": "emerging",
              "status": "2026-11", "sources": [{"publisher": "X", "title": "Y", "url": "https://example.org/"}],
              "provenance": {"method": "human-written", "review": "editor-review", "written": "2026-11-30"},
              "hu": {"headword": "Kvantumgyorsító", "definition": "Kvantumos számításokra szabott gyorsító."},
              "en": {"headword": "Quantum accelerator", "definition": "An accelerator made for quantum computing."}}
    publication.save(publication.content / "entries" / f"{slug}.yaml", record)
    return f"/glossary/{slug}/"


def _dated_reference(publication: Publication) -> str:
    """A new reference page, a copy of the sample's with its own slug and titles, updated on the publication's day."""
    record = publication.load(publication.files("reference")[0])
    record.pop("formerly", None)
    record.update(slug="added-dated-reference", updated="2026-11-30")
    record["en"]["title"], record["hu"]["title"] = "A quantum profile", "Egy kvantumprofil"
    publication.save(publication.content / "reference" / "added-dated-reference.yaml", record)
    return "/reference/added-dated-reference/"


@pytest.mark.parametrize("databases", ["sqlite"], indirect=True)  # the store is no part of it
@pytest.mark.parametrize("add", [_dated_entry, _dated_reference], ids=["entry", "reference"])
def test_adding_an_entry_or_a_reference_page_writes_only_the_search_index_files_it_is_in(sample_cli, tmp_path, add):
    """The glossary entries and reference pages came before every story, in order of slug: a new one moved every
    document after it, and the index was made anew (on the sample, 36 of the Hungarian index's 39 files written
    for a new entry). Each now goes in among the issues' documents at its date (an entry's `written`, a
    reference page's `updated`), after the issues published before it: one dated after the latest issue goes in
    after every document there, which stays where it was. Of the index, meta.json, the new document's chunk and
    the shards of its words are written (a new entry's definition is a sentence: 18 of the Hungarian index's 40
    files; a reference page copied from the sample's, long, has words in most shards: 34 of 39), and they are what
    a full build makes."""
    publication = Publication(sample_cli, tmp_path)
    site = tmp_path / "site"
    index, old, written, address = _index_updated(publication, site, lambda: add(publication))
    for lang, folder in index.items():
        new = _index_files(folder)
        rows, old_rows = _index_rows(new), _index_rows(old[lang])
        assert rows[:len(old_rows)] == old_rows  # no document moved
        assert [row[2] for row in rows[len(old_rows):]] == [f"/{lang}{address}"]
        added = len(old_rows)
        meta = json.loads(new["meta.json"])
        assert added in meta["entries"]
        shards = {path for path in new if path.startswith("shards/")}
        for path in shards:  # a shard differs by the new document's id alone
            kept = {token: [number for number in ids if number != added]
                    for token, ids in json.loads(new[path]).items()}
            assert {token: ids for token, ids in kept.items() if ids} == json.loads(old[lang].get(path, b"{}")), path
        # Written: meta.json, the one chunk of the new document's row, and the shards of its own words, no other.
        made = sorted(path for path in shards if new[path] != old[lang].get(path))
        assert made == sorted(path for path in shards if any(added in ids for ids in json.loads(new[path]).values()))
        ours = [path for path in written if path.startswith(lang + "/")]
        assert ours == sorted(f"{lang}/search/index/{path}"
                              for path in ["meta.json", f"docs/{added // meta['chunk']}.json", *made])
    fresh = tmp_path / "fresh"
    publication.build(fresh, "--full")
    assert _same_tree(site, fresh) == []


@pytest.mark.parametrize("databases", ["sqlite"], indirect=True)  # the store is no part of it
def test_an_issue_whose_week_is_corrected_has_its_hit_show_the_new_week(sample_cli, tmp_path):
    """An issue's hit says its number and week ("Issue 10 · Oct 12–18, 2026"); the index update works that line
    out only for the documents it makes, and still remakes the issue's when only its week changed (after an
    update that made other documents alone, too): in each language its row alone changes, and the index is the
    one a full build makes."""
    publication = Publication(sample_cli, tmp_path)
    site = tmp_path / "site"
    publication.build(site)
    publication.edit_story()  # an update of both languages' indexes that makes that story's documents alone
    path = publication.content / "issues" / "0010.yaml"
    record = publication.load(path)
    assert record["week"] == {"start": "2026-10-12", "end": "2026-10-18"}
    record["week"] = {"start": "2026-10-05", "end": "2026-10-11"}
    index, old, written, _ = _index_updated(publication, site, lambda: publication.save(path, record))
    for lang, folder in index.items():
        new = _index_files(folder)
        changed = [(place, before, after) for place, (before, after) in
                   enumerate(zip(_index_rows(old[lang]), _index_rows(new))) if before != after]
        assert [(before[2], after[2]) for _, before, after in changed] == [(f"/{lang}/issues/10/",) * 2]
        (place, before, after), = changed
        assert before[3] == {"en": "Issue 10 · Oct 12–18, 2026",
                             "hu": "10. szám · 2026. okt. 12–18."}[lang]
        assert after[3] == {"en": "Issue 10 · Oct 5–11, 2026",
                            "hu": "10. szám · 2026. okt. 5–11."}[lang]
        assert [hit["snippet"] for hit in search(folder, "10") if hit["url"] == f"/{lang}/issues/10/"] == [after[3]]
        # Its words are the same: of the index, its row's chunk alone is written.
        chunk = json.loads(new["meta.json"])["chunk"]
        assert [path for path in written if path.startswith(f"{lang}/")] == \
            [f"{lang}/search/index/docs/{place // chunk}.json"]
    fresh = tmp_path / "fresh"
    publication.build(fresh, "--full")
    assert _same_tree(site, fresh) == []


def _index_updated(publication: Publication, site: Path, change: Callable[[], Any]) \
        -> tuple[dict[str, Path], dict[str, dict[str, bytes]], list[str], Any]:
    """Build `site`, make the `change`, build again: each language's search index folder, its files before the
    change, the index files the second build wrote, and what `change` gave."""
    publication.build(site)
    index = {lang: site / lang / "search" / "index" for lang in ("hu", "en")}
    old = {lang: _index_files(folder) for lang, folder in index.items()}
    before = {p: p.stat().st_mtime_ns for p in site.rglob("*")}
    made = change()
    publication.build(site)
    return index, old, _written(site, before, "*/search/index/**/*.json"), made


def _index_files(folder: Path) -> dict[str, bytes]:
    """A search index's files, by their paths under its folder."""
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in folder.rglob("*.json")}


def _index_rows(files: dict[str, bytes]) -> list[list[str]]:
    """The rows of an index's chunks (see `_index_files`), in id order."""
    meta = json.loads(files["meta.json"])
    return [row for chunk in range(-(-meta["documents"] // meta["chunk"]))
            for row in json.loads(files[f"docs/{chunk}.json"])]


@pytest.mark.sqlite_only
def test_preview_and_normal_builds_never_reuse_each_others_pages(sample_cli, tmp_path):
    """A preview build (the `serve` command's) marks every page; switching a folder between the two redoes them."""
    from newsroom.build.pipeline import build
    from newsroom.settings import Settings

    engine = make_engine(sample_cli.db_url)
    settings, today = Settings(base_url=BASE), dt.date(2026, 11, 30)
    site = tmp_path / "site"
    try:
        for preview in (False, True, False):
            build(engine, settings, site, today, drafts=preview, preview=preview)
            fresh = tmp_path / f"fresh-{preview}"
            build(engine, settings, fresh, today, drafts=preview, preview=preview, full=True)
            assert _same_tree(site, fresh) == [], f"preview={preview}"
            shutil.rmtree(fresh)
    finally:
        engine.dispose()


def test_a_new_day_is_no_change_and_a_new_month_checks_the_content_again(sample_cli, tmp_path):
    """Only check's warnings read the day, and only its month (an entry's age): the first build of a
    new day is a rebuild with no change, that of a new month checks again and says which entries aged."""
    from sqlalchemy import event

    from newsroom.build.pipeline import build
    from newsroom.settings import Settings

    engine = make_engine(sample_cli.db_url)
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    site = tmp_path / "site"
    build(engine, Settings(), site, dt.date(2026, 11, 10))
    statements.clear()
    same_day = build(engine, Settings(), site, dt.date(2026, 11, 10))
    no_change = len(statements)
    statements.clear()
    next_day = build(engine, Settings(), site, dt.date(2026, 11, 11))
    assert len(statements) == no_change
    assert next_day.stats == same_day.stats and next_day.stats.written == 0
    statements.clear()
    later = build(engine, Settings(), site, dt.date(2028, 11, 11))
    engine.dispose()
    assert len(statements) > no_change  # loaded and checked again
    assert later.stats.written == 0
    aged = [str(problem) for problem in later.warnings if "months old" in str(problem)]
    assert aged and all(problem.startswith("entry:") for problem in aged)


@pytest.mark.parametrize("databases", ["sqlite"], indirect=True)
def test_an_edited_headline_remakes_the_archive_page_of_its_year_alone(sample_cli, monkeypatch, tmp_path):
    """The archive, and each section's, lists the latest year's stories and links a page per year: a
    headline edited in an older year makes that year's pages again, not the front pages nor another
    year's."""
    monkeypatch.setenv(NOW_ENV, "2027-01-04T09:00:00+01:00")
    sample_cli("issue", "new", "--week", "2026-W53", "--title-hu", "Év", "--title-en", "Year")
    sample_cli("story", "add", "14", "--section", "science", "--headline-hu", "Hír", "--headline-en", "Story",
               "--summary-hu", "Szöveg.", "--summary-en", "Text.", "--source-url", "https://example.org/")
    sample_cli("issue", "publish", "14", "--at", "2027-01-02T07:00")
    site = tmp_path / "site"
    sample_cli("build", "--out", str(site))
    archive = site / "en" / "archive"
    assert sorted(path.name for path in archive.iterdir() if path.name.isdigit()) == ["2026", "2027"]
    listed = {year: (archive / year / "index.html").read_text(encoding="utf-8") for year in ("2026", "2027")}
    assert "Story" in listed["2027"] and "Story" not in listed["2026"]
    front = (archive / "index.html").read_text(encoding="utf-8")
    assert "Story" in front and 'href="/en/archive/2026/"' in front
    science = archive / "section" / "science"
    page = html5lib.parse((science / "index.html").read_bytes(), namespaceHTMLElements=False)
    years = [(a.text, a.get("href")) for a in page.find(".//ul[@class='years']").iter("a")]
    assert years == [("2027", "/en/archive/section/science/2027/"), ("2026", "/en/archive/section/science/2026/")]
    headlines = {year: [a.text for a in html5lib.parse((science / year / "index.html").read_bytes(),
                                                       namespaceHTMLElements=False).iter("a")
                        if "#story-" in (a.get("href") or "")] for year in ("2026", "2027")}
    assert headlines["2027"] == ["Story"] and "Story" not in headlines["2026"]
    assert "AI-designed enzymes break down PET plastic in lab tests" in headlines["2026"]
    assert not (archive / "section" / "code" / "2027").exists()  # no code story came out in 2027

    before = {p: p.stat().st_mtime_ns for p in archive.rglob("*.html")}
    sample_cli("story", "edit", "i10-ai-designed-pet-enzymes", "--headline-en", "Enzymes that eat PET, revised",
               "--correction", "--reason", "A clearer headline.")
    sample_cli("build", "--out", str(site))
    changed = sorted(p.relative_to(archive).as_posix() for p in archive.rglob("*.html")
                     if p.stat().st_mtime_ns != before.get(p))
    assert "2026/index.html" in changed
    assert "index.html" not in changed and "2027/index.html" not in changed
    assert "section/science/2026/index.html" in changed
    assert "section/science/index.html" not in changed and "section/science/2027/index.html" not in changed
    assert "Enzymes that eat PET, revised" in (archive / "2026" / "index.html").read_text(encoding="utf-8")


_PATHS = st.sampled_from([f"{lang}/page-{n}/index.html" for lang in ("hu", "en") for n in range(12)])
_ROOTS = st.sampled_from([f"content.stories\x1fs{n}" for n in range(8)])


@given(st.dictionaries(_ROOTS, st.sets(_PATHS, min_size=1)),
       st.lists(st.dictionaries(_ROOTS, st.sets(_PATHS)), max_size=4))
def test_the_graph_s_readers_are_each_root_s_paths_as_given_and_as_replaced(readers, changes):
    # The stored graph numbers each path once; what each root's readers are must not depend on it.
    from newsroom.build.graph import Readers

    def numbered(readers: dict[str, list[str]]) -> Readers:
        paths = sorted({path for found in readers.values() for path in found})
        return Readers.numbered(paths, {root: sorted(map(paths.index, found)) for root, found in readers.items()})

    model = {root: sorted(paths) for root, paths in readers.items()}
    table = numbered(readers)
    for change in changes:
        table = Readers.decode(table.replaced(change).encode())
        model.update({root: sorted(paths) for root, paths in change.items()})
        model = {root: paths for root, paths in model.items() if paths}
    assert {root: table.get(root) for root in table} == model
    assert table.get("content.stories\x1fnone") == []
    assert {root: numbered(model).get(root) for root in model} == model


def _reads_in_a_fork(connection, previous, paths) -> None:
    connection.send([previous.outputs[path].reads for path in paths])


def test_stored_reads_are_read_when_asked_for_and_alike_in_a_forked_worker(sample_cli, tmp_path):
    # The state is read without the outputs' reads; each is read when asked for, many in one query,
    # and a render worker forked from the build reads them over a connection of its own.
    import multiprocessing

    from newsroom.build import state

    publication = Publication(sample_cli, tmp_path)
    site = tmp_path / "site"
    publication.build(site)
    engine = make_engine(sample_cli.db_url)
    with transaction(engine) as session:
        rows = session.execute(select(state.BuildOutput.path, state.BuildOutput.reads)
                               .where(state.BuildOutput.site == str(site.resolve()))).all()
        stored = {path: reads for path, reads in rows}
        previous = state.load(session, str(site.resolve()))
    assert previous is not None and set(previous.outputs) == set(stored)
    paths = sorted(stored)
    previous.fetch_reads(paths[:3])
    assert [previous.outputs[path].reads for path in paths[:3]] == [stored[path] for path in paths[:3]]
    receiving, sending = multiprocessing.get_context("fork").Pipe(duplex=False)
    worker = multiprocessing.get_context("fork").Process(target=_reads_in_a_fork,
                                                         args=(sending, previous, paths[-3:]))
    worker.start()
    assert receiving.recv() == [stored[path] for path in paths[-3:]]
    worker.join()
    assert worker.exitcode == 0
    # One asked for alone; all, read as a whole; each output still the same as an output made anew.
    assert previous.outputs[paths[5]].reads == stored[paths[5]]
    previous.fetch_reads()
    assert {path: output.reads for path, output in previous.outputs.items()} == stored
    output = previous.outputs[paths[0]]
    assert output == state.Output(output.digest, output.fingerprint, stored[paths[0]], output.meta)
    assert output != state.Output(output.digest, output.fingerprint, state.NO_READS + b"x", output.meta)
    engine.dispose()


def test_the_roots_that_changed_are_those_whose_value_is_another_now(sample_cli, tmp_path):
    # Values.changed hashes most roots its own quick way: it must find what comparing each one finds.
    from newsroom.build.pipeline import build
    from newsroom.build.values import Values
    from newsroom.settings import Settings

    engine = make_engine(sample_cli.db_url)
    held: list = []
    site = tmp_path / "site"
    build(engine, Settings(), site, dt.date(2026, 11, 30), keep=held)
    content, derived = held[0]["content"], held[0]["derived"]
    _, graph_values, _ = _state(engine, site)
    assert len(graph_values) > 100
    assert Values(content, derived).changed(graph_values) == set()
    stored = {root: value if index % 3 else "another" for index, (root, value) in enumerate(graph_values.items())}
    stored["content.stories\x1fno-such-story"] = "-"
    stored["derived.no_such_field\x1fx"] = "another"
    one_by_one = Values(content, derived)
    assert Values(content, derived).changed(stored) == {root for root, value in stored.items()
                                                        if one_by_one(root) != value}
    engine.dispose()


def test_a_build_s_state_commit_leaves_the_wal_to_the_next_build_which_copies_it_meanwhile(sample_cli, tmp_path):
    # On SQLite the build's state commit neither syncs nor copies the WAL into the database file; the next
    # build copies it while it works. The state is there for every connection, and a connection the
    # build used is handed back with SQLite's settings as make_engine sets them.
    import sqlite3

    from newsroom.build.pipeline import build
    from newsroom.db.session import JOURNAL_SIZE_LIMIT, WAL_AUTOCHECKPOINT, WalCopy
    from newsroom.settings import Settings

    if not sample_cli.db_url.startswith("sqlite:///"):
        pytest.skip("SQLite's write-ahead log")
    path = sample_cli.db_url.removeprefix("sqlite:///")
    engine = make_engine(sample_cli.db_url)

    def count(table: str) -> tuple[int, int]:
        """Rows as any connection sees them, and in the database file alone (without the WAL)."""
        with engine.connect() as connection:
            raw = connection.connection.dbapi_connection
            seen = raw.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        alone = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
        try:
            in_file = alone.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        finally:
            alone.close()
        return seen, in_file

    with engine.connect() as connection:
        connection.connection.dbapi_connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    assert count("build_outputs") == (0, 0)
    result = build(engine, Settings(), tmp_path / "site", dt.date(2026, 11, 30))
    seen, in_file = count("build_outputs")
    assert seen == result.files and in_file == 0  # committed, in the WAL alone
    with engine.connect() as connection:
        raw = connection.connection.dbapi_connection
        assert raw.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL, as for every other transaction
        assert raw.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == WAL_AUTOCHECKPOINT
        assert raw.execute("PRAGMA journal_size_limit").fetchone()[0] == JOURNAL_SIZE_LIMIT
    # An edit commits little (no copy either); the next build copies the WAL while it works, then leaves
    # its own state there.
    with engine.connect() as connection:
        slug = connection.execute(select(Story.slug).order_by(Story.slug)).scalars().first()
    revisions = count("revisions")
    sample_cli("story", "edit", slug, "--headline-en", "An edited headline", "--correction", "--reason", "A typo")
    assert count("revisions")[0] == revisions[0] + 1 and count("revisions")[1] == revisions[1]
    again = build(engine, Settings(), tmp_path / "site", dt.date(2026, 11, 30))
    assert again.rendered > 0
    assert count("revisions")[1] == revisions[0] + 1 and count("build_outputs")[1] == result.files
    copy = WalCopy(engine)  # as the next build starts one
    copy.wait()
    assert count("build_outputs") == (again.files, again.files)
    engine.dispose()


@pytest.mark.sqlite_only
def test_a_build_leaves_what_it_made_to_the_oldest_generation_of_the_collector(sample_cli, tmp_path, monkeypatch):
    # The collector is off while building; re-enabled with everything the build made still young, its
    # next pass walked all of it (0.18 s after a one-edit build at scale). Works run in this process here.
    import gc

    from newsroom.build import rendering
    from newsroom.build.pipeline import build
    from newsroom.settings import Settings

    monkeypatch.setattr(rendering, "PARALLEL_MIN", 10**9)
    engine = make_engine(sample_cli.db_url)
    result = build(engine, Settings(), tmp_path / "site", dt.date(2026, 11, 30))
    young = len(gc.get_objects(generation=0)) + len(gc.get_objects(generation=1))
    assert gc.isenabled()
    assert result.rendered > 200 and young < 5_000
    engine.dispose()


@pytest.mark.sqlite_only
def test_a_remade_feed_makes_again_only_the_issues_and_stories_whose_reads_changed(sample_cli, tmp_path, monkeypatch):
    """A feed shows the full text of the latest issues: an edit to one story remakes the feed, from the
    last build's HTML of every issue and story but the edited one's; a glossary alias remakes those of
    the stories whose text holds it, where its terms may be linked otherwise. Either way the feeds are
    what a full build makes."""
    publication = Publication(sample_cli, tmp_path)
    site = publication.site = tmp_path / "site"
    publication.build(site)
    monkeypatch.setattr(rendering, "workers", lambda: 1)  # the works run here, where they are counted
    made: list[tuple[str, str]] = []
    for name in ("issue_html", "story_html"):
        real = getattr(feeds, name)
        monkeypatch.setattr(feeds, name, lambda planner, what, *rest, real=real: made.append(
            (planner.lang, str(getattr(what, "key", what)))) or real(planner, what, *rest))

    def shown(lang: str) -> set[tuple[str, str]]:
        """What the issues and section feeds of `lang` show: (lang, issue number or story slug)."""
        found = set()
        for path in (site / lang / "feeds").glob("*.xml"):
            if path.name != "glossary.xml":
                for entry in feedparser.parse(path.read_bytes()).entries:
                    found.add((lang, entry.id.rsplit("/", 1)[1]))
        return found

    latest = max(publication.load(path)["number"] for path in publication.files("issue"))
    path = next(path for path in publication.files("story") if publication.load(path)["issue"] == latest)
    record = publication.load(path)
    record["en"]["body"] = (record["en"].get("body") or "") + "\n\nA later paragraph, in English alone."
    publication.save(path, record)
    publication.build(site)
    # Its issue in English, itself in its section's feed, and the issue in Hungarian too: an edit of a
    # published issue's story is recorded as a correction, which the issue shows in both languages.
    assert sorted(made) == [("en", str(latest)), ("en", record["slug"]), ("hu", str(latest))]
    full = tmp_path / "full"
    publication.build(full, "--full")
    assert _same_tree(site / "en" / "feeds", full / "en" / "feeds") == []

    made.clear()
    publication.add_alias()  # "Anthropic": the parts of the stories that name it, and of their issues, alone
    publication.build(site)
    naming = [publication.load(path) for path in publication.files("story") if "anthropic" in path.read_text().lower()]
    expected = {(lang, key) for story in naming for key in (story["slug"], str(story["issue"])) for lang in ("hu", "en")}
    assert naming and set(made) == expected & (shown("hu") | shown("en")) and len(made) == len(set(made)), made
    shutil.rmtree(full)
    publication.build(full, "--full")
    assert _same_tree(site, full) == []


def _section_feeds_made(monkeypatch) -> list[tuple[str, str]]:
    """The section feeds the builds from now on make, as (language, section): the works run in this process,
    where they are counted."""
    monkeypatch.setattr(rendering, "workers", lambda: 1)
    made: list[tuple[str, str]] = []
    real = feeds.section_items
    monkeypatch.setattr(feeds, "section_items", lambda planner, section, *rest: made.append(
        (planner.lang, section)) or real(planner, section, *rest))
    return made


def test_a_correction_to_one_story_remakes_the_feeds_that_show_it_alone(sample_cli, tmp_path, monkeypatch):
    """An edit of a published story is a correction, which dates the story's feed items (`updated`): its
    issue's feeds and its section's are made again, in each language, and no other section's, though each
    shows stories of the same issue. The feeds are what a full build makes."""
    publication = Publication(sample_cli, tmp_path)
    site = tmp_path / "site"
    publication.build(site)
    made = _section_feeds_made(monkeypatch)
    latest = max(publication.load(path)["number"] for path in publication.files("issue"))
    stories = [publication.load(path) for path in publication.files("story")]
    sections = {story["section"] for story in stories if story["issue"] == latest}
    path, record = next((path, record) for path, record in zip(publication.files("story"), stories)
                        if record["issue"] == latest and record["section"] == "policy")
    assert len(sections) > 1  # other sections' feeds show stories of that issue too
    record["en"]["body"] = (record["en"].get("body") or "") + "\n\nA later paragraph, in English alone."
    publication.save(path, record)
    publication.build(site)
    assert sorted(made) == [("en", "policy"), ("hu", "policy")]
    for lang in ("hu", "en"):
        feed = feedparser.parse((site / lang / "feeds" / "section-policy.atom").read_bytes())
        item = next(entry for entry in feed.entries if entry.link.endswith(f"#story-{record['slug']}"))
        assert item.updated_parsed > item.published_parsed, item  # dated by the correction
    full = tmp_path / "full"
    publication.build(full, "--full")
    assert _same_tree(site / "en" / "feeds", full / "en" / "feeds") == []
    assert _same_tree(site / "hu" / "feeds", full / "hu" / "feeds") == []


@pytest.mark.sqlite_only("what a build checks does not depend on the database")
def test_the_glossary_s_relations_and_shared_names_are_checked_again_only_after_an_entry_changed(
        sample_cli, tmp_path, monkeypatch):
    """The relation graph's problems and the names two entries share read the entries alone: a build after an
    edit of a story says the same warnings without looking for them again, one after an edit of an entry looks
    again and says what it found."""
    publication = Publication(sample_cli, tmp_path)
    site = tmp_path / "site"
    (path, entry), (_, other) = [(path, publication.load(path)) for path in publication.files("entry")][:2]
    entry["en"]["aliases"] = [*(entry["en"].get("aliases") or []), other["en"]["headword"]]
    publication.save(path, entry)
    shared = f"{other['en']['headword']!r} is also a name of entry {entry['slug']!r}"  # said at the other
    assert shared in publication.build(site, said="stderr")
    looked: list[str] = []
    for name in ("graph_problems", "label_clashes"):
        monkeypatch.setattr(checks, name, partial(_counted, looked, name, getattr(checks, name)))
    publication.edit_story_body()
    assert shared in publication.build(site, said="stderr") and looked == []
    entry["en"]["aliases"] = entry["en"]["aliases"][:-1]
    publication.save(path, entry)
    looked.clear()  # the import's own check of the change looks too
    assert shared not in publication.build(site, said="stderr") and looked == ["graph_problems", "label_clashes"]


def _counted(calls: list[str], name: str, real: Callable[..., Any], *args: Any) -> Any:
    calls.append(name)
    return real(*args)


def test_a_section_s_feed_is_remade_when_a_story_it_shows_changes_not_when_an_older_one_is_retagged(
        sample_cli, tmp_path, monkeypatch):
    """A section's feed reads its own list of the newest stories and those stories: retagging a story of the
    first issue (which no feed shows) remakes none of the section feeds, retagging one that its section's feed
    shows remakes that feed alone, in each language, and the feeds are what a full build makes."""
    (sample_cli.cwd / "newsroom.toml").write_text("feed_limit = 3\n", encoding="utf-8")  # the older ones unshown
    publication = Publication(sample_cli, tmp_path)
    site = tmp_path / "site"
    publication.build(site)
    made = _section_feeds_made(monkeypatch)
    shown = {entry.link.rpartition("#story-")[2]
             for path in site.glob("en/feeds/section-*.atom") for entry in feedparser.parse(path.read_bytes()).entries}
    stories = [(path, publication.load(path)) for path in publication.files("story")]
    oldest = min(record["issue"] for _, record in stories)
    for issue, expected in ((oldest, []), (max(record["issue"] for _, record in stories), ["en", "hu"])):
        path, record = next((path, record) for path, record in stories if record["issue"] == issue)
        assert (record["slug"] in shown) == bool(expected)
        record["tags"] = [*(record.get("tags") or []), "retagged"]
        publication.save(path, record)
        made.clear()
        publication.build(site)
        assert sorted(made) == [(lang, record["section"]) for lang in expected], issue
    full = tmp_path / "full"
    publication.build(full, "--full")
    for lang in ("hu", "en"):
        assert _same_tree(site / lang / "feeds", full / lang / "feeds") == []


@pytest.mark.sqlite_only
def test_a_catalog_change_remakes_its_language_s_pages_alone(sample_cli, tmp_path, monkeypatch):
    """An interface string translated anew (the English catalog's "In the news") is an input of every
    English page — each reads its catalog — and of no Hungarian one; files are written where their bytes
    changed. The rebuilt site shows it, and equals a full build's. (The build once missed it: its first
    question, whether anything changed, asked about the code, settings and templates alone.)"""
    from newsroom import i18n

    locale = tmp_path / "locale"
    shutil.copytree(i18n.LOCALE_DIR, locale)

    def catalog_path(lang: str, locale_dir: Path = locale) -> Path:
        return locale / lang / "LC_MESSAGES" / f"{i18n.DOMAIN}.po"

    monkeypatch.setattr(i18n, "catalog_path", catalog_path)
    publication = Publication(sample_cli, tmp_path)
    site = tmp_path / "site"
    publication.build(site)
    before = {path: path.stat().st_mtime_ns for path in site.rglob("*") if path.is_file()}
    emails = {path: path.read_bytes() for path in (tmp_path / "email").rglob("*") if path.is_file()}
    english = locale / "en" / "LC_MESSAGES" / "messages.po"
    po = english.read_text(encoding="utf-8")
    assert 'msgid "In the news"\nmsgstr ""\n' in po
    english.write_text(po.replace('msgid "In the news"\nmsgstr ""\n',
                                  'msgid "In the news"\nmsgstr "In the headlines"\n'), encoding="utf-8")
    output = publication.build(site)
    # Every English page is made again (each reads the catalog), and no Hungarian one; a file is
    # written only where its bytes changed: the entries whose *In the news* shows the new words.
    english_pages = sum(1 for path in site.rglob("*.html") if path.relative_to(site).parts[0] == "en"
                        and path.name != "404.html")
    assert f" {english_pages} rendered)" in output, output
    changed = {path.relative_to(site).as_posix() for path in site.rglob("*") if path.is_file()
               and path.stat().st_mtime_ns != before.get(path)}
    showing = {path.relative_to(site).as_posix() for path in site.rglob("*.html")
               if "In the headlines" in path.read_text(encoding="utf-8")}
    assert "en/glossary/trainium/index.html" in showing and changed == showing, sorted(changed ^ showing)
    entry = parse(site / "en" / "glossary" / "trainium" / "index.html")
    headings = [h2.text for h2 in entry.iter("h2") if h2.text in ("In the news", "In the headlines")]
    assert headings == ["In the headlines"]
    remade = [path.name for path, data in emails.items() if path.read_bytes() != data]
    assert remade == [], remade  # the email says neither
    fresh = tmp_path / "fresh"
    publication.build(fresh, "--full")
    assert _same_tree(site, fresh) == []


@pytest.mark.sqlite_only
def test_a_new_release_of_a_library_that_renders_remakes_every_output(sample_cli, tmp_path, monkeypatch):
    """Another version of a distribution that shapes the bytes (Babel's dates, say) may render otherwise:
    like new code of ours, it makes every page again; the files whose bytes are the same are not written."""
    from newsroom.build import pipeline

    site = tmp_path / "site"
    sample_cli("build", "--out", str(site))
    assert " 0 rendered)" in sample_cli("build", "--out", str(site)).stdout
    versions = pipeline.rendering_versions()
    assert {"babel", "jinja2", "markdown_it_py", "nh3", "feedgen"} <= dict(versions).keys()
    monkeypatch.setattr(pipeline, "rendering_versions",
                        lambda: [(name, "99.0" if name == "babel" else version) for name, version in versions])
    pipeline.code_version.cache_clear()
    try:
        output = sample_cli("build", "--out", str(site)).stdout
    finally:
        monkeypatch.undo()
        pipeline.code_version.cache_clear()
    assert re.search(r"\(256 pages, 256 rendered\): 0 written, 370 unchanged, 0 removed ", output), output


@pytest.mark.sqlite_only(WORKED_OUT)
def test_new_code_makes_its_pages_from_its_own_results_not_those_remembered_from_the_old(sample_cli, tmp_path,
                                                                                          monkeypatch):
    """A build remembers what it worked out (each text's Markdown rendered, each record's problems and
    mentions). After an upgrade (here a new markdown-it-py that marks citations otherwise) those results
    are the old code's: the rebuild makes every page from the new code's, as a full build does."""
    from newsroom.build import pipeline
    from newsroom.render.markdown import parsing  # where citation marks are made, by markdown-it and for prose

    site, fresh = tmp_path / "site", tmp_path / "fresh"
    sample_cli("build", "--out", str(site))
    versions, citation = pipeline.rendering_versions(), parsing._citation_html
    monkeypatch.setattr(pipeline, "rendering_versions",
                        lambda: [(name, "99.0" if name == "markdown_it_py" else version) for name, version in versions])
    monkeypatch.setattr(parsing, "_citation_html", lambda *args: citation(*args).replace(
        '<sup class="cite">', '<sup class="cite upgraded">'))
    pipeline.code_version.cache_clear()
    try:
        sample_cli("build", "--out", str(site))
        sample_cli("build", "--out", str(fresh), "--full")
        assert " 0 written, " in sample_cli("build", "--out", str(site)).stdout  # and remembered from then on
    finally:
        monkeypatch.undo()
        pipeline.code_version.cache_clear()
    assert _same_tree(site, fresh) == []
    marks = [sup.get("class") for sup in parse(site / "en" / "glossary" / "gpu" / "index.html").iter("sup")]
    assert "cite upgraded" in marks, marks  # the Markdown's citations, as the new code marks them


@pytest.mark.sqlite_only("which memos a new code reads does not depend on the database; their round trip is covered above")
def test_a_matcher_that_finds_otherwise_remakes_the_mentions_and_links_kept_from_the_old(sample_cli, tmp_path,
                                                                                    monkeypatch):
    """What a build remembers of term matching (each story's mentions, its pages with their terms linked) is
    the code's that matched. After an upgrade that no longer takes a name inside an e-mail address for a
    mention (the old code stood in for here), the next build counts and links as a full build does."""
    from glossary import matching
    from newsroom.build import pipeline

    publication = Publication(sample_cli, tmp_path)
    path = publication.content / "stories" / "i10-tsmc-q3-ai-demand.yaml"  # no other mention of Trainium
    record = publication.load(path)
    record["en"]["summary"] += " Questions: trainium@example.com."
    publication.save(path, record)
    site, fresh = tmp_path / "site", tmp_path / "fresh"

    def trainium_news(folder: Path) -> list[str]:
        news = parse(folder / "en" / "glossary" / "trainium" / "index.html").find(".//section[@id='news']")
        return [a.get("href").split("#story-")[1] for a in news.iter("a")]

    versions = pipeline.rendering_versions()
    monkeypatch.setattr(pipeline, "rendering_versions", lambda: [*versions, ("old_matcher", "1")])
    monkeypatch.setattr(matching, "in_address", lambda text, start, end: False)
    pipeline.code_version.cache_clear()
    try:
        publication.build(site)
        assert "i10-tsmc-q3-ai-demand" in trainium_news(site)  # the old code's mention
    finally:
        monkeypatch.undo()
        pipeline.code_version.cache_clear()
    publication.build(site)
    publication.build(fresh, "--full")
    assert _same_tree(site, fresh) == []
    assert "i10-tsmc-q3-ai-demand" not in trainium_news(site)
    page = (site / "en" / "issues" / "10" / "index.html").read_text(encoding="utf-8")
    assert "trainium@example.com" in page and "trainium@example.com</a>" not in page


@pytest.mark.sqlite_only(FOLDER_READ)
def test_the_email_folder_is_left_alone_unless_an_email_changed(sample_cli, tmp_path):
    """An edit the latest issue's emails do not show leaves their folder as it was (not swapped for a copy
    of itself); one they show replaces it, the changed email's files new and the others the same files;
    `--full` writes it whatever it holds."""
    import email
    import email.policy

    publication = Publication(sample_cli, tmp_path)
    site, mail = tmp_path / "site", tmp_path / "email"
    publication.build(site)

    def folder() -> tuple[int, dict[Path, tuple[int, int, bytes]]]:
        return mail.stat().st_ino, {path.relative_to(mail): (path.stat().st_ino, path.stat().st_mtime_ns,
                                                              path.read_bytes())
                                    for path in mail.rglob("*") if path.is_file()}

    def retitle(path: Path) -> str:
        record = publication.load(path)
        record["en"]["headline"] += " (updated)"
        publication.save(path, record)
        return record["en"]["headline"]

    before = folder()
    stories = [(publication.load(path)["issue"], path) for path in publication.files("story")]
    latest = max(number for number, _ in stories)
    retitle(next(path for number, path in stories if number < latest))
    assert " 0 written, " not in publication.build(site)  # the site changed
    assert folder() == before
    headline = retitle(next(path for number, path in stories if number == latest))
    publication.build(site)
    after = folder()
    assert after[0] != before[0] and set(after[1]) == set(before[1])
    changed = {path for path in after[1] if after[1][path] != before[1][path]}
    assert changed and {path.parts[0] for path in changed} == {"en"}
    eml = next(path for path in changed if path.suffix == ".eml")
    message = email.message_from_bytes(after[1][eml][2], policy=email.policy.default)
    assert headline in " ".join(message.get_body(("plain",)).get_content().split())  # the text part wraps it
    publication.build(site, "--full")  # ignores the state: writes the folder, the same bytes
    rewritten = folder()
    assert rewritten[0] != after[0] and {path: item[2] for path, item in rewritten[1].items()} \
        == {path: item[2] for path, item in after[1].items()}


@pytest.mark.sqlite_only(FOLDER_READ)
def test_emails_removed_or_changed_by_hand_are_written_again(sample_cli, tmp_path):
    """The email folder is an output of the build too: a build with nothing else to do writes it again
    when it is gone or one of its files was changed, and leaves it alone otherwise."""
    site, emails = tmp_path / "site", tmp_path / "emails"
    build = ("build", "--out", str(site), "--email-out", str(emails))
    sample_cli(*build)
    written = {path.relative_to(emails): path.read_bytes() for path in emails.rglob("*") if path.is_file()}
    assert any(path.suffix == ".eml" for path in written)

    def as_written() -> bool:
        return {path.relative_to(emails): path.read_bytes() for path in emails.rglob("*") if path.is_file()} == written

    times = {path: path.stat().st_mtime_ns for path in emails.rglob("*") if path.is_file()}
    assert " 0 written, " in sample_cli(*build).stdout
    assert {path: path.stat().st_mtime_ns for path in emails.rglob("*") if path.is_file()} == times  # left alone
    shutil.rmtree(emails)
    assert " 0 written, " in sample_cli(*build).stdout and as_written()  # the site had nothing to do
    changed = next(path for path in emails.rglob("*.txt"))
    changed.write_text("edited by hand\n", encoding="utf-8")
    sample_cli(*build)
    assert as_written()
    next(path for path in emails.rglob("*.eml")).unlink()
    sample_cli(*build)
    assert as_written()
    # A file put in by hand: the folder is no longer as written (and gets back exactly the emails).
    (emails / "en" / "notes.txt").write_text("a stray file\n", encoding="utf-8")
    sample_cli(*build)
    assert as_written()
    # Put back from an older copy: other bytes with an earlier time than the build's.
    restored = next(path for path in emails.rglob("*.txt"))
    restored.write_text("an older copy\n", encoding="utf-8")
    os.utime(restored, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))
    sample_cli(*build)
    assert as_written()


@pytest.mark.parametrize("databases", ["sqlite"], indirect=True)
def test_a_story_s_row_shown_by_many_lists_is_remade_in_each(sample_cli, tmp_path):
    """A story's line in the archive's year, section and tag lists, and in *In the news* of each entry it
    mentions, is made once per build and language: every page that shows it depends on its headline,
    so an edited headline reaches each of them, byte for byte as a full build makes them."""
    slug = "i10-ai-designed-pet-enzymes"
    site, fresh = tmp_path / "site", tmp_path / "fresh"
    sample_cli("build", "--out", str(site))

    def listing(folder: Path) -> dict[str, list[str]]:
        """{page: the text of each link it has to the story} for the English lists that link to it."""
        found = {}
        for path in sorted([*(folder / "en" / "archive").rglob("index.html"),
                            *(folder / "en" / "glossary").rglob("index.html")]):
            page = html5lib.parse(path.read_bytes(), namespaceHTMLElements=False)
            links = ["".join(a.itertext()).strip() for a in page.iter("a")
                     if (a.get("href") or "").endswith(f"#story-{slug}")]
            if links:
                found[path.relative_to(folder).as_posix()] = links
        return found

    before = listing(site)
    lists = {page.split("/")[2] for page in before if page.startswith("en/archive/")}
    assert {"2026", "section", "tag"} <= lists, before  # the year's, the section's, a tag's
    assert sum(page.startswith("en/glossary/") for page in before) >= 2
    sample_cli("story", "edit", slug, "--headline-en", "Enzymes that eat PET, revised",
               "--correction", "--reason", "A clearer headline.")
    sample_cli("build", "--out", str(site))
    after = listing(site)
    assert set(after) == set(before)
    assert all(links == ["Enzymes that eat PET, revised"] for links in after.values()), after
    sample_cli("build", "--full", "--out", str(fresh))
    assert all((site / page).read_bytes() == (fresh / page).read_bytes() for page in after)
