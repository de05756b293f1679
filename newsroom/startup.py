"""How the program loads its code (kept apart so that the first thing it imports is this small module)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def imports() -> Iterator[None]:
    """No garbage collection while modules load: the command line and a command's imports (SQLAlchemy's
    ORM, Jinja2) make a few hundred thousand objects that live as long as the process, and the collector
    would walk them again and again meanwhile (a tenth of the start-up)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
