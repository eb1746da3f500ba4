"""Shared analysis of the JAX1xx family: where ``vmap`` is applied, what its ``in_axes``
say, where the vmapped function is called, and how a function uses its parameters.

Everything here reads the syntax tree and the module facts only; nothing imports jax.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN, literal
from jaxlint.lint.rule import Rule
from jaxlint.model import External, Function, Partial, Transformed, forwarding, program
from jaxlint.model.facts import FunctionFact, Param

VMAP = "jax.vmap"
DEFAULT = object()  # in_axes not given: 0 for every positional argument

# Calls whose operands are contracted: a weight matrix is one of them.
CONTRACTIONS = frozenset(
    f"{m}.{f}"
    for m in ("jax.numpy", "numpy", "jax.numpy.linalg")
    for f in ("dot", "matmul", "einsum", "tensordot", "inner", "vdot", "multi_dot")
) | frozenset(
    {"jax.lax.dot", "jax.lax.dot_general", "jax.lax.conv", "jax.lax.conv_general_dilated", "jax.lax.batch_matmul"}
)

# Names people give shared parameters. The weakest signal: it never decides alone.
PARAM_NAMES = frozenset(
    {
        "params",
        "param",
        "parameters",
        "weights",
        "weight",
        "w",
        "W",
        "b",
        "bias",
        "biases",
        "theta",
        "kernel",
        "variables",
        "net_params",
        "model_params",
        "w1",
        "w2",
        "w3",
        "b1",
        "b2",
        "b3",
        "W1",
        "W2",
        "W3",
        "Wx",
        "Wh",
        "wx",
        "wh",
        "kernels",
        "params_tree",
    }
)
# Names of a bias: they say "parameter" only for a value added as one, not for a plain
# contraction operand (`def projection(a, b): return jnp.tensordot(a, b) * b` in jax-md
# maps two batches of vectors; `a, b` are just the first two letters).
BIAS_NAMES = frozenset({"b", "bias", "biases", "b1", "b2", "b3"})
# Argument names that say "already batched on purpose" (ensembles, per-example values).
BATCHED_HINTS = (
    "stack",
    "ensemble",
    "batch",
    "per_example",
    "per_sample",
    "all_",
    "population",
    "replicated",
    "vmapped",
    "many",
    "multi",
)
# Calls that build stacked (batched) parameters.
STACKERS = frozenset(
    {
        "jax.numpy.stack",
        "numpy.stack",
        "jax.numpy.broadcast_to",
        "jax.numpy.tile",
        "jax.numpy.repeat",
        "numpy.tile",
        "numpy.repeat",
        "jax.numpy.vstack",
        "jax.numpy.concatenate",
        "jax.random.split",
    }
)


def is_param_name(name: str) -> bool:
    return name in PARAM_NAMES or name.endswith(("_params", "_weights", "_kernel"))


# ----------------------------------------------------------------------------------
# vmap applications, read from the program model
# ----------------------------------------------------------------------------------
@dataclass
class VmapSite:
    """One ``vmap`` application: a call, a decorator, or ``partial(jax.vmap, ...)(f)``."""

    node: cst.CSTNode  # the vmap call (or the decorator expression)
    app: Transformed
    in_axes: Any  # DEFAULT, an int, None, a tuple/list/dict, or UNKNOWN
    in_axes_node: cst.BaseExpression | None  # the expression given for in_axes
    anchor: cst.BaseExpression | None  # insert ``, in_axes=...`` after this when absent
    axis_size: bool  # axis_size= given (and not None)
    kwargs_unknown: bool  # ``**options`` among the vmap arguments
    function: Function | None = None  # the function finally called, when it is in this file
    ref: str | None = None  # the qualified name of an imported target
    bound: int = 0  # positional arguments bound by ``partial`` around the target
    bound_keywords: list[str] = field(default_factory=list)
    chain: bool = False  # other transforms (an inner vmap, jit) between vmap and the function
    calls: list[cst.Call] = field(default_factory=list)  # calls of the vmapped function
    calls_known: bool = False  # every call of it is in ``calls`` (the function does not escape)
    target_text: str = "..."  # how the source names the mapped function
    in_axes_len: int | None = None  # entries of a tuple/list in_axes, also when they are not literals

    @property
    def label(self) -> str:
        """How the message names the application: ``vmap(linear_layer)``."""
        return f"vmap({self.target_text})"

    @property
    def decorator(self) -> bool:
        return self.app.decorator


def _target_text(ctx, site: VmapSite) -> str:
    if site.app.decorator:
        fn = site.function
        return fn.name if fn is not None else "..."
    expr = site.app.target_node
    if expr is None:
        return "..."
    if isinstance(expr, cst.Lambda):
        return "lambda"
    text = " ".join(ctx.code(expr).split())
    return text if len(text) <= 40 else "..."


def _anchor(app: Transformed) -> cst.BaseExpression | None:
    """Where ``, in_axes=...`` goes when the application gives none."""
    node = app.node
    if not isinstance(node, cst.Call):
        return None
    if app.decorator:  # @partial(jax.vmap, ...)
        return node.args[0].value if node.args else None
    if isinstance(node.func, cst.Call) and node.func.args:  # partial(jax.vmap, ...)(f)
        return node.func.args[0].value
    return app.target_node


def vmap_sites(ctx) -> list[VmapSite]:
    """Every vmap application of the file, with its call sites (computed once per file)."""
    cached = ctx.shared.get("JAX1.sites")
    if cached is not None:
        return cached
    p = program(ctx)
    sites: list[VmapSite] = []
    for app in p.applications(VMAP):
        in_axes_node = app.keywords.get("in_axes")
        if in_axes_node is None and app.args:
            in_axes_node = app.args[0].value
        if in_axes_node is None:
            in_axes = DEFAULT
        else:
            in_axes = p.literal(in_axes_node)
            if isinstance(in_axes, (bool, str)):
                in_axes = UNKNOWN
        size = app.keywords.get("axis_size")
        axis_size = size is not None and not (isinstance(size, cst.Name) and size.value == "None")
        site = VmapSite(app.node, app, in_axes, in_axes_node, _anchor(app), axis_size, app.star_kwargs)
        if isinstance(in_axes, (tuple, list)):
            site.in_axes_len = len(in_axes)
        elif in_axes_node is not None:
            display = p.display(in_axes_node)
            if display is not None and not any(isinstance(e, cst.StarredElement) for e in display.elements):
                site.in_axes_len = len(display.elements)
        found = p.target_function(app.target)
        if found is not None:
            site.function, site.bound, site.bound_keywords = found
        elif type(app.target) is External:
            site.ref = app.target.qualified
        inner = app.target
        while type(inner) is Partial:
            inner = inner.func
        site.chain = type(inner) is Transformed
        site.target_text = _target_text(ctx, site)
        site.calls, site.calls_known = p.invocations(app.node, through_maps=True, callees=True, forwarders=True)
        site.calls_known = site.calls_known and bool(site.calls)
        sites.append(site)
    ctx.shared["JAX1.sites"] = sites
    return sites


def positional_count(call: cst.Call, p=None) -> int | None:
    """Positional arguments passed at a call, or None with ``*args``; given the program
    model ``p``, ``*args`` of a visible tuple (``args = (x, w)``) counts its entries."""
    n = 0
    for a in call.args:
        if a.star == "*":
            t = p.display(a.value) if p is not None else None
            if type(t) is not cst.Tuple or any(type(e) is cst.StarredElement for e in t.elements):
                return None
            n += len(t.elements)
        elif a.keyword is None and not a.star:
            n += 1
    return n


def has_keywords(call: cst.Call) -> bool:
    return any(a.keyword is not None or a.star == "**" for a in call.args)


def target_params(fact: FunctionFact, bound: int, keywords: list[str], decorated: bool = False) -> list[Param] | None:
    """The positional parameters of the vmapped callable, after ``partial`` binding. A
    method the vmap decorates in its class body gets ``self`` as its first argument (the
    vmapped function is what the class binds); ``jax.vmap(self.f)`` does not."""
    if fact.has_varargs:
        return None
    ps = fact.positional
    if decorated and fact.is_method:
        ps = [p for p in fact.params if p.kind in ("posonly", "pos")]
    ps = ps[bound:]
    out = []
    for p in ps:
        if p.name in keywords:
            break
        out.append(p)
    return out


def positional_range(
    fact: FunctionFact, bound: int, bound_keywords: list[str], call: cst.Call
) -> tuple[int, int | None] | None:
    """How many positional arguments a call passing ``*args`` can give the vmapped function
    so that the function's own call can succeed: ``(least, most)``, most None for no limit.

    vmap passes positional arguments on positionally and keywords as keywords, after what
    ``partial`` binds. At least: the arguments written out, and every required parameter
    that no keyword of the call or of ``partial`` names (``**kw`` may name any). At most:
    the positional parameters (no limit with ``*args``), and never up to one a keyword
    names. None for a method (``self`` is passed too) or a required keyword-only
    parameter left unnamed (the call fails anyway)."""
    if fact.is_method or "classmethod" in fact.decorators:
        return None
    star_kwargs = any(a.star == "**" for a in call.args)
    keywords = set(bound_keywords) | {a.keyword.value for a in call.args if a.keyword is not None}
    if not star_kwargs and any(
        p.kind == "kwonly" and p.default is None and p.name not in keywords for p in fact.params
    ):
        return None
    params = fact.positional[bound:]
    most = None if fact.has_varargs else len(params)
    least = sum(1 for a in call.args if a.keyword is None and not a.star)
    for i, p in enumerate(params):
        named = p.name in keywords and p.kind != "posonly"
        if named:
            most = i if most is None else min(most, i)
        if p.default is None and (p.kind == "posonly" or not (named or star_kwargs)):
            least = max(least, i + 1)
    return least, most


def all_none(value: Any) -> bool:
    """True when every leaf of an in_axes value is None (nothing mapped)."""
    if value is None:
        return True
    if isinstance(value, (tuple, list)):
        return all(all_none(v) for v in value)
    if isinstance(value, dict):
        return all(all_none(v) for v in value.values())
    return False


def entry_mapped(value: Any) -> bool | None:
    """True: every leaf is an axis; False: every leaf is None; None: mixed or unknown."""
    if value is None:
        return False
    if isinstance(value, int) and not isinstance(value, bool):
        return True
    if isinstance(value, (tuple, list, dict)):
        leaves = list(value.values()) if isinstance(value, dict) else list(value)
        states = {entry_mapped(v) for v in leaves}
        if states == {True}:
            return True
        if states == {False}:
            return False
    return None


def describe_in_axes(site: VmapSite, ctx) -> str:
    if site.in_axes is DEFAULT:
        return "the default `in_axes=0`"
    return f"`in_axes={ctx.code(site.in_axes_node)}`"


def enclosing_param_owner(ctx, node: cst.CSTNode, name: str):
    """The innermost function around ``node`` that has a parameter called ``name``."""
    for a in ctx.ancestors(node):
        if isinstance(a, (cst.FunctionDef, cst.Lambda)):
            fact = ctx.function_fact(a)
            if fact is not None and any(p.name == name for p in fact.params):
                return fact
    return None


class ThroughForwarders(Rule):
    """A vmap rule whose verdicts may rest on a call made through a forwarder of another
    module (``self.ConvertAndCompare(f, x, y)``, model/forwarding.py): such a verdict waits
    for the project phase, which checks that the callee forwards."""

    shapes_needed: bool = True  # False: the number of arguments is enough (JAX102)

    def verdict(self, node: cst.CSTNode, message: str, assumed: list) -> None:
        """Report ``message`` at ``node`` once every assumption it rests on holds
        (``forwarding.assumption``, ``shapes.assumptions``)."""
        if assumed:
            self.pending(node, {"message": message, "assumed": assumed})
        else:
            self.report(node, message)

    @classmethod
    def resolve(cls, items, project):
        for item in items:
            if all(forwarding.holds(project, a, cls.shapes_needed) for a in item.data["assumed"]):
                yield item, item.data["message"]


# ----------------------------------------------------------------------------------
# how a function uses its parameters (JAX101 evidence), as plain picklable data
# ----------------------------------------------------------------------------------
def short(ctx, node: cst.CSTNode, limit: int = 48) -> str:
    text = " ".join(ctx.code(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def param_base(expr: cst.BaseExpression) -> tuple[str, str | None] | None:
    """``w`` / ``w.T`` / ``params['w']`` / ``params.w`` -> (name, string key or None)."""
    if isinstance(expr, cst.Name):
        return expr.value, None
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
        return expr.value.value, None
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Name) and len(expr.slice) == 1:
        el = expr.slice[0].slice
        if isinstance(el, cst.Index):
            key = literal(el.value)
            if isinstance(key, str):
                return expr.value.value, key
    if isinstance(expr, cst.Subscript):  # params['dense']['kernel']
        inner = param_base(expr.value)
        if inner is not None and inner[1] is not None:
            return inner
    return None


def is_contraction(ctx, expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.MatrixMultiply):
        return True
    if isinstance(expr, cst.Call):
        if ctx.resolve(expr.func) in CONTRACTIONS:
            return True
        if (
            isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value in ("dot", "matmul")
            and ctx.resolve(expr.func) is None
        ):
            return True
    return False


def contraction_operands(ctx, node: cst.CSTNode) -> list[cst.BaseExpression]:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply):
        return [node.left, node.right]
    if not isinstance(node, cst.Call):
        return []
    q = ctx.resolve(node.func)
    args = [a.value for a in node.args if a.keyword is None and not a.star]
    if q in CONTRACTIONS:
        if q.endswith("einsum"):
            return args[1:]
        return args[:2]
    if isinstance(node.func, cst.Attribute) and node.func.attr.value in ("dot", "matmul") and q is None:
        return [node.func.value, *args[:1]]
    return []


SHAPED = frozenset(f"jax.numpy.{f}" for f in ("zeros", "ones", "empty", "full", "arange", "eye"))


def static_operands(ctx, node: cst.Call) -> list[cst.BaseExpression]:
    """Names that must be Python ints: in ``range(n)``, in the shape of ``jnp.zeros((n, d))``
    or ``x.reshape(-1, dims // n)``, also inside arithmetic there (a shape computed from a
    traced value is not a shape)."""
    func = node.func
    args = [a.value for a in node.args if a.keyword is None and not a.star]
    if isinstance(func, cst.Name) and func.value == "range" and ctx.resolve(func) is None:
        operands = args
    elif ctx.resolve(func) in SHAPED and args:
        first = args[0]
        operands = [e.value for e in first.elements] if isinstance(first, (cst.Tuple, cst.List)) else [first]
    elif type(func) is cst.Attribute and func.attr.value == "reshape" and args:
        if ctx.resolve(func) is not None:  # ``jnp.reshape(a, shape)``: the shape comes second
            args = args[1:2]
        shape_arg = args[0] if args else None
        operands = (
            [e.value for e in shape_arg.elements]
            if len(args) == 1 and isinstance(shape_arg, (cst.Tuple, cst.List))
            else args
        )
    else:
        return []
    return [n for e in operands for n in _arithmetic_names(e)]


def _arithmetic_names(expr: cst.BaseExpression) -> list[cst.Name]:
    """The plain names an integer expression is computed from (``dims // n``: dims, n)."""
    if type(expr) is cst.Name:
        return [expr]
    if type(expr) is cst.BinaryOperation:
        return _arithmetic_names(expr.left) + _arithmetic_names(expr.right)
    if type(expr) is cst.UnaryOperation:
        return _arithmetic_names(expr.expression)
    return []


NUMERIC_COMPARISONS = (cst.Equal, cst.NotEqual, cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)


class Evidence:
    """Collects, per function and parameter, how the parameter is used."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.by_function: dict[str, dict[str, dict[str, str]]] = {}

    def add(
        self, at: cst.CSTNode, expr: cst.BaseExpression, kind: str, shown: cst.CSTNode, text: str | None = None
    ) -> None:
        base = param_base(expr)
        if base is None:
            return
        name, key = base
        fact = enclosing_param_owner(self.ctx, at, name)
        if fact is None:
            return
        kinds = self.by_function.setdefault(fact.qualname, {}).setdefault(name, {})
        kinds.setdefault(kind, text or short(self.ctx, shown))
        if key is not None:
            kinds.setdefault("key", short(self.ctx, expr))

    def call(self, node: cst.Call) -> None:
        for op in contraction_operands(self.ctx, node):
            self.add(node, op, "dot", node)
        for expr in static_operands(self.ctx, node):
            if isinstance(expr, cst.Name):
                b = program(self.ctx).binding(expr)
                if b is not None and b.kind == "param":  # not rebound before this use
                    self.add(node, expr, "static", node, f"used as a Python int in `{short(self.ctx, node)}`")
        for expr in differentiated(self.ctx, node):
            self.add(node, expr, "grad", node)
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "apply" and node.args:
            first = node.args[0]
            if first.keyword is None and not first.star:
                v = first.value
                if isinstance(v, cst.Dict):
                    for el in v.elements:
                        if isinstance(el, cst.DictElement) and isinstance(el.value, cst.Name):
                            self.add(node, el.value, "apply", node)
                else:
                    self.add(node, v, "apply", node)

    def binop(self, node: cst.BinaryOperation) -> None:
        for op in contraction_operands(self.ctx, node):
            self.add(node, op, "dot", node)
        if isinstance(node.operator, cst.Add):
            for a, b in ((node.left, node.right), (node.right, node.left)):
                if is_contraction(self.ctx, a):
                    self.add(node, b, "bias", node)

    def subscript(self, node: cst.Subscript) -> None:
        base = param_base(node)
        if base is not None and base[1] is not None and isinstance(node.value, cst.Name):
            self.add(node, node, "key", node)

    def test(self, node: cst.If | cst.While) -> None:
        """``if n == 0:`` compares a parameter with a number: a Python number there (a
        mapped one is a tracer, and the ``if`` raises). A bare ``if params:`` says nothing
        (a dict of arrays stays a dict under vmap), nor does ``is None``."""
        t = node.test
        if type(t) is not cst.Comparison or len(t.comparisons) != 1:
            return
        c = t.comparisons[0]
        if type(c.operator) not in NUMERIC_COMPARISONS:
            return
        for a, b in ((t.left, c.comparator), (c.comparator, t.left)):
            if type(a) is cst.Name and type(b) in (cst.Integer, cst.Float):
                keyword = "while" if type(node) is cst.While else "if"
                self.add(node, a, "static", node, f"compared with a number in `{keyword} {short(self.ctx, t)}`")


GRADS = frozenset({"jax.grad", "jax.value_and_grad"})


def differentiated(ctx, call: cst.Call) -> list[cst.BaseExpression]:
    """The arguments ``grad(f, argnums=...)(...)`` differentiates, at a direct call."""
    func = call.func
    if not isinstance(func, cst.Call):
        return []
    v = program(ctx).value(func)
    if type(v) is not Transformed or v.api not in GRADS or v.star_kwargs or v.node is not func:
        return []
    given = v.keywords.get("argnums", v.args[0].value if v.args else None)
    argnums = 0 if given is None else program(ctx).literal(given)
    if type(argnums) is int:
        argnums = (argnums,)
    if not isinstance(argnums, tuple) or not all(type(k) is int and k >= 0 for k in argnums):
        return []
    positional = []
    for a in call.args:
        if a.star:
            return []
        if a.keyword is None:
            positional.append(a.value)
    return [positional[k] for k in argnums if k < len(positional)]


# ----------------------------------------------------------------------------------
# what callers pass
# ----------------------------------------------------------------------------------
# Calls that keep a batch axis of their first argument (a transposed stack is still a stack).
SHAPE_OPS = frozenset(
    f"{m}.{f}"
    for m in ("jax.numpy", "numpy")
    for f in ("transpose", "reshape", "swapaxes", "moveaxis", "asarray", "array", "squeeze", "expand_dims")
)


def _names_along(p, expr: cst.BaseExpression) -> tuple[list[str], cst.BaseExpression, tuple[int, ...]]:
    """The names a value passes through on its way from where it is built, and that origin."""
    names = []
    for _ in range(16):
        if isinstance(expr, cst.Name):
            names.append(expr.value)
        origin, path = p.origin_path(expr)
        if origin is expr:
            return names, origin, path
        if isinstance(origin, cst.Name) and origin is not expr:
            expr = origin
            continue
        if isinstance(origin, cst.Name):
            names.append(origin.value)
        return names, origin, path
    return names, expr, ()


def _is_batched(p, expr: cst.BaseExpression, depth: int = 0) -> bool:
    """Built on purpose with a batch axis: a stack, a vmapped ``init``, a name that says so."""
    names, origin, _ = _names_along(p, expr)
    if any(h in n.lower() for n in names for h in BATCHED_HINTS):
        return True
    if not isinstance(origin, cst.Call) or depth > 4:
        return False
    if isinstance(origin.func, cst.Call):  # jax.vmap(model.init)(keys, x)
        return True
    f = p.value(origin.func)
    q = f.qualified if type(f) is External else ""
    if q in STACKERS or (q.endswith(("tree.map", "tree_map")) and "stack" in p.ctx.code(origin)):
        return True
    if type(f) is Transformed and f.api == VMAP:
        return True
    if q in SHAPE_OPS and origin.args and origin.args[0].keyword is None:
        return _is_batched(p, origin.args[0].value, depth + 1)
    return False


def _init_call(ctx, value: cst.BaseExpression | None) -> str | None:
    if not isinstance(value, cst.Call) or isinstance(value.func, cst.Call):
        return None
    from jaxlint.base.names import dotted

    d = dotted(value.func) or ""
    last = d.rsplit(".", 1)[-1]
    if "init" in last.lower() and "random" not in d:
        return d
    return None


def argument_info(ctx, site: VmapSite, index: int) -> dict[str, Any]:
    """What the callers of the vmapped function pass at positional ``index``.

    ``shared``: evidence that it is one unbatched value; ``batched``: evidence that it was
    stacked on purpose (an ensemble, per-example weights) -- then the mapping is intended.
    """
    p = program(ctx)
    info: dict[str, Any] = {"shared": None, "batched": False, "names": set()}
    direct = p.invocations(site.function.node)[0] if site.function is not None else []
    for call in site.calls:
        if forwarding.assumption(p, call) is not None:
            continue  # made through a callee of another module: JAX101 does not wait for the project
        args = [a for a in call.args if a.keyword is None and not a.star]
        if index >= len(args):
            continue
        expr = args[index].value
        if type(expr) is cst.Name:
            info["names"].add(expr.value)
        if _is_batched(p, expr):
            info["batched"] = True
            continue
        if not isinstance(expr, cst.Name):
            continue
        name = expr.value
        _, origin, _ = _names_along(p, expr)
        init = _init_call(ctx, origin) if origin is not expr else None
        if init is not None:
            info["shared"] = info["shared"] or f"the caller's `{name}` comes from `{init}(...)`"
            continue
        mine = p.reaching(expr)
        for d in direct:
            if d in site.calls:
                continue
            dargs = [a for a in d.args if a.keyword is None and not a.star]
            other = dargs[index].value if index < len(dargs) else None
            if isinstance(other, cst.Name) and other.value == name and mine and p.reaching(other) == mine:
                info["shared"] = info["shared"] or (
                    f"the caller's `{name}` is also passed unbatched in `{short(ctx, d)}`"
                )
                break
    return info


# ----------------------------------------------------------------------------------
# the verdict
# ----------------------------------------------------------------------------------
_KIND_TEXT = {
    "static": "is {}",
    "apply": "is passed as the variables of `{}`",
    "dot": "is the weight operand of `{}`",
    "bias": "is added as a bias in `{}`",
    "key": "is indexed by string keys (`{}`)",
    "grad": "is the argument differentiated in `{}` (gradients with respect to shared parameters)",
}


def shared_params(
    params: list[str], mapped: list[int], evidence: dict[str, dict[str, str]], args: list[dict[str, Any]]
) -> list[tuple[int, str, str]]:
    """(position, parameter, evidence text) for each mapped parameter used as shared.

    Needs a use inside the function (contraction weight, bias, string keys, ``.apply``)
    plus either its name or what the caller passes; anything that says "batched on
    purpose" at a call site silences it. At least one mapped argument must stay mapped.
    """
    out = []
    for i in mapped:
        if i >= len(params):
            continue
        name = params[i]
        uses = evidence.get(name) or {}
        if not uses:
            continue
        info: dict[str, Any] = args[i] if i < len(args) else {"shared": None, "batched": False}
        if info["batched"] or info.get("names", set()) & {name + "s", name + "es"}:
            continue  # stacked on purpose, or one per example: `bs` passed for `b`
        named = is_param_name(name) and not (name in BIAS_NAMES and set(uses) <= {"dot"})
        static = "static" in uses  # a Python value: never an array with a batch axis
        if not (static or named or info["shared"]):
            continue
        if not static and not named and set(uses) == {"grad"}:
            continue  # differentiated alone: only the name says "parameters"
        kinds = ("static",) if static else ("apply", "dot", "bias", "key", "grad")
        parts = [_KIND_TEXT[k].format(uses[k]) for k in kinds if k in uses][:2]
        text = f"`{name}` " + " and ".join(parts)
        if static:
            pass
        elif info["shared"]:
            text += f", and {info['shared']}"
        elif named:
            text += " and is named like a parameter"
        out.append((i, name, text))
    if out and len(out) >= len(mapped):
        return []  # nothing would be left to map: not the shared-weights pattern
    return out


# Annotations that say "a Python value, never an array". Not ``int`` or ``bool``: code
# annotates per-example labels and indices that way (jaxopt's ``binary_logistic_loss(label:
# int, logit)``, mctx's ``_unbatched_qvalues(tree, index: int)``, both vmapped over
# batches), and a traced integer serves as an index, in arithmetic or in ``jnp.where``;
# such a parameter counts when the body uses it as a Python value (a loop bound, a shape,
# a comparison in an ``if``).
STATIC_ANNOTATIONS = frozenset({"str", "Callable", "typing.Callable", "collections.abc.Callable"})


def with_annotations(uses: dict[str, dict[str, str]], params: list[Param]) -> dict[str, dict[str, str]]:
    """The function's evidence plus parameters annotated as Python values (``f: Callable``)."""
    out = dict(uses)
    for p in params:
        ann = (p.annotation or "").split("[", 1)[0].strip()
        if ann in STATIC_ANNOTATIONS:
            out[p.name] = {**out.get(p.name, {}), "static": f"annotated `{p.annotation}`"}
    return out


def fixed_in_axes(entries: list[str], shared: set[int], bracket: str) -> str:
    items = ["None" if i in shared else e for i, e in enumerate(entries)]
    if bracket == "[":
        return "[" + ", ".join(items) + "]"
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
