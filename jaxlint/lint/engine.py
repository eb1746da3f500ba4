"""Lint one file: parse once, collect facts, run every rule in one batched walk.

The walk is our own: it skips whitespace and punctuation fields and dispatches
``visit_<Node>``/``leave_<Node>`` to every enabled rule; it is about ten times faster
than LibCST's visitor. Positions are computed only for reported nodes.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from typing import Any

import libcst as cst

from jaxlint.base.crash import describe
from jaxlint.base.modules import module_name_for
from jaxlint.base.positions import node_ranges
from jaxlint.base.statements import split_lines
from jaxlint.base.tree import NODE_TYPES, _fields
from jaxlint.base.types import Diagnostic, Edit, FileResult, Fix, Pending, Position
from jaxlint.lint.imports import Imports, ModuleReader
from jaxlint.lint.parse import TooLarge, parse_module, too_many_tokens
from jaxlint.lint.rule import LineInsert, NodeEdit, Report, Rule, RuleFix
from jaxlint.lint.suppress import scan_suppressions
from jaxlint.model import forwarding, frameworks  # noqa: F401  (frameworks: registers what test frameworks mean)
from jaxlint.model.calls import record_for
from jaxlint.model.context import FileContext
from jaxlint.model.facts import collect_facts
from jaxlint.plan import standins
from jaxlint.plan.importers import parse_entries, parse_hops, parse_judged
from jaxlint.plan.slicing import Blanks, apply_blanks, plan_file


def _malloc_trim():
    try:
        import ctypes

        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc: nothing to give back
        return None


_TRIM = _malloc_trim()


def release_memory() -> None:
    """Give freed heap memory back to the OS. LibCST's native parser uses several times the
    tree's size while parsing and frees it at the end, but glibc keeps the pages: without
    this a worker stays at the high-water mark of the largest file it ever parsed."""
    if _TRIM is not None:
        _TRIM(0)


def walk_events(module: cst.Module) -> tuple[list[tuple[cst.CSTNode, bool]], dict[cst.CSTNode, cst.CSTNode]]:
    """Pre-order enter/leave events over the syntax nodes, and each node's parent."""
    events: list[tuple[cst.CSTNode, bool]] = []
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    append = events.append
    nodes = NODE_TYPES
    stack: list[tuple[cst.CSTNode, bool]] = [(module, True)]
    pop = stack.pop
    push = stack.append
    while stack:
        node, entering = pop()
        append((node, entering))
        if not entering:
            continue
        push((node, False))
        children: list[cst.CSTNode] = []
        for name in _fields(type(node)):
            v = getattr(node, name)
            t = type(v)
            if t in nodes:
                children.append(v)
            elif t is tuple or t is list:
                for x in v:
                    if type(x) in nodes:
                        children.append(x)
        for c in reversed(children):
            parents[c] = node
            push((c, True))
    return events, parents


# A marker among a file's ``anchored`` names: a module the run reads imports from this file
# (``from utils import log_scalars`` in a module with a jitted step), so the rules that follow a
# traced function's calls into the defs of other modules (``target_callees``: JAX4xx, JAX503)
# read it whatever its words (``Runner._promote_imported``).
IMPORTED = "<imported by a read module>"


def reads_anyway(rule: type[Rule], anchored: frozenset[str]) -> bool:
    """Does ``rule`` read a file whatever its words, given the ``anchored`` names the project
    phase found for it (other modules' project anchors it names, or ``IMPORTED``)?"""
    if IMPORTED in anchored and rule.target_callees:
        return True
    return rule.project_anchors and bool(anchored - {IMPORTED})


class FileLinter:
    """Runs a set of rule classes over files; one instance per worker process."""

    def __init__(
        self,
        rules: Sequence[type[Rule]],
        options: dict[str, dict[str, Any]] | None = None,
        settings: Any = None,
        slicing: bool = True,
    ) -> None:
        self.rules = list(rules)
        self.slicing = slicing
        self.options = options or {}
        self.settings = settings
        self.reader = ModuleReader(settings)  # the project modules files import (jaxlint.lint.imports)
        # called once a file's tree, events and parents are built (the run's collector
        # policy: jaxlint.api ``_freeze_tree``)
        self.on_parsed: Callable[[], None] | None = None
        self._methods: dict[type[Rule], list[tuple[str, str]]] = {}
        for r in self.rules:
            self._methods[r] = [
                (m, m.split("_", 1)[1]) for m in dir(r) if (m.startswith("visit_") or m.startswith("leave_"))
            ]
        words: set[str] = set()
        self.always = not self.rules  # JAX001 alone: parse everything
        for r in self.rules:
            if not r.triggers:
                self.always = True
            words.update(r.triggers)
        self.triggers = sorted(words)
        self._found: tuple[str, dict[str, bool]] = ("", {})  # the last text: its words looked for

    def _has(self, source: str, word: str) -> bool:
        """Is ``word`` in ``source``? Each word is looked for once per text: a pass asks
        for the same words several times, each a scan of the whole text."""
        text, found = self._found
        if text is not source:
            found = {}
            self._found = (source, found)
        hit = found.get(word)
        if hit is None:
            hit = found[word] = word in source
        return hit

    def wants(self, source: str, anchored: frozenset[str] = frozenset()) -> bool:
        """Trigger pre-filter: is any enabled rule's trigger word in the text? ``anchored``: the
        project anchors of other modules the file names (``Runner._promote``), which the rules
        reading project anchors judge whatever the file's words."""
        if self.always or (anchored and any(reads_anyway(r, anchored) for r in self.rules)):
            return True
        return any(self._has(source, w) for w in self.triggers)

    def lint(
        self,
        path: str,
        source: str,
        module_name: str | None = None,
        is_package: bool | None = None,
        blanks: Blanks = (),
        looked_up: frozenset[str] | None = None,
        callers_of_seeds: frozenset[str] | None = None,
        anchored: frozenset[str] = frozenset(),
        importers: frozenset[str] = frozenset(),
    ) -> FileResult:
        """Lint one file; ``blanks`` are the line ranges no wanted rule needs, ``looked_up``
        the defs a rule may look up in the project phase (None: any; see jaxlint.plan.slicing),
        ``importers`` the files that import its defs (jaxlint.plan.importers)."""
        result = FileResult(path=path)
        raw = source
        python = python_source(path, source, result)
        if python is None:
            return result
        source = python
        result.suppressions = scan_suppressions(source)
        if not self.wants(source, anchored):
            return result
        if module_name is None:
            module_name, is_package = module_name_for(path)
        wanted = self.wanted_rules(source, anchored)
        whole = with_standins(source)
        text = apply_blanks(whole, blanks) if blanks else whole
        # brackets nested deeper than LibCST survives (counted in strings too: Python decides)
        if (too_deep_to_parse(whole) and not python_accepts(whole)) or (not self.slicing and ast_too_deep(whole)):
            result.diagnostics.append(_too_deep(path))
            return result
        chain = operator_chain_line(whole)
        if chain:  # LibCST's parser would crash the process
            result.diagnostics.append(
                not_checked(
                    path,
                    f"Line {chain} has more than {MAX_OPERATORS_FOR_LIBCST:,} operators in one chain, more than "
                    "LibCST, the parser jaxlint's rules read, survives; the file was not checked",
                    Position(chain, 1),
                )
                if python_accepts(whole)
                else _too_deep(path)
            )
            return result
        try:
            first_lines: dict = {}  # see jaxlint.base.positions: known when parsed in pieces
            try:
                module = parse_module(text, first_lines=first_lines)
            except cst.ParserSyntaxError:
                if text is whole:
                    raise
                text = whole  # ``ast`` and LibCST disagree: let LibCST see the whole file
                module = parse_module(text, first_lines=first_lines)
            finally:
                release_memory()
        except cst.ParserSyntaxError as e:
            result.diagnostics.append(_syntax_error(path, whole, e, source))
            return result
        except TooLarge as e:  # over the memory budget: found before anything was parsed
            result.diagnostics.append(not_checked(path, str(e), Position(e.line, 1)))
            return result
        except RecursionError:
            result.diagnostics.append(_too_deep_for_libcst(path, whole))
            return result
        imports: Imports | None = None
        ctx: FileContext | None = None
        try:
            events, parents = walk_events(module)
            if self.on_parsed is not None:
                self.on_parsed()
            names, facts, qualnames = collect_facts(path, module, events, module_name, bool(is_package))
            ctx = FileContext(path, text, module, names, facts, qualnames, parents, self.settings, events)
            if first_lines:
                ctx.shared["positions"] = {"first_lines": first_lines}
            ctx.original_source = source
            if path.endswith(".ipynb"):
                from jaxlint.files.notebook import raising_lines

                ctx.raising_lines = raising_lines(raw)
            ctx.looked_up = looked_up
            ctx.callers_of_seeds = callers_of_seeds
            imports = Imports(self.reader, path, module_name, bool(is_package))
            ctx.load_module = imports.load
            ctx.importers = parse_entries(importers)
            ctx.hops = parse_hops(importers)
            ctx.judged = parse_judged(importers)
            ctx.load_importer = imports.load_path
            instances = self._run_rules(result, ctx, wanted, events)
            record_for(ctx, wanted)  # the call paths' uses, for the rules that read them (reads = "call paths")
            forwarding.record_for(ctx, wanted)  # the defs that forward ``*args`` (reads = "forwarders")
            reports = [rep for inst in instances for rep in inst.reports]
            self._materialise(result, module, ctx, reports)
            if result.suppressions.needs_statement_ranges:
                _statement_ranges(module, events, result.suppressions)
            result.facts = facts
            result.deps = sorted(imports.deps.items())
        except (RecursionError, MemoryError) as exc:  # the engine's own walk over extreme code
            result.diagnostics = [not_checked(path, resource_reason(exc))]
        except Exception as exc:  # a bug in the engine must not lose the other files' results
            result.internal_error = describe(exc)
        finally:
            if imports is not None:
                imports.release()
            if ctx is not None:
                ctx.release()
        return result

    def _run_rules(self, result: FileResult, ctx: FileContext, wanted: list[type[Rule]], events) -> list[Rule]:
        """One walk dispatching to every rule; a rule that raises loses only its own findings
        on this file (reported in ``result``), the others go on."""
        instances: list[Rule] = []
        for r in wanted:
            try:
                instances.append(r(ctx, self.options.get(r.code)))
            except Exception as exc:
                _rule_failed(result, r, exc)
        visit, leave = self._dispatch(instances)
        for node, entering in events:
            handlers = (visit if entering else leave).get(type(node).__name__)
            if handlers:
                for h in handlers:
                    try:
                        h(node)
                    except Exception as exc:
                        inst = h.__self__
                        _rule_failed(result, type(inst), exc)
                        instances.remove(inst)
                        visit, leave = self._dispatch(instances)
        for inst in list(instances):
            try:
                inst.finish()
            except Exception as exc:
                _rule_failed(result, type(inst), exc)
                instances.remove(inst)
        return instances

    def _dispatch(self, instances: list[Rule]) -> tuple[dict[str, list], dict[str, list]]:
        """Node type name -> the bound visit_/leave_ methods of ``instances``."""
        visit: dict[str, list] = {}
        leave: dict[str, list] = {}
        for inst in instances:
            for method, node_type in self._methods[type(inst)]:
                (visit if method.startswith("visit_") else leave).setdefault(node_type, []).append(
                    getattr(inst, method)
                )
        return visit, leave

    def plan(
        self,
        path: str,
        source: str,
        module_name: str | None = None,
        is_package: bool | None = None,
        explicit: bool = False,
        anchored: frozenset[str] = frozenset(),
    ):
        """First pass: ``("done", FileResult)`` when no rule wants the file, ``("plan", FilePlan)``
        to decide what LibCST must see, ``("whole", None)`` when it must see all of it.

        A file no rule wants is still checked for syntax errors when it mentions ``jax`` or
        was named ``explicit``-ly: "All checks passed!" must not cover a file Python cannot
        parse."""
        unreadable = FileResult(path=path)
        python = python_source(path, source, unreadable)
        if python is None:
            return "done", unreadable
        source = python
        if not self.wants(source, anchored):
            result = FileResult(path=path)
            result.suppressions = scan_suppressions(source)
            result.prefilter = "skipped"
            if explicit or "jax" in source:
                syntax_check(result, source)
            return "done", result
        # planned also when not slicing: the plans say which names other modules import
        # (``Runner._promote``); the run then blanks nothing (``Runner._decide``)
        if module_name is None:
            module_name, is_package = module_name_for(path)
        wanted = self.wanted_rules(source, anchored)
        text = with_standins(source)  # what the parsers read: positions as in ``source``
        over = too_many_tokens(text)
        if over is not None:  # over the memory budget: not even ``ast`` reads it
            result = FileResult(path=path, diagnostics=[not_checked(path, str(over))])
            result.suppressions = scan_suppressions(source)
            return "done", result
        plan = plan_file(path, text, wanted, module_name, bool(is_package), anchored)
        if plan is not None:
            # every rule that follows such calls reads it (not only some of them)
            plan.callees = all(r in wanted for r in self.rules if r.target_callees)
        if plan is None and ast_too_deep(text):  # ``ast`` gave up: spare LibCST the attempt
            result = FileResult(path=path, diagnostics=[_too_deep(path)])
            result.suppressions = scan_suppressions(source)
            return "done", result
        return ("plan", plan) if plan is not None else ("whole", None)

    def wanted_rules(self, source: str, anchored: frozenset[str] = frozenset()) -> list[type[Rule]]:
        """The rules whose trigger words occur in the text (families share their words),
        and, when the file names project anchors of other modules, the rules reading them."""
        known: dict[tuple[str, ...], bool] = {}
        out = []
        for r in self.rules:
            ok = known.get(r.triggers)
            if ok is None:
                ok = known[r.triggers] = self._wants_rule(r, source)
            if ok or (anchored and reads_anyway(r, anchored)):
                out.append(r)
        return out

    def _wants_rule(self, rule: type[Rule], source: str) -> bool:
        return not rule.triggers or any(self._has(source, w) for w in rule.triggers)

    def _materialise(self, result: FileResult, module, ctx, reports: list[Report]) -> None:
        # exact ranges only for what is reported
        nodes: set[cst.CSTNode] = set()
        for rep in reports:
            nodes.add(rep.node)
            if rep.fix:
                for e in rep.fix.edits:
                    if isinstance(e, NodeEdit):
                        nodes.add(e.node)
                        if e.end_node is not None:
                            nodes.add(e.end_node)
        ranges = (
            node_ranges(module, nodes, ctx.parents, ctx.source, ctx.shared.setdefault("positions", {})) if nodes else {}
        )
        by_code = {r.code: r for r in self.rules}
        for rep in reports:
            r = ranges.get(rep.node)
            if r is None:
                continue
            start, end = Position(r[0][0], r[0][1] + 1), Position(r[1][0], r[1][1] + 1)
            fix = self._fix(rep.fix, ranges) if rep.fix else None
            rule = by_code[rep.code]
            if rep.pending_data is not None:
                result.pending.append(Pending(rep.code, result.path, start, end, rep.pending_data, fix))
            else:
                result.diagnostics.append(
                    Diagnostic(
                        result.path,
                        rep.code,
                        rule.name,
                        rep.message,
                        start,
                        end,
                        fix,
                        rule.is_preview(),
                        rule.help,
                        note=rep.note,
                    )
                )

    @staticmethod
    def _fix(fix: RuleFix, ranges) -> Fix | None:
        edits: list[Edit] = []
        for e in fix.edits:
            if isinstance(e, LineInsert):
                edits.append(Edit(Position(e.line, 1), Position(e.line, 1), e.content))
                continue
            r = ranges.get(e.node)
            if r is None:
                return None
            end_r = ranges.get(e.end_node) if e.end_node is not None else r
            if end_r is None:
                return None
            start = Position(r[0][0], r[0][1] + 1)
            end = Position(end_r[1][0], end_r[1][1] + 1)
            if e.where == "before":
                end = start
            elif e.where == "after":
                start = end
            edits.append(Edit(start, end, e.content))
        return Fix(fix.message, tuple(edits), fix.applicability)


def python_source(path: str, source: str, result: FileResult) -> str | None:
    """The Python text of a file: a notebook's virtual module (see jaxlint.files.notebook); None,
    with a JAX001 in ``result``, for a notebook that is not nbformat 4 JSON."""
    if not path.endswith(".ipynb"):
        return source
    from jaxlint.files.notebook import NotebookError, python_text

    try:
        return python_text(source)
    except NotebookError as e:
        pos = Position(e.line, e.column)
        result.diagnostics.append(
            Diagnostic(
                path,
                "JAX001",
                "syntax-error",
                f"The notebook could not be parsed: {e}",
                pos,
                pos,
                None,
                False,
                "Repair or re-save the notebook (Jupyter writes nbformat 4); jaxlint checks nothing else in it until then",
            )
        )
        return None


def _statement_ranges(module: cst.Module, events, supp) -> None:
    """Widen each ``# jaxlint: ignore[...]`` to the lines of the statement after it."""
    stmts = [
        n for n, entering in events if entering and isinstance(n, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
    ]
    extra = [d for s in stmts if isinstance(s, (cst.FunctionDef, cst.ClassDef)) for d in s.decorators[:1]]
    ranges = node_ranges(module, [*stmts, *extra])
    spans = []
    for s in stmts:
        r = ranges.get(s)
        if r is None:
            continue
        first, last = r[0][0], r[1][0]
        if isinstance(s, (cst.FunctionDef, cst.ClassDef)) and s.decorators and s.decorators[0] in ranges:
            first = ranges[s.decorators[0]][0][0]
        spans.append((first, last))
    spans.sort()
    firsts = [sp[0] for sp in spans]
    for c in supp.comments:
        if c.kind != "ignore":
            continue
        # the statements that start first after the comment (by bisection: one scan of every
        # statement per comment was quadratic)
        i = bisect.bisect_right(firsts, c.line)
        if i < len(spans):
            first = firsts[i]
            j = bisect.bisect_right(firsts, first)
            c.first, c.last = first, spans[j - 1][1]  # sorted: the widest of those is the last


def syntax_check(result: FileResult, source: str) -> None:
    """JAX001 if the file does not parse; the cheap stdlib parser first, LibCST (which knows
    newer syntax than this Python) only to confirm an error."""
    import ast
    import warnings

    result.prefilter = "syntax"
    source = with_standins(source)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
        return
    except (SyntaxError, ValueError, OverflowError):
        pass
    except (RecursionError, MemoryError):
        result.diagnostics.append(_too_deep(result.path))
        return
    if too_deep_to_parse(source) or ast_too_deep(source):
        result.diagnostics.append(_too_deep(result.path))
        return
    try:
        cst.parse_module(source)
    except cst.ParserSyntaxError as e:
        result.diagnostics.append(_syntax_error(result.path, source, e))
    except RecursionError:
        result.diagnostics.append(_too_deep(result.path))
    finally:
        release_memory()


MAX_BRACKET_DEPTH = 500  # CPython refuses 200; LibCST's native parser overflows its stack near 3000
_DEPTH = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


def too_deep_to_parse(source: str) -> bool:
    """Brackets nested deeper than any runnable Python (strings counted too: an over-estimate).
    LibCST's parser would crash the process (a segmentation fault), not raise."""
    if source.count("(") + source.count("[") + source.count("{") < MAX_BRACKET_DEPTH:
        return False
    from itertools import accumulate

    brackets = re.sub(r"[^()\[\]{}]+", "", source)
    return max(accumulate(_DEPTH[c] for c in brackets)) > MAX_BRACKET_DEPTH


MAX_OPERATORS_PER_LINE = 1000  # LibCST: 2,000 chained ``+`` take a second, 10,000 crash it
_OPERATOR = re.compile(r"[-+*/%|&^@<>]|\band\b|\bor\b")


def ast_too_deep(source: str) -> bool:
    """Code nested deeper than CPython itself can compile (``a + a + ...`` thousands of times):
    LibCST would take minutes on it, or crash. When CPython stops at a syntax error before
    building anything, a line with over a thousand operators is taken as such a chain."""
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
    except (RecursionError, MemoryError):
        return True
    except Exception:
        return any(
            len(_OPERATOR.findall(line)) > MAX_OPERATORS_PER_LINE
            for line in source.splitlines()
            if len(line) > MAX_OPERATORS_PER_LINE
        )
    return False


def with_standins(source: str) -> str:
    """The text the parsers read: ``source`` with a stand-in for each expression they cannot
    afford (a huge literal, a long implicit concatenation; see jaxlint.plan.standins)."""
    return standins.apply(source, standins.find(source))


def python_accepts(source: str) -> bool:
    """Does CPython's own parser read ``source``? (It has none of LibCST's limits.)"""
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    return True


def _too_deep_for_libcst(path: str, source: str) -> Diagnostic:
    """LibCST ran out of stack: a syntax error (JAX001) only if Python cannot read it either."""
    if not python_accepts(source):
        return _too_deep(path)
    return not_checked(
        path,
        "The code is nested too deeply for LibCST, the parser jaxlint's rules read (Python itself reads it); "
        "the file was not checked",
    )


MAX_OPERATORS_FOR_LIBCST = 5000  # ``a and a and ...`` on one line: 3,000 parse, 10,000 crash LibCST


def operator_chain_line(source: str) -> int:
    """The first line with more operators than LibCST's parser survives (it nests each one
    deeper), or 0. Python may still compile it (``and``/``or`` chains are flat to CPython).
    Only operators of the code count: a comment or a string (a base64 image in a notebook's
    markdown, say) is one token to the parser, whatever characters it holds."""
    if len(source) < MAX_OPERATORS_FOR_LIBCST * 2:
        return 0
    candidates = [
        n
        for n, line in enumerate(split_lines(source), 1)
        if len(line) > MAX_OPERATORS_FOR_LIBCST * 2 and len(_OPERATOR.findall(line)) > MAX_OPERATORS_FOR_LIBCST
    ]
    if not candidates:
        return 0
    counts = _code_operators_per_line(source, set(candidates))
    if counts is None:  # the tokenizer stops: keep to the characters (not checked beats a crash)
        return candidates[0]
    return next((n for n in candidates if counts.get(n, 0) > MAX_OPERATORS_FOR_LIBCST), 0)


def _code_operators_per_line(source: str, lines: set[int]) -> dict[int, int] | None:
    """How many operator tokens (and ``and``/``or``) each of ``lines`` holds, read by
    Python's tokenizer; None when it cannot tokenize the source."""
    import io
    import tokenize

    counts: dict[int, int] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            row = tok.start[0]
            if row not in lines:
                continue
            if (tok.type == tokenize.OP and _OPERATOR.fullmatch(tok.string[:1] or " ")) or (
                tok.type == tokenize.NAME and tok.string in ("and", "or")
            ):
                counts[row] = counts.get(row, 0) + 1
    except (tokenize.TokenError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return counts


def _too_deep(path: str) -> Diagnostic:
    return Diagnostic(
        path, "JAX001", "syntax-error", "The file is nested too deeply to be parsed", Position(1, 1), Position(1, 1)
    )


NOT_CHECKED = ("JAX003", "not-checked", "Fix what the message names (or exclude the file); jaxlint skipped it")


def not_checked(path: str, message: str, pos: Position | None = None) -> Diagnostic:
    """JAX003: the file (or one rule on it) could not be checked, and the message says why."""
    pos = pos or Position(1, 1)
    code, name, help = NOT_CHECKED
    return Diagnostic(path, code, name, message, pos, pos, None, False, help)


def resource_reason(exc: BaseException) -> str:
    """Why a file was not checked when checking it exhausted the stack or the memory."""
    if isinstance(exc, RecursionError):
        return "The code is nested too deeply to be checked (RecursionError); the file was not checked"
    return "Checking the file ran out of memory (MemoryError); the file was not checked"


def _rule_failed(result: FileResult, rule: type[Rule], exc: Exception) -> None:
    """A rule raised: extreme code is a JAX003 finding, anything else a bug in the rule."""
    if isinstance(exc, (RecursionError, MemoryError)):
        what = (
            "nested too deeply for it (RecursionError)"
            if isinstance(exc, RecursionError)
            else "too large for it (MemoryError)"
        )
        result.diagnostics.append(
            not_checked(result.path, f"{rule.code} ({rule.name}) did not check this file: the code is {what}")
        )
    else:
        result.rule_errors.append(f"{rule.code} ({rule.name}): {describe(exc)}")


def _syntax_error(path: str, source: str, e: cst.ParserSyntaxError, original: str | None = None) -> Diagnostic:
    """JAX001 at the parser's position; CPython's own message and line when it agrees. When
    Python reads the file (``original``: before its stand-ins), LibCST's limit is a JAX003."""
    import ast
    import warnings

    line, col = e.raw_line, e.raw_column + 1
    msg = str(e.message).strip().splitlines()[0] if e.message else "invalid syntax"
    libcst_limit = not_checked(
        path,
        f"LibCST, the parser jaxlint's rules read, cannot read this file although Python can "
        f"(at line {line}, column {col}: {msg}); the file was not checked",
        Position(line, col),
    )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
        return libcst_limit  # Python reads it: a limit or a bug of LibCST, not an error in the file
    except SyntaxError as py:
        if original is not None and original is not source and python_accepts(original):
            return libcst_limit  # a stand-in where Python allows no call (a ``case`` pattern)
        if py.lineno is not None and py.msg:
            line, col, msg = py.lineno, py.offset or 1, py.msg
        elif "\x00" in source:  # CPython refuses NUL bytes before it tokenizes
            before = source[: source.index("\x00")]
            line = before.count("\n") + 1
            col = len(before) - (before.rfind("\n") + 1) + 1
            msg = "source code cannot contain null bytes"
    except ValueError:
        pass
    except (RecursionError, MemoryError):
        pass
    pos = Position(line, col)
    return Diagnostic(
        path,
        "JAX001",
        "syntax-error",
        f"SyntaxError: {msg}",
        pos,
        pos,
        None,
        False,
        "Fix the syntax error; jaxlint checks nothing else in this file until then",
    )
