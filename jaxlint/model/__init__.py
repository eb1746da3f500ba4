"""One model of the program for every rule: scopes and bindings, values, call sites.

``program(ctx)`` builds it once per file, on first use, from the engine's event list.
Beside it: shapes, array kinds, flow along a body, returns, axis names, traced functions,
call paths across modules (``calls``, ``paths``), the per-module facts and the project
built from them (``facts``, ``project``) and a rule's view of a file
(``context.FileContext``). The API is described in docs/writing-rules.md, "The program
model".

May import: ``jaxlint.base``, ``jaxlint.files``, ``jaxlint.plan``.
"""

from __future__ import annotations

from .program import Program
from .scopes import Binding, Scope
from .values import External, Function, Parameter, Partial, Transformed

__all__ = ["Binding", "External", "Function", "Parameter", "Partial", "Program", "Scope", "Transformed", "program"]


def program(ctx) -> Program:
    """The file's program model (built on first use, shared by every rule of the file)."""
    p = ctx.shared.get("model")
    if p is None:
        p = ctx.shared["model"] = Program(ctx)
    return p
