"""How the work of a step grows with its input, counted, not timed.

``growth(run, make, n)`` runs ``run(make(n))`` and ``run(make(4 * n))`` under ``sys.settrace``
and returns the ratio of the Python lines each executed. The count does not depend on
the machine or its load: a linear step gives about 4, a quadratic one about 16. Tests
assert ``growth(...) < LINEAR``; the wall-clock figures live in tests/bench/pathological.py.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

LINEAR = 6.0  # 4 for a linear step; n log n gives a little more, a quadratic one 16


def lines_executed(fn: Callable[[], Any]) -> int:
    """Python lines executed by ``fn()`` (in this thread)."""
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return local

    def call(frame, event, arg):
        return local

    old = sys.gettrace()
    sys.settrace(call)
    try:
        fn()
    finally:
        sys.settrace(old)
    return count


def growth(run: Callable[[Any], Any], make: Callable[[int], Any], n: int) -> float:
    """Lines executed by ``run(make(4 * n))`` over those of ``run(make(n))``."""
    small, large = make(n), make(4 * n)
    run(small)  # imports and first-use caches are not the step's work
    return lines_executed(lambda: run(large)) / max(1, lines_executed(lambda: run(small)))
