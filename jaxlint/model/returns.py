"""What a function returns: the ``return`` statements of its own body, and whether every
path through it returns.

Why: any rule that asks what a function gives back (a grad target's loss and aux, a
custom_vjp ``fwd``'s pair) needs the ``return`` statements of the def itself, not those
of the defs and classes nested in it, and must know when they do not say what a call
gives: a generator or a coroutine returns an iterator or an awaitable. What the returned
expressions mean (a scalar, a tuple of how many) is the rule's question.
"""

from __future__ import annotations

import libcst as cst

from .flow import terminates

_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def return_statements(ctx, func: cst.FunctionDef) -> list[cst.Return] | None:
    """The ``return`` statements of ``func`` in text order, not those of nested defs and
    classes; None for a generator or an ``async def`` (a call does not give their value)."""
    if func.asynchronous:
        return None
    found: list[cst.Return] = []
    for n in ctx.descendants(func.body, _SCOPES):
        if isinstance(n, cst.Return):
            found.append(n)
        elif isinstance(n, (cst.Yield, cst.Await)):
            return None
    return found


def always_returns(func: cst.FunctionDef | cst.Lambda) -> bool:
    """Does every path through ``func`` end in ``return`` or ``raise``? (A lambda always
    returns; a ``with`` block at the end is on the path.)"""
    return isinstance(func, cst.Lambda) or terminates(func.body, enter_with=True)
