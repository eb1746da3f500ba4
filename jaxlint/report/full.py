"""The terminal view: the concise line, a code frame with the span underlined, note, help,
and the fix with the change it makes as a diff of the lines it touches (as ruff shows it).

Rendered with rich. Colour only when the caller asks for it (``use_color``: a terminal,
``NO_COLOR`` unset); without it the output holds no escape sequence at all. The frame and
the help lines fit in ``width`` columns: long source lines are cut around the span (``…``
marks a cut) and help text wraps, so the output stays readable in an 80-column terminal.
"""

from __future__ import annotations

import difflib
import io
import textwrap
from typing import Protocol

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from jaxlint.base.types import Diagnostic
from jaxlint.fix.edits import apply_fixes


class SourceLines(Protocol):
    """A file's lines, or a notebook cell's own lines; None when they cannot be read."""

    def __call__(self, path: str, cell: int | None = None, /) -> list[str] | None: ...


CONTEXT = 1  # lines shown around the span
MAX_SPAN_LINES = 6  # a longer span shows its first lines only
TAB = 4


def _display_col(raw: str, column: int) -> int:
    """0-based display offset of 1-based character ``column`` once tabs are expanded."""
    return len(raw[: max(0, column - 1)].expandtabs(TAB))


def _window(start: int, end: int, longest: int, avail: int) -> tuple[int, int]:
    """The display columns [lo, hi) shown for every frame line, keeping the span in view."""
    if longest <= avail:
        return 0, longest
    if end <= avail - 1:  # the span is in view from the left edge (a "…" may take the last column)
        return 0, avail
    lo = max(0, min(start - 4, longest - avail))  # a little context before the span, or the line's end
    return lo, lo + avail


def _cut(src: str, lo: int, hi: int) -> str:
    """``src[lo:hi]``, with ``…`` replacing the first/last shown character where cut."""
    part = src[lo:hi]
    if lo > 0 and part:
        part = "…" + part[1:]
    if len(src) > hi and part:
        part = part[:-1] + "…"
    return part


def _frame(d: Diagnostic, lines: list[str], width: int) -> Text:
    first = max(1, d.start.line - CONTEXT)
    span_last = min(d.end.line, d.start.line + MAX_SPAN_LINES - 1)
    last = min(len(lines), span_last + CONTEXT)
    if first > last:
        return Text()
    num_w = len(str(last))
    gutter = " " * num_w + " | "
    avail = max(20, width - len(gutter))
    shown = {n: lines[n - 1].rstrip("\r\n") for n in range(first, last + 1)}
    expanded = {n: s.expandtabs(TAB) for n, s in shown.items()}
    # the underline of each span line, in display columns
    marks: dict[int, tuple[int, int]] = {}
    for n in range(d.start.line, min(span_last, last) + 1):
        src = expanded[n]
        a = _display_col(shown[n], d.start.column) if n == d.start.line else len(src) - len(src.lstrip())
        b = _display_col(shown[n], d.end.column) if n == d.end.line else len(src)
        marks[n] = (a, max(b, a + 1))
    start = min(a for a, _ in marks.values()) if marks else 0
    end = max(b for _, b in marks.values()) if marks else 0
    lo, hi = _window(start, end, max(len(s) for s in expanded.values()), avail)

    out = Text()
    for n in range(first, last + 1):
        code = _cut(expanded[n], lo, hi).rstrip()
        out.append(f"{n:>{num_w}} |" + (" " if code else ""), style="blue")
        out.append(code + "\n")
        if n in marks:
            a, b = marks[n]
            a, b = max(a, lo) - lo, min(b, hi) - lo
            # wide characters (CJK comments, emoji) take two terminal cells
            line = _cut(expanded[n], lo, hi)
            pad = cell_len(line[:a]) if a <= len(line) else a
            span = cell_len(line[a:b]) if b <= len(line) else b - a
            out.append(gutter, style="blue")
            carets = " " * pad + "^" * max(1, span)
            out.append(carets, style="bold red")
            label = f" {d.code}"
            if n == max(marks) and len(gutter) + len(carets) + len(label) <= width:
                out.append(label, style="bold red")
            out.append("\n")
    return out


def _note(label: str, text: str, width: int, style: str = "cyan") -> Text:
    """``  = label: text``, wrapped to ``width`` with the text's lines aligned."""
    prefix = f"  = {label}: "
    body = textwrap.fill(
        text, width=width, initial_indent=prefix, subsequent_indent=" " * len(prefix), break_on_hyphens=False
    )
    t = Text(prefix, style=style)
    t.append(body[len(prefix) :])
    return t


def _diff(d: Diagnostic, lines: list[str], width: int) -> Text:
    """The lines the fix changes, old (``-``) and new (``+``) with their line numbers and one
    line of context around each change; empty when the fix changes nothing shown here.
    Long lines are cut around the first changed column, as the frame cuts around the span."""
    if d.fix is None or not d.fix.edits:
        return Text()
    old = "".join(line if line.endswith(("\n", "\r")) else line + "\n" for line in lines)
    new, applied = apply_fixes(old, [d.fix])
    if not applied or new == old:
        return Text()
    a = [x.expandtabs(TAB) for x in old.splitlines()]
    b = [x.expandtabs(TAB) for x in new.splitlines()]
    w = len(str(max(len(a), len(b))))
    avail = max(20, width - (2 * w + 8))  # "    12 12 |" and the sign
    out = Text()
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(CONTEXT):
        shown = [a[k] for _, i1, i2, _, _ in group for k in range(i1, i2)] + [
            b[k] for tag, _, _, j1, j2 in group if tag != "equal" for k in range(j1, j2)
        ]
        change = next((t for t in group if t[0] != "equal"), group[0])
        first_old = a[change[1]] if change[1] < change[2] else ""
        first_new = b[change[3]] if change[3] < change[4] else ""
        col = next((i for i, (x, y) in enumerate(zip(first_old, first_new, strict=False)) if x != y), 0)
        lo, hi = _window(col, col + 1, max((len(x) for x in shown), default=0) + 1, avail)
        if out:
            out.append(" " * (4 + 2 * w) + " ...\n", style="blue")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for k in range(i2 - i1):
                    out.append(f"    {i1 + k + 1:>{w}} {j1 + k + 1:>{w}} |", style="blue")
                    out.append((" " + _cut(a[i1 + k], lo, hi)).rstrip() + "\n")
                continue
            for k in range(i1, i2):
                out.append(f"    {k + 1:>{w}} {'':>{w}} |", style="blue")
                out.append("-" + _cut(a[k], lo, hi) + "\n", style="red")
            for k in range(j1, j2):
                out.append(f"    {'':>{w}} {k + 1:>{w}} |", style="blue")
                out.append("+" + _cut(b[k], lo, hi) + "\n", style="green")
    return out


def render(
    diagnostics: list[Diagnostic],
    color: bool = False,
    width: int = 80,
    source: SourceLines | None = None,
    unsafe_fixes: bool = False,
    **_,
) -> str:
    buf = io.StringIO()
    console = Console(
        file=buf,
        force_terminal=color,
        no_color=not color,
        color_system="standard" if color else None,
        width=width,
        highlight=False,
        emoji=False,
        markup=False,
        soft_wrap=True,
        legacy_windows=False,
    )
    cache: dict[str, list[str] | None] = {}
    for d in diagnostics:
        head = Text()
        cell = f"cell {d.cell}:" if d.cell is not None else ""
        head.append(f"{d.path}:{cell}{d.start.line}:{d.start.column}: ", style="bold")
        head.append(d.code, style="bold red")
        if d.fix is not None and (d.fix.applicability == "safe" or unsafe_fixes):
            head.append(" [*]", style="cyan")
        head.append(f" {d.message}")
        console.print(head)
        key = d.path if d.cell is None else f"{d.path}\0{d.cell}"
        if source is not None and key not in cache:
            cache[key] = source(d.path) if d.cell is None else source(d.path, d.cell)  # a notebook cell's own lines
        lines = cache.get(key)
        if lines:
            console.print(_frame(d, lines, width), end="")
        if d.note:
            console.print(_note("note", d.note, width))
        if d.help:
            console.print(_note("help", d.help, width))
        if d.fix is not None:
            if d.fix.applicability == "unsafe":
                how = "applied with --unsafe-fixes" if unsafe_fixes else "apply with --fix --unsafe-fixes"
                console.print(
                    _note("unsafe fix", f"{d.fix.message} (changes behaviour: review it; {how})", width, "yellow")
                )
            else:
                console.print(_note("fix", d.fix.message, width))
            if lines:
                console.print(_diff(d, lines, width), end="")
        console.print()
    return buf.getvalue()
