"""``jaxlint verify [CODES...]``: select rules, run the verification, print a table or JSON.

Exit codes: 0 every selected rule confirmed, 1 some rule not confirmed, 2 usage error
(unknown code, engine rule, jax missing). jax is looked up, never imported, here.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import click

from jaxlint.lint.rule import Rule

EXIT_OK, EXIT_UNCONFIRMED, EXIT_ERROR = 0, 1, 2
NO_JAX = "jaxlint: error: `jaxlint verify` runs JAX programs and needs jax: install the runtime extra: pip install 'jaxlint[runtime]'"


class SelectionError(ValueError):
    pass


def select_rules(codes: Sequence[str], rules: Sequence[type[Rule]]) -> list[type[Rule]]:
    """Codes, prefixes or rule names; none means every non-engine rule."""
    verifiable = [r for r in rules if not getattr(r, "engine_rule", False)]
    if not codes:
        return verifiable
    chosen: dict[str, type[Rule]] = {}
    unknown, engine = [], []
    for raw in codes:
        c = raw.strip()
        hits = [r for r in rules if r.code == c.upper() or r.name == c.lower() or r.code.startswith(c.upper())]
        usable = [r for r in hits if not getattr(r, "engine_rule", False)]
        if not hits:
            unknown.append(raw)
        elif not usable:
            engine.append(raw)
        for r in usable:
            chosen[r.code] = r
    if unknown:
        raise SelectionError(
            f"unknown rule code{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} (see `jaxlint rules`)"
        )
    if engine:
        raise SelectionError(
            f"{', '.join(map(repr, engine))} selects only engine rules, which have no runtime reference"
        )
    return sorted(chosen.values(), key=lambda r: r.code)


def _cell_bad(report) -> str:
    if not report.bad:
        return report.reasons[0] if report.reasons else ""
    lines = []
    for c in report.bad:
        mark = "✓" if c.ok else "✗"
        note = " [not flagged]" if c.flagged is False else ""
        lines.append(f"{mark} {c.file}: {c.detail or 'not run'}{note}")
    return "\n".join(lines)


def _cell_fixed(report) -> str:
    c = report.fixed
    if c is None:
        return ""
    note = " [flagged]" if c.flagged else ""
    return f"{'✓' if c.ok else '✗'} {c.detail or 'not run'}{note}"


def _cell_autofix(report) -> str:
    c = report.autofix
    if c is None:
        return "— (no fix)" if report.fixed is not None else ""
    return f"{'✓' if c.ok else '✗'} {c.detail}"


def render_table(reports, color: bool, width: int | None) -> str:
    import io

    from rich.console import Console
    from rich.table import Table

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, no_color=not color, width=width, highlight=False)
    table = Table(show_lines=True)
    table.add_column("rule", no_wrap=True)
    table.add_column("bad: how it failed", ratio=3)
    table.add_column("fix", ratio=2)
    table.add_column("autofix", ratio=2)
    table.add_column("time", justify="right", no_wrap=True)
    for r in reports:
        style = "green" if r.confirmed else "red"
        table.add_row(
            f"[{style}]{'✓' if r.confirmed else '✗'} {r.code}[/{style}]",
            _cell_bad(r),
            _cell_fixed(r),
            _cell_autofix(r),
            f"{r.seconds:.1f}s" if r.seconds else "",
        )
    console.print(table)
    ok = sum(r.confirmed for r in reports)
    console.print(f"{ok} of {len(reports)} rule{'s' if len(reports) != 1 else ''} confirmed.", markup=False)
    for r in reports:
        if not r.confirmed:
            console.print(f"{r.code} not confirmed: " + "; ".join(r.reasons), markup=False, soft_wrap=True)
    return buf.getvalue()


def run_verify(
    codes: Sequence[str],
    output_format: str = "table",
    jobs: int | None = None,
    timeout: float = 120.0,
    *,
    rules: Sequence[type[Rule]] | None = None,
    root: Path | None = None,
    find_spec: Callable[[str], object] = importlib.util.find_spec,
) -> int:
    """The `verify` command; ``rules``, ``root`` and ``find_spec`` are injectable for tests."""
    if rules is None:
        from jaxlint.lint.registry import all_rules

        rules = all_rules()
    try:
        selected = select_rules(list(codes), rules)
    except SelectionError as e:
        click.echo(f"jaxlint: error: {e}", err=True)
        return EXIT_ERROR
    if find_spec("jax") is None:
        click.echo(NO_JAX, err=True)
        return EXIT_ERROR
    from jaxlint.verify.runner import verify_rules

    reports = verify_rules(selected, root, jobs, timeout)
    if output_format == "json":
        click.echo(json.dumps([r.to_json() for r in reports], indent=2))
    else:
        tty = sys.stdout.isatty()
        color = tty and "NO_COLOR" not in os.environ
        click.echo(render_table(reports, color, None if tty else 160), nl=False)
    return EXIT_OK if all(r.confirmed for r in reports) else EXIT_UNCONFIRMED
