from __future__ import annotations

import libcst as cst

from jaxlint.lint.rule import Invalid, NodeEdit, Rule, RuleFix
from jaxlint.model import program
from jaxlint.model.abstract import path_text

from .pmap import Finding, built, called_at, clip, findings, head, jax_name

FIX_TITLE = "Split one key per device"


class PmapUnreplicatedInput(Rule):
    """
    ## What it does
    Reports a value with no device axis passed at a position a `pmap` maps (its
    `in_axes` entry is 0, the default), as the program builds it:
    - a single PRNG key: `jax.random.PRNGKey(0)` (two uint32 words, not one key per
      device), `jax.random.key(0)` (rank 0), `fold_in(...)`, one key of `split(key)`;
    - parameters or optimizer state that were never replicated: a pytree whose leaves'
      leading sizes are certainly not the device count (their sizes differ from one
      another, or another mapped argument has the device count).

    The values are what the program computes: the key functions, array constructors,
    the values a function returns (an `init` that builds the parameters), the
    arguments callers pass, followed through the parameters of the functions that pass
    a value on (then the argument of the outermost call in the pmap's module is
    reported; a value another module's call passes in, at the pmap's argument). Keys split per
    device, replicated parameters, the output of a pmapped `init`, positions with
    `in_axes=None`, and values the code does not show are not reported.

    ## Why is this bad?
    `pmap` gives each device the slice of every mapped argument at its own index along
    axis 0. A single key has no such axis: a typed `jax.random.key(0)` fails with
    `IndexError: tuple index out of range`, and the two words of a legacy `PRNGKey(0)`
    are mapped as if they were two devices' keys (`TypeError: JAX encountered invalid
    PRNG key data`, or a shape error in another argument). Unreplicated parameters are
    sliced leaf by leaf: each device gets one row of every weight, which fails with an
    `IndivisibleError` or, when a weight's first dimension equals the device count,
    silently computes with the wrong weights.

    ## Example
    ```python
    p_sample = jax.pmap(lambda key, x: x + jax.random.normal(key, x.shape))
    key = jax.random.PRNGKey(0)
    out = p_sample(key, xs)
    ```

    ## Use instead
    ```python
    keys = jax.random.split(jax.random.PRNGKey(0), jax.local_device_count())
    out = p_sample(keys, xs)
    ```
    and for parameters, `in_axes=None` at their position (every device sees the same
    copy), or replicate them first.

    ## Fix safety
    For a single key the fix passes `jax.random.split(key, jax.local_device_count())`
    instead. It is unsafe: the random numbers change, and code that relies on every
    device drawing the same numbers wants `in_axes=None` instead. Parameters are not
    fixed: whether `in_axes=None` or replication is right depends on what the function
    returns.

    ## References
    - [jax.pmap](https://docs.jax.dev/en/latest/_autosummary/jax.pmap.html)
    - [Pseudorandom numbers](https://docs.jax.dev/en/latest/random-numbers.html)
    - [Migrating from pmap](https://docs.jax.dev/en/latest/migrate_pmap.html)
    """

    code = "JAX204"
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    name = "pmap-unreplicated-input"
    summary = "A single PRNG key or unreplicated parameters passed where a `pmap` maps its argument"
    status = "stable"
    fix_availability = "sometimes"
    help = "Split one key per device, replicate the parameters, or pass `in_axes=None` at that position"
    about = ("jax.pmap",)
    # the calls of the function making the pmapped call, and theirs: where its arguments come from
    reads = ("calls", "forwarders", "project anchors")

    VALID = (
        (
            "import jax\n"
            "keys = jax.random.split(jax.random.PRNGKey(0), jax.local_device_count())\n"
            "jax.pmap(lambda k: jax.random.normal(k, (3,)))(keys)\n"
        ),
        # the same key on every device, on purpose
        "import jax\njax.pmap(lambda k, x: x + jax.random.normal(k, x.shape), in_axes=(None, 0))(jax.random.PRNGKey(0), xs)\n",
        # parameters from a pmapped init have a device axis
        (
            "import jax\n"
            "keys = jax.random.split(jax.random.PRNGKey(0), jax.local_device_count())\n"
            "params = jax.pmap(model.init)(keys, xs)\n"
            "jax.pmap(model.apply)(params, xs)\n"
        ),
    )
    INVALID = (
        (
            (
                "import jax\n"
                "p_sample = jax.pmap(lambda k, x: x + jax.random.normal(k, x.shape))\n"
                "key = jax.random.PRNGKey(0)\n"
                "out = p_sample(key, xs)\n"
            ),
            Invalid(
                "JAX204",
                line=4,
                message="pmap maps `key`, a single PRNG key with no device axis",
                fixed=(
                    "import jax\n"
                    "p_sample = jax.pmap(lambda k, x: x + jax.random.normal(k, x.shape))\n"
                    "key = jax.random.PRNGKey(0)\n"
                    "out = p_sample(jax.random.split(key, jax.local_device_count()), xs)\n"
                ),
            ),
        ),
        (
            (
                "import jax, jax.numpy as jnp\n"
                "def init(key):\n    return {'w': jax.random.normal(key, (784, 10)), 'b': jnp.zeros(10)}\n"
                "params = init(jax.random.PRNGKey(0))\n"
                "jax.pmap(lambda p, x: x @ p['w'] + p['b'])(params, jnp.ones((jax.local_device_count(), 784)))\n"
            ),
            Invalid("JAX204", line=5, message="pmap maps `params`, one copy of the parameters with no device axis"),
        ),
    )

    def finish(self) -> None:
        for f in findings(self.ctx):
            if f.node is None:
                continue
            at = called_at(self.ctx, f)
            if f.kind == "key":
                message, note = self._key_message(f)
                self.report(f.node, message, fix=self._key_fix(f), note=at + note)
            elif f.kind == "params":
                message, note = self._params_message(f)
                self.report(f.node, message, note=at + note)

    def _key_message(self, f: Finding) -> tuple[str, str]:
        assert f.shown is not None
        shown = clip(self.ctx, f.shown, 30)
        where = built(self.ctx, f)
        it = f"`{shown}` is {where}, one key. " if where else ""
        return (
            f"pmap maps `{shown}`, a single PRNG key with no device axis",
            f"{it}{head(self.ctx, f)}: pmap would slice the key itself (a typed `jax.random.key` fails with "
            "`IndexError`, a legacy `PRNGKey` is taken as 2 devices' keys); pass one key per device, "
            f"`jax.random.split({shown}, jax.local_device_count())`, or `in_axes=None` at this position if every "
            "device should draw the same numbers",
        )

    def _params_message(self, f: Finding) -> tuple[str, str]:
        assert f.shown is not None
        shown = clip(self.ctx, f.shown, 30)
        where = built(self.ctx, f)
        it = f"`{shown}` is {where}. " if where else ""
        if f.leaf.size is None:  # a leaf with no axis at all
            named = isinstance(f.shown, (cst.Name, cst.Attribute))
            leaf = f"`{path_text(shown, f.leaf.path)}`" if named else f"its leaf `{path_text('', f.leaf.path)}`"
            return (
                f"pmap maps `{shown}`, a pytree with no device axis ({leaf} is rank 0)",
                f"{it}{head(self.ctx, f)}, but {leaf} has no axis to map (`ValueError` for a Python "
                "number, `IndexError: tuple index out of range` for a rank-0 array): replicate it first "
                "(`flax.jax_utils.replicate`, `jax.device_put_replicated`), or pass `in_axes=None` at this position",
            )
        return (
            f"pmap maps `{shown}`, one copy of the parameters with no device axis",
            f"{it}{head(self.ctx, f)}, but none of its {f.leaves} leaves has a device axis: each device gets one "
            "slice of every weight (an `IndivisibleError`, or silently wrong results when a weight's first "
            "dimension equals the device count); pass `in_axes=None` at this position, or replicate them first "
            "(`jax.device_put_replicated`, `flax.jax_utils.replicate`, or a pmapped init over one key per device)",
        )

    def _key_fix(self, f: Finding) -> RuleFix | None:
        if f.site.app.via:
            return None  # the key is passed in another module's def: nothing to edit here
        o = f.origin
        if (
            o is not None
            and type(o.expr) is cst.Name
            and any(b.kind == "param" for b in program(self.ctx).reaching(o.expr))
        ):
            return None  # a parameter another module's call gives: other callers may give one key per device
        jax = jax_name(self.ctx)
        value = f.node
        if jax is None or not isinstance(value, (cst.Name, cst.Call, cst.Subscript)):
            return None
        text = f"{jax}.random.split({self.ctx.code(value)}, {jax}.local_device_count())"
        return RuleFix(FIX_TITLE, [NodeEdit(value, text)], "unsafe")
