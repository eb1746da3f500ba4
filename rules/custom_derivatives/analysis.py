"""The custom_vjp / custom_jvp registrations of a file, read from the semantic model.

A registration is ``f.defvjp(fwd, bwd)``, ``f.defjvp(jvp)`` (also ``@f.defjvp``) or
``f.defjvps(*jvps)``. ``f`` is evaluated where the registration is written (JAX's tests
redefine ``f`` many times in one function: each registration meets the live one), to a
``Transformed`` value of ``jax.custom_vjp``/``jax.custom_jvp`` made by a decorator, a
call or ``partial``, here or in a project module the World reads; what the primal takes and
which of its arguments are differentiable is ``jaxlint.model.derivatives``. A rule's
signature is its own; what each of its ``return`` statements gives
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
from jaxlint.model.abstract import Const, Function, Transformed, Wraps
from jaxlint.model.derivatives import (
    ROLES,
    SAME_VALUE,
    Primal,
    in_class,
    is_stub,
    jax_args,
    jax_values,
    primal_of,
    spread,
)
from jaxlint.model.returns import Returned, returned_items
from jaxlint.model.signature import Signature


def names(xs: Any) -> str:
    return ", ".join(xs)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@dataclass(frozen=True, slots=True)
class RuleFn:
    """A rule function as JAX will call it: its signature, where to report, its returns."""

    role: str
    name: str  # ``f_bwd``, or ``the bwd lambda``
    sig: Signature
    node: cst.CSTNode  # the def's name, the lambda, or (defined elsewhere) the argument
    returns: tuple[Returned, ...] | None  # None: not read (not a def, or behind a wrapper)
    where: str  # "" here, else ``rules.py:5``: the def is in another module
    function: cst.FunctionDef | cst.Lambda | None = None  # its def or lambda (read), here or in another module
    home: Any = None  # the Program of the module that defines it (None: this one)

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
    if in_class(home, node):
        return None
    if isinstance(node, cst.FunctionDef) and not isinstance(node.body, cst.IndentedBlock | cst.SimpleStatementSuite):
        return None
    if isinstance(node, cst.FunctionDef) and is_stub(home, node):
        return None  # a placeholder that is never meant to run
    label = node.name.value if isinstance(node, cst.FunctionDef) else label or f"the {role} lambda"
    if home is not p:  # findings go on the argument that names it
        path = os.path.basename(home.ctx.path)
        line = home.ctx.lines([node]).get(node)
        found = returned_items(home, node, jax_values(role, sig, primal), jax_args(p)) if readable else None
        where = f"{path}:{line}" if line else path
        return RuleFn(role, label, sig, arg, found, where, node if readable else None, home)
    at = node.name if isinstance(node, cst.FunctionDef) else node
    found = returned_items(p, node, jax_values(role, sig, primal), jax_args(p)) if readable else None
    return RuleFn(role, label, sig, at, found, "", node if readable else None)


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
            given = spread(ev, node.args)  # ``f.defjvps(*rules)``: the items of a known sequence
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


def _lambda_for(params: tuple[str, ...], i: int) -> str:
    return f"the lambda for `{params[i]}`" if i < len(params) else f"the lambda {i + 1}"


class CustomDerivativeRule(Rule):
    """Base of the JAX3xx rules that judge a registration's rules: ``check`` each one."""

    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    about = ("jax.custom_vjp", "jax.custom_jvp", ".defvjp", ".defjvp", ".defjvps")

    def finish(self) -> None:
        for reg in registrations(self.ctx):
            self.check(reg)

    def check(self, reg: Registration) -> None:
        raise NotImplementedError
