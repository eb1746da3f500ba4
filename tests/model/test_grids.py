"""Index grids (``jnp.mgrid``/``ogrid``, NumPy's): the model's shapes and dtype kinds,
checked against what jax and numpy build."""

from importlib.util import find_spec

import pytest

from .helpers import model_of

needs_jax = pytest.mark.skipif(find_spec("jax") is None, reason="needs jax")

GRIDS = {
    "a": ("jnp.mgrid[0:4, 0:3]", (2, 4, 3), "int"),
    "b": ("jnp.mgrid[-1.0:1.0:5j, 0:2:3j, 0:1:4j]", (3, 5, 3, 4), "float"),
    "c": ("jnp.mgrid[:7]", (7,), "int"),
    "e": ("np.mgrid[0:10:2, 1:3]", (2, 5, 2), "int"),
    "f": ("jnp.mgrid[0:1:0.25]", (4,), "float"),
    "g": ("jnp.mgrid[3:0]", (0,), "int"),
    "h": ("jnp.mgrid[0:1:complex(0, 6), -2:2:complex(0, 3)]", (2, 6, 3), "float"),
}
SOURCE = "import jax.numpy as jnp\nimport numpy as np\n" + "".join(f"{k} = {e}\n" for k, (e, _, _) in GRIDS.items())


def _values():
    p = model_of(SOURCE)
    return {
        st.body[0].targets[0].target.value: p.evaluator.value(st.body[0].value, None) for st in p.ctx.module.body[2:]
    }


def test_an_index_grid_has_one_axis_per_slice_after_the_leading_count():
    got = _values()
    assert {k: (v.shape.dims, v.dtype.kind, v.host) for k, v in got.items()} == {
        k: (shape, kind, e.startswith("np.")) for k, (e, shape, kind) in GRIDS.items()
    }


def test_an_open_grid_gives_one_broadcastable_array_per_slice():
    p = model_of("import jax.numpy as jnp\nd = jnp.ogrid[0:4, 0:3]\n")
    v = p.evaluator.value(p.ctx.module.body[1].body[0].value, None)
    assert [x.shape.dims for x in v.items] == [(4, 1), (1, 3)]


@pytest.mark.jax
@needs_jax
def test_the_grids_are_what_jax_and_numpy_build():
    import jax.numpy as jnp
    import numpy as np

    for name, (expr, shape, kind) in GRIDS.items():
        real = eval(expr, {"jnp": jnp, "np": np})
        assert real.shape == shape, name
        assert (real.dtype.kind in "iu") == (kind == "int"), name
    assert [x.shape for x in jnp.ogrid[0:4, 0:3]] == [(4, 1), (1, 3)]
