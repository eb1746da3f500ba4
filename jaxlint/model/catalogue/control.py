"""``lax`` control flow and collectives.

Control flow calls its function arguments through ``Call.call`` on the abstract operands:
``cond``/``switch`` give the join of their branches, ``fori_loop``/``while_loop`` the join
of the initial carry and one body step (the initial carry's type where that is not known),
``scan`` that carry and the per-step outputs stacked on a leading axis of the scanned length, ``map`` the stacked outputs.
Collectives keep the shape of each leaf (``psum`` of a pytree is that pytree), but
``all_gather`` adds an axis of the mapped size (``Call.axis_size``: known when the
evaluator knows the map the call runs under, else None), and ``psum_scatter``/
``all_to_all`` change one.
"""

from __future__ import annotations

from typing import Any

from jaxlint.base.literals import UNKNOWN

from .. import dims
from ..abstract import INT, Array, List, Scalar, Shape, Tuple, as_array, as_dim, int_value, join, join_all, leaves
from ..dims import Dim
from . import Call
from .rules import bool_const, full_dims, int_const, is_none, normalize, rule
from .trees import rebuild


def cond(call: Call) -> Any:
    """``cond(pred, true_fun, false_fun, *operands)``: what both branches agree on."""
    ops = call.arg("operands")
    args = list(ops) if isinstance(ops, tuple) else None
    if args is None or call.given("operand"):
        return UNKNOWN
    return join(call.call(call.arg("true_fun"), args), call.call(call.arg("false_fun"), args))


def switch(call: Call) -> Any:
    ops, branches = call.arg("operands"), call.arg("branches")
    if not isinstance(ops, tuple) or type(branches) not in (Tuple, List) or call.given("operand"):
        return UNKNOWN
    return join_all([call.call(b, list(ops)) for b in branches.items])


def fori_loop(call: Call) -> Any:
    """``fori_loop(lower, upper, body_fun, init_val)``: the carry ``body_fun(i, carry)`` keeps."""
    init = call.arg("init_val")
    out = call.call(call.arg("body_fun"), [Array(Shape(()), INT), init])
    return carried(init, out)


def while_loop(call: Call) -> Any:
    """``while_loop(cond_fun, body_fun, init_val)``: the carry ``body_fun`` keeps (``cond_fun``
    runs on it too: what fails there fails the loop)."""
    init = call.arg("init_val")
    call.call(call.arg("cond_fun"), [init])
    return carried(init, call.call(call.arg("body_fun"), [init]))


def carried(init: Any, out: Any) -> Any:
    """What a loop's carry holds after the loop: what the initial carry and one step's
    result agree on, item by item of a tuple or list; where that is not known, the initial
    carry's type (JAX requires the body to return a carry of the same structure, shapes and
    dtypes: it raises otherwise), every leaf an array (a Python number becomes a rank-0
    array)."""
    t = type(init)
    if t is type(out) and t in (Tuple, List) and len(init.items) == len(out.items):
        return t(tuple(carried(a, b) for a, b in zip(init.items, out.items, strict=True)))
    agreed = join(init, out)
    if agreed is not UNKNOWN and not _partly_unknown(agreed):
        return agreed
    return rebuild(init, lambda path, leaf: _as_result(leaf))


def _partly_unknown(tree: Any) -> bool:
    return any(leaf is UNKNOWN for _, leaf in leaves(tree))


def _leading(tree: Any) -> tuple[Dim, bool]:
    """The leading size the leaves of ``tree`` share (None when not known) and whether every leaf has one."""
    sizes = []
    for _, leaf in leaves(tree):
        a = as_array(leaf)
        if a is None or a.shape is None or not a.shape.dims:
            return None, False
        sizes.append(a.shape.dims[0])
    if not sizes or not all(dims.equal(s, sizes[0]) for s in sizes):
        return None, bool(sizes)
    return sizes[0], True


def _slice(tree: Any) -> Any:
    def one(path: tuple[Any, ...], leaf: Any) -> Any:
        a = as_array(leaf)
        if a is None or (a.shape is not None and not a.shape.dims):
            return UNKNOWN
        if a.shape is None:
            return Array(None, a.dtype, a.host)
        return Array(Shape(a.shape.dims[1:], a.shape.rest), a.dtype, a.host)

    return rebuild(tree, one)


def stacked(tree: Any, n: Dim) -> Any:
    """``tree`` with a new leading axis of size ``n`` on every array leaf (a device array)."""

    def one(path: tuple[Any, ...], leaf: Any) -> Any:
        a = as_array(leaf)
        if a is None:
            return UNKNOWN
        if a.shape is None:
            return Array(Shape((n,), True), a.dtype)
        return Array(Shape((n, *a.shape.dims), a.shape.rest), a.dtype)

    return rebuild(tree, one)


def scan(call: Call) -> Any:
    """``scan(f, init, xs=None, length=None)``: ``(carry, ys)`` with ``ys`` stacked on a
    leading axis of ``length`` (or the leading size of ``xs``)."""
    init, xs = call.arg("init"), call.arg("xs")
    length: Dim = as_dim(call.arg("length")) if not is_none(call.arg("length")) else None
    if is_none(xs):
        x = xs
    else:
        lead, _ = _leading(xs)
        length = length if length is not None else lead
        x = _slice(xs)
    out = call.call(call.arg("f"), [init, x])
    if type(out) is not Tuple or len(out.items) != 2:
        return UNKNOWN
    carry, ys = out.items
    return Tuple((carried(init, carry), stacked(ys, length)))


def lax_map(call: Call) -> Any:
    xs = call.arg("xs")
    lead, _ = _leading(xs)
    return stacked(call.call(call.arg("f"), [_slice(xs)]), lead)


def associative_scan(call: Call) -> Any:
    return call.arg("elems")


def collective(call: Call) -> Any:
    """``psum(x, axis_name)`` and friends: ``x`` as it is, leaf by leaf (a Python number
    becomes a rank-0 array)."""
    return rebuild(call.arg("x"), lambda path, leaf: _as_result(leaf))


def _as_result(leaf: Any) -> Any:
    a = as_array(leaf)
    return Array(a.shape, a.dtype) if a is not None else UNKNOWN


@rule
def all_gather(call: Call) -> Any:
    """``all_gather(x, axis_name, axis=0, tiled=False)``: a new axis of the mapped size
    (unknown here) at ``axis``; ``tiled``: that axis multiplied instead."""
    tiled = bool_const(call.arg("tiled"))
    ax = int_const(call.arg("axis"))
    n = call.axis_size(call.arg("axis_name"))

    def one(path: tuple[Any, ...], leaf: Any) -> Any:
        a = as_array(leaf)
        if a is None:
            return UNKNOWN
        d = full_dims(a)
        if d is None or ax is None or tiled is None:
            return Array(None, a.dtype)
        out = list(d)
        if tiled:
            k = normalize(ax, len(d))
            out[k] = dims.mul(d[k], n)
        else:
            out.insert(normalize(ax, len(d) + 1), n)
        return Array(Shape(tuple(out)), a.dtype)

    return rebuild(call.arg("x"), one)


@rule
def psum_scatter(call: Call) -> Any:
    a = as_array(call.arg("x"))
    if a is None:
        return UNKNOWN
    d, ax = full_dims(a), int_const(call.arg("scatter_dimension"))
    tiled = bool_const(call.arg("tiled"))
    if d is None or ax is None or tiled is None:
        return Array(None, a.dtype)
    k = normalize(ax, len(d))
    out = list(d)
    if tiled:
        out[k] = dims.exact_div(d[k], call.axis_size(call.arg("axis_name")))
    else:
        del out[k]
    return Array(Shape(tuple(out)), a.dtype)


def all_to_all(call: Call) -> Any:
    a = as_array(call.arg("x"))
    if a is None:
        return UNKNOWN
    d = full_dims(a)
    s, c = int_const(call.arg("split_axis")), int_const(call.arg("concat_axis"))
    if d is None or s is None or c is None:
        return Array(None, a.dtype)
    out: list[Dim] = list(d)
    out[s % len(d)] = None
    out[c % len(d)] = None
    return Array(Shape(tuple(out)), a.dtype)


def axis_index(call: Call) -> Any:
    return Array(Shape(()), INT)


def axis_size(call: Call) -> Any:
    n = call.axis_size(call.arg("axis_name"))
    return int_value(n) if n is not None else Scalar("int")
