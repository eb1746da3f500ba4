"""Classes of the linted code: attributes, methods, and what calling a class makes.

An instance is a ``Struct``. Its kind says how JAX sees it: a dataclass registered as a
pytree (``flax.struct.dataclass``, ``chex.dataclass``, ``jax.tree_util.register_dataclass``),
a ``NamedTuple`` or an ``eqx.Module`` is a pytree whose fields are its children (but
``static`` ones: ``flax.struct.field(pytree_node=False)``, ``eqx.field(static=True)``);
any other instance (a plain class, a plain ``dataclasses.dataclass``) is one leaf that is
not a valid JAX type. Fields come from the class's annotated assignments (dataclasses,
NamedTuple, ``eqx.Module``), bound to the call's arguments with their defaults, or
from the plain ``self.name = value`` statements of ``__init__`` evaluated with the
call's arguments. A class with its own pytree flattening (``register_pytree_node_class``)
has children the model does not know: UNKNOWN.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN
from jaxlint.base.tree import walk

from . import linen
from .abstract import Bound, Class, Const, Dict, External, Function, List, Scalar, Struct, Tuple
from .catalogue.host import INSTANCE_METHODS
from .catalogue.tree import REGISTERS_CLASS, REGISTERS_TYPE
from .scopes import reaching_in
from .signature import REQUIRED, Argument, Param, Signature, bind

if TYPE_CHECKING:
    from .evaluate import Env, Evaluator

DATACLASS_PYTREES = frozenset({"flax.struct.dataclass", "chex.dataclass", "jax.tree_util.register_dataclass"})
PLAIN_DATACLASSES = frozenset({"dataclasses.dataclass"})
# what makes instances whose fields no method can store (``frozen=True`` aside)
FROZEN_DECORATORS = frozenset({"flax.struct.dataclass"})
FROZEN_BASES = frozenset({"equinox.Module", "typing.NamedTuple", "flax.struct.PyTreeNode"})
PYTREE_BASES = frozenset(
    {"equinox.Module", "typing.NamedTuple", "flax.struct.PyTreeNode", "chex.dataclass", "penzai.core.struct.Struct"}
)
# library bases whose subclasses are dataclasses of their annotated fields, then the
# keyword-only fields the library adds: flax's ``Module.__init_subclass__`` makes every
# subclass a dataclass and appends ``parent`` and ``name``. An instance is an object, not a
# pytree (a module passed to a transform is not a JAX type).
DATACLASS_BASES: dict[str, tuple[str, ...]] = {
    "flax.linen.Module": ("parent", "name"),
    "flax.linen.module.Module": ("parent", "name"),
}
# library methods of those bases that run a method of their receiver with their trailing
# arguments: flax's ``module.apply(variables, *args, rngs=..., method=None, **kwargs)`` runs
# ``module.__call__(*args, **kwargs)``; (the method, the positional arguments before ``*args``)
RUNS_METHOD: dict[str, tuple[str, int]] = {
    "flax.linen.Module.apply": ("__call__", 1),
    "flax.linen.module.Module.apply": ("__call__", 1),
}
# the library methods that take their receiver: those above, and linen's ``init``/``param``
RECEIVER_METHODS = frozenset(RUNS_METHOD) | linen.METHODS
_RUNNER_OPTIONS = frozenset({"rngs", "method", "mutable", "capture_intermediates"})
CUSTOM_PYTREES = REGISTERS_CLASS  # their own flattening: fields unknown
STATIC_FIELD_CALLS = {
    "flax.struct.field": ("pytree_node", False),
    "equinox.field": ("static", True),
    "equinox.static_field": (None, True),
}
FIELD_CALLS = frozenset({"dataclasses.field", "flax.struct.field", "equinox.field", "chex.field"})


def _owner(ev: Evaluator, cls: Class) -> Evaluator:
    """The evaluator of the program that defines ``cls`` (a class of another module)."""
    return cls.program.evaluator if cls.program is not None and cls.program is not ev.p else ev


def _decorators(ev: Evaluator, cls: Class) -> list[str]:
    ev = _owner(ev, cls)
    out = []
    for d in cls.node.decorators:
        expr = d.decorator
        if type(expr) is cst.Call:
            expr = expr.func
        v = ev.value(expr, None)
        if type(v) is External:
            out.append(v.qualified)
    return out


def bases(ev: Evaluator, cls: Class) -> list[Any]:
    ev = _owner(ev, cls)
    out = []
    for arg in cls.node.bases:
        if arg.keyword is not None:
            continue
        out.append(ev.value(arg.value, None))
    return out


def mro(ev: Evaluator, cls: Class, depth: int = 0) -> list[Any]:
    """The class and its bases, depth first (externals as they are)."""
    out: list[Any] = [cls]
    if depth > 8:
        return out
    for b in bases(ev, cls):
        if type(b) is Class:
            for x in mro(ev, b, depth + 1):
                if x not in out:
                    out.append(x)
        elif b not in out:
            out.append(b)
    return out


# bases that give an instance nothing of their own: ``object``, and ``abc.ABC``, whose
# metaclass only refuses to instantiate a class with abstract methods left
OBJECT_BASES = frozenset({"builtins.object", "object", "abc.ABC"})


def _is_object(base: Any) -> bool:
    """Python's ``object`` as a base (written or not), or a base that adds nothing to an
    instance (``abc.ABC``)."""
    return type(base) is External and base.qualified in OBJECT_BASES


def kind_of(ev: Evaluator, cls: Class) -> str:
    """ "pytree" (dataclass pytree, NamedTuple, eqx.Module), "dataclass" (a plain
    dataclass: an object), "custom" (its own flattening: unknown), or "object"."""
    decs = _decorators(ev, cls)
    if any(d in CUSTOM_PYTREES for d in decs) or registered(ev, cls):
        return "custom"
    if any(d in DATACLASS_PYTREES for d in decs):
        return "pytree"
    for b in mro(ev, cls)[1:]:
        if type(b) is External and b.qualified in PYTREE_BASES:
            return "pytree"
        if type(b) is External and b.qualified in DATACLASS_BASES:
            return "dataclass"
        if type(b) is External and not _is_object(b):
            return "unknown"  # a library base class may register the subclass as a pytree
    if any(d in PLAIN_DATACLASSES for d in decs):
        return "dataclass"
    return "object"


def registered(ev: Evaluator, cls: Class) -> bool:
    """Does the class's module hand the class to a registration call
    (``register_pytree_node(A, flatten, unflatten)``, ``batching.register_vmappable(A, ...)``),
    anywhere, as its first argument? Then JAX flattens it its own way."""
    ev = _owner(ev, cls)
    p = ev.p
    b = p.binding_of_value(cls.node)
    if b is None:
        return False
    reads, _ = p.references(b)
    for read in reads:
        arg = p.parents.get(read)
        call = p.parents.get(arg) if type(arg) is cst.Arg else None
        if type(call) is not cst.Call or not call.args or call.args[0] is not arg or arg.keyword is not None:
            continue
        f = ev.value(call.func, None)
        if type(f) is External and f.qualified in REGISTERS_TYPE:
            return True
    return False


def _body(cls: Class) -> list[cst.BaseStatement]:
    body = cls.node.body
    return list(body.body) if isinstance(body, cst.IndentedBlock) else []


def declared_fields(ev: Evaluator, cls: Class) -> list[tuple[str, Any, bool]] | None:
    """(name, default value or REQUIRED, static) of each annotated field, bases first."""
    out: list[tuple[str, Any, bool]] = []
    for owner, small in _field_statements(ev, cls):
        default, static = _field_default(owner, small.value)
        out.append((small.target.value, default, static))  # type: ignore[attr-defined]  # a Name
    return out


def field_default_names(ev: Evaluator, cls: Class, name: str) -> bool:
    """Does the class declare field ``name`` with a default of strings (``axis_name: str =
    "batch"``, ``mesh_axes: tuple = ("data",)``)?"""
    from .axes import strings

    for field, default, _ in declared_fields(ev, cls) or ():
        if field == name:
            return default is not REQUIRED and any(True for _ in strings(default))
    return False


def field_annotations(ev: Evaluator, cls: Class) -> list[tuple[str, cst.BaseExpression, Evaluator]]:
    """(name, annotation, the evaluator of its class's module) of each annotated field,
    bases first: what a field holds when no construction shows its value."""
    return [(small.target.value, small.annotation.annotation, owner) for owner, small in _field_statements(ev, cls)]  # type: ignore[attr-defined]


def _field_statements(ev: Evaluator, cls: Class) -> list[tuple[Evaluator, cst.AnnAssign]]:
    """The ``name: annotation [= default]`` statements of the class and its project bases
    (not ``ClassVar``/``InitVar``), bases first; a later one of a name replaces an earlier."""
    out: dict[str, tuple[Evaluator, cst.AnnAssign]] = {}
    for c in reversed(mro(ev, cls)):
        if type(c) is not Class:
            continue
        owner = _owner(ev, c)
        for stmt in _body(c):
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if type(small) is not cst.AnnAssign or type(small.target) is not cst.Name:
                    continue
                if _is_classvar(small.annotation.annotation):
                    continue
                out.pop(small.target.value, None)
                out[small.target.value] = (owner, small)
    return list(out.values())


def _is_classvar(ann: cst.BaseExpression) -> bool:
    base = ann.value if type(ann) is cst.Subscript else ann
    text = base.attr.value if type(base) is cst.Attribute else base.value if type(base) is cst.Name else ""
    return text in ("ClassVar", "InitVar")


def _field_default(ev: Evaluator, value: cst.BaseExpression | None) -> tuple[Any, bool]:
    if value is None:
        return REQUIRED, False
    if type(value) is cst.Call:
        f = ev.value(value.func, None)
        if type(f) is External and f.qualified in FIELD_CALLS:
            static = False
            default: Any = REQUIRED
            for a in value.args:
                if a.keyword is None:
                    continue
                k = a.keyword.value
                spec = STATIC_FIELD_CALLS.get(f.qualified)
                if spec is not None and spec[0] == k:
                    v = ev.value(a.value, None)
                    static = type(v) is Const and v.value == spec[1]
                elif k == "default":
                    default = ev.value(a.value, None)
                elif k == "default_factory":  # called for each instance: what it returns
                    default = ev.call(ev.value(a.value, None), [], None, None)
            if f.qualified == "equinox.static_field":
                static = True
            return default, static
    return ev.value(value, None), False


def init_signature(ev: Evaluator, cls: Class) -> Signature | None:
    """What calling the class takes (``self`` dropped)."""
    init = _own_or_inherited(ev, cls, "__init__")
    kind = kind_of(ev, cls)
    if init is None and kind in ("pytree", "dataclass"):
        fields = declared_fields(ev, cls)
        if fields is None:
            return None
        return Signature(tuple(Param(n, "pos", d) for n, d, _ in fields) + _library_fields(ev, cls))
    if init is None:
        return Signature(())
    if type(init) is not Function:
        return None
    from .callables import parameters

    return parameters(ev, init.node, init.env).drop_positional(1)


def _library_fields(ev: Evaluator, cls: Class) -> tuple[Param, ...]:
    """The keyword-only fields a library base appends to a dataclass subclass (``DATACLASS_BASES``)."""
    for b in mro(ev, cls)[1:]:
        if type(b) is External and b.qualified in DATACLASS_BASES:
            return tuple(Param(n, "kwonly", Const(None)) for n in DATACLASS_BASES[b.qualified])
    return ()


def runs_method(ev: Evaluator, cls: Any, name: str) -> str | None:
    """The qualified name of the library method ``cls.name`` resolves to when it runs a
    method of its receiver (``RUNS_METHOD``: flax's ``apply``), or None."""
    v, _ = _method_def(ev, cls, name)
    return v.qualified if type(v) is External and v.qualified in RUNS_METHOD else None


def run_method(ev: Evaluator, q: str, args: list[Argument], env: Env | None, node: cst.CSTNode | None) -> Any:
    """``module.apply(variables, x)``: the receiver's method (``__call__``, or the one
    ``method=`` names) called with the trailing arguments (``RUNS_METHOD``); UNKNOWN when
    the call also returns the mutated state (``mutable=``)."""
    bound = runner_call(ev, q, args)
    if bound is None:
        return UNKNOWN
    m, rest = bound
    return ev.call(m, rest, env, node)


def runner_call(ev: Evaluator, q: str, args: list[Argument]) -> tuple[Any, list[Argument]] | None:
    """(the bound method a library runner runs, its arguments), or None (see ``run_method``)."""
    default, skip = RUNS_METHOD[q]
    if len(args) < 1 + skip or any(k is not None or star for _, k, star in args[: 1 + skip]):
        return None
    receiver = args[0][0]
    options = {k: v for v, k, _ in args if k in _RUNNER_OPTIONS}
    if "mutable" in options and options["mutable"] != Const(False):
        return None
    if type(receiver) is not Struct:
        return None
    name = default
    method = options.get("method", Const(None))
    if type(method) is Const and isinstance(method.value, str):
        name = method.value  # ``method="encode"``
    elif type(method) is Function and type(method.node) is cst.FunctionDef:
        name = method.node.name.value  # ``method=Model.encode``: the receiver's method of that name
    elif method != Const(None):
        return None
    m = bound_method(ev, receiver.cls, name, receiver)
    if m is UNKNOWN:
        return None
    return m, [a for a in args[1 + skip :] if a[1] not in _RUNNER_OPTIONS]


def runner_target(call: cst.Call, default: str) -> str | None:
    """The method a runner call (``model.apply(..., method=...)``) runs, as written:
    ``default`` without ``method=``, the name ``method="encode"`` or ``method=Model.encode``
    gives; None when it cannot be read."""
    for a in call.args:
        if a.keyword is None or a.keyword.value != "method":
            continue
        v = a.value
        if type(v) is cst.SimpleString:
            text = v.evaluated_value
            return text if isinstance(text, str) else None
        if type(v) is cst.Attribute:
            return v.attr.value
        if type(v) is cst.Name and v.value == "None":
            return default
        return None
    return default


def _own_or_inherited(ev: Evaluator, cls: Class, name: str) -> Any:
    for c in mro(ev, cls):
        if type(c) is not Class:
            return UNKNOWN if name == "__init__" and kind_of(ev, cls) == "unknown" else None
        found = _class_binding(ev, c, name)
        if found is not None:
            return found
    return None


def _class_binding(ev: Evaluator, cls: Class, name: str) -> Any:
    ev = _owner(ev, cls)
    scope = ev.p.scope_of_node.get(cls.node)
    if scope is None:
        return None
    found = reaching_in(scope, name, (), scope.end)
    if not found:
        return None
    from .abstract import join_all

    return join_all([ev.binding_value(b, None) for b in found])


def class_attribute(ev: Evaluator, cls: Class, attr: str) -> Any:
    """``Cls.attr``: a class-level binding (also of a base class), else UNKNOWN; a
    classmethod read through its class is bound to it (``Cls.make`` takes no ``cls``)."""
    v, node = _method_def(ev, cls, attr)
    if node is not None and v is not UNKNOWN and v is not None and descriptor(ev, node) == "classmethod":
        return Bound(v, cls)
    for c in mro(ev, cls):
        if type(c) is not Class:
            return UNKNOWN
        v = _class_binding(ev, c, attr)
        if v is not None:
            return v
    return UNKNOWN


def _method_def(ev: Evaluator, cls: Any, name: str) -> tuple[Any, cst.FunctionDef | None]:
    if type(cls) is not Class:
        return UNKNOWN, None
    for c in mro(ev, cls):
        if type(c) is not Class:
            # a library base: the methods the catalogue knows of its instances
            found_method = INSTANCE_METHODS.get(c.qualified, {}).get(name) if type(c) is External else None
            if type(c) is External and f"{c.qualified}.{name}" in RECEIVER_METHODS:
                found_method = f"{c.qualified}.{name}"
            return (External(found_method), None) if found_method is not None else (UNKNOWN, None)
        ev = _owner(ev, c)
        scope = ev.p.scope_of_node.get(c.node)
        if scope is None:
            continue
        found = reaching_in(scope, name, (), scope.end)
        if found:
            if len(found) == 1 and found[0].kind == "def":
                node = found[0].node
                return ev.binding_value(found[0], None), node if isinstance(node, cst.FunctionDef) else None
            return _class_binding(ev, c, name), None
    return UNKNOWN, None


def method(ev: Evaluator, cls: Any, name: str) -> Any:
    return _method_def(ev, cls, name)[0]


def bound_method(ev: Evaluator, cls: Any, name: str, receiver: Any) -> Any:
    """``receiver.name`` for an instance of ``cls``: a method bound to it (a staticmethod
    as it is, a classmethod bound to the class); a field's value comes first (Struct)."""
    v, node = _method_def(ev, cls, name)
    if node is not None and descriptor(ev, node) == "property":
        getter = _getter(ev, cls, node)  # the def as written: the decorator's value is not known
        return ev.call(getter, [(receiver, None, "")], None, node) if getter is not None else UNKNOWN
    if v is UNKNOWN or v is None:
        return UNKNOWN
    kind = descriptor(ev, node) if node is not None else None
    if kind == "staticmethod":
        return v
    if kind == "classmethod":
        return Bound(v, cls)
    if kind == "property":
        return ev.call(v, [(receiver, None, "")], None, node)
    if type(v) in (Function,) or type(v).__name__ in ("Transformed", "Partial"):
        return Bound(v, receiver)
    if type(v) is External and v.qualified in RECEIVER_METHODS:
        return Bound(v, receiver)  # runs a method of the receiver (``run_method``, ``linen``)
    if type(v) is External:
        return v  # a library base's method, as the catalogue takes it (without the receiver)
    return UNKNOWN


def _getter(ev: Evaluator, cls: Class, node: cst.FunctionDef) -> Function | None:
    """A property's getter as a plain function of the module that defines it."""
    for c in mro(ev, cls):
        if type(c) is Class and node in _owner(ev, c).p.scope_of_node:
            return Function(node, None, c.program)
    return None


def data_attribute(ev: Evaluator, receiver: Any, name: str) -> bool:
    """Does ``receiver.name`` read a value stored on the object (a field, or a plain
    ``self.name = value`` of its class's methods), rather than a method or a property
    that computes one on each read?"""
    if type(receiver) is not Struct:
        return False
    if receiver.get(name) is not None:
        return True
    cls = receiver.cls
    if type(cls) is Class and kind_of(ev, cls) in ("dataclass", "pytree"):
        fields = declared_fields(ev, cls)  # ``key: jax.Array`` of a dataclass: stored per instance
        if fields is not None and any(n == name for n, _, _ in fields):
            return True
    if type(cls) is not Class or receiver.kind != "object" or kind_of(ev, cls) != "object":
        return False
    from .attributes import whole_class

    for c in mro(ev, cls):
        if type(c) is not Class:
            if _is_object(c):
                continue
            return False  # a library base may define it as anything
        if not whole_class(_owner(ev, c).p, c.node) or _class_binding(ev, c, name) is not None:
            return False
    return name not in _rebound_by_subclasses(_owner(ev, cls), cls)


def descriptor(ev: Evaluator, node: cst.FunctionDef) -> str | None:
    """What the decorators make of a method: ``staticmethod``, ``classmethod``,
    ``property`` (also ``functools.cached_property``), or None (a plain method)."""
    for d in node.decorators:
        dv = ev.value(d.decorator, None)
        if type(dv) is External and dv.qualified in ("builtins.staticmethod", "staticmethod"):
            return "staticmethod"
        if type(dv) is External and dv.qualified in ("builtins.classmethod", "classmethod"):
            return "classmethod"
        if type(dv) is External and dv.qualified in ("builtins.property", "functools.cached_property"):
            return "property"
    return None


def stored_attribute(ev: Evaluator, cls: Any, name: str, receiver: Any = None) -> Any:
    """``self.name`` that the class's methods, or its project bases' methods, store exactly
    once, by a plain ``self.name = value`` (``self.step = jax.pmap(train)`` in ``__init__``):
    that value, evaluated where it is stored: with ``self`` the receiver when the method
    takes nothing else (flax's ``setup``), else with nothing bound; else UNKNOWN."""
    if type(cls) is not Class:
        return UNKNOWN
    from .contexts import default_frame

    owner, found = _stores_up_the_mro(ev, cls, name)
    if found == []:
        return class_data(ev, cls, name)
    if found is None or len(found) != 1 or found[0] is None:
        return UNKNOWN
    value = found[0]
    method = owner.ctx.enclosing_function(value)
    frame = default_frame(owner, method) if method is not None else None
    if receiver is not None and isinstance(method, cst.FunctionDef) and _takes_only_self(method):
        outer = owner.ctx.enclosing_function(method)
        if outer is None:
            frame = owner.call_frame(Function(method, None, owner.p), [(receiver, None, "")], None, None) or frame
    return owner.value(value, frame)


def _takes_only_self(fn: cst.FunctionDef) -> bool:
    p = fn.params
    return len(p.params) == 1 and not p.posonly_params and not p.kwonly_params and p.star_kwarg is None


def _stores_up_the_mro(ev: Evaluator, cls: Class, name: str) -> tuple[Evaluator, list[Any] | None]:
    """The stores of ``self.name`` in the methods of the class and its bases (a parent's
    ``__init__`` stores the key its subclass draws from, a test base's ``setUp`` the
    generator its ``rng()`` returns), with the evaluator of the class that stores it (the
    last one found: one store is all a caller uses). The project's classes before the first
    library base (not ``object``) of the MRO decide, as a type checker reads a member from
    the classes that assign it; a library base reached with no store found may store
    anything: None."""
    from .attributes import stores_of

    owner: Evaluator = ev
    found: list[Any] = []
    for c in mro(ev, cls):
        if type(c) is not Class:
            if _is_object(c):
                continue
            return (owner, found) if found else (ev, None)
        c_ev = _owner(ev, c)
        got = stores_of(c_ev.p, c.node, name)
        if got is None:
            return ev, None
        if got:
            owner, found = c_ev, found + got
    return owner, found


def class_data(ev: Evaluator, cls: Class, name: str) -> Any:
    """``self.name`` where no method stores it: Python finds the class attribute, and a
    plain value there (not a function, which would bind) is what the instance reads. Only
    for a plain class (a dataclass's class-level value is a field default, a library base
    may add anything) and when no subclass of the file binds the name again (``self`` may
    be an instance of one); else UNKNOWN."""
    if kind_of(ev, cls) != "object" or not _shown_whole(ev, cls):
        return UNKNOWN
    v = class_attribute(ev, cls, name)
    if not _plain_data(v):
        return UNKNOWN
    return UNKNOWN if name in _rebound_by_subclasses(_owner(ev, cls), cls) else v


def _rebound_by_subclasses(ev: Evaluator, cls: Class) -> frozenset[str]:
    """The names the subclasses of ``cls`` in its file bind again (once per class: every
    ``self.name`` read of the class asks)."""
    memo = ev.p.__dict__.setdefault("_rebound_by_subclasses", {})
    if cls.node not in memo:
        names: set[str] = set()
        for scope in {id(s): s for s in ev.p.scope_of_node.values()}.values():
            node = scope.node
            if scope.kind != "class" or node is cls.node or not isinstance(node, cst.ClassDef):
                continue
            if cls in mro(ev, Class(node, ev.p))[1:]:
                names.update(scope.bindings)
        memo[cls.node] = frozenset(names)
    return memo[cls.node]


def _plain_data(v: Any) -> bool:
    """A constant, or a display of constants: no descriptor, read through an instance as it is."""
    t = type(v)
    if t is Tuple or t is List:
        return all(_plain_data(x) for x in v.items)
    if t is Dict:
        return all(_plain_data(x) for _, x in v.items)
    return t is Const


def declared_instance(ev: Evaluator, cls: Class, key: str) -> Any:
    """An instance of a dataclass declared to be there (a parameter annotated with the
    class) that no construction shows: each field holds what its annotation declares
    (``temperature: float`` a Python float). UNKNOWN for other classes, or one with its own
    ``__init__`` (it may store anything)."""
    from .annotations import annotated_value

    kind = kind_of(ev, cls)
    if kind not in ("pytree", "dataclass") or _own_or_inherited(ev, cls, "__init__") is not None:
        return UNKNOWN
    if not _shown_whole(ev, cls) and not immutable(ev, cls):
        return UNKNOWN
    pytree = kind == "pytree"
    fields = tuple(
        (name, _declared_field(annotated_value(owner, ann, f"{key}.{name}", name, cls.node), pytree))
        for name, ann, owner in field_annotations(ev, cls)
    )
    static = frozenset(n for n, _, s in declared_fields(ev, cls) or () if s)
    return Struct(cls, fields, "pytree" if pytree else "object", static)


def _declared_field(v: Any, pytree: bool) -> Any:
    """A pytree dataclass carries arrays, often under a scalar annotation (``loss: float``
    holding a batch of losses): there a scalar annotation says nothing."""
    return UNKNOWN if pytree and type(v) is Scalar else v


def instantiate(ev: Evaluator, cls: Class, args: list[Argument], env: Env | None, node: cst.CSTNode | None) -> Any:
    """What ``cls(*args)`` makes."""
    kind = kind_of(ev, cls)
    if kind in ("custom", "unknown"):
        return UNKNOWN
    init = _own_or_inherited(ev, cls, "__init__")
    if init is None and kind in ("pytree", "dataclass") and not _shown_whole(ev, cls) and not immutable(ev, cls):
        return UNKNOWN  # the slicer blanked a method of the class: it may store a field
    if init is None and kind in ("pytree", "dataclass"):
        fields = declared_fields(ev, cls)
        if fields is None:
            return UNKNOWN
        sig = Signature(tuple(Param(n, "pos", d) for n, d, _ in fields) + _library_fields(ev, cls))
        b = bind(sig, args)
        if b.error is not None:
            return UNKNOWN
        values = tuple((n, b.value(sig, n)) for n, _, _ in fields)
        static = frozenset(n for n, _, s in fields if s)
        return Struct(cls, values, "pytree" if kind == "pytree" else "object", static)
    if init is None:
        return Struct(cls, (), "object")
    if type(init) is not Function:
        return UNKNOWN
    fields_ = _init_fields(ev, cls, init, args, env, node)
    if fields_ is None:
        return UNKNOWN
    if kind == "pytree":
        declared = declared_fields(ev, cls) or []
        # a field ``__init__`` never stores keeps its class-level default (``activation:
        # Callable = jax.nn.relu``): flattening reads it like the others. A frozen pytree
        # class is stored only in ``__init__``, which the slicer keeps with the class.
        stored = _stored_in(init.node)
        if stored is not None:
            fields_ += [(n, d) for n, d, _ in declared if n not in stored and d is not REQUIRED]
        static = frozenset(n for n, _, s in declared if s)
        order = [n for n, _, _ in declared]
        ordered = sorted(fields_, key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))
        return Struct(cls, tuple(ordered), "pytree", static)
    return _after_construction(ev, cls, Struct(cls, tuple(fields_), "object"))


def _after_construction(ev: Evaluator, cls: Class, made: Struct) -> Struct:
    """A plain object as its methods may leave it: a field another method stores too
    (``def set_batch(self, n): self.batch = n``, ``self.rng, key = split(self.rng)``)
    holds the constructor's value only until that method runs, so it is the join of that
    value and what each such store gives, evaluated with the constructed instance as the
    receiver and the method's other parameters unbound (a key split again is still a key;
    a size from a parameter is unknown); a store the model cannot read drops the field."""
    from .abstract import join_all

    later = _later_stores(ev, cls)
    if later is None:
        return Struct(cls, (), "object")  # a method may store names it does not spell
    if not any(n in later for n, _ in made.fields):
        return made
    busy: set[cst.ClassDef] = ev.world.__dict__.setdefault("_after_construction", set())
    if cls.node in busy:  # a store's value makes another instance of the class
        return Struct(cls, tuple((n, v) for n, v in made.fields if n not in later), "object")
    busy.add(cls.node)
    try:
        fields = []
        for name, v in made.fields:
            values: list[Any] | None = [v]
            for owner, method, expr, path in later.get(name, ()):
                if expr is None or values is None:
                    values = None
                    break
                receiver = [*method.params.posonly_params, *method.params.params][0].name.value
                x = owner.value(expr, owner.frame(method, {receiver: made}, None))
                values.append(_unpacked(x, path))
            joined = join_all(values) if values is not None else UNKNOWN
            if joined is not UNKNOWN:
                fields.append((name, joined))
    finally:
        busy.discard(cls.node)
    return Struct(cls, tuple(fields), "object")


def _unpacked(v: Any, path: tuple[int, ...]) -> Any:
    from .evaluate import unpack

    return unpack(v, path) if path else v


Store = tuple[Any, cst.FunctionDef, "cst.BaseExpression | None", tuple[int, ...]]


def _later_stores(ev: Evaluator, cls: Class) -> dict[str, list[Store]] | None:
    """The stores into ``self`` of the methods other than ``__init__`` of the class and its
    project bases, by attribute: (the class's evaluator, the method, the assigned value or
    None when not a plain assignment, the position in an unpacking). None when a method
    may store names it does not spell (``setattr(self, name, v)``)."""
    out: dict[str, list[Store]] = {}
    for c in mro(ev, cls):
        if type(c) is not Class:
            continue
        owner = _owner(ev, c)
        for stmt in _body(c):
            if type(stmt) is not cst.FunctionDef or stmt.name.value == "__init__":
                continue
            if _stored_in(stmt) is None:
                return None
            me = [*stmt.params.posonly_params, *stmt.params.params]
            if not me or stmt.decorators:
                continue  # a static or class method: no instance to store on
            receiver = me[0].name.value
            for node in walk(stmt.body):
                if isinstance(node, cst.Assign):
                    plain = node.value if len(node.targets) == 1 else None
                    for target in node.targets:
                        _receiver_stores(target.target, receiver, plain, (), owner, stmt, out)
                elif isinstance(node, cst.AnnAssign):
                    _receiver_stores(node.target, receiver, node.value, (), owner, stmt, out)
                elif isinstance(node, (cst.AugAssign, cst.For, cst.NamedExpr)):
                    _receiver_stores(node.target, receiver, None, (), owner, stmt, out)
                elif isinstance(node, cst.AsName):
                    _receiver_stores(node.name, receiver, None, (), owner, stmt, out)
    return out


def _receiver_stores(target: Any, me: str, value: Any, path: tuple[int, ...], owner: Any, method, out) -> None:
    if type(target) in (cst.Tuple, cst.List):
        starred = any(type(e) is cst.StarredElement for e in target.elements)
        for i, el in enumerate(target.elements):
            _receiver_stores(el.value, me, None if starred else value, (*path, i), owner, method, out)
    elif type(target) is cst.StarredElement:
        _receiver_stores(target.value, me, None, path, owner, method, out)
    elif type(target) is cst.Attribute and type(target.value) is cst.Name and target.value.value == me:
        out.setdefault(target.attr.value, []).append((owner, method, value, path))


# the method that copies a record with some fields given anew: ``s._replace(x=1)`` of a
# NamedTuple, ``s.replace(x=1)`` of a flax struct (a ``flax.struct.dataclass`` or
# ``PyTreeNode``)
REPLACING_BASES = {"typing.NamedTuple": "_replace", "flax.struct.PyTreeNode": "replace"}
REPLACING_DECORATORS = {"flax.struct.dataclass": "replace"}


def replacing_method(ev: Evaluator, cls: Class) -> str | None:
    """The name of the method instances of ``cls`` copy themselves with (see above)."""
    owner = _owner(ev, cls)
    for d in cls.node.decorators:
        expr = d.decorator
        v = owner.value(expr.func if type(expr) is cst.Call else expr, None)
        if type(v) is External and v.qualified in REPLACING_DECORATORS:
            return REPLACING_DECORATORS[v.qualified]
    for b in mro(ev, cls)[1:]:
        if type(b) is External and b.qualified in REPLACING_BASES:
            return REPLACING_BASES[b.qualified]
    return None


def immutable(ev: Evaluator, cls: Class) -> bool:
    """Can no method store a field of an instance once it is made (a frozen dataclass,
    ``flax.struct.dataclass``, a NamedTuple, an ``eqx.Module``)? Then the members the
    slicer blanked do not matter: it keeps every constructor (plan/slicing.py)."""
    owner = _owner(ev, cls)
    for d in cls.node.decorators:
        expr = d.decorator
        call = expr if type(expr) is cst.Call else None
        v = owner.value(call.func if call is not None else expr, None)
        if type(v) is not External:
            continue
        if v.qualified in FROZEN_DECORATORS:
            return True
        if call is not None and v.qualified in PLAIN_DATACLASSES | DATACLASS_PYTREES:
            for a in call.args:
                if a.keyword is not None and a.keyword.value == "frozen":
                    return owner.value(a.value, None) == Const(True)
    return any(type(b) is External and b.qualified in FROZEN_BASES for b in mro(ev, cls)[1:])


def _shown_whole(ev: Evaluator, cls: Class) -> bool:
    """Does the file of ``cls`` (and of each class of its MRO) show every member?"""
    from .attributes import whole_class

    return all(type(c) is not Class or whole_class(_owner(ev, c).p, c.node) for c in mro(ev, cls))


def _stored_in(fn: cst.CSTNode) -> set[str] | None:
    """The attributes a method stores on its first parameter anywhere in its body
    (``self.x = ...``, ``self.x += ...``, ``object.__setattr__(self, "x", ...)``); None when
    it may store names it does not spell (``setattr(self, name, v)``, ``self.__dict__``)."""
    if not isinstance(fn, cst.FunctionDef):
        return None
    params = [*fn.params.posonly_params, *fn.params.params]
    if not params:
        return None
    me = params[0].name.value
    out: set[str] = set()
    for n in walk(fn.body):
        if type(n) is cst.Attribute and type(n.value) is cst.Name and n.value.value == me:
            if n.attr.value == "__dict__":
                return None
            out.add(n.attr.value)  # reads count too: more names stored only means fewer defaults
        elif type(n) is cst.Call:
            f = n.func
            last = f.value if isinstance(f, cst.Name) else f.attr.value if isinstance(f, cst.Attribute) else ""
            if last in ("setattr", "__setattr__"):
                named = [a.value for a in n.args[1:2] if type(a.value) is cst.SimpleString]
                if not named:
                    return None
                out.add(str(named[0].evaluated_value))
    return out


def _init_fields(
    ev: Evaluator, cls: Class, init: Function, args: list[Argument], env: Env | None, node: cst.CSTNode | None
) -> list[tuple[str, Any]] | None:
    """The ``self.name = value`` assignments of ``__init__``'s own block, evaluated with
    the call's arguments (``self`` an object under construction)."""
    from .callables import parameters

    me = Struct(cls, (), "object")
    sig = parameters(ev, init.node, init.env)
    b = bind(sig, [(me, None, ""), *args])
    if b.error is not None:
        return None
    params = ev.bound_params(init, sig, b)
    frame = ev.frame(init.node, params, init.env, node, env)
    fn = init.node
    if not isinstance(fn, cst.FunctionDef) or not isinstance(fn.body, cst.IndentedBlock):
        return None
    self_name = next(iter(params), None)
    out: dict[str, Any] = {}
    for stmt in fn.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            targets: list[cst.BaseExpression] = []
            value: cst.BaseExpression | None = None
            if type(small) is cst.Assign:
                targets = [t.target for t in small.targets]
                value = small.value
            elif type(small) is cst.AnnAssign and small.value is not None:
                targets = [small.target]
                value = small.value
            pairs: list[tuple[cst.BaseExpression, cst.BaseExpression | None]] = [(t, value) for t in targets]
            whole = targets[0] if len(targets) == 1 else None
            if isinstance(whole, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)):
                # ``self.a, self.b = a, b``: each item stored in turn
                names, items = whole.elements, value.elements
                if len(names) == len(items) and not any(type(e) is cst.StarredElement for e in (*names, *items)):
                    pairs = [(n.value, i.value) for n, i in zip(names, items, strict=True)]
            for t, v in pairs:
                if (
                    type(t) is cst.Attribute
                    and type(t.value) is cst.Name
                    and t.value.value == self_name
                    and v is not None
                ):
                    out[t.attr.value] = ev.value(v, frame)
    return list(out.items())


__all__ = ["Tuple", "bound_method", "class_attribute", "init_signature", "instantiate", "method"]
