"""The transfer function of ``vmap`` and ``pmap``: what a call of a mapped function
gives, and what certainly goes wrong, recorded for the rules to judge.

A call ``vmap(f, in_axes=...)(*args, **kwargs)`` is evaluated as JAX runs it:

1. ``in_axes`` must be an int, None, or one entry per positional argument
   (``arity``); each entry is a pytree prefix of its argument (``structure``: a tuple
   entry for a dict argument, a dict entry whose keys differ); keyword arguments are
   always mapped along axis 0; ``pmap``'s ``static_broadcasted_argnums`` are not mapped.
2. Every mapped leaf must be an array (``type``: a callable, a string, a plain object is
   not a JAX type; a Python number is a rank-0 array), of rank above its axis
   (``rank``), and all mapped sizes must agree (``sizes``), also with ``axis_size``.
   At least one leaf must be mapped (``nothing``). For ``pmap`` the mapped size is the
   device count (``len(devices)`` or ``axis_size`` when given): a size that is by
   construction something else — a constant, ``n_devices + 1`` — is ``devices``.
3. With no problem so far, ``f`` is evaluated on the slices (every mapped leaf without
   its mapped axis); the problems met there are the *body* problems. For each mapped
   positional argument whose unsliced value makes every body problem go away, that
   argument is a *culprit*: ``f`` needs it whole (shared), ``vmap`` slices it.
4. The result gets the batch axis (``out_axes``, default 0) on every leaf.

Each evaluated call leaves a ``MapCall`` in ``Evaluator.records[("map", node)]``, keyed by
the application's node (the ``jax.vmap(...)`` call or decorator).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN

from . import dims
from .abstract import (
    CALLABLES,
    Array,
    Const,
    Dict,
    List,
    Opaque,
    Path,
    Scalar,
    Seq,
    Shape,
    Struct,
    Transformed,
    Tuple,
    as_array,
    as_dim,
    children,
)
from .catalogue import Problem
from .dims import Dim
from .signature import Argument

if TYPE_CHECKING:
    from .evaluate import Env, Evaluator


@dataclass(frozen=True, slots=True)
class MappedLeaf:
    """One leaf of an argument: ``arg`` its positional index or keyword, ``path`` inside
    it, ``axis`` the mapped axis (None: not mapped), ``size`` along it."""

    arg: int | str
    path: Path
    value: Any
    axis: int | None
    size: Dim = None


@dataclass(frozen=True, slots=True)
class MapIssue:
    """What certainly fails before the mapped function runs. ``kind``: arity, structure,
    type, rank, sizes, nothing, devices; ``leaves``: the leaves it is about; ``detail``:
    JAX's own words."""

    kind: str
    leaves: tuple[MappedLeaf, ...] = ()
    detail: str = ""
    expected: Dim = None  # ``devices``/``sizes`` with axis_size: the size it must have


@dataclass(slots=True)
class MapCall:
    """One evaluated call of a mapped function."""

    t: Transformed = field(repr=False)
    node: cst.CSTNode | None = field(repr=False)  # the call
    frame: Env | None = field(repr=False)  # the frame the call was evaluated in
    positional: int = 0  # positional arguments given
    keywords: tuple[str, ...] = ()
    leaves: list[MappedLeaf] = field(default_factory=list)
    size: Dim = None  # the mapped size, when known
    issues: list[MapIssue] = field(default_factory=list)
    body: list[Problem] = field(default_factory=list)
    culprits: list[int] = field(default_factory=list)
    # mapped leaves whose sizes agree in value but not in name (``dims.Named``): axis 0 of an
    # array made with ``D_LATENT`` mapped with one made with ``N_WORDS``, both 16
    apart: list[MappedLeaf] = field(default_factory=list)
    # the mapped call this one runs inside (``vmap(vmap(f))``: the outer one), whose
    # slices are its arguments; None for a call the program writes
    inside: Transformed | None = field(default=None, repr=False)
    # False: made in one of several callables a call may have called (``OneOf``): its
    # arguments' number holds, what they are may not
    certain: bool = True

    def issues_of(self, kind: str) -> list[MapIssue]:
        return [i for i in self.issues if i.kind == kind]


def _axis_of(spec: Any) -> tuple[bool, int | None]:
    """(readable, axis) of an in_axes leaf: an int or None."""
    if type(spec) is Const and (
        spec.value is None or (isinstance(spec.value, int) and not isinstance(spec.value, bool))
    ):
        return True, spec.value
    return False, None


def _match(spec: Any, value: Any, arg: int | str, path: Path, out: list[MappedLeaf], issues: list[MapIssue]) -> bool:
    """Spread an in_axes prefix over a value; False when it cannot be read (silent)."""
    ok, axis = _axis_of(spec)
    if ok:
        _spread(value, axis, arg, path, out)
        return True
    ts, tv = type(spec), type(value)
    if value is UNKNOWN or tv is Opaque:
        return False
    if ts in (Tuple, List):
        if tv is not ts and not (tv in (Tuple, List) and ts in (Tuple, List) and tv is ts):
            if tv in (Tuple, List, Dict, Struct) or as_array(value) is not None:
                issues.append(MapIssue("structure", (MappedLeaf(arg, path, value, None),), "not a tree prefix"))
                return True
            return False
        if len(spec.items) != len(value.items):
            issues.append(MapIssue("structure", (MappedLeaf(arg, path, value, None),), "not a tree prefix"))
            return True
        return all(
            _match(s, v, arg, (*path, k), out, issues)
            for k, (s, v) in enumerate(zip(spec.items, value.items, strict=True))
        )
    if ts is Dict:
        if tv is not Dict:
            if tv in (Tuple, List, Struct) or as_array(value) is not None:
                issues.append(MapIssue("structure", (MappedLeaf(arg, path, value, None),), "not a tree prefix"))
                return True
            return False
        if sorted(map(str, (k for k, _ in spec.items))) != sorted(map(str, (k for k, _ in value.items))):
            issues.append(MapIssue("structure", (MappedLeaf(arg, path, value, None),), "not a tree prefix"))
            return True
        return all(_match(s, value.get(k), arg, (*path, k), out, issues) for k, s in spec.items)
    return False


def _spread(value: Any, axis: int | None, arg: int | str, path: Path, out: list[MappedLeaf]) -> None:
    kids = children(value)
    if kids is None:
        out.append(MappedLeaf(arg, path, value, axis))
        return
    for k, v in kids:
        _spread(v, axis, arg, (*path, k), out)


def _check_leaf(leaf: MappedLeaf) -> tuple[MappedLeaf, MapIssue | None]:
    """The leaf with its mapped size, and its problem if it cannot be mapped."""
    if leaf.axis is None:
        return leaf, None
    v = leaf.value
    if v is UNKNOWN or type(v) is Opaque:
        return leaf, None
    a = as_array(v)
    if a is None:
        if (
            type(v) in CALLABLES
            or (type(v) is Struct and v.kind == "object")
            or (type(v) in (Const, Scalar) and not isinstance(getattr(v, "value", None), (int, float, complex)))
        ):
            if type(v) is Scalar and v.kind != "str":
                return leaf, None
            return leaf, MapIssue("type", (leaf,), "is not a valid JAX type")
        return leaf, None
    s = a.shape
    if s is None:
        if a.origin is not None and leaf.axis is not None and leaf.axis >= 0:
            # known by identity: its size along the axis is a symbol of its own (``x.shape[0]``)
            name = a.origin.rsplit(".", 1)[-1]
            size = dims.sym(f"{a.origin}.shape[{leaf.axis}]", f"{name}.shape[{leaf.axis}]")
            return MappedLeaf(leaf.arg, leaf.path, v, leaf.axis, size), None
        return leaf, None
    has = s.has_axis(leaf.axis)
    if has is False:
        return leaf, MapIssue("rank", (leaf,), f"rank {len(s.dims)}")
    if has is None:
        return leaf, None
    return MappedLeaf(leaf.arg, leaf.path, v, leaf.axis, s.axis(leaf.axis)), None


def constructed(d: Dim) -> bool:
    """A size the program builds from constants and the device count (not from a value
    it is given): an int, or a polynomial whose every symbol derives from the devices."""
    if isinstance(d, int):
        return True
    if isinstance(d, dims.Size):
        return all(dims.DEVICES_KEY in s.key for s in d.symbols())
    return False


def _runs_a_pmap(ev: Evaluator, target: Any) -> bool:
    """Does the mapped function apply a ``pmap`` in its body (a nested pmap)?"""
    from .abstract import Function

    if type(target) is not Function:
        return False
    owner = target.program or ev.p
    parents = owner.parents
    body = getattr(target.node, "body", None)  # not its own decorators
    for app in owner.applications("jax.pmap"):
        n = parents.get(app.node) if app.node is not None else None
        while n is not None:
            if n is body:
                return True
            n = parents.get(n)
    return False


def call_map(ev: Evaluator, t: Transformed, args: list[Argument], env: Env | None, node: cst.CSTNode | None) -> Any:
    """Evaluate a call of ``vmap(f)``/``pmap(f)`` (see the module docstring)."""
    is_pmap = t.api == "jax.pmap"
    if t.unknown_options or any(s for _, _, s in args):
        return UNKNOWN
    positional = [v for v, k, _ in args if k is None]
    keywords = [(k, v) for v, k, _ in args if k is not None]
    outer = ev.world.maps[-1] if ev.world.maps else None
    rec = MapCall(
        t, node, env, len(positional), tuple(k for k, _ in keywords), inside=outer, certain=not ev.world.uncertain
    )
    ev.records.setdefault(("map", t.node), []).append(rec)
    ev.record_log.append(rec)
    in_axes = t.option("in_axes", Const(0))
    static: set[int] = set()
    if is_pmap:
        sb = t.option("static_broadcasted_argnums", Tuple(()))
        if type(sb) is Const and isinstance(sb.value, int):
            static = {sb.value}
        elif type(sb) in (Tuple, List) and all(type(x) is Const and isinstance(x.value, int) for x in sb.items):
            static = {x.value for x in sb.items}
        else:
            return UNKNOWN
    # 1. in_axes against the arguments
    positional_static = [i in static or (i - len(positional)) in static for i in range(len(positional))]
    ok, _axis = _axis_of(in_axes)
    specs: list[Any]
    if ok:
        specs = [in_axes] * len(positional)
    elif type(in_axes) in (Tuple, List):
        items = list(in_axes.items)
        # pmap reads an in_axes tuple at the positions of the arguments it does not keep
        # static (``in_axes[i] for i in dyn_argnums``, jax 0.10.2): a static argument after
        # the last mapped one needs no entry
        dynamic = [i for i in range(len(positional)) if not positional_static[i]]
        fits = (max(dynamic) < len(items) <= len(positional)) if dynamic and any(positional_static) else False
        if len(items) != len(positional) and not fits:
            rec.issues.append(
                MapIssue(
                    "arity",
                    (),
                    f"len(in_axes)={len(items)}, len(args)={len(positional)}",
                )
            )
            return UNKNOWN
        specs = items + [Const(None)] * (len(positional) - len(items))
    else:
        return UNKNOWN
    leaves: list[MappedLeaf] = []
    readable = True
    for i, (spec, v) in enumerate(zip(specs, positional, strict=True)):
        if positional_static[i]:
            continue
        readable = _match(spec, v, i, (), leaves, rec.issues) and readable
    for k, v in keywords:
        _spread(v, 0, k, (), leaves)
    if rec.issues:
        return UNKNOWN
    # 2. the mapped leaves
    checked: list[MappedLeaf] = []
    for leaf in leaves:
        leaf2, issue = _check_leaf(leaf)
        checked.append(leaf2)
        if issue is not None:
            rec.issues.append(issue)
    rec.leaves = checked
    mapped = [x for x in checked if x.axis is not None]
    axis_size = as_dim(t.option("axis_size", Const(None)))
    if readable and not mapped and axis_size is None and not is_pmap:
        rec.issues.append(MapIssue("nothing", ()))
    if readable and not mapped and is_pmap and all(_axis_of(s)[0] for s in specs):
        rec.issues.append(MapIssue("nothing", ()))
    known = [x for x in mapped if x.size is not None]
    if is_pmap:
        expected: Dim = dims.DEVICES
        devices = t.option("devices", Const(None))
        if type(devices) is Seq:
            expected = devices.length
        elif type(devices) in (Tuple, List):
            expected = len(devices.items)
        elif devices != Const(None):
            expected = None
        if axis_size is not None:
            expected = axis_size
        if expected is not None and axis_size is None and _runs_a_pmap(ev, t.target):
            # nested pmaps share the devices: the outer one maps a part of them, the inner
            # ones the rest (``x`` of shape ``(n_devices // 2, 2)``)
            expected = None
        if expected is not None and constructed(expected):
            # a share of the devices the program divides out (``n_devices // 2``) is chosen on
            # purpose: wrong only where it cannot fit (the devices on half of them)
            wrong = [
                x
                for x in known
                if constructed(x.size)
                and not dims.equal(x.size, expected)
                and (not (dims.divided(x.size) or dims.divided(expected)) or dims.exceeds_share(x.size, expected))
            ]
            if wrong:
                rec.issues.append(MapIssue("devices", tuple(wrong), expected=expected))
        rec.size = expected
    else:
        if axis_size is not None:
            wrong = [x for x in known if dims.different(x.size, axis_size)]
            if wrong:
                rec.issues.append(MapIssue("sizes", tuple(wrong), expected=axis_size))
        else:
            groups: list[MappedLeaf] = []
            for x in known:
                if any(dims.different(x.size, g.size) for g in groups) or not any(
                    dims.equal(x.size, g.size) for g in groups
                ):
                    groups.append(x)
            if any(dims.different(a.size, b.size) for a in groups for b in groups):
                rec.issues.append(MapIssue("sizes", tuple(known)))
        sizes = [x.size for x in known]
        rec.size = (
            axis_size
            if axis_size is not None
            else (
                sizes[0]
                if sizes and all(dims.equal(s, sizes[0]) for s in sizes) and len(known) == len(mapped)
                else None
            )
        )
    if rec.issues:
        return UNKNOWN
    # 3. the body on the slices
    sliced = [_slice(v, specs[i] if not positional_static[i] else Const(None)) for i, v in enumerate(positional)]
    kw_sliced: list[tuple[Any, str | None, str]] = [(_slice(v, Const(0)), k, "") for k, v in keywords]
    ev.world.maps.append(t)
    try:
        with ev.collect() as got:
            sliced_args: list[tuple[Any, str | None, str]] = [(v, None, "") for v in sliced]
            inner = ev.call(t.target, sliced_args + kw_sliced, env, node)
        rec.body = list(got.problems)
        if not rec.body and not is_pmap and axis_size is None:
            rec.apart = _apart(known)
            if rec.apart:
                rec.culprits = [
                    i
                    for i in range(len(positional))
                    if not positional_static[i]
                    and any(x.arg == i for x in known)
                    and _one_size_left(known, i)
                    and _runs_whole(ev, t, positional, sliced, kw_sliced, i, env, node)
                ]
        if rec.body:
            for i in range(len(positional)):
                if positional_static[i] or not any(x.arg == i and x.axis is not None for x in mapped):
                    continue
                if axis_size is None and not any(x.arg != i for x in mapped):
                    continue  # unmapped, nothing would be left to map: no remedy (in_axes all None raises)
                if _runs_whole(ev, t, positional, sliced, kw_sliced, i, env, node):
                    rec.culprits.append(i)
    finally:
        ev.world.maps.pop()
    # 4. the batch axis on the result
    out_axes = t.option("out_axes", Const(0))
    if out_axes != Const(0):
        return UNKNOWN
    return _batched(inner, rec.size)


def _apart(known: list[MappedLeaf]) -> list[MappedLeaf]:
    """The mapped leaves, when their sizes (equal, or the call would have failed) carry
    different names (``dims.Named``): one axis of the batch is two sizes of the program."""
    named = [x for x in known if dims.name_of(x.size) is not None]
    return named if len(_names(named)) > 1 else []


def _names(leaves: list[MappedLeaf]) -> set[str]:
    """The constants naming the leaves' mapped sizes."""
    return {n.key for x in leaves if (n := dims.name_of(x.size)) is not None}


def _one_size_left(known: list[MappedLeaf], i: int) -> bool:
    """Given argument ``i`` whole, do the mapped leaves left have one named size?"""
    rest = [x for x in known if x.arg != i]
    return bool(rest) and len(_names(rest)) <= 1


def _runs_whole(
    ev: Any,
    t: Transformed,
    positional: list[Any],
    sliced: list[Any],
    kw_sliced: list[tuple[Any, str | None, str]],
    i: int,
    env: Any,
    node: Any,
) -> bool:
    """Does the mapped function run without a problem on one example's slices when
    positional argument ``i`` is given whole (its ``in_axes`` entry None)?"""
    whole = [v if j == i else s for j, (v, s) in enumerate(zip(positional, sliced, strict=True))]
    with ev.collect() as again:
        ev.call(t.target, [(x, None, "") for x in whole] + kw_sliced, env, node)
    return not again.problems


def _slice(value: Any, spec: Any) -> Any:
    """The value one example sees: each mapped leaf without its axis."""
    ok, axis = _axis_of(spec)
    if ok:
        return _slice_all(value, axis)
    ts, tv = type(spec), type(value)
    if ts in (Tuple, List) and tv in (Tuple, List) and len(spec.items) == len(value.items):
        return tv(tuple(_slice(v, s) for s, v in zip(spec.items, value.items, strict=True)))
    if ts is Dict and tv is Dict:
        return Dict(
            tuple((k, _slice(v, spec.get(k) if spec.get(k) is not None else Const(None))) for k, v in value.items)
        )
    return UNKNOWN


def _slice_all(value: Any, axis: int | None) -> Any:
    if axis is None:
        return value
    t = type(value)
    if t is Tuple:
        return Tuple(tuple(_slice_all(v, axis) for v in value.items))
    if t is List:
        return List(tuple(_slice_all(v, axis) for v in value.items))
    if t is Dict:
        return Dict(tuple((k, _slice_all(v, axis)) for k, v in value.items))
    if t is Struct and value.kind == "pytree":
        return Struct(
            value.cls,
            tuple((k, v if k in value.static else _slice_all(v, axis)) for k, v in value.fields),
            value.kind,
            value.static,
        )
    if t is Const and value.value is None:
        return value
    a = as_array(value)
    if a is None:
        return UNKNOWN  # not known to be an array: what one example gets is not known either
    if a.shape is None:
        return Array(None, a.dtype, a.host, traced=True)
    s = a.shape
    if s.rest and axis >= len(s.dims):
        return Array(None, a.dtype, a.host, traced=True)
    n = len(s.dims)
    k = axis + n if axis < 0 else axis
    if not 0 <= k < n and not s.rest:
        return UNKNOWN
    return Array(Shape(s.dims[:k] + s.dims[k + 1 :], s.rest), a.dtype, a.host, traced=True)


def _batched(value: Any, size: Dim) -> Any:
    t = type(value)
    if t is Tuple:
        return Tuple(tuple(_batched(v, size) for v in value.items))
    if t is List:
        return List(tuple(_batched(v, size) for v in value.items))
    if t is Dict:
        return Dict(tuple((k, _batched(v, size)) for k, v in value.items))
    if t is Struct and value.kind == "pytree":
        return Struct(
            value.cls,
            tuple((k, v if k in value.static else _batched(v, size)) for k, v in value.fields),
            value.kind,
            value.static,
        )
    a = as_array(value)
    if a is None:
        return UNKNOWN
    if a.shape is None:
        return Array(Shape((size,), True), a.dtype, a.host)
    return Array(Shape((size, *a.shape.dims), a.shape.rest), a.dtype, a.host)
