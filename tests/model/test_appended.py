"""Lists built by ``append`` (jaxlint/model/appended.py): after the appends a read sees the
literal's items and each append's value, an append in a ``for`` loop once per item;
where the appends' effect is not certain, the list is unknown."""

import pytest

from jaxlint.base.literals import UNKNOWN
from jaxlint.model.abstract import Array, List, Seq

from .helpers import value_of

HEADER = "import jax\nimport jax.numpy as jnp\n\n"


def _value(body: str):
    return value_of(HEADER + body)


def test_appends_in_a_counted_loop_and_after_it():
    v = _value(
        "def f():\n    outs = [jnp.zeros(2)]\n    for i in range(3):\n        outs.append(jnp.ones((i + 1,)))\n"
        "    outs.append(jnp.ones(7))\n    return outs\n\nresult = f()\n"
    )
    assert type(v) is List and len(v.items) == 5
    assert [x.shape.dims for x in v.items][::4] == [(2,), (7,)]


def test_stacking_what_a_loop_appended():
    v = _value(
        "def f(key):\n    rows = []\n    for k in jax.random.split(key, 5):\n"
        "        rows.append(jax.random.normal(k, (8, 2)))\n    return jnp.stack(rows)\n\nresult = f(jax.random.key(0))\n"
    )
    assert type(v) is Array and v.shape.dims == (5, 8, 2)


def test_a_loop_of_symbolic_length_gives_a_sequence_of_that_length():
    from jaxlint.model import dims

    v = _value(
        "def f(key, n: int):\n    outs = []\n    for k in jax.random.split(key, n):\n"
        "        outs.append(jax.random.normal(k, (3,)))\n    return outs\n\nresult = f(jax.random.key(0), unknown())\n"
    )
    assert type(v) is Seq and dims.as_int(v.length) is None and v.length is not None
    assert type(v.item) is Array and v.item.shape.dims == (3,)


def test_appends_in_nested_loops_once_per_inner_item_of_each_outer_one():
    from jaxlint.model import dims

    # the items known one by one: each append with both targets bound
    v = _value(
        "def f():\n    outs = []\n    for i, f in enumerate({'s': 2.0, 'b': 1.0}.values()):\n"
        "        for j in range(4):\n            outs.append(jnp.ones((i + 1, j + 1)))\n"
        "    return jnp.stack(outs[:1])\n\nresult = f()\n"
    )
    assert type(v) is Array and v.shape.dims == (1, 1, 1)
    v = _value(
        "def f():\n    outs = []\n    for f in (1.0, 2.0, 3.0):\n        for j in range(4):\n"
        "            outs.append(jnp.ones(5) * f)\n    return jnp.stack(outs)\n\nresult = f()\n"
    )
    assert type(v) is Array and v.shape.dims == (12, 5)
    # counted, not known one by one: the product of the counts
    v = _value(
        "def f(n: int, key):\n    outs = []\n    for k in jax.random.split(key, n):\n        for j in range(3):\n"
        "            outs.append(jnp.ones(2))\n    return outs\n\nresult = f(unknown(), jax.random.key(0))\n"
    )
    assert type(v) is Seq and dims.text(v.length).startswith("3") and v.item.shape.dims == (2,)


@pytest.mark.parametrize(
    "body",
    [
        # an append under an if: how many is not certain
        "    for i in range(3):\n        if i:\n            outs.append(jnp.ones(2))\n",
        # a loop that may stop early
        "    for i in range(3):\n        outs.append(jnp.ones(2))\n        if i == 1:\n            break\n",
        # another mutation than append
        "    outs.append(jnp.ones(2))\n    outs.extend([jnp.ones(2)])\n",
        # a while loop: how many times is not counted
        "    i = 0\n    while i < 3:\n        outs.append(jnp.ones(2))\n        i += 1\n",
        # an append whose loop the model cannot count
        "    for x in unknown_items():\n        outs.append(x)\n",
        # ... also as the inner loop of two
        "    for i in range(2):\n        for x in unknown_items():\n            outs.append(x)\n",
        # an append under an if in nested loops
        "    for i in range(2):\n        for j in range(2):\n            if i:\n                outs.append(jnp.ones(2))\n",
    ],
)
def test_where_the_appends_are_not_certain_the_list_is_unknown(body):
    v = _value(f"def f():\n    outs = []\n{body}    return outs\n\nresult = f()\n")
    assert v is UNKNOWN


def test_a_read_inside_the_loop_is_not_the_finished_list():
    v = _value(
        "def f():\n    outs = []\n    seen = None\n    for i in range(3):\n        outs.append(jnp.ones(2))\n"
        "        seen = outs\n    return seen\n\nresult = f()\n"
    )
    assert v is UNKNOWN
