"""IPython syntax in a notebook cell, turned into Python without moving any position.

A cell whose first line is indented runs dedented: IPython strips that indentation from
every line that starts with it (``leading_indent``), so the cell's Python has it removed
too; ``indent`` and ``dedented`` say where, so positions can be moved back.

A cell may hold line magics (``%time f(x)``), shell escapes (``!pip install jax``,
``files = !ls``), help requests (``jax.vmap?``), automagics (``pip install jax``) and, on
its first line, a cell magic (``%%capture``). Each such line becomes an empty line (or
``pass`` at its indentation, so an indented block stays a block); every other line and
every column are kept. Cell magics whose body is Python run in the notebook's namespace
(``%%time``, ``%%capture``, …): their first line is masked and the body linted. Any other
cell magic (``%%bash``, ``%%writefile``, ``%%html``, unknown ones) makes the whole cell
opaque: it is not Python, or not this module's Python.

Only lines that start a logical line count: a ``%d`` inside a triple-quoted string or
an open bracket is Python text, as IPython's own transformer sees it.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass

# cell magics that run their body as Python in the notebook's namespace
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun"})

# line magics IPython runs without ``%`` (automagic); a line is one only when it is not
# Python on its own (``pip install x`` is a magic, ``time = 3`` is not, nor is
# ``env = make(\n ...)``, which IPython's AssignmentChecker leaves alone). IPython applies
# automagic only to one-line cells; masking such a line in a longer cell is lenient.
AUTOMAGICS = frozenset(
    {
        "alias",
        "cd",
        "conda",
        "env",
        "history",
        "load_ext",
        "ls",
        "mamba",
        "matplotlib",
        "micromamba",
        "pip",
        "popd",
        "pushd",
        "pwd",
        "reload_ext",
        "reset",
        "run",
        "set_env",
        "time",
        "timeit",
        "who",
        "whos",
    }
)

_ASSIGN_ESCAPE = re.compile(r"^[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[!%]")
_HELP = re.compile(r"^(?:\?{1,2}\s*[\w.*]+|[\w.*\[\]()'\"]+\s*\?{1,2})$")
_WORD = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True, slots=True)
class CellCode:
    """A cell as Python: ``text`` has as many lines as the source, ``masked`` the
    (1-based) lines that were IPython syntax; ``opaque``: nothing in it is linted."""

    text: str
    masked: frozenset[int]
    opaque: bool
    indent: str = ""  # what IPython strips from the start of the ``dedented`` lines
    dedented: frozenset[int] = frozenset()


def _lines(source: str) -> list[str]:
    return source.splitlines(keepends=True)


def _ending(line: str) -> str:
    body = line.rstrip("\r\n")
    return line[len(body) :]


def _replacement(line: str) -> str:
    body = line.rstrip("\r\n")
    indent = body[: len(body) - len(body.lstrip(" \t"))]
    return (indent + "pass" if indent else "") + _ending(line)


def cell_code(source: str) -> CellCode:
    """The cell's Python text (same line count; columns too, but for a dedented cell), its
    masked lines, opacity."""
    lines = _lines(source)
    if not lines:
        return CellCode("", frozenset(), False)
    indent, dedented = _leading_indent(lines)
    if indent:
        lines = [x[len(indent) :] if i + 1 in dedented else x for i, x in enumerate(lines)]
    code = _masked(lines)
    return CellCode(code.text, code.masked, code.opaque, indent, dedented) if indent else code


def _leading_indent(lines: list[str]) -> tuple[str, frozenset[int]]:
    """IPython's ``leading_empty_lines`` + ``leading_indent``: the first non-blank line's
    indentation and the (1-based) lines that start with it."""
    first = next((x for x in lines if x.strip()), "")
    indent = first[: len(first) - len(first.lstrip(" \t"))]
    if not indent:
        return "", frozenset()
    return indent, frozenset(i + 1 for i, x in enumerate(lines) if x.startswith(indent))


def _masked(lines: list[str]) -> CellCode:
    first = lines[0].lstrip(" \t")
    if first.startswith("%%"):
        name = _WORD.match(first[2:])
        if name is None or name.group(0) not in PYTHON_CELL_MAGICS:
            return CellCode("".join(_ending(x) for x in lines), frozenset(range(1, len(lines) + 1)), True)
        masked = {1}
        out = [_ending(lines[0])]
        start = 1
    else:
        masked = set()
        out = []
        start = 0
    continuation = False  # the previous magic line ended with a backslash
    for number, line in _logical_starts(lines, start):
        if number is None:
            if continuation:  # the rest of a magic continued with a backslash
                masked.add(len(out) + 1)
                out.append(_ending(line))
                continuation = line.rstrip("\r\n").endswith("\\")
            else:
                out.append(line)
            continue
        continuation = False
        if is_magic(line):
            masked.add(len(out) + 1)
            out.append(_replacement(line))
            continuation = line.rstrip("\r\n").endswith("\\")
        else:
            out.append(line)
    return CellCode("".join(out), frozenset(masked), False)


def is_magic(line: str) -> bool:
    """Is this line (which starts a logical line) IPython syntax rather than Python?"""
    s = line.strip()
    if not s or s.startswith("#"):
        return False
    if s[0] in "%!" or _ASSIGN_ESCAPE.match(s):
        return True
    if "?" in s and _HELP.match(s):
        return True
    word = _WORD.match(s)
    if word and word.group(0) in AUTOMAGICS and len(s) > len(word.group(0)) and s[len(word.group(0))] in " \t":
        rest = s[len(word.group(0)) :].lstrip(" \t")
        if rest[:1] in ("=", ",") and rest[:2] != "==":
            return False  # `env = f(...)`: an assignment (IPython's AssignmentChecker)
        if _scan(line, 0, "") != (0, ""):
            return False  # opens a bracket or string that later lines close: Python
        return not _parses(s)
    return False


def _parses(s: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(s)
    except (SyntaxError, ValueError):
        return False
    return True


def _logical_starts(lines: list[str], start: int):
    """(line number or None, line): the number only for lines that start a logical line."""
    depth = 0  # open brackets
    quote = ""  # the open triple quote, if any
    joined = False  # the previous line ended with a backslash
    for i in range(start, len(lines)):
        line = lines[i]
        starts = depth == 0 and not quote and not joined
        yield (i + 1 if starts else None), line
        depth, quote = _scan(line, depth, quote)
        body = line.rstrip("\r\n")
        joined = body.endswith("\\") and not quote


def _scan(line: str, depth: int, quote: str) -> tuple[int, str]:
    """Bracket depth and open triple quote after ``line`` (strings and comments skipped)."""
    i, n = 0, len(line)
    while i < n:
        if quote:
            j = line.find(quote, i)
            while j > 0 and _escaped(line, j):
                j = line.find(quote, j + 1)
            if j < 0:
                return depth, quote
            i = j + 3
            quote = ""
            continue
        c = line[i]
        if c == "#":
            break
        if c in "\"'":
            if line.startswith(c * 3, i):
                quote = c * 3
                i += 3
                continue
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(0, depth - 1)
        i += 1
    return depth, quote


def _escaped(line: str, j: int) -> bool:
    k = j - 1
    count = 0
    while k >= 0 and line[k] == "\\":
        count += 1
        k -= 1
    return count % 2 == 1
