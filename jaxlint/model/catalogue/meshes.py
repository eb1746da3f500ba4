"""Meshes: ``Mesh(devices, axis_names)``, ``jax.make_mesh(axis_shapes, axis_names)`` and
``AbstractMesh(axis_sizes, axis_names)`` give an instance of the mesh class whose
``axis_names`` field holds the names (``mesh.axis_names`` reads it), so a mesh passed
through names, attributes and parameters keeps its axes (``jaxlint.model.axes`` reads
them). One string is one name, as jax makes it (``Mesh(devs, "x").axis_names`` is
``("x",)``); names the model cannot read are kept as they are (UNKNOWN: not a tuple of
names)."""

from __future__ import annotations

from typing import Any

from ..abstract import Const, External, List, Struct, Tuple
from . import Call, register
from .build import Entries, op

MESH = "jax.sharding.Mesh"
ABSTRACT_MESH = "jax.sharding.AbstractMesh"


def axis_names(value: Any) -> Any:
    """The ``axis_names`` jax stores: a tuple (a string is a tuple of one)."""
    if type(value) is Const and isinstance(value.value, str):
        return Tuple((value,))
    if type(value) is List:
        return Tuple(value.items)
    return value


def mesh_of(cls: str) -> Any:
    def rule(call: Call) -> Any:
        return Struct(External(cls), (("axis_names", axis_names(call.arg("axis_names"))),), "object")

    return rule


TABLE: Entries = {
    MESH: lambda: op(MESH, mesh_of(MESH)),
    ABSTRACT_MESH: lambda: op(ABSTRACT_MESH, mesh_of(ABSTRACT_MESH)),
    "jax.make_mesh": lambda: op("jax.make_mesh", mesh_of(MESH)),
}

register(TABLE)
