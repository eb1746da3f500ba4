from __future__ import annotations

from typing import Any

import libcst as cst

from jaxlint.lint.rule import Invalid
from jaxlint.lint.wording import clipped
from jaxlint.model.abstract import (
    RAW_KEY,
    Array,
    Bound,
    Const,
    External,
    Function,
    List,
    Scalar,
    Tuple,
    as_array,
    leaves,
    path_text,
)
from jaxlint.model.annotations import annotated_value
from jaxlint.model.catalogue import lookup
from jaxlint.model.contexts import default_frame
from jaxlint.model.mapsites import application_value
from jaxlint.model.signature import bind
from jaxlint.model.uses import use_of, uses

from .analysis import ALLOW_INT_APIS, GradRule, Site, at_line, normalised


class ArgnumsIntegerParam(GradRule):
    """
    ## What it does
    Reports `argnums` of `jax.grad`, `value_and_grad`, `jacrev`, `jacfwd`, `jacobian` or
    `hessian` (the default `argnums=0` included) that selects a parameter which is visibly
    an integer or static value: annotated `int` or `bool` (or, with jaxtyping, an integer
    array or a key: `Int[Array, "n"]`, `Key[Array, ""]`), with an integer or boolean
    default, used as a Python loop bound (`range(n)`) or as an argument a JAX function
    takes as a Python value (a shape: `jnp.zeros((n, d))`), marked static by a `jax.jit` of the same function
    (`static_argnums` / `static_argnames`), or given, where the gradient is called in view,
    a value whose dtype JAX cannot differentiate as the model evaluates it: a Python int or
    bool, an integer or boolean array, a PRNG key (`jax.random.PRNGKey(0)`,
    `jax.random.key(0)`, a split of one), also as a leaf of a pytree argument. A
    parameter without a visible value is not reported. `allow_int=True` and
    `holomorphic=True` are never reported.

    ## Why is this bad?
    JAX differentiates only floating-point (or complex) inputs. Called with an integer, the
    gradient fails: `TypeError: grad requires real- or complex-valued inputs (input dtype
    that is a sub-dtype of np.inexact), but got int32` (`jacfwd`/`hessian`: "requires
    real-valued inputs"). A shape or loop bound cannot be traced at all.

    ## Example
    ```python
    def loss(params, n_steps: int):
        for _ in range(n_steps):
            params = params * 0.9
        return jnp.sum(params)

    g = jax.grad(loss, argnums=(0, 1))
    ```

    ## Use instead
    ```python
    g = jax.grad(loss, argnums=0)
    ```

    ## References
    - [jax.grad](https://docs.jax.dev/en/latest/_autosummary/jax.grad.html)
    - [Autodiff of integer inputs (float0)](https://docs.jax.dev/en/latest/notebooks/autodiff_cookbook.html)
    """

    code = "JAX405"
    name = "argnums-integer-param"
    summary = "`argnums` selects a parameter that is visibly an integer or static value"
    help = "Differentiate only floating-point parameters (or pass allow_int=True for a float0 gradient)"
    VALID = (
        "import jax\ndef f(x, n: int):\n    return x * n\ng = jax.grad(f, argnums=0)\n",
        "import jax\ndef f(x, n: int):\n    return x * n\ng = jax.grad(f, argnums=1, allow_int=True)\n",
        "import jax\ndef f(x, scale=1.0):\n    return x * scale\ng = jax.grad(f, argnums=1)\n",
        "import jax\ndef f(w, n):\n    return w ** n\ng = jax.grad(f, argnums=0)(1.0, 2)\n",
    )
    INVALID = (
        (
            "import jax\ndef f(x, n: int):\n    return x * n\ng = jax.grad(f, argnums=1)\n",
            Invalid("JAX405", line=4, message="`n`, which is annotated `int`"),
        ),
        (
            "import jax\nimport jax.numpy as jnp\ndef f(x, n):\n    return jnp.sum(x * jnp.zeros((n, 3)))\ng = jax.jacfwd(f, argnums=(0, 1))\n",
            Invalid("JAX405", line=5, message="used as a shape"),
        ),
        (
            "import jax\ndef f(x, k):\n    return x * k\nfj = jax.jit(f, static_argnums=1)\ng = jax.grad(f, argnums=1)\n",
            Invalid("JAX405", line=5, message="static in `jit`"),
        ),
        (
            "import jax\ndef f(w, n):\n    return w ** n\ng = jax.grad(f, argnums=1)(1.0, 2)\n",
            Invalid("JAX405", line=4, message="given `2` (a Python int) in `jax.grad(f, argnums=1)(1.0, 2)` at line 4"),
        ),
    )

    def verdict(self, site: Site) -> str | None:
        if site.inexact_only:
            return None  # ``eqx.filter_grad``: an int or bool leaf gets no gradient, and raises nothing
        if site.option("allow_int", False) is not False or site.option("holomorphic", False) is not False:
            return None
        nums = site.argnums()
        target = site.target
        if nums is None or target is None or target.leaf is None:
            return None
        given = self.given(site, nums, None if target.varargs else target.params)
        idx = normalised(nums, len(target.params)) if not target.varargs else None
        declared = Declared(target.leaf, self.ctx) if idx is not None else None
        for i in nums:
            name = target.params[i] if idx is not None else None
            why, ints, got = given.get(i, (None, True, None))
            if why is None and declared is not None and name is not None and i not in self.inexact:
                why, ints = declared.why(name)
            if why is None:
                continue
            api = site.api_name
            if ints:
                # the name JAX's message gives: value_and_grad checks as grad, hessian as jacfwd
                said = {"value_and_grad": "grad", "hessian": "jacfwd", "jacobian": "jacrev"}.get(api, api)
                err = f"`{api}` fails with `TypeError: {jax_error(said, got)}`"
            else:
                err = "a static argument is a Python value that cannot be traced or differentiated"
            hint = (
                " (or pass allow_int=True if a float0 gradient is really wanted)" if site.api in ALLOW_INT_APIS else ""
            )
            what = f"`{name}`" if name is not None else f"argument {i}"
            return (
                f"`{site.shown}` argnums={site.option('argnums', 0)!r} differentiates {what}, which is {why}; "
                f"{err}. Differentiate only floating-point parameters{hint}"
            )
        return None

    def given(self, site: Site, nums: list[int], names: list[str] | None) -> dict[int, tuple[str, bool, str | None]]:
        """Positions (as argnums spells them) where a call in view passes an integer, boolean
        or PRNG key value, with the dtype JAX names it by (None: not known); ``self.inexact``:
        those where some call passes a floating array."""
        out: dict[int, tuple[str, bool, str | None]] = {}
        self.inexact: set[int] = set()
        for call in site.calls:
            args = call.positional
            if args is None:
                continue
            nodes = [a.value for a in call.node.args if a.keyword is None]
            for i in nums:
                if not -len(args) <= i < len(args):
                    continue
                v = args[i]
                bad = [(path, k, leaf) for path, leaf in leaves(v) if (k := integer_kind(leaf)) is not None]
                if not bad:
                    a = as_array(v)
                    if a is not None and a.dtype is not None and a.dtype.kind in ("float", "complex"):
                        self.inexact.add(i)
                    continue
                path, kind, leaf = bad[0]
                got = jax_dtype(leaf)
                text = clipped(self.ctx.code(nodes[i]), 40) if len(nodes) == len(args) else f"argument {i}"
                root = names[i] if names is not None and -len(names) <= i < len(names) else "the argument"
                leaf_text = f", whose leaf `{path_text(root, path)}` is {kind}," if path else f" ({kind})"
                call_text = clipped(self.ctx.code(call.node))
                out.setdefault(
                    i, (f"given `{text}`{leaf_text} in `{call_text}` {at_line(self.ctx, call.node)}", True, got)
                )
        return out


def integer_kind(v: Any) -> str | None:
    """What makes a value one JAX cannot differentiate: an int, a bool, a PRNG key."""
    t = type(v)
    if t is Const and isinstance(v.value, bool):
        return "a Python bool"
    if t is Const and isinstance(v.value, int):
        return "a Python int"
    if t is Scalar and v.kind in ("int", "bool"):
        return f"a Python {v.kind}"
    if t is Array and v.dtype is not None:
        if v.dtype.kind == "key" or v.dtype == RAW_KEY:
            return "a PRNG key"
        if v.dtype.kind in ("int", "uint", "bool"):
            return f"an array of dtype {v.dtype.name or v.dtype.kind}"
    return None


def jax_dtype(v: Any) -> str | None:
    """The dtype JAX's error names for a value it cannot differentiate (jax 0.10.2, 64-bit
    types off: a Python int is ``int32``, a ``PRNGKey`` array ``uint32``, a typed key
    ``key<fry>``), or None when the model does not know it."""
    t = type(v)
    if (t is Const and isinstance(v.value, bool)) or (t is Scalar and v.kind == "bool"):
        return "bool"
    if (t is Const and isinstance(v.value, int)) or (t is Scalar and v.kind == "int"):
        return "int32"
    if t is Array and v.dtype is not None:
        if v.dtype == RAW_KEY:
            return "uint32"
        if v.dtype.kind == "bool":
            return "bool"
        return v.dtype.name
    return None


def jax_error(said: str, got: str | None) -> str:
    """JAX's error for differentiating a non-float input (``said``: the transform that
    checks: ``grad``, ``jacrev`` or ``jacfwd``), as jax 0.10.2 words it."""
    real = "real-valued inputs" if said == "jacfwd" else "real- or complex-valued inputs"
    if got is None:
        return f"{said} requires {real}"
    if said == "jacfwd" and got.startswith("key<"):
        return f"jacfwd with input element type {got}"
    sub = "np.floating" if said == "jacfwd" else "np.inexact"
    return f"{said} requires {real} (input dtype that is a sub-dtype of {sub}), but got {got}"


class Declared:
    """What a def says of its parameters: annotations, defaults, Python-value uses, and a
    ``jit`` of it that makes them static."""

    def __init__(self, leaf: Function, here: object) -> None:
        self.leaf, self.here = leaf, here  # ``here``: the context of the site's file
        self.p = leaf.program
        self.ev = self.p.evaluator
        self.sig = self.ev.signature(leaf)

    def why(self, name: str) -> tuple[str | None, bool]:
        param = self.sig.param(name) if self.sig is not None else None
        if param is None:
            return None, True
        # what the annotation says the parameter is (``int``, ``Int[Array, "n"]``, ``Key[...]``)
        ann = param.annotation
        if ann is not None and integer_kind(annotated_value(self.ev, ann, name, name, self.leaf.node)) is not None:
            return f"annotated `{self.p.ctx.code(param.annotation)}`", True
        d = param.default
        if type(d) is Const and isinstance(d.value, int):
            return f"its default is `{d.value!r}`", True
        maybe_none = type(d) is Const and d.value is None  # ``key=None``: an empty pytree, perhaps
        use = self.static_use(name) or (None if maybe_none else self.key_use(name))
        if use is not None:
            return use, True
        return self.jit_static(name), False

    def key_use(self, name: str) -> str | None:
        """The body consumes the parameter as a PRNG key (the model's ``uses``): whatever a
        caller passes there, it is a key, never a float."""
        node = self.leaf.node
        if "key" not in uses(self.p, node).get(name, ()):
            return None
        scope = self.p.scope_of_node.get(node)
        for b in scope.bindings.get(name, ()) if scope is not None else ():
            if b.kind != "param":
                continue
            for read in self.p.references(b)[0]:
                arg = self.p.parents.get(read)
                call = self.p.parents.get(arg) if type(arg) is cst.Arg else None
                if type(call) is cst.Call and "key" in use_of(self.p, read):
                    return f"used as a PRNG key in `{clipped(self.p.ctx.code(call))}`"
        return None

    def static_use(self, name: str) -> str | None:
        """A use of the parameter that needs a Python value: a loop bound, or an argument a
        catalogue function takes as a static value (a shape)."""
        node, ctx = self.leaf.node, self.p.ctx
        frame = default_frame(self.ev, node)
        for call in ctx.descendants(node.body):
            if type(call) is not cst.Call or any(a.star for a in call.args):
                continue
            fn = self.ev.value(call.func, frame)
            if type(fn) is not External:
                continue
            op = lookup(fn.qualified)
            if fn.qualified == "builtins.range":
                static, how = [a.value for a in call.args], "a loop bound"
            elif op is not None and op.static:
                b = bind(op.signature, [(a.value, a.keyword.value if a.keyword else None, "") for a in call.args])
                static = [b.arguments[k] for k in op.static if k in b.arguments and b.error is None]
                static = [x for s in static for x in (s if isinstance(s, tuple) else (s,))]
                how = "a shape" if "shape" in op.static else "a static argument"
            else:
                continue
            for expr in static:
                items = [e.value for e in expr.elements] if isinstance(expr, (cst.Tuple, cst.List)) else [expr]
                for it in items:
                    found = self.p.binding(it) if isinstance(it, cst.Name) and it.value == name else None
                    if found is not None and found.kind == "param" and found.scope.node is node:
                        return f"used as {how} in `{clipped(ctx.code(call))}`"
        return None

    def jit_static(self, name: str) -> str | None:
        """``jax.jit(f, static_argnums=...)`` of the same def, in its module."""
        for app in self.p.applications("jax.jit"):
            v = application_value(self.p, app.node)
            if v is None or v.unknown_options:
                continue
            base = self.ev.signature(v.target)
            tgt = v.target.func if type(v.target) is Bound else v.target
            if base is None or type(tgt) is not Function or tgt.node is not self.leaf.node:
                continue
            where = f"`jit` {at_line(self.p.ctx, app.node)}"
            if self.p.ctx is not self.here:  # another module: name it (``losses.py:12``)
                line = self.p.ctx.exact_lines([app.node]).get(app.node)
                where = f"`jit` at {self.p.ctx.path.rsplit('/', 1)[-1]}:{line}"
            positional = [p.name for p in base.positional]
            for option in ("static_argnums", "static_argnames"):
                got = v.option(option)
                values = got.items if type(got) in (Tuple, List) else (got,) if got is not None else ()
                for x in values:
                    c = x.value if type(x) is Const else None
                    hit = (
                        c == name
                        if isinstance(c, str)
                        else (isinstance(c, int) and -len(positional) <= c < len(positional) and positional[c] == name)
                    )
                    if hit:
                        return f"static in {where} ({option}={_text(got)})"
        return None


def _text(v: Any) -> str:
    if type(v) is Const:
        return repr(v.value)
    if type(v) in (Tuple, List):
        inner = ", ".join(_text(x) for x in v.items)
        return f"({inner}{',' if len(v.items) == 1 else ''})" if type(v) is Tuple else f"[{inner}]"
    return "..."
