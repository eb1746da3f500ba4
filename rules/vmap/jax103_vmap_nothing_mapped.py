from __future__ import annotations

from typing import Any

from jaxlint.lint.rule import Invalid
from jaxlint.model.abstract import Const, Dict, List, Tuple

from .analysis import ABOUT, ThroughForwarders, first_with, short, vmap_sites, where


def _all_none(v: Any) -> bool | None:
    """True: every leaf of an in_axes value is None; False: some is an axis; None: unknown."""
    t = type(v)
    if t is Const:
        if v.value is None:
            return True
        return False if isinstance(v.value, int) else None
    if t in (Tuple, List):
        states = {_all_none(x) for x in v.items}
    elif t is Dict:
        states = {_all_none(x) for _, x in v.items}
    else:
        return None
    if None in states:
        return None
    return all(states)


class VmapNothingMapped(ThroughForwarders):
    """
    ## What it does
    Reports a `jax.vmap` whose `in_axes` is `None`, or a tuple, list or dict of nothing
    but `None`, without `axis_size=`, when no call passes a keyword argument (those are
    always mapped along axis 0).

    ## Why is this bad?
    With no mapped argument `vmap` cannot know the batch size and raises when the
    function is called: `ValueError: vmap must have at least one non-None value in
    in_axes or axis_size must be specified`. Usually one entry was meant to be `0`.

    ## Example
    ```python
    batched = jax.vmap(predict, in_axes=(None, None))
    ```

    ## Use instead
    ```python
    batched = jax.vmap(predict, in_axes=(None, 0))
    ```
    or, to broadcast on purpose, give the size: `jax.vmap(f, in_axes=None, axis_size=8)`.

    ## References
    - [jax.vmap](https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html)
    """

    code = "JAX103"
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    name = "vmap-nothing-mapped"
    summary = "`vmap` maps no argument and has no `axis_size`"
    status = "stable"
    help = "Put `0` at the position of the batched argument, or pass `axis_size=`"
    about = ABOUT
    reads = ("calls", "forwarders", "project anchors")
    shapes_needed = False  # which entries are None is enough

    VALID = (
        "import jax\nf = jax.vmap(g, in_axes=(None, 0))\n",
        "import jax\nf = jax.vmap(g, in_axes=None, axis_size=4)\n",
        "import jax\nout = jax.vmap(g, in_axes=(None,))(w, x=xs)\n",
        "import jax\nf = jax.vmap(g, in_axes=AXES)\n",
    )
    INVALID = (
        (
            "import jax\nf = jax.vmap(g, in_axes=(None, None))\n",
            Invalid("JAX103", line=2, message="`in_axes=(None, None)`"),
        ),
        (
            "from functools import partial\nimport jax\n\n@partial(jax.vmap, in_axes=None)\ndef f(x):\n    return x\n",
            Invalid("JAX103", line=4),
        ),
    )

    def finish(self) -> None:
        for site in vmap_sites(self.ctx):
            t = site.mapped.value
            if site.foreign:
                self._foreign(site)
                continue
            if t is None or site.in_axes_node is None or t.unknown_options:
                continue
            size = t.option("axis_size", Const(None))
            if size != Const(None):
                continue
            in_axes = t.option("in_axes", Const(0))
            if _all_none(in_axes) is not True:
                continue
            if type(in_axes) in (Tuple, List) and not in_axes.items:
                continue  # in_axes=() is for functions without positional arguments
            calls = [e for e in site.calls if e.record.keywords]
            if calls:
                continue  # keyword arguments are always mapped over axis 0
            failing = next(first_with(site, ("nothing",), shapes=False), None)
            place = where(self.ctx, failing[0].record, site) if failing is not None else ""
            message = (
                f"`{site.label}` maps nothing: `in_axes={short(self.ctx, site.in_axes_node, 40)}` and no `axis_size=`"
            )
            note = (
                f"{place.strip() + ': ' if place.strip() else ''}JAX raises `ValueError: vmap must have at least one "
                "non-None value in in_axes`; put `0` at the batched argument's position, or pass `axis_size=`"
            )
            if failing is not None:
                self.report_evaluated(site.node, message, failing[0], note=note)
            else:
                self.report(site.node, message, note=note)

    def _foreign(self, site: Any) -> None:
        """A map another module makes, called here: its options as this call's evaluation
        gave them (a factory's ``in_axes=(None, batch_axis)`` with ``batch_axis`` None)."""
        failing = next(first_with(site, ("nothing",), shapes=False), None)
        if failing is None or any(e.record.keywords for e in site.calls):
            return
        t = failing[0].record.t
        if t.unknown_options or t.option("axis_size", Const(None)) != Const(None):
            return
        shown = _shown(t.option("in_axes", Const(0)))
        message = (
            f"`{site.label}` maps nothing: `in_axes={shown}` and no `axis_size=`"
            if shown
            else f"`{site.label}` maps nothing"
        )
        note = (
            f"`{site.mapped.app.callee}` is the `{site.label}` made at {site.mapped.app.foreign}: JAX raises "
            "`ValueError: vmap must have at least one non-None value in in_axes`; put `0` at the batched "
            "argument's position, or pass `axis_size=`"
        )
        self.report_evaluated(site.node, message, failing[0], note=note)


def _shown(v: Any) -> str | None:
    """``in_axes`` as Python writes it, from its abstract value (None: not a display of constants)."""
    if type(v) is Const:
        return repr(v.value)
    if type(v) in (Tuple, List):
        items = [_shown(x) for x in v.items]
        if any(i is None for i in items):
            return None
        inner = ", ".join(items)  # type: ignore[arg-type]
        return (
            f"({inner},)"
            if type(v) is Tuple and len(items) == 1
            else f"({inner})"
            if type(v) is Tuple
            else f"[{inner}]"
        )
    return None
