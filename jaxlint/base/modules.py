"""The dotted module name of a file, and the file Python finds for a module name (no
LibCST: the warm cache path and the main process use them)."""

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


def search_root(path: str, module: str, is_package: bool) -> str:
    """The folder Python would import ``module`` (the file at ``path``) from."""
    folder = os.path.dirname(os.path.abspath(path))
    depth = module.count(".") + (1 if is_package else 0)
    for _ in range(depth):
        folder = os.path.dirname(folder)
    return folder


def module_path(root: str, module: str) -> str | None:
    """``root/a/b.py`` or ``root/a/b/__init__.py`` for module ``a.b``, if it exists."""
    parts = module.split(".")
    if not all(p.isidentifier() for p in parts):
        return None
    base = os.path.join(root, *parts)
    for candidate in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(candidate):
            return candidate
    return None
