"""A page of the site model: `PagePlan` before it is planned (where it goes, with which template),
`PageSpec` once it is (its context, its language twins, what planning it read)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from newsroom.build import urls


@dataclass(frozen=True)
class PageSpec:
    """One output page: where it goes, how it is rendered, and its twin in each language."""

    url: str
    lang: str
    template: str
    context: Mapping[str, Any]
    twins: Mapping[str, str] = field(default_factory=dict)  # lang → url of the same page
    lastmod: dt.date | None = None
    #: Dependency keys read while planning this page (see build/tracking.py); empty when untracked.
    reads: frozenset[str] = frozenset()


@dataclass(frozen=True)
class PagePlan:
    """A page before it is planned: where it goes and with which template; `make()` plans it."""

    url: str
    lang: str
    template: str
    make: Callable[[], PageSpec] = field(compare=False)
    in_sitemap: bool = True  # a page of the site (the 404 pages and the root page are not)
    path: str = ""  # the output file, when it is not the URL's own (see `output`)

    @property
    def output(self) -> str:
        return self.path or urls.file_path(self.url)
