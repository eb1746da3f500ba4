"""Every rule's inline VALID / INVALID examples, and its documentation sections."""

import pytest

from jaxlint import testing
from jaxlint.lint.registry import all_rules
from jaxlint.lint.rule import REQUIRED_SECTIONS

RULES = all_rules()


def _codes(rule, source):
    import re

    return sorted({rule.code, *re.findall(r"JAX\d{3}", source)})


def _cases(kind):
    for r in RULES:
        for i, ex in enumerate(getattr(r, kind)):
            yield pytest.param(r, ex, id=f"{r.code}-{kind.lower()}-{i}")


@pytest.mark.parametrize("rule,source", list(_cases("VALID")))
def test_valid(rule, source):
    found = [d for d in testing.lint(source, *_codes(rule, source)) if d.code == rule.code]
    assert found == [], f"{rule.code} reported a VALID example: {found}"


@pytest.mark.parametrize("rule,case", list(_cases("INVALID")))
def test_invalid(rule, case):
    source, expect = case
    found = [d for d in testing.lint(source, *_codes(rule, source)) if d.code == expect.code]
    assert found, f"{expect.code} not reported on:\n{source}"
    if expect.line is not None:
        assert expect.line in [d.start.line for d in found], [str(d) for d in found]
    if expect.message is not None:
        assert any(expect.message in testing.wording(d) for d in found), [testing.wording(d) for d in found]
    if expect.fixed is not None:
        assert testing.fix(source, *_codes(rule, source)) == expect.fixed


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_rule_identity_and_docs(rule):
    import re

    assert re.fullmatch(r"JAX\d{3}", rule.code)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name)
    assert rule.summary and not rule.summary.endswith(".")
    assert rule.status in ("stable", "preview")
    sections = rule.doc_sections()
    for s in REQUIRED_SECTIONS:
        assert sections.get(s), f"{rule.code} docstring lacks '## {s}'"
    if rule.fix_availability != "none":
        assert sections.get("Fix safety"), f"{rule.code} has a fix but no '## Fix safety'"
    keys = list(sections)
    from jaxlint.lint.rule import DOC_SECTIONS

    assert keys == [k for k in DOC_SECTIONS if k in keys], f"{rule.code}: sections out of order: {keys}"
    assert rule.VALID and rule.INVALID, f"{rule.code} needs VALID and INVALID examples"
    if not getattr(rule, "engine_rule", False):
        assert rule.triggers, f"{rule.code} declares no trigger words"
