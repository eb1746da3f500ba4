"""Exact call rewrites of removed calls (catalogue kind ``call``, by ``Entry.rewrite``):
``index_update(x, idx, y)`` -> ``x.at[idx].set(y)``, ``tie_in(x, y)`` -> ``y``, ``msort``,
the PRNG key constructors, ``pvary``, ``xla_computation``, removed constants."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from jaxlint.base.types import Applicability
from jaxlint.lint.rule import NodeEdit, RuleFix

from .syntax import code, is_simple
from .table import AT_METHOD, PRNG_IMPL, Entry

if TYPE_CHECKING:
    from .analysis import MigrationRule


def _call_of(rule: MigrationRule, node: cst.Attribute, positional: int | None = None) -> cst.Call | None:
    """The call ``node`` is the function of, with no ``*``/``**`` argument; with
    ``positional``, only when it passes exactly that many arguments and no keyword."""
    call = rule.ctx.parent(node)
    if not (isinstance(call, cst.Call) and call.func is node and all(a.star == "" for a in call.args)):
        return None
    if positional is not None and (len(call.args) != positional or any(a.keyword is not None for a in call.args)):
        return None
    return call


def index_update(rule: MigrationRule, node: cst.Attribute, entry: Entry) -> RuleFix | None:
    call = _call_of(rule, node, positional=3)
    if call is None:
        return None
    ctx = rule.ctx
    x, idx, y = (a.value for a in call.args)
    if isinstance(idx, cst.Subscript) and rule.importer.qualified(idx.value) == "jax.ops.index":
        index = ctx.code(idx).strip()[len(ctx.code(idx.value).strip()) :].strip()[1:-1].strip()
    else:
        index = code(ctx, idx, atomic=False)
    method = AT_METHOD[entry.old]
    text = f"{code(ctx, x)}.at[{index}].{method}({code(ctx, y, atomic=False)})"
    return RuleFix(f"Rewrite as `.at[...].{method}(...)`", [NodeEdit(call, text)], "safe")


def tie_in(rule: MigrationRule, node: cst.Attribute, entry: Entry) -> RuleFix | None:
    call = _call_of(rule, node, positional=2)
    if call is None:
        return None
    x, y = (a.value for a in call.args)
    safety: Applicability = "safe" if is_simple(x) else "unsafe"  # dropping `x` must not drop a side effect
    return RuleFix("Replace `tie_in(x, y)` with `y`", [NodeEdit(call, code(rule.ctx, y))], safety)


def msort(rule: MigrationRule, node: cst.Attribute, entry: Entry) -> RuleFix | None:
    call = _call_of(rule, node, positional=1)
    if call is None:
        return None
    spelled = rule.spell("jax.numpy.sort", node.value)
    if spelled is None:
        return None
    text, inserts = spelled
    a = code(rule.ctx, call.args[0].value, atomic=False)
    return RuleFix(f"Rewrite as `{text}(a, axis=0)`", [NodeEdit(call, f"{text}({a}, axis=0)"), *inserts], "safe")


def prng_impl(rule: MigrationRule, node: cst.Attribute, entry: Entry) -> RuleFix | None:
    call = _call_of(rule, node, positional=1)
    if call is None:
        return None
    spelled = rule.spell("jax.random.PRNGKey", node.value)
    if spelled is None:
        return None
    text, inserts = spelled
    impl = PRNG_IMPL[entry.old]
    seed = code(rule.ctx, call.args[0].value, atomic=False)
    return RuleFix(
        f"Rewrite as `{text}(seed, impl='{impl}')`",
        [NodeEdit(call, f"{text}({seed}, impl='{impl}')"), *inserts],
        "safe",
    )


def pvary(rule: MigrationRule, node: cst.Attribute, entry: Entry) -> RuleFix | None:
    call = _call_of(rule, node, positional=2)
    if call is None:
        return None
    spelled = rule.spell("jax.lax.pcast", node)
    if spelled is None:
        return None
    text, inserts = spelled
    args = ", ".join(code(rule.ctx, a.value, atomic=False) for a in call.args)
    return RuleFix(
        f"Rewrite as `{text}(..., to='varying')`", [NodeEdit(call, f"{text}({args}, to='varying')"), *inserts], "safe"
    )


def xla_computation(rule: MigrationRule, node: cst.Attribute, entry: Entry) -> RuleFix | None:
    ctx = rule.ctx
    inner = _call_of(rule, node)
    outer = ctx.parent(inner) if inner is not None else None
    if inner is None or len(inner.args) != 1 or inner.args[0].keyword is not None:
        return None
    if not (isinstance(outer, cst.Call) and outer.func is inner and all(a.keyword is None for a in outer.args)):
        return None
    spelled = rule.spell("jax.jit", node)
    if spelled is None:
        return None
    text, inserts = spelled
    args = ", ".join(
        ctx.code(a.value).strip() if a.star == "" else a.star + ctx.code(a.value).strip() for a in outer.args
    )
    new = f"{text}({code(ctx, inner.args[0].value, atomic=False)}).lower({args}).compiler_ir('hlo')"
    return RuleFix(
        "Rewrite with `jax.jit(...).lower(...).compiler_ir('hlo')`",
        [NodeEdit(outer, new), *inserts],
        entry.fix or "unsafe",
    )


def constant(rule: MigrationRule, node: cst.Attribute, entry: Entry) -> RuleFix | None:
    value = entry.replacement or ""
    if value.startswith("-jax."):
        spelled = rule.spell(value[1:], node.value)
        if spelled is None:
            return None
        text, inserts = "-" + spelled[0], spelled[1]
    else:
        text, inserts = value, []
    parent = rule.ctx.parent(node)
    if text.startswith("-") and not isinstance(
        parent, (cst.Arg, cst.Element, cst.Assign, cst.AnnAssign, cst.Return, cst.Comparison, cst.ComparisonTarget)
    ):
        text = f"({text})"
    return RuleFix(f"Replace with `{text}`", [NodeEdit(node, text), *inserts], "safe")


Rewrite = Callable[["MigrationRule", cst.Attribute, Entry], "RuleFix | None"]
REWRITES: dict[str, Rewrite] = {
    "index_update": index_update,
    "tie_in": tie_in,
    "msort": msort,
    "prng_impl": prng_impl,
    "pvary": pvary,
    "xla_computation": xla_computation,
    "constant": constant,
}
