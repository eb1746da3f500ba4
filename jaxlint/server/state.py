"""The document and project state: each project's files read once (cached facts), the buffers.

A workspace folder is linted as ``jaxlint check`` run in it: its files are those ``check``
discovers there, each with the configuration nearest above it, and the files with the
same settings are one project (``jaxlint.lint.config.Resolver``), as ``check`` groups
them. A project's files are read once, as ``check`` reads them (sliced, in worker
processes, through ``.jaxlint_cache/``, which it also fills): each file's plan, job and
result — the module facts the project phase decides with — stay in memory.

An open buffer whose text is the file's is answered from that result. An edited buffer is
linted on its own (``api.lint_text``, sliced by ``api.edit_decision``), and the findings of
every open buffer are decided again against all the files' facts (``api.decide_files``):
a change in one module re-decides the files that depend on it. On a save, a close or a
change on disk, the project's slicing is decided again (``api.redecide``), so the facts
are those ``check`` would read.

A file outside every workspace folder is its own project, as ``jaxlint check FILE`` sees
it. Everything here runs on the server's one worker thread, in the order events came.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from jaxlint.api import (
    Job,
    ReadError,
    Runner,
    decide_files,
    edit_decision,
    file_linter,
    fix_buffer,
    lint_text,
    plan_text,
    read_source,
    redecide,
    unreadable,
)
from jaxlint.base.crash import HINT, describe
from jaxlint.base.types import Diagnostic, FileResult
from jaxlint.lint.config import Settings
from jaxlint.lint.engine import not_checked
from jaxlint.lint.imports import MAX_MODULE_BYTES, digest, read_module_bytes
from jaxlint.plan.slicing import Decision, FilePlan
from jaxlint.server.notebooks import NotebookText

Progress = Callable[[int, int], None]


@dataclass(slots=True)
class Buffer:
    """An open document: a file's text, or a notebook's nbformat text and cells."""

    path: str  # as the engine names it (relative to the first workspace folder when inside it)
    uri: str
    text: str
    version: int | None
    notebook: NotebookText | None = None
    same_as_disk: bool = False  # the project's result holds for it
    result: FileResult | None = None  # of ``linted``
    linted: str | None = None
    plan: tuple[str, object] | None = None  # the first pass over ``linted``
    decision: Decision | None = None  # what of it LibCST saw (None: all of it)

    def forget(self) -> None:
        self.result = self.linted = self.plan = self.decision = None


class Project:
    """Files with the same settings that ``check`` lints as one project, and the open buffers
    of its files; ``lone``: one file outside every workspace folder (``check FILE``)."""

    def __init__(self, settings: Settings, jobs: int | None, lone: bool = False) -> None:
        self.settings = settings
        self.lone = lone
        self.runner = Runner(settings, jobs=jobs)
        self.runner.start_method = "forkserver"  # the server has threads: never fork it
        self.linter = file_linter(self.runner, self.module_bytes)
        self.files: set[str] = set()
        self.plans: dict[str, object] = {}
        self.decided: dict[str, Decision] = {}
        self.jobs: dict[str, Job | None] = {}
        self.results: dict[str, FileResult] = {}
        self.buffers: dict[str, Buffer] = {}
        self.stale: set[str] = set()  # changed on disk (or a closed buffer's file): plan and read again
        self.ready = lone
        self.dirty = True  # its buffers' diagnostics may have changed
        self.by_name: dict[str, list[str]] = {}
        self.warnings: list[str] = []  # of the last project phase (malformed directives, selections)

    # reading the project ---------------------------------------------------------------
    def load(self, files: list[str], progress: Progress | None = None) -> list[str]:
        """Read the files as ``check`` does; returns the run's error lines."""
        total = len(files)
        done = [0]

        def tick(n: int) -> None:
            done[0] += n
            if progress is not None:
                progress(done[0], total)

        self.runner.progress = tick
        self.runner.cache = self._cache()
        record: dict = {}
        results, errors = self.runner.lint_files(files, record)
        self.runner.progress = None
        self.plans = record.get("plans", {})
        self.decided = record.get("decided", {})
        self.jobs = dict(record.get("jobs", {}))
        for path, plan in self.plans.items():
            if isinstance(plan, FileResult):
                self.jobs[path] = None
        self.results = {r.path: r for r in results}
        self._set_files(files)
        self.ready = self.dirty = True
        _settle()
        return errors

    def _cache(self):
        """A new cache for each pass over the files: a ``Cache`` keeps each file's key once read."""
        from jaxlint.cache.store import Cache

        return None if self.lone else Cache.for_settings(self.settings)

    def _set_files(self, files: Iterable[str]) -> None:
        self.files = set(files)
        by_name: dict[str, list[str]] = {}
        for f in sorted(self.files):
            by_name.setdefault(os.path.basename(f), []).append(f)
        self.by_name = by_name

    def member(self, path: str) -> bool:
        """Is ``path`` one of the files ``check`` lints here? (A new file not yet on disk is.)"""
        if self.lone or path in self.files:
            return True
        return not os.path.lexists(path)

    # buffers ----------------------------------------------------------------------------
    def open(self, buf: Buffer) -> None:
        if buf.notebook is None:
            try:
                buf.same_as_disk = read_source(buf.path)[0] == buf.text
            except ReadError:
                buf.same_as_disk = False
        self.buffers[buf.path] = buf
        self.dirty = True

    def update(self, path: str, text: str, version: int | None, notebook: NotebookText | None = None) -> None:
        buf = self.buffers.get(path)
        if buf is None:
            return
        if text != buf.text:
            buf.same_as_disk = False
        buf.text, buf.version, buf.notebook = text, version, notebook or buf.notebook
        self.dirty = True

    def close(self, path: str) -> Buffer | None:
        buf = self.buffers.pop(path, None)
        if buf is not None and not buf.same_as_disk and path in self.files:
            self.stale.add(path)  # the file is its text on disk again
        self.dirty = True
        return buf

    def saved(self, path: str) -> None:
        if path in self.files:
            self.stale.add(path)
        self.stale |= self.dependents([path])  # they read it: they are read again with it
        self.dirty = True

    def module_bytes(self, path: str) -> bytes | None:
        """A module a file imports, as the model reads it (``jaxlint.lint.imports``): an open
        buffer's text, else the file's bytes."""
        absolute = os.path.abspath(path)
        for buf in self.buffers.values():
            if buf.notebook is None and os.path.abspath(buf.path) == absolute:
                data = buf.text.encode("utf-8", "surrogatepass")
                return data if len(data) <= MAX_MODULE_BYTES else None
        return read_module_bytes(path)

    def _importers(self, path: str) -> frozenset[str] | None:
        """The files that import the defs of ``path``, as the project's last decision
        found them (its job's sixth field): a buffer is linted with the calls they make."""
        job = self.jobs.get(path)
        return job[5] if job is not None else None

    def _current(self, res: FileResult) -> bool:
        """Are the modules the result's file imported (``deps``) as they were then?"""
        for path, was in res.deps:
            data = self.module_bytes(path)
            if data is None or digest(data) != was:
                return False
        return True

    def dependents(self, paths: Iterable[str]) -> set[str]:
        """The files whose results read one of ``paths`` (their imported modules)."""
        wanted = {os.path.abspath(p) for p in paths}
        return {f for f, r in self.results.items() if any(os.path.abspath(d) in wanted for d, _ in r.deps)}

    def _result(self, buf: Buffer) -> FileResult:
        """The buffer's result: the project's while it is the file's text; else its text
        linted, sliced by what its own plan and the project's last decision need of it.
        Linted again when a module it imports changed (an open one as it is typed)."""
        if buf.result is not None and buf.linted == buf.text and self._current(buf.result):
            return buf.result
        held = self.results.get(buf.path) if buf.same_as_disk and buf.path not in self.stale else None
        if held is not None and self._current(held):
            return held
        try:
            plan = plan_text(self.linter, buf.path, buf.text, named=self.lone)
            decision = None
            if isinstance(plan[1], FilePlan):
                old_plan, old = self.plans.get(buf.path), self.decided.get(buf.path)
                before = (old_plan, old) if isinstance(old_plan, FilePlan) and old is not None else None
                decision = edit_decision(plan[1], before)
            res = lint_text(self.linter, buf.path, buf.text, plan, decision, importers=self._importers(buf.path))
        except Exception as exc:  # a bug in jaxlint costs this buffer's findings, never the server
            plan, decision, res = None, None, FileResult(path=buf.path, internal_error=describe(exc))
        buf.result, buf.linted, buf.plan, buf.decision = res, buf.text, plan, decision
        return res

    def _with_buffers(self) -> tuple[dict[str, FileResult], list[str]]:
        """Every file's result with the open members' buffers standing for their files (a
        buffer of a file ``check`` does not lint is not part of the project)."""
        results = dict(self.results)
        members = [p for p in self.buffers if self.member(p)]
        for path in members:
            results[path] = self._result(self.buffers[path])
        return results, members

    def diagnose(self) -> tuple[dict[str, list[Diagnostic]], list[str]]:
        """Every open buffer's diagnostics, decided against the project's facts."""
        if not self.buffers:
            return {}, []
        results, members = self._with_buffers()
        texts = {p: self.buffers[p].text for p in members}
        found, errors = decide_files(self.runner, results, members, texts)
        self.warnings = list(self.runner.warnings)
        for path in members:
            faults = _faults(results[path])
            if faults:
                found[path] = sorted([*found.get(path, []), *faults], key=Diagnostic.sort_key)
        for path in self.buffers:
            found.setdefault(path, [])
        return found, errors

    def fix_all(self, path: str) -> tuple[str, str] | None:
        """(text, fixed text) of a buffer with every safe fix applied; None if it is not open
        or not a file ``check`` lints."""
        buf = self.buffers.get(path)
        if buf is None or not self.member(path):
            return None
        results, _ = self._with_buffers()
        new, _ = fix_buffer(self.runner, results, path, buf.text)
        return buf.text, new

    # deciding again ---------------------------------------------------------------------
    def redecide(self) -> bool:
        """Decide the slicing again with the buffers' plans and the files changed on disk;
        read again the files whose slicing changed. True if any file's result changed."""
        if self.lone or not self.ready:
            return False
        plans = dict(self.plans)
        for path in self.stale:
            plans[path] = self._plan_disk(path)
            self.jobs.pop(path, None)
        edited = {p for p, b in self.buffers.items() if not b.same_as_disk and self.member(p)}
        for path in edited:
            buf = self.buffers[path]
            if buf.plan is None or buf.linted != buf.text:
                self._result(buf)
            plans[path] = buf.plan[1] if buf.plan is not None else None
        self.runner.cache = self._cache()
        jobs, results, decided = redecide(self.runner, plans, self.jobs, skip=edited)
        self.plans, self.jobs, self.decided = plans, jobs, decided
        self.stale.clear()
        self.results.update(results)
        _settle()
        changed = bool(results)
        for path in edited:  # a buffer sliced by its own plan: now by the project's decision
            buf = self.buffers[path]
            exact = decided.get(path)
            if buf.plan is not None and exact is not None and exact != buf.decision:
                buf.result = lint_text(self.linter, path, buf.text, buf.plan, exact, importers=self._importers(path))
                buf.decision = exact
                changed = True
        if changed:
            self.dirty = True
        return changed

    def _plan_disk(self, path: str) -> object:
        try:
            text, _ = read_source(path)
        except ReadError as e:
            return unreadable(e)
        return plan_text(self.linter, path, text)[1]

    def files_changed(self, files: set[str], changed: set[str]) -> bool:
        """The project's files are ``files`` now (``changed``: on disk); True if it must decide
        again."""
        gone = self.files - files
        new = files - self.files
        for path in gone:
            for table in (self.plans, self.jobs, self.results, self.decided):
                table.pop(path, None)
        self._set_files(files)
        touched = (changed & files) | new
        touched |= self.dependents(changed | new | gone) & files
        self.stale = (self.stale | touched) - gone
        if touched or gone:
            self.dirty = True
        return bool(touched or gone)


def _settle() -> None:
    """Keep the collector off the project's facts: frozen objects are never scanned again.
    A full collection scanning a thousand files' facts costs a few hundred milliseconds, and
    each lint of a buffer allocates enough to start one."""
    gc.collect()
    gc.freeze()


def _faults(res: FileResult) -> list[Diagnostic]:
    """A bug in jaxlint on this file is one JAX003 saying which part did not check it
    (``check`` prints it as an error line and exits 2)."""
    out = []
    if res.internal_error:
        what = _one_line(res.internal_error)
        out.append(not_checked(res.path, f"Internal error in jaxlint ({what}); the file was not checked"))
    for e in res.rule_errors:
        rule, _, what = e.partition(": ")
        out.append(
            not_checked(res.path, f"{rule} did not check this file: internal error in jaxlint ({_one_line(what)})")
        )
    return out


def _one_line(error: str) -> str:
    """An internal error's first line, without the command line's hint (the log has the traceback)."""
    return error.split("\n", 1)[0].removesuffix(f"; {HINT}")
