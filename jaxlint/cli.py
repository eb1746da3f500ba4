"""The ``jaxlint`` command. Parses options, calls the api, prints; no logic of its own."""

from __future__ import annotations

import os
import sys
from collections import Counter
from typing import NoReturn

import click

from jaxlint import __version__

EXIT_OK, EXIT_FOUND, EXIT_ERROR = 0, 1, 2
FORMATS = ("full", "concise", "json", "github", "sarif")


def fail(message: str) -> NoReturn:
    _say(f"jaxlint: error: {message}")
    sys.exit(EXIT_ERROR)


def _say(line: str) -> None:
    """One line on stderr; file names and quoted text in it escaped (jaxlint.report.escape),
    line breaks kept only for the traceback ``JAXLINT_DEBUG=1`` asks for."""
    from jaxlint.base.crash import debug
    from jaxlint.report.escape import no_workflow_commands, printable

    click.echo(no_workflow_commands(printable(line, line_breaks=debug())), err=True)


class DefaultGroup(click.Group):
    """``jaxlint PATHS`` means ``jaxlint check PATHS``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h", "--version")):
            args = ["check", *args]
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context):
        """A bug in jaxlint exits 2 with one line saying where (never 1: that means findings);
        SIGTERM and SIGHUP end the run and its workers, exit 128 + the signal, one line."""
        from jaxlint.base.processes import Terminated, terminated_on_signals

        try:
            with terminated_on_signals():
                return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except KeyboardInterrupt:
            click.echo("jaxlint: interrupted", err=True)
            sys.exit(130)
        except Terminated as t:
            click.echo(f"jaxlint: terminated by {t.name}", err=True)
            sys.exit(t.exit_code)
        except Exception as exc:
            from jaxlint.base.crash import internal_error_line

            fail(internal_error_line(exc))


def _codes(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [c.strip().upper() for c in value.split(",") if c.strip()]


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="jaxlint", message="%(prog)s %(version)s")
def main() -> None:
    """jaxlint: a static linter for JAX code."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--select", help="Comma-separated rule codes or prefixes to enable (or ALL).")
@click.option("--extend-select", help="Codes or prefixes to enable on top of the selection.")
@click.option("--ignore", help="Codes or prefixes to disable.")
@click.option("--preview/--no-preview", default=None, help="Enable preview rules.")
@click.option("--fix", "do_fix", is_flag=True, help="Apply safe fixes.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply (and show) unsafe fixes.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; change no file.")
@click.option("--show-fixes", is_flag=True, help="List the fixes that were applied.")
@click.option(
    "--output-format", type=click.Choice(FORMATS), help="Output format (default: full on a terminal, else concise)."
)
@click.option("--statistics", is_flag=True, help="Count diagnostics per rule instead of listing them.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when diagnostics remain.")
@click.option("--exit-non-zero-on-fix", is_flag=True, help="Exit 1 when any fix was applied.")
@click.option("--stdin-filename", help="The name of the file read from stdin (`-`).")
@click.option("--config", "config_path", type=click.Path(), help="Path to a pyproject.toml to use.")
@click.option("--target-jax-version", help="The JAX version the code must run on (default 0.10.2).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the result cache.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: CPU count).")
@click.option("--quiet", "-q", is_flag=True, help="Print diagnostics only, no summary.")
def check(
    paths,
    select,
    extend_select,
    ignore,
    preview,
    do_fix,
    unsafe_fixes,
    diff,
    show_fixes,
    output_format,
    statistics,
    exit_zero,
    exit_non_zero_on_fix,
    stdin_filename,
    config_path,
    target_jax_version,
    no_cache,
    jobs,
    quiet,
) -> None:
    """Lint PATHS (files or folders; default: the current folder; `-` reads stdin)."""
    from jaxlint.base.types import RunResult
    from jaxlint.files.discover import DiscoveryError, discover
    from jaxlint.lint.config import ConfigError, load_settings, parse_version, validate_settings

    paths = list(paths) or ["."]
    start = stdin_filename if "-" in paths and stdin_filename else paths[0]
    try:
        # rule codes are checked below, after the whole-run cache had its chance: checking
        # them imports every rule (and LibCST), which an unchanged tree does not need
        settings = load_settings(config_path, start if start != "-" else ".", validate=False)
        if select is not None:
            settings.select = _codes(select)
        if extend_select is not None:
            settings.extend_select = settings.extend_select + (_codes(extend_select) or [])
        if ignore is not None:
            settings.ignore = settings.ignore + (_codes(ignore) or [])
        if preview is not None:
            settings.preview = preview
        if target_jax_version is not None:
            parse_version(target_jax_version)
            settings.target_jax_version = target_jax_version
    except ConfigError as e:
        fail(str(e))
    fmt = output_format or settings.output_format or ("full" if _is_terminal(sys.stdout) else "concise")
    from jaxlint.report.color import use_color

    color = fmt == "full" and use_color(sys.stdout)

    def source_lines(path: str, cell: int | None = None):
        from jaxlint import api

        if path == (stdin_filename or "-") and stdin_text is not None:
            return api.source_lines(stdin_text) if cell is None else api.cell_lines(path, cell, stdin_text)
        return api._lines(path) if cell is None else api.cell_lines(path, cell)

    stdin_text = None
    stdin_bytes, encoding = b"", "utf-8"
    run = None
    cache = None
    if "-" in paths and paths != ["-"]:
        fail("`-` (stdin) cannot be combined with other paths")
    if paths != ["-"] and not no_cache:
        from jaxlint.cache.store import Cache

        cache = Cache.for_settings(settings)
        if cache is not None and not (do_fix or diff):
            try:
                files = discover(paths, settings.root, settings.exclude, settings.extend_exclude)
            except DiscoveryError as e:
                fail(str(e))
            hit = cache.get_run(cache.run_key(files, paths))
            if hit is not None:
                run = RunResult.from_cache(hit, len(files))
    if run is None:
        from jaxlint import api
        from jaxlint.lint.registry import RegistryError, SelectionError, check_selectors

        try:
            validate_settings(settings)
            for opt, value in (("--select", select), ("--extend-select", extend_select), ("--ignore", ignore)):
                check_selectors(_codes(value) or [], opt)
            if paths == ["-"]:
                stdin_bytes = _read_stdin()
                name = stdin_filename or "-"
                from jaxlint.base.crash import doing

                with doing(f"linting {name}"):
                    run, stdin_text, encoding = _lint_stdin(
                        stdin_bytes, name, settings, do_fix or diff, unsafe_fixes, diff
                    )
            else:
                from jaxlint.base.crash import doing

                progress = _progress_bar(fmt, quiet)
                with progress as advance, doing(f"{'fixing' if do_fix else 'linting'} {' '.join(paths)}"):
                    if do_fix or diff:
                        run = api.fix_paths(
                            paths,
                            settings,
                            unsafe=unsafe_fixes,
                            write=not diff,
                            jobs=jobs,
                            cache=cache,
                            progress=advance,
                        )
                    else:
                        run = api.lint_paths(paths, settings, jobs=jobs, cache=cache, progress=advance)
        except DiscoveryError as e:
            fail(str(e))
        except api.ReadError as e:
            fail(str(e))
        except (ConfigError, SelectionError, RegistryError) as e:
            fail(str(e))

    out = _Output()
    if diff:
        from jaxlint.report.escape import safe

        for path, (old, new) in sorted(run.diffs.items()):
            import difflib

            if path.endswith(".ipynb"):
                from jaxlint.fix.notebook import unified_diff

                out.write(unified_diff(safe(path), old, new))  # per cell, as ruff shows notebook diffs
                continue
            out.write(
                "".join(
                    difflib.unified_diff(
                        old.splitlines(True), new.splitlines(True), f"a/{safe(path)}", f"b/{safe(path)}"
                    )
                )
            )
        if not quiet:
            n = sum(run.fixed.values())
            click.echo(
                f"Would fix {n} problem{'s' if n != 1 else ''} in {len(run.diffs)} file{'s' if len(run.diffs) != 1 else ''}.",
                err=True,
            )
        _errors(run)
        sys.exit(EXIT_ERROR if run.errors else (EXIT_FOUND if run.diffs else EXIT_OK))
    if paths == ["-"] and do_fix:
        # the fixed text in the input's own encoding (keyed by --stdin-filename), else the input as it came
        fixed = next(iter(run.diffs.values()))[1] if run.diffs else None
        try:
            out.write_bytes(fixed.encode(encoding) if fixed is not None else stdin_bytes)
        except UnicodeEncodeError as e:
            run.warnings.append(
                f"the fixed code cannot be written in the input's encoding {encoding} ({e.reason}); not fixed"
            )
            out.write_bytes(stdin_bytes)
    diags = run.diagnostics
    if statistics:
        _statistics(diags, unsafe_fixes)
    elif not (paths == ["-"] and do_fix):
        out.write(_render(fmt, diags, color=color, source=source_lines, unsafe_fixes=unsafe_fixes))
    if show_fixes and run.fixed:
        click.echo("Fixed:", err=True)
        for path, n in sorted(run.fixed.items()):
            _say(f"  {path}: {n} fix{'es' if n != 1 else ''}")
    if not quiet and fmt in ("full", "concise") and not statistics:
        _summary(run, unsafe_fixes)
    _errors(run)
    if run.errors:
        sys.exit(EXIT_ERROR)
    if exit_non_zero_on_fix and run.fixed:
        sys.exit(EXIT_FOUND)
    if diags and not exit_zero:
        sys.exit(EXIT_FOUND)
    sys.exit(EXIT_OK)


def _render(fmt: str, diags, **kw) -> str:
    """The report; if the reporter fails, the internal error names the first file it fails on."""
    from jaxlint.base.crash import doing
    from jaxlint.report import render

    try:
        return render(fmt, diags, **kw)
    except Exception:
        for path in sorted({d.path for d in diags}):
            with doing(f"writing the {fmt} report for {path}"):
                render(fmt, [d for d in diags if d.path == path], **kw)
        with doing(f"writing the {fmt} report"):
            raise


def _read_stdin() -> bytes:
    if sys.stdin is None:
        fail("could not read <stdin>: it is closed")
    try:
        return sys.stdin.buffer.read()
    except OSError as e:
        fail(f"could not read <stdin>: {e.strerror or e}")


def _is_terminal(stream) -> bool:
    try:
        return stream is not None and stream.isatty()
    except ValueError:  # closed
        return False


class _Output:
    """Standard output for the report: a closed or full one is one clear line (exit 2), and
    the unwritten rest is dropped (not reported again when Python exits)."""

    def write(self, text: str) -> None:
        self._do(lambda out: out.write(text))

    def write_bytes(self, data: bytes) -> None:
        self._do(lambda out: (out.flush(), out.buffer.write(data)))

    def _do(self, action) -> None:
        out = sys.stdout
        if out is None:
            fail("could not write <stdout>: it is closed")
        try:
            action(out)
            out.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            import os

            with open(os.devnull, "w") as null:  # what Python would flush again at exit goes nowhere
                os.dup2(null.fileno(), out.fileno())
            fail(f"could not write <stdout>: {e.strerror or e}")


def _lint_stdin(data: bytes, name: str, settings, fix: bool, unsafe: bool, diff: bool):
    """(run, text, encoding): stdin linted as the file ``name``, decoded as a file is."""
    from jaxlint import api
    from jaxlint.base.types import RunResult

    path = name
    try:
        text, encoding = api.decode(data, path)
    except api.ReadError as e:  # as for a file: one JAX003
        return RunResult(api.unreadable(e).diagnostics, 1), None, "utf-8"
    diags = api.lint_source(text, path, settings)
    run = RunResult(diags, 1)
    if fix:
        new, count, remaining, gave_up = api.fix_source(text, path, settings, unsafe)
        if gave_up:
            run.unparsable_fix.append(path)
        if count:
            run.fixed[path] = count
            run.diffs[path] = (text, new)
        run.diagnostics = remaining
    return run, text, encoding


class _NoProgress:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return False


class _Progress:
    """A transient rich progress bar on stderr.

    It appears only once the run has lasted ``delay`` seconds, so a quick run never
    flashes a bar, and it leaves nothing behind on the terminal when it ends.
    """

    DELAY = 0.5

    def __init__(self, delay: float | None = None, console=None) -> None:
        self.delay = self.DELAY if delay is None else delay
        self.console = console
        self.p = None
        self.done = 0

    def __enter__(self):
        import time

        self.started = time.monotonic()
        return self.advance

    def advance(self, n: int) -> None:
        import time

        self.done += n
        if self.p is not None:
            self.p.advance(self.task, n)
            return
        if time.monotonic() - self.started < self.delay:
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        console = self.console or Console(stderr=True)
        self.p = Progress(
            TextColumn("linting"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self.p.start()
        self.task = self.p.add_task("lint", total=None, completed=self.done)

    def __exit__(self, *a):
        if self.p is not None:
            self.p.stop()
        return False


def _progress_bar(fmt: str, quiet: bool):
    """A bar only for people: human formats, stderr a terminal, not CI, not a dumb terminal."""
    if quiet or fmt not in ("full", "concise") or not sys.stderr.isatty():
        return _NoProgress()
    if os.environ.get("CI") or os.environ.get("TERM") == "dumb":
        return _NoProgress()
    return _Progress()


def _statistics(diags, unsafe: bool) -> None:
    counts = Counter((d.code, d.name) for d in diags)
    fixable = Counter(d.code for d in diags if d.fix is not None and (d.fix.applicability == "safe" or unsafe))
    for (code, name), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        mark = "[*]" if fixable[code] == n else ("[-]" if fixable[code] else "   ")
        click.echo(f"{n:>5}  {code}  {mark} {name}")


def _summary(run, unsafe: bool) -> None:
    diags = run.diagnostics
    fixed = sum(run.fixed.values())
    if not diags:
        if run.errors:
            return  # the error lines say what went wrong; "all passed" would not be true
        msg = "All checks passed!"
        if fixed:
            msg = f"Fixed {fixed} problem{'s' if fixed != 1 else ''}; no problems remain."
        click.echo(msg + _prefiltered(run), err=True)
        return
    files = len({d.path for d in diags})
    safe = sum(1 for d in diags if d.fix is not None and d.fix.applicability == "safe")
    hidden = sum(1 for d in diags if d.fix is not None and d.fix.applicability == "unsafe")
    msg = f"Found {len(diags)} problem{'s' if len(diags) != 1 else ''} in {files} file{'s' if files != 1 else ''}"
    extras = []
    if fixed:
        extras.append(f"{fixed} fixed")
    if safe:
        extras.append(f"{safe} fixable with --fix")
    if hidden and not unsafe:
        extras.append(f"{hidden} more with --unsafe-fixes")
    elif hidden:
        extras.append(f"{hidden} fixable with --fix --unsafe-fixes")
    if extras:
        msg += f" ({', '.join(extras)})"
    click.echo(msg + "." + _prefiltered(run), err=True)


def _prefiltered(run) -> str:
    n = run.prefiltered
    if not n:
        return ""
    return f" {n} file{'s' if n != 1 else ''} skipped by the trigger pre-filter (no enabled rule's trigger word)."


def _errors(run) -> None:
    for w in run.warnings:
        _say(f"jaxlint: warning: {w}")
    for e in run.errors:
        _say(f"jaxlint: error: {e}")
    for p in run.unparsable_fix:
        _say(f"jaxlint: warning: {p}: a fix pass produced code that does not parse; kept the last valid version")


@main.command("rules")
@click.option("--output-format", type=click.Choice(["table", "json"]), default="table")
def rules_cmd(output_format: str) -> None:
    """List every rule: code, name, status, fix."""
    from jaxlint.lint.registry import all_rules

    rules = all_rules()
    if output_format == "json":
        import json

        click.echo(
            json.dumps(
                [
                    {
                        "code": r.code,
                        "name": r.name,
                        "status": r.status,
                        "fix": r.fix_availability,
                        "summary": r.summary,
                    }
                    for r in rules
                ],
                indent=2,
            )
        )
        return
    for r in rules:
        fix = {"none": "", "safe": "safe fix", "unsafe": "unsafe fix", "sometimes": "fix sometimes"}[r.fix_availability]
        click.echo(f"{r.code}  {r.name:<34} {r.status:<8} {fix:<13} {r.summary}".rstrip())


@main.command("rule")
@click.argument("code")
def rule_cmd(code: str) -> None:
    """Show a rule's documentation."""
    from jaxlint.lint.registry import rule_by_code

    r = rule_by_code(code)
    if r is None:
        fail(f"unknown rule {code!r} (see `jaxlint rules`)")
    click.echo(f"# {r.code} {r.name} ({r.status})\n\n{r.summary}.\n\n{r.documentation()}")


@main.command("verify")
@click.argument("codes", nargs=-1)
@click.option("--output-format", type=click.Choice(["table", "json"]), default="table")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Programs run at once (default: CPU count).")
@click.option("--timeout", type=float, default=120.0, show_default=True, help="Seconds per reference program.")
def verify_cmd(codes, output_format: str, jobs: int | None, timeout: float) -> None:
    """Run every rule's JAX reference programs and confirm the rule (needs jax)."""
    from jaxlint.verify.cli import run_verify

    sys.exit(run_verify(list(codes), output_format, jobs, timeout))
