"""How ``signatures.py`` writes a signature as plain data, and how it is read back.

A parameter is ``(name, kind)`` or ``(name, kind, default)``; kind 0 positional-only, 1
positional-or-keyword, 2 ``*args``, 3 keyword-only, 4 ``**kwargs``. A default is a plain
constant, ``E(qualified)`` for a type or dtype (``E("builtins.float")``) or ``U`` (a
default the model does not read: a sentinel object, a function).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jaxlint.base.literals import UNKNOWN

from ..abstract import External, from_constant
from ..signature import REQUIRED, Param, ParamKind, Signature


@dataclass(frozen=True, slots=True)
class E:
    """A default that is a type or dtype, by qualified name."""

    qualified: str


class _Unread:
    __slots__ = ()

    def __repr__(self) -> str:
        return "U"


U: Any = _Unread()

KINDS: tuple[ParamKind, ...] = ("posonly", "pos", "var", "kwonly", "varkw")


def default_value(d: Any) -> Any:
    if d is U:
        return UNKNOWN
    if isinstance(d, E):
        return External(d.qualified)
    return from_constant(d)


def decode(params: tuple[tuple[Any, ...], ...]) -> Signature:
    out = []
    for p in params:
        default = default_value(p[2]) if len(p) > 2 else REQUIRED
        out.append(Param(p[0], KINDS[p[1]], default))
    return Signature(tuple(out))
