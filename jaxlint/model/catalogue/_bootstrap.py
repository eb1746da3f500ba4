"""Temporary entries the evaluator is developed against, until the full catalogue lands."""

from __future__ import annotations

from functools import partial
from typing import Any

from jaxlint.base.literals import UNKNOWN

from .. import dims
from ..abstract import FLOAT, KEY, RAW_KEY, Array, Const, List, Shape, Tuple, as_array, as_dim
from ..signature import Signature
from . import Call, Op, register
from .rules import array_of, create, elementwise, shape_of

NONE = Const(None)


def _array(call: Call) -> Any:
    v = call.arg("object")
    a = as_array(v)
    if a is not None:
        return array_of(call, a.shape, a.dtype)
    if type(v) in (Tuple, List):
        items = [as_array(x) for x in v.items]
        if items and all(x is not None and x.shape == items[0].shape for x in items):
            inner = items[0].shape
            if inner is not None:
                return array_of(call, Shape((len(items), *inner.dims)), items[0].dtype)
        rows = list(v.items)
        if rows and all(type(r) in (Tuple, List) for r in rows):
            lens = {len(r.items) for r in rows}
            if len(lens) == 1:
                return array_of(call, Shape((len(rows), lens.pop())), FLOAT)
        return array_of(call, None, None)
    return UNKNOWN


def _draw(call: Call) -> Any:
    s = shape_of(call.arg("shape")) if call.given("shape") else Shape(())
    return Array(s, FLOAT)


def _split(call: Call) -> Any:
    key = as_array(call.arg("key"))
    n = as_dim(call.arg("num"))
    if key is not None and key.dtype == KEY:
        return Array(Shape((n,)), KEY)
    return Array(Shape((n, 2)), RAW_KEY)


def _reduce(call: Call) -> Any:
    a = as_array(call.arg("a"))
    if a is None or a.shape is None:
        return UNKNOWN
    axis = call.arg("axis")
    if axis == NONE:
        return array_of(call, Shape(()), a.dtype)
    if type(axis) is Const and isinstance(axis.value, int):
        n = len(a.shape.dims)
        k = axis.value + n if axis.value < 0 else axis.value
        if not 0 <= k < n:
            return call.problem("rank", f"axis {axis.value} is out of bounds for array of dimension {n}")
        return array_of(call, Shape(a.shape.dims[:k] + a.shape.dims[k + 1 :]), a.dtype)
    return UNKNOWN


def _matmul(call: Call, names: tuple[str, str] = ("a", "b"), dot: bool = False) -> Any:
    x, y = as_array(call.arg(names[0])), as_array(call.arg(names[1]))
    if x is None or y is None or x.shape is None or y.shape is None or x.shape.rest or y.shape.rest:
        return UNKNOWN
    sx, sy = x.shape.dims, y.shape.dims
    if not sx or not sy:
        if dot:
            call.problem("scalar-contraction", "dot of a rank-0 operand scales instead of contracting")
            return array_of(call, Shape(sx if sx else sy), FLOAT)
        return call.problem("scalar-contraction", "matmul input operand must have ndim at least 1, but it has ndim 0")
    kx = sx[-1]
    ky = sy[0] if len(sy) == 1 else sy[-2]
    if dims.different(kx, ky):
        return call.problem(
            "shape",
            f"dot_general requires contracting dimensions to have the same shape, got ({dims.text(kx)},) and ({dims.text(ky)},)",
        )
    if len(sx) == 1 and len(sy) == 1:
        return array_of(call, Shape(()), FLOAT)
    if len(sy) == 1:
        return array_of(call, Shape(sx[:-1]), FLOAT)
    if len(sx) == 1:
        return array_of(call, Shape(sy[:-2] + sy[-1:]), FLOAT)
    if len(sx) == 2 and len(sy) == 2:
        return array_of(call, Shape((sx[0], sy[1])), FLOAT)
    return array_of(call, None, FLOAT)


def _key(call: Call) -> Any:
    return Array(Shape((2,)), RAW_KEY)


_MODS = ("jax.numpy", "numpy")
register(
    {
        **{
            f"{m}.{f}": Op(Signature.of("object", "dtype", dtype=NONE), _array)
            for m in _MODS
            for f in ("array", "asarray")
        },
        **{
            f"jax.random.{f}": Op(Signature.of("key", "shape", "dtype", shape=Tuple(()), dtype=NONE), _draw, key="key")
            for f in ("normal", "uniform")
        },
        "jax.random.PRNGKey": Op(Signature.of("seed"), _key),
        "jax.random.key": Op(Signature.of("seed"), lambda c: Array(Shape(()), KEY)),
        "jax.random.split": Op(Signature.of("key", "num", num=Const(2)), _split, key="key"),
        **{
            f"{m}.{f}": Op(
                Signature.of(
                    "a", "axis", "dtype", "out", "keepdims", axis=NONE, dtype=NONE, out=NONE, keepdims=Const(False)
                ),
                _reduce,
            )
            for m in _MODS
            for f in ("sum", "mean")
        },
        **{f"{m}.matmul": Op(Signature.of("a", "b"), _matmul) for m in _MODS},
        **{f"{m}.dot": Op(Signature.of("a", "b"), partial(_matmul, dot=True)) for m in _MODS},
        **{
            f"jax.nn.{f}": Op(Signature.of("x"), partial(elementwise, param="x"))
            for f in ("relu", "gelu", "sigmoid", "softplus")
        },
        "jax.nn.softmax": Op(Signature.of("x", "axis", axis=Const(-1)), partial(elementwise, param="x")),
        **{f"{m}.sqrt": Op(Signature.of("x"), partial(elementwise, param="x", dtype=FLOAT)) for m in _MODS},
        **{
            f"{m}.{f}": Op(
                Signature.of("x", "y"),
                __import__("functools").partial(
                    __import__("jaxlint.model.catalogue.rules", fromlist=["nary"]).nary, params=("x", "y")
                ),
            )
            for m in _MODS
            for f in ("true_divide", "power", "floor_divide", "remainder")
        },
        "jax.Array.reshape": Op(Signature.of("self", "*shape"), lambda c: UNKNOWN),
        **{
            f"jax.Array.{f}": Op(
                Signature.of("self", "axis", axis=NONE),
                lambda c, f=f: _reduce(
                    Call(
                        c.qualified,
                        Signature.of("a", "axis", axis=NONE),
                        type(c.binding)({"a": c.arg("self"), "axis": c.arg("axis")}),
                        c.node,
                    )
                ),
            )
            for f in ("sum", "mean")
        },
    }
)
create  # noqa: B018  (kept for the import)
