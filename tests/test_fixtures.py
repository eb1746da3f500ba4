"""Annotated lint fixtures: ``fixtures/<CODE>/lint/`` files and multi-module folders.

Every ``# error: [CODE]`` line must be reported with that code, nothing else of the
codes involved may be reported, ``# todo-ok`` lines document known false positives (they
must still be reported, so fixing one forces the annotation to change), and
``x.fixed.py`` beside ``x.py`` is the expected output of ``--fix --unsafe-fixes``.
"""

import glob
import os
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES

from jaxlint import testing
from jaxlint.api import fix_paths, lint_paths


def _cases():
    for lint_dir in sorted(glob.glob(os.path.join(FIXTURES, "JAX*", "lint"))):
        code = os.path.basename(os.path.dirname(lint_dir))
        for entry in sorted(os.listdir(lint_dir)):
            p = os.path.join(lint_dir, entry)
            if entry.endswith(".fixed.py") or entry.startswith(("_", ".")):
                continue
            if entry.endswith(".py") or os.path.isdir(p):
                yield pytest.param(code, p, id=f"{code}/{entry}")


def _files(p):
    if os.path.isdir(p):
        return sorted(
            f for f in glob.glob(os.path.join(p, "**", "*.py"), recursive=True) if not f.endswith(".fixed.py")
        )
    return [p]


@pytest.mark.parametrize("code,path", list(_cases()))
def test_fixture(code, path, tmp_path):
    work = tmp_path / "proj"
    if os.path.isdir(path):
        shutil.copytree(path, work)
    else:
        work.mkdir()
        shutil.copy(path, work / os.path.basename(path))
    expected, todo, codes = set(), set(), {code}
    for f in _files(str(work)):
        ann = testing.read_annotations(Path(f).read_text(encoding="utf-8"))
        rel = os.path.relpath(f, work)
        expected |= {(rel, line, c) for line, c in ann.errors}
        todo |= {(rel, line, c) for line, c in ann.todo_ok}
        codes |= ann.codes
    settings = testing.settings_for(*sorted(codes))
    settings.root = str(work)
    cwd = os.getcwd()
    os.chdir(work)
    try:
        run = lint_paths(["."], settings, jobs=1)
        assert run.errors == []
        got = {(os.path.relpath(d.path, "."), d.start.line, d.code) for d in run.diagnostics if d.code in codes}
        missing_todo = todo - got
        assert not missing_todo, f"todo-ok lines no longer reported (change them to `# ok:`): {sorted(missing_todo)}"
        got -= todo
        assert got == expected, f"\nunexpected: {sorted(got - expected)}\nmissing: {sorted(expected - got)}"
        fixed = [f for f in _files(path) if os.path.exists(f[:-3] + ".fixed.py")]
        if fixed:
            fix_paths(["."], settings, unsafe=True, jobs=1)
            for f in fixed:
                rel = os.path.relpath(f, path) if os.path.isdir(path) else os.path.basename(f)
                want = Path(f[:-3] + ".fixed.py").read_text(encoding="utf-8")
                assert Path(rel).read_text(encoding="utf-8") == want, f"fixed output of {rel} differs"
    finally:
        os.chdir(cwd)
