"""Paths as CI services want them: relative to the working directory, with ``/``."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote


def relative(path: str) -> str:
    """``path`` relative to the working directory; unchanged if it lies outside it."""
    if path == "-" or path.startswith("<"):
        return path
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    if rel == ".." or rel.startswith(".." + os.sep):
        return path
    return rel.replace(os.sep, "/")


def uri(path: str) -> str:
    """A SARIF artifact URI: relative and percent-encoded inside the working directory
    (code scanning resolves it against the checkout), else an absolute ``file://`` URI."""
    rel = relative(path)
    if os.path.isabs(rel) or rel == ".." or rel.startswith("../"):
        return Path(os.path.abspath(path)).as_uri()
    return quote(rel, errors="surrogateescape")  # a name that is not UTF-8: its bytes, percent-encoded
