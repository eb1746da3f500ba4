"""Which functions a transform traces, and which of their parameters (jaxlint.model.traced)."""

from __future__ import annotations

import libcst as cst

from jaxlint.model.traced import traced_functions

from .helpers import line_of, model_of


def traced(source: str) -> dict[str, tuple[list[str], str, int]]:
    """{function name: (traced parameters, api, line of the application)}."""
    p = model_of(source.lstrip("\n"))  # line 1 is the first line of code
    out = {}
    for fn, tr in traced_functions(p.ctx, p).items():
        name = fn.name.value if isinstance(fn, cst.FunctionDef) else f"lambda@{line_of(p, fn)}"
        out[name] = (sorted(tr.params), tr.api, line_of(p, tr.node))
    return out


def test_jit_traces_every_parameter_without_default_except_static_ones():
    assert traced("""
    import jax
    from functools import partial

    def f(x, n, flag=True, *, k):
        return x

    g = jax.jit(f, static_argnums=1)

    @partial(jax.jit, static_argnames=("mode",))
    def h(x, mode):
        return x

    @jax.jit
    def u(x, y):
        return x
    """) == {
        "f": (["k", "x"], "jax.jit", 7),
        "h": (["x"], "jax.jit", 9),
        "u": (["x", "y"], "jax.jit", 13),
    }


def test_vmap_in_axes_none_and_partial_bindings_are_not_traced():
    assert traced("""
    import functools
    import jax

    def f(w, x, b):
        return x

    v = jax.vmap(f, in_axes=(None, 0, None))
    AXES = (0, None)
    def g(scale, x, y):
        return x
    k = jax.vmap(functools.partial(g, 2.0), in_axes=AXES)
    """) == {
        "f": (["x"], "jax.vmap", 7),
        "g": (["x"], "jax.vmap", 11),
    }


def test_a_method_self_is_concrete_but_counts_in_static_argnums():
    assert traced("""
    import functools
    import jax

    class M:
        @functools.partial(jax.jit, static_argnums=(0, 2))
        def step(self, x, n):
            return x
    """) == {"step": (["x"], "jax.jit", 5)}


def test_inner_transforms_and_lax_bodies():
    assert traced("""
    import jax
    from jax import lax

    def loss(p, x):
        return p

    g = jax.jit(jax.grad(loss))

    def body(i, carry):
        return carry

    out = lax.fori_loop(0, 3, body, 0.0)
    ys = lax.scan(lambda c, x: (c, x), 0.0, None)
    """) == {
        "loss": (["p", "x"], "jax.jit", 7),
        "body": (["carry", "i"], "lax.fori_loop", 12),
        "lambda@13": (["c", "x"], "lax.scan", 13),
    }


def test_unknown_options_or_decorators_leave_the_function_out():
    assert (
        traced("""
    import jax
    import mylib

    def f(x, n):
        return x

    g = jax.jit(f, static_argnums=mylib.ARGS)

    def h(x, y):
        return x

    k = jax.vmap(h, (0, None))

    @jax.jit
    @mylib.wrap
    def u(x):
        return x

    def w(x):
        return x

    step = jax.jit(w)
    other = jax.jit(w, static_argnums=mylib.N)
    """)
        == {}
    )


def test_options_spread_from_a_mapping_or_tuple_leave_the_function_out():
    # ``static_argnums`` may be among them
    assert (
        traced("""
    import jax

    def f(x, n):
        return x

    def maybe_jit(fn, *args, **kwargs):
        return jax.jit(fn, *args, **kwargs)

    opts = dict(static_argnums=1)
    g = jax.jit(f, **opts)
    h = maybe_jit(f, static_argnums=1)
    """)
        == {}
    )


def test_a_transform_of_a_parameter_traces_the_defs_its_calls_give():
    assert traced("""
    import jax

    def relu(x):
        return x

    def power(x, n):
        return x ** n

    REGISTRY = {"relu": relu}

    def lift(fn):
        def apply(x):
            return jax.vmap(fn)(x)
        return apply

    def staged(fn, x):
        return jax.jit(fn, static_argnums=1)(x, 2)

    layer = lift(REGISTRY["relu"])
    y = staged(power, 1.0)
    """) == {"relu": (["x"], "jax.vmap", 13), "power": (["x"], "jax.jit", 17)}


def test_each_parameter_cites_the_application_that_traces_it():
    """Two applications of one def: `jit(f, static_argnums=(1,))` keeps `n` concrete,
    `jit(f)` traces it; the trace of `n` is the second application (messages cite it, and
    an expected error is judged where it runs)."""
    from jaxlint.model.traced import traced_functions

    p = model_of(
        "import jax\ndef f(x, n):\n    return x + n\na = jax.jit(f, static_argnums=(1,))(0, 5)\nb = jax.jit(f)(0, 5)\n"
    )
    (trace,) = traced_functions(p.ctx, p).values()
    assert trace.params == {"x", "n"}
    assert line_of(p, trace.site_of("x")) == 4 and line_of(p, trace.site_of("n")) == 5
