"""Differentiation sites: each ``grad`` / ``value_and_grad`` / ``jacrev`` / ``jacfwd`` /
``jacobian`` / ``hessian`` application of a file, as the semantic model sees it.

A ``Site`` holds the application's abstract value (the options as values), the callable
it differentiates as the transform calls it (``Target``: the positional parameters after
``functools.partial`` and a bound method's receiver), and the calls of the transformed
function in view, with their arguments evaluated in every context of the caller. What
the function returns comes from the evaluator: for those arguments, else with nothing
bound. ``through_sites``: the sites of other modules' defs that a call of this file runs
with its arguments. The JAX4xx rules judge them (``rules/autodiff``); unknown means silent.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN
from jaxlint.base.text import clipped
from jaxlint.model import program
from jaxlint.model.abstract import Function, Transformed, constant
from jaxlint.model.callables import unwrapped
from jaxlint.model.contexts import call_arguments, contexts, default_frame, runs_in
from jaxlint.model.evaluate import Env
from jaxlint.model.mapsites import application_value, stub_grad
from jaxlint.model.returns import returned_source
from jaxlint.model.signature import Argument, Signature
from jaxlint.model.through import called_def, frames_made_by, imported_callee, reaching
from jaxlint.model.transfer import signature
from jaxlint.model.transforms import named

# the differentiating transforms (jaxlint/model/transforms.py), by the name messages give
GRAD_APIS = {q: q.rsplit(".", 1)[1] for q in sorted(named(gives="grad") | named(gives="jacobian"))}
SCALAR_APIS = named(gives="grad")  # they need a scalar output
ALLOW_INT_APIS = frozenset(q for q in GRAD_APIS if signature(q).param("allow_int") is not None)
FUEL = 20_000  # evaluation steps per evaluated call of a site


@dataclass
class Target:
    """The differentiated callable as the transform calls it."""

    label: str  # "`loss`", "the lambda"
    params: list[str]  # the names a caller passes positionally, in order
    varargs: bool  # it takes ``*args``: any number of positions
    note: str  # " after functools.partial binds `a`"
    leaf: Function | None  # the def or lambda finally called
    visible: bool  # only partial, bound methods and value-keeping wrappers between: its returns are the output

    def describe(self) -> str:
        n = len(self.params)
        listed = ", ".join(f"`{p}`" for p in self.params)
        word = "parameter" if n == 1 else "parameters"
        return f"{self.label} takes {n} positional {word}" + (f" ({listed})" if n else "") + self.note


def target_of(ev: Any, value: Any) -> Target | None:
    """The callable ``value`` as a transform of it calls it, or None when not known."""
    sig: Signature | None = ev.signature(value)
    u = unwrapped(ev, value)
    if sig is None or u.leaf is None:
        return None
    label = "the lambda" if isinstance(u.leaf.node, cst.Lambda) else f"`{u.leaf.name}`"
    note = " after functools.partial binds " + ", ".join(f"`{b}`" for b in u.bound) if u.bound else ""
    params = [p.name for p in sig.positional]
    return Target(label, params, sig.var_positional is not None, note, u.leaf, u.same_value)


@dataclass
class Call:
    """One call of the transformed function in view: where, in which frame, its arguments."""

    node: cst.Call
    frame: Env | None
    args: list[Argument]

    @property
    def positional(self) -> list[Any] | None:
        """The positional arguments, or None when some are spread."""
        if any(s for _, _, s in self.args):
            return None
        return [v for v, k, _ in self.args if k is None]


@dataclass
class Site:
    node: cst.CSTNode  # the transform call, or the decorator expression
    api: str
    shown: str  # the transform as written: ``jax.grad``
    value: Transformed
    option_nodes: dict[str, cst.CSTNode]
    target: Target | None
    calls: list[Call] = field(default_factory=list)
    # every use of the transformed function is one of ``calls`` (``jax.grad(f)(x)``): what
    # they pass decides, not a call with nothing bound
    only_calls: bool = False
    # a site of another module run by a call of this file (``through_sites``): only the calls
    # that call made decide
    through: bool = False
    # a library grad that differentiates only the inexact array leaves of the first argument
    # (``stubs.GRADS``: ``eqx.filter_grad``): an int or bool there gets no gradient, no error
    inexact_only: bool = False
    _outputs: list[tuple[Any, Call | None]] | None = None

    @property
    def api_name(self) -> str:
        return GRAD_APIS[self.api]

    def option(self, name: str, default: Any) -> Any:
        """An option's constant value, its default when not given, UNKNOWN when unreadable."""
        if self.value.unknown_options:
            return UNKNOWN
        v = self.value.option(name)
        return default if v is None else constant(v)

    def argnums(self) -> list[int] | None:
        """The argnums as a list of ints (default 0), or None when not such a constant."""
        v = self.option("argnums", 0)
        if isinstance(v, int) and not isinstance(v, bool):
            return [v]
        if isinstance(v, (tuple, list)) and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            return list(v)
        return None

    def outputs(self, ev: Any) -> list[tuple[Any, Call | None]]:
        """What the differentiated function returns: with nothing bound (when its returns
        are the output), and for the arguments of each call in view. When those calls are
        all its uses and each gives a known output, they decide alone."""
        if self._outputs is None:
            called: list[tuple[Any, Call | None]] = []
            for c in self.calls:
                target = self.target_for(ev, c)
                if target is None:
                    continue  # the call's frame gives other options: this site's are not its
                with ev.query(FUEL):
                    called.append((ev.call(target, c.args, c.frame, c.node), c))
            out: list[tuple[Any, Call | None]] = []
            t = self.target
            decided = self.through or (self.only_calls and called and all(v is not UNKNOWN for v, _ in called))
            if t is not None and t.visible and t.leaf is not None and not decided:
                leaf_ev = t.leaf.program.evaluator if t.leaf.program is not None else ev
                frame = default_frame(leaf_ev, t.leaf.node)
                if t.leaf.env is not None:  # a factory's closure: what the factory's call bound
                    frame = leaf_ev.frame(t.leaf.node, {}, t.leaf.env)
                with ev.query(FUEL):
                    out.append((leaf_ev.returned(t.leaf, frame), None))
            self._outputs = out + called
        return self._outputs

    def target_for(self, ev: Any, c: Call) -> Any:
        """The differentiated function as ``c`` calls it: the application evaluated in the
        call's frame (``jax.grad(fn)(x)`` in a function called once per problem differentiates
        that problem's ``fn``, with that problem's ``x``), else as evaluated where it is written;
        None when that frame gives the application other options (``has_aux=has_aux`` of
        a parameterized case) than those the rules read."""
        with ev.query(FUEL):
            v = ev.value(c.node.func, c.frame)
        for _ in range(8):
            if type(v) is not Transformed:
                break
            if v.node is self.node:
                # the options the rules read are the site's: a frame with others is not judged
                return v.target if v.options == self.value.options else None
            v = v.target
        return self.value.target

    def returned_text(self) -> str | None:
        """The source of what the differentiated def returns, for a message."""
        leaf = self.target.leaf if self.target is not None else None
        return returned_source(leaf) if leaf is not None else None


def sites(ctx: Any) -> list[Site]:
    """The file's differentiation sites, computed once per file."""
    if "JAX4xx" in ctx.shared:
        return ctx.shared["JAX4xx"]
    p = program(ctx)
    ev = p.evaluator
    out: list[Site] = []
    for app in p.applications():
        if app.api not in GRAD_APIS or app.star_kwargs:
            continue
        value = application_value(p, app.node)
        if value is None or value.api != app.api:
            continue
        site = _site(p, app, value)
        node = app.node
        calls, complete = p.invocations(node)
        for call in calls[:8]:
            home = ctx.enclosing_function(call)
            for frame in contexts(ev, home, importers=True)[:4] if home is not None else [None]:
                if not runs_in(ev, call, frame, home):
                    continue  # this case of the test never makes the call
                with ev.query(FUEL):
                    args = call_arguments(ev, call, frame)
                if args is not None:
                    site.calls.append(Call(call, frame, args))
        site.only_calls = complete and len(calls) <= 8 and {c.node for c in site.calls} == set(calls)
        out.append(site)
    ctx.shared["JAX4xx"] = out
    return out


def _site(p: Any, app: Any, value: Transformed) -> Site:
    """The site of an application of ``p``'s file, without its calls."""
    option_nodes = {k: p.parents[v] for k, v in app.keywords.items()}
    for name, arg in zip(("argnums", "has_aux", "holomorphic", "allow_int"), app.args, strict=False):
        option_nodes[name] = arg
    node = app.node
    shown = p.ctx.code(node.func if isinstance(node, cst.Call) and not app.decorator else node)
    site = Site(node, app.api, clipped(shown, 40), value, option_nodes, target_of(p.evaluator, value.target))
    site.inexact_only = stub_grad(p, node) is not None
    return site


@dataclass
class Through:
    """A site of another module that a call of this file runs with its arguments."""

    call: cst.Call  # this file's call
    owner: Any  # the Program of the site's module
    fn: str  # the def the call runs
    site: Site  # its calls: those the call's evaluation made


def through_sites(ctx: Any) -> list[Through]:
    """The grad sites of other modules' defs that this file's calls run with their
    arguments (``sgd(params, x)`` imported, whose body differentiates a loss): each with the
    calls of its transformed function that evaluating this call made (``model/through.py``),
    computed once per file."""
    if "JAX4xx through" in ctx.shared:
        return ctx.shared["JAX4xx through"]
    p = program(ctx)
    ev = p.evaluator
    out: list[Through] = []
    for call in ctx.nodes_of(cst.Call):
        if not imported_callee(p, call):
            continue
        with ev.query(FUEL):
            g = called_def(ev, call, ev.value(call.func, None))
        if g is None:
            continue
        owner = g.program
        apps = {a.node: a for a in owner.applications() if a.api in GRAD_APIS and not a.star_kwargs}
        if not apps:
            continue
        assert isinstance(g.node, cst.FunctionDef)  # called_def gives defs only
        if g.node.name.value in ctx.judged.get(os.path.abspath(owner.ctx.path), ()):
            continue  # the def's module judges this file's calls of it, at its grad: once, there
        chain = reaching(owner, g.node, _holds(apps))
        if not chain:
            continue
        home = ctx.enclosing_function(call)
        for env in contexts(ev, home)[:4] if home is not None else [None]:
            with ev.query(FUEL):
                ev.value(call, env)
        frames = frames_made_by(ev, call, chain)
        owner_ev = owner.evaluator
        for node, app in apps.items():
            home_of_app = owner.ctx.enclosing_function(node)
            for frame in [f for f in frames if f.function is home_of_app][:4]:
                # the application as this run makes it: its options may be what this call gave
                with ev.query(FUEL):
                    value = owner_ev.value(node, frame)
                if type(value) is not Transformed or value.api != app.api:
                    continue
                site = _site(owner, app, value)
                site.through = True
                invoked, _ = owner.invocations(node)
                for inv in invoked[:8]:
                    inv_home = owner.ctx.enclosing_function(inv)
                    for inv_frame in [f for f in frames if f.function is inv_home][:4]:
                        with ev.query(FUEL):
                            args = call_arguments(owner_ev, inv, inv_frame)
                        if args is not None:
                            site.calls.append(Call(inv, inv_frame, args))
                out.append(Through(call, owner, owner.ctx.qualname(g.node) or g.name, site))
                break  # one run of the def per call: its first frame
    ctx.shared["JAX4xx through"] = out
    return out


def _holds(apps: dict[cst.CSTNode, Any]) -> Callable[[cst.Call, Any], bool]:
    """A call that is one of the applications."""
    return lambda call, _value: call in apps
