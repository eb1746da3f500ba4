"""Which files to lint: walk the given paths, skip what should never be linted.

Skipped: VCS folders, virtual environments (any folder with ``pyvenv.cfg``), build
output, caches, what ``exclude``/``extend-exclude`` name, and what ``.gitignore`` files
ignore (matched with pathspec's implementation of git's rules). A file named explicitly
on the command line is always linted. Symbolic links to folders are not followed, and no
folder is walked twice; broken or looping links are not files, and a link to a file the
run lints anyway is not linted again. A ``.py`` entry that is not a regular file (a FIFO, a
device) and a folder that cannot be listed (too deep for the system to name) are returned
as files: reading them fails, and that is reported on them (JAX003) instead of stopping the
run. A ``.gitignore`` line git accepts but pathspec cannot read (``[z-a]``, a trailing
backslash) matches nothing, as in git. The walk is a loop, not a recursion: any depth the
file system allows.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec  # imported when a .gitignore is read: most runs never need it

DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".svn",
    ".bzr",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".eggs",
    "__pycache__",
    "build",
    "dist",
    "_build",
    "buck-out",
    "node_modules",
    "site-packages",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".jaxlint_cache",
    ".ipynb_checkpoints",
)


class DiscoveryError(Exception):
    pass


@dataclass
class _Ignore:
    base: str
    spec: pathspec.PathSpec

    def matches(self, path: str, is_dir: bool) -> bool:
        rel = os.path.relpath(path, self.base).replace(os.sep, "/")
        if rel.startswith(".."):
            return False
        return self.spec.match_file(rel + "/" if is_dir else rel)


def _gitignore(directory: str, on_disk: str | None = None) -> _Ignore | None:
    """The ignore file of ``directory`` (read at ``on_disk``, the same folder by a shorter path)."""
    p = os.path.join(on_disk or directory, ".gitignore")
    if not os.path.isfile(p):
        return None
    try:
        with open(p, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    return _Ignore(directory, _spec(lines))


def _spec(lines: list[str]):
    """The ignore patterns of ``lines``; a line pathspec cannot compile matches nothing (git
    reads ``[z-a]`` as a range with no character in it, and ignores a trailing backslash)."""
    import pathspec

    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except (ValueError, re.error):  # pathspec's pattern errors are ValueErrors
        pass
    usable = []
    for line in lines:
        try:
            pathspec.GitIgnoreSpec.from_lines([line])
        except (ValueError, re.error):
            continue
        usable.append(line)
    return pathspec.GitIgnoreSpec.from_lines(usable)


def _git_root(start: str) -> str | None:
    d = start
    while True:
        if os.path.exists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def discover(
    paths: list[str],
    root: str,
    exclude: list[str],
    extend_exclude: list[str],
    excluded_by: Callable[[str, bool], bool] | None = None,
    force_exclude: bool = False,
) -> list[str]:
    """Sorted, de-duplicated .py and .ipynb files under ``paths``. Files named directly always
    count, unless ``force_exclude`` (what pre-commit needs: it names every staged file).
    ``excluded_by(path, is_dir)`` replaces ``exclude``/``extend_exclude`` (relative to ``root``)
    when each folder has its own configuration (``jaxlint.lint.config.Resolver``)."""
    # pathspec is imported only when a folder is walked (a pre-commit run names files)
    patterns = list(exclude) + list(extend_exclude)
    user = None
    root = os.path.abspath(root)
    out: set[str] = set()
    seen: set = set()  # the folders walked, as (device, inode), and the real paths of files named
    links: set[str] = set()  # found files that are symbolic links
    named: list[str] = []

    def excluded(path: str, is_dir: bool, on_disk: str | None = None) -> bool:
        name = os.path.basename(path)
        if is_dir and name in DEFAULT_EXCLUDE:
            return True
        if is_dir and os.path.isfile(os.path.join(on_disk or path, "pyvenv.cfg")):
            return True
        if excluded_by is not None:
            return excluded_by(path, is_dir)
        if user is None:
            return False
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        return bool(not rel.startswith("..") and user.match_file(rel + "/" if is_dir else rel))

    for given in paths:
        ap = os.path.abspath(given)
        if not os.path.exists(ap):
            if os.path.islink(ap):
                raise DiscoveryError(f"{given}: broken symbolic link or symbolic link loop")
            raise DiscoveryError(f"{given}: no such file or directory")
        if user is None and patterns and (force_exclude or os.path.isdir(ap)):
            import pathspec

            user = pathspec.GitIgnoreSpec.from_lines(patterns)
        if not os.path.isdir(ap):  # a file, or a FIFO, socket or device: reading reports it
            if force_exclude and _force_excluded(ap, excluded):
                continue
            if os.path.realpath(ap) not in seen:
                seen.add(os.path.realpath(ap))
                out.add(os.path.normpath(given))
                named.append(os.path.normpath(given))
            continue
        if force_exclude and _force_excluded(ap, excluded, own=False):
            continue
        # .gitignore files from the repository root down to the given folder apply
        ignores: list[_Ignore] = []
        top = _git_root(ap)
        if top is not None:
            d = ap
            chain = []
            while True:
                chain.append(d)
                if d == top:
                    break
                d = os.path.dirname(d)
            for d in reversed(chain[1:]):
                gi = _gitignore(d)
                if gi:
                    ignores.append(gi)
        _walk(ap, given, ignores, excluded, out, seen, links)
    return sorted(_one_name_per_file(out, links, named))


def _walk(
    top: str, shown_top: str, ignores: list[_Ignore], excluded, out: set[str], seen: set, links: set[str]
) -> None:
    """Add the files under ``top`` to ``out`` (links to files also to ``links``). The system
    is asked by the shown paths, relative ones where the user named a relative folder: a
    path can be at most 4,096 characters, and those are the shorter."""
    stack = [(top, shown_top, ignores)]
    while stack:
        abs_dir, shown_dir, inherited = stack.pop()
        try:
            st = os.stat(shown_dir)
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
        except OSError:
            pass  # listing it fails below and says why
        gi = _gitignore(abs_dir, shown_dir)
        here = [*inherited, gi] if gi is not None else inherited
        try:
            entries = sorted(os.scandir(shown_dir), key=lambda e: e.name)
        except OSError:  # unreadable, gone or too deep to name: reading it says why (JAX003)
            out.add(os.path.normpath(shown_dir))
            continue
        for e in reversed(entries):
            ap = os.path.join(abs_dir, e.name)
            shown = os.path.normpath(os.path.join(shown_dir, e.name))
            is_dir = e.is_dir(follow_symlinks=False)
            link = not is_dir and e.is_symlink()
            if not is_dir and not (e.name.endswith((".py", ".ipynb")) and (not link or _is_file(e))):
                continue
            if excluded(ap, is_dir, shown) or any(i.matches(ap, is_dir) for i in here):
                continue
            if is_dir:
                stack.append((ap, shown, here))
            else:
                out.add(shown)
                if link:
                    links.add(shown)


def _force_excluded(path: str, excluded: Callable[[str, bool], bool], own: bool = True) -> bool:
    """A path named on the command line that an exclusion covers: itself (``own``) or a
    folder above it, up to the working directory."""
    if own and excluded(path, False):
        return True
    cwd = os.path.abspath(os.getcwd())
    d = os.path.dirname(path) if own else path
    while d != cwd and not os.path.relpath(d, cwd).startswith(".."):
        if excluded(d, True):
            return True
        d = os.path.dirname(d)
    return False


def _one_name_per_file(out: set[str], links: set[str], named: list[str]) -> set[str]:
    """One name for each file: a found link whose file the run lints anyway is dropped (the
    named name first, then the file's own, then the first link). Looked at only when the
    run holds a link."""
    if not links and not any(os.path.islink(n) for n in named):
        return out
    first = [n for n in named if n in out]
    rest = sorted(p for p in out if p not in links and p not in first) + sorted(p for p in links if p not in first)
    keep: set[str] = set()
    taken: set[tuple[int, int]] = set()
    for shown in first + rest:
        try:
            st = os.stat(shown)
        except OSError:  # reading it says why
            keep.add(shown)
            continue
        if (st.st_dev, st.st_ino) not in taken:
            taken.add((st.st_dev, st.st_ino))
            keep.add(shown)
    return keep


def _is_file(entry: os.DirEntry) -> bool:
    """A link to a regular file; a broken or looping link is not one."""
    try:
        return entry.is_file()
    except OSError:
        return False
