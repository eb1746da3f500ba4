"""Which units JAX201 must see: those that call a collective, and those whose binding
sites name axes (the project's axis vocabulary, ``jaxlint/model/vocabulary.py``).

Read from the ``ast`` outline (see ``jaxlint/plan/slicing.py``). The axis name of a
collective is a value the model evaluates (a literal, a constant, a local, a config
field, a parameter some visible call passes), so every call of a collective is a site;
a call with no axis argument at all (``lax.psum(x)``, a ``**kwargs`` spread aside) is
not. A unit that calls a binding API (a map, a mesh, a partition spec) or gives an
axis-naming keyword a string mentions axes: it is kept for the vocabulary.
"""

from __future__ import annotations

import ast

from jaxlint.base.names import canonical
from jaxlint.model.binders import BINDING_CALLS, names_keyword
from jaxlint.plan.outline import Outline, walk
from jaxlint.plan.slicing import anchor_names

from .analysis import COLLECTIVES

_ANCHORS = frozenset(COLLECTIVES)


def collective_seeds(ol: Outline) -> set[int]:
    names = anchor_names(ol, _ANCHORS)
    aliases = names - _ANCHORS
    binding = anchor_names(ol, BINDING_CALLS)
    out: set[int] = set()
    for i, u in enumerate(ol.units):
        if (
            not names.isdisjoint(u.idents)
            and not names.isdisjoint(ol.code_names(i))
            and any(_site(n, names, aliases) for root in ol.nodes[i] for n in walk(root))
        ):
            out.add(i)
            continue
        if u.name is not None and any(_mentions(n, binding, ol.imports) for root in ol.nodes[i] for n in walk(root)):
            out.add(i)
    return out | _whole_classes(ol, out)


def _mentions(node: ast.AST, binding: frozenset[str], imports: dict[str, str]) -> bool:
    """A call of a binding API (also under a name jax gives it: ``jax.P``), or an
    axis-naming keyword, with a string or a name in its arguments (what the vocabulary
    reads)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):  # ``mesh_axes=("data",)``
        a = node.args
        positional = [*a.posonlyargs, *a.args]
        named = positional[len(positional) - len(a.defaults) :] + [
            k for k, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None
        ]
        return any(names_keyword(x.arg) for x in named)
    if type(node) is not ast.Call:
        return False
    if _last(node.func) in binding or _api(node.func, imports) in BINDING_CALLS:
        values = [*node.args, *(k.value for k in node.keywords)]
    else:
        values = [k.value for k in node.keywords if k.arg is not None and names_keyword(k.arg)]
    return any(isinstance(n, (ast.Constant, ast.Name, ast.Attribute)) for v in values for n in ast.walk(v))


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


def _site(node: ast.AST, names: frozenset[str], aliases: frozenset[str]) -> bool:
    if type(node) is not ast.Call:
        return False
    last = _last(node.func)
    args = list(node.args)
    if last == "partial" and args:  # partial(lax.psum, axis_name="i")
        last = _last(args.pop(0))
    if last not in names:
        return False
    return last in aliases or bool(args) or bool(node.keywords)


def _api(func: ast.AST, imports: dict[str, str]) -> str | None:
    """The last name of the API a dotted callee is, as jax names it (``jax.P``:
    ``PartitionSpec``), through the module's imports."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name) or func.id not in imports:
        return None
    return canonical(".".join([imports[func.id], *reversed(parts)])).rsplit(".", 1)[-1]


def _last(func: ast.AST) -> str | None:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
