"""Diagnostics found in a notebook's virtual module, moved to the cells people see.

``start``/``end`` and fix edits become positions in a cell (``Diagnostic.cell``, 1-based
over all cells as ruff counts); ``file_start``/``file_end`` are the same places in the
JSON text, for formats that can only address the file (github, SARIF). Lines that rules
quote in messages are virtual lines too: ``at line 36`` in a notebook becomes ``at cell
5, line 3``, and ``demo.ipynb:36`` anywhere becomes ``demo.ipynb:cell 5:3``.

Runs after suppressions and fixes, which work on the virtual module.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterable

from jaxlint.base.types import Diagnostic, Edit, Fix, Position
from jaxlint.files.notebook import Cell, Notebook, NotebookError, is_notebook, parse

_OWN_LINE = re.compile(r"\bline (\d+)\b")
_NOTEBOOK_LINE = re.compile(r"(?<![\w.-])([\w.-]+\.ipynb):(\d+)\b")


def to_cells(
    diagnostics: list[Diagnostic], notebooks: Iterable[str], text_of: Callable[[str], str | None]
) -> list[Diagnostic]:
    """Map every notebook position (in positions and messages) to cells; others unchanged."""
    paths = [p for p in notebooks if is_notebook(p)]
    if not paths:
        return diagnostics
    loaded: dict[str, Notebook | None] = {}

    def load(path: str) -> Notebook | None:
        if path not in loaded:
            text = text_of(path)
            try:
                nb = parse(text) if text is not None else None
            except NotebookError:
                nb = None
            loaded[path] = nb if nb is not None and nb.cells else None
        return loaded[path]

    by_name: dict[str, list[str]] = {}
    for p in paths:
        by_name.setdefault(os.path.basename(p), []).append(p)

    def cited(m: re.Match) -> str:
        found = by_name.get(m.group(1), [])
        nb = load(found[0]) if len(found) == 1 else None
        if nb is None:
            return m.group(0)
        cell, line = nb.locate(int(m.group(2)))
        return f"{m.group(1)}:cell {cell.number}:{line}"

    out = []
    for d in diagnostics:
        message = _NOTEBOOK_LINE.sub(cited, d.message) if ".ipynb:" in d.message else d.message
        nb = load(d.path) if is_notebook(d.path) and d.cell is None else None
        if nb is not None:
            d = _moved(d, nb, message)
        elif message != d.message:
            d = dataclasses.replace(d, message=message)
        out.append(d)
    return out


def _moved(d: Diagnostic, nb: Notebook, message: str) -> Diagnostic:
    cell, start = _position(nb, d.start)
    end_cell, end = _position(nb, d.end)
    if end_cell is not cell or (end.line, end.column) < (start.line, start.column):
        end = _end_of(cell)

    def own(m: re.Match) -> str:
        c, line = nb.locate(int(m.group(1)))
        return f"cell {c.number}, line {line}"

    fix = d.fix
    if fix is not None:
        fix = Fix(fix.message, tuple(_edit(nb, e) for e in fix.edits), fix.applicability)
    return dataclasses.replace(
        d,
        message=_OWN_LINE.sub(own, message),
        start=start,
        end=end,
        fix=fix,
        cell=cell.number,
        file_start=nb.file_position(cell, start.line, start.column),
        file_end=nb.file_position(cell, end.line, end.column),
    )


def _position(nb: Notebook, p: Position) -> tuple[Cell, Position]:
    cell, line = nb.locate(p.line)
    return cell, Position(line, cell.source_column(line, p.column))


def _end_of(cell: Cell) -> Position:
    """Just past the cell's last character."""
    lines = cell.source.splitlines(keepends=True)
    if not lines or lines[-1].endswith(("\n", "\r")):
        return Position(len(lines) + 1, 1)
    return Position(len(lines), len(lines[-1]) + 1)


def _edit(nb: Notebook, e: Edit) -> Edit:
    cell, start = _position(nb, e.start)
    end_cell, end = _position(nb, e.end)
    if end_cell is not cell:
        end = _end_of(cell)  # a line deletion reaching the next cell's first column
    return Edit(start, end, cell.source_text(e.content), cell.number)
