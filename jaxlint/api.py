"""The importable entry points: lint_paths, lint_source, fix_paths.

discover -> read -> lint each file (pool) -> project facts -> pending verdicts ->
per-file ignores and suppressions -> sorted diagnostics.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import re
import stat
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxlint.base import limits
from jaxlint.base.crash import describe
from jaxlint.base.modules import module_name_for
from jaxlint.base.types import Diagnostic, FileResult, Position, RunResult
from jaxlint.files.discover import discover
from jaxlint.lint import suppress
from jaxlint.lint.config import Settings
from jaxlint.lint.engine import (
    IMPORTED,
    FileLinter,
    not_checked,
    python_source,
    release_memory,
    resource_reason,
    syntax_check,
)
from jaxlint.lint.registry import all_rules, enabled_rules
from jaxlint.lint.rule import Rule
from jaxlint.model.project import Project
from jaxlint.plan.importers import importers
from jaxlint.plan.slicing import (
    MODULE_DEPTH,
    Blanks,
    Decision,
    FilePlan,
    blanks_for,
    decide,
    job_digest,
    mark_anchored,
    project_anchors,
)

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor  # imported when a run uses worker processes

MAX_FIX_PASSES = 10
MAX_JOBS_PER_CPU = 4  # more worker processes only add memory: linting is CPU-bound
MAX_FILE_BYTES = limits.MAX_FILE_BYTES  # larger files are reported (JAX003), not read


class ReadError(Exception):
    """A file that cannot be read or decoded: ``reason`` says why, at ``position``."""

    def __init__(self, path: str, reason: str, position: Position | None = None) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason, self.position = path, reason, position or Position(1, 1)


_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a folder"),
)


def read_bytes(path: str) -> bytes:
    """The bytes of a regular file; never blocks on a FIFO or reads a device."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        if e.errno == errno.ENAMETOOLONG:  # a folder nested deeper than a path can name
            raise ReadError(
                path, f"Its path is longer than the system allows ({e.strerror}); it was not checked"
            ) from None
        if os.path.isdir(path):
            raise ReadError(path, f"Cannot list this folder ({e.strerror}); it was not checked") from None
        raise ReadError(path, f"Cannot read the file ({e.strerror}); it was not checked") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            try:
                os.listdir(path)
                reason = "This folder changed while it was being listed; it was not checked"
            except OSError as e:
                reason = f"Cannot list this folder ({e.strerror}); it was not checked"
            raise ReadError(path, reason)
        if not stat.S_ISREG(st.st_mode):
            kind = next((k for test, k in _KINDS if test(st.st_mode)), "not a regular file")
            raise ReadError(path, f"Not a regular file ({kind}); it was not checked")
        if st.st_size > MAX_FILE_BYTES:
            raise ReadError(
                path, f"The file is larger than {MAX_FILE_BYTES >> 20} MiB ({st.st_size} bytes); it was not checked"
            )
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read()
    except OSError as e:
        raise ReadError(path, f"Cannot read the file ({e.strerror}); it was not checked") from None
    finally:
        os.close(fd)


def read_source(path: str) -> tuple[str, str]:
    """(text, encoding) honouring a BOM or coding cookie; newlines kept as they are."""
    return decode(read_bytes(path), path)


def decode(data: bytes, path: str) -> tuple[str, str]:
    """The text of a source file, in the encoding it declares, as Python reads it
    (jaxlint.files.encoding); ReadError for what Python would refuse."""
    from jaxlint.files import encoding as codings

    try:
        encoding = codings.declared(data)
        text = codings.decode(data, encoding)
    except codings.EncodingRefused as e:
        raise ReadError(path, f"{e}; the file was not checked", Position(e.line, 1)) from None
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = len(data[data.rfind(b"\n", 0, e.start) + 1 : e.start].decode(encoding, errors="replace")) + 1
        bad = data[e.start : e.end].hex(" ")
        raise ReadError(
            path,
            f"Cannot decode the file as {encoding} (byte {bad}: {e.reason}); it was not checked",
            Position(line, column),
        ) from None
    except UnicodeError as e:  # a codec that reports no position
        raise ReadError(path, f"Cannot decode the file as {encoding} ({e}); it was not checked") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, encoding


def _unchecked(res: FileResult) -> bool:
    """A fault (JAX003) is not a property of the file's bytes: never cache it."""
    return any(d.code == "JAX003" for d in res.diagnostics)


def _submit_to(executor: ProcessPoolExecutor, fn: Callable[..., Any], items: list[Any], i: int) -> Any:
    return executor.submit(fn, items[i])


def _source_size(item: str | tuple) -> int:
    """Bytes of the file a pool item (a path, or a tuple that starts with one) names."""
    try:
        return os.stat(item if isinstance(item, str) else item[0]).st_size
    except OSError:
        return 0


def _died(path: str) -> FileResult:
    message = "The worker process checking this file died (killed, or crashed in native code); the file was not checked"
    return FileResult(path=path, diagnostics=[not_checked(path, message)])


def unreadable(e: ReadError) -> FileResult:
    """The result of a file that could not be read: one JAX003 saying why."""
    return FileResult(path=e.path, diagnostics=[not_checked(e.path, e.reason, e.position)])


def selected_rules(settings: Settings) -> tuple[type[Rule], ...]:
    return enabled_rules(settings.select, settings.extend_select, settings.ignore, settings.preview)


# -- worker side ---------------------------------------------------------------------
_WORKER: FileLinter | None = None


_linted = 0  # files linted by this process since its last full collection


def _compacted(jobs: list[Job]) -> list[Job]:
    """The jobs, copied once the plans are gone. They are built while the first pass's
    plans fill the heap, so their small objects end up spread over the plans' memory
    arenas, and an arena with one live object is never given back: the main process kept
    about 40 MiB of dead plans through the whole second pass on the jax repository. A copy
    made after the collection lives in a few fresh arenas, and the old ones are returned."""
    import gc
    import pickle

    blob = pickle.dumps(jobs, protocol=pickle.HIGHEST_PROTOCOL)
    jobs.clear()
    gc.collect()
    release_memory()
    return pickle.loads(blob)


def _collect() -> None:
    """Free the file's reference cycles (rules and their context) now, not at a threshold;
    every ``FULL_EVERY`` files also what was frozen with a tree (``_freeze_tree``)."""
    import gc

    global _linted
    if gc.get_threshold()[0] > 10_000:
        gc.collect()
        _linted += 1
        if _linted % FULL_EVERY == 0:
            gc.unfreeze()
            gc.collect()
            gc.freeze()


def _freeze_tree() -> None:
    """Take the file's tree, its events and parents out of the collector's sight once built.
    They hold no cycle of their own: the model's cycles around them keep them alive, and
    when ``_collect`` frees those cycles the tree goes by reference counting. Scanning the
    tree again in each collection was a fifth of a cold run. What else was alive here and
    later dies in a cycle waits for the next full collection (every ``FULL_EVERY`` files)."""
    import gc

    if gc.get_threshold()[0] >= GC_THRESHOLDS[0]:
        gc.freeze()


FULL_EVERY = 32


# LibCST builds millions of acyclic objects per file: at the default thresholds (700
# allocations) the cycle collector rescans the young tree over and over, and its full
# collections, over a heap that grows with the file, made linting one large file
# superlinear (100,000 lines: 820 µs a line against 360 at 4,000). Workers, and a run in
# this process, collect once per file instead (``_collect``). About 5% of a cold run.
GC_THRESHOLDS = (50_000, 10, 10)


@contextmanager
def _collecting_per_file():
    """The workers' collector settings while a run lints in this process (restored after)."""
    import gc

    old = gc.get_threshold()
    if old[0] >= GC_THRESHOLDS[0]:  # a worker, or already inside
        yield
        return
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*old)
        gc.unfreeze()


def _init_worker(codes: tuple[str, ...], settings: Settings, parent: int) -> None:
    import gc

    from jaxlint.base.processes import die_with_parent, ignore_interrupts

    ignore_interrupts()
    die_with_parent(parent)  # a killed run (an OOM kill, a cancelled CI job) leaves no worker behind

    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)  # for good: the worker lives for the run
    global _WORKER
    rules = [r for r in all_rules() if r.code in codes]
    _WORKER = _make_linter(rules, settings)
    _WORKER.on_parsed = _freeze_tree  # each file collected after it (``_lint_file``)


def _slicing_on() -> bool:
    """False with ``JAXLINT_NO_SLICING=1``: every file is parsed whole (the findings are the same)."""
    return os.environ.get("JAXLINT_NO_SLICING", "") in ("", "0")


def _make_linter(rules: Sequence[type[Rule]], settings: Settings) -> FileLinter:
    return FileLinter(
        [r for r in rules if not getattr(r, "engine_rule", False)], settings.rules, settings, _slicing_on()
    )


def _plan_file(path: str, anchored: frozenset[str] = frozenset()) -> tuple[str, object, str | None]:
    """First pass (see jaxlint.plan.slicing): ("done", FileResult) | ("plan", FilePlan) | ("whole", None).
    ``anchored``: the project anchors of other modules the file names (``Runner._promote``)."""
    assert _WORKER is not None
    try:
        text, _ = read_source(path)
    except ReadError as e:
        return "done", unreadable(e), None
    try:
        kind, value = _WORKER.plan(path, text, anchored=anchored)
    except (MemoryError, RecursionError) as exc:  # extreme code: this file is not checked, the run goes on
        return "done", FileResult(path=path, diagnostics=[not_checked(path, resource_reason(exc))]), None
    except Exception as exc:
        return "done", FileResult(path=path, internal_error=f"while planning: {describe(exc)}"), None
    release_memory()
    return kind, value, None


def _plan_promoted(item: tuple[str, frozenset[str]]) -> tuple[str, object, str | None]:
    return _plan_file(*item)


def _plan_again(plans: dict[str, object], run, errors: list[str], todo: list[tuple[str, frozenset[str]]]) -> None:
    """Plan the promoted files of ``todo`` (path, anchored names) again, in the pool, into
    ``plans``."""
    for (path, _), (_kind, value, err) in run(_plan_promoted, todo, lambda item: ("done", _died(item[0]), None)):
        if err is not None:
            errors.append(err)
            continue
        plans[path] = value


# path, line ranges to blank, defs rules may look up, callers of seeds (see jaxlint.plan.slicing),
# the project anchors of other modules the file names (``Runner._promote``), the files that
# import its defs (jaxlint.plan.importers)
Job = tuple[
    str, Blanks, "frozenset[str] | None", "frozenset[str] | None", "frozenset[str] | None", "frozenset[str] | None"
]


def job_for(
    path: str,
    plan: FilePlan | None,
    decided: dict[str, Decision] | None,
    importers: dict[str, frozenset[str]] | None = None,
) -> Job:
    """What the second pass does with a planned file: blank the units the decision did not keep
    (none when there is no decision: the main process had no memory for it)."""
    anchored = (plan.anchored or None) if isinstance(plan, FilePlan) else None
    imported = (importers or {}).get(os.path.abspath(path))
    if isinstance(plan, FilePlan) and decided is not None:
        d = decided[path]
        return (path, blanks_for(plan, d.kept), d.looked_up, d.callers_of_seeds, anchored, imported)
    return (path, (), None, None, anchored, imported)


def _lint_file(job: Job) -> tuple[FileResult, str | None]:
    assert _WORKER is not None
    path, blanks, looked_up, callers, anchored, imported = job
    try:
        text, _ = read_source(path)
    except ReadError as e:  # it vanished or changed since the first pass
        return unreadable(e), None
    try:
        result = _WORKER.lint(
            path,
            text,
            blanks=blanks,
            looked_up=looked_up,
            callers_of_seeds=callers,
            anchored=anchored or frozenset(),
            importers=imported or frozenset(),
        )
    except (MemoryError, RecursionError) as exc:
        return FileResult(path=path, diagnostics=[not_checked(path, resource_reason(exc))]), None
    except Exception as exc:
        return FileResult(path=path, internal_error=describe(exc)), None
    _collect()
    release_memory()  # the file's tree is gone: keep the worker small for the next one
    return result, None


# -- main side -----------------------------------------------------------------------
class Runner:
    """One lint run: settings, rules, and the project-wide phase."""

    # how worker processes start: "fork" is the cheapest; a process with threads (the
    # language server) uses "forkserver", since a fork copies other threads' locks held
    start_method = "fork"

    def __init__(
        self, settings: Settings, jobs: int | None = None, cache=None, progress: Callable[[int], None] | None = None
    ) -> None:
        self.settings = settings
        self.rules = selected_rules(settings)
        self.codes = frozenset(r.code for r in self.rules)
        self.cache = cache
        self.progress = progress
        self.warnings: list[str] = []  # of the last ``finish``: malformed suppression directives
        # about how this run went (--jobs capped, no memory for the decision): shown, never cached
        self.notices: list[str] = []
        cpus = os.cpu_count() or 1
        self.jobs = jobs or cpus
        if self.jobs > MAX_JOBS_PER_CPU * cpus:  # each one a process: 100,000 of them forked without end
            cap = MAX_JOBS_PER_CPU * cpus
            self.notices.append(
                f"--jobs {self.jobs} is more than {cap} ({MAX_JOBS_PER_CPU} per CPU): using {cap} worker processes"
            )
            self.jobs = cap
        self.workers = self.jobs  # and no more than there are files (``lint_files``)
        self._pfi = []
        if settings.per_file_ignores:
            import pathspec

            self._pfi = [
                (pathspec.GitIgnoreSpec.from_lines([pattern]), frozenset(codes))
                for pattern, codes in settings.per_file_ignores.items()
            ]

    # lint ----------------------------------------------------------------------------
    def lint_files(self, files: list[str], record: dict | None = None) -> tuple[list[FileResult], list[str]]:
        """Plan every file (``ast``), decide what LibCST must see project-wide, lint.

        ``record``, if given, receives the first pass's answers (``"plans"``: path -> FileResult,
        FilePlan or None), the decision (``"decided"``) and the job each file was linted with
        (``"jobs"``), which an editor's session keeps to decide again when a module changes
        (``redecide``) and to slice a buffer being edited (``edit_decision``)."""
        results: dict[str, FileResult] = {}
        errors: list[str] = []
        self.workers = max(1, min(self.jobs, len(files)))
        with self._pool() as run:
            plans = self._plans(files, run, errors)
            self._promote(plans, run, errors)
            self._promote_imported(plans, run, errors)
            planned = [p for p in plans.values() if isinstance(p, FilePlan)]
            decided = self._decide(planned)
            imported = importers(planned)
            del planned
            todo: list[Job] = []
            for path in files:
                plan = plans.get(path)
                if isinstance(plan, FileResult):
                    results[path] = plan
                    self._tick()
                    continue
                if path not in plans:
                    continue  # unreadable: reported by the first pass
                job = job_for(path, plan if isinstance(plan, FilePlan) else None, decided, imported)
                if record is not None:
                    record.setdefault("jobs", {})[path] = job
                cached = self.cache.get(path, job_digest(*job[1:])) if self.cache is not None else None
                if cached is not None:
                    results[path] = cached
                    self._tick()
                else:
                    todo.append(job)
            if record is not None:
                record["plans"], record["decided"] = plans, decided if decided is not None else {}
            del plans, decided, imported
            if record is None and todo:
                todo = _compacted(todo)
            for job, (res, err) in run(_lint_file, todo, lambda job: (_died(job[0]), None)):
                path = job[0]
                self._tick()
                if err is not None:
                    errors.append(err)
                    continue
                results[path] = res
                if (
                    self.cache is not None
                    and res.internal_error is None
                    and not res.rule_errors
                    and not _unchecked(res)
                ):
                    self.cache.put(path, res, job_digest(*job[1:]))
        if self.cache is not None:
            self.cache.flush()
        return [results[p] for p in files if p in results], errors

    def _decide(self, plans: list[FilePlan]) -> dict[str, Decision] | None:
        """The slicing decision; None when the main process has no memory for it: then every
        file is parsed whole (the findings are the same, tested) and the run goes on. Also
        None when slicing is off (``JAXLINT_NO_SLICING=1``)."""
        if not _slicing_on():
            return None
        try:
            return decide(plans)
        except MemoryError:
            note = "not enough memory to decide what to parse: every file was parsed whole"
            if note not in self.notices:
                self.notices.append(note)
            return None

    def _plans(self, files: list[str], run, errors: list[str]) -> dict[str, object]:
        """path -> FileResult (nothing to parse), FilePlan, or None (parse it whole)."""
        plans: dict[str, object] = {}
        todo: list[str] = []
        for path in files:
            hit = self.cache.get_plan(path) if self.cache is not None else None  # the cache hashes regular files only
            if hit is not None:
                plans[path] = hit[1]
            else:
                todo.append(path)
        for path, (kind, value, err) in run(_plan_file, todo, lambda path: ("done", _died(path), None)):
            if err is not None:
                errors.append(err)
                continue
            plans[path] = value
            if self.cache is not None and not (isinstance(value, FileResult) and _unchecked(value)):
                self.cache.put_plan(path, (kind, value))
        return {path: plans[path] for path in files if path in plans}  # in the files' order, as they finished

    def _promote(self, plans: dict[str, object], run, errors: list[str]) -> None:
        """What a name another module binds stands for, where this file imports it: a map
        (``batched_loss = jax.vmap(loss)`` there, ``batched_loss(params, xs)`` here), or a def
        that draws from its key. The units naming one are seeds of the rules reading project
        anchors (``slicing.mark_anchored``); a file whose words do not want those rules is
        planned again with them (it spells no ``vmap``, yet its calls run one)."""
        readers = [r for r in self.rules if r.project_anchors]
        if not readers:
            return
        anchors = frozenset().union(*(r.anchors or () for r in readers))
        words = sorted({w for r in readers for w in r.triggers})
        texts: dict[str, str | None] = {}
        # a file promoted in one round may itself bind an anchored name (``evaluate`` there
        # calls ``compute_metrics``, which holds a collective), which promotes the files that
        # name it in the next: MODULE_DEPTH rounds
        for _ in range(MODULE_DEPTH):
            found = project_anchors([p for p in plans.values() if isinstance(p, FilePlan)], anchors)
            if found is None:
                return
            todo: list[tuple[str, frozenset[str]]] = []
            for path, plan in plans.items():
                if isinstance(plan, FilePlan):
                    named = found.imported_by(plan)
                    if named:
                        mark_anchored(plan, named, readers)
                    continue
                if isinstance(plan, FileResult) and (not plan.prefilter or plan.diagnostics):
                    continue  # not skipped by the pre-filter (unreadable...), or a syntax error
                if path not in texts:
                    try:
                        texts[path], _ = read_source(path)
                    except ReadError:
                        texts[path] = None  # the second pass reports it
                text = texts[path]
                if text is None:
                    continue
                if not isinstance(plan, FileResult) and any(w in text for w in words):
                    continue  # parsed whole, and the readers run on it already
                named = found.named(text)
                if named:
                    todo.append((path, named))
            if not todo:
                return
            _plan_again(plans, run, errors, todo)

    def _promote_imported(self, plans: dict[str, object], run, errors: list[str]) -> None:
        """A file the trigger pre-filter skipped, or planned only for rules that do not follow
        such calls, that a planned file imports from (``from utils import log_scalars``
        beside a jitted step): its defs may run traced, called with traced arguments,
        whatever its words (a logging helper that never names jax). It is planned again with
        the rules that follow such calls (``target_callees``: JAX4xx, JAX501, JAX503), which
        the project-wide decision then keeps what they look up in; files it imports from in
        turn, ``MODULE_DEPTH`` rounds."""
        if not any(r.target_callees for r in self.rules):
            return
        done: set[str] = set()
        for _ in range(MODULE_DEPTH):
            imported: set[str] = set()
            for plan in plans.values():
                if isinstance(plan, FilePlan):
                    for q in plan.imports.values():
                        parts = q.split(".")
                        imported.update(".".join(parts[:k]) for k in range(1, len(parts) + 1))
            todo: list[tuple[str, frozenset[str]]] = []
            for path, plan in plans.items():
                if path in done:
                    continue
                if isinstance(plan, FilePlan):
                    # planned, but only for rules that do not follow such calls (a NumPy
                    # helper module that a migration rule's words brought in)
                    if plan.callees or IMPORTED in plan.anchored:
                        continue
                    anchored = plan.anchored | {IMPORTED}
                elif isinstance(plan, FileResult) and plan.prefilter == "skipped" and not plan.diagnostics:
                    anchored = frozenset({IMPORTED})
                else:
                    continue
                if module_name_for(path)[0] in imported:
                    done.add(path)
                    todo.append((path, anchored))
            if not todo:
                return
            _plan_again(plans, run, errors, todo)

    def _tick(self) -> None:
        if self.progress:
            self.progress(1)

    @contextmanager
    def _pool(self) -> Iterator[Callable[..., Iterable[Any]]]:
        """``run(fn, items, on_death)``: ``(item, result)`` pairs as the items finish, from
        worker processes when it pays off (``jaxlint.base.dispatch``). An item whose worker
        process dies (killed, or a crash in native code) gets ``on_death(item)`` instead, and
        the other items are still linted."""
        pools: dict[int, ProcessPoolExecutor] = {}  # worker count -> live pool

        def pool(workers: int):
            if workers not in pools:
                import multiprocessing
                from concurrent.futures import ProcessPoolExecutor

                ctx = multiprocessing.get_context(self.start_method) if hasattr(os, "fork") else None
                pools[workers] = ProcessPoolExecutor(
                    max_workers=workers,
                    mp_context=ctx,
                    initializer=_init_worker,
                    initargs=(tuple(self.codes), self.settings, os.getpid()),
                )
            return pools[workers]

        def in_pools(fn, items, on_death):
            from jaxlint.base.dispatch import WorkerDied, dispatched

            sizes = [_source_size(item) for item in items]
            rest, workers = list(range(len(items))), self.workers
            while rest:
                finished: set[int] = set()
                try:
                    submit = partial(_submit_to, pool(workers), fn, items)
                    for i, r in dispatched(submit, rest, sizes, workers):
                        finished.add(i)
                        yield items[i], r
                    return
                except WorkerDied as died:
                    pools.pop(workers).shutdown(wait=True, cancel_futures=True)
                    if workers == 1:  # one item in flight: it killed its worker
                        (i,) = died.in_flight
                        finished.add(i)
                        yield items[i], on_death(items[i])
                        workers = self.workers
                    else:  # which one? run the rest one at a time until it is found
                        workers = 1
                rest = [i for i in rest if i not in finished]

        def run(fn, items, on_death):
            global _WORKER
            items = list(items)
            if self.jobs <= 1 or len(items) < 4:
                _WORKER = _make_linter(self.rules, self.settings)
                _WORKER.on_parsed = _freeze_tree
                return ((item, fn(item)) for item in items)
            return in_pools(fn, items, on_death)

        try:
            with _collecting_per_file():
                yield run
        except BaseException:  # a signal (jaxlint.base.processes), Ctrl-C, a bug: no worker survives it
            for p in pools.values():
                _kill(p)
            raise
        for p in pools.values():
            p.shutdown()

    def finish(
        self, results: list[FileResult], sources: Callable[[str], list[str] | None] | None = None
    ) -> tuple[list[Diagnostic], list[str]]:
        """Project phase: decide pending findings, then per-file ignores and suppressions."""
        try:
            projects, island_of = islands([r.facts for r in results if r.facts is not None])
        except MemoryError:  # no project: every pending finding is one JAX003 below
            projects, island_of = None, lambda path: ""
        by_rule: dict[tuple[str, str], list] = defaultdict(list)
        per_file: dict[str, list[Diagnostic]] = defaultdict(list)
        errors: list[str] = []
        for r in results:
            per_file[r.path].extend(r.diagnostics)
            for p in r.pending:
                by_rule[(p.code, island_of(p.path))].append(p)
            if r.internal_error:
                errors.append(f"{r.path}: internal error: {r.internal_error}")
            for e in r.rule_errors:  # the rule's findings in this file are lost, the others kept
                errors.append(f"{r.path}: internal error in {e}")
        rules = {rule.code: rule for rule in self.rules}
        for (code, island), items in sorted(by_rule.items()):
            rule = rules.get(code)
            if rule is None:
                continue
            try:
                if projects is None:
                    raise MemoryError
                verdicts = list(rule.resolve(items, projects[island]))
            except (MemoryError, RecursionError) as exc:  # the files involved are not checked, the run goes on
                what = "nested too deeply" if isinstance(exc, RecursionError) else "too large"
                for path in sorted({p.path for p in items}):
                    per_file[path].append(
                        not_checked(
                            path,
                            f"{code} ({rule.name}) could not decide its findings in this file: "
                            f"the project is {what} for it ({type(exc).__name__})",
                        )
                    )
                continue
            except Exception as exc:
                files = sorted({p.path for p in items})
                where = files[0] + (f" and {len(files) - 1} more files" if len(files) > 1 else "")
                errors.append(f"{where}: internal error in {code} (project phase): {describe(exc)}")
                continue
            for verdict in verdicts:
                p, message = verdict[0], verdict[1]
                note = verdict[2] if len(verdict) > 2 else ""  # (pending, message, note)
                per_file[p.path].append(
                    Diagnostic(
                        p.path, code, rule.name, message, p.start, p.end, p.fix, rule.is_preview(), rule.help, note=note
                    )
                )
        out: list[Diagnostic] = []
        supp_by_path = {r.path: r.suppressions for r in results}
        if self.settings.unfixable:  # `unfixable`: never offered, never applied
            for path, diags in per_file.items():
                per_file[path] = [
                    dataclasses.replace(d, fix=None)
                    if d.fix is not None and any(c == "ALL" or d.code.startswith(c) for c in self.settings.unfixable)
                    else d
                    for d in diags
                ]
        for path, diags in per_file.items():
            diags = [d for d in diags if d.code in self.codes or d.code in ("JAX001", "JAX003")]
            ignored = self._per_file_ignored(path)
            if ignored:
                diags = [d for d in diags if not any(d.code.startswith(c) or c == "ALL" for c in ignored)]
            lines = sources(path) if sources is not None else None
            # a file that was not parsed cannot show that a suppression suppresses nothing
            unparsed = any(d.code in ("JAX001", "JAX003") for d in diags)
            codes = self.codes - {"JAX002"} if unparsed else self.codes
            out.extend(suppress.apply(diags, supp_by_path.get(path), path, codes, lines))
        for r in results:
            if r.path not in per_file and r.suppressions is not None and r.suppressions.comments:
                lines = sources(r.path) if sources is not None else None
                out.extend(suppress.apply([], r.suppressions, r.path, self.codes, lines))
        out = list({(d.sort_key(), d.end): d for d in out}.values())
        out.sort(key=Diagnostic.sort_key)
        self.warnings = selection_warnings(self.settings) + directive_warnings(results)
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


def _kill(pool) -> None:
    """End a process pool now: its workers killed, its pending work dropped."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # CPython's ProcessPoolExecutor
    for p in processes:
        with contextlib.suppress(OSError, AttributeError):
            p.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        with contextlib.suppress(OSError, AttributeError, AssertionError):
            p.join(5)


def selection_warnings(settings: Settings) -> list[str]:
    """A selector that enables only preview rules while preview is off has no effect (ruff warns)."""
    if settings.preview or not settings.selections:
        return []
    out = []
    rules = all_rules()
    for where, selectors in settings.selections:
        for sel in selectors:
            matched = [r for r in rules if sel == "ALL" or r.code.startswith(sel)]
            if matched and all(r.is_preview() for r in matched):
                prefix = f"{where}: " if where and where not in ("--select", "--extend-select") else ""
                out.append(
                    f"{prefix}Selection `{sel}` has no effect because preview is not enabled"
                    " (use --preview, or `preview = true`)"
                )
    return out


def directive_warnings(results: Iterable[FileResult]) -> list[str]:
    """One warning per malformed suppression directive (jaxlint.lint.suppress.Malformed)."""
    if not any(r.suppressions is not None and r.suppressions.malformed for r in results):
        return []
    names = {r.name: r.code for r in all_rules()}
    out: list[str] = []
    for r in results:
        out.extend(suppress.warnings_for(r.suppressions, r.path, names, _place))
    return out


def _place(path: str, line: int) -> str:
    """``path:line``; in a notebook ``path:cell N:line`` (the virtual module's line moved)."""
    if path.endswith(".ipynb"):
        from jaxlint.files.notebook import NotebookError, parse

        try:
            cell, in_cell = parse(read_source(path)[0]).locate(line)
            return f"{path}:cell {cell.number}:{in_cell}"
        except (ReadError, NotebookError, IndexError, ValueError):
            pass
    return f"{path}:{line}"


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
        from jaxlint.files.notebook import NotebookError, python_text

        with contextlib.suppress(NotebookError):  # not a notebook after all: its lines as they are
            text = python_text(text)
    return source_lines(text)


def _in_cells(diags: list[Diagnostic], files: Iterable[str], texts: dict[str, str] | None = None) -> list[Diagnostic]:
    """Notebook positions moved from the virtual module to cells (jaxlint.files.notebook_map)."""
    files = [f for f in files if f.endswith(".ipynb")]
    if not files:
        return diags
    from jaxlint.files.notebook_map import to_cells

    def text_of(path: str) -> str | None:
        if texts is not None and path in texts:
            return texts[path]
        try:
            return read_source(path)[0]
        except ReadError:
            return None

    return to_cells(diags, files, text_of)


def lint_paths(
    paths: list[str],
    settings: Settings,
    jobs: int | None = None,
    cache=None,
    progress=None,
    files: list[str] | None = None,
) -> RunResult:
    """Lint ``files`` (default: what ``paths`` discover) as one project with ``settings``."""
    if files is None:
        files = discover(paths, settings.root, settings.exclude, settings.extend_exclude)
    run_key = cache.run_key(files, paths) if cache is not None else None  # None when a file is not regular
    hit = cache.get_run(run_key) if cache is not None else None
    if hit is not None:
        if progress:
            progress(len(files))
        return RunResult.from_cache(hit, len(files))
    runner = Runner(settings, jobs, cache, progress)
    results, errors = runner.lint_files(files)
    _check_named(results, paths)
    diags, internal = runner.finish(results, _lines)
    diags = _in_cells(diags, files)
    prefiltered = sum(1 for r in results if r.prefilter)
    if cache is not None and not errors and not internal and not any(d.code == "JAX003" for d in diags):
        deps = sorted({(d[0], d[1]) for r in results for d in r.deps})
        cache.put_run(run_key, (diags, prefiltered, runner.warnings, deps))  # not the notices: about this run
    return RunResult(
        diags, len(files), errors + internal, prefiltered=prefiltered, warnings=[*runner.warnings, *runner.notices]
    )


def _check_named(results: list[FileResult], paths: list[str]) -> None:
    """A file named on the command line is always parsed, even without any trigger word."""
    named = {os.path.normpath(p) for p in paths}
    for r in results:
        if r.prefilter == "skipped" and r.path in named:
            try:
                text = python_source(r.path, read_source(r.path)[0], r)  # a notebook: its cells
            except ReadError as e:
                r.diagnostics.append(not_checked(r.path, e.reason, e.position))
                continue
            if text is not None:
                syntax_check(r, text)


@_collecting_per_file()
def lint_source(
    source: str,
    path: str = "<stdin>",
    settings: Settings | None = None,
    module_name: str | None = None,
    cells: bool = True,
) -> list[Diagnostic]:
    """Lint one text as its own project (cross-module facts: only this module). A notebook's
    positions count in its cells unless ``cells`` is false (the fix loop's virtual module)."""
    settings = settings or Settings()
    runner = Runner(settings, jobs=1)
    linter = _make_linter(runner.rules, settings)
    if module_name is None:
        module_name = (
            module_name_for(path)[0]
            if path != "<stdin>" and os.path.exists(path)
            else os.path.splitext(os.path.basename(path))[0]
        )
    kind, plan = linter.plan(path, source, module_name, False, explicit=True)
    if kind == "done":
        res = plan
    else:
        if kind == "plan":
            d = decide([plan])[path]
            res = linter.lint(
                path,
                source,
                module_name,
                False,
                blanks=blanks_for(plan, d.kept),
                looked_up=d.looked_up,
                callers_of_seeds=d.callers_of_seeds,
            )
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
    from jaxlint.fix.edits import apply_fixes, fixes_to_apply

    to_python: Callable[[str], str] | None = None  # a notebook's JSON -> its virtual module
    if notebook:
        from jaxlint.files.notebook import python_text
        from jaxlint.fix.notebook import apply_fixes

        to_python = python_text
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
        if not _parses(to_python(new) if to_python is not None else new):
            return text, applied_total, diags, True
        text = new
        applied_total += len(applied)
        diags = lint(text)
    return text, applied_total, diags, False


def _parses(text: str) -> bool:
    """Does LibCST read the fixed text? (In pieces, with stand-ins, as a lint of it would.)"""
    from jaxlint.lint.engine import with_standins
    from jaxlint.lint.parse import TooLarge, parse_module

    try:
        parse_module(with_standins(text))
    except (cst.ParserSyntaxError, RecursionError, TooLarge):
        return False
    finally:
        release_memory()
    return True


def fix_source(text: str, path: str, settings: Settings, unsafe: bool) -> tuple[str, int, list[Diagnostic], bool]:
    """``fix_text`` for one text linted as its own project (a notebook by its ``path``)."""
    notebook = path.endswith(".ipynb")
    new, count, remaining, gave_up = fix_text(
        text, lambda t: lint_source(t, path, settings, cells=False), unsafe, notebook
    )
    return new, count, (_in_cells(remaining, [path], {path: new}) if notebook else remaining), gave_up


def cell_lines(path: str, cell: int, text: str | None = None) -> list[str] | None:
    """A notebook cell's own source lines (for the code frame of the full view)."""
    from jaxlint.files.notebook import NotebookError, parse

    try:
        found = parse(read_source(path)[0] if text is None else text).cell(cell)
    except (ReadError, NotebookError):
        return None
    return source_lines(found.source) if found is not None else None


@_collecting_per_file()
def fix_paths(
    paths: list[str],
    settings: Settings,
    unsafe: bool = False,
    write: bool = True,
    jobs: int | None = None,
    cache=None,
    progress=None,
    files: list[str] | None = None,
) -> RunResult:
    """Lint, then fix every file with applicable fixes to a fixed point (atomically written)."""
    from jaxlint.fix.edits import FileChanged, atomic_write, fixes_to_apply

    if files is None:
        files = discover(paths, settings.root, settings.exclude, settings.extend_exclude)
    runner = Runner(settings, jobs, cache, progress)
    results, errors = runner.lint_files(files)
    _check_named(results, paths)
    diags, internal = runner.finish(results, _lines)
    run = RunResult([], len(files), errors + internal, prefiltered=sum(1 for r in results if r.prefilter))
    run.warnings.extend([*runner.warnings, *runner.notices])
    by_path: dict[str, list[Diagnostic]] = defaultdict(list)
    for d in diags:
        by_path[d.path].append(d)
    linter = _make_linter(runner.rules, settings)
    # every file's latest result and, once fixed, its text: a re-lint of one file sees the
    # others as they now are (a suppression's columns in its fixed text, not the old ones)
    others = {r.path: r for r in results}
    texts: dict[str, str] = {}
    final: list[Diagnostic] = []

    def lines_of(p: str) -> list[str] | None:
        return module_lines(p, texts[p]) if p in texts else _lines(p)

    for path in files:
        mine = by_path.get(path, [])
        if not fixes_to_apply(mine, unsafe):
            final.extend(mine)
            continue
        try:
            data = read_bytes(path)
            original, encoding = decode(data, path)
        except ReadError as e:
            run.warnings.append(f"{e}; not fixed")
            final.extend(mine)
            continue
        module_name, is_pkg = module_name_for(path)
        latest: dict[str, FileResult] = {}

        def relint(text: str, path=path, module_name=module_name, is_pkg=is_pkg, latest=latest) -> list[Diagnostic]:
            res = latest[text] = linter.lint(path, text, module_name, is_pkg)
            rest = [r for p, r in others.items() if p != path]

            def sources(p: str, text: str = text) -> list[str] | None:
                return module_lines(path, text) if p == path else lines_of(p)

            d, _ = runner.finish([*rest, res], sources)
            return [x for x in d if x.path == path]

        try:
            new, count, remaining, gave_up = fix_text(original, lambda t: relint(t), unsafe, path.endswith(".ipynb"))
            if count and new != original and write:
                atomic_write(path, new, encoding, expected=data)
        except UnicodeEncodeError as e:
            run.warnings.append(
                f"{path}: the fixed code cannot be written in the file's encoding {encoding} ({e.reason}); not fixed"
            )
            final.extend(mine)
            continue
        except FileChanged as e:
            run.warnings.append(f"{path}: {e}; not overwritten, run again to fix it")
            final.extend(mine)
            continue
        except OSError as e:  # a read-only or full file system: the file is as it was (atomic_write)
            run.errors.append(f"could not write {path}: {e.strerror or e}")
            final.extend(mine)
            continue
        except Exception as exc:
            run.errors.append(f"{path}: internal error while fixing (the file was not changed): {describe(exc)}")
            final.extend(mine)
            continue
        if gave_up:
            run.unparsable_fix.append(path)
        if count and new != original:
            run.fixed[path] = count
            run.diffs[path] = (original, new)
            final.extend(remaining)
            if new in latest:
                others[path], texts[path] = latest[new], new
        else:
            final.extend(mine)
    final = _in_cells(final, files, {p: new for p, (_, new) in run.diffs.items()})
    final.sort(key=Diagnostic.sort_key)
    run.diagnostics = final
    return run


# -- an editor's session: the project kept in memory, buffers linted as they are typed ----
# (jaxlint.server). A run's results are kept with the plans, decision and jobs they came
# from (``Runner.lint_files(files, record)``); an open buffer is linted on its own
# (``lint_text``, sliced by ``edit_decision``), and its findings are decided against every
# other file's cached facts (``decide_files``). When the plans change, ``redecide``
# re-lints the files whose slicing changed, so their facts are those ``jaxlint check`` reads.
def file_linter(runner: Runner, read: Callable[[str], bytes | None] | None = None) -> FileLinter:
    """A linter of the run's rules and settings that works in this process (on buffers);
    ``read`` gives the bytes of a module a file imports (``jaxlint.lint.imports``: an
    editor's buffer stands for its file), from disk by default."""
    linter = _make_linter(runner.rules, runner.settings)
    if read is not None:
        from jaxlint.lint.imports import ModuleReader

        linter.reader = ModuleReader(runner.settings, read)
    return linter


def plan_text(linter: FileLinter, path: str, text: str, named: bool = False) -> tuple[str, object]:
    """The first pass over an in-memory text, as ``lint_files`` plans a file on disk:
    ``("done", FileResult)``, ``("plan", FilePlan)`` or ``("whole", None)``; ``named``: as a
    file named on the command line (syntax-checked even when no rule wants it)."""
    try:
        return linter.plan(path, text, explicit=named)
    except Exception as exc:
        return "done", FileResult(path=path, internal_error=f"while planning: {describe(exc)}")


def lint_text(
    linter: FileLinter,
    path: str,
    text: str,
    plan: tuple[str, object] | None = None,
    decision: Decision | None = None,
    named: bool = False,
    importers: frozenset[str] | None = None,
) -> FileResult:
    """Lint an in-memory text (an editor's buffer of ``path``) before the project phase.
    ``importers``: the files that import its defs (the sixth field of the file's job).

    ``plan`` is its first pass (``plan_text``; made here if not given) and ``decision`` what
    of it LibCST must see (``decide``, or ``edit_decision``): more kept than the project's
    decision is safe, it is the whole file's behaviour (the slicer keeps all that rules
    read; ``JAXLINT_NO_SLICING``); without a decision the text is parsed whole. A text no
    enabled rule wants is answered as the first pass answers it. A text over the size a
    file may have is one JAX003, as on disk."""
    if len(text) > MAX_FILE_BYTES // 4 and len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        return unreadable(ReadError(path, f"The file is larger than {MAX_FILE_BYTES >> 20} MiB; it was not checked"))
    kind, value = plan if plan is not None else plan_text(linter, path, text, named)
    if kind == "done":
        assert isinstance(value, FileResult)
        return value
    try:
        if isinstance(value, FilePlan) and decision is not None:
            return linter.lint(
                path,
                text,
                blanks=blanks_for(value, decision.kept),
                looked_up=decision.looked_up,
                callers_of_seeds=decision.callers_of_seeds,
                importers=importers or frozenset(),
            )
        return linter.lint(path, text, importers=importers or frozenset())
    except Exception as exc:
        return FileResult(path=path, internal_error=describe(exc))


def edit_decision(plan: FilePlan, before: tuple[FilePlan, Decision] | None = None) -> Decision:
    """What LibCST must see of a file just edited, without deciding the whole project again.

    Kept: what the file's own plan needs (``decide`` over it alone), and every unit the
    project's last decision kept (``before``: that decision and the plan it was made with),
    found again by name: what other modules need of it. This keeps at least what ``decide``
    keeps, but for a unit that only a chain of references through other modules makes
    needed and that is new since ``before`` (``redecide`` finds it)."""
    alone = decide([plan])[plan.path]
    if before is None:
        return alone
    old_plan, old = before
    old_keys = _unit_keys(old_plan)
    keys = {old_keys[i] for i in old.kept}
    kept = set(alone.kept) | {i for i, k in enumerate(_unit_keys(plan)) if k in keys}
    return Decision(frozenset(kept), alone.looked_up | old.looked_up, alone.callers_of_seeds | old.callers_of_seeds)


def _unit_keys(plan: FilePlan) -> list[tuple[str | None, str | None, str | None]]:
    """Each unit's name as an edit leaves it: (def or class, class it opens, class it is in)."""
    classes = {u.start: u.header_of for u in plan.units if u.header_of is not None}
    return [(u.name, u.header_of, classes.get(u.owner) if u.owner is not None else None) for u in plan.units]


def redecide(
    runner: Runner, plans: dict[str, object], jobs: dict[str, Job | None], skip: Iterable[str] = ()
) -> tuple[dict[str, Job | None], dict[str, FileResult], dict[str, Decision]]:
    """Decide the project's slicing again after some of its plans changed, and re-lint (from
    disk) every file whose job changed or that has no job yet (it changed on disk).

    ``plans`` are the first pass's answers (an open buffer's plan stands for its file); a
    file answered with a ``FileResult`` has nothing to parse and its job is None. Returns
    every file's job, the new results (of the re-linted files, and of the new answers) and
    the decision;
    the paths in ``skip`` (buffers, linted by ``lint_text``) are decided with, not re-linted.
    The runner's cache must be new (a ``Cache`` remembers each file's key once computed)."""
    skipped = frozenset(skip)
    planned = [p for p in plans.values() if isinstance(p, FilePlan)]
    decided = decide(planned)
    imported = importers(planned)
    new_jobs: dict[str, Job | None] = {}
    results: dict[str, FileResult] = {}
    for path, plan in plans.items():
        if isinstance(plan, FileResult):
            new_jobs[path] = None
            if path not in jobs and path not in skipped:
                results[path] = plan
            continue
        new_jobs[path] = job_for(path, plan if isinstance(plan, FilePlan) else None, decided, imported)
    todo: list[Job] = []
    for path, job in new_jobs.items():
        if job is None or path in skipped or jobs.get(path) == job:
            continue
        cached = runner.cache.get(path, job_digest(*job[1:])) if runner.cache is not None else None
        if cached is not None:
            results[path] = cached
        else:
            todo.append(job)
    with runner._pool() as run:
        for job, (res, _) in run(_lint_file, todo, lambda job: (_died(job[0]), None)):
            results[job[0]] = res
            if runner.cache is not None and res.internal_error is None and not res.rule_errors and not _unchecked(res):
                runner.cache.put(job[0], res, job_digest(*job[1:]))
    if runner.cache is not None:
        runner.cache.flush()
    return new_jobs, results, decided


def decide_files(
    runner: Runner,
    results: dict[str, FileResult],
    paths: Iterable[str],
    texts: dict[str, str],
    cells: bool = True,
) -> tuple[dict[str, list[Diagnostic]], list[str]]:
    """The project phase for ``paths`` only: their pending findings decided against the facts
    of every file in ``results``, their suppressions and per-file ignores applied.

    The other files contribute their facts, not their findings, so this costs what the
    project's facts cost, not what every file's verdicts cost. ``texts``: the buffers
    (path -> text, a notebook's JSON) that stand for files on disk. A notebook's positions
    count in its cells unless ``cells`` is false (the fix loop works on the virtual module).
    Returns each path's diagnostics, and the internal errors of the project phase."""
    wanted = set(paths)
    reduced = [
        r if r.path in wanted else FileResult(path=r.path, facts=r.facts)
        for r in results.values()
        if r.path in wanted or r.facts is not None
    ]

    def lines(path: str) -> list[str] | None:
        if path in texts:
            return module_lines(path, texts[path])
        return _lines(path) if path in wanted else None

    diags, errors = runner.finish(reduced, lines)
    if cells:
        diags = _in_cells(diags, [*results, *(p for p in wanted if p not in results)], texts)
    out: dict[str, list[Diagnostic]] = {p: [] for p in wanted}
    for d in diags:
        out.setdefault(d.path, []).append(d)
    return out, errors


def fix_buffer(
    runner: Runner, results: dict[str, FileResult], path: str, text: str, unsafe: bool = False
) -> tuple[str, int]:
    """``jaxlint check --fix`` on one buffer: its fixes applied to a fixed point, each pass
    decided against the other files' facts in ``results``. Returns (text, fixes applied);
    a notebook is fixed in its JSON text's cells."""
    linter = file_linter(runner)

    def relint(t: str) -> list[Diagnostic]:  # whole, as ``fix_paths`` re-lints a file it fixes
        found, _ = decide_files(runner, {**results, path: lint_text(linter, path, t)}, [path], {path: t}, cells=False)
        return found[path]

    new, count, _, _ = fix_text(text, relint, unsafe, path.endswith(".ipynb"))  # the last text that parses
    return new, count
