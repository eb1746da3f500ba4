"""Which calls of a file can see a value made at given nodes, found without evaluating.

A value made at a node (a ``jax.vmap(...)`` application) goes where the expression around
it goes: into the names an assignment, ``for``, ``with`` or walrus binds (read through the
binder), into an attribute a store names (``self.f = ...``: any ``.f`` read of the file may
be it; so may ``.f`` of a name a class body binds), out of a def that returns it (into its
calls), into the parameter of a def of the file it is passed to (also through a
``partial``: the def handed along beside it), and into the result of a call it is an
argument of (``jax.jit(value)``). Followed to a fixed point, this over-approximates the
calls whose callee or arguments may hold the value.

It decides only which calls the evaluator is asked about (``jaxlint.model.mapsites``):
asking about every call of a file costs more than the rest of a lint; what a callee is
stays the evaluator's answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import libcst as cst

from .scopes import Binding

if TYPE_CHECKING:
    from .program import Program

# statements that bind their targets to (parts of) a value
_BINDING_STATEMENTS = (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.WithItem)


def carrying_calls(p: Program, sources: Iterable[cst.CSTNode]) -> set[cst.Call]:
    """The calls whose callee or an argument may hold a value made at one of ``sources``."""
    index = p.__dict__.get("_carriers")
    if index is None:
        index = p.__dict__["_carriers"] = _Index(p)
    return _Carriers(index).run(sources)


class _Index:
    """What the fixed point looks up, built once per file."""

    def __init__(self, p: Program) -> None:
        self.p = p
        self.attribute_reads: dict[str, list[cst.Attribute]] = {}
        self.defs: dict[str, list[cst.FunctionDef]] = {}
        self.made: dict[cst.CSTNode, list[Binding]] = {}  # statement, def or param -> its bindings
        for node, entering in p.ctx._events:
            if not entering:
                continue
            if type(node) is cst.Attribute:
                self.attribute_reads.setdefault(node.attr.value, []).append(node)
            elif type(node) is cst.FunctionDef:
                self.defs.setdefault(node.name.value, []).append(node)
        for scope in {id(s): s for s in p.scope_of_node.values()}.values():
            for bs in scope.bindings.values():
                for b in bs:
                    self.made.setdefault(b.node, []).append(b)


class _Carriers:
    def __init__(self, index: _Index) -> None:
        self.p = index.p
        self.attribute_reads = index.attribute_reads
        self.defs = index.defs
        self.made = index.made
        self.calls: set[cst.Call] = set()
        self.bindings: set[Binding] = set()
        self.attributes: set[str] = set()
        self.returning: set[cst.FunctionDef] = set()
        self.work: list[cst.CSTNode] = []  # expressions that may hold the value

    def run(self, sources: Iterable[cst.CSTNode]) -> set[cst.Call]:
        self.work.extend(sources)
        seen: set[cst.CSTNode] = set()
        while self.work:
            node = self.work.pop()
            if node not in seen:
                seen.add(node)
                self._flow(node)
        return self.calls

    def _flow(self, node: cst.CSTNode) -> None:
        """Where the value of ``node`` goes, up to the statement holding it."""
        parents = self.p.parents
        child: cst.CSTNode = node
        parent = parents.get(child)
        while parent is not None:
            t = type(parent)
            if t is cst.Call:
                self.calls.add(parent)
                if parent.func is child:
                    return  # called: what it gives is the callee's result, not the value
            elif t is cst.Arg:
                call = parents.get(parent)
                if type(call) is cst.Call:
                    self._passed(call, parent)
            elif t is cst.Return:
                fn = self.p.ctx.enclosing_function(parent)
                if isinstance(fn, cst.FunctionDef):
                    self._returns(fn)
                return
            elif t is cst.Decorator:
                for b in self.made.get(parents.get(parent), ()):
                    self._bind(b)
                return
            elif t is cst.NamedExpr:
                for b in self.made.get(parent, ()):
                    self._bind(b)
            elif isinstance(parent, _BINDING_STATEMENTS):
                for b in self.made.get(parent, ()):
                    self._bind(b)
                if isinstance(parent, cst.Assign):
                    for target in parent.targets:
                        self._store(target.target)
                elif isinstance(parent, (cst.AnnAssign, cst.AugAssign)):
                    self._store(parent.target)
                return
            elif isinstance(parent, (cst.BaseStatement, cst.BaseSmallStatement)):
                return
            child, parent = parent, parents.get(parent)

    def _bind(self, b: Binding) -> None:
        if b in self.bindings:
            return
        self.bindings.add(b)
        p = self.p
        self.work.extend(r for r in p._candidate_reads(b) if b in p.reaching(r))
        if b.scope.kind == "class":  # a class attribute or method: read as ``self.name``
            self._attribute(b.name)

    def _attribute(self, attr: str) -> None:
        if attr not in self.attributes:
            self.attributes.add(attr)
            self.work.extend(self.attribute_reads.get(attr, ()))

    def _store(self, target: cst.BaseExpression) -> None:
        """What a target stores into besides the names it binds: an attribute by name, a
        subscript's container."""
        if type(target) is cst.Attribute:
            self._attribute(target.attr.value)
        elif type(target) is cst.Subscript:
            self._store(target.value)
            if type(target.value) is cst.Name:
                for b in self.p.reaching(target.value):
                    self._bind(b)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for e in target.elements:
                self._store(e.value)
        elif type(target) is cst.StarredElement:
            self._store(target.value)

    def _returns(self, fn: cst.FunctionDef) -> None:
        """A def that returns the value: each call of it gives the value."""
        if fn in self.returning:
            return
        self.returning.add(fn)
        p = self.p
        reads: list[cst.CSTNode] = [
            r for b in self.made.get(fn, ()) for r in p._candidate_reads(b) if b in p.reaching(r)
        ]
        reads += self.attribute_reads.get(fn.name.value, ())  # a method: ``obj.make()``
        for r in reads:
            call = p.parents.get(r)
            if type(call) is cst.Call and call.func is r:
                self.work.append(call)
            else:
                self.work.append(r)  # the def itself handed on: its calls are found there

    def _passed(self, call: cst.Call, arg: cst.Arg) -> None:
        """The parameter a def of the file gets the argument as: the callee's, and that of a
        def handed along in the same call (``partial(f, value)``)."""
        if arg.star:
            return
        positional = [a for a in call.args if a.keyword is None and not a.star]
        at: int | str | None = arg.keyword.value if arg.keyword is not None else None
        if at is None:
            at = positional.index(arg)
        for fn in self._defs_named(call.func):
            self._parameter(fn, at)
            if isinstance(at, int) and type(call.func) is cst.Attribute:
                self._parameter(fn, at + 1)  # a method: its receiver comes first
        for k, other in enumerate(positional):
            if other is not arg and (isinstance(at, str) or k < at):
                for fn in self._defs_named(other.value):
                    self._parameter(fn, at if isinstance(at, str) else at - k - 1)

    def _parameter(self, fn: cst.FunctionDef, at: int | str) -> None:
        ps = fn.params
        if isinstance(at, str):
            found = [x for x in (*ps.posonly_params, *ps.params, *ps.kwonly_params) if x.name.value == at]
            param = found[0] if found else None
        else:
            positional = [*ps.posonly_params, *ps.params]
            param = positional[at] if 0 <= at < len(positional) else None
            if param is None and type(ps.star_arg) is cst.Param and at >= 0:
                param = ps.star_arg  # ``def apply(fn, *args)``: the value is in ``args``
        for b in self.made.get(param, ()) if param is not None else ():
            self._bind(b)

    def _defs_named(self, func: cst.BaseExpression) -> list[cst.FunctionDef]:
        """The defs of the file an expression may be: what a name reads, a method by name."""
        if type(func) is cst.Name:
            return [b.node for b in self.p.reaching(func) if b.kind == "def" and isinstance(b.node, cst.FunctionDef)]
        if type(func) is cst.Attribute:
            return list(self.defs.get(func.attr.value, ()))
        return []
