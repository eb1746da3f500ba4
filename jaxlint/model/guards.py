"""Version guards: the branches that run only on some jax versions, read as branch context.

Compatibility code picks an API by asking the running jax, and the branch it guards
names the API that jax has (the new one, or the old one for old versions). Such code is
a shim, not a use of a removed or deprecated API: ``guarded(ctx, node)`` says whether
``node`` runs in one. A guard is

- a test (of ``if``, ``elif``, ``while``, ``x if test else y``, the left operand of
  ``and``/``or``) whose value depends on jax's version or on whether an attribute or a
  module exists: ``hasattr(jax, "tree")``, ``getattr(jax, "tree", None)`` (a default makes
  it a presence test), ``importlib.util.find_spec("jax.extend")``, a comparison with a
  version value (``jax.__version__ >= "0.4"``, ``jax.__version_info__ >= (0, 4, 30)``), and
  anything computed from one, through the names the binder sees
  (``_V = tuple(int(p) for p in jax.__version__.split(".")[:3])``; ``if _V >= (0, 4, 30):``,
  ``HAS_TREE = hasattr(jax, "tree")``, a local def that returns one);
- a ``try:`` whose handler catches what a missing API raises: ``AttributeError`` (an
  attribute), ``ImportError``/``ModuleNotFoundError`` (a module or ``from`` import),
  ``TypeError`` (a keyword or argument the signature lost), or a base class of one
  (``Exception``, ``BaseException``, a bare ``except:``); the ``try`` body and the
  handlers are guarded, its ``else`` and ``finally`` are not.

What names a version is jax's own (``VERSION_*`` below, read from jax's ``version.py``,
``__init__.py``, ``lib/__init__.py`` and ``_src/lib/__init__.py``) and Python's (a package's
``__version__``, ``importlib.metadata.version``). Builtins (``hasattr``, the exception
classes) are names the file does not bind.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from jaxlint.base.names import dotted
from jaxlint.base.tree import walk

from .abstract import constant

# packages whose version decides which jax API exists (jaxlib is released with jax)
VERSION_PACKAGES = ("jax", "jaxlib")
# a package's version, by Python's convention (PEP 396): ``jax.__version__``, ``jax.version.__version_info__``
VERSION_ATTRIBUTES = frozenset({"__version__", "__version_info__"})
# modules that hold nothing but version information: any name in them is a version value
VERSION_MODULES = ("jax.version", "jaxlib.version")
# jax's other version values (jax/_src/lib/__init__.py: the jaxlib version as a tuple and a
# string, the C++ extension's API versions)
VERSION_VALUES = frozenset(
    {
        "jax._src.lib.version",
        "jax._src.lib.version_str",
        "jax._src.lib.jaxlib_extension_version",
        "jax._src.lib.xla_extension_version",
        "jax._src.lib.ifrt_version",
    }
)
# calls that return an installed distribution's version, given its name
DISTRIBUTION_VERSION = frozenset({"importlib.metadata.version", "importlib_metadata.version"})
# calls that test whether a module exists (None when it does not)
MODULE_PRESENCE = frozenset({"importlib.util.find_spec"})

# what a missing API raises, and the builtin classes above them (``except Exception:``
# catches them too)
MISSING_API_ERRORS = frozenset({"AttributeError", "ImportError", "ModuleNotFoundError", "TypeError"})
_BASE = {
    "ModuleNotFoundError": "ImportError",
    "ImportError": "Exception",
    "AttributeError": "Exception",
    "TypeError": "Exception",
    "Exception": "BaseException",
}
_NAME_FUEL = 200  # what evaluating a distribution's name may cost (a string, a constant)
_DEPTH = 8  # names followed to their values (``_V = ...``, then ``_NEW = _V >= ...``)


def _catching() -> frozenset[str]:
    """Every builtin class a handler may name and catch a missing API's error."""
    out = set()
    for e in MISSING_API_ERRORS:
        c: str | None = e
        while c is not None:
            out.add(c)
            c = _BASE.get(c)
    return frozenset(out)


CATCHING = _catching()


def guarded(ctx, node: cst.CSTNode) -> bool:
    """Does ``node`` run only where a guard decided it may (see the module docstring)?"""
    child = node
    for a in ctx.ancestors(node):
        if isinstance(a, (cst.Try, cst.TryStar)):
            if (
                child is not a.orelse
                and child is not a.finalbody
                and any(catches_missing_api(ctx, h) for h in a.handlers)
            ):
                return True
        elif isinstance(a, (cst.If, cst.IfExp, cst.While)):
            if child is not a.test and is_guard(ctx, a.test):
                return True
        elif isinstance(a, cst.BooleanOperation) and child is a.right and is_guard(ctx, a.left):
            return True
        child = a
    return False


def is_guard(ctx, test: cst.BaseExpression) -> bool:
    """Does the value of ``test`` depend on jax's version or on whether an attribute or a
    module exists?"""
    return _Guards.of(ctx).depends(test, 0)


def catches_missing_api(ctx, handler: cst.CSTNode) -> bool:
    """Does this ``except`` clause catch what a missing attribute, module or argument raises?"""
    kind = getattr(handler, "type", None)
    if kind is None:
        return True  # ``except:``
    return _Guards.of(ctx).catches(kind, 0)


class _Guards:
    """The file's answers, memoised (in ``ctx.shared``)."""

    def __init__(self, ctx) -> None:
        from . import program

        self.ctx = ctx
        self.p = program(ctx)
        self._memo: dict[cst.CSTNode, bool] = {}

    @classmethod
    def of(cls, ctx) -> _Guards:
        found = ctx.shared.get("guards")
        if found is None:
            found = ctx.shared["guards"] = cls(ctx)
        return found

    # names ------------------------------------------------------------------------------
    def _bindings(self, name: cst.Name) -> list[Any]:
        return self.p.reaching(name)

    def _builtin(self, name: cst.Name) -> str | None:
        """The builtin a name is (a name the file does not bind), else None."""
        if self._bindings(name) or self.ctx.names.lookup(name.value) is not None:
            return None
        return name.value

    def qualified(self, expr: cst.BaseExpression) -> str | None:
        """The qualified name a dotted name refers to through an import, as written."""
        text = dotted(expr)
        if text is None:
            return None
        head_node = expr
        while type(head_node) is cst.Attribute:
            head_node = head_node.value
        assert type(head_node) is cst.Name
        head, _, rest = text.partition(".")
        found = self._bindings(head_node)
        imported = {b.imported for b in found if b.kind == "import"}
        if found and (len(imported) != 1 or len(found) != len([b for b in found if b.kind == "import"])):
            return None
        q = imported.pop() if imported else self.ctx.names.lookup(head)
        if q is None:
            return None
        return f"{q}.{rest}" if rest else q

    # tests ------------------------------------------------------------------------------
    def depends(self, expr: cst.CSTNode, depth: int) -> bool:
        hit = self._memo.get(expr)
        if hit is not None:
            return hit
        self._memo[expr] = False  # a cycle depends on nothing new
        found = depth <= _DEPTH and any(self._source(n, depth) for n in walk(expr, ()))
        self._memo[expr] = found
        return found

    def _source(self, node: cst.CSTNode, depth: int) -> bool:
        if isinstance(node, cst.Call):
            return self._presence(node)
        if isinstance(node, cst.Attribute):
            q = self.qualified(node)
            return q is not None and (version_value(q) or self._elsewhere(q, depth))
        if isinstance(node, cst.Name):
            parent = self.ctx.parent(node)
            if type(parent) is cst.Attribute and parent.attr is node:
                return False
            return self._name(node, depth)
        return False

    def _name(self, name: cst.Name, depth: int) -> bool:
        return any(self._binding(b, depth) for b in self._bindings(name))

    def _binding(self, b: Any, depth: int) -> bool:
        """Is the value ``b`` gives its name computed from a guard's source?"""
        if b.kind == "import":
            return b.imported is not None and (version_value(b.imported) or self._elsewhere(b.imported, depth))
        if b.kind in ("assign", "walrus") and b.value is not None:
            return self.depends(b.value, depth + 1)
        if b.kind == "def":
            return any(self.depends(r, depth + 1) for r in _returned(b.node))
        return False

    def _elsewhere(self, qualified: str, depth: int) -> bool:
        """Is ``qualified`` a name another module of the project computes from a source
        (``from .compat import JAX_VERSION``, ``compat.jax_version()``)? Read in that
        module's program, through the evaluator's world (never jax's own modules)."""
        if depth >= _DEPTH:
            return False
        from .scopes import reaching_in

        world = self.p.evaluator.world
        parts = qualified.split(".")
        for k in range(len(parts) - 1, 0, -1):
            other = world.program(".".join(parts[:k]))
            if other is None:
                continue
            scope = other.module_scope
            theirs = _Guards.of(other.ctx)
            return any(theirs._binding(b, depth + 1) for b in reaching_in(scope, parts[k], (), scope.end))
        return False

    def _presence(self, call: cst.Call) -> bool:
        func = call.func
        if type(func) is cst.Name:
            builtin = self._builtin(func)
            if builtin == "hasattr":
                return True
            if builtin == "getattr":
                return len(call.args) >= 3 or any(a.keyword is not None for a in call.args[2:])
        q = self.qualified(func)
        if q in MODULE_PRESENCE:
            return True
        if q in DISTRIBUTION_VERSION and call.args:
            ev = self.p.evaluator
            with ev.query(_NAME_FUEL):
                v = constant(ev.value(call.args[0].value, None))
            return isinstance(v, str) and v in VERSION_PACKAGES
        return False

    # handlers -----------------------------------------------------------------------------
    def catches(self, expr: cst.BaseExpression, depth: int) -> bool:
        if isinstance(expr, cst.Tuple):
            return any(self.catches(e.value, depth) for e in expr.elements)
        if isinstance(expr, cst.Name):
            builtin = self._builtin(expr)
            if builtin is not None:
                return builtin in CATCHING
            if depth < _DEPTH:
                return any(
                    b.kind == "assign" and b.value is not None and self.catches(b.value, depth + 1)
                    for b in self._bindings(expr)
                )
            return False
        if isinstance(expr, cst.Attribute):
            q = self.qualified(expr)
            return q is not None and q.startswith("builtins.") and q[len("builtins.") :] in CATCHING
        return False


def _returned(fn: cst.CSTNode) -> list[cst.BaseExpression]:
    """The expressions a def returns (not those of the defs and lambdas inside it)."""
    if not isinstance(fn, cst.FunctionDef):
        return []
    return [
        n.value
        for n in walk(fn.body, (cst.FunctionDef, cst.Lambda, cst.ClassDef))
        if isinstance(n, cst.Return) and n.value is not None
    ]


def version_value(qualified: str) -> bool:
    """Is ``qualified`` (or what it is an attribute of) a version of jax or jaxlib?"""
    parts = qualified.split(".")
    if parts[0] not in VERSION_PACKAGES:
        return False
    for k in range(1, len(parts) + 1):
        prefix = ".".join(parts[:k])
        if parts[k - 1] in VERSION_ATTRIBUTES or prefix in VERSION_VALUES or prefix in VERSION_MODULES:
            return True
    return False
