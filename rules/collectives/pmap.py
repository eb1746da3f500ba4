"""What JAX203 and JAX204 share: the file's ``pmap`` calls as the semantic model
evaluates them (``jaxlint.model.mapsites``), each mapped argument whose leading axis is
not the device count, and what that argument is.

``pmap`` maps axis 0 of every mapped argument over the devices: that axis must be the
device count (``jax.local_device_count()``, or ``len(devices)`` / ``axis_size`` when
given). A leading size the program builds otherwise is judged when it certainly fails
or certainly is not what was meant: another mapped argument of the same call has the
device count (the sizes must agree), the size is a symbolic expression of the device
count other than itself (``n_devices + 1``), it is larger than any host's local device
count, or there is no leading axis at all (a Python number, a typed key). A fixed size
in code that reasons about the device count (``if jax.device_count() < 4: skip``) is
chosen on purpose: silent.

Each finding names the argument where its value enters: through the parameters of the
functions that pass it on, up to the outermost call (``train_step(params, batch_x)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import libcst as cst

from jaxlint.model import dims, program
from jaxlint.model.abstract import KEY, RAW_KEY, Array, Const, External, Scalar, Seq, Transformed, as_array
from jaxlint.model.contexts import foreign_call_line, sites
from jaxlint.model.maps import MapIssue, MappedLeaf
from jaxlint.model.mapsites import Evaluated, MapSite, map_sites
from jaxlint.model.provenance import Origin, origin

PMAP = "jax.pmap"
# a host rarely has more local devices than this (8 GPUs or TPU chips): a larger fixed
# leading size is a batch, not a device count
MAX_LOCAL_DEVICES = 8


@dataclass(slots=True)
class Finding:
    """A mapped argument whose leading axis is not the device count."""

    site: MapSite
    evaluated: Evaluated
    leaf: MappedLeaf
    kind: str  # "data" (JAX203), "key" or "params" (JAX204)
    origin: Origin | None  # where its value was built
    expected: dims.Dim  # the device count this pmap maps over
    beside: MappedLeaf | None = None  # another mapped argument with the device count
    leaves: int = 1  # mapped leaves of that argument without the device axis

    @property
    def node(self) -> cst.CSTNode | None:
        """Where to report: the outermost argument expression the value was passed as; this
        file's call when the pmap is called in the body of a def of another module it runs."""
        if self.site.app.via:
            return self.site.app.node
        if self.origin is not None and self.origin.outer is not None:
            return self.origin.outer
        return None

    @property
    def shown(self) -> cst.CSTNode | None:
        """What the messages name: the argument expression, also when it is written in the
        other module's def that the reported call runs."""
        if self.origin is not None and self.origin.outer is not None:
            return self.origin.outer
        return self.node


def findings(ctx: Any) -> list[Finding]:
    p = program(ctx)
    memo: dict[str, list[Finding]] = p.__dict__.setdefault("_jax2_pmap", {})
    if "findings" in memo:
        return memo["findings"]
    out: list[Finding] = []
    done: set[tuple[int, int | str]] = set()
    for site in map_sites(p, PMAP):
        for e in site.calls:
            if not e.shapes or not e.certain:
                continue
            rec = e.record
            for issue in rec.issues:
                for f in _judge(ctx, site, e, issue):
                    key = (id(f.node), f.leaf.arg)
                    if f.node is None or key in done:
                        continue
                    done.add(key)
                    out.append(f)
    memo["findings"] = out
    return out


def _judge(ctx: Any, site: MapSite, e: Evaluated, issue: MapIssue) -> list[Finding]:
    rec = e.record
    if issue.kind == "rank":
        leaf = issue.leaves[0]
        a = as_array(leaf.value)
        # a rank-0 leaf inside a pytree (a train state's ``step``): the pytree was never replicated
        kind = "key" if a is not None and a.dtype == KEY else "params" if leaf.path else "data"
        return [Finding(site, e, leaf, kind, _origin(ctx, rec, leaf), rec.size)]
    if issue.kind != "devices":
        return []
    expected = issue.expected
    beside = next(
        (x for x in rec.leaves if x.axis is not None and dims.equal(x.size, expected) and x not in issue.leaves), None
    )
    by_arg: dict[int | str, list[MappedLeaf]] = {}
    for leaf in issue.leaves:
        by_arg.setdefault(leaf.arg, []).append(leaf)
    out = []
    for _arg, leaves in by_arg.items():
        leaf = leaves[0]
        a = as_array(leaf.value)
        org = _origin(ctx, rec, leaf)
        if a is not None and a.dtype == RAW_KEY and a.shape is not None and a.shape.dims == (2,):
            out.append(Finding(site, e, leaf, "key", org, expected, beside))
            continue
        # leaves whose leading sizes differ cannot be one batch of examples: weights of one
        # copy of the parameters (JAX204); one leading size for every leaf is a batch (JAX203)
        uniform = all(dims.equal(x.size, leaf.size) for x in leaves)
        if (len(leaves) > 1 or leaf.path) and not uniform:
            if not _certain(ctx, rec, leaves, expected, beside):
                continue
            out.append(Finding(site, e, leaf, "params", org, expected, beside, len(leaves)))
            continue
        if _certain(ctx, rec, leaves, expected, beside):
            out.append(Finding(site, e, leaf, "data", org, expected, beside))
    return out


def _certain(ctx: Any, rec: Any, leaves: list[MappedLeaf], expected: dims.Dim, beside: MappedLeaf | None) -> bool:
    """Is this leading size certainly not the device count, or certainly not meant as it?"""
    if beside is not None:
        return True
    sizes = [x.size for x in leaves]
    if any(isinstance(s, dims.Size) for s in sizes):
        return True  # an expression of the device count other than itself
    if any(_misplaced(x) for x in leaves):
        return True  # built with the device count on another axis: meant to lead
    if not dims.equal(expected, dims.DEVICES):
        return all(dims.as_int(s) is not None for s in sizes) and isinstance(expected, dims.Size)
    if _guarded(ctx, rec):
        return False
    # larger than a host's device count, or leaves of one argument whose sizes differ (they
    # cannot all be the device count)
    return any((dims.as_int(s) or 0) > MAX_LOCAL_DEVICES for s in sizes) or any(
        dims.different(a, b) for a in sizes for b in sizes
    )


def _misplaced(leaf: MappedLeaf) -> bool:
    a = as_array(leaf.value)
    return a is not None and a.shape is not None and any(dims.is_devices(d) for d in a.shape.dims[1:])


def _guarded(ctx: Any, rec: Any) -> bool:
    """Does the code around the call compare the device count with something (a test
    that skips unless there are enough devices)? Then a fixed size is chosen on purpose."""
    node = rec.node
    if node is None:
        return False
    p = program(ctx)
    ev = p.evaluator
    # the def making the pmapped call, and those making the calls its arguments come from
    places = [p.written_call(node), *sites(rec.frame)]
    seen: set[int] = set()
    for place in places:
        funcs = [a for a in ctx.ancestors(place) if isinstance(a, cst.FunctionDef)]
        if not funcs or id(funcs[-1]) in seen:
            continue
        outer = funcs[-1]
        seen.add(id(outer))
        for n in ctx.descendants(outer.body, prune=()):
            if isinstance(n, cst.Comparison):
                for part in [n.left, *(c.comparator for c in n.comparisons)]:
                    if _mentions_devices(ev.value(part, None)):
                        return True
    return False


def _mentions_devices(v: Any) -> bool:
    if type(v) is Scalar:
        return dims.mentions_devices(v.dim)
    if type(v) is Seq:
        return dims.mentions_devices(v.length)
    return False


def _origin(ctx: Any, rec: Any, leaf: MappedLeaf) -> Origin | None:
    call = rec.node
    if not isinstance(call, cst.Call) or any(a.star == "**" for a in call.args):
        return None
    if isinstance(leaf.arg, str):
        expr = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == leaf.arg), None)
    elif any(a.star for a in call.args):
        # ``train_step(state, *batch)``: the arguments before the first ``*`` one take the
        # leading positions, when the map itself is called (no ``partial`` binds any first)
        lead = []
        for a in call.args:
            if a.star or a.keyword is not None:
                break
            lead.append(a.value)
        f = program(ctx).evaluator.value(call.func, rec.frame)
        expr = lead[leaf.arg] if type(f) is Transformed and leaf.arg < len(lead) else None
    else:
        pos = [a.value for a in call.args if a.keyword is None]
        k = leaf.arg - (rec.positional - len(pos))
        expr = pos[k] if 0 <= k < len(pos) else None
    if expr is None:
        return None
    return origin(program(ctx), expr, rec.frame)


def jax_name(ctx: Any) -> str | None:
    """How this file spells the ``jax`` module (for a fix), or None."""
    p = program(ctx)
    for name, bs in p.module_scope.bindings.items():
        if any(b.kind == "import" and b.imported == "jax" for b in bs) and len(bs) == 1:
            return name
    return None


def clip(ctx: Any, node: cst.CSTNode, limit: int = 60) -> str:
    text = " ".join(ctx.code(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def label(ctx: Any, f: Finding) -> str:
    """``parallel_loss`` (a pmap of ``compute_loss``)."""
    p = program(ctx)
    site = f.site
    app = site.app
    target = app.target_node
    fn = clip(ctx, target, 30) if target is not None else None
    if app.foreign:  # made in another module, called here
        name = site.function_name
        fn = name if name is not None and name != "<lambda>" else fn
        if app.via:  # called in the body of a def of another module that this call runs
            what = f"the pmap of `{fn}`" if fn else "the pmap"
            return f"{what} that `{app.callee}` calls at {app.foreign}"
        return (
            f"`{app.callee}` (a pmap of `{fn}` at {app.foreign})" if fn else f"`{app.callee}` (a pmap at {app.foreign})"
        )
    if app.decorator:
        node = ctx.parents.get(ctx.parents.get(app.node))
        fn = node.name.value if isinstance(node, cst.FunctionDef) else fn
        return f"`{fn}` (a pmapped function)" if fn else "the pmapped function"
    bound = p.binding_of_value(app.node)
    if bound is not None and fn:
        return f"`{bound.name}` (a pmap of `{fn}`)"
    return f"`pmap({fn})`" if fn else "the pmapped function"


def head(ctx: Any, f: Finding) -> str:
    """Who maps what: ``batch`` goes through ``train_step`` (as ``batch_x``) to ..."""
    node = f.shown
    assert node is not None
    name = f"`{clip(ctx, node, 40)}`"
    rec = f.evaluated.record
    org = f.origin
    if org is None or not org.hops:
        return f"{label(ctx, f)} maps {name} over its leading axis, one slice per device"
    _call, param, func = org.hops[-1]
    lines = ctx.exact_lines([program(ctx).written_call(rec.node)] if rec.node is not None else [])
    at = lines.get(program(ctx).written_call(rec.node)) if rec.node is not None else None
    where = f" at line {at}" if at else ""
    return (
        f"{name} goes through `{func}` (as `{param}`) to {label(ctx, f)}{where}, which maps it over its "
        "leading axis, one slice per device"
    )


def called_at(ctx: Any, f: Finding) -> str:
    """``As called at line 7 of run.py: `` when the values come from the call of a file
    importing this module (``contexts(..., importers=True)``), else ``""``."""
    line = foreign_call_line(ctx, f.evaluated.record.frame)
    return f"As called at line {line}: " if line is not None else ""


def built(ctx: Any, f: Finding) -> str:
    """Where the value was built, `` `jnp.ones((32, 10))` (line 32)``, or "" when right there."""
    org = f.origin
    if org is None or org.expr is f.shown or f.site.app.via:
        return ""  # right there, or in the other module's def (its lines are not this file's)
    lines = ctx.exact_lines([org.expr])
    at = lines.get(org.expr)
    return f"`{clip(ctx, org.expr)}`" + (f" (line {at})" if at else "")


def constructor_shape(f: Finding) -> tuple[dims.Dim, ...] | None:
    """The whole shape of a batch of data (not keys; a leading size larger than a host's
    device count) whose every size is a known int: what a reshape to a device axis needs.
    None for a leaf of a pytree: the argument itself (a tuple, a dict) has no ``reshape``."""
    if f.leaf.path:
        return None
    a = as_array(f.leaf.value)
    if a is None or a.shape is None or a.shape.rest or a.dtype in (KEY, RAW_KEY):
        return None
    if any(dims.as_int(d) is None for d in a.shape.dims) or not a.shape.dims:
        return None
    if (dims.as_int(a.shape.dims[0]) or 0) <= MAX_LOCAL_DEVICES:
        return None
    return a.shape.dims


__all__ = ["Array", "Const", "External", "Finding", "findings"]
