"""JAX502's key flow: which PRNG keys are consumed twice on one path of a body.

What consumes a key is the catalogue's answer (``Op.key``, the parameter JAX's key-reuse
checker ``jax.experimental.key_reuse`` calls a sink: every sampler and ``split``; not
``fold_in``, ``clone`` or ``key_data``), and so is what a consumer gives (``Op.makes_key``:
``split`` gives keys, a sampler random numbers) and which draws select slices of an array
(``Op.selects``: ``permutation``, ``choice``). Whether a key is a typed key or the raw uint32
words of ``PRNGKey`` is the evaluator's abstract value of the key argument. What stays here
is the family's own judgement: the names definitely consumed at each point of the walk
(``jaxlint.model.flow.Flow``; joins keep what every path consumed), loops and
comprehensions that consume a key once per iteration, callees that consume their key
parameter on every path (what the model says the callee is: a def of any module, a class's
``__init__``), and the aligned-sampling idiom: two draws that select
slices of equally long arrays from one key, on purpose, so that paired arrays are shuffled
in unison (``permutation(key, x)`` / ``permutation(key, y)``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import libcst as cst

from jaxlint.model import dims as dims_
from jaxlint.model import program
from jaxlint.model.abstract import (
    Array,
    Bound,
    Class,
    Const,
    Dict,
    Function,
    List,
    Opaque,
    Partial,
    Scalar,
    Struct,
    Transformed,
    Tuple,
    constant,
)
from jaxlint.model.abstract import External as Library
from jaxlint.model.arrays import qualified
from jaxlint.model.attributes import receiver_of
from jaxlint.model.catalogue import Op, key_consumers, lookup
from jaxlint.model.catalogue.keys import key_kind
from jaxlint.model.classes import data_attribute
from jaxlint.model.classes import method as classes_method
from jaxlint.model.containers import container_of
from jaxlint.model.context import FileContext
from jaxlint.model.expected import raises_context
from jaxlint.model.flow import Flow, bound_names, terminates
from jaxlint.model.program import TRACING_METHODS
from jaxlint.model.reach import keeps_itself, keeps_receiver, method_keeps
from jaxlint.model.scopes import Scope
from jaxlint.model.signature import Argument, bind
from jaxlint.model.spelled import spelled
from jaxlint.model.traced import foreign_loop_bodies, loop_bodies
from jaxlint.model.transforms import TABLE as TRANSFORM_TABLE

KEY = "JAX502"
LOOP_COMPS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
NESTED = (cst.Lambda, cst.FunctionDef, cst.ClassDef)
LIBRARY_OBJECTS = (List, Dict, Tuple, Array, Const, Scalar)  # their methods are Python's or jax's


@dataclass(slots=True)
class Consumed:
    node: cst.BaseExpression  # the consuming call (a loop's body argument, for a body of another module)
    api: str  # "jax.random.normal", or the helper's name
    gives: str | None  # "draw" (random numbers), "keys" (``split``), None (a helper)
    previous_iteration: bool = False


@dataclass(slots=True)
class Reuse:
    node: cst.BaseExpression  # the second consuming call (or a loop's body argument)
    key: str  # "key", "keys[0]"
    api: str
    gives: str | None
    first: Consumed
    loop: cst.CSTNode | None = None  # the loop (or comprehension) whose iterations reuse it; the
    # call itself: a vmap that gives the key whole to every example (``broadcast``)
    kind: str | None = None  # "typed", "raw" or None: what the key argument is
    lax_loop: str = ""  # the loop is a lax call running a body that closes over the key ("lax.scan")
    carried: bool = False  # ... or that gives the consumed key back in its carry
    parameter: bool = False  # a vmap's application: ``key`` names its function's parameter
    body: Any = None  # a loop body of another module: (its FileContext, its def), for messages


@dataclass(frozen=True, slots=True)
class Use:
    """A call that consumes a key: the key's expression and name, and who consumes it."""

    key: cst.BaseExpression
    name: str
    api: str
    gives: str | None


# the env entry of a name whose first value was consumed before the name was bound again
ORIGINAL = "<first>"


@cache
def consumer_names() -> frozenset[str]:
    """The last names of the catalogue's key consumers (``normal``, ``split``...)."""
    return frozenset(q.rsplit(".", 1)[1] for q in key_consumers("jax.random"))


def bound_arguments(op: Op, call: cst.Call) -> dict[str, cst.BaseExpression] | None:
    """The call's argument expressions by parameter name (None: the call does not bind)."""
    args: list[Argument] = [(a.value, a.keyword.value if a.keyword is not None else None, a.star) for a in call.args]
    b = bind(op.signature, args)
    return None if b.error is not None else dict(b.arguments)


def catalogue_op(ctx: FileContext, call: cst.Call) -> tuple[str, Op] | None:
    """The catalogue entry the call's function is, through the file's names (the model)."""
    q = spelled(program(ctx), call.func)
    op = lookup(q) if q is not None else None
    return (q, op) if q is not None and op is not None else None


def key_name(e: cst.BaseExpression | None) -> str | None:
    """The tracked name of a key expression: ``key``, ``keys[0]`` or ``self.key``."""
    if isinstance(e, cst.Name):
        return e.value
    if isinstance(e, cst.Attribute) and isinstance(e.value, cst.Name):
        return f"{e.value.value}.{e.attr.value}"
    if isinstance(e, cst.Subscript) and isinstance(e.value, cst.Name) and len(e.slice) == 1:
        idx = e.slice[0].slice
        if isinstance(idx, cst.Index) and isinstance(idx.value, cst.Integer):
            return f"{e.value.value}[{idx.value.value}]"
    return None


class KeyFlow(Flow):
    """The key names definitely consumed at each point of the walk (``env``: name -> Consumed)."""

    def __init__(self, ctx: FileContext, follow: bool = True, frame: Any = None) -> None:
        super().__init__(ctx)
        self.follow = follow  # also callees that consume their key parameter (``consumer``)
        # the call context whose values say which attributes are stored fields (a loop
        # body's carry: the value the loop starts it with); None: the def's default frame
        self.frame = frame
        self.reuses: dict[cst.CSTNode, Reuse] = {}
        self.exits: list[dict[str, Consumed]] = []
        self.assigned: set[str] = set()
        self.first_consumed: set[str] = set()  # names whose first value was consumed (_consumed_in)
        # the first consumption of each name's (or field's) first value, on some path
        self.originals: dict[str, Consumed] = {}
        # the fields a call consumed that its callee's walk shows it does not store again
        self.kept_after: dict[cst.Call, dict[str, Consumed]] = {}
        # a ``for`` target's value in the iteration being walked, when its iterable's items are
        # known constants (``for t in reversed(range(T))``: 39, then 38): tests on it decide
        self.iteration: dict[str, Any] = {}
        self._walks: dict[cst.CSTNode, int] = {}

    # -- the walk's hooks (jaxlint.model.flow) ----------------------------------------
    def join(self, envs: list[dict]) -> dict:
        return merge(envs)

    def quiet_block(self, s: Any) -> bool:
        """A block that expects an error, or that turns JAX's key-reuse checker off (``with
        jax.debug_key_reuse(False):``): its reuse is on purpose."""
        return type(s) is cst.With and any(
            raises_context(self.ctx, i) or checker_off(self.ctx, i.item) for i in s.items
        )

    def next_iteration(self, before: dict, after: dict, mark: Any) -> dict:
        """The keys consumed at the end of an iteration are consumed by the previous one."""
        return {k: Consumed(v.node, v.api, v.gives, True) for k, v in after.items()}

    def small(self, s: Any) -> None:
        t = type(s)
        if t is cst.Assign:
            kept = self.kept_fields(s.value, s.targets) if type(s.value) is cst.Call else {}
            self.expression(s.value)
            handed = self.handed_back(s.value) if type(s.value) is cst.Call and len(s.targets) == 1 else {}
            for target in s.targets:
                self.unbind(target.target)
            for name, consumed in {**kept, **handed}.items():
                self.env[name] = consumed
        elif t is cst.AnnAssign or t is cst.AugAssign:
            if s.value is not None:
                self.expression(s.value)
            self.unbind(s.target)
        elif t is cst.Expr:
            self.expression(s.value)
        elif t is cst.Return:
            if s.value is not None:
                self.expression(s.value)
            self.exits.append(dict(self.env))
        elif t is cst.Del:
            self.unbind(s.target)
        elif t is cst.Assert:
            self.expression(s.test)

    def loop_target(self, node: Any, target: Any) -> None:
        """The first walk of the body binds the first item, the second walk (the next
        iteration) the second, when the iterable's items are known and the name is bound
        nowhere else in the function."""
        self.unbind(target)
        walk = self._walks[node] = self._walks.get(node, -1) + 1
        items = _constant_items(self.ctx, node.iter) if type(target) is cst.Name else None
        if items is not None and walk < len(items) and _bound_once(self.ctx, target):
            self.iteration[target.value] = items[walk]

    def decided(self, test: Any) -> bool | None:
        """A comparison of a loop target whose value in this iteration is known with a
        constant (``if t > 0`` in ``for t in reversed(range(T))``)."""
        if not self.iteration or type(test) is not cst.Comparison or len(test.comparisons) != 1:
            return None
        left, right = test.left, test.comparisons[0].comparator
        op = type(test.comparisons[0].operator)
        if op not in _COMPARE:
            return None
        a, b = self._known(left), self._known(right)
        if a is UNKNOWN_VALUE or b is UNKNOWN_VALUE:
            return None
        try:
            return bool(_COMPARE[op](a, b))
        except TypeError:
            return None

    def _known(self, e: Any) -> Any:
        if type(e) is cst.Name and e.value in self.iteration:
            return self.iteration[e.value]
        if type(e) is cst.Name:
            return UNKNOWN_VALUE
        v = _constant(program(self.ctx), e)
        return v if isinstance(v, (int, float)) and not isinstance(v, bool) else UNKNOWN_VALUE

    def unbind(self, target: Any) -> None:
        """A binding: the name (and its items and attributes) now hold a fresh value."""
        for n in bound_names(target):
            if n not in self.assigned:
                # the first value of the name (a parameter's), or a field of it, was consumed
                # before this binding: ``key, sub = split(key)`` consumes the key the caller
                # gave, ``state = kernel(state)`` the ``state.rng`` it was given
                for k in [k for k in self.env if k == n or k.startswith(n + ".")]:
                    self.env[ORIGINAL + k] = self.env[k]
                    self.originals.setdefault(k, self.env[k])
            self.assigned.add(n)
            self.forget(n)
            self.iteration.pop(n, None)
        for stored in _stored_into(target):
            k = key_name(stored)
            if k is not None:
                self.forget(k)

    def forget(self, name: str) -> None:
        for k in [k for k in self.env if k == name or k.startswith((name + "[", name + "."))]:
            del self.env[k]

    def live_attributes(self) -> list[str]:
        """The tracked keys read from attributes (``s.key``), not the record of what a name's
        first value held (``ORIGINAL``: a fact of the past that no later store undoes)."""
        return [k for k in self.env if "." in k and not k.startswith(ORIGINAL)]

    def forget_attributes(self, keep: frozenset[str] = frozenset()) -> None:
        """A call that is not a jax function may store into any object it reaches (a method
        of ``self`` splitting ``self.key``): keys read from attributes are fresh after it,
        but those of the records in ``keep``, whose fields nothing can store."""
        for k in self.live_attributes():
            if k.partition(".")[0] not in keep:
                del self.env[k]

    def leave(self, call: cst.Call) -> None:
        frozen = self.frozen_records(call)
        if self.may_store(call, frozen):
            self.forget_attributes(frozen)
            self.env.update(self.kept_after.pop(call, {}))

    def frozen_records(self, call: cst.Call) -> frozenset[str]:
        """The records whose keys are tracked that a call is given and whose value is an
        instance no code can store a field of (a NamedTuple, a frozen dataclass, an
        ``eqx.Module``: ``refuel(state)`` leaves ``state.key`` as it was)."""
        from jaxlint.model.classes import immutable

        bases = {k.partition(".")[0] for k in self.live_attributes()}
        ev = program(self.ctx).evaluator
        out = set()
        for a in call.args:
            if type(a.value) is not cst.Name or a.value.value not in bases:
                continue
            v = ev.value(a.value, self.frame)
            if type(v) is Struct and type(v.cls) is Class and immutable(ev, v.cls):
                out.add(a.value.value)
        return frozenset(out)

    def may_store(self, call: cst.Call, frozen: frozenset[str] = frozenset()) -> bool:
        """Can the call store a new key into an object whose attribute key is tracked? A
        library function (jax, numpy, a builtin) or a method of a list, dict or array
        stores only into what it is given; anything else (a method of ``self``, a function
        of the project, an unknown callee) may store anywhere it reaches; never into the
        ``frozen`` records (``frozen_records``)."""
        bases = {k.partition(".")[0] for k in self.live_attributes()} - frozen
        if not bases:
            return False
        if replaced_record(self.ctx, call) is not None:
            return False  # a record copy makes a new record: it stores into none
        p = program(self.ctx)
        ev = p.evaluator
        f = call.func
        library_method = type(f) is cst.Attribute and (
            type(ev.value(f.value, None)) in LIBRARY_OBJECTS or container_of(ev, f.value) is not None
        )
        given = any(type(a.value) is cst.Name and a.value.value in bases for a in call.args)
        # a module-level def, also under any transform (``jit``, ``vmap(grad(f))`` kept on
        # ``self``): it runs with the call's arguments only
        callee = ev.value(f, None)
        while type(callee) is Transformed:
            callee = callee.target
        if ((type(callee) is Function and _module_level(callee, p)) or _library_decorated(ev, f)) and self._local(
            bases, call
        ):
            # a module-level def reaches only what it is given (and module globals): the
            # function's own ``self`` it is not given keeps its key (``dropout(self.key, h)``);
            # a closure may store into what it closes over
            return given
        if type(f) is cst.Attribute and type(f.value) is cst.Name and bases == {f.value.value}:
            # ``es.tell(mean, fitness)``: a method of the object whose keys are tracked that
            # assigns none of them (reach.py)
            method = self.method_value(f)
            if type(method) is Bound and type(method.func) is Function and type(method.func.node) is cst.FunctionDef:
                attrs = frozenset(k.partition(".")[2].partition(".")[0] for k in self.live_attributes())
                if method_keeps(method.func.program or p, method.func.node, attrs):
                    return given
        if self._unescaped(bases, call):
            # objects of this function that nothing but their own attribute reads touch
            # (``agent`` in ``agent.act()`` ... ``env.pull(arm)``): no other callable can
            # reach them to store a key
            return False
        if not library_method and type(ev.value(f, None)) is not Library:
            # a callable built only from module globals and ``__init__``'s arguments
            # (``self._score = jax.jit(jax.vmap(jax.grad(log_prob)))``) cannot reach
            # ``self``: it changes only what it is given
            receiver = receiver_of(p, self.ctx.enclosing_function(call))
            if receiver is not None and bases == {receiver.name.value}:
                # the tracked attributes of ``self`` (``self.key``), and a callee that
                # assigns none of them (``jax.jit(self._reverse_step)``: reach.py)
                attrs = frozenset(k.partition(".")[2].partition(".")[0] for k in self.live_attributes())
                if keeps_receiver(p, f, attrs):
                    return given
            return True
        return given

    def _unescaped(self, bases: set[str], call: cst.Call) -> bool:
        """Are the tracked keys' objects locals of the function around the call (bound
        once, by a call), none of them the callee's own receiver, and is every read of them
        an attribute of it (``agent.act()``, ``agent.key``): never passed, stored, returned
        or captured, so no other callable can reach them?"""
        p = program(self.ctx)
        fn = self.ctx.enclosing_function(call)
        scope = p.scope_of_node.get(fn) if fn is not None else None
        f = call.func
        if scope is None or (type(f) is cst.Attribute and type(f.value) is cst.Name and f.value.value in bases):
            return False
        for name in bases:
            bs = scope.bindings.get(name, ())
            if len(bs) != 1 or bs[0].kind != "assign" or bs[0].unpack or type(bs[0].value) is not cst.Call:
                return False
            reads, complete = p.references(bs[0])
            if not complete:
                return False
            for r in reads:
                parent = p.parents.get(r)
                if type(parent) is not cst.Attribute or parent.value is not r:
                    return False
                if self.ctx.enclosing_function(r) is not fn:
                    return False  # read in a nested def or lambda: captured
                used = p.parents.get(parent)
                if type(used) is cst.Call and used.func is parent and not self._keeps_itself(parent):
                    return False  # its own method may hand it on (``agent.attach_to(env)``)
        return True

    def _keeps_itself(self, attr: cst.Attribute) -> bool:
        """Is ``obj.m`` a method of a class of the project that never hands its receiver on?"""
        v = program(self.ctx).evaluator.value(attr, None)
        if type(v) is not Bound or type(v.func) is not Function or type(v.func.node) is not cst.FunctionDef:
            return False
        return keeps_itself(v.func.program or program(self.ctx), v.func.node)

    def _local(self, bases: set[str], call: cst.Call) -> bool:
        """Are the tracked attribute keys' objects all names of the function around the call
        (its parameters and locals), which another def reaches only when given them?"""
        p = program(self.ctx)
        fn = self.ctx.enclosing_function(call)
        scope = p.scope_of_node.get(fn) if fn is not None else None
        return scope is not None and all(b in scope.bindings for b in bases)

    def expression(self, e: Any) -> None:
        if isinstance(e, cst.Lambda):
            return  # its body runs when it is called, with its own parameters
        nodes = [e, *self.ctx.descendants(e, prune=NESTED)]
        comps: list[cst.CSTNode] = []
        running: list[cst.Call] = []
        for n in nodes:
            t = type(n)
            if t in LOOP_COMPS:
                comps.append(n)
                continue
            if t is not cst.Call or any(n is c or _inside(self.ctx, n, c) for c in comps):
                continue
            # a call stores only once its arguments ran: forget when leaving it
            while running and not _inside(self.ctx, n, running[-1]):
                self.leave(running.pop())
            self.call(n)
            running.append(n)
        while running:
            self.leave(running.pop())
        for n in nodes:
            if type(n) is cst.NamedExpr:
                self.unbind(n.target)

    # -- consumption --------------------------------------------------------------------
    def use(self, n: cst.Call) -> Use | None:
        """The key the call consumes: a catalogue function's ``Op.key`` argument, or the key
        parameter of a callee that consumes it on every path (``consumer``)."""
        # ``x.method(...)``: an attribute keeps its name, so no catalogue consumer (and cheap)
        named = type(n.func) is not cst.Attribute or n.func.attr.value in consumer_names()
        found = catalogue_op(self.ctx, n) if named else None
        if found is not None:
            q, op = found
            if op.key is None:
                return None
            args = bound_arguments(op, n)
            arg = args.get(op.key) if args is not None else None
            k = key_name(arg)
            if arg is None or k is None or (type(arg) is cst.Attribute and not self.stored_key(arg)):
                return None
            return Use(arg, k, q, "keys" if op.makes_key else "draw")
        if self.follow and (held := loop_use(self.ctx, n)) is not None:
            return held
        if self.follow and type(n.func) is cst.Attribute:
            held = self.receiver_use(n)
            if held is not None:
                return held
        if self.follow and any(key_name(a.value) for a in n.args):
            for pname, idx in (consumer(self.ctx, n) or {}).items():
                arg = _argument(n, idx, pname)
                k = key_name(arg)
                if arg is not None and k and (type(arg) is not cst.Attribute or self.stored_key(arg)):
                    return Use(arg, k, one_line(self.ctx, n.func), None)
        if self.follow:
            return partial_use(self.ctx, n)
        return None

    def broadcast(self, n: cst.Call) -> Use | None:
        """The key a ``vmap`` call gives whole to every example (its ``in_axes`` entry is
        None) while the mapped def consumes that parameter on every path: each example
        consumes the same key, and draws the same random numbers. The call consumes it
        (for what follows); ``Use.api`` is empty when the vmap is judged where it is
        applied (``broadcast_sites``), so the call is no finding of its own."""
        if not self.follow or any(a.star for a in n.args) or not any(key_name(a.value) for a in n.args):
            return None
        p = program(self.ctx)
        v = _runs_as_called(p.evaluator.value(n.func, None))  # ``jit(vmap(f, ...))``
        if type(v) is not Transformed:
            return None
        positional = [a.value for a in n.args if a.keyword is None]
        for _, idx, fn_name in broadcast_parameters(v):
            if idx < len(positional):
                arg = positional[idx]
                k = key_name(arg)
                if k is not None and (type(arg) is not cst.Attribute or self.stored_key(arg)):
                    api = "" if judged_at_site(p, v) else f"jax.vmap({fn_name})"
                    return Use(arg, k, api, None)
        return None

    def call(self, n: cst.Call, comp: cst.CSTNode | None = None, comp_bound: set[str] | None = None) -> None:
        shared = self.broadcast(n) if comp is None and not self.quiet else None
        if shared is not None and n not in self.reuses:
            if shared.api:
                first = Consumed(n, shared.api, shared.gives, True)
                self.reuses[n] = Reuse(n, shared.name, shared.api, None, first, n, self.kind(shared))
            self.env[shared.name] = Consumed(n, shared.api or "jax.vmap", None)
            return
        used = self.use(n)
        if used is None:
            for field in self.field_uses(n):
                self.consume(n, field, comp, comp_bound)
                if field.name in self.env:  # the callee consumes it and stores none there
                    self.kept_after.setdefault(n, {})[field.name] = self.env[field.name]
            return
        self.consume(n, used, comp, comp_bound)

    def consume(self, n: cst.Call, used: Use, comp: cst.CSTNode | None, comp_bound: set[str] | None) -> None:
        """The call ``n`` consumes the key ``used`` names: a reuse if it was consumed before."""
        key, api = used.name, used.api
        if comp is not None:
            if key.partition("[")[0] in (comp_bound or set()):
                return
            if not self.quiet and n not in self.reuses:
                first = Consumed(n, api, used.gives, True)
                self.reuses[n] = Reuse(n, key, api, used.gives, first, comp, self.kind(used))
            return
        if self.quiet:
            return  # a call expected to raise (``with pytest.raises``) consumes nothing
        prev = self.env.get(key)
        if (
            prev is not None
            and n not in self.reuses
            and (prev.previous_iteration or not aligned(self.ctx, prev.node, n))
        ):
            loop = self.loop_node if prev.previous_iteration else None
            self.reuses[n] = Reuse(n, key, api, used.gives, prev, loop, self.kind(used))
        self.env[key] = Consumed(n, api, used.gives)

    def kept_fields(self, value: cst.Call, targets: Any) -> dict[str, Consumed]:
        """The consumed keys a record copy keeps, for the name it is assigned to (read before
        the walk of the call): ``s2 = s._replace(x=x)``, ``s.replace(x=x)``,
        ``dataclasses.replace(s, x=x)`` copy every field but those given, so ``s2.key`` is
        ``s.key``; and ``state = kernel(state)``, whose def consumes ``state.rng`` and
        returns its record with that field as it was (``handed_fields``), also as an item
        of a returned tuple (``state, aux = kernel(state)``: ``handed_items``)."""
        if len(targets) == 1 and type(targets[0].target) in (cst.Tuple, cst.List) and self.follow:
            # ``state, aux = step(state)``: the records of the items the callee returns
            out: dict[str, Consumed] = {}
            handed = handed_items(self.ctx, value, self.frame)
            if not handed:
                return out
            api = one_line(self.ctx, value.func)
            names: list[str | None] = []
            for e in targets[0].target.elements:
                if type(e) is cst.StarredElement:
                    break  # the items after a starred target are not at their index
                names.append(e.value.value if type(e.value) is cst.Name else None)
            for i, fields in handed.items():
                target = names[i] if i < len(names) else None
                if target is not None:
                    out.update({f"{target}.{f}": Consumed(value, api, None) for f in fields})
            return out
        if len(targets) != 1 or type(targets[0].target) is not cst.Name:
            return {}
        name = targets[0].target.value
        if replaced_record(self.ctx, value) is not None:
            held = held_keys(self.ctx, value, self.env)
            return {name + part: self.env[key] for part, key in held.items() if part}
        if not self.follow:
            return {}
        fields = handed_fields(self.ctx, value, self.frame)
        api = one_line(self.ctx, value.func) if fields else ""
        return {f"{name}.{f}": Consumed(value, api, None) for f in fields}

    def field_uses(self, n: cst.Call) -> list[Use]:
        """The fields of its record arguments a call consumes (``kernel(state)`` whose def
        draws from ``state.rng`` on every path): one use per field."""
        if not self.follow or not n.args:
            return []
        consumed = consumed_fields(self.ctx, n, self.frame)
        api = one_line(self.ctx, n.func) if consumed else ""
        return [Use(arg, f"{arg.value}.{f}", api, None) for arg, fields in consumed for f in fields]

    def handed_back(self, call: cst.Call) -> dict[str, Consumed]:
        """The names an assignment of ``call``'s result binds to a key the call consumed and
        its callee returns as it was given (``x, y, key = get_batch(key, data)`` whose
        ``get_batch`` draws from ``key`` and returns it): they hold a consumed key."""
        if not self.follow:
            return {}
        parent = self.ctx.parents.get(call)
        if type(parent) is not cst.Assign:
            return {}
        target = parent.targets[0].target
        returned = returned_parameters(self.ctx, call)
        if not returned:
            return {}
        out: dict[str, Consumed] = {}
        for index, param_index in returned.items():
            arg = _argument(call, param_index[1], param_index[0])
            k = key_name(arg)
            if k is None or k not in self.env or self.env[k].node is not call:
                continue  # not consumed by this very call
            if index is None and type(target) is cst.Name:
                out[target.value] = self.env[k]
            elif index is not None and isinstance(target, (cst.Tuple, cst.List)):
                elements = target.elements
                item = elements[index].value if index < len(elements) else None
                if isinstance(item, cst.Name):
                    out[item.value] = self.env[k]
        return out

    def receiver_use(self, n: cst.Call) -> Use | None:
        """``self.sample_noise(shape)`` whose method consumes a key its receiver holds
        (``normal(self.key, shape)``) on every path, without storing a new one: the call
        consumes ``self.key`` of the caller's receiver (the same object)."""
        f = n.func
        assert type(f) is cst.Attribute
        if type(f.value) is not cst.Name:
            return None
        ev = program(self.ctx).evaluator
        v = self.method_value(f)
        if type(v) is not Bound or type(v.func) is not Function or type(v.func.node) is not cst.FunctionDef:
            return None
        # the caller's own receiver (``self.noise(shape)``), or an instance of a class of the
        # project (``es = OpenES(...)``, then ``es.ask(mean)`` in a loop): between two calls,
        # only its class's methods can be shown to leave its key as it is (``may_store``)
        here = receiver_of(program(self.ctx), self.ctx.enclosing_function(n))
        if (here is None or here.name.value != f.value.value) and not (
            type(v.receiver) is Struct and type(v.receiver.cls) is Class and v.receiver.kind == "object"
        ):
            return None
        owner = v.func.program or program(self.ctx)
        attrs = [a for a in receiver_consumed(owner.ctx, v.func.node) if data_attribute(ev, v.receiver, a)]
        if not attrs:
            return None
        attr = attrs[0]
        return Use(f.value, f"{f.value.value}.{attr}", one_line(self.ctx, f), None)

    def method_value(self, f: cst.Attribute) -> Any:
        """What ``obj.method`` is: its value in the walk's frame, else, for ``obj`` a
        parameter, the method every visible call of the def (also in the files importing it)
        binds to an instance of a class of the project, the same one in each
        (``run_seasons(ReefSimulator(cfg), 40)`` of main.py, then ``sim.settlement()``);
        else None."""
        from jaxlint.model.contexts import contexts

        p = program(self.ctx)
        v = p.evaluator.value(f, self.frame)
        if type(v) is Bound:
            return v
        fn = self.ctx.enclosing_function(f)
        b = p.binding(f.value) if type(f.value) is cst.Name else None
        if type(fn) is not cst.FunctionDef or b is None or b.kind != "param" or b.scope.node is not fn:
            return None
        found = [p.evaluator.value(f, frame) for frame in contexts(p.evaluator, fn, importers=True)[:4]]
        if not found or any(
            type(v) is not Bound or type(v.func) is not Function or type(v.receiver) is not Struct for v in found
        ):
            return None
        if any(v.func.node is not found[0].func.node or v.receiver.cls != found[0].receiver.cls for v in found):
            return None
        return found[0]

    def stored_key(self, attr: cst.Attribute) -> bool:
        """``obj.key`` that reads a key stored on the object (a field, or what a method of
        its class or of a base stores), not a property that may give a fresh key per read."""
        ev = program(self.ctx).evaluator
        return data_attribute(ev, ev.value(attr.value, self.frame), attr.attr.value)

    def kind(self, used: Use) -> str | None:
        """A typed key (``jax.random.key``) or a raw one (``PRNGKey``), by its abstract value."""
        v = program(self.ctx).evaluator.value(used.key, None)
        return key_kind(v) if type(v) is Array else None

    def comprehensions(self, e: cst.CSTNode) -> None:
        """A key consumed inside a comprehension is consumed once per element."""
        for c in [e, *self.ctx.descendants(e, prune=NESTED)]:
            if type(c) not in LOOP_COMPS:
                continue
            bound: set[str] = set()
            f = c.for_in
            while f is not None:
                bound |= set(bound_names(f.target))
                f = f.inner_for_in
            elts = [c.key, c.value] if isinstance(c, cst.DictComp) else [c.elt]
            for el in elts:
                for n in [el, *self.ctx.descendants(el, prune=NESTED)]:
                    if type(n) is cst.Call:
                        self.call(n, comp=c, comp_bound=bound)


# --- the aligned-sampling idiom ----------------------------------------------------------------


def aligned(ctx: FileContext, a: cst.Call, b: cst.Call) -> bool:
    """Do two draws from one key select the same slices on purpose? The same selecting
    function (``Op.selects``), every other argument equal, and the selected arrays not
    known to differ in size along the axis (the whole shape with ``independent=True``)."""
    fa, fb = catalogue_op(ctx, a), catalogue_op(ctx, b)
    if fa is None or fb is None or fa[0] != fb[0]:
        return False
    op = fa[1]
    selects = op.selects
    if selects is None:
        return False
    args_a, args_b = bound_arguments(op, a), bound_arguments(op, b)
    if args_a is None or args_b is None:
        return False
    ev = program(ctx).evaluator
    values: dict[str, tuple[Any, Any]] = {}
    for p in op.signature.params:
        if p.name == op.key:
            continue
        x, y = args_a.get(p.name), args_b.get(p.name)
        vx = ev.value(x, None) if x is not None else p.default
        vy = ev.value(y, None) if y is not None else p.default
        values[p.name] = (vx, vy)
        if p.name != selects and not _same(ctx, x, y, vx, vy):
            return False
    sx, sy = values[selects]
    independent = values.get("independent", (Const(False), Const(False)))[0]
    if independent != Const(False):
        return not _shapes_differ(_shape(sx), _shape(sy))
    axis = values.get("axis", (Const(0), Const(0)))[0]
    ax = axis.value if type(axis) is Const and type(axis.value) is int else None
    return ax is None or not _sizes_differ(_size(sx, ax), _size(sy, ax))


def _same(ctx: FileContext, x: cst.BaseExpression | None, y: cst.BaseExpression | None, vx: Any, vy: Any) -> bool:
    """Two arguments are the same: the same text, or equal Python values (an array's
    abstract value has no identity: two arrays of one shape are not the same argument)."""
    if x is not None and y is not None and one_line(ctx, x) == one_line(ctx, y):
        return True
    return vx == vy and _python_value(vx)


def _python_value(v: Any) -> bool:
    t = type(v)
    if t is Const or t is Opaque:
        return True
    if t is Scalar:
        return v.dim is not None
    if t is Tuple:
        return all(_python_value(x) for x in v.items)
    return False


def _size(v: Any, axis: int) -> Any:
    """The size a selecting draw shuffles: an int argument's value, an array's axis."""
    if type(v) is Const and type(v.value) is int:
        return v.value
    if type(v) is Scalar and v.kind == "int":
        return v.dim
    if type(v) is Array and v.shape is not None and not v.shape.rest:
        d = v.shape.dims
        return d[axis] if -len(d) <= axis < len(d) else None
    return None


def _sizes_differ(a: Any, b: Any) -> bool:
    return a is not None and b is not None and dims_.different(a, b)


def _shape(v: Any) -> tuple[Any, ...] | None:
    if type(v) is Array and v.shape is not None and not v.shape.rest:
        return tuple(v.shape.dims)
    return None


def _shapes_differ(a: tuple[Any, ...] | None, b: tuple[Any, ...] | None) -> bool:
    if a is None or b is None:
        return False
    return len(a) != len(b) or any(_sizes_differ(x, y) for x, y in zip(a, b, strict=True))


# --- helpers and bodies -------------------------------------------------------------------------


def _inside(ctx: FileContext, node: cst.CSTNode, ancestor: cst.CSTNode) -> bool:
    return any(a is ancestor for a in ctx.ancestors(node))


def _argument(call: cst.Call, index: int, keyword: str) -> cst.BaseExpression | None:
    for a in call.args:
        if a.keyword is not None and a.keyword.value == keyword:
            return a.value
    if index < 0:
        return None  # keyword-only
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in positional[: index + 1]):
        return None
    return positional[index].value if index < len(positional) else None


def _stored_into(target: Any) -> list[cst.BaseExpression]:
    """The attributes and items a target stores into (``self.key, sub = ...``)."""
    if isinstance(target, (cst.Attribute, cst.Subscript)):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [x for el in target.elements for x in _stored_into(el.value)]
    if isinstance(target, cst.StarredElement):
        return _stored_into(target.value)
    return []


def merge(envs: list[dict]) -> dict:
    """Consumed after the join only if consumed on every path into it."""
    if not envs:
        return {}
    return {k: v for k, v in envs[0].items() if all(k in e for e in envs[1:])}


def _defs(ctx: FileContext) -> list[tuple[cst.FunctionDef, Scope]]:
    """Every ``def`` of the file, with its scope (the model's), in text order."""
    scopes = program(ctx).scope_of_node
    found = [(n, s) for n, s in scopes.items() if type(n) is cst.FunctionDef and s.kind == "function"]
    return sorted(found, key=lambda d: ctx.text_order(d[0]))


def consumed_parameters(ctx: FileContext, fn: cst.FunctionDef, method: bool = False) -> dict[str, int]:
    """The parameters of ``fn`` (a def of ``ctx``'s file) its body consumes as keys on every
    path: {param: position in a call, -1 keyword-only}; a method's receiver is no position."""
    memo: dict[cst.CSTNode, dict[str, int]] = ctx.shared.setdefault("JAX502_consumed", {})
    if fn in memo:
        return memo[fn]
    memo[fn] = {}  # a recursive def: its own calls do not count
    # a key handed on to a consumer counts too (``make_critic(n, key)`` returning
    # ``eqx.nn.MLP(..., key=key)``, a helper that draws from it)
    consumed, flow = _consumed_in(ctx, fn, follow=True)
    positional = list(fn.params.posonly_params) + list(fn.params.params)
    params = {p.name.value: i for i, p in enumerate(positional[1:] if method else positional)}
    kwonly = {p.name.value: -1 for p in fn.params.kwonly_params}
    hit = {
        n: i
        for n, i in {**params, **kwonly}.items()
        if (n in consumed and n not in flow.assigned) or n in flow.first_consumed
    }
    memo[fn] = hit
    return hit


def receiver_consumed(ctx: FileContext, fn: cst.FunctionDef) -> list[str]:
    """The attributes of its receiver (``self.key``) a method consumes as keys on every path
    and does not store again (a method that splits ``self.key`` and stores the new one
    threads it), in order; [] for a function that is no method."""
    memo: dict[cst.CSTNode, list[str]] = ctx.shared.setdefault("JAX502_receiver_consumed", {})
    if fn in memo:
        return memo[fn]
    memo[fn] = []  # a recursive method: its own calls do not count
    me = receiver_of(program(ctx), fn)
    if me is None:
        return []
    consumed, _ = _consumed_in(ctx, fn, follow=True)
    prefix = me.name.value + "."
    memo[fn] = [
        k[len(prefix) :] for k in consumed if k.startswith(prefix) and "." not in k[len(prefix) :] and "[" not in k
    ]
    return memo[fn]


def lambda_consumed(ctx: FileContext, fn: cst.Lambda) -> dict[str, int]:
    """The parameters a lambda's body consumes as keys (``lambda k, x: normal(k, x.shape)``,
    also through a def it calls that consumes its key argument): {param: position}."""
    consumed, _ = _consumed_in(ctx, fn)
    params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    return {name: i for i, name in enumerate(params) if name in consumed}


def _consumed_in(
    ctx: FileContext, fn: cst.FunctionDef | cst.Lambda, follow: bool = True, frame: Any = None
) -> tuple[dict[str, Consumed], KeyFlow]:
    """The keys a def's body (on every path to its end) or a lambda's expression consumes,
    and the walk (``assigned``: the names it binds; ``frame``: see ``KeyFlow``)."""
    flow = KeyFlow(ctx, follow=follow, frame=frame)
    if type(fn) is cst.Lambda:
        flow.expression(fn.body)
        merged = dict(flow.env)
    else:
        flow.run(fn.body)
        merged = merge(flow.exits + ([] if terminates(fn.body) else [flow.env]))
    # the names whose first value was consumed before they were bound again, on every path
    flow.first_consumed = {k[len(ORIGINAL) :] for k in merged if k.startswith(ORIGINAL)}
    return {k: c for k, c in merged.items() if not k.startswith(ORIGINAL)}, flow


def consumer(ctx: FileContext, call: cst.Call) -> dict[str, int] | None:
    """The key parameters a call's callee consumes on every path, by the model's value of the
    callee and the key flow of its body in its own module: an undecorated def (not a
    method) of this module, of another one of the project or of a library stub, a class
    whose ``__init__`` consumes them (``eqx.nn.Linear(3, 4, key=key)`` splits its key), or an
    instance of a class of the project whose ``__call__`` does (``block(x, key=key)``), also
    under ``@jax.jit`` and the other transforms that run it as called (``_runs_as_called``).
    None: not known."""
    found = _called_def(ctx, call)
    if found is None:
        return None
    owner, node, method = found
    return consumed_parameters(owner, node, method)


# a lax loop gives its initial carry to its body's carry parameter (its position among the
# parameters the loop passes, and the loop's argument: position and keyword)
LOOP_INITS = {"lax.scan": (0, 1, "init"), "lax.fori_loop": (1, 3, "init_val")}


def loop_use(ctx: FileContext, call: cst.Call) -> Use | None:
    """``lax.scan(step, key, xs)`` whose body consumes its carry on every path (splits it,
    draws from it): the first iteration consumes the key the loop was given, so the loop
    consumed it (JAX's key-reuse checker says so of a key used again after the loop).
    A loop that may run no iteration (``length=0``) consumes nothing."""
    body = _loop_body(ctx, call)
    if body is None:
        return None
    label, fn, same = body
    index, position, keyword = LOOP_INITS[label]
    positional = [*fn.params.posonly_params, *fn.params.params][same:]
    if len(positional) <= index or type(fn) is not cst.FunctionDef:
        return None
    length = _argument(call, 3, "length") if label == "lax.scan" else None
    if length is not None and constant(program(ctx).evaluator.value(length, None)) == 0:
        return None
    carry = positional[index].name.value
    if carry not in consumed_parameters(ctx, fn):
        return None
    arg = _argument(call, position, keyword)
    k = key_name(arg)
    if arg is None or k is None or type(arg) is not cst.Name:
        return None
    return Use(arg, k, label, None)


def _loop_body(ctx: FileContext, call: cst.Call) -> tuple[str, Any, int] | None:
    """The label, body and bound-parameter count of a lax loop call of this file whose
    carry is its initial value (``loop_bodies``); None for any other call."""
    memo = ctx.shared.get("JAX502_loop_bodies")
    if memo is None:
        memo = ctx.shared["JAX502_loop_bodies"] = {
            loop: (label, fn, same)
            for loop, label, fn, same, _ in loop_bodies(ctx, program(ctx))
            if label in LOOP_INITS and (label != "lax.scan" or _runs_at(program(ctx), loop, fn, 0, "f"))
        }
    return memo.get(call)


def _called_def(
    ctx: FileContext, call: cst.Call, frame: Any = None
) -> tuple[FileContext, cst.FunctionDef, bool] | None:
    """The def a call runs, by the model's value of the callee (see ``consumer``; in
    ``frame``, the call context of the def the call is in): its file's context, the def,
    and whether it is a method run on an instance (the constructor of a class called, the
    ``__call__`` of an instance). None: not known."""
    if type(call.func) is cst.Attribute and call.func.attr.value in TRACING_METHODS:
        return None  # ``f.lower(key)``: traced on abstract values, nothing drawn
    p = program(ctx)
    ev = p.evaluator
    v = ev.value(call.func, frame)
    method = type(v) is Class
    if method:
        v = classes_method(ev, v, "__init__")
    elif type(v) is Struct and type(v.cls) is Class:
        # ``block(x, key=key)``: an instance of a class of the project runs its ``__call__``
        method = True
        v = classes_method(ev, v.cls, "__call__")
    runs = _runs_as_called(v)
    node = runs.node if type(runs) is Function else None
    if not isinstance(node, cst.FunctionDef):
        return None
    if runs is v and node.decorators:
        return None  # a decorator the model does not see through may call it otherwise
    owner = runs.program or p
    if not method:
        scope = owner.scope_of_node.get(node)
        if scope is None or (scope.parent is not None and scope.parent.kind == "class"):
            return None  # a method, called through its class
    return owner.ctx, node, method


def returned_parameters(ctx: FileContext, call: cst.Call) -> dict[int | None, tuple[str, int]]:
    """The key parameters the callee of ``call`` consumes on every path and returns as they
    were given: {item of the returned tuple (None: the whole result): (param, position)}.
    Every ``return`` must give that parameter there; a parameter bound again is not one."""
    called = _called_def(ctx, call)
    if called is None or called[2]:
        return {}  # (a constructor returns the instance; an instance's ``__call__``: not read)
    owner, node, _ = called
    consumed = consumed_parameters(owner, node)
    if not consumed:
        return {}
    memo: dict[cst.CSTNode, dict[int | None, tuple[str, int]]] = owner.shared.setdefault("JAX502_returned", {})
    if node in memo:
        return memo[node]
    _, flow = _consumed_in(owner, node, follow=True)
    found: dict[int | None, tuple[str, int]] | None = None
    for ret in owner.descendants(node.body, prune=(cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        if type(ret) is not cst.Return:
            continue
        here: dict[int | None, tuple[str, int]] = {}
        items = ret.value.elements if type(ret.value) is cst.Tuple else None
        values = [(i, e.value) for i, e in enumerate(items)] if items is not None else [(None, ret.value)]
        for i, value in values:
            if type(value) is cst.Name and value.value in consumed and value.value not in flow.assigned:
                here[i] = (value.value, consumed[value.value])
        found = here if found is None else {k: v for k, v in found.items() if here.get(k) == v}
    memo[node] = found or {}
    return memo[node]


# a record copy with some fields given anew: ``s._replace(x=...)`` (NamedTuple),
# ``s.replace(x=...)`` (flax.struct, chex, equinox's tree_at is not one),
# ``dataclasses.replace(s, x=...)``
REPLACE_METHODS = frozenset({"_replace", "replace"})


def one_line(ctx: FileContext, node: cst.CSTNode) -> str:
    """The code of ``node`` on one line (a callee as messages name it: ``self.sample``)."""
    return " ".join(ctx.code(node).split())


def held_keys(ctx: FileContext, value: cst.BaseExpression, consumed: dict[str, Any], depth: int = 0) -> dict[str, str]:
    """The parts of what ``value`` evaluates to that hold a key of ``consumed`` (by its
    tracked name): ``""`` for a name that is the key itself, ``".f"`` for a field of the
    record a name holds, or of a copy of it that does not give that field
    (``s._replace(x=x)``), or of what a def of the code returns given that record when it
    returns the record's field as it was (``refuel(state)`` returning
    ``state._replace(fat=...)``), ``"[i]..."`` for those of item ``i`` of a tuple display:
    {part: the consumed key's name}."""
    given: frozenset[str] = frozenset()
    if type(value) is cst.Tuple:  # ``return state._replace(x=x), aux``: ``"[0].key"``
        items: dict[str, str] = {}
        for i, el in enumerate(value.elements):
            if type(el) is cst.StarredElement:
                break
            items.update({f"[{i}]{part}": key for part, key in held_keys(ctx, el.value, consumed, depth).items()})
        return items
    if type(value) is cst.Name:
        name = value.value
    elif type(value) is cst.Call and (copied := replaced_record(ctx, value)) is not None:
        name, given = copied
    elif type(value) is cst.Call and depth < HELD_DEPTH:
        return _kept_by_callee(ctx, value, consumed, depth)
    else:
        return {}
    out = {"": name} if type(value) is cst.Name and name in consumed else {}
    prefix = name + "."
    for k in consumed:
        field = k[len(prefix) :]
        if k.startswith(prefix) and "." not in field and field not in given:
            out["." + field] = k
    if not out and type(value) is cst.Name and depth < HELD_DEPTH:
        # ``new = state._replace(x=x)`` then ``return new, aux``: what the one assignment gave
        assigned = _assigned_once(ctx, value)
        if assigned is not None:
            return held_keys(ctx, assigned, consumed, depth + 1)
    return out


def _assigned_once(ctx: FileContext, name: cst.Name) -> cst.BaseExpression | None:
    """The value of the one plain assignment (``new = expr``) that the read ``name`` can
    see, when nothing else binds it; None otherwise."""
    bs = program(ctx).reaching(name)
    if len(bs) != 1 or bs[0].kind != "assign" or bs[0].unpack or type(bs[0].node) is not cst.Assign:
        return None
    if len(bs[0].node.targets) != 1 or bs[0].scope.bindings.get(name.value, ()) != bs:
        return None
    return bs[0].node.value


HELD_DEPTH = 3  # the defs ``held_keys`` follows, returning a record they were given


def _kept_by_callee(ctx: FileContext, call: cst.Call, consumed: dict[str, Any], depth: int) -> dict[str, str]:
    """The fields of a record argument (a name) that the def the call runs returns as they
    were, on every path, where they hold a key of ``consumed``: {``".f"``: the key's name}."""
    called = _called_def(ctx, call)
    if called is None or called[2]:
        return {}
    owner, node, _ = called
    positional = [q.name.value for q in (*node.params.posonly_params, *node.params.params)]
    out: dict[str, str] = {}
    for index, param in enumerate(positional):
        arg = _argument(call, index, param)
        if type(arg) is not cst.Name:
            continue
        prefix = arg.value + "."
        fields = {k[len(prefix) :]: k for k in consumed if k.startswith(prefix) and "." not in k[len(prefix) :]}
        if not fields:
            continue
        asked = {f"{param}.{f}": k for f, k in fields.items()}
        kept: dict[str, str] | None = None
        for ret in owner.descendants(node.body, prune=(cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            if type(ret) is not cst.Return:
                continue
            held = held_keys(owner, ret.value, asked, depth + 1) if ret.value is not None else {}
            # ``".f"``: the record returned; ``"[i].f"``: the record of item i of the tuple returned
            parts = {part: asked[k] for part, k in held.items() if _FIELD_PART.match(part)}
            kept = parts if kept is None else {part: k for part, k in kept.items() if parts.get(part) == k}
        if kept and not _rebinds(owner, node, param):
            out.update(kept)
    return out


def _rebinds(ctx: FileContext, fn: cst.FunctionDef, name: str) -> bool:
    """Does the def assign its parameter ``name`` anew (then a return of it is not what it
    was given)?"""
    p = program(ctx)
    scope = p.scope_of_node.get(fn)
    return scope is None or any(b.kind != "param" for b in scope.bindings.get(name, ()))


def replaced_record(ctx: FileContext, call: cst.Call) -> tuple[str, frozenset[str]] | None:
    """``(name, given fields)`` when ``call`` copies the record a name holds with only
    some fields given (by keyword only: ``str.replace(old, new)`` takes positions)."""
    f = call.func
    args = list(call.args)
    if type(f) is cst.Attribute and f.attr.value in REPLACE_METHODS and type(f.value) is cst.Name:
        source = f.value.value
    elif spelled(program(ctx), f) == "dataclasses.replace" and args and args[0].keyword is None:
        first = args.pop(0).value
        if type(first) is not cst.Name:
            return None
        source = first.value
    else:
        return None
    if any(a.keyword is None or a.star for a in args):
        return None
    return source, frozenset(a.keyword.value for a in args if a.keyword is not None)


_FIELD_PART = re.compile(r"^(\[\d+\])?\.\w+$")  # ``.key``, ``[0].key``


def _field_summary(
    ctx: FileContext, fn: cst.FunctionDef, given: Callable[[], Any] | None = None
) -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    """For a def: the fields of each parameter it consumes as keys on every path
    (``normal(state.rng, ...)``), and the fields of what it returns that hold a consumed key
    on every path (``return state._replace(position=p)``: ``rng`` as it was given;
    ``return state._replace(position=p), aux``: ``[0].rng``). ``given`` makes the frame the
    call being judged makes for it, read only when no call in view gives it a record (a def
    of another module, called from a scan body here)."""
    from jaxlint.model.contexts import contexts

    frames = contexts(program(ctx).evaluator, fn)
    records = [f for f in frames if any(type(v) is Struct for _, v in f.params)]
    frame = given() if not records and given is not None else None
    if frame is not None and any(type(v) is Struct for _, v in frame.params):
        records = [frame]
        given = frame
    else:
        given = None
    memo: dict[Any, Any] = ctx.shared.setdefault("JAX502_fields", {})
    key = fn if given is None else (fn, given)
    if key in memo:
        return memo[key]
    memo[key] = ({}, frozenset())  # a recursive def: its own calls do not count
    # the records its visible calls give it say which attributes are stored fields (``fly(state)``
    # in a scan body whose carry is a NamedTuple: ``state.key`` is its field)
    consumed, flow = _consumed_in(ctx, fn, follow=True, frame=records[0] if records else None)
    params = [q.name.value for q in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)]
    fields: dict[str, frozenset[str]] = {}
    for name in params:
        prefix = name + "."
        found = {k[len(prefix) :] for k in consumed if k.startswith(prefix) and name not in flow.assigned}
        found |= {k[len(prefix) :] for k in flow.first_consumed if k.startswith(prefix)}
        found = {f for f in found if "." not in f and "[" not in f}
        if found:
            fields[name] = frozenset(found)
    returned: frozenset[str] | None = None
    for ret in ctx.descendants(fn.body, prune=(cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        if type(ret) is not cst.Return:
            continue
        parts = held_keys(ctx, ret.value, consumed) if ret.value is not None else {}
        # ``"key"``: a field of the record returned; ``"[0].key"``: of the record it returns first
        held = {part[1:] if part.startswith(".") else part for part in parts if _FIELD_PART.match(part)}
        returned = frozenset(held) if returned is None else returned & held
    memo[key] = (fields, returned or frozenset())
    return memo[key]


def _summary_at(
    ctx: FileContext, call: cst.Call, frame: Any
) -> tuple[cst.FunctionDef, tuple[dict[str, frozenset[str]], frozenset[str]]] | None:
    """The def a call runs (not as a method) and its field summary (``_field_summary``), in
    the frame the call, evaluated in ``frame``, makes for it when no call in view gives it a
    record; None when the def is not known."""
    called = _called_def(ctx, call, frame)
    if called is None or called[2]:
        return None
    owner, node, _ = called

    def callee_frame() -> Any:
        from jaxlint.model.contexts import enter_call

        return enter_call(program(ctx).evaluator, node, call, frame) if frame is not None else None

    return node, _field_summary(owner, node, callee_frame)


def consumed_fields(ctx: FileContext, call: cst.Call, frame: Any = None) -> list[tuple[cst.Name, frozenset[str]]]:
    """The record arguments (names) of a call whose fields its callee consumes as keys on
    every path, with those fields (``kernel(state)``: ``state``, {``rng``}); the callee
    as ``frame`` gives it (a ``kernel`` parameter of the def around the loop)."""
    found = _summary_at(ctx, call, frame)
    if found is None:
        return []
    node, (fields, _) = found
    if not fields:
        return []
    positional = [q.name.value for q in (*node.params.posonly_params, *node.params.params)]
    out = []
    for name, fs in fields.items():
        index = positional.index(name) if name in positional else -1
        arg = _argument(call, index, name)
        if type(arg) is cst.Name:
            out.append((arg, fs))
    return out


def handed_fields(ctx: FileContext, call: cst.Call, frame: Any = None) -> frozenset[str]:
    """The fields of the record a call returns that hold a key its callee consumed (see
    ``_field_summary``): a ``kernel`` that draws from ``state.rng`` and returns
    ``state._replace(...)`` without a new ``rng`` hands back a consumed key."""
    found = _summary_at(ctx, call, frame)
    return frozenset(f for f in found[1][1] if not f.startswith("[")) if found is not None else frozenset()


def handed_items(ctx: FileContext, call: cst.Call, frame: Any = None) -> dict[int, frozenset[str]]:
    """For a call whose callee returns a tuple: the fields of each item's record that hold a
    key the callee consumed (``step(state)`` returning ``state._replace(x=x), aux`` without
    a new ``state.rng``: {0: {``rng``}})."""
    found = _summary_at(ctx, call, frame)
    if found is None:
        return {}
    out: dict[int, set[str]] = {}
    for f in found[1][1]:
        if f.startswith("["):
            index, field = f[1:].split("].", 1)
            out.setdefault(int(index), set()).add(field)
    return {i: frozenset(fs) for i, fs in out.items()}


def partial_use(ctx: FileContext, call: cst.Call) -> Use | None:
    """The key a call of a ``functools.partial`` consumes: a consumed parameter of the def it
    wraps, given by the partial (``make_layer = partial(init_linear, key)``, then every
    ``make_layer(n_in, n_out)`` consumes ``key``) or by the call after what the partial
    binds. A key the partial holds is tracked by its name only while that name keeps the
    value the partial took: bound once in the function that makes the partial and calls it."""
    p = program(ctx)
    if type(call.func) is not cst.Name:
        return None
    bound = p.reaching(call.func)  # cheap first: a name assigned a call (``partial(...)``) only
    if not bound or any(b.kind != "assign" or type(b.value) is not cst.Call for b in bound):
        return None
    v = p.evaluator.value(call.func, None)
    made = v.node if type(v) is Partial else None
    if type(made) is not cst.Call or v.star or made not in p.parents:
        return None
    runs = _runs_as_called(v.func)
    node = runs.node if type(runs) is Function else None
    if not isinstance(node, cst.FunctionDef) or (runs is v.func and node.decorators):
        return None
    owner = runs.program or p
    scope = owner.scope_of_node.get(node)
    if scope is None or (scope.parent is not None and scope.parent.kind == "class"):
        return None  # a method, called through its class
    given = sum(1 for a in made.args[1:] if a.keyword is None)
    if any(a.star for a in made.args):
        return None
    home = ctx.enclosing_function(call)
    for pname, idx in consumed_parameters(owner.ctx, node).items():
        if 0 <= idx < given or any(a.keyword is not None and a.keyword.value == pname for a in made.args):
            arg = _argument(made, idx + 1 if idx >= 0 else -1, pname)
            k = key_name(arg)
            if type(arg) is not cst.Name or k is None or ctx.enclosing_function(made) is not home:
                continue
            where = p.scope_of_node.get(home) if home is not None else p.module_scope
            if where is None or len(where.bindings.get(k, ())) != 1:
                continue  # rebound: the name no longer holds the key the partial took
        else:
            arg = _argument(call, idx - given if idx >= 0 else -1, pname)
            k = key_name(arg)
            if arg is None or k is None or type(arg) is cst.Attribute:
                continue
        return Use(arg, k, one_line(ctx, call.func), None)
    return None


UNKNOWN_VALUE = object()
_COMPARE = {
    cst.GreaterThan: lambda a, b: a > b,
    cst.GreaterThanEqual: lambda a, b: a >= b,
    cst.LessThan: lambda a, b: a < b,
    cst.LessThanEqual: lambda a, b: a <= b,
    cst.Equal: lambda a, b: a == b,
    cst.NotEqual: lambda a, b: a != b,
}


def _constant_items(ctx: FileContext, iterable: Any) -> list[Any] | None:
    """The first two items of ``range(...)``, ``reversed(range(...))`` or a display of
    constants, when its arguments are constants the model knows (``range(T)``, ``T = 40``)."""
    p = program(ctx)
    if type(iterable) is cst.Call and not any(a.keyword or a.star for a in iterable.args):
        q = qualified(p.evaluator, iterable.func)
        if q == "builtins.reversed" and len(iterable.args) == 1:
            inner = _constant_items_all(p, iterable.args[0].value)
            return list(reversed(inner))[:2] if inner is not None else None
    found = _constant_items_all(p, iterable)
    return found[:2] if found is not None else None


def _constant_items_all(p: Any, iterable: Any) -> list[Any] | None:
    if type(iterable) is cst.Call and qualified(p.evaluator, iterable.func) == "builtins.range":
        if any(a.keyword or a.star for a in iterable.args) or not 1 <= len(iterable.args) <= 3:
            return None
        bounds = [_constant(p, a.value) for a in iterable.args]
        if not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds):
            return None
        r = range(*bounds)
        return [r[i] for i in (0, 1, -2, -1) if -len(r) <= i < len(r)] if len(r) > 4 else list(r)
    v = _constant(p, iterable) if type(iterable) in (cst.Tuple, cst.List) else UNKNOWN_VALUE
    if isinstance(v, (tuple, list)) and all(isinstance(x, (int, float, str)) for x in v):
        return list(v)
    return None


def _constant(p: Any, e: Any) -> Any:
    """The Python constant the evaluator gives ``e`` (``T`` bound to ``40``), or UNKNOWN."""
    return constant(p.evaluator.value(e, None))


def _bound_once(ctx: FileContext, name: cst.Name) -> bool:
    """Is the loop target's name bound only by the loop (not assigned in the body too)?"""
    p = program(ctx)
    fn = ctx.enclosing_function(name)
    scope = p.scope_of_node.get(fn) if fn is not None else p.module_scope
    return scope is not None and len(scope.bindings.get(name.value, ())) == 1


def _runs_as_called(v: Any) -> Any:
    """The function a callable runs once, with the call's own arguments: itself, or the
    function under transforms that give its own value (``@jax.jit``, ``checkpoint``,
    ``custom_vjp``, ``named_scope``): a key it consumes is consumed by the call (JAX's
    checker follows a key into a jitted function)."""
    while type(v) is Transformed and not v.unknown_options:
        api = TRANSFORM_TABLE.get(v.api)
        if api is None or api.gives != "value":
            break
        v = v.target
    return v


def _library_decorated(ev: Any, f: cst.BaseExpression) -> bool:
    """A name bound only to module-level defs under library decorators the model does not
    model (``@eqx.filter_jit``): the library code gets the def and the call's arguments, and
    the def reaches only those and its module's globals, so the call reaches no more."""
    if type(f) is not cst.Name:
        return False
    bs = ev.p.reaching(f)
    return bool(bs) and all(
        type(b.node) is cst.FunctionDef
        and b.node.decorators
        and ev.p.ctx.parents.get(b.node) is ev.p.ctx.module
        and all(type(ev.value(d.decorator, None)) is Library for d in b.node.decorators)
        for b in bs
    )


def _module_level(f: Function, p: Any) -> bool:
    """Is the def a module's own (no closure over a caller's names)?"""
    home = f.program or p
    return type(f.node) is cst.FunctionDef and home.ctx.enclosing_function(f.node) is None


def checker_off(ctx: FileContext, e: cst.BaseExpression) -> bool:
    """``jax.debug_key_reuse(False)``: the code turns JAX's key-reuse checker off, as a
    context manager or a decorator, to reuse keys on purpose (tests of dispatch caches)."""
    if type(e) is not cst.Call or not e.args or spelled(program(ctx), e.func) != "jax.debug_key_reuse":
        return False
    first = e.args[0].value
    return type(first) is cst.Name and first.value == "False"


def _checker_off_around(ctx: FileContext, fn: cst.FunctionDef) -> bool:
    """Is the def, or a def it is nested in, decorated with ``jax.debug_key_reuse(False)``?"""
    node: cst.CSTNode | None = fn
    while node is not None:
        if type(node) is cst.FunctionDef and any(checker_off(ctx, d.decorator) for d in node.decorators):
            return True
        node = ctx.parents.get(node)
    return False


def reuses(ctx: FileContext) -> list[Reuse]:
    """Every second consumption of a key in the file (module code and every def), in text order."""
    found = ctx.shared.get(KEY)
    if found is not None:
        return found
    out: dict[cst.CSTNode, Reuse] = {}
    for body in [ctx.module, *(fn.body for fn, _ in _defs(ctx) if not _checker_off_around(ctx, fn))]:
        flow = KeyFlow(ctx)
        flow.run(body)
        for stmt in _statements(ctx, body):
            flow.comprehensions(stmt)
        for n, r in flow.reuses.items():
            out.setdefault(n, r)
    for r in broadcast_sites(ctx):
        out.setdefault(r.node, r)
    for r in _closed_over_in_loops(ctx):
        out.setdefault(r.node, r)
    for r in _carried_in_loops(ctx):
        out.setdefault(r.node, r)
    result = ctx.shared[KEY] = sorted(out.values(), key=lambda r: ctx.text_order(r.node))
    return result


def broadcast_parameters(v: Transformed) -> list[tuple[str, int, str]]:
    """For a ``vmap`` (also under ``jit``): the parameters its function consumes as keys on
    every path while its ``in_axes`` gives them whole to every example (entry None), as
    ``(parameter, position in a call of the vmap, the function's name)``; what a
    ``partial`` binds is no position of the call."""
    if v.api != "jax.vmap" or v.unknown_options:
        return []
    in_axes = v.option("in_axes", Const(0))
    fn = v.target
    shift, bound = 0, frozenset[str]()
    if type(fn) is Partial and not fn.star:  # ``partial(step, grad_log_p=g)``: what it binds is not the call's
        shift, bound, fn = len(fn.args), frozenset(k for k, _ in fn.keywords), fn.func
    if type(in_axes) not in (Tuple, List) or type(fn) is not Function or fn.program is None:
        return []
    owner = fn.program
    if type(fn.node) is cst.Lambda:
        consumed = lambda_consumed(owner.ctx, fn.node)
    elif type(fn.node) is cst.FunctionDef:
        consumed = consumed_parameters(owner.ctx, fn.node)
    else:
        return []
    out = []
    for pname, idx in consumed.items():
        idx -= shift
        if pname not in bound and 0 <= idx < len(in_axes.items) and in_axes.items[idx] == Const(None):
            out.append((pname, idx, fn.name))
    return out


def _site_value(p: Any, node: cst.CSTNode) -> Transformed | None:
    """A vmap application's value as written, in no call's frame: a target or option that
    depends on the parameters of the def around it (a factory's ``f``) is not known there,
    and its calls decide (``KeyFlow.broadcast``)."""
    from jaxlint.model.mapsites import application_value

    if type(p.parents.get(node)) is cst.Decorator:
        return application_value(p, node)
    v = p.evaluator.value(node, None)
    return v if type(v) is Transformed else None


def judged_at_site(here: Any, v: Transformed) -> bool:
    """Does the vmap ``v``'s own application, in a linted module of the project, report
    the keys it gives whole (``broadcast_sites``)? Then its calls do not."""
    from jaxlint.model.mapsites import owner_program

    node = v.node
    if node is None:
        return False
    owner = here if node in here.parents else owner_program(here.evaluator, node)
    if owner is None or owner.ctx.path.endswith(".stub"):
        return False
    site = _site_value(owner, node)
    return site is not None and bool(broadcast_parameters(site))


def broadcast_sites(ctx: FileContext) -> list[Reuse]:
    """Each ``vmap`` applied in the file whose ``in_axes`` gives a parameter whole to every
    example (None) while its function consumes that parameter as a key on every path:
    whatever key a call gives it, every example consumes the same one. Reported at the
    application, where the fix goes (map over ``split(key, n)`` with ``in_axes`` 0)."""
    from jaxlint.model.mapsites import map_sites

    p = program(ctx)
    out = []
    for site in map_sites(p, "jax.vmap"):
        if site.app.foreign or site.app.via:
            continue
        node = site.node
        if not isinstance(node, cst.BaseExpression):
            continue
        v = _site_value(p, node)
        if v is None:
            continue
        for pname, _, fn_name in broadcast_parameters(v)[:1]:
            api = f"jax.vmap({fn_name})"
            first = Consumed(node, api, None, True)
            out.append(Reuse(node, pname, api, None, first, node, None, parameter=True))
    return out


def _closed_over_in_loops(ctx: FileContext) -> list[Reuse]:
    """A key that a loop body of ``lax.fori_loop``/``scan``/``while_loop``/``map`` closes over
    and consumes on every path: the body runs once per iteration, so every iteration
    consumes the same key (a parameter or a name the body binds is a new value each time)."""
    out = []
    for loop, label, fn, same, bound in loop_bodies(ctx, program(ctx)):
        consumed, flow = _consumed_in(ctx, fn)
        # the receiver of ``self._step`` and what ``partial(step, key)`` binds are one value
        # for every iteration: as a name the body closes over
        positional = [*fn.params.posonly_params, *fn.params.params][same:]
        params = {p.name.value for p in (*positional, *fn.params.kwonly_params)} - bound
        for key, c in consumed.items():
            base = key.partition("[")[0].partition(".")[0]
            if base in params or base in flow.assigned or c.previous_iteration:
                continue
            first = Consumed(c.node, c.api, c.gives, True)
            out.append(Reuse(c.node, key, c.api, c.gives, first, loop, None, label))
    return out


# the lax loops that feed the carry their body returns back to it: the carry's position
# among the body's parameters, and whether the body returns ``(carry, y)`` (scan) or the carry
CARRIES = {"lax.scan": (0, True), "lax.fori_loop": (1, False), "lax.while_loop": (0, False)}


def _carried_in_loops(ctx: FileContext) -> list[Reuse]:
    """A key a lax loop's body consumes from its carry on every path and gives back in the
    carry it returns as it was (``noise = normal(key, ...)`` then ``return key, noise``; a
    record's field: ``return state._replace(x=x)`` without a new ``state.key``): the next
    iteration gets the consumed key and consumes it again. JAX's key-reuse checker: "scan
    body function leads to key reuse when repeatedly executed"."""
    from jaxlint.model.contexts import contexts

    p = program(ctx)
    out = []
    for loop, label, fn, same, _ in loop_bodies(ctx, p):
        if label not in CARRIES or type(fn) is not cst.FunctionDef:
            continue
        if label == "lax.while_loop" and not _runs_at(p, loop, fn, 1, "body_fun"):
            continue  # the condition: it returns a bool, not the carry
        index, pair = CARRIES[label]
        positional = [*fn.params.posonly_params, *fn.params.params][same:]
        if len(positional) <= index:
            continue
        carry = positional[index].name.value
        # the values the loop starts the carry with say which of its attributes are fields
        # (also as the files importing the module call it: a ``kernel`` the caller gives)
        frames = contexts(p.evaluator, fn, importers=True)
        records = [f for f in frames if type(dict(f.params).get(carry)) is Struct]
        frame = (records or frames)[0] if records or frames else None
        consumed, flow = _consumed_in(ctx, fn, frame=frame)
        given = _returned_carry(ctx, fn, pair, consumed)
        if not given:
            continue
        for path in sorted(given):
            key = carry + path
            # ... and consumes the key the carry brings in, on every path
            if carry not in flow.assigned:
                entry = consumed.get(key)
            else:
                entry = flow.originals.get(key) if key in flow.first_consumed else None
            if entry is None:
                continue
            first = Consumed(entry.node, entry.api, entry.gives, True)
            out.append(Reuse(entry.node, key, entry.api, entry.gives, first, loop, None, label, carried=True))
    for loop, label, body, same, arg in foreign_loop_bodies(ctx, p):
        # a body of another module: its own key flow, reported at the argument naming it
        if label not in CARRIES or label == "lax.while_loop":
            continue
        owner, fn = body.program.ctx, body.node
        if type(fn) is not cst.FunctionDef:
            continue
        index, pair = CARRIES[label]
        positional = [*fn.params.posonly_params, *fn.params.params][same:]
        if len(positional) <= index:
            continue
        carry = positional[index].name.value
        consumed, flow = _consumed_in(owner, fn)
        given = _returned_carry(owner, fn, pair, consumed)
        for path in sorted(given):
            key = carry + path
            entry = consumed.get(key) if carry not in flow.assigned else None
            if entry is None:
                continue
            api = fn.name.value  # the def, as its module names it
            first = Consumed(arg, api, entry.gives, True)
            out.append(Reuse(arg, key, api, entry.gives, first, loop, None, label, carried=True, body=(owner, fn)))
    return out


def _runs_at(p: Any, loop: cst.Call, fn: Any, index: int, keyword: str) -> bool:
    """Is ``fn`` the function a lax loop's argument at ``(index, keyword)`` runs (after what
    ``partial`` binds or a bound method's receiver): ``lax.scan``'s ``f``, not another
    function argument; ``lax.while_loop``'s ``body_fun``, not its test?"""
    arg = _argument(loop, index, keyword)
    v: Any = p.evaluator.value(arg, None) if arg is not None else None
    while type(v) in (Partial, Bound):
        v = v.func
    return getattr(v, "node", None) is fn


def _returned_carry(ctx: FileContext, fn: cst.FunctionDef, pair: bool, consumed: dict[str, Consumed]) -> set[str]:
    """The parts of the carry every ``return`` of the body gives back holding a key consumed
    on every path: ``""`` (the carry itself, a key), ``".key"`` (a field of a record carry)."""
    found: set[str] | None = None
    for ret in ctx.descendants(fn.body, prune=(cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        if type(ret) is not cst.Return or ret.value is None:
            continue
        value = ret.value
        if pair and type(value) is cst.Call:
            # ``return step(s, p)``: the carry of the ``(carry, y)`` its def returns
            held = {part[3:] for part in held_keys(ctx, value, consumed) if part.startswith("[0].")}
        elif pair:
            if type(value) is not cst.Tuple or not value.elements:
                return set()
            held = set(held_keys(ctx, value.elements[0].value, consumed))
        else:
            held = set(held_keys(ctx, value, consumed))
        found = held if found is None else found & held
    return {h for h in (found or set()) if "[" not in h}


def _statements(ctx: FileContext, body: cst.CSTNode) -> list[cst.CSTNode]:
    """The statements of a body (not of nested defs), for the comprehension check."""
    kinds = (cst.Expr, cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return)
    return [n for n in ctx.descendants(body, prune=(cst.FunctionDef, cst.ClassDef, cst.Lambda)) if type(n) in kinds]
