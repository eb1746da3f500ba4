"""What the program model knows of an array's shape: its rank and the size of each axis.

``shape(p, expr)`` gives a ``Shape`` or None (unknown: silent). A shape lists one entry
per axis, an int or None (size not known); ``exact`` False means only the leading axes
are known (``split(key, 8)`` of a key that may be raw or typed). It follows names to
their reaching bindings (candidates that disagree: unknown; a parameter: unknown, but for a
def nested in a function, undecorated or under ``jit``, whose known calls all pass one
shape) and
reads array constructors (``jnp``/``np`` ``zeros``/``ones``/``full``/``empty``/``arange``/
``eye``/``linspace``, ``*_like``, ``jax.device_put``, ``np.array`` of a nested display of numbers,
jax's test ``rng(shape, dtype)`` (``rng = jtu.rand_default(...)``), ``jax.random.normal(key, shape)`` and friends,
``random.split(key, n)``, ``np.random.randn(...)``, ``RandomState(...).randn`` and its
``uniform``/``normal(..., size=)``, also through a local alias), ``x.T``, ``reshape``,
``stack``/``concatenate``, ``random.permutation``, ``linalg.norm(x, axis=k)``, indexing
with ints, ``:``, ``None`` and ``...``,
arithmetic (broadcasting) and Python scalars (number literals, ``len``, ``math.prod``,
``int``/``float``, ``x.shape[i]``, ``x.ndim``, ``x.size``: rank 0). ``size(p, expr)``: the
int a scalar expression is, when the code makes it visible. ``shape_with_helpers``: also
through a module-level helper def that returns a constructor of its shape parameter,
a name unpacked from a call of a module-level helper def that returns a tuple display
(its element read with the call's arguments: ``helper_calls.py``), and a parameter of the
module-level def holding that unit when all its calls pass one shape (outside a test
case).
Inside ``cases.evaluating(p, case)`` a parameter of a parameterized test reads as its
value in that case (``cases.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from .cases import TEST_RANDS, current, evaluating, given_expr
from .cases import given as case_value
from .helper_calls import module_def, returned
from .values import External, Function, Transformed

_DEPTH = 30


@dataclass(frozen=True, slots=True)
class Shape:
    dims: tuple[int | None, ...]
    exact: bool = True  # False: ``dims`` are the leading axes only, more may follow

    @property
    def rank(self) -> int | None:
        return len(self.dims) if self.exact else None

    def axis(self, i: int) -> int | None:
        """The size of axis ``i`` (negative from the end), None when not known."""
        if i < 0:
            if not self.exact or -i > len(self.dims):
                return None
            i += len(self.dims)
        return self.dims[i] if i < len(self.dims) else None

    def at_least(self) -> int:
        """The rank is at least this."""
        return len(self.dims)


SCALAR = Shape(())

_NP = ("jax.numpy", "numpy")
# constructors taking a shape: qualified name -> (index, keyword) of it
SHAPED = {
    **{f"{m}.{f}": (0, "shape") for m in _NP for f in ("ones", "zeros", "empty", "full")},
    **{
        f"jax.random.{f}": (1, "shape")
        for f in (
            "normal",
            "uniform",
            "gumbel",
            "laplace",
            "logistic",
            "cauchy",
            "exponential",
            "rademacher",
            "randint",
        )
    },
    "jax.random.truncated_normal": (3, "shape"),
    "numpy.random.normal": (2, "size"),
    "numpy.random.uniform": (2, "size"),
}
# ... whose shape defaults to a scalar when not given
SCALAR_BY_DEFAULT = frozenset(
    f"jax.random.{f}" for f in ("normal", "uniform", "gumbel", "laplace", "logistic", "cauchy", "exponential")
)
DIMS = frozenset({"numpy.random.randn", "numpy.random.rand"})  # the dimensions as arguments
LIKE = frozenset(f"{m}.{f}_like" for m in _NP for f in ("ones", "zeros", "empty", "full"))
SAME = frozenset({f"{m}.{f}" for m in _NP for f in ("asarray", "array")} | {"jax.device_put"})
RESHAPES = frozenset(f"{m}.reshape" for m in _NP)
STACKS = frozenset(f"{m}.stack" for m in _NP)
CONCATS = frozenset(f"{m}.concatenate" for m in _NP)
EXPAND_DIMS = frozenset(f"{m}.expand_dims" for m in _NP)
# ``RandomState`` methods that take ``size=``: name -> its position
SIZED_SAMPLES = {"uniform": 2, "normal": 2, "standard_normal": 0, "random_sample": 0, "random": 0}
RANDOM_STATES = frozenset({"numpy.random.RandomState", "numpy.random.mtrand.RandomState"})
SCALAR_CALLS = frozenset({"math.prod", "numpy.prod", "math.floor", "math.ceil"})
SCALAR_BUILTINS = frozenset({"len", "int", "float"})
KEYS = {"jax.random.PRNGKey": Shape((2,)), "jax.random.key": SCALAR}
ELEMENTWISE = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power, cst.Modulo)


def shape(p, expr: cst.BaseExpression | None) -> Shape | None:
    """The shape of ``expr``'s value, or None when the code does not make it visible."""
    if expr is None:
        return None
    helpers = p.ctx.shared.get("model.shapes.helpers")
    key = "model.shapes" if helpers is None else f"model.shapes@{id(helpers)}"
    case = current(p)
    memo = p.ctx.shared.setdefault(key if case is None else f"{key}#{id(case)}", {})  # per test case
    # the assumptions (model/forwarding.py) each shape rests on, gathered along the way
    assumed = p.ctx.shared.setdefault("model.shapes.assumed", {})
    stack = p.ctx.shared.setdefault("model.shapes.stack", [])
    if expr in memo:
        if stack and (expr, id(memo)) in assumed:
            stack[-1].extend(assumed[(expr, id(memo))])
        return memo[expr]
    depth = p.ctx.shared.get("model.shapes.depth", 0)
    if depth > _DEPTH:
        return None
    memo[expr] = None  # cycles are unknown
    p.ctx.shared["model.shapes.depth"] = depth + 1
    stack.append([])
    try:
        s = _shape(p, expr)
    finally:
        p.ctx.shared["model.shapes.depth"] = depth
        used = stack.pop()
    memo[expr] = s
    if used:
        assumed[(expr, id(memo))] = used
        if stack:
            stack[-1].extend(used)
    return s


def assumptions(p, expr: cst.BaseExpression | None, unit: cst.CSTNode | None = None) -> list:
    """What ``shape_with_helpers(p, expr, unit)`` (computed before) rests on: the
    assumptions of the calls made through callees of other modules that it read
    (``forwarding.assumption``), to be checked in the project phase."""
    memo = p.ctx.shared.get("model.shapes" if unit is None else f"model.shapes@{id(unit)}", {})
    return list(p.ctx.shared.get("model.shapes.assumed", {}).get((expr, id(memo)), ()))


def _assume(p, call: cst.Call) -> None:
    """The shape being computed reads ``call``: it carries what that call assumes."""
    from .forwarding import assumption

    a = assumption(p, call)
    stack = p.ctx.shared.get("model.shapes.stack")
    if a is not None and stack:
        stack[-1].append(a)


def shape_with_helpers(p, expr: cst.BaseExpression | None, unit: cst.CSTNode | None) -> Shape | None:
    """``shape``, also through a call made in ``unit`` of a module-level helper def that
    returns an array constructor of its shape parameter (``def ones(shape): return
    jnp.ones(shape)``). Only for rules whose slicer keeps the defs ``unit`` refers to
    (``reads = "calls"``): for others the helper may be blanked, and the answer must not
    depend on which rules run."""
    if unit is None:
        return shape(p, expr)
    before = p.ctx.shared.get("model.shapes.helpers")
    p.ctx.shared["model.shapes.helpers"] = unit
    try:
        return shape(p, expr)
    finally:
        p.ctx.shared["model.shapes.helpers"] = before


def _helper(p, call: cst.Call) -> Shape | None:
    """A call, in the unit ``shape_with_helpers`` names, of an undecorated module-level def
    of straight-line statements whose one return is a constructor (maybe ``.astype(...)``)
    given its shape parameter unchanged: that shape, from the call's argument."""
    unit = p.ctx.shared.get("model.shapes.helpers")
    if unit is None or any(a.star for a in call.args) or p.ctx.unit_of(call) is not unit:
        return None
    v = p.value(call.func)
    fn = v.node if type(v) is Function else None
    if type(fn) is not cst.FunctionDef or fn.decorators or type(fn.body) is not cst.IndentedBlock:
        return None
    owner = p.binding_of_value(fn)
    if owner is None or owner.scope.kind != "module" or not fn.body.body:
        return None
    stmts = [x for x in fn.body.body if type(x) is cst.SimpleStatementLine]
    if len(stmts) != len(fn.body.body):
        return None
    returns = [x for line in stmts for x in line.body if type(x) is cst.Return]
    if len(returns) != 1 or stmts[-1].body[-1] is not returns[0]:
        return None
    made = returns[0].value
    while type(made) is cst.Call and type(made.func) is cst.Attribute and made.func.attr.value == "astype":
        made = made.func.value
    if type(made) is not cst.Call:
        return None
    q = _qualified(p, made.func)
    if q is None or q not in SHAPED:
        return None
    index, keyword = SHAPED[q]
    given = _arg(made, index, keyword)
    if type(given) is not cst.Name:
        return None
    found = p.reaching(given)
    if len(found) != 1 or found[0].kind != "param" or found[0].scope.node is not fn:
        return None
    params = fn.params
    positional = [*params.posonly_params, *params.params]
    where = next((i for i, x in enumerate(positional) if x is found[0].node), None)
    arg = _arg(call, where, found[0].node.name.value)
    dims = _dims(p, arg) if arg is not None else None
    return Shape(dims) if dims is not None else None


def size(p, expr: cst.BaseExpression | None) -> int | None:
    """The int a size expression evaluates to (a literal, a constant, ``x.shape[0]``, ``len``
    of a display, a product or sum of those), or None."""
    if expr is None:
        return None
    v = p.literal(expr)
    if type(v) is int:
        return v
    if type(expr) is cst.Subscript and type(expr.value) is cst.Attribute and expr.value.attr.value == "shape":
        i = _index(p, expr)
        s = shape(p, expr.value.value)
        return s.axis(i) if s is not None and i is not None else None
    if type(expr) is cst.Attribute and expr.attr.value in ("ndim", "size"):
        s = shape(p, expr.value)
        if s is None or s.rank is None:
            return None
        if expr.attr.value == "ndim":
            return s.rank
        return _product(s.dims)
    if type(expr) is cst.BinaryOperation and type(expr.operator) in (
        cst.Add,
        cst.Subtract,
        cst.Multiply,
        cst.FloorDivide,
    ):
        a, b = size(p, expr.left), size(p, expr.right)
        if a is None or b is None:
            return None
        op = type(expr.operator)
        if op is cst.FloorDivide:
            return a // b if b else None
        return a + b if op is cst.Add else a - b if op is cst.Subtract else a * b
    if type(expr) is cst.Name:
        found = p.reaching(expr)
        guard = p.ctx.shared.setdefault("model.sizes.open", set())
        if expr in guard:
            return None  # ``n = n + 1``: a cycle
        guard.add(expr)
        try:
            sizes = [_binding_size(p, b) for b in found]
        finally:
            guard.discard(expr)
        if sizes and all(s is not None and s == sizes[0] for s in sizes):
            return sizes[0]
        return None
    if (
        type(expr) is cst.Call
        and type(expr.func) is cst.Name
        and expr.func.value == "len"
        and len(expr.args) == 1
        and not p.reaching(expr.func)
    ):
        d = p.display(expr.args[0].value)
        if d is not None and not any(type(e) is cst.StarredElement for e in d.elements):
            return len(d.elements)
        s = shape(p, expr.args[0].value)
        return s.axis(0) if s is not None else None
    return None


def _binding_size(p, b) -> int | None:
    if b.kind == "param" and (value := case_value(p, b)) is not None:
        return size(p, value)
    if b.kind not in ("assign", "walrus") or b.value is None or b.unpack:
        return None
    return size(p, b.value)


def _product(dims) -> int | None:
    out = 1
    for d in dims:
        if d is None:
            return None
        out *= d
    return out


def _index(p, sub: cst.Subscript) -> int | None:
    if len(sub.slice) != 1 or type(sub.slice[0].slice) is not cst.Index:
        return None
    v = p.literal(sub.slice[0].slice.value)
    return v if type(v) is int else None


def _qualified(p, func: cst.BaseExpression) -> str | None:
    v = p.value(func)
    return v.qualified if type(v) is External else None


def _shape(p, expr: cst.BaseExpression) -> Shape | None:
    if type(expr) in (cst.Integer, cst.Float, cst.Imaginary):
        return SCALAR
    if type(expr) is cst.Name:
        if expr.value in ("True", "False") and not p.reaching(expr):
            return SCALAR
        found = p.reaching(expr)
        shapes = [_binding_shape(p, b) for b in found]
        if shapes and all(s is not None and s == shapes[0] for s in shapes):
            return shapes[0]
        return None
    if type(expr) is cst.UnaryOperation and type(expr.operator) in (cst.Minus, cst.Plus):
        return shape(p, expr.expression)
    if type(expr) is cst.BinaryOperation and type(expr.operator) in ELEMENTWISE:
        return _broadcast(shape(p, expr.left), shape(p, expr.right))
    if type(expr) is cst.Attribute and expr.attr.value in ("ndim", "size"):
        return SCALAR if shape(p, expr.value) is not None else None
    if type(expr) is cst.Attribute and expr.attr.value == "T":
        s = shape(p, expr.value)
        return Shape(s.dims[::-1]) if s is not None and s.exact else None
    if type(expr) is cst.Subscript:
        return _subscript(p, expr)
    if type(expr) is cst.Call:
        return _call(p, expr)
    return None


def _shaped_value(p, expr) -> bool:
    """``x.shape[i]`` of a name or attribute: an int whatever array ``x`` holds (not a module)."""
    if type(expr) is cst.Attribute:
        return _shaped_value(p, expr.value)
    return type(expr) is cst.Name and bool(p.reaching(expr)) and type(p.value(expr)) is not External


def _binding_shape(p, b) -> Shape | None:
    if b.kind == "param":
        value = case_value(p, b)
        return shape(p, value) if value is not None else _param_shape(p, b)
    if b.kind not in ("assign", "walrus") or b.value is None:
        return None
    inner = p.unpacked(b.value, b.unpack)
    if inner is not None:
        return shape(p, inner)
    if len(b.unpack) == 1 and type(b.value) is cst.Call:
        found = returned(p, b.value, b.unpack[0])  # ``q, k = _make(n)``: ``_make``'s return, for this call
        if found is not None:
            with evaluating(p, found[1]):
                return shape(p, found[0])
    if len(b.unpack) != 1:
        return None
    s = shape(p, b.value)  # ``k1, k2 = split(key)``: unpacking iterates over axis 0
    if s is None or not s.dims:
        return None
    return Shape(s.dims[1:], s.exact)


def _param_shape(p, b) -> Shape | None:
    """A parameter of a def nested in a function (all its calls are in that function's
    unit), undecorated or under ``jit``, that every call gives an argument of one shape;
    also of the undecorated module-level def that holds the unit ``shape_with_helpers``
    names, when all its calls are visible (not in a test case: there a rule reads the
    calls one at a time, ``helper_calls.bound``)."""
    from .program import FORWARDING_TRANSFORMS

    fn = b.scope.node
    if type(fn) is not cst.FunctionDef or b.scope.parent is None:
        return None
    if b.scope.parent.kind == "module":  # in a test case, a rule binds the calls one by one
        unit = p.ctx.shared.get("model.shapes.helpers")
        if unit is None or current(p) is not None or p.ctx.unit_of(fn) is not unit or not module_def(p, fn):
            return None
    elif b.scope.parent.kind != "function":
        return None
    if fn.decorators:
        v = p.value(fn)
        if (
            type(v) is not Transformed
            or v.api not in FORWARDING_TRANSFORMS
            or v.star_kwargs
            or type(v.target) is not Function
            or v.target.node is not fn
        ):
            return None
    params = fn.params
    positional = [*params.posonly_params, *params.params]
    if params.star_arg is not cst.MaybeSentinel.DEFAULT and type(params.star_arg) is not cst.ParamStar:
        return None
    where = next((i for i, x in enumerate(positional) if x is b.node), None)
    keyword = b.node.name.value
    from .forwarding import keeps_shapes

    # through forwarders only for the rules that read them: those that read helpers too (vmap)
    forwarders = p.ctx.shared.get("model.shapes.helpers") is not None
    calls, complete = p.invocations(fn, forwarders=forwarders)
    if not calls and forwarders and where is not None and not fn.decorators and b.scope.parent.kind == "function":
        return _mapped_param_shape(p, fn, where)
    if not complete or not calls:
        return None
    found: Shape | None = None
    for call in calls:
        if any(a.star for a in call.args) or not keeps_shapes(p, call):
            return None
        _assume(p, call)
        given = [a.value for a in call.args if a.keyword is None]
        arg = (
            given[where]
            if where is not None and where < len(given)
            else next((a.value for a in call.args if a.keyword is not None and a.keyword.value == keyword), None)
        )
        s = shape(p, arg) if arg is not None else None
        if s is None or (found is not None and s != found):
            return None
        found = s
    return found


def _mapped_param_shape(p, fn: cst.FunctionDef, where: int) -> Shape | None:
    """A nested def whose one use is ``jax.vmap(fn, in_axes=...)``, called: the shape of
    the vmap calls' argument at ``where`` (all agree), without the axis mapped there
    (``vmap(g, in_axes=(None, 0))(xs, ys)`` gives ``g``'s second parameter a slice of ys)."""
    from .forwarding import keeps_shapes

    owner = p.binding_of_value(fn)
    reads, complete = p.references(owner) if owner is not None else ([], False)
    if not complete or len(reads) != 1:
        return None
    arg = p.parents.get(reads[0])
    call = p.parents.get(arg)
    if type(arg) is not cst.Arg or type(call) is not cst.Call or not call.args or call.args[0] is not arg:
        return None
    v = p.value(call)
    if (
        type(v) is not Transformed
        or v.api != "jax.vmap"
        or v.node is not call
        or v.star_kwargs
        or type(v.target) is not Function
        or v.target.node is not fn
    ):
        return None
    given = v.keywords.get("in_axes", v.args[0].value if v.args else None)
    axes = 0 if given is None else p.literal(given)
    if isinstance(axes, (tuple, list)):
        if where >= len(axes):
            return None
        axes = axes[where]
    if axes is not None and type(axes) is not int:
        return None
    calls, complete = p.invocations(call, forwarders=True)
    if not complete or not calls:
        return None
    found: Shape | None = None
    for c in calls:
        if any(a.star or a.keyword is not None for a in c.args) or not keeps_shapes(p, c) or where >= len(c.args):
            return None
        _assume(p, c)
        s = shape(p, c.args[where].value)
        if s is not None and axes is not None:
            k = axes + len(s.dims) if axes < 0 and s.exact else axes
            s = Shape(s.dims[:k] + s.dims[k + 1 :], s.exact) if 0 <= k < len(s.dims) else None
        if s is None or (found is not None and s != found):
            return None
        found = s
    return found


def _broadcast(a: Shape | None, b: Shape | None) -> Shape | None:
    if a is None or b is None or not a.exact or not b.exact:
        return None
    n = max(len(a.dims), len(b.dims))
    x = (1,) * (n - len(a.dims)) + a.dims
    y = (1,) * (n - len(b.dims)) + b.dims
    out: list[int | None] = []
    for i, j in zip(x, y, strict=False):
        if i == 1:
            out.append(j)
        elif j == 1 or i == j:
            out.append(i)
        elif i is None or j is None:
            out.append(None)
        else:
            return None  # does not broadcast: not ours to say
    return Shape(tuple(out))


def _subscript(p, sub: cst.Subscript) -> Shape | None:
    base = sub.value
    if type(base) is cst.Attribute and base.attr.value == "shape":
        return (
            SCALAR
            if _index(p, sub) is not None and (shape(p, base.value) is not None or _shaped_value(p, base.value))
            else None
        )
    element = p.element(sub)
    if element is not None:
        return shape(p, element)
    s = shape(p, base)
    if s is None:
        return None
    found = [_index_kind(p, el) for el in sub.slice]
    kinds = [k for k in found if k is not None]
    if len(kinds) != len(found) or kinds.count("...") > 1:
        return None
    if "..." in kinds:  # ``x[..., None]``: the entries after it index the last axes
        if not s.exact:
            return None
        at = kinds.index("...")
        before, after = kinds[:at], kinds[at + 1 :]
        taken = sum(k != "new" for k in before + after)
        if taken > len(s.dims):
            return None
        head = _indexed(s.dims, before)
        n_after = sum(k != "new" for k in after)
        tail = _indexed(s.dims[len(s.dims) - n_after :], after)
        middle = s.dims[sum(k != "new" for k in before) : len(s.dims) - n_after]
        return Shape(head + middle + tail)
    taken = sum(k != "new" for k in kinds)
    if taken > len(s.dims):
        return None
    return Shape(_indexed(s.dims, kinds) + s.dims[taken:], s.exact)


def _index_kind(p, el: cst.SubscriptElement) -> str | None:
    """``int`` (drops an axis), ``all`` (``:``, keeps it), ``new`` (``None``, adds one of
    size 1), ``...``; None for anything else (an array index, a bounded slice)."""
    x = el.slice
    if type(x) is cst.Slice:
        return "all" if x.lower is None and x.upper is None and x.step is None else None
    if type(x) is not cst.Index or x.star is not None:
        return None
    if type(x.value) is cst.Ellipsis:
        return "..."
    if type(x.value) is cst.Name and x.value.value == "None" and not p.reaching(x.value):
        return "new"
    return "int" if type(p.literal(x.value)) is int else None


def _indexed(dims: tuple, kinds: list[str]) -> tuple:
    """The axes ``kinds`` (no ``...``) leave of the leading ``dims`` they index."""
    out, i = [], 0
    for k in kinds:
        if k == "new":
            out.append(1)
            continue
        if k == "all":
            out.append(dims[i])
        i += 1
    return tuple(out)


def _arg(call: cst.Call, index: int | None, keyword: str) -> cst.BaseExpression | None:
    for a in call.args:
        if a.keyword is not None and a.keyword.value == keyword:
            return a.value
    if index is None:
        return None
    pos = [a for a in call.args if a.keyword is None and not a.star]
    return pos[index].value if index < len(pos) else None


def _dims(p, expr: cst.BaseExpression) -> tuple[int | None, ...] | None:
    """A shape argument: an int, a tuple/list of sizes, ``x.shape``, a constant."""
    expr = given_expr(p, expr)
    v = p.literal(expr)
    if type(v) is int:
        return (v,)
    if isinstance(v, (tuple, list)) and all(type(x) is int for x in v):
        return tuple(v)
    d = p.display(expr)
    if d is not None:
        if any(type(e) is cst.StarredElement for e in d.elements):
            return None
        return tuple(size(p, e.value) for e in d.elements)
    if type(expr) is cst.Attribute and expr.attr.value == "shape":
        s = shape(p, expr.value)
        return s.dims if s is not None and s.exact else None
    if size(p, expr) is not None:
        return (size(p, expr),)
    return None


def _call(p, call: cst.Call) -> Shape | None:
    if any(a.star for a in call.args):
        return None
    func = call.func
    pos = [a.value for a in call.args if a.keyword is None]
    if type(func) is cst.Name and func.value in SCALAR_BUILTINS and not p.reaching(func):
        return SCALAR
    q = _qualified(p, func)
    if q is None:
        return _method(p, call, pos) or _helper(p, call) or _test_rand(p, call)
    if q in SCALAR_CALLS:
        return SCALAR
    if q in KEYS:
        return KEYS[q]
    if q == "jax.random.permutation":  # shuffles an array (or ``arange(n)`` of an int ``n``)
        given = _arg(call, 1, "x")
        s = shape(p, given)
        if s == SCALAR:
            n = size(p, given)
            return Shape((n,)) if n is not None else None
        return s
    if q == "jax.numpy.linalg.norm" or q == "numpy.linalg.norm":
        return _norm(p, call)
    if q == "jax.random.fold_in":
        return shape(p, pos[0]) if pos else None
    if q == "jax.random.split":
        num = _arg(call, 1, "num")
        n = 2 if num is None else size(p, num)
        if n is None:
            return None
        key = shape(p, _arg(call, 0, "key"))
        if key is not None and key.exact and key.dims in ((), (2,)):
            return Shape((n, *key.dims))
        return Shape((n,), exact=False)
    if q in SHAPED:
        index, keyword = SHAPED[q]
        given = _arg(call, index, keyword)
        if given is None:
            return SCALAR if q in SCALAR_BY_DEFAULT else None
        dims = _dims(p, given)
        return Shape(dims) if dims is not None else None
    if q in DIMS:
        if len(pos) != len(call.args):
            return None
        return Shape(tuple(size(p, a) for a in pos))
    if q in LIKE:
        given = _arg(call, None, "shape")
        if given is not None:
            dims = _dims(p, given)
            return Shape(dims) if dims is not None else None
        return shape(p, pos[0]) if pos else None
    if q in SAME:
        if pos and type(pos[0]) in (cst.List, cst.Tuple) and len(call.args) <= 2:
            return _nested(pos[0])
        return shape(p, pos[0]) if pos and len(call.args) <= 2 else None
    if q.endswith(".arange") and q.rsplit(".", 1)[0] in _NP:
        return _arange(p, call, pos)
    if q.endswith(".eye") and q.rsplit(".", 1)[0] in _NP:
        rows = _arg(call, 0, "N")
        if rows is None:
            return None
        columns = _arg(call, 1, "M")
        return Shape((size(p, rows), size(p, rows) if columns is None or _is_none(columns) else size(p, columns)))
    if q.endswith(".linspace") and q.rsplit(".", 1)[0] in _NP:
        if len(pos) < 2 or shape(p, pos[0]) != SCALAR or shape(p, pos[1]) != SCALAR:
            return None
        num = _arg(call, 2, "num")
        return Shape((50 if num is None else size(p, num),))
    if q in RESHAPES:
        return _reshape(
            p,
            pos[0] if pos else None,
            pos[1:]
            if len(pos) > 1
            else [a.value for a in call.args if a.keyword is not None and a.keyword.value in ("shape", "newshape")],
        )
    if q in STACKS or q in CONCATS:
        return _join(p, call, pos, q in STACKS)
    if q in EXPAND_DIMS:
        return _expand_dims(p, call)
    return None


def _norm(p, call: cst.Call) -> Shape | None:
    """``linalg.norm(x, axis=-1)``: that axis removed (kept as 1 under ``keepdims=True``);
    without ``axis`` or ``ord``, the norm of everything: a scalar."""
    base = shape(p, _arg(call, 0, "x"))
    if base is None or any(
        a.keyword is not None and a.keyword.value not in ("ord", "axis", "keepdims") for a in call.args
    ):
        return None
    axis_expr, ord_expr, keep_expr = _arg(call, 2, "axis"), _arg(call, 1, "ord"), _arg(call, 3, "keepdims")
    keep = False if keep_expr is None else p.literal(keep_expr)
    if type(keep) is not bool:
        return None
    if axis_expr is None or _is_none(axis_expr):
        if ord_expr is not None or keep:
            return None
        return SCALAR
    axis = p.literal(axis_expr)
    if type(axis) is not int or not base.exact or not -len(base.dims) <= axis < len(base.dims):
        return None
    axis %= len(base.dims)
    return Shape(base.dims[:axis] + ((1,) if keep else ()) + base.dims[axis + 1 :])


def _expand_dims(p, call: cst.Call) -> Shape | None:
    """``jnp.expand_dims(x, axis)``: a new axis of size 1 at each position given."""
    base = shape(p, _arg(call, 0, "a"))
    axis = p.literal(_arg(call, 1, "axis"))
    axes = (axis,) if type(axis) is int else axis
    if base is None or not base.exact or not isinstance(axes, tuple) or not all(type(a) is int for a in axes):
        return None
    rank = len(base.dims) + len(axes)
    where = sorted(a + rank if a < 0 else a for a in axes)
    if len(set(where)) != len(where) or not all(0 <= a < rank for a in where):
        return None
    dims = list(base.dims)
    for a in where:
        dims.insert(a, 1)
    return Shape(tuple(dims))


def _nested(display) -> Shape | None:
    """``np.array([[0], [2]])``: the shape of a nested display of number literals."""
    if type(display) not in (cst.List, cst.Tuple):
        t = type(display)
        if t is cst.UnaryOperation and type(display.operator) in (cst.Minus, cst.Plus):
            t = type(display.expression)
        return SCALAR if t in (cst.Integer, cst.Float) else None
    parts: list[Shape] = []
    for e in display.elements:
        if type(e) is cst.StarredElement:
            return None
        s = _nested(e.value)
        if s is None or (parts and s != parts[0]):
            return None
        parts.append(s)
    if not parts:
        return Shape((0,))
    return Shape((len(parts), *parts[0].dims))


def _test_rand(p, call: cst.Call) -> Shape | None:
    """``rng(shape, dtype)`` with ``rng = jtu.rand_default(self.rng())`` (or called at
    once): jax's test_util random factories give an array of the shape asked for."""
    func = call.func
    if type(func) is cst.Name:
        b = p.binding(func)
        if b is None or b.kind != "assign" or b.unpack or b.value is None:
            return None
        func = b.value
    if type(func) is not cst.Call:
        return None
    q = _qualified(p, func.func)
    if q is None or "test_util" not in q or q.rsplit(".", 1)[1] not in TEST_RANDS or not q.startswith("jax"):
        return None
    given_shape = _arg(call, 0, "shape")
    dims = _dims(p, given_shape) if given_shape is not None else None
    return Shape(dims) if dims is not None else None


def _is_none(expr) -> bool:
    return type(expr) is cst.Name and expr.value == "None"


def _arange(p, call: cst.Call, pos) -> Shape | None:
    if any(a.keyword is not None and a.keyword.value != "dtype" for a in call.args) or not 1 <= len(pos) <= 3:
        return None
    values = [size(p, a) for a in pos]
    if len(pos) == 1:
        return Shape((values[0] if values[0] is None or values[0] >= 0 else 0,))
    known = [v for v in values if v is not None]
    if len(known) == len(values):
        start, stop = known[0], known[1]
        step = known[2] if len(known) == 3 else 1
        if step == 0:
            return None
        return Shape((max(0, -(-(stop - start) // step)),))
    if all(shape(p, a) == SCALAR for a in pos):
        return Shape((None,))
    return None


def _method(p, call: cst.Call, pos) -> Shape | None:
    func = call.func
    if type(func) is not cst.Attribute:
        return _alias_randn(p, call, pos)
    name = func.attr.value
    if name == "randn" or name == "rand":
        if _random_state(p, func.value) and len(pos) == len(call.args):
            return Shape(tuple(size(p, a) for a in pos))
        return None
    if name in SIZED_SAMPLES and _random_state(p, func.value):
        given = _arg(call, SIZED_SAMPLES[name], "size")
        dims = _dims(p, given) if given is not None and not _is_none(given) else None
        return Shape(dims) if dims is not None else None
    if name == "reshape":
        return _reshape(p, func.value, pos) if pos and len(pos) == len(call.args) else None
    if name == "astype":
        return shape(p, func.value)
    return None


def _alias_randn(p, call: cst.Call, pos) -> Shape | None:
    """``R = rng.randn`` then ``R(3, 4)``."""
    if type(call.func) is not cst.Name:
        return None
    b = p.binding(call.func)
    if b is None or b.kind != "assign" or b.unpack or type(b.value) is not cst.Attribute:
        return None
    if b.value.attr.value not in ("randn", "rand") or not _random_state(p, b.value.value):
        return None
    if len(pos) != len(call.args):
        return None
    return Shape(tuple(size(p, a) for a in pos))


def _random_state(p, expr) -> bool:
    """``np.random``, ``np.random.RandomState(0)``, a name bound once to one, or
    ``self.rng()`` (the test cases of jax's own suite return a ``RandomState``)."""
    v = p.value(expr)
    if type(v) is External and v.qualified == "numpy.random":
        return True
    if type(expr) is cst.Name:
        b = p.binding(expr)
        return (
            b is not None and b.kind == "assign" and not b.unpack and b.value is not None and _random_state(p, b.value)
        )
    if type(expr) is cst.Call and not expr.args:
        f = expr.func
        if type(f) is cst.Attribute and f.attr.value == "rng" and type(f.value) is cst.Name and f.value.value == "self":
            return True
    if type(expr) is cst.Call:
        return _qualified(p, expr.func) in RANDOM_STATES
    return False


def _reshape(p, base_expr, dims_args) -> Shape | None:
    if not dims_args:
        return None
    dims = _dims(p, dims_args[0]) if len(dims_args) == 1 else tuple(size(p, a) for a in dims_args)
    if dims is None:
        return None
    if -1 not in dims:
        return Shape(dims)
    if dims.count(-1) != 1:
        return None
    base = shape(p, base_expr) if base_expr is not None else None
    total = _product(base.dims) if base is not None and base.exact else None
    rest = _product([d for d in dims if d != -1])
    fill = total // rest if total is not None and rest else None
    return Shape(tuple(fill if d == -1 else d for d in dims))


def _join(p, call: cst.Call, pos, stack: bool) -> Shape | None:
    """``jnp.stack([a, b])`` / ``jnp.concatenate([a, b], axis=0)`` of a visible list."""
    if not pos:
        return None
    axis_expr = _arg(call, 1, "axis")
    axis = 0 if axis_expr is None else p.literal(axis_expr)
    if type(axis) is not int or any(a.keyword is not None and a.keyword.value not in ("axis",) for a in call.args):
        return None
    d = p.display(pos[0])
    if d is None or not d.elements or any(type(e) is cst.StarredElement for e in d.elements):
        return None
    parts = [shape(p, e.value) for e in d.elements]
    known = [s for s in parts if s is not None and s.exact]
    if not known or any(s.rank != known[0].rank for s in known):
        return None
    rank = len(known[0].dims)  # exact: all its axes
    merged: list[int | None] = []
    for i in range(rank):
        sizes = {s.dims[i] for s in known} - {None}
        if stack or i != (axis % rank if rank else 0):
            merged.append(sizes.pop() if len(sizes) == 1 and len(known) == len(parts) else None)
        else:
            total = [s.dims[i] for s in known] if len(known) == len(parts) else [None]
            sizes_known = [n for n in total if n is not None]
            merged.append(sum(sizes_known) if len(sizes_known) == len(total) else None)
    if stack:
        if not -rank - 1 <= axis <= rank:
            return None
        at = axis if axis >= 0 else axis + rank + 1
        merged.insert(at, len(d.elements))
    elif rank == 0 or not -rank <= axis < rank:
        return None
    return Shape(tuple(merged))
