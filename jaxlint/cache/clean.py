"""``jaxlint clean``: remove cache folders, and nothing that is not one.

A folder is removed only if it is a real folder (not a symlink, which could point
anywhere) holding jaxlint's ``CACHEDIR.TAG``: ``--cache-dir ~`` by mistake removes nothing.
"""

from __future__ import annotations

import os
import shutil

from jaxlint.cache.store import CACHE_DIR, CACHEDIR_TAG

_SKIP = {".git", ".hg", ".svn", "node_modules", "__pycache__"}


def is_cache(path: str) -> bool:
    if os.path.islink(path) or not os.path.isdir(path):
        return False
    try:
        with open(os.path.join(path, "CACHEDIR.TAG"), encoding="utf-8") as f:
            return f.read() == CACHEDIR_TAG
    except OSError:
        return False


def _found(paths: list[str]) -> list[str]:
    out: list[str] = []
    for top in paths:
        for root, dirs, _files in os.walk(top):  # symlinks to folders are not followed
            if CACHE_DIR in dirs:
                out.append(os.path.join(root, CACHE_DIR))
            dirs[:] = sorted(d for d in dirs if d not in _SKIP and d != CACHE_DIR)
    return out


def clean(paths: list[str], cache_dir: str | None = None) -> tuple[list[str], list[str]]:
    """(removed folders, errors): the caches under ``paths``, or the one ``cache_dir`` names."""
    candidates = [cache_dir] if cache_dir else _found(paths)
    removed: list[str] = []
    errors: list[str] = []
    for path in candidates:
        if not os.path.lexists(path):
            continue
        if not is_cache(path):
            errors.append(f"{path}: not a jaxlint cache (no jaxlint CACHEDIR.TAG, or a symbolic link); not removed")
            continue
        try:
            shutil.rmtree(path)
        except OSError as e:
            errors.append(f"{path}: cannot remove it: {e.strerror}")
            continue
        removed.append(path)
    return removed, errors
