"""Rules of single ``jax.numpy``/``numpy`` functions that no family shares: ``clip``,
``divmod``, ``shape``/``ndim``/``size`` (Python values), ``np.prod`` of a shape (a size),
``sort``, ``unique``, ``delete``/``insert``/``append``, ``select``, ``tri`` and friends."""

from __future__ import annotations

from typing import Any

from jaxlint.base.literals import UNKNOWN

from .. import dims
from ..abstract import BOOL, FLOAT, INT, Const, List, Scalar, Seq, Shape, Tuple, as_array, as_dim, int_value
from . import Call
from . import joining as jn
from . import reductions as red
from .primitives import convert
from .rules import (
    array_of,
    axes_of,
    bool_const,
    broadcast,
    dims_of_value,
    full_dims,
    given_dtype,
    inexact,
    int_const,
    is_none,
    normalize,
    positional,
    promote,
    rule,
    shape_tuple,
    size_value,
    ufunc,
)


def _same(d: Any) -> Any:
    return d


@rule
def clip(call: Call) -> Any:
    """``clip(arr, min, max)`` (NumPy also ``a_min``/``a_max``): the broadcast of the three."""
    values = positional(call)
    if not values:
        return UNKNOWN
    parts = [values[0]]
    for name in ("min", "max", "a_min", "a_max"):
        if call.sig.param(name) is not None and not is_none(call.arg(name)):
            parts.append(call.arg(name))
    arrays = [as_array(v) for v in parts]
    if any(a is None for a in arrays):
        return UNKNOWN
    known = [a for a in arrays if a is not None]
    return array_of(call, broadcast(known), known[0].dtype)


@rule
def divmod_(call: Call) -> Any:
    """``divmod(x1, x2)``: (the quotient, the remainder), both broadcast."""
    out = ufunc(call, nin=2)
    return Tuple((out, out)) if out is not UNKNOWN else UNKNOWN


def shape(call: Call, param: str = "a") -> Any:
    """``shape(a)``: the Python tuple of its sizes (whatever it is given, a tuple of ints)."""
    a = as_array(call.arg(param))
    d = full_dims(a) if a is not None else None
    return shape_tuple(d) if d is not None else Seq(None, Scalar("int"))


def ndim(call: Call, param: str = "a") -> Any:
    a = as_array(call.arg(param))
    r = a.rank if a is not None else None
    return Const(r) if r is not None else Scalar("int")


def size(call: Call, param: str = "a") -> Any:
    """``size(a, axis=None)``: the product of the sizes, or one of them."""
    a = as_array(call.arg(param))
    d = full_dims(a) if a is not None else None
    if d is None:
        return Scalar("int")
    ax = call.arg("axis") if call.sig.param("axis") is not None else Const(None)
    if is_none(ax):
        return size_value(dims.product(d))
    k = int_const(ax)
    return size_value(d[k]) if k is not None and -len(d) <= k < len(d) else Scalar("int")


def host_prod(call: Call) -> Any:
    """``np.prod(x.shape)``: the product of a tuple of sizes is a size (a NumPy int)."""
    v = call.arg("a")
    if type(v) is Tuple and is_none(call.arg("axis")) and not call.given("dtype"):
        sizes = [as_dim(x) for x in v.items]
        if all(type(x) is Const or (type(x) is Scalar and x.kind == "int") for x in v.items):
            total = dims.product(sizes)
            return int_value(total) if total is not None else Scalar("int")
    return red.reduction(call, "a", red.summed)


def array_equal(call: Call) -> Any:
    """``array_equal``/``allclose``: a Python bool in NumPy, a rank-0 bool array in jax."""
    return Scalar("bool") if call.host else array_of(call, Shape(()), BOOL)


def astype(call: Call, param: str = "x") -> Any:
    return convert(call, param, "dtype")


def unique(call: Call) -> Any:
    """``unique(ar, size=None)``: the distinct values, flattened; a tuple with ``return_*``."""
    a = as_array(call.arg("ar"))
    if a is None or any(call.arg(f) != Const(False) for f in ("return_index", "return_inverse", "return_counts")):
        return UNKNOWN
    n = None
    if call.sig.param("size") is not None and not is_none(call.arg("size")):
        n = as_dim(call.arg("size"))
    if call.arg("axis") != Const(None):
        return array_of(call, None, a.dtype)
    return array_of(call, Shape((n,)), a.dtype)


def sort(call: Call, result: Any = None) -> Any:
    """``sort(a, axis=-1)``/``argsort``: the shape (flattened for ``axis=None``)."""
    return red.cumulative(call, "a", "axis", result or _same)


@rule
def delete(call: Call) -> Any:
    """``delete(arr, obj, axis=None)``/``insert``/``append``: the axis gets a size the
    indices decide (the flattened array without an axis)."""
    values = positional(call)
    a = as_array(values[0]) if values else None
    if a is None:
        return UNKNOWN
    d = full_dims(a)
    ax = call.arg("axis")
    if is_none(ax) or d is None:
        return array_of(call, Shape((None,)) if is_none(ax) else None, a.dtype)
    k = int_const(ax)
    if k is None:
        return array_of(call, None, a.dtype)
    k = normalize(k, len(d))
    return array_of(call, Shape(tuple(None if i == k else x for i, x in enumerate(d))), a.dtype)


@rule
def append(call: Call) -> Any:
    """``append(arr, values, axis=None)``: ``concatenate((arr, values), axis)``, flattened
    without an axis."""
    a, v = as_array(call.arg("arr")), as_array(call.arg("values"))
    if a is None or v is None:
        return UNKNOWN
    ax = call.arg("axis")
    if is_none(ax):
        da, dv = full_dims(a), full_dims(v)
        total = dims.add(dims.product(da), dims.product(dv)) if da is not None and dv is not None else None
        return array_of(call, Shape((total,)), promote([a.dtype, v.dtype]))
    k = int_const(ax)
    return jn.joined(call, [a, v], k) if k is not None else array_of(call, None, promote([a.dtype, v.dtype]))


def searchsorted(call: Call) -> Any:
    v = as_array(call.arg("v"))
    return array_of(call, v.shape, INT) if v is not None else UNKNOWN


def bincount(call: Call) -> Any:
    n = call.arg("length") if call.sig.param("length") is not None else Const(None)
    size_ = None if is_none(n) else as_dim(n)
    return array_of(call, Shape((size_,)), INT)


@rule
def gradient(call: Call) -> Any:
    """``gradient(f, *varargs, axis=None)``: the derivative along each axis, shaped like
    ``f`` with an inexact dtype; one array when there is one axis (``f`` of rank 1, an int
    ``axis`` or a 1-tuple), else one per axis (JAX: in a list, NumPy: a tuple)."""
    f = as_array(call.arg("f"))
    if f is None or f.rank is None or f.rank == 0:
        return UNKNOWN
    axes = axes_of(call.arg("axis"))
    if axes is None:
        return UNKNOWN
    n = f.rank if axes == "all" else len(axes)
    one = array_of(call, f.shape, inexact(f.dtype))
    if n == 1:
        return one
    return (Tuple if call.host else List)(tuple(one for _ in range(n)))


@rule
def convolve(call: Call) -> Any:
    """``convolve(a, v, mode)`` / ``correlate(a, v, mode)`` of two vectors of sizes ``M``
    and ``N``: ``M + N - 1`` ("full"), ``max(M, N)`` ("same"), ``max(M, N) - min(M, N) + 1``
    ("valid"); an empty operand raises."""
    a, v = as_array(call.arg("a")), as_array(call.arg("v"))
    mode = call.arg("mode")
    if a is None or v is None or a.rank != 1 or v.rank != 1 or type(mode) is not Const:
        return UNKNOWN
    m, n = dims.as_int(a.shape.dims[0]), dims.as_int(v.shape.dims[0])  # type: ignore[union-attr]
    if m is None or n is None or m == 0 or n == 0:
        return UNKNOWN
    sizes = {"full": m + n - 1, "same": max(m, n), "valid": max(m, n) - min(m, n) + 1}
    if mode.value not in sizes:
        return UNKNOWN
    return array_of(call, Shape((sizes[mode.value],)), promote([a.dtype, v.dtype]))


def interp(call: Call) -> Any:
    x = as_array(call.arg("x"))
    return array_of(call, x.shape, inexact(x.dtype)) if x is not None else UNKNOWN


def cov(call: Call, param: str = "m") -> Any:
    """``cov(m, rowvar=True)`` (and ``corrcoef``): one row or column per variable, an
    ``(M, M)`` matrix of them, squeezed: a scalar for one variable. Without ``y``, of a
    rank-1 or rank-2 ``m`` whose number of variables is a known int."""
    m = as_array(call.arg(param))
    rowvar = bool_const(call.arg("rowvar")) if call.given("rowvar") else True
    d = full_dims(m)
    if m is None or d is None or rowvar is None or not is_none(call.arg("y")) or len(d) > 2:
        return UNKNOWN
    dtype = given_dtype(call) or inexact(m.dtype)
    n = 1 if len(d) < 2 else d[0] if rowvar else d[1]
    if not isinstance(n, int) or isinstance(n, bool):
        return array_of(call, None, dtype)  # squeezed to a scalar should the size be 1
    return array_of(call, Shape(() if n == 1 else (n, n)), dtype)


def polyval(call: Call) -> Any:
    p, x = as_array(call.arg("p")), as_array(call.arg("x"))
    if p is None or x is None or p.rank != 1:
        return UNKNOWN
    return array_of(call, x.shape, inexact(x.dtype) if x.dtype and x.dtype.kind != "int" else x.dtype)


@rule
def select(call: Call) -> Any:
    """``select(condlist, choicelist, default=0)``: the broadcast of every condition and choice."""
    conds, choices = jn.sequence(call.arg("condlist")), jn.sequence(call.arg("choicelist"))
    if conds is None or choices is None or not choices:
        return UNKNOWN
    return array_of(call, broadcast([*conds, *choices]), choices[0].dtype)


def piecewise(call: Call) -> Any:
    x = as_array(call.arg("x"))
    return array_of(call, x.shape, x.dtype) if x is not None else UNKNOWN


def tri(call: Call) -> Any:
    n = as_dim(call.arg("N"))
    m = call.arg("M")
    return array_of(call, Shape((n, n if is_none(m) else as_dim(m))), given_dtype(call) or FLOAT)


def tri_indices(call: Call) -> Any:
    """``tril_indices(n, k=0, m=None)``: two index arrays of the triangle's size."""
    n, k = int_const(call.arg("n")), int_const(call.arg("k"))
    m = call.arg("m")
    mi = n if is_none(m) else int_const(m)
    count = None
    if n is not None and k is not None and mi is not None:
        upper = call.name.startswith("triu")
        count = sum(1 for i in range(n) for j in range(mi) if (j - i >= k if upper else j - i <= k))
    return Tuple((array_of(call, Shape((count,)), INT), array_of(call, Shape((count,)), INT)))


def indices(call: Call) -> Any:
    d = dims_of_value(call.arg("dimensions"))
    if d is None:
        return UNKNOWN
    return array_of(call, Shape((len(d), *d)), INT)


def unravel_index(call: Call) -> Any:
    i = as_array(call.arg("indices"))
    d = dims_of_value(call.arg("shape"))
    if i is None or d is None:
        return UNKNOWN
    return Tuple(tuple(array_of(call, i.shape, INT) for _ in d))


def same_shape(call: Call) -> Any:
    """The first operand's shape and dtype (``flip``, ``roll``, ``tril``, ``copy``)."""
    values = positional(call)
    a = as_array(values[0]) if values else None
    return array_of(call, a.shape, a.dtype) if a is not None else UNKNOWN
