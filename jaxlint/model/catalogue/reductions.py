"""Reductions: ``sum``/``mean``/``max``/... over ``axis`` (an int, a tuple, None, negative)
with ``keepdims``; ``argmax``/``argmin``; ``linalg.norm`` with ``axis``/``ord``; the
cumulative ones (``cumsum``: the shape, flattened without an axis)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jaxlint.base.literals import UNKNOWN

from .. import dims
from ..abstract import BOOL, INT, Array, Const, DType, Opaque, Shape, as_array
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
    if ax == "all" and not keep:
        return Shape(())  # every axis reduced, whatever the rank
    if d is None:
        return _reduced_rest(a.shape, ax, keep) if isinstance(ax, tuple) else None
    rank = len(d)
    if ax is None:
        return Shape(tuple(1 for _ in d)) if keep else None
    gone = set(normalize_all(ax, rank)) if isinstance(ax, tuple) else set(range(rank))
    if keep:
        return Shape(tuple(1 if i in gone else x for i, x in enumerate(d)))
    return Shape(tuple(x for i, x in enumerate(d) if i not in gone))


def _reduced_rest(shape: Shape | None, ax: tuple[int, ...], keep: bool) -> Shape | None:
    """Reducing ``ax`` of an array whose rank is only known to be at least ``n``, its
    first sizes known: an axis ``k >= 0`` leaves the sizes before it, an axis ``-k`` (at
    position ``rank - k >= n - k``) those before ``n - k``; the result keeps at least
    ``n - len(ax)`` axes (``n`` with ``keepdims``), their sizes unknown past those."""
    if shape is None or len(set(ax)) != len(ax):
        return None
    n = len(shape.dims)
    stay = min([min(x, n) for x in ax if x >= 0] + [max(n + x, 0) for x in ax if x < 0], default=n)
    rank = n if keep else n - len(ax)
    if max(stay, rank) <= 0:
        return None
    return Shape(shape.dims[:stay] + (None,) * max(rank - stay, 0), rest=True)


@rule
def reduction(call: Call, param: str = "a", result: DtypeRule = same, keepdims: str | None = "keepdims") -> Any:
    """``sum(a, axis=None, dtype=None, keepdims=False)`` and the like. Whatever it is given,
    the result is an array, 0-d when every axis is reduced (``axis=None``, no keepdims)."""
    a = as_array(call.arg(param))
    if a is None:
        given = call.arg(param)
        unknown = given is UNKNOWN or type(given) is Opaque
        if unknown and keepdims is not None and is_none(call.arg("axis")):
            whole = bool_const(option(call, keepdims, _FALSE)) is False
            return array_of(call, Shape(()), given_dtype(call)) if whole else UNKNOWN
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
    if is_none(axis) and a.rank == 0:
        # JAX gives 0 (jax 0.10.2): an index chosen among one element, whatever it holds
        name = call.qualified.rsplit(".", 1)[-1]
        call.problem("degenerate", f"`{name}` of a rank-0 array is always 0: there is one element to choose from")
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
