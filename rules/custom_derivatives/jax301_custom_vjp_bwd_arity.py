from __future__ import annotations

from jaxlint.lint.rule import Invalid, NodeEdit, RuleFix
from jaxlint.lint.wording import worded

from .analysis import CustomDerivativeRule, Registration, names, plural

RAISES = (
    "under `jax.grad` JAX raises `TypeError: Custom VJP bwd rule must produce an output with the same container "
    "(pytree) structure as the args tuple of the primal function`"
)

_CLIP = """import jax
import jax.numpy as jnp

@jax.custom_vjp
def my_clip(x, low, high):
    return jnp.clip(x, low, high)

def my_clip_fwd(x, low, high):
    return my_clip(x, low, high), (x, low, high)

def my_clip_bwd(res, g):
    x, low, high = res
    grad_x = jnp.where((x >= low) & (x <= high), g, 0.0)
    return {ret}

my_clip.defvjp(my_clip_fwd, my_clip_bwd)
"""


class CustomVjpBwdArity(CustomDerivativeRule):
    """
    ## What it does
    Checks what the `bwd` rule of a `jax.custom_vjp` function returns: a tuple (or list)
    with one cotangent per positional argument of the primal function, not counting the
    arguments listed in `nondiff_argnums` / `nondiff_argnames`. Reports a tuple or list of
    the wrong length, and a bare value where a tuple is required (also for a primal with a
    single argument, which needs a 1-tuple). The rules are paired with their primal through
    `f.defvjp(fwd, bwd)`, in the same module or across modules: reported at the `return` of
    `bwd`, or, for a `bwd` defined in another module than the `defvjp`, at that `defvjp`
    argument with the def's file and line in the note. The primal is read as a
    value: a decorator, `jax.custom_vjp(g, ...)` or `partial(jax.custom_vjp, ...)`, with
    `nondiff_argnums` from a constant or a config field, and a primal behind
    `jax.named_scope` or a `functools.wraps` wrapper has the signature it wraps. What
    `bwd` returns is read through variables (`grads = (gx, None); return grads`); a value
    that is one array (a product with the cotangent, a `jax.numpy` call) is not a tuple.

    ## Why is this bad?
    JAX checks the structure only when the function is differentiated, and then fails with
    `TypeError: Custom VJP bwd rule must produce an output with the same container
    (pytree) structure as the args tuple of the primal function ...`. Code that is only
    evaluated in tests passes until the first `jax.grad`.

    ## Example
    ```python
    @jax.custom_vjp
    def my_clip(x, low, high):
        return jnp.clip(x, low, high)

    def my_clip_bwd(res, g):
        x, low, high = res
        return (jnp.where((x >= low) & (x <= high), g, 0.0),)  # one entry for three arguments
    ```

    ## Use instead
    ```python
    def my_clip_bwd(res, g):
        x, low, high = res
        return (jnp.where((x >= low) & (x <= high), g, 0.0), None, None)
    ```
    `None` means "no gradient" for that argument; a list of the right length is accepted too.

    ## Fix safety
    When a single-argument primal's `bwd` returns a bare value, the fix wraps it in a
    1-tuple. It is unsafe because it changes what the program does (from an error to a
    gradient); review that the value really is the cotangent of the argument.

    ## References
    - [Custom derivative rules for JAX-transformable Python functions](https://docs.jax.dev/en/latest/notebooks/Custom_derivative_rules_for_Python_code.html)
    - [`jax.custom_vjp`](https://docs.jax.dev/en/latest/_autosummary/jax.custom_vjp.html)
    """

    code = "JAX301"
    name = "custom-vjp-bwd-arity"
    summary = "A custom_vjp bwd rule returns the wrong number of cotangents"
    help = "Return a tuple with one cotangent (or None) per differentiable primal argument"
    fix_availability = "sometimes"
    VALID = (
        _CLIP.format(ret="(grad_x, None, None)"),
        _CLIP.format(ret="[grad_x, None, None]"),
        "import jax\n\n@jax.custom_vjp\ndef f(x):\n    return x\n\nf.defvjp(lambda x: (x, None), lambda r, g: helper(g))\n",
        (
            "import jax\nfrom functools import partial\n\n@partial(jax.custom_vjp, nondiff_argnums=(0,))\n"
            "def f(fn, x):\n    return fn(x)\n\ndef fwd(fn, x):\n    return fn(x), x\n\n"
            "def bwd(fn, x, g):\n    return (g * 2.0,)\n\nf.defvjp(fwd, bwd)\n"
        ),
        (
            "import jax\n\n@jax.custom_vjp\ndef f(*args):\n    return args[0]\n\n"
            "f.defvjp(lambda *a: (a[0], a), lambda r, g: (g,))\n"
        ),
    )
    INVALID = (
        (
            _CLIP.format(ret="(grad_x,)"),
            Invalid("JAX301", line=14, message="returns 1 cotangent but `my_clip` has 3 differentiable arguments"),
        ),
        (
            (
                "import jax\n\n@jax.custom_vjp\ndef f(x):\n    return x * 2.0\n\n"
                "def f_bwd(res, g):\n    return g * 2.0\n\nf.defvjp(lambda x: (f(x), None), f_bwd)\n"
            ),
            Invalid(
                "JAX301",
                line=8,
                message="return `(g * 2.0,)`",
                fixed="import jax\n\n@jax.custom_vjp\ndef f(x):\n    return x * 2.0\n\n"
                "def f_bwd(res, g):\n    return (g * 2.0,)\n\nf.defvjp(lambda x: (f(x), None), f_bwd)\n",
            ),
        ),
    )

    def check(self, reg: Registration) -> None:
        bwd, primal = reg.rules.get("bwd"), reg.primal
        diff = primal.diff
        if bwd is None or diff is None or bwd.returns is None:
            return
        m = len(diff)
        excluded = f" (`{primal.nondiff_text}` excludes {names(primal.nondiff_names)})" if primal.nondiff else ""
        why = f"{bwd.located()}the differentiable arguments of `{primal.name}` are {names(diff) or 'none'}{excluded}"
        for r in bwd.returns:
            if r.length is not None and r.length != m:
                head = f"{bwd.shown} returns {plural(r.length, 'cotangent')} but `{primal.name}` has " + plural(
                    m, "differentiable argument"
                )
                headline, note = worded(head, "return one per argument, `None` where there is no gradient", why, RAISES)
                self.report(bwd.at(r), headline, note=note)
            elif r.length is None:
                want = f"`({r.text},)`" if m == 1 else f"a {m}-tuple, one entry per argument"
                headline, note = worded(
                    f"{bwd.shown} returns `{r.text}`, not a tuple of cotangents", f"return {want}", why, RAISES
                )
                fix = None
                if m == 1 and not bwd.where and r.text != "None" and r.node is not None:
                    code = self.ctx.code(r.node)
                    fix = RuleFix(f"Return the 1-tuple `({r.text},)`", [NodeEdit(r.node, f"({code},)")], "unsafe")
                self.report(bwd.at(r), headline, note=note, fix=fix)
