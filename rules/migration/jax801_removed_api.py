from __future__ import annotations

import libcst as cst

from jaxlint.config import parse_version
from jaxlint.rule import Invalid, Rule

from .table import BY_OLD, Entry


def _removed_by(entry: Entry, target: tuple[int, ...]) -> bool:
    return entry.removed is not None and parse_version(entry.removed) <= target


class RemovedApi(Rule):
    """
    ## What it does
    Reports uses of JAX APIs that no longer exist in the targeted JAX version
    (`target-jax-version`, default 0.10.2): `jax.tree_map`, `jax.tree_util.tree_multimap`,
    `jax.experimental.maps.xmap`, `jax.ops.index_update`, `jax.experimental.host_callback`, …
    Attribute uses (`jax.tree_map(...)`) and imports (`from jax import tree_map`,
    `import jax.experimental.host_callback as hcb`) are both reported.

    ## Why is this bad?
    The code fails as soon as it runs on a current JAX: `AttributeError: module 'jax'
    has no attribute 'tree_map'`, or `ModuleNotFoundError` for removed modules, often
    deep inside a training loop after minutes of set-up.

    ## Example
    ```python
    params = jax.tree_map(lambda p, g: p - lr * g, params, grads)
    ```

    ## Use instead
    ```python
    params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
    ```

    ## Options
    `target-jax-version` (top-level setting): only APIs removed in or before this
    version are reported.

    ## References
    - [JAX changelog](https://docs.jax.dev/en/latest/changelog.html)
    - [JAX API compatibility policy](https://docs.jax.dev/en/latest/api_compatibility.html)
    """

    code = "JAX801"
    name = "removed-api"
    summary = "Use of a JAX API that was removed"
    help = "Use the replacement named in the message"
    triggers = ("tree_map", "tree_multimap", "tree_flatten", "tree_leaves", "tree_unflatten",
                "tree_structure", "tree_transpose", "maps", "host_callback", "index_update",
                "index_add", "index_mul", "index_min", "index_max")
    VALID = [
        "import jax\nparams = jax.tree.map(lambda p: p * 2, params)\n",
        "import jax\nparams = jax.tree_util.tree_map(lambda p: p * 2, params)\n",
        "from jax import tree_util\nx = tree_util.tree_map(f, t)\n",
        "def tree_map(f, t):\n    return f(t)\ny = tree_map(g, 1)\n",
    ]
    INVALID = [
        ("import jax\nparams = jax.tree_map(lambda p: p * 2, params)\n", Invalid("JAX801", line=2, message="jax.tree.map")),
        ("import jax as J\nJ.tree_util.tree_multimap(f, a, b)\n", Invalid("JAX801", line=2)),
        ("from jax import tree_map\n", Invalid("JAX801", line=1)),
        ("from jax.experimental.maps import xmap\n", Invalid("JAX801", line=1)),
        ("import jax.experimental.host_callback as hcb\n", Invalid("JAX801", line=1)),
    ]

    def _target(self) -> tuple[int, ...]:
        s = self.ctx.settings
        return s.target_version if s is not None else parse_version("0.10.2")

    def _entry(self, qualified: str | None) -> Entry | None:
        if qualified is None:
            return None
        entry = BY_OLD.get(qualified)
        if entry is None:
            # a member of a removed module: jax.experimental.maps.xmap
            parts = qualified.split(".")
            for i in range(len(parts) - 1, 1, -1):
                e = BY_OLD.get(".".join(parts[:i]))
                if e is not None and e.kind == "manual":
                    entry = e
                    break
        if entry is None or not _removed_by(entry, self._target()):
            return None
        return entry

    def _message(self, shown: str, entry: Entry) -> str:
        msg = f"`{shown}` was removed in JAX {entry.removed}"
        if entry.deprecated:
            msg += f" (deprecated since {entry.deprecated})"
        if entry.replacement:
            msg += f"; use `{entry.replacement}`"
        if entry.note:
            msg += f" ({entry.note})"
        return msg

    def visit_Attribute(self, node: cst.Attribute) -> None:
        parent = self.ctx.parent(node)
        if isinstance(parent, cst.Attribute) and parent.value is node and self._entry(self.ctx.resolve(parent)):
            return  # the longer name is reported
        if isinstance(parent, (cst.Import, cst.ImportFrom, cst.ImportAlias)):
            return
        entry = self._entry(self.ctx.resolve(node))
        if entry is not None:
            self.report(node, self._message(self.ctx.code(node), entry))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar) or node.module is None or node.relative:
            return
        base = self.ctx.code(node.module)
        module_entry = self._entry(base)
        if module_entry is not None:
            self.report(node, self._message(base, module_entry))
            return
        for alias in node.names:
            name = self.ctx.code(alias.name)
            entry = self._entry(f"{base}.{name}")
            if entry is not None:
                self.report(alias, self._message(f"{base}.{name}", entry))

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            name = self.ctx.code(alias.name)
            entry = self._entry(name)
            if entry is not None:
                self.report(alias, self._message(name, entry))
