"""Recall on real code, measured by injecting the seed families' bugs into correct sites.

Not a test: run it by hand on trees of real JAX code, e.g.

    python tests/bench/mutate.py /work/corpus/jax /work/corpus/flax --max 40
    python tests/bench/mutate.py /work/corpus/jax --family pmap   # only the JAX2xx mutations

It finds every correct site of the families (not code that expects an error, inside
``with pytest.raises(...)`` or the like, where the mistake is the point), classes each by
what the file shows of the transformed function (``def``: an undecorated def of the file;
``decorated def``; ``decorator``: ``@partial(jax.vmap, ...)`` above a def; ``lambda``;
``partial``: ``partial(f, ...)``; ``method``: ``self.f``; ``transformed``: ``jit(f)`` and
other signature-keeping wraps; ``other``: a parameter, an imported or computed function;
``collective``: a collective's own axis name), injects one mistake per mutant,
checks that the mutant still parses, lints it (JAX1xx-JAX4xx, preview on) as a project
with the files of the modules it imports from the same tree (``findings``: a helper it
hands a function to may live there) and counts a mutant as detected when a finding of
the mutation's family appears that the unmutated file does not have. Mutations:

- vmap-map-shared: an ``in_axes`` tuple/list entry ``None`` becomes ``0`` (JAX1xx)
- vmap-drop-entry: the last ``in_axes`` entry is dropped (JAX1xx)
- pmap-misspell / pmap-drop: the ``axis_name`` a collective of the pmapped def uses is
  misspelled or removed (JAX2xx)
- collective-misspell: a collective's literal axis name (anywhere: the map that binds it
  may be out of sight) loses its last letter, or doubles it when short (JAX2xx)
- vjp-add-cotangent / vjp-drop-cotangent: the tuple the bwd rule returns gets one entry
  more or one fewer (JAX3xx)
- grad-argnums-past: ``argnums`` moves past the last parameter (JAX4xx)
- grad-argnums-int: ``argnums`` moves onto a parameter annotated ``int`` or with an int
  default (JAX4xx)
- grad-drop-has-aux: ``has_aux=True`` is removed from a ``grad``/``value_and_grad`` of a
  function returning a pair (JAX4xx; JAX raises "Gradient only defined for scalar-output
  functions"). Not for the jacobians: ``jacfwd``/``jacrev`` of a pair output is the pair's
  jacobian, valid code that computes other numbers, which no rule can tell from intent

Mutations that need the function's parameters (argnums, pmap's collectives) are made only
where the file shows them. It prints, per mutation, site class and family, the sites found, the mutants that still parse,
and the share detected, and the findings of these families on the unmutated files.
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

FAMILY = {"vmap": "JAX1", "pmap": "JAX2", "vjp": "JAX3", "grad": "JAX4"}
GRADS = {"grad", "value_and_grad", "jacrev", "jacfwd", "jacobian", "hessian"}
COLLECTIVES = {"psum", "pmean", "pmax", "pmin", "all_gather", "ppermute", "axis_index", "psum_scatter", "all_to_all"}


def py_files(roots: list[str]) -> list[str]:
    out = []
    for root in roots:
        for d, _, files in os.walk(root):
            out += [os.path.join(d, f) for f in files if f.endswith(".py")]
    return sorted(out)


def last_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def jax_api(call: ast.Call, names: set[str]) -> str | None:
    """``jax.vmap`` / ``vmap`` (imported from jax) / ``jax.lax.psum`` -> the last name."""
    f = call.func
    if isinstance(f, ast.Attribute):
        base = f.value
        while isinstance(base, ast.Attribute):
            base = base.value
        if isinstance(base, ast.Name) and base.id in ("jax", "lax"):
            return f.attr
        return None
    if isinstance(f, ast.Name) and f.id in names:
        return f.id
    return None


def from_jax(tree: ast.Module) -> set[str]:
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and n.module and n.module.split(".")[0] == "jax":
            out.update(a.asname or a.name for a in n.names)
    return out


class Source:
    """Text edits by (line, col) spans of ``ast`` nodes."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, line: int, col: int) -> int:
        # ast columns are UTF-8 byte offsets
        raw = self.lines[line - 1].encode("utf-8")[:col].decode("utf-8", errors="replace")
        return self.starts[line - 1] + len(raw)

    def replace(self, node: ast.AST, new: str) -> str:
        a = self.offset(node.lineno, node.col_offset)
        b = self.offset(node.end_lineno, node.end_col_offset)
        return self.text[:a] + new + self.text[b:]

    def segment(self, node: ast.AST) -> str:
        return self.text[self.offset(node.lineno, node.col_offset) : self.offset(node.end_lineno, node.end_col_offset)]


def defs_by_name(tree: ast.Module) -> dict[str, list[ast.FunctionDef]]:
    out: dict[str, list] = {}
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.setdefault(n.name, []).append(n)
    return out


def only_def(defs, expr) -> ast.FunctionDef | None:
    if isinstance(expr, ast.Name) and len(defs.get(expr.id, [])) == 1:
        fn = defs[expr.id][0]
        if not fn.decorator_list and not fn.args.vararg:
            return fn
    return None


def positional(fn: ast.FunctionDef) -> list[ast.arg]:
    return [*fn.args.posonlyargs, *fn.args.args]


def keyword(call: ast.Call, name: str) -> ast.keyword | None:
    return next((k for k in call.keywords if k.arg == name), None)


def expecting(tree: ast.Module) -> set[ast.AST]:
    """The calls that run where the code expects an error (inside ``with pytest.raises(...)``,
    the callable of ``self.assertRaises(Err, f)``; jaxlint/model/expected.py's tables): the
    mistake is the point of such code, so they are no correct sites to mutate."""
    import jaxlint.model.frameworks  # noqa: F401  (the assertion frameworks register their contexts)
    from jaxlint.model.expected import CALLABLE_AT, RAISES_CONTEXTS

    # the registry holds qualified names (``unittest.TestCase.assertRaises``); without the
    # model, a written name counts by its last part
    raising = {q.rsplit(".", 1)[-1] for q in RAISES_CONTEXTS}
    callable_at = {q.rsplit(".", 1)[-1]: at for q, at in CALLABLE_AT.items()}
    roots: list[ast.AST] = []
    for n in ast.walk(tree):
        if isinstance(n, (ast.With, ast.AsyncWith)):
            if any(isinstance(i.context_expr, ast.Call) and last_name(i.context_expr.func) in raising for i in n.items):
                roots += n.body
        elif isinstance(n, ast.Call) and last_name(n.func) in callable_at:
            at = callable_at[last_name(n.func)]
            if at < len(n.args) and not any(isinstance(a, ast.Starred) for a in n.args[: at + 1]):
                roots.append(n.args[at])
    return {c for r in roots for c in ast.walk(r) if isinstance(c, ast.Call)}


SITE_CLASSES = ("def", "decorated def", "decorator", "lambda", "partial", "method", "transformed", "other")


class Site:
    """What the file shows of the function a transform is given: its site class, the def or
    lambda when the file has it, and how many leading positional parameters are bound away
    (by ``partial`` or as ``self``)."""

    def __init__(self, kind: str, fn: ast.AST | None = None, bound: int = 0, exact: bool = False) -> None:
        self.kind, self.fn, self.bound = kind, fn, bound
        self.exact = exact  # the positional parameters are known (no decorator, no *args)

    def params(self) -> list[ast.arg]:
        assert self.fn is not None
        return positional(self.fn)[self.bound :]  # type: ignore[arg-type]


WRAPPERS = {"jit", "checkpoint", "remat", "named_call"}  # keep the signature of what they wrap


def site_of(
    expr: ast.AST, defs: dict[str, list[ast.FunctionDef]], classes: dict[ast.AST, ast.ClassDef], names: set[str]
) -> Site:
    """The site class of a transform's function argument (one level of wrapping seen through)."""
    if isinstance(expr, ast.Name):
        found = defs.get(expr.id, [])
        if len(found) == 1:
            fn = found[0]
            if not fn.decorator_list and not fn.args.vararg:
                return Site("def", fn, exact=True)
            return Site("decorated def", fn)
        return Site("other")
    if isinstance(expr, ast.Lambda):
        return Site("lambda", expr, exact=not expr.args.vararg)
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in ("self", "cls"):
        cls = classes.get(expr)
        fn = next(
            (b for b in (cls.body if cls else []) if isinstance(b, ast.FunctionDef) and b.name == expr.attr), None
        )
        if fn is not None and not fn.args.vararg:
            plain = not fn.decorator_list
            return Site("method", fn, bound=1 if plain else 0, exact=plain)
        return Site("other")
    if isinstance(expr, ast.Call) and expr.args:
        if last_name(expr.func) == "partial":
            inner = site_of(expr.args[0], defs, classes, names)
            pos = expr.args[1:]
            if inner.fn is None or any(isinstance(a, ast.Starred) for a in pos) or expr.keywords:
                return Site("partial")
            return Site("partial", inner.fn, inner.bound + len(pos), exact=inner.exact)
        if jax_api(expr, names) in WRAPPERS:
            inner = site_of(expr.args[0], defs, classes, names)
            return Site("transformed", inner.fn, inner.bound, exact=inner.exact and not expr.keywords)
    return Site("other")


def _enclosing_classes(tree: ast.Module) -> dict[ast.AST, ast.ClassDef]:
    """Each ``self.x``/``cls.x`` attribute node -> the class whose method it is read in."""
    out: dict[ast.AST, ast.ClassDef] = {}
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef):
            for member in cls.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for n in ast.walk(member):
                        if isinstance(n, ast.Attribute):
                            out.setdefault(n, cls)
    return out


def transform_sites(tree: ast.Module, names: set[str], defs, classes, skip):
    """(api, options as a call, site) for each transform applied to a function: ``jax.vmap(f, ...)``
    and ``@partial(jax.vmap, ...)`` above a def (site class "decorator")."""
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call) or not call.args or call in skip:
            continue
        api = jax_api(call, names)
        if api is not None:
            yield api, call, site_of(call.args[0], defs, classes, names)
        elif last_name(call.func) == "partial" and isinstance(call.args[0], (ast.Attribute, ast.Name)):
            inner = ast.Call(func=call.args[0], args=[], keywords=[])
            api = jax_api(inner, names)
            fn = next((d for d in ast.walk(tree) if isinstance(d, ast.FunctionDef) and call in d.decorator_list), None)
            if api is not None and fn is not None:
                exact = len(fn.decorator_list) == 1 and not fn.args.vararg
                yield api, call, Site("decorator", fn, exact=exact)


def mutants(path: str, text: str):
    """(mutation name, family, site class, mutated text) for every site of the file."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return
    src = Source(text)
    names = from_jax(tree)
    defs = defs_by_name(tree)
    classes = _enclosing_classes(tree)
    skip = expecting(tree)
    for api, call, site in transform_sites(tree, names, defs, classes, skip):
        given = call.args[1:]
        if api == "vmap":
            kw = keyword(call, "in_axes")
            axes = kw.value if kw is not None else (given[0] if given else None)
            if not isinstance(axes, (ast.Tuple, ast.List)) or any(isinstance(e, ast.Starred) for e in axes.elts):
                continue
            if site.exact and len(axes.elts) != len(site.params()):
                continue  # in_axes for a call with other arguments than the parameters: not this mutation's site
            nones = [e for e in axes.elts if isinstance(e, ast.Constant) and e.value is None]
            if nones and len(nones) < len(axes.elts):
                yield "vmap-map-shared", "vmap", site.kind, src.replace(nones[0], "0")
            if len(axes.elts) >= 2:
                open_, close = ("[", "]") if isinstance(axes, ast.List) else ("(", ")")
                kept = [src.segment(e) for e in axes.elts[:-1]]
                text_ = open_ + ", ".join(kept) + ("," if len(kept) == 1 and open_ == "(" else "") + close
                yield "vmap-drop-entry", "vmap", site.kind, src.replace(axes, text_)
        elif api == "pmap" and site.fn is not None:
            kw = keyword(call, "axis_name")
            if kw is None or not isinstance(kw.value, ast.Constant) or not isinstance(kw.value.value, str):
                continue
            axis = kw.value.value
            uses = [
                c
                for c in ast.walk(site.fn)
                if isinstance(c, ast.Call)
                and last_name(c.func) in COLLECTIVES
                and any(
                    isinstance(a, ast.Constant) and a.value == axis for a in [*c.args, *(k.value for k in c.keywords)]
                )
            ]
            if uses:
                yield "pmap-misspell", "pmap", site.kind, src.replace(kw.value, repr(axis + "_typo"))
                yield "pmap-drop", "pmap", site.kind, _drop_keyword(src, call, kw)
        elif api in GRADS and site.fn is not None and site.exact:
            params = site.params()
            kw = keyword(call, "argnums")
            if kw is not None and isinstance(kw.value, ast.Constant) and type(kw.value.value) is int:
                yield "grad-argnums-past", "grad", site.kind, src.replace(kw.value, str(len(params)))
                ints = [i for i in range(len(params)) if _is_int_param(site.fn, i + site.bound)]
                if ints and ints[0] != kw.value.value:
                    yield "grad-argnums-int", "grad", site.kind, src.replace(kw.value, str(ints[0]))
            aux = keyword(call, "has_aux")
            scalar_only = api in ("grad", "value_and_grad")
            if scalar_only and aux is not None and isinstance(aux.value, ast.Constant) and aux.value.value is True:
                yield "grad-drop-has-aux", "grad", site.kind, _drop_keyword(src, call, aux)
    for call in ast.walk(tree):
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "defvjp"
            and len(call.args) >= 2
        ):
            bwd = only_def(defs, call.args[1])
            if bwd is None:
                continue
            rets = [r for r in ast.walk(bwd) if isinstance(r, ast.Return)]
            if len(rets) != 1 or not isinstance(rets[0].value, ast.Tuple) or not rets[0].value.elts:
                continue
            tup = rets[0].value
            items = [src.segment(e) for e in tup.elts]
            yield "vjp-add-cotangent", "vjp", "def", src.replace(tup, "(" + ", ".join([*items, "None"]) + ")")
            fewer = items[:-1]
            yield (
                "vjp-drop-cotangent",
                "vjp",
                "def",
                src.replace(tup, "(" + ", ".join(fewer) + ("," if len(fewer) == 1 else "") + ")"),
            )
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and call not in skip and last_name(call.func) in COLLECTIVES:
            axis = _axis_literal(call)
            if axis is not None and len(axis.value) > 1:
                typo = axis.value[:-1] if len(axis.value) > 3 else axis.value + axis.value[-1]
                yield "collective-misspell", "pmap", "collective", src.replace(axis, repr(typo))


def _axis_literal(call: ast.Call) -> ast.Constant | None:
    """The string literal a collective is given as its axis name (``axis_index('i')``,
    ``psum(x, 'i')``, ``axis_name='i'``), or None."""
    kw = keyword(call, "axis_name")
    index = 0 if last_name(call.func) == "axis_index" else 1
    value = kw.value if kw is not None else (call.args[index] if len(call.args) > index else None)
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value
    return None


def _is_int_param(fn: ast.FunctionDef, i: int) -> bool:
    p = positional(fn)[i]
    if isinstance(p.annotation, ast.Name) and p.annotation.id == "int":
        return True
    defaults = fn.args.defaults
    k = i - (len(positional(fn)) - len(defaults))
    return k >= 0 and isinstance(defaults[k], ast.Constant) and type(defaults[k].value) is int


def _drop_keyword(src: Source, call: ast.Call, kw: ast.keyword) -> str:
    """The call without one keyword argument (rewritten from its parts)."""
    args = [src.segment(a) for a in call.args]
    kws = [
        f"{k.arg}={src.segment(k.value)}" if k.arg else f"**{src.segment(k.value)}"
        for k in call.keywords
        if k is not kw
    ]
    return src.replace(call, f"{src.segment(call.func)}({', '.join(args + kws)})")


def findings(text: str, path: str, root: str) -> set[tuple[str, int]]:
    """The file's findings of JAX1xx-JAX4xx (code, line), linted as a small project (``small_project``)."""
    from jaxlint.lint.registry import all_rules

    codes = [r.code for r in all_rules() if r.code[:4] in ("JAX1", "JAX2", "JAX3", "JAX4")]
    return {(d.code, d.start.line) for d in small_project(text, path, root, codes)}


def small_project(text: str, path: str, root: str, codes: list[str]) -> list:
    """The file's diagnostics, linted as a project with the files under ``root`` of the
    modules it imports (a helper of another module it hands a function to is part of what
    the code shows), each with the ``__init__.py`` files of its folders."""
    import shutil
    import tempfile

    from jaxlint import testing

    imported = imported_files(text, path, root)
    if not imported:
        return testing.lint(text, *codes, path=os.path.basename(path))
    root = os.path.abspath(root)
    with tempfile.TemporaryDirectory() as tmp:
        for f in [path, *imported]:
            rel = os.path.relpath(os.path.abspath(f), root)
            dest = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            d = os.path.dirname(rel)
            while d:  # the packages on the way, so that module names stay the same
                if os.path.exists(os.path.join(root, d, "__init__.py")):
                    open(os.path.join(tmp, d, "__init__.py"), "a").close()
                d = os.path.dirname(d)
            if f == path:
                with open(dest, "w", encoding="utf-8") as out:
                    out.write(text)
            else:
                shutil.copyfile(f, dest)
        run = testing.lint_folder(tmp, testing.settings_for(*codes))
    mine = os.path.normpath(os.path.relpath(os.path.abspath(path), root))
    return [d for d in run.diagnostics if os.path.normpath(d.path) == mine]


def imported_files(text: str, path: str, root: str) -> list[str]:
    """The files under ``root`` of the modules ``text`` imports: ``a.b`` is ``a/b.py`` or
    ``a/b/__init__.py`` in the nearest folder above ``path`` that has it; relative imports
    from ``path``'s folder."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    root = os.path.abspath(root)
    here = os.path.dirname(os.path.abspath(path))
    wanted: list[tuple[str, list[str]]] = []  # (folder to start from, dotted parts)
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            wanted += [("", a.name.split(".")) for a in n.names]
        elif isinstance(n, ast.ImportFrom):
            start = ""
            if n.level:
                start = here
                for _ in range(n.level - 1):
                    start = os.path.dirname(start)
            base = n.module.split(".") if n.module else []
            wanted.append((start, base))
            wanted += [(start, [*base, a.name]) for a in n.names]
    out: list[str] = []
    for start, parts in wanted:
        if not parts:
            continue
        folders = [start] if start else []
        d = here
        while not start and d.startswith(root):
            folders.append(d)
            d = os.path.dirname(d)
        for folder in folders:
            stem = os.path.join(folder, *parts)
            found = [f for f in (stem + ".py", os.path.join(stem, "__init__.py")) if os.path.isfile(f)]
            if found:
                if found[0] not in out and os.path.abspath(found[0]) != os.path.abspath(path):
                    out.append(found[0])
                break
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("roots", nargs="+")
    ap.add_argument("--max", type=int, default=50, help="mutants per mutation kind and site class (sampled, seed 0)")
    ap.add_argument("--show-missed", action="store_true")
    ap.add_argument("--family", choices=sorted(FAMILY), action="append", help="only these mutation families")
    args = ap.parse_args()
    by_kind: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
    originals: dict[str, str] = {}
    roots: dict[str, str] = {}
    for path in py_files(args.roots):
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError):
            continue
        if not any(w in text for w in ("vmap", "pmap", "defvjp", "grad", "jac", "hessian", *COLLECTIVES)):
            continue
        for kind, family, site, mutated in mutants(path, text):
            if args.family and family not in args.family:
                continue
            by_kind.setdefault((kind, site), []).append((path, family, mutated))
            roots[path] = next(r for r in args.roots if os.path.abspath(path).startswith(os.path.abspath(r)))
            originals[path] = text
    rng = random.Random(0)
    base: dict[str, set[tuple[str, int]]] = {}
    totals: dict[str, list[int]] = {}
    print(f"{'mutation':22} {'site class':14} {'sites':>6} {'parse':>6} {'detected':>9}")
    for kind, site in sorted(by_kind):
        items = by_kind[kind, site]
        family = items[0][1]
        if len(items) > args.max:
            items = rng.sample(items, args.max)
        parsed = detected = 0
        for path, family, mutated in items:
            try:
                ast.parse(mutated)
            except SyntaxError:
                continue
            parsed += 1
            if path not in base:
                base[path] = findings(originals[path], path, roots[path])
            new = findings(mutated, path, roots[path])
            prefix = FAMILY[family]
            if any(code.startswith(prefix) for code, _ in new - _shifted(base[path], mutated, originals[path])):
                detected += 1
            elif args.show_missed:
                print(f"  missed {kind} ({site}): {path}:{_first_changed_line(originals[path], mutated)}")
        for key in (FAMILY[family], f"{FAMILY[family]} {site}"):
            t = totals.setdefault(key, [0, 0, 0])
            t[0] += len(by_kind[kind, site])
            t[1] += parsed
            t[2] += detected
        share = f"{100 * detected / parsed:.0f}%" if parsed else "-"
        print(f"{kind:22} {site:14} {len(by_kind[kind, site]):>6} {parsed:>6} {detected:>5} {share:>4}")
    print()
    for key, (sites, parsed, detected) in sorted(totals.items()):
        fam, _, site = key.partition(" ")
        share = f"{100 * detected / parsed:.0f}%" if parsed else "-"
        label = f"{fam}xx" + (f" ({site})" if site else "")
        print(f"{label:28} {detected}/{parsed} mutants detected ({share}), {sites} sites")
    unmutated = sorted((p, c, line) for p, found in base.items() for c, line in found)
    print(f"findings of JAX1xx-JAX4xx on the {len(base)} unmutated files linted: {len(unmutated)}")
    for p, c, line in unmutated:
        print(f"  {p}:{line} {c}")
    return 0


def _first_changed_line(original: str, mutated: str) -> int:
    """The 1-based line of the mutation (the first line that differs)."""
    for i, (a, b) in enumerate(zip(original.splitlines(), mutated.splitlines(), strict=False), start=1):
        if a != b:
            return i
    return min(original.count("\n"), mutated.count("\n")) + 1


def _shifted(found: set[tuple[str, int]], mutated: str, original: str) -> set[tuple[str, int]]:
    """The unmutated file's findings, also at lines shifted by the mutation's line delta."""
    delta = mutated.count("\n") - original.count("\n")
    return found | {(c, line + delta) for c, line in found}


if __name__ == "__main__":
    sys.exit(main())
