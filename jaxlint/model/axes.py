"""The axis names a map binds: ``pmap``/``vmap`` options, ``smap``, ``shard_map`` meshes.

Collectives (``lax.psum(x, 'i')``) need an axis name bound by a map on every path by which
they run; this reads, from a map's arguments, which names it binds. ``()`` means it binds
none (``jax.pmap(f)``), ``None`` that they cannot be read (a name from a parameter, a mesh
built elsewhere): unknown, and unknown means silent.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN

from .transforms import named

MAPS = named("map")  # what binds axis names (model/transforms.py)
MESH_CONSTRUCTORS = frozenset({"jax.sharding.Mesh", "jax.make_mesh", "jax.sharding.AbstractMesh"})
_MESH_DEPTH = 3


def names_of(value: Any) -> tuple[str, ...] | None:
    """Axis names from a literal value: a string, a tuple/list of strings, or None (none)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (tuple, list)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def option(args: list[cst.Arg], keyword: str, index: int | None) -> cst.Arg | Any | None:
    """The argument for a parameter: by keyword, else by position; UNKNOWN behind * / **."""
    for a in args:
        if a.keyword is not None and a.keyword.value == keyword:
            return a
    positional = [a for a in args if a.keyword is None]
    if any(a.star for a in args):
        return UNKNOWN
    if index is not None and index < len(positional):
        return positional[index]
    return None


def bound_names(program, api: str, args: list[cst.Arg], with_fun: bool) -> tuple[str, ...] | None:
    """The axis names the map ``api`` binds, given its arguments (``with_fun``: the mapped
    function is the first positional one, as in ``jax.pmap(f, 'i')``; not in decorator or
    ``partial(jax.pmap, ...)`` form)."""
    shift = 1 if with_fun else 0
    if api == "jax.pmap":
        return _read(program, option(args, "axis_name", shift))
    if api == "jax.vmap":
        names: list[str] = []
        for kw, idx in (("axis_name", 3), ("spmd_axis_name", 5)):
            got = _read(program, option(args, kw, idx - 1 + shift))
            if got is None:
                return None
            names += got
        return tuple(names)
    if api == "jax.smap":
        a = option(args, "axis_name", None)
        return None if a is None else _read(program, a)
    if api == "jax.shard_map":
        if option(args, "axis_names", None) is not None:
            return None  # manual over a subset of the mesh's axes
        m = option(args, "mesh", shift)
        if m is None or m is UNKNOWN:
            return None
        return mesh_names(program, m.value)
    return None


def mesh_names(program, expr: cst.BaseExpression) -> tuple[str, ...] | None:
    """The axis names of a mesh built by ``Mesh(devices, names)`` / ``jax.make_mesh``, here or
    through names bound once (the model's reaching definitions)."""
    for _ in range(_MESH_DEPTH + 1):
        if type(expr) is cst.Call and program.ctx.resolve(expr.func) in MESH_CONSTRUCTORS:
            a = option(list(expr.args), "axis_names", 1)
            if a is None or a is UNKNOWN:
                return None
            return _read(program, a) or None
        if type(expr) is not cst.Name:
            return None
        b = program.binding(expr)
        if b is None or b.kind != "assign" or b.value is None or b.unpack:
            return None
        expr = b.value
    return None


def _read(program, a: Any) -> tuple[str, ...] | None:
    if a is UNKNOWN:
        return None
    if a is None:
        return ()
    return names_of(program.ctx.literal(a.value))
