"""The pipeline's layering (docs/architecture.md): no module imports a later stage.

A stage is a subpackage of ``jaxlint/`` (a new top-level module must be placed here), and an
import (at module level or inside a function) of a later stage fails the test.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAGES = ["base", "files", "plan", "model", "lint", "fix", "cache", "report", "app"]
STAGE_OF = {
    # a stage is a subpackage of jaxlint/; the thin top (the run, the command line) is "app"
    "base": "base",
    "files": "files",
    "plan": "plan",
    "model": "model",
    "lint": "lint",
    "fix": "fix",
    "cache": "cache",
    "report": "report",
    "verify": "app",
    "server": "app",
    "api": "app",
    "cli": "app",
    "docs": "app",
    "testing": "app",
    "__main__": "app",
    "__init__": "app",
}


def _modules() -> dict[str, str]:
    out = {}
    base = os.path.join(ROOT, "jaxlint")
    for root, dirs, files in os.walk(base):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(root, f), base)[:-3].replace(os.sep, ".")
                out[rel] = os.path.join(root, f)
    return out


def _stage(module: str) -> str:
    top = module.split(".")[0]
    return STAGE_OF[top]


def _imports(path: str, module: str) -> list[tuple[int, str]]:
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    package = module.rsplit(".", 1)[0] if "." in module else ""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = ("jaxlint." + package).rstrip(".").split(".")
                parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                target = ".".join(parts + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "jaxlint":
                out += [(node.lineno, f"jaxlint.{a.name}") for a in node.names]
            else:
                out.append((node.lineno, target))
    return [
        (line, name[len("jaxlint.") :])
        for line, name in out
        if name.startswith("jaxlint.") and not name.startswith("jaxlint.rules")
    ]


def test_every_module_has_a_stage():
    assert sorted(m for m in _modules() if m.split(".")[0] not in STAGE_OF) == []


@pytest.mark.parametrize("module", sorted(_modules()))
def test_no_import_runs_against_the_pipeline(module):
    path = _modules()[module]
    mine = STAGES.index(_stage(module))
    wrong = [
        f"{module}:{line} imports {target} ({_stage(target)})"
        for line, target in _imports(path, module)
        if target.split(".")[0] in STAGE_OF and STAGES.index(_stage(target)) > mine
    ]
    assert wrong == [], f"{module} is in stage {_stage(module)!r}"


def _rule_modules() -> list[str]:
    base = os.path.join(ROOT, "rules")
    return sorted(os.path.join(root, f) for root, dirs, files in os.walk(base) for f in files if f.endswith(".py"))


@pytest.mark.parametrize("path", _rule_modules(), ids=lambda p: os.path.relpath(p, ROOT))
def test_rules_import_only_up_to_the_lint_stage(path):
    """Rules read the model and the rule API; they never reach into the run, caches or output."""
    wrong = [
        f"{line}: {target}"
        for line, target in _imports(path, "rules")
        if target.split(".")[0] in STAGE_OF and STAGES.index(_stage(target)) > STAGES.index("lint")
    ]
    assert wrong == []


def test_the_check_catches_an_upward_import(tmp_path):
    bad = tmp_path / "x.py"
    bad.write_text("def f():\n    from jaxlint.api import lint_paths\n")
    assert _imports(str(bad), "types") == [(2, "api")]


@pytest.mark.parametrize("package", sorted(p for p in STAGE_OF if os.path.isdir(os.path.join(ROOT, "jaxlint", p))))
def test_every_stage_package_says_what_it_owns_and_may_import(package):
    doc = ast.get_docstring(
        ast.parse(Path(os.path.join(ROOT, "jaxlint", package, "__init__.py")).read_text(encoding="utf-8"))
    )
    assert doc and "May import:" in doc, f"jaxlint/{package}/__init__.py needs a docstring ending in 'May import: ...'"
