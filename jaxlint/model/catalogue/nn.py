"""``jax.nn``: activations keep the shape; ``softmax``/``log_softmax``/``standardize``
over ``axis``; ``glu`` halves it; ``one_hot`` adds an axis of ``num_classes``;
``logsumexp`` reduces; ``dot_product_attention`` gives the query's shape with the value's
last size; the ``initializers`` factories give an initializer (called with a key and a
shape, it makes an array of that shape)."""

from __future__ import annotations

from typing import Any

from jaxlint.base.literals import UNKNOWN

from .. import dims
from ..abstract import FLOAT, Array, Const, External, Shape, Tuple, as_array, as_dim
from . import Call, register
from . import reductions as red
from .build import Entries, family
from .rules import Fails, array_of, create, full_dims, given_dtype, inexact, int_const, ints, normalize, rule, ufunc

NN = ("jax.nn",)
INIT = ("jax.nn.initializers",)
INITIALIZER = External("jax.nn.initializers.Initializer.__call__")

ACTIVATIONS = [
    "relu",
    "relu6",
    "sigmoid",
    "softplus",
    "log_sigmoid",
    "silu",
    "swish",
    "gelu",
    "elu",
    "celu",
    "selu",
    "leaky_relu",
    "hard_tanh",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "tanh",
    "mish",
    "squareplus",
    "sparse_plus",
    "sparse_sigmoid",
    "soft_sign",
    "log1mexp",
    "identity",
]


@rule
def along_axis(call: Call) -> Any:
    """``softmax(x, axis=-1)``: the shape, once the axis is checked."""
    a = as_array(call.arg("x"))
    if a is None:
        return UNKNOWN
    d = full_dims(a)
    ax = call.arg("axis")
    if d is not None:
        for axis in ints(ax) or ():
            normalize(axis, len(d))
    return array_of(call, a.shape, inexact(a.dtype))


@rule
def glu(call: Call) -> Any:
    a = as_array(call.arg("x"))
    if a is None:
        return UNKNOWN
    d, ax = full_dims(a), int_const(call.arg("axis"))
    if d is None or ax is None:
        return array_of(call, None, a.dtype)
    k = normalize(ax, len(d))
    out = list(d)
    n = dims.as_int(d[k])
    if n is not None and n % 2:
        raise Fails("shape", "axis size must be divisible by 2")
    out[k] = dims.exact_div(d[k], 2)
    return array_of(call, Shape(tuple(out)), a.dtype)


@rule
def one_hot(call: Call) -> Any:
    """``one_hot(x, num_classes, axis=-1)``: a new axis of ``num_classes``, floats by default."""
    a = as_array(call.arg("x"))
    if a is None:
        return UNKNOWN
    n = as_dim(call.arg("num_classes"))
    d, ax = full_dims(a), int_const(call.arg("axis"))
    dt = given_dtype(call) or FLOAT
    if d is None or ax is None:
        return array_of(call, None, dt)
    out = list(d)
    out.insert(normalize(ax, len(d) + 1), n)
    return array_of(call, Shape(tuple(out)), dt)


def logsumexp(call: Call) -> Any:
    out = red.reduction(call, "a", inexact)
    if call.arg("return_sign") == Const(True):
        return Tuple((out, out)) if type(out) is Array else UNKNOWN
    return out


def attention(call: Call) -> Any:
    q, v = as_array(call.arg("query")), as_array(call.arg("value"))
    if q is None or v is None:
        return UNKNOWN
    dq, dv = full_dims(q), full_dims(v)
    if dq is None or dv is None or not dq or not dv:
        return array_of(call, None, q.dtype)
    return array_of(call, Shape((*dq[:-1], dv[-1])), q.dtype)


def initializer(call: Call) -> Any:
    return INITIALIZER


TABLE: Entries = {
    **family(NN, ACTIVATIONS, ufunc, nin=1, result=inexact),
    **family(NN, ["softmax", "log_softmax", "standardize"], along_axis, static=("axis",)),
    **family(NN, ["glu"], glu, static=("axis",)),
    **family(NN, ["one_hot"], one_hot, static=("num_classes", "dtype", "axis")),
    **family(NN, ["logsumexp"], logsumexp, static=("axis", "keepdims", "return_sign")),
    **family(NN, ["logmeanexp"], red.moment, param="x", static=("axis", "keepdims")),
    **family(NN, ["dot_product_attention"], attention, static=("is_causal", "implementation")),
    **family(
        INIT,
        [
            "constant",
            "delta_orthogonal",
            "glorot_normal",
            "glorot_uniform",
            "he_normal",
            "he_uniform",
            "kaiming_normal",
            "kaiming_uniform",
            "lecun_normal",
            "lecun_uniform",
            "normal",
            "orthogonal",
            "truncated_normal",
            "uniform",
            "variance_scaling",
            "xavier_normal",
            "xavier_uniform",
        ],
        initializer,
    ),
    **family(INIT, ["Initializer.__call__"], create, key="key", static=("shape", "dtype")),
    **family(INIT, ["zeros", "ones"], create, static=("shape", "dtype")),  # the key is not used
}

register(TABLE)
