"""Methods and attributes of arrays, keyed ``jax.Array.<name>`` and ``numpy.ndarray.<name>``
(the evaluator binds the array to ``self``; ``Op.attribute`` marks ``x.T``, ``x.shape``, ...).
``x[idx]`` is ``__getitem__``; ``x.at[idx].set(v)`` is ``jax.Array.at.set`` with ``self``
the ``indexing.IndexRef`` of ``x.at[idx]``."""

from __future__ import annotations

from typing import Any

from jaxlint.base.literals import UNKNOWN

from ..abstract import INT, Const, Scalar, ScalarKind, as_array
from . import Call, register
from . import contractions as c
from . import indexing as ix
from . import reductions as red
from . import shaping as sh
from .build import Entries, family
from .rules import constant_result, opaque, real_of, ufunc
from .singles import astype, clip, ndim, searchsorted, shape, size

BOTH = ("jax.Array", "numpy.ndarray")
JAX = ("jax.Array",)
HOST = ("numpy.ndarray",)
AXIS = ("axis", "keepdims", "dtype")


def item(call: Call) -> Any:
    """``x.item()``: the Python scalar of its kind."""
    a = as_array(call.arg("self"))
    if a is None or a.dtype is None:
        return UNKNOWN
    kinds: dict[str, ScalarKind] = {"bool": "bool", "int": "int", "uint": "int", "float": "float", "complex": "complex"}
    kind = kinds.get(a.dtype.kind)
    return Scalar(kind) if kind is not None else UNKNOWN


def itemsize(call: Call) -> Any:
    return Scalar("int")


TABLE: Entries = {
    **family(BOTH, ["sum", "prod"], red.reduction, param="self", static=AXIS, result=red.summed),
    **family(BOTH, ["max", "min", "ptp"], red.reduction, param="self", static=AXIS),
    **family(BOTH, ["mean", "std", "var"], red.moment, param="self", static=AXIS),
    **family(BOTH, ["all", "any"], red.reduction, param="self", static=AXIS, result=red.to_bool),
    **family(BOTH, ["argmax", "argmin"], red.argreduction, param="self", static=("axis", "keepdims")),
    **family(BOTH, ["cumsum", "cumprod"], red.cumulative, param="self", static=("axis", "dtype")),
    **family(JAX, ["sort"], red.cumulative, param="self", static=("axis",)),
    **family(HOST, ["sort"], constant_result(Const(None))),  # in place
    **family(BOTH, ["argsort"], red.cumulative, param="self", static=("axis",), result=lambda d: INT),
    **family(JAX, ["reshape"], sh.reshape, param="self", shape="args", static=("args", "order")),
    **family(HOST, ["reshape"], sh.reshape, param="self"),
    **family(JAX, ["transpose"], sh.transpose, param="self", axes="args", static=("args",)),
    **family(HOST, ["transpose"], sh.transpose, param="self"),
    **family(BOTH, ["ravel", "flatten"], sh.ravel, param="self", static=("order",)),
    **family(BOTH, ["squeeze"], sh.squeeze, param="self", static=("axis",)),
    **family(BOTH, ["swapaxes"], sh.swapaxes, param="self", static=("axis1", "axis2")),
    **family(BOTH, ["repeat"], sh.repeat, param="self", static=("axis", "total_repeat_length")),
    **family(BOTH, ["diagonal"], sh.diagonal, param="self", static=("offset", "axis1", "axis2")),
    **family(BOTH, ["trace"], sh.trace, param="self", static=("offset", "axis1", "axis2")),
    **family(BOTH, ["astype"], astype, param="self", static=("dtype",)),
    **family(BOTH, ["round", "conj", "conjugate", "copy"], ufunc, nin=1),
    **family(BOTH, ["clip"], clip),
    **family(BOTH, ["take"], ix.take, param="self", static=("axis", "mode")),
    **family(BOTH, ["nonzero"], ix.nonzero, param="self", static=("size",)),
    **family(BOTH, ["searchsorted"], searchsorted, static=("side",)),
    **family(JAX, ["dot"], c.dot, a="self", b="b"),
    **family(HOST, ["dot"], c.dot, a="self", b="other"),
    **family(BOTH, ["item"], item),
    **family(JAX, ["__getitem__"], ix.getitem),
    **family(HOST, ["__getitem__"], ix.getitem, index="key"),
    **family(
        JAX,
        ["at." + m for m in ["set", "add", "subtract", "multiply", "mul", "divide", "power", "min", "max", "apply"]],
        ix.at_update,
    ),
    **family(JAX, ["at.get"], ix.at_get),
    # attributes
    **family(BOTH, ["T"], sh.transpose, param="self"),
    **family(BOTH, ["mT"], sh.matrix_transpose, param="self"),
    **family(BOTH, ["shape"], shape, param="self"),
    **family(BOTH, ["ndim"], ndim, param="self"),
    **family(BOTH, ["size"], size, param="self"),
    **family(BOTH, ["itemsize", "nbytes"], itemsize),
    **family(BOTH, ["real", "imag"], ufunc, nin=1, result=real_of),
    **family(BOTH, ["dtype"], opaque),
    **family(JAX, ["at"], opaque),
}

register(TABLE)
