"""``signature(callable)``: one record of a callable's parameters, whatever it is.

A def or lambda reads its parameter list (defaults evaluated where the def is); a
method bound to its receiver drops its first parameter; ``partial`` drops what it binds
positionally and gives keyword-bound parameters their value as default (keyword-only
after, as ``inspect`` shows them); a transform keeps the signature of what it wraps
(``jit``, ``vmap``, ``pmap``, ``grad`` and relatives, ``checkpoint``, ``custom_vjp``); a
catalogue function has the signature JAX declares; a ``functools.wraps`` wrapper has the
signature of what it wraps (``inspect`` follows ``__wrapped__``); a class has its ``__init__``'s without
``self`` (a dataclass: its fields).

``unwrapped(callable)``: the def or lambda it finally calls, what ``partial`` binds on
the way, and whether that def's return is the callable's value (a grad target's output).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN

from .abstract import Bound, Class, External, Function, Partial, Transformed, Wraps
from .catalogue import lookup
from .signature import REQUIRED, Param, ParamKind, Signature
from .transforms import named

if TYPE_CHECKING:
    from .evaluate import Evaluator

# transforms whose result takes the arguments of the function they wrap
_SAME_SIGNATURE = named("trace") | named("map")  # the transformed function takes what it takes
_SAME_VALUE = named(gives="value")  # calling it gives the wrapped function's value


def parameters(ev: Evaluator, node: cst.FunctionDef | cst.Lambda, env: Any) -> Signature:
    """The signature a def or lambda declares (defaults evaluated in ``env``, the frame
    the def is evaluated in)."""
    ps = node.params
    out: list[Param] = []

    def add(p: cst.Param, kind: ParamKind) -> None:
        default = REQUIRED if p.default is None else ev.value(p.default, env)
        if default is UNKNOWN and p.default is not None:
            default = UNKNOWN
        ann = p.annotation.annotation if p.annotation is not None else None
        out.append(Param(p.name.value, kind, default, ann))

    for p in ps.posonly_params:
        add(p, "posonly")
    for p in ps.params:
        add(p, "pos")
    if isinstance(ps.star_arg, cst.Param):
        out.append(Param(ps.star_arg.name.value, "var"))
    for p in ps.kwonly_params:
        add(p, "kwonly")
    if ps.star_kwarg is not None:
        out.append(Param(ps.star_kwarg.name.value, "varkw"))
    return Signature(tuple(out))


def signature_of(ev: Evaluator, fn: Any, depth: int = 0) -> Signature | None:
    """The signature of a callable value, or None when not known."""
    if depth > 12:
        return None
    t = type(fn)
    if t is Function:
        return parameters(ev, fn.node, fn.env)
    if t is Bound:
        inner = signature_of(ev, fn.func, depth + 1)
        return inner.drop_positional(1) if inner is not None else None
    if t is Partial:
        if fn.star:
            return None
        inner = signature_of(ev, fn.func, depth + 1)
        if inner is None:
            return None
        dropped = inner.drop_positional(len(fn.args))
        return dropped.with_defaults(dict(fn.keywords)) if dropped is not None else None
    if t is Wraps:
        return signature_of(ev, fn.wrapped, depth + 1)
    if t is Transformed:
        if fn.api in _SAME_SIGNATURE:
            return signature_of(ev, fn.target, depth + 1)
        return None
    if t is External:
        op = lookup(fn.qualified)
        return op.signature if op is not None else None
    if t is Class:
        from .classes import init_signature

        return init_signature(ev, fn)
    return None


@dataclass(frozen=True, slots=True)
class Unwrapped:
    """The def or lambda a callable finally calls, as a transform of it sees it."""

    leaf: Function | None  # None: something other than a def or lambda is called
    bound: tuple[str, ...]  # the parameters ``functools.partial`` binds on the way
    same_value: bool  # only partial, bound methods and value-keeping transforms between:
    # the leaf's return is the callable's value


def unwrapped(ev: Evaluator, fn: Any) -> Unwrapped:
    """Follow ``partial``, a bound method's function, transforms and ``functools.wraps``
    wrappers to the def or lambda called (a ``partial`` with ``*args`` is not followed)."""
    bound: list[str] = []
    same = True
    for _ in range(16):
        t = type(fn)
        if t is Partial and not fn.star:
            inner = signature_of(ev, fn.func)
            names = [p.name for p in inner.positional] if inner is not None else []
            bound += names[: len(fn.args)] + [k for k, _ in fn.keywords if k in names[len(fn.args) :]]
            fn = fn.func
        elif t is Bound:
            fn = fn.func
        elif t is Transformed:
            same = same and fn.api in _SAME_VALUE
            fn = fn.target
        elif t is Wraps:
            # a ``functools.wraps`` wrapper: its signature is the wrapped def's (``inspect``
            # follows ``__wrapped__``, and so does JAX resolving ``argnums``); what it returns
            # is the wrapper's, not known to be the def's
            same = False
            fn = fn.wrapped
        else:
            break
    return Unwrapped(fn if type(fn) is Function else None, tuple(bound), same)
