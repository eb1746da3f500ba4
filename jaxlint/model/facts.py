"""Module facts: what one file defines and which transforms it applies to what.

Collected in one cheap walk before the rules run, as plain records (cached as JSON), so that
project-wide questions ("is `train_step` ever pmapped, with which axis name?") can be
answered after every file has been read, without keeping any syntax tree alive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from jaxlint.base.literals import literal
from jaxlint.base.names import ImportTable, dotted

from .transforms import TABLE

# Transforms whose first argument is the function they wrap (model/transforms.py).
TRANSFORMS = frozenset(q for q, a in TABLE.items() if a.kind in ("map", "trace", "removed"))
PARTIAL = frozenset({"functools.partial"})


@dataclass(slots=True)
class Param:
    name: str
    kind: str  # "posonly" | "pos" | "vararg" | "kwonly" | "varkw"
    default: str | None = None  # source text of the default, if any
    annotation: str | None = None


@dataclass(slots=True)
class FunctionFact:
    qualname: str  # inside the module: "f", "Model.apply", "outer.inner", "<lambda:12:8>"
    name: str
    params: list[Param]
    line: int = 0
    class_name: str | None = None
    is_method: bool = False  # first parameter is bound (self/cls)
    is_lambda: bool = False
    decorators: list[str] = field(default_factory=list)  # resolved names, or source text
    calls: list[str] = field(default_factory=list)  # references of functions it calls directly

    @property
    def positional(self) -> list[Param]:
        """Parameters a caller can pass positionally (``self`` excluded for methods)."""
        ps = [p for p in self.params if p.kind in ("posonly", "pos")]
        return ps[1:] if self.is_method else ps

    @property
    def has_varargs(self) -> bool:
        return any(p.kind == "vararg" for p in self.params)


@dataclass(slots=True)
class Transform:
    """``api(target, *args, **keywords)`` as a call, a decorator or a ``partial``."""

    api: str
    target: str | None  # function reference (see ModuleFacts.ref), or None if unknown
    keywords: dict[str, Any]
    args: list[Any]  # literal values of positional arguments after the function
    scope: str  # qualname of the enclosing function, "" at module level
    line: int
    column: int
    decorator: bool = False
    bound_to: str | None = None  # reference of the variable it is assigned to
    chain: list[str] = field(default_factory=list)  # inner transforms between api and target
    partial_args: int = 0  # positional args bound by functools.partial around the target
    partial_keywords: list[str] = field(default_factory=list)


@dataclass(slots=True)
class ModuleFacts:
    module: str
    path: str
    imports: dict[str, str] = field(default_factory=dict)
    functions: dict[str, FunctionFact] = field(default_factory=dict)
    transforms: list[Transform] = field(default_factory=list)
    constants: dict[str, Any] = field(default_factory=dict)
    module_calls: list[str] = field(default_factory=list)  # calls made by module-level code
    extra: dict[str, Any] = field(default_factory=dict)  # rule-specific facts, by rule code

    def ref(self, qualname: str) -> str:
        return f"{self.module}.{qualname}" if self.module else qualname


def _param_list(params: cst.Parameters, code_for) -> list[Param]:
    out: list[Param] = []
    for p in params.posonly_params:
        out.append(_param(p, "posonly", code_for))
    for p in params.params:
        out.append(_param(p, "pos", code_for))
    if isinstance(params.star_arg, cst.Param):
        out.append(_param(params.star_arg, "vararg", code_for))
    for p in params.kwonly_params:
        out.append(_param(p, "kwonly", code_for))
    if params.star_kwarg is not None:
        out.append(_param(params.star_kwarg, "varkw", code_for))
    return out


def _param(p: cst.Param, kind: str, code_for) -> Param:
    return Param(
        name=p.name.value,
        kind=kind,
        default=code_for(p.default) if p.default is not None else None,
        annotation=code_for(p.annotation.annotation) if p.annotation is not None else None,
    )


class FactCollector:
    """Fills ModuleFacts during the engine's first walk (see ``engine.walk``)."""

    def __init__(self, facts: ModuleFacts, names: ImportTable, code_for) -> None:
        self.facts = facts
        self.names = names
        self.code_for = code_for
        self.qualname_of: dict[cst.CSTNode, str] = {}
        self.scopes: list[tuple[str, str]] = []  # (kind, qualname): kind is "class" or "function"
        # names bound in each function scope ("" = module) to defs or transformed functions
        self.bindings: dict[str, dict[str, str]] = {}
        self.calls: list[tuple[str, cst.BaseExpression]] = []
        self.transform_nodes: list[tuple[Transform, cst.CSTNode]] = []
        self.function_nodes: list[tuple[FunctionFact, cst.FunctionDef | cst.Lambda]] = []
        self.lambda_targets: set[str] = set()  # names assigned a lambda anywhere in the file
        # function scope -> names it assigns something other than a call (``g = lambda ...``):
        # such a local hides an outer def of the same name
        self.local_names: dict[str, set[str]] = {}
        # qualname -> the last ``#n`` suffix given to a def or lambda of that qualname: the
        # next free one is found from there, not by trying 2, 3, ... again (32,000
        # same-named lambdas took minutes)
        self._suffix: dict[str, int] = {}

    @property
    def scope(self) -> str:
        """Qualname of the innermost enclosing function ("" at module level or in a class body)."""
        for kind, qual in reversed(self.scopes):
            if kind == "function":
                return qual
        return ""

    def _prefix(self) -> str:
        return self.scopes[-1][1] if self.scopes else ""

    def enter_class(self, node: cst.ClassDef) -> None:
        prefix = self._prefix()
        self.scopes.append(("class", f"{prefix}.{node.name.value}" if prefix else node.name.value))

    def enter_function(self, node: cst.FunctionDef | cst.Lambda) -> None:
        prefix = self._prefix()
        if isinstance(node, cst.FunctionDef):
            name = node.name.value
            qual = f"{prefix}.{name}" if prefix else name
            in_class = bool(self.scopes) and self.scopes[-1][0] == "class"
            class_name = self.scopes[-1][1].rsplit(".", 1)[-1] if in_class else None
            decorators = [self.decorator_name(d.decorator) for d in node.decorators]
            params = _param_list(node.params, self.code_for)
            is_method = (
                in_class and "staticmethod" not in decorators and bool(params) and params[0].kind in ("pos", "posonly")
            )
            fact = FunctionFact(qual, name, params, 0, class_name, is_method, False, decorators)
            if not in_class:
                self.bindings.setdefault(self.scope, {})[name] = qual
        else:
            qual = f"{prefix}.<lambda>" if prefix else "<lambda>"
            fact = FunctionFact(qual, "<lambda>", _param_list(node.params, self.code_for), 0, None, False, True)
        base, n = qual, self._suffix.get(qual, 1)
        if n > 1:
            qual = f"{base}#{n}"
        while qual in self.facts.functions:
            n += 1
            qual = f"{base}#{n}"
        self._suffix[base] = n
        fact.qualname = qual
        self.facts.functions[qual] = fact
        self.qualname_of[node] = qual
        self.function_nodes.append((fact, node))
        self.scopes.append(("function", qual))

    def leave_scope(self) -> None:
        self.scopes.pop()

    def decorator_name(self, expr: cst.BaseExpression) -> str:
        target = expr.func if isinstance(expr, cst.Call) else expr
        return self.names.resolve(target) or dotted(target) or self.code_for(target)

    # references ------------------------------------------------------------------
    def ref_for_name(self, name: str, scope: str) -> str | None:
        """The reference of a plain name used in ``scope``: a def, a bound transform, an import."""
        parts = scope.split(".") if scope else []
        while True:
            defs = self.bindings.get(".".join(parts))
            if defs and name in defs:
                return self.facts.ref(defs[name])
            if parts and name in self.local_names.get(".".join(parts), ()):
                return None  # a local variable: not the outer def of that name
            if not parts:
                break
            parts.pop()
        return self.names.lookup(name)

    def ref_for_expr(self, node: cst.BaseExpression, scope: str) -> str | None:
        if isinstance(node, cst.Name):
            return self.ref_for_name(node.value, scope)
        if isinstance(node, cst.Lambda):
            q = self.qualname_of.get(node)
            return self.facts.ref(q) if q else None
        if isinstance(node, cst.Attribute):
            return self.names.resolve(node)
        return None

    # transforms ------------------------------------------------------------------
    def keywords_of(self, args) -> dict[str, Any]:
        return {a.keyword.value: literal(a.value, self.facts.constants) for a in args if a.keyword is not None}

    def transform_of_call(self, call: cst.Call, scope: str, decorated: str | None = None) -> Transform | None:
        """Read ``api(f, ...)``, ``partial(api, ...)(f)`` or (as decorator) ``api(...)`` / ``partial(api, ...)``."""
        func = call.func
        api = self.names.resolve(func)
        if isinstance(func, cst.Call) and func.args and self.names.resolve(func.func) in PARTIAL:
            inner = self.names.resolve(func.args[0].value)
            if inner not in TRANSFORMS:
                return None
            options = list(func.args[1:]) + [a for a in call.args if a.keyword is not None]
            positional = [a for a in call.args if a.keyword is None and not a.star]
            target = positional[0].value if positional else None
            extra = [a for a in func.args[1:] if a.keyword is None] + positional[1:]
            return self._build(inner, call, options, extra, target, scope, decorated)
        if api in PARTIAL and call.args:
            inner = self.names.resolve(call.args[0].value)
            if inner not in TRANSFORMS:
                return None
            rest = call.args[1:]
            positional = [a for a in rest if a.keyword is None and not a.star]
            if decorated is not None:
                return self._build(inner, call, rest, positional, None, scope, decorated)
            # partial(jax.grad, f, argnums=1) binds the function itself
            target = positional[0].value if positional else None
            return self._build(inner, call, rest, positional[1:], target, scope, None)
        if api not in TRANSFORMS:
            return None
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if decorated is not None:
            return self._build(api, call, call.args, positional, None, scope, decorated)
        target = positional[0].value if positional else None
        return self._build(api, call, call.args, positional[1:], target, scope, None)

    def _build(self, api, call, option_args, extra_args, target_node, scope, decorated) -> Transform:
        chain: list[str] = []
        partial_args = 0
        partial_keywords: list[str] = []
        target: str | None = decorated
        node = target_node
        while node is not None and target is None:
            if isinstance(node, cst.Call) and node.args:
                inner = self.names.resolve(node.func)
                if inner in PARTIAL:
                    partial_args += sum(1 for a in node.args[1:] if a.keyword is None and not a.star)
                    partial_keywords += [a.keyword.value for a in node.args[1:] if a.keyword is not None]
                    node = node.args[0].value
                    continue
                if inner in TRANSFORMS:
                    chain.append(inner)
                    node = node.args[0].value
                    continue
                break
            target = self.ref_for_expr(node, scope)
            break
        t = Transform(
            api=api,
            target=target,
            keywords=self.keywords_of(option_args),
            args=[literal(a.value, self.facts.constants) for a in extra_args],
            scope=scope,
            line=0,
            column=0,
            decorator=decorated is not None,
            chain=chain,
            partial_args=partial_args,
            partial_keywords=partial_keywords,
        )
        self.transform_nodes.append((t, call))
        return t
