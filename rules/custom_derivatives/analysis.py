"""Pair each custom_vjp / custom_jvp primal with its rules and describe both statically.

One analysis per file, shared by the JAX3xx rules. A *registration* is
``f.defvjp(fwd, bwd)``, ``f.defjvp(jvp)`` or ``@f.defjvp``; names are resolved
flow-sensitively inside their scope (JAX's tests redefine ``f``/``fwd``/``bwd`` many
times in one function), so each registration meets the definition that is live at that
point. What a rule needs from another module travels as plain data in
``ModuleFacts.extra[EXTRA]``; verdicts that need it are decided in ``resolve``.
Everything not visible statically is unknown, and unknown is silent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from jaxlint.lint.rule import Rule, RuleFix
from jaxlint.model import Transformed, program
from jaxlint.model.annotations import ARRAY_LIKE_TYPES
from jaxlint.model.arrays import TAKES_SEQUENCES, call_kind, public_name
from jaxlint.model.returns import return_statements

EXTRA = "JAX3xx"

_PREFIXES = ("jax.", "jax.custom_derivatives.", "jax._src.custom_derivatives.", "jax._src.api.")
CUSTOM = {p + k: k.split("_")[1] for p in _PREFIXES for k in ("custom_vjp", "custom_jvp")}
PARTIAL = "functools.partial"

ARRAY_TYPES = ARRAY_LIKE_TYPES  # annotations that say "an array" (jaxlint/model/annotations.py)

# jax.numpy / lax functions that return one array (never a tuple or list)
_ARRAY_FUNCS = frozenset(
    {
        "abs",
        "absolute",
        "add",
        "arccos",
        "arcsin",
        "arctan",
        "arctan2",
        "array",
        "asarray",
        "broadcast_to",
        "ceil",
        "clip",
        "conj",
        "conjugate",
        "cos",
        "cosh",
        "cumsum",
        "diag",
        "divide",
        "dot",
        "einsum",
        "exp",
        "expm1",
        "floor",
        "full",
        "full_like",
        "log",
        "log1p",
        "logaddexp",
        "matmul",
        "max",
        "maximum",
        "mean",
        "min",
        "minimum",
        "multiply",
        "negative",
        "ones",
        "ones_like",
        "outer",
        "power",
        "prod",
        "real",
        "reciprocal",
        "reshape",
        "select",
        "sign",
        "sin",
        "sinh",
        "sqrt",
        "square",
        "squeeze",
        "stack",
        "subtract",
        "sum",
        "tan",
        "tanh",
        "transpose",
        "true_divide",
        "where",
        "zeros",
        "zeros_like",
        "concatenate",
        "expand_dims",
        "mul",
        "sub",
        "div",
        "neg",
        "dot_general",
        "convert_element_type",
        "stop_gradient",
        "rsqrt",
    }
)


# ---------------------------------------------------------------------------------------
# plain-data descriptions (picklable: they travel to the project phase)


@dataclass
class Primal:
    kind: str  # "vjp" | "jvp"
    name: str
    params: list[str] | None  # positional parameter names; None if unknown
    annotations: list[str | None]
    nondiff: tuple[int, ...] | None  # sorted positions; None if unknown
    nondiff_source: str  # "nondiff_argnums=(0,)" as written, for messages

    def as_data(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_data(cls, d: dict[str, Any]) -> Primal:
        return cls(**d)

    @property
    def diff_names(self) -> list[str] | None:
        if self.params is None or self.nondiff is None:
            return None
        return [p for i, p in enumerate(self.params) if i not in self.nondiff]

    @property
    def nondiff_names(self) -> list[str] | None:
        if self.params is None or self.nondiff is None:
            return None
        return [self.params[i] for i in self.nondiff]


@dataclass
class Ret:
    shape: str  # "seq" (tuple/list literal) | "bare" (visibly not a tuple or list)
    length: int  # for "seq"
    text: str  # source of the returned expression (shortened)
    node: cst.CSTNode | None = None


@dataclass
class Sig:
    """A rule function: its positional parameters and what its returns visibly are."""

    name: str
    params: list[str]
    required: int
    varargs: bool
    returns: list[Ret] = field(default_factory=list)
    node: cst.CSTNode | None = None  # def or lambda (local only)
    name_node: cst.CSTNode | None = None
    # parameters used as tuples in the body (unpacked, indexed, starred, passed on) and as
    # arrays (operands, jax.numpy arguments); None: not known
    opened: list[str] | None = None
    computed: list[str] | None = None

    @property
    def display(self) -> str:
        return f"the {self.name}" if self.name.endswith(" lambda") else f"`{self.name}`"

    def call_form(self, params: list[str]) -> str:
        if self.name.endswith(" lambda"):
            return f"`lambda {_names(params)}: ...`"
        return f"`{self.name}({_names(params)})`"

    def accepts(self, n: int) -> bool:
        return self.required <= n and (self.varargs or n <= len(self.params))

    def as_data(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "params": self.params,
            "required": self.required,
            "varargs": self.varargs,
            "returns": [(r.shape, r.length, r.text) for r in self.returns],
            "opened": self.opened,
            "computed": self.computed,
        }

    @classmethod
    def from_data(cls, d: dict[str, Any]) -> Sig:
        rets = [Ret(s, n, t) for s, n, t in d["returns"]]
        return cls(
            d["name"],
            d["params"],
            d["required"],
            d["varargs"],
            rets,
            opened=d.get("opened"),
            computed=d.get("computed"),
        )


@dataclass
class Registration:
    kind: str  # "vjp" | "jvp"
    node: cst.CSTNode  # the defvjp/defjvp call or decorator
    primal: Primal | None
    primal_ref: str | None  # when the primal lives in another module
    rules: dict[str, Sig | None]  # role ("fwd", "bwd", "jvp") -> local rule
    remote: dict[str, tuple[str, cst.CSTNode]]  # role -> (reference, argument node)


# ---------------------------------------------------------------------------------------
# checks: pure functions of (primal, rule) -> [(where, message)]; where = "def" or return index


def _names(names: list[str]) -> str:
    return ", ".join(names)


def _shorten(text: str, n: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


def _nondiff_note(p: Primal) -> str:
    if not p.nondiff:
        return ""
    return f"; `{p.nondiff_source}` excludes {_names(p.nondiff_names or [])}"


def check(code: str, role: str, p: Primal, s: Sig) -> list[tuple[Any, str]]:
    out: list[tuple[Any, str]] = []
    if code == "JAX301" and role == "bwd":
        diff = p.diff_names
        if diff is None:
            return out
        m = len(diff)
        for i, r in enumerate(s.returns):
            if r.shape == "seq" and r.length != m:
                out.append(
                    (
                        i,
                        (
                            f"{s.display} returns {r.length} cotangent(s) but `{p.name}` has {m} differentiable "
                            f"argument(s) ({_names(diff)}{_nondiff_note(p)}); return a tuple with one entry per "
                            f"argument, `None` where there is no gradient"
                        ),
                    )
                )
            elif r.shape == "bare":
                want = f"`({r.text},)`" if m == 1 else f"a {m}-tuple (one entry per argument)"
                out.append(
                    (
                        i,
                        (
                            f"{s.display} returns `{r.text}`, not a tuple; JAX requires a tuple with one cotangent "
                            f"per differentiable argument of `{p.name}` ({_names(diff)}): return {want}"
                        ),
                    )
                )
    elif code == "JAX302" and role == "fwd":
        if p.params is None:
            return out
        n = len(p.params)
        if not s.accepts(n):
            out.append(
                (
                    "def",
                    (
                        f"{s.display} takes {len(s.params)} positional parameter(s) ({_names(s.params)}) but JAX "
                        f"calls it with the {n} argument(s) of `{p.name}` ({_names(p.params)}); give it the "
                        f"primal's signature"
                    ),
                )
            )
        elif len(s.params) == n and s.params != p.params and sorted(s.params) == sorted(p.params):
            out.append(
                (
                    "def",
                    (
                        f"{s.call_form(s.params)} orders its parameters differently from "
                        f"`{p.name}({_names(p.params)})`; JAX passes the arguments by position, so the "
                        f"gradients come back silently swapped: use the primal's order"
                    ),
                )
            )
    elif code == "JAX303" and role == "fwd":
        for i, r in enumerate(s.returns):
            if r.shape == "seq" and r.length != 2:
                out.append(
                    (
                        i,
                        (
                            f"{s.display} returns a {r.length}-element {'tuple' if r.length != 1 else 'sequence'}, "
                            f"not an `(output, residuals)` pair; return `(out, (res1, res2, ...))`"
                        ),
                    )
                )
            elif r.shape == "bare":
                out.append(
                    (
                        i,
                        (
                            f"{s.display} returns `{r.text}`, not an `(output, residuals)` pair; return "
                            f"`({r.text}, residuals)` with the values `bwd` needs"
                        ),
                    )
                )
    elif code == "JAX304" and role == "bwd":
        if p.nondiff is None:
            return out
        wanted = (p.nondiff_names or []) + ["residuals", "g"] if p.params is not None else None
        n = len(p.nondiff) + 2
        if wanted is None or s.accepts(n):
            return out
        how = s.call_form(wanted)
        why = f" because of `{p.nondiff_source}`" if p.nondiff else ""
        out.append(
            (
                "def",
                (
                    f"{s.display} takes {len(s.params)} positional parameter(s) ({_names(s.params)}) but JAX calls "
                    f"it with {n}{why}: write it as {how}"
                ),
            )
        )
    elif code == "JAX305" and role == "jvp":
        if p.nondiff is not None and p.params is not None:
            n = len(p.nondiff) + 2
            if not s.accepts(n):
                wanted = (p.nondiff_names or []) + ["primals", "tangents"]
                why = f" because of `{p.nondiff_source}`" if p.nondiff else ""
                out.append(
                    (
                        "def",
                        (
                            f"{s.display} takes {len(s.params)} positional parameter(s) ({_names(s.params)}) but JAX "
                            f"calls it with {n}{why}: write it as {s.call_form(wanted)}, where `primals` and "
                            f"`tangents` are tuples"
                        ),
                    )
                )
        if p.params is not None and p.nondiff == () and len(s.params) == 2 and not s.varargs and s.opened is not None:
            first = s.params[0]
            if first in p.params and first not in s.opened and first in (s.computed or ()):
                primals = ", ".join(p.params) + ("," if len(p.params) == 1 else "")
                tangents = s.params[1]
                out.append(
                    (
                        "def",
                        (
                            f"{s.display} takes `({first}, {tangents})` as if `{first}` were the primal's argument, "
                            f"but JAX passes `primals` and `tangents` as tuples (`({primals})`), and array code fails "
                            f"on them (`TypeError: ... requires ndarray or scalar arguments, got <class 'tuple'>`); "
                            f"unpack them first: `{primals} = primals`"
                        ),
                    )
                )
        for i, r in enumerate(s.returns):
            if (r.shape == "seq" and r.length != 2) or r.shape == "bare":
                what = f"a {r.length}-element sequence" if r.shape == "seq" else f"`{r.text}`"
                out.append((i, f"{s.display} returns {what}, not a `(primal_out, tangent_out)` pair; return both"))
    return out


# ---------------------------------------------------------------------------------------
# per-file analysis


class FileAnalysis:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.model = program(ctx)
        self._primals: dict[cst.CSTNode, Primal | None] = {}
        self._sigs: dict[cst.CSTNode, Sig | None] = {}
        self.registrations: list[Registration] = []
        self.primal_nodes: list[tuple[Primal, cst.FunctionDef | cst.Call]] = []  # for JAX306
        self._find_registrations()
        self._export()

    # -- names, read from the program model --------------------------------------------
    @staticmethod
    def _defined(b) -> cst.CSTNode | None:
        """What a binding stands for here: its def, or the whole value of an assignment."""
        if b.kind == "def":
            return b.node
        if b.kind == "assign" and b.value is not None and not b.unpack:
            return b.value
        return None

    def lookup(self, name: cst.Name) -> cst.CSTNode | str | None:
        """What the one binding a read of a name can see stands for (``_defined``); an
        import reference (str); or None (unknown)."""
        b = self.model.binding(name)
        if b is None:
            return None
        if b.kind == "import":
            return b.imported
        return self._defined(b)

    # -- primals --------------------------------------------------------------------
    def custom_kind(self, expr: cst.BaseExpression) -> str | None:
        return CUSTOM.get(self.ctx.resolve(expr) or "")

    def primal_for(self, node: cst.CSTNode | None) -> Primal | None:
        if node is None:
            return None
        if node in self._primals:
            return self._primals[node]
        p = None
        if isinstance(node, cst.FunctionDef):
            p = self._primal_from_def(node)
        elif isinstance(node, cst.Call):
            p = self._primal_from_call(node)
        self._primals[node] = p
        return p

    def _kind_and_options(self, dec: cst.BaseExpression) -> tuple[str | None, list[cst.Arg]]:
        if isinstance(dec, cst.Call) and self.ctx.resolve(dec.func) == PARTIAL and dec.args:
            kind = self.custom_kind(dec.args[0].value)
            if kind and all(a.keyword is not None for a in dec.args[1:]):
                return kind, list(dec.args[1:])
            return None, []
        if isinstance(dec, (cst.Name, cst.Attribute)):
            return self.custom_kind(dec), []
        return None, []

    def _primal_from_def(self, fn: cst.FunctionDef) -> Primal | None:
        if not fn.decorators:
            return None
        kind, options = self._kind_and_options(fn.decorators[0].decorator)
        if kind is None:
            return None
        plain = len(fn.decorators) == 1
        return self._primal(kind, fn.name.value, fn if plain else None, options, fn)

    def _primal_from_call(self, call: cst.Call) -> Primal | None:
        func = call.func
        options: list[cst.Arg]
        if isinstance(func, cst.Call):  # partial(jax.custom_vjp, nondiff_argnums=...)(g)
            kind, options = self._kind_and_options(func)
            args = list(call.args)
        else:
            kind = self.custom_kind(func)
            args = list(call.args)
            options = [a for a in args if a.keyword is not None]
        if kind is None or not args or args[0].keyword is not None or args[0].star:
            return None
        if any(a.keyword is None for a in args[1:]) or any(a.star for a in args):
            return None
        target = args[0].value
        assign = self.ctx.parent(call)
        if isinstance(assign, cst.Assign) and isinstance(assign.targets[0].target, cst.Name):
            name = assign.targets[0].target.value
        else:
            name = self.ctx.code(target)
        fn: cst.FunctionDef | cst.Lambda | None = self.target_function(call)
        if isinstance(target, cst.Lambda):
            fn = target
        return self._primal(kind, name, fn, options, call)

    def target_function(self, call: cst.Call) -> cst.FunctionDef | None:
        """The plain def wrapped by ``jax.custom_vjp(g, ...)``, if visible."""
        args = call.args
        if not args or not isinstance(args[0].value, cst.Name):
            return None
        b = self.lookup(args[0].value)
        if isinstance(b, cst.FunctionDef) and not b.decorators:
            return b
        return None

    def _primal(self, kind, name, fn, options, at) -> Primal:
        params: list[str] | None = None
        annotations: list[str | None] = []
        if fn is not None and not self._in_class(fn):
            ps = fn.params
            if not isinstance(ps.star_arg, cst.Param):
                pos = [*ps.posonly_params, *ps.params]
                params = [p.name.value for p in pos]
                annotations = [
                    (self.ctx.resolve(p.annotation.annotation) or self.ctx.code(p.annotation.annotation))
                    if p.annotation is not None
                    else None
                    for p in pos
                ]
        nondiff: set[int] | None = set()
        written = []
        for a in options:
            key = a.keyword.value if a.keyword is not None else ""
            value = self.ctx.literal(a.value)
            written.append(f"{key}={self.ctx.code(a.value)}")
            if key == "nondiff_argnums":
                vals = (value,) if isinstance(value, int) else value
                if not isinstance(vals, (tuple, list)) or not all(
                    isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in vals
                ):
                    nondiff = None
                elif nondiff is not None:
                    nondiff |= set(vals)
            elif key == "nondiff_argnames":
                vals = (value,) if isinstance(value, str) else value
                if not isinstance(vals, (tuple, list)) or params is None or not all(isinstance(v, str) for v in vals):
                    nondiff = None
                elif nondiff is not None:
                    for v in vals:
                        if v in params:
                            nondiff.add(params.index(v))
                        elif not self._is_kwonly(fn, v):
                            nondiff = None
                            break
            else:
                nondiff = None
        if nondiff is not None and params is not None and any(i >= len(params) for i in nondiff):
            nondiff = None
        ordered = tuple(sorted(nondiff)) if nondiff is not None else None
        return Primal(kind, name, params, annotations, ordered, ", ".join(written))

    @staticmethod
    def _is_kwonly(fn, name: str) -> bool:
        return fn is not None and any(p.name.value == name for p in fn.params.kwonly_params)

    def _in_class(self, fn: cst.CSTNode) -> bool:
        for a in self.ctx.ancestors(fn):
            if isinstance(a, cst.ClassDef):
                return True
            if isinstance(a, (cst.FunctionDef, cst.Lambda)):
                return False
        return False

    # -- rule functions ---------------------------------------------------------------
    def sig_for(self, fn: cst.FunctionDef | cst.Lambda, name: str | None = None) -> Sig | None:
        if fn in self._sigs:
            return self._sigs[fn]
        s = None
        if not self._in_class(fn) and (
            not isinstance(fn, cst.FunctionDef) or not fn.decorators or self._only_defjvp(fn)
        ):
            s = self._sig(fn, name)
        self._sigs[fn] = s
        return s

    def _only_defjvp(self, fn: cst.FunctionDef) -> bool:
        return len(fn.decorators) == 1 and _method_name(fn.decorators[0].decorator) in ("defjvp",)

    def _sig(self, fn, name: str | None) -> Sig:
        ps = fn.params
        pos = [*ps.posonly_params, *ps.params]
        required = sum(1 for p in pos if p.default is None)
        varargs = isinstance(ps.star_arg, cst.Param)
        if isinstance(fn, cst.FunctionDef):
            label, name_node = fn.name.value, fn.name
        else:
            label, name_node = name or "<lambda>", fn
        s = Sig(label, [p.name.value for p in pos], required, varargs, node=fn, name_node=name_node)
        s.returns = self._returns(fn)
        s.opened, s.computed = self._uses(fn, s.params)
        return s

    def _uses(self, fn, params: list[str]) -> tuple[list[str], list[str]]:
        """(parameters the body treats as tuples: ``x, = primals``, ``primals[0]``, ``*primals``,
        or passes on whole to another call, which may unpack them; parameters it computes
        with as arrays: operands, arguments of jax.numpy/lax functions, ``x.shape``)."""
        body = fn.body
        nodes = [body, *self.ctx.descendants(body, prune=())]
        out: set[str] = set()
        computed: set[str] = set()
        for n in nodes:
            t = type(n)
            if t is cst.BinaryOperation or t is cst.Comparison:
                operands = (
                    [n.left, n.right] if t is cst.BinaryOperation else [n.left] + [c.comparator for c in n.comparisons]
                )
                computed.update(o.value for o in operands if type(o) is cst.Name)
            elif t is cst.UnaryOperation and type(n.expression) is cst.Name:
                computed.add(n.expression.value)
            elif t is cst.Attribute and type(n.value) is cst.Name:
                computed.add(n.value.value)
            elif t is cst.Call and _is_array_call(self.ctx, n):
                computed.update(a.value.value for a in n.args if type(a.value) is cst.Name)
            if t is cst.Assign and any(type(x.target) in (cst.Tuple, cst.List) for x in n.targets):
                values = n.value.elements if type(n.value) in (cst.Tuple, cst.List) else [n.value]
                out.update(v.value for v in (getattr(e, "value", e) for e in values) if type(v) is cst.Name)
            elif (t is cst.Subscript and type(n.value) is cst.Name) or (
                t in (cst.StarredElement, cst.Arg) and type(n.value) is cst.Name and (t is cst.StarredElement or n.star)
            ):
                out.add(n.value.value)
            elif t is cst.For and type(n.iter) is cst.Name:
                out.add(n.iter.value)
            elif t is cst.Call and not _is_array_call(self.ctx, n):
                out.update(a.value.value for a in n.args if type(a.value) is cst.Name)
        return [p for p in params if p in out], [p for p in params if p in computed]

    def _returns(self, fn) -> list[Ret]:
        if isinstance(fn, cst.Lambda):
            r = self._classify(fn.body, fn, 0)
            return [r] if r is not None else []
        found = return_statements(self.ctx, fn)
        if found is None:
            return []  # a generator or a coroutine
        out: list[Ret] = []
        for ret in found:
            if ret.value is None:
                out.append(Ret("bare", 0, "None", ret))
                continue
            r = self._classify(ret.value, fn, 0)
            if r is not None:
                out.append(r)
        return out

    def _classify(self, expr: cst.BaseExpression, fn, depth: int) -> Ret | None:
        """Is ``expr`` visibly a tuple/list literal (and how long), or visibly neither?"""
        text = _shorten(self.ctx.code(expr))
        if isinstance(expr, (cst.Tuple, cst.List)):
            if any(isinstance(el, cst.StarredElement) for el in expr.elements):
                return None
            return Ret("seq", len(expr.elements), text, expr)
        if _bare(expr, self.ctx):
            return Ret("bare", 0, text, expr)
        if isinstance(expr, cst.Name) and isinstance(fn, cst.FunctionDef) and depth < 3:
            b = self.model.binding(expr)
            if b is not None and b.kind == "assign" and b.scope.node is fn and not b.unpack and b.value is not None:
                inner = self._classify(b.value, fn, depth + 1)
                if inner is not None:
                    return Ret(inner.shape, inner.length, text, expr)
        if isinstance(expr, cst.IfExp):
            body, orelse = self._classify(expr.body, fn, depth + 1), self._classify(expr.orelse, fn, depth + 1)
            if body is not None and orelse is not None and (body.shape, body.length) == (orelse.shape, orelse.length):
                return Ret(body.shape, body.length, text, expr)
        return None

    # -- registrations ----------------------------------------------------------------
    def _find_registrations(self) -> None:
        stmts = [
            n for n, entering in self.ctx._events if entering and type(n) in (cst.FunctionDef, cst.SimpleStatementLine)
        ]
        for stmt in stmts:
            if isinstance(stmt, cst.FunctionDef):
                for dec in stmt.decorators:
                    d = dec.decorator
                    if _method_name(d) == "defjvp" and isinstance(d, cst.Attribute):
                        self._register("jvp", dec, d.value, {"jvp": stmt}, {})
                p = self._primal_from_def(stmt)
                if p is not None:
                    self.primal_nodes.append((p, stmt))
            elif isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    call = small.value if isinstance(small, cst.Expr) else None
                    if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
                        p = self._primal_from_call(small.value)
                        if p is not None:
                            self.primal_nodes.append((p, small.value))
                    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
                        continue
                    method = call.func.attr.value
                    if method not in ("defvjp", "defjvp"):
                        continue
                    roles = ("fwd", "bwd") if method == "defvjp" else ("jvp",)
                    args = list(call.args)
                    if any(a.star for a in args):
                        continue
                    positional = [a for a in args if a.keyword is None]
                    by_kw = {a.keyword.value: a for a in args if a.keyword is not None}
                    chosen: dict[str, cst.Arg] = {}
                    for i, role in enumerate(roles):
                        a = positional[i] if i < len(positional) else by_kw.get(role)
                        if a is not None:
                            chosen[role] = a
                    self._register(
                        "vjp" if method == "defvjp" else "jvp",
                        call,
                        call.func.value,
                        {r: a.value for r, a in chosen.items()},
                        chosen,
                    )

    def _register(self, kind, node, primal_expr, rule_exprs: dict, args: dict) -> None:
        primal: Primal | None = None
        primal_ref: str | None = None
        if isinstance(primal_expr, cst.Name):
            b = self.lookup(primal_expr)
            if isinstance(b, str):
                primal_ref = b
            elif b is not None:
                primal = self.primal_for(b)
                if primal is None:
                    return
        elif isinstance(primal_expr, cst.Attribute):
            primal_ref = self.ctx.resolve(primal_expr)
        if primal is not None and primal.kind != kind:
            return
        if primal is None and primal_ref is None:
            return
        rules: dict[str, Sig | None] = {}
        remote: dict[str, tuple[str, cst.CSTNode]] = {}
        for role, expr in rule_exprs.items():
            if isinstance(expr, cst.FunctionDef):
                rules[role] = self.sig_for(expr)
            elif isinstance(expr, cst.Lambda):
                rules[role] = self.sig_for(expr, f"{role} lambda")
            elif isinstance(expr, cst.Name):
                b = self.lookup(expr)
                if isinstance(b, str):
                    remote[role] = (b, expr)
                elif isinstance(b, cst.FunctionDef):
                    rules[role] = self.sig_for(b)
                elif isinstance(b, cst.Lambda):
                    rules[role] = self.sig_for(b, expr.value)
            elif isinstance(expr, cst.Attribute):
                r = self.ctx.resolve(expr)
                if r is not None:
                    remote[role] = (r, expr)
        rules = {k: v for k, v in rules.items() if v is not None}
        self.registrations.append(Registration(kind, node, primal, primal_ref, rules, remote))

    # -- cross-module facts -------------------------------------------------------------
    def _export(self) -> None:
        extra = self.ctx.extra(EXTRA)
        if extra:
            return
        primals: dict[str, Any] = {}
        sigs: dict[str, Any] = {}
        for name, found in self.model.module_scope.bindings.items():
            if len(found) != 1 or found[0].path:
                continue
            b = self._defined(found[0])
            if isinstance(b, cst.FunctionDef):
                p = self.primal_for(b)
                if p is not None:
                    primals[name] = p.as_data()
                elif not b.decorators:
                    s = self.sig_for(b)
                    if s is not None:
                        sigs[name] = s.as_data()
            elif isinstance(b, cst.Call):
                p = self.primal_for(b)
                if p is not None:
                    primals[name] = p.as_data()
        extra["primals"] = primals
        extra["sigs"] = sigs


def _is_array_call(ctx, call: cst.Call) -> bool:
    """A call whose arguments are arrays, not tuples it unpacks: a JAX or NumPy function that
    makes an array (``model/arrays.py``: not one that takes sequences, such as ``jnp.stack``,
    nor one that keeps a pytree or returns a Python value), or a transformed function (the
    primal itself)."""
    q = public_name(ctx.resolve(call.func))
    if q and call_kind(q) in ("array", "numpy") and q.rsplit(".", 1)[1] not in TAKES_SEQUENCES:
        return True
    return type(program(ctx).value(call.func)) is Transformed


def _method_name(expr) -> str | None:
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return None


_NONSEQ_OPS = (
    cst.Subtract,
    cst.Divide,
    cst.FloorDivide,
    cst.Power,
    cst.MatrixMultiply,
    cst.Modulo,
    cst.BitAnd,
    cst.BitOr,
    cst.BitXor,
    cst.LeftShift,
    cst.RightShift,
)


def _bare(expr: cst.BaseExpression, ctx) -> bool:
    """Visibly not a tuple or list: arithmetic, numbers, comparisons, array constructors."""
    if isinstance(
        expr,
        (
            cst.Integer,
            cst.Float,
            cst.Imaginary,
            cst.Comparison,
            cst.Dict,
            cst.Set,
            cst.DictComp,
            cst.SetComp,
            cst.SimpleString,
            cst.FormattedString,
        ),
    ):
        return True
    if isinstance(expr, cst.Name) and expr.value == "None":
        return True
    if isinstance(expr, cst.UnaryOperation):
        return True
    if isinstance(expr, cst.BinaryOperation):
        op = expr.operator
        if isinstance(op, _NONSEQ_OPS):
            return True
        if isinstance(op, cst.Add):
            return _bare(expr.left, ctx) or _bare(expr.right, ctx)
        if isinstance(op, cst.Multiply):
            return not any(_maybe_repeat(x, ctx) for x in (expr.left, expr.right))
    if isinstance(expr, cst.Call):
        q = ctx.resolve(expr.func) or ""
        if (q.startswith(("jax.numpy.", "jax.lax."))) and q.rsplit(".", 1)[-1] in _ARRAY_FUNCS:
            return q.count(".") == 2
    return False


def _maybe_repeat(x, ctx) -> bool:
    """An operand that could make ``*`` a sequence repetition (``(None,) * n``)."""
    if isinstance(x, (cst.Tuple, cst.List, cst.Integer, cst.ListComp)):
        return True
    if isinstance(x, cst.Call) and isinstance(x.func, cst.Name) and x.func.value in ("len", "tuple", "list", "int"):
        return True
    if isinstance(x, cst.BinaryOperation):
        return any(_maybe_repeat(y, ctx) for y in (x.left, x.right))
    return False


def analysis(ctx) -> FileAnalysis:
    """The file's analysis, computed once and shared by the JAX3xx rules."""
    a = ctx.shared.get("JAX3")
    if a is None:
        a = ctx.shared["JAX3"] = FileAnalysis(ctx)
    return a


# ---------------------------------------------------------------------------------------
# the shared rule machinery


class CustomDerivativeRule(Rule):
    """Base of the JAX3xx pairing rules: report local verdicts, defer cross-module ones."""

    roles: tuple[str, ...] = ()
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    about = ("jax.custom_vjp", "jax.custom_jvp", ".defvjp", ".defjvp", ".defjvps")
    # files that may define a rule a registration in another module names (``f_fwd``, ``my_vjp``)
    context_words = ("vjp", "jvp", "fwd", "bwd")

    def finish(self) -> None:
        a = analysis(self.ctx)
        for reg in a.registrations:
            for role in self.roles:
                sig = reg.rules.get(role)
                if sig is not None:
                    if reg.primal is not None:
                        for where, msg in check(self.code, role, reg.primal, sig):
                            node = self._node(sig, where)
                            if node is not None:  # a local Sig: it has its nodes
                                self.report(node, msg, fix=self.fix_for(sig, where, reg.primal))
                    elif reg.primal_ref is not None:
                        self._defer_local(reg, role, sig)
                elif role in reg.remote:
                    ref, arg = reg.remote[role]
                    data = {
                        "role": role,
                        "rule_ref": ref,
                        "primal_ref": reg.primal_ref,
                        "primal": reg.primal.as_data() if reg.primal else None,
                        "kind": reg.kind,
                    }
                    self.pending(arg, data)

    def _defer_local(self, reg: Registration, role: str, sig: Sig) -> None:
        nodes: list[tuple[Any, cst.CSTNode | None]] = [("def", sig.name_node)]
        nodes += [(i, r.node) for i, r in enumerate(sig.returns)]
        for where, node in nodes:
            if node is None:
                continue
            self.pending(
                node,
                {"role": role, "where": where, "sig": sig.as_data(), "primal_ref": reg.primal_ref, "kind": reg.kind},
            )

    def fix_for(self, sig: Sig, where, primal: Primal) -> RuleFix | None:
        """A fix for a finding in this file (rules with fixes override this)."""
        return None

    @staticmethod
    def _node(sig: Sig, where) -> cst.CSTNode | None:
        if where == "def":
            return sig.name_node
        return sig.returns[where].node

    @classmethod
    def resolve(cls, items, project):
        for item in items:
            d = item.data
            primal = Primal.from_data(d["primal"]) if d.get("primal") else _remote(project, d["primal_ref"], "primals")
            if primal is None or primal.kind != d["kind"]:
                continue
            if "sig" in d:
                sig = Sig.from_data(d["sig"])
                for where, msg in check(cls.code, d["role"], primal, sig):
                    if where == d["where"]:
                        yield item, msg
            else:
                raw = _remote(project, d["rule_ref"], "sigs", raw=True)
                if raw is None:
                    continue
                sig = Sig.from_data(raw)
                seen = set()
                for _where, msg in check(cls.code, d["role"], primal, sig):
                    if msg not in seen:
                        seen.add(msg)
                        yield item, f"{msg} (`{sig.name}` is `{d['rule_ref']}`)"


def _remote(project, ref: str | None, table: str, raw: bool = False):
    if not ref:
        return None
    ref = project.canonical(ref) or ref  # canonical gives a str for a str
    parts = ref.split(".")
    for i in range(len(parts) - 1, 0, -1):
        mod = ".".join(parts[:i])
        m = project.modules.get(mod)
        if m is None:
            continue
        if i != len(parts) - 1:
            return None
        entry = m.extra.get(EXTRA, {}).get(table, {}).get(parts[-1])
        if entry is None:
            return None
        return entry if raw else Primal.from_data(entry)
    return None
