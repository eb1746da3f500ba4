from __future__ import annotations

import libcst as cst

from jaxlint.lint.rule import Invalid
from jaxlint.model import program
from jaxlint.model.abstract import Array, List, Tuple

from .analysis import SCALAR_APIS, GradRule, Site, call_at


class GradNonScalarOutput(GradRule):
    """
    ## What it does
    Reports `jax.grad` / `value_and_grad` of a function that returns an array with at
    least one dimension, from the shapes the model computes: with nothing bound
    (`jnp.stack([a, b])`, `jnp.array([loss])`, the per-example result of `jax.vmap(f)(xs)`,
    also combined with values the model does not know: `(preds - ys) ** 2` keeps the
    mapped axis whatever `ys` is), in a factory's closure as the factory's call made it, or
    for the arguments of a call in view (`w * x` for vectors `w`, `x`; when the calls in
    view are the only uses of the transformed function and their outputs are known, they
    alone decide), a length-1 vector such as `jnp.sum(x, keepdims=True)` included. With
    `has_aux=True`, the first element of the pair is checked.

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

    def where(self, site: Site) -> cst.CSTNode:
        return site.node

    def verdict(self, site: Site) -> str | None:
        if site.api not in SCALAR_APIS:
            return None
        has_aux = site.option("has_aux", False)
        if has_aux not in (True, False):
            return None
        fname = site.target.label if site.target is not None else "the function"
        for out, call in site.outputs(program(self.ctx).evaluator):
            if has_aux:
                if type(out) not in (Tuple, List) or len(out.items) != 2:
                    continue
                out = out.items[0]
            if type(out) is not Array or out.shape is None or not out.shape.dims:
                continue
            shown = site.returned_text()
            shape = f"shape {out.shape}"
            if out.shape.rest and all(d is None for d in out.shape.dims):
                n = len(out.shape.dims)
                shape = f"at least {n} dimension{'s' if n > 1 else ''}"  # its sizes unknown
            what = f"`{shown}`, an array of {shape}" if shown and not has_aux else f"an array of {shape}"
            if has_aux:
                what = f"an output (the first of its pair) of {shape}"
            where = "" if call is None else f" for the call {call_at(self.ctx, call)}"
            return (
                f"{fname} returns {what}{where}, but `{site.shown}` needs a scalar output: it fails with "
                "`TypeError: Gradient only defined for scalar-output functions`. Reduce it (`jnp.sum` / "
                "`jnp.mean`), or use `jax.jacrev` for a Jacobian"
            )
        return None
