"""Which transforms stage their function out (``transforms.Api.stages``): under one, every
JAX operation gives a tracer, even on constants, so Python control flow on
``jnp.sum(W) > 0`` raises; under the others it is concrete. Checked against jax itself
(marked ``jax``), one program per entry of the table, and the table's flags against the
same list."""

import subprocess
import sys
import textwrap

import pytest

from jaxlint.model.transforms import TABLE

# how each transform runs ``body`` (a function of one float that branches on a constant's
# JAX operation): staged (raises TracerBoolConversionError) or concrete
RUNS = {
    "jax.jit": ("jax.jit(body)(1.0)", True),
    "jax.experimental.pjit.pjit": ("jax.jit(body)(1.0)", True),  # pjit is jit in 0.10.2
    "jax.pmap": ("jax.pmap(body)(jnp.ones(1))", True),
    "jax.make_jaxpr": ("jax.make_jaxpr(body)(1.0)", True),
    "jax.checkpoint": ("jax.checkpoint(body)(1.0)", True),
    "jax.remat": ("jax.remat(body)(1.0)", True),
    "jax.ad_checkpoint.checkpoint": ("jax.checkpoint(body)(1.0)", True),
    "jax.eval_shape": ("jax.eval_shape(body, 1.0)", True),
    "jax.lax.scan": ("lax.scan(lambda c, x: (body(c), x), 1.0, jnp.ones(2))", True),
    "jax.lax.fori_loop": ("lax.fori_loop(0, 2, lambda i, c: body(c), 1.0)", True),
    "jax.lax.while_loop": ("lax.while_loop(lambda c: c < 2, lambda c: body(c) + 1, 0.0)", True),
    "jax.lax.cond": ("lax.cond(True, body, body, 1.0)", True),
    "jax.lax.switch": ("lax.switch(0, [body, body], 1.0)", True),
    "jax.lax.map": ("lax.map(body, jnp.ones(2))", True),
    "jax.vmap": ("jax.vmap(body)(jnp.ones(2))", False),
    "jax.grad": ("jax.grad(body)(1.0)", False),
    "jax.value_and_grad": ("jax.value_and_grad(body)(1.0)", False),
    "jax.jvp": ("jax.jvp(body, (1.0,), (1.0,))", False),
    "jax.vjp": ("jax.vjp(body, 1.0)", False),
    "jax.named_call": ("jax.named_call(body)(1.0)", False),
    "jax.lax.associative_scan": ("lax.associative_scan(lambda a, b: body(a) + b, jnp.ones(4))", False),
    "jax.shard_map": (
        "jax.shard_map(body, mesh=jax.make_mesh((1,), ('i',)), in_specs=P(), out_specs=P())(1.0)",
        False,
    ),
}

PROGRAM = """
import jax, jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P
W = jnp.arange(3.0)
def body(x):
    if jnp.sum(W) > 0:
        return x
    return -x
try:
    {run}
    print("concrete")
except jax.errors.TracerBoolConversionError:
    print("staged")
"""


@pytest.mark.parametrize("api", sorted(RUNS))
def test_the_table_says_which_transforms_stage(api):
    assert TABLE[api].stages is RUNS[api][1]


def test_every_staging_entry_is_checked():
    assert {q for q, a in TABLE.items() if a.stages} <= set(RUNS)


@pytest.mark.jax
@pytest.mark.parametrize("api", sorted(RUNS))
def test_jax_stages_exactly_those(api):
    run, stages = RUNS[api]
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(PROGRAM).format(run=run)],
        capture_output=True,
        text=True,
        env={"JAX_PLATFORMS": "cpu", "PATH": ""},
        timeout=300,
    )
    assert out.stdout.strip().splitlines()[-1:] == ["staged" if stages else "concrete"], out.stderr[-2000:]
