from __future__ import annotations

from jaxlint.lint.rule import Invalid

from .analysis import ThroughForwarders, short
from .mapped_args import arg_text, in_rank, mapped_calls, shape_text, static_mapped


class VmapAxisBeyondRank(ThroughForwarders):
    """
    ## What it does
    Reports an argument of a call of a `jax.vmap`ped function that is mapped along an
    axis its visible shape does not have: a Python scalar (`len(xs)`, `math.prod(...)`,
    a number, `x.shape[0]`) under a mapped `in_axes` entry, or `in_axes=2` for an array
    built as `jnp.ones((3, 4))`. A pytree argument is mapped leaf by leaf: a list of
    Python numbers, or `list(x)` of a vector (a list of scalars), has no axis to map. So
    has an argument that the `jax.jit` around the vmap makes static
    (`jax.jit(jax.vmap(f, in_axes=(0, 0)), static_argnums=1)`): it arrives as the
    caller's Python value.

    ## Why is this bad?
    `vmap` slices every mapped argument along its axis, so the axis must exist. JAX
    raises when the call runs: `ValueError: vmap was requested to map its argument along
    axis 0, which implies that its rank should be at least 1, but is only 0 (its shape is
    ())`. A scalar passed next to batched arrays is almost always a shared value whose
    `in_axes` entry should be `None`.

    Only shapes the code makes visible count (constructors with literal sizes, `reshape`,
    `stack`, Python scalars, names bound to those, lists no statement before the call
    changes, the parameters of a nested def whose calls all pass one shape, also through
    an outer `vmap` of the def, which passes slices, or a helper that calls it with its
    `*args`, such as a test's `self.ConvertAndCompare(f, xs, ys)`); anything else is left
    alone, and so are calls inside
    `with pytest.raises(...)` / `self.assertRaises(...)`. In a parameterized test
    (`parameterized.parameters`/`product`, `jtu.sample_product`, `pytest.mark.parametrize`
    with visible values) the axes and shapes are read case by case, and the first case
    that fails is named.

    ## Example
    ```python
    def scale(x, n):
        return x * n

    out = jax.vmap(scale)(jnp.ones((8, 3)), len(names))
    ```

    ## Use instead
    ```python
    out = jax.vmap(scale, in_axes=(0, None))(jnp.ones((8, 3)), len(names))
    ```

    ## References
    - [jax.vmap](https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html)
    """

    code = "JAX104"
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    name = "vmap-axis-beyond-rank"
    summary = "`vmap` maps an argument along an axis its visible shape does not have"
    status = "preview"
    help = "Use `None` in `in_axes` for a shared (scalar) argument, or an axis the array has"
    about = ("jax.vmap",)
    # the calls of a vmapped function (in its module) tell how it is used, also those made
    # through a def that calls it with its ``*args`` (in any module)
    reads = ("calls", "forwarders")

    VALID = (
        "import jax\nimport jax.numpy as jnp\nout = jax.vmap(f, in_axes=(0, None))(jnp.ones((8, 3)), 4)\n",
        "import jax\nimport jax.numpy as jnp\nout = jax.vmap(f, in_axes=1)(jnp.ones((8, 3)))\n",
        "import jax\nimport jax.numpy as jnp\nout = jax.vmap(f, in_axes=-1)(jnp.ones((8, 3)))\n",
        "import jax\nout = jax.vmap(f)(xs, n)\n",
    )
    INVALID = (
        (
            "import jax\nimport jax.numpy as jnp\nout = jax.vmap(f)(jnp.ones((8, 3)), len(names))\n",
            Invalid("JAX104", line=3, message="`len(names)` is a scalar (rank 0)"),
        ),
        (
            "import jax\nimport jax.numpy as jnp\nx = jnp.ones((3, 4))\nout = jax.vmap(f, in_axes=2)(x)\n",
            Invalid("JAX104", line=4, message="axis 2 of `x`, whose shape is (3, 4)"),
        ),
    )

    def finish(self) -> None:
        ctx = self.ctx
        done: set[tuple[int, int]] = set()  # (call, argument) reported: plainly, or in the first failing test case
        for mc in mapped_calls(ctx):
            for m in mc.mapped:
                if in_rank(m) is not False or (id(mc.call), m.position) in done:
                    continue
                done.add((id(mc.call), m.position))
                name = arg_text(ctx, m)
                if m.leaf is not None:
                    what = "a scalar (rank 0)" if m.shape.rank == 0 else f"of shape {shape_text(m.shape)}"
                    why = (
                        f"{mc.site.label} maps argument {m.position} along axis {m.axis}, but {name} is a pytree "
                        f"and one of its leaves, {m.leaf}, is {what}; vmap maps every leaf"
                    )
                elif m.shape.rank == 0:
                    why = f"{mc.site.label} maps argument {m.position} along axis {m.axis}, but {name} is a scalar (rank 0)"
                else:
                    why = (
                        f"{mc.site.label} maps argument {m.position} along axis {m.axis} of {name}, whose shape "
                        f"is {shape_text(m.shape)}"
                    )
                self.verdict(
                    m.arg.value,
                    f"{mc.case_text(ctx)}{why}{mc.via_text(ctx)}: JAX raises `ValueError: vmap was requested to map its argument along axis {m.axis}, "
                    f"which implies that its rank should be at least {m.axis + 1 if m.axis >= 0 else -m.axis}`. "
                    "Use `None` in `in_axes` for a shared argument, or an axis the argument has",
                    mc.assumed,
                )
        for sm in static_mapped(ctx):
            self.report(
                sm.entry,
                f"{sm.site.label} maps argument {sm.position} along axis {sm.axis} (`in_axes` entry "
                f"{sm.position} is `{short(ctx, sm.entry, 30)}`), but the jit around it makes that argument static "
                f"(`static_argnums={short(ctx, sm.static, 30)}`): it arrives as the caller's Python value, which has "
                f"no axis to map, and JAX raises `ValueError: vmap was requested to map its argument along axis "
                f"{sm.axis}, ...`. Use `None` in `in_axes` for a static argument",
            )
