"""``jax.tree`` and ``jax.tree_util``."""

from __future__ import annotations

from . import register
from . import trees as t
from .build import Entries, family
from .rules import opaque

TREE = ("jax.tree",)
UTIL = ("jax.tree_util",)

TABLE: Entries = {
    **family(TREE, ["map"], t.tree_map),
    **family(UTIL, ["tree_map"], t.tree_map),
    **family(TREE, ["leaves"], t.tree_leaves),
    **family(UTIL, ["tree_leaves"], t.tree_leaves),
    **family(TREE, ["flatten"], t.tree_flatten),
    **family(UTIL, ["tree_flatten"], t.tree_flatten),
    **family(TREE, ["all"], t.python_bool),
    **family(UTIL, ["tree_all", "all_leaves", "treedef_is_leaf"], t.python_bool),
    **family(UTIL, ["Partial"], t.partial),
    **family(TREE, ["leaves_with_path"], t.leaves_with_path),
    **family(UTIL, ["tree_leaves_with_path"], t.leaves_with_path),
    **family(UTIL, ["is_tree_node"], t.python_bool),
    # class decorators: the class, registered (``REGISTERS_CLASS``)
    **family(UTIL, ["register_pytree_node_class", "register_pytree_with_keys_class"], t.the_class),
    **family(UTIL, ["treedef_tuple", "flatten_one_level", "tree_broadcast"], opaque),
    **family(TREE, ["structure", "unflatten", "map_with_path", "reduce", "transpose", "flatten_with_path"], opaque),
    **family(
        UTIL,
        [
            "tree_structure",
            "tree_unflatten",
            "tree_map_with_path",
            "tree_reduce",
            "tree_transpose",
            "tree_flatten_with_path",
            "keystr",
            "register_pytree_node",
            "register_pytree_with_keys",
            "register_dataclass",
            "register_static",
        ],
        opaque,
    ),
}

# decorators that make the class they decorate a pytree with its own flattening
REGISTERS_CLASS = frozenset(
    {"jax.tree_util.register_pytree_node_class", "jax.tree_util.register_pytree_with_keys_class"}
)

register(TABLE)
