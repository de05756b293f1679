"""The values of a content file's fields checked against their specs and given in canonical form (see
newsroom/content/validator.py, whose `Validator` holds a file to its kind with them)."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from typing import Any
from urllib.parse import urlsplit

from newsroom.content.schema import (
    EXPECTS,
    LANGUAGE_RE,
    MAX_INT,
    MONTH_RE,
    SLUG_RE,
    TABLE,
    TEXT,
    TEXTUAL,
    Field,
    page_slug_problem,
    relation_name,
)
from newsroom.db.base import SLUG_LENGTH
from newsroom.diagnostics import Diagnostic, dotted
from newsroom.diagnostics import FieldPath as Path
from newsroom.i18n import is_language_tag
from newsroom.reference_rules import blank, row_problems


def _composed(text: str) -> str:
    """`text` in Unicode's composed form (NFC), as the web wants it: a file saved decomposed ("ő" as "o" and a
    combining double acute, as macOS names and some editors write it) holds the same text as one that is not."""
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


#: A line break (Unicode's too: NEL, the line and paragraph separators), and a run of white space, which may
#: hold one.
LINE_BREAK_RE = re.compile(r"[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
_WHITE_SPACE = re.compile(r"\s+")


def _one_line(text: str) -> str:
    """`text` with every line break, and the white space around it, made one space: each run of white space
    is read once (a pattern of spaces around a line break tried every start in a run without one, and 40 KB of
    tabs took 7 s)."""
    if text.isprintable():
        return text
    return _WHITE_SPACE.sub(lambda run: " " if LINE_BREAK_RE.search(run[0]) else run[0], text)


#: Characters no page, feed or email can hold: the control characters XML 1.0 leaves out (all below U+0020
#: but tab and line breaks; in a one-line text field a vertical tab or form feed is a line break, a space),
#: a surrogate alone, U+FFFE and U+FFFF. A file's bytes hold none (the YAML reader refuses them), but a
#: double-quoted value's escapes write them ("\0", "\x01", "\ud800"): SQLite stored one and then every build
#: stopped on a traceback at the feeds; PostgreSQL stores no NUL at all, and the import stopped so.
UNSHOWABLE_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")

#: Characters outside RFC 3986's set that a URL never holds as they are (a browser sends them
#: percent-encoded): quotes and angle brackets, which pasted markup brings, among them.
_URL_UNSAFE = re.compile(r'["<>\\^`{|}]')


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


class FieldValues:
    """Each value of a file checked against its field's spec (`value`) and given in canonical form, by a checker
    for each type of field (`_text`, `_url`, …, named by `Field.type`); a problem is added to `problems` by
    `fail`. `Validator` is one: these read its `location`, `lines`, `languages`, `problems`, `stored` and
    `written`."""

    def fail(self, path: Path, message: str) -> None:
        line = next((self.lines[path[:i]] for i in range(len(path), -1, -1) if path[:i] in self.lines), None)
        self.problems.append(Diagnostic(self.location, line, dotted(path), message))

    def value(self, path: Path, value: Any, spec: Field) -> Any:
        if value is None or value == "" or value == [] or value == {}:
            if spec.required and not any(p.field == dotted(path) for p in self.problems):  # (an alias there)
                self.fail(path, f"required; expected {self._expected(spec)}")
            return None
        if self.written and spec.type in TEXTUAL:  # (none for a record read back from the database)
            value = self.written.get(path, value)
        check = getattr(self, f"_{spec.type}")
        checked = check(path, value, spec)
        unshowable = UNSHOWABLE_RE.search(checked) if isinstance(checked, str) and not self.stored else None
        if unshowable is not None:
            self.fail(path, f"holds the character U+{ord(unshowable.group()):04X}, which no page, feed or email can "
                            "hold: take it out (in a file, a YAML escape such as \"\\0\" or \"\\x01\" writes one)")
            return None
        return checked

    @staticmethod
    def _expected(spec: Field) -> str:
        if spec.expects:
            return spec.expects
        return f"one of {', '.join(spec.choices)}" if spec.type == "enum" else EXPECTS[spec.type]

    def _wrong(self, path: Path, value: Any, spec: Field) -> None:
        if isinstance(value, (dt.date, dt.datetime)):  # as YAML read it from the file, not as Python writes it
            value = value.isoformat()
        shown = repr(value) if len(repr(value)) < 60 else repr(value)[:57] + "..."
        self.fail(path, f"expected {self._expected(spec)}, got {shown}")

    def _text(self, path: Path, value: Any, spec: Field) -> str | None:
        # A text field is one paragraph (a title, a headline, a definition; Markdown fields hold more): a line
        # break in it, from a `|` block or a command line, would reach a feed's title or an email's Subject
        # as one, so it is a space, as a page shows it.
        value = self.written.get(path, value) if self.written else value
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            return self._wrong(path, value, spec)
        return _composed(_one_line(str(value).strip())) or None

    def _line_md(self, path: Path, value: Any, spec: Field) -> str | None:
        return self._text(path, value, spec)

    def _md(self, path: Path, value: Any, spec: Field) -> str | None:
        if not isinstance(value, str):
            return self._text(path, value, spec)
        return _composed(value.strip("\n").rstrip()) or None

    def _url(self, path: Path, value: Any, spec: Field) -> str | None:
        if not isinstance(value, str) or not re.match(r"^(https?://[^\s]+|mailto:[^\s]+)$", value.strip()):
            return self._wrong(path, value, spec)
        url = value.strip()
        unsafe = _URL_UNSAFE.search(url)
        if unsafe is not None and not self.stored:  # (one stored before this rule still exports)
            self.fail(path, f"a URL holds no {unsafe[0]!r} as it is (RFC 3986): write it as "
                            f"%{ord(unsafe[0]):02X}, as a browser's address bar copies it")
            return None
        if url.startswith("http") and not urlsplit(url).hostname and not self.stored:
            self.fail(path, f"{url!r} names no host: expected e.g. https://example.org/page")
            return None
        return url

    def _slug(self, path: Path, value: Any, spec: Field) -> str | None:
        if not isinstance(value, str) or not SLUG_RE.match(value):
            return self._wrong(path, value, spec)
        return None if self._too_long(path, value) else value

    def _tag_slug(self, path: Path, value: Any, spec: Field) -> str | None:
        """A tag's slug (issues.archive.tag_slug): its page's name, in any script ("ai-act", "日本")."""
        from issues.archive import tag_slug

        if not isinstance(value, str) or not value or tag_slug(value) != value:
            return self._wrong(path, value, spec)
        return None if self._too_long(path, value) else value

    def _too_long(self, path: Path, slug: str) -> bool:
        """Whether `slug` is longer than a slug may be (said so): the database's column holds no more
        (PostgreSQL stopped the import on a traceback). One stored before this rule still exports."""
        if len(slug) <= SLUG_LENGTH or self.stored:
            return False
        self.fail(path, f"a slug of {len(slug)} characters: a slug has at most {SLUG_LENGTH}; shorten it")
        return True

    def _relation(self, path: Path, value: Any, spec: Field) -> str | dict[str, str] | None:
        """An entry's slug, or a concept's name: a text that is no slug (as written in every language) or
        one name per language, in the site's language order (see `relation_name`)."""
        if isinstance(value, str):
            if relation_name(value) is None and self._too_long(path, value):  # an entry's slug, as it is stored
                return None
            return self._text(path, value, spec)
        if isinstance(value, dict):
            names = self._langmap(path, value, spec) or {}
            return {lang: names[lang] for lang in self.languages if lang in names} or None
        return self._wrong(path, value, spec)

    def _page_slug(self, path: Path, value: Any, spec: Field) -> str | None:
        """A site page's slug: a slug that is not the name of one of the site's own folders."""
        slug = self._slug(path, value, spec)
        problem = page_slug_problem(slug) if slug is not None else None
        if problem is not None:
            self.fail(path, problem)
            return None
        return slug

    def _int(self, path: Path, value: Any, spec: Field) -> int | None:
        # Every whole number of the content counts from 1: an issue's number, a story's place, a source's.
        if isinstance(value, bool) or not isinstance(value, int) or (value < 1 and not self.stored):
            return self._wrong(path, value, spec)
        if value > MAX_INT:  # the database's whole numbers hold no more: it stopped the import on a traceback
            self.fail(path, f"{value} is too large: expected a whole number from 1 up to {MAX_INT}")
            return None
        return value

    def _flag(self, path: Path, value: Any, spec: Field) -> bool | None:
        """true, or None for false: a record without the flag and one saying false are the same record (one
        hash, one export)."""
        if not isinstance(value, bool):
            return self._wrong(path, value, spec)
        return True if value else None

    def _language(self, path: Path, value: Any, spec: Field) -> str | None:
        """A language tag (`en`, `pt-BR`), as a page's `lang` attribute takes it: a language, script and region
        HTML5 knows (`xx`, `hu-Latn` were taken before, and made the pages invalid; one stored so still builds)."""
        if not isinstance(value, str) or not LANGUAGE_RE.match(value.strip()) \
                or not (self.stored or is_language_tag(value.strip())):
            return self._wrong(path, value, spec)
        return value.strip()

    def _enum(self, path: Path, value: Any, spec: Field) -> str | None:
        if value not in spec.choices and not (self.stored and spec.stored_any and isinstance(value, str)):
            self.fail(path, f"expected one of {', '.join(spec.choices)}, got {value!r}")
            return None
        return str(value)

    def _date(self, path: Path, value: Any, spec: Field) -> str | None:
        if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
            return value.isoformat()
        try:
            return dt.date.fromisoformat(str(value)).isoformat() if re.match(r"^\d{4}-\d{2}-\d{2}$", str(value)) \
                else self._wrong(path, value, spec)
        except ValueError:
            return self._wrong(path, value, spec)

    def _month(self, path: Path, value: Any, spec: Field) -> str | None:
        match = MONTH_RE.match(str(value))
        if not match or not 1 <= int(match.group(2)) <= 12:
            return self._wrong(path, value, spec)
        return str(value)

    def _datetime(self, path: Path, value: Any, spec: Field) -> str | None:
        try:
            parsed = value if isinstance(value, dt.datetime) else dt.datetime.fromisoformat(str(value))
        except ValueError:
            return self._wrong(path, value, spec)
        if parsed.tzinfo is None:
            self.fail(path, f"expected {EXPECTS['datetime']}: the UTC offset is missing")
            return None
        # Canonical form is UTC, so the same moment always hashes the same.
        return parsed.astimezone(dt.timezone.utc).isoformat()

    def _list(self, path: Path, value: Any, spec: Field) -> list[Any] | None:
        if not isinstance(value, list):
            return self._wrong(path, value, spec)
        assert spec.of is not None
        items = [self.value((*path, i), item, spec.of) for i, item in enumerate(value)]
        return [item for item in items if not _empty(item)]

    def _map(self, path: Path, value: Any, spec: Field) -> dict[str, Any] | None:
        if not isinstance(value, dict):
            return self._wrong(path, value, spec)
        for name in value:
            if name not in spec.fields and not (spec.named and name in self.languages):
                self.fail((*path, name), f"unknown field; expected one of {', '.join(spec.fields)}")
        out = {}
        for name, sub in spec.fields.items():
            item = self.value((*path, name), value.get(name), sub)
            if not _empty(item):
                out[name] = item
        if spec.named:
            for lang in self.languages:
                name = self._text((*path, lang), value.get(lang), TEXT) if value.get(lang) is not None else None
                if name:
                    out[lang] = name
        if spec is TABLE and isinstance(value.get("rows"), list):
            self._rows((*path, "rows"), value["rows"], len(out.get("columns") or []))
        return out

    def _rows(self, path: Path, rows: list[Any], columns: int) -> None:
        """A spec-table row with a blank cell is refused as it is read (it would show an empty cell), and
        named as `check` names it: a blank label or cell within the columns, and the row's width when it
        has a cell too few or too many (a blank cell past the last column is to be taken out, not filled).
        A row without a blank cell is left to `check` (a cell's source needs the page's sources)."""
        for r, row in enumerate(rows):
            if not isinstance(row, list) or not any(blank(cell) for cell in row):
                continue
            for where, message in row_problems(row, columns):
                named = dotted((*path, r)) + where  # (a cell of the wrong shape is named as such already)
                if where and any(p.field == named for p in self.problems):
                    continue
                self.fail((*path, r, *([int(where[1:-1])] if where else [])), message)

    def _langmap(self, path: Path, value: Any, spec: Field) -> dict[str, str] | None:
        if not isinstance(value, dict):
            return self._wrong(path, value, spec)
        out = {}
        for lang, text in value.items():
            if lang not in self.languages:
                self.fail((*path, str(lang)), f"unknown language {lang!r}; expected {', '.join(self.languages)}")
                continue
            item = self._text((*path, lang), text, TEXT)
            if item:
                out[lang] = item
        return out

    def _cell(self, path: Path, value: Any, spec: Field) -> Any:
        if isinstance(value, dict):
            if set(value) == {"not_published"}:
                return {"not_published": self._text((*path, "not_published"), value["not_published"], TEXT)}
            if set(value) in ({"value", "source"}, {"value"}):
                cell: dict[str, Any] = {"value": self._text((*path, "value"), value["value"], TEXT)}
                if "source" in value:
                    cell["source"] = self._int((*path, "source"), value["source"], Field("int"))
                return cell
            return self._wrong(path, value, spec)
        return self._text(path, value, spec)
