"""The dotted module name of a file (no LibCST: the warm cache path uses it)."""

from __future__ import annotations

import os


def module_name_for(path: str) -> tuple[str, bool]:
    """Dotted module name of a file, walking up through packages (``__init__.py``)."""
    path = os.path.abspath(path)
    directory, filename = os.path.split(path)
    if filename.endswith(".ipynb"):
        # a notebook is a top-level program nothing imports; the suffix keeps its name
        # apart from a ``train.py`` beside ``train.ipynb``
        return filename, False
    stem = filename[:-3] if filename.endswith(".py") else filename
    is_package = stem == "__init__"
    parts = [] if is_package else [stem]
    while os.path.exists(os.path.join(directory, "__init__.py")):
        directory, pkg = os.path.split(directory)
        parts.insert(0, pkg)
        if not pkg:
            break
    return ".".join(p for p in parts if p), is_package
