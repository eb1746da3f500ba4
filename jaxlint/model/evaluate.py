"""What an expression evaluates to: the semantic model's evaluator.

``Evaluator.value(expr, env)`` gives the abstract value (``jaxlint.model.abstract``) of an
expression in an *environment*: ``env`` binds the parameters of the function the
expression is in (and, through ``Env.parent``, of the functions around it) to what one
call passes. ``env=None`` evaluates with no call in view: a parameter is then what its
annotation says, or an ``Opaque`` value known only by identity.

It is demand-driven and memoised per (expression, environment): names go to their
reaching bindings (the binder, ``jaxlint.model.scopes``, through ``Program.reaching``),
several candidates are joined; a call of a def evaluates its returned expressions with
the call's arguments bound (``signature.bind``; defaults count), a call of a catalogue
function applies its result rule (``jaxlint.model.catalogue``), a call of a transformed
function applies the transform's transfer function (``jaxlint.model.transfer``), a class
call builds an instance (``jaxlint.model.classes``). Depth and work are bounded: past the
bound a value is UNKNOWN, and unknown means silent.

*Problems*: a call that certainly fails (shapes that do not fit, a vmap over a rank-0
value) is recorded as a ``Problem`` where it is evaluated; ``collect()`` gathers those
met while computing a value (also inside the functions it calls).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN
from jaxlint.base.names import canonical

from . import dims, linen
from .abstract import (
    BOOL as _BOOL,
)
from .abstract import (
    CALLABLES,
    Array,
    Bound,
    Class,
    Const,
    Dict,
    External,
    Function,
    Generator,
    List,
    OneOf,
    Opaque,
    Partial,
    Scalar,
    Seq,
    Shape,
    Struct,
    Transformed,
    Tuple,
    Wraps,
    as_array,
    as_dim,
    int_value,
    join,
    join_all,
    named_const,
    traced,
    with_trace,
)
from .appended import LOOP_KEY
from .attributes import stored_before
from .axes import mesh_names
from .catalogue import Call, Problem, lookup
from .catalogue.constants import CONSTANTS
from .catalogue.grids import GRIDS, grid
from .catalogue.host import INSTANCE_METHODS
from .catalogue.indexing import IndexRef, is_slice, make_slice
from .classes import RUNS_METHOD, run_method
from .cli_args import PARSES, parsed
from .jitted import traced_arguments, traces_arrays
from .pybuiltins import BUILTIN_CALLS
from .scopes import Binding, Scope, reaching_in
from .signature import REQUIRED, Argument, Param, Signature, bind
from .transforms import PARTIAL, SCOPES, TRANSPARENT_DECORATORS

if TYPE_CHECKING:
    from .program import Program

MAX_CALL_DEPTH = 6  # nested calls evaluated through
COMPREHENSION_ITEMS = 256  # items a comprehension may give before it is not evaluated
FUEL = 40_000  # evaluation steps per query (``Evaluator.query``)


class Env:
    """The parameters of one activation of ``function``: what one call passes.

    Made only by ``Evaluator.frame`` (interned: equal frames are the same object, so a
    frame is a cheap memo key). ``parent``: the frame of the function ``function`` is
    defined in (its closure); ``site`` and ``caller``: the call that made it and the
    frame that call was evaluated in (for messages: "as called at line N")."""

    __slots__ = ("assumed", "caller", "depth", "function", "params", "parent", "site")

    def __init__(
        self,
        function: cst.FunctionDef | cst.Lambda,
        params: tuple[tuple[str, Any], ...],
        parent: Env | None,
        site: object,  # a cst.CSTNode, or a contexts.CaseSite
        caller: Env | None,
        depth: int,
    ) -> None:
        self.function = function
        self.params = params
        self.parent = parent
        self.site = site
        self.caller = caller
        self.depth = depth
        # made by a call through a forwarder of another module: what that call assumes of
        # it (``forwarding.assumption``), checked in the project phase
        self.assumed: dict[str, Any] | None = None

    def get(self, name: str) -> Any:
        for k, v in self.params:
            if k == name:
                return v
        return _MISSING

    def __repr__(self) -> str:
        fn = "<lambda>" if isinstance(self.function, cst.Lambda) else self.function.name.value
        return f"Env({fn}, {dict(self.params)})"


_MISSING: Any = object()

# Decorators that leave the function as it is, as far as calling it goes.
TRANSPARENT = TRANSPARENT_DECORATORS


@dataclass(slots=True)
class _Budget:
    fuel: int = FUEL
    exhausted: int = 0  # how often a value was cut short by the fuel (such values are not memoised)


@dataclass(slots=True)
class Collected:
    problems: list[Problem] = field(default_factory=list)


class World:
    """What the evaluators of one lint share: the memos, the frames, the problems being
    collected, the work budget, the transfer functions' records, and the programs of the
    project modules it reads values from (``load(module, world)``: the module's Program
    in this world, on demand; see jaxlint.lint.imports)."""

    def __init__(
        self,
        load: Callable[[str, World], Program | None] | None = None,
        load_importer: Callable[[str, World], Program | None] | None = None,
    ) -> None:
        self.memo: dict[tuple[cst.CSTNode, Env | None], tuple[Any, tuple[Problem, ...]]] = {}
        self.frames: dict[tuple[Any, ...], Env] = {}
        self.calls: dict[tuple[Any, ...], tuple[Any, tuple[Problem, ...]]] = {}
        self.stack: list[list[Problem]] = []
        self.active: set[tuple[cst.CSTNode, Env | None]] = set()
        # a loop-carried read being solved (``Evaluator._loop_carried``): the value assumed
        # for it where its own evaluation reaches it again, and how often that happened
        self.assumed: dict[tuple[cst.CSTNode, Env | None], list[Any]] = {}
        self.budget = _Budget()
        self.depth = 0
        # facts transfer functions record per (application node, call node, frame)
        self.records: dict[tuple[Any, ...], list[Any]] = {}
        self.record_log: list[Any] = []  # every record, in the order made (what one evaluation added)
        self.maps: list[Any] = []  # the mapped calls being evaluated, outermost first
        self.uncertain = 0  # inside a call of one of several callables (``OneOf``)
        self.probing = 0  # inside ``Evaluator.probe``: maps are not run
        self.array_jit_defs: frozenset[cst.CSTNode] | None = None  # ``jitted.array_jit_defs``
        self._load = load
        self._programs: dict[str, Program | None] = {}
        # the linted file's module and program: what another module's import of it means
        self.home: tuple[str, Program] | None = None
        self._load_importer = load_importer
        self._importers: dict[str, Program | None] = {}

    def release(self) -> None:
        """Drop the memos and the programs read (see ``Program.release``)."""
        programs = [p for p in (*self._programs.values(), *self._importers.values()) if p is not None]
        self._programs.clear()
        self._importers.clear()
        self.home = None
        self._load_importer = None
        for d in (self.memo, self.frames, self.calls, self.records):
            d.clear()
        self.active.clear()
        self.assumed.clear()
        self.stack.clear()
        self.record_log.clear()
        self.maps.clear()
        self._load = None
        for p in programs:
            p.release()

    def program(self, module: str) -> Program | None:
        """The program of a project module (parsed once), or None."""
        if self._load is None or module.split(".")[0] in NEVER_LOADED:
            return None
        if self.home is not None and module == self.home[0]:
            return self.home[1]
        if module not in self._programs:
            self._programs[module] = None  # a module importing itself: nothing
            self._programs[module] = self._load(module, self)
        return self._programs[module]

    def programs(self) -> list[Program]:
        """The programs of other modules read in this world (imported, or importing)."""
        return [p for p in (*self._programs.values(), *self._importers.values()) if p is not None]

    def importer(self, path: str) -> Program | None:
        """The program of the project file at ``path`` that imports the linted file's defs
        (jaxlint.plan.importers), parsed once; None for a library's own modules, whose
        meaning comes from the catalogue."""
        if self._load_importer is None or self.home is None or self.home[0].split(".")[0] in NEVER_LOADED:
            return None
        if path not in self._importers:
            self._importers[path] = None
            self._importers[path] = self._load_importer(path, self)
        return self._importers[path]

    def resolve(self, qualified: str) -> Any:
        """What a project module defines under ``qualified`` (``pkg.model.init_params``):
        its value, or None when no module of the project defines it."""
        if self._load is None:
            return None
        parts = qualified.split(".")
        for k in range(len(parts) - 1, 0, -1):
            prog = self.program(".".join(parts[:k]))
            if prog is None:
                continue
            found = prog.module_scope.bindings.get(parts[k])
            if not found:
                return None
            from .scopes import reaching_in

            reach = reaching_in(prog.module_scope, parts[k], (), prog.module_scope.end)
            if not reach:
                return None
            ev = prog.evaluator
            v = join_all([ev.binding_value(b, None) for b in reach])
            if type(v) in (List, Dict) and len(reach) == 1 and prog._mutations(reach[0]):
                # changed in place after its binding: another module reads it once this one
                # is imported (``registries.py``: a registry filled by decorators), else unknown
                from .registries import imported

                v = (imported(ev, reach[0], v) if type(v) is Dict else None) or UNKNOWN
            for attr in parts[k + 1 :]:
                v = ev.attribute(v, attr)
            return v
        return None


# library packages whose meaning comes from the catalogue, never from their source (also
# when the linted project is jax itself)
NEVER_LOADED = frozenset({"jax", "jaxlib", "numpy", "scipy", "builtins", "functools", "typing", "math"})


class Evaluator:
    """The evaluator of one file's program (``Program.evaluator``); evaluators of the
    programs of one ``World`` share its state, so values pass between modules."""

    def __init__(self, program: Program, world: World | None = None) -> None:
        self.p = program
        self.ctx = program.ctx
        self.world = world if world is not None else World()
        w = self.world
        self._memo = w.memo
        self._frames = w.frames
        self._calls = w.calls
        self._stack = w.stack
        self._active = w.active
        self._assumed = w.assumed
        self._budget = w.budget
        self.records = w.records
        self.record_log = w.record_log
        self.at: cst.CSTNode | None = None  # the call a builtin is evaluating (for its problems)
        from .transfer import Transfer

        self.transfer = Transfer(self)

    @property
    def _depth(self) -> int:
        return self.world.depth

    @_depth.setter
    def _depth(self, value: int) -> None:
        self.world.depth = value

    # ------------------------------------------------------------------------------
    # frames
    # ------------------------------------------------------------------------------
    def frame(
        self,
        function: cst.FunctionDef | cst.Lambda,
        params: dict[str, Any],
        parent: Env | None,
        site: object = None,  # a cst.CSTNode, or a contexts.CaseSite
        caller: Env | None = None,
    ) -> Env:
        items = tuple(params.items())
        key = (function, items, parent, site)
        f = self._frames.get(key)
        if f is None:
            depth = (caller.depth + 1) if caller is not None else 0
            f = self._frames[key] = Env(function, items, parent, site, caller, depth)
        return f

    def frame_of(self, scope: Scope, env: Env | None) -> Env | None:
        """The frame, along ``env``'s closures, of the function whose scope is ``scope``."""
        node = scope.node
        e = env
        while e is not None:
            if e.function is node:
                return e
            e = e.parent
        return None

    # ------------------------------------------------------------------------------
    # queries and problems
    # ------------------------------------------------------------------------------
    @contextlib.contextmanager
    def query(self, fuel: int = FUEL) -> Iterator[None]:
        """Bound the work of one rule's question: past ``fuel`` steps values are UNKNOWN."""
        before = self._budget.fuel
        self._budget.fuel = fuel
        try:
            yield
        finally:
            self._budget.fuel = before

    @contextlib.contextmanager
    def probe(self, fuel: int = FUEL) -> Iterator[None]:
        """Ask what a callable is without running a ``vmap``/``pmap`` or a catalogue
        function: they give arrays, never a callable, and running a map here would leave
        the record of a call in a frame no caller made (a def's body with nothing bound). A
        value that met one is not memoised, as one the fuel cut short: a later question
        computes it in full."""
        self.world.probing += 1
        try:
            with self.query(fuel):
                yield
        finally:
            self.world.probing -= 1

    @contextlib.contextmanager
    def collect(self) -> Iterator[Collected]:
        """Gather the problems met while evaluating inside the block."""
        got = Collected()
        self._stack.append(got.problems)
        try:
            yield got
        finally:
            self._stack.pop()
            if self._stack:
                self._stack[-1].extend(got.problems)

    def report(self, problem: Problem) -> None:
        if self._stack and problem not in self._stack[-1]:
            self._stack[-1].append(problem)

    # ------------------------------------------------------------------------------
    # expressions
    # ------------------------------------------------------------------------------
    def value(self, expr: cst.CSTNode | None, env: Env | None = None) -> Any:
        """The abstract value of ``expr`` in ``env``."""
        if expr is None:
            return UNKNOWN
        key = (expr, env)
        hit = self._memo.get(key)
        if hit is not None:
            v, probs = hit
            if probs and self._stack:
                top = self._stack[-1]
                top.extend(x for x in probs if x not in top)
            return v
        budget = self._budget
        if key in self._active:
            slot = self._assumed.get(key)
            if slot is not None:
                # a loop-carried read met again while its later bindings are evaluated: the
                # value assumed for this iteration, and what depends on it is not memoised
                slot[1] += 1
                budget.exhausted += 1
                return slot[0]
            # a cycle (a loop-carried name); in a ``probe``, which asks in an order of its
            # own, what is computed from it is not memoised (another order would cut
            # elsewhere)
            if self.world.probing:
                budget.exhausted += 1
            return UNKNOWN
        if budget.fuel <= 0:
            budget.exhausted += 1
            return UNKNOWN
        budget.fuel -= 1
        cut = budget.exhausted
        self._active.add(key)
        mine: list[Problem] = []
        self._stack.append(mine)
        try:
            v = self._expr(expr, env)
        except RecursionError:
            v = UNKNOWN
        finally:
            self._stack.pop()
            self._active.discard(key)
        if budget.exhausted == cut:
            # a value the fuel cut short is not what the expression evaluates to: another
            # question, with more fuel, must compute it again (else answers depend on which
            # rule asked first)
            self._memo[key] = (v, tuple(mine))
        if mine and self._stack:
            top = self._stack[-1]
            top.extend(x for x in mine if x not in top)
        return v

    def _expr(self, e: cst.CSTNode, env: Env | None) -> Any:
        t = type(e)
        if type(e) is cst.Name:
            return self._name(e, env)
        if type(e) is cst.Integer or type(e) is cst.Float or type(e) is cst.Imaginary:
            return _number(e)
        if type(e) is cst.SimpleString:
            return _string(e)
        if type(e) is cst.ConcatenatedString:
            return self._concatenated(e, env)
        if type(e) is cst.FormattedString:
            return self._fstring(e, env)
        if type(e) is cst.Attribute:
            if type(e.value) is cst.Name and (v := stored_before(self.p, e)) is not None:
                return self.value(v, env)  # ``self.fn = ...`` earlier in this method
            return self.attribute(self.value(e.value, env), e.attr.value, e)
        if type(e) is cst.Call:
            return self._call_expr(e, env)
        if type(e) is cst.Subscript:
            return self._subscript(e, env)
        if type(e) is cst.BinaryOperation:
            return self._binary(e, env)
        if type(e) is cst.UnaryOperation:
            return self._unary(e, env)
        if type(e) is cst.Tuple or type(e) is cst.List:
            items = self._elements(e.elements, env)
            if items is None:
                return UNKNOWN
            return Tuple(items) if t is cst.Tuple else List(items)
        if type(e) is cst.Dict:
            return self._dict(e, env)
        if type(e) is cst.Lambda:
            return Function(e, env, self.p)
        if type(e) is cst.FunctionDef:
            return self._decorated(e, env)
        if type(e) is cst.ClassDef:
            return Class(e, self.p)
        if type(e) is cst.IfExp:
            test = self.value(e.test, env)
            truth = self.test(test, e.test)
            if truth is True:
                return self.value(e.body, env)
            if truth is False:
                return self.value(e.orelse, env)
            return join(self.value(e.body, env), self.value(e.orelse, env))
        if type(e) is cst.BooleanOperation:
            return self._boolean(e, env)
        if type(e) is cst.Comparison:
            return self._comparison(e, env)
        if type(e) is cst.ListComp or type(e) is cst.GeneratorExp or type(e) is cst.DictComp:
            return self._comprehension(e, env)
        if type(e) is cst.Ellipsis:
            return Const(...)
        if type(e) is cst.NamedExpr:
            return self.value(e.value, env)
        return UNKNOWN

    # names ---------------------------------------------------------------------------
    def _name(self, name: cst.Name, env: Env | None) -> Any:
        found = self.p.reaching(name)
        if env is not None and found:
            found = self._free_at_call(name, env, found)
        if not found:
            v = name.value
            if v == "True":
                return Const(True)
            if v == "False":
                return Const(False)
            if v == "None":
                return Const(None)
            if v in _BUILTINS and name in self.p._reads:
                return External(f"builtins.{v}")
            return UNKNOWN
        later = self.p.later_in_loop(name, found) if len(found) > 1 else set()
        values = self._loop_carried(name, env, found, later) if later else [self.binding_value(b, env) for b in found]
        if any(type(v) in (List, Dict) for v in values) and self.p.mutated_before(name, found):
            if len(found) == 1 and type(values[0]) is List:
                from .appended import appended

                built = appended(self, name, found[0], values[0], env)  # ``outs.append(y)`` in a loop
                if built is not None:
                    return built
            if len(found) == 1 and type(values[0]) is Dict:
                from .stored import stored

                changed = stored(self, name, found[0], values[0], env)  # ``cfg["lr"] = 0.1``
                if changed is not None:
                    return changed
                if self.ctx.enclosing_function(name) is not None:
                    from .registries import imported

                    registry = imported(self, found[0], values[0])  # filled while the module imports
                    if registry is not None:
                        return registry
            return UNKNOWN  # ``xs[1] = ...`` / ``xs.pop()`` may have changed it by now
        if UNKNOWN in values and later:
            # a binding later in a loop around the read (``params = step(params)``) whose
            # value is not known: the first iteration still reads what came before the loop,
            # and what fails there fails
            kept = [v for b, v in zip(found, values, strict=True) if not (b in later and v is UNKNOWN)]
            if kept and len(kept) < len(values):
                return join_all(kept)
        return join_all(values)

    def _loop_carried(self, name: cst.Name, env: Env | None, found: list[Binding], later: set[Binding]) -> list[Any]:
        """The values of the bindings reaching a read in a loop, some of them made later in
        the loop (``params = update(params, grad(loss)(params))``): those later bindings
        are computed from the read itself, so they are solved as a fixpoint. The first
        iteration reads what came before the loop; a later binding is evaluated assuming the
        read gives that, then the join of everything so far, until the assumption holds
        (sizes that differ join to unknown, so this ends in a few rounds)."""
        values = {b: self.binding_value(b, env) for b in found if b not in later}
        entry = join_all(list(values.values()))
        key = (name, env)
        if entry is UNKNOWN or key not in self._active or key in self._assumed:
            return [values[b] if b in values else self.binding_value(b, env) for b in found]
        guess = entry
        for _ in range(3):
            slot = [guess, 0]
            self._assumed[key] = slot
            try:
                carried = {b: self.binding_value(b, env) for b in later}
            finally:
                del self._assumed[key]
            both = join_all([*values.values(), *carried.values()])
            if slot[1] == 0 or both == guess:
                self._budget.exhausted -= slot[1]  # computed under an assumption that holds
                return [values[b] if b in values else carried[b] for b in found]
            guess = both
        return [values.get(b, UNKNOWN) for b in found]

    def _free_at_call(self, name: cst.Name, env: Env, found: list[Binding]) -> list[Binding]:
        """A function's free name is read when the function runs. When the call chain that
        runs it starts at a module-level statement of this module (a script, a notebook),
        the module's bindings are those reaching that statement, not those at the module's
        end (``def f`` rebound later in a notebook is not yet the ``f`` a call in cell 3 sees)."""
        module = self.p.module_scope
        if any(b.scope is not module for b in found) or len(module.bindings.get(name.value, ())) < 2:
            return found
        r = self.p._reads.get(name)
        if r is None or r.scope is module:
            return found  # read by module code itself: already where it runs
        root = env
        while root.caller is not None:
            root = root.caller
        site = root.site
        if not isinstance(site, cst.CSTNode) or self.ctx.enclosing_function(site) is not None:
            return found
        at = self._module_read_at(site)
        if at is None:
            return found
        path, index = at
        return reaching_in(module, name.value, path, index) or found

    def _module_read_at(self, node: cst.CSTNode) -> tuple[tuple, int] | None:
        """(arm path, event index) of a module-level expression: those of a name it reads."""
        reads = self.p._reads
        for n in (node, *self.ctx.descendants(node)):
            r = reads.get(n) if type(n) is cst.Name else None
            if r is not None and r.scope is self.p.module_scope:
                return r.path, r.index
        return None

    def binding_value(self, b: Binding, env: Env | None) -> Any:
        """What binding ``b`` gives its name, in the frame of ``env`` for its scope."""
        kind = b.kind
        frame = self.frame_of(b.scope, env) if b.scope.kind in ("function", "lambda", "comprehension") else None
        if b.scope.kind == "module" and env is not None:
            frame = self.frame_of(b.scope, env)  # one iteration of a module-level loop (mapsites.iterations)
        if kind == "import":
            q = b.imported or ""
            q = canonical(q)
            found = self.world.resolve(q) if "." in q else None
            if found is not None and type(found) is not External:
                return found
            return External(q)
        if kind == "def":
            return self.value(b.node, frame)
        if kind == "class":
            return Class(b.node, self.p)  # type: ignore[arg-type]  # a class binding's node is its ClassDef
        if kind == "param":
            if frame is not None:
                v = frame.get(b.name)
                if v is UNKNOWN or type(v) is Opaque:
                    # the call passes a value it does not show: the parameter is still what
                    # its annotation declares (``gamma: float`` given ``config.gamma``),
                    # known by the argument's identity
                    declared = self.declared_param(b, v)
                    return declared if declared is not UNKNOWN else v
                if v is not _MISSING:
                    return v
            return self.unbound_param(b, frame)
        if kind in ("assign", "walrus") and b.value is not None:
            v = self.value(b.value, frame)
            if b.scope.kind == "module" and type(b.value) is cst.Integer and not b.unpack and type(v) is Const:
                # ``N_WORDS = 16``: a size the program names (one value per binding)
                named = self.p.__dict__.setdefault("_named_constants", {})
                found = named.get(b.node)
                if found is None:
                    found = named[b.node] = _named(v, self.ctx, b.name)
                return found
            return unpack(v, b.unpack)
        if kind == "augassign" and type(b.node) is cst.AugAssign and type(b.node.target) is cst.Name:
            return self._augmented(b, env, frame)
        if kind == "with" and type(b.node) is cst.WithItem:
            v = self.value(b.node.item, frame)
            return v if mesh_names(v) is not None else UNKNOWN  # ``with Mesh(...) as mesh``: the mesh itself
        if kind == "for":
            loop = b.node
            if type(loop) is cst.For:
                if frame is not None:  # one iteration's item (``appended.loop_frame``)
                    v = frame.get(LOOP_KEY + b.name)
                    if v is not _MISSING:
                        return v
                return unpack(self.element(self.value(loop.iter, frame)), b.unpack)
            if type(loop) is cst.CompFor:
                if frame is not None:
                    v = frame.get(b.name)
                    if v is not _MISSING:
                        return v
                outer = frame.parent if frame is not None else env
                return unpack(self.element(self.value(loop.iter, outer)), b.unpack)
        return UNKNOWN

    def _augmented(self, b: Binding, env: Env | None, frame: Env | None) -> Any:
        """``x op= y``: ``x op y`` of what ``x`` held before. A NumPy array is updated in
        place (its shape and dtype stay, or NumPy raises: unknown); anything else with a
        value of its own (a JAX array, a number, a tuple) is rebound to ``x op y``. A list
        or dict (extended in place, seen by every alias) and a loop that comes back to the
        statement stay unknown."""
        node = b.node
        assert type(node) is cst.AugAssign
        before = self.p._lookup(b.scope, b.name, b.path, b.index - 1)
        if not before or any(x.index >= b.index or x.anywhere for x in before):
            return UNKNOWN
        old = join_all([self.binding_value(x, env) for x in before])
        if type(old) not in (Array, Const, Scalar, Tuple):
            return UNKNOWN
        op = type(node.operator).__name__.removesuffix("Assign")
        right = self.value(node.value, frame)
        new = self.binary(op, old, right, node)
        if type(old) is not Array or not old.host:
            return new
        if (
            type(new) is not Array
            or (type(right) is Array and not right.host)
            or old.shape is None
            or new.shape != old.shape
            or new.dtype is None
            or old.dtype is None
            or new.dtype.kind != old.dtype.kind
        ):
            return UNKNOWN
        return Array(old.shape, old.dtype, True, old.origin, new.traced)

    def unbound_param(self, b: Binding, frame: Env | None) -> Any:
        """A parameter no visible call gives a value: its annotation's meaning, or an
        ``Opaque`` value of its own."""
        from .annotations import annotated_value

        fn = b.scope.node
        param = b.node
        qual = self._qualname(fn)
        me = self._receiver(b)
        if me is not None:
            return me
        if type(param) is cst.Param:
            if param.star == "*":
                return UNKNOWN
            if param.star == "**":
                return UNKNOWN
            if param.annotation is not None:
                v = annotated_value(self, param.annotation.annotation, f"{qual}.{b.name}", b.name, fn)
                if v is not UNKNOWN:
                    return v
            if param.default is not None and self._is_none(param.default):
                return UNKNOWN  # ``x=None``: may be None, may be anything
            if isinstance(fn, (cst.FunctionDef, cst.Lambda)):
                from .uses import reads_shape

                if reads_shape(self.p, fn, b.name):
                    # the body reads its ``.shape``: an array, known by identity
                    return Array(None, None, False, f"{qual}.{b.name}")
        return Opaque(f"{qual}.{b.name}", b.name)

    def declared_param(self, b: Binding, given: Any) -> Any:
        """What parameter ``b``'s annotation declares its value is, or UNKNOWN; an
        ``Opaque`` argument ``given`` keeps its identity (its key names the sizes)."""
        from .annotations import annotated_value

        param = b.node
        if type(param) is not cst.Param or param.star or param.annotation is None:
            return UNKNOWN
        fn = b.scope.node
        ann = param.annotation.annotation
        key, label = f"{self._qualname(fn)}.{b.name}", b.name
        if type(given) is Opaque and type(ann) is not cst.Subscript:  # jaxtyping's sizes are the signature's
            key, label = given.key, given.label
        return annotated_value(self, ann, key, label, fn)

    def _receiver(self, b: Binding) -> Any:
        """The first parameter of a method written in a class body, when no call binds it:
        an instance of that class (its methods and the attributes its methods store; a
        dataclass's fields as declared, ``classes.declared_instance``); of a
        ``classmethod``, the class itself (``cls.n_cards``: its class attribute)."""
        fn = b.scope.node
        cls_scope = b.scope.parent
        if type(fn) is not cst.FunctionDef or cls_scope is None or cls_scope.kind != "class":
            return None
        params = [*fn.params.posonly_params, *fn.params.params]
        if not params or params[0] is not b.node:
            return None
        assert isinstance(cls_scope.node, cst.ClassDef)
        cls = Class(cls_scope.node, self.p)
        for dec in fn.decorators:
            d = self.value(dec.decorator, None)
            if type(d) is External and d.qualified == "builtins.staticmethod":
                return None
            if type(d) is External and d.qualified == "builtins.classmethod":
                return cls
        # a dataclass's fields hold what they declare (``templates: Float[Array, "k d"]``)
        from .classes import declared_instance

        declared = declared_instance(self, cls, f"{self._qualname(fn)}.{b.name}")
        return declared if type(declared) is Struct else Struct(cls, (), "object")

    def _qualname(self, fn: cst.CSTNode) -> str:
        if isinstance(fn, cst.FunctionDef):
            return self.ctx.qualname(fn) or fn.name.value
        if isinstance(fn, cst.Lambda):
            return self.ctx.qualname(fn) or "<lambda>"
        return "?"

    @staticmethod
    def _is_none(e: cst.BaseExpression) -> bool:
        return type(e) is cst.Name and e.value == "None"

    # attributes ----------------------------------------------------------------------
    def attribute(self, base: Any, attr: str, node: cst.CSTNode | None = None) -> Any:
        t = type(base)
        if t is External:
            q = f"{base.qualified}.{attr}"
            q = canonical(q)
            if q in CONSTANTS:
                return CONSTANTS[q]  # ``jnp.pi``: a Python float
            found = self.world.resolve(q)
            if found is not None:
                return found  # a re-export (a stub's ``from jax.nn import relu``) is what it names
            return External(q)
        if t is Array:
            return self._array_attribute(base, attr)
        if t is Struct and type(base.cls) is External:
            v = base.get(attr)  # a field the model knows (a mesh's ``axis_names``)
            if v is not None:
                return v
            method = INSTANCE_METHODS.get(base.cls.qualified, {}).get(attr)
            return External(method) if method is not None else UNKNOWN
        if t is Struct:
            v = base.get(attr)
            if v is not None:
                return _as_called_on(v, base) if base.kind == "object" else v
            from .classes import bound_method, stored_attribute

            m = bound_method(self, base.cls, attr, base)
            if m is UNKNOWN and base.kind == "object":
                return stored_attribute(self, base.cls, attr, base)
            if m is UNKNOWN and type(base.cls) is Class:
                from .classes import replacing_method

                if attr == replacing_method(self, base.cls):  # ``state._replace(lat=lat)``
                    return Bound(External("dataclasses.replace"), base)
            return m
        if t is Class:
            from .classes import class_attribute

            return class_attribute(self, base, attr)
        if t is Opaque:
            return Opaque(f"{base.key}.{attr}", f"{base.label or base.key}.{attr}")
        if t is Dict and attr in ("get", "items", "keys", "values"):
            return Bound(External(f"builtins.dict.{attr}"), base)
        if t is _At:
            return UNKNOWN
        if t is IndexRef:
            return Bound(External(f"jax.Array.at.{attr}"), base)
        if (
            attr == "__name__"
            and (t is Function or t is Class)
            and isinstance(base.node, (cst.FunctionDef, cst.ClassDef))
        ):
            return Const(base.node.name.value)  # a def's or class's own name (``fn.__name__``)
        if t is Transformed and attr in ("trace", "lower", "eval_shape"):
            return base  # ``jax.jit(f).lower(x)`` passes its arguments as a call
        if t is Transformed and attr in ("defvjp", "defjvp", "defjvps", "defjvp_fwd"):
            return UNKNOWN
        return UNKNOWN

    def _array_attribute(self, a: Array, attr: str) -> Any:
        prefix = "numpy.ndarray" if a.host else "jax.Array"
        s = a.shape
        if attr == "shape" and (s is None or s.rank is None):
            return _ShapeOf(a)  # ``x.shape[i]`` is still a size of its own
        if attr == "at" and not a.host:
            return _At(a)
        q = f"{prefix}.{attr}"
        op = lookup(q)
        if op is not None and op.attribute:
            return self._apply_op(q, op, [(a, None, "")], None)
        return Bound(External(q), a)

    # subscripts ----------------------------------------------------------------------
    def _subscript(self, e: cst.Subscript, env: Env | None) -> Any:
        base = self.value(e.value, env)
        index = self._index(e.slice, env)
        return self.item(base, index, e)

    def _index(self, elements: Any, env: Env | None) -> Any:
        parts = []
        for el in elements:
            s = el.slice
            if type(s) is cst.Index:
                if s.star is not None:
                    return UNKNOWN
                parts.append(self.value(s.value, env))
            else:
                parts.append(
                    make_slice(
                        self.value(s.lower, env) if s.lower is not None else None,
                        self.value(s.upper, env) if s.upper is not None else None,
                        self.value(s.step, env) if s.step is not None else None,
                    )
                )
        if len(parts) == 1 and not _has_tuple_comma(elements):
            return parts[0]
        return Tuple(tuple(parts))

    def item(self, base: Any, index: Any, node: cst.CSTNode | None = None) -> Any:
        """``base[index]``."""
        t = type(base)
        if t is Tuple or t is List:
            if (
                type(index) is Const
                and type(index.value) is int
                and not -len(base.items) <= index.value < len(base.items)
            ):
                kind = "tuple" if t is Tuple else "list"
                self.report(
                    Problem(
                        "index", f"IndexError: {kind} index {index.value} out of range ({len(base.items)} items)", node
                    )
                )
                return UNKNOWN
            return _sequence_item(base, index)
        if t is Dict:
            if type(index) is Const:
                v = base.get(index.value)
                return v if v is not None else UNKNOWN
            return UNKNOWN
        if t is Seq:
            if is_slice(index):
                return _slice_seq(base, index)
            return base.item
        if t is _ShapeOf:
            i = index.value if type(index) is Const else None
            if isinstance(i, int) and not isinstance(i, bool):
                return _shape_symbol(base.array, i)
            return Scalar("int") if not is_slice(index) else UNKNOWN
        if t is _At:
            return IndexRef(base.array, index)
        if t is Struct and base.kind == "pytree" and type(index) is Const and isinstance(index.value, int):
            fields = [v for k, v in base.fields]
            i = index.value
            return fields[i] if -len(fields) <= i < len(fields) else UNKNOWN
        if t is Array:
            q = "numpy.ndarray.__getitem__" if base.host else "jax.Array.__getitem__"
            op = lookup(q)
            if op is not None:
                return self._apply_op(q, op, [(base, None, ""), (index, None, "")], node)
        if t is External and base.qualified in GRIDS:
            return grid(base.qualified, index)  # ``jnp.mgrid[0:1:5j, 0:1:5j]``
        return UNKNOWN

    def element(self, iterable: Any) -> Any:
        """What ``for x in iterable`` gives ``x`` (the join of every item)."""
        t = type(iterable)
        if t is Tuple or t is List:
            return join_all(list(iterable.items)) if iterable.items else UNKNOWN
        if t is Seq or t is Generator:
            return iterable.item
        if t is Array:
            return self.item(iterable, Const(0))
        if t is _Range:
            return Scalar("int")
        if t is _Zip:
            return Tuple(tuple(self.element(x) for x in iterable.parts))
        if t is _Enumerate:
            return Tuple((Scalar("int"), self.element(iterable.inner)))
        if t is Dict:
            keys = [Const(k) for k, _ in iterable.items]
            return join_all(keys) if keys else UNKNOWN
        if t is Struct and type(iterable.cls) is Class:
            # an instance of a project class: ``for`` calls its ``__iter__`` (a generator
            # method gives what it yields), then the iterator's ``__next__``
            return self.next_item(self.iterator(iterable))
        return UNKNOWN

    def iterator(self, v: Any) -> Any:
        """What ``iter(v)`` gives: a generator is its own iterator; a project class's
        instance gives what its ``__iter__`` returns (``self``, for a loader that is its own
        iterator)."""
        if type(v) is Generator:
            return v
        if type(v) is Struct and type(v.cls) is Class:
            from .classes import bound_method

            made = bound_method(self, v.cls, "__iter__", v)
            return self.call(made, [], None, None) if made is not UNKNOWN else UNKNOWN
        return UNKNOWN

    def next_item(self, it: Any) -> Any:
        """What ``next(it)`` gives of an iterator: an item a generator yields, or what the
        ``__next__`` of a project class's instance returns (``__iter__`` returning ``self``)."""
        if type(it) is Generator:
            return it.item
        if type(it) is Struct and type(it.cls) is Class:
            from .classes import bound_method

            step = bound_method(self, it.cls, "__next__", it)
            return self.call(step, [], None, None) if step is not UNKNOWN else UNKNOWN
        return UNKNOWN

    # operators -----------------------------------------------------------------------
    def _binary(self, e: cst.BinaryOperation, env: Env | None) -> Any:
        left = self.value(e.left, env)
        right = self.value(e.right, env)
        return self.binary(type(e.operator).__name__, left, right, e)

    def binary(self, op: str, left: Any, right: Any, node: cst.CSTNode | None = None) -> Any:
        tl, tr = type(left), type(right)
        if left is UNKNOWN or right is UNKNOWN or (tl is Array and tr is Opaque) or (tl is Opaque and tr is Array):
            return self._on_unknown_operand(op, left, right)
        if tl is Array or tr is Array:
            q = _ARRAY_OPS.get(op)
            if q is None:
                return UNKNOWN
            entry = lookup(q)
            if entry is None:
                return UNKNOWN
            out = self._apply_op(q, entry, [(left, None, ""), (right, None, "")], node)
            if type(out) is Array and not out.host and all(x.host for x in (left, right) if type(x) is Array):
                # NumPy's operators on NumPy arrays give NumPy arrays (a JAX operand wins: it has
                # the higher ``__array_priority__``)
                return Array(out.shape, out.dtype, True, out.origin, out.traced)
            return out
        if tl in (Tuple, List) and tr is tl and op == "Add":
            return tl(left.items + right.items)
        if tl in (Tuple, List) and op == "Multiply" and type(right) is Const and isinstance(right.value, int):
            return tl(left.items * max(right.value, 0)) if right.value <= 64 else UNKNOWN
        if tl is List and op == "Multiply":
            n = as_dim(right)
            if n is not None and len(left.items) == 1:
                return Seq(n, left.items[0])
        if tl is Const and tr is Const:
            return _const_arithmetic(op, left.value, right.value)
        if _int_like(left) and _int_like(right):
            return _int_arithmetic(op, left, right)
        if (tl is Opaque or tr is Opaque) and op in _SIZE_OPS and _size_like(left) and _size_like(right):
            return _opaque_arithmetic(op, left, right)
        if (tl in (Const, Scalar)) and (tr in (Const, Scalar)):
            kinds = {_kind(left), _kind(right)}
            if "str" in kinds:
                return Scalar("str") if op in ("Add", "Modulo") else UNKNOWN
            if op == "Divide" or "float" in kinds:
                return Scalar("float")
            return Scalar("int") if kinds <= {"int", "bool"} else UNKNOWN
        return UNKNOWN

    def _on_unknown_operand(self, op: str, left: Any, right: Any) -> Any:
        """A JAX array's elementwise arithmetic with an operand the model does not know: JAX
        converts the operand (a number, an array) or raises, so the result is an array of at
        least the array's rank (broadcasting never drops an axis); else UNKNOWN (``@``
        contracts)."""
        a = left if type(left) is Array else right if type(right) is Array else None
        q = _ARRAY_OPS.get(op)
        if a is None or a.host or q is None or op == "MatrixMultiply" or lookup(q) is None:
            return UNKNOWN  # ``@`` contracts: it may drop axes
        # the elementwise rule keeps the known operand's axes (``catalogue/rules.at_least``)
        out = self._on_arrays(q, lookup(q), [(left, None, ""), (right, None, "")], None)
        return Array(out.shape, None, False, None, a.traced or out.traced) if type(out) is Array else UNKNOWN

    def _unary(self, e: cst.UnaryOperation, env: Env | None) -> Any:
        v = self.value(e.expression, env)
        op = type(e.operator).__name__
        if op == "Not":
            truth = self.test(v, e.expression)
            return Const(not truth) if truth is not None else Scalar("bool")
        if type(v) is Const and isinstance(v.value, (int, float, complex)) and not isinstance(v.value, bool):
            if op == "Minus":
                return Const(-v.value)
            if op == "Plus":
                return v
        if type(v) is Scalar and op in ("Minus", "Plus"):
            return Scalar(v.kind, dims.neg(v.dim) if op == "Minus" else v.dim)
        if type(v) is Array:
            return Array(v.shape, v.dtype, v.host)
        return UNKNOWN

    def _comparison(self, e: cst.Comparison, env: Env | None) -> Any:
        left = self.value(e.left, env)
        values = [left] + [self.value(c.comparator, env) for c in e.comparisons]
        ops = {type(c.operator) for c in e.comparisons}
        if ops <= {cst.Is, cst.IsNot}:
            # identity gives a Python bool, traced operands or not (``rng is not None`` asks
            # no tracer for its truth; ``x in arr`` does); an array is never None
            if len(values) == 2 and Const(None) in values:
                other = values[1] if values[0] == Const(None) else values[0]
                if other == Const(None):
                    return Const(next(iter(ops)) is cst.Is)
                if type(other) in _NEVER_NONE or (type(other) is Const and other.value is not None):
                    return Const(next(iter(ops)) is cst.IsNot)
            return Scalar("bool")
        arrays = [as_array(v) for v in values if type(v) is Array]
        if arrays:
            from .catalogue.rules import broadcast_shapes

            ok, shape = broadcast_shapes([a.shape for a in arrays if a is not None])
            host = all(a.host for a in arrays if a is not None)
            return Array(shape if ok else None, _BOOL, host, traced=any(traced(v) for v in values))
        if len(values) == 2 and all(type(v) is Const for v in values) and len(e.comparisons) == 1:
            return _const_compare(type(e.comparisons[0].operator).__name__, values[0].value, values[1].value)
        return Scalar("bool")

    def _boolean(self, e: cst.BooleanOperation, env: Env | None) -> Any:
        left = self.value(e.left, env)
        truth = self.test(left, e.left)
        is_and = type(e.operator) is cst.And
        if truth is not None:
            if is_and:
                return self.value(e.right, env) if truth else left
            return left if truth else self.value(e.right, env)
        return join(left, self.value(e.right, env))

    # displays ------------------------------------------------------------------------
    def _elements(self, elements: Any, env: Env | None) -> tuple[Any, ...] | None:
        out: list[Any] = []
        for el in elements:
            if type(el) is cst.StarredElement:
                v = self.value(el.value, env)
                if type(v) in (Tuple, List):
                    out.extend(v.items)
                    continue
                return None
            out.append(self.value(el.value, env))
        return tuple(out)

    def _dict(self, e: cst.Dict, env: Env | None) -> Any:
        items: list[tuple[Any, Any]] = []
        for el in e.elements:
            if type(el) is cst.StarredDictElement:
                v = self.value(el.value, env)
                if type(v) is not Dict:
                    return UNKNOWN
                for k, x in v.items:
                    items = [(a, b) for a, b in items if a != k]
                    items.append((k, x))
                continue
            assert type(el) is cst.DictElement  # the other BaseDictElement
            k = self.value(el.key, env)
            if type(k) is not Const:
                return UNKNOWN
            items = [(a, b) for a, b in items if a != k.value]
            items.append((k.value, self.value(el.value, env)))
        return Dict(tuple(items))

    def _concatenated(self, e: cst.ConcatenatedString, env: Env | None) -> Any:
        left = self.value(e.left, env)
        right = self.value(e.right, env)
        if type(left) is Const and type(right) is Const and isinstance(left.value, str):
            return Const(left.value + str(right.value))
        return Scalar("str")

    def _fstring(self, e: cst.FormattedString, env: Env | None) -> Any:
        out = ""
        for part in e.parts:
            if type(part) is cst.FormattedStringText:
                out += part.value
                continue
            assert isinstance(part, cst.FormattedStringExpression)
            if part.conversion is not None or part.format_spec is not None:
                return Scalar("str")
            v = self.value(part.expression, env)
            if type(v) is not Const or not isinstance(v.value, (str, int)) or isinstance(v.value, bool):
                return Scalar("str")
            out += str(v.value)
        return Const(out)

    def _comprehension(self, e: Any, env: Env | None) -> Any:
        """A list/generator/dict comprehension over items the model knows one by one: each
        element evaluated with the loop variables bound (``if`` clauses must be decided)."""
        frames = self._comprehension_frames(e, e.for_in, env, {}, [0])
        if frames is None:
            return self._comprehension_of_any(e, env)
        if type(e) is cst.DictComp:
            items: list[tuple[Any, Any]] = []
            for f in frames:
                k = self.value(e.key, f)
                if type(k) is not Const:
                    return UNKNOWN
                items = [(a, b) for a, b in items if a != k.value]
                items.append((k.value, self.value(e.value, f)))
            return Dict(tuple(items))
        return List(tuple(self.value(e.elt, f) for f in frames))

    def _comprehension_of_any(self, e: Any, env: Env | None) -> Any:
        """A list comprehension or generator expression over items not known one by one
        (``[jnp.sum(p**2) for p in jax.tree.leaves(params)]``): a sequence of unknown length
        whose every element is what the element expression gives for the iterable's item
        (UNKNOWN when the model does not know it: then every element is what it is for any
        value). One ``for`` clause; its ``if`` clauses only choose which items."""
        clause = e.for_in
        if type(e) is cst.DictComp or clause.inner_for_in is not None or clause.asynchronous is not None:
            return UNKNOWN
        names: dict[str, Any] = {}
        iterable = self.value(clause.iter, env)
        if not _bind_target(clause.target, self.element(iterable), names):
            return UNKNOWN
        item = self.value(e.elt, self.frame(e, names, env))
        if item is UNKNOWN:
            return UNKNOWN
        if type(e) is not cst.ListComp:
            return Generator(item)
        length = None  # one element per item: a symbolic leading axis, a sized sequence
        if not clause.ifs:
            if type(iterable) is Array and iterable.shape is not None and iterable.shape.dims:
                length = iterable.shape.dims[0]
            elif type(iterable) is Seq:
                length = iterable.length
        return Seq(length, item)

    def _comprehension_frames(
        self, comp: Any, clause: cst.CompFor, env: Env | None, bound: dict[str, Any], count: list[int]
    ) -> list[Env] | None:
        if clause.asynchronous is not None:
            return None
        here = self.frame(comp, dict(bound), env) if bound else env
        items = self.items(self.value(clause.iter, here))
        if items is None:
            return None
        out: list[Env] = []
        for item in items:
            count[0] += 1
            if count[0] > COMPREHENSION_ITEMS:
                return None
            names = dict(bound)
            if not _bind_target(clause.target, item, names):
                return None
            frame = self.frame(comp, names, env)
            keep = True
            for cond in clause.ifs:
                truth = _truth(self.value(cond.test, frame))
                if truth is None:
                    return None
                keep = keep and truth
            if not keep:
                continue
            if clause.inner_for_in is not None:
                more = self._comprehension_frames(comp, clause.inner_for_in, env, names, count)
                if more is None:
                    return None
                out += more
            else:
                out.append(frame)
        return out

    def items(self, iterable: Any) -> list[Any] | None:
        """The items a ``for`` over ``iterable`` gives one by one, when they are known."""
        t = type(iterable)
        if t is Tuple or t is List:
            return list(iterable.items)
        if t is Dict:
            return [Const(k) for k, _ in iterable.items]
        if t is _Range and iterable.values is not None:
            return [Const(i) for i in iterable.values]
        if t is _Zip:
            parts = [self.items(x) for x in iterable.parts]
            if any(p is None for p in parts):
                return None
            return [Tuple(tuple(row)) for row in zip(*parts, strict=False)]
        if t is _Enumerate:
            inner = self.items(iterable.inner)
            return None if inner is None else [Tuple((Const(i), x)) for i, x in enumerate(inner)]
        if t is Seq and dims.as_int(iterable.length) is not None and (dims.as_int(iterable.length) or 0) <= 64:
            return [iterable.item] * (dims.as_int(iterable.length) or 0)
        if t is Array:
            return self.rows(iterable)
        if t is Generator and iterable.every is not None:
            return list(iterable.every)
        return None

    def rows(self, array: Array) -> list[Any] | None:
        """What iterating an array gives one by one: a row per index of its leading axis,
        when that size is known (and at most 64); else None."""
        if array.shape is None or not array.shape.dims:
            return None
        n = dims.as_int(array.shape.dims[0])
        if n is None or n > 64:
            return None
        return [self.item(array, Const(0))] * n

    # calls ---------------------------------------------------------------------------
    def _call_expr(self, e: cst.Call, env: Env | None) -> Any:
        if type(e.func) is cst.Attribute and e.func.attr.value in PARSES:
            namespace = parsed(self, e, env)  # ``parser.parse_args()``: the flags' defaults
            if namespace is not None:
                return namespace
        fn = self.value(e.func, env)
        args: list[Argument] = []
        for a in e.args:
            v = self.value(a.value, env)
            if a.star == "*":
                if type(v) in (Tuple, List):
                    args.extend((x, None, "") for x in v.items)
                    continue
                args.append((v, None, "*"))
                continue
            if a.star == "**":
                if type(v) is Dict and all(isinstance(k, str) for k, _ in v.items):
                    args.extend((x, str(k), "") for k, x in v.items)
                    continue
                args.append((v, None, "**"))
                continue
            args.append((v, a.keyword.value if a.keyword is not None else None, ""))
        return self.call(fn, args, env, e)

    def call(self, fn: Any, args: list[Argument], env: Env | None, node: cst.CSTNode | None) -> Any:
        """What calling ``fn`` with ``args`` gives; ``env`` is the caller's frame."""
        t = type(fn)
        if t is External:
            return self._call_external(fn.qualified, args, env, node)
        if t is Function:
            if fn.env is not None and traces_arrays(self.world, fn):
                args = traced_arguments(args)  # a library jit's wrapper
            if fn.program is not None and fn.program is not self.p:
                return fn.program.evaluator.call_function(fn, args, env, node)
            return self.call_function(fn, args, env, node)
        if t is Bound:
            return self.call(fn.func, [(fn.receiver, None, ""), *args], env, node)
        if t is Wraps:
            return self.call(fn.func, args, env, node)
        if t is Partial:
            if fn.star:
                return UNKNOWN
            merged = [(v, None, "") for v in fn.args]
            given = {k for _, k, _ in args if k is not None}
            merged += [(v, k, "") for k, v in fn.keywords if k not in given]
            return self.call(fn.func, merged + args, env, node)
        if t is Transformed:
            return self.transfer.call(fn, args, env, node)
        if t is Class:
            from .classes import instantiate

            ev = fn.program.evaluator if fn.program is not None else self
            return instantiate(ev, fn, args, env, node)
        if t is OneOf:
            # each may be the one called: what happens in one of them is not certain
            self.world.uncertain += 1
            try:
                return join_all([self.call(x, args, env, node) for x in fn.options])
            finally:
                self.world.uncertain -= 1
        if t is Struct:
            from .classes import bound_method

            m = bound_method(self, fn.cls, "__call__", fn)
            return self.call(m, args, env, node) if m is not UNKNOWN else UNKNOWN
        return UNKNOWN

    def _call_external(self, q: str, args: list[Argument], env: Env | None, node: cst.CSTNode | None) -> Any:
        from .pybuiltins import BUILTIN_CALLS, not_handled

        if q in BUILTIN_CALLS:
            self.at = node
            v = BUILTIN_CALLS[q](self, args)
            if not not_handled(v):
                return v
        if q in RUNS_METHOD:
            return run_method(self, q, args, env, node)
        if q in linen.METHODS:
            return linen.call(self, q, args, env, node)
        if q == "functools.wraps" and args and args[0][1] is None and not args[0][2]:
            return _WrapsDecorator(args[0][0])
        if q in PARTIAL:
            if not args or args[0][1] is not None or args[0][2]:
                return UNKNOWN
            rest = args[1:]
            star = any(s for _, _, s in rest)
            return Partial(
                args[0][0],
                tuple(v for v, k, s in rest if k is None and not s),
                tuple((k, v) for v, k, s in rest if k is not None),
                star,
                node,
            )
        if q in SCOPES:
            first = args[0][0] if args and args[0][1] is None and not args[0][2] else None
            if type(first) in (Function, Bound, Partial, Transformed):
                return first  # ``annotate_function(f)``: the function, run as it is
            # ``named_scope("x")``: a context manager that, as a decorator, keeps the function
            return External(q)
        if self.transfer.is_transform(q):
            return self.transfer.make(q, args, node)
        if self.world.probing and (self.transfer.runs_functions(q) or lookup(q) is not None):
            # ``probe``: a catalogue function or ``vjp`` gives arrays (or a pullback), never
            # the callable asked about; not run, and what met it not memoised
            self._budget.exhausted += 1
            return UNKNOWN
        if self.transfer.runs_functions(q):
            return self.transfer.run_external(q, args, env, node)
        op = lookup(q)
        if op is None:
            return UNKNOWN
        out = self._apply_op(q, op, args, node, env)
        if out is UNKNOWN and takes_arrays(q):
            return self._promised(q, op, args, env)
        return out

    def _promised(self, q: str, op: Any, args: list[Argument], env: Env | None) -> Any:
        """What a JAX array function gives when the model does not know some of its
        arguments: it returns JAX arrays (or raises), so an argument it accepts is an array
        or a number, and the result is what the API promises for arrays of unknown shape
        (``jnp.tanh(x)`` one array, ``jnp.linalg.slogdet(x)`` a pair of them); UNKNOWN
        when that is not an array or a tuple of arrays."""
        if not any(v is UNKNOWN or type(v) is Opaque for v, _, _ in args) or any(s for _, _, s in args):
            return UNKNOWN
        out = self._on_arrays(q, op, args, env)
        if type(out) is Array or (type(out) is Tuple and out.items and all(type(x) is Array for x in out.items)):
            return out
        return UNKNOWN

    def _apply_op(self, q: str, op: Any, args: list[Argument], node: cst.CSTNode | None, env: Env | None = None) -> Any:
        """A catalogue function's result; the functions it is given (``lax.scan``'s body,
        ``jax.tree.map``'s) are called from ``env``, the caller's frame."""
        b = bind(op.signature, args)
        if b.error is not None:
            return UNKNOWN
        for name in op.static:
            if name in b.arguments and traced(b.arguments[name]):
                self.report(
                    Problem(
                        "tracer",
                        f"`{q.rsplit('.', 1)[-1]}` needs `{name}` as a Python value, but it is a traced array "
                        f"(ConcretizationTypeError)",
                        node,
                    )
                )
                return UNKNOWN

        def call_function(f: Any, xs: list[Any]) -> Any:
            if type(f) is Function and node is not None:
                self.records.setdefault(("operands", node, f.node, env), []).append(tuple(xs))
            return self.call(f, [(x, None, "") for x in xs], env, node)

        call = Call(q, op.signature, b, node, self.report, call_function)
        try:
            out = op.result(call)
        except (ValueError, TypeError, IndexError, KeyError, ZeroDivisionError, OverflowError):
            return UNKNOWN  # a rule that cannot read its arguments: unknown, never a crash
        if any(traced(v) for v, _, _ in args):
            out = with_trace(out)  # computed from a tracer: a tracer
        return out

    def operands(self, call: cst.Call, fn: cst.CSTNode, env: Env | None) -> list[tuple[Any, ...]]:
        """The positional arguments a catalogue function given ``fn`` calls it with
        (``fori_loop(0, n, body, init)`` calls ``body(i, init)``: its result rule says so),
        one tuple per call the rule makes, for ``call`` evaluated in ``env``."""
        self.value(call, env)
        return self.records.get(("operands", call, fn, env), [])

    def result_with_arrays(self, call: cst.Call, env: Env | None) -> Any:
        """What a call of a catalogue function gives when the arguments the model does not
        know are arrays (of unknown shape): the kind of result its API promises
        (``jnp.where(c, g, 0.0)`` one array, ``jnp.linalg.slogdet(x)`` a pair of them, even
        when ``g`` and ``x`` are opaque); UNKNOWN for anything else."""
        fn = self.value(call.func, env)
        if type(fn) is not External:
            return UNKNOWN
        op = lookup(fn.qualified)
        if op is None or any(a.star for a in call.args):
            return UNKNOWN
        args = [(self.value(a.value, env), a.keyword.value if a.keyword is not None else None, "") for a in call.args]
        return self._on_arrays(fn.qualified, op, args, env)

    def _on_arrays(self, q: str, op: Any, args: list[Argument], env: Env | None) -> Any:
        """The catalogue function's result with each argument the model does not know (or
        knows only by identity) taken as an array of unknown shape; what it would raise on
        such made-up arrays is no problem of the code's."""
        made = [(Array() if v is UNKNOWN or type(v) is Opaque else v, k, s) for v, k, s in args]
        self._stack.append([])
        try:
            return self._apply_op(q, op, made, None, env)
        finally:
            self._stack.pop()

    def test(self, value: Any, node: cst.CSTNode | None) -> bool | None:
        """What Python makes of ``value`` as a condition: True/False when known; a traced
        array is a problem (a tracer has no truth value)."""
        if type(value) is Array and value.traced:
            self.report(
                Problem(
                    "tracer",
                    "a traced array used as a Python bool (TracerBoolConversionError): branch with "
                    "`jnp.where`/`lax.cond`, or keep the value static",
                    node,
                )
            )
            return None
        if type(value) is Array and _more_than_one_element(value):
            self.report(
                Problem(
                    "ambiguous",
                    "an array of more than one element used as a Python bool (ValueError: the truth value "
                    "is ambiguous): use `.any()`/`.all()`, or `jnp.where`",
                    node,
                )
            )
            return None
        return _truth(value)

    def signature(self, fn: Any) -> Signature | None:
        """The signature of a callable value (see ``jaxlint.model.signature``)."""
        from .callables import signature_of

        return signature_of(self, fn)

    def call_frame(self, fn: Function, args: list[Argument], env: Env | None, node: cst.CSTNode | None) -> Env | None:
        """The frame a call of the def or lambda ``fn`` with ``args`` from ``env`` at ``node``
        runs its body in (the one ``call_function`` evaluates), or None when the call cannot
        be bound (or goes too deep)."""
        if fn.program is not None and fn.program is not self.p:
            return fn.program.evaluator.call_frame(fn, args, env, node)
        sig = self.signature(fn)
        if sig is None:
            return None
        b = bind(sig, args)
        if b.error is not None:
            return None
        if (env.depth if env is not None else 0) >= MAX_CALL_DEPTH or self._depth >= MAX_CALL_DEPTH:
            return None
        return self.frame(fn.node, self.bound_params(fn, sig, b), fn.env, node, env)

    def call_function(self, fn: Function, args: list[Argument], env: Env | None, node: cst.CSTNode | None) -> Any:
        """Call a def or lambda: bind the arguments, evaluate what it returns."""
        frame = self.call_frame(fn, args, env, node)
        if frame is None:
            return UNKNOWN
        key = (fn.node, frame)
        hit = self._calls.get(key)
        if hit is not None:
            v, probs = hit
            for x in probs:
                self.report(x)
            return v
        self._calls[key] = (UNKNOWN, ())  # a recursive call gives UNKNOWN
        cut = self._budget.exhausted
        self._depth += 1
        try:
            with self.collect() as got:
                v = self.returned(fn, frame)
        finally:
            self._depth -= 1
        if self._budget.exhausted == cut or not self.world.probing:
            self._calls[key] = (v, tuple(got.problems))
        else:
            del self._calls[key]  # a ``probe`` cut it short: computed in full when asked again
        return v

    def bound_params(self, fn: Function, sig: Signature, b: Any) -> dict[str, Any]:
        """Every parameter's value for one call: the argument, else the default (as
        evaluated where the def is), else UNKNOWN (a spread argument may give it)."""
        out: dict[str, Any] = {}
        for p in sig.params:
            if p.name in b.arguments:
                v = b.arguments[p.name]
                if p.kind == "var":
                    v = Tuple(tuple(v))
                elif p.kind == "varkw":
                    v = Dict(tuple(v.items()))
                out[p.name] = v
            elif p.kind == "var":
                out[p.name] = UNKNOWN if b.partial else Tuple(())
            elif p.kind == "varkw":
                out[p.name] = UNKNOWN if b.partial else Dict(())
            elif p.default is not REQUIRED and p.name not in b.spread:
                out[p.name] = p.default
            else:
                out[p.name] = UNKNOWN
        return out

    def returned(self, fn: Function, frame: Env | None) -> Any:
        """What ``fn`` returns when its parameters are ``frame``'s."""
        node = fn.node
        if isinstance(node, cst.Lambda):
            return self.value(node.body, frame)
        from .flow import terminates
        from .returns import return_statements

        if fn.program is not None and fn.program is not self.p:
            return fn.program.evaluator.returned(fn, frame)
        rets = return_statements(self.ctx, node)
        if rets is None:
            return self._generator(node, frame)
        self._tests(node, frame)
        reached, falls_off = self._returns(node.body, frame)
        values = [self.value(r.value, frame) if r.value is not None else Const(None) for r in reached]
        if falls_off and not terminates(node.body, enter_with=True):
            values.append(Const(None))
        return join_all(values)

    def _generator(self, node: cst.FunctionDef, frame: Env | None) -> Any:
        """A generator function's call: a ``Generator`` of what its ``yield``s give
        (``yield from xs``: the items of ``xs``; a bare ``yield``: None)."""
        from .returns import yield_expressions

        ys = yield_expressions(self.ctx, node)
        if ys is None:
            return UNKNOWN
        per_iteration = self._loop_yields(node, ys, frame)
        if per_iteration:
            return Generator(join_all(per_iteration), per_iteration[0], tuple(per_iteration))
        items = []
        for y in ys:
            if y.value is None:
                items.append(Const(None))
            elif type(y.value) is cst.From:
                items.append(self.element(self.value(y.value.item, frame)))
            else:
                items.append(self.value(y.value, frame))
        return Generator(join_all(items), UNKNOWN)

    def _loop_yields(self, node: cst.FunctionDef, ys: list[cst.Yield], frame: Env | None) -> list[Any] | None:
        """What a generator yields, item by item, when its one ``yield`` is under ``for``
        loops only (no ``if``, ``while``, ``try``; nothing in the body that returns, raises,
        breaks or continues) over items the model knows, at most ``MAX_YIELDS`` of them:
        the yield evaluated with each loop's target bound to each of its items, in order
        (``for start in range(0, len(x), n): yield x[start:start + n]`` yields ``x[0:n]``,
        ``x[n:2 * n]``, ...). None otherwise."""
        from .appended import loop_frame

        if frame is None or len(ys) != 1 or ys[0].value is None or type(ys[0].value) is cst.From:
            return None
        jumps = (cst.Return, cst.Raise, cst.Break, cst.Continue)
        if any(type(n) in jumps for n in self.ctx.descendants(node.body, (cst.FunctionDef, cst.ClassDef, cst.Lambda))):
            return None
        loops: list[cst.For] = []
        child: cst.CSTNode = ys[0]
        parent = self.ctx.parents.get(child)
        while parent is not None and parent is not node:
            t = type(parent)
            if t is cst.For:
                if child is not parent.body or parent.asynchronous:
                    return None
                loops.append(parent)
            elif t in (cst.If, cst.While, cst.Try, cst.TryStar, cst.With, cst.Match):
                return None
            child, parent = parent, self.ctx.parents.get(parent)
        envs: list[Env] = [frame]
        for loop in reversed(loops):
            deeper: list[Env] = []
            for env in envs:
                items = self.items(self.value(loop.iter, env))
                if not items or len(deeper) + len(items) > MAX_YIELDS:
                    return None
                for item in items:
                    made = loop_frame(self, env, loop.target, item)
                    if made is None:
                        return None
                    deeper.append(made)
            envs = deeper
        return [self.value(ys[0].value, env) for env in envs]

    def _returns(self, block: Any, frame: Env | None) -> tuple[list[cst.Return], bool]:
        """The ``return`` statements a run with ``frame``'s values can reach: an ``if``
        whose test the model decides takes one arm; (returns, whether the block may end
        without returning)."""
        body = block.body if isinstance(block, (cst.IndentedBlock, cst.SimpleStatementSuite)) else [block]
        out: list[cst.Return] = []
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Return):
                        out.append(small)
                        return out, False
                    if isinstance(small, cst.Raise):
                        return out, False
                continue
            if isinstance(stmt, cst.If):
                truth = _truth(self.value(stmt.test, frame))
                arms: list[Any] = []
                if truth is not False:
                    arms.append(stmt.body)
                if truth is not True:
                    arms.append(stmt.orelse if stmt.orelse is not None else None)
                ends = True
                for arm in arms:
                    if arm is None:
                        ends = False
                        continue
                    inner = arm.body if isinstance(arm, cst.Else) else arm
                    got, falls = self._returns(inner, frame)
                    out += got
                    ends = ends and not falls
                if ends:
                    return out, False
                continue
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue
            # loops, with, try, match: their returns may run (not decided here)
            from .returns import _SCOPES

            for n in self.ctx.descendants(stmt, _SCOPES):
                if isinstance(n, cst.Return):
                    out.append(n)
        return out, True

    def _tests(self, fn: cst.FunctionDef, frame: Env | None) -> None:
        """What the body runs for certain before its values matter: the tests of its
        ``if``/``while`` statements and the iterable of a ``for`` (its own block, up to the
        first ``return``/``raise``/``for``/``try``/``with``): Python branches and counts on
        concrete values."""
        body = fn.body
        if not isinstance(body, cst.IndentedBlock):
            return
        for stmt in body.body:
            if isinstance(stmt, (cst.If, cst.While)):
                self.test(self.value(stmt.test, frame), stmt.test)
            elif isinstance(stmt, cst.For):
                self.value(stmt.iter, frame)  # ``range(n)`` runs, whatever the loop does
                return
            elif isinstance(stmt, (cst.Try, cst.With)) or (
                isinstance(stmt, cst.SimpleStatementLine)
                and any(isinstance(x, (cst.Return, cst.Raise)) for x in stmt.body)
            ):
                return

    # decorators ----------------------------------------------------------------------
    def _decorated(self, node: cst.FunctionDef, env: Env | None) -> Any:
        cur: Any = Function(node, env, self.p)
        for dec in reversed(node.decorators):
            d = self.value(dec.decorator, env)
            cur = self.decorate(d, cur, dec.decorator)
            if cur is UNKNOWN:
                return UNKNOWN
        return cur

    def decorate(self, d: Any, fn: Any, node: cst.CSTNode | None) -> Any:
        """The value ``@d`` makes of ``fn``."""
        if type(d) is External:
            q = d.qualified
            if q in TRANSPARENT or q in SCOPES:
                return fn
            if self.transfer.is_transform(q):
                return self.transfer.make(q, [(fn, None, "")], node)
            if q.startswith("builtins.") and q[9:] in ("staticmethod", "classmethod", "property"):
                return fn if q != "builtins.property" else UNKNOWN
        if type(d) is Partial and type(d.func) is External and self.transfer.is_transform(d.func.qualified):
            args: list[Argument] = [(fn, None, ""), *((v, None, "") for v in d.args)]
            args += [(v, k, "") for k, v in d.keywords]
            return self.transfer.make(d.func.qualified, args, node)
        if type(d) is _WrapsDecorator:
            return Wraps(fn, d.wrapped) if type(fn) in CALLABLES else UNKNOWN
        if type(d) is Transformed and d.target is _NO_TARGET:
            # ``jax.jit(static_argnums=0)`` used as a decorator factory
            return Transformed(d.api, fn, d.options, node, d.unknown_options)
        if type(d) in (Function, Bound, Partial):
            v = self.call(d, [(fn, None, "")], None, node)
            if type(v) in (Function, Bound, Partial, Transformed, Wraps):
                return v
        return UNKNOWN


_NO_TARGET: Any = Opaque("<no function yet>")
MAX_YIELDS = 64  # the items of a generator's loops evaluated one by one (``_loop_yields``)
# values that are never ``None``: an array, a container, an instance, a function of the code
_NEVER_NONE = (
    Array,
    Tuple,
    List,
    Dict,
    Seq,
    Generator,
    Struct,
    Function,
    Bound,
    Partial,
    Transformed,
    Wraps,
    Class,
    OneOf,
)


@dataclass(frozen=True, slots=True)
class _WrapsDecorator:
    """``functools.wraps(wrapped)``: makes of a def a ``Wraps`` of ``wrapped``."""

    wrapped: Any


# ----------------------------------------------------------------------------------
# helper values of the evaluator (not part of the lattice: they never leave it)
# ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _ShapeOf:
    """``x.shape`` of an array whose rank is not known: ``x.shape[i]`` is still a size."""

    array: Array


def _as_called_on(v: Any, obj: Struct) -> Any:
    """A method bound while ``__init__`` ran (``self._step = jax.jit(self._loss)``) has the
    object itself as its receiver: read from the built object, it runs on the object as it
    is then (its fields), not on the fields it had when the method was bound. Through
    transforms and ``partial``."""
    t = type(v)
    if t is Bound:
        r = v.receiver
        same = type(r) is Struct and r is not obj and r.kind == "object" and r.cls == obj.cls
        if same and {k for k, _ in r.fields} <= {k for k, _ in obj.fields}:
            return dataclasses.replace(v, receiver=obj)
        return v
    if t is Transformed:
        target = _as_called_on(v.target, obj)
        return v if target is v.target else dataclasses.replace(v, target=target)
    if t is Partial:
        func = _as_called_on(v.func, obj)
        return v if func is v.func else dataclasses.replace(v, func=func)
    return v


@dataclass(frozen=True, slots=True)
class _At:
    array: Array


@dataclass(frozen=True, slots=True)
class _Range:
    length: dims.Dim
    values: tuple[int, ...] | None = None  # the ints it gives, when its bounds are constants


@dataclass(frozen=True, slots=True)
class _Zip:
    parts: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class _Enumerate:
    inner: Any


_ARRAY_OPS = {
    "Add": "jax.numpy.add",
    "Subtract": "jax.numpy.subtract",
    "Multiply": "jax.numpy.multiply",
    "Divide": "jax.numpy.true_divide",
    "FloorDivide": "jax.numpy.floor_divide",
    "Modulo": "jax.numpy.remainder",
    "Power": "jax.numpy.power",
    "MatrixMultiply": "jax.numpy.matmul",
    "BitAnd": "jax.numpy.bitwise_and",
    "BitOr": "jax.numpy.bitwise_or",
    "BitXor": "jax.numpy.bitwise_xor",
}

# the builtin names a read resolves to: those ``pybuiltins`` computes, and a few that only
# need to be recognised as builtins (decorators, number helpers)
_BUILTINS = frozenset(
    q[len("builtins.") :] for q in BUILTIN_CALLS if q.startswith("builtins.") and "." not in q[len("builtins.") :]
) | frozenset({"classmethod", "divmod", "pow", "property", "round", "staticmethod"})


# A literal's value as Python reads it. ``evaluated_value`` is ``ast.literal_eval``: a
# compile and four closures in a reference cycle per literal (most of what a file left for
# the collector). ``int``, ``float`` and ``complex`` read number literals as the parser does
# (prefixes, exponents, underscores); a string without escapes or carriage returns is its
# text between the quotes.
def _number(e: cst.Integer | cst.Float | cst.Imaginary) -> Any:
    try:
        if type(e) is cst.Integer:
            return Const(int(e.value, 0))
        return Const(float(e.value) if type(e) is cst.Float else complex(e.value))
    except ValueError:
        return UNKNOWN


def _string(e: cst.SimpleString) -> Any:
    v = e.value
    prefix = e.prefix.lower()
    if prefix in ("", "r", "u"):
        start = len(prefix)
        q = 3 if v[start : start + 3] in ('"""', "'''") else 1
        body = v[start + q : -q]
        if "\\" not in body and "\r" not in body:
            return Const(body)
    try:
        return Const(e.evaluated_value)
    except Exception:
        return UNKNOWN


def _named(v: Const, ctx: Any, name: str) -> Const:
    """A module-level int constant with its name (``dims.Named``), for the sizes made from it."""
    if type(v.value) is not int:
        return v
    return named_const(v.value, dims.Named(v.value, f"{ctx.path}:{name}", name))


def _more_than_one_element(v: Array) -> bool:
    """Is the array's element count known and above one? (Python asks ``bool(a)`` of a
    condition; NumPy and JAX raise for such an array.)"""
    shape = v.shape
    if shape is None or shape.rest:
        return False
    n = 1
    for d in shape.dims:
        if not isinstance(d, int) or isinstance(d, bool):
            return False
        n *= d
    return n > 1


def _truth(v: Any) -> bool | None:
    if type(v) is Const:
        try:
            return bool(v.value)
        except Exception:
            return None
    if type(v) in (Tuple, List, Dict):
        return bool(v.items)
    if type(v) in (Function, Class, Bound, Partial, Transformed):
        return True
    return None


def _has_tuple_comma(elements: Any) -> bool:
    """``x[0,]`` is a tuple index even with one element."""
    return len(elements) == 1 and elements[0].comma not in (cst.MaybeSentinel.DEFAULT, None)


def _kind(v: Any) -> str:
    if type(v) is Scalar:
        return v.kind
    x = v.value
    if isinstance(x, bool):
        return "bool"
    return type(x).__name__


def _int_like(v: Any) -> bool:
    return (type(v) is Const and isinstance(v.value, int) and not isinstance(v.value, bool)) or (
        type(v) is Scalar and v.kind == "int"
    )


# the int operators whose result is a size polynomial of the operands' (``dims``)
_DIM_OPS = {"Add": dims.add, "Subtract": dims.sub, "Multiply": dims.mul, "FloorDivide": dims.floordiv}
# ... and those an opaque value's arithmetic keeps as a size, with how its key spells them
_SIZE_OPS = {"Add": "+", "Subtract": "-", "Multiply": "*"}


def _size_like(v: Any) -> bool:
    return type(v) is Opaque or _int_like(v)


def _opaque_arithmetic(op: str, left: Any, right: Any) -> Opaque:
    """``n + 1`` of an opaque ``n``: a value of its own (``n`` may be anything that adds),
    which, used as a size (``jnp.ones((n + 1,))``), is that size: only an int can be one."""
    sign, fn = _SIZE_OPS[op], _DIM_OPS[op]

    def part(v: Any, attr: str) -> str:
        if type(v) is Opaque:
            return getattr(v, attr) or v.key
        return dims.key_text(as_dim(v)) if attr == "key" else dims.text(as_dim(v))

    d = fn(as_dim(left), as_dim(right))
    key = f"({part(left, 'key')} {sign} {part(right, 'key')})"
    return Opaque(key, f"{part(left, 'label')} {sign} {part(right, 'label')}", d)


def _int_arithmetic(op: str, left: Any, right: Any) -> Any:
    if op == "Divide":
        return Scalar("float")
    fn = _DIM_OPS.get(op)
    if fn is None:
        return Scalar("int")
    d = fn(as_dim(left), as_dim(right))
    return int_value(d) if d is not None else Scalar("int")


_SAFE_CONST_OPS = {
    "Add": lambda a, b: a + b,
    "Subtract": lambda a, b: a - b,
    "Multiply": lambda a, b: a * b,
    "Divide": lambda a, b: a / b,
    "FloorDivide": lambda a, b: a // b,
    "Modulo": lambda a, b: a % b,
}


def _const_arithmetic(op: str, a: Any, b: Any) -> Any:
    if op == "Power":
        # Python's ``**``: an int for ints with a non-negative exponent, else a float (a
        # complex for a negative base and a fractional exponent: left unknown)
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return UNKNOWN
        if abs(b) <= 64 and abs(a) < 1e6:
            try:
                out = a**b
            except (OverflowError, ZeroDivisionError):
                return UNKNOWN
            return Const(out) if isinstance(out, (int, float)) else UNKNOWN
        if isinstance(a, int) and isinstance(b, int) and b >= 0:
            return Scalar("int")
        return Scalar("float") if a >= 0 or float(b).is_integer() else UNKNOWN
    f = _SAFE_CONST_OPS.get(op)
    if f is None:
        return UNKNOWN
    if isinstance(a, str) or isinstance(b, str):
        if op == "Add" and isinstance(a, str) and isinstance(b, str):
            return Const(a + b) if len(a) + len(b) < 10_000 else Scalar("str")
        return Scalar("str") if op in ("Modulo", "Multiply") else UNKNOWN
    if not isinstance(a, (int, float, complex)) or not isinstance(b, (int, float, complex)):
        return UNKNOWN
    try:
        out = f(a, b)
    except (ZeroDivisionError, OverflowError, TypeError):
        return UNKNOWN
    if isinstance(out, int) and abs(out) > 1 << 62:
        return Scalar("int")
    return Const(out)


def _const_compare(op: str, a: Any, b: Any) -> Any:
    try:
        if op == "Equal":
            return Const(a == b)
        if op == "NotEqual":
            return Const(a != b)
        if op == "Is":
            return Const(a is b) if a is None or b is None else Scalar("bool")
        if op == "IsNot":
            return Const(a is not b) if a is None or b is None else Scalar("bool")
        if op in ("LessThan", "GreaterThan", "LessThanEqual", "GreaterThanEqual") and all(
            isinstance(x, (int, float)) for x in (a, b)
        ):
            return Const(
                {"LessThan": a < b, "GreaterThan": a > b, "LessThanEqual": a <= b, "GreaterThanEqual": a >= b}[op]
            )
    except Exception:
        return Scalar("bool")
    return Scalar("bool")


def _bind_target(target: cst.BaseExpression, value: Any, out: dict[str, Any]) -> bool:
    """Bind a ``for`` target (a name, or a tuple/list of them) to one item."""
    if type(target) is cst.Name:
        out[target.value] = value
        return True
    if type(target) in (cst.Tuple, cst.List):
        elements = target.elements  # type: ignore[attr-defined]  # Tuple and List both have them
        if any(type(el) is cst.StarredElement for el in elements):
            return False
        return all(_bind_target(el.value, unpack(value, (k,)), out) for k, el in enumerate(elements))
    return False


def unpack(v: Any, path: tuple[int, ...]) -> Any:
    """The element ``a, (b, c) = v`` gives the name at ``path``."""
    for k in path:
        t = type(v)
        if t is Tuple or t is List:
            if k >= len(v.items):
                return UNKNOWN
            v = v.items[k]
        elif t is Struct and v.kind == "pytree":
            fields = [x for _, x in v.fields]
            v = fields[k] if k < len(fields) else UNKNOWN
        elif t is Array:
            s = v.shape
            if s is None or not s.dims:
                return Array(None, v.dtype, v.host) if s is None else UNKNOWN
            v = Array(Shape(s.dims[1:], s.rest), v.dtype, v.host)
        elif t is Seq:
            v = v.item
        elif t is _ShapeOf:
            v = _shape_symbol(v.array, k)
        else:
            return UNKNOWN
    return v


# the namespaces whose functions take arrays (or numbers) and return arrays: an argument
# they accept is array-like (``jax.tree``, ``jax.lax``'s collectives and ``stop_gradient``,
# ``jax.device_get`` take any pytree; NumPy's functions any object)
ARRAY_FUNCTIONS = ("jax.numpy.", "jax.nn.", "jax.random.", "jax.scipy.")


def takes_arrays(q: str) -> bool:
    """A function of the array namespaces: given what the model does not know, it still
    gives the arrays it promises."""
    return q.startswith(ARRAY_FUNCTIONS)


def _sequence_item(base: Tuple | List, index: Any) -> Any:
    items = base.items
    if type(index) is Const and isinstance(index.value, int) and not isinstance(index.value, bool):
        i = index.value
        return items[i] if -len(items) <= i < len(items) else UNKNOWN
    if is_slice(index):
        bounds: list[int | None] = []
        for k in ("start", "stop", "step"):
            x = index.get(k)
            if type(x) is not Const or not (x.value is None or type(x.value) is int):
                return UNKNOWN
            bounds.append(x.value)
        return type(base)(items[slice(*bounds)])
    if items and _int_valued(index):
        return join_all(list(items))  # some item, which one not known: what they all agree on
    return UNKNOWN


def _int_valued(v: Any) -> bool:
    """An integer whose value is not known: a Python int, or a rank-0 integer array (an
    element of ``np.random.permutation(n)``)."""
    if type(v) is Scalar:
        return v.kind == "int"
    a = v if type(v) is Array else None
    return a is not None and a.shape is not None and a.rank == 0 and a.dtype is not None and a.dtype.kind == "int"


def _slice_seq(base: Seq, index: Struct) -> Any:
    start, stop, step = (index.get(k) for k in ("start", "stop", "step"))
    if type(step) is Const and step.value not in (None, 1):
        return UNKNOWN
    if type(start) is Const and start.value in (None, 0) and type(stop) is Const and isinstance(stop.value, int):
        n = stop.value
        if n >= 0:
            length = base.length
            if dims.as_int(length) is not None:
                return Seq(min(dims.as_int(length) or 0, n), base.item)
            if dims.mentions_devices(length):
                # the first n devices: the code asks for n of them (with fewer, it fails
                # where it uses them, not here)
                return Seq(n, base.item)
            return Seq(dims.sym(f"min({dims.key_text(length)},{n})", f"min({dims.text(length)}, {n})"), base.item)
    # a size the program computes (``[: n_devices // 2]``): the first that many devices, or
    # as many items as the sequence has when that is the size itself
    if (
        type(start) is Const
        and start.value in (None, 0)
        and type(stop) is Scalar
        and stop.dim is not None
        and (dims.equal(stop.dim, base.length) or dims.mentions_devices(base.length))
    ):
        return Seq(stop.dim, base.item)
    return Seq(None, base.item)


def _shape_symbol(a: Array, i: int) -> Any:
    if a.shape is not None:
        d = a.shape.axis(i)
        if d is not None:
            return int_value(d)
    if a.origin is not None:
        return Scalar("int", dims.sym(f"{a.origin}.shape[{i}]", f"{a.origin.rsplit('.', 1)[-1]}.shape[{i}]"))
    return Scalar("int")


__all__ = ["Env", "Evaluator", "Param", "unpack"]
