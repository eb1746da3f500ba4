from __future__ import annotations

from jaxlint.lint.rule import Invalid

from .analysis import ThroughForwarders
from .mapped_args import arg_text, in_rank, mapped_calls, shape_text


class VmapInconsistentSizes(ThroughForwarders):
    """
    ## What it does
    Reports a call of a `jax.vmap`ped function whose mapped arguments have visibly
    different sizes along their mapped axes (`x = jnp.ones((3, 4))`, `y = jnp.ones(5)`,
    `vmap(f)(x, y)`), or a size different from the `axis_size=` given.

    ## Why is this bad?
    Every mapped axis is the same batch, so all must have one size. JAX raises when the
    call runs: `ValueError: vmap got inconsistent sizes for array axes to be mapped`.
    Usually one argument is mapped along the wrong axis, or is shared and its `in_axes`
    entry should be `None`.

    Only shapes the code makes visible count (constructors with literal sizes, `reshape`,
    `stack`, names bound to those, the parameters of a nested def whose calls all pass one
    shape, also through a helper that calls the def with its `*args` (a test's
    `self.ConvertAndCompare(f, xs, ys)`), a module-level helper
    `def ones(shape): return jnp.ones(shape)` called next to the `vmap`); anything else
    is left alone, and so are calls inside
    `with pytest.raises(...)` / `self.assertRaises(...)`. In a parameterized test
    (`parameterized.parameters`/`product`, `jtu.sample_product`, `pytest.mark.parametrize`
    with visible values) the sizes are read case by case (`rng(shape, dtype)` with
    `rng = jtu.rand_default(...)`, `np.array([[0], [2]])`), and the first case that fails is
    named; a test that skips some cases (`if n > 1: self.skipTest(...)`) is left alone. A
    vmapped function handed to a def by `partial(d, fn=vmapped)` and called there as
    `fn(x, mask)` gets, per call of that partial, the arguments of that call. A vmap in a
    module-level def is read per call of that def (all visible), and a name unpacked from a
    module-level helper's returned tuple (`pages, tables = _generate(n, page_size)`) gets
    that element's shape for those arguments; the message names the call.

    ## Example
    ```python
    x = jnp.ones((3, 4, 5, 10))
    y = jnp.ones((3, 5, 6))
    out = jax.vmap(f, in_axes=(3, 0))(x, y)
    ```

    ## Use instead
    ```python
    out = jax.vmap(f, in_axes=(0, 0))(x, y)
    ```

    ## References
    - [jax.vmap](https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html)
    """

    code = "JAX105"
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    name = "vmap-inconsistent-sizes"
    summary = "`vmap` maps arguments whose visible sizes along the mapped axes differ"
    status = "preview"
    help = "Map every argument along an axis of the batch size, or use `None` for a shared one"
    about = ("jax.vmap",)
    # the calls of a vmapped function (in its module) tell how it is used, also those made
    # through a def that calls it with its ``*args`` (in any module)
    reads = ("calls", "forwarders")

    VALID = (
        "import jax\nimport jax.numpy as jnp\nout = jax.vmap(f, in_axes=(1, 0))(jnp.ones((4, 3)), jnp.ones(3))\n",
        "import jax\nimport jax.numpy as jnp\nout = jax.vmap(f, in_axes=(0, None))(jnp.ones((4, 3)), jnp.ones(3))\n",
        "import jax\nimport jax.numpy as jnp\nout = jax.vmap(f, axis_size=4)(jnp.ones((4, 3)))\n",
        "import jax\nimport jax.numpy as jnp\nout = jax.vmap(f)(jnp.ones((4, 3)), ys)\n",
    )
    INVALID = (
        (
            "import jax\nimport jax.numpy as jnp\nout = jax.vmap(f)(jnp.ones((4, 3)), jnp.ones(3))\n",
            Invalid("JAX105", line=3, message="axis 0 of `jnp.ones(3)` (size 3"),
        ),
        (
            "import jax\nimport jax.numpy as jnp\nout = jax.vmap(f, axis_size=2)(jnp.ones((4, 3)))\n",
            Invalid("JAX105", line=3, message="`axis_size=2`"),
        ),
    )

    def finish(self) -> None:
        ctx = self.ctx
        done: set[int] = set()  # calls reported (once: plainly, or in the first test case that fails)
        for mc in mapped_calls(ctx):
            if id(mc.call) in done:
                continue
            sized = [(m, m.shape.axis(m.axis)) for m in mc.mapped if m.leaf is None and in_rank(m)]
            sized = [(m, n) for m, n in sized if n is not None]
            if mc.axis_size is not None:
                for m, n in sized:
                    if n != mc.axis_size:
                        done.add(id(mc.call))
                        self.verdict(
                            m.arg.value,
                            f"{mc.case_text(ctx)}{mc.site.label} is given `axis_size={mc.axis_size}`, "
                            f"but axis {m.axis} of {arg_text(ctx, m)} has size {n} (shape "
                            f"{shape_text(m.shape)}){mc.via_text(ctx)}: {_RAISES}",
                            mc.assumed,
                        )
                        break
                continue
            if not sized:
                continue
            first, size0 = sized[0]
            for m, n in sized[1:]:
                if n != size0:
                    done.add(id(mc.call))
                    self.verdict(
                        m.arg.value,
                        f"{mc.case_text(ctx)}{mc.site.label} maps axis {first.axis} of {arg_text(ctx, first)} (size {size0}) "
                        f"and axis {m.axis} of {arg_text(ctx, m)} (size {n}, shape {shape_text(m.shape)})"
                        f"{mc.via_text(ctx)}: {_RAISES}",
                        mc.assumed,
                    )
                    break


_RAISES = (
    "JAX raises `ValueError: vmap got inconsistent sizes for array axes to be mapped`. Map each argument "
    "along its batch axis, or use `None` for a shared one"
)
