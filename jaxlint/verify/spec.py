"""Load and validate ``fixtures/<CODE>/spec.toml`` (format: docs/writing-rules.md).

Every error names the spec file and the offending key, because the people who read
them are rule authors fixing a typo.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-6
OUTCOMES = ("raises", "wrong")
_TOP_KEYS = {"devices", "rtol", "atol", "bad", "fixed", "autofix", "oracle", "requires-jax", "requires-jax-why"}
_BAD_KEYS = {"file", "outcome", "exception", "match"}
_FIXED_KEYS = {"file"}
_AUTOFIX_KEYS = {"source", "expected", "reason"}


class SpecError(Exception):
    """A malformed spec: the message is ``<path>: <key>: <what is wrong>``."""


@dataclass(frozen=True)
class BadProgram:
    file: str
    outcome: str  # "raises" | "wrong"
    exception: str | None = None
    match: str = ""


@dataclass(frozen=True)
class Autofix:
    source: str
    expected: bool = True
    reason: str = ""


@dataclass(frozen=True)
class Spec:
    path: Path  # the spec.toml
    devices: int
    rtol: float
    atol: float
    bad: tuple[BadProgram, ...]
    fixed: str
    autofix: Autofix  # always present: defaults to the first bad program
    autofix_declared: bool  # whether spec.toml has an [autofix] table
    oracle_file: Path | None = None  # oracle.py beside the spec
    oracle_literal: Any = field(default=None)  # `oracle = ...` when there is no oracle.py
    requires_jax: str | None = None  # the oldest jax whose behaviour the programs expect
    requires_jax_why: str = ""

    @property
    def directory(self) -> Path:
        return self.path.parent

    def program(self, name: str) -> Path:
        return self.directory / name


def _err(path: Path, key: str, message: str) -> SpecError:
    return SpecError(f"{path}: {key}: {message}")


def _unknown(path: Path, table: dict, allowed: set[str], where: str) -> None:
    for k in table:
        if k not in allowed:
            name = f"{where}.{k}" if where else k
            raise _err(path, name, f"unknown key (expected one of: {', '.join(sorted(allowed))})")


def _number(path: Path, data: dict, key: str, default: float) -> float:
    v = data.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
        raise _err(path, key, f"must be a non-negative number, got {v!r}")
    return float(v)


def _file(path: Path, table: dict, key: str, where: str) -> str:
    v = table.get("file")
    if not isinstance(v, str) or not v:
        raise _err(path, f"{where}.file", "missing or not a string")
    if not (path.parent / v).is_file():
        raise _err(path, f"{where}.file", f"{v!r} does not exist beside the spec")
    return v


def _bad(path: Path, i: int, table: Any) -> BadProgram:
    where = f"bad[{i}]"
    if not isinstance(table, dict):
        raise _err(path, where, "must be a table ([[bad]])")
    _unknown(path, table, _BAD_KEYS, where)
    file = _file(path, table, "file", where)
    outcome = table.get("outcome")
    if outcome not in OUTCOMES:
        raise _err(path, f"{where}.outcome", f'must be "raises" or "wrong", got {outcome!r}')
    exception = table.get("exception")
    match = table.get("match", "")
    if outcome == "raises":
        if not isinstance(exception, str) or not re.fullmatch(r"[A-Za-z_][\w.]*", exception):
            raise _err(path, f"{where}.exception", f'outcome "raises" needs an exception class name, got {exception!r}')
    elif exception is not None or "match" in table:
        key = "exception" if exception is not None else "match"
        raise _err(path, f"{where}.{key}", 'only meaningful with outcome = "raises"')
    if not isinstance(match, str):
        raise _err(path, f"{where}.match", f"must be a string, got {match!r}")
    try:
        re.compile(match)
    except re.error as e:
        raise _err(path, f"{where}.match", f"invalid regular expression: {e}") from None
    return BadProgram(file, outcome, exception, match)


def load_spec(path: Path) -> Spec:
    """Parse ``spec.toml`` at ``path``; raise SpecError naming the file and key."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise SpecError(f"{path}: cannot read: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{path}: invalid TOML: {e}") from None
    _unknown(path, data, _TOP_KEYS, "")
    devices = data.get("devices", 1)
    if isinstance(devices, bool) or not isinstance(devices, int) or devices < 1:
        raise _err(path, "devices", f"must be a positive integer, got {devices!r}")
    rtol = _number(path, data, "rtol", DEFAULT_RTOL)
    atol = _number(path, data, "atol", DEFAULT_ATOL)

    raw_bad = data.get("bad")
    if not isinstance(raw_bad, list) or not raw_bad:
        raise _err(path, "bad", "at least one [[bad]] program is required")
    bad = tuple(_bad(path, i, t) for i, t in enumerate(raw_bad))
    seen: set[str] = set()
    for i, b in enumerate(bad):
        if b.file in seen:
            raise _err(path, f"bad[{i}].file", f"{b.file!r} is listed twice")
        seen.add(b.file)

    raw_fixed = data.get("fixed")
    if not isinstance(raw_fixed, dict):
        raise _err(path, "fixed", "a [fixed] table with `file` is required")
    _unknown(path, raw_fixed, _FIXED_KEYS, "fixed")
    fixed = _file(path, raw_fixed, "file", "fixed")
    if fixed in seen:
        raise _err(path, "fixed.file", f"{fixed!r} is also a [[bad]] program")

    raw_auto = data.get("autofix")
    declared = raw_auto is not None
    if raw_auto is None:
        raw_auto = {}
    if not isinstance(raw_auto, dict):
        raise _err(path, "autofix", "must be a table ([autofix])")
    _unknown(path, raw_auto, _AUTOFIX_KEYS, "autofix")
    source = raw_auto.get("source", bad[0].file)
    if not isinstance(source, str) or source not in {b.file for b in bad}:
        raise _err(path, "autofix.source", f"must name one of the [[bad]] files, got {source!r}")
    expected = raw_auto.get("expected", True)
    if not isinstance(expected, bool):
        raise _err(path, "autofix.expected", f"must be true or false, got {expected!r}")
    reason = raw_auto.get("reason", "")
    if not isinstance(reason, str) or (not expected and not reason.strip()):
        raise _err(path, "autofix.reason", "expected = false needs a reason (a non-empty string)")

    requires = data.get("requires-jax")
    if requires is not None and not (isinstance(requires, str) and re.fullmatch(r"\d+(\.\d+){0,2}", requires)):
        raise _err(path, "requires-jax", f'must be a version such as "0.8.0", got {requires!r}')
    why = data.get("requires-jax-why", "")
    if not isinstance(why, str) or (requires is not None and not why.strip()):
        raise _err(path, "requires-jax-why", "requires-jax needs a reason (a non-empty string)")

    oracle_file = path.parent / "oracle.py"
    has_file = oracle_file.is_file()
    if has_file and "oracle" in data:
        raise _err(path, "oracle", "both oracle.py and an `oracle` literal: keep one")
    if not has_file and "oracle" not in data:
        raise _err(path, "oracle", "no oracle: add oracle.py (assigning ORACLE) or an `oracle = ...` literal")
    return Spec(
        path=path,
        devices=devices,
        rtol=rtol,
        atol=atol,
        bad=bad,
        fixed=fixed,
        autofix=Autofix(source, expected, reason),
        autofix_declared=declared,
        oracle_file=oracle_file if has_file else None,
        oracle_literal=data.get("oracle"),
        requires_jax=requires,
        requires_jax_why=why,
    )
