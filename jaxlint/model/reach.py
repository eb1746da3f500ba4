"""Whether a value can reach a method's receiver (``self``) other than through arguments.

A call may change the objects it can reach: those it is given, those its function closes
over, the module's globals. Rules that track state on ``self`` (JAX502's key kept in
``self.key``) ask whether a call of a callable *not given* ``self`` may still reach it.

A value built only from module globals and from the arguments of ``__init__`` cannot
reach the object ``__init__`` is making: Python evaluates a constructor's arguments
before the object exists, so none of them (nor what is built from them alone: ``jax.jit(
jax.vmap(jax.grad(log_prob)))``) refers to it. A bound method of ``self``
(``jax.jit(self._step)``), a closure defined in a method, or an argument of another method
(the caller may pass ``self.update``) may reach it. The expression is followed through a
local name bound once and through ``self.attr`` that the class assigns in one place.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from .attributes import assigned_value

DEPTH = 4


def receiver_of(p: Any, fn: cst.CSTNode | None) -> cst.Param | None:
    """The first parameter of a def written in a class body, or None."""
    if type(fn) is not cst.FunctionDef:
        return None
    body = p.ctx.parents.get(fn)
    cls = p.ctx.parents.get(body) if body is not None else None
    if type(cls) is not cst.ClassDef:
        return None
    first = (*fn.params.posonly_params, *fn.params.params)
    return first[0] if first else None


def built_without_receiver(p: Any, expr: cst.BaseExpression, depth: int = DEPTH) -> bool:
    """Is ``expr``'s value, in the method it is written in, built only from module globals
    and ``__init__``'s arguments (so it cannot refer to the receiver)? False when unsure."""
    if depth <= 0:
        return False
    fn = p.ctx.enclosing_function(expr)
    receiver = receiver_of(p, fn)
    if receiver is None:
        return False
    nodes = [expr, *p.ctx.descendants(expr)]
    if any(type(n) in (cst.Lambda, cst.FunctionDef, cst.NamedExpr) for n in nodes):
        return False  # a closure, or a binding inside: may capture what it sees
    for n in nodes:
        if type(n) is cst.Attribute and type(n.value) is cst.Name and _is(p, n.value, receiver):
            stored = assigned_value(p, n)  # ``self._score``: what the class stores there
            if stored is None or not built_without_receiver(p, stored, depth - 1):
                return False
        elif type(n) is cst.Name and not _attribute_name(p, n) and not _harmless(p, n, fn, receiver, depth):
            return False
    return True


def _attribute_name(p: Any, n: cst.Name) -> bool:
    """The ``attr`` of ``x.attr`` or a keyword's name: no read of a variable."""
    parent = p.ctx.parents.get(n)
    return (type(parent) is cst.Attribute and parent.attr is n) or (type(parent) is cst.Arg and parent.keyword is n)


def _is(p: Any, name: cst.Name, param: cst.Param) -> bool:
    return any(b.node is param for b in p.reaching(name))


def _harmless(p: Any, n: cst.Name, fn: cst.FunctionDef, receiver: cst.Param, depth: int) -> bool:
    parent = p.ctx.parents.get(n)
    if type(parent) is cst.Attribute and parent.value is n and _is(p, n, receiver):
        return True  # ``self.x``: judged as the attribute
    found = p.reaching(n)
    if not found:
        return n.value in _BUILTINS  # a builtin; anything else is not known
    for b in found:
        if b.scope is p.module_scope:
            continue  # a module global: a def there reaches only its arguments and globals
        if b.kind == "param":
            if b.node is receiver or fn.name.value != "__init__":
                return False
            continue  # an argument of the constructor: made before the object
        if b.kind == "assign" and len(found) == 1 and b.value is not None and not b.unpack:
            if not built_without_receiver(p, b.value, depth - 1):
                return False
            continue
        return False
    return True


_BUILTINS = frozenset({"len", "range", "tuple", "list", "dict", "int", "float", "bool", "str", "min", "max"})
