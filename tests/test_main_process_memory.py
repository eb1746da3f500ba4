"""The main process is protected like the workers (issue 31): a memory error in the decision
step, the project phase or a worker's first pass costs the files involved, not the run.

Before: any of these ended the run with "internal error … MemoryError", exit 2, and not one
finding, where a worker's memory error while linting cost only its file.
"""

from test_faults import run_injected, write

TREE_MAP = "import jax\nx = jax.tree_map(f, y)\n"
PMEAN = 'import jax\n\ndef f(x):\n    return jax.lax.pmean(x, axis_name="i")\n\nf(1)\n'
JAX801 = "JAX801 [*] `jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`"


def test_no_memory_for_the_decision_step_parses_every_file_whole(tmp_path):
    for name in "abcd":
        write(tmp_path / f"{name}.py", TREE_MAP)
    setup = """
    from jaxlint import api
    def boom(*a, **k):
        raise MemoryError
    api.decide = boom
    """
    code, out, err = run_injected(setup, "--no-cache", "--output-format", "concise", ".", cwd=tmp_path)
    assert code == 1
    assert out == "".join(f"{name}.py:2:5: {JAX801}\n" for name in "abcd")
    assert err == (
        "Found 4 problems in 4 files (4 fixable with --fix).\n"
        "jaxlint: warning: not enough memory to decide what to parse: every file was parsed whole\n"
    )


def test_no_memory_for_the_project_phase_is_one_jax003_per_file_with_pending_findings(tmp_path):
    write(tmp_path / "a.py", TREE_MAP)
    write(tmp_path / "sync.py", PMEAN)
    setup = """
    from jaxlint import api
    def boom(*a, **k):
        raise MemoryError
    api.islands = boom
    """
    code, out, err = run_injected(setup, "--no-cache", "--output-format", "concise", ".", cwd=tmp_path)
    assert (code, err) == (1, "Found 2 problems in 2 files (1 fixable with --fix).\n")
    assert out == (
        f"a.py:2:5: {JAX801}\n"
        "sync.py:1:1: JAX003 JAX201 (unbound-axis-name) could not decide its findings in this file: "
        "the project is too large for it (MemoryError)\n"
    )


def test_a_memory_error_in_a_rules_project_phase_costs_only_that_rules_files(tmp_path):
    write(tmp_path / "a.py", TREE_MAP)
    write(tmp_path / "sync.py", PMEAN)
    setup = """
    from jaxlint.lint.registry import rule_by_code
    def boom(*a, **k):
        raise MemoryError
    rule_by_code("JAX201").resolve = classmethod(boom)
    """
    code, out, _ = run_injected(setup, "--no-cache", "--output-format", "concise", ".", cwd=tmp_path)
    assert code == 1
    assert out == (
        f"a.py:2:5: {JAX801}\n"
        "sync.py:1:1: JAX003 JAX201 (unbound-axis-name) could not decide its findings in this file: "
        "the project is too large for it (MemoryError)\n"
    )


def test_a_memory_error_in_a_workers_first_pass_costs_only_that_file(tmp_path):
    for name in "abcd":
        write(tmp_path / f"{name}.py", TREE_MAP)
    setup = """
    from jaxlint.lint.engine import FileLinter
    real = FileLinter.plan
    def plan(self, path, *a, **k):
        if path.endswith("b.py"):
            raise MemoryError
        return real(self, path, *a, **k)
    FileLinter.plan = plan
    """
    for jobs in ("1", "2"):
        code, out, err = run_injected(
            setup, "--no-cache", "--jobs", jobs, "--output-format", "concise", ".", cwd=tmp_path
        )
        assert (code, err) == (1, "Found 4 problems in 4 files (3 fixable with --fix).\n"), jobs
        assert out == (
            f"a.py:2:5: {JAX801}\n"
            "b.py:1:1: JAX003 Checking the file ran out of memory (MemoryError); the file was not checked\n"
            f"c.py:2:5: {JAX801}\n"
            f"d.py:2:5: {JAX801}\n"
        )
