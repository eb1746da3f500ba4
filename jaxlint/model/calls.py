"""How each function value of one file is used: the per-module half of the call paths.

A *use* is one place where a function value (a def, a lambda, a name bound to a
transformed function, a ``self.name`` its class assigns once) is read, and where that
value ends up: called here (``run``, in the scope of the call), bound to a variable
(``bind``, whose own uses continue the path), returned by a function (``return``: a
factory's closure, which goes where the factory's calls' results go, recorded as the
``result`` of each call), or something the model cannot follow (``unknown``: stored,
passed to unknown code). On the way it may pass through
*layers*, innermost first: a map (``pmap``/``vmap``/``shard_map``/``smap``, with the axis
names it binds read by ``model/axes.py``), a tracing transform (``jit``, ``grad``,
``checkpoint``, ``custom_vjp``...) or a ``lax`` body (``scan``, ``fori_loop``,
``while_loop``, ``cond``, ``switch``, ``map``). A def's decorators are layers too.

``record(ctx)`` builds the facts once per file, in one pass over the engine's event list,
and stores them, plain JSON-able dicts, with the module's facts (``extra["calls"]``) for
the project phase (``model/paths.py``), where the uses of every module join into call
paths. The engine records them (``record_for``) for every file read by a rule whose
``reads`` include ``"call paths"``.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from jaxlint.base.names import dotted
from jaxlint.model import expected

from . import program
from .attributes import assigned_value, instance_attribute
from .axes import MAPS, bound_names
from .scopes import FUNCTION_KINDS
from .transforms import TABLE, named
from .values import Function

KEY = "calls"

# from the one table of transforms (model/transforms.py):
# transforms that bind no axis name: the wrapped function runs, traced, where the result is called
TRACING = named("trace")
PASS = TRACING | {"functools.partial"}
# calls that run a function argument immediately, in the caller's context (a lax body is traced)
LAX_BODIES = named("body")
TRACING_CALLS = named("call")
RUNS_HERE = (
    LAX_BODIES
    | TRACING_CALLS
    | {
        "jax.tree.map",
        "jax.tree.map_with_path",
        "jax.tree_util.tree_map",
        "jax.tree_util.tree_map_with_path",
        "jax.tree_map",
        "absl.app.run",
    }
)
# decorators that neither bind an axis name nor hide where the function runs
HARMLESS_DECORATORS = PASS | {
    "staticmethod",
    "classmethod",
    "functools.wraps",
    "functools.lru_cache",
    "functools.cache",
}
# test-framework decorators (parameterisation, skips): they run the test method as is
TEST_DECORATOR_PREFIXES = (
    "pytest.",
    "parameterized.",
    "absl.testing.parameterized.",
    "absltest.",
    "absl.testing.absltest.",
    "unittest.",
    "jtu.",
    "jax._src.test_util.",
)
# module transforms of neural-network libraries: they run methods under maps of their own
FOREIGN_MAP_LIBS = ("flax", "haiku", "equinox", "praxis")
# libraries whose functions never call back into the project the way a path could follow
EXTERNAL = frozenset({"jax", "jaxlib", "numpy", "functools", "typing", "builtins", "math", "os", "sys"})
FUN_KEYWORDS = frozenset({"fun", "f", "fn"})
# ``f = jax.pmap(f, ...)``: the variable gets a reference of its own, so that the def
# (``scope.f``) and the pmapped value (``scope.f@bound``) are two functions. At module level
# the name is also what other modules import: their uses are uses of the variable
# (``rebound`` in the facts; see model/paths.py).
REBOUND = "@bound"
# ``self.step = jax.pmap(train, ...)`` read as ``self.step(x)`` in another method: the
# attribute's reference, distinct from a method or a class attribute of the same name.
INSTANCE = "@self"


def short(api: str) -> str:
    return api.rsplit(".", 1)[-1]


def layer_kind(api: str) -> str | None:
    """``map``, ``trace`` or ``body`` for a layer; None for what adds none (partial, tree.map)."""
    if api in MAPS:
        return "map"
    if api in TRACING or api in TRACING_CALLS:
        return "trace"
    if api in LAX_BODIES:
        return "body"
    return None


def uses(ctx) -> Uses:
    """The file's use collector (one per file, shared by every rule that reads call paths)."""
    u = ctx.shared.get(KEY)
    if u is None:
        u = ctx.shared[KEY] = Uses(ctx)
    return u


def record_for(ctx, rules) -> None:
    """Record the file's uses if one of ``rules`` reads the call paths (its ``reads``
    include ``"call paths"``). A rule that walks up the call graph (``reads = "call graph"``)
    needs the uses of its callers closure alone (``ctx.callers_of_seeds``); one that walks no
    callers (JAX503: the transforms applied to a def) needs every function's."""
    readers = [r for r in rules if r.call_paths]
    if not readers:
        return
    if any(not r.callers for r in readers):
        ctx.callers_of_seeds = None
    record(ctx)


def record(ctx) -> None:
    """Collect the file's uses (once) and store them with the module's facts."""
    u = uses(ctx)
    if not u.done:
        u.collect()
        ctx.facts.extra[KEY] = u.export()


def expects_error(ctx, node: cst.CSTNode) -> bool:
    """Inside ``with self.assertRaises(...)`` / ``pytest.raises`` (the error is the point),
    or inside an axis environment set up by hand (``core.extend_axis_env_nd``)."""
    return expected.expects_error(ctx, node, also=("axis_env",))


def scope_ref(ctx, node: cst.CSTNode) -> str | None:
    """Reference of the function whose body holds ``node``; None at module level."""
    q = ctx.scope_of(node)
    return ctx.facts.ref(q) if q else None


class Uses:
    """Collects the uses of the file's function values (see module doc)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.p = program(ctx)
        self.done = False
        self.uses: list[dict[str, Any]] = []
        self.decorated: dict[str, list[dict[str, Any]] | None] = {}
        self._tracked: list[tuple[str, cst.BaseExpression]] = []
        self._line_nodes: list[tuple[dict[str, Any], cst.CSTNode]] = []
        self._methods: frozenset[str] | None = None  # names of the file's methods

    def track(self, ref: str, expr: cst.BaseExpression) -> None:
        """Also record where ``expr`` ends up, as the function ``ref`` (e.g. a rule's
        ``partial(lax.psum, axis_name=...)``, which runs the code the rule cares about)."""
        self._tracked.append((ref, expr))

    # -- the pass ---------------------------------------------------------------------
    def collect(self) -> None:
        self.done = True
        ctx = self.ctx
        refs: list[tuple[str, cst.BaseExpression, bool]] = [(r, e, False) for r, e in self._tracked]
        known = self._candidates()
        for node, entering in ctx._events:
            if not entering:
                continue
            t = type(node)
            if t is cst.Name:
                if node.value in known:
                    self._name(node, refs)
            elif t is cst.Attribute:
                self._attribute(node, refs)
            elif t is cst.FunctionDef:
                q = ctx.qualname(node)
                if q:
                    self._decorators(node, ctx.facts.ref(q))
            elif t is cst.Lambda:
                q = ctx.qualname(node)
                if q:
                    refs.append((ctx.facts.ref(q), node, False))
        for ref, expr, unknown in refs:
            u = self._use("unknown", [], expr) if unknown else self.fate(expr)
            u["ref"] = ref
            self.uses.append(u)
        self._fill_lines()

    def _candidates(self) -> frozenset[str]:
        """Names that can refer to a function at all: defs, bound transforms, imports and
        variables assigned a lambda. Every other name is skipped without a lookup."""
        names = set(self.ctx.names.items())
        for bound in self.ctx.collector.bindings.values():
            names.update(bound)
        names.update(self.ctx.collector.lambda_targets)
        return frozenset(names)

    def _name(self, node: cst.Name, refs) -> None:
        ctx = self.ctx
        parent = ctx.parent(node)
        if isinstance(parent, cst.Attribute) or not _is_load(node, parent):
            return
        defs = self._defs(node)
        if defs:  # a def in each arm of an if/else: the use is a use of each
            shadowed = self._shadowed(node)
            refs.extend((ref, node, shadowed) for ref in defs if self._matters(ref))
            return
        ref = ctx.ref(node)
        if ref is None:
            ref = self._lambda_var(node)
        ref = self._rebound(node, ref)
        if ref is None or ref.split(".")[0] in EXTERNAL or not self._matters(ref.removesuffix(REBOUND)):
            return
        refs.append((ref, node, self._shadowed(node)))

    def _defs(self, node: cst.Name) -> list[str]:
        """The defs a name can read when more than one can reach it (and nothing else)."""
        bs = self.p.reaching(node)
        if len(bs) < 2 or any(b.kind != "def" for b in bs):
            return []
        out = []
        for b in bs:
            q = self.ctx.qualname(b.node)
            if not q:
                return []
            out.append(self.ctx.facts.ref(q))
        return out

    def _attribute(self, node: cst.Attribute, refs) -> None:
        ctx = self.ctx
        parent = ctx.parent(node)
        if isinstance(parent, cst.Attribute) and parent.value is node:
            return
        if not _is_load(node, parent):
            return
        ref = ctx.resolve(node)
        if ref is None and isinstance(node.value, cst.Name):
            ref = self._attribute_ref(node) or self._method_ref(node)  # ``self.step``: always followed
            if ref is not None:
                refs.append((ref, node, False))
            return
        if ref is None or ref.split(".")[0] in EXTERNAL or not self._matters(ref):
            return
        refs.append((ref, node, False))

    def _matters(self, ref: str) -> bool:
        """Can a path ever be followed through this function? With the slicer's callers
        closure (``ctx.callers_of_seeds``) only those; lambdas and partials always."""
        names = self.ctx.callers_of_seeds
        if names is None:
            return True
        return any(p in names or p.startswith(("<lambda>", "<partial:")) for p in ref.split("."))

    # -- names, read from the program model -----------------------------------------
    def _lambda_var(self, node: cst.Name) -> str | None:
        """``f = lambda ...``, the one binding that reaches the read, names that lambda's variable."""
        b = self.p.binding(node)
        if b is None or b.kind != "assign" or b.unpack or not isinstance(b.value, cst.Lambda):
            return None
        q = self.ctx.scope_of(b.node)
        return self.ctx.facts.ref(f"{q}.{node.value}" if q else node.value)

    def _shadowed(self, node: cst.Name) -> bool:
        """Can a local variable of a function (a parameter, a loop target, anything but a def
        or a call's result) be what the name reads? Then the use is unknown."""
        for b in self.p.reaching(node):
            if b.scope.kind not in FUNCTION_KINDS or b.kind == "def":
                continue
            if b.kind == "assign" and not b.unpack and isinstance(b.value, cst.Call):
                continue
            return True
        return False

    def _rebound(self, node: cst.Name, ref: str | None) -> str | None:
        """The reference of a read that can only be a rebound variable (see REBOUND)."""
        b = self.p.binding(node)
        if b is None or b.kind != "assign" or not isinstance(b.node, cst.Assign) or len(b.node.targets) != 1:
            return ref
        if not self._rebinds_def(b.node):
            return ref
        q = self.ctx.qualname(b.scope.node) or ""
        return self.ctx.facts.ref(f"{q}.{node.value}" if q else node.value) + REBOUND

    def _rebinds_def(self, assign: cst.Assign) -> bool:
        """Is this assignment, in a function, a new binding of a name a def of that function binds?"""
        target = assign.targets[0].target
        fn = self.ctx.enclosing_function(assign)
        scope = self.p.scope_of_node.get(fn) if fn is not None else self.p.module_scope
        if scope is None or scope.kind not in ("function", "module") or not isinstance(target, cst.Name):
            return False
        return any(b.kind == "def" for b in scope.bindings.get(target.value, ()))

    def _attribute_ref(self, attr: cst.Attribute) -> str | None:
        """``self.step``, assigned once in the class: a reference of its own (``Cls.step@self``)."""
        key = instance_attribute(self.p, attr)
        if key is None or assigned_value(self.p, attr) is None:
            return None
        method = self.ctx.qualname(key.method)
        if not method:
            return None
        return self.ctx.facts.ref(f"{method.rpartition('.')[0]}.{key.name}") + INSTANCE

    def _method_ref(self, attr: cst.Attribute) -> str | None:
        """``self.method`` inside its class: the method's reference."""
        if self._methods is None:
            self._methods = frozenset(f.name for f in self.ctx.facts.functions.values() if f.class_name)
        name = attr.attr.value
        seeds = self.ctx.callers_of_seeds
        if name not in self._methods or (seeds is not None and name not in seeds):
            return None
        v = self.p.value(attr)
        if type(v) is not Function or type(v.node) is not cst.FunctionDef:
            return None
        q = self.ctx.qualname(v.node)
        return self.ctx.facts.ref(q) if q else None

    # -- where a value ends up --------------------------------------------------------
    def _callee(self, call: cst.Call) -> tuple[str | None, list[cst.Arg], bool]:
        """(api, option arguments, partial form?) of ``api(...)`` or ``partial(api, ...)(...)``."""
        ctx = self.ctx
        func = call.func
        if isinstance(func, cst.Call) and func.args and ctx.resolve(func.func) == "functools.partial":
            inner = ctx.resolve(func.args[0].value)
            if inner in MAPS or inner in PASS:
                return inner, list(func.args[1:]) + [a for a in call.args if a.keyword is not None], True
            return None, [], True
        return ctx.resolve(func), list(call.args), False

    def fate(self, node: cst.BaseExpression) -> dict[str, Any]:
        """Where the function an expression names ends up running, and the layers around it."""
        ctx = self.ctx
        layers: list[dict[str, Any]] = []
        bound = False  # a ``partial`` on the way binds some of the function's arguments
        cur: cst.CSTNode = node
        while True:
            parent = ctx.parent(cur)
            if isinstance(parent, cst.Call) and parent.func is cur:
                u = self._use("run", layers, parent, scope=scope_ref(ctx, parent))
                result = self.fate(parent)  # where a factory's closure goes
                if result["kind"] != "unknown":
                    u["result"] = result
                return u
            if isinstance(parent, cst.Return) and parent.value is cur:
                fn = ctx.enclosing_function(parent)
                if isinstance(fn, cst.FunctionDef):
                    return self._use("return", layers, parent, scope=scope_ref(ctx, parent))
                break
            if isinstance(parent, cst.Arg) and parent.value is cur and not parent.star:
                call = ctx.parent(parent)
                if not isinstance(call, cst.Call):
                    break
                api, options, partial_form = self._callee(call)
                positional = [a for a in call.args if a.keyword is None]
                is_fun = (positional and positional[0] is parent) or (
                    parent.keyword is not None and parent.keyword.value in FUN_KEYWORDS
                )
                if is_fun and api in MAPS:
                    plain = not bound and _plain(api, options, not partial_form)
                    layers.append(self._layer(api, call, bound_names(self.p, api, options, not partial_form), plain))
                    cur = call
                    continue
                if is_fun and api in PASS:
                    if api in TRACING:
                        layers.append(self._layer(api, call, (), not bound and _plain(api, options, not partial_form)))
                    elif len(call.args) > 1:
                        bound = True  # ``partial(f, x)``
                    cur = call
                    continue
                if api in RUNS_HERE:
                    if layer_kind(api):
                        layers.append(self._layer(api, call, (), not bound))
                    return self._use("run", layers, call, scope=scope_ref(ctx, call))
                break
            if isinstance(parent, cst.Assign) and parent.value is cur:
                if len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
                    q = ctx.scope_of(parent)
                    name = parent.targets[0].target.value
                    var = ctx.facts.ref(f"{q}.{name}" if q else name)
                    if self._rebinds_def(parent):
                        var += REBOUND
                    u = self._use("bind", layers, parent, var=var)
                    if bound:
                        u["partial"] = True  # ``g = partial(f, x)``: what g passes on is not plain
                    return u
                target = parent.targets[0].target if len(parent.targets) == 1 else None
                if isinstance(target, cst.Attribute) and assigned_value(self.p, target) is cur:
                    return self._use("bind", layers, parent, var=self._attribute_ref(target))
                break
            break
        return self._use("unknown", layers, cur)

    def _layer(self, api: str, node: cst.CSTNode, names: tuple[str, ...] | None, plain: bool) -> dict[str, Any]:
        m = {
            "api": short(api),
            "kind": layer_kind(api),
            "names": names,
            "traces": TABLE[api].abstract,
            "plain": plain,
            "line": 0,
            "path": self.ctx.path,
        }
        self._line_nodes.append((m, node))
        return m

    def _use(
        self, kind: str, layers, node: cst.CSTNode, scope: str | None = None, var: str | None = None
    ) -> dict[str, Any]:
        u = {
            "kind": kind,
            "layers": layers,
            "scope": scope,
            "var": var,
            "line": 0,
            "order": self.ctx.text_order(node),
            "path": self.ctx.path,
            "module": self.ctx.facts.module,
            "guarded": expects_error(self.ctx, node),
        }
        if kind == "run" and scope is None:  # a direct call at module level: messages cite its line
            self._line_nodes.append((u, node))
        return u

    def _decorators(self, node: cst.FunctionDef, ref: str) -> None:
        """Layers (innermost first) a def's decorators apply; None if one is unknown."""
        ctx = self.ctx
        layers: list[dict[str, Any]] = []
        for dec in reversed(node.decorators):
            expr = dec.decorator
            if isinstance(expr, cst.Call):
                api = ctx.resolve(expr.func) or dotted(expr.func)
                options = list(expr.args)
                if api == "functools.partial" and expr.args:
                    api = ctx.resolve(expr.args[0].value)
                    options = list(expr.args[1:])
                elif api in ("jax.pmap", "jax.vmap"):
                    api = None  # jax.pmap(...) as a decorator is not a map of the def
            else:
                api = ctx.resolve(expr) or dotted(expr)
                options = []
            if api in MAPS:
                layers.append(
                    self._layer(api, expr, bound_names(self.p, api, options, False), _plain(api, options, False))
                )
            elif api in TRACING:
                layers.append(self._layer(api, expr, (), _plain(api, options, False)))
            elif api not in HARMLESS_DECORATORS and not _test_decorator(expr, api):
                self.decorated[ref] = None
                return
        if node.decorators:
            self.decorated[ref] = layers

    # -- output ----------------------------------------------------------------------
    def _fill_lines(self) -> None:
        """Exact lines of what a message may cite: layers and direct calls at module level."""
        lines = self.ctx.exact_lines([n for _, n in self._line_nodes])
        for rec, n in self._line_nodes:
            if n in lines:
                rec["line"] = lines[n]

    def export(self) -> dict[str, Any]:
        foreign = any(q.split(".")[0] in FOREIGN_MAP_LIBS for q in self.ctx.names.items().values())
        rebound = sorted(
            self.ctx.facts.ref(name)
            for name, bs in self.p.module_scope.bindings.items()
            if any(b.kind == "def" for b in bs)
            and any(b.kind == "assign" and isinstance(b.node, cst.Assign) and self._rebinds_def(b.node) for b in bs)
        )
        return {"uses": self.uses, "decorated": self.decorated, "foreign": foreign, "rebound": rebound}


def _plain(api: str, options: list[cst.Arg], with_fun: bool) -> bool:
    """Does the application pass each argument of its function on as it is, traced if it
    traces: no option that keeps one concrete (``static_argnums``, ``in_axes``), nothing
    given positionally beside the function, no ``*args``?"""
    if any(a.star for a in options) or sum(a.keyword is None for a in options) > int(with_fun):
        return False
    entry = TABLE[api]
    concrete = set(entry.static) | ({"in_axes"} if entry.in_axes else set())
    return not any(a.keyword is not None and a.keyword.value in concrete for a in options)


def _test_decorator(expr: cst.BaseExpression, api: str | None) -> bool:
    target = expr.func if isinstance(expr, cst.Call) else expr
    name = dotted(target) or ""
    return any(n.startswith(TEST_DECORATOR_PREFIXES) for n in (api or "", name))


def _is_load(node: cst.CSTNode, parent: cst.CSTNode | None) -> bool:
    if isinstance(
        parent, (cst.FunctionDef, cst.ClassDef, cst.Param, cst.ImportAlias, cst.AsName, cst.Global, cst.Nonlocal)
    ):
        return False
    if isinstance(parent, cst.AssignTarget) and parent.target is node:
        return False
    if isinstance(parent, (cst.AnnAssign, cst.AugAssign, cst.NamedExpr)) and parent.target is node:
        return False
    if isinstance(parent, cst.Arg) and parent.keyword is node:
        return False
    return not isinstance(parent, (cst.Import, cst.ImportFrom))
