"""Dicts changed by item stores: ``cfg = dict(DEFAULTS)`` then ``cfg["lr"] = 0.1``.

A dict bound to a known value and changed afterwards only by item stores written as
statements (``d[key] = value``, one target, a key the model knows as a constant), each in
the binding's own block or under ``if`` statements there, holds, when a read after them
runs, the dict with each store that ran applied in order. A store under an ``if`` whose
test the model decides runs or not; one whose test it cannot decide gives the join of
both outcomes; a store in the same arm as the read, before it, ran. Stores in the body of
a ``for`` loop in the binding's block run once per item, when the items are known
(``for i, (a, b) in enumerate(zip(widths[:-1], widths[1:])): params[f"w{i}"] = ...``),
each with the loop's target bound to that item. Anything else (a store under an ``if`` in
a loop, a loop with ``break``, a ``try``, a nested function, an augmented store, ``del``,
another method, a store after the read in a loop, an unknown key): None. ``d.update(other,
k=v)`` as a statement is such a store of each of ``other``'s items (a dict of known keys),
then of each keyword.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from .abstract import Const, Dict, join

if TYPE_CHECKING:
    from .evaluate import Env, Evaluator
    from .scopes import Binding


def stored(ev: Evaluator, read: cst.Name, b: Binding, base: Dict, env: Env | None) -> Any:
    """The dict ``b`` bound (``base``) as ``read`` sees it after the item stores, or None."""
    from .evaluate import _truth

    p = ev.p
    r = p._reads.get(read)
    if r is None or r.scope is not b.scope or r.path[: len(b.path)] != b.path:
        return None
    value: Any = base
    mutations = sorted(p._mutations(b), key=lambda m: p._reads[m].index if m in p._reads else -1)
    unrolled: set[cst.For] = set()
    for m in mutations:
        mr = p._reads.get(m)
        store = _item_store(p.parents, m)
        update = _update_call(p.parents, m) if store is None else None
        if (
            mr is None
            or (store is None and update is None)
            or mr.scope is not b.scope
            or mr.path[: len(b.path)] != b.path
        ):
            return None
        arms = mr.path[len(b.path) :]
        if len(arms) == 1 and type(arms[0][0]) is cst.For:
            loop = arms[0][0]
            if loop in unrolled:
                continue
            if mr.index > r.index or any(arm[0] is loop for arm in r.path):
                return None  # read in the loop, or before it
            value = _unrolled(ev, loop, value, mutations, env, b)
            if value is None:
                return None
            unrolled.add(loop)
            continue
        if any(type(arm[0]) is not cst.If for arm in arms):
            return None  # in a loop, a ``try``, a ``with``, a ``match``: not decided here
        if mr.index > r.index:
            if any(type(arm[0]) in (cst.For, cst.While) for arm in r.path):
                return None  # a later store in a loop around the read: the next iteration sees it
            continue  # runs after the read
        if store is not None:
            stmt, index = store
            key = ev.value(index, env)
            if type(key) is not Const or not isinstance(key.value, (str, int)) or type(value) is not Dict:
                return None
            changed = _with(value, key.value, ev.value(stmt.value, env))
        else:
            assert update is not None
            updated = _updated(ev, value, update, env)
            if updated is None:
                return None
            changed = updated
        runs: bool | None = True
        for i, (branch, arm) in enumerate(arms):
            depth = len(b.path) + i + 1
            if r.path[:depth] == mr.path[:depth]:
                continue  # the read is in this arm too, after the store: the arm ran
            truth = _truth(ev.value(branch.test, env))  # type: ignore[attr-defined]
            if truth is None:
                runs = None
            elif truth != (arm == 0):
                runs = False
                break
        if runs is True:
            value = changed
        elif runs is None:
            value = join(value, changed)
            if type(value) is not Dict:
                return None
    return value


def _unrolled(ev: Evaluator, loop: cst.For, value: Any, mutations: list[cst.Name], env: Env | None, b: Binding) -> Any:
    """The dict after a ``for`` loop whose body stores into it (``params[f"w{i}"] = ...`` for
    each layer): every iteration's stores in order, with the loop's target bound to that
    item, when the items are known (at most ``MAX_ITEMS``) and every store is a statement of
    the loop's own body with a constant key then; else None."""
    from .appended import MAX_ITEMS, _jumps, loop_frame

    p = ev.p
    if env is None or env.function is not b.scope.node or _jumps(loop) or _carries(ev, b, loop):
        return None
    mine = [m for m in mutations if (mr := p._reads.get(m)) is not None and any(a[0] is loop for a in mr.path)]
    stores = [_item_store(p.parents, m) for m in mine]
    if any(s is None or p.parents.get(p.parents.get(s[0])) is not loop.body for s in stores):
        return None  # under an ``if`` or a nested loop in the body: not every iteration
    items = ev.items(ev.value(loop.iter, env))
    if items is None or len(items) > MAX_ITEMS:
        return None
    for item in items:
        frame = loop_frame(ev, env, loop.target, item)
        if frame is None:
            return None
        for stmt, index in stores:  # type: ignore[misc]  # none is None
            key = ev.value(index, frame)
            if type(key) is not Const or not isinstance(key.value, (str, int)) or type(value) is not Dict:
                return None
            value = _with(value, key.value, ev.value(stmt.value, frame))
    return value


def _carries(ev: Evaluator, b: Binding, loop: cst.For) -> bool:
    """Does the loop's body rebind a name that has a value from before the loop too (``n = n
    + 1``)? Each iteration would then see the previous one's: not read one item at a time."""
    inside = {id(n) for n in ev.ctx.descendants(loop.body, prune=())}
    for bs in b.scope.bindings.values():
        if any(id(x.node) in inside for x in bs) and any(id(x.node) not in inside for x in bs):
            return True
    return False


def _with(d: Dict, key: str | int, v: Any) -> Dict:
    """``d`` with ``d[key] = v`` applied (a new key goes last, as a dict inserts it)."""
    if any(k == key and type(k) is type(key) for k, _ in d.items):
        return Dict(tuple((k, v if (k == key and type(k) is type(key)) else x) for k, x in d.items))
    return Dict((*d.items, (key, v)))


def _update_call(parents: dict[cst.CSTNode, cst.CSTNode], read: cst.Name) -> cst.Call | None:
    """``read.update(...)`` written as a statement: the call."""
    attr = parents.get(read)
    if type(attr) is not cst.Attribute or attr.value is not read or attr.attr.value != "update":
        return None
    call = parents.get(attr)
    if type(call) is not cst.Call or call.func is not attr or type(parents.get(call)) is not cst.Expr:
        return None
    return call


def _updated(ev: Evaluator, d: Any, call: cst.Call, env: Env | None) -> Dict | None:
    """``d`` after ``d.update(other, k=v)``: ``other``'s items (a dict of known keys), then
    the keywords, each set in turn; None when one is not known."""
    if type(d) is not Dict or any(a.star for a in call.args):
        return None
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) > 1:
        return None
    for a in positional:
        other = ev.value(a.value, env)
        if type(other) is not Dict:
            return None
        for k, v in other.items:
            if not isinstance(k, (str, int)):
                return None
            d = _with(d, k, v)
    for a in call.args:
        if a.keyword is not None:
            d = _with(d, a.keyword.value, ev.value(a.value, env))
    return d


def _item_store(
    parents: dict[cst.CSTNode, cst.CSTNode], read: cst.Name
) -> tuple[cst.Assign, cst.BaseExpression] | None:
    """``read[key] = value`` written as a statement with one target: the assignment and
    the key's expression."""
    sub = parents.get(read)
    if type(sub) is not cst.Subscript or sub.value is not read or len(sub.slice) != 1:
        return None
    index = sub.slice[0].slice
    if not isinstance(index, cst.Index):
        return None
    target = parents.get(sub)
    stmt = parents.get(target) if type(target) is cst.AssignTarget else None
    if type(stmt) is not cst.Assign or len(stmt.targets) != 1 or stmt.targets[0] is not target:
        return None
    return stmt, index.value
