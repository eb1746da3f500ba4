"""The cases a parameterized test method runs with, read from its decorator.

A test written once and run per case (absltest ``parameterized.parameters`` /
``named_parameters`` / ``product``, jax's ``jtu.sample_product`` / ``jtu.cases_from_list``,
``pytest.mark.parametrize``) gets its parameters' values from the decorator. When those
are displays or comprehensions over displays, ``cases(p, fn)`` lists them: per case, the
expression each parameter takes (an expression of the decorator, or a tuple built from
such). A parameter whose value is not visible is absent from the case (unknown).

``evaluating(p, case)`` makes the shape model read a parameter of ``fn`` as its value in
that case (``given``); its answers are memoised per case. Rules evaluate cases only where
the plain reading left something unknown, and at most ``CAP`` of them.
"""

from __future__ import annotations

import itertools
from contextlib import contextmanager
from dataclasses import dataclass, field

import libcst as cst

from jaxlint.base.names import last_name
from jaxlint.base.tree import walk

from .values import External

CAP = 24  # cases evaluated per test method
_ITEMS = 256  # items a comprehension may give before it is not followed
_KEY = "model.cases.case"

ABSL = "absl.testing.parameterized"
PYTEST_PARAMETRIZE = "pytest.mark.parametrize"
# jax's rand_* factories of test_util: ``rng = jtu.rand_default(self.rng())``, then
# ``rng(shape, dtype)`` is an array of that shape
TEST_RANDS = frozenset(
    f"rand_{k}"
    for k in (
        "default",
        "nonzero",
        "positive",
        "small",
        "not_small",
        "small_positive",
        "uniform",
        "some_equal",
        "some_inf",
        "some_nan",
        "some_inf_and_nan",
        "some_zero",
        "int",
        "unique_int",
        "bool",
        "fullrange",
    )
)


@dataclass(eq=False)
class Case:
    """One case of ``function``: each parameter's value expression (known ones only)."""

    function: cst.FunctionDef
    values: dict[str, cst.BaseExpression]
    used: list[str] = field(default_factory=list)  # the parameters read while evaluating it
    outer: Case | None = None  # for a call's arguments bound to a def's parameters: the case around
    via: cst.Call | None = None  # ... and that call

    def label(self, ctx) -> str:
        """``axis=0, shape=(3, 5)``: the parameters that were read, as the code gives them."""
        parts = []
        for name in sorted(self.used, key=list(self.values).index):
            text = " ".join(_code(ctx, self.values[name]).split())
            parts.append(f"{name}={text if len(text) <= 40 else text[:37] + '...'}")
        return ", ".join(parts)


def arguments(fn: cst.FunctionDef, call: cst.Call) -> dict[str, cst.BaseExpression]:
    """The parameters of ``fn`` that ``call`` (without star arguments) gives, and what it
    gives them: positional arguments in order, then keywords."""
    positional = [x.name.value for x in (*fn.params.posonly_params, *fn.params.params)]
    values = dict(zip(positional, [a.value for a in call.args if a.keyword is None], strict=False))
    values.update({a.keyword.value: a.value for a in call.args if a.keyword is not None})
    return values


def _code(ctx, node: cst.CSTNode) -> str:
    if type(node) is cst.Tuple and node not in ctx.parents:  # built from a comprehension
        inner = ", ".join(_code(ctx, e.value) for e in node.elements)
        return f"({inner},)" if len(node.elements) == 1 else f"({inner})"
    return ctx.code(node)


@contextmanager
def evaluating(p, case: Case):
    """Within: a parameter of ``case.function`` (or of an ``outer`` case's) reads as its
    value in ``case``."""
    before = p.ctx.shared.get(_KEY)
    p.ctx.shared.setdefault("model.cases.alive", {})[id(case)] = case  # its id keys a memo: keep it
    p.ctx.shared[_KEY] = case
    try:
        yield
    finally:
        p.ctx.shared[_KEY] = before


def current(p) -> Case | None:
    return p.ctx.shared.get(_KEY)


def given(p, b) -> cst.BaseExpression | None:
    """The value of parameter binding ``b`` in the case being evaluated, or None."""
    case = p.ctx.shared.get(_KEY)
    if b.kind != "param":
        return None
    while case is not None and b.scope.node is not case.function:
        case = case.outer
    if case is None:
        return None
    name = b.name
    v = case.values.get(name)
    if v is not None and name not in case.used:
        case.used.append(name)
    return v


def given_expr(p, expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr``, or the case's value when it is a name of one of the case's parameters."""
    if type(expr) is cst.Name and p.ctx.shared.get(_KEY) is not None:
        b = p.binding(expr)
        v = given(p, b) if b is not None else None
        if v is not None:
            return v
    return expr


def literal(p, expr: cst.BaseExpression | None):
    """``p.literal``, reading the case's parameters as their values."""
    if expr is None:
        return p.literal(expr)
    return p.literal(given_expr(p, expr))


# ----------------------------------------------------------------------------------
# reading the decorators
# ----------------------------------------------------------------------------------
def parameterized(p, fn: cst.CSTNode) -> bool:
    """Has the def a parameterization decorator (cheap: no case is built)?"""
    return type(fn) is cst.FunctionDef and any(_kind(p, d.decorator) for d in fn.decorators)


def cases(p, fn: cst.FunctionDef) -> list[Case] | None:
    """The first ``CAP`` cases ``fn`` runs with, or None when they cannot be read."""
    memo = p.ctx.shared.setdefault("model.cases", {})
    if fn not in memo:
        memo[fn] = _cases(p, fn)
    return memo[fn]


def _kind(p, deco: cst.BaseExpression) -> str | None:
    if type(deco) is not cst.Call:
        return None
    v = p.value(deco.func)
    q = v.qualified if type(v) is External else None
    if q is None:
        return None
    if q in (f"{ABSL}.parameters", f"{ABSL}.named_parameters"):
        return q.rsplit(".", 1)[1]
    if q == f"{ABSL}.product" or (q.endswith(".sample_product") and "test_util" in q):
        return "product"
    if q == PYTEST_PARAMETRIZE:
        return "parametrize"
    return None


def _cases(p, fn: cst.FunctionDef) -> list[Case] | None:
    kinds = [(d.decorator, _kind(p, d.decorator)) for d in fn.decorators]
    found = [(d, k) for d, k in kinds if k is not None and isinstance(d, cst.Call)]  # a kind: a call
    if not found:
        return None
    if len(found) > 1 and any(k != "parametrize" for _, k in found):
        return None  # stacked absl/jax parameterizations: not how they are used
    params = fn.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.star_kwarg is not None:
        return None
    names = [x.name.value for x in (*params.posonly_params, *params.params)]
    scope = p.scope_of_node.get(fn)
    if scope is not None and scope.parent is not None and scope.parent.kind == "class":
        names = names[1:]  # self
    groups: list[list[dict[str, cst.BaseExpression | None]]] = []
    for deco, kind in found:
        group = _decorator_cases(p, deco, kind, names)
        if group is None:
            return None
        groups.append(group)
    out: list[Case] = []
    for combo in itertools.product(*groups):
        values: dict[str, cst.BaseExpression | None] = {}
        for part in combo:
            values.update(part)
        out.append(Case(fn, {k: v for k, v in values.items() if v is not None}))
        if len(out) >= CAP:
            break
    return out or None


def _decorator_cases(p, deco: cst.Call, kind: str, names: list[str]):
    """The cases one decorator gives, as ``{parameter: value or None}``, or None."""
    args = deco.args
    if any(a.star == "**" for a in args):
        return None
    if kind == "product":
        return _product(p, args)
    if kind == "parametrize":
        return _parametrize(p, args)
    if any(a.keyword is not None for a in args):
        return None
    if len(args) == 1 and args[0].star == "*":
        items = _items(p, args[0].value, {}, [0])
    elif any(a.star for a in args):
        return None
    elif len(args) == 1 and type(args[0].value) not in (cst.Tuple, cst.Dict) and not _is_dict_call(args[0].value):
        items = _items(p, args[0].value, {}, [0])  # one iterable of cases
    else:
        items = [(a.value, {}) for a in args]
    if items is None:
        return None
    out = []
    for expr, env in items:
        case = _one_case(p, expr, env, names, named=kind == "named_parameters")
        if case is None:
            return None
        out.append(case)
        if len(out) >= CAP:
            break
    return out


def _one_case(p, expr, env, names: list[str], named: bool):
    """A case written as a dict display (``{"x": 1}``, ``dict(x=1)``), a tuple of the
    positional values (after the name for ``named_parameters``) or one value."""
    if type(expr) is cst.Name:
        expr = _resolved(p, expr, env)
    if expr is None:
        return None
    if type(expr) is cst.Dict:
        out = {}
        for e in expr.elements:
            if type(e) is not cst.DictElement:
                return None
            key = p.literal(e.key)
            if type(key) is not str:
                return None
            if key != "testcase_name":
                out[key] = _resolved(p, e.value, env)
        return out
    if _is_dict_call(expr):
        if any(a.keyword is None for a in expr.args):
            return None
        return {a.keyword.value: _resolved(p, a.value, env) for a in expr.args}
    if type(expr) is cst.Tuple:
        elements = list(expr.elements)
        if any(type(e) is cst.StarredElement for e in elements):
            return None
        if named:
            elements = elements[1:]
        values = [_resolved(p, e.value, env) for e in elements]
    elif named:
        return None
    else:
        values = [_resolved(p, expr, env)]
    if len(values) > len(names):
        return None
    return dict(zip(names, values, strict=False))


def _is_dict_call(expr) -> bool:
    return type(expr) is cst.Call and type(expr.func) is cst.Name and expr.func.value == "dict"


def _product(p, args):
    """``product(x=[1, 2], y=[3])`` (and groups of dicts given positionally): every
    combination. A parameter whose values are not visible is unknown in every case."""
    axes = []
    for a in args:
        items = _items(p, a.value, {}, [0])
        if a.keyword is not None:
            name = a.keyword.value
            if items is None:
                axes.append([{name: None}])
            else:
                axes.append([{name: _resolved(p, e, env)} for e, env in items])
        else:
            if items is None:
                return None
            group = [_one_case(p, e, env, [], named=False) for e, env in items]
            if any(g is None for g in group):
                return None
            axes.append(group)
    out = []
    for combo in itertools.product(*axes):
        case = {}
        for part in combo:
            case.update(part)
        out.append(case)
        if len(out) >= CAP:
            break
    return out


def _parametrize(p, args):
    """``pytest.mark.parametrize("a, b", [(1, 2), ...])``; ``pytest.param(...)`` with
    ``marks=`` may be skipped: unknown."""
    if len(args) != 2 or any(a.keyword is not None and a.keyword.value not in ("argnames", "argvalues") for a in args):
        return None
    spelled = p.literal(args[0].value)
    if type(spelled) is str:
        names = [x.strip() for x in spelled.split(",") if x.strip()]
    elif isinstance(spelled, (list, tuple)) and all(type(x) is str for x in spelled):
        names = list(spelled)
    else:
        return None
    items = _items(p, args[1].value, {}, [0])
    if items is None:
        return None
    out = []
    for expr, env in items:
        if type(expr) is cst.Name:
            expr = _resolved(p, expr, env)
        if type(expr) is cst.Call and type(v := p.value(expr.func)) is External and v.qualified == "pytest.param":
            if any(a.keyword is not None or a.star for a in expr.args):
                return None
            values = [_resolved(p, a.value, env) for a in expr.args]
        elif len(names) == 1:
            values = [_resolved(p, expr, env)]
        elif type(expr) in (cst.Tuple, cst.List) and not any(type(e) is cst.StarredElement for e in expr.elements):
            values = [_resolved(p, e.value, env) for e in expr.elements]
        else:
            return None
        if len(values) != len(names):
            return None
        out.append(dict(zip(names, values, strict=False)))
        if len(out) >= CAP:
            break
    return out


# ----------------------------------------------------------------------------------
# a small evaluator of displays and comprehensions
# ----------------------------------------------------------------------------------
def _items(p, expr, env: dict, count: list[int]):
    """The items an iterable expression gives, each ``(expression, env)`` with ``env`` the
    comprehension variables in reach; None when not visible (or too many)."""
    expr = _resolved(p, expr, env)
    if expr is None:
        return None
    t = type(expr)
    if t is cst.Call and len(expr.args) == 1 and not expr.args[0].star and expr.args[0].keyword is None:
        v = p.value(expr.func)
        q = v.qualified if type(v) is External else None
        plain = type(expr.func) is cst.Name and expr.func.value in ("list", "tuple") and not p.reaching(expr.func)
        if plain or (q is not None and q.endswith(".cases_from_list") and "test_util" in q):
            return _items(p, expr.args[0].value, env, count)
    if t is cst.Call and type(expr.func) is cst.Name and expr.func.value == "range" and not p.reaching(expr.func):
        bounds = [p.literal(a.value) if not a.keyword and not a.star else None for a in expr.args]
        ints = [b for b in bounds if type(b) is int]
        if not 1 <= len(bounds) <= 3 or len(ints) != len(bounds):
            return None
        r = range(*ints)
        if len(r) > _ITEMS:
            return None
        count[0] += len(r)
        return [
            (cst.Integer(str(i)) if i >= 0 else cst.UnaryOperation(cst.Minus(), cst.Integer(str(-i))), env) for i in r
        ]
    if t in (cst.ListComp, cst.GeneratorExp):
        return _comprehension(p, expr.elt, expr.for_in, env, count)
    display = expr if t in (cst.Tuple, cst.List) else (p.display(expr) if t is cst.Name else None)
    if display is None or any(type(e) is cst.StarredElement for e in display.elements):
        return None
    count[0] += len(display.elements)
    if count[0] > _ITEMS:
        return None
    return [(e.value, env) for e in display.elements]


def _comprehension(p, elt, clause: cst.CompFor, env: dict, count: list[int]):
    if clause.ifs or clause.asynchronous is not None:
        return None  # a filter: which cases remain is not read here
    items = _items(p, clause.iter, env, count)
    if items is None:
        return None
    out: list[tuple[cst.BaseExpression, dict]] = []
    for item, item_env in items:
        inner = dict(env)
        if not _bind(p, clause.target, item, item_env, inner):
            return None
        more = (
            [(elt, inner)] if clause.inner_for_in is None else _comprehension(p, elt, clause.inner_for_in, inner, count)
        )
        if more is None:
            return None
        out += more
        if len(out) > _ITEMS:
            return None
    return out


def _bind(p, target, item, item_env: dict, env: dict) -> bool:
    if type(target) is cst.Name:
        value = _resolved(p, item, item_env)
        env[target.value] = value  # None: an unknown value
        return True
    if type(target) in (cst.Tuple, cst.List):
        value = _resolved(p, item, item_env)
        if value is None:
            return False
        display = value if type(value) in (cst.Tuple, cst.List) else p.display(value)
        if display is None or len(display.elements) != len(target.elements):
            return False
        for t, e in zip(target.elements, display.elements, strict=False):
            if type(t) is cst.StarredElement or type(e) is cst.StarredElement:
                return False
            if not _bind(p, t.value, e.value, item_env, env):
                return False
        return True
    return False


def _resolved(p, expr, env: dict):
    """``expr`` with the comprehension variables of ``env`` put in: the variable's value, a
    tuple display rebuilt around them, or the expression itself when it reads none of
    them; None when it reads one some other way (or one whose value is unknown)."""
    if expr is None:
        return None
    if not env:
        return expr
    if type(expr) is cst.Name and expr.value in env:
        return env[expr.value]
    if type(expr) is cst.Tuple:
        parts = []
        for e in expr.elements:
            if type(e) is cst.StarredElement:
                return None
            v = _resolved(p, e.value, env)
            if v is None:
                return None
            parts.append(v)
        if all(v is e.value for v, e in zip(parts, expr.elements, strict=False)):
            return expr
        return cst.Tuple([cst.Element(v) for v in parts])
    if expr not in p.ctx.parents:
        return expr  # built here: its parts are already resolved
    if any(type(n) is cst.Name and n.value in env for n in walk(expr, ())):
        return None
    return expr


def skips_some(p, fn: cst.FunctionDef) -> bool:
    """Does the body leave early for some cases: an ``if`` that reads a parameter and
    skips the test, returns or raises? Those cases may never reach a call (read no case)."""
    memo = p.ctx.shared.setdefault("model.cases.skips", {})
    if fn in memo:
        return memo[fn]
    names = {x.name.value for x in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)}
    found = False
    nested = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
    for node in walk(fn.body, nested):  # a few statements: cheaper than building the file's spans
        if type(node) is not cst.If:
            continue
        if not any(type(n) is cst.Name and n.value in names for n in walk(node.test, ())):
            continue
        for inner in walk(node, nested):
            if type(inner) in (cst.Return, cst.Raise, cst.Continue, cst.Break) or (
                type(inner) is cst.Call and last_name(inner.func) in ("skipTest", "skip", "skipIf", "xfail")
            ):
                found = True
                break
        if found:
            break
    memo[fn] = found
    return found
