"""``path:line:col: CODE [*] message`` — one line per diagnostic."""

from __future__ import annotations

from jaxlint.base.types import Diagnostic
from jaxlint.report.escape import no_workflow_commands, printable, shown_path


def line(d: Diagnostic, unsafe_fixes: bool = False) -> str:
    mark = ""
    if d.fix is not None and (d.fix.applicability == "safe" or unsafe_fixes):
        mark = "[*] "
    cell = f"cell {d.cell}:" if d.cell is not None else ""
    return f"{shown_path(d.path)}:{cell}{d.start.line}:{d.start.column}: {d.code} {mark}{printable(d.message)}"


def render(diagnostics: list[Diagnostic], unsafe_fixes: bool = False, **_) -> str:
    return no_workflow_commands("".join(line(d, unsafe_fixes) + "\n" for d in diagnostics))
