"""Creation: ``full``, ``*_like``, ``eye``/``identity``, ``arange`` (constant or symbolic
bounds), ``linspace``, ``array``/``asarray`` (a nested display gives its shape), and the
scalar types (``jnp.float32(x)``). ``create`` (``zeros``/``ones``/``empty``) is in ``rules``."""

from __future__ import annotations

import math
from typing import Any

from jaxlint.base.literals import UNKNOWN

from .. import dims
from ..abstract import FLOAT, INT, Array, Const, List, Scalar, Seq, Shape, Tuple, as_array, as_dim, constant
from ..dims import Dim
from . import Call
from .rules import (
    Fails,
    array_of,
    arrays,
    bool_const,
    broadcast,
    broadcast_shapes,
    dtype_of,
    full_dims,
    given_dtype,
    int_const,
    is_none,
    kind_only,
    normalize,
    promote,
    rule,
    shape_of,
    type_text,
)


@rule
def full(call: Call, shape: str = "shape", fill: str = "fill_value", dtype: str = "dtype") -> Any:
    """``full(shape, fill_value)``: the shape; the dtype is the fill value's unless given."""
    s = shape_of(call.arg(shape))
    f = as_array(call.arg(fill))
    dt = given_dtype(call, dtype) or (kind_only(f.dtype) if f is not None else None)
    if s is not None and f is not None and f.shape is not None:
        ok, _ = broadcast_shapes([f.shape, s])
        if not ok or (f.shape.rank is not None and f.shape.rank > len(s.dims)):
            raise Fails(
                "shape",
                f"Incompatible types for broadcasting: input type={type_text(f)} and requested type={type_text(f, s.dims)}",
            )
    return array_of(call, s, dt)


def like(call: Call, param: str = "a") -> Any:
    """``zeros_like(a, dtype=None, shape=None)`` and friends: ``a``'s shape and dtype
    unless ``shape``/``dtype`` say otherwise. Whatever ``a`` is, the result is an array
    (of unknown shape when ``a``'s is unknown): jax raises on anything not array-like."""
    a = as_array(call.arg(param))
    s = shape_of(call.arg("shape")) if not is_none(call.arg("shape")) else None
    dt = given_dtype(call)
    if a is None:
        return array_of(call, s, dt)
    return array_of(call, s if s is not None else a.shape, dt or a.dtype)


def eye(call: Call, n: str = "N", m: str = "M") -> Any:
    """``eye(N, M=None)``; ``identity(n)`` (no ``M``): square."""
    rows = as_dim(call.arg(n))
    mv = call.arg(m) if call.sig.param(m) is not None else Const(None)
    cols = rows if is_none(mv) else as_dim(mv)
    return array_of(call, Shape((rows, cols)), given_dtype(call) or FLOAT)


def _range_length(start: Any, stop: Any, step: Any) -> Dim:
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (start, stop, step)):
        if step == 0:
            return None
        length: int = math.ceil((stop - start) / step)
        return max(0, length)
    return None


def arange(call: Call) -> Any:
    """``arange(start, stop=None, step=None)``: its length from constant or symbolic
    bounds (``arange(n)``: ``n``; ``arange(a, b)``: ``b - a``, the bounds in order)."""
    names = [p.name for p in call.sig.positional]
    start_v = call.arg(names[0])
    stop_v, step_v = call.arg("stop"), call.arg("step")
    values = [start_v, stop_v, step_v]
    if any(type(v) is Array for v in values):
        return UNKNOWN  # not a static bound: jax raises under a trace, numpy gives a size we do not know
    dt = given_dtype(call)
    floats = [
        v for v in values if (type(v) is Const and type(v.value) is float) or (type(v) is Scalar and v.kind == "float")
    ]
    if dt is None:
        dt = FLOAT if floats else INT
    lo, hi = (Const(0), start_v) if is_none(stop_v) else (start_v, stop_v)
    step = Const(1) if is_none(step_v) else step_v
    cs = [constant(v) for v in (lo, hi, step)]
    if all(c is not UNKNOWN for c in cs):
        return array_of(call, Shape((_range_length(*cs),)), dt)
    if constant(step) == 1 and not floats:
        return array_of(call, Shape((dims.sub(as_dim(hi), as_dim(lo)),)), dt)
    return array_of(call, Shape((None,)), dt)


@rule
def linspace(call: Call) -> Any:
    """``linspace(start, stop, num=50, endpoint, retstep, dtype, axis)``: ``num`` samples
    along ``axis`` of the broadcast of ``start`` and ``stop``."""
    num = as_dim(call.arg("num"))
    ends = arrays(call, ("start", "stop"))
    dt = given_dtype(call) or FLOAT
    if ends is None:
        return UNKNOWN
    base = broadcast(ends)
    if base is None:
        out = array_of(call, None, dt)
    else:
        axis = int_const(call.arg("axis")) if call.sig.param("axis") is not None else 0
        if axis is None:
            out = array_of(call, None, dt)
        else:
            rank = len(base.dims) + 1
            k = normalize(axis, rank)
            d = list(base.dims)
            d.insert(k, num)
            out = array_of(call, Shape(tuple(d)), dt)
    if call.sig.param("retstep") is not None and bool_const(call.arg("retstep")) is True:
        return Tuple((out, array_of(call, base, dt)))
    return out


def nested_shape(v: Any) -> tuple[tuple[Dim, ...], list[Array]] | None:
    """The shape a nested display of numbers or arrays gives (also a comprehension's list
    of items alike), with its leaves; None when ragged or not known."""
    if type(v) in (Tuple, List):
        if not v.items:
            return (0,), []
        subs = [nested_shape(x) for x in v.items]
        if any(s is None for s in subs):
            return None
        first = subs[0]
        assert first is not None
        leaves: list[Array] = []
        for s in subs:
            assert s is not None
            if len(s[0]) != len(first[0]) or any(not dims.equal(a, b) for a, b in zip(s[0], first[0], strict=True)):
                return None
            leaves += s[1]
        return (len(v.items), *first[0]), leaves
    if type(v) is Seq:  # ``[features(s) for s in shots]``: ``length`` items, each what ``item`` is
        sub = nested_shape(v.item)
        return ((v.length, *sub[0]), sub[1]) if sub is not None else None
    a = as_array(v)
    if a is None:
        return None
    d = full_dims(a)
    if d is None:
        return None
    return d, [a]


def array(call: Call, param: str = "object") -> Any:
    """``array(object, dtype=None)``: an array keeps its shape; a nested display of
    numbers (or of arrays of one shape) gives the nesting's shape."""
    v = call.arg(param)
    dt = given_dtype(call)
    a = as_array(v)
    if a is not None:
        dtype = dt or (a.dtype if type(v) is Array else kind_only(a.dtype))
        return array_of(call, a.shape, dtype)
    found = nested_shape(v)
    if found is None:
        return UNKNOWN
    shape, leaves = found
    kinds = [x.dtype for x in leaves]
    dtype = dt or (kind_only(promote(kinds)) if leaves else FLOAT)
    return array_of(call, Shape(shape), dtype)


def scalar_type(call: Call, name: str) -> Any:
    """``jnp.float32(x)``: ``x`` as an array of that dtype."""
    args = [v for p in call.sig.positional for v in [call.arg(p.name)] if v is not UNKNOWN]
    v = args[0] if args else Const(0)
    found = nested_shape(v)
    shape = Shape(found[0]) if found is not None else None
    return array_of(call, shape, dtype_of(Const(name)))
