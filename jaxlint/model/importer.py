"""How a qualified name is spelled in one file, and the import a fix adds when it cannot be.

The importer of ruff (``crates/ruff_linter/src/importer``), on the file's import table
(``jaxlint.base.names.ImportTable``) and the binder's module-level import bindings
(``jaxlint.model.scopes``): no parser of its own.

- ``qualified(expr)``: what a written dotted name refers to, in the spelling that was
  written (``J.tree_map`` under ``import jax as J`` is ``jax.tree_map``). Unlike
  ``ImportTable.resolve`` it does not apply the engine's ``ALIASES`` (which read
  ``jax.experimental.shard_map.shard_map`` as ``jax.shard_map``): a migration is about
  the name that was written.
- ``spell(qualified, like=)``: how to write ``qualified`` here. Through the binding the
  written expression ``like`` goes through, else the shortest spelling through a
  module-level import, else the full name with an ``import <top>`` to add (when the file
  binds no such name); None when neither works.
- ``import_module(module)``: the insertion of ``import <module>``, at ``import_line()``:
  after the module docstring and the ``from __future__`` imports, before the other
  imports (ruff adds after the last import; jaxlint has always added before them).

The inserted text is an ``Insertion`` (a line and its content): the model does not import
the rule API, a rule turns it into a ``LineInsert``.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass

import libcst as cst

from jaxlint.base.names import dotted


@dataclass(frozen=True, slots=True)
class Insertion:
    """Insert ``content`` at the start of 1-based ``line``."""

    line: int
    content: str


@dataclass(frozen=True, slots=True)
class Spelling:
    """``text`` refers to the qualified name asked for once ``imports`` are inserted;
    ``through`` is the qualified name of the import binding the text starts with."""

    text: str
    imports: tuple[Insertion, ...]
    through: str

    def adding(self, extra: Insertion) -> Spelling:
        """This spelling with one more import, merged into one insertion so the imports
        keep their order."""
        if not self.imports:
            return Spelling(self.text, (extra,), self.through)
        first = self.imports[0]
        content = "".join(i.content for i in self.imports) + extra.content
        return Spelling(self.text, (Insertion(first.line, content),), self.through)


def importer(ctx) -> Importer:
    """The file's importer (built on first use, shared by every rule of the file)."""
    found = ctx.shared.get("importer")
    if found is None:
        found = ctx.shared["importer"] = Importer(ctx)
    return found


def _under(qualified: str, prefix: str) -> bool:
    return qualified == prefix or qualified.startswith(prefix + ".")


class Importer:
    """Spellings and imports of one file (see the module docstring)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._module_imports: dict[str, str] | None = None
        self._names_used: set[str] | None = None
        self._imported: set[str] | None = None
        self._line: int | None = None

    # what a written name refers to ------------------------------------------------------
    def qualified(self, expr: cst.BaseExpression) -> str | None:
        """The qualified name a dotted name refers to through the file's imports, as
        written (no ``ALIASES``); None for anything else or a name the file binds twice."""
        name = dotted(expr)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        q = self.ctx.names.lookup(head)
        if q is None:
            return None
        return f"{q}.{rest}" if rest else q

    # the file's imports ---------------------------------------------------------------------
    def module_imports(self) -> dict[str, str]:
        """Local name -> qualified name of the import statements at the top level of the
        module (bound everywhere after them), those the whole file agrees on."""
        if self._module_imports is None:
            from . import program

            out: dict[str, str] = {}
            module = self.ctx.module
            parent = self.ctx.parent
            for local, bindings in program(self.ctx).module_scope.bindings.items():
                for b in bindings:
                    statement = parent(b.node)
                    if b.kind != "import" or b.imported is None or statement is None:
                        continue
                    if type(statement) is cst.ImportFrom and statement.relative:
                        continue
                    if parent(parent(statement)) is module and self.ctx.names.lookup(local) == b.imported:
                        out[local] = b.imported
            self._module_imports = out
        return self._module_imports

    def imported_modules(self) -> set[str]:
        """The modules (and ``from`` names) any absolute import of the file names."""
        if self._imported is None:
            out: set[str] = set()
            for node in self.ctx.parents:
                if type(node) is cst.Import:
                    out.update(dotted(a.name) or "" for a in node.names)
                elif (
                    type(node) is cst.ImportFrom
                    and node.module is not None
                    and not node.relative
                    and not isinstance(node.names, cst.ImportStar)
                ):
                    base = dotted(node.module) or ""
                    out.add(base)
                    out.update(f"{base}.{dotted(a.name)}" for a in node.names)
            self._imported = out
        return set(self._imported)

    def names_used(self) -> set[str]:
        """Every identifier the file uses outside its imports, read from the whole file
        (LibCST may have seen it with unrelated defs blanked): a new ``import x`` must not
        take a name the file already gives something else."""
        if self._names_used is None:
            self._names_used = _names_outside_imports(self.ctx.original_source)
        return self._names_used

    # where an import goes ----------------------------------------------------------------
    def import_line(self) -> int:
        """The line before which a new import goes: after the docstring and the
        ``from __future__`` imports (and the blank lines or comments before the next statement)."""
        if self._line is None:
            code = self.ctx.code
            line = 1 + sum(code(e).count("\n") for e in self.ctx.module.header)
            self._line = None
            for i, stmt in enumerate(self.ctx.module.body):
                first = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
                docstring = (
                    i == 0
                    and isinstance(first, cst.Expr)
                    and isinstance(first.value, (cst.SimpleString, cst.ConcatenatedString))
                )
                future = (
                    isinstance(first, cst.ImportFrom)
                    and first.module is not None
                    and dotted(first.module) == "__future__"
                )
                if not (docstring or future):
                    self._line = line + sum(code(e).count("\n") for e in stmt.leading_lines)
                    break
                line += code(stmt).count("\n")
            if self._line is None:
                self._line = line
        return self._line

    def import_module(self, module: str) -> Insertion:
        """The insertion of ``import <module>``."""
        return Insertion(self.import_line(), f"import {module}\n")

    # spelling a qualified name --------------------------------------------------------------
    def spell(self, qualified: str, like: cst.BaseExpression | None = None) -> Spelling | None:
        """How to write ``qualified`` here (see the module docstring), or None."""
        if like is not None:
            text = dotted(like)
            if text is not None:
                head = text.split(".")[0]
                q = self.ctx.names.lookup(head)
                if q is not None and _under(qualified, q):
                    return Spelling(head + qualified[len(q) :], (), q)
        candidates = [
            (len(local + qualified[len(q) :]), local + qualified[len(q) :], q)
            for local, q in self.module_imports().items()
            if _under(qualified, q)
        ]
        if candidates:
            _, text, q = min(candidates)
            return Spelling(text, (), q)
        top = qualified.split(".")[0]
        if self.ctx.names.lookup(top) is None and top not in self.names_used():
            return Spelling(qualified, (self.import_module(top),), top)
        return None


def _names_outside_imports(source: str) -> set[str]:
    """The identifiers LibCST would show as ``Name`` nodes outside import statements."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set(re.findall(r"[A-Za-z_]\w*", source))  # cannot tell: every word counts
    used: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            used.add(n.id)
        elif isinstance(n, ast.Attribute):
            used.add(n.attr)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            used.add(n.name)
        elif isinstance(n, (ast.arg, ast.keyword)) and n.arg:  # ``**kwargs`` passes a keyword without a name
            used.add(n.arg)
        elif isinstance(n, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and n.name:
            used.add(n.name)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            used.update(n.names)
    return used
