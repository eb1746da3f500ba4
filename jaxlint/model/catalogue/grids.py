"""Index grids: ``jnp.mgrid[a:b:s, ...]`` and ``jnp.ogrid[...]`` (and NumPy's), indexed, not
called, so the evaluator asks ``grid(q, index)`` for ``base[index]`` of these objects.

Each slice gives one axis: ``start:stop:step`` with a real step has
``ceil((stop - start) / step)`` points (start 0 and step 1 by default); a complex step
``a:b:5j`` has ``5`` points, ``b`` included. ``mgrid`` of one slice is that 1-D array; of ``k``
slices, one array ``(k, n1, ..., nk)``. ``ogrid`` of ``k`` slices is a list of ``k`` arrays, the
``i``-th of size ``ni`` along axis ``i`` and 1 elsewhere. Ints everywhere give int arrays,
else float ones (jax 0.10.2; ``tests/model/test_grids.py`` checks against ``jnp.mgrid``).
"""

from __future__ import annotations

import math
from typing import Any

from jaxlint.base.literals import UNKNOWN

from ..abstract import FLOAT, INT, Array, Const, List, Scalar, Shape, Tuple
from ..dims import Dim
from .indexing import is_slice

GRIDS = {
    "jax.numpy.mgrid": ("mgrid", False),
    "jax.numpy.ogrid": ("ogrid", False),
    "numpy.mgrid": ("mgrid", True),
    "numpy.ogrid": ("ogrid", True),
}


def grid(q: str, index: Any) -> Any:
    """``q[index]`` for an index grid ``q`` of ``GRIDS``; UNKNOWN when a slice is not read."""
    kind, host = GRIDS[q]
    parts = list(index.items) if type(index) is Tuple else [index]
    if not parts or not all(is_slice(p) for p in parts):
        return UNKNOWN
    axes = [_axis(p) for p in parts]
    whole = all(a is not None for a in axes)
    integral = all(a[1] for a in axes if a is not None) and whole
    dtype = INT if integral else FLOAT
    sizes: list[Dim] = [a[0] if a is not None else None for a in axes]
    if type(index) is not Tuple:
        return Array(Shape((sizes[0],)), dtype, host)
    if kind == "mgrid":
        return Array(Shape((len(sizes), *sizes)), dtype, host)
    k = len(sizes)
    return List(
        tuple(Array(Shape(tuple(s if j == i else 1 for j in range(k))), dtype, host) for i, s in enumerate(sizes))
    )


def _axis(s: Any) -> tuple[Dim, bool] | None:
    """One slice's number of points, and whether its values are ints; None when unknown."""
    start, stop, step = (s.get(n) for n in ("start", "stop", "step"))
    values = [_number(v, default) for v, default in ((start, 0), (stop, None), (step, 1))]
    a, b, c = values
    if type(c) is complex:
        n = int(abs(c))
        return (n, False) if n == abs(c) else None
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and isinstance(c, (int, float)) and c != 0:
        n = max(0, math.ceil((b - a) / c))
        return n, all(isinstance(x, int) for x in (a, b, c))
    if a == 0 and c == 1 and type(stop) is Scalar and stop.kind == "int" and stop.dim is not None:
        return stop.dim, True  # ``mgrid[:n]``: n points
    return None


def _number(v: Any, default: Any) -> Any:
    if type(v) is Const and v.value is None:
        return default
    if type(v) is Const and isinstance(v.value, (int, float, complex)) and not isinstance(v.value, bool):
        return v.value
    return None
