"""What a parameter's annotation says its value is, when no call shows it.

``int``/``float``/``bool``/``complex``/``str`` give a Python scalar (an int is a size symbol of its
own, named by the parameter); ``jax.Array``/``jnp.ndarray``/``chex.Array`` an array of
unknown shape (known by identity, so ``x.shape[0]`` is a symbol); ``np.ndarray`` a host
array; jaxtyping's ``Float[Array, "batch d"]`` an array of that rank whose sizes are
symbols named in the string, the same symbol for the same name within one signature
(``"batch"`` in two annotations of one def is one size), ``...``/``*name`` leading axes
of unknown number, ``_`` or ``#name`` an unknown size; a dataclass of the project an
instance whose fields hold what their annotations declare (``classes.declared_instance``).
Anything else (``Optional``, a union, a string, another class) says nothing: UNKNOWN.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN

from . import dims
from .abstract import Array, Class, Const, DType, External, Scalar, Shape

if TYPE_CHECKING:
    from .evaluate import Evaluator

ARRAY_TYPES = frozenset(
    {
        "jax.Array",
        "jax.numpy.ndarray",
        "jax.numpy.DeviceArray",
        "jaxlib.xla_extension.ArrayImpl",
        "chex.Array",
        "chex.ArrayDevice",
        "jaxtyping.Array",
        "jax._src.typing.Array",
        "jax._src.basearray.Array",
    }
)
# an array or a Python scalar: what a function declared so may be given
ARRAY_LIKE_TYPES = ARRAY_TYPES | {"jax.typing.ArrayLike", "jax._src.typing.ArrayLike"}
HOST_ARRAY_TYPES = frozenset({"numpy.ndarray"})
SCALARS = {
    "builtins.int": "int",
    "builtins.float": "float",
    "builtins.bool": "bool",
    "builtins.complex": "complex",
    "builtins.str": "str",
}
JAXTYPING_KINDS: dict[str, DType | None] = {
    "Float": DType("float"),
    "Int": DType("int"),
    "UInt": DType("uint"),
    "Bool": DType("bool"),
    "Complex": DType("complex"),
    "Key": DType("key"),
    "Shaped": None,
    "Num": None,
    "Real": None,
    "Inexact": None,
    "Integer": None,
}


def annotated_value(ev: Evaluator, ann: cst.BaseExpression, key: str, label: str, fn: cst.CSTNode) -> Any:
    """The value an annotation ``ann`` of parameter ``label`` (identity ``key``) of ``fn``
    promises, or UNKNOWN."""
    if type(ann) is cst.Subscript:
        return _jaxtyping(ev, ann, key, fn)
    v = ev.value(ann, None)
    if type(v) is Class:
        from .classes import declared_instance

        return declared_instance(ev, v, key)
    if type(v) is not External:
        return UNKNOWN
    q = v.qualified
    if q in SCALARS:
        kind = SCALARS[q]
        if kind == "int":
            return Scalar("int", dims.sym(key, label))
        return Scalar(kind)  # type: ignore[arg-type]  # one of the ScalarKind literals
    if q in ARRAY_TYPES:
        return Array(None, None, False, key)
    if q in HOST_ARRAY_TYPES:
        return Array(None, None, True, key)
    return UNKNOWN


def _jaxtyping(ev: Evaluator, ann: cst.Subscript, key: str, fn: cst.CSTNode) -> Any:
    base = ev.value(ann.value, None)
    if type(base) is not External or not base.qualified.startswith("jaxtyping."):
        return UNKNOWN
    kind = base.qualified.rsplit(".", 1)[-1]
    if kind not in JAXTYPING_KINDS or len(ann.slice) != 2:
        return UNKNOWN
    array_part, spec_part = ann.slice[0].slice, ann.slice[1].slice
    if type(array_part) is not cst.Index or type(spec_part) is not cst.Index:
        return UNKNOWN
    arr = ev.value(array_part.value, None)
    host = type(arr) is External and arr.qualified in HOST_ARRAY_TYPES
    if not (type(arr) is External and (arr.qualified in ARRAY_TYPES or host)):
        return UNKNOWN
    spec = ev.value(spec_part.value, None)
    if type(spec) is not Const or not isinstance(spec.value, str):
        return UNKNOWN
    shape = parse_dims(spec.value, f"{key.rsplit('.', 1)[0]}:")
    return Array(shape, JAXTYPING_KINDS[kind], host, key if shape is None else None)


def parse_dims(spec: str, scope: str) -> Shape | None:
    """``"batch d"`` -> (batch, d) with symbols keyed in ``scope``; None when unreadable."""
    out: list[dims.Dim] = []
    rest = False
    words = spec.split()
    for i, w in enumerate(words):
        if w in ("...", "*batch") or w.startswith("*") or w == "#*":
            if i != 0:
                return None  # axes of unknown number after known ones: not a prefix
            rest = True  # handled as "known trailing axes" below
            continue
        if w.startswith("#") or w == "_" or w.startswith("_"):
            out.append(None)
            continue
        if w.isdigit():
            out.append(int(w))
            continue
        if w.isidentifier():
            out.append(dims.sym(f"{scope}{w}", w))
            continue
        return None  # arithmetic in a dimension ("n+1", "dim=3"): not read
    if rest:
        # ``"... d"``: the trailing axes are known, the leading ones not: this model keeps
        # only leading axes, so nothing usable
        return None
    return Shape(tuple(out))
