"""jaxlint.base.dispatch: large files are not linted at the same moment; a dead worker is named."""

from __future__ import annotations

from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool

import pytest

from jaxlint.base.dispatch import LARGE, LARGE_BUDGET, WorkerDied, dispatched


def run(sizes: list[int], workers: int = 2, fail: int | None = None):
    """Every item finishes as soon as it is handed out (``fail``: its worker dies)."""
    started: list[int] = []

    def submit(i: int) -> Future:
        f: Future = Future()
        started.append(i)
        if i == fail:
            f.set_exception(BrokenProcessPool("killed"))
        else:
            f.set_result(i * 10)
        return f

    return list(dispatched(submit, list(range(len(sizes))), sizes, workers)), started


def test_every_item_gives_its_own_result_once():
    sizes = [10, LARGE * 2, 5, LARGE, 7]
    out, _ = run(sizes)
    assert sorted(out) == [(i, i * 10) for i in range(5)]


def test_large_items_go_out_first_largest_first_and_small_ones_in_their_order():
    sizes = [10, LARGE, 20, LARGE * 3, 30, LARGE * 2]
    _, started = run(sizes, workers=1)
    assert started == [3, 5, 1, 0, 2, 4]


def test_large_items_in_flight_stay_under_the_budget():
    # three large files whose sizes sum over the budget: never all in flight together
    sizes = [LARGE_BUDGET - LARGE, LARGE, LARGE, 1, 2, 3, 4, 5]
    in_flight: set[int] = set()
    together: list[set[int]] = []

    def submit(i: int) -> Future:
        in_flight.add(i)
        together.append({j for j in in_flight if sizes[j] >= LARGE})
        f: Future = Future()
        f.set_result(i)
        return f

    for i, _ in dispatched(submit, list(range(len(sizes))), sizes, 2):
        in_flight.discard(i)  # the dispatcher has seen it finish
    assert max(sum(sizes[i] for i in s) for s in together) <= LARGE_BUDGET
    assert {0, 1} in together  # two that fit go out together, the third waits
    assert not in_flight


def test_one_large_item_alone_over_the_budget_still_goes_out():
    out, _ = run([LARGE_BUDGET * 4, 1], workers=2)
    assert sorted(out) == [(0, 0), (1, 10)]


def test_a_broken_pool_names_the_items_in_flight():
    with pytest.raises(WorkerDied) as died:
        run([1, 2, 3, 4, 5], workers=1, fail=2)
    assert died.value.in_flight == [2]  # one worker, one item in flight: the culprit
