"""Which functions of a file run traced, and which of their parameters are traced values.

A function is traced when ``jit``/``pjit``/``checkpoint``/``vmap``/``pmap``/``shard_map``/``smap``
applies to it (as a call, a decorator, through ``partial``, or an inner transform:
``jax.jit(jax.grad(f))`` traces ``f``; also to a parameter, or a value read from one, whose enclosing def's call
contexts give it the def: ``jax.vmap(fn)`` in ``lift(fn)`` called as
``lift(ACTIVATIONS[name])``), or when it is a ``lax`` loop/branch body
(``scan``, ``fori_loop``, ``while_loop``, ``cond``, ``map``, ``associative_scan``).
Its traced parameters are those without a default (and those with one that a visible
call of the transformed function passes), minus what the application makes
concrete: ``static_argnums``/``static_argnames`` (``static_broadcasted_argnums`` for
``pmap``), arguments ``partial`` binds, a method's ``self``, and for ``vmap``/``pmap``
the ``None`` entries of ``in_axes``. ``shard_map`` called eagerly runs its function on
concrete blocks (jax 0.10.2), so only a trace around it counts (``jit(shard_map(f))``
traces every argument of ``f``). Read through the program model (``applications``,
``value``, ``target_function``, ``literal``); an option it cannot read, or a def one of
whose decorators it does not know, leaves the function out: unknown means silent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN

from .abstract import Bound as AbstractBound
from .abstract import Class as AbstractClass
from .abstract import Function as AbstractFunction
from .abstract import List as AbstractList
from .abstract import Opaque
from .abstract import Partial as AbstractPartial
from .abstract import Struct as AbstractStruct
from .abstract import Transformed as AbstractTransformed
from .abstract import Tuple as AbstractTuple
from .classes import descriptor
from .program import Program
from .transforms import TABLE
from .values import External, Function, Partial, Transformed

# what traces every non-static argument, and the lax calls whose function arguments are
# traced (read from the one table of transforms, model/transforms.py)
TRACING = {q: a.label for q, a in TABLE.items() if a.kind in ("map", "trace") and a.abstract}
STATIC_OPTIONS = {q: a.static for q, a in TABLE.items() if q in TRACING and a.static}
LAX_BODIES = {q: a.bodies for q, a in TABLE.items() if a.kind == "body" and a.bodies}
BODY_LABELS = frozenset(TABLE[q].label for q in LAX_BODIES)  # ``Trace.api`` of a lax body
IN_AXES = frozenset(q for q, a in TABLE.items() if a.in_axes)
_LAX_SHORT = frozenset(q.rsplit(".", 1)[1] for q in LAX_BODIES)


@dataclass(slots=True)
class Trace:
    """The parameters a transform traces, and where (for messages)."""

    params: set[str]
    api: str  # "jax.jit", "lax.scan", ...
    node: cst.CSTNode  # the application, to cite its line
    static_hint: bool  # a jit: marking the argument static is a fix
    # the transform stages the function out (``Api.stages``): every JAX operation in it
    # gives a tracer, even on constants
    stages: bool = False
    # the keywords every tracing application binds with ``partial`` to one constant
    # (``jit(partial(f, exact=False))``): under the trace they hold that value
    fixed: dict[str, Any] = field(default_factory=dict)
    # the program of another module whose def this file's application traces
    # (``jax.jit(make_step(...))`` with ``make_step`` imported): that module's rule run reads it
    home: Any = None
    # the application that first traces each parameter, when several do (``jit(f,
    # static_argnums=1)`` and ``jit(f)``: only the second traces ``n``); else ``node``
    sites: dict[str, Any] = field(default_factory=dict)
    # only the array leaves of the arguments are traced (``eqx.filter_jit``): a parameter of
    # ``params`` holds an array, or is one of ``pytrees``, whose array leaves alone are traced
    arrays_only: bool = False
    pytrees: set[str] = field(default_factory=set)
    # the transform that traces a parameter, where it is not ``api`` (a ``vmap``'s unmapped
    # argument that the caller's ``jax.jit`` traced)
    apis: dict[str, str] = field(default_factory=dict)

    def site_of(self, param: str | None) -> Any:
        """The application that traces ``param`` (to cite it, and to ask whether it runs
        where the error is expected)."""
        return self.sites.get(param, self.node) if param is not None else self.node

    def api_of(self, param: str | None) -> str:
        """The transform that traces ``param`` (to name it)."""
        return self.apis.get(param, self.api) if param is not None else self.api


def traced_functions(ctx, p: Program) -> dict[cst.CSTNode, Trace]:
    """The defs and lambdas of this file some transform traces, with the parameters it
    traces (the union over all applications). Computed once per file."""
    memo = ctx.shared.get("model.traced")
    if memo is None:
        memo = ctx.shared["model.traced"] = _traced(ctx, p)
    return memo


def _traced(ctx, p: Program) -> dict[cst.CSTNode, Trace]:
    out: dict[cst.CSTNode, Trace] = {}
    unknown: set[cst.CSTNode] = set()

    def add(fn, tr) -> None:
        if tr is UNKNOWN:
            unknown.add(fn)
        elif tr is not None:
            tr.sites = {q: tr.sites.get(q, tr.node) for q in tr.params}
            have = out.get(fn)
            if have is None:
                out[fn] = tr
                return
            sites = {**tr.sites, **have.sites}  # the first application to trace each keeps it
            fixed = {k: v for k, v in have.fixed.items() if k in tr.fixed and tr.fixed[k] == v}
            if tr.stages and not have.stages:  # the staging application decides more: cite it
                tr.params |= have.params
                out[fn] = have = tr
            else:
                have.params |= tr.params
            have.fixed = fixed
            have.sites = sites

    def apply(app, found, home, receiver: bool | None = None, plain: bool = False) -> None:
        """``receiver``: whether the context that gave ``fn`` bound it to an instance
        (None: ask the binder with no call in view); ``plain``: the evaluator found ``fn``
        itself, no method (``losses.nll`` is a module's attribute, not a receiver's)."""
        fn, bound, bound_keywords = found
        if not plain and _through_attribute(app):
            if not (_receiver_bound(p, app, fn) if receiver is None else receiver):
                return
            bound += 1  # ``jax.jit(self._train_step)``: the receiver is bound, as by ``partial``
        node = fn.node
        if type(node) is cst.FunctionDef and node.decorators and p.value(node) is UNKNOWN:
            unknown.add(node)  # a decorator the model does not know
            return
        trace = _trace_of(p, node, app, bound, bound_keywords)
        if isinstance(trace, Trace):
            trace.fixed = _fixed_keywords(p, app)
            trace.home = home
        add(node, trace)

    for app in p.applications():
        if app.api not in TRACING:
            continue
        found: Any = p.target_function(app)
        if found is not None:
            apply(app, found, None)
            if not _receiver_method(p, app.target_node):
                continue
        foreign = _foreign_target(p, app) if found is None else None
        if foreign is not None:
            # a def of another module (``jax.jit(losses.nll)``, ``jax.jit(jax.grad(partial(nll,
            # beta=b)))``, what a factory there returns: ``jax.jit(make_step(model.apply))``),
            # as the evaluator finds it: that module's rule run reads the trace (``home``)
            apply(app, foreign, foreign[0].program, plain=True)
            continue
        for made, receiver, filled in _given_functions(p, app):
            # a parameter's function (``jax.vmap(fn)`` in ``elementwise(fn)``), or the method
            # the receiver's class has (``jax.jit(self.step)`` in a base class, where a
            # subclass overrides ``step``): each def the calls of the enclosing def give it,
            # of this module or another (``home``)
            other = made.program is not None and made.program is not p
            apply(app, (made, filled, []), made.program if other else None, receiver)
    for call in _lax_calls(ctx):
        f = p.value(call.func)
        spots = LAX_BODIES.get(f.qualified) if type(f) is External else None
        if spots is None:
            continue
        for arg in _body_arguments(call, spots):
            if type(arg) not in (cst.Name, cst.Lambda, cst.Attribute, cst.Call, cst.Tuple, cst.List):
                continue
            body = p.value(arg) if type(arg) in (cst.Name, cst.Lambda, cst.Attribute) else None
            if type(body) is not Function:
                v = p.evaluator.value(arg, None)
                # ``lax.switch(i, branches, ...)``: each branch of the sequence is a body
                # ``lax.fori_loop(0, n, make_body(cfg), x)``: the def a factory's call returns
                from_call = type(arg) is cst.Call
                for item in v.items if type(v) in (AbstractTuple, AbstractList) else [v]:
                    partial_body = _partial_body(p, item, plain=item is not v or from_call)
                    if partial_body is not None:
                        add(partial_body[0].node, partial_body[1](TABLE[f.qualified], call))
                continue
            body_fn = body.node
            positional = _positional(body_fn)
            if type(arg) is cst.Attribute:  # ``self.body``: a method bound to its instance
                if not _bound_method(p, arg, body) or not positional:
                    continue
                positional = positional[1:]  # the receiver is no operand
            names = [q.name.value for q in positional + list(body_fn.params.kwonly_params) if q.default is None]
            api = TABLE[f.qualified]
            add(body_fn, Trace(set(names), api.label, call, False, api.stages))
    for fn, node, label in _array_jits(p):
        add(fn, _array_trace(p, fn, node, label))
    for unknown_fn in unknown:
        out.pop(unknown_fn, None)
    return out


def _partial_body(p: Program, v: Any, plain: bool = False):
    """A lax body (the value of its function argument) that is a ``partial`` of a def, of
    this module or another (``lax.scan(partial(integrators.step, rhs=f, tol=tol), ...)``):
    the def, and how to make its trace (the parameters without a default that ``partial``
    leaves to the loop). ``plain``: a plain def counts too (a branch of ``lax.switch``)."""
    bound, keywords = 0, set()
    while type(v) is AbstractPartial and not v.star:
        bound += len(v.args)
        keywords |= {k for k, _ in v.keywords}
        v = v.func
    if bound == 0 and not keywords and not plain:
        return None  # no partial: a plain def is read above
    if type(v) is not AbstractFunction:
        return None
    # (a decorated def the evaluator gives as itself runs as written: its decorators give it
    # back, or a registry stored it as they ran: ``@register("vent")``)
    if type(v.node) is cst.Lambda and not plain:
        return None
    params = _positional(v.node)[bound:] + list(v.node.params.kwonly_params)
    names = {q.name.value for q in params if q.default is None and q.name.value not in keywords}
    home = v.program if v.program is not None and v.program is not p else None

    def trace(api, call) -> Trace:
        return Trace(set(names), api.label, call, False, api.stages, home=home)

    return v, trace


def _foreign_target(p: Program, app) -> tuple[AbstractFunction, int, list[str]] | None:
    """The def of another module a transform's target finally calls, through inner
    transforms and ``partial`` (the positional arguments and keywords it binds), as
    ``Program.target_function`` gives a def of this module."""
    if app.target_node is None or app.decorator:
        return None
    v = p.evaluator.value(app.target_node, None)
    bound, keywords = 0, []
    for _ in range(8):
        if type(v) is AbstractTransformed:
            v = v.target
        elif type(v) is AbstractPartial and not v.star:
            bound += len(v.args)
            keywords += [k for k, _ in v.keywords]
            v = v.func
        else:
            break
    if type(v) is AbstractFunction and v.program is not None and v.program is not p:
        return v, bound, keywords
    return None


def _given_functions(p: Program, app) -> list[tuple[AbstractFunction, bool, int]]:
    """The defs a transform's target is in the call contexts of the def the application is
    in, each with whether that context bound it to an instance and how many leading
    parameters that binding fills, in order: when the target with no call in view is
    unknown (a parameter, or read from one: ``jax.vmap(fn)``, ``jax.jit(LOSSES[name])``),
    an instance of a class of the project (``jax.vmap(model, in_axes=(None, 0))``: its
    class's ``__call__``, the instance its receiver), or a method of the receiver
    (``jax.jit(self.step)``: the method of the receiver's class, which a subclass may
    override)."""
    from .contexts import contexts

    target = app.target_node
    if target is None or app.decorator:
        return []
    ev = p.evaluator
    home = p.ctx.enclosing_function(target)
    plain = ev.value(target, None) if home is not None else None
    own = _receiver_method(p, target)
    if not own and plain is not UNKNOWN and type(plain) is not Opaque and _called_method(ev, plain) is None:
        return []
    seen = {plain.func.node} if own and type(plain) is AbstractBound else set()
    out: list[tuple[AbstractFunction, bool, int]] = []
    for frame in contexts(ev, home, importers=True)[:MAX_GIVEN_FRAMES]:
        v = ev.value(target, frame)
        filled = 0
        if (method := _called_method(ev, v)) is not None:
            v, filled = method, 1  # the instance is ``__call__``'s receiver
        bound = type(v) is AbstractBound
        if bound:
            v = v.func
        if own and not bound:
            continue
        if type(v) is AbstractFunction and type(v.node) is cst.FunctionDef and v.node not in seen:
            seen.add(v.node)
            out.append((v, bound, filled))
    return out


def _called_method(ev: Any, v: Any) -> Any:
    """An instance of a class of the project: its ``__call__`` bound to it; else None."""
    if type(v) is not AbstractStruct or type(v.cls) is not AbstractClass:
        return None
    from .classes import bound_method

    m = bound_method(ev, v.cls, "__call__", v)
    return m if type(m) is AbstractBound else None


def _receiver_method(p: Program, target: cst.CSTNode | None) -> bool:
    """Is ``target`` ``self.name``, a read on the receiver of the method it is written in?"""
    if type(target) is not cst.Attribute or type(target.value) is not cst.Name:
        return False
    from .attributes import receiver_of

    fn = p.ctx.enclosing_function(target)
    receiver = receiver_of(p, fn) if isinstance(fn, cst.FunctionDef) else None
    return receiver is not None and receiver.name.value == target.value.value


MAX_GIVEN_FRAMES = 8  # the contexts of an application's def read for a parameter's function


def _array_jits(p: Program) -> list[tuple[cst.FunctionDef, cst.CSTNode, str]]:
    """The defs of this file that a library's jit tracing only array leaves compiles
    (``stubs.ARRAY_JITS``), with the application and its label: as a decorator
    (``@eqx.filter_jit``, ``@eqx.filter_jit(donate="all")``), or called on a def or a
    method (``eqx.filter_jit(step)``, ``eqx.filter_jit(self.step)``)."""
    from .spelled import spelled
    from .stubs import ARRAY_JITS

    out: list[tuple[cst.FunctionDef, cst.CSTNode, str]] = []
    for fn in p.ctx.nodes_of(cst.FunctionDef):
        for dec in fn.decorators:
            expr = dec.decorator.func if type(dec.decorator) is cst.Call else dec.decorator
            label = ARRAY_JITS.get(spelled(p, expr) or "")
            if label is not None and p.value(fn) is not UNKNOWN:  # every other decorator known
                out.append((fn, dec.decorator, label))
    for call in p.ctx.nodes_of(cst.Call):
        label = ARRAY_JITS.get(spelled(p, call.func) or "")
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if label is None or not positional:
            continue
        v = p.evaluator.value(positional[0].value, None)
        if type(v) is AbstractBound:  # the receiver is an argument too: its array leaves are traced
            v = v.func
        if type(v) is AbstractFunction and type(v.node) is cst.FunctionDef and v.node in p.scope_of_node:
            out.append((v.node, call, label))
    return out


def _array_trace(p: Program, fn: cst.FunctionDef, node: cst.CSTNode, label: str) -> Trace:
    """The parameters of ``fn`` that hold arrays, or pytrees with array leaves, in the
    frames the jitted function's calls give it or by their annotation: what a jit tracing
    only array leaves traces. A parameter no frame shows holding one (a Python number, a string, a function,
    or not known) stays out: unknown means silent."""
    from .arrays import annotated_array
    from .contexts import contexts, enter_call

    ev = p.evaluator
    if type(node) is cst.Call:
        # ``jstep = eqx.filter_jit(step)``: only the calls of what the application made run
        # jitted (``step(x, n)`` called directly runs as it is)
        frames: list[Any] = []
        for call in p.invocations(node, callees=True, forwarders=True)[0]:
            caller = p.ctx.enclosing_function(call)
            for env in contexts(ev, caller, importers=True) if caller is not None else [None]:
                made = enter_call(ev, fn, call, env)
                if made is not None and made not in frames and len(frames) < MAX_GIVEN_FRAMES:
                    frames.append(made)
    else:  # a decorator: every call of the def is a call of the jitted function
        frames = contexts(ev, fn, importers=True)[:MAX_GIVEN_FRAMES]
    traced: set[str] = set()
    pytrees: set[str] = set()
    for q in _positional(fn) + list(fn.params.kwonly_params):
        name = q.name.value
        if q.annotation is not None and annotated_array(ev, q.annotation.annotation):
            traced.add(name)
            continue
        held = {_holds_arrays(frame.get(name)) for frame in frames}
        if "array" in held:
            traced.add(name)
        elif "pytree" in held:
            traced.add(name)
            pytrees.add(name)
    return Trace(traced, label, node, False, True, arrays_only=True, pytrees=pytrees)


def _holds_arrays(v: Any) -> str | None:
    """What ``v`` holds for a jit tracing array leaves: "array" (a JAX or NumPy array),
    "pytree" (a registered class's instance, or a tuple, list or dict whose leaves are
    all arrays), else None."""
    from .abstract import Array, Dict, Struct, leaves

    t = type(v)
    if t is Array:
        return "array"
    if t is Struct:
        return "pytree" if v.kind == "pytree" else None
    if t in (AbstractTuple, AbstractList, Dict):
        found = list(leaves(v))
        return "pytree" if found and all(type(x) is Array for _, x in found) else None
    return None


def foreign_loop_bodies(ctx, p: Program) -> list[tuple[cst.Call, str, AbstractFunction, int, cst.BaseExpression]]:
    """The lax loop calls of this file whose body is a def of another module of the project
    (``lax.scan(partial(dynamics.step, rate=r), state, xs)``), with their label, the body as
    the evaluator finds it (its ``program`` the other module's), how many leading parameters
    are given the same value every iteration, and the argument naming the body."""
    return [
        (call, label, body, offset, arg)
        for call, label, arg, body, offset, _ in _loop_callables(ctx, p)
        if type(body) is AbstractFunction
        and type(body.node) is cst.FunctionDef
        and body.program is not None
        and body.program is not p
        and not body.node.decorators
    ]


def loop_bodies(ctx, p: Program) -> list[tuple[cst.Call, str, cst.FunctionDef | cst.Lambda, int, frozenset[str]]]:
    """The lax calls of this file that run a function of it once per iteration of a loop
    (``lax.fori_loop(0, n, body, x)``, ``lax.scan(step, ...)``), with their label, the
    function, how many of its leading positional parameters are given the same value on
    every iteration (a bound method's receiver, what ``partial(step, contacts, beta)``
    binds) and the keyword parameters ``partial`` binds, in text order."""
    out = []
    for call, label, _, body, offset, keywords in _loop_callables(ctx, p):
        if type(body) is AbstractBound and type(body.func) is AbstractFunction:
            offset, body = offset + 1, body.func  # ``self.step``: its receiver first
        if type(body) is AbstractFunction and body.node in p.scope_of_node:
            out.append((call, label, body.node, offset, keywords))
    return out


def _loop_callables(ctx, p: Program) -> list[tuple[cst.Call, str, cst.BaseExpression, Any, int, frozenset[str]]]:
    """Each function argument of the lax loop calls of this file (``api.repeats``), with the
    loop's label, the argument, its value after what ``partial`` binds, how many positional
    arguments those are, and the keywords it binds. Computed once per file."""
    memo = ctx.shared.get("model.loop_callables")
    if memo is not None:
        return memo
    out = []
    for call in _lax_calls(ctx):
        f = p.value(call.func)
        api = TABLE.get(f.qualified) if type(f) is External else None
        if api is None or not api.repeats:
            continue
        for arg in _body_arguments(call, api.bodies):
            if arg is None:
                continue
            body = p.evaluator.value(arg, None)
            offset, keywords = 0, frozenset[str]()
            while type(body) is AbstractPartial and not body.star:
                offset += len(body.args)
                keywords |= {k for k, _ in body.keywords}
                body = body.func
            out.append((call, api.label, arg, body, offset, keywords))
    ctx.shared["model.loop_callables"] = out
    return out


def _bound_method(p: Program, arg: cst.Attribute, body: object) -> bool:
    """Is ``arg`` (``self.body``) a method of the code bound to its instance, the def
    ``body`` the binder gives?"""
    if type(body) is not Function:
        return False
    bound = p.evaluator.value(arg, None)
    return type(bound) is AbstractBound and type(bound.func) is AbstractFunction and bound.func.node is body.node


def _body_arguments(call: cst.Call, spots: tuple[tuple[int, str], ...]) -> list[cst.BaseExpression | None]:
    """The expressions a lax call passes at its function arguments' ``(position, keyword)``."""
    positional = [a for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    return [keywords.get(kw, positional[i].value if i < len(positional) else None) for i, kw in spots]


def _lax_calls(ctx) -> list[cst.Call]:
    out = []
    for node in ctx.nodes_of(cst.Call):
        f = node.func
        last = f.value if type(f) is cst.Name else f.attr.value if type(f) is cst.Attribute else None
        if last in _LAX_SHORT:
            out.append(node)
    return out


def _attributes_on_the_way(v) -> list[cst.Attribute] | None:
    """The attributes (``self.method``) by which the transforms and ``partial``s from an
    application to its function name what they wrap, outermost first; None when the way
    is too long to follow."""
    found: list[cst.Attribute] = []
    for _ in range(40):
        if type(v) is Transformed:
            node = v.target_node
            v = v.target
        elif type(v) is Partial:
            node = v.node.args[0].value
            v = v.func
        else:
            return found
        if type(node) is cst.Attribute:
            found.append(node)
    return None


def _through_attribute(v) -> bool:
    """The function is reached as ``self.method`` (a bound method: its ``self`` is not an
    argument of the application)."""
    return _attributes_on_the_way(v) != []


def _receiver_bound(p: Program, v: Any, fn: Function) -> bool:
    """Is the one attribute on the way from the application to ``fn`` a method of the
    code bound to its instance (``jax.jit(self._train_step)``, ``jit(grad(self.loss))``)?"""
    found = _attributes_on_the_way(v)
    return found is not None and len(found) == 1 and _bound_method(p, found[0], fn)


def _positional(fn) -> list[cst.Param]:
    ps = fn.params
    return list(ps.posonly_params) + list(ps.params)


def _as_tuple(v):
    if v is None:
        return ()
    if isinstance(v, (int, str)) and not isinstance(v, bool):
        return (v,)
    if isinstance(v, (tuple, list)):
        return tuple(v)
    return UNKNOWN


def _fixed_keywords(p: Program, app: Transformed) -> dict[str, Any]:
    """The keywords the ``partial``s between the transform and its def bind to constants
    (``jit(partial(_lstsq, numpy_resid=False))``: ``{"numpy_resid": False}``)."""
    out: dict[str, Any] = {}
    v: Any = app.target
    for _ in range(8):
        if type(v) is Transformed:
            v = v.target
        elif type(v) is Partial and not v.unknown:
            for a in v.arg_nodes:
                if a.keyword is not None and a.keyword.value not in out:
                    c = p.literal(a.value)
                    if c is not UNKNOWN and isinstance(c, (bool, int, float, str, type(None))):
                        out[a.keyword.value] = c
            v = v.func
        else:
            break
    return out


def _trace_of(p: Program, fn, app: Transformed, bound: int, bound_keywords: list[str]) -> Trace | object:
    """Parameters of ``fn`` that ``app`` traces; UNKNOWN if its options are unreadable."""
    if app.star_kwargs or any(a.star for a in app.args):
        return UNKNOWN  # ``jit(fn, *args, **kwargs)``: ``static_argnums`` may be among them
    positional = _positional(fn)
    names = [q.name.value for q in positional]
    kwonly = [q.name.value for q in fn.params.kwonly_params]
    with_default = {q.name.value for q in positional + list(fn.params.kwonly_params) if q.default is not None}
    concrete: set[str] = set()
    # a method's ``self`` is never a traced array; it still counts in static_argnums
    if _method(p, fn):
        concrete.add(names[0])
    concrete |= set(names[:bound]) | set(bound_keywords)
    free = names[bound:]
    for option in STATIC_OPTIONS.get(app.api, ()):
        expr = app.keywords.get(option)
        v = _as_tuple(p.literal(expr)) if expr is not None else ()
        if v is UNKNOWN:
            return UNKNOWN
        for item in v:
            if isinstance(item, str):
                concrete.add(item)
            elif isinstance(item, int):
                if -len(free) <= item < len(free):
                    concrete.add(free[item])
            else:
                return UNKNOWN
    if app.api in IN_AXES and "in_axes" in app.keywords:
        axes = p.literal(app.keywords["in_axes"])
        if isinstance(axes, (tuple, list)):
            if len(axes) != len(free):
                return UNKNOWN
            concrete |= {n for n, a in zip(free, axes, strict=False) if a is None}
        elif axes is None:
            concrete |= set(free)
        elif not isinstance(axes, int):
            return UNKNOWN
    if app.api in IN_AXES and app.args:
        return UNKNOWN  # in_axes given positionally: read no further
    params = {n for n in free + kwonly if n not in concrete and n not in with_default}
    optional = [n for n in free + kwonly if n in with_default and n not in concrete]
    if optional:
        # a call of the transformed method passes its arguments after ``self``
        called = free[1:] if _method(p, fn) and names[:1] == free[:1] else free
        params |= _passed(p, app, called, optional)
    api = TABLE[app.api]
    return Trace(params, api.label, app.node, "static_argnames" in api.static, api.stages)


def _passed(p: Program, app: Transformed, free: list[str], optional: list[str]) -> set[str]:
    """The parameters with a default that a visible call of the transformed function
    passes a leaf: a transform traces what it is given, and a default only when it is not
    given (``jit(f)(x, 0.5)`` traces ``temperature=None``). A call spreading ``*args`` or
    ``**kwargs``, or passing a value not known to be a leaf, adds nothing."""
    calls: list[tuple[Program, cst.Call]] = [(p, c) for c in p.invocations(app.node)[0]]
    calls += [(ev.p, c) for ev, c in _imported_calls(p, app.node)]
    out: set[str] = set()
    for q, call in calls:
        if any(a.star for a in call.args):
            continue
        positional = [a.value for a in call.args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        for n in optional:
            given = keywords.get(n)
            if given is None and n in free and free.index(n) < len(positional):
                given = positional[free.index(n)]
            if given is not None and _leaf(q, given):
                out.add(n)
    return out


def _imported_calls(p: Program, node: cst.CSTNode) -> list[tuple[Any, cst.Call]]:
    """The calls, in the files importing this one, of the module-level name the application
    at ``node`` is bound to (``solve = jax.jit(newton_solve, ...)``, then ``solve(A, ...,
    n_iters=cfg.newton_iters)`` in network.py)."""
    from .contexts import imported_name_calls

    stmt = p.parents.get(node)
    line = p.parents.get(stmt) if type(stmt) is cst.Assign else None
    if line is None or p.parents.get(line) is not p.ctx.module or len(stmt.targets) != 1:
        return []
    target = stmt.targets[0].target
    return imported_name_calls(p.evaluator, target.value) if type(target) is cst.Name else []


def _leaf(p: Program, expr: cst.BaseExpression) -> bool:
    """Is what a call passes known to be one traced leaf: an array or a Python number or
    bool (a dict or list is a container: ``partial_params or {}`` tests the container)?"""
    from .abstract import Array, Const, Scalar

    with p.evaluator.query(2_000):
        v = p.evaluator.value(expr, None)
    if type(v) is Const:
        return isinstance(v.value, (bool, int, float, complex))
    return type(v) in (Array, Scalar)


def _method(p: Program, fn) -> bool:
    """A def of a class body whose first parameter is bound (``self``/``cls``)."""
    if type(fn) is not cst.FunctionDef or not _positional(fn):
        return False
    if descriptor(p.evaluator, fn) == "staticmethod":
        return False
    scope = p.scope_of_node.get(fn)
    return scope is not None and scope.parent is not None and scope.parent.kind == "class"
