"""How the namespace modules write their entries: a rule for a family of names, the
signature of each read from the generated ``signatures.py``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from ..signature import Signature
from . import Op, ResultRule
from .encoding import decode
from .signatures import ATTRIBUTES, SIGNATURES

SELF = Signature.of("self", "/")
Entries = dict[str, Callable[[], Op]]  # qualified name -> what makes its Op


def signature(q: str) -> Signature:
    """The signature JAX (or NumPy) declares for ``q``; an attribute has ``(self, /)``."""
    if q in ATTRIBUTES:
        return SELF
    return decode(SIGNATURES[q])


def op(q: str, result: ResultRule, key: str | None = None, static: Iterable[str] = ()) -> Op:
    sig = signature(q)
    names = {p.name for p in sig.params}
    missing = [s for s in (*([key] if key else []), *static) if s not in names]
    if missing:
        raise ValueError(f"catalogue: {q} has no parameter {missing[0]!r}")
    return Op(sig, result, key, tuple(static), attribute=q in ATTRIBUTES)


def _entry(q: str, rule: ResultRule, key: str | None, wanted: tuple[str, ...]) -> Op:
    params = {p.name for p in signature(q).params}
    static = () if q.startswith("numpy") else tuple(s for s in wanted if s in params)
    return op(q, rule, key if key in params else None, static)


def family(
    prefixes: Iterable[str],
    names: Iterable[str],
    result: Callable[..., Any],
    /,
    key: str | None = None,
    static: Iterable[str] = (),
    **options: Any,
) -> Entries:
    """One rule for ``names`` in each namespace of ``prefixes`` that has them (every name
    must exist in at least one); ``static`` keeps the names each signature has, and is
    empty for NumPy (never traced); ``options`` are bound to the rule. Each entry is made
    when it is first looked up."""
    rule = partial(result, **options) if options else result
    out: Entries = {}
    wanted = tuple(static)
    for name in names:
        found = False
        for prefix in prefixes:
            q = f"{prefix}.{name}"
            if q not in SIGNATURES and q not in ATTRIBUTES:
                continue
            found = True
            out[q] = partial(_entry, q, rule, key, wanted)
        if not found:
            raise ValueError(f"catalogue: no namespace of {tuple(prefixes)} has {name!r}")
    return out
