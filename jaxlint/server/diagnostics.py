"""jaxlint's diagnostics as LSP diagnostics, and the rule documentation a hover shows.

- range: jaxlint counts 1-based lines and columns in characters; LSP counts 0-based lines
  and columns in the position encoding agreed at ``initialize`` (UTF-16 unless the client
  offers UTF-8 or UTF-32). In a notebook the positions are already in the cell.
- ``code`` is the rule code (``JAX201``), ``source`` is ``jaxlint``; the message is
  jaxlint's message (and its note, on the next line, if it has one), then a line with the
  rule's name and what it catches (the link-free
  stand-in for ``codeDescription``, which must be a web address; one is set only when the
  installed package declares its repository, see ``jaxlint.report.links``).
- severity: Error for the syntax error (JAX001) and the stable rules of the JAX1xx to JAX5xx
  families (each is confirmed by ``jaxlint verify``: the code raises or computes wrong
  numbers), Warning for preview rules, removed or deprecated APIs (JAX8xx, tagged
  deprecated), an unused suppression (JAX002, tagged unnecessary) and a file or rule that
  could not be checked (JAX003).
- ``relatedInformation``: each place a message names (``at line 40``, ``at train.py:12``,
  ``at cell 5, line 2``) becomes a location, its message the clause that names it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from lsprotocol import types

from jaxlint.base.types import Diagnostic, Position
from jaxlint.lint.registry import rule_by_code
from jaxlint.report.links import rule_url

SOURCE = "jaxlint"

# (file name as a message writes it, or None for this file; cell number or None; 1-based line)
Locate = Callable[[str | None, int | None, int], types.Location | None]


@dataclass(frozen=True, slots=True)
class ClientFeatures:
    """What the client said it can show (``initialize``)."""

    encoding: str = "utf-16"
    related: bool = True
    tags: frozenset[int] = frozenset()
    code_description: bool = True


def units(text: str, encoding: str) -> int:
    """The length of ``text`` in the client's position units."""
    if encoding == "utf-32":
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def character(line: str, client_units: int, encoding: str) -> int:
    """The 0-based character index in ``line`` of a column given in client units."""
    if encoding == "utf-32":
        return min(client_units, len(line))
    n = 0
    for i, c in enumerate(line):
        n += units(c, encoding)
        if n > client_units:
            return i
    return len(line)


def lsp_position(p: Position, lines: list[str], encoding: str) -> types.Position:
    """A jaxlint position (1-based line, 1-based character column) in LSP units."""
    row = p.line - 1
    if row >= len(lines):
        return types.Position(line=len(lines), character=0)
    text = lines[max(0, row)]
    return types.Position(line=max(0, row), character=units(text[: max(0, p.column - 1)], encoding))


def lsp_range(start: Position, end: Position, lines: list[str], encoding: str) -> types.Range:
    return types.Range(start=lsp_position(start, lines, encoding), end=lsp_position(end, lines, encoding))


def line_range(lines: list[str], line: int, encoding: str) -> types.Range | None:
    """The text of 1-based ``line`` without its indentation (a related location)."""
    if not 1 <= line <= len(lines):
        return None
    text = lines[line - 1]
    indent = len(text) - len(text.lstrip())
    return types.Range(
        start=types.Position(line=line - 1, character=units(text[:indent], encoding)),
        end=types.Position(line=line - 1, character=units(text, encoding)),
    )


def severity(d: Diagnostic) -> types.DiagnosticSeverity:
    if d.code == "JAX001":
        return types.DiagnosticSeverity.Error
    if d.preview or d.code in ("JAX002", "JAX003") or d.code.startswith("JAX8"):
        return types.DiagnosticSeverity.Warning
    return types.DiagnosticSeverity.Error


def _tags(d: Diagnostic, allowed: frozenset[int]) -> list[types.DiagnosticTag] | None:
    tag = None
    if d.code == "JAX002":
        tag = types.DiagnosticTag.Unnecessary
    elif d.code.startswith("JAX8"):
        tag = types.DiagnosticTag.Deprecated
    return [tag] if tag is not None and tag.value in allowed else None


def description(code: str, name: str, preview: bool) -> str:
    """The rule's name and what it catches: the second line of a diagnostic's message."""
    rule = rule_by_code(code)
    summary = rule.summary if rule is not None else ""
    head = f"{name} (preview)" if preview else name
    return f"{head}: {summary}." if summary else head


def to_lsp(d: Diagnostic, lines: list[str], client: ClientFeatures, locate: Locate | None = None) -> types.Diagnostic:
    """One jaxlint diagnostic, its positions counted in ``lines`` (the file's or the cell's)."""
    url = rule_url(d.code) if client.code_description else None
    note = f"\n{d.note}" if d.note else ""
    return types.Diagnostic(
        range=lsp_range(d.start, d.end, lines, client.encoding),
        message=f"{d.message}{note}\n{description(d.code, d.name, d.preview)}",
        severity=severity(d),
        code=d.code,
        code_description=types.CodeDescription(href=url) if url else None,
        source=SOURCE,
        tags=_tags(d, client.tags),
        related_information=(related(d.message + note, locate) or None) if client.related and locate else None,
    )


# -- places a message names --------------------------------------------------------------
_PLACE = re.compile(
    r"(?<![\w.-])(?P<nb>[\w.-]+\.ipynb):cell (?P<nb_cell>\d+):(?P<nb_line>\d+)\b"
    r"|(?<![\w.-])(?P<file>[\w.-]+\.py):(?P<file_line>\d+)\b"
    r"|\bcell (?P<cell>\d+), line (?P<cell_line>\d+)\b"
    r"|\bline (?P<line>\d+)\b"
)
_LEAD = ("but ", "and ", "which ", "so ", "where ", "then ")
MAX_CLAUSE = 90


def places(message: str) -> list[tuple[str | None, int | None, int, str]]:
    """(file name or None, cell or None, line, the clause naming it) for each place in ``message``."""
    out: list[tuple[str | None, int | None, int, str]] = []
    bound = 0  # a clause never reaches back into the place before it
    for m in _PLACE.finditer(message):
        where: tuple[str | None, int | None, int]
        if m.group("nb"):
            where = (m.group("nb"), int(m.group("nb_cell")), int(m.group("nb_line")))
        elif m.group("file"):
            where = (m.group("file"), None, int(m.group("file_line")))
        elif m.group("cell"):
            where = (None, int(m.group("cell")), int(m.group("cell_line")))
        else:
            where = (None, None, int(m.group("line")))
        out.append((*where, _clause(message, m.start(), m.end(), bound)))
        bound = m.end()
    return out


def _clause(message: str, start: int, end: int, bound: int = 0) -> str:
    """The words before a place back to the start of their clause (``,;:(`` outside code)."""
    i = max(bound, _clause_start(message, start))
    text = message[i:start].strip().lstrip(",;:)").strip()
    if not text and i > 0 and message[i - 1] == "(":  # "`jnp.ones(3)` (line 32)": what the parenthesis follows
        text = message[max(bound, _clause_start(message, i - 1)) : i - 1].strip()
        text = f"{text} ({message[start:end]})" if text else message[start:end]
    else:
        text = f"{text} {message[start:end]}".strip()
    for lead in _LEAD:
        if text.startswith(lead):
            text = text[len(lead) :]
    if len(text) > MAX_CLAUSE:
        cut = text.find(" ", len(text) - MAX_CLAUSE)
        text = "…" + text[cut + 1 :] if cut > 0 else text
    return text


def _clause_start(message: str, before: int) -> int:
    """Where the clause ending at ``before`` starts: after the last ``,;:`` or unclosed ``(``
    outside code spans and closed parentheses."""
    in_code = False
    depth = 0
    for i in range(before - 1, -1, -1):
        c = message[i]
        if c == "`":
            in_code = not in_code
        elif in_code:
            continue
        elif c == ")":
            depth += 1
        elif c == "(" and depth:
            depth -= 1
        elif c == "\n" or (depth == 0 and c in ",;:("):  # a note is on a line of its own
            return i + 1
    return 0


def related(message: str, locate: Locate) -> list[types.DiagnosticRelatedInformation]:
    out = []
    seen = set()
    for name, cell, line, clause in places(message):
        loc = locate(name, cell, line)
        if loc is None or (loc.uri, loc.range.start.line) in seen:
            continue
        seen.add((loc.uri, loc.range.start.line))
        out.append(types.DiagnosticRelatedInformation(location=loc, message=clause))
    return out


# -- hover ------------------------------------------------------------------------------
def rule_page(code: str) -> str | None:
    """The rule's documentation, as ``jaxlint rule CODE`` prints it."""
    r = rule_by_code(code)
    if r is None:
        return None
    return f"# {r.code} {r.name} ({r.status})\n\n{r.summary}.\n\n{r.documentation()}"
