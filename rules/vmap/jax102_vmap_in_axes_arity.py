from __future__ import annotations

from jaxlint.lint.rule import Invalid
from jaxlint.model import forwarding, program
from jaxlint.model.facts import FunctionFact

from .analysis import (
    ThroughForwarders,
    has_keywords,
    positional_count,
    positional_range,
    short,
    target_params,
    vmap_sites,
)


class VmapInAxesArity(ThroughForwarders):
    """
    ## What it does
    Reports a `jax.vmap` whose tuple or list `in_axes` has a different length from the
    number of positional arguments the vmapped function is called with, or more
    entries than the mapped function can take positionally. A call passing `*args`
    counts as every number of positional arguments the mapped function could take
    there: at least its required parameters that no keyword names, at most its
    positional parameters (no limit with `*args`). A call counts also when
    the vmapped function is handed to a helper that calls it with its `*args`
    (`batch_shmap(jax.vmap(f, in_axes=(0,)), xs, ys)` with `def batch_shmap(fn, *args):
    ... return fn(*args)`, in this module or another one).

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
    shapes_needed = False  # the number of arguments is enough (a forwarder may shard_map them)
    # the calls of a vmapped function (in its module) tell how it is used, also those made
    # through a def that calls it with its ``*args`` (in any module)
    reads = ("calls", "forwarders")

    VALID = (
        "import jax\ndef f(x, w, b):\n    return w @ x + b\nout = jax.vmap(f, in_axes=(0, None, None))(xs, w, b)\n",
        "import jax\ndef f(x, w, b=0):\n    return w @ x + b\ng = jax.vmap(f, in_axes=(0, None))\n",
        "import jax\ndef f(*args):\n    return args\ng = jax.vmap(f, in_axes=(0, None, 0, 0))\n",
        "import jax\nout = jax.vmap(f, in_axes=(0, None))(x, w, b=b)\n",
        "import jax\ndef f(x, w, b):\n    return w @ x + b\nout = jax.vmap(f, in_axes=(0, None))(xs, *ws, b=b)\n",
    )
    INVALID = (
        (
            "import jax\ndef f(x, w, b):\n    return w @ x + b\nout = jax.vmap(f, in_axes=(0, None))(xs, w, b)\n",
            Invalid("JAX102", line=4, message="`in_axes=(0, None)` has 2 entries"),
        ),
        (
            "from jax import vmap\n\n@vmap\ndef unused(x):\n    return x\n\ng = vmap(lambda x, y: x + y, in_axes=[0, 0, 0])\n",
            Invalid("JAX102", line=7, message="takes at most 2 positional arguments"),
        ),
        (
            "import jax\ndef f(x, w, b):\n    return w @ x + b\nout = jax.vmap(f, in_axes=(0, None))(xs, *wb)\n",
            Invalid("JAX102", line=4, message="whatever `*wb` holds, `f` takes exactly 3 positional arguments"),
        ),
    )

    def finish(self) -> None:
        for site in vmap_sites(self.ctx):
            n = site.in_axes_len
            if n is None or site.in_axes_node is None or site.kwargs_unknown:
                continue
            shown = f"`in_axes={short(self.ctx, site.in_axes_node, 60)}` has {n} entr{'y' if n == 1 else 'ies'}"
            label = site.label
            p = program(self.ctx)
            bad = [(c, k) for c in site.calls if (k := positional_count(c, p)) is not None and k != n]
            # a call made through a callee of another module waits for the project phase: last
            bad.sort(key=lambda ck: forwarding.assumption(p, ck[0]) is not None)
            if bad and (forwarding.assumption(p, bad[0][0]) is None or not self._too_many(site, n, shown)):
                call, k = bad[0]
                written = p.written_call(call)
                note = " (keyword arguments never count: vmap maps them over axis 0)" if has_keywords(call) else ""
                if forwarding.made_here(p, call):
                    note += (
                        f" (`{short(self.ctx, written.func, 40)}` passes its trailing argument"
                        f"{'s' if k != 1 else ''} on with `*args`)"
                    )
                self.verdict(
                    site.node,
                    f"{shown}, but `{label}` is called with {k} positional argument{'s' if k != 1 else ''} "
                    f"in `{short(self.ctx, written)}`{note}; JAX raises `ValueError: vmap in_axes must be ... a tuple of "
                    f"entries corresponding to the positional arguments`. Give one entry per positional argument",
                    [x for x in [forwarding.assumption(p, call)] if x is not None],
                )
                continue
            if not bad and not self._too_many(site, n, shown):
                fact = self._fact(site)
                if fact is not None and not site.chain:
                    self._star_call(site, fact, n, shown)

    def _too_many(self, site, n: int, shown: str) -> bool:
        """Report more entries than the function takes positionally; True when reported."""
        fact = self._fact(site)
        if fact is None:
            return False
        params = target_params(fact, site.bound, site.bound_keywords, site.decorator)
        if params is None or site.chain or n <= len(params):
            return False
        name = "the lambda" if fact.is_lambda else f"`{fact.name}`"
        bound = site.bound
        if bound:
            name += f" (after the {bound} argument{'s' if bound != 1 else ''} bound by `partial`)"
        self.report(
            site.node,
            f"{shown}, but {name} takes at most {len(params)} positional argument"
            f"{'s' if len(params) != 1 else ''} ({', '.join(p.name for p in params) or 'none'}); "
            f"every call of `{site.label}` will fail. Give one entry per positional argument",
        )
        return True

    def _star_call(self, site, fact: FunctionFact, n: int, shown: str) -> None:
        """Report a call passing ``*args`` whose every possible count of positional
        arguments, as the mapped function's signature bounds it, differs from ``n``."""
        for call in site.calls:
            if positional_count(call, program(self.ctx)) is not None:
                continue
            found = positional_range(fact, site.bound, site.bound_keywords, call)
            if found is None:
                continue
            least, most = found
            if (most is not None and most < least) or (least <= n and (most is None or n <= most)):
                continue  # the call fails for another reason, or may pass n arguments
            count = (
                f"exactly {least}" if least == most else f"at least {least}" if most is None else f"{least} to {most}"
            )
            name = "the lambda" if fact.is_lambda else f"`{fact.name}`"
            if site.bound:
                name += f" (after the {site.bound} argument{'s' if site.bound != 1 else ''} bound by `partial`)"
            args = ", ".join(
                a.star + self.ctx.code(a.value) if a.keyword is None else self.ctx.code(a).rstrip(", ")
                for a in call.args
            )
            stars = [f"`*{self.ctx.code(a.value)}`" for a in call.args if a.star == "*"]
            holds = f"{' and '.join(stars)} hold{'s' if len(stars) == 1 else ''}"
            self.report(
                site.node,
                f"{shown}, but `{site.label}` is called with `({args if len(args) <= 48 else args[:47] + '…'})`: "
                f"whatever {holds}, {name} takes {count} positional arguments there; JAX raises "
                f"`ValueError: vmap in_axes must be ... a tuple of entries corresponding to the positional "
                f"arguments`, or the call of {name} fails. Give one entry per positional argument",
            )
            return

    def _fact(self, site) -> FunctionFact | None:
        return self.ctx.function_fact(site.function.node) if site.function is not None else None
