"""``jax.lax`` operations on arrays: binary arithmetic without rank broadcasting (equal
shapes, or a Python scalar), ``select``, ``clamp``, ``convert_element_type``,
``broadcast``/``broadcast_in_dim``/``iota``, ``reshape``/``squeeze``/``expand_dims``/
``transpose``/``pad``/``concatenate``, slicing (``slice``, ``dynamic_slice``, the
``*_in_dim`` ones), reductions over ``axes``, ``top_k``, ``sort``."""

from __future__ import annotations

from typing import Any

from jaxlint.base.literals import UNKNOWN

from .. import dims
from ..abstract import BOOL, INT, Const, List, Shape, Tuple, as_array, as_dim, constant, is_number
from ..dims import Dim
from . import Call
from .indexing import make_slice, slice_size
from .joining import joined, sequence
from .rules import (
    COMPLEX,
    Fails,
    array_of,
    dims_of_value,
    dtype_of,
    full_dims,
    int_const,
    ints,
    normalize,
    normalize_all,
    positional,
    promote,
    rule,
    shape_of,
)
from .shaping import expand_dims, squeeze, transpose


@rule
def lax_binary(call: Call, params: tuple[str, ...] | None = None, result: str | None = None) -> Any:
    """``lax.add(x, y)``: arrays of one shape (a Python scalar goes with anything);
    ``params`` (default: the first two positional ones); ``result`` "bool" for
    comparisons, "complex" for ``complex``."""
    values = [call.arg(p) for p in params] if params is not None else positional(call)[:2]
    if len(values) != len(params or (0, 0)):
        return UNKNOWN
    arrays = [as_array(v) for v in values]
    if any(a is None for a in arrays):
        return UNKNOWN
    shaped = [a for v, a in zip(values, arrays, strict=True) if a is not None and not is_number(v)]
    known = [a for a in arrays if a is not None]
    dt = BOOL if result == "bool" else COMPLEX if result == "complex" else promote([a.dtype for a in known])
    if not shaped:
        return array_of(call, Shape(()), dt)
    all_dims = [full_dims(a) for a in shaped]
    if any(d is None for d in all_dims):
        return array_of(call, None, dt)
    ranks = {len(d) for d in all_dims if d is not None}
    if len(ranks) > 1:
        raise Fails("rank", f"{call.name}: arrays must have the same number of dimensions, got {set(ranks)}")
    first = all_dims[0]
    assert first is not None
    for d in all_dims[1:]:
        assert d is not None
        if any(dims.different(x, y) for x, y in zip(first, d, strict=True)):
            shown = ", ".join(str(a.shape) for a in shaped)
            raise Fails("shape", f"{call.name} got incompatible shapes for broadcasting: {shown}.")
    return array_of(call, shaped[0].shape, dt)


@rule
def select(call: Call) -> Any:
    """``select(pred, on_true, on_false)``: the branches' shape (``pred`` that or scalar)."""
    return lax_binary(call, ("on_true", "on_false"))


@rule
def clamp(call: Call) -> Any:
    x = as_array(call.arg("x"))
    return array_of(call, x.shape, x.dtype) if x is not None else UNKNOWN


def convert(call: Call, param: str = "operand", dtype: str = "new_dtype") -> Any:
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    return array_of(call, a.shape, dtype_of(call.arg(dtype)))


def lax_broadcast(call: Call) -> Any:
    """``broadcast(operand, sizes)``: ``sizes`` before the operand's shape."""
    a, s = as_array(call.arg("operand")), dims_of_value(call.arg("sizes"))
    if a is None:
        return UNKNOWN
    d = full_dims(a)
    if s is None or d is None:
        return array_of(call, None, a.dtype)
    return array_of(call, Shape((*s, *d)), a.dtype)


def broadcast_in_dim(call: Call) -> Any:
    a = as_array(call.arg("operand"))
    if a is None:
        return UNKNOWN
    return array_of(call, shape_of(call.arg("shape")), a.dtype)


def iota(call: Call) -> Any:
    return array_of(call, Shape((as_dim(call.arg("size")),)), dtype_of(call.arg("dtype")))


def broadcasted_iota(call: Call) -> Any:
    return array_of(call, shape_of(call.arg("shape")), dtype_of(call.arg("dtype")))


def lax_reshape(call: Call) -> Any:
    """``lax.reshape(operand, new_sizes)``: the new sizes (no ``-1``)."""
    a = as_array(call.arg("operand"))
    if a is None:
        return UNKNOWN
    return array_of(call, shape_of(call.arg("new_sizes")), a.dtype)


@rule
def lax_squeeze(call: Call) -> Any:
    return squeeze(call, "array", "dimensions")


@rule
def lax_expand_dims(call: Call) -> Any:
    return expand_dims(call, "array", "dimensions")


@rule
def lax_transpose(call: Call) -> Any:
    return transpose(call, "operand", "permutation")


@rule
def lax_concatenate(call: Call) -> Any:
    values = sequence(call.arg("operands"))
    k = int_const(call.arg("dimension"))
    if values is None or k is None:
        return UNKNOWN
    return joined(call, values, k)


def lax_pad(call: Call) -> Any:
    """``pad(operand, padding_value, padding_config)``: each axis ``lo + hi + d`` plus
    ``interior`` between elements."""
    a = as_array(call.arg("operand"))
    if a is None:
        return UNKNOWN
    d = full_dims(a)
    cfg = constant(call.arg("padding_config"))
    if d is None or not isinstance(cfg, (tuple, list)) or len(cfg) != len(d):
        return array_of(call, None, a.dtype)
    out: list[Dim] = []
    for x, c in zip(d, cfg, strict=True):
        if not (isinstance(c, (tuple, list)) and len(c) == 3 and all(type(e) is int for e in c)):
            return array_of(call, None, a.dtype)
        lo, hi, interior = c
        xi = dims.as_int(x)
        gaps: Dim = (
            max(xi - 1, 0) * interior if xi is not None else (dims.mul(dims.sub(x, 1), interior) if interior else 0)
        )
        out.append(dims.add(dims.add(dims.add(x, lo), hi), gaps))
    return array_of(call, Shape(tuple(out)), a.dtype)


def lax_slice(call: Call) -> Any:
    """``slice(operand, start_indices, limit_indices, strides=None)``."""
    a = as_array(call.arg("operand"))
    if a is None:
        return UNKNOWN
    lo, hi = ints(call.arg("start_indices")), ints(call.arg("limit_indices"))
    st = ints(call.arg("strides")) if constant(call.arg("strides")) is not None else None
    if lo is None or hi is None or len(lo) != len(hi):
        return array_of(call, None, a.dtype)
    steps = st or (1,) * len(lo)
    return array_of(
        call, Shape(tuple(max(0, -(-(h - s) // k)) for s, h, k in zip(lo, hi, steps, strict=True))), a.dtype
    )


def dynamic_slice(call: Call) -> Any:
    a = as_array(call.arg("operand"))
    if a is None:
        return UNKNOWN
    sizes = dims_of_value(call.arg("slice_sizes"))
    return array_of(call, Shape(sizes) if sizes is not None else None, a.dtype)


def same_as(call: Call, param: str = "operand") -> Any:
    a = as_array(call.arg(param))
    return array_of(call, a.shape, a.dtype) if a is not None else UNKNOWN


@rule
def in_dim(call: Call, size: str | None = None, keepdims: bool = False) -> Any:
    """``dynamic_slice_in_dim(operand, start, slice_size, axis)`` (``size``: the parameter
    giving the new size), ``index_in_dim(operand, index, axis, keepdims)``."""
    a = as_array(call.arg("operand"))
    if a is None:
        return UNKNOWN
    d, ax = full_dims(a), int_const(call.arg("axis"))
    if d is None or ax is None:
        return array_of(call, None, a.dtype)
    k = normalize(ax, len(d))
    out = list(d)
    if size is not None:
        out[k] = as_dim(call.arg(size))
        return array_of(call, Shape(tuple(out)), a.dtype)
    keep = call.arg("keepdims")
    if keep == Const(False):
        del out[k]
    elif keep == Const(True):
        out[k] = 1
    else:
        return array_of(call, None, a.dtype)
    return array_of(call, Shape(tuple(out)), a.dtype)


@rule
def slice_in_dim(call: Call) -> Any:
    a = as_array(call.arg("operand"))
    if a is None:
        return UNKNOWN
    d, ax = full_dims(a), int_const(call.arg("axis"))
    lo, hi, st = (call.arg(p) for p in ("start_index", "limit_index", "stride"))
    if d is None or ax is None:
        return array_of(call, None, a.dtype)
    k = normalize(ax, len(d))
    out = list(d)
    out[k] = slice_size(d[k], make_slice(lo, hi, st))
    return array_of(call, Shape(tuple(out)), a.dtype)


@rule
def reduce_axes(call: Call, result: str | None = None) -> Any:
    """``reduce_sum(operand, axes)``: those axes removed."""
    a = as_array(call.arg("operand"))
    if a is None:
        return UNKNOWN
    d, ax = full_dims(a), ints(call.arg("axes"))
    dt = BOOL if result == "bool" else a.dtype
    if d is None or ax is None:
        return array_of(call, None, dt)
    gone = normalize_all(ax, len(d))
    return array_of(call, Shape(tuple(x for i, x in enumerate(d) if i not in gone)), dt)


@rule
def lax_argmax(call: Call) -> Any:
    a = as_array(call.arg("operand"))
    if a is None:
        return UNKNOWN
    d, ax = full_dims(a), int_const(call.arg("axis"))
    dt = dtype_of(call.arg("index_dtype")) or INT
    if d is None or ax is None:
        return array_of(call, None, dt)
    k = normalize(ax, len(d))
    return array_of(call, Shape(tuple(x for i, x in enumerate(d) if i != k)), dt)


@rule
def top_k(call: Call, param: str = "operand", k: str = "k", axis: str = "axis") -> Any:
    """``top_k(operand, k)``: [values, int indices] (a list), the axis cut to ``k``
    (``approx_max_k``'s is ``reduction_dimension``)."""
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d, n = full_dims(a), as_dim(call.arg(k))
    ax = int_const(call.arg(axis)) if call.sig.param(axis) is not None else -1
    if d is None or ax is None:
        return List((array_of(call, None, a.dtype), array_of(call, None, INT)))
    j = normalize(ax, len(d))
    out = list(d)
    out[j] = n
    s = Shape(tuple(out))
    return List((array_of(call, s, a.dtype), array_of(call, s, INT)))


def lax_sort(call: Call) -> Any:
    """``sort(operand)``: the same shape; a tuple of operands gives a tuple."""
    v = call.arg("operand")
    if type(v) in (Tuple, List):
        items = [as_array(x) for x in v.items]
        if any(a is None for a in items):
            return UNKNOWN
        return Tuple(tuple(array_of(call, a.shape, a.dtype) for a in items if a is not None))
    return same_as(call)


def sort_key_val(call: Call) -> Any:
    k, v = as_array(call.arg("keys")), as_array(call.arg("values"))
    if k is None or v is None:
        return UNKNOWN
    return Tuple((array_of(call, k.shape, k.dtype), array_of(call, v.shape, v.dtype)))


def rng_uniform(call: Call) -> Any:
    a = as_array(call.arg("a"))
    return array_of(call, shape_of(call.arg("shape")), a.dtype if a is not None else None)


def broadcast_to_rank(call: Call) -> Any:
    """``broadcast_to_rank(x, rank)``: leading axes of size 1 up to ``rank``."""
    a, r = as_array(call.arg("x")), int_const(call.arg("rank"))
    if a is None:
        return UNKNOWN
    d = full_dims(a)
    if d is None or r is None:
        return array_of(call, None, a.dtype)
    return array_of(call, Shape((*(1,) * max(0, r - len(d)), *d)), a.dtype)
