"""A module-level helper def evaluated with the arguments of one call of it.

Test files build their arrays in small module-level helpers (``q, k, v, tables =
_generate_qkv(batch, page_size, ...)``) and hand them to others (``_reconstruct_kv(tables,
k)``) whose body vmaps. ``bound(p, fn, call)`` is a ``Case`` that reads ``fn``'s parameters
as that call's arguments (defaults as written), around the case being evaluated, so the
shape model reads the helper's body as it runs for that call. ``returned(p, call, k)``:
the ``k``-th element of the helper's one ``return (a, b, ...)`` and the case to read it in
(for a call the slicer keeps with its helpers: ``in_kept_unit``).
``caller_cases(p, fn)``: one such case per call of ``fn`` (all visible, or None).
Nesting is bounded by ``_NEST``; unknown anywhere stays unknown.
"""

from __future__ import annotations

import libcst as cst

from .cases import Case, arguments, current
from .returns import return_statements
from .values import Function

_NEST = 4  # helper cases around one another
_CALLS = 8  # calls of one def followed


def module_def(p, fn) -> bool:
    """An undecorated ``def`` bound at module level (not a method, not nested)."""
    if type(fn) is not cst.FunctionDef or fn.decorators or fn.asynchronous is not None:
        return False
    owner = p.binding_of_value(fn)
    return owner is not None and owner.scope.kind == "module"


def bound(p, fn: cst.FunctionDef, call: cst.Call) -> Case | None:
    """``fn``'s parameters as ``call``'s arguments, around the current case; None when a
    star argument, a ``*args``/``**kwargs`` parameter or too deep a nesting hides them."""
    outer = current(p)
    depth, c = 0, outer
    while c is not None:
        depth += 1
        c = c.outer
    if depth >= _NEST or any(a.star for a in call.args):
        return None
    params = fn.params
    if params.star_kwarg is not None or type(params.star_arg) is cst.Param:
        return None
    memo = p.ctx.shared.setdefault("model.helper_calls.bound", {})
    key = (call, id(outer))
    if key in memo:
        return memo[key]
    positional = [*params.posonly_params, *params.params]
    if sum(a.keyword is None for a in call.args) > len(positional):
        memo[key] = None
        return None
    values = arguments(fn, call)
    for param in (*positional, *params.kwonly_params):
        if param.name.value not in values and param.default is not None:
            values[param.name.value] = param.default
    case = Case(fn, values, outer=outer, via=call)
    p.ctx.shared.setdefault("model.cases.alive", {})[id(case)] = case  # keys memos: keep it
    memo[key] = case
    return case


def returned(p, call: cst.Call, k: int) -> tuple[cst.BaseExpression, Case] | None:
    """``(element k of the returned tuple, the case binding the call)`` for a call of a
    module-level helper whose body ends in its one ``return`` of a tuple display."""
    if not in_kept_unit(p, call):
        return None
    v = p.value(call.func)
    fn = v.node if type(v) is Function else None
    if not isinstance(fn, cst.FunctionDef) or not module_def(p, fn) or type(fn.body) is not cst.IndentedBlock:
        return None
    if not fn.body.body:
        return None
    returns = return_statements(p.ctx, fn)
    if returns is None or len(returns) != 1:
        return None
    last = fn.body.body[-1]
    if type(last) is not cst.SimpleStatementLine or last.body[-1] is not returns[0]:
        return None
    display = returns[0].value
    if (
        not isinstance(display, (cst.Tuple, cst.List))
        or k >= len(display.elements)
        or any(type(e) is cst.StarredElement for e in display.elements)
    ):
        return None
    case = bound(p, fn, call)
    return (display.elements[k].value, case) if case is not None else None


def in_kept_unit(p, call: cst.Call) -> bool:
    """Is ``call`` in the unit ``shape_with_helpers`` names, or in a unit that calls the
    module-level def that unit is? The slicer keeps those, and the defs they refer to, for
    the rules that ask (``reads = "calls"``): the answer does not depend on which run."""
    unit = p.ctx.shared.get("model.shapes.helpers")
    if unit is None:
        return False
    where = p.ctx.unit_of(call)
    if where is unit:
        return True
    if not module_def(p, unit):
        return False
    calls, _ = p.invocations(unit)
    return any(p.ctx.unit_of(c) is where for c in calls)


def caller_cases(p, fn) -> list[Case] | None:
    """One case per call of module-level def ``fn``, or None when its calls are not all
    visible (or too many)."""
    if not module_def(p, fn):
        return None
    calls, complete = p.invocations(fn)
    if not complete or not calls or len(calls) > _CALLS:
        return None
    out = [case for c in calls if (case := bound(p, fn, c)) is not None]
    return out if len(out) == len(calls) else None
