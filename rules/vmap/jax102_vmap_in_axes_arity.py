from __future__ import annotations

import os
from typing import Any

import libcst as cst

from jaxlint.lint.rule import Invalid
from jaxlint.lint.wording import worded
from jaxlint.model import program
from jaxlint.model.abstract import Function, List, Tuple, describe
from jaxlint.model.derivatives import in_class
from jaxlint.model.uses import uses

from .analysis import ABOUT, Site, ThroughForwarders, first_with, leaf_text, short, target_name, vmap_sites, where


class VmapInAxesArity(ThroughForwarders):
    """
    ## What it does
    Reports a `jax.vmap` whose `in_axes` does not fit the arguments it is given:
    - a tuple or list `in_axes` whose length differs from the number of positional
      arguments of a call (a call passing `*args` counts as every number of positional
      arguments the mapped function can take there), or that has more entries than the
      mapped function can take positionally at all;
    - an entry that is not a prefix of its argument's structure: a tuple entry for a
      dict argument, a dict entry whose keys are not the argument's, a tuple entry of
      another length than the argument's tuple;
    - with no call in view, a tuple or list entry for a parameter the function reads only
      as a mapping (`example["inputs"]`; not when it also indexes it with ints, unpacks or
      iterates it, or asks `isinstance`): no argument fits it.

    Calls are followed through the names the vmapped function is bound to, the defs it
    is handed to, and the defs that forward it their `*args` (in this module or another
    one).

    ## Why is this bad?
    `vmap` matches `in_axes` to the positional arguments one by one, then each entry
    to its argument's pytree, and raises when the call runs: `ValueError: vmap in_axes
    must be an int, None, or a tuple of entries corresponding to the positional
    arguments passed to the function, but got len(in_axes)=2, len(args)=3`, or `vmap
    in_axes specification must be a tree prefix of the corresponding value`. Keyword
    arguments never count: they are always mapped over axis 0.

    ## Example
    ```python
    def linear(x, w, b):
        return w @ x + b

    out = jax.vmap(linear, in_axes=(0, None))(xs, w, b)
    ```

    ## Use instead
    ```python
    out = jax.vmap(linear, in_axes=(0, None, None))(xs, w, b)
    ```

    ## References
    - [jax.vmap](https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html)
    """

    code = "JAX102"
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    name = "vmap-in-axes-arity"
    summary = "`vmap` `in_axes` does not match the positional arguments or their structure"
    status = "stable"
    help = "Give `in_axes` one entry per positional argument, each a prefix of its argument"
    about = ABOUT
    shapes_needed = False  # the number of arguments is enough (a forwarder may shard_map them)
    reads = ("calls", "forwarders", "project anchors")

    VALID = (
        "import jax\ndef f(x, w, b):\n    return w @ x + b\nout = jax.vmap(f, in_axes=(0, None, None))(xs, w, b)\n",
        "import jax\ndef f(x, w, b=0):\n    return w @ x + b\ng = jax.vmap(f, in_axes=(0, None))\n",
        "import jax\ndef f(*args):\n    return args\ng = jax.vmap(f, in_axes=(0, None, 0, 0))\n",
        "import jax\nout = jax.vmap(f, in_axes=(0, None))(x, w, b=b)\n",
        "import jax\ndef f(x, w, b):\n    return w @ x + b\nout = jax.vmap(f, in_axes=(0, None))(xs, *ws, b=b)\n",
    )
    INVALID = (
        (
            "import jax\ndef f(x, w, b):\n    return w @ x + b\nout = jax.vmap(f, in_axes=(0, None))(xs, w, b)\n",
            Invalid("JAX102", line=4, message="`in_axes=(0, None)` has 2 entries"),
        ),
        (
            "from jax import vmap\n\n@vmap\ndef unused(x):\n    return x\n\ng = vmap(lambda x, y: x + y, in_axes=[0, 0, 0])\n",
            Invalid("JAX102", line=7, message="takes at most 2 positional arguments"),
        ),
        (
            "import jax\ndef f(x, w, b):\n    return w @ x + b\nout = jax.vmap(f, in_axes=(0, None))(xs, *wb)\n",
            Invalid("JAX102", line=4, message="whatever `*wb` holds, `f` takes exactly 3 positional arguments"),
        ),
        (
            "import jax, jax.numpy as jnp\nparams = {'w': jnp.ones(3), 'b': jnp.ones(3)}\n"
            "out = jax.vmap(lambda p, x: x, in_axes=({'w': 0}, 0))(params, jnp.ones(3))\n",
            Invalid("JAX102", line=3, message="the `in_axes` entry for `params` is not a prefix of it"),
        ),
    )

    def finish(self) -> None:
        for site in vmap_sites(self.ctx):
            if site.foreign and self._reported_by_owner(site):
                continue
            # a call in view first, then what the signature alone proves, then a call that
            # rests on a forwarder of another module (checked in the project phase)
            if self._calls(site, assumed=False) or self._static(site) or self._keyed(site):
                continue
            self._calls(site, assumed=True)

    def _reported_by_owner(self, site: Site) -> bool:
        """Is the foreign map's ``in_axes`` longer than its function takes, and its module
        linted in this run (this file imports from it: ``ctx.judged``)? That module reports
        it from the signature alone (``_static``), at the map: once, where the fix goes."""
        if os.path.abspath(site.mapped.app.owner_path) not in self.ctx.judged:
            return False
        found = self._arity(site)
        return found is not None and found[1] is not None and found[0] > found[1]

    def _arity(self, site: Site) -> tuple[int, int | None, Any] | None:
        """``(entries of in_axes, most positional arguments the function takes, its
        signature)``; None when either is not known."""
        t = site.mapped.value
        n = _entries(site)
        if t is None or n is None or site.in_axes_node is None:
            return None
        sig = program(self.ctx).evaluator.signature(t.target)
        return (n, sig.positional_counts()[1], sig) if sig is not None else None

    def _shown(self, site: Site, n: int) -> str:
        assert site.in_axes_node is not None
        return f"`in_axes={short(self.ctx, site.in_axes_node, 28)}` has {n} entr{'y' if n == 1 else 'ies'}"

    def _calls(self, site: Site, assumed: bool) -> bool:
        """Report the first call that does not fit (made through a forwarder of another
        module, or not); True when one was reported."""
        ctx = self.ctx
        p = program(ctx)
        found = [
            (e, i)
            for e, i in first_with(site, ("arity", "structure"), shapes=False)
            if (e.assumed is not None) == assumed
        ]
        for e, issue in found:
            rec = e.record
            written = p.written_call(rec.node) if rec.node is not None else None
            if issue.kind == "arity":
                n = _count(rec.t) or _entries(site)  # the map as this call made it (``in_axes`` a parameter)
                if n is None or site.in_axes_node is None:
                    continue
                extra = " (keyword arguments never count: vmap maps them over axis 0)" if rec.keywords else ""
                if isinstance(written, cst.Call) and written is not rec.node:
                    extra += f" (`{short(ctx, written.func, 40)}` passes its trailing arguments on with `*args`)"
                s = "s" if rec.positional != 1 else ""
                message = (
                    f"{self._shown(site, n)}, but `{site.label}` is called with {rec.positional} positional argument{s}"
                )
                call_text = f"`{short(ctx, written)}`{extra}: " if written is not None else ""
                note = (
                    f"{call_text}JAX raises `ValueError: vmap in_axes must be ... a tuple of entries corresponding to "
                    "the positional arguments`; give one entry per positional argument"
                )
            else:
                leaf = issue.leaves[0]
                place = where(ctx, rec, site).strip()
                message = f"`{site.label}`: the `in_axes` entry for {leaf_text(ctx, rec, leaf)} is not a prefix of it"
                note = (
                    f"{place + ': ' if place else ''}{leaf_text(ctx, rec, leaf)} is {_structure(leaf.value)}; JAX "
                    "raises `ValueError: vmap in_axes specification must be a tree prefix of the corresponding "
                    "value`; give that argument one entry, or one with its structure"
                )
            self.report_evaluated(site.node, message, e, note=note)
            return True
        return False

    def _keyed(self, site: Site) -> bool:
        """A tuple or list entry for a parameter the function reads as a mapping; True when
        reported."""
        if site.in_axes_node is None or site.foreign:
            return False
        name = _keyed_parameter(program(self.ctx), site)
        if name is None:
            return False
        head, note = worded(
            f"`{site.label}`: the `in_axes` entry for `{name}` is a sequence, but `{name}` is read with string keys",
            "give it one entry, or a dict with its keys",
            f'{target_name(self.ctx, site)} reads `{name}["..."]`: a mapping (a dict), which a tuple or list '
            "entry is never a prefix of; JAX raises `ValueError: vmap in_axes specification must be a tree prefix "
            "of the corresponding value`",
        )
        self.report(site.node, head, note=note)
        return True

    def _static(self, site: Site) -> bool:
        """No call fails: an in_axes longer than the function takes, or a ``*args`` call
        that can pass no count of arguments the function takes; True when reported."""
        found = self._arity(site) if not site.foreign else None
        if found is None:
            return False  # (a map of another module: that module's lint reads its signature)
        n, most, sig = found
        name = target_name(self.ctx, site)
        if most is not None and n > most:
            params = ", ".join(p.name for p in sig.positional) or "none"
            self.report(
                site.node,
                f"{self._shown(site, n)}, but {name} takes at most {most} positional argument{'s' if most != 1 else ''}",
                note=f"it takes ({params}): every call of `{site.label}` fails; give one entry per positional argument",
            )
            return True
        for call in site.mapped.spread:
            written = [a for a in call.args if a.keyword is None and not a.star]
            named = {a.keyword.value for a in call.args if a.keyword is not None}
            if any(a.star == "**" for a in call.args):
                return False
            lo = max(len(written), sum(1 for p in sig.positional if p.required and p.name not in named))
            hi = most
            for i, p in enumerate(sig.positional):
                if p.name in named and p.kind != "posonly":
                    hi = i if hi is None else min(hi, i)
            if (hi is not None and hi < lo) or (lo <= n and (hi is None or n <= hi)):
                continue
            count = f"exactly {lo}" if lo == hi else f"at least {lo}" if hi is None else f"{lo} to {hi}"
            stars = [f"`*{self.ctx.code(a.value)}`" for a in call.args if a.star == "*"]
            holds = f"{' and '.join(stars)} hold{'s' if len(stars) == 1 else ''}"
            self.report(
                site.node,
                f"{self._shown(site, n)}, but whatever {holds}, {name} takes {count} positional arguments",
                note=(
                    f"in `{short(self.ctx, call)}`: JAX raises `ValueError: vmap in_axes must be ... a tuple of "
                    f"entries corresponding to the positional arguments`, or the call of {name} fails; give one "
                    "entry per positional argument"
                ),
            )
            return True
        return False


# reads that a sequence allows, or that ask what the value is: then it may be one sometimes
_MAY_BE_A_SEQUENCE = frozenset({"indexed", "unpacked", "iterated", "type_tested"})


def _keyed_parameter(p: Any, site: Site) -> str | None:
    """A parameter of the mapped def whose ``in_axes`` entry is a tuple or list, but that
    its body reads with a string key (``example["inputs"]``): a mapping, which a sequence
    entry is never a prefix of. (A method's receiver shifts the entries: not judged.)"""
    t = site.mapped.value
    if t is None:
        return None
    entries, target = t.option("in_axes"), t.target
    if (type(entries) is not Tuple and type(entries) is not List) or type(target) is not Function:
        return None
    home = target.program or p
    fn = target.node
    if type(fn) is not cst.FunctionDef:
        return None
    params = [*fn.params.posonly_params, *fn.params.params]
    if in_class(home, fn) or len(entries.items) > len(params):
        return None
    used = uses(home, fn)
    for param, entry in zip(params, entries.items, strict=False):
        name = param.name.value
        how = used.get(name, frozenset())
        if type(entry) in (Tuple, List) and "keyed" in how and not how & _MAY_BE_A_SEQUENCE:
            return name
    return None


def _entries(site: Site) -> int | None:
    return _count(site.mapped.value)


def _count(t: Any) -> int | None:
    """The number of ``in_axes`` entries of the map value ``t`` (None: not a sequence)."""
    if t is None:
        return None
    v = t.option("in_axes")
    return len(v.items) if type(v) in (Tuple, List) else None


def _structure(v: Any) -> str:
    from jaxlint.model.abstract import Dict

    if type(v) is Dict:
        keys = ", ".join(repr(k) for k, _ in v.items)
        return f"a dict with keys {keys}"
    if type(v) in (Tuple, List):
        return f"a {type(v).__name__.lower()} of {len(v.items)}"
    return describe(v)
