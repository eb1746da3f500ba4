from __future__ import annotations

from jaxlint.lint.rule import Invalid, Rule

from .analysis import all_none, has_keywords, short, vmap_sites


class VmapNothingMapped(Rule):
    """
    ## What it does
    Reports a `jax.vmap` whose `in_axes` is `None`, or a tuple/list of nothing but
    `None`, without `axis_size=`.

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
    about = ("jax.vmap",)
    # the calls of a vmapped function (in its module) tell how it is used, also those made
    # through a def that calls it with its ``*args`` (in any module)
    reads = ("calls", "forwarders")

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
            if site.in_axes_node is None or site.axis_size or site.kwargs_unknown:
                continue
            if not all_none(site.in_axes):
                continue
            if isinstance(site.in_axes, (tuple, list)) and not site.in_axes:
                continue  # in_axes=() is for functions without positional arguments
            if any(has_keywords(c) for c in site.calls):
                continue  # keyword arguments are always mapped over axis 0
            self.report(
                site.node,
                f"`{site.label}` maps nothing: `in_axes={short(self.ctx, site.in_axes_node, 60)}` has no "
                f"non-`None` entry and no `axis_size=` is given, so JAX raises `ValueError: vmap must have at least "
                f"one non-None value in in_axes`. Put `0` at the batched argument's position, or pass `axis_size=`",
            )
