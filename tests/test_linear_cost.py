"""Every stage's work grows linearly with the input (issue 31), counted by ``tests/scaling.py``.

Before: 8,000 ``x = x + 1`` took 4.5 GB in the main process (the decision step listed
every unit as a referrer of every other one), 32,000 same-named lambdas minutes (the
search for a free qualified name tried ``#2``, ``#3``, ... from the start for each), and
thousands of suppression comments were matched against every diagnostic and every
statement, and each read of a name bound 100,000 times scanned the bindings after it
(``reaching_in``: 100,000 rebinds took over 600 s). Each test here failed on that code (growth 10 to 16; linear is about 4).
"""

import os
import resource
import subprocess
import sys

import pytest
from scaling import LINEAR, growth

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "bench"))
import pathological

from jaxlint.api import lint_source


def lint(text: str) -> list:
    return lint_source(text, "m.py")


@pytest.mark.parametrize(
    ("kind", "n"),
    [
        ("rebind", 600),  # the decision step, and the reads of a name bound by every statement
        ("defs", 300),  # the same, for same-named defs
        ("lambdas", 600),  # the model: a free qualified name for each ``<lambda>``
        ("noqa", 600),  # suppressions: per line, not every comment for every diagnostic
        ("calls", 300),  # the callers closure up a long chain
        ("vmaps", 400),  # the model: a parameter's reads by scope, a map site's records by order made
    ],
)
def test_work_grows_linearly(kind, n):
    assert growth(lint, getattr(pathological, kind), n) < LINEAR


def test_the_decision_step_fits_in_a_memory_limit(tmp_path):
    """The issue's case: under a 1 GB address-space limit, 4,000 rebinds ended the whole
    run ("internal error … MemoryError", exit 2, no findings)."""
    (tmp_path / "rebind.py").write_text("import jax\ny = jax.tree_map(g, z)\nx = 0\n" + "x = x + 1\n" * 4000)
    for i in range(4):
        (tmp_path / f"ok{i}.py").write_text("import jax\ny = jax.tree_map(f, x)\n")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    p = subprocess.run(
        [sys.executable, "-m", "jaxlint", "--no-cache", "--output-format", "concise", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=300,
    )
    assert (p.returncode, p.stderr) == (1, "Found 5 problems in 5 files (5 fixable with --fix).\n")


def test_a_run_in_this_process_collects_garbage_as_the_workers_do(tmp_path, monkeypatch):
    """The cycle collector's full collections scan a heap that grows with the file: at the
    default thresholds linting one large file in-process was superlinear (100,000 lines:
    820 µs a line against 360 at 4,000; the collector is C code, so this is not counted by
    ``growth``). The run sets the workers' thresholds and puts the old ones back."""
    import gc

    from jaxlint import api
    from jaxlint.lint.config import Settings
    from jaxlint.lint.engine import FileLinter

    seen = []
    real = FileLinter.lint

    def lint(self, *a, **k):
        seen.append(gc.get_threshold())
        return real(self, *a, **k)

    monkeypatch.setattr(FileLinter, "lint", lint)
    (tmp_path / "m.py").write_text("import jax\nx = jax.vmap(f)(y)\n")
    before = gc.get_threshold()
    api.lint_paths([str(tmp_path / "m.py")], Settings(root=str(tmp_path)), jobs=1)
    lint_source("import jax\nx = jax.vmap(f)(y)\n", "m.py")
    assert seen == [api.GC_THRESHOLDS, api.GC_THRESHOLDS]
    assert gc.get_threshold() == before


def test_a_files_tree_frozen_out_of_the_collectors_sight_is_still_freed_after_the_file(tmp_path, monkeypatch):
    """The tree is frozen once built (``api._freeze_tree``): the model's cycles around it are
    collected after the file, and the tree, which has none of its own, goes with them. Each
    file's tree is gone before the next file is parsed."""
    import gc

    import libcst as cst

    from jaxlint import api
    from jaxlint.lint import engine
    from jaxlint.lint.config import Settings

    parsed: list[int] = []
    freed: list[int] = []
    alive_at_parse: list[int] = []
    real = engine.parse_module

    mine: set[int] = set()  # this test's trees (earlier tests' garbage may be freed meanwhile)

    def parse(*a, **k):
        alive_at_parse.append(len(parsed) - len(freed))
        module = real(*a, **k)
        parsed.append(1)
        mine.add(id(module))
        return module

    def deleted(self):
        if id(self) in mine:
            mine.discard(id(self))
            freed.append(1)

    gc.collect()
    monkeypatch.setattr(engine, "parse_module", parse)
    monkeypatch.setattr(cst.Module, "__del__", deleted, raising=False)
    code = "import jax\n\ndef f(x):\n    return jax.lax.psum(x, 'i')\n\ny = jax.vmap(f, axis_name='i')(x)\n"
    for i in range(4):
        (tmp_path / f"m{i}.py").write_text(code)
    frozen = gc.get_freeze_count()
    run = api.lint_paths([str(tmp_path / f"m{i}.py") for i in range(4)], Settings(root=str(tmp_path)), jobs=1)
    assert run.errors == []
    assert (len(parsed), alive_at_parse, len(freed)) == (4, [0, 0, 0, 0], 4)
    assert gc.get_freeze_count() == frozen


def test_looking_up_every_def_for_an_assertion_is_linear():
    """Each call of a module-level def asks whether the def hands a parameter to an
    assertion (model/expected.py); that scanned every top-level statement for the def's
    name: 100,000 lines of defs calling each other took 200 s of CPU."""
    from model.helpers import model_of

    from jaxlint.model import expected

    def make(n: int):
        ctx = model_of("".join(f"def f{i}(x):\n    return f{i - 1}(x)\n" for i in range(n))).ctx
        # the file's node index and the evaluator's values of the callees are computed once per
        # file (growth warms only the small one): the step measured is the scan of each def
        for fn in ctx.module.body:
            expected._hands_to_assertion(ctx, fn)
        return ctx

    def run(ctx) -> None:
        for fn in ctx.module.body:
            expected._hands_to_assertion(ctx, fn)

    assert growth(run, make, 200) < LINEAR
