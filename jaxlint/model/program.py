"""The program model of one file: the API every rule reads (see docs/writing-rules.md,
"The program model")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN
from jaxlint.base.literals import literal as leaf_literal
from jaxlint.base.names import canonical

from .forwarding import forwarded_call
from .scopes import Binding, Scope, ScopeBuilder, reaching_in
from .stubs import GRADS as STUB_GRADS
from .transfer import SAME_ARGUMENTS
from .transforms import PARTIAL, SCOPES, TRANSPARENT_DECORATORS, named
from .transforms import TRANSFORMS as JAX_TRANSFORMS
from .values import (
    External,
    Function,
    Parameter,
    Partial,
    Transformed,
    apply_transform,
    is_partial,
    is_transform,
    same,
)

# Transforms whose result calls the function they wrap with the same arguments (``grad(f)(x)``
# calls ``f(x)``: the differentiated arguments as tracers of the same shapes and dtypes).
FORWARDING_TRANSFORMS = SAME_ARGUMENTS
# ... and those that pass as many positional arguments on, sliced.
MAPPING_TRANSFORMS = named(gives="map")
# ``jax.jit(f).trace(*args)`` and ``.lower(*args)`` pass the arguments on like a call.
TRACING_METHODS = frozenset({"trace", "lower", "eval_shape"})
# Calls that call their first argument with the primals: spread after it, or as a tuple.
PRIMALS_SPREAD = named("call", primals="spread")
PRIMALS_TUPLE = named("call", primals="tuple")
_DEPTH = 40
_PASSED = object()  # _receiver_reads: the receiver given as an argument
# methods that change a list or dict in place
MUTATORS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update", "setdefault", "popitem"}
)


def _is_store(parents: dict[cst.CSTNode, cst.CSTNode], sub: cst.Subscript) -> bool:
    """Is ``sub`` written to (``x[i] = v``, ``x[i] += v``, ``del x[i]``, a ``for`` target)?"""
    node: cst.CSTNode = sub
    parent = parents.get(node)
    while parent is not None and type(parent) in (cst.Element, cst.Tuple, cst.List, cst.StarredElement):
        node, parent = parent, parents.get(parent)
    if type(parent) is cst.AssignTarget:
        return True
    if isinstance(parent, (cst.AugAssign, cst.AnnAssign, cst.For)) and parent.target is node:
        return True
    return type(parent) is cst.Del


if TYPE_CHECKING:
    from .evaluate import Evaluator, World


class Program:
    """Bindings, values and call sites of one file, read through a few methods."""

    def __init__(self, ctx, world: World | None = None) -> None:
        self.ctx = ctx
        self._world = world
        self.parents = ctx.parents
        b = ScopeBuilder(ctx.module, ctx._events, ctx.parents, ctx.names)
        self.module_scope: Scope = b.module_scope
        self.scope_of_node = b.scope_of_node
        self._reads = b.reads
        self._reads_by_name = b.reads_by_name
        self._local_reads: dict[tuple[int, str], list[cst.Name]] | None = None
        self._reaching: dict[cst.Name, list[Binding]] = {}
        self._values: dict[cst.CSTNode, Any] = {}
        self._literals: dict[cst.CSTNode, Any] = {}
        self._depth = 0
        self._by_value: dict[cst.CSTNode, Binding | None] | None = None
        self._by_item: dict[tuple[cst.CSTNode, int], Binding] | None = None
        self._applications: list[Transformed] | None = None
        # the transforms each def's decorators apply, innermost first (also below an
        # unknown decorator that makes the def's own value UNKNOWN)
        self._decorator_apps: dict[cst.FunctionDef, list[Transformed]] = {}
        self._primal_calls: dict[cst.Call, cst.Call | None] = {}
        self._runners: dict[tuple[cst.ClassDef, str], str | None] = {}  # see _runner
        self._receivers: dict[cst.ClassDef, list[tuple[Any, cst.CSTNode]]] = {}  # see _receiver_reads

    @property
    def evaluator(self) -> Evaluator:
        """The semantic model's evaluator of this file (see jaxlint.model.evaluate)."""
        ev = self.__dict__.get("_evaluator")
        if ev is None:
            from .evaluate import Evaluator, World

            if self._world is None:  # the linted file's program: its world's home
                self._world = World(self.ctx.load_module, self.ctx.load_importer)
                self._world.home = (self.ctx.facts.module, self)
            ev = self.__dict__["_evaluator"] = Evaluator(self, self._world)
        return ev

    def release(self) -> None:
        """Once the file is linted: break the model's reference cycles (a scope and its
        bindings, the program and its evaluator, the world's memos and the programs of
        the modules it read), so that the file's model and tree are freed by reference
        counting when the file is over, not by a collection over all of them. The
        program is not used after this."""
        world, self._world = self._world, None
        for s in {id(s): s for s in self.scope_of_node.values()}.values():
            s.bindings.clear()
        self.__dict__.clear()
        if world is not None:
            world.release()

    # ------------------------------------------------------------------------------
    # bindings
    # ------------------------------------------------------------------------------
    def reaching(self, name: cst.Name) -> list[Binding]:
        """The bindings that can be the value of the name read at ``name`` (empty: unknown).
        Memoised: the rules and the model ask for the same reads many times over."""
        found = self._reaching.get(name)
        if found is None:
            r = self._reads.get(name)
            found = self._reaching[name] = [] if r is None else self._lookup(r.scope, name.value, r.path, r.index)
        return found

    def binding(self, name: cst.Name) -> Binding | None:
        """The one binding a read can see, or None when there are several or none."""
        found = self.reaching(name)
        return found[0] if len(found) == 1 else None

    def _lookup(self, scope: Scope, name: str, path, index) -> list[Binding]:
        if name in scope.globals:
            return self._at_end(self.module_scope, name)
        if name in scope.nonlocals:
            return self._at_end(scope.parent, name) if scope.parent is not None else []
        if name in scope.bindings:
            found = reaching_in(scope, name, path, index)
            if found or scope.kind != "class":
                return found  # a local of a function is never its enclosing scope's name
        return self._at_end(self._enclosing(scope), name)

    def _at_end(self, scope: Scope | None, name: str) -> list[Binding]:
        """A free variable: read when the function runs, after its defining scope ran."""
        while scope is not None:
            if name in scope.bindings:
                return reaching_in(scope, name, (), scope.end)
            scope = self._enclosing(scope)
        return []

    @staticmethod
    def _enclosing(scope: Scope) -> Scope | None:
        s = scope.parent
        while s is not None and s.kind == "class":
            s = s.parent  # class bodies are not seen from the functions inside them
        return s

    def later_in_loop(self, read: cst.Name, bindings: list[Binding]) -> set[Binding]:
        """Those of ``bindings`` that reach ``read`` only from a later iteration of a loop
        around it (bound after it in the loop body)."""
        r = self._reads.get(read)
        if r is None:
            return set()
        return {b for b in bindings if b.scope is r.scope and b.index > r.index}

    def mutated_before(self, read: cst.Name, bindings: list[Binding]) -> bool:
        """May a list or dict that ``bindings`` give the name have been changed in place
        (``xs[i] = v``, ``del xs[i]``, ``xs += ...``, ``xs.append(v)`` and the other
        mutating methods) before ``read`` runs? Yes for a mutation earlier in the scope,
        or later in a loop around the read (the next iteration sees it)."""
        r = self._reads.get(read)
        if r is None:
            return True
        for b in bindings:
            for m in self._mutations(b):
                mr = self._reads.get(m)
                if mr is None or mr.scope is not r.scope:
                    return True  # in a nested function: may run at any time
                if mr.index < r.index:
                    return True
                loops = [arm[0] for arm in r.path if isinstance(arm[0], (cst.For, cst.While)) and arm[1] == 0]
                if any(arm[0] in loops for arm in mr.path):
                    return True
        return False

    def _mutations(self, b: Binding) -> list[cst.Name]:
        """The reads of ``b``'s name that may be ``b`` and change its value in place."""
        memo = self.__dict__.setdefault("_mutation_memo", {})
        if b in memo:
            return memo[b]
        out = [r for r in self._candidate_reads(b) if self._changes(r) and b in self.reaching(r)]
        memo[b] = out
        return out

    def _changes(self, read: cst.Name) -> bool:
        """Does this read change its value in place: a store, ``del`` or augmented
        assignment through it (``xs[i] = v``, also through an element: ``m[i][j] = v``,
        ``rows[0].x = v``), or a mutating method of it or of an element (``xs[0].append(v)``)?"""
        parents = self.parents
        node: cst.CSTNode = read
        through = False  # reached an element (subscripted at least once)
        while True:
            parent = parents.get(node)
            t = type(parent)
            if t is cst.Subscript and parent.value is node:
                if _is_store(parents, parent):
                    return True
                node, through = parent, True
            elif t is cst.Attribute and parent.value is node:
                call = parents.get(parent)
                if parent.attr.value in MUTATORS and type(call) is cst.Call and call.func is parent:
                    return True
                if not through:
                    return False  # ``xs.attr``: a method or field of the container, not an element
                if type(call) is cst.AssignTarget or (type(call) is cst.AugAssign and call.target is parent):
                    return True
                node = parent
            else:
                return t is cst.AugAssign and parent.target is node

    def references(self, b: Binding) -> tuple[list[cst.Name], bool]:
        """(reads that can only be ``b``, True when no other read may also be ``b``)."""
        sure, complete = [], True
        for read in self._candidate_reads(b):
            found = self.reaching(read)
            if b in found:
                if len(found) == 1:
                    sure.append(read)
                else:
                    complete = False
        return sure, complete

    def _candidate_reads(self, b: Binding) -> Sequence[cst.Name]:
        """The reads of ``b``'s name that may be ``b``: a local is read only inside its scope
        and the scopes nested in it (cheap to rule out, unlike ``reaching``). Indexed by scope
        once: scanning every same-named read for each binding was quadratic (500 defs with a
        parameter ``x``)."""
        if b.scope is self.module_scope:
            return self._reads_by_name.get(b.name, ())
        if self._local_reads is None:
            index: dict[tuple[int, str], list[cst.Name]] = {}
            for name, reads in self._reads_by_name.items():
                for read in reads:
                    r = self._reads.get(read)
                    s = r.scope if r is not None else None
                    while s is not None and s is not self.module_scope:
                        index.setdefault((id(s), name), []).append(read)
                        s = s.parent
            self._local_reads = index
        return self._local_reads.get((id(b.scope), b.name), ())

    def binding_of_value(self, node: cst.CSTNode) -> Binding | None:
        """The binding a whole right-hand side (``name = node``) or a def creates."""
        if self._by_value is None:
            by: dict[cst.CSTNode, Binding | None] = {}
            for s in {id(s): s for s in self.scope_of_node.values()}.values():
                for bs in s.bindings.values():
                    for x in bs:
                        if x.kind in ("def", "class"):
                            by[x.node] = x
                        elif x.value is not None and not x.unpack and x.kind in ("assign", "walrus"):
                            if x.value in by:
                                by[x.value] = None  # ``a = b = f(x)``: two names
                            else:
                                by[x.value] = x
            self._by_value = by
        return self._by_value.get(node)

    # ------------------------------------------------------------------------------
    # values
    # ------------------------------------------------------------------------------
    def value(self, expr: cst.CSTNode | None) -> Any:
        """What ``expr`` evaluates to (see jaxlint.model.values), or UNKNOWN."""
        if expr is None:
            return UNKNOWN
        memo = self._values
        if expr in memo:
            return memo[expr]
        if self._depth > _DEPTH:
            return UNKNOWN
        memo[expr] = UNKNOWN  # cycles evaluate to UNKNOWN
        self._depth += 1
        try:
            v = self._value(expr)
        finally:
            self._depth -= 1
        memo[expr] = v
        return v

    def _value(self, expr: cst.CSTNode) -> Any:
        if type(expr) is cst.Name:
            found = self.reaching(expr)
            if not found:
                return UNKNOWN
            return same([self.value_of_binding(b) for b in found])
        if type(expr) is cst.Attribute:
            base = self.value(expr.value)
            if type(base) is External:
                q = f"{base.qualified}.{expr.attr.value}"
                return External(canonical(q))
            if type(base) is Parameter:
                return self._method(base, expr.attr.value)
            return UNKNOWN
        if type(expr) is cst.Lambda:
            return Function(expr)
        if type(expr) is cst.FunctionDef:
            return self._decorated(expr)
        if type(expr) is cst.Call:
            return self._call(expr)
        if type(expr) is cst.Subscript:
            inner = self.element(expr)
            return self.value(inner) if inner is not None else UNKNOWN
        return UNKNOWN

    def value_of_binding(self, b: Binding) -> Any:
        if b.kind == "def":
            return self.value(b.node)
        if b.kind == "import":
            q = b.imported or ""
            return External(canonical(q))
        if b.kind == "param":
            return Parameter(b)
        if b.kind in ("assign", "walrus") and b.value is not None:
            expr = self.unpacked(b.value, b.unpack)
            return self.value(expr) if expr is not None else UNKNOWN
        return UNKNOWN

    def _method(self, receiver: Parameter, attr: str) -> Any:
        """``self.method`` inside a class: the method defined in that class body."""
        b = receiver.binding
        fn_scope = b.scope
        cls = fn_scope.parent
        if cls is None or cls.kind != "class" or not isinstance(fn_scope.node, cst.FunctionDef):
            return UNKNOWN
        params = fn_scope.node.params
        first = (params.posonly_params or params.params or (None,))[0]
        if first is None or first is not b.node:
            return UNKNOWN
        found = reaching_in(cls, attr, (), cls.end)
        return same([self.value_of_binding(x) for x in found])

    def _decorated(self, node: cst.FunctionDef) -> Any:
        cur: Any = Function(node)
        made = self._decorator_apps.setdefault(node, [])
        for dec in reversed(node.decorators):
            d = self.value(dec.decorator)
            if is_transform(d):
                cur = apply_transform(d.qualified, cur, dec.decorator, [], decorator=True)
                made.append(cur)
            elif type(d) is Partial and is_transform(d.func):
                cur = apply_transform(d.func.qualified, cur, dec.decorator, d.arg_nodes, decorator=True)
                made.append(cur)
            elif type(d) is External and d.qualified in STUB_GRADS:  # ``@eqx.filter_value_and_grad``
                cur = apply_transform(STUB_GRADS[d.qualified], cur, dec.decorator, [], decorator=True)
                made.append(cur)
            elif type(d) is Partial and type(d.func) is External and d.func.qualified in STUB_GRADS:
                cur = apply_transform(STUB_GRADS[d.func.qualified], cur, dec.decorator, d.arg_nodes, decorator=True)
                made.append(cur)
            elif self._keeps_function(d, dec.decorator) or (
                type(dec.decorator) is cst.Name
                and dec.decorator.value in ("staticmethod", "classmethod")
                and not self.reaching(dec.decorator)
            ):
                continue
            else:
                return UNKNOWN
        return cur

    def _keeps_function(self, d: Any, expr: cst.BaseExpression) -> bool:
        """Does ``@expr`` (valued ``d``) leave the function callable as it is: ``@staticmethod``,
        or a call of a decorator factory that does (``@functools.wraps(fn)``, whose
        ``update_wrapper`` returns the function itself; ``@jax.named_scope("name")``), or a
        def whose wrapper calls the function with exactly its arguments
        (``forwarding.keeps_calls``)?"""
        keeping = TRANSPARENT_DECORATORS | SCOPES
        if type(d) is External and d.qualified in keeping:
            return True
        if type(expr) is cst.Call:
            f = self.value(expr.func)
            return type(f) is External and f.qualified in keeping
        # a decorator of the project whose wrapper calls the function with its own arguments
        # (a ``functools.wraps`` logging or timing wrapper), also one another module defines
        from .evaluate import NEVER_LOADED

        if type(d) is External and d.qualified.split(".")[0] not in NEVER_LOADED:
            d = self.evaluator.world.resolve(d.qualified)
        from .abstract import Function as AbstractFunction  # the evaluator's: with its program

        if type(d) in (Function, AbstractFunction) and type(d.node) is cst.FunctionDef:
            from .forwarding import keeps_calls

            home = getattr(d, "program", None) or self
            return keeps_calls(home, d.node)
        return False

    def _call(self, call: cst.Call) -> Any:
        f = self.value(call.func)
        args = list(call.args)
        positional = [a for a in args if a.keyword is None and not a.star]
        if is_transform(f):
            if not positional:
                return Partial(f, call, arg_nodes=args)  # ``jax.jit(static_argnums=0)`` style factory
            first = positional[0]
            rest = [a for a in args if a is not first]
            return apply_transform(f.qualified, self.value(first.value), call, rest, target_node=first.value)
        if is_partial(f):
            if not positional or positional[0] is not args[0]:
                return UNKNOWN
            inner = self.value(args[0].value)
            if inner is UNKNOWN:
                return UNKNOWN
            return Partial(inner, call, arg_nodes=args[1:])
        if type(f) is Partial and is_transform(f.func):
            if not positional:
                return UNKNOWN
            first = positional[0]
            rest = list(f.arg_nodes) + [a for a in args if a is not first]
            return apply_transform(f.func.qualified, self.value(first.value), call, rest, target_node=first.value)
        if type(f) is External and f.qualified in STUB_GRADS and not positional:
            return Partial(f, call, arg_nodes=args)  # ``@eqx.filter_value_and_grad(has_aux=True)``
        if type(f) is External and f.qualified in STUB_GRADS and positional and positional[0] is args[0]:
            # ``eqx.filter_value_and_grad(loss)``: the JAX grad its stub applies (``stubs.GRADS``)
            first = positional[0]
            rest = [a for a in args if a is not first]
            return apply_transform(
                STUB_GRADS[f.qualified], self.value(first.value), call, rest, target_node=first.value
            )
        if type(f) is Function and not isinstance(f.node, cst.Lambda):
            return self._returned(f.node)  # a factory: the closure it returns
        if type(f) is External and f.qualified in SCOPES:
            # ``named_scope("x")`` makes a decorator that keeps the function; ``annotate_function(f)`` is f
            given = self.value(positional[0].value) if positional else None
            return given if type(given) in (Function, Transformed, Partial) else f
        return UNKNOWN

    def _returned(self, fn: cst.FunctionDef) -> Any:
        returns = [n for n in self.ctx.descendants(fn) if type(n) is cst.Return]
        if not returns or any(r.value is None for r in returns):
            return UNKNOWN
        v = same([self.value(r.value) for r in returns])
        return v if type(v) in (Function, Transformed, Partial) else UNKNOWN

    def unpacked(self, expr: cst.BaseExpression, unpack: tuple[int, ...]) -> cst.BaseExpression | None:
        """The element of a tuple/list display that ``a, (b, c) = expr`` gives one name."""
        for k in unpack:
            display = self.display(expr)
            if display is None:
                return None
            els = display.elements
            if k >= len(els) or any(type(e) is cst.StarredElement for e in els[: k + 1]):
                return None
            expr = els[k].value
        return expr

    def display(self, expr: cst.BaseExpression) -> cst.Tuple | cst.List | None:
        """A tuple/list display, also through a name bound once to one."""
        found = self._through_names(expr, (cst.Tuple, cst.List))
        return found if isinstance(found, (cst.Tuple, cst.List)) else None

    def _through_names(self, expr: cst.BaseExpression, kinds: tuple[type, ...]) -> cst.BaseExpression | None:
        """``expr`` if it is one of ``kinds``, or what a name bound once by assignment (also
        through unpacking, name after name) holds, if that is; else None."""
        for _ in range(_DEPTH):
            if type(expr) in kinds:
                return expr
            if type(expr) is not cst.Name:
                return None
            b = self.binding(expr)
            if b is None or b.kind != "assign" or b.value is None:
                return None
            inner = self.unpacked(b.value, b.unpack)
            if inner is None:
                return None
            expr = inner
        return None

    def element(self, sub: cst.Subscript) -> cst.BaseExpression | None:
        """``t[1]`` / ``d['w']`` with a literal key on a visible display, else None."""
        if len(sub.slice) != 1 or type(sub.slice[0].slice) is not cst.Index:
            return None
        key = self.literal(sub.slice[0].slice.value)
        if key is UNKNOWN:
            return None
        if isinstance(key, int) and not isinstance(key, bool):
            d = self.display(sub.value)
            if d is None or any(type(e) is cst.StarredElement for e in d.elements):
                return None
            return d.elements[key].value if -len(d.elements) <= key < len(d.elements) else None
        if isinstance(key, str):
            mapping = self._dict_display(sub.value)
            if mapping is None:
                return None
            found = [e.value for e in mapping.elements if type(e) is cst.DictElement and self.literal(e.key) == key]
            return found[-1] if found else None
        return None

    def _dict_display(self, expr) -> cst.Dict | None:
        d = self._through_names(expr, (cst.Dict,))
        return d if isinstance(d, cst.Dict) and all(type(e) is cst.DictElement for e in d.elements) else None

    def origin(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """Where a name's value was built: follows names bound once, unpacking and literal
        indexing back to the last expression that is not one of those. For
        ``w, b = init(key)`` the origin of ``w`` is ``init(key)`` (unpacked: see origin_path)."""
        return self.origin_path(expr)[0]

    def origin_path(self, expr: cst.BaseExpression) -> tuple[cst.BaseExpression, tuple[int, ...]]:
        path: tuple[int, ...] = ()
        for _ in range(_DEPTH):
            if type(expr) is cst.Subscript:
                inner = self.element(expr)
                if inner is None:
                    return expr, path
                expr = inner
                continue
            if type(expr) is not cst.Name:
                return expr, path
            b = self.binding(expr)
            if b is None or b.kind not in ("assign", "walrus") or b.value is None:
                return expr, path
            inner = self.unpacked(b.value, b.unpack)
            if inner is None:
                return b.value, b.unpack + path
            expr = inner
        return expr, path

    # ------------------------------------------------------------------------------
    # literals
    # ------------------------------------------------------------------------------
    def literal(self, expr: cst.BaseExpression | None) -> Any:
        """The static value of ``expr`` (int, str, None, bool, tuple, list, dict) or UNKNOWN,
        following names to one binding, class constants (``Cls.X``), unpacking and indexing."""
        if expr is None:
            return UNKNOWN
        memo = self._literals
        if expr in memo:
            return memo[expr]
        memo[expr] = UNKNOWN
        self._depth += 1
        try:
            v = self._literal(expr) if self._depth <= _DEPTH else UNKNOWN
        finally:
            self._depth -= 1
        memo[expr] = v
        return v

    def _literal(self, expr) -> Any:
        return leaf_literal(expr, lookup=self._followed_literal, part=self.literal)

    def _followed_literal(self, expr) -> Any:
        """A name to its bindings (all must agree), ``t[k]`` to the element, ``Cls.X``."""
        t = type(expr)
        if t is cst.Name:
            found = self.reaching(expr)
            values = [self._binding_literal(b) for b in found]
            if not values or any(v is UNKNOWN for v in values):
                return UNKNOWN
            first = values[0]
            return first if all(v == first and type(v) is type(first) for v in values) else UNKNOWN
        if t is cst.Subscript:
            inner = self.element(expr)
            return self.literal(inner) if inner is not None else UNKNOWN
        if t is cst.Attribute and type(expr.value) is cst.Name:
            return self._class_constant(expr.value, expr.attr.value)
        return UNKNOWN

    def _binding_literal(self, b: Binding) -> Any:
        if b.kind not in ("assign", "walrus") or b.value is None:
            return UNKNOWN
        expr = self.unpacked(b.value, b.unpack)
        if expr is None:
            return UNKNOWN
        if type(expr) in (cst.List, cst.Dict) and self._mutated(b):
            return UNKNOWN
        return self.literal(expr)

    def _mutated(self, b: Binding) -> bool:
        """A list or dict may be filled in later (``d[k] = v``, ``xs.append(v)``): any read
        that indexes it or reaches for a method, or that may be it among others, counts."""
        reads, complete = self.references(b)
        if not complete:
            return True
        parents = self.parents
        return any(type(parents.get(r)) in (cst.Subscript, cst.Attribute) for r in reads)

    def _class_constant(self, cls_name: cst.Name, attr: str) -> Any:
        b = self.binding(cls_name)
        if b is None or b.kind != "class":
            return UNKNOWN
        scope = self.scope_of_node.get(b.node)
        if scope is None:
            return UNKNOWN
        values = [self._binding_literal(x) for x in reaching_in(scope, attr, (), scope.end)]
        if len(values) != 1:
            return UNKNOWN
        return values[0]

    # ------------------------------------------------------------------------------
    # transforms and call sites
    # ------------------------------------------------------------------------------
    def applications(self, api: str | None = None) -> list[Transformed]:
        """Every transform application of the file (calls, decorators, ``partial(api, ...)(f)``),
        in text order; only those of ``api`` when given."""
        if self._applications is None:
            from jaxlint.model.transforms import TRANSFORMS

            shorts = {q.rsplit(".", 1)[-1] for q in (*TRANSFORMS, *STUB_GRADS)} | {"partial"}
            found: list[Transformed] = []
            seen: set[int] = set()
            for node, entering in self.ctx._events:
                if not entering:
                    continue
                t = type(node)
                if t is cst.FunctionDef and node.decorators:
                    self.value(node)
                    for x in self._decorator_apps.get(node, ()):
                        if id(x) not in seen:
                            seen.add(id(x))
                            found.append(x)
                elif t is cst.Call:
                    f = node.func
                    tf = type(f)
                    last = (
                        f.value
                        if tf is cst.Name
                        else f.attr.value
                        if tf is cst.Attribute
                        else ("partial" if tf is cst.Call else None)
                    )
                    if last not in shorts:
                        continue
                    v = self.value(node)
                    if type(v) is Transformed and v.node is node and id(v) not in seen:
                        seen.add(id(v))
                        found.append(v)
            self._applications = found
        if api is None:
            return self._applications
        return [a for a in self._applications if a.api == api]

    def invocations(
        self, node: cst.CSTNode, through_maps: bool = False, callees: bool = False, forwarders: bool = False
    ) -> tuple[list[cst.Call], bool]:
        """Where the value made at ``node`` (a transform call or decorator, a lambda, a def)
        is called: ``(calls, complete)``; complete is False when it may also escape (passed
        on, stored, called through a name that can mean something else). ``through_maps``:
        also the calls of an outer ``vmap``/``pmap`` of it (same number of positional
        arguments, but sliced values). ``callees``: a value passed from ``node``'s unit to a
        def of another unit of the module is followed into it too (for rules whose slicer
        reading keeps the defs a seed calls: ``reads = "calls"``). ``forwarders``: a value
        passed to a def that calls it with its ``*args`` is called there with the caller's
        trailing arguments (model/forwarding.py; for rules with ``reads = "forwarders"``)."""
        self._through_maps = through_maps
        self._callee_unit = self.ctx.unit_of(node) if callees else None
        self._forwarders = forwarders
        self._returns_seen = []
        return self._invocations(node, 0)

    def factory_returns(self, node: cst.CSTNode) -> list[tuple[cst.FunctionDef, int | None]]:
        """The module-level defs that return the value made at ``node`` (``return step``:
        index None; ``return tx, step``: item 1), as ``invocations`` finds them: where
        another module calls such a factory, the value is called where its results are
        (``Program.result_calls``)."""
        self.invocations(node, callees=True, forwarders=True)
        return [(f, i) for f, i in self._returns_seen if type(self.parents.get(f)) is cst.Module]

    def result_calls(self, made: list[cst.Call], index: int | None) -> list[cst.Call]:
        """The calls of what the calls ``made`` of a factory return (item ``index`` of it):
        ``step = make_step(cfg)`` then ``step(w, x)``, or ``tx, step = make(cfg)`` then
        ``step(w, x)``."""
        self._through_maps, self._callee_unit, self._forwarders = False, None, True
        return self._result_calls(made, index, 0)

    def instance_method_calls(self, made: list[cst.Call], cls: cst.ClassDef, name: str) -> list[cst.Call]:
        """The calls of the method ``name`` of ``cls`` (a class of another module) through
        the instances this file's calls ``made`` construct: ``runner = Runner(cfg)`` then
        ``runner.fit(...)``, ``Runner(cfg).fit(...)``, or in a def the instance is passed to."""
        self._through_maps, self._callee_unit, self._forwarders = False, None, True
        calls: list[cst.Call] = []
        for construction in made:  # ``Runner(cfg).fit(...)``
            self._add_method_call(cls, name, construction, calls)
        self._instances_as_receivers(cls, name, made, calls, 0)
        return calls

    def _result_calls(self, made: list[cst.Call], index: int | None, depth: int) -> list[cst.Call]:
        calls: list[cst.Call] = []
        for m in made:
            if index is None:
                found = self._invocations(m, depth + 1)[0]
            else:
                found = self._calls_of(self.binding_of_item(m, index), depth + 1)[0]
            calls += [c for c in found if c not in calls]
        return calls

    _through_maps = False
    _callee_unit = None
    _forwarders = False
    _returns_seen: list[tuple[cst.FunctionDef, int | None]] = []  # noqa: RUF012 (set per walk)

    def _invocations(self, node: cst.CSTNode, depth: int) -> tuple[list[cst.Call], bool]:
        if depth > 8:
            return [], False
        parents = self.parents
        parent = parents.get(node)
        if type(parent) is cst.Call and parent.func is node:
            return [parent], True
        if type(parent) is cst.Attribute and parent.value is node and parent.attr.value in TRACING_METHODS:
            gp = parents.get(parent)
            if type(gp) is cst.Call and gp.func is parent:
                return [gp], True
            return [], False
        if type(parent) is cst.Arg and parent.keyword is None and not parent.star:
            call = parents.get(parent)
            if type(call) is cst.Call and call.args and call.args[0] is parent:
                v = self.value(call)
                if (
                    type(v) is Transformed
                    and v.node is call
                    and (v.api in FORWARDING_TRANSFORMS or (self._through_maps and v.api in MAPPING_TRANSFORMS))
                ):
                    return self._invocations(call, depth + 1)
                if type(v) is Partial and v.node is call:
                    # ``partial(f, ...)``: f runs where the partial is called (with the
                    # bound arguments first: the call contexts splice them in)
                    return self._invocations(call, depth + 1)
                primal = self._primal_call(call)
                if primal is not None:
                    return [primal], False
                if self._wraps_first_argument(call):
                    return self._invocations(call, depth + 1)
            if type(call) is cst.Call:
                made = forwarded_call(self, call, parent) if self._forwarders else None
                if made is not None:  # ``apply(f, x, y)`` that calls ``f(*args)``: model/forwarding.py
                    return [made], True
                return self._calls_of(self._parameter_fed(call, parent), depth)[0], False
            return [], False
        if type(parent) is cst.Arg and parent.keyword is not None:
            call = parents.get(parent)
            if type(call) is cst.Call:
                return self._calls_of(self._parameter_fed(call, parent), depth)[0], False
            return [], False
        if type(parent) is cst.Decorator:
            fn = parents.get(parent)
            if type(fn) is not cst.FunctionDef:
                return [], False
            if fn.decorators[0] is not parent and not self._outer_decorators_keep(fn, node):
                return [], False  # other decorators wrap it again, in a way not known to forward the call
            return self._calls_of(self.binding_of_value(fn), depth)
        if type(parent) is cst.Return and parent.value is node:
            return self._returned_calls(parent, None, depth), False
        if type(parent) is cst.Element and type(display := parents.get(parent)) is cst.Tuple:
            assert isinstance(display, cst.Tuple)
            ret = parents.get(display)
            if type(ret) is cst.Return and ret.value is display:
                return self._returned_calls(ret, display.elements.index(parent), depth), False
            return [], False
        stored = self._stored_on_receiver(node)
        if stored is not None:  # ``self.step = jax.jit(self._step)``: where ``self.step(...)`` runs
            return self._method_calls_of(*stored, depth), False
        return self._calls_of(self.binding_of_value(node), depth)

    def _wraps_first_argument(self, call: cst.Call) -> bool:
        """Is ``call``'s value a callable that, called, calls its first argument with the
        same arguments: a JAX transform of it that a function makes (a library's, as its
        stub says: ``eqx.filter_value_and_grad(loss)``; a factory of the project's:
        ``compile(loss)`` returning ``jax.jit(fn)``), or the wrapper of a decorator of the
        project that forwards its ``*args`` (``forwarding.keeps_calls``)?"""
        from .abstract import Function as AbstractFunction
        from .abstract import Transformed as AbstractTransformed
        from .forwarding import keeps_calls

        ev = self.evaluator
        f = ev.value(call.func, None)
        if type(f) is AbstractFunction and type(f.node) is cst.FunctionDef and keeps_calls(f.program or self, f.node):
            return True
        if type(f) is External and (f.qualified in JAX_TRANSFORMS or f.qualified in PARTIAL):
            return False  # JAX's own transforms: ``value`` reads them
        made = ev.value(call, None)
        apis = FORWARDING_TRANSFORMS | MAPPING_TRANSFORMS if self._through_maps else FORWARDING_TRANSFORMS
        return (
            type(made) is AbstractTransformed
            and made.api in apis
            and made.target is not UNKNOWN
            and made.target == ev.value(call.args[0].value, None)
        )

    def _stored_on_receiver(self, node: cst.CSTNode) -> tuple[cst.ClassDef, str] | None:
        """``(cls, name)`` when ``node`` is the one value the methods of ``cls`` store in
        ``self.name`` (``self._step = jax.jit(self._train_step)`` in ``__init__``)."""
        from .attributes import instance_attribute, stores_of

        parent = self.parents.get(node)
        if type(parent) is not cst.Assign or parent.value is not node or len(parent.targets) != 1:
            return None
        target = parent.targets[0].target
        key = instance_attribute(self, target) if type(target) is cst.Attribute else None
        if key is None or stores_of(self, key.cls, key.name) != [node]:
            return None
        return key.cls, key.name

    def _returned_calls(self, ret: cst.Return, index: int | None, depth: int) -> list[cst.Call]:
        """A value a def returns (``return step``, or item ``index`` of ``return tx, step``)
        is called where the results of the def's calls are: ``step = make_step(cfg)`` then
        ``step(w, x)``, or ``tx, step = make(cfg)`` then ``step(w, x)``."""
        factory = self.ctx.enclosing_function(ret)
        if type(factory) is not cst.FunctionDef:
            return []
        self._returns_seen.append((factory, index))
        return self._result_calls(self._invocations(factory, depth + 1)[0], index, depth)

    def binding_of_item(self, node: cst.CSTNode, index: int) -> Binding | None:
        """The binding an unpacking ``a, b = node`` makes of item ``index`` of ``node``."""
        if self._by_item is None:
            by: dict[tuple[cst.CSTNode, int], Binding] = {}
            for s in {id(s): s for s in self.scope_of_node.values()}.values():
                for bs in s.bindings.values():
                    for x in bs:
                        if x.value is not None and len(x.unpack) == 1 and x.kind == "assign":
                            by[(x.value, x.unpack[0])] = x
            self._by_item = by
        return self._by_item.get((node, index))

    def imported_calls(self, qualified: str) -> list[cst.Call]:
        """The calls of another module's def ``qualified`` (``model.mlp_apply``) in this
        file: through a name an import binds to it (``from model import mlp_apply``), or a
        dotted read from an imported module (``import model`` .. ``model.mlp_apply(...)``),
        and on from there as ``invocations`` follows a value."""
        memo: dict[str, list[cst.Call]] = self.__dict__.setdefault("_imported_call_memo", {})
        if qualified not in memo:
            memo[qualified] = self._imported_calls(qualified)
        return memo[qualified]

    def _imported_calls(self, qualified: str) -> list[cst.Call]:
        self._through_maps, self._callee_unit, self._forwarders = False, None, True
        calls: list[cst.Call] = []
        scopes = {id(s): s for s in (self.module_scope, *self.scope_of_node.values())}
        for scope in scopes.values():
            for bs in scope.bindings.values():
                for b in bs:
                    if b.kind != "import" or b.imported is None:
                        continue
                    if b.imported == qualified:
                        calls += self._calls_of(b, 0)[0]
                    elif qualified.startswith(b.imported + "."):
                        for read in self.references(b)[0]:
                            node = self._dotted_read(read, qualified[len(b.imported) + 1 :].split("."))
                            if node is not None:
                                calls += self._invocations(node, 0)[0]
        return calls

    def imported_item_calls(self, qualified: str) -> list[cst.Call]:
        """The calls of an item of another module's container ``qualified``
        (``boundary.BOUNDARIES``) in this file: ``BOUNDARIES[bc](h, hu)``, through a name an
        import binds to it or a dotted read from its imported module."""
        reads: list[cst.CSTNode] = []
        for scope in {id(s): s for s in (self.module_scope, *self.scope_of_node.values())}.values():
            for bs in scope.bindings.values():
                for b in bs:
                    if b.kind != "import" or b.imported is None:
                        continue
                    if b.imported == qualified:
                        reads += self.references(b)[0]
                    elif qualified.startswith(b.imported + "."):
                        attrs = qualified[len(b.imported) + 1 :].split(".")
                        reads += [n for r in self.references(b)[0] if (n := self._dotted_read(r, attrs)) is not None]
        return self._item_calls(reads)

    def local_item_calls(self, name: str) -> list[cst.Call]:
        """The calls of an item of the module-level container ``name`` of this file, bound
        once (``ALLOCATORS[method](w, x)`` of ``ALLOCATORS = {"std": euler_std}``)."""
        bs = self.module_scope.bindings.get(name, ())
        return self._item_calls(self.references(bs[0])[0]) if len(bs) == 1 else []

    def _item_calls(self, reads: Sequence[cst.CSTNode]) -> list[cst.Call]:
        """The calls ``read[...](...)`` of the reads."""
        calls = []
        for read in reads:
            sub = self.parents.get(read)
            call = self.parents.get(sub)
            if type(sub) is cst.Subscript and sub.value is read and type(call) is cst.Call and call.func is sub:
                calls.append(call)
        return calls

    def _dotted_read(self, read: cst.Name, attrs: list[str]) -> cst.Attribute | None:
        """The ``read.a.b`` of ``read`` whose attributes are ``attrs``, or None."""
        node: cst.CSTNode = read
        for attr in attrs:
            parent = self.parents.get(node)
            if type(parent) is not cst.Attribute or parent.value is not node or parent.attr.value != attr:
                return None
            node = parent
        return node if type(node) is cst.Attribute else None

    def _outer_decorators_keep(self, fn: cst.FunctionDef, node: cst.CSTNode) -> bool:
        """Do the decorators above ``node`` pass a call of the def on to what ``node`` made
        (signature-keeping ones: ``jax.named_scope(...)``, ``functools.wraps``; ``jit`` and,
        through maps, ``vmap``/``pmap``)?"""
        v = self.value(fn)
        while type(v) is Transformed and v.node is not node:
            if not (v.api in FORWARDING_TRANSFORMS or (self._through_maps and v.api in MAPPING_TRANSFORMS)):
                return False
            v = v.target
        return type(v) is Transformed and v.node is node

    def _primal_call(self, call: cst.Call) -> cst.Call | None:
        """``jax.vjp(f, x, y)`` (also ``linearize``, ``jvp(f, (x, y), ...)``,
        ``check_grads(f, (x, y), ...)``) calls ``f(x, y)``: that call, built once, with
        the real call as its parent (so ``with pytest.raises`` around it still counts)."""
        if call in self._primal_calls:
            return self._primal_calls[call]
        f = self.value(call.func)
        api = f.qualified if type(f) is External else None
        args: list[cst.Arg] | None = None
        rest = [a for a in call.args[1:] if a.keyword is None]
        if api in PRIMALS_SPREAD:
            args = rest
        elif api in PRIMALS_TUPLE and rest and not rest[0].star:
            display = rest[0].value
            if isinstance(display, (cst.Tuple, cst.List)):
                args = [
                    cst.Arg(value=e.value, star="*" if type(e) is cst.StarredElement else "") for e in display.elements
                ]
        made = None
        if args is not None and not any(a.star for a in args):
            made = cst.Call(func=call.args[0].value, args=args)
            self.parents[made] = call
        self._primal_calls[call] = made
        return made

    def written_call(self, call: cst.CSTNode) -> cst.CSTNode:
        """The call as the source writes it: ``jax.vjp(f, x, y)`` for the ``f(x, y)`` it makes
        (any other node is itself)."""
        made = self.parents.get(call)
        if type(made) is cst.Call and (
            self._primal_calls.get(made) is call or call in self.ctx.shared.get("model.forwarded_info", ())
        ):
            return made
        return call

    def _parameter_fed(self, call: cst.Call, arg: cst.Arg) -> Binding | None:
        """The parameter of a def that ``arg`` of ``call`` binds: a direct call
        ``g(..., f)`` / ``g(fn=f)``, or ``partial(g, ..., fn=f)``, where ``g`` is an
        undecorated def of the call's unit. None when unsure."""
        offset = 0
        v = self.value(call.func)
        if is_partial(v) and call.args and call.args[0] is not arg:
            v, offset = self.value(call.args[0].value), 1
        if type(v) is not Function or type(v.node) is not cst.FunctionDef or v.node.decorators:
            return None
        here = self.ctx.unit_of(call)
        if self.ctx.unit_of(v.node) is not here:
            if here is None or self._callee_unit is None:
                return None  # the slicer may blank a def in another unit: decide the same either way
            # the slicer keeps the defs a unit reached from the seed refers to (``train``
            # of ``train(loss)``: plan/slicing.py, ``callers = "direct"``)
            owner = self.binding_of_value(v.node)
            if owner is None or owner.scope.kind != "module":
                return None  # a method: its arguments start after ``self``
        ps = v.node.params
        if arg.keyword is not None:
            wanted = next((p for p in [*ps.params, *ps.kwonly_params] if p.name.value == arg.keyword.value), None)
        else:
            at = next(i for i, a in enumerate(call.args) if a is arg)
            before = call.args[offset:at]
            if any(a.star or a.keyword is not None for a in before):
                return None
            positional = [*ps.posonly_params, *ps.params]
            wanted = positional[len(before)] if len(before) < len(positional) else None
        if wanted is None:
            return None
        scope = self.scope_of_node.get(v.node)
        found = [b for b in (scope.bindings.get(wanted.name.value, ()) if scope else ()) if b.node is wanted]
        return found[0] if len(found) == 1 else None

    def _calls_of(self, b: Binding | None, depth: int) -> tuple[list[cst.Call], bool]:
        if b is not None and b.scope.kind == "class" and b.kind == "def":
            return self._method_calls(b, depth), False
        if b is None or b.scope.kind == "class":
            return [], False
        apis = FORWARDING_TRANSFORMS | MAPPING_TRANSFORMS if self._through_maps else FORWARDING_TRANSFORMS
        family = self.rewrapped(b, apis)
        if len(family) == 1:
            reads, complete = self.references(b)
        else:
            reads, complete = self._family_reads(family)
        calls: list[cst.Call] = []
        for r in reads:
            more, ok = self._invocations(r, depth + 1)
            calls += more
            complete = complete and ok
        return calls, complete and bool(reads)

    def _method_calls(self, b: Binding, depth: int) -> list[cst.Call]:
        """The calls of a method through the instances the module makes of its class and
        binds to a name (``model = Norm(...)``, then ``model(x)`` for ``__call__``,
        ``model.apply(x)``), and through the receiver of the class's own undecorated methods
        (``self.apply(x)``); never all of them: an instance may go anywhere."""
        cls = b.scope.node
        if type(cls) is not cst.ClassDef or depth > 4:
            return []
        calls: list[cst.Call] = []
        # and through the instances of the module's subclasses that inherit the method
        # (``kernel = RandomWalk(...)``, ``kernel.run(...)`` runs the base's ``run``)
        for k in [cls, *self._inheriting(cls, b.name)]:
            calls += [c for c in self._method_calls_of(k, b.name, depth) if c not in calls]
        return calls

    def _inheriting(self, cls: cst.ClassDef, name: str) -> list[cst.ClassDef]:
        """The classes of the module that derive from ``cls`` (directly or through one
        another) and do not bind ``name`` themselves: their instances run ``cls``'s."""
        classes = self.ctx.nodes_of(cst.ClassDef)
        out: list[cst.ClassDef] = []
        frontier = [cls]
        while frontier:
            parent = frontier.pop()
            for k in classes:
                if k is cls or k in out or not any(self._names_class(a.value, parent) for a in k.bases):
                    continue
                scope = self.scope_of_node.get(k)
                if scope is None or scope.bindings.get(name):
                    continue  # it overrides the method: its instances run its own
                out.append(k)
                frontier.append(k)
        return out

    def _names_class(self, expr: cst.BaseExpression, cls: cst.ClassDef) -> bool:
        if type(expr) is not cst.Name:
            return False
        found = self.reaching(expr)
        return len(found) == 1 and found[0].kind == "class" and found[0].node is cls

    def _method_calls_of(self, cls: cst.ClassDef, name: str, depth: int) -> list[cst.Call]:
        """``_method_calls`` through the instances of ``cls`` (the method's class, or a
        subclass that inherits it)."""
        owner = self.binding_of_value(cls)
        if owner is None:
            return []
        made, _ = self._calls_of(owner, depth + 1)
        calls: list[cst.Call] = []
        # the method read off the class itself (``jax.grad(Trainer.batch_loss)``, a
        # staticmethod; ``Base.loss(self, x)``): where that value is called
        for cls_read in self.references(owner)[0]:
            parent = self.parents.get(cls_read)
            if type(parent) is cst.Attribute and parent.value is cls_read and parent.attr.value == name:
                calls += [c for c in self._invocations(parent, depth + 1)[0] if c not in calls]
        # and the construction as the receiver itself (``Ensemble().predict(xs)``, ``Norm()(x)``)
        for construction in made:
            self._add_method_call(cls, name, construction, calls, depth)
        if name == "__init__":  # ``Sampler(cfg, target)`` runs ``__init__(self, cfg, target)``
            calls += made
        self._instances_as_receivers(cls, name, made, calls, depth)
        # and ``self.name(...)`` in the class's own methods
        for use, read in self._receiver_reads(cls):
            if use is _PASSED:
                self._through_parameter(cls, name, read, calls, depth)
            elif use == name or (use is None and name == "__call__") or self._runner(cls, use) is not None:
                self._add_method_call(cls, name, read, calls, depth)
        # and any ``x.name(...)`` whose receiver evaluates to an instance of the class
        # (``gp = Regressor(x).fit()`` where ``fit`` returns ``self``)
        for call in self._attribute_calls().get(name, ()):
            func = call.func
            if call not in calls and type(func) is cst.Attribute and self._instance_of(func.value, cls):
                calls.append(call)
        return calls

    def _instances_as_receivers(
        self, cls: cst.ClassDef, name: str, made: list[cst.Call], calls: list[cst.Call], depth: int
    ) -> None:
        """Add the calls of the method ``name`` of ``cls`` through the names the
        constructions ``made`` are bound to (``runner = Runner(cfg)`` then
        ``runner.fit(...)``), and through the defs those names are passed to."""
        for construction in made:
            instance = self.binding_of_value(construction)
            for r in self.references(instance)[0] if instance is not None else []:
                self._add_method_call(cls, name, r, calls, depth)
                self._through_parameter(cls, name, r, calls, depth)

    def _receiver_reads(self, cls: cst.ClassDef) -> list[tuple[Any, cst.CSTNode]]:
        """The reads of the receiver (``self``) in the class's own undecorated methods, in
        order, with what each does with it: an attribute's name (``self.fit``), None for a
        call of the receiver itself (``self(x)``), ``_PASSED`` for an argument
        (``rollout(self, key)``); reads that do none of these are left out. Once per class:
        every method's calls look through the same reads."""
        if cls in self._receivers:
            return self._receivers[cls]
        from .attributes import receiver_of

        out: list[tuple[Any, cst.CSTNode]] = []
        for stmt in cls.body.body if type(cls.body) is cst.IndentedBlock else ():
            first = receiver_of(self, stmt) if type(stmt) is cst.FunctionDef and not stmt.decorators else None
            if first is None:
                continue
            scope = self.scope_of_node.get(stmt)
            for x in scope.bindings.get(first.name.value, ()) if scope is not None else ():
                if x.kind != "param":
                    continue
                for r in self.references(x)[0]:
                    parent = self.parents.get(r)
                    t = type(parent)
                    if t is cst.Call and parent.func is r:
                        out.append((None, r))
                    elif t is cst.Attribute and parent.value is r:
                        out.append((parent.attr.value, r))
                    elif t is cst.Arg and not parent.star:
                        out.append((_PASSED, r))
        self._receivers[cls] = out
        return out

    def _runner(self, cls: cst.ClassDef, attr: str) -> str | None:
        """The library method of the class's bases that reading ``attr`` runs and that runs
        a method of the receiver (flax's ``apply``), when the class itself does not bind
        ``attr``; once per class and name."""
        scope = self.scope_of_node.get(cls)
        if scope is not None and scope.bindings.get(attr):
            return None
        key = (cls, attr)
        if key not in self._runners:
            from .abstract import Class
            from .classes import runs_method

            self._runners[key] = runs_method(self.evaluator, Class(cls, self), attr)
        return self._runners[key]

    def _through_parameter(
        self, cls: cst.ClassDef, method: str, read: cst.CSTNode, calls: list[cst.Call], depth: int
    ) -> None:
        """An instance passed to a def (``rollout(env, key)``): the calls of the method
        through the parameter it binds (``env.step(state, action)`` in ``rollout`` or a
        closure of it), and on through the defs that parameter is passed to in turn."""
        parent = self.parents.get(read)
        call = self.parents.get(parent) if type(parent) is cst.Arg and not parent.star else None
        if type(call) is not cst.Call or depth > 4:
            return
        param = self._parameter_fed(call, parent)
        if param is None:
            return
        reads, _ = self.references(param)
        for r in reads:
            self._add_method_call(cls, method, r, calls, depth + 1)
            self._through_parameter(cls, method, r, calls, depth + 1)

    def _attribute_calls(self) -> dict[str, list[cst.Call]]:
        """The module's calls of an attribute, by the attribute's name (``x.fit()``)."""
        if self._by_attribute is None:
            by: dict[str, list[cst.Call]] = {}
            for call in self.ctx.nodes_of(cst.Call):
                if type(call.func) is cst.Attribute:
                    by.setdefault(call.func.attr.value, []).append(call)
            self._by_attribute = by
        return self._by_attribute

    _by_attribute: dict[str, list[cst.Call]] | None = None

    def _instance_of(self, expr: cst.BaseExpression, cls: cst.ClassDef) -> bool:
        """Does ``expr`` evaluate to an instance of ``cls`` (not ``self`` of its own methods,
        which the methods' own calls cover)?"""
        from .abstract import Struct

        if type(expr) is cst.Name and expr.value == "self":
            return False
        ev = self.evaluator
        with ev.query(200):
            v = ev.value(expr, None)
        return type(v) is Struct and getattr(v.cls, "node", None) is cls

    def _add_method_call(
        self, cls: cst.ClassDef, method: str, instance: cst.CSTNode, calls: list[cst.Call], depth: int = 0
    ) -> None:
        """Add the call that runs ``method`` of ``cls`` through the expression ``instance``
        (an instance of it): ``instance(...)`` or ``instance.name(...)``."""
        parent = self.parents.get(instance)
        if type(parent) is cst.Call and parent.func is instance:
            call, attr = parent, None
        elif type(parent) is cst.Attribute and parent.value is instance:
            call, attr = self.parents.get(parent), parent.attr.value
            if type(call) is not cst.Call or call.func is not parent:
                if attr == method:
                    # the bound method as a value (``jax.grad(model.loss)``, ``f = model.loss``):
                    # where that is called (the call's frame binds ``self`` to the receiver)
                    calls.extend(c for c in self._invocations(parent, depth + 1)[0] if c not in calls)
                return
        else:
            return
        if self.method_run(cls, attr, call) == method:
            calls.append(call)

    def instance_class(self, b: Binding) -> cst.ClassDef | None:
        """The module's class a binding holds an instance of (``model = Norm(...)``)."""
        value = b.value
        if b.kind != "assign" or b.unpack or type(value) is not cst.Call or type(value.func) is not cst.Name:
            return None
        made = self.reaching(value.func)
        if len(made) != 1 or made[0].kind != "class" or type(made[0].node) is not cst.ClassDef:
            return None
        return made[0].node

    def method_run(self, cls: cst.ClassDef, attr: str | None, call: cst.Call | None = None) -> str | None:
        """The name of the method of ``cls`` that reading ``attr`` of an instance runs:
        ``__call__`` when the instance itself is called (``attr`` None), ``attr`` itself, or,
        for a library method of its bases that runs one, the one it runs (flax's
        ``model.apply(variables, x)``: ``__call__``, or what ``method=`` of ``call`` names);
        None when that cannot be read."""
        if attr is None:
            return "__call__"
        from .classes import RUNS_METHOD, runner_target

        runner = self._runner(cls, attr)
        if runner is None:
            return attr
        default = RUNS_METHOD[runner][0]
        return runner_target(call, default) if call is not None else default

    def rewrapped(self, b: Binding, apis: frozenset[str]) -> list[Binding]:
        """``b`` and the rebindings of its name that wrap it again in one of ``apis``
        (``op = jax.vmap(op, ...)`` in a loop, ``f = jax.jit(f)`` in one arm of an ``if``):
        a read that can see only these calls ``b``'s value with the arguments it is given,
        whichever of them it is. Each rebinding's inner name must see only the family."""
        if b.anywhere:
            return [b]
        inner = {
            x: self._rewrapped_name(x, apis)
            for x in b.scope.bindings.get(b.name, ())
            if x is not b and x.kind == "assign" and not x.unpack and type(x.value) is cst.Call and not x.anywhere
        }
        named = {x: name for x, name in inner.items() if name is not None}
        family = [b, *named]
        shrunk = True
        while shrunk and len(family) > 1:  # the largest family closed under "wraps only its members"
            shrunk = False
            for x in family[1:]:
                seen = self.reaching(named[x])
                if not seen or not all(y in family for y in seen):
                    family.remove(x)
                    shrunk = True
        return family

    def _rewrapped_name(self, x: Binding, apis: frozenset[str]) -> cst.Name | None:
        """The name ``x = api(name, ...)`` wraps again (same name as ``x``'s), or None."""
        v = self.value(x.value)
        t = v.target_node if type(v) is Transformed and v.node is x.value and v.api in apis else None
        return t if type(t) is cst.Name and t.value == x.name else None

    def _family_reads(self, family: list[Binding]) -> tuple[list[cst.Name], bool]:
        """The reads of a ``rewrapped`` family that can only be one of its bindings, except the
        names the family's own rebindings wrap; complete as in ``references``."""
        b = family[0]
        inner = {self.value(x.value).target_node for x in family[1:]}
        sure, complete = [], True
        for read in self._candidate_reads(b):
            found = self.reaching(read)
            if not any(x in family for x in found):
                continue
            if all(x in family for x in found):
                if read not in inner:
                    sure.append(read)
            else:
                complete = False
        return sure, complete

    # ------------------------------------------------------------------------------
    # functions
    # ------------------------------------------------------------------------------
    @staticmethod
    def target_function(v: Any) -> tuple[Function, int, list[str]] | None:
        """The function a transformed/partial value finally calls, with the positional
        arguments and keywords ``partial`` binds on the way: ``(Function, n, keywords)``."""
        bound = 0
        keywords: list[str] = []
        for _ in range(_DEPTH):
            if type(v) is Function:
                return v, bound, keywords
            if type(v) is Transformed:
                v = v.target
                continue
            if type(v) is Partial and not v.unknown:
                bound += sum(1 for a in v.arg_nodes if a.keyword is None and not a.star)
                keywords += [a.keyword.value for a in v.arg_nodes if a.keyword is not None]
                if any(a.star for a in v.arg_nodes):
                    return None
                v = v.func
                continue
            return None
        return None

    def forwarded(self, fn: Function) -> tuple[Any, list[int | None]] | None:
        """A small wrapper that only forwards its arguments: ``lambda x: model(params, x)`` or
        a def whose body is ``return g(...)``. Gives (what it calls, for each of the wrapper's
        positional parameters the callee's positional index it lands on, or None)."""
        node = fn.node
        body: cst.BaseExpression | None
        if type(node) is cst.Lambda:
            body = node.body
        else:
            stmts = node.body.body if type(node.body) is cst.IndentedBlock else []
            if (
                len(stmts) != 1
                or type(stmts[0]) is not cst.SimpleStatementLine
                or len(stmts[0].body) != 1
                or type(stmts[0].body[0]) is not cst.Return
            ):
                return None
            body = stmts[0].body[0].value
        if type(body) is not cst.Call or any(a.star for a in body.args):
            return None
        params = [p.name.value for p in (*node.params.posonly_params, *node.params.params)]
        where: list[int | None] = [None] * len(params)
        k = 0
        for a in body.args:
            if a.keyword is not None:
                continue
            if type(a.value) is cst.Name and a.value.value in params:
                b = self.binding(a.value)
                if b is not None and b.kind == "param" and b.scope.node is node:
                    where[params.index(a.value.value)] = k
            k += 1
        callee = self.value(body.func)
        if callee is UNKNOWN:
            return None
        return callee, where
