"""Which units of a file the JAX5xx rules must see (read from the ``ast`` outline)."""

from __future__ import annotations

import ast

from jaxlint.plan.outline import Outline


def subscript_store_units(ol: Outline) -> set[int]:
    """Units that assign into a subscript (``x[i] = v``, ``x[i] += v``, ``x[i]: T = v``):
    the only places an in-place update can be (JAX501). What such a unit needs besides
    itself (the transform that traces its def, the calls that give it its arrays) the
    rule's ``reads`` keep."""
    hit = ol._cache.get("subscript_stores")
    if hit is None:
        hit = set()
        for i, u in enumerate(ol.units):
            if "[" not in "".join(ol.source_lines[u.start - 1 : u.end]):
                continue
            if any(_stores_subscript(n) for n in _statements(ol.nodes[i])):
                hit.add(i)
        ol._cache["subscript_stores"] = hit
    return hit


def _statements(roots: list[ast.AST]) -> list[ast.AST]:
    """The statements in and under ``roots`` (the blocks of compound statements, nested
    defs and classes), without walking any expression: an assignment is a statement."""
    out: list[ast.AST] = []
    stack = list(roots)
    while stack:
        n = stack.pop()
        out.append(n)
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(n, name, None)
            if type(block) is list:
                stack.extend(block)
    return out


def _stores_subscript(node: ast.AST) -> bool:
    if isinstance(node, ast.Assign):
        return any(type(x) is ast.Subscript for target in node.targets for x in _targets(target))
    if isinstance(node, ast.AugAssign | ast.AnnAssign):
        return type(node.target) is ast.Subscript
    return False


def _targets(target: ast.AST) -> list[ast.AST]:
    """An assignment target and, in an unpacking (``a, x[0] = ...``), its parts."""
    if isinstance(target, ast.Tuple | ast.List):
        return [x for e in target.elts for x in _targets(e.value if isinstance(e, ast.Starred) else e)]
    return [target]
