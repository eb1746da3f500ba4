"""Which builtin container an expression holds (``list``, ``dict``, ``set``, ``tuple``), also
when its contents are unknown: appending to a list leaves it a list.

Why: a container's methods are Python's own code, which stores only into the container.
JAX502 asks whether a call may store a new key into an object whose key it tracks;
``self.history.append(float(loss))`` cannot, whatever ``self.history`` holds. The value
lattice forgets a list once it is appended to in a loop (its items are unknown); its type
is not forgotten: only a new binding changes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from .abstract import Class, Dict, External, List, Struct, Tuple

if TYPE_CHECKING:
    from .evaluate import Evaluator

_DISPLAYS: dict[type, str] = {
    cst.List: "list",
    cst.ListComp: "list",
    cst.Dict: "dict",
    cst.DictComp: "dict",
    cst.Set: "set",
    cst.SetComp: "set",
    cst.Tuple: "tuple",
}
# the builtin classes and their ``typing`` aliases, by qualified name
_TYPES: dict[str, str] = {}
for _t in ("list", "dict", "set", "tuple"):
    _TYPES[_t] = _TYPES[f"builtins.{_t}"] = _t
    _TYPES[f"typing.{_t.capitalize()}"] = _t
_TYPES.update({"collections.OrderedDict": "dict", "collections.defaultdict": "dict", "typing.DefaultDict": "dict"})
_VALUES: dict[type, str] = {List: "list", Tuple: "tuple", Dict: "dict"}


def container_of(ev: Evaluator, expr: cst.BaseExpression) -> str | None:
    """The builtin container ``expr`` holds, or None when unknown (or not a container)."""
    return _of(ev, expr, 0)


def _of(ev: Evaluator, expr: cst.BaseExpression, depth: int) -> str | None:
    if depth > 4:
        return None
    t = type(expr)
    if t in _DISPLAYS:
        return _DISPLAYS[t]
    v = ev.value(expr, None)
    if type(v) in _VALUES:
        return _VALUES[type(v)]
    if isinstance(expr, cst.Call):
        return _constructed(ev, expr)
    if isinstance(expr, cst.Name):
        bs = ev.p.reaching(expr)
        if not bs or any(b.kind != "assign" or b.value is None for b in bs):
            return None
        items = [ev.p.unpacked(b.value, b.unpack) for b in bs if b.value is not None]
        kinds = {_of(ev, item, depth + 1) if item is not None else None for item in items}
        return kinds.pop() if len(kinds) == 1 else None
    if isinstance(expr, cst.Attribute):
        return _attribute(ev, ev.value(expr.value, None), expr.attr.value)
    if isinstance(expr, cst.IfExp):
        arms = {_of(ev, expr.body, depth + 1), _of(ev, expr.orelse, depth + 1)}
        return arms.pop() if len(arms) == 1 else None
    return None


def _constructed(ev: Evaluator, call: cst.Call) -> str | None:
    """``list(xs)``, ``dict(a=1)``, ``collections.defaultdict(list)``."""
    f = ev.value(call.func, None)
    return _TYPES.get(f.qualified) if type(f) is External else None


def _attribute(ev: Evaluator, receiver: Any, name: str) -> str | None:
    """``obj.name`` of an instance: a dataclass field declared a container (``history: list``,
    ``field(default_factory=list)``), or an attribute every store of the class's methods
    sets to a container (``self.history = []``)."""
    if type(receiver) is not Struct or type(receiver.cls) is not Class:
        return None
    from . import attributes
    from .classes import _field_statements, _owner, mro

    for owner, small in _field_statements(ev, receiver.cls):
        if small.target.value != name:  # type: ignore[attr-defined]  # a Name
            continue
        return _declared(owner, small)
    for c in mro(ev, receiver.cls):
        if type(c) is not Class:
            return None
        owner = _owner(ev, c)
        stores = attributes.stores_of(owner.p, c.node, name)
        if stores is None:
            return None
        if stores:
            kinds = {_of(owner, s, 1) if s is not None else None for s in stores}
            return kinds.pop() if len(kinds) == 1 else None
    return None


def _declared(ev: Evaluator, small: cst.AnnAssign) -> str | None:
    """A field's container: its annotation (``list``, ``list[float]``, ``typing.Dict[str, int]``),
    else its default (``[]`` is refused by dataclasses, ``field(default_factory=list)``)."""
    ann = small.annotation.annotation
    base = ann.value if type(ann) is cst.Subscript else ann
    v = ev.value(base, None)
    if type(v) is External and v.qualified in _TYPES:
        return _TYPES[v.qualified]
    value = small.value
    if type(value) is cst.Call:
        for a in value.args:
            if a.keyword is not None and a.keyword.value == "default_factory":
                f = ev.value(a.value, None)
                return _TYPES.get(f.qualified) if type(f) is External else None
    return None
