"""JAX203/JAX204 (pmap inputs): exact codes, lines, columns, messages and fixes."""

import os

from conftest import FIXTURES

from jaxlint import testing

CONSEQUENCE = (
    "pmap does not split a batch across devices: with fewer than {n} devices it fails (`ValueError: cannot "
    "select an axis to squeeze out ...` or an `IndivisibleError`), with more it silently uses only {n} of them; "
)


def _read(*parts):
    with open(os.path.join(FIXTURES, *parts), encoding="utf-8") as f:
        return f.read()


def _lint(source, code):
    return [(d.code, d.start.line, d.start.column, d.message) for d in testing.lint(source, code)]


# -- the seed chapters ------------------------------------------------------------------
def test_seed_4_2_is_flagged_at_the_pmapped_call():
    seed = _read("seeds", "c4_2_pmap_compute_loss_runnable.py")
    assert _lint(seed, "JAX203") == [
        (
            "JAX203",
            22,
            32,
            "`parallel_loss` (a pmap of `compute_loss`) maps `batch` over its leading axis, one slice per device, "
            "so that axis must be the device count; but it is `jnp.ones((32, 100))` (line 19): its leading axis is "
            "32, a fixed size, not the device count. "
            + CONSEQUENCE.format(n=32)
            + "reshape it so the device axis comes first: `batch.reshape(jax.local_device_count(), -1, 100)`",
        )
    ]
    assert testing.fix(seed, "JAX203") == seed.replace(
        "result = parallel_loss(params, batch)",
        "result = parallel_loss(params, batch.reshape(jax.local_device_count(), -1, 100))",
    )


def test_seed_4_2_verbatim_does_not_import_jnp_so_it_stays_silent():
    # unknown means silent: `jnp` is not imported in the chapter's own text
    assert _lint(_read("seeds", "c4_2_pmap_compute_loss.py"), "JAX203") == []


def test_seed_4_4_unreshaped_batch_is_flagged_where_it_is_passed_in():
    seed = _read("seeds", "c4_4_training_loop.py")
    got = _lint(seed, "JAX203")
    assert [g[:3] for g in got] == [("JAX203", 36, 29), ("JAX203", 36, 38)]
    assert got[0][3] == (
        "`batch_x` goes through `train_step` (as `batch_x`) to `parallel_grad` (a pmap of `compute_grad`) at line "
        "23, which maps it over its leading axis, one slice per device, so that axis must be the device count; but "
        "it is `jnp.ones((32, 10))` (line 32): its leading axis is 32, a fixed size, not the device count. "
        + CONSEQUENCE.format(n=32)
        + "reshape it so the device axis comes first: `batch_x.reshape(jax.local_device_count(), -1, 10)`"
    )
    assert "`jnp.ones((32,))` (line 33)" in got[1][3]
    assert got[1][3].endswith("`batch_y.reshape(jax.local_device_count(), -1)`")
    # parameters go in with in_axes=None: nothing to say about them
    assert _lint(seed, "JAX204") == []


# -- JAX203 ------------------------------------------------------------------------------
PMAP = "import jax\nimport jax.numpy as jnp\nfrom jax import random\nn = jax.local_device_count()\np = jax.pmap(lambda x: x.sum())\n"


def test_fixed_number_of_keys():
    src = PMAP + "keys = random.split(random.PRNGKey(0), 16)\np(keys)\n"
    assert _lint(src, "JAX203") == [
        (
            "JAX203",
            7,
            3,
            "`p` (a pmap of a lambda) maps `keys` over its leading axis, one slice per device, so that axis must be "
            "the device count; but it is `random.split(random.PRNGKey(0), 16)` (line 6): 16 keys, a fixed number, "
            "not the device count. "
            + CONSEQUENCE.format(n=16)
            + "split one key per device: `jax.random.split(key, jax.local_device_count())`",
        )
    ]
    assert testing.fix(src, "JAX203") == src  # keys are not reshaped


def test_misplaced_device_axis():
    src = PMAP + "x = jnp.zeros((64, 3))\np(x.reshape(-1, n, 3))\n"
    assert _lint(src, "JAX203") == [
        (
            "JAX203",
            7,
            3,
            "`p` (a pmap of a lambda) maps `x.reshape(-1, n, 3)` over its leading axis, one slice per device, so "
            "that axis must be the device count; but it puts the device count on axis 1, not axis 0: put it first "
            "(`reshape(n_devices, -1, ...)`), and reshape every mapped argument the same way",
        )
    ]


def test_batch_named_constant_and_stack_beside_a_per_device_argument():
    src = PMAP + "BATCH = 4\nx = random.normal(random.PRNGKey(0), (BATCH, 3))\np(x)\n"
    [(_, line, _, message)] = _lint(src, "JAX203")
    assert line == 8
    assert "its leading axis is 4, a fixed size, not the device count but the batch size `BATCH`" in message
    src = (
        "import jax\nimport jax.numpy as jnp\nn = len(jax.devices())\n"
        "q = jax.pmap(lambda a, b: a + b)\nq(jnp.zeros((n, 3)), jnp.stack([jnp.ones(3), jnp.ones(3)]))\n"
    )
    [(_, line, column, message)] = _lint(src, "JAX203")
    assert (line, column) == (5, 22)
    assert (
        "`jnp.stack` stacks a list of 2, a fixed number, not the device count, while `jnp.zeros((n, 3))` beside it "
        "has one entry per device: unless there are exactly 2 devices pmap fails"
    ) in message


def test_device_count_sizes_and_unknowns_are_silent():
    for arg in (
        "jnp.ones((n, 32))",
        "jnp.ones((jax.device_count(), 32))",
        "jnp.ones((32, 100)).reshape(n, -1, 100)",
        "jnp.ones((32, 100)).reshape((n, -1) + (100,))",
        "random.split(random.PRNGKey(0), n)",
        "jnp.arange(4)",  # a small size may be the device count on purpose
        "jnp.ones((1, 3))",
        "load()",
        "jax.pmap(init)(keys)",
    ):
        assert _lint(PMAP + f"p({arg})\n", "JAX203") == [], arg


def test_not_mapped_positions_and_given_devices_are_silent():
    for pmap in (
        "jax.pmap(lambda w, x: x, in_axes=(None, 0))",
        "jax.pmap(lambda w, x: x, in_axes=(1, 0))",
        "jax.pmap(lambda w, x: x, static_broadcasted_argnums=0)",
        "jax.pmap(lambda w, x: x, devices=jax.devices()[:2])",
        "jax.pmap(lambda w, x: x, **options)",
    ):
        src = f"import jax\nimport jax.numpy as jnp\nn = jax.local_device_count()\nf = {pmap}\nf(jnp.ones((32, 3)), jnp.ones((n, 3)))\n"
        assert _lint(src, "JAX203") == [], pmap


def test_rebound_and_guarded_values_are_silent():
    rebound = PMAP + "x = jnp.ones((32, 3))\nx = x.reshape(n, -1, 3)\np(x)\n"
    assert _lint(rebound, "JAX203") == []
    guarded = (
        PMAP + "def test_many(self):\n    if jax.device_count() < 16:\n        self.skipTest('16 devices')\n"
        "    p(jnp.ones((16, 3)))\n"
    )
    assert _lint(guarded, "JAX203") == []
    decorated = PMAP + "@required_devices(16)\ndef bench():\n    p(jnp.ones((16, 3)))\n"
    assert _lint(decorated, "JAX203") == []


# -- JAX204 ------------------------------------------------------------------------------
def test_single_key_message_and_fix():
    src = "import jax\nf = jax.pmap(lambda k: jax.random.normal(k, (3,)))\nrng = jax.random.PRNGKey(0)\nf(rng)\n"
    assert _lint(src, "JAX204") == [
        (
            "JAX204",
            4,
            3,
            "`f` (a pmap of a lambda) maps `rng` over its leading axis, one slice per device, but it is "
            "`jax.random.PRNGKey(0)` (line 3), a single PRNG key with no device axis: pmap would slice the key "
            "itself (a typed `jax.random.key` fails with `IndexError`, a legacy `PRNGKey` is taken as 2 devices' "
            "keys); pass one key per device, `jax.random.split(rng, jax.local_device_count())`, or `in_axes=None` "
            "at this position if every device should draw the same numbers",
        )
    ]
    assert testing.fix(src, "JAX204") == src.replace("f(rng)", "f(jax.random.split(rng, jax.local_device_count()))")


def test_key_fix_needs_the_jax_module_name():
    src = "from jax import pmap, random\nf = pmap(lambda k: random.normal(k, (3,)))\nf(random.key(0))\n"
    [(code, line, _, _)] = _lint(src, "JAX204")
    assert (code, line) == ("JAX204", 3)
    assert testing.fix(src, "JAX204") == src  # no `jax` name to spell the fix with


def test_unreplicated_params_message():
    src = "import jax\nkey = jax.random.PRNGKey(0)\nparams = net.init(key, x)\njax.pmap(net.apply)(params, xs)\n"
    assert _lint(src, "JAX204") == [
        (
            "JAX204",
            4,
            21,
            "the pmap of `net.apply` maps `params` over its leading axis, one slice per device, but it is "
            "`net.init(key, x)` (line 3): one copy of the parameters from `net.init`, never replicated, so each "
            "device gets one slice of every weight (an `IndivisibleError`, or silently wrong results when a "
            "weight's first dimension equals the device count); pass `in_axes=None` at this position, or "
            "replicate them first (`flax.jax_utils.replicate`, or a pmapped init over one key per device)",
        )
    ]
    assert testing.fix(src, "JAX204") == src


def test_replicated_or_unknown_params_are_silent():
    for value in (
        "jax_utils.replicate(net.init(key, x))",
        "jax.pmap(net.init)(jax.random.split(key, n), xs)",
        "net.init(rng, x)",  # the key's origin is unknown
        "tx.init(replicated)",
    ):
        src = (
            "import jax\nfrom flax import jax_utils\nn = jax.local_device_count()\nkey = jax.random.PRNGKey(0)\n"
            f"params = {value}\njax.pmap(net.apply)(params, xs)\n"
        )
        assert _lint(src, "JAX204") == [], value


def test_jax204_is_preview_and_jax203_is_stable():
    from jaxlint.lint.registry import rule_by_code

    assert rule_by_code("JAX203").status == "stable"
    assert rule_by_code("JAX204").status == "preview"


def test_params_carried_through_a_training_loop_cite_the_init_in_the_same_function():
    src = (
        "import jax\n"
        "params = model.init(jax.random.PRNGKey(0), x)\n"  # the same text at module level
        "def train(batches):\n"
        "    params = model.init(jax.random.PRNGKey(0), x)\n"
        "    p_step = jax.pmap(update, axis_name='batch')\n"
        "    for batch in batches:\n"
        "        params, loss = p_step(params, batch)\n"
        "    return params\n"
    )
    [(code, line, column, message)] = _lint(src, "JAX204")
    assert (code, line, column) == ("JAX204", 7, 31)
    assert message.startswith(
        "`p_step` (a pmap of `update`) maps `params` over its leading axis, one slice per device, but it is "
        "`model.init(jax.random.PRNGKey(0), x)` (line 4): one copy of the parameters from `model.init`"
    )
    replicated = src.replace("    p_step =", "    params = replicate(params)\n    p_step =")
    assert _lint(replicated, "JAX204") == []
