"""What kind of value a JAX or NumPy call or annotation gives (jaxlint.model.arrays)."""

from __future__ import annotations

import libcst as cst

from jaxlint.base.names import canonical
from jaxlint.model.arrays import annotated_array, call_kind, made_by, qualified

from .helpers import model_of


def test_call_kind():
    assert call_kind("jax.numpy.zeros") == "array"
    assert call_kind("jax.random.normal") == "array"
    assert call_kind("jax.nn.relu") == "array"
    assert call_kind("numpy.zeros") == "numpy"
    assert call_kind("jax.numpy.shape") is None
    assert call_kind("jax.lax.scan") is None
    assert call_kind("jax.lax.psum") == "pytree"
    assert call_kind("jax.lax.stop_gradient") == "pytree"
    assert call_kind("jax.jit") is None
    assert call_kind("math.sqrt") is None


def test_jax_private_modules_are_the_public_functions_they_hold():
    """``base/definitions.py`` (generated from jax 0.10.2): a private path is public only
    where jax holds the public function there; a path jax does not have stays as written."""
    assert canonical("jax._src.numpy.array_creation.zeros") == "jax.numpy.zeros"
    assert canonical("jax._src.numpy.ufuncs.sin") == "jax.numpy.sin"
    assert canonical("jax._src.random.split") == "jax.random.split"
    assert canonical("jax._src.lax.lax.add") == "jax.lax.add"
    assert canonical("jax._src.lax.control_flow.loops.scan") == "jax.lax.scan"
    assert canonical("jax._src.numpy.lax_numpy.zeros") == "jax._src.numpy.lax_numpy.zeros"  # not there in 0.10.2
    assert canonical("jax._src.numpy.lax_numpy._helper") == "jax._src.numpy.lax_numpy._helper"
    assert canonical("jax.numpy.zeros") == "jax.numpy.zeros"


def test_annotated_array():
    p = model_of("""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jaxtyping import Array, Float
    def f(a: jax.Array, b: jnp.ndarray, c: Float[Array, "n"], d: Float[np.ndarray, "n"], e: np.ndarray, g: int):
        pass
    """)
    fn = next(n for n, entering in p.ctx._events if entering and type(n) is cst.FunctionDef)
    got = {q.name.value: annotated_array(p.evaluator, q.annotation.annotation) for q in fn.params.params}
    assert got == {"a": True, "b": True, "c": True, "d": False, "e": False, "g": False}


def test_made_by_reads_the_abstract_value():
    p = model_of("""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    zeros = jnp.zeros
    a = jnp.zeros(3)
    b = np.array(a)
    c = jax.device_put(b)
    d = zeros(2)
    e = jnp.shape(a)
    f = lax.psum(a, "i")  # what it was given: here an array
    g = len(a)
    """)
    ev = p.evaluator
    calls = {
        n.targets[0].target.value: n.value
        for n, entering in p.ctx._events
        if entering and type(n) is cst.Assign and type(n.value) is cst.Call
    }
    got = {k: made_by(ev, v) for k, v in calls.items()}
    assert got == {"a": "array", "b": "numpy", "c": "array", "d": "array", "e": None, "f": "array", "g": None}
    assert qualified(ev, calls["d"].func) == "jax.numpy.zeros"
    assert qualified(ev, calls["g"].func) == "builtins.len"
