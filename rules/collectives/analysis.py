"""Where axis names are bound: the paths by which a function runs, and the maps on them.

Per file, ``AxisFacts`` records every *use* of a function (a def, a lambda, or a variable
bound to a transformed function): called directly, mapped by ``pmap``/``vmap``/
``shard_map``/``smap`` (with the axis names each binds, read by ``jaxlint.model.axes``),
wrapped by a transform that binds nothing (``jit``, ``grad``, ``partial``), handed to code
that calls it in place (``lax.scan``, ``jax.tree.map``), or bound to a variable or to a
``self.name`` its class assigns once (``jaxlint.model.attributes``). Anything else is an
unknown use. The project phase
(``find_unbound``) walks these uses upwards from the function holding a collective and
looks for one *known* path on which the axis name is not bound. Unknown means silent:
a path through an unknown use, a map whose names cannot be read, or a function that
nothing in the project uses (a library entry point) proves nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import libcst as cst


from jaxlint.model import program
from jaxlint.model.attributes import assigned_value, instance_attribute
from jaxlint.model.axes import MAPS, bound_names
from jaxlint.names import dotted

# collective -> index of the positional axis_name argument (None: keyword only)
COLLECTIVES: dict[str, int | None] = {
    "psum": 1,
    "pmean": 1,
    "pmax": 1,
    "pmin": 1,
    "all_gather": 1,
    "all_to_all": 1,
    "ppermute": 1,
    "psum_scatter": 1,
    "pshuffle": 1,
    "pswapaxes": 1,
    "pbroadcast": 1,
    "pcast": 1,
    "axis_index": 0,
    "axis_size": 0,
    "ragged_all_to_all": None,
}
COLLECTIVE_NAMES = {f"jax.lax.{k}": k for k in COLLECTIVES}

# transforms that bind no axis name: the wrapped function runs where the result is called
PASS = frozenset(
    {
        "jax.jit",
        "jax.grad",
        "jax.value_and_grad",
        "jax.jacrev",
        "jax.jacfwd",
        "jax.jacobian",
        "jax.hessian",
        "jax.checkpoint",
        "jax.remat",
        "jax.ad_checkpoint.checkpoint",
        "jax.named_call",
        "jax.custom_vjp",
        "jax.custom_jvp",
        "jax.experimental.pjit.pjit",
        "functools.partial",
    }
)
# calls that run a function argument immediately, in the caller's context
RUNS_HERE = frozenset(
    {
        "jax.lax.scan",
        "jax.lax.fori_loop",
        "jax.lax.while_loop",
        "jax.lax.cond",
        "jax.lax.switch",
        "jax.lax.map",
        "jax.lax.associative_scan",
        "jax.vjp",
        "jax.jvp",
        "jax.linearize",
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
# module transforms of neural-network libraries: they bind axis names of their own
FOREIGN_MAP_LIBS = ("flax", "haiku", "equinox", "praxis")
EXTERNAL = frozenset(
    {"jax", "jaxlib", "numpy", "functools", "typing", "builtins", "math", "os", "sys"}
)
FUN_KEYWORDS = frozenset({"fun", "f", "fn"})
EXPECTS_ERROR = (
    "assertRaises",
    "assertRaisesRegex",
    "assertRaisesRegexp",
    "assertRaisesWithLiteralMatch",
    "raises",
)


def short(api: str) -> str:
    return api.rsplit(".", 1)[-1]


class AxisFacts:
    """Collects the uses of functions and the collectives of one file (see module doc)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.uses: list[dict[str, Any]] = []
        self.decorated: dict[str, list[dict[str, Any]] | None] = {}
        self.collectives: list[tuple[cst.Call, dict[str, Any]]] = []
        self._line_nodes: list[tuple[dict[str, Any], cst.CSTNode]] = []
        self._assigns: dict[tuple[str, str], list[cst.BaseExpression]] = {}
        self._locals: dict[cst.CSTNode, set[str]] = {}

    # -- names and scopes -------------------------------------------------------------
    def scope_ref(self, node: cst.CSTNode) -> str | None:
        """Reference of the function whose body holds ``node``; None at module level."""
        q = self.ctx.scope_of(node)
        return self.ctx.facts.ref(q) if q else None

    def expects_error(self, node: cst.CSTNode) -> bool:
        """Inside ``with self.assertRaises(...)`` / ``pytest.raises`` (the error is the point),
        or inside an axis environment set up by hand (``core.extend_axis_env_nd``)."""
        for a in self.ctx.ancestors(node):
            if isinstance(a, cst.With):
                for item in a.items:
                    e = item.item
                    name = dotted(e.func) if isinstance(e, cst.Call) else None
                    if name and (
                        name.rsplit(".", 1)[-1] in EXPECTS_ERROR or "axis_env" in name
                    ):
                        return True
        return False

    def note_assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            key = (self.ctx.scope_of(node), node.targets[0].target.value)
            self._assigns.setdefault(key, []).append(node.value)

    def _local_names(self, func: cst.CSTNode) -> set[str]:
        """Names a function binds itself (parameters, assignments, loops, with-as)."""
        got = self._locals.get(func)
        if got is not None:
            return got
        out: set[str] = set()
        if isinstance(func, (cst.FunctionDef, cst.Lambda)):
            p = func.params
            for param in [*p.posonly_params, *p.params, *p.kwonly_params]:
                out.add(param.name.value)
            for star in (p.star_arg, p.star_kwarg):
                if isinstance(star, cst.Param):
                    out.add(star.name.value)
        body = func.body if isinstance(func, cst.FunctionDef) else None
        nested = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
        for n in self.ctx.descendants(body, prune=nested) if body is not None else ():
            if type(n) in nested:
                continue
            targets: list[cst.CSTNode] = []
            if (
                isinstance(n, cst.AssignTarget)
                or isinstance(n, (cst.AnnAssign, cst.AugAssign))
                or isinstance(n, cst.For)
            ):
                targets.append(n.target)
            elif isinstance(n, cst.AsName):
                targets.append(n.name)
            elif isinstance(n, cst.NamedExpr):
                targets.append(n.target)
            for t in targets:
                for leaf in _target_names(t):
                    out.add(leaf)
        self._locals[func] = out
        return out

    def shadowed(self, node: cst.Name) -> bool:
        """Is the name bound locally (to something else than a def or a transform call)?"""
        for a in self.ctx.ancestors(node):
            if isinstance(
                a, (cst.FunctionDef, cst.Lambda)
            ) and node.value in self._local_names(a):
                q = self.ctx.qualname(a) or ""
                binds = self.ctx.collector.bindings.get(q, {})
                if node.value in binds:
                    values = self._assigns.get((q, node.value), [])
                    return any(not isinstance(v, cst.Call) for v in values)
                return True
        return False

    # -- maps -------------------------------------------------------------------------
    def callee(self, call: cst.Call) -> tuple[str | None, list[cst.Arg], bool]:
        """(api, option arguments, partial form?) of ``api(...)`` or ``partial(api, ...)(...)``."""
        func = call.func
        if (
            isinstance(func, cst.Call)
            and func.args
            and self.ctx.resolve(func.func) == "functools.partial"
        ):
            inner = self.ctx.resolve(func.args[0].value)
            if inner in MAPS or inner in PASS:
                return (
                    inner,
                    list(func.args[1:])
                    + [a for a in call.args if a.keyword is not None],
                    True,
                )
            return None, [], True
        return self.ctx.resolve(func), list(call.args), False

    def attribute_ref(self, attr: cst.Attribute) -> str | None:
        """``self.step``, assigned once in the class: a reference of its own (``Cls.step@self``)."""
        p = program(self.ctx)
        key = instance_attribute(p, attr)
        if key is None or assigned_value(p, attr) is None:
            return None
        method = self.ctx.qualname(key.method)
        if not method:
            return None
        return self.ctx.facts.ref(f"{method.rpartition('.')[0]}.{key.name}") + INSTANCE

    # -- uses -------------------------------------------------------------------------
    def fate(self, node: cst.BaseExpression) -> dict[str, Any]:
        """Where the function an expression names ends up running, and the maps around it."""
        maps: list[dict[str, Any]] = []
        cur: cst.CSTNode = node
        while True:
            parent = self.ctx.parent(cur)
            if isinstance(parent, cst.Call) and parent.func is cur:
                return self._use("run", maps, parent, scope=self.scope_ref(parent))
            if isinstance(parent, cst.Arg) and parent.value is cur and not parent.star:
                call = self.ctx.parent(parent)
                if not isinstance(call, cst.Call):
                    break
                api, options, partial_form = self.callee(call)
                positional = [a for a in call.args if a.keyword is None]
                is_fun = (positional and positional[0] is parent) or (
                    parent.keyword is not None and parent.keyword.value in FUN_KEYWORDS
                )
                if is_fun and api in MAPS:
                    maps.append(
                        self._map(
                            api, call, bound_names(program(self.ctx), api, options, not partial_form)
                        )
                    )
                    cur = call
                    continue
                if is_fun and api in PASS:
                    cur = call
                    continue
                if api in RUNS_HERE:
                    return self._use("run", maps, call, scope=self.scope_ref(call))
                break
            if isinstance(parent, cst.Assign) and parent.value is cur:
                if len(parent.targets) == 1 and isinstance(
                    parent.targets[0].target, cst.Name
                ):
                    q = self.ctx.scope_of(parent)
                    name = parent.targets[0].target.value
                    var = self.ctx.facts.ref(f"{q}.{name}" if q else name)
                    if rebinds_def(self.ctx, parent):
                        var += REBOUND
                    return self._use("bind", maps, parent, var=var)
                target = parent.targets[0].target if len(parent.targets) == 1 else None
                if isinstance(target, cst.Attribute) and assigned_value(program(self.ctx), target) is cur:
                    return self._use("bind", maps, parent, var=self.attribute_ref(target))
                break
            break
        return self._use("unknown", maps, cur)

    def _map(
        self, api: str, node: cst.CSTNode, names: tuple[str, ...] | None
    ) -> dict[str, Any]:
        m = {"api": short(api), "names": names, "line": 0, "path": self.ctx.path}
        self._line_nodes.append((m, node))
        return m

    def _use(
        self,
        kind: str,
        maps,
        node: cst.CSTNode,
        scope: str | None = None,
        var: str | None = None,
    ) -> dict[str, Any]:
        u = {
            "kind": kind,
            "maps": maps,
            "scope": scope,
            "var": var,
            "line": 0,
            "order": self.ctx.text_order(node),
            "path": self.ctx.path,
            "module": self.ctx.facts.module,
            "guarded": self.expects_error(node),
        }
        if kind == "run" and scope is None:  # a direct call at module level: messages cite its line
            self._line_nodes.append((u, node))
        return u

    def add_use(
        self, ref: str, expr: cst.BaseExpression, unknown: bool = False
    ) -> None:
        u = self._use("unknown", [], expr) if unknown else self.fate(expr)
        u["ref"] = ref
        self.uses.append(u)

    def decorators(self, node: cst.FunctionDef, ref: str) -> None:
        """Maps (innermost first) applied by a def's decorators; None if one is unknown."""
        maps: list[dict[str, Any]] = []
        for dec in reversed(node.decorators):
            expr = dec.decorator
            if isinstance(expr, cst.Call):
                api = self.ctx.resolve(expr.func) or dotted(expr.func)
                options = list(expr.args)
                if api == "functools.partial" and expr.args:
                    api = self.ctx.resolve(expr.args[0].value)
                    options = list(expr.args[1:])
                elif api in ("jax.pmap", "jax.vmap"):
                    api = None  # jax.pmap(...) as a decorator is not a map of the def
            else:
                api = self.ctx.resolve(expr) or dotted(expr)
                options = []
            if api in MAPS:
                maps.append(self._map(api, expr, bound_names(program(self.ctx), api, options, False)))
            elif api not in HARMLESS_DECORATORS and not _test_decorator(expr, api):
                self.decorated[ref] = None
                return
        if node.decorators:
            self.decorated[ref] = maps

    # -- output ----------------------------------------------------------------------
    def fill_lines(self) -> None:
        """Exact lines of what a message may cite: maps and direct calls at module level."""
        if not self._line_nodes:
            return
        from jaxlint.positions import node_ranges

        ranges = node_ranges(self.ctx.module, [n for _, n in self._line_nodes], self.ctx.parents, self.ctx.source,
                             self.ctx.shared.setdefault("positions", {}))
        for rec, n in self._line_nodes:
            if n in ranges:
                rec["line"] = ranges[n][0][0]

    def foreign(self) -> bool:
        return any(
            q.split(".")[0] in FOREIGN_MAP_LIBS for q in self.ctx.names.items().values()
        )

    def export(self) -> dict[str, Any]:
        return {
            "uses": self.uses,
            "decorated": self.decorated,
            "foreign": self.foreign(),
        }


def _test_decorator(expr: cst.BaseExpression, api: str | None) -> bool:
    target = expr.func if isinstance(expr, cst.Call) else expr
    name = dotted(target) or ""
    return any(n.startswith(TEST_DECORATOR_PREFIXES) for n in (api or "", name))


def _target_names(t: cst.CSTNode) -> Iterator[str]:
    if isinstance(t, cst.Name):
        yield t.value
    elif isinstance(t, (cst.Tuple, cst.List)):
        for el in t.elements:
            yield from _target_names(el.value)
    elif isinstance(t, cst.StarredElement):
        yield from _target_names(t.value)


# -- project phase ------------------------------------------------------------------
@dataclass
class Path:
    """One known way the collective's code runs: the maps around it and how it is reached."""

    maps: list[dict[str, Any]]
    trail: list[str]  # function references from the collective's function outwards
    root: (
        dict[str, Any] | None
    )  # the direct call at module level, or None (entry after a map)


class Index:
    def __init__(self, project, code: str) -> None:
        self.project = project
        self.uses: dict[str, list[dict[str, Any]]] = {}
        self.decorated: dict[str, Any] = {}
        self.foreign: dict[str, bool] = {}
        for m in project.all:
            if project.modules.get(m.module) is not m:
                continue  # two files with one module name: their references are ambiguous
            data = m.extra.get(code)
            if not data:
                continue
            self.foreign[m.module] = data.get("foreign", False)
            for u in data["uses"]:
                key = project.canonical(u["ref"]) or u["ref"]
                self.uses.setdefault(key, []).append(u)
            for ref, maps in data["decorated"].items():
                self.decorated[project.canonical(ref) or ref] = maps
        for v in self.uses.values():
            v.sort(key=lambda u: (u["path"], u["order"]))

    def canonical(self, ref: str) -> str:
        return self.project.canonical(ref) or ref

    def is_method(self, ref: str) -> bool:
        f = self.project.function(ref)
        return f is not None and f[1].class_name is not None

    def paths(self, scope: str | None, line: int, path: str) -> Iterator[Path]:
        if scope is None:
            yield Path([], [], {"path": path, "line": line, "module_level": True})
            return
        yield from self._explore(self.canonical(scope), [], [], set())

    def _explore(self, ref: str, maps, trail, seen: set[str]) -> Iterator[Path]:
        if ref in seen or len(seen) > 24:
            return
        seen = seen | {ref}
        if ref in self.decorated:
            dec = self.decorated[ref]
            if dec is None:
                return
            maps = maps + dec
        trail = trail + [ref]
        uses = self.uses.get(ref, [])
        if not uses:
            if maps and not (self.is_method(ref) and self._foreign_module(ref)):
                yield Path(maps, trail, None)
            return
        for u in uses:
            if u["guarded"] or u["kind"] == "unknown":
                continue
            m2 = maps + u["maps"]
            if u["kind"] == "run":
                if u["scope"] is None:
                    yield Path(m2, trail, u)
                else:
                    yield from self._explore(
                        self.canonical(u["scope"]), m2, trail, seen
                    )
            elif u["kind"] == "bind" and u["var"]:
                yield from self._explore(self.canonical(u["var"]), m2, trail, seen)

    def _foreign_module(self, ref: str) -> bool:
        m = self.project.module_of(ref)
        return m is None or self.foreign.get(m.module, True)


# ``f = jax.pmap(f, ...)`` inside a function: the variable gets a reference of its own, so
# that the def (``scope.f``) and the pmapped value (``scope.f@bound``) are two functions.
# At module level the name is what other modules import: it stays one reference.
REBOUND = "@bound"


# ``self.step = jax.pmap(train, ...)`` read as ``self.step(x)`` in another method: the
# attribute's reference, distinct from a method or a class attribute of the same name.
INSTANCE = "@self"


def rebinds_def(ctx, assign: cst.Assign) -> bool:
    """Is this assignment, in a function, a new binding of a name a def of that function binds?"""
    p = program(ctx)
    target = assign.targets[0].target
    scope = p.scope_of_node.get(ctx.enclosing_function(assign)) if ctx.enclosing_function(assign) else None
    if scope is None or scope.kind != "function" or not isinstance(target, cst.Name):
        return False
    return any(b.kind == "def" for b in scope.bindings.get(target.value, ()))


def rebound_ref(ctx, node: cst.Name, ref: str | None) -> str | None:
    """The reference of a read that can only be such a rebound variable (see REBOUND)."""
    b = program(ctx).binding(node)
    if b is None or b.kind != "assign" or not isinstance(b.node, cst.Assign) or len(b.node.targets) != 1:
        return ref
    if not rebinds_def(ctx, b.node):
        return ref
    q = ctx.qualname(b.scope.node) or ""
    return ctx.facts.ref(f"{q}.{node.value}" if q else node.value) + REBOUND


def where(rec: dict[str, Any], here: str) -> str:
    """``at line 12`` / ``at train.py:12``; without a known line ``in this file`` / ``in train.py``."""
    if rec["path"] == here:
        return f"at line {rec['line']}" if rec["line"] else "in this file"
    name = os.path.basename(rec["path"])
    return f"at {name}:{rec['line']}" if rec["line"] else f"in {name}"


def local_name(ref: str) -> str:
    last = ref.rsplit(".", 1)[-1]
    if last.startswith("<lambda>"):
        return "the lambda"
    if last.startswith("<partial:"):
        return "the partial"
    return f"`{last}`"
