"""Python's builtins and ``math`` functions on abstract values.

``len`` of a display, of an array (its leading size) or of anything known by identity
(a size symbol of its own), ``int``/``float`` of numbers, ``sum`` of numbers or arrays,
``tuple``/``list`` of sequences, ``dict(k=v)``, ``min``/``max`` of constants,
``math.prod`` of sizes (symbolic sizes multiply), the other ``math`` functions (Python
numbers), ``range``/``zip``/``enumerate`` as
iterables for ``for`` loops, ``next`` and ``list`` of a generator, and
``dict.get/keys/values/items``. Anything else: UNKNOWN.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from jaxlint.base.literals import UNKNOWN

from . import dims
from .abstract import (
    Array,
    Const,
    Dict,
    External,
    Generator,
    List,
    Opaque,
    Scalar,
    ScalarKind,
    Seq,
    Struct,
    Tuple,
    as_dim,
    int_value,
    join_all,
)
from .signature import Argument

if TYPE_CHECKING:
    from .evaluate import Evaluator

Builtin = Callable[["Evaluator", list[Argument]], Any]


def _positional(args: list[Argument]) -> list[Any] | None:
    if any(k is not None or s for _, k, s in args):
        return None
    return [v for v, _, _ in args]


def _len(ev: Evaluator, args: list[Argument]) -> Any:
    xs = _positional(args)
    if xs is None or len(xs) != 1:
        return UNKNOWN
    v = xs[0]
    t = type(v)
    if t in (Tuple, List, Dict):
        return Const(len(v.items))
    if t is Seq:
        return int_value(v.length) if v.length is not None else Scalar("int")
    if t is Array:
        if v.shape is not None and v.shape.dims:
            d = v.shape.dims[0]
            return int_value(d) if d is not None else Scalar("int")
        if v.origin is not None:
            return Scalar("int", dims.sym(f"{v.origin}.shape[0]", f"len({v.origin.rsplit('.', 1)[-1]})"))
        return Scalar("int")
    if t is Opaque:
        return Scalar("int", dims.sym(f"len({v.key})", f"len({v.label or v.key})"))
    if t is Generator:
        return UNKNOWN  # a generator has no length: Python raises TypeError
    if t is Const and isinstance(v.value, (str, bytes)):
        return Const(len(v.value))
    from .evaluate import _ShapeOf

    if t is _ShapeOf:
        return Scalar("int")
    return Scalar("int")


def _int(ev: Evaluator, args: list[Argument]) -> Any:
    if _tracer_problem(ev, "int", args):
        return UNKNOWN
    xs = _positional(args)
    if xs is None or len(xs) != 1:
        return Scalar("int")
    v = xs[0]
    if type(v) is Const and isinstance(v.value, (int, float)) and not isinstance(v.value, bool):
        try:
            return Const(int(v.value))
        except (OverflowError, ValueError):
            return Scalar("int")
    if type(v) is Scalar and v.kind == "int":
        return v
    return Scalar("int")


def _float(ev: Evaluator, args: list[Argument]) -> Any:
    if _tracer_problem(ev, "float", args):
        return UNKNOWN
    xs = _positional(args)
    if xs and type(xs[0]) is Const and isinstance(xs[0].value, (int, float)):
        return Const(float(xs[0].value))
    return Scalar("float")


def _complex(ev: Evaluator, args: list[Argument]) -> Any:
    """``complex(real, imag)`` of Python numbers (``complex(0, n)``: an index grid's count)."""
    if _tracer_problem(ev, "complex", args):
        return UNKNOWN
    xs = _positional(args)
    if xs is not None and 1 <= len(xs) <= 2 and all(type(x) is Const and type(x.value) in (int, float) for x in xs):
        return Const(complex(*(x.value for x in xs)))
    return UNKNOWN


def _bool(ev: Evaluator, args: list[Argument]) -> Any:
    if _tracer_problem(ev, "bool", args):
        return UNKNOWN
    return Scalar("bool")


def _str(ev: Evaluator, args: list[Argument]) -> Any:
    xs = _positional(args)
    if xs and type(xs[0]) is Const and isinstance(xs[0].value, (str, int)):
        return Const(str(xs[0].value))
    return Scalar("str")


def _sequence(kind: type) -> Builtin:
    def make(ev: Evaluator, args: list[Argument]) -> Any:
        xs = _positional(args)
        if xs is None:
            return UNKNOWN
        if not xs:
            return kind(())
        v = xs[0]
        if type(v) in (Tuple, List):
            return kind(v.items)
        if type(v) is Dict:
            return kind(tuple(Const(k) for k, _ in v.items))
        if type(v) is Seq:
            return v
        if type(v) is Generator:  # its items, one by one when known
            return kind(v.every) if v.every is not None else Seq(None, v.item)
        if type(v) is Array and v.shape is not None and v.shape.dims:
            rows = ev.rows(v)
            if rows is not None:
                return kind(tuple(rows))
            return Seq(v.shape.dims[0], ev.item(v, Const(0)))
        from .evaluate import _ShapeOf

        if type(v) is _ShapeOf:
            return UNKNOWN
        return UNKNOWN

    return make


def _dict(ev: Evaluator, args: list[Argument]) -> Any:
    if any(s for _, _, s in args):
        return UNKNOWN
    items: list[tuple[Any, Any]] = []
    for v, k, _ in args:
        if k is None:
            if type(v) is Dict:
                items.extend(v.items)
                continue
            return UNKNOWN
        items = [(a, b) for a, b in items if a != k]
        items.append((k, v))
    return Dict(tuple(items))


def _extreme(pick: Callable[..., Any]) -> Builtin:
    def f(ev: Evaluator, args: list[Argument]) -> Any:
        xs = _positional(args)
        if not xs:
            return UNKNOWN
        if len(xs) == 1 and type(xs[0]) in (Tuple, List):
            xs = list(xs[0].items)
        if xs and all(type(x) is Const and isinstance(x.value, (int, float)) for x in xs):
            return Const(pick(x.value for x in xs))
        if all(as_dim(x) is not None for x in xs):
            return Scalar("int")
        return join_all(xs)

    return f


def _abs(ev: Evaluator, args: list[Argument]) -> Any:
    xs = _positional(args)
    if xs and type(xs[0]) is Const and isinstance(xs[0].value, (int, float)):
        return Const(abs(xs[0].value))
    if xs and type(xs[0]) is Array:
        return xs[0]
    return UNKNOWN


def _prod(ev: Evaluator, args: list[Argument]) -> Any:
    xs = _positional(args)
    if xs and len(xs) == 1 and type(xs[0]) is Seq and (xs[0].item == Scalar("int") or type(xs[0].item) is Const):
        return Scalar("int")  # a product of ints is an int
    if not xs or len(xs) != 1 or type(xs[0]) not in (Tuple, List):
        return _NOT_HANDLED
    ds = [as_dim(x) for x in xs[0].items]
    if any(d is None for d in ds):
        return Scalar("int")
    return int_value(dims.product(ds))


# ``math``'s functions return Python numbers whatever they are given: floats, but these
_MATH_INTS = frozenset({"floor", "ceil", "trunc", "factorial", "gcd", "lcm", "isqrt", "comb", "perm"})
_MATH_BOOLS = frozenset({"isclose", "isfinite", "isinf", "isnan"})
_MATH_FLOATS = frozenset(
    [
        "sqrt",
        "cbrt",
        "exp",
        "exp2",
        "expm1",
        "log",
        "log2",
        "log10",
        "log1p",
        "sin",
        "cos",
        "tan",
        "asin",
        "acos",
        "atan",
        "atan2",
        "sinh",
        "cosh",
        "tanh",
        "asinh",
        "acosh",
        "atanh",
        "hypot",
        "pow",
        "fabs",
        "fmod",
        "copysign",
        "degrees",
        "radians",
        "erf",
        "erfc",
        "gamma",
        "lgamma",
        "dist",
        "fsum",
        "ldexp",
        "remainder",
    ]
)


def _math(name: str) -> Builtin:
    """``math.<name>``: its value for constant arguments, else a Python number of its kind
    (``math.hypot(dx, dy)``: a float); a traced argument needs a concrete value."""
    kind: ScalarKind = "int" if name in _MATH_INTS else "bool" if name in _MATH_BOOLS else "float"

    def f(ev: Evaluator, args: list[Argument]) -> Any:
        if _tracer_problem(ev, f"math.{name}", args):
            return UNKNOWN
        xs = _positional(args)
        if (
            xs is not None
            and len(xs) == len(args)
            and all(type(x) is Const and type(x.value) in (int, float) for x in xs)
        ):
            import math

            try:
                return Const(getattr(math, name)(*(x.value for x in xs)))
            except (ValueError, TypeError, OverflowError, ZeroDivisionError):
                return UNKNOWN  # what raises here raises in the program too: not a value
        return Scalar(kind)

    return f


def _tracer_problem(ev: Evaluator, what: str, args: list[Argument]) -> bool:
    """Report a traced array given where Python needs a concrete value; True if so."""
    from .abstract import traced
    from .catalogue import Problem

    if any(traced(v) for v, _, _ in args):
        ev.report(
            Problem("tracer", f"`{what}()` of a traced array needs a concrete value (ConcretizationTypeError)", ev.at)
        )
        return True
    return False


def _sum(ev: Evaluator, args: list[Argument]) -> Any:
    """``sum(iterable, start=0)``: ``start + item + item ...``. Over items known one by one,
    their sum; over items of unknown number, each a rank-0 array, a rank-0 array (an empty
    iterable gives ``start``, a Python number: rank 0 too, so the shape holds either way;
    the sum of the L2 idiom ``sum(jnp.sum(p**2) for p in jax.tree.leaves(params))``)."""
    positional = [v for v, k, s in args if k is None and not s]
    keywords = {k: v for v, k, s in args if k is not None}
    if any(s for _, _, s in args) or not 1 <= len(positional) <= 2 or set(keywords) - {"start"}:
        return UNKNOWN
    start = positional[1] if len(positional) == 2 else keywords.get("start", Const(0))
    items = ev.items(positional[0])
    if items is not None:
        total = start
        for x in items:
            total = ev.binary("Add", total, x)
        return total
    if type(positional[0]) not in (Seq, Generator):
        return UNKNOWN
    item = positional[0].item
    if type(item) is not Array or item.shape is None or item.shape.dims or item.shape.rest:
        return UNKNOWN
    if type(start) is not Const or type(start.value) not in (int, float):
        return UNKNOWN
    return ev.binary("Add", start, item)


def _range(ev: Evaluator, args: list[Argument]) -> Any:
    from .evaluate import _Range

    if _tracer_problem(ev, "range", args):
        return UNKNOWN
    xs = _positional(args)
    if xs is None or not 1 <= len(xs) <= 3:
        return _Range(None)
    bounds = [as_dim(x) for x in xs]
    ints = [dims.as_int(b) for b in bounds]
    values = None
    if all(i is not None for i in ints):
        r = range(*ints)  # type: ignore[arg-type]  # ints checked above
        values = tuple(r) if len(r) <= 256 else None
        return _Range(len(r), values)
    if len(xs) == 1:
        return _Range(bounds[0])
    if len(xs) == 2:
        return _Range(dims.sub(bounds[1], bounds[0]))
    return _Range(None)


def _next(ev: Evaluator, args: list[Argument]) -> Any:
    """``next(g)``: an item of a generator or of an iterator object (its ``__next__``);
    ``next(g, default)`` may also give the default."""
    xs = _positional(args)
    if xs is None or not 1 <= len(xs) <= 2:
        return UNKNOWN
    item = ev.next_item(xs[0])
    if item is UNKNOWN:
        return UNKNOWN
    return item if len(xs) == 1 else join_all([item, xs[1]])


def _reversed(ev: Evaluator, args: list[Argument]) -> Any:
    """``reversed(xs)``: the items of a sequence, last first (a range's ints, a tuple's or
    list's items, an array's rows); what it iterates is what ``xs`` iterates."""
    from .evaluate import _Range

    xs = _positional(args)
    if xs is None or len(xs) != 1:
        return UNKNOWN
    v = xs[0]
    if type(v) is _Range:
        return _Range(v.length, v.values[::-1] if v.values is not None else None)
    if type(v) in (Tuple, List):
        return List(v.items[::-1])
    if type(v) is Seq:
        return v
    if type(v) is Array and v.shape is not None and v.shape.dims:
        return Seq(v.shape.dims[0], ev.item(v, Const(0)))
    return UNKNOWN


def _sorted(ev: Evaluator, args: list[Argument]) -> Any:
    """``sorted(xs)``: a list of the items of ``xs`` (in order when they are constants)."""
    xs = _positional(args)
    if xs is None or len(xs) != 1 or any(k is not None for _, k, _ in args):
        return UNKNOWN
    v = xs[0]
    if type(v) in (Tuple, List) and all(type(x) is Const for x in v.items):
        try:
            return List(tuple(sorted(v.items, key=lambda c: c.value)))
        except TypeError:
            return UNKNOWN
    item = ev.element(v)
    return Seq(None, item) if item is not UNKNOWN else UNKNOWN


def _iter(ev: Evaluator, args: list[Argument]) -> Any:
    """``iter(x)``: what ``Evaluator.iterator`` says it gives."""
    xs = _positional(args)
    return ev.iterator(xs[0]) if xs is not None and len(xs) == 1 else UNKNOWN


def _zip(ev: Evaluator, args: list[Argument]) -> Any:
    from .evaluate import _Zip

    xs = _positional(args)
    return _Zip(tuple(xs)) if xs is not None else UNKNOWN


def _enumerate(ev: Evaluator, args: list[Argument]) -> Any:
    from .evaluate import _Enumerate

    xs = _positional(args)
    return _Enumerate(xs[0]) if xs else UNKNOWN


def _dict_method(name: str) -> Builtin:
    def f(ev: Evaluator, args: list[Argument]) -> Any:
        xs = _positional(args)
        if not xs or type(xs[0]) is not Dict:
            return UNKNOWN
        d = xs[0]
        if name == "get":
            if len(xs) >= 2 and type(xs[1]) is Const:
                v = d.get(xs[1].value)
                if v is not None:
                    return v
                return xs[2] if len(xs) > 2 else Const(None)
            return UNKNOWN
        if name == "keys":
            return List(tuple(Const(k) for k, _ in d.items))
        if name == "values":
            return List(tuple(v for _, v in d.items))
        return List(tuple(Tuple((Const(k), v)) for k, v in d.items))

    return f


def _replace(ev: Evaluator, args: list[Argument]) -> Any:
    """``dataclasses.replace(record, **changes)`` (and a NamedTuple's ``_replace``, a flax
    struct's ``replace``): the record with the fields given anew; a field it does not
    have raises (UNKNOWN)."""
    if not args or args[0][1] is not None or args[0][2]:
        return UNKNOWN
    record = args[0][0]
    changes = args[1:]
    if type(record) is not Struct or any(k is None or s for _, k, s in changes):
        return UNKNOWN
    names = {k for k, _ in record.fields}
    given = {k: v for v, k, _ in changes if k is not None}
    if not set(given) <= names:
        return UNKNOWN
    fields = tuple((k, given.get(k, v)) for k, v in record.fields)
    return Struct(record.cls, fields, record.kind, record.static)


def _none(ev: Evaluator, args: list[Argument]) -> Any:
    return Const(None)


# what ``isinstance`` asks of an abstract value: the classes it may be an instance of,
# each a set of the names of the class and its bases that a test may spell
_JAX_ARRAY = frozenset({"jax.Array", "jax.numpy.ndarray", "jax._src.basearray.Array", "builtins.object"})
_NUMPY_ARRAY = frozenset({"numpy.ndarray", "builtins.object"})
_NUMPY_SCALAR = frozenset({"numpy.generic", "builtins.object"})
_PYTHON = {
    bool: frozenset({"builtins.bool", "builtins.int", "builtins.object"}),
    int: frozenset({"builtins.int", "builtins.object"}),
    float: frozenset({"builtins.float", "builtins.object"}),
    complex: frozenset({"builtins.complex", "builtins.object"}),
    str: frozenset({"builtins.str", "builtins.object"}),
    type(None): frozenset({"builtins.object"}),
    tuple: frozenset({"builtins.tuple", "builtins.object"}),
    list: frozenset({"builtins.list", "builtins.object"}),
    dict: frozenset({"builtins.dict", "builtins.object"}),
}
_OBJECT = frozenset({"builtins.object"})
_SCALAR_KINDS = {"bool": bool, "int": int, "float": float, "complex": complex, "str": str}
# the classes whose instances the model tells apart: a test of any other class is unknown
_KNOWN = frozenset().union(_JAX_ARRAY, _NUMPY_ARRAY, _NUMPY_SCALAR, *_PYTHON.values())


def _classes(ev: Evaluator, v: Any) -> list[frozenset[str]] | None:
    """The classes ``v`` may be an instance of (one of them), or None when not known."""
    from .abstract import Bound, Class, Function, Partial, Struct, Transformed, Wraps
    from .classes import mro

    t = type(v)
    if t in (Function, Bound, Partial, Transformed, Wraps):
        return [_OBJECT]
    if t is Struct and type(v.cls) is Class:
        # an instance of the code's own class, none of whose bases is a library's
        bases = mro(ev, v.cls)[1:]
        if all(
            type(b) is External and b.qualified in ("builtins.object", "object") for b in bases if type(b) is not Class
        ):
            return [_OBJECT]
        return None
    if t is Array:
        if not v.host:
            return [_JAX_ARRAY]
        rank = v.shape.rank if v.shape is not None else None
        return [_NUMPY_ARRAY] if rank is not None and rank > 0 else [_NUMPY_ARRAY, _NUMPY_SCALAR]
    if t is Const:
        found = _PYTHON.get(type(v.value))
        return [found] if found is not None else None
    if t is Scalar:
        return [_PYTHON[_SCALAR_KINDS[v.kind]]]
    if t in (Tuple, List, Dict):
        return [_PYTHON[{Tuple: tuple, List: list, Dict: dict}[t]]]
    return None


def _isinstance(ev: Evaluator, args: list[Argument]) -> Any:
    """``isinstance(value, classes)`` when the model knows the value's class and the classes
    are builtins or array types (``(jax.Array, np.ndarray, np.generic)``)."""
    xs = _positional(args)
    if xs is None or len(xs) != 2:
        return Scalar("bool")
    value, spec = xs
    wanted = spec.items if type(spec) is Tuple else (spec,)
    names = {c.qualified for c in wanted if type(c) is External}
    classes = _classes(ev, value)
    if classes is None or len(names) != len(wanted) or not names <= _KNOWN:
        return Scalar("bool")
    verdicts = {not names.isdisjoint(c) for c in classes}
    return Const(verdicts.pop()) if len(verdicts) == 1 else Scalar("bool")


_NOT_HANDLED: Any = object()

# the builtins that take a container whole: its size (``len(xs)``), its items (``list(xs)``,
# ``zip(xs, ys)``, ``sorted(xs)``) or its keys (``dict(xs)``)
TAKES_CONTAINER = frozenset(
    f"builtins.{n}" for n in ("len", "list", "tuple", "dict", "iter", "sorted", "enumerate", "zip")
)

BUILTIN_CALLS: dict[str, Builtin] = {
    "builtins.len": _len,
    "builtins.next": _next,
    "builtins.iter": _iter,
    "builtins.reversed": _reversed,
    "builtins.sorted": _sorted,
    "builtins.int": _int,
    "builtins.float": _float,
    "builtins.complex": _complex,
    "builtins.bool": _bool,
    "builtins.str": _str,
    "builtins.tuple": _sequence(Tuple),
    "builtins.list": _sequence(List),
    "builtins.dict": _dict,
    "builtins.sum": _sum,
    "builtins.min": _extreme(min),
    "builtins.max": _extreme(max),
    "builtins.abs": _abs,
    "builtins.range": _range,
    "builtins.zip": _zip,
    "builtins.enumerate": _enumerate,
    "builtins.print": _none,
    "builtins.isinstance": _isinstance,
    "builtins.dict.get": _dict_method("get"),
    "builtins.dict.keys": _dict_method("keys"),
    "builtins.dict.values": _dict_method("values"),
    "builtins.dict.items": _dict_method("items"),
    "math.prod": _prod,
    **{f"math.{n}": _math(n) for n in sorted(_MATH_INTS | _MATH_BOOLS | _MATH_FLOATS)},
    "dataclasses.replace": _replace,
}


def not_handled(v: Any) -> bool:
    return v is _NOT_HANDLED
