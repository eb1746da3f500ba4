"""The judgement of JAX801 / JAX802: which catalogue entries a rule reports, how a finding
is worded, which fixes the project's jax allows, and where the old API is no finding.

Both rules walk the same nodes; ``MigrationRule.wants(entry)`` decides which of the two
reports an entry for the target version. What is reported where is read in one module
per kind of site: attribute references (``references``), call rewrites (``rewrites``),
keywords, positional arguments and config options (``arguments``), import statements
(``import_statements``) and ``with mesh:`` (``mesh``). Names are resolved and spelled by
the model's importer (``jaxlint.model.importer``), as written, without the engine's
``ALIASES``; version guards are the model's (``jaxlint.model.guards``).
"""

from __future__ import annotations

import libcst as cst

from jaxlint.lint.config import parse_version
from jaxlint.lint.rule import LineInsert, Rule, RuleFix
from jaxlint.lint.wording import worded
from jaxlint.model.expected import expects_warning
from jaxlint.model.guards import guarded
from jaxlint.model.importer import importer

from . import arguments, import_statements, mesh, references
from .table import LAZY_MODULES, Entry


def version(text: str | None) -> tuple[int, ...] | None:
    return parse_version(text) if text else None


class MigrationRule(Rule):
    """Base of JAX801/JAX802 (no code of its own, so the registry skips it)."""

    category = ""  # "removed" | "deprecated"
    anchors = frozenset()  # see seeds(): the catalogue decides which units may spell an entry
    reads = "statement"  # a finding is in the statement that spells the old API

    @classmethod
    def seeds(cls, outline):
        from .seeds import migration_seeds

        return migration_seeds(outline)

    def __init__(self, ctx, options=None) -> None:
        super().__init__(ctx, options)
        s = ctx.settings
        self.target = s.target_version if s is not None else parse_version("0.10.2")
        # the lowest jax the project declares (jaxlint.lint.requirements): replacements must exist there
        self.minimum_text = s.minimum_jax_version if s is not None else None
        self.minimum = s.minimum_version if s is not None else self.target
        self.importer = importer(ctx)

    # the sites, one module each ----------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> None:
        references.visit_attribute(self, node)

    def visit_Call(self, node: cst.Call) -> None:
        arguments.visit_call(self, node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        import_statements.visit_import_from(self, node)

    def visit_Import(self, node: cst.Import) -> None:
        import_statements.visit_import(self, node)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        mesh.visit_with_item(self, node)

    # which entries this rule reports -------------------------------------------------
    def wants(self, entry: Entry) -> bool:
        removed, deprecated = version(entry.removed), version(entry.deprecated)
        if self.category == "removed":
            return removed is not None and removed <= self.target
        return deprecated is not None and deprecated <= self.target and (removed is None or removed > self.target)

    def message(self, shown: str, entry: Entry, replacement: str | None = None) -> tuple[str, str]:
        """(headline, note): when the name went and what to use, if that fits a headline;
        the entry's explanation and what the project's jax requirement adds as the note."""
        head = self.when(f"`{shown}`", entry)
        replacement = replacement or self.replacement(entry)
        use = ""
        if replacement:
            use = f"use {replacement}" if "`" in replacement else f"use `{replacement}`"
        return worded(head, use, entry.note, self.project_clause(entry))

    def when(self, subject: str, entry: Entry) -> str:
        """``<subject> was removed in JAX x`` / ``<subject> is deprecated since JAX y``."""
        if self.category == "removed":
            text = f"{subject} was removed {'by' if entry.removed_by else 'in'} JAX {entry.removed}"
            return text + (f" (deprecated since {entry.deprecated})" if entry.deprecated else "")
        text = f"{subject} is deprecated since JAX {entry.deprecated}"
        return text + (f" and removed in {entry.removed}" if entry.removed else "")

    # the lowest jax the project allows ---------------------------------------------------
    def replacement(self, entry: Entry) -> str | None:
        """The replacement that exists in the lowest jax the code must run on (``alt`` for older ones)."""
        if entry.since and entry.alt and parse_version(entry.since) > self.minimum:
            return entry.alt
        return entry.replacement

    def missing_replacement(self, entry: Entry) -> tuple[str, bool] | None:
        """(version, exact) when the replacement a fix would use may not exist in the lowest
        jax the project allows; None when it does (or no requirement was inferred). Known
        from ``since`` (exact) or, failing that, the deprecation of the old name (the
        replacement existed by then)."""
        if self.minimum_text is None or entry.kind not in ("rename", "module") or not entry.replacement:
            return None
        if entry.since:
            known = (entry.since, True)
        elif entry.deprecated:
            known = (entry.deprecated, False)
        else:
            return None
        since = version(known[0])
        if since is None or since <= self.minimum:
            return None
        return known

    def project_clause(self, entry: Entry) -> str:
        """What the project's declared jax requirement adds to the message."""
        if self.minimum_text is None:
            return ""
        removed = version(entry.removed)
        if self.category == "removed" and removed is not None and removed <= self.minimum:
            return f"your project allows jax {self.minimum_text} and later, none of which has it"
        missing = self.missing_replacement(entry)
        if missing is None:
            return ""
        exists = (
            "does not exist yet: it was added in" if missing[1] else "may not exist yet: jaxlint knows it only from"
        )
        return f"your project allows jax {self.minimum_text}, where `{entry.replacement}` {exists} {missing[0]}"

    def gated(self, fix: RuleFix | None, entry: Entry, new: str | None) -> RuleFix | None:
        """A fix to a replacement the lowest allowed jax may lack is offered only as unsafe."""
        if fix is None or new != entry.replacement:
            return fix
        missing = self.missing_replacement(entry)
        if missing is None:
            return fix
        why = (
            f"`{new}` was added in jax {missing[0]}"
            if missing[1]
            else f"jaxlint knows `{new}` only from jax {missing[0]}"
        )
        return RuleFix(
            f"{fix.message} (unsafe: {why}, and your project allows jax {self.minimum_text})", fix.edits, "unsafe"
        )

    # shims and deliberate uses are not findings ---------------------------------------
    def in_shim(self, node: cst.CSTNode) -> bool:
        """Compatibility code (under a version guard: ``jaxlint.model.guards``), a name
        patched back in (``jax.tree_map = ...``, ``del``), or a deliberate use of the old API."""
        if guarded(self.ctx, node) or expects_warning(self.ctx, node):
            return True
        return any(isinstance(a, (cst.AssignTarget, cst.Del)) for a in self.ctx.ancestors(node))

    # spelling a replacement in this file ------------------------------------------------
    def spell(self, qualified: str, like: cst.BaseExpression | None = None) -> tuple[str, list[LineInsert]] | None:
        """How to write ``qualified`` here, and the imports to add (the importer's spelling,
        plus ``import <module>`` for a module that ``import jax`` does not load)."""
        spelled = self.importer.spell(qualified, like)
        if spelled is None:
            return None
        lazy = next((m for m in LAZY_MODULES if qualified == m or qualified.startswith(m + ".")), None)
        through = spelled.through
        if lazy and not (through == lazy or through.startswith(lazy + ".")) and lazy not in self.imported_modules():
            spelled = spelled.adding(self.importer.import_module(lazy))
        return spelled.text, [LineInsert(i.line, i.content) for i in spelled.imports]

    def imported_modules(self) -> set[str]:
        """Modules any import of this file loads, old names counted as their replacement."""
        out = self.importer.imported_modules()
        for name in list(out):
            entry = import_statements.module_entry(name)
            if entry is not None and entry.kind == "module" and entry.replacement:
                out.add(entry.replacement + name[len(entry.old) :])
        return out
