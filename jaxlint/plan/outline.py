"""A file's outline: its top-level statements and class members, read with the stdlib ``ast``.

``ast.parse`` is about fifteen times cheaper than LibCST. The outline says, for every
*unit* (a top-level statement, or a statement in the body of a top-level class), which
lines it spans and which identifiers and dotted names its text mentions. The slicer
(``jaxlint.plan.slicing``) uses it to decide which units LibCST must parse at all.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from jaxlint.base.statements import read_ast, split_lines

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# a name or a dotted name: one pass gives both the words and the dotted names of a unit
WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:[ \t]*\.[ \t]*[A-Za-z_][A-Za-z0-9_]*)*")
# a comment, or a string literal with its prefix (scanned left to right, so a quote in a
# comment or a ``#`` in a string is read as part of it)
_STRINGS_AND_COMMENTS = re.compile(
    r"#[^\r\n]*"
    r"|(?P<prefix>[rRbBuUfF]{0,2})"
    r"(?:\"\"\"(?:[^\"\\]++|\\[\s\S]|\"(?!\"\"))*+\"\"\"|'''(?:[^'\\]++|\\[\s\S]|'(?!''))*+'''"
    r"|\"(?:[^\"\\\r\n]++|\\[\s\S])*+\"|'(?:[^'\\\r\n]++|\\[\s\S])*+')"  # possessive: constant memory
)


def _blank_literal(m: re.Match) -> str:
    prefix = m.group("prefix")
    if prefix and ("f" in prefix or "F" in prefix):
        return m.group(0)  # an f-string's braces are code
    return " "


IMPORT = re.compile(
    r"(?m)^[ \t]*(?:from[ \t]+[\w.]+[ \t]+)?import[ \t(\\]|;[ \t]*(?:from[ \t]+[\w.]+[ \t]+)?import[ \t(\\]"
)
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(slots=True)
class Unit:
    start: int  # first line, 1-based, decorators included
    end: int  # last line
    name: str | None  # the name a def or class binds; None for any other statement
    owner: int | None  # first line of the top-level class whose body holds it, if any
    idents: frozenset[str]
    chains: tuple[str, ...]  # dotted names as written (``jax.lax.psum``), whitespace removed
    has_import: bool  # an import statement anywhere inside (imports bind file-wide)
    assigns: frozenset[str] = frozenset()  # names a module-level statement assigns
    header_of: str | None = None  # a split class's header (decorators, ``class X(...):``): its name
    alias: bool = False  # ``name = some.dotted.name`` at module level
    forwards: bool = False  # a def that calls one of its parameters with its ``*args`` (model/forwarding.py)

    @property
    def blankable(self) -> bool:
        return self.name is not None


@dataclass(slots=True)
class Outline:
    units: list[Unit]
    imports: dict[str, str] = field(default_factory=dict)  # module-level ``import``/``from``: local -> dotted
    lines: int = 0
    source_lines: list[str] = field(default_factory=list)  # in the worker only: not pickled
    nodes: list[list[ast.AST]] = field(default_factory=list)  # each unit's syntax (worker only)
    _cache: dict = field(default_factory=dict)

    def __getstate__(self):
        return (self.units, self.imports, self.lines)

    def __setstate__(self, state):
        self.units, self.imports, self.lines = state
        self.source_lines = []
        self.nodes = []
        self._cache = {}

    def wrapped_names(self, i: int, wrappers: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
        """Names and dotted names unit ``i`` hands to a call of one of ``wrappers``
        (``grad(loss)``, ``vmap(partial(f, w))``, ``f.defvjp(fwd, bwd)``), other than
        as the function of a call inside it, unless that call is the argument itself: a
        factory whose call makes the target (``jax.jit(make_step(cfg))``: ``make_step``, whose
        returned closure the evaluator reads); what a rule can take for a target."""
        key = ("wrapped", i, wrappers)
        hit = self._cache.get(key)
        if hit is None:
            names: set[str] = set()
            chains: set[str] = set()
            for root in self.nodes[i]:
                for call in walk(root):
                    if not isinstance(call, ast.Call) or _last(call.func) not in wrappers:
                        continue
                    for arg in [*call.args, *(k.value for k in call.keywords)]:
                        if isinstance(arg, ast.Call):  # a factory's call: what it returns is the target
                            if isinstance(arg.func, ast.Name):
                                names.add(arg.func.id)
                            elif isinstance(arg.func, ast.Attribute) and (dotted := _dotted(arg.func)):
                                chains.add(dotted)
                        called = set()
                        for n in walk(arg):
                            if isinstance(n, ast.Call):
                                called.add(id(n.func))
                            elif isinstance(n, ast.Name):
                                if id(n) not in called:
                                    names.add(n.id)
                            elif isinstance(n, ast.Attribute) and id(n) not in called:
                                dotted = _dotted(n)
                                if dotted is not None:
                                    chains.add(dotted)
                    if isinstance(call.func, ast.Attribute):  # ``f.defvjp(...)``: f
                        receiver = call.func.value
                        if isinstance(receiver, ast.Name):
                            names.add(receiver.id)
                        elif isinstance(receiver, ast.Attribute) and (dotted := _dotted(receiver)):
                            chains.add(dotted)
            hit = self._cache[key] = (frozenset(names), frozenset(chains))
        return hit

    def receiver(self, i: int) -> str | None:
        """The first parameter of member ``i`` of a class when it is a def (``self``)."""
        u = self.units[i]
        if u.owner is None or u.name is None or not self.nodes[i]:
            return None
        fn = self.nodes[i][0]
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        first = (*fn.args.posonlyargs, *fn.args.args)
        return first[0].arg if first else None

    def receiver_reads(self, i: int) -> frozenset[str]:
        """The attributes method ``i`` reads on its receiver (``self.apply``: ``apply``)."""
        me = self.receiver(i)
        if me is None:
            return frozenset()
        prefix = me + "."
        return frozenset(c[len(prefix) :].split(".", 1)[0] for c in self.units[i].chains if c.startswith(prefix))

    def receiver_stores(self, i: int) -> frozenset[str]:
        """The attributes method ``i`` assigns on its receiver (``self.apply = ...``)."""
        me = self.receiver(i)
        if me is None:
            return frozenset()
        out: set[str] = set()
        for n in walk(self.nodes[i][0]):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AnnAssign) else ()
            for t in targets:
                for x in walk(t):
                    if isinstance(x, ast.Attribute) and isinstance(x.value, ast.Name) and x.value.id == me:
                        out.add(x.attr)
        return frozenset(out)

    def decorator_names(self, i: int) -> frozenset[str]:
        """The names the decorators of def ``i`` call or are (``@logged``, ``@traced(level)``):
        what a transform applied to the def also wraps (a ``functools.wraps`` wrapper)."""
        out: set[str] = set()
        for root in self.nodes[i]:
            if isinstance(root, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for d in root.decorator_list:
                    f = d.func if isinstance(d, ast.Call) else d
                    if isinstance(f, ast.Name):
                        out.add(f.id)
        return frozenset(out)

    def code_names(self, i: int) -> frozenset[str]:
        """Words unit ``i`` uses in code: its text without comments and string literals
        (f-strings stay: their braces hold code). A docstring that mentions ``jax.grad``
        does not make a def a seed."""
        key = ("code", i)
        hit = self._cache.get(key)
        if hit is None:
            u = self.units[i]
            text = "".join(self.source_lines[u.start - 1 : u.end])
            hit = self._cache[key] = frozenset(IDENT.findall(_STRINGS_AND_COMMENTS.sub(_blank_literal, text)))
        return hit


def walk(root: ast.AST) -> list[ast.AST]:
    """Every node under ``root`` (itself included), parents before children: a list built
    in one loop, about twice as fast as ``ast.walk``'s generators."""
    out: list[ast.AST] = []
    stack = [root]
    pop, push, extend, append = stack.pop, stack.append, stack.extend, out.append
    AST = ast.AST
    while stack:
        n = pop()
        append(n)
        for f in n._fields:
            v = getattr(n, f, None)
            if type(v) is list:
                extend([x for x in v if isinstance(x, AST)])
            elif isinstance(v, AST):
                push(v)
    return out


def _last(func: ast.AST) -> str | None:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _dotted(node: ast.Attribute) -> str | None:
    parts: list[str] = []
    n: ast.AST = node
    while isinstance(n, ast.Attribute):
        parts.append(n.attr)
        n = n.value
    if not isinstance(n, ast.Name):
        return None
    parts.append(n.id)
    return ".".join(reversed(parts))


def outline(source: str, lines: list[str] | None = None, module: str = "", is_package: bool = False) -> Outline | None:
    """The file's outline, or None when ``ast`` cannot read it (the caller parses it whole)."""
    tree = read_ast(source)
    if tree is None:
        return None
    if lines is None:
        lines = split_lines(source)
    units: list[Unit] = []
    nodes: list[list[ast.AST]] = []
    imports: dict[str, str] = {}
    package = module.split(".") if module else []
    if not is_package:
        package = package[:-1]
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.body and stmt.body[0].lineno > _last_header_line(stmt):
            # the header (decorators, bases, ``class X:``) is kept with the plain members
            header = _unit(stmt, lines, None, header_only=True)
            units.append(header)
            nodes.append([*stmt.decorator_list, *stmt.bases, *stmt.keywords])
            for member in stmt.body:
                units.append(_unit(member, lines, header.start))
                nodes.append([member])
        else:
            units.append(_unit(stmt, lines, None))
            nodes.append([stmt])
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                _imports(stmt, imports, package)
            elif (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and _alias(stmt.targets[0].id, stmt.value, imports)
            ):
                units[-1].alias = True
    # like jaxlint.base.names.ImportTable, an import inside a def binds its name file-wide
    for _, stmt in _nested_import_units(tree, units):
        for node in ast.walk(stmt):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                _imports(node, imports, package)
    return Outline(units, imports, len(lines), lines, nodes)


def _nested_import_units(tree: ast.Module, units: list[Unit]):
    by_start = {u.start: u for u in units if u.has_import and u.name is not None}
    if not by_start:
        return
    for stmt in tree.body:
        for m in [stmt, *(stmt.body if isinstance(stmt, ast.ClassDef) else ())]:
            decorators = getattr(m, "decorator_list", ())
            start = min([m.lineno] + [d.lineno for d in decorators])
            if start in by_start and isinstance(m, DEFS):
                yield by_start[start], m


def _last_header_line(cls: ast.ClassDef) -> int:
    """The line of the colon that opens the body (the body's first line is later)."""
    return max([cls.lineno] + [getattr(n, "end_lineno", cls.lineno) or cls.lineno for n in cls.bases + cls.keywords])


def _unit(stmt: ast.stmt, lines: list[str], owner: int | None, header_only: bool = False) -> Unit:
    start = stmt.lineno
    decorators = getattr(stmt, "decorator_list", ())
    if decorators:
        start = min(start, min(d.lineno for d in decorators))
    end = stmt.end_lineno or stmt.lineno
    header = stmt if header_only and isinstance(stmt, ast.ClassDef) else None
    if header is not None:
        end = header.body[0].lineno - 1
        while end > start and not lines[end - 1].strip():
            end -= 1
    text = "".join(lines[start - 1 : end])
    name = stmt.name if isinstance(stmt, DEFS) and header is None else None
    header_of = header.name if header is not None else None
    assigns: frozenset[str] = frozenset()
    if owner is None and isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        assigns = frozenset(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    idents: set[str] = set()
    chains: set[str] = set()
    for w in set(WORDS.findall(text)):
        if "." in w:
            if " " in w or "\t" in w:
                w = w.replace(" ", "").replace("\t", "")
            chains.add(w)
            idents.update(w.split("."))
        else:
            idents.add(w)
    return Unit(
        start,
        end,
        name,
        owner,
        frozenset(idents),
        tuple(chains),
        bool(IMPORT.search(text)),
        assigns,
        header_of,
        forwards=name is not None and "(*" in text and _forwards(stmt),
    )


def _forwards(fn: ast.stmt) -> bool:
    """``def f(fn, *args): ... fn(*args)``: a parameter called with the ``*args``."""
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.args.vararg is None:
        return False
    star = fn.args.vararg.arg
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args)}
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id in params
        and n.args
        and isinstance(n.args[0], ast.Starred)
        and isinstance(n.args[0].value, ast.Name)
        and n.args[0].value.id == star
        for n in ast.walk(fn)
    )


CONFLICT = "?"  # a name bound to two different things: any use may be anything


def _bind(out: dict[str, str], local: str, target: str) -> None:
    old = out.get(local)
    out[local] = target if old is None or old == target else CONFLICT


def _imports(stmt: ast.Import | ast.ImportFrom, out: dict[str, str], package: list[str]) -> None:
    if isinstance(stmt, ast.Import):
        for a in stmt.names:
            if a.asname:
                _bind(out, a.asname, a.name)
            else:
                top = a.name.split(".")[0]
                _bind(out, top, top)
        return
    base = stmt.module or ""
    if stmt.level:
        parts = package[: len(package) - (stmt.level - 1)] if stmt.level - 1 <= len(package) else []
        base = ".".join([*parts, base] if base else parts)
    for a in stmt.names:
        if a.name != "*":
            _bind(out, a.asname or a.name, f"{base}.{a.name}" if base else a.name)


def _alias(local: str, value: ast.expr, out: dict[str, str]) -> bool:
    """``tm = jax.tree_map`` at module level: ``tm`` spells what the dotted name resolves to."""
    parts: list[str] = []
    while isinstance(value, ast.Attribute):
        parts.append(value.attr)
        value = value.value
    if not isinstance(value, ast.Name):
        return False
    head = out.get(value.id)
    if head is None or head == CONFLICT:
        return True  # an alias of something local: still followed by the slicer
    _bind(out, local, ".".join([head, *reversed(parts)]))
    return True
