"""JAX203/JAX204 (pmap inputs): exact codes, positions, headlines and notes, on the
semantic model — the leading axis a mapped argument is built with, and where it enters."""

from importlib.util import find_spec
from pathlib import Path

import pytest
from conftest import FIXTURES, raised_by

from jaxlint import testing

needs_jax = pytest.mark.skipif(find_spec("jax") is None, reason="needs jax")


def _seed(name):
    return Path(FIXTURES, "seeds", name).read_text(encoding="utf-8")


def _lint(source, code):
    return [(d.code, d.start.line, d.start.column, d.message, d.note) for d in testing.lint(source, code)]


def test_seed_fixes():
    seed = _seed("c4_2_pmap_compute_loss_runnable.py")
    assert testing.fix(seed, "JAX203") == seed.replace(
        "result = parallel_loss(params, batch)",
        "result = parallel_loss(params, batch.reshape(jax.local_device_count(), -1, 100))",
    )
    src = "import jax\nfrom jax import random\np = jax.pmap(lambda k, x: x + random.normal(k, x.shape))\nkey = random.PRNGKey(0)\np(key, xs)\n"
    assert testing.fix(src, "JAX204") == src.replace(
        "p(key, xs)", "p(jax.random.split(key, jax.local_device_count()), xs)"
    )


def test_seed_4_2_verbatim_does_not_import_jnp_so_it_stays_silent():
    seed = _seed("c4_2_pmap_compute_loss.py")
    assert _lint(seed, "JAX203") == []


def test_seed42():
    src = _seed("c4_2_pmap_compute_loss_runnable.py")
    assert _lint(src, "JAX203") == [
        (
            "JAX203",
            22,
            32,
            "pmap maps `batch` over a leading axis of 32, a fixed size, not the device count",
            "`batch` is `jnp.ones((32, 100))` (line 19). `parallel_loss` (a pmap of `compute_loss`) maps `batch` over its leading axis, one slice per device, so that axis must be the device count. pmap does not split a batch across devices: with fewer than 32 devices it fails (`ValueError: cannot select an axis to squeeze out ...` or an `IndivisibleError`), with more it silently uses only 32 of them; reshape it so the device axis comes first: `batch.reshape(jax.local_device_count(), -1, 100)`",
        )
    ]


def test_seed44():
    src = _seed("c4_4_training_loop.py")
    assert _lint(src, "JAX203") == [
        (
            "JAX203",
            36,
            29,
            "pmap maps `batch_x` over a leading axis of 32, a fixed size, not the device count",
            "`batch_x` is `jnp.ones((32, 10))` (line 32). `batch_x` goes through `train_step` (as `batch_x`) to `parallel_grad` (a pmap of `compute_grad`) at line 23, which maps it over its leading axis, one slice per device, so that axis must be the device count. pmap does not split a batch across devices: with fewer than 32 devices it fails (`ValueError: cannot select an axis to squeeze out ...` or an `IndivisibleError`), with more it silently uses only 32 of them; reshape it so the device axis comes first: `batch_x.reshape(jax.local_device_count(), -1, 10)`",
        ),
        (
            "JAX203",
            36,
            38,
            "pmap maps `batch_y` over a leading axis of 32, a fixed size, not the device count",
            "`batch_y` is `jnp.ones((32,))` (line 33). `batch_y` goes through `train_step` (as `batch_y`) to `parallel_grad` (a pmap of `compute_grad`) at line 23, which maps it over its leading axis, one slice per device, so that axis must be the device count. pmap does not split a batch across devices: with fewer than 32 devices it fails (`ValueError: cannot select an axis to squeeze out ...` or an `IndivisibleError`), with more it silently uses only 32 of them; reshape it so the device axis comes first: `batch_y.reshape(jax.local_device_count(), -1)`",
        ),
    ]


def test_keys16():
    src = "import jax\nfrom jax import random\np = jax.pmap(lambda k: random.normal(k, (3,)))\np(random.split(random.PRNGKey(0), 16))\n"
    assert _lint(src, "JAX203") == [
        (
            "JAX203",
            4,
            3,
            "pmap maps `random.split(random.PRNGKey(0), 16)` over a leading axis of 16, a fixed size, not the device count",
            "`p` (a pmap of `lambda k: random.normal(k, (3…`) maps `random.split(random.PRNGKey(0), 16)` over its leading axis, one slice per device, so that axis must be the device count. pmap does not split a batch across devices: with fewer than 16 devices it fails (`ValueError: cannot select an axis to squeeze out ...` or an `IndivisibleError`), with more it silently uses only 16 of them; build one entry per device (`jax.local_device_count()` of them), or pass `in_axes=None` at this position if every device should see the whole value",
        )
    ]


def test_plus1():
    src = "import jax\nfrom jax import random\nn = jax.local_device_count()\np = jax.pmap(lambda k: random.normal(k, (3,)))\np(random.split(random.PRNGKey(0), n + 1))\n"
    assert _lint(src, "JAX203") == [
        (
            "JAX203",
            5,
            3,
            "pmap maps `random.split(random.PRNGKey(0), n + 1)` over a leading axis of n_devices + 1, not the device count",
            "`p` (a pmap of `lambda k: random.normal(k, (3…`) maps `random.split(random.PRNGKey(0), n + 1)` over its leading axis, one slice per device, so that axis must be the device count, and n_devices + 1 never is: pmap fails (an `IndivisibleError` or `ValueError: cannot select an axis to squeeze out ...`); build one entry per device (`jax.local_device_count()` of them), or pass `in_axes=None` at this position if every device should see the whole value",
        )
    ]


def test_misplaced():
    src = "import jax\nimport numpy as np\nn = jax.local_device_count()\np = jax.pmap(lambda x: x.mean())\np(np.arange(64.0).reshape(8, n, -1))\n"
    assert _lint(src, "JAX203") == [
        (
            "JAX203",
            5,
            3,
            "pmap maps `np.arange(64.0).reshape(8, n, -1)` over its leading axis of 8, but the device count is on axis 1",
            "`p` (a pmap of `lambda x: x.mean()`) maps `np.arange(64.0).reshape(8, n, -1)` over its leading axis, one slice per device, so that axis must be the device count, and the reshape puts the device count on axis 1: put it first (`reshape(n_devices, -1, ...)`), and reshape every mapped argument the same way",
        )
    ]


def test_beside():
    src = "import jax, jax.numpy as jnp\nfrom jax import random\nn = jax.local_device_count()\np = jax.pmap(lambda k, x: x + random.normal(k, x.shape))\np(random.split(random.PRNGKey(0), n), jnp.stack([jnp.zeros(3), jnp.ones(3)]))\n"
    assert _lint(src, "JAX203") == [
        (
            "JAX203",
            5,
            39,
            "pmap maps `jnp.stack([jnp.zeros(3), jnp.ones(3)])` over a leading axis of 2, a fixed size, not the device count",
            "`p` (a pmap of `lambda k, x: x + random.norma…`) maps `jnp.stack([jnp.zeros(3), jnp.ones(3)])` over its leading axis, one slice per device, so that axis must be the device count, and another mapped argument has one entry per device: unless there are exactly 2 devices pmap fails (an `IndivisibleError` or `ValueError: cannot select an axis to squeeze out ...`); build one entry per device (`jax.local_device_count()` of them), or pass `in_axes=None` at this position if every device should see the whole value",
        )
    ]


def test_scalar():
    src = "import jax, jax.numpy as jnp\nn = jax.local_device_count()\np = jax.pmap(lambda w, lr: w * lr)\np(jnp.zeros((n, 3)), 0.1)\n"
    assert _lint(src, "JAX203") == [
        (
            "JAX203",
            4,
            22,
            "pmap maps `0.1` over a leading axis it does not have (rank 0)",
            "`p` (a pmap of `lambda w, lr: w * lr`) maps `0.1` over its leading axis, one slice per device, so that axis must be the device count: pmap fails (`ValueError: pmap requires at least one argument with a mapped axis`, or a rank error); pass `in_axes=None` at this position so every device sees it whole",
        )
    ]


def test_devices():
    src = "import jax, jax.numpy as jnp\nn = jax.local_device_count()\np = jax.pmap(lambda x: x, devices=jax.local_devices()[:4])\np(jnp.ones((n, 3)))\n"
    assert _lint(src, "JAX203") == [
        (
            "JAX203",
            4,
            3,
            "pmap maps `jnp.ones((n, 3))` over a leading axis of n_devices, but it runs on 4 devices",
            "`p` (a pmap of `lambda x: x`) maps `jnp.ones((n, 3))` over its leading axis, one slice per device, so that axis must be the device count: given `devices=`/`axis_size=`, this pmap maps over 4 of them, so that axis must have 4 entries, and unless it does pmap fails (an `IndivisibleError` or `ValueError: cannot select an axis to squeeze out ...`); build one entry per device (`jax.local_device_count()` of them), or pass `in_axes=None` at this position if every device should see the whole value",
        )
    ]


def test_guarded():
    src = "import jax, jax.numpy as jnp\np = jax.pmap(lambda x: x)\ndef test():\n    if jax.device_count() < 16:\n        return\n    p(jnp.ones((16, 3)))\n"
    assert _lint(src, "JAX203") == []


def test_key():
    src = "import jax\nfrom jax import random\np = jax.pmap(lambda k, x: x + random.normal(k, x.shape))\nkey = random.PRNGKey(0)\np(key, xs)\n"
    assert _lint(src, "JAX204") == [
        (
            "JAX204",
            5,
            3,
            "pmap maps `key`, a single PRNG key with no device axis",
            "`key` is `random.PRNGKey(0)` (line 4), one key. `p` (a pmap of `lambda k, x: x + random.norma…`) maps `key` over its leading axis, one slice per device: pmap would slice the key itself (a typed `jax.random.key` fails with `IndexError`, a legacy `PRNGKey` is taken as 2 devices' keys); pass one key per device, `jax.random.split(key, jax.local_device_count())`, or `in_axes=None` at this position if every device should draw the same numbers",
        )
    ]


def test_typed():
    src = "import jax\nfrom jax import random\np = jax.pmap(lambda k: random.normal(k, (3,)))\np(random.key(0))\n"
    assert _lint(src, "JAX204") == [
        (
            "JAX204",
            4,
            3,
            "pmap maps `random.key(0)`, a single PRNG key with no device axis",
            "`p` (a pmap of `lambda k: random.normal(k, (3…`) maps `random.key(0)` over its leading axis, one slice per device: pmap would slice the key itself (a typed `jax.random.key` fails with `IndexError`, a legacy `PRNGKey` is taken as 2 devices' keys); pass one key per device, `jax.random.split(random.key(0), jax.local_device_count())`, or `in_axes=None` at this position if every device should draw the same numbers",
        )
    ]


def test_params():
    src = "import jax, jax.numpy as jnp\ndef init(key):\n    k1, k2 = jax.random.split(key)\n    return {'w': jax.random.normal(k1, (784, 10)), 'b': jax.random.normal(k2, (10,))}\nparams = init(jax.random.PRNGKey(0))\njax.pmap(lambda p, x: x @ p['w'] + p['b'])(params, jnp.ones((jax.local_device_count(), 784)))\n"
    assert _lint(src, "JAX204") == [
        (
            "JAX204",
            6,
            44,
            "pmap maps `params`, one copy of the parameters with no device axis",
            "`params` is `init(jax.random.PRNGKey(0))` (line 5). `pmap(lambda p, x: x @ p['w'] + p['…)` maps `params` over its leading axis, one slice per device, but none of its 2 leaves has a device axis: each device gets one slice of every weight (an `IndivisibleError`, or silently wrong results when a weight's first dimension equals the device count); pass `in_axes=None` at this position, or replicate them first (`jax.device_put_replicated`, `flax.jax_utils.replicate`, or a pmapped init over one key per device)",
        )
    ]


def test_loop():
    src = "import jax, jax.numpy as jnp\ndef init(key):\n    return {'w': jax.random.normal(key, (784, 10)), 'b': jnp.zeros(10)}\ndef train(batches):\n    params = init(jax.random.PRNGKey(0))\n    step = jax.pmap(lambda p, b: (p, b.mean()))\n    for batch in batches:\n        params, loss = step(params, batch)\n    return params\n"
    assert _lint(src, "JAX204") == [
        (
            "JAX204",
            8,
            29,
            "pmap maps `params`, one copy of the parameters with no device axis",
            "`step` (a pmap of `lambda p, b: (p, b.mean())`) maps `params` over its leading axis, one slice per device, but none of its 2 leaves has a device axis: each device gets one slice of every weight (an `IndivisibleError`, or silently wrong results when a weight's first dimension equals the device count); pass `in_axes=None` at this position, or replicate them first (`jax.device_put_replicated`, `flax.jax_utils.replicate`, or a pmapped init over one key per device)",
        )
    ]


def test_a_pytree_batch_whose_leaves_share_a_leading_size_is_data_with_no_reshape_fix():
    # an (inputs, labels) tuple: one leading size for every leaf is a batch (JAX203), not one
    # copy of the parameters (JAX204); a tuple has no ``reshape``, so no fix is offered
    src = (
        "import jax\nimport jax.numpy as jnp\n"
        "p = jax.pmap(lambda w, b: w + b[0].sum() + b[1].sum())\n"
        "batch = (jnp.ones((64, 5)), jnp.ones((64,)))\n"
        "out = p(jnp.zeros((jax.device_count(), 5)), batch)\n"
    )
    [d] = testing.lint(src, "JAX203")
    assert (d.start.line, d.message) == (
        5,
        "pmap maps `batch` over a leading axis of 64, a fixed size, not the device count",
    )
    assert testing.lint(src, "JAX204") == []
    assert testing.fix(src, "JAX203") == src


def test_batches_a_generator_yields_are_judged_where_they_are_mapped():
    path = Path(FIXTURES, "JAX203", "lint", "generator_batches.py")
    assert _lint(path.read_text(encoding="utf-8"), "JAX203") == [
        (
            "JAX203",
            20,
            14,
            "pmap maps `b` over a leading axis of 128, a fixed size, not the device count",
            "`step` (a pmapped function) maps `b` over its leading axis, one slice per device, so that axis must "
            "be the device count. pmap does not split a batch across devices: with fewer than 128 devices it fails "
            "(`ValueError: cannot select an axis to squeeze out ...` or an `IndivisibleError`), with more it "
            "silently uses only 128 of them; reshape it so the device axis comes first: "
            "`b.reshape(jax.local_device_count(), -1, 4)`",
        )
    ]


@pytest.mark.jax
@needs_jax
@pytest.mark.parametrize(
    "name,call,raises",
    [
        ("generator_batches.py", "run_bad()", "ValueError"),
        ("generator_batches.py", "run_ok()", None),
        ("generator_batches.fixed.py", "run_bad()", None),
        ("trainer_class.py", "run_bad()", "ValueError"),
        ("trainer_class.py", "run_ok()", None),
    ],
)
def test_the_marked_batches_fail_at_run_time_and_the_fixes_run(name, call, raises):
    e = raised_by(f"JAX203/lint/{name}", call)  # pmap of a leading axis of 128 on fewer devices
    assert (type(e).__name__ if e is not None else None) == raises, e


def test_the_arguments_before_a_spread_batch_take_the_leading_positions():
    path = Path(FIXTURES, "JAX204", "lint", "spread_batch.py")
    found = _lint(path.read_text(encoding="utf-8"), "JAX204")
    assert [(code, line, col, message) for code, line, col, message, _ in found] == [
        ("JAX204", 34, 30, "pmap maps `state`, a pytree with no device axis (`state.step` is rank 0)")
    ]


@pytest.mark.jax
@needs_jax
def test_the_spread_batch_fixture_fails_under_jax_as_linted():
    e = raised_by("JAX204/lint/spread_batch.py", "fit()")
    assert type(e) is ValueError and "incompatible with its sharding annotation" in str(e), e
    assert raised_by("JAX204/lint/spread_batch.py", "fit_replicated()") is None


def test_pmap_reads_in_axes_at_the_positions_it_does_not_keep_static():
    # `in_axes=(0, None)` for three arguments, the third static: JAX reads in_axes[0] and
    # in_axes[1] only (jax 0.10.2), so the call is judged, and 16 keys are not one per device
    path = Path(FIXTURES, "JAX203", "lint", "static_trailing.py")
    found = _lint(path.read_text(encoding="utf-8"), "JAX203")
    assert [(code, line, message) for code, line, _, message, _ in found] == [
        ("JAX203", 15, "pmap maps `keys` over a leading axis of 16, a fixed size, not the device count")
    ]


@pytest.mark.jax
@needs_jax
def test_the_static_trailing_fixture_fails_under_jax_as_linted():
    import jax

    args = "(jax.random.key(0), jnp.ones(5))"
    e = raised_by("JAX203/lint/static_trailing.py", f"ensemble_bad{args}")
    assert jax.local_device_count() < 16 and type(e) is ValueError, e
    assert raised_by("JAX203/lint/static_trailing.py", f"ensemble_ok{args}") is None


def test_a_stack_of_what_a_generator_yields_has_as_many_rows_as_it_yields():
    # `list(cls.cards())`: one card per `range(cls.n_cards)` iteration, 12 of them
    path = Path(FIXTURES, "JAX203", "lint", "generator_stack.py")
    found = _lint(path.read_text(encoding="utf-8"), "JAX203")
    assert [(code, line, message) for code, line, _, message, _ in found] == [
        ("JAX203", 29, "pmap maps `Deck.stacked()` over a leading axis of 12, a fixed size, not the device count")
    ]


@pytest.mark.jax
@needs_jax
def test_the_generator_stack_fixture_fails_under_jax_as_linted():
    import jax

    e = raised_by("JAX203/lint/generator_stack.py", "weave_bad()")
    # one device: `cannot select an axis to squeeze out`; eight: 12 does not divide by 8
    assert jax.local_device_count() < 12 and type(e).__name__ in ("ValueError", "IndivisibleError"), e
    assert raised_by("JAX203/lint/generator_stack.py", "weave_ok()") is None


def test_a_pmap_on_a_slice_of_the_devices_needs_that_many_entries():
    # `devices=jax.local_devices()[: n // 2]`: half the devices, a size of its own; the
    # batch reshaped to the device count does not fit it (the caller's recordings: an
    # append in nested loops, 2 pitches by 8 singers)
    path = Path(FIXTURES, "JAX203", "lint", "device_pool.py")
    found = _lint(path.read_text(encoding="utf-8"), "JAX203")
    assert [(code, line, message) for code, line, _, message, _ in found] == [
        ("JAX203", 19, "pmap maps `blocks` over a leading axis of n_devices, but it runs on n_devices // 2 devices")
    ]


@pytest.mark.jax
@needs_jax
def test_the_device_pool_fixture_fails_under_jax_as_linted():
    # one device: the half is empty; more: the device count does not fit half of them
    assert type(raised_by("JAX203/lint/device_pool.py", "run_bad()")) is ValueError
    assert raised_by("JAX203/lint/device_pool.py", "run_ok()") is None


def test_a_share_of_the_devices_that_fits_them_and_nested_pmaps_are_not_judged():
    # jax 0.10.2 runs a pmap on as many devices as the leading axis has, when they fit:
    # `n // 2` entries on all the devices use half of them, on purpose; nested pmaps share
    # the devices between them
    src = (
        "from functools import partial\nimport jax\nimport jax.numpy as jnp\nfrom jax import lax, pmap\n"
        "def nested():\n"
        "    @partial(pmap, axis_name='i', devices=jax.devices())\n"
        "    def foo(x):\n"
        "        @partial(pmap, axis_name='j')\n"
        "        def bar(y):\n"
        "            return lax.psum(y, 'j')\n"
        "        return bar(x)\n"
        "    return foo(jnp.ones((jax.device_count() // 2, 2)))\n"
        "def half():\n"
        "    foo = pmap(lambda x: x * 2, devices=jax.devices())\n"
        "    return foo(jnp.ones((jax.device_count() // 2, 2)))\n"
    )
    assert _lint(src, "JAX203") == []
