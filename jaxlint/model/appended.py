"""Lists built by ``append``: ``outs = []`` then ``for x in xs: outs.append(f(x))``.

A list bound to a literal and changed afterwards only by ``append`` calls written as
statements — each where the binding is, or directly in the body of one ``for`` loop there
(no ``break`` or ``continue``) — holds, once those have run, the literal's items and then
each append's value, an append in a loop once per item of the loop's iterable. That is
the value a read after them gives: a ``List`` when every count is known (at most
``MAX_ITEMS`` items), a ``Seq`` of the loop's length when one loop makes the whole list.
Anything else done to the list, an append under an ``if``, in a ``while``, a ``try`` or a
nested function, a read inside the loop, a loop the model cannot count: None (unknown).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from . import dims
from .abstract import Array, List, Seq

if TYPE_CHECKING:
    from .evaluate import Env, Evaluator
    from .scopes import Binding

MAX_ITEMS = 256


def appended(ev: Evaluator, read: cst.Name, b: Binding, base: List, env: Env | None) -> Any:
    """The list ``b`` bound (``base``) as ``read`` sees it after the appends, or None."""
    p = ev.p
    r = p._reads.get(read)
    if r is None or r.scope is not b.scope:
        return None
    parts: list[tuple[Any, Any]] = [(x, 1) for x in base.items]  # (value, count)
    for m in sorted(p._mutations(b), key=lambda m: p._reads[m].index if m in p._reads else -1):
        mr = p._reads.get(m)
        call = _append_statement(p.parents, m)
        if mr is None or call is None or mr.scope is not b.scope or mr.index > r.index:
            return None
        extra = mr.path[len(b.path) :]
        if mr.path[: len(b.path)] != b.path:
            return None
        value = ev.value(call.args[0].value, env)
        if not extra:
            parts.append((value, 1))
            continue
        if len(extra) != 1 or type(extra[0][0]) is not cst.For or extra[0][1] != 0:
            return None
        loop = extra[0][0]
        if any(arm[0] is loop for arm in r.path) or _jumps(loop):
            return None
        iterable = ev.value(loop.iter, env)
        each = _per_item(ev, loop, iterable, call, env, b)
        if each is not None:  # what each iteration appends, its target bound to its item
            parts.extend((v, 1) for v in each)
            continue
        count = _count(ev, iterable)
        if count is None:
            return None
        parts.append((value, count))
    counts = [dims.as_int(c) for _, c in parts]
    if all(c is not None for c in counts) and sum(c or 0 for c in counts) <= MAX_ITEMS:
        return List(tuple(v for (v, _), c in zip(parts, counts, strict=True) for _ in range(c or 0)))
    if len(parts) == 1:  # one append in one loop makes the whole list
        value, count = parts[0]
        return Seq(count, value)
    return None


def _per_item(
    ev: Evaluator, loop: cst.For, iterable: Any, call: cst.Call, env: Env | None, b: Binding
) -> list[Any] | None:
    """The values a loop's append gives, one per item of its iterable when the items are
    known (``for d_in, d_out in zip(sizes[:-1], sizes[1:])``: a layer of each shape), in
    the function's frame with the loop's target bound (``loop_frame``); None elsewhere."""
    if env is None or env.function is not b.scope.node:
        return None
    items = ev.items(iterable)
    if items is None or len(items) > MAX_ITEMS:
        return None
    out = []
    for item in items:
        frame = loop_frame(ev, env, loop.target, item)
        if frame is None:
            return None
        out.append(ev.value(call.args[0].value, frame))
    return out


def loop_frame(ev: Evaluator, env: Env, target: cst.BaseExpression, item: Any) -> Env | None:
    """``env`` with a ``for`` target bound to one item (read by ``Evaluator.binding_value``
    under ``LOOP_KEY``), or None for a target it cannot bind."""
    from .evaluate import _bind_target

    names: dict[str, Any] = {}
    if not _bind_target(target, item, names):
        return None
    params = dict(env.params)
    params.update({LOOP_KEY + k: v for k, v in names.items()})
    return ev.frame(env.function, params, env.parent, env.site, env.caller)


# the frame entry of a ``for`` target bound to one item (no parameter name starts so)
LOOP_KEY = "\0for:"


def _append_statement(parents: dict[cst.CSTNode, cst.CSTNode], read: cst.Name) -> cst.Call | None:
    """``read.append(x)`` written as a statement: the call, else None."""
    attr = parents.get(read)
    if type(attr) is not cst.Attribute or attr.attr.value != "append":
        return None
    call = parents.get(attr)
    if type(call) is not cst.Call or call.func is not attr or type(parents.get(call)) is not cst.Expr:
        return None
    if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
        return None
    return call


def _jumps(loop: cst.For) -> bool:
    """Does the loop's body leave an iteration early (``break``, ``continue``, ``return``)?"""
    todo: list[cst.CSTNode] = [loop.body]
    while todo:
        n = todo.pop()
        if isinstance(n, (cst.Break, cst.Continue, cst.Return, cst.Raise)):
            return True
        if isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        todo.extend(n.children)
    return False


def _count(ev: Evaluator, iterable: Any) -> Any:
    """How many items a ``for`` over ``iterable`` runs: an int or a size symbol, or None."""
    items = ev.items(iterable)
    if items is not None:
        return len(items)
    if type(iterable) is Seq:
        return iterable.length
    if type(iterable) is Array and iterable.shape is not None and iterable.shape.dims:
        return iterable.shape.dims[0]
    return getattr(iterable, "length", None)  # ``range(n)`` of a symbolic ``n``
