"""The cache answers only the question it was asked (issue 31).

Before: the whole-run cache was keyed by the files' contents alone, so ``jaxlint dir`` then
``jaxlint dir/bad.py`` answered "All checks passed" for a file with a syntax error (named
files are always checked, walked ones without trigger words are not), and a run from
``proj/`` answered a run from its parent with ``a.py`` for ``proj/a.py``; the key was
made by reading and hashing a 3 GB file whole before anything said it was too large;
``XDG_CACHE_HOME=.`` put the secret key into the linted project; a 0777 key folder was
accepted.
"""

import os
import stat
import subprocess
import sys

import pytest
from conftest import run_cli

JAX801 = "JAX801 [*] `jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`"


def lint(*args: str, cwd, env: dict | None = None) -> tuple[int, str, str]:
    return run_cli("--output-format", "concise", *args, cwd=str(cwd), env=env)


def test_naming_a_file_is_not_answered_by_the_run_that_walked_its_folder(tmp_path):
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "bad.py").write_text("def f(:\n    pass\n")
    assert lint("dir", cwd=tmp_path)[:2] == (0, "")  # walked, no trigger word: not even parsed
    assert lint("dir/bad.py", cwd=tmp_path)[:2] == (1, "dir/bad.py:1:7: JAX001 SyntaxError: invalid syntax\n")


def test_positions_are_relative_to_this_runs_working_directory(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "a.py").write_text("import jax\nparams = jax.tree_map(f, x)\n")
    (proj / "pyproject.toml").write_text("[tool.jaxlint]\n")
    assert lint(".", cwd=proj)[:2] == (1, f"a.py:2:10: {JAX801}\n")
    assert lint("proj", cwd=tmp_path)[:2] == (1, f"proj/a.py:2:10: {JAX801}\n")
    assert lint(str(proj), cwd=tmp_path / "proj")[:2] == (1, f"{proj}/a.py:2:10: {JAX801}\n")
    assert lint(".", cwd=proj)[:2] == (1, f"a.py:2:10: {JAX801}\n")  # and back: each answer its own


def test_a_file_over_the_size_limit_is_not_read_for_the_cache_key(tmp_path, monkeypatch):
    from jaxlint.cache import store

    big = tmp_path / "big.py"
    with open(big, "wb") as f:
        f.truncate(17 << 20)  # sparse: 17 MiB that a read would have to go through
    cache = store.Cache(str(tmp_path / "c"), "ns", b"k" * 32)
    monkeypatch.setattr(os, "fdopen", lambda *a, **k: pytest.fail("read for its key"))
    assert cache.run_key([str(big)], [str(big)]) is None  # no answer for the run: the file is a JAX003
    assert cache.get_plan(str(big)) is None


def _key_env(tmp_path, value: str) -> dict:
    return {"XDG_CACHE_HOME": value, "HOME": str(tmp_path / "home")}


def test_a_relative_xdg_cache_home_is_ignored(tmp_path):
    """The XDG spec: a relative path in these variables is invalid and is ignored."""
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "a.py").write_text("import jax\nparams = jax.tree_map(f, x)\n")
    code, _, _ = lint(".", cwd=tmp_path / "proj", env=_key_env(tmp_path, "."))
    assert code == 1
    assert not (tmp_path / "proj" / "jaxlint").exists()  # no secret key in the linted project
    assert (tmp_path / "home" / ".cache" / "jaxlint" / "cache.key").is_file()


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o755])
def test_a_key_folder_others_can_use_is_refused(tmp_path, mode):
    folder = tmp_path / "home" / "jaxlint"
    folder.mkdir(parents=True)
    folder.chmod(mode)
    script = "from jaxlint.cache.key import load_secret; print(load_secret() is None)"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "home")}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert out.stdout == "True\n"
    assert not (folder / "cache.key").exists()  # nothing written where others may swap it
    assert stat.S_IMODE(folder.stat().st_mode) == mode
