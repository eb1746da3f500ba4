"""Array shapes in the program model: exact answers, and unknown where the code does not say."""

from __future__ import annotations

from jaxlint.model.shapes import SCALAR, Shape, shape, shape_with_helpers, size

from .helpers import model_of, reads

HEADER = """
import math
import jax
import jax.numpy as jnp
import numpy as np
from jax import random
key = random.PRNGKey(0)
"""


def _shapes(body: str, *names: str) -> list:
    p = model_of(HEADER + body + "\nprint(" + ", ".join(names) + ")\n")
    return [shape(p, reads(p, n)[-1]) for n in names]


def test_constructors():
    assert _shapes(
        """
a = jnp.ones((32, 100))
b = np.zeros(5)
c = jnp.full((2, 3), 1.0)
d = jnp.empty(shape=[4, 1])
e = jnp.arange(10)
f = jnp.arange(2, 8, 2)
g = jnp.eye(3)
h = jnp.eye(3, 4)
i = jnp.linspace(0.0, 1.0, 7)
j = jnp.linspace(0.0, 1.0)
""",
        *"abcdefghij",
    ) == [
        Shape((32, 100)),
        Shape((5,)),
        Shape((2, 3)),
        Shape((4, 1)),
        Shape((10,)),
        Shape((3,)),
        Shape((3, 3)),
        Shape((3, 4)),
        Shape((7,)),
        Shape((50,)),
    ]


def test_random_keys_and_samples():
    assert _shapes(
        """
a = random.split(key, 16)
b = random.split(random.key(1), 4)
c = random.split(unknown_key, 4)
d = random.normal(key, (5, 2))
e = random.normal(key)
f = random.uniform(key, shape=(3,))
k1, k2 = random.split(key)
g = random.fold_in(key, 3)
h = np.random.randn(2, 3)
R = np.random.RandomState(0).randn
i = R(3, 4, 5)
rng = np.random.RandomState(1)
j = rng.randn(6)
k = rng.uniform(size=(5, 2))
l = np.random.normal(0.0, 1.0, size=4)
m = rng.uniform()
""",
        "a",
        "b",
        "c",
        "d",
        "e",
        "f",
        "k1",
        "g",
        "h",
        "i",
        "j",
        "k",
        "l",
        "m",
    ) == [
        Shape((16, 2)),
        Shape((4,)),
        Shape((4,), exact=False),
        Shape((5, 2)),
        SCALAR,
        Shape((3,)),
        Shape((2,)),
        Shape((2,)),
        Shape((2, 3)),
        Shape((3, 4, 5)),
        Shape((6,)),
        Shape((5, 2)),
        Shape((4,)),
        None,
    ]


def test_like_reshape_stack_concatenate_index_arithmetic():
    assert _shapes(
        """
x = jnp.ones((32, 100))
a = jnp.zeros_like(x)
b = x.reshape(4, -1, 10)
c = jnp.reshape(x, (100, 32))
d = jnp.stack([x, x])
e = jnp.stack([x, x, x], axis=1)
f = jnp.concatenate([x, x], axis=1)
g = x[0]
h = x[0, 1]
i = x * 2.0 + 1
j = jnp.asarray(x)
k = x.astype(jnp.float32)
l = jnp.ones((x.shape[0], 2))
m = x.reshape(unknown, -1)
n = x.T
o = jnp.arange(4, dtype=jnp.int32)
""",
        *"abcdefghijklmno",
    ) == [
        Shape((32, 100)),
        Shape((4, 80, 10)),
        Shape((100, 32)),
        Shape((2, 32, 100)),
        Shape((32, 3, 100)),
        Shape((32, 200)),
        Shape((100,)),
        SCALAR,
        Shape((32, 100)),
        Shape((32, 100)),
        Shape((32, 100)),
        Shape((32, 2)),
        Shape((None, None)),
        Shape((100, 32)),
        Shape((4,)),
    ]


def test_python_scalars():
    assert (
        _shapes(
            """
x = jnp.ones((3, 4))
a = 3
b = 2.5
c = len(xs)
d = math.prod(x.shape)
e = int(y)
f = x.shape[1]
g = x.ndim
h = x.size
z = load()
i = z.shape[0]
""",
            *"abcdefghi",
        )
        == [SCALAR] * 9
    )


def test_sizes():
    p = model_of(
        HEADER
        + """
x = jnp.ones((3, 4))
N = 8
a = x.shape[1]
b = x.ndim
c = x.size
d = len([1, 2, 3])
e = N * 2
f = x.shape[-1] + 1
while True:
    n = n + 1
print(a, b, c, d, e, f, n)
"""
    )
    assert [size(p, reads(p, v)[-1]) for v in "abcdefn"] == [4, 2, 12, 3, 16, 5, None]


def test_unknown_means_none():
    assert _shapes(
        """
def f(param):
    return param

a = param_from_elsewhere
if flag:
    b = jnp.ones(3)
else:
    b = jnp.ones(4)
if flag:
    c = jnp.ones(3)
else:
    c = jnp.ones(3)
d = jnp.stack(arrays)
e = jnp.ones(3) @ jnp.ones((3, 2))
g = x.size
h = jnp.ones((3,)) + jnp.ones((4,))
for i in range(3):
    pass
""",
        "a",
        "b",
        "c",
        "d",
        "e",
        "g",
        "h",
        "i",
    ) == [None, None, Shape((3,)), None, None, None, None, None]


def test_parameters_of_a_nested_def_take_the_shape_all_its_calls_pass():
    p = model_of(
        HEADER
        + """
def test():
    @jax.jit
    def f(a, b):
        return a + b
    f(jnp.ones((2, 3)), jax.device_put(jnp.zeros(4)))
    f(jnp.zeros((2, 3)), b=jnp.ones(4))
    def g(c):
        return c
    g(jnp.ones(2))
    g(jnp.ones(3))
    def h(d):
        return d
    h(jnp.ones(2))
    return h
"""
    )
    assert shape(p, reads(p, "a")[-1]) == Shape((2, 3))
    assert shape(p, reads(p, "b")[-1]) == Shape((4,))
    assert shape(p, reads(p, "c")[-1]) is None  # the calls disagree
    assert shape(p, reads(p, "d")[-1]) is None  # returned: other calls may pass anything


def test_a_helper_def_gives_its_shape_parameter_only_when_asked_from_the_calling_unit():
    p = model_of(
        HEADER
        + """
def _normal(shape):
    key = jax.random.key(0)
    return jax.random.normal(key, shape).astype(jnp.float16)
def _twice(shape):
    return jnp.ones(shape), jnp.ones(shape)
def test():
    a = _normal((128, 32))
    b = _normal(shape=(3,))
    c = _twice((2, 2))
    return a, b, c
"""
    )
    a, b, c = (reads(p, n)[-1] for n in "abc")
    unit = p.ctx.unit_of(a)
    assert shape(p, a) is None  # the slicer may blank the helper for other rules
    assert shape_with_helpers(p, a, unit) == Shape((128, 32))
    assert shape_with_helpers(p, b, unit) == Shape((3,))
    assert shape_with_helpers(p, c, unit) is None  # returns a tuple
    assert shape_with_helpers(p, a, p.ctx.unit_of(p.ctx.module.body[-2])) is None  # called in another unit
    assert shape(p, a) is None


def test_expand_dims_and_literal_arrays():
    assert _shapes(
        """
x = jnp.ones((3, 4))
a = jnp.expand_dims(x, axis=1)
b = jnp.expand_dims(x, (0, -1))
c = np.expand_dims(x, 2)
d = jnp.expand_dims(x, axis=3)
e = np.array([[0, 1], [2, -3], [4, 5]])
f = np.array([[0, 1], [2]])
g = np.array([x, x])
""",
        *"abcdefg",
    ) == [Shape((3, 1, 4)), Shape((1, 3, 4, 1)), Shape((3, 4, 1)), None, Shape((3, 2)), None, None]


def test_norm_permutation_and_indexing_with_none_and_ellipsis():
    assert _shapes(
        """
x = jnp.ones((2, 3, 4))
a = jnp.linalg.norm(x, axis=-1)
b = jnp.linalg.norm(x, axis=0, keepdims=True)
c = jnp.linalg.norm(x)
d = x / jnp.linalg.norm(x, axis=-1)[..., None]
e = jax.random.permutation(key, jnp.arange(6), independent=True)
f = jax.random.permutation(key, 5)
g = x[None, :, 0]
h = x[0, ..., None]
i = x[..., 1:]
j = jnp.linalg.norm(x, axis=3)
""",
        *"abcdefghij",
    ) == [
        Shape((2, 3)),
        Shape((1, 3, 4)),
        SCALAR,
        Shape((2, 3, 4)),
        Shape((6,)),
        Shape((5,)),
        Shape((1, 2, 4)),
        Shape((3, 4, 1)),
        None,
        None,
    ]


def test_a_name_unpacked_from_a_helper_call_reads_its_returned_tuple_with_the_call_arguments():
    p = model_of(
        HEADER
        + """
def _make(batch, pages, width=4):
    total = batch * (pages // 2)
    a = jax.random.normal(key, (total, width))
    return a / jnp.linalg.norm(a, axis=-1)[..., None], jnp.arange(batch)
def _opaque(n):
    return load(n), load(n)
def _uses(a, b):
    return a, b
def test():
    sizes = np.asarray([1, 2, 3])
    a, b = _make(sizes.shape[0], 8)
    c, d = _opaque(3)
    _uses(a, b)
    _uses(a, b)
    print(c, d)
def elsewhere():
    e, f = _make(2, 4, width=3)
    return e, f
"""
    )
    a, b, c, _d, e = (reads(p, n)[-1] for n in "abcde")
    used = p.ctx.module.body[-3]  # ``def _uses``: the unit a vmap rule asks from
    assert shape(p, a) is None  # the slicer may blank the helper for other rules
    assert shape_with_helpers(p, a, used) == Shape((12, 4))
    assert shape_with_helpers(p, b, used) == Shape((3,))
    assert shape_with_helpers(p, c, used) is None  # the helper's shapes are not visible
    assert shape_with_helpers(p, e, used) is None  # called in a unit that does not call ``_uses``
    assert shape_with_helpers(p, e, p.ctx.unit_of(e)) == Shape((4, 3))  # 2 * (4 // 2) rows
    a_in = next(r for r in reads(p, "a") if p.ctx.unit_of(r) is used)  # the parameter, read in ``_uses``
    assert shape_with_helpers(p, a_in, used) == Shape((12, 4))  # both calls pass one shape
