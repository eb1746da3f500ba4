"""No table of JAX APIs is written twice.

What the model knows of a JAX function is written once: its signature and result rule in
the catalogue (``jaxlint/model/catalogue/``), what a transform does in
``jaxlint/model/transforms.py``, the removed and deprecated APIs in
``rules/migration/table.py``, the other spellings of a name in ``jaxlint/base/names.py``,
the annotations that mean an array in ``jaxlint/model/annotations.py`` and which test
functions expect an error or a warning in the assertion frameworks' registry
(``jaxlint/model/frameworks/``: ``numpy.testing.assert_raises`` runs its callable). Every other
module derives the sets it needs from those (``transforms.named(gives="value")``,
``catalogue.rule_family(q)``). This test reads every module of the model and of every
family and fails on a module-level collection literal (a set, list, tuple, or a dict's
keys) that names two or more JAX APIs outside those homes.
"""

from __future__ import annotations

import ast
from pathlib import Path

from jaxlint.model.catalogue.signatures import SIGNATURES
from jaxlint.model.transforms import TABLE

ROOT = Path(__file__).resolve().parents[2]
HOMES = (
    "jaxlint/model/transforms.py",
    "jaxlint/model/catalogue/",
    "jaxlint/model/annotations.py",
    "jaxlint/base/names.py",
    "rules/migration/table.py",
    "jaxlint/model/frameworks/",
)
# tables that the families still being moved onto the model keep (issue 29): each goes
# when its family reads the model
PENDING = {}
KNOWN = frozenset(SIGNATURES) | frozenset(TABLE)


def _apis(node: ast.AST) -> set[str]:
    return {
        n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in KNOWN
    }


def tables() -> dict[tuple[str, str], set[str]]:
    """(module path, name) -> the JAX APIs a module-level collection literal names."""
    out: dict[tuple[str, str], set[str]] = {}
    for path in sorted([*ROOT.joinpath("jaxlint").rglob("*.py"), *ROOT.joinpath("rules").rglob("*.py")]):
        rel = path.relative_to(ROOT).as_posix()
        for stmt in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target, value = stmt.targets[0], stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                target, value = stmt.target, stmt.value
            else:
                continue
            parts = [k for k in value.keys if k is not None] if isinstance(value, ast.Dict) else [value]
            names = set().union(*(_apis(p) for p in parts))
            if len(names) >= 2 and isinstance(target, ast.Name):
                out[(rel, target.id)] = names
    return out


def test_api_tables_live_in_their_homes():
    found = tables()
    elsewhere = {k: sorted(v)[:4] for k, v in found.items() if not k[0].startswith(HOMES) and k not in PENDING}
    assert elsewhere == {}


def test_the_pending_tables_still_exist():
    """A pending table that is gone leaves this list: it cannot come back unnoticed."""
    assert set(PENDING) <= set(tables())


def test_the_scan_sees_a_table():
    """The scan is not blind: the transform table and the migration table are found."""
    found = tables()
    assert len(found[("jaxlint/model/transforms.py", "TABLE")]) == len(TABLE)
    assert ("rules/migration/table.py", "ENTRIES") in found
