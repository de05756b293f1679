"""Gettext catalogs for interface strings, compiled from the `.po` files.

Compiling at load time means there is no committed `.mo` file that can go
stale: what the build uses is always what `locale/*/LC_MESSAGES/messages.po`
says. The compiled catalog is kept between processes (each command is one), in
the folder where Jinja keeps the compiled templates, under a hash of the `.po`
file's bytes: the next command reads it back instead of compiling again. Every
function takes the language explicitly. Babel is imported when a catalog is
first compiled: a build asks for the catalogs' digests before it knows whether
anything changed (see build/pipeline.py), and one with nothing to do loads none
of it.
"""

from __future__ import annotations

import hashlib
import io
import re
import struct
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from newsroom import project_folder, write_whole
from newsroom.diagnostics import ContentError, Diagnostic

if TYPE_CHECKING:
    from collections.abc import Mapping

    from babel.support import NullTranslations

LOCALE_DIR = project_folder("locale")
DOMAIN = "messages"


def catalog_path(lang: str, locale_dir: Path = LOCALE_DIR) -> Path:
    return locale_dir / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def catalog_digest(lang: str) -> str:
    """A hash of `lang`'s catalog: an input of every page, feed and email in that language. Read again only
    when the file's size or modification time changes: a build asks for it with every feed's fingerprint
    (hundreds of them at scale), as `translations` asks for the compiled catalog."""
    path = catalog_path(lang)
    try:
        found = path.stat()
    except OSError:
        return "-"
    return _file_digest(path, found.st_mtime_ns, found.st_size)


@lru_cache(maxsize=16)
def _file_digest(path: Path, _mtime_ns: int, _size: int) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:  # gone since it was looked at
        return "-"


#: The version of the compiled catalogs kept between processes (part of their names): one kept by other code is
#: never read.
KEPT_LAYOUT = 1


@lru_cache(maxsize=16)
def _compiled(path: Path, mtime_ns: int, lang: str) -> NullTranslations:
    from babel.support import Translations

    source = path.read_bytes()
    kept = _kept_path(source, lang)
    if kept is not None:
        try:
            with kept.open("rb") as handle:
                return Translations(handle, domain=DOMAIN)
        except (OSError, ValueError, LookupError, struct.error):  # none yet, or not a catalog: compiled again
            pass
    compiled = _compile(path, source, lang)
    if kept is not None:
        _keep(kept, compiled)
    return Translations(io.BytesIO(compiled), domain=DOMAIN)


def _compile(path: Path, source: bytes, lang: str) -> bytes:
    """The `.mo` bytes of the catalog `source` (the file at `path`); ContentError naming each translation
    whose placeholders are not its message's."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    catalog = read_po(io.BytesIO(source), locale=lang)
    # A translation whose placeholders are not its message's ("%(cnt)s" for "%(count)s") would fail on
    # every page that shows it: Babel's checkers find those before anything is rendered.
    problems = [Diagnostic(str(path), message.lineno, "", f"msgid {_first(message.id)!r}: {error}")
                for message, errors in catalog.check() for error in errors]
    if problems:
        raise ContentError(problems)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def _kept_path(source: bytes, lang: str) -> Path | None:
    """Where the catalog compiled from `source` is kept (compiled by this Babel and this code), or None
    where there is no folder to keep it in. Only a catalog that passed the placeholder check is kept."""
    import babel

    folder = _kept_folder()
    if folder is None:
        return None
    key = hashlib.sha256(b"\0".join([source, lang.encode(), babel.__version__.encode()])).hexdigest()
    return folder / f"__newsroom_catalog_{KEPT_LAYOUT}_{key}.mo"


@lru_cache(maxsize=1)
def _kept_folder() -> Path | None:
    """Jinja's folder for compiled templates, the user's own in the temporary folder (made private to them
    and checked to be so); None where it cannot be made."""
    from jinja2 import FileSystemBytecodeCache

    try:
        return Path(FileSystemBytecodeCache().directory)
    except (OSError, RuntimeError):
        return None


def _keep(path: Path, data: bytes) -> None:
    """Keep `data` at `path`, whole (a process reading it meanwhile finds none, or all of it); a folder that
    refuses it only means the next process compiles again."""
    try:
        write_whole(path, data)
    except OSError:
        pass


def _first(message_id: str | tuple[str, ...]) -> str:
    return message_id[0] if isinstance(message_id, tuple) else message_id


def translations(lang: str, locale_dir: Path = LOCALE_DIR) -> NullTranslations:
    """The interface translations of `lang`; message ids (English) when there is no catalog."""
    path = catalog_path(lang, locale_dir)
    if not path.exists():
        from babel.support import NullTranslations

        return NullTranslations()
    return _compiled(path, path.stat().st_mtime_ns, lang)


def text_direction(lang: str) -> str:
    """`dir` of a text in `lang` (`rtl` or `ltr`): an email's, or a text shown on another language's page,
    whose direction it need not share."""
    from babel import Locale

    return "rtl" if Locale.parse(lang).character_order == "right-to-left" else "ltr"


#: CLDR's minimumGroupingDigits where it is not 1 (Babel ignores it): Hungarian groups a number's thousands
#: from five digits on ("1300", "13 000"), as its typography does.
MINIMUM_GROUPING_DIGITS = {"hu": 2}


def format_count(count: int, lang: str) -> str:
    """A count as `lang` writes a number: "1300", "13 000" (a no-break space) in Hungarian, "1,300" in English."""
    from babel.numbers import format_decimal

    grouped = len(str(abs(count))) >= 3 + MINIMUM_GROUPING_DIGITS.get(lang.split("_")[0], 1)
    return format_decimal(count, locale=lang, group_separator=grouped)


#: "a(z)" in a Hungarian message, before a value ("a(z) %(n)s.") or a word: the article the value's sound
#: takes is chosen as the value is put in ("az 1.", "a 2.", "az 50.", "a 100.", "az 1000."); no reader sees "a(z)".
_ARTICLE = re.compile(r"\b([Aa])\(z\) (%\((\w+)\)[sd]|[^\w%]*\w+)")
_SPOKEN_START = re.compile(r"(?:&#?\w+;|[^\w&])*(\d+(?:[ \u00a0\u202f]\d{3})*|\w+)")
#: Letters whose Hungarian name starts with a vowel: "az MI", "az SMS", "az F betű"; "a TPU", "a GPU".
_VOWEL_LETTER_NAMES = frozenset("AÁEÉIÍOÓÖŐUÚÜŰFLMNRSXY")
_VOWELS = frozenset("aáeéiíoóöőuúüű")


def format_message(message: str, variables: Mapping[str, Any]) -> str:
    """`message % variables`, each "a(z)"/"A(z)" of the message made "a"/"az" as the value or word after it
    is said (a value's own "a(z)" stays as written); a Markup message gives Markup, its values escaped."""
    if "(z) " in message:
        def article(match: re.Match[str]) -> str:
            said = str(variables.get(match[3], "")) if match[3] else match[2]
            return match[1] + ("z" if _takes_az(said) else "") + " " + match[2]

        message = type(message)(_ARTICLE.sub(article, str(message)))
    return message % variables


def _takes_az(text: str) -> bool:
    """Whether the Hungarian definite article before `text` (a number or a word first) is "az"."""
    start = _SPOKEN_START.match(text)
    if start is None:
        return False
    word = start[1]
    if word[0].isdigit():
        digits = re.sub(r"\D", "", word).lstrip("0") or "0"
        # The number is said from its leading group of three digits: 1 (egy), 1000 (ezer) and 1000000
        # (egymillió) take "az", as do 5 (öt), 50 (ötven) and 500 (ötszáz); 10 (tíz), 100 (száz) do not.
        group = digits[:len(digits) % 3 or 3]
        return group in ("1", "5") or (len(group) > 1 and group[0] == "5")
    if word.isupper():  # an abbreviation, said letter by letter
        return word[0] in _VOWEL_LETTER_NAMES
    return word[0].lower() in _VOWELS


_LANGUAGE_TAG = re.compile(r"([a-z]{2,3})(?:-([a-z]{4}))?(?:-([a-z]{2}|[0-9]{3}))?\Z")
#: Languages written in more than one script with none the usual one (no Suppress-Script in the IANA
#: registry): `zh-Hans` and `sr-Latn` say something; `hu-Latn` says what `hu` says, and HTML refuses it.
_SCRIPTS_VARY = frozenset({"az", "bs", "ha", "ks", "mn", "ms", "pa", "sd", "shi", "sr", "uz", "vai", "yue", "zh"})


@lru_cache(maxsize=1)
def _subtags() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    from babel import Locale  # as the catalogs: only when a tag is checked

    english = Locale("en")
    return (frozenset(code.lower() for code in english.languages if "_" not in code),
            frozenset(code.lower() for code in english.scripts),
            frozenset(code.lower() for code in english.territories))


@lru_cache(maxsize=256)
def is_language_tag(tag: str) -> bool:
    """A language tag as HTML's `lang` takes it (letter case aside): a language Babel knows, an optional
    script other than the one it goes without saying (`sr-Latn`, not `hu-Latn`) and an optional region
    (`pt-BR`, `es-419`)."""
    from babel.core import get_global

    match = _LANGUAGE_TAG.match(tag.lower())
    if match is None:
        return False
    language, script, region = match.groups()
    languages, scripts, regions = _subtags()
    usual = (get_global("likely_subtags").get(language) or "").lower().split("_")[1:2]
    return (language in languages and (script is None or script in scripts and ([script] != usual
                                                                                  or language in _SCRIPTS_VARY))
            and (region is None or region in regions))
