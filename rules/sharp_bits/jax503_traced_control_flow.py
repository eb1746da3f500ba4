"""JAX503: Python control flow or bool/int/float conversion on a traced value."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import libcst as cst

from jaxlint.lint.rule import Invalid, Rule
from jaxlint.lint.wording import split
from jaxlint.model.expected import catches_type_error, runs_where_expected

from .analysis import TRACING_APIS, analysis, exact_lines
from .elsewhere import export, stages, traced_layers
from .elsewhere import where as layer_where
from .values import STAGED

if TYPE_CHECKING:
    from jaxlint.base.types import Pending
    from jaxlint.model.project import Project


class TracedControlFlow(Rule):
    """
    ## What it does
    Reports Python control flow and conversions that need a concrete value, applied to a
    traced value: `if`, `elif`, `while`, a conditional expression, `and`/`or`/`not`
    (including `x or default`), `bool()`, `int()`, `float()` and the bounds of `range()`.
    A value is traced when it
    is an argument of a function that `jax.jit`, `checkpoint`, `vmap`, `pmap`, `shard_map`,
    or a `lax.scan`/`fori_loop`/`while_loop`/`cond`/`map` body or a `lax.switch` branch traces (also from another
    module: `jax.jit(layers.relu)` traces `relu` of `layers.py`), is a parameter of a helper
    such a function calls with traced arguments (also through `functools.partial`, an
    object's `__call__` such as a learning-rate schedule, and the helpers that helper calls,
    in any module, even one that never imports jax), or is computed from one (arithmetic,
    comparisons, `jnp`/`lax` functions, array methods, the items of a traced dict, tuple or
    array in a loop or comprehension, the fields of a traced `NamedTuple`, dataclass pytree
    or `eqx.Module` — not its static fields). Under `jit`, `pmap`, `checkpoint` and the `lax`
    bodies, which stage the function out, every JAX operation gives a tracer, even on
    constants (`jnp.sum(W) > 0` with a module-level `W`). Not reported:
    `static_argnums`/`static_argnames` arguments, arguments with a default value (not
    traced unless passed), `vmap` arguments with `in_axes=None`, `shard_map` arguments
    whose `in_specs` entry is `None` (passed as they are), `.shape`, `.dtype`,
    `.ndim`, `.size`, `len()`, `is None` / `in` tests, a bare container argument tested for
    emptiness (a dict of arrays stays a dict under `jit`), functions that are only run
    eagerly or only under `grad` (which keeps values concrete), code a flag that every
    tracing application binds with `partial` rules out, `jax.ensure_compile_time_eval()`
    blocks, and code inside `pytest.raises` / `assertRaises` blocks or called only in a
    `try` whose `except` catches the error.

    ## Why is this bad?
    Under a transform the argument is an abstract tracer: Python cannot decide a branch on
    it. On jax 0.10.2, `if`/`while`/`and`/`or`/`not`/`bool()` raise
    `jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array
    with shape bool[]`, and `int()`/`float()` raise `jax.errors.ConcretizationTypeError:
    Abstract tracer value encountered where concrete value is expected`; `range(n)` of a
    traced `n` raises `jax.errors.TracerIntegerConversionError` (its `__index__`). The same code
    works when called eagerly or under `grad`, so it often breaks only once `jit` is added.

    ## Example
    ```python
    @jax.jit
    def relu(x):
        if x > 0:
            return x
        return 0.0
    ```

    ## Use instead
    ```python
    @jax.jit
    def relu(x):
        return jnp.where(x > 0, x, 0.0)
    ```
    or `lax.cond(x > 0, f, g, x)` for branches with real work, `lax.while_loop` for a
    `while`, or, for a value that selects the program's structure, mark it static:
    `jax.jit(f, static_argnames="n")`.

    ## References
    - [JAX sharp bits: control flow](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#control-flow)
    - [Control flow and logical operators with JIT](https://docs.jax.dev/en/latest/control-flow.html)
    - [jax.errors.TracerBoolConversionError](https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerBoolConversionError)
    """

    code = "JAX503"
    name = "traced-control-flow"
    summary = "Python control flow, `bool()`, `int()`, `float()` or `range()` on a traced value"
    status = "stable"
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    help = "Use `jnp.where` / `lax.cond` / `lax.while_loop`, or mark the argument static"
    about = TRACING_APIS
    # the helpers a traced def calls (``calls``), also in other modules (``target callees``); a
    # def here that a transform of another module traces, or that a traced def there calls
    reads = ("targets", "calls", "call paths", "target callees")
    context_words = ("jax",)  # the module of such a def may name none of the transforms

    VALID = (
        "import jax\nimport jax.numpy as jnp\n@jax.jit\ndef f(x):\n    return jnp.where(x > 0, x, 0.0)\n",
        "import jax\nfrom functools import partial\n@partial(jax.jit, static_argnames='n')\ndef f(x, n):\n    if n > 0:\n        return x * n\n    return x\n",
        "import jax\n@jax.jit\ndef f(x, mask=None):\n    if mask is None:\n        return x\n    return x * mask\n",
        "import jax\n@jax.jit\ndef f(x):\n    if x.ndim == 2 and x.shape[0] > 1:\n        return x.sum(0)\n    return x\n",
        "import jax\ndef f(x):\n    if x > 0:\n        return x ** 2\n    return -x\ng = jax.grad(f)\n",
        "import jax\n@jax.jit\ndef f(params, x):\n    if params:\n        return x + params['b']\n    return -x\n",
    )
    INVALID = (
        (
            "import jax\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return 0.0\n",
            Invalid("JAX503", line=4, message="TracerBoolConversionError"),
        ),
        (
            "import jax\n@jax.jit\ndef f(x, neg):\n    return -x if neg else x\n",
            Invalid("JAX503", line=4, message="`neg` is the traced argument `neg`"),
        ),
        (
            "import jax\ndef f(x, n):\n    return x * int(n)\ng = jax.jit(f)\n",
            Invalid("JAX503", line=3, message="static_argnames='n'"),
        ),
        (
            "import jax\ndef body(i, x):\n    while x < 10:\n        x = x * 2\n    return x\ny = jax.lax.fori_loop(0, 3, body, 1.0)\n",
            Invalid("JAX503", line=3, message="lax.while_loop"),
        ),
    )

    def finish(self) -> None:
        ctx = self.ctx
        # the transform that traces may itself run only where the error is expected
        # (``with self.assertRaises(...): jit(f)(1)``): then the error is the point
        uses = [
            u
            for flow in analysis(ctx).values()
            for u in flow.bools.values()
            if not runs_where_expected(ctx, u.trace.site_of(u.origin), catches_type_error)
        ]
        if uses:
            lines = exact_lines(ctx, [u.trace.site_of(u.origin) for u in uses])
            for u in sorted(uses, key=lambda u: ctx.text_order(u.node)):
                head, note = split(self.message(u, lines))
                self.report(u.node, head, note=note)
        export(ctx, self.code)  # what the project phase reads of this module (elsewhere.py)
        for found in analysis(ctx).elsewhere():
            fn, bools = found.fn, found.bools
            qualname = ctx.qualname(fn)
            if qualname is None:  # not a def the collector named: the call paths cannot know it
                continue
            ref = ctx.facts.ref(qualname)
            for u in bools:
                data = {
                    "ref": ref,
                    "module": ctx.facts.module,
                    "kind": u.kind,
                    "expr": _short(ctx.code(u.expr)),
                    "origin": u.origin,
                    "origins": [u.origin, *found.also.get(u.node, ())],
                    "on_argument": _on_argument(u),
                }
                self.pending(u.node, data)

    def message(self, u, lines) -> str:
        ctx = self.ctx
        line = lines.get(u.trace.site_of(u.origin))
        where = f"{u.trace.api_of(u.origin)}" + (f" at line {line}" if line else "")
        static = u.trace.static_hint and u.origin in u.trace.params and _on_argument(u)
        return _message(u.kind, _short(ctx.code(u.expr)), u.origin, where, static)

    # -- project phase: a def that a transform of another module traces -----------------
    @classmethod
    def resolve(cls, items: list[Pending], project: Project) -> Iterator[tuple[Pending, str, str]]:
        def wants(d, c) -> bool:  # a value computed by a JAX operation: only a staging layer traces it
            if d["origin"] == STAGED:
                return stages(c["api"])
            return any(o in c["params"] for o in d.get("origins", [d["origin"]]))

        for p, layer in traced_layers(items, project, wants):
            d = p.data
            if d["origin"] == STAGED and not stages(layer["api"]):
                continue
            # the parameter this layer traces (a caller may trace one the test depends on)
            given = layer.get("params")
            origin = next((o for o in d.get("origins", ()) if given and o in given), d["origin"])
            static = layer["api"] in ("jit", "pjit") and d["on_argument"] and origin == d["origin"]
            yield p, *split(_message(d["kind"], d["expr"], origin, layer_where(layer, p.path), static))


def _message(kind: str, expr: str, origin: str, where: str, static_hint: bool) -> str:
    if origin == STAGED:
        origin_text = (
            f"`{expr}` is a tracer: {where} stages the function out, and there every JAX operation gives one, "
            "even on constants"
        )
    elif expr == origin:
        origin_text = f"`{expr}` is the traced argument `{origin}` (traced by {where})"
    else:
        origin_text = f"`{expr}` depends on the traced argument `{origin}` (traced by {where})"
    static = (
        f", or mark `{origin}` static (`static_argnames='{origin}'`) if it selects the program's structure"
        if static_hint
        else ""
    )
    if origin == STAGED:  # from constants too: NumPy computes them concretely
        static = "; if it depends on no argument, compute it with NumPy or outside the function"
    if kind == "range":
        return (
            f"`range()` needs concrete int bounds, but {origin_text}: raises `TracerIntegerConversionError`. "
            f"Loop with `lax.fori_loop` or `lax.scan`{static}"
        )
    if kind in ("int", "float"):
        return (
            f"`{kind}()` needs a concrete value, but {origin_text}: raises "
            f"`ConcretizationTypeError`. Keep it an array (`{expr}.astype(...)`, `jnp` operations){static}"
        )
    what = {
        "if": "an `if` test",
        "while": "a `while` test",
        "ifexp": "a conditional expression",
        "and": "the left side of `and`",
        "or": "the left side of `or`",
        "not": "`not`",
        "bool": "`bool()`",
    }[kind]
    fix = {
        "while": "use `lax.while_loop`",
        "or": "test `is None` explicitly or use `jnp.where`",
        "and": "use `jnp.logical_and` / `jnp.where`",
        "not": "use `jnp.logical_not`",
    }.get(kind, "use `jnp.where(...)` or `lax.cond(...)`")
    return f"{what} needs a Python bool, but {origin_text}: raises `TracerBoolConversionError`; {fix}{static}"


def _on_argument(u) -> bool:
    """Is the test the argument itself, or a comparison of it with constants (``n > 0``)?"""
    e = u.expr
    if isinstance(e, cst.Name):
        return True
    if isinstance(e, cst.Comparison):
        parts = [e.left] + [c.comparator for c in e.comparisons]
        return all(
            (isinstance(p, cst.Name) and p.value == u.origin) or isinstance(p, (cst.Integer, cst.Float)) for p in parts
        )
    return False


def _short(text: str, limit: int = 50) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
