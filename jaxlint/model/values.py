"""What an expression evaluates to, as far as a JAX rule cares.

A value is a function (``def``, ``lambda``, method), a transform applied to a value
(``jax.vmap(f, in_axes=...)``, a decorator, ``partial(jax.vmap, ...)``), a ``partial`` of a
value, something imported (``External``), a parameter of a function, or UNKNOWN.
Literals (ints, strings, None, tuples, lists, dicts) are evaluated separately by
``Program.literal``. Evaluation follows names to their reaching definitions; more than
one candidate that disagree is UNKNOWN.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeGuard

import libcst as cst

from jaxlint.base.literals import UNKNOWN
from jaxlint.model.scopes import Binding
from jaxlint.model.transforms import PARTIAL, TRANSFORMS


@dataclass(slots=True, eq=False)
class Function:
    node: cst.FunctionDef | cst.Lambda

    @property
    def name(self) -> str:
        return "<lambda>" if isinstance(self.node, cst.Lambda) else self.node.name.value

    def __repr__(self) -> str:
        return f"Function({self.name})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Function) and other.node is self.node

    def __hash__(self) -> int:
        return id(self.node)


@dataclass(slots=True, eq=False)
class Transformed:
    """``api`` applied to ``target``. ``args``: positional options after the function;
    ``keywords``: keyword options; ``node``: the call, or the decorator expression."""

    api: str
    target: object  # a value
    node: cst.CSTNode
    args: list[cst.Arg] = field(default_factory=list)
    keywords: dict[str, cst.BaseExpression] = field(default_factory=dict)
    star_kwargs: bool = False  # ``**options``: options not known
    decorator: bool = False
    target_node: cst.BaseExpression | None = None  # how the source names the target

    def __repr__(self) -> str:
        return f"Transformed({self.api}, {self.target!r}, {sorted(self.keywords)})"


@dataclass(slots=True, eq=False)
class Partial:
    """``functools.partial(func, *args, **keywords)``."""

    func: object
    node: cst.Call
    arg_nodes: list[cst.Arg] = field(default_factory=list)  # what it binds, in order

    def __repr__(self) -> str:
        return f"Partial({self.func!r}, {len(self.arg_nodes)} bound)"

    @property
    def unknown(self) -> bool:
        """``*args`` or ``**kwargs`` among what it binds."""
        return any(a.star for a in self.arg_nodes)


@dataclass(slots=True, frozen=True)
class External:
    """Something defined outside the file: ``jax.vmap``, ``jax.numpy.stack``, ``mymod.f``."""

    qualified: str


@dataclass(slots=True, eq=False)
class Parameter:
    """A function's parameter: its value is whatever a caller passes."""

    binding: Binding

    def __repr__(self) -> str:
        return f"Parameter({self.binding.name})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Parameter) and other.binding is self.binding

    def __hash__(self) -> int:
        return id(self.binding)


def same(values: list) -> object:
    """The one value all candidates agree on, or UNKNOWN."""
    if not values:
        return UNKNOWN
    first = values[0]
    if first is UNKNOWN:
        return UNKNOWN
    for v in values[1:]:
        if v is UNKNOWN:
            return UNKNOWN
        if v is first:
            continue
        if type(v) is type(first) and type(v) in (Function, External, Parameter) and v == first:
            continue
        if type(v) is Transformed and type(first) is Transformed and v.node is first.node:
            continue
        return UNKNOWN
    return first


def apply_transform(
    api: str, target: object, node: cst.CSTNode, args: list[cst.Arg], decorator: bool = False, target_node=None
) -> Transformed:
    kws = {a.keyword.value: a.value for a in args if a.keyword is not None}
    positional = [a for a in args if a.keyword is None and not a.star]
    return Transformed(api, target, node, positional, kws, any(a.star == "**" for a in args), decorator, target_node)


def is_transform(v: object) -> TypeGuard[External]:
    return type(v) is External and v.qualified in TRANSFORMS


def is_partial(v: object) -> TypeGuard[External]:
    return type(v) is External and v.qualified in PARTIAL
