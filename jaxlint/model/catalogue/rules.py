"""Result rules of the catalogue: functions of a ``Call`` that give the abstract result.

A rule reads its arguments with ``call.arg(name)`` (abstract values: ``Array``, ``Const``,
``Tuple``, ...), computes the result's shape and dtype with the size arithmetic of
``jaxlint.model.dims`` (sizes may be symbols), and records with ``call.problem`` a call
that certainly fails (shapes that cannot broadcast, an axis past the rank). Anything it
cannot decide gives ``UNKNOWN`` or an ``Array`` with unknown parts: never a guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jaxlint.base.literals import UNKNOWN

from .. import dims
from ..abstract import FLOAT, SCALAR_SHAPE, Array, Const, DType, DTypeKind, List, Shape, Tuple, as_array, as_dim
from ..dims import Dim
from . import Call


def array_of(call: Call, shape: Shape | None, dtype: DType | None) -> Array:
    return Array(shape, dtype, host=call.host)


def broadcast_dims(a: Dim, b: Dim) -> tuple[bool, Dim]:
    """(can broadcast, the result size) of two sizes; False only when both are ints that
    differ and neither is 1."""
    if a == 1:
        return True, b
    if b == 1:
        return True, a
    if dims.equal(a, b):
        return True, a
    ia, ib = dims.as_int(a), dims.as_int(b)
    if ia is not None and ib is not None:
        return False, None
    # one side a known size other than 1: the other must be it or 1, and the result is it
    if ia is not None:
        return True, a
    if ib is not None:
        return True, b
    return True, None


def broadcast_shapes(shapes: Sequence[Shape | None]) -> tuple[bool, Shape | None]:
    """(can broadcast, result shape) of several shapes, numpy's rule, right-aligned."""
    known = [s for s in shapes if s is not None]
    if len(known) < len(shapes):
        # an operand of unknown rank: the result's rank is unknown, but a mismatch of the
        # known ones is still a mismatch
        ok, _ = broadcast_shapes(known) if len(known) > 1 else (True, None)
        return ok, None
    if any(s.rest for s in known):
        return True, None
    n = max((len(s.dims) for s in known), default=0)
    out: list[Dim] = []
    for i in range(n):
        d: Dim = 1
        for s in known:
            k = i - (n - len(s.dims))
            if k < 0:
                continue
            ok, d = broadcast_dims(d, s.dims[k])
            if not ok:
                return False, None
        out.append(d)
    return True, Shape(tuple(out))


def promote(dtypes: list[DType | None]) -> DType | None:
    """The kind a mix of operands promotes to (bool < int < float < complex)."""
    order = ["bool", "uint", "int", "float", "complex"]
    best = None
    for d in dtypes:
        if d is None or d.kind not in order:
            return None
        if best is None or order.index(d.kind) > order.index(best.kind):
            best = DType(d.kind)
    return best


def elementwise(call: Call, param: str = "x", dtype: DType | None = None) -> Any:
    """A unary function that keeps the shape (``tanh``, ``exp``, ``relu``); ``dtype``: the
    result's kind when it is not the operand's (``FLOAT`` for ``sqrt`` of ints)."""
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    return array_of(call, a.shape, dtype or a.dtype)


def nary(call: Call, params: tuple[str, ...], dtype: DType | None = None) -> Any:
    """Broadcasting arithmetic over ``params`` (``add``, ``maximum``, ``where``)."""
    arrays = [as_array(call.arg(p)) for p in params]
    if any(a is None for a in arrays):
        return UNKNOWN
    ok, shape = broadcast_shapes([a.shape for a in arrays if a is not None])
    if not ok:
        shown = ", ".join(str(a.shape) for a in arrays if a is not None)
        return call.problem("shape", f"Incompatible shapes for broadcasting: shapes=[{shown}]")
    dt = dtype or promote([a.dtype for a in arrays if a is not None])
    return array_of(call, shape, dt)


def shape_of(v: Any) -> Shape | None:
    """The shape a ``shape`` argument gives: an int, a tuple/list of ints or sizes."""
    d = as_dim(v)
    if d is not None or (type(v) is Const and isinstance(v.value, int) and not isinstance(v.value, bool)):
        return Shape((d,))
    if type(v) in (Tuple, List):
        return Shape(tuple(as_dim(x) for x in v.items))
    if type(v) is Array and v.shape is not None and v.shape.rank == 1:
        n = dims.as_int(v.shape.dims[0])
        if n is not None:
            return Shape(tuple(None for _ in range(n)))
    return None


def create(call: Call, shape: str = "shape", dtype: str = "dtype", default: DType = FLOAT) -> Any:
    """An array made from a shape argument (``zeros``, ``ones``, ``full``)."""
    s = shape_of(call.arg(shape))
    if s is None:
        return array_of(call, None, None)
    return array_of(call, s, dtype_of(call.arg(dtype)) or default)


def dtype_of(v: Any) -> DType | None:
    """The kind a dtype argument names (``jnp.float32``, ``"int32"``, ``bool``)."""
    from ..abstract import External

    name: str | None = None
    if type(v) is External:
        name = v.qualified.rsplit(".", 1)[-1]
    elif type(v) is Const and isinstance(v.value, str):
        name = v.value
    if name is None:
        return None
    if name in ("bool", "bool_"):
        return DType("bool", "bool")
    kinds: tuple[DTypeKind, ...] = ("uint", "int", "float", "complex")
    for kind in kinds:
        if name.startswith(kind) or (kind == "float" and name == "bfloat16"):
            return DType(kind, name if name not in ("int", "float", "complex") else None)
    return None


SCALAR = SCALAR_SHAPE
