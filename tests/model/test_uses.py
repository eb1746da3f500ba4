"""How a function uses its parameters (jaxlint.model.uses)."""

import libcst as cst

from jaxlint.model.uses import uses

from .helpers import model_of


def _uses(src: str, name: str = "f") -> dict[str, set[str]]:
    p = model_of(src)
    fn = next(n for n, entering in p.ctx._events if entering and type(n) is cst.FunctionDef and n.name.value == name)
    return {k: set(v) for k, v in uses(p, fn).items()}


def test_each_kind_of_use():
    got = _uses(
        "import jax, jax.numpy as jnp\n"
        "def f(params, x, n, fn, k, xs, pair, batch):\n"
        "    h = x @ params['w']\n"
        "    y = jnp.zeros((n, 3))\n"
        "    for b in xs:\n        pass\n"
        "    a, c = pair\n"
        "    if k > 0:\n        pass\n"
        "    return fn(h) + batch.shape[0] + jnp.dot(h, x)\n"
    )
    assert got["params"] == {"subscripted", "keyed"}
    assert got["x"] == {"contraction"}
    assert got["n"] == {"static"}
    assert got["fn"] == {"called"}
    assert got["k"] == {"static"}
    assert got["xs"] == {"iterated"}
    assert got["pair"] == {"unpacked"}
    assert got["batch"] == {"shape"}


def test_how_a_subscript_or_a_type_test_reads_a_parameter():
    got = _uses(
        "def f(d, t, u, v):\n    if isinstance(v, dict):\n        pass\n    return d['w'] + t[0] + t[-1] + u[1:]\n"
    )
    assert got["d"] == {"subscripted", "keyed"}
    assert got["t"] == {"subscripted", "indexed"}
    assert got["u"] == {"subscripted"}
    assert got["v"] == {"type_tested"}


def test_differentiated_and_range():
    got = _uses(
        "import jax\n"
        "def loss(w, x):\n    return (w * x).sum()\n"
        "def f(w, x, steps):\n"
        "    for _ in range(steps):\n        g = jax.grad(loss)(w, x)\n"
        "    return g\n"
    )
    assert got["steps"] == {"static"}
    assert got["w"] == {"differentiated"} and got["x"] == set()


def test_a_key_the_catalogue_consumes():
    got = _uses(
        "import jax\n"
        "def f(key, rng, w, seed):\n"
        "    k1, k2 = jax.random.split(rng)\n"
        "    other = jax.random.fold_in(seed, 3)\n"
        "    return w + jax.random.normal(key=key, shape=w.shape)\n"
    )
    assert got["key"] == {"key"}
    assert got["rng"] == {"key"}  # split consumes the key it splits
    assert got["w"] == {"shape"}
    assert "key" not in got["seed"]  # fold_in makes a new key and consumes none
