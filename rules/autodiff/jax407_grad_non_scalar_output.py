from __future__ import annotations

from typing import Any

from jaxlint.lint.rule import Invalid

from .analysis import SCALAR_APIS, GradRule, Site, Target, short


class GradNonScalarOutput(GradRule):
    """
    ## What it does
    Reports `jax.grad` / `value_and_grad` of a function that visibly returns an array
    with at least one dimension on every path: `jnp.stack(...)`, `jnp.concatenate(...)`,
    `jnp.array([...])`, or the per-example result of `jax.vmap(f)(xs)` without a
    reduction.

    ## Why is this bad?
    `grad` is defined only for scalar-output functions; called, it fails with
    `TypeError: Gradient only defined for scalar-output functions. Output had shape:
    (3,)` — even for shape `(1,)`. A per-example loss from `vmap` must be reduced first.

    ## Example
    ```python
    def loss(params, xs):
        return jax.vmap(lambda x: jnp.sum((x @ params) ** 2))(xs)

    g = jax.grad(loss)
    ```

    ## Use instead
    ```python
    def loss(params, xs):
        return jnp.mean(jax.vmap(lambda x: jnp.sum((x @ params) ** 2))(xs))

    g = jax.grad(loss)  # or jax.jacrev(loss) for one gradient per example
    ```

    ## References
    - [jax.grad](https://docs.jax.dev/en/latest/_autosummary/jax.grad.html)
    - [jax.jacrev](https://docs.jax.dev/en/latest/_autosummary/jax.jacrev.html)
    """

    code = "JAX407"
    name = "grad-non-scalar-output"
    summary = "`grad` of a function that visibly returns a non-scalar array"
    help = "Reduce the output to a scalar (jnp.sum / jnp.mean), or use jax.jacrev"
    VALID = (
        "import jax\nimport jax.numpy as jnp\ndef f(x):\n    return jnp.sum(jnp.stack([x, x]))\ng = jax.grad(f)\n",
        "import jax\nimport jax.numpy as jnp\ndef f(x):\n    return jnp.stack([x, x])\ng = jax.jacrev(f)\n",
    )
    INVALID = (
        (
            "import jax\nimport jax.numpy as jnp\ndef f(x):\n    return jnp.stack([x, x ** 2])\ng = jax.grad(f)\n",
            Invalid("JAX407", line=5, message="`jnp.stack([x, x ** 2])`"),
        ),
        (
            "import jax\nimport jax.numpy as jnp\ndef loss(p, xs):\n    return jax.vmap(lambda x: jnp.sum(x * p))(xs)\ng = jax.value_and_grad(loss)\n",
            Invalid("JAX407", line=5),
        ),
    )

    def check(self, site: Site) -> None:
        if site.data["api"] in SCALAR_APIS:
            self.pending(site.node, site.data)

    @classmethod
    def verdict(cls, data: dict[str, Any], project) -> str | None:
        if data["options"].get("has_aux", False) is not False:
            return None
        target = Target.of(data, project)
        if target is None or not target.returns_visible:
            return None
        returns = target.summary["returns"]
        if not returns or not target.summary["complete"] or not all(r[0] == "nonscalar" for r in returns):
            return None
        return (
            f"{target.label} returns `{short(returns[0][1])}`, an array with at least one dimension, but "
            f"`{data['shown']}` needs a scalar output: it fails with `TypeError: Gradient only defined for "
            "scalar-output functions`. Reduce it (`jnp.sum` / `jnp.mean`), or use `jax.jacrev` for a Jacobian"
        )
