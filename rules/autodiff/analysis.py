"""Shared analysis of the JAX4xx family.

Two halves, because the differentiated function may live in another module:
- ``sites(ctx)``: every ``grad`` / ``value_and_grad`` / ``jacrev`` / ``jacfwd`` /
  ``jacobian`` / ``hessian`` application of a file, with its options as plain data;
- ``summaries(ctx)``: what each function of a file visibly returns, which of its
  parameters are visibly integers, and whether its name is rebound or wrapped by a
  decorator that changes its signature. Stored in the module facts (``extra``) so the
  project phase can read them for functions defined in other modules.

``Target.of(data, project)`` joins the two in the project phase. Anything not visible
statically makes the answer ``None`` (unknown means silent).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN
from jaxlint.lint.rule import Rule
from jaxlint.model import External, Function, Parameter, Partial, Transformed, program
from jaxlint.model.paths import follow
from jaxlint.model.returns import always_returns, return_statements
from jaxlint.model.transfer import signature
from jaxlint.model.transforms import named

if TYPE_CHECKING:
    from jaxlint.base.types import Pending
    from jaxlint.model.project import Project

KEY = "JAX4xx"
UNKNOWN_OPT = "<unknown>"

# the differentiating transforms (jaxlint/model/transforms.py), by the name messages give
GRAD_APIS = {q: q.rsplit(".", 1)[1] for q in sorted(named(gives="grad") | named(gives="jacobian"))}
SCALAR_APIS = named(gives="grad")  # they need a scalar output
ALLOW_INT_APIS = frozenset(q for q in GRAD_APIS if signature(q).param("allow_int") is not None)
OPTION_ORDER = ("argnums", "has_aux", "holomorphic", "allow_int")

# Wrappers that return what the wrapped function returns, called with the same arguments.
RETURN_PRESERVING = named(gives="value") | {"staticmethod", "classmethod"}
# Wrappers that are called with the same positional arguments (outputs may differ).
ARITY_PRESERVING = RETURN_PRESERVING | named(gives="map") | set(GRAD_APIS)

REDUCTIONS = frozenset(
    f"jax.numpy.{n}"
    for n in (
        "sum",
        "mean",
        "max",
        "min",
        "prod",
        "std",
        "var",
        "average",
        "nansum",
        "nanmean",
        "amax",
        "amin",
        "median",
    )
)
ELEMENTWISE_OR_SCALAR = frozenset(
    {
        f"jax.numpy.{n}"
        for n in (
            "vdot",
            "square",
            "sqrt",
            "exp",
            "log",
            "abs",
            "tanh",
            "sin",
            "cos",
            "dot",
            "matmul",
            "einsum",
            "where",
            "maximum",
            "minimum",
            "log1p",
            "expm1",
            "power",
            "clip",
        )
    }
    | {"jax.numpy.linalg.norm", "jax.numpy.trace", "jax.nn.logsumexp", "jax.scipy.special.logsumexp"}
)
NONSCALAR_CONSTRUCTORS = frozenset(
    f"jax.numpy.{n}"
    for n in ("stack", "hstack", "vstack", "column_stack", "concatenate", "outer", "atleast_1d", "ravel")
)
ARRAY_FROM_LIST = frozenset({"jax.numpy.array", "jax.numpy.asarray"})
SHAPE_FUNCS = frozenset(
    f"jax.numpy.{n}" for n in ("zeros", "ones", "empty", "full", "eye", "identity", "arange", "tri", "linspace")
)
METHOD_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "prod", "std", "var"})


def short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def as_tuple(text: str) -> str:
    """A returned tuple's source, shortened and parenthesised: ``(loss, aux)``."""
    text = short(text)
    return text if text[:1] in "([{" and text[-1:] in ")]}" else f"({text})"


# -- function summaries ------------------------------------------------------------------
class _Lazy:
    __slots__ = ("ctx", "node")

    def __init__(self, ctx, node: cst.CSTNode) -> None:
        self.ctx, self.node = ctx, node

    def text(self) -> str:
        return self.ctx.code(self.node)


def _materialise(value: Any, keep: bool) -> Any:
    """Replace lazy texts by source text (``keep``) or by "" (never shown)."""
    if isinstance(value, _Lazy):
        return value.text() if keep else ""
    if isinstance(value, list):
        return [_materialise(v, keep) for v in value]
    return value


class Summarizer:
    """Computes the per-function summaries of one file."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._site_units: set | None = None

    def code(self, node: cst.CSTNode) -> _Lazy:
        """Source text, generated only if the summary keeps it (codegen is the cost)."""
        return _Lazy(self.ctx, node)

    def kind(self, expr: cst.BaseExpression | None, scope: str) -> list[Any]:
        """What a returned expression visibly is: ["tuple"|"list", n, [element texts]],
        ["dict"], ["scalar"|"nonscalar"|"value", evidence], ["none"] or ["unknown"]."""
        if expr is None or (isinstance(expr, cst.Name) and expr.value == "None"):
            return ["none"]
        if isinstance(expr, (cst.Tuple, cst.List)):
            if any(isinstance(e, cst.StarredElement) for e in expr.elements):
                return ["unknown"]
            kinds = [self.kind(e.value, scope)[0] for e in expr.elements]
            return [
                "tuple" if isinstance(expr, cst.Tuple) else "list",
                len(expr.elements),
                [self.code(e.value) for e in expr.elements],
                kinds,
            ]
        if isinstance(expr, cst.Dict):
            return ["dict"]
        if isinstance(expr, (cst.Integer, cst.Float)):
            return ["scalar", self.code(expr)]
        if isinstance(expr, cst.BinaryOperation):
            sides = [self.kind(expr.left, scope), self.kind(expr.right, scope)]
            if any(s[0] in ("tuple", "list", "dict", "none") for s in sides):
                return ["unknown"]
            for s in sides:
                if s[0] == "nonscalar" and not isinstance(expr.operator, cst.MatrixMultiply):
                    return ["nonscalar", s[1]]
            return ["value", self.code(expr)]
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            inner = self.kind(expr.expression, scope)
            return inner if inner[0] in ("scalar", "nonscalar", "value") else ["unknown"]
        if isinstance(expr, cst.Call):
            return self._call_kind(expr, scope)
        return ["unknown"]

    def _call_kind(self, call: cst.Call, scope: str) -> list[Any]:
        ctx = self.ctx
        name = ctx.resolve(call.func)
        text = self.code(call)
        if any(a.star for a in call.args):
            return ["unknown"]
        if name in NONSCALAR_CONSTRUCTORS:
            return ["nonscalar", text]
        if name in ARRAY_FROM_LIST and call.args and isinstance(call.args[0].value, (cst.List, cst.Tuple)):
            if call.args[0].value.elements and not any(
                isinstance(e, cst.StarredElement) for e in call.args[0].value.elements
            ):
                return ["nonscalar", text]
            return ["unknown"]
        if name in REDUCTIONS:
            reduced = len([a for a in call.args if a.keyword is None]) == 1 and not any(
                a.keyword is not None and a.keyword.value in ("axis", "where") for a in call.args
            )
            return ["scalar", text] if reduced else ["value", text]
        if name in ELEMENTWISE_OR_SCALAR:
            return ["value", text]
        if (
            name is None
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value in METHOD_REDUCTIONS
            and not call.args
        ):
            return ["scalar", text]
        # ``jax.vmap(f)(xs)`` or ``batched(xs)`` with ``batched = jax.vmap(f)``: one value per example
        if isinstance(call.func, (cst.Call, cst.Name)):
            v = program(ctx).value(call.func)
            if (
                type(v) is Transformed
                and v.api == "jax.vmap"
                and "out_axes" not in v.keywords
                and type(v.target) is not Transformed
            ):
                return ["nonscalar", text]
        return ["unknown"]

    def function(self, fact, node) -> dict[str, Any]:
        ctx = self.ctx
        scope = fact.qualname
        out: dict[str, Any] = {"returns": None, "complete": False, "ints": {}, "decorators": []}
        if isinstance(node, cst.Lambda):
            out["returns"] = [_materialise([*self.kind(node.body, scope), self.code(node.body)], keep=True)]
            out["complete"] = True
            body_nodes = [*ctx.descendants(node.body), node.body]
        else:
            body_nodes = ctx.descendants(node.body)
            found = return_statements(ctx, node)
            if found is not None:
                returns = [
                    [*self.kind(n.value, scope), self.code(n.value) if n.value is not None else "None"] for n in found
                ]
                out["returns"] = [_materialise(r, keep=(i == 0 or r[0] != "unknown")) for i, r in enumerate(returns)]
                out["complete"] = always_returns(node)
            out["decorators"] = [self._decorator(d.decorator) for d in node.decorators]
        out["ints"] = self._ints(fact, body_nodes)
        return out

    def _decorator(self, expr: cst.BaseExpression) -> str:
        t = self.ctx.transform_for(expr) if isinstance(expr, cst.Call) else None
        if t is None and not isinstance(expr, cst.Call):
            for tr, n in self.ctx.collector.transform_nodes:
                if n is expr:
                    t = tr
                    break
        if t is not None:
            if t.partial_args or t.partial_keywords or t.chain:
                return "<wrapped>"
            return t.api
        if isinstance(expr, cst.Call):
            return "<call>"
        return self.ctx.resolve(expr) or self.ctx.code(expr)

    def _ints(self, fact, body_nodes) -> dict[str, str]:
        """Parameters that are visibly Python integers or shapes, with the evidence."""
        names = {p.name for p in fact.params if p.kind in ("pos", "posonly")}
        assigned: set[str] = set()
        evidence: dict[str, str] = {}
        for p in fact.params:
            if p.kind not in ("pos", "posonly"):
                continue
            if p.annotation in ("int", "bool"):
                evidence[p.name] = f"annotated `{p.annotation}`"
            elif p.default is not None and re.fullmatch(r"-?\d+|True|False", p.default.strip()):
                evidence[p.name] = f"its default is `{p.default.strip()}`"
        for n in body_nodes:
            if isinstance(n, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                targets = [t.target for t in n.targets] if isinstance(n, cst.Assign) else [n.target]
                for t in targets:
                    for x in [t, *self.ctx.descendants(t)]:
                        if isinstance(x, cst.Name):
                            assigned.add(x.value)
            elif isinstance(n, (cst.For, cst.CompFor)):
                for x in [n.target, *self.ctx.descendants(n.target)]:
                    if isinstance(x, cst.Name):
                        assigned.add(x.value)
            elif isinstance(n, cst.Call):
                where = self._int_use(n, names)
                if where is not None:
                    name, text = where
                    evidence.setdefault(name, text)
        return {k: v for k, v in evidence.items() if k not in assigned}

    def _int_use(self, call: cst.Call, names: set[str]) -> tuple[str, str] | None:
        ctx = self.ctx
        func = call.func
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        if isinstance(func, cst.Name) and func.value == "range" and ctx.names.lookup("range") is None:
            for a in positional:
                if isinstance(a, cst.Name) and a.value in names:
                    return a.value, f"used as a loop bound in `{short(ctx.code(call))}`"
            return None
        shape_args: list[cst.BaseExpression] = []
        qual = ctx.resolve(func)
        if qual in SHAPE_FUNCS and positional:
            shape_args = (
                positional[:2] if qual in ("jax.numpy.arange", "jax.numpy.eye", "jax.numpy.tri") else positional[:1]
            )
        elif qual is None and isinstance(func, cst.Attribute) and func.attr.value == "reshape":
            shape_args = positional
        for a in shape_args:
            items = [e.value for e in a.elements] if isinstance(a, (cst.Tuple, cst.List)) else [a]
            for it in items:
                if isinstance(it, cst.Name) and it.value in names:
                    return it.value, f"used as a shape in `{short(ctx.code(call))}`"
        return None

    def _may_be_looked_up(self, node: cst.CSTNode) -> bool:
        """Can a grad site (here or in another module) name this function? Only if it is in
        a unit that a seed hands to a transform (``ctx.looked_up``), in a unit with a grad
        site of this file, or in module-level code; when linting whole files, always."""
        looked_up = self.ctx.looked_up
        if looked_up is None:
            return True
        unit = self.ctx.unit_of(node)
        if not isinstance(unit, (cst.FunctionDef, cst.ClassDef)):
            return True
        if unit.name.value in looked_up:
            return True
        if self._site_units is None:
            self._site_units = {self.ctx.unit_of(s.node) for s in sites(self.ctx)}
        return unit in self._site_units

    def _rebound(self, node: cst.FunctionDef) -> bool:
        """Is the def's name bound otherwise in its scope (the program model's bindings: an
        assignment, import, loop target...), other than by a signature-preserving transform of
        it (``f = jax.jit(f)``)? Then what a grad elsewhere names may not be it. (Another def
        of the name is not counted: each def has its own summary, ``f#2``; nor a class, which
        the slicer may blank.)"""
        b = program(self.ctx).binding_of_value(node)
        if b is None:
            return True
        for x in b.scope.bindings.get(b.name, ()):
            if x is b or x.kind in ("def", "class"):
                continue
            t = self.ctx.transform_for(x.value) if x.kind == "assign" and type(x.value) is cst.Call else None
            if t is None or t.api not in ARITY_PRESERVING or t.partial_args or t.partial_keywords or t.chain:
                return True
        return False

    def module(self) -> dict[str, Any]:
        ctx = self.ctx
        functions = {
            fact.qualname: self.function(fact, node)
            for fact, node in ctx.collector.function_nodes
            if self._may_be_looked_up(node)
        }
        # a def whose name is also bound otherwise in its scope may not be the function called
        rebound = [
            fact.qualname
            for fact, node in ctx.collector.function_nodes
            if isinstance(node, cst.FunctionDef) and fact.class_name is None and self._rebound(node)
        ]
        return {"functions": functions, "rebound": sorted(set(rebound))}


def summaries(ctx) -> dict[str, Any]:
    """The file's function summaries, computed once and stored in the module facts."""
    extra = ctx.facts.extra
    if KEY not in extra:
        extra[KEY] = Summarizer(ctx).module()
    return extra[KEY]


# -- transform sites ---------------------------------------------------------------------
@dataclass
class Site:
    node: cst.CSTNode  # the transform call, or the decorator expression
    call: cst.Call | None  # the call that holds the options, when the node is a call
    data: dict[str, Any]
    option_nodes: dict[str, cst.CSTNode]


def _plain(value: Any) -> Any:
    """Literal option value as plain data; UNKNOWN becomes a marker string."""
    if value is UNKNOWN:
        return UNKNOWN_OPT
    if isinstance(value, (list, tuple)):
        items = [_plain(v) for v in value]
        return UNKNOWN_OPT if UNKNOWN_OPT in items else (list(items) if isinstance(value, list) else tuple(items))
    return value


def _unwrap(p, value: Any) -> tuple[Any, list[str], int, list[str]]:
    """(what is finally differentiated, the transforms between, positional args and keywords
    bound by ``partial`` on the way)."""
    chain: list[str] = []
    bound, keywords = 0, []
    for _ in range(16):
        if type(value) is Transformed:
            chain.append(value.api)
            value = value.target
        elif type(value) is Partial and not value.unknown:
            bound += sum(1 for a in value.arg_nodes if a.keyword is None)
            keywords += [a.keyword.value for a in value.arg_nodes if a.keyword is not None]
            value = value.func
        else:
            break
    return value, chain, bound, keywords


def _mode(p, app: Transformed, fn: Function) -> str:
    """How the differentiated method is called: "plain" (bound, ``self`` not passed) or "raw"."""
    fact = p.ctx.function_fact(fn.node)
    if fact is None or not fact.is_method:
        return "plain"
    if app.decorator:
        return "raw"
    expr = app.target_node
    while isinstance(expr, cst.Call) and expr.args:
        expr = expr.args[0].value  # through partial(...) and inner transforms
    if isinstance(expr, cst.Attribute) and type(p.value(expr.value)) is Parameter:
        return "plain"  # self.loss
    return "raw"  # Model.loss, or the name inside the class body


def _call_ints(p, node: cst.CSTNode) -> dict[int, str]:
    """Positions where a call of the transformed function passes a Python int (``g(w, 2)``)."""
    out: dict[int, str] = {}
    calls, _ = p.invocations(node)
    for call in calls:
        if any(a.star for a in call.args):
            continue
        pos = [a.value for a in call.args if a.keyword is None]
        for i, expr in enumerate(pos):
            v = p.literal(expr)
            if isinstance(v, int) and not isinstance(v, bool):
                out.setdefault(i, f"given the Python int `{p.ctx.code(expr)}` in `{short(p.ctx.code(call))}`")
    return out


def sites(ctx) -> list[Site]:
    cached = getattr(ctx, "_jax4xx_sites", None)
    if cached is not None:
        return cached
    p = program(ctx)
    out: list[Site] = []
    for app in p.applications():
        if app.api not in GRAD_APIS:
            continue
        node = app.node
        raw_args = list(node.args) if isinstance(node, cst.Call) else []
        if app.star_kwargs or any(a.star for a in raw_args):
            continue
        options: dict[str, Any] = {}
        option_nodes: dict[str, cst.CSTNode] = {}
        for name, arg in zip(OPTION_ORDER, app.args, strict=False):
            options[name] = _plain(p.literal(arg.value))
            option_nodes[name] = arg
        for key, value in app.keywords.items():
            options[key] = _plain(p.literal(value))
            option_nodes[key] = p.parents[value]
        leaf, chain, bound, keywords = _unwrap(p, app.target)
        target, mode = None, "plain"
        if type(leaf) is Function:
            qual = ctx.qualname(leaf.node)
            target = ctx.facts.ref(qual) if qual else None
            mode = _mode(p, app, leaf)
        elif type(leaf) is External:
            target = leaf.qualified
        below: list[str] = []
        if app.decorator:
            dec = ctx.parent(node)
            fn = ctx.parent(dec)
            if not isinstance(fn, cst.FunctionDef):
                continue
            idx = next((i for i, d in enumerate(fn.decorators) if d is dec), None)
            if idx is None:
                continue
            s = Summarizer(ctx)
            below = [s._decorator(d.decorator) for d in fn.decorators[idx + 1 :]]
            chain = []  # the decorators below are judged through ``below``
            shown = ctx.code(node)
            shown_target = fn.name.value
        else:
            shown = ctx.code(node.func if isinstance(node, cst.Call) else node)
            tx = app.target_node
            shown_target = short(ctx.code(tx), 40) if tx is not None else "?"
        out.append(
            Site(
                node=node,
                call=node if isinstance(node, cst.Call) else None,
                data={
                    "api": app.api,
                    "api_name": GRAD_APIS[app.api],
                    "shown": short(shown, 40),
                    "shown_target": shown_target,
                    "target": target,
                    "mode": mode,
                    "decorator": app.decorator,
                    "below": below,
                    "chain": chain,
                    "partial_args": bound,
                    "partial_keywords": keywords,
                    "options": options,
                    "call_ints": _call_ints(p, node),
                },
                option_nodes=option_nodes,
            )
        )
    ctx._jax4xx_sites = out
    return out


def argnums_list(options: dict[str, Any]) -> list[int] | None:
    """The literal argnums as a list of ints (default 0), or None when not a literal int/sequence."""
    v = options.get("argnums", 0)
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return [v]
    if isinstance(v, (tuple, list)) and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        return list(v)
    return None


# -- project phase -----------------------------------------------------------------------
@dataclass
class Target:
    """The differentiated function as the transform sees it."""

    name: str
    params: list[str]  # parameter names the caller can pass positionally, in order
    summary: dict[str, Any]
    fact: Any
    module: Any
    ref: str
    returns_visible: bool  # no wrapper between the transform and the def changes the output
    bound_note: str

    @classmethod
    def of(cls, data: dict[str, Any], project, _depth: int = 0) -> Target | None:
        if any(c not in ARITY_PRESERVING for c in data["chain"]):
            return None
        found = follow(project, data["target"], ARITY_PRESERVING)
        if found is None:
            return None
        (m, f), layers = found
        if f.has_varargs:
            return None
        mod_summary = m.extra.get(KEY)
        if not mod_summary or f.qualname in mod_summary.get("rebound", ()):
            return None
        if not f.is_lambda and f"{f.qualname}#2" in m.functions:
            return None  # a name defined twice: which def runs is unknown (lambdas are values, not names)
        summary = mod_summary["functions"].get(f.qualname)
        if summary is None:
            return None
        decorators = list(summary["decorators"])
        if data["decorator"]:
            decorators = list(data["below"])
        if any(d not in ARITY_PRESERVING for d in decorators):
            return None
        params = [p for p in f.params if p.kind in ("pos", "posonly")]
        if data["mode"] == "plain" and f.is_method:
            params = params[1:]
        names = [p.name for p in params]
        returns_visible = all(d in RETURN_PRESERVING for d in decorators) and all(
            c in RETURN_PRESERVING for c in data["chain"]
        )
        bound: list[str] = []
        for partial_args, partial_keywords, api in [*layers, (data["partial_args"], data["partial_keywords"], None)]:
            if api is not None and api not in RETURN_PRESERVING:
                returns_visible = False
            if partial_args:
                if partial_args > len(names):
                    return None
                bound += names[:partial_args]
                names = names[partial_args:]
            for kw in partial_keywords:
                if kw in bound:
                    return None
                if kw in names:
                    bound.append(f"{kw}=")
                    names = names[: names.index(kw)]
        note = ""
        if bound:
            note = " after functools.partial binds " + ", ".join(f"`{b.rstrip('=')}`" for b in bound)
        return cls(f.name, names, summary, f, m, f"{m.module}.{f.qualname}", returns_visible, note)

    @property
    def label(self) -> str:
        return "the lambda" if self.fact.is_lambda else f"`{self.name}`"

    def describe(self) -> str:
        n = len(self.params)
        listed = ", ".join(f"`{p}`" for p in self.params)
        word = "parameter" if n == 1 else "parameters"
        return f"{self.label} takes {n} positional {word}" + (f" ({listed})" if n else "") + self.bound_note


def static_params(target: Target, project) -> dict[str, str]:
    """Parameters that a ``jit`` of the same function marks static, with the evidence."""
    out: dict[str, str] = {}
    f = target.fact
    all_pos = [p.name for p in f.params if p.kind in ("pos", "posonly")]
    for m, t in project.transforms_of(target.ref):
        if m is not target.module:
            continue  # read in the function's own module (what the slicer keeps: target_transforms)
        if t.api not in ("jax.jit", "jax.experimental.pjit.pjit") or t.partial_args or t.partial_keywords or t.chain:
            continue
        base = all_pos if (t.decorator or not f.is_method) else all_pos[1:]
        where = f"`jit` at {m.path.rsplit('/', 1)[-1]}:{t.line}" if t.line else "`jit`"
        nums = t.keywords.get("static_argnums")
        if isinstance(nums, int) and not isinstance(nums, bool):
            nums = [nums]
        if isinstance(nums, (list, tuple)):
            for i in nums:
                if isinstance(i, int) and -len(base) <= i < len(base):
                    out.setdefault(base[i], f"static in {where} (static_argnums={t.keywords['static_argnums']!r})")
        names = t.keywords.get("static_argnames")
        if isinstance(names, str):
            names = [names]
        if isinstance(names, (list, tuple)):
            for n in names:
                if isinstance(n, str) and n in base:
                    out.setdefault(n, f"static in {where} (static_argnames={t.keywords['static_argnames']!r})")
    return out


# -- the rules' common shape -------------------------------------------------------------
def argnums_node(site: Site) -> cst.CSTNode:
    return site.option_nodes.get("argnums", site.node)


def normalised(nums: list[int], n: int) -> list[int] | None:
    """Indices with negatives resolved, or None if any is out of range."""
    if any(not -n <= i < n for i in nums):
        return None
    return [i % n for i in nums]


def aux_evidence(texts: list[str], kinds: list[str]) -> bool:
    """Is the second of two returned values visibly auxiliary (metrics, a dict of logs, ...)?"""
    if kinds[1] == "dict":
        return True
    second = texts[1]
    return bool(re.fullmatch(r"[A-Za-z_][\w.]*", second)) and bool(
        re.search(r"(aux|metric|stats?\b|stats_|info|logs?\b|logs_|extra|summar)", second, re.IGNORECASE)
    )


def first_is_loss(texts: list[str], kinds: list[str]) -> bool:
    return kinds[0] == "scalar" or bool(re.search(r"loss|objective|cost|energy", texts[0], re.IGNORECASE))


def used_with_aux(target: Target, project) -> bool:
    return any(t.api in GRAD_APIS and t.keywords.get("has_aux") is True for _, t in project.transforms_of(target.ref))


class GradRule(Rule):
    """Collects grad-like sites in ``finish`` and decides them in the project phase."""

    about = tuple(GRAD_APIS)
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    reads = "jit of targets"  # static_params: jit of the target, in its module
    # files that may define the function a grad in another module differentiates
    context_words = ("argnums", "has_aux", "jnp", "jax.numpy", "loss")

    def finish(self) -> None:
        summaries(self.ctx)
        for site in sites(self.ctx):
            self.check(site)

    def check(self, site: Site) -> None:
        self.pending(argnums_node(site), site.data)

    @classmethod
    def verdict(cls, data: dict[str, Any], project: Project) -> str | None:
        """The message for one site, or None when it is fine: each rule decides its own."""
        raise NotImplementedError(f"{cls.__name__} does not define verdict")

    @classmethod
    def resolve(cls, items: list[Pending], project: Project) -> Iterator[tuple[Pending, str]]:
        """Each subclass decides one site in ``verdict(data, project)`` (a message or None)."""
        for p in items:
            message = cls.verdict(p.data, project)
            if message:
                yield p, message
