"""The text a migration fix writes: expressions kept as written, calls with other arguments."""

from __future__ import annotations

import libcst as cst

_ATOMIC = (
    cst.Name,
    cst.Attribute,
    cst.Call,
    cst.Subscript,
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.FormattedString,
    cst.List,
    cst.Tuple,
    cst.Dict,
    cst.Set,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
)
_SIMPLE = (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)


def is_simple(expr: cst.BaseExpression) -> bool:
    """An expression whose evaluation has no side effects (a name, a dotted name, a literal)."""
    if isinstance(expr, cst.Attribute):
        return is_simple(expr.value)
    if isinstance(expr, cst.UnaryOperation):
        return is_simple(expr.expression)
    return isinstance(expr, _SIMPLE)


def code(ctx, expr: cst.BaseExpression, atomic: bool = True) -> str:
    """The text of ``expr``, parenthesized where an operator would bind it otherwise (``atomic``)."""
    text = ctx.code(expr).strip()
    if atomic and not isinstance(expr, _ATOMIC) and not getattr(expr, "lpar", ()):
        return f"({text})"
    return text


def call_text(ctx, node: cst.Call, args: list[cst.Arg]) -> str:
    """``node`` with ``args``, commas as the call had them (a trailing one kept)."""
    trailing = bool(node.args) and isinstance(node.args[-1].comma, cst.Comma)
    fixed = []
    for i, a in enumerate(args):
        if i < len(args) - 1 and not isinstance(a.comma, cst.Comma):
            a = a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        elif i == len(args) - 1:
            if trailing:
                a = a.with_changes(comma=node.args[-1].comma)
            else:
                a = a.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        fixed.append(a)
    return ctx.code(node.with_changes(args=fixed))


def indent_of(ctx, node: cst.CSTNode) -> str:
    """The indentation of the statement that holds ``node``."""
    indent = ""
    for a in ctx.ancestors(node):
        if isinstance(a, cst.IndentedBlock):
            indent = (a.indent if a.indent is not None else ctx.module.default_indent) + indent
    return indent
