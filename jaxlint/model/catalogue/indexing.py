"""Indexing: ``x[idx]`` (the evaluator calls ``jax.Array.__getitem__``/``numpy.ndarray.
__getitem__`` with the index), ``take``, ``take_along_axis``, the one-argument ``where``
and ``nonzero`` (sizes the data decides), and ``x.at[idx].set(v)`` and its siblings.

An index is an abstract value: an int (``Const`` or ``Scalar``), ``Const(None)``,
``Const(...)``, a slice (``make_slice(start, stop, step)``: a ``Struct`` of the builtin
``slice``), an integer array or a list of ints (advanced indexing: the index arrays
broadcast together; their axes go where the first one is when they are adjacent, else
first), a bool array (its axes become one axis of unknown size), or a ``Tuple`` of these.
``x.at[idx]`` is ``IndexRef(x, idx)``, which the ``jax.Array.at.*`` entries take as ``self``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jaxlint.base.literals import UNKNOWN

from .. import dims
from ..abstract import BOOL, INT, Array, Const, External, List, Scalar, Shape, Struct, Tuple, as_array, as_dim
from ..dims import Dim
from . import Call
from .creation import nested_shape
from .rules import Fails, array_of, broadcast, full_dims, int_const, is_none, normalize, promote, rule

SLICE = External("builtins.slice")


def make_slice(start: Any = None, stop: Any = None, step: Any = None) -> Struct:
    """The abstract value of ``start:stop:step`` (Python None for an absent part)."""
    parts = [Const(None) if v is None else v for v in (start, stop, step)]
    return Struct(SLICE, (("start", parts[0]), ("stop", parts[1]), ("step", parts[2])), kind="object")


def is_slice(v: Any) -> bool:
    return type(v) is Struct and v.cls == SLICE


@dataclass(frozen=True, slots=True)
class IndexRef:
    """``x.at[idx]``: the array and the index an ``.set``/``.add``/``.get`` applies to."""

    array: Any
    index: Any


def slice_size(size: Dim, s: Struct) -> Dim:
    """How many elements ``s`` selects of an axis of ``size``. Symbolic sizes: ``[:]``,
    ``[k:]`` and ``[:-k]`` give ``size - k`` (the axis at least ``k`` long, as it is
    whenever the slice is not empty), ``[:n]`` with ``n`` the axis's own size gives it."""
    start, stop, step = (s.get(k) for k in ("start", "stop", "step"))
    st = 1 if is_none(step) else int_const(step)
    if st is None or st == 0:
        return None
    si = dims.as_int(size)
    consts = [None if is_none(v) else int_const(v) for v in (start, stop)]
    if si is not None and all(c is not None or is_none(v) for c, v in zip(consts, (start, stop), strict=True)):
        return len(range(*slice(consts[0], consts[1], st).indices(si)))
    if st != 1 or size is None:
        return None
    lo, hi = (None if is_none(v) else as_dim(v) for v in (start, stop))
    if (lo is None and not is_none(start)) or (hi is None and not is_none(stop)):
        return None
    lo_i, hi_i = dims.as_int(lo), dims.as_int(hi)
    if lo is None or lo_i == 0:
        begin: Dim = 0
    elif lo_i is not None:
        begin = lo_i if lo_i > 0 else dims.add(size, lo_i)
    else:
        begin = lo
    if hi is None:
        end: Dim = size
    elif hi_i is not None:
        if hi_i > 0:
            return None  # min(hi, size): not known
        end = dims.add(size, hi_i)
    elif dims.equal(hi, size):
        end = size
    else:
        return None
    if lo_i is not None and lo_i < 0 and hi is None:
        return -lo_i
    return dims.sub(end, begin)


def _items(index: Any) -> list[Any]:
    return list(index.items) if type(index) is Tuple else [index]


def _index_array(v: Any) -> Array | None:
    """An integer or bool index array (a list of ints is one)."""
    if type(v) is Array:
        return v
    if type(v) is List:
        found = nested_shape(v)
        if found is None:
            return Array(None, INT)
        shape, leaves = found
        kinds = {a.dtype.kind if a.dtype else None for a in leaves}
        return Array(Shape(shape), BOOL if kinds == {"bool"} else INT)
    return None


@rule
def getitem(call: Call, param: str = "self", index: str = "item") -> Any:
    """``x[index]``."""
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    return indexed(call, a, call.arg(index))


def indexed(call: Call, a: Array, index: Any) -> Any:
    """The array ``a[index]`` gives; raises ``Fails`` for too many indices or a constant
    index past a known size."""
    if type(index) is List and not call.host:
        raise Fails(
            "type",
            "Using a non-tuple sequence for multidimensional indexing is not allowed; use `arr[array(seq)]` "
            "instead of `arr[seq]`. See https://github.com/jax-ml/jax/issues/4564 for more information.",
        )
    items = _items(index)
    d = full_dims(a)
    if d is None:
        return array_of(call, None, a.dtype)
    kinds: list[str] = []
    for it in items:
        if type(it) is Const and it.value is None:
            kinds.append("none")
        elif type(it) is Const and it.value is Ellipsis:
            kinds.append("ellipsis")
        elif is_slice(it):
            kinds.append("slice")
        elif (type(it) is Const and type(it.value) is int) or (type(it) is Scalar and it.kind == "int"):
            kinds.append("int")
        elif type(it) is Array and it.dtype is not None and it.dtype.kind == "bool":
            kinds.append("bool")
        elif _index_array(it) is not None:
            kinds.append("array")
        else:
            return array_of(call, None, a.dtype)
    if kinds.count("ellipsis") > 1:
        return UNKNOWN
    consumed = 0
    for k, it in zip(kinds, items, strict=True):
        if k in ("int", "slice", "array"):
            consumed += 1
        elif k == "bool":
            r = it.rank
            if r is None:
                return array_of(call, None, a.dtype)
            consumed += r
    if consumed > len(d):
        raise Fails("rank", f"Too many indices: array is {len(d)}-dimensional, but {consumed} were indexed")
    if "ellipsis" in kinds:
        e = kinds.index("ellipsis")
        fill = len(d) - consumed
        kinds[e : e + 1] = ["slice"] * fill
        items[e : e + 1] = [make_slice()] * fill
    else:
        kinds += ["slice"] * (len(d) - consumed)
        items += [make_slice()] * (len(d) - consumed)
    advanced = any(k in ("array", "bool") for k in kinds)
    out: list[Dim] = []
    adv_shapes: list[Array] = []
    adv_at: list[int] = []
    axis = 0
    for k, it in zip(kinds, items, strict=True):
        if k == "none":
            out.append(1)
            continue
        if k == "slice":
            out.append(slice_size(d[axis], it))
            axis += 1
            continue
        if k == "int":
            # a constant index past the size does not raise in jax (it is clamped)
            if advanced:
                adv_at.append(len(out))
                adv_shapes.append(Array(Shape(())))
            axis += 1
            continue
        if k == "bool":
            adv_at.append(len(out))
            adv_shapes.append(Array(Shape((None,))))
            axis += it.rank
            continue
        ia = _index_array(it)
        assert ia is not None
        adv_at.append(len(out))
        adv_shapes.append(ia)
        axis += 1
    if not adv_shapes:
        return array_of(call, Shape(tuple(out)), a.dtype)
    if any(s.shape is None for s in adv_shapes):
        return array_of(call, None, a.dtype)
    shape = broadcast(adv_shapes)
    if shape is None:
        return array_of(call, None, a.dtype)
    adjacent = all(x == adv_at[0] for x in adv_at)
    where = adv_at[0] if adjacent else 0
    return array_of(call, Shape((*out[:where], *shape.dims, *out[where:])), a.dtype)


@rule
def take(call: Call, param: str = "a", indices: str = "indices") -> Any:
    """``take(a, indices, axis=None)``: ``indices``'s shape replaces the axis (the whole
    flattened array without one)."""
    a, i = as_array(call.arg(param)), _index_array(call.arg(indices)) or as_array(call.arg(indices))
    if a is None or i is None:
        return UNKNOWN
    ax = call.arg("axis")
    if i.shape is None or i.shape.rest:
        return array_of(call, None, a.dtype)
    if is_none(ax):
        return array_of(call, i.shape, a.dtype)
    d, k = full_dims(a), int_const(ax)
    if d is None or k is None:
        return array_of(call, None, a.dtype)
    k = normalize(k, len(d))
    return array_of(call, Shape((*d[:k], *i.shape.dims, *d[k + 1 :])), a.dtype)


@rule
def take_along_axis(call: Call, param: str = "arr", indices: str = "indices") -> Any:
    """``take_along_axis(arr, indices, axis)``: same ranks; the indices' size along
    ``axis``, the others broadcast."""
    a, i = as_array(call.arg(param)), as_array(call.arg(indices))
    if a is None or i is None:
        return UNKNOWN
    da, di = full_dims(a), full_dims(i)
    ax = call.arg("axis")
    if da is None or di is None:
        return array_of(call, None, a.dtype)
    if is_none(ax):
        return array_of(call, i.shape, a.dtype)
    k = int_const(ax)
    if len(da) != len(di):
        raise Fails("rank", f"indices and arr must have the same number of dimensions; {len(di)} vs. {len(da)}")
    if k is None:
        return array_of(call, None, a.dtype)
    k = normalize(k, len(da))
    out: list[Dim] = []
    for j, (x, y) in enumerate(zip(da, di, strict=True)):
        if j == k:
            out.append(y)
            continue
        s = broadcast([Array(Shape((x,))), Array(Shape((y,)))])
        out.append(s.dims[0] if s is not None else None)
    return array_of(call, Shape(tuple(out)), a.dtype)


def nonzero(call: Call, param: str = "a") -> Any:
    """``nonzero(a, size=None)``: one index array per axis, of ``size`` or unknown length."""
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d = full_dims(a)
    if d is None:
        return UNKNOWN
    size = call.arg("size") if call.sig.param("size") is not None else Const(None)
    n = None if is_none(size) else as_dim(size)
    return Tuple(tuple(array_of(call, Shape((n,)), INT) for _ in range(max(len(d), 1))))


def argwhere(call: Call, param: str = "a") -> Any:
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d = full_dims(a)
    size = call.arg("size") if call.sig.param("size") is not None else Const(None)
    n = None if is_none(size) else as_dim(size)
    return array_of(call, Shape((n, len(d) if d is not None else None)), INT)


def flatnonzero(call: Call, param: str = "a") -> Any:
    size = call.arg("size") if call.sig.param("size") is not None else Const(None)
    return array_of(call, Shape((None if is_none(size) else as_dim(size),)), INT)


@rule
def where(call: Call) -> Any:
    """``where(condition, x, y)`` broadcasts the three; ``where(condition)`` is ``nonzero``."""
    c, x, y = call.arg("condition"), call.arg("x"), call.arg("y")
    if is_none(x) and is_none(y):
        a = as_array(c)
        if a is None:
            return UNKNOWN
        d = full_dims(a)
        if d is None:
            return UNKNOWN
        size = call.arg("size") if call.sig.param("size") is not None else Const(None)
        n = None if is_none(size) else as_dim(size)
        return Tuple(tuple(array_of(call, Shape((n,)), INT) for _ in range(max(len(d), 1))))
    values = [as_array(v) for v in (c, x, y)]
    if any(v is None for v in values):
        return UNKNOWN
    known = [v for v in values if v is not None]
    shape = broadcast(known)
    return array_of(call, shape, promote([known[1].dtype, known[2].dtype]))


@rule
def at_update(call: Call) -> Any:
    """``x.at[idx].set(v)`` (``add``, ``multiply``, ...): ``x``'s shape and dtype; ``v``
    must broadcast to ``x[idx]``."""
    ref = call.arg("self")
    if type(ref) is not IndexRef:
        return UNKNOWN
    a = as_array(ref.array)
    if a is None:
        return UNKNOWN
    return array_of(call, a.shape, a.dtype)


@rule
def at_get(call: Call) -> Any:
    """``x.at[idx].get()``: ``x[idx]``."""
    ref = call.arg("self")
    a = as_array(ref.array) if type(ref) is IndexRef else None
    if a is None:
        return UNKNOWN
    return indexed(call, a, ref.index)
