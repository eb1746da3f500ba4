"""The JAX1xx/JAX2xx/JAX5xx/JAX8xx rules and the call paths, axis names, vocabulary, importer and guards they read ask
one model what names refer to and what expressions are: the semantic model's evaluator
and the binder. The older readers (``ctx.resolve``, ``ctx.literal``, ``ctx.ref``,
``ctx.transform_for``, the ``FactCollector``'s scopes, ``Program.value``/``literal``)
are not called there."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil

import pytest

import jaxlint.rules.collectives
import jaxlint.rules.migration
import jaxlint.rules.sharp_bits
import jaxlint.rules.vmap

MODEL = [
    "jaxlint.model.calls",
    "jaxlint.model.paths",
    "jaxlint.model.axes",
    "jaxlint.model.vocabulary",
    "jaxlint.model.importer",
    "jaxlint.model.guards",
    "jaxlint.model.arrays",
]
RULES = [
    f"{pkg.__name__}.{m.name}"
    for pkg in (jaxlint.rules.vmap, jaxlint.rules.collectives, jaxlint.rules.migration, jaxlint.rules.sharp_bits)
    for m in pkgutil.iter_modules(pkg.__path__)
]
# attributes that are the older readers whatever they are called on
OLD = frozenset({"resolve", "literal", "transform_for", "collector", "ref_for_expr", "ref_for_name", "FactCollector"})


def _receiver(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def old_reads(source: str) -> list[str]:
    """``line: text`` of every use of an older reader in a module's source."""
    out = []
    for n in ast.walk(ast.parse(source)):
        if isinstance(n, ast.Attribute) and n.attr in OLD:
            out.append(f"{n.lineno}: .{n.attr}")
        elif isinstance(n, ast.Name) and n.id in OLD:
            out.append(f"{n.lineno}: {n.id}")
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            who = _receiver(n.func.value)
            if n.func.attr == "ref" and who == "ctx":
                out.append(f"{n.lineno}: ctx.ref")
            if n.func.attr == "value" and who in ("p", "program"):
                out.append(f"{n.lineno}: Program.value")
    return sorted(out, key=lambda x: int(x.split(":")[0]))


@pytest.mark.parametrize("name", RULES + MODEL)
def test_no_older_reader(name):
    module = importlib.import_module(name)
    assert old_reads(inspect.getsource(module)) == []


def test_the_check_sees_each_older_reader():
    source = (
        "def f(ctx, p):\n    ctx.resolve(x)\n    ctx.literal(x)\n    ctx.ref(x)\n    ctx.transform_for(c)\n"
        "    ctx.collector.bindings\n    p.value(x)\n    ev.value(x, None)\n    ctx.facts.ref('f')\n"
    )
    assert old_reads(source) == [
        "2: .resolve",
        "3: .literal",
        "4: ctx.ref",
        "5: .transform_for",
        "6: .collector",
        "7: Program.value",
    ]
