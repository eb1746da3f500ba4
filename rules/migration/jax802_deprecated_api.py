"""JAX802: a JAX API that is deprecated but still present in the target version."""

from __future__ import annotations

from jaxlint.lint.rule import Invalid

from .analysis import MigrationRule
from .table import TRIGGERS


class DeprecatedApi(MigrationRule):
    """
    ## What it does
    Reports uses of JAX APIs that are deprecated, but still present, in the targeted JAX
    version (`target-jax-version`, default 0.10.2): `jax.experimental.shard_map.shard_map`,
    `jax.experimental.pjit.pjit`, `jax.host_id`, the `jax.core.*` names that moved to
    `jax.extend.core`, `jax.interpreters.pxla.*` internals, positional `copy`/`order`/`ndmin`
    in `jnp.array`, and `with mesh:` on a `jax.sharding.Mesh` or `jax.make_mesh(...)`.
    Compatibility shims (`try`/`except AttributeError`, `hasattr` or version checks) are
    skipped.

    ## Why is this bad?
    Deprecated APIs emit a `DeprecationWarning` (a `UserWarning` for `jax.host_id`) today
    and are removed in a later release, where the code then fails with `AttributeError`.
    Some replacements differ in behaviour (`jax.shard_map` checks replication by default),
    so migrating early, with tests, is cheaper than migrating under pressure.

    ## Example
    ```python
    from jax.core import DebugInfo
    index = jax.host_id()
    ```

    ## Use instead
    ```python
    from jax.extend.core import DebugInfo
    index = jax.process_index()
    ```

    ## Fix safety
    Pure renames (`jax.host_id` → `jax.process_index`, `jax.core.X` → `jax.extend.core.X`)
    and keyword-only conversions (`jnp.array(x, dtype, False)` →
    `jnp.array(x, dtype, copy=False)`) are safe. `jax.experimental.shard_map.shard_map`,
    `jax.experimental.pjit.pjit` and `with mesh:` get a message only: their replacements
    have different signatures or semantics.

    ## Options
    `target-jax-version` (top-level setting): an API is reported when it is deprecated in
    this version and not yet removed (removed ones are JAX801).

    ## References
    - [JAX changelog](https://docs.jax.dev/en/latest/changelog.html)
    - [JAX API compatibility policy](https://docs.jax.dev/en/latest/api_compatibility.html)
    - [Migrating to jax.shard_map](https://docs.jax.dev/en/latest/notebooks/shard_map.html)
    """

    code = "JAX802"
    name = "deprecated-api"
    summary = "Use of a deprecated JAX API"
    help = "Use the replacement the finding names"
    status = "stable"
    fix_availability = "sometimes"
    category = "deprecated"
    triggers = TRIGGERS
    VALID = (
        "import jax\nindex = jax.process_index()\n",
        "from jax import shard_map\n",
        "import jax\nf = jax.jit(g)\n",
        "import jax\nmesh = jax.make_mesh((1,), ('x',))\nwith jax.set_mesh(mesh):\n    pass\n",
        "import jax\ntry:\n    from jax import shard_map\nexcept ImportError:\n    from jax.experimental.shard_map import shard_map\n",
    )
    INVALID = (
        (
            "import jax\nindex = jax.host_id()\n",
            Invalid("JAX802", line=2, message="jax.process_index", fixed="import jax\nindex = jax.process_index()\n"),
        ),
        ("from jax.experimental.shard_map import shard_map\n", Invalid("JAX802", line=1, message="jax.shard_map")),
        (
            "from jax.core import DebugInfo\n",
            Invalid("JAX802", line=1, fixed="from jax.extend.core import DebugInfo\n"),
        ),
        (
            "import jax\nmesh = jax.make_mesh((1,), ('x',))\nwith mesh:\n    pass\n",
            Invalid("JAX802", line=3, message="jax.set_mesh"),
        ),
    )
