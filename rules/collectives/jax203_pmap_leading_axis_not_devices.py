from __future__ import annotations

import libcst as cst

from jaxlint.lint.rule import Invalid, NodeEdit, Rule, RuleFix

from .pmap_inputs import Finding, clip, describe, device_guarded, findings, jax_name

# a host rarely has more local devices than this: a larger fixed size is a batch
MAX_LOCAL_DEVICES = 8

FIX_TITLE = "Reshape so that the leading axis is the device count"


class PmapLeadingAxisNotDevices(Rule):
    """
    ## What it does
    Reports an argument that a `pmap` maps (its `in_axes` entry is 0, the default) whose
    leading axis was visibly built with another size than the device count:
    - a fixed leading dimension: `jnp.ones((32, 100))`, `random.normal(key, (BATCH, d))`
      with a constant `BATCH`, `jnp.arange(32)`, `x.reshape(32, -1)`;
    - a fixed number of keys or stacked values: `random.split(key, 16)`, `random.split(key)`
      (2 keys), `jnp.stack([a, b])`, `jnp.array([...])`;
    - a reshape that puts the device count on another axis: `x.reshape(batch, n_devices, -1)`.

    The value is followed through plain assignments, arithmetic with numbers and
    `astype`, and through a parameter of the function that makes the pmapped call
    (undecorated, or under `jax.jit`) to the calls of that function in the same file
    (then the argument of that call is reported). Values built from `jax.local_device_count()`, `jax.device_count()`,
    `len(jax.devices())` or a name bound to one of them, reshapes to
    `(n_devices, -1, ...)`, replicated or sharded values (`flax.jax_utils.replicate`,
    `jax.device_put_replicated`, `common_utils.shard`), outputs of pmapped functions, and
    anything else are not reported. A pmap given `devices=` or `axis_size=` is skipped.

    ## Why is this bad?
    `pmap` does not split a batch across the devices: it maps axis 0 of each mapped
    argument, one slice per device, so that axis must be the device count. With a batch
    of 32 on 4 devices JAX 0.10.2 fails with `ValueError: cannot select an axis to
    squeeze out which has size not equal to one, got shape=(8, 100) and
    dimensions=(0,)`, an error far from the cause (an indivisible size gives an
    `IndivisibleError`); with more devices than the leading axis it runs on only that
    many of them, silently.

    ## Example
    ```python
    parallel_loss = jax.pmap(compute_loss, in_axes=(None, 0))
    batch = jnp.ones((32, 100))
    result = parallel_loss(params, batch)
    ```

    ## Use instead
    ```python
    parallel_loss = jax.pmap(compute_loss, in_axes=(None, 0))
    batch = jnp.ones((32, 100)).reshape(jax.local_device_count(), -1, 100)
    result = parallel_loss(params, batch)  # one result per device
    ```

    ## Fix safety
    For an array of data whose whole shape is written in the code (`jnp.ones((32, 100))`),
    the fix reshapes the argument at the call to `(jax.local_device_count(), -1, 100)`.
    It is unsafe: the mapped function then sees a per-device batch `(8, 100)` instead of
    one example, and the reshape fails when the batch does not divide evenly among the
    devices. Keys, stacked values and misplaced reshapes are not fixed.

    ## References
    - [jax.pmap](https://docs.jax.dev/en/latest/_autosummary/jax.pmap.html)
    - [Migrating from pmap](https://docs.jax.dev/en/latest/migrate_pmap.html)
    """

    code = "JAX203"
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    name = "pmap-leading-axis-not-devices"
    summary = "A `pmap`ped argument's leading axis is a fixed size or another axis, not the device count"
    status = "stable"
    fix_availability = "sometimes"
    help = "Reshape the argument to `(jax.local_device_count(), -1, ...)`, or pass `in_axes=None` for it"
    about = ("jax.pmap",)
    reads = "call graph"  # the calls of a function that passes its parameter on to a pmapped call

    VALID = (
        # the batch is reshaped to (devices, per-device batch, ...)
        (
            "import jax, jax.numpy as jnp\n"
            "p = jax.pmap(lambda x: x.sum(), in_axes=0)\n"
            "n = jax.local_device_count()\n"
            "x = jnp.ones((32, 100)).reshape(n, -1, 100)\n"
            "p(x)\n"
        ),
        # a leading axis built from the device count
        (
            "import jax\n"
            "keys = jax.random.split(jax.random.PRNGKey(0), jax.device_count())\n"
            "jax.pmap(lambda k: jax.random.normal(k, (3,)))(keys)\n"
        ),
        # not mapped: in_axes=None
        "import jax, jax.numpy as jnp\njax.pmap(lambda p, x: x * p.sum(), in_axes=(None, 0))(jnp.ones((10,)), xs)\n",
        # unknown shape: silent
        "import jax\njax.pmap(lambda x: x * 2)(load_batch())\n",
    )
    INVALID = (
        (
            (
                "import jax\nimport jax.numpy as jnp\n"
                "parallel_loss = jax.pmap(lambda p, b: jnp.mean(b ** 2) + jnp.sum(p), in_axes=(None, 0))\n"
                "params = jnp.ones((10,))\n"
                "batch = jnp.ones((32, 100))\n"
                "result = parallel_loss(params, batch)\n"
            ),
            Invalid(
                "JAX203",
                line=6,
                message="its leading axis is 32, a fixed size",
                fixed=(
                    "import jax\nimport jax.numpy as jnp\n"
                    "parallel_loss = jax.pmap(lambda p, b: jnp.mean(b ** 2) + jnp.sum(p), in_axes=(None, 0))\n"
                    "params = jnp.ones((10,))\n"
                    "batch = jnp.ones((32, 100))\n"
                    "result = parallel_loss(params, batch.reshape(jax.local_device_count(), -1, 100))\n"
                ),
            ),
        ),
        (
            (
                "import jax\n"
                "n_devices = jax.local_device_count()\n"
                "x = data.reshape(8, n_devices, -1)\n"
                "jax.pmap(lambda v: v * 2)(x)\n"
            ),
            Invalid("JAX203", line=4, message="puts the device count on axis 1"),
        ),
    )

    def finish(self) -> None:
        for f in findings(self.ctx):
            if f.origin.kind not in ("fixed", "misplaced") or f.site.devices_given:
                continue
            if f.origin.kind == "fixed" and not self._not_device_count(f):
                continue
            self.report(f.arg.value, self._message(f), fix=self._fix(f))

    def _not_device_count(self, f: Finding) -> bool:
        """Is the fixed size visibly not meant as the device count? Larger than a host's
        devices, named as a batch, or beside an argument built per device; and the code
        around the call does not check the device count (tests that pick a size on purpose)."""
        o = f.origin
        if device_guarded(self.ctx, f.call) or device_guarded(self.ctx, f.arg):
            return False
        return f.beside is not None or (o.leading or 0) > MAX_LOCAL_DEVICES or o.batch_name is not None

    def _message(self, f: Finding) -> str:
        ctx = self.ctx
        head, built = describe(ctx, f)
        head += ", so that axis must be the device count"
        o = f.origin
        it = f"it is {built}, which" if built else "it"
        if o.kind == "misplaced":
            return (
                f"{head}; but {it} puts the device count on {o.why}, not axis 0: put it first "
                "(`reshape(n_devices, -1, ...)`), and reshape every mapped argument the same way"
            )
        if o.data:
            size = f"its leading axis is {o.leading}, a fixed size, not the device count"
        else:
            size = f"{o.why}, a fixed number, not the device count"
        n = o.leading
        but = f"but it is {built}: {size}" if built else f"but {size}"
        if f.beside is not None:
            beside = clip(ctx, f.beside.value, 30)
            return (
                f"{head}; {but}, while `{beside}` beside it has one entry per device: unless there are exactly "
                f"{n} devices pmap fails (an `IndivisibleError` or `ValueError: cannot select an axis to squeeze "
                f"out ...`); {_advice(ctx, f)}"
            )
        if o.batch_name is not None:
            but += f" but the batch size `{o.batch_name}`"
        return (
            f"{head}; {but}. pmap does not split a batch across devices: with fewer than {n} devices it fails "
            "(`ValueError: cannot select an axis to squeeze out ...` or an `IndivisibleError`), with more it "
            f"silently uses only {n} of them; {_advice(ctx, f)}"
        )

    def _fix(self, f: Finding) -> RuleFix | None:
        o = f.origin
        jax = jax_name(self.ctx)
        value = f.arg.value
        if o.kind != "fixed" or not o.data or o.shape is None or jax is None:
            return None
        if not isinstance(value, (cst.Name, cst.Call)):
            return None
        rest = "".join(f", {d}" for d in o.shape[1:])
        text = f"{self.ctx.code(value)}.reshape({jax}.local_device_count(), -1{rest})"
        return RuleFix(FIX_TITLE, [NodeEdit(value, text)], "unsafe")


def _advice(ctx, f: Finding) -> str:
    o = f.origin
    shown = clip(ctx, f.arg.value, 30)
    if o.data and o.shape is not None:
        rest = "".join(f", {d}" for d in o.shape[1:])
        return f"reshape it so the device axis comes first: `{shown}.reshape(jax.local_device_count(), -1{rest})`"
    if o.data:
        return f"reshape it so the device axis comes first: `{shown}.reshape(jax.local_device_count(), -1, ...)`"
    if "key" in o.why:
        return "split one key per device: `jax.random.split(key, jax.local_device_count())`"
    return (
        "build one entry per device (`jax.local_device_count()` of them), or pass `in_axes=None` at this "
        "position if every device should see the whole value"
    )
