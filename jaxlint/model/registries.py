"""Module-level dicts filled while the module is imported: registries.

``LOSSES = {}`` then ``LOSSES["mse"] = mse`` at module level, or a decorator that stores
what it decorates (``@register("poly")`` whose ``deco(factory)`` runs
``_REGISTRY[name] = factory``): once the module is imported every such store has run, so a
function reading the dict later (``_REGISTRY[name](**hparams)``) sees them all.

The dict's binding is at module level and bound to a known dict; every change to it is an
item store written as a statement with a constant key, either in the module's own block
(not under ``if``/``for``/``try``) or in the block of a def whose every call is a
decorator application on a module-level def or class: ``@inner`` (a module-level
decorator), or ``@outer(args)`` where ``inner`` is the def the module-level ``outer``
defines and returns. Each application is evaluated as the decorator runs it (its
arguments bound, the decorated function given, the decorators below it applied first).
Anything else (a store under an ``if``, a call of the decorator elsewhere, an unknown key,
another mutation): None, unknown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from .abstract import Const, Dict, Function
from .stored import _item_store, _with

if TYPE_CHECKING:
    from .evaluate import Evaluator
    from .scopes import Binding


def imported(ev: Evaluator, b: Binding, base: Dict) -> Dict | None:
    """The dict the module-level binding ``b`` (bound to ``base``) holds once its module is
    imported, or None when that is not known."""
    p = ev.p
    if b.scope is not p.module_scope:
        return None
    memo: dict[Binding, Dict | None] = p.__dict__.setdefault("_registry_memo", {})
    if b in memo:
        return memo[b]
    active: set[Binding] = p.__dict__.setdefault("_registry_active", set())
    if b in active:
        return None  # a store whose value reads the dict again
    active.add(b)
    before = ev._budget.exhausted
    try:
        found = _imported(ev, b, base)
    finally:
        active.discard(b)
    if ev._budget.exhausted == before:  # not cut short by the work budget: the same for every rule
        memo[b] = found
    return found


def _imported(ev: Evaluator, b: Binding, base: Dict) -> Dict | None:
    p = ev.p
    module_stores: list[tuple[cst.Assign, cst.BaseExpression]] = []
    by_def: dict[cst.FunctionDef, list[tuple[cst.Assign, cst.BaseExpression]]] = {}
    for m in p._mutations(b):
        store = _item_store(p.parents, m)
        if store is None:
            return None
        stmt = store[0]
        block = p.parents.get(p.parents.get(stmt))
        if type(block) is cst.Module:
            module_stores.append(store)
            continue
        fn = p.parents.get(block) if type(block) is cst.IndentedBlock else None
        if type(fn) is not cst.FunctionDef or ev.ctx.enclosing_function(stmt) is not fn:
            return None  # under an ``if``, in a loop, a ``try``...: not every call stores
        if _leaves_before(ev, fn, stmt):
            return None  # ``if name in REGISTRY: return fn`` first: not every call stores
        by_def.setdefault(fn, []).append(store)
    # what runs at import, in text order: a module-level store, or a decorator application
    events: list[tuple[int, Any]] = [(ev.ctx.text_order(s[0]), s) for s in module_stores]
    for inner, stores in by_def.items():
        applications = _applications(ev, inner)
        if applications is None:
            return None
        events += [(ev.ctx.text_order(dec), (dec, target, stores)) for dec, target in applications]
    value: Any = base
    for _, event in sorted(events, key=lambda e: e[0]):
        if type(event[0]) is cst.Assign:
            stmt, index = event
            value = _stored(ev, value, index, stmt.value, None)
        else:
            dec, target, stores = event
            frame = _decorator_frame(ev, dec, target)
            if frame is None:
                return None
            for stmt, index in stores:
                value = _stored(ev, value, index, stmt.value, frame)
        if value is None:
            return None
    return value


def _stored(ev: Evaluator, d: Any, index: cst.BaseExpression, v: cst.BaseExpression, env: Any) -> Dict | None:
    key = ev.value(index, env)
    if type(d) is not Dict or type(key) is not Const or not isinstance(key.value, (str, int)):
        return None
    return _with(d, key.value, ev.value(v, env))


def _applications(ev: Evaluator, inner: cst.FunctionDef) -> list[tuple[cst.Decorator, cst.CSTNode]] | None:
    """The decorator applications that run ``inner``, each with the module-level def or
    class it decorates, when those are all the calls of ``inner``; else None."""
    p = ev.p
    outer = ev.ctx.enclosing_function(inner)
    if outer is None:
        maker, made_by_call = inner, False  # ``@inner``
    elif type(outer) is cst.FunctionDef and ev.ctx.enclosing_function(outer) is None and _returns(outer, inner):
        maker, made_by_call = outer, True  # ``@outer(args)``
    else:
        return None
    binding = p.binding_of_value(maker)
    if binding is None or binding.scope is not p.module_scope:
        return None
    reads, complete = p.references(binding)
    if not complete or not reads:
        return None  # never applied here: called from elsewhere, at any time
    out = []
    for read in reads:
        expr: cst.CSTNode = read
        if made_by_call:
            call = p.parents.get(read)
            if type(call) is not cst.Call or call.func is not read:
                return None
            expr = call
        dec = p.parents.get(expr)
        target = p.parents.get(dec)
        if type(dec) is not cst.Decorator or type(target) not in (cst.FunctionDef, cst.ClassDef):
            return None  # called, passed or stored elsewhere: not only at import
        if type(p.parents.get(target)) is not cst.Module:
            return None
        out.append((dec, target))
    return out


def _leaves_before(ev: Evaluator, fn: cst.FunctionDef, stmt: cst.CSTNode) -> bool:
    """Is there a ``return`` or ``raise`` of ``fn`` (not of a nested def) before ``stmt``?"""
    order = ev.ctx.text_order(stmt)
    return any(
        type(n) in (cst.Return, cst.Raise) and ev.ctx.text_order(n) < order
        for n in ev.ctx.descendants(fn.body, prune=(cst.FunctionDef, cst.Lambda, cst.ClassDef))
    )


def _returns(outer: cst.FunctionDef, inner: cst.FunctionDef) -> bool:
    """Is ``inner`` a statement of ``outer``'s block that ``outer`` ends by returning?"""
    body = outer.body.body if type(outer.body) is cst.IndentedBlock else ()
    if inner not in body:
        return False
    last = body[-1]
    ret = last.body[0] if type(last) is cst.SimpleStatementLine and len(last.body) == 1 else None
    return type(ret) is cst.Return and type(ret.value) is cst.Name and ret.value.value == inner.name.value


def _decorator_frame(ev: Evaluator, dec: cst.Decorator, target: cst.CSTNode) -> Any:
    """The frame the decorator ``dec`` runs its def in, given what it decorates (the
    decorators below it applied first), or None."""
    from .abstract import Class

    d = ev.value(dec.decorator, None)
    if type(d) is not Function:
        return None
    cur: Any
    if type(target) is cst.ClassDef:
        cur = Class(target, ev.p)
    else:
        assert isinstance(target, cst.FunctionDef)
        cur = Function(target, None, ev.p)
    below = list(target.decorators)
    for lower in reversed(below[below.index(dec) + 1 :]):
        cur = ev.decorate(ev.value(lower.decorator, None), cur, lower.decorator)
    return ev.call_frame(d, [(cur, None, "")], None, dec.decorator)
