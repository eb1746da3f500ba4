from __future__ import annotations

from typing import Any

from jaxlint.lint.rule import Invalid
from jaxlint.model import program
from jaxlint.model.abstract import List, Tuple, describe

from .analysis import Site, ThroughForwarders, first_with, leaf_text, short, target_name, vmap_sites, where


class VmapInAxesArity(ThroughForwarders):
    """
    ## What it does
    Reports a `jax.vmap` whose `in_axes` does not fit the arguments it is given:
    - a tuple or list `in_axes` whose length differs from the number of positional
      arguments of a call (a call passing `*args` counts as every number of positional
      arguments the mapped function can take there), or that has more entries than the
      mapped function can take positionally at all;
    - an entry that is not a prefix of its argument's structure: a tuple entry for a
      dict argument, a dict entry whose keys are not the argument's, a tuple entry of
      another length than the argument's tuple.

    Calls are followed through the names the vmapped function is bound to, the defs it
    is handed to, and the defs that forward it their `*args` (in this module or another
    one).

    ## Why is this bad?
    `vmap` matches `in_axes` to the positional arguments one by one, then each entry
    to its argument's pytree, and raises when the call runs: `ValueError: vmap in_axes
    must be an int, None, or a tuple of entries corresponding to the positional
    arguments passed to the function, but got len(in_axes)=2, len(args)=3`, or `vmap
    in_axes specification must be a tree prefix of the corresponding value`. Keyword
    arguments never count: they are always mapped over axis 0.

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
    summary = "`vmap` `in_axes` does not match the positional arguments or their structure"
    status = "stable"
    help = "Give `in_axes` one entry per positional argument, each a prefix of its argument"
    about = ("jax.vmap",)
    shapes_needed = False  # the number of arguments is enough (a forwarder may shard_map them)
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
        (
            "import jax, jax.numpy as jnp\nparams = {'w': jnp.ones(3), 'b': jnp.ones(3)}\n"
            "out = jax.vmap(lambda p, x: x, in_axes=({'w': 0}, 0))(params, jnp.ones(3))\n",
            Invalid("JAX102", line=3, message="is not a prefix of `params`"),
        ),
    )

    def finish(self) -> None:
        for site in vmap_sites(self.ctx):
            if self._calls(site):
                continue
            self._static(site)

    def _shown(self, site: Site, n: int) -> str:
        assert site.in_axes_node is not None
        return f"`in_axes={short(self.ctx, site.in_axes_node, 60)}` has {n} entr{'y' if n == 1 else 'ies'}"

    def _calls(self, site: Site) -> bool:
        """Report the first call that does not fit; True when one was reported."""
        ctx = self.ctx
        p = program(ctx)
        found = sorted(first_with(site, ("arity", "structure"), shapes=False), key=lambda ei: ei[0].assumed is not None)
        for e, issue in found:
            rec = e.record
            written = p.written_call(rec.node) if rec.node is not None else None
            if issue.kind == "arity":
                n = _entries(site)
                if n is None or site.in_axes_node is None:
                    continue
                note = " (keyword arguments never count: vmap maps them over axis 0)" if rec.keywords else ""
                if written is not None and written is not rec.node:
                    note += f" (`{short(ctx, written.func, 40)}` passes its trailing arguments on with `*args`)"
                call_text = f" in `{short(ctx, written)}`" if written is not None else ""
                message = (
                    f"{self._shown(site, n)}, but `{site.label}` is called with {rec.positional} positional "
                    f"argument{'s' if rec.positional != 1 else ''}{call_text}{note}; JAX raises `ValueError: vmap "
                    f"in_axes must be ... a tuple of entries corresponding to the positional arguments`. Give one "
                    f"entry per positional argument"
                )
            else:
                leaf = issue.leaves[0]
                message = (
                    f"`{site.label}`: the `in_axes` entry for {leaf_text(ctx, rec, leaf)} is not a prefix of "
                    f"{leaf_text(ctx, rec, leaf)}, which is {_structure(leaf.value)}{where(ctx, rec, site)}; JAX "
                    f"raises `ValueError: vmap in_axes specification must be a tree prefix of the corresponding "
                    f"value`. Give that argument one entry, or one that has its structure"
                )
            self.verdict(site.node, message, e)
            return True
        return False

    def _static(self, site: Site) -> None:
        """No call fails: an in_axes longer than the function takes, or a ``*args`` call
        that can pass no count of arguments the function takes."""
        ev = program(self.ctx).evaluator
        t = site.mapped.value
        n = _entries(site)
        if t is None or n is None or site.in_axes_node is None:
            return
        sig = ev.signature(t.target)
        if sig is None:
            return
        _least, most = sig.positional_counts()
        name = target_name(site)
        if most is not None and n > most:
            params = ", ".join(p.name for p in sig.positional) or "none"
            self.report(
                site.node,
                f"{self._shown(site, n)}, but {name} takes at most {most} positional argument"
                f"{'s' if most != 1 else ''} ({params}); every call of `{site.label}` will fail. Give one entry "
                f"per positional argument",
            )
            return
        for call in self._star_calls(site):
            written = [a for a in call.args if a.keyword is None and not a.star]
            named = {a.keyword.value for a in call.args if a.keyword is not None}
            if any(a.star == "**" for a in call.args):
                return
            lo = max(len(written), sum(1 for p in sig.positional if p.required and p.name not in named))
            hi = most
            for i, p in enumerate(sig.positional):
                if p.name in named and p.kind != "posonly":
                    hi = i if hi is None else min(hi, i)
            if (hi is not None and hi < lo) or (lo <= n and (hi is None or n <= hi)):
                continue
            count = f"exactly {lo}" if lo == hi else f"at least {lo}" if hi is None else f"{lo} to {hi}"
            stars = [f"`*{self.ctx.code(a.value)}`" for a in call.args if a.star == "*"]
            holds = f"{' and '.join(stars)} hold{'s' if len(stars) == 1 else ''}"
            self.report(
                site.node,
                f"{self._shown(site, n)}, but `{site.label}` is called with `{short(self.ctx, call)}`: whatever "
                f"{holds}, {name} takes {count} positional arguments there; JAX raises `ValueError: vmap in_axes "
                f"must be ... a tuple of entries corresponding to the positional arguments`, or the call of {name} "
                f"fails. Give one entry per positional argument",
            )
            return

    def _star_calls(self, site: Site) -> list[Any]:
        p = program(self.ctx)
        calls, _ = p.invocations(site.node, callees=True)
        return [c for c in calls if any(a.star == "*" for a in c.args)]


def _entries(site: Site) -> int | None:
    t = site.mapped.value
    if t is None:
        return None
    v = t.option("in_axes")
    return len(v.items) if type(v) in (Tuple, List) else None


def _structure(v: Any) -> str:
    from jaxlint.model.abstract import Dict

    if type(v) is Dict:
        keys = ", ".join(repr(k) for k, _ in v.items)
        return f"a dict with keys {keys}"
    if type(v) in (Tuple, List):
        return f"a {type(v).__name__.lower()} of {len(v.items)}"
    return describe(v)
