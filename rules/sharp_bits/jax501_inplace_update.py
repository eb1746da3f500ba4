"""JAX501: item assignment into a JAX array (``x[i] = v``), which JAX arrays do not support."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import libcst as cst

from jaxlint.lint.rule import Invalid, NodeEdit, Rule, RuleFix
from jaxlint.lint.wording import split

from .analysis import TRACING_APIS, analysis
from .elsewhere import export, traced_layers, where
from .seeds import subscript_store_units

if TYPE_CHECKING:
    from jaxlint.base.types import Pending
    from jaxlint.model.project import Project

WHERE = "{where}"  # a pending message's stand-in for the transform that traces the def

# augmented operator -> its binary operator (``jnp.where(mask, x + v, x)``)
OPERATOR_TEXT = {
    cst.AddAssign: "+",
    cst.SubtractAssign: "-",
    cst.MultiplyAssign: "*",
    cst.DivideAssign: "/",
    cst.PowerAssign: "**",
}


def _boolean_mask(e: cst.BaseExpression) -> bool:
    """Is the index a boolean mask by its form: a comparison (not ``is``/``in``), or
    ``&``, ``|``, ``^``, ``~`` of such?"""
    if isinstance(e, cst.Comparison):
        return all(
            isinstance(
                c.operator,
                (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual),
            )
            for c in e.comparisons
        )
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return _boolean_mask(e.left) and _boolean_mask(e.right)
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.BitInvert):
        return _boolean_mask(e.expression)
    return False


# augmented operator -> the ``.at[...]`` method that does the same out of place
AT_METHOD = {
    cst.AddAssign: "add",
    cst.SubtractAssign: "subtract",
    cst.MultiplyAssign: "multiply",
    cst.DivideAssign: "divide",
    cst.PowerAssign: "power",
}


class InplaceUpdate(Rule):
    """
    ## What it does
    Reports item assignment into a value that is visibly a JAX array: `x[i] = v`,
    `x[mask] = 0`, `x[i] += v`, `x[:, j] *= c`, where `x` was made by a `jax.numpy`,
    `jax.random`, `jax.lax` or `jax.nn` function (or an operation on such an array, or
    `x.at[...].set(...)`; jax's own `jax._src.numpy` counts as `jax.numpy`), is annotated
    `jax.Array` (unless the body reads or writes it whole as `x[...]`, how a Pallas
    kernel uses a Ref it annotates that way), is a parameter the function also updates with `x.at[...].set(...)` (only a
    JAX array has `.at`), or is a traced argument of a function under
    `jit`/`vmap`/`pmap`/`lax.scan`/... that the body uses as an array (`x.shape`, `x.sum()`,
    `x[:, 0]`, `x[None]`, `jnp.sum(x)`, ...) — also when the transform is in another
    module (`jax.jit(utils.normalize)`, or a jitted step there calling `utils.normalize`
    with its traced values). NumPy arrays (`np.zeros`, `np.array(x)`), dicts, lists, unknown values,
    augmented assignment to a plain name (`x *= 2` rebinds `x`), and statements inside
    `with pytest.raises(...)` / `assertRaises` or a `try` that catches `TypeError` are not
    reported.

    ## Why is this bad?
    JAX arrays are immutable. On jax 0.10.2 the assignment raises, eagerly and under
    `jit` alike: `TypeError: JAX arrays are immutable and do not support in-place item
    assignment. Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method`.

    ## Example
    ```python
    x = jnp.zeros(5)
    x[2] = 1.0
    x[0] += 3.0
    ```

    ## Use instead
    ```python
    x = jnp.zeros(5)
    x = x.at[2].set(1.0)
    x = x.at[0].add(3.0)
    ```

    ## Fix safety
    The fix rewrites `x[i] = v` to `x = x.at[i].set(v)` (`+=` → `.add`, `-=` →
    `.subtract`, `*=` → `.multiply`, `/=` → `.divide`, `**=` → `.power`); under a trace,
    where `x.at[mask]` raises `NonConcreteBooleanIndexError` for a traced boolean mask,
    `x[x < 0] = v` becomes `x = jnp.where(x < 0, v, x)` (`+=` → `jnp.where(mask, x + v, x)`).
    It is unsafe:
    only the name `x` sees the new value (other names bound to the old array keep it), and
    with repeated indices `.at[...].add` accumulates every occurrence where NumPy's
    `x[idx] += v` applies only one.

    ## References
    - [JAX sharp bits: in-place updates](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#in-place-updates)
    - [jax.numpy.ndarray.at](https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html)
    """

    code = "JAX501"
    name = "inplace-update"
    summary = "In-place item assignment into a JAX array"
    status = "stable"
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    fix_availability = "sometimes"
    help = "Use `x = x.at[idx].set(v)` (or `.add`, `.multiply`, ...): JAX arrays are immutable"
    # any JAX API (its sites: every unit that assigns into a subscript, ``seeds``); the
    # tracing APIs say which calls hand on a function whose arguments are traced
    about = ("jax.*", *TRACING_APIS)
    # the visible calls of a def that give it its arrays; a def here that a transform of
    # another module traces (``call paths``), or that a traced def there calls
    reads = ("targets", "calls", "call paths", "target callees")
    context_words = ("jax",)  # the module of such a def may name none of the transforms

    VALID = (
        "import jax.numpy as jnp\nx = jnp.zeros(3)\nx = x.at[0].set(1.0)\n",
        "import numpy as np\nx = np.zeros(3)\nx[0] = 1.0\n",
        "import jax.numpy as jnp\nimport numpy as np\nx = np.array(jnp.zeros(3))\nx[0] = 1.0\n",
        "import jax.numpy as jnp\nd = {'w': jnp.zeros(3)}\nd['w'] = jnp.ones(3)\n",
        "import jax.numpy as jnp\nx = jnp.zeros(3)\nx *= 2\n",
        "import jax\n@jax.jit\ndef f(params, x):\n    params['b'] = x\n    return params\n",
    )
    INVALID = (
        (
            "import jax.numpy as jnp\nx = jnp.zeros(3)\nx[0] = 1.0\n",
            Invalid(
                "JAX501",
                line=3,
                message="`x`, a JAX array (made by `jnp.zeros(3)`)",
                fixed="import jax.numpy as jnp\nx = jnp.zeros(3)\nx = x.at[0].set(1.0)\n",
            ),
        ),
        (
            "import jax.numpy as jnp\nx = jnp.arange(4.0)\nx[1:3] += 2.0\n",
            Invalid("JAX501", line=3, fixed="import jax.numpy as jnp\nx = jnp.arange(4.0)\nx = x.at[1:3].add(2.0)\n"),
        ),
        (
            "import jax\n@jax.jit\ndef f(x):\n    x[0] = x.sum()\n    return x\n",
            Invalid("JAX501", line=4, message="traced argument of `f`"),
        ),
    )

    @classmethod
    def seeds(cls, outline):
        # and the units that apply a tracing API: what they trace may be another module's
        # def that assigns in place (the project phase, ``resolve``)
        return subscript_store_units(outline) | (super().seeds(outline) or set())

    def finish(self) -> None:
        ctx = self.ctx
        reported = set()
        for flow in analysis(ctx).values():
            for item in flow.setitems.values():
                head, note = split(self.message(item))
                self.report(item.target, head, fix=self.fix(item), note=note)
                reported.add(item.target)
        export(ctx, self.code)  # what the project phase reads of this module (elsewhere.py)
        # a def whose traced parameter it assigns into, were a transform of another module
        # to trace it (``jax.jit(utils.normalize)``): the call paths decide (resolve)
        for found in analysis(ctx).elsewhere():
            qualname = ctx.qualname(found.fn)
            if qualname is None:  # not a def the collector named: the call paths cannot know it
                continue
            for item in found.setitems:
                if item.target in reported:
                    continue  # a JAX array here already (``T: jax.Array``): reported once, above
                data = {
                    "ref": ctx.facts.ref(qualname),
                    "module": ctx.facts.module,
                    "argument": item.argument,
                    "message": self.message(item, traced_in=found.fn.name.value),
                }
                self.pending(item.target, data, fix=self.fix(item, traced=True))

    @classmethod
    def resolve(cls, items: list[Pending], project: Project) -> Iterator[tuple[Pending, str, str]]:
        def wants(d, c) -> bool:  # a traced caller passing the argument assigned into
            return d["argument"] in c["params"]

        for p, layer in traced_layers(items, project, wants):
            yield p, *split(p.data["message"].replace(WHERE, where(layer, p.path)))

    def message(self, item, traced_in: str | None = None) -> str:
        """The message; ``traced_in``: the def whose traced argument the array is, traced by
        a transform of another module (``WHERE`` stands for it until the project phase
        finds it)."""
        ctx = self.ctx
        shown = ctx.code(item.target)
        what = f"`{item.name}`" if item.name else f"`{ctx.code(item.target.value)}`"
        origin = f" ({item.origin})" if item.origin else ""
        if traced_in is not None:
            computed = "" if item.name == item.argument else f"computed from `{item.argument}`, "
            origin = f" ({computed}a traced argument of `{traced_in}`, traced by {WHERE})"
        index = shown[len(item.name) :] if item.name and shown.startswith(item.name) else "[...]"
        method = "set"
        if isinstance(item.stmt, cst.AugAssign):
            method = AT_METHOD.get(type(item.stmt.operator), "set")
        base = item.name or "x"
        instead = f"`{base} = {base}.at{index}.{method}(...)`"
        mask = self.traced_mask(item, traced_in is not None)
        if mask is not None:  # ``.at[mask]`` needs a concrete mask: under a trace it raises too
            instead = f"`{base} = {self.where_text(item, 'jnp', mask, '...')}` (a traced boolean mask cannot index)"
        return (
            f"`{shown}` assigns in place into {what}, a JAX array{origin}; JAX arrays are immutable and this "
            f"raises `TypeError`. Use {instead}"
        )

    def traced_mask(self, item, traced: bool) -> cst.BaseExpression | None:
        """The index of an assignment into a traced array when it is a boolean mask
        (``x[x < 0] = 0``: a comparison, or ``&``/``|``/``~`` of them): under a trace
        ``x.at[mask]`` raises ``NonConcreteBooleanIndexError`` too, and ``jnp.where`` is
        the out-of-place update. None otherwise."""
        if not (traced or item.argument):
            return None
        sl = item.target.slice
        if len(sl) != 1 or not isinstance(sl[0].slice, cst.Index):
            return None
        index = sl[0].slice.value
        return index if _boolean_mask(index) else None

    def where_text(self, item, jnp: str, mask: cst.BaseExpression, value: str) -> str:
        """``jnp.where(mask, new, x)`` for the assignment (``x + v`` for ``+=``, ...)."""
        ctx = self.ctx
        base = item.name or "x"
        new = value
        if isinstance(item.stmt, cst.AugAssign):
            op = OPERATOR_TEXT.get(type(item.stmt.operator))
            if op is None:
                return f"{base}.at[...]"
            new = f"{base} {op} {value}"
        return f"{jnp}.where({ctx.code(mask)}, {new}, {base})"

    def fix(self, item, traced: bool = False) -> RuleFix | None:
        ctx = self.ctx
        stmt = item.stmt
        name = item.name
        if name is None or not isinstance(item.target.value, cst.Name):
            return None
        shown = ctx.code(item.target)
        if not shown.startswith(name + "["):
            return None
        index = shown[len(name) :]
        if isinstance(stmt, cst.Assign):
            if len(stmt.targets) != 1:
                return None
            method = "set"
        elif isinstance(stmt, cst.AugAssign):
            operator_method = AT_METHOD.get(type(stmt.operator))
            if operator_method is None:
                return None
            method = operator_method
        else:
            return None
        value = ctx.code(stmt.value)
        if isinstance(stmt.value, cst.Tuple) and not stmt.value.lpar:
            value = f"({value})"
        mask = self.traced_mask(item, traced)
        if mask is not None:
            jnp = next(iter(ctx.names.local_names_for("jax.numpy")), None)
            if jnp is None or "." in jnp:
                return None  # no name of jax.numpy to write ``jnp.where`` with
            atomic = isinstance(stmt.value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float))
            new = f"{name} = {self.where_text(item, jnp, mask, value if atomic or method == 'set' else f'({value})')}"
            return RuleFix(f"Replace with `{new}`", [NodeEdit(stmt, new)], "unsafe")
        new = f"{name} = {name}.at{index}.{method}({value})"
        return RuleFix(f"Replace with `{new}`", [NodeEdit(stmt, new)], "unsafe")
