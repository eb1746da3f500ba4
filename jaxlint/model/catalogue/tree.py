"""``jax.tree`` and ``jax.tree_util``."""

from __future__ import annotations

from ..abstract import Const
from ..signature import Signature
from . import Op, register
from . import trees as t
from .build import Entries, family
from .rules import opaque

TREE = ("jax.tree",)
UTIL = ("jax.tree_util",)

TABLE: Entries = {
    **family(TREE, ["map"], t.tree_map, calls=("f",)),
    **family(UTIL, ["tree_map"], t.tree_map, calls=("f",)),
    # jax 0.10.2 no longer has it (removed in 0.6.0): its signature as jax 0.4.35 declares it
    "jax.tree_map": lambda: Op(
        Signature.of("f", "tree", "*rest", "is_leaf", is_leaf=Const(None)), t.tree_map, calls=("f",)
    ),
    **family(TREE, ["map_with_path"], opaque, calls=("f",)),
    **family(UTIL, ["tree_map_with_path"], opaque, calls=("f",)),
    **family(TREE, ["reduce"], opaque, calls=("function",)),
    **family(UTIL, ["tree_reduce"], opaque, calls=("function",)),
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
    **family(TREE, ["structure", "unflatten", "transpose", "flatten_with_path"], opaque),
    **family(
        UTIL,
        [
            "tree_structure",
            "tree_unflatten",
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
# calls whose first argument, a class, becomes a type JAX transforms accept with its own
# flattening: a pytree node, a static node, or (``batching.register_vmappable``) a type vmap
# maps through its own rules
REGISTERS_TYPE = REGISTERS_CLASS | frozenset(
    {
        "jax.tree_util.register_pytree_node",
        "jax.tree_util.register_pytree_with_keys",
        "jax.tree_util.register_dataclass",
        "jax.tree_util.register_static",
        "jax.interpreters.batching.register_vmappable",
        "jax._src.interpreters.batching.register_vmappable",
    }
)


def takes_pytrees(q: str) -> bool:
    """Is ``q`` (a public name) a function of ``jax.tree`` / ``jax.tree_util``, which take
    their arguments as pytrees?"""
    return q in TABLE or q.rpartition(".")[0] in (*TREE, *UTIL)


register(TABLE)
