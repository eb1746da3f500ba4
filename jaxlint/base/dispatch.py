"""Hand items to worker processes so that two large files are not held at the same moment.

A worker's memory grows with the file it lints (LibCST's tree and the model's values: about
a quarter of a MiB per KiB of source) and, after a large file, stays part-grown: the few
objects that outlive the file pin the memory arenas they were allocated in. When both
workers hold a large file at once, their peaks add up (the jax repository: 409 MiB summed,
with the two workers at 146 and 163 MiB). So the large items go out largest first, while
the large items in flight stay under a byte budget (one at a time is always allowed), and
the small ones fill the other workers in their given order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

LARGE = 128 * 1024  # bytes of source: a file this large costs a worker tens of MiB
LARGE_BUDGET = 512 * 1024  # bytes of large sources that may be in flight together


class WorkerDied(Exception):
    """The pool broke. ``in_flight``: the items handed out and not finished, one of which
    killed its worker (with one worker and one item in flight: that item)."""

    def __init__(self, in_flight: list[int]) -> None:
        super().__init__(in_flight)
        self.in_flight = in_flight


def dispatched(
    submit: Callable[[int], Future[Any]], order: Sequence[int], sizes: Sequence[int], workers: int
) -> Iterator[tuple[int, Any]]:
    """``(item, result)`` for each item of ``order`` as it finishes; ``submit(item)`` starts
    one. At most two items per worker are in flight (one when there is one worker, so that
    the item that kills it is known); raises WorkerDied when the pool breaks."""
    large = deque(sorted((i for i in order if sizes[i] >= LARGE), key=lambda i: -sizes[i]))
    small = deque(i for i in order if sizes[i] < LARGE)
    running: dict[Future[Any], int] = {}
    window = 1 if workers == 1 else 2 * workers
    large_bytes = 0

    def pick() -> int | None:
        nonlocal large_bytes
        for i in large:
            if not large_bytes or large_bytes + sizes[i] <= LARGE_BUDGET:
                large.remove(i)
                large_bytes += sizes[i]
                return i
        return small.popleft() if small else None

    while large or small or running:
        while len(running) < window:
            i = pick()
            if i is None:
                break
            running[submit(i)] = i
        done, _ = wait(running, return_when=FIRST_COMPLETED)
        for future in done:
            i = running.pop(future)
            if sizes[i] >= LARGE:
                large_bytes -= sizes[i]
            try:
                result = future.result()
            except BrokenProcessPool:
                raise WorkerDied([i, *running.values()]) from None
            yield i, result
