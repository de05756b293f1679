"""HTML pages: one Jinja2 environment per language, autoescaping, gettext labels."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import ChainableUndefined, Environment, FileSystemLoader, select_autoescape

from newsroom import PROJECT_ROOT
from newsroom.i18n import translations

TEMPLATES = PROJECT_ROOT / "templates"


@lru_cache(maxsize=8)
def environment(lang: str, templates: Path = TEMPLATES) -> Environment:
    """A template environment whose `_()` speaks `lang`; templates compile once per language."""
    env = Environment(
        loader=FileSystemLoader(str(templates)),
        autoescape=select_autoescape(("html", "xml"), default_for_string=True),
        extensions=["jinja2.ext.i18n"],
        undefined=ChainableUndefined,  # optional record fields are simply absent
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_translations(translations(lang), newstyle=True)  # type: ignore[attr-defined]
    return env


def render(template: str, lang: str, context: Mapping[str, Any]) -> bytes:
    """Render one page to bytes."""
    return environment(lang).get_template(template).render(**context).encode("utf-8")
