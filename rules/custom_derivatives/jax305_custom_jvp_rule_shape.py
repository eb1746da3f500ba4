from __future__ import annotations

from typing import Any

import libcst as cst

from jaxlint.lint.rule import Invalid
from jaxlint.lint.wording import worded
from jaxlint.model import program
from jaxlint.model.abstract import Array, External, Transformed
from jaxlint.model.arrays import TAKES_SEQUENCES

from .analysis import CustomDerivativeRule, Registration, RuleFn, names, plural

_F = """import jax
import jax.numpy as jnp

@jax.custom_jvp
def f(x, y):
    return jnp.sin(x) * y

@f.defjvp
def f_jvp({params}):
    x, y = primals
    x_dot, y_dot = tangents
    return {ret}
"""


class CustomJvpRuleShape(CustomDerivativeRule):
    """
    ## What it does
    Checks the rule given to `f.defjvp` (as a call or a decorator) for a `jax.custom_jvp`
    function: it must take `(primals, tangents)`, two tuples, preceded by the
    `nondiff_argnums` arguments if any, and return a `(primal_out, tangent_out)` pair. A
    two-parameter rule whose first parameter has a name of the primal's arguments, is
    computed with as an array and never unpacked, indexed or passed on
    (`def f_jvp(x, t)`) is reported too. For `f.defjvps(*rules)` it checks that there is
    one rule (or `None`) per positional argument of the primal, each taking
    `(tangent, primal_out, *primals)` (rules spread from a tuple or list are counted), and
    that the primal has no `nondiff_argnums` / `nondiff_argnames`.

    ## Why is this bad?
    A rule written like the primal (`f_jvp(x, y, x_dot, y_dot)`) fails with
    `TypeError: f_jvp() missing 2 required positional arguments`; `f_jvp(x, t)` gets the
    tuples `(x,)` and `(t,)`, and array code fails on them (`TypeError: sin requires
    ndarray or scalar arguments, got <class 'tuple'>`); a rule that returns only
    the tangent fails with `TypeError: Custom JVP rule f_jvp for function f must produce a
    pair (list or tuple of length two) representing primal and tangent outputs`;
    `defjvps` with one rule too few or too many raises `ValueError: safe_zip() argument 1
    has length 1 but argument 0 has length 2`. All of these show up only when the function
    is differentiated. `defjvps` on a function with `nondiff_argnums` raises `TypeError:
    Can't use ``defjvps`` with ``nondiff_argnums``.` as soon as it is called.

    ## Example
    ```python
    @f.defjvp
    def f_jvp(primals, tangents):
        x, y = primals
        x_dot, y_dot = tangents
        return jnp.cos(x) * x_dot * y + jnp.sin(x) * y_dot
    ```

    ## Use instead
    ```python
    @f.defjvp
    def f_jvp(primals, tangents):
        x, y = primals
        x_dot, y_dot = tangents
        return f(x, y), jnp.cos(x) * x_dot * y + jnp.sin(x) * y_dot
    ```

    ## References
    - [Custom derivative rules for JAX-transformable Python functions](https://docs.jax.dev/en/latest/notebooks/Custom_derivative_rules_for_Python_code.html)
    - [`jax.custom_jvp.defjvp`](https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.defjvp.html)
    """

    code = "JAX305"
    name = "custom-jvp-rule-shape"
    summary = "A custom_jvp rule does not take (primals, tangents) or does not return a pair"
    help = "Write the rule as jvp(primals, tangents) returning (primal_out, tangent_out)"
    VALID = (
        _F.format(params="primals, tangents", ret="f(x, y), jnp.cos(x) * x_dot * y + jnp.sin(x) * y_dot"),
        _F.format(params="primals, tangents", ret="[f(x, y), x_dot * y]"),
        _F.format(params="primals, tangents", ret="helper(x, y, x_dot, y_dot)"),
    )
    INVALID = (
        (
            _F.format(params="primals, tangents", ret="jnp.cos(x) * x_dot * y + jnp.sin(x) * y_dot"),
            Invalid("JAX305", line=12, message="not a `(primal_out, tangent_out)` pair"),
        ),
        (
            _F.format(params="x, y, x_dot, y_dot", ret="f(x, y), x_dot"),
            Invalid("JAX305", line=9, message="write it as `f_jvp(primals, tangents)`"),
        ),
        (
            "import jax\nimport jax.numpy as jnp\n\n@jax.custom_jvp\ndef f(x, y):\n    return jnp.sin(x) * y\n\n"
            "f.defjvps(lambda x_dot, out, x, y: jnp.cos(x) * x_dot * y)\n",
            Invalid("JAX305", line=8, message="`f.defjvps` gives 1 rule for 2 arguments of `f`"),
        ),
    )

    def check(self, reg: Registration) -> None:
        if reg.jvps is not None:
            self._defjvps(reg)
            return
        jvp, primal = reg.rules.get("jvp"), reg.primal
        if jvp is None:
            return
        where = jvp.located()
        if primal.nondiff is not None and primal.params is not None:
            n = len(primal.nondiff) + 2
            if not jvp.accepts(n):
                why = (
                    f"because of `{primal.nondiff_text}`, JAX passes the non-differentiable arguments first; "
                    if primal.nondiff
                    else ""
                )
                headline, note = worded(
                    f"{jvp.shown} takes {plural(len(jvp.params), 'positional parameter')} but JAX calls it with {n}",
                    f"write it as {jvp.form([*primal.nondiff_names, 'primals', 'tangents'])}",
                    f"{where}{why}`primals` and `tangents` are tuples of the primal's arguments; under `jax.jvp` or "
                    "`jax.grad` the call fails with `TypeError`",
                )
                self.report(jvp.node, headline, note=note)
                return
            first = self._primal_name_first(jvp, primal.params, primal.nondiff)
            if first is not None:
                primals = ", ".join(primal.params) + ("," if len(primal.params) == 1 else "")
                headline, note = worded(
                    f"{jvp.shown} takes `({first}, {jvp.params[1]})` as if `{first}` were the argument of `{primal.name}`",
                    f"unpack the tuples: `{primals} = primals`",
                    f"{where}JAX passes `primals` and `tangents` as tuples (`({primals})`), and array code fails on them "
                    "(`TypeError: ... requires ndarray or scalar arguments, got <class 'tuple'>`)",
                )
                self.report(jvp.node, headline, note=note)
        for r in jvp.returns or ():
            if r.length != 2:
                what = f"a {r.length}-element sequence" if r.length is not None else f"`{r.text}`"
                headline, note = worded(
                    f"{jvp.shown} returns {what}, not a `(primal_out, tangent_out)` pair",
                    "return both",
                    f"{where}JAX raises `TypeError: Custom JVP rule ... must produce a pair (list or tuple of length "
                    "two) representing primal and tangent outputs` when the function is differentiated",
                )
                self.report(jvp.at(r), headline, note=note)

    def _defjvps(self, reg: Registration) -> None:
        """``f.defjvps(*jvps)``: one rule per positional argument, each called as
        ``jvp(tangent, primal_out, *primals)``; JAX pairs them with ``zip``."""
        primal, jvps = reg.primal, reg.jvps or ()
        node = reg.jvps_node or reg.node
        name = primal.name
        if primal.nondiff:
            headline, note = worded(
                f"`{name}.defjvps` cannot be used with `{primal.nondiff_text}`",
                f"register one rule with `@{name}.defjvp`, taking the non-differentiable arguments first",
                "JAX raises `TypeError: Can't use ``defjvps`` with ``nondiff_argnums``.` as soon as the line runs",
            )
            self.report(node, headline, note=note)
            return
        if primal.params is None:
            return
        n, k = len(primal.params), len(jvps)
        if k != n:
            headline, note = worded(
                f"`{name}.defjvps` gives {plural(k, 'rule')} for {plural(n, 'argument')} of `{name}`",
                "give one per argument, `None` where there is no tangent",
                f"JAX pairs the rules with the arguments {names(primal.params)} one by one, and when the function is "
                f"differentiated raises `ValueError: safe_zip() argument 1 has length {k} but argument 0 has length "
                f"{n}`",
            )
            self.report(node, headline, note=note)
        for rule in jvps:
            if rule is not None and not rule.accepts(n + 2):
                form = rule.form(["t", "primal_out", *primal.params])
                headline, note = worded(
                    f"{rule.shown} takes {plural(len(rule.params), 'positional parameter')} but JAX calls it with {n + 2}",
                    f"write it as {form}",
                    f"{rule.located()}`defjvps` calls each rule with its argument's tangent, the primal output and "
                    "all the primal's arguments; under `jax.jvp` or `jax.grad` the call fails with `TypeError`",
                )
                self.report(rule.node, headline, note=note)

    def _primal_name_first(self, jvp: RuleFn, params: tuple[str, ...], nondiff: tuple[int, ...]) -> str | None:
        """``def f_jvp(x, t)``: the first parameter has a name of the primal's arguments, is
        computed with as an array and never unpacked, indexed or passed on whole."""
        fn = jvp.function
        if fn is None or nondiff or len(jvp.params) != 2 or jvp.sig.var_positional is not None:
            return None
        first = jvp.params[0]
        if first not in params:
            return None
        opened, computed = self._uses(fn, jvp.home or program(self.ctx))
        return first if first in computed and first not in opened else None

    def _uses(self, fn: cst.FunctionDef | cst.Lambda, home: Any) -> tuple[set[str], set[str]]:
        """(names the body treats as tuples: unpacked, indexed, starred, iterated or passed on
        to a call that is not array code; names it computes with as arrays: operands,
        attributes, arguments of array functions), read in the rule's own module (``home``)."""
        opened: set[str] = set()
        computed: set[str] = set()
        for n in [fn.body, *home.ctx.descendants(fn.body, prune=())]:
            if isinstance(n, cst.BinaryOperation):
                computed.update(o.value for o in (n.left, n.right) if isinstance(o, cst.Name))
            elif isinstance(n, cst.Comparison):
                operands = [n.left, *(c.comparator for c in n.comparisons)]
                computed.update(o.value for o in operands if isinstance(o, cst.Name))
            elif isinstance(n, cst.UnaryOperation) and isinstance(n.expression, cst.Name):
                computed.add(n.expression.value)
            elif isinstance(n, cst.Attribute) and isinstance(n.value, cst.Name):
                computed.add(n.value.value)
            elif isinstance(n, cst.Call) and self._array_call(n, home):
                computed.update(a.value.value for a in n.args if isinstance(a.value, cst.Name))
            if isinstance(n, cst.Assign) and any(isinstance(x.target, (cst.Tuple, cst.List)) for x in n.targets):
                values = n.value.elements if isinstance(n.value, (cst.Tuple, cst.List)) else [n.value]
                opened.update(v.value for v in (getattr(e, "value", e) for e in values) if isinstance(v, cst.Name))
            elif _opens(n):
                opened.add(n.value.value)  # _opens checked it is a Subscript or Starred of a Name
            elif isinstance(n, cst.For) and isinstance(n.iter, cst.Name):
                opened.add(n.iter.value)
            elif isinstance(n, cst.Call) and not self._array_call(n, home):
                opened.update(a.value.value for a in n.args if isinstance(a.value, cst.Name))
        return opened, computed

    def _array_call(self, call: cst.Call, home: Any) -> bool:
        """A call whose arguments are arrays, not tuples it unpacks: a JAX or NumPy function
        that makes one array from array operands (what the catalogue gives for them), or the
        custom function itself."""
        ev = home.evaluator
        if type(ev.value(call.func, None)) is Transformed:
            return True
        return type(ev.result_with_arrays(call, None)) is Array and not self._takes_sequences(call, home)

    def _takes_sequences(self, call: cst.Call, home: Any) -> bool:
        """A function that also takes a tuple of arrays (``jnp.stack(primals)``, model/arrays.py)."""
        fn = home.evaluator.value(call.func, None)
        return type(fn) is External and fn.qualified.rsplit(".", 1)[-1] in TAKES_SEQUENCES


def _opens(n: cst.CSTNode) -> bool:
    """``xs[i]``, ``*xs``: the name ``xs`` is used as a sequence."""
    sequence = isinstance(n, (cst.Subscript, cst.StarredElement)) or (isinstance(n, cst.Arg) and bool(n.star))
    return sequence and isinstance(getattr(n, "value", None), cst.Name)
