"""``jax.random``: keys (``PRNGKey``: raw, uint32 ``(2,)``; ``key``: typed, shape ``()``),
``split``/``fold_in``/``key_data``/``wrap_key_data``, and the samplers (their ``shape``,
or the broadcast of their parameters when ``shape`` is None). Each sampler takes a
single key: a batch of keys raises (``jax.vmap`` is how to batch)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jaxlint.base.literals import UNKNOWN

from ..abstract import FLOAT, INT, KEY, UINT32, Array, DType, Shape, as_array
from ..abstract import RAW_KEY as RAW_KEY_DTYPE
from . import Call
from .rules import (
    Fails,
    array_of,
    broadcast,
    dims_of_value,
    full_dims,
    given_dtype,
    int_const,
    is_none,
    normalize,
    rule,
    shape_of,
)

RAW_KEY = Shape((2,))


def key_kind(a: Array) -> str | None:
    """ "typed", "raw" or None (not known)."""
    if a.dtype is not None and a.dtype.kind == "key":
        return "typed"
    if a.dtype is not None and a.dtype.kind == "uint":
        return "raw"
    return None


def single_key(call: Call, param: str = "key") -> Array | None:
    """The key argument; raises ``Fails`` for a batch of keys (JAX's message)."""
    k = as_array(call.arg(param))
    if k is None or k.shape is None or k.shape.rest:
        return k
    kind = key_kind(k)
    batch = k.shape.dims if kind == "typed" else (k.shape.dims[:-1] if kind == "raw" and k.shape.dims else None)
    if batch:
        raise Fails(
            "shape",
            f"{call.name} accepts a single key, but was given a key array of shape {k.shape} != (). "
            "Use jax.vmap for batching.",
        )
    return k


def prng_key(call: Call) -> Any:
    """``PRNGKey(seed)``: a raw key of the default implementation, uint32 ``(2,)``."""
    if not is_none(call.arg("impl")):
        return Array(None, DType("uint"))
    return Array(RAW_KEY, RAW_KEY_DTYPE)


def typed_key(call: Call) -> Any:
    return Array(Shape(()), KEY)


@rule
def split(call: Call) -> Any:
    """``split(key, num=2)``: raw keys ``(num, 2)`` uint32; typed ``(num,)``; unknown kind:
    ``num`` leading."""
    k = single_key(call)
    num = dims_of_value(call.arg("num"))
    if k is None or num is None:
        return UNKNOWN
    kind = key_kind(k)
    if kind == "typed":
        return Array(Shape(num), k.dtype)
    if kind == "raw":
        return Array(Shape((*num, 2)), RAW_KEY_DTYPE)
    return Array(Shape(num, rest=True), k.dtype)


@rule
def fold_in(call: Call) -> Any:
    k = single_key(call)
    if k is None:
        return UNKNOWN
    return Array(k.shape, k.dtype)


def key_data(call: Call) -> Any:
    """``key_data(keys)``: a typed key's uint32 words, ``keys.shape + (2,)``; a raw key as it is."""
    k = as_array(call.arg("keys"))
    if k is None:
        return UNKNOWN
    kind = key_kind(k)
    if kind == "raw":
        return Array(k.shape, UINT32)
    d = full_dims(k)
    if kind == "typed" and d is not None:
        return Array(Shape((*d, 2)), UINT32)
    return Array(None, UINT32)


def wrap_key_data(call: Call) -> Any:
    """``wrap_key_data(key_bits_array)``: typed keys of the shape before the last axis."""
    k = as_array(call.arg("key_bits_array"))
    if k is None:
        return UNKNOWN
    d = full_dims(k)
    if d is None or not d or not is_none(call.arg("impl")):
        return Array(None, KEY)
    return Array(Shape(d[:-1]), KEY)


def same_key(call: Call) -> Any:
    k = as_array(call.arg("key"))
    return Array(k.shape, k.dtype) if k is not None else UNKNOWN


@rule
def draw(
    call: Call,
    params: Sequence[str] = (),
    dtype: DType = FLOAT,
    shape: str = "shape",
    suffix: Sequence[str] = (),
    keep_dtype: str | None = None,
) -> Any:
    """A sampler: ``shape`` when given, else the broadcast of ``params``; ``suffix``:
    parameters whose last axis is appended (``dirichlet``'s ``alpha``)."""
    single_key(call)
    dt = given_dtype(call) or dtype
    if keep_dtype is not None:
        kd = as_array(call.arg(keep_dtype))
        if kd is not None and kd.dtype is not None and given_dtype(call) is None:
            dt = kd.dtype
    sv = call.arg(shape) if call.sig.param(shape) is not None else None
    tail: tuple[Any, ...] = ()
    for p in suffix:
        a = as_array(call.arg(p))
        d = full_dims(a) if a is not None else None
        if d is None or not d:
            return array_of(call, None, dt)
        tail += (d[-1],)
    values = [as_array(call.arg(p)) for p in params]
    if any(v is None for v in values):
        return array_of(call, None, dt)
    known = [v for v in values if v is not None]
    if sv is not None and not is_none(sv):
        if not call.given(shape) and any(v.rank != 0 for v in known):
            # ``shape=()`` by default with array parameters: jax's samplers disagree on
            # what that gives (a broadcast, a larger shape, an error): not modelled
            return array_of(call, None, dt)
        s = shape_of(sv)
        if s is None:
            return array_of(call, None, dt)
        return array_of(call, Shape((*s.dims, *tail)), dt)
    if suffix:
        known = [Array(Shape(v.shape.dims[:-1]) if v.shape is not None and v.shape.dims else None) for v in known]
    base = broadcast(known) if known else Shape(())
    if base is None:
        return array_of(call, None, dt)
    return array_of(call, Shape((*base.dims, *tail)), dt)


@rule
def categorical(call: Call) -> Any:
    """``categorical(key, logits, axis=-1, shape=None)``: ``logits`` without ``axis``, or ``shape``."""
    single_key(call)
    sv = call.arg("shape")
    if not is_none(sv):
        return array_of(call, shape_of(sv), INT)
    lg = as_array(call.arg("logits"))
    d = full_dims(lg) if lg is not None else None
    ax = int_const(call.arg("axis"))
    if d is None or ax is None:
        return array_of(call, None, INT)
    k = normalize(ax, len(d))
    return array_of(call, Shape(tuple(x for i, x in enumerate(d) if i != k)), INT)


@rule
def choice(call: Call) -> Any:
    """``choice(key, a, shape=(), replace=True, p=None, axis=0)``: an int ``a`` draws ints;
    an array ``a`` draws its slices along ``axis``."""
    single_key(call)
    s = shape_of(call.arg("shape"))
    av = call.arg("a")
    n = int_const(av)
    arr = as_array(av)
    if n is not None or (arr is not None and arr.rank == 0):
        return array_of(call, s, INT)
    a = as_array(av)
    d = full_dims(a) if a is not None else None
    ax = int_const(call.arg("axis"))
    if a is None or d is None or s is None or ax is None:
        return array_of(call, None, a.dtype if a is not None else None)
    k = normalize(ax, len(d))
    return array_of(call, Shape((*d[:k], *s.dims, *d[k + 1 :])), a.dtype)


@rule
def permutation(call: Call) -> Any:
    """``permutation(key, x, axis=0)``: an int ``x`` gives ``arange(x)`` shuffled."""
    single_key(call)
    xv = call.arg("x")
    n = dims_of_value(xv) if type(xv) is not Array else None
    if n is not None and len(n) == 1:
        return array_of(call, Shape(n), INT)
    a = as_array(xv)
    if a is None:
        return UNKNOWN
    return array_of(call, a.shape, a.dtype)


@rule
def orthogonal(call: Call) -> Any:
    """``orthogonal(key, n, shape=())``: ``shape + (n, n)``."""
    single_key(call)
    s, n = shape_of(call.arg("shape")), dims_of_value(call.arg("n"))
    if s is None or n is None or len(n) != 1:
        return array_of(call, None, FLOAT)
    return array_of(call, Shape((*s.dims, n[0], n[0])), given_dtype(call) or FLOAT)


@rule
def ball(call: Call) -> Any:
    """``ball(key, d, p=2, shape=())``: ``shape + (d,)``."""
    single_key(call)
    s, d = shape_of(call.arg("shape")), dims_of_value(call.arg("d"))
    if s is None or d is None or len(d) != 1:
        return array_of(call, None, FLOAT)
    return array_of(call, Shape((*s.dims, d[0])), given_dtype(call) or FLOAT)


@rule
def multinomial(call: Call) -> Any:
    """``multinomial(key, n, p, shape=None)``: ``shape`` (the whole result's), or the
    broadcast of ``n`` with ``p``'s batch axes, then ``p``'s last axis."""
    single_key(call)
    p = as_array(call.arg("p"))
    d = full_dims(p) if p is not None else None
    dt = given_dtype(call) or FLOAT
    if d is None or not d:
        return array_of(call, None, dt)
    sv = call.arg("shape")
    if not is_none(sv):
        return array_of(call, shape_of(sv), dt)
    n = as_array(call.arg("n"))
    if n is None:
        return array_of(call, None, dt)
    base = broadcast([n, Array(Shape(d[:-1]))])
    return array_of(call, Shape((*base.dims, d[-1])) if base is not None else None, dt)


@rule
def bits(call: Call) -> Any:
    single_key(call)
    s = shape_of(call.arg("shape"))
    return array_of(call, s, given_dtype(call) or DType("uint"))
