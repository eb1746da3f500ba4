"""Which arguments of a vmapped call are mapped, along which axis, and what is known of
their shapes (JAX104, JAX105): read from the program model, unknown means skipped."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from jaxlint.model import program
from jaxlint.model.expected import expects_error
from jaxlint.model.shapes import Shape, shape, size

from .analysis import DEFAULT, VmapSite, short, vmap_sites


@dataclass
class Mapped:
    """One positional argument of a call of a vmapped function, mapped along ``axis``."""

    arg: cst.Arg
    position: int
    axis: int
    shape: Shape
    sliced: int | None = None  # the axis an outer vmap slices the argument along first


@dataclass
class MappedCall:
    site: VmapSite
    call: cst.Call
    mapped: list[Mapped]  # the mapped arguments whose shape is known, in order
    axis_size: int | None  # ``axis_size=`` as an int, when given as one


def _axes(site: VmapSite, n: int) -> list[int | None] | None:
    """The axis each of ``n`` positional arguments is mapped along (None: not mapped, or a
    pytree entry), or None when in_axes cannot be read for this call."""
    in_axes = site.in_axes
    if in_axes is DEFAULT:
        return [0] * n
    if type(in_axes) is int:
        return [in_axes] * n
    if isinstance(in_axes, (tuple, list)) and len(in_axes) == n:
        return [a if type(a) is int else None for a in in_axes]
    return None


def mapped_calls(ctx) -> list[MappedCall]:
    """Every call of a vmapped function with its mapped arguments of known shape: its
    direct calls, and the calls of an outer vmap of it (with the slices it passes on)."""
    cached = ctx.shared.get("JAX1.mapped_calls")
    if cached is not None:
        return cached
    p = program(ctx)
    sites = vmap_sites(ctx)
    out: list[MappedCall] = []
    for site in sites:
        if site.kwargs_unknown:
            continue
        axis_size = None
        given = site.app.keywords.get("axis_size")
        if given is not None:
            axis_size = size(p, given)
            if axis_size is None and not (type(given) is cst.Name and given.value == "None"):
                continue  # a size we cannot read
        for call, given_args in _given(ctx, site, sites):
            axes = _axes(site, len(given_args))
            if axes is None:
                continue
            mapped = [Mapped(a, i, axis, s, sliced) for i, ((a, s, sliced), axis) in enumerate(zip(given_args, axes))
                      if axis is not None and s is not None]
            out.append(MappedCall(site, call, mapped, axis_size))
    ctx.shared["JAX1.mapped_calls"] = out
    return out


def _given(ctx, site: VmapSite, sites: list[VmapSite]):
    """(call, [(positional arg, shape the function gets, axis an outer vmap sliced)]) for the
    direct calls of the site, and for those of an outer vmap whose target it is."""
    p = program(ctx)
    for call in _plain_calls(ctx, site):
        yield call, [(a, shape(p, a.value), None) for a in call.args if a.keyword is None]
    for outer in sites:
        if outer.app.target is not site.app or outer.kwargs_unknown:
            continue
        for call in _plain_calls(ctx, outer):
            positional = [a for a in call.args if a.keyword is None]
            axes = _axes(outer, len(positional))
            if axes is None:
                continue
            given = []
            for a, k in zip(positional, axes):
                s = shape(p, a.value)
                given.append((a, s if k is None or s is None else _without(s, k), k))
            yield call, given


def _plain_calls(ctx, site: VmapSite) -> list[cst.Call]:
    calls, _ = program(ctx).invocations(site.node)  # direct calls only: an outer map slices the values
    return [c for c in calls if not any(a.star for a in c.args) and not expects_error(ctx, c)]


def _without(s: Shape, k: int) -> Shape | None:
    """The shape of one slice along axis ``k``; None when that axis is not known to exist."""
    if k < 0:
        if not s.exact or -k > len(s.dims):
            return None
        k += len(s.dims)
    if k >= len(s.dims):
        return None
    return Shape(s.dims[:k] + s.dims[k + 1:], s.exact)


def arg_text(ctx, m: Mapped) -> str:
    """How a message names the argument: `xs`, or `xs` sliced by an outer vmap."""
    text = f"`{short(ctx, m.arg.value, 40)}`"
    if m.sliced is not None:
        text += f" (as sliced along axis {m.sliced} by the outer `vmap`)"
    return text


def in_rank(m: Mapped) -> bool | None:
    """Is the mapped axis inside the argument's rank? None when the rank is not known."""
    if m.axis >= 0 and m.axis < m.shape.at_least():
        return True
    rank = m.shape.rank
    if rank is None:
        return None
    return -rank <= m.axis < rank


def shape_text(s: Shape) -> str:
    dims = ", ".join("?" if d is None else str(d) for d in s.dims)
    if not s.exact:
        dims += ", ..."
    elif len(s.dims) == 1:
        dims += ","
    return f"({dims})"
