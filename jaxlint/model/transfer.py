"""Transforms as transfer functions on abstract values.

``jax.vmap(f, in_axes=...)`` evaluates to a ``Transformed`` value (its options bound to
the transform's real signature, jax 0.10.2); calling that value applies the transform's
transfer function: what the call gives and which problems it certainly raises.

- ``jit``/``pjit``/``checkpoint``/``remat``/``named_call``/``custom_vjp``/``custom_jvp``:
  the wrapped function's result for the same arguments.
- ``vmap``/``pmap``: ``jaxlint.model.maps`` (slicing, sizes, the body on the slices,
  the batch axis on the result).
- ``grad``/``value_and_grad``/``jacfwd``/``jacrev``/``hessian``: the function is evaluated
  on the arguments; the gradient has the structure and shapes of the differentiated
  arguments (``argnums``), ``has_aux`` splits the output.
- ``shard_map``/``smap``: the function runs on each device's block of its arguments.
- ``vjp``/``jvp``/``linearize``/``eval_shape``/``check_grads`` run their function now.

Which transform does what is ``transforms.TABLE`` (``gives``, ``primals``); the
signatures are the catalogue's, read from jax 0.10.2 (``catalogue/signatures.py``). The
``lax`` control-flow calls are catalogue entries (``catalogue/control.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN

from .abstract import (
    FLOAT,
    Array,
    Const,
    List,
    Shape,
    Transformed,
    Tuple,
    as_array,
)
from .catalogue.build import signature as _signature
from .jitted import TRACES_ARRAYS, traced_arguments
from .signature import Argument, Signature, bind
from .transforms import TABLE, named

if TYPE_CHECKING:
    from .evaluate import Env, Evaluator

_ZERO = Const(0)
_FALSE = Const(False)

PASS_THROUGH = named(gives="value")  # the wrapped function's value, for the same arguments
GRADS = named(gives="grad")
JACOBIANS = named(gives="jacobian")
JAXPRS = named(gives="jaxpr")
MAPS = named(gives="map")
BLOCKS = named(gives="blocks")
TRANSFORMS = named("trace") | named("map")
RUNS = named("call")
# a call of the transformed function calls its function with the call's own arguments and
# values (``grad``'s tracers carry the primal values) ...
SAME_VALUES = PASS_THROUGH | GRADS | JACOBIANS
# ... with the same arguments, maybe as abstract values (``make_jaxpr``) ...
SAME_ARGUMENTS = SAME_VALUES | JAXPRS
# ... or with as many (shard_map: in blocks)
CALLS_TARGET = SAME_ARGUMENTS | BLOCKS


def signature(q: str) -> Signature:
    """The signature jax 0.10.2 declares for a transform or a call of ``transforms.TABLE``."""
    return _signature(TABLE[q].same_as or q)


class Transfer:
    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev

    # making ----------------------------------------------------------------------------
    @staticmethod
    def is_transform(q: str) -> bool:
        return q in TRANSFORMS

    @staticmethod
    def runs_functions(q: str) -> bool:
        return q in RUNS

    def make(self, q: str, args: list[Argument], node: cst.CSTNode | None) -> Any:
        """``jax.vmap(f, in_axes=...)``: the Transformed value (a factory without ``f``
        when none is given: ``jax.jit(static_argnums=0)`` as a decorator)."""
        from .evaluate import _NO_TARGET

        sig = signature(q)
        b = bind(sig, args)
        if b.error is not None:
            return UNKNOWN
        fun = sig.params[0].name  # ``fun``, or ``f`` (shard_map)
        target = b.arguments.get(fun, _NO_TARGET)
        options = tuple((k, v) for k, v in b.arguments.items() if k != fun)
        return Transformed(q, target, options, node, b.partial)

    # calling ---------------------------------------------------------------------------
    def call(self, t: Transformed, args: list[Argument], env: Env | None, node: cst.CSTNode | None) -> Any:
        ev = self.ev
        from .evaluate import _NO_TARGET

        if t.target is _NO_TARGET:
            if len(args) == 1 and args[0][1] is None and not args[0][2]:
                return Transformed(t.api, args[0][0], t.options, t.node, t.unknown_options)
            return UNKNOWN
        if t.api in PASS_THROUGH:
            if t.api in TRACES_ARRAYS:
                args = traced_arguments(args)
            return ev.call(t.target, args, env, node)
        if t.api in MAPS:
            if ev.world.probing:  # ``Evaluator.probe``: not run, and what met it not memoised
                ev._budget.exhausted += 1
                return UNKNOWN
            from .maps import call_map

            return call_map(ev, t, args, env, node)
        if t.api in GRADS:
            return self._grad(t, args, env, node)
        if t.api in JACOBIANS or t.api in JAXPRS:
            ev.call(t.target, args, env, node)  # its problems still happen
            return UNKNOWN
        if t.api in BLOCKS:
            # the function runs on each device's block: as many arguments, sizes not known
            ev.call(t.target, [(_blocks(v), k, s) for v, k, s in args], env, node)
            return UNKNOWN
        return UNKNOWN

    def _grad(self, t: Transformed, args: list[Argument], env: Env | None, node: cst.CSTNode | None) -> Any:
        ev = self.ev
        out = ev.call(t.target, args, env, node)
        has_aux = t.option("has_aux", _FALSE)
        argnums = t.option("argnums", _ZERO)
        positional = [v for v, k, s in args if k is None and not s]
        if any(s for _, _, s in args):
            grads: Any = UNKNOWN
        elif type(argnums) is Const and isinstance(argnums.value, int):
            i = argnums.value
            grads = _cotangent(positional[i]) if -len(positional) <= i < len(positional) else UNKNOWN
        elif type(argnums) in (Tuple, List) and all(
            type(a) is Const and isinstance(a.value, int) for a in argnums.items
        ):
            picked = [
                positional[a.value] if -len(positional) <= a.value < len(positional) else UNKNOWN for a in argnums.items
            ]
            grads = Tuple(tuple(_cotangent(x) for x in picked))
        else:
            grads = UNKNOWN
        value, aux = out, UNKNOWN
        if type(has_aux) is Const and has_aux.value is True:
            if type(out) is Tuple and len(out.items) == 2:
                value, aux = out.items
            else:
                value = UNKNOWN
        elif type(has_aux) is not Const:
            value = UNKNOWN
        if t.api == "jax.grad":
            return Tuple((grads, aux)) if type(has_aux) is Const and has_aux.value is True else grads
        inner = Tuple((value, aux)) if type(has_aux) is Const and has_aux.value is True else value
        return Tuple((inner, grads))

    # calls that run a function now ---------------------------------------------------
    def run_external(self, q: str, args: list[Argument], env: Env | None, node: cst.CSTNode | None) -> Any:
        ev = self.ev
        if any(s for _, _, s in args):
            return UNKNOWN
        sig = signature(q)
        b = bind(sig, args)
        if b.error is not None:
            return UNKNOWN

        def arg(name: str) -> Any:
            return b.value(sig, name)

        def call(fn: Any, *xs: Any) -> Any:
            return ev.call(fn, [(x, None, "") for x in xs], env, node)

        if q in ("jax.vjp", "jax.linearize", "jax.jvp") and isinstance(node, cst.Call):
            made = ev.p._primal_call(node)  # ``f(x, y)`` as the primals call it, for messages
            if made is not None:
                node = made
        if q in ("jax.vjp", "jax.linearize"):
            primals = list(b.arguments.get("primals", ()))
            out = call(arg("fun"), *primals)
            has_aux = arg("has_aux")
            if type(has_aux) is Const and has_aux.value is True:
                if type(out) is Tuple and len(out.items) == 2:
                    return Tuple((out.items[0], UNKNOWN, out.items[1]))
                return UNKNOWN
            return Tuple((out, UNKNOWN))
        if q == "jax.jvp":
            primals = arg("primals")
            if type(primals) not in (Tuple, List):
                return UNKNOWN
            out = call(arg("fun"), *primals.items)
            return Tuple((out, UNKNOWN))
        if q in ("jax.test_util.check_grads", "jax._src.test_util.check_grads"):
            primals = arg("args")
            if type(primals) not in (Tuple, List):
                return UNKNOWN
            call(arg("f"), *primals.items)
            return Const(None)
        if q == "jax.eval_shape":
            return call(arg("fun"), *b.arguments.get("args", ()))
        return UNKNOWN


def _blocks(v: Any) -> Any:
    """What ``shard_map`` gives its function for an argument: a block of each array, of
    the same rank but sizes not known; other values as they are."""
    from .abstract import Dict, Struct

    t = type(v)
    if t is Array:
        rank = v.shape.rank if v.shape is not None else None
        return Array(Shape((None,) * rank) if rank is not None else None, v.dtype)
    if t is Tuple or t is List:
        return t(tuple(_blocks(x) for x in v.items))
    if t is Dict:
        return Dict(tuple((k, _blocks(x)) for k, x in v.items))
    if t is Struct and v.kind == "pytree":
        return Struct(v.cls, tuple((k, x if k in v.static else _blocks(x)) for k, x in v.fields), v.kind, v.static)
    return v


def _cotangent(v: Any) -> Any:
    """The gradient's value for a differentiated argument: the same structure, float
    arrays of the same shapes."""
    from .abstract import children

    kids = children(v)
    if kids is not None:
        from .abstract import Dict, Struct

        if type(v) is Tuple:
            return Tuple(tuple(_cotangent(x) for _, x in kids))
        if type(v) is List:
            return List(tuple(_cotangent(x) for _, x in kids))
        if type(v) is Dict:
            return Dict(tuple((k, _cotangent(x)) for k, x in v.items))
        if type(v) is Struct:
            return Struct(
                v.cls, tuple((k, _cotangent(x) if k not in v.static else x) for k, x in v.fields), v.kind, v.static
            )
        return UNKNOWN
    a = as_array(v)
    if a is None:
        return UNKNOWN
    return Array(a.shape, a.dtype if a.dtype is not None and a.dtype.kind in ("float", "complex") else FLOAT)


__all__ = [
    "CALLS_TARGET",
    "GRADS",
    "JACOBIANS",
    "MAPS",
    "PASS_THROUGH",
    "RUNS",
    "SAME_ARGUMENTS",
    "SAME_VALUES",
    "Transfer",
    "signature",
]
