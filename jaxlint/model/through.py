"""Calls that run a def of another module with this file's arguments ("through" calls).

``evaluate(cfg, w)`` imported from another module runs ``evaluate``'s body with what this
call passes; a site in that body (a map, a ``grad``) is then judged with those values,
at this call, in this file: the other module's own lint sees only its own callers. The
callee is found through the values: an imported def, a method of an instance of an
imported class (``sampler.run(key, xs)``), an instance called (its ``__call__``), a def
under a transform that runs it as called (``jax.jit(model.step)(x)``), a class's
``__init__`` (``Trainer(cfg, data, key)``). A def with no
parameters called with no arguments (``main()``) runs as its own module sees it.

``reaching(owner, fn, holds)`` gives the defs of ``fn``'s module whose sites run when ``fn``
runs: ``fn`` and the module-level defs and own methods (``self.member_outputs(xs)``) it
calls, transitively; ``frames_made_by(ev, call, defs)`` the frames the evaluation of
``call`` made for those defs, in which their sites are evaluated (the evaluator follows
only what a result needs: a map whose result goes into ``outs.append(...)`` is needed by
no returned value).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import libcst as cst

from .abstract import Bound, Class, Function, Struct, Transformed
from .transfer import PASS_THROUGH

if TYPE_CHECKING:
    from .evaluate import Env, Evaluator
    from .program import Program

PRUNED = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
DEPTH = 3  # calls followed from the called def


def imported_callee(p: Program, call: cst.Call) -> bool:
    """Does the callee read a name the file imports from a module the model may read
    (``from model import batched_loss``, ``model.step``, a factory's result
    ``batched(f)(x)``, ``jax.jit(model.step)``), not from a library? (Cheap: no evaluation.)"""
    func = call.func
    if type(func) is cst.Call and func.args and not func.args[0].keyword:
        inner = root_name(func.args[0].value)  # ``jax.jit(model.step)(x)``: what the transform is given
        if type(inner) is cst.Name and _all_imported(p, inner):
            return True
    root = root_name(func)
    return type(root) is cst.Name and _all_imported(p, root)


def root_name(expr: cst.BaseExpression) -> cst.BaseExpression:
    """The name an attribute chain, a call or an item of one starts from (``model.step``,
    ``batched(f)``, ``MODELS[name]``: ``model``, ``batched``, ``MODELS``)."""
    while isinstance(expr, (cst.Attribute, cst.Call, cst.Subscript)):
        expr = expr.func if isinstance(expr, cst.Call) else expr.value
    return expr


def _all_imported(p: Program, name: cst.Name) -> bool:
    bs = p.reaching(name)
    return bool(bs) and all(imported(b) or _made_by_imported(p, b) for b in bs)


def imported(b: Any) -> bool:
    """An import of a module the model may read (the project's, or a stub's)."""
    from .evaluate import NEVER_LOADED

    return b.kind == "import" and (b.imported or "").split(".")[0] not in NEVER_LOADED


def _made_by_imported(p: Program, b: Any) -> bool:
    """``batched = vectorize(predict)``: what a function imported from the project made."""
    if b.kind != "assign" or b.unpack or type(b.value) is not cst.Call:
        return False
    root = root_name(b.value.func)
    made = p.reaching(root) if type(root) is cst.Name else []
    return bool(made) and all(imported(m) for m in made)


def called_def(ev: Evaluator, call: cst.Call, f: Any) -> Function | None:
    """The def of another module that ``call`` (its callee's value ``f``) runs with the
    call's arguments, or None (see the module docstring)."""
    from .classes import bound_method, method

    while type(f) is Transformed and f.api in PASS_THROUGH and not f.unknown_options:
        f = f.target
    if type(f) is Class:
        f = method(ev, f, "__init__")  # ``Trainer(cfg, data, key)`` runs ``Trainer.__init__``
    if type(f) is Struct and type(f.cls) is Class:
        f = bound_method(ev, f.cls, "__call__", f)
    if type(f) is Bound and type(f.func) is Function:
        f = f.func
    if type(f) is not Function or type(f.node) is not cst.FunctionDef:
        return None
    if f.program is None or f.program is ev.p:
        return None
    if not call.args and not _has_params(f.node):
        return None  # ``main()``: it runs as its own module's lint sees it, which judges it
    return f


def _has_params(fn: cst.FunctionDef) -> bool:
    p = fn.params
    return bool(p.posonly_params or p.params or p.kwonly_params or isinstance(p.star_arg, cst.Param) or p.star_kwarg)


def reaching(
    owner: Program, fn: cst.FunctionDef, holds: Callable[[cst.Call, Any], bool], depth: int = DEPTH
) -> dict[cst.FunctionDef, list[cst.Call]]:
    """The defs of ``fn``'s module that run when ``fn`` runs and hold a site, each with its
    calls that ``holds`` (given the call and its callee's binder value). ``fn`` itself, the
    module-level defs it calls and its class's own methods it calls, transitively; each
    body walked once."""
    from .values import Function as Defined

    out: dict[cst.FunctionDef, list[cst.Call]] = {}
    todo, seen = [(fn, depth)], {fn}
    while todo:
        g, left = todo.pop()
        for node in owner.ctx.descendants(g.body, prune=PRUNED):
            if type(node) is not cst.Call:
                continue
            v = owner.value(node.func)
            if holds(node, v):
                out.setdefault(g, []).append(node)
            h = v.node if type(v) is Defined and left > 0 else _own_method(owner, g, node) if left > 0 else None
            if type(h) is cst.FunctionDef and h not in seen and owner.ctx.enclosing_function(h) is None:
                seen.add(h)
                todo.append((h, left - 1))
    return out


def _own_method(owner: Program, g: cst.FunctionDef, call: cst.Call) -> cst.FunctionDef | None:
    """``self.member_outputs(xs)`` in a method ``g``: the method of ``g``'s class it names,
    or None."""
    params = g.params.params
    func = call.func
    if not params or type(func) is not cst.Attribute or type(func.value) is not cst.Name:
        return None
    if func.value.value != params[0].name.value:
        return None
    cls = owner.ctx.parent(owner.ctx.parent(g))
    if type(cls) is not cst.ClassDef:
        return None
    found = None
    for s in cls.body.body:
        if type(s) is cst.FunctionDef and s.name.value == func.attr.value:
            found = s
    return found


def frames_made_by(ev: Evaluator, call: cst.Call, defs: dict[cst.FunctionDef, Any]) -> list[Env]:
    """The frames of ``defs`` the evaluation of ``call`` made: made by it, or by a call made
    in a frame it made."""
    out = []
    for frame in list(ev.world.frames.values()):
        g = frame.function
        if type(g) is cst.FunctionDef and g in defs and called_from(frame, call):
            out.append(frame)
    return out


def called_from(frame: Any, call: cst.Call) -> bool:
    """Was the frame made by ``call``, or by a call made in a frame it made?"""
    f = frame
    while f is not None:
        if f.site is call:
            return True
        f = f.caller
    return False
