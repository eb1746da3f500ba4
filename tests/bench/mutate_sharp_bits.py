"""Mutation benchmark for JAX501/502/503: inject the mistake into correct real code, see if jaxlint finds it.

    python tests/bench/mutate_sharp_bits.py /work/corpus/jax /work/corpus/flax ... [--per-kind 60] [--seed 0] [-v]

Three mutations, each applied to one site of one file at a time (line numbers preserved):

- JAX501 ``inplace``: ``x = x.at[i].set(v)`` / ``.add`` / ``.multiply`` / ... becomes ``x[i] = v`` /
  ``x[i] += v`` / ``x[i] *= v`` (``y = x.at[i].set(v)`` becomes ``x[i] = v; y = x``);
- JAX502 ``drop-split``: ``k1, k2 = jax.random.split(key)`` is deleted and every later use of
  ``k1``/``k2`` in the function takes ``key`` itself. Kept only when at least two ``jax.random``
  calls then take ``key`` as their key (otherwise the mutant may not reuse anything);
- JAX503 ``if-for-where``: in the own body of a function that a ``jit``/``vmap``/``pmap``/``lax``
  loop or branch of the same file really traces (decorated, or passed by name; the transform
  resolved through the imports; no ``static_argnums``/``in_axes``), ``jnp.where(c, a, b)`` becomes ``(a if c else b)`` and ``lax.cond(p, f, g, *ops)``
  becomes ``(f(*ops) if p else g(*ops))``. Kept only when ``c``/``p`` names a parameter of
  that function without a default, not static and never rebound in the body, and reads no
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
from pathlib import Path

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
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr in AT_OPS
            and len(call.args) == 1
            and not call.keywords
        ):
            continue
        sub = call.func.value
        if not (
            isinstance(sub, ast.Subscript)
            and isinstance(sub.value, ast.Attribute)
            and sub.value.attr == "at"
            and isinstance(sub.value.value, ast.Name)
        ):
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
            if not (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Tuple)
                and _is_split(stmt.value)
                and stmt.value.args
                and isinstance(stmt.value.args[0], ast.Name)
            ):
                continue
            names = [e.id for e in stmt.targets[0].elts if isinstance(e, ast.Name)]
            if len(names) != len(stmt.targets[0].elts) or stmt.lineno != stmt.end_lineno:
                continue
            key = stmt.value.args[0].id
            subs = [n for n in names if n != key]
            rest = body[i + 1 :]
            edits = []  # (line, col, end_col, new text)
            uses = 0
            for later in rest:
                rebinds = False
                for n in ast.walk(later):
                    if isinstance(n, ast.Name) and n.id in subs and isinstance(n.ctx, ast.Load):
                        edits.append((n.lineno, n.col_offset, n.end_col_offset, key))
                    if (
                        isinstance(n, ast.Call)
                        and "random." in dotted(n.func)
                        and n.args
                        and isinstance(n.args[0], ast.Name)
                        and n.args[0].id in [*subs, key]
                        and isinstance(n.args[0].ctx, ast.Load)
                    ):
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


# transforms whose function argument is traced: position of that argument (``None``: a decorator's target)
TRACERS = {
    "jax.jit": (0,),
    "jax.vmap": (0,),
    "jax.pmap": (0,),
    "jax.lax.scan": (0,),
    "jax.lax.map": (0,),
    "jax.lax.fori_loop": (2,),
    "jax.lax.while_loop": (0, 1),
    "jax.lax.cond": (1, 2),
}
# options that leave some arguments untraced: a function given any of them is not used
UNTRACED_OPTIONS = {"static_argnums", "static_broadcasted_argnums", "in_axes", "donate_argnums"}


def _imports(tree) -> dict[str, str]:
    """Module-level ``import``/``from`` bindings: local name -> dotted name."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                out[a.asname or a.name] = f"{node.module}.{a.name}"
    return out


def _qualified(node, imports) -> str:
    name = dotted(node)
    head, _, rest = name.partition(".")
    if head not in imports:
        return ""
    return imports[head] + ("." + rest if rest else "")


def _transform(node, imports):
    """(qualified transform, static argnames) of ``jax.jit`` / ``partial(jax.jit, ...)``; None if untraced."""
    keywords = []
    if isinstance(node, ast.Call):
        q = _qualified(node.func, imports)
        if q in ("functools.partial",) and node.args:
            keywords = node.keywords
            node = node.args[0]
        else:
            return None
    q = _qualified(node, imports)
    if q not in TRACERS:
        return None
    static = set()
    for k in keywords:
        if k.arg in UNTRACED_OPTIONS or k.arg is None:
            return None
        if k.arg == "static_argnames":
            vals = k.value.elts if isinstance(k.value, (ast.Tuple, ast.List)) else [k.value]
            if not all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in vals):
                return None
            static |= {v.value for v in vals}
    return q, static


def _jitted_functions(source: str, tree):
    """Functions a ``jit``/``vmap``/``pmap``/``lax`` loop or branch of this file really traces, with
    the parameters it traces: decorated (``@jax.jit``, ``@partial(jax.jit, static_argnames=...)``),
    or passed by name to such a call in the scope that defines them, where no other def takes
    that name (``jax.jit(f)``, ``lax.scan(body, ...)``). Not methods; the transform's name must
    resolve through the file's imports to jax (a ``jit`` imported from elsewhere is not jax's)."""
    imports = _imports(tree)
    scopes: dict[int, list] = {}  # id(scope) -> its own statements' nodes
    methods = set()
    for scope in [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        scopes[id(scope)] = list(_own_nodes(scope))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            methods.update(id(b) for b in node.body)
    for own in scopes.values():
        defs: dict[str, list] = {}
        for n in own:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs.setdefault(n.name, []).append(n)
        passed: dict[str, set] = {}
        for n in own:
            if not isinstance(n, ast.Call):
                continue
            q = _qualified(n.func, imports)
            if q not in TRACERS or any(k.arg in UNTRACED_OPTIONS or k.arg is None for k in n.keywords):
                continue
            static = set()
            for k in n.keywords:
                if k.arg == "static_argnames":
                    vals = k.value.elts if isinstance(k.value, (ast.Tuple, ast.List)) else [k.value]
                    static |= {v.value for v in vals if isinstance(v, ast.Constant) and isinstance(v.value, str)}
            for pos in TRACERS[q]:
                if pos < len(n.args) and isinstance(n.args[pos], ast.Name):
                    passed.setdefault(n.args[pos].id, set()).update(static)
        for name, nodes in defs.items():
            for node in nodes:
                if id(node) in methods:
                    continue
                if node.decorator_list:
                    if len(node.decorator_list) != 1:
                        continue
                    found = _transform(node.decorator_list[0], imports)
                    if found is None:
                        continue
                    static = found[1]
                elif name in passed and len(nodes) == 1:
                    static = passed[name]
                else:
                    continue
                args = node.args.posonlyargs + node.args.args
                defaults = len(node.args.defaults)
                params = {a.arg for a in args[: len(args) - defaults]} - static - {"self", "cls"}
                # a parameter the body rebinds may hold a static value by the time it is tested
                params -= {n.id for n in _own_nodes(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                yield node, params


def _own_nodes(fn):
    """The nodes of a function's body, not those of a nested def, lambda or class (traced or not)."""
    todo = list(fn.body)  # the module's own statements for a Module
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))


def _traced_condition(cond, params) -> bool:
    text = ast.unparse(cond)
    if re.search(r"\.(shape|ndim|dtype|size)\b|\blen\(|\bisinstance\(| is ", text):
        return False
    return any(isinstance(n, ast.Name) and n.id in params for n in ast.walk(cond))


def if_mutants(source: str, tree, lines):
    for fn, params in _jitted_functions(source, tree):
        for n in _own_nodes(fn):
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
            new[n.lineno - 1] = s[: n.col_offset] + new_expr + s[n.end_col_offset :]
            yield n.lineno, {n.lineno}, new


KINDS = {
    "JAX501": ("inplace", inplace_mutants),
    "JAX502": ("drop-split", drop_split_mutants),
    "JAX503": ("if-for-where", if_mutants),
}


def reported_lines(source: str, path: str, code: str) -> set[int]:
    return {
        d.start.line
        for d in lint_source(source, path, testing.settings_for(code), module_name="mutant")
        if d.code == code
    }


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
                source = Path(path).read_text(encoding="utf-8")
                tree = ast.parse(source)
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            lines = source.splitlines(keepends=True)
            for code, (_, make) in KINDS.items():
                for line, _touched, _ in make(source, tree, lines):
                    sites[code].append((path, line))
    rng = random.Random(args.seed)
    total = 0
    for code, (kind, make) in KINDS.items():
        chosen = sorted(rng.sample(sites[code], min(args.per_kind, len(sites[code]))))
        detected, valid, missed = 0, 0, []
        originals: dict[str, set[int]] = {}
        for path, line in chosen:
            source = Path(path).read_text(encoding="utf-8")
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
