"""LibCST's parse of one file, in pieces when the text is large, stitched into one Module.

LibCST's native parser needs several hundred bytes of scratch memory per character of
source while it runs (the kept part of jax's ``tests/pjit_test.py``, 380,000 characters:
280 MiB), while the tree it returns is small (about 20 MiB). A text longer than ``PIECE``
characters is therefore parsed in pieces of about that size — runs of whole top-level
statements and runs of whole members of a large top-level class — and their statements
are put together into the Module a single parse would give, node for node
(``Module.deep_equals``, tested): the pieces' texts concatenate to the source, so code,
positions and fixes are unchanged.

How a piece is parsed so that its nodes are those of the whole parse:

- a piece other than the first starts with ``if 1:`` and the whole file's first
  indentation, so LibCST infers the file's ``default_indent`` and ``default_newline``
  (blocks indented by the default store ``indent=None``, other ones the string);
- a piece that starts inside a class is parsed under a stand-in ``class _:`` header at
  the class's indentation; its members go into the real class's body;
- a piece only starts where the lines between two statements are empty lines or
  comments at the next statement's indentation: LibCST gives those to the next statement
  (``leading_lines``), whereas a comment indented deeper belongs to the footer of the
  block before it.

The statements and the first indentation come from ``ast``, or from the stdlib tokenizer
where ``ast`` cannot read the text (``jaxlint.base.statements``: the 3.11 ``ast`` does not
read 3.12 syntax such as ``def f[T]()``), which also counts the tokens of a text that may be
over the memory budget. Text neither reads cleanly, or a piece whose statements do not come
out as they counted them, is parsed whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import libcst as cst
from libcst._nodes.base import CSTNode

from jaxlint.base.statements import ast_statements, split_lines, statements
from jaxlint.plan.standins import STRING_LITERAL

# characters per piece: LibCST's scratch memory for one piece stays near 30 MiB
PIECE = 32 * 1024
# The memory budget. LibCST's parser holds about 1 KB per token of the statement it is
# parsing (a 200,000-element list: 400,000 tokens, 450 MB), and a file costs about 1.2 KB
# per token in all (100,000 lines of ``x = x + 1``: 400,000 tokens, 470 MB at the peak).
MAX_STATEMENT_TOKENS = 500_000
MAX_FILE_TOKENS = 2_000_000


# a token, roughly as Python's tokenizer cuts them (a string or a comment is one), for the
# estimate of a text too large to read at all; counted in C, without a list of tokens
_TOKEN = re.compile(r"#[^\r\n]*+|" + STRING_LITERAL + r"|\w++|\S")


def too_many_tokens(text: str) -> TooLarge | None:
    """For the first pass, which reads the whole text with ``ast`` (about as costly per
    token): the budget's verdict, from an estimate. A text with fewer characters than the
    budget has tokens cannot be over it."""
    if len(text) <= MAX_FILE_TOKENS:
        return None
    n = sum(1 for _ in _TOKEN.finditer(text))
    return TooLarge(1, n, True) if n > MAX_FILE_TOKENS else None


class TooLarge(Exception):
    """A statement, or the text, needs more memory to parse than the budget allows."""

    def __init__(self, line: int, tokens: int, whole: bool) -> None:
        super().__init__(line, tokens, whole)
        self.line, self.tokens, self.whole = line, tokens, whole

    def __str__(self) -> str:
        if self.whole:
            return (
                f"The file has {self.tokens:,} tokens, more than jaxlint's memory budget allows in one file "
                f"({MAX_FILE_TOKENS:,}, about 2.5 GB); the file was not checked"
            )
        return (
            f"The statement at line {self.line} has {self.tokens:,} tokens, more than LibCST can parse within "
            f"jaxlint's memory budget ({MAX_STATEMENT_TOKENS:,}, about 600 MB); the file was not checked"
        )


def _native_parse(text: str) -> cst.Module:
    """``libcst.parse_module`` without validating each node it builds. LibCST's nodes check
    their invariants in ``__post_init__`` (about a tenth of a parse); the parser's own nodes
    always hold them — its authors note the check is wasted on a parse (``CSTNode``'s
    ``__post_init__``) — and a text the parser rejects still raises ``ParserSyntaxError``.
    Nodes a rule builds (fixes, ``with_changes``) are still checked."""
    CSTNode.__post_init__ = _no_check  # type: ignore[method-assign]
    try:
        return cst.parse_module(text)
    finally:
        CSTNode.__post_init__ = _check  # type: ignore[method-assign]


_check = CSTNode.__post_init__


def _no_check(self: CSTNode) -> None:
    pass


class _Mismatch(Exception):
    """A piece did not parse into the statements the tokenizer found: parse the text whole."""


def parse_module(text: str, piece: int | None = None, first_lines: dict | None = None) -> cst.Module:
    """``libcst.parse_module(text)``, with a bounded peak of memory for a large text
    (pieces of ``piece`` characters, default ``PIECE``). When it was parsed in pieces,
    ``first_lines`` receives the line each top-level statement and class member starts
    on, the memo ``jaxlint.base.positions`` would otherwise compute with ``ast``. Raises
    TooLarge, before any parsing, for a text over the memory budget."""
    piece = piece or PIECE
    if len(text) <= piece:
        return _native_parse(text)
    plan = _plan(text, piece)
    if plan is None:
        return _native_parse(text)
    lines, indent, pieces, tops = plan
    try:
        module = _stitched(lines, indent, pieces)
    except (_Mismatch, cst.ParserSyntaxError):  # the tokenizer and LibCST disagree: LibCST decides
        return _native_parse(text)
    if first_lines is not None:
        first_lines.update(_first_lines(module, tops))
    return module


def _first_lines(module: cst.Module, tops) -> dict[cst.CSTNode, int]:
    out: dict[cst.CSTNode, int] = {}
    for stmt, (first, _, _, members) in zip(module.body, tops, strict=False):
        out[stmt] = first
        if isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
            if len(members) != len(stmt.body.body):
                return {}
            out.update((m, line) for m, (line, _) in zip(stmt.body.body, members, strict=False))
    return out


# A piece: (first line, last line, members, tops). ``members`` leading member statements of
# the class being continued (0: the piece starts at top level), then ``tops`` top-level
# statements (the last one may be a class whose members continue in the next piece).
Piece = tuple[int, int, int, int]


def _plan(text: str, piece: int):
    """Lines, the file's first indentation and its line, the pieces and the statements (see
    jaxlint.base.statements); None: parse the text whole."""
    lines = split_lines(text)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    found = ast_statements(text, lines)
    if found is None or not _surely_within_budget(found[0], offsets):
        tokens: list[int] = []
        found = statements(lines, tokens)
        if found is None:
            return None
        _within_budget(found[0], tokens)
    statement_lines, indent = found
    # atoms: (first line, last line, member?) — one LibCST statement each
    atoms: list[tuple[int, int, bool]] = []
    for first, last, _, member_lines in statement_lines:
        if offsets[last] - offsets[first - 1] > piece and len(member_lines) > 1:
            atoms.append((first, member_lines[0][1], False))  # the header and the first member
            atoms.extend((a, b, True) for a, b in member_lines[1:])
        else:
            atoms.append((first, last, False))
    pieces: list[Piece] = []
    start, members, tops = 1, 0, 0  # the open piece
    for i, (first, last, member) in enumerate(atoms):
        if i and offsets[last] - offsets[start - 1] > piece and _clean_gap(lines, atoms[i - 1][1], first, member):
            pieces.append((start, atoms[i - 1][1], members, tops))
            start, members, tops = atoms[i - 1][1] + 1, 0, 0
        if member and not tops:
            members += 1
        elif not member:
            tops += 1
    pieces.append((start, len(lines), members, tops))
    if len(pieces) == 1:
        return None
    return lines, indent, pieces, statement_lines


def _within_budget(statement_lines, tokens: list[int]) -> None:
    """Raise TooLarge for a file, or a statement LibCST would parse alone, over the budget.
    ``tokens`` per top-level statement, each followed by its members' (base.statements)."""
    total = 0
    i = 0
    for first, _, _, members in statement_lines:
        whole, parts = tokens[i], tokens[i + 1 : i + 1 + len(members)]
        i += 1 + len(members)
        total += whole
        # a large class is parsed member by member (see _plan): its biggest member counts
        alone = max(parts) if len(parts) > 1 and whole > MAX_STATEMENT_TOKENS else whole
        if alone > MAX_STATEMENT_TOKENS:
            line = first
            if alone != whole:
                line = members[parts.index(alone)][0]
            raise TooLarge(line, alone, False)
    if total > MAX_FILE_TOKENS:
        raise TooLarge(1, total, True)


def _surely_within_budget(statement_lines, offsets: list[int]) -> bool:
    """Is the text within the budget without counting its tokens? A token has at least one
    character, but for a DEDENT, which closes an INDENT of at least one: text with fewer
    than half as many characters as a budget has tokens is within it."""
    if 2 * offsets[-1] <= MAX_STATEMENT_TOKENS:
        return True
    if 2 * offsets[-1] > MAX_FILE_TOKENS:
        return False
    for first, last, _, members in statement_lines:
        spans = [(first, last)] if len(members) < 2 else [(first, members[0][1]), *((a, b) for a, b in members[1:])]
        if any(2 * (offsets[b] - offsets[a - 1]) > MAX_STATEMENT_TOKENS for a, b in spans):
            return False
    return True


def _clean_gap(lines: list[str], last: int, first: int, member: bool) -> bool:
    """May a piece start after line ``last``? Only if every line up to ``first`` is empty or a
    comment at the indentation of the statement starting at ``first``."""
    head = lines[first - 1]
    indent = head[: len(head) - len(head.lstrip(" \t"))] if member else ""
    for n in range(last, first - 1):
        line = lines[n]
        body = line.rstrip("\r\n")
        if body and not (body.startswith(indent) and body[len(indent) :].startswith("#")):
            return False
    return True


def _stitched(lines: list[str], first_indent: tuple[str, int], pieces: list[Piece]) -> cst.Module:
    indent, indent_line = first_indent
    body: list[cst.SimpleStatementLine | cst.BaseCompoundStatement] = []
    # the class whose members continue: its index in ``body``, the class, its block
    open_class: tuple[int, cst.ClassDef, cst.IndentedBlock] | None = None
    members: list[cst.BaseStatement] = []
    footer: Sequence[cst.EmptyLine] | None = None
    first: cst.Module | None = None
    last: cst.Module | None = None
    nl = "\n"  # the first piece's newline, once it is parsed

    def close_class() -> None:
        nonlocal open_class, footer
        if open_class is not None:
            index, cls, block = open_class
            block = block.with_changes(body=tuple(members), **({"footer": footer} if footer is not None else {}))
            body[index] = cls.with_changes(body=block)
        open_class, footer = None, None

    for n, (start, end, n_members, n_tops) in enumerate(pieces):
        text = "".join(lines[start - 1 : end])
        if n == 0:
            module = first = _native_parse(text)
            nl = module.default_newline
            stmts = list(module.body)
            if 0 < indent_line <= end and module.default_indent != indent:  # it has the first block
                raise _Mismatch
        else:
            head = f"if 1:{nl}{indent}pass{nl}" + (f"class _:{nl}" if n_members else "")
            module = _native_parse(head + text)
            stmts = list(module.body[1:])
            if not isinstance(module.body[0], cst.If) or module.header:
                raise _Mismatch
            if n_members:
                stand_in = stmts.pop(0)
                if open_class is None or not isinstance(stand_in, cst.ClassDef):
                    raise _Mismatch
                block = stand_in.body
                if (
                    not isinstance(block, cst.IndentedBlock)
                    or block.indent != open_class[2].indent
                    or len(block.body) != n_members
                ):
                    raise _Mismatch
                members.extend(block.body)
                footer = block.footer
        if len(stmts) != n_tops:
            raise _Mismatch
        if n_tops:
            close_class()
            body.extend(stmts)
            if n + 1 < len(pieces) and pieces[n + 1][2]:  # the next piece continues the last class
                cls = body[-1]
                if not isinstance(cls, cst.ClassDef) or not isinstance(cls.body, cst.IndentedBlock):
                    raise _Mismatch
                open_class, members, footer = (len(body) - 1, cls, cls.body), list(cls.body.body), None
        last = module
    close_class()
    assert first is not None and last is not None
    return cst.Module(
        body=body,
        header=first.header,
        footer=last.footer,
        encoding=first.encoding,
        default_indent=indent,
        default_newline=first.default_newline,
        has_trailing_newline=last.has_trailing_newline,
    )
