from __future__ import annotations

from jaxlint.lint.rule import Invalid

from .analysis import GradRule, Site


class ArgnumsDuplicate(GradRule):
    """
    ## What it does
    Reports `argnums` of `jax.grad`, `value_and_grad`, `jacrev`, `jacfwd`, `jacobian` or
    `hessian` that names the same parameter twice: `(0, 0)`, or `(0, -2)` on a function
    with two positional parameters (the negative index is resolved against the
    differentiated function's signature, which may be in another module).

    ## Why is this bad?
    JAX does not reject the duplicate. It calls the function with `None` in place of the
    repeated argument, so the failure is an unrelated `TypeError: unsupported operand
    type(s) for *: 'NoneType' and 'jaxlib._jax.ArrayImpl'` raised from inside your own
    function, which sends you looking for the bug in the wrong place.

    ## Example
    ```python
    def f(x, y):
        return jnp.sum(x * y)

    dx, dy = jax.grad(f, argnums=(0, -2))(x, y)
    ```

    ## Use instead
    ```python
    dx, dy = jax.grad(f, argnums=(0, 1))(x, y)
    ```

    ## References
    - [jax.grad](https://docs.jax.dev/en/latest/_autosummary/jax.grad.html)
    """

    code = "JAX402"
    name = "argnums-duplicate"
    summary = "`argnums` names the same parameter twice"
    help = "List each parameter position once"
    VALID = (
        "import jax\ndef f(x, y):\n    return x * y\ng = jax.grad(f, argnums=(0, 1))\n",
        "import jax\ndef f(x, y):\n    return x * y\ng = jax.grad(f, argnums=(0, -1))\n",
        "import jax\ng = jax.grad(h, argnums=[0, 1])\n",
    )
    INVALID = (
        ("import jax\ng = jax.grad(h, argnums=(0, 0))\n", Invalid("JAX402", line=2, message="position 0 twice")),
        (
            "import jax\ndef f(x, y):\n    return x * y\ng = jax.grad(f, argnums=(0, -2))\n",
            Invalid("JAX402", line=4, message="-2 is parameter `x`"),
        ),
        ("import jax\ng = jax.jacrev(h, argnums=[1, 1])\n", Invalid("JAX402", line=2)),
    )

    def verdict(self, site: Site) -> str | None:
        nums = site.argnums()
        if nums is None or len(nums) < 2:
            return None
        api, value = site.shown, site.option("argnums", 0)
        tail = (
            "; JAX then calls the function with None for the repeated argument and fails with an unrelated "
            "`TypeError: unsupported operand type(s) ... 'NoneType'`. List each position once"
        )
        seen: set[int] = set()
        for i in nums:
            if i in seen:
                return f"`{api}` argnums={value!r} names position {i} twice{tail}"
            seen.add(i)
        target = site.target
        if target is None or target.varargs:
            return None
        n = len(target.params)
        if any(not -n <= i < n for i in nums):
            return None  # JAX401's business
        by_param: dict[int, int] = {}
        for i in nums:
            j = i % n
            if j in by_param:
                neg = i if i < 0 else by_param[j]
                return (
                    f"`{api}` argnums={value!r} names parameter `{target.params[j]}` twice: {neg} is parameter "
                    f"`{target.params[j]}` because {target.describe()}{tail}"
                )
            by_param[j] = i
        return None
