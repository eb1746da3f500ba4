from __future__ import annotations

from jaxlint.lint.rule import Invalid

from .analysis import CustomDerivativeRule

_F = """import jax
import jax.numpy as jnp

@jax.custom_jvp
def f(x, y):
    return jnp.sin(x) * y

@f.defjvp
def f_jvp({params}):
    x, y = primals
    x_dot, y_dot = tangents
    return {ret}
"""


class CustomJvpRuleShape(CustomDerivativeRule):
    """
    ## What it does
    Checks the rule given to `f.defjvp` (as a call or a decorator) for a `jax.custom_jvp`
    function: it must take `(primals, tangents)`, two tuples, preceded by the
    `nondiff_argnums` arguments if any, and return a `(primal_out, tangent_out)` pair. A
    two-parameter rule whose first parameter has a name of the primal's arguments, is
    computed with as an array and never unpacked, indexed or passed on
    (`def f_jvp(x, t)`) is reported too.

    ## Why is this bad?
    A rule written like the primal (`f_jvp(x, y, x_dot, y_dot)`) fails with
    `TypeError: f_jvp() missing 2 required positional arguments`; `f_jvp(x, t)` gets the
    tuples `(x,)` and `(t,)`, and array code fails on them (`TypeError: sin requires
    ndarray or scalar arguments, got <class 'tuple'>`); a rule that returns only
    the tangent fails with `TypeError: Custom JVP rule f_jvp for function f must produce a
    pair (list or tuple of length two) representing primal and tangent outputs`. Both show
    up only when the function is differentiated.

    ## Example
    ```python
    @f.defjvp
    def f_jvp(primals, tangents):
        x, y = primals
        x_dot, y_dot = tangents
        return jnp.cos(x) * x_dot * y + jnp.sin(x) * y_dot
    ```

    ## Use instead
    ```python
    @f.defjvp
    def f_jvp(primals, tangents):
        x, y = primals
        x_dot, y_dot = tangents
        return f(x, y), jnp.cos(x) * x_dot * y + jnp.sin(x) * y_dot
    ```

    ## References
    - [Custom derivative rules for JAX-transformable Python functions](https://docs.jax.dev/en/latest/notebooks/Custom_derivative_rules_for_Python_code.html)
    - [`jax.custom_jvp.defjvp`](https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.defjvp.html)
    """

    code = "JAX305"
    name = "custom-jvp-rule-shape"
    summary = "A custom_jvp rule does not take (primals, tangents) or does not return a pair"
    help = "Write the rule as jvp(primals, tangents) returning (primal_out, tangent_out)"
    roles = ("jvp",)
    VALID = (
        _F.format(params="primals, tangents", ret="f(x, y), jnp.cos(x) * x_dot * y + jnp.sin(x) * y_dot"),
        _F.format(params="primals, tangents", ret="[f(x, y), x_dot * y]"),
        _F.format(params="primals, tangents", ret="helper(x, y, x_dot, y_dot)"),
    )
    INVALID = (
        (
            _F.format(params="primals, tangents", ret="jnp.cos(x) * x_dot * y + jnp.sin(x) * y_dot"),
            Invalid("JAX305", line=12, message="not a `(primal_out, tangent_out)` pair"),
        ),
        (
            _F.format(params="x, y, x_dot, y_dot", ret="f(x, y), x_dot"),
            Invalid("JAX305", line=9, message="write it as `f_jvp(primals, tangents)`"),
        ),
    )
