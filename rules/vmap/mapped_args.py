"""Which arguments of a vmapped call are mapped, along which axis, and what is known of
their shapes (JAX104, JAX105): read from the program model, unknown means skipped."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from jaxlint.model import program
from jaxlint.model.shapes import Shape, shape, size

from .analysis import DEFAULT, VmapSite, vmap_sites


@dataclass
class Mapped:
    """One positional argument of a call of a vmapped function, mapped along ``axis``."""

    arg: cst.Arg
    position: int
    axis: int
    shape: Shape


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
    """Every direct call of a vmapped function with its mapped arguments of known shape."""
    cached = ctx.shared.get("JAX1.mapped_calls")
    if cached is not None:
        return cached
    p = program(ctx)
    out: list[MappedCall] = []
    for site in vmap_sites(ctx):
        if site.kwargs_unknown:
            continue
        axis_size = None
        given = site.app.keywords.get("axis_size")
        if given is not None:
            axis_size = size(p, given)
            if axis_size is None and not (type(given) is cst.Name and given.value == "None"):
                continue  # a size we cannot read
        calls, _ = p.invocations(site.node)  # direct calls only: an outer map slices the values
        for call in calls:
            if any(a.star for a in call.args) or expected_error(ctx, call):
                continue
            positional = [a for a in call.args if a.keyword is None]
            axes = _axes(site, len(positional))
            if axes is None:
                continue
            mapped = []
            for i, (a, axis) in enumerate(zip(positional, axes)):
                if axis is None:
                    continue
                s = shape(p, a.value)
                if s is not None:
                    mapped.append(Mapped(a, i, axis, s))
            out.append(MappedCall(site, call, mapped, axis_size))
    ctx.shared["JAX1.mapped_calls"] = out
    return out


RAISES_CONTEXTS = frozenset({"assertRaises", "assertRaisesRegex", "raises", "assertRaisesWithLiteralMatch"})


def expected_error(ctx, node: cst.CSTNode) -> bool:
    """Inside ``with pytest.raises(...)`` / ``self.assertRaises...(...)``: the error is the point."""
    for a in ctx.ancestors(node):
        if type(a) is cst.With:
            for item in a.items:
                e = item.item
                if type(e) is cst.Call:
                    f = e.func
                    name = f.attr.value if type(f) is cst.Attribute else f.value if type(f) is cst.Name else None
                    if name in RAISES_CONTEXTS:
                        return True
    return False


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
