"""``--fix`` over many files: each file is re-linted from its own current text (issue 31).

Before: after a JAX002 fix in ``a.py`` every later file's re-lint combined ``a.py``'s stale
result (suppression columns of the old text) with its new text from disk, and failed with
"internal error while fixing … IndexError" (exit 2, files left unfixed).
"""

from conftest import run_cli

FIXED = "import jax\nx = jax.tree.map(f, y)\n"


def test_a_jax002_fix_in_one_file_does_not_break_the_fixes_of_the_next_ones(tmp_path):
    (tmp_path / "a.py").write_text("import jax\nw = jax.tree_map(f, y)  # noqa: JAX201\n")
    for name in "bcde":
        (tmp_path / f"{name}.py").write_text("import jax\nx = jax.tree_map(f, y)\n")
    code, out, err = run_cli("--no-cache", "--fix", "--output-format", "concise", ".", cwd=str(tmp_path))
    assert (code, out, err) == (0, "", "Fixed 6 problems; no problems remain.\n")
    assert (tmp_path / "a.py").read_text() == "import jax\nw = jax.tree.map(f, y)\n"
    for name in "bcde":
        assert (tmp_path / f"{name}.py").read_text() == FIXED


def test_mixed_fixes_across_files_each_file_from_its_own_text(tmp_path):
    # a.py and c.py: a JAX002 fix (a comment removed: later columns move) and a JAX801 fix;
    # b.py: only JAX801; d.py: a noqa that is used, kept
    (tmp_path / "a.py").write_text("import jax  # noqa: JAX301\nv = jax.tree_map(f, y)  # noqa: JAX201\n")
    (tmp_path / "b.py").write_text("import jax\nx = jax.tree_map(f, y)\n")
    (tmp_path / "c.py").write_text("# jaxlint: noqa: JAX101\nimport jax\nz = jax.tree_map(f, y)\n")
    (tmp_path / "d.py").write_text("import jax\nk = jax.tree_map(f, y)  # noqa: JAX801\n")
    code, out, err = run_cli("--no-cache", "--fix", "--output-format", "concise", ".", cwd=str(tmp_path))
    assert (code, out, err) == (0, "", "Fixed 6 problems; no problems remain.\n")
    assert (tmp_path / "a.py").read_text() == "import jax\nv = jax.tree.map(f, y)\n"
    assert (tmp_path / "b.py").read_text() == FIXED
    assert (tmp_path / "c.py").read_text() == "import jax\nz = jax.tree.map(f, y)\n"
    assert (tmp_path / "d.py").read_text() == "import jax\nk = jax.tree_map(f, y)  # noqa: JAX801\n"
