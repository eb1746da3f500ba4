"""Faults stay with their file: bad trees, bad files, crashing rules, reporters and workers.

Every test here failed on the code before issue 18 (a traceback, a hang, a wrong exit code,
a lost finding or "All checks passed!" for a file that was not checked).
"""

import os
import stat
import subprocess
import sys
import textwrap

import pytest
from conftest import run_cli

TREE_MAP = "import jax\n\nparams = jax.tree_map(lambda p: p, params)\n"
FOUND = "JAX801 [*] `jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`"
NOT_REGULAR = "JAX003 Not a regular file ({}); it was not checked"


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def run_injected(setup: str, *args: str, env: dict | None = None, cwd=None):
    """Run the CLI in a subprocess after ``setup`` (Python) patched jaxlint: a failing rule,
    reporter or worker. Forked workers inherit the patch."""
    prog = f"import sys\n{textwrap.dedent(setup)}\nfrom jaxlint.cli import main\nsys.argv = ['jaxlint', *{list(args)!r}]\nmain()\n"
    e = dict(os.environ)
    e.pop("CI", None)
    e.pop("JAXLINT_DEBUG", None)
    e.update(env or {})
    p = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, env=e, cwd=cwd, timeout=300)
    return p.returncode, p.stdout, p.stderr


# -- discovery ---------------------------------------------------------------------------
def test_symlink_loops_and_links_to_folders_are_not_followed(tmp_path):
    write(tmp_path / "t" / "a.py", TREE_MAP)
    os.symlink("loop", tmp_path / "t" / "loop")
    os.symlink("loop.py", tmp_path / "t" / "loop.py")
    os.symlink("..", tmp_path / "t" / "up")
    code, out, err = run_cli("--no-cache", "--output-format", "concise", str(tmp_path / "t"))
    assert (code, out) == (1, f"{tmp_path}/t/a.py:3:10: {FOUND}\n")
    assert "Traceback" not in err


def test_a_folder_named_twice_is_walked_once(tmp_path):
    write(tmp_path / "t" / "sub" / "a.py", TREE_MAP)
    code, out, _ = run_cli(
        "--no-cache", "--output-format", "concise", "t", str(tmp_path / "t"), "t/sub", cwd=str(tmp_path)
    )
    assert (code, out) == (1, f"t/sub/a.py:3:10: {FOUND}\n")


def test_a_file_named_twice_is_linted_once(tmp_path):
    write(tmp_path / "a.py", TREE_MAP)
    code, out, _ = run_cli(
        "--no-cache", "--output-format", "concise", "a.py", str(tmp_path / "a.py"), cwd=str(tmp_path)
    )
    assert (code, out) == (1, f"a.py:3:10: {FOUND}\n")


def test_a_fifo_named_or_found_is_one_finding_and_never_read(tmp_path):
    write(tmp_path / "t" / "a.py", TREE_MAP)
    os.mkfifo(tmp_path / "t" / "pipe.py")
    os.mkfifo(tmp_path / "named")
    # with the cache on: hashing a FIFO for the cache key must not block either
    code, out, err = run_cli("--output-format", "concise", str(tmp_path / "t"), str(tmp_path / "named"))
    assert code == 1, err
    assert out == (
        f"{tmp_path}/named:1:1: {NOT_REGULAR.format('a FIFO')}\n"
        f"{tmp_path}/t/a.py:3:10: {FOUND}\n"
        f"{tmp_path}/t/pipe.py:1:1: {NOT_REGULAR.format('a FIFO')}\n"
    )
    assert err == "Found 3 problems in 3 files (1 fixable with --fix).\n"


def test_a_device_named_on_the_command_line_is_one_finding():
    code, out, _err = run_cli("--no-cache", "--output-format", "concise", "/dev/null")
    assert (code, out) == (1, f"/dev/null:1:1: {NOT_REGULAR.format('a character device')}\n")


def test_a_broken_link_named_on_the_command_line_is_one_clear_line(tmp_path):
    os.symlink("loop.py", tmp_path / "loop.py")
    code, out, err = run_cli("--no-cache", str(tmp_path / "loop.py"))
    assert (code, out, err) == (
        2,
        "",
        f"jaxlint: error: {tmp_path}/loop.py: broken symbolic link or symbolic link loop\n",
    )


def test_unreadable_vanished_and_too_large_files_are_findings(tmp_path, monkeypatch):
    from jaxlint import api
    from jaxlint.lint.config import Settings

    a = write(tmp_path / "a.py", TREE_MAP)
    big = write(tmp_path / "big.py", TREE_MAP + "# padding\n" * 10)
    secret = write(tmp_path / "secret.py", TREE_MAP)
    gone = tmp_path / "gone.py"
    monkeypatch.setattr(api, "MAX_FILE_BYTES", 100)
    monkeypatch.setattr(api, "discover", lambda *args, **kw: [str(f) for f in (a, big, gone, secret)])
    real_open = os.open

    def deny(path, *a, **k):  # root reads everything: deny one file the way the OS would
        if str(path).endswith("secret.py"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *a, **k)

    monkeypatch.setattr(os, "open", deny)
    run = api.lint_paths([str(tmp_path)], Settings(root=str(tmp_path)), jobs=1)
    assert run.errors == []
    assert [(os.path.basename(d.path), d.code, d.message) for d in run.diagnostics] == [
        ("a.py", "JAX801", FOUND.split("[*] ")[1]),
        ("big.py", "JAX003", f"The file is larger than 0 MiB ({big.stat().st_size} bytes); it was not checked"),
        ("gone.py", "JAX003", "Cannot read the file (No such file or directory); it was not checked"),
        ("secret.py", "JAX003", "Cannot read the file (Permission denied); it was not checked"),
    ]


def test_an_unreadable_folder_is_a_finding_not_the_end_of_the_run(tmp_path, monkeypatch):
    from jaxlint import api
    from jaxlint.lint.config import Settings

    write(tmp_path / "a.py", TREE_MAP)
    write(tmp_path / "secret" / "b.py", TREE_MAP)
    real_scandir, real_open, real_listdir = os.scandir, os.open, os.listdir

    def denied(path):
        return str(path).endswith("secret")

    def refuse(real):
        def f(path, *a, **k):
            if denied(path):
                raise PermissionError(13, "Permission denied", str(path))
            return real(path, *a, **k)

        return f

    monkeypatch.setattr(os, "scandir", refuse(real_scandir))
    monkeypatch.setattr(os, "open", refuse(real_open))
    monkeypatch.setattr(os, "listdir", refuse(real_listdir))
    run = api.lint_paths([str(tmp_path)], Settings(root=str(tmp_path)), jobs=1)
    assert [(os.path.relpath(d.path, tmp_path), d.code, d.message) for d in run.diagnostics] == [
        ("a.py", "JAX801", FOUND.split("[*] ")[1]),
        ("secret", "JAX003", "Cannot list this folder (Permission denied); it was not checked"),
    ]


# -- bad files ------------------------------------------------------------------------------
def test_a_syntax_error_without_trigger_words_is_reported(tmp_path):
    p = write(tmp_path / "broken.py", "def f(:\n    pass\n")
    code, out, err = run_cli("--no-cache", "--output-format", "concise", str(p))
    assert (code, out) == (1, f"{p}:1:7: JAX001 SyntaxError: invalid syntax\n")
    assert "All checks passed" not in err


def test_files_in_folders_that_mention_jax_get_the_syntax_check_and_the_summary_counts_the_rest(tmp_path):
    write(tmp_path / "a_broken.py", "import jax\ndef f(:\n    pass\n")
    write(tmp_path / "b_plain.py", "def f(:\n    pass\n")  # never mentions jax: skipped
    write(tmp_path / "c_new_syntax.py", "import jax\ntype Tree = list[Tree]\n")  # 3.12 syntax: LibCST parses it
    write(tmp_path / "d.py", TREE_MAP)
    code, out, err = run_cli("--no-cache", "--output-format", "concise", str(tmp_path))
    assert code == 1
    assert out == f"{tmp_path}/a_broken.py:2:7: JAX001 SyntaxError: invalid syntax\n{tmp_path}/d.py:3:10: {FOUND}\n"
    assert (
        err
        == "Found 2 problems in 2 files (1 fixable with --fix). 1 file skipped by the trigger pre-filter (no enabled rule's trigger word).\n"
    )
    # the same answer from the cache
    for _ in range(2):
        assert run_cli("--output-format", "concise", str(tmp_path)) == (code, out, err)


def test_a_clean_run_says_how_many_files_the_pre_filter_skipped(tmp_path):
    write(tmp_path / "a.py", "import jax\n\ndef f(x):\n    return x\n\ng = jax.grad(f)\n")
    write(tmp_path / "b.py", "x = 1\n")
    for _ in range(2):  # cold, then from the whole-run cache
        code, out, err = run_cli("--output-format", "concise", str(tmp_path))
        assert (code, out, err) == (
            0,
            "",
            "All checks passed! 1 file skipped by the trigger pre-filter (no enabled rule's trigger word).\n",
        )


def test_vmap_in_axes_naming_a_module_constant_does_not_crash(tmp_path):
    p = write(
        tmp_path / "ax.py",
        textwrap.dedent("""\
        import jax
        import jax.numpy as jnp

        AXES = (0, 0)

        def predict(w, x):
            return jnp.dot(x, w)

        y = jax.vmap(predict, in_axes=AXES)(jnp.ones((3, 2)), jnp.ones((3, 3)))
        z = jax.tree_map(predict, y)
        """),
    )
    code, out, err = run_cli("--no-cache", "--output-format", "concise", str(p))
    assert code == 1, err
    assert out.splitlines() == [
        f"{p}:9:5: JAX101 `vmap(predict)` slices `jnp.ones((3, 2))` per example, but `predict` needs it whole",
        f"{p}:10:5: {FOUND}",
    ]
    assert err == "Found 2 problems in 1 file (1 fixable with --fix).\n"


# -- crashing rules, reporters and workers ------------------------------------------------
FAILING_RULE = """
import libcst as cst
from jaxlint.lint import registry
from jaxlint.lint.rule import Rule

class Failing(Rule):
    '''A rule with a bug (ZeroDivisionError) or a resource fault on calls of `{word}`.'''
    code = "JAX099"
    name = "failing"
    triggers = ("{word}",)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "{word}":
            raise {exc}("{word}")
        self.report(node, "a call")

_all = registry.all_rules
registry.all_rules = lambda: (*_all(), Failing)
"""


def _crash_tree(tmp_path):
    write(tmp_path / "a.py", "import jax\nboom()\nparams = jax.tree_map(f, params)\n")
    write(tmp_path / "b.py", TREE_MAP)
    return tmp_path


def test_a_failing_rule_costs_only_that_rule_on_that_file_and_exits_2(tmp_path):
    _crash_tree(tmp_path)
    setup = FAILING_RULE.format(word="boom", exc="ZeroDivisionError")
    args = ("--no-cache", "--output-format", "concise", "--select", "JAX801,JAX099", "--jobs", "1", str(tmp_path))
    code, out, err = run_injected(setup, *args)
    assert code == 2
    assert out == (
        f"{tmp_path}/a.py:3:10: JAX801 [*] `jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`\n"
        f"{tmp_path}/b.py:3:10: {FOUND}\n"
    )
    lines = err.splitlines()
    assert lines[0] == "Found 2 problems in 2 files (2 fixable with --fix)."
    assert len(lines) == 2 and "Traceback" not in err
    assert lines[1].startswith(
        f"jaxlint: error: {tmp_path}/a.py: internal error in JAX099 (failing): ZeroDivisionError: boom (at "
    )
    assert lines[1].endswith("; JAXLINT_DEBUG=1 shows the traceback")
    code, out2, err = run_injected(setup, *args, env={"JAXLINT_DEBUG": "1"})
    assert code == 2 and out2 == out
    assert "Traceback (most recent call last):" in err and "in visit_Call\nZeroDivisionError: boom\n" in err


@pytest.mark.parametrize(
    "exc,what",
    [
        ("RecursionError", "nested too deeply for it (RecursionError)"),
        ("MemoryError", "too large for it (MemoryError)"),
    ],
)
def test_a_rule_out_of_stack_or_memory_is_a_finding(tmp_path, exc, what):
    _crash_tree(tmp_path)
    code, out, err = run_injected(
        FAILING_RULE.format(word="boom", exc=exc),
        "--no-cache",
        "--output-format",
        "concise",
        "--select",
        "JAX801,JAX099",
        str(tmp_path),
    )
    assert code == 1, err
    assert out == (
        f"{tmp_path}/a.py:1:1: JAX003 JAX099 (failing) did not check this file: the code is {what}\n"
        f"{tmp_path}/a.py:3:10: {FOUND}\n"
        f"{tmp_path}/b.py:3:10: {FOUND}\n"
    )


def test_a_failing_reporter_is_one_line_naming_the_file_and_exit_2(tmp_path):
    _crash_tree(tmp_path)
    setup = """
    from jaxlint import report
    _render = report.render
    def render(fmt, diags, **kw):
        if any(d.path.endswith("b.py") for d in diags):
            raise KeyError("fields")
        return _render(fmt, diags, **kw)
    report.render = render
    """
    code, out, err = run_injected(setup, "--no-cache", "--output-format", "json", str(tmp_path))
    assert (code, out) == (2, "")
    assert err == (
        f"jaxlint: error: internal error while writing the json report for {tmp_path}/b.py: KeyError: 'fields' "
        f"(at <string>:7); JAXLINT_DEBUG=1 shows the traceback\n"
    )


def test_a_worker_that_dies_costs_only_its_file(tmp_path):
    for name in "abcdef":
        write(tmp_path / f"{name}.py", TREE_MAP)
    write(tmp_path / "die.py", TREE_MAP)
    setup = """
    import os, signal
    from jaxlint.lint import engine
    _lint = engine.FileLinter.lint
    def lint(self, path, *a, **k):
        if path.endswith("die.py"):
            os.kill(os.getpid(), signal.SIGKILL)
        return _lint(self, path, *a, **k)
    engine.FileLinter.lint = lint
    """
    code, out, err = run_injected(setup, "--no-cache", "--output-format", "concise", "--jobs", "2", str(tmp_path))
    assert code == 1, err
    expected = [f"{tmp_path}/{n}.py:3:10: {FOUND}" for n in "abcdef"]
    expected.insert(
        4,
        f"{tmp_path}/die.py:1:1: JAX003 The worker process checking this file died (killed, or crashed in "
        "native code); the file was not checked",
    )
    assert out.splitlines() == expected
    assert err == "Found 7 problems in 7 files (6 fixable with --fix).\n"


def test_an_internal_error_outside_any_file_exits_2_with_one_line(tmp_path):
    write(tmp_path / "a.py", TREE_MAP)
    setup = """
    from jaxlint import api
    def boom(*a, **k):
        raise RuntimeError("decide failed")
    api.decide = boom
    """
    code, out, err = run_injected(setup, "--no-cache", "--exit-zero", str(tmp_path))
    assert (code, out) == (2, "")
    assert err == (
        f"jaxlint: error: internal error while linting {tmp_path}: RuntimeError: decide failed (at <string>:5); "
        "JAXLINT_DEBUG=1 shows the traceback\n"
    )


# -- fixes ----------------------------------------------------------------------------------
FIXABLE = "import jax\nx = jax.tree_map(f, t)\n"
FIXED = "import jax\nx = jax.tree.map(f, t)\n"


def test_a_file_changed_while_being_fixed_is_not_overwritten(tmp_path):
    p = write(tmp_path / "a.py", FIXABLE)
    q = write(tmp_path / "b.py", FIXABLE)
    setup = """
    from jaxlint import api
    _fix_text = api.fix_text
    def fix_text(source, lint, unsafe, notebook=False):
        out = _fix_text(source, lint, unsafe, notebook)
        if not hasattr(fix_text, "done"):
            fix_text.done = True
            with open(sys.argv[-2], "a") as f:  # someone saves a.py meanwhile
                f.write("y = 2\\n")
        return out
    api.fix_text = fix_text
    """
    code, out, err = run_injected(setup, "--no-cache", "--fix", "--output-format", "concise", str(p), str(q))
    assert p.read_text() == FIXABLE + "y = 2\n"
    assert q.read_text() == FIXED
    assert code == 1
    assert (
        out
        == f"{p}:2:5: JAX801 [*] `jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`\n"
    )
    assert (
        f"jaxlint: warning: {p}: it changed on disk while jaxlint was fixing it; not overwritten, run again to fix it\n"
        in err
    )
    assert [f for f in os.listdir(tmp_path) if f.startswith(".jaxlint-")] == []


def test_a_kill_between_files_leaves_each_file_old_or_new(tmp_path):
    paths = [write(tmp_path / f"{n}.py", FIXABLE) for n in "abcd"]
    setup = """
    import os, signal
    from jaxlint.fix import edits as fix
    _write = fix.atomic_write
    def atomic_write(*a, **k):
        if getattr(atomic_write, "n", 0) == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        atomic_write.n = getattr(atomic_write, "n", 0) + 1
        return _write(*a, **k)
    fix.atomic_write = atomic_write
    """
    code, _, _ = run_injected(setup, "--no-cache", "--fix", "--jobs", "1", str(tmp_path))
    assert code == -9
    assert [p.read_text() for p in paths] == [FIXED, FIXED, FIXABLE, FIXABLE]
    assert sorted(os.listdir(tmp_path)) == ["a.py", "b.py", "c.py", "d.py"]


def test_a_fix_keeps_bom_line_endings_mode_and_symlinks(tmp_path):
    real = tmp_path / "real.py"
    real.write_bytes(b"\xef\xbb\xbfimport jax\r\nx = jax.tree_map(f, t)\r\n")
    os.chmod(real, 0o640)
    os.symlink("real.py", tmp_path / "link.py")
    code, _, err = run_cli("--no-cache", "--fix", str(tmp_path / "link.py"))
    assert code == 0, err
    assert os.path.islink(tmp_path / "link.py")
    assert real.read_bytes() == b"\xef\xbb\xbfimport jax\r\nx = jax.tree.map(f, t)\r\n"
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o640


def test_a_fix_the_encoding_cannot_hold_is_not_written(tmp_path, monkeypatch):
    from jaxlint import api
    from jaxlint.lint.config import Settings

    p = tmp_path / "s.py"
    p.write_bytes(b"# -*- coding: ascii -*-\nimport jax\nx = jax.tree_map(f, t)\n")

    def fix_text(source, lint, unsafe, notebook=False):
        return source.replace("tree_map", "tree_\u00e9"), 1, [], False

    monkeypatch.setattr(api, "fix_text", fix_text)
    run = api.fix_paths([str(p)], Settings(root=str(tmp_path)), jobs=1)
    assert run.errors == [] and run.fixed == {}
    assert run.warnings == [
        f"{p}: the fixed code cannot be written in the file's encoding ascii (ordinal not in range(128)); not fixed"
    ]
    assert p.read_bytes() == b"# -*- coding: ascii -*-\nimport jax\nx = jax.tree_map(f, t)\n"
    assert [d.code for d in run.diagnostics] == ["JAX801"]


def test_brackets_nested_too_deeply_for_the_parser_are_a_syntax_error_not_a_segfault(tmp_path):
    p = write(tmp_path / "deep.py", "import jax\ny = jax.grad(" + "(" * 3000 + "f" + ")" * 3000 + ")\n")
    code, out, _err = run_cli("--no-cache", "--output-format", "concise", "--jobs", "1", str(p))
    assert (code, out) == (1, f"{p}:1:1: JAX001 The file is nested too deeply to be parsed\n")


def test_a_chain_of_thousands_of_operators_in_a_broken_file_is_a_syntax_error_not_a_segfault(tmp_path):
    # CPython stops at the 250 nested calls (a syntax error for it), LibCST would recurse
    # through the chain of 12,000 `+` and crash the process
    chain = "y = jax.numpy.stack([" + "a + " * 12_000 + "b])\n"
    p = write(tmp_path / "chain.py", "import jax\n" + chain + "x = jax.grad(" + "f(" * 250 + ")" * 250 + ")\n")
    code, out, _err = run_cli("--no-cache", "--output-format", "concise", "--jobs", "1", str(p))
    assert (code, out) == (1, f"{p}:1:1: JAX001 The file is nested too deeply to be parsed\n")


def test_an_unparsed_file_gets_no_unused_suppression_findings_and_no_fix(tmp_path):
    # JAX002 needs the file's findings; a fix of it would have LibCST parse the file after all
    source = "import jax\nt = jax.tree_map(f, t)  # noqa: JAX801\nx = jax.grad(" + "f(" * 3000 + ")" * 3000 + ")\n"
    p = write(tmp_path / "deep.py", source)
    code, out, _err = run_cli("--no-cache", "--fix", "--output-format", "concise", "--jobs", "1", str(p))
    assert (code, out) == (1, f"{p}:1:1: JAX001 The file is nested too deeply to be parsed\n")
    assert p.read_text() == source
