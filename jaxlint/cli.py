"""The ``jaxlint`` command. Parses options, calls the api, prints; no logic of its own."""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn, TextIO

import click

from jaxlint import __version__

if TYPE_CHECKING:  # rich is imported when a progress bar is shown: a quick run never needs it
    from rich.console import Console
    from rich.progress import Progress, TaskID

EXIT_OK, EXIT_FOUND, EXIT_ERROR = 0, 1, 2
FORMATS = ("full", "concise", "json", "github", "gitlab", "sarif")


def fail(message: str) -> NoReturn:
    _say(f"jaxlint: error: {message}")
    sys.exit(EXIT_ERROR)


def _say(line: str) -> None:
    """One line on stderr; file names and quoted text in it escaped (jaxlint.report.escape),
    line breaks kept only for the traceback ``JAXLINT_DEBUG=1`` asks for."""
    from jaxlint.base.crash import debug
    from jaxlint.report.escape import no_workflow_commands, printable

    click.echo(no_workflow_commands(printable(line, line_breaks=debug())), err=True)


# ``jaxlint check --help`` in ruff's sections; options not named here are "Options"
OPTION_GROUPS: dict[str, tuple[str, ...]] = {
    "Rule selection": (
        "--select",
        "--ignore",
        "--extend-select",
        "--per-file-ignores",
        "--extend-per-file-ignores",
        "--unfixable",
    ),
    "File selection": ("--exclude", "--extend-exclude", "--force-exclude"),
    "Miscellaneous": (
        "--no-cache",
        "--cache-dir",
        "--stdin-filename",
        "--exit-zero",
        "--exit-non-zero-on-fix",
        "--jobs",
    ),
    "Log levels": ("--quiet",),
    "Global options": ("--config",),
}


def _grouped(ctx: click.Context, command: click.Command, formatter: click.HelpFormatter) -> None:
    sections: dict[str, list[tuple[str, str]]] = {"Options": []}
    sections.update({name: [] for name in OPTION_GROUPS})
    for param in command.get_params(ctx):
        if not isinstance(param, click.Option):
            continue
        record = param.get_help_record(ctx)
        if record is None:
            continue
        group = next((g for g, names in OPTION_GROUPS.items() if set(param.opts) & set(names)), "Options")
        sections[group].append(record)
    for name, rows in sections.items():
        if rows:
            with formatter.section(name):
                formatter.write_dl(rows)


class GroupedCommand(click.Command):
    """A command whose ``--help`` groups its options as ruff's does."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        _grouped(ctx, self, formatter)


class DefaultGroup(click.Group):
    """``jaxlint PATHS`` means ``jaxlint check PATHS``; an unknown command that is not a
    path gets "did you mean"."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h", "--version", "-V")):
            if args and not args[0].startswith("-") and not os.path.exists(args[0]) and args[0] != "-":
                import difflib

                close = difflib.get_close_matches(args[0], list(self.commands), n=1, cutoff=0.6)
                if close:
                    fail(
                        f"unknown command {args[0]!r} (did you mean {close[0]!r}?); "
                        f"a path of that name does not exist either"
                    )
            args = ["check", *args]
        return super().parse_args(ctx, args)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Like ``ruff --help``: the commands, then the options of ``jaxlint [check]``."""
        self.format_usage(ctx, formatter)
        self.format_help_text(ctx, formatter)
        self.format_commands(ctx, formatter)
        with formatter.section("Global options"):
            formatter.write_dl([("-V, --version", "Print the version and exit."), ("-h, --help", "Print help.")])
        formatter.write_paragraph()
        formatter.write_text("`jaxlint [PATHS]...` is `jaxlint check [PATHS]...`, with these options.")
        check_cmd = self.commands["check"]
        _grouped(click.Context(check_cmd, info_name="check", parent=ctx), check_cmd, formatter)
        formatter.write_paragraph()
        formatter.write_text("For help with a command, see: `jaxlint COMMAND --help`.")

    def invoke(self, ctx: click.Context):
        """A bug in jaxlint exits 2 with one line saying where (never 1: that means findings);
        SIGTERM and SIGHUP end the run and its workers, exit 128 + the signal, one line."""
        from jaxlint.base.processes import Terminated, terminated_on_signals

        try:
            with terminated_on_signals():
                return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except BrokenPipeError:
            _quiet_broken_pipe()
        except KeyboardInterrupt:
            click.echo("jaxlint: interrupted", err=True)
            sys.exit(130)
        except Terminated as t:
            click.echo(f"jaxlint: terminated by {t.name}", err=True)
            sys.exit(t.exit_code)
        except Exception as exc:
            from jaxlint.base.crash import internal_error_line

            fail(internal_error_line(exc))


def _quiet_broken_pipe() -> NoReturn:
    """The reader went away (``jaxlint rules | head``): stop quietly, exit 0, as ruff does."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's final flush must not fail again
    except (OSError, ValueError):
        pass
    sys.exit(EXIT_OK)


def _codes(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [c.strip().upper() for c in value.split(",") if c.strip()]


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="jaxlint", message="%(prog)s %(version)s")
def main() -> None:
    """jaxlint: a static linter for JAX code."""
    from jaxlint.base.processes import freeze_at_exit

    freeze_at_exit()


@main.command(cls=GroupedCommand)
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--select", help="Comma-separated rule codes or prefixes to enable (or ALL).")
@click.option("--extend-select", help="Codes or prefixes to enable on top of the selection.")
@click.option("--ignore", help="Codes or prefixes to disable.")
@click.option("--preview/--no-preview", default=None, help="Enable preview rules.")
@click.option("--fix", "do_fix", is_flag=True, help="Apply safe fixes.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply (and show) unsafe fixes.")
@click.option("--fix-only", is_flag=True, help="Apply fixes and report nothing that remains (implies --fix).")
@click.option("--unfixable", help="Codes or prefixes whose fixes are never offered or applied.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; change no file.")
@click.option("--show-fixes", is_flag=True, help="List the fixes that were applied.")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: CODE` to every line with a diagnostic.")
@click.option(
    "--output-format", type=click.Choice(FORMATS), help="Output format (default: full on a terminal, else concise)."
)
@click.option("--output-file", "-o", type=click.Path(dir_okay=False), help="Write the report to this file.")
@click.option("--statistics", is_flag=True, help="Count diagnostics per rule instead of listing them.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when diagnostics remain.")
@click.option("--exit-non-zero-on-fix", is_flag=True, help="Exit 1 when any fix was applied.")
@click.option("--stdin-filename", help="The name of the file read from stdin (`-`).")
@click.option("--exclude", "exclude_opt", help="Patterns to exclude, comma-separated (replaces `exclude`).")
@click.option("--extend-exclude", "extend_exclude_opt", help="Patterns to exclude on top of `exclude`.")
@click.option(
    "--per-file-ignores",
    "per_file_ignores_opt",
    multiple=True,
    metavar="PATTERN:CODES",
    help="Ignore CODES in files matching PATTERN (replaces `per-file-ignores`; repeatable).",
)
@click.option(
    "--extend-per-file-ignores",
    "extend_per_file_ignores_opt",
    multiple=True,
    metavar="PATTERN:CODES",
    help="Like --per-file-ignores, on top of the configured ones.",
)
@click.option(
    "--force-exclude/--no-force-exclude",
    default=None,
    help="Apply the exclusions to files named on the command line too (pre-commit).",
)
@click.option("--show-files", is_flag=True, help="Print the files that would be linted, and exit.")
@click.option("--show-settings", is_flag=True, help="Print the settings that apply to the one file named, and exit.")
@click.option(
    "--config", "config_path", type=click.Path(), help="A pyproject.toml or jaxlint.toml to use for every file."
)
@click.option(
    "--target-jax-version",
    help="The one JAX version the code must run on (default: 0.10.2, with fixes that also work on the lowest jax the project declares).",
)
@click.option("--no-cache", is_flag=True, help="Neither read nor write the result cache.")
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False),
    envvar="JAXLINT_CACHE_DIR",
    help="The cache folder (default: .jaxlint_cache at the project root).",
)
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
    fix_only,
    unfixable,
    diff,
    show_fixes,
    add_noqa,
    output_format,
    output_file,
    statistics,
    exit_zero,
    exit_non_zero_on_fix,
    stdin_filename,
    exclude_opt,
    extend_exclude_opt,
    per_file_ignores_opt,
    extend_per_file_ignores_opt,
    force_exclude,
    show_files,
    show_settings,
    config_path,
    target_jax_version,
    no_cache,
    cache_dir,
    jobs,
    quiet,
) -> None:
    """Lint PATHS (files or folders; default: the current folder; `-` reads stdin)."""
    from jaxlint.base.types import RunResult
    from jaxlint.files.discover import DiscoveryError, discover
    from jaxlint.lint.config import ConfigError, Resolver, parse_version, rebase_pattern, validate_settings

    paths = list(paths) or ["."]
    do_fix = do_fix or fix_only
    start = stdin_filename if "-" in paths and stdin_filename else paths[0]
    cwd = os.getcwd()
    pfi = _pattern_codes(per_file_ignores_opt, "--per-file-ignores")
    extend_pfi = _pattern_codes(extend_per_file_ignores_opt, "--extend-per-file-ignores")

    def override(settings) -> None:
        """The command line's options, on every file's settings (patterns are relative to here)."""

        def rebased(patterns: list[str]) -> list[str]:
            return [q for q in (rebase_pattern(p, cwd, settings.root) for p in patterns) if q is not None]

        def rebased_map(mapping: dict[str, list[str]]) -> dict[str, list[str]]:
            out = {}
            for pattern, codes in mapping.items():
                q = rebase_pattern(pattern, cwd, settings.root)
                if q is not None:
                    out[q] = codes
            return out

        if select is not None:
            settings.select = _codes(select)
            settings.selections.append(("--select", settings.select))
        if extend_select is not None:
            settings.extend_select = settings.extend_select + (_codes(extend_select) or [])
            settings.selections.append(("--extend-select", _codes(extend_select) or []))
        if ignore is not None:
            settings.ignore = settings.ignore + (_codes(ignore) or [])
        if unfixable is not None:
            settings.unfixable = settings.unfixable + (_codes(unfixable) or [])
        if preview is not None:
            settings.preview = preview
        if target_jax_version is not None:
            settings.set_target(target_jax_version, "--target-jax-version")
        if exclude_opt is not None:
            settings.exclude = rebased(_patterns(exclude_opt))
        if extend_exclude_opt is not None:
            settings.extend_exclude = settings.extend_exclude + rebased(_patterns(extend_exclude_opt))
        if per_file_ignores_opt:
            settings.per_file_ignores = rebased_map(pfi)
        if extend_per_file_ignores_opt:
            settings.per_file_ignores = {**settings.per_file_ignores, **rebased_map(extend_pfi)}
        if force_exclude is not None:
            settings.force_exclude = force_exclude

    try:
        if target_jax_version is not None:
            parse_version(target_jax_version)
        # rule codes are checked below, after the whole-run cache had its chance: checking
        # them imports every rule (and LibCST), which an unchanged tree does not need
        resolver = Resolver(config_path, start if start != "-" else ".", override)
        settings = resolver.for_path(start if start != "-" else ".")
    except ConfigError as e:
        fail(str(e))
    if add_noqa and (do_fix or diff):
        fail("--add-noqa cannot be combined with --fix, --fix-only or --diff")
    if show_settings:
        if len(paths) != 1 or paths == ["-"] or os.path.isdir(paths[0]):
            fail("--show-settings takes one file")
        from jaxlint.lint.show import show_settings as render_settings

        try:
            validate_settings(settings)
        except ConfigError as e:
            fail(str(e))
        click.echo(render_settings(paths[0], settings), nl=False)
        sys.exit(EXIT_OK)
    fmt = (
        output_format
        or settings.output_format
        or ("full" if _is_terminal(sys.stdout) and not output_file else "concise")
    )
    from jaxlint.report.color import use_color

    color = fmt == "full" and use_color(sys.stdout) and not output_file

    def source_lines(path: str, cell: int | None = None):
        from jaxlint import api

        if path == (stdin_filename or "-") and stdin_text is not None:
            return api.source_lines(stdin_text) if cell is None else api.cell_lines(path, cell, stdin_text)
        return api._lines(path) if cell is None else api.cell_lines(path, cell)

    stdin_text = None
    stdin_bytes, encoding = b"", "utf-8"
    run = None
    if "-" in paths and paths != ["-"]:
        fail("`-` (stdin) cannot be combined with other paths")
    groups: list = []
    if paths != ["-"]:
        try:
            files = discover(
                paths, settings.root, [], [], excluded_by=resolver.excluded, force_exclude=settings.force_exclude
            )
            groups = resolver.groups(files)
        except DiscoveryError as e:
            fail(str(e))
        except ConfigError as e:
            fail(str(e))
        if show_files:
            for f in files:
                click.echo(f)
            sys.exit(EXIT_OK)
        caches = [_cache(s, cache_dir) if not no_cache else None for s, _ in groups]
        if not (do_fix or diff or add_noqa) and groups and all(c is not None for c in caches):
            hits = [c.get_run(c.run_key(fs, paths)) for c, (_, fs) in zip(caches, groups, strict=True) if c is not None]
            if all(h is not None for h in hits):
                run = _merge([RunResult.from_cache(h, len(fs)) for h, (_, fs) in zip(hits, groups, strict=True)])
    if run is None:
        from jaxlint import api
        from jaxlint.lint.registry import RegistryError, SelectionError, check_selectors

        try:
            for s, _ in groups or [(settings, [])]:
                validate_settings(s)
            for opt, value in (
                ("--select", select),
                ("--extend-select", extend_select),
                ("--ignore", ignore),
                ("--unfixable", unfixable),
            ):
                check_selectors(_codes(value) or [], opt)
            for opt, mapping in (("--per-file-ignores", pfi), ("--extend-per-file-ignores", extend_pfi)):
                for codes in mapping.values():
                    check_selectors(codes, opt)
            if paths == ["-"]:
                if add_noqa:
                    fail("--add-noqa cannot read stdin")
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
                runs = []
                with progress as advance, doing(f"{'fixing' if do_fix else 'linting'} {' '.join(paths)}"):
                    for (s, fs), cache in zip(groups, caches, strict=True):
                        if do_fix or diff:
                            runs.append(
                                api.fix_paths(
                                    paths,
                                    s,
                                    unsafe=unsafe_fixes,
                                    write=not diff,
                                    jobs=jobs,
                                    cache=cache,
                                    progress=advance,
                                    files=fs,
                                )
                            )
                        else:
                            runs.append(api.lint_paths(paths, s, jobs=jobs, cache=cache, progress=advance, files=fs))
                run = _merge(runs)
        except DiscoveryError as e:
            fail(str(e))
        except api.ReadError as e:
            fail(str(e))
        except (ConfigError, SelectionError, RegistryError) as e:
            fail(str(e))

    if paths != ["-"] and not groups and not quiet:
        click.echo("jaxlint: warning: No Python files found under the given path(s)", err=True)
    if add_noqa:
        from jaxlint.fix.noqa import add_noqa as add_directives

        added, noqa_warnings = add_directives(run.diagnostics)
        run.warnings.extend(noqa_warnings)
        if not quiet:
            click.echo(f"Added {added} noqa directive{'s' if added != 1 else ''}.", err=True)
        _errors(run)
        sys.exit(EXIT_ERROR if run.errors else EXIT_OK)
    out = _output(output_file)
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
        out.close()
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
    if fix_only:
        out.close()
        if not quiet:
            n = sum(run.fixed.values())
            click.echo(f"Fixed {n} problem{'s' if n != 1 else ''}." if n else "No problems fixed.", err=True)
        _errors(run)
        if run.errors:
            sys.exit(EXIT_ERROR)
        sys.exit(EXIT_FOUND if exit_non_zero_on_fix and run.fixed else EXIT_OK)
    if statistics:
        out.write(_statistics(diags, unsafe_fixes, fmt))
    elif not (paths == ["-"] and do_fix):
        out.write(_render(fmt, diags, color=color, source=source_lines, unsafe_fixes=unsafe_fixes))
    out.close()
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


def _patterns(value: str) -> list[str]:
    return [p.strip() for p in value.split(",") if p.strip()]


def _pattern_codes(values: tuple[str, ...], option: str) -> dict[str, list[str]]:
    """``PATTERN:CODES`` options as a mapping (ruff's form: ``tests/*.py:JAX4,JAX5``)."""
    out: dict[str, list[str]] = {}
    for v in values:
        pattern, sep, codes = v.rpartition(":")
        if not sep or not pattern.strip() or not _codes(codes):
            fail(f"{option}: expected PATTERN:CODES (e.g. `tests/*.py:JAX4`), got {v!r}")
        out.setdefault(pattern.strip(), []).extend(_codes(codes) or [])
    return out


def _cache(settings, cache_dir: str | None):
    from jaxlint.cache.store import Cache

    return Cache.for_settings(settings, cache_dir)


def _merge(runs: list):
    """One run's result from the runs of each group of files with the same settings."""
    from jaxlint.base.types import Diagnostic, RunResult

    if len(runs) == 1:
        return runs[0]
    out = RunResult()
    for r in runs:
        out.diagnostics.extend(r.diagnostics)
        out.files += r.files
        out.errors.extend(r.errors)
        out.fixed.update(r.fixed)
        out.diffs.update(r.diffs)
        out.unparsable_fix.extend(r.unparsable_fix)
        out.prefiltered += r.prefiltered
        out.warnings.extend(w for w in r.warnings if w not in out.warnings)
    out.diagnostics.sort(key=Diagnostic.sort_key)
    return out


def _output(path: str | None) -> _Output:
    return _Output(path)


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
    """stdout, or the ``--output-file`` (written whole when the report is done). A closed or
    full stdout is one clear line (exit 2), and the unwritten rest is dropped (not reported
    again when Python exits)."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.parts: list[str] = []

    def write(self, text: str) -> None:
        if self.path is None:
            self._stdout(lambda out: out.write(text))
        else:
            self.parts.append(text)

    def write_bytes(self, data: bytes) -> None:
        """Bytes on stdout (the fixed code read from stdin, in its own encoding)."""
        self._stdout(lambda out: (out.flush(), out.buffer.write(data)))

    def close(self) -> None:
        if self.path is None:
            return
        try:
            with open(self.path, "w", encoding="utf-8") as f:
                f.write("".join(self.parts))
        except OSError as e:
            fail(f"{self.path}: cannot write the report: {e.strerror}")
        self.path = None

    def _stdout(self, action: Callable[[TextIO], object]) -> None:
        out = sys.stdout
        if out is None:
            fail("could not write <stdout>: it is closed")
        try:
            action(out)
            out.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
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
    run = RunResult(diags, 1, warnings=_stdin_directive_warnings(text, path))
    if fix:
        new, count, remaining, gave_up = api.fix_source(text, path, settings, unsafe)
        if gave_up:
            run.unparsable_fix.append(path)
        if count:
            run.fixed[path] = count
            run.diffs[path] = (text, new)
        run.diagnostics = remaining
    return run, text, encoding


def _stdin_directive_warnings(text: str, path: str) -> list[str]:
    """Malformed suppression directives of the text read from stdin (see jaxlint.lint.suppress)."""
    from jaxlint.base.types import FileResult
    from jaxlint.lint.engine import python_source
    from jaxlint.lint.registry import all_rules
    from jaxlint.lint.suppress import scan_suppressions, warnings_for

    source = python_source(path, text, FileResult(path=path))
    if source is None:
        return []
    return warnings_for(scan_suppressions(source), path, {r.name: r.code for r in all_rules()})


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

    def __init__(self, delay: float | None = None, console: Console | None = None) -> None:
        self.delay = self.DELAY if delay is None else delay
        self.console = console
        self.p: Progress | None = None
        self.task: TaskID  # set with ``p``
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


def _statistics(diags, unsafe: bool, fmt: str = "concise") -> str:
    """Counts per rule: ruff's table, or with ``--output-format json`` ruff's JSON list."""
    counts = Counter((d.code, d.name) for d in diags)
    fixable = Counter(d.code for d in diags if d.fix is not None and (d.fix.applicability == "safe" or unsafe))
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if fmt == "json":
        import json

        return (
            json.dumps(
                [
                    {
                        "code": code,
                        "name": name,
                        "count": n,
                        "fixable": fixable[code] == n,
                        "fixable_count": fixable[code],
                    }
                    for (code, name), n in rows
                ],
                indent=2,
            )
            + "\n"
        )
    lines = []
    for (code, name), n in rows:
        mark = "[*]" if fixable[code] == n else ("[-]" if fixable[code] else "   ")
        lines.append(f"{n:>5}  {code}  {mark} {name}\n")
    return "".join(lines)


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


@main.command("clean")
@click.argument("paths", nargs=-1, type=click.Path(file_okay=False))
@click.option("--cache-dir", type=click.Path(file_okay=False), envvar="JAXLINT_CACHE_DIR", help="The cache folder.")
def clean_cmd(paths, cache_dir: str | None) -> None:
    """Remove the cache folders (.jaxlint_cache) under PATHS (default: the current folder)."""
    from jaxlint.cache.clean import clean

    removed, errors = clean(list(paths) or ["."], cache_dir)
    for path in removed:
        click.echo(f"Removed cache at: {path}", err=True)
    for e in errors:
        click.echo(f"jaxlint: error: {e}", err=True)
    if not removed and not errors:
        click.echo("No cache found.", err=True)
    sys.exit(EXIT_ERROR if errors else EXIT_OK)


@main.command("verify")
@click.argument("codes", nargs=-1)
@click.option("--output-format", type=click.Choice(["table", "json"]), default="table")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Programs run at once (default: CPU count).")
@click.option("--timeout", type=float, default=120.0, show_default=True, help="Seconds per reference program.")
def verify_cmd(codes, output_format: str, jobs: int | None, timeout: float) -> None:
    """Run every rule's JAX reference programs and confirm the rule (needs jax)."""
    from jaxlint.verify.cli import run_verify

    sys.exit(run_verify(list(codes), output_format, jobs, timeout))


@main.command("server")
@click.option(
    "--stdio", is_flag=True, help="Talk LSP over stdin/stdout (the only transport; accepted for clients that add it)."
)
@click.option(
    "--debounce-ms",
    type=click.IntRange(min=0),
    default=100,
    show_default=True,
    help="Wait after a change before linting.",
)
@click.option(
    "--jobs", "-j", type=click.IntRange(min=1), help="Worker processes reading the project (default: CPU count)."
)
def server_cmd(stdio: bool, debounce_ms: int, jobs: int | None) -> None:
    """Run the language server for editors (LSP over stdio; needs the `server` extra)."""
    try:
        import lsprotocol  # noqa: F401  (only whether the server extra is installed)
        import pygls  # noqa: F401  (only whether the server extra is installed)
    except ImportError:
        fail("`jaxlint server` needs the server extra: pip install 'jaxlint[server]'")
    from jaxlint.server import serve

    serve(debounce_ms / 1000, jobs)
