from __future__ import annotations

from typing import Any

from jaxlint.lint.rule import Invalid

from .analysis import (
    ALLOW_INT_APIS,
    GradRule,
    Target,
    argnums_list,
    normalised,
    static_params,
)


class ArgnumsIntegerParam(GradRule):
    """
    ## What it does
    Reports `argnums` of `jax.grad`, `value_and_grad`, `jacrev`, `jacfwd`, `jacobian` or
    `hessian` (the default `argnums=0` included) that selects a parameter which is visibly
    an integer or static value: annotated `int` or `bool`, with an integer or boolean
    default, used as a Python loop bound (`range(n)`) or as a shape (`jnp.zeros((n, d))`,
    `x.reshape(n, -1)`), marked static by a `jax.jit` of the same function
    (`static_argnums` / `static_argnames`), or given a Python int where the gradient is
    called (`jax.grad(f, argnums=1)(w, 2)`). `allow_int=True` is never reported.

    ## Why is this bad?
    JAX differentiates only floating-point (or complex) inputs. Called with an integer, the
    gradient fails: `TypeError: grad requires real- or complex-valued inputs (input dtype
    that is a sub-dtype of np.inexact), but got int32` (`jacfwd`/`hessian`: "requires
    real-valued inputs"). A shape or loop bound cannot be traced at all.

    ## Example
    ```python
    def loss(params, n_steps: int):
        for _ in range(n_steps):
            params = params * 0.9
        return jnp.sum(params)

    g = jax.grad(loss, argnums=(0, 1))
    ```

    ## Use instead
    ```python
    g = jax.grad(loss, argnums=0)
    ```

    ## References
    - [jax.grad](https://docs.jax.dev/en/latest/_autosummary/jax.grad.html)
    - [Autodiff of integer inputs (float0)](https://docs.jax.dev/en/latest/notebooks/autodiff_cookbook.html)
    """

    code = "JAX405"
    name = "argnums-integer-param"
    summary = "`argnums` selects a parameter that is visibly an integer or static value"
    help = "Differentiate only floating-point parameters (or pass allow_int=True for a float0 gradient)"
    VALID = (
        "import jax\ndef f(x, n: int):\n    return x * n\ng = jax.grad(f, argnums=0)\n",
        "import jax\ndef f(x, n: int):\n    return x * n\ng = jax.grad(f, argnums=1, allow_int=True)\n",
        "import jax\ndef f(x, scale=1.0):\n    return x * scale\ng = jax.grad(f, argnums=1)\n",
        "import jax\ndef f(w, n):\n    return w ** n\ng = jax.grad(f, argnums=0)(1.0, 2)\n",
    )
    INVALID = (
        (
            "import jax\ndef f(x, n: int):\n    return x * n\ng = jax.grad(f, argnums=1)\n",
            Invalid("JAX405", line=4, message="`n`, which is annotated `int`"),
        ),
        (
            "import jax\nimport jax.numpy as jnp\ndef f(x, n):\n    return jnp.sum(x * jnp.zeros((n, 3)))\ng = jax.jacfwd(f, argnums=(0, 1))\n",
            Invalid("JAX405", line=5, message="used as a shape"),
        ),
        (
            "import jax\ndef f(x, k):\n    return x * k\nfj = jax.jit(f, static_argnums=1)\ng = jax.grad(f, argnums=1)\n",
            Invalid("JAX405", line=5, message="static in `jit`"),
        ),
        (
            "import jax\ndef f(w, n):\n    return w ** n\ng = jax.grad(f, argnums=1)(1.0, 2)\n",
            Invalid("JAX405", line=4, message="given the Python int `2` in `jax.grad(f, argnums=1)(1.0, 2)`"),
        ),
    )

    @classmethod
    def verdict(cls, data: dict[str, Any], project) -> str | None:
        options = data["options"]
        if options.get("allow_int", False) is not False:
            return None
        nums = argnums_list(options)
        if nums is None:
            return None
        target = Target.of(data, project)
        if target is None:
            return None
        idx = normalised(nums, len(target.params))
        if idx is None:
            return None
        ints = dict(target.summary["ints"])
        static = static_params(target, project)
        given = data.get("call_ints", {})
        for i in idx:
            name = target.params[i]
            if i in given and name not in static:
                ints.setdefault(name, given[i])
            why = ints.get(name) or static.get(name)
            if why is None:
                continue
            api = data["api_name"]
            if name in ints:
                err = (
                    f"`{api}` fails with `TypeError: {api} requires real{'- or complex' if api in ('grad', 'value_and_grad', 'jacrev', 'jacobian') else ''}"
                    "-valued inputs`"
                )
            else:
                err = "a static argument is a Python value that cannot be traced or differentiated"
            hint = (
                " (or pass allow_int=True if a float0 gradient is really wanted)"
                if data["api"] in ALLOW_INT_APIS
                else ""
            )
            return (
                f"`{data['shown']}` argnums={options.get('argnums', 0)!r} differentiates `{name}`, which is {why}; "
                f"{err}. Differentiate only floating-point parameters{hint}"
            )
        return None
