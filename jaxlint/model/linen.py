"""Flax linen: the variables ``Module.init`` makes.

A linen module's variables are made while its method runs, in order: ``self.param(name,
init_fn, *args)`` makes ``init_fn(key, *args)`` in the collection ``params``;
``self.variable(collection, name, init_fn, *args)`` makes ``init_fn(*args)`` in
``collection``; each submodule the method calls makes its own, nested under the
submodule's name — its ``name=`` field, the attribute ``setup`` (or a field) stores it in,
else ``ClassName_k``, the k-th module of that class the parent makes (flax's automatic
names). ``init(key, *args)`` gives ``{collection: {name: ...}}``; the layers
(``Dense``, ``Conv``, ``Embed``, the norms) say what they make in their stub
(``stubs/flax.linen.stub``), written as flax writes them.

The walk follows the method's statements as Python runs them: an ``if`` the model decides
takes its branch. It gives UNKNOWN where the variables are not certain: a call of a
callable the model does not know (a flax module without a stub, a lifted transform), an
``if`` it cannot decide or a loop whose body makes variables, a module called under a name
the walk cannot trace to where it was made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN

from .abstract import (
    KEY,
    Array,
    Bound,
    Class,
    Const,
    Dict,
    External,
    Function,
    Partial,
    Shape,
    Struct,
    Transformed,
    Tuple,
)

if TYPE_CHECKING:
    from .evaluate import Env, Evaluator
    from .signature import Argument

MODULES = ("flax.linen.Module", "flax.linen.module.Module")
# the methods of a linen module that take the module itself (a ``Bound`` of the External)
METHODS = frozenset(f"{m}.{name}" for m in MODULES for name in ("init", "init_with_output", "param", "variable"))
VARIABLE = External("flax.core.scope.Variable")
_KEY = Array(Shape(()), KEY)


def call(ev: Evaluator, q: str, args: list[Argument], env: Env | None, node: cst.CSTNode | None) -> Any:
    """A call of one of ``METHODS``; ``args[0]`` is the module."""
    what = q.rsplit(".", 1)[-1]
    if not args or args[0][1] is not None or args[0][2] or any(s for _, _, s in args):
        return UNKNOWN
    positional = [v for v, k, _ in args if k is None]
    keywords = {k: v for v, k, _ in args if k is not None}
    if what == "param":  # param(name, init_fn, *init_args, unbox=True, **init_kwargs)
        if len(positional) < 3:
            return UNKNOWN
        rest = _arguments(positional[3:], keywords, "unbox")
        return ev.call(positional[2], [(_KEY, None, ""), *rest], env, node)
    if what == "variable":  # variable(col, name, init_fn=None, *init_args, unbox=True, **init_kwargs)
        if len(positional) < 4:
            return UNKNOWN
        rest = _arguments(positional[4:], keywords, "unbox")
        return Struct(VARIABLE, (("value", ev.call(positional[3], rest, env, node)),), "object")
    receiver = positional[0]
    if type(receiver) is not Struct or type(receiver.cls) is not Class or len(positional) < 2:
        return UNKNOWN
    if any(k in keywords for k in ("mutable", "capture_intermediates")):
        return UNKNOWN
    name = "__call__"
    method = keywords.pop("method", Const(None))
    if type(method) is Const and isinstance(method.value, str):
        name = method.value
    elif type(method) is Function and type(method.node) is cst.FunctionDef:
        name = method.node.name.value
    elif method != Const(None):
        return UNKNOWN
    keywords.pop("rngs", None)
    rest = _arguments(positional[2:], keywords)
    made = variables(ev, receiver, name, rest, env, node)
    if what == "init":
        return made
    from .classes import bound_method  # classes reads this module's METHODS

    m = bound_method(ev, receiver.cls, name, receiver)
    out = ev.call(m, rest, env, node) if m is not UNKNOWN else UNKNOWN
    return Tuple((out, made))  # init_with_output


def _arguments(positional: list[Any], keywords: dict[str, Any], *leave_out: str) -> list[Argument]:
    out: list[Argument] = [(v, None, "") for v in positional]
    return out + [(v, k, "") for k, v in keywords.items() if k not in leave_out]


def is_module(ev: Evaluator, cls: Any) -> bool:
    """Is ``cls`` a linen module class (a class of the project or a stub deriving ``Module``)?"""
    from .classes import mro

    return type(cls) is Class and any(type(c) is External and c.qualified in MODULES for c in mro(ev, cls))


def variables(ev: Evaluator, receiver: Struct, method: str, args: list[Argument], env: Env | None, node: Any) -> Any:
    """The variables ``receiver.method(*args)`` makes as ``init`` runs it (see the module
    docstring): a Dict of collections, or UNKNOWN."""
    scope = _Scope(receiver)
    if not _Walk(ev).module(scope, method, args, env, node):
        return UNKNOWN
    return scope.value()


class _Failed(Exception):
    """The variables are not certain."""


class _Scope:
    """The variables one module makes, and how it names its submodules."""

    def __init__(self, receiver: Struct) -> None:
        self.receiver = receiver
        self.cols: dict[str, dict[str, Any]] = {}
        self.counters: dict[str, int] = {}
        self.made: dict[cst.CSTNode, str] = {}  # a construction -> the submodule's name
        self.local: dict[str, str] = {}  # a local variable -> the name of the submodule it holds
        self.called: set[str] = set()

    def add(self, col: str, name: str, value: Any) -> None:
        names = self.cols.setdefault(col, {})
        if name in names:
            raise _Failed  # flax: the name is in use
        names[name] = value

    def value(self) -> Dict:
        return Dict(tuple((c, Dict(tuple(names.items()))) for c, names in self.cols.items()))


class _Walk:
    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev

    def module(self, scope: _Scope, method: str, args: list[Argument], env: Env | None, node: Any) -> bool:
        from .classes import bound_method

        ev, receiver = self.ev, scope.receiver
        try:
            setup = bound_method(ev, receiver.cls, "setup", receiver)
            if type(setup) is Bound and type(setup.func) is Function:
                self.function(scope, setup.func, [(receiver, None, "")], env, node)
            m = bound_method(ev, receiver.cls, method, receiver)
            if type(m) is not Bound or type(m.func) is not Function:
                return False
            self.function(scope, m.func, [(receiver, None, ""), *args], env, node)
        except (_Failed, RecursionError):
            return False
        return True

    def function(self, scope: _Scope, fn: Function, args: list[Argument], env: Env | None, node: Any) -> None:
        ev = fn.program.evaluator if fn.program is not None else self.ev
        frame = ev.call_frame(fn, args, env, node)
        if frame is None or not isinstance(fn.node, cst.FunctionDef):
            raise _Failed
        params = fn.node.params.params
        me = params[0].name.value if params and args and args[0][0] is scope.receiver else None
        _Body(ev, self, scope, frame, me).block(fn.node.body)


class _Body:
    """One function body walked in one frame."""

    def __init__(self, ev: Evaluator, walk: _Walk, scope: _Scope, frame: Env, me: str | None) -> None:
        self.ev, self.walk, self.scope, self.frame, self.me = ev, walk, scope, frame, me

    def block(self, body: Any) -> bool:
        """Walk the statements; False once one returns (or raises)."""
        stmts = body.body if isinstance(body, cst.BaseSuite) else body
        if isinstance(body, cst.SimpleStatementSuite):
            stmts = body.body
        return all(self.statement(s) for s in stmts)

    def statement(self, s: cst.CSTNode) -> bool:
        ev, frame = self.ev, self.frame
        if isinstance(s, cst.SimpleStatementLine):
            for small in s.body:
                self.calls(small)
                if isinstance(small, cst.Assign):
                    self.assigned(small)
                if isinstance(small, (cst.Return, cst.Raise)):
                    return False
            return True
        if isinstance(s, (cst.FunctionDef, cst.ClassDef)):
            return True
        if isinstance(s, cst.If):
            self.calls(s.test)
            taken = ev.test(ev.value(s.test, frame), s.test)
            if taken is True:
                return self.block(s.body)
            if taken is False:
                if s.orelse is None:
                    return True
                return self.statement(s.orelse) if isinstance(s.orelse, cst.If) else self.block(s.orelse.body)
            self.makes_none(s.body)
            if s.orelse is not None:
                self.makes_none([s.orelse] if isinstance(s.orelse, cst.If) else s.orelse.body)
            return True
        if isinstance(s, cst.With):
            for item in s.items:
                self.calls(item.item)
            return self.block(s.body)
        if isinstance(s, (cst.For, cst.While)):
            self.calls(s.iter if isinstance(s, cst.For) else s.test)
            self.makes_none(s.body)
            if s.orelse is not None:
                self.makes_none(s.orelse.body)
            return True
        if isinstance(s, cst.Try):
            return self.block(s.body)
        raise _Failed  # a statement the walk does not follow (``match``, ``try``/``except*``)

    def makes_none(self, body: Any) -> None:
        """A body that may run any number of times, or not at all: it must make nothing."""
        probe = _Scope(self.scope.receiver)
        probe.counters = dict(self.scope.counters)
        _Body(self.ev, self.walk, probe, self.frame, self.me).block(body)
        if probe.cols or probe.made:
            raise _Failed

    def assigned(self, a: cst.Assign) -> None:
        """``layer = nn.Dense(4)`` / ``self.dense = nn.Dense(4)`` (in ``setup``): the
        submodule is called by that name."""
        name = self.scope.made.get(a.value)
        for t in a.targets:
            target = t.target
            if isinstance(target, cst.Name):
                if name is not None:
                    self.scope.local[target.value] = name
                else:
                    self.scope.local.pop(target.value, None)
            elif name is not None and isinstance(target, cst.Attribute) and self._on_me(target):
                # flax names a submodule ``setup`` stores by the attribute
                self.scope.made[a.value] = target.attr.value
                self._rename(name, target.attr.value)

    def _rename(self, old: str, new: str) -> None:
        cls = old.rsplit("_", 1)[0]
        if self.scope.counters.get(cls, 0) > 0 and old == f"{cls}_{self.scope.counters[cls] - 1}":
            self.scope.counters[cls] -= 1  # the automatic name was not taken

    def _on_me(self, e: cst.BaseExpression) -> bool:
        return (
            isinstance(e, cst.Attribute)
            and isinstance(e.value, cst.Name)
            and self.me is not None
            and e.value.value == self.me
        )

    def calls(self, node: cst.CSTNode) -> None:
        """Each call in ``node``, in the order Python makes them (callee, arguments, call); a
        call in a comprehension runs any number of times: only a library function's."""
        for c, repeated in _calls_in_order(node):
            if not repeated:
                self.call(c)
                continue
            callee = self.ev.value(c.func, self.frame)
            f = callee.func if type(callee) in (Bound, Partial) else callee
            if type(f) is not External or f.qualified.startswith("flax."):
                raise _Failed

    def call(self, c: cst.Call) -> None:
        ev, frame, scope = self.ev, self.frame, self.scope
        callee = ev.value(c.func, frame)
        t = type(callee)
        if t is Bound and type(callee.func) is External and callee.func.qualified in METHODS:
            what = callee.func.qualified.rsplit(".", 1)[-1]
            if callee.receiver is not scope.receiver or what not in ("param", "variable"):
                raise _Failed
            self._variable(c, what)
            return
        if t is Class:
            if is_module(ev, callee):
                self._construction(c, callee)
            return
        if t is Struct and is_module(ev, callee.cls):
            self._submodule(c, c.func, callee, "__call__")
            return
        if t is Bound and type(callee.func) is Function:
            if callee.receiver is scope.receiver:
                self.walk.function(scope, callee.func, [(callee.receiver, None, ""), *self._args(c)], frame, c)
            elif type(callee.receiver) is Struct and is_module(ev, callee.receiver.cls):
                if not isinstance(c.func, cst.Attribute):
                    raise _Failed
                self._submodule(c, c.func.value, callee.receiver, _method_name(callee.func))
            else:
                self.walk.function(scope, callee.func, [(callee.receiver, None, ""), *self._args(c)], frame, c)
            return
        if t is Function:
            self.walk.function(scope, callee, self._args(c), frame, c)
            return
        if t is Partial and type(callee.func) is External and not callee.func.qualified.startswith("flax."):
            return
        if t is External and not callee.qualified.startswith("flax."):
            return
        if t is Bound and type(callee.func) is External and not callee.func.qualified.startswith("flax."):
            return  # ``x.reshape(...)``, ``params.get(...)``
        if t is Transformed or (t is Class and not is_module(ev, callee)):
            return
        raise _Failed

    def _args(self, c: cst.Call) -> list[Argument]:
        out: list[Argument] = []
        for a in c.args:
            if a.star:
                raise _Failed
            out.append((self.ev.value(a.value, self.frame), a.keyword.value if a.keyword is not None else None, ""))
        return out

    def _variable(self, c: cst.Call, what: str) -> None:
        args = self._args(c)
        positional = [v for v, k, _ in args if k is None]
        if what == "param":
            col: Any = Const("params")
            name: Any = positional[0] if positional else None
        else:
            col, name = (positional[0], positional[1]) if len(positional) > 1 else (None, None)
        if type(col) is not Const or type(name) is not Const or not isinstance(name.value, str):
            raise _Failed
        v = self.ev.value(c, self.frame)
        if what == "variable":
            v = v.get("value") if type(v) is Struct else None
            if v is None:
                raise _Failed
        self.scope.add(str(col.value), name.value, v)

    def _construction(self, c: cst.Call, cls: Class) -> None:
        made = self.ev.value(c, self.frame)
        if type(made) is not Struct:
            raise _Failed
        for a in c.args:  # ``name=`` (a keyword-only field flax adds)
            if a.star:
                raise _Failed
            if a.keyword is not None and a.keyword.value == "name":
                given = self.ev.value(a.value, self.frame)
                if type(given) is Const and isinstance(given.value, str):
                    self.scope.made[c] = given.value
                    return
                if given != Const(None):
                    raise _Failed
        label = cls.node.name.value
        k = self.scope.counters.get(label, 0)
        self.scope.counters[label] = k + 1
        self.scope.made[c] = f"{label}_{k}"

    def _submodule(self, c: cst.Call, held: cst.BaseExpression, module: Struct, method: str) -> None:
        scope = self.scope
        if isinstance(held, cst.Call):
            name = scope.made.get(held)
        elif isinstance(held, cst.Name):
            name = scope.local.get(held.value)
        elif isinstance(held, cst.Attribute) and self._on_me(held):
            name = held.attr.value  # stored by ``setup``, or a field of the module
        else:
            name = None
        if name is None:
            raise _Failed
        if name in scope.called:
            return  # called before: its variables are made
        scope.called.add(name)
        sub = _Scope(module)
        if not self.walk.module(sub, method, self._args(c), self.frame, c):
            raise _Failed
        for col, names in sub.cols.items():
            scope.add(col, name, Dict(tuple(names.items())))


def _method_name(fn: Function) -> str:
    return fn.node.name.value if isinstance(fn.node, cst.FunctionDef) else "__call__"


def _calls_in_order(node: cst.CSTNode) -> list[tuple[cst.Call, bool]]:
    """The calls in ``node`` outside nested defs and lambdas, each after its callee and
    arguments (the order Python evaluates them), and whether it is in a comprehension."""
    out: list[tuple[cst.Call, bool]] = []

    def visit(n: cst.CSTNode, repeated: bool) -> None:
        if isinstance(n, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
            return
        inner = repeated or isinstance(n, (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp))
        for child in n.children:
            visit(child, inner)
        if isinstance(n, cst.Call):
            out.append((n, repeated))

    visit(node, False)
    return out
