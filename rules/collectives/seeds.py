"""Which units JAX201 must see: those that call a collective with a readable axis name.

Read from the ``ast`` outline (see ``jaxlint/plan/slicing.py``). JAX201 only decides a
collective whose axis name is a literal or a module-level constant; a call with a
parameter as its axis name (``lax.psum(x, axis_name)`` inside JAX's own ``pmean``) is
not a site, so its callers need not be followed through the whole project. Calls through
a module-level alias (``psum_i = partial(lax.psum, axis_name="i")``) always count.
"""

from __future__ import annotations

import ast

from jaxlint.plan.outline import Outline, walk
from jaxlint.plan.slicing import anchor_names

from .analysis import COLLECTIVES

_ANCHORS = frozenset(COLLECTIVES)


def collective_seeds(ol: Outline) -> set[int]:
    names = anchor_names(ol, _ANCHORS)
    aliases = names - _ANCHORS
    constants = {a for u in ol.units if u.name is None for a in u.assigns}
    out: set[int] = set()
    for i, u in enumerate(ol.units):
        if names.isdisjoint(u.idents) or names.isdisjoint(ol.code_names(i)):
            continue
        if any(_site(n, names, aliases, constants) for root in ol.nodes[i] for n in walk(root)):
            out.add(i)
    return out | _whole_classes(ol, out)


_MAP_WORDS = frozenset({"pmap", "vmap", "shard_map", "smap"})


def _whole_classes(ol: Outline, seeds: set[int]) -> set[int]:
    """Every member of a class that maps a seed, or a function of one, and may keep the
    result on ``self`` for another method to call: the program model reads instance
    attributes only from a class it sees whole (``jaxlint/model/attributes.py``)."""
    units = ol.units
    seed_defs = {units[i].name for i in seeds if units[i].owner is None and units[i].name}
    candidates = {i for i in seeds if units[i].owner is not None}
    candidates |= {i for i, u in enumerate(units) if u.owner is not None and not seed_defs.isdisjoint(u.idents)}
    owners = {units[i].owner for i in candidates}
    mapping = {u.owner for u in units if u.owner in owners and not _MAP_WORDS.isdisjoint(u.idents)}
    return {i for i, u in enumerate(units) if u.owner in mapping}


def _site(node: ast.AST, names: frozenset[str], aliases: frozenset[str], constants: set[str]) -> bool:
    if type(node) is not ast.Call:
        return False
    last = _last(node.func)
    args = list(node.args)
    if last == "partial" and args:  # partial(lax.psum, axis_name="i")
        last = _last(args.pop(0))
    if last not in names:
        return False
    if last in aliases or any(k.arg is None for k in node.keywords):
        return True
    return any(_readable(v, constants) for v in [*args, *(k.value for k in node.keywords)])


def _last(func: ast.AST) -> str | None:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _readable(v: ast.AST, constants: set[str]) -> bool:
    if isinstance(v, ast.Constant):
        return isinstance(v.value, str)
    if isinstance(v, (ast.Tuple, ast.List)):
        return any(_readable(e, constants) for e in v.elts)
    if isinstance(v, ast.Name):
        return v.id in constants
    return bool(isinstance(v, ast.Starred))
