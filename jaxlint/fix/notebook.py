"""Fixes in a notebook: edit the cells' sources, splice them into the original JSON text.

Fix edits are positions in the virtual module (jaxlint.files.notebook). A fix applies only if
each of its edits lies inside one cell and leaves IPython lines alone (an insertion
before a line magic is fine; nothing goes into an opaque cell or above a cell magic).
Only the ``source`` values of changed cells are rewritten, in the layout the file
already uses (a list of lines or one string, its indentation, its separators, strings
kept byte for byte where a line did not change); metadata, outputs, execution counts,
key order and the final newline stay as they were. The result is parsed again and
compared with the intended sources before it is returned: a fix never yields a broken
notebook.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable

from jaxlint.base.types import Edit, Fix, Position
from jaxlint.files.notebook import Cell, Notebook, NotebookError, parse
from jaxlint.fix import edits as textfix


def apply_fixes(text: str, fixes: Iterable[Fix]) -> tuple[str, list[Fix]]:
    """The notebook JSON ``text`` with as many non-overlapping fixes applied as possible."""
    try:
        nb = parse(text)
    except NotebookError:
        return text, []
    if not nb.cells:
        return text, []
    placed: dict[int, list[tuple[Cell, Edit]]] = {}
    usable: list[Fix] = []
    for f in fixes:
        mapped = [m for e in f.edits if (m := _in_cell(nb, e)) is not None]
        if f.edits and len(mapped) == len(f.edits):
            usable.append(f)
            placed[id(f)] = mapped
    _, chosen = textfix.apply_fixes(nb.python, usable)  # the non-overlapping ones
    if not chosen:
        return text, []
    by_cell: dict[int, list[Edit]] = {}
    cells = {c.number: c for c in nb.cells}
    for f in chosen:
        for cell, e in placed[id(f)]:
            by_cell.setdefault(cell.number, []).append(e)
    sources: dict[int, str] = {}
    for number, edits in by_cell.items():
        cell = cells[number]
        code = cell.source if cell.source.endswith(("\n", "\r")) or not cell.source else cell.source + "\n"
        new, _ = textfix.apply_fixes(code, [Fix("", tuple(edits))])
        if code is not cell.source and new.endswith("\n"):
            new = new[:-1]  # the newline the virtual module added
        if new != cell.source:
            sources[number] = new
    if not sources:
        return text, []
    out = splice(nb, sources)
    return (out, chosen) if out is not None else (text, [])


def _in_cell(nb: Notebook, e: Edit) -> tuple[Cell, Edit] | None:
    """The edit in its cell's coordinates, or None if it crosses cells or IPython lines."""
    cell, _ = nb.locate(e.start.line)
    if cell.opaque:
        return None
    last = cell.first + cell.line_count  # the next cell's first line
    for p in (e.start, e.end):
        if p.line > last or (p.line == last and p.column > 1):
            return None
    start = Position(e.start.line - cell.first + 1, e.start.column)
    end = Position(e.end.line - cell.first + 1, e.end.column)
    if start == end:  # an insertion: before a line, never inside IPython syntax or above a cell magic
        if start.line in cell.masked and (
            start.column > 1 or (cell.source.lstrip(" \t").startswith("%%") and start.line == 1)
        ):
            return None
    else:
        touched = set(range(start.line, end.line)) | ({end.line} if end.column > 1 else set())
        if touched & cell.masked:
            return None
    start = Position(start.line, cell.source_column(start.line, start.column))
    end = Position(end.line, cell.source_column(end.line, end.column))
    return cell, Edit(start, end, cell.source_text(e.content))


# -- writing the JSON back -------------------------------------------------------------
def splice(nb: Notebook, sources: dict[int, str]) -> str | None:
    """``nb.text`` with the given cells' sources replaced; None if the result would not
    read back as exactly those sources."""
    text = nb.text
    ascii_only = _ascii_only(text)
    parts = []
    pos = 0
    for cell in sorted((c for c in nb.cells if c.number in sources), key=lambda c: c.span[0]):
        a, b = cell.span
        parts.append(text[pos:a])
        parts.append(_value(text, cell, sources[cell.number], ascii_only))
        pos = b
    parts.append(text[pos:])
    out = "".join(parts)
    try:
        data = json.loads(out)
        cells = data["cells"]
        for c in nb.cells:
            got = cells[c.number - 1]["source"]
            got = "".join(got) if isinstance(got, list) else got
            if got != sources.get(c.number, c.source):
                return None
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    return out


def _ascii_only(text: str) -> bool:
    """Does the file escape non-ASCII characters (``json.dumps``' default) or not (Jupyter's)?"""
    if not text.isascii():
        return False
    return any(int(m.group(1), 16) >= 0x80 for m in re.finditer(r"\\u([0-9a-fA-F]{4})", text))


def _json(value: str, ascii_only: bool) -> str:
    """A JSON string; a lone surrogate (``"\\ud800"`` in the cell) stays an escape, never a
    character UTF-8 cannot write."""
    return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=ascii_only))


def _value(text: str, cell: Cell, source: str, ascii_only: bool) -> str:
    """The JSON for ``source`` in the layout of the cell's current value."""
    if cell.items is None:
        return _json(source, ascii_only)
    known: dict[str, str] = {}
    for a, b in cell.items:
        known.setdefault(json.loads(text[a:b]), text[a:b])
    lines = source.splitlines(keepends=True)
    items = [known.get(x) or _json(x, ascii_only) for x in lines]
    if not items:
        return "[]"
    a, b = cell.span
    old = text[a:b]
    if "\n" not in old and cell.items:
        sep = ", " if ", " in old or len(cell.items) < 2 else ","
        return "[" + sep.join(items) + "]"
    key_indent = _indent_at(text, a)
    if cell.items:
        item_indent = _indent_at(text, cell.items[0][0])
        close = _indent_at(text, b - 1) if text[b - 1] == "]" and "\n" in old else key_indent
    else:
        item_indent = key_indent + _unit(text)
        close = key_indent
    nl = "\r\n" if "\r\n" in old or ("\r\n" in text and "\n" not in old) else "\n"
    return "[" + nl + ("," + nl).join(item_indent + x for x in items) + nl + close + "]"


def _indent_at(text: str, i: int) -> str:
    """The whitespace from the start of ``i``'s line up to the first character."""
    start = text.rfind("\n", 0, i) + 1
    line = text[start:i]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _unit(text: str) -> str:
    """The file's indentation step (Jupyter writes one space)."""
    m = re.search(r"\{\r?\n([ \t]+)\"", text)
    return m.group(1) if m else " "


# -- --diff ----------------------------------------------------------------------------
def unified_diff(path: str, old: str, new: str) -> str:
    """Per-cell unified diffs (``--- a/demo.ipynb:cell 5``), as ruff prints notebook diffs."""
    try:
        before = {c.number: c.source for c in parse(old).cells}
        after = {c.number: c.source for c in parse(new).cells}
    except NotebookError:
        return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{path}", f"b/{path}"))
    out = []
    for number in sorted(before):
        a, b = before[number], after.get(number, before[number])
        if a == b:
            continue
        a_lines = [x if x.endswith("\n") else x + "\n" for x in a.splitlines(True)]
        b_lines = [x if x.endswith("\n") else x + "\n" for x in b.splitlines(True)]
        out.append(
            "".join(difflib.unified_diff(a_lines, b_lines, f"a/{path}:cell {number}", f"b/{path}:cell {number}"))
        )
    return "".join(out)
