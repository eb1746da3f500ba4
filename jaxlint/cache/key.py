"""This user's secret key for sealing cache entries, kept outside every project.

Why: the cache lives in the project, which may be an untrusted pull request. An entry
is trusted only if its HMAC was made with this key, and the key is where no project can
put or read one: ``$XDG_CACHE_HOME/jaxlint/cache.key`` (default ``~/.cache/jaxlint``),
32 random bytes, mode 0600 in a 0700 folder. A key that is missing is created; one that
is a symlink, not ours, or readable by others is refused, and then nothing is cached.
"""

from __future__ import annotations

import os
import stat

KEY_BYTES = 32


def key_path() -> str:
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG spec: a relative path is invalid and is ignored
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "jaxlint", "cache.key")


def _private_folder(path: str) -> bool:
    """The key's folder is a real folder of ours that nobody else may enter (0700): in a
    folder others can write to, the key could be swapped or read as it is written."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    ours = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return stat.S_ISDIR(st.st_mode) and ours and not st.st_mode & 0o077


def load_secret() -> bytes | None:
    """The key (created on first use), or None when no safe key can be had."""
    path = key_path()
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError:
        return None
    if not _private_folder(folder):
        return None
    try:
        return _read(path)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:  # another run created it first
        try:
            return _read(path)
        except OSError:
            return None
    except OSError:
        return None
    secret = os.urandom(KEY_BYTES)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(secret)
    except OSError:
        return None
    return secret


def _read(path: str) -> bytes | None:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        ours = not hasattr(os, "getuid") or st.st_uid == os.getuid()
        if not stat.S_ISREG(st.st_mode) or not ours or st.st_mode & 0o077:
            return None
        data = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    return data if len(data) == KEY_BYTES else None  # a half-written key: no cache this run
