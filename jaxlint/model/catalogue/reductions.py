"""Reductions: ``sum``/``mean``/``max``/... over ``axis`` (an int, a tuple, None, negative)
with ``keepdims``; ``argmax``/``argmin``; ``linalg.norm`` with ``axis``/``ord``; the
cumulative ones (``cumsum``: the shape, flattened without an axis)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jaxlint.base.literals import UNKNOWN

from .. import dims
from ..abstract import BOOL, INT, Array, Const, DType, Shape, as_array
from . import Call
from .rules import (
    Fails,
    array_of,
    axes_of,
    bool_const,
    full_dims,
    given_dtype,
    inexact,
    int_const,
    is_none,
    normalize,
    normalize_all,
    option,
    real_of,
    rule,
    same,
)

DtypeRule = Callable[[DType | None], DType | None]
_FALSE = Const(False)


def summed(d: DType | None) -> DType | None:
    """``sum``/``prod``: bools and narrow ints promote to the default int."""
    if d is None:
        return None
    return INT if d.kind in ("bool", "int") else (DType("uint") if d.kind == "uint" else d)


def to_bool(_: DType | None) -> DType:
    return BOOL


def to_int(_: DType | None) -> DType:
    return INT


def reduced_shape(a: Array, axis: Any, keepdims: Any) -> Shape | None:
    """The shape after reducing ``axis`` of ``a``; raises ``Fails`` for an axis past the rank.
    ``keepdims`` None (NumPy's "no value", jax's ``argmax`` default) is False."""
    keep = False if is_none(keepdims) else bool_const(keepdims)
    if keep is None:
        return None
    ax = axes_of(axis)
    d = full_dims(a)
    if d is None:
        if a.shape is not None and isinstance(ax, tuple) and not keep and all(x >= 0 for x in ax):
            # rank unknown past the leading sizes: only what precedes the first axis stays known
            first = min(ax)
            if first <= len(a.shape.dims):
                return Shape(a.shape.dims[:first], rest=True) if first else None
        return None
    rank = len(d)
    if ax is None:
        return Shape(tuple(1 for _ in d)) if keep else None
    gone = set(normalize_all(ax, rank)) if isinstance(ax, tuple) else set(range(rank))
    if keep:
        return Shape(tuple(1 if i in gone else x for i, x in enumerate(d)))
    return Shape(tuple(x for i, x in enumerate(d) if i not in gone))


@rule
def reduction(call: Call, param: str = "a", result: DtypeRule = same, keepdims: str | None = "keepdims") -> Any:
    """``sum(a, axis=None, dtype=None, keepdims=False)`` and the like."""
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    keep = option(call, keepdims, _FALSE) if keepdims is not None else _FALSE
    shape = reduced_shape(a, call.arg("axis"), keep)
    dt = given_dtype(call) or result(a.dtype)
    return array_of(call, shape, dt)


@rule
def argreduction(call: Call, param: str = "a") -> Any:
    """``argmax(a, axis=None, keepdims=None)``: one axis (or all of them), int indices."""
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    axis = call.arg("axis")
    if not is_none(axis) and int_const(axis) is None:
        return array_of(call, None, INT)
    return array_of(call, reduced_shape(a, axis, option(call, "keepdims", _FALSE)), INT)


@rule
def cumulative(call: Call, param: str = "a", axis: str = "axis", result: DtypeRule = same) -> Any:
    """``cumsum(a, axis=None)``: the shape, or the flattened size without an axis."""
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    dt = given_dtype(call) or result(a.dtype)
    ax = call.arg(axis)
    d = full_dims(a)
    if is_none(ax):
        return array_of(call, Shape((dims.product(d),)) if d is not None else None, dt)
    k = int_const(ax)
    if k is not None and d is not None:
        normalize(k, len(d))
    return array_of(call, a.shape, dt)


@rule
def norm(call: Call, param: str = "x") -> Any:
    """``linalg.norm(x, ord=None, axis=None, keepdims=False)``: a vector norm over one
    axis, a matrix norm over two, everything when both are None."""
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    dt = real_of(inexact(a.dtype))
    keep = call.arg("keepdims")
    axis = call.arg("axis")
    d = full_dims(a)
    if is_none(axis):
        if d is None:
            return array_of(call, None, dt)
        if not is_none(call.arg("ord")) and len(d) not in (1, 2):
            raise Fails(
                "rank",
                f"Improper number of axes for norm: axis={tuple(range(len(d)))}. Pass one axis to compute a "
                "vector-norm, or two axes to compute a matrix-norm.",
            )
    return array_of(call, reduced_shape(a, axis, keep), dt)


@rule
def moment(call: Call, param: str = "a") -> Any:
    """``mean``/``std``/``var``: a reduction whose result is inexact."""
    return reduction(call, param, inexact)


def quantile(call: Call, param: str = "a", q: str = "q") -> Any:
    """``quantile(a, q, axis=None, keepdims=False)``: ``q``'s shape before the reduced one."""
    a, qa = as_array(call.arg(param)), as_array(call.arg(q))
    if a is None or qa is None:
        return UNKNOWN
    inner = reduction(call, param, inexact)
    if type(inner) is not Array or inner.shape is None or qa.shape is None or qa.shape.rest:
        return array_of(call, None, inexact(a.dtype))
    return array_of(call, Shape(qa.shape.dims + inner.shape.dims, inner.shape.rest), inner.dtype)


def count(call: Call, param: str = "a") -> Any:
    return reduction(call, param, to_int)
