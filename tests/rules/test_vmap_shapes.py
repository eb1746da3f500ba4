"""JAX104/JAX105 (mapped axes against the shapes the model knows): exact codes, lines, columns, messages."""

from jaxlint import testing

HEAD = "import math\nimport jax\nimport jax.numpy as jnp\n"


def _lint(source, code):
    return [(d.code, d.start.line, d.start.column, d.message) for d in testing.lint(source, code)]


def test_python_scalar_mapped_exact_message():
    src = HEAD + "n = math.prod((2, 3))\nout = jax.vmap(f, in_axes=(0, 0))(jnp.ones((4, 3)), n)\n"
    assert _lint(src, "JAX104") == [
        (
            "JAX104",
            5,
            53,
            "vmap(f) maps argument 1 along axis 0, but `n` is a scalar (rank 0): JAX raises `ValueError: vmap was "
            "requested to map its argument along axis 0, which implies that its rank should be at least 1`. Use "
            "`None` in `in_axes` for a shared argument, or an axis the argument has",
        )
    ]


def test_axis_beyond_rank_and_silence_when_expected():
    src = HEAD + "x = jnp.ones((3, 4))\nout = jax.vmap(f, in_axes=-3)(x)\n"
    assert [d[:3] for d in _lint(src, "JAX104")] == [("JAX104", 5, 31)]
    raises = HEAD + "import pytest\nwith pytest.raises(ValueError):\n    jax.vmap(f)(1.0)\n"
    assert _lint(raises, "JAX104") == []


def test_inconsistent_sizes_exact_message():
    src = HEAD + "x = jnp.zeros((3, 4, 5, 10))\ny = jnp.zeros((3, 5, 6))\nout = jax.vmap(f, in_axes=(3, 0))(x, y)\n"
    assert _lint(src, "JAX105") == [
        (
            "JAX105",
            6,
            38,
            "vmap(f) maps axis 3 of `x` (size 10) and axis 0 of `y` (size 3, shape (3, 5, 6)): JAX raises "
            "`ValueError: vmap got inconsistent sizes for array axes to be mapped`. Map each argument along its "
            "batch axis, or use `None` for a shared one",
        )
    ]


def test_inconsistent_with_axis_size_and_unknown_is_silent():
    src = HEAD + "out = jax.vmap(f, axis_size=2)(jnp.ones((4, 3)))\n"
    assert [d[:3] for d in _lint(src, "JAX105")] == [("JAX105", 4, 32)]
    unknown = HEAD + "def g(xs):\n    return jax.vmap(f)(xs, jnp.ones(3))\n"
    assert _lint(unknown, "JAX105") == []


def test_outer_vmap_slices_what_it_maps_exact_message():
    src = (
        HEAD
        + "xs = jnp.arange(4)\nys = jnp.arange(5)\njax.vmap(jax.vmap(f, in_axes=(0, 0)), in_axes=(None, 0))(xs, ys)\n"
    )
    assert _lint(src, "JAX104") == [
        (
            "JAX104",
            6,
            62,
            "vmap(f) maps argument 1 along axis 0, but `ys` (as sliced along axis 0 by the outer `vmap`) is a scalar "
            "(rank 0): JAX raises `ValueError: vmap was requested to map its argument along axis 0, which implies that "
            "its rank should be at least 1`. Use `None` in `in_axes` for a shared argument, or an axis the argument has",
        )
    ]
    fine = (
        HEAD
        + "xs = jnp.arange(4)\nys = jnp.ones((5, 4))\njax.vmap(jax.vmap(f, in_axes=(0, 0)), in_axes=(None, 0))(xs, ys)\n"
    )
    assert _lint(fine, "JAX104") == []
    assert _lint(fine, "JAX105") == []


def test_jit_static_argument_mapped_exact_message():
    src = HEAD + "step = jax.jit(jax.vmap(f, in_axes=(0, 0)), static_argnums=1)\n"
    assert _lint(src, "JAX104") == [
        (
            "JAX104",
            4,
            40,
            "vmap(f) maps argument 1 along axis 0 (`in_axes` entry 1 is `0`), but the jit around it makes that "
            "argument static (`static_argnums=1`): it arrives as the caller's Python value, which has no axis to map, "
            "and JAX raises `ValueError: vmap was requested to map its argument along axis 0, ...`. Use `None` in "
            "`in_axes` for a static argument",
        )
    ]
    assert _lint(HEAD + "step = jax.jit(jax.vmap(f, in_axes=(0, None)), static_argnums=1)\n", "JAX104") == []
    assert _lint(HEAD + "step = jax.jit(jax.vmap(f, in_axes=(0, 0)), static_argnums=N)\n", "JAX104") == []


def test_pytree_leaves_exact_messages():
    src = HEAD + (
        "import numpy as np\ndef g():\n    b = list(np.random.randn(3))\n    mat = [1.0, None]\n"
        "    jax.vmap(f, in_axes=(0, None))(mat, b)\n    jax.vmap(f, in_axes=(None, 0))(mat, b)\n"
    )
    tail = (
        "; vmap maps every leaf: JAX raises `ValueError: vmap was requested to map its argument along axis 0, "
        "which implies that its rank should be at least 1`. Use `None` in `in_axes` for a shared argument, or an "
        "axis the argument has"
    )
    assert _lint(src, "JAX104") == [
        (
            "JAX104",
            8,
            36,
            "vmap(f) maps argument 0 along axis 0, but `mat` is a pytree and one of its leaves, `1.0`, "
            "is a scalar (rank 0)" + tail,
        ),
        (
            "JAX104",
            9,
            41,
            "vmap(f) maps argument 1 along axis 0, but `b` is a pytree and one of its leaves, an element "
            "of `list(np.random.randn(3))`, is a scalar (rank 0)" + tail,
        ),
    ]
    mutated = HEAD + "def g():\n    mat = [1.0, None]\n    mat.append(jnp.ones(3))\n    jax.vmap(f)(mat)\n"
    assert _lint(mutated, "JAX104") == []
    rows = HEAD + "import numpy as np\ndef g():\n    jax.vmap(f)(list(np.random.randn(3, 2)))\n"
    assert _lint(rows, "JAX104") == []


def test_nested_def_parameters_and_two_outer_levels_exact_message():
    src = HEAD + (
        "def g():\n    @jax.jit\n    def h(a, b):\n        inner = jax.vmap(f, in_axes=(0, 0))\n"
        "        return jax.vmap(jax.vmap(inner, in_axes=(0, None)), in_axes=(0, None))(a, b)\n"
        "    h(jnp.ones((2, 3, 4)), jnp.ones(5))\n"
    )
    assert _lint(src, "JAX105") == [
        (
            "JAX105",
            8,
            83,
            "vmap(f) maps axis 0 of `a` (as sliced along axes 0, 0 by the 2 outer `vmap`s) (size 4) and axis 0 of `b` "
            "(size 5, shape (5,)): JAX raises `ValueError: vmap got inconsistent sizes for array axes to be mapped`. "
            "Map each argument along its batch axis, or use `None` for a shared one",
        )
    ]
    twice = src.replace(
        "    h(jnp.ones((2, 3, 4)), jnp.ones(5))\n",
        "    h(jnp.ones((2, 3, 4)), jnp.ones(5))\n    h(jnp.ones((2, 3, 5)), jnp.ones(5))\n",
    )
    assert _lint(twice, "JAX105") == []  # the calls disagree on `a`: unknown


def test_array_made_by_a_helper_def_exact_message():
    src = HEAD + (
        "def _e4m3fn(shape):\n    key = jax.random.key(42)\n    return jax.random.normal(key, shape)\n"
        "def test():\n    lhs = _e4m3fn((4, 8))\n    rhs = _e4m3fn((8, 2))\n"
        "    return jax.vmap(jnp.matmul, in_axes=(0, 0))(lhs, rhs)\n"
    )
    assert _lint(src, "JAX105") == [
        (
            "JAX105",
            10,
            54,
            "vmap(jnp.matmul) maps axis 0 of `lhs` (size 4) and axis 0 of `rhs` (size 8, shape (8, 2)): JAX raises "
            "`ValueError: vmap got inconsistent sizes for array axes to be mapped`. Map each argument along its "
            "batch axis, or use `None` for a shared one",
        )
    ]
    assert _lint(src.replace("in_axes=(0, 0)", "in_axes=(0, None)"), "JAX105") == []
    outside = (
        src.replace("    lhs = _e4m3fn((4, 8))\n    rhs = _e4m3fn((8, 2))\n", "")
        + "lhs = _e4m3fn((4, 8))\nrhs = _e4m3fn((8, 2))\n"
    )
    assert _lint(outside, "JAX105") == []  # made in another unit than the vmap's: the slicer may blank the helper


def test_parameterized_test_names_the_failing_case_exact_message():
    src = HEAD + (
        "from absl.testing import parameterized\n"
        "class T:\n"
        "  @parameterized.parameters((3, (3, 2)), (4, (3, 2)))\n"
        "  def test(self, n, yshape):\n"
        "    out = jax.vmap(f)(jnp.ones((n, 5)), jnp.ones(yshape))\n"
    )
    assert _lint(src, "JAX105") == [
        (
            "JAX105",
            8,
            41,
            "In the test case with n=4, yshape=(3, 2), vmap(f) maps axis 0 of `jnp.ones((n, 5))` (size 4) and axis 0 "
            "of `jnp.ones(yshape)` (size 3, shape (3, 2)): JAX raises `ValueError: vmap got inconsistent sizes for "
            "array axes to be mapped`. Map each argument along its batch axis, or use `None` for a shared one",
        )
    ]
    agree = src.replace("(4, (3, 2))", "(3, (3, 7))")
    assert _lint(agree, "JAX105") == []


PAGED = HEAD + (
    "from jax._src import test_util as jtu\n"
    "def _make(batch, page_size, max_len, key):\n"
    "  blocks = max_len // page_size\n"
    "  pages = jax.random.normal(key, (1, batch * blocks, page_size, 4))\n"
    "  pages = pages / jnp.linalg.norm(pages, axis=-1)[..., None]\n"
    "  tables = jax.random.permutation(key, jnp.arange(batch * blocks), independent=True)\n"
    "  return pages, tables.reshape(batch, blocks)\n"
    "def _gather(block_tables, pages):\n"
    "  inner = jax.vmap(lambda t, p: p[t], (0, 0))\n"
    "  return jax.vmap(inner, (None, 0), 1)(block_tables, pages)\n"
    "class T(jtu.JaxTestCase):\n"
    "  @jtu.sample_product(page_size=(8, 16))\n"
    "  def test(self, page_size):\n"
    "    lens = jnp.asarray([3, 256, 513])\n"
    "    pages, tables = _make(lens.shape[0], page_size, 64, jax.random.key(0))\n"
    "    _gather(tables, pages)\n"
)


def test_module_level_helpers_in_a_parameterized_test_exact_message():
    assert _lint(PAGED, "JAX105") == [
        (
            "JAX105",
            13,
            54,
            "In the test case with page_size=8, vmap(lambda) maps axis 0 of `block_tables` (size 3) and axis 0 of `pages` "
            "(as sliced along axis 0 by the outer `vmap`) (size 24, shape (24, 8, 4)) (as called at line 19): JAX "
            "raises `ValueError: vmap got inconsistent sizes for array axes to be mapped`. Map each argument along "
            "its batch axis, or use `None` for a shared one",
        )
    ]
    assert _lint(PAGED.replace("(lambda t, p: p[t], (0, 0))", "(lambda t, p: p[t], (0, None))"), "JAX105") == []
    # the call's text also opens the def (`def _gather(tables, pages):`): the cited line is still the call's
    same_text = PAGED.replace("def _gather(block_tables, pages):", "def _gather(tables, pages):").replace(
        "(block_tables, pages)\n", "(tables, pages)\n"
    )
    [(_, _, _, message)] = _lint(same_text, "JAX105")
    assert "`tables` (size 3)" in message and "(as called at line 19)" in message
    opaque = PAGED.replace(
        "  return pages, tables.reshape(batch, blocks)\n", "  return load(pages), tables.reshape(batch, blocks)\n"
    )
    assert _lint(opaque, "JAX105") == []  # the helper's shapes are not visible


def test_module_level_def_parameters_take_what_its_calls_pass_exact_message():
    src = HEAD + (
        "def _gather(tables, pages):\n"
        "  inner = jax.vmap(lambda t, p: p[t], (0, 0))\n"
        "  return jax.vmap(inner, (None, 0))(tables, pages)\n"
        "def test():\n"
        "  tables = jnp.zeros((5, 4), dtype=jnp.int32)\n"
        "  _gather(tables, jnp.ones((2, 40, 8)))\n"
        "  _gather(tables, jnp.ones((2, 40, 8)))\n"
    )
    assert _lint(src, "JAX105") == [
        (
            "JAX105",
            6,
            45,
            "vmap(lambda) maps axis 0 of `tables` (size 5) and axis 0 of `pages` (as sliced along axis 0 by the outer "
            "`vmap`) (size 40, shape (40, 8)): JAX raises `ValueError: vmap got inconsistent sizes for array axes to "
            "be mapped`. Map each argument along its batch axis, or use `None` for a shared one",
        )
    ]
    per_call = src.replace(
        "(2, 40, 8)))\n  _gather(tables, jnp.ones((2, 40, 8)))", "(2, 5, 8)))\n  _gather(tables, jnp.ones((2, 40, 8)))"
    )
    assert [(c, line, m[m.index("(size 40") : m.index(":")]) for c, line, _, m in _lint(per_call, "JAX105")] == [
        ("JAX105", 6, "(size 40, shape (40, 8)) (as called at line 10)")
    ]
    agreeing = src.replace(
        "(2, 40, 8)))\n  _gather(tables, jnp.ones((2, 40, 8)))", "(2, 5, 8)))\n  _gather(tables, jnp.ones((3, 5, 8)))"
    )
    assert _lint(agreeing, "JAX105") == []
