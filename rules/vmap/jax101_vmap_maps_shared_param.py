from __future__ import annotations

from jaxlint.lint.rule import Invalid

from .analysis import ABOUT, ThroughForwarders, in_axes_fix, leaf_text, short, target_name, vmap_sites, where

FIX_TITLE = "Put `None` in `in_axes` for the shared parameter"

_WHAT = {
    "scalar-contraction": "contracts a rank-0 operand",
    "degenerate": "chooses among one element",
    "shape": "gets operands whose shapes do not fit",
    "rank": "indexes an axis the value does not have",
}


class VmapMapsSharedParam(ThroughForwarders):
    """
    ## What it does
    Reports a call of a `jax.vmap`ped function that slices an argument the function
    needs whole. The function is evaluated as vmap runs it, on one example's slice of
    every mapped argument: when an operation in it then certainly fails or degenerates
    — `w @ x` with `w` sliced to a vector and `x` a vector, `q.shape[-1]` of a scalar,
    `jnp.dot(w, x)` of a rank-0 `w`, which scales instead of contracting — and giving
    one mapped argument whole (its `in_axes` entry `None`) makes every such failure go
    away, that argument is shared by every example, yet vmap slices it.

    A size a module-level constant gives (`N_WORDS = 16`) keeps that constant as its
    origin while it is passed on unchanged (`jnp.zeros((N_WORDS, 3))`, `x.shape[0]`, a
    parameter given it). When the mapped axes agree in value but come from different
    constants (axis 0 of a `(D_LATENT, N_FEATURES)` projection, axis 0 of
    `(N_WORDS, N_FEATURES)` features, both 16), vmap pairs two sizes of the program
    that only happen to be equal: reported, naming the argument whose being given whole
    leaves one size mapped and a function that still runs, or the arguments of each
    size when that does not single one out.

    The arguments are what the program computes and passes (each visible call of the
    function making the vmapped call is a context of its own: the message names the
    call). Nothing is guessed from identifiers: unknown shapes are not judged.

    ## Why is this bad?
    `vmap` slices every mapped argument along its axis, so each example gets a
    different slice of the shared weights. When the slice's shape does not fit the
    computation JAX raises (`TypeError: dot_general requires contracting dimensions to
    have the same shape`, `IndexError: tuple index out of range`); when it happens to
    fit (a weight vector sliced to scalars that then scale instead of contract), the
    results are silently wrong.

    ## Example
    ```python
    def residual(w, x, y):
        return jnp.dot(w, x) - y

    r = jax.vmap(residual, in_axes=(0, 0, 0))(w, X, Y)  # w: (3,), X: (3, 3), Y: (3,)
    ```

    ## Use instead
    ```python
    r = jax.vmap(residual, in_axes=(None, 0, 0))(w, X, Y)
    ```

    ## Fix safety
    When exactly one argument makes the failures go away, the fix puts `None` at its
    position of `in_axes` (turning a default or a scalar `in_axes` into a tuple). It is
    unsafe: it changes the results, and it is wrong for code that really passes
    per-example weights of another shape.

    ## References
    - [jax.vmap](https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html)
    - [Automatic vectorization](https://docs.jax.dev/en/latest/automatic-vectorization.html)
    """

    code = "JAX101"
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    name = "vmap-maps-shared-param"
    summary = "`vmap` slices an argument the function needs whole"
    status = "stable"
    fix_availability = "sometimes"
    help = "Put `None` at that argument's position of `in_axes` so every example sees it whole"
    about = ABOUT
    reads = ("calls", "forwarders", "project anchors")

    VALID = (
        "import jax, jax.numpy as jnp\ndef linear(x, w, b):\n    return jnp.dot(w, x) + b\n"
        "f = jax.vmap(linear, in_axes=(0, None, None))\nf(jnp.ones((8, 3)), jnp.ones((5, 3)), jnp.ones(5))\n",
        "import jax, jax.numpy as jnp\ndef f(x, y):\n    return jnp.dot(x, y)\ng = jax.vmap(f)\n",
        "import jax, jax.numpy as jnp\ndef apply(params, x):\n    return x @ params['w']\n"
        "stacked = {'w': jnp.ones((4, 3, 2))}\nout = jax.vmap(apply)(stacked, jnp.ones((4, 3)))\n",
    )
    INVALID = (
        (
            "import jax, jax.numpy as jnp\ndef residual(w, x, y):\n    return jnp.dot(w, x) - y\n"
            "r = jax.vmap(residual, in_axes=(0, 0, 0))(jnp.ones(3), jnp.ones((3, 3)), jnp.ones(3))\n",
            Invalid(
                "JAX101",
                line=4,
                message="slices `jnp.ones(3)` per example, but `residual` needs it whole",
                fixed="import jax, jax.numpy as jnp\ndef residual(w, x, y):\n    return jnp.dot(w, x) - y\n"
                "r = jax.vmap(residual, in_axes=(None, 0, 0))(jnp.ones(3), jnp.ones((3, 3)), jnp.ones(3))\n",
            ),
        ),
    )

    def finish(self) -> None:
        ctx = self.ctx
        for site in vmap_sites(ctx):
            for e in site.calls:
                rec = e.record
                if e.shapes and e.certain and not rec.issues and not rec.body and rec.apart:
                    self._apart(site, e)
                    break
                if not e.shapes or not e.certain or rec.issues or not rec.body or not rec.culprits:
                    continue
                from jaxlint.model.maps import MappedLeaf

                who = [leaf_text(ctx, rec, MappedLeaf(i, (), None, 0)) for i in rec.culprits]
                problem = rec.body[0]
                lines = ctx.exact_lines([problem.node]) if problem.node is not None else {}
                at = f" at line {lines[problem.node]}" if problem.node in lines else ""
                code = f"`{short(ctx, problem.node, 40)}`{at}" if problem.node is not None else "the function"
                what = _WHAT.get(problem.kind, "fails")
                fn = target_name(ctx, site)
                if len(who) == 1:
                    message = f"`{site.label}` slices {who[0]} per example, but {fn} needs it whole"
                    advice = "give it `None` in `in_axes`"
                else:
                    message = f"`{site.label}` slices {' and '.join(who)} per example; {fn} needs one of them whole"
                    advice = "give the shared one `None` in `in_axes`"
                place = where(ctx, rec, site).strip()
                note = f"{place + ': ' if place else ''}on one example's slices, {code} {what} ({problem.message}); {advice}"
                fix = in_axes_fix(ctx, site, set(rec.culprits), rec.positional, FIX_TITLE) if len(who) == 1 else None
                self.report_evaluated(site.node, message, e, fix, note=note)
                break

    def _apart(self, site, e) -> None:
        """Mapped axes of one value but different named sizes (``D_LATENT`` and ``N_WORDS``,
        both 16): vmap pairs the rows of one with the examples of the other."""
        from jaxlint.model import dims
        from jaxlint.model.maps import MappedLeaf

        ctx, rec = self.ctx, e.record
        fn = target_name(ctx, site)
        place = where(ctx, rec, site).strip()

        def named(leaf) -> str:
            n = dims.name_of(leaf.size)
            return f"axis {leaf.axis} of {leaf_text(ctx, rec, leaf)} (`{n.label if n else leaf.size}`)"

        parts = [named(x) for x in rec.apart]
        sizes = " with ".join(parts) if len(parts) == 2 else ", ".join(parts[:-1]) + " and " + parts[-1]
        value = int(rec.apart[0].size)
        if len(rec.culprits) == 1:
            (i,) = rec.culprits
            who = leaf_text(ctx, rec, MappedLeaf(i, (), None, 0))
            message = f"`{site.label}` slices {who} per example, but {fn} needs it whole"
            advice = "give it `None` in `in_axes`"
            fix = in_axes_fix(ctx, site, {i}, rec.positional, FIX_TITLE)
        else:
            message = f"`{site.label}` maps axes of different sizes of the program together"
            advice = "give the shared one `None` in `in_axes`"
            fix = None
        note = (
            f"{place + ': ' if place else ''}it maps {sizes}: different constants, equal only in value ({value}), "
            f"so vmap pairs the entries of one with the examples of the other; {advice}"
        )
        self.report_evaluated(site.node, message, e, fix, note=note)
