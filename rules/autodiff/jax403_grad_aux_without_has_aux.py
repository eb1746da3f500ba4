from __future__ import annotations

import dataclasses
from typing import Any

from jaxlint.lint.rule import Invalid, NodeEdit, RuleFix

from .analysis import (
    GRAD_APIS,
    SCALAR_APIS,
    GradRule,
    Site,
    Target,
    as_tuple,
    aux_evidence,
    first_is_loss,
    short,
    used_with_aux,
)

_SEQ = ("tuple", "list")


class GradAuxWithoutHasAux(GradRule):
    """
    ## What it does
    Reports `jax.grad` / `value_and_grad` of a function that returns a tuple, list or
    dict literal on every path (typically `(loss, aux)`) without `has_aux=True`. For
    `jacrev`, `jacfwd`, `jacobian` and `hessian`, where a tuple output is legitimate when
    a tuple of Jacobians is wanted, it reports only a visible `(loss, aux)` pair: the same
    function is differentiated elsewhere with `has_aux=True`, or the second element is a
    dict literal or is named like auxiliary data (`aux`, `metrics`, `stats`, `info`,
    `logs`, ...) while the first is a loss.

    ## Why is this bad?
    `grad` and `value_and_grad` need a scalar output and fail when called with
    `TypeError: Gradient only defined for scalar-output functions. Output was (...)`.
    `jacrev` and `jacfwd` do not fail: they silently differentiate the auxiliary output
    too and return a tuple of Jacobians, so the caller gets the wrong structure (or
    wrong numbers when it indexes the result).

    ## Example
    ```python
    def loss_fn(params, x):
        pred = x @ params
        return jnp.mean(pred ** 2), {"pred": pred}

    grads = jax.grad(loss_fn)(params, x)
    ```

    ## Use instead
    ```python
    grads, aux = jax.grad(loss_fn, has_aux=True)(params, x)
    ```

    ## Fix safety
    The fix adds `has_aux=True` to a direct call such as `jax.grad(loss_fn)`. It is
    unsafe: the transformed function then returns `(grads, aux)` (`value_and_grad`:
    `((value, aux), grads)`), so the code that uses the result must be adapted.

    ## References
    - [jax.grad](https://docs.jax.dev/en/latest/_autosummary/jax.grad.html)
    - [jax.jacrev](https://docs.jax.dev/en/latest/_autosummary/jax.jacrev.html)
    """

    code = "JAX403"
    name = "grad-aux-without-has-aux"
    summary = "The differentiated function returns `(loss, aux)` but `has_aux` is not set"
    help = "Pass has_aux=True and unpack the auxiliary output"
    fix_availability = "sometimes"
    VALID = (
        "import jax\nimport jax.numpy as jnp\ndef f(p, x):\n    l = jnp.sum(p * x)\n    return l, {'l': l}\ng = jax.grad(f, has_aux=True)\n",
        "import jax\ndef f(x):\n    return x * 2, x * 3\nj = jax.jacrev(f)\n",
        "import jax\nimport jax.numpy as jnp\ndef f(x):\n    return jnp.sum(x ** 2)\ng = jax.grad(f)\n",
        "import jax\ndef f(x):\n    if x > 0:\n        return x, 1\ng = jax.grad(f)\n",
    )
    INVALID = (
        (
            "import jax\nimport jax.numpy as jnp\ndef f(p, x):\n    l = jnp.sum(p * x)\n    return l, {'l': l}\ng = jax.grad(f)\n",
            Invalid(
                "JAX403",
                line=6,
                message="`f` returns `(l, {'l': l})`",
                fixed="import jax\nimport jax.numpy as jnp\ndef f(p, x):\n    l = jnp.sum(p * x)\n    return l, {'l': l}\ng = jax.grad(f, has_aux=True)\n",
            ),
        ),
        (
            "import jax\nimport jax.numpy as jnp\ndef f(x):\n    loss = jnp.sum(x ** 2)\n    return loss, metrics\nj = jax.jacrev(f)\n",
            Invalid("JAX403", line=6, message="silently"),
        ),
    )

    def check(self, site: Site) -> None:
        fix = None
        call = site.call
        if (
            call is not None
            and not site.data["decorator"]
            and self.ctx.resolve(call.func) in GRAD_APIS
            and call.args
            and "has_aux" not in site.option_nodes
            and not any(a.star for a in call.args)
        ):
            fix = RuleFix(
                "Add `has_aux=True` (the result becomes `(grads, aux)`; adapt its use)",
                [NodeEdit(call.args[-1].value, ", has_aux=True", where="after")],
                "unsafe",
            )
        self.pending(site.node, site.data, fix=fix)

    @classmethod
    def resolve(cls, items, project):
        for p in items:
            message = cls.verdict(p.data, project)
            if message:
                # has_aux=True fixes only a pair; other shapes need the function rewritten
                yield (
                    (
                        p
                        if "a pair (output, aux)" in message or "silently" in message
                        else dataclasses.replace(p, fix=None)
                    ),
                    message,
                )

    @classmethod
    def verdict(cls, data: dict[str, Any], project) -> str | None:
        options = data["options"]
        if options.get("has_aux", False) is not False:
            return None
        target = Target.of(data, project)
        if target is None or not target.returns_visible:
            return None
        returns = target.summary["returns"]
        if not returns or not target.summary["complete"]:
            return None
        if not all(r[0] in (*_SEQ, "dict") for r in returns):
            return None
        api, fname, first = data["shown"], target.label, returns[0]
        shown = as_tuple(first[-1])
        if data["api"] in SCALAR_APIS:
            if all(r[0] in _SEQ and r[1] == 2 for r in returns):
                unpack = "((value, aux), grads)" if data["api"] == "jax.value_and_grad" else "(grads, aux)"
                return (
                    f"{fname} returns `{shown}` on every path, a pair (output, aux), but `{api}` has no "
                    f"has_aux=True; it fails with `TypeError: Gradient only defined for scalar-output functions`. "
                    f"Pass has_aux=True and unpack `{unpack}`"
                )
            what = "a dict" if first[0] == "dict" else f"a {first[0]} of {first[1]} value{'' if first[1] == 1 else 's'}"
            return (
                f"{fname} returns {what} (`{shown}`), but `{api}` needs a scalar output and fails with "
                "`TypeError: Gradient only defined for scalar-output functions`; return the scalar loss, "
                "with the rest as aux: `return loss, aux` and has_aux=True"
            )
        if not all(r[0] in _SEQ and r[1] == 2 for r in returns):
            return None
        evidence = None
        if used_with_aux(target, project):
            evidence = f"{fname} is differentiated elsewhere with has_aux=True"
        elif all(aux_evidence(r[2], r[3]) and first_is_loss(r[2], r[3]) for r in returns):
            evidence = f"`{short(first[2][1], 30)}` is visibly auxiliary output"
        if evidence is None:
            return None
        return (
            f"{fname} returns `{shown}` and {evidence}, but `{api}` has no has_aux=True: it silently "
            "differentiates the auxiliary output too and returns a tuple of Jacobians. Pass has_aux=True "
            "to get `(jacobian, aux)`"
        )
