"""What a dotted name spells through a file's imports and aliases, as a qualified name.

``spelled(p, jax_alias.vmap)`` is ``"jax.vmap"`` when every binding the name reads is an
import (``import jax as jax_alias``) or an alias of one (``vm = jax.vmap``): the
qualified name the evaluator reads an import as (``canonical``: ``jax._src.api.vmap`` is
``jax.vmap``), without computing a value or reading a project module. For the readers that
ask only which library function a callee names (an application of a transform, a
catalogue function), where a value would cost a project module's parse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jaxlint.base.names import canonical

from .scopes import Binding

if TYPE_CHECKING:
    from .program import Program


def spelled(p: Program, expr: cst.BaseExpression) -> str | None:
    """The qualified name ``expr`` (a name or dotted name) spells, or None."""
    return _spelled(p, expr, 0)


def _spelled(p: Program, expr: cst.BaseExpression, depth: int) -> str | None:
    attrs: list[str] = []
    while type(expr) is cst.Attribute:
        attrs.append(expr.attr.value)
        expr = expr.value
    if type(expr) is not cst.Name or depth > 4:
        return None
    found = {_binding(p, b, depth) for b in p.reaching(expr)}
    if len(found) != 1:
        return None
    (root,) = found
    if root is None:
        return None
    return canonical(".".join([root, *reversed(attrs)]))


def _binding(p: Program, b: Binding, depth: int) -> str | None:
    memo: dict[Binding, str | None] = p.__dict__.setdefault("_spelled", {})
    if b not in memo:
        memo[b] = None  # an alias of itself
        if b.kind == "import":
            memo[b] = canonical(b.imported or "")
        elif b.kind == "assign" and not b.unpack and b.value is not None:
            memo[b] = _spelled(p, b.value, depth + 1)
    return memo[b]
