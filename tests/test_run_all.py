"""The build's works over forked workers (newsroom.build.rendering.run_all): every work once, results in
order, and with slots each worker taking its own slot's works before any other's."""

from __future__ import annotations

import multiprocessing
import os
import time
from functools import partial
from typing import Any

import pytest

from newsroom.build import rendering

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="works run in forked workers only where processes fork")


def _work(index: int, pause: float = 0.0) -> tuple[int, int, int]:
    time.sleep(pause)
    return index, os.getpid(), time.monotonic_ns()


@pytest.fixture(autouse=True)
def two_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rendering, "workers", lambda: 2)


@pytest.mark.parametrize("slots", [None, [0] * 700, [index % 3 for index in range(700)],
                                   [5 if index % 7 else 2 for index in range(700)]])
def test_each_work_runs_once_and_its_result_comes_back_in_its_place(slots: list[int] | None) -> None:
    arrived: list[int] = []

    def each(index: int, result: tuple[int, int, int]) -> int:
        arrived.append(index)
        return result[0]

    works = [partial(_work, index) for index in range(700)]
    assert rendering.run_all(works, each=each, slots=slots) == list(range(700))
    assert sorted(arrived) == list(range(700))


def test_finish_runs_where_each_run_of_works_ran() -> None:
    def finish(results: list[Any]) -> list[Any]:
        return [(index, pid, os.getpid()) for index, pid, _ in results]

    results = rendering.run_all([partial(_work, index) for index in range(50)], finish)
    assert [index for index, _, _ in results] == list(range(50))
    assert all(made == finished != os.getpid() for _, made, finished in results)


def test_a_worker_takes_every_work_of_its_own_slot_before_another_slots() -> None:
    # Two languages' pages, listed in turn as a build lists them: each worker makes one language's
    # works (what its planner keeps serves them all) and only then helps with the other's.
    slots = [index % 2 for index in range(80)]
    results = rendering.run_all([partial(_work, index, 0.002) for index in range(80)], slots=slots)
    by_process: dict[int, list[tuple[int, int]]] = {}
    for index, pid, at in results:
        by_process.setdefault(pid, []).append((at, slots[index]))
    assert os.getpid() not in by_process
    for ran in by_process.values():
        order = [slot for _, slot in sorted(ran)]
        # Its own slot's works, then (once its own were all taken) some of the other's: one change at most.
        assert sum(1 for before, after in zip(order, order[1:]) if before != after) <= 1, order
    if len(by_process) == 2:  # both workers took part: each began with a slot of its own
        assert {min(ran)[1] for ran in by_process.values()} == {0, 1}


def _failing(index: int) -> int:
    if index == 30:
        raise ValueError(f"work {index} failed")
    return index


def test_a_work_that_fails_in_a_worker_stops_the_run_with_its_error() -> None:
    with pytest.raises(ValueError, match="work 30 failed"):
        rendering.run_all([partial(_failing, index) for index in range(2000)])
    assert not multiprocessing.active_children()  # the other worker stopped, and both were waited for
    assert rendering.run_all([partial(_failing, index) for index in range(10)]) == list(range(10))


def _dying(index: int) -> int:
    if index == 7:
        os._exit(3)  # as a worker the system kills (out of memory) ends: no word back
    return index


class _Unpicklable(Exception):
    def __init__(self) -> None:
        super().__init__("holds what cannot travel")

    def __reduce__(self) -> Any:
        raise TypeError("cannot pickle")


def _raising_unpicklable(index: int) -> int:
    if index == 3:
        raise _Unpicklable()
    return index


def test_a_worker_that_dies_stops_the_run_with_a_message_saying_so() -> None:
    with pytest.raises(RuntimeError, match="render worker ended before its works did"):
        rendering.run_all([partial(_dying, index) for index in range(40)])
    assert not multiprocessing.active_children()


def test_a_failure_that_cannot_travel_comes_back_as_its_traceback() -> None:
    with pytest.raises(RuntimeError, match="(?s)a render worker failed:.*_Unpicklable: holds what cannot travel"):
        rendering.run_all([partial(_raising_unpicklable, index) for index in range(40)])
