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

from .attributes import assigned_value, receiver_of
from .values import Function

DEPTH = 4


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


def keeps_receiver(p: Any, expr: cst.BaseExpression, attrs: frozenset[str], depth: int = 2 * DEPTH) -> bool:
    """Does calling the callable ``expr`` gives, in the method it is written in, leave the
    receiver's ``attrs`` as they are (when the call is not given the receiver)? Yes for a
    value that cannot reach the receiver (``built_without_receiver``); for a transform or
    ``partial`` of such a callable (``jax.jit(self._reverse_step)``); and for a method of
    the class whose body assigns none of ``attrs`` on its receiver and hands the receiver
    to nothing it cannot follow the same way (``self.eps_model(x, t)`` made from
    ``__init__``'s argument, library functions, the class's other methods). False when
    unsure."""
    if depth <= 0:
        return False
    if built_without_receiver(p, expr, depth):
        return True
    fn = p.ctx.enclosing_function(expr)
    receiver = receiver_of(p, fn)
    if receiver is None:
        return False
    if type(expr) is cst.Name:
        found = p.reaching(expr)
        if len(found) == 1 and found[0].kind == "assign" and found[0].value is not None and not found[0].unpack:
            return keeps_receiver(p, found[0].value, attrs, depth - 1)
        return False
    if type(expr) is cst.Attribute and type(expr.value) is cst.Name and _is(p, expr.value, receiver):
        stored = assigned_value(p, expr)
        if stored is not None:
            return keeps_receiver(p, stored, attrs, depth - 1)
        own = p.value(expr)  # the binder's ``self.method``: the def of the class body
        if type(own) is not Function or type(own.node) is not cst.FunctionDef or own.node.decorators:
            return False
        return _method_keeps(p, own.node, attrs, depth - 1)
    if type(expr) is cst.Call and expr.args and _wraps_its_first_argument(p, expr):
        first, *rest = expr.args
        if any(not built_without_receiver(p, a.value, depth - 1) for a in rest):
            return False  # ``partial(f, self)``: hands the receiver on
        return keeps_receiver(p, first.value, attrs, depth - 1)
    return False


def _wraps_its_first_argument(p: Any, call: cst.Call) -> bool:
    """``jax.jit(f, ...)``, ``jax.vmap(f)``, ``functools.partial(f, ...)``: a callable that
    runs ``f`` (a transform of the table, or ``partial``)."""
    from .spelled import spelled
    from .transforms import PARTIAL, TABLE

    q = spelled(p, call.func)
    return q is not None and (q in TABLE or q in PARTIAL)


def keeps_itself(p: Any, method: cst.FunctionDef, depth: int = DEPTH) -> bool:
    """Does the method use its receiver only through its attributes (``self.key``,
    ``self.post_mean.shape``), and call only such methods of it: never hands the receiver
    itself to anything (``env.attach(self)``, ``me = self``) that could keep it?"""
    receiver = receiver_of(p, method)
    if receiver is None or depth <= 0:
        return False
    for n in p.ctx.descendants(method.body, prune=()):
        if type(n) is not cst.Name or not _is(p, n, receiver):
            continue
        parent = p.ctx.parents.get(n)
        if type(parent) is not cst.Attribute or parent.value is not n:
            return False
        call = p.ctx.parents.get(parent)
        if type(call) is cst.Call and call.func is parent:
            own = p.value(parent)  # the binder's ``self.method``: the def of the class body
            if type(own) is not Function or type(own.node) is not cst.FunctionDef:
                return False  # a stored callable (``partial(helper, self)``?) or one the class does not show
            if own.node is not method and not keeps_itself(p, own.node, depth - 1):
                return False
    return True


def method_keeps(p: Any, method: cst.FunctionDef, attrs: frozenset[str]) -> bool:
    """Does running the method ``method`` (a def of ``p``'s file) leave its receiver's
    ``attrs`` as they are (see ``keeps_receiver``)? For a call through an instance
    (``es.tell(mean, fitness)`` between two ``es.ask(mean)``)."""
    return not method.decorators and _method_keeps(p, method, attrs, 2 * DEPTH)


def _method_keeps(p: Any, method: cst.FunctionDef, attrs: frozenset[str], depth: int) -> bool:
    """Does running ``method`` leave its receiver's ``attrs`` as they are?"""
    receiver = receiver_of(p, method)
    if receiver is None or depth <= 0:
        return False
    for n in p.ctx.descendants(method.body):
        t = type(n)
        if t is cst.Attribute and type(n.value) is cst.Name and _is(p, n.value, receiver):
            parent = p.ctx.parents.get(n)
            if _stored_into(p, n) and n.attr.value in attrs:
                return False  # ``self.key = ...``
            if type(parent) is cst.Call and parent.func is n and not keeps_receiver(p, n, attrs, depth - 1):
                return False  # ``self.refresh()``: a method (or stored callable) that may store
        elif t is cst.Name and _is(p, n, receiver):
            parent = p.ctx.parents.get(n)
            if not (type(parent) is cst.Attribute and parent.value is n):
                return False  # the receiver itself handed on (``helper(self)``, ``me = self``)
        elif t is cst.Call:
            func = n.func
            if type(func) is cst.Name and func.value in ("setattr", "vars"):
                return False
    return True


def _stored_into(p: Any, attr: cst.Attribute) -> bool:
    """Is ``self.x`` a target: assigned, augmented, deleted (also inside a tuple target)?"""
    node: cst.CSTNode = attr
    parent = p.ctx.parents.get(node)
    while type(parent) in (cst.Tuple, cst.List, cst.Element, cst.StarredElement):
        node, parent = parent, p.ctx.parents.get(parent)
    if type(parent) is cst.AssignTarget:
        return True
    if type(parent) in (cst.AugAssign, cst.AnnAssign) and parent.target is node:
        return True
    if type(parent) is cst.Del:
        return True
    return type(parent) is cst.For and parent.target is node
