"""Jupyter notebooks (nbformat 4 JSON) as one Python module, read with the stdlib only.

The code cells, in cell order, are joined into one *virtual module*: each cell's text
(IPython syntax masked line for line, see ``jaxlint.files.magics``) followed by a newline if it
has none. Everything downstream — trigger words, slicing, cache, rules, suppressions —
works on that module, so a ``def`` in cell 2 is visible to the ``pmap`` in cell 5.
``Notebook.locate`` maps a module line back to (cell number, line in the cell).

Cells are numbered as ruff numbers them: 1-based over *all* cells of the notebook,
markdown included, so ``cell 5`` is the fifth cell a reader sees. A notebook whose
language is not Python (``metadata.language_info.name`` / ``kernelspec.language``)
has no code to lint; so has a cell whose VS Code ``languageId`` is not Python.

The reader also records where each cell's ``source`` value lies in the JSON text
(``Cell.span``, ``Cell.items``): fixes are spliced into the original text there, and
CI formats point at the JSON line holding a source line.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from jaxlint.base.types import Position
from jaxlint.files.magics import cell_code

SUFFIX = ".ipynb"


def is_notebook(path: str) -> bool:
    return path.endswith(SUFFIX)


class NotebookError(Exception):
    """The file is not an nbformat 4 notebook; ``line``/``column`` in the JSON text."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.line, self.column = line, column


@dataclass(slots=True)
class Cell:
    number: int  # 1-based over all cells (ruff's convention)
    source: str  # the cell's source as stored
    code: str  # Python text: masked IPython lines, ends with a newline unless empty
    masked: frozenset[int]  # 1-based lines of IPython syntax
    opaque: bool  # a cell magic whose body is not this module's Python
    first: int  # 1-based line of the virtual module where the cell starts
    span: tuple[int, int]  # offsets of the ``source`` value in the JSON text
    items: tuple[tuple[int, int], ...] | None  # offsets of each string of a list value
    indent: str = ""  # IPython strips it from the ``dedented`` lines (see jaxlint.files.magics)
    dedented: frozenset[int] = frozenset()
    raises: bool = False  # tagged ``raises-exception``: the cell is expected to raise

    @property
    def line_count(self) -> int:
        return self.code.count("\n")

    def source_column(self, line: int, column: int) -> int:
        """The column in the cell's source of (line, column) of its Python text."""
        return column + len(self.indent) if line in self.dedented else column

    def source_text(self, content: str) -> str:
        """Text for the cell's source that reads as ``content`` once IPython dedents it."""
        return content.replace("\n", "\n" + self.indent) if self.indent else content


@dataclass(slots=True)
class Notebook:
    text: str  # the JSON text
    cells: list[Cell]  # the linted code cells, in order
    python: str  # the virtual module

    def locate(self, line: int) -> tuple[Cell, int]:
        """The cell holding virtual ``line`` and the line within it (past the end: the last cell)."""
        i = max(0, bisect.bisect_right([c.first for c in self.cells], line) - 1)
        cell = self.cells[i]
        return cell, min(max(1, line - cell.first + 1), max(1, cell.line_count + 1))

    def cell(self, number: int) -> Cell | None:
        for c in self.cells:
            if c.number == number:
                return c
        return None

    def file_position(self, cell: Cell, line: int, column: int) -> Position:
        """Where (line, column) of a cell's source lies in the JSON text (1-based)."""
        offset = self._offset(cell, line, column)
        before = self.text[:offset]
        row = before.count("\n") + 1
        return Position(row, offset - (before.rfind("\n") + 1) + 1)

    def _offset(self, cell: Cell, line: int, column: int) -> int:
        lines = cell.source.splitlines(keepends=True) or [""]
        line = min(line, len(lines))
        target = sum(len(x) for x in lines[: line - 1]) + column - 1  # in the decoded source
        if cell.items is None:
            return _raw_offset(self.text, cell.span[0], target)
        for a, b in cell.items:  # a list of strings, usually one per line
            n = len(json.loads(self.text[a:b]))
            if target < n or (a, b) == cell.items[-1]:
                return _raw_offset(self.text, a, min(target, n))
            target -= n
        return cell.span[0]


def _raw_offset(text: str, quote: int, n: int) -> int:
    """Offset in ``text`` of the ``n``-th decoded character of the JSON string at ``quote``."""
    i = quote + 1
    end = len(text)
    while n > 0 and i < end and text[i] != '"':
        if text[i] == "\\":
            if text[i + 1] == "u":
                code = int(text[i + 2 : i + 6], 16)
                i += 12 if 0xD800 <= code < 0xDC00 and text.startswith("\\u", i + 6) else 6
            else:
                i += 2
        else:
            i += 1
        n -= 1
    return i


def _language(meta: object) -> str:
    if not isinstance(meta, dict):
        return ""
    for key, field in (("language_info", "name"), ("kernelspec", "language")):
        v = meta.get(key)
        if isinstance(v, dict) and isinstance(v.get(field), str):
            return v[field].strip().lower()
    return ""


def parse(text: str) -> Notebook:
    """Read an nbformat 4 notebook; raises NotebookError when it is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise NotebookError(f"invalid JSON: {e.msg}", e.lineno, e.colno) from None
    except RecursionError:
        raise NotebookError("invalid JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise NotebookError("not a notebook: the JSON value is not an object")
    version = data.get("nbformat")
    if version != 4:
        if version is None:
            raise NotebookError("not a notebook: no `nbformat` version")
        raise NotebookError(
            f"nbformat {version!r} is not supported (only nbformat 4; `jupyter nbconvert --to notebook` upgrades it)"
        )
    cells = data.get("cells")
    if not isinstance(cells, list):
        raise NotebookError("not a notebook: no `cells` list")
    spans = _source_spans(text)
    python = _language(data.get("metadata")) in ("", "python", "python3", "ipython", "ipython3")
    out: list[Cell] = []
    first = 1
    for i, cell in enumerate(cells):
        if not isinstance(cell, dict):
            raise NotebookError(f"cell {i + 1} is not a JSON object")
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(s, str) for s in source):
            source = "".join(source)
        elif not isinstance(source, str):
            raise NotebookError(f"cell {i + 1}: `source` is not a string or a list of strings")
        if cell.get("cell_type") != "code" or not python or not _python_cell(cell) or i not in spans:
            continue
        code = cell_code(source)
        text_ = code.text if not code.text or code.text.endswith(("\n", "\r")) else code.text + "\n"
        text_ = _LONE_SURROGATE.sub("\ufffd", text_)  # valid JSON, no Python text: one character for one
        span, items = spans[i]
        c = Cell(
            i + 1,
            source,
            text_,
            code.masked,
            code.opaque,
            first,
            span,
            items,
            code.indent,
            code.dedented,
            _raises(cell),
        )
        first += c.line_count
        out.append(c)
    return Notebook(text, out, "".join(c.code for c in out))


# ``"\ud800"`` in a cell's JSON is a lone surrogate: no parser reads it (it has no UTF-8);
# the virtual module gets U+FFFD in its place, the cell's own source keeps it
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _python_cell(cell: dict) -> bool:
    meta = cell.get("metadata")
    lang = (
        meta.get("vscode", {}).get("languageId")
        if isinstance(meta, dict) and isinstance(meta.get("vscode"), dict)
        else None
    )
    return not isinstance(lang, str) or lang.lower() in ("python", "ipython")


def _raises(cell: dict) -> bool:
    """Is the cell tagged ``raises-exception``? Jupyter's convention (nbval, Jupyter Book and
    myst-nb run such a cell and expect it to raise): the error is the point of the cell."""
    meta = cell.get("metadata")
    tags = meta.get("tags") if isinstance(meta, dict) else None
    return isinstance(tags, list) and "raises-exception" in tags


def raising_lines(text: str) -> tuple[tuple[int, int], ...]:
    """The virtual module's line ranges (first, last) of the cells expected to raise; none for
    a text that is not a notebook."""
    try:
        cells = parse(text).cells
    except NotebookError:
        return ()
    return tuple((c.first, c.first + c.line_count - 1) for c in cells if c.raises and c.line_count)


def python_text(text: str) -> str:
    """The virtual module of a notebook's JSON text (raises NotebookError)."""
    return parse(text).python


# -- where the source values are in the JSON text -----------------------------------
_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _ws(text: str, i: int) -> int:
    m = _WS.match(text, i)  # a run of zero or more: it always matches
    return m.end() if m is not None else i


def _source_spans(text: str) -> dict[int, tuple[tuple[int, int], tuple[tuple[int, int], ...] | None]]:
    """cell index -> (span of its ``source`` value, spans of the strings of a list value).

    Called on text ``json.loads`` accepted. Values other than ``cells`` and ``source`` are
    skipped with the C decoder; a duplicate key counts as ``json.loads`` counts it (the last).
    """
    found: dict[int, tuple[tuple[int, int], tuple[tuple[int, int], ...] | None]] = {}

    def cell(index: int) -> Callable[[str, int], int]:
        def visit(key: str, j: int) -> int:
            end = _skip(text, j)
            if key == "source":
                found[index] = ((j, end), _strings(text, j) if text[j] == "[" else None)
            return end

        return visit

    def top(key: str, j: int) -> int:
        if key != "cells" or text[j] != "[":
            return _skip(text, j)
        found.clear()
        index = 0
        j = _ws(text, j + 1)
        while text[j] != "]":
            j = _object(text, j, cell(index)) if text[j] == "{" else _skip(text, j)
            index += 1
            j = _ws(text, j)
            if text[j] == ",":
                j = _ws(text, j + 1)
        return j + 1

    _object(text, _ws(text, 0), top)
    return found


def _object(text: str, i: int, visit: Callable[[str, int], int]) -> int:
    """Walk the members of the object at ``i``; ``visit(key, value offset)`` returns the
    value's end. Returns the offset after the closing brace."""
    i = _ws(text, i + 1)
    while text[i] != "}":
        key, i = _DECODER.raw_decode(text, i)
        i = _ws(text, _ws(text, i) + 1)  # past ":"
        i = _ws(text, visit(key, i))
        if text[i] == ",":
            i = _ws(text, i + 1)
    return i + 1


def _skip(text: str, i: int) -> int:
    return _DECODER.raw_decode(text, i)[1]


def _strings(text: str, i: int) -> tuple[tuple[int, int], ...]:
    """Spans of the strings of the array at ``i`` (each from its opening quote)."""
    out = []
    i = _ws(text, i + 1)
    while text[i] != "]":
        end = _skip(text, i)
        out.append((i, end))
        i = _ws(text, end)
        if text[i] == ",":
            i = _ws(text, i + 1)
    return tuple(out)
