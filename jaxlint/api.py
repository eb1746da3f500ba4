"""The importable entry points: lint_paths, lint_source, fix_paths.

discover -> read -> lint each file (pool) -> project facts -> pending verdicts ->
per-file ignores and suppressions -> sorted diagnostics.
"""

from __future__ import annotations

import io
import os
import re
import tokenize
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import libcst as cst

from jaxlint import suppress
from jaxlint.config import Settings
from jaxlint.discover import discover
from jaxlint.engine import FileLinter, release_memory
from jaxlint.slicing import Blanks, FilePlan, blanks_for, decide, job_digest
from jaxlint.modules import module_name_for
from jaxlint.project import Project
from jaxlint.registry import all_rules, enabled_rules
from jaxlint.rule import Rule
from jaxlint.types import Diagnostic, FileResult, Position, RunResult  # noqa: F401

MAX_FIX_PASSES = 10


class ReadError(Exception):
    pass


def read_source(path: str) -> tuple[str, str]:
    """(text, encoding) honouring a BOM or coding cookie; newlines kept as they are."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ReadError(f"{path}: cannot read: {e.strerror}") from None
    return decode(data, path)


def decode(data: bytes, path: str) -> tuple[str, str]:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        raise ReadError(f"{path}: cannot decode as {encoding}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, encoding


def selected_rules(settings: Settings) -> tuple[type[Rule], ...]:
    return enabled_rules(settings.select, settings.extend_select, settings.ignore, settings.preview)


# -- worker side ---------------------------------------------------------------------
_WORKER: FileLinter | None = None


def _collect() -> None:
    """Free the file's reference cycles (rules and their context) now, not at a threshold."""
    import gc

    if gc.get_threshold()[0] > 10_000:
        gc.collect()


def _init_worker(codes: tuple[str, ...], settings: Settings) -> None:
    import gc

    # LibCST builds millions of acyclic objects per file: at the default threshold (700
    # allocations) the cycle collector rescans the young tree over and over; a worker
    # collects once per file instead (``_collect``). About 5% of a cold run.
    gc.freeze()
    gc.set_threshold(50_000, 10, 10)
    global _WORKER
    rules = [r for r in all_rules() if r.code in codes]
    _WORKER = _make_linter(rules, settings)


def _make_linter(rules: Sequence[type[Rule]], settings: Settings) -> FileLinter:
    slicing = os.environ.get("JAXLINT_NO_SLICING", "") in ("", "0")
    return FileLinter([r for r in rules if not getattr(r, "engine_rule", False)], settings.rules, settings, slicing)


def _plan_file(path: str) -> tuple[str, object, str | None]:
    """First pass (see jaxlint.slicing): ("done", FileResult) | ("plan", FilePlan) | ("whole", None)."""
    assert _WORKER is not None
    try:
        text, _ = read_source(path)
    except ReadError as e:
        return "error", None, str(e)
    kind, value = _WORKER.plan(path, text)
    release_memory()
    return kind, value, None


# path, line ranges to blank, defs rules may look up, callers of seeds (see jaxlint.slicing)
Job = tuple[str, Blanks, "frozenset[str] | None", "frozenset[str] | None"]


def _lint_file(job: Job) -> tuple[FileResult, str | None]:
    assert _WORKER is not None
    path, blanks, looked_up, callers = job
    try:
        text, _ = read_source(path)
    except ReadError as e:
        return FileResult(path=path), str(e)
    result = _WORKER.lint(path, text, blanks=blanks, looked_up=looked_up, callers_of_seeds=callers)
    _collect()
    release_memory()  # the file's tree is gone: keep the worker small for the next one
    return result, None


# -- main side -----------------------------------------------------------------------
class Runner:
    """One lint run: settings, rules, and the project-wide phase."""

    def __init__(self, settings: Settings, jobs: int | None = None, cache=None, progress: Callable[[int], None] | None = None) -> None:
        self.settings = settings
        self.rules = selected_rules(settings)
        self.codes = frozenset(r.code for r in self.rules)
        self.jobs = jobs or os.cpu_count() or 1
        self.cache = cache
        self.progress = progress
        self._pfi = []
        if settings.per_file_ignores:
            import pathspec

            self._pfi = [
                (pathspec.GitIgnoreSpec.from_lines([pattern]), frozenset(codes))
                for pattern, codes in settings.per_file_ignores.items()
            ]

    # lint ----------------------------------------------------------------------------
    def lint_files(self, files: list[str]) -> tuple[list[FileResult], list[str]]:
        """Plan every file (``ast``), decide what LibCST must see project-wide, lint."""
        results: dict[str, FileResult] = {}
        errors: list[str] = []
        with self._pool() as run:
            plans = self._plans(files, run, errors)
            decided = decide([p for p in plans.values() if isinstance(p, FilePlan)])
            todo: list[Job] = []
            for path in files:
                plan = plans.get(path)
                if isinstance(plan, FileResult):
                    results[path] = plan
                    self._tick()
                    continue
                if path not in plans:
                    continue  # unreadable: reported by the first pass
                if isinstance(plan, FilePlan):
                    d = decided[path]
                    job: Job = (path, blanks_for(plan, d.kept), d.looked_up, d.callers_of_seeds)
                else:
                    job = (path, (), None, None)
                cached = self.cache.get(path, job_digest(*job[1:])) if self.cache is not None else None
                if cached is not None:
                    results[path] = cached
                    self._tick()
                else:
                    todo.append(job)
            del plans, decided
            for job, (res, err) in zip(todo, run(_lint_file, todo)):
                path = job[0]
                self._tick()
                if err is not None:
                    errors.append(err)
                    continue
                results[path] = res
                if self.cache is not None and res.internal_error is None:
                    self.cache.put(path, res, job_digest(*job[1:]))
        if self.cache is not None:
            self.cache.flush()
        return [results[p] for p in files if p in results], errors

    def _plans(self, files: list[str], run, errors: list[str]) -> dict[str, object]:
        """path -> FileResult (nothing to parse), FilePlan, or None (parse it whole)."""
        plans: dict[str, object] = {}
        todo: list[str] = []
        for path in files:
            hit = self.cache.get_plan(path) if self.cache is not None else None
            if hit is not None:
                plans[path] = hit[1]
            else:
                todo.append(path)
        for path, (kind, value, err) in zip(todo, run(_plan_file, todo)):
            if err is not None:
                errors.append(err)
                continue
            plans[path] = value
            if self.cache is not None:
                self.cache.put_plan(path, (kind, value))
        return plans

    def _tick(self) -> None:
        if self.progress:
            self.progress(1)

    @contextmanager
    def _pool(self):
        """``run(fn, items)``: results in order, from worker processes when it pays off."""
        pool = None

        def run(fn, items):
            nonlocal pool
            global _WORKER
            if self.jobs <= 1 or len(items) < 4:
                _WORKER = _make_linter(self.rules, self.settings)
                return map(fn, items)
            if pool is None:
                import multiprocessing
                from concurrent.futures import ProcessPoolExecutor

                ctx = multiprocessing.get_context("fork") if hasattr(os, "fork") else None
                pool = ProcessPoolExecutor(
                    max_workers=self.jobs, mp_context=ctx, initializer=_init_worker, initargs=(tuple(self.codes), self.settings)
                )
            chunk = max(1, min(16, len(items) // (self.jobs * 8)))
            return pool.map(fn, items, chunksize=chunk)

        try:
            yield run
        finally:
            if pool is not None:
                pool.shutdown()

    def finish(self, results: list[FileResult], sources: Callable[[str], list[str] | None] | None = None) -> tuple[list[Diagnostic], list[str]]:
        """Project phase: decide pending findings, then per-file ignores and suppressions."""
        projects, island_of = islands([r.facts for r in results if r.facts is not None])
        by_rule: dict[tuple[str, str], list] = defaultdict(list)
        per_file: dict[str, list[Diagnostic]] = defaultdict(list)
        errors: list[str] = []
        for r in results:
            per_file[r.path].extend(r.diagnostics)
            for p in r.pending:
                by_rule[(p.code, island_of(p.path))].append(p)
            if r.internal_error:
                errors.append(f"{r.path}: internal error: {r.internal_error}")
        rules = {rule.code: rule for rule in self.rules}
        for (code, island), items in sorted(by_rule.items()):
            rule = rules.get(code)
            if rule is None:
                continue
            try:
                verdicts = list(rule.resolve(items, projects[island]))
            except Exception as exc:  # noqa: BLE001 - a rule bug is reported, not raised
                errors.append(f"internal error in {code} (project phase): {type(exc).__name__}: {exc}")
                continue
            for p, message in verdicts:
                per_file[p.path].append(
                    Diagnostic(p.path, code, rule.name, message, p.start, p.end, p.fix, rule.is_preview(), rule.help)
                )
        out: list[Diagnostic] = []
        supp_by_path = {r.path: r.suppressions for r in results}
        for path, diags in per_file.items():
            diags = [d for d in diags if d.code in self.codes or d.code == "JAX001"]
            ignored = self._per_file_ignored(path)
            if ignored:
                diags = [d for d in diags if not any(d.code.startswith(c) or c == "ALL" for c in ignored)]
            lines = sources(path) if sources is not None else None
            out.extend(suppress.apply(diags, supp_by_path.get(path), path, self.codes, lines))
        for r in results:
            if r.path not in per_file and r.suppressions is not None and r.suppressions.comments:
                lines = sources(r.path) if sources is not None else None
                out.extend(suppress.apply([], r.suppressions, r.path, self.codes, lines))
        out = list({(d.sort_key(), d.end): d for d in out}.values())
        out.sort(key=Diagnostic.sort_key)
        return out, errors

    def _per_file_ignored(self, path: str) -> set[str]:
        if not self._pfi:
            return set()
        rel = os.path.relpath(os.path.abspath(path), self.settings.root).replace(os.sep, "/")
        out: set[str] = set()
        for spec, codes in self._pfi:
            if spec.match_file(rel) or spec.match_file(os.path.basename(path)):
                out |= codes
        return out


def islands(modules: list) -> tuple[dict[str, Project], Callable[[str], str]]:
    """One project, or one per folder of scripts whose module names clash.

    Several top-level scripts may share a module name (``examples/*/train.py``): each is
    a separate program that imports its own siblings. Findings in such a folder are
    decided against the unambiguous modules plus that folder's scripts; everything else
    against the unambiguous modules.
    """
    by_name: dict[str, list] = defaultdict(list)
    for m in modules:
        by_name[m.module].append(m)
    clashing = {name for name, ms in by_name.items() if len(ms) > 1}
    if not clashing:
        project = Project(modules)
        return {"": project}, lambda path: ""
    base = [m for m in modules if m.module not in clashing]
    folders = sorted({os.path.dirname(m.path) for m in modules if m.module in clashing})
    projects = {"": Project(base)}
    for d in folders:
        projects[d] = Project(base + [m for m in modules if m.module in clashing and os.path.dirname(m.path) == d])
    wanted = set(folders)

    def island_of(path: str) -> str:
        d = os.path.dirname(path)
        return d if d in wanted else ""

    return projects, island_of


def source_lines(text: str) -> list[str]:
    """Lines as Python (and LibCST) count them: only \\n, \\r\\n and \\r end a line."""
    lines = _LINE_END.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


_LINE_END = re.compile(r"\r\n|\r|\n")


def _lines(path: str) -> list[str] | None:
    try:
        return module_lines(path, read_source(path)[0])
    except ReadError:
        return None


def module_lines(path: str, text: str) -> list[str]:
    """The lines rules saw: a notebook's virtual module (its JSON if it is not one)."""
    if path.endswith(".ipynb"):
        from jaxlint.notebook import NotebookError, python_text

        try:
            text = python_text(text)
        except NotebookError:
            pass
    return source_lines(text)


def _in_cells(diags: list[Diagnostic], files: Iterable[str], texts: dict[str, str] | None = None) -> list[Diagnostic]:
    """Notebook positions moved from the virtual module to cells (jaxlint.notebook_map)."""
    files = [f for f in files if f.endswith(".ipynb")]
    if not files:
        return diags
    from jaxlint.notebook_map import to_cells

    def text_of(path: str) -> str | None:
        if texts is not None and path in texts:
            return texts[path]
        try:
            return read_source(path)[0]
        except ReadError:
            return None

    return to_cells(diags, files, text_of)


def lint_paths(paths: list[str], settings: Settings, jobs: int | None = None, cache=None, progress=None) -> RunResult:
    files = discover(paths, settings.root, settings.exclude, settings.extend_exclude)
    run_key = cache.run_key(files) if cache is not None else None
    hit = cache.get_run(run_key) if cache is not None else None
    if hit is not None:
        if progress:
            progress(len(files))
        return RunResult(hit[0], len(files), hit[1])
    runner = Runner(settings, jobs, cache, progress)
    results, errors = runner.lint_files(files)
    diags, internal = runner.finish(results, _lines)
    diags = _in_cells(diags, files)
    if cache is not None and not errors and not internal:
        cache.put_run(run_key, (diags, []))
    return RunResult(diags, len(files), errors + internal)


def lint_source(source: str, path: str = "<stdin>", settings: Settings | None = None, module_name: str | None = None,
                cells: bool = True) -> list[Diagnostic]:
    """Lint one text as its own project (cross-module facts: only this module). A notebook's
    positions count in its cells unless ``cells`` is false (the fix loop's virtual module)."""
    settings = settings or Settings()
    runner = Runner(settings, jobs=1)
    linter = _make_linter(runner.rules, settings)
    if module_name is None:
        module_name = module_name_for(path)[0] if path != "<stdin>" and os.path.exists(path) else os.path.splitext(os.path.basename(path))[0]
    kind, plan = linter.plan(path, source, module_name, False)
    if kind == "done":
        res = plan
    else:
        if kind == "plan":
            d = decide([plan])[path]
            res = linter.lint(path, source, module_name, False, blanks=blanks_for(plan, d.kept), looked_up=d.looked_up,
                              callers_of_seeds=d.callers_of_seeds)
        else:
            res = linter.lint(path, source, module_name, False)
    if res.internal_error:
        raise RuntimeError(f"{path}: internal error: {res.internal_error}")
    diags, errors = runner.finish([res], lambda p: module_lines(path, source))
    if errors:
        raise RuntimeError("; ".join(errors))
    return _in_cells(diags, [path], {path: source}) if cells else diags


def fix_text(
    source: str,
    lint: Callable[[str], list[Diagnostic]],
    unsafe: bool,
    notebook: bool = False,
) -> tuple[str, int, list[Diagnostic], bool]:
    """Fix to a fixed point. Returns (text, fixes applied, remaining diagnostics, gave_up_unparsable).

    A ``notebook`` is fixed in its cells' sources and checked through its virtual module."""
    from jaxlint.fix import apply_fixes, fixes_to_apply

    python = lambda t: t  # noqa: E731
    if notebook:
        from jaxlint.notebook import python_text
        from jaxlint.notebook_fix import apply_fixes

        python = python_text
    text = source
    applied_total = 0
    diags = lint(text)
    for _ in range(MAX_FIX_PASSES):
        fixes = fixes_to_apply(diags, unsafe)
        if not fixes:
            break
        new, applied = apply_fixes(text, fixes)
        if not applied or new == text:
            break
        try:
            cst.parse_module(python(new))
        except cst.ParserSyntaxError:
            return text, applied_total, diags, True
        text = new
        applied_total += len(applied)
        diags = lint(text)
    return text, applied_total, diags, False


def fix_source(text: str, path: str, settings: Settings, unsafe: bool) -> tuple[str, int, list[Diagnostic], bool]:
    """``fix_text`` for one text linted as its own project (a notebook by its ``path``)."""
    notebook = path.endswith(".ipynb")
    new, count, remaining, gave_up = fix_text(text, lambda t: lint_source(t, path, settings, cells=False), unsafe, notebook)
    return new, count, (_in_cells(remaining, [path], {path: new}) if notebook else remaining), gave_up


def cell_lines(path: str, cell: int, text: str | None = None) -> list[str] | None:
    """A notebook cell's own source lines (for the code frame of the full view)."""
    from jaxlint.notebook import NotebookError, parse

    try:
        found = parse(read_source(path)[0] if text is None else text).cell(cell)
    except (ReadError, NotebookError):
        return None
    return source_lines(found.source) if found is not None else None


def fix_paths(paths: list[str], settings: Settings, unsafe: bool = False, write: bool = True, jobs: int | None = None, cache=None, progress=None) -> RunResult:
    """Lint, then fix every file with applicable fixes to a fixed point (atomically written)."""
    from jaxlint.fix import atomic_write, fixes_to_apply
    files = discover(paths, settings.root, settings.exclude, settings.extend_exclude)
    runner = Runner(settings, jobs, cache, progress)
    results, errors = runner.lint_files(files)
    diags, internal = runner.finish(results, _lines)
    run = RunResult([], len(files), errors + internal)
    by_path: dict[str, list[Diagnostic]] = defaultdict(list)
    for d in diags:
        by_path[d.path].append(d)
    linter = _make_linter(runner.rules, settings)
    others = {r.path: r for r in results}
    final: list[Diagnostic] = []
    for path in files:
        mine = by_path.get(path, [])
        if not fixes_to_apply(mine, unsafe):
            final.extend(mine)
            continue
        original, encoding = read_source(path)
        module_name, is_pkg = module_name_for(path)

        def relint(text: str, path=path, module_name=module_name, is_pkg=is_pkg) -> list[Diagnostic]:
            res = linter.lint(path, text, module_name, is_pkg)
            rest = [r for p, r in others.items() if p != path]
            d, _ = runner.finish(rest + [res], lambda p, text=text: module_lines(path, text) if p == path else _lines(p))
            return [x for x in d if x.path == path]

        new, count, remaining, gave_up = fix_text(original, lambda t: relint(t), unsafe, path.endswith(".ipynb"))
        if gave_up:
            run.unparsable_fix.append(path)
        if count and new != original:
            run.fixed[path] = count
            run.diffs[path] = (original, new)
            if write:
                atomic_write(path, new, encoding)
            final.extend(remaining)
        else:
            final.extend(mine)
    final = _in_cells(final, files, {p: new for p, (_, new) in run.diffs.items()})
    final.sort(key=Diagnostic.sort_key)
    run.diagnostics = final
    return run
