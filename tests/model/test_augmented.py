"""``x op= y`` is ``x op y`` of what ``x`` held before: a NumPy array keeps its shape
and dtype (updated in place), anything else with a value of its own is rebound."""

from jaxlint.base.literals import UNKNOWN
from jaxlint.model.abstract import Array, Const, Shape, Tuple

from .helpers import value_of as _value_of


def value_of(source: str):
    """What ``result`` holds at the end of ``source``."""
    return _value_of(source + "read = result\n", "read")


def test_a_numpy_array_updated_in_place_keeps_its_shape_and_dtype():
    v = value_of("import numpy as np\nresult = np.zeros((4, 3), np.float32)\nresult += np.ones(3)\n")
    assert type(v) is Array and v.host and v.shape == Shape((4, 3)) and v.dtype.name == "float32"


def test_a_jax_array_is_rebound_to_the_broadcast_result():
    v = value_of("import jax.numpy as jnp\nresult = jnp.zeros((4, 3))\nresult += jnp.ones((2, 1, 3))\n")
    assert type(v) is Array and not v.host and v.shape == Shape((2, 4, 3))


def test_numbers_and_tuples_are_rebound():
    assert value_of("result = 3\nresult += 4\n") == Const(7)
    assert value_of("result = (1,)\nresult += (2,)\n") == Tuple((Const(1), Const(2)))


def test_what_numpy_would_not_write_in_place_is_unknown():
    # a float result into an int array raises (same_kind casting); a broadcast that grows it too
    assert value_of("import numpy as np\nresult = np.zeros(3, np.int32)\nresult += 0.5\n") is UNKNOWN
    assert value_of("import numpy as np\nresult = np.zeros(3)\nresult += np.ones((2, 3))\n") is UNKNOWN


def test_a_list_or_a_loop_back_to_the_update_is_unknown():
    assert value_of("result = [1]\nresult += [2]\n") is UNKNOWN
    assert value_of("result = 0\nfor i in range(3):\n    result += i\n") is UNKNOWN
    src = "import numpy as np\nresult = np.zeros(3)\nfor i in range(3):\n    result += 1.0\n    result += 2.0\n"
    assert value_of(src) is UNKNOWN
