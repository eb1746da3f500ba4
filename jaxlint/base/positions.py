"""Positions for the few nodes that are reported, in one codegen pass.

LibCST's PositionProvider records a range for every node (≈1.7× the parse); this
state records ranges only for the requested nodes, which costs a plain codegen (≈⅓
of the parse) and gives identical results.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress

import libcst as cst
from libcst._nodes.internal import CodegenState

Range = tuple[tuple[int, int], tuple[int, int]]  # ((line, col0), (line, col0)); 1-based lines
Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement  # the only kinds of cst.BaseStatement
FirstLines = dict[cst.CSTNode, int]  # a statement -> the line of its first token (decorators included)
Memo = dict[str, FirstLines | None]  # per file: "first_lines", computed once


class _AllFound(Exception):
    """Raised to stop codegen once every requested node has its range."""


class _TargetedState(CodegenState):
    def __init__(self, module: cst.Module, targets: set[cst.CSTNode]) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.line = 1
        self.col = 0
        self.targets = targets
        self.found: dict[cst.CSTNode, Range] = {}
        self._starts: dict[cst.CSTNode, tuple[int, int]] = {}
        self.wanted = set(targets)
        self.remaining = len(self.wanted)

    def _record(self, node: cst.CSTNode, r: Range) -> None:
        self.found[node] = r
        if node in self.wanted:
            self.remaining -= 1
            if self.remaining == 0:
                raise _AllFound

    def before_codegen(self, node: cst.CSTNode) -> None:
        if node in self.targets:
            self._starts[node] = (self.line, self.col)

    def after_codegen(self, node: cst.CSTNode) -> None:
        # nodes without a syntactic position of their own keep their whole extent
        if node in self.targets and node not in self.found:
            self._record(node, (self._starts.pop(node), (self.line, self.col)))

    def add_indent_tokens(self) -> None:
        for tok in self.indent_tokens:
            self.col += len(tok)

    def add_token(self, value: str) -> None:
        n = value.count("\n") + value.count("\r") - value.count("\r\n")
        if n:
            self.line += n
            last = max(value.rfind("\n"), value.rfind("\r"))
            self.col = len(value) - last - 1
        else:
            self.col += len(value)

    @contextmanager
    def record_syntactic_position(
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> Iterator[None]:
        if node not in self.targets:
            yield
            return
        if start_node is not None:
            self.targets.add(start_node)
        if end_node is not None:
            self.targets.add(end_node)
        start = (self.line, self.col)
        yield
        end = (self.line, self.col)
        if start_node is not None and start_node in self.found:
            start = self.found[start_node][0]
        if end_node is not None and end_node in self.found:
            end = self.found[end_node][1]
        self._record(node, (start, end))


def node_ranges(
    module: cst.Module,
    nodes: Iterable[cst.CSTNode],
    parents: dict[cst.CSTNode, cst.CSTNode] | None = None,
    source: str | None = None,
    memo: Memo | None = None,
) -> dict[cst.CSTNode, Range]:
    """Map each requested node to its syntactic range (1-based lines, 0-based columns).

    With ``parents`` and ``source``, only the statements that hold a requested node are
    generated (a top-level statement, or a member of a top-level class), each starting at
    the line ``ast`` gives it: a finding in a 5,000-line test class costs one method.
    """
    targets = set(nodes)
    if not targets:
        return {}
    if parents is not None and source is not None:
        found = _by_statement(module, targets, parents, source, memo if memo is not None else {})
        if found is not None:
            return found
    state = _TargetedState(module, set(targets))
    with suppress(_AllFound):
        module._codegen(state)
    return {n: r for n, r in state.found.items() if n in targets}


def _by_statement(
    module: cst.Module,
    targets: set[cst.CSTNode],
    parents: dict[cst.CSTNode, cst.CSTNode],
    source: str,
    memo: Memo,
) -> dict[cst.CSTNode, Range] | None:
    groups: dict[Statement, set[cst.CSTNode]] = {}
    for t in targets:
        unit = _unit(module, t, parents)
        if unit is None:
            return None
        groups.setdefault(unit, set()).add(t)
    starts = first_lines(module, source, memo)
    if starts is None:
        return None
    out: dict[cst.CSTNode, Range] = {}
    for stmt, wanted in groups.items():
        first = starts.get(stmt)
        if first is None:
            return None
        state = _TargetedState(module, set(wanted))
        relative = 1 + len(stmt.leading_lines)
        decorators = getattr(stmt, "decorators", ())
        if decorators:
            relative += len(decorators[0].leading_lines)
        state.line = first - relative + 1
        parent = parents.get(stmt)
        if isinstance(parent, cst.IndentedBlock):
            state.indent_tokens = [parent.indent if parent.indent is not None else module.default_indent]
        with suppress(_AllFound):
            stmt._codegen(state)
        out.update((n, r) for n, r in state.found.items() if n in wanted)
    return out


def _unit(module: cst.Module, node: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode]) -> Statement | None:
    """The top-level statement holding ``node``, or the member of a top-level class."""
    chain = [node]
    p = parents.get(node)
    while p is not None and p is not module:
        chain.append(p)
        p = parents.get(p)
    if p is not module:
        return None
    top = chain[-1]
    if (
        isinstance(top, cst.ClassDef)
        and isinstance(top.body, cst.IndentedBlock)
        and len(chain) >= 3
        and chain[-2] is top.body
    ):
        unit = chain[-3]
    else:
        unit = top
    # the child of a Module or an IndentedBlock is a statement
    return unit if isinstance(unit, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) else None


def first_lines(module: cst.Module, source: str, memo: Memo) -> FirstLines | None:
    """The line of the first token of every top-level statement and class member, or None
    when ``ast`` and LibCST do not pair up; one ``ast`` parse per file, however many callers."""
    if "first_lines" not in memo:
        memo["first_lines"] = _first_lines(module, source)
    return memo["first_lines"]


def _first_lines(module: cst.Module, source: str) -> FirstLines | None:
    """The line of the first token of every top-level statement and class member (from ``ast``)."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    out: FirstLines = {}
    if not _pair(module.body, tree.body, out):
        return None
    for stmt, group in zip(module.body, _groups(tree.body), strict=False):
        if (
            isinstance(stmt, cst.ClassDef)
            and isinstance(stmt.body, cst.IndentedBlock)
            and not (isinstance(group[0], ast.ClassDef) and _pair(stmt.body.body, group[0].body, out))
        ):
            return None
    return out


def _groups(stmts: list[ast.stmt]) -> list[list[ast.stmt]]:
    """ast statements grouped as LibCST groups them: ``a = 1; b = 2`` is one line."""
    groups: list[list[ast.stmt]] = []
    for s in stmts:
        simple = not isinstance(s, _COMPOUND)
        if groups and simple and not isinstance(groups[-1][-1], _COMPOUND) and s.lineno == groups[-1][-1].end_lineno:
            groups[-1].append(s)
        else:
            groups.append([s])
    return groups


def _pair(cst_body: Sequence[cst.BaseStatement], ast_body: list[ast.stmt], out: FirstLines) -> bool:
    groups = _groups(ast_body)
    if len(groups) != len(cst_body):
        return False
    for stmt, group in zip(cst_body, groups, strict=False):
        first = group[0]
        if isinstance(stmt, cst.SimpleStatementLine) == isinstance(first, _COMPOUND):
            return False
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) != isinstance(
            first, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        ):
            return False
        decorators = getattr(first, "decorator_list", ())
        out[stmt] = min([first.lineno, *(d.lineno for d in decorators)])
    return True


_COMPOUND = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.TryStar,
    ast.Match,
)
