"""The project modules a file imports, read on demand for the semantic model.

When the evaluator needs what ``from pkg.model import init_params`` binds, it asks for
the program of ``pkg.model``. The module is found as Python's import would find it for
the linted file: below the folder its top-level package sits in (the folder of a script),
``pkg/model.py`` or ``pkg/model/__init__.py``. Its text is read and parsed, never run;
the result remembers which files it read and their digests (``deps``), so that a cached
result is used only while those files are unchanged.

One ``ModuleReader`` per worker keeps the last few parsed modules: the files of a
package import the same few modules.

A library module the project does not contain may have a *stub*: Python source shipped
with jaxlint (``jaxlint/model/stubs/<module>.stub``) that says what the library's
functions and classes do, in the library's own terms (flax's ``TrainState.create`` gives
``step=0``; ``replicate`` gives every leaf a leading device axis). The model reads a stub
as it reads a project module; it is never run either.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from jaxlint.base.modules import module_name_for, module_path, search_root

if TYPE_CHECKING:
    from jaxlint.model.context import FileContext
    from jaxlint.model.evaluate import World
    from jaxlint.model.program import Program

STUBS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "model", "stubs")
MAX_MODULE_BYTES = 1 << 20  # a larger module is not read for values (it stays unknown)
KEPT = 8  # parsed modules kept per worker


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


def read_module_bytes(path: str, limit: int = MAX_MODULE_BYTES) -> bytes | None:
    """The bytes of a regular file of at most ``limit`` bytes, else None (a FIFO does not block)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        with os.fdopen(fd, "rb") as f:
            fd = -1
            data = f.read(limit + 1)
        return data if len(data) <= limit else None  # it grew since fstat
    except OSError:
        return None
    finally:
        if fd >= 0:
            os.close(fd)


class ModuleReader:
    """Parsed project modules (``FileContext``), the last ``KEPT`` of a worker."""

    def __init__(self, settings: object = None, read: Callable[[str], bytes | None] | None = None) -> None:
        self.settings = settings
        self.read = read or read_module_bytes
        self._kept: OrderedDict[str, tuple[str, FileContext | None]] = OrderedDict()
        self._stubs: dict[str, FileContext | None] = {}

    def context(self, path: str) -> tuple[str, FileContext | None] | None:
        """(digest, context) of the module at ``path``; the context is None when it does
        not parse. None when it cannot be read."""
        data = self.read(path)
        if data is None:
            return None
        d = digest(data)
        hit = self._kept.get(path)
        if hit is not None and hit[0] == d:
            self._kept.move_to_end(path)
            return hit
        ctx = self._parse(path, data)
        self._kept[path] = (d, ctx)
        while len(self._kept) > KEPT:
            self._kept.popitem(last=False)
        return d, ctx

    def stub(self, module: str) -> FileContext | None:
        """The parsed stub of library module ``module``, or None when jaxlint has none.
        Read from jaxlint's own files (not through ``read``: an editor's unsaved buffers
        are the project's), once per worker."""
        if module in self._stubs:
            return self._stubs[module]
        ctx = None
        if all(p.isidentifier() for p in module.split(".")):
            path = os.path.join(STUBS, module + ".stub")
            data = read_module_bytes(path)  # None: jaxlint has no stub of it
            ctx = self._parse(path, data, module) if data is not None else None
        self._stubs[module] = ctx
        return ctx

    def _parse(self, path: str, data: bytes, dotted: str | None = None) -> FileContext | None:
        from jaxlint.lint.engine import walk_events
        from jaxlint.lint.parse import parse_module
        from jaxlint.model.context import FileContext
        from jaxlint.model.facts import collect_facts

        try:
            text = data.decode("utf-8-sig")
            module = parse_module(text)
        except (UnicodeDecodeError, cst.ParserSyntaxError, RecursionError, MemoryError):
            return None
        events, parents = walk_events(module)
        name, is_package = (dotted, False) if dotted is not None else module_name_for(path)
        names, facts, qualnames = collect_facts(path, module, events, name, is_package)
        return FileContext(path, text, module, names, facts, qualnames, parents, self.settings, events)


class Imports:
    """What one linted file may import from its project: ``load(module, world)`` gives the
    module's program in that world (World's loader); ``deps`` the files read, with digests."""

    def __init__(self, reader: ModuleReader, path: str, module: str, is_package: bool) -> None:
        self.reader = reader
        self.path = os.path.abspath(path)
        self.root = search_root(path, module, is_package)
        self.deps: dict[str, str] = {}
        self._loaded: list[FileContext] = []  # the kept contexts given a program of this file's world

    def release(self) -> None:
        """Drop what this file's world left on the kept contexts (its programs, the rules'
        memos). A kept context then holds no cycle, and what hung on it dies with this
        file's collection, not later: once a file is over, everything alive may be frozen
        out of the collector's sight (jaxlint.api ``_freeze_tree``)."""
        for ctx in self._loaded:
            ctx.shared.clear()
        self._loaded.clear()

    def load(self, module: str, world: World) -> Program | None:
        path = module_path(self.root, module)
        if path is None:  # a library module: its stub, if jaxlint has one
            return self._program(self.reader.stub(module), world)
        return self.load_path(path, world)

    def load_path(self, path: str, world: World) -> Program | None:
        """The program of the project file at ``path`` (a module this file imports, or one
        that imports this file's defs: jaxlint.plan.importers), in this file's world, its
        digest among ``deps``; None for this file itself (its imports of this module are
        this file's program: ``World.home``)."""
        if os.path.abspath(path) == self.path:
            return None
        found = self.reader.context(path)
        if found is None:
            return None
        d, ctx = found
        self.deps[path] = d
        return self._program(ctx, world)

    def _program(self, ctx: FileContext | None, world: World) -> Program | None:
        from jaxlint.model.program import Program

        if ctx is None:
            return None
        program = Program(ctx, world)
        ctx.shared["model"] = program
        self._loaded.append(ctx)
        return program
