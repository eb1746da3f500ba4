"""jaxlint under its own tools: ruff (lint and format) and mypy, with the settings of
pyproject.toml, on the whole tree. A finding fails the test with the tool's own output, so
a red check stops a landing (CI runs the README's test command, which runs these).

The tools come from the test extra and run with this interpreter (``python -m ruff``,
``python -m mypy``); mypy keeps its incremental cache in pytest's cache folder (the
``mypy_cache`` fixture), never in the tree.
"""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

from jaxlint.testing import read_annotations

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def _report(tool: str, p: subprocess.CompletedProcess[str]) -> str:
    return f"`{tool}` failed (exit code {p.returncode}):\n{p.stdout}{p.stderr}"


def test_ruff_check() -> None:
    p = _run("ruff", "check", "--no-cache", ".")
    assert p.returncode == 0, _report("ruff check .", p)


def test_ruff_format() -> None:
    p = _run("ruff", "format", "--check", "--no-cache", ".")
    assert p.returncode == 0, _report("ruff format --check .", p)


def test_mypy(mypy_cache: Path) -> None:
    p = _run("mypy", "--cache-dir", str(mypy_cache))
    assert p.returncode == 0 and "Success: no issues found" in p.stdout, _report("mypy", p)


def test_mypy_is_strict_in_base_only(tmp_path: Path, mypy_cache: Path) -> None:
    """The configuration means what it says: an unannotated def fails in ``jaxlint.base``,
    passes in ``jaxlint.model`` and the rest (``strict = true`` in an override would make
    every module strict: python/mypy#11401)."""
    untyped = "def f(x):\n    return x\n"
    for package in ("jaxlint", "jaxlint/base", "jaxlint/model", "rules"):
        (tmp_path / package).mkdir(parents=True, exist_ok=True)
        (tmp_path / package / "__init__.py").write_text("")
    for module in ("jaxlint/base/probe.py", "jaxlint/model/probe.py", "jaxlint/probe.py", "rules/probe.py"):
        (tmp_path / module).write_text(untyped)
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    probe_cache = mypy_cache.with_name("mypy-probe")  # not the tree's: these modules have its names
    p = _run("mypy", "--cache-dir", str(probe_cache), cwd=tmp_path)
    errors = [line for line in p.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and errors[0].startswith(os.path.join("jaxlint", "base", "probe.py") + ":1:"), p.stdout
    assert "[no-untyped-def]" in errors[0], p.stdout


def _good_fixtures() -> set[str]:
    """The fixture files that must give no finding (see .pre-commit-config.yaml): each rule's
    runtime ``fixed.py``, and every lint fixture (a file, or a folder linted as one project)
    with no ``# error:`` or ``# todo-ok:`` annotation in any of its files."""
    good = set(glob.glob("fixtures/JAX*/fixed.py", root_dir=ROOT))
    for lint_dir in glob.glob("fixtures/JAX*/lint", root_dir=ROOT):
        for entry in os.listdir(ROOT / lint_dir):
            path = f"{lint_dir}/{entry}"
            if entry.endswith(".fixed.py") or entry.startswith(("_", ".")):
                continue
            if (ROOT / path).is_dir():
                files = glob.glob(f"{path}/**/*.py", root_dir=ROOT, recursive=True)
            elif entry.endswith(".py"):
                files = [path]
            else:
                continue
            files = [f for f in files if not f.endswith(".fixed.py")]
            annotations = [read_annotations((ROOT / f).read_text(encoding="utf-8")) for f in files]
            if not any(a.errors or a.todo_ok for a in annotations):
                good.update(files)
    return good


def test_precommit_lints_exactly_the_good_fixtures() -> None:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    hooks = {h["id"]: h for repo in config["repos"] for h in repo["hooks"]}
    pattern = re.compile(hooks["jaxlint-good-fixtures"]["files"])
    every = glob.glob("fixtures/**/*.py", root_dir=ROOT, recursive=True)
    selected = {f for f in every if pattern.search(f)}
    good = _good_fixtures()
    assert len(good) > 30  # 26 runtime references and the look-alike fixtures
    assert selected == good, (
        f"\nselected, not good: {sorted(selected - good)}\ngood, not selected: {sorted(good - selected)}"
    )
