"""Parameterized tests: a test function that a framework runs once per case.

absl's ``parameterized.parameters`` / ``named_parameters`` / ``product`` and pytest's
(stacked) ``mark.parametrize`` give a test's parameters their values case by case. The
decorator's arguments are evaluated by the model (displays, comprehensions over them,
names bound to them); each case becomes one call context of the test function
(``contexts.CaseSite`` names it in messages: "in the test case with axis=0"). A test
that returns or skips for some cases (an ``if`` on a parameter that leaves) gets no case
frames: which cases reach a call is not known. At most ``CAP`` cases are read.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxlint.base.tree import walk

from ..abstract import Const, Dict, External, List, Tuple
from ..contexts import PROVIDERS, Case

if TYPE_CHECKING:
    from ..evaluate import Evaluator

CAP = 24  # cases read per test function

ABSL = "absl.testing.parameterized"
PYTEST_PARAMETRIZE = "pytest.mark.parametrize"
# decorator (qualified name) -> how its arguments give the cases
KINDS: dict[str, str] = {
    f"{ABSL}.parameters": "parameters",
    f"{ABSL}.named_parameters": "named_parameters",
    f"{ABSL}.product": "product",
    PYTEST_PARAMETRIZE: "parametrize",
}
LEAVES = ("skipTest", "skip", "skipIf", "xfail")


def kind_of(ev: Evaluator, deco: cst.BaseExpression) -> str | None:
    if type(deco) is not cst.Call:
        return None
    v = ev.value(deco.func, None)
    return KINDS.get(v.qualified) if type(v) is External else None


def decorated_cases(ev: Evaluator, fn: cst.FunctionDef, kinds: dict[str, str]) -> list[Case] | None:
    """The cases the decorators of ``fn`` named in ``kinds`` give, or None."""
    found = [(d.decorator, kinds.get(_qualified(ev, d.decorator) or "")) for d in fn.decorators]
    found = [(d, k) for d, k in found if k]
    if not found:
        return None
    if len(found) > 1 and any(k != "parametrize" for _, k in found):
        return None  # stacked absl parameterizations are not how they are used
    params = fn.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.star_kwarg is not None:
        return None
    names = [x.name.value for x in (*params.posonly_params, *params.params)]
    if _is_method(ev, fn):
        names = names[1:]
    groups: list[list[dict[str, Any]]] = []
    for deco, kind in found:
        assert isinstance(deco, cst.Call) and kind is not None
        group = _cases(ev, deco, kind, names)
        if group is None:
            return None
        groups.append(group)
    if skips_some(fn):
        return None
    out: list[Case] = []
    for combo in itertools.product(*groups):
        values: dict[str, Any] = {}
        for part in combo:
            values.update(part)
        out.append(Case(values))
        if len(out) >= CAP:
            break
    return out or None


def _qualified(ev: Evaluator, deco: cst.BaseExpression) -> str | None:
    if type(deco) is not cst.Call:
        return None
    v = ev.value(deco.func, None)
    return v.qualified if type(v) is External else None


def _is_method(ev: Evaluator, fn: cst.FunctionDef) -> bool:
    scope = ev.p.scope_of_node.get(fn)
    return scope is not None and scope.parent is not None and scope.parent.kind == "class"


def _cases(ev: Evaluator, deco: cst.Call, kind: str, names: list[str]) -> list[dict[str, Any]] | None:
    args = deco.args
    if any(a.star == "**" for a in args):
        return None
    if kind == "product":
        return product(ev, deco)
    if kind == "parametrize":
        return _parametrize(ev, deco)
    if any(a.keyword is not None for a in args):
        return None
    if len(args) == 1 and args[0].star == "*":
        items = _items(ev.value(args[0].value, None))
    elif any(a.star for a in args):
        return None
    elif len(args) == 1 and type(args[0].value) not in (cst.Tuple, cst.Dict, cst.Call):
        items = _items(ev.value(args[0].value, None))  # one iterable of cases
    else:
        items = [ev.value(a.value, None) for a in args]
    if items is None:
        return None
    out = []
    for item in items[:CAP]:
        case = one_case(item, names, named=kind == "named_parameters")
        if case is None:
            return None
        out.append(case)
    return out


def one_case(item: Any, names: list[str], named: bool) -> dict[str, Any] | None:
    """A case given as a dict (``{"x": 1}``, ``dict(x=1)``), a tuple of the positional
    values (after the test name for ``named_parameters``) or one value."""
    if type(item) is Dict:
        return {str(k): v for k, v in item.items if k != "testcase_name"}
    if type(item) in (Tuple, List):
        values = list(item.items)
        if named:
            values = values[1:]
        if len(values) > len(names):
            return None
        return dict(zip(names, values, strict=False))
    if named or not names:
        return None
    return {names[0]: item}


def product(ev: Evaluator, deco: cst.Call) -> list[dict[str, Any]] | None:
    """``product(x=[1, 2], y=[3])`` (and groups of dicts given positionally): every
    combination; a parameter whose values are not visible is unknown in every case."""
    axes: list[list[dict[str, Any]]] = []
    for a in deco.args:
        if a.star:
            return None
        items = _items(ev.value(a.value, None))
        if a.keyword is not None:
            name = a.keyword.value
            axes.append([{name: x} for x in items] if items is not None else [{}])
        else:
            if items is None:
                return None
            group = [one_case(x, [], named=False) for x in items]
            if any(g is None for g in group):
                return None
            axes.append([g for g in group if g is not None])
    out = []
    for combo in itertools.product(*axes):
        case: dict[str, Any] = {}
        for part in combo:
            case.update(part)
        out.append(case)
        if len(out) >= CAP:
            break
    return out


def _parametrize(ev: Evaluator, deco: cst.Call) -> list[dict[str, Any]] | None:
    """``pytest.mark.parametrize("a, b", [(1, 2), ...])``."""
    args = deco.args
    if len(args) != 2 or any(a.star for a in args):
        return None
    spelled = ev.value(args[0].value, None)
    if type(spelled) is Const and isinstance(spelled.value, str):
        names = [x.strip() for x in spelled.value.split(",") if x.strip()]
    elif type(spelled) in (Tuple, List) and all(type(x) is Const and isinstance(x.value, str) for x in spelled.items):
        names = [x.value for x in spelled.items]
    else:
        return None
    items = _items(ev.value(args[1].value, None))
    if items is None:
        return None
    out = []
    for item in items[:CAP]:
        if len(names) == 1:
            values = [item]
        elif type(item) in (Tuple, List):
            values = list(item.items)
        else:
            return None  # ``pytest.param(..., marks=...)`` may be skipped: not read
        if len(values) != len(names):
            return None
        out.append(dict(zip(names, values, strict=True)))
    return out


def _items(v: Any) -> list[Any] | None:
    return list(v.items) if type(v) in (Tuple, List) else None


def skips_some(fn: cst.FunctionDef) -> bool:
    """Does the body leave early for some cases: an ``if`` that reads a parameter and
    skips the test, returns or raises? Those cases may never reach a call."""
    names = {x.name.value for x in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)}
    nested = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
    for node in walk(fn.body, nested):
        if type(node) is not cst.If:
            continue
        if not any(type(n) is cst.Name and n.value in names for n in walk(node.test, ())):
            continue
        for inner in walk(node, nested):
            t = type(inner)
            if t in (cst.Return, cst.Raise, cst.Continue, cst.Break):
                return True
            if type(inner) is cst.Call and type(inner.func) in (cst.Attribute, cst.Name):
                func = inner.func
                last = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
                if last in LEAVES:
                    return True
    return False


def provide(ev: Evaluator, fn: Any) -> list[Case] | None:
    if type(fn) is not cst.FunctionDef or not fn.decorators:
        return None
    return decorated_cases(ev, fn, KINDS)


PROVIDERS.append(provide)
