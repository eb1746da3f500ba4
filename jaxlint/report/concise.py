"""``path:line:col: CODE [*] message`` — one line per diagnostic."""

from __future__ import annotations

from jaxlint.base.types import Diagnostic


def line(d: Diagnostic, unsafe_fixes: bool = False) -> str:
    mark = ""
    if d.fix is not None and (d.fix.applicability == "safe" or unsafe_fixes):
        mark = "[*] "
    cell = f"cell {d.cell}:" if d.cell is not None else ""
    return f"{d.path}:{cell}{d.start.line}:{d.start.column}: {d.code} {mark}{d.message}"


def render(diagnostics: list[Diagnostic], unsafe_fixes: bool = False, **_) -> str:
    return "".join(line(d, unsafe_fixes) + "\n" for d in diagnostics)
