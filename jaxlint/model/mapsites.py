"""Every ``vmap``/``pmap`` application of a file, evaluated wherever the evaluator says it
is called.

*Applications* are what the source writes: a call or decorator whose callee spells, through
the file's imports and aliases (``spelled``), ``jax.vmap``/``jax.pmap``, a stub's function
that makes one (``eqx.filter_vmap``: ``stubs.MAPS``), or a ``partial`` of either. A file
that writes none has no site and costs nothing more.

*Map calls* are the evaluator's answer. Of the calls a value made at an application can
reach (``carriers``: a bound over the question, found without evaluating), those are map
calls whose callee the evaluator, asked without running any map (``Evaluator.probe``),
says calls a map (``maps_called``): a ``Transformed`` map, also through a bound method, a
``partial``, a ``functools.wraps`` wrapper, a transform that calls its function with the
same arguments (``jit``, ``grad``, ``shard_map``...), a function a stub's map maker returned,
or a join of paths whose every candidate is one (``OneOf``: a problem one candidate meets is
then ``certain``, as it happens whenever that one is bound). Whatever names, attributes
(``self.f`` stored in ``__init__``), factories or branches the value came through, the
evaluator followed. So are a call of a parameter in the contexts where a caller passes a
map (``def apply(fn, x): fn(x)``), a call that runs a map it is given (``jax.vjp(vmapped,
x)``, ``lax.scan(vmapped, ...)``), and a map handed to a def forwarding it its ``*args``
(``forwarding.py``).

Each map call is evaluated in every context of the function making it
(``jaxlint.model.contexts``); the transfer function (``jaxlint.model.maps``) leaves a
``MapCall`` per evaluated call, also for the maps called inside (``vmap(vmap(f))``); a map
a stub makes is called inside the stub, and its record is shown as the written call. A
call made through a forwarder of another module (``self.ConvertAndCompare(f, x, y)``) rests
on an assumption the project phase checks (``forwarding.assumption``); a forwarder that may
``shard_map`` its function keeps the number of arguments, not their shapes (``shapes``
False).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import libcst as cst

from . import forwarding
from .abstract import UNKNOWN, Bound, External, Function, Generator, OneOf, Partial, Transformed, Wraps
from .appended import loop_frame
from .carriers import carrying_calls
from .contexts import assumed_along, class_factories, contexts, module_class
from .maps import MapCall
from .spelled import spelled
from .stubs import MAPS as STUB_MAPS
from .through import called_def, called_from, frames_made_by, imported_callee, reaching
from .transfer import BLOCKS, CALLS_TARGET, MAPS, RUNS, signature
from .transforms import PARTIAL

if TYPE_CHECKING:
    from .evaluate import Env, Evaluator
    from .program import Program

FUEL_PER_CALL = 20_000
FUEL_PER_CALLEE = 1_000  # what a callee is: a name, an attribute, a factory's result
FUEL_PER_ARGUMENT = 200  # whether an argument is a map: a name bound to one, an attribute, a partial
_DEPTH = 12  # wrappers peeled to reach the map a call calls


@dataclass(slots=True)
class Application:
    """How the source writes one application: for messages and fixes."""

    node: cst.CSTNode  # the call (``jax.vmap(f, ...)``, ``partial(jax.vmap, ...)(f)``) or decorator expression
    api: str  # the JAX map it is: ``jax.vmap`` (also for ``eqx.filter_vmap``), ``jax.pmap``
    name: str = ""  # what the source calls (``vmap``, ``filter_vmap``): for messages
    decorator: bool = False
    target_node: cst.BaseExpression | None = None  # how the source names the mapped function
    options: dict[str, cst.BaseExpression] = field(default_factory=dict)  # option expressions by parameter name
    written: bool = False  # some option is written (also one not read: ``**options``)
    anchor: cst.BaseExpression | None = None  # insert ``, in_axes=...`` after it when no option is written
    # a map another module of the project makes, called here: ``node`` is the call, the
    # other fields describe the application there; ``foreign`` says where (``model.py:9``),
    # ``callee`` how this file names it. Its options are no edits of this file: no fix.
    foreign: str = ""
    callee: str = ""
    # the def of another module this file's call runs, in whose body the map is applied and
    # called (``evaluate(cfg, w)`` here, ``p_eval(w, x, y)`` there): judged with this call's
    # arguments; ``callee`` names the def
    via: bool = False
    # the path of the module making a foreign map
    owner_path: str = ""


@dataclass(slots=True)
class Evaluated:
    """One evaluated call of a mapped function: its record, and what it rests on."""

    record: MapCall
    assumed: dict[str, Any] | None = None  # a forwarder of another module (forwarding.assumption)
    shapes: bool = True  # False: the arguments' shapes are not what the call passes
    # what the record says happens whenever the call runs this map (not only maybe: made
    # in one of several callables some of which are no map, ``MapCall.certain``)
    certain: bool = True


@dataclass(slots=True)
class MapSite:
    """One ``vmap``/``pmap`` application and its evaluated calls."""

    app: Application
    value: Transformed | None  # the application's abstract value (its options as values)
    calls: list[Evaluated] = field(default_factory=list)
    # calls spreading arguments the evaluator cannot count (``f(*xs)``): no record
    spread: list[cst.Call] = field(default_factory=list)

    @property
    def node(self) -> cst.CSTNode:
        return self.app.node

    @property
    def function_name(self) -> str | None:
        """The name of the function the map maps (``<lambda>`` for a lambda), from the
        application's value; None when it is no def or lambda."""
        v = self.value.target if self.value is not None else None
        return v.name if type(v) is Function else None


def map_sites(p: Program, api: str) -> list[MapSite]:
    """The applications of ``api`` (``"jax.vmap"``, ``"jax.pmap"``) written in the file, with
    their evaluated calls (computed once per file)."""
    return [s for s in _all_sites(p) if s.app.api == api]


def maps_called(v: Any, blocks: bool = True, makers: frozenset = frozenset()) -> list[cst.CSTNode]:
    """The applications whose map a call of ``v`` calls (see the module docstring); empty
    when some way the call may go calls none. ``blocks`` False: only those that get the
    call's own arguments (not a ``shard_map``'s blocks of them). ``makers``: the defs of a
    library stub that make a map (``equinox.filter_vmap``): a function one of their calls
    returns is that call's map."""
    wrappers = CALLS_TARGET if blocks else CALLS_TARGET - BLOCKS
    for _ in range(_DEPTH):
        t = type(v)
        if t is Transformed:
            if v.api in MAPS:
                return [v.node] if v.node is not None else []
            if v.api not in wrappers:
                return []
            v = v.target
        elif t is Bound or t is Wraps or t is Partial:
            v = v.func
        elif t is OneOf:
            found = [maps_called(o, blocks, makers) for o in v.options]
            return [x for f in found for x in f] if all(found) else []
        elif t is Function and v.env is not None and v.env.function in makers and isinstance(v.env.site, cst.CSTNode):
            return [v.env.site]
        else:
            return []
    return []


def _all_sites(p: Program) -> list[MapSite]:
    memo = p.__dict__.get("_map_sites")
    if memo is not None:
        return memo
    scan = _Scan(p)
    scan.run()
    ev = p.evaluator
    # every record of each application, also those made inside another one's evaluation
    # (an inner vmap of a nested pair gets its sliced arguments from the outer one) or by
    # another rule's question; a map a library stub makes is called inside the stub: its
    # record is the written call's, made where the stub's function was made
    found: dict[cst.CSTNode, list[tuple[MapCall, MapCall]]] = {}
    for key, records in ev.records.items():
        if key[0] != "map":
            continue
        for rec in records:
            if key[1] in scan.apps:
                found.setdefault(key[1], []).append((rec, rec))
            elif scan.makers and key[1] not in p.parents:
                made = _made_here(scan, rec)
                if made is not None:
                    found.setdefault(made[0], []).append((rec, made[1]))
    sites: list[MapSite] = []
    for (elsewhere, call), recs in scan.foreign_records(found_foreign(ev, scan)).items():
        app = scan.foreign_application(elsewhere, call)
        if app is None:
            continue
        site = MapSite(app, scan.foreign_value(elsewhere))
        site.calls = [Evaluated(rec, assumed_along(rec.frame), True, rec.certain) for rec in recs]
        sites.append(site)
    for (elsewhere, call), recs in scan.through.items():
        app = scan.foreign_application(elsewhere, call)
        if app is None:
            continue
        app.via = True
        site = MapSite(app, scan.foreign_value(elsewhere))
        site.calls = [Evaluated(rec, None, True, rec.certain) for rec in recs]
        sites.append(site)
    for app in scan.apps.values():
        site = MapSite(app, application_value(p, app.node), spread=scan.spread.get(app.node, []))
        seen: set[int] = set()
        for rec, shown in found.get(app.node, ()):
            if id(rec) in seen:
                continue
            seen.add(id(rec))
            assumed, shapes = scan.rests.get(id(rec), (None, True))
            if assumed is None:
                assumed = assumed_along(shown.frame)
            certain = rec.certain or (shown.inside is None and (shown.node, shown.frame) in scan.joined)
            site.calls.append(Evaluated(shown, assumed, shapes, certain))
        sites.append(site)
    p.__dict__["_map_sites"] = sites
    return sites


def found_foreign(ev: Evaluator, scan: _Scan) -> list[tuple[cst.CSTNode, MapCall]]:
    """``(application, record)`` of the maps of other modules that the file's calls run."""
    return [
        (key[1], rec)
        for key, records in ev.records.items()
        if key[0] == "map" and key[1] in scan.foreign
        for rec in records
    ]


def _calls_a_map(owner: Program, call: cst.Call, v: Any) -> bool:
    """Is the call (its callee's binder value ``v``) a call of a map (``jax.vmap(f)(x)``,
    a map the module binds: ``p_eval(w, x)`` with ``p_eval = jax.pmap(...)``, or keeps on
    ``self``: ``self._fn = jax.pmap(...)``), by the binder's values (cheap)?"""
    from .attributes import assigned_value
    from .values import External as Named
    from .values import Transformed as Applied

    if type(v) is not Applied and type(call.func) is cst.Attribute:
        stored = assigned_value(owner, call.func)  # ``self._fn(key, xs)``
        v = owner.value(stored) if stored is not None else v
    if type(v) is Applied and v.api in MAPS:
        return True
    if type(call.func) is cst.Call:
        inner = owner.value(call.func.func)
        return type(inner) is Named and inner.qualified in MAPS
    return False


def _calls_given(owner: Program, call: cst.Call) -> bool:
    """Is the callee a function the def was given (``residual_fn(w, X, Y)`` in ``def
    sum_of_squares(residual_fn, w, X, Y)``)? Whether it is a map depends on what the call
    of the def passes, so the def is run with it. Not a method of a parameter
    (``tx.update(g, s)``): an object's methods are its class's."""
    func = call.func
    while type(func) is cst.Subscript:
        func = func.value
    home = owner.ctx.enclosing_function(call)
    return type(func) is cst.Name and home is not None and _from_parameter(owner, func, home)


def _judged_there(p: Program, g: Function) -> bool:
    """Does the def's own module judge this file's calls of it (this file is among its
    importers, so its map sites are evaluated with these calls' arguments there,
    ``contexts(..., importers=True)``)? Then the finding is reported once, there, at the
    map, where its fix goes."""
    owner = g.program
    if owner is None or owner is p or type(g.node) is not cst.FunctionDef:
        return False
    names = p.ctx.judged.get(os.path.abspath(owner.ctx.path), frozenset())
    if type(owner.parents.get(g.node)) is cst.Module:
        return g.node.name.value in names
    cls = module_class(owner, g.node)  # a method: judged with the calls through its class's instances
    if cls is None:
        return False
    # ... made by the class or by a factory of its module (``contexts.imported_calls``)
    return cls.name.value in names or any(f.partition(".")[0] in names for f in class_factories(owner, cls))


def _made_here(scan: _Scan, rec: MapCall) -> tuple[cst.CSTNode, MapCall] | None:
    """For a map a stub's function makes and calls (``eqx.filter_vmap(f)``'s wrapper calls
    ``jax.vmap`` with its arguments): the application of this file that made it, and the
    record as the written call shows it (that call's node and frame)."""
    inner = rec.frame
    made = inner.parent if inner is not None else None
    if inner is None or made is None or made.function not in scan.makers:
        return None
    app, call = made.site, inner.site
    if not isinstance(app, cst.CSTNode) or app not in scan.apps or not isinstance(call, cst.CSTNode):
        return None
    return app, dataclasses.replace(rec, node=call, frame=inner.caller)


class _Scan:
    """The pass over the file's calls and decorators (see the module docstring)."""

    def __init__(self, p: Program) -> None:
        self.p = p
        self.ev: Evaluator = p.evaluator
        self.apps: dict[cst.CSTNode, Application] = {}
        self.spread: dict[cst.CSTNode, list[cst.Call]] = {}
        # what each record rests on: the root call it was evaluated from
        self.rests: dict[int, tuple[dict[str, Any] | None, bool]] = {}
        # (call, frame) where the callee is one of several maps, each given the call's own
        # arguments (``f = vmap(g) if c else vmap(h)``): what one of them meets there happens
        # whenever it is the one bound
        self.joined: set[tuple[cst.CSTNode, Any]] = set()
        self.names = _Spelled(p)
        self.makers: frozenset = frozenset()  # the stub defs that made a map of this file
        # applications of other modules some call of this file calls -> their programs
        self.foreign: dict[cst.CSTNode, Program] = {}
        # (application of another module, this file's call of the def applying it) -> the
        # records of the map calls that def makes with this call's arguments
        self.through: dict[tuple[cst.CSTNode, cst.Call], list[MapCall]] = {}

    def run(self) -> None:
        """The applications first; a file that writes none has no site, and its calls
        need no question."""
        p = self.p
        calls: list[cst.Call] = p.ctx.nodes_of(cst.Call)
        for node in calls:
            app = self.names.call_application(node)
            if app is not None:
                self.apps[node] = app
        for dec in p.ctx.nodes_of(cst.Decorator):
            app = self.names.decorator_application(dec)
            if app is not None:
                self.apps[app.node] = app
        order = p.ctx.text_order
        self.apps = dict(sorted(self.apps.items(), key=lambda kv: order(kv[0])))
        self.makers = self.names.makers(self.ev)
        reached = carrying_calls(p, self.apps) if self.apps else set()
        for call in calls:
            if call in reached or (self.apps and self._given_by_importer(call)):
                self._call(call)
            elif imported_callee(self.p, call):
                self._foreign_call(call)

    def _given_by_importer(self, call: cst.Call) -> bool:
        """Is the callee a parameter of a def that other modules call (its module-level
        def is among the names they import)? What they pass may be a map this file made and
        returned to them (``total(make_residuals(linear), w, X, Y)``), beyond what the
        file's own flow (``carriers``) can bound."""
        p = self.p
        if not p.ctx.importers or not _calls_given(p, call):
            return False
        unit = p.ctx.unit_of(call)  # the module-level def (or method) holding the call
        return type(unit) is cst.FunctionDef and unit.name.value in p.ctx.importers

    def _foreign_call(self, call: cst.Call) -> None:
        """A call of a map another module makes (``batched_loss = jax.vmap(loss)`` there):
        evaluated here, where its arguments are."""
        f = self._callee(call, None)
        maps = maps_called(f)
        home = self.p.ctx.enclosing_function(call)
        if not maps and home is not None and _keyed_by_parameter(self.p, call.func, home):
            # an item of another module's registry the def's parameter selects
            # (``MODELS[name](*args)``): the map each call of the def selects
            for frame in contexts(self.ev, home, importers=True):
                g = self._callee(call, frame)
                inner = maps_called(g)
                if inner and self._foreign_owners(inner):
                    self._map_call(call, inner, home, [frame], joined=type(g) is OneOf)
            return
        if not maps:
            self._through_call(call, f)
            return
        if self._foreign_owners(maps):
            self._map_call(call, maps, home, joined=type(f) is OneOf)

    def _foreign_owners(self, maps: list[Any]) -> bool:
        """Record the programs of other modules that made ``maps``; False when one is this
        file's (judged as its own) or has no program."""
        if any(m in self.p.parents for m in maps):
            return False
        for m in maps:
            owner = owner_program(self.ev, m)
            if owner is None:
                return False
            self.foreign[m] = owner
        return True

    def _through_call(self, call: cst.Call, f: Any) -> None:
        """A call of a def of another module whose body applies a map and calls it
        (``evaluate(cfg, w)``, whose body calls ``p_eval(w, x, y)``): the def runs here with
        this call's arguments, so the maps it calls are judged at this call. Only the map
        calls the def makes itself, with what this call gives it."""
        g = called_def(self.ev, call, f)
        if g is None or _judged_there(self.p, g):
            return
        owner = g.program
        assert isinstance(g.node, cst.FunctionDef)  # called_def gives defs only
        chain = reaching(owner, g.node, lambda n, v: _calls_a_map(owner, n, v) or _calls_given(owner, n))
        if not chain:
            return
        self._evaluate(call, self.p.ctx.enclosing_function(call))
        self._run_maps_of(owner, chain, call)
        # the records of the map calls this call ran (also those an earlier question made
        # in the same frames: a loop-carried value evaluated before this call was reached)
        for rec in self.ev.record_log:
            made = rec.t.node
            if rec.inside is not None or made is None or made not in owner.parents or rec.node not in owner.parents:
                continue
            if not called_from(rec.frame, call):
                continue
            if owner.ctx.enclosing_function(rec.node) not in chain:
                continue  # made in a def the chain does not reach: its own callers judge it
            self.foreign[made] = owner
            recs = self.through.setdefault((made, call), [])
            if all(r is not rec for r in recs):
                recs.append(rec)

    def _run_maps_of(self, owner: Program, chain: dict[cst.FunctionDef, list[cst.Call]], call: cst.Call) -> None:
        """The map calls of the chain's defs (``through.reaching`` found them), in each frame
        this call ran them in (``through.frames_made_by``)."""
        ev = owner.evaluator
        for frame in frames_made_by(self.ev, call, chain):
            g = frame.function
            assert isinstance(g, cst.FunctionDef)  # frames of the chain's defs
            for node in chain[g]:
                with ev.query(FUEL_PER_CALL):
                    ev.value(node, frame)

    def foreign_records(
        self, found: list[tuple[cst.CSTNode, MapCall]]
    ) -> dict[tuple[cst.CSTNode, cst.Call], list[MapCall]]:
        """The records of foreign maps by (application, call of this file): only calls
        written here (what the map does to another module's calls is that module's)."""
        out: dict[tuple[cst.CSTNode, cst.Call], list[MapCall]] = {}
        for app, rec in found:
            if rec.inside is None and isinstance(rec.node, cst.Call) and rec.node in self.p.parents:
                recs = out.setdefault((app, rec.node), [])
                if all(r is not rec for r in recs):
                    recs.append(rec)
        return out

    def foreign_application(self, made: cst.CSTNode, call: cst.Call) -> Application | None:
        """How the other module writes the application, shown at this file's call."""
        owner = self.foreign[made]
        names = _Spelled(owner)
        dec = owner.parents.get(made)
        if type(dec) is cst.Decorator:
            app = names.decorator_application(dec)
        elif type(made) is cst.Call:
            app = names.call_application(made)
        else:
            app = None
        if app is None:
            return None
        line = owner.ctx.exact_lines([made]).get(made)
        app = dataclasses.replace(app, node=call, anchor=None)
        where = os.path.basename(owner.ctx.path)
        app.foreign = f"{where}:{line}" if line else where
        app.owner_path = owner.ctx.path
        app.callee = " ".join(self.p.ctx.code(call.func).split())
        return app

    def foreign_value(self, made: cst.CSTNode) -> Transformed | None:
        return application_value(self.foreign[made], made)

    def _callee(self, call: cst.Call, env: Env | None) -> Any:
        with self.ev.probe(FUEL_PER_CALLEE):
            return self.ev.value(call.func, env)

    def _call(self, call: cst.Call) -> None:
        ev, p = self.ev, self.p
        f = self._callee(call, None)
        home = p.ctx.enclosing_function(call)
        maps = maps_called(f, makers=self.makers)
        if maps:
            self._map_call(call, maps, home, joined=type(f) is OneOf)
            return
        runs = type(f) is External and _runs_arguments(f.qualified)
        if runs and self._passes_map(call, None):
            self._evaluate(call, home)
            return
        if home is not None and _from_parameter(p, call.func, home):
            for frame in contexts(ev, home, importers=True):
                g = self._callee(call, frame)
                inner = maps_called(g, makers=self.makers)
                if inner:
                    self._map_call(call, inner, home, [frame], joined=type(g) is OneOf)
            return
        if runs and home is not None and any(_from_parameter(p, a.value, home) for a in call.args):
            for frame in contexts(ev, home, importers=True):
                if self._passes_map(call, frame):
                    self._evaluate(call, home, [frame])
            return
        if type(f) is Function and f.program is not None and f.program is not p and self._passes_map(call, None):
            # a map handed to a def of another module (``evaluate(jax.vmap(f), params, batch)``):
            # the evaluator follows into it, where it calls the map with its own arguments
            self._evaluate(call, home)
            return
        self._forwarded(call, home)

    def _map_call(
        self, call: cst.Call, maps: list[cst.CSTNode], home: Any, frames: list | None = None, joined: bool = False
    ) -> None:
        if joined:
            for frame in frames if frames is not None else _frames(self.ev, home):
                g = self._callee(call, frame)
                if type(g) is OneOf and all(maps_called(o, False, self.makers) for o in g.options):
                    self.joined.add((call, frame))
        if any(a.star for a in call.args) and not self._counted(call, home, frames):
            for app in maps:  # the evaluator cannot count the arguments: JAX102 reads these
                found = self.spread.setdefault(app, [])
                if call not in found:
                    found.append(call)
            return
        self._evaluate(call, home, frames)

    def _counted(self, call: cst.Call, home: Any, frames: list | None) -> bool:
        """Does every ``*``/``**`` argument of the call hold a display the evaluator reads?"""
        from .abstract import Dict, List, Tuple

        for frame in frames if frames is not None else _frames(self.ev, home):
            for a in call.args:
                if a.star:
                    v = self.ev.value(a.value, frame)
                    if type(v) not in ((Tuple, List) if a.star == "*" else (Dict,)):
                        return False
        return True

    def _evaluate(self, root: cst.Call, home: Any, frames: list | None = None, rests: tuple | None = None) -> None:
        ev = self.ev
        before = len(ev.record_log)  # the records this call's evaluation adds follow
        for frame in frames if frames is not None else _frames(ev, home):
            for each in iterations(ev, root, home, frame):
                with ev.query(FUEL_PER_CALL):
                    ev.value(root, each)
        if rests is not None:
            for rec in ev.record_log[before:]:
                self.rests.setdefault(id(rec), rests)

    def _is_map(self, expr: cst.BaseExpression, env: Env | None) -> bool:
        with self.ev.probe(FUEL_PER_ARGUMENT):
            return bool(maps_called(self.ev.value(expr, env), makers=self.makers))

    def _passes_map(self, call: cst.Call, env: Env | None) -> bool:
        """Is one of the call's arguments a map (in ``env``)?"""
        return any(not a.star and self._is_map(a.value, env) for a in call.args)

    def _forwarded(self, call: cst.Call, home: Any) -> None:
        """A map handed to a def that forwards it its ``*args`` (model/forwarding.py): a
        def of this module is evaluated where it is called (the evaluator follows into
        it), one of another module as the call it makes, under an assumption."""
        p, ev = self.p, self.ev
        if not forwarding.may_forward(p, call):
            return
        for a in call.args:
            if a.keyword is not None or a.star or not _names_callable(ev, a.value):
                continue
            frames: list | None = None
            if not self._is_map(a.value, None):
                # a parameter: a map in the contexts where a caller hands the def one
                if home is None or not _from_parameter(p, a.value, home):
                    continue
                frames = [f for f in contexts(ev, home, importers=True) if self._is_map(a.value, f)]
                if not frames:
                    continue
            made = forwarding.forwarded_call(p, call, a)
            if made is None:
                continue
            assumed = forwarding.assumption(p, made)
            if assumed is None:
                self._evaluate(call, home, frames)  # the evaluator follows into the def
            else:
                self._evaluate(made, home, frames, rests=(assumed, forwarding.keeps_shapes(p, made)))


def owner_program(ev: Evaluator, node: cst.CSTNode) -> Program | None:
    """The program of another project module that holds ``node`` (read in this world)."""
    for prog in ev.world._programs.values():
        if prog is not None and node in prog.parents:
            return prog
    return None


def _names_callable(ev: Evaluator, expr: cst.BaseExpression) -> bool:
    """An argument that can be a map without calling one to find out: a name, attribute,
    subscript or lambda, or a transform or ``partial`` applied (``jax.vmap(f, ...)``,
    ``partial(vmapped, w)``)."""
    if isinstance(expr, (cst.Name, cst.Attribute, cst.Subscript, cst.Lambda)):
        return True
    if not isinstance(expr, cst.Call):
        return False
    with ev.probe(FUEL_PER_CALLEE):
        f = ev.value(expr.func, None)
    if type(f) is Partial:
        f = f.func
    return type(f) is External and (ev.transfer.is_transform(f.qualified) or f.qualified in PARTIAL)


MAX_ITERATIONS = 4  # the first iterations of the loops around a map call it is evaluated in


def iterations(ev: Evaluator, call: cst.Call, home: Any, frame: Env | None) -> list[Env | None]:
    """The frames of the first iterations of the ``for`` loops around ``call`` in its def
    whose items the model knows (``for start in range(0, n, 32)``: ``start`` 0, 32, ...),
    each with the loop's target bound to its item (``appended.loop_frame``); ``[frame]``
    when there is no such loop. Each of those iterations runs: a map call in it is
    judged with that item, not with the join of all of them. Module-level code (a script,
    a notebook) binds its loops' targets in a frame of the module itself, in which its
    bindings are read."""
    if home is None and frame is None:
        base, stop = ev.frame(ev.ctx.module, {}, None), ev.ctx.module
    elif frame is None or home is None:
        return [frame]
    else:
        base, stop = frame, home
    loops = []
    node = ev.ctx.parents.get(call)
    inner: cst.CSTNode = call
    while node is not None and node is not stop:
        if type(node) is cst.For and inner is node.body and not node.asynchronous:
            loops.append(node)
        inner, node = node, ev.ctx.parents.get(node)
    if node is not stop:
        return [frame]
    out: list[Env] = [base]
    for loop in reversed(loops):  # the outermost first: an inner loop's items may depend on it
        more = _unrolled(ev, loop, out)
        if more is None:
            break  # items not known, or a target it cannot bind: the iterations so far
        out = more[: MAX_ITERATIONS * 2]
    return [frame] if out == [base] else list(out)


def _unrolled(ev: Evaluator, loop: cst.For, frames: list[Env]) -> list[Env] | None:
    """Each frame with the loop's target bound to each of the loop's first items there;
    None when one frame's items are not known or the target cannot be bound."""
    out = []
    for f in frames:
        items = _first_items(ev, loop, f)
        if not items:
            return None
        for item in items:
            bound = loop_frame(ev, f, loop.target, item)
            if bound is None:
                return None
            out.append(bound)
    return out


def _first_items(ev: Evaluator, loop: cst.For, frame: Env) -> list[Any] | None:
    """The first items of a ``for`` loop's iterable in ``frame`` (a generator's first)."""
    with ev.query(FUEL_PER_CALLEE):
        iterable = ev.value(loop.iter, frame)
    items = ev.items(iterable)
    if items is None and type(iterable) is Generator and iterable.first is not UNKNOWN:
        items = [iterable.first]  # a generator's first item: the first iteration
    return items[:MAX_ITERATIONS] if items is not None else None


def _frames(ev: Evaluator, home: Any) -> list:
    return contexts(ev, home, importers=True) if home is not None else [None]


def _runs_arguments(q: str) -> bool:
    """A library function that calls a function it is given with arguments it is given
    (``jax.vjp``, ``lax.scan``, ``jax.tree.map``: the transforms' ``call`` kind and the
    catalogue's ``calls``)."""
    from .catalogue import calls_functions

    return q in RUNS or calls_functions(q)


def _from_parameter(p: Program, func: cst.BaseExpression, home: Any) -> bool:
    """Is the callee read from a parameter of ``home`` or of a def around it (``fn(x)``,
    ``fns[0](x)``, ``model.apply(x)``), not the receiver of a method (whose attributes
    the evaluator reads from the class)?"""
    node: cst.CSTNode = func
    while True:
        if type(node) is cst.Attribute or type(node) is cst.Subscript:
            node = node.value
        elif type(node) is cst.Call:
            node = node.func
        else:
            break
    if type(node) is not cst.Name:
        return False
    found = p.reaching(node)
    return any(b.kind == "param" and not _receiver(p, b) for b in found)


def _keyed_by_parameter(p: Program, func: cst.BaseExpression, home: Any) -> bool:
    """Is the callee an item of a container selected by a parameter of ``home``
    (``MODELS[name]``, ``name`` a parameter)? Which item it is depends on the def's calls."""
    if type(func) is not cst.Subscript or len(func.slice) != 1 or type(func.slice[0].slice) is not cst.Index:
        return False
    key = func.slice[0].slice.value
    return type(key) is cst.Name and any(b.kind == "param" for b in p.reaching(key))


def _receiver(p: Program, b: Any) -> bool:
    """The first parameter of a method defined in a class body (``self``, ``cls``)."""
    fn = b.scope.node
    cls = b.scope.parent
    if not isinstance(fn, cst.FunctionDef) or cls is None or cls.kind != "class":
        return False
    first = (fn.params.posonly_params or fn.params.params or (None,))[0]
    return first is not None and first is b.node


# ----------------------------------------------------------------------------------
# applications: how the source writes them
# ----------------------------------------------------------------------------------
class _Spelled:
    """Applications as the file writes them: a callee the binder resolves, through the
    imports and the aliases of the file, to ``jax.vmap``/``jax.pmap`` (as the evaluator
    reads an import) or to a library function a stub says makes one (``eqx.filter_vmap``:
    ``stubs.MAPS``), or to a ``functools.partial`` of one; no value computed, no project
    module read (a map API is never one)."""

    def __init__(self, p: Program) -> None:
        self.p = p
        self.used: set[str] = set()  # the stub functions the file's applications call

    def qualified(self, expr: cst.BaseExpression) -> str | None:
        return spelled(self.p, expr)

    def mapper(self, expr: cst.BaseExpression) -> str | None:
        """The qualified name of the map, or the stub function making one, ``expr`` names."""
        q = self.qualified(expr)
        return q if q in MAPS or q in STUB_MAPS else None

    def factory(self, expr: cst.BaseExpression) -> tuple[cst.Call, str, list[cst.Arg]] | None:
        """A map with its options bound but no function yet, written at ``expr`` or bound to
        a name: ``partial(jax.vmap, in_axes=...)``, or a stub's ``eqx.filter_vmap(in_axes=...)``
        (its function's default makes a decorator). (The call, the mapper, the options.)"""
        if type(expr) is cst.Name:
            found = self.p.reaching(expr)
            values = [b.value for b in found if b.kind == "assign" and not b.unpack]
            if len(values) != 1 or len(found) != 1 or values[0] is None:
                return None
            expr = values[0]
        if type(expr) is not cst.Call or any(a.star for a in expr.args):
            return None
        positional = [a for a in expr.args if a.keyword is None]
        q = self.mapper(expr.func)
        if q in STUB_MAPS and not positional:
            return expr, q, list(expr.args)
        if positional and expr.args[0] is positional[0] and self.qualified(expr.func) in PARTIAL:
            q = self.mapper(positional[0].value)
            if q is not None:
                return expr, q, list(expr.args[1:])
        return None

    def call_application(self, call: cst.Call) -> Application | None:
        """``jax.vmap(f, ...)``, ``partial(jax.vmap, ...)(f)``, ``eqx.filter_vmap(f, ...)``
        written at ``call``."""
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if not positional:
            return None
        first = positional[0]
        rest = [a for a in call.args if a is not first]
        q = self.mapper(call.func)
        if q is not None:
            return self._made(call, q, first.value, rest, first.value)
        made = self.factory(call.func)
        if made is None:
            return None
        at, q, bound = made
        # ``partial(jax.vmap)(f)``: an option goes into the partial; through a name bound to
        # one, into this call (the partial may have other users)
        anchor = (at.args[0].value if at.args else None) if at is call.func else first.value
        return self._made(call, q, first.value, [*bound, *rest], anchor)

    def decorator_application(self, dec: cst.Decorator) -> Application | None:
        """``@jax.vmap``, ``@partial(jax.vmap, ...)``, ``@eqx.filter_vmap(...)`` above a def."""
        expr = dec.decorator
        if not isinstance(self.p.parents.get(dec), cst.FunctionDef):
            return None
        q = self.mapper(expr)
        if q is not None:
            app = self._made(expr, q, None, [], None)
        else:
            made = self.factory(expr)
            if made is None:
                return None
            at, q, bound = made
            anchor = (at.args[0].value if at.args else None) if at is expr else None
            app = self._made(expr, q, None, bound, anchor)
        app.decorator = True
        return app

    def _made(self, node, q, target, options, anchor) -> Application:
        api = STUB_MAPS.get(q, q)
        if q in STUB_MAPS:
            self.used.add(q)
        app = _application(node, api, target, options, anchor, positional=q not in STUB_MAPS)
        app.name = q.rsplit(".", 1)[-1]
        return app

    def makers(self, ev: Evaluator) -> frozenset:
        """The defs of the stub functions the file's applications call."""
        found = set()
        for q in self.used:
            v = ev.world.resolve(q)
            if type(v) is Function:
                found.add(v.node)
        return frozenset(found)


def _application(
    node: cst.CSTNode,
    api: str,
    target: cst.BaseExpression | None,
    options: list[cst.Arg],
    anchor: cst.BaseExpression | None,
    positional: bool = True,
) -> Application:
    """The option expressions by the transform's parameter names (positional options
    after the function take the parameters after ``fun``; a stub's mapper has none)."""
    names = [q.name for q in signature(api).params[1:] if q.kind in ("posonly", "pos")] if positional else []
    out: dict[str, cst.BaseExpression] = {}
    k = 0
    for a in options:
        if a.star:
            continue
        if a.keyword is not None:
            out[a.keyword.value] = a.value
        elif k < len(names):
            out[names[k]] = a.value
            k += 1
    return Application(node, api, target_node=target, options=out, written=bool(options), anchor=anchor)


def stub_grad(p: Program, node: cst.CSTNode) -> str | None:
    """The JAX grad a decorator of a library grad applies (``stubs.GRADS``), or None."""
    from .spelled import spelled
    from .stubs import GRADS

    expr = node.func if type(node) is cst.Call else node
    return GRADS.get(spelled(p, expr) or "") if isinstance(expr, (cst.Name, cst.Attribute)) else None


def application_value(p: Program, node: cst.CSTNode) -> Transformed | None:
    """The abstract value of the transform application at ``node`` (a call, a decorator,
    ``partial``), evaluated where it is written in the first context of the def around it."""
    ev = p.evaluator
    parent = p.parents.get(node)
    if type(parent) is cst.Decorator:
        fn = p.parents.get(parent)
        if isinstance(fn, cst.FunctionDef):
            home = p.ctx.enclosing_function(fn)
            frame = contexts(ev, home)[0] if home is not None else None
            v = ev.value(fn, frame)
            while type(v) is Transformed and v.node is not node:
                if v.node is not None and v.node not in p.parents and stub_grad(p, node) == v.api:
                    return v  # the grad a library decorator's stub applies (``@eqx.filter_grad``)
                v = v.target
            return v if type(v) is Transformed else None
        return None
    home = p.ctx.enclosing_function(node)
    frame = contexts(ev, home)[0] if home is not None else None
    v = ev.value(node, frame)
    return v if type(v) is Transformed else None
