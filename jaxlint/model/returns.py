"""What a function returns: the ``return`` statements of its own body, and whether every
path through it returns.

Why: any rule that asks what a function gives back (a grad target's loss and aux, a
custom_vjp ``fwd``'s pair) needs the ``return`` statements of the def itself, not those
of the defs and classes nested in it, and must know when they do not say what a call
gives: a generator or a coroutine returns an iterator or an awaitable. ``returned_items``
says how many items each return gives (a tuple or list of n, or one value that is
neither: a custom_vjp ``bwd``'s cotangents, a ``fwd``'s pair): the evaluator's value,
else what Python's operators and the catalogue promise for opaque inputs (only ``+`` and
``*`` by an int make a sequence; ``jnp.where(c, g, 0.0)`` is one array whatever ``g`` is).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN

from .abstract import Array, Const, Dict, Function, List, Scalar, Transformed, Tuple
from .flow import terminates
from .transforms import named

SAME_VALUE = named(gives="value")  # calling it gives the wrapped function's value
ONE = -1  # ``length``: one value, neither a tuple nor a list
JaxArgs = Callable[[Transformed], frozenset[str]] | None

_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def return_statements(ctx, func: cst.FunctionDef) -> list[cst.Return] | None:
    """The ``return`` statements of ``func`` in text order, not those of nested defs and
    classes; None for a generator or an ``async def`` (a call does not give their value)."""
    if func.asynchronous:
        return None
    found: list[cst.Return] = []
    for n in ctx.descendants(func.body, _SCOPES):
        if isinstance(n, cst.Return):
            found.append(n)
        elif isinstance(n, (cst.Yield, cst.Await)):
            return None
    return found


def yield_expressions(ctx, func: cst.FunctionDef) -> list[cst.Yield] | None:
    """The ``yield`` expressions of a generator function in text order, not those of
    nested defs, lambdas and classes; None when ``func`` is no generator (or is an
    ``async def``, whose call gives a coroutine or an async generator)."""
    if func.asynchronous:
        return None
    found = [n for n in ctx.descendants(func.body, _SCOPES) if isinstance(n, cst.Yield)]
    return found or None


def always_returns(func: cst.FunctionDef | cst.Lambda) -> bool:
    """Does every path through ``func`` end in ``return`` or ``raise``? (A lambda always
    returns; a ``with`` block at the end is on the path.)"""
    return isinstance(func, cst.Lambda) or terminates(func.body, enter_with=True)


@dataclass(frozen=True, slots=True)
class Returned:
    node: cst.CSTNode  # the returned expression (the ``return`` of a bare one)
    text: str
    length: int | None  # a tuple or list of this many; None: one value, neither


def returned_items(
    p: Any, fn: cst.FunctionDef | cst.Lambda, jax: frozenset[str] = frozenset(), jax_args: JaxArgs = None
) -> tuple[Returned, ...]:
    """What each ``return`` of ``fn`` gives, as far as it is known (the others are left
    out): a tuple or list of how many items, or one value that is neither. ``jax``: the
    parameters that hold JAX values (arrays or pytrees of them, never a Python int that
    would repeat a sequence); ``jax_args(t)``: those of the function a transform ``t``
    wraps, when a return calls it."""
    if isinstance(fn, cst.Lambda):
        exprs: list[tuple[cst.CSTNode, cst.BaseExpression | None]] = [(fn.body, fn.body)]
    else:
        exprs = [(r.value or r, r.value) for r in return_statements(p.ctx, fn) or ()]
    out = []
    for node, e in exprs:
        n = ONE if e is None else length(p, e, fn, jax, jax_args)
        if n is not None:
            text = "None" if e is None else " ".join(p.ctx.code(e).split())
            out.append(Returned(node, text if len(text) <= 40 else text[:37] + "...", None if n == ONE else n))
    return tuple(out)


def length(
    p: Any, e: cst.BaseExpression, fn: cst.CSTNode, jax: frozenset[str], jax_args: JaxArgs = None, depth: int = 0
) -> int | None:
    """How many items the tuple or list ``e`` gives has; ``ONE``: a value that is neither
    (an array, a number, None, a dict); None: not known."""
    v = p.evaluator.value(e, None)
    if type(v) in (Tuple, List):
        return len(v.items)
    if type(v) is Const and v.value is Ellipsis:
        return None  # ``lambda x: ...``: a stub, not a value anyone reads
    if type(v) in (Array, Const, Scalar, Dict):
        return ONE
    if depth > 3:
        return None
    if isinstance(e, cst.Name):
        b = p.binding(e)
        if b is not None and b.kind == "assign" and b.scope.node is fn and not b.unpack and b.value is not None:
            return length(p, b.value, fn, jax, jax_args, depth + 1)
    elif isinstance(e, cst.IfExp):
        a, b2 = length(p, e.body, fn, jax, jax_args, depth + 1), length(p, e.orelse, fn, jax, jax_args, depth + 1)
        return a if a == b2 else None
    elif isinstance(e, cst.Comparison) or (isinstance(e, cst.UnaryOperation) and not isinstance(e.operator, cst.Not)):
        return ONE  # a sequence has no ``-x``, ``~x`` or ``+x``; a comparison gives a bool or an array
    elif isinstance(e, cst.BinaryOperation):
        return _operator(p, e, fn, jax, jax_args, depth)
    elif isinstance(e, (cst.Call, cst.Subscript)):
        return _promised(p, e, fn, jax, jax_args, depth)
    return None


def _operator(
    p: Any, e: cst.BinaryOperation, fn: cst.CSTNode, jax: frozenset[str], jax_args: JaxArgs, depth: int
) -> int | None:
    """Of Python's operators only ``+`` (concatenation) and ``*`` (repetition by an int)
    make a sequence; with an array or a float on one side neither does."""
    if not isinstance(e.operator, (cst.Add, cst.Multiply)):
        return ONE
    sides = [length(p, x, fn, jax, jax_args, depth + 1) for x in (e.left, e.right)]
    if isinstance(e.operator, cst.Add):
        return ONE if ONE in sides else None
    values = [p.evaluator.value(x, None) for x in (e.left, e.right)]
    if any(n == ONE and not _int_like(v) for n, v in zip(sides, values, strict=True)):
        return ONE  # a float or an array times a sequence is no sequence (or raises)
    # two JAX values: arrays, or pytrees that a product of raises on
    return ONE if all(type(x) is cst.Name and x.value in jax for x in (e.left, e.right)) else None


def _int_like(v: Any) -> bool:
    """A value that repeats a sequence it multiplies."""
    if type(v) is Const:
        return type(v.value) in (int, bool)
    return type(v) is Scalar and v.kind in ("int", "bool")


def _promised(
    p: Any, e: cst.Call | cst.Subscript, fn: cst.CSTNode, jax: frozenset[str], jax_args: JaxArgs, depth: int
) -> int | None:
    """A call of a catalogue function on arrays (what its API gives: ``jnp.where(c, g, 0.0)``
    one array, ``jnp.linalg.slogdet(x)`` a pair), an item of one, or a call of a function
    whose value a transform passes on (a custom_vjp primal called in its own ``fwd``)."""
    ev = p.evaluator
    if isinstance(e, cst.Subscript):
        sl = e.slice[0].slice if len(e.slice) == 1 else None
        index = ev.value(sl.value, None) if isinstance(sl, cst.Index) else UNKNOWN
        made = ev.result_with_arrays(e.value, None) if isinstance(e.value, cst.Call) else UNKNOWN
        if (
            type(made) is Tuple
            and type(index) is Const
            and type(index.value) is int
            and -len(made.items) <= index.value < len(made.items)
        ):
            return _kind(made.items[index.value])
        return None
    got = _kind(ev.result_with_arrays(e, None))
    if got is not None:
        return got
    callee = ev.value(e.func, None)
    inner: frozenset[str] = frozenset()
    while type(callee) is Transformed and callee.api in SAME_VALUE:
        inner = jax_args(callee) if jax_args is not None else inner
        callee = callee.target
    if type(callee) is Function and (callee.program or p) is p and callee.node is not fn and depth < 3:
        node = callee.node
        found = returned_items(p, node, inner, jax_args)
        kinds = {r.length for r in found}
        every = 1 if isinstance(node, cst.Lambda) else len(return_statements(p.ctx, node) or ())
        if found and len(kinds) == 1 and len(found) == every:
            k = kinds.pop()
            return ONE if k is None else k
    return None


def _kind(v: Any) -> int | None:
    if type(v) in (Tuple, List):
        return len(v.items)
    return ONE if type(v) is Array else None


def returned_source(fn: Function, limit: int = 60) -> str | None:
    """The source of what a def first returns, for a message (a lambda: its body; a name
    bound once to a tuple or list display: that display), whitespace folded and cut to
    ``limit``; None when it returns nothing readable."""
    p = fn.program
    if p is None:
        return None
    if isinstance(fn.node, cst.Lambda):
        expr: cst.BaseExpression | None = fn.node.body
    else:
        rets = return_statements(p.ctx, fn.node)
        expr = rets[0].value if rets else None
    if expr is None:
        return None
    shown = (p.display(expr) if isinstance(expr, cst.Name) else None) or expr
    text = " ".join(p.ctx.code(shown).split())
    text = text if len(text) <= limit else text[: limit - 3] + "..."
    return f"({text})" if isinstance(shown, cst.Tuple) and not shown.lpar else text
