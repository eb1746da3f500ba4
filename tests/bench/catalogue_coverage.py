"""How much of what real code calls the JAX API catalogue covers.

Not a test: run it by hand on trees of real JAX code, e.g.

    python tests/bench/catalogue_coverage.py /work/corpus/*

It counts the call sites of functions of ``jax.numpy``, ``jax.lax``, ``jax.random``,
``jax.nn``, ``jax.tree``/``jax.tree_util`` and ``numpy`` (names resolved through each
file's imports and their aliases with the stdlib ``ast``: ``import jax.numpy as jnp``,
``from jax import numpy as np, lax``, ``from jax.random import split``, ``jax.numpy.sum``
through ``import jax``, module-level ``jnp = jax.numpy``; jax's private spellings such as
``jax._src.numpy.lax_numpy.zeros`` count as the public name), and prints per namespace
the distinct functions called, the call sites, how many of each the catalogue covers, and
the most called functions it does not cover. A name that jax 0.10.2 (or numpy) does not
declare with a signature (``jax.lax.asarray``, spelled through ``jax._src``; a class such as
``jax.tree_util.DictKey``) is counted apart as "no signature". ``--need P`` also prints, per
namespace, the functions that make up the top ``P`` percent of its call sites and are not
covered.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from jaxlint.base.names import canonical
from jaxlint.model.catalogue import lookup
from jaxlint.model.catalogue.signatures import ATTRIBUTES, SIGNATURES

NAMESPACES = {
    "jax.numpy": "jax.numpy",
    "jax.lax": "jax.lax",
    "jax.random": "jax.random",
    "jax.nn": "jax.nn",
    "jax.tree": "jax.tree",
    "jax.tree_util": "jax.tree",
    "numpy": "numpy",
}
ORDER = ["jax.numpy", "jax.lax", "jax.random", "jax.nn", "jax.tree", "numpy"]


def namespace(q: str) -> str | None:
    """The namespace a qualified function name is counted under (its longest prefix)."""
    best = None
    for prefix, ns in NAMESPACES.items():
        if q.startswith(prefix + ".") and (best is None or len(prefix) > len(best[0])):
            best = (prefix, ns)
    return best[1] if best else None


class Resolver(ast.NodeVisitor):
    """Collects each file's import aliases, then resolves the callee of every call."""

    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}
        self.calls: list[str] = []

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            if a.asname:
                self.aliases[a.asname] = a.name
            else:
                top = a.name.split(".", 1)[0]
                self.aliases[top] = top

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module is None or node.level:
            return
        for a in node.names:
            if a.name != "*":
                self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"

    def dotted(self, e: ast.expr) -> str | None:
        if isinstance(e, ast.Name):
            return self.aliases.get(e.id)
        if isinstance(e, ast.Attribute):
            head = self.dotted(e.value)
            return f"{head}.{e.attr}" if head else None
        return None


def calls_of(tree: ast.Module) -> list[str]:
    r = Resolver()
    # imports anywhere in the file (tests import inside functions); module-level
    # `jnp = jax.numpy` aliases after them
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            r.visit_Import(node)
        elif isinstance(node, ast.ImportFrom):
            r.visit_ImportFrom(node)
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            q = r.dotted(stmt.value)
            if q is not None and namespace(q + ".x") is not None and q.count(".") <= 2:
                r.aliases[stmt.targets[0].id] = q
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            q = r.dotted(node.func)
            if q is None:
                continue
            q = canonical(q)
            if namespace(q) is not None:
                out.append(q)
    return out


def scan(roots: list[str]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for f in sorted(filenames):
                if not f.endswith(".py"):
                    continue
                path = os.path.join(dirpath, f)
                try:
                    with open(path, encoding="utf-8") as fh:
                        tree = ast.parse(fh.read())
                except (SyntaxError, UnicodeDecodeError, ValueError):
                    continue
                counts.update(calls_of(tree))
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("roots", nargs="+")
    ap.add_argument("--top", type=int, default=10, help="uncovered functions listed per namespace")
    ap.add_argument("--need", type=float, default=None, help="list the uncovered functions of the top P%% of sites")
    args = ap.parse_args()
    counts = scan(args.roots)
    print(
        f"{'namespace':<11} {'functions':>9} {'covered':>8} {'sites':>7} {'covered':>8} {'share':>6}"
        f" {'no sig.':>8} {'API share':>9}"
    )
    report = []
    for ns in ORDER:
        mine = {q: n for q, n in counts.items() if namespace(q) == ns}
        covered = {q: n for q, n in mine.items() if lookup(q) is not None}
        api = {q: n for q, n in mine.items() if q in SIGNATURES or q in ATTRIBUTES or q in covered}
        sites, csites = sum(mine.values()), sum(covered.values())
        share = 100.0 * csites / sites if sites else 100.0
        api_sites = sum(api.values())
        api_share = 100.0 * csites / api_sites if api_sites else 100.0
        print(
            f"{ns:<11} {len(mine):>9} {len(covered):>8} {sites:>7} {csites:>8} {share:>5.1f}%"
            f" {sites - api_sites:>8} {api_share:>8.1f}%"
        )
        missing = sorted(((n, q) for q, n in mine.items() if q not in covered), reverse=True)
        report.append((ns, missing, mine, sites))
    for ns, missing, mine, sites in report:
        shown = [
            f"{q.removeprefix(ns + '.')} {n}{'' if q in SIGNATURES else ' (no signature)'}"
            for n, q in missing[: args.top]
        ]
        print(f"\n{ns}: top uncovered: {', '.join(shown) or '-'}")
        if args.need is not None:
            ranked = sorted(mine.items(), key=lambda kv: -kv[1])
            acc, need = 0, []
            for q, n in ranked:
                if acc >= sites * args.need / 100.0:
                    break
                acc += n
                if lookup(q) is None:
                    need.append(q if q in SIGNATURES else f"{q} (no signature)")
            print(f"  uncovered within the top {args.need:g}% of sites: {', '.join(need) or '-'}")


if __name__ == "__main__":
    main()
