"""The JAX5xx family's value facts along the paths of one body (``jaxlint.model.flow.Flow``):
which local names are JAX arrays (``ARRAY``), NumPy arrays (``NUMPY``), and which values
depend on a traced argument (``TRACED``); where such a value meets Python
``if``/``while``/``and``/``or``/``not``/``bool``/``int``/``float`` (``ValueFlow.bools``) and
where a JAX array is assigned in place (``ValueFlow.setitems``).

What a call makes is the model's answer (``arrays.made_by``: the call's abstract value,
else what the API promises); annotations are read by the model (``arrays.annotated_array``).
Facts join as "must" facts: a fact holds after a join only if it holds on every path.
"""

from __future__ import annotations

from collections.abc import Set
from contextlib import contextmanager
from dataclasses import dataclass

import libcst as cst

from jaxlint.base.literals import UNKNOWN
from jaxlint.model import program
from jaxlint.model.abstract import (
    Array,
    Bound,
    External,
    Function,
    List,
    Opaque,
    Partial,
    Struct,
    Transformed,
    Tuple,
    Wraps,
)
from jaxlint.model.annotations import annotated_value
from jaxlint.model.arrays import ARRAY_ATTRS, ARRAY_METHODS, annotated_array, at_method, made_by, qualified
from jaxlint.model.contexts import called_function, contexts, enclosing_frames, sites
from jaxlint.model.expected import catches_type_error, raises_context
from jaxlint.model.flow import Flow, bound_names
from jaxlint.model.signature import bind
from jaxlint.model.traced import BODY_LABELS, Trace
from jaxlint.model.transfer import BLOCKS, MAPS, SAME_VALUES
from jaxlint.model.transforms import TABLE

from .evidence import whole_accessed

# a traced argument stays traced through these to the function: a ``vmap``'s unmapped argument
# (``in_axes=None``) is the caller's value, a mapped one a slice of it
_FEEDS = SAME_VALUES | MAPS | BLOCKS


def _open(callee) -> bool:
    """Is the callee a value only a frame of the function can tell (unknown without one, or
    a transform or ``partial`` of such a value)?"""
    for _ in range(8):
        if type(callee) is Transformed:
            callee = callee.target
        elif type(callee) is Partial:
            callee = callee.func
        else:
            break
    return callee is UNKNOWN or type(callee) is Opaque


# LEAF: a traced argument with no sign of being a container (a flag or number passed to jit)
ARRAY, TRACED, NUMPY, LEAF = 1, 2, 4, 8
MAX_FIELD_FRAMES = 4  # the frames ``pytree_child`` reads a receiver's value in
NONE = (0, None)
# the origin of a JAX array that a JAX operation computed while a staging transform runs the
# function (``Trace.stages``): a tracer whatever its operands (``jnp.sum(W)``, ``W`` a constant)
STAGED = "<staged>"

LOOP_COMPS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


def meet(a, b):
    flags = a[0] & b[0]
    return (flags, (a[1] or b[1]) if flags & TRACED else None)


def merge_envs(envs: list[dict]) -> dict:
    if not envs:
        return {}
    keys = set().union(*envs)
    return {k: _meet_all([e.get(k, NONE) for e in envs]) for k in keys}


def _meet_all(values):
    v = values[0]
    for w in values[1:]:
        v = meet(v, w)
    return v


@dataclass(slots=True)
class SetItem:
    stmt: cst.CSTNode  # the Assign / AugAssign
    target: cst.Subscript
    name: str | None  # the array's name when the target is ``name[...]``
    origin: str  # what made it a JAX array, for the message
    argument: str | None = None  # the traced argument of the function it is computed from


@dataclass(slots=True)
class BoolUse:
    node: cst.CSTNode  # reported node
    kind: str  # "if", "while", "ifexp", "and", "or", "not", "bool", "int", "float", "range"
    expr: cst.CSTNode  # the traced expression
    origin: str  # the traced argument it depends on
    trace: Trace


class ValueFlow(Flow):
    """The facts of one function (or module) body along the walk: array kinds and traced values."""

    def __init__(
        self,
        ctx,
        fn,
        trace: Trace | None,
        closure: dict | None,
        evidence: set[str],
        containers: Set[str] = frozenset(),
        updated: Set[str] = frozenset(),
    ):
        super().__init__(ctx)
        self.ev = ev = program(ctx).evaluator
        self.fn = fn
        self.trace = trace
        self.setitems: dict[cst.CSTNode, SetItem] = {}
        self.bools: dict[cst.CSTNode, BoolUse] = {}
        self.nested_env: dict[cst.CSTNode, dict] = {}
        # calls of a def of the file with traced arguments: (the def, the parameters they bind)
        # the defs of this file it calls with traced arguments: {callee's parameter: the traced origin}
        self.calls: list[tuple[cst.FunctionDef, dict[str, str]]] = []
        # ... and of a def of another module: (its reference, the parameters they bind)
        self.foreign_calls: list[tuple[str, set[str]]] = []
        # every such call: (the def, {its parameter: the origin of the traced argument it gets})
        self.edges: list[tuple[Function, dict[str, str]]] = []
        self._eager_blocks: bool | None = None  # may the file hold ``ensure_compile_time_eval`` blocks?
        self.origins: dict[str, str] = {}
        self.parts: dict[cst.Call, list[tuple[int, str | None]]] = {}  # facts of a call's tuple items
        self.evidence = evidence  # names the body uses the way only an array is used
        self.outer_trace: Trace | None = None  # for a def nested in a traced function
        env = dict(closure or {})
        if fn is not None and not isinstance(fn, cst.Module):
            params = list(fn.params.posonly_params) + list(fn.params.params) + list(fn.params.kwonly_params)
            for p in params + [s for s in (fn.params.star_arg, fn.params.star_kwarg) if isinstance(s, cst.Param)]:
                env.pop(p.name.value, None)
            annotated = {
                p.name.value
                for p in params
                if p.annotation is not None and annotated_array(ev, p.annotation.annotation)
            }
            refs = whole_accessed(ctx, fn) if annotated else set()  # read or written whole: Pallas refs
            operands = self.lax_operands(fn, trace)
            for i, p in enumerate(params):
                n = p.name.value
                flags = 0
                if i < len(operands) and operands[i] and trace is not None:
                    flags |= ARRAY
                    self.origins[n] = f"passed by `{trace.api}` to its body as a traced array"
                elif n in annotated and n not in refs:
                    flags |= ARRAY
                    self.origins[n] = f"annotated `{ctx.code(p.annotation.annotation)}`"
                elif n in updated:
                    flags |= ARRAY
                    self.origins[n] = f"`{_fname(fn)}` updates it with `{n}.at[...]`"
                if trace is not None and n in trace.params and trace.arrays_only:
                    # ``eqx.filter_jit``: an array is traced, a pytree at its array leaves
                    flags |= TRACED
                    if n not in trace.pytrees:
                        flags |= ARRAY | LEAF
                        self.origins.setdefault(n, f"an array argument of `{_fname(fn)}`, traced by `{trace.api}`")
                elif trace is not None and n in trace.params:
                    flags |= TRACED
                    if n not in containers and n not in evidence:
                        flags |= LEAF
                    if n in evidence:
                        flags |= ARRAY
                        self.origins.setdefault(n, f"a traced argument of `{_fname(fn)}` ({trace.api})")
                if flags:
                    env[n] = (flags, n if flags & TRACED else None)
        self.env = env

    # -- expressions ----------------------------------------------------------------
    def fact(self, e):
        env = self.env
        t = type(e)
        if t is cst.Name:
            f = env.get(e.value)
            if f is not None:
                return f
            # a name the walk does not track (a module constant): the model's value, where
            # an operation on it would be staged (``W.max()``, ``W[0]`` under jit)
            if self.staged_at(e) and _made_array(self.ev.value(e, None)):
                return (ARRAY, None)
            return NONE
        if t is cst.Call:
            return self._call_fact(e)
        if t is cst.BinaryOperation:
            a, b = self.fact(e.left), self.fact(e.right)
            if (a[0] | b[0]) & TRACED:
                return (ARRAY | TRACED, a[1] or b[1])
            # a JAX array's operators return JAX arrays (NumPy defers to them too)
            if ((a[0] | b[0]) & ARRAY and not isinstance(e.operator, (cst.BitOr, cst.BitAnd))) or (
                a[0] & ARRAY and b[0] & ARRAY
            ):
                return self.operation((ARRAY, None), e)
            return NONE
        if t is cst.Comparison:
            if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in e.comparisons):
                return NONE
            parts = [e.left] + [c.comparator for c in e.comparisons]
            if any(_is_str_or_none(p) for p in parts):
                return NONE
            facts = [self.fact(p) for p in parts]
            for f in facts:
                if f[0] & TRACED:
                    return (ARRAY | TRACED, f[1])
            if any(f[0] & (ARRAY | NUMPY) == ARRAY for f in facts):  # a JAX array's comparison
                return self.operation((ARRAY, None), e)
            return NONE
        if t is cst.UnaryOperation:
            if isinstance(e.operator, cst.Not):
                return NONE
            f = self.fact(e.expression)
            return self.operation(f, e) if f[0] & ARRAY else NONE
        if t is cst.Subscript:
            f = self.fact(e.value)
            if f[0] & NUMPY:
                return NONE
            return self.operation(f, e)
        if t is cst.Attribute:
            f = self.fact(e.value)
            if e.attr.value in ARRAY_ATTRS:
                return self.operation(f, e) if f[0] & ARRAY else NONE
            if f[0] & TRACED and not f[0] & ARRAY and self.pytree_child(e):
                return (TRACED, f[1])  # ``state.pos`` of a traced ``NamedTuple``: a traced leaf
            return NONE
        if t is cst.IfExp:
            return meet(self.fact(e.body), self.fact(e.orelse))
        if t is cst.NamedExpr:
            return self.fact(e.value)
        if t is cst.GeneratorExp or t is cst.ListComp:
            return self._comprehension_fact(e)
        if t is cst.Tuple or t is cst.List or t is cst.Dict:  # a container of a traced value is a traced pytree
            for el in e.elements:
                if type(el) in (cst.StarredElement, cst.StarredDictElement):
                    continue
                f = self.fact(el.value)
                if f[0] & TRACED:
                    return (TRACED, f[1])
            return NONE
        return NONE

    def _comprehension_fact(self, e) -> tuple[int, str | None]:
        """A comprehension over a traced pytree's leaves (``jnp.sum(g**2) for g in
        jax.tree.leaves(grads)``) gives traced elements when its element expression is
        traced for a traced item: a traced pytree of them."""
        with self.comprehension_scope(e):
            item = self.fact(e.elt)
        return (TRACED, item[1]) if item[0] & TRACED else NONE

    @contextmanager
    def comprehension_scope(self, e):
        """The comprehension's targets bound to its iterables' items (``bind_items``), for
        what runs inside it; the enclosing facts restored after."""
        saved = dict(self.env)
        try:
            clause = e.for_in
            while clause is not None:
                self.bind_items(clause.target, clause.iter)
                clause = clause.inner_for_in
            yield
        finally:
            self.env = saved

    def check_comprehension(self, e) -> None:
        """The boolean uses inside a comprehension: its iterables, ``if`` clauses and element."""
        self.expressions(e.for_in.iter)  # evaluated in the enclosing scope
        with self.comprehension_scope(e):
            clause = e.for_in
            while clause is not None:
                if clause is not e.for_in:
                    self.expressions(clause.iter)
                for c in clause.ifs:
                    self.check_bool(c.test, "if", c.test)
                clause = clause.inner_for_in
            for part in (e.key, e.value) if type(e) is cst.DictComp else (e.elt,):
                self.expressions(part)

    def _call_fact(self, e: cst.Call):
        func = e.func
        kind = made_by(self.ev, e)
        q = qualified(self.ev, func)
        if q in _FOLDS:
            # ``sum(jnp.sum(g**2) for g in leaves)``: Python adds (compares) the traced items
            origin = self._traced_arg(e)
            return (TRACED, origin) if origin else NONE
        if kind is not None or q is not None:
            if kind == "numpy":
                return (NUMPY, None)
            if kind == "pytree":
                origin = self._traced_arg(e)
                return (TRACED, origin) if origin else NONE
            if kind == "array":
                origin = self._traced_arg(e)
                return self.operation((ARRAY | (TRACED if origin else 0), origin), e)
            return NONE
        # a call of a def, lambda or transformed function of the code: what the evaluator
        # says it returns (an array computed from a traced argument is traced)
        self.traced_call(e)
        callee = self.ev.value(func, None)
        ours = type(callee) in (Function, Partial, Transformed, Wraps) or (
            type(callee) is Bound and type(callee.func) is Function
        )
        fn = self.fn
        frame = self.plain_frame(fn) if isinstance(fn, (cst.FunctionDef, cst.Lambda)) else None
        v = self.ev.value(e, frame) if ours else UNKNOWN
        if type(v) is Array:
            fact = _array_fact(v, None if v.host else self._traced_arg(e))
            return self.operation(fact, e) if _made_array(v) else fact
        # what a derivative (or a traced, mapped function) gives is JAX arrays computed from
        # its arguments: from traced ones, traced (``grads = jax.grad(loss)(params)``), and
        # from any while a staging transform runs this function
        derived = type(callee) is Transformed and TABLE[callee.api].gives in _GIVES_ARRAYS
        if type(v) in (Tuple, List) and v.items:
            origin = self._traced_arg(e) or (STAGED if derived and self.staged_at(e) else None)
            # each part on its own, for unpacking: ``loss, grads = value_and_grad(f)(w)`` gives a
            # traced scalar ``loss`` even when the structure of ``grads`` is unknown
            self.parts[e] = [
                (TRACED, origin)
                if derived and origin and type(x) is not Array
                else self.operation(_array_fact(x, origin), e)
                if _made_array(x)
                else _array_fact(x, origin)
                for x in v.items
            ]
            if derived or all(type(x) is Array and not x.host for x in v.items):
                return (TRACED, origin) if origin else NONE  # a pytree of arrays
        elif derived:
            origin = self._traced_arg(e) or (STAGED if self.staged_at(e) else None)
            if origin:
                return (TRACED, origin)
        if isinstance(func, cst.Attribute):
            name = func.attr.value
            if (
                at_method(name)
                and isinstance(func.value, cst.Subscript)
                and isinstance(func.value.value, cst.Attribute)
                and func.value.value.attr.value == "at"
            ):
                base = self.fact(func.value.value.value)
                origin = base[1] or self._traced_arg(e)
                return self.operation((ARRAY | (TRACED if origin else 0), origin), e) if base[0] & ARRAY else NONE
            if name in ARRAY_METHODS:
                base = self.fact(func.value)
                if base[0] & ARRAY:
                    origin = base[1] or self._traced_arg(e)
                    return self.operation((ARRAY | (TRACED if origin else 0), origin), e)
        return NONE

    def operation(self, fact: tuple[int, str | None], e) -> tuple[int, str | None]:
        """What a JAX operation ``e`` gives, with ``fact`` what its operands make of it: while
        a staging transform runs the function (jit, a lax body), every JAX array an operation
        computes is a tracer, even from constants (``STAGED``)."""
        if fact[0] & (ARRAY | TRACED | NUMPY) != ARRAY or not self.staged_at(e):
            return fact
        return (fact[0] | TRACED, STAGED)

    def staged_at(self, e) -> bool:
        """Does a JAX operation at ``e`` run staged: under a staging transform
        (``Trace.stages``), outside a ``with jax.ensure_compile_time_eval():`` block?"""
        trace = self.trace or self.outer_trace
        if trace is None or not trace.stages:
            return False
        if self._eager_blocks is None:  # the file's text, read once per walk
            self._eager_blocks = "ensure_compile_time_eval" in self.ctx.source
        if not self._eager_blocks:
            return True
        for a in self.ctx.ancestors(e):
            if a is self.fn:
                break
            if type(a) is cst.With and any(
                type(i.item) is cst.Call and qualified(self.ev, i.item.func) == "jax.ensure_compile_time_eval"
                for i in a.items
            ):
                return False
        return True

    def traced_call(self, e: cst.Call) -> None:
        """Record a call of a def of the code that passes traced arguments (``calls``,
        ``foreign_calls``): the def the call runs (through ``partial``, a bound method, an
        instance's ``__call__``: ``model.contexts.called_function``) and the parameters
        its traced arguments bind."""
        if self.quiet or not e.args or any(a.star for a in e.args):
            return
        callee = self.ev.value(e.func, None)
        if type(callee) is External:
            return  # a library's function: no def of the code
        facts = [self.fact(a.value) for a in e.args]
        if not any(f[0] & TRACED for f in facts):
            return
        marks = [(_Mark(i), a.keyword.value if a.keyword is not None else None, "") for i, a in enumerate(e.args)]
        found = called_function(self.ev, callee, marks, _FEEDS)
        if found is None and _open(callee) and isinstance(self.fn, (cst.FunctionDef, cst.Lambda)):
            # a callee the function's calls give it (a factory's parameter: ``clip`` in
            # ``make_update(loss, GlobalNormClip(1.0))``; ``SCHEDULES[name]`` with a static
            # ``name`` the calls leave at its default; ``jax.vmap(model)`` of a parameter
            # ``model``): what the first frame that knows says
            for frame in self.frames_of(self.fn):
                found = called_function(self.ev, self.ev.value(e.func, frame), marks, _FEEDS)
                if found is not None:
                    break
        if found is None or type(found[0].node) is not cst.FunctionDef:
            return
        fn, args = found
        sig = self.ev.signature(fn)
        if sig is None:
            return
        b = bind(sig, args)
        if b.error is not None:
            return
        origins = {
            name: facts[v.index][1] or ""
            for name, v in b.arguments.items()
            if type(v) is _Mark and facts[v.index][0] & TRACED
        }
        passed = set(origins)
        if not passed:
            return
        if all(f is not fn or o != origins for f, o in self.edges):
            self.edges.append((fn, origins))
        node = fn.node
        assert type(node) is cst.FunctionDef  # checked above
        other = fn.program
        if other is None or other is program(self.ctx):
            if (node, origins) not in self.calls:
                self.calls.append((node, origins))
            return
        qualname = other.ctx.qualname(node)
        if qualname is not None and other.ctx.enclosing_function(node) is None:
            ref = (other.ctx.facts.ref(qualname), passed)
            if ref not in self.foreign_calls:
                self.foreign_calls.append(ref)

    def pytree_child(self, e: cst.Attribute) -> bool:
        """Is ``e`` a field of a pytree node (a ``NamedTuple``, a dataclass pytree, an
        ``eqx.Module``) that is one of its children, not a static field? A transform
        traces every leaf below a traced argument, so that field is traced too. Read from
        the first frame of the function in which the model knows the value."""
        fn = self.fn
        if not isinstance(fn, (cst.FunctionDef, cst.Lambda)):
            return False
        name = e.attr.value
        trace = self.trace or self.outer_trace
        for frame in self.frames_of(fn)[:MAX_FIELD_FRAMES]:
            v = self.ev.value(e.value, frame)
            if type(v) is Struct:
                if trace is not None and trace.arrays_only:  # ``eqx.filter_jit``: its array leaves alone
                    return v.kind == "pytree" and name not in v.static and type(v.get(name)) is Array
                return v.kind == "pytree" and name not in v.static and any(k == name for k, _ in v.fields)
            if v is not UNKNOWN and type(v) is not Opaque:
                return False
        return False

    def frames_of(self, fn) -> list:
        """The frames ``fn`` runs in: its visible calls', and for a def nested in a factory
        (a jitted ``update`` that ``make_update(loss, clip)`` returns), its own parameters
        unbound inside each frame of the factory's calls."""
        return [*contexts(self.ev, fn, importers=True), *enclosing_frames(self.ev, fn, importers=True)]

    def _traced_arg(self, e: cst.Call) -> str | None:
        for a in e.args:
            f = self.fact(a.value)
            if f[0] & TRACED:
                return f[1]
        return None

    # -- the walk's hooks (jaxlint.model.flow) ----------------------------------------
    def join(self, envs):
        return merge_envs(envs)

    def expression(self, e) -> None:
        self.expressions(e)

    def test(self, e, kind) -> None:
        self.check_bool(e, kind, e)

    def unbind(self, target) -> None:
        self.bind_target(target, NONE)

    def decided(self, test) -> bool | None:
        """A test on a flag the traced application binds to a constant (``Trace.fixed``:
        ``jit(partial(f, exact=False))``, then ``if exact:`` or ``exact and ...``)."""
        trace = self.trace
        if trace is None or not trace.fixed:
            return None
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            inner = self.decided(test.expression)
            return None if inner is None else not inner
        if type(test) is cst.Name and test.value in trace.fixed and test.value not in self.env:
            return bool(trace.fixed[test.value])
        return None

    def _dead(self, e) -> set:
        """The parts of ``e`` that never run under the trace: the right side of an ``and``
        (``or``) whose left side is decided false (true), the untaken arm of a decided
        conditional expression."""
        out: set = set()
        if self.trace is None or not self.trace.fixed:
            return out
        prune = (cst.Lambda, cst.FunctionDef, cst.ClassDef, *LOOP_COMPS)
        for n in [e, *self.ctx.descendants(e, prune=prune)]:
            if n in out:
                continue
            dead = None
            if type(n) is cst.BooleanOperation:
                if self._right_never_runs(n):
                    dead = n.right
            elif type(n) is cst.IfExp:
                test = self.decided(n.test)
                dead = None if test is None else n.orelse if test else n.body
            if dead is not None:
                out.add(dead)
                out.update(self.ctx.descendants(dead, prune=prune))
        return out

    def _right_never_runs(self, n: cst.BooleanOperation) -> bool:
        """Is the left side of ``and`` decided false (of ``or``, true), so the right never runs?"""
        return self.decided(n.left) is (type(n.operator) is cst.Or)

    def loop_target(self, node, target) -> None:
        self.bind_items(target, node.iter)

    def bind_items(self, target, iterable) -> None:
        """Bind a ``for`` target (of a statement or a comprehension) to what iterating
        ``iterable`` gives: a traced array's rows and a traced pytree's parts are traced;
        ``d.items()`` of a traced dict gives its keys (static) with traced values,
        ``enumerate`` a count with the items, ``zip`` the items of each argument."""
        parts = self._item_parts(iterable)
        if parts is not None and isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == len(parts):
            for el, part in zip(target.elements, parts, strict=True):
                if isinstance(el, cst.StarredElement):
                    self.bind_target(el.value, NONE)
                else:
                    self.bind_target(el.value, part, known=True)
            return
        self.bind_target(target, self._item_fact(iterable) if parts is None else NONE, known=True)

    def _item_fact(self, iterable) -> tuple[int, str | None]:
        """What one item of ``iterable`` is: traced when the iterable is."""
        if type(iterable) is cst.Call and isinstance(iterable.func, cst.Attribute) and not iterable.args:
            method = iterable.func.attr.value
            if method in ("values", "keys"):
                base = self.fact(iterable.func.value)
                return (TRACED, base[1]) if method == "values" and base[0] & TRACED else NONE
        f = self.fact(iterable)
        if not f[0] & TRACED:
            return NONE
        return (f[0] & (ARRAY | TRACED), f[1])

    def _item_parts(self, iterable) -> list[tuple[int, str | None]] | None:
        """The parts of each item, for an iterable whose items are tuples the model knows
        (``d.items()``, ``enumerate(xs)``, ``zip(xs, ys)``); None for any other."""
        if type(iterable) is not cst.Call or any(a.star or a.keyword is not None for a in iterable.args):
            return None
        func = iterable.func
        if isinstance(func, cst.Attribute) and func.attr.value == "items" and not iterable.args:
            base = self.fact(func.value)
            return [NONE, (TRACED, base[1]) if base[0] & TRACED else NONE]
        q = qualified(self.ev, func)
        if q == "builtins.enumerate" and len(iterable.args) == 1:
            return [NONE, self._item_fact(iterable.args[0].value)]
        if q == "builtins.zip" and iterable.args:
            return [self._item_fact(a.value) for a in iterable.args]
        return None

    def quiet_block(self, s) -> bool:
        if type(s) is cst.With:
            return any(raises_context(self.ctx, i) for i in s.items)
        return any(catches_type_error(self.ctx, h) for h in s.handlers)

    def define(self, s) -> None:
        self.nested_env[s] = dict(self.env)

    def first_iteration(self):
        return dict(self.setitems), dict(self.bools)

    def repeats(self, body) -> bool:
        return True  # findings come from the second walk only, with the loop's facts merged in

    def next_iteration(self, before, after, mark):
        self.setitems, self.bools = mark
        return merge_envs([before, after])

    def small(self, s) -> None:
        t = type(s)
        if t is cst.Assign:
            self.expressions(s.value)
            value = self.fact(s.value)
            for target in s.targets:
                self.setitem(s, target.target, None)
                self.bind_target(target.target, value, s.value)
        elif t is cst.AnnAssign:
            if s.value is not None:
                self.expressions(s.value)
                value = self.fact(s.value)
                if isinstance(s.target, cst.Name) and annotated_array(self.ev, s.annotation.annotation):
                    value = (value[0] | ARRAY, value[1])
                self.setitem(s, s.target, None)
                self.bind_target(s.target, value, s.value)
        elif t is cst.AugAssign:
            self.expressions(s.value)
            if isinstance(s.target, cst.Subscript):
                self.setitem(s, s.target, s.operator)
            elif isinstance(s.target, cst.Name):
                cur = self.env.get(s.target.value, NONE)
                other = self.fact(s.value)
                flags = cur[0] & (ARRAY | NUMPY)
                if (cur[0] | other[0]) & TRACED and not cur[0] & NUMPY:
                    self.env[s.target.value] = (flags | ARRAY | TRACED, cur[1] or other[1])
                else:
                    self.env[s.target.value] = (flags, None)
        elif t is cst.Expr or (t is cst.Return and s.value is not None):
            self.expressions(s.value)
            if type(s.value) is cst.Call:
                self.fact(s.value)  # what it calls (``traced_call``)
        elif t is cst.Assert:
            self.expressions(s.test)
        elif t is cst.Del:
            for n in bound_names(s.target):
                self.env.pop(n, None)
        elif t in (cst.Global, cst.Nonlocal):
            for item in s.names:
                self.env.pop(item.name.value, None)

    def bind(self, target, value) -> None:
        if isinstance(target, cst.Name):
            if value[0] & TRACED and target.value in self.evidence:
                value = (value[0] | ARRAY, value[1])
            if value[0]:
                self.env[target.value] = value
            else:
                self.env.pop(target.value, None)
        else:
            self.bind_target(target, NONE)

    def bind_target(self, target, value, source=None, known: bool = False) -> None:
        """Bind ``target`` to ``value``, the fact of ``source`` (its expression, when
        there is one) or, ``known``, of what is unpacked (a part of a call's result, a
        loop's item): the parts of a traced value are traced."""
        if isinstance(target, cst.Name):
            self.bind(target, value)
            if source is not None and value[0] & ARRAY and not value[0] & TRACED:
                self.origins[target.value] = f"made by `{_short(self.ctx.code(source))}`"
        elif isinstance(target, (cst.Tuple, cst.List)):
            values = None
            parts = self.parts.get(source) if type(source) is cst.Call else None
            if isinstance(source, (cst.Tuple, cst.List)) and len(source.elements) == len(target.elements):
                values = [self.fact(el.value) for el in source.elements]
            elif parts is not None and len(parts) == len(target.elements):
                values = parts
            elif (source is not None or known) and value[0] & TRACED:
                # unpacking a traced pytree (a scan carry): its parts are traced, arrays or not
                values = [(TRACED, value[1])] * len(target.elements)
            for i, el in enumerate(target.elements):
                inner = el.value
                if isinstance(el, cst.StarredElement):
                    self.bind_target(inner, NONE)
                elif values is not None:
                    part = source.elements[i].value if isinstance(source, (cst.Tuple, cst.List)) else None
                    self.bind_target(inner, values[i], part, known=part is None)
                else:
                    self.bind_target(inner, NONE)

    def setitem(self, stmt, target, op) -> None:
        if not isinstance(target, cst.Subscript) or self.quiet:
            return
        base = self.fact(target.value)
        if base[0] & ARRAY and not base[0] & NUMPY:
            name = target.value.value if isinstance(target.value, cst.Name) else None
            origin = self.origins.get(name, "") if name else ""
            argument = base[1] if base[0] & TRACED and base[1] else None
            if argument and not origin:
                origin = f"computed from `{argument}`, a traced argument of `{_fname(self.fn)}` ({self.trace.api if self.trace else 'traced'})"
            self.setitems[stmt] = SetItem(stmt, target, name, origin, argument)
        elif not base[0] & NUMPY:
            found = self.evaluated_array(target.value)
            if found is not None:
                name = target.value.value if isinstance(target.value, cst.Name) else None
                self.setitems[stmt] = SetItem(stmt, target, name, found)

    def evaluated_array(self, e) -> str | None:
        """Is ``e`` a JAX array by the evaluator's value of it, with no call in view or in a
        visible call of the function (``contexts``)? The origin for the message, or None.
        An array known only by identity (a parameter whose body reads ``.shape``, as a Pallas
        ``Ref``'s does) is no proof: the array must have been made (``origin`` None)."""
        ev = self.ev
        fn = self.fn
        if not isinstance(fn, (cst.FunctionDef, cst.Lambda)):
            return "" if _made_array(ev.value(e, None)) else None
        if _made_array(ev.value(e, self.plain_frame(fn))):
            return ""
        for frame in contexts(ev, fn, importers=True):
            calls = sites(frame)  # none: the frame that binds nothing (the guesses above)
            if calls and _made_array(ev.value(e, frame)):
                first = calls[0]
                line = self.ctx.exact_lines([first]).get(first) if isinstance(first, cst.CSTNode) else None
                return f"as called at line {line}" if line else "in a call of it in this file"
        return None

    # -- boolean contexts -----------------------------------------------------------
    def expressions(self, e) -> None:
        """Check the boolean uses inside an expression (comprehensions with their targets
        bound; not inside lambdas, checked on their own)."""
        if (self.trace is None and not any(v[0] & TRACED for v in self.env.values())) or isinstance(e, cst.Lambda):
            return  # a lambda's body is checked on its own, with its own parameters
        nodes = [e, *self.ctx.descendants(e, prune=(cst.Lambda, cst.FunctionDef, cst.ClassDef, *LOOP_COMPS))]
        dead = self._dead(e)
        for n in nodes:
            if n in dead:
                continue
            t = type(n)
            if t is cst.Call:
                self.traced_call(n)  # a helper it runs with traced arguments runs traced
            if t in LOOP_COMPS:
                self.check_comprehension(n)
            elif t is cst.IfExp:
                self.check_bool(n.test, "ifexp", n.test)
            elif t is cst.BooleanOperation:
                kind = "and" if isinstance(n.operator, cst.And) else "or"
                self.check_bool(n.left, kind, n.left, nested=False)
            elif t is cst.UnaryOperation and isinstance(n.operator, cst.Not):
                self.check_bool(n.expression, "not", n, nested=False)
            elif (
                t is cst.Call
                and isinstance(n.func, cst.Name)
                and n.func.value in ("bool", "int", "float")
                and qualified(self.ev, n.func) == f"builtins.{n.func.value}"
                and len(n.args) == 1
                and n.args[0].keyword is None
                and not n.args[0].star
            ):
                self.check_bool(n.args[0].value, n.func.value, n)
            elif (
                t is cst.Call
                and isinstance(n.func, cst.Name)
                and n.func.value == "range"
                and qualified(self.ev, n.func) == "builtins.range"
                and all(a.keyword is None and not a.star for a in n.args)
            ):
                for a in n.args:  # each bound is taken as a Python int (``__index__``)
                    self.check_bool(a.value, "range", n)

    def check_bool(self, test, kind, report_at, nested=True) -> None:
        if self.quiet:
            return
        if nested:
            self.expressions(test)
        if isinstance(test, cst.BooleanOperation) and kind in ("if", "while", "ifexp", "bool"):
            self.check_bool(test.left, kind, test.left, nested=False)
            if not self._right_never_runs(test):
                self.check_bool(test.right, kind, test.right, nested=False)
            return
        if (
            isinstance(test, cst.UnaryOperation)
            and isinstance(test.operator, cst.Not)
            and kind in ("if", "while", "ifexp")
        ):
            self.check_bool(test.expression, kind, test.expression, nested=False)
            return
        f = self.fact(test)
        needs = TRACED if kind in ("int", "float", "range") else ARRAY | TRACED
        leaf = isinstance(test, cst.Name) and f[0] & (LEAF | TRACED) == LEAF | TRACED
        if (f[0] & needs == needs or leaf) and f[1] and report_at not in self.bools:
            trace = self.trace or self.outer_trace
            if trace is not None:
                self.bools[report_at] = BoolUse(report_at, kind, test, f[1], trace)

    def lax_operands(self, fn, trace: Trace | None) -> list[bool]:
        """Per positional parameter of a lax body, is it a JAX array? A lax loop or
        branch passes its body the operands it is given (``fori_loop``'s ``init_val`` as the
        carry) as traced JAX arrays, NumPy arrays and Python numbers included; what the
        catalogue's result rule passes, for the call evaluated in its function's frame."""
        if trace is None or trace.api not in BODY_LABELS or type(trace.node) is not cst.Call:
            return []
        outer = self.ctx.enclosing_function(trace.node)
        frame = self.plain_frame(outer) if isinstance(outer, (cst.FunctionDef, cst.Lambda)) else None
        calls = self.ev.operands(trace.node, fn, frame)
        if not calls:
            return []
        width = min(len(c) for c in calls)
        found = [all(type(c[i]) is Array for c in calls) for i in range(width)]
        scope = program(self.ctx).scope_of_node.get(fn)
        if scope is not None and scope.parent is not None and scope.parent.kind == "class" and not fn.decorators:
            return [False, *found]  # a method given bound (``self.body``): its receiver is no operand
        return found

    def plain_frame(self, fn):
        """A frame for ``fn`` (and the defs around it) in which a parameter with no annotation
        the model reads is opaque: no guess from how the body uses it (the evaluator's "reads ``.shape``, so
        an array" is no proof of a JAX array). A method's receiver stays unbound: its
        instance's attributes are what its class stores."""
        outer = self.ctx.enclosing_function(fn)
        parent = self.plain_frame(outer) if outer is not None else None
        params = [*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params]
        scope = program(self.ctx).scope_of_node.get(fn)
        method = scope is not None and scope.parent is not None and scope.parent.kind == "class"
        label = fn.name.value if isinstance(fn, cst.FunctionDef) else "<lambda>"
        bound = {}
        for i, p in enumerate(params):
            if method and i == 0 and p in fn.params.params[:1]:
                continue
            name = p.name.value
            promised = (
                annotated_value(self.ev, p.annotation.annotation, f"{label}.{name}", name, fn)
                if p.annotation is not None
                else UNKNOWN
            )
            if promised is UNKNOWN:  # no annotation, or one the model does not read (a class)
                bound[name] = Opaque(f"{label}.{name}", name)
        return self.ev.frame(fn, bound, parent)


_GIVES_ARRAYS = frozenset({"grad", "jacobian", "value", "map"})
_FOLDS = frozenset({"builtins.sum", "builtins.max", "builtins.min", "builtins.abs"})  # of traced items: traced


@dataclass(frozen=True, slots=True)
class _Mark:
    """An argument of a call by its position, bound as a value to see which parameter gets it."""

    index: int


def _array_fact(v, origin: str | None) -> tuple[int, str | None]:
    """The fact of one part of a call's result: a JAX array (traced when the call had a
    traced argument), a NumPy array, or nothing known."""
    if type(v) is not Array:
        return NONE
    if v.host:
        return (NUMPY, None)
    return (ARRAY | (TRACED if origin else 0), origin)


def _made_array(v) -> bool:
    return type(v) is Array and not v.host and v.origin is None


def _is_str_or_none(e) -> bool:
    return isinstance(e, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)) or (
        isinstance(e, cst.Name) and e.value == "None"
    )


def _fname(fn) -> str:
    if isinstance(fn, cst.FunctionDef):
        return fn.name.value
    if isinstance(fn, cst.Lambda):
        return "<lambda>"
    return "<module>"


def _short(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
