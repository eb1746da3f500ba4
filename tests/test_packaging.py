"""README and CI stay true; the wheel installs ``rules/`` as ``jaxlint.rules`` and works."""

import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest
from conftest import ROOT


def readme():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        return f.read()


def shell_blocks(text):
    return re.findall(r"```sh\n(.*?)\n```", text, re.S)


def test_ci_runs_the_readme_test_command():
    blocks = shell_blocks(readme())
    test_cmd = next(b for b in blocks if "pytest" in b)
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        ci = f.read()
    assert test_cmd in ci.splitlines()
    assert os.access(os.path.join(ROOT, ".ci", "run"), os.X_OK)


def test_readme_install_command_lints_the_seeds():
    run_cmd = shell_blocks(readme())[0]
    assert run_cmd.endswith("pip install . && jaxlint fixtures/seeds")


def test_generated_docs_are_current():
    from jaxlint import docs

    text = readme()
    assert docs.update_readme(text) == text, "README rule table is stale: run `python -m jaxlint.docs`"
    with open(os.path.join(ROOT, "docs", "rules.md"), encoding="utf-8") as f:
        assert f.read() == docs.rules_markdown(), "docs/rules.md is stale: run `python -m jaxlint.docs`"


def test_the_docs_generator_leaves_the_files_as_they_were_when_it_fails(tmp_path, monkeypatch):
    from jaxlint import docs

    (tmp_path / "README.md").write_text(readme(), encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text("old rules\n", encoding="utf-8")

    def broken():
        raise RuntimeError("no rules")

    monkeypatch.setattr(docs, "rules_markdown", broken)
    with pytest.raises(RuntimeError):
        docs.main(str(tmp_path))
    assert (tmp_path / "README.md").read_text(encoding="utf-8") == readme()
    assert (tmp_path / "docs" / "rules.md").read_text(encoding="utf-8") == "old rules\n"
    assert sorted(os.listdir(tmp_path)) == ["README.md", "docs"]


@pytest.mark.slow
def test_wheel_installs_into_a_fresh_venv_and_lints(tmp_path):
    # built from a copy: setuptools' build/ in the checkout keeps modules since deleted
    source = tmp_path / "source"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", ".jaxlint_cache", "__pycache__"),
    )
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(source)],
        check=True,
        capture_output=True,
    )
    [wheel] = list(dist.glob("jaxlint-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("jaxlint/rules/migration/") for n in names)
    assert any(n.startswith("jaxlint/fixtures/seeds/") for n in names)
    assert "jaxlint/model/stubs/flax.training.train_state.stub" in names  # the model reads them
    assert not any(n.startswith(("rules/", "fixtures/", "tests/")) for n in names), "top-level package leaked"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)], check=True, capture_output=True)
    work = tmp_path / "elsewhere"
    work.mkdir()
    (work / "train.py").write_text("import jax\nparams = jax.tree_map(lambda p: p, params)\n")
    p = subprocess.run(
        [str(venv / "bin" / "jaxlint"), "--output-format", "concise", "train.py"],
        cwd=work,
        capture_output=True,
        text=True,
    )
    assert p.returncode == 1, p.stderr
    assert (
        p.stdout
        == "train.py:2:10: JAX801 [*] `jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`\n"
    )
    v = subprocess.run([str(venv / "bin" / "jaxlint"), "verify"], cwd=work, capture_output=True, text=True)
    assert v.returncode == 2 and v.stdout == ""
    assert "pip install -e '.[runtime]'" in v.stderr and v.stderr.count("\n") == 1
    site = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import importlib.util as u; print(u.find_spec('rules'), u.find_spec('fixtures'))",
        ],
        capture_output=True,
        text=True,
        cwd=work,
    )
    assert site.stdout.strip() == "None None"
