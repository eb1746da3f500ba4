"""File discovery that git accepts, jaxlint must too (issue 31).

Before: a ``.gitignore`` line git accepts but pathspec rejects (``[z-a]``, a trailing
backslash) made the whole run an internal error; folders nested 1,100 deep (valid for
Linux and git) ended it with "folders nested too deeply", exit 2, no findings; a symlink
to a file of the same tree was linted twice, and after ``--fix`` the link's stale finding
was still reported.
"""

import os

import pytest
from conftest import run_cli

JAX801 = "JAX801 [*] `jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`"
TREE_MAP = "import jax\nx = jax.tree_map(f, y)\n"


def lint(root, *args: str) -> tuple[int, str, str]:
    return run_cli("--no-cache", "--output-format", "concise", *args, cwd=str(root))


@pytest.mark.parametrize("line", ["[z-a]", "trailing\\", "[", "a/**/b/[!]", "\\"])
def test_a_gitignore_line_pathspec_rejects_matches_nothing_as_in_git(tmp_path, line):
    (tmp_path / ".git").mkdir()
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.py").write_text(TREE_MAP)
    (tmp_path / "sub" / "b.py").write_text(TREE_MAP)
    (tmp_path / "ignored.py").write_text(TREE_MAP)
    (tmp_path / "sub" / ".gitignore").write_text(f"{line}\n")
    (tmp_path / ".gitignore").write_text(f"{line}\nignored.py\n")  # the lines around it still count
    assert lint(tmp_path, ".")[:2] == (1, f"a.py:2:5: {JAX801}\nsub/b.py:2:5: {JAX801}\n")


def nest(root, name: str, depth: int, file: str | None = None) -> None:
    """``root/name/name/...`` ``depth`` deep (made step by step: deeper than a path can name),
    with ``file`` at the bottom."""
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            nxt = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        if file is not None:
            out = os.open("deep.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
            os.write(out, file.encode())
            os.close(out)
    finally:
        os.close(fd)


def unnest(root, name: str) -> None:
    """Remove what ``nest`` made (pytest's own clean-up recurses: it would fail on it)."""
    stack = [(os.open(root, os.O_RDONLY), "")]
    while stack:
        fd, _ = stack[-1]
        child = None
        for e in os.scandir(fd):
            if e.is_dir(follow_symlinks=False) and e.name == name:
                child = e.name
            elif len(stack) > 1:
                os.unlink(e.name, dir_fd=fd)
        if child is not None:
            stack.append((os.open(child, os.O_RDONLY, dir_fd=fd), child))
            continue
        fd, below = stack.pop()
        os.close(fd)
        if stack:
            os.rmdir(below, dir_fd=stack[-1][0])


@pytest.fixture
def deep(tmp_path):
    yield tmp_path
    for name in ("a", "aa"):
        if (tmp_path / name).exists():
            unnest(tmp_path, name)


def test_folders_nested_deeper_than_pythons_recursion_limit_are_walked(deep):
    tmp_path = deep
    (tmp_path / "top.py").write_text(TREE_MAP)
    nest(tmp_path, "a", 1100, TREE_MAP)
    code, out, err = lint(tmp_path, ".")
    assert (code, err) == (1, "Found 2 problems in 2 files (2 fixable with --fix).\n")
    assert out == f"{'a/' * 1100}deep.py:2:5: {JAX801}\ntop.py:2:5: {JAX801}\n"


def test_a_folder_too_deep_for_the_system_is_one_finding_not_the_run(deep):
    tmp_path = deep
    (tmp_path / "top.py").write_text(TREE_MAP)
    nest(tmp_path, "aa", 2100, TREE_MAP)  # 6,300 characters: more than a path may have (4,096)
    code, out, err = lint(tmp_path, ".")
    assert code == 1
    lines = out.splitlines()
    assert lines[-1] == f"top.py:2:5: {JAX801}"
    assert len(lines) == 2
    assert lines[0].endswith(
        ": JAX003 Its path is longer than the system allows (File name too long); it was not checked"
    )
    folder = lines[0].split(":1:1:")[0]  # the first folder too deep for a path to name
    assert len(folder) > 4095 and set(folder.split("/")) == {"aa"}
    assert "Traceback" not in err


def test_a_symlink_to_a_file_of_the_tree_is_linted_once_and_fixed_once(tmp_path):
    (tmp_path / "real.py").write_text(TREE_MAP)
    os.symlink("real.py", tmp_path / "link.py")
    (tmp_path / "sub").mkdir()
    os.symlink("../real.py", tmp_path / "sub" / "again.py")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.py"
    outside.write_text(TREE_MAP)
    os.symlink(outside, tmp_path / "out.py")  # its target is not in the run: linted as the link
    assert lint(tmp_path, ".")[:2] == (1, f"out.py:2:5: {JAX801}\nreal.py:2:5: {JAX801}\n")
    assert lint(tmp_path, "--fix", ".")[:2] == (0, "")
    assert (tmp_path / "real.py").read_text() == "import jax\nx = jax.tree.map(f, y)\n"
    assert os.path.islink(tmp_path / "link.py")


def test_a_named_link_is_linted_under_its_name_once(tmp_path):
    (tmp_path / "real.py").write_text(TREE_MAP)
    os.symlink("real.py", tmp_path / "link.py")
    assert lint(tmp_path, "link.py", ".")[:2] == (1, f"link.py:2:5: {JAX801}\n")
