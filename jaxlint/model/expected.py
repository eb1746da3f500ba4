"""Where the code expects an error: there the failure is the point of the test, so the
rules that predict that failure stay silent.

Two answers, the second wider than the first:
- ``expects_error(ctx, node)``: the node runs where the error is caught: inside
  ``with self.assertRaises...(...)`` / ``pytest.raises(...)``, or inside the callable that
  the callable form is given (``self.assertRaises(Err, f, *args)``,
  ``assertRaisesRegex(Err, msg, f, ...)``, ``pytest.raises(Err, f, ...)``). Which
  context managers and assertions expect an error is what the test frameworks say
  (``jaxlint.model.frameworks`` registers them: ``expecting``).
- ``runs_where_expected(ctx, node)``: that, or the node lies in a definition that runs
  only there: a local def (with its decorators), a local ``name = value``, whose every use
  the program model sees is such a place; a rule function registered by ``f.defvjp`` /
  ``f.defjvp`` runs where ``f`` is differentiated, so there every use of ``f`` counts
  except the registration and a direct call ``f(x)`` in a test function or at module level
  (that runs ``f`` itself, not its rules). A use the model cannot see (a module-level or
  class-level name, a read that may be another binding, a decorator it does not know)
  means no.

Rules declare ``quiet_where_expected`` (jaxlint/lint/rule.py) to be filtered by the second;
the sharp-bits family, JAX104/JAX105's call sites and the call paths read the first.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from jaxlint.base.literals import UNKNOWN
from jaxlint.base.names import dotted, last_name

# does an ``except`` clause catch the error a rule predicts (``catches_type_error``)?
Caught = Callable[..., bool]

# the qualified names of the context managers that expect an exception (``with
# pytest.raises(E):``, ``with self.assertRaises(E):`` is ``unittest.TestCase.assertRaises``),
# and of the callable forms with the position of the callable that must raise
# (``self.assertRaises(E, f, *args)``): filled by the test frameworks
RAISES_CONTEXTS: set[str] = set()
CALLABLE_AT: dict[str, int] = {}
# the qualified names of the context managers and decorators under which a warning is
# expected or silenced on purpose (``with pytest.warns(W):``, ``with
# warnings.catch_warnings():``, ``@pytest.mark.filterwarnings(...)``): filled by the test frameworks
WARNING_CONTEXTS: set[str] = set()
# the same by their last names: what an expression the model cannot resolve may be
# (``self.assertRaises`` of a test case, ``test.assertRaises`` of a parameter)
_LAST: dict[str, set[str]] = {"raises": set(), "warnings": set()}
_CALLABLE_LAST: dict[str, int] = {}


def expecting(
    contexts: tuple[str, ...] = (), callables: dict[str, int] | None = None, warnings: tuple[str, ...] = ()
) -> None:
    """Register a framework's assertions that expect an error or a warning, by qualified
    name (``jaxlint.model.frameworks``)."""
    RAISES_CONTEXTS.update(contexts)
    CALLABLE_AT.update(callables or {})
    WARNING_CONTEXTS.update(warnings)
    _LAST["raises"].update(q.rsplit(".", 1)[-1] for q in contexts)
    _LAST["warnings"].update(q.rsplit(".", 1)[-1] for q in warnings)
    for q, at in (callables or {}).items():
        _CALLABLE_LAST[q.rsplit(".", 1)[-1]] = at


def resolved(ctx, e: cst.BaseExpression) -> str | object | None:
    """The qualified name of what ``e`` evaluates to: a library object's public name
    (``pytest.raises``, also through ``from pytest import raises as r``), a def's or class's
    of the linted code (``m.raises`` for a local ``class raises``); None for a value that is
    neither (a number, an instance); UNKNOWN when the model does not know it (a method of
    ``self`` in a test case, an attribute of a parameter), or for an expression that is no
    dotted name (``make()(x)``: not evaluated here)."""
    from . import program
    from .abstract import Bound, Class, External, Function, Opaque

    if type(e) is not cst.Name and type(e) is not cst.Attribute:
        return UNKNOWN
    p = program(ctx)
    v = p.evaluator.value(e, None)
    t = type(v)
    if v is UNKNOWN or t is Opaque:
        return UNKNOWN
    if t is External:
        return v.qualified
    if t is Bound and type(v.func) is Function:
        v, t = v.func, Function
    if t is Function or t is Class:
        owner = v.program.ctx if v.program is not None else ctx
        name = owner.qualname(v.node) if t is Function else v.name
        return owner.facts.ref(name) if name else None
    return None


def _is(ctx, e: cst.BaseExpression, names: set[str], last: set[str]) -> bool:
    """Is ``e`` one of the objects named ``names``? By its qualified name when the model
    resolves it (a local ``class raises`` is not ``pytest.raises``); an expression it cannot
    resolve may be one when its last name is (``self.assertRaises``): expected, so silent."""
    q = resolved(ctx, e)
    if q is UNKNOWN:
        return last_name(e) in last
    return q in names


# jax's errors that are ``TypeError``s (``jax._src.errors.JAXTypeError``), and the modules
# that name them
JAX_TYPE_ERRORS = frozenset(
    {
        "JAXTypeError",
        "ConcretizationTypeError",
        "TracerArrayConversionError",
        "TracerBoolConversionError",
        "TracerIntegerConversionError",
        "UnexpectedTracerError",
        "KeyReuseError",
    }
)
JAX_ERROR_MODULES = ("jax.errors", "jax._src.errors", "jax.core", "jax._src.core")


def catches_type_error(ctx, handler: cst.ExceptHandler) -> bool:
    """Does the ``except`` clause catch a ``TypeError`` (what a traced value in Python
    control flow raises): a bare ``except:``, a class that ``TypeError`` is (by Python's
    own hierarchy: ``Exception``), one of jax's ``TypeError``s (``JAX_TYPE_ERRORS``)?
    A class the model cannot resolve may be one when its last name is: expected, so silent."""
    if handler.type is None:
        return True
    # ``except (*errors,)``: a starred element names no class here
    types = (
        [e.value for e in handler.type.elements if isinstance(e, cst.Element)]
        if isinstance(handler.type, cst.Tuple)
        else [handler.type]
    )
    for e in types:
        q = resolved(ctx, e)
        if q is UNKNOWN:
            name = last_name(e) or ""
            if name in JAX_TYPE_ERRORS or _builtin_catches(name):
                return True
        elif isinstance(q, str):
            module, _, name = q.rpartition(".")
            if (module == "builtins" and _builtin_catches(name)) or (
                module in JAX_ERROR_MODULES and name in JAX_TYPE_ERRORS
            ):
                return True
    return False


def _builtin_catches(name: str) -> bool:
    import builtins

    cls = getattr(builtins, name, None)
    return isinstance(cls, type) and issubclass(TypeError, cls)


def _callee(e: cst.BaseExpression) -> cst.BaseExpression:
    return e.func if type(e) is cst.Call else e


def expects_warning(ctx, node: cst.CSTNode) -> bool:
    """Does ``node`` run where an error or a warning is expected on purpose: inside a
    ``with`` whose item is one of ``RAISES_CONTEXTS`` / ``WARNING_CONTEXTS``, in the callable
    of a callable-form assertion, or in a def or class decorated with one of ``WARNING_CONTEXTS``?"""
    if expects_error(ctx, node):
        return True
    for a in ctx.ancestors(node):
        t = type(a)
        if t is cst.With:
            if any(
                type(i.item) is cst.Call and _is(ctx, i.item.func, WARNING_CONTEXTS, _LAST["warnings"]) for i in a.items
            ):
                return True
        elif (t is cst.FunctionDef or t is cst.ClassDef) and any(
            _is(ctx, _callee(d.decorator), WARNING_CONTEXTS, _LAST["warnings"]) for d in a.decorators
        ):
            return True
    return False


# ``f.defvjp(fwd, bwd)``, ``@f.defjvp``: the rule functions run where ``f`` is differentiated
REGISTRATIONS = frozenset({"defvjp", "defjvp", "defjvps"})
_DEPTH = 4  # definitions followed through their uses (``g = jax.vmap(f)``, then ``g``'s uses)


def raises_context(ctx, item: cst.WithItem, also: tuple[str, ...] = ()) -> bool:
    """Is this ``with`` item a context manager that expects an exception (one of
    ``RAISES_CONTEXTS``, see ``_is``), or one whose dotted name contains a word of ``also``?"""
    e = item.item
    if type(e) is not cst.Call:
        return False
    if _is(ctx, e.func, RAISES_CONTEXTS, _LAST["raises"]):
        return True
    if also:
        full = dotted(e.func)
        return full is not None and any(word in full for word in also)
    return False


def callable_raises(ctx, call: cst.Call, arg: cst.Arg) -> bool:
    """Is ``arg`` the callable of a callable-form assertion (``self.assertRaises(Err, arg, ...)``;
    see ``CALLABLE_AT``), or of a def of the file that hands that parameter
    to one (``def check(test, etype, f): test.assertRaises(etype, f)``)?"""
    at = _callable_at(ctx, call.func)
    if at is None:
        at = _asserting_helper(ctx, call.func)
    if at is None or arg.keyword is not None or arg.star:
        return False
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in positional[:at]):
        return False
    return at < len(positional) and positional[at] is arg


def _callable_at(ctx, func: cst.BaseExpression) -> int | None:
    """The position of the callable in a callable-form assertion ``func`` (see ``_is``)."""
    q = resolved(ctx, func)
    if q is UNKNOWN:
        return _CALLABLE_LAST.get(last_name(func) or "")
    return CALLABLE_AT.get(q) if isinstance(q, str) else None


def _asserting_helper(ctx, func: cst.BaseExpression) -> int | None:
    """The position of the parameter a module-level def of the file (called by name) hands,
    as it is, to a callable-form assertion in its body; None when it hands none (or the
    slicer blanked it: what the model does not see hands nothing)."""
    if type(func) is not cst.Name:
        return None
    memo = ctx.shared.setdefault("asserting_helpers", {})
    if func.value not in memo:
        memo[func.value] = None
        from . import program

        found = program(ctx).reaching(func)
        if len(found) == 1 and found[0].kind == "def" and found[0].scope.kind == "module":
            node = found[0].node
            if type(node) is cst.FunctionDef:
                memo[func.value] = _hands_to_assertion(ctx, node)
    return memo[func.value]


def _hands_to_assertion(ctx, fn: cst.FunctionDef) -> int | None:
    params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    for n in ctx.descendants(fn.body, prune=()):
        if type(n) is not cst.Call:
            continue
        at = _callable_at(ctx, n.func)
        positional = [a for a in n.args if a.keyword is None]
        if at is None or any(a.star for a in positional[: at + 1]) or at >= len(positional):
            continue
        handed = positional[at].value
        if type(handed) is cst.Name and handed.value in params:
            return params.index(handed.value)
    return None


def expects_error(ctx, node: cst.CSTNode, also: tuple[str, ...] = (), caught: Caught | None = None) -> bool:
    """Does ``node`` run where an error is expected: inside a ``with`` block that expects one
    (see ``raises_context``), inside the callable of a callable form (``callable_raises``), in
    a notebook cell tagged ``raises-exception``, or, given ``caught`` (does an ``except``
    clause catch the error the rule predicts?), in the body of a ``try`` one of whose
    clauses catches it?"""
    if ctx.raising_lines and _in_raising_cell(ctx, node):
        return True
    child = node
    for a in ctx.ancestors(node):
        t = type(a)
        if t is cst.With:
            if any(raises_context(ctx, i, also) for i in a.items):
                return True
        elif (t is cst.Call and type(child) is cst.Arg and callable_raises(ctx, a, child)) or (
            t is cst.Try and caught is not None and child is a.body and any(caught(ctx, h) for h in a.handlers)
        ):
            return True
        child = a
    return False


def _in_raising_cell(ctx, node: cst.CSTNode) -> bool:
    line = ctx.exact_lines([node]).get(node)
    return line is not None and any(a <= line <= b for a, b in ctx.raising_lines)


def runs_where_expected(ctx, node: cst.CSTNode, caught: Caught | None = None) -> bool:
    """Does the code at ``node`` run only where an error is expected (see module doc)?
    ``caught``: as for ``expects_error``."""
    memo = ctx.shared.setdefault("expected", {})
    key = (node, caught)
    if key not in memo:
        from . import program

        memo[key] = _runs(ctx, program(ctx), node, 0, frozenset(), caught) is True
    return memo[key]


def _runs(ctx, p, node: cst.CSTNode, depth: int, seen: frozenset, caught: Caught | None = None) -> bool | None:
    """True: ``node`` runs only where an error is expected; False: it may run elsewhere;
    None: only where a definition already being followed runs (a recursive use)."""
    if expects_error(ctx, node, caught=caught):
        return True
    if depth >= _DEPTH:
        return False
    verdict: bool | None = False
    for kind, what in _definitions(ctx, p, node):
        if kind == "uses":
            found = None if what in seen else _all_uses(ctx, p, what, depth, seen | {what}, caught)
        else:
            found = _differentiated_only_where_expected(ctx, p, what, depth, seen, caught)
        if found:
            return True
        if found is None:
            verdict = None
    return verdict


def _definitions(ctx, p, node: cst.CSTNode):
    """The definitions around ``node`` whose uses decide when it runs, innermost first:
    ``("uses", binding)`` for a local def or ``name = value``, ``("rule", f)`` for code
    registered as a rule of the custom-derivative function named ``f``."""
    child = node
    for a in ctx.ancestors(node):
        t = type(a)
        if t is cst.FunctionDef and child is not a.params:
            for d in a.decorators:
                dec = d.decorator
                if type(dec) is cst.Attribute and dec.attr.value in REGISTRATIONS:
                    yield "rule", dec.value
            if p.evaluator.value(a, None) is not UNKNOWN:  # a decorator it does not know may keep the def
                b = p.binding_of_value(a)
                if b is not None:
                    yield "uses", b
        elif t is cst.Call and type(child) is cst.Arg:
            f = a.func
            if type(f) is cst.Attribute and f.attr.value in REGISTRATIONS:
                yield "rule", f.value
        elif t in (cst.Assign, cst.AnnAssign) and child is a.value:
            b = p.binding_of_value(a.value)
            if b is not None:
                yield "uses", b
        child = a


def _local_reads(p, b) -> list[cst.Name] | None:
    """Every read of a function-local binding, or None when the model cannot see them all."""
    if b.scope.kind not in ("function", "lambda") or b.anywhere:
        return None
    reads, complete = p.references(b)
    return reads if complete and reads else None


def _all_uses(ctx, p, b, depth: int, seen: frozenset, caught: Caught | None) -> bool:
    """Does every read of the local ``b`` run where an error is expected (at least one)?"""
    reads = _local_reads(p, b)
    if reads is None:
        return False
    return _every(_runs(ctx, p, r, depth + 1, seen, caught) for r in reads)


def _every(verdicts) -> bool:
    """No use may run elsewhere, and one at least runs where the error is expected."""
    expected = False
    for v in verdicts:
        if v is False:
            return False
        expected = expected or v is True
    return expected


def _differentiated_only_where_expected(
    ctx, p, f: cst.BaseExpression, depth: int, seen: frozenset, caught: Caught | None
) -> bool | None:
    """Is the custom-derivative function ``f`` differentiated only where an error is
    expected (its rules run nowhere else), at least once? None: ``f`` is being followed."""
    if type(f) is not cst.Name:
        return False
    b = p.binding(f)
    if b is None:
        return False
    if b in seen:
        return None
    reads = _local_reads(p, b)
    if reads is None:
        return False
    return _every(_rule_runs(ctx, p, r, depth, seen | {b}, caught) for r in reads)


def _rule_runs(ctx, p, r: cst.Name, depth: int, seen: frozenset, caught: Caught | None) -> bool | None:
    """Does the use ``r`` of a custom-derivative function run its rules only where an
    error is expected? The registration and a direct call that nothing differentiates
    do not run them (None)."""
    parent = ctx.parent(r)
    if type(parent) is cst.Attribute and parent.value is r and parent.attr.value in REGISTRATIONS:
        return None  # the registration itself
    if type(parent) is cst.Call and parent.func is r and _undifferentiated(ctx, r):
        return None  # ``f(x)`` runs the primal, not the rules
    return _runs(ctx, p, r, depth + 1, seen, caught)


def _undifferentiated(ctx, node: cst.CSTNode) -> bool:
    """Code nothing differentiates: at module level, or directly in a test function (a
    ``test*`` def at module level or in a class, which the test runner calls)."""
    fn = ctx.enclosing_function(node)
    if fn is None:
        return True
    if type(fn) is not cst.FunctionDef or not fn.name.value.startswith("test"):
        return False
    holder = ctx.parent(fn)
    return type(holder) is cst.Module or (
        type(holder) is cst.IndentedBlock and type(ctx.parent(holder)) is cst.ClassDef
    )
