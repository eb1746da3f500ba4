"""The lowest jax a project allows, read from what it declares (never from what is installed).

Why: a fix to `jax.tree.map` is safe only if every jax the project allows has it; ruff
infers its target from ``requires-python`` the same way. Read, in the project folder (the
nearest folder above a file that declares a lower bound for jax): ``[project] dependencies``
and ``[project.optional-dependencies]`` of ``pyproject.toml``, ``requirements*.txt``,
``install_requires``/``extras_require`` of ``setup.cfg``, and the literal
``install_requires``/``extras_require`` of ``setup.py``, read with ``ast`` (never run).
The lowest lower bound of every ``jax`` requirement found wins; one without a lower bound
(``jax``, ``jax<0.5``) says nothing.
"""

from __future__ import annotations

import ast
import configparser
import functools
import glob
import os
import re
import tomllib
from dataclasses import dataclass

_NAME = re.compile(r"\s*jax\s*(\[[^\]]*\])?\s*(?P<spec>[^;#]*)", re.IGNORECASE)
_JAX = re.compile(r"\s*jax\s*(\[|[<>=!~;(]|$)", re.IGNORECASE)  # jax, not jaxlib or jax-foo
_CLAUSE = re.compile(r"\s*(?P<op>~=|===|==|>=|<=|!=|>|<)\s*(?P<version>[^,\s]+)\s*")
_NUMBERS = re.compile(r"\d+(?:\.\d+){0,2}")


@dataclass(frozen=True)
class JaxRequirement:
    lower: str  # "0.4.20"
    spec: str  # "jax>=0.4.20,<0.5", as written
    where: str  # "/path/pyproject.toml [project] dependencies"


def lower_bound(requirement: str) -> str | None:
    """The lowest version a ``jax`` requirement string allows, or None (not jax, no bound)."""
    m = _NAME.match(requirement)
    if m is None or not _JAX.match(requirement):
        return None
    spec = m.group("spec").strip().strip("()")
    lows: list[str] = []
    for clause in spec.split(","):
        c = _CLAUSE.fullmatch(clause)
        if c is None or c.group("op") in ("<", "<=", "!="):
            continue
        v = _NUMBERS.match(c.group("version"))
        if v is not None:
            lows.append(v.group(0))
    if not lows:
        return None
    return max(lows, key=_key)  # ">=0.4.20,>=0.4.25": the stricter one


def _key(v: str) -> tuple[int, ...]:
    parts = tuple(int(p) for p in v.split("."))
    return parts + (0,) * (3 - len(parts))


def _pyproject(path: str) -> list[tuple[str, str]] | None:
    """``(requirement, where)`` of a pyproject.toml; None when it declares no project."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError):
        return None
    project = data.get("project")
    if not isinstance(project, dict):
        return None
    out = [(r, f"{path} [project] dependencies") for r in project.get("dependencies") or [] if isinstance(r, str)]
    extras = project.get("optional-dependencies")
    if isinstance(extras, dict):
        for group, reqs in extras.items():
            for r in reqs if isinstance(reqs, list) else []:
                if isinstance(r, str):
                    out.append((r, f"{path} [project.optional-dependencies] {group}"))
    return out


def _requirements_txt(path: str) -> list[tuple[str, str]]:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        text = re.split(r"(?:^|\s)#", line, maxsplit=1)[0].strip()  # pip's comments
        if text and not text.startswith("-"):
            out.append((text, path))
    return out


def _setup_cfg(path: str) -> list[tuple[str, str]] | None:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, OSError, UnicodeDecodeError):
        return None
    out: list[tuple[str, str]] = []
    if parser.has_option("options", "install_requires"):
        out += [
            (r, f"{path} [options] install_requires") for r in parser.get("options", "install_requires").splitlines()
        ]
    if parser.has_section("options.extras_require"):
        for group, value in parser.items("options.extras_require"):
            out += [(r, f"{path} [options.extras_require] {group}") for r in value.splitlines()]
    return [(r.strip(), w) for r, w in out if r.strip()]


def _setup_py(path: str) -> list[tuple[str, str]]:
    """The literal ``install_requires``/``extras_require`` of ``setup(...)`` (or of a
    module-level name they are given); the file is parsed, never run."""
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    constants: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            constants[node.targets[0].id] = node.value
    out: list[tuple[str, str]] = []
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        for kw in call.keywords:
            if kw.arg not in ("install_requires", "extras_require"):
                continue
            value = constants.get(kw.value.id, kw.value) if isinstance(kw.value, ast.Name) else kw.value
            try:
                literal = ast.literal_eval(value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                continue
            groups = literal.values() if isinstance(literal, dict) else [literal]
            for group in groups:
                for r in [group] if isinstance(group, str) else group if isinstance(group, (list, tuple)) else []:
                    if isinstance(r, str):
                        out.append((r, f"{path} setup({kw.arg}=...)"))
    return out


@functools.lru_cache(maxsize=1024)
def _declared(directory: str) -> list[tuple[str, str]] | None:
    """Every requirement the folder declares; None when it declares no Python project."""
    found: list[tuple[str, str]] | None = None
    py = _pyproject(os.path.join(directory, "pyproject.toml"))
    if py is not None:
        found = py
    cfg = os.path.join(directory, "setup.cfg")
    if os.path.isfile(cfg):
        got = _setup_cfg(cfg)
        if got is not None:
            found = (found or []) + got
    setup = os.path.join(directory, "setup.py")
    if os.path.isfile(setup):
        found = (found or []) + _setup_py(setup)
    for req in sorted(glob.glob(os.path.join(glob.escape(directory), "requirements*.txt"))):
        found = (found or []) + _requirements_txt(req)
    return found


_NEAREST: dict[str, JaxRequirement | None] = {}  # folder -> project_requirement(folder)


def project_requirement(start: str) -> JaxRequirement | None:
    """The lowest jax allowed by the nearest project above ``start`` (a folder) that
    declares a lower bound for jax, or None. A folder whose declarations say nothing about
    jax (``docs/requirements.txt`` of sphinx packages) is passed over: its code runs with
    the jax of the project around it. Remembered for every folder passed on the way up, so
    a walk asks each folder once (from each of 2,000 nested folders to the root was
    quadratic: minutes)."""
    d = os.path.abspath(start)
    seen: list[str] = []
    found: JaxRequirement | None = None
    while True:
        if d in _NEAREST:
            found = _NEAREST[d]
            break
        seen.append(d)
        best: JaxRequirement | None = None
        for spec, where in _declared(d) or ():
            low = lower_bound(spec)
            if low is not None and (best is None or _key(low) < _key(best.lower)):
                best = JaxRequirement(low, spec.split(";")[0].strip(), where)
        if best is not None:
            found = best
            break
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    for folder in seen:
        _NEAREST[folder] = found
    return found


def forget() -> None:
    """Read the declarations again from now on (a long-lived process: the language server,
    after a file that declares requirements changed)."""
    _declared.cache_clear()
    _NEAREST.clear()
