"""Static assets (the stylesheet, the search script) written under names that carry their content hash.

A hashed name lets a server cache the file forever: a changed stylesheet gets
a new name, and every page that links it is rebuilt with that name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from newsroom.diagnostics import ContentError, Diagnostic
from newsroom.render.folder import TEMPLATES

#: Source files under templates/assets/, written as assets/<stem>.<hash><suffix>.
ASSET_FILES = ("site.css", "search.js")


@dataclass(frozen=True)
class Asset:
    """One static file: its source name, the path it is written to and its bytes."""

    name: str
    path: str
    data: bytes


def load_assets(folder: Path = TEMPLATES / "assets", names: tuple[str, ...] = ASSET_FILES) -> list[Asset]:
    """Read each asset and name it after the first 10 hex digits of its SHA-256."""
    assets = []
    for name in names:
        try:
            data = (folder / name).read_bytes()
        except FileNotFoundError:  # a template folder of one's own, edited by hand
            raise ContentError([Diagnostic(str(folder), None, "", f"the asset {name!r} is missing: copy it from "
                                                                  f"the bundled templates ({TEMPLATES / 'assets'})")]
                               ) from None
        stem, _, suffix = name.rpartition(".")
        digest = hashlib.sha256(data).hexdigest()[:10]
        assets.append(Asset(name, f"assets/{stem}.{digest}.{suffix}", data))
    return assets


def asset_urls(assets: list[Asset]) -> Mapping[str, str]:
    """{source name: site path} for templates, e.g. {"site.css": "assets/site.1a2b3c4d5e.css"}."""
    return {asset.name: asset.path for asset in assets}
