"""Plain records shared by every layer: positions, edits, fixes, diagnostics.

Reporters and the cache see only these; they never see LibCST nodes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Applicability = Literal["safe", "unsafe"]


@dataclass(frozen=True, slots=True, order=True)
class Position:
    """A 1-based line and a 1-based column (in characters)."""

    line: int
    column: int


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text between ``start`` (inclusive) and ``end`` (exclusive)."""

    start: Position
    end: Position
    content: str
    cell: int | None = None  # in a notebook: the cell the positions count in


@dataclass(frozen=True, slots=True)
class Fix:
    message: str
    edits: tuple[Edit, ...]
    applicability: Applicability = "safe"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    path: str
    code: str
    name: str
    message: str
    start: Position
    end: Position
    fix: Fix | None = None
    preview: bool = False
    help: str = ""
    # in a notebook: start/end count in this cell (1-based over all cells, as ruff counts),
    # and file_start/file_end are the same places in the JSON text (for CI formats)
    cell: int | None = None
    file_start: Position | None = None
    file_end: Position | None = None
    # what the headline (``message``, one short line) rests on: the values, the call, what
    # JAX raises; shown under it by the full format, and beside it in JSON/SARIF/GitHub
    note: str = ""

    def sort_key(self) -> tuple[Any, ...]:
        return (self.path, self.cell or 0, self.start.line, self.start.column, self.code, self.message)


@dataclass(slots=True)
class Pending:
    """A finding whose verdict needs project-wide facts (decided after every file is read).

    ``data`` must be plain data (cached as JSON by ``jaxlint.base.records``); the rule's ``resolve`` reads it.
    """

    code: str
    path: str
    start: Position
    end: Position
    data: dict[str, Any] = field(default_factory=dict)
    fix: Fix | None = None


@dataclass(slots=True)
class FileResult:
    """What linting one file produced, before project-wide resolution and suppressions."""

    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    pending: list[Pending] = field(default_factory=list)
    facts: Any = None  # jaxlint.model.facts.ModuleFacts
    suppressions: Any = None  # jaxlint.lint.suppress.Suppressions
    internal_error: str | None = None
    rule_errors: list[str] = field(default_factory=list)  # "JAX101 (name): Type: message": a rule's bug
    prefilter: str = ""  # no rule wanted the file: "syntax" (only parsed) or "skipped" (not even that)
    # the project modules the semantic model read for this file: (path, digest), see jaxlint.lint.imports
    deps: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class RunResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    errors: list[str] = field(default_factory=list)  # "path: message" for internal errors
    fixed: dict[str, int] = field(default_factory=dict)  # path -> number of fixes applied
    diffs: dict[str, tuple[str, str]] = field(default_factory=dict)  # path -> (old, new)
    unparsable_fix: list[str] = field(default_factory=list)
    prefiltered: int = 0  # files no enabled rule's trigger word occurs in (see FileResult.prefilter)
    warnings: list[str] = field(default_factory=list)  # "path: message": e.g. a fix not written

    @classmethod
    def from_cache(cls, hit: tuple[object, ...], files: int) -> RunResult:
        """A whole run's cached answer: (diagnostics, files the pre-filter skipped[, warnings])."""
        diags = [d for d in hit[0] if isinstance(d, Diagnostic)] if isinstance(hit[0], list) else []
        prefiltered = hit[1]
        warnings = hit[2] if len(hit) > 2 and isinstance(hit[2], list) else []
        return cls(
            diags,
            files,
            [],
            prefiltered=prefiltered if isinstance(prefiltered, int) else 0,
            warnings=[w for w in warnings if isinstance(w, str)],
        )
