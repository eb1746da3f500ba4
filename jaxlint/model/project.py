"""Project facts: every module's facts merged, with the indexes rules query.

Built after all files are read (from cached or fresh module facts), so a verdict that
depends on another module is always recomputed: changing the module that pmaps a
function re-checks the module with its pmean.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from jaxlint.model.facts import FunctionFact, ModuleFacts


class Project:
    def __init__(self, modules: Iterable[ModuleFacts]) -> None:
        self.all: list[ModuleFacts] = [m for m in modules if m is not None]
        by_name: dict[str, list[ModuleFacts]] = defaultdict(list)
        for m in self.all:
            by_name[m.module].append(m)
        # two files with the same module name (scripts in different folders) are ambiguous
        self.modules: dict[str, ModuleFacts] = {k: v[0] for k, v in by_name.items() if len(v) == 1}
        self.by_path: dict[str, ModuleFacts] = {m.path: m for m in self.all}

    # functions --------------------------------------------------------------------
    def canonical(self, ref: str | None, _depth: int = 0) -> str | None:
        """Follow re-exports (``from .impl import f`` in a package) to the defining module."""
        if ref is None or _depth > 5:
            return ref
        mod, qual = self._split(ref)
        if mod is None:
            return ref
        m = self.modules[mod]
        if qual in m.functions:
            return ref
        head, _, rest = qual.partition(".")
        target = m.imports.get(head)
        if target is not None and target != ref:
            return self.canonical(f"{target}.{rest}" if rest else target, _depth + 1)
        return ref

    def _split(self, ref: str) -> tuple[str | None, str]:
        parts = ref.split(".")
        for i in range(len(parts) - 1, -1, -1):
            mod = ".".join(parts[:i])
            if mod in self.modules:
                return mod, ".".join(parts[i:])
        return None, ref

    def function(self, ref: str | None) -> tuple[ModuleFacts, FunctionFact] | None:
        ref = self.canonical(ref)
        if ref is None:
            return None
        mod, qual = self._split(ref)
        if mod is None:
            return None
        m = self.modules[mod]
        f = m.functions.get(qual)
        return (m, f) if f is not None else None

    def module_of(self, ref: str) -> ModuleFacts | None:
        mod, _ = self._split(ref)
        return self.modules.get(mod) if mod is not None else None
