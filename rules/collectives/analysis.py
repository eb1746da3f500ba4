"""What JAX201 needs beyond the program model: the collectives and their axis-name
arguments, and how a message names a place or a function.

Where a collective runs, and which maps bind axis names on each path there, is the
program model's call paths (``jaxlint/model/calls.py`` per module, ``model/paths.py``
across the project).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import libcst as cst

from jaxlint.base.names import last_name
from jaxlint.model import program
from jaxlint.model.abstract import External
from jaxlint.model.axes import agreed, frames, in_contexts, names_of
from jaxlint.model.contexts import foreign_call_line
from jaxlint.model.evaluate import NEVER_LOADED
from jaxlint.model.spelled import spelled
from jaxlint.model.vocabulary import KEY as VOCABULARY
from jaxlint.model.vocabulary import closest, config_mentions, config_root, project_helpers_mentions

# collective -> index of the positional axis_name argument (None: keyword only)
COLLECTIVES: dict[str, int | None] = {
    "psum": 1,
    "pmean": 1,
    "pmax": 1,
    "pmin": 1,
    "all_gather": 1,
    "all_to_all": 1,
    "ppermute": 1,
    "psum_scatter": 1,
    "pshuffle": 1,
    "pswapaxes": 1,
    "pbroadcast": 1,
    "pcast": 1,
    "axis_index": 0,
    "axis_size": 0,
    "ragged_all_to_all": None,
}
COLLECTIVE_NAMES = {f"jax.lax.{k}": k for k in COLLECTIVES}


def where(rec: dict[str, Any], here: str) -> str:
    """``at line 12`` / ``at train.py:12``; without a known line ``in this file`` / ``in train.py``."""
    if rec["path"] == here:
        return f"at line {rec['line']}" if rec["line"] else "in this file"
    name = os.path.basename(rec["path"])
    return f"at {name}:{rec['line']}" if rec["line"] else f"in {name}"


def local_name(ref: str) -> str:
    last = ref.rsplit(".", 1)[-1]
    if last.startswith("<lambda>"):
        return "the lambda"
    if last.startswith("<partial:"):
        return "the partial"
    return f"`{last}`"


# -- the collectives of a file, read through the semantic model --------------------------
@dataclass(frozen=True, slots=True)
class Site:
    """A collective call (``lax.psum(x, "i")``) or a ``partial`` of one (``partial(lax.psum,
    axis_name="i")``, which runs the collective where it is called)."""

    short: str  # ``psum``
    shown: str  # how the code spells it: ``jax.lax.psum``
    args: tuple[cst.Arg, ...]  # the collective's arguments as written (after the function, for a partial)
    partial: bool


def collective_site(ctx: Any, node: cst.Call) -> Site | None:
    """The collective ``node`` calls, or the one it is a ``partial`` of (the evaluator
    says what the callee is: ``lax.psum``, ``jax.lax.psum``, ``from jax.lax import psum as
    reduce``)."""
    func = node.func
    last = last_name(func)
    if last is None:
        return None
    p = program(ctx)
    if last == "partial" or (type(func) is cst.Name and _imported_or_assigned(p, func)) or last in COLLECTIVES:
        q = _qualified(p, func)
        if q == "functools.partial" and node.args and not node.args[0].star and node.args[0].keyword is None:
            inner = node.args[0].value
            short = COLLECTIVE_NAMES.get(_qualified(p, inner) or "")
            if short is not None:
                return Site(short, ctx.code(inner), tuple(node.args[1:]), True)
            return None
        short = COLLECTIVE_NAMES.get(q or "")
        if short is not None:
            return Site(short, ctx.code(func), tuple(node.args), False)
    return None


def site_names(ctx: Any, node: cst.Call, site: Site) -> tuple[str, ...] | None:
    """The axis names the collective uses, as values: read with no call in view, else in
    every context of the function around it (its visible calls, a factory's arguments),
    which must agree. None (silent) when they cannot be read: a parameter nothing visible
    passes, a computed string."""
    arg = axis_argument(site)
    if arg is None:
        return None
    ev = program(ctx).evaluator
    names = in_contexts(ev, lambda frame: _names_in(ev, arg, frame), ctx.enclosing_function(node))
    return names or None


def _names_in(ev: Any, arg: cst.BaseExpression, frame: Any) -> tuple[str, ...] | None:
    """The axis names ``arg`` gives in ``frame`` (bounded work)."""
    with ev.query(_NAMES_FUEL):
        return names_of(ev.value(arg, frame))


def site_names_from_importers(ctx: Any, node: cst.Call, site: Site) -> tuple[tuple[str, ...] | None, list | None]:
    """The axis names the collective uses in the contexts the files importing its module's
    def give it (``main.py`` calling ``build_parallel_step(model, cfg)``, whose closure reads
    ``cfg.grad_axis``), which must agree; with ``[the argument as written, the line of the
    first such call]`` for the note. ``(None, None)`` when they cannot be read."""
    arg = axis_argument(site)
    fn = ctx.enclosing_function(node)
    if arg is None or fn is None:
        return None, None
    ev = program(ctx).evaluator
    found = []
    for frame in frames(ev, fn, importers=True):
        at = foreign_call_line(ctx, frame)
        if at is None:
            continue  # a context in view: read already, without a name
        found.append((_names_in(ev, arg, frame), at))
    names = agreed([n for n, _ in found]) if found else None
    if not names:
        return None, None
    return names, [" ".join(ctx.code(arg).split()), str(found[0][1])]


def axis_argument(site: Site) -> cst.BaseExpression | None:
    """The argument that gives the collective its axis name (``axis_name=``, or its
    position in the collective's signature)."""
    return _axis_argument(list(site.args), COLLECTIVES[site.short])


def _axis_argument(args: list[cst.Arg], index: int | None) -> cst.BaseExpression | None:
    for a in args:
        if a.keyword is not None and a.keyword.value == "axis_name":
            return a.value
    if any(a.star for a in args):
        return None
    positional = [a for a in args if a.keyword is None]
    if index is not None and index < len(positional):
        return positional[index].value
    return None


def _imported_or_assigned(p: Any, name: cst.Name) -> bool:
    bs = p.reaching(name)
    return bool(bs) and all(b.kind in ("import", "assign") for b in bs)


def _qualified(p: Any, expr: cst.BaseExpression) -> str | None:
    """The library function a callee is: what the name spells through imports of a library
    the model never reads (its value is that name), else the evaluator's value."""
    q = spelled(p, expr)
    if q is not None and q.split(".", 1)[0] in NEVER_LOADED:
        return q
    ev = p.evaluator
    with ev.query(_NAMES_FUEL):
        v = ev.value(expr, None)
    return v.qualified if type(v) is External else None


_NAMES_FUEL = 2_000


class Vocabulary:
    """The project's axis vocabulary (``jaxlint/model/vocabulary.py``): the names every
    module's binding sites mention (also through binding helpers of other modules), every
    map on the call paths binds, and the project's configuration files name (read once,
    when a collective needs it)."""

    def __init__(self, project: Any, paths: Any, code: str) -> None:
        names: set[str] = set()
        for m in project.all:
            names.update(m.extra.get(code, {}).get(VOCABULARY, ()))
        names |= project_helpers_mentions(project.all, code, project.canonical)
        for uses in paths.uses.values():
            for u in uses:
                _layer_names(u, names)
        for layers in paths.decorated.values():
            for x in layers or ():
                names.update(x.get("names") or ())
        self.code_names = frozenset(names)
        self._config: frozenset[str] | None = None
        self._paths = [m.path for m in project.all]

    @property
    def names(self) -> frozenset[str]:
        if self._config is None:
            self._config = frozenset(config_mentions(config_root(self._paths)))
        return self.code_names | self._config

    def closest(self, name: str) -> str | None:
        return closest(name, self.names)


def _layer_names(u: dict[str, Any] | None, out: set[str]) -> None:
    while u is not None:
        for x in u.get("layers", ()):
            out.update(x.get("names") or ())
        u = u.get("result")
