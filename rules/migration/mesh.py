"""``with mesh:`` on a mesh of devices, deprecated for ``with jax.set_mesh(mesh):``: the
mesh is a value the model's evaluator reads (``Mesh(...)``, ``jax.make_mesh(...)``, a name
bound to one), never a spelling."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jaxlint.lint.wording import worded
from jaxlint.model import program
from jaxlint.model.abstract import External, Struct
from jaxlint.model.catalogue.meshes import MESH

from .table import Entry

if TYPE_CHECKING:
    from .analysis import MigrationRule

_MESH_FUEL = 500  # what evaluating a ``with`` item may cost (a mesh is a name or a constructor call)

WITH_MESH = Entry(
    "with mesh",
    "jax.set_mesh",
    "0.10.2",
    None,
    "manual",
    "`set_mesh` also sets the abstract mesh used by sharding-in-types",
    fix=None,
)


def visit_with_item(rule: MigrationRule, node: cst.WithItem) -> None:
    if rule.category != "deprecated" or node.asname is not None:
        return
    if not (isinstance(node.item, (cst.Name, cst.Call)) and is_mesh(rule.ctx, node.item)):
        return
    entry = WITH_MESH
    if rule.wants(entry) and not rule.in_shim(node):
        code = rule.ctx.code(node.item).strip()
        head, note = worded(
            f"`with {code}:` is deprecated since JAX {entry.deprecated}",
            f"use `with jax.set_mesh({code}):`",
            entry.note,
        )
        rule.report(node, head, note=note)


def is_mesh(ctx, expr: cst.BaseExpression) -> bool:
    """Is ``expr`` a mesh of devices as the model evaluates it (the catalogue's mesh value)?"""
    ev = program(ctx).evaluator
    with ev.query(_MESH_FUEL):
        v = ev.value(expr, None)
    return type(v) is Struct and type(v.cls) is External and v.cls.qualified == MESH
