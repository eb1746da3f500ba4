"""Signatures and argument binding: which parameter each argument of a call lands on.

``Signature`` is one record for a callable's parameters, whatever the callable is (a
def, a lambda, a catalogue function, a method bound to its receiver, a ``partial``, a
transform of one of these: ``jaxlint.model.evaluate`` derives it). ``bind`` is
``inspect.Signature.bind`` on abstract values: it says where each argument goes, which
parameters keep their defaults, and why a call cannot bind (too many positional
arguments, a missing required one, an unexpected keyword) — a call that would raise
``TypeError``. Arguments spread with ``*xs`` / ``**kw`` whose length the model does not
know make the binding ``partial``: only what certainly holds is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from jaxlint.base.literals import UNKNOWN

ParamKind = Literal["posonly", "pos", "var", "kwonly", "varkw"]


class _Required:
    __slots__ = ()

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()  # a parameter without a default


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter: ``default`` is an abstract value, ``REQUIRED``, or ``UNKNOWN`` (it
    has a default whose value is not known)."""

    name: str
    kind: ParamKind = "pos"
    default: Any = REQUIRED
    annotation: Any = field(default=None, compare=False)  # the annotation expression, if any

    @property
    def required(self) -> bool:
        return self.default is REQUIRED and self.kind in ("posonly", "pos", "kwonly")

    @property
    def positional(self) -> bool:
        return self.kind in ("posonly", "pos")


@dataclass(frozen=True, slots=True)
class Signature:
    params: tuple[Param, ...]

    @staticmethod
    def of(*spec: str, **defaults: Any) -> Signature:
        """A signature from a compact spec: ``"x"``, ``"/"`` (positional-only marker),
        ``"*args"``, ``"*"`` (keyword-only marker), ``"**kw"``; ``defaults`` maps a name to
        its default (an abstract value) — ``Signature.of("a", "axis", axis=Const(None))``."""
        params: list[Param] = []
        kind: ParamKind = "pos"
        for s in spec:
            if s == "/":
                params = [Param(p.name, "posonly", p.default) for p in params]
                continue
            if s == "*":
                kind = "kwonly"
                continue
            if s.startswith("**"):
                params.append(Param(s[2:], "varkw"))
                continue
            if s.startswith("*"):
                params.append(Param(s[1:], "var"))
                kind = "kwonly"
                continue
            params.append(Param(s, kind, defaults.get(s, REQUIRED)))
        return Signature(tuple(params))

    @property
    def positional(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.positional)

    @property
    def var_positional(self) -> Param | None:
        return next((p for p in self.params if p.kind == "var"), None)

    @property
    def var_keyword(self) -> Param | None:
        return next((p for p in self.params if p.kind == "varkw"), None)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name and p.kind not in ("var", "varkw")), None)

    def positional_counts(self) -> tuple[int, int | None]:
        """How many positional arguments a call may pass: (at least, at most or None)."""
        pos = self.positional
        least = sum(1 for p in pos if p.default is REQUIRED)
        return least, None if self.var_positional is not None else len(pos)

    def drop_positional(self, n: int) -> Signature | None:
        """The signature after ``n`` positional arguments are bound (``partial``, a bound
        method's receiver); None when more than it takes."""
        out: list[Param] = []
        left = n
        for p in self.params:
            if left and p.positional:
                left -= 1
                continue
            out.append(p)
        if left and self.var_positional is None:
            return None
        return Signature(tuple(out))

    def with_defaults(self, keywords: dict[str, Any]) -> Signature:
        """The signature after ``partial`` binds ``keywords``: those parameters get the
        bound value as default and become keyword-only (as ``inspect`` shows them)."""
        out: list[Param] = []
        after = False
        for p in self.params:
            if p.name in keywords and p.kind in ("posonly", "pos", "kwonly"):
                out.append(Param(p.name, "kwonly", keywords[p.name], p.annotation))
                after = True
            elif after and p.positional:
                out.append(Param(p.name, "kwonly", p.default, p.annotation))
            else:
                out.append(p)
        return Signature(tuple(out))


@dataclass(slots=True)
class Binding:
    """What ``bind`` found: ``arguments`` maps each parameter that got an argument to its
    value (``var`` parameters to a tuple of values, ``varkw`` to a dict); ``defaulted``
    lists those certainly left at their defaults; ``partial``: some arguments were spread
    with a length the model does not know, so absent parameters may still be given;
    ``spread``: the absent parameters a spread argument may give (``Config(**overrides)``
    may set any field: its default is not what it holds); ``error``: why the call raises
    ``TypeError`` (None when it binds)."""

    arguments: dict[str, Any] = field(default_factory=dict)
    defaulted: list[str] = field(default_factory=list)
    partial: bool = False
    spread: set[str] = field(default_factory=set)
    error: str | None = None
    # parameter name -> the position of the argument in the call (for messages)
    where: dict[str, int | str] = field(default_factory=dict)

    def value(self, sig: Signature, name: str) -> Any:
        """The argument bound to ``name``, else its default, else UNKNOWN (also when a
        spread argument may give it)."""
        if name in self.arguments:
            return self.arguments[name]
        if name in self.spread:
            return UNKNOWN
        p = sig.param(name)
        if p is not None and p.default is not REQUIRED:
            return p.default
        return UNKNOWN


# an argument of a call: (value, keyword name or None, star: "" | "*" | "**")
Argument = tuple[Any, "str | None", str]


def bind(sig: Signature, args: list[Argument]) -> Binding:
    """Bind a call's arguments to ``sig`` as Python would."""
    b = Binding()
    positional = [a for a in args if a[1] is None and a[2] == ""]
    spread_pos = any(a[2] == "*" for a in args)
    spread_kw = any(a[2] == "**" for a in args)
    keywords = [(a[1], a[0]) for a in args if a[1] is not None]
    params = sig.params
    pos_params = [p for p in params if p.positional]
    var = sig.var_positional
    varkw = sig.var_keyword
    b.partial = spread_pos or spread_kw
    i = 0
    seen_star = False
    for k, (value, name, star) in enumerate(args):
        if name is not None or star == "**":
            continue
        if star == "*":
            seen_star = True
            continue
        if seen_star:
            break  # a positional argument after ``*xs`` lands on a position the model does not know
        if i < len(pos_params):
            b.arguments[pos_params[i].name] = value
            b.where[pos_params[i].name] = k
            i += 1
            continue
        if var is not None:
            b.arguments[var.name] = tuple(v for v, n, st in args[k:] if n is None and st == "")
            b.where[var.name] = k
            break
        if not b.partial:
            n = len(pos_params)
            b.error = (
                f"takes {n} positional argument{'s' if n != 1 else ''} but {len(positional)} "
                f"{'were' if len(positional) != 1 else 'was'} given"
            )
        return b
    extra: dict[str, Any] = {}
    for name, value in keywords:
        assert name is not None
        p = sig.param(name)
        if p is None or p.kind == "posonly":
            if varkw is not None:
                extra[name] = value
                continue
            if not b.partial or p is None:
                b.error = f"got an unexpected keyword argument '{name}'"
                return b
            continue
        if name in b.arguments:
            b.error = f"got multiple values for argument '{name}'"
            return b
        b.arguments[name] = value
        b.where[name] = name
    if varkw is not None and extra:
        b.arguments[varkw.name] = extra
    filled = set(b.arguments)
    for p in params:
        if p.name in filled or p.kind in ("var", "varkw"):
            continue
        if (spread_kw and p.kind != "posonly") or (spread_pos and p.positional):
            b.spread.add(p.name)  # ``f(*xs)``/``f(**kw)`` may give it
            continue
        if p.default is REQUIRED:
            if not b.partial:
                b.error = f"missing a required argument: '{p.name}'"
                return b
        else:
            b.defaulted.append(p.name)
    return b
