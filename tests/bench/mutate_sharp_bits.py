"""Mutation benchmark for JAX501/502/503: inject the mistake into correct real code, see if jaxlint finds it.

    python tests/bench/mutate_sharp_bits.py /work/corpus/jax /work/corpus/flax ... [--per-kind 60] [--seed 0] [-v]

Three mutations, each applied to one site of one file at a time (line numbers preserved):

- JAX501 ``inplace``: ``x = x.at[i].set(v)`` / ``.add`` / ``.multiply`` / ... becomes ``x[i] = v`` /
  ``x[i] += v`` / ``x[i] *= v`` (``y = x.at[i].set(v)`` becomes ``x[i] = v; y = x``);
- JAX502 ``drop-split``: ``k1, k2 = jax.random.split(key)`` is deleted and every later use of
  ``k1``/``k2`` in the function takes ``key`` itself. Kept only when at least two ``jax.random``
  calls then take ``key`` as their key (otherwise the mutant may not reuse anything);
- JAX503 ``if-for-where``: inside a function that is visibly jitted (``@jit``/``jit(f)`` in the
  file), ``jnp.where(c, a, b)`` becomes ``(a if c else b)`` and ``lax.cond(p, f, g, *ops)``
  becomes ``(f(*ops) if p else g(*ops))``. Kept only when ``c``/``p`` names a parameter of
  that function without a default that the file never marks static, and reads no
  ``.shape``/``.ndim``/``.dtype``/``len()`` (so the mutant really branches on a tracer).

Each mutant must parse (``ast.parse``); it is linted in-process with only its rule
selected, and it counts as detected when the rule reports a line the mutation touched
that it did not report on the original file. Prints the detection rate per rule.
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import re
import sys

from jaxlint import testing
from jaxlint.api import lint_source

AT_OPS = {"set": "", "add": "+", "subtract": "-", "multiply": "*", "divide": "/", "power": "**"}
SKIP_DIRS = {".git", "__pycache__", "build", "dist"}


def python_files(root: str):
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
        for f in sorted(files):
            if f.endswith(".py"):
                yield os.path.join(d, f)


def dotted(node) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def segment(lines: list[str], node) -> str:
    return ast.get_source_segment("".join(lines), node) or ""


def replace_lines(lines: list[str], first: int, last: int, new: list[str]) -> list[str]:
    """Replace 1-based lines first..last with ``new`` (same count: line numbers are kept)."""
    assert len(new) == last - first + 1
    return lines[: first - 1] + new + lines[last:]


# --- JAX501 -------------------------------------------------------------------------------------


def inplace_mutants(source: str, tree, lines):
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        call = node.value
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in AT_OPS
                and len(call.args) == 1 and not call.keywords):
            continue
        sub = call.func.value
        if not (isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Attribute) and sub.value.attr == "at"
                and isinstance(sub.value.value, ast.Name)):
            continue
        if node.lineno != node.end_lineno:
            continue
        base = sub.value.value.id
        target = node.targets[0].id
        index = segment(lines, sub.slice)
        value = segment(lines, call.args[0])
        op = AT_OPS[call.func.attr]
        indent = lines[node.lineno - 1][: node.col_offset]
        stmt = f"{base}[{index}] {op}= {value}"
        if target != base:
            stmt += f"; {target} = {base}"
        new = indent + stmt + "\n"
        yield node.lineno, {node.lineno}, replace_lines(lines, node.lineno, node.lineno, [new])


# --- JAX502 -------------------------------------------------------------------------------------


def _is_split(call) -> bool:
    name = dotted(call.func) if isinstance(call, ast.Call) else ""
    return name.endswith("random.split") or name == "split"


def _function_bodies(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.body
    yield tree.body


def drop_split_mutants(source: str, tree, lines):
    for body in _function_bodies(tree):
        for i, stmt in enumerate(body):
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)
                    and _is_split(stmt.value) and stmt.value.args and isinstance(stmt.value.args[0], ast.Name)):
                continue
            names = [e.id for e in stmt.targets[0].elts if isinstance(e, ast.Name)]
            if len(names) != len(stmt.targets[0].elts) or stmt.lineno != stmt.end_lineno:
                continue
            key = stmt.value.args[0].id
            subs = [n for n in names if n != key]
            rest = body[i + 1:]
            edits = []  # (line, col, end_col, new text)
            uses = 0
            for later in rest:
                rebinds = False
                for n in ast.walk(later):
                    if isinstance(n, ast.Name) and n.id in subs and isinstance(n.ctx, ast.Load):
                        edits.append((n.lineno, n.col_offset, n.end_col_offset, key))
                    if isinstance(n, ast.Call) and "random." in dotted(n.func) and n.args \
                            and isinstance(n.args[0], ast.Name) and n.args[0].id in subs + [key] \
                            and isinstance(n.args[0].ctx, ast.Load):
                        uses += 1
                    if isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Store):
                        rebinds = True
                if rebinds:
                    break
            if uses < 2 or not edits:
                continue
            new = list(lines)
            for line, col, end, text in sorted(edits, reverse=True):
                s = new[line - 1]
                new[line - 1] = s[:col] + text + s[end:]
            indent = lines[stmt.lineno - 1][: stmt.col_offset]
            new[stmt.lineno - 1] = indent + "pass\n"
            # any new finding in the rest of the function comes from the mutation
            end = max(getattr(b, "end_lineno", stmt.lineno) for b in body)
            yield stmt.lineno, set(range(stmt.lineno, end + 1)), new


# --- JAX503 -------------------------------------------------------------------------------------


def _jitted_functions(source: str, tree):
    jitted = set(re.findall(r"\bjit\(\s*([A-Za-z_]\w*)", source))
    static = set(re.findall(r"static_argnames\s*=\s*[\(\[]?\s*['\"](\w+)", source))
    static_nums = "static_argnums" in source
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        decorated = any("jit" in ast.unparse(d) for d in node.decorator_list)
        if not (decorated or node.name in jitted):
            continue
        if static_nums and any("static_argnums" in ast.unparse(d) for d in node.decorator_list):
            continue
        if node.decorator_list and not all("jit" in ast.unparse(d) for d in node.decorator_list):
            continue
        args = node.args.posonlyargs + node.args.args
        defaults = len(node.args.defaults)
        params = {a.arg for a in args[: len(args) - defaults]} - static - {"self", "cls"}
        yield node, params


def _traced_condition(cond, params) -> bool:
    text = ast.unparse(cond)
    if re.search(r"\.(shape|ndim|dtype|size)\b|\blen\(|\bisinstance\(| is ", text):
        return False
    return any(isinstance(n, ast.Name) and n.id in params for n in ast.walk(cond))


def if_mutants(source: str, tree, lines):
    for fn, params in _jitted_functions(source, tree):
        for n in ast.walk(fn):
            if not isinstance(n, ast.Call) or n.lineno != n.end_lineno:
                continue
            name = dotted(n.func)
            if name in ("jnp.where", "jax.numpy.where") or name.endswith(".jnp.where"):
                if len(n.args) != 3 or n.keywords:
                    continue
                c, a, b = n.args
                new_expr = f"({segment(lines, a)} if {segment(lines, c)} else {segment(lines, b)})"
            elif name.endswith("lax.cond"):
                if len(n.args) < 3 or n.keywords:
                    continue
                c, f, g, *ops = n.args
                args = ", ".join(segment(lines, o) for o in ops)
                new_expr = f"({segment(lines, f)}({args}) if {segment(lines, c)} else {segment(lines, g)}({args}))"
            else:
                continue
            if not _traced_condition(c, params):
                continue
            s = lines[n.lineno - 1]
            new = list(lines)
            new[n.lineno - 1] = s[: n.col_offset] + new_expr + s[n.end_col_offset:]
            yield n.lineno, {n.lineno}, new


KINDS = {"JAX501": ("inplace", inplace_mutants), "JAX502": ("drop-split", drop_split_mutants),
         "JAX503": ("if-for-where", if_mutants)}


def reported_lines(source: str, path: str, code: str) -> set[int]:
    return {d.start.line for d in lint_source(source, path, testing.settings_for(code), module_name="mutant")
            if d.code == code}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("roots", nargs="+")
    ap.add_argument("--per-kind", type=int, default=60, help="mutants per rule (a seeded sample of all sites)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-v", "--verbose", action="store_true", help="list every missed mutant")
    args = ap.parse_args(argv)
    sites: dict[str, list] = {code: [] for code in KINDS}
    for root in args.roots:
        for path in python_files(root):
            try:
                source = open(path, encoding="utf-8").read()
                tree = ast.parse(source)
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            lines = source.splitlines(keepends=True)
            for code, (_, make) in KINDS.items():
                for line, touched, _ in make(source, tree, lines):
                    sites[code].append((path, line))
    rng = random.Random(args.seed)
    total = 0
    for code, (kind, make) in KINDS.items():
        chosen = sorted(rng.sample(sites[code], min(args.per_kind, len(sites[code]))))
        detected, valid, missed = 0, 0, []
        originals: dict[str, set[int]] = {}
        for path, line in chosen:
            source = open(path, encoding="utf-8").read()
            tree = ast.parse(source)
            lines = source.splitlines(keepends=True)
            mutant = next(((t, m) for ln, t, m in make(source, tree, lines) if ln == line), None)
            if mutant is None:
                continue
            touched, new_lines = mutant
            text = "".join(new_lines)
            try:
                ast.parse(text)
            except SyntaxError:
                continue
            valid += 1
            if path not in originals:
                originals[path] = reported_lines(source, path, code)
            hits = (reported_lines(text, path, code) - originals[path]) & touched
            if hits:
                detected += 1
            else:
                missed.append(f"{path}:{line}")
        total += valid
        rate = f"{detected / valid:.0%}" if valid else "n/a"
        print(f"{code} {kind}: {detected}/{valid} mutants detected ({rate}); {len(sites[code])} sites found")
        if args.verbose:
            for m in missed:
                print(f"   missed {m}")
    return 0 if total else 1


if __name__ == "__main__":
    sys.exit(main())
