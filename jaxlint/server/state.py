"""The document and project state: each workspace folder's files read once, the open buffers.

A workspace folder is linted as ``jaxlint check`` run in it: the configuration it finds
from there (``[tool.jaxlint]``, upwards), the files it discovers, one project. The first
time, every file is read the way ``check`` reads it (sliced, in worker processes, through
``.jaxlint_cache/``, which it also fills): its plan, its job and its result — the module
facts the project phase decides with — stay in memory.

An open buffer whose text is the file's is answered from that result. An edited buffer is
linted on its own, whole (``api.lint_text``), and the findings of every open buffer are
decided again against all the files' facts (``api.decide_files``): a change in one module
re-decides the files that depend on it. When typing pauses, the project's slicing is
decided again with the buffers' plans (``api.redecide``), and the files whose slicing
changed are read again, so their facts are the ones ``check`` would read. A file that
changes on disk (a watched-file event, a save) is planned and read again.

A file outside every workspace folder is its own project, as ``jaxlint check FILE`` sees
it. Everything here runs on the server's one worker thread, in the order events came.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable
from dataclasses import dataclass, field

from lsprotocol import types
from pygls.uris import from_fs_path

from jaxlint.api import (
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
    source_lines,
)
from jaxlint.base.crash import HINT, describe
from jaxlint.base.types import Diagnostic, FileResult
from jaxlint.files.discover import DiscoveryError, discover
from jaxlint.lint.config import ConfigError, Settings, load_settings, validate_settings
from jaxlint.lint.engine import not_checked
from jaxlint.plan.slicing import Decision, FilePlan
from jaxlint.server.actions import TextDoc
from jaxlint.server.diagnostics import ClientFeatures, line_range, to_lsp
from jaxlint.server.notebooks import NotebookText

Message = Callable[[str], None]


@dataclass(slots=True)
class Buffer:
    """An open document: a file's text, or a notebook's nbformat text and cells."""

    path: str  # as the engine names it (relative to the first workspace folder when inside it)
    uri: str
    text: str
    version: int | None
    notebook: NotebookText | None = None
    same_as_disk: bool = False  # the index's result holds for it
    result: FileResult | None = None  # of ``linted``
    linted: str | None = None
    plan: tuple[str, object] | None = None  # the first pass over ``linted``
    decision: Decision | None = None  # what of it LibCST saw (None: all of it)


@dataclass(frozen=True, slots=True)
class Publication:
    """What to publish for one text document (a file, or one cell of a notebook)."""

    doc: TextDoc
    items: tuple[tuple[Diagnostic, types.Diagnostic], ...]
    path: str
    owner: str  # the URI of the file, or of the notebook a cell belongs to
    notebook: NotebookText | None = None

    @property
    def diagnostics(self) -> list[types.Diagnostic]:
        return [lsp for _, lsp in self.items]


class Project:
    """One workspace folder (or one lone file) and what is known about its files."""

    def __init__(
        self, folder: str | None, settings: Settings, shown: str | None, jobs: int | None, start: str | None = None
    ) -> None:
        self.folder = folder  # absolute; None: a file outside every workspace folder
        self.shown = shown  # the folder as the engine names it ("." for the first one)
        self.start = start or folder or "."  # where its configuration is searched from
        self.stamp = config_stamp(self.start)
        self.settings = settings
        self.runner = Runner(settings, jobs=jobs)
        self.runner.start_method = "forkserver"  # the server has threads: never fork it
        self.linter = file_linter(self.runner)
        self.files: set[str] = set()
        self.plans: dict[str, object] = {}
        self.decided: dict[str, Decision] = {}
        self.jobs: dict[str, object] = {}
        self.results: dict[str, FileResult] = {}
        self.buffers: dict[str, Buffer] = {}
        self.stale: set[str] = set()  # changed on disk (or a closed buffer's file): plan and read again
        self.ready = folder is None
        self.dirty = True  # its buffers' diagnostics may have changed
        self.by_name: dict[str, list[str]] = {}

    # reading the project ---------------------------------------------------------------
    def load(self, progress: Callable[[int, int], None] | None = None) -> list[str]:
        """Read every file as ``check`` does; returns the run's error lines."""
        if self.folder is None or self.shown is None:
            return []
        try:
            files = discover([self.shown], self.settings.root, self.settings.exclude, self.settings.extend_exclude)
        except DiscoveryError as e:
            self.ready = True
            return [str(e)]
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

        return Cache.for_settings(self.settings) if self.folder is not None else None

    def _set_files(self, files: list[str] | set[str]) -> None:
        self.files = set(files)
        by_name: dict[str, list[str]] = {}
        for f in sorted(self.files):
            by_name.setdefault(os.path.basename(f), []).append(f)
        self.by_name = by_name

    def member(self, path: str) -> bool:
        """Is ``path`` one of the files ``check`` lints here? (A new file not yet on disk is.)"""
        if self.folder is None or not self.ready or path in self.files:
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

    def close(self, path: str) -> None:
        buf = self.buffers.pop(path, None)
        if buf is not None and not buf.same_as_disk and path in self.files:
            self.stale.add(path)  # the file is its text on disk again
        self.dirty = True

    def _result(self, buf: Buffer) -> FileResult:
        """The buffer's result: the index's while it is the file's text; else its text
        linted, sliced by what its own plan and the project's last decision need of it."""
        if buf.result is not None and buf.linted == buf.text:
            return buf.result
        if buf.same_as_disk and buf.path in self.results and buf.path not in self.stale:
            return self.results[buf.path]
        try:
            plan = plan_text(self.linter, buf.path, buf.text, named=self.folder is None)
            decision = None
            if isinstance(plan[1], FilePlan):
                old_plan, old = self.plans.get(buf.path), self.decided.get(buf.path)
                before = (old_plan, old) if isinstance(old_plan, FilePlan) and old is not None else None
                decision = edit_decision(plan[1], before)
            res = lint_text(self.linter, buf.path, buf.text, plan, decision)
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
        if self.folder is None or not self.ready:
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
        jobs, results, decided = redecide(self.runner, plans, self.jobs, skip=edited)  # type: ignore[arg-type]
        self.plans, self.jobs, self.decided = plans, jobs, decided  # type: ignore[assignment]
        self.stale.clear()
        self.results.update(results)
        _settle()
        changed = bool(results)
        for path in edited:  # a buffer sliced by its own plan: now by the project's decision
            buf = self.buffers[path]
            exact = decided.get(path)
            if buf.plan is not None and exact is not None and exact != buf.decision:
                buf.result = lint_text(self.linter, path, buf.text, buf.plan, exact)
                buf.decision = exact
                changed = True
        if changed:
            self.dirty = True
        return changed

    def _plan_disk(self, path: str) -> object:
        try:
            text, _ = read_source(path)
        except ReadError as e:
            from jaxlint.api import unreadable

            return unreadable(e)
        return plan_text(self.linter, path, text)[1]

    def disk_changed(self, changed: set[str], created: set[str], deleted: set[str]) -> bool:
        """Files changed on disk (watched-file events); True if the project must decide again."""
        if self.folder is None or not self.ready:
            return False
        files = self.files
        if created or deleted:
            try:
                files = set(
                    discover(
                        [self.shown or "."], self.settings.root, self.settings.exclude, self.settings.extend_exclude
                    )
                )
            except DiscoveryError:
                files = self.files - deleted
        gone = self.files - files
        new = files - self.files
        for path in gone:
            for table in (self.plans, self.jobs, self.results, self.decided):
                table.pop(path, None)
        self._set_files(files)
        touched = (changed & files) | new
        self.stale |= touched
        self.stale -= gone
        if touched or gone:
            self.dirty = True
        return bool(touched or gone)


def _settle() -> None:
    """Keep the collector off the project's facts: frozen objects are never scanned again.
    A full collection scanning a thousand files' facts costs a few hundred milliseconds, and
    each lint of a buffer allocates enough to start one."""
    gc.collect()
    gc.freeze()


def config_stamp(start: str) -> tuple[tuple[str, int, int], ...]:
    """What decides the configuration found from ``start``: each ``pyproject.toml`` from there
    up, as (path, mtime, size); one that appears, changes or goes changes the stamp."""
    d = os.path.abspath(start)
    if os.path.isfile(d):
        d = os.path.dirname(d)
    out = []
    while True:
        p = os.path.join(d, "pyproject.toml")
        try:
            st = os.stat(p)
            out.append((p, st.st_mtime_ns, st.st_size))
        except OSError:
            pass
        parent = os.path.dirname(d)
        if parent == d:
            return tuple(out)
        d = parent


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


@dataclass
class Workspace:
    """Every project of the session, by folder; lone files by path."""

    folders: list[str]  # absolute, as the client named them
    client: ClientFeatures
    message: Message  # one line to show the user (a broken configuration)
    log: Message
    jobs: int | None = None
    home: str | None = None  # the folder the engine's relative paths count from (the first one)
    projects: dict[str, Project] = field(default_factory=dict)
    lone: dict[str, Project] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # folder or file -> configuration error shown
    shown: dict[str, Publication] = field(default_factory=dict)  # uri -> last published
    force: set[str] = field(default_factory=set)  # paths to publish even if unchanged (saved)

    # paths ------------------------------------------------------------------------------
    def engine_path(self, path: str) -> str:
        """Inside the first folder, relative to it: the names ``check`` run there gives files
        (the cache entries and messages are the same)."""
        path = os.path.abspath(path)
        if self.home is not None and (path == self.home or path.startswith(self.home.rstrip(os.sep) + os.sep)):
            return os.path.relpath(path, self.home)
        return path

    def folder_of(self, path: str) -> str | None:
        absolute = os.path.abspath(path)
        inside = [f for f in self.folders if absolute.startswith(f.rstrip(os.sep) + os.sep)]
        return max(inside, key=len) if inside else None

    def settings_for(self, start: str) -> Settings:
        """The configuration ``check`` finds from ``start``; a broken one is one message, and
        the defaults are used until it is fixed."""
        try:
            settings = load_settings(None, start)
            validate_settings(settings)
        except ConfigError as e:
            if self.errors.get(start) != str(e):
                self.errors[start] = str(e)
                self.message(f"jaxlint: {e}; using the default settings until it is fixed")
            return Settings(root=os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or "."))
        self.errors.pop(start, None)
        return settings

    def project_for(self, path: str) -> Project:
        """The project of an engine path (a lone file gets its own)."""
        folder = self.folder_of(path)
        if folder is not None:
            if folder not in self.projects:
                self.projects[folder] = self._new_project(folder)
            return self.projects[folder]
        if path not in self.lone:
            start = os.path.dirname(os.path.abspath(path)) if os.path.lexists(path) else (self.home or ".")
            self.lone[path] = Project(None, self.settings_for(start), None, self.jobs, start)
        return self.lone[path]

    def _new_project(self, folder: str) -> Project:
        return Project(folder, self.settings_for(folder), self.engine_path(folder), self.jobs)

    def change_folders(self, added: list[str], removed: list[str]) -> None:
        """Workspace folders added or removed: their open buffers move to the project they
        belong to now (a lone file's own, or the new folder's, read by ``load``)."""
        moving: list[Buffer] = []
        for folder in removed:
            if folder in self.folders:
                self.folders.remove(folder)
            project = self.projects.pop(folder, None)
            if project is not None:
                moving += project.buffers.values()
        for folder in added:
            if folder not in self.folders:
                self.folders.append(folder)
        for path, project in list(self.lone.items()):
            if self.folder_of(path) is not None:
                moving += project.buffers.values()
                del self.lone[path]
        for buf in moving:
            buf.result = buf.linted = buf.plan = buf.decision = None
            self.open(buf)

    def load(self, folder: str, progress: Callable[[int, int], None] | None = None) -> None:
        project = self.projects.get(folder)
        if project is None:
            project = self.projects[folder] = self._new_project(folder)
        for line in project.load(progress):
            self.log(f"jaxlint: {line}")

    def refresh_config(self) -> None:
        """Find a project's configuration again when a ``pyproject.toml`` that decides it
        changed (checked before every publication, so it works without file watchers); a
        project whose settings changed is read again with them."""
        for key, project in [*self.projects.items(), *self.lone.items()]:
            stamp = config_stamp(project.start)
            if stamp == project.stamp:
                continue
            settings = self.settings_for(project.start)
            project.stamp = stamp
            if settings == project.settings:
                continue
            fresh = Project(project.folder, settings, project.shown, self.jobs, project.start)
            fresh.stamp = stamp
            fresh.buffers = project.buffers
            for buf in fresh.buffers.values():
                buf.result = buf.linted = None
            if project.folder is None:
                self.lone[key] = fresh
            else:
                self.projects[key] = fresh
                self.load(key)

    # documents --------------------------------------------------------------------------
    def open(self, buf: Buffer) -> None:
        self.project_for(buf.path).open(buf)

    def update(self, path: str, text: str, version: int | None, notebook: NotebookText | None = None) -> None:
        self.project_for(path).update(path, text, version, notebook)

    def close(self, path: str) -> list[str]:
        """Forget a buffer; returns the URIs whose diagnostics must be cleared."""
        project = self.project_for(path)
        buf = project.buffers.get(path)
        project.close(path)
        if project.folder is None:
            self.lone.pop(path, None)
        if buf is None:
            return []
        uris = list(buf.notebook.cells) if buf.notebook is not None else [buf.uri]
        for uri in uris:
            self.shown.pop(uri, None)
        return uris

    def saved(self, path: str) -> None:
        """The buffer is the file on disk now: the index reads it again (``redecide``), and
        its diagnostics are published again even if they did not change."""
        project = self.project_for(path)
        if path in project.files:
            project.stale.add(path)
        project.dirty = True
        self.force.add(path)

    def buffer(self, path: str) -> Buffer | None:
        return self.project_for(path).buffers.get(path)

    def fix_all(self, path: str) -> tuple[Buffer, str] | None:
        """The buffer (as it is now) and its text with every safe fix applied."""
        project = self.project_for(path)
        buf = project.buffers.get(path)
        found = project.fix_all(path)
        if buf is None or found is None:
            return None
        return Buffer(buf.path, buf.uri, buf.text, buf.version, buf.notebook), found[1]

    def disk_changed(self, events: list[tuple[str, str]]) -> bool:
        """Watched-file events, (absolute path, "created" | "changed" | "deleted"); True if
        some project must decide again."""
        by_project: dict[str, tuple[set[str], set[str], set[str]]] = {}
        for path, kind in events:
            folder = self.folder_of(path)
            if folder is None or folder not in self.projects:
                continue
            sets = by_project.setdefault(folder, (set(), set(), set()))
            sets[("changed", "created", "deleted").index(kind)].add(self.engine_path(path))
        again = False
        for folder, (changed, created, deleted) in by_project.items():
            again |= self.projects[folder].disk_changed(changed, created, deleted)
        return again

    def redecide(self) -> bool:
        """Every project decides its slicing again; True if some file's result changed."""
        changed = False
        for project in list(self.projects.values()):
            try:
                changed |= project.redecide()
            except Exception as exc:  # a bug costs this pass; the next change tries again
                self.log(f"jaxlint: internal error while deciding {project.folder} again: {describe(exc)}")
        return changed

    def all_projects(self) -> list[Project]:
        return [*self.projects.values(), *self.lone.values()]

    # publishing -------------------------------------------------------------------------
    def publications(self) -> list[Publication]:
        """What changed since the last publication, for every open document."""
        self.refresh_config()
        out = []
        for project in self.all_projects():
            if not project.ready or not project.buffers or not project.dirty:
                continue
            project.dirty = False
            found, errors = project.diagnose()
            for line in errors:
                self.log(f"jaxlint: {line}")
            for path, diags in found.items():
                buf = project.buffers.get(path)
                if buf is None:
                    continue
                again = path in self.force
                self.force.discard(path)
                for pub in self._documents(project, buf, diags):
                    old = self.shown.get(pub.doc.uri)
                    if again or old is None or old.doc.version != pub.doc.version or old.items != pub.items:
                        self.shown[pub.doc.uri] = pub
                        out.append(pub)
        return out

    def _documents(self, project: Project, buf: Buffer, diags: list[Diagnostic]) -> list[Publication]:
        locate = _Locator(self, project, buf)
        if buf.notebook is None:
            lines = source_lines(buf.text)
            doc = TextDoc(buf.uri, buf.version, lines)
            items = tuple((d, to_lsp(d, lines, self.client, locate)) for d in diags)
            return [Publication(doc, items, buf.path, buf.uri)]
        from jaxlint.files.notebook import NotebookError, parse

        try:
            nb = parse(buf.text)
        except NotebookError:
            nb = None
        out = []
        first = (
            nb.cells[0].number if nb is not None and nb.cells else 1
        )  # where a finding about the whole notebook goes
        for number, uri in enumerate(buf.notebook.cells, 1):
            lines = source_lines(buf.notebook.texts[number - 1])
            cell = nb.cell(number) if nb is not None else None
            python = source_lines(cell.code) if cell is not None else None
            doc = TextDoc(uri, buf.notebook.versions[number - 1], lines, python)
            locate.cell = number
            mine = [d for d in diags if d.cell == number or (d.cell is None and number == first)]
            items = tuple((d, to_lsp(d, lines, self.client, locate)) for d in mine)
            out.append(Publication(doc, items, buf.path, buf.uri, buf.notebook))
        return out


class _Locator:
    """Where a place named in a message is, as an LSP location (see diagnostics.related)."""

    def __init__(self, workspace: Workspace, project: Project, buf: Buffer) -> None:
        self.workspace, self.project, self.buf = workspace, project, buf
        self.cell: int | None = None
        self._lines: dict[str, list[str] | None] = {}

    def __call__(self, name: str | None, cell: int | None, line: int) -> types.Location | None:
        enc = self.workspace.client.encoding
        nb = self.buf.notebook
        if name is None and cell is None:
            if nb is not None:
                return None  # a notebook's messages name cells
            rng = line_range(source_lines(self.buf.text), line, enc)
            return types.Location(uri=self.buf.uri, range=rng) if rng else None
        if cell is not None and (name is None or (nb is not None and name == os.path.basename(self.buf.path))):
            uri = nb.cell_uri(cell) if nb is not None else None
            if uri is None:
                return None
            rng = line_range(source_lines(nb.texts[cell - 1]), line, enc)  # type: ignore[union-attr]
            return types.Location(uri=uri, range=rng) if rng else None
        if name is None or not name.endswith(".py"):
            return None  # a cell of a notebook that is not open here
        path = self._resolve(name)
        if path is None:
            return None
        lines = self._read(path)
        rng = line_range(lines, line, enc) if lines is not None else None
        return types.Location(uri=from_fs_path(os.path.abspath(path)) or path, range=rng) if rng else None

    def _resolve(self, name: str) -> str | None:
        found = self.project.by_name.get(name, [])
        if len(found) == 1:
            return found[0]
        here = os.path.dirname(self.buf.path)
        near = [f for f in found if os.path.dirname(f) == here]
        return near[0] if len(near) == 1 else None

    def _read(self, path: str) -> list[str] | None:
        if path not in self._lines:
            buf = self.project.buffers.get(path)
            if buf is not None and buf.notebook is None:
                self._lines[path] = source_lines(buf.text)
            else:
                try:
                    self._lines[path] = source_lines(read_source(path)[0])
                except ReadError:
                    self._lines[path] = None
        return self._lines[path]
