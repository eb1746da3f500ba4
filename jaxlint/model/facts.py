"""Module facts: what one file exports to the project phase.

The project phase decides findings that depend on other modules after every file has
been read, from cached records, without keeping any syntax tree alive. What it needs of
a module is small: its name and path, what its imports bind (to follow re-exports), the
functions it defines by qualified name (``f``, ``Model.apply``, ``outer.inner``,
``<lambda>#2``: the references that call paths and forwarding records use), and the
records rules leave in ``extra``. Everything else a rule asks about a file — what a name
refers to, what an expression evaluates to, which transforms apply — is the program
model's (``jaxlint.model.program``), read while the file's tree is alive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN, literal
from jaxlint.base.names import ImportTable

FunctionNode = cst.FunctionDef | cst.Lambda


@dataclass(slots=True)
class FunctionFact:
    qualname: str  # inside the module: "f", "Model.apply", "outer.inner", "<lambda>#2"
    class_name: str | None = None  # the class whose body defines it (a method)


@dataclass(slots=True)
class ModuleFacts:
    module: str
    path: str
    imports: dict[str, str] = field(default_factory=dict)
    functions: dict[str, FunctionFact] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)  # rule-specific facts, by rule code

    def ref(self, qualname: str) -> str:
        return f"{self.module}.{qualname}" if self.module else qualname


def collect_facts(
    path: str, module: cst.Module, events: list[tuple[cst.CSTNode, bool]], module_name: str, is_package: bool
) -> tuple[ImportTable, ModuleFacts, dict[FunctionNode, str]]:
    """The file's imports, its module facts and the qualified name of each def and lambda
    (in text order), in one pass over the engine's events."""
    names = ImportTable(module_name, is_package)
    facts = ModuleFacts(module=module_name, path=path)
    qualnames: dict[FunctionNode, str] = {}
    scopes: list[tuple[str, str]] = []  # (kind, qualname): kind is "class" or "function"
    # qualname -> the last ``#n`` suffix given: the next free one is found from there, not
    # by trying 2, 3, ... again (32,000 same-named lambdas took minutes)
    suffix: dict[str, int] = {}
    aliases: list[tuple[str, cst.BaseExpression]] = []
    functions = facts.functions
    for node, entering in events:
        # exact types, not isinstance: LibCST's nodes are ABCs, and this loop sees every node
        if not entering:
            if type(node) is cst.FunctionDef or type(node) is cst.Lambda or type(node) is cst.ClassDef:
                scopes.pop()
        elif type(node) is cst.Import:
            names.add_import(node)
        elif type(node) is cst.ImportFrom:
            names.add_import_from(node)
        elif type(node) is cst.ClassDef:
            prefix = scopes[-1][1] if scopes else ""
            scopes.append(("class", f"{prefix}.{node.name.value}" if prefix else node.name.value))
        elif type(node) is cst.FunctionDef or type(node) is cst.Lambda:
            prefix = scopes[-1][1] if scopes else ""
            name = node.name.value if type(node) is cst.FunctionDef else "<lambda>"
            base = f"{prefix}.{name}" if prefix else name
            n = suffix.get(base, 1)
            qual = f"{base}#{n}" if n > 1 else base
            while qual in functions:
                n += 1
                qual = f"{base}#{n}"
            suffix[base] = n
            in_class = type(node) is cst.FunctionDef and bool(scopes) and scopes[-1][0] == "class"
            functions[qual] = FunctionFact(qual, scopes[-1][1].rsplit(".", 1)[-1] if in_class else None)
            qualnames[node] = qual
            scopes.append(("function", qual))
        elif type(node) is cst.Assign and not scopes and len(node.targets) == 1:
            assigned = node.targets[0].target
            if type(assigned) is cst.Name:
                aliases.append((assigned.value, node.value))
    # ``pmean = jax.lax.pmean`` at module level: an alias (after every import is known)
    for target, value in aliases:
        if literal(value, {}) is UNKNOWN:
            names.add_alias(target, value)
    facts.imports = names.items()
    return names, facts, qualnames
