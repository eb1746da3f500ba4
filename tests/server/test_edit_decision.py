"""A buffer being edited is sliced by ``api.edit_decision``: its own plan's needs plus what the
project's last decision kept of it, so what other modules read of it stays (no LSP here)."""

from __future__ import annotations

from jaxlint import api
from jaxlint.lint.config import Settings
from jaxlint.plan.slicing import FilePlan, decide

LIB = "import jax\n\n\ndef loss(params, x):\n    return (params * x).sum()\n\n\ndef unused(a):\n    return a\n"
TRAIN = "import jax\n\nfrom lib import loss\n\ng = jax.grad(loss, argnums=2)\n"
OUT_OF_RANGE = "`jax.grad` argnums=2: index 2 is out of range; `loss` takes 2 positional parameters (`params`, `x`)"


def test_what_other_modules_read_of_an_edited_file_stays_kept(tmp_path, monkeypatch):
    (tmp_path / "lib.py").write_text(LIB)
    (tmp_path / "train.py").write_text(TRAIN)
    monkeypatch.chdir(tmp_path)
    runner = api.Runner(Settings(root=str(tmp_path)), jobs=1)
    record: dict = {}
    results, errors = runner.lint_files(["lib.py", "train.py"], record)
    assert errors == []
    by_path = {r.path: r for r in results}
    linter = api.file_linter(runner)
    edited = "# a comment typed above\n" + LIB.replace("def unused(a):", "def unused(a, b):")
    kind, plan = api.plan_text(linter, "lib.py", edited)
    assert kind == "plan" and isinstance(plan, FilePlan)
    exact = decide([plan, record["plans"]["train.py"]])["lib.py"]  # what deciding the project again gives
    alone = api.edit_decision(plan)  # lib.py's own plan needs nothing: no seed in it
    edit = api.edit_decision(plan, (record["plans"]["lib.py"], record["decided"]["lib.py"]))
    names = {plan.units[i].name for i in exact.kept}
    assert "loss" in names and "loss" not in {plan.units[i].name for i in alone.kept}
    assert exact.kept <= edit.kept and exact.looked_up <= edit.looked_up

    def train_findings(decision):
        res = api.lint_text(linter, "lib.py", edited, (kind, plan), decision)
        found, _ = api.decide_files(runner, {**by_path, "lib.py": res}, ["train.py"], {"lib.py": edited})
        return [(d.code, d.start.line, d.start.column, d.message) for d in found["train.py"]]

    assert train_findings(edit) == [("JAX401", 5, 20, OUT_OF_RANGE)]
    assert train_findings(exact) == [("JAX401", 5, 20, OUT_OF_RANGE)]
    # JAX401 decides in train.py, reading lib.py through the model's loader (the whole module,
    # whatever lib.py's own slicing keeps): the finding no longer rests on the project's decision
    assert train_findings(alone) == [("JAX401", 5, 20, OUT_OF_RANGE)]
