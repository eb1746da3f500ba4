"""Fast, text-ordered access to the syntax children of LibCST nodes.

LibCST's ``node.children`` and visitors walk every whitespace and punctuation node and
cost about as much as the parse; rules and the engine walk only the syntax fields.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import libcst as cst

_TRIVIA_FIELDS = frozenset(
    {
        "lpar",
        "rpar",
        "header",
        "footer",
        "leading_lines",
        "lines_after_decorators",
        "comma",
        "semicolon",
        "colon",
        "equal",
        "dot",
        "default_comma",
        "operator",
        "whitespace",
        "arrow",
        "lbracket",
        "rbracket",
        "lbrace",
        "rbrace",
        "star_tok",
        "relative",
    }
)
# Dataclass field order is not always the order in the text; the walk must be, so that
# document order is text order (decorators before the def, ``a if b else c``…).
_TEXT_ORDER: dict[type, tuple[str, ...]] = {
    cst.FunctionDef: ("decorators", "asynchronous", "name", "type_parameters", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
    cst.IfExp: ("body", "test", "orelse"),
    cst.Parameters: ("posonly_params", "posonly_ind", "params", "star_arg", "kwonly_params", "star_kwarg"),
    cst.Param: ("star", "name", "annotation", "default"),
    cst.Arg: ("star", "keyword", "value"),
    cst.Index: ("star", "value"),
    cst.With: ("asynchronous", "items", "body"),
    cst.For: ("asynchronous", "target", "iter", "body", "orelse"),
    cst.CompFor: ("asynchronous", "target", "iter", "ifs", "inner_for_in"),
}
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(t: type) -> tuple[str, ...]:
    f = _FIELDS.get(t)
    if f is None:
        names = [x.name for x in dataclasses.fields(t) if x.name not in _TRIVIA_FIELDS and "whitespace" not in x.name]
        order = _TEXT_ORDER.get(t)
        if order is not None:
            names = [n for n in order if n in names] + [n for n in names if n not in order]
        f = _FIELDS[t] = tuple(names)
    return f


def _all_node_types() -> frozenset[type]:
    out: set[type] = set()
    todo = [cst.CSTNode]
    while todo:
        t = todo.pop()
        out.add(t)
        todo.extend(t.__subclasses__())
    return frozenset(out)


# ``type(v) in NODE_TYPES`` is a set lookup; isinstance on LibCST's ABCs is ~10x slower.
NODE_TYPES = _all_node_types()


def _hash_identity_in_c() -> None:
    """LibCST nodes are equal and hash by identity, through a ``__hash__`` written in Python
    (``id(self)``) that every node class carries: a Python call for each lookup in the
    node-keyed dicts of the engine and the model (about a fifteenth of a lint). ``object``'s
    own hash is by identity too, in C: same equality, same dicts."""
    by_id = cst.CSTNode.__dict__["__hash__"]
    for t in NODE_TYPES:
        if t.__dict__.get("__hash__") is by_id:
            type.__setattr__(t, "__hash__", object.__hash__)


_hash_identity_in_c()


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """Syntax children in text order (no whitespace, comments or punctuation)."""
    out: list[cst.CSTNode] = []
    for name in _fields(type(node)):
        v = getattr(node, name)
        if isinstance(v, cst.CSTNode):
            out.append(v)
        elif type(v) is tuple or type(v) is list:
            out.extend(x for x in v if isinstance(x, cst.CSTNode))
    return out


def walk(node: cst.CSTNode, prune: tuple[type, ...] = ()) -> Iterator[cst.CSTNode]:
    """Every syntax node under ``node`` (itself first), not entering ``prune`` types below it."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if n is not node and prune and isinstance(n, prune):
            continue
        stack.extend(reversed(children(n)))
