"""JAX5xx (in-place updates, PRNG key reuse, traced control flow): exact codes, lines, messages, fixes."""

import os
from importlib.util import find_spec

import pytest

from jaxlint import testing

needs_jax = pytest.mark.skipif(find_spec("jax") is None, reason="needs jax")


def found(source, *codes):
    return [
        (d.code, d.start.line, d.start.column, testing.worded(d))
        for d in testing.lint(source, *(codes or ("JAX501", "JAX502", "JAX503")))
    ]


# --- JAX501 -----------------------------------------------------------------------------------


def test_inplace_update_message_and_fix():
    src = "import jax.numpy as jnp\nx = jnp.zeros(3)\nx[0] += 1.0\n"
    assert found(src, "JAX501") == [
        (
            "JAX501",
            3,
            1,
            "`x[0]` assigns in place into `x`, a JAX array (made by `jnp.zeros(3)`); JAX arrays are immutable and "
            "this raises `TypeError`. Use `x = x.at[0].add(...)`",
        ),
    ]
    assert testing.fix(src, "JAX501") == "import jax.numpy as jnp\nx = jnp.zeros(3)\nx = x.at[0].add(1.0)\n"
    assert testing.fix(src, "JAX501", unsafe=False) == src


def test_inplace_update_of_a_traced_argument_used_as_an_array():
    src = "import jax\n\n@jax.jit\ndef f(x, d):\n    d['k'] = x\n    x[0] = x.mean()\n    return x, d\n"
    assert found(src, "JAX501") == [
        (
            "JAX501",
            6,
            5,
            "`x[0]` assigns in place into `x`, a JAX array (a traced argument of `f` (jax.jit)); JAX arrays are "
            "immutable and this raises `TypeError`. Use `x = x.at[0].set(...)`",
        ),
    ]


def test_inplace_update_through_jax_private_numpy_alias():
    src = "from jax._src import numpy as jnp\nx = jnp.zeros(3)\nx[0] = 1.0\nw = jnp._private(3)\nw[0] = 1.0\n"
    assert found(src, "JAX501") == [
        (
            "JAX501",
            3,
            1,
            "`x[0]` assigns in place into `x`, a JAX array (made by `jnp.zeros(3)`); JAX arrays are immutable and "
            "this raises `TypeError`. Use `x = x.at[0].set(...)`",
        ),
    ]


def test_parameter_updated_with_at_elsewhere_is_a_jax_array():
    src = "def f(x, i, df):\n    x[i] = 0.0\n    df.at[i, 'c'] = 1\n    df[i] = 2\n    return x.at[i].add(1.0)\n"
    assert found("import jax\n" + src, "JAX501") == [
        (
            "JAX501",
            3,
            5,
            "`x[i]` assigns in place into `x`, a JAX array (`f` updates it with `x.at[...]`); JAX arrays are "
            "immutable and this raises `TypeError`. Use `x = x.at[i].set(...)`",
        ),
    ]


def test_traced_argument_passed_to_jnp_is_an_array_lists_dicts_and_refs_are_not():
    src = (
        "import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef f(x, g, lst, d, r):\n"
        "    x[0] = 1.0\n    g[1] = 2.0\n    lst[0] = 3.0\n    d['a'] = 4.0\n    r[...] = r.shape[0]\n"
        "    return jnp.sum(x) + g[:, 0] + jnp.stack(lst) + lst[1:] + d['b']\n"
    )
    assert found(src, "JAX501") == [
        (
            "JAX501",
            6,
            5,
            "`x[0]` assigns in place into `x`, a JAX array (a traced argument of `f` (jax.jit)); JAX arrays are "
            "immutable and this raises `TypeError`. Use `x = x.at[0].set(...)`",
        ),
    ]


def test_inplace_fix_keeps_a_tuple_value_whole():
    src = "import jax.numpy as jnp\nx = jnp.zeros((2, 2))\nx[0] = 1.0, 2.0\n"
    assert testing.fix(src, "JAX501") == "import jax.numpy as jnp\nx = jnp.zeros((2, 2))\nx = x.at[0].set((1.0, 2.0))\n"


def test_numpy_rebinding_and_unknown_values_are_silent():
    src = (
        "import jax.numpy as jnp\nimport numpy as np\n"
        "x = jnp.zeros(3)\nx = np.asarray(x).copy()\nx[0] = 1.0\n"
        "y = load()\ny[0] = 1.0\n"
        "z = jnp.zeros(3)\nfor i in range(3):\n    z = helper(z)\n    z[i] = 0.0\n"
    )
    assert found(src, "JAX501") == []


# --- JAX502 -----------------------------------------------------------------------------------


def test_key_reuse_message():
    src = "import jax\nkey = jax.random.key(0)\na = jax.random.normal(key, (3,))\nb = jax.random.split(key)\n"
    assert found(src, "JAX502") == [
        (
            "JAX502",
            4,
            5,
            "`jax.random.split` reuses the PRNG key `key`, already consumed by `jax.random.normal` at line 3: each key "
            "may be consumed only once (by one draw or one split). JAX's key-reuse checker (`jax_debug_key_reuse`) "
            "raises `KeyReuseError` here (a previously-consumed key). Split it first "
            "(`k1, k2 = jax.random.split(key)`) and give each use its own key",
        ),
    ]


BROADCAST = (
    "import jax, jax.numpy as jnp\n"
    "def trajectory(key, x0):\n    return x0 + jnp.cumsum(jax.random.normal(key, (10,)))\n"
    "def simulate(key, starts):\n    return jax.vmap(trajectory, in_axes=(None, 0))(key, starts)\n"
)


def test_a_vmap_that_gives_one_key_to_every_example():
    assert found(BROADCAST, "JAX502") == [
        (
            "JAX502",
            5,
            12,
            "`jax.vmap` gives the PRNG key parameter `key` of `trajectory` whole to every example (its `in_axes` "
            "entry is None), and `trajectory` consumes it: whatever key a call gives, every example draws the same random numbers. "
            "JAX's key-reuse checker (`jax_debug_key_reuse`) does not catch it: it sees one consumption. Map over "
            "one key per example: `jax.random.split(key, n)` with `in_axes` 0 for `key`",
        )
    ]
    # the vmap's function is a parameter of the def applying it: the call says which, and reports
    factory = BROADCAST.replace(
        "def simulate(key, starts):\n    return jax.vmap(trajectory, in_axes=(None, 0))(key, starts)\n",
        "def batched(f):\n    return jax.vmap(f, in_axes=(None, 0))\n"
        "def simulate(key, starts):\n    return batched(trajectory)(key, starts)\n",
    )
    assert found(factory, "JAX502") == [
        (
            "JAX502",
            7,
            12,
            "`jax.vmap` gives the PRNG key `key` whole to every example (its `in_axes` entry is None), and "
            "`trajectory` consumes it: every example draws the same random numbers. JAX's key-reuse checker "
            "(`jax_debug_key_reuse`) does not catch it: it sees one consumption. Map over one key per example: "
            "`jax.random.split(key, n)` with `in_axes` 0 for it",
        )
    ]
    # one key per example; a key the function does not consume on every path; a later draw reuses it
    split = BROADCAST.replace("in_axes=(None, 0))(key,", "in_axes=(0, 0))(jax.random.split(key, starts.shape[0]),")
    assert found(split, "JAX502") == []
    maybe = BROADCAST.replace("    return x0 + jnp", "    if x0 is None:\n        return x0\n    return x0 + jnp")
    assert found(maybe, "JAX502") == []
    # a lambda that consumes it, directly or through a def that does; one that does not
    lam = (
        "import jax\ndef noise(key):\n    return jax.random.normal(key, (10,))\n"
        "def run(key, xs):\n    a = jax.vmap(lambda k, x: x + noise(k), in_axes=(None, 0))(key, xs)\n"
        "    return a, jax.vmap(lambda k, x: x * 2, in_axes=(None, 0))(key, xs)\n"
    )
    ((code, line, _, message),) = found(lam, "JAX502")
    assert (code, line) == ("JAX502", 5) and "parameter `k` of the lambda whole to every example" in message
    later = (
        BROADCAST
        + "    # then\n"
        + "def again(key, starts):\n    jax.vmap(trajectory, in_axes=(None, 0))(key, starts)\n    return jax.random.normal(key)\n"
    )
    assert [(c, line) for c, line, _, _ in found(later, "JAX502")] == [("JAX502", 5), ("JAX502", 8), ("JAX502", 9)]


def test_reuse_on_one_line_and_a_key_named_subkey():
    src = "import jax\nsubkey = jax.random.key(0)\nfor i in range(2):\n    x = jax.random.normal(subkey) + jax.random.uniform(subkey)\n"
    got = [m for _, _, _, m in found(src, "JAX502")]
    assert got == [
        "`jax.random.normal` consumes the PRNG key `subkey` in every iteration of the loop at line 3, never split "
        "again: every iteration draws the same random numbers. JAX's key-reuse checker (`jax_debug_key_reuse`) "
        "raises `KeyReuseError` here (a previously-consumed key). Split it in the loop "
        "(`subkey, k = jax.random.split(subkey)`, then use `k`) or use `jax.random.fold_in(subkey, i)`",
        "`jax.random.uniform` reuses the PRNG key `subkey`, already consumed by `jax.random.normal` earlier on the "
        "same line: the two draws are not independent (same key, same random bits). JAX's key-reuse checker "
        "(`jax_debug_key_reuse`) raises `KeyReuseError` here (a previously-consumed key). Split it first "
        "(`k1, k2 = jax.random.split(subkey)`) and give each draw its own key",
    ]


def test_key_consumed_in_a_loop():
    src = "from jax import random\n\ndef f(key, n):\n    for i in range(n):\n        x = random.normal(key)\n    return x\n"
    assert found(src, "JAX502") == [
        (
            "JAX502",
            5,
            13,
            "`jax.random.normal` consumes the PRNG key `key` in every iteration of the loop at line 4, never split "
            "again: every iteration draws the same random numbers. With a typed key, JAX's key-reuse checker "
            "(`jax_debug_key_reuse`) raises `KeyReuseError` here. Split it in the loop "
            "(`key, subkey = jax.random.split(key)`, then use `subkey`) or use `jax.random.fold_in(key, i)`",
        ),
    ]


def test_key_split_in_a_loop_then_consumed_names_the_consuming_call():
    src = (
        "from jax import random\n\ndef f(key, n):\n    for i in range(n):\n        key, sub = random.split(key)\n"
        "        x = random.normal(sub) * random.uniform(key)\n    return x\n"
    )
    assert found(src, "JAX502") == [
        (
            "JAX502",
            5,
            20,
            "`jax.random.split` consumes the PRNG key `key`, which was consumed by `jax.random.uniform` at line 6 in "
            "the previous iteration of the loop at line 4: each key may be consumed only once (by one draw or one "
            "split). "
            "With a typed key, JAX's key-reuse checker (`jax_debug_key_reuse`) raises `KeyReuseError` here. "
            "Give `jax.random.uniform` a fresh key (`key, subkey = jax.random.split(key)`, then use `subkey`)",
        ),
    ]


def test_key_split_in_a_loop_then_consumed_reads_as_a_headline_and_a_note():
    src = (
        "from jax import random\n\ndef f(key, n):\n    for i in range(n):\n        key, sub = random.split(key)\n"
        "        x = random.normal(sub) * random.uniform(key)\n    return x\n"
    )
    [d] = testing.lint(src, "JAX502")
    assert (d.message, d.note.split(":")[0]) == (
        "`jax.random.split` consumes the PRNG key `key`",
        "It was consumed by `jax.random.uniform` at line 6 in the previous iteration of the loop at line 4",
    )


def test_helper_called_twice_with_one_key():
    src = (
        "import jax\n\ndef noise(key, shape):\n    return jax.random.normal(key, shape)\n\n"
        "def f(key):\n    a = noise(key, (2,))\n    b = noise(key, (3,))\n    return a, b\n"
    )
    assert [(c, line) for c, line, _, _ in found(src, "JAX502")] == [("JAX502", 8)]
    assert "`noise` reuses the PRNG key `key`, already consumed by `noise` at line 7" in found(src, "JAX502")[0][3]


def test_a_helper_taking_its_key_by_keyword_only():
    src = (
        "import jax\n\ndef noisy(x, *, key):\n    return x + jax.random.normal(key, x.shape)\n\n"
        "def f(x, key):\n    h = noisy(x, key=key)\n    return noisy(h, key=key), noisy(h, key=jax.random.key(1))\n"
    )
    assert [(c, line) for c, line, _, _ in found(src, "JAX502")] == [("JAX502", 8)]


def test_branches_rebinding_and_fold_in_are_not_reuse():
    src = (
        "import jax\n\ndef f(key, c):\n"
        "    if c:\n        a = jax.random.normal(key)\n    else:\n        a = jax.random.uniform(key)\n"
        "    key = jax.random.key(1)\n    b = jax.random.normal(key)\n"
        "    c = [jax.random.normal(jax.random.fold_in(key, i)) for i in range(3)]\n"
        "    return a, b, c\n"
    )
    assert found(src, "JAX502") == []


def test_reuse_after_a_branch_that_consumed_on_one_path_only_is_silent():
    src = "import jax\n\ndef f(key, c):\n    if c:\n        a = jax.random.normal(key)\n    return jax.random.normal(key)\n"
    assert found(src, "JAX502") == []


def test_numpy_random_is_not_a_key():
    src = "import numpy as np\nrng = np.random.default_rng(0)\nfrom numpy import random\na = random.normal(rng)\nb = random.normal(rng)\n"
    assert found(src, "JAX502") == []


def test_a_raw_key_is_not_checked_by_jax_and_the_message_says_so():
    src = "import jax\nkey = jax.random.PRNGKey(0)\na = jax.random.normal(key, (3,))\nb = jax.random.uniform(key)\n"
    assert found(src, "JAX502") == [
        (
            "JAX502",
            4,
            5,
            "`jax.random.uniform` reuses the PRNG key `key`, already consumed by `jax.random.normal` at line 3: the two "
            "draws are not independent (same key, same random bits). JAX's key-reuse checker (`jax_debug_key_reuse`) "
            "does not catch it: it checks typed keys (`jax.random.key`), not raw `PRNGKey` arrays. Split it first "
            "(`k1, k2 = jax.random.split(key)`) and give each draw its own key",
        ),
    ]


def test_a_key_split_twice_gives_the_same_keys():
    src = "import jax\n\ndef f(key):\n    a = jax.random.split(key)\n    return a, jax.random.split(key, 3)\n"
    assert found(src, "JAX502") == [
        (
            "JAX502",
            5,
            15,
            "`jax.random.split` splits the PRNG key `key` again, already split by `jax.random.split` at line 4: both "
            "splits begin with the same keys. With a typed key, JAX's key-reuse checker (`jax_debug_key_reuse`) raises "
            "`KeyReuseError` here. Split it once into every key you need (`jax.random.split(key, n)`)",
        ),
    ]


def test_a_split_in_every_iteration_gets_the_same_keys():
    src = "import jax\nkey = jax.random.key(0)\nfor i in range(3):\n    ks = jax.random.split(key, 4)\n"
    (msg,) = [m for _, _, _, m in found(src, "JAX502")]
    assert msg.startswith(
        "`jax.random.split` consumes the PRNG key `key` in every iteration of the loop at line 3, never split again"
    )
    assert msg.note.startswith("Every iteration gets the same keys. JAX's key-reuse checker")


ALIGNED = """import jax
import jax.numpy as jnp


def shuffle_pairs(key, x, y):
    return jax.random.permutation(key, x), jax.random.permutation(key, y)


def sample_pairs(key, xs, ys, n):
    a = jax.random.choice(key, xs, (n,), replace=False)
    b = jax.random.choice(key, ys, shape=(n,), replace=False)
    return a, b


def shuffle_indices(key, n):
    return jax.random.permutation(key, n), jax.random.permutation(key, n)


def noise_pairs(key, x, y):
    return jax.random.normal(key, x.shape), jax.random.normal(key, x.shape)


def other_sizes(key, xs, ys, n):
    return jax.random.choice(key, xs, (n,)), jax.random.choice(key, ys, (n + 1,))


def other_lengths(key):
    return jax.random.permutation(key, jnp.zeros((5, 2))), jax.random.permutation(key, jnp.zeros(6))


def shuffle_then_pick(key, x, y):
    return jax.random.permutation(key, x), jax.random.choice(key, y, (3,))


def other_axis(key, x, y):
    return jax.random.permutation(key, x, axis=1), jax.random.permutation(key, y)


def every_epoch(key, x, y, epochs):
    for _ in range(epochs):
        xs, ys = jax.random.permutation(key, x), jax.random.permutation(key, y)
    return xs, ys
"""


def test_the_aligned_sampling_idiom_is_silent_and_its_look_alikes_are_reported():
    got = [(line, m.split(",")[0]) for _, line, _, m in found(ALIGNED, "JAX502")]
    assert got == [
        (20, "`jax.random.normal` reuses the PRNG key `key`"),
        (24, "`jax.random.choice` reuses the PRNG key `key`"),
        (28, "`jax.random.permutation` reuses the PRNG key `key`"),
        (32, "`jax.random.choice` reuses the PRNG key `key`"),
        (36, "`jax.random.permutation` reuses the PRNG key `key`"),
        (
            41,
            "`jax.random.permutation` consumes the PRNG key `key` in every iteration of the loop at line 40",
        ),
    ]


@pytest.mark.jax
@needs_jax
def test_the_aligned_sampling_idiom_keeps_pairs_together_at_run_time():
    import jax
    import jax.numpy as jnp

    space: dict = {}
    exec(compile(ALIGNED, "aligned.py", "exec"), space)
    key, x = jax.random.key(0), jnp.arange(8.0)
    xs, ys = space["shuffle_pairs"](key, x, 10 * x)
    a, b = space["sample_pairs"](key, x, 10 * x, 3)
    assert bool(jnp.all(10 * xs == ys)) and bool(jnp.all(10 * a == b))
    assert bool(jnp.all(space["noise_pairs"](key, x, x)[0] == space["noise_pairs"](key, x, x)[1]))  # the bug


def test_a_reuse_where_the_code_expects_the_error_is_silent():
    src = (
        "import jax\nfrom jax.errors import KeyReuseError\nimport pytest\n\ndef test_reuse():\n"
        "    def f():\n        key = jax.random.key(0)\n        return jax.random.uniform(key) + jax.random.uniform(key)\n\n"
        "    with pytest.raises(KeyReuseError):\n        jax.jit(f)()\n"
    )
    assert found(src, "JAX502") == []
    assert [
        line for _, line, _, _ in found(src.replace("with pytest.raises(KeyReuseError):\n        ", ""), "JAX502")
    ] == [8]


# --- JAX503 -----------------------------------------------------------------------------------


def test_traced_if_message():
    src = "import jax\n\n@jax.jit\ndef f(x, n):\n    if n > 0:\n        return x\n    return -x\n"
    assert found(src, "JAX503") == [
        (
            "JAX503",
            5,
            8,
            "an `if` test needs a Python bool, but `n > 0` depends on the traced argument `n` (traced by jax.jit at "
            "line 3): raises `TracerBoolConversionError`; use `jnp.where(...)` or `lax.cond(...)`, or mark `n` static "
            "(`static_argnames='n'`) if it selects the program's structure",
        ),
    ]


def test_traced_or_default_and_vmap_in_axes():
    src = (
        "import jax\nimport jax.numpy as jnp\n\ndef f(x, lo, flag):\n"
        "    y = jnp.abs(x) or lo\n    if flag:\n        return y\n    return x\n\n"
        "g = jax.vmap(f, in_axes=(0, 0, None))\n"
    )
    assert found(src, "JAX503") == [
        (
            "JAX503",
            5,
            9,
            "the left side of `or` needs a Python bool, but `jnp.abs(x)` depends on the traced argument `x` (traced by "
            "jax.vmap at line 10): raises `TracerBoolConversionError`; test `is None` explicitly or use `jnp.where`",
        ),
    ]


def test_static_arguments_shapes_and_grad_only_are_silent():
    src = (
        "import jax\nfrom functools import partial\n\n"
        "@partial(jax.jit, static_argnums=(1,))\ndef f(x, n):\n"
        "    if n > 1 and x.shape[0] > 1 and x is not None:\n        return x * n\n    return x\n\n"
        "def h(x):\n    return x if x > 0 else -x\n\ndh = jax.grad(h)\n"
    )
    assert found(src, "JAX503") == []


def test_int_in_a_scan_body():
    src = "from jax import lax\n\ndef body(c, x):\n    return c + int(x), None\n\nout = lax.scan(body, 0, xs)\n"
    assert found(src, "JAX503") == [
        (
            "JAX503",
            4,
            16,
            "`int()` needs a concrete value, but `x` is the traced argument `x` (traced by lax.scan at line 6): raises "
            "`ConcretizationTypeError`. Keep it an array (`x.astype(...)`, `jnp` operations)",
        ),
    ]


def test_unknown_transform_options_are_silent():
    src = "import jax\n\ndef f(x, n):\n    return x if n > 0 else -x\n\ng = jax.jit(f, static_argnums=STATIC)\n"
    assert found(src, "JAX503") == []


def test_pytree_preserving_lax_functions_do_not_make_arrays():
    src = (
        "import jax\n\n@jax.jit\ndef f(x):\n"
        "    x = jax.lax.with_sharding_constraint(x, None)\n    x[0]['a'] *= 2\n    return x\n"
    )
    assert found(src, "JAX501") == []


def test_jaxtyping_annotations_and_operators_make_jax_arrays():
    src = (
        "from jaxtyping import Array, Float\nimport jax.numpy as jnp\nimport numpy as np\n\n"
        "def f(a: Float[Array, 'n'], b: Float[np.ndarray, 'n'], scale):\n"
        "    a[0] = 1.0\n    b[0] = 1.0\n    c = jnp.ones(3) * scale\n    c[1] = 0.0\n    return a, b, c\n"
    )
    assert [(c, line) for c, line, _, _ in found(src, "JAX501")] == [("JAX501", 6), ("JAX501", 9)]


def test_unpacked_scan_carry_used_as_array():
    src = (
        "from jax import lax\n\ndef body(carry, x):\n    total, path = carry\n"
        "    path[0] = x\n    n = path.shape[0]\n    return (total, path), None\n\n"
        "out = lax.scan(body, (0.0, xs), xs)\n"
    )
    assert [(c, line) for c, line, _, _ in found(src, "JAX501")] == [("JAX501", 5)]


def test_bare_traced_flag_and_container_arguments():
    src = (
        "import jax\n\n@jax.jit\ndef f(x, neg, cfg, items):\n"
        "    y = -x if neg else x\n    if cfg:\n        y = y * cfg.scale\n"
        "    if items:\n        y = y + len(items)\n    return y\n"
    )
    assert [(c, line, col) for c, line, col, _ in found(src, "JAX503")] == [("JAX503", 5, 15)]


def test_a_call_expected_to_raise_consumes_no_key():
    src = (
        "import jax\nimport pytest\n\ndef test(key):\n"
        "    with pytest.raises(NotImplementedError):\n        jax.random.poisson(key, 3.0)\n"
        "    return jax.random.poisson(key, 3.0)\n"
    )
    assert found(src, "JAX502") == []


def test_static_argnums_of_a_method_count_self():
    src = (
        "import jax\nfrom functools import partial\n\nclass M:\n"
        "    @partial(jax.jit, static_argnums=(1,))\n    def f(self, n, x):\n"
        "        if n > 0:\n            return x\n        if x > 0:\n            return -x\n        return x\n"
    )
    assert [(c, line) for c, line, _, _ in found(src, "JAX503")] == [("JAX503", 9)]


def test_lambdas_with_their_own_key_parameter_are_not_reuse():
    src = (
        "from jax import random\n\ndef f(a):\n"
        "    g = lambda key, a: random.gamma(key, a)\n    h = lambda key, a: random.loggamma(key, a)\n"
        "    return g(random.key(0), a), h(random.key(1), a)\n"
    )
    assert found(src, "JAX502") == []


INSTANCE_LOOP = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX502", "lint", "instance_loop_{}")


def test_a_method_drawing_from_its_objects_key_called_through_an_instance_in_a_loop():
    # train.py: `es = Perturber(4)`, then `es.ask(mean)` in each generation; `ask` draws
    # from `self.key` and stores none, nor does `tell` (in the look-alike, `tell` splits it)
    found = testing.lint_folder(INSTANCE_LOOP.format("bad"), testing.settings_for("JAX502")).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.code, d.message) for d in found] == [
        (
            "train.py",
            13,
            "JAX502",
            "`es.ask` consumes the PRNG key `es.key` in every iteration of the loop at line 12, never split again",
        )
    ]
    assert testing.lint_folder(INSTANCE_LOOP.format("ok"), testing.settings_for("JAX502")).diagnostics == []


@pytest.mark.jax
@needs_jax
def test_the_instance_loop_fixture_fails_under_jax_as_linted():
    from conftest import raised_by_project

    e = raised_by_project(INSTANCE_LOOP.format("bad"), "train.py", ("sampler",))
    assert type(e) is AssertionError and "same perturbations" in str(e), e
    assert raised_by_project(INSTANCE_LOOP.format("ok"), "train.py", ("sampler",)) is None


SCHEDULE_OBJECT = os.path.join(
    os.path.dirname(__file__), "..", "..", "fixtures", "JAX503", "lint", "schedule_object_{}"
)


def test_a_method_of_another_modules_class_called_with_a_tracer():
    # trainer.py jits `self.train_step`, which calls `self.schedule(step)`: the schedule
    # object's `__call__` in schedules.py runs with a traced `step`
    found = testing.lint_folder(SCHEDULE_OBJECT.format("bad"), testing.settings_for("JAX503")).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.code, d.message) for d in found] == [
        ("schedules.py", 15, "JAX503", "an `if` test needs a Python bool")
    ]
    assert "(traced by jax.jit at trainer.py:11)" in found[0].note
    assert testing.lint_folder(SCHEDULE_OBJECT.format("ok"), testing.settings_for("JAX503")).diagnostics == []


def test_every_branch_of_lax_switch_is_traced():
    path = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX503", "lint", "switch_branches.py")
    with open(path, encoding="utf-8") as f:
        found = testing.lint(f.read(), "JAX503")
    assert [(d.start.line, d.message) for d in found] == [
        (14, "an `if` test needs a Python bool"),
        (40, "a conditional expression needs a Python bool"),
    ]


@pytest.mark.jax
@needs_jax
def test_the_schedule_and_switch_fixtures_fail_under_jax_as_linted():
    import jax
    from conftest import raised_by, raised_by_project

    e = raised_by_project(SCHEDULE_OBJECT.format("bad"), "trainer.py", ("schedules",))
    assert type(e) is jax.errors.TracerBoolConversionError, e
    assert raised_by_project(SCHEDULE_OBJECT.format("ok"), "trainer.py", ("schedules",)) is None
    for call in ("run(jnp.array([0, 1]), jnp.array([0.0, 0.5]), 4)", "choose(1, jnp.array(2.0))"):
        e = raised_by("JAX503/lint/switch_branches.py", call)
        # (switch traces every branch, whichever the index picks)
        assert type(e) is jax.errors.TracerBoolConversionError, (call, e)


def test_filter_jit_traces_the_array_leaves_of_its_arguments_only():
    path = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX503", "lint", "equinox_filter_jit.py")
    with open(path, encoding="utf-8") as f:
        found = testing.lint(f.read(), "JAX503")
    assert [(d.start.line, d.message, d.note) for d in found] == [
        (
            22,
            "an `if` test needs a Python bool",
            "But `step < sched.steps` depends on the traced argument `step` (traced by eqx.filter_jit at line 18): "
            "raises `TracerBoolConversionError`; use `jnp.where(...)` or `lax.cond(...)`.",
        ),
        (
            43,
            "an `if` test needs a Python bool",
            "But `limit > 0` depends on the traced argument `limit` (traced by eqx.filter_jit at line 41): "
            "raises `TracerBoolConversionError`; use `jnp.where(...)` or `lax.cond(...)`.",
        ),
    ]


@pytest.mark.jax
@needs_jax
def test_the_filter_jit_fixture_fails_under_equinox_as_linted():
    pytest.importorskip("equinox")
    import jax
    from conftest import raised_by

    for call in ("run_bad()", "run_clip_bad()"):
        e = raised_by("JAX503/lint/equinox_filter_jit.py", call)
        assert type(e) is jax.errors.TracerBoolConversionError, (call, e)
    for call in ("run_ok()", "run_clip_ok()", "run_scale_ok()"):
        assert raised_by("JAX503/lint/equinox_filter_jit.py", call) is None, call


def test_a_key_a_lax_loop_body_gives_back_in_its_carry():
    path = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX502", "lint", "loop_carry.py")
    with open(path, encoding="utf-8") as f:
        found = testing.lint(f.read(), "JAX502")
    assert [(d.start.line, d.message) for d in found] == [
        (16, "`jax.random.normal` consumes the PRNG key `key` in every iteration of `lax.scan` at line 21"),
        (25, "`jax.random.split` consumes the PRNG key `w.key` in every iteration of `lax.scan` at line 30"),
        (38, "`move` consumes the PRNG key `w.key` in every iteration of `lax.scan` at line 43"),
        (49, "`move` consumes the PRNG key `w.key` in every iteration of the loop at line 48, never split again"),
        (59, "`move_noted` consumes the PRNG key `w.key` in every iteration of `lax.scan` at line 64"),
        # the carry after what `partial` binds; a key `partial` binds, consumed every iteration
        (70, "`move` consumes the PRNG key `w.key` in every iteration of `lax.scan` at line 75"),
        (79, "`jax.random.normal` consumes the PRNG key `key` in every iteration of `lax.fori_loop` at line 83"),
        # a project helper called on the carry after it cannot give back the first key
        (93, "`move` consumes the PRNG key `w.key` in every iteration of `lax.scan` at line 98"),
    ]
    assert found[0].note.startswith("The body returns it in the carry as it was, so every iteration draws the same")
    assert found[1].note.startswith("The carry comes back with the same `key`, so every iteration gets the same keys")


@pytest.mark.jax
@needs_jax
def test_the_loop_carry_fixture_fails_under_jaxs_key_reuse_checker():
    import jax
    from conftest import raised_by

    with jax.debug_key_reuse(True):
        bad_walks = ("walk", "walk_record", "walk_helper", "walk_python", "walk_noted", "walk_scaled", "shake")
        for bad in (*bad_walks, "walk_measured"):
            e = raised_by("JAX502/lint/loop_carry.py", f"{bad}(jax.random.key(0))")
            assert type(e).__name__ == "KeyReuseError", (bad, e)
        assert raised_by("JAX502/lint/loop_carry.py", "run_ok(jax.random.key(0))") is None


KERNEL_CHAIN = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX502", "lint", "kernel_chain_{}")


def test_a_kernel_the_importer_gives_hands_back_its_consumed_key_in_the_scan_carry():
    # `sample_chain(kernel, state, n)` scans `state = kernel(state)`; main.py gives it a
    # kernel that draws from `state.key` and returns `state._replace(position=...)`
    found = testing.lint_folder(KERNEL_CHAIN.format("bad"), testing.settings_for("JAX502")).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.code, d.message) for d in found] == [
        (
            "sampler.py",
            24,
            "JAX502",
            "`kernel` consumes the PRNG key `state.key` in every iteration of `lax.scan` at line 27",
        )
    ]
    assert testing.lint_folder(KERNEL_CHAIN.format("ok"), testing.settings_for("JAX502")).diagnostics == []


@pytest.mark.jax
@needs_jax
def test_the_kernel_chain_fixture_fails_under_jax_as_linted():
    from conftest import raised_by_project

    e = raised_by_project(KERNEL_CHAIN.format("bad"), "main.py", ("sampler",))
    assert type(e) is AssertionError and "same noise" in str(e), e
    assert raised_by_project(KERNEL_CHAIN.format("ok"), "main.py", ("sampler",)) is None


def test_an_object_nothing_else_can_reach_keeps_its_consumed_key():
    path = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX502", "lint", "unescaped_objects.py")
    with open(path, encoding="utf-8") as f:
        found = testing.lint(f.read(), "JAX502")
    assert [(d.start.line, d.message) for d in found] == [
        (
            35,
            "`agent.act` consumes the PRNG key `agent.key` in every iteration of the loop at line 34, never split again",
        )
    ]


@pytest.mark.jax
@needs_jax
def test_the_unescaped_objects_fixture_fails_under_jaxs_key_reuse_checker():
    import jax
    from conftest import raised_by

    with jax.debug_key_reuse(True):
        e = raised_by("JAX502/lint/unescaped_objects.py", "run_bad(jax.random.key(0))")
        assert type(e).__name__ == "KeyReuseError", e
        assert raised_by("JAX502/lint/unescaped_objects.py", "run_ok(jax.random.key(0))") is None


def test_appending_to_lists_bound_together_keeps_the_objects_key():
    path = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX502", "lint", "record_series.py")
    with open(path, encoding="utf-8") as f:
        found = testing.lint(f.read(), "JAX502")
    assert [(d.start.line, d.message) for d in found] == [
        (
            22,
            "`self.anomaly` consumes the PRNG key `self.key` in every iteration of the loop at line 20, never split again",
        )
    ]


@pytest.mark.jax
@needs_jax
def test_the_record_series_fixture_fails_under_jax_as_linted():
    from conftest import raised_by

    e = raised_by("JAX502/lint/record_series.py", "run_bad()")
    assert type(e) is AssertionError and "same anomaly" in str(e), e
    assert raised_by("JAX502/lint/record_series.py", "run_ok()") is None


REGISTRY_ITEM = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX501", "lint", "registry_item_{}")


def test_a_def_an_importer_calls_through_a_registry_is_judged_with_that_call():
    # solver.py's jitted step calls `BOUNDARIES[bc](u)`: `mirror` gets the traced array
    found = testing.lint_folder(REGISTRY_ITEM.format("bad"), testing.settings_for("JAX501")).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.message) for d in found] == [
        ("boundary.py", 7, "`u[0]` assigns in place into `u`, a JAX array (as called at line 10 of solver.py)")
    ]
    assert testing.lint_folder(REGISTRY_ITEM.format("ok"), testing.settings_for("JAX501")).diagnostics == []


@pytest.mark.jax
@needs_jax
def test_the_registry_item_fixture_fails_under_jax_as_linted():
    from conftest import raised_by_project

    e = raised_by_project(REGISTRY_ITEM.format("bad"), "main.py", ("boundary", "solver"))
    assert type(e) is TypeError and "immutable" in str(e), e
    assert raised_by_project(REGISTRY_ITEM.format("ok"), "main.py", ("boundary", "solver")) is None


def test_an_annotated_array_a_transform_of_another_module_traces_is_reported_once(tmp_path):
    # `T: jax.Array` makes `T[0] = ...` a finding in the file itself; the jitted caller in
    # solver.py would also make it one in the project phase: one finding, not two
    (tmp_path / "boundary.py").write_text(
        "import jax\n\n\ndef apply(T: jax.Array, v):\n    T[0] = v\n    return T\n", encoding="utf-8"
    )
    (tmp_path / "solver.py").write_text(
        "import jax\n\nfrom boundary import apply\n\n\n@jax.jit\ndef step(T):\n    return apply(T, 1.0)\n",
        encoding="utf-8",
    )
    found = testing.lint_folder(str(tmp_path), testing.settings_for("JAX501")).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.message) for d in found] == [
        ("boundary.py", 5, "`T[0]` assigns in place into `T`, a JAX array (annotated `jax.Array`)")
    ]


PARAM_INSTANCE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX502", "lint", "param_instance_{}")


def test_methods_of_an_instance_a_parameter_holds_as_the_importer_passes_it():
    # `run(market, n)` calls `market.returns()` then `market.defaults()`; main.py passes a
    # `Market`, whose two methods draw from `self.key` and store no new one
    found = testing.lint_folder(PARAM_INSTANCE.format("bad"), testing.settings_for("JAX502")).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.code, d.message) for d in found] == [
        (
            "backtest.py",
            12,
            "JAX502",
            "`market.defaults` reuses the PRNG key `market.key`, already consumed by `market.returns` at line 10",
        )
    ]
    assert testing.lint_folder(PARAM_INSTANCE.format("ok"), testing.settings_for("JAX502")).diagnostics == []


@pytest.mark.jax
@needs_jax
def test_the_param_instance_fixture_fails_under_jaxs_key_reuse_checker():
    from conftest import raised_by_project

    e = raised_by_project(PARAM_INSTANCE.format("bad"), "main.py", ("market", "backtest"))
    assert type(e).__name__ == "KeyReuseError", e
    assert raised_by_project(PARAM_INSTANCE.format("ok"), "main.py", ("market", "backtest")) is None


IMPORTER_KEYWORD = os.path.join(
    os.path.dirname(__file__), "..", "..", "fixtures", "JAX503", "lint", "importer_keyword_{}"
)


def test_a_default_an_importers_call_of_the_jitted_name_passes_is_traced():
    # `relax_jit = jax.jit(relax, static_argnames=("boundary",))`; main.py passes `sweeps=25`
    found = testing.lint_folder(IMPORTER_KEYWORD.format("bad"), testing.settings_for("JAX503")).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.code, d.message) for d in found] == [
        (
            "relax.py",
            8,
            "JAX503",
            "`range()` needs concrete int bounds, but `sweeps` is the traced argument `sweeps` (traced by jax.jit at"
            " line 17)",
        )
    ]
    assert testing.lint_folder(IMPORTER_KEYWORD.format("ok"), testing.settings_for("JAX503")).diagnostics == []


@pytest.mark.jax
@needs_jax
def test_the_importer_keyword_fixture_fails_under_jax_as_linted():
    import jax
    from conftest import raised_by_project

    e = raised_by_project(IMPORTER_KEYWORD.format("bad"), "main.py", ("relax",))
    assert type(e) is jax.errors.TracerIntegerConversionError and "argument sweeps" in str(e), e
    assert raised_by_project(IMPORTER_KEYWORD.format("ok"), "main.py", ("relax",)) is None


def test_a_mapped_instance_traces_its_call_method_and_what_it_calls():
    path = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX503", "lint", "mapped_instance.py")
    with open(path, encoding="utf-8") as f:
        found = testing.lint(f.read(), "JAX503")
    assert [(d.start.line, d.message, d.note) for d in found] == [
        (
            13,
            "an `if` test needs a Python bool",
            "But `temp_c > self.hot_c` depends on the traced argument `temp_c` (traced by jax.vmap at line 22): raises"
            " `TracerBoolConversionError`; use `jnp.where(...)` or `lax.cond(...)`.",
        )
    ]


@pytest.mark.jax
@needs_jax
def test_the_mapped_instance_fixture_fails_under_jax_as_linted():
    import jax
    from conftest import raised_by

    assert type(raised_by("JAX503/lint/mapped_instance.py", "run_bad()")) is jax.errors.TracerBoolConversionError
    assert raised_by("JAX503/lint/mapped_instance.py", "run_ok()") is None


def test_a_lax_loop_consumes_the_key_its_body_consumes_from_the_initial_carry():
    path = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX502", "lint", "loop_init.py")
    with open(path, encoding="utf-8") as f:
        found = testing.lint(f.read(), "JAX502")
    assert [(d.start.line, d.message) for d in found] == [
        (15, "`jax.random.normal` reuses the PRNG key `key`, already consumed by `lax.scan` at line 14"),
        (26, "`jax.random.uniform` reuses the PRNG key `key`, already consumed by `lax.fori_loop` at line 25"),
    ]


@pytest.mark.jax
@needs_jax
def test_the_loop_init_fixture_fails_under_jaxs_key_reuse_checker():
    import jax
    from conftest import raised_by

    with jax.debug_key_reuse(True):
        for bad in ("walk_then_jitter", "settle_then_draw"):
            e = raised_by("JAX502/lint/loop_init.py", f"{bad}(jax.random.key(0))")
            assert type(e).__name__ == "KeyReuseError", (bad, e)
        for ok in ("walk_own_key", "fold_then_draw"):
            assert raised_by("JAX502/lint/loop_init.py", f"{ok}(jax.random.key(0))") is None, ok


FOREIGN_BODY = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX502", "lint", "foreign_body_{}")


def test_a_loop_body_of_another_module_that_hands_back_its_consumed_carry_key():
    # `lax.scan(partial(predict, noise_scale=0.1), start, ...)` with `predict` of physics.py
    # drawing from `state.key` and returning `state._replace(x=...)`
    found = testing.lint_folder(FOREIGN_BODY.format("bad"), testing.settings_for("JAX502")).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.code, d.message) for d in found] == [
        (
            "main.py",
            12,
            "JAX502",
            "`predict` consumes the PRNG key `state.key` in every iteration of `lax.scan` at line 12",
        )
    ]
    assert testing.lint_folder(FOREIGN_BODY.format("ok"), testing.settings_for("JAX502")).diagnostics == []


@pytest.mark.jax
@needs_jax
def test_the_foreign_body_fixture_fails_under_jaxs_key_reuse_checker():
    from conftest import raised_by_project

    e = raised_by_project(FOREIGN_BODY.format("bad"), "main.py", ("physics",))
    assert type(e).__name__ == "KeyReuseError", e
    assert raised_by_project(FOREIGN_BODY.format("ok"), "main.py", ("physics",)) is None


UNMAPPED = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX503", "lint", "unmapped_traced.py")


def test_an_unmapped_argument_of_a_vmap_in_a_jitted_function_is_the_jits_tracer():
    with open(UNMAPPED, encoding="utf-8") as f:
        found = testing.lint(f.read(), "JAX503")
    assert [(d.start.line, d.message, d.note) for d in found] == [
        (
            11,
            "an `if` test needs a Python bool, but `step < 100` depends on the traced argument `step` (traced by"
            " jax.jit at line 20)",
            "Raises `TracerBoolConversionError`; use `jnp.where(...)` or `lax.cond(...)`.",
        ),
        (
            30,
            "an `if` test needs a Python bool",
            "But `step >= self.steps` depends on the traced argument `step` (traced by eqx.filter_jit at line 38):"
            " raises `TracerBoolConversionError`; use `jnp.where(...)` or `lax.cond(...)`.",
        ),
    ]


@pytest.mark.jax
@needs_jax
def test_the_unmapped_traced_fixture_fails_under_jax_as_linted():
    import jax
    from conftest import raised_by

    for run in ("run_bad_jit()", "run_bad_instance()"):
        assert type(raised_by("JAX503/lint/unmapped_traced.py", run)) is jax.errors.TracerBoolConversionError, run
    assert raised_by("JAX503/lint/unmapped_traced.py", "run_ok()") is None


LOCAL_METHOD = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX503", "lint", "local_method_{}")


@pytest.mark.parametrize("slicing", [True, False])
def test_a_method_called_on_a_parameter_runs_traced_in_its_own_module(monkeypatch, slicing):
    # shot.py never imports controller.py: the slicer keeps `Controller.advance` because a
    # traced function calls `.advance` on a local value
    if not slicing:
        monkeypatch.setenv("JAXLINT_NO_SLICING", "1")
    found = testing.lint_folder(LOCAL_METHOD.format("bad"), testing.settings_for("JAX503")).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.code, d.message) for d in found] == [
        (
            "controller.py",
            15,
            "JAX503",
            "`int()` needs a concrete value",
        )
    ]
    assert testing.lint_folder(LOCAL_METHOD.format("ok"), testing.settings_for("JAX503")).diagnostics == []


@pytest.mark.jax
@needs_jax
def test_the_local_method_fixture_fails_under_jax_as_linted():
    import jax
    from conftest import raised_by_project

    e = raised_by_project(LOCAL_METHOD.format("bad"), "main.py", ("controller", "shot"))
    assert type(e) is jax.errors.ConcretizationTypeError, e
    assert raised_by_project(LOCAL_METHOD.format("ok"), "main.py", ("controller", "shot")) is None


REGISTRY_SWITCH = os.path.join(
    os.path.dirname(__file__), "..", "..", "fixtures", "JAX503", "lint", "registry_switch_{}"
)


def test_a_registered_def_a_switch_of_another_module_runs_as_a_branch_is_traced():
    # `@mode("drain")` stores the def and gives it back; controller.py hands `partial`s of
    # the registry's items to `lax.switch` inside a scan
    found = testing.lint_folder(REGISTRY_SWITCH.format("bad"), testing.settings_for("JAX503")).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.message, d.note) for d in found] == [
        (
            "modes.py",
            23,
            "an `if` test needs a Python bool",
            "But `level > limit` depends on the traced argument `level` (traced by lax.switch at controller.py:13):"
            " raises `TracerBoolConversionError`; use `jnp.where(...)` or `lax.cond(...)`.",
        )
    ]
    assert testing.lint_folder(REGISTRY_SWITCH.format("ok"), testing.settings_for("JAX503")).diagnostics == []


@pytest.mark.jax
@needs_jax
def test_the_registry_switch_fixture_fails_under_jax_as_linted():
    import jax
    from conftest import raised_by_project

    e = raised_by_project(REGISTRY_SWITCH.format("bad"), "main.py", ("modes", "controller"))
    assert type(e) is jax.errors.TracerBoolConversionError, e
    assert raised_by_project(REGISTRY_SWITCH.format("ok"), "main.py", ("modes", "controller")) is None


def test_a_record_carry_handed_back_through_a_helper_keeps_its_consumed_key():
    # `fly` draws from `state.key`; `refuel(state)` returns `state._replace(fat=...)`: the
    # NamedTuple (immutable: the helper cannot store a new key) comes back with the same key
    path = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX502", "lint", "loop_record.py")
    with open(path, encoding="utf-8") as f:
        found = testing.lint(f.read(), "JAX502")
    assert [(d.start.line, d.message) for d in found] == [
        (28, "`fly` consumes the PRNG key `state.key` in every iteration of `lax.scan` at line 31"),
    ]


def test_a_scan_body_returning_a_helpers_carry_and_output_keeps_the_consumed_key():
    # `body` returns `arrive(s)`: `arrive` draws from `state.key` (through `next_gap`) and
    # returns `(moved, gap)` with `moved = state._replace(clock=...)`: the same key
    path = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX502", "lint", "loop_record_callee.py")
    with open(path, encoding="utf-8") as f:
        found = testing.lint(f.read(), "JAX502")
    assert [(d.start.line, d.message) for d in found] == [
        (27, "`arrive` consumes the PRNG key `s.key` in every iteration of `lax.scan` at line 29"),
    ]
    assert "(`arrive`, at line 19, returns the record it drew from)" in found[0].note


@pytest.mark.jax
@needs_jax
def test_the_loop_record_callee_fixture_fails_under_jaxs_key_reuse_checker():
    import jax
    from conftest import raised_by

    with jax.debug_key_reuse(True):
        e = raised_by("JAX502/lint/loop_record_callee.py", "shift_bad(jax.random.key(0), 4)")
        assert type(e).__name__ == "KeyReuseError", e
        assert raised_by("JAX502/lint/loop_record_callee.py", "shift_ok(jax.random.key(0), 4)") is None


@pytest.mark.jax
@needs_jax
def test_the_loop_record_fixture_fails_under_jaxs_key_reuse_checker():
    import jax
    from conftest import raised_by

    with jax.debug_key_reuse(True):
        e = raised_by("JAX502/lint/loop_record.py", "passage_bad(jax.random.key(0), jax.numpy.ones(5))")
        assert type(e).__name__ == "KeyReuseError", e
        assert raised_by("JAX502/lint/loop_record.py", "passage_ok(jax.random.key(0), jax.numpy.ones(5))") is None


FOREIGN_RECORD = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX502", "lint", "foreign_record_{}")


@pytest.mark.parametrize("slicing", [True, False])
def test_a_def_of_another_module_judged_in_the_frame_the_scan_body_gives_it(monkeypatch, slicing):
    # `propagate` (clock.py) has no call in view there: the body's call gives it the carry,
    # a `ClockState` record (main.py), so `state.key` is a field it consumes and hands back
    if not slicing:
        monkeypatch.setenv("JAXLINT_NO_SLICING", "1")
    found = testing.lint_folder(FOREIGN_RECORD.format("bad"), testing.settings_for("JAX502")).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.message) for d in found] == [
        ("sim.py", 8, "`propagate` consumes the PRNG key `state.key` in every iteration of `lax.scan` at line 11"),
    ]
    # the note says where the helper that hands the key back is defined: the fix goes there
    assert "(`propagate`, at clock.py:13, returns the record it drew from)" in found[0].note
    assert testing.lint_folder(FOREIGN_RECORD.format("ok"), testing.settings_for("JAX502")).diagnostics == []


@pytest.mark.jax
@needs_jax
def test_the_foreign_record_fixture_fails_under_jaxs_key_reuse_checker():
    import jax
    from conftest import raised_by_project

    with jax.debug_key_reuse(True):
        e = raised_by_project(FOREIGN_RECORD.format("bad"), "main.py", ("clock", "sim"))
        assert type(e).__name__ == "KeyReuseError", e
        assert raised_by_project(FOREIGN_RECORD.format("ok"), "main.py", ("clock", "sim")) is None


VMAP_FACTORY = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX502", "lint", "vmap_factory_{}")


@pytest.mark.parametrize("slicing", [True, False])
def test_a_vmap_giving_its_functions_key_whole_is_reported_where_it_is_applied(monkeypatch, slicing):
    # the factory (weather.py) vmaps a def that splits its key with in_axes None for it:
    # whatever key main.py gives (here `jax.random.key(2024)`, no name), every station
    # draws the same numbers; the finding is the vmap's, not the call's
    if not slicing:
        monkeypatch.setenv("JAXLINT_NO_SLICING", "1")
    found = testing.lint_folder(VMAP_FACTORY.format("bad"), testing.settings_for("JAX502")).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.start.column, d.message) for d in found] == [
        (
            "weather.py",
            17,
            20,
            "`jax.vmap` gives the PRNG key parameter `key` of `daily_rain` whole to every example (its `in_axes` "
            "entry is None)",
        ),
    ]
    assert testing.lint_folder(VMAP_FACTORY.format("ok"), testing.settings_for("JAX502")).diagnostics == []


@pytest.mark.jax
@needs_jax
def test_the_vmap_factory_fixture_draws_the_same_weather_for_every_station():
    from conftest import raised_by_project

    e = raised_by_project(VMAP_FACTORY.format("bad"), "main.py", ("weather",))
    assert type(e) is AssertionError and "same weather" in str(e), e
    assert raised_by_project(VMAP_FACTORY.format("ok"), "main.py", ("weather",)) is None


OTHER_OPERAND = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX503", "lint", "other_operand_{}")


@pytest.mark.parametrize("slicing", [True, False])
def test_a_test_on_a_value_of_several_parameters_is_traced_by_the_one_the_caller_traces(monkeypatch, slicing):
    # `new = leak * cmd - gain * slopes`: the scan body traces `cmd` and `slopes`, not the
    # Python float `leak`; the test on `new` is traced all the same (and one on `leak` alone
    # is not: the look-alike)
    if not slicing:
        monkeypatch.setenv("JAXLINT_NO_SLICING", "1")
    found = testing.lint_folder(OTHER_OPERAND.format("bad"), testing.settings_for("JAX503")).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.message, d.note) for d in found] == [
        (
            "control.py",
            9,
            "an `if` test needs a Python bool",
            "But `peak > max_stroke` depends on the traced argument `cmd` (traced by lax.scan at sim.py:12):"
            " raises `TracerBoolConversionError`; use `jnp.where(...)` or `lax.cond(...)`.",
        )
    ]
    assert testing.lint_folder(OTHER_OPERAND.format("ok"), testing.settings_for("JAX503")).diagnostics == []


@pytest.mark.jax
@needs_jax
def test_the_other_operand_fixture_fails_under_jax_as_linted():
    import jax
    from conftest import raised_by_project

    e = raised_by_project(OTHER_OPERAND.format("bad"), "main.py", ("control", "sim"))
    assert type(e) is jax.errors.TracerBoolConversionError, e
    assert raised_by_project(OTHER_OPERAND.format("ok"), "main.py", ("control", "sim")) is None
