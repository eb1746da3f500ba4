"""Scopes and bindings of one file, and which bindings of a name can reach a read.

Built in one pass over the engine's event list (no tree walking of our own). Each
binding remembers where it happens (its index in the event list) and under which
branches of its scope (its *path*: the arms of ``if``/``for``/``while``/``try``/``match``
around it). A read is reached by the bindings before it, back to the first one that
is on every path to the read (its path is a prefix of the read's path), plus, inside a
loop, the bindings later in the same loop. That is the flow-sensitive part of
pyright's binder, without a graph: Python's structured control flow is enough.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass, field

import libcst as cst

Arm = tuple[cst.CSTNode, int]  # (the branching statement, which arm)

FUNCTION_KINDS = ("function", "lambda")


@dataclass(slots=True, eq=False)
class Binding:
    """One place where a name gets a value."""

    name: str
    kind: str  # param, assign, augassign, walrus, def, class, import, for, with, except, match, global
    node: cst.CSTNode  # the statement, def, Param, alias or target that binds
    scope: Scope
    index: int  # position in the event list: the binding happens here
    path: tuple[Arm, ...]
    value: cst.BaseExpression | None = None  # the assigned expression (assign, walrus, annotated)
    unpack: tuple[int, ...] = ()  # element path into ``value`` for ``a, (b, c) = value``
    imported: str | None = None  # the qualified name an import binds
    anywhere: bool = False  # bound from a nested scope (global/nonlocal): may happen at any time


@dataclass(slots=True, eq=False)
class Scope:
    kind: str  # module, class, function, lambda, comprehension
    node: cst.CSTNode
    parent: Scope | None
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)
    end: int = 0  # event index where the scope ends
    # names whose bindings are not in index order, or bound from a nested scope
    unsorted: set[str] = field(default_factory=set)

    def add(self, b: Binding) -> None:
        found = self.bindings.setdefault(b.name, [])
        if b.anywhere or (found and found[-1].index > b.index):
            self.unsorted.add(b.name)  # reaching_in reads every binding of such a name
        found.append(b)


@dataclass(slots=True)
class Read:
    scope: Scope
    path: tuple[Arm, ...]
    index: int


_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_LOOPS = (cst.For, cst.While)


class ScopeBuilder:
    """Fills scopes, bindings and reads from ``events`` (see ``engine.walk_events``)."""

    def __init__(self, module: cst.Module, events, parents, names) -> None:
        self.parents = parents
        self.names = names  # the file's ImportTable, to name what an import binds
        self.module_scope = Scope("module", module, None)
        self.scope_of_node: dict[cst.CSTNode, Scope] = {module: self.module_scope}
        self.reads: dict[cst.Name, Read] = {}
        self.reads_by_name: dict[str, list[cst.Name]] = {}
        self.targets: set[cst.CSTNode] = set()  # Name nodes that are not reads
        self._arms: dict[cst.CSTNode, Arm] = {}
        self.scope_start: dict[cst.CSTNode, int] = {}
        self._build(events)

    # ------------------------------------------------------------------------------
    def _build(self, events) -> None:
        scope = self.module_scope
        stack: list[tuple[Scope, list[Arm]]] = []
        path: list[Arm] = []
        arms = self._arms
        targets = self.targets
        parents = self.parents
        pending: dict[cst.CSTNode, list] = {}  # statement -> bindings to add when it ends
        here: tuple[Arm, ...] = ()  # ``tuple(path)``, rebuilt only when the path changes
        for i, (node, entering) in enumerate(events):
            t = type(node)
            if not entering:
                if node in arms:
                    path.pop()
                    here = tuple(path)
                late = pending.pop(node, None)
                if late is not None:
                    for args in late:
                        self._bind(*args, index=i)
                if self.scope_of_node.get(node) is scope and node is not self.module_scope.node:
                    scope.end = i
                    scope, path = stack.pop()
                    here = tuple(path)
                continue
            if node in arms:
                path.append(arms[node])
                here = tuple(path)
            if t is cst.Name:
                if node in targets:
                    continue
                p = parents.get(node)
                tp = type(p)
                if (tp is cst.Attribute and p.attr is node) or (tp is cst.Arg and p.keyword is node):
                    continue
                self.reads[node] = Read(scope, here, i)
                self.reads_by_name.setdefault(node.value, []).append(node)
                continue
            if t is cst.Parameters:
                owner = parents.get(node)
                kind = "function" if type(owner) is cst.FunctionDef else "lambda"
                stack.append((scope, path))
                scope = Scope(kind, owner, scope)
                path = []
                here = ()
                self.scope_of_node[owner] = scope
                continue
            if t is cst.Param:
                targets.add(node.name)
                self._bind(scope, node.name.value, "param", node, here, index=i)
                continue
            if t in _COMPREHENSIONS:
                stack.append((scope, path))
                scope = Scope("comprehension", node, scope)
                path = []
                here = ()
                self.scope_of_node[node] = scope
                self.scope_start[node] = i
                continue
            if t is cst.IndentedBlock and type(parents.get(node)) is cst.ClassDef:
                owner = parents[node]
                stack.append((scope, path))
                scope = Scope("class", owner, scope)
                path = []
                here = ()
                self.scope_of_node[owner] = scope
                # the class body ends with the ClassDef: register the end there
                self.scope_of_node[node] = scope
                continue
            if t is cst.FunctionDef or t is cst.ClassDef:
                targets.add(node.name)
                pending.setdefault(node, []).append(
                    (scope, node.name.value, "def" if t is cst.FunctionDef else "class", node, here)
                )
                continue
            if t is cst.Assign:
                for tg in node.targets:
                    self._targets(tg.target, scope, path, node, node.value, (), pending)
                continue
            if t is cst.AnnAssign:
                if node.value is not None:
                    self._targets(node.target, scope, path, node, node.value, (), pending)
                elif type(node.target) is cst.Name:
                    targets.add(node.target)
                continue
            if t is cst.AugAssign:
                self._targets(node.target, scope, path, node, None, (), pending, kind="augassign")
                continue
            if t is cst.NamedExpr:
                home = scope
                while home.kind == "comprehension" and home.parent is not None:
                    home = home.parent
                self._targets(
                    node.target, home, path if home is scope else [], node, node.value, (), pending, kind="walrus"
                )
                continue
            if t is cst.For or t is cst.While:
                self._mark_arm(node.body, node, 0)
                if node.orelse is not None:
                    self._mark_arm(node.orelse, node, 1)
                if t is cst.For:
                    self._targets(node.target, scope, [*path, (node, 0)], node, None, (), None, kind="for", index=i)
                continue
            if t is cst.CompFor:
                # the element is read before the ``for`` in the text, but runs after it
                start = self.scope_start.get(scope.node, i)
                self._targets(node.target, scope, path, node, None, (), None, kind="for", index=start)
                continue
            if t is cst.If:
                self._mark_arm(node.body, node, 0)
                if node.orelse is not None:
                    self._mark_arm(node.orelse, node, 1)
                continue
            if t is cst.Try or t is cst.TryStar:
                self._mark_arm(node.body, node, 0)
                for k, h in enumerate(node.handlers):
                    self._mark_arm(h, node, k + 1)
                if node.orelse is not None:
                    self._mark_arm(node.orelse, node, 0)
                continue
            if t is cst.ExceptHandler or t is cst.ExceptStarHandler:
                if node.name is not None:
                    self._targets(node.name.name, scope, path, node, None, (), None, kind="except", index=i)
                continue
            if t is cst.Match:
                for k, case in enumerate(node.cases):
                    self._mark_arm(case, node, k)
                continue
            if t is cst.MatchAs or t is cst.MatchStar:
                if node.name is not None:
                    self._targets(node.name, scope, path, node, None, (), None, kind="match", index=i)
                continue
            if t is cst.WithItem:
                if node.asname is not None:
                    self._targets(node.asname.name, scope, path, node, None, (), pending, kind="with")
                continue
            if t is cst.Import or t is cst.ImportFrom:
                self._imports(node, scope, path, i)
                continue
            if t is cst.Global or t is cst.Nonlocal:
                for item in node.names:
                    targets.add(item.name)
                    (scope.globals if t is cst.Global else scope.nonlocals).add(item.name.value)
                continue
        self.module_scope.end = len(events)

    def _mark_arm(self, block: cst.CSTNode, owner: cst.CSTNode, k: int) -> None:
        self._arms[block] = (owner, k)

    def _targets(self, target, scope, path, node, value, unpack, pending, kind="assign", index=None) -> None:
        t = type(target)
        if t is cst.Name:
            self.targets.add(target)
            args = (scope, target.value, kind, node, tuple(path), value, unpack)
            if pending is not None:
                pending.setdefault(node, []).append(args)
            else:
                self._bind(*args, index=index)
        elif t is cst.Tuple or t is cst.List:
            starred = False
            for k, el in enumerate(target.elements):
                if type(el) is cst.StarredElement:
                    starred = True
                    self._targets(el.value, scope, path, node, None, (), pending, kind, index)
                elif starred:  # after ``*rest`` an element's index counts from the end: not bound to one
                    self._targets(el.value, scope, path, node, None, (), pending, kind, index)
                else:
                    self._targets(el.value, scope, path, node, value, (*unpack, k), pending, kind, index)
        elif t is cst.StarredElement:
            self._targets(target.value, scope, path, node, None, (), pending, kind, index)
        # attributes and subscripts bind no name

    def _bind(self, scope, name, kind, node, path, value=None, unpack=(), *, index) -> None:
        home = scope
        anywhere = False
        if name in scope.globals:
            home, anywhere = self.module_scope, True
        elif name in scope.nonlocals:
            home, anywhere = self._enclosing_function(scope, name), True
        if home is None:
            return
        home.add(Binding(name, kind, node, home, index, () if anywhere else path, value, unpack, anywhere=anywhere))

    def _enclosing_function(self, scope: Scope, name: str) -> Scope | None:
        s = scope.parent
        while s is not None:
            if s.kind in FUNCTION_KINDS and name in s.bindings:
                return s
            s = s.parent
        return None

    def _imports(self, node, scope, path, index) -> None:
        from jaxlint.base.names import dotted

        if isinstance(node.names, cst.ImportStar):
            return
        base = ""
        if type(node) is cst.ImportFrom:
            module = dotted(node.module) or "" if node.module is not None else ""
            base = self.names._absolute(len(node.relative), module) if node.relative else module
        for alias in node.names:
            full = dotted(alias.name) or ""
            for n in _names_in(alias.name):
                self.targets.add(n)
            if type(node) is cst.ImportFrom and node.module is not None:
                for n in _names_in(node.module):
                    self.targets.add(n)
            if alias.asname is not None and type(alias.asname.name) is cst.Name:
                local = alias.asname.name.value
                self.targets.add(alias.asname.name)
                qualified = f"{base}.{full}" if type(node) is cst.ImportFrom and base else full
            elif type(node) is cst.ImportFrom:
                local, qualified = full, f"{base}.{full}" if base else full
            else:
                local = qualified = full.split(".")[0]
            b = Binding(local, "import", alias, scope, index, tuple(path), imported=qualified)
            if local in scope.globals:
                b.scope, b.anywhere, b.path = self.module_scope, True, ()
            b.scope.add(b)


def _names_in(expr) -> list[cst.Name]:
    out = []
    while type(expr) is cst.Attribute:
        out.append(expr.attr)
        expr = expr.value
    if type(expr) is cst.Name:
        out.append(expr)
    return out


# ----------------------------------------------------------------------------------
# reaching definitions
# ----------------------------------------------------------------------------------
def _is_prefix(a: tuple, b: tuple) -> bool:
    return len(a) <= len(b) and b[: len(a)] == a


def _index(b: Binding) -> int:
    return b.index


def _candidates(scope: Scope, name: str, binds: list[Binding], index: int, loops: set) -> Iterator[Binding]:
    """The bindings that may reach a read at ``index``, latest first. Bindings are in index
    order: those after the read matter only inside a loop around it, and they end where
    the loop does; the earlier ones are read backwards until one covers the read (the
    caller stops), so ``x = x + 1`` written 100,000 times stays linear."""
    if name in scope.unsorted:
        yield from reversed(binds)
        return
    k = bisect.bisect_right(binds, index, key=_index)
    if loops:
        end = k
        while end < len(binds) and any(arm[0] in loops for arm in binds[end].path):
            end += 1
        for j in range(end - 1, k - 1, -1):
            yield binds[j]
    for j in range(k - 1, -1, -1):
        yield binds[j]


def reaching_in(scope: Scope, name: str, path: tuple[Arm, ...], index: int) -> list[Binding]:
    """The bindings of ``name`` in ``scope`` that can be the value read at (path, index)."""
    binds = scope.bindings.get(name)
    if not binds:
        return []
    out: list[Binding] = []
    loops = {arm[0] for arm in path if isinstance(arm[0], _LOOPS) and arm[1] == 0}
    covered: dict[cst.CSTNode, set[int]] = {}
    for b in _candidates(scope, name, binds, index, loops):
        if b.anywhere:
            out.append(b)
            continue
        if b.index > index:
            # a later binding in a loop around the read reaches it on the next iteration
            if loops and any(arm[0] in loops and arm[1] == 0 for arm in b.path):
                out.append(b)
            continue
        out.append(b)
        if _is_prefix(b.path, path):
            break
        if _completes_branches(b, path, covered):
            break
    return out


def _completes_branches(b: Binding, path: tuple[Arm, ...], covered: dict) -> bool:
    """True once every arm of an ``if``/``else`` (or ``try``/``except``, ``match``) that the
    read is not inside has a binding on all of its own paths: nothing earlier reaches."""
    common = 0
    while common < len(path) and common < len(b.path) and path[common] == b.path[common]:
        common += 1
    if common >= len(b.path):
        return False
    owner, arm = b.path[common]
    if len(b.path) != common + 1 or isinstance(owner, _LOOPS):
        return False  # nested deeper than the arm's own block, or a loop body (may not run)
    arms = covered.setdefault(owner, set())
    arms.add(arm)
    total = _arm_count(owner)
    return total is not None and len(arms) >= total


def _arm_count(owner: cst.CSTNode) -> int | None:
    if type(owner) is cst.If:
        if owner.orelse is None:
            return None  # the test may be false: the binding before the if also reaches
        return 2
    if type(owner) in (cst.Try, cst.TryStar):
        return None  # an exception may leave the try body before the binding
    if type(owner) is cst.Match:
        last = owner.cases[-1].pattern if owner.cases else None
        if type(last) is cst.MatchAs and last.pattern is None:  # ``case _:``
            return len(owner.cases)
        return None
    return None
