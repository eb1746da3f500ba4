from __future__ import annotations

from jaxlint.lint.rule import Invalid, Rule
from jaxlint.lint.wording import worded
from jaxlint.model import program
from jaxlint.model.abstract import External, Function
from jaxlint.model.annotations import ARRAY_LIKE_TYPES
from jaxlint.model.derivatives import KINDS, primal_of
from jaxlint.model.mapsites import application_value

_F = """import jax
from functools import partial

@partial(jax.custom_vjp, nondiff_argnums=(0,))
def f({param}, x):
    return scale * x

def f_fwd(scale, x):
    return f(scale, x), None

def f_bwd(scale, res, g):
    return (scale * g,)

f.defvjp(f_fwd, f_bwd)
"""


class NondiffArgnumsArray(Rule):
    """
    ## What it does
    Reports `nondiff_argnums` / `nondiff_argnames` of a `jax.custom_vjp` or
    `jax.custom_jvp` function that point at a parameter annotated as an array
    (`jax.Array`, `jnp.ndarray`, `jax.typing.ArrayLike`).

    ## Why is this bad?
    Non-differentiable arguments are meant for values that can never be tracers, such as
    functions or Python configuration. An array passed there works eagerly, but under
    `jax.jit` or `jax.vmap` it is a tracer, and a `custom_vjp` function then fails with
    `UnexpectedTracerError: Found a JAX Tracer object passed as an argument to a
    custom_vjp function in a position indicated by nondiff_argnums as
    non-differentiable`; `custom_jvp` can leak tracers in `scan`/`cond`. JAX's
    documentation recommends passing arrays as ordinary arguments and returning `None`
    as their cotangent.

    ## Example
    ```python
    @partial(jax.custom_vjp, nondiff_argnums=(0,))
    def f(scale: jax.Array, x):
        return scale * x

    def f_bwd(scale, res, g):
        return (scale * g,)
    ```

    ## Use instead
    ```python
    @jax.custom_vjp
    def f(scale: jax.Array, x):
        return scale * x

    def f_fwd(scale, x):
        return f(scale, x), scale

    def f_bwd(scale, g):
        return (None, scale * g)
    ```

    ## References
    - [Custom derivative rules: handling non-differentiable arguments](https://docs.jax.dev/en/latest/notebooks/Custom_derivative_rules_for_Python_code.html#handling-non-differentiable-arguments)
    - [`jax.custom_vjp`](https://docs.jax.dev/en/latest/_autosummary/jax.custom_vjp.html)
    """

    code = "JAX306"
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    name = "nondiff-argnums-array"
    summary = "nondiff_argnums marks an array argument of a custom_vjp/custom_jvp function"
    help = "Pass arrays as ordinary arguments and return None as their cotangent"
    status = "preview"
    about = ("jax.custom_vjp", "jax.custom_jvp")
    triggers = ("nondiff_argn",)  # narrower than derived: it reports only where these options are given
    VALID = (
        _F.format(param="scale"),
        _F.format(param="scale: float"),
        _F.format(param="scale: Callable"),
    )
    INVALID = (
        (_F.format(param="scale: jax.Array"), Invalid("JAX306", line=5, message="the array argument `scale` of `f`")),
    )

    def finish(self) -> None:
        p = program(self.ctx)
        ev = p.evaluator
        for api in KINDS:
            for app in p.applications(api):
                t = application_value(p, app.node)
                fn = t.target if t is not None else None
                if type(fn) is not Function or (fn.program or p) is not p or not hasattr(fn.node, "name"):
                    continue
                primal = primal_of(p, t, fn.name)
                if primal is None or not primal.nondiff or primal.params is None:
                    continue
                params = {x.name.value: x for x in (*fn.node.params.posonly_params, *fn.node.params.params)}
                for i in primal.nondiff:
                    param = params.get(primal.params[i])
                    if param is None or param.annotation is None:
                        continue
                    ann = ev.value(param.annotation.annotation, None)
                    if type(ann) is not External or ann.qualified not in ARRAY_LIKE_TYPES:
                        continue
                    shown = " ".join(self.ctx.code(param.annotation.annotation).split())
                    headline, note = worded(
                        f"`{primal.nondiff_text}` marks the array argument `{param.name.value}` of `{primal.name}` "
                        "as non-differentiable",
                        "make it an ordinary argument and return `None` as its cotangent",
                        f"it is annotated `{shown}`: under `jax.jit` or `jax.vmap` an array there is a tracer, and "
                        "JAX raises `UnexpectedTracerError`",
                    )
                    self.report(param, headline, note=note)
