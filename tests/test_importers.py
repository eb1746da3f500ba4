"""Which files import a module's defs (jaxlint.plan.importers): what a job tells the worker
linting that module about where else its defs are called."""

import os

from jaxlint import testing
from jaxlint.api import Runner, _make_linter
from jaxlint.lint.config import Settings
from jaxlint.plan.importers import PER_NAME, importers, parse_entries


def _plans(root, files: dict[str, str]):
    settings = Settings(preview=True)
    linter = _make_linter(Runner(settings, jobs=1).rules, settings)
    plans = []
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    for rel, text in files.items():
        kind, plan = linter.plan(os.path.join(root, rel), text)
        assert kind == "plan", rel
        plans.append(plan)
    return plans


LIB = "import jax\n\ndef scale(x, k):\n    return jax.numpy.asarray(x) * k\n\ndef unused(x):\n    return x\n"


def test_the_files_that_import_a_def_and_mention_it(tmp_path):
    root = str(tmp_path)
    plans = _plans(
        root,
        {
            "lib.py": LIB,
            "run.py": "import jax\nfrom lib import scale\nprint(scale(jax.numpy.ones(3), 2))\n",
            "other.py": "import jax\nimport lib\nprint(lib.scale(jax.numpy.ones(3), 2))\n",
            "quiet.py": "import jax\nimport lib\nprint(jax.numpy.ones(3))\n",
            # a ``lib.py`` of another folder is another module: its importers are not lib's
            "ex/lib.py": LIB,
            "ex/main.py": "import jax\nfrom lib import scale\nprint(scale(jax.numpy.ones(3), 2))\n",
        },
    )
    got = {os.path.relpath(k, root): parse_entries(v) for k, v in importers(plans).items()}
    assert got == {
        "ex/lib.py": {"scale": (os.path.join(root, "ex", "main.py"),)},
        "lib.py": {"scale": (os.path.join(root, "other.py"), os.path.join(root, "run.py"))},
    }


def test_at_most_a_few_importers_per_name(tmp_path):
    files = {"lib.py": LIB}
    for i in range(PER_NAME + 2):
        files[f"run{i}.py"] = "import jax\nfrom lib import scale\nprint(scale(jax.numpy.ones(3), 2))\n"
    got = importers(_plans(str(tmp_path), files))
    assert len(parse_entries(got[os.path.join(str(tmp_path), "lib.py")])["scale"]) == PER_NAME


def test_a_def_judged_with_an_importers_arguments_names_that_file(tmp_path):
    (tmp_path / "init_utils.py").write_text(
        "import jax.numpy as jnp\n\n\ndef set_forget_bias(bias, n):\n    bias[n : 2 * n] = 1.0\n    return bias\n"
    )
    (tmp_path / "run.py").write_text(
        "import jax.numpy as jnp\nfrom init_utils import set_forget_bias\n\nb = set_forget_bias(jnp.zeros(8), 2)\n"
    )
    found = testing.lint_folder(str(tmp_path), testing.settings_for("JAX501")).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.code, d.message) for d in found] == [
        (
            "init_utils.py",
            5,
            "JAX501",
            "`bias[n : 2 * n]` assigns in place into `bias`, a JAX array (as called at line 4 of run.py)",
        )
    ]
