"""The API-migration catalogue: one row per removed or deprecated JAX name.

Built from ``shared/reference/jax-behaviour.md`` Part 2 (jax 0.10.2, checked by running).
``kind``: "rename" (a pure rename: safe fix), "call" (an exact call rewrite, done by the
rule's code), "manual" (semantics differ: message only).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    old: str
    replacement: str | None
    deprecated: str | None
    removed: str | None
    kind: str  # "rename" | "call" | "manual"
    note: str = ""
    reference: str = "https://docs.jax.dev/en/latest/changelog.html"
    replacement_since: str | None = None  # first jax version that has the replacement


ENTRIES: tuple[Entry, ...] = (
    Entry("jax.tree_map", "jax.tree.map", "0.4.26", "0.6.0", "rename", replacement_since="0.4.25"),
    Entry("jax.tree_flatten", "jax.tree.flatten", "0.3.15", "0.6.0", "rename", replacement_since="0.4.25"),
    Entry("jax.tree_leaves", "jax.tree.leaves", "0.3.15", "0.6.0", "rename", replacement_since="0.4.25"),
    Entry("jax.tree_unflatten", "jax.tree.unflatten", "0.3.15", "0.6.0", "rename", replacement_since="0.4.25"),
    Entry("jax.tree_structure", "jax.tree.structure", "0.3.15", "0.6.0", "rename", replacement_since="0.4.25"),
    Entry("jax.tree_transpose", "jax.tree.transpose", "0.3.15", "0.6.0", "rename", replacement_since="0.4.25"),
    Entry("jax.tree_util.tree_multimap", "jax.tree_util.tree_map", "0.3.5", "0.3.16", "rename"),
    Entry("jax.experimental.maps", "jax.shard_map", "0.4.26", "0.4.31", "manual", "xmap was removed; use jax.shard_map or jax.vmap(..., spmd_axis_name=...)"),
    Entry("jax.experimental.host_callback", "jax.debug.callback / jax.debug.print / jax.pure_callback", "0.4.26", "0.8.0", "manual", "ordering and result-shape semantics differ"),
    Entry("jax.ops.index_update", "x.at[idx].set(y)", "0.2.22", "0.3.2", "call"),
    Entry("jax.ops.index_add", "x.at[idx].add(y)", "0.2.22", "0.3.2", "call"),
    Entry("jax.ops.index_mul", "x.at[idx].multiply(y)", "0.2.22", "0.3.2", "call"),
    Entry("jax.ops.index_min", "x.at[idx].min(y)", "0.2.22", "0.3.2", "call"),
    Entry("jax.ops.index_max", "x.at[idx].max(y)", "0.2.22", "0.3.2", "call"),
)

BY_OLD: dict[str, Entry] = {e.old: e for e in ENTRIES}
