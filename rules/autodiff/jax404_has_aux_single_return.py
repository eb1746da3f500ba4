from __future__ import annotations

import libcst as cst

from jaxlint.lint.rule import Invalid
from jaxlint.model import program
from jaxlint.model.abstract import Array, Const, Dict, List, Scalar, Tuple, describe

from .analysis import GradRule, Site


class HasAuxSingleReturn(GradRule):
    """
    ## What it does
    Reports `has_aux=True` on `jax.grad`, `value_and_grad`, `jacrev`, `jacfwd`,
    `jacobian` or `hessian` when the value the differentiated function returns, as the
    model evaluates it, is on every path a single value (an array, a number) or a tuple,
    list or dict that is not a pair.

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

    def where(self, site: Site) -> cst.CSTNode:
        return site.option_nodes.get("has_aux", site.node)

    def verdict(self, site: Site) -> str | None:
        if "has_aux" not in site.option_nodes or site.option("has_aux", False) is not True:
            return None
        fname = site.target.label if site.target is not None else "the function"
        for out, _call in site.outputs(program(self.ctx).evaluator):
            shown = site.returned_text()
            t = type(out)
            if t is Array or t is Scalar or (t is Const and isinstance(out.value, (int, float, complex))):
                what = f"a single value (`{shown}`)" if shown else f"a single value ({describe(out)})"
            elif t is Dict:
                what = f"a dict (`{shown}`)" if shown else "a dict"
            elif t in (Tuple, List) and len(out.items) != 2:
                n = len(out.items)
                kind = "tuple" if t is Tuple else "list"
                what = f"a {kind} of {n} value{'' if n == 1 else 's'}" + (f" (`{shown}`)" if shown else "")
            else:
                continue
            return (
                f"`{site.shown}` has has_aux=True, but {fname} returns {what}, not a pair (output, aux); "
                "JAX fails with `TypeError: expected function with aux output to return a two-element tuple`. "
                "Remove has_aux=True, or return `(output, aux)`"
            )
        return None
