"""Per-file result cache in ``.jaxlint_cache/`` at the project root.

An entry holds what linting one file produced *before* the project phase (its local
diagnostics, pending findings, module facts and suppressions). The key covers the
file's path, module name and bytes, the jaxlint version, the settings and the enabled
rules. Project-wide verdicts are recomputed from the facts on every run, so a change in
one module re-decides the findings of every module that depends on it.
A second kind of entry holds a whole run's final diagnostics, keyed by every file's
key: an unchanged tree re-lints in the time it takes to hash it.
Entries are written to a temporary file and renamed: concurrent runs never see half an
entry, and a corrupt or unreadable entry counts as a miss.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile

from jaxlint import __version__
from jaxlint.modules import module_name_for
from jaxlint.types import FileResult

CACHE_DIR = ".jaxlint_cache"


def code_fingerprint() -> str:
    """Size and mtime of jaxlint's own modules: an edited rule (a development checkout,
    an upgrade that kept the version number) must not be answered from the cache."""
    import importlib.util

    import jaxlint

    rules = importlib.util.find_spec("jaxlint.rules")  # located, not imported
    bases = list(jaxlint.__path__)
    if rules is not None and rules.submodule_search_locations:
        bases += list(rules.submodule_search_locations)
    h = hashlib.sha256()
    for base in bases:
        for root, dirs, files in os.walk(base):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    st = os.stat(os.path.join(root, name))
                    h.update(f"{name}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()[:16]


class Cache:
    # Entries accumulate: every version of a file, every slicing decision made for it
    # (editing one module can change what is kept in its dependants), every settings
    # namespace. A run that wrote entries keeps the newest MAX_ENTRIES of its namespace
    # and drops namespaces nobody has written to for STALE_DAYS.
    MAX_ENTRIES = 50_000
    STALE_DAYS = 30

    def __init__(self, directory: str, namespace: str) -> None:
        self.dir = os.path.join(directory, namespace)
        self._ready = False
        self._keys: dict[str, str] = {}
        self._written = 0

    @classmethod
    def for_settings(cls, settings) -> "Cache":
        # the enabled rules follow from the settings and jaxlint's code: no rule import here
        ns = hashlib.sha256(f"{__version__}|{code_fingerprint()}|{settings.fingerprint()}".encode()).hexdigest()[:20]
        return cls(os.path.join(settings.root, CACHE_DIR), ns)

    def _key(self, path: str) -> str | None:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return None
        h = hashlib.sha256()
        h.update(os.path.abspath(path).encode())
        h.update(b"\0")
        h.update(repr(module_name_for(path)).encode())
        h.update(b"\0")
        h.update(data)
        return h.hexdigest()

    def _entry_key(self, path: str, variant: str) -> str | None:
        key = self._keys.get(path) or self._key(path)
        if key is None:
            return None
        self._keys[path] = key
        return hashlib.sha256(f"{key}|{variant}".encode()).hexdigest() if variant else key

    def _load(self, key: str | None):
        if key is None:
            return None
        try:
            with open(os.path.join(self.dir, key[:2], key), "rb") as f:
                return pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError):
            return None

    def get(self, path: str, variant: str = "") -> FileResult | None:
        """The file's result when LibCST saw it with the blanks ``variant`` names."""
        res = self._load(self._entry_key(path, variant))
        if not isinstance(res, FileResult) or res.path != path:
            return None
        return res

    def put(self, path: str, result: FileResult, variant: str = "") -> None:
        self._store(self._entry_key(path, variant), result)

    def get_plan(self, path: str):
        """The first pass's answer for the file: (kind, FileResult | FilePlan | None)."""
        hit = self._load(self._entry_key(path, "plan"))
        if not (isinstance(hit, tuple) and len(hit) == 2 and hit[0] in ("done", "plan", "whole")):
            return None
        if hit[0] == "done" and not (isinstance(hit[1], FileResult) and hit[1].path == path):
            return None
        if hit[0] == "plan" and getattr(hit[1], "path", None) != path:
            return None
        return hit

    def put_plan(self, path: str, value) -> None:
        self._store(self._entry_key(path, "plan"), value)

    def _store(self, key: str | None, value) -> None:
        if key is None:
            return
        sub = os.path.join(self.dir, key[:2])
        try:
            if not self._ready:
                os.makedirs(self.dir, exist_ok=True)
                gi = os.path.join(os.path.dirname(self.dir), ".gitignore")
                if not os.path.exists(gi):
                    with open(gi, "w") as f:
                        f.write("# created by jaxlint\n*\n")
                self._ready = True
            os.makedirs(sub, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=sub, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, os.path.join(sub, key))
            self._written += 1
        except OSError:
            pass  # a read-only checkout still lints, just without a cache

    def flush(self) -> None:
        """After a run that wrote entries: bound the cache's size."""
        if not self._written:
            return
        self._written = 0
        try:
            os.utime(self.dir)  # this namespace is in use (see STALE_DAYS)
            self._prune()
        except OSError:
            pass  # another run pruning at the same time: its deletions are as good as ours

    def _prune(self) -> None:
        entries = []
        for sub in os.scandir(self.dir):
            if sub.is_dir():
                for e in os.scandir(sub.path):
                    if not e.name.startswith(".tmp-"):
                        entries.append((e.stat().st_mtime, e.path))
        if len(entries) > self.MAX_ENTRIES:
            entries.sort()
            for _, path in entries[: len(entries) - self.MAX_ENTRIES * 4 // 5]:
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass
        import shutil
        import time

        root = os.path.dirname(self.dir)
        cutoff = time.time() - self.STALE_DAYS * 86400
        for ns in os.scandir(root):
            if ns.is_dir() and ns.path != self.dir and ns.stat().st_mtime < cutoff:
                shutil.rmtree(ns.path, ignore_errors=True)

    # a whole run: when no file of the run changed, its final answer is reused ---------
    def run_key(self, files: list[str]) -> str | None:
        h = hashlib.sha256()
        for path in files:
            key = self._keys.get(path) or self._key(path)
            if key is None:
                return None
            self._keys[path] = key
            h.update(key.encode())
        return "run-" + h.hexdigest()

    def get_run(self, key: str | None):
        if key is None:
            return None
        try:
            with open(os.path.join(self.dir, key), "rb") as f:
                value = pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError):
            return None
        if not (isinstance(value, tuple) and len(value) == 2):
            return None
        try:
            os.utime(self.dir)  # a namespace that only answers warm runs is in use too
        except OSError:
            pass
        return value

    def put_run(self, key: str | None, value: tuple) -> None:
        if key is None:
            return
        try:
            os.makedirs(self.dir, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, os.path.join(self.dir, key))
            # keep only the newest few run entries
            runs = sorted(
                (e for e in os.scandir(self.dir) if e.name.startswith("run-")),
                key=lambda e: e.stat().st_mtime,
                reverse=True,
            )
            for old in runs[8:]:
                os.unlink(old.path)
        except OSError:
            pass
