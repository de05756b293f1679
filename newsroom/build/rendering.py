"""Planning and rendering pages (and making the other outputs) over the available cores.

Templates compile once per language, before any fork. The work is CPU-bound
Python, so on a machine with several cores a large batch is split over
forked worker processes: the listed pages and the content are inherited by
the fork (shipped once, never pickled), each task is a chunk of work
indices, and each answer is what the works made with the dependency keys they
read. Small batches stay in-process, where a fork would cost more than it
saves.
"""

from __future__ import annotations

import gc
import hashlib
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from tqdm import tqdm

from newsroom.build.memos import Memo
from newsroom.build.page_specs import PagePlan, PageSpec
from newsroom.build.stopped import StoppedAtOnce, Stopping, WorkerLost
from newsroom.i18n import catalog_digest
from newsroom.render.html import environment, render, template_fingerprint, used_templates

try:
    import fcntl
except ImportError:  # Windows: no pipe sizes to set
    fcntl = None  # type: ignore[assignment]

#: Below this many works (a page, a feed, a search index) they run in this process. Forking takes tens
#: of milliseconds, one archive page or search index a hundred or more: two such works already gain
#: (an English body edit at scale 1.0, a search index and two issue pages: 417-452 -> 300-332 ms).
PARALLEL_MIN = 2
#: The most works sent to a worker at once.
CHUNK = 64
#: The capacity asked for the pipe each worker sends its results through (see _roomy).
PIPE_BYTES = 1 << 20
#: The signals a command may handle in Python to stop (`serve`: Ctrl-C, `kill`, the terminal closed); a
#: worker sets its own (see _work_through).
STOPPING = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
#: The stop (Ctrl-C, `kill`) that ends the wait for the workers to end at once, as a command's third stop does
#: (see _end_workers): the first asks the build to stop, the second waits on.
STOPS_AT_ONCE = 3
#: How long workers told to end at once (SIGTERM) have to do so before they are killed (SIGKILL).
END_GRACE_SECONDS = 2.0
#: How often the wait for the workers to end looks whether it was stopped meanwhile.
STOP_LOOK_SECONDS = 0.1
#: How long a stop waits for the workers to end before it says so (see Stopping.waiting), as `serve`'s does.
STOP_SAID_SECONDS = 1.0


class PageRenderer:
    """Compiled environments per language and the fingerprint of each (template, language).

    `shared` is what every page's context gets besides its own (the hashed asset
    names, whether this is a preview); it is part of every page's fingerprint.
    """

    def __init__(self, templates: Path, languages: Iterable[str], shared: Mapping[str, Any] | None = None,
                 memo: Memo | None = None) -> None:
        self.templates = templates
        self.memo = memo  # remembers which templates each one uses, across builds
        self.envs = {lang: environment(lang, templates) for lang in languages}
        self.languages = list(self.envs)
        self.shared: Mapping[str, Any] = dict(shared or {})
        self._shared_repr = repr(sorted(self.shared.items()))
        self._fingerprints: dict[tuple[str, str], str] = {}

    def render(self, template: str, lang: str, context: Mapping[str, Any]) -> bytes:
        return render(template, lang, {**context, **self.shared} if self.shared else context, env=self.envs[lang])

    def fingerprint(self, template: str, lang: str) -> str:
        """What a page's bytes depend on besides its content: its template sources, catalog and shared values."""
        key = (template, lang)
        if key not in self._fingerprints:
            sources = template_fingerprint(self.envs[lang], template, self.templates, self.memo)
            self._fingerprints[key] = hashlib.sha256(
                f"{sources}:{catalog_digest(lang)}:{self._shared_repr}".encode()).hexdigest()
        return self._fingerprints[key]

    def compile(self, pages: Iterable[PageSpec | PagePlan]) -> None:
        """Compile every template the pages (planned or only listed) use, and what they include, before any fork."""
        for template, lang in sorted({(page.template, page.lang) for page in pages}):
            for name in used_templates(self.envs[lang], template, self.memo) or [template]:
                self.envs[lang].get_template(name)


@dataclass(frozen=True)
class _Job:
    works: Sequence[Callable[[], Any]]
    finish: Callable[[list[Any]], list[Any]]
    #: The works' chunks (lists of work indices), a queue per worker slot, and how far each queue is taken.
    queues: list[list[list[int]]]
    taken: Any  # multiprocessing Array of int, one per queue, with its lock


def _next_chunk(job: _Job, slot: int) -> list[int] | None:
    """The next chunk of the queue of `slot`, else of the next queue with one left; None when all are taken."""
    count = len(job.queues)
    with job.taken.get_lock():
        for queue in ((slot + step) % count for step in range(count)):
            if job.taken[queue] < len(job.queues[queue]):
                job.taken[queue] += 1
                return job.queues[queue][job.taken[queue] - 1]
    return None


def _work_through(job: _Job, slot: int, results: Connection, inherited: Sequence[Connection]) -> None:
    """A forked worker's life: chunk after chunk (see _next_chunk), each sent back with its work indices
    as `finish` made it, then None; a failure is sent back as its exception instead. Ctrl-C and the terminal
    closed (SIGHUP, which reaches every process of the command) are the build's to handle (it stops the workers
    with SIGTERM, which ends one at once), not each worker's: one ended by SIGHUP failed a build that ignored it
    (`nohup`), "a render worker ended before its works did".

    A worker keeps none of the build's folder locks (closed as it is forked: see locks) nor the read ends
    of the results' pipes it inherited (`inherited`: its own, and the workers' started before it): once
    the build is gone (killed), no process holds a read end, so the worker's next send fails and it stops.
    Holding one, it would wait for ever on a full pipe, or work through every chunk left."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the build's terminate() ends it, whatever the command set
    for stop in STOPPING:
        if stop != signal.SIGTERM:
            signal.signal(stop, signal.SIG_IGN)
    for reader in inherited:
        reader.close()
    try:
        while (chunk := _next_chunk(job, slot)) is not None:
            results.send((chunk, job.finish([job.works[index]() for index in chunk])))
        results.send(None)
    except BrokenPipeError:
        return  # the build is gone: nothing reads what is left
    except Exception as error:  # noqa: BLE001 (every failure goes back to the build, which raises it)
        _send_failure(results, error)


@contextmanager
def signals_held() -> Iterator[list[int]]:
    """Hold back the stopping signals this thread would handle while it forks the workers (or waits for them to
    end, see run_all), then handle them. What it gives is the list of those held so far: the caller may handle
    them itself, and clear it.

    A handler that raises (Ctrl-C's KeyboardInterrupt, `serve`'s at `kill`) could raise inside a step of the
    fork itself (logging's: it takes its lock before and gives it back after), where the exception is
    printed and lost: the command went on, or hung on logging's lock, until killed. Python runs handlers
    in the main thread only, whichever thread the signal reaches, so only there are they held; the
    workers set their own (see _work_through)."""
    arrived: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield arrived
        return
    handlers = {number: signal.getsignal(number) for number in STOPPING}
    held = [number for number, handler in handlers.items() if callable(handler)]
    for number in held:
        signal.signal(number, lambda number, frame: arrived.append(number))
    try:
        yield arrived
    finally:
        for number in held:
            signal.signal(number, handlers[number])
        for number in arrived:  # handled as they would have been: KeyboardInterrupt raised here, say
            signal.raise_signal(number)


def _send_failure(results: Connection, error: Exception) -> None:
    try:
        results.send(error)
    except BrokenPipeError:
        return
    except Exception:  # noqa: BLE001 (one that does not pickle: its traceback, as text)
        results.send(RuntimeError(f"a render worker failed:\n{traceback.format_exc()}"))


def _roomy(connection: Connection) -> None:
    """A pipe that holds a whole chunk's results where the system allows (Linux: up to 1 MiB unprivileged),
    so a worker goes on with its next chunk without waiting for this process to read the last one."""
    size = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if size is not None:
        try:
            fcntl.fcntl(connection.fileno(), size, PIPE_BYTES)
        except OSError:  # above the system's limit: the default
            pass


def workers() -> int:
    """Cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def progress_bar(total: int, shown: bool, unit: str = "page", desc: str | None = None) -> tqdm:
    """A progress bar of the build (the pages and files made, or the texts read ahead), on stderr;
    hidden unless `shown`. A terminal that reports no size (a container's, a serial console) is taken
    as 80 × 24: tqdm would draw nothing at all in 0 columns or 0 lines."""
    size = None
    if shown:
        try:
            size = os.get_terminal_size(sys.stderr.fileno())
        except (OSError, ValueError, AttributeError):  # not a terminal, or no file behind stderr
            pass
    return tqdm(total=total, unit=unit, desc=desc, disable=not shown, file=sys.stderr, leave=False,
                ncols=80 if size is not None and size.columns == 0 else None,
                nrows=24 if size is not None and size.lines == 0 else None)


def run_all(works: Sequence[Callable[[], Any]], finish: Callable[[list[Any]], list[Any]] = list,
            bar: tqdm | None = None, each: Callable[[int, Any], Any] | None = None,
            started: Callable[[], Any] | None = None, slots: Sequence[int] | None = None,
            stopping: Stopping | None = None, jobs: int | None = None) -> list[Any]:
    """Each work's result, in order; in forked workers when there are enough of them: `jobs` of them (one per
    core this process may use, unless given; with 1, every work runs here).

    `finish` turns a run of results into what is sent back (it runs in the process that made
    them, after the run: results must pickle once finished). `bar` counts the works done.
    `each(index, result)`, if given, runs here on each finished result as it arrives (in any
    order), and what it returns is kept instead (the build writes a page's file meanwhile, and lets
    its bytes go). `started()`, if given, runs here once forked workers have started (never when the
    works run here): this process may then start a thread of its own without forking it.

    `slots`, if given, names for each work the slot it is best run in: works of one slot share what
    a process computes and keeps for them (one language's planner and its rows, see Planner.kept),
    so each worker takes its own slot's chunks first and helps with the others' once its own are
    done (taking every chunk in turn, each of two workers made most rows of both languages).

    `stopping`, if given, says what the stops do and say as the workers' end is waited for (see _end_workers).
    """
    bar = bar if bar is not None else progress_bar(len(works), False)
    count = jobs if jobs is not None else workers()
    if count < 2 or len(works) < PARALLEL_MIN or "fork" not in multiprocessing.get_all_start_methods():
        results = []
        for work in works:
            results.append(work())
            bar.update()
        results = finish(results)
        return [each(index, result) for index, result in enumerate(results)] if each else results
    # A few chunks per worker, so none idles long; one work at a time when there are few, since a
    # few of them (a search index, an archive page) may take most of the time.
    size = 1 if len(works) < 16 * CHUNK else max(1, min(CHUNK, len(works) // (count * 4)))
    # A queue per slot (slots share queues when there are more of them than workers), chunked.
    ranks = {slot: rank for rank, slot in enumerate(sorted(set(slots)))} if slots is not None else {}
    queued: list[list[int]] = [[] for _ in range(max(1, min(count, len(ranks))))]
    for index in range(len(works)):
        queued[ranks[slots[index]] % len(queued) if slots is not None else 0].append(index)
    queues = [[indices[start:start + size] for start in range(0, len(indices), size)] for indices in queued]
    context = multiprocessing.get_context("fork")
    job = _Job(works, finish, queues, context.Array("i", len(queues)))
    results: list[Any] = [None] * len(works)
    # Workers of their own, not a pool of the standard library's: those hand out each task from a thread
    # of this process, and read each result in another. multiprocessing's Pool's thread that minds the
    # workers also wakes while a result is on its way, and spins until it has been read (0.35 CPU-s of a
    # full build's parse ahead at scale 1.0, taken from the workers); concurrent.futures' workers wait
    # for this process to read each result (a parse-ahead chunk's 330 KB) through a 64 KiB pipe, idle a
    # sixth of the parse ahead. These take their chunks themselves, and send each through a pipe of its
    # own that holds it.
    processes: list[Any] = []
    waiting: list[Connection] = []
    stopped = 0  # stops had before the workers' end is waited for (see _end_workers)
    killed: int | None = None  # the signal that ended it at once (see Stopping.at_once)
    # Objects the workers inherit are left out of their collections: a collection would touch each
    # one and so copy every memory page of the build into each worker.
    gc.freeze()
    try:
        with signals_held():
            for slot in range(min(count, sum(map(len, queues)))):
                reader, writer = context.Pipe(duplex=False)
                _roomy(writer)
                process = context.Process(target=_work_through, args=(job, slot % len(queues), writer,
                                                                      (*waiting, reader)), daemon=True)
                process.start()
                writer.close()
                processes.append(process)
                waiting.append(reader)
        if started is not None:
            started()
        while waiting:
            for reader in wait(waiting):
                try:
                    message = reader.recv()
                except EOFError:
                    raise WorkerLost("a render worker ended before its works did (killed, or out of memory?)"
                                     ) from None
                if message is None:  # no chunk left for it
                    waiting.remove(reader)
                    reader.close()
                    continue
                if isinstance(message, BaseException):
                    raise message
                chunk, part = message
                for index, result in zip(chunk, part):
                    results[index] = each(index, result) if each else result
                bar.update(len(part))
    except KeyboardInterrupt:
        stopped = 1
        raise
    except StoppedAtOnce as stop:  # a stop that ends the build at the first (see Stopping.at_once): no wait for them
        stopped, killed = STOPS_AT_ONCE, stop.by_signal
        raise
    finally:
        # A stop (Ctrl-C, `kill`) as the workers end is handled once they all have: handled at once, it broke off
        # the wait for them, and `serve` removed its folder while they could still write into it (write_here).
        # The third ends them by force (see _end_workers).
        with signals_held() as stops:
            _end_workers(processes, waiting, stops, stopped, stopping, killed)
            gc.unfreeze()
    return results


def _end_workers(processes: Sequence[Any], waiting: Sequence[Connection], stops: list[int], stopped: int,
                 stopping: Stopping | None = None, killed: int | None = None) -> None:
    """Wait for every worker to end: those still at work (`waiting`: a failure, or a stop) are stopped first.

    `stops` are those held as it waits (see signals_held), `stopped` how many came before: once they come to
    STOPS_AT_ONCE, or one of them ends the build at once (Stopping.at_once), the workers still alive are ended
    by force and StoppedAtOnce raised, the stops taken as handled. A worker that goes on (one that held SIGTERM
    back, or one still at its chunk, see below) could otherwise be ended by `kill -9` alone. Each stop is
    answered (`stopping`): a wait of a moment after one says what it waits for, and the stop before the last
    says that one more ends the build at once, and what that leaves (they said nothing, as if not heard).
    `killed`: the signal that ended the build at once already, which the StoppedAtOnce raised names."""
    for process in processes:
        if process.is_alive() and waiting:  # a failure: the others stop now
            process.terminate()
    # Before waiting for them: a worker whose SIGTERM came before it set its own handlers (it forked with this
    # thread's, held by signals_held) goes on working; with no read end left its next send fails, and it
    # stops (see _work_through). Read ends held here, it would wait for ever on a full pipe.
    for reader in waiting:
        reader.close()
    said = _Said(stopping)
    for process in processes:
        while not _ended(process, STOP_LOOK_SECONDS):
            at_once = next((stop for stop in stops if stopping is not None and stop in stopping.at_once), None)
            if stopped + len(stops) >= STOPS_AT_ONCE or at_once is not None:
                alive = [worker for worker in processes if worker.is_alive()]
                _end_by_force(alive)
                stops.clear()  # handled here, and so are those that came as the workers were ended
                raise StoppedAtOnce(f"stopped as the build waited for its workers to end: {len(alive)} ended by "
                                    "force", by_signal=killed if killed is not None else at_once)
            said.answer(stopped + len(stops))


class _Said:
    """What the wait for the workers to end has said of the stops (see _end_workers): each said once."""

    def __init__(self, stopping: Stopping | None) -> None:
        self.stopping, self.begun = stopping, time.monotonic()
        self.waiting = self.again = False

    def answer(self, stops: int) -> None:
        """Say what the `stops` had so far lead to: after a moment's wait, that it waits; at the stop before the
        last, what one more does."""
        if self.stopping is None or stops == 0:
            return
        if stops >= STOPS_AT_ONCE - 1 and not self.again:
            self.again = self.waiting = True
            self.stopping.say(self.stopping.still_waiting())
        elif not self.waiting and time.monotonic() - self.begun >= STOP_SAID_SECONDS:
            self.waiting = True
            self.stopping.say(self.stopping.waiting())


def _ended(process: Any, seconds: float) -> bool:
    """Whether `process` has ended, waited for up to `seconds` (then it is reaped)."""
    process.join(seconds)
    return process.exitcode is not None


def _still_alive(processes: Sequence[Any], seconds: float) -> list[Any]:
    """The processes still alive after waiting up to `seconds` for all of them to end (those ended are reaped)."""
    deadline = time.monotonic() + seconds
    while (alive := [process for process in processes if process.is_alive()]) and time.monotonic() < deadline:
        wait([process.sentinel for process in alive], timeout=max(0.0, deadline - time.monotonic()))
    return alive


def end_workers_at_once() -> None:
    """End at once the render workers of this process still alive (see _end_by_force): for a command that ends
    without waiting for the build under way in another thread (`serve` stopped a third time), whose workers
    multiprocessing would wait for as the process exits (for ever for one that holds SIGTERM back). A stop that
    comes meanwhile changes nothing: the command ends at once already."""
    with signals_held() as stops:
        _end_by_force(multiprocessing.active_children())
        stops.clear()


def _end_by_force(processes: Sequence[Any]) -> None:
    """End the workers at once: SIGTERM, then SIGKILL to those still alive after END_GRACE_SECONDS. They are
    waited for (as long again at most): the command's exit would wait for ever for one still alive
    (multiprocessing terminates and joins its children at exit)."""
    for process in processes:
        process.terminate()
    for process in _still_alive(processes, END_GRACE_SECONDS):
        process.kill()
    _still_alive(processes, END_GRACE_SECONDS)
