"""Functions that forward their ``*args`` to a callable parameter.

``def apply(fn, *args): return fn(*args)`` calls ``fn`` with the caller's trailing
positional arguments: ``apply(jax.vmap(f, in_axes=(0,)), x, y)`` calls the vmapped
``f`` with ``(x, y)``. Test helpers (``self.ConvertAndCompare(f, *args)``) and sharding
helpers (``batch_shmap(fn, *args)``) are this shape, often in another module.

A def *forwards* its positional parameter ``k`` when every call of that parameter in its
body is ``fn(*args)`` or ``fn(*args, **kwargs)`` (``args``/``kwargs`` its own ``*``/``**``
parameters, never rebound), at least one such call runs on every path before any other
use of ``fn`` (it is a statement of the def's own block, not under ``if``/``for``/``try``,
after no ``return``/``raise``; not in a generator),
and ``fn`` is rebound only to ``jit``/``checkpoint``/``shard_map``... of itself (which keep
the number of arguments; ``shard_map`` splits the sizes, so shapes are then not kept).
Anything else (``fn(*args[1:])``, ``fn(args[0])``, ``fn(*args, x)``, a rebinding to
something else) is not forwarding: unknown, so silent.

A call of a def of the same file is decided at once. A call of an imported function, or
of ``self.method`` that a base class imported from another module defines, is an
*assumption* (``assumption(p, call)``: ``{"refs", "param", "named"}``): the forwarded call
is made as if the callee forwards, and a rule reporting through it asks the project, once
every module is read, whether the callee's module facts say so (``holds``); a shape
derived from such a call carries it (``shapes.assumptions``). The engine records each read
file's forwarding defs (``record_for``) for the rules whose ``reads`` include
``"forwarders"``; the slicer keeps those defs (``jaxlint/plan/outline.py``: ``forwards``).
"""

from __future__ import annotations

import os
from typing import Any

import libcst as cst

from .attributes import instance_attribute
from .spelled import spelled
from .transforms import PARTIAL, TRANSFORMS, named

KEY = "forwards"
# transforms that call their function with the same arguments ...
SAME_SHAPES = named(gives="value")
# ... and those that keep the number of arguments but give each a block of it
SAME_ARITY = named(gives="blocks")


def forwards(p, fn: cst.FunctionDef) -> dict[str, dict[str, Any]]:
    """``{positional index of the parameter: {"named": positional parameters before *args,
    "shapes": the arguments arrive with their shapes, "kwargs": **kwargs go along too}}`` for
    the callable parameters ``fn`` forwards its ``*args`` to (keys are strings: JSON)."""
    memo = p.ctx.shared.setdefault("model.forwards", {})
    if fn in memo:
        return memo[fn]
    memo[fn] = out = _forwards(p, fn)
    return out


def _forwards(p, fn: cst.FunctionDef) -> dict[str, dict[str, Any]]:
    params = fn.params
    star = params.star_arg
    if type(star) is not cst.Param or type(fn.body) is not cst.IndentedBlock:
        return {}
    scope = p.scope_of_node.get(fn)
    if scope is None:
        return {}
    args_name = star.name.value
    kwargs_name = params.star_kwarg.name.value if type(params.star_kwarg) is cst.Param else None
    for name in (args_name, kwargs_name):
        if name is not None and len(scope.bindings.get(name, ())) != 1:
            return {}  # ``args = args[1:]``: not the caller's arguments any more
    positional = [*params.posonly_params, *params.params]
    out: dict[str, dict[str, Any]] = {}
    for k, param in enumerate(positional):
        found = _forwarded(p, fn, scope, param, args_name, kwargs_name)
        if found is not None:
            out[str(k)] = {"named": len(positional), **found}
    return out


def _forwarded(p, fn, scope, param: cst.Param, args_name: str, kwargs_name: str | None) -> dict[str, Any] | None:
    """How ``param`` is called inside ``fn``, if only as ``param(*args[, **kwargs])``."""
    name = param.name.value
    bindings = scope.bindings.get(name, ())
    shapes = True
    for b in bindings:
        if b.kind == "param":
            continue
        api = _rewrapped(p, b, param)
        if api is None:
            return None
        shapes = shapes and api in SAME_SHAPES
    reads = [r for r in p._reads_by_name.get(name, ()) if any(b in bindings for b in p.reaching(r))]
    calls, first_other, kwargs = [], None, False
    for r in reads:
        parent = p.parents.get(r)
        if type(parent) is cst.Call and parent.func is r:
            args = list(parent.args)
            if (
                not args
                or args[0].star != "*"
                or type(args[0].value) is not cst.Name
                or args[0].value.value != args_name
            ):
                return None
            rest = args[1:]
            if rest and not (
                len(rest) == 1
                and rest[0].star == "**"
                and type(rest[0].value) is cst.Name
                and rest[0].value.value == kwargs_name
            ):
                return None
            kwargs = kwargs or bool(rest)
            calls.append(parent)
        elif _rebinds(p, r, bindings):
            continue
        elif first_other is None or p.ctx.text_order(r) < first_other:
            first_other = p.ctx.text_order(r)
    # a ``return``/``raise`` before the call may leave without calling; a generator's body
    # does not run at the call
    leaves = [n for n in p.ctx.descendants(fn) if type(n) in (cst.Return, cst.Raise, cst.Yield)]
    runs = [
        c
        for c in calls
        if _on_every_path(p, fn, c)
        and (first_other is None or p.ctx.text_order(c) < first_other)
        and not any(p.ctx.text_order(n) < p.ctx.text_order(c) and n is not p.parents.get(c) for n in leaves)
    ]
    if not runs or any(type(n) is cst.Yield for n in p.ctx.descendants(fn)):
        return None
    return {"shapes": shapes, "kwargs": kwargs}


def _rewrapped(p, b, param: cst.Param) -> str | None:
    """The transform ``fn = jax.jit(fn, ...)`` applies to the parameter itself (nothing else
    its name may hold), when it keeps the number of arguments; else None."""
    call = b.value if b.kind == "assign" and not b.unpack else None
    if type(call) is not cst.Call or any(a.star == "**" for a in call.args):
        return None
    api = spelled(p, call.func)
    if api not in SAME_SHAPES and api not in SAME_ARITY:
        return None
    positional = [a for a in call.args if a.keyword is None and not a.star]
    target = positional[0].value if positional else None
    if type(target) is not cst.Name:
        return None
    found = p.reaching(target)
    return api if len(found) == 1 and found[0].kind == "param" and found[0].node is param else None


def _rebinds(p, read: cst.Name, bindings) -> bool:
    """The read is the function argument of one of the parameter's own rebindings."""
    arg = p.parents.get(read)
    call = p.parents.get(arg)
    return (
        type(arg) is cst.Arg
        and type(call) is cst.Call
        and any(b.kind == "assign" and b.value is call for b in bindings)
    )


def _on_every_path(p, fn: cst.FunctionDef, call: cst.Call) -> bool:
    """The call is in a statement of ``fn``'s own block (also ``return``/``x = ...``)."""
    node = call
    while True:
        parent = p.parents.get(node)
        if parent is None or isinstance(parent, (cst.Lambda, cst.FunctionDef, cst.CompFor)):
            return False
        if type(parent) is cst.SimpleStatementLine:
            return p.parents.get(p.parents.get(parent)) is fn
        if isinstance(parent, cst.BaseCompoundStatement):
            return False
        node = parent


def keeps_calls(p, deco: cst.FunctionDef) -> bool:
    """Is ``deco`` a decorator whose result, called, calls the decorated function with
    exactly its own arguments: ``def deco(fn)`` returning a nested ``def wrapper(*args,
    **kwargs)`` that calls ``fn(*args, **kwargs)`` in a statement of its own block, with no
    ``return``/``raise`` before it (``functools.wraps`` and logging around it change nothing
    a transform sees)? Then ``@jax.jit @deco def f`` traces ``f`` with the jitted
    call's arguments."""
    memo = p.ctx.shared.setdefault("model.keeps_calls", {})
    if deco not in memo:
        memo[deco] = _keeps_calls(p, deco)
    return memo[deco]


def _keeps_calls(p, deco: cst.FunctionDef) -> bool:
    params = deco.params
    positional = [*params.posonly_params, *params.params]
    if not positional or any(q.default is None for q in positional[1:]) or type(params.star_arg) is cst.Param:
        return False  # the decorated function is its one argument (the others keep their defaults)
    body = deco.body.body if type(deco.body) is cst.IndentedBlock else ()
    last = body[-1] if body else None
    ret = last.body[0] if type(last) is cst.SimpleStatementLine and len(last.body) == 1 else None
    if type(ret) is not cst.Return or type(ret.value) is not cst.Name:
        return False
    wrappers = [s for s in body if type(s) is cst.FunctionDef and s.name.value == ret.value.value]
    scope, inner = p.scope_of_node.get(deco), p.scope_of_node.get(wrappers[0]) if len(wrappers) == 1 else None
    if scope is None or inner is None or len(scope.bindings.get(ret.value.value, ())) != 1:
        return False
    wrapper = wrappers[0]
    wp = wrapper.params
    if wp.posonly_params or wp.params or wp.kwonly_params or type(wp.star_arg) is not cst.Param:
        return False
    fn_name = positional[0].name.value
    args_name = wp.star_arg.name.value
    kwargs_name = wp.star_kwarg.name.value if wp.star_kwarg is not None else None
    if len(scope.bindings.get(fn_name, ())) != 1 or any(
        n is not None and len(inner.bindings.get(n, ())) != 1 for n in (args_name, kwargs_name)
    ):
        return False
    wanted = [f"*{args_name}"] + ([f"**{kwargs_name}"] if kwargs_name else [])
    for call in p.ctx.descendants(wrapper.body):
        if type(call) is not cst.Call or type(call.func) is not cst.Name or call.func.value != fn_name:
            continue
        given = [f"{a.star}{a.value.value}" if type(a.value) is cst.Name else "?" for a in call.args]
        if given != wanted or not _on_every_path(p, wrapper, call):
            return False
        order = p.ctx.text_order(call)
        leaves = (cst.Return, cst.Raise, cst.Yield)
        return not any(
            type(n) in leaves and p.ctx.text_order(n) < order and n is not p.parents.get(call)
            for n in p.ctx.descendants(wrapper.body)
        )
    return False


# ----------------------------------------------------------------------------------
# calls through a forwarder
# ----------------------------------------------------------------------------------
def forwarded_call(p, call: cst.Call, arg: cst.Arg) -> cst.Call | None:
    """``apply(value, x, y)`` where ``apply`` forwards that parameter: the call
    ``value(x, y)`` it makes (a call node made once, whose parent is ``call``: see
    ``Program.written_call``), or None. Through a callee of another module, the call is
    made under an assumption (``assumption(p, made)``)."""
    made = p.ctx.shared.setdefault("model.forwarded", {})
    key = (call, arg)
    if key in made:
        return made[key]
    made[key] = out = _made(p, call, arg)
    return out


def may_forward(p, call: cst.Call) -> bool:
    """Can ``call`` hand one of its positional arguments to a forwarder: its callee is a def
    of this file that forwards some parameter, or a function of another module (which the
    project phase may find forwarding)?"""
    if not call.args or any(a.star for a in call.args):
        return False
    callee, _offset, refs = _callee(p, call.func)
    if callee is not None:
        return bool(forwards(p, callee))
    return bool(refs)


def _made(p, call: cst.Call, arg: cst.Arg) -> cst.Call | None:
    args = list(call.args)
    if any(a.star for a in args):
        return None
    positional = [a for a in args if a.keyword is None]
    at = next((i for i, a in enumerate(positional) if a is arg), None)
    if at is None:
        return None
    callee, offset, refs = _callee(p, call.func)
    keywords = [a for a in args if a.keyword is not None]
    if callee is not None:
        fact = forwards(p, callee).get(str(at + offset))
        if fact is None or fact["named"] != at + offset + 1:
            return None
        named = {x.name.value for x in (*callee.params.params, *callee.params.kwonly_params)}
        if any(a.keyword is not None and a.keyword.value in named for a in keywords) or (
            keywords and not fact["kwargs"]
        ):
            return None
        info = {"refs": [], "shapes": fact["shapes"]}
    elif refs and not keywords:  # with keywords: which the callee's own parameters take is not known here
        info = {"refs": refs, "param": at + offset, "named": at + offset + 1, "shapes": True}
    else:
        return None
    new = cst.Call(func=arg.value, args=[*positional[at + 1 :], *keywords])
    p.parents[new] = call
    p.ctx.shared.setdefault("model.forwarded_info", {})[new] = info
    return new


def _callee(p, func: cst.BaseExpression) -> tuple[cst.FunctionDef | None, int, list[str]]:
    """(a forwarding candidate def of this file, 1 for a bound method else 0, or the
    references of candidates in other modules, in the order Python looks them up). A
    function of the catalogue is no candidate: it says how it calls its function
    arguments (``lax.scan`` calls ``f(carry, x)`` with a slice of ``xs``)."""
    from .catalogue import lookup

    fn, offset, refs = _candidate(p, func)
    return fn, offset, [r for r in refs if lookup(r) is None]


def _candidate(p, func: cst.BaseExpression) -> tuple[cst.FunctionDef | None, int, list[str]]:
    if type(func) is cst.Name:
        found = p.reaching(func)
        if len(found) == 1 and found[0].kind == "def" and found[0].scope.kind in ("module", "function"):
            fn = found[0].node
            # a staticmethod takes no ``self``; other decorators may wrap it
            return (fn, 0, []) if isinstance(fn, cst.FunctionDef) and not fn.decorators else (None, 0, [])
    if type(func) is cst.Attribute:
        own = instance_attribute(p, func)  # ``self.method`` in a method of a class
        if own is not None:
            return _inherited(p, own.cls, func.attr.value, 0)
    q = spelled(p, func)  # a function of another module
    if q is not None and q not in TRANSFORMS and q not in PARTIAL:
        return None, 0, [q]
    return None, 0, []


def _inherited(p, cls: cst.ClassDef, attr: str, depth: int) -> tuple[cst.FunctionDef | None, int, list[str]]:
    """``attr`` looked up in ``cls`` and its bases (depth first, left to right); a base of
    another module ends the search there: its reference."""
    scope = p.scope_of_node.get(cls)
    if scope is None or depth > 5:
        return None, 0, []
    own = scope.bindings.get(attr)
    if own:
        if len(own) == 1 and own[0].kind == "def" and not own[0].node.decorators:
            return own[0].node, 1, []
        return None, 0, []
    for base in cls.bases:
        if base.keyword is not None or base.star:
            return None, 0, []
        q = spelled(p, base.value)
        if q is not None:
            return None, 1, [f"{q}.{attr}"]
        b = p.binding(base.value) if type(base.value) is cst.Name else None
        if b is None or b.kind != "class":
            return None, 0, []
        found = _inherited(p, b.node, attr, depth + 1)
        if found != (None, 0, []):
            return found
    return None, 0, []


def made_here(p, call: cst.Call) -> bool:
    """Is the call one ``forwarded_call`` made?"""
    return call in p.ctx.shared.get("model.forwarded_info", ())


def keeps_shapes(p, call: cst.Call) -> bool:
    """False for a call made through a forwarder that may ``shard_map`` the function
    (the arguments arrive in blocks: their number is kept, not their shapes)."""
    info = p.ctx.shared.get("model.forwarded_info", {}).get(call)
    return info is None or info["shapes"]


def assumption(p, call: cst.Call) -> dict[str, Any] | None:
    """What a call made through a callee of another module assumes of it
    (``{"refs", "param", "named"}``, plain data for ``holds``), or None."""
    info = p.ctx.shared.get("model.forwarded_info", {}).get(call)
    if info is None or not info["refs"]:
        return None
    return {k: info[k] for k in ("refs", "param", "named")}


def holds(project, assumed: dict[str, Any], shapes: bool = True) -> bool:
    """Does the project say the callee forwards that parameter, with that signature (and,
    with ``shapes``, keeping the arguments' shapes)? A reference the project does not
    define: no."""
    found = _function(project, assumed["refs"][0])
    if found is None:
        return False
    module, fact = found
    got = module.extra.get(KEY, {}).get(fact.qualname, {}).get(str(assumed["param"]))
    return got is not None and got["named"] == assumed["named"] and (got["shapes"] or not shapes)


def _function(project, ref: str):
    """``project.function``, and for a module of a namespace package (a folder without
    ``__init__.py``, whose files jaxlint names as top-level modules) the one file whose path
    ends with the reference's module path."""
    found = project.function(ref)
    if found is not None:
        return found
    parts = ref.split(".")
    for k in range(len(parts) - 1, 1, -1):
        tail = "/" + "/".join(parts[:k]) + ".py"
        files = [m for m in project.all if ("/" + m.path.replace(os.sep, "/")).endswith(tail)]
        if files:
            fact = files[0].functions.get(".".join(parts[k:])) if len(files) == 1 else None
            return (files[0], fact) if fact is not None else None
    return None


# ----------------------------------------------------------------------------------
# recording
# ----------------------------------------------------------------------------------
def record_for(ctx, rules) -> None:
    """Store the file's forwarding defs with its module facts, if one of ``rules`` reads
    them (its ``reads`` include ``"forwarders"``)."""
    if not any(r.forwarders for r in rules):
        return
    from . import program

    p = program(ctx)  # built already: the vmap rules read it on every file they read
    found = {}
    for node in p.scope_of_node:
        if type(node) is cst.FunctionDef and type(node.params.star_arg) is cst.Param:
            fw = forwards(p, node)
            q = ctx.qualname(node)
            if fw and q:
                found[q] = fw
    if found:
        ctx.facts.extra[KEY] = found
