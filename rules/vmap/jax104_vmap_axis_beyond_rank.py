from __future__ import annotations

from typing import Any

from jaxlint.lint.rule import Invalid
from jaxlint.model import program
from jaxlint.model.abstract import Array, Const, Dict, List, Scalar, Transformed, Tuple, as_array, describe
from jaxlint.model.carriers import carrying_calls

from .analysis import ABOUT, Site, ThroughForwarders, first_with, in_axes_fix, leaf_text, vmap_sites, where

FIX_TITLE = "Give the unmappable argument `None` in `in_axes`"


class VmapAxisBeyondRank(ThroughForwarders):
    """
    ## What it does
    Reports a call of a `jax.vmap`ped function that maps an argument along an axis it
    does not have: a Python number (`len(xs)`, a learning rate, `x.shape[0]`: rank 0),
    `in_axes=2` for an array of rank 2, or a value that is not an array at all (a
    function, a string, an instance of a plain class). A pytree argument is mapped leaf
    by leaf, so a rank-0 leaf (`jnp.zeros(())`, a Python float in a dict of
    hyperparameters) fails too; keyword arguments are always mapped along axis 0.

    The values are what the program computes, through the functions that build them
    and the calls that pass them (each visible call is a context of its own); unknown
    values are not judged.

    ## Why is this bad?
    `vmap` slices every mapped argument along its axis, so the axis must exist. JAX
    raises when the call runs: `ValueError: vmap was requested to map its argument along
    axis 0, which implies that its rank should be at least 1, but is only 0 (its shape is
    ())`, or `TypeError: ... is not a valid JAX type` for a function or a string. A
    scalar passed next to batched arrays is almost always shared by every example: its
    `in_axes` entry should be `None`.

    ## Example
    ```python
    def scale(x, n):
        return x * n

    out = jax.vmap(scale)(jnp.ones((8, 3)), len(names))
    ```

    ## Use instead
    ```python
    out = jax.vmap(scale, in_axes=(0, None))(jnp.ones((8, 3)), len(names))
    ```

    ## Fix safety
    When the offending value is a whole positional argument, the fix puts `None` at its
    position of `in_axes`. It is unsafe: it changes what each example receives.

    ## References
    - [jax.vmap](https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html)
    """

    code = "JAX104"
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    name = "vmap-axis-beyond-rank"
    summary = "`vmap` maps an argument along an axis it does not have"
    status = "stable"
    fix_availability = "sometimes"
    help = "Give an argument every example shares `None` in `in_axes`"
    about = ABOUT
    reads = ("calls", "forwarders", "project anchors")

    VALID = (
        "import jax, jax.numpy as jnp\nout = jax.vmap(lambda x, n: x * n, in_axes=(0, None))(jnp.ones((8, 3)), 3)\n",
        "import jax, jax.numpy as jnp\nout = jax.vmap(lambda x: x, in_axes=1)(jnp.ones((8, 3)))\n",
    )
    INVALID = (
        (
            "import jax, jax.numpy as jnp\nout = jax.vmap(lambda x, n: x * n)(jnp.ones((8, 3)), 3)\n",
            Invalid(
                "JAX104",
                line=2,
                message="maps `3` along axis 0, but it is the Python int `3` (rank 0)",
                fixed="import jax, jax.numpy as jnp\n"
                "out = jax.vmap(lambda x, n: x * n, in_axes=(0, None))(jnp.ones((8, 3)), 3)\n",
            ),
        ),
        (
            "import jax, jax.numpy as jnp\nout = jax.vmap(lambda x: x, in_axes=2)(jnp.ones((8, 3)))\n",
            Invalid("JAX104", line=2, message="maps `jnp.ones((8, 3))` along axis 2, but it has shape (8, 3)"),
        ),
    )

    def finish(self) -> None:
        for site in vmap_sites(self.ctx):
            static = static_but_mapped(self.ctx, site) if not site.foreign else None
            if static:
                n = static[0]
                self.report(
                    site.node,
                    f"`{site.label}` maps argument {n + 1}, which the `jax.jit` around it makes static",
                    note=(
                        "`static_argnums` makes every call pass it as a Python value, which has no axis to map: JAX "
                        "raises `ValueError: vmap was requested to map its argument along axis 0 ...`; give it "
                        "`None` in `in_axes`"
                    ),
                )
                continue
            for e, issue in first_with(site, ("rank", "type")):
                rec = e.record
                leaf = issue.leaves[0]
                v = leaf.value
                if issue.kind == "type":
                    what = f"it is {describe(v)}, not a JAX type"
                    raises = "`TypeError: ... is not a valid JAX type`"
                elif type(v) is Array:
                    what = f"it has shape {v.shape}"
                    raises = "`ValueError: vmap was requested to map its argument along axis ...`"
                elif type(v) in (Const, Scalar):
                    what = f"it is {describe(v)} (rank 0)"
                    raises = "`ValueError: vmap was requested to map its argument along axis ...`"
                else:
                    a = as_array(v)
                    what = f"it has shape {a.shape}" if a is not None else "it has no such axis"
                    raises = "`ValueError: vmap was requested to map its argument along axis ...`"
                fix = None
                if not leaf.path and isinstance(leaf.arg, int):
                    fix = in_axes_fix(self.ctx, site, {leaf.arg}, rec.positional, FIX_TITLE)
                message = f"`{site.label}` maps {leaf_text(self.ctx, rec, leaf)} along axis {leaf.axis}, but {what}"
                place = where(self.ctx, rec, site).strip()
                note = f"{place + ': ' if place else ''}JAX raises {raises}; give it `None` in `in_axes`"
                self.report_evaluated(site.node, message, e, fix, note=note)
                break


def static_but_mapped(ctx: Any, site: Site) -> list[int]:
    """Positions a ``jit`` around this vmap makes static (``static_argnums``) while the
    vmap maps them: every call passes a Python value there, which has no axis to map."""
    t = site.mapped.value
    if t is None:
        return []
    in_axes = t.option("in_axes", Const(0))
    for jit in _jits_around(ctx, site, t):
        static = jit.option("static_argnums", Const(None))
        picked = (
            [static.value]
            if type(static) is Const and isinstance(static.value, int)
            else [x.value for x in static.items if type(x) is Const and isinstance(x.value, int)]
            if type(static) in (Tuple, List)
            else []
        )
        out = []
        for i in picked:
            if type(in_axes) in (Tuple, List):
                if 0 <= i < len(in_axes.items) and _maps(in_axes.items[i]):
                    out.append(i)
            elif _maps(in_axes):
                out.append(i)
        if out:
            return out
    return []


def _jits_around(ctx: Any, site: Site, t: Transformed) -> list[Transformed]:
    """The ``jax.jit`` values made of this vmap: a decorator stacked above it, or a call
    the vmapped value is handed to (``jax.jit(jax.vmap(f), static_argnums=...)``)."""
    p = program(ctx)
    ev = p.evaluator
    made: list[Any] = []
    if site.mapped.app.decorator:
        fn = ctx.parents.get(ctx.parents.get(site.node))
        made.append(ev.value(fn, None))
    for call in carrying_calls(p, [site.node]):
        with ev.probe():
            made.append(ev.value(call, None))
    out = []
    for v in made:
        while type(v) is Transformed and v is not t:
            if v.api == "jax.jit" and type(v.target) is Transformed and v.target.node is t.node:
                out.append(v)
            v = v.target
    return out


def _maps(axes: Any) -> bool:
    """Whether an ``in_axes`` entry surely maps something: an int axis, or a display with
    one among its leaves (an entry the evaluator does not know maps nothing we can show)."""
    if type(axes) is Const:
        return isinstance(axes.value, int) and not isinstance(axes.value, bool)
    if type(axes) in (Tuple, List):
        return any(_maps(x) for x in axes.items)
    if type(axes) is Dict:
        return any(_maps(v) for _, v in axes.items)
    return False
