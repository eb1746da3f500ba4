"""Configuration is what the user wrote: per file, errors with a line, warnings for no-ops."""

import textwrap

from conftest import ROOT, run_cli

TREE_MAP = "import jax\n\nparams = jax.tree_map(lambda p: p, params)\n"
GRAD_WRT_DATA = "import jax\ndef loss(params, inputs, targets):\n    return params * inputs - targets\ng = jax.grad(loss, argnums=(0, 1))\n"


def write(tmp_path, name, text):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


def concise(*args, cwd):
    return run_cli("--no-cache", "--output-format", "concise", *args, cwd=str(cwd))


def test_a_broken_discovered_pyproject_is_an_error_with_its_line(tmp_path):
    write(tmp_path, "pyproject.toml", "[project]\nname = 'x'\n[tool.jaxlint\nselect = ['JAX8']\n")
    write(tmp_path, "a.py", TREE_MAP)
    code, out, err = concise(".", cwd=tmp_path)
    assert (code, out) == (2, "")
    assert err == (
        f"jaxlint: error: {tmp_path}/pyproject.toml:3: invalid TOML: Expected ']' at the end of a table declaration\n"
    )


def test_an_unknown_key_names_its_line(tmp_path):
    write(tmp_path, "pyproject.toml", "[project]\nname = 'x'\n\n[tool.jaxlint]\npreview = true\nselcet = ['JAX8']\n")
    write(tmp_path, "a.py", TREE_MAP)
    code, _, err = concise(".", cwd=tmp_path)
    assert (code, err) == (2, f"jaxlint: error: {tmp_path}/pyproject.toml:6: unknown key `selcet` in [tool.jaxlint]\n")


def test_a_selection_without_effect_when_preview_is_off_is_a_warning(tmp_path):
    write(tmp_path, "a.py", GRAD_WRT_DATA)
    code, out, err = concise("--select", "JAX406", "a.py", cwd=tmp_path)
    assert (code, out) == (0, "")
    assert "jaxlint: warning: Selection `JAX406` has no effect because preview is not enabled" in err
    write(tmp_path, "pyproject.toml", "[tool.jaxlint]\nextend-select = ['JAX406']\n")
    code, out, err = concise("a.py", cwd=tmp_path)
    assert f"jaxlint: warning: {tmp_path}/pyproject.toml: Selection `JAX406` has no effect because preview" in err
    code, out, err = concise("--select", "JAX406", "--preview", "a.py", cwd=tmp_path)
    assert code == 1 and "warning" not in err
    code, out, err = concise("--select", "JAX406,JAX4", "a.py", cwd=tmp_path)  # JAX5 has a stable rule: JAX406 warns
    assert "Selection `JAX406` has no effect" in err and "`JAX4`" not in err


def test_each_file_gets_its_nearest_configuration(tmp_path):
    write(tmp_path, "pyproject.toml", "[tool.jaxlint]\nselect = ['JAX801']\n")
    write(tmp_path, "a.py", TREE_MAP)
    write(tmp_path, "sub/pyproject.toml", "[tool.jaxlint]\nignore = ['JAX801']\n")
    write(tmp_path, "sub/b.py", TREE_MAP)
    write(tmp_path, "other/jaxlint.toml", "select = ['JAX802']\n")
    write(tmp_path, "other/c.py", TREE_MAP)
    _, out, _ = concise(".", cwd=tmp_path)
    assert [line.split(":")[0] for line in out.splitlines()] == ["a.py"]
    # the first path no longer decides for the others (a pre-commit batch, a monorepo)
    _, out, _ = concise("sub/b.py", "a.py", cwd=tmp_path)
    assert [line.split(":")[0] for line in out.splitlines()] == ["a.py"]
    # --config applies to every file
    _code, out, _ = concise("--config", "pyproject.toml", "sub/b.py", "a.py", cwd=tmp_path)
    assert [line.split(":")[0] for line in out.splitlines()] == ["a.py", "sub/b.py"]


def test_a_subproject_exclude_applies_below_it(tmp_path):
    write(tmp_path, "a.py", TREE_MAP)
    write(tmp_path, "sub/pyproject.toml", "[tool.jaxlint]\nextend-exclude = ['gen/']\n")
    write(tmp_path, "sub/gen/g.py", TREE_MAP)
    write(tmp_path, "sub/b.py", TREE_MAP)
    _code, out, _ = concise(".", cwd=tmp_path)
    assert [line.split(":")[0] for line in out.splitlines()] == ["a.py", "sub/b.py"]


def test_force_exclude_skips_excluded_files_named_on_the_command_line(tmp_path):
    write(tmp_path, "pyproject.toml", "[tool.jaxlint]\nextend-exclude = ['generated/']\n")
    write(tmp_path, "generated/g.py", TREE_MAP)
    write(tmp_path, "a.py", TREE_MAP)
    _, out, _ = concise("generated/g.py", "a.py", cwd=tmp_path)
    assert [line.split(":")[0] for line in out.splitlines()] == ["a.py", "generated/g.py"]
    _, out, _ = concise("--force-exclude", "generated/g.py", "a.py", cwd=tmp_path)
    assert [line.split(":")[0] for line in out.splitlines()] == ["a.py"]
    code, out, err = concise("--force-exclude", "generated/g.py", cwd=tmp_path)
    assert (code, out) == (0, "") and "No Python files found" in err


def test_the_precommit_hooks_pass_force_exclude():
    with open(f"{ROOT}/.pre-commit-hooks.yaml") as f:
        entries = [line.split(":", 1)[1].strip() for line in f if line.strip().startswith("entry:")]
    assert entries == ["jaxlint --force-exclude", "jaxlint --force-exclude --fix"]


def test_show_files_lists_what_would_be_linted(tmp_path):
    write(tmp_path, "pyproject.toml", "[tool.jaxlint]\nextend-exclude = ['generated/']\n")
    write(tmp_path, "generated/g.py", TREE_MAP)
    write(tmp_path, "b.py", TREE_MAP)
    write(tmp_path, "a/n.ipynb", "{}")
    code, out, err = run_cli("--show-files", ".", cwd=str(tmp_path))
    assert (code, out, err) == (0, "a/n.ipynb\nb.py\n", "")


def test_show_settings_names_the_config_and_the_settings_of_a_file(tmp_path):
    write(
        tmp_path,
        "pyproject.toml",
        "[tool.jaxlint]\nselect = ['JAX8']\n[tool.jaxlint.per-file-ignores]\n'b.py' = ['JAX802']\n",
    )
    write(tmp_path, "sub/pyproject.toml", "[project]\nname = 's'\ndependencies = ['jax>=0.4.20,<0.5']\n")
    write(tmp_path, "b.py", TREE_MAP)
    code, out, err = run_cli("--show-settings", "b.py", cwd=str(tmp_path))
    assert code == 0, err
    assert out.splitlines()[:3] == ["Resolved settings for: b.py", f"Settings path: {tmp_path}/pyproject.toml", ""]
    assert 'select = ["JAX8"]' in out
    assert 'target-jax-version = "0.10.2"  # the default: no jax requirement found' in out
    assert "enabled rules: JAX801, JAX802" in out
    assert '"b.py" = ["JAX802"]' in out
    write(tmp_path, "sub/c.py", TREE_MAP)
    code, out, _ = run_cli("--show-settings", "sub/c.py", cwd=str(tmp_path))
    # a pyproject.toml without [tool.jaxlint] is no configuration (the parent's applies), but
    # it is the project whose jax requirement counts
    assert f"Settings path: {tmp_path}/pyproject.toml" in out
    assert (
        'minimum-jax-version = "0.4.20"  # inferred from `jax>=0.4.20,<0.5` in sub/pyproject.toml [project] dependencies'
        in out
    )
    code, _, err = run_cli("--show-settings", "a.py", "b.py", cwd=str(tmp_path))
    assert code == 2 and "--show-settings takes one file" in err


def test_no_configuration_anywhere_shows_the_defaults(tmp_path):
    write(tmp_path, "requirements.txt", "numpy\njax[cpu]>=0.4.30  # the oldest we test\n")
    write(tmp_path, "c.py", TREE_MAP)
    code, out, _ = run_cli("--show-settings", "c.py", cwd=str(tmp_path))
    assert code == 0
    assert "Settings path: (none: defaults)" in out
    assert 'minimum-jax-version = "0.4.30"  # inferred from `jax[cpu]>=0.4.30` in requirements.txt' in out
    code, out, _ = run_cli("--show-settings", "--target-jax-version", "0.5.0", "c.py", cwd=str(tmp_path))
    assert 'target-jax-version = "0.5.0"  # set by --target-jax-version' in out and "minimum-jax-version" not in out


def test_a_folder_that_declares_no_jax_takes_the_jax_of_the_project_around_it(tmp_path):
    write(tmp_path, "pyproject.toml", "[project]\nname = 'p'\ndependencies = ['jax>=0.4.30']\n")
    write(tmp_path, "docs/requirements.txt", "sphinx\n")
    write(tmp_path, "docs/conf.py", TREE_MAP)
    code, out, _ = run_cli("--show-settings", "docs/conf.py", cwd=str(tmp_path))
    assert code == 0
    assert 'minimum-jax-version = "0.4.30"  # inferred from `jax>=0.4.30` in pyproject.toml' in out


def test_setup_py_and_setup_cfg_are_read_never_run(tmp_path):
    marker = tmp_path / "ran"
    write(
        tmp_path,
        "setup.py",
        f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n"
        "REQUIRES = ['numpy', 'jax>=0.4.26']\n"
        "setup(name='p', install_requires=REQUIRES, extras_require={'tpu': ['jax[tpu]>=0.4.31']})\n",
    )
    write(tmp_path, "a.py", TREE_MAP)
    _, out, _ = run_cli("--show-settings", "a.py", cwd=str(tmp_path))
    assert (
        'minimum-jax-version = "0.4.26"  # inferred from `jax>=0.4.26` in setup.py setup(install_requires=...)' in out
    )
    assert not marker.exists()
    (tmp_path / "setup.py").unlink()
    write(tmp_path, "setup.cfg", "[options]\ninstall_requires =\n    numpy\n    jax >= 0.4.21\n")
    _, out, _ = run_cli("--show-settings", "a.py", cwd=str(tmp_path))
    assert (
        'minimum-jax-version = "0.4.21"  # inferred from `jax >= 0.4.21` in setup.cfg [options] install_requires' in out
    )
