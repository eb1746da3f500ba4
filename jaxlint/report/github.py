"""GitHub Actions workflow commands: one ``::error``/``::warning`` line per diagnostic.

Escaping follows @actions/core (``escapeData`` / ``escapeProperty``): without it a ``%``
or newline in a message, or a ``,``/``:`` in a path, would cut the command short.
"""

from __future__ import annotations

from jaxlint.base.types import Diagnostic
from jaxlint.report.escape import printable
from jaxlint.report.paths import relative


def escape_data(s: str) -> str:
    """Control characters shown escaped first (an ESC must not reach the log raw), then
    what would end the command (a line break is the annotation's own ``%0A``)."""
    return printable(s, line_breaks=True).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def line(d: Diagnostic) -> str:
    level = "warning" if d.preview else "error"
    # a notebook finding points at the JSON line holding its source line; the title names the cell
    start, end = (d.file_start, d.file_end) if d.file_start is not None and d.file_end is not None else (d.start, d.end)
    cell = f" cell {d.cell}:{d.start.line}:{d.start.column}" if d.cell is not None else ""
    props = ",".join(
        [
            f"title={escape_property(f'jaxlint ({d.code}){cell}')}",
            f"file={escape_property(relative(d.path))}",
            f"line={start.line}",
            f"col={start.column}",
            f"endLine={end.line}",
            f"endColumn={end.column}",
        ]
    )
    text = f"{d.code} {d.message}" + (f"\n{d.note}" if d.note else "")
    return f"::{level} {props}::{escape_data(text)}"


def render(diagnostics: list[Diagnostic], **_) -> str:
    return "".join(line(d) + "\n" for d in diagnostics)
