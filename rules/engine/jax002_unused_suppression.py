from jaxlint.lint.rule import Invalid, Rule


class UnusedSuppression(Rule):
    """
    ## What it does
    Reports a suppression comment (`# noqa: JAX…`, `# jaxlint: ignore[JAX…]`,
    `# jaxlint: noqa: JAX…`) that names a jaxlint code which is not reported where the
    comment applies.

    ## Why is this bad?
    A stale suppression hides nothing today but will silently hide a real finding
    tomorrow, and it tells readers that a pitfall lives here when it does not.
    A bare `# noqa` is never reported: other tools share it.

    ## Example
    ```python
    grads = jax.tree.map(jnp.mean, grads)  # noqa: JAX801
    ```

    ## Use instead
    ```python
    grads = jax.tree.map(jnp.mean, grads)
    ```

    ## Fix safety
    The fix removes the comment (or its line, for an own-line comment); it is safe.

    ## References
    - [ruff: RUF100](https://docs.astral.sh/ruff/rules/unused-noqa/)
    """

    code = "JAX002"
    name = "unused-suppression"
    summary = "A suppression comment suppresses nothing"
    help = "Remove the suppression comment"
    fix_availability = "safe"
    engine_rule = True
    VALID = ("import jax\nf = jax.tree_map  # noqa: JAX801\n",)
    INVALID = (
        (
            "import jax\nf = jax.tree.map  # noqa: JAX801\n",
            Invalid("JAX002", line=2, fixed="import jax\nf = jax.tree.map\n"),
        ),
    )
