"""Which files import a module's defs (jaxlint.plan.importers): what a job tells the worker
linting that module about where else its defs are called."""

import os

from jaxlint import testing
from jaxlint.api import Runner, _make_linter
from jaxlint.lint.config import Settings
from jaxlint.plan.importers import PER_NAME, importers, parse_entries, parse_judged


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
    found = importers(plans)
    got = {os.path.relpath(k, root): parse_entries(v) for k, v in found.items() if parse_entries(v)}
    assert got == {
        "ex/lib.py": {"scale": (os.path.join(root, "ex", "main.py"),)},
        "lib.py": {"scale": (os.path.join(root, "other.py"), os.path.join(root, "run.py"))},
    }
    # ... and each importer learns which module judges its calls of which def
    judged = {os.path.relpath(k, root): parse_judged(v) for k, v in found.items() if parse_judged(v)}
    assert judged == {
        "ex/main.py": {os.path.join(root, "ex", "lib.py"): frozenset({"scale"})},
        "other.py": {os.path.join(root, "lib.py"): frozenset({"scale"})},
        "run.py": {os.path.join(root, "lib.py"): frozenset({"scale"})},
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


SAMPLER = (
    "import jax\n\n\ndef energy(coupling, spins):\n    return spins @ coupling @ spins\n\n\n"
    "def energies(coupling, spins):\n    return jax.vmap(energy)(coupling, spins)\n"
)
RUN = "import jax.numpy as jnp\nfrom sampler import energies\n\ne = energies(jnp.ones((6, 6)), jnp.ones((6, 6)))\n"


def test_a_map_of_a_module_is_judged_once_there_with_the_importers_call(tmp_path):
    """The module making the map reports it, at the map (where its fix goes), with the
    importer's arguments; the importer, linted in the same run, does not report it again."""
    (tmp_path / "sampler.py").write_text(SAMPLER)
    (tmp_path / "run.py").write_text(RUN)
    found = testing.lint_folder(str(tmp_path), testing.settings_for("JAX101")).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.code, d.message) for d in found] == [
        (
            "sampler.py",
            9,
            "JAX101",
            "`vmap(energy)` slices `coupling` and `spins` per example; `energy` needs one of them whole",
        )
    ]
    assert found[0].note.startswith("with the arguments from line 4 of run.py: on one example's slices")


def test_the_importer_linted_alone_judges_the_call_itself(tmp_path):
    """Without the module in the run (a pre-commit run on the changed file), the importer
    judges the map its call runs, at its call; with it, the module does, at the map."""
    chain = os.path.join(os.path.dirname(__file__), "..", "fixtures", "JAX101", "lint", "caller_chain_bad")
    for name in ("sampler.py", "run.py"):
        with open(os.path.join(chain, name), encoding="utf-8") as f:
            (tmp_path / name).write_text(f.read())
    settings = testing.settings_for("JAX101")
    settings.root = str(tmp_path)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        from jaxlint.api import lint_paths

        alone = lint_paths(["run.py"], settings, jobs=1).diagnostics
        both = lint_paths(["run.py", "sampler.py"], settings, jobs=1).diagnostics
    finally:
        os.chdir(cwd)
    assert [(d.path, d.start.line, d.code) for d in alone] == [("run.py", 5, "JAX101")]
    assert [(d.path, d.start.line, d.code) for d in both] == [("sampler.py", 11, "JAX101")]


def test_a_numpy_helper_planned_for_other_rules_still_runs_with_its_importers_arrays(tmp_path):
    """A helper module that never names jax, planned only because a migration rule reads
    its NumPy words, is planned again for the rules that follow imported defs' calls: the
    arrays `main.py` hands it are JAX arrays, whatever else is selected."""
    (tmp_path / "aug.py").write_text(
        "import numpy as np\n\n\ndef cutout(x, hole):\n    x[:, :hole] = 0.0\n    return np.asarray(x)\n"
    )
    (tmp_path / "main.py").write_text(
        "import jax.numpy as jnp\nfrom aug import cutout\n\ny = cutout(jnp.ones((4, 8)), 2)\n"
    )
    for codes in (("JAX501",), ("JAX501", "JAX801", "JAX802")):
        found = testing.lint_folder(str(tmp_path), testing.settings_for(*codes)).diagnostics
        assert [(os.path.basename(d.path), d.start.line, d.code) for d in found] == [("aug.py", 5, "JAX501")], codes


def test_a_helper_planned_for_some_of_the_rules_following_calls_is_planned_for_all(tmp_path):
    """A helper whose docstring spells `cond` is planned for JAX503 (whose words include
    `lax.cond`'s) and not for JAX501: it is planned again for JAX501, which follows the
    jitted step's call into it. The finding does not depend on JAX503 being selected."""
    (tmp_path / "boundary.py").write_text(
        '"""Boundary-condition helpers of the NumPy solver."""\n\n\ndef pin(u, left):\n    u[0] = left\n    return u\n'
    )
    (tmp_path / "solver.py").write_text(
        "import jax\nimport jax.numpy as jnp\n\nimport boundary\n\n\n"
        "@jax.jit\ndef step(u):\n    return boundary.pin(u + 1.0, 0.0)\n\n\nU = step(jnp.zeros(4))\n"
    )
    for codes in (("JAX501",), ("JAX501", "JAX503")):
        found = testing.lint_folder(str(tmp_path), testing.settings_for(*codes)).diagnostics
        assert [(os.path.basename(d.path), d.start.line, d.code) for d in found] == [("boundary.py", 5, "JAX501")], (
            codes
        )


def test_a_class_split_into_its_methods_is_imported_by_its_name(tmp_path):
    # the slicer splits a class with a def a rule wants into its members: the header unit
    # still names the class, so ``Trainer(args)`` of main.py gives ``__init__`` its ``args``
    root = str(tmp_path)
    plans = _plans(
        root,
        {
            "trainer.py": (
                "import jax\nfrom jax import lax\n\nclass Trainer:\n    def __init__(self, args):\n"
                "        self.step = jax.pmap(lambda x: lax.psum(x, 'i'), axis_name=args.axis)\n\n"
                "    def fit(self, x):\n        return self.step(x)\n"
            ),
            "main.py": "import jax\nfrom trainer import Trainer\nprint(Trainer(None).fit(jax.numpy.ones(1)))\n",
        },
    )
    got = {os.path.relpath(k, root): parse_entries(v) for k, v in importers(plans).items() if parse_entries(v)}
    assert got == {"trainer.py": {"Trainer": (os.path.join(root, "main.py"),)}}


def test_the_importers_of_an_importers_relay_def_are_one_step_further(tmp_path):
    # main.py calls train.fit, whose body calls model.apply: model.py's job learns where
    # fit is called (main.py), for the contexts of apply's parameters two steps away
    from jaxlint.plan.importers import parse_hops

    root = str(tmp_path)
    plans = _plans(
        root,
        {
            "model.py": "import jax\n\ndef apply(w, x):\n    return jax.vmap(lambda r: r @ w)(x)\n",
            "train.py": "import jax\nfrom model import apply\n\ndef fit(w, x):\n    return apply(w, x)\n\ndef other():\n    return 1\n",
            "main.py": "import jax.numpy as jnp\nfrom train import fit, other\n\nfit(jnp.ones(3), jnp.ones((4, 3)))\nother()\n",
        },
    )
    found = importers(plans)
    model, train, main = (os.path.join(root, f) for f in ("model.py", "train.py", "main.py"))
    assert parse_entries(found[model]) == {"apply": (train,)}
    assert parse_hops(found[model]) == {train: {"fit": (main,)}}  # not ``other``: it calls nothing of model
    assert parse_hops(found[train]) == {}
    assert parse_entries(found[train]) == {"fit": (main,), "other": (main,)}


def test_a_class_whose_method_calls_the_module_is_a_relay(tmp_path):
    # train.py's `Trainer.fit` calls model.apply; main.py makes a Trainer: model.py's job
    # learns that main.py calls `Trainer` (its constructions and methods)
    from jaxlint.plan.importers import parse_hops

    root = str(tmp_path)
    plans = _plans(
        root,
        {
            "model.py": "import jax\n\ndef apply(w, x):\n    return jax.vmap(lambda r: r @ w)(x)\n",
            "train.py": (
                "import jax\nfrom model import apply\n\nclass Trainer:\n    def __init__(self, w):\n"
                "        self.w = w\n\n    def fit(self, x):\n        return apply(self.w, x)\n"
            ),
            "main.py": "import jax.numpy as jnp\nfrom train import Trainer\n\nTrainer(jnp.ones(3)).fit(jnp.ones((4, 3)))\n",
        },
    )
    found = importers(plans)
    model, train, main = (os.path.join(root, f) for f in ("model.py", "train.py", "main.py"))
    assert parse_hops(found[model]) == {train: {"Trainer": (main,)}}
