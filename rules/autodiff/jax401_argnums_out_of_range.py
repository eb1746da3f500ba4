from __future__ import annotations

from jaxlint.lint.rule import Invalid
from jaxlint.lint.wording import clipped

from .analysis import GradRule, Site, call_at


class ArgnumsOutOfRange(GradRule):
    """
    ## What it does
    Reports `argnums` of `jax.grad`, `value_and_grad`, `jacrev`, `jacfwd`, `jacobian` or
    `hessian` that does not name a positional parameter of the differentiated function:
    an index at or beyond the number of positional parameters, a negative index below
    `-n`, an empty sequence, or a string. The positional parameters are the callable's as
    the transform calls it: after `functools.partial` (bound positionals shift the
    positions, a bound keyword ends them) and for a bound method (`self` is not counted,
    nor `cls` of a classmethod read through its class or an instance; a staticmethod has
    no receiver); the function may be defined in another module. Where the transformed function is
    called in view (`jax.grad(f, argnums=2)(a, b)`), argnums is also checked against the
    positional arguments of that call, which is what JAX checks: a function with `*args`
    is reported only there.

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

    def verdict(self, site: Site) -> str | None:
        value = site.option("argnums", 0)
        api = site.shown
        target = site.target
        if isinstance(value, str):
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
        nums = site.argnums()
        if nums is None:
            return None
        if target is not None and not target.varargs:
            n = len(target.params)
            bad = [i for i in nums if not -n <= i < n]
            if bad:
                return (
                    f"`{api}` argnums={value!r}: index {', '.join(map(str, bad))} is out of range; "
                    f"{target.describe()}; JAX raises an error only when the gradient is called; {_valid(n)}"
                )
        for call in site.calls:
            given = call.positional
            if given is None:
                continue
            n = len(given)
            bad = [i for i in nums if not -n <= i < n]
            if bad:
                return (
                    f"`{api}` argnums={value!r}: index {', '.join(map(str, bad))} is out of range for the call "
                    f"`{clipped(self.ctx.code(call.node))}` {call_at(self.ctx, call)}, which passes "
                    f"{n} positional argument{'' if n == 1 else 's'}; {_fails(value, bad)}; {_valid(n)}"
                )
        return None


def _valid(n: int) -> str:
    if n == 1:
        return "use index 0 (or -1)"
    if n:
        return f"use indices 0..{n - 1} (or -{n}..-1)"
    return "it has no positional parameter to differentiate"


def _fails(value: object, bad: list[int]) -> str:
    if min(bad) >= 0:
        return (
            f"JAX fails with `TypeError: differentiating with respect to argnums={value!r} requires at least "
            f"{max(bad) + 1} positional arguments`"
        )
    return "JAX fails when the gradient is called"
