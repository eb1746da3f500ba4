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
    # "map": traces its function and binds axis names (pmap, vmap, shard_map, smap);
    # "trace": wraps its function in a transformed one (jit, grad, checkpoint, custom_vjp);
    # "body": a lax call that runs its function arguments now, traced (scan, cond, ...);
    # "call": runs its function argument now, under a transform (vjp, jvp, linearize);
    # "removed": recorded as an application only (no path layer, traces nothing known)
    kind: str
    # the function's arguments are abstract tracers: Python control flow on them fails
    # (jit, the maps, lax bodies; not grad, which keeps concrete values)
    abstract: bool = False
    label: str = ""  # the name messages give it ("jax.jit", "pjit", "lax.scan")
    static: tuple[str, ...] = ()  # options that name arguments it keeps concrete
    # a lax body call: (position, keyword) of each function argument it traces
    bodies: tuple[tuple[int, str], ...] = ()
    in_axes: bool = False  # a map whose ``in_axes`` entry ``None`` passes an argument as it is
    # a map whose ``in_specs`` entry ``None`` passes an argument as it is (jax 0.10.2's
    # shard_map hands a Python int through untraced there; ``P()`` traces it)
    in_specs: bool = False


_JIT_STATIC = ("static_argnums", "static_argnames")

TABLE: dict[str, Api] = {
    "jax.jit": Api("trace", True, "jax.jit", _JIT_STATIC),
    "jax.experimental.pjit.pjit": Api("trace", True, "pjit", _JIT_STATIC),
    "jax.vmap": Api("map", True, "jax.vmap", in_axes=True),
    "jax.pmap": Api("map", True, "jax.pmap", ("static_broadcasted_argnums",), in_axes=True),
    "jax.shard_map": Api("map", True, "jax.shard_map", in_specs=True),
    "jax.smap": Api("map", True, "jax.smap"),
    "jax.grad": Api("trace"),
    "jax.value_and_grad": Api("trace"),
    "jax.jacrev": Api("trace"),
    "jax.jacfwd": Api("trace"),
    "jax.jacobian": Api("trace"),
    "jax.hessian": Api("trace"),
    "jax.checkpoint": Api("trace"),
    "jax.remat": Api("trace"),
    "jax.ad_checkpoint.checkpoint": Api("trace"),
    "jax.named_call": Api("trace"),
    "jax.custom_vjp": Api("trace"),
    "jax.custom_jvp": Api("trace"),
    "jax.lax.scan": Api("body", True, "lax.scan", bodies=((0, "f"),)),
    "jax.lax.fori_loop": Api("body", True, "lax.fori_loop", bodies=((2, "body_fun"),)),
    "jax.lax.while_loop": Api("body", True, "lax.while_loop", bodies=((0, "cond_fun"), (1, "body_fun"))),
    "jax.lax.cond": Api("body", True, "lax.cond", bodies=((1, "true_fun"), (2, "false_fun"))),
    "jax.lax.map": Api("body", True, "lax.map", bodies=((0, "f"),)),
    "jax.lax.associative_scan": Api("body", True, "lax.associative_scan", bodies=((0, "fn"),)),
    "jax.lax.switch": Api("body", True, "lax.switch"),  # its branches come as a sequence
    "jax.vjp": Api("call"),
    "jax.jvp": Api("call"),
    "jax.linearize": Api("call"),
    "jax.xmap": Api("removed"),
    "jax.experimental.maps.xmap": Api("removed"),
}


def named(kind: str, **facts) -> frozenset[str]:
    """The qualified names of the entries of one kind (``"map"``...), optionally with
    given facts (``abstract=True``)."""
    return frozenset(
        q for q, a in TABLE.items() if a.kind == kind and all(getattr(a, k) == v for k, v in facts.items())
    )
