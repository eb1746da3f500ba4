"""What a rule sees of the file it is checking: tree, names, facts, parents, scopes."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxlint.base.names import ImportTable
from jaxlint.model.facts import FunctionFact, ModuleFacts

if TYPE_CHECKING:
    from jaxlint.model.evaluate import World
    from jaxlint.model.program import Program

FunctionNode = cst.FunctionDef | cst.Lambda


class ForeignLine(int):
    """A line of another module (a call there of this file's def, jaxlint.plan.importers),
    with that module's path relative to the linted file's folder: it prints as ``19 of
    run.py``, so a message's "at line {n}" names the file too."""

    path: str

    def __new__(cls, line: int, path: str) -> ForeignLine:
        made = super().__new__(cls, line)
        made.path = path
        return made

    def __str__(self) -> str:
        return f"{int(self)} of {self.path}"

    __repr__ = __str__

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ForeignLine) and int(self) == int(other) and self.path == other.path

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((int(self), self.path))

    def __reduce__(self):
        return ForeignLine, (int(self), self.path)


class FileContext:
    def __init__(
        self,
        path: str,
        source: str,
        module: cst.Module,
        names: ImportTable,
        facts: ModuleFacts,
        qualnames: dict[FunctionNode, str],
        parents: dict[cst.CSTNode, cst.CSTNode],
        settings: Any = None,
        events: list | None = None,
    ) -> None:
        self._events = events or []
        # per-file analyses shared by the rules of a family, e.g. shared["JAX3"]; they die
        # with the context (a module-level WeakKeyDictionary would keep the tree alive
        # through its values, which refer back to the context)
        self.shared: dict[str, Any] = {}
        # node -> the innermost def/lambda strictly around it (for nodes that are not defs)
        self._enclosing: dict[cst.CSTNode, FunctionNode | None] = {}
        self._units: dict[cst.CSTNode, cst.CSTNode | None] = {}
        self._order: dict[cst.CSTNode, int] | None = None
        self._by_type: dict[type, list[cst.CSTNode]] | None = None
        self._span: dict[cst.CSTNode, tuple[int, int]] | None = None
        self.path = path
        self.source = source  # what LibCST parsed: the file with unseen defs blanked
        self.original_source = source  # the file as it is
        # names of the defs a seed anywhere hands to a transform: the only defs of this
        # file a rule's project phase may look up (None: any)
        self.looked_up: frozenset[str] | None = None
        # names of the units in the callers closure of a ``callers = "all"`` rule's seeds
        # that this file mentions: the only functions whose uses matter (None: any)
        self.callers_of_seeds: frozenset[str] | None = None
        self.module = module
        self.names = names
        self.facts = facts
        self._qualnames = qualnames
        self.parents = parents
        self.settings = settings
        # a notebook's cells tagged ``raises-exception``, as (first, last) lines of the module:
        # code there is expected to raise (jaxlint.model.expected)
        self.raising_lines: tuple[tuple[int, int], ...] = ()
        # the project modules this file imports, read on demand (World's loader; jaxlint.lint.imports)
        self.load_module: Callable[[str, World], Program | None] | None = None
        # name of a module-level def -> the project files that import it (jaxlint.plan.importers),
        # and their reader: where else the def is called (model/contexts.py)
        self.importers: dict[str, tuple[str, ...]] = {}
        # importer path -> {its def that calls this file's defs: the files importing that def}:
        # the importers one step further (jaxlint.plan.importers ``parse_hops``)
        self.hops: dict[str, dict[str, tuple[str, ...]]] = {}
        # module path -> the names of its defs whose calls in this file that module judges
        # (this file is among their importers): a finding there is reported once, there
        self.judged: dict[str, frozenset[str]] = {}
        self.load_importer: Callable[[str, World], Program | None] | None = None

    def release(self) -> None:
        """Once the file is linted: drop the per-file analyses and the model (its cycles
        broken, ``Program.release``) so they are freed by reference counting."""
        model = self.shared.get("model")
        self.shared.clear()
        if model is not None:
            model.release()

    # names -------------------------------------------------------------------------
    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    # tree --------------------------------------------------------------------------
    def document_order(self) -> dict[cst.CSTNode, int]:
        """Pre-order index of every syntax node (computed once, on demand)."""
        if self._order is None:
            self._order = {n: i for i, (n, entering) in enumerate(self._events) if entering}
        return self._order

    def _spans(self) -> dict[cst.CSTNode, tuple[int, int]]:
        if self._span is None:
            span: dict[cst.CSTNode, tuple[int, int]] = {}
            stack: list[tuple[cst.CSTNode, int]] = []
            for i, (n, entering) in enumerate(self._events):
                if entering:
                    stack.append((n, i))
                else:
                    node, start = stack.pop()
                    span[node] = (start, i)
            self._span = span
        return self._span

    def descendants(
        self, node: cst.CSTNode, prune: tuple[type, ...] = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
    ) -> list[cst.CSTNode]:
        """Syntax nodes under ``node`` in text order; ``prune`` nodes are listed, not entered.

        Reads the engine's event list: no attribute walking, so a function body costs
        a slice, not a traversal.
        """
        if node is self.module and self._span is None:
            return self._module_descendants(prune)
        spans = self._spans()
        if node not in spans:
            from jaxlint.base.tree import walk

            return [n for n in walk(node, prune) if n is not node]
        events = self._events
        i, j = spans[node]
        out: list[cst.CSTNode] = []
        k = i + 1
        while k < j:
            n, entering = events[k]
            if entering:
                out.append(n)
                if type(n) in prune:
                    k = spans[n][1]
            k += 1
        return out

    def _module_descendants(self, prune: tuple[type, ...]) -> list[cst.CSTNode]:
        """descendants(module) in one pass over the events, without building every span."""
        out: list[cst.CSTNode] = []
        skipping = None
        for n, entering in self._events:
            if skipping is not None:
                if n is skipping and not entering:
                    skipping = None
                continue
            if entering and n is not self.module:
                out.append(n)
                if type(n) in prune:
                    skipping = n
        return out

    def nodes_of(self, kind: type) -> list[Any]:
        """Every node of one syntax type, in text order: one pass over the events, shared by
        every reader of the file (the calls, the decorators, the assignments)."""
        if self._by_type is None:
            by: dict[type, list[cst.CSTNode]] = {}
            for n, entering in self._events:
                if entering:
                    found = by.get(type(n))
                    if found is None:
                        by[type(n)] = [n]
                    else:
                        found.append(n)
            self._by_type = by
        return self._by_type.get(kind, [])

    def events(self) -> list[tuple[cst.CSTNode, bool]]:
        """The engine's walk of the module: ``(node, entering)`` in text order."""
        return self._events

    def text_order(self, node: cst.CSTNode) -> int:
        """Sort key in the order nodes start in the text (a def starts after its decorators)."""
        order = self.document_order()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            node = node.name
        return order.get(node, 0)

    def lines(self, nodes) -> dict[cst.CSTNode, int]:
        """1-based start lines of many nodes at once (cheap: see jaxlint.base.lines); a node whose
        text cannot be placed (rare) is missing from the result: say "in this file"."""
        from jaxlint.base.lines import node_lines

        nodes = set(nodes)
        own = sorted((n for n in nodes if n in self.parents), key=self.text_order)
        decorators = frozenset(n for n in own if isinstance(self.parents.get(n), cst.Decorator))
        out = node_lines(self.module, self.source, own, decorators, parents=self.parents)
        if len(own) < len(nodes):  # a call in a module that imports this one
            out.update(self._foreign_lines([n for n in nodes if n not in self.parents]))
        return out

    def exact_lines(self, nodes) -> dict[cst.CSTNode, int]:
        """Exact 1-based start lines (a position pass over the statements that hold them):
        for the lines a finding's message cites, where ``lines`` could pick another node
        with the same text."""
        nodes = [n for n in set(nodes) if n is not None]
        if not nodes:
            return {}
        own = [n for n in nodes if n in self.parents]
        out = self._exact_lines(own) if own else {}
        if len(own) < len(nodes):
            out.update(self._foreign_lines([n for n in nodes if n not in self.parents]))
        return out

    def _foreign_lines(self, nodes: list[cst.CSTNode]) -> dict[cst.CSTNode, int]:
        """The lines of nodes of the other modules this file's model read (``ForeignLine``)."""
        import os

        model = self.shared.get("model")
        world = getattr(model, "_world", None)
        out: dict[cst.CSTNode, int] = {}
        for program in world.programs() if world is not None else ():
            if program.ctx.path.endswith(".stub"):
                continue  # a library stub's line is jaxlint's, not the project's: never cited
            mine = [n for n in nodes if n in program.parents]
            if not mine:
                continue
            rel = os.path.relpath(program.ctx.path, os.path.dirname(os.path.abspath(self.path)))
            for n, line in program.ctx.exact_lines(mine).items():
                out[n] = ForeignLine(line, rel)
        return out

    def _exact_lines(self, nodes: list[cst.CSTNode]) -> dict[cst.CSTNode, int]:
        """Exact lines in two steps: a node whose text occurs in the file exactly as often
        as the nodes asked with that text is placed by the text search (``lines``: the k-th
        such node has the k-th occurrence); only the rest cost a position pass."""
        from jaxlint.base.lines import node_lines

        nodes = sorted(nodes, key=self.text_order)
        decorators = frozenset(n for n in nodes if isinstance(self.parents.get(n), cst.Decorator))
        return node_lines(self.module, self.source, nodes, decorators, exact=self._position_lines, parents=self.parents)

    def _position_lines(self, nodes: list[cst.CSTNode]) -> dict[cst.CSTNode, int]:
        from jaxlint.base.positions import node_ranges

        ranges = node_ranges(self.module, nodes, self.parents, self.source, self.shared.setdefault("positions", {}))
        return {n: r[0][0] for n, r in ranges.items()}

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.parents.get(node)

    def ancestors(self, node: cst.CSTNode):
        p = self.parents.get(node)
        while p is not None:
            yield p
            p = self.parents.get(p)

    def unit_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The top-level statement, or member of a top-level class, that holds ``node``.

        The slicer keeps or blanks whole units (jaxlint.plan.slicing): a rule that scans the
        file for evidence about a local variable must look only in the variable's unit.
        """
        memo = self._units
        seen = []
        n = node
        found = None
        while n is not None:
            if n in memo:
                found = memo[n]
                break
            p = self.parents.get(n)
            if p is None:
                break
            if p is self.module:
                found = n
                break
            if isinstance(p, cst.IndentedBlock):
                cls = self.parents.get(p)
                if isinstance(cls, cst.ClassDef) and self.parents.get(cls) is self.module:
                    found = n
                    break
            seen.append(n)
            n = p
        for m in seen:
            memo[m] = found
        return found

    def enclosing_function(self, node: cst.CSTNode) -> FunctionNode | None:
        """The innermost def or lambda around ``node`` (memoised along the way up)."""
        memo = self._enclosing
        seen = []
        p = self.parents.get(node)
        found = None
        while p is not None:
            if p in memo:
                found = memo[p]
                break
            if isinstance(p, (cst.FunctionDef, cst.Lambda)):
                found = p
                break
            seen.append(p)
            p = self.parents.get(p)
        for n in seen:
            memo[n] = found
        return found

    # functions ----------------------------------------------------------------------
    def qualname(self, func: FunctionNode) -> str | None:
        """The def's or lambda's name in the module facts (``Model.apply``, ``<lambda>#2``)."""
        return self._qualnames.get(func)

    def scope_of(self, node: cst.CSTNode) -> str:
        """Qualname of the function that contains ``node`` ("" at module level)."""
        f = self.enclosing_function(node)
        return (self._qualnames.get(f) or "") if f is not None else ""

    def functions(self) -> list[tuple[FunctionFact, FunctionNode]]:
        """Every def and lambda of the file with its fact, in text order."""
        functions = self.facts.functions
        return [(functions[q], fn) for fn, q in self._qualnames.items()]

    def extra(self, code: str) -> dict[str, Any]:
        """Rule-specific module facts that travel to the project phase."""
        return self.facts.extra.setdefault(code, {})
