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
- the ``lax`` control-flow calls run their function arguments now: ``scan`` (carry, and
  the stacked outputs), ``fori_loop``/``while_loop`` (the carry), ``cond``/``switch``
  (the join of the branches), ``map`` (the stacked outputs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN

from . import dims
from .abstract import (
    FLOAT,
    INT,
    Array,
    Const,
    List,
    Opaque,
    Seq,
    Shape,
    Transformed,
    Tuple,
    as_array,
    as_dim,
    join,
    join_all,
    leaves,
)
from .signature import Argument, Signature, bind

if TYPE_CHECKING:
    from .evaluate import Env, Evaluator

_NONE = Const(None)
_ZERO = Const(0)
_FALSE = Const(False)
_EMPTY = Tuple(())

# The signatures of the transforms, as jax 0.10.2 declares them (``fun`` first).
SIGNATURES: dict[str, Signature] = {
    "jax.vmap": Signature.of(
        "fun",
        "in_axes",
        "out_axes",
        "axis_name",
        "axis_size",
        "spmd_axis_name",
        "sum_match",
        in_axes=_ZERO,
        out_axes=_ZERO,
        axis_name=_NONE,
        axis_size=_NONE,
        spmd_axis_name=_NONE,
        sum_match=_FALSE,
    ),
    "jax.pmap": Signature.of(
        "fun",
        "axis_name",
        "*",
        "in_axes",
        "out_axes",
        "static_broadcasted_argnums",
        "devices",
        "backend",
        "axis_size",
        "donate_argnums",
        axis_name=_NONE,
        in_axes=_ZERO,
        out_axes=_ZERO,
        static_broadcasted_argnums=_EMPTY,
        devices=_NONE,
        backend=_NONE,
        axis_size=_NONE,
        donate_argnums=_EMPTY,
    ),
    "jax.jit": Signature.of(
        "fun",
        "/",
        "*",
        "in_shardings",
        "out_shardings",
        "static_argnums",
        "static_argnames",
        "donate_argnums",
        "donate_argnames",
        "keep_unused",
        "device",
        "backend",
        "inline",
        "compiler_options",
        fun=UNKNOWN,
        in_shardings=UNKNOWN,
        out_shardings=UNKNOWN,
        static_argnums=_NONE,
        static_argnames=_NONE,
        donate_argnums=_NONE,
        donate_argnames=_NONE,
        keep_unused=_FALSE,
        device=_NONE,
        backend=_NONE,
        inline=_FALSE,
        compiler_options=_NONE,
    ),
    "jax.grad": Signature.of(
        "fun",
        "argnums",
        "has_aux",
        "holomorphic",
        "allow_int",
        "reduce_axes",
        argnums=_ZERO,
        has_aux=_FALSE,
        holomorphic=_FALSE,
        allow_int=_FALSE,
        reduce_axes=_EMPTY,
    ),
    "jax.jacfwd": Signature.of(
        "fun", "argnums", "has_aux", "holomorphic", argnums=_ZERO, has_aux=_FALSE, holomorphic=_FALSE
    ),
    "jax.jacrev": Signature.of(
        "fun",
        "argnums",
        "has_aux",
        "holomorphic",
        "allow_int",
        argnums=_ZERO,
        has_aux=_FALSE,
        holomorphic=_FALSE,
        allow_int=_FALSE,
    ),
    "jax.checkpoint": Signature.of(
        "fun",
        "*",
        "prevent_cse",
        "policy",
        "static_argnums",
        "static_argnames",
        "concrete",
        prevent_cse=Const(True),
        policy=_NONE,
        static_argnums=_EMPTY,
        static_argnames=_EMPTY,
        concrete=UNKNOWN,
    ),
    "jax.named_call": Signature.of("fun", "*", "name", name=_NONE),
    "jax.custom_vjp": Signature.of(
        "fun", "nondiff_argnums", "nondiff_argnames", nondiff_argnums=_EMPTY, nondiff_argnames=_EMPTY
    ),
    "jax.shard_map": Signature.of(
        "fun",
        "/",
        "*",
        "out_specs",
        "in_specs",
        "mesh",
        "axis_names",
        "check_vma",
        fun=UNKNOWN,
        in_specs=UNKNOWN,
        mesh=_NONE,
        axis_names=UNKNOWN,
        check_vma=Const(True),
    ),
    "jax.smap": Signature.of("fun", "/", "*", "in_axes", "out_axes", "axis_name", fun=UNKNOWN, in_axes=UNKNOWN),
}
SIGNATURES["jax.value_and_grad"] = SIGNATURES["jax.grad"]
SIGNATURES["jax.hessian"] = SIGNATURES["jax.jacfwd"]
SIGNATURES["jax.jacobian"] = SIGNATURES["jax.jacrev"]
SIGNATURES["jax.remat"] = SIGNATURES["jax.checkpoint"]
SIGNATURES["jax.ad_checkpoint.checkpoint"] = SIGNATURES["jax.checkpoint"]
SIGNATURES["jax.custom_jvp"] = SIGNATURES["jax.custom_vjp"]
SIGNATURES["jax.experimental.pjit.pjit"] = SIGNATURES["jax.jit"]

PASS_THROUGH = frozenset(
    {
        "jax.jit",
        "jax.experimental.pjit.pjit",
        "jax.checkpoint",
        "jax.remat",
        "jax.ad_checkpoint.checkpoint",
        "jax.named_call",
        "jax.custom_vjp",
        "jax.custom_jvp",
    }
)
GRADS = frozenset({"jax.grad", "jax.value_and_grad"})
JACOBIANS = frozenset({"jax.jacfwd", "jax.jacrev", "jax.jacobian", "jax.hessian"})
MAPS = frozenset({"jax.vmap", "jax.pmap"})

# lax calls that run their function arguments now
RUNS = frozenset(
    {
        "jax.vjp",
        "jax.jvp",
        "jax.linearize",
        "jax.eval_shape",
        "jax.test_util.check_grads",
        "jax._src.test_util.check_grads",
        "jax.lax.scan",
        "jax.lax.fori_loop",
        "jax.lax.while_loop",
        "jax.lax.cond",
        "jax.lax.switch",
        "jax.lax.map",
    }
)


class Transfer:
    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev

    # making ----------------------------------------------------------------------------
    @staticmethod
    def is_transform(q: str) -> bool:
        return q in SIGNATURES

    @staticmethod
    def runs_functions(q: str) -> bool:
        return q in RUNS

    def make(self, q: str, args: list[Argument], node: cst.CSTNode | None) -> Any:
        """``jax.vmap(f, in_axes=...)``: the Transformed value (a factory without ``f``
        when none is given: ``jax.jit(static_argnums=0)`` as a decorator)."""
        from .evaluate import _NO_TARGET

        sig = SIGNATURES[q]
        b = bind(sig, args)
        if b.error is not None:
            return UNKNOWN
        target = b.arguments.get("fun", _NO_TARGET)
        options = tuple((k, v) for k, v in b.arguments.items() if k != "fun")
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
            return ev.call(t.target, args, env, node)
        if t.api in MAPS:
            from .maps import call_map

            return call_map(ev, t, args, env, node)
        if t.api in GRADS:
            return self._grad(t, args, env, node)
        if t.api in JACOBIANS:
            ev.call(t.target, args, env, node)  # its problems still happen
            return UNKNOWN
        if t.api in ("jax.shard_map", "jax.smap"):
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

    # lax control flow ------------------------------------------------------------------
    def run_external(self, q: str, args: list[Argument], env: Env | None, node: cst.CSTNode | None) -> Any:
        ev = self.ev
        if any(s for _, _, s in args):
            return UNKNOWN
        sig = _RUN_SIGNATURES[_RUN_SIGNATURES_ALIASES.get(q, q)]
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
        if q == "jax.lax.fori_loop":
            init = arg("init_val")
            out = call(arg("body_fun"), _scalar_int(), init)
            return join(init, out)
        if q == "jax.lax.while_loop":
            init = arg("init_val")
            call(arg("cond_fun"), init)
            return join(init, call(arg("body_fun"), init))
        if q == "jax.lax.cond":
            ops = list(b.arguments.get("operands", ()))
            return join(call(arg("true_fun"), *ops), call(arg("false_fun"), *ops))
        if q == "jax.lax.switch":
            branches = arg("branches")
            ops = list(b.arguments.get("operands", ()))
            if type(branches) not in (Tuple, List):
                return UNKNOWN
            return join_all([call(f, *ops) for f in branches.items])
        if q == "jax.lax.map":
            xs = arg("xs")
            n, sliced = _slice_leading(xs)
            return _stack(call(arg("f"), sliced), n)
        if q == "jax.lax.scan":
            init, xs, length = arg("init"), arg("xs"), arg("length")
            n, sliced = _slice_leading(xs) if xs != _NONE else (as_dim(length), _NONE)
            out = call(arg("f"), init, sliced)
            if type(out) is not Tuple or len(out.items) != 2:
                return UNKNOWN
            carry, y = out.items
            return Tuple((join(init, carry), _stack(y, n)))
        return UNKNOWN


_RUN_SIGNATURES = {
    "jax.vjp": Signature.of("fun", "*primals", "has_aux", "reduce_axes", has_aux=_FALSE, reduce_axes=_EMPTY),
    "jax.jvp": Signature.of("fun", "primals", "tangents", "has_aux", has_aux=_FALSE),
    "jax.linearize": Signature.of("fun", "*primals", "has_aux", has_aux=_FALSE),
    "jax.eval_shape": Signature.of("fun", "*args", "**kwargs"),
    "jax.test_util.check_grads": Signature.of(
        "f",
        "args",
        "order",
        "modes",
        "atol",
        "rtol",
        "eps",
        modes=Tuple((Const("fwd"), Const("rev"))),
        atol=_NONE,
        rtol=_NONE,
        eps=_NONE,
    ),
    "jax.lax.scan": Signature.of(
        "f",
        "init",
        "xs",
        "length",
        "reverse",
        "unroll",
        "_split_transpose",
        xs=_NONE,
        length=_NONE,
        reverse=_FALSE,
        unroll=Const(1),
        _split_transpose=_FALSE,
    ),
    "jax.lax.fori_loop": Signature.of("lower", "upper", "body_fun", "init_val", "*", "unroll", unroll=_NONE),
    "jax.lax.while_loop": Signature.of("cond_fun", "body_fun", "init_val"),
    "jax.lax.cond": Signature.of("pred", "true_fun", "false_fun", "*operands", "operand", operand=UNKNOWN),
    "jax.lax.switch": Signature.of("index", "branches", "*operands", "operand", operand=UNKNOWN),
    "jax.lax.map": Signature.of("f", "xs", "*", "batch_size", batch_size=_NONE),
}


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


_RUN_SIGNATURES_ALIASES = {"jax._src.test_util.check_grads": "jax.test_util.check_grads"}


def _scalar_int() -> Any:
    return Array(Shape(()), INT)


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


def _slice_leading(xs: Any) -> tuple[dims.Dim, Any]:
    """(the common leading size, the value of one slice) of a pytree of arrays."""
    sizes: list[dims.Dim] = []

    def cut(v: Any) -> Any:
        from .abstract import Dict, Struct, children

        kids = children(v)
        if kids is not None:
            if type(v) is Tuple:
                return Tuple(tuple(cut(x) for _, x in kids))
            if type(v) is List:
                return List(tuple(cut(x) for _, x in kids))
            if type(v) is Dict:
                return Dict(tuple((k, cut(x)) for k, x in v.items))
            if type(v) is Struct:
                return Struct(
                    v.cls, tuple((k, cut(x) if k not in v.static else x) for k, x in v.fields), v.kind, v.static
                )
            return UNKNOWN
        if type(v) is Array and v.shape is not None and v.shape.dims:
            sizes.append(v.shape.dims[0])
            return Array(Shape(v.shape.dims[1:], v.shape.rest), v.dtype, v.host)
        if type(v) is Array:
            return Array(None, v.dtype, v.host)
        return UNKNOWN

    sliced = cut(xs)
    n = sizes[0] if sizes and all(dims.equal(s, sizes[0]) for s in sizes) else None
    return n, sliced


def _stack(v: Any, n: dims.Dim) -> Any:
    """A pytree with a new leading axis of size ``n`` on every array leaf."""
    from .abstract import Dict, Struct, children

    kids = children(v)
    if kids is not None:
        if type(v) is Tuple:
            return Tuple(tuple(_stack(x, n) for _, x in kids))
        if type(v) is List:
            return List(tuple(_stack(x, n) for _, x in kids))
        if type(v) is Dict:
            return Dict(tuple((k, _stack(x, n)) for k, x in v.items))
        if type(v) is Struct:
            return Struct(
                v.cls, tuple((k, _stack(x, n) if k not in v.static else x) for k, x in v.fields), v.kind, v.static
            )
        return UNKNOWN
    a = as_array(v)
    if a is None:
        return UNKNOWN
    if a.shape is None:
        return Array(Shape((n,), True), a.dtype, a.host)
    return Array(Shape((n, *a.shape.dims), a.shape.rest), a.dtype, a.host)


__all__ = ["MAPS", "SIGNATURES", "Opaque", "Seq", "Transfer", "leaves"]
