"""The workspace: its folders, each linted as ``jaxlint check`` run in it; which project each
document belongs to; the configuration, found as ``check`` finds it and found again when a
file that decides it changes; and what to publish.

A folder's configuration is resolved per file (``jaxlint.lint.config.Resolver``: the
nearest configuration above each file, the lowest jax its project declares), its files
discovered as ``check`` discovers them, and the files with the same settings are one
project (``state.Project``). A broken configuration is one message; the folder is then
served with the default settings until it is fixed. The files that decide the settings
(configuration files, and the declarations of the jax a project requires) are looked at
before every publication, so a change is found without file watchers too.
"""

from __future__ import annotations

import contextlib
import glob
import os
from collections.abc import Callable
from dataclasses import dataclass, field

from jaxlint.base.crash import describe
from jaxlint.files.discover import DiscoveryError, discover
from jaxlint.lint.config import CONFIG_NAMES, ConfigError, Resolver, Settings, infer_jax, validate_settings
from jaxlint.lint.requirements import forget
from jaxlint.server.diagnostics import ClientFeatures
from jaxlint.server.notebooks import NotebookText
from jaxlint.server.publish import Publication, documents
from jaxlint.server.state import Buffer, Progress, Project

Message = Callable[[str], None]
# besides the configuration files: what a project declares about jax (jaxlint.lint.requirements)
DECLARATIONS = ("setup.cfg", "setup.py")
SETTINGS_FILES = (*CONFIG_NAMES, *DECLARATIONS)


def decides_settings(name: str) -> bool:
    """Can a file of this name change some file's settings?"""
    return name in SETTINGS_FILES or (name.startswith("requirements") and name.endswith(".txt"))


def _defaults(folder: str) -> Settings:
    """The settings of a folder whose configuration is broken: the defaults, rooted there."""
    s = Settings(root=os.path.abspath(folder))
    with contextlib.suppress(ConfigError, OSError, ValueError):  # what it declares is unreadable too
        infer_jax(s, folder)
    return s


class Folder:
    """A workspace folder (or one file outside every folder: ``lone``) and its projects."""

    def __init__(self, path: str, shown: str, jobs: int | None, say: Callable[[str, str | None], None]) -> None:
        self.path = path  # absolute
        self.shown = shown  # as the engine names it ("." for the first folder)
        self.jobs = jobs
        self.say = say  # (key, error or None): a broken configuration's one message
        self.resolver: Resolver | None = None  # None: the configuration is broken, the defaults serve
        self.base = _defaults(path)
        self.projects: list[Project] = []
        self.groups: list[tuple[Settings, list[str]]] = []
        self.stamp: tuple = ()

    def configure(self) -> None:
        """The configuration and the files, as ``check`` run here finds them; one project
        (not read yet) per group of files with the same settings."""
        self.stamp = self.settings_stamp()
        try:
            resolver = Resolver(None, self.shown)
            base = resolver.for_path(self.shown)
            files = discover(
                [self.shown], base.root, [], [], excluded_by=resolver.excluded, force_exclude=base.force_exclude
            )
            groups = resolver.groups(files)
            for s, _ in groups:
                validate_settings(s)
            self.say(self.path, None)
        except ConfigError as e:
            self.say(self.path, str(e))
            resolver, base = None, _defaults(self.path)
            try:
                groups = [(base, discover([self.shown], base.root, [], []))]
            except DiscoveryError:
                groups = [(base, [])]
        except DiscoveryError:
            resolver, base, groups = None, _defaults(self.path), []
        self.resolver, self.base, self.groups = resolver, base, groups
        self.projects = [Project(s, self.jobs) for s, _ in groups]

    def load(self, progress: Progress | None = None) -> list[str]:
        """Read every project's files; returns the runs' error lines."""
        total = sum(len(fs) for _, fs in self.groups)
        before = 0
        errors: list[str] = []
        for project, (_, files) in zip(self.projects, self.groups, strict=True):

            def tick(done: int, _: int, before: int = before) -> None:
                if progress is not None:
                    progress(before + done, total)

            errors += project.load(files, tick)
            before += len(files)
        return errors

    def project_for(self, path: str) -> Project:
        """The project of a file of this folder (a new one for settings no file had yet)."""
        settings = self.base
        if self.resolver is not None:
            try:
                settings = self.resolver.for_path(path)
                if not any(p.settings is settings for p in self.projects):
                    validate_settings(settings)
            except ConfigError as e:
                self.say(os.path.dirname(os.path.abspath(path)), str(e))
                settings = self.base
        for project in self.projects:
            if project.settings is settings:
                return project
        project = Project(settings, self.jobs)
        project.ready = True  # no file of the folder has these settings yet: nothing to read
        self.projects.append(project)
        return project

    def files_changed(self, changed: set[str], created: set[str], deleted: set[str]) -> bool:
        """Files changed on disk; True if some project must decide again."""
        groups = self.groups
        if created or deleted:
            try:
                if self.resolver is not None:
                    found = discover(
                        [self.shown],
                        self.base.root,
                        [],
                        [],
                        excluded_by=self.resolver.excluded,
                        force_exclude=self.base.force_exclude,
                    )
                    groups = self.resolver.groups(found)
                else:
                    groups = [(self.base, discover([self.shown], self.base.root, [], []))]
            except (DiscoveryError, ConfigError):
                groups = [(s, [f for f in fs if f not in deleted]) for s, fs in self.groups]
        self.groups = groups
        again = False
        for settings, files in groups:
            project = next((p for p in self.projects if p.settings is settings), None)
            if project is None:
                project = Project(settings, self.jobs)
                self.projects.append(project)
                project.load(files)
                again = True
                continue
            again |= project.files_changed(set(files), changed)
        listed = {id(s) for s, _ in groups}
        for project in self.projects:
            if id(project.settings) not in listed and project.files:
                again |= project.files_changed(set(), changed)
        return again

    def settings_stamp(self) -> tuple:
        """(path, mtime, size) of every file that decides the settings here: the configuration
        and declaration files of this folder and the folders above it, and the configuration
        files in use (a new configuration in a subfolder is seen through file watchers)."""
        paths: set[str] = set()
        d = self.path if os.path.isdir(self.path) else os.path.dirname(self.path)
        while True:
            paths.update(os.path.join(d, n) for n in SETTINGS_FILES)
            paths.update(glob.glob(os.path.join(glob.escape(d), "requirements*.txt")))
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
        paths.update(p.settings.config_path for p in self.projects if p.settings.config_path)
        out = []
        for p in sorted(paths):
            try:
                st = os.stat(p)
                out.append((p, st.st_mtime_ns, st.st_size))
            except OSError:
                pass
        return tuple(out)


@dataclass
class Workspace:
    """Every folder of the session, and the lone files; what was published."""

    folders: list[str]  # absolute, as the client named them
    client: ClientFeatures
    message: Message  # one line to show the user (a broken configuration)
    log: Message
    jobs: int | None = None
    home: str | None = None  # the folder the engine's relative paths count from (the first one)
    by_folder: dict[str, Folder] = field(default_factory=dict)
    lone: dict[str, Folder] = field(default_factory=dict)  # a file outside every folder -> its own
    errors: dict[str, str] = field(default_factory=dict)  # where -> configuration error shown
    shown: dict[str, Publication] = field(default_factory=dict)  # uri -> last published
    force: set[str] = field(default_factory=set)  # paths to publish even if unchanged (saved)

    # paths and folders ----------------------------------------------------------------
    def engine_path(self, path: str) -> str:
        """Inside the first folder, relative to it: the names ``check`` run there gives files
        (the cache entries and the messages are the same)."""
        path = os.path.abspath(path)
        if self.home is not None and (path == self.home or path.startswith(self.home.rstrip(os.sep) + os.sep)):
            return os.path.relpath(path, self.home)
        return path

    def folder_of(self, path: str) -> str | None:
        absolute = os.path.abspath(path)
        inside = [f for f in self.folders if absolute.startswith(f.rstrip(os.sep) + os.sep)]
        return max(inside, key=len) if inside else None

    def say(self, where: str, error: str | None) -> None:
        """A broken configuration is one message (again only once fixed and broken anew)."""
        if error is None:
            self.errors.pop(where, None)
        elif self.errors.get(where) != error:
            self.errors[where] = error
            self.message(f"jaxlint: {error}; using the default settings until it is fixed")

    def folder_at(self, root: str) -> Folder:
        """The workspace folder ``root`` (configured on first use)."""
        if root not in self.by_folder:
            f = self.by_folder[root] = Folder(root, self.engine_path(root), self.jobs, self.say)
            f.configure()
        return self.by_folder[root]

    def folder(self, path: str) -> Folder:
        """The folder of an engine path; a lone file's own."""
        root = self.folder_of(path)
        if root is not None:
            return self.folder_at(root)
        if path not in self.lone:
            f = self.lone[path] = Folder(os.path.abspath(path), path, self.jobs, self.say)
            f.stamp = f.settings_stamp()
            try:
                f.resolver = Resolver(None, path)  # as `jaxlint check FILE` resolves it
                f.base = f.resolver.for_path(path)
                validate_settings(f.base)
                self.say(path, None)
            except ConfigError as e:
                self.say(path, str(e))
                f.resolver, f.base = None, _defaults(os.path.dirname(os.path.abspath(path)))
            f.projects = [Project(f.base, self.jobs, lone=True)]
        return self.lone[path]

    def project_for(self, path: str) -> Project:
        folder = self.folder(path)
        return folder.projects[0] if path in self.lone else folder.project_for(path)

    def load(self, root: str, progress: Progress | None = None) -> None:
        for line in self.folder_at(root).load(progress):
            self.log(f"jaxlint: {line}")

    def change_folders(self, added: list[str], removed: list[str]) -> None:
        """Folders added or removed: their open buffers move to the project they belong to
        now (a lone file's own, or the new folder's, read by ``load``)."""
        moving: list[Buffer] = []
        for root in removed:
            if root in self.folders:
                self.folders.remove(root)
            folder = self.by_folder.pop(root, None)
            moving += [b for p in folder.projects for b in p.buffers.values()] if folder else []
        self.folders += [r for r in added if r not in self.folders]
        for path, folder in list(self.lone.items()):
            if self.folder_of(path) is not None:
                moving += [b for p in folder.projects for b in p.buffers.values()]
                del self.lone[path]
        for buf in moving:
            buf.forget()
            self.open(buf)

    def refresh_config(self, force: bool = False) -> None:
        """Find the settings again where a file that decides them changed (``force``: a file
        watcher said one did); a folder whose projects changed is read again."""
        for key, folder in [*self.by_folder.items(), *self.lone.items()]:
            if not force and folder.settings_stamp() == folder.stamp:
                continue
            forget()
            buffers = [b for p in folder.projects for b in p.buffers.values()]
            old = [(p.settings, sorted(p.files)) for p in folder.projects]
            if key in self.lone:
                del self.lone[key]
            else:
                fresh = Folder(folder.path, folder.shown, self.jobs, self.say)
                fresh.configure()
                if [(s, sorted(fs)) for s, fs in fresh.groups] == old:
                    folder.stamp = fresh.stamp
                    continue
                self.by_folder[key] = fresh
                fresh.load()
            for buf in buffers:
                buf.forget()
                self.open(buf)

    # documents --------------------------------------------------------------------------
    def open(self, buf: Buffer) -> None:
        self.project_for(buf.path).open(buf)

    def update(self, path: str, text: str, version: int | None, notebook: NotebookText | None = None) -> None:
        self.project_for(path).update(path, text, version, notebook)

    def close(self, path: str) -> list[str]:
        """Forget a buffer; returns the URIs whose diagnostics must be cleared."""
        buf = self.project_for(path).close(path)
        self.lone.pop(path, None)
        if buf is None:
            return []
        uris = list(buf.notebook.cells) if buf.notebook is not None else [buf.uri]
        for uri in uris:
            self.shown.pop(uri, None)
        return uris

    def saved(self, path: str) -> None:
        """The buffer is the file on disk now: read again (``redecide``) and published again."""
        self.project_for(path).saved(path)
        self.force.add(path)

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
        by_folder: dict[str, tuple[set[str], set[str], set[str]]] = {}
        for path, kind in events:
            root = self.folder_of(path)
            if root is None or root not in self.by_folder:
                continue
            sets = by_folder.setdefault(root, (set(), set(), set()))
            sets[("changed", "created", "deleted").index(kind)].add(self.engine_path(path))
        again = False
        for root, (changed, created, deleted) in by_folder.items():
            again |= self.by_folder[root].files_changed(changed, created, deleted)
        return again

    def redecide(self) -> bool:
        """Every project decides its slicing again; True if some file's result changed."""
        changed = False
        for project in self.all_projects():
            try:
                changed |= project.redecide()
            except Exception as exc:  # a bug costs this pass; the next change tries again
                self.log(f"jaxlint: internal error while deciding the project again: {describe(exc)}")
        return changed

    def all_projects(self) -> list[Project]:
        return [p for f in [*self.by_folder.values(), *self.lone.values()] for p in f.projects]

    # publishing -------------------------------------------------------------------------
    def publications(self) -> list[Publication]:
        """What changed since the last publication, for every open document."""
        self.refresh_config()
        out = []
        for project in self.all_projects():
            if not project.ready or not project.buffers or not project.dirty:
                continue
            project.dirty = False
            logged = set(project.warnings)
            found, errors = project.diagnose()
            for line in errors + [w for w in project.warnings if w not in logged]:
                self.log(f"jaxlint: {line}")
            for path, diags in found.items():
                buf = project.buffers.get(path)
                if buf is None:
                    continue
                again = path in self.force
                self.force.discard(path)
                for pub in documents(project, buf, diags, self.client):
                    old = self.shown.get(pub.doc.uri)
                    if again or old is None or old.doc.version != pub.doc.version or old.items != pub.items:
                        self.shown[pub.doc.uri] = pub
                        out.append(pub)
        return out
