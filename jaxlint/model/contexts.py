"""Call contexts: the frames in which a function's body is evaluated.

A function's parameters take what its visible calls pass. ``contexts(ev, fn)`` gives one
frame per visible call of the def or lambda ``fn`` (``Program.invocations``: direct
calls, calls through the names it is bound to and through ``jit``-like wrappers), with
that call's arguments bound as the call binds them, for every context of the function
making the call (up to ``DEPTH`` callers up, at most ``MAX_FRAMES`` frames). A function
no visible call reaches gets one frame that binds nothing: its parameters are what
their annotations say, or opaque. A rule evaluates its site in every context and
reports the first one that fails, naming the call ("as called at line N").
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN as UNKNOWN_

from .abstract import Bound, Class, External, Function, Partial, Struct, Transformed, Wraps
from .classes import RUNS_METHOD, bound_method, descriptor, method, runner_call
from .jitted import traced_arguments, traces_arrays
from .signature import Argument, bind
from .transfer import SAME_VALUES

if TYPE_CHECKING:
    from .evaluate import Env, Evaluator

DEPTH = 3
MAX_FRAMES = 8

FunctionNode = cst.FunctionDef | cst.Lambda


@dataclass(frozen=True, slots=True)
class Case:
    """One run of a function a framework calls once per case: its parameters' values."""

    values: dict[str, Any]

    def __hash__(self) -> int:
        return id(self)


@dataclass(frozen=True, slots=True, eq=False)
class CaseSite:
    """The ``site`` of a frame made for a case: how messages name it."""

    label: str


@dataclass(frozen=True, slots=True)
class InstanceSite:
    """The ``site`` of a frame made for a method no call in view reaches: its receiver is
    the instance ``call`` constructs (not a call of the method: messages do not cite it)."""

    call: cst.Call


# Who else runs a function, with which arguments: each gives the cases a function is
# run with (a parameterized test), or None. ``jaxlint.model.frameworks`` registers them.
PROVIDERS: list[Callable[[Evaluator, FunctionNode], list[Case] | None]] = []


def default_frame(ev: Evaluator, fn: FunctionNode) -> Env:
    """The frame with nothing bound (its parent: the enclosing function's default frame)."""
    outer = ev.ctx.enclosing_function(fn)
    parent = default_frame(ev, outer) if outer is not None else None
    return ev.frame(fn, {}, parent)


def contexts(ev: Evaluator, fn: FunctionNode, depth: int = 0, importers: bool = False) -> list[Env]:
    """The frames ``fn``'s body is evaluated in (see the module docstring). ``importers``:
    also the calls of the project files that import the linted file's defs
    (``imported_calls``), for a rule that judges a def in its own module whatever module
    calls it; the seed families judge such a call where it is made, evaluating the callee
    there."""
    memo: dict[tuple[FunctionNode, int, bool], list[Env]] = ev.__dict__.setdefault("_contexts", {})
    key = (fn, depth, importers)
    if key in memo:
        return memo[key]
    memo[key] = [default_frame(ev, fn)]  # a recursive function: its own calls do not count
    frames: list[Env] = case_frames(ev, fn)
    if depth < DEPTH:
        # the calls in view, then those of the files importing it, each with its file's evaluator
        calls = [(ev, call) for call in visible_calls(ev, fn)]
        calls += imported_calls(ev, fn) if importers else []
        for cev, call in calls:
            if len(frames) >= MAX_FRAMES:
                break
            caller = cev.ctx.enclosing_function(call)
            outer = contexts(cev, caller, depth + 1, importers) if caller is not None else [None]
            for env in outer:
                f = enter_call(cev, fn, call, env)
                if f is not None and f not in frames:
                    frames.append(f)
                if len(frames) >= MAX_FRAMES:
                    break
        for call in catalogue_calls(ev, fn):
            caller = ev.ctx.enclosing_function(call)
            for env in contexts(ev, caller, depth + 1, importers) if caller is not None else [None]:
                for f in catalogue_frames(ev, fn, call, env):
                    if f not in frames and len(frames) < MAX_FRAMES:
                        frames.append(f)
    if not frames and depth < DEPTH:
        frames = closure_frames(ev, fn, depth, importers) or instance_frames(ev, fn, depth, importers)
    memo[key] = frames or [default_frame(ev, fn)]
    return memo[key]


def closure_frames(ev: Evaluator, fn: FunctionNode, depth: int, importers: bool = False) -> list[Env]:
    """A nested function no call in view reaches (a factory's ``step``, returned and
    called elsewhere) still runs inside a call of the function around it: its closure is
    that call's frame. One frame per context of the enclosing function, its own parameters
    unbound; none when the enclosing function has no call in view either."""
    return [
        f for f in enclosing_frames(ev, fn, depth + 1, importers) if f.parent is not None and f.parent.site is not None
    ][:MAX_FRAMES]


def instance_frames(ev: Evaluator, fn: FunctionNode, depth: int, importers: bool = False) -> list[Env]:
    """A method no call in view reaches still runs on the instances the file makes of its
    class: one frame per construction (``runner = Runner(key)``, in each context of the
    code making it), its receiver that instance with the fields its ``__init__`` stores,
    its other parameters unbound. None for a function that is no plain method."""
    from .attributes import receiver_of

    if type(fn) is not cst.FunctionDef or fn.decorators or fn.name.value == "__init__":
        return []
    receiver = receiver_of(ev.p, fn)
    if receiver is None:
        return []
    cls = ev.p.parents.get(ev.p.parents.get(fn))  # def -> IndentedBlock -> ClassDef
    assert type(cls) is cst.ClassDef
    out: list[Env] = []
    for call in ev.p.invocations(cls)[0]:
        caller = ev.ctx.enclosing_function(call)
        for env in contexts(ev, caller, depth + 1, importers) if caller is not None else [None]:
            made = ev.value(call, env)
            if type(made) is not Struct or type(made.cls) is not Class or made.cls.node is not cls:
                continue
            frame = ev.frame(fn, {receiver.name.value: made}, None, InstanceSite(call), env)
            if frame not in out and len(out) < MAX_FRAMES:
                out.append(frame)
    return out


def enclosing_frames(ev: Evaluator, fn: FunctionNode, depth: int = 0, importers: bool = False) -> list[Env]:
    """``fn`` inside each context of the def around it (its contexts at ``depth``), its own
    parameters unbound; none for a function at module level."""
    outer = ev.ctx.enclosing_function(fn)
    return [ev.frame(fn, {}, f) for f in contexts(ev, outer, depth, importers)] if outer is not None else []


def catalogue_calls(ev: Evaluator, fn: FunctionNode) -> list[cst.Call]:
    """The calls of catalogue functions ``fn`` is given to (``lax.scan(body, init, xs)``,
    ``jax.tree.map(lambda p, g: ..., params, grads)``): the lambda itself, or a read of
    the def's name, as an argument."""
    from .catalogue import lookup

    p = ev.p
    if type(fn) is cst.Lambda:
        uses: list[cst.CSTNode] = [fn]
    else:
        b = p.binding_of_value(fn)
        uses = list(p.references(b)[0]) if b is not None else []
        # ... and of the names the results of a factory returning it are bound to
        # (``sweep = make_step(S)``, then ``lax.scan(sweep, Y0, None, length=n)``)
        if type(p.parents.get(fn)) is not cst.Module:
            for factory, index in p.factory_returns(fn):
                for made in p.invocations(factory, callees=True, forwarders=True)[0]:
                    if index is None and type(p.parents.get(made)) is cst.Arg:
                        uses.append(made)  # ``lax.scan(make_step(S), Y0, ...)``
                        continue
                    r = p.binding_of_value(made) if index is None else p.binding_of_item(made, index)
                    uses += list(p.references(r)[0]) if r is not None else []
    out = []
    for use in uses:
        arg = p.parents.get(use)
        call = p.parents.get(arg) if type(arg) is cst.Arg and arg.value is use and not arg.star else None
        if type(call) is not cst.Call or call.func is use:
            continue
        callee = ev.value(call.func, None)
        if type(callee) is External and lookup(callee.qualified) is not None:
            out.append(call)
    return out


def catalogue_frames(ev: Evaluator, fn: FunctionNode, call: cst.Call, env: Env | None) -> list[Env]:
    """The frames in which the catalogue function of ``call`` (evaluated in ``env``) calls
    ``fn``, with the arguments its result rule gives it (``lax.scan`` gives ``body`` the
    carry and a slice of ``xs``)."""
    out = []
    for xs in ev.operands(call, fn, env):
        for a in call.args:
            f = ev.value(a.value, env)
            if type(f) is not Function or f.node is not fn:
                continue
            sig = ev.signature(f)
            if sig is None:
                break
            b = bind(sig, [(x, None, "") for x in xs])
            if b.error is None:
                frame = ev.frame(fn, ev.bound_params(f, sig, b), f.env, call, env)
                if frame not in out:
                    out.append(frame)
            break
    return out


def visible_calls(ev: Evaluator, fn: FunctionNode) -> list[cst.Call]:
    """The calls of ``fn`` in view (``Program.invocations``): what makes its frames; and
    for a module-level def held by a registry of its module, the calls of the registry's
    items (``ALLOCATORS[method](w, x)``: ``enter_call`` keeps those whose item is ``fn``)."""
    calls = list(ev.p.invocations(fn, callees=True, forwarders=True)[0])
    if type(fn) is cst.FunctionDef and type(ev.p.parents.get(fn)) is cst.Module:
        for name in _containers_of(ev, fn):
            calls += [c for c in ev.p.local_item_calls(name) if c not in calls]
    return calls


def imported_calls(ev: Evaluator, fn: FunctionNode) -> list[tuple[Evaluator, cst.Call]]:
    """The calls of a module-level def of the linted file in the project files that import
    it (jaxlint.plan.importers), each with the evaluator of its file; for a def a
    module-level factory returns (``make_step(cfg)`` returning ``step``), the calls of the
    factory's results there (``step = make_step(cfg)`` then ``step(w, x)``)."""
    if ev.world.home is None or type(fn) is not cst.FunctionDef:
        return []
    home = ev.world.home[1]
    if home is ev.p:
        importers, module = ev.ctx.importers, ev.world.home[0]
    else:  # an importer of the linted file: the files importing its relay defs, one step further
        importers, module = home.ctx.hops.get(os.path.abspath(ev.ctx.path), {}), ev.ctx.facts.module
        if not importers:
            return []
    cls = module_class(ev.p, fn)
    wanted: list[tuple[cst.FunctionDef | cst.ClassDef, int | None]]
    if type(ev.p.parents.get(fn)) is cst.Module:
        wanted = [(fn, -1)]
    elif cls is not None:
        wanted = [(cls, -1)]  # ``Trainer(args)``, ``runner.fit(X, y)``: the method with those
    else:
        wanted = list(ev.p.factory_returns(fn))
    # a method is also called on the instances a factory of the module makes (``model =
    # default_model()``, ``hall = Hall.from_survey()``)
    named: list[tuple[str, cst.FunctionDef | cst.ClassDef, int | None]] = [(f.name.value, f, i) for f, i in wanted]
    if cls is not None and fn.name.value != "__init__":
        named += [(name, cls, -1) for name in class_factories(ev.p, cls)]
    out = []
    for name, factory, index in named:
        for path in importers.get(name.partition(".")[0], ()):
            q = ev.world.importer(path)
            if q is None or q is ev.p:
                continue
            made = q.imported_calls(f"{module}.{name}")
            if cls is not None and fn.name.value != "__init__":
                calls = q.instance_method_calls(made, cls, fn.name.value)
            elif type(factory) is cst.ClassDef:
                calls = made
            else:
                calls = made if index == -1 else q.result_calls(made, index)
            out += [(q.evaluator, call) for call in calls]
    if importers and type(ev.p.parents.get(fn)) is cst.Module:
        # a registry holding the def (``BOUNDARIES = {"wall": reflective_walls}``): the
        # importer's calls of its items (``BOUNDARIES[bc](h, hu)``; ``enter_call`` keeps those
        # whose item is this def)
        for name in _containers_of(ev, fn):
            for path in importers.get(name, ()):
                q = ev.world.importer(path)
                if q is not None and q is not ev.p:
                    out += [(q.evaluator, call) for call in q.imported_item_calls(f"{module}.{name}")]
    return out


def class_factories(p: Any, cls: cst.ClassDef) -> list[str]:
    """The defs of the class's module that return a new instance of it, by the dotted name
    another module calls them with: a module-level def (``default_model``: ``return
    KerningModel(w, bias)``) or a classmethod of the class (``Hall.from_survey``: ``return
    cls(absorption, exposure)``). Where another module calls one, it has an instance whose
    methods it may call."""
    from .abstract import Class as AbstractClass
    from .returns import return_statements

    memo: dict[cst.ClassDef, list[str]] = p.__dict__.setdefault("_class_factories", {})
    if cls in memo:
        return memo[cls]

    def makes(fn: cst.FunctionDef) -> bool:
        for ret in return_statements(p.ctx, fn) or ():
            made = ret.value
            if type(made) is cst.Call:
                v = p.evaluator.value(made.func, None)
                if type(v) is AbstractClass and v.node is cls:
                    return True
        return False

    def classmethod_(fn: cst.FunctionDef) -> bool:
        return len(fn.decorators) == 1 and descriptor(p.evaluator, fn) == "classmethod"

    out = [
        stmt.name.value
        for stmt in p.ctx.module.body
        if type(stmt) is cst.FunctionDef and not stmt.decorators and makes(stmt)
    ]
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    out += [
        f"{cls.name.value}.{m.name.value}" for m in body if type(m) is cst.FunctionDef and classmethod_(m) and makes(m)
    ]
    memo[cls] = out
    return out


def imported_name_calls(ev: Evaluator, name: str) -> list[tuple[Evaluator, cst.Call]]:
    """The calls of the linted file's module-level name ``name`` (``solve = jax.jit(...)``)
    in the project files that import it, each with the evaluator of its file."""
    if ev.world.home is None or ev.world.home[1] is not ev.p:
        return []
    module = ev.world.home[0]
    out = []
    for path in ev.ctx.importers.get(name, ()):
        q = ev.world.importer(path)
        if q is not None and q is not ev.p:
            out += [(q.evaluator, call) for call in q.imported_calls(f"{module}.{name}")]
    return out


def _containers_of(ev: Evaluator, fn: cst.FunctionDef) -> list[str]:
    """The module-level names bound once to a dict, list or tuple that holds the def ``fn``
    (computed once per file for every def)."""
    held: dict[cst.CSTNode, list[str]] | None = ev.p.__dict__.get("_containers_memo")
    if held is None:
        held = ev.p.__dict__["_containers_memo"] = _containers(ev)
    return held.get(fn, [])


def _containers(ev: Evaluator) -> dict[cst.CSTNode, list[str]]:
    from .abstract import Dict, List, Tuple

    out: dict[cst.CSTNode, list[str]] = {}
    for name, bs in ev.p.module_scope.bindings.items():
        if len(bs) != 1 or bs[0].kind != "assign" or bs[0].value is None:
            continue
        v = ev.binding_value(bs[0], None)
        items = [x for _, x in v.items] if type(v) is Dict else list(v.items) if type(v) in (List, Tuple) else []
        for x in items:
            if type(x) is Function and type(x.node) is cst.FunctionDef and name not in out.get(x.node, []):
                out.setdefault(x.node, []).append(name)
    return out


def module_class(p: Any, fn: cst.FunctionDef) -> cst.ClassDef | None:
    """The module-level class whose body defines the method ``fn`` (of ``p``'s file)."""
    body = p.parents.get(fn)
    cls = p.parents.get(body) if type(body) is cst.IndentedBlock else None
    return cls if type(cls) is cst.ClassDef and type(p.parents.get(cls)) is cst.Module else None


def case_frames(ev: Evaluator, fn: FunctionNode) -> list[Env]:
    """The frames of the cases a framework runs ``fn`` with (the first parameter of a
    method stays the instance)."""
    for provide in PROVIDERS:
        cases = provide(ev, fn)
        if not cases:
            continue
        base = default_frame(ev, fn)
        out = []
        for case in cases:
            params = dict(case.values)
            out.append(ev.frame(fn, params, base.parent, CaseSite(case_label(case)), None))
        return out
    return []


def case_label(case: Case) -> str:
    """``axis=0, shape=(3, 5)``: a case's parameters as values (at most four)."""
    from .abstract import constant

    parts = []
    for k, v in list(case.values.items())[:4]:
        c = constant(v)
        text = repr(c) if c is not UNKNOWN_ else "…"
        parts.append(f"{k}={text if len(text) <= 30 else text[:29] + '…'}")
    return ", ".join(parts)


def call_arguments(ev: Evaluator, call: cst.Call, env: Env | None) -> list[Argument] | None:
    """The abstract arguments of a call as ``Evaluator.call`` receives them."""
    from .abstract import Dict, List, Tuple

    out: list[Argument] = []
    for a in call.args:
        v = ev.value(a.value, env)
        if a.star == "*":
            if type(v) in (Tuple, List):
                out.extend((x, None, "") for x in v.items)
            else:
                out.append((v, None, "*"))
        elif a.star == "**":
            if type(v) is Dict and all(isinstance(k, str) for k, _ in v.items):
                out.extend((x, str(k), "") for k, x in v.items)
            else:
                out.append((v, None, "**"))
        else:
            out.append((v, a.keyword.value if a.keyword is not None else None, ""))
    return out


def enter_call(ev: Evaluator, fn: FunctionNode, call: cst.Call, env: Env | None) -> Env | None:
    """The frame ``call`` (evaluated in ``env``) makes for ``fn``, when it calls it
    directly, through a ``jit``-like wrapper or a ``grad``; else None."""
    callee: Any = ev.value(call.func, env)
    args = call_arguments(ev, call, env)
    if args is None:
        return None
    found = called_function(ev, callee, args)
    if found is None or found[0].node is not fn:
        return None
    callee, args = found
    # bound by the def's own evaluator: its defaults are values of its module
    # (``in_axes=SHARED`` of ``utils.py``, called from ``evaluate.py``)
    frame = ev.call_frame(callee, args, env, call)
    if frame is None:
        return None
    from .forwarding import assumption

    frame.assumed = assumption(ev.p, call)
    return frame


def called_function(
    ev: Evaluator, callee: Any, args: list[Argument], through: frozenset[str] = SAME_VALUES
) -> tuple[Function, list[Argument]] | None:
    """The def or lambda a call of the value ``callee`` with ``args`` runs, and the
    arguments it gets: through ``jit``-like wrappers and ``grad`` (the function sees the
    call's values), ``partial`` (its bound arguments first), a bound method (its receiver
    first) and an instance (its class's ``__call__``); None when that is not a function of
    the code. ``through``: the transforms whose function gets the call's arguments at the
    same positions (a caller asking only which positions it feeds adds ``vmap``: its
    function sees a slice of a mapped argument, an unmapped one as it is)."""
    for _ in range(8):  # through jit-like wrappers, partials and instances' methods, to the def
        if type(callee) is Class:  # ``Sampler(cfg)``: its ``__init__``, on the instance it makes
            instance = Struct(callee, (), "object")  # what an unbound ``self`` is (``Evaluator._receiver``)
            callee = method(ev, callee, "__init__")
            args = [(instance, None, ""), *args]
        if type(callee) is Struct:  # ``model(x)``: its class's ``__call__``, bound to it
            callee = bound_method(ev, callee.cls, "__call__", callee)
        if type(callee) is Bound and type(callee.func) is External and callee.func.qualified in RUNS_METHOD:
            run = runner_call(ev, callee.func.qualified, [(callee.receiver, None, ""), *args])
            if run is None:
                return None
            callee, args = run  # ``module.apply(variables, x)``: its ``__call__`` with ``x``
        if type(callee) is Bound and type(callee.func) is Function:
            args = [(callee.receiver, None, ""), *args]
            callee = callee.func
        if traces_arrays(ev.world, callee):
            args = traced_arguments(args)  # ``jax.jit``, ``eqx.filter_jit``: its function gets tracers
        if type(callee) is Transformed and callee.api in through:  # jit-like, grad: the function sees the call's values
            callee = callee.target
        elif type(callee) is Partial and not callee.star:
            given = {k for _, k, _ in args if k is not None}
            args = (
                [(v, None, "") for v in callee.args] + [(v, k, "") for k, v in callee.keywords if k not in given] + args
            )
            callee = callee.func
        elif (wrapped := forwarded_closure(callee)) is not None:
            callee = wrapped  # a decorator's wrapper that calls the function with its own arguments
        else:
            break
    if type(callee) is not Function:
        return None
    return callee, args


def forwarded_closure(callee: Any) -> Any:
    """The function a wrapper closure calls with exactly its own arguments: ``wrapper`` as a
    decorator ``def logged(fn)`` returns it, ``fn(*args, **kwargs)`` in its body
    (``forwarding.keeps_calls``), made in a call that gave ``fn`` its value; else None."""
    from .forwarding import keeps_calls

    if type(callee) is Wraps:  # ``@functools.wraps(fn)`` on the wrapper: still the wrapper's call
        callee = callee.func
    env = callee.env if type(callee) is Function else None
    if env is None or type(env.function) is not cst.FunctionDef or type(callee.node) is not cst.FunctionDef:
        return None
    deco = env.function
    home = callee.program
    if home is None or not keeps_calls(home, deco):
        return None
    last = deco.body.body[-1]  # ``return wrapper``: keeps_calls says so
    ret = last.body[0] if type(last) is cst.SimpleStatementLine else None
    if type(ret) is not cst.Return or type(ret.value) is not cst.Name or ret.value.value != callee.node.name.value:
        return None  # another def of the decorator's body
    first = [*deco.params.posonly_params, *deco.params.params][0].name.value
    wrapped = env.get(first)
    return wrapped if type(wrapped) in (Function, Transformed, Partial, Bound, Struct) else None


def assumed_along(frame: Env | None) -> dict[str, Any] | None:
    """The assumption a frame, or one of the frames it was made from, rests on."""
    f = frame
    while f is not None:
        if f.assumed is not None:
            return f.assumed
        f = f.caller if f.caller is not None else f.parent
    return None


def sites(frame: Env | None) -> list[cst.CSTNode]:
    """The calls that made ``frame``, innermost first."""
    out: list[cst.CSTNode] = []
    f = frame
    while f is not None:
        if isinstance(f.site, cst.CSTNode):
            out.append(f.site)
        f = f.caller if f.caller is not None else f.parent
    return out


def foreign_call_line(ctx: Any, frame: Env | None) -> int | None:
    """The line of the first call of another module among those that made ``frame`` (a
    ``ForeignLine``: it prints as ``5 of run.py``): where the values a finding rests on
    come from, when a file importing this one calls it (``contexts(..., importers=True)``)."""
    from .context import ForeignLine

    chain = sites(frame)
    lines = ctx.exact_lines(chain) if chain else {}
    return next((lines[n] for n in chain if type(lines.get(n)) is ForeignLine), None)


def case_of(frame: Env | None) -> CaseSite | None:
    """The test case a frame (or one around it) was made for."""
    f = frame
    while f is not None:
        if isinstance(f.site, CaseSite):
            return f.site
        f = f.caller if f.caller is not None else f.parent
    return None


def runs_in(ev: Evaluator, node: cst.CSTNode, env: Env | None, within: cst.CSTNode | None) -> bool:
    """Can ``node`` run in the frame ``env``? Not when an ``if`` around it (up to ``within``,
    its function) has a test the frame decides against its branch: a parameterized test's
    case with ``is_training=False`` never reaches the ``if is_training:`` body."""
    from .evaluate import _truth

    parents = ev.p.parents
    child: cst.CSTNode = node
    cur = parents.get(node)
    while cur is not None and cur is not within:
        if type(cur) is cst.If:
            with ev.query(64):
                taken = _truth(ev.value(cur.test, env))
            if taken is not None and taken != (child is cur.body):
                return False
        child, cur = cur, parents.get(cur)
    return True
