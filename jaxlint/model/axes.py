"""Axis names as values: what a map binds, what a mesh names, what a collective uses.

Collectives (``lax.psum(x, 'i')``) need an axis name bound by a map on every path by
which they run. Every name here is read from the abstract values of the evaluator
(``jaxlint.model.evaluate``), so a literal, a module or class constant, a local
``ax = "devices"``, a frozen config field, a default, a ``partial``-bound argument and an
f-string of constants are all the same string.

- ``names_of(value)``: the axis names a value is — a string, a tuple/list of strings, or
  ``None`` (none: ``()``); None when the value is not known to be such.
- ``map_names(ev, t)``: the names a ``Transformed`` map value binds: ``pmap``/``vmap``
  ``axis_name`` (and vmap's ``spmd_axis_name``), ``smap``'s ``axis_name``, the axes of a
  ``shard_map``'s mesh, the names of ``make_jaxpr``'s ``axis_env`` pairs. ``()``: it binds none; None: they cannot be read (unknown means
  silent).
- ``mesh_names(value)``: the axes of a mesh. A mesh built by ``Mesh(devices, axis_names)``,
  ``jax.make_mesh(shape, axis_names)`` or ``AbstractMesh(sizes, axis_names)`` is a
  catalogue value (``catalogue/meshes.py``): an instance of the mesh class whose
  ``axis_names`` field holds the names, so a mesh passed through names, attributes and
  parameters keeps its axes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import libcst as cst

from .abstract import Const, Dict, External, List, Partial, Struct, Transformed, Tuple
from .catalogue.meshes import ABSTRACT_MESH, MESH
from .transforms import named

if TYPE_CHECKING:
    from .evaluate import Env, Evaluator

MAPS = named("map")  # what binds axis names (model/transforms.py)


def names_of(value: Any) -> tuple[str, ...] | None:
    """Axis names from an abstract value: a string, a tuple/list of strings, or None."""
    t = type(value)
    if t is Const:
        if value.value is None:
            return ()
        if isinstance(value.value, str):
            return (value.value,)
        return None
    if t is Tuple or t is List:
        out: list[str] = []
        for v in value.items:
            if type(v) is not Const or not isinstance(v.value, str):
                return None
            out.append(v.value)
        return tuple(out)
    return None


def mesh_names(mesh: Any) -> tuple[str, ...] | None:
    """The axis names of a mesh value (None: not a mesh the model built, or unreadable)."""
    if type(mesh) is not Struct or type(mesh.cls) is not External or mesh.cls.qualified not in (MESH, ABSTRACT_MESH):
        return None
    names = names_of(mesh.get("axis_names"))
    return names or None


def map_names(t: Any) -> tuple[str, ...] | None:
    """The axis names the map value ``t`` binds (see the module docstring)."""
    if type(t) is not Transformed or t.unknown_options:
        return None
    api = t.api
    if api == "jax.pmap":
        return names_of(t.option("axis_name", Const(None)))
    if api == "jax.smap":
        return names_of(t.option("axis_name")) if t.given("axis_name") else None
    if api == "jax.vmap":
        a = names_of(t.option("axis_name", Const(None)))
        b = names_of(t.option("spmd_axis_name", Const(None)))
        return None if a is None or b is None else a + b
    if api == "jax.make_jaxpr":
        env = t.option("axis_env", Const(None))
        if type(env) is Const and env.value is None:
            return ()
        if type(env) not in (Tuple, List):
            return None
        names = [names_of(pair.items[0]) if type(pair) in (Tuple, List) and pair.items else None for pair in env.items]
        if any(n is None or len(n) != 1 for n in names):
            return None
        return tuple(n[0] for n in names if n)
    if api == "jax.shard_map":
        if t.given("axis_names"):
            return None  # manual over a subset of the mesh's axes
        return mesh_names(t.option("mesh", Const(None)))
    return None


def agreed(values: list[tuple[str, ...] | None]) -> tuple[str, ...] | None:
    """The names every context gives, or None when one cannot be read or two differ."""
    if not values or any(v is None for v in values):
        return None
    first = values[0]
    return first if all(v == first for v in values) else None


def in_contexts(ev: Evaluator, read, fn, importers: bool = False) -> tuple[str, ...] | None:
    """Axis names ``read(frame)`` gives, first with no call in view, else in every
    context of ``fn`` (the def the expression is in: its visible calls, and for a def
    nothing calls, the contexts of the def around it — a factory's closure sees the
    factory's arguments); they must all agree. ``importers``: where those do not agree,
    the contexts the calls of the files importing the module give too."""
    got = read(None)
    if got is not None or fn is None:
        return got
    got = agreed([read(f) for f in frames(ev, fn)])
    if got is not None or not importers or not ev.ctx.importers:
        return got
    # the files importing the module give what its own calls do not (``Trainer(args)`` of
    # main.py for the ``jax.pmap(step, axis_name=args.axis_name)`` of ``__init__``)
    return agreed([read(f) for f in frames(ev, fn, importers=True)])


def frames(ev: Evaluator, fn, importers: bool = False) -> list[Env]:
    """The frames ``fn``'s body runs in (``contexts``). A def no visible call reaches
    runs with what each ``functools.partial`` of it binds (``partial(sync,
    axis_name="i")``), else in the contexts of the def it is written in
    (``make_step(axis="i")`` returning ``step``). ``importers``: also the calls of the
    files importing the module's defs."""
    from .contexts import contexts, default_frame

    found = contexts(ev, fn, importers=importers)
    base = default_frame(ev, fn)
    if found != [base]:
        return found
    bound = partial_frames(ev, fn, base)
    if bound:
        return bound
    outer = ev.ctx.enclosing_function(fn)
    if outer is None:
        return found
    out = [ev.frame(fn, {}, f) for f in frames(ev, outer, importers)]
    return out or found


def partial_frames(ev: Evaluator, fn, base: Env) -> list[Env]:
    """One frame per ``functools.partial(fn, ...)`` of the def ``fn`` (read through the
    names it is bound to): the arguments the partial binds; the others unbound."""
    p = ev.p
    b = p.binding_of_value(fn)
    if b is None or type(fn) is not cst.FunctionDef:
        return []
    reads, _ = p.references(b)
    positional = [x.name.value for x in (*fn.params.posonly_params, *fn.params.params)]
    out: list[Env] = []
    for read in reads:
        arg = p.parents.get(read)
        call = p.parents.get(arg) if type(arg) is cst.Arg else None
        if type(call) is not cst.Call or not call.args or call.args[0] is not arg or arg.keyword or arg.star:
            continue
        v = ev.value(call, None)
        if type(v) is not Partial or v.star:
            continue
        params = dict(zip(positional, v.args, strict=False))
        params.update(v.keywords)
        f = ev.frame(fn, params, base.parent)
        if f not in out:
            out.append(f)
    return out


def strings(v: Any, depth: int = 0) -> Iterator[str]:
    """Every string constant inside a value (tuples, lists, dicts with their keys, a
    mesh's names, a ``partial``'s arguments, a map's options)."""
    if depth > 6:
        return
    t = type(v)
    if t is Const:
        if isinstance(v.value, str):
            yield v.value
    elif t is Tuple or t is List:
        for x in v.items:
            yield from strings(x, depth + 1)
    elif t is Dict:
        for k, x in v.items:
            if isinstance(k, str):
                yield k
            yield from strings(x, depth + 1)
    elif t is Struct:
        for _, x in v.fields:
            yield from strings(x, depth + 1)
    elif t is Partial:
        for x in (*v.args, *(x for _, x in v.keywords)):
            yield from strings(x, depth + 1)
    elif t is Transformed:
        for _, x in v.options:
            yield from strings(x, depth + 1)
