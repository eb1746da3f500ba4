"""Where the top-level statements and class members of a file start and end, from the
stdlib tokenizer.

About a tenth of LibCST's parse (twice ``ast.parse``, but with no tree to hold and, unlike
the 3.11 ``ast``, reading 3.12 syntax such as ``def f[T]()``). Used to cut a large file
into pieces for LibCST (``jaxlint.lint.parse``).
"""

from __future__ import annotations

import functools
import re
import tokenize
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
