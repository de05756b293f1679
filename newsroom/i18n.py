"""Gettext catalogs for interface strings, compiled from the `.po` files in memory.

Compiling at load time means there is no committed `.mo` file that can go
stale: what the build uses is always what `locale/*/LC_MESSAGES/messages.po`
says. Every function takes the language explicitly. Babel is imported when a
catalog is first compiled: a build asks for the catalogs' digests before it
knows whether anything changed (see build/pipeline.py), and one with nothing
to do loads none of it.
"""

from __future__ import annotations

import hashlib
import io
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from newsroom import project_folder
from newsroom.diagnostics import ContentError, Diagnostic

if TYPE_CHECKING:
    from babel.support import NullTranslations

LOCALE_DIR = project_folder("locale")
DOMAIN = "messages"


def catalog_path(lang: str, locale_dir: Path = LOCALE_DIR) -> Path:
    return locale_dir / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def catalog_digest(lang: str) -> str:
    """A hash of `lang`'s catalog: an input of every page, feed and email in that language."""
    path = catalog_path(lang)
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "-"


@lru_cache(maxsize=16)
def _compiled(path: Path, mtime_ns: int, lang: str) -> NullTranslations:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    from babel.support import Translations

    with path.open("rb") as handle:
        catalog = read_po(handle, locale=lang)
    # A translation whose placeholders are not its message's ("%(cnt)s" for "%(count)s") would fail on
    # every page that shows it: Babel's checkers find those before anything is rendered.
    problems = [Diagnostic(str(path), message.lineno, "", f"msgid {_first(message.id)!r}: {error}")
                for message, errors in catalog.check() for error in errors]
    if problems:
        raise ContentError(problems)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    buffer.seek(0)
    return Translations(buffer, domain=DOMAIN)


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
