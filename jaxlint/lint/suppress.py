"""Suppression comments, and JAX002 for the ones that suppress nothing.

- ``# noqa`` / ``# noqa: JAX201, JAX301`` at the end of the reported line;
- ``# jaxlint: ignore[JAX201]`` on its own line: the next statement, all of its lines;
- ``# jaxlint: noqa`` / ``# jaxlint: noqa: JAX201`` on its own line: the whole file.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from jaxlint.base.types import Diagnostic, Edit, Fix, Position

_CODE = r"[A-Z]+[0-9]+"
_NOQA = re.compile(rf"#\s*noqa(?::\s*(?P<codes>{_CODE}(?:\s*,\s*{_CODE}|\s+{_CODE})*))?(?![\w:])", re.IGNORECASE)
_IGNORE = re.compile(rf"^\s*#\s*jaxlint:\s*ignore\[(?P<codes>{_CODE}(?:\s*,\s*{_CODE})*)\]\s*$")
_FILE = re.compile(rf"^\s*#\s*jaxlint:\s*noqa(?::\s*(?P<codes>{_CODE}(?:\s*,\s*{_CODE})*))?\s*$")


def _codes(text: str | None) -> frozenset[str] | None:
    if not text:
        return None
    return frozenset(c.upper() for c in re.split(r"[,\s]+", text.strip()) if c)


@dataclass(slots=True)
class Comment:
    line: int
    start: int  # 1-based column of '#'
    end: int  # 1-based column just past the comment
    codes: frozenset[str] | None  # None = every code
    kind: str  # "noqa" | "ignore" | "file"
    first: int = 0  # lines covered (for "ignore": the next statement)
    last: int = 0
    used: set[str] = field(default_factory=set)


@dataclass(slots=True)
class Suppressions:
    comments: list[Comment] = field(default_factory=list)

    @property
    def needs_statement_ranges(self) -> bool:
        return any(c.kind == "ignore" for c in self.comments)


def scan_suppressions(source: str) -> Suppressions:
    out = Suppressions()
    if "noqa" not in source and "jaxlint:" not in source:
        return out
    for i, line in enumerate(re.split(r"\r\n|\r|\n", source), start=1):
        if "#" not in line:
            continue
        m = _FILE.match(line)
        if m:
            out.comments.append(Comment(i, line.index("#") + 1, len(line) + 1, _codes(m.group("codes")), "file"))
            continue
        m = _IGNORE.match(line)
        if m:
            out.comments.append(
                Comment(i, line.index("#") + 1, len(line) + 1, _codes(m.group("codes")), "ignore", i + 1, i + 1)
            )
            continue
        m = _NOQA.search(line)
        if m and "#" in line[: m.start() + 1]:
            out.comments.append(Comment(i, m.start() + 1, m.end() + 1, _codes(m.group("codes")), "noqa", i, i))
    return out


def apply(
    diagnostics: list[Diagnostic],
    supp: Suppressions | None,
    path: str,
    enabled: frozenset[str],
    source_lines: list[str] | None = None,
) -> list[Diagnostic]:
    """Drop suppressed diagnostics; add JAX002 for suppression codes that matched nothing."""
    if supp is None or not supp.comments:
        return diagnostics
    kept: list[Diagnostic] = []
    covering = _covering(supp.comments)
    for d in diagnostics:
        suppressed = False
        for c in covering(d.start.line):
            if c.codes is not None and d.code not in c.codes:
                continue
            c.used.add(d.code)
            suppressed = True
        if not suppressed:
            kept.append(d)
    if "JAX002" in enabled:
        for c in supp.comments:
            if c.codes is None:
                continue  # a bare noqa is shared with other tools
            unused = sorted(code for code in c.codes if code in enabled and code not in c.used)
            if not unused:
                continue
            kept.append(_unused(path, c, unused, source_lines))
    return kept


def _covering(comments: list[Comment]):
    """``line -> the comments that cover it``, found by line (not by trying every comment:
    thousands of comments and findings made that quadratic). Statement ranges nest or are
    disjoint, so the ranges holding a line are one chain of enclosing ranges."""
    whole = [c for c in comments if c.kind == "file"]
    by_range: dict[tuple[int, int], list[Comment]] = {}
    for c in comments:
        if c.kind != "file":
            by_range.setdefault((c.first, c.last), []).append(c)
    ranges = sorted(by_range, key=lambda r: (r[0], -r[1]))
    starts = [r[0] for r in ranges]
    parent: list[int] = []  # index of the nearest earlier range that encloses it, or -1
    open_: list[int] = []
    nested = True
    for i, (first, last) in enumerate(ranges):
        while open_ and ranges[open_[-1]][1] < last:
            nested = nested and ranges[open_.pop()][1] < first
        parent.append(open_[-1] if open_ else -1)
        open_.append(i)

    def covering(line: int) -> list[Comment]:
        out = list(whole)
        if not nested:  # ranges that overlap without nesting: try each
            return out + [c for r in ranges if r[0] <= line <= r[1] for c in by_range[r]]
        i = bisect.bisect_right(starts, line) - 1
        while i >= 0 and ranges[i][1] < line:
            i = parent[i]
        while i >= 0:
            out.extend(by_range[ranges[i]])
            i = parent[i]
        return out

    return covering


def _unused(path: str, c: Comment, unused: list[str], lines: list[str] | None) -> Diagnostic:
    start, end = Position(c.line, c.start), Position(c.line, c.end)
    codes = ", ".join(unused)
    fix = None
    if c.codes is not None and set(unused) == set(c.codes):
        # remove the whole comment (and the line, for own-line comments)
        if c.kind in ("ignore", "file"):
            edit = Edit(Position(c.line, 1), Position(c.line + 1, 1), "")
        else:
            col = c.start
            if lines is not None and c.line - 1 < len(lines):
                text = lines[c.line - 1]
                while col > 1 and text[col - 2] in " \t":
                    col -= 1
            edit = Edit(Position(c.line, col), end, "")
        fix = Fix("Remove the unused suppression", (edit,), "safe")
    kind = {"noqa": "`# noqa`", "ignore": "`# jaxlint: ignore`", "file": "`# jaxlint: noqa`"}[c.kind]
    return Diagnostic(
        path,
        "JAX002",
        "unused-suppression",
        f"Unused {kind} for {codes}: nothing on {'this file' if c.kind == 'file' else 'the suppressed lines'} is reported with {'this code' if len(unused) == 1 else 'these codes'}",
        start,
        end,
        fix,
        False,
        "Remove the suppression comment",
    )
