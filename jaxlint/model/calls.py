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

from jaxlint.base.literals import UNKNOWN
from jaxlint.base.names import dotted
from jaxlint.model import expected

from . import program
from .abstract import Class, External, Function, Opaque, Struct, Transformed
from .attributes import assigned_value, instance_attribute
from .axes import MAPS, frames, in_contexts, map_names, names_of
from .catalogue import calls_functions
from .catalogue.build import signature
from .catalogue.signatures import SIGNATURES
from .classes import field_default_names
from .scopes import FUNCTION_KINDS, Binding
from .transforms import TABLE, TRANSPARENT_DECORATORS, named

KEY = "calls"

# from the one table of transforms (model/transforms.py):
# transforms that bind no axis name: the wrapped function runs, traced, where the result is called
TRACING = named("trace")
PASS = TRACING | {"functools.partial"}
# calls that run a function argument immediately, in the caller's context (a lax body is traced)
LAX_BODIES = named("body")
TRACING_CALLS = named("call")
# a program's entry point runs the function it is given (absl's ``app.run(main)``)
RUNS_MAIN = frozenset({"absl.app.run"})


def runs_here(api: str) -> bool:
    """Does a call of ``api`` run its function argument now: a ``lax`` body, a tracing
    call, a program's entry point, or a catalogue function that calls one before it
    returns (``jax.tree.map``: ``catalogue.calls_functions``)?"""
    return api in LAX_BODIES or api in TRACING_CALLS or api in RUNS_MAIN or calls_functions(api)


# decorators that neither bind an axis name nor hide where the function runs
HARMLESS_DECORATORS = PASS | TRANSPARENT_DECORATORS | {"functools.lru_cache", "functools.cache"}
# test-framework decorators (parameterisation, skips): they run the test method as is
TEST_DECORATOR_PREFIXES = (
    "pytest.",
    "parameterized.",
    "absl.testing.parameterized.",
    "absltest.",
    "absl.testing.absltest.",
    "unittest.",
    "jax._src.test_util.",
    "jax.test_util.",
)
# module transforms of neural-network libraries: they run methods under maps of their own
FOREIGN_MAP_LIBS = ("flax", "haiku", "equinox", "praxis")
# libraries whose functions never call back into the project the way a path could follow
EXTERNAL = frozenset({"jax", "jaxlib", "numpy", "functools", "typing", "builtins", "math", "os", "sys"})
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
    if any(r.callers != "all" for r in readers):  # ``"calls"`` keeps direct callers: no closure walked
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
    """Collects the uses of the file's function values (see module doc).

    What a name refers to comes from the binder (``Program.reaching``): a ``def``, an
    import of a project function, or a *function variable* — a variable some function
    value is bound to (found by following the values: a def's fate may bind it, and then
    that variable's reads are uses too, until nothing new is bound). Which API a call
    or decorator is comes from the evaluator (``External`` values)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.p = program(ctx)
        self.ev = self.p.evaluator
        self.done = False
        self.uses: list[dict[str, Any]] = []
        self.decorated: dict[str, list[dict[str, Any]] | None] = {}
        self._tracked: list[tuple[str, cst.BaseExpression]] = []
        self._line_nodes: list[tuple[dict[str, Any], cst.CSTNode]] = []
        self._fates: dict[cst.CSTNode, dict[str, Any]] = {}
        self._apis: dict[cst.CSTNode, Any] = {}

    def track(self, ref: str, expr: cst.BaseExpression) -> None:
        """Also record where ``expr`` ends up, as the function ``ref`` (e.g. a rule's
        ``partial(lax.psum, axis_name=...)``, which runs the code the rule cares about)."""
        self._tracked.append((ref, expr))

    # -- the pass ---------------------------------------------------------------------
    def collect(self) -> None:
        self.done = True
        ctx = self.ctx
        refs: list[tuple[str, cst.BaseExpression, bool]] = [(r, e, False) for r, e in self._tracked]
        reads: list[tuple[cst.Name, list[Binding]]] = []
        known = self._candidates()
        for node, entering in ctx._events:
            if not entering:
                continue
            t = type(node)
            if t is cst.Name:
                if node.value in known:
                    self._read(node, reads)
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
        variables = self._function_variables(refs, reads)
        for node, bs in reads:
            found, shadowed = self._refs_of(bs, variables)
            # a function variable matters by construction: a function that matters is bound to it
            refs.extend((ref, node, shadowed) for ref in found if ref in variables or self._matters(ref))
            call = ctx.parent(node)
            if not found and len(bs) == 1 and type(call) is cst.Call and call.func is node:
                ref = self._instance_method(bs[0], None)  # ``model(x)``: its class's ``__call__``
                if ref is not None:
                    refs.append((ref, node, False))
        fates = [self._use("unknown", [], expr) if unknown else self.fate(expr) for _, expr, unknown in refs]
        self._fill_lines()
        self.uses = [dict(u, ref=ref) for (ref, _, _), u in zip(refs, fates, strict=True)]

    def _candidates(self) -> frozenset[str]:
        """Names that can refer to a function at all: those some scope binds by a def, an
        import or an assignment. Every other name is skipped without a lookup."""
        names: set[str] = set()
        for s in {id(s): s for s in self.p.scope_of_node.values()}.values():
            for name, bs in s.bindings.items():
                if any(b.kind in ("def", "import", "assign") for b in bs):
                    names.add(name)
        return frozenset(names)

    def _read(self, node: cst.Name, reads) -> None:
        parent = self.ctx.parent(node)
        if isinstance(parent, cst.Attribute) or not _is_load(node, parent):
            return
        bs = self.p.reaching(node)
        if bs and any(b.kind in ("def", "import", "assign") for b in bs):
            reads.append((node, bs))

    def _function_variables(self, refs, reads) -> frozenset[str]:
        """The variables a function value is bound to: the ``bind`` fates of the defs,
        lambdas, imports and tracked values, and of the reads of such variables, to a
        fixed point."""
        found: set[str] = set()
        for _ref, expr, unknown in refs:
            if not unknown:
                _bound_vars(self.fate(expr), found)
        done: set[cst.Name] = set()
        while True:
            before = len(found)
            for node, bs in reads:
                if node in done:
                    continue
                got, _ = self._refs_of(bs, found)
                if got:
                    done.add(node)
                    _bound_vars(self.fate(node), found)
            if len(found) == before:
                return frozenset(found)

    def _refs_of(self, bs: list[Binding], variables) -> tuple[list[str], bool]:
        """The function references a read of these bindings can be, and whether it may
        also be a local value that is none of them (then the use is unknown)."""
        out: list[str] = []
        shadowed = False
        for b in bs:
            ref = None
            if b.kind == "def":
                q = self.ctx.qualname(b.node)
                ref = self.ctx.facts.ref(q) if q else None
            elif b.kind == "import":
                q = b.imported or ""
                ref = q if q and q.split(".")[0] not in EXTERNAL else None
                if ref is None:
                    continue
            elif (
                b.kind == "assign"
                and len(b.unpack) <= 1
                and isinstance(b.node, cst.Assign)
                and len(b.node.targets) == 1
            ):
                var = self._var(b.node, b.name)
                if var in variables:
                    ref = var
                elif isinstance(b.value, cst.Call):
                    continue  # ``x = f(...)``: a value, not one of these functions
            if ref is not None:
                if ref not in out:
                    out.append(ref)
            elif b.scope.kind in FUNCTION_KINDS:
                shadowed = True  # a parameter, a loop target, ...: may be anything
        return out, shadowed

    def _var(self, assign: cst.Assign, name: str) -> str:
        """The reference of the variable ``name`` an assignment binds (see REBOUND)."""
        q = self.ctx.scope_of(assign)
        var = self.ctx.facts.ref(f"{q}.{name}" if q else name)
        return var + REBOUND if self._rebinds_def(assign) else var

    def _attribute(self, node: cst.Attribute, refs) -> None:
        ctx = self.ctx
        parent = ctx.parent(node)
        if isinstance(parent, cst.Attribute) and parent.value is node:
            return
        if not _is_load(node, parent):
            return
        root: cst.BaseExpression = node
        while type(root) is cst.Attribute:
            root = root.value
        if type(root) is not cst.Name:
            return
        b = self.p.binding(root)
        if b is not None and b.kind == "import":
            if (b.imported or "").split(".")[0] in EXTERNAL:
                return  # ``jnp.sum``: no path is followed through a library's functions
            v = self.api(node)
            q = v.qualified if type(v) is External else _imported_name(b, node)
            if q is not None and q.split(".")[0] not in EXTERNAL and self._matters(q):
                refs.append((q, node, False))
            return
        if type(node.value) is cst.Name:
            ref = self._attribute_ref(node) or self._method_ref(node)  # ``self.step``: always followed
            if ref is None:
                bs = self.p.reaching(node.value)
                call = ctx.parent(node)
                runs = call if type(call) is cst.Call and call.func is node else None
                ref = self._instance_method(bs[0], node.attr.value, runs) if len(bs) == 1 else None  # ``model.step``
                if ref is None and len(bs) == 1 and runs is not None:
                    ref = self._imported_instance_method(bs[0], node.attr.value)
            if ref is not None:
                refs.append((ref, node, False))

    def _matters(self, ref: str) -> bool:
        """Can a path ever be followed through this function? With the slicer's callers
        closure (``ctx.callers_of_seeds``) only those; lambdas and partials always."""
        names = self.ctx.callers_of_seeds
        if names is None:
            return True
        return any(p in names or p.startswith(("<lambda>", "<partial:")) for p in ref.split("."))

    def api(self, expr: cst.BaseExpression) -> Any:
        """The value of a callee or decorator expression, with no call in view (memoised;
        a small budget: a callee is a name, an attribute or a ``partial``)."""
        memo = self._apis
        if expr not in memo:
            with self.ev.query(_API_FUEL):
                memo[expr] = self.ev.value(expr, None)
        return memo[expr]

    # -- names, read from the binder --------------------------------------------------
    def _rebinds_def(self, assign: cst.Assign) -> bool:
        """Is this assignment, in a function, a new binding of a name a def of that function binds?"""
        target = assign.targets[0].target
        fn = self.ctx.enclosing_function(assign)
        scope = self.p.scope_of_node.get(fn) if fn is not None else self.p.module_scope
        if scope is None or scope.kind not in ("function", "module") or not isinstance(target, cst.Name):
            return False
        # once per scope and name: asked for each of n bindings of one name, a scan of its
        # bindings each time was quadratic (``x = x + 1`` n times)
        memo: dict[tuple[int, str], bool] = self.__dict__.setdefault("_def_names", {})
        key = (id(scope), target.value)
        if key not in memo:
            memo[key] = any(b.kind == "def" for b in scope.bindings.get(target.value, ()))
        return memo[key]

    def _attribute_ref(self, attr: cst.Attribute) -> str | None:
        """``self.step``, assigned once in the class: a reference of its own (``Cls.step@self``)."""
        key = instance_attribute(self.p, attr)
        if key is None or assigned_value(self.p, attr) is None:
            return None
        method = self.ctx.qualname(key.method)
        if not method:
            return None
        return self.ctx.facts.ref(f"{method.rpartition('.')[0]}.{key.name}") + INSTANCE

    def _instance_method(self, b: Binding, name: str | None, call: cst.Call | None = None) -> str | None:
        """The reference of the method (one def of the class body) a read of ``b``, bound to
        an instance of the module's class (``model = Norm(...)``), runs
        (``Program.method_run``: ``name`` None, the instance called)."""
        cls = self.p.instance_class(b)
        method = self.p.method_run(cls, name, call) if cls is not None else None
        scope = self.p.scope_of_node.get(cls) if cls is not None else None
        bs = scope.bindings.get(method, []) if scope is not None and method is not None else []
        if len(bs) != 1 or bs[0].kind != "def":
            return None
        seeds = self.ctx.callers_of_seeds
        if seeds is not None and bs[0].name not in seeds:
            return None
        q = self.ctx.qualname(bs[0].node)
        return self.ctx.facts.ref(q) if q else None

    def _imported_instance_method(self, b: Binding, name: str) -> str | None:
        """The reference of the method ``name`` a call runs on an instance of a class
        another module of the project defines (``trainer = MarkdownTrainer(lr)`` with the
        class imported, then ``trainer.evaluate(x)``: ``trainer.MarkdownTrainer.evaluate``);
        a reference no module defines (the import names a function) matches no use."""
        if b.kind != "assign" or b.unpack or type(b.value) is not cst.Call or type(b.value.func) is not cst.Name:
            return None
        made = self.p.reaching(b.value.func)
        if len(made) != 1 or made[0].kind != "import" or not made[0].imported:
            return None
        q = made[0].imported
        if q.split(".")[0] in EXTERNAL or not self._matters(f"{q}.{name}"):
            return None
        return f"{q}.{name}"

    def _method_ref(self, attr: cst.Attribute) -> str | None:
        """``self.method`` inside its class: the method's reference (the one def of that
        name in the class body)."""
        key = instance_attribute(self.p, attr)
        if key is None:
            return None
        seeds = self.ctx.callers_of_seeds
        if seeds is not None and key.name not in seeds:
            return None
        scope = self.p.scope_of_node.get(key.cls)
        bs = scope.bindings.get(key.name, []) if scope is not None else []
        if len(bs) != 1 or bs[0].kind != "def":
            return None
        q = self.ctx.qualname(bs[0].node)
        return self.ctx.facts.ref(q) if q else None

    # -- where a value ends up --------------------------------------------------------
    def _callee(self, call: cst.Call) -> tuple[str | None, list[cst.Arg], bool]:
        """(api, option arguments, partial form?) of ``api(...)`` or ``partial(api, ...)(...)``."""
        func = call.func
        if isinstance(func, cst.Call) and func.args and _qualified(self.api(func.func)) == "functools.partial":
            inner = _qualified(self.api(func.args[0].value))
            if inner in MAPS or inner in PASS:
                return inner, list(func.args[1:]) + [a for a in call.args if a.keyword is not None], True
            return None, [], True
        if isinstance(func, (cst.Name, cst.Attribute)):
            return _qualified(self.api(func)), list(call.args), False
        return None, list(call.args), False

    def fate(self, node: cst.BaseExpression) -> dict[str, Any]:
        """Where the function an expression names ends up running, and the layers around it."""
        memo = self._fates
        if node not in memo:
            memo[node] = self._fate(node)
        return memo[node]

    def _fate(self, node: cst.BaseExpression) -> dict[str, Any]:
        ctx = self.ctx
        layers: list[dict[str, Any]] = []
        bound = False  # a ``partial`` on the way binds some of the function's arguments
        # what the ``partial``s on the way bind, innermost first: the function gets their
        # positional arguments first (``shift`` of them), then the call's
        given: list[list[Any]] = []
        shift = 0
        keywords: list[str] = []
        spread = False
        cur: cst.CSTNode = node
        while True:
            parent = ctx.parent(cur)
            if isinstance(parent, cst.Call) and parent.func is cur:
                u = self._use("run", layers, parent, scope=scope_ref(ctx, parent))
                passed = given + self._passed_names(parent.args, shift)
                if passed:
                    u["names"] = passed
                # what else the call gives (a factory's parameter not given keeps its default)
                u["positional"] = shift + sum(1 for a in parent.args if a.keyword is None and not a.star)
                u["keywords"] = keywords + [a.keyword.value for a in parent.args if a.keyword is not None]
                if spread or any(a.star for a in parent.args):
                    u["spread"] = True
                result = self.fate(parent)  # where a factory's closure goes
                if result["kind"] != "unknown":
                    u["result"] = result
                return u
            if isinstance(parent, cst.Return) and parent.value is cur:
                fn = ctx.enclosing_function(parent)
                if isinstance(fn, cst.FunctionDef):
                    u = self._use("return", layers, parent, scope=scope_ref(ctx, parent))
                    if given:  # ``return jax.pmap(partial(f, cfg=cfg))``: what the partial gives f
                        u["names"] = given
                    return u
                break
            at = _item_of_returned(ctx, cur)
            if at is not None:
                # ``return tx, train_step``: item ``index`` of what the factory's calls give
                ret, index = at
                u = self._use("return", layers, ret, scope=scope_ref(ctx, ret))
                u["index"] = index
                if given:
                    u["names"] = given
                return u
            if isinstance(parent, cst.Arg) and parent.value is cur and not parent.star:
                call = ctx.parent(parent)
                if not isinstance(call, cst.Call):
                    break
                api, options, partial_form = self._callee(call)
                positional = [a for a in call.args if a.keyword is None]
                is_fun = (positional and positional[0] is parent) or (
                    parent.keyword is not None and parent.keyword.value == _function_parameter(api)
                )
                if is_fun and api in MAPS:
                    plain = not bound and _plain(api, options, not partial_form)
                    layer = self._layer(api, call, self._application_names(call), plain)
                    _mark_ambient(layer, api, options)
                    self._mark_declared(layer, options, call)
                    layers.append(layer)
                    cur = call
                    continue
                if is_fun and api in PASS:
                    if api in TRACING:
                        layers.append(self._layer(api, call, (), not bound and _plain(api, options, not partial_form)))
                    elif len(call.args) > 1:
                        bound = True  # ``partial(f, x)``
                        rest = call.args[1:]
                        given += self._passed_names(rest, shift)
                        shift += sum(1 for a in rest if a.keyword is None and not a.star)
                        keywords += [a.keyword.value for a in rest if a.keyword is not None]
                        spread = spread or any(a.star for a in rest)
                    cur = call
                    continue
                if api is not None and runs_here(api):
                    if layer_kind(api):
                        layers.append(self._layer(api, call, (), not bound))
                    return self._use("run", layers, call, scope=scope_ref(ctx, call))
                made = self._helper_map(call, parent) if is_fun else None
                if made is not None:
                    # a project helper that maps what it is given (``def pmap_step(fn):
                    # return jax.pmap(fn, axis_name=DATA_AXIS)``): its call is the map
                    layer = self._layer(made.api, call, map_names(made), not bound and _plain_value(made))
                    layers.append(layer)
                    cur = call
                    continue
                break
            if isinstance(parent, cst.Assign) and parent.value is cur:
                names = _unpacked_names(parent)
                if names is not None:
                    # ``tx, step = make_train_step(cfg)``: each name binds one item
                    u = self._use("unpack", layers, parent)
                    u["vars"] = [self._var(parent, n) if n is not None else None for n in names]
                    return u
                if len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
                    u = self._use("bind", layers, parent, var=self._var(parent, parent.targets[0].target.value))
                    if bound:
                        u["partial"] = True  # ``g = partial(f, x)``: what g passes on is not plain
                    return u
                target = parent.targets[0].target if len(parent.targets) == 1 else None
                if isinstance(target, cst.Attribute) and assigned_value(self.p, target) is cur:
                    return self._use("bind", layers, parent, var=self._attribute_ref(target))
                break
            break
        return self._use("unknown", layers, cur)

    def _helper_map(self, call: cst.Call, arg: cst.Arg) -> Transformed | None:
        """The map a call of a project def returns when it is the map of what ``arg``
        passes (the evaluator runs the def: ``pmap_step(make_step(cfg))`` gives
        ``jax.pmap(step, axis_name="data")``); None otherwise."""
        ev = self.ev
        with ev.query(_API_FUEL):
            f = ev.value(call.func, None)
            if type(f) is not Function:
                return None
            made = ev.value(call, None)
            given = ev.value(arg.value, None)
        if type(made) is not Transformed or made.api not in MAPS or made.target != given or given is UNKNOWN:
            return None
        return made

    def _passed_names(self, args: Any, shift: int = 0) -> list[list[Any]]:
        """``[[slot, names], ...]``: the arguments ``args`` (of a direct call, or what a
        ``partial`` binds) that are axis names as values (a string, a tuple of strings), by
        slot (the keyword, or the position as a string, after ``shift`` positions a
        ``partial`` filled), with no call in view; a collective of the callee whose axis
        name is its parameter uses them on the paths through this call (JAX201's project
        phase)."""
        out: list[list[Any]] = []
        for i, a in enumerate(args):
            if a.star:
                break
            slot = a.keyword.value if a.keyword is not None else str(i + shift)
            if not self._may_name_axes(a.value) and not self._constructed(a.value) and not self._parameter(a.value):
                continue
            with self.ev.query(_API_FUEL):
                v = self.ev.value(a.value, None)
            names = names_of(v)
            if v is UNKNOWN or type(v) is Opaque:
                names = self._in_contexts(a.value)  # ``cfg.axis_name`` of a factory's ``cfg``
            if names:
                out.append([slot, list(names)])
                continue
            if type(v) is not Struct and isinstance(a.value, cst.Name):
                v = self._in_every_context(a.value)  # ``def main(cfg=Config())``: what its calls leave it
            if type(v) is Struct:
                # a config object: its fields that are axis names, by ``slot.field``
                for field, fv in v.fields:
                    names = names_of(fv)
                    if names:
                        out.append([f"{slot}.{field}", list(names)])
        return out

    def _parameter(self, e: cst.BaseExpression) -> bool:
        """Is the argument a parameter, of the def the call is written in or of a def around
        it (``cfg`` of the factory ``make_step(cfg)`` in the ``step`` it returns)? Its value
        is what the calls of that def give: a config object whose fields may name axes."""
        if type(e) is not cst.Name:
            return False
        bs = self.p.reaching(e)
        return bool(bs) and all(b.kind == "param" for b in bs)

    def _in_contexts(self, e: cst.BaseExpression) -> tuple[str, ...] | None:
        """The axis names an argument gives in every context of the def it is written in
        (its calls, or the factory calls a closure was made by), when they agree."""
        ev = self.ev

        def read(frame):
            with ev.query(_API_FUEL):
                return names_of(ev.value(e, frame)) if frame is not None else None

        return in_contexts(ev, read, self.ctx.enclosing_function(e), importers=True)

    def _in_every_context(self, e: cst.Name) -> Any:
        """The value a name has in every context of the def it is read in, when they agree."""
        fn = self.ctx.enclosing_function(e)
        if fn is None:
            return UNKNOWN
        with self.ev.query(_API_FUEL):
            values = [self.ev.value(e, f) for f in frames(self.ev, fn, importers=True)[:4]]
        return values[0] if values and all(v == values[0] for v in values) else UNKNOWN

    def _constructed(self, e: cst.BaseExpression) -> bool:
        """Is the argument an instance of a class of the project, constructed in the call
        or bound to a name (``cfg = TrainConfig()``; the class defined here or imported
        from the project)?"""
        from .evaluate import NEVER_LOADED

        made_by: list[cst.Call] = []
        if isinstance(e, cst.Call):
            made_by.append(e)  # ``make_step(TrainConfig())``
        elif isinstance(e, cst.Name):
            for b in self.p.reaching(e):
                if b.kind == "param" and type(b.node) is cst.Param and type(b.node.default) is cst.Call:
                    made_by.append(b.node.default)  # ``def main(cfg=Config())``
                    continue
                if b.kind != "assign" or b.unpack or type(b.value) is not cst.Call:
                    return False
                made_by.append(b.value)
        for construction in made_by:
            func = construction.func
            if not isinstance(func, cst.Name):
                return False
            made = self.p.reaching(func)
            if not made or not all(
                m.kind == "class" or (m.kind == "import" and (m.imported or "").split(".")[0] not in NEVER_LOADED)
                for m in made
            ):
                return False
        return bool(made_by)

    def _may_name_axes(self, e: cst.BaseExpression) -> bool:
        """Can the argument be an axis name as written: a string, an attribute
        (``cfg.axis``), a name bound to a string or at module level (``AXIS``), a tuple or
        list of those? (Any other name is not evaluated: most are arrays.)"""
        t = type(e)
        if t in _STRINGS or t is cst.Attribute:
            return True
        if isinstance(e, cst.Name):
            bs = self.p.reaching(e)
            return bool(bs) and all(
                b.scope is self.p.module_scope or (b.kind == "assign" and type(b.value) in _STRINGS) for b in bs
            )
        if t is cst.Tuple or t is cst.List:
            return any(self._may_name_axes(x.value) for x in e.elements)  # type: ignore[attr-defined]
        return False

    def _application_names(self, call: cst.Call) -> tuple[str, ...] | None:
        """The axis names the map applied by ``call`` binds, read as values (model/axes.py)."""
        ev = self.ev

        def read(frame):
            with ev.query(_NAMES_FUEL):
                return map_names(ev.value(call, frame))

        return in_contexts(ev, read, self.ctx.enclosing_function(call), importers=True)

    def _decorator_names(self, expr: cst.BaseExpression, node: cst.FunctionDef) -> tuple[str, ...] | None:
        """The axis names a map decorator (``@partial(jax.pmap, axis_name=...)``) binds."""
        ev = self.ev

        def read(frame):
            with ev.query(_NAMES_FUEL):
                return map_names(ev.decorate(ev.value(expr, frame), Function(node, frame, self.p), expr))

        return in_contexts(ev, read, self.ctx.enclosing_function(node), importers=True)

    def _mark_declared(self, layer: dict[str, Any], options: list[cst.Arg], node: cst.CSTNode) -> None:
        """A map whose axis name cannot be read but is a field of a project config
        (``axis_name=cfg.axis_name``, ``cfg`` built out of sight) that the class declares
        with a default (``axis_name: str = "batch"``) binds a name the program declares:
        like the ambient mesh, the project's vocabulary (which reads that default) decides
        (``"ambient"``). A name from a flag or a bare parameter stays unknown."""
        if layer["names"] is not None or layer.get("ambient"):
            return
        expr = next((a.value for a in options if a.keyword is not None and a.keyword.value == "axis_name"), None)
        if type(expr) is not cst.Attribute:
            return
        ev = self.ev
        field = expr.attr.value

        def declared(frame) -> bool:
            with ev.query(_NAMES_FUEL):
                v = ev.value(expr.value, frame)
            return type(v) is Struct and type(v.cls) is Class and field_default_names(ev, v.cls, field)

        fn = self.ctx.enclosing_function(node)
        frames_ = [None] if fn is None else [None, *frames(ev, fn)]
        if all(declared(f) for f in frames_):
            layer["ambient"] = True

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
        layers: list[dict[str, Any]] = []
        for dec in reversed(node.decorators):
            expr = dec.decorator
            options: list[cst.Arg] = []
            if isinstance(expr, cst.Call):
                api = _qualified(self.api(expr.func)) if isinstance(expr.func, (cst.Name, cst.Attribute)) else None
                options = list(expr.args)
                if api == "functools.partial" and expr.args:
                    api = _qualified(self.api(expr.args[0].value))
                    options = list(expr.args[1:])
                elif api in ("jax.pmap", "jax.vmap"):
                    api = None  # jax.pmap(...) as a decorator is not a map of the def
            else:
                api = _qualified(self.api(expr))
            if api in MAPS:
                names = self._decorator_names(expr, node)
                layer = self._layer(api, expr, names, _plain(api, options, False))
                _mark_ambient(layer, api, options)
                self._mark_declared(layer, options, node)
                layers.append(layer)
            elif api in TRACING:
                layers.append(self._layer(api, expr, (), _plain(api, options, False)))
            elif api not in HARMLESS_DECORATORS and not _test_decorator(api):
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
        scopes = {id(s): s for s in self.p.scope_of_node.values()}.values()
        foreign = any(
            (b.imported or "").split(".")[0] in FOREIGN_MAP_LIBS
            for s in scopes
            for bs in s.bindings.values()
            for b in bs
            if b.kind == "import"
        )
        rebound = sorted(
            self.ctx.facts.ref(name)
            for name, bs in self.p.module_scope.bindings.items()
            if any(b.kind == "def" for b in bs)
            and any(b.kind == "assign" and isinstance(b.node, cst.Assign) and self._rebinds_def(b.node) for b in bs)
        )
        plain = sorted(name for name in self.p.module_scope.bindings if self._plain_class(name, 0))
        return {"uses": self.uses, "decorated": self.decorated, "foreign": foreign, "rebound": rebound, "plain": plain}

    def _plain_class(self, name: str, depth: int) -> bool:
        """Is the module-level name a class with no base but ``object`` and the module's own
        plain classes? Nothing but its instances' calls runs its methods: no library
        transform (flax's ``nn.vmap`` of a module) can reach them."""
        bs = self.p.module_scope.bindings.get(name, [])
        if len(bs) != 1 or bs[0].kind != "class" or depth > 4:
            return False
        cls = bs[0].node
        assert isinstance(cls, cst.ClassDef)
        if cls.keywords or cls.decorators:
            return False
        for base in cls.bases:
            if type(base.value) is cst.Name and base.value.value == "object" and not self.p.reaching(base.value):
                continue  # the builtin
            if type(base.value) is not cst.Name or not self._plain_class(base.value.value, depth + 1):
                return False
        return True


_API_FUEL = 400  # evaluation steps to read what a callee or decorator is
_STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
_NAMES_FUEL = 2_000  # ... and the axis names a map application binds


def _mark_ambient(layer: dict[str, Any], api: str, options: list[cst.Arg]) -> None:
    """A ``shard_map`` given no mesh runs over the ambient one (``jax.set_mesh``, ``with
    use_mesh(...)``), and one given a mesh the model cannot read (a parameter, an
    attribute) over a mesh out of sight: either way its axes are those of some mesh of the
    program, which the project's axis vocabulary reads, not any name at all (``"ambient"``).
    Not when it names its own axes (``axis_names=``: a subset the model could not read)."""
    if short(api) != "shard_map" or any(a.star for a in options):
        return
    keywords = {a.keyword.value for a in options if a.keyword is not None}
    if "mesh" not in keywords or (layer.get("names") is None and "axis_names" not in keywords):
        layer["ambient"] = True


def _imported_name(b: Binding, node: cst.Attribute) -> str | None:
    """``sync.train_step`` under ``import sync`` as written: the evaluator gives the def
    itself when it reads the project's module, and the call paths name it."""
    name = dotted(node)
    if not name or not b.imported:
        return None
    return b.imported + name[len(b.name) :]


def _qualified(v: Any) -> str | None:
    return v.qualified if type(v) is External else None


def _bound_vars(u: dict[str, Any] | None, out: set[str]) -> None:
    """The variables a fate binds (also through the results of a factory's calls)."""
    while u is not None:
        if u["kind"] == "bind" and u["var"]:
            out.add(u["var"])
        if u["kind"] == "unpack":
            out.update(v for v in u["vars"] if v)
        u = u.get("result")


def _item_of_returned(ctx, node: cst.CSTNode) -> tuple[cst.Return, int] | None:
    """``(return, i)`` when ``node`` is item ``i`` of the tuple or list a def's ``return``
    gives (no starred item: the positions are known)."""
    element = ctx.parent(node)
    seq = ctx.parent(element) if type(element) is cst.Element and element.value is node else None
    ret = ctx.parent(seq) if type(seq) in (cst.Tuple, cst.List) else None
    if (
        type(ret) is not cst.Return
        or ret.value is not seq
        or not isinstance(ctx.enclosing_function(ret), cst.FunctionDef)
    ):
        return None
    assert isinstance(seq, (cst.Tuple, cst.List))
    if any(type(e) is not cst.Element for e in seq.elements):
        return None
    return ret, next(i for i, e in enumerate(seq.elements) if e is element)


def _unpacked_names(assign: cst.Assign) -> list[str | None] | None:
    """``a, b = ...``: the names each position binds (None: an attribute or item, bound
    elsewhere); None for any other target (one name, a starred or nested target)."""
    if len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    if not isinstance(target, (cst.Tuple, cst.List)):
        return None
    out: list[str | None] = []
    for e in target.elements:
        if type(e) is not cst.Element or type(e.value) in (cst.Tuple, cst.List):
            return None
        out.append(e.value.value if type(e.value) is cst.Name else None)
    return out


def _plain(api: str, options: list[cst.Arg], with_fun: bool) -> bool:
    """Does the application pass each argument of its function on as it is, traced if it
    traces: no option that keeps one concrete (``static_argnums``, ``in_axes``), nothing
    given positionally beside the function, no ``*args``?"""
    if any(a.star for a in options) or sum(a.keyword is None for a in options) > int(with_fun):
        return False
    entry = TABLE[api]
    concrete = set(entry.static) | ({"in_axes"} if entry.in_axes else set())
    return not any(a.keyword is not None and a.keyword.value in concrete for a in options)


def _plain_value(t: Transformed) -> bool:
    """``_plain`` for a map the evaluator made: none of its options keeps an argument concrete."""
    entry = TABLE[t.api]
    concrete = set(entry.static) | ({"in_axes"} if entry.in_axes else set())
    return not t.unknown_options and not any(t.given(o) for o in concrete)


def _function_parameter(api: str | None) -> str | None:
    """The name of the parameter a transform takes its function by (``jax.vmap(fun=f)``,
    ``jax.shard_map(f=...)``), as JAX declares it."""
    if api is None or api not in SIGNATURES:
        return None
    params = signature(api).params
    return params[0].name if params else None


def _test_decorator(api: str | None) -> bool:
    """A decorator of a test framework (what it resolves to, never how it is spelled)."""
    return api is not None and api.startswith(TEST_DECORATOR_PREFIXES)


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
