"""The terminal view: the concise line, a code frame with the span underlined, help, fix.

Rendered with rich; colour only when asked (a terminal without NO_COLOR).
"""

from __future__ import annotations

import io
from typing import Callable

from rich.console import Console
from rich.text import Text

from jaxlint.types import Diagnostic

CONTEXT = 1  # lines shown around the span


def _frame(d: Diagnostic, lines: list[str]) -> Text:
    out = Text()
    first = max(1, d.start.line - CONTEXT)
    last = min(len(lines), d.end.line + CONTEXT, d.start.line + 6)
    width = len(str(last))
    for n in range(first, last + 1):
        src = lines[n - 1].expandtabs(4) if n - 1 < len(lines) else ""
        out.append(f"{n:>{width}} | ", style="blue")
        out.append(src + "\n")
        if d.start.line <= n <= d.end.line:
            a = d.start.column - 1 if n == d.start.line else len(src) - len(src.lstrip())
            b = d.end.column - 1 if n == d.end.line else len(src)
            if b <= a:
                b = a + 1
            out.append(" " * width + " | ", style="blue")
            out.append(" " * a + "^" * (b - a), style="bold red")
            if n == d.end.line or n == d.start.line + 5:
                out.append(f" {d.code}", style="bold red")
            out.append("\n")
    return out


def render(
    diagnostics: list[Diagnostic],
    color: bool = False,
    width: int = 80,
    source: Callable[[str], list[str] | None] | None = None,
    unsafe_fixes: bool = False,
    **_,
) -> str:
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, no_color=not color, width=width, highlight=False, soft_wrap=True)
    for d in diagnostics:
        head = Text()
        head.append(f"{d.path}:{d.start.line}:{d.start.column}: ", style="bold")
        head.append(d.code, style="bold red")
        if d.fix is not None and (d.fix.applicability == "safe" or unsafe_fixes):
            head.append(" [*]", style="cyan")
        head.append(f" {d.message}")
        console.print(head)
        lines = source(d.path) if source is not None else None
        if lines:
            console.print(_frame(d, lines), end="")
        if d.help:
            t = Text("  = help: ", style="cyan")
            t.append(d.help)
            console.print(t)
        if d.fix is not None:
            t = Text("  = fix: ", style="cyan")
            t.append(d.fix.message)
            if d.fix.applicability == "unsafe":
                t.append(" (unsafe fix: review it; applied only with --unsafe-fixes)", style="yellow")
            console.print(t)
        console.print()
    return buf.getvalue()
