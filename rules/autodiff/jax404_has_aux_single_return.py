from __future__ import annotations

from typing import Any

from jaxlint.lint.rule import Invalid

from .analysis import GradRule, Site, Target, as_tuple, short

_SINGLE = ("scalar", "nonscalar", "value")


class HasAuxSingleReturn(GradRule):
    """
    ## What it does
    Reports `has_aux=True` on `jax.grad`, `value_and_grad`, `jacrev`, `jacfwd`,
    `jacobian` or `hessian` when the differentiated function visibly returns a single
    value on every path (an arithmetic expression, a `jnp` reduction, a number), or a
    tuple, list or dict literal that is not a pair.

    ## Why is this bad?
    With `has_aux=True` JAX expects exactly `(output, aux)` and fails when the gradient is
    called: `TypeError: expected function with aux output to return a two-element tuple,
    but got type <class '...LinearizeTracer'>` (or `<class 'tuple'>` for a 3-tuple).

    ## Example
    ```python
    def loss_fn(params, x):
        return jnp.mean((x @ params) ** 2)

    grads, aux = jax.grad(loss_fn, has_aux=True)(params, x)
    ```

    ## Use instead
    ```python
    grads = jax.grad(loss_fn)(params, x)
    ```

    ## References
    - [jax.grad](https://docs.jax.dev/en/latest/_autosummary/jax.grad.html)
    """

    code = "JAX404"
    name = "has-aux-single-return"
    summary = "`has_aux=True`, but the differentiated function does not return an `(output, aux)` pair"
    help = "Remove has_aux=True, or return `(output, aux)`"
    VALID = (
        "import jax\nimport jax.numpy as jnp\ndef f(x):\n    return jnp.sum(x), x\ng = jax.grad(f, has_aux=True)\n",
        "import jax\nimport jax.numpy as jnp\ndef f(x):\n    return [jnp.sum(x), x]\ng = jax.grad(f, has_aux=True)\n",
        "import jax\ndef f(x):\n    return helper(x)\ng = jax.grad(f, has_aux=True)\n",
    )
    INVALID = (
        (
            "import jax\nimport jax.numpy as jnp\ndef f(x):\n    return jnp.sum(x ** 2)\ng = jax.grad(f, has_aux=True)\n",
            Invalid("JAX404", line=5, message="returns a single value (`jnp.sum(x ** 2)`)"),
        ),
        (
            "import jax\nimport jax.numpy as jnp\ndef f(x):\n    return jnp.sum(x), x, x\ng = jax.jacrev(f, has_aux=True)\n",
            Invalid("JAX404", line=5, message="3 values"),
        ),
    )

    def check(self, site: Site) -> None:
        node = site.option_nodes.get("has_aux")
        if node is not None:
            self.pending(node, site.data)

    @classmethod
    def verdict(cls, data: dict[str, Any], project) -> str | None:
        if data["options"].get("has_aux") is not True:
            return None
        target = Target.of(data, project)
        if target is None or not target.returns_visible:
            return None
        returns = target.summary["returns"]
        if not returns or not target.summary["complete"]:
            return None
        if not all(r[0] in _SINGLE or r[0] == "dict" or (r[0] in ("tuple", "list") and r[1] != 2) for r in returns):
            return None
        first = returns[0]
        if first[0] in _SINGLE:
            what = f"a single value (`{short(first[-1])}`)"
        elif first[0] == "dict":
            what = f"a dict (`{short(first[-1])}`)"
        else:
            what = f"a {first[0]} of {first[1]} value{'' if first[1] == 1 else 's'} (`{as_tuple(first[-1])}`)"
        return (
            f"`{data['shown']}` has has_aux=True, but {target.label} returns {what}, not a pair (output, aux); "
            "JAX fails with `TypeError: expected function with aux output to return a two-element tuple`. "
            "Remove has_aux=True, or return `(output, aux)`"
        )
