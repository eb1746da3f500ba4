"""Shared analysis of the JAX4xx family, on the semantic model.

Each ``grad`` / ``value_and_grad`` / ``jacrev`` / ``jacfwd`` / ``jacobian`` / ``hessian``
application of a file is a ``Site``: its abstract value (the options as values), the
callable it differentiates as the transform sees it (``Target``: the positional
parameters after ``functools.partial`` and a bound method's receiver), and the calls of
the transformed function in view, with their arguments evaluated in every context of the
caller. What the function returns comes from the evaluator: for those arguments, else
with nothing bound. The evaluator reads imported project modules itself, so every
verdict is made in the file of the site. Unknown means silent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN
from jaxlint.lint.rule import Rule
from jaxlint.lint.wording import clipped, split
from jaxlint.model import program
from jaxlint.model.abstract import Function, Transformed, constant
from jaxlint.model.callables import unwrapped
from jaxlint.model.contexts import call_arguments, contexts, default_frame, runs_in
from jaxlint.model.evaluate import Env
from jaxlint.model.mapsites import application_value
from jaxlint.model.returns import returned_source
from jaxlint.model.signature import Argument, Signature
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
        are the output), and for the arguments of each call in view."""
        if self._outputs is None:
            out: list[tuple[Any, Call | None]] = []
            t = self.target
            if t is not None and t.visible and t.leaf is not None:
                leaf_ev = t.leaf.program.evaluator if t.leaf.program is not None else ev
                with ev.query(FUEL):
                    out.append((leaf_ev.returned(t.leaf, default_frame(leaf_ev, t.leaf.node)), None))
            for c in self.calls:
                target = self.target_for(ev, c)
                if target is None:
                    continue  # the call's frame gives other options: this site's are not its
                with ev.query(FUEL):
                    out.append((ev.call(target, c.args, c.frame, c.node), c))
            self._outputs = out
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
        option_nodes = {k: p.parents[v] for k, v in app.keywords.items()}
        for name, arg in zip(("argnums", "has_aux", "holomorphic", "allow_int"), app.args, strict=False):
            option_nodes[name] = arg
        node = app.node
        shown = ctx.code(node.func if isinstance(node, cst.Call) and not app.decorator else node)
        site = Site(node, app.api, clipped(shown, 40), value, option_nodes, target_of(ev, value.target))
        calls, _ = p.invocations(node)
        for call in calls[:8]:
            home = ctx.enclosing_function(call)
            for frame in contexts(ev, home)[:4] if home is not None else [None]:
                if not runs_in(ev, call, frame, home):
                    continue  # this case of the test never makes the call
                with ev.query(FUEL):
                    args = call_arguments(ev, call, frame)
                if args is not None:
                    site.calls.append(Call(call, frame, args))
        out.append(site)
    ctx.shared["JAX4xx"] = out
    return out


def normalised(nums: list[int], n: int) -> list[int] | None:
    """Indices with negatives resolved, or None if any is out of range."""
    if any(not -n <= i < n for i in nums):
        return None
    return [i % n for i in nums]


def at_line(ctx: Any, node: cst.CSTNode) -> str:
    """``at line N`` for a message (the form notebooks rewrite), or ``in this file``."""
    line = ctx.exact_lines([node]).get(node)
    return f"at line {line}" if line is not None else "in this file"


class GradRule(Rule):
    """Decides each grad-like site of the file in ``verdict``."""

    about = tuple(GRAD_APIS)
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    # a jit of the target (its static arguments), in its module; what the target calls
    # there (the helper that builds its output); the calls of the def a site is in (its call
    # contexts: the arguments each call passes)
    reads = ("jit of targets", "target callees", "calls")
    # files that may define the function a grad in another module differentiates
    context_words = ("argnums", "has_aux", "jnp", "jax.numpy", "loss")

    def finish(self) -> None:
        for site in sites(self.ctx):
            message = self.verdict(site)
            if message:
                head, note = split(message)
                self.report(self.where(site), head, fix=self.fix(site, message), note=note)

    def where(self, site: Site) -> cst.CSTNode:
        return site.option_nodes.get("argnums", site.node)

    def fix(self, site: Site, message: str) -> Any:
        return None

    def verdict(self, site: Site) -> str | None:
        """The message for one site, or None when it is fine: each rule decides its own."""
        raise NotImplementedError(f"{type(self).__name__} does not define verdict")
