"""Rules that rearrange one array: ``reshape`` (``-1`` inferred with exact division, also
of symbolic sizes), ``ravel``, ``transpose``/``.T``, ``swapaxes``, ``moveaxis``,
``expand_dims``, ``squeeze``, ``broadcast_to``, ``tile``, ``repeat``, ``pad``, ``diagonal``,
``diag``, ``diff``; and their ``lax`` spellings (``broadcast_in_dim``, ``slice``, ...)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jaxlint.base.literals import UNKNOWN

from .. import dims
from ..abstract import Array, Const, List, Shape, Tuple, as_array, as_dim, constant
from ..dims import Dim
from . import Call
from .rules import (
    Fails,
    array_of,
    broadcast_dims,
    dims_of_value,
    full_dims,
    int_const,
    ints,
    is_none,
    normalize,
    normalize_all,
    rule,
    shape_of,
    shape_text,
    type_text,
)


def _size_text(d: Sequence[Dim]) -> str:
    return dims.text(dims.product(tuple(d)))


def reshaped(a: Array, target: Sequence[Dim]) -> Shape:
    """The shape ``a.reshape(target)`` gives; raises ``Fails`` when the sizes cannot match."""
    n_unknown = sum(1 for d in target if d == -1)
    if n_unknown > 1:
        raise Fails("shape", f"can only specify one unknown axis size with a `-1` value, got {shape_text(target)}")
    d = full_dims(a)
    total = dims.product(d) if d is not None else None
    if n_unknown:
        others = [x for x in target if x != -1]
        known = dims.product(tuple(others))
        ti, ki = dims.as_int(total), dims.as_int(known)
        if ti is not None and ki is not None and ki != 0 and ti % ki != 0:
            raise Fails(
                "shape",
                f"cannot reshape array of shape {a.shape} (size {ti}) into shape {shape_text(target)} "
                f"because the product of specified axis sizes ({ki}) does not evenly divide {ti}",
            )
        inferred = dims.exact_div(total, known)
        return Shape(tuple(inferred if x == -1 else x for x in target))
    if dims.different(total, dims.product(tuple(target))) and d is not None:
        raise Fails(
            "shape",
            f"cannot reshape array of shape {a.shape} (size {dims.text(total)}) into shape "
            f"{shape_text(target)} (size {_size_text(target)})",
        )
    return Shape(tuple(target))


def _target(v: Any) -> tuple[Dim, ...] | None:
    if type(v) is tuple:  # a method's *args
        if len(v) == 1 and type(v[0]) in (Tuple, List):
            return dims_of_value(v[0])
        return tuple(as_dim(x) for x in v)
    return dims_of_value(v)


@rule
def reshape(call: Call, param: str = "a", shape: str = "shape") -> Any:
    """``reshape(a, shape)``; a method's ``x.reshape(2, -1)`` or ``x.reshape((2, -1))``."""
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    target = _target(call.arg(shape))
    if target is None:
        return array_of(call, None, a.dtype)
    return array_of(call, reshaped(a, target), a.dtype)


def ravel(call: Call, param: str = "a") -> Any:
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d = full_dims(a)
    return array_of(call, Shape((dims.product(d),)) if d is not None else Shape((None,)), a.dtype)


def permutation_of(v: Any) -> tuple[int, ...] | None:
    if type(v) is tuple:  # a method's *axes
        if len(v) == 1 and (type(v[0]) in (Tuple, List) or is_none(v[0])):
            v = v[0]
        elif not v:
            return None
        else:
            out = tuple(int_const(x) for x in v)
            return None if any(x is None for x in out) else tuple(x for x in out if x is not None)
    return ints(v) if not is_none(v) else None


@rule
def transpose(call: Call, param: str = "a", axes: str = "axes") -> Any:
    """``transpose(a, axes=None)``: reversed, or permuted by ``axes``."""
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d = full_dims(a)
    if d is None:
        return array_of(call, None, a.dtype)
    v = call.arg(axes) if call.sig.param(axes) is not None or call.sig.var_positional is not None else Const(None)
    perm = permutation_of(v)
    if perm is None:
        if is_none(v) or v == ():
            return array_of(call, Shape(tuple(reversed(d))), a.dtype)
        return array_of(call, None, a.dtype)
    norm = tuple(p % len(d) if -len(d) <= p < len(d) else p for p in perm)
    if sorted(norm) != list(range(len(d))):
        raise Fails(
            "rank",
            f"transpose permutation isn't a permutation of operand dimensions, got permutation {perm} for operand shape {a.shape}.",
        )
    return array_of(call, Shape(tuple(d[p] for p in norm)), a.dtype)


def matrix_transpose(call: Call, param: str = "x") -> Any:
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d = full_dims(a)
    if d is None or len(d) < 2:
        return array_of(call, None, a.dtype)
    return array_of(call, Shape((*d[:-2], d[-1], d[-2])), a.dtype)


@rule
def swapaxes(call: Call, param: str = "a", axis1: str = "axis1", axis2: str = "axis2") -> Any:
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d, i, j = full_dims(a), int_const(call.arg(axis1)), int_const(call.arg(axis2))
    if d is None or i is None or j is None:
        return array_of(call, None, a.dtype)
    i, j = normalize(i, len(d)), normalize(j, len(d))
    out = list(d)
    out[i], out[j] = out[j], out[i]
    return array_of(call, Shape(tuple(out)), a.dtype)


@rule
def moveaxis(call: Call, param: str = "a", source: str = "source", destination: str = "destination") -> Any:
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d, src, dst = full_dims(a), ints(call.arg(source)), ints(call.arg(destination))
    if d is None or src is None or dst is None or len(src) != len(dst):
        return array_of(call, None, a.dtype)
    s, t = normalize_all(src, len(d)), normalize_all(dst, len(d))
    rest = [k for k in range(len(d)) if k not in s]
    for dest, srcaxis in sorted(zip(t, s, strict=True)):
        rest.insert(dest, srcaxis)
    return array_of(call, Shape(tuple(d[k] for k in rest)), a.dtype)


@rule
def expand_dims(call: Call, param: str = "a", axis: str = "axis") -> Any:
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d, ax = full_dims(a), ints(call.arg(axis))
    if d is None or ax is None:
        return array_of(call, None, a.dtype)
    rank = len(d) + len(ax)
    where = normalize_all(ax, rank)
    it = iter(d)
    return array_of(call, Shape(tuple(1 if k in where else next(it) for k in range(rank))), a.dtype)


@rule
def squeeze(call: Call, param: str = "a", axis: str = "axis") -> Any:
    """``squeeze(a, axis=None)``: the named axes (which must have size 1), or every axis of
    size 1 (unknown when a size is symbolic: it may be 1)."""
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d = full_dims(a)
    if d is None:
        return array_of(call, None, a.dtype)
    v = call.arg(axis)
    if is_none(v):
        if any(dims.as_int(x) is None for x in d):
            return array_of(call, None, a.dtype)
        return array_of(call, Shape(tuple(x for x in d if x != 1)), a.dtype)
    ax = ints(v)
    if ax is None:
        return array_of(call, None, a.dtype)
    where = normalize_all(ax, len(d))
    if any(dims.different(d[k], 1) for k in where):
        raise Fails(
            "shape",
            f"cannot select an axis to squeeze out which has size not equal to one, got shape={a.shape} and dimensions={tuple(where)}",
        )
    return array_of(call, Shape(tuple(x for k, x in enumerate(d) if k not in where)), a.dtype)


def check_broadcast_to(a: Array, target: tuple[Dim, ...]) -> None:
    d = full_dims(a)
    if d is None:
        return
    if len(d) > len(target):
        raise Fails(
            "shape",
            f"Cannot broadcast to shape with fewer dimensions: arr_shape={a.shape} shape={shape_text(target)}",
        )
    for x, t in zip(reversed(d), reversed(target), strict=False):
        ok, _ = broadcast_dims(x, t)
        if not ok or (x != 1 and dims.as_int(x) is not None and dims.as_int(t) is not None and x != t):
            raise Fails(
                "shape",
                f"Incompatible types for broadcasting: input type={type_text(a)} and requested type={type_text(a, target)}",
            )


@rule
def broadcast_to(call: Call, param: str = "array", shape: str = "shape") -> Any:
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    s = shape_of(call.arg(shape))
    if s is None:
        return array_of(call, None, a.dtype)
    check_broadcast_to(a, s.dims)
    return array_of(call, s, a.dtype)


def tile(call: Call, param: str = "A", reps: str = "reps") -> Any:
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d, r = full_dims(a), dims_of_value(call.arg(reps))
    if d is None or r is None:
        return array_of(call, None, a.dtype)
    n = max(len(d), len(r))
    dd = (1,) * (n - len(d)) + tuple(d)
    rr = (1,) * (n - len(r)) + tuple(r)
    return array_of(call, Shape(tuple(dims.mul(x, y) for x, y in zip(dd, rr, strict=True))), a.dtype)


@rule
def repeat(call: Call, param: str = "a", repeats: str = "repeats", axis: str = "axis") -> Any:
    """``repeat(a, repeats, axis=None)``: a constant count multiplies the axis (the
    flattened size without an axis); an array of counts gives an unknown size unless
    ``total_repeat_length`` says it."""
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d = full_dims(a)
    rv = call.arg(repeats)
    n = as_dim(rv)
    total = call.arg("total_repeat_length")
    n_total = as_dim(total) if n is None and not is_none(total) else None
    ax = call.arg(axis)
    if d is None:
        return array_of(call, None, a.dtype)
    size = n_total if n is None else None
    if is_none(ax):
        return array_of(call, Shape((size if n is None else dims.mul(dims.product(d), n),)), a.dtype)
    k = int_const(ax)
    if k is None:
        return array_of(call, None, a.dtype)
    k = normalize(k, len(d))
    out = list(d)
    out[k] = size if n is None else dims.mul(d[k], n)
    return array_of(call, Shape(tuple(out)), a.dtype)


def _pad_widths(v: Any, rank: int) -> list[tuple[Dim, Dim]] | None:
    c = constant(v)
    if type(c) is int:
        return [(c, c)] * rank
    if isinstance(c, (tuple, list)):
        if len(c) == 2 and all(type(x) is int for x in c):
            return [(c[0], c[1])] * rank
        if len(c) == 1 and isinstance(c[0], (tuple, list)) and len(c[0]) == 2:
            return [(c[0][0], c[0][1])] * rank
        if len(c) == rank and all(isinstance(x, (tuple, list)) and len(x) == 2 for x in c):
            return [(x[0], x[1]) for x in c]
        if len(c) == rank and all(isinstance(x, (tuple, list)) and len(x) == 1 for x in c):
            return [(x[0], x[0]) for x in c]
    return None


def pad(call: Call, param: str = "array") -> Any:
    """``pad(array, pad_width)``: each axis grows by its before and after widths."""
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d = full_dims(a)
    if d is None:
        return array_of(call, None, a.dtype)
    widths = _pad_widths(call.arg("pad_width"), len(d))
    if widths is None:
        return array_of(call, Shape(tuple(None for _ in d)), a.dtype)
    return array_of(
        call, Shape(tuple(dims.add(dims.add(x, lo), hi) for x, (lo, hi) in zip(d, widths, strict=True))), a.dtype
    )


def _min_dim(a: Dim, b: Dim) -> Dim:
    if dims.equal(a, b):
        return a
    ia, ib = dims.as_int(a), dims.as_int(b)
    return min(ia, ib) if ia is not None and ib is not None else None


@rule
def diagonal(call: Call, param: str = "a") -> Any:
    """``diagonal(a, offset=0, axis1=0, axis2=1)``: both axes removed, the diagonal last."""
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d = full_dims(a)
    off, i, j = int_const(call.arg("offset")), int_const(call.arg("axis1")), int_const(call.arg("axis2"))
    if d is None or off is None or i is None or j is None or len(d) < 2:
        return array_of(call, None, a.dtype)
    i, j = normalize(i, len(d)), normalize(j, len(d))
    n: Dim
    if off == 0:
        n = _min_dim(d[i], d[j])
    else:
        ia, ib = dims.as_int(d[i]), dims.as_int(d[j])
        n = max(0, min(ia, ib - off) if off > 0 else min(ia + off, ib)) if ia is not None and ib is not None else None
    rest = tuple(x for k, x in enumerate(d) if k not in (i, j))
    return array_of(call, Shape((*rest, n)), a.dtype)


def trace(call: Call, param: str = "a") -> Any:
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d = full_dims(a)
    i, j = int_const(call.arg("axis1")), int_const(call.arg("axis2"))
    if d is None or i is None or j is None or len(d) < 2:
        return array_of(call, None, a.dtype)
    i, j = i % len(d), j % len(d)
    return array_of(call, Shape(tuple(x for k, x in enumerate(d) if k not in (i, j))), a.dtype)


def diag(call: Call, param: str = "v") -> Any:
    """``diag(v, k=0)``: a vector gives a square matrix, a matrix its diagonal."""
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d, k = full_dims(a), int_const(call.arg("k"))
    if d is None or k is None:
        return array_of(call, None, a.dtype)
    if len(d) == 1:
        n = dims.add(d[0], abs(k))
        return array_of(call, Shape((n, n)), a.dtype)
    if len(d) == 2:
        if k == 0:
            return array_of(call, Shape((_min_dim(d[0], d[1]),)), a.dtype)
        return array_of(call, Shape((None,)), a.dtype)
    return UNKNOWN


@rule
def diff(call: Call, param: str = "a") -> Any:
    """``diff(a, n=1, axis=-1)``: the axis shrinks by ``n``."""
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    d, n, ax = full_dims(a), int_const(call.arg("n")), int_const(call.arg("axis"))
    if d is None or n is None or ax is None or call.given("prepend") or call.given("append"):
        return array_of(call, None, a.dtype)
    k = normalize(ax, len(d))
    out = list(d)
    out[k] = dims.sub(d[k], n)
    return array_of(call, Shape(tuple(out)), a.dtype)


def atleast(call: Call, n: int) -> Any:
    """``atleast_1d(*arys)``: one array back for one argument, a list for several."""
    values = call.arg("arys")
    if not isinstance(values, tuple) or not values:
        return UNKNOWN
    out = []
    for v in values:
        a = as_array(v)
        if a is None:
            return UNKNOWN
        d = full_dims(a)
        if d is None:
            out.append(array_of(call, None, a.dtype))
            continue
        if len(d) >= n:
            out.append(array_of(call, a.shape, a.dtype))
        elif n == 1:
            out.append(array_of(call, Shape((1,)), a.dtype))
        elif n == 2:
            out.append(array_of(call, Shape((1, 1) if not d else (1, d[0])), a.dtype))
        else:
            shape3 = {0: (1, 1, 1), 1: (1, d[0], 1) if d else (1, 1, 1), 2: (*d, 1)}[len(d)]
            out.append(array_of(call, Shape(tuple(shape3)), a.dtype))
    if len(out) == 1:
        return out[0]
    return Tuple(tuple(out)) if call.host else List(tuple(out))
