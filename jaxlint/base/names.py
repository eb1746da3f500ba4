"""Which jax API a name really is: a small import/alias table of our own.

LibCST's QualifiedNameProvider costs several times the parse; this table is built
from the import statements and simple assignments of one file in a single walk.
Flow-insensitive on purpose: an import anywhere in the file (also inside a function)
binds its name for the whole file, unless the same name is bound to two different
things, in which case it resolves to nothing (unknown means silent).
"""

from __future__ import annotations

import libcst as cst

from .definitions import DEFINED_AT

# Names that mean the same API under another spelling.
ALIASES: dict[str, str] = {
    "jax.experimental.shard_map.shard_map": "jax.shard_map",
    "jax.experimental.shard.shard_map": "jax.shard_map",
    "jax.sharding.Mesh": "jax.sharding.Mesh",
    "jax.P": "jax.sharding.PartitionSpec",
    "jax.api.vmap": "jax.vmap",
    "jax.api.pmap": "jax.pmap",
    "jax.api.grad": "jax.grad",
    "jax.experimental.pjit.pjit": "jax.experimental.pjit.pjit",
    "jax.numpy.linalg": "jax.numpy.linalg",
    "jax.custom_derivatives.custom_vjp": "jax.custom_vjp",
    "jax.custom_derivatives.custom_jvp": "jax.custom_jvp",
}

_CONFLICT = "<conflict>"


def canonical(q: str) -> str:
    """The public name of the API ``q`` spells: an alias above, or where jax defines a
    public function (``jax._src.api.vmap`` is ``jax.vmap``: ``definitions.py``)."""
    return ALIASES.get(q) or DEFINED_AT.get(q, q)


def last_name(node: cst.BaseExpression) -> str | None:
    """The last name of ``a.b.c`` or ``c`` (a callee's short name), else None."""
    if type(node) is cst.Attribute:  # exact types: cheaper than isinstance on this hot path
        return node.attr.value
    return node.value if type(node) is cst.Name else None


def dotted(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` as a string, or None when the expression is not a plain dotted name."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def _module_name(node: cst.BaseExpression) -> str:
    return dotted(node) or ""


class ImportTable:
    """Local name -> fully qualified name, from a file's imports and aliases."""

    def __init__(self, module: str = "", is_package: bool = False) -> None:
        self.module = module
        self.is_package = is_package
        self._names: dict[str, str] = {}

    # -- building ---------------------------------------------------------------
    def bind(self, local: str, qualified: str) -> None:
        old = self._names.get(local)
        if old is None:
            self._names[local] = qualified
        elif old != qualified:
            self._names[local] = _CONFLICT

    def add_import(self, node: cst.Import) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            full = _module_name(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.bind(alias.asname.name.value, full)
            else:
                top = full.split(".")[0]
                self.bind(top, top)

    def add_import_from(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        base = _module_name(node.module) if node.module is not None else ""
        if node.relative:
            base = self._absolute(len(node.relative), base)
        for alias in node.names:
            name = _module_name(alias.name)
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.bind(local, f"{base}.{name}" if base else name)

    def _absolute(self, level: int, base: str) -> str:
        parts = self.module.split(".") if self.module else []
        if not self.is_package:
            parts = parts[:-1]
        if level > 1:
            parts = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
        prefix = ".".join(parts)
        if base:
            return f"{prefix}.{base}" if prefix else base
        return prefix

    def add_alias(self, local: str, value: cst.BaseExpression) -> None:
        """``pmean = jax.lax.pmean`` at module level makes ``pmean`` an alias."""
        target = self.resolve(value)
        if target is not None and target.split(".")[0] in ("jax", "functools", "flax", "optax", "equinox"):
            self.bind(local, target)

    # -- querying ---------------------------------------------------------------
    def lookup(self, local: str) -> str | None:
        q = self._names.get(local)
        return None if q is None or q == _CONFLICT else q

    def resolve(self, node: cst.BaseExpression) -> str | None:
        """The qualified name an expression refers to, e.g. ``J.lax.pmean`` -> ``jax.lax.pmean``."""
        name = dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        q = self.lookup(head)
        if q is None:
            return None
        full = f"{q}.{rest}" if rest else q
        return canonical(full)

    def local_names_for(self, qualified: str) -> list[str]:
        """Every spelling under which this file could refer to ``qualified``."""
        out = []
        for local, q in self._names.items():
            if q == _CONFLICT:
                continue
            if qualified == q:
                out.append(local)
            elif qualified.startswith(q + "."):
                out.append(local + qualified[len(q) :])
        return sorted(out, key=len)

    def items(self) -> dict[str, str]:
        return {k: v for k, v in self._names.items() if v != _CONFLICT}
