"""Where a value was built: the expression an argument's value comes from.

``origin(p, expr, frame)`` follows a name to the one binding that reaches it: an
assignment's value, or, for a parameter of the function ``frame`` is a call of, the
argument that call passes (in the caller's frame), and so on until an expression that
is neither. ``hops`` lists the parameters passed through on the way (for messages:
"`batch_x` goes through `train_step` (as `batch_x`)"). What the value *is* comes from
the evaluator; this only says where to point.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from .signature import bind

if TYPE_CHECKING:
    from .evaluate import Env
    from .program import Program

MAX_HOPS = 12


@dataclass(slots=True)
class Origin:
    expr: cst.BaseExpression  # where the value was built
    frame: Env | None  # the frame ``expr`` is evaluated in
    # the calls the value was passed through, outermost last: (call, parameter name, function name)
    hops: list[tuple[cst.Call, str, str]] = field(default_factory=list)
    outer: cst.BaseExpression | None = None  # the outermost argument expression it was passed as


def origin(p: Program, expr: cst.BaseExpression, frame: Env | None) -> Origin:
    out = Origin(expr, frame, [], expr)
    for _ in range(MAX_HOPS):
        e = out.expr
        if type(e) is not cst.Name:
            return out
        b = p.binding(e)
        if b is None:
            return out
        if b.kind in ("assign", "walrus") and b.value is not None and not b.unpack:
            out.expr = b.value
            continue
        if b.kind != "param":
            return out
        f = out.frame
        while f is not None and f.function is not b.scope.node:
            f = f.parent
        if f is None or type(f.site) is not cst.Call or f.site not in p.parents:
            return out  # no call, or a call of another module's file (an importer's): the parameter is where to point
        arg = _argument_for(p, f, b.name)
        if arg is None:
            return out
        fn = f.function
        name = fn.name.value if isinstance(fn, cst.FunctionDef) else "<lambda>"
        out.hops.append((f.site, b.name, name))
        out.expr, out.frame, out.outer = arg, f.caller, arg
    return out


def _argument_for(p: Program, frame: Env, param: str) -> cst.BaseExpression | None:
    """The expression the call that made ``frame`` passes for ``param``."""
    call = frame.site
    assert isinstance(call, cst.Call)
    if any(a.star for a in call.args):
        return None
    from .abstract import Function

    ev = p.evaluator
    sig = ev.signature(Function(frame.function, frame.parent, p))
    if sig is None:
        return None
    offset = 0
    callee = ev.value(call.func, frame.caller)
    if type(callee).__name__ == "Bound":
        offset = 1
    args = [(i, a.keyword.value if a.keyword is not None else None, "") for i, a in enumerate(call.args)]
    if offset:
        args = [(-1, None, ""), *args]
    b = bind(sig, args)  # positions stand in for the values
    k = b.arguments.get(param)
    if not isinstance(k, int) or k < 0:
        return None
    return call.args[k].value
