"""GitHub Actions workflow commands: one ``::error``/``::warning`` line per diagnostic.

Escaping follows @actions/core (``escapeData`` / ``escapeProperty``): without it a ``%``
or newline in a message, or a ``,``/``:`` in a path, would cut the command short.
"""

from __future__ import annotations

from jaxlint.report.paths import relative
from jaxlint.types import Diagnostic


def escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def line(d: Diagnostic) -> str:
    level = "warning" if d.preview else "error"
    props = ",".join(
        [
            f"title={escape_property(f'jaxlint ({d.code})')}",
            f"file={escape_property(relative(d.path))}",
            f"line={d.start.line}",
            f"col={d.start.column}",
            f"endLine={d.end.line}",
            f"endColumn={d.end.column}",
        ]
    )
    return f"::{level} {props}::{escape_data(f'{d.code} {d.message}')}"


def render(diagnostics: list[Diagnostic], **_) -> str:
    return "".join(line(d) + "\n" for d in diagnostics)
