"""What a jit-like wrapper's function receives: the call's arguments with every array
leaf a tracer.

``jax.jit`` (and ``pjit``, ``checkpoint``, ``remat``: ``transforms.TABLE``'s value-giving
entries that trace) traces its arguments; one it keeps static must be hashable, which an
array is not (``ValueError: Non-hashable static arguments``), so every array leaf it is
given is a tracer, whatever its static options say. A Python number it traces too unless
static; the model keeps Python numbers as they are, which says less than JAX, never
more. equinox's ``filter_jit`` (``stubs.ARRAY_JITS``) traces exactly the array leaves: the
wrapper its stub returns gets them traced here, as its stub's docstring says.

``Evaluator.call`` (a call of the wrapped function) and ``contexts.called_function`` (the
frame a call makes for the def it reaches) both read this, so a value inside a jitted
function is a tracer however the model got there: ``jax.vmap(f)(W, x)`` inside
``@eqx.filter_jit def step(W, x)`` slices a ``W`` that was a tracer already.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from .abstract import Function, Transformed, Wraps, with_trace
from .signature import Argument
from .stubs import ARRAY_JITS
from .transforms import named

if TYPE_CHECKING:
    from .evaluate import World

TRACES_ARRAYS = named(gives="value", abstract=True)
_NAMES = frozenset(q.rsplit(".", 1)[-1] for q in ARRAY_JITS)  # a cheap test before the stubs are read


def traced_arguments(args: list[Argument]) -> list[Argument]:
    """``args`` as a jit-like wrapper's function receives them."""
    return [(with_trace(v), k, s) for v, k, s in args]


def traces_arrays(world: World, callee: Any) -> bool:
    """Is ``callee`` a jit-like wrapper, whose function gets the call's array leaves traced:
    a ``jax.jit``-like transform, or the wrapper a library's array jit returns?"""
    if type(callee) is Transformed:
        return callee.api in TRACES_ARRAYS
    if type(callee) is Wraps:
        callee = callee.func
    if type(callee) is not Function or callee.env is None:
        return False
    maker = callee.env.function
    return type(maker) is cst.FunctionDef and maker.name.value in _NAMES and maker in array_jit_defs(world)


def array_jit_defs(world: World) -> frozenset[cst.CSTNode]:
    """The defs of the libraries' array jits (``stubs.ARRAY_JITS``), as the stubs define them."""
    if world.array_jit_defs is None:
        found = [world.resolve(q) for q in ARRAY_JITS]
        world.array_jit_defs = frozenset(f.node for f in found if type(f) is Function)
    return world.array_jit_defs
