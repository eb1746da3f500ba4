"""Which rules exist (every Rule subclass under ``jaxlint.rules``) and which are enabled."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from functools import lru_cache

from jaxlint.lint.rule import Rule


class RegistryError(Exception):
    pass


class SelectionError(ValueError):
    pass


@lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    """Import every module under jaxlint.rules; fail loudly on a duplicate code or name."""
    import jaxlint.rules as pkg

    found: dict[str, type[Rule]] = {}
    names: dict[str, str] = {}
    for info in pkgutil.walk_packages(pkg.__path__, prefix="jaxlint.rules."):
        mod = importlib.import_module(info.name)
        for obj in vars(mod).values():
            if not (isinstance(obj, type) and issubclass(obj, Rule) and obj is not Rule and obj.code):
                continue
            if obj.__module__ != mod.__name__:
                continue
            if obj.code in found and found[obj.code] is not obj:
                raise RegistryError(
                    f"duplicate rule code {obj.code}: {found[obj.code].__module__}.{found[obj.code].__name__} "
                    f"and {obj.__module__}.{obj.__name__}"
                )
            if obj.name in names and names[obj.name] != obj.code:
                raise RegistryError(f"duplicate rule name {obj.name!r}: {names[obj.name]} and {obj.code}")
            found[obj.code] = obj
            names[obj.name] = obj.code
    return tuple(sorted(found.values(), key=lambda r: r.code))


def rule_by_code(code: str) -> type[Rule] | None:
    code = code.upper()
    for r in all_rules():
        if r.code == code or r.name == code.lower():
            return r
    return None


def check_selectors(selectors: Iterable[str], where: str) -> None:
    codes = [r.code for r in all_rules()]
    for s in selectors:
        if s == "ALL":
            continue
        if not any(c.startswith(s) for c in codes):
            raise SelectionError(f"{where}: unknown rule selector {s!r} (see `jaxlint rules`)")


def _matches(code: str, selectors: Iterable[str]) -> bool:
    return any(s == "ALL" or code.startswith(s) for s in selectors)


def enabled_rules(
    select: list[str] | None,
    extend_select: list[str],
    ignore: list[str],
    preview: bool,
) -> tuple[type[Rule], ...]:
    out = []
    for r in all_rules():
        if r.is_preview() and not preview:
            continue
        chosen = _matches(r.code, select) if select is not None else True
        if _matches(r.code, extend_select):
            chosen = True
        if _matches(r.code, ignore):
            chosen = False
        if chosen:
            out.append(r)
    return tuple(out)
