"""`jaxlint verify`: spec loading, outcome comparison, and end-to-end runs on a fake rule.

The end-to-end tests build a fixtures tree in tmp_path for a tiny rule defined here
(JAX990 flags `jnp.mean`, its safe fix writes `jnp.sum`), so they do not depend on the
references other rules ship. `test_every_rule_has_a_reference` checks the real tree.
"""

from __future__ import annotations

import json
import textwrap
from importlib.util import find_spec
from pathlib import Path

import libcst as cst
import pytest
from conftest import run_cli

from jaxlint.lint.registry import all_rules
from jaxlint.lint.rule import NodeEdit, Rule, RuleFix
from jaxlint.model import program
from jaxlint.model.arrays import qualified
from jaxlint.verify import cli as vcli
from jaxlint.verify.compare import difference, exception_matches, judge_bad, judge_good
from jaxlint.verify.runner import fixtures_root, run_programs
from jaxlint.verify.spec import BadProgram, SpecError, load_spec

needs_jax = pytest.mark.skipif(find_spec("jax") is None, reason="needs jax")


class FakeMean(Rule):
    """Flags jnp.mean (a stand-in rule for the verify tests)."""

    code = "JAX990"
    name = "fake-mean"
    summary = "Fake rule for tests"
    fix_availability = "safe"
    triggers = ("mean",)

    def visit_Call(self, node: cst.Call) -> None:
        if qualified(program(self.ctx).evaluator, node.func) == "jax.numpy.mean":
            self.report(node, "use jnp.sum", fix=RuleFix("use jnp.sum", [NodeEdit(node.func, "jnp.sum")], "safe"))


class FakeNoRef(Rule):
    """A rule that ships no runtime reference."""

    code = "JAX991"
    name = "fake-no-ref"
    summary = "Fake rule without references"


class FakeEngine(Rule):
    code = "JAX009"
    name = "fake-engine"
    summary = "Fake engine rule"
    engine_rule = True


SPEC = """\
devices = 2
oracle = [6.0, 15.0]

[[bad]]
file = "bad.py"
outcome = "wrong"

[[bad]]
file = "bad_raises.py"
outcome = "raises"
exception = "LookupError"  # IndexError, by its MRO
match = "(?i)out of range"

[fixed]
file = "fixed.py"
"""

PROGRAMS = {
    "bad.py": """\
        import jax
        import jax.numpy as jnp
        x = jnp.arange(6.0).reshape(2, 3) + 1
        assert jax.device_count() == 2
        RESULT = jnp.mean(x, axis=1) * 1.0
    """,
    "bad_raises.py": """\
        import jax.numpy as jnp
        RESULT = jnp.mean(jnp.ones((2, 3)), axis=5)
    """,
    "fixed.py": """\
        import jax.numpy as jnp
        x = jnp.arange(6.0).reshape(2, 3) + 1
        RESULT = (jnp.sum(x, axis=1),)
    """,
}


def make_tree(root: Path, spec: str = SPEC, programs: dict[str, str] = PROGRAMS, code: str = "JAX990") -> Path:
    d = root / code
    d.mkdir(parents=True, exist_ok=True)
    (d / "spec.toml").write_text(spec)
    for name, text in programs.items():
        (d / name).write_text(textwrap.dedent(text))
    return root


# -- spec loader ----------------------------------------------------------------------
def test_spec_loads_defaults(tmp_path):
    spec = load_spec(make_tree(tmp_path) / "JAX990" / "spec.toml")
    assert spec.devices == 2 and spec.rtol == 1e-5 and spec.atol == 1e-6
    assert [b.outcome for b in spec.bad] == ["wrong", "raises"]
    assert spec.autofix.source == "bad.py" and spec.autofix.expected and not spec.autofix_declared
    assert spec.oracle_literal == [6.0, 15.0] and spec.oracle_file is None


@pytest.mark.parametrize(
    "edit,key",
    [
        (lambda s: s.replace("devices = 2", "devices = 0"), "devices"),
        (lambda s: s.replace('outcome = "wrong"', 'outcome = "silent"'), "bad[0].outcome"),
        (lambda s: s.replace('exception = "LookupError"', "#"), "bad[1].exception"),
        (lambda s: s.replace('match = "(?i)out of range"', 'match = "(unclosed"'), "bad[1].match"),
        (lambda s: s.replace('file = "fixed.py"', 'file = "nope.py"'), "fixed.file"),
        (lambda s: s.replace('file = "fixed.py"', 'file = "fixed.py"\nfiles = 1'), "fixed.files"),
        (lambda s: s.replace("oracle = [6.0, 15.0]\n", ""), "oracle"),
        (lambda s: s + "[autofix]\nexpected = false\n", "autofix.reason"),
        (lambda s: s + '[autofix]\nsource = "fixed.py"\n', "autofix.source"),
        (lambda s: "rtoll = 1\n" + s, "rtoll"),
        (lambda s: s.replace('file = "bad_raises.py"', 'file = "bad.py"'), "bad[1].file"),
        (lambda s: s.replace('file = "fixed.py"', 'file = "bad.py"'), "fixed.file"),
        (lambda s: s.replace("[fixed]", "[fixd]"), "fixd"),
    ],
)
def test_spec_errors_name_file_and_key(tmp_path, edit, key):
    path = make_tree(tmp_path, spec=edit(SPEC)) / "JAX990" / "spec.toml"
    with pytest.raises(SpecError) as e:
        load_spec(path)
    assert str(e.value).startswith(f"{path}: {key}: "), str(e.value)


def test_spec_invalid_toml_names_file(tmp_path):
    path = make_tree(tmp_path, spec="devices = = 2\n") / "JAX990" / "spec.toml"
    with pytest.raises(SpecError, match=rf"^{path}: invalid TOML"):
        load_spec(path)


# -- comparison logic (no jax) --------------------------------------------------------
def res(*leaves):
    return {"structure": "*", "leaves": [{"shape": list(s), "data": list(d)} for s, d in leaves]}


def test_difference():
    a = res(((2,), (1.0, 2.0)))
    assert difference(a, res(((2,), (1.0, 2.0 + 1e-7))), 1e-5, 1e-6) is None
    assert "values differ" in difference(a, res(((2,), (1.0, 2.1))), 1e-5, 1e-6)
    assert difference(a, res(((2,), (1.0, 2.1))), 0.1, 0.0) is None
    assert "shape (2,) vs (1, 2)" in difference(a, res(((1, 2), (1.0, 2.0))), 1e-5, 1e-6)
    assert "structure differs: 1 leaves vs 2" in difference(a, res(((1,), (1.0,)), ((1,), (2.0,))), 1e-5, 1e-6)
    nan = float("nan")
    assert difference(res(((1,), (nan,))), res(((1,), (nan,))), 1e-5, 1e-6) is None
    assert difference(res(((1,), (nan,))), res(((1,), (0.0,))), 1e-5, 1e-6) is not None
    assert difference(res(((1,), (float("inf"),))), res(((1,), (float("inf"),))), 1e-5, 1e-6) is None


RAISED = {
    "status": "raised",
    "type": "jax.errors.ConcretizationTypeError",
    "mro": [
        "jax.errors.ConcretizationTypeError",
        "jax.errors.JAXTypeError",
        "TypeError",
        "Exception",
        "BaseException",
        "object",
    ],
    "message": "Abstract tracer value encountered",
    "chain": ["ValueError: inner detail"],
}


def test_exception_matches_mro_and_loose_regex():
    assert exception_matches(RAISED, "TypeError", "tracer")
    assert exception_matches(RAISED, "ConcretizationTypeError", "")
    assert exception_matches(RAISED, "jax.errors.ConcretizationTypeError", "(?i)abstract")
    assert exception_matches(RAISED, "TypeError", "inner detail")  # the cause chain counts
    assert not exception_matches(RAISED, "ValueError", "")
    assert not exception_matches(RAISED, "TypeError", "unbound axis")


def test_judge_bad_and_good():
    oracle = res(((2,), (6.0, 15.0)))
    wrong = {"status": "completed", "result": res(((2,), (2.0, 5.0)))}
    right = {"status": "completed", "result": res(((2,), (6.0, 15.0)))}
    raises = BadProgram("bad.py", "raises", "TypeError", "tracer")
    silent = BadProgram("bad.py", "wrong")
    assert judge_bad(raises, RAISED, oracle, 1e-5, 1e-6).ok
    v = judge_bad(raises, right, oracle, 1e-5, 1e-6)
    assert not v.ok and "ran without error" in v.detail
    v = judge_bad(BadProgram("bad.py", "raises", "NameError", ""), RAISED, oracle, 1e-5, 1e-6)
    assert not v.ok and "raised ConcretizationTypeError" in v.detail and "expected NameError" in v.detail
    assert judge_bad(silent, wrong, oracle, 1e-5, 1e-6).ok
    v = judge_bad(silent, right, oracle, 1e-5, 1e-6)
    assert not v.ok and "matches ORACLE" in v.detail
    assert not judge_bad(silent, RAISED, oracle, 1e-5, 1e-6).ok
    v = judge_bad(
        silent,
        {"status": "completed", "result": None, "result_error": "the program assigns no module-level RESULT"},
        oracle,
        1e-5,
        1e-6,
    )
    assert not v.ok and "RESULT" in v.detail
    assert judge_good(right, oracle, 1e-5, 1e-6).ok
    assert not judge_good(wrong, oracle, 1e-5, 1e-6).ok
    assert not judge_good(RAISED, oracle, 1e-5, 1e-6).ok
    v = judge_good({"status": "timeout", "seconds": 3}, oracle, 1e-5, 1e-6)
    assert not v.ok and "timed out" in v.detail


# -- selection and exit 2 paths (no jax) ----------------------------------------------
def test_select_rules():
    rules = [FakeEngine, FakeMean, FakeNoRef]
    assert vcli.select_rules([], rules) == [FakeMean, FakeNoRef]
    assert vcli.select_rules(["jax990"], rules) == [FakeMean]
    assert vcli.select_rules(["fake-no-ref"], rules) == [FakeNoRef]
    assert vcli.select_rules(["JAX99"], rules) == [FakeMean, FakeNoRef]
    with pytest.raises(vcli.SelectionError, match="unknown rule code 'JAX123'"):
        vcli.select_rules(["JAX123"], rules)
    with pytest.raises(vcli.SelectionError, match="'JAX009' selects only engine rules"):
        vcli.select_rules(["JAX009"], rules)
    with pytest.raises(vcli.SelectionError, match="only engine rules"):
        vcli.select_rules(["JAX00"], rules)


def test_unknown_code_exits_2(capsys):
    assert vcli.run_verify(["JAX123"], rules=[FakeMean]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown rule code 'JAX123'" in err


def test_no_jax_exits_2(capsys, tmp_path):
    code = vcli.run_verify([], rules=[FakeMean], root=make_tree(tmp_path), find_spec=lambda name: None)
    assert code == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.count("\n") == 1
    # never a package-index name: the index's `jaxlint` is someone else's project
    assert "in your jaxlint clone, run pip install -e '.[runtime]'" in out.err
    assert "pip install 'jaxlint[runtime]'" not in out.err


# -- end to end (runs jax in subprocesses) --------------------------------------------
@pytest.mark.jax
@needs_jax
def test_end_to_end_confirmed_broken_and_missing(tmp_path, capsys):
    root = make_tree(tmp_path / "ok")
    assert vcli.run_verify([], "table", 2, 60, rules=[FakeMean], root=root) == 0
    out = capsys.readouterr().out
    from importlib.metadata import version

    lines = out.splitlines()
    assert lines[0] == (
        f"jax {version('jax')} (jaxlib {version('jaxlib')}) on CPU; each rule's programs run in a fresh process"
        " with the simulated devices its spec.toml asks for (2)"
    )
    assert lines[1].startswith(
        "✓ JAX990 fake-mean: confirmed: 2 bad programs fail as expected, the fixed one matches the oracle;"
        " its autofix matches the oracle ("
    )
    assert "✓ JAX990" in out and "1 of 1 rule confirmed." in out
    assert "wrong result" in out and "IndexError" in out and "matches ORACLE (1 fix applied)" in out

    # (b) the bad program made correct, (c) a rule without references: exit 1, reasons printed
    broken = make_tree(
        tmp_path / "broken", programs={**PROGRAMS, "bad.py": PROGRAMS["bad.py"].replace("* 1.0", "* 3.0")}
    )
    assert vcli.run_verify([], "table", 2, 60, rules=[FakeMean, FakeNoRef], root=broken) == 1
    out = capsys.readouterr().out
    assert "0 of 2 rules confirmed." in out
    assert "JAX990 not confirmed: bad.py: ran and matches ORACLE: the bad program behaves correctly" in out
    assert "JAX991 not confirmed: no runtime reference" in out


@pytest.mark.jax
@needs_jax
def test_json_output_and_static_failures(tmp_path, capsys):
    # the fixed program still uses jnp.mean (flagged) and a raise that does not match
    programs = {
        **PROGRAMS,
        "fixed.py": "import jax.numpy as jnp\nRESULT = jnp.mean(jnp.array([[6.0], [15.0]]), axis=1)\n",
        "bad_raises.py": "import jax.numpy as jnp\nx = jnp.mean(jnp.ones(3))\nRESULT = 1 / 0\n",
    }
    root = make_tree(tmp_path, programs=programs)
    assert vcli.run_verify(["JAX990", "JAX991"], "json", None, 60, rules=[FakeMean, FakeNoRef], root=root) == 1
    data = json.loads(capsys.readouterr().out)
    assert [d["code"] for d in data] == ["JAX990", "JAX991"]
    assert set(data[0]) >= {"code", "name", "confirmed", "reasons", "bad", "fixed", "autofix", "seconds"}
    first, second = data
    assert first["confirmed"] is False and second["confirmed"] is False
    assert first["fixed"]["flagged"] is True and first["fixed"]["ok"] is False
    assert any("fixed.py is flagged by JAX990" in r for r in first["reasons"])
    assert any("bad_raises.py: raised ZeroDivisionError" in r and "expected LookupError" in r for r in first["reasons"])
    assert first["bad"][0] == {"file": "bad.py", "ok": True, "detail": first["bad"][0]["detail"], "flagged": True}
    assert second["reasons"][0].startswith("no runtime reference")


@pytest.mark.jax
@needs_jax
def test_runner_timeout_and_crash(tmp_path):
    (tmp_path / "slow.py").write_text("import time\ntime.sleep(30)\n")
    (tmp_path / "die.py").write_text("import os\nos._exit(3)\n")
    (tmp_path / "ok.py").write_text("RESULT = 1.0\n")
    progs = [
        {"id": "ok", "path": str(tmp_path / "ok.py")},
        {"id": "slow", "path": str(tmp_path / "slow.py")},
        {"id": "after", "path": str(tmp_path / "ok.py")},
    ]
    out = run_programs(progs, 1, 2.0, tmp_path)
    assert out["ok"]["status"] == "completed" and out["ok"]["result"]["leaves"][0]["shape"] == []
    assert out["slow"]["status"] == "timeout" and out["after"]["status"] == "not run"
    progs = [{"id": "die", "path": str(tmp_path / "die.py")}, {"id": "after", "path": str(tmp_path / "ok.py")}]
    out = run_programs(progs, 1, 20.0, tmp_path)
    assert out["die"]["status"] == "crashed" and "exit code 3" in out["die"]["message"]
    assert out["after"]["status"] == "not run"


def test_cli_verify_unknown_code():
    code, _, err = run_cli("verify", "JAX12345")
    assert code == 2 and "unknown rule code" in err


# -- the real tree: every rule has its reference (fails until every rule ships one) ----
@pytest.mark.parametrize("rule", [r for r in all_rules() if not getattr(r, "engine_rule", False)], ids=lambda r: r.code)
def test_every_rule_has_a_reference(rule):
    d = fixtures_root() / rule.code
    assert (d / "spec.toml").is_file(), f"{rule.code}: fixtures/{rule.code}/spec.toml is missing"
    spec = load_spec(d / "spec.toml")
    for name in [b.file for b in spec.bad] + [spec.fixed]:
        assert (d / name).is_file(), f"{rule.code}: {name} is missing"


@pytest.mark.slow
@pytest.mark.jax
def test_verify_confirms_every_rule_of_the_real_tree():
    """What the README promises: every rule's bad programs fail (or compute wrong numbers),
    its fix matches the oracle, and its autofix behaves like the fix."""
    pytest.importorskip("jax")
    code, out, err = run_cli("verify", "--output-format", "json")
    reports = json.loads(out)
    expected = sorted(r.code for r in all_rules() if not getattr(r, "engine_rule", False))
    assert sorted(r["code"] for r in reports) == expected
    assert [(r["code"], r["reasons"]) for r in reports if not r["confirmed"]] == []
    assert code == 0, err


def test_a_rule_that_needs_a_newer_jax_is_skipped_saying_why(tmp_path, capsys):
    spec = 'requires-jax = "99.0"\nrequires-jax-why = "pmap errors changed"\n' + SPEC
    root = make_tree(tmp_path / "new", spec=spec)
    assert vcli.run_verify([], "table", 2, 60, rules=[FakeMean], root=root) == 0  # skipped is not a failure
    out = capsys.readouterr().out
    from importlib.metadata import version

    assert out.splitlines()[1] == (
        f"- JAX990 fake-mean: skipped: needs jax >= 99.0 (installed: {version('jax')}): pmap errors changed"
    )
    assert "0 of 1 rule confirmed (1 skipped: it needs a newer jax)." in out and "not confirmed" not in out
    assert vcli.run_verify([], "json", 2, 60, rules=[FakeMean], root=root) == 0
    (report,) = json.loads(capsys.readouterr().out)
    assert report["skipped"].startswith("needs jax >= 99.0") and report["confirmed"] is False


def test_verify_streams_each_rules_line_before_the_next_rule_is_done(tmp_path):
    from jaxlint.verify.runner import verify_rules

    root = make_tree(tmp_path, code="JAX990")
    make_tree(tmp_path, spec='requires-jax = "99.0"\nrequires-jax-why = "x"\n' + SPEC, code="JAX991")
    seen = []
    reports = verify_rules(
        [FakeNoRef, FakeMean], root, 1, 60, on_report=lambda r: seen.append(r.code), jax_version="0.4.35"
    )
    assert seen == ["JAX991", "JAX990"] and [r.code for r in reports] == seen
    assert reports[0].skipped == "needs jax >= 99.0 (installed: 0.4.35): x"


def test_requires_jax_needs_a_version_and_a_reason(tmp_path):
    root = make_tree(tmp_path, spec='requires-jax = "new"\n' + SPEC)
    with pytest.raises(SpecError, match="requires-jax: must be a version"):
        load_spec(root / "JAX990" / "spec.toml")
    root = make_tree(tmp_path, spec='requires-jax = "0.8.0"\n' + SPEC)
    with pytest.raises(SpecError, match="requires-jax-why: requires-jax needs a reason"):
        load_spec(root / "JAX990" / "spec.toml")


def test_every_bad_program_of_a_fixture_is_run_by_its_spec():
    """A ``bad*.py`` beside a ``spec.toml`` that the spec does not list would never be
    run by ``jaxlint verify``: its bug would go unconfirmed."""
    import tomllib

    from conftest import FIXTURES

    unlisted = []
    for spec in sorted(Path(FIXTURES).glob("JAX*/spec.toml")):
        listed = {b["file"] for b in tomllib.loads(spec.read_text(encoding="utf-8")).get("bad", [])}
        unlisted += [str(p) for p in sorted(spec.parent.glob("bad*.py")) if p.name not in listed]
    assert unlisted == []
