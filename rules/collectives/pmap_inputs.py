"""What reaches the mapped arguments of a ``pmap``: where each was built, and its leading axis.

``pmap`` maps axis 0 of every mapped argument (``in_axes`` entry 0, the default) over the
devices: that axis must be the device count. It does not split a batch for you. This
module reads, from the program model, every call of a pmapped function, and for each
argument at a mapped position follows the value back through its reaching bindings
(one binding; or, for parameters, one ``init`` plus rebindings to pmapped outputs, as
in a training loop) to the expression that built it:

- ``fixed``: a leading axis of a fixed size, as the model's shapes know it
  (``jnp.ones((32, 100))``, ``random.normal(key, (batch, d))`` with a constant ``batch``,
  ``split(key, 16)``, ``jnp.stack([a, b])``, ``x.reshape(32, -1)``);
- ``misplaced``: a reshape that puts the device count on another axis
  (``x.reshape(batch, n_devices, -1)``);
- ``key``: one PRNG key (``random.PRNGKey(0)``, ``random.key(0)``, one half of ``split``);
- ``params``: the output of an ``init`` that consumed one PRNG key (one copy of the model,
  not one per device).

Values built from the device count (``jax.local_device_count()``, ``len(jax.devices())``,
a name bound to one), replicated or sharded values, outputs of a pmapped function, and
everything else are unknown: silent. A parameter of the function holding the pmapped
call is followed to the calls of that function in the file (the seed's ``train_step``),
and the finding is placed on the argument of that outer call.

Shared by JAX203 and JAX204 through ``ctx.shared``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN
from jaxlint.base.names import dotted
from jaxlint.model import External, Function, Partial, Transformed, program
from jaxlint.model.shapes import shape, size

PMAP = "jax.pmap"
DEFAULT = object()  # in_axes not given: 0 for every positional argument
MAX_DEPTH = 8

DEVICE_COUNTS = frozenset({"jax.local_device_count", "jax.device_count"})
DEVICE_LISTS = frozenset({"jax.devices", "jax.local_devices"})
# calls whose result has a leading device axis already
PER_DEVICE = frozenset(
    {
        "jax.device_put_replicated",
        "jax.device_put_sharded",
        "flax.jax_utils.replicate",
        "flax.training.common_utils.shard",
        "flax.training.common_utils.shard_prng_key",
    }
)
# array constructors whose leading size a mapped argument may show: qualified name ->
# (index, keyword) of the shape argument (the sizes themselves come from the model)
SHAPED = {
    **{f"{m}.{f}": (0, "shape") for m in ("jax.numpy", "numpy") for f in ("ones", "zeros", "empty", "full")},
    **{
        f"jax.random.{f}": (1, "shape")
        for f in (
            "normal",
            "uniform",
            "randint",
            "gumbel",
            "laplace",
            "logistic",
            "cauchy",
            "exponential",
            "rademacher",
        )
    },
    "jax.random.bernoulli": (2, "shape"),
    "jax.random.truncated_normal": (3, "shape"),
    "numpy.random.normal": (2, "size"),
    "numpy.random.uniform": (2, "size"),
}
DIMS = frozenset({"numpy.random.randn", "numpy.random.rand"})  # the dimensions as arguments
LIKE = frozenset(f"{m}.{f}_like" for m in ("jax.numpy", "numpy") for f in ("ones", "zeros", "empty", "full"))
FROM_LIST = frozenset(f"{m}.{f}" for m in ("jax.numpy", "numpy") for f in ("array", "asarray", "stack"))
RESHAPES = frozenset({"jax.numpy.reshape", "numpy.reshape"})
SINGLE_KEYS = frozenset({"jax.random.PRNGKey", "jax.random.key", "jax.random.fold_in"})  # fold_in takes one key only
SPLIT = "jax.random.split"
ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power)


# ----------------------------------------------------------------------------------
# pmap applications and their calls
# ----------------------------------------------------------------------------------
@dataclass
class PmapSite:
    """One ``pmap`` application (call, decorator or ``partial``) and the calls of its result."""

    node: cst.CSTNode
    in_axes: Any  # DEFAULT, an int, None, a tuple/list, or UNKNOWN
    static: frozenset[int]  # static_broadcasted_argnums
    devices_given: bool  # devices= or axis_size= fixes the mapped size itself
    label: str  # how messages name it: "`parallel_loss` (pmap of `compute_loss`)"
    calls: list[cst.Call] = field(default_factory=list)

    def mapped(self, i: int) -> bool:
        """Is positional argument ``i`` mapped over its leading axis? (False when unknown)"""
        if i in self.static or self.in_axes is UNKNOWN:
            return False
        if self.in_axes is DEFAULT:
            return True
        if isinstance(self.in_axes, (tuple, list)):
            return i < len(self.in_axes) and _zero(self.in_axes[i])
        return _zero(self.in_axes)


def _zero(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v == 0


def _target_label(ctx, app: Transformed) -> str | None:
    """How a message names the pmapped function: `compute_loss`, a lambda."""
    target = app.target
    while type(target) is Partial:
        target = target.func
    if type(target) is Function:
        return "a lambda" if isinstance(target.node, cst.Lambda) else f"`{target.name}`"
    node = app.target_node
    if isinstance(node, cst.Lambda):
        return "a lambda"
    if type(target) is External:
        return f"`{target.qualified.rsplit('.', 1)[-1]}`"
    text = dotted(node) if node is not None else None
    return f"`{text}`" if text else None


def pmap_sites(ctx) -> list[PmapSite]:
    """Every pmap application of the file, with the calls of the pmapped function."""
    cached = ctx.shared.get("JAX2.pmap_sites")
    if cached is not None:
        return cached
    p = program(ctx)
    sites: list[PmapSite] = []
    for app in p.applications(PMAP):
        if app.star_kwargs or (isinstance(app.node, cst.Call) and any(a.star == "*" for a in app.node.args)):
            continue
        in_axes: Any = DEFAULT
        static: frozenset[int] = frozenset()
        devices_given = False
        for kw, value in app.keywords.items():
            if kw == "in_axes":
                in_axes = p.literal(value)
                if isinstance(in_axes, (bool, str, dict)):
                    in_axes = UNKNOWN
            elif kw == "static_broadcasted_argnums":
                v = p.literal(value)
                if isinstance(v, int):
                    v = (v,)
                if not isinstance(v, (tuple, list)) or not all(isinstance(x, int) for x in v):
                    in_axes = UNKNOWN
                else:
                    static = frozenset(v)
            elif kw in ("devices", "axis_size") and not (isinstance(value, cst.Name) and value.value == "None"):
                devices_given = True
        site = PmapSite(app.node, in_axes, static, devices_given, "")
        site.calls, _ = p.invocations(app.node)
        target = _target_label(ctx, app)
        bound = _bound_name(p, app)
        if app.decorator:
            site.label = f"the pmapped {target}" if target else "the pmap"
        elif bound:
            site.label = f"`{bound}` (a pmap of {target})" if target else f"`{bound}` (a pmap)"
        else:
            site.label = f"the pmap of {target}" if target else "the pmap"
        if site.calls:
            sites.append(site)
    ctx.shared["JAX2.pmap_sites"] = sites
    return sites


def _bound_name(p, app: Transformed) -> str | None:
    """The name the pmapped value is bound to (``p_step = jax.pmap(step)``), if one."""
    if app.decorator:
        return None
    b = p.binding_of_value(app.node)
    return b.name if b is not None else None


# ----------------------------------------------------------------------------------
# where a value comes from
# ----------------------------------------------------------------------------------
@dataclass
class Origin:
    """What built a value, as far as it matters for a mapped argument."""

    kind: str  # "fixed" | "misplaced" | "key" | "params" | "device" (built per device: fine)
    node: cst.CSTNode  # the expression that built it
    leading: int | None = None  # fixed: the size of axis 0
    shape: tuple[int, ...] | None = None  # fixed: the whole shape, when every dimension is known
    why: str = ""  # fixed/misplaced: a short explanation ("2 keys", "axis 1")
    data: bool = False  # fixed: an array of data (the reshape fix applies)
    batch_name: str | None = None  # fixed: the leading size is a name that says "batch" (`batch_size`)


@dataclass
class Param:
    """The value is parameter ``index`` of ``func`` (not rebound before the use)."""

    func: cst.FunctionDef
    index: int
    name: str


class Origins:
    """Follows values back to what built them, through the program model's bindings."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.p = program(ctx)

    def qualified(self, func: cst.BaseExpression) -> str | None:
        v = self.p.value(func)
        return v.qualified if type(v) is External else None

    def lookup(self, name: cst.Name, depth: int) -> Origin | Param | None:
        """The origin of the value a name holds where it is used."""
        found = self.p.reaching(name)
        if not found:
            return None
        if len(found) > 1:
            return self._carried(found, depth)
        b = found[0]
        if b.kind == "param":
            return self._param(b)
        if b.kind not in ("assign", "walrus") or b.value is None:
            return None
        inner = self.p.unpacked(b.value, b.unpack)
        if inner is not None:
            return self.origin(inner, depth + 1)
        if len(b.unpack) == 1:
            return self._element(b.value)
        return None

    def _param(self, b) -> Param | None:
        fn = b.scope.node
        if b.scope.kind != "function" or not isinstance(fn, cst.FunctionDef):
            return None
        positional = [q.name.value for q in [*fn.params.posonly_params, *fn.params.params]]
        if b.name not in positional:
            return None
        cls = b.scope.parent
        if cls is not None and cls.kind == "class":
            return None  # a method: its callers pass ``self`` first
        if any(not self._keeps_arguments(d.decorator) for d in fn.decorators):
            return None  # @jax.vmap and friends change what the callers' arguments become
        return Param(fn, positional.index(b.name), b.name)

    def _keeps_arguments(self, decorator: cst.BaseExpression) -> bool:
        """``@jax.jit`` (or ``@partial(jax.jit, ...)``, ``@jax.jit(...)``) hands the arguments on as they are."""
        v = self.p.value(decorator)
        if type(v) is Partial:
            v = v.func
        return type(v) is External and v.qualified == "jax.jit"

    def _carried(self, found, depth: int) -> Origin | None:
        """``params = model.init(key, x)`` then ``params = p_step(params, ...)`` in a loop: the
        first call still gets the one copy from ``init``; every other binding is the output
        of a pmapped call, which has a device axis."""
        pmapped = self.pmapped_calls()
        first: Origin | None = None
        for b in found:
            if b.kind not in ("assign", "walrus") or b.value is None:
                return None
            if isinstance(b.value, cst.Call) and b.value in pmapped:
                continue
            if first is not None:
                return None
            inner = self.p.unpacked(b.value, b.unpack)
            o = (
                self.origin(inner, depth + 1)
                if inner is not None
                else (self._element(b.value) if len(b.unpack) == 1 else None)
            )
            if not isinstance(o, Origin) or o.kind != "params":
                return None
            first = o
        return first

    def pmapped_calls(self) -> frozenset[cst.Call]:
        got = self.ctx.shared.get("JAX2.pmapped_calls")
        if got is None:
            got = self.ctx.shared["JAX2.pmapped_calls"] = frozenset(c for s in pmap_sites(self.ctx) for c in s.calls)
        return got

    def _element(self, value: cst.BaseExpression) -> Origin | None:
        """``k1, k2 = jax.random.split(key)``: each name holds one key; ``params, state =
        model.init(key, x)``: each holds part of one copy of the model."""
        if isinstance(value, cst.Call) and self.qualified(value.func) == SPLIT:
            return Origin("key", value, why="one key of `jax.random.split`")
        if isinstance(value, cst.Call):
            return self._init(value, 0)
        return None

    # -- expressions ----------------------------------------------------------------
    def origin(self, expr: cst.BaseExpression, depth: int = 0) -> Origin | Param | None:
        if depth > MAX_DEPTH:
            return None
        if isinstance(expr, cst.Name):
            return self.lookup(expr, depth)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, ARITHMETIC):
            if _number(expr.right):
                return _data(self.origin(expr.left, depth + 1))
            if _number(expr.left):
                return _data(self.origin(expr.right, depth + 1))
            return None
        if isinstance(expr, cst.Subscript):
            inner = expr.value
            if isinstance(inner, cst.Call) and self.qualified(inner.func) == SPLIT and _int_index(expr):
                return Origin("key", expr, why="one key of `jax.random.split`")
            return None
        if not isinstance(expr, cst.Call):
            return None
        if any(a.star for a in expr.args):
            return None
        v = self.p.value(expr.func)
        if type(v) is Transformed and v.api == PMAP:
            if "out_axes" in v.keywords:
                return None  # out_axes=None returns one copy
            return Origin("device", expr)  # the output of a pmapped function
        if isinstance(expr.func, cst.Call):
            return None
        q = v.qualified if type(v) is External else None
        args = [a for a in expr.args if a.keyword is None]
        if q in PER_DEVICE:
            return Origin("device", expr)
        if q in SINGLE_KEYS:
            return Origin("key", expr, why=f"`{_short(q)}`")
        if q == SPLIT:
            num = _arg(expr, 1, "num")
            if num is None:
                return Origin("fixed", expr, 2, why="`jax.random.split(key)` makes 2 keys")
            if self.mentions_device_count(num):
                return Origin("device", expr)
            return self._fixed(expr, "keys")
        if q in SHAPED:
            index, keyword = SHAPED[q]
            given = _arg(expr, index, keyword)
            return self._shaped(expr, _first_dim(self.p, given)) if given is not None else None
        if q in DIMS:
            return self._shaped(expr, args[0].value if args else None)
        if q in LIKE:
            return _data(self.origin(args[0].value, depth + 1)) if args else None
        if q in RESHAPES:
            return self._reshape([a.value for a in args[1:]], expr) if args else None
        if q in FROM_LIST:
            return self._from_list(q, expr, args, depth)
        if q in ("jax.numpy.arange", "numpy.arange") and len(args) == 1 and len(expr.args) == 1:
            if self.mentions_device_count(args[0].value):
                return Origin("device", expr)
            return self._fixed(expr, "elements", data=True)
        if isinstance(expr.func, cst.Attribute) and q is None:
            method = expr.func.attr.value
            if method == "reshape":
                return self._reshape([a.value for a in args], expr)
            if method == "astype":
                return _data(self.origin(expr.func.value, depth + 1))
        if q is None or not q.startswith(("jax.", "numpy.")):
            return self._init(expr, depth)
        return None

    def _from_list(self, q: str, expr: cst.Call, args: list[cst.Arg], depth: int) -> Origin | None:
        if not args or len(expr.args) != 1:
            return None  # axis=, dtype=: not worth guessing
        items = args[0].value
        if isinstance(items, (cst.List, cst.Tuple)):
            if any(isinstance(e, cst.StarredElement) for e in items.elements) or not items.elements:
                return None
            n = len(items.elements)
            what = "stacks" if q.endswith("stack") else "builds an array from"
            return Origin("fixed", expr, n, why=f"`{_short(q)}` {what} a list of {n}", data=not q.endswith("stack"))
        if q.endswith(("array", "asarray")) and isinstance(items, cst.Name):
            return _data(self.origin(items, depth + 1))
        return None

    def _init(self, expr: cst.Call, depth: int) -> Origin | None:
        """``params = model.init(key, x)`` with one PRNG key: one copy of the parameters."""
        name = dotted(expr.func) or ""
        last = name.rsplit(".", 1)[-1]
        if not (last == "init" or last.startswith("init_") or last.endswith("_init")):
            return None
        if any(w in name.lower() for w in ("replica", "shard", "pmap", "device", "parallel")):
            return None  # `init_replicated_state`: says it returns one copy per device
        pos = [a for a in expr.args if a.keyword is None]
        if not pos:
            return None
        first = pos[0].value
        if (isinstance(first, cst.Name) and self._keyish(first)) or isinstance(first, (cst.Call, cst.Subscript)):
            o = self.origin(first, depth + 1)
            if isinstance(o, Origin) and o.kind == "key":
                return Origin("params", expr, why=f"`{self.ctx.code(expr.func)}`")
        return None

    @staticmethod
    def _keyish(name: cst.Name) -> bool:
        return any(w in name.value.lower() for w in ("key", "rng", "seed"))

    # -- the device count -----------------------------------------------------------
    def device_count(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """Is the expression the device count (a call, ``len`` of the devices, or a name bound to one)?"""
        if depth > MAX_DEPTH:
            return False
        if isinstance(expr, cst.Call):
            if self.qualified(expr.func) in DEVICE_COUNTS:
                return True
            if isinstance(expr.func, cst.Name) and expr.func.value == "len" and len(expr.args) == 1:
                return self._devices(expr.args[0].value, depth + 1)
            return False
        if isinstance(expr, cst.Name):
            value = self._bound_once(expr)
            return value is not None and self.device_count(value, depth + 1)
        return False

    def _bound_once(self, name: cst.Name) -> cst.BaseExpression | None:
        b = self.p.binding(name)
        if b is None or b.kind != "assign" or b.unpack or b.value is None:
            return None
        return b.value

    def _devices(self, expr: cst.BaseExpression, depth: int) -> bool:
        if depth > MAX_DEPTH:
            return False
        if isinstance(expr, cst.Call):
            return self.qualified(expr.func) in DEVICE_LISTS
        if isinstance(expr, cst.Subscript):  # jax.devices()[:4]
            return self._devices(expr.value, depth + 1)
        if isinstance(expr, cst.Name):
            value = self._bound_once(expr)
            return value is not None and self._devices(value, depth + 1)
        return False

    def mentions_device_count(self, expr: cst.BaseExpression) -> bool:
        if self.device_count(expr):
            return True
        return any(isinstance(n, (cst.Name, cst.Call)) and self.device_count(n) for n in self.ctx.descendants(expr))

    # -- fixed sizes, read from the model's shapes ------------------------------------
    def _fixed(self, expr: cst.Call, what: str, data: bool = False) -> Origin | None:
        """A size counted in ``what`` (keys, elements): the model's leading axis."""
        s = shape(self.p, expr)
        n = s.axis(0) if s is not None else None
        if n is None or n <= 0:
            return None
        return Origin("fixed", expr, n, (n,) if data else None, why=f"{n} {what}", data=data)

    def _shaped(self, expr: cst.Call, first: cst.BaseExpression | None) -> Origin | None:
        """An array built with a shape; ``first`` is how the code gives its leading size."""
        if first is None or isinstance(first, cst.StarredElement):
            return None
        if self.mentions_device_count(first):
            return Origin("device", expr)
        s = shape(self.p, expr)
        n = s.axis(0) if s is not None else None
        if s is None or n is None or n <= 0:
            return None
        known = tuple(d for d in s.dims if d is not None)
        dims = known if s.exact and len(known) == len(s.dims) else None
        named = first.value if isinstance(first, cst.Name) and _batch_name(first.value) else None
        return Origin("fixed", expr, n, dims, why=f"leading axis {n}", data=True, batch_name=named)

    def _reshape(self, args: list[cst.BaseExpression], expr: cst.Call) -> Origin | None:
        if len(args) == 1:
            a = args[0]
            if isinstance(a, cst.BinaryOperation) and isinstance(a.operator, cst.Add):
                a = a.left  # (n_devices, -1) + x.shape[1:]
            dims = [e.value for e in a.elements] if isinstance(a, (cst.Tuple, cst.List)) else [a]
        else:
            dims = args
        if not dims or isinstance(dims[0], cst.StarredElement):
            return None
        if self.mentions_device_count(dims[0]):
            return Origin("device", expr)
        for i, d in enumerate(dims[1:], start=1):
            if not isinstance(d, cst.StarredElement) and self.device_count(d):
                return Origin("misplaced", expr, why=f"axis {i}")
        n = size(self.p, dims[0])
        if n is None or n <= 0:
            return None
        given = [size(self.p, d) if not isinstance(d, cst.StarredElement) else None for d in dims]
        positive = tuple(x for x in given if x is not None and x > 0)
        shown = positive if len(positive) == len(given) else None
        return Origin("fixed", expr, n, shown, why=f"leading axis {n}", data=True)


def _first_dim(p, given: cst.BaseExpression) -> cst.BaseExpression | None:
    """How a shape argument gives its leading size: ``(32, d)`` -> ``32``, ``n`` -> ``n``."""
    d = p.display(given)
    if d is not None:
        return d.elements[0].value if d.elements and not isinstance(d.elements[0], cst.StarredElement) else None
    return given


def _batch_name(name: str) -> bool:
    """``batch_size``, ``BATCH``: a batch, not a device count (``batches_per_device`` is unclear)."""
    low = name.lower()
    return "batch" in low and not any(w in low for w in ("device", "replica", "shard", "core", "host"))


def _arg(call: cst.Call, index: int, keyword: str) -> cst.BaseExpression | None:
    for a in call.args:
        if a.keyword is not None and a.keyword.value == keyword:
            return a.value
    pos = [a for a in call.args if a.keyword is None and not a.star]
    return pos[index].value if index < len(pos) else None


def _number(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.UnaryOperation):
        expr = expr.expression
    return isinstance(expr, (cst.Integer, cst.Float))


def _int_index(expr: cst.Subscript) -> bool:
    if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
        return False
    v = expr.slice[0].slice.value
    if isinstance(v, cst.UnaryOperation):
        v = v.expression
    return isinstance(v, cst.Integer)


def _data(o: Origin | Param | None) -> Origin | None:
    """Arithmetic and ``astype`` keep the leading axis of data, not of keys or parameters."""
    return o if isinstance(o, Origin) and (o.data or o.kind in ("device", "misplaced")) else None


def _short(q: str) -> str:
    """``jax.numpy.stack`` -> ``jnp.stack``, ``jax.random.PRNGKey`` -> ``random.PRNGKey``."""
    parts = q.split(".")
    if parts[:2] == ["jax", "numpy"] or parts[0] == "numpy":
        return f"{'jnp' if parts[0] == 'jax' else 'np'}.{parts[-1]}"
    return ".".join(parts[-2:])


# ----------------------------------------------------------------------------------
# mapped arguments whose origin is visibly wrong
# ----------------------------------------------------------------------------------
REPORTED = frozenset({"fixed", "misplaced", "key", "params"})


@dataclass
class Finding:
    """A mapped argument of a pmapped call that was built without a device axis."""

    site: PmapSite
    call: cst.Call  # the call of the pmapped function
    position: int
    arg: cst.Arg  # where it is reported: at ``call``, or at the outer call that passes it in
    origin: Origin
    via: tuple[str, str] | None = None  # (function, parameter) the value flows through to ``call``
    beside: cst.Arg | None = None  # another mapped argument of ``call`` built with a device axis


def findings(ctx) -> list[Finding]:
    """Every mapped argument of every pmapped call in the file with a reported origin."""
    cached = ctx.shared.get("JAX2.pmap_findings")
    if cached is not None:
        return cached
    out: list[Finding] = []
    sites = pmap_sites(ctx)
    if sites:
        origins = ctx.shared["JAX2.origins"] = Origins(ctx)
        seen: set[tuple[cst.CSTNode, str]] = set()
        for site in sites:
            for call in site.calls:
                got: list[tuple[int, cst.Arg, Origin, tuple[str, str] | None]] = []
                beside = None
                for i, a in enumerate(_positional(call)):
                    if not site.mapped(i):
                        continue
                    o = origins.origin(a.value)
                    if isinstance(o, Param):
                        for outer in _outer_args(ctx, o):
                            o2 = origins.origin(outer.value)
                            if isinstance(o2, Origin) and o2.kind in REPORTED:
                                got.append((i, outer, o2, (o.func.name.value, o.name)))
                    elif isinstance(o, Origin) and o.kind in REPORTED:
                        got.append((i, a, o, None))
                    elif isinstance(o, Origin) and o.kind == "device" and beside is None:
                        beside = a
                for i, a, o, via in got:
                    if (a, o.kind) not in seen:
                        seen.add((a, o.kind))
                        out.append(Finding(site, call, i, a, o, via, beside))
    ctx.shared["JAX2.pmap_findings"] = out
    return out


def device_guarded(ctx, node: cst.CSTNode) -> bool:
    """Does the def around ``node`` check the device count (``if jax.device_count() < 2:
    self.skipTest(...)``, ``@required_devices(2)``)? Then a fixed size is chosen on purpose."""
    funcs = [a for a in ctx.ancestors(node) if isinstance(a, cst.FunctionDef)]
    if not funcs:
        return False
    outer = funcs[-1]
    for d in outer.decorators:
        if "device" in ctx.code(d.decorator).lower():
            return True
    origins = ctx.shared.get("JAX2.origins") or Origins(ctx)
    for n in ctx.descendants(outer.body, prune=()):
        if isinstance(n, cst.Comparison) and any(
            isinstance(m, cst.Call) and (origins.device_count(m) or origins.qualified(m.func) in DEVICE_LISTS)
            for m in [n, *ctx.descendants(n)]
        ):
            return True
    return False


def _positional(call: cst.Call) -> list[cst.Arg]:
    """Positional arguments up to the first ``*args`` (their positions are known)."""
    out = []
    for a in call.args:
        if a.star:
            break
        if a.keyword is None:
            out.append(a)
    return out


def _outer_args(ctx, p: Param) -> list[cst.Arg]:
    """The arguments given for parameter ``p`` by the calls of its function in this file."""
    calls, _ = program(ctx).invocations(p.func)
    out = []
    for c in calls:
        pos = _positional(c)
        if p.index < len(pos):
            out.append(pos[p.index])
            continue
        for a in c.args:
            if a.keyword is not None and a.keyword.value == p.name:
                out.append(a)
    return out


# ----------------------------------------------------------------------------------
# how messages and fixes name a finding
# ----------------------------------------------------------------------------------
def clip(ctx, node: cst.CSTNode, limit: int = 60) -> str:
    text = " ".join(ctx.code(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe(ctx, f: Finding) -> tuple[str, str]:
    """(the start of a message: who maps what; where the value was built, "" if right there)."""
    lines = exact_lines(ctx, [f.origin.node, f.call])
    value = f.arg.value
    name = f"`{clip(ctx, value, 40)}`"
    at = lines.get(f.origin.node)
    # "" when the argument is the expression that built it: the message names it once
    built = "" if value is f.origin.node else f"`{clip(ctx, f.origin.node)}`" + (f" (line {at})" if at else "")
    if f.via is None:
        return f"{f.site.label} maps {name} over its leading axis, one slice per device", built
    func, param = f.via
    where = f" at line {lines[f.call]}" if f.call in lines else ""
    return (
        f"{name} goes through `{func}` (as `{param}`) to {f.site.label}{where}, which maps it over its "
        "leading axis, one slice per device"
    ), built


def exact_lines(ctx, nodes: list[cst.CSTNode]) -> dict[cst.CSTNode, int]:
    """Start lines of the few nodes a message cites, exactly (``ctx.lines`` may place a
    node whose text occurs twice, ``model.init(key, x)`` in two functions, on the other)."""
    from jaxlint.base.positions import node_ranges

    ranges = node_ranges(ctx.module, nodes, ctx.parents, ctx.source, ctx.shared.setdefault("positions", {}))
    return {n: r[0][0] for n, r in ranges.items()}


def jax_name(ctx) -> str | None:
    """How this file spells the ``jax`` module (for a fix), or None."""
    for local in ctx.names.local_names_for("jax"):
        if "." not in local:
            return local
    return None
