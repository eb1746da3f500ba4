"""The pre-commit hooks, for real: ``pre-commit try-repo`` installs this checkout into its own
virtual environment (pip, from PyPI) and runs the hooks on a throw-away git repository.

``try-repo`` on a dirty checkout commits only tracked changes (``git add -u``), so a new,
uncommitted file (the hooks file itself, a new rule) would be missing. The test therefore
snapshots the working tree (tracked and untracked, minus ignored files) into a fresh
repository under tmp_path and points ``try-repo`` at that: the result does not depend on
what has been committed yet, and the real checkout is never touched.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GIT_ID = ["-c", "user.name=jaxlint tests", "-c", "user.email=tests@jaxlint.invalid", "-c", "commit.gpgsign=false"]

BAD = "import jax\nparams = jax.tree_map(lambda p: p * 2, params)\n"
STALE_NOQA = "import jax\nparams = jax.tree.map(lambda p: p * 2, params)  # noqa: JAX801\n"
CLEAN = "import jax\nparams = jax.tree.map(lambda p: p * 2, params)\n"
NOTEBOOK = json.dumps(
    {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": BAD.splitlines(True),
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    },
    indent=1,
)


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *GIT_ID, *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def _snapshot(dest: Path) -> Path:
    """A one-commit git repository holding this checkout's working tree as it is now."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file() and not src.is_symlink():  # skip files deleted but not yet committed
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    _git(dest, "init", "-q")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "-m", "snapshot")
    return dest


def _project(dest: Path, files: dict[str, str]) -> Path:
    dest.mkdir()
    _git(dest, "init", "-q")
    for name, text in files.items():
        (dest / name).write_text(text)
    _git(dest, "add", "-A")
    return dest


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never")
    env.pop("VIRTUAL_ENV", None)
    return env


def _pre_commit(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args, "--color", "never"],
        cwd=project,
        capture_output=True,
        text=True,
        env=_env(home),
        timeout=1200,
    )


@pytest.mark.slow
def test_hooks_round_trip(tmp_path: Path) -> None:
    """try-repo, as a hook author checks a hooks file; then a real config, as users write it.

    try-repo builds its environment in a temporary store each time, so the later runs go
    through a .pre-commit-config.yaml and share one PRE_COMMIT_HOME (one more install).
    """
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    checkout = _snapshot(tmp_path / "checkout")
    home = tmp_path / "pre-commit-home"

    bad = _project(tmp_path / "bad", {"train.py": BAD, "explore.ipynb": NOTEBOOK})
    p = _pre_commit(bad, home, "try-repo", str(checkout), "jaxlint", "--all-files")
    out = p.stdout + p.stderr
    assert p.returncode == 1, out
    assert "train.py:2:10: JAX801 " in out and "`jax.tree_map` was removed" in out, out
    assert "explore.ipynb:cell 1:2:10: JAX801 " in out, out  # types_or: [python, jupyter]

    rev = _git(checkout, "rev-parse", "HEAD").strip()
    config = f"repos:\n  - repo: {checkout}\n    rev: {rev}\n    hooks:\n      - id: jaxlint\n      - id: jaxlint-fix\n"

    clean = _project(tmp_path / "clean", {"train.py": CLEAN, ".pre-commit-config.yaml": config})
    p = _pre_commit(clean, home, "run", "--all-files")
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count("Passed") == 2, p.stdout

    stale = _project(tmp_path / "stale", {"train.py": STALE_NOQA, ".pre-commit-config.yaml": config})
    p = _pre_commit(stale, home, "run", "jaxlint-fix", "--all-files")
    assert p.returncode == 1, p.stdout + p.stderr  # pre-commit fails a hook that changed files
    assert "files were modified by this hook" in p.stdout, p.stdout
    assert (stale / "train.py").read_text() == CLEAN


def _readme_precommit_config() -> str:
    """The .pre-commit-config.yaml block of the README's pre-commit section, verbatim."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("### pre-commit") :]
    start = section.index("```yaml\n") + len("```yaml\n")
    return section[start : section.index("```", start)]


def test_the_readme_precommit_config_works_as_written(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    config = _readme_precommit_config()
    assert "repo: local" in config and "jaxlint" in config
    home = tmp_path / "pre-commit-home"
    env_path = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    bad = _project(tmp_path / "bad", {"train.py": BAD, "explore.ipynb": NOTEBOOK, ".pre-commit-config.yaml": config})
    p = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
        cwd=bad,
        capture_output=True,
        text=True,
        env={**_env(home), "PATH": env_path},
        timeout=600,
    )
    out = p.stdout + p.stderr
    assert p.returncode == 1, out
    assert "train.py:2:10: JAX801 " in out, out
    assert "explore.ipynb:cell 1:2:10: JAX801 " in out, out
    clean = _project(tmp_path / "clean", {"train.py": CLEAN, ".pre-commit-config.yaml": config})
    p = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
        cwd=clean,
        capture_output=True,
        text=True,
        env={**_env(home), "PATH": env_path},
        timeout=600,
    )
    assert p.returncode == 0 and "Passed" in p.stdout, p.stdout + p.stderr


# -- the project's own hooks (.pre-commit-config.yaml) ------------------------------------
OWN_HOOKS = ("ruff check", "ruff format", "mypy", "jaxlint (its own sources)", "jaxlint (fixtures that must pass)")
# one problem for each hook: an unused import, a line the formatter rewrites, a type error
# and a removed JAX API in the package; a removed API in a fixture that must pass
PLANTED = (
    'import os\n\nimport jax\n\nVALUE = [1,2]\nf = jax.tree_map\n\n\ndef planted() -> int:\n    return "not an int"\n'
)


def _hook_results(stdout: str) -> dict[str, str]:
    """``{hook name: "Passed" | "Failed" | "Skipped"}`` from ``pre-commit run``'s summary lines."""
    lines = re.finditer(r"^(.+?)\.{3,}(?:\([^)]*\))?(Passed|Failed|Skipped)$", stdout, re.MULTILINE)
    return {m.group(1): m.group(2) for m in lines}


@pytest.mark.slow
def test_the_projects_own_hooks(tmp_path: Path, mypy_cache: Path) -> None:
    """``pre-commit run --all-files`` with this checkout's .pre-commit-config.yaml on a copy of
    the tree: every hook passes; with one planted problem each, every hook fails. The hooks
    are local (``language: system``): the tools are this environment's, nothing is cloned."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    tree = _snapshot(tmp_path / "tree")
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]
    # mypy checks its cache against each file's hash: the tree's entries serve the copy
    env = {**_env(tmp_path / "pre-commit-home"), "PATH": path, "MYPY_CACHE_DIR": str(mypy_cache)}

    def run() -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"]
        return subprocess.run(command, cwd=tree, capture_output=True, text=True, env=env, timeout=1200)

    p = run()
    assert p.returncode == 0, p.stdout + p.stderr
    assert _hook_results(p.stdout) == dict.fromkeys(OWN_HOOKS, "Passed"), p.stdout

    (tree / "jaxlint" / "planted.py").write_text(PLANTED)
    fixed = tree / "fixtures" / "JAX801" / "fixed.py"
    fixed.write_text(fixed.read_text() + "REMOVED = jax.tree_map\n")
    _git(tree, "add", "-A")
    p = run()
    out = p.stdout + p.stderr
    assert p.returncode == 1, out
    assert _hook_results(p.stdout) == dict.fromkeys(OWN_HOOKS, "Failed"), out
    assert "F401" in out and "`os` imported but unused" in out, out
    assert "1 file reformatted" in out, out
    assert 'jaxlint/planted.py:10: error: Incompatible return value type (got "str", expected "int")' in out, out
    assert "jaxlint/planted.py:6:5: JAX801 " in out and "fixtures/JAX801/fixed.py:8:11: JAX801 " in out, out
