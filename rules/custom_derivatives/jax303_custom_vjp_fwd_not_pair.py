from __future__ import annotations

from typing import Any

import libcst as cst

from jaxlint.lint.rule import Invalid
from jaxlint.lint.wording import worded
from jaxlint.model.abstract import Function, Partial, Transformed, Wraps

from .analysis import CustomDerivativeRule, Registration


def raises(fwd: str, primal: str) -> str:
    """JAX's error (jax 0.10.2), with the names it gives the rule and the primal."""
    return (
        f"under `jax.grad` JAX raises `TypeError: Custom VJP fwd rule {fwd} for function {primal} must produce a "
        "pair (list or tuple of length two) where the first element represents the primal output ... and the "
        "second element represents residuals`"
    )


def _jax_name(v: Any) -> str:
    """The ``__name__`` JAX's message gives a function: a def's name, ``<lambda>``, or ``...``."""
    while type(v) in (Transformed, Wraps, Partial):
        v = v.wrapped if type(v) is Wraps else v.func if type(v) is Partial else v.target
    if type(v) is Function:
        return "<lambda>" if isinstance(v.node, cst.Lambda) else v.name
    return "..."


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
    `(output, residuals)` pair. Reports a tuple or list of another length
    (`return out, r1, r2`) and a value that is not a tuple: one array (`return x * y`,
    a `jax.numpy` call), or only the output (`out = f(x); return out`: calling the
    primal gives what the primal returns), also through variables.

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

    def check(self, reg: Registration) -> None:
        fwd = reg.rules.get("fwd")
        if fwd is None or fwd.returns is None:
            return
        for r in fwd.returns:
            if r.length == 2:
                continue
            if r.length is None:
                head = f"{fwd.shown} returns `{r.text}`, not an `(output, residuals)` pair"
                advice = f"return `({r.text}, residuals)` with what `bwd` needs"
            else:
                what = "tuple" if r.length != 1 else "sequence"
                head = f"{fwd.shown} returns a {r.length}-element {what}, not an `(output, residuals)` pair"
                advice = "return `(out, (res1, res2, ...))`"
            fwd_name = "<lambda>" if isinstance(fwd.function, cst.Lambda) else fwd.name
            if fwd.name.startswith("the ") and fwd.function is None:
                fwd_name = "..."
            text = raises(fwd_name, _jax_name(reg.primal.value.target))
            headline, note = worded(head, advice, fwd.located() + text)
            self.report(fwd.at(r), headline, note=note)
