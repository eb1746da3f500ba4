"""Per-file result cache in ``.jaxlint_cache/`` at the project root.

An entry holds what linting one file produced *before* the project phase (its local
diagnostics, pending findings, module facts and suppressions). The key covers the
file's path, module name and bytes, the jaxlint version, the settings and the enabled
rules. Project-wide verdicts are recomputed from the facts on every run, so a change in
one module re-decides the findings of every module that depends on it.
A second kind of entry holds a whole run's final diagnostics, keyed by every file's
key: an unchanged tree re-lints in the time it takes to hash it.

Safe to lint untrusted code with (see "Security" in the README): an entry is JSON of
jaxlint's own records (``jaxlint.base.records``), never a pickle, compressed with zlib, and
it carries an HMAC made with this user's secret key (``jaxlint.cache.key``, kept outside
every project), checked before anything is decompressed or decoded. An entry that is
planted, copied from another user or machine, truncated or damaged is a miss. Writes never
follow a symlink and never leave a world-writable file or folder; files are written to a
temporary file and renamed, so concurrent runs never see half a file.

Size: the per-file entries of a namespace live in one pack file (``<namespace>/pack``: a
sequence of ``name``, ``length``, sealed entry), rewritten once per run that wrote
something, so a thousand small entries do not cost a thousand disk blocks; each entry in
it is sealed on its own, so the pack's framing is no more trusted than a file name. The
whole-run entries stay files of their own: a warm run reads one small file, not the pack.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import stat
import tempfile
import zlib

from jaxlint import __version__
from jaxlint.base.limits import MAX_FILE_BYTES
from jaxlint.base.modules import module_name_for
from jaxlint.base.types import FileResult

CACHE_DIR = ".jaxlint_cache"
MAGIC = b"jaxlint-cache 2\n"  # 2: the payload is zlib-compressed JSON
PACK_MAGIC = b"jaxlint-pack 1\n"
PACK = "pack"
MAX_ENTRY_BYTES = 256 << 20  # an entry, compressed or not
MAX_PACK_BYTES = 1 << 30
COMPRESSION = 6
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by jaxlint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)


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
                if name.endswith((".py", ".stub")):  # a stub is code the model reads
                    path = os.path.join(root, name)
                    st = os.stat(path)
                    h.update(f"{os.path.relpath(path, base)}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()[:16]


_UMASK: int | None = None


def _umask() -> int:
    global _UMASK
    if _UMASK is None:
        _UMASK = os.umask(0o022)
        os.umask(_UMASK)
    return _UMASK


class Cache:
    # Entries accumulate: every version of a file, every slicing decision made for it
    # (editing one module can change what is kept in its dependants), every settings
    # namespace. A run that wrote entries keeps the newest MAX_ENTRIES of its namespace
    # and drops namespaces nobody has written to for STALE_DAYS.
    MAX_ENTRIES = 50_000
    STALE_DAYS = 30

    def __init__(self, directory: str, namespace: str, secret: bytes | None = None) -> None:
        self.root = directory
        self.namespace = namespace
        self.dir = os.path.join(directory, namespace)
        self._secret = secret
        self._ready: bool | None = None  # None: not checked yet; False: not writable safely
        self._keys: dict[str, str] = {}
        self._written = 0
        self._pack: dict[str, bytes] | None = None  # name -> sealed entry, oldest first
        self._new: dict[str, bytes] = {}  # written by this run, not yet in the pack
        self._used: set[str] = set()  # read by this run: kept first when the pack is pruned

    @classmethod
    def for_settings(cls, settings, directory: str | None = None) -> Cache | None:
        """The project's cache (in ``directory`` if given: ``--cache-dir``), or None when this
        user has no usable secret key."""
        from jaxlint.cache.key import load_secret

        secret = load_secret()
        if secret is None:
            return None
        # the enabled rules follow from the settings and jaxlint's code: no rule import here
        ns = hashlib.sha256(f"{__version__}|{code_fingerprint()}|{settings.fingerprint()}".encode()).hexdigest()[:20]
        return cls(os.path.abspath(directory) if directory else os.path.join(settings.root, CACHE_DIR), ns, secret)

    # keys ----------------------------------------------------------------------------
    def _key(self, path: str) -> str | None:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not block the run
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            # a file too large to lint is a JAX003, whose result is never cached: no key, and
            # nothing read (hashing a 3 GB file took 12 s and 3 GB of memory)
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE_BYTES:
                return None
            with os.fdopen(fd, "rb") as f:
                fd = -1
                data = f.read()
        except OSError:
            return None
        finally:
            if fd >= 0:
                os.close(fd)
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

    # sealed entries: MAGIC, an HMAC of (namespace, key, payload), the JSON payload -----
    def _mac(self, name: str, payload: bytes) -> bytes:
        assert self._secret is not None
        m = hmac.new(self._secret, digestmod=hashlib.sha256)
        m.update(f"{self.namespace}/{name}\0".encode())
        m.update(payload)
        return m.hexdigest().encode()

    def _read_file(self, path: str, limit: int) -> bytes | None:
        """A regular file's bytes (never through a symlink, never blocking), or None."""
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
                return None
            with os.fdopen(fd, "rb") as f:
                fd = -1
                return f.read(limit + 1)
        except OSError:
            return None
        finally:
            if fd >= 0:
                os.close(fd)

    def _unseal(self, data: bytes, name: str):
        """The record sealed in ``data`` under ``name``; None for anything not sealed by us.
        The MAC is checked before the payload is decompressed or decoded."""
        if self._secret is None or len(data) > MAX_ENTRY_BYTES:
            return None
        head = len(MAGIC)
        if not data.startswith(MAGIC) or len(data) < head + 65 or data[head + 64 : head + 65] != b"\n":
            return None
        mac, payload = data[head : head + 64], data[head + 65 :]
        if not hmac.compare_digest(mac, self._mac(name, payload)):
            return None
        try:
            inflate = zlib.decompressobj()
            text = inflate.decompress(payload, MAX_ENTRY_BYTES)
            if inflate.unconsumed_tail or not inflate.eof:
                return None  # larger than any entry we write, or cut short
        except zlib.error:
            return None
        from jaxlint.base.records import RecordError, loads

        try:
            return loads(text)
        except RecordError:
            return None

    def _read(self, path: str, name: str):
        """The record stored in the file ``path`` under ``name``; None for anything not sealed by us."""
        if self._secret is None:
            return None
        data = self._read_file(path, MAX_ENTRY_BYTES)
        return None if data is None else self._unseal(data, name)

    def _load_pack(self) -> dict[str, bytes]:
        """The pack's entries (still sealed), oldest first; damaged framing ends the list."""
        data = self._read_file(os.path.join(self.dir, PACK), MAX_PACK_BYTES)
        out: dict[str, bytes] = {}
        if data is None or not data.startswith(PACK_MAGIC):
            return out
        pos = len(PACK_MAGIC)
        while pos < len(data):
            name_end = data.find(b"\n", pos, pos + 200)
            size_end = data.find(b"\n", name_end + 1, name_end + 22) if name_end >= 0 else -1
            if size_end < 0:
                break
            name, size = data[pos:name_end], data[name_end + 1 : size_end]
            if not (name.isalnum() and size.isdigit()) or int(size) > MAX_ENTRY_BYTES:
                break
            end = size_end + 1 + int(size)
            if end > len(data):
                break
            out.pop(name.decode(), None)
            out[name.decode()] = data[size_end + 1 : end]
            pos = end
        return out

    def _load(self, key: str | None):
        if key is None or self._secret is None:
            return None
        blob = self._new.get(key)
        if blob is None:
            if self._pack is None:
                self._pack = self._load_pack()
            blob = self._pack.get(key)
        if blob is None:
            return None
        value = self._unseal(blob, key)
        if value is not None:
            self._used.add(key)
        return value

    def get(self, path: str, variant: str = "") -> FileResult | None:
        """The file's result when LibCST saw it with the blanks ``variant`` names."""
        res = self._load(self._entry_key(path, variant))
        if not isinstance(res, FileResult) or res.path != path or not deps_current(res.deps):
            return None
        return res

    def put(self, path: str, result: FileResult, variant: str = "") -> None:
        key = self._entry_key(path, variant)
        if key is not None:
            self._store(key[:2], key, result)

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
        key = self._entry_key(path, "plan")
        if key is not None:
            self._store(key[:2], key, value)

    # writing --------------------------------------------------------------------------
    def _prepare(self) -> bool:
        """Make (or check) the cache folders: real folders of ours, never symlinks."""
        if self._ready is None:
            self._ready = False
            try:
                for d in (self.root, self.dir):
                    if not _own_dir(d):
                        return False
                self._write_new(os.path.join(self.root, ".gitignore"), b"# created by jaxlint\n*\n")
                self._write_new(os.path.join(self.root, "CACHEDIR.TAG"), CACHEDIR_TAG.encode())
                self._ready = True
            except OSError:
                return False
        return self._ready

    def _write_new(self, path: str, data: bytes) -> None:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666 & ~(_umask() | 0o002))
        except FileExistsError:
            return
        with os.fdopen(fd, "wb") as f:
            f.write(data)

    def _store(self, sub: str, name: str, value) -> None:
        """Seal ``value`` under ``name``: a per-file entry (``sub``) goes into the pack at
        ``flush``, a whole-run entry (no ``sub``) is written as ``<namespace>/<name>`` now."""
        if self._secret is None or not self._prepare():
            return
        from jaxlint.base.records import RecordError, dumps

        try:
            payload = zlib.compress(dumps(value), COMPRESSION)
        except (RecordError, RecursionError):
            return  # not plain records: simply not cached
        sealed = MAGIC + self._mac(name, payload) + b"\n" + payload
        if len(sealed) > MAX_ENTRY_BYTES:
            return
        if sub:  # a per-file entry: into the pack when the run flushes
            self._new[name] = sealed
            self._written += 1
            return
        self._write_file(self.dir, name, sealed)

    def _write_file(self, folder: str, name: str, data: bytes) -> None:
        """``data`` as ``folder/name``, written to a temporary file and renamed into place."""
        try:
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
            try:
                os.fchmod(fd, 0o666 & ~(_umask() | 0o002))
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(tmp, os.path.join(folder, name))  # replaces a symlink, never follows it
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError:
            pass  # a read-only or full disk still lints, just without a cache

    def flush(self) -> None:
        """After a run that wrote entries: rewrite the pack, bounded in size."""
        if not self._written:
            return
        self._written = 0
        if not self._prepare():
            return
        # what other runs packed since we read it counts too; this run's entries are newest
        old = self._load_pack()
        for name in self._used:
            if name in old:
                old[name] = old.pop(name)
        old.update(self._new)
        names = list(old)
        if len(names) > self.MAX_ENTRIES:
            names = names[len(names) - self.MAX_ENTRIES * 4 // 5 :]
        parts = [PACK_MAGIC]
        for name in names:
            blob = old[name]
            parts += [name.encode(), b"\n", str(len(blob)).encode(), b"\n", blob]
        self._write_file(self.dir, PACK, b"".join(parts))
        self._pack = {name: old[name] for name in names}
        self._new = {}
        try:
            os.utime(self.dir, follow_symlinks=False)  # this namespace is in use (see STALE_DAYS)
            self._prune()
        except OSError:
            pass  # another run pruning at the same time: its deletions are as good as ours

    def _prune(self) -> None:
        """Drop namespaces nobody has used for STALE_DAYS."""
        import shutil
        import time

        cutoff = time.time() - self.STALE_DAYS * 86400
        for ns in os.scandir(self.root):
            if (
                ns.is_dir(follow_symlinks=False)
                and ns.path != self.dir
                and ns.stat(follow_symlinks=False).st_mtime < cutoff
            ):
                shutil.rmtree(ns.path, ignore_errors=True)

    # a whole run: when no file of the run changed, its final answer is reused ---------
    def run_key(self, files: list[str], named: list[str]) -> str | None:
        """The key of a whole run's answer: everything that changes it. The settings are the
        namespace; here the working directory and the paths as named (a named file is always
        checked, and every reported path is relative to both), then every file as found and
        its contents."""
        h = hashlib.sha256()
        h.update(repr((os.getcwd(), list(named), files)).encode(errors="surrogateescape"))
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
        value = self._read(os.path.join(self.dir, key), key)
        if not (isinstance(value, tuple) and len(value) == 4 and isinstance(value[0], list)):
            return None
        if not (isinstance(value[3], list) and deps_current(value[3])):
            return None  # a module the run's files import changed
        with contextlib.suppress(OSError):  # a namespace that only answers warm runs is in use too
            os.utime(self.dir, follow_symlinks=False)
        return value

    def put_run(self, key: str | None, value: tuple) -> None:
        if key is None:
            return
        self._store("", key, value)
        try:
            # keep only the newest few run entries
            runs = sorted(
                (e for e in os.scandir(self.dir) if e.name.startswith("run-")),
                key=lambda e: e.stat(follow_symlinks=False).st_mtime,
                reverse=True,
            )
            for old in runs[8:]:
                os.unlink(old.path)
        except OSError:
            pass


def deps_current(deps: list[tuple[str, str]]) -> bool:
    """Are the imported modules a result was computed from (path, digest) unchanged?"""
    from jaxlint.lint.imports import digest, read_module_bytes

    for dep in deps:
        if not (type(dep) is tuple and len(dep) == 2 and type(dep[0]) is str and type(dep[1]) is str):
            return False
        data = read_module_bytes(dep[0])
        if data is None or digest(data) != dep[1]:
            return False
    return True


def _own_dir(path: str) -> bool:
    """``path`` is (now) a real folder owned by this user: created if missing, never
    world-writable, and never a symlink (which could send writes anywhere)."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o777 & ~(_umask() | 0o002))
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
        return False
    if st.st_mode & 0o002:
        os.chmod(path, stat.S_IMODE(st.st_mode) & ~0o002)  # lstat said: a real folder
    return True
