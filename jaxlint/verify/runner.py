"""Verify rules against their runtime references: static checks here, programs in a subprocess.

Per rule: load the spec, lint the bad programs (each must be flagged) and the fixed one
(must not be), apply the rule's autofix (unsafe included) to the ``[autofix] source``,
then run oracle, bad, fixed and autofixed programs in ONE fresh ``harness.py`` process
(jax start-up dominates the cost). Rules run concurrently, up to ``jobs`` processes.
The fixtures root and the rule classes are parameters so tests can use a fake tree.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import IO, Any

from jaxlint.api import Runner, decode, fix_text
from jaxlint.base.types import Diagnostic
from jaxlint.lint.config import Settings
from jaxlint.lint.engine import FileLinter
from jaxlint.lint.rule import Rule
from jaxlint.testing import settings_for
from jaxlint.verify.compare import judge_bad, judge_good, oracle_value
from jaxlint.verify.spec import Spec, SpecError, load_spec

HARNESS = Path(__file__).with_name("harness.py")
START_UP_GRACE = 60.0  # extra seconds allowed for jax start-up before the first program


def fixtures_root() -> Path:
    """The installed ``jaxlint.fixtures`` package (``fixtures/`` in a checkout)."""
    return Path(str(files("jaxlint.fixtures")))


@dataclass
class Check:
    """One cell of the table: a program (or the autofix) and whether it did what the spec says."""

    file: str
    ok: bool
    detail: str
    flagged: bool | None = None  # bad: must be True; fixed: must be False


@dataclass
class RuleReport:
    code: str
    name: str
    confirmed: bool = False
    reasons: list[str] = field(default_factory=list)
    bad: list[Check] = field(default_factory=list)
    fixed: Check | None = None
    autofix: Check | None = None  # None: the rule has no fix
    seconds: float = 0.0
    skipped: str = ""  # why the programs were not run (the installed jax is too old for them)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["seconds"] = round(self.seconds, 2)
        return data


# -- static side ---------------------------------------------------------------------
def lint_with(rule: type[Rule], source: str, path: str, settings: Settings | None = None) -> list[Diagnostic]:
    """Lint ``source`` with exactly this rule (preview on), as `--select CODE --preview` would."""
    settings = settings or settings_for(rule.code)
    runner = Runner(settings, jobs=1)
    runner.rules, runner.codes = (rule,), frozenset({rule.code})
    res = FileLinter([rule], settings.rules, settings).lint(path, source, Path(path).stem, False)
    if res.internal_error:
        raise RuntimeError(f"{path}: internal error: {res.internal_error}")
    diags, errors = runner.finish([res], lambda p: source.splitlines())
    if errors:
        raise RuntimeError("; ".join(errors))
    return [d for d in diags if d.code == rule.code]


def _read(path: Path) -> str:
    return decode(path.read_bytes(), str(path))[0]


def _where(diags: list[Diagnostic]) -> str:
    d = diags[0]
    return f"line {d.start.line}: {d.message}"


@dataclass
class _Plan:
    """What the subprocess must run for one rule, and the static results so far."""

    report: RuleReport
    spec: Spec
    programs: list[dict[str, Any]] = field(default_factory=list)
    autofix_pending: bool = False
    static_seconds: float = 0.0


STARTUP = "__startup__"  # outcomes key: why the harness never ran a program (its "message")


def _static(rule: type[Rule], spec: Spec, workdir: Path, report: RuleReport) -> _Plan:
    plan = _Plan(report, spec)
    code = rule.code
    if spec.oracle_file is not None:
        plan.programs.append({"id": "oracle", "path": str(spec.oracle_file), "var": "ORACLE"})
    else:
        plan.programs.append({"id": "oracle", "literal": spec.oracle_literal})
    for b in spec.bad:
        flagged: bool | None
        try:
            diags = lint_with(rule, _read(spec.program(b.file)), b.file)
            flagged = bool(diags)
            if not flagged:
                report.reasons.append(f"{b.file} is not flagged by {code}")
        except RuntimeError as e:
            flagged = None
            report.reasons.append(f"linting {b.file} failed: {e}")
        report.bad.append(Check(b.file, False, "", flagged))
        plan.programs.append({"id": f"bad:{b.file}", "path": str(spec.program(b.file))})
    try:
        diags = lint_with(rule, _read(spec.program(spec.fixed)), spec.fixed)
        report.fixed = Check(spec.fixed, False, "", bool(diags))
        if diags:
            report.reasons.append(f"{spec.fixed} is flagged by {code} ({_where(diags)})")
    except RuntimeError as e:
        report.fixed = Check(spec.fixed, False, "", None)
        report.reasons.append(f"linting {spec.fixed} failed: {e}")
    plan.programs.append({"id": "fixed", "path": str(spec.program(spec.fixed))})
    _autofix(rule, spec, workdir, plan)
    return plan


def _autofix(rule: type[Rule], spec: Spec, workdir: Path, plan: _Plan) -> None:
    report, code, auto = plan.report, rule.code, spec.autofix
    if rule.fix_availability == "none":
        if spec.autofix_declared:
            report.reasons.append(f'spec.toml has an [autofix] table but {code} has no fix (fix_availability = "none")')
        return
    if not auto.expected and rule.fix_availability != "sometimes":
        report.reasons.append(
            f'[autofix] expected = false, but {code}\'s fix is {rule.fix_availability!r}, not "sometimes"'
        )
    source = _read(spec.program(auto.source))
    settings = settings_for(code)
    try:
        new, count, _, gave_up = fix_text(source, lambda t: lint_with(rule, t, auto.source, settings), unsafe=True)
    except RuntimeError as e:
        report.autofix = Check(auto.source, False, f"fixing failed: {e}")
        report.reasons.append(f"autofix of {auto.source}: {e}")
        return
    if gave_up:
        report.autofix = Check(auto.source, False, "the fix produced code that does not parse")
        report.reasons.append(f"autofix of {auto.source} produced code that does not parse")
        return
    if new == source:
        if auto.expected:
            report.autofix = Check(auto.source, False, "no fix applied")
            report.reasons.append(f"the autofix did not change {auto.source}")
        else:
            report.autofix = Check(auto.source, True, f"not offered, as expected: {auto.reason}")
        return
    target = workdir / code / auto.source
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(new, encoding="utf-8")
    report.autofix = Check(auto.source, False, f"{count} fix{'es' if count != 1 else ''} applied")
    plan.programs.append({"id": "autofix", "path": str(target)})
    plan.autofix_pending = True


# -- runtime side --------------------------------------------------------------------
def _reader(stream: IO[str], q: queue.Queue[str | None]) -> None:
    for line in stream:
        q.put(line)
    q.put(None)


def _tail(path: Path, n: int = 600) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text[-n:].strip()


def run_programs(
    programs: list[dict[str, Any]], devices: int, timeout: float, cwd: Path, python: str = sys.executable
) -> dict[str, dict]:
    """Run the programs in one harness process; one outcome per program id, whatever happens."""
    outcomes: dict[str, dict] = {}
    env = dict(os.environ, JAX_PLATFORMS="cpu", TF_CPP_MIN_LOG_LEVEL="2", PYTHONUNBUFFERED="1")
    job = json.dumps({"devices": devices, "programs": programs})
    with tempfile.NamedTemporaryFile("w+", suffix=".stderr", delete=False) as err_file:
        err_path = Path(err_file.name)
    try:
        with open(err_path, "w") as err:
            proc = subprocess.Popen(
                [python, str(HARNESS)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                cwd=str(cwd),
                env=env,
                text=True,
                encoding="utf-8",
            )
        assert proc.stdin is not None and proc.stdout is not None  # both are pipes (above)
        q: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=_reader, args=(proc.stdout, q), daemon=True).start()
        try:
            proc.stdin.write(job)
            proc.stdin.close()
        except BrokenPipeError:
            pass
        pending = [p["id"] for p in programs]
        wait = timeout + START_UP_GRACE
        started = False
        while pending:
            began = time.perf_counter()
            try:
                line = q.get(timeout=wait)
            except queue.Empty:
                proc.kill()
                what = pending.pop(0) if started else None
                if what is not None:
                    outcomes[what] = {"status": "timeout", "seconds": timeout}
                why = f"{what} timed out" if what else f"jax did not start within {wait:.0f}s"
                if what is None:
                    outcomes[STARTUP] = {"status": "not started", "message": why}
                for pid in pending:
                    outcomes[pid] = {"status": "not run", "why": why}
                break
            if line is None:  # the harness died
                proc.wait()
                msg = f"exit code {proc.returncode}; stderr: {_tail(err_path)}"
                if started:
                    outcomes[pending.pop(0)] = {"status": "crashed", "message": msg}
                else:
                    outcomes[STARTUP] = {"status": "not started", "message": msg}
                for pid in pending:
                    outcomes[pid] = {"status": "not run", "why": "the harness crashed"}
                break
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if rec.get("event") == "ready":
                started, wait = True, timeout
            elif rec.get("event") == "error":
                outcomes[STARTUP] = {"status": "not started", "message": rec.get("message", "")}
                for pid in pending:
                    outcomes[pid] = {"status": "not run", "why": "the harness did not start"}
                pending = []
            elif rec.get("event") == "program" and rec.get("id") in pending:
                pending.remove(rec["id"])
                rec.setdefault("seconds", time.perf_counter() - began)
                outcomes[rec["id"]] = rec
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    finally:
        with contextlib.suppress(OSError):
            err_path.unlink()
    return outcomes


def _judge(plan: _Plan, outcomes: dict[str, dict]) -> None:
    report, spec = plan.report, plan.spec
    if STARTUP in outcomes:
        report.reasons.append(f"the harness did not start: {outcomes[STARTUP]['message']}")
        for check in [*report.bad, report.fixed, report.autofix]:
            if check is not None and not check.detail.startswith("not offered"):
                check.ok, check.detail = False, "not run"
        return
    oracle, why = oracle_value(outcomes["oracle"])
    if why:
        report.reasons.append(why)
    for check, b in zip(report.bad, spec.bad, strict=True):
        v = judge_bad(b, outcomes[f"bad:{b.file}"], oracle, spec.rtol, spec.atol)
        check.ok, check.detail = v.ok and check.flagged is True, v.detail
        if not v.ok:
            report.reasons.append(f"{b.file}: {v.detail}")
    v = judge_good(outcomes["fixed"], oracle, spec.rtol, spec.atol)
    assert report.fixed is not None
    report.fixed.ok, report.fixed.detail = v.ok and report.fixed.flagged is False, v.detail
    if not v.ok:
        report.reasons.append(f"{spec.fixed}: {v.detail}")
    if plan.autofix_pending and report.autofix is not None:
        v = judge_good(outcomes["autofix"], oracle, spec.rtol, spec.atol)
        report.autofix.ok = v.ok
        report.autofix.detail = f"{v.detail} ({report.autofix.detail})" if v.ok else v.detail
        if not v.ok:
            report.reasons.append(f"autofixed {spec.autofix.source}: {v.detail}")


def _finish(plan: _Plan, outcomes: dict[str, dict], run_seconds: float) -> RuleReport:
    _judge(plan, outcomes)
    report = plan.report
    report.seconds = plan.static_seconds + run_seconds
    report.confirmed = not report.reasons
    return report


def _timed(*args) -> tuple[dict[str, dict], float]:
    """run_programs and its own duration (not the time spent waiting for a free job slot)."""
    start = time.perf_counter()
    outcomes = run_programs(*args)
    return outcomes, time.perf_counter() - start


def installed_jax() -> tuple[str | None, str | None]:
    """The installed jax and jaxlib versions, read from their metadata (jax is not imported)."""
    from importlib.metadata import PackageNotFoundError, version

    out: list[str | None] = []
    for name in ("jax", "jaxlib"):
        try:
            out.append(version(name))
        except PackageNotFoundError:
            out.append(None)
    return out[0], out[1]


def _version_key(text: str) -> tuple[int, ...]:
    import re

    m = re.match(r"\d+(?:\.\d+)*", text)
    parts = tuple(int(p) for p in m.group(0).split(".")[:3]) if m else (0,)
    return parts + (0,) * (3 - len(parts))


def too_old(spec: Spec, jax_version: str | None) -> str:
    """Why this jax cannot run the spec's programs as written, or ""."""
    if spec.requires_jax is None or jax_version is None:
        return ""
    if _version_key(jax_version) >= _version_key(spec.requires_jax):
        return ""
    return f"needs jax >= {spec.requires_jax} (installed: {jax_version}): {spec.requires_jax_why}"


def verify_rules(
    rules: Sequence[type[Rule]],
    root: Path | None = None,
    jobs: int | None = None,
    timeout: float = 120.0,
    python: str = sys.executable,
    on_report: Callable[[RuleReport], None] | None = None,
    jax_version: str | None = None,
) -> list[RuleReport]:
    """Verify each rule against ``root/<CODE>/``; reports in the order of ``rules``, each
    also handed to ``on_report`` as soon as it and every rule before it are done. A rule
    whose spec needs a newer jax than ``jax_version`` (default: the installed one) is
    skipped, saying why."""
    root = Path(root) if root is not None else fixtures_root()
    jobs = jobs or os.cpu_count() or 1
    jax_version = jax_version or installed_jax()[0]
    reports: list[RuleReport] = []
    futures: list[tuple[_Plan | RuleReport, Future[tuple[dict[str, dict[str, Any]], float]] | None]] = []
    with tempfile.TemporaryDirectory(prefix="jaxlint-verify-") as tmp, ThreadPoolExecutor(max_workers=jobs) as pool:
        for rule in rules:
            start = time.perf_counter()
            report = RuleReport(rule.code, rule.name)
            reports.append(report)
            spec_path = root / rule.code / "spec.toml"
            if not spec_path.is_file():
                where = f"fixtures/{rule.code}/spec.toml" if root == fixtures_root() else str(spec_path)
                report.reasons.append(f"no runtime reference ({where} is missing)")
                futures.append((report, None))
                continue
            try:
                spec = load_spec(spec_path)
            except SpecError as e:
                report.reasons.append(str(e))
                futures.append((report, None))
                continue
            report.skipped = too_old(spec, jax_version)
            if report.skipped:
                futures.append((report, None))
                continue
            plan = _static(rule, spec, Path(tmp), report)
            plan.static_seconds = time.perf_counter() - start
            fut = pool.submit(_timed, plan.programs, spec.devices, timeout, spec.directory, python)
            futures.append((plan, fut))
        for item, pending in futures:
            if isinstance(item, _Plan):
                assert pending is not None  # a plan is always submitted
                done = _finish(item, *pending.result())
            else:
                done = item
            if on_report is not None:
                on_report(done)
    return reports


__all__ = ["Check", "RuleReport", "fixtures_root", "lint_with", "run_programs", "verify_rules"]
