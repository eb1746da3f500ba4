"""Shared analysis of the JAX5xx family: the facts of an intra-function dataflow over one file.

Two questions, each answered per function (and for module-level code) by the model's
walk of the statements in order (``jaxlint.model.flow.Flow``), with branches merged so
that a fact holds after a join only if it holds on every path into it ("must" facts;
unknown means silent). What stays here is what is specific to the family: the facts,
how they join, and what each statement or call does to them.

- which local names are JAX arrays (``ARRAY``), NumPy arrays (``NUMPY``), and which
  values depend on a traced argument (``TRACED``) of a function that ``jit``, ``vmap``,
  ``pmap``, ``shard_map`` or a ``lax`` loop/branch body traces (the model answers which:
  ``jaxlint.model.traced``);
- where such a value meets Python ``if``/``while``/``and``/``or``/``not``/``bool``/
  ``int``/``float`` (``ValueFlow.bools``) and where a JAX array is assigned in place
  (``ValueFlow.setitems``).

Which PRNG keys are consumed twice (JAX502) is the key flow of ``keys.py``.

Everything here reads only the function's own unit (and, for the functions a transform
traces, the transform's application), so the results are the same with slicing on and
off.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from jaxlint.base.names import last_name
from jaxlint.model import program

if TYPE_CHECKING:
    from jaxlint.model.context import FileContext
from jaxlint.model.arrays import (
    ARRAY_ATTRS,
    ARRAY_METHODS,
    AT_METHODS,
    NOT_ARRAY,
    TAKES_SEQUENCES,
    annotated_array,
    call_kind,
    public_name,
)
from jaxlint.model.expected import expects_error, raises_context
from jaxlint.model.flow import Flow, bound_names
from jaxlint.model.traced import LAX_BODIES, TRACING, Trace, traced_functions

KEY = "JAX5"

# LEAF: a traced argument with no sign of being a container (a flag or number passed to jit)
ARRAY, TRACED, NUMPY, LEAF = 1, 2, 4, 8
NONE = (0, None)

# the calls above: what the slicer must follow to the traced defs
TRACING_APIS = (*TRACING, *LAX_BODIES)

# attribute uses that only an array has: evidence that a traced argument is an array
EVIDENCE_ATTRS = (ARRAY_METHODS - {"copy"}) | ARRAY_ATTRS | {"shape", "dtype", "ndim", "at", "size"}

LOOP_COMPS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


def exact_lines(ctx, nodes) -> dict:
    """Start lines of the nodes a message cites. ``ctx.lines`` places a text by its
    occurrences and can pick the wrong ``jit(f)`` in a file with many; only files with a
    finding get here, so an exact position pass is affordable."""
    return ctx.exact_lines(nodes)


def analysis(ctx) -> FileAnalysis:
    a = ctx.shared.get(KEY)
    if a is None:
        a = ctx.shared[KEY] = FileAnalysis(ctx)
    return a


def _callable_params(fn) -> list[cst.Param]:
    ps = fn.params
    return list(ps.posonly_params) + list(ps.params)


# --- value facts ---------------------------------------------------------------------------------


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


def _catches_type_error(ctx, t: cst.Try) -> bool:
    for h in t.handlers:
        if h.type is None:
            return True
        # ``except (*errors,)``: a starred element names no class here
        types = (
            [e.value for e in h.type.elements if isinstance(e, cst.Element)]
            if isinstance(h.type, cst.Tuple)
            else [h.type]
        )
        for v in types:
            name = last_name(v) or ""
            if (
                name in ("TypeError", "Exception", "BaseException")
                or ("Error" in name and "Tracer" in name)
                or name == "ConcretizationTypeError"
            ):
                return True
    return False


@dataclass(slots=True)
class SetItem:
    stmt: cst.CSTNode  # the Assign / AugAssign
    target: cst.Subscript
    name: str | None  # the array's name when the target is ``name[...]``
    origin: str  # what made it a JAX array, for the message


@dataclass(slots=True)
class BoolUse:
    node: cst.CSTNode  # reported node
    kind: str  # "if", "while", "ifexp", "and", "or", "not", "bool", "int", "float"
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
        self.fn = fn
        self.trace = trace
        self.setitems: dict[cst.CSTNode, SetItem] = {}
        self.bools: dict[cst.CSTNode, BoolUse] = {}
        self.nested_env: dict[cst.CSTNode, dict] = {}
        self.origins: dict[str, str] = {}
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
                if p.annotation is not None and annotated_array(ctx, p.annotation.annotation)
            }
            refs = whole_accessed(ctx, fn) if annotated else set()  # read or written whole: Pallas refs
            for p in params:
                n = p.name.value
                flags = 0
                if n in annotated and n not in refs:
                    flags |= ARRAY
                    self.origins[n] = f"annotated `{ctx.code(p.annotation.annotation)}`"
                elif n in updated:
                    flags |= ARRAY
                    self.origins[n] = f"`{_fname(fn)}` updates it with `{n}.at[...]`"
                if trace is not None and n in trace.params:
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
            return env.get(e.value, NONE)
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
                return (ARRAY, None)
            return NONE
        if t is cst.Comparison:
            if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in e.comparisons):
                return NONE
            parts = [e.left] + [c.comparator for c in e.comparisons]
            if any(_is_str_or_none(p) for p in parts):
                return NONE
            for p in parts:
                f = self.fact(p)
                if f[0] & TRACED:
                    return (ARRAY | TRACED, f[1])
            return NONE
        if t is cst.UnaryOperation:
            if isinstance(e.operator, cst.Not):
                return NONE
            f = self.fact(e.expression)
            return f if f[0] & ARRAY else NONE
        if t is cst.Subscript:
            f = self.fact(e.value)
            if f[0] & NUMPY:
                return NONE
            return f
        if t is cst.Attribute:
            if e.attr.value in ARRAY_ATTRS:
                f = self.fact(e.value)
                return f if f[0] & ARRAY else NONE
            return NONE
        if t is cst.IfExp:
            return meet(self.fact(e.body), self.fact(e.orelse))
        if t is cst.NamedExpr:
            return self.fact(e.value)
        return NONE

    def _call_fact(self, e: cst.Call):
        func = e.func
        q = public_name(self.ctx.resolve(func))
        if q is not None:
            kind = call_kind(q)
            if kind == "numpy":
                return (NUMPY, None)
            if kind == "pytree":
                origin = self._traced_arg(e)
                return (TRACED, origin) if origin else NONE
            if kind == "array":
                origin = self._traced_arg(e)
                return (ARRAY | (TRACED if origin else 0), origin)
            if q in ("jax.device_put",) and e.args and self.fact(e.args[0].value)[0] & ARRAY:
                return (ARRAY, None)
            return NONE
        if isinstance(func, cst.Attribute):
            name = func.attr.value
            if (
                name in AT_METHODS
                and isinstance(func.value, cst.Subscript)
                and isinstance(func.value.value, cst.Attribute)
                and func.value.value.attr.value == "at"
            ):
                base = self.fact(func.value.value.value)
                origin = base[1] or self._traced_arg(e)
                return (ARRAY | (TRACED if origin else 0), origin) if base[0] & ARRAY else NONE
            if name in ARRAY_METHODS:
                base = self.fact(func.value)
                if base[0] & ARRAY:
                    origin = base[1] or self._traced_arg(e)
                    return (ARRAY | (TRACED if origin else 0), origin)
        return NONE

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

    def quiet_block(self, s) -> bool:
        if type(s) is cst.With:
            return any(raises_context(i) for i in s.items)
        return _catches_type_error(self.ctx, s)

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
                if isinstance(s.target, cst.Name) and annotated_array(self.ctx, s.annotation.annotation):
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

    def bind_target(self, target, value, source=None) -> None:
        if isinstance(target, cst.Name):
            self.bind(target, value)
            if source is not None and value[0] & ARRAY and not value[0] & TRACED:
                self.origins[target.value] = f"made by `{_short(self.ctx.code(source))}`"
        elif isinstance(target, (cst.Tuple, cst.List)):
            values = None
            if isinstance(source, (cst.Tuple, cst.List)) and len(source.elements) == len(target.elements):
                values = [self.fact(el.value) for el in source.elements]
            elif source is not None and value[0] & TRACED:
                # unpacking a traced pytree (a scan carry): its parts are traced, arrays or not
                values = [(TRACED, value[1])] * len(target.elements)
            for i, el in enumerate(target.elements):
                inner = el.value
                if isinstance(el, cst.StarredElement):
                    self.bind_target(inner, NONE)
                elif values is not None:
                    part = source.elements[i].value if isinstance(source, (cst.Tuple, cst.List)) else None
                    self.bind_target(inner, values[i], part)
                else:
                    self.bind_target(inner, NONE)

    def setitem(self, stmt, target, op) -> None:
        if not isinstance(target, cst.Subscript) or self.quiet:
            return
        base = self.fact(target.value)
        if base[0] & ARRAY and not base[0] & NUMPY:
            name = target.value.value if isinstance(target.value, cst.Name) else None
            origin = self.origins.get(name, "") if name else ""
            if base[0] & TRACED and not origin and base[1]:
                origin = f"computed from `{base[1]}`, a traced argument of `{_fname(self.fn)}` ({self.trace.api if self.trace else 'traced'})"
            self.setitems[stmt] = SetItem(stmt, target, name, origin)

    # -- boolean contexts -----------------------------------------------------------
    def expressions(self, e) -> None:
        """Check the boolean uses inside an expression (not inside lambdas or comprehensions)."""
        if (self.trace is None and not any(v[0] & TRACED for v in self.env.values())) or isinstance(e, cst.Lambda):
            return  # a lambda's body is checked on its own, with its own parameters
        nodes = [e, *self.ctx.descendants(e, prune=(cst.Lambda, cst.FunctionDef, cst.ClassDef, *LOOP_COMPS))]
        for n in nodes:
            t = type(n)
            if t is cst.IfExp:
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
                and self.ctx.resolve(n.func) is None
                and len(n.args) == 1
                and n.args[0].keyword is None
                and not n.args[0].star
            ):
                self.check_bool(n.args[0].value, n.func.value, n)

    def check_bool(self, test, kind, report_at, nested=True) -> None:
        if self.quiet:
            return
        if nested:
            self.expressions(test)
        if isinstance(test, cst.BooleanOperation) and kind in ("if", "while", "ifexp", "bool"):
            self.check_bool(test.left, kind, test.left, nested=False)
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
        needs = TRACED if kind in ("int", "float") else ARRAY | TRACED
        leaf = isinstance(test, cst.Name) and f[0] & (LEAF | TRACED) == LEAF | TRACED
        if (f[0] & needs == needs or leaf) and f[1] and report_at not in self.bools:
            trace = self.trace or self.outer_trace
            if trace is not None:
                self.bools[report_at] = BoolUse(report_at, kind, test, f[1], trace)


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


SCALAR_ANNOTATIONS = frozenset({"bool", "int", "float", "complex"})


def container_evidence(ctx, fn) -> set[str]:
    """Parameters the body (or annotation) shows to be containers or objects: subscripted,
    iterated, unpacked, ``len()``-ed, tested with ``in``, called, or given a non-array attribute.
    A bare truth test on such a parameter is legal under ``jit`` (a dict stays a dict)."""
    out = set()
    params = list(fn.params.posonly_params) + list(fn.params.params) + list(fn.params.kwonly_params)
    for p in params:
        ann = p.annotation
        if (
            ann is not None
            and not annotated_array(ctx, ann.annotation)
            and not (isinstance(ann.annotation, cst.Name) and ann.annotation.value in SCALAR_ANNOTATIONS)
        ):
            out.add(p.name.value)
    names = {p.name.value for p in params}
    body = fn.body
    nodes = [body, *ctx.descendants(body, prune=(cst.ClassDef,))]
    for n in nodes:
        t = type(n)
        if (t is cst.Subscript and type(n.value) is cst.Name) or (
            t is cst.Attribute and type(n.value) is cst.Name and n.attr.value not in EVIDENCE_ATTRS
        ):
            out.add(n.value.value)
        elif (t is cst.For and type(n.iter) is cst.Name) or (t is cst.CompFor and type(n.iter) is cst.Name):
            out.add(n.iter.value)
        elif t is cst.Arg and n.star and type(n.value) is cst.Name:
            out.add(n.value.value)
        elif t is cst.Call:
            if type(n.func) is cst.Name:
                out.add(n.func.value)
                if n.func.value in ("len", "list", "tuple", "dict", "iter", "sorted", "enumerate", "zip"):
                    out.update(a.value.value for a in n.args if type(a.value) is cst.Name)
            q = ctx.resolve(n.func) or ""
            if ".tree" in q or q.startswith("jax.tree"):
                out.update(a.value.value for a in n.args if type(a.value) is cst.Name)
        elif t is cst.Comparison:
            for c in n.comparisons:
                if isinstance(c.operator, (cst.In, cst.NotIn)) and type(c.comparator) is cst.Name:
                    out.add(c.comparator.value)
        elif (
            t is cst.Assign
            and type(n.value) is cst.Name
            and any(isinstance(a.target, (cst.Tuple, cst.List)) for a in n.targets)
        ):
            out.add(n.value.value)
    return out & names


def array_evidence(ctx, fn) -> set[str]:
    """Parameters the body uses the way only an array is used: ``x.shape``, ``x.at``,
    ``x.sum()``, or an argument of a ``jax.numpy`` function that rejects lists, tuples and
    refs (``jnp.sum(x)``). A parameter read whole as ``x[...]`` is how a ``jax.Ref`` is read
    (and a Ref has ``.shape``, ``.dtype`` and ``.at`` too, and takes item assignment): its
    attributes are no evidence. Indexing is none either (lists, dicts and Refs index)."""
    attrs: set[str] = set()
    whole: set[str] = set()
    calls: set[str] = set()
    body = fn.body
    for n in (
        ctx.descendants(body, prune=(cst.ClassDef,))
        if not isinstance(body, cst.BaseExpression)
        else [body, *ctx.descendants(body, prune=(cst.ClassDef,))]
    ):
        if type(n) is cst.Attribute and type(n.value) is cst.Name and n.attr.value in EVIDENCE_ATTRS:
            attrs.add(n.value.value)
        elif type(n) is cst.Subscript and type(n.value) is cst.Name and _whole(n):
            whole.add(n.value.value)
        elif type(n) is cst.Call:
            q = public_name(ctx.resolve(n.func)) or ""
            last = q.rsplit(".", 1)[-1]
            if (
                q.startswith("jax.numpy.")
                and q.count(".") == 2
                and last not in NOT_ARRAY | TAKES_SEQUENCES
                and not last.endswith("_like")
            ):
                calls.update(
                    a.value.value for a in n.args if type(a.value) is cst.Name and not a.keyword and not a.star
                )
    return (attrs - whole) | calls


def whole_accessed(ctx, fn) -> set[str]:
    """Names the body reads or writes whole as ``x[...]``: how a ``jax.Ref`` (a Pallas
    kernel's ``out_ref``) is used, even where the code annotates it ``jax.Array``."""
    return {
        n.value.value
        for n in ctx.descendants(fn.body, prune=(cst.ClassDef,))
        if type(n) is cst.Subscript and type(n.value) is cst.Name and _whole(n)
    }


def _whole(sub: cst.Subscript) -> bool:
    """``x[...]``: a name subscripted by a lone Ellipsis."""
    return (
        type(sub.value) is cst.Name
        and len(sub.slice) == 1
        and isinstance(sub.slice[0].slice, cst.Index)
        and isinstance(sub.slice[0].slice.value, cst.Ellipsis)
    )


def at_evidence(ctx, fn) -> set[str]:
    """Parameters the body updates with ``x.at[i].set(v)`` (``.add``, ...): only a JAX array has these."""
    out = set()
    for n in ctx.descendants(fn.body, prune=(cst.ClassDef,)):
        if (
            type(n) is cst.Call
            and isinstance(n.func, cst.Attribute)
            and n.func.attr.value in AT_METHODS - {"get"}
            and isinstance(n.func.value, cst.Subscript)
            and isinstance(n.func.value.value, cst.Attribute)
            and n.func.value.value.attr.value == "at"
            and type(n.func.value.value.value) is cst.Name
        ):
            out.add(n.func.value.value.value.value)
    return out


# --- per file ------------------------------------------------------------------------------------


@dataclass
class FileAnalysis:
    ctx: FileContext
    _values: list[ValueFlow] | None = field(default=None, init=False)

    def values(self) -> list[ValueFlow]:
        """One ValueFlow per function and one for the module body."""
        if self._values is None:
            ctx = self.ctx
            traced = traced_functions(ctx, program(ctx))
            flows: dict[cst.CSTNode, ValueFlow] = {}
            top = ValueFlow(ctx, ctx.module, None, None, set())
            top.run(ctx.module)
            flows[ctx.module] = top
            for _fact, fn in ctx.functions():
                enclosing = ctx.enclosing_function(fn)
                parent = flows.get(enclosing) if enclosing is not None else None
                closure = None
                if parent is not None:
                    closure = {k: v for k, v in parent.nested_env.get(fn, parent.env).items() if v[0] & TRACED}
                trace = traced.get(fn)
                evidence = array_evidence(ctx, fn) if trace is not None or closure else set()
                containers = container_evidence(ctx, fn) if trace is not None else set()
                updated = at_evidence(ctx, fn) if isinstance(fn, cst.FunctionDef) else set()
                flow = ValueFlow(ctx, fn, trace, closure, evidence, containers, updated)
                flow.quiet = int(expects_error(ctx, fn))
                if trace is None and closure and parent is not None:  # a closure comes from the parent
                    flow.outer_trace = parent.trace or parent.outer_trace
                if isinstance(fn, cst.Lambda):
                    flow.expressions(fn.body)
                else:
                    flow.run(fn.body)
                flows[fn] = flow
            self._values = list(flows.values())
        return self._values

    def elsewhere(self) -> list[tuple[cst.FunctionDef, list[BoolUse]]]:
        """The module-level defs no transform of this file traces (with slicing, only those a
        seed of some module hands on: ``ctx.looked_up``), each with the bool uses it would
        have if every parameter without a default were traced. JAX503 asks the call paths
        whether a transform in another module traces it. A name bound more than once in the
        module is left out: the call paths know a def by its name."""
        ctx = self.ctx
        p = program(ctx)
        traced = traced_functions(ctx, p)
        looked_up = ctx.looked_up
        out = []
        for fact, fn in ctx.functions():
            if type(fn) is not cst.FunctionDef or fn.decorators or fact.class_name or fn in traced:
                continue
            if looked_up is not None and fn.name.value not in looked_up:
                continue
            if ctx.enclosing_function(fn) is not None or expects_error(ctx, fn):
                continue
            if len(p.module_scope.bindings.get(fn.name.value, ())) != 1:
                continue  # the name is bound again (a notebook's second ``def f``): its uses are not all this def's
            params = {q.name.value for q in _callable_params(fn) + list(fn.params.kwonly_params) if q.default is None}
            if not params:
                continue
            flow = ValueFlow(
                ctx,
                fn,
                Trace(params, "", fn, False),
                None,
                array_evidence(ctx, fn),
                container_evidence(ctx, fn),
                at_evidence(ctx, fn),
            )
            flow.run(fn.body)
            optional = {
                q.name.value for q in _callable_params(fn) + list(fn.params.kwonly_params) if q.default is not None
            }
            bools = [u for u in flow.bools.values() if not _under_option(ctx, u.node, fn, optional)]
            if bools:
                out.append((fn, sorted(bools, key=lambda u: ctx.text_order(u.node))))
        return out


def _under_option(ctx, node, fn, optional: set[str]) -> bool:
    """Does the node run only for some values of a parameter with a default (inside an
    ``if``/``while`` whose test reads one)? A transform elsewhere may never take that path
    (``if not check: if not jnp.allclose(x, 1): raise``, jitted without ``check``)."""
    if not optional:
        return False
    inner = node
    for a in ctx.ancestors(node):
        if a is fn:
            return False
        if type(a) in (cst.If, cst.While) and a.test is not inner:
            names = [a.test, *ctx.descendants(a.test)]
            if any(type(n) is cst.Name and n.value in optional for n in names):
                return True
        inner = a
    return False
