"""The JAX transforms and function-running calls the model knows, in one table.

Each entry says what the model's readers need of it, so that adding a transform is one
edit here: the facts (``facts.TRANSFORMS``: applications recorded), the traced functions
(``traced.py``: which functions see abstract tracers, which options make arguments
static, where a ``lax`` call's function arguments are) and the call paths (``calls.py``:
which layer a path passes, ``axes.MAPS``: what binds axis names) all read it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Api:
    # "map": traces its function and binds axis names (pmap, vmap, shard_map, smap,
    # make_jaxpr's ``axis_env``);
    # "trace": wraps its function in a transformed one (jit, grad, checkpoint, custom_vjp);
    # "body": a lax call that runs its function arguments now, traced (scan, cond, ...);
    # "call": runs its function argument now, under a transform (vjp, jvp, linearize);
    # "scope": a decorator that leaves the function as it is (named_scope);
    # "removed": recorded as an application only (no path layer, traces nothing known)
    kind: str
    # the function's arguments are abstract tracers: Python control flow on them fails
    # (jit, checkpoint, the maps, lax bodies; not grad, which keeps concrete values)
    abstract: bool = False
    label: str = ""  # the name messages give it ("jax.jit", "pjit", "lax.scan")
    static: tuple[str, ...] = ()  # options that name arguments it keeps concrete
    # a lax body call: (position, keyword) of each function argument it traces
    bodies: tuple[tuple[int, str], ...] = ()
    # a "body" call that runs its function arguments once per iteration of a loop (scan,
    # fori_loop, while_loop, map), not once (cond, switch)
    repeats: bool = False
    in_axes: bool = False  # a map whose ``in_axes`` entry ``None`` passes an argument as it is
    # what calling the transformed function gives (``transfer.py``): "value": the
    # function's own value, called with the same arguments (jit, checkpoint, custom_vjp
    # change how it runs, not what); "jaxpr": the jaxpr of the function traced on the
    # arguments' abstract values (make_jaxpr: it runs the function on them, its value is
    # not the function's); "grad": its gradients (value_and_grad: with the
    # value); "jacobian"; "map": the map's transfer function (``maps.py``); "blocks": the
    # function on each device's block of every argument (shard_map, smap)
    gives: str = ""
    # a "call": how it takes the function's arguments: "spread" (``vjp(f, *primals)``) or
    # "tuple" (``jvp(f, primals, tangents)``)
    primals: str = ""
    # a spelling jax 0.10.2 does not have (removed, or private): the entry whose
    # signature (catalogue/signatures.py) it has
    same_as: str = ""
    # a function with rules of its own: "vjp" (``f.defvjp(fwd, bwd)``: custom_vjp) or
    # "jvp" (``f.defjvp(jvp)``, ``f.defjvps(...)``: custom_jvp)
    derivatives: str = ""
    # it stages its function out to a jaxpr: while the function runs, every JAX operation
    # gives a tracer, even on constants (``jnp.sum(W) > 0`` with a module-level ``W``
    # raises under ``jit``; jax 0.10.2, tests/model/test_staging.py). Not the maps that
    # only batch (``vmap``), the derivatives (``grad``, ``jvp``), eager ``shard_map``,
    # ``named_call`` or ``associative_scan``: there an operation on constants is concrete
    stages: bool = False


_JIT_STATIC = ("static_argnums", "static_argnames")

TABLE: dict[str, Api] = {
    "jax.jit": Api("trace", True, "jax.jit", _JIT_STATIC, gives="value", stages=True),
    "jax.experimental.pjit.pjit": Api("trace", True, "pjit", _JIT_STATIC, gives="value", stages=True),
    "jax.vmap": Api("map", True, "jax.vmap", in_axes=True, gives="map"),
    "jax.pmap": Api("map", True, "jax.pmap", ("static_broadcasted_argnums",), in_axes=True, gives="map", stages=True),
    # called eagerly, shard_map runs its function on each device's concrete block (Python
    # control flow works, jax 0.10.2); only a trace around it (jit) makes them tracers
    "jax.shard_map": Api("map", False, "jax.shard_map", gives="blocks"),
    "jax.smap": Api("map", True, "jax.smap", gives="blocks"),
    # its ``axis_env`` binds axis names by hand: ``[("i", 4)]``
    "jax.make_jaxpr": Api("map", True, "jax.make_jaxpr", ("static_argnums",), gives="jaxpr", stages=True),
    "jax.grad": Api("trace", gives="grad"),
    "jax.value_and_grad": Api("trace", gives="grad"),
    "jax.jacrev": Api("trace", gives="jacobian"),
    "jax.jacfwd": Api("trace", gives="jacobian"),
    "jax.jacobian": Api("trace", gives="jacobian"),
    "jax.hessian": Api("trace", gives="jacobian"),
    "jax.checkpoint": Api("trace", True, "jax.checkpoint", ("static_argnums",), gives="value", stages=True),
    "jax.remat": Api("trace", True, "jax.remat", ("static_argnums",), gives="value", stages=True),
    "jax.ad_checkpoint.checkpoint": Api(
        "trace", True, "jax.checkpoint", ("static_argnums",), gives="value", same_as="jax.checkpoint", stages=True
    ),
    "jax.named_call": Api("trace", gives="value"),
    "jax.custom_vjp": Api("trace", gives="value", derivatives="vjp"),
    "jax.custom_jvp": Api("trace", gives="value", derivatives="jvp"),
    "jax.lax.scan": Api("body", True, "lax.scan", bodies=((0, "f"),), repeats=True, stages=True),
    "jax.lax.fori_loop": Api("body", True, "lax.fori_loop", bodies=((2, "body_fun"),), repeats=True, stages=True),
    "jax.lax.while_loop": Api(
        "body", True, "lax.while_loop", bodies=((0, "cond_fun"), (1, "body_fun")), repeats=True, stages=True
    ),
    "jax.lax.cond": Api("body", True, "lax.cond", bodies=((1, "true_fun"), (2, "false_fun")), stages=True),
    "jax.lax.map": Api("body", True, "lax.map", bodies=((0, "f"),), repeats=True, stages=True),
    "jax.lax.associative_scan": Api("body", True, "lax.associative_scan", bodies=((0, "fn"),)),
    # its branches come as a sequence: each item is a body
    "jax.lax.switch": Api("body", True, "lax.switch", bodies=((1, "branches"),), stages=True),
    "jax.vjp": Api("call", primals="spread"),
    "jax.jvp": Api("call", primals="tuple"),
    "jax.linearize": Api("call", primals="spread"),
    "jax.eval_shape": Api("call", True, "jax.eval_shape", primals="spread", stages=True),  # on abstract values
    "jax.test_util.check_grads": Api("call", primals="tuple"),
    "jax._src.test_util.check_grads": Api("call", primals="tuple", same_as="jax.test_util.check_grads"),
    # name scopes and profiler annotations: the function as it is, called as it is
    "jax.named_scope": Api("scope", gives="value"),
    "jax.profiler.annotate_function": Api("scope", gives="value"),
    "jax.ensure_compile_time_eval": Api("scope", gives="value"),
    "jax.xmap": Api("removed"),
    "jax.experimental.maps.xmap": Api("removed"),
}


def named(kind: str | None = None, **facts: object) -> frozenset[str]:
    """The qualified names of the entries of one kind (``"map"``...; None: any),
    optionally with given facts (``abstract=True``, ``gives="value"``)."""
    return frozenset(
        q
        for q, a in TABLE.items()
        if (kind is None or a.kind == kind) and all(getattr(a, k) == v for k, v in facts.items())
    )


# decorators (and calls that make one) that keep the function's signature and run it
SCOPES = named("scope")
# transforms whose first argument is the function they wrap
TRANSFORMS = frozenset(q for q, a in TABLE.items() if a.kind in ("map", "trace", "removed"))
PARTIAL = frozenset({"functools.partial"})
# decorators that leave the function callable the same way (flax's ``nn.compact`` and
# ``nn.nowrap`` only mark a module's method)
TRANSPARENT_DECORATORS = frozenset(
    {
        "functools.wraps",
        "staticmethod",
        "classmethod",
        "builtins.staticmethod",
        "builtins.classmethod",
        "flax.linen.compact",
        "flax.linen.module.compact",
        "flax.linen.nowrap",
        "flax.linen.module.nowrap",
    }
)
