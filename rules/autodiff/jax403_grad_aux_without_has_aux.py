from __future__ import annotations

import libcst as cst

from jaxlint.lint.rule import Invalid, NodeEdit, RuleFix
from jaxlint.model import program
from jaxlint.model.abstract import Array, Const, Dict, External, List, Scalar, Tuple

from .analysis import GRAD_APIS, SCALAR_APIS, GradRule, Site, at_line, call_at, sites

# what the transform gives once ``has_aux=True`` (jacrev/jacfwd/jacobian/hessian: the rest)
_WITH_AUX = {"grad": "(grads, aux)", "value_and_grad": "((value, aux), grads)"}


class GradAuxWithoutHasAux(GradRule):
    """
    ## What it does
    Reports `jax.grad` / `value_and_grad` of a function whose returned value is a tuple,
    list or dict on every path (typically `(loss, aux)`, also built in a variable and
    returned through it, or by a helper it returns), as the model evaluates it, without
    `has_aux=True`. For `jacrev`, `jacfwd`, `jacobian` and `hessian`, where a tuple output is legitimate when
    a tuple of Jacobians is wanted, it reports only a visible `(loss, aux)` pair: the same
    function is differentiated elsewhere with `has_aux=True`, or, as the model evaluates
    it, the first element is a scalar (a loss) and the second a dict (its metrics). Names
    are no evidence: where the values do not decide, it is silent.

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
            "import jax\nimport jax.numpy as jnp\ndef f(x):\n    loss = jnp.sum(x ** 2)\n    return loss, {'x': x}\nj = jax.jacrev(f)\n",
            Invalid("JAX403", line=6, message="silently"),
        ),
    )

    def where(self, site: Site) -> cst.CSTNode:
        return site.node

    def fix(self, site: Site, message: str) -> RuleFix | None:
        call = site.node
        if not isinstance(call, cst.Call) or not call.args or "has_aux" in site.option_nodes:
            return None
        func = program(self.ctx).evaluator.value(call.func)
        if type(func) is not External or func.qualified not in GRAD_APIS or any(a.star for a in call.args):
            return None
        if "a pair (output, aux)" not in message and "silently" not in message:
            return None  # has_aux=True fixes only a pair; other shapes need the function rewritten
        becomes = _WITH_AUX.get(func.qualified.rsplit(".", 1)[1], "(jacobian, aux)")
        return RuleFix(
            f"Add `has_aux=True` (the result becomes `{becomes}`; adapt its use)",
            [NodeEdit(call.args[-1].value, ", has_aux=True", where="after")],
            "unsafe",
        )

    def verdict(self, site: Site) -> str | None:
        if site.option("has_aux", False) is not False:
            return None
        ev = program(self.ctx).evaluator
        fname = site.target.label if site.target is not None else "the function"
        api = site.shown
        for out, call in site.outputs(ev):
            if type(out) not in (Tuple, List, Dict):
                continue
            n = len(out.items)
            shown = site.returned_text() or ("a dict" if type(out) is Dict else f"a {n}-tuple")
            where = "on every path" if call is None else f"for the call {call_at(self.ctx, call)}"
            if site.api in SCALAR_APIS:
                if type(out) is not Dict and n == 2:
                    unpack = "((value, aux), grads)" if site.api == "jax.value_and_grad" else "(grads, aux)"
                    return (
                        f"{fname} returns `{shown}` {where}, a pair (output, aux), but `{api}` has no "
                        "has_aux=True; it fails with `TypeError: Gradient only defined for scalar-output functions`. "
                        f"Pass has_aux=True and unpack `{unpack}`"
                    )
                what = (
                    "a dict"
                    if type(out) is Dict
                    else f"a {type(out).__name__.lower()} of {n} value{'' if n == 1 else 's'}"
                )
                return (
                    f"{fname} returns {what} (`{shown}`), but `{api}` needs a scalar output and fails with "
                    "`TypeError: Gradient only defined for scalar-output functions`; return the scalar loss, "
                    "with the rest as aux: `return loss, aux` and has_aux=True"
                )
            if type(out) is Dict or n != 2:
                continue
            evidence = self.aux_evidence(site, out)
            if evidence is not None:
                return (
                    f"{fname} returns `{shown}`, but `{api}` has no has_aux=True: it silently differentiates "
                    f"the auxiliary output too and returns a tuple of Jacobians ({evidence}). Pass "
                    "has_aux=True to get `(jacobian, aux)`"
                )
        return None

    def aux_evidence(self, site: Site, out: Tuple | List) -> str | None:
        """Why the second of two returned values is auxiliary (a jacobian of a pair may be
        meant): the same function is differentiated with has_aux=True elsewhere, or it
        returns a scalar and a dict (a loss and its metrics). Names are no evidence."""
        target = site.target
        if target is not None and target.leaf is not None:
            for other in sites(self.ctx):
                t = other.target
                if (
                    other is not site
                    and t is not None
                    and t.leaf == target.leaf
                    and other.option("has_aux", False) is True
                ):
                    return f"{target.label} is differentiated with has_aux=True {at_line(self.ctx, other.node)}"
        first, second = out.items
        if type(second) is Dict and _scalar(first):
            return "the first is a scalar, the second a dict"
        return None


def _scalar(v: object) -> bool:
    """A rank-0 array or a Python number: a value ``grad`` could differentiate."""
    if type(v) is Array:
        return v.shape is not None and v.shape.rank == 0
    return (type(v) is Const and type(v.value) in (int, float)) or (type(v) is Scalar and v.kind == "float")
