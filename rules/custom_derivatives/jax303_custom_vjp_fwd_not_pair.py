from __future__ import annotations

from jaxlint.lint.rule import Invalid

from .analysis import CustomDerivativeRule

_F = """import jax

@jax.custom_vjp
def f(x, y):
    return x * y

def f_fwd(x, y):
    return {ret}

f.defvjp(f_fwd, lambda res, g: (g * res[1], g * res[0]))
"""


class CustomVjpFwdNotPair(CustomDerivativeRule):
    """
    ## What it does
    Checks that every `return` of a `jax.custom_vjp` `fwd` rule is an
    `(output, residuals)` pair. Reports a tuple or list literal of another length
    (`return out, r1, r2`) and a value that is visibly not a tuple (`return x * y`).

    ## Why is this bad?
    JAX unpacks `fwd`'s result into the primal output and the residuals passed to `bwd`.
    Anything else fails under `jax.grad` with `TypeError: Custom VJP fwd rule f_fwd for
    function f must produce a pair (list or tuple of length two) ...`; plain evaluation of
    the function does not call `fwd`, so the defect stays hidden until the first gradient.

    ## Example
    ```python
    def f_fwd(x, y):
        return f(x, y), x, y
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

    code = "JAX303"
    name = "custom-vjp-fwd-not-pair"
    summary = "A custom_vjp fwd rule does not return an (output, residuals) pair"
    help = "Return `(primal_out, residuals)`, with all residuals packed in one pytree"
    roles = ("fwd",)
    VALID = (
        _F.format(ret="f(x, y), (x, y)"),
        _F.format(ret="[f(x, y), (x, y)]"),
        _F.format(ret="f(x, y), None"),
        _F.format(ret="helper(x, y)"),
    )
    INVALID = (
        (_F.format(ret="f(x, y), x, y"), Invalid("JAX303", line=8, message="returns a 3-element tuple")),
        (
            _F.format(ret="x * y"),
            Invalid("JAX303", line=8, message="returns `x * y`, not an `(output, residuals)` pair"),
        ),
    )
