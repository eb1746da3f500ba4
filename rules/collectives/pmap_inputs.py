"""What reaches the mapped arguments of a ``pmap``: where each was built, and its leading axis.

``pmap`` maps axis 0 of every mapped argument (``in_axes`` entry 0, the default) over the
devices: that axis must be the device count. It does not split a batch for you. This
module finds, per file, every call of a pmapped function, and for each argument at a
mapped position follows the value back through plain assignments (one binding in its
scope, made before the use; or, for parameters, one ``init`` before the use plus
rebindings to pmapped outputs, as in a training loop) to the expression that built it:

- ``fixed``: a leading axis of a fixed size (``jnp.ones((32, 100))``, ``random.normal(key,
  (batch, d))`` with a constant ``batch``, ``split(key, 16)``, ``jnp.stack([a, b])``,
  ``x.reshape(32, -1)``);
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

Plain syntax only; shared by JAX203 and JAX204 through ``ctx.shared``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from jaxlint.facts import PARTIAL, Transform
from jaxlint.literals import UNKNOWN
from jaxlint.names import dotted

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
# array constructors: qualified name -> (index, keyword) of the shape argument
SHAPED = {
    **{f"{m}.{f}": (0, "shape") for m in ("jax.numpy", "numpy") for f in ("ones", "zeros", "empty", "full")},
    **{f"jax.random.{f}": (1, "shape") for f in ("normal", "uniform", "randint", "gumbel", "laplace",
                                                  "logistic", "cauchy", "exponential", "rademacher")},
    "jax.random.bernoulli": (2, "shape"),
    "jax.random.truncated_normal": (3, "shape"),
    "numpy.random.normal": (2, "size"),
    "numpy.random.uniform": (2, "size"),
}
# constructors that take the dimensions themselves: np.random.randn(32, 10)
DIMS = frozenset({"numpy.random.randn", "numpy.random.rand"})
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
    transform: Transform
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


def _options(node: cst.CSTNode, t: Transform) -> tuple[list[cst.Arg], cst.BaseExpression | None]:
    """(the pmap's option arguments, the expression naming the mapped function)."""
    if not isinstance(node, cst.Call):
        return [], None
    func = node.func
    if isinstance(func, cst.Call) and func.args:  # partial(jax.pmap, ...)(f)
        pos = [a for a in node.args if a.keyword is None and not a.star]
        return list(func.args[1:]) + [a for a in node.args if a.keyword is not None], pos[0].value if pos else None
    if t.decorator:
        if dotted(func) and (dotted(func) or "").rsplit(".", 1)[-1] == "partial":
            return list(node.args[1:]), None
        return list(node.args), None
    pos = [a for a in node.args if a.keyword is None and not a.star]
    if (dotted(func) or "").rsplit(".", 1)[-1] == "partial":  # partial(jax.pmap, f, ...)
        return list(node.args[2:]), pos[1].value if len(pos) > 1 else None
    return list(node.args[1:]), pos[0].value if pos else None


def pmap_sites(ctx) -> list[PmapSite]:
    """Every pmap application of the file, with the calls of the pmapped function."""
    cached = ctx.shared.get("JAX2.pmap_sites")
    if cached is not None:
        return cached
    sites: list[PmapSite] = []
    calls_by_name: dict[str, list[cst.Call]] = {}
    for n in ctx.parents:
        if type(n) is cst.Call and type(n.func) is cst.Name:
            calls_by_name.setdefault(n.func.value, []).append(n)
    for t, node in ctx.collector.transform_nodes:
        if t.api != PMAP:
            continue
        opts, fun = _options(node, t)
        if any(a.star for a in opts):
            continue
        in_axes: Any = DEFAULT
        static: frozenset[int] = frozenset()
        devices_given = False
        for a in opts:
            kw = a.keyword.value if a.keyword is not None else None
            if kw == "in_axes":
                in_axes = ctx.literal(a.value)
                if isinstance(in_axes, (bool, str, dict)):
                    in_axes = UNKNOWN
            elif kw == "static_broadcasted_argnums":
                v = ctx.literal(a.value)
                if isinstance(v, int):
                    v = (v,)
                if not isinstance(v, (tuple, list)) or not all(isinstance(x, int) for x in v):
                    in_axes = UNKNOWN
                else:
                    static = frozenset(v)
            elif kw in ("devices", "axis_size") and not (isinstance(a.value, cst.Name) and a.value.value == "None"):
                devices_given = True
        site = PmapSite(node, t, in_axes, static, devices_given, "")
        target = (t.target or "").rsplit(".", 1)[-1] if t.target else None
        if isinstance(fun, cst.Lambda):
            target = "a lambda"
        elif target:
            target = f"`{target}`"
        elif fun is not None and dotted(fun):
            target = f"`{dotted(fun)}`"
        site.calls, bound = _calls(ctx, site, calls_by_name)
        if bound and target and t.decorator:
            site.label = f"the pmapped {target}"
        elif bound:
            site.label = f"`{bound}` (a pmap of {target})" if target else f"`{bound}` (a pmap)"
        else:
            site.label = f"the pmap of {target}" if target else "the pmap"
        if site.calls:
            sites.append(site)
    ctx.shared["JAX2.pmap_sites"] = sites
    return sites


def _calls(ctx, site: PmapSite, calls_by_name) -> tuple[list[cst.Call], str | None]:
    node, t = site.node, site.transform
    parent = ctx.parent(node)
    if not t.decorator and isinstance(parent, cst.Call) and parent.func is node:
        return [parent], None
    ref = t.target if t.decorator else t.bound_to
    if ref is None:
        return [], None
    if t.decorator:
        fn = ctx.function_node(ref)
        if not isinstance(fn, cst.FunctionDef) or len(fn.decorators) != 1:
            return [], None  # other decorators change what callers call
        name = fn.name.value
    else:
        name = ref.rsplit(".", 1)[-1]
    return [c for c in calls_by_name.get(name, []) if ctx.ref(c.func) == ref], name


# ----------------------------------------------------------------------------------
# where a value comes from
# ----------------------------------------------------------------------------------
@dataclass
class Origin:
    """What built a value, as far as it matters for a mapped argument."""

    kind: str  # "fixed" | "misplaced" | "key" | "params" | "device" (built per device: fine)
    node: cst.CSTNode  # the expression that built it
    leading: int | None = None  # fixed: the size of axis 0
    shape: tuple[int, ...] | None = None  # fixed: the whole shape, when every dimension is a literal
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
    """Follows names to their one binding, per scope (memoised per file)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._bindings: dict[cst.CSTNode | None, dict[str, list[tuple[cst.CSTNode, cst.BaseExpression | None, int | None]]]] = {}

    # -- bindings -------------------------------------------------------------------
    def bindings(self, scope: cst.CSTNode | None) -> dict[str, list[tuple[cst.CSTNode, cst.BaseExpression | None, int | None]]]:
        """name -> [(binding node, value or None, element index of a tuple target)] in a scope."""
        got = self._bindings.get(scope)
        if got is not None:
            return got
        out: dict[str, list[tuple[cst.CSTNode, cst.BaseExpression | None, int | None]]] = {}
        if scope is None:
            nodes = self.ctx.descendants(self.ctx.module)
        elif isinstance(scope, cst.FunctionDef):
            nodes = self.ctx.descendants(scope.body)
        else:
            nodes = []
        for n in nodes:
            t = type(n)
            if t is cst.Assign:
                for target in n.targets:
                    _bind(out, target.target, n, n.value if len(n.targets) == 1 else None)
            elif t is cst.AnnAssign or t is cst.AugAssign or t is cst.NamedExpr:
                _bind(out, n.target, n, None)
            elif t is cst.For or t is cst.CompFor:
                _bind(out, n.target, n, None)
            elif t is cst.AsName:
                _bind(out, n.name, n, None)
            elif t is cst.Global or t is cst.Nonlocal:
                for item in n.names:  # bound elsewhere: never one known binding
                    out.setdefault(item.name.value, []).extend([(n, None, None)] * 2)
            elif t is cst.FunctionDef or t is cst.ClassDef:
                out.setdefault(n.name.value, []).append((n, None, None))
            elif t is cst.Del:
                _bind(out, n.target, n, None)
        self._bindings[scope] = out
        return out

    def lookup(self, name: cst.Name, depth: int) -> Origin | Param | None:
        """The origin of the value a name holds where it is used."""
        ctx = self.ctx
        scope = ctx.enclosing_function(name)
        while True:
            if isinstance(scope, cst.Lambda):
                if any(p.name.value == name.value for p in _all_params(scope.params)):
                    return None
                scope = ctx.enclosing_function(scope)
                continue
            bound = self.bindings(scope).get(name.value, [])
            params = _all_params(scope.params) if isinstance(scope, cst.FunctionDef) else []
            is_param = any(p.name.value == name.value for p in params)
            if is_param:
                if bound:
                    return None
                positional = [p.name.value for p in [*scope.params.posonly_params, *scope.params.params]]
                fact = ctx.function_fact(scope)
                if name.value not in positional or fact is None or fact.is_method or fact.class_name:
                    return None
                if any(not _keeps_arguments(ctx, d.decorator) for d in scope.decorators):
                    return None  # @jax.vmap and friends change what the callers' arguments become
                return Param(scope, positional.index(name.value), name.value)
            if bound:
                if len(bound) != 1:
                    return self._carried(bound, name, depth)
                node, value, element = bound[0]
                if value is None or ctx.text_order(node) >= ctx.text_order(name):
                    return None
                if element is not None:
                    return self._element(value, element)
                return self.origin(value, depth + 1)
            if scope is None:
                return None
            scope = ctx.enclosing_function(scope)

    def _carried(self, bound, name: cst.Name, depth: int) -> Origin | None:
        """``params = model.init(key, x)`` then ``params = p_step(params, ...)`` in a loop: the
        first call still gets the one copy from ``init``; every other binding is the output
        of a pmapped call, which has a device axis."""
        ctx = self.ctx
        pmapped = self.pmapped_calls()
        first: Origin | None = None
        for node, value, element in bound:
            if isinstance(value, cst.Call) and value in pmapped:
                continue
            if first is not None or value is None or ctx.text_order(node) >= ctx.text_order(name):
                return None
            o = self._element(value, element) if element is not None else self.origin(value, depth + 1)
            if not isinstance(o, Origin) or o.kind != "params":
                return None
            first = o
        return first

    def pmapped_calls(self) -> frozenset[cst.Call]:
        got = self.ctx.shared.get("JAX2.pmapped_calls")
        if got is None:
            got = self.ctx.shared["JAX2.pmapped_calls"] = frozenset(c for s in pmap_sites(self.ctx) for c in s.calls)
        return got

    def _element(self, value: cst.BaseExpression, element: int) -> Origin | None:
        """``k1, k2 = jax.random.split(key)``: each name holds one key; ``params, state =
        model.init(key, x)``: each holds part of one copy of the model."""
        if isinstance(value, cst.Call) and self.ctx.resolve(value.func) == SPLIT:
            return Origin("key", value, why="one key of `jax.random.split`")
        if isinstance(value, cst.Call):
            o = self._init(value, 0)
            if o is not None:
                return o
        return None

    # -- expressions ----------------------------------------------------------------
    def origin(self, expr: cst.BaseExpression, depth: int = 0) -> Origin | Param | None:
        if depth > MAX_DEPTH:
            return None
        ctx = self.ctx
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
            if isinstance(inner, cst.Call) and ctx.resolve(inner.func) == SPLIT and _int_index(expr):
                return Origin("key", expr, why="one key of `jax.random.split`")
            return None
        if not isinstance(expr, cst.Call):
            return None
        func = expr.func
        if isinstance(func, cst.Call):
            inner = ctx.resolve(func.func)
            if inner == PMAP or (inner in PARTIAL and func.args and ctx.resolve(func.args[0].value) == PMAP):
                if any(a.keyword is not None and a.keyword.value == "out_axes" for a in func.args):
                    return None  # out_axes=None returns one copy
                return Origin("device", expr)  # the output of a pmapped function
            return None
        q = ctx.resolve(func)
        args = [a for a in expr.args if a.keyword is None and not a.star]
        if any(a.star for a in expr.args):
            return None
        if q in PER_DEVICE:
            return Origin("device", expr)
        if q in SINGLE_KEYS:
            return Origin("key", expr, why=f"`{_short(q)}`")
        if q == SPLIT:
            num = _arg(expr, 1, "num")
            if num is None:
                return Origin("fixed", expr, 2, why="`jax.random.split(key)` makes 2 keys")
            return self._size(num, expr, "keys")
        if q in SHAPED:
            index, keyword = SHAPED[q]
            shape = _arg(expr, index, keyword)
            return self._shape(shape, expr) if shape is not None else None
        if q in DIMS:
            return self._dims(args and [a.value for a in args], expr)
        if q in LIKE:
            return _data(self.origin(args[0].value, depth + 1)) if args else None
        if q in RESHAPES:
            return self._reshape([a.value for a in args[1:]], expr) if args else None
        if q in FROM_LIST:
            return self._from_list(q, expr, args, depth)
        if q in ("jax.numpy.arange", "numpy.arange") and len(args) == 1 and len(expr.args) == 1:
            return self._size(args[0].value, expr, "elements", data=True)
        if isinstance(func, cst.Attribute) and q is None:
            method = func.attr.value
            if method == "reshape":
                return self._reshape([a.value for a in args], expr)
            if method == "astype":
                return _data(self.origin(func.value, depth + 1))
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
        if isinstance(first, cst.Name) and self._keyish(first):
            o = self.origin(first, depth + 1)
            if isinstance(o, Origin) and o.kind == "key":
                return Origin("params", expr, why=f"`{self.ctx.code(expr.func)}`")
        elif isinstance(first, (cst.Call, cst.Subscript)):
            o = self.origin(first, depth + 1)
            if isinstance(o, Origin) and o.kind == "key":
                return Origin("params", expr, why=f"`{self.ctx.code(expr.func)}`")
        return None

    @staticmethod
    def _keyish(name: cst.Name) -> bool:
        return any(w in name.value.lower() for w in ("key", "rng", "seed"))

    # -- sizes and shapes -----------------------------------------------------------
    def device_count(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """Is the expression the device count (a call, ``len`` of the devices, or a name bound to one)?"""
        ctx = self.ctx
        if depth > MAX_DEPTH:
            return False
        if isinstance(expr, cst.Call):
            q = ctx.resolve(expr.func)
            if q in DEVICE_COUNTS:
                return True
            if isinstance(expr.func, cst.Name) and expr.func.value == "len" and len(expr.args) == 1:
                return self._devices(expr.args[0].value, depth + 1)
            return False
        if isinstance(expr, cst.Name):
            scope = ctx.enclosing_function(expr)
            while True:
                if isinstance(scope, cst.Lambda):
                    scope = ctx.enclosing_function(scope)
                    continue
                bound = self.bindings(scope).get(expr.value)
                if bound:
                    return len(bound) == 1 and bound[0][1] is not None and bound[0][2] is None and \
                        self.device_count(bound[0][1], depth + 1)
                if scope is None:
                    return False
                scope = ctx.enclosing_function(scope)
        return False

    def _devices(self, expr: cst.BaseExpression, depth: int) -> bool:
        ctx = self.ctx
        if isinstance(expr, cst.Call):
            return ctx.resolve(expr.func) in DEVICE_LISTS
        if isinstance(expr, cst.Subscript):  # jax.devices()[:4]
            return depth < MAX_DEPTH and self._devices(expr.value, depth + 1)
        if isinstance(expr, cst.Name):
            scope = ctx.enclosing_function(expr)
            bound = self.bindings(scope if not isinstance(scope, cst.Lambda) else None).get(expr.value)
            if bound and len(bound) == 1 and bound[0][1] is not None and bound[0][2] is None:
                return self._devices(bound[0][1], depth + 1)
        return False

    def mentions_device_count(self, expr: cst.BaseExpression) -> bool:
        if self.device_count(expr):
            return True
        return any(isinstance(n, (cst.Name, cst.Call)) and self.device_count(n)  # type: ignore[arg-type]
                   for n in self.ctx.descendants(expr))

    def _size(self, size: cst.BaseExpression, expr: cst.Call, what: str, data: bool = False) -> Origin | None:
        if self.mentions_device_count(size):
            return Origin("device", expr)
        v = self.ctx.literal(size)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            return Origin("fixed", expr, v, (v,) if data else None, why=f"{v} {what}", data=data)
        return None

    def _shape(self, shape: cst.BaseExpression, expr: cst.Call) -> Origin | None:
        if isinstance(shape, (cst.Tuple, cst.List)):
            return self._dims([e.value for e in shape.elements] if not any(
                isinstance(e, cst.StarredElement) for e in shape.elements[:1]) else [], expr)
        v = self.ctx.literal(shape)
        if isinstance(v, int):
            return self._dims([shape], expr)
        if isinstance(v, (tuple, list)) and v and all(isinstance(x, int) for x in v):
            return Origin("fixed", expr, v[0], tuple(v), why=f"leading axis {v[0]}", data=True)
        return None

    def _dims(self, dims: list[cst.BaseExpression], expr: cst.Call) -> Origin | None:
        if not dims or isinstance(dims[0], cst.StarredElement):
            return None
        first = dims[0]
        if self.mentions_device_count(first):
            return Origin("device", expr)
        v = self.ctx.literal(first)
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            return None
        values = [self.ctx.literal(d) for d in dims]
        shape = tuple(values) if all(isinstance(x, int) and not isinstance(x, bool) for x in values) else None
        named = first.value if isinstance(first, cst.Name) and _batch_name(first.value) else None
        return Origin("fixed", expr, v, shape, why=f"leading axis {v}", data=True, batch_name=named)

    def _reshape(self, args: list[cst.BaseExpression], expr: cst.Call) -> Origin | None:
        if len(args) == 1:
            a = args[0]
            if isinstance(a, cst.BinaryOperation) and isinstance(a.operator, cst.Add):
                a = a.left  # (n_devices, -1) + x.shape[1:]
            if isinstance(a, (cst.Tuple, cst.List)):
                dims = [e.value for e in a.elements]
            else:
                dims = [a]
        else:
            dims = args
        if not dims or isinstance(dims[0], cst.StarredElement):
            return None
        if self.mentions_device_count(dims[0]):
            return Origin("device", expr)
        for i, d in enumerate(dims[1:], start=1):
            if not isinstance(d, cst.StarredElement) and self.device_count(d):
                return Origin("misplaced", expr, why=f"axis {i}")
        v = self.ctx.literal(dims[0])
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            values = [self.ctx.literal(d) for d in dims]
            shape = tuple(values) if all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in values) else None
            return Origin("fixed", expr, v, shape, why=f"leading axis {v}", data=True)
        return None


def _batch_name(name: str) -> bool:
    """``batch_size``, ``BATCH``: a batch, not a device count (``batches_per_device`` is unclear)."""
    low = name.lower()
    return "batch" in low and not any(w in low for w in ("device", "replica", "shard", "core", "host"))


def _keeps_arguments(ctx, decorator: cst.BaseExpression) -> bool:
    """``@jax.jit`` (or ``@partial(jax.jit, ...)``, ``@jax.jit(...)``) hands the arguments on as they are."""
    if isinstance(decorator, cst.Call):
        if ctx.resolve(decorator.func) in PARTIAL and decorator.args:
            decorator = decorator.args[0].value
        else:
            decorator = decorator.func
    return ctx.resolve(decorator) == "jax.jit"


def _bind(out, target: cst.CSTNode, node: cst.CSTNode, value: cst.BaseExpression | None) -> None:
    if isinstance(target, cst.Name):
        out.setdefault(target.value, []).append((node, value, None))
    elif isinstance(target, (cst.Tuple, cst.List)):
        for i, el in enumerate(target.elements):
            starred = isinstance(el, cst.StarredElement)
            inner = el.value
            if isinstance(inner, cst.Name):
                out.setdefault(inner.value, []).append((node, None if starred else value, None if starred else i))
            else:
                _bind(out, inner, node, None)


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    out = [*params.posonly_params, *params.params, *params.kwonly_params]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            out.append(star)
    return out


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
            isinstance(m, cst.Call) and (origins.device_count(m) or ctx.resolve(m.func) in DEVICE_LISTS)
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
    q = ctx.qualname(p.func)
    if not q:
        return []
    ref = ctx.facts.ref(q)
    calls = ctx.shared.get("JAX2.calls_by_name")
    if calls is None:
        calls = {}
        for n in ctx.parents:
            if type(n) is cst.Call and type(n.func) is cst.Name:
                calls.setdefault(n.func.value, []).append(n)
        ctx.shared["JAX2.calls_by_name"] = calls
    out = []
    for c in calls.get(p.func.name.value, []):
        if ctx.ref(c.func) != ref:
            continue
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
    from jaxlint.positions import node_ranges

    ranges = node_ranges(ctx.module, nodes, ctx.parents, ctx.source, ctx.shared.setdefault("positions", {}))
    return {n: r[0][0] for n, r in ranges.items()}


def jax_name(ctx) -> str | None:
    """How this file spells the ``jax`` module (for a fix), or None."""
    for local in ctx.names.local_names_for("jax"):
        if "." not in local:
            return local
    return None
