"""Which defs of a file JAX801/JAX802 must see: those that may spell a catalogue entry.

Read from the ``ast`` outline (see ``jaxlint/plan/slicing.py``), so it must never miss a def
the rules would report in: every test here is a cheap over-approximation of the rule's
own condition (a dotted name that resolves to a catalogue entry; for keyword entries
the keyword among the def's words; for positional entries a call with enough commas).
"""

from __future__ import annotations

import re

from jaxlint.plan.outline import Outline

from .table import BY_OLD, CALL_NAMES, CONFIG, KEYWORDS, LAST_NAMES, POSITIONAL

_MESH = frozenset({"Mesh", "make_mesh"})
_WORDS = LAST_NAMES | CALL_NAMES | {"update", "with"}


def migration_seeds(ol: Outline) -> set[int]:
    hit = ol._cache.get("migration")
    if hit is None:
        hit = _compute(ol)
        ol._cache["migration"] = hit
    return hit


def _compute(ol: Outline) -> set[int]:
    imports = ol.imports
    mesh_names = set(_MESH)
    for u in ol.units:
        if u.assigns and not _MESH.isdisjoint(u.idents):
            mesh_names |= u.assigns
    out: set[int] = set()
    for i, u in enumerate(ol.units):
        if not u.blankable:
            continue
        if _may_migrate(ol, u, imports, mesh_names):
            out.add(i)
    return out


def _may_migrate(ol: Outline, u, imports: dict[str, str], mesh_names: set[str]) -> bool:
    idents = u.idents
    if "with" in idents and not idents.isdisjoint(mesh_names):
        return True
    if "update" in idents and not idents.isdisjoint(CONFIG):
        return True
    if "update" in idents and any(c.endswith("config.update") for c in u.chains):
        return True
    if idents.isdisjoint(_WORDS):
        return False
    for written in [*u.chains, *(n for n in idents if n in imports)]:
        head, _, rest = written.partition(".")
        q = imports.get(head)
        if q is None:
            continue
        if q == "?":
            return True
        full = f"{q}.{rest}" if rest else q
        parts = full.split(".")
        for k in range(2, len(parts) + 1):
            old = ".".join(parts[:k])
            if any(not e.imports_only for e in BY_OLD.get(old, ())):
                return True
            if any(e.keyword in idents for e in KEYWORDS.get(old, ())):
                return True
            if any(_many_arguments(ol, u, written, e.max_positional or 0) for e in POSITIONAL.get(old, ())):
                return True
    return False


def _many_arguments(ol: Outline, u, written: str, limit: int) -> bool:
    """Is ``written(...)`` ever called with more than ``limit`` positional arguments (or unreadably)?"""
    text = "".join(ol.source_lines[u.start - 1 : u.end])
    pattern = r"(?<![\w.])" + r"[ \t]*\.[ \t]*".join(map(re.escape, written.split("."))) + r"[ \t]*\("
    for m in re.finditer(pattern, text):
        n = _positional_arguments(text, m.end())
        if n is None or n > limit:
            return True
    return False


_KEYWORD_ARG = re.compile(r"\s*(\*\*|[A-Za-z_]\w*\s*=(?!=))")


def _positional_arguments(text: str, pos: int) -> int | None:
    """Positional arguments from ``pos`` (just after ``(``) to the closing parenthesis; None if unsure."""
    depth, i, n = 0, pos, len(text)
    args: list[str] = []
    start = pos
    while i < n:
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                args.append(text[start:i])
                break
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(text[start:i])
            start = i + 1
        elif ch in "'\"#\\":
            return None  # strings, comments, continuations: do not guess
        i += 1
    else:
        return None
    args = [a for a in args if a.strip()]
    if any(a.lstrip().startswith("*") and not a.lstrip().startswith("**") for a in args):
        return None
    return sum(1 for a in args if not _KEYWORD_ARG.match(a))
