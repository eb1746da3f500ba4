"""Slicing: LibCST sees only the units the rules need, and the answers do not change."""

import glob
import os
import shutil

import pytest
from conftest import FIXTURES

from jaxlint import testing
from jaxlint.api import Runner, _make_linter
from jaxlint.lint.config import Settings
from jaxlint.plan.outline import outline, split_lines
from jaxlint.plan.slicing import apply_blanks, blanks_for, decide
from jaxlint.rules.migration.seeds import _positional_arguments


def _lint(path, monkeypatch, slicing: bool):
    monkeypatch.setenv("JAXLINT_NO_SLICING", "" if slicing else "1")
    run = testing.lint_folder(path, Settings(preview=True))
    assert run.errors == []
    return [(d.path, d.start, d.end, d.code, d.message, d.fix) for d in run.diagnostics]


def _fixture_dirs():
    seen = set()
    for f in sorted(glob.glob(os.path.join(FIXTURES, "**", "*.py"), recursive=True)):
        seen.add(os.path.dirname(f))
    return sorted(seen)


@pytest.mark.parametrize("folder", _fixture_dirs(), ids=lambda p: os.path.relpath(p, FIXTURES))
def test_fixtures_lint_the_same_sliced_and_whole(folder, tmp_path, monkeypatch):
    work = tmp_path / "w"
    shutil.copytree(folder, work, ignore=shutil.ignore_patterns("*.fixed.py", "__pycache__"))
    whole = _lint(str(work), monkeypatch, slicing=False)
    assert _lint(str(work), monkeypatch, slicing=True) == whole


def _plan(files: dict[str, str], codes=()):
    settings = testing.settings_for(*codes) if codes else Settings(preview=True)
    runner = Runner(settings, jobs=1)
    linter = _make_linter(runner.rules, settings)
    plans = {}
    for name, text in files.items():
        kind, plan = linter.plan(name, text, name[:-3].replace("/", "."), False)
        assert kind == "plan"
        plans[name] = plan
    kept = decide(list(plans.values()))
    return {name: apply_blanks(files[name], blanks_for(plans[name], kept[name].kept)) for name in files}


TEST_CLASS = """import jax
import jax.numpy as jnp


def loss(w, x):
    return jnp.sum(w * x)


def unrelated(a):
    return a + 1


class Test:
    def test_grad(self):
        return jax.grad(loss)(1.0, 2.0)

    @staticmethod
    def test_other(x):
        return unrelated(x)
"""


def test_unrelated_defs_become_empty_lines_and_lines_keep_their_numbers():
    out = _plan({"m.py": TEST_CLASS}, ["JAX401"])["m.py"]
    assert out.splitlines() == [
        "import jax",
        "import jax.numpy as jnp",
        "",
        "",
        "def loss(w, x):",  # named by the seed below
        "    return jnp.sum(w * x)",
        "",
        "",
        "",  # unrelated: nothing names it from a kept unit
        "",
        "",
        "",
        "class Test:",
        "    def test_grad(self):",  # names jax.grad: a seed
        "        return jax.grad(loss)(1.0, 2.0)",
        "",
        "",  # test_other and its decorator
        "",
        "",
    ]


def test_a_class_whose_members_are_all_blanked_gets_a_pass_and_crlf_is_kept():
    text = "import jax.numpy as jnp\r\n\r\nx = 1\r\n\r\nclass A:\r\n    def f(self):\r\n        return 1\r\n\r\n    def g(self):\r\n        return 2\r\n"
    out = _plan({"m.py": text}, ["JAX401"])["m.py"]
    assert out == "import jax.numpy as jnp\r\n\r\nx = 1\r\n\r\nclass A:\r\n    pass\r\n\r\n\r\n\r\n\r\n"


def test_a_class_reference_keeps_its_constructor():
    """Calling a class runs ``__init__``: what the instance holds is written there."""
    text = (
        "import jax\n\nclass M:\n    def __init__(self, n):\n        self.w = n\n\n    def other(self):\n"
        "        return 2\n\ndef run(m, x):\n    return x\n\ndef main():\n    return jax.vmap(run)(M(3), 1)\n"
    )
    out = _plan({"m.py": text}, ["JAX104"])["m.py"]
    assert "self.w = n" in out and "return 2" not in out


def test_a_method_handed_on_through_its_class_or_an_instance_is_kept():
    """``grad(Model.loss)`` / ``grad(model.loss)`` hand over a member of a class of the module."""
    text = (
        "import jax\n\nclass M:\n    @staticmethod\n    def loss(w, x):\n        return w * x\n\n"
        "    def other(self):\n        return 2\n\nm = M()\ng = jax.grad(M.loss, argnums=2)\nh = jax.grad(m.loss)\n"
    )
    out = _plan({"m.py": text}, ["JAX401"])["m.py"]
    assert "return w * x" in out and "return 2" not in out


def test_a_grad_target_in_another_module_is_kept():
    lib = "import jax.numpy as jnp\n\ndef first():\n    return 0\n\ndef helper(x):\n    return x\n\ndef loss(w, x):\n    return jnp.sum(w * x)\n"
    train = "import jax\nfrom lib import loss\n\ndef step(w, x):\n    return jax.grad(loss, argnums=2)(w, x)\n"
    out = _plan({"lib.py": lib, "train.py": train}, ["JAX401"])
    assert out["lib.py"] == "import jax.numpy as jnp\n\n\n\n\n\n\n\ndef loss(w, x):\n    return jnp.sum(w * x)\n"
    assert out["train.py"] == train


def test_callers_of_a_collective_are_kept_across_modules():
    sync = "from jax import lax\n\ndef noop():\n    pass\n\ndef sync(g):\n    return lax.pmean(g, 'i')\n"
    train = (
        "import jax\nimport sync as s\n\ndef first():\n    pass\n\ndef unrelated():\n    return 1\n\n"
        "def step(g):\n    return s.sync(g)\n\ndef outer(g):\n    return step(g)\n\nf = jax.pmap(outer, axis_name='i')\n"
    )
    out = _plan({"sync.py": sync, "train.py": train}, ["JAX201"])
    assert "def step(g):" in out["train.py"] and "def outer(g):" in out["train.py"]
    assert "unrelated" not in out["train.py"]


def test_a_suppression_comment_keeps_the_statement_after_it():
    text = (
        "import jax.numpy as jnp\n\ndef first():\n    pass\n\n# jaxlint: ignore[JAX401]\ndef other():\n    return 1\n"
    )
    assert "def other():" in _plan({"m.py": text}, ["JAX401"])["m.py"]


def test_a_def_with_an_import_inside_is_kept_because_imports_bind_file_wide():
    text = "import jax\n\ndef first():\n    pass\n\ndef setup():\n    from jax import tree_map as g\n    return g\n"
    assert "from jax import tree_map as g" in _plan({"m.py": text}, ["JAX801"])["m.py"]


@pytest.mark.parametrize(
    "args,expected",
    [
        ("f, static_argnums=0)", 1),
        ("f, x)", 2),
        ("(a, b), c)", 2),
        ("**kw)", 0),
        ("a == b, c)", 2),
        ("*a)", None),
        ("'s', x)", None),
    ],
)
def test_migration_seeds_count_positional_arguments(args, expected):
    assert _positional_arguments(args, 0) == expected


def test_outline_lines_match_libcst_line_endings():
    text = "a = 1\rb = 2\r\ndef f():\n    return 3\n"
    ol = outline(text, split_lines(text))
    assert [(u.start, u.end, u.name) for u in ol.units] == [(1, 1, None), (2, 2, None), (3, 4, "f")]


TRICKY = (
    "# header\r\n\r\nimport jax; import functools\r\n\r\n\r\n# comment\r\n@functools.partial(\r\n    jax.jit,\r\n"
    "    static_argnums=0)\r\n\r\n# between\r\n@jax.vmap\r\ndef f(x):  # trailing\r\n    return x\r\n\r\n"
    "class A(object):\r\n    '''doc'''\r\n    x = 1; y = 2\r\n\r\n    # c\r\n    @staticmethod\r\n    def g(a,\r\n          b):\r\n"
    "        return jax.grad(f)(a)\r\n\r\n    class B:\r\n        def h(self): return 1\r\n\r\nif True:\r\n    z = f(1)\r\n"
)


def test_positions_generated_statement_by_statement_equal_a_whole_module_codegen():
    import libcst as cst

    from jaxlint.base.positions import node_ranges
    from jaxlint.lint.engine import walk_events

    module = cst.parse_module(TRICKY)
    events, parents = walk_events(module)
    nodes = [n for n, entering in events if entering and n is not module]
    whole = node_ranges(module, nodes)
    assert len(whole) > 80
    assert node_ranges(module, nodes, parents, TRICKY) == whole


def test_another_librarys_vmap_is_no_seed_but_jax_vmap_is():
    base = "import jax\nfrom flax import nnx\n\ndef first():\n    pass\n\ndef f(x):\n    return x\n\ndef g(xs):\n    return {}(f)(xs)\n"
    assert "def f(x):" not in _plan({"m.py": base.format("nnx.vmap")}, ["JAX102"])["m.py"]
    assert "def f(x):" in _plan({"m.py": base.format("jax.vmap")}, ["JAX102"])["m.py"]


def test_decision_names_the_defs_a_seed_hands_to_a_transform():
    text = "import jax\n\ndef first():\n    pass\n\ndef loss(w):\n    return w\n\ndef helper(w):\n    return w\n\ndef step(w):\n    return jax.grad(loss)(helper(w))\n"
    settings = testing.settings_for("JAX401")
    linter = _make_linter(Runner(settings, jobs=1).rules, settings)
    _, plan = linter.plan("m.py", text, "m", False)
    d = decide([plan])["m.py"]
    assert d.looked_up == frozenset({"loss"})
    kept = {plan.units[i].name for i in d.kept}
    # helper builds the argument step passes to the gradient (the grad rules read the calls of
    # the def a site is in, and what they are given): kept; first is unrelated: blanked
    assert kept == {None, "loss", "step", "helper"}


def test_slicer_transform_names_are_the_last_names_of_the_models_transforms():
    """The plan stage may not import the model (tests/test_layering.py), so its list of
    transform last names is written out; this keeps it equal to the model's table."""
    from jaxlint.model.transforms import TRANSFORMS
    from jaxlint.plan.slicing import TRANSFORM_NAMES

    assert {q.rsplit(".", 1)[-1] for q in TRANSFORMS} == TRANSFORM_NAMES


def test_inplace_seeds_are_the_units_that_assign_into_a_subscript():
    from jaxlint.rules.sharp_bits.seeds import subscript_store_units

    src = (
        "import jax.numpy as jnp\n"
        "def store(x):\n    x[0] = 1\n"  # 1
        "def augmented(x):\n    if x:\n        x[1:] += 2\n"  # 2
        "def unpacked(x, y):\n    a, x[0] = y\n"  # 3
        "def nested():\n    def inner(x):\n        x[0]: float = 1.0\n    return inner\n"  # 4
        "def reads(x):\n    return jnp.sum(x[0])\n"  # 5: a read, no store
        "def updates(x):\n    return x.at[0].set(1)\n"  # 6
        "class C:\n    def method(self, x):\n        try:\n            pass\n        finally:\n            x[0] = 1\n"
    )
    ol = outline(src)
    assert ol is not None
    named = {ol.units[i].name for i in subscript_store_units(ol)}
    assert named == {"store", "augmented", "unpacked", "nested", "method"}


def test_project_anchors_close_over_calls_of_anchored_names_imported_from_other_modules():
    # ``evaluate`` calls another module's ``compute_metrics``, which holds a collective:
    # it runs what that runs, so a module naming ``evaluate`` is promoted for JAX201 too
    # (the module that does, skipped by the pre-filter: fixtures/JAX201/lint/host_eval_bad)
    from jaxlint.plan.slicing import project_anchors

    files = {
        "metrics.py": "import jax\n\n\ndef compute_metrics(x):\n    return jax.lax.pmean(x, 'batch')\n",
        "evaluate.py": "import jax\nfrom metrics import compute_metrics\n\n\n"
        "def evaluate(x):\n    return compute_metrics(x)\n\n\ndef other(x):\n    return x\n",
    }
    settings = testing.settings_for("JAX201")
    runner = Runner(settings, jobs=1)
    linter = _make_linter(runner.rules, settings)
    # evaluate.py spells no word of JAX201: it is planned as promoted, naming compute_metrics
    plans = [linter.plan("metrics.py", files["metrics.py"], "metrics", False)[1]]
    plans.append(
        linter.plan("evaluate.py", files["evaluate.py"], "evaluate", False, anchored=frozenset({"compute_metrics"}))[1]
    )
    found = project_anchors(plans, frozenset({"pmean"}))
    assert found is not None
    assert found.modules == {"compute_metrics": frozenset({"metrics"}), "evaluate": frozenset({"evaluate"})}
