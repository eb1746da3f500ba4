"""Rules that join arrays or split one: ``concatenate``, ``stack``, ``vstack``/``hstack``/
``dstack``/``column_stack``, ``split``/``array_split`` (a List of arrays), ``unstack``,
``meshgrid``, ``broadcast_arrays``."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from jaxlint.base.literals import UNKNOWN

from .. import dims
from ..abstract import Array, List, Shape, Tuple, as_array, constant
from ..dims import Dim
from . import Call
from .rules import (
    Fails,
    array_of,
    broadcast,
    full_dims,
    int_const,
    is_none,
    normalize,
    promote,
    rule,
    shape_of,
    shape_tuple,
)


def sequence(v: Any) -> list[Array] | None:
    """The arrays of a list/tuple display (``concatenate([a, b])``)."""
    if type(v) is tuple:  # *args
        items = v
    elif type(v) in (Tuple, List):
        items = v.items
    else:
        return None
    out = []
    for x in items:
        a = as_array(x)
        if a is None:
            return None
        out.append(a)
    return out


def _shapes_text(values: Sequence[Array]) -> str:
    return ", ".join(str(a.shape) for a in values)


def joined(call: Call, values: list[Array], axis: int) -> Any:
    """Arrays joined along an existing ``axis``: the other sizes must agree."""
    dt = promote([a.dtype for a in values])
    all_dims = [full_dims(a) for a in values]
    if not values:
        return UNKNOWN
    if any(d is None for d in all_dims):
        return array_of(call, None, dt)
    ranks = {len(d) for d in all_dims if d is not None}
    if len(ranks) > 1:
        raise Fails(
            "rank", f"Cannot concatenate arrays with different numbers of dimensions: got {_shapes_text(values)}."
        )
    rank = ranks.pop()
    if rank == 0:
        raise Fails("rank", "Zero-dimensional arrays cannot be concatenated.")
    k = normalize(axis, rank)
    out: list[Dim] = []
    for i in range(rank):
        sizes = [d[i] for d in all_dims if d is not None]
        if i == k:
            total: Dim = 0
            for s in sizes:
                total = dims.add(total, s)
            out.append(total)
            continue
        first = sizes[0]
        for s in sizes[1:]:
            if dims.different(first, s):
                raise Fails(
                    "shape",
                    "Cannot concatenate arrays with shapes that differ in dimensions other than the one being "
                    f"concatenated: concatenating along dimension {k} for shapes {_shapes_text(values)}.",
                )
        out.append(
            first
            if all(dims.equal(first, s) for s in sizes)
            else next((s for s in sizes if dims.as_int(s) is not None), None)
        )
    return array_of(call, Shape(tuple(out)), dt)


@rule
def concatenate(call: Call, param: str = "arrays", axis: str = "axis") -> Any:
    """``concatenate(arrays, axis=0)``; ``axis=None`` joins the flattened arrays."""
    values = sequence(call.arg(param))
    if values is None:
        return UNKNOWN
    ax = call.arg(axis)
    if is_none(ax):
        sizes = [dims.product(d) if (d := full_dims(a)) is not None else None for a in values]
        total: Dim = 0
        for s in sizes:
            total = dims.add(total, s)
        return array_of(call, Shape((total,)), promote([a.dtype for a in values]))
    k = int_const(ax)
    if k is None:
        return array_of(call, None, promote([a.dtype for a in values]))
    return joined(call, values, k)


def same_shapes(values: list[Array]) -> tuple[Dim, ...] | None:
    """The common shape of arrays that ``stack`` needs equal; raises ``Fails`` if they differ."""
    all_dims = [full_dims(a) for a in values]
    if any(d is None for d in all_dims):
        return None
    known = [d for d in all_dims if d is not None]
    first = known[0]
    for d in known[1:]:
        if len(d) != len(first) or any(dims.different(x, y) for x, y in zip(d, first, strict=True)):
            raise Fails("shape", f"All input arrays must have the same shape. Got {_shapes_text(values)}.")
    return tuple(
        first[i]
        if all(dims.equal(first[i], d[i]) for d in known)
        else next((d[i] for d in known if dims.as_int(d[i]) is not None), None)
        for i in range(len(first))
    )


@rule
def stack(call: Call, param: str = "arrays", axis: str = "axis") -> Any:
    """``stack(arrays, axis=0)``: equal shapes, a new axis of their count."""
    values = sequence(call.arg(param))
    if not values:
        return UNKNOWN
    dt = promote([a.dtype for a in values])
    common = same_shapes(values)
    k = int_const(call.arg(axis))
    if common is None or k is None:
        return array_of(call, None, dt)
    where = normalize(k, len(common) + 1)
    out = list(common)
    out.insert(where, len(values))
    return array_of(call, Shape(tuple(out)), dt)


def _promoted(values: list[Array], rank: int) -> list[Array]:
    out = []
    for a in values:
        d = full_dims(a)
        if d is None or len(d) >= rank:
            out.append(a)
        elif rank == 2:
            out.append(Array(Shape((1, 1) if not d else (1, d[0])), a.dtype))
        elif rank == 1:
            out.append(Array(Shape((1,)), a.dtype))
        else:
            out.append(Array(Shape({0: (1, 1, 1), 1: (1, d[0] if d else 1, 1), 2: (*d, 1)}[len(d)]), a.dtype))
    return out


@rule
def vstack(call: Call, param: str = "tup") -> Any:
    values = sequence(call.arg(param))
    if not values:
        return UNKNOWN
    return joined(call, _promoted(values, 2), 0)


@rule
def hstack(call: Call, param: str = "tup") -> Any:
    values = sequence(call.arg(param))
    if not values:
        return UNKNOWN
    ones = _promoted(values, 1)
    d = full_dims(ones[0])
    if d is None:
        return array_of(call, None, promote([a.dtype for a in values]))
    return joined(call, ones, 0 if len(d) == 1 else 1)


@rule
def dstack(call: Call, param: str = "tup") -> Any:
    values = sequence(call.arg(param))
    if not values:
        return UNKNOWN
    return joined(call, _promoted(values, 3), 2)


@rule
def column_stack(call: Call, param: str = "tup") -> Any:
    values = sequence(call.arg(param))
    if not values:
        return UNKNOWN
    cols = []
    for a in values:
        d = full_dims(a)
        cols.append(Array(Shape((d[0], 1)), a.dtype) if d is not None and len(d) == 1 else a)
    return joined(call, cols, 1)


@rule
def split(
    call: Call, param: str = "ary", sections: str = "indices_or_sections", axis: str = "axis", equal: bool = True
) -> Any:
    """``split(ary, indices_or_sections, axis=0)``: a List of arrays; an int count must
    divide the axis (``array_split``: the first ``size % n`` get one more)."""
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d, k = full_dims(a), int_const(call.arg(axis))
    sv = call.arg(sections)
    n = int_const(sv)
    if d is None or k is None:
        return List(tuple(array_of(call, None, a.dtype) for _ in range(n))) if n is not None else UNKNOWN
    k = normalize(k, len(d))
    size = d[k]

    def piece(s: Dim) -> Array:
        out = list(d)
        out[k] = s
        return array_of(call, Shape(tuple(out)), a.dtype)

    if n is not None:
        if n <= 0:
            return UNKNOWN
        si = dims.as_int(size)
        if si is not None:
            if equal and si % n:
                raise Fails("shape", f"array split does not result in an equal division: rest is {si % n}")
            q, r = divmod(si, n)
            return List(tuple(piece(q + (1 if i < r else 0)) for i in range(n)))
        q2 = dims.exact_div(size, n)
        return List(tuple(piece(q2) for _ in range(n)))
    cut = constant(sv)
    if not isinstance(cut, (tuple, list)) or not all(type(x) is int for x in cut):
        return UNKNOWN
    si = dims.as_int(size)
    if si is None:
        if any(x < 0 for x in cut):
            return UNKNOWN
        bounds: list[Dim] = [0, *cut]
        sizes: list[Dim] = [dims.sub(b, a_) for a_, b in itertools.pairwise(bounds)]
        sizes.append(dims.sub(size, cut[-1]) if cut else size)
        return List(tuple(piece(s) for s in sizes))
    edges = [0, *(min(max(x + si if x < 0 else x, 0), si) for x in cut), si]
    return List(tuple(piece(max(0, b - e)) for e, b in itertools.pairwise(edges)))


def unstack(call: Call, param: str = "x") -> Any:
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d, k = full_dims(a), int_const(call.arg("axis"))
    if d is None or k is None:
        return UNKNOWN
    k = k % len(d) if d else 0
    n = dims.as_int(d[k]) if d else None
    if n is None:
        return UNKNOWN
    rest = Shape(tuple(x for i, x in enumerate(d) if i != k))
    return Tuple(tuple(array_of(call, rest, a.dtype) for _ in range(n)))


def meshgrid(call: Call) -> Any:
    """``meshgrid(*xi, indexing='xy')``: one array per input, of the inputs' sizes (the
    first two swapped for ``xy``)."""
    values = sequence(call.arg("xi"))
    if values is None:
        return UNKNOWN
    sizes: list[Dim] = []
    for a in values:
        d = full_dims(a)
        sizes.append(dims.product(d) if d is not None else None)
    idx = constant(call.arg("indexing"))
    if idx not in ("xy", "ij"):
        return UNKNOWN
    if idx == "xy" and len(sizes) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    return _sequence(call)(tuple(array_of(call, Shape(tuple(sizes)), a.dtype) for a in values))


@rule
def broadcast_arrays(call: Call) -> Any:
    values = sequence(call.arg("args"))
    if values is None:
        return UNKNOWN
    shape = broadcast(values)
    return _sequence(call)(tuple(array_of(call, shape, a.dtype) for a in values))


def _sequence(call: Call) -> type[Tuple] | type[List]:
    """NumPy 2 gives a tuple of arrays where jax gives a list (``meshgrid``, ``atleast_1d``)."""
    return Tuple if call.host else List


@rule
def broadcast_shapes_value(call: Call) -> Any:
    """``broadcast_shapes(*shapes)``: the Python tuple of the broadcast shape."""
    var = call.sig.var_positional
    shapes = call.arg(var.name) if var is not None else UNKNOWN
    if not isinstance(shapes, tuple):
        return UNKNOWN
    parsed = [shape_of(s) for s in shapes]
    if any(s is None for s in parsed):
        return UNKNOWN
    shape = broadcast([Array(s) for s in parsed])
    if shape is None:
        return UNKNOWN
    return shape_tuple(shape.dims)
