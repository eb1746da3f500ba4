"""Judge program outcomes against the spec, in plain Python (no numpy, no jax).

An outcome is the JSON record the harness wrote for one program (``status`` "raised" or
"completed"; the runner adds "timeout", "crashed" and "not run"). A flattened result is
``{"structure": str, "leaves": [{"shape": [...], "data": [floats]}]}``: two results agree
when they have the same number of leaves, the same shapes, and every value is close
(``|a - b| <= atol + rtol * |oracle|``, NaN equal to NaN). Container types are not
compared, so a tuple RESULT matches a list ORACLE.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from jaxlint.verify.spec import BadProgram

Outcome = dict[str, Any]


@dataclass(frozen=True)
class Verdict:
    ok: bool
    detail: str  # short, for the table cell and the reasons


def _short(text: str, n: int = 90) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _shape(shape: list[int]) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _close(a: float, b: float, rtol: float, atol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * abs(b)


def difference(result: dict, oracle: dict, rtol: float, atol: float) -> str | None:
    """None when ``result`` matches ``oracle``; else what differs first, in words."""
    rl, ol = result["leaves"], oracle["leaves"]
    if len(rl) != len(ol):
        return f"structure differs: {len(rl)} leaves vs {len(ol)} in ORACLE ({_short(result['structure'], 40)} vs {_short(oracle['structure'], 40)})"
    for i, (r, o) in enumerate(zip(rl, ol, strict=False)):
        where = f" at leaf {i}" if len(rl) > 1 else ""
        if list(r["shape"]) != list(o["shape"]):
            return f"shape {_shape(r['shape'])} vs {_shape(o['shape'])} in ORACLE{where}"
        bad = [(a, b) for a, b in zip(r["data"], o["data"], strict=False) if not _close(a, b, rtol, atol)]
        if bad:
            a, b = max(bad, key=lambda t: math.inf if math.isnan(t[0]) or math.isnan(t[1]) else abs(t[0] - t[1]))
            return f"values differ{where}: {len(bad)} of {len(r['data'])} not close, e.g. {a:.6g} vs {b:.6g} in ORACLE"
    return None


def describe_raise(outcome: Outcome) -> str:
    return _short(f"{outcome['type'].rsplit('.', 1)[-1]}: {outcome['message']}")


def _problem(outcome: Outcome) -> str | None:
    """Why an outcome is neither a clean raise nor a completed run with a result."""
    status = outcome["status"]
    if status == "timeout":
        return f"timed out after {outcome.get('seconds', 0):.0f}s"
    if status == "not run":
        return f"not run ({outcome.get('why', 'an earlier program stopped the run')})"
    if status == "crashed":
        return f"the harness crashed: {_short(outcome.get('message', ''), 160)}"
    return None


def exception_matches(outcome: Outcome, exception: str, pattern: str) -> bool:
    """The class name (short or qualified) is anywhere in the MRO; the regex is searched in the message or its causes."""
    names = set()
    for q in outcome.get("mro", []):
        names.add(q)
        names.add(q.rsplit(".", 1)[-1])
    if exception not in names:
        return False
    if not pattern:
        return True
    texts = [outcome.get("message", ""), *list(outcome.get("chain", []))]
    return any(re.search(pattern, t) for t in texts)


def judge_bad(bad: BadProgram, outcome: Outcome, oracle: dict | None, rtol: float, atol: float) -> Verdict:
    problem = _problem(outcome)
    if problem:
        return Verdict(False, problem)
    if bad.exception is not None:  # outcome "raises" (the spec gives an exception name for it, only for it)
        want = bad.exception + (f" matching {bad.match!r}" if bad.match else "")
        if outcome["status"] == "completed":
            return Verdict(False, f"ran without error (expected {want})")
        if exception_matches(outcome, bad.exception, bad.match):
            return Verdict(True, describe_raise(outcome))
        return Verdict(False, f"raised {describe_raise(outcome)} (expected {want})")
    # outcome == "wrong"
    if outcome["status"] == "raised":
        return Verdict(False, f"raised {describe_raise(outcome)} (expected a wrong RESULT)")
    if outcome.get("result") is None:
        return Verdict(False, outcome.get("result_error", "no RESULT"))
    if oracle is None:
        return Verdict(False, "no ORACLE to compare with")
    diff = difference(outcome["result"], oracle, rtol, atol)
    if diff is None:
        return Verdict(False, "ran and matches ORACLE: the bad program behaves correctly")
    return Verdict(True, f"wrong result: {diff}")


def judge_good(outcome: Outcome, oracle: dict | None, rtol: float, atol: float) -> Verdict:
    """The fixed program and the autofixed one: must complete and match ORACLE."""
    problem = _problem(outcome)
    if problem:
        return Verdict(False, problem)
    if outcome["status"] == "raised":
        return Verdict(False, f"raised {describe_raise(outcome)}")
    if outcome.get("result") is None:
        return Verdict(False, outcome.get("result_error", "no RESULT"))
    if oracle is None:
        return Verdict(False, "no ORACLE to compare with")
    diff = difference(outcome["result"], oracle, rtol, atol)
    if diff is not None:
        return Verdict(False, f"does not match ORACLE: {diff}")
    return Verdict(True, "matches ORACLE")


def oracle_value(outcome: Outcome) -> tuple[dict | None, str | None]:
    """(flattened ORACLE, None) or (None, why there is none)."""
    problem = _problem(outcome)
    if problem:
        return None, f"oracle: {problem}"
    if outcome["status"] == "raised":
        return None, f"oracle raised {describe_raise(outcome)}"
    if outcome.get("result") is None:
        return None, f"oracle: {outcome.get('result_error', 'no ORACLE')}"
    return outcome["result"], None
