"""Every ``vmap``/``pmap`` application of a file, evaluated wherever it is called.

For each application (a ``jax.vmap(...)`` call, a decorator, ``partial(jax.pmap, ...)``),
the calls of the mapped function (``Program.invocations``: direct, through names and
``jit``-like wrappers, inside a def it is passed to, through a def that forwards it its
``*args``) are evaluated in every context of the function making them
(``jaxlint.model.contexts``). The transfer function (``jaxlint.model.maps``) leaves a
``MapCall`` per evaluated call: what the rules of the vmap and pmap families judge.

A call made through a forwarder of another module (``self.ConvertAndCompare(f, x, y)``)
rests on an assumption the project phase checks (``forwarding.assumption``); a forwarder
that may ``shard_map`` its function keeps the number of arguments, not their shapes
(``shapes`` False).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import libcst as cst

from . import forwarding
from .abstract import Transformed
from .contexts import assumed_along, contexts
from .maps import MapCall

if TYPE_CHECKING:
    from .program import Program
    from .values import Transformed as Application

FUEL_PER_CALL = 20_000


@dataclass(slots=True)
class Evaluated:
    """One evaluated call of a mapped function: its record, and what it rests on."""

    record: MapCall
    assumed: dict[str, Any] | None = None  # a forwarder of another module (forwarding.assumption)
    shapes: bool = True  # False: the arguments' shapes are not what the call passes


@dataclass(slots=True)
class MapSite:
    """One ``vmap``/``pmap`` application and its evaluated calls."""

    app: Application  # the program model's application (node, option nodes, decorator)
    value: Transformed | None  # the application's abstract value (its options as values)
    calls: list[Evaluated] = field(default_factory=list)
    called: bool = False  # some call of it is in view

    @property
    def node(self) -> cst.CSTNode:
        return self.app.node


def map_sites(p: Program, api: str) -> list[MapSite]:
    """The applications of ``api`` (``"jax.vmap"``, ``"jax.pmap"``) with their evaluated
    calls (computed once per file and api)."""
    memo: dict[str, list[MapSite]] = p.__dict__.setdefault("_map_sites", {})
    if api in memo:
        return memo[api]
    ev = p.evaluator
    out: list[MapSite] = []
    # what each record rests on: the root call it was evaluated from
    rests: dict[int, tuple[dict[str, Any] | None, bool]] = {}
    for app in p.applications(api):
        site = MapSite(app, application_value(p, app))
        calls, _complete = p.invocations(app.node, through_maps=True, callees=True, forwarders=True)
        site.called = bool(calls)
        for call in calls:
            written = p.written_call(call)
            assumed = forwarding.assumption(p, call)
            shapes = forwarding.keeps_shapes(p, call) if written is not call else True
            # a call made by a forwarder of this module is evaluated where it is written
            # (the evaluator follows into the forwarder); one of another module, as made
            root = call if (assumed is not None or written is call) else written
            home = p.ctx.enclosing_function(written)
            frames = contexts(ev, home) if home is not None else [None]
            before = len(ev.record_log)  # the records this call's evaluation adds follow
            for frame in frames:
                with ev.query(FUEL_PER_CALL):
                    ev.value(root, frame)
            for rec in ev.record_log[before:]:
                if id(rec) not in rests:
                    rests[id(rec)] = (assumed, shapes)
        out.append(site)
    # every application's calls, also those made inside another one's evaluation (an
    # inner vmap of a nested pair gets its sliced arguments from the outer one)
    for site in out:
        for rec in ev.records.get(("map", site.node), []):
            assumed, shapes = rests.get(id(rec), (None, True))
            if assumed is None:
                assumed = assumed_along(rec.frame)
            site.calls.append(Evaluated(rec, assumed, shapes))
            site.called = True
    memo[api] = out
    return out


def application_value(p: Program, app: Application) -> Transformed | None:
    """The abstract value of a transform application (a call, a decorator, ``partial``),
    evaluated where it is written with nothing bound."""
    ev = p.evaluator
    node = app.node
    if isinstance(node, cst.FunctionDef):
        return None
    parent = p.parents.get(node)
    if type(parent) is cst.Decorator:
        fn = p.parents.get(parent)
        if isinstance(fn, cst.FunctionDef):
            home = p.ctx.enclosing_function(fn)
            frame = contexts(ev, home)[0] if home is not None else None
            v = ev.value(fn, frame)
            while type(v) is Transformed and v.node is not node:
                v = v.target
            return v if type(v) is Transformed else None
        return None
    home = p.ctx.enclosing_function(node)
    frame = contexts(ev, home)[0] if home is not None else None
    v = ev.value(node, frame)
    return v if type(v) is Transformed else None
