"""Shared machinery of JAX801 / JAX802: find catalogue entries in a file and build their fixes.

Both rules walk the same nodes; ``MigrationRule.wants(entry)`` decides which of the two
reports an entry for the target version. Names are resolved without the engine's
``ALIASES`` (which maps e.g. ``jax.experimental.shard_map.shard_map`` to ``jax.shard_map``):
here the spelling that was written is what matters.
"""

from __future__ import annotations

import re

import libcst as cst

from jaxlint.base.names import dotted, last_name
from jaxlint.base.types import Applicability
from jaxlint.lint.config import parse_version
from jaxlint.lint.rule import LineInsert, NodeEdit, Rule, RuleFix
from jaxlint.lint.wording import worded

from .table import (
    AT_METHOD,
    BY_OLD,
    CALL_NAMES,
    CONFIG,
    KEYWORDS,
    LAST_NAMES,
    LAZY_MODULES,
    MODULES,
    POSITIONAL,
    PRNG_IMPL,
    Entry,
)

_SHIM_EXCEPTIONS = {
    "AttributeError",
    "ImportError",
    "ModuleNotFoundError",
    "Exception",
    "BaseException",
    "TypeError",
    "NameError",
}
_VERSION_TEST = re.compile(r"hasattr|getattr|__version__|version|_jax_version|jax_version|jaxlib")
# ``with pytest.raises(...)``, ``@jtu.ignore_warning(category=DeprecationWarning)``: the old API is exercised on purpose
_DELIBERATE = re.compile(
    r"assertRaises|assertWarns|raises|warns|ignore_warning|catch_warnings|filterwarnings|deprecat", re.IGNORECASE
)
_ATOMIC = (
    cst.Name,
    cst.Attribute,
    cst.Call,
    cst.Subscript,
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.FormattedString,
    cst.List,
    cst.Tuple,
    cst.Dict,
    cst.Set,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
)
_SIMPLE = (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)
_MESH_MAKERS = {"jax.sharding.Mesh", "jax.make_mesh", "jax.experimental.maps.Mesh", "jax.interpreters.pxla.Mesh"}


def names_outside_imports(source: str) -> set[str]:
    """The identifiers LibCST would show as ``Name`` nodes outside import statements."""
    import ast
    import warnings

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


def version(text: str | None) -> tuple[int, ...] | None:
    return parse_version(text) if text else None


def is_simple(expr: cst.BaseExpression) -> bool:
    """An expression whose evaluation has no side effects (a name, a dotted name, a literal)."""
    if isinstance(expr, cst.Attribute):
        return is_simple(expr.value)
    if isinstance(expr, cst.UnaryOperation):
        return is_simple(expr.expression)
    return isinstance(expr, _SIMPLE)


def _parenthesized(expr: cst.BaseExpression) -> bool:
    return bool(getattr(expr, "lpar", ()))


class MigrationRule(Rule):
    """Base of JAX801/JAX802 (no code of its own, so the registry skips it)."""

    category = ""  # "removed" | "deprecated"
    anchors = frozenset()  # see seeds(): the catalogue decides which units may spell an entry
    reads = "statement"  # a finding is in the statement that spells the old API

    @classmethod
    def seeds(cls, outline):
        from .seeds import migration_seeds

        return migration_seeds(outline)

    def __init__(self, ctx, options=None) -> None:
        super().__init__(ctx, options)
        s = ctx.settings
        self.target = s.target_version if s is not None else parse_version("0.10.2")
        # the lowest jax the project declares (jaxlint.lint.requirements): replacements must exist there
        self.minimum_text = s.minimum_jax_version if s is not None else None
        self.minimum = s.minimum_version if s is not None else self.target
        self._module_imports: dict[str, str] | None = None
        self._names_used: set[str] | None = None
        self._mesh_names: dict[cst.CSTNode | None, dict[str, int]] = {}
        self._with_names: list[tuple[cst.WithItem, str, cst.CSTNode | None]] = []

    # which entries this rule reports -------------------------------------------------
    def wants(self, entry: Entry) -> bool:
        removed, deprecated = version(entry.removed), version(entry.deprecated)
        if self.category == "removed":
            return removed is not None and removed <= self.target
        return deprecated is not None and deprecated <= self.target and (removed is None or removed > self.target)

    def message(self, shown: str, entry: Entry, replacement: str | None = None) -> tuple[str, str]:
        """(headline, note): when the name went and what to use, if that fits a headline;
        the entry's explanation and what the project's jax requirement adds as the note."""
        head = self._when(f"`{shown}`", entry)
        replacement = replacement or self.replacement(entry)
        use = ""
        if replacement:
            use = f"use {replacement}" if "`" in replacement else f"use `{replacement}`"
        return worded(head, use, entry.note, self.project_clause(entry))

    # the lowest jax the project allows ---------------------------------------------------
    def _known_from(self, entry: Entry) -> tuple[str, bool] | None:
        """The first jax known to have ``entry.replacement``: ``since`` (exact) or, failing
        that, the deprecation of the old name (the replacement existed by then)."""
        if entry.since:
            return entry.since, True
        if entry.deprecated:
            return entry.deprecated, False
        return None

    def missing_replacement(self, entry: Entry) -> tuple[str, bool] | None:
        """(version, exact) when the replacement a fix would use may not exist in the lowest
        jax the project allows; None when it does (or no requirement was inferred)."""
        if self.minimum_text is None or entry.kind not in ("rename", "module") or not entry.replacement:
            return None
        known = self._known_from(entry)
        since = version(known[0]) if known is not None else None
        if known is None or since is None or since <= self.minimum:
            return None
        return known

    def project_clause(self, entry: Entry) -> str:
        """What the project's declared jax requirement adds to the message."""
        if self.minimum_text is None:
            return ""
        removed = version(entry.removed)
        if self.category == "removed" and removed is not None and removed <= self.minimum:
            return f"your project allows jax {self.minimum_text} and later, none of which has it"
        missing = self.missing_replacement(entry)
        if missing is None:
            return ""
        if missing[1]:
            return (
                f"your project allows jax {self.minimum_text}, where `{entry.replacement}` does not exist yet:"
                f" it was added in {missing[0]}"
            )
        return (
            f"your project allows jax {self.minimum_text}, where `{entry.replacement}` may not exist yet:"
            f" jaxlint knows it only from {missing[0]}"
        )

    def gated(self, fix: RuleFix | None, entry: Entry, new: str | None) -> RuleFix | None:
        """A fix to a replacement the lowest allowed jax may lack is offered only as unsafe."""
        if fix is None or new != entry.replacement:
            return fix
        missing = self.missing_replacement(entry)
        if missing is None:
            return fix
        why = (
            f"`{new}` was added in jax {missing[0]}"
            if missing[1]
            else f"jaxlint knows `{new}` only from jax {missing[0]}"
        )
        return RuleFix(
            f"{fix.message} (unsafe: {why}, and your project allows jax {self.minimum_text})", fix.edits, "unsafe"
        )

    def _when(self, subject: str, entry: Entry) -> str:
        """``<subject> was removed in JAX x`` / ``<subject> is deprecated since JAX y``."""
        if self.category == "removed":
            text = f"{subject} was removed {'by' if entry.removed_by else 'in'} JAX {entry.removed}"
            return text + (f" (deprecated since {entry.deprecated})" if entry.deprecated else "")
        text = f"{subject} is deprecated since JAX {entry.deprecated}"
        return text + (f" and removed in {entry.removed}" if entry.removed else "")

    def replacement(self, entry: Entry) -> str | None:
        """The replacement that exists in the lowest jax the code must run on (``alt`` for older ones)."""
        if entry.since and entry.alt and parse_version(entry.since) > self.minimum:
            return entry.alt
        return entry.replacement

    # shims and deliberate uses are not findings ---------------------------------------
    def in_shim(self, node: cst.CSTNode) -> bool:
        child = node
        for a in self.ctx.ancestors(node):
            if isinstance(a, cst.Try) and child is not a.orelse and child is not a.finalbody:
                for h in a.handlers:
                    if h.type is None or any(n in _SHIM_EXCEPTIONS for n in re.findall(r"\w+", self.ctx.code(h.type))):
                        return True
            elif (
                isinstance(a, (cst.If, cst.IfExp))
                and child is not a.test
                and _VERSION_TEST.search(self.ctx.code(a.test))
            ):
                return True
            elif isinstance(a, (cst.AssignTarget, cst.Del)):
                return True  # ``jax.tree_map = ...`` patches the name back in
            elif self._deliberate(a):
                return True
            child = a
        return False

    def _deliberate(self, node: cst.CSTNode) -> bool:
        """A ``with`` or decorator that expects the warning or error of the old API."""
        if isinstance(node, cst.With):
            return any(_DELIBERATE.search(self.ctx.code(i.item)) for i in node.items)
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return any(_DELIBERATE.search(self.ctx.code(d.decorator)) for d in node.decorators)
        return False

    # spelling a qualified name in this file -------------------------------------------
    def module_imports(self) -> dict[str, str]:
        """Local name -> qualified name for imports at module level (bound everywhere)."""
        if self._module_imports is None:
            out: dict[str, str] = {}
            for stmt in self.ctx.module.body:
                if not isinstance(stmt, cst.SimpleStatementLine):
                    continue
                for small in stmt.body:
                    if isinstance(small, cst.Import):
                        for a in small.names:
                            full = dotted(a.name) or ""
                            if a.asname is not None and isinstance(a.asname.name, cst.Name):
                                out[a.asname.name.value] = full
                            else:
                                out.setdefault(full.split(".")[0], full.split(".")[0])
                    elif (
                        isinstance(small, cst.ImportFrom)
                        and not small.relative
                        and small.module is not None
                        and not isinstance(small.names, cst.ImportStar)
                    ):
                        base = dotted(small.module) or ""
                        for a in small.names:
                            name = dotted(a.name) or ""
                            local = (
                                a.asname.name.value
                                if a.asname is not None and isinstance(a.asname.name, cst.Name)
                                else name
                            )
                            out[local] = f"{base}.{name}"
            self._module_imports = {k: v for k, v in out.items() if self.ctx.names.lookup(k) == v}
        return self._module_imports

    def names_used(self) -> set[str]:
        """Every name the file uses outside its imports (read from the whole file: LibCST
        may have seen it with unrelated defs blanked)."""
        if self._names_used is None:
            self._names_used = names_outside_imports(self.ctx.original_source)
        return self._names_used

    def spell(self, qualified: str, like: cst.BaseExpression | None = None) -> tuple[str, list[LineInsert]] | None:
        """How to write ``qualified`` here, and the imports to add if any are needed."""
        spelled = self._spell(qualified, like)
        if spelled is None:
            return None
        text, inserts, bound = spelled
        lazy = next((m for m in LAZY_MODULES if qualified == m or qualified.startswith(m + ".")), None)
        if lazy and not (bound == lazy or bound.startswith(lazy + ".")) and lazy not in self.imported_modules():
            inserts.append(LineInsert(self.import_line(), f"import {lazy}\n"))
        if len(inserts) > 1:  # one edit, so the imports keep their order
            inserts = [LineInsert(inserts[0].line, "".join(i.content for i in inserts))]
        return text, inserts

    def _spell(self, qualified: str, like: cst.BaseExpression | None) -> tuple[str, list[LineInsert], str] | None:
        if like is not None:
            text = dotted(like)
            if text is not None:
                head = text.split(".")[0]
                q = self.ctx.names.lookup(head)
                if q is not None and (qualified == q or qualified.startswith(q + ".")):
                    return head + qualified[len(q) :], [], q
        candidates = []
        for local, q in self.module_imports().items():
            if qualified == q or qualified.startswith(q + "."):
                candidates.append((len(local + qualified[len(q) :]), local + qualified[len(q) :], q))
        if candidates:
            _, text, q = min(candidates)
            return text, [], q
        top = qualified.split(".")[0]
        if self.ctx.names.lookup(top) is None and top not in self.names_used():
            return qualified, [LineInsert(self.import_line(), f"import {top}\n")], top
        return None

    def imported_modules(self) -> set[str]:
        """Modules any import of this file loads, old names counted as their replacement."""
        out: set[str] = set()
        for node in self.ctx.parents:
            if isinstance(node, cst.Import):
                out.update(dotted(a.name) or "" for a in node.names)
            elif (
                isinstance(node, cst.ImportFrom)
                and node.module is not None
                and not node.relative
                and not isinstance(node.names, cst.ImportStar)
            ):
                base = dotted(node.module) or ""
                out.add(base)
                out.update(f"{base}.{dotted(a.name)}" for a in node.names)
        for name in list(out):
            entry = self._module_entry(name)
            if entry is not None and entry.kind == "module" and entry.replacement:
                out.add(entry.replacement + name[len(entry.old) :])
        return out

    def import_line(self) -> int:
        """The line before which a new import goes: after the docstring and __future__ imports."""
        line = 1 + sum(self.ctx.code(e).count("\n") for e in self.ctx.module.header)
        for i, stmt in enumerate(self.ctx.module.body):
            first = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
            docstring = (
                i == 0
                and isinstance(first, cst.Expr)
                and isinstance(first.value, (cst.SimpleString, cst.ConcatenatedString))
            )
            future = (
                isinstance(first, cst.ImportFrom) and first.module is not None and dotted(first.module) == "__future__"
            )
            if not (docstring or future):
                return line + sum(self.ctx.code(e).count("\n") for e in stmt.leading_lines)
            line += self.ctx.code(stmt).count("\n")
        return line

    def resolve_name(self, expr: cst.BaseExpression) -> str | None:
        """The qualified name a dotted name refers to through the file's imports."""
        name = dotted(expr)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        q = self.ctx.names.lookup(head)
        if q is None:
            return None
        return f"{q}.{rest}" if rest else q

    # attribute references ---------------------------------------------------------------
    def entries_for(self, qualified: str | None) -> list[Entry]:
        if qualified is None:
            return []
        return [e for e in BY_OLD.get(qualified, ()) if not e.imports_only]

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value not in LAST_NAMES:
            return
        parent = self.ctx.parent(node)
        if isinstance(parent, (cst.Import, cst.ImportFrom, cst.ImportAlias)):
            return
        if isinstance(parent, cst.Attribute) and parent.value is node and self.entries_for(self.resolve_name(parent)):
            return  # the longer name is the finding
        qualified = self.resolve_name(node)
        for entry in self.entries_for(qualified):
            if not self.wants(entry) or self.in_shim(node):
                continue
            fix = self.reference_fix(node, entry)
            head, note = self.message(self.ctx.code(node), entry)
            self.report(node, head, fix=fix, note=note)
            return

    def reference_fix(self, node: cst.Attribute, entry: Entry) -> RuleFix | None:
        if entry.fix is None:
            return None
        if entry.kind in ("rename", "module"):
            if entry.only == "annotation" and not any(isinstance(a, cst.Annotation) for a in self.ctx.ancestors(node)):
                return None
            if entry.only == "with":
                call = self.ctx.parent(node)
                if not (
                    isinstance(call, cst.Call) and call.func is node and isinstance(self.ctx.parent(call), cst.WithItem)
                ):
                    return None
            new = self.replacement(entry)
            if not new:
                return None
            spelled = self.spell(new, node)
            if spelled is None:
                return None
            text, inserts = spelled
            fix = RuleFix(f"Replace with `{text}`", [NodeEdit(node, text), *inserts], entry.fix)
            return self.gated(fix, entry, new)
        if entry.kind == "call" and entry.rewrite:
            return getattr(self, f"_rewrite_{entry.rewrite}")(node, entry)
        return None

    # call rewrites -------------------------------------------------------------------
    def _call_of(self, node: cst.Attribute) -> cst.Call | None:
        call = self.ctx.parent(node)
        if isinstance(call, cst.Call) and call.func is node and all(a.star == "" for a in call.args):
            return call
        return None

    def _code(self, expr: cst.BaseExpression, atomic: bool = True) -> str:
        text = self.ctx.code(expr).strip()
        if atomic and not isinstance(expr, _ATOMIC) and not _parenthesized(expr):
            return f"({text})"
        return text

    def _rewrite_index_update(self, node: cst.Attribute, entry: Entry) -> RuleFix | None:
        call = self._call_of(node)
        if call is None or len(call.args) != 3 or any(a.keyword is not None for a in call.args):
            return None
        x, idx, y = (a.value for a in call.args)
        if isinstance(idx, cst.Subscript) and self.resolve_name(idx.value) == "jax.ops.index":
            index = self.ctx.code(idx).strip()[len(self.ctx.code(idx.value).strip()) :].strip()[1:-1].strip()
        else:
            index = self._code(idx, atomic=False)
        method = AT_METHOD[entry.old]
        text = f"{self._code(x)}.at[{index}].{method}({self._code(y, atomic=False)})"
        return RuleFix(f"Rewrite as `.at[...].{method}(...)`", [NodeEdit(call, text)], "safe")

    def _rewrite_tie_in(self, node: cst.Attribute, entry: Entry) -> RuleFix | None:
        call = self._call_of(node)
        if call is None or len(call.args) != 2 or any(a.keyword is not None for a in call.args):
            return None
        x, y = (a.value for a in call.args)
        safety: Applicability = "safe" if is_simple(x) else "unsafe"  # dropping `x` must not drop a side effect
        return RuleFix("Replace `tie_in(x, y)` with `y`", [NodeEdit(call, self._code(y))], safety)

    def _rewrite_msort(self, node: cst.Attribute, entry: Entry) -> RuleFix | None:
        call = self._call_of(node)
        if call is None or len(call.args) != 1 or call.args[0].keyword is not None:
            return None
        spelled = self.spell("jax.numpy.sort", node.value)
        if spelled is None:
            return None
        text, inserts = spelled
        return RuleFix(
            f"Rewrite as `{text}(a, axis=0)`",
            [NodeEdit(call, f"{text}({self._code(call.args[0].value, atomic=False)}, axis=0)"), *inserts],
            "safe",
        )

    def _rewrite_prng_impl(self, node: cst.Attribute, entry: Entry) -> RuleFix | None:
        call = self._call_of(node)
        if call is None or len(call.args) != 1 or call.args[0].keyword is not None:
            return None
        spelled = self.spell("jax.random.PRNGKey", node.value)
        if spelled is None:
            return None
        text, inserts = spelled
        impl = PRNG_IMPL[entry.old]
        return RuleFix(
            f"Rewrite as `{text}(seed, impl='{impl}')`",
            [NodeEdit(call, f"{text}({self._code(call.args[0].value, atomic=False)}, impl='{impl}')"), *inserts],
            "safe",
        )

    def _rewrite_pvary(self, node: cst.Attribute, entry: Entry) -> RuleFix | None:
        call = self._call_of(node)
        if call is None or len(call.args) != 2 or any(a.keyword is not None for a in call.args):
            return None
        spelled = self.spell("jax.lax.pcast", node)
        if spelled is None:
            return None
        text, inserts = spelled
        args = ", ".join(self._code(a.value, atomic=False) for a in call.args)
        return RuleFix(
            f"Rewrite as `{text}(..., to='varying')`",
            [NodeEdit(call, f"{text}({args}, to='varying')"), *inserts],
            "safe",
        )

    def _rewrite_xla_computation(self, node: cst.Attribute, entry: Entry) -> RuleFix | None:
        inner = self._call_of(node)
        outer = self.ctx.parent(inner) if inner is not None else None
        if inner is None or len(inner.args) != 1 or inner.args[0].keyword is not None:
            return None
        if not (isinstance(outer, cst.Call) and outer.func is inner and all(a.keyword is None for a in outer.args)):
            return None
        spelled = self.spell("jax.jit", node)
        if spelled is None:
            return None
        text, inserts = spelled
        args = ", ".join(
            self.ctx.code(a.value).strip() if a.star == "" else a.star + self.ctx.code(a.value).strip()
            for a in outer.args
        )
        new = f"{text}({self._code(inner.args[0].value, atomic=False)}).lower({args}).compiler_ir('hlo')"
        return RuleFix(
            "Rewrite with `jax.jit(...).lower(...).compiler_ir('hlo')`",
            [NodeEdit(outer, new), *inserts],
            entry.fix or "unsafe",
        )

    def _rewrite_constant(self, node: cst.Attribute, entry: Entry) -> RuleFix | None:
        value = entry.replacement or ""
        if value.startswith("-jax."):
            spelled = self.spell(value[1:], node.value)
            if spelled is None:
                return None
            text, inserts = "-" + spelled[0], spelled[1]
        else:
            text, inserts = value, []
        parent = self.ctx.parent(node)
        if text.startswith("-") and not isinstance(
            parent, (cst.Arg, cst.Element, cst.Assign, cst.AnnAssign, cst.Return, cst.Comparison, cst.ComparisonTarget)
        ):
            text = f"({text})"
        return RuleFix(f"Replace with `{text}`", [NodeEdit(node, text), *inserts], "safe")

    # keywords, positional arguments and config options ------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        last = last_name(func)
        if last == "partial" and node.args and node.args[0].keyword is None and node.args[0].star == "":
            if self.resolve_name(func) == "functools.partial":
                inner = self.resolve_name(node.args[0].value)
                if inner in KEYWORDS:
                    self._check_keywords(node, inner, list(node.args[1:]), partial=True)
            return
        if last == "update" and node.args and CONFIG:
            self._check_config(node)
            return
        if last not in CALL_NAMES:
            return
        qualified = self.resolve_name(func)
        if qualified in KEYWORDS:
            self._check_keywords(node, qualified, list(node.args), partial=False)
        if qualified in POSITIONAL:
            self._check_positional(node, qualified)

    def _check_config(self, node: cst.Call) -> None:
        if self.resolve_name(node.func) != "jax.config.update":
            return
        name = self.ctx.literal(node.args[0].value)
        entry = CONFIG.get(name) if isinstance(name, str) else None
        if entry is None or not self.wants(entry) or self.in_shim(node):
            return
        what = "removed" if self.category == "removed" else "deprecated"
        by = "by" if entry.removed_by else "in"
        when = f"{by} JAX {entry.removed}" if self.category == "removed" else f"since JAX {entry.deprecated}"
        head, note = worded(f"The config option '{name}' was {what} {when}", entry.note)
        self.report(node, head, note=note)

    def _check_keywords(self, node: cst.Call, qualified: str, args: list[cst.Arg], partial: bool) -> None:
        present = {a.keyword.value for a in node.args if a.keyword is not None}
        for entry in KEYWORDS[qualified]:
            arg = next((a for a in args if a.keyword is not None and a.keyword.value == entry.keyword), None)
            if arg is None or not self.wants(entry) or self.in_shim(node):
                continue
            short = self.ctx.code(node.args[0].value if partial else node.func).strip()
            use = ""
            if entry.position is not None:
                use = f"pass it as positional argument {entry.position + 1}"
            elif entry.new_keyword:
                use = f"use `{entry.new_keyword}=`"
            elif entry.fix:
                use = "remove the argument"
            head, note = worded(self._when(f"The `{entry.keyword}=` argument of `{short}`", entry), use, entry.note)
            self.report(arg, head, fix=self._keyword_fix(node, arg, entry, present, partial), note=note)

    def _keyword_fix(
        self, node: cst.Call, arg: cst.Arg, entry: Entry, present: set[str], partial: bool
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
            return None if partial else self._to_positional(node, entry.old)
        # drop the argument
        if not is_simple(arg.value):
            return None
        new_args = [a for a in node.args if a is not arg]
        return RuleFix(f"Remove `{entry.keyword}=`", [NodeEdit(node, self._call_text(node, new_args))], entry.fix)

    def _to_positional(self, node: cst.Call, qualified: str) -> RuleFix | None:
        """Move every keyword that became positional into place (once for the whole call)."""
        moving = {e.keyword: e.position for e in KEYWORDS[qualified] if e.position is not None and self.wants(e)}
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
        new_args = [
            a.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT) if a in moved else a for a in new_order
        ]
        return RuleFix("Pass the arguments positionally", [NodeEdit(node, self._call_text(node, new_args))], safety)

    def _check_positional(self, node: cst.Call, qualified: str) -> None:
        positional = [a for a in node.args if a.keyword is None and a.star == ""]
        if any(a.star for a in node.args):
            return
        for entry in POSITIONAL[qualified]:
            extra = positional[entry.max_positional or 0 :]
            if not extra or not self.wants(entry) or self.in_shim(node):
                continue
            name = self.ctx.code(node.func).strip()
            n = entry.max_positional
            use = ""
            if entry.then_keywords:
                use = "pass " + ", ".join(f"`{k}=`" for k in entry.then_keywords[: len(extra)]) + " by keyword"
            plural = "s" if n != 1 else ""
            msg, note = worded(
                self._when(f"Passing more than {n} positional argument{plural} to `{name}`", entry), use, entry.note
            )
            fix = None
            present = {a.keyword.value for a in node.args if a.keyword is not None}
            if (
                entry.then_keywords
                and len(extra) <= len(entry.then_keywords)
                and not present & set(entry.then_keywords[: len(extra)])
            ):
                new_args = list(node.args)
                for a, kw in zip(extra, entry.then_keywords, strict=False):
                    i = new_args.index(a)
                    new_args[i] = a.with_changes(
                        keyword=cst.Name(kw), equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
                    )
                fix = RuleFix(
                    "Pass the extra arguments by keyword",
                    [NodeEdit(node, self._call_text(node, new_args))],
                    entry.fix or "safe",
                )
            self.report(node, msg, fix=fix, note=note)

    def _call_text(self, node: cst.Call, args: list[cst.Arg]) -> str:
        trailing = bool(node.args) and isinstance(node.args[-1].comma, cst.Comma)
        fixed = []
        for i, a in enumerate(args):
            if i < len(args) - 1 and not isinstance(a.comma, cst.Comma):
                a = a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            elif i == len(args) - 1:
                if trailing:
                    a = a.with_changes(comma=node.args[-1].comma)
                else:
                    a = a.with_changes(comma=cst.MaybeSentinel.DEFAULT)
            fixed.append(a)
        return self.ctx.code(node.with_changes(args=fixed))

    # imports ----------------------------------------------------------------------------
    @staticmethod
    def _module_entry(qualified: str) -> Entry | None:
        """The entry of a removed or moved module that is or contains ``qualified``."""
        parts = qualified.split(".")
        for i in range(len(parts), 1, -1):
            for e in BY_OLD.get(".".join(parts[:i]), ()):
                if e.kind == "module" or e.old in MODULES:
                    return e
        return None

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar) or node.module is None or node.relative:
            return
        base = dotted(node.module) or ""
        if not base.startswith("jax"):
            return
        base_entry = self._module_entry(base)
        own = any(
            e.kind != "module" and not e.imports_only
            for a in node.names
            for e in BY_OLD.get(f"{base}.{dotted(a.name)}", ())
        )
        if base_entry is not None and not base_entry.imports_only and not own:
            if self.wants(base_entry) and not self.in_shim(node):
                fix = None
                if base_entry.kind == "module" and base_entry.fix == "safe" and base_entry.replacement:
                    new = base_entry.replacement + base[len(base_entry.old) :]
                    fix = RuleFix(f"Import from `{new}`", [NodeEdit(node.module, new)], "safe")
                fix = self.gated(fix, base_entry, base_entry.replacement)
                head, note = self.message(base, base_entry)
                self.report(node, head, fix=fix, note=note)
            return
        for alias in node.names:
            name = dotted(alias.name) or ""
            qualified = f"{base}.{name}"
            entry = next((e for e in BY_OLD.get(qualified, ()) if not e.imports_only), base_entry)
            if entry is None or not self.wants(entry) or self.in_shim(node):
                continue
            shown = qualified if entry is not base_entry else base
            fix = self.gated(self._from_import_fix(node, alias, entry), entry, entry.alt or entry.replacement)
            head, note = self.message(shown, entry)
            self.report(alias, head, fix=fix, note=note)

    def _from_import_fix(self, node: cst.ImportFrom, alias: cst.ImportAlias | None, entry: Entry) -> RuleFix | None:
        if entry.fix != "safe" or entry.only or entry.kind not in ("rename", "module") or alias is None:
            return None
        if node.module is None or isinstance(node.names, cst.ImportStar):  # visit_ImportFrom skips both
            return None
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
        local = (
            alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) else name
        )
        spelled_alias = new_name if new_name == local else f"{new_name} as {local}"
        if new_base == base:
            return RuleFix(
                f"Import `{spelled_alias}`",
                [
                    NodeEdit(
                        alias,
                        spelled_alias + (self.ctx.code(alias.comma) if isinstance(alias.comma, cst.Comma) else ""),
                    )
                ],
                "safe",
            )
        statement = f"from {new_base} import {spelled_alias}"
        if len(node.names) == 1:
            return RuleFix(f"Replace with `{statement}`", [NodeEdit(node, statement)], "safe")
        line = self.ctx.parent(node)
        if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
            return None
        rest = [a for a in node.names if a is not alias]
        if not node.lpar:
            rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        kept = self.ctx.code(node.with_changes(names=rest))
        return RuleFix(
            f"Move `{name}` to `{statement}`", [NodeEdit(node, f"{kept}\n{self.indent_of(node)}{statement}")], "safe"
        )

    def indent_of(self, node: cst.CSTNode) -> str:
        indent = ""
        for a in self.ctx.ancestors(node):
            if isinstance(a, cst.IndentedBlock):
                indent = (a.indent if a.indent is not None else self.ctx.module.default_indent) + indent
        return indent

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            name = dotted(alias.name) or ""
            if not name.startswith("jax"):
                continue
            entry = self._module_entry(name)
            if entry is None or not self.wants(entry) or self.in_shim(node):
                continue
            fix = None
            if entry.kind == "module" and entry.fix == "safe":
                if entry.imports_only:
                    if alias.asname is None:
                        fix = RuleFix("Import `jax`", [NodeEdit(alias.name, "jax")], "safe")
                elif entry.replacement:
                    new = entry.replacement + name[len(entry.old) :]
                    fix = self.gated(
                        RuleFix(f"Import `{new}`", [NodeEdit(alias.name, new)], "safe"), entry, entry.replacement
                    )
            head, note = self.message(name, entry)
            self.report(alias, head, fix=fix, note=note)

    # ``with mesh:`` --------------------------------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        if self.category != "deprecated" or len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        scope = self.ctx.enclosing_function(node)
        name = node.targets[0].target.value
        names = self._mesh_names.setdefault(scope, {})
        is_mesh = isinstance(node.value, cst.Call) and self.resolve_name(node.value.func) in _MESH_MAKERS
        names[name] = names.get(name, 0) + (1 if is_mesh else 100)  # any other binding makes it unknown

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if self.category != "deprecated" or node.asname is not None:
            return
        item = node.item
        if isinstance(item, cst.Name):
            self._with_names.append((node, item.value, self.ctx.enclosing_function(node)))
        elif isinstance(item, cst.Call) and self.resolve_name(item.func) in _MESH_MAKERS:
            self._report_with(node)

    def _report_with(self, node: cst.WithItem) -> None:
        entry = WITH_MESH
        if self.wants(entry) and not self.in_shim(node):
            code = self.ctx.code(node.item).strip()
            head, note = worded(
                f"`with {code}:` is deprecated since JAX {entry.deprecated}",
                f"use `with jax.set_mesh({code}):`",
                entry.note,
            )
            self.report(node, head, note=note)

    def finish(self) -> None:
        for node, name, scope in self._with_names:
            if self._mesh_names.get(scope, {}).get(name) == 1:
                self._report_with(node)


WITH_MESH = Entry(
    "with mesh",
    "jax.set_mesh",
    "0.10.2",
    None,
    "manual",
    "`set_mesh` also sets the abstract mesh used by sharding-in-types",
    fix=None,
)
