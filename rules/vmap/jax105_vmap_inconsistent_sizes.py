from __future__ import annotations

from jaxlint.lint.rule import Invalid
from jaxlint.lint.wording import HEADLINE
from jaxlint.model import dims

from .analysis import ABOUT, ThroughForwarders, first_with, leaf_text, vmap_sites, where


class VmapInconsistentSizes(ThroughForwarders):
    """
    ## What it does
    Reports a call of a `jax.vmap`ped function whose mapped arguments have different
    sizes along their mapped axes, or a size other than the `axis_size=` given. Every
    leaf of a pytree argument is mapped (a dict of parameters under the default
    `in_axes=0` maps each weight along its first axis), and keyword arguments are
    always mapped along axis 0.

    The sizes are what the program computes: array constructors, the JAX functions'
    shape rules (`reshape`, `@`, `concatenate`, ...), the values a function returns, and
    the arguments its callers pass (each visible call is a context of its own: the
    message names the call that fails). Sizes may be symbols (`n`, `x.shape[0]`,
    `jax.device_count()`): they differ only when the arithmetic proves it (`n` and
    `n + 1`). Unknown sizes are not judged.

    ## Why is this bad?
    `vmap` maps every mapped argument along its axis in lockstep, so the sizes must be
    equal. When they are not, the call raises `ValueError: vmap got inconsistent sizes
    for array axes to be mapped`. The usual cause is an argument that should be shared
    by every example (weights, a lookup table) left at `in_axes=0`.

    ## Example
    ```python
    def predict(params, x):
        return x @ params["w"] + params["b"]

    params = {"w": jnp.ones((16, 4)), "b": jnp.zeros(4)}
    logits = jax.vmap(predict)(params, jnp.ones((64, 16)))
    ```

    ## Use instead
    ```python
    logits = jax.vmap(predict, in_axes=(None, 0))(params, jnp.ones((64, 16)))
    ```

    ## References
    - [jax.vmap](https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html)
    """

    code = "JAX105"
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    name = "vmap-inconsistent-sizes"
    summary = "`vmap` maps arguments whose sizes along the mapped axes differ"
    status = "stable"
    help = "Map each argument along its batch axis, or give a shared argument `None` in `in_axes`"
    about = ABOUT
    reads = ("calls", "forwarders", "project anchors")

    VALID = (
        "import jax, jax.numpy as jnp\nout = jax.vmap(lambda a, b: a + b)(jnp.ones((4, 3)), jnp.ones((4, 3)))\n",
        "import jax, jax.numpy as jnp\nout = jax.vmap(lambda a, b: a + b, in_axes=(0, None))(jnp.ones((4, 3)), jnp.ones(3))\n",
        "import jax, jax.numpy as jnp\ndef f(x, n):\n    y = jnp.zeros((x.shape[0], 2))\n"
        "    return jax.vmap(lambda a, b: a.sum() + b.sum())(x, y)\n",
    )
    INVALID = (
        (
            "import jax, jax.numpy as jnp\nout = jax.vmap(lambda a, b: a + b)(jnp.ones((4, 3)), jnp.ones((5, 3)))\n",
            Invalid(
                "JAX105",
                line=2,
                message="maps axes of different sizes: `jnp.ones((4, 3))` has 4, `jnp.ones((5, 3))` has 5",
            ),
        ),
        (
            "import jax, jax.numpy as jnp\n\ndef predict(params, x):\n    return x @ params['w']\n\n"
            "def run(params, xs):\n    return jax.vmap(predict)(params, xs)\n\n"
            "run({'w': jnp.ones((16, 4))}, jnp.ones((64, 16)))\n",
            Invalid("JAX105", line=7, message="`params['w']` has 16, `xs` has 64"),
        ),
    )

    def finish(self) -> None:
        for site in vmap_sites(self.ctx):
            for e, issue in first_with(site, ("sizes",)):
                rec = e.record
                place = where(self.ctx, rec, site).strip()
                raises = "JAX raises `ValueError: vmap got inconsistent sizes for array axes to be mapped`"
                if issue.expected is not None:
                    wrong = issue.leaves[0]
                    message = (
                        f"`{site.label}` has `axis_size={dims.text(issue.expected)}`, but "
                        f"{leaf_text(self.ctx, rec, wrong)} has {dims.text(wrong.size)}"
                    )
                    note = f"{place + ': ' if place else ''}{raises} (axis {wrong.axis} is the mapped one)"
                else:
                    message = f"`{site.label}` maps axes of different sizes: {_by_size(self.ctx, rec, issue.leaves, 2)}"
                    if len(message) > HEADLINE:  # deep pytree paths: the note has them whole
                        short = _by_size(self.ctx, rec, issue.leaves, 2, short=True)
                        message = f"`{site.label}` maps axes of different sizes: {short}"
                    every = _by_size(self.ctx, rec, issue.leaves, 8)
                    note = f"{place + ': ' if place else ''}{raises}. Mapped sizes: {every}"
                self.report_evaluated(site.node, message, e, note=note)
                break


def _by_size(ctx, rec, leaves, most: int, short: bool = False) -> str:
    """``params['w1']`` has 16, ``xs`` has 64: one leaf per size, the first ``most`` sizes;
    ``short``: a path of more than two keys shown by its root and last key
    (``variables[...]['bias']``)."""
    seen: list = []
    parts = []
    for leaf in leaves:
        if any(dims.equal(leaf.size, s) for s in seen):
            continue
        seen.append(leaf.size)
        axis = f" (axis {leaf.axis})" if leaf.axis not in (0, None) else ""
        text = leaf_text(ctx, rec, leaf)
        if short:
            text = _shortened(text)
        parts.append(f"{text} has {dims.text(leaf.size)}{axis}")
        if len(parts) == most:
            break
    return ", ".join(parts)


def _shortened(text: str) -> str:
    """```variables['params']['Dense_0']['bias']``` -> ```variables[...]['bias']```."""
    inner = text.strip("`")
    head, bracket, rest = inner.partition("[")
    keys = ("[" + rest).split("][") if bracket else []
    if len(keys) <= 2:
        return text
    return f"`{head}[...][{keys[-1]}`"
