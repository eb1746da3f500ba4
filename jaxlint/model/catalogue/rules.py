"""Result rules of the catalogue: functions of a ``Call`` that give the abstract result.

A rule reads its arguments with ``call.arg(name)`` (abstract values: ``Array``, ``Const``,
``Tuple``, ...), computes the result's shape and dtype with the size arithmetic of
``jaxlint.model.dims`` (sizes may be symbols), and records with ``call.problem`` a call
that certainly fails (shapes that cannot broadcast, an axis past the rank). Anything it
cannot decide gives ``UNKNOWN`` or an ``Array`` with unknown parts: never a guess.

This module holds the helpers every family of rules shares, the elementwise rules and
``create``; the families live beside it (``creation``, ``reductions``, ``contractions``,
``shaping``, ``joining``, ``indexing``, ``keys``, ``trees``, ``control``, ``primitives``,
``windows``, ``decompositions``, ``singles``). A helper that finds the call fails raises
``Fails``; ``rule`` turns that into ``call.problem``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import wraps
from typing import Any

from jaxlint.base.literals import UNKNOWN

from .. import dims
from ..abstract import (
    BOOL,
    FLOAT,
    INT,
    SCALAR_SHAPE,
    Array,
    Const,
    DType,
    DTypeKind,
    External,
    List,
    Scalar,
    Shape,
    Tuple,
    as_array,
    as_dim,
    constant,
    int_value,
)
from ..dims import Dim
from . import Call

COMPLEX = DType("complex")
SCALAR = SCALAR_SHAPE


class Fails(Exception):
    """The call certainly raises: ``kind`` and ``message`` as ``Call.problem`` takes them."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def rule(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A result rule whose helpers may raise ``Fails``: the call's problem, result UNKNOWN."""

    @wraps(fn)
    def run(call: Call, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(call, *args, **kwargs)
        except Fails as f:
            return call.problem(f.kind, f.message)

    return run


# ----------------------------------------------------------------------------------
# reading arguments
# ----------------------------------------------------------------------------------
WIDE = frozenset({"float64", "int64", "uint64", "complex128"})


def array_of(call: Call, shape: Shape | None, dtype: DType | None) -> Array:
    """The result array (a NumPy one for a NumPy function). A 64-bit dtype name is kept
    only on the host: in jax it is 32-bit unless x64 is enabled, which the code does not show."""
    if dtype is not None and dtype.name in WIDE and not call.host:
        dtype = DType(dtype.kind)
    return Array(shape, dtype, host=call.host)


def full_dims(a: Array | None) -> tuple[Dim, ...] | None:
    """The sizes of an array whose rank is known, else None."""
    if a is None or a.shape is None or a.shape.rest:
        return None
    return a.shape.dims


def int_const(v: Any) -> int | None:
    """A Python int constant (not a bool)."""
    if type(v) is Const and type(v.value) is int:
        return v.value
    return None


def bool_const(v: Any) -> bool | None:
    if type(v) is Const and type(v.value) is bool:
        return v.value
    return None


def is_none(v: Any) -> bool:
    return type(v) is Const and v.value is None


def ints(v: Any) -> tuple[int, ...] | None:
    """An int or a tuple/list of int constants, as a tuple; None otherwise."""
    i = int_const(v)
    if i is not None:
        return (i,)
    c = constant(v)
    if isinstance(c, (tuple, list)) and all(type(x) is int for x in c):
        return tuple(c)
    return None


def axes_of(v: Any) -> tuple[int, ...] | str | None:
    """An ``axis`` argument: "all" for None, the axes of an int or a tuple, None unknown."""
    if is_none(v):
        return "all"
    return ints(v)


def normalize(axis: int, rank: int) -> int:
    """An axis in ``range(rank)``; raises ``Fails`` past the rank (JAX's message)."""
    if not -rank <= axis < rank:
        raise Fails("rank", f"axis {axis} is out of bounds for array of dimension {rank}")
    return axis % rank


def normalize_all(axes: Sequence[int], rank: int) -> tuple[int, ...]:
    out = tuple(normalize(a, rank) for a in axes)
    if len(set(out)) != len(out):
        raise Fails("rank", f"duplicate value in 'axis': {tuple(axes)}")
    return out


def shape_text(d: Sequence[Dim]) -> str:
    return str(Shape(tuple(d)))


def dims_of_value(v: Any) -> tuple[Dim, ...] | None:
    """The sizes a ``shape`` argument holds (an int, a tuple/list of sizes), unknown ones
    as None; None when it is not a shape."""
    d = as_dim(v)
    if d is not None:
        return (d,)
    if type(v) in (Tuple, List):
        return tuple(as_dim(x) for x in v.items)
    if type(v) is Scalar and v.kind == "int":
        return (None,)
    return None


def shape_of(v: Any) -> Shape | None:
    """The shape a ``shape`` argument gives: an int, a tuple/list of ints or sizes."""
    d = dims_of_value(v)
    if d is not None:
        return Shape(d)
    if type(v) is Array and v.shape is not None and v.shape.rank == 1:
        n = dims.as_int(v.shape.dims[0])
        if n is not None:
            return Shape(tuple(None for _ in range(n)))
    return None


def dtype_of(v: Any) -> DType | None:
    """The kind a dtype argument names (``jnp.float32``, ``"int32"``, ``bool``)."""
    name: str | None = None
    if type(v) is External:
        name = v.qualified.rsplit(".", 1)[-1]
    elif type(v) is Const and isinstance(v.value, str):
        name = v.value
    if name is None:
        return None
    if name in ("bool", "bool_"):
        return DType("bool", "bool")
    if name in ("int_", "intp"):
        return DType("int")
    if name in ("float_", "double", "single", "half"):
        return DType("float")
    kinds: tuple[DTypeKind, ...] = ("uint", "int", "float", "complex")
    for kind in kinds:
        if name.startswith(kind) or (kind == "float" and name == "bfloat16"):
            return DType(kind, name if name not in ("int", "float", "complex") else None)
    return None


def option(call: Call, name: str, default: Any) -> Any:
    """An argument that a signature may take by name or through ``**kwargs``
    (``ndarray.sum(axis, dtype, out, **kwargs)`` takes ``keepdims`` so); ``default`` when absent."""
    if call.sig.param(name) is not None:
        return call.arg(name)
    varkw = call.sig.var_keyword
    if varkw is not None:
        extra = call.binding.arguments.get(varkw.name)
        if isinstance(extra, dict) and name in extra:
            return extra[name]
        if call.binding.partial:
            return UNKNOWN
    return default


def given_dtype(call: Call, param: str = "dtype") -> DType | None:
    """The dtype a ``dtype`` argument names; None when it is None or not known."""
    if not call.given(param):
        return None
    return dtype_of(call.arg(param))


def kind_only(d: DType | None) -> DType | None:
    return DType(d.kind) if d is not None else None


ORDER = ("bool", "uint", "int", "float", "complex")


def promote(dtypes: list[DType | None]) -> DType | None:
    """The kind a mix of operands promotes to (bool < int < float < complex); the name
    too when every operand has the same one."""
    best: DType | None = None
    for d in dtypes:
        if d is None or d.kind not in ORDER:
            return None
        if best is None or ORDER.index(d.kind) > ORDER.index(best.kind):
            best = d
    if best is not None and any(d != best for d in dtypes):
        return DType(best.kind)
    return best


def inexact(d: DType | None) -> DType | None:
    """What a float-valued function gives for ``d`` (ints and bools become floats)."""
    if d is None:
        return None
    return d if d.kind in ("float", "complex") else FLOAT


def real_of(d: DType | None) -> DType | None:
    """The real kind of ``d`` (``abs`` of complex, ``real``, ``norm``)."""
    if d is None:
        return None
    return FLOAT if d.kind == "complex" else d


def arrays(call: Call, params: Sequence[str]) -> list[Array] | None:
    out = []
    for p in params:
        a = as_array(call.arg(p))
        if a is None:
            return None
        out.append(a)
    return out


# ----------------------------------------------------------------------------------
# broadcasting
# ----------------------------------------------------------------------------------
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
        ok, _ = broadcast_shapes([s for s in known if not s.rest])
        return ok, None
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


def at_least(shapes: Sequence[Shape | None]) -> Shape | None:
    """A shape of unknown sizes whose rank is at least every known one of ``shapes``' (an
    elementwise result: broadcasting drops no axis), or None."""
    n = max((len(s.dims) for s in shapes if s is not None), default=0)
    return Shape((None,) * n, True) if n else None


def broadcast(values: Sequence[Array], name: str | None = None) -> Shape | None:
    """The broadcast shape of arrays; raises ``Fails`` with JAX's message when they cannot
    (a ufunc's message names it: ``add got incompatible shapes ...``)."""
    ok, shape = broadcast_shapes([a.shape for a in values])
    if not ok:
        shown = ", ".join(str(a.shape) for a in values)
        if name is not None:
            raise Fails("shape", f"{name} got incompatible shapes for broadcasting: {shown}.")
        raise Fails("shape", f"Incompatible shapes for broadcasting: shapes=[{shown}]")
    return shape


def type_text(a: Array, shape: Sequence[Dim] | None = None) -> str:
    """``float32[2,3]``: how JAX names an array's type in messages."""
    d = a.shape.dims if shape is None and a.shape is not None else (shape or ())
    kind = a.dtype.name or a.dtype.kind if a.dtype is not None else "?"
    return f"{kind}[{','.join(dims.text(x) for x in d)}]"


# ----------------------------------------------------------------------------------
# elementwise
# ----------------------------------------------------------------------------------
def elementwise(call: Call, param: str = "x", dtype: DType | None = None) -> Any:
    """A unary function that keeps the shape (``tanh``, ``exp``, ``relu``); ``dtype``: the
    result's kind when it is not the operand's (``FLOAT`` for ``sqrt`` of ints)."""
    a = as_array(call.arg(param))
    if a is None:
        return UNKNOWN
    return array_of(call, a.shape, dtype or a.dtype)


@rule
def nary(call: Call, params: tuple[str, ...], dtype: DType | None = None) -> Any:
    """Broadcasting arithmetic over ``params`` (``add``, ``maximum``, ``where``)."""
    values = arrays(call, params)
    if values is None:
        return UNKNOWN
    shape = broadcast(values)
    return array_of(call, shape, dtype or promote([a.dtype for a in values]))


def operands(call: Call, param: str = "args") -> list[Any] | None:
    """The operands a ``*args`` parameter holds (``jnp.add(*args)`` as jax declares it)."""
    v = call.arg(param)
    if not isinstance(v, tuple):
        return None
    return list(v)


def positional(call: Call) -> list[Any]:
    """The values of the positional parameters in order, through a ``*args`` (what the
    first ``n`` operands are, whether jax declares ``(x, /)``, ``(x1, x2)`` or ``(*args)``);
    it stops at the first one not given."""
    out: list[Any] = []
    for p in call.sig.params:
        if p.kind in ("posonly", "pos"):
            if p.name not in call.binding.arguments:
                break
            out.append(call.binding.arguments[p.name])
        elif p.kind == "var":
            v = call.binding.arguments.get(p.name, ())
            out.extend(v if isinstance(v, tuple) else ())
            break
        else:
            break
    return out


@rule
def ufunc(call: Call, nin: int = 2, result: Callable[[DType | None], DType | None] | None = None) -> Any:
    """An elementwise function of ``nin`` positional operands, broadcast (``add``,
    ``tanh``, ``isnan``); ``result`` maps the promoted dtype (``inexact`` for ``divide``,
    ``boolean`` for ``less``)."""
    args = positional(call)[:nin]
    if len(args) != nin:
        return UNKNOWN
    values = [as_array(v) for v in args]
    if any(a is None for a in values):
        return UNKNOWN
    known = [a for a in values if a is not None]
    shape = known[0].shape if nin == 1 else broadcast(known, call.name)
    if shape is None and nin > 1:
        shape = at_least([a.shape for a in known])  # an operand of unknown rank: at least the others' axes
    dt = promote([a.dtype for a in known])
    return array_of(call, shape, result(dt) if result is not None else dt)


def boolean(_: DType | None) -> DType:
    return BOOL


def integer(_: DType | None) -> DType:
    return INT


def same(d: DType | None) -> DType | None:
    return d


def identity(call: Call, param: str = "x") -> Any:
    """The argument itself (``stop_gradient``, ``psum`` of a pytree)."""
    return call.arg(param)


def opaque(call: Call) -> Any:
    """An entry whose result the model does not describe (a dtype object, a config)."""
    return UNKNOWN


def constant_result(value: Any) -> Callable[[Call], Any]:
    """A function whose result is always ``value`` (``numpy.testing.assert_*``: None)."""

    def result(call: Call) -> Any:
        return value

    return result


def python_bool(call: Call) -> Any:
    return Scalar("bool")


# ----------------------------------------------------------------------------------
# creation
# ----------------------------------------------------------------------------------
def create(call: Call, shape: str = "shape", dtype: str = "dtype", default: DType = FLOAT) -> Any:
    """An array made from a shape argument (``zeros``, ``ones``, ``empty``); a negative
    size is a problem (``-1`` is for ``reshape``, not for a new array)."""
    s = shape_of(call.arg(shape))
    if s is not None and any((dims.as_int(d) or 0) < 0 for d in s.dims):
        return call.problem("shape", f"{call.name} got a negative dimension in shape {s}")
    return array_of(call, s, dtype_of(call.arg(dtype)) or default)


def shape_tuple(d: Sequence[Dim]) -> Tuple:
    """The Python tuple ``x.shape`` is."""
    return Tuple(tuple(int_value(x) if x is not None else Scalar("int") for x in d))


def size_value(d: Dim) -> Any:
    return int_value(d) if d is not None else Scalar("int")
