from __future__ import annotations

from jaxlint.lint.rule import Invalid
from jaxlint.lint.wording import worded

from .analysis import CustomDerivativeRule, Registration, names, plural

_F = """import jax

@jax.custom_vjp
def f(x, y):
    return x * y

def f_fwd({params}):
    return f(x, y), (x, y)

def f_bwd(res, g):
    x, y = res
    return (g * y, g * x)

f.defvjp(f_fwd, f_bwd)
"""


class CustomVjpFwdSignature(CustomDerivativeRule):
    """
    ## What it does
    Checks that the `fwd` rule of a `jax.custom_vjp` function takes the primal's
    positional arguments: the same number (`nondiff_argnums` included, JAX passes them
    to `fwd` in their original positions), and, when the names show it, in the same order
    (`f_fwd(y, x)` for `f(x, y)`). It is reported at the `fwd` def; a `fwd` defined in
    another module than the `defvjp` that pairs it is reported at that `defvjp` argument,
    with the def's file and line in the note (the pairing is what is wrong, and the
    module of the def may pair it correctly elsewhere).

    ## Why is this bad?
    A `fwd` with too few or too many required parameters fails under `jax.grad` with a
    plain `TypeError: f_fwd() takes 1 positional argument but 2 were given`. Parameters in
    another order are worse: JAX passes the arguments by position, so `fwd` computes its
    residuals from swapped inputs and the gradients come back silently swapped
    (`[2.0, 3.0]` instead of `[3.0, 2.0]`), with no error.

    ## Example
    ```python
    @jax.custom_vjp
    def f(x, y):
        return x * y

    def f_fwd(y, x):
        return f(x, y), (x, y)
    ```

    ## Use instead
    ```python
    def f_fwd(x, y):
        return f(x, y), (x, y)
    ```

    ## References
    - [Custom derivative rules for JAX-transformable Python functions](https://docs.jax.dev/en/latest/notebooks/Custom_derivative_rules_for_Python_code.html)
    - [`jax.custom_vjp.defvjp`](https://docs.jax.dev/en/latest/_autosummary/jax.custom_vjp.defvjp.html)
    """

    code = "JAX302"
    name = "custom-vjp-fwd-signature"
    summary = "A custom_vjp fwd rule does not take the primal's arguments in the primal's order"
    help = "Give the fwd rule exactly the primal function's positional parameters, in the same order"
    VALID = (
        _F.format(params="x, y"),
        _F.format(params="a, b"),
        _F.format(params="*args"),
        _F.format(params="x, y, z=None"),
    )
    INVALID = (
        (
            _F.format(params="y, x"),
            Invalid("JAX302", line=7, message="`f_fwd(y, x)` orders its parameters differently from `f(x, y)`"),
        ),
        (
            _F.format(params="x"),
            Invalid(
                "JAX302",
                line=7,
                message="`f_fwd` takes 1 positional parameter but JAX calls it with the 2 arguments of `f`",
            ),
        ),
    )

    def check(self, reg: Registration) -> None:
        fwd, primal = reg.rules.get("fwd"), reg.primal
        if fwd is None or primal.params is None:
            return
        params, n = list(primal.params), len(primal.params)
        where = fwd.located()
        if not fwd.accepts(n):
            head = f"{fwd.shown} takes {plural(len(fwd.params), 'positional parameter')} but JAX calls it with the {n} "
            headline, note = worded(
                head + f"arguments of `{primal.name}`",
                "give it the primal's signature",
                f"{where}{fwd.form(fwd.params)} for `{primal.name}({names(params)})`"
                + (f" (`{primal.nondiff_text}` arguments are passed too, in their places)" if primal.nondiff else ""),
                "under `jax.grad` the call fails with `TypeError`",
            )
            self.report(fwd.node, headline, note=note)
        elif fwd.params != params and len(fwd.params) == n and sorted(fwd.params) == sorted(params):
            headline, note = worded(
                f"{fwd.form(fwd.params)} orders its parameters differently from `{primal.name}({names(params)})`",
                "use the primal's order",
                f"{where}JAX passes the arguments by position, so the gradients come back silently swapped",
            )
            self.report(fwd.node, headline, note=note)
