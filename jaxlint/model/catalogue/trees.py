"""``jax.tree``/``jax.tree_util``: ``map`` calls its function on each leaf (through
``Call.call``) and gives the first tree's structure; ``leaves`` is a List; ``flatten`` a
pair whose tree definition is not modelled; ``all`` a Python bool; ``Partial`` a partial."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jaxlint.base.literals import UNKNOWN

from ..abstract import Const, Dict, List, Partial, Scalar, Struct, Tuple, children, leaves
from . import Call
from .rules import is_none


def _subtree(tree: Any, path: tuple[Any, ...]) -> Any:
    """The part of ``tree`` at ``path`` (UNKNOWN when the structure is not known)."""
    v = tree
    for p in path:
        kids = children(v)
        if kids is None:
            return UNKNOWN
        found = [x for k, x in kids if k == p]
        if not found:
            return UNKNOWN
        v = found[0]
    return v


def rebuild(
    tree: Any,
    fn: Callable[[tuple[Any, ...], Any], Any],
    path: tuple[Any, ...] = (),
    is_leaf: Callable[[Any], bool | None] | None = None,
) -> Any:
    """``tree`` with each leaf replaced by ``fn(path, leaf)``; UNKNOWN parts stay UNKNOWN.
    ``is_leaf`` (a node: True, False, or None when not known) stops the walk at a node,
    as ``jax.tree.map``'s does (``None`` too is then a leaf)."""
    if tree is UNKNOWN:
        return UNKNOWN
    if is_leaf is not None:
        stop = is_leaf(tree)
        if stop is None:
            return UNKNOWN
        if stop:
            return fn(path, tree)
    t = type(tree)
    if t is Tuple or t is List:
        return t(tuple(rebuild(x, fn, (*path, i), is_leaf) for i, x in enumerate(tree.items)))
    if t is Dict:
        return Dict(tuple((k, rebuild(x, fn, (*path, k), is_leaf)) for k, x in tree.items))
    if t is Struct and tree.kind == "pytree":
        return Struct(
            tree.cls,
            tuple(
                (k, x if k in tree.static else rebuild(x, fn, (*path, ("attr", k)), is_leaf)) for k, x in tree.fields
            ),
            tree.kind,
            tree.static,
        )
    if t is Const and tree.value is None:
        return tree
    return fn(path, tree)


def tree_map(call: Call, f: str = "f", tree: str = "tree", rest: str = "rest") -> Any:
    """``map(f, tree, *rest, is_leaf=None)``: ``f`` of each leaf and the leaves at the same
    place in ``rest``, in ``tree``'s structure (``is_leaf`` called on every node first)."""
    fn, first = call.arg(f), call.arg(tree)
    others = call.arg(rest)
    others = others if isinstance(others, tuple) else ()
    given = call.arg("is_leaf")

    def is_leaf(node: Any) -> bool | None:
        v = call.call(given, [node])
        return v.value if type(v) is Const and isinstance(v.value, bool) else None

    return rebuild(
        first,
        lambda path, leaf: call.call(fn, [leaf, *(_subtree(o, path) for o in others)]),
        is_leaf=None if is_none(given) else is_leaf,
    )


def tree_leaves(call: Call, tree: str = "tree") -> Any:
    """``leaves(tree)``: a List of the leaves, when the structure is known."""
    if not is_none(call.arg("is_leaf")):
        return UNKNOWN
    found = [v for _, v in leaves(call.arg(tree))]
    if any(v is UNKNOWN for v in found):
        return UNKNOWN
    return List(tuple(found))


def tree_flatten(call: Call, tree: str = "tree") -> Any:
    """``flatten(tree)``: (the leaves, a tree definition the model does not describe)."""
    found = tree_leaves(call, tree)
    if found is UNKNOWN:
        return UNKNOWN
    return Tuple((found, UNKNOWN))


def leaves_with_path(call: Call, tree: str = "tree") -> Any:
    """``leaves_with_path(tree)``: a List of (path, leaf) pairs; the path's key objects
    are not modelled."""
    found = tree_leaves(call, tree)
    if found is UNKNOWN:
        return UNKNOWN
    return List(tuple(Tuple((UNKNOWN, leaf)) for leaf in found.items))


def python_bool(call: Call) -> Any:
    return Scalar("bool")


def partial(call: Call) -> Any:
    """``jax.tree_util.Partial(func, *args, **kw)``: a ``functools.partial`` that is a pytree."""
    args = call.arg("args")
    kw = call.arg("kw")
    return Partial(
        call.arg("func"),
        tuple(args) if isinstance(args, tuple) else (),
        tuple(kw.items()) if isinstance(kw, dict) else (),
    )


def the_class(call: Call) -> Any:
    """``register_pytree_node_class(cls)``: the class it registers."""
    return call.arg("cls")
