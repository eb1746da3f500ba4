"""Per rule: its findings on its fixtures are the same sliced and whole.

The slicer keeps what a rule's declaration (``about``, ``reads``, ``context_words``,
jaxlint/plan/needs.py) says it reads; a wrong declaration silently drops findings. Each rule
alone lints its fixtures (every file and project of ``fixtures/<CODE>/lint/``, and the
seed chapters) once sliced and once with ``JAXLINT_NO_SLICING=1``: the findings must be
identical. With the rule alone, no other rule's seeds keep what this one forgot.
"""

import glob
import os

import pytest
from conftest import FIXTURES

from jaxlint.api import lint_paths
from jaxlint.lint.config import Settings
from jaxlint.lint.registry import all_rules, rule_by_code

RULES = sorted(all_rules(), key=lambda r: r.code)


def _projects(code: str) -> list[str]:
    """Each file of the rule's lint fixtures alone, each sub-folder as one project (as
    tests/test_fixtures.py lints them), and the seed chapters."""
    lint_dir = os.path.join(FIXTURES, code, "lint")
    out = []
    if os.path.isdir(lint_dir):
        for entry in sorted(os.listdir(lint_dir)):
            p = os.path.join(lint_dir, entry)
            if entry.endswith(".fixed.py") or entry.startswith(("_", ".")):
                continue
            if entry.endswith(".py") or (os.path.isdir(p) and glob.glob(os.path.join(p, "**", "*.py"), recursive=True)):
                out.append(p)
    return [*out, os.path.join(FIXTURES, "seeds")]


def _findings(code: str, path: str, monkeypatch, slicing: bool) -> list[tuple]:
    monkeypatch.setenv("JAXLINT_NO_SLICING", "" if slicing else "1")
    root = path if os.path.isdir(path) else os.path.dirname(path)
    settings = Settings(select=[code], preview=True, root=root)
    run = lint_paths([path], settings, jobs=1)
    assert run.errors == []
    return [
        (
            os.path.relpath(d.path, root),
            d.start.line,
            d.start.column,
            d.end.line,
            d.end.column,
            d.code,
            d.message,
            d.fix.message if d.fix else None,
        )
        for d in run.diagnostics
    ]


def differences(code: str, monkeypatch) -> list[str]:
    """What the rule reports differently sliced and whole, on each of its fixtures."""
    out = []
    for path in _projects(code):
        whole = _findings(code, path, monkeypatch, slicing=False)
        sliced = _findings(code, path, monkeypatch, slicing=True)
        where = os.path.relpath(path, FIXTURES)
        out += [f"{where}: only whole: {f}" for f in whole if f not in sliced]
        out += [f"{where}: only sliced: {f}" for f in sliced if f not in whole]
        if not out and sliced != whole:
            out.append(f"{where}: same findings in another order or number")
    return out


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_rule_finds_the_same_sliced_and_whole(rule, monkeypatch):
    assert differences(rule.code, monkeypatch) == []


# knobs the declaration derives, set wrong: the slicer blanks what the rule reads
WRONG_KNOBS = [
    # ``reads = "calls"``: the call of a decorated vmap in another def tells the arity
    ("JAX102", {"callers": ""}),
    # ``reads = "jit of targets"``: a jit in another def marks the differentiated parameter
    # static (with the callers off too: ``"calls"`` keeps that def as a caller of the site's)
    ("JAX405", {"target_transforms": frozenset(), "callers": ""}),
    # ``reads = "calls"``: the parameterized test calling the grad's def gives each case's input
    ("JAX407", {"callers": ""}),
    # ``reads = "call graph"``: the pmap that calls the collective's function is in another module
    # (with ``"direct"`` callers the engine records every function's call paths, calls.record_for:
    # only no callers at all loses it)
    ("JAX201", {"callers": ""}),
    # ``reads = "calls"``: only the caller in another def says the mapped weights come from ``init``
    ("JAX101", {"callers": ""}),
    # ``reads = "calls"``: the helper def a jitted vmap is handed to calls it
    ("JAX104", {"callers": ""}),
    # ``reads = "target callees"``: the grad target returns the pair a helper of its module builds
    # (with the callers off too: ``"calls"`` keeps the defs the site's def refers to)
    ("JAX403", {"target_callees": False, "callers": ""}),
]
# ... and one whose caller silences it: the call in another def passes a keyword argument
WRONG_KNOBS_SILENCING = [("JAX103", {"callers": ""})]


@pytest.mark.parametrize("code,knobs", WRONG_KNOBS, ids=[f"{c}-{'+'.join(k)}" for c, k in WRONG_KNOBS])
def test_a_wrong_knob_is_caught(code, knobs, monkeypatch):
    for knob, value in knobs.items():
        monkeypatch.setattr(rule_by_code(code), knob, value)
    found = differences(code, monkeypatch)
    assert found, f"{code} with {knobs!r} lints the same sliced and whole: the check cannot see these knobs"
    assert any(": only whole: " in d for d in found), found
    if code not in FALLBACK:
        assert all(": only whole: " in d for d in found), found


# rules that report otherwise where what they read is lost: JAX201's axis vocabulary
# reports a collective whose path the sliced run no longer sees (``only sliced``)
FALLBACK = frozenset({"JAX201"})


@pytest.mark.parametrize(
    "code,knobs", WRONG_KNOBS_SILENCING, ids=[f"{c}-{'+'.join(k)}" for c, k in WRONG_KNOBS_SILENCING]
)
def test_a_wrong_knob_that_drops_a_silencing_caller_is_caught(code, knobs, monkeypatch):
    for knob, value in knobs.items():
        monkeypatch.setattr(rule_by_code(code), knob, value)
    found = differences(code, monkeypatch)
    assert found, f"{code} with {knobs!r} lints the same sliced and whole: the check cannot see these knobs"
    # the silencing caller is lost (only sliced); the knob also keeps where a map another
    # module's factory made is called (``factory_module_bad``: only whole)
    assert any(": only sliced: " in d for d in found), found
    assert all(": only sliced: " in d or "factory_module_bad: only whole" in d for d in found), found


def _project_folders() -> list[tuple[str, str]]:
    """(code, folder) of every multi-module lint fixture: where another module's words
    decide which files the pre-filter and the promotion keep."""
    out = []
    for rule in RULES:
        lint_dir = os.path.join(FIXTURES, rule.code, "lint")
        if os.path.isdir(lint_dir):
            for entry in sorted(os.listdir(lint_dir)):
                p = os.path.join(lint_dir, entry)
                if os.path.isdir(p) and len(glob.glob(os.path.join(p, "**", "*.py"), recursive=True)) > 1:
                    out.append((rule.code, p))
    return out


def test_a_rules_findings_do_not_depend_on_which_other_rules_run(monkeypatch):
    # alone, the rule's pre-filter skips a module that spells none of its words (``main``
    # calling another module's jitted ``evaluate``); with every rule, that module is read
    # for the others: promotion must bring it back for the rule alone (JAX201's host_eval_bad)
    monkeypatch.setenv("JAXLINT_NO_SLICING", "")
    differing = []
    for code, path in _project_folders():
        alone = _findings(code, path, monkeypatch, slicing=True)
        settings = Settings(select=["ALL"], preview=True, root=path)
        run = lint_paths([path], settings, jobs=1)
        together = [
            (os.path.relpath(d.path, path), d.start.line, d.start.column, d.end.line, d.end.column, d.code, d.message)
            for d in run.diagnostics
            if d.code == code
        ]
        if [f[:7] for f in alone] != together:
            differing.append((os.path.relpath(path, FIXTURES), alone, together))
    assert differing == []
