"""Calls whose arguments the target jax no longer accepts: removed or renamed keywords,
keywords that became positional, too many positional arguments, and removed config
options in ``jax.config.update(name, ...)``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jaxlint.base.names import last_name
from jaxlint.base.types import Applicability
from jaxlint.lint.rule import NodeEdit, RuleFix
from jaxlint.lint.wording import worded
from jaxlint.model import program
from jaxlint.model.abstract import constant

from .syntax import call_text, is_simple
from .table import CALL_NAMES, CONFIG, KEYWORDS, POSITIONAL, Entry

if TYPE_CHECKING:
    from .analysis import MigrationRule

_NAME_FUEL = 500  # what evaluating a config option's name may cost (a string, a constant)


def visit_call(rule: MigrationRule, node: cst.Call) -> None:
    func = node.func
    last = last_name(func)
    qualified_of = rule.importer.qualified
    if last == "partial" and node.args and node.args[0].keyword is None and node.args[0].star == "":
        if qualified_of(func) == "functools.partial":
            inner = qualified_of(node.args[0].value)
            if inner in KEYWORDS:
                _check_keywords(rule, node, inner, list(node.args[1:]), partial=True)
        return
    if last == "update" and node.args and CONFIG:
        _check_config(rule, node)
        return
    if last not in CALL_NAMES:
        return
    qualified = qualified_of(func)
    if qualified in KEYWORDS:
        _check_keywords(rule, node, qualified, list(node.args), partial=False)
    if qualified in POSITIONAL:
        _check_positional(rule, node, qualified)


def _check_config(rule: MigrationRule, node: cst.Call) -> None:
    if rule.importer.qualified(node.func) != "jax.config.update":
        return
    ev = program(rule.ctx).evaluator
    with ev.query(_NAME_FUEL):
        name = constant(ev.value(node.args[0].value, None))
    entry = CONFIG.get(name) if isinstance(name, str) else None
    if entry is None or not rule.wants(entry) or rule.in_shim(node):
        return
    what = "removed" if rule.category == "removed" else "deprecated"
    by = "by" if entry.removed_by else "in"
    when = f"{by} JAX {entry.removed}" if rule.category == "removed" else f"since JAX {entry.deprecated}"
    head, note = worded(f"The config option '{name}' was {what} {when}", entry.note)
    rule.report(node, head, note=note)


def _check_keywords(rule: MigrationRule, node: cst.Call, qualified: str, args: list[cst.Arg], partial: bool) -> None:
    present = {a.keyword.value for a in node.args if a.keyword is not None}
    for entry in KEYWORDS[qualified]:
        arg = next((a for a in args if a.keyword is not None and a.keyword.value == entry.keyword), None)
        if arg is None or not rule.wants(entry) or rule.in_shim(node):
            continue
        short = rule.ctx.code(node.args[0].value if partial else node.func).strip()
        use = ""
        if entry.position is not None:
            use = f"pass it as positional argument {entry.position + 1}"
        elif entry.new_keyword:
            use = f"use `{entry.new_keyword}=`"
        elif entry.fix:
            use = "remove the argument"
        head, note = worded(rule.when(f"The `{entry.keyword}=` argument of `{short}`", entry), use, entry.note)
        rule.report(arg, head, fix=_keyword_fix(rule, node, arg, entry, present, partial), note=note)


def _keyword_fix(
    rule: MigrationRule, node: cst.Call, arg: cst.Arg, entry: Entry, present: set[str], partial: bool
) -> RuleFix | None:
    if entry.fix is None or arg.keyword is None:
        return None
    if entry.new_keyword:
        if entry.new_keyword in present:
            return None
        return RuleFix(
            f"Rename `{entry.keyword}=` to `{entry.new_keyword}=`",
            [NodeEdit(arg.keyword, entry.new_keyword)],
            entry.fix,
        )
    if entry.position is not None:
        return None if partial else _to_positional(rule, node, entry.old)
    # drop the argument
    if not is_simple(arg.value):
        return None
    new_args = [a for a in node.args if a is not arg]
    return RuleFix(f"Remove `{entry.keyword}=`", [NodeEdit(node, call_text(rule.ctx, node, new_args))], entry.fix)


def _to_positional(rule: MigrationRule, node: cst.Call, qualified: str) -> RuleFix | None:
    """Move every keyword that became positional into place (once for the whole call)."""
    moving = {e.keyword: e.position for e in KEYWORDS[qualified] if e.position is not None and rule.wants(e)}
    args = list(node.args)
    if any(a.star for a in args):
        return None
    positional = [a for a in args if a.keyword is None]
    at_position = sorted(
        ((moving[a.keyword.value], a) for a in args if a.keyword is not None and a.keyword.value in moving),
        key=lambda pair: pair[0],
    )
    moved = [a for _, a in at_position]
    if [k for k, _ in at_position] != list(range(len(positional), len(positional) + len(moved))):
        return None
    rest = [a for a in args if a.keyword is not None and a.keyword.value not in moving]
    new_order = positional + moved + rest
    safety: Applicability = "safe" if new_order == args or all(is_simple(a.value) for a in args) else "unsafe"
    new_args = [a.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT) if a in moved else a for a in new_order]
    return RuleFix("Pass the arguments positionally", [NodeEdit(node, call_text(rule.ctx, node, new_args))], safety)


def _check_positional(rule: MigrationRule, node: cst.Call, qualified: str) -> None:
    positional = [a for a in node.args if a.keyword is None and a.star == ""]
    if any(a.star for a in node.args):
        return
    for entry in POSITIONAL[qualified]:
        extra = positional[entry.max_positional or 0 :]
        if not extra or not rule.wants(entry) or rule.in_shim(node):
            continue
        name = rule.ctx.code(node.func).strip()
        n = entry.max_positional
        use = ""
        if entry.then_keywords:
            use = "pass " + ", ".join(f"`{k}=`" for k in entry.then_keywords[: len(extra)]) + " by keyword"
        plural = "s" if n != 1 else ""
        msg, note = worded(
            rule.when(f"Passing more than {n} positional argument{plural} to `{name}`", entry), use, entry.note
        )
        rule.report(node, msg, fix=_by_keyword(rule, node, entry, extra), note=note)


def _by_keyword(rule: MigrationRule, node: cst.Call, entry: Entry, extra: list[cst.Arg]) -> RuleFix | None:
    """Pass the extra positional arguments by the keywords the entry names."""
    present = {a.keyword.value for a in node.args if a.keyword is not None}
    if (
        not entry.then_keywords
        or len(extra) > len(entry.then_keywords)
        or present & set(entry.then_keywords[: len(extra)])
    ):
        return None
    new_args = list(node.args)
    for a, kw in zip(extra, entry.then_keywords, strict=False):
        i = new_args.index(a)
        new_args[i] = a.with_changes(
            keyword=cst.Name(kw), equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
        )
    return RuleFix(
        "Pass the extra arguments by keyword",
        [NodeEdit(node, call_text(rule.ctx, node, new_args))],
        entry.fix or "safe",
    )
