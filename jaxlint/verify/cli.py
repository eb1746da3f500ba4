"""``jaxlint verify [CODES...]``: select rules, run the verification, print a table or JSON.

Exit codes: 0 every selected rule confirmed, 1 some rule not confirmed, 2 usage error
(unknown code, engine rule, jax missing). jax is looked up, never imported, here.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import click

from jaxlint.lint.rule import Rule

EXIT_OK, EXIT_UNCONFIRMED, EXIT_ERROR = 0, 1, 2
NO_JAX = (
    "jaxlint: error: `jaxlint verify` runs JAX programs and needs jax: in your jaxlint clone, run"
    " pip install -e '.[runtime]' (jaxlint is installed from its source; the package index's"
    " `jaxlint` is another project)"
)


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


def header(jax_version: str | None, jaxlib_version: str | None, specs_devices: Sequence[int]) -> str:
    """What the run uses, said before anything runs."""
    devices = sorted(set(specs_devices))
    many = f"{devices[0]} to {devices[-1]}" if len(devices) > 1 else (str(devices[0]) if devices else "1")
    return (
        f"jax {jax_version or '(unknown version)'} (jaxlib {jaxlib_version or 'not installed'}) on CPU; each rule's"
        f" programs run in a fresh process with the simulated devices its spec.toml asks for ({many})"
    )


def line(report) -> str:
    """One rule's verdict, printed as soon as it is known."""
    if report.skipped:
        return f"- {report.code} {report.name}: skipped: {report.skipped}"
    took = f" ({report.seconds:.1f}s)" if report.seconds else ""
    if report.confirmed:
        n = len(report.bad)
        fix = "" if report.autofix is None else "; its autofix matches the oracle"
        return (
            f"✓ {report.code} {report.name}: confirmed: {n} bad program{'s fail' if n != 1 else ' fails'} as expected,"
            f" the fixed one matches the oracle{fix}{took}"
        )
    return f"✗ {report.code} {report.name}: not confirmed: {'; '.join(report.reasons)}{took}"


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
        if r.skipped:
            table.add_row(f"- {r.code}", f"skipped: {r.skipped}", "", "", "")
            continue
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
    skipped = sum(bool(r.skipped) for r in reports)
    more = f" ({skipped} skipped: {'it needs' if skipped == 1 else 'they need'} a newer jax)" if skipped else ""
    console.print(f"{ok} of {len(reports)} rule{'s' if len(reports) != 1 else ''} confirmed{more}.", markup=False)
    for r in reports:
        if not r.confirmed and not r.skipped:
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
    from jaxlint.verify.runner import installed_jax, verify_rules
    from jaxlint.verify.spec import SpecError, load_spec

    jax_version, jaxlib_version = installed_jax()
    table = output_format != "json"
    on_report = None
    if table:
        from jaxlint.verify.runner import fixtures_root

        devices = []
        for r in selected:
            path = (root if root is not None else fixtures_root()) / r.code / "spec.toml"
            with contextlib.suppress(SpecError, OSError):
                devices.append(load_spec(path).devices)
        _say(header(jax_version, jaxlib_version, devices))

        def on_report(report) -> None:
            _say(line(report))

    reports = verify_rules(selected, root, jobs, timeout, on_report=on_report, jax_version=jax_version)
    if output_format == "json":
        click.echo(json.dumps([r.to_json() for r in reports], indent=2))
    else:
        tty = sys.stdout.isatty()
        color = tty and "NO_COLOR" not in os.environ
        click.echo()
        click.echo(render_table(reports, color, None if tty else 160), nl=False)
    return EXIT_OK if all(r.confirmed or r.skipped for r in reports) else EXIT_UNCONFIRMED


def _say(text: str) -> None:
    click.echo(text)
    sys.stdout.flush()  # one line per rule as it is decided, also into a pipe
