from __future__ import annotations

import libcst as cst

from jaxlint.lint.rule import Invalid, NodeEdit, Rule, RuleFix
from jaxlint.model import dims

from .pmap import Finding, built, called_at, clip, constructor_shape, findings, head, jax_name

FIX_TITLE = "Reshape so that the leading axis is the device count"


def _device_axis(f: Finding) -> int | None:
    """The axis other than the first that holds the device count, if one does."""
    a = f.leaf.value
    dims_ = getattr(getattr(a, "shape", None), "dims", ())
    for i, d in enumerate(dims_[1:], 1):
        if dims.is_devices(d):
            return i
    return None


class PmapLeadingAxisNotDevices(Rule):
    """
    ## What it does
    Reports an argument that a `pmap` maps (its `in_axes` entry is 0, the default) whose
    leading axis is certainly not the device count, as the program builds it:
    - a fixed size where another mapped argument of the same call has the device count
      (`jnp.stack([w, w])` beside `x` of shape `(n_devices, ...)`), or larger than any
      host's local device count (`jnp.ones((32, 100))`, `random.split(key, 16)`);
    - an expression of the device count other than itself (`split(key, n_devices + 1)`),
      or the device count where the pmap runs on other devices (`devices=` a slice of
      them, `jax.local_devices()[: n // 2]`, `axis_size=`);
    - no leading axis at all (a Python number, a rank-0 array).

    A share the program divides out of the devices (`n_devices // 2` entries) is taken as
    chosen on purpose where it fits them (JAX runs the pmap on that many); a pmap whose
    function applies another pmap shares the devices with it, and its leading axis is
    not judged.

    The values are what the program computes: array constructors and the JAX
    functions' shape rules (`reshape`, `stack`, `split`, ...), the values functions
    return and the arguments their callers pass, followed through the parameters of
    the functions that pass the value on (then the argument of the outermost call in
    the pmap's module is reported; a value another module's call passes in, at the
    pmap's argument, once for every such caller). Sizes built from `jax.local_device_count()`, `jax.device_count()` or
    `len(jax.devices())` are the device count; sizes the code does not show are not
    judged, and a fixed size in code that compares the device count with something (a
    test that skips without enough devices) is taken as chosen on purpose.

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
    For an array of data whose whole shape is known (`jnp.ones((32, 100))`), the fix
    reshapes the argument at the call to `(jax.local_device_count(), -1, 100)`. It is
    unsafe: the mapped function then sees a per-device batch `(8, 100)` instead of one
    example, and the reshape fails when the batch does not divide evenly among the
    devices.

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
    # the calls of the function making the pmapped call, and theirs: where its arguments come from
    reads = ("calls", "forwarders", "project anchors")

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
                message="pmap maps `batch` over a leading axis of 32, a fixed size, not the device count",
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
                "keys = jax.random.split(jax.random.PRNGKey(0), n_devices + 1)\n"
                "jax.pmap(lambda k: jax.random.normal(k, (3,)))(keys)\n"
            ),
            Invalid("JAX203", line=4, message="over a leading axis of n_devices + 1, not the device count"),
        ),
    )

    def finish(self) -> None:
        for f in findings(self.ctx):
            if f.kind != "data" or f.node is None:
                continue
            message, note = self._message(f)
            self.report(f.node, message, fix=self._fix(f), note=note)

    def _message(self, f: Finding) -> tuple[str, str]:
        """(headline, note)."""
        ctx = self.ctx
        assert f.shown is not None
        name = f"`{clip(ctx, f.shown, 40)}`"
        start = head(ctx, f) + ", so that axis must be the device count"
        where = built(ctx, f)
        it = called_at(ctx, f) + (f"{name} is {where}. " if where else "")
        shape = constructor_shape(f)
        size = f.leaf.size
        if size is None:
            return (
                f"pmap maps {name} over a leading axis it does not have (rank 0)",
                f"{it}{start}: pmap fails (`ValueError: pmap requires at least one argument with a mapped axis`, "
                "or a rank error); pass `in_axes=None` at this position so every device sees it whole",
            )
        text = dims.text(size)
        on = _device_axis(f)
        if on is not None:
            return (
                f"pmap maps {name} over its leading axis of {text}, but the device count is on axis {on}",
                f"{it}{start}, and the reshape puts the device count on axis {on}: put it first "
                "(`reshape(n_devices, -1, ...)`), and reshape every mapped argument the same way",
            )
        fails = "pmap fails (an `IndivisibleError` or `ValueError: cannot select an axis to squeeze out ...`)"
        if not dims.equal(f.expected, dims.DEVICES):
            expected = dims.text(f.expected)
            return (
                f"pmap maps {name} over a leading axis of {text}, but it runs on {expected} devices",
                f"{it}{start}: given `devices=`/`axis_size=`, this pmap maps over {expected} of them, so that axis "
                f"must have {expected} entries, and unless it does {fails}; {self._advice(f, shape)}",
            )
        if isinstance(size, dims.Size):
            return (
                f"pmap maps {name} over a leading axis of {text}, not the device count",
                f"{it}{start}, and {text} never is: {fails}; {self._advice(f, shape)}",
            )
        headline = f"pmap maps {name} over a leading axis of {text}, a fixed size, not the device count"
        if f.beside is not None:
            note = (
                f"{it}{start}, and another mapped argument has one entry per device: unless there are exactly {text} "
                f"devices pmap fails (an `IndivisibleError` or `ValueError: cannot select an axis to squeeze out "
                f"...`); {self._advice(f, shape)}"
            )
        else:
            note = (
                f"{it}{start}. pmap does not split a batch across devices: with fewer than {text} devices it fails "
                "(`ValueError: cannot select an axis to squeeze out ...` or an `IndivisibleError`), with more it "
                f"silently uses only {text} of them; {self._advice(f, shape)}"
            )
        return headline, note

    def _advice(self, f: Finding, shape: tuple[dims.Dim, ...] | None) -> str:
        assert f.shown is not None
        shown = clip(self.ctx, f.shown, 30)
        if shape is not None:
            rest = "".join(f", {d}" for d in shape[1:])
            return f"reshape it so the device axis comes first: `{shown}.reshape(jax.local_device_count(), -1{rest})`"
        return (
            "build one entry per device (`jax.local_device_count()` of them), or pass `in_axes=None` at this "
            "position if every device should see the whole value"
        )

    def _fix(self, f: Finding) -> RuleFix | None:
        if f.site.app.via:
            return None  # the value is built in another module's def: nothing to edit here
        shape = constructor_shape(f)
        jax = jax_name(self.ctx)
        value = f.node
        if shape is None or jax is None or not isinstance(value, (cst.Name, cst.Call)):
            return None
        if not dims.equal(f.expected, dims.DEVICES):
            return None
        rest = "".join(f", {d}" for d in shape[1:])
        text = f"{self.ctx.code(value)}.reshape({jax}.local_device_count(), -1{rest})"
        return RuleFix(FIX_TITLE, [NodeEdit(value, text)], "unsafe")
