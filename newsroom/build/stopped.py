"""A build stopped (see rendering.run_all), apart from the rendering: the commands that name it load it without
the templates' machinery (a build with nothing to do loads none of it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


class WorkerLost(RuntimeError):
    """A render worker ended before its works did, killed from outside (the kernel's out-of-memory killer,
    `kill -9`): the build ends without its pages, its folder left as it was (nothing goes in before every
    page is made)."""


class StoppedAtOnce(BaseException):
    """The build was stopped a third time (Ctrl-C, `kill`) as it waited for its render workers to end, or by a
    signal that ends it at once (`build` at `kill` or its terminal closed, see Stopping.at_once): the workers
    still alive were ended by force (SIGTERM, then SIGKILL), and the build ends without its pages. A stop as
    KeyboardInterrupt is, not an error; the command names what is left (its folder) and what to do.

    `by_signal`: the signal of Stopping.at_once that ended it (SIGTERM, SIGHUP), None when stops counted did.
    `published`: the stop came as the build wrote its folder and recorded it, which it finished first (see
    making's publish): the folder is then this build's, whole."""

    def __init__(self, message: str = "", *, by_signal: int | None = None, published: bool = False) -> None:
        super().__init__(message)
        self.by_signal, self.published = by_signal, published


class StoppedOnceWritten(KeyboardInterrupt):
    """Ctrl-C came as the build wrote its folder and recorded it, which it finished first (see making's
    publish): the folder is this build's, whole. A KeyboardInterrupt still to a command that takes the stop as
    one (`serve`, which then ends as at any Ctrl-C); `build` says what it left."""


@dataclass(frozen=True)
class Stopping:
    """What a command's stops do as its build waits for its render workers to end (see rendering.run_all), and
    what it says then: a second wait said after a moment, each stop after the first with what one more does.

    `further` ends the line said at the stop before the one that ends the build at once: how to stop it once
    more, what then ends, and what it leaves ("stopped once more (Ctrl-C), the build ends at once, …").
    `at_once`: the signals that end the build at the first (`build` at `kill`); the others are counted."""

    say: Callable[[str], None]
    further: str
    at_once: frozenset[int] = frozenset()

    def waiting(self) -> str:
        """What is said once a stop has waited a moment for the workers."""
        return "stopping: waiting for the build's render workers to end"

    def still_waiting(self) -> str:
        """What is said at the stop before the last, which ends the build at once."""
        return f"stopping: still waiting for the build's render workers to end; {self.further}"


@contextmanager
def answered_once_written(written: list[Any]) -> Iterator[None]:
    """A stop that comes once the build has written its folder and recorded it (`written` is then no longer
    empty), as the rest of the build ends (the old tree's removal, the locks let go), is the stop of a build
    that wrote its folder, whole: StoppedOnceWritten for Ctrl-C, StoppedAtOnce `published` for a signal that
    ends it at once. One that comes before is raised as it came: the folder is as it was."""
    try:
        yield
    except StoppedOnceWritten:
        raise
    except KeyboardInterrupt:
        if not written:
            raise
        raise StoppedOnceWritten("stopped by Ctrl-C once the build wrote its folder") from None
    except StoppedAtOnce as stop:
        if not written or stop.published:
            raise
        raise StoppedAtOnce(str(stop), by_signal=stop.by_signal, published=True) from None
