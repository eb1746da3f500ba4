"""Code actions: a diagnostic's fix, "suppress JAXnnn on this line", "fix all safe fixes".

Nothing else is offered (no organising, no refactoring):

- each fix a diagnostic carries, safe ones preferred, unsafe ones titled as such (they
  change behaviour; ``check`` applies them only with ``--unsafe-fixes``);
- ``# noqa: JAXnnn`` where ``jaxlint check --add-noqa`` writes it: at the end of the
  reported line (or of the line a multi-line string or a backslash continuation on it
  ends on), merged into a ``# noqa: ...`` already there; always in a comment, never in a
  string, and read back as ``jaxlint.lint.suppress`` reads it (not offered where the
  result would not suppress the code);
- ``source.fixAll.jaxlint``: every safe fix of the file applied to a fixed point, as
  ``jaxlint check --fix`` does; its edit is computed when the client resolves the action
  (or runs the ``jaxlint.applyFixAll`` command), not on every request.

Edits are versioned: a client applies them only to the text they were computed for.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from lsprotocol import types

from jaxlint.base.types import Diagnostic, Edit, Position
from jaxlint.fix.noqa import add_to_text
from jaxlint.lint.suppress import scan_suppressions
from jaxlint.server.diagnostics import lsp_position, units

FIX_ALL = "source.fixAll.jaxlint"
FIX_ALL_COMMAND = "jaxlint.applyFixAll"
NOT_SUPPRESSIBLE = ("JAX001", "JAX002", "JAX003")  # the file's state, or JAX002 itself (never suppressed)


@dataclass(frozen=True, slots=True)
class TextDoc:
    """A text document as last published: its URI, version, lines (LSP lines) and source
    lines as the tokenizer reads them (for a notebook cell: its Python text)."""

    uri: str
    version: int | None
    lines: list[str]
    python: list[str] | None = None  # the lines jaxlint read, when they differ from ``lines``


# a notebook cell's document by number; a file's own document for None
DocOf = Callable[[int | None], TextDoc | None]


def overlaps(a: types.Range, b: types.Range) -> bool:
    """Ranges touching count: a cursor at the end of a squiggle is on it."""
    return not ((a.end.line, a.end.character) < (b.start.line, b.start.character)) and not (
        (b.end.line, b.end.character) < (a.start.line, a.start.character)
    )


def wanted(kind: str, only: Iterable[str] | None) -> bool:
    """LSP kinds are hierarchical: asking for ``source.fixAll`` includes ``source.fixAll.jaxlint``."""
    if only is None:
        return True
    return any(kind == o or kind.startswith(o + ".") for o in only)


def workspace_edit(changes: dict[str, tuple[int | None, list[types.TextEdit]]], versioned: bool) -> types.WorkspaceEdit:
    if versioned:
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                    edits=list(edits),
                )
                for uri, (version, edits) in changes.items()
            ]
        )
    return types.WorkspaceEdit(changes={uri: list(edits) for uri, (_, edits) in changes.items()})


def _text_edits(
    edits: Iterable[Edit], doc_of: DocOf, encoding: str
) -> dict[str, tuple[int | None, list[types.TextEdit]]] | None:
    out: dict[str, tuple[int | None, list[types.TextEdit]]] = {}
    for e in edits:
        doc = doc_of(e.cell)
        if doc is None:
            return None
        out.setdefault(doc.uri, (doc.version, []))[1].append(
            types.TextEdit(
                range=types.Range(
                    start=lsp_position(e.start, doc.lines, encoding), end=lsp_position(e.end, doc.lines, encoding)
                ),
                new_text=e.content,
            )
        )
    return out


def fix_action(
    d: Diagnostic, shown: types.Diagnostic, doc_of: DocOf, encoding: str, versioned: bool
) -> types.CodeAction | None:
    if d.fix is None:
        return None
    changes = _text_edits(d.fix.edits, doc_of, encoding)
    if changes is None:
        return None
    safe = d.fix.applicability == "safe"
    title = f"jaxlint ({d.code}): {d.fix.message}" + ("" if safe else " (unsafe fix: changes behaviour, review it)")
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[shown],
        is_preferred=safe,
        edit=workspace_edit(changes, versioned),
    )


def suppress_action(
    d: Diagnostic, shown: types.Diagnostic, doc: TextDoc, encoding: str, versioned: bool
) -> types.CodeAction | None:
    if d.code in NOT_SUPPRESSIBLE:
        return None
    edit = noqa_edit(doc.lines, doc.python or doc.lines, d.start.line, d.code, encoding)
    if edit is None:
        return None
    return types.CodeAction(
        title=f"jaxlint ({d.code}): Suppress {d.code} on this line",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[shown],
        edit=workspace_edit({doc.uri: (doc.version, [edit])}, versioned),
    )


def noqa_edit(lines: list[str], python: list[str], line: int, code: str, encoding: str) -> types.TextEdit | None:
    """The edit that suppresses ``code`` reported at 1-based ``line``, as ``--add-noqa`` writes
    it (``jaxlint.fix.noqa``): ``# noqa: CODE`` after the line, or after the line a
    multi-line string or a backslash continuation ends on, merged into the ``# noqa`` there.
    ``python``: the lines jaxlint read (a notebook cell's, IPython syntax masked), each the
    end of the document's line. None when the result would not suppress it."""
    if not 1 <= line <= len(python) or len(python) != len(lines):
        return None
    source = "\n".join(python) + "\n"
    new, changed = add_to_text(source, {line: {code}})
    if not changed:
        return None  # already suppressed (a bare noqa, or the code is listed)
    if not any(
        c.kind == "noqa" and c.first <= line <= c.last and c.codes is not None and code in c.codes
        for c in scan_suppressions(new).comments
    ):
        return None
    old_lines, new_lines = python, new.split("\n")[:-1]
    rows = [i for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=False)) if a != b]
    if len(new_lines) != len(old_lines) or len(rows) != 1:
        return None
    row = rows[0]
    a, b = old_lines[row], new_lines[row]
    if not lines[row].endswith(a):
        return None
    prefix = _common(a, b)
    suffix = _common(a[prefix:][::-1], b[prefix:][::-1])
    shift = len(lines[row]) - len(a)  # a cell IPython runs dedented keeps its indentation
    text = lines[row]
    return types.TextEdit(
        range=types.Range(
            start=types.Position(line=row, character=units(text[: shift + prefix], encoding)),
            end=types.Position(line=row, character=units(text[: shift + len(a) - suffix], encoding)),
        ),
        new_text=b[prefix : len(b) - suffix],
    )


def _common(a: str, b: str) -> int:
    """The length of the longest common prefix."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def fix_all_action(uri: str, version: int | None) -> types.CodeAction:
    """The action without its edit: resolved (or run as a command) on request."""
    return types.CodeAction(
        title="jaxlint: Fix all safe fixes",
        kind=FIX_ALL,
        data={"uri": uri, "version": version},
    )


# -- the edit of a whole-file fix --------------------------------------------------------
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def text_edits(old: str, new: str, encoding: str) -> list[types.TextEdit]:
    """Edits turning ``old`` into ``new``, one per changed run of lines (not one that
    replaces the whole text: cursors, folds and marks elsewhere stay where they are)."""
    a, b = _LINE.findall(old), _LINE.findall(new)
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        out.append(
            types.TextEdit(
                range=types.Range(start=_at(a, i1, encoding), end=_at(a, i2, encoding)), new_text="".join(b[j1:j2])
            )
        )
    return out


def _at(lines: list[str], i: int, encoding: str) -> types.Position:
    """The start of 0-based line ``i`` of ``lines`` (past the last one: the end of the text)."""
    if i < len(lines) or not lines or lines[-1].endswith(("\n", "\r")):
        return types.Position(line=i, character=0)
    last = lines[-1]
    return types.Position(line=len(lines) - 1, character=units(last, encoding))


def position(p: types.Position) -> Position:
    """An LSP position as jaxlint's (line only is reliable without the line's text)."""
    return Position(p.line + 1, p.character + 1)
