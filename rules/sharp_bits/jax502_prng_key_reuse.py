"""JAX502: the same PRNG key consumed twice, so two "random" draws are the same numbers."""

from __future__ import annotations

import os
from typing import Any

import libcst as cst

from jaxlint.lint.rule import Invalid, Rule
from jaxlint.lint.wording import split
from jaxlint.model import program
from jaxlint.model.catalogue.signatures import SIGNATURES
from jaxlint.model.stubs import KEY_CONSUMERS

from .analysis import exact_lines
from .keys import Reuse, _called_def, reuses

# what JAX's own key-reuse checker (``jax.experimental.key_reuse``, on with
# ``jax.config.update("jax_debug_key_reuse", True)``) does with the second use, by the kind
# of the key: it tracks typed keys only
CHECKER = {
    "typed": "JAX's key-reuse checker (`jax_debug_key_reuse`) raises `KeyReuseError` here (a previously-consumed key)",
    "raw": (
        "JAX's key-reuse checker (`jax_debug_key_reuse`) does not catch it: it checks typed keys "
        "(`jax.random.key`), not raw `PRNGKey` arrays"
    ),
    None: "With a typed key, JAX's key-reuse checker (`jax_debug_key_reuse`) raises `KeyReuseError` here",
}
COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
# a key consumed inside a vmap once for all its examples: one consumption to the checker
BROADCAST_CHECKER = "JAX's key-reuse checker (`jax_debug_key_reuse`) does not catch it: it sees one consumption"


class PrngKeyReuse(Rule):
    """
    ## What it does
    Reports a PRNG key that is consumed a second time on the same path: passed as the key
    to two `jax.random` samplers or `split` calls with no new key bound to the name in
    between; consumed inside a loop body (or a comprehension) when the key is not split
    again in each iteration; or passed twice to a callee that consumes its key argument
    on every path: a function of the same module or of another module of the project (also
    under `@jax.jit`, `checkpoint` and the other transforms that run it as called), a
    class whose `__init__` does, an instance of a class of the project whose `__call__`
    does (`block(x, key=key)` for each block of a model), or a library layer whose constructor does (equinox's
    `eqx.nn.Linear` and `eqx.nn.MLP` split their key; jaxlint reads them from its stubs of
    the library); a function that hands its key on to such a consumer on every path is one
    (`make_critic(n, key)` returning `eqx.nn.MLP(..., key=key)`), and so is one that splits
    the key it is given and returns the new one (`key, sub = split(key)` ... `return x,
    key`: the given key is consumed, so `f(key)` twice draws the same numbers). A `jax.vmap` that gives a key whole to every example (its `in_axes`
    entry `None`) to a def or lambda that consumes it on every path (also through `partial`
    and under `jax.jit`) consumes it once per example:
    every example draws the same numbers, and JAX's checker, which sees one consumption,
    is silent. It is reported at the vmap (also one a factory applies or a decorator),
    whatever key its calls give; at a call when only the call says which function the
    vmap maps (a factory's parameter). A body that `lax.fori_loop`, `lax.scan`, `lax.while_loop` or `lax.map` runs
    once per iteration consumes a key it closes over in every iteration, and one that
    `scan`, `fori_loop` or `while_loop` runs consumes again, in every iteration, a key it
    consumes from its carry and gives back in the carry it returns as it was (`noise =
    normal(key, ...)` then `return key, noise`; a record's field: `return
    state._replace(x=x)` after drawing from `state.key`, also through a helper that does
    so). A record copy (`s._replace(...)`, `s.replace(...)`, `dataclasses.replace(s, ...)`)
    keeps the fields it is not given, consumed keys included. What consumes a key is what JAX's key-reuse
    checker (`jax.experimental.key_reuse`) says: every sampler and `split`;
    `jax.random.fold_in(key, i)`, `key_data` and `clone` do not, so
    `normal(fold_in(key, i))` in a loop is fine. Uses in mutually exclusive branches
    (`if`/`else`, `try`/`except`) are not reuse, nor is a key consumed on some paths
    only, nor a use where the code expects an error (`with pytest.raises(...)`).

    A key stored on an object (`self.key` set in `__init__`, also a base class's, or a
    dataclass field) is tracked like a name until something stores a new one: an
    assignment to the attribute, or a call that may store one (a method of the object, a
    function of the project; a jax function or a list's `append` cannot). A method of the
    object that draws from `self.key` on every path and stores no new key consumes it at
    each call: `self.timesteps(n)` then `self.noise(shape)` draw from the same key, and so
    do `es.ask(mean)` in each iteration of a loop over an instance `es` of such a class
    (unless a method called in between, such as `es.tell(...)`, stores a new key). A
    property or an attribute of a library base class may give a fresh key on each read:
    not tracked.

    One key given on purpose to two draws that shuffle paired arrays in unison is not
    reported: `permutation(key, x)` and `permutation(key, y)`, or `choice(key, xs, (n,))`
    and `choice(key, ys, (n,))`, with the other arguments equal and the arrays not known
    to differ in length, pick the same positions of both.

    ## Why is this bad?
    A JAX PRNG key is a value, not a stateful generator: the same key always gives the
    same numbers. Reusing it gives identical dropout masks in two layers, the same noise
    at every step of a sampler, or correlated samples (`normal(k)` and `uniform(k)` are
    deterministic functions of each other). Nothing fails: the results are silently
    wrong. With typed keys (`jax.random.key`) and
    `jax.config.update("jax_debug_key_reuse", True)`, jax 0.10.2 raises
    `KeyReuseError: Previously-consumed key passed to jit-compiled function at index 0`
    (legacy `PRNGKey` arrays are not checked).

    ## Example
    ```python
    key = jax.random.key(0)
    noise = jax.random.normal(key, (3,))
    mask = jax.random.bernoulli(key, 0.5, (3,))
    ```

    ## Use instead
    ```python
    key = jax.random.key(0)
    key, k_noise, k_mask = jax.random.split(key, 3)
    noise = jax.random.normal(k_noise, (3,))
    mask = jax.random.bernoulli(k_mask, 0.5, (3,))
    ```

    ## References
    - [JAX sharp bits: random numbers](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#random-numbers)
    - [Pseudorandom numbers in JAX](https://docs.jax.dev/en/latest/random-numbers.html)
    - [jax.experimental.key_reuse](https://docs.jax.dev/en/latest/jax.experimental.key_reuse.html)
    """

    code = "JAX502"
    name = "prng-key-reuse"
    summary = "A PRNG key is consumed twice without a `split` in between"
    status = "stable"
    help = "Split the key (`key, subkey = jax.random.split(key)`) and give each consumer its own subkey"
    # every jax.random function JAX declares (the catalogue's generated signatures: no table
    # is built at import): the consumers among them, and the key makers a seed may name; and
    # the library layers whose constructors consume a key (jaxlint's stubs: ``eqx.nn.Linear``)
    about = ("jax.random.*", *sorted(q for q in SIGNATURES if q.startswith("jax.random.")), *KEY_CONSUMERS)
    # a helper that consumes its key argument, called twice from its module or, through an
    # import, from another one
    reads = ("calls", "project anchors")
    quiet_where_expected = True

    VALID = (
        "import jax\nkey = jax.random.key(0)\nkey, sub = jax.random.split(key)\nx = jax.random.normal(sub)\ny = jax.random.normal(key)\n",
        "import jax\ndef f(key, c):\n    if c:\n        return jax.random.normal(key)\n    else:\n        return jax.random.uniform(key)\n",
        "import jax\nkey = jax.random.key(0)\nfor i in range(3):\n    x = jax.random.normal(jax.random.fold_in(key, i))\n",
        "import jax\nkey = jax.random.key(0)\nfor i in range(3):\n    key, sub = jax.random.split(key)\n    x = jax.random.normal(sub)\n",
        "import jax\nkeys = jax.random.split(jax.random.key(0), 2)\na = jax.random.normal(keys[0])\nb = jax.random.normal(keys[1])\n",
    )
    INVALID = (
        (
            "import jax\nkey = jax.random.key(0)\na = jax.random.normal(key)\nb = jax.random.uniform(key)\n",
            Invalid("JAX502", line=4, message="already consumed by `jax.random.normal` at line 3"),
        ),
        (
            "import jax\nkey = jax.random.key(0)\nfor i in range(3):\n    x = jax.random.normal(key)\n",
            Invalid("JAX502", line=4, message="in every iteration of the loop at line 3"),
        ),
        (
            "import jax\ndef noise(key):\n    return jax.random.normal(key, (3,))\nk = jax.random.key(0)\na = noise(k)\nb = noise(k)\n",
            Invalid("JAX502", line=6, message="`noise` reuses the PRNG key `k`"),
        ),
    )

    def finish(self) -> None:
        ctx = self.ctx
        found = reuses(ctx)
        if not found:
            return
        lines = exact_lines(
            ctx,
            [r.first.node for r in found] + [r.node for r in found] + [r.loop for r in found if r.loop is not None],
        )
        for r in found:
            head, note = split(self.message(r, lines))
            self.report(r.node, head, note=note)

    def _defined_at(self, r: Reuse) -> str:
        """For a helper the loop body calls (``state = propagate(state, dt)``): where the helper
        is defined, which draws from the key and returns the record holding it (``" (`propagate`
        at clock.py:20 returns the record it drew from)"``); the fix goes there."""
        if r.body is not None:  # the body itself, a def of another module
            owner, node = r.body
        else:
            called = (
                _called_def(self.ctx, r.node) if type(r.node) is cst.Call and not r.api.startswith("jax.") else None
            )
            if called is None:
                return ""
            owner, node, _ = called
        line = owner.exact_lines([node]).get(node)
        if line is None:
            return ""
        where = f"line {line}" if owner is self.ctx else f"{os.path.basename(owner.path)}:{line}"
        return f" (`{node.name.value}`, at {where}, returns the record it drew from)"

    def _rebound_in(self, loop: cst.CSTNode, key: str) -> bool:
        """Does the loop body bind ``key`` (``key, sub = split(key)``)? Then each iteration has a
        new key, and the reuse is a later call consuming the one the next split takes."""
        p = program(self.ctx)
        fn = self.ctx.enclosing_function(loop)
        scope = p.scope_of_node.get(fn) if fn is not None else p.module_scope
        return scope is not None and any(
            any(a is loop for a in self.ctx.ancestors(b.node)) for b in scope.bindings.get(key, ())
        )

    def message(self, r: Reuse, lines: dict[Any, int]) -> str:
        api, k = f"`{r.api}`", r.key
        checker = CHECKER[r.kind]
        sub = "subkey" if k != "subkey" else "k"
        split = f"`{k}, {sub} = jax.random.split({k})`" if "[" not in k else "a fresh key from `jax.random.split`"
        both_draws = r.gives == "draw" and r.first.gives == "draw"
        once = (
            "the two draws are not independent (same key, same random bits)"
            if both_draws
            else "each key may be consumed only once (by one draw or one split)"
        )
        if r.loop is r.node:  # a vmap gives the key whole to every example
            fn = r.api.removeprefix("jax.vmap(").removesuffix(")")
            who = "the lambda" if fn == "<lambda>" else f"`{fn}`"
            if r.parameter:
                return (
                    f"`jax.vmap` gives the PRNG key parameter `{k}` of {who} whole to every example (its `in_axes` "
                    "entry is None), "
                    f"and {who} consumes it: whatever key a call gives, every example draws the same random "
                    f"numbers. {BROADCAST_CHECKER}. Map over one key per example: `jax.random.split(key, n)` "
                    f"with `in_axes` 0 for `{k}`"
                )
            return (
                f"`jax.vmap` gives the PRNG key `{k}` whole to every example (its `in_axes` entry is None), and "
                f"{who} consumes it: every example draws the same random numbers. {BROADCAST_CHECKER}. "
                f"Map over one key per example: `jax.random.split({k}, n)` with `in_axes` 0 for it"
            )
        if r.loop is not None:
            line = lines.get(r.loop)
            same = {"draw": "the same random numbers", "keys": "the same keys"}.get(r.gives or "", "the same key")
            again = {"draw": "draws the same random numbers", "keys": "gets the same keys"}.get(
                r.gives or "", "consumes the same key"
            )
            if r.lax_loop and r.carried:
                at = f" at line {line}" if line else ""
                checker = (
                    "With a typed key, JAX's key-reuse checker (`jax_debug_key_reuse`) raises `KeyReuseError`: the "
                    'body function "leads to key reuse when repeatedly executed"'
                )
                if "." in k:  # a field of a record carry
                    base, field = k.split(".", 1)
                    defined = self._defined_at(r)
                    return (
                        f"{api} consumes the PRNG key `{k}` in every iteration of `{r.lax_loop}`{at}: the carry "
                        f"comes back with the same `{field}`{defined}, so every iteration {again}. {checker}. "
                        "Split it and "
                        f"return the record with the new key (`{base}.replace({field}=new_key)`; `_replace` for a "
                        "NamedTuple)"
                    )
                return (
                    f"{api} consumes the PRNG key `{k}` in every iteration of `{r.lax_loop}`{at}: the body returns "
                    f"it in the carry as it was, so every iteration {again}. {checker}. Split it in the body and "
                    f"carry the new key ({split}: return `{k}`, draw from `{sub}`)"
                )
            if r.lax_loop:
                at = f" at line {line}" if line else ""
                checker = (
                    "With a typed key, JAX's key-reuse checker (`jax_debug_key_reuse`) raises `KeyReuseError`: the "
                    'body function "leads to key reuse when repeatedly executed"'
                )
                return (
                    f"{api} consumes the PRNG key `{k}` in every iteration of `{r.lax_loop}`{at}, whose body closes "
                    f"over it: every iteration {again}. {checker}. Carry the key in the loop's state and split it "
                    f"there, or use `jax.random.fold_in({k}, i)` with the iteration number"
                )
            if type(r.loop) in COMPREHENSIONS:
                where = "once per element of the comprehension" + (f" at line {line}" if line else "")
                return (
                    f"{api} consumes the PRNG key `{k}` {where}: every element gets {same}. {checker}. "
                    f"Split it into one key per element (`jax.random.split({k}, n)`) or use `jax.random.fold_in({k}, i)`"
                )
            if r.first.node is not r.node and self._rebound_in(r.loop, k):  # split in the loop, then consumed
                first = lines.get(r.first.node)
                at = f" at line {first}" if first else ""
                loop = f"the loop at line {line}" if line else "its loop"
                return (
                    f"{api} consumes the PRNG key `{k}`, which was consumed by `{r.first.api}`{at} in the previous "
                    f"iteration of {loop}: {once}. {checker}. Give `{r.first.api}` a fresh key ({split}, then use `{sub}`)"
                )
            where = f"in every iteration of the loop at line {line}" if line else "in every iteration of its loop"
            return (
                f"{api} consumes the PRNG key `{k}` {where}, never split again: every iteration {again}. "
                f"{checker}. Split it in the loop ({split}, then use `{sub}`) or use `jax.random.fold_in({k}, i)`"
            )
        line = lines.get(r.first.node)
        at = f" at line {line}" if line else ""
        if line is not None and line == lines.get(r.node):
            at = " earlier on the same line"
        if r.gives == "keys" and r.first.gives == "keys":
            return (
                f"{api} splits the PRNG key `{k}` again, already split by `{r.first.api}`{at}: both splits begin "
                f"with the same keys. {checker}. Split it once into every key you need (`jax.random.split({k}, n)`)"
            )
        each = "each draw" if both_draws else "each use"
        return (
            f"{api} reuses the PRNG key `{k}`, already consumed by `{r.first.api}`{at}: {once}. {checker}. "
            f"Split it first (`k1, k2 = jax.random.split({k})`) and give {each} its own key"
        )
