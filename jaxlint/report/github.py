"""GitHub Actions workflow commands: one ``::error``/``::warning`` line per diagnostic."""

from __future__ import annotations

import os

from jaxlint.types import Diagnostic


def escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def _relative(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel.replace(os.sep, "/")


def render(diagnostics: list[Diagnostic], **_) -> str:
    out = []
    for d in diagnostics:
        level = "warning" if d.preview else "error"
        props = ",".join(
            [
                f"title={escape_property(f'jaxlint ({d.code})')}",
                f"file={escape_property(_relative(d.path))}",
                f"line={d.start.line}",
                f"col={d.start.column}",
                f"endLine={d.end.line}",
                f"endColumn={d.end.column}",
            ]
        )
        out.append(f"::{level} {props}::{escape_data(f'{d.code} {d.message}')}\n")
    return "".join(out)
