"""Import statements of a removed or moved module or name (``import jax.experimental.maps``,
``from jax import tree_map``) and their fixes: the new module, or the name moved to the
module that has it (the local name kept, so every use stays valid)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jaxlint.base.names import dotted
from jaxlint.lint.rule import NodeEdit, RuleFix

from .syntax import indent_of
from .table import BY_OLD, MODULES, Entry

if TYPE_CHECKING:
    from .analysis import MigrationRule


def module_entry(qualified: str) -> Entry | None:
    """The entry of a removed or moved module that is or contains ``qualified``."""
    parts = qualified.split(".")
    for i in range(len(parts), 1, -1):
        for e in BY_OLD.get(".".join(parts[:i]), ()):
            if e.kind == "module" or e.old in MODULES:
                return e
    return None


def visit_import_from(rule: MigrationRule, node: cst.ImportFrom) -> None:
    if isinstance(node.names, cst.ImportStar) or node.module is None or node.relative:
        return
    base = dotted(node.module) or ""
    if not base.startswith("jax"):
        return
    base_entry = module_entry(base)
    own = any(
        e.kind != "module" and not e.imports_only
        for a in node.names
        for e in BY_OLD.get(f"{base}.{dotted(a.name)}", ())
    )
    if base_entry is not None and not base_entry.imports_only and not own:
        if rule.wants(base_entry) and not rule.in_shim(node):
            fix = None
            if base_entry.kind == "module" and base_entry.fix == "safe" and base_entry.replacement:
                new = base_entry.replacement + base[len(base_entry.old) :]
                fix = RuleFix(f"Import from `{new}`", [NodeEdit(node.module, new)], "safe")
            fix = rule.gated(fix, base_entry, base_entry.replacement)
            head, note = rule.message(base, base_entry)
            rule.report(node, head, fix=fix, note=note)
        return
    for alias in node.names:
        name = dotted(alias.name) or ""
        qualified = f"{base}.{name}"
        entry = next((e for e in BY_OLD.get(qualified, ()) if not e.imports_only), base_entry)
        if entry is None or not rule.wants(entry) or rule.in_shim(node):
            continue
        shown = qualified if entry is not base_entry else base
        fix = rule.gated(_from_import_fix(rule, node, alias, entry), entry, entry.alt or entry.replacement)
        head, note = rule.message(shown, entry)
        rule.report(alias, head, fix=fix, note=note)


def _from_import_fix(
    rule: MigrationRule, node: cst.ImportFrom, alias: cst.ImportAlias | None, entry: Entry
) -> RuleFix | None:
    if entry.fix != "safe" or entry.only or entry.kind not in ("rename", "module") or alias is None:
        return None
    if node.module is None or isinstance(node.names, cst.ImportStar):  # visit_import_from skips both
        return None
    ctx = rule.ctx
    base = dotted(node.module) or ""
    name = dotted(alias.name) or ""
    qualified = f"{base}.{name}"
    new = entry.alt or entry.replacement
    if not new or (not new.startswith("jax.") and not new.startswith(("functools.", "math."))):
        return None
    new = new + qualified[len(entry.old) :]
    if "." not in new:
        return None
    new_base, new_name = new.rsplit(".", 1)
    local = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) else name
    spelled_alias = new_name if new_name == local else f"{new_name} as {local}"
    if new_base == base:
        comma = ctx.code(alias.comma) if isinstance(alias.comma, cst.Comma) else ""
        return RuleFix(f"Import `{spelled_alias}`", [NodeEdit(alias, spelled_alias + comma)], "safe")
    statement = f"from {new_base} import {spelled_alias}"
    if len(node.names) == 1:
        return RuleFix(f"Replace with `{statement}`", [NodeEdit(node, statement)], "safe")
    line = ctx.parent(node)
    if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
        return None
    rest = [a for a in node.names if a is not alias]
    if not node.lpar:
        rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    kept = ctx.code(node.with_changes(names=rest))
    return RuleFix(
        f"Move `{name}` to `{statement}`", [NodeEdit(node, f"{kept}\n{indent_of(ctx, node)}{statement}")], "safe"
    )


def visit_import(rule: MigrationRule, node: cst.Import) -> None:
    for alias in node.names:
        name = dotted(alias.name) or ""
        if not name.startswith("jax"):
            continue
        entry = module_entry(name)
        if entry is None or not rule.wants(entry) or rule.in_shim(node):
            continue
        fix = None
        if entry.kind == "module" and entry.fix == "safe":
            if entry.imports_only:
                if alias.asname is None:
                    fix = RuleFix("Import `jax`", [NodeEdit(alias.name, "jax")], "safe")
            elif entry.replacement:
                new = entry.replacement + name[len(entry.old) :]
                fix = rule.gated(
                    RuleFix(f"Import `{new}`", [NodeEdit(alias.name, new)], "safe"), entry, entry.replacement
                )
        head, note = rule.message(name, entry)
        rule.report(alias, head, fix=fix, note=note)
