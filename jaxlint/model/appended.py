"""Lists built by ``append``: ``outs = []`` then ``for x in xs: outs.append(f(x))``.

A list bound to a literal and changed afterwards only by ``append`` calls written as
statements — each where the binding is, or in the body of ``for`` loops there, nested one
directly in the other (no ``break`` or ``continue``) — holds, once those have run, the literal's items and then
each append's value, an append in a loop once per item of the loop's iterable (in nested
loops, once per item of the inner loop for each item of the outer one). That is
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
        # the append is in the body of ``for`` loops only, nested one in the other's body
        if any(type(node) is not cst.For or arm != 0 for node, arm in extra):
            return None
        loops = [node for node, _ in extra if type(node) is cst.For]
        if any(arm[0] is loop for loop in loops for arm in r.path) or any(_jumps(loop) for loop in loops):
            return None
        each = _per_item(ev, loops, call, env, b)
        if each is not None:  # what each iteration appends, its targets bound to its items
            parts.extend((v, 1) for v in each)
            continue
        count: Any = 1
        for loop in loops:  # an inner loop's count, with no outer target bound
            n = _count(ev, ev.value(loop.iter, env))
            count = dims.mul(count, n) if n is not None else None
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


def _per_item(ev: Evaluator, loops: list[cst.For], call: cst.Call, env: Env | None, b: Binding) -> list[Any] | None:
    """The values an append in nested loops gives, one per iteration when every loop's items
    are known (``for d_in, d_out in zip(sizes[:-1], sizes[1:])``: a layer of each shape; an
    inner loop's items in the frame of each outer item), in the function's frame with the
    loops' targets bound (``loop_frame``); None elsewhere."""
    if env is None or env.function is not b.scope.node:
        return None
    frames = [env]
    for loop in loops:
        deeper: list[Env] = []
        for frame in frames:
            items = ev.items(ev.value(loop.iter, frame))
            if items is None or len(deeper) + len(items) > MAX_ITEMS:
                return None
            for item in items:
                bound = loop_frame(ev, frame, loop.target, item)
                if bound is None:
                    return None
                deeper.append(bound)
        frames = deeper
    return [ev.value(call.args[0].value, frame) for frame in frames]


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
