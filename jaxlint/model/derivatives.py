"""custom_vjp / custom_jvp semantics: a primal's differentiable parameters, and the rules
JAX will call.

``primal_of`` reads a ``Transformed`` value of ``jax.custom_vjp``/``jax.custom_jvp`` (made by a
decorator, a call or ``partial``): its parameters are the model's ``signature`` of the wrapped
callable (a method bound to its receiver drops ``self``, a ``functools.wraps`` wrapper has its
wrapped function's), its ``nondiff_argnums``/``nondiff_argnames`` are values (a constant or a
config field). ``jax_values`` and ``jax_args`` say which parameters of a rule JAX gives JAX
values; ``is_stub`` is a def never meant to run; ``spread`` the positional arguments of a
registration call as values. Unknown is None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import libcst as cst

from jaxlint.model.abstract import Const, Function, List, Partial, Transformed, Tuple
from jaxlint.model.classes import descriptor
from jaxlint.model.returns import always_returns, return_statements
from jaxlint.model.signature import Signature
from jaxlint.model.transforms import TABLE, named

KINDS = {q: a.derivatives for q, a in TABLE.items() if a.derivatives}  # custom_vjp: "vjp", custom_jvp: "jvp"
ROLES = {"defvjp": ("fwd", "bwd"), "defjvp": ("jvp",)}
SAME_VALUE = named(gives="value")  # calling it gives the wrapped function's value


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


def primal_of(p: Any, v: Any, name: str) -> Primal | None:
    """The custom_vjp/custom_jvp value ``v`` as a primal; None when it is not one."""
    if type(v) is not Transformed or v.api not in KINDS:
        return None
    target = v.target
    if type(target) is Function and in_class(target.program or p, target.node):
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


def in_class(p: Any, node: cst.CSTNode) -> bool:
    """A method of a class body, whose call may bind ``self`` or ``cls``: a ``staticmethod``
    is called as its def is, however it is reached (``Cls.fwd``, ``self.fwd``)."""
    for a in p.ctx.ancestors(node):
        if isinstance(a, cst.ClassDef):
            return not (isinstance(node, cst.FunctionDef) and descriptor(p.evaluator, node) == "staticmethod")
        if isinstance(a, (cst.FunctionDef, cst.Lambda)):
            return False
    return False


def is_stub(p: Any, fn: cst.FunctionDef) -> bool:
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


def jax_args(p: Any) -> Any:
    """The differentiable arguments of a custom function a rule calls hold JAX values."""

    def of(t: Transformed) -> frozenset[str]:
        primal = primal_of(p, t, "")
        return frozenset(primal.diff or ()) if primal is not None else frozenset()

    return of


def jax_values(role: str, sig: Signature, primal: Primal | None) -> frozenset[str]:
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


def spread(ev: Any, args: Any) -> list[tuple[Any, cst.BaseExpression]] | None:
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
