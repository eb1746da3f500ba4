"""Defs that a transform of another module traces: what a module exports, and the layer
that traces a def, for the sharp-bits rules' project phase (JAX501, JAX503).

A def of one module may run traced only because of another module: ``jax.jit(utils.f)``
there (the call paths of ``model/paths.py`` say so: ``tracing_layer``), or a traced
function there calling it with traced arguments (``clip(grads, 1.0)`` in a jitted step),
which each module exports (``export``: the calls its traced functions make of other
modules' defs, and the edges its module-level defs would hand traced arguments on, were
they traced). A rule reads the exports of every sharp-bits rule that ran (``called``): a
module where one rule has no seed still exports through another.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

from jaxlint.model import program
from jaxlint.model.paths import call_paths
from jaxlint.model.traced import traced_functions
from jaxlint.model.transforms import TABLE

from .analysis import analysis, exact_lines
from .values import STAGED

if TYPE_CHECKING:
    from jaxlint.base.types import Pending
    from jaxlint.model.project import Project

TRACED_CALLS = "traced_calls"  # ModuleFacts.extra[code][TRACED_CALLS]: [[ref, params, api, line, path], ...]
# ... [HELPER_EDGES]: [[caller ref, callee ref, {callee param: caller param or STAGED}], ...]: what a
# module-level def would hand the defs it calls, were it traced
HELPER_EDGES = "helper_edges"
HELPER_DEPTH = 3  # helpers of helpers followed across modules
EXPORTERS = ("JAX501", "JAX503")  # the rules whose module facts carry the exports

# the name messages give a layer's transform ("jit" -> "jax.jit")
LABELS = {q.rsplit(".", 1)[1]: a.label for q, a in TABLE.items() if a.label}
STAGING = frozenset(a.label for a in TABLE.values() if a.stages and a.label)


def stages(api: str) -> bool:
    """Does the layer's transform (``"jit"`` or ``"jax.jit"``) stage its function out?"""
    return LABELS.get(api, api) in STAGING


def export(ctx, code: str) -> None:
    """Record in the module's facts (under ``code``) the defs of other modules this file's
    traced functions call with traced arguments, the defs of other modules this file's
    transforms trace, and the edges of its module-level defs (see the module docstring)."""
    ways = []
    for flow in analysis(ctx).values():
        trace = flow.trace or flow.outer_trace
        if trace is not None and flow.foreign_calls and not flow.quiet:
            ways.append((trace, flow.foreign_calls))
    # ... and the defs of other modules this file's transforms trace (``jax.jit(make_step(...))``
    # of a factory's def): every parameter the transform traces
    for node, trace in traced_functions(ctx, program(ctx)).items():
        qualname = trace.home.ctx.qualname(node) if trace.home is not None else None
        if qualname is not None:
            ways.append((trace, [(trace.home.ctx.facts.ref(qualname), trace.params)]))
    if ways:
        at = exact_lines(ctx, [trace.node for trace, _ in ways])
        ctx.extra(code)[TRACED_CALLS] = [
            [ref, sorted(params), trace.api, at.get(trace.node, 0), ctx.path]
            for trace, refs in ways
            for ref, params in refs
        ]
    analysis(ctx).elsewhere()  # the edges of the module-level defs no transform here traces
    edges = [
        [ctx.facts.ref(caller), ref, origins]
        for fn, callee, origins in analysis(ctx).edges
        if (caller := ctx.qualname(fn)) is not None and (ref := _reference(ctx, callee)) is not None
    ]
    if edges:
        ctx.extra(code)[HELPER_EDGES] = edges


def _reference(ctx, f) -> str | None:
    """The project reference of a module-level def (of this module or another one)."""
    owner = f.program
    octx = owner.ctx if owner is not None else ctx
    if octx.enclosing_function(f.node) is not None:
        return None
    qualname = octx.qualname(f.node)
    return octx.facts.ref(qualname) if qualname is not None else None


def called(project: Project, paths) -> dict[str, list[dict]]:
    """Per def (by reference, through re-exports), the calls of it with traced arguments
    that traced functions of other modules make: the parameters traced, and the transform
    that traces the caller (its api and where)."""
    out: dict[str, list[dict]] = {}
    edges: list[tuple[str, str, dict[str, str]]] = []
    for m in project.all:
        seen: set[str] = set()
        for code in EXPORTERS:  # every exporting rule that ran writes the same facts
            facts = m.extra.get(code, {})
            for ref, params, api, line, path in facts.get(TRACED_CALLS, ()):
                key = repr((ref, params, api, line, path))
                if key in seen:
                    continue
                seen.add(key)
                layer = {"api": api, "line": line, "path": path, "params": frozenset(params)}
                out.setdefault(paths.canonical(ref), []).append(layer)
            for a, b, o in facts.get(HELPER_EDGES, ()):
                key = repr((a, b, sorted(o.items())))
                if key not in seen:
                    seen.add(key)
                    edges.append((paths.canonical(a), paths.canonical(b), o))
    # a def a traced function of another module calls with traced arguments runs traced, and
    # so do the defs it calls with them (``log_scalars`` handing its metrics to ``format``)
    for _ in range(HELPER_DEPTH):
        grew = False
        for caller, callee, origins in edges:
            for layer in list(out.get(caller, ())):
                params = frozenset(
                    p for p, o in origins.items() if o in layer["params"] or (o == STAGED and stages(layer["api"]))
                )
                more = {**layer, "params": params}
                if params and more not in out.setdefault(callee, []):
                    out[callee].append(more)
                    grew = True
        if not grew:
            break
    return out


def tracing_layer(paths, ref: str) -> dict | None:
    """A transform that traces every argument of the function ``ref`` on some use of it
    (``jax.jit(mod.f)``, ``lax.scan(mod.f, ...)``): the first such layer, or None."""
    for layers in paths.applied(ref):
        if all(x.get("plain") for x in layers):
            for x in layers:
                if x.get("traces"):
                    return x
    return None


def traced_layers(items: list[Pending], project: Project, wants) -> Iterator[tuple[Pending, dict]]:
    """Each pending finding (``data``: ``ref``, ``module``) of a def another module traces,
    with the layer that traces it: a transform applied to the def, else a traced caller of
    another module for which ``wants(data, layer)`` holds (the traced parameters it
    passes, its api). Findings of an ambiguous module name, or with no such layer, are
    left out."""
    paths = call_paths(project)
    applied: dict[str, dict | None] = {}  # per def: the transform applied to it, if any
    calls = called(project, paths)
    for p in items:
        d = p.data
        if project.modules.get(d["module"]) is not project.by_path.get(p.path):
            continue  # two files with one module name: the reference is ambiguous
        ref = d["ref"]
        if ref not in applied:
            applied[ref] = tracing_layer(paths, ref)
        layer = applied[ref]
        if layer is None:
            layer = next((c for c in calls.get(paths.canonical(ref), ()) if wants(d, c)), None)
        if layer is not None:
            yield p, layer


def where(layer: dict, here: str) -> str:
    """``jax.jit at line 12`` (this file) / ``jax.jit at train.py:12`` (another one)."""
    api = LABELS.get(layer["api"], layer["api"])
    if layer["path"] == here:
        return f"{api} at line {layer['line']}" if layer["line"] else f"{api} in this file"
    name = os.path.basename(layer["path"])
    return f"{api} at {name}:{layer['line']}" if layer["line"] else f"{api} in {name}"
