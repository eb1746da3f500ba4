"""Code actions: a diagnostic's fix, "suppress JAXnnn on this line", "fix all safe fixes".

Nothing else is offered (no organising, no refactoring):

- each fix a diagnostic carries, safe ones preferred, unsafe ones titled as such (they
  change behaviour; ``check`` applies them only with ``--unsafe-fixes``);
- ``# noqa: JAXnnn`` at the end of the reported line, merged into a ``# noqa: ...``
  already there. The line's comment is found with the tokenizer, so the text goes into a
  real comment, never into a string, and the new line is read back the way
  ``jaxlint.lint.suppress`` reads it: if that would not suppress the code (the line ends
  inside a string or after a backslash, or a ``# noqa`` look-alike earlier on the line
  would be read first) the action is not offered;
- ``source.fixAll.jaxlint``: every safe fix of the file applied to a fixed point, as
  ``jaxlint check --fix`` does; its edit is computed when the client resolves the action
  (or runs the ``jaxlint.applyFixAll`` command), not on every request.

Edits are versioned: a client applies them only to the text they were computed for.
"""

from __future__ import annotations

import difflib
import io
import re
import tokenize
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from lsprotocol import types

from jaxlint.base.types import Diagnostic, Edit, Position
from jaxlint.lint.suppress import _NOQA, scan_suppressions
from jaxlint.server.diagnostics import lsp_position, units

FIX_ALL = "source.fixAll.jaxlint"
FIX_ALL_COMMAND = "jaxlint.applyFixAll"
NOT_SUPPRESSIBLE = ("JAX001", "JAX002", "JAX003")  # the file's state, or JAX002 itself (never suppressed)
NOQA = "  #" + " noqa: "  # (split so that linters reading this file do not take it for a directive)


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
    """The edit that makes 1-based ``line`` end in a ``# noqa`` covering ``code``, or None."""
    if not 1 <= line <= len(lines) or len(python) != len(lines):
        return None
    comment = _comment(python, line)
    if comment is False:
        return None
    text = lines[line - 1]
    if comment is None:  # no comment: append one after the code
        body = text.rstrip()
        if body.endswith("\\"):
            return None
        start, new_line, insert = len(body), body + NOQA + code, NOQA + code
        end = len(text)
    else:
        at = len(text.rstrip()) - len(comment.rstrip())  # the comment runs to the end of the line
        m = _NOQA.search(comment)
        if m is not None and m.group("codes") is None:
            return None  # a bare noqa (no codes) already suppresses every code
        if m is not None:
            start = end = at + m.end("codes")
            insert = f", {code}"
        else:
            start = end = len(text.rstrip())
            insert = NOQA + code
        new_line = text[:start] + insert + text[end:]
    found = scan_suppressions(new_line).comments
    noqa = next((c for c in found if c.kind == "noqa"), None)
    if noqa is None or noqa.codes is None or code not in noqa.codes:
        return None
    row = line - 1
    return types.TextEdit(
        range=types.Range(
            start=types.Position(line=row, character=units(text[:start], encoding)),
            end=types.Position(line=row, character=units(text[:end], encoding)),
        ),
        new_text=insert,
    )


def _comment(lines: list[str], line: int) -> str | bool | None:
    """The comment ending 1-based ``line`` (None: none; False: the line ends inside a
    string, or the text does not tokenize)."""
    source = "\n".join(lines) + "\n"
    found: str | None = None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.start[0] > line:
                break
            if tok.start[0] <= line < tok.end[0] and tok.type != tokenize.NL and tok.type != tokenize.NEWLINE:
                return False  # a string (or f-string part) runs on past this line
            if tok.type == tokenize.COMMENT and tok.start[0] == line:
                found = tok.string
    except (tokenize.TokenError, SyntaxError):
        return False
    return found


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
