"""Shared analysis of the JAX5xx family: one intra-function dataflow per function of a file.

Each function (and the module's code) is walked by ``values.ValueFlow`` (the model's
``jaxlint.model.flow.Flow`` with the family's facts): which values are JAX arrays, NumPy
arrays or depend on a traced argument, where a traced value meets Python control flow
(JAX503) and where a JAX array is assigned in place (JAX501). Which functions run traced
is the model's (``jaxlint.model.traced``); a def of the file that a traced function calls
with traced arguments runs traced too (``FileAnalysis.values``). What the body shows a
parameter to be is ``evidence.py``; which PRNG keys are consumed twice (JAX502) is the key
flow of ``keys.py``.

Everything here reads only the function's own unit (and, for the functions a transform
traces, the transform's application), so the results are the same with slicing on and
off.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import libcst as cst

from jaxlint.model import program
from jaxlint.model.abstract import Function
from jaxlint.model.attributes import receiver_of
from jaxlint.model.contexts import module_class
from jaxlint.model.expected import expects_error
from jaxlint.model.stubs import ARRAY_JITS
from jaxlint.model.traced import LAX_BODIES, TRACING, Trace, traced_functions
from jaxlint.model.transfer import MAPS
from jaxlint.model.transforms import TABLE

from .evidence import array_evidence, at_evidence, container_evidence, parameters
from .values import TRACED, BoolUse, SetItem, ValueFlow

if TYPE_CHECKING:
    from jaxlint.model.context import FileContext

KEY = "JAX5"
_MAP_LABELS = frozenset(TABLE[q].label for q in MAPS)  # ``Trace.api`` of a vmap, pmap
HELPER_DEPTH = 3  # helpers of helpers followed

# the calls above: what the slicer must follow to the traced defs
# what JAX503 is about: the tracing transforms, the lax bodies, and the library jits that a
# stub says trace array leaves (``stubs.ARRAY_JITS``: ``eqx.filter_jit``)
TRACING_APIS = (*TRACING, *LAX_BODIES, *sorted(ARRAY_JITS))


def exact_lines(ctx, nodes) -> dict:
    """Start lines of the nodes a message cites. ``ctx.lines`` places a text by its
    occurrences and can pick the wrong ``jit(f)`` in a file with many; only files with a
    finding get here, so an exact position pass is affordable."""
    return ctx.exact_lines(nodes)


def analysis(ctx) -> FileAnalysis:
    a = ctx.shared.get(KEY)
    if a is None:
        a = ctx.shared[KEY] = FileAnalysis(ctx)
    return a


# --- per file ------------------------------------------------------------------------------------


@dataclass(slots=True)
class Elsewhere:
    """A module-level def no transform of its file traces, with what it would do wrong were
    its parameters traced by a transform of another module."""

    fn: cst.FunctionDef
    bools: list[BoolUse]  # JAX503
    setitems: list[SetItem]  # JAX501: assignments into an array computed from a parameter
    # per bool use: the other parameters that, traced alone, make it traced too (its
    # ``origin`` is one of them: ``leak * cmd > m`` is traced when ``cmd`` alone is)
    also: dict[cst.CSTNode, list[str]] = field(default_factory=dict)


@dataclass
class FileAnalysis:
    ctx: FileContext
    _values: list[ValueFlow] | None = field(default=None, init=False)
    _stores: set[cst.CSTNode] = field(default_factory=set, init=False)  # bodies with ``x[i] = ...``
    helpers: set[cst.CSTNode] = field(default_factory=set, init=False)  # defs traced as helpers
    # what the defs ``elsewhere`` asks about give the defs they call, were their parameters
    # traced: (caller, callee, {callee's parameter: the caller's parameter, or STAGED})
    edges: list[tuple[cst.FunctionDef, Function, dict[str, str]]] = field(default_factory=list, init=False)
    _elsewhere: list[Elsewhere] | None = field(default=None, init=False)

    def values(self) -> list[ValueFlow]:
        """One ValueFlow per function and one for the module body."""
        if self._values is None:
            ctx = self.ctx
            traced = dict(traced_functions(ctx, program(ctx)))
            self._stores = _subscript_store_owners(ctx)
            flows: dict[cst.CSTNode, ValueFlow] = {}
            top = ValueFlow(ctx, ctx.module, None, None, set())
            if ctx.module in self._stores:
                top.run(ctx.module)
            flows[ctx.module] = top
            for _fact, fn in ctx.functions():
                flows[fn] = self._flow(fn, traced.get(fn), flows)
            # a def of the file that a traced function calls with traced arguments runs
            # traced too (a helper of a ``lax.scan`` body), for those parameters
            for _round in range(HELPER_DEPTH):
                found = self._traced_helpers(flows, traced)
                if not found:
                    break
                for helper, trace in found.items():
                    traced[helper] = trace
                    self.helpers.add(helper)
                    flows[helper] = self._flow(helper, trace, flows)
            self._values = list(flows.values())
        return self._values

    def _flow(self, fn, trace: Trace | None, flows: dict) -> ValueFlow:
        ctx = self.ctx
        enclosing = ctx.enclosing_function(fn)
        parent = flows.get(enclosing) if enclosing is not None else None
        closure = None
        if parent is not None:
            closure = {k: v for k, v in parent.nested_env.get(fn, parent.env).items() if v[0] & TRACED}
        if trace is None and not closure and fn not in self._stores:
            # nothing in it is traced and nothing is assigned in place: the walk could find
            # neither a traced bool nor a JAX501 site, and its nested defs get no traced closure
            stub = ValueFlow(ctx, None, None, None, set())
            stub.fn = fn
            stub.quiet = int(expects_error(ctx, fn))
            return stub
        evidence = array_evidence(ctx, fn) if trace is not None or closure else set()
        containers = container_evidence(ctx, fn) if trace is not None else set()
        updated = at_evidence(ctx, fn) if isinstance(fn, cst.FunctionDef) else set()
        flow = ValueFlow(ctx, fn, trace, closure, evidence, containers, updated)
        flow.quiet = int(expects_error(ctx, fn))
        if trace is None and closure and parent is not None:  # a closure comes from the parent
            flow.outer_trace = parent.trace or parent.outer_trace
        if isinstance(fn, cst.Lambda):
            flow.expressions(fn.body)
        else:
            flow.run(fn.body)
        return flow

    def _traced_helpers(self, flows: dict, traced: dict) -> dict[cst.FunctionDef, Trace]:
        """The undecorated defs of the file not yet traced that a traced function calls with
        traced arguments, each with the parameters those arguments bind; and the defs a map
        traces that a traced function maps, with the unmapped parameters it gives tracers
        (``jax.vmap(f, in_axes=(0, None))(x, step)`` in a jitted step: ``step`` is the jit's)."""
        out: dict[cst.FunctionDef, Trace] = {}
        for flow in flows.values():
            trace = flow.trace or flow.outer_trace
            if trace is None or flow.quiet:
                continue
            for callee, params in flow.calls:
                if callee not in flows or callee.decorators or flows[callee].quiet:
                    continue
                mapped = traced.get(callee)
                if mapped is not None:
                    more = set(params) - mapped.params
                    if mapped.api in _MAP_LABELS and more:
                        grown = replace(mapped, params=mapped.params | more)
                        grown.sites = {**mapped.sites, **{p: trace.site_of(params[p]) for p in more}}
                        grown.apis = {**mapped.apis, **{p: trace.api_of(params[p]) for p in more}}
                        out[callee] = grown
                    continue
                have = out.get(callee)
                if have is None:
                    have = out[callee] = Trace(set(params), trace.api, trace.node, False)
                else:
                    have.params |= set(params)
                # each parameter cites the application that traced what it was given
                for p, origin in params.items():
                    if trace.site_of(origin) is not have.node:
                        have.sites.setdefault(p, trace.site_of(origin))
                    if trace.api_of(origin) != have.api:
                        have.apis.setdefault(p, trace.api_of(origin))
        return out

    def elsewhere(self) -> list[Elsewhere]:
        """The module-level defs no transform of this file traces (with slicing, only those a
        seed of some module hands on: ``ctx.looked_up``), each with the bool uses and the
        in-place assignments into traced arrays it would have if every parameter without a
        default were traced. JAX503 and JAX501 ask the call paths whether a transform in
        another module traces it. A name bound more than once in the module is left out:
        the call paths know a def by its name. Once per file."""
        if self._elsewhere is None:
            self._elsewhere = self._find_elsewhere()
        return self._elsewhere

    def _find_elsewhere(self) -> list[Elsewhere]:
        ctx = self.ctx
        p = program(ctx)
        traced = traced_functions(ctx, p)
        self.values()  # the helpers traced in this file are not asked about
        looked_up = ctx.looked_up
        out = []
        for fact, fn in ctx.functions():
            if type(fn) is not cst.FunctionDef or fn in traced or (fn.decorators and not _gives_itself(p, fn)):
                continue
            if fn in self.helpers:
                continue
            # a method of a module-level class: another module's traced function calls it
            # through an instance (``self.schedule(step)`` of a ``WarmupCosine``), its
            # receiver is no traced argument
            cls = module_class(p, fn) if fact.class_name else None
            if fact.class_name and cls is None:
                continue
            outer = ctx.enclosing_function(fn)
            if outer is not None and not _returned_by(ctx, fn, outer):
                continue  # a nested def reaches another module only as what its factory returns
            top = fn if outer is None else outer
            if looked_up is not None and isinstance(top, cst.FunctionDef) and top.name.value not in looked_up:
                continue
            if expects_error(ctx, fn):
                continue
            holder = outer if outer is not None else cls
            scope = p.module_scope if holder is None else p.scope_of_node.get(holder)
            if scope is None or len(scope.bindings.get(fn.name.value, ())) != 1:
                continue  # the name is bound again (a notebook's second ``def f``): its uses are not all this def's
            receiver = receiver_of(p, fn) if cls is not None else None
            params = {q.name.value for q in parameters(fn) if q.default is None and q is not receiver}
            if not params:
                continue
            evidence = (array_evidence(ctx, fn), container_evidence(ctx, fn), at_evidence(ctx, fn))
            flow = self._walk_traced(fn, params, evidence)
            self.edges += [(fn, callee, origins) for callee, origins in flow.edges]
            optional = {q.name.value for q in parameters(fn) if q.default is not None}
            bools = [u for u in flow.bools.values() if not _under_option(ctx, u.node, fn, optional)]
            stores = [s for s in flow.setitems.values() if s.argument]
            if bools or stores:
                order = ctx.text_order
                out.append(
                    Elsewhere(
                        fn,
                        sorted(bools, key=lambda u: order(u.node)),
                        sorted(stores, key=lambda s: order(s.stmt)),
                        self._also_traced_by(fn, params, bools, evidence),
                    )
                )
        return out

    def _walk_traced(self, fn: cst.FunctionDef, params: set[str], evidence: tuple) -> ValueFlow:
        """The walk of a def no transform of its file traces, as if a transform of another
        module traced ``params`` (staged if that layer stages: JAX503's resolve).
        ``evidence``: what the body shows its parameters to be (``evidence.py``)."""
        flow = ValueFlow(self.ctx, fn, Trace(params, "", fn, False, True), None, *evidence)
        flow.run(fn.body)
        return flow

    def _also_traced_by(self, fn: cst.FunctionDef, params: set[str], bools: list[BoolUse], evidence: tuple) -> dict:
        """For each bool use, the parameters besides its origin that make it traced when
        traced alone (another module's transform may trace only some): one walk per
        parameter its test depends on (``depends_on``), with only that one traced."""
        wanted: dict[str, list[BoolUse]] = {}
        for u in bools:
            for q in depends_on(self.ctx, u.expr, fn, params) - {u.origin}:
                wanted.setdefault(q, []).append(u)
        out: dict[cst.CSTNode, list[str]] = {}
        for q in sorted(wanted):
            flow = self._walk_traced(fn, {q}, evidence)
            found = {u.node for u in flow.bools.values() if u.origin == q}
            for u in wanted[q]:
                if u.node in found:
                    out.setdefault(u.node, []).append(q)
        return out


def depends_on(ctx, expr: cst.CSTNode, fn: cst.FunctionDef, params: set[str]) -> set[str]:
    """The parameters of ``fn`` among ``params`` that ``expr`` reads, directly or through the
    plain assignments of ``fn`` that reach it (``new = leak * cmd``, then ``new > m``)."""
    p = program(ctx)
    out: set[str] = set()
    todo: list[cst.CSTNode] = [expr]
    seen: set[cst.CSTNode] = set()
    while todo and len(seen) < 200:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        for n in (node, *ctx.descendants(node, prune=(cst.FunctionDef, cst.Lambda, cst.ClassDef))):
            if type(n) is not cst.Name:
                continue
            for b in p.reaching(n):
                if b.scope.node is not fn:
                    continue
                if b.kind == "param" and b.name in params:
                    out.add(b.name)
                elif b.kind == "assign" and b.value is not None:
                    todo.append(b.value)
    return out


def _returned_by(ctx, fn: cst.FunctionDef, outer) -> bool:
    """Is ``fn`` a def of a module-level factory ``outer`` that returns it by name
    (``def make_step(...): def step(...): ...; return step``)? Then another module may
    transform what a call of the factory gives."""
    if type(outer) is not cst.FunctionDef or ctx.enclosing_function(outer) is not None:
        return False
    name = fn.name.value
    for n in ctx.descendants(outer.body, prune=(cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        if type(n) is cst.Return and type(n.value) is cst.Name and n.value.value == name:
            return True
    return False


def _subscript_store_owners(ctx) -> set[cst.CSTNode]:
    """The defs, lambdas and the module whose own statements assign into a subscript
    (``x[i] = v``, ``x[i] += v``): the only bodies where an untraced walk can find a JAX501
    site."""
    owners: set[cst.CSTNode] = set()
    for node, entering in ctx.events():
        if not entering:
            continue
        t = type(node)
        if t is cst.Assign:
            hit = any(type(a.target) is cst.Subscript for a in node.targets)
        elif t is cst.AugAssign or t is cst.AnnAssign:
            hit = type(node.target) is cst.Subscript
        else:
            continue
        if hit:
            fn = ctx.enclosing_function(node)
            owners.add(ctx.module if fn is None else fn)
    return owners


def _under_option(ctx, node, fn, optional: set[str]) -> bool:
    """Does the node run only for some values of a parameter with a default (inside an
    ``if``/``while`` whose test reads one)? A transform elsewhere may never take that path
    (``if not check: if not jnp.allclose(x, 1): raise``, jitted without ``check``)."""
    if not optional:
        return False
    inner = node
    for a in ctx.ancestors(node):
        if a is fn:
            return False
        if type(a) in (cst.If, cst.While) and a.test is not inner:
            names = [a.test, *ctx.descendants(a.test)]
            if any(type(n) is cst.Name and n.value in optional for n in names):
                return True
        inner = a
    return False


def _gives_itself(p, fn: cst.FunctionDef) -> bool:
    """Do ``fn``'s decorators give back the def itself (``@register("vent")`` storing it in a
    registry and returning it)? Then its name still runs the def as written."""
    v = p.evaluator.value(fn, None)
    return type(v) is Function and v.node is fn
