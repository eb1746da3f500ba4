from __future__ import annotations

from jaxlint.lint.rule import Invalid
from jaxlint.lint.wording import worded

from .analysis import CustomDerivativeRule, Registration, plural

_F = """import jax
from functools import partial

@partial(jax.custom_vjp, nondiff_argnums={nd})
def f(fn, x):
    return fn(x)

def f_fwd(fn, x):
    return fn(x), x

def f_bwd({params}):
    return (g,)

f.defvjp(f_fwd, f_bwd)
"""


class CustomVjpBwdSignature(CustomDerivativeRule):
    """
    ## What it does
    Checks that the `bwd` rule of a `jax.custom_vjp` function can be called the way JAX
    calls it: `bwd(residuals, g)`, or `bwd(*nondiff_args, residuals, g)` when the primal
    declares `nondiff_argnums` / `nondiff_argnames` (the non-differentiable arguments
    come first, in increasing position order).

    ## Why is this bad?
    A `bwd` written like the primal (`bwd(x, y, g)`) or one that forgets the
    non-differentiable arguments fails under `jax.grad` with a plain `TypeError`
    (`f_bwd() missing 1 required positional argument: 'g'`, or `takes 2 positional
    arguments but 3 were given`), which does not point at `defvjp`.

    ## Example
    ```python
    @partial(jax.custom_vjp, nondiff_argnums=(0,))
    def f(fn, x):
        return fn(x)

    def f_bwd(res, g):
        return (g,)
    ```

    ## Use instead
    ```python
    def f_bwd(fn, res, g):
        return (g,)
    ```

    ## References
    - [Custom derivative rules: nondiff_argnums](https://docs.jax.dev/en/latest/notebooks/Custom_derivative_rules_for_Python_code.html#handling-non-differentiable-arguments)
    - [`jax.custom_vjp`](https://docs.jax.dev/en/latest/_autosummary/jax.custom_vjp.html)
    """

    code = "JAX304"
    name = "custom-vjp-bwd-signature"
    summary = "A custom_vjp bwd rule does not take (nondiff args..., residuals, cotangent)"
    help = "Write the bwd rule as bwd(residuals, g), preceded by the nondiff_argnums arguments if any"
    VALID = (
        _F.format(nd="(0,)", params="fn, res, g"),
        _F.format(nd="()", params="res, g"),
        _F.format(nd="(0,)", params="*args"),
    )
    INVALID = (
        (
            _F.format(nd="(0,)", params="res, g"),
            Invalid("JAX304", line=11, message="`f_bwd` takes 2 positional parameters but JAX calls it with 3"),
        ),
        (_F.format(nd="()", params="fn, x, g"), Invalid("JAX304", line=11, message="takes 3 positional parameters")),
    )

    def check(self, reg: Registration) -> None:
        bwd, primal = reg.rules.get("bwd"), reg.primal
        if bwd is None or primal.nondiff is None or primal.params is None:
            return
        n = len(primal.nondiff) + 2
        if bwd.accepts(n):
            return
        why = f"because of `{primal.nondiff_text}`, " if primal.nondiff else ""
        headline, note = worded(
            f"{bwd.shown} takes {plural(len(bwd.params), 'positional parameter')} but JAX calls it with {n}",
            f"write it as {bwd.form([*primal.nondiff_names, 'residuals', 'g'])}",
            f"{bwd.located()}{why}JAX calls `bwd` with the non-differentiable arguments first, then the residuals "
            "`fwd` returned and the output cotangent; under `jax.grad` the call fails with `TypeError`",
        )
        self.report(bwd.node, headline, note=note)
