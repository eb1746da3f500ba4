"""How a function uses each of its parameters, computed once per function.

``uses(p, fn)[name]`` is the set of ways the body reads parameter ``name`` (through the
reads that can only be that parameter, ``Program.references``):

- ``subscripted`` (``x[i]``; also ``keyed`` for a string key, ``x["inputs"]``: a mapping,
  ``indexed`` for an int one), ``type_tested`` (``isinstance(x, ...)``, ``type(x)``),
  ``iterated`` (``for a in x``), ``unpacked`` (``a, b = x``),
  ``called`` (``x(...)``), ``shape`` (``x.shape``/``ndim``/``size``/``dtype``), ``at``
  (``x.at[i]``), ``attribute`` (any other ``x.name``);
- ``contraction``: an operand of ``@`` or of a catalogue contraction (``dot``, ``einsum``);
- ``static``: where JAX needs a Python value, not a tracer — a catalogue function's static
  parameter (a shape, an axis, ``num``), ``range(x)``, the test of an ``if``/``while``;
- ``differentiated``: passed at a position a ``grad``-family transform differentiates;
- ``key``: the PRNG key a catalogue function consumes (``jax.random.normal(key, ...)``,
  ``split(key)``): a key, whatever the callers pass.

Rules read it as evidence of what a parameter is for (JAX405 a static argnum, JAX503 a
traced value in Python control flow).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from .abstract import Const, External, List, Transformed, Tuple
from .catalogue import lookup, rule_family
from .signature import bind
from .transforms import named

if TYPE_CHECKING:
    from .program import Program

SHAPE_ATTRS = frozenset({"shape", "ndim", "size", "dtype"})
GRADS = named(gives="grad") | named(gives="jacobian")


def uses(p: Program, fn: cst.FunctionDef | cst.Lambda) -> dict[str, frozenset[str]]:
    memo: dict[Any, dict[str, frozenset[str]]] = p.__dict__.setdefault("_uses", {})
    if fn not in memo:
        memo[fn] = _uses(p, fn)
    return memo[fn]


def _uses(p: Program, fn: cst.FunctionDef | cst.Lambda) -> dict[str, frozenset[str]]:
    scope = p.scope_of_node.get(fn)
    out: dict[str, frozenset[str]] = {}
    if scope is None:
        return out
    for name, bindings in scope.bindings.items():
        params = [b for b in bindings if b.kind == "param"]
        if not params:
            continue
        found: set[str] = set()
        for b in params:
            reads, _ = p.references(b)
            for r in reads:
                found |= use_of(p, r)
        out[name] = frozenset(found)
    return out


def reads_shape(p: Program, fn: cst.FunctionDef | cst.Lambda, name: str) -> bool:
    """Does the body read parameter ``name``'s ``.shape`` (``ndim``, ``size``, ``dtype``)?
    Read from the tree alone: the evaluator asks it while it computes a value, and
    evaluating the body's callees then (``uses``) could come back to that value."""
    scope = p.scope_of_node.get(fn)
    if scope is None:
        return False
    parents = p.parents
    for b in scope.bindings.get(name, ()):
        if b.kind != "param":
            continue
        for r in p.references(b)[0]:
            parent = parents.get(r)
            if type(parent) is cst.Attribute and parent.value is r and parent.attr.value in SHAPE_ATTRS:
                return True
    return False


def use_of(p: Program, read: cst.Name) -> set[str]:
    """How one read of a parameter uses it (the kinds of the module doc)."""
    parents = p.parents
    parent = parents.get(read)
    t = type(parent)
    if t is cst.Subscript and parent.value is read:
        sl = parent.slice[0].slice if len(parent.slice) == 1 else None
        if type(sl) is cst.Index and type(sl.value) is cst.SimpleString and sl.value.value[:1] in "'\"":
            return {"subscripted", "keyed"}  # ``x["inputs"]``: a mapping, no tuple or array
        if type(sl) is cst.Index and type(sl.value) in (cst.Integer, cst.UnaryOperation):
            return {"subscripted", "indexed"}  # ``x[0]``, ``x[-1]``
        return {"subscripted"}
    if t is cst.Attribute and parent.value is read:
        attr = parent.attr.value
        if attr in SHAPE_ATTRS:
            return {"shape"}
        if attr == "at":
            return {"at"}
        return {"attribute"}
    if t is cst.Call and parent.func is read:
        return {"called"}
    if (t is cst.For or t is cst.CompFor) and parent.iter is read:
        return {"iterated"}
    if (
        t is cst.Assign
        and parent.value is read
        and any(type(x.target) in (cst.Tuple, cst.List) for x in parent.targets)
    ):
        return {"unpacked"}
    if t is cst.BinaryOperation and type(parent.operator) is cst.MatrixMultiply:
        return {"contraction"}
    if (t is cst.If or t is cst.While) and parent.test is read:
        return {"static"}
    if t is cst.Comparison or t is cst.UnaryOperation:
        grand = parents.get(parent)
        if type(grand) in (cst.If, cst.While) and grand.test is parent:
            return {"static"}
    if t is cst.Arg and parent.value is read:
        call = parents.get(parent)
        if type(call) is cst.Call:
            return _argument_use(p, call, parent)
    if t is cst.Element:
        display = parents.get(parent)
        arg = parents.get(display)
        if type(arg) is cst.Arg:
            call = parents.get(arg)
            if type(call) is cst.Call and _static_position(p, call, arg):
                return {"static"}  # an entry of a shape tuple: ``jnp.zeros((n, 3))``
    return set()


def _argument_use(p: Program, call: cst.Call, arg: cst.Arg) -> set[str]:
    ev = p.evaluator
    callee = ev.value(call.func, None)
    if type(callee) is External:
        q = callee.qualified
        if q == "builtins.range":
            return {"static"}
        if q in ("builtins.isinstance", "builtins.type", "builtins.hasattr"):
            return {"type_tested"}  # the body asks what it is: it may be several kinds
        if rule_family(q) == "contractions":
            return {"contraction"}
        if _static_position(p, call, arg):
            return {"static"}
        op = lookup(q)
        if op is not None and op.key is not None and _lands_on(op, call, arg, (op.key,)):
            return {"key"}
        return set()
    if type(callee) is Transformed and callee.api in GRADS:
        argnums = callee.option("argnums", Const(0))
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if arg in positional:
            k = positional.index(arg)
            picked = (
                {argnums.value}
                if type(argnums) is Const and isinstance(argnums.value, int)
                else {x.value for x in argnums.items if type(x) is Const}
                if type(argnums) in (Tuple, List)
                else set()
            )
            if k in picked:
                return {"differentiated"}
    return set()


def _static_position(p: Program, call: cst.Call, arg: cst.Arg) -> bool:
    """Does ``arg`` land on a parameter the catalogue function must get as a Python value?"""
    callee = p.evaluator.value(call.func, None)
    if type(callee) is not External:
        return False
    op = lookup(callee.qualified)
    return op is not None and bool(op.static) and _lands_on(op, call, arg, op.static)


def _lands_on(op: Any, call: cst.Call, arg: cst.Arg, names) -> bool:
    """Does ``arg`` bind one of the catalogue function ``op``'s parameters ``names``?"""
    if any(a.star for a in call.args):
        return False
    marks = [(i, a.keyword.value if a.keyword is not None else None, "") for i, a in enumerate(call.args)]
    b = bind(op.signature, marks)  # positions stand in for the values
    if b.error is not None:
        return False
    k = call.args.index(arg)
    return any(v == k and name in names for name, v in b.arguments.items())
