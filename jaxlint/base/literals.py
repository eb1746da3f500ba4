"""Static values of simple expressions: ints, strings, None, tuples, lists, dicts.

``literal(node)`` returns the Python value, or ``UNKNOWN`` when the expression is not
a literal we can read. Names are looked up in a table of module-level constants, or by
the caller (the program model follows them to their bindings: ``lookup``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import Any

import libcst as cst


class _Unknown:
    _instance = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __reduce__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:
        return False


UNKNOWN: Any = _Unknown()


def literal(
    node: cst.BaseExpression | None,
    constants: Mapping[str, Any] | None = None,
    *,
    lookup: Callable[[cst.BaseExpression], Any] | None = None,
    part: Callable[[cst.BaseExpression], Any] | None = None,
) -> Any:
    """``lookup(node)``: the value of a name (other than None/True/False), ``a.b`` or ``a[k]``,
    instead of the ``constants`` table; ``part(node)``: the value of an element of a display
    or an operand (default: this function with the same arguments)."""
    if part is None:

        def part(n: cst.BaseExpression) -> Any:
            return literal(n, constants, lookup=lookup)

    return _literal(node, constants, lookup, part)


def _literal(
    node: cst.BaseExpression | None,
    constants: Mapping[str, Any] | None,
    lookup: Callable[[cst.BaseExpression], Any] | None,
    part: Callable[[cst.BaseExpression], Any],
) -> Any:
    if node is None:
        return UNKNOWN
    if isinstance(node, cst.Integer):
        try:
            return int(node.value.replace("_", ""), 0)
        except ValueError:
            return UNKNOWN
    if isinstance(node, cst.Float):
        return UNKNOWN
    if isinstance(node, cst.SimpleString):
        try:
            value = ast.literal_eval(node.value)
        except (ValueError, SyntaxError):
            return UNKNOWN
        return value if isinstance(value, str) else UNKNOWN
    if isinstance(node, cst.ConcatenatedString):
        left, right = part(node.left), part(node.right)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
        return UNKNOWN
    if isinstance(node, cst.Name):
        if node.value == "None":
            return None
        if node.value == "True":
            return True
        if node.value == "False":
            return False
        if lookup is not None:
            return lookup(node)
        if constants is not None and node.value in constants:
            return constants[node.value]
        return UNKNOWN
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = part(node.expression)
        return -inner if isinstance(inner, int) and not isinstance(inner, bool) else UNKNOWN
    if isinstance(node, (cst.Tuple, cst.List)):
        items = []
        for el in node.elements:
            if isinstance(el, cst.StarredElement):
                return UNKNOWN
            value = part(el.value)
            if value is UNKNOWN:
                return UNKNOWN
            items.append(value)
        return tuple(items) if isinstance(node, cst.Tuple) else list(items)
    if isinstance(node, cst.Dict):
        out: dict[Any, Any] = {}
        for entry in node.elements:
            if not isinstance(entry, cst.DictElement):
                return UNKNOWN
            k = part(entry.key)
            v = part(entry.value)
            if k is UNKNOWN or v is UNKNOWN:
                return UNKNOWN
            try:
                out[k] = v
            except TypeError:
                return UNKNOWN
        return out
    if lookup is not None and isinstance(node, (cst.Subscript, cst.Attribute)):
        return lookup(node)
    return UNKNOWN
