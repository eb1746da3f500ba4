from __future__ import annotations

from jaxlint.model import program
from jaxlint.model.facts import FunctionFact
from jaxlint.lint.rule import Invalid, Rule

from .analysis import has_keywords, positional_count, short, target_params, vmap_sites


class VmapInAxesArity(Rule):
    """
    ## What it does
    Reports a `jax.vmap` whose tuple or list `in_axes` has a different length from the
    number of positional arguments the vmapped function is called with, or more
    entries than the mapped function can take positionally.

    ## Why is this bad?
    `vmap` matches `in_axes` to the positional arguments one by one and raises when the
    call runs: `ValueError: vmap in_axes must be an int, None, or a tuple of entries
    corresponding to the positional arguments passed to the function, but got
    len(in_axes)=2, len(args)=3`. Keyword arguments never count: they are always
    mapped over axis 0.

    ## Example
    ```python
    def linear(x, w, b):
        return w @ x + b

    out = jax.vmap(linear, in_axes=(0, None))(xs, w, b)
    ```

    ## Use instead
    ```python
    out = jax.vmap(linear, in_axes=(0, None, None))(xs, w, b)
    ```

    ## References
    - [jax.vmap](https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html)
    """

    code = "JAX102"
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    name = "vmap-in-axes-arity"
    summary = "`vmap` `in_axes` length differs from the number of positional arguments"
    status = "stable"
    help = "Give `in_axes` one entry per positional argument of the call"
    about = ("jax.vmap",)
    reads = "calls"  # the calls of a vmapped function (in its module) tell how it is used

    VALID = [
        "import jax\ndef f(x, w, b):\n    return w @ x + b\nout = jax.vmap(f, in_axes=(0, None, None))(xs, w, b)\n",
        "import jax\ndef f(x, w, b=0):\n    return w @ x + b\ng = jax.vmap(f, in_axes=(0, None))\n",
        "import jax\ndef f(*args):\n    return args\ng = jax.vmap(f, in_axes=(0, None, 0, 0))\n",
        "import jax\nout = jax.vmap(f, in_axes=(0, None))(x, w, b=b)\n",
    ]
    INVALID = [
        (
            "import jax\ndef f(x, w, b):\n    return w @ x + b\nout = jax.vmap(f, in_axes=(0, None))(xs, w, b)\n",
            Invalid("JAX102", line=4, message="`in_axes=(0, None)` has 2 entries"),
        ),
        (
            "from jax import vmap\n\n@vmap\ndef unused(x):\n    return x\n\ng = vmap(lambda x, y: x + y, in_axes=[0, 0, 0])\n",
            Invalid("JAX102", line=7, message="takes at most 2 positional arguments"),
        ),
    ]

    def finish(self) -> None:
        for site in vmap_sites(self.ctx):
            n = site.in_axes_len
            if n is None or site.kwargs_unknown:
                continue
            shown = f"`in_axes={short(self.ctx, site.in_axes_node, 60)}` has {n} entr{'y' if n == 1 else 'ies'}"
            label = site.label
            bad = [(c, k) for c in site.calls if (k := positional_count(c)) is not None and k != n]
            if bad:
                call, k = bad[0]
                note = " (keyword arguments never count: vmap maps them over axis 0)" if has_keywords(call) else ""
                self.report(
                    site.node,
                    f"{shown}, but `{label}` is called with {k} positional argument{'s' if k != 1 else ''} "
                    f"in `{short(self.ctx, program(self.ctx).written_call(call))}`{note}; JAX raises `ValueError: vmap in_axes must be ... a tuple of "
                    f"entries corresponding to the positional arguments`. Give one entry per positional argument",
                )
                continue
            fact = self._fact(site)
            if fact is None:
                continue
            params = target_params(fact, site.bound, site.bound_keywords, site.decorator)
            if params is None or site.chain:
                continue
            if n > len(params):
                name = "the lambda" if fact.is_lambda else f"`{fact.name}`"
                bound = site.bound
                if bound:
                    name += f" (after the {bound} argument{'s' if bound != 1 else ''} bound by `partial`)"
                self.report(
                    site.node,
                    f"{shown}, but {name} takes at most {len(params)} positional argument"
                    f"{'s' if len(params) != 1 else ''} ({', '.join(p.name for p in params) or 'none'}); "
                    f"every call of `{label}` will fail. Give one entry per positional argument",
                )

    def _fact(self, site) -> FunctionFact | None:
        return self.ctx.function_fact(site.function.node) if site.function is not None else None
