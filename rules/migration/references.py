"""Attribute references to a catalogue entry (``jax.tree_map(...)``, ``J.host_id``) and
their fixes: a rename spelled through the file's imports, or a call rewrite (``rewrites``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jaxlint.lint.rule import NodeEdit, RuleFix

from . import rewrites
from .table import BY_OLD, LAST_NAMES, Entry

if TYPE_CHECKING:
    from .analysis import MigrationRule


def entries_for(qualified: str | None) -> list[Entry]:
    if qualified is None:
        return []
    return [e for e in BY_OLD.get(qualified, ()) if not e.imports_only]


def visit_attribute(rule: MigrationRule, node: cst.Attribute) -> None:
    if node.attr.value not in LAST_NAMES:
        return
    ctx = rule.ctx
    parent = ctx.parent(node)
    if isinstance(parent, (cst.Import, cst.ImportFrom, cst.ImportAlias)):
        return
    qualified_of = rule.importer.qualified
    if isinstance(parent, cst.Attribute) and parent.value is node and entries_for(qualified_of(parent)):
        return  # the longer name is the finding
    for entry in entries_for(qualified_of(node)):
        if not rule.wants(entry) or rule.in_shim(node):
            continue
        fix = reference_fix(rule, node, entry)
        head, note = rule.message(ctx.code(node), entry)
        rule.report(node, head, fix=fix, note=note)
        return


def reference_fix(rule: MigrationRule, node: cst.Attribute, entry: Entry) -> RuleFix | None:
    if entry.fix is None:
        return None
    ctx = rule.ctx
    if entry.kind in ("rename", "module"):
        if entry.only == "annotation" and not any(isinstance(a, cst.Annotation) for a in ctx.ancestors(node)):
            return None
        if entry.only == "with":
            call = ctx.parent(node)
            if not (isinstance(call, cst.Call) and call.func is node and isinstance(ctx.parent(call), cst.WithItem)):
                return None
        new = rule.replacement(entry)
        if not new:
            return None
        spelled = rule.spell(new, node)
        if spelled is None:
            return None
        text, inserts = spelled
        fix = RuleFix(f"Replace with `{text}`", [NodeEdit(node, text), *inserts], entry.fix)
        return rule.gated(fix, entry, new)
    if entry.kind == "call" and entry.rewrite:
        return rewrites.REWRITES[entry.rewrite](rule, node, entry)
    return None
