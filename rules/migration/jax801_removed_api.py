"""JAX801: a JAX API that the target version no longer has (data in ``table.py``)."""

from __future__ import annotations

from jaxlint.lint.rule import Invalid

from .analysis import MigrationRule
from .table import TRIGGERS


class RemovedApi(MigrationRule):
    """
    ## What it does
    Reports uses of JAX APIs that no longer exist in the targeted JAX version
    (`target-jax-version`, default 0.10.2): `jax.tree_map`, `jax.tree_util.tree_multimap`,
    `jax.experimental.maps.xmap`, `jax.ops.index_update`, `jax.experimental.host_callback`,
    removed keywords such as `jnp.reshape(a, newshape=...)` or pjit's `in_axis_resources`,
    and removed config options. Attribute uses (`jax.tree_map(...)`) and imports
    (`from jax import tree_map`, `import jax.experimental.host_callback as hcb`) are both
    reported. Compatibility shims are skipped: code inside a `try:` whose `except` catches
    `AttributeError`/`ImportError`, inside `if hasattr(...)` / version checks, or inside
    `with pytest.raises(...)`-style blocks that exercise the old name on purpose.

    ## Why is this bad?
    The code fails as soon as it runs on a current JAX: `AttributeError: module 'jax'
    has no attribute 'tree_map'`, `ModuleNotFoundError` for removed modules, or `TypeError`
    for removed keywords, often deep inside a training loop after minutes of set-up.

    ## Example
    ```python
    params = jax.tree_map(lambda p, g: p - lr * g, params, grads)
    x = jax.ops.index_update(x, jax.ops.index[0], 1.0)
    ```

    ## Use instead
    ```python
    params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
    x = x.at[0].set(1.0)
    ```

    ## Fix safety
    Pure renames (`jax.tree_map` → `jax.tree.map`, moved modules, renamed keywords) and
    exact call rewrites (`index_update` → `.at[...].set`, `tie_in(x, y)` → `y`) are safe.
    A fix that reuses an alias keeps it (`import jax as J` gives `J.tree.map`); a missing
    `import jax` is added. `from jax import tree_map` becomes `from jax.tree_util import
    tree_map`, so every use stays valid. Rewrites that could drop a side effect or reorder
    argument evaluation, and `jax.xla_computation` → `jax.jit(...).lower(...)`, are unsafe.
    APIs whose replacement behaves differently (xmap, host_callback, `sph_harm`, …) get a
    message only.

    ## Options
    `target-jax-version` (top-level setting): only APIs removed in or before this version
    are reported, and no replacement newer than it is suggested (below 0.4.25,
    `jax.tree_util.tree_map` instead of `jax.tree.map`).

    ## References
    - [JAX changelog](https://docs.jax.dev/en/latest/changelog.html)
    - [JAX API compatibility policy](https://docs.jax.dev/en/latest/api_compatibility.html)
    """

    code = "JAX801"
    name = "removed-api"
    summary = "Use of a JAX API that was removed"
    help = "Use the replacement the finding names"
    status = "stable"
    fix_availability = "sometimes"
    category = "removed"
    triggers = TRIGGERS
    VALID = (
        "import jax\nparams = jax.tree.map(lambda p: p * 2, params)\n",
        "import jax\nparams = jax.tree_util.tree_map(lambda p: p * 2, params)\n",
        "from jax import tree_util\nx = tree_util.tree_map(f, t)\n",
        "def tree_map(f, t):\n    return f(t)\ny = tree_map(g, 1)\n",
        "import jax\ntry:\n    tm = jax.tree.map\nexcept AttributeError:\n    tm = jax.tree_map\n",
        "import jax\nif hasattr(jax, 'tree'):\n    tm = jax.tree.map\nelse:\n    tm = jax.tree_map\n",
        "import jax.numpy as jnp\ny = jnp.reshape(x, shape=(2, 3))\n",
        "from jax import config\nconfig.update('jax_enable_x64', True)\n",
    )
    INVALID = (
        (
            "import jax\nparams = jax.tree_map(lambda p: p * 2, params)\n",
            Invalid(
                "JAX801",
                line=2,
                message="jax.tree.map",
                fixed="import jax\nparams = jax.tree.map(lambda p: p * 2, params)\n",
            ),
        ),
        (
            "import jax as J\nJ.tree_util.tree_multimap(f, a, b)\n",
            Invalid("JAX801", line=2, fixed="import jax as J\nJ.tree_util.tree_map(f, a, b)\n"),
        ),
        ("from jax import tree_map\n", Invalid("JAX801", line=1, fixed="from jax.tree_util import tree_map\n")),
        ("from jax.experimental.maps import xmap\n", Invalid("JAX801", line=1)),
        ("import jax.experimental.host_callback as hcb\n", Invalid("JAX801", line=1)),
        (
            "import jax\nx = jax.ops.index_update(x, jax.ops.index[0], 1.0)\n",
            Invalid("JAX801", line=2, fixed="import jax\nx = x.at[0].set(1.0)\n"),
        ),
        (
            "import jax.numpy as jnp\ny = jnp.reshape(x, newshape=(2, 3))\n",
            Invalid(
                "JAX801", line=2, message="shape=", fixed="import jax.numpy as jnp\ny = jnp.reshape(x, shape=(2, 3))\n"
            ),
        ),
    )
