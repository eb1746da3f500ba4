"""What to publish for each document: a file's diagnostics, or a notebook's, cell by cell,
with the places their messages name resolved to locations (``diagnostics.related``)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from lsprotocol import types
from pygls.uris import from_fs_path

from jaxlint.api import ReadError, read_source, source_lines
from jaxlint.base.types import Diagnostic
from jaxlint.server.actions import TextDoc
from jaxlint.server.diagnostics import ClientFeatures, line_range, to_lsp
from jaxlint.server.notebooks import NotebookText
from jaxlint.server.state import Buffer, Project


@dataclass(frozen=True, slots=True)
class Publication:
    """What to publish for one text document (a file, or one cell of a notebook)."""

    doc: TextDoc
    items: tuple[tuple[Diagnostic, types.Diagnostic], ...]
    path: str
    owner: str  # the URI of the file, or of the notebook a cell belongs to
    notebook: NotebookText | None = None

    @property
    def diagnostics(self) -> list[types.Diagnostic]:
        return [lsp for _, lsp in self.items]


def documents(project: Project, buf: Buffer, diags: list[Diagnostic], client: ClientFeatures) -> list[Publication]:
    """The publications of a buffer: one for a file; one per cell (all of them, so that a
    cell whose findings went is cleared) for a notebook."""
    locate = Locator(project, buf, client.encoding)
    if buf.notebook is None:
        lines = source_lines(buf.text)
        doc = TextDoc(buf.uri, buf.version, lines)
        return [Publication(doc, tuple((d, to_lsp(d, lines, client, locate)) for d in diags), buf.path, buf.uri)]
    from jaxlint.files.notebook import NotebookError, parse

    try:
        nb = parse(buf.text)
    except NotebookError:
        nb = None
    first = nb.cells[0].number if nb is not None and nb.cells else 1  # where a finding about the whole notebook goes
    out = []
    for number, uri in enumerate(buf.notebook.cells, 1):
        lines = source_lines(buf.notebook.texts[number - 1])
        cell = nb.cell(number) if nb is not None else None
        doc = TextDoc(uri, buf.notebook.versions[number - 1], lines, source_lines(cell.code) if cell else None)
        mine = [d for d in diags if d.cell == number or (d.cell is None and number == first)]
        items = tuple((d, to_lsp(d, lines, client, locate)) for d in mine)
        out.append(Publication(doc, items, buf.path, buf.uri, buf.notebook))
    return out


class Locator:
    """Where a place named in a message is, as an LSP location (``diagnostics.Locate``)."""

    def __init__(self, project: Project, buf: Buffer, encoding: str) -> None:
        self.project, self.buf, self.encoding = project, buf, encoding
        self._lines: dict[str, list[str] | None] = {}

    def __call__(self, name: str | None, cell: int | None, line: int) -> types.Location | None:
        nb = self.buf.notebook
        if name is None and cell is None:
            if nb is not None:
                return None  # a notebook's messages name cells
            rng = line_range(source_lines(self.buf.text), line, self.encoding)
            return types.Location(uri=self.buf.uri, range=rng) if rng else None
        if cell is not None and (name is None or (nb is not None and name == os.path.basename(self.buf.path))):
            uri = nb.cell_uri(cell) if nb is not None else None
            if nb is None or uri is None:
                return None
            rng = line_range(source_lines(nb.texts[cell - 1]), line, self.encoding)
            return types.Location(uri=uri, range=rng) if rng else None
        if name is None or not name.endswith(".py"):
            return None  # a cell of a notebook that is not open here
        path = self._resolve(name)
        lines = self._read(path) if path is not None else None
        rng = line_range(lines, line, self.encoding) if lines is not None else None
        if path is None or rng is None:
            return None
        return types.Location(uri=from_fs_path(os.path.abspath(path)) or path, range=rng)

    def _resolve(self, name: str) -> str | None:
        """The project's file a message names by its base name (one, or the one beside this file)."""
        found = self.project.by_name.get(name, [])
        if len(found) == 1:
            return found[0]
        here = os.path.dirname(self.buf.path)
        near = [f for f in found if os.path.dirname(f) == here]
        return near[0] if len(near) == 1 else None

    def _read(self, path: str) -> list[str] | None:
        if path not in self._lines:
            buf = self.project.buffers.get(path)
            if buf is not None and buf.notebook is None:
                self._lines[path] = source_lines(buf.text)
            else:
                try:
                    self._lines[path] = source_lines(read_source(path)[0])
                except ReadError:
                    self._lines[path] = None
        return self._lines[path]
