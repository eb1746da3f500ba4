"""Notebook sync: an LSP notebook document (3.17) as the nbformat text ``jaxlint check`` reads.

The client sends the notebook's cells and each cell's text document. They are written
back into an nbformat 4 JSON text (each cell's kind, its source, the language of a cell
the editor marks as another one, the notebook's language), so every downstream stage —
the virtual module, the cell numbers in positions and messages, fixes of cell sources —
is the one a notebook on disk goes through (``jaxlint.files.notebook``,
``jaxlint.files.notebook_map``). Cells are numbered from 1 over all cells, markdown
included, as ``check`` numbers them; that is why the server asks for every cell.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from jaxlint.files.notebook import NotebookError, parse

PYTHON = ("python", "ipython")


@dataclass(frozen=True, slots=True)
class NotebookText:
    """A synced notebook: its nbformat text, and each cell's document (URI, text, version) by number."""

    text: str
    cells: tuple[str, ...]  # cell number - 1 -> the cell's text document URI
    texts: tuple[str, ...]
    versions: tuple[int | None, ...]

    def cell_uri(self, number: int) -> str | None:
        return self.cells[number - 1] if 1 <= number <= len(self.cells) else None

    def number_of(self, uri: str) -> int | None:
        try:
            return self.cells.index(uri) + 1
        except ValueError:
            return None


def notebook_text(
    notebook: types.NotebookDocument, cell_text: dict[str, tuple[str, str | None, int | None]]
) -> NotebookText:
    """The nbformat text of ``notebook``; ``cell_text``: a cell URI's (text, language, version)."""
    cells: list[dict[str, Any]] = []
    uris: list[str] = []
    texts: list[str] = []
    versions: list[int | None] = []
    for cell in notebook.cells:
        text, language, version = cell_text.get(cell.document, ("", None, None))
        code = cell.kind == types.NotebookCellKind.Code
        entry: dict[str, Any] = {"cell_type": "code" if code else "markdown", "metadata": {}, "source": text}
        if code:
            entry.update(execution_count=None, outputs=[])
            if language and language.lower() not in PYTHON:
                entry["metadata"] = {"vscode": {"languageId": language}}
        cells.append(entry)
        uris.append(cell.document)
        texts.append(text)
        versions.append(version)
    data = {"cells": cells, "metadata": _language(notebook.metadata), "nbformat": 4, "nbformat_minor": 5}
    return NotebookText(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n", tuple(uris), tuple(texts), tuple(versions)
    )


def _language(metadata: Any) -> dict[str, Any]:
    """The notebook's language (``language_info`` / ``kernelspec``), wherever the client keeps
    the file's metadata (VS Code: ``custom.metadata``); none known: Python, as on disk."""
    for candidate in (metadata, _get(metadata, "metadata"), _get(_get(metadata, "custom"), "metadata")):
        if isinstance(candidate, dict):
            found = {k: candidate[k] for k in ("language_info", "kernelspec") if isinstance(candidate.get(k), dict)}
            if found:
                return found
    return {}


def _get(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def cell_sources(text: str) -> dict[int, str]:
    """Cell number -> source of every cell of an nbformat text (after a fix, to edit the cells)."""
    try:
        data = json.loads(text)
        parse(text)
    except (ValueError, NotebookError):
        return {}
    out = {}
    for i, cell in enumerate(data.get("cells", [])):
        source = cell.get("source", "")
        out[i + 1] = "".join(source) if isinstance(source, list) else source
    return out
