"""The abstract values of the semantic model: what an expression can evaluate to.

A small lattice, ordered by what is known:

- ``UNKNOWN`` (top): nothing is known; a rule that needs the value stays silent.
- ``Opaque``: a value nothing is known about but its identity (a parameter without a
  visible argument): ``x.shape[0]`` of it is a symbol, the same one each time.
- Python values: ``Const`` (``3``, ``"batch"``, ``None``, ``...``) and ``Scalar`` (an int,
  float, bool or str whose value is not a constant; an int may still have a symbolic
  value: ``n = jax.local_device_count()``).
- ``Array``: a JAX (or, ``host``, NumPy) array with a ``Shape`` (sizes are ints, symbols
  or unknown; the rank may be unknown) and a ``DType`` kind.
- Pytrees: ``Tuple``, ``List``, ``Dict`` and ``Struct`` (an instance of a dataclass,
  NamedTuple, ``flax.struct`` / ``chex`` dataclass, ``eqx.Module``, or a plain object).
- Callables: ``Function`` (a def or lambda, with the environment it closes over),
  ``Bound`` (a method bound to its receiver), ``Partial`` (``functools.partial`` with its
  bound arguments), ``Wraps`` (a ``functools.wraps`` wrapper: the signature of what it wraps), ``Transformed`` (``jax.vmap(f, in_axes=...)`` and every other
  transform, with its options as values), ``External`` (anything named by an import that
  the model does not read the source of: ``jax.numpy.dot``, a module, a library class),
  and ``Class`` (a class defined in the linted code).

``join`` merges what two paths give (the arms of an ``if``, several calls of a function):
it keeps what both agree on. Every value is immutable and hashable: values are memo keys.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from types import EllipsisType
from typing import TYPE_CHECKING, Any, Literal

import libcst as cst

from jaxlint.base.literals import UNKNOWN

from . import dims
from .dims import Dim

if TYPE_CHECKING:
    from .evaluate import Env

__all__ = [
    "UNKNOWN",
    "Array",
    "Bound",
    "Class",
    "Const",
    "DType",
    "Dict",
    "External",
    "Function",
    "Generator",
    "List",
    "OneOf",
    "Opaque",
    "Partial",
    "Scalar",
    "Seq",
    "Shape",
    "Struct",
    "Transformed",
    "Tuple",
    "Wraps",
]

ConstValue = None | bool | int | float | complex | str | bytes | EllipsisType


@dataclass(frozen=True, slots=True)
class Opaque:
    """A value known only by identity: ``key`` names it (``"f.x"``), ``label`` for messages.
    ``dim``: the size it is when used as one (``n + 1`` of a parameter ``n``: a size only an
    int can be, so the int arithmetic holds there); None: a symbol of its own."""

    key: str
    label: str = field(default="", compare=False)
    dim: Any = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Const:
    """A Python constant. ``named``: the module-level constant that gives this int
    (``N_WORDS = 16``, a ``dims.Named``); a size made from it keeps the name. Two ints of
    different names are different values here (the same number, different sizes)."""

    value: ConstValue
    named: dims.Named | None = field(default=None, compare=False)
    # ``named.key``: what makes two ints of different names different values (a ``Named``
    # compares as its int, so 16 of ``N_WORDS`` would equal 16 of ``D_LATENT``)
    origin: str = ""

    def __repr__(self) -> str:
        return f"Const({self.value!r})"


def named_const(value: int, named: dims.Named) -> Const:
    """The int ``value`` a module-level constant gives, with its name."""
    return Const(value, named, named.key)


ScalarKind = Literal["int", "float", "bool", "complex", "str"]


@dataclass(frozen=True, slots=True)
class Scalar:
    """A Python scalar whose value is not a constant; an int may have a symbolic ``dim``."""

    kind: ScalarKind
    dim: Dim = None


DTypeKind = Literal["bool", "int", "uint", "float", "complex", "key"]


@dataclass(frozen=True, slots=True)
class DType:
    """A dtype kind, and its name when known (``float32``; ``key<fry>`` for a typed key)."""

    kind: DTypeKind
    name: str | None = None


FLOAT = DType("float")
INT = DType("int")
BOOL = DType("bool")
UINT32 = DType("uint", "uint32")
# a legacy PRNG key (``jax.random.PRNGKey(0)``): uint32 data that jax.random takes as a key
RAW_KEY = DType("uint", "raw key")
KEY = DType("key", "key<fry>")


@dataclass(frozen=True, slots=True)
class Shape:
    """Sizes of the axes; ``rest``: more axes may follow the ``dims`` (the rank is at
    least ``len(dims)``)."""

    dims: tuple[Dim, ...]
    rest: bool = False

    @property
    def rank(self) -> int | None:
        return None if self.rest else len(self.dims)

    def axis(self, i: int) -> Dim:
        """The size of axis ``i`` (negative from the end), None when not known."""
        if i < 0:
            if self.rest or -i > len(self.dims):
                return None
            i += len(self.dims)
        return self.dims[i] if i < len(self.dims) else None

    def has_axis(self, i: int) -> bool | None:
        """Does an axis ``i`` exist (None: not known)."""
        n = len(self.dims)
        if i >= 0:
            return True if i < n else (None if self.rest else False)
        return True if -i <= n else (None if self.rest else False)

    def __str__(self) -> str:
        inner = ", ".join(dims.text(d) for d in self.dims)
        if self.rest:
            inner += ", ..." if inner else "..."
        elif len(self.dims) == 1:
            inner += ","
        return f"({inner})"


SCALAR_SHAPE = Shape(())


@dataclass(frozen=True, slots=True)
class Array:
    """An array. ``shape`` None: rank unknown; ``origin`` names it when its shape is not
    known, so that ``x.shape[i]`` is a symbol; ``host``: a NumPy array, not a JAX one."""

    shape: Shape | None = None
    dtype: DType | None = None
    host: bool = False
    origin: str | None = None
    # an abstract tracer: a value a transform traces (a vmapped slice, a jitted argument)
    # or one computed from one; it has no concrete value for Python to branch on or count
    traced: bool = False

    @property
    def rank(self) -> int | None:
        return self.shape.rank if self.shape is not None else None


@dataclass(frozen=True, slots=True)
class Tuple:
    items: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class List:
    items: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Seq:
    """A sequence whose items are not known one by one: ``length`` (a size, maybe a
    symbol: ``jax.devices()`` has the device count) and what every item is."""

    length: Dim
    item: Any = UNKNOWN


@dataclass(frozen=True, slots=True)
class Generator:
    """What calling a generator function gives: an iterator whose items are what its
    ``yield``s give (``item``, their join). Only iteration reads it: a generator has no
    length and no index, and is no JAX type. ``first``: what its first item is, when the
    model knows which ``yield`` runs first and with what (UNKNOWN otherwise); ``every``:
    all its items in order, when the model knows how many and what each is (a ``yield``
    under ``for`` loops over known items), else None."""

    item: Any = UNKNOWN
    first: Any = UNKNOWN
    every: tuple[Any, ...] | None = None


@dataclass(frozen=True, slots=True)
class Dict:
    """A dict display or ``dict(...)``; keys are constants."""

    items: tuple[tuple[ConstValue, Any], ...]

    def get(self, key: ConstValue) -> Any:
        for k, v in self.items:
            if k == key and type(k) is type(key):
                return v
        return None


StructKind = Literal["pytree", "object"]


@dataclass(frozen=True, slots=True)
class Struct:
    """An instance of ``cls``: ``fields`` in declaration order. ``kind`` "pytree": its
    fields (but ``static`` ones) are pytree children (dataclass pytrees, NamedTuple,
    ``eqx.Module``); "object": a plain instance, one leaf that is not a JAX type."""

    cls: Any  # Class or External
    fields: tuple[tuple[str, Any], ...]
    kind: StructKind = "pytree"
    static: frozenset[str] = frozenset()

    def get(self, name: str) -> Any:
        for k, v in self.fields:
            if k == name:
                return v
        return None


@dataclass(frozen=True, slots=True)
class Function:
    """A def or lambda, with the environment of the function it is defined in (None at
    module level or when not known)."""

    node: cst.FunctionDef | cst.Lambda
    env: Env | None = None
    program: Any = field(default=None, compare=False, repr=False)  # the Program of its file

    @property
    def name(self) -> str:
        return "<lambda>" if isinstance(self.node, cst.Lambda) else self.node.name.value

    def __repr__(self) -> str:
        return f"Function({self.name})"


@dataclass(frozen=True, slots=True)
class Bound:
    """``receiver.method``: ``func`` called with ``receiver`` as its first argument."""

    func: Any
    receiver: Any


@dataclass(frozen=True, slots=True)
class Partial:
    """``functools.partial(func, *args, **keywords)``; ``star``: ``*``/``**`` among them."""

    func: Any
    args: tuple[Any, ...] = ()
    keywords: tuple[tuple[str, Any], ...] = ()
    star: bool = False
    node: cst.CSTNode | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Wraps:
    """``functools.wraps(wrapped)`` applied to ``func``: a call calls ``func``; its
    signature (what ``inspect.signature`` reports, through ``__wrapped__``) is ``wrapped``'s."""

    func: Any
    wrapped: Any


@dataclass(frozen=True, slots=True)
class Transformed:
    """``api(target, **options)``: a JAX transform applied to a callable. ``options``
    holds every option as an abstract value (positional ones under their parameter
    names); ``unknown_options``: ``**options`` made some of them unreadable."""

    api: str
    target: Any
    options: tuple[tuple[str, Any], ...] = ()
    node: cst.CSTNode | None = field(default=None, compare=False, repr=False)
    unknown_options: bool = False

    def option(self, name: str, default: Any = None) -> Any:
        for k, v in self.options:
            if k == name:
                return v
        return default

    def given(self, name: str) -> bool:
        return any(k == name for k, _ in self.options)


@dataclass(frozen=True, slots=True)
class External:
    """Something the model knows by name only: a library function, module or class."""

    qualified: str


@dataclass(frozen=True, slots=True)
class Class:
    """A class defined in the linted code."""

    node: cst.ClassDef
    program: Any = field(default=None, compare=False, repr=False)

    @property
    def name(self) -> str:
        return self.node.name.value

    def __repr__(self) -> str:
        return f"Class({self.name})"


@dataclass(frozen=True, slots=True)
class OneOf:
    """A callable that is one of a few known ones (``fn`` rebound in one arm of an
    ``if``): a call calls each, and gives what they agree on."""

    options: tuple[Any, ...]


CALLABLES = (Function, Bound, Partial, Transformed, External, Class, OneOf, Wraps)
MAX_OPTIONS = 4


# ----------------------------------------------------------------------------------
# join
# ----------------------------------------------------------------------------------
def join(a: Any, b: Any) -> Any:
    """What both values agree on."""
    if a is b or a == b:
        return a
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    ta, tb = type(a), type(b)
    if ta is Const or ta is Scalar:
        return _join_scalars(a, b)
    if ta is Array and tb is Array:
        if a.host != b.host:
            return UNKNOWN  # a NumPy array on one path, a JAX array on the other: not one kind
        return Array(
            join_shapes(a.shape, b.shape),
            a.dtype if a.dtype == b.dtype else _join_dtypes(a.dtype, b.dtype),
            a.host,
            a.origin if a.origin == b.origin else None,
            a.traced or b.traced,
        )
    if ta is tb and ta in (Tuple, List):
        if len(a.items) != len(b.items):
            return UNKNOWN
        return ta(tuple(join(x, y) for x, y in zip(a.items, b.items, strict=True)))
    if ta is Dict and tb is Dict:
        ka, kb = [k for k, _ in a.items], [k for k, _ in b.items]
        if ka != kb:
            return UNKNOWN
        return Dict(tuple((k, join(x, y)) for (k, x), (_, y) in zip(a.items, b.items, strict=True)))
    if ta in CALLABLES and tb in CALLABLES and ta is not External and tb is not External:
        options = list(a.options) if ta is OneOf else [a]
        for x in b.options if tb is OneOf else (b,):
            if x not in options:
                options.append(x)
        return OneOf(tuple(options)) if len(options) <= MAX_OPTIONS else UNKNOWN
    if ta is Struct and tb is Struct and a.cls == b.cls and [k for k, _ in a.fields] == [k for k, _ in b.fields]:
        return Struct(
            a.cls,
            tuple((k, join(x, y)) for (k, x), (_, y) in zip(a.fields, b.fields, strict=True)),
            a.kind,
            a.static,
        )
    return UNKNOWN


def join_all(values: list[Any] | tuple[Any, ...]) -> Any:
    if not values:
        return UNKNOWN
    out = values[0]
    for v in values[1:]:
        out = join(out, v)
        if out is UNKNOWN:
            break
    return out


def _scalar_kind(v: Any) -> ScalarKind | None:
    if type(v) is Scalar:
        return v.kind
    x = v.value
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, int):
        return "int"
    if isinstance(x, float):
        return "float"
    if isinstance(x, complex):
        return "complex"
    if isinstance(x, str):
        return "str"
    return None


def _join_scalars(a: Any, b: Any) -> Any:
    if type(b) not in (Const, Scalar):
        return UNKNOWN
    ka, kb = _scalar_kind(a), _scalar_kind(b)
    if ka is None or ka != kb:
        return UNKNOWN
    return Scalar(ka)


def _join_dtypes(a: DType | None, b: DType | None) -> DType | None:
    if a is None or b is None or a.kind != b.kind:
        return None
    return DType(a.kind)


def join_shapes(a: Shape | None, b: Shape | None) -> Shape | None:
    if a is None or b is None:
        return None
    if a == b:
        return a
    if a.rest or b.rest:
        n = min(len(a.dims), len(b.dims))
        return Shape(tuple(x if x == y else None for x, y in zip(a.dims[:n], b.dims[:n], strict=True)), True)
    if len(a.dims) != len(b.dims):
        return None
    return Shape(tuple(x if x == y else None for x, y in zip(a.dims, b.dims, strict=True)))


# ----------------------------------------------------------------------------------
# reading values
# ----------------------------------------------------------------------------------
def traced(v: Any) -> bool:
    """Is any leaf of ``v`` a tracer?"""
    if type(v) is Array:
        return v.traced
    kids = children(v)
    return kids is not None and any(traced(x) for _, x in kids)


def with_trace(v: Any) -> Any:
    """``v`` with every array leaf a tracer (what a transform's function receives)."""
    t = type(v)
    if t is Array:
        return v if v.traced else Array(v.shape, v.dtype, v.host, v.origin, True)
    if t is Tuple or t is List:
        return t(tuple(with_trace(x) for x in v.items))
    if t is Dict:
        return Dict(tuple((k, with_trace(x)) for k, x in v.items))
    if t is Struct and v.kind == "pytree":
        return Struct(v.cls, tuple((k, x if k in v.static else with_trace(x)) for k, x in v.fields), v.kind, v.static)
    return v


def is_number(v: Any) -> bool:
    """A Python number (an int, float, bool or complex; not a string)."""
    if type(v) is Const:
        return isinstance(v.value, (bool, int, float, complex))
    return type(v) is Scalar and v.kind != "str"


def as_array(v: Any) -> Array | None:
    """The array a value is, or would become when JAX receives it (a Python number is a
    rank-0 array); None for anything else."""
    if type(v) is Array:
        return v
    if is_number(v):
        kind = _scalar_kind(v)
        dt = {"bool": BOOL, "int": INT, "float": FLOAT, "complex": DType("complex")}.get(kind or "")
        return Array(SCALAR_SHAPE, dt)
    return None


def as_dim(v: Any) -> Dim:
    """The size a Python int value holds (a constant, or a symbol), else None. An
    ``Opaque`` value used as a size is a symbol of its own (``cfg.n_heads``)."""
    if type(v) is Const and isinstance(v.value, int) and not isinstance(v.value, bool):
        return v.named if v.named is not None else v.value
    if type(v) is Scalar and v.kind == "int":
        return v.dim
    if type(v) is Opaque:
        return v.dim if v.dim is not None else dims.sym(v.key, v.label)
    return None


def int_value(d: Dim) -> Any:
    """The Python int value of a size."""
    if isinstance(d, int):
        return named_const(int(d), d) if isinstance(d, dims.Named) else Const(d)
    return Scalar("int", d)


def constant(v: Any) -> Any:
    """The plain Python value of a value made of constants (tuples, lists, dicts of
    them), or UNKNOWN."""
    t = type(v)
    if t is Const:
        return v.value
    if t is Tuple or t is List:
        out = [constant(x) for x in v.items]
        if any(x is UNKNOWN for x in out):
            return UNKNOWN
        return tuple(out) if t is Tuple else out
    if t is Dict:
        d = {}
        for k, x in v.items:
            c = constant(x)
            if c is UNKNOWN:
                return UNKNOWN
            d[k] = c
        return d
    return UNKNOWN


def from_constant(x: Any) -> Any:
    """The abstract value of a plain Python value."""
    if isinstance(x, tuple):
        return Tuple(tuple(from_constant(e) for e in x))
    if isinstance(x, list):
        return List(tuple(from_constant(e) for e in x))
    if isinstance(x, dict):
        return Dict(tuple((k, from_constant(e)) for k, e in x.items()))
    if x is None or isinstance(x, (bool, int, float, complex, str, bytes, EllipsisType)):
        return Const(x)
    return UNKNOWN


# ----------------------------------------------------------------------------------
# pytrees
# ----------------------------------------------------------------------------------
PathEntry = int | str | tuple[str, str]  # index, dict key, ("attr", name)
Path = tuple[PathEntry, ...]


def children(v: Any) -> list[tuple[PathEntry, Any]] | None:
    """The pytree children of a container value; None for a leaf; ``UNKNOWN`` leaves the
    structure unknown (the caller decides)."""
    t = type(v)
    if t is Tuple or t is List:
        return list(enumerate(v.items))
    if t is Dict:
        # jax flattens a dict in sorted key order
        try:
            ordered = sorted(v.items, key=lambda kv: kv[0])
        except TypeError:
            ordered = list(v.items)
        return [(k, x) for k, x in ordered if isinstance(k, (str, int))]
    if t is Struct and v.kind == "pytree":
        return [(("attr", k), x) for k, x in v.fields if k not in v.static]
    if t is Const and v.value is None:
        return []  # None is an empty pytree
    return None


def leaves(v: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every leaf with its path; an ``UNKNOWN`` part is yielded as one leaf ``UNKNOWN``."""
    kids = children(v)
    if kids is None:
        yield path, v
        return
    for k, x in kids:
        yield from leaves(x, (*path, k))


def path_text(root: str, path: Path) -> str:
    """``params['w1']``, ``layers[0][1]``, ``state.step``."""
    out = root
    for p in path:
        if isinstance(p, tuple):
            out += f".{p[1]}"
        elif isinstance(p, str):
            out += f"[{p!r}]"
        else:
            out += f"[{p}]"
    return out


def describe(v: Any) -> str:
    """A short description of a value for messages."""
    t = type(v)
    if t is Array:
        kind = "NumPy array" if v.host else "array"
        return f"an {kind} of shape {v.shape}" if v.shape is not None else f"an {kind}"
    if t is Const:
        if v.value is None:
            return "`None`"
        if isinstance(v.value, bool):
            return f"the Python bool `{v.value}`"
        if isinstance(v.value, (int, float, complex)):
            return f"the Python {type(v.value).__name__} `{v.value!r}`"
        return f"the constant `{v.value!r}`"
    if t is Scalar:
        return f"a Python {v.kind}"
    if t in (Function, Bound, Partial, Transformed, External, Class):
        return "a Python callable"
    if t is Struct and v.kind == "object":
        return f"an instance of `{_class_name(v.cls)}`"
    return "a value"


def _class_name(cls: Any) -> str:
    if type(cls) is Class:
        return cls.name
    if type(cls) is External:
        return cls.qualified.rsplit(".", 1)[-1]
    return "?"
