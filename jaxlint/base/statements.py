"""Where the top-level statements and class members of a file start and end.

Used to cut a large file into pieces for LibCST (``jaxlint.lint.parse``). Read from the
stdlib ``ast`` (``ast_statements``: a C parse, about a twentieth of LibCST's), or, where
the 3.11 ``ast`` cannot read the text (3.12 syntax such as ``def f[T]()``), from the stdlib
tokenizer (``statements``: pure Python on 3.11, about a fifth of LibCST's parse). Both give
the statements as LibCST counts them (``a = 1; b = 2`` on one line is one).
"""

from __future__ import annotations

import ast
import functools
import re
import tokenize
import warnings
from dataclasses import dataclass, field

LINE_END = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Lines with their endings, counted as Python and LibCST count them."""
    out: list[str] = []
    pos = 0
    for m in LINE_END.finditer(text):
        out.append(text[pos : m.end()])
        pos = m.end()
    if pos < len(text):
        out.append(text[pos:])
    return out


# a logical line starting with one of these continues the statement before it
_CLAUSES = frozenset({"else", "elif", "except", "finally"})

Statement = tuple[int, int, bool, list[list[int]]]  # first line, last line, class?, members [first, last]


@dataclass
class _Top:
    """A top-level statement while it is being read."""

    first: int
    last: int
    is_class: bool = False
    members: list[list[int]] = field(default_factory=list)  # [first, last] of each member


def statements(lines: list[str], tokens: list[int] | None = None) -> tuple[list[Statement], tuple[str, int]] | None:
    """The lines of the top-level statements (decorators included) and, for a class with an
    indented body, of its members, as LibCST counts statements (``a = 1; b = 2`` is one);
    the first indentation and its line (LibCST's ``default_indent``; ``"    "``, 0 without
    one). With ``tokens``, the tokens of each statement, and of each member after it (what a
    parser's memory grows with), are appended to it: for each top-level statement its
    count, then one count per member.
    None when the stdlib tokenizer does not read the text cleanly."""
    tops: list[_Top] = []
    depth = 0
    starts = True  # the next token starts a logical line
    decorators = member_decorators = False
    indent: tuple[str, int] | None = None
    skip = (tokenize.NL, tokenize.COMMENT)
    counts: list[list[int]] = []  # per top: [its tokens, each member's tokens...]
    try:
        for tok in tokenize.generate_tokens(functools.partial(next, iter(lines), "")):
            kind = tok.type
            if kind in skip:
                continue
            if counts:
                counts[-1][0] += 1
                if depth and len(counts[-1]) > 1:
                    counts[-1][-1] += 1
            if kind == tokenize.INDENT:
                depth += 1
                if indent is None:
                    indent = (tok.string, tok.start[0])
            elif kind == tokenize.DEDENT:
                depth -= 1
            elif kind == tokenize.NEWLINE:
                starts = True
                if tops:
                    tops[-1].last = tok.start[0]
                    if depth and tops[-1].members:
                        tops[-1].members[-1][1] = tok.start[0]
            elif kind == tokenize.ERRORTOKEN:
                return None
            elif kind == tokenize.ENDMARKER:
                break
            elif starts:
                starts = False
                row, word = tok.start[0], tok.string
                if depth == 0:
                    if not (decorators or word in _CLAUSES) or not tops:
                        tops.append(_Top(row, row))
                        counts.append([1])
                    if word == "class":
                        tops[-1].is_class = True
                    decorators = word == "@"
                elif depth == 1 and tops and tops[-1].is_class:
                    members = tops[-1].members
                    if not (member_decorators or word in _CLAUSES) or not members:
                        members.append([row, row])
                        counts[-1].append(1)
                    member_decorators = word == "@"
    except (tokenize.TokenError, SyntaxError):  # IndentationError is a SyntaxError
        return None
    if tokens is not None:
        tokens.extend(n for top in counts for n in top)
    if indent is None:
        indent = ("    ", 0)
    elif indent[0].strip(" \t"):  # a form feed: LibCST and the tokenizer may count differently
        return None
    return [(t.first, t.last, t.is_class, t.members) for t in tops], indent


def read_ast(text: str) -> ast.Module | None:
    """The text's ``ast`` tree, or None when ``ast`` cannot read it (a syntax error, a null
    byte, nesting or a literal too deep or large for the compiler); its warnings (invalid
    escapes) are not the user's business here."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


def ast_statements(text: str, lines: list[str]) -> tuple[list[Statement], tuple[str, int]] | None:
    """What ``statements`` gives (without token counts), read from ``ast``; None when ``ast``
    cannot read the text."""
    tree = read_ast(text)
    if tree is None:
        return None
    tops: list[Statement] = []
    for first, last, stmt in _merged(tree.body):
        members: list[list[int]] = []
        is_class = isinstance(stmt, ast.ClassDef)
        if isinstance(stmt, ast.ClassDef) and _own_line(stmt.body[0], lines):  # not ``class A: pass``
            members = [[a, b] for a, b, _ in _merged(stmt.body)]
        tops.append((first, last, is_class, members))
    indent = _first_indent(tree, lines)
    if indent is None:
        return None
    return tops, indent


def _first_line(stmt: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(stmt, "decorator_list", [])
    return min([stmt.lineno, *(d.lineno for d in decorators)])


def _merged(body: list[ast.stmt]) -> list[tuple[int, int, ast.stmt]]:
    """Statements of a block as LibCST counts them: those sharing a line (``a = 1; b = 2``)
    are one; each with its first and last line and its first ``ast`` statement."""
    out: list[tuple[int, int, ast.stmt]] = []
    for stmt in body:
        first, last = _first_line(stmt), stmt.end_lineno or stmt.lineno
        if out and first <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], last), out[-1][2])
        else:
            out.append((first, last, stmt))
    return out


def _own_line(stmt: ast.stmt, lines: list[str]) -> bool:
    """Does the statement start its line (an indented block), not follow a header's colon?"""
    line = lines[_first_line(stmt) - 1]
    col = stmt.col_offset if not getattr(stmt, "decorator_list", ()) else len(line) - len(line.lstrip(" \t\f"))
    return not line.encode("utf-8")[:col].strip()


def _suites(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The blocks of a compound statement, in text order."""
    if isinstance(stmt, ast.Try | ast.TryStar):
        return [stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody]
    if isinstance(stmt, ast.Match):
        return [c.body for c in stmt.cases]
    return [getattr(stmt, name, None) or [] for name in ("body", "orelse", "finalbody")]


def _first_block(body: list[ast.stmt], lines: list[str]) -> ast.stmt | None:
    """The first statement, in text order, that opens an indented block (statements are
    visited before the blocks they hold, so the first found is the first in the text)."""
    for stmt in body:
        if isinstance(stmt, ast.expr | ast.Expr | ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Return):
            continue  # simple statements hold no block
        for suite in _suites(stmt):
            if not suite or not isinstance(suite[0], ast.stmt):
                continue
            head = suite[0]
            elif_clause = isinstance(stmt, ast.If) and suite is stmt.orelse and isinstance(head, ast.If)
            if not (elif_clause and head.col_offset == stmt.col_offset) and _own_line(head, lines):
                return head
            found = _first_block(suite, lines)
            if found is not None:
                return found
    return None


def _first_indent(tree: ast.Module, lines: list[str]) -> tuple[str, int] | None:
    """The tokenizer's first INDENT: the leading whitespace of the first line that opens an
    indented block, and that line (``"    "``, 0 without one); None for whitespace other
    than spaces and tabs (a form feed), which LibCST and the tokenizer may count apart."""
    head = _first_block(tree.body, lines)
    if head is None:
        return ("    ", 0)
    line = _first_line(head)
    text = lines[line - 1]
    whitespace = text[: len(text) - len(text.lstrip(" \t\f\v"))]
    if whitespace.strip(" \t"):
        return None
    return whitespace, line
