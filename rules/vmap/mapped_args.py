"""Which arguments of a vmapped call are mapped, along which axis, and what is known of
their shapes (JAX104, JAX105): read from the program model, unknown means skipped."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from jaxlint.base.literals import UNKNOWN
from jaxlint.model import cases, forwarding, helper_calls, program
from jaxlint.model.expected import expects_error
from jaxlint.model.forwarding import keeps_shapes
from jaxlint.model.shapes import Shape, assumptions, shape, shape_with_helpers, size
from jaxlint.model.values import is_partial

from .analysis import DEFAULT, VmapSite, short, vmap_sites


@dataclass
class Mapped:
    """One positional argument of a call of a vmapped function, mapped along ``axis``."""

    arg: cst.Arg
    position: int
    axis: int
    shape: Shape
    sliced: tuple[int, ...] | None = None  # the axes outer vmaps slice the argument along, innermost first
    leaf: str | None = None  # a pytree display: how its lowest-rank leaf is built (``shape`` is that leaf's)


@dataclass
class MappedCall:
    site: VmapSite
    call: cst.Call
    mapped: list[Mapped]  # the mapped arguments whose shape is known, in order
    axis_size: int | None  # ``axis_size=`` as an int, when given as one
    case: cases.Case | None = None  # the test case these values are of (a parameterized test)
    via: cst.Call | None = (
        None  # the call of ``partial(d, fn=vmapped)``, or of the def around the vmap, whose arguments these are
    )
    assumed: list = field(default_factory=list)  # what the call and the shapes rest on (model/forwarding.py)

    def via_text(self, ctx) -> str:
        """`` (as called at line 566)`` when the arguments are those of a call of a partial
        or of the module-level def the vmap is in."""
        if self.via is None:
            return ""
        line = ctx.exact_lines([self.via]).get(self.via)
        return f" (as called at line {line})" if line is not None else " (as called in this file)"

    def case_text(self, ctx) -> str:
        """``In the test case with axis=0, shape=(3, 5), `` for a test case, else empty."""
        if self.case is None:
            return ""
        label = self.case.label(ctx)
        return f"In the test case with {label}, " if label else "In one of the test's cases, "


def _axes(site: VmapSite, n: int, p) -> list[int | None] | None:
    """The axis each of ``n`` positional arguments is mapped along (None: not mapped, or a
    pytree entry), or None when in_axes cannot be read for this call."""
    in_axes = site.in_axes
    if in_axes is UNKNOWN and site.in_axes_node is not None and cases.current(p) is not None:
        in_axes = cases.literal(p, site.in_axes_node)  # ``in_axes`` a parameter of the test
    if in_axes is DEFAULT:
        return [0] * n
    if type(in_axes) is int:
        return [in_axes] * n
    if isinstance(in_axes, (tuple, list)) and len(in_axes) == n:
        return [a if type(a) is int else None for a in in_axes]
    if site.in_axes_len == n and site.in_axes_node is not None:  # some entries are not literals
        display = p.display(site.in_axes_node)
        if display is not None:
            return [a if type(a := cases.literal(p, e.value)) is int else None for e in display.elements]
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
        found, unknown = _site_calls(ctx, site, sites)
        out += found
        if unknown:
            for fn in _parameterized(ctx, unknown):
                for case in cases.cases(p, fn) or ():
                    with cases.evaluating(p, case):
                        out += _site_calls(ctx, site, sites, case)[0]
    ctx.shared["JAX1.mapped_calls"] = out
    return out


def _site_calls(ctx, site: VmapSite, sites: list[VmapSite], case: cases.Case | None = None):
    """``(mapped calls, calls where something was not known)`` of one site."""
    p = program(ctx)
    out: list[MappedCall] = []
    unknown: list[cst.Call] = []
    axis_size = None
    given = site.app.keywords.get("axis_size")
    if given is not None:
        axis_size = size(p, given)
        if axis_size is None and not (type(given) is cst.Name and given.value == "None"):
            return out, _plain_calls(ctx, site)  # a size we cannot read
    for call, given_args, via, assumed in _given(ctx, site, sites):
        axes = _axes(site, len(given_args), p)
        if axes is None:
            unknown.append(call)
            continue
        mapped = [
            Mapped(a, i, axis, _leaf(s)[0], sliced, _leaf(s)[1])
            for i, ((a, s, sliced), axis) in enumerate(zip(given_args, axes, strict=False))
            if axis is not None and s is not None
        ]
        if (
            len(mapped) < sum(axis is not None for axis in axes)
            or (site.in_axes is UNKNOWN and None in axes)
            or any(m.shape.axis(m.axis) is None for m in mapped)
        ):
            unknown.append(call)
        out.append(MappedCall(site, call, mapped, axis_size, case, via, assumed))
    return out, unknown


def _parameterized(ctx, calls: list[cst.Call]) -> list[cst.FunctionDef]:
    """The parameterized test methods around ``calls`` whose cases are worth reading."""
    p = program(ctx)
    out: list[cst.FunctionDef] = []
    for call in calls:
        d = ctx.enclosing_function(p.written_call(call))
        around = [call]  # the call, or the calls of the module-level def it sits in
        if d is not None and _test_of(ctx, call) is None:
            around += [c.via for c in helper_calls.caller_cases(p, d) or () if c.via is not None]
        for a in (_test_of(ctx, c) for c in around):
            if a is not None and a not in out and cases.cases(p, a) and not cases.skips_some(p, a):
                out.append(a)
    return out


def _given(ctx, site: VmapSite, sites: list[VmapSite], depth: int = 0):
    """(call, [(positional arg, shape the function gets, axes outer vmaps sliced)]) for the
    direct calls of the site, and for those of the outer vmaps whose target it is (a vmap of
    a vmap of it, too)."""
    p = program(ctx)
    unit = ctx.unit_of(site.node)
    for call in _plain_calls(ctx, site):
        given = [(a, _arg_shape(ctx, a.value, call, unit), None) for a in call.args if a.keyword is None]
        assumed = [x for x in [forwarding.assumption(p, call)] if x is not None]
        for a in call.args:
            assumed += assumptions(p, a.value, unit)
        yield call, given, None, assumed
        for bound in _bound_by_partial(ctx, site, call) + _bound_by_caller(ctx, call):
            with cases.evaluating(p, bound):
                given = [(a, _arg_shape(ctx, a.value, call, unit), None) for a in call.args if a.keyword is None]
            yield call, given, bound.via, assumed
    for outer in sites:
        if outer.app.target is not site.app or outer.kwargs_unknown or depth > 4:
            continue
        for call, outer_given, via, assumed in _given(ctx, outer, sites, depth + 1):
            axes = _axes(outer, len(outer_given), p)
            if axes is None:
                continue
            sliced_given = []
            for (a, s, before), k in zip(outer_given, axes, strict=False):
                if isinstance(s, tuple):
                    s = None  # a pytree's leaves: not followed through another level
                sliced = before if k is None else (k, *(before or ()))
                sliced_given.append((a, s if k is None or s is None else _without(s, k), sliced))
            yield call, sliced_given, via, assumed


def _bound_by_partial(ctx, site: VmapSite, call: cst.Call) -> list[cases.Case]:
    """``call`` calls a parameter ``fn`` of a def ``d`` given the vmapped value by
    ``partial(d, fn=vmapped)``: per call of that partial (also through a ``jit`` of it), the
    values ``d``'s other parameters take there, as a case around the current one."""
    p = program(ctx)
    if type(call.func) is not cst.Name:
        return []
    b = p.binding(call.func)
    if b is None or b.kind != "param":
        return []
    d = b.scope.node
    if type(d) is not cst.FunctionDef or d.params.star_arg is not cst.MaybeSentinel.DEFAULT:
        return []
    owner = p.binding_of_value(d)
    reads, _ = p.references(owner) if owner is not None else ([], False)
    out: list[cases.Case] = []
    for r in reads:
        arg = p.parents.get(r)
        bound = p.parents.get(arg)
        if type(arg) is not cst.Arg or type(bound) is not cst.Call or not bound.args or bound.args[0] is not arg:
            continue
        if not is_partial(p.value(bound.func)) or any(a.star or a.keyword is None for a in bound.args[1:]):
            continue
        fn = next((a.value for a in bound.args[1:] if a.keyword is not None and a.keyword.value == b.name), None)
        if fn is None or p.value(fn) is not site.app:
            continue
        outer_calls, _ = p.invocations(bound)
        for outer in outer_calls:
            if any(a.star for a in outer.args):
                continue
            values = cases.arguments(d, outer)
            values.pop(b.name, None)
            out.append(cases.Case(d, values, outer=cases.current(p), via=outer))
    return out


def _bound_by_caller(ctx, call: cst.Call) -> list[cases.Case]:
    """``call`` sits in a module-level def ``d`` whose calls are all visible: per call of
    ``d`` in the test being evaluated (or, outside one, in no parameterized test), the
    values ``d``'s parameters take there, as a case around the current one."""
    p = program(ctx)
    d = ctx.enclosing_function(p.written_call(call))
    found = helper_calls.caller_cases(p, d) if d is not None else None
    if not found:
        return []
    test = cases.current(p)
    function = test.function if test is not None else None
    return [c for c in found if c.via is not None and _test_of(ctx, c.via) is function]


def _test_of(ctx, call: cst.Call) -> cst.FunctionDef | None:
    """The innermost parameterized test method ``call`` is written in, if any."""
    p = program(ctx)
    for a in ctx.ancestors(p.written_call(call)):
        if type(a) is cst.FunctionDef and cases.parameterized(p, a):
            return a
    return None


def _leaf(s) -> tuple[Shape, str | None]:
    """(shape, leaf text) of what _arg_shape gives."""
    return s if isinstance(s, tuple) else (s, None)


def _arg_shape(ctx, expr: cst.BaseExpression, call: cst.Call, unit: cst.CSTNode | None = None):
    """The argument's shape (also through a helper def called in ``unit``, the vmap's: the
    slicer keeps what it refers to), or for a pytree display whose leaves are all visible
    (``[[1.0, None], [2.0, 3.0]]``, ``list(rng.randn(7))``), ``(shape of its lowest-rank
    leaf, how that leaf is built)``; None when not known."""
    p = program(ctx)
    s = shape_with_helpers(p, expr, unit)
    if s is not None:
        return s
    found = _leaves(ctx, expr, call, 0)
    if not found:
        return None
    low = min(found, key=lambda x: len(x[0].dims) if x[0].exact else 99)
    return low


def _leaves(ctx, expr: cst.BaseExpression, call: cst.Call, depth: int) -> list[tuple[Shape, str]] | None:
    """Every leaf of a visible pytree display (None leaves have none), or None."""
    p = program(ctx)
    if depth > 6:
        return None
    if type(expr) is cst.Name and expr.value == "None" and not p.reaching(expr):
        return []
    if type(expr) in (cst.Integer, cst.Float):
        return [(Shape(()), f"`{short(ctx, expr, 20)}`")]
    if (
        type(expr) is cst.Call
        and type(expr.func) is cst.Name
        and expr.func.value in ("list", "tuple")
        and len(expr.args) == 1
        and not expr.args[0].keyword
        and not expr.args[0].star
        and not p.reaching(expr.func)
    ):
        s = shape(p, expr.args[0].value)  # ``list(x)``: the slices of x along axis 0
        if s is None or not s.exact or not s.dims or not s.dims[0]:
            return None
        return [(Shape(s.dims[1:]), f"an element of `{short(ctx, expr, 30)}`")]
    if type(expr) is cst.Name:
        value = _unmutated_value(ctx, expr, call)
        return _leaves(ctx, value, call, depth + 1) if value is not None else None
    if not isinstance(expr, (cst.Tuple, cst.List)):
        s = shape(p, expr)
        return [(s, f"`{short(ctx, expr, 30)}`")] if s is not None else None
    out: list[tuple[Shape, str]] = []
    for e in expr.elements:
        if type(e) is cst.StarredElement:
            return None
        more = _leaves(ctx, e.value, call, depth + 1)
        if more is None:
            return None
        out += more
    return out


def _unmutated_value(ctx, name: cst.Name, call: cst.Call) -> cst.BaseExpression | None:
    """What a local name is bound to, when nothing can change it before ``call``: every
    read that indexes it or calls a method on it comes later in the same function, and the
    call is in no loop of that function."""
    p = program(ctx)
    b = p.binding(name)
    if b is None or b.kind != "assign" or b.value is None or b.anywhere:
        return None
    value = p.unpacked(b.value, b.unpack)
    if value is None or type(value) is cst.Tuple:
        return value
    reads, complete = p.references(b)
    if not complete:
        return None
    written = p.written_call(call)
    home = ctx.enclosing_function(written)
    for a in ctx.ancestors(written):
        if a is home:
            break
        if type(a) in (cst.For, cst.While):
            return None
    at = ctx.text_order(written)
    for r in reads:
        if type(p.parents.get(r)) in (cst.Subscript, cst.Attribute) and (
            ctx.enclosing_function(r) is not home or ctx.text_order(r) < at
        ):
            return None
    return value


def _plain_calls(ctx, site: VmapSite) -> list[cst.Call]:
    p = program(ctx)
    calls, _ = p.invocations(
        site.node, callees=True, forwarders=True
    )  # direct calls only: an outer map slices the values
    return [c for c in calls if not any(a.star for a in c.args) and keeps_shapes(p, c) and not expects_error(ctx, c)]


def _without(s: Shape, k: int) -> Shape | None:
    """The shape of one slice along axis ``k``; None when that axis is not known to exist."""
    if k < 0:
        if not s.exact or -k > len(s.dims):
            return None
        k += len(s.dims)
    if k >= len(s.dims):
        return None
    return Shape(s.dims[:k] + s.dims[k + 1 :], s.exact)


def arg_text(ctx, m: Mapped) -> str:
    """How a message names the argument: `xs`, or `xs` sliced by an outer vmap."""
    text = f"`{short(ctx, m.arg.value, 40)}`"
    if m.sliced is not None and len(m.sliced) == 1:
        text += f" (as sliced along axis {m.sliced[0]} by the outer `vmap`)"
    elif m.sliced is not None:
        text += f" (as sliced along axes {', '.join(map(str, m.sliced[::-1]))} by the {len(m.sliced)} outer `vmap`s)"
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


# jit options that make positional arguments static: Python values, passed on as they are
STATIC_JITS = frozenset({"jax.jit", "jax.experimental.pjit.pjit"})


@dataclass
class StaticMapped:
    """An ``in_axes`` entry that maps an argument the jit around the vmap makes static."""

    site: VmapSite
    entry: cst.BaseExpression  # the in_axes entry
    position: int
    axis: int
    static: cst.BaseExpression  # the static_argnums expression


def static_mapped(ctx) -> list[StaticMapped]:
    """``jax.jit(jax.vmap(f, in_axes=(0, 0)), static_argnums=1)``: argument 1 reaches the
    vmap as the Python value the caller gave (hashable, so no array), and is mapped."""
    p = program(ctx)
    by_node = {id(s.app): s for s in vmap_sites(ctx)}
    out: list[StaticMapped] = []
    for jit in p.applications():
        if jit.api not in STATIC_JITS or jit.star_kwargs or type(jit.target) is not type(jit):
            continue
        site = by_node.get(id(jit.target))
        given = jit.keywords.get("static_argnums")
        if site is None or given is None or site.kwargs_unknown or site.in_axes_node is None:
            continue
        static = p.literal(given)
        if type(static) is int:
            static = (static,)
        if not isinstance(static, tuple) or not all(type(k) is int and k >= 0 for k in static):
            continue
        display = p.display(site.in_axes_node)
        if display is None or any(isinstance(e, cst.StarredElement) for e in display.elements):
            continue
        entries = [e.value for e in display.elements]
        for k in sorted(set(static)):
            axis = p.literal(entries[k]) if k < len(entries) else None
            if type(axis) is int:
                out.append(StaticMapped(site, entries[k], k, axis, given))
    return out
