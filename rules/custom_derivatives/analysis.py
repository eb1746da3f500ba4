"""The custom_vjp / custom_jvp registrations of a file, read from the semantic model.

A registration is ``f.defvjp(fwd, bwd)``, ``f.defjvp(jvp)`` (also ``@f.defjvp``) or
``f.defjvps(*jvps)``. ``f`` is evaluated where the registration is written (JAX's tests
redefine ``f`` many times in one function: each registration meets the live one), to a
``Transformed`` value of ``jax.custom_vjp``/``jax.custom_jvp`` made by a decorator, a
call or ``partial``, here or in a project module the World reads. Its options are values
(``nondiff_argnums`` from a constant or a config field); the primal's parameters are the
model's ``signature`` of the wrapped callable (a method bound to its receiver drops
``self``, a ``functools.wraps`` wrapper has its wrapped function's, ``jax.named_scope``
keeps it). A rule's signature is its own; what each of its ``return`` statements gives
is the evaluator's value, else what Python's operators and the catalogue's functions
promise (``returned``). Unknown is silent: the rule modules decide on what is known.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import libcst as cst

from jaxlint.lint.rule import Rule
from jaxlint.model import program
from jaxlint.model.abstract import (
    Const,
    Function,
    List,
    Partial,
    Transformed,
    Tuple,
    Wraps,
)
from jaxlint.model.returns import Returned, always_returns, return_statements, returned_items
from jaxlint.model.signature import Signature
from jaxlint.model.transforms import TABLE, named

KINDS = {q: a.derivatives for q, a in TABLE.items() if a.derivatives}  # custom_vjp: "vjp", custom_jvp: "jvp"
ROLES = {"defvjp": ("fwd", "bwd"), "defjvp": ("jvp",)}
SAME_VALUE = named(gives="value")  # calling it gives the wrapped function's value


def names(xs: Any) -> str:
    return ", ".join(xs)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@dataclass(frozen=True, slots=True)
class Primal:
    kind: str  # "vjp" | "jvp"
    name: str
    params: tuple[str, ...] | None  # the positional parameters JAX passes; None: not known
    nondiff: tuple[int, ...] | None  # sorted positions; None: not known
    nondiff_text: str  # ``nondiff_argnums=(0,)``, as evaluated
    value: Transformed

    @property
    def diff(self) -> list[str] | None:
        if self.params is None or self.nondiff is None:
            return None
        return [p for i, p in enumerate(self.params) if i not in self.nondiff]

    @property
    def nondiff_names(self) -> list[str]:
        return [self.params[i] for i in self.nondiff or ()] if self.params is not None else []


@dataclass(frozen=True, slots=True)
class RuleFn:
    """A rule function as JAX will call it: its signature, where to report, its returns."""

    role: str
    name: str  # ``f_bwd``, or ``the bwd lambda``
    sig: Signature
    node: cst.CSTNode  # the def's name, the lambda, or (defined elsewhere) the argument
    returns: tuple[Returned, ...] | None  # None: not read (not a def, or behind a wrapper)
    where: str  # "" here, else ``rules.py:5``: the def is in another module
    function: cst.FunctionDef | cst.Lambda | None = None  # its def or lambda, in this module

    @property
    def params(self) -> list[str]:
        return [p.name for p in self.sig.positional]

    @property
    def shown(self) -> str:
        """How a headline names it: ``f_bwd``, or ``The bwd lambda``."""
        return "The" + self.name[3:] if self.name.startswith("the ") else f"`{self.name}`"

    def accepts(self, n: int) -> bool:
        least, most = self.sig.positional_counts()
        return least <= n and (most is None or n <= most)

    def form(self, params: list[str]) -> str:
        head = "lambda " if self.name.startswith("the ") else self.name
        return f"`{head}{names(params)}: ...`" if head == "lambda " else f"`{head}({names(params)})`"

    def at(self, r: Returned) -> cst.CSTNode:
        """Where a finding on a return goes: the return, or the argument naming the rule."""
        return self.node if self.where else r.node

    def located(self) -> str:
        """The clause a note starts with for a rule defined in another module."""
        return f"`{self.name}` is defined at {self.where}; " if self.where else ""


@dataclass(frozen=True, slots=True)
class Registration:
    node: cst.CSTNode
    primal: Primal
    rules: dict[str, RuleFn]
    jvps: tuple[RuleFn | None, ...] | None = None  # ``defjvps``: one rule (or None) per argument
    jvps_node: cst.CSTNode | None = None


def primal_of(p: Any, v: Any, name: str) -> Primal | None:
    """The custom_vjp/custom_jvp value ``v`` as a primal; None when it is not one."""
    if type(v) is not Transformed or v.api not in KINDS:
        return None
    target = v.target
    if type(target) is Function and _in_class(target.program or p, target.node):
        return None  # a method: how JAX gets its ``self`` is not visible
    sig = p.evaluator.signature(target)
    params = None
    # a ``partial`` primal takes what its calls pass (JAX does not read its signature)
    if sig is not None and sig.var_positional is None and type(target) is not Partial:
        params = tuple(x.name for x in sig.positional)
    nondiff, text = _nondiff(v, params, sig)
    return Primal(KINDS[v.api], name, params, nondiff, text, v)


def _nondiff(v: Transformed, params: tuple[str, ...] | None, sig: Signature | None) -> tuple[Any, str]:
    if v.unknown_options:
        return None, ""
    found: set[int] = set()
    texts = []
    for key in ("nondiff_argnums", "nondiff_argnames"):
        opt = v.option(key, Const(None))
        if opt == Const(None) or opt == Tuple(()):
            continue
        items = opt.items if type(opt) in (Tuple, List) else (opt,)
        if any(type(x) is not Const for x in items):
            return None, ""
        vals = [x.value for x in items]
        texts.append(f"{key}={vals[0]!r}" if type(opt) is Const else f"{key}={tuple(vals)!r}")
        for x in vals:
            if key == "nondiff_argnums" and type(x) is int and x >= 0:
                found.add(x)
            elif key == "nondiff_argnames" and type(x) is str and params is not None and x in params:
                found.add(params.index(x))
            elif not (key == "nondiff_argnames" and sig is not None and _kwonly(sig, x)):
                return None, ""
    if params is not None and any(i >= len(params) for i in found):
        return None, ""
    return tuple(sorted(found)), ", ".join(texts)


def _kwonly(sig: Signature, name: Any) -> bool:
    return any(x.name == name and x.kind == "kwonly" for x in sig.params)


def _in_class(p: Any, node: cst.CSTNode) -> bool:
    for a in p.ctx.ancestors(node):
        if isinstance(a, cst.ClassDef):
            return True
        if isinstance(a, (cst.FunctionDef, cst.Lambda)):
            return False
    return False


def rule_fn(
    p: Any, role: str, value: Any, arg: cst.CSTNode, primal: Primal | None = None, label: str = ""
) -> RuleFn | None:
    """What JAX will call for ``role``: a def or lambda (here or in another module), or any
    callable the model knows the signature of (``partial``, a bound method, a wrapper)."""
    sig = p.evaluator.signature(value)
    if sig is None:
        return None
    readable = True  # its returns are what the call gives
    while type(value) in (Wraps, Transformed):
        if type(value) is Wraps:
            value, readable = value.wrapped, False
        elif value.api in SAME_VALUE:
            value = value.target
        else:
            break
    if type(value) is not Function:
        text = " ".join(p.ctx.code(arg).split())
        return RuleFn(role, text if len(text) <= 40 else text[:37] + "...", sig, arg, None, "")
    home = value.program or p
    node = value.node
    if _in_class(home, node):
        return None
    if isinstance(node, cst.FunctionDef) and not isinstance(node.body, cst.IndentedBlock | cst.SimpleStatementSuite):
        return None
    if isinstance(node, cst.FunctionDef) and _stub(home, node):
        return None  # a placeholder that is never meant to run
    label = node.name.value if isinstance(node, cst.FunctionDef) else label or f"the {role} lambda"
    if home is not p:  # findings go on the argument that names it
        path = os.path.basename(home.ctx.path)
        line = home.ctx.lines([node]).get(node)
        found = returned_items(home, node, _jax_values(role, sig, primal), _jax_args(p)) if readable else None
        return RuleFn(role, label, sig, arg, found, f"{path}:{line}" if line else path)
    at = node.name if isinstance(node, cst.FunctionDef) else node
    found = returned_items(p, node, _jax_values(role, sig, primal), _jax_args(p)) if readable else None
    return RuleFn(role, label, sig, at, found, "", node if readable else None)


def _stub(p: Any, fn: cst.FunctionDef) -> bool:
    """A def that always raises: no ``return``, and every path raises, or its first
    statement is ``assert False``."""
    if return_statements(p.ctx, fn):
        return False
    if always_returns(fn):
        return True
    body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else ()
    first = body[0] if body else None
    small = first.body[0] if isinstance(first, cst.SimpleStatementLine) and first.body else None
    return isinstance(small, cst.Assert) and p.evaluator.value(small.test, None) in (Const(False), Const(0))


def _jax_args(p: Any) -> Any:
    """The differentiable arguments of a custom function a rule calls hold JAX values."""

    def of(t: Transformed) -> frozenset[str]:
        primal = primal_of(p, t, "")
        return frozenset(primal.diff or ()) if primal is not None else frozenset()

    return of


def _jax_values(role: str, sig: Signature, primal: Primal | None) -> frozenset[str]:
    """The parameters JAX gives a rule JAX values (arrays or pytrees of them, never a Python
    int that would repeat a sequence): ``fwd``'s differentiable arguments, ``bwd``'s cotangent."""
    pos = [x.name for x in sig.positional]
    if sig.var_positional is not None or not pos:
        return frozenset()
    if role == "bwd":
        return frozenset(pos[-1:])
    if role == "fwd" and primal is not None and primal.nondiff is not None:
        return frozenset(x for i, x in enumerate(pos) if i not in primal.nondiff)
    return frozenset()


def registrations(ctx: Any) -> list[Registration]:
    """Every registration of the file, in text order (computed once per file)."""
    found = ctx.shared.get("JAX3")
    if found is None:
        found = ctx.shared["JAX3"] = list(_registrations(ctx))
    return found


def _registrations(ctx: Any) -> Any:
    p = program(ctx)
    ev = p.evaluator
    for node, entering in ctx._events:
        if not entering:
            continue
        if type(node) is cst.FunctionDef:
            for i, dec in enumerate(node.decorators):
                d = dec.decorator
                if type(d) is cst.Attribute and d.attr.value == "defjvp" and i == 0:
                    primal = primal_of(p, ev.value(d.value, None), ctx.code(d.value))
                    cur: Any = Function(node, None, p)
                    for inner in reversed(node.decorators[1:]):
                        cur = ev.decorate(ev.value(inner.decorator, None), cur, inner.decorator)
                    rule = rule_fn(p, "jvp", cur, node.name)
                    if primal is not None and primal.kind == "jvp" and rule is not None:
                        yield Registration(dec, primal, {"jvp": rule})
            continue
        if type(node) is not cst.Call or type(node.func) is not cst.Attribute:
            continue
        method = node.func.attr.value
        if method not in ("defvjp", "defjvp", "defjvps") or (
            method != "defjvps" and any(a.star for a in node.args[:2])
        ):
            continue
        primal = primal_of(p, ev.value(node.func.value, None), ctx.code(node.func.value))
        if primal is None or primal.kind != ("vjp" if method == "defvjp" else "jvp"):
            continue
        positional = [a for a in node.args if a.keyword is None]
        if method == "defjvps":
            if any(a.star == "**" or a.keyword is not None for a in node.args):
                continue
            given = _spread(ev, node.args)  # ``f.defjvps(*rules)``: the items of a known sequence
            if given is None:
                continue
            params = primal.params or ()
            jvps = tuple(
                None if v == Const(None) else rule_fn(p, "jvp", v, arg, primal, _lambda_for(params, i))
                for i, (v, arg) in enumerate(given)
            )
            yield Registration(node, primal, {}, jvps, node)
            continue
        keywords = {a.keyword.value: a for a in node.args if a.keyword is not None}
        rules = {}
        for i, role in enumerate(ROLES[method]):
            a = positional[i] if i < len(positional) else keywords.get(role)
            rule = rule_fn(p, role, ev.value(a.value, None), a.value, primal) if a is not None else None
            if rule is not None:
                rules[role] = rule
        yield Registration(node, primal, rules)


def _spread(ev: Any, args: Any) -> list[tuple[Any, cst.BaseExpression]] | None:
    """The positional arguments of a call as values, each with the expression it comes
    from; a ``*rules`` gives the items of the tuple or list it evaluates to (None: not known)."""
    out: list[tuple[Any, cst.BaseExpression]] = []
    for a in args:
        v = ev.value(a.value, None)
        if a.star == "*":
            if type(v) not in (Tuple, List):
                return None
            out.extend((x, a.value) for x in v.items)
        else:
            out.append((v, a.value))
    return out


def _lambda_for(params: tuple[str, ...], i: int) -> str:
    return f"the lambda for `{params[i]}`" if i < len(params) else f"the lambda {i + 1}"


def _is_none(e: cst.BaseExpression) -> bool:
    return type(e) is cst.Name and e.value == "None"


class CustomDerivativeRule(Rule):
    """Base of the JAX3xx rules that judge a registration's rules: ``check`` each one."""

    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    about = ("jax.custom_vjp", "jax.custom_jvp", ".defvjp", ".defjvp", ".defjvps")

    def finish(self) -> None:
        for reg in registrations(self.ctx):
            self.check(reg)

    def check(self, reg: Registration) -> None:
        raise NotImplementedError
