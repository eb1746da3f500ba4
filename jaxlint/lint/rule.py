"""The Rule base class: identity, documentation, examples, triggers, and report().

A rule is a visitor over the LibCST tree. The engine calls ``visit_<Node>`` and
``leave_<Node>`` methods in one batched walk shared by every rule, then ``finish()``.
Findings that need facts from other modules are recorded with ``pending()`` and decided
in the classmethod ``resolve()`` once every file of the project has been read.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import libcst as cst

from jaxlint.base.types import Applicability, Pending
from jaxlint.model.expected import runs_where_expected
from jaxlint.plan.needs import derive

if TYPE_CHECKING:
    from jaxlint.model.context import FileContext
    from jaxlint.model.project import Project
    from jaxlint.plan.outline import Outline

DOC_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety", "Options", "References")
REQUIRED_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "References")


@dataclass(frozen=True)
class Invalid:
    """An INVALID example: ``code`` must be reported (on ``line``, if given).

    ``fixed`` is the expected source after applying the rule's fix (safe or unsafe).
    """

    code: str
    fixed: str | None = None
    line: int | None = None
    message: str | None = None  # a substring the message must contain


@dataclass(slots=True)
class NodeEdit:
    """Replace ``node`` (or the span from ``node`` to ``end_node``) with ``content``.

    ``where`` = "replace" | "before" | "after" (insert at the start / end of the span).
    """

    node: cst.CSTNode
    content: str
    end_node: cst.CSTNode | None = None
    where: str = "replace"


@dataclass(slots=True)
class LineInsert:
    """Insert ``content`` at the start of 1-based ``line`` (used to add imports)."""

    line: int
    content: str


@dataclass(slots=True)
class RuleFix:
    message: str
    edits: list[NodeEdit | LineInsert]
    applicability: Applicability = "safe"


@dataclass(slots=True)
class Report:
    node: cst.CSTNode
    message: str
    fix: RuleFix | None = None
    pending_data: dict[str, Any] | None = None
    code: str = ""
    note: str = ""


class Rule:
    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    status: ClassVar[Literal["stable", "preview"]] = "stable"
    fix_availability: ClassVar[Literal["none", "safe", "unsafe", "sometimes"]] = "none"
    VALID: ClassVar[tuple[str, ...]] = ()
    INVALID: ClassVar[tuple[tuple[str, Invalid], ...]] = ()
    default_options: ClassVar[dict[str, Any]] = {}
    help: ClassVar[str] = ""  # one line: what to do about it
    # What the rule declares for the pre-filter and the slicer (jaxlint/plan/needs.py):
    # the JAX APIs it is about ("jax.vmap", ".defvjp", "jax.random.*"); None: whole files
    about: ClassVar[tuple[str, ...] | None] = None
    # what its analysis reads besides the units naming them (jaxlint.plan.needs.READS)
    reads: ClassVar[str | tuple[str, ...]] = "targets"
    # words of files it needs that name none of its APIs (where a looked-up def may live)
    context_words: ClassVar[tuple[str, ...]] = ()

    # The knobs, derived from the above (jaxlint/plan/needs.py); a rule may set ``triggers``
    # or ``anchors`` by hand, as a narrower exception with its reason (the others: TypeError).
    # Words one of which must occur in a file for the rule to run on it; (): every file.
    triggers: ClassVar[tuple[str, ...]] = ()
    # Names a def must mention for this rule to find anything in it or through it
    # (see jaxlint/plan/slicing.py); None: the rule reads whole files.
    anchors: ClassVar[frozenset[str] | None] = None
    # anchors that are methods (``f.defvjp``): any receiver counts, not only jax
    method_anchors: ClassVar[frozenset[str]] = frozenset()
    # the top-level packages of the APIs (``jax``): where an anchor's import must lead
    packages: ClassVar[frozenset[str]] = frozenset({"jax"})
    # who refers to a seed: "" nobody, "direct" units of the same module that refer to a
    # seed, "all" every unit that refers to a seed or to such a unit, in any module
    callers: ClassVar[str] = ""
    # transforms (last names) whose applications, in the same module, to a def a seed
    # names the rule reads (JAX405 reads ``jit(f, static_argnums=...)`` of a grad target)
    target_transforms: ClassVar[frozenset[str]] = frozenset()
    # False: the rule reads nothing outside a seed's own unit and module-level code
    follows_references: ClassVar[bool] = True
    # True: the engine records the call paths' uses of every file the rule reads (model/calls.py)
    call_paths: ClassVar[bool] = False
    # True: the slicer keeps, and the engine records, the defs that forward ``*args`` (model/forwarding.py)
    forwarders: ClassVar[bool] = False
    # True: the slicer keeps the defs of a target's module that the target calls (plan/needs.py)
    target_callees: ClassVar[bool] = False
    # True: also units that name what another module binds around an anchor (jaxlint/api.py, promotion)
    project_anchors: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        derive(cls)

    def __init__(self, ctx: FileContext, options: dict[str, Any] | None = None) -> None:
        self.ctx = ctx
        self.options = {**self.default_options, **(options or {})}
        self.reports: list[Report] = []

    # code that expects the error ---------------------------------------------------
    # True: a finding (or candidate) is dropped where the code runs only where the error it
    # predicts is expected (``with self.assertRaises(...)``, ``pytest.raises(Err, f)``, a def
    # used only there: jaxlint/model/expected.py, ``runs_where_expected``)
    quiet_where_expected: ClassVar[bool] = False

    def _expected(self, node: cst.CSTNode) -> bool:
        return self.quiet_where_expected and runs_where_expected(self.ctx, node)

    # reporting -------------------------------------------------------------------
    def report(self, node: cst.CSTNode, message: str, *, fix: RuleFix | None = None, note: str = "") -> None:
        """Report ``message`` (a headline of at most 120 characters) at ``node``; ``note``:
        the explanation under it (the values it rests on, what JAX raises)."""
        if self._expected(node):
            return
        self.reports.append(Report(node, message, fix, None, self.code, note))

    def pending(self, node: cst.CSTNode, data: dict[str, Any], *, fix: RuleFix | None = None) -> None:
        """Record a candidate whose verdict ``resolve`` gives after every file is read."""
        if self._expected(node):
            return
        self.reports.append(Report(node, "", fix, data, self.code))

    def finish(self) -> None:
        """Called after the walk; two-phase rules decide here."""

    @classmethod
    def resolve(
        cls, items: list[Pending], project: Project
    ) -> Iterable[tuple[Pending, str] | tuple[Pending, str, str]]:
        """Decide pending candidates with project facts: yield (candidate, message) or
        (candidate, message, note)."""
        return ()

    @classmethod
    def seeds(cls, outline: Outline) -> set[int] | None:
        """Units of a file this rule must see (indices into ``outline.units``); None: all."""
        if cls.anchors is None:
            return None
        from jaxlint.plan.slicing import seeds_by_anchor

        return seeds_by_anchor(outline, cls.anchors, cls.method_anchors, cls.packages)

    # documentation -------------------------------------------------------------------
    @classmethod
    def doc_sections(cls) -> dict[str, str]:
        doc = inspect.cleandoc(cls.__doc__ or "")
        sections: dict[str, str] = {}
        current = None
        for line in doc.splitlines():
            m = re.match(r"^## (.+?)\s*$", line)
            if m:
                current = m.group(1)
                sections[current] = ""
            elif current is not None:
                sections[current] += line + "\n"
        return {k: v.strip() for k, v in sections.items()}

    @classmethod
    def documentation(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def is_preview(cls) -> bool:
        return cls.status == "preview"


def line_insert(line: int, content: str) -> LineInsert:
    return LineInsert(line, content)


def replace(node: cst.CSTNode, content: str) -> NodeEdit:
    return NodeEdit(node, content)


__all__ = ["Invalid", "LineInsert", "NodeEdit", "Rule", "RuleFix", "field", "line_insert", "replace"]
