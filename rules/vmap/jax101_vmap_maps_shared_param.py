from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace as dc_replace
from typing import Any

import libcst as cst

from jaxlint.base.types import Edit, Fix
from jaxlint.lint.rule import Invalid, NodeEdit, Rule, RuleFix
from jaxlint.model import Function, forwarding, program

from .analysis import (
    DEFAULT,
    Evidence,
    VmapSite,
    argument_info,
    describe_in_axes,
    entry_mapped,
    fixed_in_axes,
    positional_count,
    shared_params,
    target_params,
    vmap_sites,
    with_annotations,
)

FIX_TITLE = "Put `None` in `in_axes` for the shared parameters"


class VmapMapsSharedParam(Rule):
    """
    ## What it does
    Reports a `jax.vmap` whose `in_axes` maps (by default, with `in_axes=0`, or with a
    `0` entry of a tuple/list) a parameter that the mapped function uses as shared
    parameters: the weight operand of `dot`/`@`/`einsum`, a bias added to such a
    product, a pytree indexed by string keys (`params['w']`), or the variables of
    `model.apply`. The parameter's name (`params`, `w`, `b`, `kernel`, …) or what the
    caller passes (the result of an `init`, a value also used unbatched) must agree.
    It stays silent when the caller passes stacked parameters on purpose (an ensemble
    built with `jnp.stack` or a vmapped `init`, names such as `stacked_params`).
    It also reports a mapped parameter the function needs as a Python value: annotated
    `str` or `Callable`, used as a loop bound (`range(n)`) or in a shape
    (`jnp.zeros((n, d))`, `x.reshape(-1, dims // n)`), or compared with a number in an
    `if`/`while` test. An `int` annotation alone is not enough: per-example labels and
    indices are annotated that way, and a traced integer works as an index, in arithmetic
    and in `jnp.where`.

    ## Why is this bad?
    `vmap` slices every mapped argument along its leading axis, so each example gets a
    different row of the weights. When the batch size differs from that dimension JAX
    raises `ValueError: vmap got inconsistent sizes for array axes to be mapped`; when
    they are equal nothing is raised and the results are silently wrong (for
    `w @ x + b`, shape `(B,)` instead of `(B, out)`).

    ## Example
    ```python
    def linear_layer(x, w, b):
        return jnp.dot(w, x) + b

    batch_linear = jax.vmap(linear_layer)
    ```

    ## Use instead
    ```python
    batch_linear = jax.vmap(linear_layer, in_axes=(0, None, None))
    ```

    ## Fix safety
    The fix puts `None` at the shared parameters' positions of `in_axes` (turning a
    default or a scalar `in_axes` into an explicit tuple). It is unsafe: it changes the
    results, and it is wrong for code that really passes per-example weights.

    ## References
    - [jax.vmap](https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html)
    - [Automatic vectorization](https://docs.jax.dev/en/latest/automatic-vectorization.html)
    """

    code = "JAX101"
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    name = "vmap-maps-shared-param"
    summary = "`vmap` maps a parameter the function uses as shared weights"
    status = "stable"
    fix_availability = "sometimes"
    help = "Put `None` at that parameter's position of `in_axes` so every example sees the same weights"
    # the defining module of a vmapped function may not mention vmap at all
    about = ("jax.vmap",)
    # the calls of a vmapped function (in its module) tell how it is used, also those made
    # through a def that calls it with its ``*args`` (in any module)
    reads = ("calls", "forwarders")
    # files that may define the function another module vmaps (its body says what it contracts)
    context_words = ("dot", "matmul", "einsum", " @ ", ".apply(", "params")

    VALID = (
        "import jax, jax.numpy as jnp\ndef linear(x, w, b):\n    return jnp.dot(w, x) + b\n"
        "f = jax.vmap(linear, in_axes=(0, None, None))\n",
        "import jax, jax.numpy as jnp\ndef f(x, y):\n    return jnp.dot(x, y)\ng = jax.vmap(f)\n",
        "import jax, jax.numpy as jnp\ndef apply(params, x):\n    return x @ params['w']\n"
        "stacked = jnp.stack([p1, p2])\nout = jax.vmap(apply)(stacked, xs)\n",
    )
    INVALID = (
        (
            "import jax, jax.numpy as jnp\ndef linear(x, w, b):\n    return jnp.dot(w, x) + b\nf = jax.vmap(linear)\n",
            Invalid(
                "JAX101",
                line=4,
                message="`w` is the weight operand of `jnp.dot(w, x)`",
                fixed="import jax, jax.numpy as jnp\ndef linear(x, w, b):\n    return jnp.dot(w, x) + b\n"
                "f = jax.vmap(linear, in_axes=(0, None, None))\n",
            ),
        ),
        (
            "from jax import vmap\ndef loss(params, x):\n    return x @ params['w']\n"
            "batched = vmap(loss, in_axes=[0, 0])\n",
            Invalid(
                "JAX101",
                line=4,
                message="`params`",
                fixed="from jax import vmap\ndef loss(params, x):\n    return x @ params['w']\n"
                "batched = vmap(loss, in_axes=[None, 0])\n",
            ),
        ),
    )

    def __init__(self, ctx, options=None) -> None:
        super().__init__(ctx, options)
        self.evidence = Evidence(ctx)

    def visit_Call(self, node: cst.Call) -> None:
        self.evidence.call(node)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self.evidence.binop(node)

    def visit_If(self, node: cst.If) -> None:
        self.evidence.test(node)

    def visit_While(self, node: cst.While) -> None:
        self.evidence.test(node)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self.evidence.subscript(node)

    def finish(self) -> None:
        if self.evidence.by_function:
            self.ctx.extra(self.code)["evidence"] = self.evidence.by_function
        for site in vmap_sites(self.ctx):
            self._check(site)

    # ------------------------------------------------------------------------------
    def _check(self, site: VmapSite) -> None:
        ctx = self.ctx
        if site.in_axes is None or site.kwargs_unknown or (site.function is None and site.ref is None):
            return
        if site.in_axes is not DEFAULT and not isinstance(site.in_axes, (int, tuple, list)):
            return
        counts = {positional_count(c) for c in site.calls if forwarding.assumption(program(ctx), c) is None}
        if None in counts or len(counts) > 1:
            return
        call_n = counts.pop() if counts else None
        data: dict[str, Any] = {
            "target": site.ref,
            "label": site.label,
            "described": describe_in_axes(site, ctx),
            "call_n": call_n,
            "partial_args": site.bound,
            "partial_keywords": list(site.bound_keywords),
            "decorator": site.decorator,
        }
        literal_node = isinstance(site.in_axes_node, (cst.Tuple, cst.List))
        if isinstance(site.in_axes, (tuple, list)):
            if isinstance(site.in_axes_node, (cst.Tuple, cst.List)):
                data["entries"] = [ctx.code(e.value) for e in site.in_axes_node.elements]
            else:  # a constant: name the entries by their values
                data["entries"] = [repr(v) for v in site.in_axes]
            data["mapped"] = [i for i, v in enumerate(site.in_axes) if entry_mapped(v) is True]
            data["bracket"] = "[" if isinstance(site.in_axes, list) else "("
            if call_n is not None and call_n != len(site.in_axes):
                return  # JAX102's business
        else:
            data["scalar"] = "0" if site.in_axes is DEFAULT else repr(site.in_axes)
        n_guess = call_n if call_n is not None else (len(data["entries"]) if "entries" in data else None)
        positions = n_guess if n_guess is not None else 64
        data["args"] = [argument_info(ctx, site, i) for i in range(positions)] if site.calls else []
        fix = (
            self._fix_template(site)
            if site.in_axes_node is None or literal_node or isinstance(site.in_axes_node, cst.Integer)
            else None
        )
        data["parens"] = isinstance(site.in_axes_node, cst.Tuple) and bool(site.in_axes_node.lpar)
        if site.function is None:
            self.pending(site.node, data, fix=fix)
            return
        fact = ctx.function_fact(site.function.node)
        evidence = ctx.facts.extra.get(self.code, {}).get("evidence", {})
        verdict = self.decide(data, fact, evidence)
        if verdict is None:
            verdict = self._forwarded(site, data, fact, evidence)
        if verdict is not None:
            message, text = verdict
            self.report(site.node, message, fix=self._fix_with(fix, self._edit_text(data, text)))

    def _forwarded(self, site: VmapSite, data: dict[str, Any], fact, evidence):
        """``vmap(lambda x, w: linear(x, w))``: judge the function the wrapper forwards to,
        each mapped argument at the position it lands on."""
        if fact is None or site.function is None or site.bound or site.bound_keywords or site.chain:
            return None
        fwd = program(self.ctx).forwarded(site.function)
        if fwd is None or type(fwd[0]) is not Function:
            return None
        callee, where = fwd
        inner = self.ctx.function_fact(callee.node)
        if inner is None or inner.is_method or inner.has_varargs:
            return None
        params = [p.name for p in fact.positional]
        if "entries" in data:
            mapped = [i for i in data["mapped"] if i < len(where)]
        else:
            n = data["call_n"] if data["call_n"] is not None else len(params)
            mapped = list(range(min(n, len(where))))
        landed = {where[i]: i for i in mapped if where[i] is not None}
        args = [
            data["args"][i] if i < len(data["args"]) else {"shared": None, "batched": False} for i in range(len(where))
        ]
        callee_args = [{"shared": None, "batched": False} for _ in range(len(inner.positional))]
        for k, i in landed.items():
            if k < len(callee_args):
                callee_args[k] = args[i]
        names = [p.name for p in inner.positional]
        found = shared_params(names, sorted(landed), evidence.get(inner.qualname, {}), callee_args)
        if not found or len(found) >= len(mapped):
            return None
        shared = {landed[k] for k, _, _ in found}
        who = ", ".join(f"`{params[i]}`" for i in sorted(shared))
        them = "it" if len(shared) == 1 else "them"
        text = None
        if "entries" in data:
            text = fixed_in_axes(data["entries"], shared, data.get("bracket", "("))
        elif data["call_n"] is not None or len(params) == len(where):
            n = data["call_n"] if data["call_n"] is not None else len(params)
            text = fixed_in_axes([data["scalar"]] * n, shared, "(")
        advice = f"use `in_axes={text}`" if text else f"put `None` at {them} in `in_axes`"
        wrapper = "the lambda" if fact.is_lambda else f"`{fact.name}`"
        message = (
            f"`{data['label']}` maps {who} over a batch axis ({data['described']}), and {wrapper} passes "
            f"{them} on to `{inner.name}`, which uses {them} as shared parameters: "
            + "; ".join(e for _, _, e in found)
            + f". Each example gets its own slice of {them}: a size error, or "
            f"silently wrong results when the batch size equals the leading dimension; {advice}"
        )
        return message, text

    def _fix_template(self, site: VmapSite) -> RuleFix | None:
        if site.in_axes_node is not None:
            return RuleFix(FIX_TITLE, [NodeEdit(site.in_axes_node, "")], "unsafe")
        if site.anchor is not None:
            return RuleFix(FIX_TITLE, [NodeEdit(site.anchor, "", where="after")], "unsafe")
        return None

    @staticmethod
    def _fix_with(fix: RuleFix | None, text: str | None) -> RuleFix | None:
        if fix is None or text is None:
            return None
        e = fix.edits[0]
        if not isinstance(e, NodeEdit):  # this rule's fixes edit nodes
            return None
        content = text if e.where == "replace" else f", in_axes={text}"
        return RuleFix(fix.message, [NodeEdit(e.node, content, where=e.where)], "unsafe")

    @staticmethod
    def _edit_text(data: dict[str, Any], text: str | None) -> str | None:
        """The replaced span of a parenthesized tuple excludes its parentheses."""
        if text is not None and data.get("parens") and text.startswith("(") and text.endswith(")"):
            return text[1:-1]
        return text

    @staticmethod
    def decide(data: dict[str, Any], fact, evidence: dict[str, Any]) -> tuple[str, str | None] | None:
        """(message, new in_axes text or None) when shared parameters are mapped."""
        if not fact:
            return None
        params = target_params(fact, data["partial_args"], data["partial_keywords"], data.get("decorator", False))
        if params is None:
            return None
        call_n = data["call_n"]
        if "entries" in data:
            n = len(data["entries"])
            if n > len(params):
                return None
            mapped = data["mapped"]
        else:
            required = [p for p in params if p.default is None]
            if call_n is not None:
                if call_n > len(params):
                    return None
                n = call_n
            elif len(required) == len(params):
                n = len(params)
            else:
                n = None
            mapped = list(range(n if n is not None else len(required)))
        names = [p.name for p in params]
        uses = with_annotations(evidence.get(fact.qualname, {}), params)
        found = shared_params(names, mapped, uses, data["args"])
        if not found:
            return None
        who = ", ".join(f"`{name}`" for _, name, _ in found)
        them = "it" if len(found) == 1 else "them"
        fn = f"`{fact.name}`" if not fact.is_lambda else "the lambda"
        text = None
        if n is not None:
            entries = data["entries"] if "entries" in data else [data["scalar"]] * n
            text = fixed_in_axes(entries, {i for i, _, _ in found}, data.get("bracket", "("))
        advice = f"use `in_axes={text}`" if text else f"put `None` at {them} in `in_axes`"
        if all(set(uses.get(name, {})) == {"static"} for _, name, _ in found):
            return (
                f"`{data['label']}` maps {who} over a batch axis ({data['described']}), but {fn} needs {them} as "
                f"a Python value: " + "; ".join(e for _, _, e in found) + f". A mapped argument must be an array "
                f"with a batch axis and is traced inside: JAX raises (an int has no axis to map, a tracer cannot be a "
                f"loop bound or a shape, a function is not a JAX type); {advice}"
            ), text
        message = (
            f"`{data['label']}` maps {who} over a batch axis ({data['described']}), but {fn} uses "
            f"{them} as shared parameters: " + "; ".join(e for _, _, e in found) + f". Each example gets its own "
            f"slice of {them}: a size error, or silently wrong results when the batch size equals the leading "
            f"dimension; {advice}"
        )
        return message, text

    @classmethod
    def resolve(cls, items, project) -> Iterable[tuple[Any, str]]:
        for p in items:
            found = project.function(p.data["target"])
            if found is None:
                continue
            module, fact = found
            evidence = module.extra.get(cls.code, {}).get("evidence", {})
            verdict = cls.decide(p.data, fact, evidence)
            if verdict is None:
                continue
            message, text = verdict
            fix = None
            if p.fix is not None and text is not None:
                e = p.fix.edits[0]
                edit_text = cls._edit_text(p.data, text) or ""
                content = edit_text if e.start != e.end else f", in_axes={edit_text}"
                fix = Fix(p.fix.message, (Edit(e.start, e.end, content),), p.fix.applicability)
            yield dc_replace(p, fix=fix), message
