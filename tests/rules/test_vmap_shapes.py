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
    src = HEAD + "xs = jnp.arange(4)\nys = jnp.arange(5)\njax.vmap(jax.vmap(f, in_axes=(0, 0)), in_axes=(None, 0))(xs, ys)\n"
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
    fine = HEAD + "xs = jnp.arange(4)\nys = jnp.ones((5, 4))\njax.vmap(jax.vmap(f, in_axes=(0, 0)), in_axes=(None, 0))(xs, ys)\n"
    assert _lint(fine, "JAX104") == []
    assert _lint(fine, "JAX105") == []
