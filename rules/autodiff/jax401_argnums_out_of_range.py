from __future__ import annotations

from typing import Any

from jaxlint.lint.rule import Invalid

from .analysis import UNKNOWN_OPT, GradRule, Target, argnums_list


class ArgnumsOutOfRange(GradRule):
    """
    ## What it does
    Reports `argnums` of `jax.grad`, `value_and_grad`, `jacrev`, `jacfwd`, `jacobian` or
    `hessian` that does not name a positional parameter of the differentiated function:
    an index at or beyond the number of positional parameters, a negative index below
    `-n`, an empty sequence, or a string. The function may be defined in another module;
    `functools.partial` arguments bound before the transform, methods (`self`) and lambdas
    are accounted for. Functions with `*args` are never reported.

    ## Why is this bad?
    JAX only checks `argnums` when the transformed function is called:
    `TypeError: differentiating with respect to argnums=2 requires at least 3 positional
    arguments` (grad), `ValueError: Positional argument indices ... got value 2 for
    len(args) == 2` (jacrev/jacfwd), or, for `argnums=()`, the opaque `ValueError: max()
    arg is an empty sequence`.

    ## Example
    ```python
    def loss(params, x):
        return jnp.sum((x @ params) ** 2)

    g = jax.grad(loss, argnums=2)
    ```

    ## Use instead
    ```python
    g = jax.grad(loss, argnums=0)  # or -2; indices count positional parameters from 0
    ```

    ## References
    - [jax.grad](https://docs.jax.dev/en/latest/_autosummary/jax.grad.html)
    - [The autodiff cookbook](https://docs.jax.dev/en/latest/notebooks/autodiff_cookbook.html)
    """

    code = "JAX401"
    name = "argnums-out-of-range"
    summary = "`argnums` does not name a positional parameter of the differentiated function"
    help = "Use indices between 0 and the number of positional parameters minus one"
    VALID = (
        "import jax\ndef f(x, y):\n    return x * y\ng = jax.grad(f, argnums=1)\n",
        "import jax\ndef f(x, y):\n    return x * y\ng = jax.grad(f, argnums=-2)\n",
        "import jax\ndef f(x, y):\n    return x * y\ng = jax.jacrev(f, argnums=[0, 1])\n",
        "import jax\ndef f(*args):\n    return args[0]\ng = jax.grad(f, argnums=3)\n",
        "import jax, functools\ndef f(a, b, c):\n    return a * b * c\ng = jax.grad(functools.partial(f, 1.0), argnums=1)\n",
        "import jax\nclass M:\n    def loss(self, p, x):\n        return p * x\n    def step(self, p, x):\n        return jax.grad(self.loss, argnums=1)(p, x)\n",
    )
    INVALID = (
        (
            "import jax\ndef f(x, y):\n    return x * y\ng = jax.grad(f, argnums=2)\n",
            Invalid("JAX401", line=4, message="`f` takes 2 positional parameters (`x`, `y`)"),
        ),
        ("import jax\ndef f(x, y):\n    return x * y\ng = jax.grad(f, argnums=-3)\n", Invalid("JAX401", line=4)),
        (
            "import jax\ng = jax.jacfwd(lambda x: x * 2, argnums=(0, 1))\n",
            Invalid("JAX401", line=2, message="the lambda"),
        ),
        (
            "import jax, functools\ndef f(a, b, c):\n    return a * b * c\ng = jax.grad(functools.partial(f, 1.0), argnums=2)\n",
            Invalid("JAX401", line=4, message="after functools.partial binds `a`"),
        ),
        (
            "import jax\ndef f(x):\n    return x\ng = jax.grad(f, argnums=())\n",
            Invalid("JAX401", line=4, message="selects no parameter"),
        ),
    )

    @classmethod
    def verdict(cls, data: dict[str, Any], project) -> str | None:
        options = data["options"]
        value = options.get("argnums", 0)
        api = data["shown"]
        if isinstance(value, str) and value != UNKNOWN_OPT:
            target = Target.of(data, project)
            hint = ""
            if target is not None and value in target.params:
                hint = f"; `{value}` is positional parameter {target.params.index(value)}, pass that index"
            return (
                f"`{api}` argnums={value!r} is a string, but argnums takes integer positions "
                f"(JAX fails with `TypeError: 'str' object cannot be interpreted as an integer`){hint}"
            )
        if isinstance(value, (tuple, list)) and not value:
            return (
                f"`{api}` argnums={value!r} selects no parameter; JAX fails with the opaque "
                "`ValueError: max() arg is an empty sequence`. Pass at least one index"
            )
        nums = argnums_list(options)
        if nums is None:
            return None
        target = Target.of(data, project)
        if target is None:
            return None
        n = len(target.params)
        bad = [i for i in nums if not -n <= i < n]
        if not bad:
            return None
        shown = ", ".join(str(i) for i in bad)
        if n == 1:
            valid = "use index 0 (or -1)"
        elif n:
            valid = f"use indices 0..{n - 1} (or -{n}..-1)"
        else:
            valid = "it has no positional parameter to differentiate"
        return (
            f"`{api}` argnums={value!r}: index {shown} is out of range because {target.describe()}; "
            f"JAX raises an error only when the gradient is called; {valid}"
        )
